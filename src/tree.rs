//! The sorted tree: every entry whose Z is neither an optimized level nor
//! the default Z, in back-to-front order, in a B+ tree.
//!
//! Such values are the hard case of a bucket design: an isometric game
//! y-sorts every object at its own fractional Z, and a particle burst opens
//! thousands of one-entry buckets at once. Here they cost what any entry
//! costs. The leaves hold the entries themselves, `(z, entry)` pairs in
//! back-to-front order, up to [`LEAF_SLOTS`] each, and form a chain that a
//! traversal walks like a bucket's blocks; a bucket of such a Z is the run
//! of equal Z values in the chain, found in O(log n) from the root, and
//! takes no memory of its own.
//!
//! The inner nodes hold, for each child but the first, a lower bound of its
//! entries: `entries(child i - 1) <= lows[i] <= entries(child i)`. A bound
//! may go stale (lower than the child's first entry after that entry
//! leaves) without harm: a new entry at Z `z` goes after every entry `<= z`,
//! and descending into the last child whose bound is `<= z` finds that
//! place whatever the bounds' staleness, equal values included.
//!
//! Entries shift within a leaf as others come and go, so an entry's place
//! names its leaf exactly and its slot only as a hint (see
//! [`place`](crate::place)); moves to another leaf (splits, merges, and
//! rebalancing) rewrite the places of the entries that move, at most
//! [`LEAF_SLOTS`] a time. Every operation is O(log n) in the worst case.

use crate::entry::{Book, Entry};
use crate::place::{LEAF_IDS, LEAF_SLOTS, Place};
use crate::pool::{NONE, Pool};

/// Children per inner node (small for fuzzing and Miri, as
/// [`LEAF_SLOTS`](crate::place::LEAF_SLOTS) is).
#[cfg(not(any(fuzzing, miri)))]
const FANOUT: usize = 32;
/// Children per inner node (small, for fuzzing and Miri).
#[cfg(any(fuzzing, miri))]
const FANOUT: usize = 8;

/// The value that fills unused Z slots and bounds: above every value the
/// tree holds (the default Z, which lives in its own bucket), so fixed-size
/// counting loops need no length check.
const FILL: i32 = i32::MAX;

/// The bound of an inner node's first child, below every value.
const FIRST: i32 = i32::MIN;

/// A leaf: up to [`LEAF_SLOTS`] entries and their Z values, in order.
pub(crate) struct Leaf<E: Entry> {
    pub(crate) len: usize,
    /// The Z of each entry; [`FILL`] from `len` on.
    pub(crate) zs: [i32; LEAF_SLOTS],
    items: [E::Slot; LEAF_SLOTS],
    /// The neighbouring leaves, or `NONE`.
    pub(crate) prev: u32,
    pub(crate) next: u32,
    parent: u32,
}

impl<E: Entry> Leaf<E> {
    fn new(template: &E) -> Self {
        Leaf {
            len: 0,
            zs: [FILL; LEAF_SLOTS],
            items: core::array::from_fn(|_| template.vacant()),
            prev: NONE,
            next: NONE,
            parent: NONE,
        }
    }

    fn reset(&mut self) {
        debug_assert_eq!(self.len, 0);
        self.prev = NONE;
        self.next = NONE;
        self.parent = NONE;
    }

