//! Position strings (FEN-like), e.g. the start:
//! `BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1`.
//!
//! Five rows from rank 5 down to rank 1, `W`/`B` for stones and digits for runs of empty
//! points; the side to move `w`/`b`; optionally the turns since the last capture and the
//! move number (default `0 1`). Input is lenient about letter case and white space.

use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::geometry::{FILES, Square};
use crate::rules::position::{Color, Position, PositionError};
use crate::rules::variant::Variant;
use nom::branch::alt;
use nom::character::complete::{one_of, satisfy};
use nom::combinator::map;
use nom::multi::many0;
use nom::{IResult, Parser};
use std::fmt;
use std::str::FromStr;

/// Why a position string was refused. The message names the field and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Nothing to parse.
    Empty,
    /// The board does not have as many rows as the game's board has ranks.
    RowCount {
        /// Rows found.
        rows: usize,
        /// The game the string was read for.
        variant: Variant,
    },
    /// A row does not describe as many points as the board has in a rank.
    RowLength {
        /// Row number counted from the top (row 1 is rank 5).
        row: usize,
        /// Points the row describes.
        points: usize,
        /// The game the string was read for.
        variant: Variant,
    },
    /// A character that is neither a stone nor a digit 1-9.
    UnknownCharacter {
        /// The character.
        found: char,
        /// Row number counted from the top.
        row: usize,
    },
    /// The side to move is absent.
    MissingSide,
    /// The side to move is not `w` or `b`.
    BadSide(String),
    /// A counter is not a whole number.
    BadCounter {
        /// Which counter.
        name: &'static str,
        /// The text found.
        found: String,
    },
    /// Text after the last field.
    TrailingText(String),
    /// The fields parse but do not make a position.
    Invalid(PositionError),
    /// The stones do not make a Telo position: more than three stones a side, counts that
    /// do not fit the side to move, or three in a row for the side to move (it would have
    /// won the turn before).
    Telo,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "empty position string"),
            FenError::RowCount { rows, variant } => write!(
                f,
                "the board has {rows} rows, expected {} for {variant}",
                variant.ranks()
            ),
            FenError::RowLength {
                row,
                points,
                variant,
            } => write!(
                f,
                "row {row} (rank {}) has {points} points, expected {} for {variant} ({} x {})",
                usize::from(variant.ranks()) + 1 - row,
                variant.files(),
                variant.files(),
                variant.ranks()
            ),
            FenError::UnknownCharacter { found, row } => {
                write!(f, "unknown character '{found}' in row {row}")
            }
            FenError::MissingSide => write!(f, "missing side to move (w or b)"),
            FenError::BadSide(s) => write!(f, "side to move must be w or b, found '{s}'"),
            FenError::BadCounter { name, found } => {
                write!(f, "{name} must be a whole number, found '{found}'")
            }
            FenError::TrailingText(s) => write!(f, "unexpected '{s}' after the move number"),
            FenError::Invalid(e) => write!(f, "{e}"),
            FenError::Telo => write!(
                f,
                "not a Telo position: at most 3 stones a side, White places first, and the \
                 side to move has no three in a row"
            ),
        }
    }
}

impl std::error::Error for FenError {}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError::Invalid(e)
    }
}

/// One item of a row: a stone or a run of empty points.
#[derive(Copy, Clone)]
enum Cell {
    Stone(Color),
    Gap(u8),
}

fn cell(input: &str) -> IResult<&str, Cell> {
    alt((
        map(one_of("Ww"), |_| Cell::Stone(Color::White)),
        map(one_of("Bb"), |_| Cell::Stone(Color::Black)),
        map(satisfy(|c| ('1'..='9').contains(&c)), |c| {
            Cell::Gap(c as u8 - b'0')
        }),
    ))
    .parse(input)
}

/// Parses one row; returns the stones by file index.
fn parse_row(text: &str, row: usize, variant: Variant) -> Result<Vec<Option<Color>>, FenError> {
    let (rest, cells) = many0(cell)
        .parse(text)
        .expect("many0 of a non-consuming-free parser never fails");
    if let Some(found) = rest.chars().next() {
        return Err(FenError::UnknownCharacter { found, row });
    }
    let mut points = Vec::with_capacity(FILES as usize);
    for c in cells {
        match c {
            Cell::Stone(color) => points.push(Some(color)),
            Cell::Gap(n) => points.extend(std::iter::repeat_n(None, n as usize)),
        }
    }
    if points.len() != usize::from(variant.files()) {
        return Err(FenError::RowLength {
            row,
            points: points.len(),
            variant,
        });
    }
    Ok(points)
}

