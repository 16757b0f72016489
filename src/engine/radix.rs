//! A stable radix sort by a 32-bit key, for the sorts of a batch (its tree
//! entries by Z, then call order; its level entries by level, when there
//! are many more levels than entries).
//!
//! A batch of `k` changes sorts `k` items: a comparison sort costs about
//! `k log k` comparisons; a radix sort costs one pass to count the bytes
//! of every key, then one pass per byte that differs between the keys
//! (none for the bytes all keys share, such as the high bytes of Z values
//! in a narrow band). Below [`SMALL`] items the counts cost more than they
//! save, and the standard sort runs instead.

use alloc::vec::Vec;

/// Items below which the standard library's sort is cheaper, in
/// instructions, for `(u32, u32)` pairs by a random key (the radix sort's
/// fixed part is its 4 KiB of counts; BENCHMARKS.md, "Stop 27", has the
/// measurement).
const SMALL: usize = 256;

/// Z bits as a sort key: the unsigned order of keys is the signed order
/// of the Z values.
#[inline]
pub(crate) fn z_key(z: i32) -> u32 {
    z as u32 ^ 0x8000_0000
}

/// The Z bits of a [`z_key`].
#[inline]
pub(crate) fn key_z(key: u32) -> i32 {
    (key ^ 0x8000_0000) as i32
}

/// Sorts `items` by `key`, keeping the order of items with equal keys,
/// with `buffer` as scratch (its contents are lost).
pub(crate) fn sort_by_key<T: Copy + Default>(
    items: &mut Vec<T>,
    buffer: &mut Vec<T>,
    key: impl Fn(&T) -> u32,
) {
    let len = items.len();
    if len < SMALL {
        items.sort_by_key(&key);
        return;
    }
    // How many keys have each value of each byte.
    let mut counts = [[0u32; 256]; 4];
    for item in items.iter() {
        let key = key(item);
        for (byte, counts) in counts.iter_mut().enumerate() {
            counts[(key >> (8 * byte)) as u8 as usize] += 1;
        }
    }
    // (Every item of `buffer` is overwritten before it is read: only its
    // growth needs a value.)
    buffer.resize(len, T::default());
    for (byte, counts) in counts.iter().enumerate() {
        // A byte every key shares orders nothing.
        if counts.iter().any(|&count| count as usize == len) {
            continue;
        }
        let mut next = [0u32; 256];
        let mut sum = 0;
        for (next, &count) in next.iter_mut().zip(counts.iter()) {
            *next = sum;
            sum += count;
        }
        for item in items.iter() {
            let digit = (key(item) >> (8 * byte)) as u8 as usize;
            buffer[next[digit] as usize] = *item;
            next[digit] += 1;
        }
        core::mem::swap(items, buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the standard library's stable sort, on keys spread over
    /// every byte, keys sharing their high bytes, and many equal keys.
    #[test]
    fn sorts_stably_as_the_standard_sort_does() {
        let mut next = zorder_testkit::xorshift(0x9E37_79B9_7F4A_7C15);
        let mut buffer = Vec::new();
        // (Under Miri, lengths up to 300, past the standard sort's bound:
        // longer ones take minutes there and run no other code.)
        const _: () = assert!(SMALL < 300);
        let lens: &[usize] = if cfg!(miri) {
            &[0, 1, SMALL - 1, SMALL, 300]
        } else {
            &[0, 1, 5, SMALL - 1, SMALL, SMALL + 1, 1000, 5000]
        };
        for &len in lens {
            for spread in [u32::MAX, 0xFFFF, 0x3F] {
                let mut items: Vec<(u32, u32)> = (0..len as u32)
                    .map(|order| ((next() as u32) & spread, order))
                    .collect();
                let mut expected = items.clone();
                expected.sort_by_key(|&(key, _)| key);
                sort_by_key(&mut items, &mut buffer, |&(key, _)| key);
                assert_eq!(items, expected, "{len} items, keys within {spread:#x}");
            }
        }
    }
}