    /// The entry at `slot`, below `len`.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> &E {
        E::get(&self.items[slot])
    }

    /// How many entries have a Z `<= z`: where an entry at `z` goes.
    #[inline]
    fn rank(&self, z: i32) -> usize {
        count(&self.zs, |v| v <= z)
    }

    /// The entries, in order.
    #[inline]
    pub(crate) fn slots(&self) -> &[E::Slot] {
        &self.items[..self.len]
    }

    /// How many entries have a Z below `bound`.
    #[inline]
    pub(crate) fn count_below(&self, bound: i64) -> usize {
        match i32::try_from(bound) {
            Ok(bound) => count(&self.zs, |v| v < bound).min(self.len),
            Err(_) if bound > 0 => self.len,
            Err(_) => 0,
        }
    }

    /// How many entries have a Z at or below `bound`.
    #[inline]
    pub(crate) fn count_at_or_below(&self, bound: i64) -> usize {
        match i32::try_from(bound) {
            Ok(bound) => count(&self.zs, |v| v <= bound).min(self.len),
            Err(_) if bound > 0 => self.len,
            Err(_) => 0,
        }
    }

    /// Opens a gap at `slot` and puts the entry there.
    fn insert(&mut self, slot: usize, z: i32, entry: E) {
        debug_assert!(self.len < LEAF_SLOTS && slot <= self.len);
        E::shift_up(&mut self.items[slot..=self.len]);
        self.zs.copy_within(slot..self.len, slot + 1);
        self.items[slot] = entry.into_slot();
        self.zs[slot] = z;
        self.len += 1;
    }

    /// Takes the entry at `slot` out and closes the gap.
    fn remove(&mut self, slot: usize) -> (i32, E) {
        debug_assert!(slot < self.len);
        let entry = E::take(&mut self.items[slot]);
        let z = self.zs[slot];
        E::shift_down(&mut self.items[slot..self.len]);
        self.zs.copy_within(slot + 1..self.len, slot);
        self.len -= 1;
        self.zs[self.len] = FILL;
        (z, entry)
    }

    /// The slot holding the entry for which `is` holds, looked for at
    /// `hint` first, then a slot either side (where one insertion or
    /// removal before it shifts it), then everywhere.
    fn find(&self, hint: usize, is: impl Fn(&E) -> bool) -> Option<usize> {
        let near = [hint, hint + 1, hint.wrapping_sub(1)];
        if let Some(slot) = near
            .into_iter()
            .find(|&slot| slot < self.len && is(self.get(slot)))
        {
            return Some(slot);
        }
        // Eight at a time without an early exit, which the compiler can
        // vectorize, then the one chunk that matched.
        let items = &self.items[..self.len];
        items.chunks(8).enumerate().find_map(|(chunk, slots)| {
            let any = slots.iter().fold(false, |any, slot| any | is(E::get(slot)));
            any.then(|| chunk * 8 + slots.iter().position(|slot| is(E::get(slot))).unwrap_or(0))
        })
    }
}

/// How many values of `values` satisfy `test`: a branch-free loop the
/// compiler vectorizes, for the short fixed arrays of the nodes.
#[inline(always)]
fn count(values: &[i32], test: impl Fn(i32) -> bool) -> usize {
    // An index loop rather than an iterator chain: the same machine code,
    // and a fraction of the steps when Miri interprets it.
    let mut count = 0;
    let mut i = 0;
    while i < values.len() {
        count += u32::from(test(values[i]));
        i += 1;
    }
    count as usize
}

/// An inner node: up to [`FANOUT`] children and their lower bounds.
struct Inner {
    len: usize,
    /// `lows[i]` bounds child `i` from below, for `i >= 1`; [`FILL`] from
    /// `len` on; [`FIRST`] at 0, so counting runs over the whole array.
    lows: [i32; FANOUT],
    children: [u32; FANOUT],
    parent: u32,
    /// Whether the children are leaves (else inner nodes).
    over_leaves: bool,
}

impl Inner {
    fn new(over_leaves: bool) -> Self {
        Inner {
            len: 0,
            lows: {
                let mut lows = [FILL; FANOUT];
                lows[0] = FIRST;
                lows
            },
            children: [NONE; FANOUT],
            parent: NONE,
            over_leaves,
        }
    }

    /// The child to descend into for `z`: the last whose bound is `<= z`.
    #[inline]
    fn child_for(&self, z: i32) -> usize {
        count(&self.lows, |low| low <= z) - 1
    }

    fn index_of(&self, child: u32) -> usize {
        self.children[..self.len]
            .iter()
            .position(|&c| c == child)
            .expect("a child of its parent")
    }

    fn insert(&mut self, index: usize, low: i32, child: u32) {
        debug_assert!(self.len < FANOUT && index >= 1 && index <= self.len);
        self.lows.copy_within(index..self.len, index + 1);
        self.children.copy_within(index..self.len, index + 1);
        self.lows[index] = low;
        self.children[index] = child;
        self.len += 1;
    }

