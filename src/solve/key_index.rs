//! A map from position keys to the indices of a strategy writer's positions.
//!
//! The writers gather tens of millions of positions and ask, for every reply of every
//! candidate, whether it is among them: far more questions than positions, each a miss
//! in every cache. Open addressing with linear probing in one array of 16-byte slots
//! answers with one cache line, and lets the caller ask the memory for a slot's line
//! (`prefetch`) while it computes the next key, so that the misses of one position's
//! replies overlap.

use super::huge_pages;
use super::prefetch::prefetch;

/// The value of an empty slot (no writer holds `u32::MAX` positions).
const EMPTY: u32 = u32::MAX;

/// At most this many slots in 1,024 are used before the array doubles.
const MOST_PER_1024: usize = 717;

#[derive(Copy, Clone)]
#[repr(C, align(16))]
struct Slot {
    key: u64,
    value: u32,
}

const EMPTY_SLOT: Slot = Slot {
    key: 0,
    value: EMPTY,
};

/// Keys (Zobrist keys: every bit equally random) mapped to indices below `u32::MAX`.
pub(super) struct KeyIndex {
    slots: Vec<Slot>,
    /// How far the key's product is shifted down to give its home slot.
    shift: u32,
    len: usize,
}

impl Default for KeyIndex {
    fn default() -> KeyIndex {
        KeyIndex::with_slots_log2(10)
    }
}

impl KeyIndex {
    fn with_slots_log2(log2: u32) -> KeyIndex {
        KeyIndex {
            slots: huge_pages::filled(1 << log2, EMPTY_SLOT),
            shift: 64 - log2,
            len: 0,
        }
    }

    /// The home slot of `key`: its top bits after a multiplication, so that keys that
    /// differ only in low bits spread too.
    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The index of `key`, if it is held.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(key);
        loop {
            let slot = self.slots[at];
            if slot.value == EMPTY {
                return None;
            }
            if slot.key == key {
                return Some(slot.value);
            }
            at = (at + 1) & mask;
        }
    }

    /// Whether `key` is held.
    #[inline]
    pub(super) fn contains(&self, key: u64) -> bool {
        self.get(key).is_some()
    }

    /// The index of `key`, which gets `value` if it was not held yet.
    pub(super) fn get_or_insert(&mut self, key: u64, value: u32) -> u32 {
        debug_assert_ne!(value, EMPTY);
        if (self.len + 1) * 1024 > self.slots.len() * MOST_PER_1024 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = self.home(key);
        loop {
            let slot = &mut self.slots[at];
            if slot.value == EMPTY {
                *slot = Slot { key, value };
                self.len += 1;
                return value;
            }
            if slot.key == key {
                return slot.value;
            }
            at = (at + 1) & mask;
        }
    }

    /// Asks the memory for the cache line of `key`'s home slot, ahead of a lookup.
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        prefetch(&self.slots[self.home(key)]);
    }

    /// The bytes its slots take.
    pub(super) fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
    }

    fn grow(&mut self) {
        let log2 = self.slots.len().trailing_zeros() + 1;
        let old = std::mem::replace(self, KeyIndex::with_slots_log2(log2));
        for slot in old.slots.into_iter().filter(|slot| slot.value != EMPTY) {
            self.get_or_insert(slot.key, slot.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Rng;
    use std::collections::HashMap;

    #[test]
    fn it_answers_as_a_hash_map_does_across_growth() {
        let mut random = Rng::new(11);
        let mut index = KeyIndex::default();
        let mut reference = HashMap::new();
        for value in 0..50_000u32 {
            // Repeated keys: a key held keeps its first value.
            let key = if value % 7 == 0 {
                u64::from(value / 2)
            } else {
                random.next_u64()
            };
            let first = *reference.entry(key).or_insert(value);
            assert_eq!(index.get_or_insert(key, value), first);
        }
        assert_eq!(index.len, reference.len());
        for (&key, &value) in &reference {
            index.prefetch(key);
            assert_eq!(index.get(key), Some(value));
        }
        for _ in 0..10_000 {
            let key = random.next_u64();
            assert_eq!(index.contains(key), reference.contains_key(&key));
        }
    }
}
