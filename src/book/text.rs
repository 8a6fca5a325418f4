//! The text form of a book, as the Fanorona web interface's engine reads it: one line per
//! position, the turns that lead to it from the start position (`-` for the start itself),
//! a tab, then pairs `turn weight` separated by spaces. A position is found again by
//! replaying its turns, so a position reached along two paths is one position.
//!
//! The scores, which that form has no place for, follow their position in a comment line
//! that the interface skips and Vato reads back: `#scores` then triples `turn score depth`
//! (the score in centi-stones for the side playing the turn, as a build stores it).

use super::contents::{BookContents, BookRules, BookTurn, MAX_BOOK_SCORE, sort_turns};
use crate::rules::TurnRules;
use crate::rules::notation::{parse_turn, spell_turn};
use crate::rules::position::Position;
use anyhow::{Context, Result, bail};
use std::collections::{HashSet, VecDeque};

/// A book read from text, with what was read.
#[derive(Debug)]
pub struct TextImport {
    /// The positions and their turns.
    pub contents: BookContents,
    /// Lines that held a position.
    pub lines: usize,
}

/// The book as text, and how many of its positions could not be written because no path
/// of book turns leads to them from the start (a book built from another position).
/// Positions are written in the order a breadth-first walk of the book's turns meets them.
pub fn write_text(contents: &BookContents) -> (String, usize) {
    let rules = contents.rules.rules();
    let mut out = String::new();
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([(rules.start(), Vec::<String>::new())]);
    while let Some((position, path)) = queue.pop_front() {
        let Some(turns) = contents.positions.get(&position.key()) else {
            continue;
        };
        if !seen.insert(position.key()) {
            continue;
        }
        out.push_str(&if path.is_empty() {
            "-".to_string()
        } else {
            path.join(" ")
        });
        out.push('\t');
        // Turns go by weight, then by name, as they read back.
        let mut by_weight: Vec<&BookTurn> = turns.iter().collect();
        by_weight.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.turn.cmp(&b.turn)));
        let pairs: Vec<String> = by_weight
            .iter()
            .map(|t| format!("{} {}", t.turn, t.weight))
            .collect();
        out.push_str(&pairs.join(" "));
        out.push('\n');
        if by_weight.iter().any(|t| t.depth > 0) {
            out.push_str(SCORES);
            for t in &by_weight {
                out.push_str(&format!(" {} {} {}", t.turn, t.score, t.depth));
            }
            out.push('\n');
        }
        for book_turn in turns {
            if let Ok(turn) = parse_turn(&position, rules.turn_rules(), &book_turn.turn) {
                let mut next = path.clone();
                next.push(book_turn.turn.clone());
                queue.push_back((position.play(turn), next));
            }
        }
    }
    (out, contents.positions.len() - seen.len())
}

/// The comment word that starts a line of scores.
const SCORES: &str = "#scores";

/// Reads a book in the web interface's text form, for the rules `rules`. Blank lines and
/// lines starting with `#` are skipped, but for `#scores` lines, which give the scores of
/// the position line before them (a text without them reads with scores and depths 0).
/// Any line that cannot be read makes the whole text refused, with the line's number:
/// half a book is not offered.
pub fn read_text(text: &str, rules: BookRules) -> Result<TextImport> {
    let game_rules = rules.rules();
    let turn_rules = game_rules.turn_rules();
    let mut contents = BookContents::new(rules);
    let mut lines = 0;
    let mut last: Option<Position> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim_end_matches('\r');
        if let Some(triples) = line.strip_prefix(SCORES)
            && (triples.is_empty() || triples.starts_with([' ', '\t']))
        {
            let Some(position) = last else {
                bail!("line {number}: scores before any position");
            };
            read_scores(&mut contents, &position, turn_rules, triples)
                .with_context(|| format!("line {number}"))?;
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((path, pairs)) = line.split_once('\t') else {
            bail!("line {number}: no tab between the path and the turns");
        };
        let mut position: Position = game_rules.start();
        if path.trim() != "-" {
            for text in path.split_whitespace() {
                match parse_turn(&position, turn_rules, text) {
                    Ok(turn) => position = position.play(turn),
                    Err(e) => bail!("line {number}: '{text}' cannot be played: {e}"),
                }
            }
        }
        let words: Vec<&str> = pairs.split_whitespace().collect();
        if words.is_empty() || !words.len().is_multiple_of(2) {
            bail!("line {number}: the turns must come in pairs 'turn weight'");
        }
        let mut turns = Vec::new();
        for pair in words.chunks(2) {
            let (text, weight) = (pair[0], pair[1]);
            let turn = match parse_turn(&position, turn_rules, text) {
                Ok(turn) => turn,
                Err(e) => bail!("line {number}: '{text}' is not a turn of the position: {e}"),
            };
            let Ok(weight) = weight.parse::<u16>() else {
                bail!(
                    "line {number}: weight '{weight}' of '{text}' is not a number from 0 to 65535"
                );
            };
            turns.push(BookTurn {
                turn: spell_turn(&position, turn_rules, turn),
                weight,
                score: 0,
                depth: 0,
            });
        }
        sort_turns(&mut turns);
        contents.add(position.key(), turns);
        last = Some(position);
        lines += 1;
    }
    Ok(TextImport { contents, lines })
}

