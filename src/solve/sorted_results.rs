//! The guarantees a run read from the proof store's segments, merged into sorted arrays: 9
//! bytes a result (its key and its guarantees) and a few bits more for the buckets. The
//! search asks only whether a guarantee holds; the turns, needed only where a proof is
//! written down, stay in the segments' maps (see [`super::ProofStore`]).
//!
//! The keys are Zobrist keys, uniform, so their top bits spread them evenly over buckets
//! and, within a bucket, a key's place is close to its value's share of the bucket's span.
//! The start of each bucket of about 64 keys is kept (a few MB for a hundred million
//! results, which the caches hold), and a lookup guesses the key's place from its value
//! and walks from there: one line of keys read from memory, which the caller can ask for
//! ahead ([`SortedResults::prefetch`]). The solver looks up every child of every node it
//! expands; with a bucket of 4 keys, whose starts no cache held, a lookup read two lines
//! and took more than half of a long defence's time.

use super::huge_pages;
use super::prefetch::prefetch;

/// Sorted keys with their guarantees, each key once; see the module's documentation.
#[derive(Clone, Debug)]
pub(super) struct SortedResults {
    /// The top bits of a key give its bucket: the key shifted right by this.
    shift: u32,
    /// Where each bucket starts in `keys`, and where the last one ends.
    starts: Vec<u32>,
    keys: Vec<u64>,
    /// Each key's guarantees (the bits of [`super::known::Known`]'s flags).
    flags: Vec<u8>,
}

/// Keys a bucket, about: the buckets' starts stay small enough for the caches to hold.
const KEYS_PER_BUCKET: usize = 64;

impl SortedResults {
    /// The keys and guarantees `merged` yields, in increasing key order, each key once
    /// (`len` of them at most).
    pub(super) fn from_sorted(merged: impl Iterator<Item = (u64, u8)>, len: usize) -> Self {
        let mut keys = Vec::with_capacity(len);
        huge_pages::advise(&keys);
        let mut flags = Vec::with_capacity(len);
        for (key, guarantees) in merged {
            debug_assert!(keys.last().is_none_or(|&last| last < key));
            keys.push(key);
            flags.push(guarantees);
        }
        keys.shrink_to_fit();
        flags.shrink_to_fit();
        let buckets = (keys.len() / KEYS_PER_BUCKET).max(1).next_power_of_two();
        let shift = 64 - buckets.trailing_zeros();
        let mut starts = Vec::with_capacity(buckets + 1);
        huge_pages::advise(&starts);
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
            flags,
        }
    }

    /// The guarantees held for `key`.
    pub(super) fn get(&self, key: u64) -> Option<u8> {
        let (start, end) = self.bucket(key);
        if start == end {
            return None;
        }
        let keys = &self.keys;
        let mut at = self.guess(key, start, end);
        if keys[at] < key {
            at += 1;
            while at < end && keys[at] < key {
                at += 1;
            }
            if at == end {
                return None;
            }
        } else {
            while at > start && keys[at - 1] >= key {
                at -= 1;
            }
        }
        (keys[at] == key).then(|| self.flags[at])
    }

    /// Asks the memory for the keys where `key` would be, ahead of [`SortedResults::get`].
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        let (start, end) = self.bucket(key);
        if start < end {
            prefetch(&self.keys[self.guess(key, start, end)]);
        }
    }

    /// Where the bucket of `key` starts and ends in `keys`.
    #[inline]
    fn bucket(&self, key: u64) -> (usize, usize) {
        let bucket = bucket_of(key, self.shift) as usize;
        (
            self.starts[bucket] as usize,
            self.starts[bucket + 1] as usize,
        )
    }

    /// Where `key` would be among the `start..end` of its bucket if the bucket's keys
    /// were spread evenly over its span: the bits below the bucket's, as a fraction.
    #[inline]
    fn guess(&self, key: u64, start: usize, end: usize) -> usize {
        let within = key << (64 - self.shift);
        start + ((u128::from(within) * (end - start) as u128) >> 64) as usize
    }

    /// Results held.
    pub(super) fn len(&self) -> usize {
        self.keys.len()
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
    use crate::solve::store::ProofStore;
    use crate::solve::stored::StoredResults;
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
            let flags = |k: u64| store.known(k).map(|known| known.flags);
            let results =
                SortedResults::from_sorted(keys.iter().map(|&k| (k, flags(k).unwrap())), 0);
            assert_eq!(results.len(), keys.len());
            for &key in &keys {
                assert_eq!(results.get(key), flags(key), "{count} {key}");
                assert_eq!(results.get(key.wrapping_add(1)), flags(key.wrapping_add(1)));
            }
            assert_eq!(results.get(u64::MAX), flags(u64::MAX));
        }
    }

    /// Many buckets, some far from even: each key is found where its place was guessed
    /// from, above or below, and keys between them, before the first and after the last
    /// are not.
    #[test]
    fn a_guessed_place_finds_every_key_of_many_buckets() {
        let mut random = crate::random::Rng::new(5);
        let mut keys: Vec<u64> = (0..200_000).map(|_| random.next_u64()).collect();
        // A crowded bucket and an empty stretch.
        keys.extend((0..500).map(|i| 0x8000_0000_0000_0000 + i * 3));
        keys.retain(|&k| !(0x4000_0000_0000_0000..0x5000_0000_0000_0000).contains(&k));
        keys.extend([0, u64::MAX]);
        keys.sort_unstable();
        keys.dedup();
        let known = 1;
        let results = SortedResults::from_sorted(keys.iter().map(|&k| (k, known)), keys.len());
        for (i, &key) in keys.iter().enumerate() {
            results.prefetch(key);
            assert_eq!(results.get(key), Some(known), "{key:#x}");
            let next = key.wrapping_add(1);
            if keys.get(i + 1) != Some(&next) && next != 0 {
                assert_eq!(results.get(next), None, "{next:#x}");
            }
        }
        for _ in 0..100_000 {
            let key = random.next_u64();
            assert_eq!(
                results.get(key),
                keys.binary_search(&key).ok().map(|_| known)
            );
        }
        assert_eq!(results.get(0x4800_0000_0000_0000), None);
    }
}
