//! [`ZKey`] for the keys of popular crates, behind features of their
//! names.

#[allow(unused_imports)]
use super::ZKey;
#[cfg(feature = "slotmap")]
use super::fold;

/// A `bevy_ecs` entity is a key by its index; its generation is in `Eq`,
/// so a despawned entity's stale key is not held, and a new entity reusing
/// the index is refused by [`insert`](super::ZOrder::insert) until the old
/// one is removed (or taken over with [`replace`](super::ZOrder::replace)).
///
/// ```
/// use bevy_ecs::world::World;
/// use zorder::{I16F16, ZOrder};
///
/// let mut world = World::new();
/// let hero = world.spawn_empty().id();
/// let mut order = ZOrder::<bevy_ecs::entity::Entity>::default();
/// order.insert(hero, I16F16::from_num(3))?;
/// assert_eq!(order.first(), Some((hero, I16F16::from_num(3))));
/// # Ok::<(), zorder::ZError>(())
/// ```
#[cfg(feature = "bevy_ecs")]
impl ZKey for bevy_ecs::entity::Entity {
    #[inline]
    fn index(&self) -> usize {
        self.index_u32() as usize
    }
}

/// A `slotmap` key's data is a key by the one value `slotmap` exposes,
/// `as_ffi()`. `slotmap` promises nothing about its bits but that they
/// round-trip, so the whole value is the index: the generations of a slot
/// have different indices (a stale key is simply not held, and a new
/// generation is never refused), and the collection keeps these keys
/// among its far ones rather than in its dense array: in chunks of
/// neighbouring slots of one version while the slots share a few
/// versions, else in its hash map.
///
/// ```
/// use slotmap::{DefaultKey, SlotMap};
/// use zorder::{I16F16, ZOrder};
///
/// let mut sprites = SlotMap::new();
/// let sky = sprites.insert("sky");
/// let hero = sprites.insert("hero");
/// let mut order = ZOrder::<DefaultKey>::default();
/// order.insert(hero, I16F16::from_num(5))?;
/// order.insert(sky, I16F16::from_num(0))?;
/// let drawn: Vec<_> = order.back_to_front().map(|key| sprites[key]).collect();
/// assert_eq!(drawn, ["sky", "hero"]);
/// sprites.remove(hero);
/// let stale = hero;
/// order.remove(stale)?; // the game removes its dead keys
/// # Ok::<(), zorder::ZError>(())
/// ```
#[cfg(feature = "slotmap")]
impl ZKey for slotmap::KeyData {
    #[inline]
    fn index(&self) -> usize {
        fold(self.as_ffi())
    }
}

/// As [`KeyData`](slotmap::KeyData)'s.
#[cfg(feature = "slotmap")]
impl ZKey for slotmap::DefaultKey {
    #[inline]
    fn index(&self) -> usize {
        fold(slotmap::Key::data(self).as_ffi())
    }
}

/// The index of a `slotmap` key's data, as [`slotmap_key!`](crate::slotmap_key)
/// uses it.
#[cfg(feature = "slotmap")]
#[doc(hidden)]
pub fn slotmap_index(data: slotmap::KeyData) -> usize {
    ZKey::index(&data)
}

/// Implements [`ZKey`](crate::ZKey) for key types made with `slotmap`'s
/// `new_key_type!`, as the `slotmap` feature does for `DefaultKey`.
///
/// ```
/// use slotmap::{SlotMap, new_key_type};
/// use zorder::{I16F16, ZOrder};
///
/// new_key_type! { struct SpriteKey; }
/// zorder::slotmap_key!(SpriteKey);
///
/// let mut sprites = SlotMap::<SpriteKey, &str>::with_key();
/// let coin = sprites.insert("coin");
/// let mut order = ZOrder::<SpriteKey>::default();
/// order.insert(coin, I16F16::from_num(2.5))?;
/// assert!(order.contains(coin));
/// # Ok::<(), zorder::ZError>(())
/// ```
#[cfg(feature = "slotmap")]
#[macro_export]
macro_rules! slotmap_key {
    ($($key:ty),+ $(,)?) => {
        $(
            impl $crate::ZKey for $key {
                #[inline]
                fn index(&self) -> usize {
                    $crate::__slotmap_index(::slotmap::Key::data(self))
                }
            }
        )+
    };
}
