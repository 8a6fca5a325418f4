//! Solving layer pairs by retrograde analysis, in parallel over both cores.
//!
//! A pair is solved one byte per symmetry class (see [`Classes`]): about a quarter of
//! the layer's positions, each byte holding either the value found (outcome and distance)
//! or, while undecided, how many of the position's paikas are still open. The smaller
//! layers, where captures lead, are held at a byte per class too: the 7-stone pair 4v3
//! and 3v4 takes 0.8 GB, and the 6-stone layers below it 0.14 GB.

use super::classes::Classes;
use super::index::{layer_size, layers_with};
use super::layer_file::{Kind, layer_built, value_of, write_layer};
use super::pair_checkpoint::{self, Pass, ResumePoint};
use super::probe::{MAX_STONES, layer_names, open_layer, slot_of};
use super::symmetry::members;
use super::value::{Outcome, Value};
use crate::progress::{JobProgress, PLAIN_EVERY};
use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::geometry::ADJACENT;
use crate::rules::movegen::{generate_turns, has_capture, paika_steps};
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::rules::{ChainRule, Rules};
use anyhow::{Context, Result, bail};
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How a build reports progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Nothing on standard error.
    Quiet,
    /// One line per round and per layer, with an estimate of the time left.
    Stderr,
}

/// What a build did with each layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildReport {
    /// Layers solved in this run.
    pub solved: Vec<(usize, usize)>,
    /// Layers found finished on disk and kept.
    pub kept: Vec<(usize, usize)>,
    /// Pairs (larger side first) resumed from a checkpoint.
    pub resumed: Vec<(usize, usize)>,
}

/// How a build runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Threads to solve with.
    pub threads: usize,
    /// What the build says on standard error.
    pub progress: Progress,
    /// A pair still being solved this long after it started, or after its last
    /// checkpoint, writes its state as soon as the chunks under way are done, inside a
    /// pass or between two (see [`super::pair_checkpoint`]), so that a build stopped in it
    /// resumes from there; `None`: never. A finished pair removes its checkpoint.
    pub checkpoint_every: Option<Duration>,
}

/// The default of [`BuildOptions::checkpoint_every`]: a stop costs at most about this much
/// work, while a 6 GB pair spends well under a tenth of its time writing.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(600);

impl BuildOptions {
    /// `threads` threads, reporting as `progress`, with checkpoints every
    /// [`CHECKPOINT_EVERY`].
    pub fn new(threads: usize, progress: Progress) -> BuildOptions {
        BuildOptions {
            threads,
            progress,
            checkpoint_every: Some(CHECKPOINT_EVERY),
        }
    }
}

/// A solved layer with fewer stones than the pair being solved: the solver's byte of each
/// class (see [`OPEN`]), of which a capture into the layer needs the outcome alone. The
/// bytes of a pair just solved are kept as they are, without a copy.
struct SmallerLayer {
    classes: Classes,
    codes: Vec<AtomicU8>,
}

impl SmallerLayer {
    /// The outcome of any placement of the layer, for the side to move.
    #[inline]
    fn outcome(&self, us: Bitboard, them: Bitboard) -> Outcome {
        let entry = self.classes.entry_of(us, them) as usize;
        value_of_byte(self.codes[entry].load(Ordering::Relaxed)).outcome
    }

    /// Layer `(a, b)`'s outcomes read from its values file in `dir`, a block at a time;
    /// `None` when the layer is not there.
    fn read(dir: &Path, rules: &Rules, (a, b): (usize, usize)) -> Result<Option<SmallerLayer>> {
        let Some(layer) = open_layer(dir, rules, a, b)? else {
            return Ok(None);
        };
        let classes = Classes::new(rules.board, (a, b));
        let mut codes = Vec::with_capacity(classes.len() as usize);
        let mut rows = classes.rows().peekable();
        let mut decompressor = zstd::bulk::Decompressor::new().context("starting zstd")?;
        let mut block_bytes = Vec::new();
        for block in 0..layer.wdl.blocks() {
            let range = layer.wdl.block_range(block);
            if rows.peek().is_none_or(|row| row.start >= range.end) {
                continue; // no kept row reaches into this block
            }
            layer
                .wdl
                .decode_block(block, &mut decompressor, &mut block_bytes)?;
            while let Some(row) = rows.peek() {
                let (from, to) = (row.start.max(range.start), row.end.min(range.end));
                for index in from..to {
                    let entry = Kind::Wdl.entry_in(&block_bytes, (index - range.start) as usize);
                    let Some(value) = value_of(entry, 0) else {
                        bail!("{}: entry {index} holds no value", layer.wdl.name());
                    };
                    codes.push(AtomicU8::new(match value.outcome {
                        Outcome::Loss => LOST,
                        Outcome::Draw => DRAWN,
                        Outcome::Win => WON,
                    }));
                }
                if row.end > range.end {
                    break; // the row goes on in the next block
                }
                rows.next();
            }
        }
        drop(rows);
        Ok(Some(SmallerLayer { classes, codes }))
    }
}

/// The layers solved together with `(a, b)`: it and `(b, a)`, since a paika leads from
/// each to the other, or the one layer when `a == b`.
fn pair_layers(a: usize, b: usize) -> Vec<(usize, usize)> {
    if a == b {
        vec![(a, b)]
    } else {
        vec![(a, b), (b, a)]
    }
}

/// Solves every layer of up to `stones` stones into `dir`, smallest first, skipping layers
/// whose files are already there and valid. Uses `threads` threads.
pub fn build(
    dir: &Path,
    stones: usize,
    rules: &Rules,
    threads: usize,
    progress: Progress,
) -> Result<BuildReport> {
    build_layers(
        dir,
        stones,
        rules,
        &BuildOptions::new(threads, progress),
        None,
    )
}

