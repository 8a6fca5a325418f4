//! Vato's own book file: a header, fixed-size entries sorted by position key (found by
//! binary search in a memory map), and the turns' text. `docs/book-format.md` gives it
//! byte by byte.

use super::contents::{BookContents, BookRules, BookTurn};
use super::text::read_text;
use crate::key_search::partition_point;
use crate::rules::board::Board;
use crate::rules::position::Color;
use crate::rules::{ChainRule, TurnRules};
use crate::safe_file::checksum;
use anyhow::{Context, Result, bail};
use memmap2::Mmap;
use std::path::Path;

/// The version of the book file format written and read.
pub const BOOK_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"VATOBOOK";
const HEADER_BYTES: usize = 64;
const ENTRY_BYTES: usize = 20;
/// A book file larger than this is refused: no opening book comes near it.
const MAX_FILE_BYTES: u64 = 1 << 32;

/// The bytes of a book file holding `contents`.
pub fn encode(contents: &BookContents) -> Vec<u8> {
    let mut entries = Vec::with_capacity(contents.turn_count() * ENTRY_BYTES);
    let mut text = Vec::new();
    let mut positions = 0u64;
    for (&key, turns) in &contents.positions {
        let before = entries.len();
        for turn in turns {
            // Turns longer than a byte can count are not offered (no opening turn is).
            let Ok(length) = u8::try_from(turn.turn.len()) else {
                continue;
            };
            entries.extend_from_slice(&key.to_le_bytes());
            entries.extend_from_slice(&(text.len() as u32).to_le_bytes());
            entries.extend_from_slice(&turn.weight.to_le_bytes());
            entries.extend_from_slice(&turn.score.to_le_bytes());
            entries.push(turn.depth);
            entries.push(length);
            entries.extend_from_slice(&[0, 0]);
            text.extend_from_slice(turn.turn.as_bytes());
        }
        positions += u64::from(entries.len() > before);
    }
    let mut body = entries;
    let entry_count = body.len() / ENTRY_BYTES;
    body.extend_from_slice(&text);
    let mut header = [0u8; HEADER_BYTES];
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&BOOK_VERSION.to_le_bytes());
    let [board, chain, vela] = rule_bytes(contents.rules);
    header[12] = board;
    header[13] = chain;
    header[14] = vela;
    header[16..24].copy_from_slice(&(entry_count as u64).to_le_bytes());
    header[24..32].copy_from_slice(&(text.len() as u64).to_le_bytes());
    header[32..40].copy_from_slice(&checksum(&body).to_le_bytes());
    header[40..48].copy_from_slice(&positions.to_le_bytes());
    let mut bytes = header.to_vec();
    bytes.extend_from_slice(&body);
    bytes
}

fn rule_bytes(rules: BookRules) -> [u8; 3] {
    let board = match rules.board {
        Board::Tsivy => 0,
        Board::Dimy => 1,
    };
    let chain = match rules.turn_rules.chain_rule {
        ChainRule::Optional => 0,
        ChainRule::Mandatory => 1,
    };
    let vela = match rules.turn_rules.vela {
        None => 0,
        Some(Color::White) => 1,
        Some(Color::Black) => 2,
    };
    [board, chain, vela]
}

fn rules_of(bytes: [u8; 3]) -> Option<BookRules> {
    let board = match bytes[0] {
        0 => Board::Tsivy,
        1 => Board::Dimy,
        _ => return None,
    };
    let chain_rule = match bytes[1] {
        0 => ChainRule::Optional,
        1 => ChainRule::Mandatory,
        _ => return None,
    };
    let vela = match bytes[2] {
        0 => None,
        1 => Some(Color::White),
        2 => Some(Color::Black),
        _ => return None,
    };
    Some(BookRules {
        board,
        turn_rules: TurnRules { chain_rule, vela },
    })
}

enum Storage {
    Static(&'static [u8]),
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Static(bytes) => bytes,
            Storage::Mapped(map) => map,
            Storage::Owned(bytes) => bytes,
        }
    }
}

