//! Game records in a PGN-like text: tag pairs, then the turns numbered like chess moves,
//! each with a `{score/depth time}` comment, then the result. Written by the match runner
//! and read back by `vato match --summary`.
//!
//! ```text
//! [Event "vato match"]
//! [Date "2026.11.29"]
//! [Round "1.1"]
//! [White "new"]
//! [Black "base"]
//! [Result "1-0"]
//! [TimeControl "10+0.1"]
//! [Termination "normal"]
//! [NoCaptureLimit "100"]
//!
//! 1. d3e3W {book} d4c3Ad3A {-1.00/2 0.012s} 2. f2e3A {+2.00/2 0.010s} ...
//! {black has no stones left} 1-0
//! ```
//!
//! `FEN` is present when the game did not start from the start position; `Round` is the
//! round and the number of the colour-swapped pair within it, so the two games of a pair
//! share it.

use super::engine::Score;
use crate::rules::board::Board;
use crate::rules::fen::parse_position_on;
use crate::rules::game::{DrawReason, Game, Status, WinReason};
use crate::rules::position::{Color, Position};
use crate::rules::variant::Variant;
use crate::rules::{ChainRule, DEFAULT_NO_CAPTURE_LIMIT, Rules};
use std::fmt::{self, Write as _};
use std::time::Duration;

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
}

impl GameResult {
    /// The result as the record writes it.
    pub fn token(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Reads a result token; `*` (unfinished) and anything else give `None`.
    pub fn from_token(token: &str) -> Option<GameResult> {
        match token {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" => Some(GameResult::Draw),
            _ => None,
        }
    }

    /// The win of `color`.
    pub fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The points `color` scored: 1, 1/2 or 0.
    pub fn points(self, color: Color) -> f64 {
        match (self, color) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 1.0,
            _ => 0.0,
        }
    }
}

/// How a game ended, as the `Termination` tag says.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Termination {
    /// By the rules: no stones, no legal turn, repetition or the no-capture limit.
    Normal,
    /// By the runner's adjudication: maximum length, agreed scores, resignation.
    Adjudication,
    /// The loser sent a turn that is not legal.
    IllegalMove,
    /// The loser ran out of time.
    TimeForfeit,
    /// The loser's process died or closed its pipes.
    Crash,
    /// The loser did not answer within its time-out.
    Stalled,
}

impl Termination {
    /// Every kind, in the order of reports.
    pub const ALL: [Termination; 6] = [
        Termination::Normal,
        Termination::Adjudication,
        Termination::IllegalMove,
        Termination::TimeForfeit,
        Termination::Crash,
        Termination::Stalled,
    ];

    /// The tag value.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudication => "adjudication",
            Termination::IllegalMove => "illegal move",
            Termination::TimeForfeit => "time forfeit",
            Termination::Crash => "crash",
            Termination::Stalled => "stalled",
        }
    }

    /// Reads a tag value.
    pub fn parse(text: &str) -> Option<Termination> {
        Termination::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the rules ended a game, in words.
pub fn describe_status(status: Status, rules: &Rules) -> String {
    match status {
        Status::Ongoing => "the game goes on".into(),
        Status::Won { winner, reason } => {
            let loser = winner.opposite().name();
            match reason {
                WinReason::NoStones => format!("{loser} has no stones left"),
                WinReason::NoLegalTurn => format!("{loser} has no legal turn"),
                WinReason::ThreeInARow => "three in a row".to_string(),
            }
        }
        Status::Drawn(DrawReason::Repetition) => "threefold repetition".into(),
        Status::Drawn(DrawReason::NoCaptureLimit) => {
            format!("{} turns without a capture", rules.no_capture_limit)
        }
    }
}

/// The result the rules give a finished game, `None` while it goes on.
pub fn status_result(status: Status) -> Option<GameResult> {
    match status {
        Status::Ongoing => None,
        Status::Won { winner, .. } => Some(GameResult::win_for(winner)),
        Status::Drawn(_) => Some(GameResult::Draw),
    }
}

/// One turn of a game record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// The turn in canonical spelling.
    pub turn: String,
    /// The score the engine reported, from its own point of view.
    pub score: Option<Score>,
    /// The depth it reported.
    pub depth: Option<u32>,
    /// The time it took; `None` for a turn of the opening.
    pub time: Option<Duration>,
}

