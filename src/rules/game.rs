//! A game: its start position, the turns played, and the result by the rules.

use crate::rules::Rules;
use crate::rules::movegen::has_legal_turn;
use crate::rules::notation::{TurnError, parse_turn};
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::rules::vela::in_phase_one;

/// How a game ended with a winner.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// The loser's last stone was captured.
    NoStones,
    /// The loser had stones but no legal turn.
    NoLegalTurn,
    /// Fanoron-Telo: the winner has three stones on a line.
    ThreeInARow,
}

/// How a game ended in a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The same position (stones and side to move) occurred for the third time.
    Repetition,
    /// `NoCaptureLimit` turns in a row without a capture.
    NoCaptureLimit,
}

/// The state of a game after its last turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The side to move has a legal turn and no draw rule applies.
    Ongoing,
    /// One side has won.
    Won {
        /// The winner.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Drawn.
    Drawn(DrawReason),
}

impl Status {
    /// True unless the game goes on.
    pub fn is_over(self) -> bool {
        self != Status::Ongoing
    }
}

/// The status of the last position of `history` (a game's positions in order, the current
/// one last), checked in the order of the rules: no stones, no legal turn, threefold
/// repetition, no-capture limit.
pub fn status(history: &[Position], rules: &Rules) -> Status {
    let Some(current) = history.last() else {
        return Status::Ongoing;
    };
    let winner = current.side_to_move().opposite();
    if current.us().is_empty() {
        return Status::Won {
            winner,
            reason: WinReason::NoStones,
        };
    }
    if current.them().is_empty() {
        // Only reachable from a position string: the side to move has already won.
        return Status::Won {
            winner: current.side_to_move(),
            reason: WinReason::NoStones,
        };
    }
    let stuck = match rules.vela {
        // In phase 1 the favoured side may have free points next to its stones and still
        // no legal turn, having nothing to capture.
        Some(beneficiary) if in_phase_one(current, beneficiary) => {
            rules.turn_rules().legal_turns(current).is_empty()
        }
        _ => !has_legal_turn(current),
    };
    if stuck {
        return Status::Won {
            winner,
            reason: WinReason::NoLegalTurn,
        };
    }
    let occurrences = history.iter().filter(|p| p.same_placement(current)).count();
    if occurrences >= 3 {
        return Status::Drawn(DrawReason::Repetition);
    }
    if rules.no_capture_limit > 0 && current.turns_since_capture() >= rules.no_capture_limit {
        return Status::Drawn(DrawReason::NoCaptureLimit);
    }
    Status::Ongoing
}

/// A game in progress: the rules, the start and every position since.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    turns: Vec<Turn>,
    /// Every position of the game, the start first and the current one last; never empty.
    positions: Vec<Position>,
}

impl Game {
    /// A game from `start` under `rules`.
    pub fn new(start: Position, rules: Rules) -> Game {
        Game {
            rules,
            turns: Vec::new(),
            positions: vec![start],
        }
    }

    /// The rule options in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Changes the rule options; the turns played stay.
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game has a position")
    }

    /// Every position so far, the start first.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The turns played, in order.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// Plays a turn the caller knows to be legal.
    pub fn play(&mut self, turn: Turn) {
        let next = self.position().play(turn);
        self.turns.push(turn);
        self.positions.push(next);
    }

    /// Reads a turn in the notation and plays it; on error nothing changes.
    pub fn play_text(&mut self, text: &str) -> Result<Turn, TurnError> {
        let turn = parse_turn(self.position(), &self.rules, text)?;
        self.play(turn);
        Ok(turn)
    }

    /// The result so far by the rules.
    pub fn status(&self) -> Status {
        status(&self.positions, &self.rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse_position;

    fn game(fen: &str, no_capture_limit: u32) -> Game {
        let rules = Rules {
            no_capture_limit,
            ..Rules::default()
        };
        Game::new(parse_position(fen).unwrap(), rules)
    }

    #[test]
    fn losing_the_last_stone_loses() {
        let mut g = game("9/9/9/9/W1B6 w", 100);
        assert_eq!(g.status(), Status::Ongoing);
        g.play_text("a1b1A").unwrap();
        assert_eq!(
            g.status(),
            Status::Won {
                winner: Color::White,
                reason: WinReason::NoStones
            }
        );
    }

    #[test]
    fn having_no_legal_turn_loses() {
        let g = game("9/9/9/WW7/BW7 b", 100);
        assert_eq!(
            g.status(),
            Status::Won {
                winner: Color::White,
                reason: WinReason::NoLegalTurn
            }
        );
    }

    #[test]
    fn third_occurrence_draws() {
        let mut g = game("9/9/4W4/9/B8 w", 100);
        for text in ["e3e4", "a1a2", "e4e3", "a2a1", "e3e4", "a1a2", "e4e3"] {
            g.play_text(text).unwrap();
            assert_eq!(g.status(), Status::Ongoing, "after {text}");
        }
        g.play_text("a2a1").unwrap();
        assert_eq!(g.status(), Status::Drawn(DrawReason::Repetition));
    }

    #[test]
    fn no_capture_limit_draws_and_zero_turns_it_off() {
        let fen = "9/9/4W4/9/B8 w 99 60";
        let mut g = game(fen, 100);
        g.play_text("e3e4").unwrap();
        assert_eq!(g.position().turns_since_capture(), 100);
        assert_eq!(g.status(), Status::Drawn(DrawReason::NoCaptureLimit));
        let mut g = game(fen, 0);
        g.play_text("e3e4").unwrap();
        assert_eq!(g.status(), Status::Ongoing);
    }

    #[test]
    fn wins_are_checked_before_draws() {
        // The capture of the last stone also ends a long quiet spell: a win, not a draw.
        let mut g = game("9/9/9/9/W1B6 w 99 60", 100);
        g.play_text("a1b1A").unwrap();
        assert!(matches!(g.status(), Status::Won { .. }));
    }

    #[test]
    fn a_refused_turn_changes_nothing() {
        let mut g = game("9/9/4W4/9/B8 w", 100);
        assert!(g.play_text("e3e5").is_err());
        assert!(g.turns().is_empty());
        assert_eq!(g.positions().len(), 1);
    }
}
