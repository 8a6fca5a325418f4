//! What the proof store knows of one position: the guarantees proved there, as bits, and
//! the turn of its side to move.

use super::strategy::Guarantee;
use crate::rules::position::Color;
use crate::rules::turn::Turn;

/// A turn field that holds no turn: the other side is to move.
pub(super) const NO_TURN: u64 = u64::MAX;

/// The bit of `owner`'s `guarantee` in an entry's flags.
pub(super) fn flag(owner: Color, guarantee: Guarantee) -> u8 {
    let side = match owner {
        Color::White => 0,
        Color::Black => 1,
    };
    match guarantee {
        Guarantee::Win => 1 << side,
        Guarantee::NoLoss => 4 << side,
    }
}

/// What a store knows of one position: the guarantees proved there and the turn of its
/// side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Known {
    /// The guarantees proved there (see [`flag`]).
    pub(super) flags: u8,
    /// The turn of the side to move, when one of its guarantees is proved.
    pub(super) turn: Option<Turn>,
}

impl Known {
    /// Whether `owner` keeps `guarantee` here: `Some(true)` when it is stored,
    /// `Some(false)` when the other side's result rules it out, `None` when unknown.
    pub(super) fn achieves(self, owner: Color, guarantee: Guarantee) -> Option<bool> {
        let other = owner.opposite();
        let (holds, broken) = match guarantee {
            Guarantee::Win => (
                flag(owner, Guarantee::Win),
                flag(other, Guarantee::Win) | flag(other, Guarantee::NoLoss),
            ),
            Guarantee::NoLoss => (
                flag(owner, Guarantee::Win) | flag(owner, Guarantee::NoLoss),
                flag(other, Guarantee::Win),
            ),
        };
        if self.flags & holds != 0 {
            Some(true)
        } else if self.flags & broken != 0 {
            Some(false)
        } else {
            None
        }
    }

    /// Its guarantees and its turn packed as a segment stores them (all ones for none).
    pub(super) fn to_parts(self) -> (u8, u64) {
        (self.flags, self.turn.map_or(NO_TURN, |t| t.key()))
    }

    /// `self` with what `later` adds: its guarantees, and its turn where the side to move
    /// had none, or where its win is new (a win's turn must make progress; a turn of a win
    /// also keeps the side from losing).
    pub(super) fn with(self, later: Known) -> Known {
        let wins = 0b11;
        let new_win = later.turn.is_some() && later.flags & wins & !self.flags != 0;
        Known {
            flags: self.flags | later.flags,
            turn: if self.turn.is_none() || new_win {
                later.turn.or(self.turn)
            } else {
                self.turn
            },
        }
    }
}
