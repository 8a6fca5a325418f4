//! Solving layer pairs by retrograde analysis, in parallel over both cores.

use super::index::{index_of, layer_size, layers_with, placement_of, position_of};
use super::layer_file::{layer_built, write_layer};
use super::probe::{MAX_STONES, layer_names, read_layer_codes, slot_of};
use super::value::{
    DISTANCE_MASK, DRAW_CODE, LOSS_BIT, Outcome, Value, WIN_BIT, loss_code, win_code,
};
use crate::progress::{JobProgress, PLAIN_EVERY};
use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::geometry::ADJACENT;
use crate::rules::movegen::{generate_turns, has_capture, paika_steps};
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use crate::rules::{ChainRule, Rules};
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU64, Ordering};
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
    build_layers(dir, stones, rules, threads, progress, None)
}

/// [`build`], limited to the layer pairs in `only` when given: a pair `(a, b)` (either
/// order) stands for the layers `a`v`b` and `b`v`a`, which are solved together. Every
/// layer with fewer stones than a pair to be solved must already be in `dir`, so that the
/// pairs of one stone count can be built on different machines and collected.
pub fn build_layers(
    dir: &Path,
    stones: usize,
    rules: &Rules,
    threads: usize,
    progress: Progress,
    only: Option<&[(usize, usize)]>,
) -> Result<BuildReport> {
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
    let mut solved: Vec<Option<Vec<u16>>> = vec![None; slot_of(MAX_STONES, MAX_STONES) + 1];
    let mut report = BuildReport {
        solved: Vec::new(),
        kept: Vec::new(),
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
            let pair = if a == b {
                vec![(a, b)]
            } else {
                vec![(a, b), (b, a)]
            };
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
                        solved[slot_of(x, y)] = read_layer_codes(dir, rules, (x, y), threads)?;
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
            let tables = solve_pair(a, b, &solved, rules, threads, progress)?;
            for (&(x, y), data) in pair.iter().zip(&tables) {
                write_layer(
                    dir,
                    rules,
                    (x, y),
                    &|index| Value::decode(data[index as usize]),
                    threads,
                )?;
                report.solved.push((x, y));
            }
            if n < largest_wanted {
                for (&(x, y), data) in pair.iter().zip(tables) {
                    solved[slot_of(x, y)] = Some(data);
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

/// The code of a position not decided yet while a pair is solved: a position without a
/// capture whose paikas do not all have known values. Both outcome bits set, so it is never
/// a finished value; positions still undecided at the end are draws.
const UNDECIDED_CODE: u16 = WIN_BIT | LOSS_BIT;

/// Positions a solver thread takes at a time: large enough to make the hand-out cheap,
/// small enough to keep both cores busy to the end of a pass.
const CHUNK: u64 = 1 << 15;

/// Predecessors gathered before they are credited (see [`PairSolver::retract`]).
const RETRACT_BATCH: usize = 1024;

/// A pass running longer than this shows its progress on standard error.
const PROGRESS_AFTER: Duration = Duration::from_secs(2);

/// How often the progress of a pass is updated once it shows.
const PROGRESS_TICK: Duration = Duration::from_millis(200);

/// Runs `work` over `0..size` in chunks on `threads` threads. With a `label`, a pass that
/// runs long shows its progress and the time left on standard error (see
/// [`JobProgress`]).
fn parallel_chunks(
    size: u64,
    threads: usize,
    label: Option<&str>,
    work: impl Fn(std::ops::Range<u64>) + Sync,
) {
    let next = AtomicU64::new(0);
    let finished = AtomicU64::new(0);
    let started = Instant::now();
    // The workers never send: the channel closes when the last of them ends, which wakes
    // the progress loop at once instead of at its next tick.
    let (running, all_done) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let running = running.clone();
            let (next, finished, work) = (&next, &finished, &work);
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
                }
            });
        }
        drop(running);
        let Some(label) = label else { return };
        let mut progress: Option<JobProgress> = None;
        while let Err(RecvTimeoutError::Timeout) = all_done.recv_timeout(PROGRESS_TICK) {
            if progress.is_none() && started.elapsed() >= PROGRESS_AFTER {
                progress = Some(JobProgress::new(
                    label,
                    size,
                    "positions",
                    Some(PLAIN_EVERY),
                ));
            }
            if let Some(progress) = progress.as_mut() {
                progress.set(finished.load(Ordering::Relaxed));
            }
        }
        if let Some(progress) = progress {
            progress.finish();
        }
    });
}

