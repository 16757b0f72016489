//! Sections: the buckets of a collection grouped by natural level, and an
//! occupancy bitmap over the groups, after the Linux O(1) scheduler's
//! find-first-set, so a traversal jumps over runs of empty levels instead of
//! visiting every bucket.
//!
//! In a fixed-point collection with levels `0..=max_level`, section 0 holds
//! the negative Z values; section `i + 1` holds level `i` and the values
//! between it and the next level (those above `max_level`, for the last
//! level); and section `max_level + 2` holds the default Z alone. In a simple
//! collection, section `i` is level `i`. Every section of a chain starts
//! with a level or the default bucket (its head), except section 0.
//!
//! A traversal visits the sections whose bit is set, and in each, every
//! bucket from the first to the last. Empty buckets inside an occupied
//! section are still visited; non-optimized ones are pruned after a few
//! traversals, and levels number one per section.

use alloc::vec;
use alloc::vec::Vec;
use core::ptr::NonNull;

use intrusive_collections::LinkedList;

use crate::bucket::{Bucket, ChainAdapter};

/// Which sections hold at least one non-empty bucket: a count per section,
/// and two levels of bitmap so the next occupied section is found in a
/// bounded number of word operations (at most 10 for 32,770 sections).
#[derive(Debug)]
pub(crate) struct Occupancy {
    /// Non-empty buckets in each section.
    counts: Vec<u32>,
    /// Bit `s % 64` of word `s / 64`: section `s` is occupied.
    words: Vec<u64>,
    /// Bit `w % 64` of summary word `w / 64`: `words[w]` is not zero.
    summary: Vec<u64>,
}

impl Occupancy {
    pub(crate) fn new(sections: usize) -> Self {
        let words = sections.div_ceil(64);
        Occupancy {
            counts: vec![0; sections],
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
        }
    }

    /// A bucket of `section` went from empty to holding an object.
    pub(crate) fn filled(&mut self, section: usize) {
        self.counts[section] += 1;
        if self.counts[section] == 1 {
            let word = section / 64;
            self.words[word] |= 1 << (section % 64);
            self.summary[word / 64] |= 1 << (word % 64);
        }
    }

    /// A bucket of `section` went from holding objects to empty.
    pub(crate) fn emptied(&mut self, section: usize) {
        self.counts[section] -= 1;
        if self.counts[section] == 0 {
            let word = section / 64;
            self.words[word] &= !(1 << (section % 64));
            if self.words[word] == 0 {
                self.summary[word / 64] &= !(1 << (word % 64));
            }
        }
    }

    /// Every section empty, in time proportional to the occupied ones (and
    /// a summary word per 4096 sections), not to all of them.
    pub(crate) fn clear(&mut self) {
        for (index, summary) in self.summary.iter_mut().enumerate() {
            for word in set_bits(core::mem::take(summary)).map(|bit| index * 64 + bit) {
                for bit in set_bits(core::mem::take(&mut self.words[word])) {
                    self.counts[word * 64 + bit] = 0;
                }
            }
        }
    }

    /// The first occupied section at or after `section`.
    pub(crate) fn next_from(&self, section: usize) -> Option<usize> {
        let word = section / 64;
        let bits = *self.words.get(word)? & (u64::MAX << (section % 64));
        if bits != 0 {
            return Some(word * 64 + bits.trailing_zeros() as usize);
        }
        let next_word = self.next_word_from(word + 1)?;
        Some(next_word * 64 + self.words[next_word].trailing_zeros() as usize)
    }

    /// The last occupied section at or before `section`.
    pub(crate) fn prev_from(&self, section: usize) -> Option<usize> {
        let word = section / 64;
        let bits = self.words[word] & (u64::MAX >> (63 - section % 64));
        if bits != 0 {
            return Some(word * 64 + 63 - bits.leading_zeros() as usize);
        }
        let prev_word = self.prev_word_from(word.checked_sub(1)?)?;
        Some(prev_word * 64 + 63 - self.words[prev_word].leading_zeros() as usize)
    }

