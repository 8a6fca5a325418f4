//! Version 3 layer files: one file of win/draw/loss values and one of distances per layer,
//! each holding the canonical positions of the layer (see [`super::symmetry`]) in blocks
//! compressed apart, with an index of the blocks and a checksum per block, read through a
//! memory map. `docs/tablebase-format.md` specifies the bytes.
//!
//! Entries are one byte each, in index order (the layer's combinatorial ranking). An entry
//! that is not canonical is "don't care": the writer repeats the last canonical value of
//! the block there, so that the runs compress to almost nothing, and the reader never
//! looks at it (it maps a position to its canonical member first).

use super::index::{binomial, layer_size, placement_of};
use super::lz4_point::{Found, byte_at};
use super::symmetry::{Class, class_of, class_size, is_canonical};
use super::value::{Outcome, Value};
use crate::rules::board::Board;
use crate::rules::{ChainRule, Rules};
use crate::safe_file::{checksum, partial_path};
use anyhow::{Context, Result, bail};
use memmap2::Mmap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Identifies table files: "VATO TB" and a newline, so a text dump shows what it is.
pub(super) const MAGIC: [u8; 8] = *b"VATO TB\n";
/// The file format of the layer files written and read.
pub const FORMAT_VERSION: u32 = 3;
/// Bytes of the fixed header.
const HEADER_LEN: usize = 64;
/// Where the header's checksum sits: it covers the bytes before it. The block index is
/// not summed as a whole, so that opening a set reads one page a file even when nothing
/// is cached; an index entry is checked with its block (a wrong offset or sum makes the
/// block fail its checksum).
const CHECKSUM_AT: usize = HEADER_LEN - 8;
/// Bytes per block in the index: the block's end offset and its checksum.
const INDEX_ENTRY_LEN: usize = 16;
/// Entries per block in the files written: a probe decodes one block of this many bytes.
/// (Readers take the number from the header.)
pub const BLOCK_ENTRIES: usize = 8192;
/// The block sizes a reader accepts: powers of two in this range.
const BLOCK_ENTRIES_RANGE: std::ops::RangeInclusive<usize> = 256..=65536;
/// The compression codes in the header: zstd frames, and LZ4 blocks (no frame, the
/// decoded length known from the block's place).
const ZSTD: u8 = 1;
const LZ4: u8 = 2;
/// zstd's level: higher levels gained little on these files and cost build time.
const ZSTD_LEVEL: i32 = 9;

/// What a file holds for each position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Win, draw or loss for the side to move: 2, 1, 0.
    Wdl,
    /// Turns to the next capture or the end for a win or a loss, 0 for a draw.
    Distance,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Wdl => 1,
            Kind::Distance => 2,
        }
    }

    /// Bits an entry: win/draw/loss values are packed four to a byte (the first entry in
    /// the lowest two bits), distances take a byte each.
    pub(super) fn entry_bits(self) -> usize {
        match self {
            Kind::Wdl => 2,
            Kind::Distance => 8,
        }
    }

    /// The bytes that `entries` entries take once decoded.
    fn decoded_len(self, entries: usize) -> usize {
        (entries * self.entry_bits()).div_ceil(8)
    }

    /// Entry `offset` of a decoded block.
    #[inline]
    pub(super) fn entry_in(self, decoded: &[u8], offset: usize) -> u8 {
        match self {
            Kind::Wdl => (decoded[offset / 4] >> (2 * (offset % 4))) & 3,
            Kind::Distance => decoded[offset],
        }
    }

    /// The first of the `entries` entries of a decoded block that no writer produces and
    /// no reader accepts: a value code 3 (a distance may be any byte).
    pub(super) fn first_without_value(self, decoded: &[u8], entries: usize) -> Option<usize> {
        if self != Kind::Wdl {
            return None;
        }
        // Code 3 is both bits of an entry set: the low bit of each pair in `b & b >> 1`.
        let at = decoded
            .iter()
            .position(|&byte| byte & byte >> 1 & 0x55 != 0)?;
        let offset =
            at * 4 + ((decoded[at] & decoded[at] >> 1 & 0x55).trailing_zeros() / 2) as usize;
        // Bits past the last entry of a short last block are not entries.
        (offset < entries).then_some(offset)
    }

    /// How the blocks are compressed: the values, probed by every search node in the
    /// tables, with LZ4, whose blocks decode in a fraction of zstd's time (zstd builds its
    /// entropy tables again for every block); the distances, read at the root and near
    /// the no-capture limit only, with zstd, which makes them about half as large.
    fn codec(self) -> u8 {
        match self {
            Kind::Wdl => LZ4,
            Kind::Distance => ZSTD,
        }
    }

    /// The file's ending: `.vtw` for values, `.vtz` for distances.
    fn extension(self) -> &'static str {
        match self {
            Kind::Wdl => "vtw",
            Kind::Distance => "vtz",
        }
    }
}

