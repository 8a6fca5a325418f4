//! The proof store probed where it lies: each segment memory-mapped, its header and index
//! checked when opened, a block's checksum verified the first time the block is read.
//!
//! The engine asks the store about a handful of positions a turn, while the store grows
//! to tens of millions of results: reading it whole (as `vato solve`, which adds to it,
//! does) would cost seconds and gigabytes before the first `bestmove`. Opening the maps
//! costs a few milliseconds whatever the store's size, and a damaged block costs only
//! the answers it holds.

use super::codes::{board_code, chain_code};
use super::known::Known;
use super::store::{ENTRY_BYTES, Layout, StoredResults, decode_entry, entry_key, segments};
use crate::key_search::{interpolate, search_near};
use crate::rules::Rules;
use anyhow::{Context, Result};
use memmap2::Mmap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A proof store opened for reading without being read: see the module's documentation.
#[derive(Debug)]
pub struct MappedStore {
    /// The segments of the store's rules, in the order they were written.
    segments: Vec<MappedSegment>,
    /// The most stones of the table layers any stored result took as leaves.
    table_stones: u8,
}

/// One segment's map.
#[derive(Debug)]
struct MappedSegment {
    map: Mmap,
    layout: Layout,
    /// The segment's path, for messages.
    name: String,
    /// A bit a block, set once the block has passed its checksum (the map does not change,
    /// so a block is summed once).
    verified: Vec<AtomicU64>,
    /// Whether a damaged block has been found: reported once a segment.
    damaged: AtomicBool,
    /// Whether damage goes unreported (see [`MappedStore::damaged`]).
    quiet: bool,
}

impl MappedStore {
    /// The store in `dir` for `rules`: the segments of those rules, their headers and
    /// indexes checked; empty when the folder does not exist. An error names the first
    /// segment whose header or index is damaged.
    pub fn open(dir: &Path, rules: &Rules) -> Result<MappedStore> {
        MappedStore::open_reporting(dir, rules, true)
    }

    /// [`MappedStore::open`] for a glance: damaged blocks are not reported, only counted
    /// in [`MappedStore::damaged`] (the caller then reads the store another way, which
    /// says so itself).
    pub fn open_quietly(dir: &Path, rules: &Rules) -> Result<MappedStore> {
        MappedStore::open_reporting(dir, rules, false)
    }

    fn open_reporting(dir: &Path, rules: &Rules, report: bool) -> Result<MappedStore> {
        let (board, chain_rule) = (board_code(rules.board), chain_code(rules.chain_rule));
        let mut store = MappedStore {
            segments: Vec::new(),
            table_stones: 0,
        };
        for path in segments(dir)? {
            let name = path.display().to_string();
            let file = std::fs::File::open(&path)
                .with_context(|| format!("cannot read the proof store {name}"))?;
            // SAFETY: the map is read-only and segments are never rewritten in place (a new
            // one is written under a temporary name and renamed); whatever a map holds is
            // checked against the checksums before it is believed, and every read stays
            // within the length the layout verified.
            let map = unsafe { Mmap::map(&file) }
                .with_context(|| format!("cannot map the proof store {name}"))?;
            let layout = Layout::read(&map).with_context(|| format!("proof store {name}"))?;
            if (layout.board, layout.chain_rule) != (board, chain_rule) {
                continue;
            }
            store.table_stones = store.table_stones.max(layout.table_stones);
            let verified = (0..layout.block_count.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect();
            store.segments.push(MappedSegment {
                map,
                layout,
                name,
                verified,
                damaged: AtomicBool::new(false),
                quiet: !report,
            });
        }
        Ok(store)
    }

    /// The most stones of the table layers the stored results took as leaves: a reader
    /// needs those tables to trust them.
    pub fn table_stones(&self) -> u8 {
        self.table_stones
    }

    /// Whether a lookup has met a damaged block.
    pub fn damaged(&self) -> bool {
        self.segments
            .iter()
            .any(|segment| segment.damaged.load(Ordering::Relaxed))
    }

    /// Whether the store holds no segment of its rules.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }
}

impl StoredResults for MappedStore {
    /// What the segments say, folded in the order they were written, as
    /// [`super::ProofStore::open`] folds them.
    fn known(&self, key: u64) -> Option<Known> {
        self.segments
            .iter()
            .filter_map(|segment| segment.known(key))
            .reduce(Known::with)
    }
}

impl MappedSegment {
    /// What this segment says of the position with key `key`; nothing when its block is
    /// damaged (said once on standard error).
    fn known(&self, key: u64) -> Option<Known> {
        let bytes: &[u8] = &self.map;
        let blocks = self.layout.block_count;
        let first_key = |n: usize| self.layout.first_key(bytes, n);
        let guess = interpolate(key, 0, u64::MAX, blocks);
        let after = search_near(blocks, guess, |n| first_key(n) <= key);
        let number = after.checked_sub(1)?;
        let body = match self.block(number) {
            Ok(body) => body,
            Err(e) => {
                self.report(&format!("{e:#}"));
                return None;
            }
        };
        let entries = body.len() / ENTRY_BYTES;
        let entry = |i: usize| &body[i * ENTRY_BYTES..(i + 1) * ENTRY_BYTES];
        let end_key = if number + 1 < blocks {
            first_key(number + 1)
        } else {
            u64::MAX
        };
        let guess = interpolate(key, first_key(number), end_key, entries);
        let at = search_near(entries, guess, |i| entry_key(entry(i)) < key);
        if at == entries || entry_key(entry(at)) != key {
            return None;
        }
        match decode_entry(entry(at)) {
            Ok((_, known)) => Some(known),
            Err(e) => {
                self.report(&format!("damaged: block {number} holds a bad entry: {e:#}"));
                None
            }
        }
    }

