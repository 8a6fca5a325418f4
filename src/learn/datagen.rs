//! `vato datagen`: self-play games at a fixed depth or node budget, recording the quiet
//! positions with the search's score and the game's result.
//!
//! Each game is a pure function of the seed and its number (a random balanced opening, then
//! one-thread searches with a table cleared for the game), and games are written in their
//! numbers' order whatever the thread that played them, so a run is repeatable.

use super::data::{DataWriter, GameResult, Record};
use crate::engine::nnue::Network;
use crate::engine::search::{Limits, Score, SearchConfig, SearchRequest, Signals, search};
use crate::engine::tt::TranspositionTable;
use crate::progress::JobProgress;
use crate::rules::Rules;
use crate::rules::game::Status;
use crate::rules::movegen::has_capture;
use crate::rules::position::Color;
use crate::runner::openings::OpeningSource;
use crate::shard::Shard;
use crate::tablebase::{Outcome as TablebaseOutcome, Tablebase};
use anyhow::{Result, anyhow};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Scores beyond this (hundredths of a stone) are left out: wins found by the search, not
/// judgements an evaluation should learn to make.
pub const SCORE_LIMIT: i32 = 4_000;
/// Table size per game, in megabytes: a fixed-depth search of one turn fills little.
const TT_MEGABYTES: usize = 8;

/// What a data generation run does.
#[derive(Clone)]
pub struct DatagenConfig {
    /// Where the records go.
    pub output: PathBuf,
    /// Games to play.
    pub games: u64,
    /// Search limits per turn (depth, nodes or both).
    pub limits: Limits,
    /// Random turns of each opening.
    pub opening_turns: u32,
    /// Positions of the first this many turns after the opening are not recorded.
    pub skip_turns: usize,
    /// Games played at once.
    pub threads: usize,
    /// Seed of the openings.
    pub seed: u64,
    /// Endgame tables: positions inside them get their exact value as the result.
    pub tablebase: Option<Arc<Tablebase>>,
    /// The search's heuristics.
    pub search: SearchConfig,
    /// The evaluation network; the hand-written evaluation when `None`.
    pub network: Option<Arc<Network>>,
    /// The part of the run's games to play: game `n` of the run is played by the shard
    /// that holds unit `n`, so the shards' files together hold exactly the run's records.
    pub shard: Shard,
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games whose records were written.
    pub games: u64,
    /// Records written.
    pub positions: u64,
    /// Of those, labelled by the tables.
    pub tablebase_labels: u64,
    /// Games won by White, drawn, won by Black.
    pub white_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games won by Black.
    pub black_wins: u64,
    /// True when the run was stopped before all games were played.
    pub interrupted: bool,
}

/// One game's records and its result for White.
struct PlayedGame {
    records: Vec<Record>,
    white_result: GameResult,
}

/// Plays game number `index` of the run.
fn play_game(config: &DatagenConfig, index: u64, stop: &AtomicBool) -> Result<PlayedGame> {
    let rules = Rules::default();
    let source = OpeningSource::Random {
        turns: config.opening_turns,
        seed: config.seed,
    };
    let opening = source
        .opening(index, rules)
        .map_err(|e| anyhow!("opening {index}: {e}"))?;
    let mut game = opening.game(rules);
    let tt = Arc::new(TranspositionTable::new(TT_MEGABYTES));
    let signals = Signals::new(false);
    let mut scored: Vec<Record> = Vec::new();
    let mut turn = 0usize;
    while game.status() == Status::Ongoing {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let position = *game.position();
        let request = SearchRequest {
            tablebase: config.tablebase.clone(),
            config: config.search,
            network: config.network.clone(),
            ..SearchRequest::new(game.positions().to_vec(), config.limits.clone(), tt.clone())
        };
        let outcome = search(&request, &signals, &mut |_| {});
        let Some(best) = outcome.best else { break };
        let quiet = !has_capture(&position);
        if turn >= config.skip_turns && quiet {
            let probed = config.tablebase.as_ref().and_then(|tb| tb.probe(&position));
            let record = |score: i32, result: GameResult, from_tablebase: bool| Record {
                white: position.stones(Color::White),
                black: position.stones(Color::Black),
                side_to_move: position.side_to_move(),
                score: score.clamp(-SCORE_LIMIT, SCORE_LIMIT) as i16,
                result,
                from_tablebase,
            };
            match (probed, Score::from_internal(outcome.score)) {
                (Some(value), _) => {
                    let (result, score) = match value.outcome {
                        TablebaseOutcome::Win => (GameResult::Win, SCORE_LIMIT),
                        TablebaseOutcome::Draw => (GameResult::Draw, 0),
                        TablebaseOutcome::Loss => (GameResult::Loss, -SCORE_LIMIT),
                    };
                    scored.push(record(score, result, true));
                }
                (None, Score::Centi(cp)) if cp.abs() < SCORE_LIMIT => {
                    scored.push(record(cp, GameResult::Draw, false));
                }
                _ => {}
            }
        }
        game.play(best);
        turn += 1;
    }
    if stop.load(Ordering::Relaxed) && !game.status().is_over() {
        return Err(anyhow!("stopped"));
    }
    let white_result = match game.status() {
        Status::Won {
            winner: Color::White,
            ..
        } => GameResult::Win,
        Status::Won { .. } => GameResult::Loss,
        _ => GameResult::Draw,
    };
    let records = scored
        .into_iter()
        .map(|mut record| {
            if !record.from_tablebase {
                record.result = match record.side_to_move {
                    Color::White => white_result,
                    Color::Black => white_result.opposite(),
                };
            }
            record
        })
        .collect();
    Ok(PlayedGame {
        records,
        white_result,
    })
}