    fn remove(&mut self, index: usize) {
        debug_assert!(index >= 1 && index < self.len);
        self.lows.copy_within(index + 1..self.len, index);
        self.children.copy_within(index + 1..self.len, index);
        self.len -= 1;
        self.lows[self.len] = FILL;
        self.children[self.len] = NONE;
    }
}

/// What the removal of an entry did to the run of its Z.
pub(crate) struct Removed<E> {
    pub(crate) entry: E,
    pub(crate) z: i32,
    /// No entry with this Z is left: its bucket emptied.
    pub(crate) run_gone: bool,
}

pub(crate) struct Tree<E: Entry> {
    /// `NONE` when the tree is empty.
    root: u32,
    /// Inner levels above the leaves.
    height: usize,
    leaves: Pool<Leaf<E>>,
    inners: Pool<Inner>,
    /// The first and last leaves of the chain.
    pub(crate) first: u32,
    pub(crate) last: u32,
    len: usize,
}

impl<E: Entry> Tree<E> {
    pub(crate) const fn new() -> Self {
        Tree {
            root: NONE,
            height: 0,
            leaves: Pool::new(LEAF_IDS),
            inners: Pool::new(NONE),
            first: NONE,
            last: NONE,
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn leaf(&self, leaf: u32) -> &Leaf<E> {
        self.leaves.get(leaf)
    }

    /// Nodes in use: leaves and inner nodes.
    pub(crate) fn nodes(&self) -> (usize, usize) {
        (self.leaves.live(), self.inners.live())
    }

    /// Whether an insertion cannot run out of node ids: a split may take a
    /// leaf and one inner node per level, plus a new root.
    pub(crate) fn has_room(&self) -> bool {
        self.leaves.has_room(1) && self.inners.has_room(self.height + 1)
    }

    /// The slot of the entry of `leaf` for which `is` holds, looked for at
    /// `hint` first, if `leaf` is a live leaf holding one.
    pub(crate) fn find(&self, leaf: u32, hint: usize, is: impl Fn(&E) -> bool) -> Option<usize> {
        self.leaves.get_checked(leaf)?.find(hint, is)
    }

    /// The leaf to insert `z` in: the last whose lower bound is `<= z`.
    fn descend(&self, z: i32) -> u32 {
        let mut node = self.root;
        for _ in 0..self.height {
            let inner = self.inners.get(node);
            node = inner.children[inner.child_for(z)];
        }
        node
    }

    /// Files `entry` at `z`, after every entry at or below `z`, tells `book`
    /// its place, and returns whether it opened a run (no other entry has
    /// this Z). [`has_room`](Self::has_room) must hold.
    pub(crate) fn insert<B: Book<E>>(&mut self, z: i32, entry: E, book: &mut B) -> bool {
        debug_assert!(z != FILL);
        self.len += 1;
        if self.root == NONE {
            let leaf = self.new_leaf(&entry);
            (self.root, self.first, self.last, self.height) = (leaf, leaf, leaf, 0);
            self.put(leaf, 0, z, entry, book);
            return true;
        }
        let mut leaf = self.descend(z);
        let leaf_ref = self.leaves.get(leaf);
        let mut slot = leaf_ref.rank(z);
        let joins = match slot {
            0 => leaf_ref.prev != NONE && self.last_z(leaf_ref.prev) == z,
            _ => leaf_ref.zs[slot - 1] == z,
        };
        if leaf_ref.len == LEAF_SLOTS {
            (leaf, slot) = self.split_leaf(leaf, slot, joins, book);
        }
        self.put(leaf, slot, z, entry, book);
        !joins
    }

    fn put<B: Book<E>>(&mut self, leaf: u32, slot: usize, z: i32, entry: E, book: &mut B) {
        let leaf_ref = self.leaves.get_mut(leaf);
        leaf_ref.insert(slot, z, entry);
        book.set(leaf_ref.get(slot), Place::leaf(leaf, slot));
    }

    fn last_z(&self, leaf: u32) -> i32 {
        let leaf = self.leaves.get(leaf);
        leaf.zs[leaf.len - 1]
    }

    fn new_leaf(&mut self, template: &E) -> u32 {
        self.leaves
            .alloc(|| Leaf::new(template), Leaf::reset)
            .expect("has_room checked for a free leaf id")
    }

    fn new_inner(&mut self, over_leaves: bool) -> u32 {
        self.inners
            .alloc(
                || Inner::new(over_leaves),
                |inner| *inner = Inner::new(over_leaves),
            )
            .expect("has_room checked for free inner ids")
    }

    /// Splits the full `leaf` before an insertion at `slot`, and returns
    /// where the insertion goes. An entry that joins a run (`joins`) in the
    /// back half splits the leaf right where it goes, so a run that keeps
    /// growing at its tail fills whole leaves; any other split is even.
    fn split_leaf<B: Book<E>>(
        &mut self,
        leaf: u32,
        slot: usize,
        joins: bool,
        book: &mut B,
    ) -> (u32, usize) {
        let mid = if slot == LEAF_SLOTS {
            LEAF_SLOTS - 1
        } else if joins && slot >= LEAF_SLOTS / 2 {
            slot
        } else {
            LEAF_SLOTS / 2
        };
        // Any entry serves as the template of a new leaf's free slots.
        let first = E::take(&mut self.leaves.get_mut(leaf).items[0]);
        let right = self.new_leaf(&first);
        self.leaves.get_mut(leaf).items[0] = first.into_slot();
        let (left_ref, right_ref) = self.leaves.pair_mut(leaf, right);
        for from in mid..left_ref.len {
            let (z, entry) = (left_ref.zs[from], E::take(&mut left_ref.items[from]));
            let to = from - mid;
            right_ref.items[to] = entry.into_slot();
            right_ref.zs[to] = z;
            left_ref.zs[from] = FILL;
            book.set(right_ref.get(to), Place::leaf(right, to));
        }
        right_ref.len = left_ref.len - mid;
        left_ref.len = mid;
        // Chain `right` after `leaf`.
        right_ref.prev = leaf;
        right_ref.next = left_ref.next;
        left_ref.next = right;
        let low = right_ref.zs[0];
        match right_ref.next {
            NONE => self.last = right,
            next => self.leaves.get_mut(next).prev = right,
        }
        self.add_child_after(leaf, low, right, true);
        // An entry at `mid` is below the new bound: it stays on the left.
        if slot <= mid {
            (leaf, slot)
        } else {
            (right, slot - mid)
        }
    }

    /// Makes `child` (bounded below by `low`) the sibling right after
    /// `after`, splitting parents as needed.
    fn add_child_after(&mut self, after: u32, low: i32, child: u32, over_leaves: bool) {
        let parent = self.parent_of(after, over_leaves);
        if parent == NONE {
            let root = self.new_inner(over_leaves);
            let root_ref = self.inners.get_mut(root);
            root_ref.children[0] = after;
            root_ref.children[1] = child;
            root_ref.lows[1] = low;
            root_ref.len = 2;
            self.set_parent(after, root, over_leaves);
            self.set_parent(child, root, over_leaves);
            self.root = root;
            self.height += 1;
            return;
        }
        let index = self.inners.get(parent).index_of(after) + 1;
        if self.inners.get(parent).len < FANOUT {
            self.inners.get_mut(parent).insert(index, low, child);
            self.set_parent(child, parent, over_leaves);
            return;
        }
        // Split the full parent: its back half moves to a new sibling.
        let half = FANOUT / 2;
        let sibling = self.new_inner(over_leaves);
        let (parent_ref, sibling_ref) = self.inners.pair_mut(parent, sibling);
        let up = parent_ref.lows[half];
        for from in half..FANOUT {
            let to = from - half;
            sibling_ref.children[to] = parent_ref.children[from];
            sibling_ref.lows[to] = if to == 0 {
                FIRST
            } else {
                parent_ref.lows[from]
            };
            parent_ref.children[from] = NONE;
            parent_ref.lows[from] = FILL;
        }
        sibling_ref.len = FANOUT - half;
        parent_ref.len = half;
        for to in 0..FANOUT - half {
            let moved = self.inners.get(sibling).children[to];
            self.set_parent(moved, sibling, over_leaves);
        }
        // `child` follows `after`, which is on one side or the other; when
        // `after` is the parent's last child it stays on the parent's side.
        let (target, at) = if index <= half {
            (parent, index)
        } else {
            (sibling, index - half)
        };
        self.inners.get_mut(target).insert(at, low, child);
        self.set_parent(child, target, over_leaves);
        self.add_child_after(parent, up, sibling, false);
    }

    fn parent_of(&self, node: u32, is_leaf: bool) -> u32 {
        if is_leaf {
            self.leaves.get(node).parent
        } else {
            self.inners.get(node).parent
        }
    }

    fn set_parent(&mut self, node: u32, parent: u32, is_leaf: bool) {
        if is_leaf {
            self.leaves.get_mut(node).parent = parent;
        } else {
            self.inners.get_mut(node).parent = parent;
        }
    }

    /// Takes the entry at `slot` of `leaf` out (the slot must hold one) and
    /// says whether its Z's run is gone.
    pub(crate) fn remove<B: Book<E>>(
        &mut self,
        leaf: u32,
        slot: usize,
        book: &mut B,
    ) -> Removed<E> {
        self.len -= 1;
        let leaf_ref = self.leaves.get_mut(leaf);
        let (z, entry) = leaf_ref.remove(slot);
        let (prev, next, len) = (leaf_ref.prev, leaf_ref.next, leaf_ref.len);
        let before_here = (slot > 0).then(|| leaf_ref.zs[slot - 1]);
        let after_here = (slot < len).then(|| leaf_ref.zs[slot]);
        let before = before_here.or_else(|| (prev != NONE).then(|| self.last_z(prev)));
        let after = after_here.or_else(|| (next != NONE).then(|| self.leaves.get(next).zs[0]));
        let run_gone = before != Some(z) && after != Some(z);
        self.rebalance_leaf(leaf, book);
        Removed { entry, z, run_gone }
    }

    /// Restores the fill of `leaf` after a removal: a leaf under a quarter
    /// full takes entries from a sibling or merges with it.
    fn rebalance_leaf<B: Book<E>>(&mut self, leaf: u32, book: &mut B) {
        let leaf_ref = self.leaves.get(leaf);
        let parent = leaf_ref.parent;
        if parent == NONE {
            if leaf_ref.len == 0 {
                self.leaves.free(leaf);
                (self.root, self.first, self.last, self.height) = (NONE, NONE, NONE, 0);
            }
            return;
        }
        if leaf_ref.len >= LEAF_SLOTS / 4 {
            return;
        }
        let parent_ref = self.inners.get(parent);
        let index = parent_ref.index_of(leaf);
        let right_index = if index > 0 { index } else { 1 };
        let (left, right) = (
            parent_ref.children[right_index - 1],
            parent_ref.children[right_index],
        );
        let (left_ref, right_ref) = self.leaves.pair_mut(left, right);
        let total = left_ref.len + right_ref.len;
        if total <= LEAF_SLOTS {
            // Merge: the right leaf's entries move to the left one.
            for from in 0..right_ref.len {
                let to = left_ref.len + from;
                left_ref.zs[to] = right_ref.zs[from];
                left_ref.items[to] = E::take(&mut right_ref.items[from]).into_slot();
                right_ref.zs[from] = FILL;
                book.set(left_ref.get(to), Place::leaf(left, to));
            }
            left_ref.len = total;
            right_ref.len = 0;
            left_ref.next = right_ref.next;
            match right_ref.next {
                NONE => self.last = left,
                next => self.leaves.get_mut(next).prev = left,
            }
            self.leaves.free(right);
            self.inners.get_mut(parent).remove(right_index);
            self.rebalance_inner(parent);
            return;
        }
        // Share evenly: entries cross the bound between the two.
        let keep = total / 2;
        if left_ref.len < keep {
            let moving = keep - left_ref.len;
            for from in 0..moving {
                let to = left_ref.len + from;
                left_ref.zs[to] = right_ref.zs[from];
                left_ref.items[to] = E::take(&mut right_ref.items[from]).into_slot();
                book.set(left_ref.get(to), Place::leaf(left, to));
            }
            right_ref.items[..right_ref.len].rotate_left(moving);
            right_ref.zs[..right_ref.len].rotate_left(moving);
            right_ref.zs[right_ref.len - moving..right_ref.len].fill(FILL);
            left_ref.len += moving;
            right_ref.len -= moving;
        } else {
            let moving = left_ref.len - keep;
            right_ref.items[..right_ref.len + moving].rotate_right(moving);
            right_ref.zs[..right_ref.len + moving].rotate_right(moving);
            for to in 0..moving {
                let from = keep + to;
                right_ref.zs[to] = left_ref.zs[from];
                right_ref.items[to] = E::take(&mut left_ref.items[from]).into_slot();
                left_ref.zs[from] = FILL;
                book.set(right_ref.get(to), Place::leaf(right, to));
            }
            left_ref.len -= moving;
            right_ref.len += moving;
        }
        let low = right_ref.zs[0];
        self.inners.get_mut(parent).lows[right_index] = low;
    }

    /// Restores the fill of inner node `node` after it lost a child.
    fn rebalance_inner(&mut self, node: u32) {
        let node_ref = self.inners.get(node);
        let parent = node_ref.parent;
        if parent == NONE {
            if node_ref.len == 1 {
                // A root with one child: the child becomes the root.
                let child = node_ref.children[0];
                let over_leaves = node_ref.over_leaves;
                self.set_parent(child, NONE, over_leaves);
                self.inners.free(node);
                self.root = child;
                self.height -= 1;
            }
            return;
        }
        if node_ref.len >= FANOUT / 4 {
            return;
        }
        let over_leaves = node_ref.over_leaves;
        let parent_ref = self.inners.get(parent);
        let index = parent_ref.index_of(node);
        let right_index = if index > 0 { index } else { 1 };
        let bound = parent_ref.lows[right_index];
        let (left, right) = (
            parent_ref.children[right_index - 1],
            parent_ref.children[right_index],
        );
        let (left_ref, right_ref) = self.inners.pair_mut(left, right);
        let total = left_ref.len + right_ref.len;
        if total <= FANOUT {
            // Merge: the bound between them heads the right node's children.
            let start = left_ref.len;
            for from in 0..right_ref.len {
                left_ref.children[start + from] = right_ref.children[from];
                left_ref.lows[start + from] = if from == 0 {
                    bound
                } else {
                    right_ref.lows[from]
                };
            }
            left_ref.len = total;
            let moved = right_ref.children;
            let moved_len = right_ref.len;
            right_ref.len = 0;
            for &child in &moved[..moved_len] {
                self.set_parent(child, left, over_leaves);
            }
            self.inners.free(right);
            self.inners.get_mut(parent).remove(right_index);
            self.rebalance_inner(parent);
            return;
        }
        // Rotate children through the parent's bound until even.
        let keep = total / 2;
        let mut bound = bound;
        let mut moved = [NONE; FANOUT];
        let mut moved_len = 0;
        let (target, moving) = if left_ref.len < keep {
            let moving = keep - left_ref.len;
            for _ in 0..moving {
                let child = right_ref.children[0];
                let next_bound = right_ref.lows[1];
                let at = left_ref.len;
                left_ref.children[at] = child;
                left_ref.lows[at] = bound;
                left_ref.len += 1;
                right_ref.children[..right_ref.len].rotate_left(1);
                right_ref.lows[..right_ref.len].rotate_left(1);
                right_ref.len -= 1;
                right_ref.children[right_ref.len] = NONE;
                right_ref.lows[right_ref.len] = FILL;
                right_ref.lows[0] = FIRST;
                bound = next_bound;
                moved[moved_len] = child;
                moved_len += 1;
            }
            (left, moving)
        } else {
            let moving = left_ref.len - keep;
            for _ in 0..moving {
                let at = left_ref.len - 1;
                let child = left_ref.children[at];
                let child_bound = left_ref.lows[at];
                left_ref.children[at] = NONE;
                left_ref.lows[at] = FILL;
                left_ref.len -= 1;
                right_ref.children[..=right_ref.len].rotate_right(1);
                right_ref.lows[..=right_ref.len].rotate_right(1);
                right_ref.children[0] = child;
                right_ref.lows[1] = bound;
                right_ref.lows[0] = FIRST;
                right_ref.len += 1;
                bound = child_bound;
                moved[moved_len] = child;
                moved_len += 1;
            }
            (right, moving)
        };
        debug_assert_eq!(moving, moved_len);
        for &child in &moved[..moved_len] {
            self.set_parent(child, target, over_leaves);
        }
        self.inners.get_mut(parent).lows[right_index] = bound;
    }

    /// Every entry, in no particular order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = &E> + '_ {
        self.leaves
            .iter()
            .flat_map(|(_, leaf)| (0..leaf.len).map(move |slot| leaf.get(slot)))
    }

    /// Takes the entry at `slot` of `leaf` out and leaves the slot as it
    /// is: only for taking a detached tree apart, entry by entry.
    pub(crate) fn take_at(&mut self, leaf: u32, slot: usize) -> E {
        E::take(&mut self.leaves.get_mut(leaf).items[slot])
    }

    /// Reserves room for about `entries` more entries.
    pub(crate) fn reserve(&mut self, entries: usize) {
        self.leaves.reserve(entries / LEAF_SLOTS + 1);
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.leaves.shrink_to_fit();
        self.inners.shrink_to_fit();
    }

    /// Checks every invariant of the tree (tests and fuzzing): bounds,
    /// order, parents, the chain, fill; returns every entry with its leaf
    /// and slot, in order.
    pub(crate) fn check(&self) -> alloc::vec::Vec<(&E, i32, u32, usize)> {
        use alloc::vec::Vec;
        let mut entries = Vec::new();
        if self.root == NONE {
            assert_eq!((self.first, self.last, self.len), (NONE, NONE, 0));
            assert_eq!(self.nodes(), (0, 0), "no node is lost");
            return entries;
        }
        let mut leaves = Vec::new();
        let mut inners = 0;
        // (node, depth, parent, low bound, high bound)
        let mut stack = alloc::vec![(self.root, 0, NONE, i64::MIN, i64::MAX)];
        while let Some((node, depth, parent, low, high)) = stack.pop() {
            if depth == self.height {
                let leaf = self.leaves.get(node);
                assert_eq!(leaf.parent, parent, "a leaf knows its parent");
                assert!(leaf.len > 0, "no leaf is empty");
                if parent != NONE {
                    assert!(leaf.len >= 1);
                }
                assert!(leaf.zs[leaf.len..].iter().all(|&z| z == FILL));
                for slot in 0..leaf.len {
                    let z = i64::from(leaf.zs[slot]);
                    assert!(low <= z && z <= high, "entries within bounds");
                }
                leaves.push(node);
                continue;
            }
            inners += 1;
            let inner = self.inners.get(node);
            assert_eq!(inner.parent, parent, "an inner node knows its parent");
            assert_eq!(inner.over_leaves, depth + 1 == self.height);
            assert!(inner.len >= 2 && inner.len <= FANOUT);
            assert!(inner.lows[inner.len..].iter().all(|&low| low == FILL));
            assert_eq!(inner.lows[0], FIRST);
            for i in (0..inner.len).rev() {
                let child_low = if i == 0 {
                    low
                } else {
                    i64::from(inner.lows[i])
                };
                let child_high = if i + 1 < inner.len {
                    i64::from(inner.lows[i + 1])
                } else {
                    high
                };
                assert!(child_low <= child_high, "bounds ascend");
                stack.push((inner.children[i], depth + 1, node, child_low, child_high));
            }
        }
        assert_eq!(self.nodes(), (leaves.len(), inners), "no node is lost");
        // The chain visits the leaves in the tree's order.
        let mut chain = Vec::new();
        let mut leaf = self.first;
        let mut prev = NONE;
        while leaf != NONE {
            let leaf_ref = self.leaves.get(leaf);
            assert_eq!(leaf_ref.prev, prev, "chain links agree");
            chain.push(leaf);
            for slot in 0..leaf_ref.len {
                entries.push((leaf_ref.get(slot), leaf_ref.zs[slot], leaf, slot));
            }
            (prev, leaf) = (leaf, leaf_ref.next);
        }
        assert_eq!(self.last, prev, "the last leaf ends the chain");
        assert_eq!(chain, leaves, "the chain is the tree's order");
        assert!(entries.windows(2).all(|w| w[0].1 <= w[1].1), "sorted by Z");
        assert_eq!(entries.len(), self.len, "the tree counts its entries");
        entries
    }
}