    /// Block `number`'s bytes, its checksum verified the first time.
    fn block(&self, number: usize) -> Result<&[u8]> {
        let (word, bit) = (&self.verified[number / 64], 1u64 << (number % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return Ok(self.layout.unverified_block(&self.map, number));
        }
        let body = self.layout.block(&self.map, number)?;
        word.fetch_or(bit, Ordering::Relaxed);
        Ok(body)
    }

    fn report(&self, why: &str) {
        if !self.damaged.swap(true, Ordering::Relaxed) && !self.quiet {
            tracing::warn!(
                "proof store {}: {why}; its other blocks are still read",
                self.name
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Color;
    use crate::solve::store::ProofStore;
    use crate::solve::store::tests::dimy;
    use crate::solve::strategy::Guarantee;

    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("vato-mapped-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// Two segments: White's wins at keys 1, 3, 5, ... (turns at some), then Black's
    /// draws at every third key, some of them where White was said to win before.
    fn two_segments(dir: &Path) -> ProofStore {
        let rules = dimy();
        let mut turns = Vec::new();
        rules.turn_rules().generate(&rules.start(), &mut turns);
        let mut store = ProofStore::new(&rules);
        let wins: Vec<_> = (0..20_000u64)
            .map(|i| {
                (
                    2 * i + 1,
                    (i % 3 == 0).then_some(turns[i as usize % turns.len()]),
                )
            })
            .collect();
        store.learn(Color::White, Guarantee::Win, &wins, 3);
        store.save(dir).unwrap();
        let draws: Vec<_> = (0..15_000u64).map(|i| (3 * i, None)).collect();
        store.learn(Color::Black, Guarantee::NoLoss, &draws, 4);
        store.save(dir).unwrap();
        store
    }

    #[test]
    fn a_mapped_store_answers_as_the_store_read_whole() {
        let dir = folder("same");
        let written = two_segments(&dir);
        let read = ProofStore::open(&dir, &dimy()).unwrap();
        let mapped = MappedStore::open(&dir, &dimy()).unwrap();
        assert_eq!(mapped.table_stones(), 4);
        for key in (0..50_000u64).chain([u64::MAX, u64::MAX - 1]) {
            assert_eq!(mapped.known(key), read.known(key), "key {key}");
            assert_eq!(mapped.known(key), written.known(key), "key {key}");
        }
        assert!(mapped.known(3).is_some() && mapped.known(2).is_none());
        let other = MappedStore::open(&dir, &Rules::default()).unwrap();
        assert!(other.is_empty() && other.known(3).is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_damaged_block_costs_only_its_own_answers() {
        let dir = folder("damaged");
        let written = two_segments(&dir);
        let first = segments(&dir).unwrap()[0].clone();
        let mut bytes = std::fs::read(&first).unwrap();
        // The last byte is the last entry's flags, in the segment's last block.
        let last = bytes.len() - 1;
        bytes[last] ^= 0x40;
        std::fs::write(&first, &bytes).unwrap();
        assert!(
            ProofStore::open(&dir, &dimy()).is_err(),
            "read whole, the store is refused"
        );
        let mapped = MappedStore::open(&dir, &dimy()).unwrap();
        // The first block is whole: its answers stand.
        assert_eq!(mapped.known(1), written.known(1));
        assert!(!mapped.damaged());
        // The last block of the first segment is damaged, and the second says nothing there.
        let damaged_key = 2 * 19_998 + 1;
        assert_eq!(
            mapped.achieves(damaged_key, Color::White, Guarantee::Win),
            None
        );
        assert!(mapped.damaged());
        let mut header = std::fs::read(&first).unwrap();
        header[20] ^= 1;
        std::fs::write(&first, &header).unwrap();
        let error = MappedStore::open(&dir, &dimy()).err().unwrap();
        assert!(format!("{error:#}").contains("checksum"), "{error:#}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