/// The state of a pair of layers being solved, shared by the solver threads.
struct PairSolver<'a> {
    /// The layers: `(a, b)`, and `(b, a)` unless `a == b`.
    layers: Vec<(usize, usize)>,
    /// Per layer, each position's code ([`UNDECIDED_CODE`] until decided).
    codes: Vec<Vec<AtomicU16>>,
    /// Per layer, for undecided positions: their paikas whose value is not yet known to be
    /// a win for the opponent. When it reaches zero, every paika loses.
    open_paikas: Vec<Vec<AtomicU8>>,
    /// The solved layers with fewer stones, where every capture leads.
    /// By `slot_of`.
    smaller: &'a [Option<Vec<u16>>],
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
    fn classify(&self, slot: usize, range: std::ops::Range<u64>) {
        let (a, b) = self.layers[slot];
        let mut turns = Vec::new();
        for index in range {
            let position = position_of(self.board, a, b, index);
            let cell = &self.codes[slot][index as usize];
            if has_capture(&position) {
                cell.store(self.capture_code(&position, &mut turns), Ordering::Relaxed);
            } else {
                let paikas = paika_steps(position.us(), position.empty());
                if paikas == 0 {
                    cell.store(loss_code(0), Ordering::Relaxed);
                } else {
                    let paikas = u8::try_from(paikas).expect("at most 8 paikas per stone");
                    self.open_paikas[slot][index as usize].store(paikas, Ordering::Relaxed);
                }
            }
        }
    }

    /// The code of a position that must capture, from the values of its children.
    fn capture_code(&self, position: &Position, turns: &mut Vec<Turn>) -> u16 {
        generate_turns(position, self.chain_rule, turns);
        let mut all_lost = true;
        for &turn in turns.iter() {
            let child = position.play(turn);
            let (us, them) = (child.us(), child.them());
            if us.is_empty() {
                return win_code(1);
            }
            let table = self.smaller[slot_of(us.count() as usize, them.count() as usize)]
                .as_ref()
                .expect("smaller layers are solved first");
            match Value::decode(table[index_of(self.board, us, them) as usize]).outcome {
                Outcome::Loss => return win_code(1),
                Outcome::Draw => all_lost = false,
                Outcome::Win => {}
            }
        }
        if all_lost { loss_code(1) } else { DRAW_CODE }
    }

    /// Passes on the positions of `slot` decided at `distance` to their predecessors by a
    /// paika: a predecessor of a loss wins at `distance + 1`; a predecessor whose last open
    /// paika leads to a win loses at `distance + 1`. Returns how many positions were passed.
    ///
    /// Mandatory capture holds because only undecided positions are touched: a position
    /// with a capture was decided in the first pass, so no paika is ever credited to it.
    fn retract(&self, slot: usize, range: std::ops::Range<u64>, distance: u16) -> u64 {
        let (a, b) = self.layers[slot];
        let partner = self.partner(slot);
        let (lost, won) = (loss_code(distance), win_code(distance));
        let mut passed = 0;
        let mut batch = Vec::with_capacity(RETRACT_BATCH + 64);
        for index in range {
            let code = self.codes[slot][index as usize].load(Ordering::Relaxed);
            if code != lost && code != won {
                continue;
            }
            passed += 1;
            let (us, them) = placement_of(self.board, a, b, index);
            let empty = !(us | them).bits() & self.board.points().bits();
            // The opponent moved last: undo each of its possible steps. Predecessors
            // already decided are dropped here, where their reads are independent of each
            // other and overlap in memory; the updates come in a second loop.
            for to in them {
                let mut froms = ADJACENT[to.index()] & empty;
                while froms != 0 {
                    let from = froms & froms.wrapping_neg();
                    froms &= froms - 1;
                    let before = Bitboard::from_bits(them.bits() ^ (1u64 << to.index()) ^ from);
                    let parent = index_of(self.board, before, us) as u32;
                    if self.codes[partner][parent as usize].load(Ordering::Relaxed)
                        == UNDECIDED_CODE
                    {
                        batch.push((parent, code == lost));
                    }
                }
            }
            if batch.len() >= RETRACT_BATCH {
                self.credit(partner, &batch, distance);
                batch.clear();
            }
        }
        self.credit(partner, &batch, distance);
        passed
    }

    /// Credits each predecessor in `batch` (in layer `slot`) with a child decided at
    /// `distance`: a lost child (flag set) makes it a win, the last won child a loss.
    fn credit(&self, slot: usize, batch: &[(u32, bool)], distance: u16) {
        for &(parent, child_lost) in batch {
            let parent = parent as usize;
            let cell = &self.codes[slot][parent];
            if cell.load(Ordering::Relaxed) != UNDECIDED_CODE {
                continue;
            }
            let decided = if child_lost {
                win_code(distance + 1)
            } else if self.open_paikas[slot][parent].fetch_sub(1, Ordering::Relaxed) == 1 {
                loss_code(distance + 1)
            } else {
                continue;
            };
            // Another thread may have decided it in the meantime (a win found through
            // another child); the first decision stands.
            let _ = cell.compare_exchange(
                UNDECIDED_CODE,
                decided,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
    }
}

/// Solves `(a, b)` and `(b, a)` (one layer when `a == b`), given every smaller layer, by
/// retrograde analysis: a first pass decides the positions that must capture or cannot
/// move; then, distance by distance, each newly decided position is passed back to its
/// predecessors by a paika (found by undoing the opponent's step).
fn solve_pair(
    a: usize,
    b: usize,
    smaller: &[Option<Vec<u16>>],
    rules: &Rules,
    threads: usize,
    progress: Progress,
) -> Result<Vec<Vec<u16>>> {
    let layers: Vec<(usize, usize)> = if a == b {
        vec![(a, b)]
    } else {
        vec![(a, b), (b, a)]
    };
    for &(x, y) in &layers {
        if layer_size(rules.board, x, y) > u64::from(u32::MAX) {
            bail!("layer {x}v{y} is too large for this builder");
        }
    }
    let solver = PairSolver {
        codes: layers
            .iter()
            .map(|&(x, y)| {
                (0..layer_size(rules.board, x, y))
                    .map(|_| AtomicU16::new(UNDECIDED_CODE))
                    .collect()
            })
            .collect(),
        open_paikas: layers
            .iter()
            .map(|&(x, y)| {
                (0..layer_size(rules.board, x, y))
                    .map(|_| AtomicU8::new(0))
                    .collect()
            })
            .collect(),
        layers,
        smaller,
        chain_rule: rules.chain_rule,
        board: rules.board,
    };
    let started = Instant::now();
    let show = progress == Progress::Stderr;
    for (slot, &(x, y)) in solver.layers.iter().enumerate() {
        let label = format!("{x}v{y} first pass");
        parallel_chunks(
            layer_size(rules.board, x, y),
            threads,
            show.then_some(&*label),
            |range| solver.classify(slot, range),
        );
    }
    if progress == Progress::Stderr {
        eprintln!(
            "  {a}v{b}: captures and blocked positions decided in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    let mut distance: u16 = 0;
    loop {
        let passed = AtomicU64::new(0);
        for (slot, &(x, y)) in solver.layers.iter().enumerate() {
            let label = format!("{x}v{y} distance {distance}");
            parallel_chunks(
                layer_size(rules.board, x, y),
                threads,
                show.then_some(&*label),
                |range| {
                    let n = solver.retract(slot, range, distance);
                    passed.fetch_add(n, Ordering::Relaxed);
                },
            );
        }
        let passed = passed.into_inner();
        if progress == Progress::Stderr && passed > 0 {
            eprintln!(
                "  {a}v{b} distance {distance}: {passed} positions ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
        }
        // Distance 0 (no legal turn) may be empty while captures give distance 1; after
        // that an empty distance ends the work, since each comes only from the one before.
        if passed == 0 && distance > 0 {
            break;
        }
        if distance + 1 == DISTANCE_MASK {
            bail!("distances beyond {DISTANCE_MASK} turns do not fit the format");
        }
        distance += 1;
    }
    Ok(solver
        .codes
        .into_iter()
        .map(|layer| {
            layer
                .into_iter()
                .map(|cell| match cell.into_inner() {
                    UNDECIDED_CODE => DRAW_CODE,
                    code => code,
                })
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::legacy::write_legacy_layer;
    use crate::tablebase::probe::Tablebase;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("vato-solver-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Every layer up to `stones` solved in memory, as version 2 files stored them.
    fn solved_in_memory(rules: &Rules, stones: usize) -> Vec<Option<Vec<u16>>> {
        let mut solved: Vec<Option<Vec<u16>>> = vec![None; slot_of(MAX_STONES, MAX_STONES) + 1];
        for n in 2..=stones {
            for (a, b) in layers_with(n).into_iter().filter(|&(a, b)| a >= b) {
                let tables = solve_pair(a, b, &solved, rules, 2, Progress::Quiet).unwrap();
                let pair = if a == b {
                    vec![(a, b)]
                } else {
                    vec![(a, b), (b, a)]
                };
                for (&(x, y), data) in pair.iter().zip(tables) {
                    solved[slot_of(x, y)] = Some(data);
                }
            }
        }
        solved
    }

    #[test]
    fn version_3_files_hold_every_value_of_the_solver_and_convert_from_version_2() {
        for board in Board::ALL {
            let rules = Rules {
                board,
                ..Rules::default()
            };
            let solved = solved_in_memory(&rules, 4);
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
                    // Every position, canonical or not, probes to the solver's value.
                    for (index, &code) in codes.iter().enumerate() {
                        let position = position_of(board, a, b, index as u64);
                        assert_eq!(
                            tables.probe(&position),
                            Some(Value::decode(code)),
                            "{board} {a}v{b} {index}"
                        );
                    }
                    // The solver reads its smaller layers back unchanged.
                    assert_eq!(
                        read_layer_codes(&built, &rules, (a, b), 2)
                            .unwrap()
                            .as_ref(),
                        Some(codes)
                    );
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
            let mut names: Vec<_> = fs::read_dir(&built)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            assert_eq!(names.len(), 2 * 6, "{names:?}");
            for name in names {
                assert_eq!(
                    fs::read(built.join(&name)).unwrap(),
                    fs::read(converted.join(&name)).unwrap(),
                    "{name:?}"
                );
            }
            for dir in [built, old, converted] {
                fs::remove_dir_all(dir).unwrap();
            }
        }
    }
}