impl MoveRecord {
    /// A turn of the opening.
    pub fn book(turn: &str) -> MoveRecord {
        MoveRecord {
            turn: turn.to_string(),
            score: None,
            depth: None,
            time: None,
        }
    }

    /// The comment written after the turn: `book`, or `score/depth time`.
    pub fn comment(&self) -> String {
        let Some(time) = self.time else {
            return "book".into();
        };
        let seconds = format!("{:.3}s", time.as_secs_f64());
        match (self.score, self.depth) {
            (Some(score), Some(depth)) => format!("{score}/{depth} {seconds}"),
            (Some(score), None) => format!("{score} {seconds}"),
            _ => seconds,
        }
    }

    /// Reads a turn and its comment back.
    pub fn from_comment(turn: &str, comment: Option<&str>) -> MoveRecord {
        let mut record = MoveRecord::book(turn);
        let Some(comment) = comment.filter(|c| c.trim() != "book") else {
            return record;
        };
        for word in comment.split_whitespace() {
            if let Some(seconds) = word.strip_suffix('s').and_then(|s| s.parse::<f64>().ok()) {
                record.time = Some(Duration::from_secs_f64(seconds.max(0.0)));
            } else {
                let (score, depth) = word.split_once('/').unwrap_or((word, ""));
                record.score = score.parse().ok();
                record.depth = depth.parse().ok();
            }
        }
        record
    }
}

/// A finished game as the runner records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The `Event` tag.
    pub event: String,
    /// The `Date` tag: `YYYY.MM.DD`.
    pub date: String,
    /// The `Round` tag: round and pair number (`3.2`); the two games of a colour-swapped
    /// pair share it.
    pub round: String,
    /// The `GameNumber` tag: the game's number in the match's schedule, from 1, which
    /// puts the records of a match's shards back in order.
    pub number: u64,
    /// White's engine.
    pub white: String,
    /// Black's engine.
    pub black: String,
    /// The position the record starts from.
    pub start: Position,
    /// The rule options of the game.
    pub rules: Rules,
    /// Every turn from `start`, the opening's included.
    pub moves: Vec<MoveRecord>,
    /// The result.
    pub result: GameResult,
    /// How it ended.
    pub termination: Termination,
    /// Why, in words (for example `black has no stones left`).
    pub detail: String,
    /// The `TimeControl` tag.
    pub time_control: String,
}

