//! Fanoron-Telo: the 3 x 3 alignment game played before Tsivy.
//!
//! Three stones a side on a 3 x 3 board with both diagonals. First each side in turn places
//! a stone on an empty point (White first); once a side has placed its three, it moves one
//! stone a turn to an adjacent empty point along a line. Three stones of one side on a line
//! (a row, a column or a diagonal) win at once, during placement too, and a side with no
//! legal turn loses. The game is small enough to solve completely: see [`TeloSolution`].
//!
//! Points are numbered `rank * 3 + file`, so 0 is a1, 4 is b2 (the centre) and 8 is c3.

use crate::rules::fen::{FenError, read_fields, write_fields};
use crate::rules::game::{DrawReason, Status, WinReason};
use crate::rules::position::Color;
use crate::rules::variant::Variant;
use std::fmt;

/// The number of points of the board.
pub const TELO_POINTS: usize = 9;

/// Stones each side places.
pub const TELO_STONES: u32 = 3;

/// Every point of the board.
const BOARD: u16 = (1 << TELO_POINTS) - 1;

/// The eight lines of three: rows, columns and the two diagonals, as point sets.
const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// `NEIGHBOURS[p]`: the points one step from `p` along a line. The centre touches every
/// point; a corner touches its two edge points and the centre; an edge point touches its
/// two corners and the centre (the board has no other diagonals).
const NEIGHBOURS: [u16; TELO_POINTS] = build_neighbours();

const fn build_neighbours() -> [u16; TELO_POINTS] {
    let mut table = [0u16; TELO_POINTS];
    let mut a = 0;
    while a < TELO_POINTS {
        let mut b = 0;
        while b < TELO_POINTS {
            let (df, dr) = ((a % 3).abs_diff(b % 3), (a / 3).abs_diff(b / 3));
            let orthogonal = df + dr == 1;
            let diagonal = df == 1 && dr == 1 && (a == 4 || b == 4);
            if orthogonal || diagonal {
                table[a] |= 1 << b;
            }
            b += 1;
        }
        a += 1;
    }
    table
}

/// One turn of Telo: a stone placed or a stone moved.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TeloTurn {
    /// A stone placed on an empty point (notation: the point, `b2`).
    Place(u8),
    /// A stone moved to an adjacent empty point (notation: both points, `a1b2`).
    Move {
        /// The point the stone leaves.
        from: u8,
        /// The point it moves to.
        to: u8,
    },
}

/// Why a Telo turn's spelling was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TeloTurnError {
    /// Not a point (`a1` to `c3`) or a pair of points.
    Malformed(String),
    /// Well formed, but not a legal turn here.
    Illegal(String),
}

impl fmt::Display for TeloTurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeloTurnError::Malformed(text) => {
                write!(
                    f,
                    "'{text}' is not a Telo turn (a point such as b2, or two such as a1b2)"
                )
            }
            TeloTurnError::Illegal(text) => write!(f, "'{text}' is not legal in this position"),
        }
    }
}

impl std::error::Error for TeloTurnError {}

/// The name of a point, `a1` to `c3`.
pub fn point_name(point: u8) -> String {
    let (file, rank) = (point % 3, point / 3);
    format!("{}{}", char::from(b'a' + file), rank + 1)
}

fn parse_point(text: &[u8]) -> Option<u8> {
    match text {
        [file @ b'a'..=b'c', rank @ b'1'..=b'3'] => Some((rank - b'1') * 3 + (file - b'a')),
        _ => None,
    }
}

impl fmt::Display for TeloTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TeloTurn::Place(point) => f.write_str(&point_name(point)),
            TeloTurn::Move { from, to } => write!(f, "{}{}", point_name(from), point_name(to)),
        }
    }
}

/// A Telo position: the stones of each side and the side to move. Which phase it is in
/// follows from the stones: a side with fewer than three on the board places, otherwise
/// it moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TeloPosition {
    /// The stones of the side to move, one bit per point.
    us: u16,
    /// The other side's stones.
    them: u16,
    /// True when White is to move.
    white_to_move: bool,
}

/// The outcome of a position for the side to move, under perfect play.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TeloValue {
    /// The side to move wins; its winning turn is the `n`-th ply from here.
    Win(u8),
    /// The side to move loses after `n` plies (0: it has lost already).
    Loss(u8),
    /// Neither side can force a win.
    Draw,
}

impl TeloPosition {
    /// The empty board, White to place.
    pub const fn start() -> TeloPosition {
        TeloPosition {
            us: 0,
            them: 0,
            white_to_move: true,
        }
    }

