//! Which of a book position's turns to play.

use super::contents::BookTurn;

/// The turn to play among `turns` (in the book's order), keeping only those `allowed`
/// accepts and that have a weight: the first (the highest weight, then the best score)
/// without `variety`, else one drawn with chances in proportion to the weights, `unit`
/// being a uniform draw in `[0, 1)`. `None` when no turn qualifies.
pub fn choose(
    turns: &[BookTurn],
    allowed: impl Fn(&BookTurn) -> bool,
    variety: bool,
    unit: f64,
) -> Option<&BookTurn> {
    let candidates: Vec<&BookTurn> = turns
        .iter()
        .filter(|t| t.weight > 0 && allowed(t))
        .collect();
    if !variety {
        return candidates.first().copied();
    }
    let total: u64 = candidates.iter().map(|t| u64::from(t.weight)).sum();
    let mut mark = (unit.clamp(0.0, 1.0) * total as f64) as u64;
    for turn in &candidates {
        if mark < u64::from(turn.weight) {
            return Some(turn);
        }
        mark -= u64::from(turn.weight);
    }
    candidates.last().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns() -> Vec<BookTurn> {
        [("a", 30), ("b", 10), ("c", 0)]
            .iter()
            .map(|&(text, weight)| BookTurn {
                turn: text.into(),
                weight,
                score: 0,
                depth: 1,
            })
            .collect()
    }

    #[test]
    fn the_best_or_a_weighted_draw_and_never_a_turn_without_weight() {
        let turns = turns();
        let pick = |allowed: &dyn Fn(&BookTurn) -> bool, variety, unit| {
            choose(&turns, allowed, variety, unit).map(|t| t.turn.as_str())
        };
        assert_eq!(pick(&|_| true, false, 0.9), Some("a"));
        assert_eq!(pick(&|_| true, true, 0.0), Some("a"));
        assert_eq!(pick(&|_| true, true, 0.74), Some("a"));
        assert_eq!(pick(&|_| true, true, 0.76), Some("b"));
        assert_eq!(pick(&|_| true, true, 1.0), Some("b"));
        assert_eq!(pick(&|t| t.turn != "a", false, 0.0), Some("b"));
        assert_eq!(pick(&|t| t.turn == "c", true, 0.5), None);
    }
}
