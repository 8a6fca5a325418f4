//! Depth-first proof-number search, in the phi/delta form: at every node, `phi` is the
//! proof number of the side to move's goal and `delta` that of its opponent's. The side
//! proving a win (the prover) aims at the win; the other side aims at stopping it. A
//! node's `phi` is the least `delta` of its children and its `delta` the largest `phi` of
//! a child plus one per other open child (a weak proof number). A node searched under thresholds returns when either number reaches its
//! threshold; the most promising child gets thresholds that send the search back up as
//! soon as another child becomes more promising.

use super::checkpoint::{Checkpoint, Owner, load, save};
use super::strategy::Strategy;
use super::table::{FINITE_MAX, INFINITE, ProofTable};
use crate::rules::Rules;
use crate::rules::movegen::has_legal_turn;
use crate::rules::notation::spell_turn;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::{Outcome, Tablebase};
use anyhow::{Context, Result, anyhow, bail};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest path searched; deeper nodes count as draws, like repetitions.
const MAX_PATH: usize = 4_000;

/// The stack of the solver's thread: far more than `MAX_PATH` frames need. Only the pages
/// used are ever touched.
const STACK_BYTES: usize = 1 << 30;

/// What one binary search asks: whether `prover` can force a win.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The side whose win is to be proved.
    pub prover: Color,
}

/// The answer to a [`Query`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// The prover wins, and this turn (from the root, when the prover is to move there)
    /// keeps the win.
    Proved(Option<Turn>),
    /// The prover does not win; when the prover's opponent is to move at the root, this
    /// turn keeps it from winning.
    Disproved(Option<Turn>),
    /// The budget ran out first.
    Unknown,
}

/// The limits of a search, and what it is to hand back.
#[derive(Copy, Clone, Debug)]
pub struct Budget<'a> {
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Stop when this is set.
    pub stop: &'a AtomicBool,
    /// Size of each proof table, in MiB.
    pub table_mb: usize,
    /// Where to save the table now and then (and when the budget runs out), and to
    /// resume from.
    pub checkpoint: Option<Checkpoint<'a>>,
    /// Also write down the strategies that prove the value (see [`Solved::strategies`]),
    /// within the same limits.
    pub proof: bool,
    /// Threads: with 2 or more, the two questions of [`solve`] are searched side by side
    /// (more are not used yet).
    pub threads: usize,
}

/// The value of a position for its side to move, proved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
    /// Not decided within the budget.
    Unknown,
}

/// A solved position: the verdict, a turn that achieves it and what it cost.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The value for the side to move.
    pub verdict: Verdict,
    /// A turn that keeps the value (none when the side to move has no turn, or for an
    /// unknown or lost position).
    pub best: Option<Turn>,
    /// Nodes searched, both binary searches together.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// When the budget asked for a proof: the strategies that show the verdict. A win or
    /// a loss: the winner's. A draw: each side's defence against the other's win. Fewer
    /// when the budget ran out while they were written.
    pub strategies: Vec<Strategy>,
}

impl From<Outcome> for Verdict {
    /// The tables' value as a verdict.
    fn from(outcome: Outcome) -> Verdict {
        match outcome {
            Outcome::Win => Verdict::Win,
            Outcome::Draw => Verdict::Draw,
            Outcome::Loss => Verdict::Loss,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Win => "win",
            Verdict::Draw => "draw",
            Verdict::Loss => "loss",
            Verdict::Unknown => "unknown",
        })
    }
}

impl Solved {
    /// `<verdict>[ bestmove <turn>] nodes <N>`, the turn spelled in `root` under `rules`:
    /// the common part of the answers of `vato solve` and the `solve` command.
    pub fn summary(&self, root: &Position, rules: &Rules) -> String {
        let best = self
            .best
            .map(|turn| format!(" bestmove {}", spell_turn(root, rules.turn_rules(), turn)))
            .unwrap_or_default();
        format!("{}{best} nodes {}", self.verdict, self.nodes)
    }
}

/// One df-pn search.
pub(super) struct Search<'a> {
    /// Whose checkpoint the table is.
    owner: Owner,
    last_saved: Instant,
    pub(super) rules: Rules,
    tables: Option<&'a Tablebase>,
    pub(super) prover: Color,
    pub(super) table: ProofTable,
    /// The keys of the positions on the current line, the root first.
    pub(super) path: Vec<u64>,
    pub(super) nodes: u64,
    budget: Budget<'a>,
    started: Instant,
    pub(super) aborted: bool,
    /// Whether values resting on a repetition of a position above them are stored too:
    /// fast, but what is stored may not hold on another path (see [`answer`]).
    store_dependent: bool,
}

