//! The opening book in a session: which book is read, and the turn it offers.

use crate::book::{Book, BookRules, BookTurn, choose};
use crate::rules::Rules;
use crate::rules::notation::parse_turn;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use anyhow::Result;
use std::path::Path;

/// The book built into Vato (`books/vato.book`).
fn built_in() -> Result<Book> {
    let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/books/vato.book"));
    Book::from_static(bytes, "the built-in book")
}

/// Reads the book `file` names (empty: the built-in one), a text book for `rules`.
pub(super) fn load(file: &str, rules: &Rules) -> Result<Book> {
    if file.is_empty() {
        built_in()
    } else {
        Book::open_any(Path::new(file), BookRules::of(rules))
    }
}

/// Plies played since the start of a game, as the position's move number tells them.
pub(super) fn game_ply(position: &Position) -> u32 {
    2 * position.move_number().saturating_sub(1)
        + u32::from(position.side_to_move() == Color::Black)
}

/// What the book says of a position: its turns, or why it says nothing.
pub(super) fn turns_for(
    book: &Book,
    position: &Position,
    rules: &Rules,
) -> Result<Vec<BookTurn>, String> {
    if book.rules() != BookRules::of(rules) {
        return Err(format!(
            "{} is for {}, and the game is {}",
            book.name(),
            book.rules(),
            BookRules::of(rules)
        ));
    }
    Ok(book.turns(position.key()))
}

/// The book's turn for `position`, among `searchmoves` when some are given and never one
/// that `lost` says loses: `None` when the book is for other rules, lacks the position or
/// offers none of those turns.
pub(super) fn book_turn(
    book: &Book,
    position: &Position,
    rules: &Rules,
    searchmoves: &[Turn],
    lost: impl Fn(Turn) -> bool,
    variety: bool,
    unit: f64,
) -> Option<(Turn, BookTurn)> {
    let turns = turns_for(book, position, rules).ok()?;
    let legal = |text: &str| parse_turn(position, rules.turn_rules(), text).ok();
    let allowed = |t: &BookTurn| {
        legal(&t.turn).is_some_and(|turn| {
            (searchmoves.is_empty() || searchmoves.contains(&turn)) && !lost(turn)
        })
    };
    let chosen = choose(&turns, allowed, variety, unit)?;
    Some((legal(&chosen.turn)?, chosen.clone()))
}
