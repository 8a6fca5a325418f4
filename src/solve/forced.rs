//! What a `--method exits` search showed, read back as hints for writing a df-pn defence.
//!
//! Where a repetition counts as the prover's win, a disproof says that the defender
//! forces every line into what the tables, the guide or the store settle: it holds on
//! any path, and the defence below it is finite and small. Where the defender cannot
//! force its way out, the prover can keep the game among positions no table holds, and
//! only a df-pn search (a repetition a draw) shows the draw. A defence written from such
//! a search answers every quiet turn of the prover over the whole board, and grows by
//! millions of positions; choosing, wherever it can, a turn into a position the exits
//! search disproved keeps it to the forced lines, and leaves the drawn cycles to the
//! few positions that need them.
//!
//! So a df-pn search takes each such position as a leaf, disproved whatever the path,
//! and its defence writer tries the defender's turns into them first, without a fresh
//! search of its own. Nothing rests on the hints alone: the defence still goes through
//! them down to the tables, and is checked whole, so a checkpoint of another root
//! serves as well as the root's own.

use super::checkpoint::{self, Owner};
use super::table::{ProofTable, Stored};
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use anyhow::{Result, bail};
use std::path::Path;

/// Bytes a hint takes in its table, about (an entry of 24 bytes, the table at most half
/// full).
const BYTES_PER_HINT: usize = 4 * 24;

/// The positions a `--method exits` search disproved, with the work each took.
pub struct ForcedDefences {
    /// Whose win the search asked about.
    prover: Color,
    table: ProofTable,
    hints: usize,
}

impl ForcedDefences {
    /// Reads the checkpoint of a `--method exits` search at `path` under `rules`,
    /// keeping its decided positions.
    pub fn load(path: &Path, rules: &Rules) -> Result<ForcedDefences> {
        let name = path.display();
        let Some((owner, entries)) = checkpoint::load(path)? else {
            bail!("no checkpoint at {name}");
        };
        let Owner {
            board,
            chain_rule,
            prover,
            exits,
            ..
        } = owner;
        if !exits {
            bail!("{name} is not the checkpoint of a --method exits search");
        }
        if (board, chain_rule) != (rules.board, rules.chain_rule) {
            bail!("{name} is the checkpoint of a search under other rules");
        }
        // Counted first and restored from the entries themselves: a copy of the decided
        // ones would hold a second GB beside the checkpoint's.
        let decided = |&(_, phi, delta, _): &Stored| phi == 0 || delta == 0;
        let hints = entries.iter().filter(|entry| decided(entry)).count();
        let mut table = ProofTable::new(((hints * BYTES_PER_HINT) >> 20) + 1);
        for entry in entries.into_iter().filter(decided) {
            table.restore(entry);
        }
        Ok(ForcedDefences {
            prover,
            table,
            hints,
        })
    }

    /// The side whose win the exits search asked about.
    pub fn prover(&self) -> Color {
        self.prover
    }

    /// How many positions it decided (the prover's wins among them, which may rest on a
    /// repetition and are never used).
    pub fn len(&self) -> usize {
        self.hints
    }

    /// Whether it decided nothing.
    pub fn is_empty(&self) -> bool {
        self.hints == 0
    }

    /// The nodes the exits search took to show that the prover does not win at
    /// `position`, if it did.
    pub fn forced(&self, position: &Position) -> Option<u64> {
        let key = position.key();
        let (phi, delta) = self.table.get(key)?;
        // The numbers are the side to move's: it reached its goal at phi 0, and failed
        // at delta 0. The prover's goal is the win; its opponent's, that there is none.
        let shown = if position.side_to_move() == self.prover {
            delta == 0
        } else {
            phi == 0
        };
        shown.then(|| self.table.work(key))
    }
}

impl std::fmt::Debug for ForcedDefences {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForcedDefences")
            .field("prover", &self.prover)
            .field("hints", &self.hints)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse_position_on;
    use crate::solve::checkpoint::save;
    use crate::solve::table::INFINITE;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("vato-forced-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("exits.checkpoint")
    }

    /// A disproof counts for either side to move, read the right way round; a proof (which
    /// may rest on a repetition) and an open position do not; a df-pn checkpoint is
    /// refused, and so is one of other rules.
    #[test]
    fn only_disproofs_of_an_exits_search_are_hints() {
        let rules = Rules::default();
        let white_to_move = parse_position_on(rules.board, "9/B8/9/6W1W/9 w").unwrap();
        let black_to_move = parse_position_on(rules.board, "9/B8/9/6W1W/9 b").unwrap();
        let proved = parse_position_on(rules.board, "9/1B7/9/6W1W/9 b").unwrap();
        let open = parse_position_on(rules.board, "9/2B6/9/6W1W/9 b").unwrap();
        let mut table = ProofTable::new(1);
        // The numbers are the mover's: White reaching its goal (phi 0) and Black failing
        // (delta 0) are disproofs; Black reaching its goal is a proof.
        table.put(white_to_move.key(), 0, INFINITE, 7);
        table.put(black_to_move.key(), INFINITE, 0, 9);
        table.put(proved.key(), 0, INFINITE, 11);
        table.put(open.key(), 3, 4, 13);
        let path = scratch("hints");
        let owner = |exits| Owner::of(&white_to_move, &rules, Color::Black, 8, exits);
        save(&path, owner(true), &table).unwrap();
        let forced = ForcedDefences::load(&path, &rules).unwrap();
        assert_eq!(forced.prover(), Color::Black);
        assert_eq!(forced.len(), 3);
        assert_eq!(forced.forced(&white_to_move), Some(7));
        assert_eq!(forced.forced(&black_to_move), Some(9));
        assert_eq!(forced.forced(&proved), None);
        assert_eq!(forced.forced(&open), None);

        save(&path, owner(false), &table).unwrap();
        let error = ForcedDefences::load(&path, &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("not the checkpoint of a --method exits"),
            "{error}"
        );
        save(&path, owner(true), &table).unwrap();
        let dimy = Rules {
            board: crate::rules::board::Board::Dimy,
            ..rules
        };
        let error = ForcedDefences::load(&path, &dimy)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("other rules"), "{error}");
        let error = ForcedDefences::load(&path.with_extension("none"), &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("no checkpoint"), "{error}");
    }
}