    /// A position from White's and Black's stones (bits `rank * 3 + file`), checked: no
    /// point taken twice, at most three stones a side, and stone counts that the game can
    /// reach with that side to move (White places first).
    pub fn new(white: u16, black: u16, white_to_move: bool) -> Option<TeloPosition> {
        let (w, b) = (white.count_ones(), black.count_ones());
        let counts_fit = if white_to_move {
            w == b
        } else {
            w == b + 1 || (w == TELO_STONES && b == TELO_STONES)
        };
        if white & black != 0
            || (white | black) & !BOARD != 0
            || w > TELO_STONES
            || b > TELO_STONES
            || !counts_fit
        {
            return None;
        }
        let (us, them) = if white_to_move {
            (white, black)
        } else {
            (black, white)
        };
        Some(TeloPosition {
            us,
            them,
            white_to_move,
        })
    }

    /// White's stones.
    pub fn white(&self) -> u16 {
        if self.white_to_move {
            self.us
        } else {
            self.them
        }
    }

    /// Black's stones.
    pub fn black(&self) -> u16 {
        if self.white_to_move {
            self.them
        } else {
            self.us
        }
    }

    /// True when White is to move.
    pub fn white_to_move(&self) -> bool {
        self.white_to_move
    }

    /// True while the side to move still places stones.
    pub fn placing(&self) -> bool {
        self.us.count_ones() < TELO_STONES
    }

    /// True when the side that has just moved has three stones on a line: the side to
    /// move has lost.
    pub fn lost(&self) -> bool {
        LINES.iter().any(|line| line & !self.them == 0)
    }

    /// Every legal turn, in point order (none once the game is lost).
    pub fn turns(&self) -> Vec<TeloTurn> {
        let mut turns = Vec::new();
        if self.lost() {
            return turns;
        }
        let empty = BOARD & !(self.us | self.them);
        if self.placing() {
            turns.extend(points(empty).map(TeloTurn::Place));
        } else {
            for from in points(self.us) {
                for to in points(NEIGHBOURS[from as usize] & empty) {
                    turns.push(TeloTurn::Move { from, to });
                }
            }
        }
        turns
    }

    /// The position after `turn`, which must be legal here.
    pub fn play(&self, turn: TeloTurn) -> TeloPosition {
        let us = match turn {
            TeloTurn::Place(point) => self.us | 1 << point,
            TeloTurn::Move { from, to } => self.us & !(1 << from) | 1 << to,
        };
        TeloPosition {
            us: self.them,
            them: us,
            white_to_move: !self.white_to_move,
        }
    }

    /// The legal turn spelled `text` (`b2` while placing, `a1b2` while moving).
    pub fn parse_turn(&self, text: &str) -> Result<TeloTurn, TeloTurnError> {
        let bytes = text.as_bytes();
        let turn = match bytes.len() {
            2 => parse_point(bytes).map(TeloTurn::Place),
            4 => parse_point(&bytes[..2])
                .zip(parse_point(&bytes[2..]))
                .map(|(from, to)| TeloTurn::Move { from, to }),
            _ => None,
        }
        .ok_or_else(|| TeloTurnError::Malformed(text.to_string()))?;
        if self.turns().contains(&turn) {
            Ok(turn)
        } else {
            Err(TeloTurnError::Illegal(text.to_string()))
        }
    }

    /// A dense index of the position, below [`TELO_INDEX_SIZE`].
    fn index(&self) -> usize {
        let mut index = usize::from(self.white_to_move);
        for point in 0..TELO_POINTS {
            let colour = if self.us >> point & 1 != 0 {
                1
            } else if self.them >> point & 1 != 0 {
                2
            } else {
                0
            };
            index = index * 3 + colour;
        }
        index
    }
}

