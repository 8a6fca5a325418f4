//! Turn notation.
//!
//! A turn is one word: a paika is its two points (`e2e3`); a capture is its starting point,
//! then per step the landing point and `A` (approach) or `W` (withdrawal), as in `d3e3W` or
//! `c1d1Ad2A`. Output is canonical: lower-case points, upper-case kinds and, where several
//! routes give the same turn, the lexicographically smallest spelling. Input is lenient:
//! any case, optional `-` between points, and a step's kind may be left out where only one
//! kind fits.

use crate::rules::TurnRules;
use crate::rules::geometry::{FILES, RANKS, Square};
use crate::rules::movegen::{has_capture, legal_routes, stone_routes};
use crate::rules::position::{Color, Position};
use crate::rules::turn::{CaptureKind, Route, Turn};
use crate::rules::vela::{in_phase_one, vela_routes};
use nom::branch::alt;
use nom::character::complete::{char, one_of, satisfy};
use nom::combinator::{map, not, opt};
use nom::sequence::terminated;
use nom::{IResult, Parser};
use std::collections::BTreeMap;
use std::fmt;

/// A turn as written, before it is checked against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnText {
    /// The starting point.
    pub from: Square,
    /// The steps: landing point and, if written, the capture kind.
    pub steps: Vec<(Square, Option<CaptureKind>)>,
}

/// Why a turn was refused, precise enough for a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnError {
    /// The text is not a turn token.
    Syntax(String),
    /// A file outside `a`..`i` or a rank outside `1`..`5`.
    UnknownPoint(String),
    /// The starting point is empty.
    NoStone(Square),
    /// The stone belongs to the side not to move.
    NotYourStone {
        /// The starting point.
        square: Square,
        /// The colour of the side to move.
        to_move: Color,
    },
    /// Two consecutive points are not joined by a line.
    NotAdjacent(Square, Square),
    /// A step lands on a stone.
    Occupied(Square),
    /// A step goes in the same direction as the step before it.
    SameDirection(Square),
    /// A step lands on a point the stone already occupied this turn.
    Revisit(Square),
    /// A paika while a capture is available.
    CaptureAvailable(Square),
    /// A paika of more than one step.
    PaikaIsOneStep,
    /// In phase 1 of a vela game the turn is not one of the few the phase allows.
    VelaPhaseOne,
    /// A step that does not capture (as written) where it must.
    NoCapture {
        /// 1-based step number.
        step: usize,
        /// Landing point.
        to: Square,
        /// The kind written, if any.
        kind: Option<CaptureKind>,
    },
    /// Under mandatory continuation, the chain stops where it can still capture.
    MustContinue(Square),
    /// Several different turns fit the text; their canonical spellings.
    Ambiguous(Vec<String>),
}

impl fmt::Display for TurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnError::Syntax(why) => write!(f, "{why}"),
            TurnError::UnknownPoint(p) => write!(f, "unknown point '{p}'"),
            TurnError::NoStone(s) => write!(f, "no stone on {s}"),
            TurnError::NotYourStone { square, to_move } => write!(
                f,
                "the stone on {square} is {}, but {} is to move",
                to_move.opposite().name(),
                to_move.name()
            ),
            TurnError::NotAdjacent(a, b) => write!(f, "{a} and {b} are not adjacent on a line"),
            TurnError::Occupied(s) => write!(f, "{s} is occupied"),
            TurnError::SameDirection(s) => write!(
                f,
                "illegal continuation: the step to {s} goes in the same direction as the step before"
            ),
            TurnError::Revisit(s) => write!(
                f,
                "illegal continuation: {s} was already occupied during this turn"
            ),
            TurnError::CaptureAvailable(s) => write!(
                f,
                "a capture is available, so the stone on {s} may not make a paika"
            ),
            TurnError::PaikaIsOneStep => {
                write!(f, "no capture is available and a paika is one step")
            }
            TurnError::VelaPhaseOne => write!(
                f,
                "in phase 1 of the vela game the favoured side captures exactly one stone \
                 with no continuation, and the other side plays a paika that leaves it a \
                 capture"
            ),
            TurnError::NoCapture { step, to, kind } => {
                let how = match kind {
                    Some(CaptureKind::Approach) => " by approach",
                    Some(CaptureKind::Withdrawal) => " by withdrawal",
                    None => "",
                };
                write!(f, "step {step} (to {to}) captures nothing{how}")
            }
            TurnError::MustContinue(s) => write!(
                f,
                "the chain must continue: the stone on {s} can still capture"
            ),
            TurnError::Ambiguous(candidates) => {
                write!(f, "ambiguous, could be: {}", candidates.join(" "))
            }
        }
    }
}

