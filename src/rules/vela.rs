//! The vela game: the handicap game played after a win, as the strongest public engine
//! plays it (its options `Vela` = `white` | `black` name the side favoured, the
//! *beneficiary*, which moves first).
//!
//! Phase 1 lasts while the other side has more than five stones. In it the beneficiary
//! must capture, exactly one stone a turn: the first enemy stone on the line, by approach or
//! by withdrawal, with no continuation; without such a capture it has no legal turn and
//! loses. The other side plays paikas only, even where it could capture, and must leave the
//! beneficiary a capture whenever one of its paikas does. After phase 1 the ordinary rules
//! apply.

use crate::rules::ChainRule;
use crate::rules::bitboard::Bitboard;
use crate::rules::geometry::Direction;
use crate::rules::movegen::{generate_turns, has_capture, push_paikas, step_origin};
use crate::rules::position::{Color, Position};
use crate::rules::turn::{CaptureKind, Route, Step, Turn};

/// The other side's stone count above which phase 1 goes on.
pub const VELA_PHASE_ONE_ABOVE: u32 = 5;

/// True while `position` is in phase 1 of a vela game favouring `beneficiary`.
pub fn in_phase_one(position: &Position, beneficiary: Color) -> bool {
    position.stones(beneficiary.opposite()).count() > VELA_PHASE_ONE_ABOVE
}

/// Fills `out` (cleared first) with every legal turn of a vela game favouring
/// `beneficiary`: the phase 1 turns while it lasts, the ordinary ones afterwards.
pub fn generate_vela_turns(
    position: &Position,
    beneficiary: Color,
    chain_rule: ChainRule,
    out: &mut Vec<Turn>,
) {
    if !in_phase_one(position, beneficiary) {
        generate_turns(position, chain_rule, out);
        return;
    }
    out.clear();
    let (us, them, empty) = (position.us(), position.them(), position.empty());
    if position.side_to_move() == beneficiary {
        for d in Direction::ALL {
            let back = d.opposite();
            // Stones whose step in direction `d` lands on an empty point.
            for to in us.shift(d) & empty {
                let from = step_origin(to, d);
                let ahead = Bitboard::from(to).shift(d) & them;
                let behind = Bitboard::from(from).shift(back) & them;
                for victim in [ahead, behind] {
                    if victim.any() {
                        out.push(Turn::new(from, to, victim));
                    }
                }
            }
        }
        return;
    }
    push_paikas(us, empty, out);
    // Paikas that leave the beneficiary a capture, if there are any.
    let leaves_a_capture = |turn: &Turn| {
        let after = position.play(*turn);
        has_capture(&after)
    };
    if out.iter().any(leaves_a_capture) {
        out.retain(leaves_a_capture);
    }
}

/// The legal routes of a phase-1 position, for the notation: a capture is one step
/// marked `A` or `W`, a paika one unmarked step.
pub fn vela_routes(position: &Position, beneficiary: Color) -> Vec<Route> {
    let mut turns = Vec::new();
    generate_vela_turns(position, beneficiary, ChainRule::Optional, &mut turns);
    turns
        .into_iter()
        .map(|turn| {
            let kind = turn.is_capture().then(|| {
                // An approach takes the stone beyond the landing point.
                let d = turn.from().direction_to(turn.to()).expect("a step");
                if Bitboard::from(turn.to()).shift(d) == turn.captured() {
                    CaptureKind::Approach
                } else {
                    CaptureKind::Withdrawal
                }
            });
            Route {
                turn,
                steps: vec![Step {
                    to: turn.to(),
                    kind,
                }],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse_position;
    use crate::rules::geometry::Square;

    #[test]
    fn the_beneficiary_takes_one_stone_only() {
        // An approach along a run of three takes the first stone only (Black has six).
        let fen = "9/BBB6/9/9/W1BBB4 w";
        let p = parse_position(fen).unwrap();
        let mut turns = Vec::new();
        generate_vela_turns(&p, Color::White, ChainRule::Optional, &mut turns);
        let b1 = Square::from_index_unchecked(1);
        let c1 = Square::from_index_unchecked(2);
        assert_eq!(
            turns,
            [Turn::new(Square::from_index_unchecked(0), b1, c1.into())]
        );
    }

    #[test]
    fn without_a_capture_the_beneficiary_has_no_turn() {
        let p = parse_position("BBBBBB3/9/9/9/W8 w").unwrap();
        let mut turns = vec![Turn::new(
            Square::from_index_unchecked(0),
            Square::from_index_unchecked(1),
            Bitboard::EMPTY,
        )];
        generate_vela_turns(&p, Color::White, ChainRule::Optional, &mut turns);
        assert!(turns.is_empty());
    }

    #[test]
    fn the_other_side_plays_paikas_that_leave_a_capture() {
        // Black (not favoured, six stones) could take a1 by approach, c1 to b1; it may not:
        // paikas only, and only those after which White can capture.
        let fen = "9/9/BBBB5/B8/W1B6 b";
        let p = parse_position(fen).unwrap();
        let mut raw = Vec::new();
        generate_vela_turns(&p, Color::White, ChainRule::Optional, &mut raw);
        assert!(!raw.is_empty());
        for turn in raw {
            assert!(!turn.is_capture());
            let after = p.play(turn);
            assert!(has_capture(&after), "{turn:?}");
        }
    }

    #[test]
    fn phase_two_has_the_ordinary_rules() {
        // Five black stones: phase 1 is over, the ordinary generator answers.
        let fen = "9/9/9/WWWWWW3/W1BBBBB2 w";
        let p = parse_position(fen).unwrap();
        assert!(!in_phase_one(&p, Color::White));
        let mut vela = Vec::new();
        generate_vela_turns(&p, Color::White, ChainRule::Optional, &mut vela);
        let mut ordinary = Vec::new();
        generate_turns(&p, ChainRule::Optional, &mut ordinary);
        assert_eq!(vela, ordinary);
    }
}