/// The word and the bit of block `block` in a bitset of a file's blocks.
fn block_bit(bits: &[AtomicU64], block: u64) -> (&AtomicU64, u64) {
    (&bits[(block / 64) as usize], 1u64 << (block % 64))
}

/// The name of layer `(a, b)`'s file of `kind` on `board`: `vato-4v3.vtw`, and for Dimy
/// `vato-dimy-4v3.vtw`, so both games' sets can share a folder.
pub fn table_file_name(board: Board, kind: Kind, a: usize, b: usize) -> String {
    layer_file_name(board, (a, b), kind.extension())
}

/// The name of a file of layer `(a, b)` on `board` ending in `extension`: `vato-4v3.vtw`,
/// and for Dimy `vato-dimy-4v3.vtw`. Every file of a set (tables of each version, build
/// checkpoints) is named so.
pub(super) fn layer_file_name(board: Board, (a, b): (usize, usize), extension: &str) -> String {
    let game = match board {
        Board::Tsivy => String::new(),
        Board::Dimy => format!("{}-", board.name()),
    };
    format!("vato-{game}{a}v{b}.{extension}")
}

/// The byte of a value in a file of `kind`.
pub(super) fn entry_of(kind: Kind, value: Value) -> u8 {
    match kind {
        Kind::Wdl => match value.outcome {
            Outcome::Loss => 0,
            Outcome::Draw => 1,
            Outcome::Win => 2,
        },
        Kind::Distance => u8::try_from(value.distance).unwrap_or(u8::MAX),
    }
}

/// The value of a position from its bytes in the two files; `None` for a byte that no
/// writer produces.
pub(super) fn value_of(wdl: u8, distance: u8) -> Option<Value> {
    let outcome = match wdl {
        0 => Outcome::Loss,
        1 => Outcome::Draw,
        2 => Outcome::Win,
        _ => return None,
    };
    Some(match outcome {
        Outcome::Draw => Value::DRAW,
        _ => Value {
            outcome,
            distance: u16::from(distance),
        },
    })
}

pub(super) fn board_code(board: Board) -> u8 {
    match board {
        Board::Tsivy => 0,
        Board::Dimy => 1,
    }
}

pub(super) fn chain_rule_code(rule: ChainRule) -> u8 {
    match rule {
        ChainRule::Optional => 0,
        ChainRule::Mandatory => 1,
    }
}

/// The fixed header of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Header {
    kind: Kind,
    board: Board,
    chain_rule: ChainRule,
    a: usize,
    b: usize,
    no_capture_limit: u32,
    entries: u64,
    block_entries: usize,
    blocks: u64,
    /// The layer's longest distance, which lets a prober read the values alone when even
    /// the longest win is within the no-capture limit.
    longest: u16,
}

impl Header {
    fn for_layer(rules: &Rules, kind: Kind, a: usize, b: usize, block_entries: usize) -> Header {
        let entries = layer_size(rules.board, a, b);
        Header {
            block_entries,
            longest: 0,
            kind,
            board: rules.board,
            chain_rule: rules.chain_rule,
            a,
            b,
            no_capture_limit: rules.no_capture_limit,
            entries,
            blocks: entries.div_ceil(block_entries as u64),
        }
    }

