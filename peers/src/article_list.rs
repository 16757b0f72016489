//! The article's own design, built literally on `intrusive-collections`:
//! the reference the crate's core is measured against.
//!
//! - A **linked list of buckets**, in ascending Z, each tagged with its Z
//!   and holding its objects in an intrusive list in the order of their
//!   last Z-action (each Z-action appends to the tail).
//! - A **quick-access array** of the buckets of the natural levels
//!   `0..=max_level`, made when the scene is, and a **dedicated bucket for
//!   the default Z** (`I16F16::MAX`) at the end of the list: a Z-action at
//!   those Z values is an array lookup and an append, O(1), no search.
//! - Each object **caches where it lives** (its bucket and its node), so a
//!   removal unlinks the node at once, O(1).
//! - **Any other Z** walks the bucket list from the nearest optimized
//!   bucket (by value: the level below or above, level 0 for negative Z,
//!   the highest level or the default bucket above the levels), joining
//!   the bucket of that exact Z or opening one in its sorted place: O(the
//!   buckets walked past).
//! - **Empty non-optimized buckets are pruned during traversal by a
//!   counter**: each traversal that finds one empty counts it; the first
//!   to find it empty after `prune_after` such traversals (8 by default)
//!   unlinks and frees it. A Z-action joining it resets its count. The
//!   level buckets and the default bucket are never pruned.
//!
//! The sprites live in the slab every peer uses; a node carries the slab
//! handle of its object. The buckets are `Rc`s (the list holds one, the
//! quick-access array and the objects living in a bucket the others), so
//! reaching a bucket needs no `unsafe`; a bucket's own list sits in a
//! `RefCell`, since the bucket list hands out shared references to its
//! buckets only (a borrow flag per bucket visited, no `unsafe`). The
//! nodes are `Box`es owned by their bucket's list, and an object caches a
//! raw pointer to its node (the list's own, from `get_ptr`, so it may give
//! the `Box` back), which `cursor_mut_from_ptr` turns into a cursor for an
//! O(1) unlink. That, and starting a walk from a quick-access bucket, are
//! the two `unsafe` calls, each with its argument.
//!
//! Walks along the bucket list are what make this design slow where Z
//! values are spread (an isometric y-sort, particles): a bucket per
//! distinct Z, each a separate allocation, and an O(buckets) search for
//! each Z-action between levels.

// `cursor_mut_from_ptr` is `unsafe`: the caller vouches that the pointer is
// to an element of that very list. The workspace denies `unsafe_code`; this
// module alone allows it, for those two calls.
#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::fmt;
use std::ptr::NonNull;
use std::rc::Rc;

use intrusive_collections::{LinkedList, LinkedListLink, intrusive_adapter};

use crate::slab::Slab;
use crate::{Backend, DEFAULT_Z, I16F16, Sprite, level};

/// Traversals that find a non-optimized bucket empty before the next one
/// prunes it, by default.
pub const PRUNE_AFTER: u32 = 8;

/// An object's link in its bucket's list.
struct Node {
    link: LinkedListLink,
    /// The object's slab handle.
    handle: u32,
}

intrusive_adapter!(NodeAdapter = Box<Node>: Node { link => LinkedListLink });

/// The objects at one Z, in the order of their last Z-action.
struct Bucket {
    link: LinkedListLink,
    z: I16F16,
    objects: RefCell<LinkedList<NodeAdapter>>,
    /// A level's or the default Z's bucket: never pruned.
    pinned: bool,
    /// Traversals that found this bucket empty since an object last joined
    /// it.
    empty_walks: Cell<u32>,
}

intrusive_adapter!(BucketAdapter = Rc<Bucket>: Bucket { link => LinkedListLink });

impl Bucket {
    fn new(z: I16F16, pinned: bool) -> Rc<Bucket> {
        Rc::new(Bucket {
            link: LinkedListLink::new(),
            z,
            objects: RefCell::new(LinkedList::new(NodeAdapter::new())),
            pinned,
            empty_walks: Cell::new(0),
        })
    }
}

/// Where an object lives.
struct Place {
    bucket: Rc<Bucket>,
    /// The object's node, in `bucket`'s list.
    node: NonNull<Node>,
}

struct Object {
    sprite: Sprite,
    /// `None` once removed (the slab keeps a freed slot's value).
    place: Option<Place>,
}

/// Which way a walk goes from its optimized bucket.
#[derive(Clone, Copy)]
enum Walk {
    /// Toward higher Z, from a bucket below the target.
    Up,
    /// Toward lower Z, from a bucket above the target.
    Down,
}

/// The article's bucket list; objects live in a slab.
pub struct ArticleList {
    /// Every bucket, in ascending Z; the default bucket is the last.
    buckets: LinkedList<BucketAdapter>,
    /// The quick-access array: level `n`'s bucket at index `n`.
    levels: Vec<Rc<Bucket>>,
    /// The default Z's bucket.
    default: Rc<Bucket>,
    objects: Slab<Object>,
    len: usize,
    prune_after: u32,
}

