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
//! On disk the store is a folder of segments (`*.vps`), one for each run that added
//! results, named by the time it was written so that they read in order: merging two
//! stores is copying one's segments into the other's folder. A segment is written through
//! a temporary name; it holds its entries sorted by position key, in blocks with a
//! checksum each, after an index of each block's first key (see docs/proof-store.md).

use super::certificate::unpack_turn;
use super::check::{ByKey, follow};
use super::codes::{board_code, chain_code};
use super::known::{Known, NO_TURN, flag};
use super::mapped_store::MappedStore;
use super::sorted_results::SortedResults;
use super::strategy::{Guarantee, Strategy};
use crate::data_folder::data_folder;
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::safe_file::{checksum, partial_path};
use crate::tablebase::Tablebase;
use anyhow::{Context, Result, bail};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// The environment variable that names the store's folder; set to nothing, it switches
/// the default store off.
pub const PROOFS_VARIABLE: &str = "VATO_PROOFS";

const MAGIC: &[u8; 8] = b"VATOPST1";
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 40;
/// The bytes of one entry in a block: key, turn, flags.
pub(super) const ENTRY_BYTES: usize = 17;
const BLOCK_ENTRIES: usize = 4096;
/// The extension of a segment's file.
const EXTENSION: &str = "vps";

/// The default folder of the store: `$VATO_PROOFS` when set (none when set to nothing),
/// else `vato/proofs` in the user's data folder, beside the tables.
pub fn default_store_dir() -> Option<PathBuf> {
    data_folder(PROOFS_VARIABLE, "proofs")
}

/// What a store proves about a position for one side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Proven {
    /// It wins.
    Win,
    /// The other side wins.
    Loss,
    /// Neither side wins.
    Draw,
    /// It does not lose; whether it wins is not known.
    DrawOrBetter,
    /// It does not win; whether it loses is not known.
    DrawOrWorse,
}

impl Proven {
    /// The same fact seen from the other side.
    pub fn for_the_other_side(self) -> Proven {
        match self {
            Proven::Win => Proven::Loss,
            Proven::Loss => Proven::Win,
            Proven::Draw => Proven::Draw,
            Proven::DrawOrBetter => Proven::DrawOrWorse,
            Proven::DrawOrWorse => Proven::DrawOrBetter,
        }
    }
}

impl std::fmt::Display for Proven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Proven::Win => "win",
            Proven::Loss => "loss",
            Proven::Draw => "draw",
            Proven::DrawOrBetter => "draw or better",
            Proven::DrawOrWorse => "draw or worse",
        })
    }
}

/// Reading proved results, from a store read into memory to grow ([`ProofStore`]) or from
/// one probed where it lies ([`super::mapped_store::MappedStore`]).
pub trait StoredResults: Sync + std::fmt::Debug {
    /// What is stored of the position with key `key`.
    fn known(&self, key: u64) -> Option<Known>;

    /// The guarantees stored for the position with key `key` (the bits of
    /// [`Known`]'s flags), without its turn: all a search asks, and cheaper where the
    /// turns are kept apart.
    fn guarantees(&self, key: u64) -> Option<u8> {
        self.known(key).map(|known| known.flags)
    }

    /// Asks the memory for what [`StoredResults::known`] of `key` will read, so that the
    /// lookups of a node's children overlap (nothing by default).
    fn prefetch(&self, _key: u64) {}

    /// What is proved about the position with key `key` for `mover`, its side to move;
    /// `None` when nothing is.
    fn proven(&self, key: u64, mover: Color) -> Option<Proven> {
        let known = Known {
            flags: self.guarantees(key)?,
            turn: None,
        };
        let holds = |owner, guarantee| known.achieves(owner, guarantee) == Some(true);
        let other = mover.opposite();
        Some(if holds(mover, Guarantee::Win) {
            Proven::Win
        } else if holds(other, Guarantee::Win) {
            Proven::Loss
        } else {
            match (
                holds(mover, Guarantee::NoLoss),
                holds(other, Guarantee::NoLoss),
            ) {
                (true, true) => Proven::Draw,
                (true, false) => Proven::DrawOrBetter,
                (false, true) => Proven::DrawOrWorse,
                (false, false) => return None,
            }
        })
    }

