//! The proof store: every result `vato solve` has proved, kept across runs, sessions and
//! machines, and read by the next run, for which a stored result is a leaf.
//!
//! A result is one side's guarantee from a position (a win, or not losing) with the
//! strategy that keeps it: that side's turn wherever it is to move. The store keeps, for
//! each position a strategy reached, which guarantees hold there and the turn of its side
//! to move. It is the union of the strategies in the order they were proved, the first
//! turn stored for a position kept. A line that follows the union stays with the result
//! whose turn it plays or moves to an earlier one, which it can do only so often; then it
//! follows one strategy, so every guarantee holds, and a win still makes progress. Only
//! strategies that the checker followed are stored, and a proof that rests on stored
//! results carries their turns, so that it is checked without the store.
//!
//! On disk the store is a folder of segments (`*.vps`, see [`super::segment`]), one for
//! each run that added results: merging two stores is copying one's segments into the
//! other's folder.

use super::check::{ByKey, follow};
use super::codes::{board_code, chain_code};
use super::known::{Known, flag};
use super::mapped_store::MappedStore;
use super::segment::{SegmentHeader, segment_name, write_segment};
use super::sorted_results::SortedResults;
use super::stored::StoredResults;
use super::strategy::{Guarantee, Strategy};
use crate::data_folder::data_folder;
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::Tablebase;
use anyhow::{Context, Result, bail};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// The environment variable that names the store's folder; set to nothing, it switches
/// the default store off.
pub const PROOFS_VARIABLE: &str = "VATO_PROOFS";

/// The default folder of the store: `$VATO_PROOFS` when set (none when set to nothing),
/// else `vato/proofs` in the user's data folder, beside the tables.
pub fn default_store_dir() -> Option<PathBuf> {
    data_folder(PROOFS_VARIABLE, "proofs")
}

impl StoredResults for ProofStore {
    fn known(&self, key: u64) -> Option<Known> {
        if let Some(&known) = self.newer.get(&key) {
            return Some(known);
        }
        let flags = self.read.get(key)?;
        // The segments were read whole when the store was opened, so their maps answer;
        // should one not (a file changed underneath), the guarantees stand without a turn.
        Some(
            self.segments
                .known(key)
                .unwrap_or(Known { flags, turn: None }),
        )
    }

    fn guarantees(&self, key: u64) -> Option<u8> {
        match self.newer.get(&key) {
            Some(known) => Some(known.flags),
            None => self.read.get(key),
        }
    }

    fn prefetch(&self, key: u64) {
        self.read.prefetch(key);
    }
}

/// The results proved so far for one board and chain rule: what a run read and what it
/// has added.
#[derive(Debug)]
pub struct ProofStore {
    board: u8,
    chain_rule: u8,
    /// The most stones of the table layers any stored result took as leaves.
    table_stones: u8,
    /// The guarantees the run read from the segments: hundreds of millions of results,
    /// kept compact, for the search.
    read: SortedResults,
    /// The segments, mapped: the turns of what `read` holds, for the proofs written down
    /// (so 9 bytes a result stay in the run's own memory rather than 17; the turns stay
    /// in the page cache, shared by every run).
    segments: MappedStore,
    /// For each position this run learned something of, all that is known there (what
    /// was read included). By Zobrist key: already uniform, so a fast hash serves, where
    /// the standard one's defence against chosen keys would only slow the writers.
    newer: FxHashMap<u64, Known>,
    /// The positions of `newer` that `read` does not hold.
    fresh: usize,
    /// What this run added, not yet written.
    added: FxHashMap<u64, Known>,
}

impl ProofStore {
    /// An empty store for `rules`.
    pub fn new(rules: &Rules) -> ProofStore {
        ProofStore {
            board: board_code(rules.board),
            chain_rule: chain_code(rules.chain_rule),
            table_stones: 0,
            read: SortedResults::default(),
            segments: MappedStore::empty(),
            newer: FxHashMap::default(),
            fresh: 0,
            added: FxHashMap::default(),
        }
    }

