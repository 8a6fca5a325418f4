//! Endgame tablebases: the exact value of every position with few stones.
//!
//! Positions are counted relative to the side to move: a *layer* `(a, b)` holds every
//! placement of `a` stones of the side to move and `b` stones of the opponent (`a, b >= 1`),
//! so one table serves both colours. A placement's index is the rank of the mover's stones
//! among the `a`-subsets of the 45 points, times `C(45 - a, b)`, plus the rank of the
//! opponent's stones among the `b`-subsets of the remaining points (combinatorial number
//! system), so no slot is wasted.
//!
//! Every position gets a [`Value`]: win, draw or loss for the side to move, and for wins and
//! losses the number of turns to the next capture or the end of the game (a "DTZ"), counted
//! as if there were no repetition rule and no no-capture limit. The winning side reaches a
//! capture (into a smaller, still won layer) or the end by always playing a turn with the
//! smallest distance, so it makes progress and never repeats; the losing side prolongs by
//! playing the largest. When a win's distance plus the turns already played without a
//! capture exceeds the no-capture limit, the win may not be forceable under that limit: the
//! table does not know the counter, so the prober must treat such a win as a possible draw.
//!
//! Layers are solved from few stones to many. A capture always leads to a smaller, solved
//! layer; a paika leads from `(a, b)` to `(b, a)`, so the two are solved together by
//! retrograde analysis: the positions that must capture or cannot move are decided from the
//! smaller layers, then each position decided at distance `n` is passed back, by undoing
//! the opponent's last step, to its predecessors, which are decided at `n + 1`.

use crate::bitboard::Bitboard;
use crate::fen::parse_position;
use crate::geometry::{ADJACENT, NUM_SQUARES};
use crate::movegen::{generate_turns, has_capture, paika_steps};
use crate::notation::spelled_turns;
use crate::position::{Color, Position};
use crate::rules::{ChainRule, Rules};
use crate::turn::Turn;
use anyhow::{Context, Result, bail};
use std::fmt;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The binomial coefficients `C(n, k)` for `n, k <= 45`.
static BINOMIAL: [[u64; NUM_SQUARES + 1]; NUM_SQUARES + 1] = binomial_table();

const fn binomial_table() -> [[u64; NUM_SQUARES + 1]; NUM_SQUARES + 1] {
    let mut table = [[0u64; NUM_SQUARES + 1]; NUM_SQUARES + 1];
    let mut n = 0;
    while n <= NUM_SQUARES {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
}

/// `C(n, k)`, zero when `k > n`.
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n || n > NUM_SQUARES {
        0
    } else {
        BINOMIAL[n][k]
    }
}

/// The number of positions in layer `(a, b)`: `C(45, a) * C(45 - a, b)`.
pub fn layer_size(a: usize, b: usize) -> u64 {
    binomial(NUM_SQUARES, a) * binomial(NUM_SQUARES - a.min(NUM_SQUARES), b)
}

/// Every layer `(a, b)` with `a, b >= 1` and `a + b == stones`, mover's count descending.
pub fn layers_with(stones: usize) -> Vec<(usize, usize)> {
    (1..stones).rev().map(|a| (a, stones - a)).collect()
}

/// The rank of a set among the sets of its size (combinatorial number system).
fn rank_set(bits: u64) -> u64 {
    let mut rank = 0;
    let mut rest = bits;
    let mut i = 1;
    while rest != 0 {
        let p = rest.trailing_zeros() as usize;
        rank += BINOMIAL[p][i];
        rest &= rest - 1;
        i += 1;
    }
    rank
}

/// The set of `k` elements out of `0..n` with the given rank.
fn unrank_set(mut rank: u64, k: usize, n: usize) -> u64 {
    let mut bits = 0u64;
    let mut top = n;
    for i in (1..=k).rev() {
        // The largest p below `top` with C(p, i) <= rank.
        let mut p = top - 1;
        while BINOMIAL[p][i] > rank {
            p -= 1;
        }
        bits |= 1 << p;
        rank -= BINOMIAL[p][i];
        top = p;
    }
    bits
}

