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
use super::prefetch::prefetch;
use super::segment::{ENTRY_BYTES, Layout, decode_entry, entry_key, segments};
use super::stored::StoredResults;
use crate::key_search::{interpolate, partition_point, search_near};
use crate::rules::Rules;
use anyhow::{Context, Result};
use memmap2::Mmap;
use std::path::{Path, PathBuf};
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
    /// The segment's path.
    path: PathBuf,
    /// A bit a block, set once the block has passed its checksum (the map does not change,
    /// so a block is summed once).
    verified: Vec<AtomicU64>,
    /// Blocks by the top bits of keys: how many blocks start below each value of those
    /// bits, so that a key's block is found among one or two rather than searched for.
    directory: Directory,
    /// Whether a damaged block has been found: reported once a segment.
    damaged: AtomicBool,
    /// Whether damage goes unreported (see [`MappedStore::damaged`]).
    quiet: bool,
}

/// Where blocks start, by the top bits of their first keys; see [`MappedSegment`].
#[derive(Debug)]
struct Directory {
    /// The top bits of a key: the key shifted right by this (64 for a single bucket).
    shift: u32,
    /// For each value of the top bits, how many blocks start below it; then the count of
    /// blocks.
    below: Vec<u32>,
}

impl Directory {
    /// The directory of `blocks` blocks whose first keys `first_key` gives, in order.
    fn new(blocks: usize, first_key: impl Fn(usize) -> u64) -> Directory {
        let buckets = blocks.max(1).next_power_of_two();
        let shift = 64 - buckets.trailing_zeros();
        let bucket = |key: u64| key.checked_shr(shift).unwrap_or(0) as usize;
        let mut below = Vec::with_capacity(buckets + 1);
        let mut at = 0;
        for value in 0..=buckets {
            while at < blocks && bucket(first_key(at)) < value {
                at += 1;
            }
            below.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        Directory { shift, below }
    }

    /// The blocks among which the last to start at or below `key` lies: those starting
    /// below its bucket are all at or below it, those starting above it none.
    fn blocks_around(&self, key: u64) -> (usize, usize) {
        let bucket = key.checked_shr(self.shift).unwrap_or(0) as usize;
        (self.below[bucket] as usize, self.below[bucket + 1] as usize)
    }
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
            let directory = Directory::new(layout.block_count, |n| layout.first_key(&map, n));
            store.segments.push(MappedSegment {
                map,
                layout,
                path,
                verified,
                directory,
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

    /// A store of no segment.
    pub(super) fn empty() -> MappedStore {
        MappedStore {
            segments: Vec::new(),
            table_stones: 0,
        }
    }

    /// Entries in the segments: the positions stored, a position stored by several
    /// segments counted in each (a compacted store counts each once).
    pub(super) fn len(&self) -> usize {
        self.segments
            .iter()
            .map(|segment| segment.layout.count as usize)
            .sum()
    }

    /// The segments' paths, in the order they were written.
    pub(super) fn paths(&self) -> impl Iterator<Item = &Path> {
        self.segments.iter().map(|segment| segment.path.as_path())
    }

    /// Every stored result in key order, what the segments say of one position folded in
    /// the order they were written; an error, and nothing after it, at the first damaged
    /// block or entry.
    pub(super) fn entries(&self) -> impl Iterator<Item = Result<(u64, Known)>> + '_ {
        merge_sorted(self.segments.iter().map(MappedSegment::entries).collect())
    }
}

/// A run of results, in increasing key order.
type Run<'a> = Box<dyn Iterator<Item = Result<(u64, Known)>> + 'a>;

/// Takes the next result of run `run` into `heads` and `heap`.
fn pull(
    run: usize,
    runs: &mut [Run<'_>],
    heads: &mut [Option<Known>],
    heap: &mut std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>>,
) -> Result<()> {
    if let Some(next) = runs[run].next() {
        let (key, known) = next?;
        heads[run] = Some(known);
        heap.push(std::cmp::Reverse((key, run)));
    }
    Ok(())
}

/// Runs of results (each in increasing key order), merged into one in key order, what
/// the runs say of one key folded in the runs' order; an error ends the merge.
fn merge_sorted<'a>(mut runs: Vec<Run<'a>>) -> Run<'a> {
    if runs.len() == 1 {
        // A compacted store: nothing to merge.
        return runs.pop().expect("one run");
    }
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut heads: Vec<Option<Known>> = vec![None; runs.len()];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut failed: Option<anyhow::Error> = None;
    for run in 0..runs.len() {
        if let Err(e) = pull(run, &mut runs, &mut heads, &mut heap) {
            failed.get_or_insert(e);
        }
    }
    let mut done = false;
    Box::new(std::iter::from_fn(move || {
        if done {
            return None;
        }
        if let Some(e) = failed.take() {
            done = true;
            return Some(Err(e));
        }
        let Reverse((key, run)) = heap.pop()?;
        let mut folded = heads[run].take().expect("a head for each run in the heap");
        let mut next = pull(run, &mut runs, &mut heads, &mut heap);
        // Ties pop in run order: the earlier run's word comes first.
        while next.is_ok() {
            match heap.peek() {
                Some(&Reverse((same, later))) if same == key => {
                    heap.pop();
                    folded = folded.with(heads[later].take().expect("a head"));
                    next = pull(later, &mut runs, &mut heads, &mut heap);
                }
                _ => break,
            }
        }
        if let Err(e) = next {
            done = true;
            return Some(Err(e));
        }
        Some(Ok((key, folded)))
    }))
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

    fn prefetch(&self, key: u64) {
        for segment in &self.segments {
            segment.prefetch(key);
        }
    }
}

impl MappedSegment {
    /// What this segment says of the position with key `key`; nothing when its block is
    /// damaged (said once on standard error).
    fn known(&self, key: u64) -> Option<Known> {
        let number = self.block_of(key)?;
        let body = match self.block(number) {
            Ok(body) => body,
            Err(e) => {
                self.report(&format!("{e:#}"));
                return None;
            }
        };
        let entries = body.len() / ENTRY_BYTES;
        let entry = |i: usize| &body[i * ENTRY_BYTES..(i + 1) * ENTRY_BYTES];
        let guess = self.guess(number, key, entries);
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

    /// The block where `key` would be, if any block starts at or below it.
    fn block_of(&self, key: u64) -> Option<usize> {
        let (low, high) = self.directory.blocks_around(key);
        let first_key = |n: usize| self.layout.first_key(&self.map, n);
        let after = low + partition_point(high - low, |n| first_key(low + n) <= key);
        after.checked_sub(1)
    }

    /// Where `key` would be among the `entries` of block `number` if they were spread
    /// evenly from its first key to the next block's.
    fn guess(&self, number: usize, key: u64, entries: usize) -> usize {
        let end_key = if number + 1 < self.layout.block_count {
            self.layout.first_key(&self.map, number + 1)
        } else {
            u64::MAX
        };
        interpolate(
            key,
            self.layout.first_key(&self.map, number),
            end_key,
            entries,
        )
    }

    /// Asks the memory for the entry where `key` would be.
    fn prefetch(&self, key: u64) {
        let Some(number) = self.block_of(key) else {
            return;
        };
        let body = self.layout.unverified_block(&self.map, number);
        let entries = body.len() / ENTRY_BYTES;
        let at = self
            .guess(number, key, entries)
            .min(entries.saturating_sub(1));
        if let Some(byte) = body.get(at * ENTRY_BYTES) {
            prefetch(byte);
        }
    }

    /// The segment's results in key order; an error at the first damaged block or entry.
    fn entries(&self) -> Run<'_> {
        let blocks = 0..self.layout.block_count;
        let mut last: Option<u64> = None;
        Box::new(
            blocks
                .flat_map(move |number| {
                    let body = self.layout.block(&self.map, number);
                    let (body, failed) = match body {
                        Ok(body) => (body, None),
                        Err(e) => (&[][..], Some(Err(e))),
                    };
                    failed
                        .into_iter()
                        .chain(body.chunks_exact(ENTRY_BYTES).map(move |entry| {
                            decode_entry(entry).with_context(|| {
                                format!("damaged: block {number} holds a bad entry")
                            })
                        }))
                })
                .map(move |entry| {
                    let (key, known) = entry?;
                    if last.is_some_and(|previous| previous >= key) {
                        anyhow::bail!("damaged: its positions are out of order");
                    }
                    last = Some(key);
                    Ok((key, known))
                })
                .map(|entry| entry.with_context(|| format!("proof store {}", self.path.display()))),
        )
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
                self.path.display()
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
    fn the_directory_brackets_the_block_of_every_key() {
        for blocks in [1usize, 2, 3, 7, 64, 1000] {
            let mut firsts: Vec<u64> = (0..blocks as u64)
                .map(|i| (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            firsts.sort_unstable();
            firsts[0] = firsts[0].min(5);
            let directory = Directory::new(blocks, |n| firsts[n]);
            let probes = (0..5000u64).map(|i| i.wrapping_mul(0xd6e8_feb8_6659_fd93));
            for key in probes.chain([0, 4, 5, 6, u64::MAX]).chain(firsts.clone()) {
                let (low, high) = directory.blocks_around(key);
                let wanted = firsts.partition_point(|&first| first <= key);
                assert!(
                    low <= wanted && wanted <= high,
                    "{blocks} blocks, key {key}"
                );
                assert!(
                    high - low <= blocks.min(8),
                    "{blocks} blocks: {low}..{high}"
                );
            }
        }
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
