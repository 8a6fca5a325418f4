//! Depth-first proof-number search, in the phi/delta form: at every node, `phi` is the
//! proof number of the side to move's goal and `delta` that of its opponent's. The side
//! proving a win (the prover) aims at the win; the other side aims at stopping it. A
//! node's `phi` is the least `delta` of its children and its `delta` the largest `phi` of
//! a child plus one per other open child (a weak proof number). A node searched under thresholds returns when either number reaches its
//! threshold; the most promising child gets thresholds that send the search back up as
//! soon as another child becomes more promising.

use super::check::settled;
use super::checkpoint::{Checkpoint, Owner, load, save};
use super::engine_win::{self, EngineGuide};
use super::evaluation_cache::EvaluationCache;
use super::forced::ForcedDefences;
use super::fortress;
use super::stored::StoredResults;
use super::strategy::{ClosedDefence, Guarantee, Strategy};
use super::table::{FINITE_MAX, INFINITE, ProofTable};
use super::verdict::Verdict;
use crate::rules::Rules;
use crate::rules::notation::spell_turn;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::{Outcome, Tablebase, Value};
use anyhow::{Result, bail};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The turns a node's list has room for before it grows.
const TURNS_AT_ONCE: usize = 64;

/// The longest path searched; deeper nodes count as draws, like repetitions.
const MAX_PATH: usize = 4_000;

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
    /// Memory for writing a strategy down, in MiB; `None`: as much as `table_mb`.
    pub strategy_mb: Option<usize>,
    /// Where to save the table now and then (and when the budget runs out), and to
    /// resume from.
    pub checkpoint: Option<Checkpoint<'a>>,
    /// Also write down the strategies that prove the value (see [`Solved::strategies`]),
    /// within the same limits.
    pub proof: bool,
    /// Threads: with 2 or more, the two questions of a solve are searched side by side
    /// (more are not used yet).
    pub threads: usize,
    /// How each question is searched.
    pub method: Method,
    /// Results proved before, each a leaf of the search; a proof that rests on them
    /// carries their turns.
    pub store: Option<&'a dyn StoredResults>,
    /// Tables of more stones than the proof's, which guide without being leaves of the
    /// proof: a position they hold is decided at once in the search, and its strategy
    /// is written by following their values down to the proof's tables (see
    /// [`Search::guided`]).
    pub guide: Option<&'a Tablebase>,
    /// What a `--method exits` search of the same prover disproved: leaves of the
    /// search, disproved whatever the path, and the defender's first choices when a
    /// defence is written (see [`ForcedDefences`]).
    pub forced: Option<&'a ForcedDefences>,
    /// With df-pn: the most positions of the defender's fortress, tried when df-pn stops
    /// with a question open (see `fortress` and [`Budget::fortress_positions`]); `None`:
    /// df-pn alone.
    pub fortress: Option<usize>,
    /// With df-pn: the engine whose choices are followed when df-pn and the fortress
    /// leave a question open (see `engine_win`); `None`: not tried.
    pub engine: Option<&'a EngineGuide>,
}