/// A child of an expanded node: its position and, when it is decided without search
/// (tables, no turn, repetition), its fixed numbers.
struct Child {
    position: Position,
    fixed: Option<(u32, u32)>,
    /// When `fixed` rests on a repetition: the place on the path of the earliest position
    /// repeated ([`INDEPENDENT`] otherwise).
    low: usize,
}

/// The `low` of a value that rests on no repetition of the path above it.
const INDEPENDENT: usize = usize::MAX;

impl Search<'_> {
    /// `(phi, delta)` of a node whose side to move reaches its goal (`true`) or fails.
    fn decided(goal_reached: bool) -> (u32, u32) {
        if goal_reached {
            (0, INFINITE)
        } else {
            (INFINITE, 0)
        }
    }

    /// The value of a finished game for its side to move: lost without stones or without
    /// a legal turn, won when the other side has no stones.
    fn game_end(position: &Position) -> Option<Outcome> {
        if position.us().is_empty() || !has_legal_turn(position) {
            Some(Outcome::Loss)
        } else if position.them().is_empty() {
            Some(Outcome::Win)
        } else {
            None
        }
    }

    /// The value of a position settled whatever the path: the end of the game, or the
    /// tables' value.
    pub(super) fn settled(&self, position: &Position) -> Option<Outcome> {
        Search::game_end(position).or_else(|| {
            self.tables
                .and_then(|tables| tables.probe_outcome(position))
        })
    }

    /// The numbers of a position decided without search, for its side to move: the end
    /// of the game, a draw by repeating a position of the current line, or the tables'
    /// value.
    pub(super) fn leaf(&self, position: &Position) -> Option<(u32, u32)> {
        self.leaf_and_low(position).map(|(numbers, _)| numbers)
    }

    /// [`Search::leaf`], and where on the path the position it repeats is (the whole path
    /// for the longest line; [`INDEPENDENT`] when it repeats none).
    fn leaf_and_low(&self, position: &Position) -> Option<((u32, u32), usize)> {
        let mover_is_prover = position.side_to_move() == self.prover;
        let repeated = || {
            let at = self.path.iter().position(|&key| key == position.key());
            at.or((self.path.len() >= MAX_PATH).then_some(0))
        };
        let (outcome, low) = match Search::game_end(position) {
            Some(end) => (end, INDEPENDENT),
            None => match repeated() {
                Some(at) => (Outcome::Draw, at),
                None => (
                    self.tables
                        .and_then(|tables| tables.probe_outcome(position))?,
                    INDEPENDENT,
                ),
            },
        };
        // The prover's goal is a win; its opponent's is anything else.
        let numbers = Search::decided(if mover_is_prover {
            outcome == Outcome::Win
        } else {
            outcome != Outcome::Loss
        });
        Some((numbers, low))
    }

    fn numbers(&self, child: &Child) -> (u32, u32) {
        child
            .fixed
            .or_else(|| self.table.get(child.position.key()))
            .unwrap_or((1, 1))
    }

    pub(super) fn out_of_budget(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes.is_multiple_of(1024) {
            let over_nodes = self.budget.nodes.is_some_and(|n| self.nodes >= n);
            let over_time = self
                .budget
                .time
                .is_some_and(|t| self.started.elapsed() >= t);
            if over_nodes || over_time || self.budget.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            if let Some(checkpoint) = self.budget.checkpoint
                && (self.aborted || self.last_saved.elapsed() >= checkpoint.every)
            {
                self.save(checkpoint);
            }
        }
        self.aborted
    }

    /// Searches `position` until its `phi` reaches `limit_phi` or its `delta` reaches
    /// `limit_delta`; returns both.
    ///
    /// A decided value that rests on a repetition of a position above this one on the
    /// path holds only while that position is on the path: it is kept by the caller, not
    /// stored (the simple remedy for the graph-history interaction). The third number is
    /// the place on the path of that position, [`INDEPENDENT`] if there is none.
    pub(super) fn expand(
        &mut self,
        position: &Position,
        limit_phi: u32,
        limit_delta: u32,
    ) -> (u32, u32, usize) {
        self.nodes += 1;
        let start_nodes = self.nodes;
        let depth = self.path.len();
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(position, &mut turns);
        self.path.push(position.key());
        let mut children: Vec<Child> = turns
            .into_iter()
            .map(|turn| Child {
                position: position.play(turn),
                fixed: None,
                low: INDEPENDENT,
            })
            .collect();
        for child in &mut children {
            if let Some((numbers, low)) = self.leaf_and_low(&child.position) {
                child.fixed = Some(numbers);
                child.low = low;
            }
        }
        let (mut phi, mut delta);
        loop {
            // phi: the least delta of a child. delta: the largest phi of a child plus one
            // for each other child still open (the weak proof number of Ueda et al.,
            // 2008), not their sum: in Fanorona's graph, full of transpositions and
            // cycles, sums count the same subtrees over and over and overflow. Finite
            // numbers stay below INFINITE, which means decided only.
            let mut best = 0;
            let (mut least, mut second) = (INFINITE, INFINITE);
            let (mut largest, mut open, mut decided_for_us) = (0u64, 0u64, false);
            for (index, child) in children.iter().enumerate() {
                let (child_phi, child_delta) = self.numbers(child);
                if child_phi >= INFINITE {
                    decided_for_us = true;
                } else if child_phi > 0 {
                    largest = largest.max(u64::from(child_phi));
                    open += 1;
                }
                if child_delta < least {
                    second = least;
                    least = child_delta;
                    best = index;
                } else if child_delta < second {
                    second = child_delta;
                }
            }
            phi = least;
            delta = if decided_for_us {
                INFINITE
            } else if open == 0 {
                0
            } else {
                (largest + open - 1).min(u64::from(FINITE_MAX)) as u32
            };
            if phi >= limit_phi || delta >= limit_delta || self.out_of_budget() {
                break;
            }
            let (child_phi, _) = self.numbers(&children[best]);
            let others = u64::from(delta) - u64::from(child_phi).min(u64::from(delta));
            let child_limit_phi =
                (u64::from(limit_delta).saturating_sub(others)).min(u64::from(INFINITE)) as u32;
            // The 1 + epsilon trick (Pawlewicz and Lew): the child stays the focus until
            // it falls a quarter behind the next best, not one behind, which saves most
            // of the back-and-forth between siblings.
            let child_limit_delta = limit_phi
                .min(second.saturating_add(second / 4).saturating_add(1))
                .min(INFINITE);
            let child = children[best].position;
            let (child_phi, child_delta, low) =
                self.expand(&child, child_limit_phi, child_limit_delta);
            if (child_phi == 0 || child_delta == 0) && low != INDEPENDENT {
                children[best].fixed = Some((child_phi, child_delta));
                children[best].low = low;
            }
        }
        self.path.pop();
        // What the value rests on: a goal reached needs one child that fails at its own
        // (the most independent one counts), a failure needs every child.
        let low = if phi == 0 {
            children
                .iter()
                .filter(|c| self.numbers(c).1 == 0)
                .map(|c| c.low)
                .max()
                .unwrap_or(INDEPENDENT)
        } else if delta == 0 {
            children.iter().map(|c| c.low).min().unwrap_or(INDEPENDENT)
        } else {
            INDEPENDENT
        };
        let low = if low >= depth { INDEPENDENT } else { low };
        if !self.aborted && (low == INDEPENDENT || self.store_dependent) {
            self.table
                .put(position.key(), phi, delta, self.nodes - start_nodes + 1);
        }
        (phi, delta, low)
    }

    /// Saves the table; a failure is reported and the search goes on.
    fn save(&mut self, checkpoint: Checkpoint<'_>) {
        if let Err(e) = save(checkpoint.path, self.owner, &self.table) {
            tracing::warn!("{e:#}");
        }
        self.last_saved = Instant::now();
    }

    /// After a finished search of the root: a turn whose child reaches the root mover's
    /// goal (the child's mover, the root mover's opponent, fails at its own).
    fn goal_turn(&mut self, root: &Position) -> Option<Turn> {
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(root, &mut turns);
        self.path.push(root.key());
        let found = turns.into_iter().find(|&turn| {
            let child = root.play(turn);
            let numbers = self.leaf(&child).or_else(|| self.table.get(child.key()));
            numbers.is_some_and(|(_, delta)| delta == 0)
        });
        self.path.pop();
        found
    }
}