    /// The header's bytes up to its checksum.
    fn bytes(&self) -> [u8; CHECKSUM_AT] {
        let mut out = [0u8; CHECKSUM_AT];
        out[..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        out[12] = self.kind.code();
        out[13] = board_code(self.board);
        out[14] = chain_rule_code(self.chain_rule);
        out[15] = self.a as u8;
        out[16] = self.b as u8;
        out[17] = self.kind.codec();
        out[20..24].copy_from_slice(&self.no_capture_limit.to_le_bytes());
        out[24..32].copy_from_slice(&self.entries.to_le_bytes());
        out[32..36].copy_from_slice(&(self.block_entries as u32).to_le_bytes());
        out[40..48].copy_from_slice(&self.blocks.to_le_bytes());
        out[48..50].copy_from_slice(&self.longest.to_le_bytes());
        out
    }
}

/// For each index of block `block` of layer `(a, b)` on `board`, into `out`: 0 when it is
/// not canonical (the reader never looks at it), else the number of placements its class
/// holds (see [`class_size`]), which the statistics count.
pub(super) fn class_sizes(
    board: Board,
    (a, b): (usize, usize),
    range: std::ops::Range<u64>,
    out: &mut Vec<u8>,
) {
    out.clear();
    let width = binomial(board.point_count() - a, b);
    let end = range.end;
    let mut index = range.start;
    while index < end {
        // One set of the mover's stones covers the indices up to the next multiple of
        // the width; its class decides them all but for symmetric sets.
        let run_end = ((index / width + 1) * width).min(end);
        let (us, _) = placement_of(board, a, b, index);
        match class_of(board, us) {
            Class::All => out.extend((index..run_end).map(|_| 4)),
            Class::None => out.extend((index..run_end).map(|_| 0)),
            Class::Some => out.extend((index..run_end).map(|i| {
                let (us, them) = placement_of(board, a, b, i);
                if is_canonical(board, us, them) {
                    class_size(board, us, them)
                } else {
                    0
                }
            })),
        }
        index = run_end;
    }
}

/// The entries of block `block` of layer `(a, b)`'s file of `kind`, from `value` (the
/// value of each index of the layer): canonical entries as they are, the others the last
/// canonical entry before them in the block (the first one's for those before it).
fn block_entries(
    board: Board,
    layer: (usize, usize),
    kind: Kind,
    block: u64,
    value: &impl Fn(u64) -> Value,
    cares: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    let start = block * BLOCK_ENTRIES as u64;
    let end = (start + BLOCK_ENTRIES as u64).min(layer_size(board, layer.0, layer.1));
    class_sizes(board, layer, start..end, cares);
    out.clear();
    let mut last = None;
    for (offset, &care) in cares.iter().enumerate() {
        if care != 0 {
            let entry = entry_of(kind, value(start + offset as u64));
            if last.is_none() {
                out.resize(offset, entry);
            }
            out.push(entry);
            last = Some(entry);
        } else if let Some(entry) = last {
            out.push(entry);
        }
    }
    out.resize(cares.len(), last.unwrap_or(0));
    if kind == Kind::Wdl {
        let packed: Vec<u8> = out
            .chunks(4)
            .map(|four| four.iter().rev().fold(0, |byte, &entry| byte << 2 | entry))
            .collect();
        *out = packed;
    }
}

/// Writes layer `(a, b)`'s two files to `dir`, each through a temporary name renamed when
/// complete, from `value` (the value of each index of the layer, asked of canonical ones
/// only) and `longest` (the layer's longest distance), compressing blocks on `threads`
/// threads.
pub(super) fn write_layer(
    dir: &Path,
    rules: &Rules,
    (a, b): (usize, usize),
    value: &(impl Fn(u64) -> Value + Sync),
    longest: u16,
    threads: usize,
) -> Result<()> {
    for kind in [Kind::Wdl, Kind::Distance] {
        let header = Header {
            longest,
            ..Header::for_layer(rules, kind, a, b, BLOCK_ENTRIES)
        };
        let compressed = compress_blocks(&header, value, threads)?;
        let mut index = Vec::with_capacity(compressed.len() * INDEX_ENTRY_LEN);
        let mut end = 0u64;
        for block in &compressed {
            end += block.len() as u64;
            index.extend_from_slice(&end.to_le_bytes());
            index.extend_from_slice(&checksum(block).to_le_bytes());
        }
        let head = header.bytes();
        let sum = checksum(&head);
        let path = dir.join(table_file_name(rules.board, kind, a, b));
        let partial = partial_path(&path);
        let write = || -> std::io::Result<()> {
            let mut file = std::io::BufWriter::new(fs::File::create(&partial)?);
            file.write_all(&head)?;
            file.write_all(&sum.to_le_bytes())?;
            file.write_all(&index)?;
            for block in &compressed {
                file.write_all(block)?;
            }
            file.into_inner()?.sync_all()
        };
        write().with_context(|| format!("writing {}", partial.display()))?;
        fs::rename(&partial, &path)
            .with_context(|| format!("renaming {} to {}", partial.display(), path.display()))?;
    }
    Ok(())
}

/// The longest distance of the `size` values of a layer, on `threads` threads.
pub(super) fn longest_distance(
    size: u64,
    value: &(impl Fn(u64) -> Value + Sync),
    threads: usize,
) -> u16 {
    let threads = threads.max(1) as u64;
    let part = size.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t * part..((t + 1) * part).min(size))
                        .map(|index| value(index).distance)
                        .max()
                        .unwrap_or(0)
                })
            })
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().expect("a counting thread does not panic"))
            .max()
            .unwrap_or(0)
    })
}

