//! A scratch directory for the integration tests that write files.

use std::path::PathBuf;

/// A fresh, empty directory `PREFIX-NAME` in Cargo's scratch space for tests.
pub fn fresh_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
