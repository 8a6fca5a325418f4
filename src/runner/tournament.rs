//! The tournament: pairings and the order of games, the worker threads that play them in
//! parallel, and the main thread's running report, records and stopping rules.

use super::engine::{EngineProcess, EngineSpec};
use super::openings::{Opening, OpeningSource};
use super::pgn::{GameRecord, Termination};
use super::referee::{Adjudication, Seat, play_game};
use super::standings::{Outcome, Standings};
use super::stats::{Sprt, SprtDecision};
use crate::progress::JobProgress;
use crate::rules::Rules;
use crate::shard::Shard;
use crate::timestamp::pgn_date;
use std::collections::BTreeMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::SystemTime;

/// Who plays whom.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TournamentKind {
    /// Every engine against every other.
    #[default]
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
    /// Exactly two engines.
    HeadToHead,
}

/// Why a match could not be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchError(pub String);

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MatchError {}

/// One game of the schedule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The game's number in the schedule, from 1.
    pub number: u64,
    /// The round, from 1.
    pub round: u64,
    /// The colour-swapped pair within the round, from 1.
    pub pair: u64,
    /// The pairing, an index into [`Schedule::pairings`].
    pub pairing: usize,
    /// False: the pairing's first engine has White; true: the second.
    pub swapped: bool,
    /// The opening's number, from 0: the same for both games of a pair and for the
    /// same pair of every pairing.
    pub opening: u64,
}

/// The order of the games: per round, pair by pair, each pair for every pairing, both
/// colours in a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Pairs of engine indices; the first takes the point of view in the standings.
    pub pairings: Vec<(usize, usize)>,
    /// Games per pairing per round.
    pub games: u32,
    /// Rounds; `None` to go on until stopped (by an SPRT).
    pub rounds: Option<u64>,
}

impl Schedule {
    /// The schedule of a tournament of `engines` engines.
    pub fn new(
        kind: TournamentKind,
        engines: usize,
        games: u32,
        rounds: Option<u64>,
    ) -> Result<Schedule, MatchError> {
        if engines < 2 {
            return Err(MatchError("a match needs at least two engines".into()));
        }
        if games == 0 || rounds == Some(0) {
            return Err(MatchError("--games and --rounds must be at least 1".into()));
        }
        let pairings = match kind {
            TournamentKind::HeadToHead if engines != 2 => {
                return Err(MatchError(format!(
                    "head-to-head needs exactly two engines, found {engines}"
                )));
            }
            TournamentKind::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
            _ => (0..engines)
                .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
                .collect(),
        };
        Ok(Schedule {
            pairings,
            games,
            rounds,
        })
    }

    /// Games per round.
    fn per_round(&self) -> u64 {
        self.games as u64 * self.pairings.len() as u64
    }

    /// Colour-swapped pairs per pairing per round (the last one may be a single game).
    pub fn pairs_per_round(&self) -> u64 {
        (self.games as u64).div_ceil(2)
    }

    /// Games in the whole schedule, `None` when it has no end.
    pub fn total(&self) -> Option<u64> {
        self.rounds.map(|r| r.saturating_mul(self.per_round()))
    }

    /// The colour-swapped pair that the game at `index` (from 0) belongs to, numbered
    /// from 0 in schedule order: the unit that shards share out.
    pub fn unit(&self, index: u64) -> u64 {
        let per_round = self.per_round();
        let (round, i) = (index / per_round, index % per_round);
        let count = self.pairings.len() as u64;
        let full = self.games as u64 / 2 * 2 * count;
        let units_per_round = self.pairs_per_round() * count;
        let unit = if i < full {
            i / 2
        } else {
            full / 2 + (i - full)
        };
        round * units_per_round + unit
    }

    /// True when the game at `index` (from 0) is one that `shard` plays.
    pub fn in_shard(&self, index: u64, shard: Shard) -> bool {
        shard.contains(self.unit(index))
    }

    /// The games of `shard` in the whole schedule, `None` when it has no end.
    pub fn games_of(&self, shard: Shard) -> Option<u64> {
        let total = self.total()?;
        Some((0..total).filter(|&i| self.in_shard(i, shard)).count() as u64)
    }

