//! The session's commands while `Variant` is `telo`: the same commands as for the capture
//! games, answered from Telo's own game and its solution.

use super::{Session, clock_seed, illegal_move, query_answer, status_word};
use crate::engine::skill;
use crate::engine::telo::{Outlook, choose_turn};
use crate::protocol::parser::{Command, GoParams};
use crate::random::Rng;
use crate::rules::diagram::draw_grid;
use crate::rules::game::Status;
use crate::rules::position::Color;
use crate::rules::telo::{TeloGame, TeloPosition, TeloSolution, TeloValue};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Telo's part of the session: the game and, once solved, the solution.
pub(super) struct TeloState {
    pub(super) game: TeloGame,
    solution: Arc<TeloSolution>,
    /// The answer to a `go infinite` or `go ponder`, held until `stop` or `ponderhit`.
    held_answer: Option<Vec<String>>,
}

impl TeloState {
    /// A game from Telo's start, drawn after `limit` movement turns in a row.
    pub(super) fn new(limit: u32) -> TeloState {
        TeloState {
            game: TeloGame::new(TeloPosition::start(), 0, 1, limit),
            solution: Arc::new(TeloSolution::solve()),
            held_answer: None,
        }
    }
}

impl Session {
    /// Handles `command` when the game is Telo; gives back the commands that do not
    /// depend on the game (options, `isready`, `quit`, ...).
    pub(super) fn telo_command(&mut self, command: Command) -> Option<Command> {
        let limit = self.options.no_capture_limit;
        let Some(telo) = self.telo.as_mut() else {
            return Some(command);
        };
        match command {
            Command::NewGame => telo.game = TeloGame::new(TeloPosition::start(), 0, 1, limit),
            Command::Position { fen, moves } => {
                match telo_position(fen.as_deref(), &moves, limit) {
                    Ok(game) => telo.game = game,
                    Err(message) => self.refuse_position(&message),
                }
            }
            Command::Go(params) => {
                let answer = self.telo_go(&params);
                let telo = self.telo.as_mut()?;
                if params.infinite || params.ponder {
                    telo.held_answer = Some(answer);
                } else {
                    self.out.lines(answer);
                }
            }
            Command::Stop | Command::PonderHit | Command::Quit => {
                if let Some(answer) = telo.held_answer.take() {
                    self.out.lines(answer);
                }
                // Also handled as in any game: they end a running perft.
                return Some(command);
            }
            Command::Display => {
                let lines = telo_display(&telo.game, &telo.solution);
                self.out.lines(lines);
            }
            Command::Fen => self.out.line(&telo.game.position_text()),
            Command::Moves(prefix) => {
                let turns: Vec<String> = telo
                    .game
                    .position()
                    .turns()
                    .iter()
                    .map(|t| t.to_string())
                    .filter(|t| prefix.as_deref().is_none_or(|p| t.starts_with(p)))
                    .collect();
                self.out.line(&turns.join(" "));
            }
            Command::Status => {
                let status = telo.game.status();
                self.out.line(&format!("status {}", status_word(status)));
            }
            Command::Query(query) => self.out.line(&format!(
                "response {}",
                query_answer(
                    query,
                    telo.game.status(),
                    telo.game.position().white_to_move()
                )
            )),
            Command::Perft { depth, divide } => {
                let position = *telo.game.position();
                self.start_task("perft", true, move |signals| {
                    telo_perft_report(&position, depth, divide, signals.stop_flag())
                        .map(|text| text.lines().map(String::from).collect())
                        .unwrap_or_else(|| vec!["info string perft stopped".into()])
                });
            }
            Command::Eval => {
                let value = telo.solution.value(telo.game.position());
                let side = if telo.game.position().white_to_move() {
                    "white"
                } else {
                    "black"
                };
                self.out.line(&format!(
                    "Fanoron-Telo is solved: {side} to move {}.",
                    describe_value(value)
                ));
            }
            Command::Flip | Command::Bench(_) => {
                self.error("not available for Fanoron-Telo (Variant telo)");
            }
            other => return Some(other),
        }
        None
    }