impl<'a> Budget<'a> {
    /// No limit but `stop`: a proof table of 64 MiB, one thread, df-pn and a fortress, no
    /// strategies, no store nor guide; the fields to change are set over it.
    pub fn until(stop: &'a AtomicBool) -> Budget<'a> {
        Budget {
            nodes: None,
            time: None,
            stop,
            table_mb: 64,
            strategy_mb: None,
            checkpoint: None,
            proof: false,
            threads: 1,
            method: Method::DepthFirst,
            store: None,
            guide: None,
            forced: None,
            fortress: Some(Budget::fortress_positions(64, None)),
            engine: None,
        }
    }

    /// The most positions the walk along the engine's choices takes: a sixteenth of a
    /// node limit (each position walked costs an engine search of thousands of nodes
    /// where the prover is to move), and what fits in the memory for writing a strategy
    /// down.
    pub(super) fn engine_positions(&self) -> u64 {
        let memory = ((self.strategy_megabytes() as u64) << 20) / engine_win::BYTES_PER_POSITION;
        self.nodes.map_or(memory, |nodes| memory.min(nodes / 16))
    }

    /// The most positions of a fortress: what fits in `megabytes` (the memory for
    /// writing a strategy down), and no more than a node limit, so that `--nodes N`
    /// bounds df-pn's nodes and, apart, the fortress's positions.
    pub fn fortress_positions(megabytes: usize, nodes: Option<u64>) -> usize {
        let in_memory = megabytes.saturating_mul(1 << 20) / fortress::BYTES_PER_POSITION;
        nodes.map_or(in_memory, |nodes| {
            in_memory.min(usize::try_from(nodes).unwrap_or(usize::MAX))
        })
    }

    /// Memory for writing a strategy down, in MiB.
    pub(super) fn strategy_megabytes(&self) -> usize {
        self.strategy_mb.unwrap_or(self.table_mb)
    }

    /// The most stones of the guide's tables; 0 without a guide.
    pub(super) fn guide_stones(&self) -> u8 {
        self.guide.map_or(0, |guide| guide.max_stones() as u8)
    }

    /// Whose checkpoint a search of `prover`'s win from `root` under `rules` with this
    /// budget writes: the guide and the method change what its table's values mean.
    pub(super) fn checkpoint_owner(&self, root: &Position, rules: &Rules, prover: Color) -> Owner {
        let exits = self.method.repetition_is_prover_win();
        Owner::of(root, rules, prover, self.guide_stones(), exits)
    }

    /// What is left of the budget once `elapsed` time and `spent` nodes have gone.
    pub(super) fn after(self, elapsed: Duration, spent: u64) -> Self {
        Budget {
            time: self.time.map(|t| t.saturating_sub(elapsed)),
            nodes: self.nodes.map(|n| n.saturating_sub(spent)),
            ..self
        }
    }
}

/// How a binary question is searched.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Method {
    /// Depth-first proof-number search alone, from the root.
    DepthFirst,
    /// A best-first graph of the positions near the root, decided backwards with cycles
    /// settled exactly, and a df-pn search of at most `leaf_nodes` nodes at each new
    /// position (see `manager`).
    Graph {
        /// The nodes of each leaf's df-pn search.
        leaf_nodes: u64,
    },
    /// Df-pn in which the prover's opponent must force every line out of the positions
    /// the search has to expand, into the tables, the guide, the store or the end of the
    /// game: a repetition (or a line too long) counts as the prover's win. Its disproofs
    /// never rest on a repetition, so the defence they describe is finite above the
    /// positions that settle it, instead of a closed region of quiet positions that
    /// no table holds; its proofs mean nothing and are reported undecided.
    Exits,
}

impl Method {
    /// Whether a repetition counts as the prover's win (see [`Method::Exits`]).
    pub(super) fn repetition_is_prover_win(self) -> bool {
        self == Method::Exits
    }
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
    /// The questions searched and left open: the prover, and its proof and disproof
    /// numbers at the root when the search stopped.
    pub open: Vec<(Color, u32, u32)>,
    /// Every strategy written down, also when the verdict is unknown: a question answered
    /// while the other was left open (such as "White does not lose") is a result worth
    /// keeping in a [`super::ProofStore`].
    pub learned: Vec<Strategy>,
    /// The finished parts of defences left unfinished: results for the store too.
    pub closed: Vec<ClosedDefence>,
}

