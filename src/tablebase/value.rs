//! A position's value in the tables and its two-byte code.

use std::fmt;

/// Win, draw or loss for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The side to move can force a win.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The opponent can force a win.
    Loss,
}

/// A position's value for the side to move: the outcome and, for wins and losses, the turns
/// to the next capture or the end under best play (fastest for the winner, slowest for the
/// loser). A loss with distance 0 has no legal turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// Win, draw or loss.
    pub outcome: Outcome,
    /// Turns to the next capture or the end; 0 for draws.
    pub distance: u16,
}

pub(super) const WIN_BIT: u16 = 0x8000;
pub(super) const LOSS_BIT: u16 = 0x4000;
pub(super) const DISTANCE_MASK: u16 = 0x3fff;
pub(super) const DRAW_CODE: u16 = 0;

impl Value {
    /// A draw.
    pub const DRAW: Value = Value {
        outcome: Outcome::Draw,
        distance: 0,
    };

    pub(super) fn decode(code: u16) -> Value {
        let distance = code & DISTANCE_MASK;
        if code & WIN_BIT != 0 {
            Value {
                outcome: Outcome::Win,
                distance,
            }
        } else if code & LOSS_BIT != 0 {
            Value {
                outcome: Outcome::Loss,
                distance,
            }
        } else {
            Value::DRAW
        }
    }

    /// The two-byte code of the value, as the solver keeps it ([`Value::decode`] reads it).
    pub(super) fn code(self) -> u16 {
        match self.outcome {
            Outcome::Win => win_code(self.distance),
            Outcome::Draw => DRAW_CODE,
            Outcome::Loss => loss_code(self.distance),
        }
    }

    /// The value of the turn leading to a child with value `self` (the opponent's view),
    /// seen by the side that plays it: a capture resets the distance, a paika adds one.
    pub fn through_turn(self, capture: bool) -> Value {
        let distance = if capture { 1 } else { self.distance + 1 };
        match self.outcome {
            Outcome::Win => Value {
                outcome: Outcome::Loss,
                distance,
            },
            Outcome::Loss => Value {
                outcome: Outcome::Win,
                distance,
            },
            Outcome::Draw => Value::DRAW,
        }
    }

    /// True when the value holds under a no-capture limit of `limit` turns (0: none) in a
    /// position reached `turns_since_capture` turns after the last capture: a draw always,
    /// a win or a loss when its next capture (or the end) comes before the limit draws the
    /// game. The distances know nothing of the limit, so a longer one may be a draw.
    pub fn holds_within(self, turns_since_capture: u32, limit: u32) -> bool {
        self.outcome == Outcome::Draw
            || limit == 0
            || turns_since_capture + u32::from(self.distance) <= limit
    }

    /// An ordering key: larger is better for the side to move (fast wins, slow losses).
    pub fn preference(self) -> i32 {
        match self.outcome {
            Outcome::Win => 100_000 - i32::from(self.distance),
            Outcome::Draw => 0,
            Outcome::Loss => -100_000 + i32::from(self.distance),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Win => write!(f, "win {}", self.distance),
            Outcome::Draw => write!(f, "draw"),
            Outcome::Loss => write!(f, "loss {}", self.distance),
        }
    }
}

pub(super) fn win_code(distance: u16) -> u16 {
    WIN_BIT | distance
}

pub(super) fn loss_code(distance: u16) -> u16 {
    LOSS_BIT | distance
}
