//! The one-byte codes of the board, the chain rule and the colours in the solver's files
//! (checkpoints and proofs), both ways.

use crate::rules::ChainRule;
use crate::rules::board::Board;
use crate::rules::position::Color;

/// 0 Tsivy, 1 Dimy.
pub fn board_code(board: Board) -> u8 {
    match board {
        Board::Tsivy => 0,
        Board::Dimy => 1,
    }
}

/// The board of a code, if it is one.
pub fn board_of(code: u8) -> Option<Board> {
    [Board::Tsivy, Board::Dimy].get(usize::from(code)).copied()
}

/// 0 optional, 1 mandatory.
pub fn chain_code(rule: ChainRule) -> u8 {
    match rule {
        ChainRule::Optional => 0,
        ChainRule::Mandatory => 1,
    }
}

/// The chain rule of a code, if it is one.
pub fn chain_of(code: u8) -> Option<ChainRule> {
    [ChainRule::Optional, ChainRule::Mandatory]
        .get(usize::from(code))
        .copied()
}

/// 0 White, 1 Black.
pub fn color_code(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The colour of a code, if it is one.
pub fn color_of(code: u8) -> Option<Color> {
    [Color::White, Color::Black].get(usize::from(code)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_back_and_others_are_refused() {
        for board in [Board::Tsivy, Board::Dimy] {
            assert_eq!(board_of(board_code(board)), Some(board));
        }
        for rule in [ChainRule::Optional, ChainRule::Mandatory] {
            assert_eq!(chain_of(chain_code(rule)), Some(rule));
        }
        for color in [Color::White, Color::Black] {
            assert_eq!(color_of(color_code(color)), Some(color));
        }
        assert_eq!((board_of(2), chain_of(2), color_of(2)), (None, None, None));
    }
}