/// [`build`], limited to the layer pairs in `only` when given: a pair `(a, b)` (either
/// order) stands for the layers `a`v`b` and `b`v`a`, which are solved together. Every
/// layer with fewer stones than a pair to be solved must already be in `dir`, so that the
/// pairs of one stone count can be built on different machines and collected. A pair
/// whose checkpoint is in `dir` resumes from it.
pub fn build_layers(
    dir: &Path,
    stones: usize,
    rules: &Rules,
    options: &BuildOptions,
    only: Option<&[(usize, usize)]>,
) -> Result<BuildReport> {
    let run = PairRun {
        threads: options.threads,
        progress: options.progress,
        checkpoints: options.checkpoint_every.map(|every| (dir, every)),
        near: LONGEST,
        stop_after: None,
    };
    build_pairs(dir, stones, rules, &run, only)
}

/// [`build_layers`], each pair solved as `run` says.
fn build_pairs(
    dir: &Path,
    stones: usize,
    rules: &Rules,
    run: &PairRun,
    only: Option<&[(usize, usize)]>,
) -> Result<BuildReport> {
    let (threads, progress) = (run.threads, run.progress);
    if !(2..=8).contains(&stones) {
        bail!("--stones must be between 2 and 8");
    }
    let only: Option<Vec<(usize, usize)>> =
        only.map(|pairs| pairs.iter().map(|&(a, b)| (a.max(b), a.min(b))).collect());
    if let Some(pairs) = &only
        && let Some(&(a, b)) = pairs.iter().find(|&&(a, b)| b == 0 || a + b > stones)
    {
        bail!("layer pair {a}v{b}: each side needs a stone, and at most {stones} in all");
    }
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // Solved layers by `slot_of`, for the captures of larger layers; the largest layers
    // are never needed again, so they are not kept.
    let mut solved: Vec<Option<SmallerLayer>> = Vec::new();
    solved.resize_with(slot_of(MAX_STONES, MAX_STONES) + 1, || None);
    let mut report = BuildReport {
        solved: Vec::new(),
        kept: Vec::new(),
        resumed: Vec::new(),
    };
    let total: u64 = (2..=stones)
        .flat_map(layers_with)
        .map(|(a, b)| layer_size(rules.board, a, b))
        .sum();
    let mut done: u64 = 0;
    let started = Instant::now();
    // The layers of this many stones are solved but never read again.
    let largest_wanted = only.as_ref().map_or(stones, |pairs| {
        pairs.iter().map(|&(x, y)| x + y).max().unwrap_or(0)
    });
    for n in 2..=stones {
        for (a, b) in layers_with(n) {
            if a < b {
                continue; // solved together with (b, a)
            }
            let wanted = only.as_ref().is_none_or(|pairs| pairs.contains(&(a, b)));
            if !wanted && n >= largest_wanted {
                continue; // not asked for, and no asked-for pair captures into it
            }
            let pair = pair_layers(a, b);
            let existing: Vec<bool> = pair
                .iter()
                .map(|&(x, y)| layer_built(dir, rules, x, y))
                .collect::<Result<_>>()?;
            let size: u64 = pair
                .iter()
                .map(|&(x, y)| layer_size(rules.board, x, y))
                .sum();
            if existing.iter().all(|&built| built) {
                for &(x, y) in &pair {
                    if n < largest_wanted {
                        solved[slot_of(x, y)] = SmallerLayer::read(dir, rules, (x, y))?;
                    }
                    report.kept.push((x, y));
                }
                done += size;
                if progress == Progress::Stderr {
                    eprintln!("layer {a}v{b}: already built, kept");
                }
                continue;
            }
            if !wanted {
                continue;
            }
            let missing: Vec<(usize, usize)> = (2..n)
                .flat_map(layers_with)
                .filter(|&(x, y)| solved[slot_of(x, y)].is_none())
                .collect();
            if !missing.is_empty() {
                bail!(
                    "layer pair {a}v{b} needs every layer with fewer stones in {}; missing: {}",
                    dir.display(),
                    layer_names(&missing)
                );
            }
            let layer_started = Instant::now();
            let tables = solve_pair(a, b, &solved, rules, run)?;
            if tables.resumed {
                report.resumed.push((a, b));
            }
            for (slot, &(x, y)) in pair.iter().enumerate() {
                let classes = &tables.layers[slot].0;
                let longest = (0..classes.len())
                    .map(|entry| tables.value(slot, entry).distance)
                    .max();
                write_layer(
                    dir,
                    rules,
                    (x, y),
                    &|index| {
                        let entry = classes
                            .entry_of_index(index)
                            .expect("the writer asks for canonical placements only");
                        tables.value(slot, entry)
                    },
                    longest.unwrap_or(0),
                    threads,
                )?;
                report.solved.push((x, y));
            }
            pair_checkpoint::remove(dir, rules.board, (a, b))?;
            if n < largest_wanted {
                for (&(x, y), (classes, codes)) in pair.iter().zip(tables.layers) {
                    solved[slot_of(x, y)] = Some(SmallerLayer { classes, codes });
                }
            }
            done += size;
            if progress == Progress::Stderr {
                let elapsed = started.elapsed().as_secs_f64();
                // Time per position grows with the stones, so this estimate is a floor.
                let left = elapsed / done as f64 * (total - done) as f64;
                eprintln!(
                    "layer {a}v{b}: {size} positions in {:.1} s; {done}/{total} positions \
                     done ({:.1}%), at least {:.0} s left",
                    layer_started.elapsed().as_secs_f64(),
                    100.0 * done as f64 / total as f64,
                    left
                );
            }
        }
    }
    Ok(report)
}