impl std::error::Error for TurnError {}

/// A point as written: a letter and a digit, checked for range afterwards so that `j3` is
/// reported as an unknown point rather than as bad syntax.
fn raw_point(input: &str) -> IResult<&str, (char, char)> {
    (
        satisfy(|c| c.is_ascii_alphabetic()),
        satisfy(|c| c.is_ascii_digit()),
    )
        .parse(input)
}

/// A capture kind. An `a` directly followed by a digit is a point, not a kind.
fn kind(input: &str) -> IResult<&str, CaptureKind> {
    alt((
        map(
            terminated(one_of("Aa"), not(satisfy(|c| c.is_ascii_digit()))),
            |_| CaptureKind::Approach,
        ),
        map(one_of("Ww"), |_| CaptureKind::Withdrawal),
    ))
    .parse(input)
}

fn to_square((file, rank): (char, char)) -> Result<Square, TurnError> {
    let f = (file.to_ascii_lowercase() as u8).wrapping_sub(b'a');
    let r = (rank as u8).wrapping_sub(b'1');
    if f < FILES && r < RANKS {
        Ok(Square::new(f, r).expect("range checked"))
    } else {
        Err(TurnError::UnknownPoint(format!("{file}{rank}")))
    }
}

/// Reads a turn token without looking at any position.
pub fn parse_turn_text(text: &str) -> Result<TurnText, TurnError> {
    let turn = parse_turn_prefix(text)?;
    if turn.steps.is_empty() {
        return Err(TurnError::Syntax(format!(
            "'{text}' has only one point; a turn names at least two"
        )));
    }
    Ok(turn)
}

impl TurnText {
    /// True when `route` starts with the points (and the kinds, where written) of this text.
    pub fn fits(&self, route: &Route) -> bool {
        route_fits(route, self, self.steps.len())
    }
}

/// Reads the beginning of a turn: a starting point and zero or more steps, as a GUI knows
/// it while the user clicks a chain point by point.
pub fn parse_turn_prefix(text: &str) -> Result<TurnText, TurnError> {
    let syntax = |why: String| TurnError::Syntax(why);
    let (mut rest, first) = raw_point(text)
        .map_err(|_| syntax(format!("'{text}' does not start with a point such as d3")))?;
    let from = to_square(first)?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        let (after_dash, _) = opt(char::<&str, nom::error::Error<&str>>('-'))
            .parse(rest)
            .expect("opt never fails");
        let (after_point, point) = raw_point(after_dash).map_err(|_| {
            if after_dash.is_empty() {
                syntax(format!("'{text}' ends with '-': a point must follow it"))
            } else {
                syntax(format!(
                    "unexpected '{after_dash}' in '{text}', expected a point"
                ))
            }
        })?;
        let to = to_square(point)?;
        let (after_kind, step_kind) = opt(kind).parse(after_point).expect("opt never fails");
        steps.push((to, step_kind));
        rest = after_kind;
    }
    Ok(TurnText { from, steps })
}

/// The spelling of one route.
pub fn spell_route(route: &Route) -> String {
    let mut text = route.turn.from().to_string();
    for step in &route.steps {
        text.push_str(&step.to.to_string());
        if let Some(kind) = step.kind {
            text.push(kind.letter());
        }
    }
    text
}

