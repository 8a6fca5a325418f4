//! The `vato tablebase` command line: build, probe and stats.

use super::index::{layer_size, layers_with};
use super::probe::{Tablebase, layer_names, missing_layers};
use super::solver::{Progress, build_layers};
use super::stats::layer_stats;
use crate::rules::board::Board;
use crate::rules::fen::parse_position_on;
use crate::rules::{ChainRule, Rules};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// The rules a set of tables is built for, shared by every `vato tablebase` job.
#[derive(Debug, clap::Args)]
pub struct TableRules {
    /// Tables for the variant where a capture chain must go on while it can.
    #[arg(long)]
    mandatory_continuation: bool,
    /// The game: tsivy or dimy (Dimy's files are named `vato-dimy-AvB.vtb`, so both sets
    /// can share a folder).
    #[arg(long, value_name = "GAME", default_value = "tsivy", value_parser = crate::rules::variant::parse_capture_board)]
    variant: Board,
}

impl TableRules {
    /// The rules of the tables: the defaults, with the chain rule and board asked for.
    fn rules(&self) -> Rules {
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
        /// Where the layer files go.
        #[arg(long)]
        dir: PathBuf,
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
    },
    /// Prints a position's value and every legal turn with its value.
    Probe {
        /// The position (5 points a row for dimy).
        #[arg(long)]
        fen: String,
        /// Where the layer files are.
        #[arg(long)]
        dir: PathBuf,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Prints per layer: positions, wins, draws, losses and the longest distance.
    Stats {
        /// Where the layer files are.
        #[arg(long)]
        dir: PathBuf,
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
            | TablebaseCommand::Stats { rules, .. } => rules.rules(),
        }
    }
}

/// A layer pair as `AvB`: stones of the side to move, `v`, stones of the other side.
fn parse_layer_pair(text: &str) -> Result<(usize, usize), String> {
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

/// Runs a `vato tablebase` job, writing its report to `out`.
pub fn run_cli(command: TablebaseCommand, out: &mut impl Write) -> Result<()> {
    let rules = command.rules();
    match command {
        TablebaseCommand::Build {
            stones,
            dir,
            threads,
            layers,
            ..
        } => {
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            let started = Instant::now();
            let report = build_layers(
                &dir,
                stones.into(),
                &rules,
                threads,
                Progress::Stderr,
                layers.as_deref(),
            )?;
            writeln!(
                out,
                "{} layers solved, {} kept, in {:.1} s",
                report.solved.len(),
                report.kept.len(),
                started.elapsed().as_secs_f64()
            )?;
        }
        TablebaseCommand::Probe { fen, dir, .. } => {
            let position = parse_position_on(rules.board, &fen).context("bad --fen")?;
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
            if !dir.is_dir() {
                anyhow::bail!("{}: not a directory", dir.display());
            }
            writeln!(
                out,
                "| stones | layer | positions | wins | draws | losses | longest |"
            )?;
            writeln!(out, "|---|---|---:|---:|---:|---:|---:|")?;
            let mut cumulative = Vec::new();
            let mut total = 0u64;
            let mut largest = 0;
            let mut held = Vec::new();
            for n in 2..=8 {
                for (a, b) in layers_with(n) {
                    total += layer_size(rules.board, a, b);
                    if let Some(s) = layer_stats(&dir, &rules, a, b)? {
                        largest = n;
                        held.push((a, b));
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
            // Totals only as far as tables exist: a row for unbuilt layers would suggest
            // they were there.
            for (n, total) in cumulative.into_iter().filter(|&(n, _)| n <= largest) {
                writeln!(out, "| {n} | {total} |")?;
            }
            writeln!(out)?;
            let missing = missing_layers(&held);
            if held.is_empty() {
                writeln!(out, "no tables in {}", dir.display())?;
            } else if missing.is_empty() {
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
    }
    out.flush()?;
    Ok(())
}
