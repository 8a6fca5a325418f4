//! Sharper match openings from a book: positions some turns into the book whose searched
//! score gives one side a clear but not decisive edge, so that a stronger engine wins
//! with the better side and holds with the worse, and fewer game pairs end 1-1 than from
//! level openings.

use super::contents::BookContents;
use crate::rules::notation::parse_turn;
use std::collections::{HashSet, VecDeque};

/// An opening of the suite: the turns from the start and the score, in centi-stones for
/// the side to move after them, that the book's search gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteOpening {
    /// Turns from the start position.
    pub turns: Vec<String>,
    /// Score for the side to move.
    pub score: i16,
}

impl SuiteOpening {
    /// The line as `vato match --openings` reads it.
    pub fn line(&self) -> String {
        format!("startpos {}", self.turns.join(" "))
    }
}

/// The positions exactly `plies` turns from the start along the book's turns (each once,
/// by the first path a breadth-first walk finds), scored by the search of the position
/// before the last turn, whose score for either side lies between `low` and `high`
/// centi-stones; in the order the walk meets them.
pub fn opening_suite(book: &BookContents, plies: usize, low: i16, high: i16) -> Vec<SuiteOpening> {
    let rules = book.rules.rules();
    let turn_rules = rules.turn_rules();
    let mut seen = HashSet::new();
    let mut chosen = Vec::new();
    let mut queue = VecDeque::from([(rules.start(), Vec::<String>::new())]);
    while let Some((position, path)) = queue.pop_front() {
        if path.len() >= plies {
            continue;
        }
        let Some(turns) = book.positions.get(&position.key()) else {
            continue;
        };
        for book_turn in turns {
            let Ok(turn) = parse_turn(&position, turn_rules, &book_turn.turn) else {
                continue;
            };
            let child = position.play(turn);
            if !seen.insert(child.key()) {
                continue;
            }
            let mut line = path.clone();
            line.push(book_turn.turn.clone());
            if line.len() == plies {
                // The book scores the turn for the side that played it.
                let score = -book_turn.score;
                if (low..=high).contains(&score.abs()) && book_turn.depth > 0 {
                    chosen.push(SuiteOpening { turns: line, score });
                }
            } else {
                queue.push_back((child, line));
            }
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::contents::{BookRules, BookTurn};
    use crate::rules::position::Position;

    #[test]
    fn only_the_positions_in_the_band_at_the_ply_asked() {
        let mut book = BookContents::new(BookRules::default());
        let turn = |text: &str, score| BookTurn {
            turn: text.into(),
            weight: 1,
            score,
            depth: 9,
        };
        let start = Position::start();
        book.add(
            start.key(),
            [turn("f2e3A", 40), turn("d3e3W", -120), turn("e2e3A", 10)],
        );
        let one = opening_suite(&book, 1, 30, 100);
        assert_eq!(
            one,
            vec![SuiteOpening {
                turns: vec!["f2e3A".into()],
                score: -40
            }]
        );
        assert_eq!(one[0].line(), "startpos f2e3A");
        assert!(opening_suite(&book, 2, 0, 1000).is_empty());
    }
}