/// Squeezes the points of `bits` outside `taken` down to indices among the free points.
fn compress(bits: u64, taken: u64) -> u64 {
    let mut out = 0;
    let mut rest = bits;
    while rest != 0 {
        let p = rest.trailing_zeros();
        let below = taken & ((1u64 << p) - 1);
        out |= 1 << (p - below.count_ones());
        rest &= rest - 1;
    }
    out
}

/// The inverse of [`compress`]: the free point of each compressed index. Each taken point,
/// from the lowest up, opens a gap by moving the bits at and above it up by one (a few
/// shifts per taken point, no branch per board point).
fn expand(bits: u64, taken: u64) -> u64 {
    let mut out = bits;
    let mut rest = taken;
    while rest != 0 {
        let below = (rest & rest.wrapping_neg()) - 1;
        out = (out & below) | ((out & !below) << 1);
        rest &= rest - 1;
    }
    out
}

/// The index of a placement within its layer `(us.count(), them.count())`.
pub fn index_of(us: Bitboard, them: Bitboard) -> u64 {
    let (a, b) = (us.count() as usize, them.count() as usize);
    rank_set(us.bits()) * binomial(NUM_SQUARES - a, b) + rank_set(compress(them.bits(), us.bits()))
}

/// The placement `(us, them)` with index `index` in layer `(a, b)`.
pub fn placement_of(a: usize, b: usize, index: u64) -> (Bitboard, Bitboard) {
    let width = binomial(NUM_SQUARES - a, b);
    let us = unrank_set(index / width, a, NUM_SQUARES);
    let them = expand(unrank_set(index % width, b, NUM_SQUARES - a), us);
    (Bitboard::from_bits(us), Bitboard::from_bits(them))
}

/// The position of layer `(a, b)` with index `index`, White to move, counters at zero.
pub fn position_of(a: usize, b: usize, index: u64) -> Position {
    let (us, them) = placement_of(a, b, index);
    Position::new(us, them, Color::White, 0, 1).expect("a placement never overlaps")
}

/// Win, draw or loss for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The side to move can force a win.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The opponent can force a win.
    Loss,
}

/// A position's value for the side to move: the outcome and, for wins and losses, the turns
/// to the next capture or the end under best play (fastest for the winner, slowest for the
/// loser). A loss with distance 0 has no legal turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// Win, draw or loss.
    pub outcome: Outcome,
    /// Turns to the next capture or the end; 0 for draws.
    pub distance: u16,
}

const WIN_BIT: u16 = 0x8000;
const LOSS_BIT: u16 = 0x4000;
const DISTANCE_MASK: u16 = 0x3fff;
const DRAW_CODE: u16 = 0;

impl Value {
    /// A draw.
    pub const DRAW: Value = Value {
        outcome: Outcome::Draw,
        distance: 0,
    };

    fn decode(code: u16) -> Value {
        let distance = code & DISTANCE_MASK;
        if code & WIN_BIT != 0 {
            Value {
                outcome: Outcome::Win,
                distance,
            }
        } else if code & LOSS_BIT != 0 {
            Value {
                outcome: Outcome::Loss,
                distance,
            }
        } else {
            Value::DRAW
        }
    }

    /// The value of the turn leading to a child with value `self` (the opponent's view),
    /// seen by the side that plays it: a capture resets the distance, a paika adds one.
    pub fn through_turn(self, capture: bool) -> Value {
        let distance = if capture { 1 } else { self.distance + 1 };
        match self.outcome {
            Outcome::Win => Value {
                outcome: Outcome::Loss,
                distance,
            },
            Outcome::Loss => Value {
                outcome: Outcome::Win,
                distance,
            },
            Outcome::Draw => Value::DRAW,
        }
    }

    /// True when the value holds under a no-capture limit of `limit` turns (0: none) in a
    /// position reached `turns_since_capture` turns after the last capture: a draw always,
    /// a win or a loss when its next capture (or the end) comes before the limit draws the
    /// game. The distances know nothing of the limit, so a longer one may be a draw.
    pub fn holds_within(self, turns_since_capture: u32, limit: u32) -> bool {
        self.outcome == Outcome::Draw
            || limit == 0
            || turns_since_capture + u32::from(self.distance) <= limit
    }