impl TeloPosition {
    /// Reads a Telo position string: three rows from rank 3 down to rank 1 as in Tsivy's
    /// strings (`W`, `B`, digits for empty points), the side to move, and optionally the
    /// movement turns played without a placement and the move number (`3/1W1/3 b 0 1`).
    /// Returns the position and the two counters.
    pub fn parse(text: &str) -> Result<(TeloPosition, u32, u32), FenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if let [word] = fields[..]
            && word.eq_ignore_ascii_case("startpos")
        {
            return Ok((TeloPosition::start(), 0, 1));
        }
        let read = read_fields(Variant::Telo, &fields)?;
        let mut sets = [0u16; 2];
        for &(file, rank, color) in &read.stones {
            sets[color.index()] |= 1 << (rank * 3 + file);
        }
        let position = TeloPosition::new(sets[0], sets[1], read.side == Color::White)
            .filter(|p| !LINES.iter().any(|line| line & !p.us == 0))
            .ok_or(FenError::Telo)?;
        if read.move_number == 0 {
            return Err(FenError::Invalid(
                crate::rules::position::PositionError::ZeroMoveNumber,
            ));
        }
        Ok((position, read.counter, read.move_number))
    }

    /// The rows and the side to move, as [`TeloPosition::parse`] reads them.
    pub fn board_text(&self) -> String {
        let side = if self.white_to_move {
            Color::White
        } else {
            Color::Black
        };
        write_fields(Variant::Telo, side, |file, rank| self.stone_at(file, rank))
    }

    /// The colour of the stone on the point of `file` and `rank` (0 to 2), if any.
    pub fn stone_at(&self, file: u8, rank: u8) -> Option<Color> {
        let bit = 1 << (rank * 3 + file);
        if self.white() & bit != 0 {
            Some(Color::White)
        } else if self.black() & bit != 0 {
            Some(Color::Black)
        } else {
            None
        }
    }
}

/// A game of Telo: the positions so far and the two counters of the position string.
#[derive(Clone, Debug)]
pub struct TeloGame {
    /// Every position of the game, the start first; never empty.
    positions: Vec<TeloPosition>,
    /// Movement turns in a row at the current position (placements reset it).
    movement_turns: u32,
    move_number: u32,
    /// Movement turns in a row after which the game is drawn; 0: never.
    limit: u32,
}

impl TeloGame {
    /// A game from `start` with its counters, drawn after `limit` movement turns in a
    /// row (0: no limit).
    pub fn new(start: TeloPosition, movement_turns: u32, move_number: u32, limit: u32) -> Self {
        TeloGame {
            positions: vec![start],
            movement_turns,
            move_number,
            limit,
        }
    }

    /// Changes the movement limit; the turns played stay.
    pub fn set_limit(&mut self, limit: u32) {
        self.limit = limit;
    }

    /// The current position.
    pub fn position(&self) -> &TeloPosition {
        self.positions.last().expect("a game has a position")
    }

    /// The position string with both counters.
    pub fn position_text(&self) -> String {
        format!(
            "{} {} {}",
            self.position().board_text(),
            self.movement_turns,
            self.move_number
        )
    }

    /// Movement turns in a row so far.
    pub fn movement_turns(&self) -> u32 {
        self.movement_turns
    }

    /// Plays the legal turn spelled `text`; on error nothing changes.
    pub fn play_text(&mut self, text: &str) -> Result<TeloTurn, TeloTurnError> {
        let turn = self.position().parse_turn(text)?;
        self.play(turn);
        Ok(turn)
    }

    /// Plays `turn`, which must be legal.
    pub fn play(&mut self, turn: TeloTurn) {
        let before = *self.position();
        self.movement_turns = match turn {
            TeloTurn::Place(_) => 0,
            TeloTurn::Move { .. } => self.movement_turns.saturating_add(1),
        };
        if !before.white_to_move() {
            self.move_number = self.move_number.saturating_add(1);
        }
        self.positions.push(before.play(turn));
    }

    /// The state of the game: three in a row or no legal turn wins for the other side;
    /// the third occurrence of a position or the movement limit draws.
    pub fn status(&self) -> Status {
        let position = self.position();
        let winner = if position.white_to_move() {
            Color::Black
        } else {
            Color::White
        };
        if position.lost() {
            return Status::Won {
                winner,
                reason: WinReason::ThreeInARow,
            };
        }
        if position.turns().is_empty() {
            return Status::Won {
                winner,
                reason: WinReason::NoLegalTurn,
            };
        }
        if self.positions.iter().filter(|p| *p == position).count() >= 3 {
            return Status::Drawn(DrawReason::Repetition);
        }
        if self.limit > 0 && self.movement_turns >= self.limit {
            return Status::Drawn(DrawReason::NoCaptureLimit);
        }
        Status::Ongoing
    }
}

/// The number of indices [`TeloPosition::index`] can give: 2 x 3^9.
const TELO_INDEX_SIZE: usize = 2 * 19_683;

/// The points of a set, in order.
fn points(set: u16) -> impl Iterator<Item = u8> {
    (0..TELO_POINTS as u8).filter(move |&p| set >> p & 1 != 0)
}

/// The value of every reachable Telo position under perfect play, found by retrograde
/// analysis: positions already lost first, then, distance by distance, the positions with
/// a turn to a lost one (won) and those whose every turn leads to a won one (lost). What is
/// left when nothing changes any more is drawn. Wins are as fast and losses as slow as
/// possible.
pub struct TeloSolution {
    values: Vec<Option<TeloValue>>,
}