impl fmt::Debug for ArticleList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArticleList")
            .field("len", &self.len)
            .field("buckets", &self.buckets())
            .field("levels", &self.levels.len())
            .field("prune_after", &self.prune_after)
            .finish()
    }
}

impl ArticleList {
    /// An empty scene with optimized levels `0..=max_level` (at most
    /// 32767, the largest natural `I16F16`), pruning empty buckets after
    /// `prune_after` traversals.
    pub fn new(max_level: u16, prune_after: u32) -> Self {
        assert!(max_level <= i16::MAX as u16, "max_level is at most 32767");
        let mut buckets = LinkedList::new(BucketAdapter::new());
        let levels: Vec<Rc<Bucket>> = (0..=i32::from(max_level))
            .map(|n| Bucket::new(level(n), true))
            .collect();
        for bucket in &levels {
            buckets.push_back(Rc::clone(bucket));
        }
        let default = Bucket::new(DEFAULT_Z, true);
        buckets.push_back(Rc::clone(&default));
        ArticleList {
            buckets,
            levels,
            default,
            objects: Slab::new(),
            len: 0,
            prune_after,
        }
    }

    /// The buckets in the list, empty ones waiting for pruning included.
    pub fn buckets(&self) -> usize {
        self.buckets.iter().count()
    }

    /// The bucket of `z`: the default bucket, a level's from the
    /// quick-access array, or a walk's.
    fn bucket_for(&mut self, z: I16F16) -> Rc<Bucket> {
        if z == DEFAULT_Z {
            return Rc::clone(&self.default);
        }
        let bits = z.to_bits();
        let below = bits >> I16F16::FRAC_NBITS; // floor(z)
        let max_level = self.levels.len() as i32 - 1;
        let fraction = bits & 0xFFFF;
        if fraction == 0 && (0..=max_level).contains(&below) {
            return Rc::clone(&self.levels[below as usize]);
        }
        // The nearest optimized bucket, by value.
        let (start, walk) = if below < 0 {
            (&self.levels[0], Walk::Down)
        } else if below >= max_level {
            let above_top = i64::from(bits) - i64::from(level(max_level).to_bits());
            let below_default = i64::from(DEFAULT_Z.to_bits()) - i64::from(bits);
            if above_top <= below_default {
                (&self.levels[max_level as usize], Walk::Up)
            } else {
                (&self.default, Walk::Down)
            }
        } else if fraction < 0x8000 {
            (&self.levels[below as usize], Walk::Up)
        } else {
            (&self.levels[below as usize + 1], Walk::Down)
        };
        // SAFETY: `start` is a level's or the default bucket. Those are
        // pushed onto `self.buckets` when the scene is made and are never
        // unlinked (pruning skips pinned buckets), and the `Rc` keeps the
        // bucket alive, so `Rc::as_ptr` points to an element of this very
        // list, as `cursor_mut_from_ptr` requires.
        let mut cursor = unsafe { self.buckets.cursor_mut_from_ptr(Rc::as_ptr(start)) };
        loop {
            match walk {
                Walk::Up => cursor.move_next(),
                Walk::Down => cursor.move_prev(),
            }
            let passed = match (walk, cursor.get()) {
                (_, Some(bucket)) if bucket.z == z => {
                    return cursor.as_cursor().clone_pointer().expect("on a bucket");
                }
                (Walk::Up, Some(bucket)) => bucket.z < z,
                (Walk::Down, Some(bucket)) => bucket.z > z,
                // Below every bucket; going up, the default bucket, above
                // every other Z, ends the walk first.
                (_, None) => false,
            };
            if !passed {
                let bucket = Bucket::new(z, false);
                match walk {
                    Walk::Up => cursor.insert_before(Rc::clone(&bucket)),
                    // On the null element, inserts at the front.
                    Walk::Down => cursor.insert_after(Rc::clone(&bucket)),
                }
                return bucket;
            }
        }
    }

    /// Appends `node` to `bucket`'s tail.
    fn join(bucket: Rc<Bucket>, node: Box<Node>) -> Place {
        let mut objects = bucket.objects.borrow_mut();
        objects.push_back(node);
        // The list's own pointer to the node (`get_ptr`, not a reference),
        // so the cached pointer may later give the `Box` back.
        let node = objects.back().get_ptr().expect("just appended");
        drop(objects);
        bucket.empty_walks.set(0);
        Place { bucket, node }
    }

    /// Unlinks the object's node from its bucket, in O(1), and gives it
    /// back.
    fn leave(place: &Place) -> Box<Node> {
        let mut objects = place.bucket.objects.borrow_mut();
        // SAFETY: `place.node` is what `join` took from `place.bucket`'s
        // list (the list's own pointer, from `get_ptr`), right after
        // appending the node there. The node has been in that list since:
        // only `leave` unlinks nodes, and `change` and `remove`, its only
        // callers, take the object's `Place` out of its slot first, so a
        // place is used to leave at most once. The list owns the node's
        // `Box`, so the pointer is still valid, and this `RefCell` borrow
        // is the only access to the list meanwhile.
        let mut cursor = unsafe { objects.cursor_mut_from_ptr(place.node.as_ptr()) };
        cursor.remove().expect("the cursor is on the object's node")
    }