    /// The game at `index` (from 0), `None` past the end.
    pub fn job(&self, index: u64) -> Option<Job> {
        if self.total().is_some_and(|total| index >= total) {
            return None;
        }
        let per_round = self.per_round();
        let round = index / per_round;
        let i = index % per_round;
        let count = self.pairings.len() as u64;
        let full_pairs = self.games as u64 / 2;
        let (pair, pairing, swapped) = if i < full_pairs * 2 * count {
            (i / (2 * count), (i / 2) % count, i % 2 == 1)
        } else {
            (full_pairs, i - full_pairs * 2 * count, false)
        };
        Some(Job {
            number: index + 1,
            round: round + 1,
            pair: pair + 1,
            pairing: pairing as usize,
            swapped,
            opening: round * self.pairs_per_round() + pair,
        })
    }
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines; names are unique.
    pub engines: Vec<EngineSpec>,
    /// Who plays whom and how often.
    pub schedule: Schedule,
    /// Games played at once.
    pub concurrency: usize,
    /// Where games start.
    pub openings: OpeningSource,
    /// A description of the openings for the header line.
    pub openings_label: String,
    /// The rule options, shared with the engines.
    pub rules: Rules,
    /// Early ends.
    pub adjudication: Adjudication,
    /// Stop when this test decides (only with two engines).
    pub sprt: Option<Sprt>,
    /// Append the game records here.
    pub pgn: Option<PathBuf>,
    /// Write each engine's protocol log here.
    pub log_dir: Option<PathBuf>,
    /// Print the standings every this many games (0: only at the end).
    pub report_every: u64,
    /// The `Event` tag.
    pub event: String,
    /// The seed behind shuffled and generated openings, for the header line.
    pub seed: u64,
    /// The part of the schedule to play.
    pub shard: Shard,
}

/// What a finished (or stopped) match leaves.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    /// The final standings.
    pub standings: Standings,
    /// Games finished and counted.
    pub finished: u64,
    /// Games abandoned because the match was stopped.
    pub abandoned: u64,
    /// True when the match was stopped from outside (Ctrl-C) before its end.
    pub interrupted: bool,
    /// The SPRT's verdict, if one was run.
    pub sprt: Option<SprtDecision>,
}

enum Message {
    Finished(Job, Box<GameRecord>),
    Abandoned(Job),
    Failed(String),
}

/// A name made safe for a file name.
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn log_path(config: &MatchConfig, engine: usize, slot: usize) -> Option<PathBuf> {
    let dir = config.log_dir.as_ref()?;
    Some(dir.join(format!(
        "{}-{slot}.log",
        file_stem(&config.engines[engine].name)
    )))
}

/// Two distinct elements of a slice, mutably.
fn two_mut<T>(items: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "an engine does not play itself");
    if a < b {
        let (left, right) = items.split_at_mut(b);
        (&mut left[a], &mut right[0])
    } else {
        let (left, right) = items.split_at_mut(a);
        (&mut right[0], &mut left[b])
    }
}

fn time_control(white: &EngineSpec, black: &EngineSpec) -> String {
    let (w, b) = (white.limits.to_string(), black.limits.to_string());
    if w == b { w } else { format!("{w} vs {b}") }
}

/// Plays games from the shared counter until the schedule ends or the match stops; each
/// worker keeps its own engine processes from game to game.
fn worker(
    slot: usize,
    config: &MatchConfig,
    next: &AtomicU64,
    stop: &AtomicBool,
    messages: Sender<Message>,
) {
    let mut processes: Vec<Option<EngineProcess>> = config.engines.iter().map(|_| None).collect();
    while !stop.load(Ordering::Relaxed) {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = config.schedule.job(index) else {
            break;
        };
        if !config.schedule.in_shard(index, config.shard) {
            continue;
        }
        let opening: Opening = match config.openings.opening(job.opening, config.rules) {
            Ok(opening) => opening,
            Err(e) => {
                let _ = messages.send(Message::Failed(format!("opening {}: {e}", job.opening + 1)));
                break;
            }
        };
        let (first, second) = config.schedule.pairings[job.pairing];
        let (white, black) = if job.swapped {
            (second, first)
        } else {
            (first, second)
        };
        let (white_process, black_process) = two_mut(&mut processes, white, black);
        let seats = [
            Seat {
                spec: &config.engines[white],
                process: white_process,
                log: log_path(config, white, slot),
            },
            Seat {
                spec: &config.engines[black],
                process: black_process,
                log: log_path(config, black, slot),
            },
        ];
        let played = play_game(seats, &opening, config.rules, &config.adjudication, stop);
        let message = match played.end {
            None => Message::Abandoned(job),
            Some(end) => Message::Finished(
                job,
                Box::new(GameRecord {
                    event: config.event.clone(),
                    date: pgn_date(SystemTime::now()),
                    round: format!("{}.{}", job.round, job.pair),
                    number: job.number,
                    white: config.engines[white].name.clone(),
                    black: config.engines[black].name.clone(),
                    start: opening.start,
                    rules: config.rules,
                    moves: played.moves,
                    result: end.result,
                    termination: end.termination,
                    detail: end.detail,
                    time_control: time_control(&config.engines[white], &config.engines[black]),
                }),
            ),
        };
        if messages.send(message).is_err() {
            break;
        }
    }
    for process in processes.into_iter().flatten() {
        process.quit();
    }
}