/// Compressed blocks with their numbers, as one thread made them.
type NumberedBlocks = Vec<(u64, Vec<u8>)>;

/// Every block of a file compressed, in order, on `threads` threads.
fn compress_blocks(
    header: &Header,
    value: &(impl Fn(u64) -> Value + Sync),
    threads: usize,
) -> Result<Vec<Vec<u8>>> {
    let blocks = header.blocks;
    let next = std::sync::atomic::AtomicU64::new(0);
    let results: Vec<Result<NumberedBlocks>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<NumberedBlocks> {
                    let mut compressor = zstd::bulk::Compressor::new(ZSTD_LEVEL)?;
                    let mut entries = Vec::with_capacity(BLOCK_ENTRIES);
                    let mut cares = Vec::with_capacity(BLOCK_ENTRIES);
                    let mut done = Vec::new();
                    loop {
                        let block = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if block >= blocks {
                            return Ok(done);
                        }
                        block_entries(
                            header.board,
                            (header.a, header.b),
                            header.kind,
                            block,
                            value,
                            &mut cares,
                            &mut entries,
                        );
                        let mut bytes = match header.kind.codec() {
                            LZ4 => lz4_flex::compress(&entries),
                            _ => compressor.compress(&entries)?,
                        };
                        // Both compressors allocate for the worst case, several times what
                        // a block takes: kept as it came, a layer's blocks would hold
                        // gigabytes until the file is written.
                        bytes.shrink_to_fit();
                        done.push((block, bytes));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a compressing thread does not panic"))
            .collect()
    });
    let mut all = Vec::with_capacity(blocks as usize);
    for result in results {
        all.extend(result.context("compressing a block")?);
    }
    all.sort_unstable_by_key(|&(block, _)| block);
    Ok(all.into_iter().map(|(_, bytes)| bytes).collect())
}

