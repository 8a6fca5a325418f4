//! Static evaluation, in hundredths of a stone from the side to move's point of view.
//!
//! Only quiet positions are scored (the side to move has no capture: the search never
//! scores a forced capture statically unless its quiescence bound is reached). Every term
//! is computed the same way for both sides from geometry that a 180-degree turn preserves,
//! so a position and its [`Position::flip`] score the same for the side to move.

use crate::rules::bitboard::Bitboard;
use crate::rules::geometry::{Direction, NUM_SQUARES};
use crate::rules::movegen::paika_steps;
use crate::rules::position::Position;

/// The value of one stone.
pub const STONE_VALUE: i32 = 100;
/// Per stone on a strong point (eight lines instead of four).
const STRONG_POINT: i32 = 4;
/// Per paika step available (mobility).
const MOBILITY: i32 = 2;
/// Per stone of the side to move that the opponent could capture first if it were its
/// turn: the side to move must parry or lose it. (The converse term is always zero in a
/// quiet position, where the side to move has no capture.)
const THREATENED: i32 = 12;
/// With few stones, per step of distance between the stronger side's stones and the
/// weaker side's, so that the stronger side closes in instead of waiting for a draw.
const HUNT: i32 = 3;
/// "Few stones": the hunt term applies at or below this many stones in all.
const HUNT_STONES: u32 = 14;

/// One named term of the evaluation, for the `eval` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// Short name.
    pub name: &'static str,
    /// Score of the side to move, in hundredths of a stone.
    pub value: i32,
}

fn mobility(stones: Bitboard, empty: Bitboard) -> i32 {
    paika_steps(stones, empty) as i32
}

/// Stones of `victims` that `attackers` could capture first by one step into `empty` (a
/// cheap count: the first stone of each capture run).
fn attacked(attackers: Bitboard, victims: Bitboard, empty: Bitboard) -> i32 {
    let mut hit = Bitboard::EMPTY;
    for d in Direction::ALL {
        let back = d.opposite();
        let movers_ahead = (attackers.shift(d) & empty).shift(d);
        hit |= movers_ahead & victims;
        let withdrawing = attackers & empty.shift(back);
        hit |= withdrawing.shift(back) & victims;
    }
    hit.count() as i32
}

/// Chebyshev distance bound: no two points are further apart than this.
const MAX_DISTANCE: usize = 8;

const fn build_within() -> [[u64; MAX_DISTANCE + 1]; NUM_SQUARES] {
    let mut table = [[0u64; MAX_DISTANCE + 1]; NUM_SQUARES];
    let mut a = 0;
    while a < NUM_SQUARES {
        let mut b = 0;
        while b < NUM_SQUARES {
            let df = (a % 9).abs_diff(b % 9);
            let dr = (a / 9).abs_diff(b / 9);
            let d = if df > dr { df } else { dr };
            let mut r = d;
            while r <= MAX_DISTANCE {
                table[a][r] |= 1 << b;
                r += 1;
            }
            b += 1;
        }
        a += 1;
    }
    table
}

/// `WITHIN[point][r]`: the points at Chebyshev distance at most `r` from `point`.
const WITHIN: [[u64; MAX_DISTANCE + 1]; NUM_SQUARES] = build_within();

/// Sum over the `hunted` stones of the distance to the nearest `hunter`.
fn hunt_distance(hunters: Bitboard, hunted: Bitboard) -> i32 {
    if hunters.is_empty() {
        return 0;
    }
    hunted
        .into_iter()
        .map(|v| {
            let rings = &WITHIN[v.index()];
            rings
                .iter()
                .position(|&r| r & hunters.bits() != 0)
                .unwrap_or(0) as i32
        })
        .sum()
}

const TERM_NAMES: [&str; 5] = ["material", "strong points", "mobility", "threats", "hunt"];

/// The terms' values, in the order of `TERM_NAMES`; no allocation, for the search.
#[inline]
fn term_values(position: &Position) -> [i32; 5] {
    let (us, them, empty) = (position.us(), position.them(), position.empty());
    let (ours, theirs) = (us.count() as i32, them.count() as i32);
    let material = (ours - theirs) * STONE_VALUE;
    let strong = ((us & Bitboard::STRONG).count() as i32
        - (them & Bitboard::STRONG).count() as i32)
        * STRONG_POINT;
    let mobility = (mobility(us, empty) - mobility(them, empty)) * MOBILITY;
    let threats = -attacked(them, us, empty) * THREATENED;
    let hunt = if (ours + theirs) as u32 <= HUNT_STONES && ours != theirs {
        if ours > theirs {
            -hunt_distance(us, them) * HUNT
        } else {
            hunt_distance(them, us) * HUNT
        }
    } else {
        0
    };
    [material, strong, mobility, threats, hunt]
}

/// The terms that add up to [`evaluate`], for the `eval` command.
pub fn terms(position: &Position) -> Vec<Term> {
    TERM_NAMES
        .iter()
        .zip(term_values(position))
        .map(|(&name, value)| Term { name, value })
        .collect()
}

/// The score of the position for the side to move.
#[inline]
pub fn evaluate(position: &Position) -> i32 {
    term_values(position).iter().sum()
}

/// Material only: the evaluation's first term, kept for measuring the others against it.
#[inline]
pub fn evaluate_material(position: &Position) -> i32 {
    (position.us().count() as i32 - position.them().count() as i32) * STONE_VALUE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse_position;

    #[test]
    fn terms_add_up_and_flip_is_symmetric() {
        for fen in [
            "9/9/1BB6/9/W1B6 w",
            "B1BB1BBBB/B3BBBBB/1B2WBWBW/W2BWWWWW/W4WWWW b",
            "1BB1B2WW/3B4W/8W/9/8W w 7 31",
        ] {
            let p = parse_position(fen).unwrap();
            let sum: i32 = terms(&p).iter().map(|t| t.value).sum();
            assert_eq!(sum, evaluate(&p));
            assert_eq!(evaluate(&p), evaluate(&p.flip()), "{fen}");
        }
    }

    #[test]
    fn hunt_distance_is_the_nearest_hunter_per_stone() {
        // Black a1 and i5; white e3 is 4 from both, white h4 is 1 from i5.
        let p = parse_position("8B/7W1/4W4/9/B8 w").unwrap();
        assert_eq!(hunt_distance(p.us(), p.them()), 4 + 1);
    }

    #[test]
    fn attacked_counts_first_victims() {
        // Black b1 can withdraw from white a1 to c1; white a1 has no capture.
        let p = parse_position("9/9/9/9/WB7 w").unwrap();
        assert_eq!(attacked(p.us(), p.them(), p.empty()), 0);
        assert_eq!(attacked(p.them(), p.us(), p.empty()), 1);
    }
}