/// A turn of a drawn `root` after which the opponent does not win, each candidate proved
/// from the child itself: the turn the root's search found rests on disproofs made with
/// the root on the path, where repeating it was a draw, and a child that is lost except
/// by repeating the root is lost once the root has been left.
fn drawing_turn(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budget: Budget<'_>,
) -> Result<(Option<Turn>, u64)> {
    let mut turns = Vec::new();
    rules.turn_rules().generate(root, &mut turns);
    let opponent = root.side_to_move().opposite();
    let budget = Budget {
        checkpoint: None,
        proof: false,
        ..budget
    };
    let mut nodes = 0;
    for turn in turns {
        let (proof, used) = prove(
            &root.play(turn),
            rules,
            tables,
            Query { prover: opponent },
            budget,
        )?;
        nodes += used;
        if matches!(proof, Proof::Disproved(_)) {
            return Ok((Some(turn), nodes));
        }
    }
    Ok((None, nodes))
}

/// One binary question answered: the proof, the nodes it took and, when the budget asks
/// for proofs, the strategy that shows it.
#[derive(Clone, Debug)]
pub struct Answer {
    /// Proved, disproved or unknown.
    pub proof: Proof,
    /// Nodes searched, extracting the strategy included.
    pub nodes: u64,
    /// The strategy of the side whose goal was reached at the root: the prover's win
    /// (when the budget asks for proofs), or its opponent's defence (always: it confirms
    /// the disproof).
    pub strategy: Option<Strategy>,
}

