//! The entry points of the fuzz targets in `fuzz/`, shared with the test that replays the
//! kept corpus on the stable toolchain, so that what the fuzzer checks is checked by every
//! ordinary test run too. Each takes arbitrary bytes and panics only when a property of
//! the readers fails: they never panic on bad input, and their error lines are one line of
//! printable text of bounded length.

use crate::echo::MAX_MESSAGE_CHARS;
use crate::protocol::parser::parse_command;
use crate::protocol::session::{error_line, not_utf8_line};
use crate::rules::ChainRule;
use crate::rules::fen::parse_position;
use crate::rules::movegen::legal_turns;
use crate::rules::notation::{parse_turn, parse_turn_prefix, spell_turn};

/// The longest error line: the prefix, the capped message and the cut mark.
pub const MAX_ERROR_LINE_CHARS: usize = "info string error ".len() + MAX_MESSAGE_CHARS + 3;

/// The beginnings of error lines: the general one and the two of a refused `position`.
pub const ERROR_PREFIXES: [&str; 3] = [
    "info string error ",
    "info string illegal move ",
    "info string invalid fen ",
];

/// Whether `line` is an error line.
pub fn is_error_line(line: &str) -> bool {
    ERROR_PREFIXES.iter().any(|p| line.starts_with(p))
}

/// Panics unless `line` is one line of printable text no longer than the error bound.
pub fn assert_printable_error_line(line: &str) {
    assert!(is_error_line(line), "{line:?}");
    assert!(
        !line
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}'),
        "{line:?}"
    );
    assert!(line.chars().count() <= MAX_ERROR_LINE_CHARS, "{line:?}");
}

/// The protocol parser: every line of `data` (split as the session splits its input) is
/// parsed; a line that is not UTF-8, or not a command, gives an error line that must be
/// printable and bounded.
pub fn protocol_lines(data: &[u8]) {
    for raw in data.split(|&b| b == b'\n') {
        let mut line = raw;
        while let [rest @ .., b'\r'] = line {
            line = rest;
        }
        match std::str::from_utf8(line) {
            Err(e) => assert_printable_error_line(&not_utf8_line(line, e)),
            Ok(text) => {
                if let Err(e) = parse_command(text) {
                    assert_printable_error_line(&error_line(&e.to_string()));
                }
            }
        }
    }
}

/// The position reader: a position that reads back prints as text that reads back to it.
pub fn position_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_position(text) {
        Ok(position) => {
            let printed = position.to_string();
            let again = parse_position(&printed)
                .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e}"));
            assert_eq!(again, position, "{text:?} printed as {printed:?}");
        }
        Err(e) => assert_printable_error_line(&error_line(&format!("position: {e}"))),
    }
}

/// The turn reader: the first line of `data` is a position (the start when it is not
/// one), every further line a turn read under both chain rules; a turn that reads is
/// legal and its spelling reads back to it.
pub fn turn_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.split('\n');
    let position = lines
        .next()
        .and_then(|first| parse_position(first).ok())
        .unwrap_or_else(crate::rules::position::Position::start);
    for turn_text in lines {
        for rule in [ChainRule::Optional, ChainRule::Mandatory] {
            let _ = parse_turn_prefix(turn_text);
            match parse_turn(&position, rule, turn_text) {
                Ok(turn) => {
                    assert!(
                        legal_turns(&position, rule).contains(&turn),
                        "{turn_text:?}"
                    );
                    let spelled = spell_turn(&position, rule, turn);
                    assert_eq!(parse_turn(&position, rule, &spelled), Ok(turn), "{spelled}");
                }
                Err(e) => assert_printable_error_line(&error_line(&format!("move: {e}"))),
            }
        }
    }
}
