//! A book in memory: positions by key, each with its turns.

use crate::rules::board::Board;
use crate::rules::position::Color;
use crate::rules::{ChainRule, Rules, TurnRules};
use std::collections::BTreeMap;
use std::fmt;

/// The largest score a book turn holds in absolute value: wins and losses found by the
/// search are stored as this less the turns to them.
pub const MAX_BOOK_SCORE: i16 = 30_000;

/// One turn of a book position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookTurn {
    /// The turn in Vato's notation.
    pub turn: String,
    /// How often to play it, relative to the position's other turns; 0: known (listed by
    /// the search) but never played.
    pub weight: u16,
    /// The search's score after the turn, in centi-stones for the side to move (0 when
    /// the book came from a text file, which has no scores).
    pub score: i16,
    /// The depth the position was searched to (0: unknown).
    pub depth: u8,
}

/// `<turn> weight <w> score <s> depth <d>`, as the `book` command and the book's `info
/// string` show a turn.
impl fmt::Display for BookTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} weight {} score {} depth {}",
            self.turn, self.weight, self.score, self.depth
        )
    }
}

/// The rules a book was built for: it is used under these rules only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookRules {
    /// The board of the game.
    pub board: Board,
    /// The chain rule and the vela side, which decide the legal turns.
    pub turn_rules: TurnRules,
}

impl BookRules {
    /// The book rules of a game played under `rules` (its no-capture limit does not
    /// change which turns are legal, so it is not part of them).
    pub fn of(rules: &Rules) -> BookRules {
        BookRules {
            board: rules.board,
            turn_rules: rules.turn_rules(),
        }
    }

    /// The game rules, with the default no-capture limit, that start positions and turns
    /// are read under.
    pub fn rules(self) -> Rules {
        Rules {
            board: self.board,
            chain_rule: self.turn_rules.chain_rule,
            vela: self.turn_rules.vela,
            ..Rules::default()
        }
    }
}

impl Default for BookRules {
    fn default() -> BookRules {
        BookRules::of(&Rules::default())
    }
}

impl fmt::Display for BookRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = match self.board {
            Board::Tsivy => "tsivy",
            Board::Dimy => "dimy",
        };
        let chain = match self.turn_rules.chain_rule {
            ChainRule::Optional => "optional continuation",
            ChainRule::Mandatory => "mandatory continuation",
        };
        match self.turn_rules.vela {
            None => write!(f, "{board}, {chain}"),
            Some(Color::White) => write!(f, "{board}, {chain}, vela for white"),
            Some(Color::Black) => write!(f, "{board}, {chain}, vela for black"),
        }
    }
}

/// A whole book: its rules and its positions by key, each position's turns in the order
/// they are offered (highest weight first, then best score).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookContents {
    /// The rules the book is for.
    pub rules: BookRules,
    /// Position key to turns.
    pub positions: BTreeMap<u64, Vec<BookTurn>>,
}

impl BookContents {
    /// An empty book for `rules`.
    pub fn new(rules: BookRules) -> BookContents {
        BookContents {
            rules,
            positions: BTreeMap::new(),
        }
    }

    /// Adds `turns` to position `key`. A turn the position already has keeps the larger
    /// weight, and the score of the deeper search: a transposition reached along two
    /// paths, or a position in two merged books, ends up with one entry.
    pub fn add(&mut self, key: u64, turns: impl IntoIterator<Item = BookTurn>) {
        let mut turns = turns.into_iter().peekable();
        if turns.peek().is_none() {
            return;
        }
        let held = self.positions.entry(key).or_default();
        for turn in turns {
            match held.iter_mut().find(|t| t.turn == turn.turn) {
                Some(same) => {
                    same.weight = same.weight.max(turn.weight);
                    if turn.depth > same.depth {
                        same.score = turn.score;
                        same.depth = turn.depth;
                    }
                }
                None => held.push(turn),
            }
        }
        sort_turns(held);
    }

    /// Every position of `other` added to this book (see [`BookContents::add`]).
    pub fn merge(&mut self, other: BookContents) {
        for (key, turns) in other.positions {
            self.add(key, turns);
        }
    }

    /// The number of turns in the book, all positions together.
    pub fn turn_count(&self) -> usize {
        self.positions.values().map(Vec::len).sum()
    }
}

/// Puts a position's turns in the order they are offered: highest weight first, then the
/// best score, then by name, so that every build orders them the same.
pub(super) fn sort_turns(turns: &mut [BookTurn]) {
    turns.sort_by(|a, b| {
        b.weight
            .cmp(&a.weight)
            .then(b.score.cmp(&a.score))
            .then(a.turn.cmp(&b.turn))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(text: &str, weight: u16, score: i16, depth: u8) -> BookTurn {
        BookTurn {
            turn: text.into(),
            weight,
            score,
            depth,
        }
    }

    #[test]
    fn a_turn_added_twice_keeps_the_larger_weight_and_the_deeper_score() {
        let mut book = BookContents::default();
        book.add(7, [turn("f2e3A", 10, 30, 8), turn("d3e3W", 0, -90, 8)]);
        book.add(7, [turn("f2e3A", 4, 45, 12), turn("e2e3A", 20, 10, 6)]);
        assert_eq!(
            book.positions[&7],
            vec![
                turn("e2e3A", 20, 10, 6),
                turn("f2e3A", 10, 45, 12),
                turn("d3e3W", 0, -90, 8),
            ]
        );
        assert_eq!(book.turn_count(), 3);
    }
}