    /// The store in `dir` for `rules`: every segment of those rules, in order (segments of
    /// other rules are left alone); empty when the folder does not exist. An error names
    /// the first segment that is not a whole store segment.
    pub fn open(dir: &Path, rules: &Rules) -> Result<ProofStore> {
        let mut store = ProofStore::new(rules);
        let segments = MappedStore::open(dir, rules)?;
        store.table_stones = segments.table_stones();
        // Merged straight from the maps into the arrays, every block verified on the way:
        // the segments are never decoded whole.
        let mut failed = None;
        let entries = segments
            .entries()
            .map_while(|entry| entry.map_err(|e| failed = Some(e)).ok())
            .map(|(key, known)| (key, known.flags));
        store.read = SortedResults::from_sorted(entries, segments.len());
        if let Some(e) = failed {
            return Err(e);
        }
        store.segments = segments;
        Ok(store)
    }

    /// Positions with a stored result.
    pub fn len(&self) -> usize {
        self.read.len() + self.fresh
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Positions added since the store was opened or last saved.
    pub fn added(&self) -> usize {
        self.added.len()
    }

    /// The most stones of the table layers the stored results took as leaves: a run needs
    /// those tables to use them (its proofs are checked with its tables).
    pub fn table_stones(&self) -> u8 {
        self.table_stones
    }

    /// Adds a checked result: every position the strategy of `owner` reaches (not settled
    /// by the rules or the tables), with its turn where `owner` is to move, proved with
    /// table layers of up to `table_stones` stones as leaves.
    pub fn learn(
        &mut self,
        owner: Color,
        guarantee: Guarantee,
        reached: &[(u64, Option<Turn>)],
        table_stones: u8,
    ) {
        let flags = flag(owner, guarantee);
        let mut news = false;
        for &(key, turn) in reached {
            news |= self.add(key, Known { flags, turn });
        }
        if news {
            self.table_stones = self.table_stones.max(table_stones);
        }
    }

    /// Writes `reached`, checked positions where `owner` keeps `guarantee` (with its
    /// turn where it is to move), straight to a new segment in `dir`, leaving out what
    /// this store holds of them already: the segment's path, or `None` when nothing was
    /// new. A defence's finished part can hold a hundred million positions, whose maps
    /// in [`ProofStore::learn`] would need several times the memory of the segment.
    pub fn write_results(
        &self,
        dir: &Path,
        owner: Color,
        guarantee: Guarantee,
        reached: &[(u64, Option<Turn>)],
        table_stones: u8,
    ) -> Result<Option<PathBuf>> {
        let flags = flag(owner, guarantee);
        let mut entries: Vec<(u64, Known)> = reached
            .iter()
            .filter(|&&(key, _)| self.achieves(key, owner, guarantee).is_none())
            .map(|&(key, turn)| (key, Known { flags, turn }))
            .collect();
        if entries.is_empty() {
            return Ok(None);
        }
        entries.sort_unstable_by_key(|&(key, _)| key);
        entries.dedup_by_key(|&mut (key, _)| key);
        self.write_segment(dir, table_stones, entries).map(Some)
    }

    /// Adds what `known` says of the position with key `key`, and keeps it to be written
    /// when it says something new; whether it did.
    fn add(&mut self, key: u64, known: Known) -> bool {
        let before = self.known(key);
        let after = before.map_or(known, |before| before.with(known));
        if before == Some(after) {
            return false;
        }
        if before.is_none() {
            self.fresh += 1;
        }
        self.newer.insert(key, after);
        let added = self.added.get(&key).map_or(known, |a| a.with(known));
        self.added.insert(key, added);
        true
    }

    /// Adds `strategy`, a result proved from `root`, once the checker has followed it
    /// with `tables` (the search's leaves); the positions it added.
    pub fn keep(
        &mut self,
        root: &Position,
        rules: &Rules,
        tables: Option<&Tablebase>,
        strategy: &Strategy,
    ) -> Result<usize> {
        let (owner, guarantee) = (strategy.owner, strategy.guarantee);
        let turn_of = ByKey(|key| strategy.turn(key));
        let reached = follow(root, rules, tables, owner, guarantee, turn_of)?;
        let before = self.added.len();
        let stones = tables.map_or(0, |t| t.max_stones());
        self.learn(
            owner,
            guarantee,
            &reached,
            u8::try_from(stones).unwrap_or(u8::MAX),
        );
        Ok(self.added.len() - before)
    }

    /// Adds everything `other` (a store of the same rules) holds, after what this one
    /// holds: the merge of two shards' stores.
    pub fn absorb(&mut self, other: &ProofStore) -> Result<()> {
        if (other.board, other.chain_rule) != (self.board, self.chain_rule) {
            bail!("the stores are of different rules");
        }
        for entry in other.segments.entries() {
            let (key, read) = entry?;
            self.add(key, other.newer.get(&key).copied().unwrap_or(read));
        }
        let mut fresh: Vec<(u64, Known)> = other
            .newer
            .iter()
            .filter(|&(&key, _)| other.read.get(key).is_none())
            .map(|(&key, &known)| (key, known))
            .collect();
        fresh.sort_unstable_by_key(|&(key, _)| key);
        for (key, known) in fresh {
            self.add(key, known);
        }
        self.table_stones = self.table_stones.max(other.table_stones);
        Ok(())
    }

    /// Writes what was added since the last save as a new segment in `dir` (made if
    /// needed), through a temporary name; the segment's path, or `None` when nothing was
    /// added.
    pub fn save(&mut self, dir: &Path) -> Result<Option<PathBuf>> {
        if self.added.is_empty() {
            return Ok(None);
        }
        let mut entries: Vec<(u64, Known)> = self.added.iter().map(|(&k, &v)| (k, v)).collect();
        entries.sort_unstable_by_key(|&(key, _)| key);
        let path = self.write_segment(dir, self.table_stones, entries)?;
        self.added.clear();
        Ok(Some(path))
    }

    /// Writes `entries` (sorted by key, each key once) as a new segment of this store's
    /// rules in `dir` (made if needed), through a temporary name: its path.
    fn write_segment(
        &self,
        dir: &Path,
        table_stones: u8,
        entries: Vec<(u64, Known)>,
    ) -> Result<PathBuf> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot make the proof store's folder {}", dir.display()))?;
        let path = dir.join(segment_name());
        let header = SegmentHeader {
            board: self.board,
            chain_rule: self.chain_rule,
            table_stones,
        };
        write_segment(&path, header, || entries.iter().map(|&entry| Ok(entry)))?;
        Ok(path)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::board::Board;
    use crate::solve::stored::Proven;

    /// Fanoron-Dimy's rules, for tests of the store's files.
    pub(in crate::solve) fn dimy() -> Rules {
        Rules {
            board: Board::Dimy,
            ..Rules::default()
        }
    }

    /// A store with `count` made-up results of White's win.
    fn sample(count: u64) -> ProofStore {
        let rules = dimy();
        let root = rules.start();
        let mut turns = Vec::new();
        rules.turn_rules().generate(&root, &mut turns);
        let reached: Vec<(u64, Option<Turn>)> = (1..=count)
            .map(|i| {
                let key = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                (key, (i % 2 == 0).then_some(turns[i as usize % turns.len()]))
            })
            .collect();
        let mut store = ProofStore::new(&rules);
        store.learn(Color::White, Guarantee::Win, &reached, 3);
        store
    }

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vato-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_store_reads_back_as_written() {
        let dir = folder("round-trip");
        let mut store = sample(10_000);
        let path = store.save(&dir).unwrap().unwrap();
        assert_eq!(store.added(), 0);
        assert!(
            store.save(&dir).unwrap().is_none(),
            "nothing new, no segment"
        );
        let read = ProofStore::open(&dir, &dimy()).unwrap();
        assert_eq!(read.len(), store.len());
        for (&key, &known) in &store.newer {
            assert_eq!(read.known(key), Some(known));
        }
        assert_eq!(read.table_stones(), 3);
        let other_rules = ProofStore::open(&dir, &Rules::default()).unwrap();
        assert!(
            other_rules.is_empty(),
            "another game's results are left alone"
        );
        std::fs::remove_file(path).unwrap();
        std::fs::remove_dir(dir).unwrap();
    }

    #[test]
    fn every_flipped_byte_and_every_cut_is_refused() {
        let dir = folder("flips");
        let path = sample(5000).save(&dir).unwrap().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let read_all = || ProofStore::open(&dir, &dimy());
        assert_eq!(read_all().unwrap().len(), 5000);
        let step = bytes.len() / 997 + 1;
        for at in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            std::fs::write(&path, &damaged).unwrap();
            assert!(read_all().is_err(), "byte {at}");
            std::fs::write(&path, &bytes[..at]).unwrap();
            assert!(read_all().is_err(), "cut at {at}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_result_rules_out_the_other_sides() {
        let store = sample(4);
        let key = 2u64.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let (w, b) = (Color::White, Color::Black);
        assert_eq!(store.achieves(key, w, Guarantee::Win), Some(true));
        assert_eq!(store.achieves(key, w, Guarantee::NoLoss), Some(true));
        assert_eq!(store.achieves(key, b, Guarantee::NoLoss), Some(false));
        assert_eq!(store.achieves(key, b, Guarantee::Win), Some(false));
        assert_eq!(store.achieves(7, w, Guarantee::Win), None);
        assert!(store.turn(key, w, Guarantee::Win).is_some());
        assert!(store.turn(key, b, Guarantee::NoLoss).is_none());
    }

    #[test]
    fn what_is_proven_reads_from_either_side() {
        let (w, b) = (Color::White, Color::Black);
        let won = 2u64.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut store = sample(4);
        assert_eq!(store.proven(won, w), Some(Proven::Win));
        assert_eq!(store.proven(won, b), Some(Proven::Loss));
        assert_eq!(store.proven(7, w), None);
        let (drawn, one_sided) = (11, 12);
        store.learn(w, Guarantee::NoLoss, &[(drawn, None), (one_sided, None)], 3);
        assert_eq!(store.proven(one_sided, w), Some(Proven::DrawOrBetter));
        assert_eq!(store.proven(one_sided, b), Some(Proven::DrawOrWorse));
        store.learn(b, Guarantee::NoLoss, &[(drawn, None)], 3);
        assert_eq!(store.proven(drawn, b), Some(Proven::Draw));
        for proven in [Proven::Win, Proven::Draw, Proven::DrawOrBetter] {
            assert_eq!(proven.for_the_other_side().for_the_other_side(), proven);
        }
        assert_eq!(
            Proven::DrawOrBetter.for_the_other_side().to_string(),
            "draw or worse"
        );
    }

    #[test]
    fn the_first_turn_stays_and_a_new_win_brings_its_own() {
        let rules = dimy();
        let mut turns = Vec::new();
        rules.turn_rules().generate(&rules.start(), &mut turns);
        let (first, second) = (turns[0], turns[1]);
        let mut store = ProofStore::new(&rules);
        store.learn(Color::White, Guarantee::NoLoss, &[(5, Some(first))], 3);
        store.learn(Color::White, Guarantee::NoLoss, &[(5, Some(second))], 3);
        assert_eq!(store.turn(5, Color::White, Guarantee::NoLoss), Some(first));
        store.learn(Color::White, Guarantee::Win, &[(5, Some(second))], 3);
        assert_eq!(store.turn(5, Color::White, Guarantee::Win), Some(second));
        assert_eq!(store.turn(5, Color::White, Guarantee::NoLoss), Some(second));
        store.learn(Color::White, Guarantee::Win, &[(5, Some(first))], 3);
        assert_eq!(store.turn(5, Color::White, Guarantee::Win), Some(second));
    }

    #[test]
    fn two_stores_absorbed_hold_both() {
        let mut one = sample(100);
        let mut two = ProofStore::new(&dimy());
        two.learn(
            Color::Black,
            Guarantee::NoLoss,
            &[(11, None), (12, None)],
            4,
        );
        one.absorb(&two).unwrap();
        assert_eq!(one.len(), 102);
        assert_eq!(one.table_stones(), 4);
        assert_eq!(
            one.achieves(11, Color::Black, Guarantee::NoLoss),
            Some(true)
        );
        two.board = 0;
        assert!(one.absorb(&two).is_err());
    }
}
