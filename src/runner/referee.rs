//! The referee: plays one game between two engine processes, checking every turn against
//! the rules, keeping the clocks and deciding the end: by the rules, by adjudication or by
//! an engine's fault.

use super::engine::{EngineError, EngineProcess, EngineSpec, GoError};
use super::openings::Opening;
use super::pgn::{GameResult, MoveRecord, Termination, describe_status, status_result};
use crate::rules::Rules;
use crate::rules::notation::{parse_turn, spell_turn};
use crate::rules::position::{Color, Position};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Draw once both engines' last `turns` scores lie within `±score` centi-stones, after at
/// least `after` turns of the engines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// The run of turns, per engine.
    pub turns: u32,
    /// The largest score, either way, that counts as level.
    pub score: i32,
    /// Turns of the engines before the rule applies.
    pub after: u32,
}

/// Resign for an engine whose last `turns` scores are all at or below `-score` while its
/// opponent's last `turns` scores are all at or above `score`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResignRule {
    /// The run of turns, per engine.
    pub turns: u32,
    /// The lead, in centi-stones, that both must agree on.
    pub score: i32,
}

/// The runner's ways to end a game before the rules do.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Draw after this many turns of the engines.
    pub max_turns: Option<u32>,
    /// Draw by agreeing level scores.
    pub draw: Option<DrawRule>,
    /// Win by agreeing lopsided scores.
    pub resign: Option<ResignRule>,
}

/// One side of the board: an engine's description and its process, if running. A
/// process that faults is dropped (which kills it); the next game starts a new one.
pub struct Seat<'a> {
    /// The engine.
    pub spec: &'a EngineSpec,
    /// Its process; started here when `None`.
    pub process: &'a mut Option<EngineProcess>,
    /// Where to append its protocol log.
    pub log: Option<PathBuf>,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The result.
    pub result: GameResult,
    /// The kind of end.
    pub termination: Termination,
    /// The end in words.
    pub detail: String,
}

/// A game as played: the engines' turns and the end (`None` when the match was stopped
/// during the game).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The opening's turns and then the engines'.
    pub moves: Vec<MoveRecord>,
    /// How it ended.
    pub end: Option<GameEnd>,
}

fn who(seat: &Seat, color: Color) -> String {
    format!("{} ({})", seat.spec.name, color.name())
}

fn loss(loser: Color, termination: Termination, detail: String) -> GameEnd {
    GameEnd {
        result: GameResult::win_for(loser.opposite()),
        termination,
        detail,
    }
}

/// The last `n` scores of one engine, if it has that many and reported each.
fn last_scores(scores: &[Option<i32>], n: u32) -> Option<Vec<i32>> {
    let n = n as usize;
    if n == 0 || scores.len() < n {
        return None;
    }
    scores[scores.len() - n..].iter().copied().collect()
}

fn adjudicate(
    adjudication: &Adjudication,
    scores: &[Vec<Option<i32>>; 2],
    engine_turns: usize,
    seats: &[Seat; 2],
) -> Option<GameEnd> {
    if let Some(max) = adjudication.max_turns
        && engine_turns >= max as usize
    {
        return Some(GameEnd {
            result: GameResult::Draw,
            termination: Termination::Adjudication,
            detail: format!("maximum length of {max} turns"),
        });
    }
    if let Some(rule) = adjudication.resign {
        for loser in [Color::White, Color::Black] {
            let winner = loser.opposite();
            let (Some(lost), Some(won)) = (
                last_scores(&scores[loser.index()], rule.turns),
                last_scores(&scores[winner.index()], rule.turns),
            ) else {
                continue;
            };
            if lost.iter().all(|&s| s <= -rule.score) && won.iter().all(|&s| s >= rule.score) {
                return Some(loss(
                    loser,
                    Termination::Adjudication,
                    format!(
                        "{} resigns: {} turns at or below -{} cp, confirmed by the opponent",
                        who(&seats[loser.index()], loser),
                        rule.turns,
                        rule.score
                    ),
                ));
            }
        }
    }
    if let Some(rule) = adjudication.draw
        && engine_turns >= rule.after as usize
    {
        let level = |color: Color| {
            last_scores(&scores[color.index()], rule.turns)
                .is_some_and(|s| s.iter().all(|v| v.abs() <= rule.score))
        };
        if level(Color::White) && level(Color::Black) {
            return Some(GameEnd {
                result: GameResult::Draw,
                termination: Termination::Adjudication,
                detail: format!(
                    "scores within +/-{} cp for {} turns of each engine",
                    rule.score, rule.turns
                ),
            });
        }
    }
    None
}

