//! The two capture boards: Fanoron-Tsivy's 9 x 5 and Fanoron-Dimy's 5 x 5.
//!
//! Dimy's board is the files a to e of Tsivy's: the same points, lines and strong points
//! (file + rank even), with the files f to i left out. A Dimy position therefore lives in
//! the same bitboards; its off-board points are never empty and never hold an enemy stone,
//! so no step lands there and no capture run goes past the edge, and the generator is the
//! same code for both games.

use crate::rules::bitboard::Bitboard;
use crate::rules::geometry::{FILES, RANKS, Square};
use std::fmt;

/// Which board a game is played on.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Board {
    /// Fanoron-Tsivy: 9 x 5, 22 stones a side.
    #[default]
    Tsivy,
    /// Fanoron-Dimy: 5 x 5, 12 stones a side.
    Dimy,
}

/// The files a to e of every rank: Dimy's points.
const DIMY_POINTS: u64 = {
    let mut bits = 0;
    let mut rank = 0;
    while rank < RANKS as u64 {
        bits |= 0b1_1111 << (rank * FILES as u64);
        rank += 1;
    }
    bits
};

impl Board {
    /// Both boards.
    pub const ALL: [Board; 2] = [Board::Tsivy, Board::Dimy];

    /// Points a rank.
    #[inline]
    pub const fn files(self) -> u8 {
        match self {
            Board::Tsivy => FILES,
            Board::Dimy => 5,
        }
    }

    /// Ranks (five on both boards).
    #[inline]
    pub const fn ranks(self) -> u8 {
        RANKS
    }

    /// The points of the board.
    #[inline]
    pub const fn points(self) -> Bitboard {
        match self {
            Board::Tsivy => Bitboard::ALL,
            Board::Dimy => Bitboard::from_bits(DIMY_POINTS),
        }
    }

    /// The number of points: 45 for Tsivy, 25 for Dimy.
    #[inline]
    pub const fn point_count(self) -> usize {
        self.points().bits().count_ones() as usize
    }

    /// The points of Tsivy's board that this board lacks.
    #[inline]
    pub const fn off_board(self) -> Bitboard {
        match self {
            Board::Tsivy => Bitboard::EMPTY,
            Board::Dimy => Bitboard::from_bits(Bitboard::ALL.bits() ^ DIMY_POINTS),
        }
    }

    /// Whether `square` is a point of this board.
    #[inline]
    pub const fn contains(self, square: Square) -> bool {
        square.file() < self.files()
    }

    /// The stones a side starts with.
    pub const fn stones_per_side(self) -> u32 {
        match self {
            Board::Tsivy => 22,
            Board::Dimy => 12,
        }
    }

    /// The game's name as the `Variant` option spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Board::Tsivy => "tsivy",
            Board::Dimy => "dimy",
        }
    }

    /// `points` mirrored across this board's centre file.
    pub fn mirror_files(self, points: Bitboard) -> Bitboard {
        self.shift_back(points.mirror_files())
    }

    /// `points` turned by 180 degrees about this board's centre.
    pub fn rotate(self, points: Bitboard) -> Bitboard {
        self.shift_back(points.rotate())
    }

    /// Tsivy's file mirror sends file `f` to `8 - f`; on Dimy's five files that lands four
    /// files too far east.
    fn shift_back(self, mirrored: Bitboard) -> Bitboard {
        let extra = u32::from(FILES - self.files());
        Bitboard::from_bits(mirrored.bits() >> extra)
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} x {}", self.files(), self.ranks())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimy_is_the_files_a_to_e() {
        let points: Vec<String> = Board::Dimy
            .points()
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(points.len(), 25);
        assert_eq!(points[..6], ["a1", "b1", "c1", "d1", "e1", "a2"]);
        assert_eq!(points[24], "e5");
        assert!((Board::Dimy.points() & Bitboard::STRONG).count() == 13);
        for square in Square::all() {
            assert_eq!(
                Board::Dimy.contains(square),
                Board::Dimy.points().contains(square)
            );
        }
    }

    #[test]
    fn symmetries_stay_on_the_board_and_undo_themselves() {
        for board in Board::ALL {
            for square in board.points() {
                let one = Bitboard::from_square(square);
                for image in [board.mirror_files(one), board.rotate(one)] {
                    assert_eq!(image.count(), 1, "{board} {square}");
                    assert!((image & !board.points()).is_empty(), "{board} {square}");
                }
                assert_eq!(board.mirror_files(board.mirror_files(one)), one);
                assert_eq!(board.rotate(board.rotate(one)), one);
            }
        }
        let c3 = Bitboard::from_square(Square::new(2, 2).unwrap());
        assert_eq!(Board::Dimy.rotate(c3), c3);
        let a1 = Bitboard::from_square(Square::new(0, 0).unwrap());
        let e5 = Bitboard::from_square(Square::new(4, 4).unwrap());
        assert_eq!(Board::Dimy.rotate(a1), e5);
    }
}