/// The byte of a class while its pair is solved: the top two bits say what the low six
/// hold. Open: not decided yet, and how many of its paikas are not yet known to lead to a
/// win for the opponent (at most 8 a stone, so at most 56 with 7 stones to move).
const OPEN: u8 = 0b0000_0000;
/// Won, in the low bits' number of turns.
const WON: u8 = 0b0100_0000;
/// Lost, in the low bits' number of turns.
const LOST: u8 = 0b1000_0000;
/// Drawn: a position that must capture and can reach no more than a draw, and the unused
/// slots of [`Classes`]. (Positions still open when the pair is solved are draws too.)
const DRAWN: u8 = 0b1100_0000;
/// The two bits that say which.
const TAG: u8 = 0b1100_0000;
/// The longest distance a byte holds.
const LONGEST: u8 = !TAG;

/// The value a finished byte stands for (an open position is a draw).
fn value_of_byte(code: u8) -> Value {
    let distance = u16::from(code & LONGEST);
    match code & TAG {
        WON => Value {
            outcome: Outcome::Win,
            distance,
        },
        LOST => Value {
            outcome: Outcome::Loss,
            distance,
        },
        _ => Value::DRAW,
    }
}
/// Entries a solver thread takes at a time: large enough to make the hand-out cheap,
/// small enough to keep both cores busy to the end of a pass.
const CHUNK: u64 = 1 << 15;

/// Predecessors gathered before they are credited (see [`PairSolver::retract`]).
const RETRACT_BATCH: usize = 1024;

/// A pass running longer than this shows its progress on standard error.
const PROGRESS_AFTER: Duration = Duration::from_secs(2);

/// How often the progress of a pass is updated once it shows.
const PROGRESS_TICK: Duration = Duration::from_millis(200);

/// The progress of one pass over one layer, shown on standard error once it runs long
/// (see [`JobProgress`]), across the pauses for checkpoints.
struct SweepProgress {
    /// What the progress line says; `None`: nothing is shown.
    label: Option<String>,
    /// The first entry of the sweep, and the layer's size.
    entries: std::ops::Range<u64>,
    started: Instant,
    bar: Option<JobProgress>,
}

impl SweepProgress {
    fn new(label: Option<String>, entries: std::ops::Range<u64>) -> SweepProgress {
        SweepProgress {
            label,
            entries,
            started: Instant::now(),
            bar: None,
        }
    }

    /// Shows that every entry before `reached` is done.
    fn show(&mut self, reached: u64) {
        let Some(label) = &self.label else { return };
        if self.bar.is_none() && self.started.elapsed() >= PROGRESS_AFTER {
            let total = self.entries.end - self.entries.start;
            self.bar = Some(JobProgress::new(label, total, "classes", Some(PLAIN_EVERY)));
        }
        if let Some(bar) = self.bar.as_mut() {
            bar.set(reached - self.entries.start);
        }
    }

    /// Writes `line` on standard error without breaking the progress bar.
    fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish();
        }
    }
}

/// Runs `work` over `entries` in chunks on `threads` threads, the chunks handed out in
/// order. Once `pause_at` has passed, no chunk is begun: the threads finish the chunks
/// under way and the first entry not done is returned (every entry before it is done,
/// none after it), so that the state can be saved; `entries.end` when all are done. Each
/// thread does a chunk at least, so every call gains ground.
fn parallel_chunks(
    entries: std::ops::Range<u64>,
    threads: usize,
    pause_at: Option<Instant>,
    progress: &mut SweepProgress,
    work: &(dyn Fn(std::ops::Range<u64>) + Sync),
) -> u64 {
    let size = entries.end;
    let next = AtomicU64::new(entries.start);
    let finished = AtomicU64::new(0);
    // The workers never send: the channel closes when the last of them ends, which wakes
    // the progress loop at once instead of at its next tick.
    let (running, all_done) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let running = running.clone();
            let (next, finished) = (&next, &finished);
            scope.spawn(move || {
                let _running = running;
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= size {
                        break;
                    }
                    let end = (start + CHUNK).min(size);
                    work(start..end);
                    finished.fetch_add(end - start, Ordering::Relaxed);
                    if pause_at.is_some_and(|at| Instant::now() >= at) {
                        break;
                    }
                }
            });
        }
        drop(running);
        while let Err(RecvTimeoutError::Timeout) = all_done.recv_timeout(PROGRESS_TICK) {
            progress.show(entries.start + finished.load(Ordering::Relaxed));
        }
    });
    let reached = next.into_inner().min(size);
    progress.show(reached);
    reached
}

/// The state of a pair of layers being solved, shared by the solver threads.
struct PairSolver<'a> {
    /// The layers: `(a, b)`, and `(b, a)` unless `a == b`.
    layers: Vec<(usize, usize)>,
    /// Per layer, the numbering of its classes.
    classes: Vec<Classes>,
    /// Per layer, each class's byte (see [`OPEN`]).
    codes: Vec<Vec<AtomicU8>>,
    /// The solved layers with fewer stones, where every capture leads. By `slot_of`.
    smaller: &'a [Option<SmallerLayer>],
    chain_rule: ChainRule,
    /// The board the layers are on.
    board: Board,
}

