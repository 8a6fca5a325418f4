//! The command line: `vato` alone speaks the engine protocol; subcommands run batch jobs.

use crate::rules::ChainRule;
use crate::rules::fen::parse_position;
use crate::rules::perft::perft_report;
use crate::rules::position::Position;
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::time::Instant;

/// Vato, a Fanorona engine. Without a subcommand it reads protocol commands on standard input.
#[derive(Debug, Parser)]
#[command(name = "vato", version, about)]
pub struct Cli {
    /// Diagnostics on standard error: error, warn, info, debug or trace (or set RUST_LOG,
    /// which also takes per-module directives).
    #[arg(
        long,
        global = true,
        value_name = "LEVEL",
        value_parser = ["off", "error", "warn", "info", "debug", "trace"]
    )]
    pub log_level: Option<String>,

    /// Directory of endgame tables for the protocol session (the `TablebasePath` option).
    #[arg(long, value_name = "DIR")]
    pub tablebase_path: Option<String>,

    /// The batch job to run; none starts the protocol session.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Batch jobs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Counts the positions reached after DEPTH turns (the move generator's self-test).
    Perft {
        /// Number of turns (plies), at most 20.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=crate::rules::perft::MAX_PERFT_DEPTH as i64))]
        depth: u32,
        /// Start position as a position string; default the start of the game.
        #[arg(long)]
        fen: Option<String>,
        /// One line per legal turn with the count below it.
        #[arg(long)]
        divide: bool,
        /// Play the variant where a capturing stone must go on while it can capture.
        #[arg(long)]
        mandatory_continuation: bool,
        /// Threads to count with.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
    },
    /// Searches the built-in positions at a fixed depth; the node count is the search's
    /// signature.
    Bench {
        /// Depth of each search.
        #[arg(long, default_value_t = crate::engine::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Evaluate by hand-written terms instead of the built-in network.
        #[arg(long)]
        hand_written: bool,
        /// Evaluate with this network instead of the built-in one.
        #[arg(long, value_name = "FILE", conflicts_with = "hand_written")]
        eval_file: Option<std::path::PathBuf>,
        /// The game whose positions are searched: tsivy or dimy (dimy is always evaluated
        /// by the hand-written terms, the network knowing Tsivy only).
        #[arg(long, value_name = "GAME", default_value = "tsivy", value_parser = crate::rules::variant::parse_capture_board)]
        variant: crate::rules::board::Board,
        /// Probe the endgame tables in DIR below the root, to measure what they cost (the
        /// node count is then no signature).
        #[arg(long, value_name = "DIR")]
        tables: Option<std::path::PathBuf>,
        /// With --tables, compare instead: N rounds, each searching the positions without
        /// the tables and then with them; prints each round's nodes a second and the
        /// medians (the first round is the cold one).
        #[arg(long, value_name = "N", requires = "tables", value_parser = clap::value_parser!(u16).range(1..=1000))]
        compare: Option<u16>,
    },
    /// Plays engines against each other, refereed by Vato's rules.
    ///
    /// Round robin, gauntlet or head-to-head in colour-swapped pairs from the same
    /// opening, with Elo, LOS, pentanomial counts, SPRT and game records. Every `bestmove`
    /// is checked; illegal moves, time forfeits, crashes and stalls lose the game.
    Match(Box<crate::runner::MatchArgs>),
    /// Tunes an engine's spin options (such as the Search... options) by SPSA self-play.
    ///
    /// Each iteration plays a colour-swapped pair between the engine with every option
    /// pushed by a random sign and the engine pushed the other way, and moves the options
    /// toward the better side. Resumable from its log.
    Tune(Box<crate::runner::tune::TuneArgs>),
    /// Builds, probes and summarises the endgame tablebases.
    Tablebase {
        /// What to do with the tables.
        #[command(subcommand)]
        action: crate::tablebase::TablebaseCommand,
    },
    /// Proves a position won, drawn or lost for its side to move, by proof-number search
    /// with the endgame tables as leaves (no no-capture limit; a repetition is a draw).
    Solve(Box<crate::solve::SolveArgs>),
    /// Builds, converts and joins opening books.
    Book {
        /// What to do with the books.
        #[command(subcommand)]
        action: crate::book::BookCommand,
    },
    /// Plays self-play games and writes their quiet positions, scored, as training data.
    Datagen(crate::learn::cli::DatagenArgs),
    /// Trains an evaluation network on data files from `datagen`.
    Train(crate::learn::cli::TrainArgs),
}

