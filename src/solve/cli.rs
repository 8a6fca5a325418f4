//! `vato solve`: a position's proved value from the command line.

use super::certificate::Certificate;
use super::check::{Checked, check, tables_suffice};
use super::checkpoint::Checkpoint;
use super::compaction::compact_store;
use super::dfpn::{Budget, Method};
use super::engine_win::EngineGuide;
use super::forced::ForcedDefences;
use super::mapped_store::MappedStore;
use super::proof_file::ProofFile;
use super::sample::{Heard, agreement, random_positions};
use super::store::{ProofStore, default_store_dir};
use super::stored::{Proven, StoredResults};
use super::strategy::Guarantee;
use super::two_questions::{on_own_stack, solve_on_own_stack, solve_one};
use super::verdict::Verdict;
use crate::progress::{JobProgress, PLAIN_EVERY, stop_on_ctrl_c};
use crate::rules::Rules;
use crate::rules::fen::parse_position_on;
use crate::rules::notation::spelled_turns;
use crate::rules::position::Color;
use crate::shard::Shard;
use crate::tablebase::{
    MAX_STONES, TableRules, Tablebase, default_dir, layer_names, layers_with, parse_layer_pair,
};
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

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
    /// Table layers of more stones than --tablebase-stones, up to this many, that guide
    /// without being leaves of the proof: a position they hold is decided at once, and
    /// its strategy is written by following their values down to the proof's tables, so
    /// the proof still rests on --tablebase-stones alone.
    #[arg(long, value_name = "N", conflicts_with_all = ["check", "merge_store"])]
    guide_stones: Option<usize>,
    /// Size of the proof table, in MiB (one for each of the two questions: in turn with
    /// one thread, both at once with two).
    #[arg(long, default_value_t = 256)]
    memory: usize,
    /// Memory for writing a strategy down once a value is found (the defence of a draw
    /// through the guide's endings can take many GiB while its proof table stays
    /// small), in MiB; by default as much as --memory.
    #[arg(long, value_name = "MB")]
    strategy_memory: Option<usize>,
    /// The checkpoint FILE of a `--method exits` search (`FILE.second` for the second
    /// question): the positions where it showed the defender forcing its way into the
    /// tables are leaves of a search for the same prover, and a defence goes into them
    /// where it can, keeping its cycles to the positions that need them. The defence is
    /// still written down through them and checked whole.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["check", "merge_store", "sample"])]
    forced_from: Option<PathBuf>,
    /// Threads: with 2, the two questions (does the side to move win? does its opponent?)
    /// are searched at once, and a proof of either stops the other.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=2))]
    threads: u16,
    /// Write the proof to FILE: the strategies that show the value, which
    /// `vato solve --check FILE` verifies and the engine's `ProofFile` plays from. With
    /// --check, the checked proof is written again to FILE (compact with --compact).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["shard", "combine"])]
    proof: Option<PathBuf>,
    /// Write the proof compact: the owner's choices alone, in the order a checker meets
    /// them, compressed (a byte a position or less, against 16 in full); reading it back
    /// needs the tables it rests on.
    #[arg(long, requires = "proof")]
    compact: bool,
    /// Verify the proof in FILE (every line its strategies allow, against the rules and
    /// the tables) instead of solving.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "shard", "combine", "checkpoint"])]
    check: Option<PathBuf>,
    /// Solve N random positions of --stones stones over the tables of fewer stones (from
    /// --tablebase-path), and compare each value with the tables that hold it and check
    /// each proof; --nodes and --time then limit each position.
    #[arg(long, value_name = "N", conflicts_with_all = ["fen", "shard", "combine", "checkpoint", "proof", "check"])]
    sample: Option<usize>,
    /// With --sample: the stone count of the positions (default: the most the tables
    /// hold).
    #[arg(long, requires = "sample")]
    stones: Option<usize>,
    /// With --sample: draw the positions from these layer pairs only (`7v1` stands for
    /// 7v1 and 1v7), comma-separated, all of one stone count, which stands for --stones.
    #[arg(long, value_name = "AvB,...", value_delimiter = ',', value_parser = parse_layer_pair, requires = "sample", conflicts_with = "stones")]
    layers: Option<Vec<(usize, usize)>>,
    /// With --sample: the seed of the random positions.
    #[arg(long, default_value_t = 1, requires = "sample")]
    seed: u64,
    /// How each question is searched: `dfpn` from the root alone; `graph`: a graph of
    /// the positions near the root, decided backwards with cycles settled exactly, with a
    /// df-pn search of --leaf-nodes nodes at each new position; or `exits`: df-pn in
    /// which the defender must force every line into the tables, the guide or the store
    /// (a repetition is its loss), so that a defence is finite above them and only
    /// "does not win" can be shown.
    #[arg(long, value_enum, default_value_t = MethodArg::Dfpn)]
    method: MethodArg,
    /// With --method dfpn: df-pn alone, no fortress tried when it stops with a question
    /// open, so that --nodes and --time are all df-pn's (the fortress confines the
    /// defender's stones to a few placements and solves that game backwards: the quiet
    /// draws df-pn goes round).
    #[arg(long)]
    no_fortress: bool,
    /// With --method dfpn: when df-pn and the fortress leave a question open, follow the
    /// engine's choices, each a search of this depth, against every turn of the other
    /// side, and keep the win they make when the checker confirms it (long quiet wins
    /// that df-pn goes round); 0: not tried. The walk takes at most a sixteenth of
    /// --nodes positions.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(0..=64))]
    engine_depth: u32,
    /// With --method graph: the nodes of each new position's df-pn search.
    #[arg(long, default_value_t = 10_000)]
    leaf_nodes: u64,
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
    /// The proof store's folder: results proved before are leaves of the search, and
    /// what this run proves (also one side's result when the other is left open) is
    /// added. Default: `proofs` in Vato's data folder, beside the tables (`$VATO_PROOFS`;
    /// set to nothing, no store).
    #[arg(long, value_name = "DIR", conflicts_with = "no_store")]
    store: Option<PathBuf>,
    /// Solve without the proof store: nothing is read from it or added to it.
    #[arg(long)]
    no_store: bool,
    /// Answer from the proof store alone, without a search: the stored value and turn
    /// when the store settles the position, else `unknown`. The store is probed where it
    /// lies, not read whole, so this takes milliseconds whatever its size.
    #[arg(long, conflicts_with_all = ["no_store", "shard", "combine", "checkpoint", "check", "sample", "merge_store"])]
    stored: bool,
    /// Ask one question only: does SIDE (white or black) win? A proof is a win or a loss;
    /// a disproof is one side's result (`proven: draw or better for ...`), kept in the
    /// store. One thread: two such runs, one for each side, share two cores.
    #[arg(long, value_name = "SIDE", value_parser = parse_side, conflicts_with_all = ["shard", "combine", "stored", "sample", "check", "merge_store"])]
    ask: Option<Color>,
    /// Add the results of the stores in these folders (other machines', shards') and of
    /// these proof files (each checked first, with the tables it rests on) to the proof
    /// store, as one new segment, and stop.
    #[arg(long, value_name = "DIR|FILE", num_args = 1.., conflicts_with_all = ["fen", "shard", "combine", "checkpoint", "proof", "check", "sample", "no_store"])]
    merge_store: Option<Vec<PathBuf>>,
    /// Merge the proof store's segments of this game into one, and stop: a store of many
    /// segments answers more slowly (each lookup asks every segment). Safe while other
    /// runs read or add to the store.
    #[arg(long, conflicts_with_all = ["fen", "shard", "combine", "checkpoint", "proof", "check", "sample", "no_store", "merge_store"])]
    compact_store: bool,
    /// Read the lines of the shards' outputs and give the root's value from its turns'
    /// values (every turn must be there, decided).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    combine: Option<Vec<PathBuf>>,
}

