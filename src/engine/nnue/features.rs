//! The network's inputs: each side's view of the stones.
//!
//! A perspective sees "own" and "other" stones on the board turned so that its own side
//! starts at the bottom: White sees the board as it is, Black turned by 180 degrees. That
//! is the turn [`Position::flip`](crate::rules::position::Position::flip) makes, so a
//! position and its flip give the side to move the same inputs.

use crate::rules::geometry::NUM_SQUARES;
use crate::rules::position::Color;

/// Inputs per perspective: own stones on 45 points, then the other side's.
pub const INPUTS: usize = 2 * NUM_SQUARES;

/// The input index of a stone of `stone` on point `index`, seen by `perspective`.
#[inline]
pub fn feature(perspective: Color, stone: Color, index: usize) -> usize {
    let point = match perspective {
        Color::White => index,
        Color::Black => NUM_SQUARES - 1 - index,
    };
    if stone == perspective {
        point
    } else {
        NUM_SQUARES + point
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Position;

    fn active(perspective: Color, p: &Position) -> Vec<usize> {
        let mut v: Vec<usize> = [Color::White, Color::Black]
            .into_iter()
            .flat_map(|stone| p.stones(stone).into_iter().map(move |s| (stone, s)))
            .map(|(stone, square)| feature(perspective, stone, square.index()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_flipped_position_gives_the_same_inputs_to_the_same_side() {
        let p = crate::rules::fen::parse_position("1BB1B2WW/3B4W/8W/9/8W w 7 31").unwrap();
        let f = p.flip();
        for side in [Color::White, Color::Black] {
            assert_eq!(active(side, &p), active(side.opposite(), &f));
        }
        assert!(active(Color::White, &p).iter().all(|&i| i < INPUTS));
    }
}