fn escape(value: &str) -> String {
    printable_text(&value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `text` with control characters (a NUL from an engine, say) written as escapes, so that
/// a record is text that every PGN reader can take.
fn printable_text(text: &str) -> String {
    crate::echo::printable(text, usize::MAX)
}

impl GameRecord {
    /// The record as text, ending with a blank line.
    pub fn to_pgn(&self) -> String {
        let mut text = String::new();
        let mut tag = |name: &str, value: &str| {
            let _ = writeln!(text, "[{name} \"{}\"]", escape(value));
        };
        tag("Event", &self.event);
        tag("Date", &self.date);
        tag("Round", &self.round);
        tag("GameNumber", &self.number.to_string());
        tag("White", &self.white);
        tag("Black", &self.black);
        tag("Result", self.result.token());
        if self.start.board() != Board::Tsivy {
            tag("Variant", self.start.board().name());
        }
        if self.start != Position::start_on(self.start.board()) {
            tag("FEN", &self.start.to_string());
        }
        tag("TimeControl", &self.time_control);
        tag("Termination", self.termination.as_str());
        tag("NoCaptureLimit", &self.rules.no_capture_limit.to_string());
        if self.rules.chain_rule == ChainRule::Mandatory {
            tag("MandatoryContinuation", "true");
        }
        if let Some(side) = self.rules.vela {
            tag("Vela", side.name());
        }
        text.push('\n');

        let mut tokens = Vec::new();
        let mut number = self.start.move_number();
        let mut white_to_move = self.start.side_to_move() == Color::White;
        for (i, record) in self.moves.iter().enumerate() {
            if white_to_move {
                tokens.push(format!("{number}."));
            } else if i == 0 {
                tokens.push(format!("{number}..."));
            }
            tokens.push(record.turn.clone());
            tokens.push(format!("{{{}}}", record.comment()));
            if !white_to_move {
                number += 1;
            }
            white_to_move = !white_to_move;
        }
        if !self.detail.is_empty() {
            tokens.push(format!(
                "{{{}}}",
                printable_text(&self.detail.replace('}', ")"))
            ));
        }
        tokens.push(self.result.token().to_string());
        text.push_str(&wrap(&tokens, 79));
        text.push_str("\n\n");
        text
    }
}

/// Joins tokens with spaces into lines of at most `width` characters (a longer token gets a
/// line of its own); a comment's words may be split across lines.
fn wrap(tokens: &[String], width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for token in tokens {
        for word in token.split(' ') {
            if !line.is_empty() && line.len() + 1 + word.len() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

/// A game read from a record file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// The line of the file where the game starts (from 1).
    pub line: usize,
    /// The tag pairs in order.
    pub tags: Vec<(String, String)>,
    /// The turns and their comments.
    pub moves: Vec<MoveRecord>,
    /// Comments after the last turn's own comment: the end of the game in words.
    pub closing: Vec<String>,
    /// The result token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

/// Why a record file could not be read or a game does not replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError(pub String);

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PgnError {}

impl PgnGame {
    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The rule options the tags give (the defaults where absent).
    pub fn rules(&self) -> Result<Rules, PgnError> {
        let no_capture_limit = match self.tag("NoCaptureLimit") {
            None => DEFAULT_NO_CAPTURE_LIMIT,
            Some(v) => v.parse().map_err(|_| {
                PgnError(format!(
                    "game at line {}: bad NoCaptureLimit '{v}'",
                    self.line
                ))
            })?,
        };
        let chain_rule = match self.tag("MandatoryContinuation") {
            Some("true") => ChainRule::Mandatory,
            _ => ChainRule::Optional,
        };
        let board = match self.tag("Variant") {
            None => Board::Tsivy,
            Some(name) => Variant::from_name(name)
                .and_then(Variant::board)
                .ok_or_else(|| {
                    PgnError(format!(
                        "game at line {}: bad Variant '{name}' (tsivy or dimy)",
                        self.line
                    ))
                })?,
        };
        let vela = match self.tag("Vela") {
            None => None,
            Some(name) => Some(Color::from_name(name).ok_or_else(|| {
                PgnError(format!(
                    "game at line {}: bad Vela '{name}' (white or black)",
                    self.line
                ))
            })?),
        };
        Ok(Rules {
            no_capture_limit,
            chain_rule,
            vela,
            board,
        })
    }

    /// The result, `None` for an unfinished game.
    pub fn result(&self) -> Option<GameResult> {
        GameResult::from_token(&self.result)
    }

    /// The `Termination` tag, read.
    pub fn termination(&self) -> Option<Termination> {
        self.tag("Termination").and_then(Termination::parse)
    }

    /// Plays the game through the rules: every turn must be legal and played before the
    /// game ended, the `Result` tag must agree with the movetext's result, and a game
    /// that ended normally must have ended by the rules with that result. Returns the
    /// game.
    pub fn replay(&self) -> Result<Game, PgnError> {
        let at = |why: String| PgnError(format!("game at line {}: {why}", self.line));
        let rules = self.rules()?;
        let start = match self.tag("FEN") {
            Some(fen) => {
                parse_position_on(rules.board, fen).map_err(|e| at(format!("bad FEN: {e}")))?
            }
            None => rules.start(),
        };
        let mut game = Game::new(start, rules);
        for (i, record) in self.moves.iter().enumerate() {
            if game.status().is_over() {
                return Err(at(format!(
                    "turn {} '{}' is played after the game ended",
                    i + 1,
                    record.turn
                )));
            }
            game.play_text(&record.turn)
                .map_err(|e| at(format!("turn {} '{}' is illegal: {e}", i + 1, record.turn)))?;
        }
        if let Some(tag) = self.tag("Result")
            && tag != self.result
        {
            return Err(at(format!(
                "the Result tag '{tag}' differs from the result '{}'",
                self.result
            )));
        }
        let status = game.status();
        match (self.termination(), self.result()) {
            (Some(Termination::Normal), result) if status_result(status) != result => {
                Err(at(format!(
                    "the rules give {} but the record says {}",
                    status_result(status).map_or("no result", |r| r.token()),
                    self.result
                )))
            }
            (Some(t), Some(_)) if t != Termination::Normal && status.is_over() => Err(at(format!(
                "the game ended by the rules ({}) but is recorded as {t}",
                describe_status(status, game.rules())
            ))),
            _ => Ok(game),
        }
    }
}

/// Reads every game of a record file's text.
pub fn parse_pgn(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut games = Vec::new();
    let mut current: Option<PgnGame> = None;
    let mut last_turn_has_comment = true;
    let mut line_number = 1;
    let mut chars = text.char_indices().peekable();
    let new_game = |line: usize| PgnGame {
        line,
        tags: Vec::new(),
        moves: Vec::new(),
        closing: Vec::new(),
        result: String::new(),
    };
    while let Some((start, c)) = chars.next() {
        match c {
            '\n' => line_number += 1,
            c if c.is_whitespace() => {}
            '[' => {
                let begin = line_number;
                let mut inner = String::new();
                let mut in_string = false;
                let mut escaped = false;
                loop {
                    let Some((_, c)) = chars.next() else {
                        return Err(PgnError(format!("line {begin}: unclosed tag")));
                    };
                    if c == '\n' {
                        line_number += 1;
                    }
                    if in_string && escaped {
                        escaped = false;
                    } else if in_string && c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        in_string = !in_string;
                    } else if c == ']' && !in_string {
                        break;
                    }
                    inner.push(c);
                }
                let (name, value) = parse_tag(&inner)
                    .ok_or_else(|| PgnError(format!("line {begin}: bad tag [{inner}]")))?;
                let game = current.get_or_insert_with(|| new_game(begin));
                if !game.moves.is_empty() {
                    return Err(PgnError(format!(
                        "line {begin}: tag after the turns of the game at line {}",
                        game.line
                    )));
                }
                game.tags.push((name, value));
            }
            '{' => {
                let begin = line_number;
                let mut comment = String::new();
                loop {
                    match chars.next() {
                        None => return Err(PgnError(format!("line {begin}: unclosed comment"))),
                        Some((_, '}')) => break,
                        Some((_, c)) => {
                            if c == '\n' {
                                line_number += 1;
                            }
                            comment.push(if c == '\n' { ' ' } else { c });
                        }
                    }
                }
                let game = current.get_or_insert_with(|| new_game(begin));
                if !last_turn_has_comment {
                    if let Some(last) = game.moves.last_mut() {
                        *last = MoveRecord::from_comment(&last.turn, Some(&comment));
                    }
                    last_turn_has_comment = true;
                } else {
                    game.closing.push(comment.trim().to_string());
                }
            }
            ';' => {
                while let Some(&(_, c)) = chars.peek() {
                    if c == '\n' {
                        break;
                    }
                    chars.next();
                }
            }
            _ => {
                let mut end = start + c.len_utf8();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || c == '{' || c == '[' || c == ';' {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                let token = &text[start..end];
                let game = current.get_or_insert_with(|| new_game(line_number));
                if matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*") {
                    game.result = token.to_string();
                    games.push(current.take().expect("a game is open"));
                    last_turn_has_comment = true;
                    continue;
                }
                // A move number, possibly glued to the turn: `12.`, `12...`, `3.d3e3W`.
                let turn = token.trim_start_matches(|c: char| c.is_ascii_digit());
                let turn = if turn.len() < token.len() && turn.starts_with('.') {
                    turn.trim_start_matches('.')
                } else {
                    token
                };
                if !turn.is_empty() {
                    if !game.closing.is_empty() {
                        return Err(PgnError(format!(
                            "line {line_number}: turn '{turn}' after the closing comment"
                        )));
                    }
                    game.moves.push(MoveRecord::book(turn));
                    last_turn_has_comment = false;
                }
            }
        }
    }
    if let Some(game) = current
        && (!game.tags.is_empty() || !game.moves.is_empty())
    {
        return Err(PgnError(format!(
            "the game at line {} has no result",
            game.line
        )));
    }
    Ok(games)
}

fn parse_tag(inner: &str) -> Option<(String, String)> {
    let inner = inner.trim();
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    let quoted = rest.strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut escaped = false;
    for c in quoted.chars() {
        if escaped {
            value.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else {
            value.push(c);
        }
    }
    Some((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> GameRecord {
        GameRecord {
            event: "test \"quoted\"".into(),
            date: "2026.11.29".into(),
            round: "1.1".into(),
            number: 1,
            white: "new".into(),
            black: "base".into(),
            start: "9/9/9/9/W1B6 w 0 1".parse().unwrap(),
            rules: Rules::default(),
            moves: vec![MoveRecord {
                turn: "a1b1A".into(),
                score: Some(Score::Mate(1)),
                depth: Some(1),
                time: Some(Duration::from_millis(12)),
            }],
            result: GameResult::WhiteWins,
            termination: Termination::Normal,
            detail: "black has no stones left".into(),
            time_control: "10+0.1".into(),
        }
    }

    #[test]
    fn a_record_reads_back_and_replays() {
        let text = record().to_pgn();
        assert!(text.contains("[FEN \"9/9/9/9/W1B6 w 0 1\"]"), "{text}");
        assert!(
            text.contains("1. a1b1A {+M1/1 0.012s} {black has no stones left} 1-0"),
            "{text}"
        );
        let games = parse_pgn(&(text.clone() + &text)).unwrap();
        assert_eq!(games.len(), 2);
        let game = &games[0];
        assert_eq!(game.tag("Event"), Some("test \"quoted\""));
        assert_eq!(game.moves, record().moves);
        assert_eq!(game.closing, vec!["black has no stones left".to_string()]);
        assert_eq!(game.result(), Some(GameResult::WhiteWins));
        assert_eq!(game.termination(), Some(Termination::Normal));
        assert!(game.replay().unwrap().status().is_over());
        assert_eq!(games[1].line, text.lines().count() + 1);
    }

    #[test]
    fn black_first_and_book_turns() {
        let mut r = record();
        r.start = "9/9/4W4/9/B8 b 0 7".parse().unwrap();
        r.moves = vec![
            MoveRecord::book("a1a2"),
            MoveRecord {
                turn: "e3e4".into(),
                score: Some(Score::Cp(-25)),
                depth: None,
                time: Some(Duration::from_millis(1500)),
            },
        ];
        r.result = GameResult::Draw;
        r.termination = Termination::Adjudication;
        r.detail = "maximum length of 2 turns".into();
        let text = r.to_pgn();
        assert!(
            text.contains("7... a1a2 {book} 8. e3e4 {-0.25 1.500s}"),
            "{text}"
        );
        let game = &parse_pgn(&text).unwrap()[0];
        assert_eq!(game.moves, r.moves);
        game.replay().unwrap();
    }

    #[test]
    fn replay_refuses_bad_records() {
        let mut r = record();
        r.moves[0].turn = "a1a2A".into();
        let game = &parse_pgn(&r.to_pgn()).unwrap()[0];
        assert!(
            game.replay()
                .unwrap_err()
                .0
                .contains("turn 1 'a1a2A' is illegal"),
            "{:?}",
            game.replay()
        );
        let mut r = record();
        r.result = GameResult::BlackWins;
        let game = &parse_pgn(&r.to_pgn()).unwrap()[0];
        assert!(game.replay().unwrap_err().0.contains("the rules give 1-0"));
        let mut r = record();
        r.termination = Termination::TimeForfeit;
        let game = &parse_pgn(&r.to_pgn()).unwrap()[0];
        assert!(game.replay().unwrap_err().0.contains("ended by the rules"));
    }

    #[test]
    fn malformed_files_name_the_line() {
        assert_eq!(
            parse_pgn("[Event \"x\"]\n\n1. d3e3W").unwrap_err().0,
            "the game at line 1 has no result"
        );
        assert_eq!(
            parse_pgn("\n[Event x]\n*").unwrap_err().0,
            "line 2: bad tag [Event x]"
        );
        assert!(parse_pgn("1. d3e3W {unclosed").is_err());
        assert_eq!(parse_pgn("").unwrap(), vec![]);
    }

    #[test]
    fn long_games_wrap() {
        let mut r = record();
        r.start = Position::start();
        r.moves = (0..40).map(|_| MoveRecord::book("d3e3W")).collect();
        let text = r.to_pgn();
        assert!(text.lines().all(|l| l.len() <= 79), "{text}");
        let game = &parse_pgn(&text).unwrap()[0];
        assert_eq!(game.moves.len(), 40);
    }
}
