//! The proved value of a position for its side to move.

use crate::tablebase::Outcome;

/// The value of a position for its side to move, proved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
    /// Not decided within the budget.
    Unknown,
}

impl From<Outcome> for Verdict {
    /// The tables' value as a verdict.
    fn from(outcome: Outcome) -> Verdict {
        match outcome {
            Outcome::Win => Verdict::Win,
            Outcome::Draw => Verdict::Draw,
            Outcome::Loss => Verdict::Loss,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Win => "win",
            Verdict::Draw => "draw",
            Verdict::Loss => "loss",
            Verdict::Unknown => "unknown",
        })
    }
}
