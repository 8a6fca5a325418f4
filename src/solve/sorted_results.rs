//! The results a run read from the proof store's segments, merged into sorted arrays: about
//! half the memory of a hash table of the same results (17 bytes a result, and 1 or 2 more
//! for the buckets), and nearly as fast to look up.
//!
//! The keys are Zobrist keys, uniform, so their top bits spread them evenly over buckets:
//! the start of each bucket in the sorted keys is kept (a few keys a bucket), and a lookup
//! reads the bucket's start and then a few neighbouring keys.

use super::known::Known;

/// Sorted results, each key once; see the module's documentation.
#[derive(Clone, Debug)]
pub(super) struct SortedResults {
    /// The top bits of a key give its bucket: the key shifted right by this.
    shift: u32,
    /// Where each bucket starts in `keys`, and where the last one ends.
    starts: Vec<u32>,
    keys: Vec<u64>,
    /// Each key's turn, packed (see [`Known::to_parts`]).
    turns: Vec<u64>,
    /// Each key's guarantees.
    flags: Vec<u8>,
}

/// Keys a bucket, about: a lookup reads a cache line or two of keys.
const KEYS_PER_BUCKET: usize = 4;

impl SortedResults {
    /// The results `merged` yields, in increasing key order, each key once.
    pub(super) fn from_sorted(merged: impl Iterator<Item = (u64, Known)>, len: usize) -> Self {
        let mut keys = Vec::with_capacity(len);
        let mut turns = Vec::with_capacity(len);
        let mut flags = Vec::with_capacity(len);
        for (key, value) in merged {
            debug_assert!(keys.last().is_none_or(|&last| last < key));
            let (guarantees, turn) = value.to_parts();
            keys.push(key);
            turns.push(turn);
            flags.push(guarantees);
        }
        keys.shrink_to_fit();
        turns.shrink_to_fit();
        flags.shrink_to_fit();
        let buckets = (keys.len() / KEYS_PER_BUCKET).max(1).next_power_of_two();
        let shift = 64 - buckets.trailing_zeros();
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut at = 0;
        for bucket in 0..buckets as u64 {
            starts.push(u32::try_from(at).expect("fewer than 2^32 results"));
            while at < keys.len() && bucket_of(keys[at], shift) == bucket {
                at += 1;
            }
        }
        starts.push(u32::try_from(keys.len()).expect("fewer than 2^32 results"));
        SortedResults {
            shift,
            starts,
            keys,
            turns,
            flags,
        }
    }

    /// What is held for `key`.
    pub(super) fn get(&self, key: u64) -> Option<Known> {
        let bucket = bucket_of(key, self.shift) as usize;
        let (start, end) = (
            self.starts[bucket] as usize,
            self.starts[bucket + 1] as usize,
        );
        let at = start + self.keys[start..end].iter().position(|&k| k >= key)?;
        (self.keys[at] == key).then(|| self.at(at))
    }

    /// Results held.
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Every result, in key order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, Known)> + '_ {
        (0..self.keys.len()).map(|i| (self.keys[i], self.at(i)))
    }

    fn at(&self, index: usize) -> Known {
        Known::from_parts(self.flags[index], self.turns[index])
    }
}

impl Default for SortedResults {
    fn default() -> Self {
        SortedResults::from_sorted(std::iter::empty(), 0)
    }
}

/// The bucket of `key`: its top bits (none when `shift` is 64, a single bucket).
fn bucket_of(key: u64, shift: u32) -> u64 {
    key.checked_shr(shift).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Color;
    use crate::solve::store::{ProofStore, StoredResults};
    use crate::solve::strategy::Guarantee;

    #[test]
    fn every_key_is_found_and_no_other() {
        for count in [0u64, 1, 3, 4, 5, 1000] {
            let keys: Vec<u64> = (0..count)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 60))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let mut store = ProofStore::new(&crate::rules::Rules::default());
            let reached: Vec<_> = keys.iter().map(|&k| (k, None)).collect();
            store.learn(Color::White, Guarantee::NoLoss, &reached, 2);
            let results =
                SortedResults::from_sorted(keys.iter().map(|&k| (k, store.known(k).unwrap())), 0);
            assert_eq!(results.len(), keys.len());
            for &key in &keys {
                assert_eq!(results.get(key), store.known(key), "{count} {key}");
                assert_eq!(
                    results.get(key.wrapping_add(1)),
                    store.known(key.wrapping_add(1))
                );
            }
            assert_eq!(results.get(u64::MAX), store.known(u64::MAX));
            assert!(results.iter().map(|(k, _)| k).eq(keys.iter().copied()));
        }
    }
}
