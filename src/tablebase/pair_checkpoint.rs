//! The state of a layer pair part-way through its solve, written between passes and inside
//! long ones, so that a build stopped in a long pair (an 8-stone pair takes hours, one pass
//! of it most of an hour) resumes from its last checkpoint instead of from the start.
//!
//! The state is the solver's byte of every class of both layers (see [`super::solver`])
//! and where the work stands: in the first pass, or in the pass of some distance, and in
//! that pass the layer and the first class not yet done. Each pass works through the
//! classes in order, a chunk at a time; a checkpoint is taken once every chunk begun is
//! finished and before any later one begins, so every class before the point is done and
//! none after it is. The first pass decides each class from the smaller layers alone, and
//! a distance pass reads only the bytes and decides classes one turn further, so nothing
//! else is needed. The file (`vato-AvB.vtc`, Dimy `vato-dimy-AvB.vtc`, for the pair's
//! larger-first name) is:
//!
//! | bytes | field |
//! |---|---|
//! | 0-7 | magic `VATO CK\n` |
//! | 8-11 | version (u32): 2 |
//! | 12 | board: 0 Tsivy, 1 Dimy |
//! | 13 | chain rule: 0 a chain may stop, 1 it must go on |
//! | 14, 15 | `A`, `B`: the pair `AvB` and `BvA` |
//! | 16 | the distance whose pass is next or under way (0 in the first pass) |
//! | 17 | the pass: 0 a distance pass, 1 the first pass |
//! | 18 | the layer the pass is in: 0 `AvB`, 1 `BvA` |
//! | 19-23 | zero |
//! | 24-31, 32-39 | classes of `AvB`, of `BvA` (0 when `A == B`) (u64) |
//! | 40-47 | the first class of that layer not yet done (u64) |
//! | 48-55 | XXH3-64 of bytes 0-47 |
//!
//! then the bytes of `AvB`'s classes, `BvA`'s, and XXH3-64 of those bytes (u64). All
//! numbers little-endian. It is written under a `.partial` name and renamed when complete,
//! and removed once the pair's files are written. Version 1 (a 48-byte header, always
//! between two passes) is refused like any other foreign file: the pair starts over.

use super::layer_file::{board_code, chain_rule_code, layer_file_name};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::safe_file::{Checksum, checksum, partial_path};
use anyhow::{Context, Result, bail};
use std::fs;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

const MAGIC: &[u8; 8] = b"VATO CK\n";
const VERSION: u32 = 2;
const HEADER_LEN: usize = 56;
const SUMMED_LEN: usize = 48;
/// Bytes copied at a time between the atomics and the file.
const CHUNK: usize = 1 << 20;

/// Where the checkpoint of pair `(a, b)` (larger first) is kept in `dir`.
pub(super) fn checkpoint_path(dir: &Path, board: Board, pair: (usize, usize)) -> PathBuf {
    dir.join(layer_file_name(board, pair, "vtc"))
}

/// Where a pair's solve stands: the next class to work on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ResumePoint {
    pub(super) pass: Pass,
    /// The layer of the pair (0: `AvB`, 1: `BvA`).
    pub(super) slot: usize,
    /// The first class of that layer not yet done.
    pub(super) entry: u64,
}

/// One of a pair's passes over its classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pass {
    /// The pass that decides captures and blocked positions.
    First,
    /// The pass that passes on the classes decided at this distance.
    Distance(u8),
}

impl ResumePoint {
    /// The start of a pass.
    pub(super) fn start_of(pass: Pass) -> ResumePoint {
        ResumePoint {
            pass,
            slot: 0,
            entry: 0,
        }
    }
}

