//! Training data files: scored positions in checksummed chunks.
//!
//! A file is a sequence of chunks, each a header and up to [`CHUNK_RECORDS`] records of
//! [`RECORD_LEN`] bytes; files written by separate runs can be joined with `cat`. The format
//! is described in `docs/training-data.md`.

use crate::rules::bitboard::Bitboard;
use crate::rules::position::{Color, Position};
use crate::safe_file::{Checksum, legacy_fnv1a, partial_path};
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Identifies data chunks.
const MAGIC: [u8; 8] = *b"VATODATA";
/// Bump when the layout or the meaning of a field changes. Version 2: chunks are summed
/// with XXH3-64 instead of FNV-1a; chunks of version 1 still read (a file joined from old
/// and new runs holds both).
pub const FORMAT_VERSION: u32 = 2;
/// The oldest chunk version read.
const OLDEST_VERSION: u32 = 1;
/// Bytes per record.
pub const RECORD_LEN: usize = 16;
/// Bytes per chunk header: magic, version, record length, record count, checksum.
const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 8;
/// Where the checksum sits in the header; the bytes before it and the records are summed.
const CHECKSUM_AT: usize = HEADER_LEN - 8;
/// Records per full chunk: about 1 MiB, so that an interrupted run loses little.
pub const CHUNK_RECORDS: usize = 1 << 16;

/// How the game that a position came from ended, for the side to move in it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The side to move lost.
    Loss = 0,
    /// Drawn.
    Draw = 1,
    /// The side to move won.
    Win = 2,
}

impl GameResult {
    /// 0, 1/2 or 1: the expected score of the side to move.
    pub fn score(self) -> f32 {
        f32::from(self as u8) / 2.0
    }

    /// The result seen by the other side.
    pub fn opposite(self) -> GameResult {
        match self {
            GameResult::Loss => GameResult::Win,
            GameResult::Draw => GameResult::Draw,
            GameResult::Win => GameResult::Loss,
        }
    }
}

/// One scored position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    /// White's stones.
    pub white: Bitboard,
    /// Black's stones.
    pub black: Bitboard,
    /// The side to move.
    pub side_to_move: Color,
    /// The search's score, hundredths of a stone for the side to move.
    pub score: i16,
    /// How the game ended for the side to move, or the exact value from the tables.
    pub result: GameResult,
    /// True when `result` is the tables' exact value rather than the game's end.
    pub from_tablebase: bool,
}

impl Record {
    /// The stones of the side to move and of the other side.
    pub fn us_them(&self) -> (Bitboard, Bitboard) {
        match self.side_to_move {
            Color::White => (self.white, self.black),
            Color::Black => (self.black, self.white),
        }
    }

    /// The record as 16 little-endian bytes: white's points in bits 0-44, black's in 45-89,
    /// black to move in bit 90, the result in bits 91-92, the tablebase flag in bit 93, the
    /// score in bits 96-111.
    pub fn encode(&self) -> [u8; RECORD_LEN] {
        let mut word = u128::from(self.white.bits()) | u128::from(self.black.bits()) << 45;
        word |= u128::from(self.side_to_move == Color::Black) << 90;
        word |= (self.result as u128) << 91;
        word |= u128::from(self.from_tablebase) << 93;
        word |= u128::from(self.score as u16) << 96;
        word.to_le_bytes()
    }

    /// Reads a record back; `None` when the bytes cannot be one (overlapping stones, a
    /// result code that does not exist, bits that must be clear).
    pub fn decode(bytes: [u8; RECORD_LEN]) -> Option<Record> {
        let word = u128::from_le_bytes(bytes);
        let points = |shift: u32| (word >> shift) as u64 & Bitboard::ALL.bits();
        let (white, black) = (points(0), points(45));
        let result = match (word >> 91) & 3 {
            0 => GameResult::Loss,
            1 => GameResult::Draw,
            2 => GameResult::Win,
            _ => return None,
        };
        let reserved = (word >> 94) & 3 != 0 || word >> 112 != 0;
        if white & black != 0 || reserved {
            return None;
        }
        Some(Record {
            white: Bitboard::from_bits(white),
            black: Bitboard::from_bits(black),
            side_to_move: if (word >> 90) & 1 == 1 {
                Color::Black
            } else {
                Color::White
            },
            result,
            from_tablebase: (word >> 93) & 1 == 1,
            score: (word >> 96) as u16 as i16,
        })
    }

    /// The record's position (counters zero: they are not recorded).
    pub fn position(&self) -> Position {
        Position::new(self.white, self.black, self.side_to_move, 0, 1)
            .expect("decoded records have disjoint stones of legal counts")
    }
}