/// A layer file opened through a memory map: its header and block index checked, its
/// blocks read (and their checksums verified) only when decoded.
pub(super) struct TableFile {
    map: Mmap,
    blocks: u64,
    entries: u64,
    block_entries: usize,
    kind: Kind,
    codec: u8,
    longest: u16,
    /// Where the first block starts.
    data_at: usize,
    /// The file's path, for messages.
    name: String,
    /// A bit a block, set once the block has passed its checksum: the file never changes
    /// under its map, so a block decoded again (after the probe cache dropped it) is not
    /// summed again.
    verified: Vec<AtomicU64>,
    /// A bit a block, set on its second use: read straight from the compressed bytes twice
    /// (see [`TableFile::early_use_entry`]), a block is decoded whole on its third.
    used_twice: Vec<AtomicU64>,
}

/// `path` opened for reading when it is a regular file; `Ok(None)` when nothing has that
/// name, an error for anything else (a FIFO, a device, a folder, no permission).
pub(super) fn open_regular(path: &Path) -> Result<Option<fs::File>> {
    // Without blocking, so that a FIFO under the name cannot hang the reader; what was
    // opened is then checked to be a regular file before anything is read or mapped, so
    // that a link to an endless device is not read either.
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let name = path.display();
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("opening {name}")),
    };
    let metadata = file.metadata().with_context(|| format!("reading {name}"))?;
    if !metadata.is_file() {
        bail!("{name}: not a regular file");
    }
    Ok(Some(file))
}

