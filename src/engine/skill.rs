//! Weaker play for people: `Skill Level` 0 to 19 (20 is full strength), and `UCI_Elo`
//! mapped onto those levels by a table measured in games.
//!
//! A weakened search is capped in depth and searches several lines (MultiPV); the turn is
//! then drawn from those lines with probabilities that fall off exponentially with the
//! score lost against the best (a softmax). Low levels see little and pick loosely, so
//! they blunder stones the way a beginner does, yet every turn they play is legal and one
//! that a short search thought reasonable.

use crate::rules::turn::Turn;

/// Full strength: no cap, no drawing of lots.
pub const FULL_STRENGTH: u32 = 20;

/// The deepest iteration a weakened search runs: 1 at level 0, 7 at level 19.
pub fn depth_cap(level: u32) -> u32 {
    1 + level.min(FULL_STRENGTH - 1) / 3
}

/// How many root lines a weakened search scores, to draw the turn from.
pub const LINES: usize = 4;

/// The softmax temperature in centi-stones: a turn that loses `t` against the best is
/// `e` times less likely. 400 at level 0, falling by a fifth with each level (43 at 10,
/// 6 at 19), so that the levels are evenly spaced in strength rather than in numbers.
pub fn temperature(level: u32) -> f64 {
    400.0 * 0.8f64.powi(level.min(FULL_STRENGTH - 1) as i32)
}

/// Draws a turn from `lines` (each with its score for the side to move, best first) for
/// `level`, with `random` uniform in `[0, 1)`. `None` for no lines.
pub fn choose(lines: &[(Turn, i32)], level: u32, random: f64) -> Option<Turn> {
    let best = lines.iter().map(|&(_, score)| score).max()?;
    let t = temperature(level);
    let weights: Vec<f64> = lines
        .iter()
        .map(|&(_, score)| ((f64::from(score) - f64::from(best)) / t).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut target = random.clamp(0.0, 1.0) * total;
    for (&(turn, _), weight) in lines.iter().zip(&weights) {
        if target < *weight {
            return Some(turn);
        }
        target -= weight;
    }
    lines.last().map(|&(turn, _)| turn)
}

/// Elo of each level against the others, measured with `vato match` (README, "Playing
/// strength"), anchored at level 0 = 500. Levels between two measured ones are
/// interpolated.
const MEASURED: [(u32, u32); 5] = [(0, 500), (5, 785), (10, 1086), (15, 1254), (20, 1423)];

/// The level whose measured Elo is nearest to `elo` from below (level 0 below the table,
/// full strength above it).
pub fn level_for_elo(elo: u32) -> u32 {
    let mut level = 0;
    for pair in MEASURED.windows(2) {
        let ((l0, e0), (l1, e1)) = (pair[0], pair[1]);
        if elo >= e1 {
            level = l1;
        } else if elo >= e0 {
            level = l0 + (elo - e0) * (l1 - l0) / (e1 - e0);
            break;
        }
    }
    level
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Rng;
    use crate::rules::ChainRule;
    use crate::rules::movegen::legal_turns;
    use crate::rules::position::Position;

    #[test]
    fn weaker_levels_see_less_and_pick_more_loosely() {
        assert_eq!(depth_cap(0), 1);
        assert_eq!(depth_cap(19), 7);
        assert!(temperature(0) > temperature(10) && temperature(10) > temperature(19));
    }

    #[test]
    fn the_best_line_is_the_likeliest_and_a_far_worse_one_is_rare() {
        let turns = legal_turns(&Position::start(), ChainRule::Optional);
        let lines = [(turns[0], 100), (turns[1], 60), (turns[2], -400)];
        let mut lots = Rng::new(1);
        let mut counts = [0; 3];
        for _ in 0..10_000 {
            let turn = choose(&lines, 10, lots.next_unit()).unwrap();
            counts[lines.iter().position(|l| l.0 == turn).unwrap()] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2], "{counts:?}");
        assert!(counts[2] < 200, "{counts:?}");
        assert_eq!(choose(&[], 10, 0.5), None);
    }

    #[test]
    fn elo_maps_onto_levels_monotonically() {
        assert_eq!(level_for_elo(0), 0);
        assert_eq!(level_for_elo(500), 0);
        assert_eq!(level_for_elo(1423), 20);
        assert_eq!(level_for_elo(1086), 10);
        let mut last = 0;
        for elo in (500..=1500).step_by(25) {
            let level = level_for_elo(elo);
            assert!(level >= last, "{elo}");
            last = level;
        }
    }
}
