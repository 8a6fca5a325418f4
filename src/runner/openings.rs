//! Openings: the positions games start from, read from a file or made by a generator of
//! random balanced openings.
//!
//! An opening file holds one opening per line: a position string, or `startpos`; either
//! may be followed by turns (with or without the word `moves` before them). Blank lines and
//! everything after a `#` are ignored.

pub use crate::random::Rng;
use crate::rules::Rules;
use crate::rules::fen::parse_position_on;
use crate::rules::game::{Game, Status};
use crate::rules::notation::spell_turn;
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use std::fmt;
use std::path::Path;

/// A game's beginning: a start position and the turns played from it before the engines
/// take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The position the game record starts from.
    pub start: Position,
    /// The opening's turns, in order.
    pub turns: Vec<Turn>,
    /// Their canonical spellings, each in the position where it is played.
    pub spelled: Vec<String>,
}

impl Opening {
    /// The start position of a game under `rules`, with no turns.
    pub fn startpos(rules: Rules) -> Opening {
        Opening {
            start: rules.start(),
            turns: Vec::new(),
            spelled: Vec::new(),
        }
    }

    /// The game after the opening's turns, under `rules`.
    pub fn game(&self, rules: Rules) -> Game {
        let mut game = Game::new(self.start, rules);
        for &turn in &self.turns {
            game.play(turn);
        }
        game
    }

    /// Reads one opening: `startpos` or a position string, then optionally `moves` and
    /// turns. The turns must be legal and leave the game going on under `rules`.
    pub fn parse(text: &str, rules: Rules) -> Result<Opening, OpeningError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let (start, turn_words) = match words.first() {
            None => return Err(OpeningError("empty opening".into())),
            Some(&"startpos") => (rules.start(), &words[1..]),
            Some(_) => {
                let words = words.strip_prefix(&["fen"]).unwrap_or(&words[..]);
                let fields = position_fields(words);
                let start = parse_position_on(rules.board, &words[..fields].join(" "))
                    .map_err(|e| OpeningError(format!("bad position string: {e}")))?;
                (start, &words[fields..])
            }
        };
        let turn_words = turn_words.strip_prefix(&["moves"]).unwrap_or(turn_words);
        let mut game = Game::new(start, rules);
        if game.status().is_over() {
            return Err(OpeningError("the game is already over".into()));
        }
        let mut opening = Opening {
            start,
            turns: Vec::new(),
            spelled: Vec::new(),
        };
        for (i, word) in turn_words.iter().enumerate() {
            let before = *game.position();
            let turn = game
                .play_text(word)
                .map_err(|e| OpeningError(format!("turn {} '{word}' is illegal: {e}", i + 1)))?;
            opening.turns.push(turn);
            opening.spelled.push(spell_turn(&before, &rules, turn));
            if game.status().is_over() {
                return Err(OpeningError(format!(
                    "the game is over after turn {} '{word}'",
                    i + 1
                )));
            }
        }
        Ok(opening)
    }
}

/// The number of leading words that belong to the position string: the board, the side
/// and up to two counters (the counters are the words that are numbers).
fn position_fields(words: &[&str]) -> usize {
    let mut fields = words.len().min(2);
    while fields < words.len().min(4) && words[fields].parse::<u32>().is_ok() {
        fields += 1;
    }
    fields
}

/// Writes the opening as a line of an opening file.
impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start == Position::start_on(self.start.board()) {
            f.write_str("startpos")?;
        } else {
            write!(f, "{}", self.start)?;
            if !self.spelled.is_empty() {
                f.write_str(" moves")?;
            }
        }
        for turn in &self.spelled {
            write!(f, " {turn}")?;
        }
        Ok(())
    }
}

/// Why an opening or an opening file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningError(pub String);

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpeningError {}

/// Reads the openings of a file's text; errors name the line.
pub fn parse_openings(text: &str, rules: Rules) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let opening = Opening::parse(line, rules)
            .map_err(|e| OpeningError(format!("line {}: {e}", number + 1)))?;
        openings.push(opening);
    }
    Ok(openings)
}

/// Reads an opening file; an empty file is an error.
pub fn read_openings(path: &Path, rules: Rules) -> Result<Vec<Opening>, OpeningError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| OpeningError(format!("cannot read {}: {e}", path.display())))?;
    let openings = parse_openings(&text, rules)
        .map_err(|e| OpeningError(format!("{}: {e}", path.display())))?;
    if openings.is_empty() {
        return Err(OpeningError(format!(
            "{}: no openings in the file",
            path.display()
        )));
    }
    Ok(openings)
}

/// The largest difference in stone counts a generated opening may have.
const MAX_MATERIAL_DIFFERENCE: u32 = 1;
/// The most stones the side to move may be able to take at once in a generated opening.
const MAX_IMMEDIATE_CAPTURE: u32 = 2;
/// Random games tried for one opening before the generator gives up.
const ATTEMPTS: u32 = 100_000;

/// Why an opening is not balanced, or `None` when it is: the game goes on, the stone
/// counts differ by at most one and the side to move cannot take more than two stones at
/// once (a bigger capture would decide the game before the engines have played).
pub fn imbalance(game: &Game) -> Option<String> {
    if game.status() != Status::Ongoing {
        return Some("the game is over".into());
    }
    let position = game.position();
    let (us, them) = (position.us().count(), position.them().count());
    // A vela game is a handicap: the favoured side takes a stone a turn by its rules.
    if us.abs_diff(them) > MAX_MATERIAL_DIFFERENCE && game.rules().vela.is_none() {
        return Some(format!("{us} stones against {them}"));
    }
    let biggest = game
        .rules()
        .turn_rules()
        .legal_turns(position)
        .iter()
        .map(|turn| turn.captured().count())
        .max()
        .unwrap_or(0);
    if biggest > MAX_IMMEDIATE_CAPTURE {
        return Some(format!(
            "the side to move can take {biggest} stones at once"
        ));
    }
    None
}

