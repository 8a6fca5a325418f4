//! Developer tool for measuring one search heuristic against another: plays two
//! `SearchConfig`s against each other in-process, in colour-swapped pairs from random
//! openings that a short search finds level, and prints the score. Usage:
//! `cargo run --release --example selfplay -- PAIRS MOVETIME_MS A B`, where A and B are
//! configurations as `config()` reads them (`default`, or switches joined by `+`).
//! `selfplay nodes DEPTH NAMES...` prints the nodes each configuration needs to reach DEPTH
//! on the bench positions.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use vato::engine::search::{Limits, Score, SearchConfig, SearchRequest, Signals, search};
use vato::engine::tt::TranspositionTable;
use vato::rules::Rules;
use vato::rules::game::{Game, Status};
use vato::rules::movegen::legal_turns;
use vato::rules::position::{Color, Position};

/// A configuration by name: `default`, or switches joined by `+` (e.g. `lmr+q6+w2`).
fn config(name: &str) -> (SearchConfig, Option<u32>) {
    let mut cfg = SearchConfig::default();
    let mut depth = None;
    for switch in name.split('+') {
        match switch {
            "default" => {}
            "greedy" => {
                cfg.quiescence_plies = 0;
                cfg.positional_evaluation = false;
                depth = Some(1);
            }
            "depth1" => depth = Some(1),
            "noasp" => cfg.aspiration = false,
            "nolmr" => cfg.late_move_reductions = false,
            "noext" => cfg.single_reply_extension = false,
            "material" => cfg.positional_evaluation = false,
            "lmr" => cfg.logarithmic_reductions = true,
            "capred" => cfg.capture_reductions = true,
            "threat" => cfg.threat_quiescence = true,
            "nolog" => cfg.logarithmic_reductions = false,
            "nocapred" => cfg.capture_reductions = false,
            "nothreat" => cfg.threat_quiescence = false,
            _ if switch.starts_with('q') => {
                cfg.quiescence_plies = switch[1..].parse().expect("q<plies>")
            }
            _ if switch.starts_with('w') => {
                cfg.quiescence_width = switch[1..].parse().expect("w<width>")
            }
            other => panic!("unknown configuration {other}"),
        }
    }
    (cfg, depth)
}

/// A one-thread search job under the default rules, without tables.
fn single_thread_request(
    history: Vec<Position>,
    limits: Limits,
    tt: Arc<TranspositionTable>,
    config: SearchConfig,
) -> SearchRequest {
    SearchRequest {
        config,
        ..SearchRequest::new(history, limits, tt)
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

/// A random opening that a depth-5 search finds about level (the mean of its depth-4
/// and depth-5 scores, which lean to opposite sides, within 60 centi-stones): random turns
/// often lose stones, and a lost opening decides both games of a pair whoever plays it.
fn balanced_opening(index: usize) -> Position {
    for attempt in 0.. {
        let seed = (index * 1000 + attempt) as u64 + 1;
        let position = opening(seed, 2 + (index + attempt) % 5);
        let tt = Arc::new(TranspositionTable::new(16));
        let request = SearchRequest::new(vec![position], Limits::to_depth(5), tt);
        let mut scores = Vec::new();
        search(&request, &Signals::new(false), &mut |report| {
            if let Score::Centi(cp) = report.score
                && report.depth >= 4
            {
                scores.push(cp);
            }
        });
        if scores.len() == 2 && (scores[0] + scores[1]).abs() <= 120 {
            return position;
        }
    }
    unreachable!()
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
        let limits = Limits {
            depth,
            movetime: depth.is_none().then_some(movetime),
            ..Limits::default()
        };
        let request = single_thread_request(
            game.positions().to_vec(),
            limits,
            tts[side.index()].clone(),
            cfg,
        );
        let outcome = search(&request, &Signals::new(false), &mut |_| {});
        game.play(outcome.best.expect("game is ongoing"));
    }
    0.5
}

/// Nodes a configuration needs to finish `depth` iterations on every bench position: the
/// search's effort at fixed depth, deterministic, whatever else the machine runs.
fn nodes_to_depth(name: &str, depth: u32) {
    let (cfg, _) = config(name);
    let mut total = 0;
    for position in vato::engine::bench::positions() {
        let request = single_thread_request(
            vec![position],
            Limits::to_depth(depth),
            Arc::new(TranspositionTable::new(16)),
            cfg,
        );
        total += search(&request, &Signals::new(false), &mut |_| {}).nodes;
    }
    println!("{name}: {total} nodes to depth {depth}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args[1] == "nodes" {
        for name in &args[3..] {
            nodes_to_depth(name, args[2].parse().unwrap());
        }
        return;
    }
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
                    let start = balanced_opening(i);
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
    let split = results
        .iter()
        .filter(|&&(x, y)| x + y == 1.0 && x != 0.5)
        .count();
    println!(
        "{a} vs {b}: +{wins} ={draws} -{losses}  score {:.3}  elo {elo:+.0}  split pairs {split}/{}",
        score,
        results.len()
    );
}
