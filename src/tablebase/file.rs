//! The layer files: header, values and checksum, written through a temporary file.

use super::index::layer_size;
use crate::rules::{ChainRule, Rules};
use anyhow::{Context, Result, bail};
use std::fs;
use std::io::Read;
use std::path::Path;

/// Identifies table files: "VATO TB" and a newline, so a text dump shows what it is.
const MAGIC: [u8; 8] = *b"VATO TB\n";
/// The file format; bump it when the layout or the meaning of a value changes.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 8 + 4 + 4 + 4 + 4 + 8 + 8;

/// The file name of layer `(a, b)`.
pub fn layer_file_name(a: usize, b: usize) -> String {
    format!("vato-{a}v{b}.vtb")
}

/// FNV-1a over the data, enough to catch truncation and bit rot.
fn checksum(data: &[u16]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &v in data {
        for byte in v.to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
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
    bytes.extend_from_slice(&[a as u8, b as u8, 0, 0]);
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&checksum(data).to_le_bytes());
    for &v in data {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let path = dir.join(layer_file_name(a, b));
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
    let path = dir.join(layer_file_name(a, b));
    let mut file = match fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("opening {}", path.display())),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    let name = path.display();
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
    if word(16) != chain_rule_code(rules.chain_rule) {
        bail!("{name}: built for another chain rule");
    }
    if (usize::from(bytes[20]), usize::from(bytes[21])) != (a, b) {
        bail!("{name}: holds layer {}v{}", bytes[20], bytes[21]);
    }
    let count = long(24);
    if count != layer_size(a, b) || bytes.len() as u64 != HEADER_LEN as u64 + 2 * count {
        bail!("{name}: wrong size");
    }
    let data: Vec<u16> = bytes[HEADER_LEN..]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    if checksum(&data) != long(32) {
        bail!("{name}: checksum mismatch");
    }
    Ok(Some(data))
}