    /// An ordering key: larger is better for the side to move (fast wins, slow losses).
    pub fn preference(self) -> i32 {
        match self.outcome {
            Outcome::Win => 100_000 - i32::from(self.distance),
            Outcome::Draw => 0,
            Outcome::Loss => -100_000 + i32::from(self.distance),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Win => write!(f, "win {}", self.distance),
            Outcome::Draw => write!(f, "draw"),
            Outcome::Loss => write!(f, "loss {}", self.distance),
        }
    }
}

fn win_code(distance: u16) -> u16 {
    WIN_BIT | distance
}

fn loss_code(distance: u16) -> u16 {
    LOSS_BIT | distance
}

/// Identifies table files: "VATO TB" and a newline, so a text dump shows what it is.
const MAGIC: [u8; 8] = *b"VATO TB\n";
/// The file format; bump it when the layout or the meaning of a value changes.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 8 + 4 + 4 + 4 + 4 + 8 + 8;

/// The file name of layer `(a, b)`.
pub fn layer_file_name(a: usize, b: usize) -> String {
    format!("vato-{a}v{b}.vtb")
}

/// FNV-1a over the data, enough to catch truncation and bit rot.
fn checksum(data: &[u16]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &v in data {
        for byte in v.to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

fn chain_rule_code(rule: ChainRule) -> u32 {
    match rule {
        ChainRule::Optional => 0,
        ChainRule::Mandatory => 1,
    }
}

/// Writes a layer to `dir`, through a temporary file renamed at the end, so that a build
/// killed half-way never leaves a file that looks finished.
fn write_layer(dir: &Path, rules: &Rules, a: usize, b: usize, data: &[u16]) -> Result<()> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + 2 * data.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&rules.no_capture_limit.to_le_bytes());
    bytes.extend_from_slice(&chain_rule_code(rules.chain_rule).to_le_bytes());
    bytes.extend_from_slice(&[a as u8, b as u8, 0, 0]);
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&checksum(data).to_le_bytes());
    for &v in data {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let path = dir.join(layer_file_name(a, b));
    let partial = path.with_extension("partial");
    fs::write(&partial, &bytes).with_context(|| format!("writing {}", partial.display()))?;
    fs::rename(&partial, &path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

/// Reads and checks layer `(a, b)` from `dir`; `Ok(None)` when the file does not exist.
/// The chain rule must match, since it changes the values; the no-capture limit is
/// recorded but does not (the distances are computed without it).
fn read_layer(dir: &Path, rules: &Rules, a: usize, b: usize) -> Result<Option<Vec<u16>>> {
    let path = dir.join(layer_file_name(a, b));
    let mut file = match fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("opening {}", path.display())),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    let name = path.display();
    if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC {
        bail!("{name}: not a Vato tablebase file");
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let long = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    if word(8) != FORMAT_VERSION {
        bail!(
            "{name}: format version {} (expected {FORMAT_VERSION})",
            word(8)
        );
    }
    if word(16) != chain_rule_code(rules.chain_rule) {
        bail!("{name}: built for another chain rule");
    }
    if (usize::from(bytes[20]), usize::from(bytes[21])) != (a, b) {
        bail!("{name}: holds layer {}v{}", bytes[20], bytes[21]);
    }
    let count = long(24);
    if count != layer_size(a, b) || bytes.len() as u64 != HEADER_LEN as u64 + 2 * count {
        bail!("{name}: wrong size");
    }
    let data: Vec<u16> = bytes[HEADER_LEN..]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    if checksum(&data) != long(32) {
        bail!("{name}: checksum mismatch");
    }
    Ok(Some(data))
}

/// The most stones a layer of the tables can have.
pub const MAX_STONES: usize = 8;

/// A set of solved layers read into memory, probed through shared references so that
/// every search thread can use one copy.
pub struct Tablebase {
    /// Layer `(a, b)` at `a * (MAX_STONES + 1) + b`, when it was found.
    layers: Vec<Option<Vec<u16>>>,
    rules: Rules,
}

fn slot_of(a: usize, b: usize) -> usize {
    a * (MAX_STONES + 1) + b
}

impl Tablebase {
    /// Reads every layer of up to `max_stones` stones found in `dir`, for the given rules.
    /// Missing layers are left out (their positions are not in the tables); a layer that
    /// is damaged or was built for other rules is an error.
    pub fn open(dir: &Path, rules: Rules, max_stones: usize) -> Result<Tablebase> {
        if !dir.is_dir() {
            bail!("{}: not a directory", dir.display());
        }
        let mut layers = vec![None; slot_of(MAX_STONES, MAX_STONES) + 1];
        for n in 2..=max_stones.min(MAX_STONES) {
            for (a, b) in layers_with(n) {
                layers[slot_of(a, b)] = read_layer(dir, &rules, a, b)?;
            }
        }
        Ok(Tablebase { layers, rules })
    }

    /// The layers held, smallest first.
    pub fn layers(&self) -> Vec<(usize, usize)> {
        (2..=MAX_STONES)
            .flat_map(layers_with)
            .filter(|&(a, b)| self.layers[slot_of(a, b)].is_some())
            .collect()
    }

    /// The most stones of any layer held (0 when empty).
    pub fn max_stones(&self) -> usize {
        self.layers().iter().map(|&(a, b)| a + b).max().unwrap_or(0)
    }

    /// The value of `position` for its side to move, or `None` when its layer is not in
    /// the tables (or a side has no stones, which is not a position the tables hold).
    #[inline]
    pub fn probe(&self, position: &Position) -> Option<Value> {
        let (us, them) = (position.us(), position.them());
        let (a, b) = (us.count() as usize, them.count() as usize);
        if a == 0 || b == 0 || a + b > MAX_STONES {
            return None;
        }
        let layer = self.layers[slot_of(a, b)].as_ref()?;
        Some(Value::decode(layer[index_of(us, them) as usize]))
    }

    /// Every legal turn of `position` with its value for the side to move, best first;
    /// `None` when some child is not in the tables.
    pub fn probe_turns(&self, position: &Position) -> Option<Vec<(String, Value)>> {
        let mut out = Vec::new();
        for (text, turn) in spelled_turns(position, self.rules.chain_rule) {
            let child = position.play(turn);
            let value = if child.us().is_empty() {
                Value {
                    outcome: Outcome::Win,
                    distance: 1,
                }
            } else {
                self.probe(&child)?.through_turn(turn.is_capture())
            };
            out.push((text, value));
        }
        out.sort_by_key(|(text, value)| (-value.preference(), text.clone()));
        Some(out)
    }
}

/// Counts of layer `(a, b)` in `dir`, or `None` when it is not built. Reads one layer at a
/// time, so that summing up large tables needs no more memory than their largest layer.
pub fn layer_stats(dir: &Path, rules: &Rules, a: usize, b: usize) -> Result<Option<LayerStats>> {
    Ok(read_layer(dir, rules, a, b)?.map(|data| LayerStats::of(a, b, &data)))
}

/// What one layer holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerStats {
    /// Stones of the side to move.
    pub a: usize,
    /// Stones of the opponent.
    pub b: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// The largest distance of a win or a loss.
    pub longest: u16,
}

impl LayerStats {
    fn of(a: usize, b: usize, data: &[u16]) -> LayerStats {
        let mut stats = LayerStats {
            a,
            b,
            positions: data.len() as u64,
            ..LayerStats::default()
        };
        for &code in data {
            let value = Value::decode(code);
            match value.outcome {
                Outcome::Win => stats.wins += 1,
                Outcome::Draw => stats.draws += 1,
                Outcome::Loss => stats.losses += 1,
            }
            stats.longest = stats.longest.max(value.distance);
        }
        stats
    }
}

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
    if !(2..=8).contains(&stones) {
        bail!("--stones must be between 2 and 8");
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
        .map(|(a, b)| layer_size(a, b))
        .sum();
    let mut done: u64 = 0;
    let started = Instant::now();
    for n in 2..=stones {
        for (a, b) in layers_with(n) {
            if a < b {
                continue; // solved together with (b, a)
            }
            let pair = if a == b {
                vec![(a, b)]
            } else {
                vec![(a, b), (b, a)]
            };
            let existing: Vec<Option<Vec<u16>>> = pair
                .iter()
                .map(|&(x, y)| read_layer(dir, rules, x, y))
                .collect::<Result<_>>()?;
            let size: u64 = pair.iter().map(|&(x, y)| layer_size(x, y)).sum();
            if existing.iter().all(Option::is_some) {
                for (&(x, y), data) in pair.iter().zip(existing) {
                    if n < stones {
                        solved[slot_of(x, y)] = data;
                    }
                    report.kept.push((x, y));
                }
                done += size;
                if progress == Progress::Stderr {
                    eprintln!("layer {a}v{b}: already built, kept");
                }
                continue;
            }
            let layer_started = Instant::now();
            let tables = solve_pair(a, b, &solved, rules, threads, progress)?;
            for (&(x, y), data) in pair.iter().zip(&tables) {
                write_layer(dir, rules, x, y, data)?;
                report.solved.push((x, y));
            }
            if n < stones {
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

/// A pass running longer than this shows a progress line on standard error, renewed as
/// often.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// Runs `work` over `0..size` in chunks on `threads` threads. With a `label`, a pass that
/// runs long shows its progress and the time left on one line of standard error,
/// rewritten in place.
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
        let mut shown = false;
        while let Err(RecvTimeoutError::Timeout) = all_done.recv_timeout(PROGRESS_EVERY) {
            shown = true;
            let done = finished.load(Ordering::Relaxed).clamp(1, size);
            let elapsed = started.elapsed().as_secs_f64();
            eprint!(
                "\r  {label}: {:5.1}% of {size} positions, about {:.0} s left   ",
                100.0 * done as f64 / size as f64,
                elapsed / done as f64 * (size - done) as f64
            );
        }
        if shown {
            eprintln!();
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
            let position = position_of(a, b, index);
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
            match Value::decode(table[index_of(us, them) as usize]).outcome {
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
            let (us, them) = placement_of(a, b, index);
            let empty = !(us | them).bits() & Bitboard::ALL.bits();
            // The opponent moved last: undo each of its possible steps. Predecessors
            // already decided are dropped here, where their reads are independent of each
            // other and overlap in memory; the updates come in a second loop.
            for to in them {
                let mut froms = ADJACENT[to.index()] & empty;
                while froms != 0 {
                    let from = froms & froms.wrapping_neg();
                    froms &= froms - 1;
                    let before = Bitboard::from_bits(them.bits() ^ (1u64 << to.index()) ^ from);
                    let parent = index_of(before, us) as u32;
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
        if layer_size(x, y) > u64::from(u32::MAX) {
            bail!("layer {x}v{y} is too large for this builder");
        }
    }
    let solver = PairSolver {
        codes: layers
            .iter()
            .map(|&(x, y)| {
                (0..layer_size(x, y))
                    .map(|_| AtomicU16::new(UNDECIDED_CODE))
                    .collect()
            })
            .collect(),
        open_paikas: layers
            .iter()
            .map(|&(x, y)| (0..layer_size(x, y)).map(|_| AtomicU8::new(0)).collect())
            .collect(),
        layers,
        smaller,
        chain_rule: rules.chain_rule,
    };
    let started = Instant::now();
    let show = progress == Progress::Stderr;
    for (slot, &(x, y)) in solver.layers.iter().enumerate() {
        let label = format!("{x}v{y} first pass");
        parallel_chunks(
            layer_size(x, y),
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
                layer_size(x, y),
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

/// The `vato tablebase` jobs.
#[derive(Debug, clap::Subcommand)]
pub enum TablebaseCommand {
    /// Solves every position with up to N stones into DIR (finished layers are kept).
    Build {
        /// The most stones on the board, both sides together.
        #[arg(long, value_parser = clap::value_parser!(u8).range(2..=8))]
        stones: u8,
        /// Where the layer files go.
        #[arg(long)]
        dir: PathBuf,
        /// Threads to solve with; default all cores.
        #[arg(long)]
        threads: Option<usize>,
        /// Tables for the variant where a capture chain must go on while it can.
        #[arg(long)]
        mandatory_continuation: bool,
    },
    /// Prints a position's value and every legal turn with its value.
    Probe {
        /// The position.
        #[arg(long)]
        fen: String,
        /// Where the layer files are.
        #[arg(long)]
        dir: PathBuf,
        /// Tables for the variant where a capture chain must go on while it can.
        #[arg(long)]
        mandatory_continuation: bool,
    },
    /// Prints per layer: positions, wins, draws, losses and the longest distance.
    Stats {
        /// Where the layer files are.
        #[arg(long)]
        dir: PathBuf,
        /// Tables for the variant where a capture chain must go on while it can.
        #[arg(long)]
        mandatory_continuation: bool,
    },
}

impl TablebaseCommand {
    /// The rules the job's tables follow: the defaults, or the chain variant asked for.
    fn rules(&self) -> Rules {
        let mandatory = match self {
            TablebaseCommand::Build {
                mandatory_continuation,
                ..
            }
            | TablebaseCommand::Probe {
                mandatory_continuation,
                ..
            }
            | TablebaseCommand::Stats {
                mandatory_continuation,
                ..
            } => *mandatory_continuation,
        };
        Rules {
            chain_rule: ChainRule::mandatory_if(mandatory),
            ..Rules::default()
        }
    }
}

/// Runs a `vato tablebase` job, writing its report to `out`.
pub fn run_cli(command: TablebaseCommand, out: &mut impl Write) -> Result<()> {
    let rules = command.rules();
    match command {
        TablebaseCommand::Build {
            stones,
            dir,
            threads,
            ..
        } => {
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            let started = Instant::now();
            let report = build(&dir, stones.into(), &rules, threads, Progress::Stderr)?;
            writeln!(
                out,
                "{} layers solved, {} kept, in {:.1} s",
                report.solved.len(),
                report.kept.len(),
                started.elapsed().as_secs_f64()
            )?;
        }
        TablebaseCommand::Probe { fen, dir, .. } => {
            let position = parse_position(&fen).context("bad --fen")?;
            let stones = position.occupied().count() as usize;
            let tablebase = Tablebase::open(&dir, rules, stones)?;
            match tablebase.probe(&position) {
                None => writeln!(out, "not in the tables")?,
                Some(value) => {
                    writeln!(out, "value: {value}")?;
                    if let Some(turns) = tablebase.probe_turns(&position) {
                        for (text, value) in turns {
                            writeln!(out, "{text}: {value}")?;
                        }
                    }
                }
            }
        }
        TablebaseCommand::Stats { dir, .. } => {
            writeln!(
                out,
                "| stones | layer | positions | wins | draws | losses | longest |"
            )?;
            writeln!(out, "|---|---|---:|---:|---:|---:|---:|")?;
            let mut cumulative = Vec::new();
            let mut total = 0u64;
            for n in 2..=8 {
                for (a, b) in layers_with(n) {
                    total += layer_size(a, b);
                    if let Some(s) = layer_stats(&dir, &rules, a, b)? {
                        writeln!(
                            out,
                            "| {n} | {a}v{b} | {} | {} | {} | {} | {} |",
                            s.positions, s.wins, s.draws, s.losses, s.longest
                        )?;
                    }
                }
                cumulative.push((n, total));
            }
            writeln!(out)?;
            writeln!(out, "| up to stones | positions |")?;
            writeln!(out, "|---|---:|")?;
            for (n, total) in cumulative {
                writeln!(out, "| {n} | {total} |")?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_up_to_seven_stones_hold_the_published_count() {
        let total: u64 = (2..=7)
            .flat_map(layers_with)
            .map(|(a, b)| layer_size(a, b))
            .sum();
        assert_eq!(total, 6_261_651_660);
    }

    #[test]
    fn ranking_round_trips() {
        for (a, b) in [(1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (4, 3)] {
            let size = layer_size(a, b);
            let step = (size / 5_000).max(1);
            let mut index = 0;
            while index < size {
                let (us, them) = placement_of(a, b, index);
                assert_eq!((us.count() as usize, them.count() as usize), (a, b));
                assert!((us & them).is_empty());
                assert_eq!(index_of(us, them), index);
                index += step;
            }
            let (us, them) = placement_of(a, b, size - 1);
            assert_eq!(index_of(us, them), size - 1);
        }
    }

    #[test]
    fn small_layers_rank_densely() {
        // Every placement of the (2, 1) layer appears exactly once.
        let mut seen = vec![false; layer_size(2, 1) as usize];
        for x in 0..45u64 {
            for y in x + 1..45 {
                for z in 0..45u64 {
                    if z == x || z == y {
                        continue;
                    }
                    let us = Bitboard::from_bits(1 << x | 1 << y);
                    let index = index_of(us, Bitboard::from_bits(1 << z)) as usize;
                    assert!(!seen[index]);
                    seen[index] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