/// Checks that every engine starts, answers the handshake and knows the options it is
/// given (unknown ones are reported to `out` as warnings).
fn check_engines(
    config: &MatchConfig,
    stop: &AtomicBool,
    out: &mut dyn Write,
) -> Result<(), MatchError> {
    for (i, spec) in config.engines.iter().enumerate() {
        let process =
            EngineProcess::start(spec, config.rules, log_path(config, i, 0).as_deref(), stop)
                .map_err(|e| MatchError(format!("engine '{}': {e}", spec.name)))?;
        for (name, _) in &spec.options {
            if !process.declares(name) {
                let _ = writeln!(
                    out,
                    "warning: engine '{}' does not declare the option '{name}'",
                    spec.name
                );
            }
        }
        if !process.declares("NoCaptureLimit") {
            let _ = writeln!(
                out,
                "warning: engine '{}' does not declare NoCaptureLimit; it may not know the match's draw rule",
                spec.name
            );
        }
        process.quit();
    }
    Ok(())
}

/// The running report: progress lines, standings, records in schedule order, the SPRT.
struct Reporter<'a> {
    config: &'a MatchConfig,
    out: &'a mut dyn Write,
    pgn: Option<File>,
    standings: Standings,
    /// Finished (`Some`) and abandoned (`None`) games not yet written, by number.
    waiting: BTreeMap<u64, Option<GameRecord>>,
    next_to_write: u64,
    finished: u64,
    abandoned: u64,
    decision: Option<SprtDecision>,
    /// Games finished out of the total, on standard error when it is a terminal.
    progress: Option<JobProgress>,
    /// The games this run plays (its shard's), `None` when the schedule has no end.
    total: Option<u64>,
}

impl Reporter<'_> {
    /// Writes report text to the output, with the progress bar out of its way.
    fn say(&mut self, text: &str) {
        let out = &mut *self.out;
        let mut write = || {
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        };
        match &self.progress {
            Some(progress) => progress.suspend(write),
            None => write(),
        }
    }

    fn game(&mut self, job: Job, record: GameRecord) -> Result<(), MatchError> {
        let outcome = Outcome {
            white: record.white.clone(),
            black: record.black.clone(),
            pair: record.round.clone(),
            result: record.result,
            termination: record.termination,
        };
        self.standings.add(&outcome);
        self.finished += 1;
        let total = self
            .config
            .schedule
            .total()
            .map_or(String::new(), |t| format!("/{t}"));
        let shard = if self.config.shard.is_whole() {
            String::new()
        } else {
            format!(" of shard {}", self.config.shard)
        };
        let tally = self
            .standings
            .pairings()
            .iter()
            .find(|p| {
                (p.first == record.white && p.second == record.black)
                    || (p.first == record.black && p.second == record.white)
            })
            .map(|p| {
                format!(
                    "{} vs {}: +{} ={} -{}",
                    p.first, p.second, p.games.wins, p.games.draws, p.games.losses
                )
            })
            .unwrap_or_default();
        let kind = if record.termination == Termination::Normal {
            String::new()
        } else {
            format!("{}: ", record.termination)
        };
        let line = format!(
            "Game {}{total}{shard} (round {}, pair {}) {} - {}: {} {{{kind}{}}}  [{tally}]\n",
            job.number,
            job.round,
            job.pair,
            record.white,
            record.black,
            record.result.token(),
            record.detail
        );
        self.say(&line);
        if let Some(progress) = self.progress.as_mut() {
            progress.set(self.finished);
        }
        self.waiting.insert(job.number, Some(record));
        self.write_ready(false)?;
        // The final standings follow the last game anyway.
        let last = self.total == Some(self.finished);
        if self.config.report_every > 0
            && self.finished.is_multiple_of(self.config.report_every)
            && !last
        {
            let report = self.standings.report(self.config.sprt.as_ref());
            self.say(&report);
        }
        if let (Some(sprt), None) = (&self.config.sprt, self.decision)
            && let Some(pairing) = self.standings.pairings().first()
            && sprt.may_decide(&pairing.pairs)
        {
            let decision = sprt.decide(sprt.llr(&pairing.pairs));
            if decision != SprtDecision::Continue {
                self.decision = Some(decision);
            }
        }
        let _ = self.out.flush();
        Ok(())
    }

    /// The first game numbered `number` or later that this shard plays.
    fn next_in_shard(&self, mut number: u64) -> u64 {
        let schedule = &self.config.schedule;
        while schedule.total().is_none_or(|total| number <= total)
            && !schedule.in_shard(number - 1, self.config.shard)
        {
            number += 1;
        }
        number
    }

    /// Writes the waiting records in schedule order, up to the first game still being
    /// played; with `all`, every waiting record.
    fn write_ready(&mut self, all: bool) -> Result<(), MatchError> {
        while let Some(entry) = self.waiting.first_entry() {
            if !all && *entry.key() != self.next_to_write {
                break;
            }
            let (number, record) = entry.remove_entry();
            self.next_to_write = self.next_in_shard(number + 1);
            if let (Some(record), Some(file)) = (record, self.pgn.as_mut()) {
                file.write_all(record.to_pgn().as_bytes())
                    .and_then(|_| file.flush())
                    .map_err(|e| MatchError(format!("cannot write the game records: {e}")))?;
            }
        }
        Ok(())
    }
}

