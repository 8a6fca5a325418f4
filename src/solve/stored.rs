//! What a proof store answers: the guarantees proved of a position, its stored turn, and
//! the values they name, whether the store was read into memory to grow
//! ([`super::ProofStore`]) or is probed where it lies ([`super::MappedStore`]).

use super::known::Known;
use super::strategy::Guarantee;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;

/// What a store proves about a position for one side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Proven {
    /// It wins.
    Win,
    /// The other side wins.
    Loss,
    /// Neither side wins.
    Draw,
    /// It does not lose; whether it wins is not known.
    DrawOrBetter,
    /// It does not win; whether it loses is not known.
    DrawOrWorse,
}

impl Proven {
    /// The same fact seen from the other side.
    pub fn for_the_other_side(self) -> Proven {
        match self {
            Proven::Win => Proven::Loss,
            Proven::Loss => Proven::Win,
            Proven::Draw => Proven::Draw,
            Proven::DrawOrBetter => Proven::DrawOrWorse,
            Proven::DrawOrWorse => Proven::DrawOrBetter,
        }
    }
}

impl std::fmt::Display for Proven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Proven::Win => "win",
            Proven::Loss => "loss",
            Proven::Draw => "draw",
            Proven::DrawOrBetter => "draw or better",
            Proven::DrawOrWorse => "draw or worse",
        })
    }
}

/// Reading proved results, from a store read into memory to grow ([`super::ProofStore`]) or from
/// one probed where it lies ([`super::MappedStore`]).
pub trait StoredResults: Sync + std::fmt::Debug {
    /// What is stored of the position with key `key`.
    fn known(&self, key: u64) -> Option<Known>;

    /// The guarantees stored for the position with key `key` (the bits of
    /// [`Known`]'s flags), without its turn: all a search asks, and cheaper where the
    /// turns are kept apart.
    fn guarantees(&self, key: u64) -> Option<u8> {
        self.known(key).map(|known| known.flags)
    }

    /// Asks the memory for what [`StoredResults::known`] of `key` will read, so that the
    /// lookups of a node's children overlap (nothing by default).
    fn prefetch(&self, _key: u64) {}

    /// What is proved about the position with key `key` for `mover`, its side to move;
    /// `None` when nothing is.
    fn proven(&self, key: u64, mover: Color) -> Option<Proven> {
        let known = Known {
            flags: self.guarantees(key)?,
            turn: None,
        };
        let holds = |owner, guarantee| known.achieves(owner, guarantee) == Some(true);
        let other = mover.opposite();
        Some(if holds(mover, Guarantee::Win) {
            Proven::Win
        } else if holds(other, Guarantee::Win) {
            Proven::Loss
        } else {
            match (
                holds(mover, Guarantee::NoLoss),
                holds(other, Guarantee::NoLoss),
            ) {
                (true, true) => Proven::Draw,
                (true, false) => Proven::DrawOrBetter,
                (false, true) => Proven::DrawOrWorse,
                (false, false) => return None,
            }
        })
    }

    /// What is proved, for the side to move at `position`, about playing `turn` there.
    fn proven_after(&self, position: &Position, turn: Turn) -> Option<Proven> {
        let next = position.play(turn);
        self.proven(next.key(), next.side_to_move())
            .map(Proven::for_the_other_side)
    }

    /// Whether `owner` keeps `guarantee` from the position with key `key`: `Some(true)`
    /// when it is stored, `Some(false)` when the other side's result rules it out, `None`
    /// when nothing is known.
    fn achieves(&self, key: u64, owner: Color, guarantee: Guarantee) -> Option<bool> {
        let flags = self.guarantees(key)?;
        Known { flags, turn: None }.achieves(owner, guarantee)
    }

    /// The stored turn of `owner` (to move) that keeps `guarantee` from the position with
    /// key `key`.
    fn turn(&self, key: u64, owner: Color, guarantee: Guarantee) -> Option<Turn> {
        let known = self.known(key)?;
        (known.achieves(owner, guarantee) == Some(true))
            .then_some(known.turn)
            .flatten()
    }
}
