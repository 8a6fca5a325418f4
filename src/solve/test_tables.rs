//! Small sets of tables built for the solver's unit tests.

use crate::rules::Rules;
use crate::tablebase::{Progress, Tablebase, build};
use std::path::PathBuf;

/// Every table of up to `stones` stones, built in a folder of its own that goes with it:
/// the truth for positions of `stones`, and the leaves of one stone fewer.
pub struct TestTables {
    dir: PathBuf,
    /// The tables of up to `stones` stones.
    pub all: Tablebase,
    /// The tables of up to `stones - 1` stones.
    pub leaves: Tablebase,
}

impl TestTables {
    /// Builds them for `rules` in a temporary folder named after `name` and the process.
    pub fn build(name: &str, rules: Rules, stones: usize) -> TestTables {
        let dir = std::env::temp_dir().join(format!(
            "vato-{name}-{}-{}",
            rules.board.name(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        build(&dir, stones, &rules, 1, Progress::Quiet).unwrap();
        TestTables {
            all: Tablebase::open(&dir, rules, stones).unwrap(),
            leaves: Tablebase::open(&dir, rules, stones - 1).unwrap(),
            dir,
        }
    }
}

impl TestTables {
    /// The leaves opened once more, for an engine that probes them while a search holds
    /// the first ones.
    pub fn leaves_again(&self, rules: Rules) -> Tablebase {
        Tablebase::open(&self.dir, rules, self.leaves.max_stones()).unwrap()
    }
}

impl Drop for TestTables {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
