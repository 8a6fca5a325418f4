//! Strategies: what a proof is made of. A proved value is a strategy for one side (its
//! turn in every position it can reach with that side to move) under which every line
//! ends as promised, whatever the other side plays. A strategy is positional: it does not
//! depend on the path, so checking it (see `check`) does not share the search's
//! graph-history problem.

use super::dfpn::Search;
use super::table::INFINITE;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::Outcome;

/// What a strategy guarantees its owner wherever the other side goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Guarantee {
    /// Every line ends in a win for the owner: no line may repeat a position.
    Win,
    /// No line ends in a loss for the owner: a line that repeats a position is a draw.
    NoLoss,
}

impl Guarantee {
    /// Whether a position worth `outcome` to its side to move keeps the guarantee of
    /// `owner`.
    pub fn kept_by(self, outcome: Outcome, mover: Color, owner: Color) -> bool {
        let for_owner = if mover == owner {
            outcome
        } else {
            match outcome {
                Outcome::Win => Outcome::Loss,
                Outcome::Draw => Outcome::Draw,
                Outcome::Loss => Outcome::Win,
            }
        };
        match self {
            Guarantee::Win => for_owner == Outcome::Win,
            Guarantee::NoLoss => for_owner != Outcome::Loss,
        }
    }
}

/// One side's strategy: its turn in each position the strategy reaches with that side to
/// move, by position key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// The side that plays the strategy.
    pub owner: Color,
    /// What it achieves.
    pub guarantee: Guarantee,
    /// Position keys and the owner's turn there, sorted by key, each key once.
    pub turns: Vec<(u64, Turn)>,
}

impl Strategy {
    /// The owner's turn in the position with key `key`, if the strategy reaches it.
    pub fn turn(&self, key: u64) -> Option<Turn> {
        self.turns
            .binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|index| self.turns[index].1)
    }
}

impl Search<'_> {
    /// After the root is decided: the strategy of the side whose goal was reached there
    /// (`owner`), read from the proof table. Entries lost from the table are searched
    /// again; `None` if the search is stopped, or if no path-independent strategy is
    /// found (a value that rested on the graph-history interaction).
    pub(super) fn extract(&mut self, root: &Position, owner: Color) -> Option<Strategy> {
        self.path.clear();
        let (guarantee, turns) = if owner == self.prover {
            (Guarantee::Win, self.extract_win(root, owner)?)
        } else {
            (Guarantee::NoLoss, self.extract_defence(root, owner)?)
        };
        if self.aborted {
            return None;
        }
        let mut turns: Vec<(u64, Turn)> = turns.into_iter().collect();
        turns.sort_unstable_by_key(|&(key, _)| key);
        Some(Strategy {
            owner,
            guarantee,
            turns,
        })
    }

    /// Whether the side to move at `position` (not settled) reaches its goal in the
    /// search's terms (the prover a win, its opponent anything else), as the table says;
    /// `None` when it does not know. With `fresh`, the position is searched again first,
    /// from an empty path: the extraction's lines are not the search's.
    pub(super) fn goal_reached(&mut self, position: &Position, fresh: bool) -> Option<bool> {
        let numbers = if fresh {
            let line = std::mem::take(&mut self.path);
            let (phi, delta, _) = self.expand(position, INFINITE, INFINITE);
            let numbers = (phi, delta);
            self.path = line;
            numbers
        } else {
            self.table.get(position.key())?
        };
        match numbers {
            (0, _) => Some(true),
            (_, 0) => Some(false),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarantee_reads_the_outcome_from_the_owners_side() {
        let (w, b) = (Color::White, Color::Black);
        assert!(Guarantee::Win.kept_by(Outcome::Win, w, w));
        assert!(Guarantee::Win.kept_by(Outcome::Loss, b, w));
        assert!(!Guarantee::Win.kept_by(Outcome::Draw, w, w));
        assert!(Guarantee::NoLoss.kept_by(Outcome::Draw, b, w));
        assert!(!Guarantee::NoLoss.kept_by(Outcome::Win, b, w));
        assert!(!Guarantee::NoLoss.kept_by(Outcome::Loss, w, w));
    }
}
