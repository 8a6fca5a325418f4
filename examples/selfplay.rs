//! Developer tool until the match runner exists: plays two search configurations against
//! each other in-process, in colour-swapped pairs from random openings, and prints the
//! score. Usage: `cargo run --release --example selfplay -- PAIRS MOVETIME_MS A B` where A
//! and B are configuration names listed in `config()`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use vato::game::{Game, Status};
use vato::movegen::legal_turns;
use vato::position::{Color, Position};
use vato::rules::Rules;
use vato::search::{Limits, SearchConfig, SearchRequest, Signals, search};
use vato::tt::TranspositionTable;

fn config(name: &str) -> (SearchConfig, Option<u32>) {
    let base = SearchConfig::default();
    match name {
        "default" => (base, None),
        "greedy" => (
            SearchConfig {
                quiescence_plies: 0,
                positional_evaluation: false,
                ..base
            },
            Some(1),
        ),
        "depth1" => (base, Some(1)),
        "q0" => (
            SearchConfig {
                quiescence_plies: 0,
                ..base
            },
            None,
        ),
        "q2" => (
            SearchConfig {
                quiescence_plies: 2,
                ..base
            },
            None,
        ),
        "q4" => (
            SearchConfig {
                quiescence_plies: 4,
                ..base
            },
            None,
        ),
        "q6" => (
            SearchConfig {
                quiescence_plies: 6,
                ..base
            },
            None,
        ),
        "q8" => (
            SearchConfig {
                quiescence_plies: 8,
                ..base
            },
            None,
        ),
        "q12" => (
            SearchConfig {
                quiescence_plies: 12,
                ..base
            },
            None,
        ),
        "noasp" => (
            SearchConfig {
                aspiration: false,
                ..base
            },
            None,
        ),
        "nolmr" => (
            SearchConfig {
                late_move_reductions: false,
                ..base
            },
            None,
        ),
        "material" => (
            SearchConfig {
                positional_evaluation: false,
                ..base
            },
            None,
        ),
        "noext" => (
            SearchConfig {
                single_reply_extension: false,
                ..base
            },
            None,
        ),
        other => panic!("unknown configuration {other}"),
    }
}

fn opening(seed: u64, plies: usize) -> Position {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut p = Position::start();
    for _ in 0..plies {
        let turns = legal_turns(&p, Default::default());
        if turns.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        p = p.play(turns[(state % turns.len() as u64) as usize]);
    }
    p
}

/// Plays one game; returns the score of `first` (1, 0.5, 0) where `first` plays White.
fn play(start: Position, white: &str, black: &str, movetime: Duration) -> f64 {
    let mut game = Game::new(start, Rules::default());
    let tts = [
        Arc::new(TranspositionTable::new(16)),
        Arc::new(TranspositionTable::new(16)),
    ];
    for _ in 0..400 {
        match game.status() {
            Status::Ongoing => {}
            Status::Won { winner, .. } => return if winner == Color::White { 1.0 } else { 0.0 },
            Status::Drawn(_) => return 0.5,
        }
        let side = game.position().side_to_move();
        let name = if side == Color::White { white } else { black };
        let (cfg, depth) = config(name);
        let request = SearchRequest {
            history: game.positions().to_vec(),
            rules: *game.rules(),
            limits: Limits {
                depth,
                movetime: depth.is_none().then_some(movetime),
                ..Limits::default()
            },
            multipv: 1,
            move_overhead: Duration::ZERO,
            threads: 1,
            tt: tts[side.index()].clone(),
            tablebase: None,
            config: cfg,
        };
        let outcome = search(&request, &Signals::new(false), &mut |_| {});
        game.play(outcome.best.expect("game is ongoing"));
    }
    0.5
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pairs: usize = args[1].parse().unwrap();
    let movetime = Duration::from_millis(args[2].parse().unwrap());
    let (a, b) = (args[3].clone(), args[4].clone());
    let next = AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pairs {
                        return;
                    }
                    let start = opening(i as u64 + 1, 2 + i % 5);
                    let first = play(start, &a, &b, movetime);
                    let second = 1.0 - play(start, &b, &a, movetime);
                    results.lock().unwrap().push((first, second));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let games: Vec<f64> = results.iter().flat_map(|&(x, y)| [x, y]).collect();
    let n = games.len() as f64;
    let score: f64 = games.iter().sum::<f64>() / n;
    let wins = games.iter().filter(|&&g| g == 1.0).count();
    let losses = games.iter().filter(|&&g| g == 0.0).count();
    let draws = games.len() - wins - losses;
    let elo = -400.0 * (1.0 / score.clamp(0.001, 0.999) - 1.0).log10();
    println!(
        "{a} vs {b}: +{wins} ={draws} -{losses}  score {:.3}  elo {elo:+.0}",
        score
    );
}