impl Solved {
    /// How far the numbers of the open questions got: `white wins? proof 91 disproof 93`
    /// for each, `; `-separated; empty when none was left open. A disproof that no defence
    /// confirmed within the limits says so instead of showing an infinite number.
    pub fn open_numbers(&self) -> String {
        self.open
            .iter()
            .map(|&(prover, pn, dn)| {
                let question = format!("{} wins?", prover.name());
                if dn == 0 {
                    // Df-pn's disproof may rest on a repetition of one line (the
                    // graph-history interaction): only a defence written down shows it.
                    format!(
                        "{question} disproof not confirmed (no defence written within the limits)"
                    )
                } else {
                    format!("{question} proof {pn} disproof {dn}")
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

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
    /// The node count when the table last matched its checkpoint file (read from it or
    /// written to it); `None` once it holds something the file does not. A save with
    /// nothing new is skipped: a run resumed into writing a strategy would otherwise
    /// write GBs of the same table again.
    saved_at_nodes: Option<u64>,
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
    /// The search returns, storing what it found, once this many nodes are searched
    /// (a leaf's share of the graph search in `manager`).
    pause_at: u64,
    /// The checkpoint beside which a strategy being written is saved (see
    /// [`Search::budget_for_strategy`]).
    strategy_checkpoint: Option<Checkpoint<'a>>,
    /// What was finished of a defence the writer left unfinished, for the store.
    pub(super) closed: Option<ClosedDefence>,
    /// The owner's placements in a defence the writer left unfinished (see
    /// [`Answer::defended`]).
    pub(super) defended: Vec<u64>,
    /// Whether a node's children are searched in the order of their evaluation (always,
    /// but for the test that measures it).
    order_by_evaluation: bool,
    /// The children's evaluations, for the nodes searched again.
    evaluations: EvaluationCache,
}

/// A child of an expanded node: its position and, when it is decided without search
/// (tables, no turn, repetition), its fixed numbers.
struct Child {
    position: Position,
    fixed: Option<(u32, u32)>,
    /// When `fixed` rests on a repetition: its [`Low`] ([`INDEPENDENT`] otherwise).
    low: Low,
}

/// What the win writer keeps for each position it gathers, about: the position, its
/// turns and children, and the links back to it.
pub(super) const WIN_WRITER_BYTES_PER_POSITION: usize = 512;

/// What a decided value rests on: one more than the place on the path of the earliest
/// position whose repetition it rests on (1 for the search's root), [`ON_SOME_LINE`] or
/// [`INDEPENDENT`].
type Low = usize;

/// The low of a value that rests on no repetition of the path above it.
const INDEPENDENT: Low = usize::MAX;

/// The low of a value read from the table that rested on a repetition of the line it
/// was found on, which may not be this one: it holds on no line for sure, the root's
/// included.
const ON_SOME_LINE: Low = 0;

impl Search<'_> {
    /// `(phi, delta)` of a node whose side to move reaches its goal (`true`) or fails.
    fn decided(goal_reached: bool) -> (u32, u32) {
        if goal_reached {
            (0, INFINITE)
        } else {
            (INFINITE, 0)
        }
    }

    /// The value of a position settled whatever the path: the end of the game, or the
    /// tables' value.
    pub(super) fn settled(&self, position: &Position) -> Option<Outcome> {
        settled(position, self.tables)
    }

    /// Whether `owner` keeps `guarantee` from `position` without a search: by the end of
    /// the game, the tables or the store; `None` when none of them knows.
    pub(super) fn settled_for(
        &self,
        position: &Position,
        owner: Color,
        guarantee: Guarantee,
    ) -> Option<bool> {
        match self.settled(position) {
            Some(outcome) => Some(guarantee.kept_by(outcome, position.side_to_move(), owner)),
            None => self
                .budget
                .store?
                .achieves(position.key(), owner, guarantee),
        }
    }

    /// The guide's value of a position (see [`Budget::guide`]): true, but not yet shown
    /// over the proof's tables, so the strategy writers go on below it, their choices
    /// made by the guide's values. Asked only of positions that [`Search::settled_for`]
    /// left open, so the proof's tables are not probed again. With `distance`, the turns
    /// to the next capture are read too.
    pub(super) fn guided(&self, position: &Position, distance: bool) -> Option<Value> {
        let guide = self.budget.guide?;
        if distance {
            guide.probe(position)
        } else {
            guide.probe_outcome(position).map(|outcome| Value {
                outcome,
                distance: 0,
            })
        }
    }

    /// Whether `owner` keeps `guarantee` from `position` by the guide's value; `None`
    /// when the guide does not hold it (asked, as [`Search::guided`], of open positions).
    pub(super) fn guided_for(
        &self,
        position: &Position,
        owner: Color,
        guarantee: Guarantee,
    ) -> Option<bool> {
        self.guided(position, false)
            .map(|value| guarantee.kept_by(value.outcome, position.side_to_move(), owner))
    }

    /// What was finished of the last defence the writer left unfinished (see
    /// [`Search::closed_part`]), taken out.
    pub(super) fn take_closed(&mut self) -> Option<ClosedDefence> {
        self.closed.take()
    }

    /// The store of results proved before, if the search has one.
    pub(super) fn store(&self) -> Option<&dyn StoredResults> {
        self.budget.store
    }

    /// The tables the search takes as leaves.
    pub(super) fn tables(&self) -> Option<&Tablebase> {
        self.tables
    }

    /// The nodes a `--method exits` search of this prover took to show that the prover
    /// does not win at `position`, when it did (see [`ForcedDefences`]).
    pub(super) fn forced(&self, position: &Position) -> Option<u64> {
        self.budget
            .forced
            .filter(|forced| forced.prover() == self.prover)
            .and_then(|forced| forced.forced(position))
    }

    /// The most stones of the guide's tables; 0 without a guide.
    pub(super) fn guide_stones(&self) -> u8 {
        self.budget.guide_stones()
    }

    /// Where a strategy being written is saved, once the search has handed its
    /// checkpoint over to the writer.
    pub(super) fn strategy_checkpoint(&self) -> Option<Checkpoint<'_>> {
        self.strategy_checkpoint
    }

    /// The numbers of a position decided without search, for its side to move: the end
    /// of the game, a stored result, a draw by repeating a position of the current line,
    /// or the tables' value.
    pub(super) fn leaf(&self, position: &Position) -> Option<(u32, u32)> {
        self.leaf_and_low(position).map(|(numbers, _)| numbers)
    }

    /// [`Search::leaf`], and its [`Low`] (the whole path for the longest line).
    fn leaf_and_low(&self, position: &Position) -> Option<((u32, u32), Low)> {
        let mover_is_prover = position.side_to_move() == self.prover;
        let repeated = || {
            let at = self.path.iter().position(|&key| key == position.key());
            at.or((self.path.len() >= MAX_PATH).then_some(0))
                .map(|at| at + 1)
        };
        // A stored result holds whatever the path, so it comes before a repetition.
        let stored = || {
            let prover_wins =
                self.budget
                    .store?
                    .achieves(position.key(), self.prover, Guarantee::Win)?;
            Some(Search::decided(prover_wins == mover_is_prover))
        };
        let end = settled(position, None);
        if end.is_none() {
            if let Some(numbers) = stored() {
                return Some((numbers, INDEPENDENT));
            }
            // So does an exits search's disproof: the defender forces its way out from
            // here.
            if self.forced(position).is_some() {
                return Some((Search::decided(!mover_is_prover), INDEPENDENT));
            }
        }
        let (outcome, low) = match end {
            Some(end) => (end, INDEPENDENT),
            None => match repeated() {
                Some(at) if self.budget.method.repetition_is_prover_win() => {
                    let prover_wins = if mover_is_prover {
                        Outcome::Win
                    } else {
                        Outcome::Loss
                    };
                    (prover_wins, at)
                }
                Some(at) => (Outcome::Draw, at),
                None => (
                    self.tables
                        .and_then(|tables| tables.probe_outcome(position))
                        .or_else(|| self.budget.guide?.probe_outcome(position))?,
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

    /// The [`Low`] of `child`'s value.
    fn low(&self, child: &Child) -> Low {
        match child.fixed {
            Some(_) => child.low,
            None if self.table.rests_on_path(child.position.key()) => ON_SOME_LINE,
            None => INDEPENDENT,
        }
    }

    fn numbers(&self, child: &Child) -> (u32, u32) {
        child
            .fixed
            .or_else(|| self.table.get(child.position.key()))
            .unwrap_or((1, 1))
    }

    pub(super) fn out_of_budget(&mut self) -> bool {
        if self.aborted || self.nodes >= self.pause_at {
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
    /// stored (the simple remedy for the graph-history interaction), unless the search
    /// stores such values too, marked. The third number is the value's [`Low`].
    pub(super) fn expand(
        &mut self,
        position: &Position,
        limit_phi: u32,
        limit_delta: u32,
    ) -> (u32, u32, Low) {
        self.nodes += 1;
        let start_nodes = self.nodes;
        let depth = self.path.len();
        // Room for the turns of most positions at once: growing the list as the
        // generator fills it cost more than the generator did.
        let mut turns = Vec::with_capacity(TURNS_AT_ONCE);
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
        if let Some(store) = self.budget.store {
            for child in &children {
                store.prefetch(child.position.key());
            }
        }
        for child in &mut children {
            if let Some((numbers, low)) = self.leaf_and_low(&child.position) {
                child.fixed = Some(numbers);
                child.low = low;
            }
        }
        // The mover's most promising turns first, by the static evaluation of the child
        // (its mover's score, so the least first): every new child starts at (1, 1), and
        // of equal numbers the first is searched, so this order is where the search goes
        // first. In long quiet wins it finds the way that the generator's order misses
        // (docs/experiments.md). A settled child is never chosen for its place (a goal
        // reached settles the node, and a goal missed is never the least), so it is not
        // evaluated, and the others keep their order.
        if self.order_by_evaluation {
            children.sort_by_cached_key(|child| match child.fixed {
                Some(_) => i32::MIN,
                None => self.evaluations.evaluate(&child.position),
            });
        }
        let (mut phi, mut delta);
        let mut just_searched: Option<(usize, (u32, u32))> = None;
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
                let (child_phi, child_delta) = match just_searched {
                    // The child's own answer, which the table may not hold: it was not
                    // stored when the search stopped inside it, or lost to a collision.
                    Some((at, numbers)) if at == index && child.fixed.is_none() => numbers,
                    _ => self.numbers(child),
                };
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
            just_searched = Some((best, (child_phi, child_delta)));
        }
        self.path.pop();
        // What the value rests on: a goal reached needs one child that fails at its own
        // (the most independent one counts), a failure needs every child.
        let low = if phi == 0 {
            children
                .iter()
                .filter(|c| self.numbers(c).1 == 0)
                .map(|c| self.low(c))
                .max()
                .unwrap_or(INDEPENDENT)
        } else if delta == 0 {
            children
                .iter()
                .map(|c| self.low(c))
                .min()
                .unwrap_or(INDEPENDENT)
        } else {
            INDEPENDENT
        };
        // A repetition of this position or one below it holds on any line above.
        let low = if low > depth { INDEPENDENT } else { low };
        let work = self.nodes - start_nodes + 1;
        if !self.aborted {
            if low == INDEPENDENT {
                self.table.put(position.key(), phi, delta, work);
            } else if self.store_dependent {
                self.table
                    .put_resting_on_path(position.key(), phi, delta, work);
            }
        }
        (phi, delta, low)
    }

    /// Saves the table; a failure is reported and the search goes on.
    pub(super) fn save(&mut self, checkpoint: Checkpoint<'_>) {
        if self.saved_at_nodes != Some(self.nodes) || !checkpoint.path.exists() {
            match save(checkpoint.path, self.owner, &self.table) {
                Ok(()) => self.saved_at_nodes = Some(self.nodes),
                Err(e) => tracing::warn!("{e:#}"),
            }
        }
        self.last_saved = Instant::now();
    }

    /// After a finished search of the root: a turn whose child reaches the root mover's
    /// goal (the child's mover, the root mover's opponent, fails at its own).
    pub(super) fn goal_turn(&mut self, root: &Position) -> Option<Turn> {
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
    /// The prover's proof and disproof numbers at the root when the search stopped:
    /// how far an unknown answer got.
    pub numbers: (u32, u32),
    /// The finished part of a defence left unfinished, when the search has a store to
    /// keep it in.
    pub closed: Option<ClosedDefence>,
    /// The defender's placements in a defence the writer left unfinished, those met most
    /// often first: where a fortress starts (see `fortress`).
    pub defended: Vec<u64>,
}

impl Answer {
    /// An answer known without a search: the first question's, marked answered in a
    /// checkpoint, or the second's, when it is not asked.
    pub(super) fn given(proof: Proof) -> Answer {
        Answer {
            proof,
            nodes: 0,
            strategy: None,
            numbers: match proof {
                Proof::Proved(_) => (0, INFINITE),
                Proof::Disproved(_) => (INFINITE, 0),
                Proof::Unknown => (1, 1),
            },
            closed: None,
            defended: Vec::new(),
        }
    }
}

impl<'a> Search<'a> {
    /// A search of `query` from `root` with an empty table, or the table of the
    /// budget's checkpoint when it holds this question.
    pub(super) fn new(
        root: &Position,
        rules: Rules,
        tables: Option<&'a Tablebase>,
        query: Query,
        budget: Budget<'a>,
        store_dependent: bool,
    ) -> Result<Search<'a>> {
        let owner = budget.checkpoint_owner(root, &rules, query.prover);
        let mut table = ProofTable::new(budget.table_mb);
        let mut saved_at_nodes = None;

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
            if saved.guide_stones != owner.guide_stones {
                bail!(
                    "{} was saved by a search guided by the tables of {} stones, and this one \
                     has {} (0: no guide): give the same --guide-stones, or remove the file",
                    checkpoint.path.display(),
                    saved.guide_stones,
                    owner.guide_stones
                );
            }
            if saved.exits != owner.exits {
                let method = |exits| if exits { "exits" } else { "dfpn or graph" };
                bail!(
                    "{} was saved by a search of --method {}, and this one is of --method {}: \
                     give the same method, or remove the file",
                    checkpoint.path.display(),
                    method(saved.exits),
                    method(owner.exits)
                );
            }
            if saved == owner {
                for entry in entries {
                    table.restore(entry);
                }
                saved_at_nodes = Some(0);
            }
        }
        Ok(Search {
            owner,
            last_saved: Instant::now(),
            saved_at_nodes,
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
            pause_at: u64::MAX,
            strategy_checkpoint: None,
            closed: None,
            defended: Vec::new(),
            order_by_evaluation: true,
            evaluations: EvaluationCache::new(),
        })
    }

    /// Searches `position` afresh (an empty line above it) for at most `nodes` nodes, or
    /// until it is decided; its `(phi, delta)`. What it finds stays in the table. The
    /// current line (a writer's, which is not the search's) is set aside and put back.
    pub(super) fn probe(&mut self, position: &Position, nodes: u64) -> (u32, u32) {
        let line = std::mem::take(&mut self.path);
        self.pause_at = self.nodes.saturating_add(nodes);
        let (phi, delta, _) = self.expand(position, INFINITE, INFINITE);
        self.pause_at = u64::MAX;
        self.path = line;
        (phi, delta)
    }

    /// Keeps a value decided outside the search (`(0, INFINITE)` or `(INFINITE, 0)` for
    /// the side to move) where no collision replaces it.
    pub(super) fn keep_decided(&mut self, key: u64, phi: u32, delta: u32) {
        self.table.put(key, phi, delta, u64::MAX / 2);
        self.saved_at_nodes = None;
    }

    /// Whether the budget has run out, looked at now.
    pub(super) fn over_budget(&mut self) -> bool {
        if !self.aborted {
            let over_nodes = self.budget.nodes.is_some_and(|n| self.nodes >= n);
            let over_time = self
                .budget
                .time
                .is_some_and(|t| self.started.elapsed() >= t);
            self.aborted = over_nodes || over_time || self.budget.stop.load(Ordering::Relaxed);
            if let Some(checkpoint) = self.budget.checkpoint
                && (self.aborted || self.last_saved.elapsed() >= checkpoint.every)
            {
                self.save(checkpoint);
            }
        }
        self.aborted
    }

    /// Whether a strategy writer that holds about `bytes` has used its share of memory
    /// (`--strategy-memory`, else as much again as the proof table's `--memory`), and so
    /// stops: the search is then aborted, with one warning.
    pub(super) fn writer_full(&mut self, bytes: usize) -> bool {
        let megabytes = self.budget.strategy_megabytes();
        if bytes > megabytes.max(1) << 20 && !self.aborted {
            tracing::warn!(
                "writing the strategy down needs more than its {megabytes} MB \
                 (--strategy-memory, else --memory): stopped"
            );
            self.aborted = true;
        }
        self.aborted
    }

    /// The table is saved once more, as the search left it, and writing the strategy
    /// down saves it no more: the table is not the search's any more where it searches
    /// again. The checkpoint goes to the writer instead, which keeps a defence beside it
    /// (see `defence`): a run killed while writing loses neither. It gets as much time and as many nodes again as the
    /// search had: a value proved near the limit is not lost for want of its strategy
    /// (which the store and the confirmation of a disproof need).
    pub(super) fn budget_for_strategy(&mut self) {
        if let Some(checkpoint) = self.budget.checkpoint.take() {
            self.save(checkpoint);
            self.strategy_checkpoint = Some(checkpoint);
        }
        self.started = Instant::now();
        self.budget.nodes = self.budget.nodes.map(|n| self.nodes.saturating_add(n));
    }

    /// As [`Search::budget_for_strategy`], for the defence of a question the search left
    /// open (see `one_question`): as many nodes again, and `time` when given.
    pub(super) fn budget_for_open_defence(&mut self, time: Option<Duration>) {
        self.aborted = false;
        self.budget_for_strategy();
        if time.is_some() {
            self.budget.time = time;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// An open question shows its numbers; one that df-pn disproved but no defence
    /// confirmed says so in words, not with an infinite number.
    #[test]
    fn open_questions_say_how_far_they_got_in_words_a_reader_can_take() {
        let solved = Solved {
            verdict: Verdict::Unknown,
            best: None,
            nodes: 0,
            elapsed: Duration::ZERO,
            strategies: Vec::new(),
            open: vec![(Color::White, 91, 93), (Color::Black, INFINITE, 0)],
            learned: Vec::new(),
            closed: Vec::new(),
        };
        assert_eq!(
            solved.open_numbers(),
            "white wins? proof 91 disproof 93; black wins? disproof not confirmed \
             (no defence written within the limits)"
        );
    }

    /// A save with nothing searched since the table matched its file writes nothing; a
    /// save after more nodes writes the table again, and so does a search read back.
    #[test]
    fn a_save_with_nothing_new_leaves_the_file_alone() {
        let dir = std::env::temp_dir().join(format!("vato-dfpn-save-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("table.checkpoint");
        let checkpoint = Checkpoint {
            path: &path,
            every: Duration::from_secs(3600),
        };
        let stop = AtomicBool::new(false);
        let budget = Budget {
            checkpoint: Some(checkpoint),
            ..Budget::until(&stop)
        };
        let root: Position = "9/B7B/9/6W1W/9 w 0 1".parse().unwrap();
        let query = Query {
            prover: Color::White,
        };
        let mut search = Search::new(&root, Rules::default(), None, query, budget, false).unwrap();
        search.probe(&root, 500);
        search.save(checkpoint);
        let written = std::fs::read(&path).unwrap();
        std::fs::write(&path, b"left alone").unwrap();
        search.save(checkpoint);
        assert_eq!(std::fs::read(&path).unwrap(), b"left alone");
        search.probe(&root, 500);
        search.save(checkpoint);
        let again = std::fs::read(&path).unwrap();
        assert_ne!(again, b"left alone");

        // Read back, the table matches its file: nothing to write until it grows.
        std::fs::write(&path, &written).unwrap();
        let mut resumed = Search::new(&root, Rules::default(), None, query, budget, false).unwrap();
        std::fs::write(&path, b"left alone").unwrap();
        resumed.save(checkpoint);
        assert_eq!(std::fs::read(&path).unwrap(), b"left alone");
        resumed.keep_decided(12345, 0, INFINITE);
        resumed.save(checkpoint);
        assert_ne!(std::fs::read(&path).unwrap(), b"left alone");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[cfg(test)]
mod order {
    use super::*;
    use crate::solve::sample::random_positions;
    use crate::solve::test_tables::TestTables;
    use std::sync::atomic::AtomicBool;

    /// Over the 4-stone tables, positions of three stones against two searched with a
    /// small budget: in the evaluation's order df-pn decides more questions than in the
    /// generator's, and those both decide in fewer nodes (measured: 566 and 564 of 600,
    /// 30,002 nodes and 38,882); every proof agrees with the 5-stone tables.
    #[test]
    fn the_evaluations_order_decides_more_in_fewer_nodes() {
        const NODES: u64 = 4096;
        let rules = Rules::default();
        let tables = TestTables::build("order", rules, 5);
        let (truth, leaves) = (&tables.all, &tables.leaves);
        let stop = AtomicBool::new(false);
        let budget = Budget {
            nodes: Some(NODES),
            ..Budget::until(&stop)
        };
        // For each order: questions decided, and nodes on those both decide.
        let mut decided = [0usize; 2];
        let mut nodes = [0u64; 2];
        for root in random_positions(&rules, &[(3, 2), (2, 3)], 300, 3) {
            for prover in [Color::White, Color::Black] {
                let query = Query { prover };
                let run = |ordered: bool| {
                    let mut search = Search::new(&root, rules, Some(leaves), query, budget, true)
                        .expect("no checkpoint");
                    search.order_by_evaluation = ordered;
                    let (phi, delta, _) = search.expand(&root, INFINITE, INFINITE);
                    let value = (phi == 0 || delta == 0).then_some(phi == 0);
                    (value, search.nodes)
                };
                let runs = [run(false), run(true)];
                let mover = root.side_to_move();
                let truly =
                    Guarantee::Win.kept_by(truth.probe_outcome(&root).unwrap(), mover, prover);
                for (i, (value, _)) in runs.iter().enumerate() {
                    if let Some(mover_reached_goal) = *value {
                        // Values may rest on a repetition; only proofs are compared.
                        if mover_reached_goal == (mover == prover) {
                            assert!(
                                truly,
                                "{root}: {} wins? proved, and it does not win",
                                prover.name()
                            );
                        }
                        decided[i] += 1;
                    }
                }
                if runs.iter().all(|(value, _)| value.is_some()) {
                    nodes[0] += runs[0].1;
                    nodes[1] += runs[1].1;
                }
            }
        }
        eprintln!(
            "decided {decided:?} in the generator's and the evaluation's order; nodes {nodes:?}"
        );
        assert!(decided[1] > decided[0], "decided {decided:?}");
        assert!(nodes[1] < nodes[0], "nodes {nodes:?}");
    }
}

#[cfg(test)]
mod marks {
    use super::*;
    use crate::solve::sample::random_positions;
    use crate::solve::test_tables::TestTables;
    use std::collections::{HashMap, HashSet};
    use std::sync::atomic::AtomicBool;

    /// The positions of `rules` within `plies` of `root` that keep all its stones.
    fn quiet_neighbourhood(root: &Position, rules: Rules, plies: usize) -> Vec<Position> {
        let stones = root.occupied().count();
        let mut seen = HashSet::from([root.key()]);
        let mut layer = vec![*root];
        let mut all = vec![*root];
        let mut turns = Vec::new();
        for _ in 0..plies {
            let mut next = Vec::new();
            for position in &layer {
                turns.clear();
                rules.turn_rules().generate(position, &mut turns);
                for &turn in &turns {
                    let child = position.play(turn);
                    if child.occupied().count() == stones && seen.insert(child.key()) {
                        next.push(child);
                    }
                }
            }
            all.extend(&next);
            layer = next;
        }
        all
    }

    /// Over the 3-stone tables, a search that stores values resting on repetitions
    /// marks them, and every decided value left once they are forgotten agrees with the
    /// 4-stone tables on the positions near the root: it holds on any line. Some that
    /// were forgotten do not (the graph-history interaction); and without marking a value
    /// that rests on a marked one read from the table, one of these is kept (measured).
    #[test]
    fn decided_values_left_after_forgetting_the_marked_ones_hold_on_any_line() {
        let rules = Rules::default();
        let tables = TestTables::build("marks", rules, 4);
        let (truth, leaves) = (&tables.all, &tables.leaves);
        let stop = AtomicBool::new(false);
        let budget = Budget {
            nodes: Some(100_000),
            ..Budget::until(&stop)
        };
        let (mut kept, mut wrong_kept, mut wrong_forgotten) = (0, 0, 0);
        for root in random_positions(&rules, &[(2, 2), (3, 1), (1, 3)], 100, 5) {
            for prover in [Color::White, Color::Black] {
                let query = Query { prover };
                let mut search = Search::new(&root, rules, Some(leaves), query, budget, true)
                    .expect("no checkpoint");
                search.expand(&root, INFINITE, INFINITE);
                let near = quiet_neighbourhood(&root, rules, 10);
                let wrong = |table: &ProofTable| -> HashMap<u64, bool> {
                    near.iter()
                        .filter_map(|position| {
                            let (phi, delta) = table.get(position.key())?;
                            if phi != 0 && delta != 0 {
                                return None;
                            }
                            let mover = position.side_to_move();
                            // Whether the prover wins, as the entry says and as it is.
                            let prover_wins = (phi == 0) == (mover == prover);
                            let outcome = truth.probe_outcome(position).unwrap();
                            let truly = Guarantee::Win.kept_by(outcome, mover, prover);
                            Some((position.key(), prover_wins != truly))
                        })
                        .collect()
                };
                let before = wrong(&search.table);
                search.table.forget_what_rests_on_path();
                let after = wrong(&search.table);
                kept += after.len();
                wrong_kept += after.values().filter(|&&w| w).count();
                wrong_forgotten += before
                    .iter()
                    .filter(|&(key, &w)| w && !after.contains_key(key))
                    .count();
            }
        }
        eprintln!("{kept} values kept, {wrong_kept} wrong; {wrong_forgotten} wrong forgotten");
        assert_eq!(wrong_kept, 0, "a kept value does not hold");
        assert!(kept > 1000, "{kept} values kept");
    }
}