    /// What is proved, for the side to move at `position`, about playing `turn` there.
    fn proven_after(&self, position: &Position, turn: Turn) -> Option<Proven> {
        let next = position.play(turn);
        self.proven(next.key(), next.side_to_move())
            .map(Proven::for_the_other_side)
    }

    /// Whether `owner` keeps `guarantee` from the position with key `key`: `Some(true)`
    /// when it is stored, `Some(false)` when the other side's result rules it out, `None`
    /// when nothing is known.
    fn achieves(&self, key: u64, owner: Color, guarantee: Guarantee) -> Option<bool> {
        let flags = self.guarantees(key)?;
        Known { flags, turn: None }.achieves(owner, guarantee)
    }

    /// The stored turn of `owner` (to move) that keeps `guarantee` from the position with
    /// key `key`.
    fn turn(&self, key: u64, owner: Color, guarantee: Guarantee) -> Option<Turn> {
        let known = self.known(key)?;
        (known.achieves(owner, guarantee) == Some(true))
            .then_some(known.turn)
            .flatten()
    }
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

/// A new segment's name: the time in nanoseconds since 1970 (so that names sort in the
/// order the segments were written) and the process.
fn segment_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:020}-{}.{EXTENSION}", std::process::id())
}

/// The segments in `dir`, in the order they were written; none if it does not exist.
pub(super) fn segments(dir: &Path) -> Result<Vec<PathBuf>> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the proof store's folder {}", dir.display()))?
    {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == EXTENSION) && path.is_file() {
            found.push(path);
        }
    }
    found.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(found)
}

/// What a segment's header says besides its size.
#[derive(Clone, Copy, Debug)]
pub(super) struct SegmentHeader {
    pub(super) board: u8,
    pub(super) chain_rule: u8,
    pub(super) table_stones: u8,
}

/// Writes the results `entries` yields (in increasing key order; it yields the same ones
/// each time it is called) as a segment at `path`, through its partial name, synced
/// before it is renamed: the number of results. The index precedes the blocks, so the
/// results are read twice, once for the index and once to write them, and never held:
/// a compacted store holds hundreds of millions.
pub(super) fn write_segment<I>(
    path: &Path,
    header: SegmentHeader,
    entries: impl Fn() -> I,
) -> Result<u64>
where
    I: Iterator<Item = Result<(u64, Known)>>,
{
    let mut index: Vec<(u64, u64)> = Vec::new();
    let count = for_each_block(entries(), |first, body| {
        index.push((first, checksum(body)));
        Ok(())
    })?;
    let temporary = partial_path(path);
    let written = (|| -> Result<()> {
        use std::io::Write;
        let file = std::fs::File::create(&temporary)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut head = Vec::with_capacity(HEADER_BYTES);
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&VERSION.to_le_bytes());
        head.extend_from_slice(&[header.board, header.chain_rule, header.table_stones, 0]);
        head.extend_from_slice(&count.to_le_bytes());
        head.extend_from_slice(&(BLOCK_ENTRIES as u32).to_le_bytes());
        let blocks = u32::try_from(index.len()).context("too many blocks for one segment")?;
        head.extend_from_slice(&blocks.to_le_bytes());
        let sum = checksum(&head);
        head.extend_from_slice(&sum.to_le_bytes());
        out.write_all(&head)?;
        let index_bytes: Vec<u8> = index
            .iter()
            .flat_map(|&(first, sum)| first.to_le_bytes().into_iter().chain(sum.to_le_bytes()))
            .collect();
        out.write_all(&index_bytes)?;
        out.write_all(&checksum(&index_bytes).to_le_bytes())?;
        let mut number = 0;
        let again = for_each_block(entries(), |first, body| {
            if index.get(number) != Some(&(first, checksum(body))) {
                bail!("the results changed while they were written");
            }
            number += 1;
            Ok(out.write_all(body)?)
        })?;
        if again != count {
            bail!("the results changed while they were written");
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temporary, path)?;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(e.context(format!("cannot write {}", path.display())));
    }
    Ok(count)
}