/// Starts the engine if needed and gets it ready for a new game.
fn prepare(seat: &mut Seat, rules: Rules, stop: &AtomicBool) -> Result<(), EngineError> {
    // A process that died after its last game harmed no game: replace it quietly.
    if seat.process.as_mut().is_some_and(|p| !p.is_running()) {
        *seat.process = None;
    }
    if seat.process.is_none() {
        *seat.process = Some(EngineProcess::start(
            seat.spec,
            rules,
            seat.log.as_deref(),
            stop,
        )?);
    }
    seat.process.as_mut().expect("started above").new_game(stop)
}

/// The end of a game lost by an engine error, or `None` when the match is stopping.
fn engine_fault(seat: &mut Seat, color: Color, error: EngineError) -> Option<GameEnd> {
    // Whatever state the process is in, the next game gets a fresh one.
    *seat.process = None;
    let name = who(seat, color);
    match error {
        EngineError::Interrupted => None,
        EngineError::Start(why) => Some(loss(
            color,
            Termination::Crash,
            format!("{name} could not start: {why}"),
        )),
        EngineError::Crashed(why) => Some(loss(
            color,
            Termination::Crash,
            format!("{name} crashed: {why}"),
        )),
        EngineError::Stalled(why) => Some(loss(
            color,
            Termination::Stalled,
            format!("{name} stalled: {why}"),
        )),
    }
}

/// The `go` command for `side`: both clocks as the runner keeps them (each with its
/// increment), then the mover's own limits.
fn go_command(
    seats: &[Seat; 2],
    clocks: &[Option<Duration>; 2],
    own_turns: u32,
    side: Color,
) -> String {
    let spec = seats[side.index()].spec;
    let names = spec.protocol.clock_words();
    let mut go = String::from("go");
    for color in [Color::White, Color::Black] {
        let c = color.index();
        if let (Some(left), Some(tc)) = (clocks[c], seats[c].spec.limits.clock) {
            go.push_str(&format!(
                " {} {} {} {}",
                names[c],
                left.as_millis(),
                names[2 + c],
                tc.increment.as_millis()
            ));
        }
    }
    let limits = &spec.limits;
    if let Some(period) = limits.clock.and_then(|tc| tc.moves) {
        go.push_str(&format!(" movestogo {}", period - own_turns % period));
    }
    if let Some(movetime) = limits.movetime {
        go.push_str(&format!(" movetime {}", movetime.as_millis()));
    }
    if let Some(depth) = limits.depth {
        go.push_str(&format!(" depth {depth}"));
    }
    if let Some(nodes) = limits.nodes {
        go.push_str(&format!(" nodes {nodes}"));
    }
    go
}

