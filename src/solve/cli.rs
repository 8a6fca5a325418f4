//! `vato solve`: a position's proved value from the command line.

use super::checkpoint::Checkpoint;
use super::dfpn::{Budget, Verdict, solve_on_own_stack};
use crate::progress::stop_on_ctrl_c;
use crate::rules::Rules;
use crate::rules::fen::parse_position_on;
use crate::rules::notation::spelled_turns;
use crate::shard::Shard;
use crate::tablebase::{MAX_STONES, TableRules, Tablebase, default_dir};
use anyhow::{Context, Result, anyhow, bail};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The arguments of `vato solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// The position; default the start position.
    #[arg(long)]
    fen: Option<String>,
    #[command(flatten)]
    rules: TableRules,
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
    /// Solve only the positions after every N-th of the root's turns, from the K-th, one
    /// line each (`turn T <value for the side to move after it> nodes N`): one of N
    /// machines' part, joined by --combine.
    #[arg(long, value_name = "K/N", conflicts_with_all = ["combine", "checkpoint"])]
    shard: Option<Shard>,
    /// Read the lines of the shards' outputs and give the root's value from its turns'
    /// values (every turn must be there, decided).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    combine: Option<Vec<PathBuf>>,
}

/// The root's value from the values of the positions after each of its turns (for their
/// side to move): a win if one of them is lost, a loss if all are won, else a draw; with
/// the turn that achieves it.
pub fn combine(children: &[(String, Verdict)]) -> Option<(Verdict, Option<String>)> {
    if children.iter().any(|(_, v)| *v == Verdict::Unknown) {
        return None;
    }
    let find = |wanted: Verdict| {
        children
            .iter()
            .find(|(_, v)| *v == wanted)
            .map(|(turn, _)| turn.clone())
    };
    Some(if let Some(turn) = find(Verdict::Loss) {
        (Verdict::Win, Some(turn))
    } else if let Some(turn) = find(Verdict::Draw) {
        (Verdict::Draw, Some(turn))
    } else {
        (Verdict::Loss, None)
    })
}

/// The `turn T VALUE` lines of shard outputs, checked against the root's turns.
fn read_shard_lines(
    files: &[PathBuf],
    root: &crate::rules::position::Position,
    rules: &Rules,
) -> Result<Vec<(String, Verdict)>> {
    let mut found: Vec<(String, Verdict)> = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        for line in text.lines().filter(|l| l.starts_with("turn ")) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let (Some(turn), Some(value)) = (words.get(1), words.get(2)) else {
                bail!("{}: '{line}' is not a shard line", file.display());
            };
            let verdict = match *value {
                "win" => Verdict::Win,
                "draw" => Verdict::Draw,
                "loss" => Verdict::Loss,
                "unknown" => Verdict::Unknown,
                other => bail!("{}: '{other}' is not a value", file.display()),
            };
            found.push((turn.to_string(), verdict));
        }
    }
    let mut expected: Vec<String> = spelled_turns(root, rules.turn_rules())
        .into_iter()
        .map(|(text, _)| text)
        .collect();
    let mut given: Vec<String> = found.iter().map(|(t, _)| t.clone()).collect();
    expected.sort();
    given.sort();
    if expected != given {
        bail!(
            "the shards hold {} turns where the position has {} (each turn exactly once)",
            given.len(),
            expected.len()
        );
    }
    Ok(found)
}

/// Runs `vato solve`, writing the verdict to `out`.
pub fn run_cli(args: SolveArgs, out: &mut impl Write) -> Result<()> {
    let rules = args.rules.rules();
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
    if let Some(files) = &args.combine {
        let children = read_shard_lines(files, &root, &rules)?;
        let Some((verdict, turn)) = combine(&children) else {
            bail!("a shard left a turn undecided: solve it again with more time");
        };
        let best = turn.map(|t| format!(" bestmove {t}")).unwrap_or_default();
        writeln!(out, "{}{best} (from {} turns)", verdict, children.len())?;
        out.flush()?;
        return Ok(());
    }
    if let Some(shard) = args.shard {
        for (index, (text, turn)) in spelled_turns(&root, rules.turn_rules())
            .into_iter()
            .enumerate()
        {
            if !shard.contains(index as u64) {
                continue;
            }
            let child = root.play(turn);
            let solved = solve_on_own_stack(&child, rules, tables.as_ref(), budget)?;
            writeln!(out, "turn {text} {} nodes {}", solved.verdict, solved.nodes)?;
            out.flush()?;
        }
        return Ok(());
    }
    let solved = solve_on_own_stack(&root, rules, tables.as_ref(), budget)?;
    let tables_used = tables.as_ref().map_or("no tables".to_string(), |t| {
        format!("tables up to {} stones", t.max_stones())
    });
    writeln!(
        out,
        "{} time {:.3} ({tables_used})",
        solved.summary(&root, &rules),
        solved.elapsed.as_secs_f64()
    )?;
    out.flush()?;
    Ok(())
}
