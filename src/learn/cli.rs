//! The command lines of `vato datagen` and `vato train`.

use super::datagen::{DatagenConfig, run};
use crate::engine::search::{Limits, SearchConfig};
use crate::rules::Rules;
use crate::shard::Shard;
use crate::tablebase::Tablebase;
use anyhow::{Result, bail};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// `vato datagen` options.
#[derive(Debug, Args)]
pub struct DatagenArgs {
    /// The data file to write (through FILE.partial, renamed when complete).
    #[arg(long, short)]
    pub output: PathBuf,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Search depth per turn.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Search nodes per turn.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Random turns of each opening (balanced openings, as `vato match --random-openings`).
    #[arg(long, default_value_t = 8)]
    pub opening_turns: u32,
    /// Turns after the opening whose positions are not recorded.
    #[arg(long, default_value_t = 4)]
    pub skip_turns: usize,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Seed of the openings: the same seed and settings give the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Endgame tables: positions inside them are labelled with their exact value.
    #[arg(long, value_name = "DIR")]
    pub tablebase_path: Option<PathBuf>,
    /// Evaluate with this network instead of the built-in one.
    #[arg(long, value_name = "FILE", conflicts_with = "hand_written")]
    pub eval_file: Option<PathBuf>,
    /// Evaluate by the hand-written terms instead of a network.
    #[arg(long)]
    pub hand_written: bool,
    /// Play only shard K of N of the run's --games games (every N-th game, from the K-th):
    /// the N shards' files, joined, hold exactly the records of the unsharded run.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
}

/// Runs `vato datagen`.
pub fn run_datagen(args: DatagenArgs, out: &mut impl Write) -> Result<()> {
    if args.depth.is_none() && args.nodes.is_none() {
        bail!("give a search budget per turn: --depth N, --nodes N or both");
    }
    let tablebase = match &args.tablebase_path {
        Some(dir) => Some(Arc::new(Tablebase::open(
            dir,
            Rules::default(),
            usize::MAX,
        )?)),
        None => None,
    };
    let network = crate::engine::nnue::chosen(args.hand_written, args.eval_file.as_deref())?;
    let config = DatagenConfig {
        network,
        output: args.output,
        games: args.games,
        limits: Limits {
            depth: args.depth,
            nodes: args.nodes,
            ..Limits::default()
        },
        opening_turns: args.opening_turns,
        skip_turns: args.skip_turns,
        threads: args.threads.into(),
        seed: args.seed,
        tablebase,
        search: SearchConfig::default(),
        shard: args.shard.unwrap_or(Shard::WHOLE),
    };
    let stop = crate::progress::stop_on_ctrl_c("writing the finished games")?;
    let summary = run(&config, &stop)?;
    writeln!(
        out,
        "{} games (+{} ={} -{} for white), {} positions ({} labelled by the tables) in {}{}",
        summary.games,
        summary.white_wins,
        summary.draws,
        summary.black_wins,
        summary.positions,
        summary.tablebase_labels,
        config.output.display(),
        if summary.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    )?;
    Ok(())
}

/// `vato train` options.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Data files written by `vato datagen` (or joined with `cat`).
    #[arg(required = true, value_name = "DATA")]
    pub data: Vec<PathBuf>,
    /// The network file to write.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Passes over the data.
    #[arg(long, default_value_t = 20)]
    pub epochs: u32,
    /// Positions per step.
    #[arg(long, default_value_t = 16_384)]
    pub batch: usize,
    /// Adam's step size (a tenth of it over the last quarter of the epochs).
    #[arg(long, default_value_t = 1e-3)]
    pub learning_rate: f32,
    /// Weight of the search's score in the target, the rest being the game's result.
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f32,
    /// Share of the positions held out to measure the validation loss.
    #[arg(long, default_value_t = 0.02)]
    pub validation: f64,
    /// Threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Seed of the initial weights, the split and the order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Do not mirror positions by the board's symmetries.
    #[arg(long)]
    pub no_augment: bool,
    /// Go on from OUTPUT.checkpoint, written after every epoch, instead of starting anew.
    #[arg(long)]
    pub resume: bool,
    /// Add a second layer of 16 clipped values between the accumulator and the output.
    #[arg(long)]
    pub second_layer: bool,
}

/// Runs `vato train`.
pub fn run_train(args: TrainArgs, out: &mut impl Write) -> Result<()> {
    use super::train::{TrainConfig, train};
    if !(0.0..=1.0).contains(&args.lambda) {
        bail!("--lambda must be between 0 and 1");
    }
    if !(0.0..0.5).contains(&args.validation) {
        bail!("--validation must be at least 0 and below 0.5");
    }
    let mut checkpoint = args.output.as_os_str().to_owned();
    checkpoint.push(".checkpoint");
    let checkpoint = PathBuf::from(checkpoint);
    if !args.resume && checkpoint.exists() {
        std::fs::remove_file(&checkpoint)?;
    }
    let records = super::data::read_files(&args.data)?;
    let config = TrainConfig {
        epochs: args.epochs,
        batch: args.batch.max(1),
        learning_rate: args.learning_rate,
        drop_epoch: None,
        lambda: args.lambda,
        validation: args.validation,
        threads: args.threads.into(),
        seed: args.seed,
        augment: !args.no_augment,
        second_layer: args.second_layer,
        checkpoint: Some(checkpoint),
        verbose: true,
    };
    let names: Vec<String> = args
        .data
        .iter()
        .map(|p| {
            p.file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned())
        })
        .collect();
    let description = format!(
        "{} positions from {}; {} epochs, batch {}, rate {}, lambda {}, seed {}{}",
        records.len(),
        names.join(" "),
        args.epochs,
        config.batch,
        config.learning_rate,
        config.lambda,
        config.seed,
        if config.augment { ", mirrored" } else { "" }
    ) + if config.second_layer {
        ", second layer"
    } else {
        ""
    };
    let trained = train(&records, &config, &description)?;
    trained.network.save(&args.output)?;
    writeln!(
        out,
        "wrote {}: validation loss {:.5} (from {:.5}), {}",
        args.output.display(),
        trained.network.summary().validation_loss,
        trained.initial_validation_loss,
        description
    )?;
    Ok(())
}