/// The canonical spelling of a legal turn: the smallest spelling among its routes. A turn
/// that is not legal here is spelled as its two end points.
pub fn spell_turn(position: &Position, rules: impl Into<TurnRules>, turn: Turn) -> String {
    routes_under(position, rules.into(), Some(turn.from()))
        .iter()
        .filter(|route| route.turn == turn)
        .map(spell_route)
        .min()
        .unwrap_or_else(|| format!("{}{}", turn.from(), turn.to()))
}

/// Every legal turn with its canonical spelling, sorted by spelling.
pub fn spelled_turns(position: &Position, rules: impl Into<TurnRules>) -> Vec<(String, Turn)> {
    smallest_spellings(&routes_under(position, rules.into(), None))
}

/// Every legal route under `rules`, of the stone on `from` only when it is given.
pub fn routes_under(position: &Position, rules: TurnRules, from: Option<Square>) -> Vec<Route> {
    let mut routes = match rules.vela {
        Some(beneficiary) if in_phase_one(position, beneficiary) => {
            vela_routes(position, beneficiary)
        }
        _ => match from {
            Some(from) => return stone_routes(position, rules.chain_rule, from),
            None => return legal_routes(position, rules.chain_rule),
        },
    };
    if let Some(from) = from {
        routes.retain(|route| route.turn.from() == from);
    }
    routes
}

/// True when `rules` make `position` a phase-1 vela position.
fn vela_phase_one(position: &Position, rules: TurnRules) -> bool {
    rules
        .vela
        .is_some_and(|beneficiary| in_phase_one(position, beneficiary))
}

/// The turns of `routes`, each with the smallest spelling among its routes there, sorted by
/// spelling. Over all legal routes these are the canonical spellings; over a subset (the
/// routes that extend a prefix, say) the smallest spelling within it.
pub fn smallest_spellings(routes: &[Route]) -> Vec<(String, Turn)> {
    canonical_spellings(routes)
        .into_iter()
        .map(|(turn, spelling)| (spelling, turn))
        .collect::<BTreeMap<_, _>>()
        .into_iter()
        .collect()
}

fn canonical_spellings(routes: &[Route]) -> Vec<(Turn, String)> {
    let mut best: Vec<(Turn, String)> = Vec::new();
    for route in routes {
        let spelling = spell_route(route);
        match best.iter_mut().find(|(turn, _)| *turn == route.turn) {
            Some((_, current)) if *current <= spelling => {}
            Some((_, current)) => *current = spelling,
            None => best.push((route.turn, spelling)),
        }
    }
    best
}

fn route_fits(route: &Route, text: &TurnText, steps: usize) -> bool {
    route.turn.from() == text.from
        && route.steps.len() >= steps
        && route.steps[..steps]
            .iter()
            .zip(&text.steps[..steps])
            .all(|(step, &(to, kind))| step.to == to && (kind.is_none() || kind == step.kind))
}

/// Reads a turn in `position`: the lenient notation, matched against the legal routes.
pub fn parse_turn(
    position: &Position,
    rules: impl Into<TurnRules>,
    text: &str,
) -> Result<Turn, TurnError> {
    let rules = rules.into();
    let text = parse_turn_text(text)?;
    check_shape(position, &text)?;
    let routes = routes_under(position, rules, Some(text.from));
    let matching: Vec<Route> = routes
        .iter()
        .filter(|r| r.steps.len() == text.steps.len() && route_fits(r, &text, text.steps.len()))
        .cloned()
        .collect();
    let mut spellings = canonical_spellings(&matching);
    match spellings.len() {
        1 => Ok(spellings[0].0),
        0 if vela_phase_one(position, rules) => Err(TurnError::VelaPhaseOne),
        0 => Err(diagnose(position, &routes, &text)),
        _ => {
            spellings.sort_by(|a, b| a.1.cmp(&b.1));
            Err(TurnError::Ambiguous(
                spellings.into_iter().map(|(_, s)| s).collect(),
            ))
        }
    }
}