    /// Files a node at `z`.
    fn file(&mut self, node: Box<Node>, z: I16F16) -> Place {
        let bucket = self.bucket_for(z);
        Self::join(bucket, node)
    }

    /// Takes the object's place out of its slot.
    fn take_place(&mut self, handle: u32) -> Place {
        self.objects
            .get_mut(handle)
            .place
            .take()
            .expect("an object of this scene")
    }

    /// Counts an empty bucket's traversal; whether it is now to be pruned.
    fn prune(bucket: &Bucket, prune_after: u32) -> bool {
        if bucket.pinned || !bucket.objects.borrow().is_empty() {
            return false;
        }
        let walks = bucket.empty_walks.get();
        bucket.empty_walks.set(walks.saturating_add(1));
        walks >= prune_after
    }
}

impl Backend for ArticleList {
    type Handle = u32;
    const NAME: &'static str = "article-list";
    const WALKS_BETWEEN_LEVELS: bool = true;

    fn with_levels(max_level: u16) -> Self {
        ArticleList::new(max_level, PRUNE_AFTER)
    }

    fn create(&mut self, sprite: Sprite, z: I16F16) -> u32 {
        let handle = self.objects.insert(Object {
            sprite,
            place: None,
        });
        let node = Box::new(Node {
            link: LinkedListLink::new(),
            handle,
        });
        let place = self.file(node, z);
        self.objects.get_mut(handle).place = Some(place);
        self.len += 1;
        handle
    }

    fn change(&mut self, &object: &u32, z: I16F16) {
        let place = self.take_place(object);
        let node = Self::leave(&place);
        drop(place);
        let place = self.file(node, z);
        self.objects.get_mut(object).place = Some(place);
    }

    fn remove(&mut self, object: u32) {
        let place = self.take_place(object);
        drop(Self::leave(&place));
        self.objects.free(object);
        self.len -= 1;
    }

    fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
        let objects = &self.objects;
        let mut cursor = self.buckets.front_mut();
        while let Some(bucket) = cursor.get() {
            if Self::prune(bucket, self.prune_after) {
                // Moves the cursor to the next bucket.
                cursor.remove();
                continue;
            }
            for node in bucket.objects.borrow().iter() {
                draw(&objects.get(node.handle).sprite);
            }
            cursor.move_next();
        }
    }

    fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
        let objects = &self.objects;
        let mut cursor = self.buckets.back_mut();
        while let Some(bucket) = cursor.get() {
            if Self::prune(bucket, self.prune_after) {
                // Moves the cursor to the next bucket, already visited (the
                // default bucket, never pruned, is after any pruned one);
                // the step below goes on from the pruned one's previous.
                cursor.remove();
            } else {
                for node in bucket.objects.borrow().iter().rev() {
                    draw(&objects.get(node.handle).sprite);
                }
            }
            cursor.move_prev();
        }
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::back_to_front_ids as ids;

    #[test]
    fn empty_buckets_are_pruned_after_prune_after_traversals() {
        let mut scene = ArticleList::new(3, 2);
        let fixed = 4 + 1; // levels 0..=3 and the default bucket
        let z = I16F16::from_num(1.5);
        let a = scene.create(Sprite::new(0), z);
        let b = scene.create(Sprite::new(1), I16F16::from_num(-7));
        assert_eq!(scene.buckets(), fixed + 2);
        scene.remove(a);
        scene.change(&b, level(2));
        for _ in 0..2 {
            assert_eq!(ids(&mut scene), [1]);
            assert_eq!(scene.buckets(), fixed + 2);
        }
        // Refilled while waiting: its count starts over.
        let c = scene.create(Sprite::new(2), z);
        scene.remove(c);
        let mut f2b = Vec::new();
        scene.front_to_back(|sprite| f2b.push(sprite.id));
        scene.front_to_back(|sprite| f2b.push(sprite.id));
        assert_eq!(scene.buckets(), fixed + 1);
        assert_eq!(ids(&mut scene), [1]);
        assert_eq!(scene.buckets(), fixed);
        assert_eq!(f2b, [1, 1]);
    }

    #[test]
    fn walks_start_from_the_nearest_optimized_bucket_either_way() {
        let mut scene = ArticleList::new(2, PRUNE_AFTER);
        let zs = [2.75, 1.25, 1.75, 0.5, -1.0, 3.0, 30000.0, 1.75, 2.75, -0.5];
        for (id, &z) in zs.iter().enumerate() {
            scene.create(Sprite::new(id as u32), I16F16::from_num(z));
        }
        scene.create(Sprite::new(10), I16F16::MIN);
        scene.create(
            Sprite::new(11),
            I16F16::from_bits(I16F16::MAX.to_bits() - 1),
        );
        scene.create(Sprite::new(12), DEFAULT_Z);
        assert_eq!(ids(&mut scene), [10, 4, 9, 3, 1, 2, 7, 0, 8, 5, 6, 11, 12]);
    }
}