    /// The last occupied section.
    pub(crate) fn last(&self) -> Option<usize> {
        self.prev_from(self.counts.len() - 1)
    }

    fn next_word_from(&self, word: usize) -> Option<usize> {
        let mut index = word / 64;
        let mut bits = *self.summary.get(index)? & (u64::MAX << (word % 64));
        loop {
            if bits != 0 {
                return Some(index * 64 + bits.trailing_zeros() as usize);
            }
            index += 1;
            bits = *self.summary.get(index)?;
        }
    }

    fn prev_word_from(&self, word: usize) -> Option<usize> {
        let mut index = word / 64;
        let mut bits = self.summary[index] & (u64::MAX >> (63 - word % 64));
        loop {
            if bits != 0 {
                return Some(index * 64 + 63 - bits.leading_zeros() as usize);
            }
            index = index.checked_sub(1)?;
            bits = self.summary[index];
        }
    }
}

/// The indices of the bits set in `bits`, lowest first.
fn set_bits(mut bits: u64) -> impl Iterator<Item = usize> {
    core::iter::from_fn(move || {
        (bits != 0).then(|| {
            let bit = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            bit
        })
    })
}

/// How a collection lays its buckets out, for walking them in order.
pub(crate) enum Layout<'a, T> {
    /// A fixed-point collection: the chain of every bucket, sorted by Z; the
    /// level buckets (the quick-access array); the default bucket.
    Chain {
        chain: &'a LinkedList<ChainAdapter<T>>,
        levels: &'a [NonNull<Bucket<T>>],
        default: NonNull<Bucket<T>>,
    },
    /// A simple collection: one bucket per level, one level per section.
    Array(&'a [Bucket<T>]),
}

impl<T> Clone for Layout<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Layout<'_, T> {}

/// The buckets of a collection in back-to-front order, skipping the
/// sections that hold no object.
pub(crate) struct Sections<'a, T> {
    pub(crate) layout: Layout<'a, T>,
    pub(crate) occupancy: &'a Occupancy,
}

impl<T> Clone for Sections<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Sections<'_, T> {}