/// Asks the kernel to start reading the pages that opening `layers`' files in `dir` reads
/// (each header, and the block index's last entry), all at once and without waiting, so
/// that a set not in the page cache is opened after about one disk read instead of one
/// after the other. Files that are not there or not regular are passed over: opening
/// them says what is wrong.
pub(super) fn prefetch_headers(dir: &Path, rules: &Rules, layers: &[(usize, usize)]) {
    #[cfg(target_os = "linux")]
    for &(a, b) in layers {
        for kind in [Kind::Wdl, Kind::Distance] {
            let path = dir.join(table_file_name(rules.board, kind, a, b));
            let Ok(Some(file)) = open_regular(&path) else {
                continue;
            };
            let blocks = layer_size(rules.board, a, b).div_ceil(BLOCK_ENTRIES as u64) as i64;
            let last_entry = HEADER_LEN as i64 + (blocks - 1).max(0) * INDEX_ENTRY_LEN as i64;
            let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
            // Safety: a hint on an open descriptor; it reads nothing into this process.
            unsafe {
                libc::posix_fadvise(fd, 0, HEADER_LEN as i64, libc::POSIX_FADV_WILLNEED);
                libc::posix_fadvise(
                    fd,
                    last_entry,
                    INDEX_ENTRY_LEN as i64,
                    libc::POSIX_FADV_WILLNEED,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (dir, rules, layers);
}

impl TableFile {
    /// Opens layer `(a, b)`'s file of `kind` in `dir` for `rules`; `Ok(None)` when there is
    /// none. A file of another version, board, rule set or layer, a truncated one or one
    /// whose header or index fails its checksum is an error naming the file.
    pub(super) fn open(
        dir: &Path,
        rules: &Rules,
        kind: Kind,
        a: usize,
        b: usize,
    ) -> Result<Option<TableFile>> {
        let path: PathBuf = dir.join(table_file_name(rules.board, kind, a, b));
        let Some(file) = open_regular(&path)? else {
            return Ok(None);
        };
        let name = path.display().to_string();
        let length = file
            .metadata()
            .with_context(|| format!("reading {name}"))?
            .len();
        if length < HEADER_LEN as u64 {
            bail!("{name}: truncated (no whole header)");
        }
        // Safety: the file is a regular file that Vato wrote through a temporary name and
        // never changes in place; a file cut short under a live map would fault, which is
        // why the length is checked against the index before any block is touched.
        let map = unsafe { Mmap::map(&file) }.with_context(|| format!("mapping {name}"))?;
        let header = &map[..HEADER_LEN];
        if header[..8] != MAGIC {
            bail!("{name}: not a Vato tablebase file");
        }
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4"));
        let long = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8"));
        if word(8) != FORMAT_VERSION {
            bail!(
                "{name}: format version {} (this Vato reads {FORMAT_VERSION}; `vato tablebase \
                 convert` turns version 2 sets into it)",
                word(8)
            );
        }
        let block_entries = word(32) as usize;
        if !block_entries.is_power_of_two() || !BLOCK_ENTRIES_RANGE.contains(&block_entries) {
            bail!("{name}: damaged header (blocks of {block_entries} entries)");
        }
        let expected = Header::for_layer(rules, kind, a, b, block_entries);
        let blocks = long(40);
        if blocks != expected.blocks || long(24) != expected.entries {
            bail!("{name}: damaged header (wrong size)");
        }
        let index_len = blocks as usize * INDEX_ENTRY_LEN;
        if (length as usize) < HEADER_LEN + index_len {
            bail!("{name}: truncated (no whole block index)");
        }
        let index = &map[HEADER_LEN..HEADER_LEN + index_len];
        if checksum(&header[..CHECKSUM_AT]) != long(CHECKSUM_AT) {
            bail!("{name}: checksum mismatch in the header");
        }
        if header[13] != board_code(rules.board) {
            bail!("{name}: built for another board");
        }
        if header[14] != chain_rule_code(rules.chain_rule) {
            bail!("{name}: built for another chain rule");
        }
        if header[12] != kind.code() || (usize::from(header[15]), usize::from(header[16])) != (a, b)
        {
            bail!(
                "{name}: holds another table (layer {}v{}, kind {})",
                header[15],
                header[16],
                header[12]
            );
        }
        let codec = header[17];
        if codec != ZSTD && codec != LZ4 {
            bail!("{name}: blocks of another kind (compression {codec})");
        }
        let data_at = HEADER_LEN + index_len;
        let data_len = if blocks == 0 {
            0
        } else {
            u64::from_le_bytes(index[index_len - 16..index_len - 8].try_into().expect("8"))
        };
        if length != data_at as u64 + data_len {
            bail!(
                "{name}: truncated or too long ({length} bytes, the index says {})",
                data_at as u64 + data_len
            );
        }
        let longest = u16::from_le_bytes([header[48], header[49]]);
        Ok(Some(TableFile {
            map,
            blocks,
            entries: expected.entries,
            block_entries,
            kind,
            codec,
            longest,
            data_at,
            name,
            verified: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            used_twice: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }))
    }

    /// The file's path, for messages.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Blocks in the file.
    pub(super) fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The layer's longest distance (turns to a capture or the end), as the header says.
    pub(super) fn longest(&self) -> u16 {
        self.longest
    }

    /// Entries per block (the last block may hold fewer).
    pub(super) fn block_entries(&self) -> usize {
        self.block_entries
    }

    /// The indices that block `block` holds.
    pub(super) fn block_range(&self, block: u64) -> std::ops::Range<u64> {
        let start = block * self.block_entries as u64;
        start..(start + self.block_entries as u64).min(self.entries)
    }

    /// The end offset and checksum of block `block`, from the index.
    fn index_entry(&self, block: u64) -> (u64, u64) {
        let at = HEADER_LEN + block as usize * INDEX_ENTRY_LEN;
        let field =
            |from: usize| u64::from_le_bytes(self.map[from..from + 8].try_into().expect("8"));
        (field(at), field(at + 8))
    }

    /// Whether block `block`'s checksum was checked: it was used before.
    fn is_verified(&self, block: u64) -> bool {
        let (word, bit) = block_bit(&self.verified, block);
        word.load(Ordering::Relaxed) & bit != 0
    }

    /// The compressed bytes of block `block`, its checksum checked on its first use.
    fn checked_bytes(&self, block: u64) -> Result<&[u8]> {
        let start = if block == 0 {
            0
        } else {
            self.index_entry(block - 1).0
        };
        let (end, sum) = self.index_entry(block);
        if start > end || self.data_at as u64 + end > self.map.len() as u64 {
            bail!("{}: block {block} is damaged", self.name);
        }
        let bytes = &self.map[self.data_at + start as usize..self.data_at + end as usize];
        if !self.is_verified(block) {
            if checksum(bytes) != sum {
                bail!("{}: block {block} fails its checksum", self.name);
            }
            let (word, bit) = block_bit(&self.verified, block);
            word.fetch_or(bit, Ordering::Relaxed);
        }
        Ok(bytes)
    }

    /// Entry `offset` of block `block` read straight from its compressed bytes, on the
    /// block's first two uses only (see [`super::lz4_point`]): most blocks a search meets,
    /// it meets once or twice, and a block met more often is worth decoding whole and
    /// keeping. `Ok(None)` when the block was used twice before, is not LZ4, or is too long
    /// to read this way.
    pub(super) fn early_use_entry(&self, block: u64, offset: usize) -> Result<Option<u8>> {
        if self.codec != LZ4 {
            return Ok(None);
        }
        if self.is_verified(block) {
            let (word, bit) = block_bit(&self.used_twice, block);
            if word.fetch_or(bit, Ordering::Relaxed) & bit != 0 {
                return Ok(None);
            }
        }
        let bytes = self.checked_bytes(block)?;
        let byte = offset * self.kind.entry_bits() / 8;
        match byte_at(bytes, byte) {
            Found::Byte(value) => Ok(Some(
                self.kind
                    .entry_in(&[value], offset % (8 / self.kind.entry_bits())),
            )),
            Found::TooLong => Ok(None),
            Found::Damaged => bail!("{}: block {block} is damaged", self.name),
        }
    }

    /// Decodes block `block` into `out` (its entries, [`TableFile::block_entries`] but for
    /// the last),
    /// verifying its checksum first; an error names the file and the block.
    pub(super) fn decode_block(
        &self,
        block: u64,
        decompressor: &mut zstd::bulk::Decompressor<'_>,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let bytes = self.checked_bytes(block)?;
        let entries = self.kind.decoded_len(self.block_range(block).count()) as u64;
        let damaged = || format!("{}: block {block} is damaged", self.name);
        if self.codec == LZ4 {
            // Every byte is written by the decoder: a buffer of the right length (the
            // cache's slots hold one) is not cleared first.
            out.resize(entries as usize, 0);
            let n = lz4_flex::decompress_into(bytes, out).with_context(damaged)?;
            if n as u64 != entries {
                bail!("{}", damaged());
            }
            return Ok(());
        }
        out.clear();
        out.reserve(self.kind.decoded_len(self.block_entries));
        let n = decompressor
            .decompress_to_buffer(bytes, out)
            .with_context(damaged)?;
        if n as u64 != entries {
            bail!("{}", damaged());
        }
        Ok(())
    }

    /// Decodes every block, verifying its checksum, and checks every entry as a probe
    /// would read it (a value file holds no code 3): the first bad block or entry as the
    /// error. One block in memory at a time.
    pub(super) fn check_every_entry(&self) -> Result<()> {
        let mut decompressor = zstd::bulk::Decompressor::new().context("starting zstd")?;
        let mut decoded = Vec::new();
        for block in 0..self.blocks {
            self.decode_block(block, &mut decompressor, &mut decoded)?;
            let range = self.block_range(block);
            if let Some(offset) = self
                .kind
                .first_without_value(&decoded, range.clone().count())
            {
                bail!(
                    "{}: block {block}, entry {} holds {}, no value",
                    self.name,
                    range.start + offset as u64,
                    self.kind.entry_in(&decoded, offset)
                );
            }
        }
        Ok(())
    }
}

/// Whether both files of layer `(a, b)` are in `dir` with valid headers (their blocks are
/// checked when read).
pub(super) fn layer_built(dir: &Path, rules: &Rules, a: usize, b: usize) -> Result<bool> {
    let wdl = TableFile::open(dir, rules, Kind::Wdl, a, b)?;
    let distance = TableFile::open(dir, rules, Kind::Distance, a, b)?;
    Ok(wdl.is_some() && distance.is_some())
}