impl Answer {
    /// An answer known without a search: the first question's, marked answered in a
    /// checkpoint, or the second's, when it is not asked.
    fn given(proof: Proof) -> Answer {
        Answer {
            proof,
            nodes: 0,
            strategy: None,
        }
    }
}

/// Whether `query.prover` wins from `root` under `rules`, with `tables` as leaves.
pub fn prove(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
) -> Result<(Proof, u64)> {
    answer(root, rules, tables, query, budget).map(|answer| (answer.proof, answer.nodes))
}

/// [`prove`], with the strategy when `budget.proof` asks for it.
///
/// The search first stores every value it finds, which is fast but lets a disproof that
/// rested on a repetition of one line be reused on another (the graph-history
/// interaction). So a disproof is confirmed by writing the defence down as a strategy
/// over positions (see `defence`); if none is found, the question is searched again
/// storing only values that hold whatever the path. A proof never rests on a repetition.
pub fn answer(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
) -> Result<Answer> {
    let started = Instant::now();
    let spent = match answer_storing(root, rules, tables, query, budget, true)? {
        Ok(answer) => return Ok(answer),
        Err(spent) => spent,
    };
    let budget = Budget {
        time: budget.time.map(|t| t.saturating_sub(started.elapsed())),
        nodes: budget.nodes.map(|n| n.saturating_sub(spent)),
        checkpoint: None,
        ..budget
    };
    match answer_storing(root, rules, tables, query, budget, false)? {
        Ok(answer) => Ok(Answer {
            nodes: answer.nodes + spent,
            ..answer
        }),
        Err(_) => bail!(
            "{root}: a value was found, but not a strategy that holds whatever the path \
             (the graph-history interaction): it is not confirmed"
        ),
    }
}

