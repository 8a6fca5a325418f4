//! The proof store's segment files: one for each run that added results, named by the
//! time it was written so that they read in order, each holding its entries sorted by
//! position key in blocks with a checksum each, after an index of each block's first key
//! (see docs/proof-store.md). Written through a temporary name and synced before it is
//! renamed; read by [`Layout`], which checks the header and the index, and verifies a
//! block when it is read.

use super::certificate::unpack_turn;
use super::known::{Known, NO_TURN};
use crate::safe_file::{checksum, write_atomically_with};
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"VATOPST1";
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 40;
/// The bytes of one entry in a block: key, turn, flags.
pub(super) const ENTRY_BYTES: usize = 17;
const BLOCK_ENTRIES: usize = 4096;
/// The extension of a segment's file.
const EXTENSION: &str = "vps";

/// A new segment's name: the time in nanoseconds since 1970 (so that names sort in the
/// order the segments were written) and the process.
pub(super) fn segment_name() -> String {
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
    write_atomically_with(path, |out| {
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
        Ok(())
    })
    .with_context(|| format!("cannot write {}", path.display()))?;
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
