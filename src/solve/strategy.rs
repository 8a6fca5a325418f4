//! Strategies: what a proof is made of. A proved value is a strategy for one side (its
//! turn in every position it can reach with that side to move) under which every line
//! ends as promised, whatever the other side plays. A strategy is positional: it does not
//! depend on the path, so checking it (see `check`) does not share the search's
//! graph-history problem.

use crate::rules::position::Color;
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

/// The positions of a defence left unfinished whose every line stays among them or ends
/// where its owner does not lose (see `defence::closed`): each is a "does not lose"
/// result of `owner`, worth keeping in a store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosedDefence {
    /// The side that does not lose.
    pub owner: Color,
    /// Each position's key, with the owner's turn where the owner is to move.
    pub reached: Vec<(u64, Option<Turn>)>,
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