/// A book file, checked whole when opened and then read in place.
pub struct Book {
    storage: Storage,
    rules: BookRules,
    entries: usize,
    positions: usize,
    name: String,
}

impl Book {
    /// Maps and checks the book file at `path`; the error says in one line what is wrong.
    pub fn open(path: &Path) -> Result<Book> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
        let metadata = file
            .metadata()
            .with_context(|| format!("cannot read {name}"))?;
        if !metadata.is_file() {
            bail!("{name} is not a regular file");
        }
        if metadata.len() > MAX_FILE_BYTES {
            bail!("{name} is too large for a book ({} bytes)", metadata.len());
        }
        // SAFETY: the map is read-only; a file changed under it is read as it is, and its
        // entries are checked against the text's bounds on every read.
        let map = unsafe { Mmap::map(&file) }.with_context(|| format!("cannot map {name}"))?;
        Book::check(Storage::Mapped(map), name)
    }

    /// Reads a book in either form: Vato's file (known by its first bytes), mapped, or the
    /// web interface's text, read for `rules`. A book for other rules is refused.
    pub fn open_any(path: &Path, rules: BookRules) -> Result<Book> {
        let name = path.display().to_string();
        let mut start = [0u8; 8];
        let read = std::fs::File::open(path)
            .and_then(|mut file| std::io::Read::read(&mut file, &mut start))
            .with_context(|| format!("cannot read {name}"))?;
        let book = if read == start.len() && &start == MAGIC {
            Book::open(path)?
        } else {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{name} is neither a Vato book nor text"))?;
            let contents = read_text(&text, rules).with_context(|| name.clone())?;
            Book::check(Storage::Owned(encode(&contents.contents)), name)?
        };
        if book.rules() != rules {
            bail!(
                "{} is a book for {}, not for {rules}",
                book.name,
                book.rules()
            );
        }
        Ok(book)
    }

    /// A book held in the program (the built-in one).
    pub fn from_static(bytes: &'static [u8], name: &str) -> Result<Book> {
        Book::check(Storage::Static(bytes), name.to_string())
    }

    fn check(storage: Storage, name: String) -> Result<Book> {
        let bytes = storage.bytes();
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            bail!("{name} is not a Vato book file");
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != BOOK_VERSION {
            bail!(
                "{name} is a book of format version {version}; this Vato reads version {BOOK_VERSION}"
            );
        }
        let Some(rules) = rules_of([bytes[12], bytes[13], bytes[14]]) else {
            bail!("{name}: its header names rules this Vato does not know");
        };
        let (entries, text, sum, positions) = (word(16), word(24), word(32), word(40));
        let expected = entries
            .checked_mul(ENTRY_BYTES as u64)
            .and_then(|n| n.checked_add(text))
            .and_then(|n| n.checked_add(HEADER_BYTES as u64));
        if expected != Some(bytes.len() as u64) {
            bail!(
                "{name} is truncated or damaged: {} bytes where its header promises {}",
                bytes.len(),
                expected.map_or("more".into(), |n| n.to_string())
            );
        }
        if checksum(&bytes[HEADER_BYTES..]) != sum {
            bail!("{name} is damaged: its checksum does not match");
        }
        let book = Book {
            rules,
            entries: entries as usize,
            positions: positions as usize,
            name,
            storage,
        };
        book.check_entries()?;
        Ok(book)
    }

    /// Keys in order, every turn's text inside the text and readable, the position count
    /// right: what a writer with a bug (the checksum covers only the bytes) could get wrong.
    fn check_entries(&self) -> Result<()> {
        let mut distinct = 0;
        let mut last = None;
        for at in 0..self.entries {
            let key = self.key_at(at);
            if last.is_some_and(|last| key < last) {
                bail!("{}: entries out of order at entry {at}", self.name);
            }
            if last != Some(key) {
                distinct += 1;
            }
            last = Some(key);
            if self.turn_at(at).is_none() {
                bail!("{}: entry {at} has no readable turn", self.name);
            }
        }
        if distinct != self.positions {
            bail!(
                "{}: {distinct} positions where its header says {}",
                self.name,
                self.positions
            );
        }
        Ok(())
    }

    fn entry_bytes(&self, at: usize) -> &[u8] {
        let start = HEADER_BYTES + at * ENTRY_BYTES;
        &self.storage.bytes()[start..start + ENTRY_BYTES]
    }

    fn key_at(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.entry_bytes(at)[..8].try_into().expect("8 bytes"))
    }

    fn turn_at(&self, at: usize) -> Option<BookTurn> {
        let entry = self.entry_bytes(at);
        let offset = u32::from_le_bytes(entry[8..12].try_into().expect("4 bytes")) as usize;
        let length = entry[17] as usize;
        let text_start = HEADER_BYTES + self.entries * ENTRY_BYTES;
        let text = self.storage.bytes().get(text_start..)?;
        let turn = text.get(offset..offset.checked_add(length)?)?;
        let turn = std::str::from_utf8(turn).ok()?;
        if turn.is_empty() || !turn.is_ascii() {
            return None;
        }
        Some(BookTurn {
            turn: turn.to_string(),
            weight: u16::from_le_bytes([entry[12], entry[13]]),
            score: i16::from_le_bytes([entry[14], entry[15]]),
            depth: entry[16],
        })
    }

    /// The rules the book was built for.
    pub fn rules(&self) -> BookRules {
        self.rules
    }

    /// How many positions the book holds.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// The file's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The turns of the position with hash key `key`, in the order they are offered
    /// (empty when the book does not have it).
    pub fn turns(&self, key: u64) -> Vec<BookTurn> {
        let first = partition_point(self.entries, |at| self.key_at(at) < key);
        (first..self.entries)
            .take_while(|&at| self.key_at(at) == key)
            .filter_map(|at| self.turn_at(at))
            .collect()
    }

    /// The whole book in memory, for export and merging.
    pub fn contents(&self) -> BookContents {
        let mut contents = BookContents::new(self.rules);
        for at in 0..self.entries {
            if let Some(turn) = self.turn_at(at) {
                contents
                    .positions
                    .entry(self.key_at(at))
                    .or_default()
                    .push(turn);
            }
        }
        contents
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> BookContents {
        let mut book = BookContents::default();
        let turn = |text: &str, weight, score| BookTurn {
            turn: text.into(),
            weight,
            score,
            depth: 9,
        };
        book.add(5, [turn("f2e3A", 100, 39), turn("d3e3W", 0, -106)]);
        book.add(u64::MAX, [turn("c3d3A", 60, -12)]);
        book.add(1, [turn("e2e3A", 1, 0)]);
        book
    }

    #[test]
    fn a_position_without_turns_is_not_written() {
        let mut book = sample();
        book.positions.insert(9, Vec::new());
        let read = open_bytes(encode(&book)).unwrap();
        assert_eq!(read.positions(), 3);
        assert_eq!(read.contents(), sample());
    }

    fn open_bytes(bytes: Vec<u8>) -> Result<Book> {
        Book::from_static(Box::leak(bytes.into_boxed_slice()), "test.book")
    }

    #[test]
    fn a_written_book_reads_back_the_same() {
        let book = open_bytes(encode(&sample())).unwrap();
        assert_eq!(book.positions(), 3);
        assert_eq!(book.contents(), sample());
        assert_eq!(book.turns(5), sample().positions[&5]);
        assert!(book.turns(4).is_empty());
        assert!(book.turns(6).is_empty());
        assert_eq!(book.turns(u64::MAX).len(), 1);
    }

    #[test]
    fn every_damaged_byte_is_refused_in_one_line() {
        let bytes = encode(&sample());
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            // Reserved header bytes are not read; all others are checked.
            if (15..16).contains(&at) || (48..64).contains(&at) {
                continue;
            }
            let error = match open_bytes(damaged) {
                Ok(_) => panic!("a flip at byte {at} went unnoticed"),
                Err(e) => format!("{e:#}"),
            };
            assert!(!error.contains('\n'), "{error}");
            assert!(error.starts_with("test.book"), "{error}");
        }
        for length in [0, 10, 63, bytes.len() - 1] {
            assert!(open_bytes(bytes[..length].to_vec()).is_err());
        }
    }
}
