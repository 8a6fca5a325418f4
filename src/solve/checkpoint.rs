//! Checkpoints of a proof: the proof table written to a file now and then, so that a
//! solve stopped by its time, Ctrl-C or a crash goes on from there. The file says which
//! position, rules and question it belongs to, carries a checksum, and is written through
//! a temporary name.
//!
//! Layout (little-endian): `VATOPNS1`, the format version (u32), the board (u8: 0 Tsivy,
//! 1 Dimy), the chain rule (u8: 0 optional, 1 mandatory), the prover (u8: 0 White,
//! 1 Black), the guide's stones (u8: 0 without a guide; `vato solve --guide-stones`),
//! the root's key (u64), the number of entries (u64), the XXH3-64
//! checksum of the entries (u64), then each entry: key (u64), phi (u32), delta (u32), work
//! (u64).

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
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 40;
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
}

impl Owner {
    /// The owner of the search of `prover`'s win from `root` under `rules`, guided by
    /// tables of up to `guide_stones` stones (0: none).
    pub fn of(root: &Position, rules: &Rules, prover: Color, guide_stones: u8) -> Owner {
        Owner {
            root: root.key(),
            board: rules.board,
            chain_rule: rules.chain_rule,
            prover,
            guide_stones,
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
    bytes.extend_from_slice(&body);
    write_atomically(path, &bytes)
}

/// Reads the checkpoint at `path`: its owner and entries `(key, phi, delta, work)`.
/// `Ok(None)` when there is no such file.
pub fn load(path: &Path) -> Result<Option<(Owner, Vec<Stored>)>> {
    let name = path.display();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read the checkpoint {name}")),
    };
    if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
        bail!("{name} is not a solver checkpoint");
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        bail!("{name}: checkpoint format {version}, this Vato reads {VERSION}");
    }
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
    let body = &bytes[HEADER_BYTES..];
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
        },
        entries,
    )))
}