/// Cuts `entries` into blocks and hands each block's first key and bytes to `block`:
/// the number of results; an error when they are not in increasing key order.
fn for_each_block(
    entries: impl Iterator<Item = Result<(u64, Known)>>,
    mut block: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<u64> {
    let mut body = Vec::with_capacity(BLOCK_ENTRIES * ENTRY_BYTES);
    let (mut first, mut last, mut count) = (0, None, 0u64);
    for entry in entries {
        let (key, known) = entry?;
        if last.is_some_and(|last| last >= key) {
            bail!("results out of order");
        }
        last = Some(key);
        if body.is_empty() {
            first = key;
        }
        let (flags, turn) = known.to_parts();
        body.extend_from_slice(&key.to_le_bytes());
        body.extend_from_slice(&turn.to_le_bytes());
        body.push(flags);
        count += 1;
        if body.len() == BLOCK_ENTRIES * ENTRY_BYTES {
            block(first, &body)?;
            body.clear();
        }
    }
    if !body.is_empty() {
        block(first, &body)?;
    }
    Ok(count)
}

/// Where a segment's parts lie, read from its header, with the header's and the index's
/// checksums and the length verified (not yet the blocks').
#[derive(Clone, Debug)]
pub(super) struct Layout {
    pub(super) board: u8,
    pub(super) chain_rule: u8,
    pub(super) table_stones: u8,
    /// Entries in the segment.
    pub(super) count: u64,
    block_entries: usize,
    pub(super) block_count: usize,
    /// Where the index's checksum starts: the blocks follow it.
    index_end: usize,
}

impl Layout {
    /// The layout of the segment `bytes`; an error says what is damaged.
    pub(super) fn read(bytes: &[u8]) -> Result<Layout> {
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            bail!("not a Vato proof store segment");
        }
        if checksum(&bytes[..HEADER_BYTES - 8]) != word(bytes, HEADER_BYTES - 8) {
            bail!("damaged: its header's checksum does not match");
        }
        let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = half(8);
        if version != VERSION {
            bail!("store format {version}, this Vato reads {VERSION}");
        }
        let count = word(bytes, 16);
        let (block_entries, block_count) = (half(24) as usize, half(28) as usize);
        let expected_blocks = count.div_ceil(block_entries.max(1) as u64);
        if block_entries == 0 || expected_blocks != block_count as u64 {
            bail!("damaged: its block count does not match its entries");
        }
        let index_end = HEADER_BYTES + block_count * 16;
        let expected_len = (index_end as u64 + 8).checked_add(count * ENTRY_BYTES as u64);
        if expected_len != Some(bytes.len() as u64) {
            bail!("truncated or damaged (its length does not match)");
        }
        if checksum(&bytes[HEADER_BYTES..index_end]) != word(bytes, index_end) {
            bail!("damaged: its index's checksum does not match");
        }
        Ok(Layout {
            board: bytes[12],
            chain_rule: bytes[13],
            table_stones: bytes[14],
            count,
            block_entries,
            block_count,
            index_end,
        })
    }

    /// The key of block `number`'s first entry, as the index says.
    pub(super) fn first_key(&self, bytes: &[u8], number: usize) -> u64 {
        word(bytes, HEADER_BYTES + number * 16)
    }

    /// The bytes of block `number`, once its checksum is verified.
    pub(super) fn block<'b>(&self, bytes: &'b [u8], number: usize) -> Result<&'b [u8]> {
        let body = self.unverified_block(bytes, number);
        if checksum(body) != word(bytes, HEADER_BYTES + number * 16 + 8) {
            bail!("damaged: block {number}'s checksum does not match");
        }
        Ok(body)
    }

    /// The bytes of block `number`, as they are.
    pub(super) fn unverified_block<'b>(&self, bytes: &'b [u8], number: usize) -> &'b [u8] {
        let before = number * self.block_entries;
        let in_block = (self.count as usize - before).min(self.block_entries);
        let at = self.index_end + 8 + before * ENTRY_BYTES;
        &bytes[at..at + in_block * ENTRY_BYTES]
    }
}

/// The little-endian word at `at`.
fn word(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The key of the entry `entry` (its bytes in a block).
pub(super) fn entry_key(entry: &[u8]) -> u64 {
    word(entry, 0)
}

/// An entry's key and what it says; an error when it holds no result or a turn that is
/// no turn.
pub(super) fn decode_entry(entry: &[u8]) -> Result<(u64, Known)> {
    let flags = entry[16];
    if flags == 0 || flags > 0b1111 {
        bail!("an entry without a result");
    }
    let turn = match word(entry, 8) {
        NO_TURN => None,
        bits => Some(unpack_turn(bits).context("a turn that is no turn")?),
    };
    Ok((entry_key(entry), Known { flags, turn }))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::board::Board;

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