/// One search of `query`, storing values that rest on repetitions or not; the nodes it
/// took when its disproof is not confirmed by a strategy.
fn answer_storing(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
    store_dependent: bool,
) -> Result<Result<Answer, u64>> {
    let owner = Owner::of(root, &rules, query.prover);
    let mut table = ProofTable::new(budget.table_mb);
    if let Some(checkpoint) = budget.checkpoint
        && let Some((saved, entries)) = load(checkpoint.path)?
    {
        if (saved.root, saved.board, saved.chain_rule)
            != (owner.root, owner.board, owner.chain_rule)
        {
            bail!(
                "{} is the checkpoint of another position or other rules",
                checkpoint.path.display()
            );
        }
        if saved == owner {
            for (key, phi, delta, work) in entries {
                table.put(key, phi, delta, work);
            }
        }
    }
    let mut search = Search {
        owner,
        last_saved: Instant::now(),
        rules,
        tables,
        prover: query.prover,
        table,
        path: Vec::new(),
        nodes: 0,
        budget,
        started: Instant::now(),
        aborted: false,
        store_dependent,
    };
    let mover = root.side_to_move();
    let mover_is_prover = mover == query.prover;
    let (phi, delta) = match search.leaf(root) {
        Some(numbers) => numbers,
        None => {
            let (phi, delta, _) = search.expand(root, INFINITE, INFINITE);
            (phi, delta)
        }
    };
    let proof = if search.aborted && phi != 0 && delta != 0 {
        Proof::Unknown
    } else if phi == 0 {
        // The root's mover reached its goal.
        let turn = search.goal_turn(root);
        if mover_is_prover {
            Proof::Proved(turn)
        } else {
            Proof::Disproved(turn)
        }
    } else if mover_is_prover {
        Proof::Disproved(None)
    } else {
        Proof::Proved(None)
    };
    // A disproof is always confirmed; a proof is written down when asked for.
    let disproved = matches!(proof, Proof::Disproved(_));
    let wanted = proof != Proof::Unknown && (budget.proof || disproved);
    let strategy = if wanted {
        // Searches again where the table lost entries, within what is left of the
        // budget; saves no checkpoint.
        search.budget.checkpoint = None;
        let owner = if phi == 0 { mover } else { mover.opposite() };
        let strategy = search.extract(root, owner);
        if strategy.is_none() && !search.aborted {
            if owner != query.prover {
                return Ok(Err(search.nodes));
            }
            bail!(
                "{root}: {}'s win was proved, but not written down as a strategy",
                owner.name()
            );
        }
        strategy
    } else {
        None
    };
    // Stopped while confirming: the disproof is not known to hold, and the table is
    // saved for the next run.
    let proof = if disproved && strategy.is_none() {
        if let Some(checkpoint) = budget.checkpoint {
            search.save(checkpoint);
        }
        Proof::Unknown
    } else {
        proof
    };
    Ok(Ok(Answer {
        proof,
        nodes: search.nodes,
        strategy,
    }))
}

/// Where the second question of a solve keeps its checkpoint: `FILE.second`.
pub fn second_checkpoint(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".second");
    PathBuf::from(name)
}

