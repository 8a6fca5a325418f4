//! A position: the stones of both sides, the side to move, the two counters and a hash key.

use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::geometry::Square;
use crate::rules::turn::Turn;
use crate::rules::zobrist::{BLACK_TO_MOVE_KEY, STONE_KEYS};
use std::fmt;

/// The most stones one side can have on any board: Tsivy's start position's count, since
/// stones only leave.
pub const MAX_STONES_PER_SIDE: u32 = 22;

/// A side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Moves first; starts on ranks 1 and 2.
    White,
    /// Starts on ranks 4 and 5.
    Black,
}

impl Color {
    /// The other side.
    #[inline]
    pub const fn opposite(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name, as in "white".
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The colour whose [`Color::name`] is `name` (lower case, exactly).
    pub fn from_name(name: &str) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|color| color.name() == name)
    }
}

/// Why a set of stones and counters is not a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A point holds a stone of both colours.
    Overlap(Square),
    /// More stones of one colour than a game on this board can have.
    TooManyStones {
        /// The colour with too many.
        color: Color,
        /// How many it has.
        count: u32,
        /// How many a side starts with on this board.
        most: u32,
    },
    /// A stone on a point that the board does not have (files f to i on Dimy's board).
    OffBoard(Square),
    /// The move number starts at 1.
    ZeroMoveNumber,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Overlap(square) => write!(f, "{square} holds two stones"),
            PositionError::TooManyStones { color, count, most } => {
                write!(f, "{count} {} stones (at most {most})", color.name())
            }
            PositionError::OffBoard(square) => write!(f, "{square} is not on the board"),
            PositionError::ZeroMoveNumber => write!(f, "move number must be at least 1"),
        }
    }
}

impl std::error::Error for PositionError {}

/// A position. Built only through [`Position::start`], [`Position::new`] or a position string
/// (see [`crate::rules::fen`]), so the stones never overlap and the key always matches them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    stones: [Bitboard; 2],
    side_to_move: Color,
    board: Board,
    turns_since_capture: u32,
    move_number: u32,
    key: u64,
}

impl Position {
    /// The position at the start of a Fanoron-Tsivy game.
    pub fn start() -> Position {
        Position::start_on(Board::Tsivy)
    }

    /// The position at the start of a game on `board`: White on ranks 1 and 2, Black on
    /// ranks 4 and 5, and the middle rank alternating from Black on a1's file, with the
    /// centre empty and White to move (Tsivy's `BWBW1BWBW`, Dimy's `BW1BW`).
    pub fn start_on(board: Board) -> Position {
        let files = board.files();
        let centre = files / 2;
        let rank = |r: u8| -> Bitboard { (0..files).filter_map(|f| Square::new(f, r)).collect() };
        let middle = |color: u8| -> Bitboard {
            (0..files)
                .filter(|&f| f != centre && (f + u8::from(f > centre)) % 2 == color)
                .filter_map(|f| Square::new(f, 2))
                .collect()
        };
        Position::new_on(
            board,
            rank(0) | rank(1) | middle(1),
            rank(3) | rank(4) | middle(0),
            Color::White,
            0,
            1,
        )
        .expect("the start position is valid")
    }

    /// A Fanoron-Tsivy position from its parts, checked as [`Position::new_on`] does.
    pub fn new(
        white: Bitboard,
        black: Bitboard,
        side_to_move: Color,
        turns_since_capture: u32,
        move_number: u32,
    ) -> Result<Position, PositionError> {
        Position::new_on(
            Board::Tsivy,
            white,
            black,
            side_to_move,
            turns_since_capture,
            move_number,
        )
    }

    /// A position on `board` from its parts, checked: every stone is on the board, no
    /// point holds two stones, no side has more stones than it starts with, the move
    /// number is at least 1.
    pub fn new_on(
        board: Board,
        white: Bitboard,
        black: Bitboard,
        side_to_move: Color,
        turns_since_capture: u32,
        move_number: u32,
    ) -> Result<Position, PositionError> {
        if let Some(square) = ((white | black) & !board.points()).first() {
            return Err(PositionError::OffBoard(square));
        }
        if let Some(square) = (white & black).first() {
            return Err(PositionError::Overlap(square));
        }
        for (color, stones) in [(Color::White, white), (Color::Black, black)] {
            if stones.count() > board.stones_per_side() {
                return Err(PositionError::TooManyStones {
                    color,
                    count: stones.count(),
                    most: board.stones_per_side(),
                });
            }
        }
        if move_number == 0 {
            return Err(PositionError::ZeroMoveNumber);
        }
        Ok(Position::new_unchecked(
            board,
            white,
            black,
            side_to_move,
            turns_since_capture,
            move_number,
        ))
    }

