//! The builder's journal: every position searched so far, one line each, appended as soon
//! as its search ends, so that a stopped build goes on where it stopped. Each line carries
//! a checksum: a line cut short by a crash, or damaged, is dropped and searched again.
//!
//! A line: the position (FEN), the depth, the lines asked for (MultiPV), the lines found
//! as `turn score` pairs best first, and the checksum of all that, tab-separated.

use crate::rules::board::Board;
use crate::rules::fen::parse_position_on;
use crate::rules::position::Position;
use crate::safe_file::checksum;
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What one search of a book position found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The depth searched to.
    pub depth: u8,
    /// The lines asked for (the search may find fewer: there may be fewer turns).
    pub lines_asked: u8,
    /// The lines found, best first: the first turn of each and its score in centi-stones.
    pub lines: Vec<(String, i16)>,
}

/// The journal of a build, open for appending.
pub struct Journal {
    file: File,
    path: PathBuf,
}

/// What an opened journal held.
pub struct Loaded {
    /// The searches done at the depth and lines asked for now, by position key.
    pub searched: HashMap<u64, Searched>,
    /// Lines dropped: cut short, damaged, or of other settings.
    pub dropped: usize,
}

impl Journal {
    /// Opens (or starts) the journal at `path` and reads the searches it holds that were
    /// made at `depth` with `lines_asked` lines, for positions on `board`.
    pub fn open(
        path: &Path,
        board: Board,
        depth: u8,
        lines_asked: u8,
    ) -> Result<(Journal, Loaded)> {
        let name = path.display();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("cannot open the journal {name}"))?;
        let mut text = Vec::new();
        file.read_to_end(&mut text)
            .with_context(|| format!("cannot read the journal {name}"))?;
        // A line cut short by a crash is ended, so that the next line starts afresh.
        if text.last().is_some_and(|&b| b != b'\n') {
            file.write_all(b"\n")
                .with_context(|| format!("cannot write the journal {name}"))?;
        }
        let mut loaded = Loaded {
            searched: HashMap::new(),
            dropped: 0,
        };
        for line in String::from_utf8_lossy(&text).lines() {
            match parse_line(line, board) {
                Some((key, searched))
                    if searched.depth == depth && searched.lines_asked == lines_asked =>
                {
                    loaded.searched.insert(key, searched);
                }
                _ => loaded.dropped += 1,
            }
        }
        Ok((
            Journal {
                file,
                path: path.to_path_buf(),
            },
            loaded,
        ))
    }

    /// Appends the search of `position`, written through at once.
    pub fn append(&mut self, position: &Position, searched: &Searched) -> Result<()> {
        let line = format_line(position, searched);
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .with_context(|| format!("cannot write the journal {}", self.path.display()))
    }
}

fn format_line(position: &Position, searched: &Searched) -> String {
    let pairs: Vec<String> = searched
        .lines
        .iter()
        .map(|(turn, score)| format!("{turn} {score}"))
        .collect();
    let body = format!(
        "{position}\t{}\t{}\t{}",
        searched.depth,
        searched.lines_asked,
        pairs.join(" ")
    );
    format!("{body}\t{:016x}\n", checksum(body.as_bytes()))
}

fn parse_line(line: &str, board: Board) -> Option<(u64, Searched)> {
    let (body, sum) = line.rsplit_once('\t')?;
    if u64::from_str_radix(sum, 16).ok()? != checksum(body.as_bytes()) {
        return None;
    }
    let mut fields = body.split('\t');
    let position = parse_position_on(board, fields.next()?).ok()?;
    let depth = fields.next()?.parse().ok()?;
    let lines_asked = fields.next()?.parse().ok()?;
    let words: Vec<&str> = fields.next()?.split_whitespace().collect();
    if fields.next().is_some() || !words.len().is_multiple_of(2) {
        return None;
    }
    let lines = words
        .chunks(2)
        .map(|pair| Some((pair[0].to_string(), pair[1].parse().ok()?)))
        .collect::<Option<Vec<_>>>()?;
    Some((
        position.key(),
        Searched {
            depth,
            lines_asked,
            lines,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_keeps_its_lines_and_drops_a_torn_one() {
        let dir = std::env::temp_dir().join(format!("vato-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.journal");
        let _ = std::fs::remove_file(&path);
        let start = Position::start();
        let searched = Searched {
            depth: 7,
            lines_asked: 3,
            lines: vec![("f2e3A".into(), 39), ("d3e3W".into(), -106)],
        };
        {
            let (mut journal, loaded) = Journal::open(&path, Board::Tsivy, 7, 3).unwrap();
            assert!(loaded.searched.is_empty());
            journal.append(&start, &searched).unwrap();
        }
        // A crash in the middle of the next line.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"4w5/9/9/9/9 w 1\t7\t3\tf2e3A 3").unwrap();
        let (mut journal, loaded) = Journal::open(&path, Board::Tsivy, 7, 3).unwrap();
        assert_eq!(loaded.searched.get(&start.key()), Some(&searched));
        assert_eq!(loaded.dropped, 1);
        journal.append(&start.flip(), &searched).unwrap();
        let (_, loaded) = Journal::open(&path, Board::Tsivy, 7, 3).unwrap();
        assert_eq!(loaded.searched.len(), 2);
        // Other settings: nothing to reuse.
        let (_, loaded) = Journal::open(&path, Board::Tsivy, 8, 3).unwrap();
        assert!(loaded.searched.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