/// `--ask`'s side: `white` or `black`.
fn parse_side(text: &str) -> Result<Color, String> {
    Color::from_name(text).ok_or_else(|| format!("'{text}' is not a side: white or black"))
}

/// The values of `--method`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MethodArg {
    /// Depth-first proof-number search from the root.
    Dfpn,
    /// A best-first graph near the root with df-pn at its leaves.
    Graph,
    /// Df-pn in which the defender must force every line into what the tables, the
    /// guide or the store settle (a repetition is its loss): only "does not win" can
    /// be shown.
    Exits,
}

impl SolveArgs {
    /// The most positions of a fortress, `None` with --no-fortress.
    fn fortress_positions(&self) -> Option<usize> {
        (!self.no_fortress).then(|| {
            Budget::fortress_positions(self.strategy_memory.unwrap_or(self.memory), self.nodes)
        })
    }

    /// The engine whose choices a question left open follows (see `--engine-depth`), with
    /// the tables of up to `stones` stones: `None` when switched off, or with a method
    /// other than df-pn.
    fn engine_guide(&self, rules: Rules, stones: usize) -> Result<Option<EngineGuide>> {
        if self.engine_depth == 0 || self.method() != Method::DepthFirst {
            return Ok(None);
        }
        Ok(Some(EngineGuide {
            tables: open_tables_of(self, rules, stones)?.map(Arc::new),
            network: Some(crate::engine::nnue::embedded()),
            depth: self.engine_depth,
        }))
    }