impl PairSolver<'_> {
    /// The slot of the layer a paika leads to from the layer in `slot` (and comes from).
    fn partner(&self, slot: usize) -> usize {
        if self.layers.len() == 2 {
            1 - slot
        } else {
            slot
        }
    }

    /// First pass: decides every position with a capture (all its turns lead to smaller,
    /// solved layers) or without a legal turn, and counts the paikas of the others.
    fn classify(&self, slot: usize, entries: std::ops::Range<u64>) {
        let mut turns = Vec::new();
        for entry in entries {
            let (us, them, canonical) = self.classes[slot].placement(entry);
            let code = if !canonical {
                DRAWN // an unused slot
            } else {
                let position = Position::new_on(self.board, us, them, Color::White, 0, 1)
                    .expect("a placement is on the board");
                if has_capture(&position) {
                    self.capture_code(&position, &mut turns)
                } else {
                    match paika_steps(position.us(), position.empty()) {
                        0 => LOST,
                        paikas => OPEN | u8::try_from(paikas).expect("at most 56 paikas"),
                    }
                }
            };
            self.codes[slot][entry as usize].store(code, Ordering::Relaxed);
        }
    }

    /// The byte of a position that must capture, from the outcomes of its children.
    fn capture_code(&self, position: &Position, turns: &mut Vec<Turn>) -> u8 {
        generate_turns(position, self.chain_rule, turns);
        let mut all_lost = true;
        for &turn in turns.iter() {
            let child = position.play(turn);
            let (us, them) = (child.us(), child.them());
            if us.is_empty() {
                return WON | 1;
            }
            let layer = self.smaller[slot_of(us.count() as usize, them.count() as usize)]
                .as_ref()
                .expect("smaller layers are solved first");
            match layer.outcome(us, them) {
                Outcome::Loss => return WON | 1,
                Outcome::Draw => all_lost = false,
                Outcome::Win => {}
            }
        }
        if all_lost { LOST | 1 } else { DRAWN }
    }

    /// Passes on the classes of `slot` decided at `distance` to their predecessors by a
    /// paika: a predecessor of a loss wins at `distance + 1`; a predecessor whose last open
    /// paika leads to a win loses at `distance + 1`. Returns how many classes were passed.
    fn retract(&self, slot: usize, entries: std::ops::Range<u64>, distance: u8) -> u64 {
        let partner = self.partner(slot);
        let (lost, won) = (LOST | distance, WON | distance);
        let mut passed = 0;
        let mut batch = Vec::with_capacity(RETRACT_BATCH + 4 * 64);
        for entry in entries {
            let code = self.codes[slot][entry as usize].load(Ordering::Relaxed);
            if code != lost && code != won {
                continue;
            }
            passed += 1;
            self.open_predecessors(slot, entry, code == lost, &mut batch);
            if batch.len() >= RETRACT_BATCH {
                self.credit(partner, &batch, distance + 1);
                batch.clear();
            }
        }
        self.credit(partner, &batch, distance + 1);
        passed
    }

    /// Pushes onto `batch` each open predecessor (in the partner layer) of class `entry` of
    /// `slot`, once per paika that leads from it into the class, with whether the class is
    /// lost.
    ///
    /// Each paika of a canonical predecessor must be credited once: its step leads to some
    /// member of the class, so every member is walked back, and of the placements reached
    /// only the canonical ones (the solver's entries) are kept.
    ///
    /// Mandatory capture holds because only open positions are kept: a position with a
    /// capture was decided in the first pass, so no paika is ever credited to it.
    fn open_predecessors(&self, slot: usize, entry: u64, lost: bool, batch: &mut Vec<(u64, bool)>) {
        let partner = self.partner(slot);
        let points = self.board.points().bits();
        let (us, them, _) = self.classes[slot].placement(entry);
        let (members, count) = members(self.board, us, them);
        for &(us, them) in &members[..count] {
            let empty = !(us | them) & points;
            // The opponent moved last: undo each of its possible steps. Predecessors
            // already decided are dropped here, where their reads are independent of each
            // other and overlap in memory; the updates come later, a batch at a time.
            for to in Bitboard::from_bits(them) {
                let mut froms = ADJACENT[to.index()] & empty;
                while froms != 0 {
                    let from = froms & froms.wrapping_neg();
                    froms &= froms - 1;
                    let before = Bitboard::from_bits(them ^ (1u64 << to.index()) ^ from);
                    let Some(parent) =
                        self.classes[partner].entry_if_canonical(before, Bitboard::from_bits(us))
                    else {
                        continue;
                    };
                    let parent_code = self.codes[partner][parent as usize].load(Ordering::Relaxed);
                    if parent_code & TAG == OPEN {
                        batch.push((parent, lost));
                    }
                }
            }
        }
    }

    /// Credits each predecessor in `batch` (in layer `slot`) with a child decided one turn
    /// before `decided`: a lost child makes it a win at `decided`, the last won child a
    /// loss at `decided`.
    fn credit(&self, slot: usize, batch: &[(u64, bool)], decided: u8) {
        for &(parent, child_lost) in batch {
            self.credit_one(slot, parent, child_lost, decided);
        }
    }

    /// [`PairSolver::credit`] for one predecessor; whether this credit decided it.
    fn credit_one(&self, slot: usize, parent: u64, child_lost: bool, decided: u8) -> bool {
        let cell = &self.codes[slot][parent as usize];
        // Another thread may decide it or take one of its paikas in the meantime: the first
        // decision stands, and every paika is counted once.
        cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |code| {
            if code & TAG != OPEN {
                None
            } else if child_lost {
                Some(WON | decided)
            } else if code == OPEN | 1 {
                Some(LOST | decided)
            } else {
                Some(code - 1)
            }
        })
        .is_ok_and(|old| child_lost || old == OPEN | 1)
    }

    /// How many classes decided at `distance` a pass over them stopped at `at` has passed
    /// on already: those of the layers before `at.slot` and of `at.slot` before `at.entry`.
    fn passed_before(&self, at: ResumePoint, distance: u8) -> u64 {
        let (lost, won) = (LOST | distance, WON | distance);
        let done = |slot: usize| match slot.cmp(&at.slot) {
            std::cmp::Ordering::Less => self.codes[slot].len(),
            std::cmp::Ordering::Equal => at.entry as usize,
            std::cmp::Ordering::Greater => 0,
        };
        self.codes
            .iter()
            .enumerate()
            .map(|(slot, codes)| {
                codes[..done(slot)]
                    .iter()
                    .filter(|cell| {
                        let code = cell.load(Ordering::Relaxed);
                        code == lost || code == won
                    })
                    .count() as u64
            })
            .sum()
    }

    /// Passes on the classes decided at `from` and every distance after it, one class at a
    /// time from a list of those just decided instead of a pass over every byte: the byte
    /// holds `near` for all of them, their distances go into the returned maps (by layer,
    /// entry to distance). Only the last few classes of the longest lines get this far.
    fn pass_far(&self, from: u8) -> Vec<HashMap<u64, u16>> {
        let mut far = vec![HashMap::new(); self.layers.len()];
        let mut frontier: Vec<(usize, u64, bool)> = Vec::new();
        for (slot, codes) in self.codes.iter().enumerate() {
            for (entry, cell) in codes.iter().enumerate() {
                let code = cell.load(Ordering::Relaxed);
                if code == LOST | from || code == WON | from {
                    frontier.push((slot, entry as u64, code == LOST | from));
                }
            }
        }
        let near = from + 1;
        let mut distance = u16::from(near);
        let mut batch = Vec::new();
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for (slot, entry, lost) in frontier {
                let partner = self.partner(slot);
                batch.clear();
                self.open_predecessors(slot, entry, lost, &mut batch);
                for &(parent, child_lost) in &batch {
                    if self.credit_one(partner, parent, child_lost, near) {
                        far[partner].insert(parent, distance);
                        next.push((partner, parent, !child_lost));
                    }
                }
            }
            frontier = next;
            distance += 1;
        }
        far
    }
}

