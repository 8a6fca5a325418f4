//! The `vato tablebase` command line: build, probe, stats, verify, convert, compare and
//! bench.

use super::index::{layer_size, layers_with, position_of};
use super::layer_file::{Kind, layer_built, longest_distance, table_file_name, write_layer};
use super::legacy::read_legacy_layer;
use super::location::{TABLEBASES_VARIABLE, default_dir};
use super::probe::{MAX_STONES, Tablebase, layer_names, missing_layers};
use super::solver::{BuildOptions, CHECKPOINT_EVERY, Progress, build_layers};
use super::stats::layer_stats;
use super::value::Value;
use crate::random::Rng;
use crate::rules::board::Board;
use crate::rules::fen::parse_position_on;
use crate::rules::{ChainRule, Rules};
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The rules of a command-line job on tables, books or proofs: the board and the chain
/// rule (`vato tablebase`, `vato book` and `vato solve` take them alike).
#[derive(Debug, clap::Args)]
pub struct TableRules {
    /// The variant where a capture chain must go on while it can.
    #[arg(long)]
    mandatory_continuation: bool,
    /// The game: tsivy or dimy (Dimy's tables are the files `vato-dimy-AvB...`, so both
    /// sets can share a folder).
    #[arg(long, value_name = "GAME", default_value = "tsivy", value_parser = crate::rules::variant::parse_capture_board)]
    variant: Board,
}

impl TableRules {
    /// The default rules, with the chain rule and board asked for.
    pub fn rules(&self) -> Rules {
        Rules {
            chain_rule: ChainRule::mandatory_if(self.mandatory_continuation),
            board: self.variant,
            ..Rules::default()
        }
    }
}