    fn new_unchecked(
        board: Board,
        white: Bitboard,
        black: Bitboard,
        side_to_move: Color,
        turns_since_capture: u32,
        move_number: u32,
    ) -> Position {
        let mut position = Position {
            stones: [white, black],
            side_to_move,
            board,
            turns_since_capture,
            move_number,
            key: 0,
        };
        position.key = position.compute_key();
        position
    }

    fn compute_key(&self) -> u64 {
        let mut key = 0;
        for color in [Color::White, Color::Black] {
            for square in self.stones(color) {
                key ^= STONE_KEYS[color.index()][square.index()];
            }
        }
        if self.side_to_move == Color::Black {
            key ^= BLACK_TO_MOVE_KEY;
        }
        key
    }

    /// The stones of `color`.
    #[inline]
    pub const fn stones(&self, color: Color) -> Bitboard {
        self.stones[color.index()]
    }

    /// The stones of the side to move.
    #[inline]
    pub const fn us(&self) -> Bitboard {
        self.stones[self.side_to_move.index()]
    }

    /// The stones of the side not to move.
    #[inline]
    pub const fn them(&self) -> Bitboard {
        self.stones[self.side_to_move.opposite().index()]
    }

    /// Every point with a stone.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.stones[0] | self.stones[1]
    }

    /// Every point of the board without a stone.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        self.board.points() & !self.occupied()
    }

    /// The board the game is played on.
    #[inline]
    pub const fn board(&self) -> Board {
        self.board
    }

    /// The stones of the side to move together with the points off the board: the points
    /// a stone of the side to move can never step onto, whatever it captures.
    #[inline]
    pub fn us_and_off_board(&self) -> Bitboard {
        self.us() | self.board.off_board()
    }

    /// The colour of the stone on `square`, if any.
    pub fn stone_at(&self, square: Square) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.stones(c).contains(square))
    }

    /// The side whose turn it is.
    #[inline]
    pub const fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// Turns played since the last capture (0 right after a capturing turn).
    #[inline]
    pub const fn turns_since_capture(&self) -> u32 {
        self.turns_since_capture
    }

    /// The move number: starts at 1 and goes up after each Black turn.
    #[inline]
    pub const fn move_number(&self) -> u32 {
        self.move_number
    }

    /// A 64-bit hash of the stones and the side to move (not the counters): equal for
    /// positions that count as the same for repetition.
    #[inline]
    pub const fn key(&self) -> u64 {
        self.key
    }

    /// True when both positions have the same stones and the same side to move, which is
    /// what threefold repetition compares.
    #[inline]
    pub fn same_placement(&self, other: &Position) -> bool {
        self.key == other.key
            && self.stones == other.stones
            && self.side_to_move == other.side_to_move
    }

    /// The position after `turn`, which must be legal here (the caller took it from the
    /// move generator or the notation parser).
    #[inline]
    pub fn play(&self, turn: Turn) -> Position {
        let us = self.side_to_move;
        let them = us.opposite();
        debug_assert!(self.stones(us).contains(turn.from()));
        // The landing point was empty, or held an enemy stone the chain took on the way.
        debug_assert!((self.empty() | turn.captured()).contains(turn.to()));
        debug_assert!((turn.captured() & !self.stones(them)).is_empty());

        let mut next = *self;
        next.stones[us.index()] ^= Bitboard::from_square(turn.from()) | turn.to().into();
        next.key ^= STONE_KEYS[us.index()][turn.from().index()]
            ^ STONE_KEYS[us.index()][turn.to().index()]
            ^ BLACK_TO_MOVE_KEY;
        if turn.is_capture() {
            next.stones[them.index()] ^= turn.captured();
            for square in turn.captured() {
                next.key ^= STONE_KEYS[them.index()][square.index()];
            }
            next.turns_since_capture = 0;
        } else {
            next.turns_since_capture = self.turns_since_capture.saturating_add(1);
        }
        if us == Color::Black {
            next.move_number = self.move_number.saturating_add(1);
        }
        next.side_to_move = them;
        next
    }

    /// The position with the other side to move and nothing else changed. Passing is no
    /// legal turn in Fanorona: this is the search's null move, which asks whether a
    /// position is so good that even doing nothing keeps it good.
    #[inline]
    pub fn with_turn_passed(&self) -> Position {
        let mut next = *self;
        next.side_to_move = self.side_to_move.opposite();
        next.key ^= BLACK_TO_MOVE_KEY;
        next
    }

    /// The same game seen from the other side: colours swapped and the board turned by 180
    /// degrees, so the start position maps to itself. The evaluation must give a position
    /// and its flip the same score for the side to move.
    pub fn flip(&self) -> Position {
        Position::new_unchecked(
            self.board,
            self.board.rotate(self.stones(Color::Black)),
            self.board.rotate(self.stones(Color::White)),
            self.side_to_move.opposite(),
            self.turns_since_capture,
            self.move_number,
        )
    }

    /// The position mirrored across the centre file, everything else kept.
    pub fn mirror_files(&self) -> Position {
        self.map_stones(|b| self.board.mirror_files(b))
    }

    /// The position mirrored across the centre rank, everything else kept.
    pub fn mirror_ranks(&self) -> Position {
        self.map_stones(Bitboard::mirror_ranks)
    }

    /// The position turned by 180 degrees, everything else kept.
    pub fn rotate(&self) -> Position {
        self.map_stones(|b| self.board.rotate(b))
    }

    fn map_stones(&self, f: impl Fn(Bitboard) -> Bitboard) -> Position {
        Position::new_unchecked(
            self.board,
            f(self.stones[0]),
            f(self.stones[1]),
            self.side_to_move,
            self.turns_since_capture,
            self.move_number,
        )
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_has_22_stones_each_and_an_empty_centre() {
        let p = Position::start();
        assert_eq!(p.stones(Color::White).count(), 22);
        assert_eq!(p.stones(Color::Black).count(), 22);
        assert_eq!(
            p.empty().into_iter().collect::<Vec<_>>(),
            [Square::new(4, 2).unwrap()]
        );
        assert_eq!(p.side_to_move(), Color::White);
    }

    #[test]
    fn start_is_its_own_flip() {
        let p = Position::start();
        assert_eq!(p.flip().stones, p.stones);
        assert_eq!(p.flip().flip(), p);
    }

    #[test]
    fn new_rejects_overlap_and_overflow() {
        let a1 = Bitboard::from_square(Square::new(0, 0).unwrap());
        assert_eq!(
            Position::new(a1, a1, Color::White, 0, 1),
            Err(PositionError::Overlap(Square::new(0, 0).unwrap()))
        );
        let full = Bitboard::from_bits(0x7f_ffff);
        assert!(matches!(
            Position::new(full, Bitboard::EMPTY, Color::White, 0, 1),
            Err(PositionError::TooManyStones { count: 23, .. })
        ));
        let f1 = Bitboard::from_square(Square::new(5, 0).unwrap());
        assert_eq!(
            Position::new_on(Board::Dimy, a1, f1, Color::White, 0, 1),
            Err(PositionError::OffBoard(Square::new(5, 0).unwrap()))
        );
        let thirteen = Bitboard::from_bits(0b1_1111 | 0b1_1111 << 9 | 0b111 << 18);
        assert!(matches!(
            Position::new_on(Board::Dimy, thirteen, Bitboard::EMPTY, Color::White, 0, 1),
            Err(PositionError::TooManyStones {
                count: 13,
                most: 12,
                ..
            })
        ));
        assert_eq!(
            Position::new(a1, Bitboard::EMPTY, Color::White, 0, 0),
            Err(PositionError::ZeroMoveNumber)
        );
    }

    #[test]
    fn play_updates_key_incrementally() {
        let p = Position::start();
        let d3 = Square::new(3, 2).unwrap();
        let e3 = Square::new(4, 2).unwrap();
        let c3 = Square::new(2, 2).unwrap();
        let b3 = Square::new(1, 2).unwrap();
        // d3e3W removes c3 only (b3 is white, so the run stops).
        assert!(p.stones(Color::Black).contains(c3));
        assert!(p.stones(Color::White).contains(b3));
        let next = p.play(Turn::new(d3, e3, c3.into()));
        assert_eq!(next.key(), next.compute_key());
        assert_eq!(next.side_to_move(), Color::Black);
        assert_eq!(next.turns_since_capture(), 0);
        assert_eq!(next.move_number(), 1);
        assert_eq!(next.stones(Color::Black).count(), 21);
    }
}