/// A pair solved: each layer's classes and bytes, and the distances too long for a byte.
struct SolvedPair {
    /// Whether the solve started from a checkpoint.
    resumed: bool,
    layers: Vec<(Classes, Vec<AtomicU8>)>,
    /// By layer: the distances of the classes decided past the byte's reach.
    far: Vec<HashMap<u64, u16>>,
    /// The distance in the bytes of those classes (see [`PairRun::near`]).
    near: u8,
}

impl SolvedPair {
    /// The value of `entry` of the pair's layer `slot`.
    #[inline]
    fn value(&self, slot: usize, entry: u64) -> Value {
        let code = self.layers[slot].1[entry as usize].load(Ordering::Relaxed);
        let value = value_of_byte(code);
        if code & LONGEST != self.near || code & TAG == OPEN || code & TAG == DRAWN {
            return value;
        }
        let distance = self.far[slot][&entry];
        Value { distance, ..value }
    }
}

/// How a pair is solved, besides its layers.
struct PairRun<'a> {
    threads: usize,
    progress: Progress,
    /// Where checkpoints go and how often (see [`BuildOptions::checkpoint_every`]).
    checkpoints: Option<(&'a Path, Duration)>,
    /// The distance a byte holds for every class decided at it or later, whose distances
    /// are kept apart ([`LONGEST`]; less in tests).
    near: u8,
    /// In tests: fail, as a stop would, right after writing this many checkpoints.
    stop_after: Option<usize>,
}

/// The checkpoints of one pair's solve: when the next is due, and writing it.
struct Checkpointer<'a> {
    run: &'a PairRun<'a>,
    rules: &'a Rules,
    pair: (usize, usize),
    layers: &'a [(usize, usize)],
    last: Instant,
    written: usize,
}

impl Checkpointer<'_> {
    /// When the next checkpoint is due; `None`: never.
    fn due(&self) -> Option<Instant> {
        self.run.checkpoints.map(|(_, every)| self.last + every)
    }

    /// Saves the pair's state, to go on from `at`, and says so through `progress`.
    fn save(
        &mut self,
        at: ResumePoint,
        codes: &[Vec<AtomicU8>],
        progress: Option<&SweepProgress>,
    ) -> Result<()> {
        let Some((dir, _)) = self.run.checkpoints else {
            return Ok(());
        };
        let writing = Instant::now();
        pair_checkpoint::save(dir, self.rules, self.pair, at, codes)?;
        self.last = Instant::now();
        self.written += 1;
        if self.run.progress == Progress::Stderr {
            let (a, b) = self.pair;
            let line = format!(
                "  {a}v{b}: checkpoint {} written in {:.1} s",
                describe(at, self.layers),
                writing.elapsed().as_secs_f64()
            );
            match progress {
                Some(progress) => progress.say(&line),
                None => eprintln!("{line}"),
            }
        }
        if let Some(last) = self.run.stop_after
            && self.written >= last
        {
            bail!(
                "stopped after checkpoint {last} {}, as asked",
                describe(at, self.layers)
            );
        }
        Ok(())
    }

    /// Between two passes: saves the state when a checkpoint is due.
    fn between_passes(&mut self, next: u8, codes: &[Vec<AtomicU8>]) -> Result<()> {
        if self.due().is_some_and(|due| Instant::now() >= due) {
            self.save(ResumePoint::start_of(Pass::Distance(next)), codes, None)?;
        }
        Ok(())
    }
}