/// Runs a batch job, writing its report to `out`.
pub fn run_command(command: Command, out: &mut impl Write) -> Result<()> {
    match command {
        Command::Perft {
            depth,
            fen,
            divide,
            mandatory_continuation,
            threads,
        } => {
            let position = match fen {
                Some(text) => parse_position(&text).context("bad --fen")?,
                None => Position::start(),
            };
            let chain_rule = ChainRule::mandatory_if(mandatory_continuation);
            let started = Instant::now();
            let never = std::sync::atomic::AtomicBool::new(false);
            let (report, leaves) =
                perft_report(&position, depth, divide, chain_rule, threads.into(), &never)
                    .expect("a perft that is never stopped completes");
            let seconds = started.elapsed().as_secs_f64();
            out.write_all(report.as_bytes())?;
            out.flush()?;
            eprintln!(
                "perft {depth}: {leaves} leaves in {:.3} s, {:.0} leaves/s",
                seconds,
                leaves as f64 / seconds.max(1e-9)
            );
            Ok(())
        }
        Command::Bench {
            depth,
            hand_written,
            eval_file,
            variant,
            tables,
            compare,
        } => {
            let tsivy = variant == crate::rules::board::Board::Tsivy;
            let network = if tsivy {
                crate::engine::nnue::chosen(hand_written, eval_file.as_deref())?
            } else {
                None
            };
            let lines = match tables {
                None => crate::engine::bench::run(Some(depth), variant, network),
                Some(dir) => {
                    let rules = crate::rules::Rules {
                        board: variant,
                        ..crate::rules::Rules::default()
                    };
                    let tables = crate::tablebase::Tablebase::open(
                        &dir,
                        rules,
                        crate::tablebase::MAX_STONES,
                    )?;
                    if tables.layers().is_empty() {
                        anyhow::bail!("no tables in {}", dir.display());
                    }
                    let tables = std::sync::Arc::new(tables);
                    match compare {
                        Some(rounds) => crate::engine::bench::compare_tables(
                            Some(depth),
                            variant,
                            network,
                            tables,
                            rounds.into(),
                        ),
                        None => crate::engine::bench::run_with_tables(
                            Some(depth),
                            variant,
                            network,
                            tables,
                        ),
                    }
                }
            };
            for line in lines {
                writeln!(out, "{line}")?;
            }
            out.flush()?;
            Ok(())
        }
        Command::Match(args) => crate::runner::run_cli(*args, out),
        Command::Tune(args) => crate::runner::tune::run_cli(*args, out),
        Command::Tablebase { action } => crate::tablebase::run_cli(action, out),
        Command::Book { action } => crate::book::run_cli(action, proven_turns, out),
        Command::Solve(args) => crate::solve::run_cli(*args, out),
        Command::Datagen(args) => crate::learn::cli::run_datagen(args, out),
        Command::Train(args) => crate::learn::cli::run_train(args, out),
    }
}

/// Sends diagnostics to standard error at the level given by `--log-level`, else by
/// `RUST_LOG`, else warnings only. Standard output stays the protocol's.
pub fn init_logging(level: Option<&str>) -> Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match level {
        Some(level) => EnvFilter::try_new(level).context("bad --log-level")?,
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
    };
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    Ok(())
}

/// The proof store's values of turns, for `vato book export`: the store in `dir`, else
/// the default one. A store asked for must be read; the default one is left out, with a
/// warning, when it cannot be.
fn proven_turns(
    rules: &crate::rules::Rules,
    dir: Option<&std::path::Path>,
) -> anyhow::Result<Option<crate::book::ProvenTurn>> {
    use crate::solve::{MappedStore, StoredResults, default_store_dir};
    let store = match (dir, default_store_dir()) {
        (Some(dir), _) => MappedStore::open(dir, rules)?,
        (None, Some(dir)) => match MappedStore::open(&dir, rules) {
            Ok(store) => store,
            Err(e) => {
                tracing::warn!("{e:#}: no proven values written");
                return Ok(None);
            }
        },
        (None, None) => return Ok(None),
    };
    Ok(Some(Box::new(move |position, turn| {
        Some(store.proven_after(position, turn)?.to_string())
    })))
}
