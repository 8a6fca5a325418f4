//! Compacting the proof store: its segments of one game merged into one.
//!
//! Every run that adds results writes a segment, and a lookup asks every segment, so a
//! store of many segments answers more slowly, and holds a position several times when
//! several runs proved something of it. Compacting merges the segments into one, what
//! they say of a position folded in the order they were written (as a reader folds
//! them), then removes them. The new segment is complete and synced before any old one
//! goes, and it takes the place of the last, so runs writing meanwhile (whose segments
//! come after it) and runs reading meanwhile (whose maps keep the old files) are safe.

use super::codes::{board_code, chain_code};
use super::mapped_store::MappedStore;
use super::segment::{SegmentHeader, write_segment};
use crate::rules::Rules;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The suffix of a compacted segment's name.
const COMPACTED: &str = "-compacted";

/// What a compaction did.
#[derive(Debug)]
pub struct Compaction {
    /// Segments merged.
    pub segments: usize,
    /// Their entries, a position counted once in each segment that holds it.
    pub entries: usize,
    /// Positions in the new segment.
    pub positions: u64,
    /// The new segment.
    pub path: PathBuf,
}

/// Merges the segments of `rules` in the store `dir` into one (segments of other games
/// are left alone): what was done, or `None` when there were fewer than two. An error,
/// a damaged block for one, leaves the store as it was.
pub fn compact_store(dir: &Path, rules: &Rules) -> Result<Option<Compaction>> {
    let store = MappedStore::open(dir, rules)?;
    let paths: Vec<PathBuf> = store.paths().map(Path::to_path_buf).collect();
    let Some(last) = paths.last().filter(|_| paths.len() > 1) else {
        return Ok(None);
    };
    let path = compacted_name(last);
    let header = SegmentHeader {
        board: board_code(rules.board),
        chain_rule: chain_code(rules.chain_rule),
        table_stones: store.table_stones(),
    };
    let positions = write_segment(&path, header, || store.entries())?;
    for old in paths.iter().filter(|&old| *old != path) {
        match std::fs::remove_file(old) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot remove {}", old.display()));
            }
            _ => {}
        }
    }
    Ok(Some(Compaction {
        segments: paths.len(),
        entries: store.len(),
        positions,
        path,
    }))
}

/// The name of the segment that takes the place of `last`: the same time and process,
/// marked compacted, so that it sorts before every segment written after `last`.
fn compacted_name(last: &Path) -> PathBuf {
    let stem = last
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.strip_suffix(COMPACTED).unwrap_or(&stem);
    let extension = last
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    last.with_file_name(format!("{stem}{COMPACTED}.{extension}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Color;
    use crate::solve::StoredResults;
    use crate::solve::store::ProofStore;
    use crate::solve::store::tests::dimy;
    use crate::solve::strategy::Guarantee;

    #[test]
    fn a_compacted_store_answers_as_before_from_one_segment() {
        let dir = std::env::temp_dir().join(format!("vato-compact-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = dimy();
        let mut turns = Vec::new();
        rules.turn_rules().generate(&rules.start(), &mut turns);
        let mut store = ProofStore::new(&rules);
        // Three runs: White's wins, Black's draws overlapping them, White's draws again.
        let wins: Vec<_> = (0..9_000u64).map(|i| (2 * i + 1, Some(turns[0]))).collect();
        store.learn(Color::White, Guarantee::Win, &wins, 3);
        store.save(&dir).unwrap();
        let draws: Vec<_> = (0..7_000u64).map(|i| (3 * i, None)).collect();
        store.learn(Color::Black, Guarantee::NoLoss, &draws, 4);
        store.save(&dir).unwrap();
        let more: Vec<_> = (0..5_000u64).map(|i| (5 * i, Some(turns[1]))).collect();
        store.learn(Color::White, Guarantee::NoLoss, &more, 3);
        store.save(&dir).unwrap();
        let other = ProofStore::new(&Rules::default());
        let before = ProofStore::open(&dir, &rules).unwrap();
        let done = compact_store(&dir, &rules).unwrap().unwrap();
        assert_eq!((done.segments, done.entries), (3, 21_000));
        let after = ProofStore::open(&dir, &rules).unwrap();
        assert_eq!(after.len() as u64, done.positions);
        assert_eq!(before.len(), after.len());
        assert!(
            done.positions < 21_000,
            "a position held twice is kept once"
        );
        for key in 0..30_000u64 {
            assert_eq!(after.known(key), before.known(key), "key {key}");
        }
        assert_eq!(after.table_stones(), 4);
        assert!(
            compact_store(&dir, &rules).unwrap().is_none(),
            "one segment is compact"
        );
        assert!(other.is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_compacted_segment_sorts_before_the_segments_after_the_ones_it_replaces() {
        let last = Path::new("/s/01796555860161347897-24780.vps");
        let compacted = compacted_name(last);
        assert_eq!(
            compacted.file_name().unwrap(),
            "01796555860161347897-24780-compacted.vps"
        );
        assert_eq!(compacted_name(&compacted), compacted);
        let later = Path::new("/s/01796555860161347898-11.vps");
        assert!(compacted.file_name() < later.file_name());
    }
}