/// Where a solve stands, in words: `before distance 4`, `in distance 1 of 5v3 at class
/// 123`.
fn describe(at: ResumePoint, layers: &[(usize, usize)]) -> String {
    let pass = match at.pass {
        Pass::First => "the first pass".to_string(),
        Pass::Distance(distance) if at.slot == 0 && at.entry == 0 => {
            return format!("before distance {distance}");
        }
        Pass::Distance(distance) => format!("distance {distance}"),
    };
    let (x, y) = layers[at.slot];
    format!("in {pass} of {x}v{y} at class {}", at.entry)
}

/// Solves `(a, b)` and `(b, a)` (one layer when `a == b`), given every smaller layer, by
/// retrograde analysis: a first pass decides the positions that must capture or cannot
/// move; then, distance by distance, each newly decided class is passed back to its
/// predecessors by a paika (found by undoing the opponent's step). Resumes from the pair's
/// checkpoint when `run` has a folder and one is there; writes checkpoints as `run` says,
/// between passes and inside them.
fn solve_pair(
    a: usize,
    b: usize,
    smaller: &[Option<SmallerLayer>],
    rules: &Rules,
    run: &PairRun,
) -> Result<SolvedPair> {
    let layers = pair_layers(a, b);
    let classes: Vec<Classes> = layers
        .iter()
        .map(|&layer| Classes::new(rules.board, layer))
        .collect();
    let sizes: Vec<u64> = classes.iter().map(Classes::len).collect();
    let show = run.progress == Progress::Stderr;
    let resumed = match run.checkpoints {
        Some((dir, _)) => match pair_checkpoint::load(dir, rules, (a, b), &sizes) {
            Ok(resumed) => resumed,
            Err(e) => {
                // A damaged checkpoint costs the work it held, not the build.
                eprintln!("{e:#}; solving layer pair {a}v{b} from the start");
                None
            }
        },
        None => None,
    };
    let was_resumed = resumed.is_some();
    let (start, codes) = match resumed {
        Some(resumed) => (resumed.at, resumed.codes),
        None => (
            ResumePoint::start_of(Pass::First),
            sizes
                .iter()
                .map(|&size| {
                    std::iter::repeat_with(|| AtomicU8::new(OPEN))
                        .take(size as usize)
                        .collect()
                })
                .collect(),
        ),
    };
    let solver = PairSolver {
        codes,
        classes,
        layers,
        smaller,
        chain_rule: rules.chain_rule,
        board: rules.board,
    };
    if show && was_resumed {
        eprintln!(
            "  {a}v{b}: resumed from its checkpoint, {}",
            describe(start, &solver.layers)
        );
    }
    let started = Instant::now();
    let mut checkpoints = Checkpointer {
        run,
        rules,
        pair: (a, b),
        layers: &solver.layers,
        last: Instant::now(),
        written: 0,
    };
    // Runs one pass's `work` over the layers from `from` on, pausing for checkpoints.
    let sweep = |from: ResumePoint,
                 checkpoints: &mut Checkpointer,
                 work: &(dyn Fn(usize, std::ops::Range<u64>) + Sync)|
     -> Result<()> {
        for (slot, &(x, y)) in solver.layers.iter().enumerate().skip(from.slot) {
            let size = solver.classes[slot].len();
            let mut entry = if slot == from.slot { from.entry } else { 0 };
            let label = match from.pass {
                Pass::First => format!("{x}v{y} first pass"),
                Pass::Distance(distance) => format!("{x}v{y} distance {distance}"),
            };
            let mut progress = SweepProgress::new(show.then_some(label), entry..size);
            while entry < size {
                entry = parallel_chunks(
                    entry..size,
                    run.threads,
                    checkpoints.due(),
                    &mut progress,
                    &|range| work(slot, range),
                );
                if entry < size {
                    let at = ResumePoint {
                        pass: from.pass,
                        slot,
                        entry,
                    };
                    checkpoints.save(at, &solver.codes, Some(&progress))?;
                }
            }
            progress.finish();
        }
        Ok(())
    };
    // The distance pass to run, and where in it to begin.
    let (mut distance, mut from) = match start.pass {
        Pass::Distance(distance) => (distance, start),
        Pass::First => {
            sweep(start, &mut checkpoints, &|slot, range| {
                solver.classify(slot, range)
            })?;
            if show {
                eprintln!(
                    "  {a}v{b}: captures and blocked positions decided in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
            }
            checkpoints.between_passes(0, &solver.codes)?;
            (0, ResumePoint::start_of(Pass::Distance(0)))
        }
    };
    // A pass decides classes one turn further than it reads. The byte holds distances
    // below `near`; the classes of the longest lines are passed on from a list instead.
    let far = loop {
        if distance + 1 >= run.near {
            break solver.pass_far(distance);
        }
        let passed = AtomicU64::new(solver.passed_before(from, distance));
        sweep(from, &mut checkpoints, &|slot, range| {
            let n = solver.retract(slot, range, distance);
            passed.fetch_add(n, Ordering::Relaxed);
        })?;
        let passed = passed.into_inner();
        if show && passed > 0 {
            eprintln!(
                "  {a}v{b} distance {distance}: {passed} classes ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
        }
        // Distance 0 (no legal turn) may be empty while captures give distance 1; after
        // that an empty distance ends the work, since each comes only from the one before.
        if passed == 0 && distance > 0 {
            break vec![HashMap::new(); solver.layers.len()];
        }
        distance += 1;
        from = ResumePoint::start_of(Pass::Distance(distance));
        checkpoints.between_passes(distance, &solver.codes)?;
    };
    // Classes still open are draws, as their bytes read (see [`value_of_byte`]).
    if show && far.iter().any(|layer| !layer.is_empty()) {
        let longest = far.iter().flat_map(|layer| layer.values()).max();
        eprintln!(
            "  {a}v{b}: {} classes decided past {} turns, the longest at {}",
            far.iter().map(HashMap::len).sum::<usize>(),
            run.near - 1,
            longest.copied().unwrap_or(0)
        );
    }
    Ok(SolvedPair {
        resumed: was_resumed,
        near: run.near,
        layers: solver.classes.into_iter().zip(solver.codes).collect(),
        far,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::index::{index_of, position_of};
    use crate::tablebase::layer_file::table_file_name;
    use crate::tablebase::legacy::write_legacy_layer;
    use crate::tablebase::probe::Tablebase;
    use crate::tablebase::value::{DRAW_CODE, loss_code, win_code};

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("vato-solver-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Every layer up to `stones` solved the slow, plain way, as two-byte codes by layer
    /// index: no symmetry, no retrograde steps, the rules' own turn generator. Round `r`
    /// decides each open position whose value follows from its children's values of at
    /// most `r` turns: a child lost in `r` makes it a win in `r + 1`, children all won
    /// within `r`, one of them in `r`, a loss in `r + 1`.
    fn solved_forward(rules: &Rules, stones: usize) -> Vec<Option<Vec<u16>>> {
        let board = rules.board;
        let mut solved: Vec<Option<Vec<u16>>> = vec![None; slot_of(MAX_STONES, MAX_STONES) + 1];
        let mut turns = Vec::new();
        for n in 2..=stones {
            for (a, b) in layers_with(n).into_iter().filter(|&(a, b)| a >= b) {
                let pair = pair_layers(a, b);
                // Per layer: each position's value once known, and the paika children of
                // the open ones (their indices in the other layer of the pair).
                let mut values: Vec<Vec<Option<Value>>> = Vec::new();
                let mut children: Vec<Vec<(u64, Vec<u64>)>> = Vec::new();
                for &(x, y) in &pair {
                    let mut layer_values = Vec::new();
                    let mut open = Vec::new();
                    for index in 0..layer_size(board, x, y) {
                        let position = position_of(board, x, y, index);
                        generate_turns(&position, rules.chain_rule, &mut turns);
                        let value = if turns.is_empty() {
                            Some(Value::decode(loss_code(0)))
                        } else if has_capture(&position) {
                            let outcomes: Vec<Outcome> = turns
                                .iter()
                                .map(|&turn| {
                                    let child = position.play(turn);
                                    let (us, them) = (child.us(), child.them());
                                    if us.is_empty() {
                                        return Outcome::Loss;
                                    }
                                    let table = solved
                                        [slot_of(us.count() as usize, them.count() as usize)]
                                    .as_ref()
                                    .unwrap();
                                    Value::decode(table[index_of(board, us, them) as usize]).outcome
                                })
                                .collect();
                            Some(Value::decode(if outcomes.contains(&Outcome::Loss) {
                                win_code(1)
                            } else if outcomes.iter().all(|&o| o == Outcome::Win) {
                                loss_code(1)
                            } else {
                                DRAW_CODE
                            }))
                        } else {
                            let targets = turns
                                .iter()
                                .map(|&turn| {
                                    let child = position.play(turn);
                                    index_of(board, child.us(), child.them())
                                })
                                .collect();
                            open.push((index, targets));
                            None
                        };
                        layer_values.push(value);
                    }
                    values.push(layer_values);
                    children.push(open);
                }
                let partner = |slot: usize| if pair.len() == 2 { 1 - slot } else { slot };
                let mut round = 0;
                while round <= 1
                    || values
                        .iter()
                        .flatten()
                        .flatten()
                        .any(|value| u32::from(value.distance) >= round)
                {
                    let known = values.clone();
                    for (slot, open) in children.iter_mut().enumerate() {
                        let other = &known[partner(slot)];
                        open.retain(|(index, targets)| {
                            let child = |&t: &u64| other[t as usize];
                            let lost_now = targets.iter().map(child).any(|v| {
                                v.is_some_and(|v| {
                                    v.outcome == Outcome::Loss && u32::from(v.distance) == round
                                })
                            });
                            let won: Option<Vec<u16>> = targets
                                .iter()
                                .map(child)
                                .map(|v| {
                                    v.filter(|v| {
                                        v.outcome == Outcome::Win && u32::from(v.distance) <= round
                                    })
                                    .map(|v| v.distance)
                                })
                                .collect();
                            let decided = if lost_now {
                                win_code(round as u16 + 1)
                            } else if won.is_some_and(|d| d.contains(&(round as u16))) {
                                loss_code(round as u16 + 1)
                            } else {
                                return true;
                            };
                            values[slot][*index as usize] = Some(Value::decode(decided));
                            false
                        });
                    }
                    round += 1;
                }
                for (&(x, y), layer) in pair.iter().zip(values) {
                    let codes = layer.iter().map(|v| v.unwrap_or(Value::DRAW).code());
                    solved[slot_of(x, y)] = Some(codes.collect());
                }
            }
        }
        solved
    }

    #[test]
    fn the_build_equals_a_plain_solver_and_the_conversion_of_version_2() {
        for board in Board::ALL {
            let rules = Rules {
                board,
                ..Rules::default()
            };
            let solved = solved_forward(&rules, 4);
            let (built, old, converted) = (
                temp_dir(&format!("built-{board}")),
                temp_dir(&format!("old-{board}")),
                temp_dir(&format!("converted-{board}")),
            );
            build(&built, 4, &rules, 2, Progress::Quiet).unwrap();
            let tables = Tablebase::open(&built, rules, 4).unwrap();
            for n in 2..=4 {
                for (a, b) in layers_with(n) {
                    let codes = solved[slot_of(a, b)].as_ref().unwrap();
                    let smaller = SmallerLayer::read(&built, &rules, (a, b)).unwrap().unwrap();
                    // Every position, canonical or not, probes to the plain solver's value,
                    // and the builder reads the outcome back from the files.
                    for (index, &code) in codes.iter().enumerate() {
                        let position = position_of(board, a, b, index as u64);
                        assert_eq!(
                            tables.probe(&position),
                            Some(Value::decode(code)),
                            "{board} {a}v{b} {index}"
                        );
                        assert_eq!(
                            smaller.outcome(position.us(), position.them()),
                            Value::decode(code).outcome
                        );
                    }
                    write_legacy_layer(&old, &rules, a, b, codes).unwrap();
                }
            }
            assert!(tables.take_faults().is_empty());
            // The conversion of the version 2 files writes the same bytes as the build.
            let mut sink = Vec::new();
            crate::tablebase::run_cli(
                crate::tablebase::TablebaseCommand::convert_for_test(&old, &converted, board),
                &mut sink,
            )
            .unwrap();
            assert_eq!(file_names(&built).len(), 2 * 6);
            same_files(&built, &converted);
            for dir in [built, old, converted] {
                fs::remove_dir_all(dir).unwrap();
            }
        }
    }

    /// The names of the files in `dir`, sorted.
    fn file_names(dir: &Path) -> Vec<std::ffi::OsString> {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    }

    /// Asserts that two folders hold the same files, byte for byte.
    fn same_files(one: &Path, other: &Path) {
        let names = file_names(one);
        assert_eq!(names, file_names(other));
        for name in names {
            assert_eq!(
                fs::read(one.join(&name)).unwrap(),
                fs::read(other.join(&name)).unwrap(),
                "{name:?}"
            );
        }
    }

    #[test]
    fn distances_past_the_byte_and_a_stopped_pair_give_the_same_files() {
        for board in Board::ALL {
            let rules = Rules {
                board,
                ..Rules::default()
            };
            let whole = temp_dir(&format!("whole-{board}"));
            build(&whole, 4, &rules, 2, Progress::Quiet).unwrap();
            let plain = PairRun {
                threads: 2,
                progress: Progress::Quiet,
                checkpoints: None,
                near: LONGEST,
                stop_after: None,
            };
            // Every distance from 3 on kept apart from the bytes, as only the longest lines
            // of 8 stones will be (the tables of 4 stones reach 30 turns).
            let short = temp_dir(&format!("short-{board}"));
            build_pairs(&short, 4, &rules, &PairRun { near: 3, ..plain }, None).unwrap();
            same_files(&whole, &short);

            // 2v2 stopped after its n-th checkpoint, one written after every chunk of two
            // and every pass (in the first pass, inside and between distance passes),
            // then resumed from it.
            let stopped = temp_dir(&format!("stopped-{board}"));
            build(&stopped, 4, &rules, 2, Progress::Quiet).unwrap();
            let checkpoint = pair_checkpoint::checkpoint_path(&stopped, board, (2, 2));
            let mut inside_passes = 0;
            // On Tsivy a pass takes four checkpoints (three inside it): 115 stops distance
            // 27 before its last chunk, which has nothing left to pass on.
            for n in [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 115, 1000] {
                for kind in [Kind::Wdl, Kind::Distance] {
                    fs::remove_file(stopped.join(table_file_name(board, kind, 2, 2))).unwrap();
                }
                let stopping = PairRun {
                    checkpoints: Some((&stopped, Duration::ZERO)),
                    stop_after: Some(n),
                    ..plain
                };
                let Err(error) = build_pairs(&stopped, 4, &rules, &stopping, None) else {
                    // Fewer checkpoints than n in all (Dimy's small layers).
                    assert!(n > 13, "{board}: only {n} checkpoints");
                    same_files(&whole, &stopped);
                    break;
                };
                let error = format!("{error:#}");
                assert!(
                    error.contains(&format!("stopped after checkpoint {n}")),
                    "{error}"
                );
                if error.contains(" at class ") {
                    inside_passes += 1;
                }
                assert!(checkpoint.exists());
                let resuming = PairRun {
                    checkpoints: Some((&stopped, Duration::from_secs(3600))),
                    ..plain
                };
                let report = build_pairs(&stopped, 4, &rules, &resuming, None).unwrap();
                assert_eq!(report.resumed, vec![(2, 2)]);
                assert_eq!(report.solved, vec![(2, 2)]);
                assert!(!checkpoint.exists());
                same_files(&whole, &stopped);
            }
            if board == Board::Tsivy {
                assert!(inside_passes >= 4, "{inside_passes} stops inside a pass");
            }
            for dir in [whole, short, stopped] {
                fs::remove_dir_all(dir).unwrap();
            }
        }
    }

    #[test]
    fn a_finished_byte_reads_as_its_value() {
        assert_eq!(value_of_byte(WON | 7), Value::decode(win_code(7)));
        assert_eq!(value_of_byte(LOST), Value::decode(loss_code(0)));
        assert_eq!(value_of_byte(LOST | LONGEST), Value::decode(loss_code(63)));
        assert_eq!(value_of_byte(DRAWN), Value::DRAW);
        assert_eq!(value_of_byte(OPEN | 5), Value::DRAW);
    }
}
