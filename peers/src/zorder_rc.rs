//! `zorder`'s `Rc` collections used the way their docs show: each object
//! an `Rc<ZObject<Node>>` reporting its Z from a `Cell`.

use std::cell::Cell;
use std::rc::Rc;

use zorder::{FixedPointZCollection, SimpleZCollection, ZObject, ZSortable};

use crate::{Backend, I16F16, Sprite};

/// A game object: its Z and its sprite.
#[derive(Debug)]
pub struct Node {
    z: Cell<I16F16>,
    sprite: Sprite,
}

impl Node {
    /// The sprite a renderer draws.
    pub fn sprite(&self) -> &Sprite {
        &self.sprite
    }
}

impl ZSortable for Node {
    fn z_order(&self) -> I16F16 {
        self.z.get()
    }
}

/// The object handle a zorder user keeps.
pub type Object = Rc<ZObject<Node>>;

/// `zorder::FixedPointZCollection`: every Z, O(1) at the optimized levels
/// and the default Z.
#[derive(Debug)]
pub struct ZorderFixedPoint(FixedPointZCollection<Node>);

/// `zorder::SimpleZCollection`: natural levels `0..=max_level` only.
#[derive(Debug)]
pub struct ZorderSimple(SimpleZCollection<Node>);

macro_rules! rc_backend {
    ($backend:ident, $name:literal, $collection:ident) => {
        impl Backend for $backend {
            type Handle = Object;
            const NAME: &'static str = $name;

            fn with_levels(max_level: u16) -> Self {
                $backend($collection::new(max_level).expect("max_level is in range"))
            }

            fn accepts(&self, z: I16F16) -> bool {
                self.accepts_z(z)
            }

            fn create(&mut self, sprite: Sprite, z: I16F16) -> Object {
                let object = Rc::new(ZObject::new(Node {
                    z: Cell::new(z),
                    sprite,
                }));
                self.0
                    .add(&object)
                    .expect("a new object with an accepted Z");
                object
            }

            fn change(&mut self, object: &Object, z: I16F16) {
                object.z.set(z);
                self.0.change(object).expect("an object of this scene");
            }

            fn remove(&mut self, object: Object) {
                self.0.remove(&object).expect("an object of this scene");
            }

            fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
                self.0
                    .back_to_front()
                    .for_each(|object| draw(&object.sprite));
            }

            fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
                self.0
                    .front_to_back()
                    .for_each(|object| draw(&object.sprite));
            }

            fn len(&self) -> usize {
                self.0.len()
            }
        }
    };
}

rc_backend!(ZorderFixedPoint, "zorder-fixed", FixedPointZCollection);
rc_backend!(ZorderSimple, "zorder-simple", SimpleZCollection);

impl ZorderFixedPoint {
    fn accepts_z(&self, _z: I16F16) -> bool {
        true
    }
}

impl ZorderSimple {
    /// Whether `z` is one of the collection's natural levels.
    fn accepts_z(&self, z: I16F16) -> bool {
        z.frac() == 0 && z >= 0 && z <= i32::from(self.0.max_level())
    }
}