fn header(
    rules: &Rules,
    (a, b): (usize, usize),
    at: ResumePoint,
    sizes: &[u64],
) -> [u8; HEADER_LEN] {
    let mut head = [0u8; HEADER_LEN];
    head[0..8].copy_from_slice(MAGIC);
    head[8..12].copy_from_slice(&VERSION.to_le_bytes());
    head[12] = board_code(rules.board);
    head[13] = chain_rule_code(rules.chain_rule);
    head[14] = a as u8;
    head[15] = b as u8;
    (head[16], head[17]) = match at.pass {
        Pass::Distance(distance) => (distance, 0),
        Pass::First => (0, 1),
    };
    head[18] = at.slot as u8;
    head[24..32].copy_from_slice(&sizes[0].to_le_bytes());
    head[32..40].copy_from_slice(&sizes.get(1).copied().unwrap_or(0).to_le_bytes());
    head[40..48].copy_from_slice(&at.entry.to_le_bytes());
    let sum = checksum(&head[..SUMMED_LEN]);
    head[SUMMED_LEN..].copy_from_slice(&sum.to_le_bytes());
    head
}

/// Writes the bytes of the pair's layers (`codes`, one vector per layer, `(a, b)` first)
/// with the point the solve goes on from, replacing any earlier checkpoint of the pair.
pub(super) fn save(
    dir: &Path,
    rules: &Rules,
    pair: (usize, usize),
    at: ResumePoint,
    codes: &[Vec<AtomicU8>],
) -> Result<()> {
    let path = checkpoint_path(dir, rules.board, pair);
    let partial = partial_path(&path);
    let sizes: Vec<u64> = codes.iter().map(|layer| layer.len() as u64).collect();
    let write = || -> std::io::Result<()> {
        let mut file = BufWriter::with_capacity(CHUNK, fs::File::create(&partial)?);
        file.write_all(&header(rules, pair, at, &sizes))?;
        let mut sum = Checksum::default();
        let mut buffer = vec![0u8; CHUNK];
        for layer in codes {
            for chunk in layer.chunks(CHUNK) {
                let bytes = &mut buffer[..chunk.len()];
                for (byte, cell) in bytes.iter_mut().zip(chunk) {
                    *byte = cell.load(Ordering::Relaxed);
                }
                sum.update(bytes);
                file.write_all(bytes)?;
            }
        }
        file.write_all(&sum.finish().to_le_bytes())?;
        file.into_inner()?.sync_all()
    };
    write().with_context(|| format!("writing {}", partial.display()))?;
    fs::rename(&partial, &path)
        .with_context(|| format!("renaming {} to {}", partial.display(), path.display()))
}

/// A pair's bytes read back, with the point the solve goes on from.
pub(super) struct Resumed {
    pub(super) at: ResumePoint,
    pub(super) codes: Vec<Vec<AtomicU8>>,
}

/// The checkpoint of `pair` in `dir`: `Ok(None)` when there is none, an error when it is
/// damaged or was written for other rules or other layer sizes (`sizes`, one per layer).
pub(super) fn load(
    dir: &Path,
    rules: &Rules,
    pair: (usize, usize),
    sizes: &[u64],
) -> Result<Option<Resumed>> {
    let path = checkpoint_path(dir, rules.board, pair);
    let file = match fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("opening {}", path.display())),
    };
    if !file.metadata()?.is_file() {
        bail!("{}: not a regular file", path.display());
    }
    let name = path.display();
    let mut file = BufReader::with_capacity(CHUNK, file);
    let mut head = [0u8; HEADER_LEN];
    file.read_exact(&mut head)
        .with_context(|| format!("{name}: shorter than its header"))?;
    if &head[0..8] != MAGIC {
        bail!("{name}: not a checkpoint of a table build");
    }
    let pass = match head[17] {
        0 => Pass::Distance(head[16]),
        _ => Pass::First,
    };
    let at = ResumePoint {
        pass,
        slot: usize::from(head[18]),
        entry: u64::from_le_bytes(head[40..48].try_into().expect("8 bytes")),
    };
    let in_range = at.slot < sizes.len() && at.entry <= sizes[at.slot];
    if !in_range || head != header(rules, pair, at, sizes) {
        bail!("{name}: damaged, or written for other rules or another version");
    }
    let mut sum = Checksum::default();
    let mut codes = Vec::with_capacity(sizes.len());
    let mut buffer = vec![0u8; CHUNK];
    for &size in sizes {
        let mut layer: Vec<AtomicU8> = Vec::with_capacity(size as usize);
        let mut left = size as usize;
        while left > 0 {
            let bytes = &mut buffer[..left.min(CHUNK)];
            file.read_exact(bytes)
                .with_context(|| format!("{name}: truncated"))?;
            sum.update(bytes);
            layer.extend(bytes.iter().map(|&byte| AtomicU8::new(byte)));
            left -= bytes.len();
        }
        codes.push(layer);
    }
    let mut trailer = [0u8; 8];
    file.read_exact(&mut trailer)
        .with_context(|| format!("{name}: truncated"))?;
    if u64::from_le_bytes(trailer) != sum.finish() {
        bail!("{name}: damaged (its checksum does not match)");
    }
    if file.read(&mut [0u8; 1])? != 0 {
        bail!("{name}: longer than its layers");
    }
    Ok(Some(Resumed { at, codes }))
}