impl TeloSolution {
    /// Solves the game (a few milliseconds).
    pub fn solve() -> TeloSolution {
        let positions = all_positions();
        let mut values = vec![None; TELO_INDEX_SIZE];
        for p in &positions {
            // No turn: lost already, or hemmed in.
            if p.turns().is_empty() {
                values[p.index()] = Some(TeloValue::Loss(0));
            }
        }
        // Layer `d` needs only layers below it; two empty layers in a row (wins and losses
        // alternate in parity) mean that no later layer can fill.
        let (mut distance, mut empty_layers) = (0u8, 0);
        while empty_layers < 2 {
            distance += 1;
            let mut changed = false;
            for p in &positions {
                if values[p.index()].is_some() {
                    continue;
                }
                let replies: Vec<Option<TeloValue>> = p
                    .turns()
                    .iter()
                    .map(|&t| values[p.play(t).index()])
                    .collect();
                let won_before =
                    |r: &Option<TeloValue>| matches!(r, Some(TeloValue::Win(n)) if *n < distance);
                let value = if replies.contains(&Some(TeloValue::Loss(distance - 1))) {
                    Some(TeloValue::Win(distance))
                } else if replies.iter().all(won_before)
                    && replies.contains(&Some(TeloValue::Win(distance - 1)))
                {
                    Some(TeloValue::Loss(distance))
                } else {
                    None
                };
                if value.is_some() {
                    values[p.index()] = value;
                    changed = true;
                }
            }
            empty_layers = if changed { 0 } else { empty_layers + 1 };
        }
        TeloSolution { values }
    }

    /// The value of `position` for the side to move.
    pub fn value(&self, position: &TeloPosition) -> TeloValue {
        self.values[position.index()].unwrap_or(TeloValue::Draw)
    }

    /// A best turn: the fastest win, else a draw, else the slowest loss (the first in
    /// point order among equals); `None` when the game is over.
    pub fn best_turn(&self, position: &TeloPosition) -> Option<TeloTurn> {
        let turns = position.turns();
        let rank = |turn: TeloTurn| match self.value(&position.play(turn)) {
            // The value after the turn is the opponent's: its loss is our win.
            TeloValue::Loss(n) => 1_000 - i32::from(n),
            TeloValue::Draw => 0,
            TeloValue::Win(n) => -1_000 + i32::from(n),
        };
        // `max_by_key` keeps the last of equal keys: the index, reversed, keeps the first.
        turns
            .iter()
            .enumerate()
            .max_by_key(|&(i, &turn)| (rank(turn), std::cmp::Reverse(i)))
            .map(|(_, &turn)| turn)
    }
}

