//! Sets of points as bits of a `u64`, and the set-wise shifts along the board's lines.

use crate::rules::geometry::{Direction, NUM_SQUARES, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of points. Bit `i` stands for the point with index `i`; bits 45..63 are always clear.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(u64);

const FILE_A: u64 = 1 | 1 << 9 | 1 << 18 | 1 << 27 | 1 << 36;
const FILE_I: u64 = FILE_A << 8;

const fn strong_mask() -> u64 {
    let mut mask = 0u64;
    let mut i = 0;
    while i < NUM_SQUARES {
        if (i % 9 + i / 9) % 2 == 0 {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
}

impl Bitboard {
    /// No point.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 45 points.
    pub const ALL: Bitboard = Bitboard((1 << NUM_SQUARES) - 1);
    /// The 23 strong points (those with diagonal lines).
    pub const STRONG: Bitboard = Bitboard(strong_mask());

    /// The set of the bits of `bits` that are points; higher bits are dropped.
    #[inline]
    pub const fn from_bits(bits: u64) -> Bitboard {
        Bitboard(bits & Bitboard::ALL.0)
    }

    /// The raw bits.
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The set holding only `square`.
    #[inline]
    pub const fn from_square(square: Square) -> Bitboard {
        Bitboard(1 << square.index())
    }

    /// True when the set has no point.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when the set has at least one point.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of points in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True when `square` is in the set.
    #[inline]
    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1 << square.index()) != 0
    }

    /// The point with the lowest index, if any.
    #[inline]
    pub fn first(self) -> Option<Square> {
        (self.0 != 0).then(|| Square::from_index_unchecked(self.0.trailing_zeros() as u8))
    }

    /// Every point of the set moved one step in `direction` along a line; points with no
    /// line that way drop out. Diagonal shifts therefore move strong points only.
    #[inline]
    pub const fn shift(self, direction: Direction) -> Bitboard {
        let b = self.0;
        const NOT_A: u64 = Bitboard::ALL.0 & !FILE_A;
        const NOT_I: u64 = Bitboard::ALL.0 & !FILE_I;
        const STRONG: u64 = Bitboard::STRONG.0;
        let shifted = match direction {
            Direction::North => b << 9,
            Direction::South => b >> 9,
            Direction::East => (b & NOT_I) << 1,
            Direction::West => (b & NOT_A) >> 1,
            Direction::NorthEast => (b & STRONG & NOT_I) << 10,
            Direction::NorthWest => (b & STRONG & NOT_A) << 8,
            Direction::SouthEast => (b & STRONG & NOT_I) >> 8,
            Direction::SouthWest => (b & STRONG & NOT_A) >> 10,
        };
        Bitboard(shifted & Bitboard::ALL.0)
    }

    /// Mirror image across the centre file.
    pub fn mirror_files(self) -> Bitboard {
        self.map(Square::mirror_files)
    }

    /// Mirror image across the centre rank.
    pub fn mirror_ranks(self) -> Bitboard {
        self.map(Square::mirror_ranks)
    }

    /// Rotation by 180 degrees about e3.
    pub fn rotate(self) -> Bitboard {
        Bitboard(self.0.reverse_bits() >> (64 - NUM_SQUARES))
    }

    fn map(self, f: impl Fn(Square) -> Square) -> Bitboard {
        self.into_iter()
            .fold(Bitboard::EMPTY, |acc, s| acc | Bitboard::from_square(f(s)))
    }
}

impl From<Square> for Bitboard {
    fn from(square: Square) -> Bitboard {
        Bitboard::from_square(square)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter()
            .fold(Bitboard::EMPTY, |acc, s| acc | Bitboard::from_square(s))
    }
}

/// Iterates the points of a set in index order.
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square::from_index_unchecked(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

macro_rules! bit_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $method(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_method(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the board: never sets the bits above the 45 points.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::ALL.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_masks_hold_the_edge_files() {
        let a: Vec<String> = Bitboard(FILE_A)
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(a, ["a1", "a2", "a3", "a4", "a5"]);
        let i: Vec<String> = Bitboard(FILE_I)
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(i, ["i1", "i2", "i3", "i4", "i5"]);
    }

    #[test]
    fn shift_agrees_with_neighbor_table() {
        for square in Square::all() {
            for d in Direction::ALL {
                let shifted = Bitboard::from_square(square).shift(d);
                let expected = square
                    .neighbor(d)
                    .map_or(Bitboard::EMPTY, Bitboard::from_square);
                assert_eq!(shifted, expected, "{square} {d:?}");
            }
        }
    }

    #[test]
    fn rotate_agrees_with_square_rotation() {
        for square in Square::all() {
            assert_eq!(
                Bitboard::from_square(square).rotate(),
                Bitboard::from_square(square.rotate())
            );
        }
    }

    #[test]
    fn complement_stays_on_the_board() {
        assert_eq!(!Bitboard::EMPTY, Bitboard::ALL);
        assert_eq!((!Bitboard::ALL).bits(), 0);
        assert_eq!(Bitboard::STRONG.count(), 23);
    }
}