/// Removes the checkpoint of `pair`, if any.
pub(super) fn remove(dir: &Path, board: Board, pair: (usize, usize)) -> Result<()> {
    let path = checkpoint_path(dir, board, pair);
    match fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vato-ck-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn layer(bytes: &[u8]) -> Vec<AtomicU8> {
        bytes.iter().map(|&b| AtomicU8::new(b)).collect()
    }

    fn plain(codes: &[Vec<AtomicU8>]) -> Vec<Vec<u8>> {
        codes
            .iter()
            .map(|l| l.iter().map(|c| c.load(Ordering::Relaxed)).collect())
            .collect()
    }

    #[test]
    fn a_checkpoint_reads_back_and_damage_is_refused() {
        let dir = temp_dir("roundtrip");
        let rules = Rules::default();
        let first: Vec<u8> = (0..3_000_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let codes = vec![layer(&first), layer(&[1, 2, 3])];
        assert!(
            load(&dir, &rules, (2, 1), &[3_000_000, 3])
                .unwrap()
                .is_none()
        );
        let at = ResumePoint {
            pass: Pass::Distance(17),
            slot: 1,
            entry: 2,
        };
        save(&dir, &rules, (2, 1), at, &codes).unwrap();
        let back = load(&dir, &rules, (2, 1), &[3_000_000, 3])
            .unwrap()
            .unwrap();
        assert_eq!(back.at, at);
        assert_eq!(plain(&back.codes), plain(&codes));
        let inside_the_first_pass = ResumePoint {
            pass: Pass::First,
            slot: 0,
            entry: 65_536,
        };
        save(&dir, &rules, (2, 1), inside_the_first_pass, &codes).unwrap();
        let back = load(&dir, &rules, (2, 1), &[3_000_000, 3]);
        assert_eq!(back.unwrap().unwrap().at, inside_the_first_pass);
        // A point past its layer is refused, as a damaged header.
        let past = ResumePoint { entry: 4, ..at };
        save(&dir, &rules, (2, 1), past, &codes).unwrap();
        let refused = load(&dir, &rules, (2, 1), &[3_000_000, 3]);
        assert!(format!("{:#}", refused.err().unwrap()).contains("damaged, or written"));
        save(&dir, &rules, (2, 1), at, &codes).unwrap();

        let dimy = Rules {
            board: Board::Dimy,
            ..rules
        };
        assert!(
            load(&dir, &dimy, (2, 1), &[3_000_000, 3])
                .unwrap()
                .is_none()
        );
        let path = checkpoint_path(&dir, rules.board, (2, 1));
        let other_sizes = load(&dir, &rules, (2, 1), &[3_000_000, 4]);
        assert!(format!("{:#}", other_sizes.err().unwrap()).contains("damaged, or written"));
        let mut bytes = fs::read(&path).unwrap();
        bytes[HEADER_LEN + 1_000_000] ^= 4;
        fs::write(&path, &bytes).unwrap();
        let flipped = load(&dir, &rules, (2, 1), &[3_000_000, 3]);
        assert!(format!("{:#}", flipped.err().unwrap()).contains("checksum"));
        fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
        let short = load(&dir, &rules, (2, 1), &[3_000_000, 3]);
        assert!(format!("{:#}", short.err().unwrap()).contains("truncated"));
        remove(&dir, rules.board, (2, 1)).unwrap();
        assert!(!path.exists());
        remove(&dir, rules.board, (2, 1)).unwrap();
        fs::remove_dir_all(dir).unwrap();
    }
}
