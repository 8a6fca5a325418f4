//! Version 2 layer files, which Vato wrote before version 3: one file a layer, every
//! position's two-byte value code in index order, one checksum over the whole file. Read
//! by `vato tablebase convert` and `compare`; written only by tests, to check the
//! conversion against the tables built before it.

use super::index::layer_size;
use super::layer_file::{MAGIC, open_regular};
use crate::rules::board::Board;
use crate::rules::{ChainRule, Rules};
use crate::safe_file::legacy_fnv1a;
use anyhow::{Context, Result, bail};

use std::io::Read;
use std::path::Path;

/// The version of these files.
pub const LEGACY_VERSION: u32 = 2;
const HEADER_LEN: usize = 8 + 4 + 4 + 4 + 4 + 8 + 8;

/// The file name of version 2 layer `(a, b)` on `board`: `vato-4v3.vtb`, and for Dimy
/// `vato-dimy-4v3.vtb`.
pub fn legacy_file_name(board: Board, a: usize, b: usize) -> String {
    super::layer_file::layer_file_name(board, (a, b), "vtb")
}

/// Where the checksum sits in the header; every byte before it is checksummed.
const CHECKSUM_AT: usize = HEADER_LEN - 8;

/// FNV-1a over the header's fields (all but the checksum itself) and the data.
fn checksum(header: &[u8], data: &[u8]) -> u64 {
    legacy_fnv1a(&[&header[..CHECKSUM_AT], data])
}

fn board_code(board: Board) -> u8 {
    super::layer_file::board_code(board)
}

fn chain_rule_code(rule: ChainRule) -> u32 {
    u32::from(super::layer_file::chain_rule_code(rule))
}

/// Writes a version 2 layer to `dir`, through a temporary file renamed at the end.
#[cfg(test)]
pub(super) fn write_legacy_layer(
    dir: &Path,
    rules: &Rules,
    a: usize,
    b: usize,
    data: &[u16],
) -> Result<()> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + 2 * data.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&LEGACY_VERSION.to_le_bytes());
    bytes.extend_from_slice(&rules.no_capture_limit.to_le_bytes());
    bytes.extend_from_slice(&chain_rule_code(rules.chain_rule).to_le_bytes());
    bytes.extend_from_slice(&[a as u8, b as u8, board_code(rules.board), 0]);
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let values: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let sum = checksum(&bytes, &values);
    bytes.extend_from_slice(&sum.to_le_bytes());
    bytes.extend_from_slice(&values);
    let path = dir.join(legacy_file_name(rules.board, a, b));
    let partial = path.with_extension("partial");
    std::fs::write(&partial, &bytes).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, &path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

/// Reads and checks version 2 layer `(a, b)` from `dir`; `Ok(None)` when the file does
/// not exist. The chain rule must match, since it changes the values; the no-capture limit
/// is recorded but does not (the distances are computed without it).
pub(super) fn read_legacy_layer(
    dir: &Path,
    rules: &Rules,
    a: usize,
    b: usize,
) -> Result<Option<Vec<u16>>> {
    let path = dir.join(legacy_file_name(rules.board, a, b));
    let name = path.display();
    let size = layer_size(rules.board, a, b);
    let expected_len = HEADER_LEN as u64 + 2 * size;
    let Some(file) = open_regular(&path)? else {
        return Ok(None);
    };
    let metadata = file.metadata().with_context(|| format!("reading {name}"))?;
    if metadata.len() != expected_len {
        bail!("{name}: wrong size");
    }
    let mut bytes = Vec::with_capacity(expected_len as usize);
    file.take(expected_len)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {name}"))?;
    if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC {
        bail!("{name}: not a Vato tablebase file");
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let long = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    if word(8) != LEGACY_VERSION {
        bail!(
            "{name}: format version {} (expected {LEGACY_VERSION})",
            word(8)
        );
    }
    if bytes.len() as u64 != expected_len {
        bail!("{name}: wrong size");
    }
    // The checksum first: a damaged header must read as damage, not as a table for other
    // rules or another board.
    if checksum(&bytes, &bytes[HEADER_LEN..]) != long(CHECKSUM_AT) {
        bail!("{name}: checksum mismatch");
    }
    if word(16) != chain_rule_code(rules.chain_rule) {
        bail!("{name}: built for another chain rule");
    }
    if bytes[22] != board_code(rules.board) {
        bail!("{name}: built for another board");
    }
    if (usize::from(bytes[20]), usize::from(bytes[21])) != (a, b) {
        bail!("{name}: holds layer {}v{}", bytes[20], bytes[21]);
    }
    if long(24) != size {
        bail!("{name}: wrong size");
    }
    let data: Vec<u16> = bytes[HEADER_LEN..]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok(Some(data))
}