    /// The `info` and `bestmove` lines for `go` in Telo. Full strength plays from the
    /// solution; `go depth N` or a `Skill Level` below 20 looks only so many plies ahead.
    fn telo_go(&self, params: &GoParams) -> Vec<String> {
        let level = self.options.effective_skill();
        let cap = (level < skill::FULL_STRENGTH).then(|| skill::depth_cap(level));
        let depth = match (params.depth, cap) {
            (Some(d), Some(c)) => Some(d.min(c)),
            (d, c) => d.or(c),
        };
        let Some(telo) = self.telo.as_ref() else {
            return vec!["bestmove (none)".into()];
        };
        let position = *telo.game.position();
        // A decided game has nothing to play; a drawn one still has turns, as in Tsivy.
        if let Status::Won { .. } = telo.game.status() {
            return vec!["bestmove (none)".into()];
        }
        let mut rng = Rng::new(clock_seed());
        let Some((turn, outlook)) = choose_turn(&telo.solution, &position, depth, &mut rng) else {
            return vec!["bestmove (none)".into()];
        };
        let score = match outlook {
            Outlook::Win(plies) => format!("mate {}", plies.div_ceil(2)),
            Outlook::Loss(plies) => format!("mate -{}", plies.div_ceil(2)),
            Outlook::Even => "cp 0".into(),
        };
        let shown_depth = depth.unwrap_or(match outlook {
            Outlook::Win(n) | Outlook::Loss(n) => n,
            Outlook::Even => 1,
        });
        vec![
            format!("info depth {shown_depth} score {score} nodes 1 pv {turn}"),
            format!("bestmove {turn}"),
        ]
    }
}

/// A Telo game from a `position` command, or the message of its refusal.
fn telo_position(fen: Option<&str>, moves: &[String], limit: u32) -> Result<TeloGame, String> {
    let (start, movement_turns, move_number) = match fen {
        None => (TeloPosition::start(), 0, 1),
        Some(text) => TeloPosition::parse(text)
            .map_err(|e| format!("invalid fen '{text}': {e}; position unchanged"))?,
    };
    let mut game = TeloGame::new(start, movement_turns, move_number, limit);
    for (index, text) in moves.iter().enumerate() {
        if game.status().is_over() {
            let why = format!(
                "it comes after the end of the game ({})",
                status_word(game.status())
            );
            return Err(illegal_move(text, index, &why));
        }
        game.play_text(text)
            .map_err(|e| illegal_move(text, index, &e))?;
    }
    Ok(game)
}

fn describe_value(value: TeloValue) -> String {
    match value {
        TeloValue::Win(n) => format!("wins in {n} plies"),
        TeloValue::Loss(0) => "has lost".into(),
        TeloValue::Loss(n) => format!("loses in {n} plies"),
        TeloValue::Draw => "draws".into(),
    }
}

fn telo_display(game: &TeloGame, solution: &TeloSolution) -> Vec<String> {
    let position = game.position();
    let drawing = draw_grid(3, 3, |file, rank| match position.stone_at(file, rank) {
        Some(Color::White) => 'W',
        Some(Color::Black) => 'B',
        None => '.',
    });
    let mut lines: Vec<String> = drawing.lines().map(String::from).collect();
    let side = if position.white_to_move() {
        "white"
    } else {
        "black"
    };
    lines.extend([
        String::new(),
        format!("Fen: {}", game.position_text()),
        format!("Side to move: {side}"),
        format!(
            "Phase: {}",
            if position.placing() {
                "placement"
            } else {
                "movement"
            }
        ),
        format!("Legal turns: {}", position.turns().len()),
        format!("Value: {side} {}", describe_value(solution.value(position))),
        format!("Status: {}", status_word(game.status())),
    ]);
    lines
}

/// Telo's perft: leaves `depth` plies down, a won position being a leaf (no turns).
fn telo_perft(position: &TeloPosition, depth: u32, stop: &AtomicBool) -> u64 {
    if depth == 0 {
        return 1;
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return 0;
    }
    position
        .turns()
        .into_iter()
        .map(|t| telo_perft(&position.play(t), depth - 1, stop))
        .sum()
}

fn telo_perft_report(
    position: &TeloPosition,
    depth: u32,
    divide: bool,
    stop: &AtomicBool,
) -> Option<String> {
    let mut text = String::new();
    let mut total = 0;
    let mut lines = Vec::new();
    if depth == 0 {
        total = 1;
    } else {
        for turn in position.turns() {
            let n = telo_perft(&position.play(turn), depth - 1, stop);
            lines.push(format!("{turn}: {n}"));
            total += n;
        }
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    if divide {
        for line in &lines {
            text.push_str(line);
            text.push('\n');
        }
        text.push('\n');
    }
    text.push_str(&format!("Nodes searched: {total}\n"));
    Some(text)
}
