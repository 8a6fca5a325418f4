//! The layer files: header, values and checksum, written through a temporary file.

use super::index::layer_size;
use crate::rules::board::Board;
use crate::rules::{ChainRule, Rules};
use anyhow::{Context, Result, bail};
use std::fs;
use std::io::Read;
use std::path::Path;

/// Identifies table files: "VATO TB" and a newline, so a text dump shows what it is.
const MAGIC: [u8; 8] = *b"VATO TB\n";
/// The file format; bump it when the layout or the meaning of a value changes. Version 2:
/// the checksum covers the header's fields too.
pub const FORMAT_VERSION: u32 = 2;
const HEADER_LEN: usize = 8 + 4 + 4 + 4 + 4 + 8 + 8;

/// The file name of layer `(a, b)` on `board`: Tsivy's tables keep the names they always
/// had, Dimy's carry the game's name, so both sets can share a folder.
pub fn layer_file_name(board: Board, a: usize, b: usize) -> String {
    match board {
        Board::Tsivy => format!("vato-{a}v{b}.vtb"),
        Board::Dimy => format!("vato-{}-{a}v{b}.vtb", board.name()),
    }
}

/// The board's byte in the header: zero for Tsivy, which is what files written before
/// there was a second board hold in that (then reserved) byte.
fn board_code(board: Board) -> u8 {
    match board {
        Board::Tsivy => 0,
        Board::Dimy => 1,
    }
}

/// Where the checksum sits in the header; every byte before it is checksummed.
const CHECKSUM_AT: usize = HEADER_LEN - 8;

/// FNV-1a over the header's fields (all but the checksum itself) and the data, enough to
/// catch truncation and bit rot anywhere in the file.
fn checksum(header: &[u8], data: &[u16]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let data_bytes = data.iter().flat_map(|v| v.to_le_bytes());
    for byte in header[..CHECKSUM_AT].iter().copied().chain(data_bytes) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn chain_rule_code(rule: ChainRule) -> u32 {
    match rule {
        ChainRule::Optional => 0,
        ChainRule::Mandatory => 1,
    }
}

/// Writes a layer to `dir`, through a temporary file renamed at the end, so that a build
/// killed half-way never leaves a file that looks finished.
pub(super) fn write_layer(
    dir: &Path,
    rules: &Rules,
    a: usize,
    b: usize,
    data: &[u16],
) -> Result<()> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + 2 * data.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&rules.no_capture_limit.to_le_bytes());
    bytes.extend_from_slice(&chain_rule_code(rules.chain_rule).to_le_bytes());
    bytes.extend_from_slice(&[a as u8, b as u8, board_code(rules.board), 0]);
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let sum = checksum(&bytes, data);
    bytes.extend_from_slice(&sum.to_le_bytes());
    for &v in data {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let path = dir.join(layer_file_name(rules.board, a, b));
    let partial = path.with_extension("partial");
    fs::write(&partial, &bytes).with_context(|| format!("writing {}", partial.display()))?;
    fs::rename(&partial, &path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

/// Reads and checks layer `(a, b)` from `dir`; `Ok(None)` when the file does not exist.
/// The chain rule must match, since it changes the values; the no-capture limit is
/// recorded but does not (the distances are computed without it).
pub(super) fn read_layer(
    dir: &Path,
    rules: &Rules,
    a: usize,
    b: usize,
) -> Result<Option<Vec<u16>>> {
    let path = dir.join(layer_file_name(rules.board, a, b));
    let name = path.display();
    let size = layer_size(rules.board, a, b);
    let expected_len = HEADER_LEN as u64 + 2 * size;
    // Without blocking, so that a FIFO under the name cannot hang the reader; what was
    // opened is then checked to be a regular file of the layer's size before any read,
    // so that a link to an endless device is not read either.
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = match options.open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("opening {name}")),
    };
    let metadata = file.metadata().with_context(|| format!("reading {name}"))?;
    if !metadata.is_file() {
        bail!("{name}: not a regular file");
    }
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
    if word(8) != FORMAT_VERSION {
        bail!(
            "{name}: format version {} (expected {FORMAT_VERSION})",
            word(8)
        );
    }
    if bytes.len() as u64 != expected_len {
        bail!("{name}: wrong size");
    }
    // The checksum first: a damaged header must read as damage, not as a table for other
    // rules or another board.
    let data: Vec<u16> = bytes[HEADER_LEN..]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    if checksum(&bytes, &data) != long(CHECKSUM_AT) {
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
    Ok(Some(data))
}