/// Plays the run's games on `config.threads` threads and writes their records in game
/// order. When `stop` is set, the games in progress are abandoned and every game finished
/// before the first unfinished one is written; the file is complete either way.
pub fn run(config: &DatagenConfig, stop: &AtomicBool) -> Result<DatagenSummary> {
    let mut writer = DataWriter::create(&config.output)?;
    let next_game = AtomicU64::new(0);
    let threads = config.threads.max(1);
    let mut summary = DatagenSummary::default();
    let games = config.shard.units_of(config.games);
    let mut progress = JobProgress::new("datagen", games, "games", Some(PLAIN_EVERY));
    let (sender, receiver) = mpsc::channel::<(u64, Result<PlayedGame>)>();
    let mut failure = None;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let next_game = &next_game;
            scope.spawn(move || {
                loop {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= games || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let played = play_game(config, config.shard.unit(index), stop);
                    let failed = played.is_err();
                    if sender.send((index, played)).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting: BTreeMap<u64, PlayedGame> = BTreeMap::new();
        let mut next_to_write = 0u64;
        for (index, played) in receiver {
            match played {
                Ok(game) => {
                    waiting.insert(index, game);
                }
                Err(e) => {
                    if !stop.load(Ordering::Relaxed) && failure.is_none() {
                        failure = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                    continue;
                }
            }
            while let Some(game) = waiting.remove(&next_to_write) {
                if failure.is_none()
                    && let Err(e) = write_game(&mut writer, &game, &mut summary)
                {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
                next_to_write += 1;
            }
            progress.set(summary.games);
        }
    });
    progress.finish();
    if let Some(e) = failure {
        return Err(e);
    }
    summary.interrupted = summary.games < games;
    writer.finish()?;
    Ok(summary)
}

/// How often a plain progress line is written off a terminal.
const PLAIN_EVERY: Duration = Duration::from_secs(30);

fn write_game(
    writer: &mut DataWriter,
    game: &PlayedGame,
    summary: &mut DatagenSummary,
) -> Result<()> {
    for &record in &game.records {
        writer.push(record)?;
        summary.positions += 1;
        summary.tablebase_labels += u64::from(record.from_tablebase);
    }
    summary.games += 1;
    match game.white_result {
        GameResult::Win => summary.white_wins += 1,
        GameResult::Draw => summary.draws += 1,
        GameResult::Loss => summary.black_wins += 1,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::data::read_file;

    fn config(output: PathBuf, games: u64, threads: usize) -> DatagenConfig {
        DatagenConfig {
            output,
            games,
            limits: Limits::to_depth(2),
            opening_turns: 6,
            skip_turns: 2,
            threads,
            seed: 5,
            tablebase: None,
            search: SearchConfig::default(),
            network: None,
            shard: Shard::WHOLE,
        }
    }

    #[test]
    fn shards_of_a_run_hold_exactly_its_records() {
        let dir = std::env::temp_dir().join(format!("vato-datagen-shard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let never = AtomicBool::new(false);
        let whole = run(&config(dir.join("whole"), 5, 2), &never).unwrap();
        let mut records = Vec::new();
        let mut games = 0;
        for k in 1..=3 {
            let mut part = config(dir.join(format!("part{k}")), 5, 1);
            part.shard = Shard::new(k, 3).unwrap();
            games += run(&part, &never).unwrap().games;
            records.extend(read_file(&dir.join(format!("part{k}"))).unwrap());
        }
        assert_eq!(games, whole.games);
        let mut expected = read_file(&dir.join("whole")).unwrap();
        let key = |r: &crate::learn::data::Record| format!("{r:?}");
        records.sort_by_key(key);
        expected.sort_by_key(key);
        assert_eq!(records, expected);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn runs_are_repeatable_and_labels_are_consistent() {
        let dir = std::env::temp_dir().join(format!("vato-datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let never = AtomicBool::new(false);
        let a = run(&config(dir.join("a"), 6, 2), &never).unwrap();
        let b = run(&config(dir.join("b"), 6, 1), &never).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.games, 6);
        assert!(!a.interrupted);
        let records = read_file(&dir.join("a")).unwrap();
        assert_eq!(records, read_file(&dir.join("b")).unwrap());
        assert_eq!(records.len() as u64, a.positions);
        assert!(records.len() > 20, "{} records", records.len());
        for r in &records {
            let p = r.position();
            assert!(!has_capture(&p), "only quiet positions are recorded");
            assert!(i32::from(r.score).abs() < SCORE_LIMIT);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stopped_run_writes_a_complete_file() {
        let dir = std::env::temp_dir().join(format!("vato-datagen-stop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stopped = AtomicBool::new(true);
        let summary = run(&config(dir.join("s"), 4, 1), &stopped).unwrap();
        assert!(summary.interrupted);
        assert_eq!(summary.games, 0);
        // An empty run still leaves a file, but no chunk: reading it says so in one line.
        assert!(dir.join("s").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
