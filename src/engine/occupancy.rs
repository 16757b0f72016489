//! Which buckets hold an entry: two levels of bitmap, after the Linux O(1)
//! scheduler's find-first-set, so a traversal jumps over runs of empty
//! levels in a bounded number of word operations (at most 10 for the 32,769
//! buckets of the largest collection) instead of visiting every level.

use alloc::vec;
use alloc::vec::Vec;

#[derive(Debug, Clone)]
pub(crate) struct Occupancy {
    /// Bit `b % 64` of word `b / 64`: bucket `b` holds an entry.
    words: Vec<u64>,
    /// Bit `w % 64` of summary word `w / 64`: `words[w]` is not zero.
    summary: Vec<u64>,
}

impl Occupancy {
    pub(crate) fn new(buckets: usize) -> Self {
        let words = buckets.div_ceil(64);
        Occupancy {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
        }
    }

    /// Bucket `bucket` went from empty to holding an entry.
    pub(crate) fn filled(&mut self, bucket: usize) {
        let word = bucket / 64;
        self.words[word] |= 1 << (bucket % 64);
        self.summary[word / 64] |= 1 << (word % 64);
    }

    /// Bucket `bucket` went from holding entries to empty.
    pub(crate) fn emptied(&mut self, bucket: usize) {
        let word = bucket / 64;
        self.words[word] &= !(1 << (bucket % 64));
        if self.words[word] == 0 {
            self.summary[word / 64] &= !(1 << (word % 64));
        }
    }

    /// The first occupied bucket at or after `bucket`.
    #[inline]
    pub(crate) fn next_from(&self, bucket: usize) -> Option<usize> {
        let word = bucket / 64;
        let bits = *self.words.get(word)? & (u64::MAX << (bucket % 64));
        if bits != 0 {
            return Some(word * 64 + bits.trailing_zeros() as usize);
        }
        let next_word = self.next_word_from(word + 1)?;
        Some(next_word * 64 + self.words[next_word].trailing_zeros() as usize)
    }

    /// The last occupied bucket at or before `bucket`.
    #[inline]
    pub(crate) fn prev_from(&self, bucket: usize) -> Option<usize> {
        let word = bucket / 64;
        let bits = self.words[word] & (u64::MAX >> (63 - bucket % 64));
        if bits != 0 {
            return Some(word * 64 + 63 - bits.leading_zeros() as usize);
        }
        let prev_word = self.prev_word_from(word.checked_sub(1)?)?;
        Some(prev_word * 64 + 63 - self.words[prev_word].leading_zeros() as usize)
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

#[cfg(test)]
mod tests {
    use super::Occupancy;
    use alloc::vec;
    use alloc::vec::Vec;

    /// The occupied buckets, found both ways, against a plain list.
    fn check(occupancy: &Occupancy, buckets: usize, set: &[usize]) {
        // Every start, or under Miri those next to an occupied bucket and
        // every 61st.
        let starts: Vec<usize> = if cfg!(miri) {
            let mut starts: Vec<usize> = set
                .iter()
                .flat_map(|&s| [s.saturating_sub(1), s, s + 1])
                .chain((0..buckets).step_by(61))
                .filter(|&from| from < buckets)
                .collect();
            starts.sort_unstable();
            starts.dedup();
            starts
        } else {
            (0..buckets).collect()
        };
        for from in starts {
            let next = set.iter().copied().find(|&s| s >= from);
            assert_eq!(occupancy.next_from(from), next, "next from {from}");
            let prev = set.iter().copied().rev().find(|&s| s <= from);
            assert_eq!(occupancy.prev_from(from), prev, "prev from {from}");
        }
        assert_eq!(occupancy.next_from(buckets), None);
    }

    #[test]
    fn finds_occupied_buckets_across_words_and_summary_words() {
        let buckets = if cfg!(miri) { 4200 } else { 32_769 };
        let mut occupancy = Occupancy::new(buckets);
        check(&occupancy, 300, &[]);
        let mut set = vec![0, 1, 63, 64, 65, 127, 128, 4095, 4096, 4097, buckets - 1];
        for &s in &set {
            occupancy.filled(s);
        }
        check(&occupancy, buckets, &set);
        occupancy.emptied(64);
        set.retain(|&s| s != 64);
        check(&occupancy, buckets, &set);
        for &s in &set {
            occupancy.emptied(s);
        }
        check(&occupancy, buckets, &[]);
    }
}
