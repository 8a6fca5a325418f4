//! The match runner behind `vato match`: engine-versus-engine tournaments refereed by
//! Vato's own rules core.
//!
//! - [`engine`]: an engine's description and its process, speaking the protocol.
//! - [`referee`]: one game, turn by turn, with clocks, adjudication and faults.
//! - [`tournament`]: pairings, scheduling, worker threads, the running report.
//! - [`standings`] and [`stats`]: tallies, Elo, LOS, pentanomial counts, SPRT.
//! - [`pgn`]: the game records, written and read back.
//! - [`openings`]: opening files and the random balanced opening generator.
//! - [`args`]: the command line.
//! - [`spsa`] and [`tune`]: `vato tune`, SPSA tuning of an engine's options by self-play.

pub mod args;
pub mod engine;
pub mod openings;
pub mod pgn;
pub mod referee;
pub mod spsa;
pub mod standings;
pub mod stats;
pub mod tournament;
pub mod tune;

pub use args::MatchArgs;
pub use tournament::{MatchConfig, MatchSummary, run_match};

use anyhow::{Result, anyhow, bail};
use openings::OpeningSource;
use pgn::parse_pgn;
use standings::{Outcome, Standings, sprt_line};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

/// Runs `vato match`: a summary of a record file, a list of generated openings, or a
/// match (stopped cleanly by Ctrl-C).
pub fn run_cli(args: MatchArgs, out: &mut dyn Write) -> Result<()> {
    if let Some(paths) = &args.summary {
        let sprt = args.sprt()?;
        let text = summarize(paths, sprt.as_ref())?;
        out.write_all(text.as_bytes())?;
        return Ok(());
    }
    let seed = args.seed();
    if let Some(count) = args.print_openings {
        let turns = args
            .random_openings
            .expect("clap requires --random-openings");
        for line in generated_openings(count, turns, args.rules()?, seed)? {
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    let config = args.config(seed)?;
    let stop = crate::progress::stop_on_ctrl_c("abandoning the games in progress")?;
    let summary = run_match(&config, &stop, out)?;
    if summary.interrupted {
        bail!("interrupted");
    }
    Ok(())
}

/// `count` distinct random balanced openings of `turns` turns, as opening-file lines.
pub fn generated_openings(
    count: usize,
    turns: u32,
    rules: crate::rules::Rules,
    seed: u64,
) -> Result<Vec<String>> {
    let source = OpeningSource::Random { turns, seed };
    let mut seen = HashSet::new();
    let mut lines = Vec::new();
    let mut index = 0u64;
    // Short openings have few distinct outcomes; give up rather than loop for ever.
    let limit = (count as u64 + 10) * 100;
    while lines.len() < count {
        if index >= limit {
            bail!(
                "found only {} distinct openings of {turns} turns in {limit} tries",
                lines.len()
            );
        }
        let opening = source.opening(index, rules)?;
        index += 1;
        let end = *opening.game(rules).position();
        if seen.insert((
            end.stones(crate::rules::position::Color::White),
            end.stones(crate::rules::position::Color::Black),
            end.side_to_move(),
        )) {
            lines.push(opening.to_string());
        }
    }
    Ok(lines)
}

/// Reads record files, replays every game and returns the standings report. A game that
/// does not replay is reported and left out. The games of several files (the records of a
/// match's shards) are counted in schedule order, by their `GameNumber` tags, so that the
/// report is the one the unsharded match would have printed. Files whose game numbers
/// repeat are separate matches (a test continued with another seed): each file's games
/// are then counted in turn, and its pairs kept apart from the other files'.
pub fn summarize(paths: &[PathBuf], sprt: Option<&stats::Sprt>) -> Result<String> {
    let mut report = String::new();
    let mut outcomes = Vec::new();
    for (file, path) in paths.iter().enumerate() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
        let games = parse_pgn(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let mut unfinished = 0;
        for game in &games {
            if let Err(e) = game.replay() {
                report.push_str(&format!("warning: {}: {e}; left out\n", path.display()));
                continue;
            }
            let (Some(result), Some(white), Some(black)) =
                (game.result(), game.tag("White"), game.tag("Black"))
            else {
                unfinished += 1;
                continue;
            };
            let number = game
                .tag("GameNumber")
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(u64::MAX);
            let outcome = Outcome {
                white: white.to_string(),
                black: black.to_string(),
                pair: game.tag("Round").unwrap_or("?").to_string(),
                result,
                termination: game.termination().unwrap_or(pgn::Termination::Normal),
            };
            outcomes.push((file, number, outcome));
        }
        report.push_str(&format!(
            "{}: {} games{}\n",
            path.display(),
            games.len(),
            if unfinished > 0 {
                format!(" ({unfinished} unfinished, not counted)")
            } else {
                String::new()
            }
        ));
    }
    if paths.len() > 1 {
        let mut numbers = HashSet::new();
        let separate_matches = outcomes
            .iter()
            .any(|(_, number, _)| *number != u64::MAX && !numbers.insert(*number));
        if separate_matches {
            for (file, _, outcome) in &mut outcomes {
                outcome.pair = format!("{file}:{}", outcome.pair);
            }
            outcomes.sort_by_key(|(file, number, _)| (*file, *number));
        } else {
            // Stable: records without a number keep their order, after the numbered ones.
            outcomes.sort_by_key(|(_, number, _)| *number);
        }
    }
    let mut standings = Standings::default();
    for (_, _, outcome) in &outcomes {
        standings.add(outcome);
    }
    report.push_str(&standings.report(None));
    if let (Some(sprt), Some(pairing)) = (sprt, standings.pairings().first()) {
        report.push_str(&format!(
            "{} vs {}: {}\n",
            pairing.first,
            pairing.second,
            sprt_line(sprt, &pairing.pairs)
        ));
    }
    Ok(report)
}