impl<'a, T> Sections<'a, T> {
    /// Every bucket of the occupied sections, back to front: all the buckets
    /// that may hold an object.
    pub(crate) fn occupied_buckets(self) -> impl Iterator<Item = &'a Bucket<T>> {
        let mut next = self.first();
        core::iter::from_fn(move || {
            let bucket = next?;
            next = self.next(bucket);
            Some(bucket)
        })
    }

    /// The back-most bucket of the first occupied section.
    pub(crate) fn first(&self) -> Option<&'a Bucket<T>> {
        self.first_of(self.occupancy.next_from(0)?)
    }

    /// The front-most bucket of the last occupied section.
    pub(crate) fn last(&self) -> Option<&'a Bucket<T>> {
        self.last_of(self.occupancy.last()?)
    }

    /// The bucket after `bucket`, skipping empty sections.
    pub(crate) fn next(&self, bucket: &'a Bucket<T>) -> Option<&'a Bucket<T>> {
        if let Some(next) = self.after_in_section(bucket) {
            return Some(next);
        }
        let section = self.occupancy.next_from(bucket.section() + 1)?;
        self.first_of(section)
    }

    /// The bucket before `bucket`, skipping empty sections.
    pub(crate) fn prev(&self, bucket: &'a Bucket<T>) -> Option<&'a Bucket<T>> {
        if let Some(prev) = self.before_in_section(bucket) {
            return Some(prev);
        }
        let section = self.occupancy.prev_from(bucket.section().checked_sub(1)?)?;
        self.last_of(section)
    }

    fn first_of(&self, section: usize) -> Option<&'a Bucket<T>> {
        match self.layout {
            Layout::Chain {
                chain,
                levels,
                default,
            } => match section {
                // The negatives come first in the chain, before level 0.
                0 => chain
                    .front()
                    .get()
                    .filter(|bucket| !bucket.is_section_head()),
                _ => Some(level_or_default(levels, default, section - 1)),
            },
            Layout::Array(buckets) => buckets.get(section),
        }
    }

    fn last_of(&self, section: usize) -> Option<&'a Bucket<T>> {
        match self.layout {
            Layout::Chain {
                chain,
                levels,
                default,
            } => {
                if section == levels.len() + 1 {
                    return Some(level_or_default(levels, default, levels.len()));
                }
                // The bucket just before the next section's head.
                let next_head = level_or_default(levels, default, section);
                // SAFETY: every level and the default bucket are in the chain
                // (they are never pruned).
                let mut cursor = unsafe { chain.cursor_from_ptr(next_head) };
                cursor.move_prev();
                cursor.get()
            }
            Layout::Array(buckets) => buckets.get(section),
        }
    }

    fn after_in_section(&self, bucket: &'a Bucket<T>) -> Option<&'a Bucket<T>> {
        let Layout::Chain { chain, .. } = self.layout else {
            return None;
        };
        // SAFETY: a chain layout only ever hands out buckets of its chain.
        let mut cursor = unsafe { chain.cursor_from_ptr(bucket) };
        cursor.move_next();
        cursor.get().filter(|next| !next.is_section_head())
    }

    fn before_in_section(&self, bucket: &'a Bucket<T>) -> Option<&'a Bucket<T>> {
        let Layout::Chain { chain, .. } = self.layout else {
            return None;
        };
        if bucket.is_section_head() {
            return None;
        }
        // SAFETY: a chain layout only ever hands out buckets of its chain.
        let mut cursor = unsafe { chain.cursor_from_ptr(bucket) };
        cursor.move_prev();
        cursor.get()
    }
}

/// Level `index`'s bucket, or the default bucket for `index == levels.len()`.
fn level_or_default<T>(
    levels: &[NonNull<Bucket<T>>],
    default: NonNull<Bucket<T>>,
    index: usize,
) -> &Bucket<T> {
    let bucket = levels.get(index).copied().unwrap_or(default);
    // SAFETY: the levels and the default bucket live as long as their
    // collection, which the layout borrows for 'a.
    unsafe { bucket.as_ref() }
}

#[cfg(test)]
mod tests {
    use super::Occupancy;
    use alloc::vec;

    /// The occupied sections, found both ways, against a plain list.
    fn check(occupancy: &Occupancy, sections: usize, set: &[usize]) {
        // Under Miri, every section next to an occupied one and a sample of
        // the rest.
        let near = |from: usize| set.iter().any(|&s| s.abs_diff(from) <= 1);
        for from in (0..sections).filter(|&from| !cfg!(miri) || near(from) || from % 61 == 0) {
            let next = set.iter().copied().find(|&s| s >= from);
            assert_eq!(occupancy.next_from(from), next, "next from {from}");
            let prev = set.iter().copied().rev().find(|&s| s <= from);
            assert_eq!(occupancy.prev_from(from), prev, "prev from {from}");
        }
        assert_eq!(occupancy.next_from(sections), None);
        assert_eq!(occupancy.last(), set.last().copied());
    }

    #[test]
    fn finds_occupied_sections_across_words_and_summary_words() {
        // Under Miri, just past the first summary word (4096 sections).
        let sections = if cfg!(miri) { 4200 } else { 32_770 };
        let mut occupancy = Occupancy::new(sections);
        check(&occupancy, 300, &[]);
        let mut set = vec![0, 1, 63, 64, 65, 127, 128, 4095, 4096, 4097, sections - 1];
        for &s in &set {
            occupancy.filled(s);
        }
        occupancy.filled(64); // two buckets in one section
        check(&occupancy, sections, &set);
        occupancy.emptied(64);
        check(&occupancy, sections, &set);
        occupancy.emptied(64);
        set.retain(|&s| s != 64);
        check(&occupancy, sections, &set);
        for &s in &set {
            occupancy.emptied(s);
        }
        check(&occupancy, sections, &[]);
        occupancy.filled(4096);
        occupancy.clear();
        check(&occupancy, sections, &[]);
    }
}
