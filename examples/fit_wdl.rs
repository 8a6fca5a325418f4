//! Fits the score-to-outcome model behind `UCI_ShowWDL` on game records written by
//! `vato match --pgn`: each scored turn gives a score (centi-stones, the mover's view) and
//! the game's result for the mover. The model (as in `src/engine/wdl.rs`):
//! `win = 1 / (1 + exp((a - x) / b))`, `loss = 1 / (1 + exp((a + x) / b))`, the rest a
//! draw; `a` and `b` are chosen by maximum likelihood over a grid.
//!
//! `cargo run --release --example fit_wdl -- games.pgn [more.pgn ...]`

use vato::runner::engine::Score;
use vato::runner::pgn::parse_pgn;

fn main() {
    let mut samples: Vec<(f64, usize)> = Vec::new();
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: fit_wdl FILE.pgn...");
        std::process::exit(2);
    }
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
            eprintln!("error: {file}: {e}");
            std::process::exit(1)
        });
        let games = parse_pgn(&text).unwrap_or_else(|e| {
            eprintln!("error: {file}: {e}");
            std::process::exit(1)
        });
        for game in games {
            // Records from a set-up position may start with Black: leave them out.
            if game.tags.iter().any(|(k, _)| k == "FEN") {
                continue;
            }
            // 0: White won, 1: draw, 2: Black won.
            let white_outcome = match game.result.as_str() {
                "1-0" => 0,
                "1/2-1/2" => 1,
                "0-1" => 2,
                _ => continue,
            };
            for (ply, record) in game.moves.iter().enumerate() {
                let Some(Score::Cp(cp)) = record.score else {
                    continue;
                };
                if cp.abs() > 2000 {
                    continue;
                }
                let outcome = if ply % 2 == 0 {
                    white_outcome
                } else {
                    2 - white_outcome
                };
                samples.push((f64::from(cp), outcome));
            }
        }
    }
    let log_likelihood = |a: f64, b: f64| -> f64 {
        samples
            .iter()
            .map(|&(x, outcome)| {
                let win = 1.0 / (1.0 + ((a - x) / b).exp());
                let loss = 1.0 / (1.0 + ((a + x) / b).exp());
                let p = [win, (1.0 - win - loss).max(1e-9), loss][outcome];
                p.max(1e-9).ln()
            })
            .sum()
    };
    let mut best = (f64::NEG_INFINITY, 0.0, 0.0);
    for a in (0..=800).step_by(5) {
        for b in (10..=500).step_by(5) {
            let (a, b) = (f64::from(a), f64::from(b));
            let ll = log_likelihood(a, b);
            if ll > best.0 {
                best = (ll, a, b);
            }
        }
    }
    let counts = samples.iter().fold([0; 3], |mut c, &(_, o)| {
        c[o] += 1;
        c
    });
    println!(
        "{} scored turns (mover won {}, drawn {}, lost {}): a = {}, b = {}, mean log-likelihood {:.4}",
        samples.len(),
        counts[0],
        counts[1],
        counts[2],
        best.1,
        best.2,
        best.0 / samples.len().max(1) as f64
    );
}
