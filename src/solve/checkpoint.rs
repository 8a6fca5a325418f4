//! Checkpoints of a proof: the proof table written to a file now and then, so that a
//! solve stopped by its time, Ctrl-C or a crash goes on from there. The file says which
//! position, rules and question it belongs to, carries a checksum, and is written through
//! a temporary name.
//!
//! Layout (little-endian): `VATOPNS1`, the format version (u32), the board (u8: 0 Tsivy,
//! 1 Dimy), the chain rule (u8: 0 optional, 1 mandatory), the prover (u8: 0 White,
//! 1 Black), the guide's stones (u8: 0 without a guide; `vato solve --guide-stones`),
//! the root's key (u64), the number of entries (u64), the XXH3-64
//! checksum of the entries (u64), the method (u8: 0 df-pn, 1 df-pn where the defender must
//! force its way out, `vato solve --method exits`) and 7 zero bytes, then each entry: key
//! (u64), phi (u32), delta (u32), work (u64). Format 1, without the method and its padding,
//! is read as df-pn's.

use super::codes::{board_code, board_of, chain_code, chain_of, color_code, color_of};
use super::table::{ProofTable, Stored};
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};
use crate::rules::{ChainRule, Rules};
use crate::safe_file::{checksum, write_atomically};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::time::Duration;

const MAGIC: &[u8; 8] = b"VATOPNS1";
const VERSION: u32 = 2;
/// The header of format 1, which had no method.
const HEADER_BYTES_V1: usize = 40;
const HEADER_BYTES: usize = 48;
const ENTRY_BYTES: usize = 24;

/// Where and how often a search saves its table.
#[derive(Copy, Clone, Debug)]
pub struct Checkpoint<'a> {
    /// The checkpoint file.
    pub path: &'a Path,
    /// Time between two saves.
    pub every: Duration,
}

/// Which search a checkpoint belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// The root's key.
    pub root: u64,
    /// The board.
    pub board: Board,
    /// The chain rule.
    pub chain_rule: ChainRule,
    /// The side whose win is being proved.
    pub prover: Color,
    /// The most stones of the guide's tables (0: no guide): the table's values may rest
    /// on the guide's.
    pub guide_stones: u8,
    /// Whether a repetition was the prover's win (`--method exits`): the table's values
    /// answer another question then.
    pub exits: bool,
}

impl Owner {
    /// The owner of the search of `prover`'s win from `root` under `rules`, guided by
    /// tables of up to `guide_stones` stones (0: none), a repetition the prover's win when
    /// `exits`.
    pub fn of(
        root: &Position,
        rules: &Rules,
        prover: Color,
        guide_stones: u8,
        exits: bool,
    ) -> Owner {
        Owner {
            root: root.key(),
            board: rules.board,
            chain_rule: rules.chain_rule,
            prover,
            guide_stones,
            exits,
        }
    }
}

/// The file beside the checkpoint `checkpoint` where a defence being written for its
/// question is saved (see `defence`).
pub fn defence_path(checkpoint: &Path) -> PathBuf {
    let mut name = checkpoint.as_os_str().to_owned();
    name.push(".defence");
    PathBuf::from(name)
}

/// Removes the checkpoint `checkpoint` of a question answered, with its saved defence.
pub fn remove(checkpoint: &Path) {
    for path in [checkpoint.to_path_buf(), defence_path(checkpoint)] {
        let _ = std::fs::remove_file(path);
    }
}