/// The checksum of a chunk of `version` over its header's fields and its records.
fn checksum(version: u32, header: &[u8], records: &[u8]) -> u64 {
    if version == OLDEST_VERSION {
        return legacy_fnv1a(&[&header[..CHECKSUM_AT], records]);
    }
    Checksum::default()
        .update(&header[..CHECKSUM_AT])
        .update(records)
        .finish()
}

fn chunk_bytes(records: &[Record]) -> Vec<u8> {
    let mut body = Vec::with_capacity(records.len() * RECORD_LEN);
    for record in records {
        body.extend_from_slice(&record.encode());
    }
    let mut bytes = Vec::with_capacity(HEADER_LEN + body.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(RECORD_LEN as u32).to_le_bytes());
    bytes.extend_from_slice(&(records.len() as u64).to_le_bytes());
    let sum = checksum(FORMAT_VERSION, &bytes, &body);
    bytes.extend_from_slice(&sum.to_le_bytes());
    bytes.extend_from_slice(&body);
    bytes
}

/// Writes a data file: whole chunks to a temporary name beside the target, renamed to it by
/// [`DataWriter::finish`], so that an interrupted run never leaves a file that looks whole.
pub struct DataWriter {
    path: PathBuf,
    temporary: PathBuf,
    out: BufWriter<File>,
    pending: Vec<Record>,
    written: u64,
}

impl DataWriter {
    /// Starts writing to `path` (through `path` + `.partial`).
    pub fn create(path: &Path) -> Result<DataWriter> {
        let temporary = partial_path(path);
        let file = File::create(&temporary)
            .with_context(|| format!("cannot create {}", temporary.display()))?;
        Ok(DataWriter {
            path: path.to_path_buf(),
            temporary,
            out: BufWriter::new(file),
            pending: Vec::with_capacity(CHUNK_RECORDS),
            written: 0,
        })
    }

    /// Adds a record; a full chunk goes to the file.
    pub fn push(&mut self, record: Record) -> Result<()> {
        self.pending.push(record);
        if self.pending.len() == CHUNK_RECORDS {
            self.flush_chunk()?;
        }
        Ok(())
    }

    /// Records pushed so far.
    pub fn count(&self) -> u64 {
        self.written + self.pending.len() as u64
    }

    fn flush_chunk(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.out
            .write_all(&chunk_bytes(&self.pending))
            .with_context(|| format!("cannot write {}", self.temporary.display()))?;
        self.written += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// Writes the last chunk, syncs and renames the file to its name; returns the count.
    pub fn finish(mut self) -> Result<u64> {
        self.flush_chunk()?;
        self.out
            .flush()
            .with_context(|| format!("cannot write {}", self.temporary.display()))?;
        self.out.get_ref().sync_all()?;
        std::fs::rename(&self.temporary, &self.path).with_context(|| {
            format!(
                "cannot rename {} to {}",
                self.temporary.display(),
                self.path.display()
            )
        })?;
        Ok(self.written)
    }
}

/// Reads every record of a data file, checking each chunk; a damaged, truncated or foreign
/// file is refused with one line saying where and why.
pub fn read_file(path: &Path) -> Result<Vec<Record>> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .with_context(|| format!("cannot read {}", path.display()))?;
    parse(&bytes).with_context(|| format!("{} is not usable training data", path.display()))
}

/// Reads records from the bytes of a data file.
pub fn parse(bytes: &[u8]) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    let mut at = 0usize;
    let mut chunk = 0usize;
    if bytes.is_empty() {
        bail!("the file is empty");
    }
    while at < bytes.len() {
        let header = &bytes[at..];
        if header.len() < HEADER_LEN || header[..8] != MAGIC {
            if chunk == 0 && (header.len() < 8 || header[..8] != MAGIC) {
                bail!("not a Vato training data file (no VATODATA header)");
            }
            bail!("chunk {chunk} at byte {at}: damaged or truncated header");
        }
        let field = |from: usize| u32::from_le_bytes(header[from..from + 4].try_into().unwrap());
        let version = field(8);
        if !(OLDEST_VERSION..=FORMAT_VERSION).contains(&version) {
            bail!(
                "chunk {chunk}: format version {version}, this Vato reads {OLDEST_VERSION} to \
                 {FORMAT_VERSION}"
            );
        }
        if field(12) as usize != RECORD_LEN {
            bail!(
                "chunk {chunk}: records of {} bytes, expected {RECORD_LEN}",
                field(12)
            );
        }
        let count = u64::from_le_bytes(header[16..24].try_into().unwrap());
        let stored = u64::from_le_bytes(header[24..32].try_into().unwrap());
        let body_len = (count as usize).checked_mul(RECORD_LEN);
        let body = match body_len {
            Some(len) if count as usize <= CHUNK_RECORDS && header.len() - HEADER_LEN >= len => {
                &header[HEADER_LEN..HEADER_LEN + len]
            }
            _ => bail!("chunk {chunk} at byte {at}: truncated ({count} records announced)"),
        };
        if checksum(version, header, body) != stored {
            bail!("chunk {chunk} at byte {at}: checksum mismatch (the data is damaged)");
        }
        for (i, raw) in body.chunks_exact(RECORD_LEN).enumerate() {
            let record = Record::decode(raw.try_into().unwrap());
            match record {
                Some(record) => records.push(record),
                None => bail!("chunk {chunk}, record {i}: not a valid position record"),
            }
        }
        at += HEADER_LEN + body.len();
        chunk += 1;
    }
    Ok(records)
}