fn parse_counter(text: Option<&str>, name: &'static str, default: u32) -> Result<u32, FenError> {
    match text {
        None => Ok(default),
        Some(t) => t.parse().map_err(|_| FenError::BadCounter {
            name,
            found: t.to_string(),
        }),
    }
}

/// Parses a Fanoron-Tsivy position string made of the given white-space separated fields
/// (board, side, then optionally the two counters).
pub fn parse_fields(fields: &[&str]) -> Result<Position, FenError> {
    parse_fields_on(Board::Tsivy, fields)
}

/// The fields of a position string of any game, read but not yet checked as a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields {
    /// Every stone: file, rank (0 is rank 1) and colour.
    pub stones: Vec<(u8, u8, Color)>,
    /// The side to move.
    pub side: Color,
    /// The third field (turns since the last capture; default 0).
    pub counter: u32,
    /// The fourth field (the move number; default 1).
    pub move_number: u32,
}

/// Reads the fields of a position string for `variant`'s board: rows, side to move, then
/// optionally the two counters.
pub fn read_fields(variant: Variant, fields: &[&str]) -> Result<Fields, FenError> {
    let rows_text = *fields.first().ok_or(FenError::Empty)?;
    let rows: Vec<&str> = rows_text.split('/').collect();
    if rows.len() != usize::from(variant.ranks()) {
        return Err(FenError::RowCount {
            rows: rows.len(),
            variant,
        });
    }
    let mut stones = Vec::new();
    for (i, row_text) in rows.iter().enumerate() {
        let rank = variant.ranks() - 1 - i as u8;
        for (file, point) in parse_row(row_text, i + 1, variant)?.into_iter().enumerate() {
            if let Some(color) = point {
                stones.push((file as u8, rank, color));
            }
        }
    }
    let side = match fields.get(1).copied() {
        None => return Err(FenError::MissingSide),
        Some("w" | "W") => Color::White,
        Some("b" | "B") => Color::Black,
        Some(other) => return Err(FenError::BadSide(other.to_string())),
    };
    let counter = parse_counter(fields.get(2).copied(), "turns since capture", 0)?;
    let move_number = parse_counter(fields.get(3).copied(), "move number", 1)?;
    if fields.len() > 4 {
        return Err(FenError::TrailingText(fields[4..].join(" ")));
    }
    Ok(Fields {
        stones,
        side,
        counter,
        move_number,
    })
}

/// Parses a position string on `board` made of the given white-space separated fields.
pub fn parse_fields_on(board: Board, fields: &[&str]) -> Result<Position, FenError> {
    let read = read_fields(board.into(), fields)?;
    let mut stones = [Bitboard::EMPTY; 2];
    for &(file, rank, color) in &read.stones {
        let square = Square::new(file, rank).expect("row fits the board");
        stones[color.index()] |= square.into();
    }
    let (side, turns_since_capture, move_number) = (read.side, read.counter, read.move_number);
    Ok(Position::new_on(
        board,
        stones[0],
        stones[1],
        side,
        turns_since_capture,
        move_number,
    )?)
}

/// Parses a whole Fanoron-Tsivy position string; the word `startpos` stands for the start
/// position, as it does in the protocol's `position` command.
pub fn parse_position(text: &str) -> Result<Position, FenError> {
    parse_position_on(Board::Tsivy, text)
}

/// Parses a whole position string on `board` (`startpos`: that board's start).
pub fn parse_position_on(board: Board, text: &str) -> Result<Position, FenError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if let [word] = fields[..]
        && word.eq_ignore_ascii_case("startpos")
    {
        return Ok(Position::start_on(board));
    }
    parse_fields_on(board, &fields)
}

impl FromStr for Position {
    type Err = FenError;

    fn from_str(text: &str) -> Result<Position, FenError> {
        parse_position(text)
    }
}

/// Formats the position string, always with both counters.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = write_fields(self.board().into(), self.side_to_move(), |file, rank| {
            self.stone_at(Square::new(file, rank).expect("on the board"))
        });
        write!(
            f,
            "{board} {} {}",
            self.turns_since_capture(),
            self.move_number()
        )
    }
}

