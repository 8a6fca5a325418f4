//! The transposition table: search results by position key, shared by all search threads.
//!
//! Each slot is three atomic words written without locks. The check word is the key xored
//! with the two data words, so a slot torn by two threads writing at once fails the check
//! and reads as empty instead of as a wrong entry (Hyatt and Mann's lockless hashing).

use crate::rules::bitboard::Bitboard;
use crate::rules::geometry::Square;
use crate::rules::turn::Turn;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// What a stored score says about the true value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value.
    Exact,
    /// At least this (the search failed high).
    Lower,
    /// At most this (the search failed low).
    Upper,
}

/// A table entry as read back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Best or refuting turn, if one was found. Only a hint: check it against the legal turns.
    pub turn: Option<Turn>,
    /// Score, in the search's internal units, mate scores relative to the stored node.
    pub score: i32,
    /// Depth of the search that produced it.
    pub depth: u8,
    /// How the score bounds the value.
    pub bound: Bound,
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
    captured: AtomicU64,
}

/// Bytes per slot, for sizing.
const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

/// The table. Sized in MiB; the slot count is whatever fits.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    generation: AtomicU8,
}

// data word layout (low to high): from 6, to 6, has turn 1, depth 8, bound 2, generation 8,
// score 16 (two's complement).
const FROM_SHIFT: u32 = 0;
const TO_SHIFT: u32 = 6;
const HAS_TURN_SHIFT: u32 = 12;
const DEPTH_SHIFT: u32 = 13;
const BOUND_SHIFT: u32 = 21;
const GENERATION_SHIFT: u32 = 23;
const SCORE_SHIFT: u32 = 31;

impl TranspositionTable {
    /// A cleared table of about `megabytes` MiB (at least one slot).
    pub fn new(megabytes: usize) -> TranspositionTable {
        TranspositionTable::try_new(megabytes).expect("memory for the transposition table")
    }

    /// A cleared table of about `megabytes` MiB, or an error when the memory cannot be had
    /// (so that asking for too much is a message, not the end of the process).
    pub fn try_new(
        megabytes: usize,
    ) -> Result<TranspositionTable, std::collections::TryReserveError> {
        let count = (megabytes.saturating_mul(1024 * 1024) / SLOT_BYTES).max(1);
        let mut slots = Vec::new();
        slots.try_reserve_exact(count)?;
        slots.resize_with(count, Slot::default);
        Ok(TranspositionTable {
            slots,
            generation: AtomicU8::new(0),
        })
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Always false: a table has at least one slot.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for slot in &self.slots {
            slot.check.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
            slot.captured.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search: older entries become the first to be replaced.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn slot(&self, key: u64) -> &Slot {
        // Multiply-shift maps the key onto any table size without a modulo.
        let index = ((u128::from(key) * self.slots.len() as u128) >> 64) as usize;
        &self.slots[index]
    }

    /// The entry for `key`, if the table holds one.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = self.slot(key);
        let data = slot.data.load(Ordering::Relaxed);
        let captured = slot.captured.load(Ordering::Relaxed);
        if data == 0 || slot.check.load(Ordering::Relaxed) ^ data ^ captured != key {
            return None;
        }
        let field = |shift: u32, bits: u32| (data >> shift) & ((1 << bits) - 1);
        let turn = match (
            field(HAS_TURN_SHIFT, 1),
            Square::from_index(field(FROM_SHIFT, 6) as usize),
            Square::from_index(field(TO_SHIFT, 6) as usize),
        ) {
            (1, Some(from), Some(to)) => Some(Turn::new(from, to, Bitboard::from_bits(captured))),
            _ => None,
        };
        let bound = match field(BOUND_SHIFT, 2) {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Entry {
            turn,
            score: i32::from((data >> SCORE_SHIFT) as u16 as i16),
            depth: field(DEPTH_SHIFT, 8) as u8,
            bound,
        })
    }

    /// Stores a result, replacing the slot's entry unless that one is from this search,
    /// for another position, and deeper.
    #[inline]
    pub fn store(&self, key: u64, depth: u8, bound: Bound, score: i32, turn: Option<Turn>) {
        let slot = self.slot(key);
        let generation = self.generation.load(Ordering::Relaxed);
        let old = slot.data.load(Ordering::Relaxed);
        let old_key =
            slot.check.load(Ordering::Relaxed) ^ old ^ slot.captured.load(Ordering::Relaxed);
        let old_generation = ((old >> GENERATION_SHIFT) & 0xff) as u8;
        let old_depth = ((old >> DEPTH_SHIFT) & 0xff) as u8;
        if old != 0 && old_key != key && old_generation == generation && old_depth > depth {
            return;
        }
        // Keep the old best turn when this search found none for the same position.
        let (turn_bits, captured) = match turn {
            Some(t) => (
                (t.from().index() as u64) << FROM_SHIFT
                    | (t.to().index() as u64) << TO_SHIFT
                    | 1 << HAS_TURN_SHIFT,
                t.captured().bits(),
            ),
            None if old_key == key => (
                old & ((1 << DEPTH_SHIFT) - 1),
                slot.captured.load(Ordering::Relaxed),
            ),
            None => (0, 0),
        };
        let bound_bits: u64 = match bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        let data = turn_bits
            | u64::from(depth) << DEPTH_SHIFT
            | bound_bits << BOUND_SHIFT
            | u64::from(generation) << GENERATION_SHIFT
            | u64::from(score as u16) << SCORE_SHIFT;
        slot.data.store(data, Ordering::Relaxed);
        slot.captured.store(captured, Ordering::Relaxed);
        slot.check.store(key ^ data ^ captured, Ordering::Relaxed);
    }

    /// Permille of a sample of slots holding an entry of the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = u64::from(self.generation.load(Ordering::Relaxed));
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|s| {
                let data = s.data.load(Ordering::Relaxed);
                data != 0 && (data >> GENERATION_SHIFT) & 0xff == generation
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn() -> Turn {
        let sq = |i| Square::from_index(i).unwrap();
        Turn::new(sq(13), sq(22), Bitboard::from_bits(1 << 23 | 1 << 24))
    }

    #[test]
    fn stores_and_reads_back() {
        let tt = TranspositionTable::new(1);
        tt.store(0xDEAD_BEEF, 7, Bound::Lower, -29_990, Some(turn()));
        let e = tt.probe(0xDEAD_BEEF).unwrap();
        assert_eq!(e.turn, Some(turn()));
        assert_eq!((e.score, e.depth, e.bound), (-29_990, 7, Bound::Lower));
        assert_eq!(tt.probe(0xDEAD_BEEE), None);
    }

    #[test]
    fn keeps_the_turn_when_a_later_store_has_none() {
        let tt = TranspositionTable::new(1);
        tt.store(42, 3, Bound::Exact, 5, Some(turn()));
        tt.store(42, 4, Bound::Upper, -8, None);
        let e = tt.probe(42).unwrap();
        assert_eq!(
            (e.turn, e.score, e.depth, e.bound),
            (Some(turn()), -8, 4, Bound::Upper)
        );
    }

    #[test]
    fn hashfull_counts_this_search_only() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.hashfull(), 0);
        for key in 0..100_000u64 {
            tt.store(
                key.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                1,
                Bound::Exact,
                0,
                None,
            );
        }
        assert!(tt.hashfull() > 0);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.clear();
        assert_eq!(tt.probe(0), None);
    }
}