/// Reads several data files into one list, in order.
pub fn read_files(paths: &[PathBuf]) -> Result<Vec<Record>> {
    let mut all = Vec::new();
    for path in paths {
        all.extend(read_file(path)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse_position;

    fn sample(n: usize) -> Vec<Record> {
        let p = Position::start();
        (0..n)
            .map(|i| Record {
                white: p.stones(Color::White),
                black: Bitboard::from_bits(p.stones(Color::Black).bits() >> (i % 3)),
                side_to_move: if i % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                },
                score: (i as i16).wrapping_mul(37) - 500,
                result: [GameResult::Loss, GameResult::Draw, GameResult::Win][i % 3],
                from_tablebase: i % 5 == 0,
            })
            .filter(|r| r.white & r.black == Bitboard::EMPTY)
            .collect()
    }

    #[test]
    fn records_round_trip() {
        for record in sample(50) {
            assert_eq!(Record::decode(record.encode()), Some(record));
        }
        let p = parse_position("9/9/4W4/9/B8 b").unwrap();
        let r = Record {
            white: p.stones(Color::White),
            black: p.stones(Color::Black),
            side_to_move: Color::Black,
            score: -32768,
            result: GameResult::Win,
            from_tablebase: false,
        };
        assert_eq!(Record::decode(r.encode()), Some(r));
        assert_eq!(r.us_them(), (p.us(), p.them()));
    }

    #[test]
    fn files_round_trip_and_concatenate() {
        let dir = std::env::temp_dir().join(format!("vato-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.vdata"), dir.join("b.vdata"));
        let records = sample(CHUNK_RECORDS + 10);
        let mut w = DataWriter::create(&a).unwrap();
        for &r in &records {
            w.push(r).unwrap();
        }
        assert_eq!(w.finish().unwrap(), records.len() as u64);
        assert!(!dir.join("a.vdata.partial").exists());
        assert_eq!(read_file(&a).unwrap(), records);
        // `cat a a > b` is a valid file holding both.
        let mut twice = std::fs::read(&a).unwrap();
        twice.extend(std::fs::read(&a).unwrap());
        std::fs::write(&b, &twice).unwrap();
        assert_eq!(read_file(&b).unwrap().len(), 2 * records.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn damaged_files_are_refused_in_one_line() {
        let bytes = chunk_bytes(&sample(100));
        let message = |bytes: &[u8]| format!("{:#}", parse(bytes).unwrap_err());
        let mut flipped = bytes.clone();
        flipped[HEADER_LEN + 40] ^= 4;
        assert!(message(&flipped).contains("checksum mismatch"));
        assert!(message(&bytes[..bytes.len() - 3]).contains("truncated"));
        assert!(message(b"hello world, not data").contains("not a Vato training data file"));
        assert!(message(&[]).contains("empty"));
        let mut tail = bytes.clone();
        tail.extend_from_slice(b"junk");
        assert!(message(&tail).contains("chunk 1"));
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(message(&version).contains("format version 9"));
        // A chunk of version 1, summed with FNV-1a, still reads, before or after a new one.
        let mut old = bytes.clone();
        old[8] = 1;
        let sum = legacy_fnv1a(&[&old[..CHECKSUM_AT], &old[HEADER_LEN..]]);
        old[CHECKSUM_AT..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
        let mut joined = old.clone();
        joined.extend_from_slice(&bytes);
        assert_eq!(
            parse(&joined).unwrap().len(),
            2 * parse(&bytes).unwrap().len()
        );
        old[HEADER_LEN + 40] ^= 4;
        assert!(message(&old).contains("checksum mismatch"));
        for m in [message(&flipped), message(&tail)] {
            assert!(!m.contains('\n'));
        }
    }
}
