//! Layouts: which Z values a collection takes, as a type parameter of both
//! faces ([`ZOrder`](crate::ZOrder) and [`RcZCollection`](crate::RcZCollection)).

use core::fmt::Debug;
use core::hash::Hash;

mod sealed {
    pub trait Sealed {}
}

/// Which Z values a collection takes: every `I16F16` ([`FixedPoint`]) or
/// only the levels `0..=max_level` ([`Simple`]). Sealed: these two are the
/// layouts.
///
/// Functions that work with either layout take it as a parameter:
///
/// ```
/// use zorder::{FixedPoint, I16F16, Layout, Simple, ZOrder};
///
/// fn hud_keys<L: Layout>(order: &ZOrder<u32, L>) -> Vec<u32> {
///     order.range(I16F16::from_num(100)..).map(|(key, _)| key).collect()
/// }
///
/// let mut world: ZOrder<u32, FixedPoint> = ZOrder::new(200)?;
/// let mut hud: ZOrder<u32, Simple> = ZOrder::simple(200)?;
/// world.insert(1, I16F16::from_num(150))?;
/// hud.insert(2, I16F16::from_num(120))?;
/// assert_eq!((hud_keys(&world), hud_keys(&hud)), (vec![1], vec![2]));
/// # Ok::<(), zorder::ZError>(())
/// ```
pub trait Layout:
    sealed::Sealed + Copy + Default + Debug + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// Whether every `I16F16` is a Z (else only the levels).
    const EVERY_Z: bool;
}

/// The fixed-point layout: every `I16F16` is a Z. O(1) at the levels
/// `0..=max_level` and at [`DEFAULT_Z`](crate::DEFAULT_Z), O(log n) at any
/// other Z. The legacy `FixedPointZCollection`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FixedPoint;

/// The simple layout: only the levels `0..=max_level` are Z values, every
/// operation is O(1), and any other Z, [`DEFAULT_Z`](crate::DEFAULT_Z)
/// included, is refused with [`ZError::ZOutOfRange`](crate::ZError::ZOutOfRange).
/// The legacy `SimpleZCollection`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Simple;

impl sealed::Sealed for FixedPoint {}
impl sealed::Sealed for Simple {}

impl Layout for FixedPoint {
    const EVERY_Z: bool = true;
}

impl Layout for Simple {
    const EVERY_Z: bool = false;
}