/// Gives the turns of `position` in `contents` the scores of a `#scores` line's triples
/// `turn score depth`; a turn keeps the score of its deepest search, as when books merge.
fn read_scores(
    contents: &mut BookContents,
    position: &Position,
    turn_rules: TurnRules,
    triples: &str,
) -> Result<()> {
    let words: Vec<&str> = triples.split_whitespace().collect();
    if !words.len().is_multiple_of(3) {
        bail!("the scores must come in triples 'turn score depth'");
    }
    let Some(held) = contents.positions.get_mut(&position.key()) else {
        bail!("scores of a position without turns");
    };
    for triple in words.chunks(3) {
        let (text, score, depth) = (triple[0], triple[1], triple[2]);
        let turn = match parse_turn(position, turn_rules, text) {
            Ok(turn) => spell_turn(position, turn_rules, turn),
            Err(e) => bail!("'{text}' is not a turn of the position: {e}"),
        };
        let Some(same) = held.iter_mut().find(|t| t.turn == turn) else {
            bail!("'{text}' has a score but is not among the position's turns");
        };
        let score = match score.parse::<i16>() {
            Ok(score) if score.abs() <= MAX_BOOK_SCORE => score,
            _ => bail!(
                "score '{score}' of '{text}' is not a number from -{MAX_BOOK_SCORE} to {MAX_BOOK_SCORE}"
            ),
        };
        let Ok(depth) = depth.parse::<u8>() else {
            bail!("depth '{depth}' of '{text}' is not a number from 0 to 255");
        };
        if depth > same.depth {
            same.score = score;
            same.depth = depth;
        }
    }
    sort_turns(held);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_transpositions_are_one_position() {
        let rules = BookRules::default();
        let text = "-\tf2e3A 60 d3e3W 0\nf2e3A\tc3d4W 30 f3f2A 10\n";
        let book = read_text(text, rules).unwrap();
        assert_eq!(book.lines, 2);
        assert_eq!(book.contents.positions.len(), 2);
        let (written, unreachable) = write_text(&book.contents);
        assert_eq!(unreachable, 0);
        assert_eq!(written, text);
        // The same position given twice: one position, the larger weight kept.
        let twice = format!("{text}f2e3A\tc3d4W 5 f3f2A 40\n");
        let book = read_text(&twice, rules).unwrap();
        assert_eq!(book.contents.positions.len(), 2);
        let (written, _) = write_text(&book.contents);
        assert_eq!(written, "-\tf2e3A 60 d3e3W 0\nf2e3A\tf3f2A 40 c3d4W 30\n");
    }

    #[test]
    fn scores_go_to_text_and_back() {
        let rules = BookRules::default();
        let mut book = read_text("-\tf2e3A 60 d3e3W 0\nf2e3A\tc3d4W 30 f3f2A 10\n", rules)
            .unwrap()
            .contents;
        let start = rules.rules().start().key();
        for (turn, score) in book
            .positions
            .get_mut(&start)
            .unwrap()
            .iter_mut()
            .zip([29, -166])
        {
            (turn.score, turn.depth) = (score, 11);
        }
        let (written, _) = write_text(&book);
        assert_eq!(
            written,
            "-\tf2e3A 60 d3e3W 0\n#scores f2e3A 29 11 d3e3W -166 11\nf2e3A\tc3d4W 30 f3f2A 10\n"
        );
        let again = read_text(&written, rules).unwrap();
        assert_eq!(again.lines, 2);
        assert_eq!(again.contents, book);
        // A deeper score given again wins; a shallower one does not.
        let more = format!("{written}-\tf2e3A 1\n#scores f2e3A 5 12 d3e3W 7 3\n");
        let again = read_text(&more, rules).unwrap().contents;
        let scores: Vec<(&str, i16, u8)> = again.positions[&start]
            .iter()
            .map(|t| (t.turn.as_str(), t.score, t.depth))
            .collect();
        assert_eq!(scores, [("f2e3A", 5, 12), ("d3e3W", -166, 11)]);
    }

    #[test]
    fn a_bad_line_refuses_the_text_with_its_number() {
        let rules = BookRules::default();
        for (text, why) in [
            ("-\tf2e3A 60\nf2e3A d4d3W 30\n", "line 2: no tab"),
            ("-\tf2e3A\n", "line 1: the turns must come in pairs"),
            ("-\ta1a2 5\n", "line 1: 'a1a2' is not a turn"),
            ("-\tf2e3A x\n", "line 1: weight 'x'"),
            (
                "# comment\n\nd3e3W f2e3A\tf2e3A 1\n",
                "line 3: 'f2e3A' cannot be played",
            ),
            ("#scores f2e3A 1 1\n", "line 1: scores before any position"),
            (
                "-\tf2e3A 60\n#scores f2e3A 1\n",
                "line 2: the scores must come",
            ),
            (
                "-\tf2e3A 60\n#scores d3e3W 1 1\n",
                "line 2: 'd3e3W' has a score",
            ),
            (
                "-\tf2e3A 60\n#scores f2e3A 30001 1\n",
                "line 2: score '30001'",
            ),
            ("-\tf2e3A 60\n#scores f2e3A 1 256\n", "line 2: depth '256'"),
        ] {
            let error = format!("{:#}", read_text(text, rules).unwrap_err());
            assert!(error.starts_with(why), "{text:?}: {error}");
            assert!(!error.contains('\n'), "{error}");
        }
    }
}
