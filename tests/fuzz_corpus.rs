//! Replays the kept fuzzing corpus (`tests/corpus/<target>/`) through the fuzz targets'
//! entry points on the stable toolchain, so that every ordinary test run checks what the
//! fuzzer found: no panic, and every error line one line of printable text of bounded
//! length. `fuzz/` holds the targets themselves (run with `cargo fuzz`, see docs/fuzzing.md).

use std::path::Path;

/// Feeds every file of `tests/corpus/<target>` to `entry`; returns how many there were.
fn replay(target: &str, entry: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(target);
    let mut count = 0;
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    paths.sort();
    for path in paths {
        let data = std::fs::read(&path).expect("a corpus file");
        let outcome = std::panic::catch_unwind(|| entry(&data));
        assert!(outcome.is_ok(), "{} fails its target", path.display());
        count += 1;
    }
    count
}

#[test]
fn protocol_corpus_replays_cleanly() {
    assert!(replay("protocol_lines", vato::fuzzing::protocol_lines) >= 10);
}

#[test]
fn position_corpus_replays_cleanly() {
    assert!(replay("position_text", vato::fuzzing::position_text) >= 10);
}

#[test]
fn turn_corpus_replays_cleanly() {
    assert!(replay("turn_text", vato::fuzzing::turn_text) >= 10);
}