/// Every position whose stone counts fit the side to move.
fn all_positions() -> Vec<TeloPosition> {
    let mut positions = Vec::new();
    for white in 0u16..1 << TELO_POINTS {
        for black in 0u16..1 << TELO_POINTS {
            for white_to_move in [true, false] {
                if let Some(p) = TeloPosition::new(white, black, white_to_move) {
                    positions.push(p);
                }
            }
        }
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(points: &[&str]) -> u16 {
        points
            .iter()
            .map(|p| 1u16 << parse_point(p.as_bytes()).unwrap())
            .fold(0, |a, b| a | b)
    }

    /// The eight symmetries of the square, as point maps.
    fn symmetries() -> Vec<[u8; 9]> {
        let rotate = |p: u8| (p % 3) * 3 + (2 - p / 3);
        let mirror = |p: u8| (p / 3) * 3 + (2 - p % 3);
        let mut maps = Vec::new();
        for flip in [false, true] {
            for turns in 0..4 {
                let mut map = [0u8; 9];
                for (p, slot) in map.iter_mut().enumerate() {
                    let mut q = p as u8;
                    if flip {
                        q = mirror(q);
                    }
                    for _ in 0..turns {
                        q = rotate(q);
                    }
                    *slot = q;
                }
                maps.push(map);
            }
        }
        maps
    }

    fn transform(set: u16, map: &[u8; 9]) -> u16 {
        points(set).fold(0, |acc, p| acc | 1 << map[p as usize])
    }

    #[test]
    fn neighbours_are_symmetric_and_follow_the_lines() {
        for (a, &around) in NEIGHBOURS.iter().enumerate() {
            for b in points(around) {
                assert_ne!(NEIGHBOURS[b as usize] >> a & 1, 0, "{a} {b}");
                // Every neighbour pair lies on one of the eight lines.
                let pair = 1 << a | 1 << b;
                assert!(LINES.iter().any(|&l| l & pair == pair), "{a} {b}");
            }
        }
        assert_eq!(NEIGHBOURS[4].count_ones(), 8);
    }

    #[test]
    fn placement_then_movement() {
        let mut p = TeloPosition::start();
        assert_eq!(p.turns().len(), 9);
        for turn in ["b2", "a1", "c1", "a3", "a2", "c3"] {
            p = p.play(p.parse_turn(turn).unwrap());
        }
        // White (b2 c1 a2) now moves: no more placing. a2 is hemmed in by a1, a3 and b2.
        assert!(!p.placing() && p.white_to_move());
        let turns: Vec<String> = p.turns().iter().map(ToString::to_string).collect();
        assert_eq!(turns, ["c1b1", "c1c2", "b2b1", "b2c2", "b2b3"]);
        assert!(matches!(p.parse_turn("b2"), Err(TeloTurnError::Illegal(_))));
    }

    #[test]
    fn three_in_a_row_wins_during_placement() {
        let p = TeloPosition::new(set(&["a1", "b2"]), set(&["a2", "a3"]), true).unwrap();
        let solution = TeloSolution::solve();
        assert_eq!(solution.value(&p), TeloValue::Win(1));
        let after = p.play(TeloTurn::Place(8));
        assert!(after.lost() && after.turns().is_empty());
        assert_eq!(solution.value(&after), TeloValue::Loss(0));
    }

    #[test]
    fn white_wins_in_nine_plies_by_taking_the_centre() {
        let solution = TeloSolution::solve();
        let start = TeloPosition::start();
        assert_eq!(solution.value(&start), TeloValue::Win(9));
        assert_eq!(solution.best_turn(&start), Some(TeloTurn::Place(4)));
        let replies: Vec<(String, TeloValue)> = start
            .turns()
            .into_iter()
            .map(|t| (t.to_string(), solution.value(&start.play(t))))
            .collect();
        // Black's view after each first placement: only the centre wins for White, a corner
        // draws, an edge point loses.
        for (turn, value) in replies {
            let expected = match turn.as_str() {
                "b2" => TeloValue::Loss(8),
                "a1" | "c1" | "a3" | "c3" => TeloValue::Draw,
                _ => TeloValue::Win(7),
            };
            assert_eq!(value, expected, "{turn}");
        }
        assert_eq!(all_positions().len(), 5710);
    }

    #[test]
    fn bad_spellings_are_refused() {
        let p = TeloPosition::start();
        assert!(matches!(
            p.parse_turn("d1"),
            Err(TeloTurnError::Malformed(_))
        ));
        assert!(matches!(
            p.parse_turn("a1b"),
            Err(TeloTurnError::Malformed(_))
        ));
        assert!(matches!(
            p.parse_turn("a1b1"),
            Err(TeloTurnError::Illegal(_))
        ));
        assert_eq!(p.parse_turn("c3"), Ok(TeloTurn::Place(8)));
    }

    #[test]
    fn values_do_not_change_under_the_symmetries_of_the_square() {
        let solution = TeloSolution::solve();
        for p in &all_positions() {
            for map in symmetries() {
                let image = TeloPosition::new(
                    transform(p.white(), &map),
                    transform(p.black(), &map),
                    p.white_to_move(),
                )
                .unwrap();
                assert_eq!(solution.value(p), solution.value(&image));
            }
        }
    }

    #[test]
    fn values_agree_with_the_turns() {
        // Every solved value is consistent with one step of minimax.
        let solution = TeloSolution::solve();
        for p in &all_positions() {
            let replies: Vec<TeloValue> = p
                .turns()
                .iter()
                .map(|&t| solution.value(&p.play(t)))
                .collect();
            let expected = if replies.is_empty() {
                TeloValue::Loss(0)
            } else if let Some(n) = replies
                .iter()
                .filter_map(|v| match v {
                    TeloValue::Loss(n) => Some(n + 1),
                    _ => None,
                })
                .min()
            {
                TeloValue::Win(n)
            } else if replies.contains(&TeloValue::Draw) {
                TeloValue::Draw
            } else {
                let n = replies
                    .iter()
                    .map(|v| match v {
                        TeloValue::Win(n) => n + 1,
                        _ => unreachable!(),
                    })
                    .max()
                    .unwrap();
                TeloValue::Loss(n)
            };
            assert_eq!(solution.value(p), expected, "{p:?}");
        }
    }
}
