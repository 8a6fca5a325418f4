//! Turns (moves) as values: what a turn does to the board, and the routes that spell it.

use crate::rules::bitboard::Bitboard;
use crate::rules::geometry::Square;

/// One legal turn, identified by what it does: the stone that moves, where it ends, and the
/// enemy stones it removes. Two chains of the same stone that end on the same point with the
/// same captures are one `Turn`; a paika is a turn with no capture.
///
/// Packed in one word (captured points in the low 45 bits, the landing point from bit 48,
/// the starting point from bit 56), so that move lists are small and two turns compare in
/// one instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Turn(u64);

const TO_SHIFT: u32 = 48;
const FROM_SHIFT: u32 = 56;

impl Turn {
    /// A turn from its parts. Legality is the move generator's business, not checked here.
    #[inline]
    pub const fn new(from: Square, to: Square, captured: Bitboard) -> Turn {
        Turn(
            captured.bits() | (to.index() as u64) << TO_SHIFT | (from.index() as u64) << FROM_SHIFT,
        )
    }

    /// The point the stone starts from.
    #[inline]
    pub const fn from(self) -> Square {
        Square::from_index_unchecked((self.0 >> FROM_SHIFT) as u8)
    }

    /// The point the stone ends on.
    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index_unchecked((self.0 >> TO_SHIFT) as u8 & 0x3F)
    }

    /// The enemy stones the turn removes (empty for a paika).
    #[inline]
    pub const fn captured(self) -> Bitboard {
        Bitboard::from_bits(self.0)
    }

    /// The packed word: equal for equal turns, different otherwise (for hashing).
    #[inline]
    pub(crate) const fn key(self) -> u64 {
        self.0
    }

    /// True when the turn captures at least one stone.
    #[inline]
    pub const fn is_capture(self) -> bool {
        self.captured().any()
    }

    /// The same turn on a board mirrored across the centre file.
    pub fn mirror_files(self) -> Turn {
        Turn::new(
            self.from().mirror_files(),
            self.to().mirror_files(),
            self.captured().mirror_files(),
        )
    }

    /// The same turn on a board mirrored across the centre rank.
    pub fn mirror_ranks(self) -> Turn {
        Turn::new(
            self.from().mirror_ranks(),
            self.to().mirror_ranks(),
            self.captured().mirror_ranks(),
        )
    }

    /// The same turn on a board rotated by 180 degrees.
    pub fn rotate(self) -> Turn {
        Turn::new(
            self.from().rotate(),
            self.to().rotate(),
            self.captured().rotate(),
        )
    }
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn")
            .field("from", &self.from())
            .field("to", &self.to())
            .field("captured", &self.captured())
            .finish()
    }
}

/// How a capturing step removes stones.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CaptureKind {
    /// The step ends next to the enemy stone it moves towards.
    Approach,
    /// The step moves away from the enemy stone directly behind it.
    Withdrawal,
}

impl CaptureKind {
    /// The notation letter: `A` or `W`.
    pub const fn letter(self) -> char {
        match self {
            CaptureKind::Approach => 'A',
            CaptureKind::Withdrawal => 'W',
        }
    }
}

/// One step of a route: the landing point and, for a capturing step, how it captured.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// Landing point of the step.
    pub to: Square,
    /// `None` only for the single step of a paika.
    pub kind: Option<CaptureKind>,
}

/// One way of playing a turn, step by step: what the notation spells. Several routes may
/// give the same [`Turn`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Route {
    /// The turn this route plays.
    pub turn: Turn,
    /// The steps in order; never empty.
    pub steps: Vec<Step>,
}