/// A random balanced opening of `turns` turns from the start position: random legal turns,
/// the result refused and tried again while [`imbalance`] finds fault with it. The same
/// generator state gives the same opening.
pub fn random_opening(turns: u32, rules: Rules, rng: &mut Rng) -> Result<Opening, OpeningError> {
    for _ in 0..ATTEMPTS {
        let mut opening = Opening::startpos(rules);
        let mut game = Game::new(opening.start, rules);
        let mut finished = true;
        for _ in 0..turns {
            let choices = rules.turn_rules().legal_turns(game.position());
            if choices.is_empty() || game.status().is_over() {
                finished = false;
                break;
            }
            let turn = choices[rng.below(choices.len() as u64) as usize];
            opening
                .spelled
                .push(spell_turn(game.position(), &rules, turn));
            opening.turns.push(turn);
            game.play(turn);
        }
        if finished && imbalance(&game).is_none() {
            return Ok(opening);
        }
    }
    Err(OpeningError(format!(
        "found no balanced opening of {turns} turns in {ATTEMPTS} random games"
    )))
}

/// Where the openings of a match come from.
#[derive(Clone, Debug)]
pub enum OpeningSource {
    /// Every game starts from the start position.
    Startpos,
    /// Openings from a file, in the given order, cycled when they run out.
    List(Vec<Opening>),
    /// Random balanced openings of this many turns; each from a generator seeded by the
    /// match seed and the opening's number, so that any opening can be made on its own.
    Random {
        /// Turns per opening.
        turns: u32,
        /// The match seed.
        seed: u64,
    },
}

impl OpeningSource {
    /// The opening numbered `index` (from 0).
    pub fn opening(&self, index: u64, rules: Rules) -> Result<Opening, OpeningError> {
        match self {
            OpeningSource::Startpos => Ok(Opening::startpos(rules)),
            OpeningSource::List(openings) => {
                Ok(openings[(index % openings.len() as u64) as usize].clone())
            }
            OpeningSource::Random { turns, seed } => {
                let mut rng = Rng::new(seed ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93));
                random_opening(*turns, rules, &mut rng)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_with_turns() {
        let o = Opening::parse("startpos moves d3-e3w D4C3a", Rules::default()).unwrap();
        assert_eq!(o.spelled.len(), 2);
        assert_eq!(o.spelled[0], "d3e3W");
        assert!(o.to_string().starts_with("startpos d3e3W d4c3A"));
        let again = Opening::parse(&o.to_string(), Rules::default()).unwrap();
        assert_eq!(again, o);
        let bare = Opening::parse("startpos d3e3W", Rules::default()).unwrap();
        assert_eq!(bare.spelled, vec!["d3e3W".to_string()]);
    }

    #[test]
    fn position_strings_with_and_without_turns() {
        let o = Opening::parse("9/9/4W4/9/B8 w", Rules::default()).unwrap();
        assert!(o.turns.is_empty());
        assert_eq!(o.to_string(), "9/9/4W4/9/B8 w 0 1");
        let o = Opening::parse("fen 9/9/4W4/9/B8 w 3 7 moves e3e4", Rules::default()).unwrap();
        assert_eq!(o.to_string(), "9/9/4W4/9/B8 w 3 7 moves e3e4");
        let o = Opening::parse("9/9/4W4/9/B8 w 3 e3e4 a1a2", Rules::default()).unwrap();
        assert_eq!(o.spelled, vec!["e3e4".to_string(), "a1a2".to_string()]);
    }

    #[test]
    fn bad_openings_are_explained() {
        let err = |text: &str| Opening::parse(text, Rules::default()).unwrap_err().0;
        assert_eq!(
            err("startpos e5e4"),
            "turn 1 'e5e4' is illegal: the stone on e5 is black, but white is to move"
        );
        assert!(err("9/9/9/9 w").starts_with("bad position string"));
        assert_eq!(err("9/9/9/WW7/BW7 b"), "the game is already over");
        assert_eq!(
            err("9/9/9/9/W1B6 w a1b1A"),
            "the game is over after turn 1 'a1b1A'"
        );
    }

    #[test]
    fn files_skip_comments_and_name_lines() {
        let text = "# openings\n\nstartpos d3e3W # a comment\nstartpos e5e4\n";
        let err = parse_openings(text, Rules::default()).unwrap_err();
        assert!(err.0.starts_with("line 4: "), "{}", err.0);
        let ok = parse_openings("# only\nstartpos\n  \nstartpos f2e3A\n", Rules::default());
        assert_eq!(ok.unwrap().len(), 2);
    }

    #[test]
    fn generated_openings_are_balanced_and_reproducible() {
        let rules = Rules::default();
        let source = OpeningSource::Random { turns: 4, seed: 7 };
        for index in 0..8 {
            let a = source.opening(index, rules).unwrap();
            let b = source.opening(index, rules).unwrap();
            assert_eq!(a, b);
            assert_eq!(a.turns.len(), 4);
            assert_eq!(imbalance(&a.game(rules)), None);
            // The written form reads back as the same opening.
            assert_eq!(Opening::parse(&a.to_string(), rules).unwrap(), a);
        }
    }

    #[test]
    fn shuffling_keeps_the_items() {
        let mut items: Vec<u32> = (0..20).collect();
        Rng::new(3).shuffle(&mut items);
        let mut sorted = items.clone();
        sorted.sort();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
        assert_ne!(items, sorted);
    }
}