/// The rows and the side to move of a position string for `variant`'s board, as
/// [`read_fields`] reads them; `stone(file, rank)` tells what is on each point.
pub fn write_fields(
    variant: Variant,
    side: Color,
    stone: impl Fn(u8, u8) -> Option<Color>,
) -> String {
    let mut text = String::new();
    for rank in (0..variant.ranks()).rev() {
        let mut gap = 0;
        for file in 0..variant.files() {
            match stone(file, rank) {
                None => gap += 1,
                Some(color) => {
                    if gap > 0 {
                        text.push_str(&gap.to_string());
                        gap = 0;
                    }
                    text.push(if color == Color::White { 'W' } else { 'B' });
                }
            }
        }
        if gap > 0 {
            text.push_str(&gap.to_string());
        }
        if rank > 0 {
            text.push('/');
        }
    }
    text.push(' ');
    text.push(if side == Color::White { 'w' } else { 'b' });
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1";

    fn err(text: &str) -> String {
        parse_position(text).unwrap_err().to_string()
    }

    #[test]
    fn start_round_trips() {
        let p: Position = START.parse().unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(p.to_string(), START);
    }

    #[test]
    fn dimy_strings_have_five_points_a_row() {
        let start = Position::start_on(Board::Dimy);
        assert_eq!(start.to_string(), "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 1");
        assert_eq!(parse_position_on(Board::Dimy, "startpos").unwrap(), start);
        assert_eq!(
            parse_position_on(Board::Dimy, "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w").unwrap(),
            start
        );
        let dimy_error = |text| {
            parse_position_on(Board::Dimy, text)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            dimy_error(START),
            "row 1 (rank 5) has 9 points, expected 5 for dimy (5 x 5)"
        );
        assert_eq!(
            err("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w"),
            "row 1 (rank 5) has 5 points, expected 9 for tsivy (9 x 5)"
        );
        assert_eq!(
            dimy_error("WWWWW/WWWWW/WWW2/5/5 w"),
            "13 white stones (at most 12)"
        );
    }

    #[test]
    fn startpos_stands_for_the_start() {
        assert_eq!(parse_position("startpos").unwrap(), Position::start());
        assert_eq!(parse_position(" StartPos ").unwrap(), Position::start());
        assert!(parse_position("startpos w").is_err());
    }

    #[test]
    fn counters_are_optional() {
        let p = parse_position("4B2B1/9/W6B1/1W7/1W7 w").unwrap();
        assert_eq!(p.turns_since_capture(), 0);
        assert_eq!(p.move_number(), 1);
        assert_eq!(p.to_string(), "4B2B1/9/W6B1/1W7/1W7 w 0 1");
        let p = parse_position("  4B2B1/9/W6B1/1W7/1W7   b 17 42 ").unwrap();
        assert_eq!(p.to_string(), "4B2B1/9/W6B1/1W7/1W7 b 17 42");
    }

    #[test]
    fn lower_case_stones_are_accepted() {
        let p = parse_position("bbbbbbbbb/bbbbbbbbb/bwbw1bwbw/wwwwwwwww/wwwwwwwww W").unwrap();
        assert_eq!(p, Position::start());
    }

    #[test]
    fn errors_name_what_is_wrong() {
        assert_eq!(err(""), "empty position string");
        assert_eq!(
            err("9/9/9/9 w"),
            "the board has 4 rows, expected 5 for tsivy"
        );
        assert_eq!(
            err("9/9/BWBW2BWBW/9/9 w"),
            "row 3 (rank 3) has 10 points, expected 9 for tsivy (9 x 5)"
        );
        assert_eq!(
            err("9/9/9/9/8 w"),
            "row 5 (rank 1) has 8 points, expected 9 for tsivy (9 x 5)"
        );
        assert_eq!(err("9/9/9/9/8x w"), "unknown character 'x' in row 5");
        assert_eq!(err("9/9/9/0W8/9 w"), "unknown character '0' in row 4");
        assert_eq!(err("9/9/9/9/9"), "missing side to move (w or b)");
        assert_eq!(err("9/9/9/9/9 x"), "side to move must be w or b, found 'x'");
        assert_eq!(
            err("9/9/9/9/9 w -1"),
            "turns since capture must be a whole number, found '-1'"
        );
        assert_eq!(
            err("9/9/9/9/9 w 0 z"),
            "move number must be a whole number, found 'z'"
        );
        assert_eq!(err("9/9/9/9/9 w 0 0"), "move number must be at least 1");
        assert_eq!(
            err("9/9/9/9/9 w 0 1 moves"),
            "unexpected 'moves' after the move number"
        );
        assert_eq!(
            err("WWWWWWWWW/WWWWWWWWW/WWWWW4/9/9 w"),
            "23 white stones (at most 22)"
        );
    }
}