/// Checks what the text alone, with the stone on its starting point, can refute: whose
/// stone it is, lines between the points, repeated directions and revisited points.
fn check_shape(position: &Position, text: &TurnText) -> Result<(), TurnError> {
    match position.stone_at(text.from) {
        None => return Err(TurnError::NoStone(text.from)),
        Some(color) if color != position.side_to_move() => {
            return Err(TurnError::NotYourStone {
                square: text.from,
                to_move: position.side_to_move(),
            });
        }
        Some(_) => {}
    }
    let mut at = text.from;
    let mut visited = vec![text.from];
    let mut last_direction = None;
    for &(to, _) in &text.steps {
        let direction = at.direction_to(to).ok_or(TurnError::NotAdjacent(at, to))?;
        if last_direction == Some(direction) {
            return Err(TurnError::SameDirection(to));
        }
        if visited.contains(&to) {
            return Err(TurnError::Revisit(to));
        }
        visited.push(to);
        last_direction = Some(direction);
        at = to;
    }
    Ok(())
}

/// Explains why a well-shaped text matches no legal route of its stone.
fn diagnose(position: &Position, routes: &[Route], text: &TurnText) -> TurnError {
    let first_to = text.steps[0].0;
    if position.occupied().contains(first_to) {
        return TurnError::Occupied(first_to);
    }
    if !has_capture(position) {
        if text.steps.len() > 1 {
            return TurnError::PaikaIsOneStep;
        }
        return TurnError::NoCapture {
            step: 1,
            to: first_to,
            kind: text.steps[0].1,
        };
    }
    if routes.is_empty() {
        return if text.steps.len() == 1 && text.steps[0].1.is_none() {
            TurnError::CaptureAvailable(text.from)
        } else {
            TurnError::NoCapture {
                step: 1,
                to: first_to,
                kind: text.steps[0].1,
            }
        };
    }
    let matched = (0..=text.steps.len())
        .rev()
        .find(|&n| routes.iter().any(|r| route_fits(r, text, n)))
        .unwrap_or(0);
    if matched == text.steps.len() {
        let (end, _) = text.steps[matched - 1];
        return TurnError::MustContinue(end);
    }
    let (to, kind) = text.steps[matched];
    TurnError::NoCapture {
        step: matched + 1,
        to,
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ChainRule;
    use crate::rules::fen::parse_position;

    const REVISIT: &str = "9/9/1BB6/9/W1B6 w";

    fn read(fen: &str, text: &str) -> Result<String, String> {
        read_with(fen, text, ChainRule::Optional)
    }

    fn read_with(fen: &str, text: &str, rule: ChainRule) -> Result<String, String> {
        let p = parse_position(fen).unwrap();
        parse_turn(&p, rule, text)
            .map(|turn| spell_turn(&p, rule, turn))
            .map_err(|e| e.to_string())
    }

    fn start() -> String {
        Position::start().to_string()
    }

    #[test]
    fn canonical_spelling_reads_back() {
        assert_eq!(read(&start(), "d3e3W"), Ok("d3e3W".into()));
        assert_eq!(read(REVISIT, "a1b2Aa3W"), Ok("a1b2Aa3W".into()));
    }

    #[test]
    fn input_is_lenient() {
        assert_eq!(read(&start(), "D3E3w"), Ok("d3e3W".into()));
        assert_eq!(read(&start(), "d3-e3A"), Ok("d3e3A".into()));
        // The kind may be left out where only one fits.
        assert_eq!(read(&start(), "e2e3"), Ok("e2e3A".into()));
        assert_eq!(read(REVISIT, "a1-b2-a3"), Ok("a1b2Aa3W".into()));
        assert_eq!(read(REVISIT, "a1b2aa3w"), Ok("a1b2Aa3W".into()));
        assert_eq!(read("9/9/4W4/9/B8 w", "e3-e4"), Ok("e3e4".into()));
    }

    #[test]
    fn every_route_of_a_merged_turn_reads_as_that_turn() {
        let fen = "B1BB1BBBB/B3BBBBB/1B2WBWBW/W2BWWWWW/W4WWWW w";
        let canonical = "e3d3Wd4Ac4Wc3Wb4Wb5Wc5W";
        assert_eq!(read(fen, canonical), Ok(canonical.into()));
        assert_eq!(read(fen, "e3d3Wd4Wc4Wc3Wb4Ab5Wc5A"), Ok(canonical.into()));
        // Both routes fit when the kinds are left out: still one turn, not ambiguous.
        assert_eq!(read(fen, "e3d3d4c4c3b4b5c5"), Ok(canonical.into()));
    }

    #[test]
    fn ambiguity_lists_the_candidates() {
        assert_eq!(
            read(&start(), "d3e3"),
            Err("ambiguous, could be: d3e3A d3e3W".into())
        );
    }

    #[test]
    fn errors_are_precise() {
        let s = start();
        let cases = [
            (s.as_str(), "", "'' does not start with a point such as d3"),
            (
                s.as_str(),
                "x",
                "'x' does not start with a point such as d3",
            ),
            (
                s.as_str(),
                "d3",
                "'d3' has only one point; a turn names at least two",
            ),
            (
                s.as_str(),
                "d3e3Q",
                "unexpected 'Q' in 'd3e3Q', expected a point",
            ),
            (s.as_str(), "j3e3", "unknown point 'j3'"),
            (s.as_str(), "d3e6", "unknown point 'e6'"),
            (s.as_str(), "e3d3", "no stone on e3"),
            (
                s.as_str(),
                "d4e3",
                "the stone on d4 is black, but white is to move",
            ),
            (s.as_str(), "d3f3", "d3 and f3 are not adjacent on a line"),
            (s.as_str(), "e2d3", "e2 and d3 are not adjacent on a line"),
            (s.as_str(), "d2d3", "d3 is occupied"),
            (
                s.as_str(),
                "e2e3W",
                "step 1 (to e3) captures nothing by withdrawal",
            ),
            (s.as_str(), "a1b1", "b1 is occupied"),
            (
                "B1W6/9/4W4/9/9 w",
                "e3e4",
                "a capture is available, so the stone on e3 may not make a paika",
            ),
            (
                "9/9/9/9/BW2B4 w",
                "b1c1Wd1A",
                "illegal continuation: the step to d1 goes in the same direction as the step before",
            ),
            (
                REVISIT,
                "a1b1Ab2Aa1W",
                "illegal continuation: a1 was already occupied during this turn",
            ),
            (REVISIT, "a1b1Ab2Ac2", "step 3 (to c2) captures nothing"),
            (
                "9/9/4W4/9/B8 w",
                "e3e4d4",
                "no capture is available and a paika is one step",
            ),
            (
                "9/9/4W4/9/B8 w",
                "e3e4A",
                "step 1 (to e4) captures nothing by approach",
            ),
        ];
        for (fen, text, message) in cases {
            assert_eq!(read(fen, text), Err(message.to_string()), "{text}");
        }
    }

    #[test]
    fn mandatory_continuation_refuses_a_stopped_chain() {
        assert_eq!(
            read_with(REVISIT, "a1b1A", ChainRule::Mandatory),
            Err("the chain must continue: the stone on b1 can still capture".into())
        );
        assert_eq!(
            read_with(REVISIT, "a1b1Ab2A", ChainRule::Mandatory),
            Ok("a1b1Ab2A".into())
        );
    }

    #[test]
    fn spelled_turns_are_sorted_and_distinct() {
        let turns = spelled_turns(&Position::start(), ChainRule::Optional);
        let spellings: Vec<&str> = turns.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(spellings, ["d2e3A", "d3e3A", "d3e3W", "e2e3A", "f2e3A"]);
    }
}