/// Runs a match: checks the engines, plays the schedule with `concurrency` workers,
/// prints a line per game and the standings to `out`, appends the records to the PGN
/// file, and stops early when the SPRT decides or `stop` is set (Ctrl-C), in which case
/// the games in progress are abandoned and their engines told to quit.
pub fn run_match(
    config: &MatchConfig,
    stop: &AtomicBool,
    out: &mut dyn Write,
) -> Result<MatchSummary, MatchError> {
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(MatchError(format!(
                "two engines are named '{name}'; give each its own name="
            )));
        }
    }
    if config.sprt.is_some() && config.engines.len() != 2 {
        return Err(MatchError("--sprt needs exactly two engines".into()));
    }
    if !config.shard.is_whole() && (config.sprt.is_some() || config.schedule.total().is_none()) {
        return Err(MatchError(
            "--shard needs a fixed number of games and no --sprt (test the merged records)".into(),
        ));
    }
    if config.concurrency == 0 {
        return Err(MatchError("--concurrency must be at least 1".into()));
    }
    // A generator that cannot make even the first opening would fail every game.
    config
        .openings
        .opening(0, config.rules)
        .map_err(|e| MatchError(format!("openings: {e}")))?;
    let pgn = match &config.pgn {
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| MatchError(format!("cannot open {}: {e}", path.display())))?,
        ),
        None => None,
    };
    check_engines(config, stop, out)?;

    let schedule = &config.schedule;
    let total = schedule.games_of(config.shard);
    let games = match (total, schedule.total()) {
        (Some(total), _) if config.shard.is_whole() => format!("{total} games"),
        (Some(part), Some(total)) => {
            format!("{part} of {total} games (shard {})", config.shard)
        }
        _ => "games until the SPRT decides".into(),
    };
    let _ = writeln!(
        out,
        "Match: {} ({} pairing{}), {games}, concurrency {}, openings: {}, seed {}",
        names.join(", "),
        schedule.pairings.len(),
        if schedule.pairings.len() == 1 {
            ""
        } else {
            "s"
        },
        config.concurrency,
        config.openings_label,
        config.seed
    );
    for spec in &config.engines {
        let _ = writeln!(out, "  {}: {} ({})", spec.name, spec.command, spec.limits);
    }
    let _ = out.flush();

    let mut reporter = Reporter {
        config,
        out,
        pgn,
        standings: Standings::new(&names, &schedule.pairings),
        waiting: BTreeMap::new(),
        next_to_write: 1,
        finished: 0,
        abandoned: 0,
        decision: None,
        progress: total.map(|total| JobProgress::new("match", total, "games", None)),
        total,
    };
    reporter.next_to_write = reporter.next_in_shard(1);
    let next = AtomicU64::new(0);
    let mut failure = None;
    thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        for slot in 1..=config.concurrency {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || worker(slot, config, next, stop, sender));
        }
        drop(sender);
        for message in receiver {
            let result = match message {
                Message::Finished(job, record) => reporter.game(job, *record),
                Message::Abandoned(job) => {
                    reporter.abandoned += 1;
                    reporter.waiting.insert(job.number, None);
                    reporter.write_ready(false)
                }
                Message::Failed(why) => Err(MatchError(why)),
            };
            if let Err(e) = result {
                failure.get_or_insert(e);
            }
            if failure.is_some() || reporter.decision.is_some() {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    if let Some(progress) = reporter.progress.take() {
        progress.finish();
    }
    reporter.write_ready(true)?;
    if let Some(failure) = failure {
        return Err(failure);
    }
    // Set from outside, not by the SPRT: the match was cut short.
    let interrupted = stop.load(Ordering::Relaxed) && reporter.decision.is_none();
    let out = reporter.out;
    let _ = writeln!(out, "Final results:");
    let _ = write!(out, "{}", reporter.standings.report(config.sprt.as_ref()));
    if config.sprt.is_some() {
        let verdict = match reporter.decision {
            Some(SprtDecision::AcceptH1) => "H1 accepted (the LLR reached the upper bound)",
            Some(SprtDecision::AcceptH0) => "H0 accepted (the LLR reached the lower bound)",
            _ => "no decision (the LLR is between the bounds)",
        };
        let _ = writeln!(out, "SPRT verdict: {verdict}");
    }
    if interrupted {
        let _ = writeln!(
            out,
            "Match interrupted: {} game{} in progress abandoned",
            reporter.abandoned,
            if reporter.abandoned == 1 { "" } else { "s" }
        );
    }
    let _ = out.flush();
    Ok(MatchSummary {
        standings: reporter.standings,
        finished: reporter.finished,
        abandoned: reporter.abandoned,
        interrupted,
        sprt: reporter.decision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairings_by_kind() {
        let rr = Schedule::new(TournamentKind::RoundRobin, 3, 2, Some(1)).unwrap();
        assert_eq!(rr.pairings, vec![(0, 1), (0, 2), (1, 2)]);
        let g = Schedule::new(TournamentKind::Gauntlet, 3, 2, Some(1)).unwrap();
        assert_eq!(g.pairings, vec![(0, 1), (0, 2)]);
        assert!(Schedule::new(TournamentKind::HeadToHead, 3, 2, Some(1)).is_err());
        assert!(Schedule::new(TournamentKind::RoundRobin, 1, 2, Some(1)).is_err());
    }

    #[test]
    fn jobs_come_in_colour_swapped_pairs() {
        let s = Schedule::new(TournamentKind::Gauntlet, 3, 3, Some(2)).unwrap();
        assert_eq!(s.total(), Some(12));
        let jobs: Vec<Job> = (0..12).map(|i| s.job(i).unwrap()).collect();
        assert_eq!(s.job(12), None);
        // Round 1: pair 1 for both pairings, both colours; then the odd game of each.
        let shape: Vec<(u64, u64, usize, bool, u64)> = jobs
            .iter()
            .map(|j| (j.round, j.pair, j.pairing, j.swapped, j.opening))
            .collect();
        assert_eq!(
            shape[..6],
            [
                (1, 1, 0, false, 0),
                (1, 1, 0, true, 0),
                (1, 1, 1, false, 0),
                (1, 1, 1, true, 0),
                (1, 2, 0, false, 1),
                (1, 2, 1, false, 1),
            ]
        );
        assert_eq!(shape[6], (2, 1, 0, false, 2));
        assert_eq!(jobs[11].number, 12);
        let endless = Schedule::new(TournamentKind::HeadToHead, 2, 2, None).unwrap();
        assert_eq!(endless.total(), None);
        assert_eq!(endless.job(1_000_001).unwrap().opening, 500_000);
    }

    #[test]
    fn two_mut_in_either_order() {
        let mut v = vec![1, 2, 3];
        let (a, b) = two_mut(&mut v, 2, 0);
        std::mem::swap(a, b);
        assert_eq!(v, vec![3, 2, 1]);
    }
}