/// The `vato tablebase` jobs.
#[derive(Debug, clap::Subcommand)]
pub enum TablebaseCommand {
    /// Solves every position with up to N stones into DIR (finished layers are kept).
    Build {
        /// The most stones on the board, both sides together.
        #[arg(long, value_parser = clap::value_parser!(u8).range(2..=8))]
        stones: u8,
        /// Where the layer files go; default the folder every engine looks in (see
        /// `VATO_TABLEBASES`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Threads to solve with; default all cores.
        #[arg(long)]
        threads: Option<usize>,
        #[command(flatten)]
        rules: TableRules,
        /// Build only these layer pairs (`4v3` stands for 4v3 and 3v4, solved together),
        /// comma-separated; every layer with fewer stones must be in DIR already. The pairs
        /// of one stone count can so be built on several machines and collected.
        #[arg(long, value_name = "AvB,...", value_delimiter = ',', value_parser = parse_layer_pair)]
        layers: Option<Vec<(usize, usize)>>,
        /// Seconds between the checkpoints of a pair still being solved (`vato-AvB.vtc` in
        /// DIR, written inside a pass or between two, and removed when the pair is done);
        /// the same command resumes from it after a stop. 0 writes one after every chunk
        /// of classes the threads take.
        #[arg(long, value_name = "SECONDS", default_value_t = CHECKPOINT_EVERY.as_secs())]
        checkpoint_every: u64,
    },
    /// Prints a position's value and every legal turn with its value.
    Probe {
        /// The position (5 points a row for dimy).
        #[arg(long)]
        fen: String,
        /// Where the layer files are; default the engine's folder.
        #[arg(long)]
        dir: Option<PathBuf>,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Prints per layer: positions, wins, draws, losses, the longest distance and the
    /// files' sizes.
    Stats {
        /// Where the layer files are; default the engine's folder.
        #[arg(long)]
        dir: Option<PathBuf>,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Decodes every block of every layer, checks its checksum and every entry as a probe
    /// would read it; names each damaged layer with its first bad block or entry and exits
    /// with an error if there is one.
    Verify {
        /// Where the layer files are; default the engine's folder.
        dir: Option<PathBuf>,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Turns a set of version 2 files (`.vtb`) into version 3 files in another folder
    /// (layers already converted are kept).
    Convert {
        /// The folder of version 2 files.
        from: PathBuf,
        /// Where the version 3 files go.
        to: PathBuf,
        /// Threads to compress with; default all cores.
        #[arg(long)]
        threads: Option<usize>,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Compares random positions of a version 2 set with a version 3 set: every sampled
    /// value must be equal.
    Compare {
        /// The folder of version 2 files.
        old: PathBuf,
        /// The folder of version 3 files.
        new: PathBuf,
        /// Positions sampled in all, spread over the layers both sets hold.
        #[arg(long, default_value_t = 1_000_000)]
        samples: u64,
        /// Seed of the sample.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Random probes of the win/draw/loss files: probes a second, cold (first touch of
    /// each block by this process) and warm (the same positions again).
    Bench {
        /// Where the layer files are; default the engine's folder.
        dir: Option<PathBuf>,
        /// Positions probed.
        #[arg(long, default_value_t = 200_000)]
        probes: u64,
        #[command(flatten)]
        rules: TableRules,
    },
}

impl TablebaseCommand {
    /// The rules the job's tables follow.
    fn rules(&self) -> Rules {
        match self {
            TablebaseCommand::Build { rules, .. }
            | TablebaseCommand::Probe { rules, .. }
            | TablebaseCommand::Stats { rules, .. }
            | TablebaseCommand::Verify { rules, .. }
            | TablebaseCommand::Convert { rules, .. }
            | TablebaseCommand::Compare { rules, .. }
            | TablebaseCommand::Bench { rules, .. } => rules.rules(),
        }
    }
}

#[cfg(test)]
impl TablebaseCommand {
    /// `vato tablebase convert FROM TO [--variant dimy]`.
    pub(super) fn convert_for_test(from: &Path, to: &Path, board: Board) -> TablebaseCommand {
        TablebaseCommand::Convert {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            threads: Some(2),
            rules: TableRules {
                mandatory_continuation: false,
                variant: board,
            },
        }
    }
}

/// A layer pair as `AvB`: stones of the side to move, `v`, stones of the other side.
pub fn parse_layer_pair(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("'{text}' is not a layer pair: write AvB, as 4v3");
    let (a, b) = text.trim().split_once('v').ok_or_else(bad)?;
    let a: usize = a.parse().map_err(|_| bad())?;
    let b: usize = b.parse().map_err(|_| bad())?;
    if a == 0 || b == 0 {
        return Err(format!(
            "layer pair {text}: each side needs at least one stone"
        ));
    }
    Ok((a, b))
}

/// `dir`, or the default folder of the tables when none is given.
fn dir_or_default(dir: Option<PathBuf>) -> Result<PathBuf> {
    dir.or_else(default_dir).with_context(|| {
        format!("no --dir given, and no default folder ({TABLEBASES_VARIABLE} is empty and no home is set)")
    })
}

fn threads_or_all(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    })
}

/// Runs a `vato tablebase` job, writing its report to `out`.
pub fn run_cli(command: TablebaseCommand, out: &mut impl Write) -> Result<()> {
    let rules = command.rules();
    match command {
        TablebaseCommand::Build {
            stones,
            dir,
            threads,
            layers,
            checkpoint_every,
            ..
        } => {
            let dir = dir_or_default(dir)?;
            let started = Instant::now();
            let options = BuildOptions {
                checkpoint_every: Some(Duration::from_secs(checkpoint_every)),
                ..BuildOptions::new(threads_or_all(threads), Progress::Stderr)
            };
            let report = build_layers(&dir, stones.into(), &rules, &options, layers.as_deref())?;
            let resumed = match report.resumed.len() {
                0 => String::new(),
                n => format!(" ({n} pairs resumed from checkpoints)"),
            };
            writeln!(
                out,
                "{} layers solved{resumed}, {} kept, in {:.1} s, in {}",
                report.solved.len(),
                report.kept.len(),
                started.elapsed().as_secs_f64(),
                dir.display()
            )?;
        }
        TablebaseCommand::Probe { fen, dir, .. } => {
            let dir = dir_or_default(dir)?;
            let position = parse_position_on(rules.board, &fen).context("bad --fen")?;
            let stones = position.occupied().count() as usize;
            let tablebase = Tablebase::open(&dir, rules, stones)?;
            for line in tablebase.refused() {
                writeln!(out, "refused: {line}")?;
            }
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
            for line in tablebase.take_faults() {
                writeln!(out, "fault: {line}")?;
            }
        }
        TablebaseCommand::Stats { dir, .. } => stats(&dir_or_default(dir)?, &rules, out)?,
        TablebaseCommand::Verify { dir, .. } => {
            let dir = dir_or_default(dir)?;
            let tablebase = Tablebase::open(&dir, rules, MAX_STONES)?;
            let mut damaged: Vec<String> = tablebase.refused().to_vec();
            damaged.extend(tablebase.verify());
            let held = tablebase.layers();
            for line in &damaged {
                writeln!(out, "damaged: {line}")?;
            }
            if !damaged.is_empty() {
                bail!(
                    "{} of the layers in {} damaged",
                    damaged.len(),
                    dir.display()
                );
            }
            if held.is_empty() {
                bail!("no tables in {}", dir.display());
            }
            writeln!(out, "{} layers, every block and entry verified", held.len())?;
        }
        TablebaseCommand::Convert {
            from, to, threads, ..
        } => convert(&from, &to, &rules, threads_or_all(threads), out)?,
        TablebaseCommand::Compare {
            old,
            new,
            samples,
            seed,
            ..
        } => compare(&old, &new, &rules, samples, seed, out)?,
        TablebaseCommand::Bench { dir, probes, .. } => {
            bench(&dir_or_default(dir)?, &rules, probes, out)?
        }
    }
    out.flush()?;
    Ok(())
}

/// `vato tablebase stats`: a table of the layers, then the totals and whether the set is
/// complete.
fn stats(dir: &Path, rules: &Rules, out: &mut impl Write) -> Result<()> {
    if !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    writeln!(
        out,
        "| stones | layer | positions | wins | draws | losses | longest | wdl bytes | distance bytes |"
    )?;
    writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|")?;
    let mut cumulative = Vec::new();
    let (mut total, mut largest) = (0u64, 0);
    let mut held = Vec::new();
    let size_of = |kind, a, b| -> u64 {
        std::fs::metadata(dir.join(table_file_name(rules.board, kind, a, b))).map_or(0, |m| m.len())
    };
    let (mut wdl_total, mut distance_total) = (0u64, 0u64);
    for n in 2..=MAX_STONES {
        for (a, b) in layers_with(n) {
            total += layer_size(rules.board, a, b);
            if let Some(s) = layer_stats(dir, rules, a, b)? {
                largest = n;
                held.push((a, b));
                let (w, d) = (size_of(Kind::Wdl, a, b), size_of(Kind::Distance, a, b));
                wdl_total += w;
                distance_total += d;
                writeln!(
                    out,
                    "| {n} | {a}v{b} | {} | {} | {} | {} | {} | {w} | {d} |",
                    s.positions, s.wins, s.draws, s.losses, s.longest
                )?;
            }
        }
        cumulative.push((n, total));
    }
    writeln!(out)?;
    writeln!(out, "| up to stones | positions |")?;
    writeln!(out, "|---|---:|")?;
    // Totals only as far as tables exist: a row for unbuilt layers would suggest they
    // were there.
    for (n, total) in cumulative.into_iter().filter(|&(n, _)| n <= largest) {
        writeln!(out, "| {n} | {total} |")?;
    }
    writeln!(out)?;
    let missing = missing_layers(&held);
    if held.is_empty() {
        writeln!(out, "no tables in {}", dir.display())?;
    } else {
        writeln!(
            out,
            "files: {wdl_total} bytes of values, {distance_total} bytes of distances"
        )?;
        if missing.is_empty() {
            writeln!(out, "complete: every layer of up to {largest} stones")?;
        } else {
            writeln!(
                out,
                "incomplete: {} of the layers up to {largest} stones missing: {}",
                missing.len(),
                layer_names(&missing)
            )?;
        }
    }
    Ok(())
}

/// `vato tablebase convert`: every version 2 layer of `from` written as version 3 into
/// `to`, one layer in memory at a time; layers whose files are already in `to` are kept.
fn convert(
    from: &Path,
    to: &Path,
    rules: &Rules,
    threads: usize,
    out: &mut impl Write,
) -> Result<()> {
    if !from.is_dir() {
        bail!("{}: not a directory", from.display());
    }
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let (mut converted, mut kept) = (0, 0);
    for n in 2..=MAX_STONES {
        for (a, b) in layers_with(n) {
            if layer_built(to, rules, a, b)? {
                kept += 1;
                continue;
            }
            let Some(codes) = read_legacy_layer(from, rules, a, b)? else {
                continue;
            };
            let started = Instant::now();
            let value = |index: u64| Value::decode(codes[index as usize]);
            let longest = longest_distance(codes.len() as u64, &value, threads);
            write_layer(to, rules, (a, b), &value, longest, threads)?;
            eprintln!(
                "layer {a}v{b}: converted in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            converted += 1;
        }
    }
    if converted + kept == 0 {
        bail!("no version 2 layers in {}", from.display());
    }
    writeln!(
        out,
        "{converted} layers converted, {kept} kept, into {}",
        to.display()
    )?;
    Ok(())
}

/// `vato tablebase compare`: `samples` random positions, spread over the layers of the
/// version 2 set in `old` in proportion to their sizes, probed in the version 3 set in
/// `new`; an error at the first difference.
fn compare(
    old: &Path,
    new: &Path,
    rules: &Rules,
    samples: u64,
    seed: u64,
    out: &mut impl Write,
) -> Result<()> {
    let tablebase = Tablebase::open(new, *rules, MAX_STONES)?;
    let mut rng = Rng::new(seed);
    let mut layers = Vec::new();
    for n in 2..=MAX_STONES {
        for (a, b) in layers_with(n) {
            if tablebase.layers().contains(&(a, b))
                && std::fs::metadata(old.join(super::legacy::legacy_file_name(rules.board, a, b)))
                    .is_ok()
            {
                layers.push((a, b));
            }
        }
    }
    if layers.is_empty() {
        bail!(
            "no layer is in both {} and {}",
            old.display(),
            new.display()
        );
    }
    let total: u64 = layers
        .iter()
        .map(|&(a, b)| layer_size(rules.board, a, b))
        .sum();
    let mut compared = 0u64;
    for &(a, b) in &layers {
        let size = layer_size(rules.board, a, b);
        let codes = read_legacy_layer(old, rules, a, b)?.expect("listed above");
        let count = (samples as u128 * size as u128 / total as u128).max(1) as u64;
        for _ in 0..count {
            let index = rng.below(size);
            let position = position_of(rules.board, a, b, index);
            let expected = Value::decode(codes[index as usize]);
            let found = tablebase.probe(&position);
            if found != Some(expected) {
                bail!(
                    "layer {a}v{b}, index {index}: version 2 says {expected}, version 3 {}",
                    found.map_or("nothing".to_string(), |v| v.to_string())
                );
            }
        }
        compared += count;
        writeln!(out, "layer {a}v{b}: {count} positions equal")?;
    }
    writeln!(out, "{compared} positions in {} layers equal", layers.len())?;
    Ok(())
}

/// `vato tablebase bench`: random positions of the layers held, probed twice.
fn bench(dir: &Path, rules: &Rules, probes: u64, out: &mut impl Write) -> Result<()> {
    let opened = Instant::now();
    let tablebase = Tablebase::open(dir, *rules, MAX_STONES)?;
    let open_time = opened.elapsed();
    let layers = tablebase.layers();
    if layers.is_empty() {
        bail!("no tables in {}", dir.display());
    }
    let mut rng = Rng::new(7);
    let positions: Vec<_> = (0..probes)
        .map(|_| {
            let (a, b) = layers[rng.below(layers.len() as u64) as usize];
            position_of(rules.board, a, b, rng.below(layer_size(rules.board, a, b)))
        })
        .collect();
    writeln!(
        out,
        "opened {} layers in {:.1} ms",
        layers.len(),
        open_time.as_secs_f64() * 1000.0
    )?;
    for pass in ["cold", "warm"] {
        let started = Instant::now();
        let found = positions
            .iter()
            .filter(|p| tablebase.probe_outcome(p).is_some())
            .count();
        let seconds = started.elapsed().as_secs_f64();
        writeln!(
            out,
            "{pass}: {found} of {} probes answered, {:.0} probes a second",
            positions.len(),
            positions.len() as f64 / seconds
        )?;
    }
    for line in tablebase.take_faults() {
        writeln!(out, "fault: {line}")?;
    }
    Ok(())
}