    /// The search method the arguments ask for.
    fn method(&self) -> Method {
        match self.method {
            MethodArg::Dfpn => Method::DepthFirst,
            MethodArg::Graph => Method::Graph {
                leaf_nodes: self.leaf_nodes,
            },
            MethodArg::Exits => Method::Exits,
        }
    }
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

/// The folder of the tables: `--tablebase-path`, or else the engine's default.
fn table_dir(args: &SolveArgs) -> Option<PathBuf> {
    args.tablebase_path.clone().or_else(default_dir)
}

/// The tables `args` asks for under `rules`: none when the default folder has none.
fn open_tables(args: &SolveArgs, rules: Rules) -> Result<Option<Tablebase>> {
    open_tables_of(args, rules, args.tablebase_stones)
}

/// [`open_tables`] with the layers of up to `stones` stones only.
fn open_tables_of(args: &SolveArgs, rules: Rules, stones: usize) -> Result<Option<Tablebase>> {
    Ok(match table_dir(args) {
        Some(dir) if dir.is_dir() => {
            let tables = Tablebase::open(&dir, rules, stones)?;
            (!tables.layers().is_empty()).then_some(tables)
        }
        Some(dir) if args.tablebase_path.is_some() => {
            bail!("--tablebase-path {}: not a directory", dir.display());
        }
        _ => None,
    })
}

/// The guide `--guide-stones` asks for, beside `tables` (the proof's): none without the
/// option; an error when the guide would hold no layer the proof's tables lack.
fn open_guide(
    args: &SolveArgs,
    rules: Rules,
    tables: Option<&Tablebase>,
) -> Result<Option<Tablebase>> {
    let Some(stones) = args.guide_stones else {
        return Ok(None);
    };
    let proof_stones = tables.map_or(0, |t| t.max_stones());
    let guide = open_tables_of(args, rules, stones)?;
    match guide {
        Some(guide) if guide.max_stones() > proof_stones => Ok(Some(guide)),
        _ => bail!(
            "--guide-stones {stones}: the tables hold no layer of more than {proof_stones} \
             stones to guide with (the proof's tables go to {proof_stones})"
        ),
    }
}

/// The proof store's folder the arguments name: `--store`, else the default; none with
/// `--no-store` or when the default is switched off.
fn store_dir(args: &SolveArgs) -> Option<PathBuf> {
    if args.no_store {
        return None;
    }
    args.store.clone().or_else(default_store_dir)
}

/// The proof store for a run under `rules` with `tables`, and its folder. A store that
/// cannot be read, or that rests on more stones of tables than the run has, is left
/// alone with one warning: the run goes on without it.
fn open_store(
    args: &SolveArgs,
    rules: &Rules,
    tables: Option<&Tablebase>,
) -> Option<(PathBuf, ProofStore)> {
    let dir = store_dir(args)?;
    match ProofStore::open(&dir, rules) {
        Ok(store) => {
            let have = tables.map_or(0, |t| t.max_stones());
            if usize::from(store.table_stones()) > have {
                tracing::warn!(
                    "the proof store {} rests on the tables of up to {} stones, and these go \
                     to {have}: solving without it",
                    dir.display(),
                    store.table_stones()
                );
                return None;
            }
            Some((dir, store))
        }
        Err(e) => {
            tracing::warn!("{e:#}: solving without the proof store");
            None
        }
    }
}

/// Adds what `solved` proved from `root` to the store and writes it: the line that says
/// so, or why not.
fn keep_results(
    (dir, store): &mut (PathBuf, ProofStore),
    root: &crate::rules::position::Position,
    rules: &Rules,
    tables: Option<&Tablebase>,
    solved: &crate::solve::Solved,
) -> String {
    for strategy in &solved.learned {
        if let Err(e) = store.keep(root, rules, tables, strategy) {
            return format!("store: not kept, a strategy does not hold: {e:#}");
        }
    }
    let saved = save_store(store, dir).unwrap_or_else(|e| format!("store: not kept: {e:#}"));
    // Checked position by position when the writer stopped (see `defence::closed`), and
    // written apart: there may be a hundred million of them.
    let table_stones = tables.map_or(0, |t| u8::try_from(t.max_stones()).unwrap_or(u8::MAX));
    let mut finished = 0;
    for closed in &solved.closed {
        let (owner, reached) = (closed.owner, &closed.reached);
        match store.write_results(dir, owner, Guarantee::NoLoss, reached, table_stones) {
            Ok(_) => finished += reached.len(),
            Err(e) => return format!("{saved}; a defence's finished part not kept: {e:#}"),
        }
    }
    if finished > 0 {
        format!("{saved}; {finished} positions of unfinished defences kept")
    } else {
        saved
    }
}

/// Writes what `store` added to its folder `dir`: the line that says how much.
fn save_store(store: &mut ProofStore, dir: &Path) -> Result<String> {
    let added = store.added();
    store.save(dir)?;
    Ok(format!(
        "store {}: {added} positions added, {} in all",
        dir.display(),
        store.len()
    ))
}

/// `vato solve --merge-store DIR|FILE...`: the stores' results and the proof files'
/// strategies added to the proof store. Nothing is written unless every source is good.
fn merge_stores(args: &SolveArgs, sources: &[PathBuf], out: &mut impl Write) -> Result<()> {
    let rules = args.rules.rules();
    let Some(dir) = store_dir(args) else {
        bail!("--merge-store: no proof store to merge into (give --store DIR)");
    };
    let mut store = ProofStore::open(&dir, &rules)?;
    for source in sources {
        if source.is_dir() {
            store.absorb(&ProofStore::open(source, &rules)?)?;
        } else if source.is_file() {
            keep_proof(args, &mut store, source)?;
        } else {
            bail!(
                "--merge-store {}: no such store or proof file",
                source.display()
            );
        }
    }
    writeln!(out, "{}", save_store(&mut store, &dir)?)?;
    out.flush()?;
    Ok(())
}

/// `vato solve --compact-store`: the store's segments of the game merged into one; the
/// line that says what was done.
fn compact(args: &SolveArgs, out: &mut impl Write) -> Result<()> {
    let Some(dir) = store_dir(args) else {
        bail!("--compact-store: no proof store (give --store DIR)");
    };
    let line = match compact_store(&dir, &args.rules.rules())? {
        Some(done) => format!(
            "store {}: {} segments ({} entries) compacted into one of {} positions, {}",
            dir.display(),
            done.segments,
            done.entries,
            done.positions,
            done.path.display()
        ),
        None => format!("store {}: nothing to compact", dir.display()),
    };
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}

/// Adds the strategies of the proof file `file` to `store`, each followed (so checked)
/// with the table layers the proof rests on and no larger ones, so that the store does
/// not come to need more tables than the proof did.
fn keep_proof(args: &SolveArgs, store: &mut ProofStore, file: &Path) -> Result<()> {
    let (certificate, tables, _) = read_proof(args, file)?;
    if certificate.rules != args.rules.rules() {
        bail!(
            "{}: the proof is for other rules (give the --variant and chain rule it was made with)",
            file.display()
        );
    }
    let (root, rules) = (&certificate.root, &certificate.rules);
    for strategy in &certificate.strategies {
        store
            .keep(root, rules, tables.as_ref(), strategy)
            .with_context(|| format!("{} does not prove its value", file.display()))?;
    }
    Ok(())
}

/// The proof file `file` in full, with the table layers it rests on and no larger ones
/// (a position of a larger layer must be shown by the proof's strategies, not by the
/// tables of this machine); a compact proof is checked on the way, and what the check
/// went through comes with it.
fn read_proof(
    args: &SolveArgs,
    file: &Path,
) -> Result<(Certificate, Option<Tablebase>, Option<Checked>)> {
    let proof = ProofFile::read(file)?;
    let stones = args.tablebase_stones.min(usize::from(proof.table_stones()));
    let tables = open_tables_of(args, proof.rules(), stones)?;
    tables_suffice(proof.table_stones(), tables.as_ref())
        .with_context(|| format!("{}", file.display()))?;
    let (certificate, checked) = match proof {
        ProofFile::Full(certificate) => (certificate, None),
        ProofFile::Compact(compact) => {
            let (certificate, checked) = on_own_stack(|| compact.expand(tables.as_ref()))
                .with_context(|| format!("{} does not prove its value", file.display()))?;
            (certificate, Some(checked))
        }
    };
    Ok((certificate, tables, checked))
}

/// Writes `certificate` to `file`, compact when asked (its choices met with `tables`,
/// the layers it rests on); what was written, for the report.
fn write_proof(
    args: &SolveArgs,
    certificate: &Certificate,
    tables: Option<&Tablebase>,
    file: &Path,
) -> Result<String> {
    if args.compact {
        let compact = on_own_stack(|| certificate.compact(tables))?;
        compact.write(file)?;
        let bytes = std::fs::metadata(file).map_or(0, |m| m.len());
        Ok(format!(
            "proof {} (compact: {} choices, {bytes} bytes)",
            file.display(),
            compact.choice_counts()
        ))
    } else {
        certificate.write(file)?;
        Ok(format!(
            "proof {} ({} turns)",
            file.display(),
            certificate.turn_counts()
        ))
    }
}

/// `vato solve --check FILE`: one line saying what the proof proves, or why it does not.
fn check_proof(args: &SolveArgs, file: &Path, out: &mut impl Write) -> Result<()> {
    let started = Instant::now();
    let (certificate, tables, checked) = read_proof(args, file)?;
    let checked = match checked {
        Some(checked) => checked,
        None => on_own_stack(|| check(&certificate, tables.as_ref()))
            .with_context(|| format!("{} does not prove its value", file.display()))?,
    };
    let positions: Vec<String> = checked.positions.iter().map(|n| n.to_string()).collect();
    writeln!(
        out,
        "proof ok: {} in {} ({} positions followed, {} turns, tables up to {} stones) \
         time {:.3}",
        certificate.claim(),
        certificate.root,
        positions.join(" + "),
        certificate.turn_counts(),
        certificate.table_stones,
        started.elapsed().as_secs_f64()
    )?;
    if let Some(again) = &args.proof {
        writeln!(
            out,
            "{}",
            write_proof(args, &certificate, tables.as_ref(), again)?
        )?;
    }
    out.flush()?;
    Ok(())
}

/// `vato solve --sample N`: a line for each position that does not agree, then the
/// count of each kind; an error if one disagrees.
fn sample_positions(args: &SolveArgs, count: usize, out: &mut impl Write) -> Result<()> {
    let rules = args.rules.rules();
    let Some(truth) = open_tables(args, rules)? else {
        bail!("--sample compares with the tables: give --tablebase-path");
    };
    let pairs = args.layers.as_deref().unwrap_or_default();
    let stones = match pairs {
        [] => args.stones.unwrap_or(truth.max_stones()),
        [(a, b), rest @ ..] => {
            if let Some((c, d)) = rest.iter().find(|(c, d)| c + d != a + b) {
                bail!("--layers {a}v{b},{c}v{d}: the pairs must have the same stone count");
            }
            a + b
        }
    };
    if stones < 3 || stones > truth.max_stones() {
        bail!(
            "--stones {stones}: the tables go to {} stones, and the solver needs the tables of \
             fewer (at least 2)",
            truth.max_stones()
        );
    }
    let dir = table_dir(args).expect("the tables were found there");
    let leaves = Tablebase::open(&dir, rules, stones - 1)?;
    let guide = open_guide(args, rules, Some(&leaves))?;
    let engine = args.engine_guide(rules, stones - 1)?;
    let guided = guide
        .as_ref()
        .map(|guide| format!(" guided by {}", guide.max_stones()))
        .unwrap_or_default();
    let stop = stop_on_ctrl_c("the sample stops after the position being solved")?;
    let budget = Budget {
        nodes: args.nodes,
        time: args.time.map(Duration::from_secs_f64),
        stop: &stop,
        table_mb: args.memory,
        strategy_mb: args.strategy_memory,
        checkpoint: None,
        proof: true,
        threads: 1,
        method: args.method(),
        store: None,
        guide: guide.as_ref(),
        forced: None,
        fortress: args.fortress_positions(),
        engine: engine.as_ref(),
    };
    let started = Instant::now();
    // A set built one layer pair at a time may hold only some layers of the largest count:
    // the sample is drawn from those, and says which it leaves out.
    let held = truth.layers();
    let chosen = |&(a, b): &(usize, usize)| {
        pairs.is_empty() || pairs.iter().any(|&pair| pair == (a, b) || pair == (b, a))
    };
    let (drawn, missing): (Vec<_>, Vec<_>) = layers_with(stones)
        .into_iter()
        .filter(chosen)
        .partition(|layer| held.contains(layer));
    if drawn.is_empty() {
        match pairs {
            [] => bail!("--stones {stones}: no layer of {stones} stones is in the tables"),
            _ => bail!(
                "--layers {}: none of them is in the tables",
                layer_names(pairs)
            ),
        }
    }
    if !missing.is_empty() {
        writeln!(
            out,
            "layers {} are not in the tables: the positions are drawn from {}",
            layer_names(&missing),
            layer_names(&drawn)
        )?;
    }
    let positions = random_positions(&rules, &drawn, count, args.seed);
    // The lines and the count solved come from the solver's thread as they are found; the
    // count goes to standard error as a bar (a plain line now and then off a terminal).
    let (heard, said) = std::sync::mpsc::channel::<Heard>();
    let mut progress = JobProgress::new(
        "sample",
        positions.len() as u64,
        "positions",
        Some(PLAIN_EVERY),
    );
    let found = std::thread::scope(|scope| {
        let (positions, leaves, truth) = (&positions, &leaves, &truth);
        let worker = scope.spawn(move || {
            on_own_stack(|| {
                agreement(positions, rules, Some(leaves), truth, budget, &mut |news| {
                    let _ = heard.send(news);
                })
            })
        });
        // A position may take minutes: the progress is shown again meanwhile.
        loop {
            match said.recv_timeout(PLAIN_EVERY) {
                Ok(Heard::Line(line)) => progress.suspend(|| {
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                }),
                Ok(Heard::Solved(solved)) => progress.set(solved as u64),
                Err(RecvTimeoutError::Timeout) => progress.tick(),
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        worker
            .join()
            .map_err(|_| anyhow::anyhow!("the solver failed"))?
    })?;
    progress.finish();
    writeln!(
        out,
        "sample {} positions of {stones} stones over the tables of up to {}{guided}: {} agree, \
         {} disagree, {} undecided; nodes {} time {:.3}",
        found.positions,
        stones - 1,
        found.agree,
        found.disagree.len(),
        found.undecided,
        found.nodes,
        started.elapsed().as_secs_f64()
    )?;
    out.flush()?;
    if !found.disagree.is_empty() {
        bail!(
            "{} positions disagree with the tables",
            found.disagree.len()
        );
    }
    Ok(())
}

/// Runs `vato solve`, writing the verdict to `out`.
pub fn run_cli(args: SolveArgs, out: &mut impl Write) -> Result<()> {
    if let Some(file) = &args.check {
        return check_proof(&args, file, out);
    }
    if let Some(count) = args.sample {
        return sample_positions(&args, count, out);
    }
    if let Some(sources) = &args.merge_store {
        return merge_stores(&args, sources, out);
    }
    if args.compact_store {
        return compact(&args, out);
    }
    let rules = args.rules.rules();
    let root = match &args.fen {
        Some(text) => parse_position_on(rules.board, text).context("bad --fen")?,
        None => rules.start(),
    };
    let tables = open_tables(&args, rules)?;
    let guide = open_guide(&args, rules, tables.as_ref())?;
    let engine = args.engine_guide(rules, args.tablebase_stones)?;
    let forced = match &args.forced_from {
        Some(path) => Some(ForcedDefences::load(path, &rules).context("bad --forced-from")?),
        None => None,
    };
    let stop = stop_on_ctrl_c("the search stops and says how far it got")?;
    let budget = Budget {
        nodes: args.nodes,
        time: args.time.map(Duration::from_secs_f64),
        stop: &stop,
        table_mb: args.memory,
        strategy_mb: args.strategy_memory,
        checkpoint: args.checkpoint.as_deref().map(|path| Checkpoint {
            path,
            every: Duration::from_secs_f64(args.checkpoint_every.max(0.0)),
        }),
        // The store's results get their strategies anyway (see `one_question`), so a
        // result the store holds already is answered without writing one again.
        proof: args.proof.is_some(),
        threads: args.threads.into(),
        method: args.method(),
        store: None,
        guide: guide.as_ref(),
        forced: forced.as_ref(),
        fortress: args.fortress_positions(),
        engine: engine.as_ref(),
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
    let opened = Opened {
        rules,
        tables: tables.as_ref(),
        guide: guide.as_ref(),
    };
    if args.shard.is_none()
        && let Some((dir, stored)) = store_that_settles(&args, &opened, &root)
    {
        let known = Budget {
            store: Some(&stored),
            ..budget
        };
        let solved = solve_on_own_stack(&root, rules, tables.as_ref(), known)?;
        let line = format!(
            "store {}: 0 positions added, the value read from it",
            dir.display()
        );
        return report(&args, &root, &opened, &solved, Some(line), out);
    }
    if args.stored {
        // One side's result ("White does not lose") settles no value, but is worth saying.
        let one_sided = store_dir(&args)
            .and_then(|dir| MappedStore::open_quietly(&dir, &rules).ok())
            .and_then(|store| store.proven(root.key(), root.side_to_move()));
        // A value the glance did not take rests on tables this run lacks, or on a
        // damaged block (which the whole read would report).
        let why = match one_sided {
            Some(Proven::Win | Proven::Loss | Proven::Draw) => {
                "the proof store's value rests on more tables than these".to_string()
            }
            Some(proven) => format!("the proof store holds only: {proven} for the side to move"),
            None => "the proof store does not settle it".to_string(),
        };
        writeln!(out, "unknown nodes 0 ({why})")?;
        out.flush()?;
        return Ok(());
    }
    let mut store = open_store(&args, &rules, tables.as_ref());
    if let Some(shard) = args.shard {
        for (index, (text, turn)) in spelled_turns(&root, rules.turn_rules())
            .into_iter()
            .enumerate()
        {
            if !shard.contains(index as u64) {
                continue;
            }
            let child = root.play(turn);
            let known = Budget {
                store: store.as_ref().map(|(_, s)| s as &dyn StoredResults),
                ..budget
            };
            let solved = solve_on_own_stack(&child, rules, tables.as_ref(), known)?;
            writeln!(out, "turn {text} {} nodes {}", solved.verdict, solved.nodes)?;
            if let Some(store) = &mut store {
                let line = keep_results(store, &child, &rules, tables.as_ref(), &solved);
                writeln!(out, "{line}")?;
            }
            out.flush()?;
        }
        return Ok(());
    }
    let known = Budget {
        store: store.as_ref().map(|(_, s)| s as &dyn StoredResults),
        ..budget
    };
    let solved = match args.ask {
        Some(prover) => solve_one(&root, rules, tables.as_ref(), known, prover)?,
        None => solve_on_own_stack(&root, rules, tables.as_ref(), known)?,
    };
    let store_line = store
        .as_mut()
        .map(|store| keep_results(store, &root, &rules, tables.as_ref(), &solved));
    report(&args, &root, &opened, &solved, store_line, out)
}

/// The store, probed where it lies, and its folder, when it proves the value of `root`
/// (a win, a loss or a draw): the run then answers from it without reading it whole, which
/// for a large store takes seconds and gigabytes. A store that is damaged where the glance
/// looked, or rests on more tables than the run has, is left to the whole read, which
/// says why it is set aside.
fn store_that_settles(
    args: &SolveArgs,
    opened: &Opened,
    root: &crate::rules::position::Position,
) -> Option<(PathBuf, MappedStore)> {
    let dir = store_dir(args)?;
    let store = MappedStore::open_quietly(&dir, &opened.rules).ok()?;
    let have = opened.tables.map_or(0, |t| t.max_stones());
    let settled = matches!(
        store.proven(root.key(), root.side_to_move()),
        Some(Proven::Win | Proven::Loss | Proven::Draw)
    );
    let trusted = !store.damaged() && usize::from(store.table_stones()) <= have;
    (settled && trusted).then_some((dir, store))
}

/// What a run opened besides the store: its rules, tables and guide.
struct Opened<'a> {
    rules: Rules,
    tables: Option<&'a Tablebase>,
    guide: Option<&'a Tablebase>,
}

/// Writes the verdict of `root`, the store's line, and the proof when one is asked for.
fn report(
    args: &SolveArgs,
    root: &crate::rules::position::Position,
    opened: &Opened,
    solved: &crate::solve::Solved,
    store_line: Option<String>,
    out: &mut impl Write,
) -> Result<()> {
    let (rules, tables, guide) = (opened.rules, opened.tables, opened.guide);
    let table_stones = tables.as_ref().map_or(0, |t| t.max_stones());
    let tables_used = match table_stones {
        0 => "no tables".to_string(),
        n => format!("tables up to {n} stones"),
    };
    let tables_used = match &guide {
        Some(guide) => format!("{tables_used}, guided by {}", guide.max_stones()),
        None => tables_used,
    };
    writeln!(
        out,
        "{} time {:.3} ({tables_used})",
        solved.summary(root, &rules),
        solved.elapsed.as_secs_f64()
    )?;
    if !solved.open.is_empty() {
        writeln!(out, "open: {}", solved.open_numbers())?;
    }
    if solved.verdict == Verdict::Unknown {
        // A question answered while the value stays open: one side's result.
        for strategy in &solved.learned {
            if strategy.guarantee == Guarantee::NoLoss {
                writeln!(out, "proven: draw or better for {}", strategy.owner.name())?;
            }
        }
    }
    if let Some(line) = store_line {
        writeln!(out, "{line}")?;
    }
    if let Some(file) = &args.proof {
        // A value's strategies, else one side's result: its defence, which a later run
        // (or another machine's store, through --merge-store) takes as proven.
        let strategies = match solved.verdict {
            Verdict::Unknown => solved
                .learned
                .iter()
                .filter(|s| s.guarantee == Guarantee::NoLoss)
                .take(1)
                .cloned()
                .collect(),
            _ => solved.strategies.clone(),
        };
        if strategies.is_empty() && solved.verdict != Verdict::Unknown {
            out.flush()?;
            bail!(
                "no proof written to {}: the limits ran out while it was written",
                file.display()
            );
        }
        if !strategies.is_empty() {
            let certificate = Certificate {
                root: *root,
                rules,
                verdict: solved.verdict,
                table_stones: table_stones as u8,
                strategies,
            };
            writeln!(out, "{}", write_proof(args, &certificate, tables, file)?)?;
        }
    }
    out.flush()?;
    Ok(())
}
