//! Playing Fanoron-Telo: the game is solved at start-up, so full strength reads the best
//! turn from the solution, and a depth limit plays what a search of that many plies would
//! see: wins and losses within reach, everything beyond taken as a draw.

use crate::random::Rng;
use crate::rules::telo::{TeloPosition, TeloSolution, TeloTurn, TeloValue};

/// What a turn leads to, for the side that plays it, as far as the player looks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outlook {
    /// A win, its last turn the `n`-th ply from now (1: this turn wins).
    Win(u32),
    /// A loss after `n` plies.
    Loss(u32),
    /// A draw, or nothing decided within the depth.
    Even,
}

impl Outlook {
    /// Larger is better: faster wins, slower losses.
    fn rank(self) -> i64 {
        match self {
            Outlook::Win(n) => 1_000 - i64::from(n),
            Outlook::Even => 0,
            Outlook::Loss(n) => -1_000 + i64::from(n),
        }
    }
}

/// The outlook of playing `turn` in `position`, seeing `depth` plies ahead (all of them
/// without a depth).
pub fn outlook(
    solution: &TeloSolution,
    position: &TeloPosition,
    turn: TeloTurn,
    depth: Option<u32>,
) -> Outlook {
    // The value after the turn is the opponent's, one ply later.
    let seen = |plies: u32| depth.is_none_or(|d| plies <= d);
    match solution.value(&position.play(turn)) {
        TeloValue::Loss(n) if seen(u32::from(n) + 1) => Outlook::Win(u32::from(n) + 1),
        TeloValue::Win(n) if seen(u32::from(n) + 1) => Outlook::Loss(u32::from(n) + 1),
        _ => Outlook::Even,
    }
}

/// The turn to play and its outlook: the best outlook within `depth` plies; among equals
/// the first in point order at full strength, one drawn by `rng` with a depth limit (so
/// that a weakened player varies). `None` when the game is over.
pub fn choose_turn(
    solution: &TeloSolution,
    position: &TeloPosition,
    depth: Option<u32>,
    rng: &mut Rng,
) -> Option<(TeloTurn, Outlook)> {
    let scored: Vec<(TeloTurn, Outlook)> = position
        .turns()
        .into_iter()
        .map(|turn| (turn, outlook(solution, position, turn, depth)))
        .collect();
    let best = scored.iter().map(|(_, o)| o.rank()).max()?;
    let equals: Vec<(TeloTurn, Outlook)> = scored
        .into_iter()
        .filter(|(_, o)| o.rank() == best)
        .collect();
    let pick = if depth.is_some() {
        rng.below(equals.len() as u64) as usize
    } else {
        0
    };
    Some(equals[pick])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_strength_wins_from_the_start_through_the_centre() {
        let solution = TeloSolution::solve();
        let start = TeloPosition::start();
        let mut rng = Rng::new(1);
        let (turn, outlook) = choose_turn(&solution, &start, None, &mut rng).unwrap();
        assert_eq!(turn.to_string(), "b2");
        assert_eq!(outlook, Outlook::Win(9));
    }

    #[test]
    fn a_shallow_player_sees_only_what_its_depth_reaches() {
        let solution = TeloSolution::solve();
        let start = TeloPosition::start();
        let mut rng = Rng::new(7);
        // Two plies see no decision from the start: every placement looks even, and over
        // many draws more than one is chosen.
        let mut chosen = std::collections::BTreeSet::new();
        for _ in 0..50 {
            let (turn, outlook) = choose_turn(&solution, &start, Some(2), &mut rng).unwrap();
            assert_eq!(outlook, Outlook::Even);
            chosen.insert(turn.to_string());
        }
        assert!(chosen.len() > 1, "{chosen:?}");
        // With a win on the board, one ply is enough to take it.
        let (position, _, _) = TeloPosition::parse("WW1/BB1/3 w").unwrap();
        let (turn, outlook) = choose_turn(&solution, &position, Some(1), &mut rng).unwrap();
        assert_eq!(
            (turn.to_string(), outlook),
            ("c3".to_string(), Outlook::Win(1))
        );
    }
}