/// Plays one game from `opening`: White's seat first. Engines are started or reset first;
/// then each turn the side to move gets the whole game (`position ... moves ...`) and
/// `go` with its limits, and its `bestmove` is checked and played.
pub fn play_game(
    mut seats: [Seat; 2],
    opening: &Opening,
    rules: Rules,
    adjudication: &Adjudication,
    stop: &AtomicBool,
) -> Played {
    let mut game = opening.game(rules);
    let mut moves: Vec<MoveRecord> = opening
        .spelled
        .iter()
        .map(|t| MoveRecord::book(t))
        .collect();
    let mut spelled = opening.spelled.clone();
    let finish = |moves: Vec<MoveRecord>, end: Option<GameEnd>| Played { moves, end };

    for color in [Color::White, Color::Black] {
        let seat = &mut seats[color.index()];
        if let Err(error) = prepare(seat, rules, stop) {
            let end = engine_fault(seat, color, error);
            return finish(moves, end);
        }
    }

    let base = if opening.start == Position::start_on(rules.board) {
        "position startpos".to_string()
    } else {
        format!("position fen {}", opening.start)
    };
    let mut clocks: [Option<Duration>; 2] =
        [0, 1].map(|i| seats[i].spec.limits.clock.map(|tc| tc.base));
    let mut own_turns = [0u32; 2];
    let mut scores: [Vec<Option<i32>>; 2] = [Vec::new(), Vec::new()];
    let mut engine_turns = 0usize;

    loop {
        let status = game.status();
        if let Some(result) = status_result(status) {
            let end = GameEnd {
                result,
                termination: Termination::Normal,
                detail: describe_status(status, &rules),
            };
            return finish(moves, Some(end));
        }
        if let Some(end) = adjudicate(adjudication, &scores, engine_turns, &seats) {
            return finish(moves, Some(end));
        }

        let side = game.position().side_to_move();
        let i = side.index();
        let spec = seats[i].spec;
        let limits = &spec.limits;
        let go = go_command(&seats, &clocks, own_turns[i], side);
        let margin = spec.time_margin;
        let clock_deadline = clocks[i].map(|left| left + margin);
        let move_deadline = limits.movetime.map(|t| t + margin);
        let deadline = match (clock_deadline, move_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let position = if spelled.is_empty() {
            base.clone()
        } else {
            format!("{base} moves {}", spelled.join(" "))
        };

        let process = seats[i].process.as_mut().expect("prepared before the game");
        let reply = match process.go(&position, &go, deadline, stop) {
            Ok(reply) => reply,
            Err(GoError::Interrupted) => return finish(moves, None),
            Err(GoError::Crashed(why)) => {
                let end = engine_fault(&mut seats[i], side, EngineError::Crashed(why));
                return finish(moves, end);
            }
            Err(GoError::Timeout(waited)) => {
                let name = who(&seats[i], side);
                *seats[i].process = None;
                let end = match deadline {
                    Some(_) => loss(
                        side,
                        Termination::TimeForfeit,
                        format!(
                            "{name} loses on time: no bestmove after {} ms",
                            waited.as_millis()
                        ),
                    ),
                    None => loss(
                        side,
                        Termination::Stalled,
                        format!(
                            "{name} stalled: no bestmove within {} ms",
                            spec.timeout.as_millis()
                        ),
                    ),
                };
                return finish(moves, Some(end));
            }
        };

        let elapsed = reply.elapsed;
        if let Some(left) = clocks[i] {
            if elapsed > left + margin {
                let detail = format!(
                    "{} loses on time: {} ms used with {} ms left",
                    who(&seats[i], side),
                    elapsed.as_millis(),
                    left.as_millis()
                );
                return finish(moves, Some(loss(side, Termination::TimeForfeit, detail)));
            }
            let tc = limits.clock.expect("a clock has a time control");
            let mut left = left.saturating_sub(elapsed) + tc.increment;
            if let Some(period) = tc.moves
                && (own_turns[i] + 1) % period == 0
            {
                left += tc.base;
            }
            clocks[i] = Some(left);
        }
        if let Some(movetime) = limits.movetime
            && elapsed > movetime + margin
        {
            let detail = format!(
                "{} loses on time: {} ms used for a move time of {} ms",
                who(&seats[i], side),
                elapsed.as_millis(),
                movetime.as_millis()
            );
            return finish(moves, Some(loss(side, Termination::TimeForfeit, detail)));
        }

        let before = *game.position();
        let turn = match reply.bestmove.as_str() {
            "" => Err("an empty bestmove".to_string()),
            "(none)" => Err("bestmove (none) with a legal turn to play".to_string()),
            text => parse_turn(&before, &rules, text).map_err(|e| format!("'{text}': {e}")),
        };
        let turn = match turn {
            Ok(turn) => turn,
            Err(why) => {
                let detail = format!("{} played an illegal move: {why}", who(&seats[i], side));
                return finish(moves, Some(loss(side, Termination::IllegalMove, detail)));
            }
        };
        let text = spell_turn(&before, &rules, turn);
        game.play(turn);
        spelled.push(text.clone());
        moves.push(MoveRecord {
            turn: text,
            score: reply.info.score,
            depth: reply.info.depth,
            time: Some(elapsed),
        });
        scores[i].push(reply.info.score.map(|s| s.centi()));
        own_turns[i] += 1;
        engine_turns += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::engine::Limits;

    fn spec(name: &str) -> EngineSpec {
        EngineSpec {
            name: name.into(),
            command: "unused".into(),
            args: Vec::new(),
            dir: None,
            protocol: Default::default(),
            options: Vec::new(),
            limits: Limits {
                depth: Some(1),
                ..Limits::default()
            },
            time_margin: Duration::ZERO,
            timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn go_commands_carry_both_clocks_and_the_movers_limits() {
        let mut white = spec("w");
        white.limits = Limits {
            clock: Some("40/10+0.1".parse().unwrap()),
            ..Limits::default()
        };
        let mut black = spec("b");
        black.limits.nodes = Some(500);
        let (mut pw, mut pb) = (None, None);
        let seats = [
            Seat {
                spec: &white,
                process: &mut pw,
                log: None,
            },
            Seat {
                spec: &black,
                process: &mut pb,
                log: None,
            },
        ];
        let clocks = [Some(Duration::from_millis(9_500)), None];
        assert_eq!(
            go_command(&seats, &clocks, 38, Color::White),
            "go wtime 9500 winc 100 movestogo 2"
        );
        assert_eq!(
            go_command(&seats, &clocks, 5, Color::Black),
            "go wtime 9500 winc 100 depth 1 nodes 500"
        );
    }

    #[test]
    fn adjudication_rules() {
        let (a, b) = (spec("a"), spec("b"));
        let (mut pa, mut pb) = (None, None);
        let seats = [
            Seat {
                spec: &a,
                process: &mut pa,
                log: None,
            },
            Seat {
                spec: &b,
                process: &mut pb,
                log: None,
            },
        ];
        let resign = Adjudication {
            resign: Some(ResignRule {
                turns: 2,
                score: 500,
            }),
            ..Adjudication::default()
        };
        // Black is lost and White agrees: White wins.
        let scores = [
            vec![Some(10), Some(600), Some(700)],
            vec![Some(0), Some(-550), Some(-900)],
        ];
        let end = adjudicate(&resign, &scores, 6, &seats).unwrap();
        assert_eq!(end.result, GameResult::WhiteWins);
        assert!(
            end.detail.starts_with("b (black) resigns"),
            "{}",
            end.detail
        );
        // White does not confirm: play on.
        let scores = [vec![Some(600), Some(300)], vec![Some(-550), Some(-900)]];
        assert_eq!(adjudicate(&resign, &scores, 4, &seats), None);
        // A missing score breaks the run.
        let scores = [vec![Some(600), None], vec![Some(-550), Some(-900)]];
        assert_eq!(adjudicate(&resign, &scores, 4, &seats), None);

        let draw = Adjudication {
            draw: Some(DrawRule {
                turns: 2,
                score: 10,
                after: 6,
            }),
            ..Adjudication::default()
        };
        let level = [
            vec![Some(50), Some(5), Some(-10)],
            vec![Some(0), Some(3), Some(8)],
        ];
        assert_eq!(adjudicate(&draw, &level, 5, &seats), None, "too early");
        assert_eq!(
            adjudicate(&draw, &level, 6, &seats).unwrap().result,
            GameResult::Draw
        );
        let max = Adjudication {
            max_turns: Some(6),
            ..Adjudication::default()
        };
        assert_eq!(adjudicate(&max, &[vec![], vec![]], 5, &seats), None);
        assert_eq!(
            adjudicate(&max, &[vec![], vec![]], 6, &seats)
                .unwrap()
                .detail,
            "maximum length of 6 turns"
        );
    }
}