/// The two questions answered one after the other: the second only if the first is
/// disproved.
fn one_after_the_other(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budgets: [Budget<'_>; 2],
    first_answered: bool,
) -> Result<[Answer; 2]> {
    let started = Instant::now();
    let mover = root.side_to_move();
    let first = if first_answered {
        Answer::given(Proof::Disproved(None))
    } else {
        answer(root, rules, tables, Query { prover: mover }, budgets[0])?
    };
    if !matches!(first.proof, Proof::Disproved(_)) {
        return Ok([first, Answer::given(Proof::Unknown)]);
    }
    if let Some(checkpoint) = budgets[0].checkpoint
        && !first_answered
    {
        mark_first_answered(checkpoint.path, root, &rules)?;
    }
    let budget = Budget {
        time: budgets[1].time.map(|t| t.saturating_sub(started.elapsed())),
        nodes: budgets[1].nodes.map(|n| n.saturating_sub(first.nodes)),
        ..budgets[1]
    };
    let second = answer(
        root,
        rules,
        tables,
        Query {
            prover: mover.opposite(),
        },
        budget,
    )?;
    Ok([first, second])
}

/// Writes the first question's checkpoint as the empty table of the second: the file
/// then says that the first was disproved.
fn mark_first_answered(path: &Path, root: &Position, rules: &Rules) -> Result<()> {
    let second_owner = Owner::of(root, rules, root.side_to_move().opposite());
    save(path, second_owner, &ProofTable::new(1))
}

/// The two questions answered at once on two threads: a proof of either stops the other,
/// which it makes needless.
fn side_by_side(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budgets: [Budget<'_>; 2],
    first_answered: bool,
) -> Result<[Answer; 2]> {
    let mover = root.side_to_move();
    let stops = [AtomicBool::new(false), AtomicBool::new(false)];
    let run = |question: usize| -> Result<Answer> {
        if question == 0 && first_answered {
            return Ok(Answer::given(Proof::Disproved(None)));
        }
        let prover = if question == 0 {
            mover
        } else {
            mover.opposite()
        };
        let budget = Budget {
            stop: &stops[question],
            ..budgets[question]
        };
        let answer = on_own_stack(|| answer(root, rules, tables, Query { prover }, budget))?;
        match answer.proof {
            Proof::Proved(_) => stops[1 - question].store(true, Ordering::Relaxed),
            Proof::Disproved(_) if question == 0 && !first_answered => {
                if let Some(checkpoint) = budgets[0].checkpoint {
                    mark_first_answered(checkpoint.path, root, &rules)?;
                }
            }
            _ => {}
        }
        Ok(answer)
    };
    std::thread::scope(|scope| {
        let handles = [scope.spawn(|| run(0)), scope.spawn(|| run(1))];
        while !handles.iter().all(|h| h.is_finished()) {
            if budgets[0].stop.load(Ordering::Relaxed) {
                stops.iter().for_each(|s| s.store(true, Ordering::Relaxed));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let [first, second] = handles.map(|h| h.join().map_err(|_| anyhow!("the solver failed")));
        Ok([first??, second??])
    })
}

/// The value of `root` for its side to move: whether it wins, and whether its opponent
/// does (one after the other, or side by side with `budget.threads` at least 2). Neither:
/// a draw. With a checkpoint, a run goes on from the files of both questions (the first
/// in FILE, the second in [`second_checkpoint`]), which are removed once the value is
/// proved.
pub fn solve(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budget: Budget<'_>,
) -> Result<Solved> {
    let started = Instant::now();
    let mover = root.side_to_move();
    let second_file = budget.checkpoint.map(|c| second_checkpoint(c.path));
    let second_budget = Budget {
        checkpoint: budget
            .checkpoint
            .zip(second_file.as_deref())
            .map(|(checkpoint, path)| Checkpoint { path, ..checkpoint }),
        ..budget
    };
    // A proof needs the first question's strategy, which the mark does not keep.
    let second_owner = Owner::of(root, &rules, mover.opposite());
    let first_answered = !budget.proof
        && match budget.checkpoint {
            Some(checkpoint) => {
                load(checkpoint.path)?.is_some_and(|(owner, _)| owner == second_owner)
            }
            None => false,
        };
    let budgets = [budget, second_budget];
    let [first, second] = if budget.threads >= 2 {
        side_by_side(root, rules, tables, budgets, first_answered)?
    } else {
        one_after_the_other(root, rules, tables, budgets, first_answered)?
    };
    let nodes = first.nodes + second.nodes;
    let root_turn =
        |strategy: &Option<Strategy>| strategy.as_ref().and_then(|s| s.turn(root.key()));
    let (verdict, best, strategies, nodes) = match (first.proof, second.proof) {
        (Proof::Proved(turn), _) => {
            let best = root_turn(&first.strategy).or(turn);
            (Verdict::Win, best, vec![first.strategy], nodes)
        }
        (_, Proof::Proved(_)) => (Verdict::Loss, None, vec![second.strategy], nodes),
        (Proof::Disproved(_), Proof::Disproved(_)) => {
            let (best, more) = match root_turn(&second.strategy) {
                Some(turn) => (Some(turn), 0),
                None => drawing_turn(root, rules, tables, budget)?,
            };
            (
                Verdict::Draw,
                best,
                vec![first.strategy, second.strategy],
                nodes + more,
            )
        }
        _ => (Verdict::Unknown, None, Vec::new(), nodes),
    };
    if verdict != Verdict::Unknown
        && let Some(checkpoint) = budget.checkpoint
    {
        let _ = std::fs::remove_file(checkpoint.path);
        if let Some(second) = &second_file {
            let _ = std::fs::remove_file(second);
        }
    }
    Ok(Solved {
        verdict,
        best,
        nodes,
        elapsed: started.elapsed(),
        strategies: if budget.proof && strategies.iter().all(Option::is_some) {
            strategies.into_iter().flatten().collect()
        } else {
            Vec::new()
        },
    })
}

/// Runs `work` on a thread of its own with room for the longest line (proof-number search
/// recurses once per ply of its current line).
pub fn on_own_stack<T: Send>(work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("solve".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, work)
            .context("cannot start the solver's thread")?
            .join()
            .map_err(|_| anyhow!("the solver failed"))?
    })
}

/// [`solve`] on a thread of its own with room for the longest line.
pub fn solve_on_own_stack(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budget: Budget<'_>,
) -> Result<Solved> {
    on_own_stack(|| solve(root, rules, tables, budget))
}