/// Writes `table` as the checkpoint of `owner`.
pub fn save(path: &Path, owner: Owner, table: &ProofTable) -> Result<()> {
    let mut body = Vec::new();
    for (key, phi, delta, order_and_work) in table.stored() {
        body.extend_from_slice(&key.to_le_bytes());
        body.extend_from_slice(&phi.to_le_bytes());
        body.extend_from_slice(&delta.to_le_bytes());
        body.extend_from_slice(&order_and_work.to_le_bytes());
    }
    let mut bytes = Vec::with_capacity(HEADER_BYTES + body.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.push(board_code(owner.board));
    bytes.push(chain_code(owner.chain_rule));
    bytes.push(color_code(owner.prover));
    bytes.push(owner.guide_stones);
    bytes.extend_from_slice(&owner.root.to_le_bytes());
    bytes.extend_from_slice(&((body.len() / ENTRY_BYTES) as u64).to_le_bytes());
    bytes.extend_from_slice(&checksum(&body).to_le_bytes());
    bytes.push(u8::from(owner.exits));
    bytes.extend_from_slice(&[0; 7]);
    bytes.extend_from_slice(&body);
    write_atomically(path, &bytes)
}

/// Reads the checkpoint at `path`: its owner and entries `(key, phi, delta, work)`.
/// `Ok(None)` when there is no such file.
pub fn load(path: &Path) -> Result<Option<(Owner, Vec<Stored>)>> {
    let name = path.display();
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read the checkpoint {name}")),
    };
    // Mapped rather than read, so that a table of GBs is not held twice while its
    // entries are taken out. SAFETY: Vato replaces a checkpoint only by renaming a new
    // file over it, so the mapped file does not change while it is read; a file changed
    // by another program is caught by the checksum, and every read is bounds-checked.
    let bytes = unsafe { memmap2::Mmap::map(&file) }
        .with_context(|| format!("cannot read the checkpoint {name}"))?;
    if bytes.len() < HEADER_BYTES_V1 || &bytes[..8] != MAGIC {
        bail!("{name} is not a solver checkpoint");
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    let header = match version {
        1 => HEADER_BYTES_V1,
        VERSION if bytes.len() >= HEADER_BYTES => HEADER_BYTES,
        VERSION => bail!("{name} is truncated or damaged"),
        _ => bail!("{name}: checkpoint format {version}, this Vato reads 1 and {VERSION}"),
    };
    let exits = match (version, bytes.get(HEADER_BYTES_V1)) {
        (1, _) => false,
        (_, Some(0)) => false,
        (_, Some(1)) => true,
        _ => bail!("{name}: unknown method in the checkpoint"),
    };
    let board = match board_of(bytes[12]) {
        Some(board) => board,
        None => bail!("{name}: unknown board in the checkpoint"),
    };
    let chain_rule = match chain_of(bytes[13]) {
        Some(rule) => rule,
        None => bail!("{name}: unknown chain rule in the checkpoint"),
    };
    let prover = match color_of(bytes[14]) {
        Some(color) => color,
        None => bail!("{name}: unknown prover in the checkpoint"),
    };
    let (root, count, sum) = (word(16), word(24), word(32));
    let body = &bytes[header..];
    if Some(body.len() as u64) != count.checked_mul(ENTRY_BYTES as u64) {
        bail!("{name} is truncated or damaged");
    }
    if checksum(body) != sum {
        bail!("{name} is damaged: its checksum does not match");
    }
    let entries = body
        .chunks_exact(ENTRY_BYTES)
        .map(|e| {
            (
                u64::from_le_bytes(e[..8].try_into().expect("8 bytes")),
                u32::from_le_bytes(e[8..12].try_into().expect("4 bytes")),
                u32::from_le_bytes(e[12..16].try_into().expect("4 bytes")),
                u64::from_le_bytes(e[16..24].try_into().expect("8 bytes")),
            )
        })
        .collect();
    Ok(Some((
        Owner {
            root,
            board,
            chain_rule,
            prover,
            guide_stones: bytes[15],
            exits,
        },
        entries,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The method comes back from a file, and a file of format 1 (no method) is read as
    /// df-pn's, with the same entries.
    #[test]
    fn the_method_is_kept_and_format_1_is_read_as_dfpn() {
        let dir = std::env::temp_dir().join(format!("vato-checkpoint-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("table.checkpoint");
        let root: Position = "9/B7B/9/6W1W/9 w 0 1".parse().unwrap();
        let mut table = ProofTable::new(1);
        table.put(42, 3, 5, 7);
        for exits in [false, true] {
            let owner = Owner::of(&root, &Rules::default(), Color::Black, 8, exits);
            save(&path, owner, &table).unwrap();
            let (read, entries) = load(&path).unwrap().unwrap();
            assert_eq!(read, owner);
            assert_eq!(entries.len(), 1);
        }
        let owner = Owner::of(&root, &Rules::default(), Color::Black, 8, false);
        save(&path, owner, &table).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let entries = load(&path).unwrap().unwrap().1;
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        bytes.drain(HEADER_BYTES_V1..HEADER_BYTES);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(load(&path).unwrap(), Some((owner, entries)));
        // An unknown method is refused in one line.
        save(&path, owner, &table).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_BYTES_V1] = 9;
        std::fs::write(&path, &bytes).unwrap();
        let error = format!("{:#}", load(&path).unwrap_err());
        assert!(error.contains("unknown method"), "{error}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
