//! `vato solve`: a position's proved value from the command line.

use super::checkpoint::Checkpoint;
use super::dfpn::{Budget, Verdict, solve_on_own_stack};
use crate::progress::stop_on_ctrl_c;
use crate::rules::board::Board;
use crate::rules::fen::parse_position_on;
use crate::rules::notation::spell_turn;
use crate::rules::{ChainRule, Rules};
use crate::tablebase::{MAX_STONES, Tablebase, default_dir};
use anyhow::{Context, Result, anyhow};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The arguments of `vato solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// The position; default the start position.
    #[arg(long)]
    fen: Option<String>,
    /// The game: tsivy or dimy.
    #[arg(long, value_name = "GAME", default_value = "tsivy", value_parser = crate::rules::variant::parse_capture_board)]
    variant: Board,
    /// The variant where a capture chain must go on while it can.
    #[arg(long)]
    mandatory_continuation: bool,
    /// Endgame tables used as leaves; default the engine's folder (none if it has none).
    #[arg(long)]
    tablebase_path: Option<PathBuf>,
    /// The most stones of the table layers used.
    #[arg(long, default_value_t = MAX_STONES)]
    tablebase_stones: usize,
    /// Size of the proof table, in MiB (one for each of the two searches, in turn).
    #[arg(long, default_value_t = 256)]
    memory: usize,
    /// Give up after this many seconds.
    #[arg(long)]
    time: Option<f64>,
    /// Give up after this many nodes.
    #[arg(long)]
    nodes: Option<u64>,
    /// Save the proof table to FILE every minute and when stopped, and go on from FILE
    /// when it exists (removed once the value is proved).
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoints.
    #[arg(long, default_value_t = 60.0)]
    checkpoint_every: f64,
}

/// Runs `vato solve`, writing the verdict to `out`.
pub fn run_cli(args: SolveArgs, out: &mut impl Write) -> Result<()> {
    let rules = Rules {
        board: args.variant,
        chain_rule: ChainRule::mandatory_if(args.mandatory_continuation),
        ..Rules::default()
    };
    let root = match &args.fen {
        Some(text) => parse_position_on(rules.board, text).context("bad --fen")?,
        None => rules.start(),
    };
    let dir = match args.tablebase_path.clone() {
        Some(dir) => Some(dir),
        None => default_dir(),
    };
    let tables = match dir {
        Some(dir) if dir.is_dir() => {
            let tables = Tablebase::open(&dir, rules, args.tablebase_stones)?;
            (!tables.layers().is_empty()).then_some(tables)
        }
        Some(dir) if args.tablebase_path.is_some() => {
            return Err(anyhow!(
                "--tablebase-path {}: not a directory",
                dir.display()
            ));
        }
        _ => None,
    };
    let stop = stop_on_ctrl_c("the search stops and says how far it got")?;
    let budget = Budget {
        nodes: args.nodes,
        time: args.time.map(Duration::from_secs_f64),
        stop: &stop,
        table_mb: args.memory,
        checkpoint: args.checkpoint.as_deref().map(|path| Checkpoint {
            path,
            every: Duration::from_secs_f64(args.checkpoint_every.max(0.0)),
        }),
    };
    let solved = solve_on_own_stack(&root, rules, tables.as_ref(), budget)?;
    let verdict = match solved.verdict {
        Verdict::Win => "win",
        Verdict::Draw => "draw",
        Verdict::Loss => "loss",
        Verdict::Unknown => "unknown",
    };
    let best = solved
        .best
        .map(|turn| format!(" bestmove {}", spell_turn(&root, rules.turn_rules(), turn)))
        .unwrap_or_default();
    let tables_used = tables.as_ref().map_or("no tables".to_string(), |t| {
        format!("tables up to {} stones", t.max_stones())
    });
    writeln!(
        out,
        "{verdict}{best} nodes {} time {:.3} ({tables_used})",
        solved.nodes,
        solved.elapsed.as_secs_f64()
    )?;
    out.flush()?;
    Ok(())
}
