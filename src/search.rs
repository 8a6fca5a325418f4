//! The search: iterative deepening alpha-beta over the legal turns.
//!
//! The caller describes the job in a [`SearchRequest`], steers it through [`Signals`] from
//! another thread, and receives one [`Report`] per finished iteration and PV line. It knows
//! nothing of the protocol: the session turns reports into `info` lines.

use crate::evaluate::evaluate;
use crate::movegen::{generate_turns, has_capture};
use crate::position::Position;
use crate::rules::Rules;
use crate::timeman::{Clock, TimeBudget, clock_budget, fixed_budget};
use crate::turn::Turn;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Deepest ply the search reaches (iterations, extensions and quiescence together).
pub const MAX_PLY: usize = 128;
/// Score of a side that wins now; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are wins or losses.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
const INFINITY: i32 = MATE + 1;
/// Plies of forced captures the quiescence search follows before scoring statically anyway.
const MAX_QUIESCENCE_PLIES: u32 = 4;

/// What limits a search. All present limits apply; the first reached stops it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Iterations to complete.
    pub depth: Option<u32>,
    /// Nodes to visit at most (exact with one thread).
    pub nodes: Option<u64>,
    /// Fixed time for this turn.
    pub movetime: Option<Duration>,
    /// The side to move's clock.
    pub clock: Option<Clock>,
    /// Search until told to stop.
    pub infinite: bool,
    /// Only these root turns (all when empty).
    pub searchmoves: Vec<Turn>,
}

/// One search job.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// The game's positions since its start, the position to search last: repetitions of
    /// earlier positions are draws.
    pub history: Vec<Position>,
    /// Rule options.
    pub rules: Rules,
    /// Limits.
    pub limits: Limits,
    /// Number of principal variations to report.
    pub multipv: usize,
    /// Time to keep in hand for the interface's and the system's delays.
    pub move_overhead: Duration,
}

/// Flags another thread sets to steer a running search.
#[derive(Debug, Default)]
pub struct Signals {
    stop: AtomicBool,
    pondering: AtomicBool,
}

impl Signals {
    /// Signals for a new search; `pondering` when it starts as a ponder search.
    pub fn new(pondering: bool) -> Signals {
        Signals {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
        }
    }

    /// Asks the search to stop as soon as it can.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// True once a stop was asked for.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// The opponent played the expected turn: the ponder search becomes a normal one, its
    /// time counted from now.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Ordering::SeqCst);
    }

    /// True while the search is pondering.
    pub fn pondering(&self) -> bool {
        self.pondering.load(Ordering::SeqCst)
    }
}

/// A score as the protocol reports it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Hundredths of a stone for the side to move.
    Centi(i32),
    /// Win (positive) or loss (negative) in this many turns of the side to move.
    Mate(i32),
}

impl Score {
    /// The protocol form of an internal score.
    pub fn from_internal(score: i32) -> Score {
        if score >= MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            Score::Mate(-(MATE + score) / 2)
        } else {
            Score::Centi(score)
        }
    }
}

/// What a finished iteration found for one PV line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Iteration depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based PV line number.
    pub multipv: usize,
    /// Score of the line.
    pub score: Score,
    /// Nodes so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Transposition table use in permille.
    pub hashfull: u32,
    /// The line, from the position searched.
    pub pv: Vec<Turn>,
}

/// The result: the best turn (none when there is no legal turn) and the expected reply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Turn to play.
    pub best: Option<Turn>,
    /// Expected reply, for pondering.
    pub ponder: Option<Turn>,
}

/// Runs a search to its limits (or a stop) and returns the best turn found.
pub fn search(
    request: &SearchRequest,
    signals: &Signals,
    report: &mut dyn FnMut(Report),
) -> Outcome {
    let mut searcher = Searcher::new(request, signals);
    searcher.run(report)
}

/// A root turn with the score of its latest search.
#[derive(Clone)]
struct RootTurn {
    turn: Turn,
    score: i32,
    pv: Vec<Turn>,
}

struct Searcher<'a> {
    request: &'a SearchRequest,
    signals: &'a Signals,
    /// When the search started, for `info time` and nps.
    start: Instant,
    /// When the time budget started: at the start, or at `ponderhit` for a ponder search.
    budget_start: Option<Instant>,
    budget: Option<TimeBudget>,
    nodes: u64,
    seldepth: u32,
    aborted: bool,
    /// Keys of the positions from the game's last capture to the current node, for
    /// repetition detection; earlier positions cannot recur.
    keys: Vec<u64>,
    turn_lists: Vec<Vec<Turn>>,
    pv_table: Vec<Vec<Turn>>,
}

impl<'a> Searcher<'a> {
    fn new(request: &'a SearchRequest, signals: &'a Signals) -> Searcher<'a> {
        let root = request.history.last().expect("history holds the root");
        let reversible = root.turns_since_capture() as usize + 1;
        let first = request.history.len().saturating_sub(reversible);
        let keys = request.history[first..].iter().map(Position::key).collect();
        let now = Instant::now();
        Searcher {
            request,
            signals,
            start: now,
            budget_start: (!signals.pondering()).then_some(now),
            budget: budget_for(&request.limits, request.move_overhead),
            nodes: 0,
            seldepth: 0,
            aborted: false,
            keys,
            turn_lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            pv_table: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
        }
    }

    /// Time used against the budget, or `None` while pondering (the opponent's time).
    fn budget_used(&mut self) -> Option<Duration> {
        if self.signals.pondering() {
            return None;
        }
        let start = *self.budget_start.get_or_insert_with(Instant::now);
        Some(start.elapsed())
    }

    fn past(&mut self, limit: fn(&TimeBudget) -> Duration) -> bool {
        match (self.budget, self.budget_used()) {
            (Some(budget), Some(used)) => used >= limit(&budget),
            _ => false,
        }
    }

    /// Checked at every node: stop signal, node limit and, every 1024 nodes, the hard
    /// time limit.
    fn should_abort(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        let over_nodes = self.request.limits.nodes.is_some_and(|n| self.nodes >= n);
        let check_clock = self.nodes & 1023 == 0;
        if over_nodes || (check_clock && (self.signals.stopped() || self.past(|b| b.hard))) {
            self.aborted = true;
        }
        self.aborted
    }

    fn root_turns(&self, root: &Position) -> Vec<RootTurn> {
        let mut turns = Vec::new();
        generate_turns(root, self.request.rules.chain_rule, &mut turns);
        let wanted = &self.request.limits.searchmoves;
        if !wanted.is_empty() {
            turns.retain(|t| wanted.contains(t));
        }
        turns.sort_by_key(|t| std::cmp::Reverse(t.captured().count()));
        turns
            .into_iter()
            .map(|turn| RootTurn {
                turn,
                score: -INFINITY,
                pv: vec![turn],
            })
            .collect()
    }

    fn run(&mut self, report: &mut dyn FnMut(Report)) -> Outcome {
        let root = *self.request.history.last().expect("history holds the root");
        let mut roots = self.root_turns(&root);
        if roots.is_empty() {
            return Outcome::default();
        }
        let max_depth = self.request.limits.depth.unwrap_or(MAX_PLY as u32 - 1);
        let lines = self.request.multipv.clamp(1, roots.len());
        let mut completed: Vec<RootTurn> = Vec::new();
        for depth in 1..=max_depth.clamp(1, MAX_PLY as u32 - 1) {
            self.seldepth = 0;
            self.search_root(&root, &mut roots, depth, lines);
            if self.aborted {
                if completed.is_empty() {
                    // Stopped inside the first iteration: any legal turn beats none, and the
                    // capture-first order makes the first one a reasonable choice.
                    completed = roots.clone();
                }
                break;
            }
            // A stable sort keeps the previous order among equal scores.
            roots.sort_by_key(|r| std::cmp::Reverse(r.score));
            completed = roots.clone();
            for (i, line) in roots.iter().take(lines).enumerate() {
                report(Report {
                    depth,
                    seldepth: self.seldepth.max(depth),
                    multipv: i + 1,
                    score: Score::from_internal(line.score),
                    nodes: self.nodes,
                    elapsed: self.start.elapsed(),
                    hashfull: 0,
                    pv: line.pv.clone(),
                });
            }
            let only_turn = roots.len() == 1 && self.budget.is_some();
            if only_turn || self.past(|b| b.soft) {
                break;
            }
        }
        let best = &completed[0];
        Outcome {
            best: Some(best.turn),
            ponder: best.pv.get(1).copied(),
        }
    }

    /// Searches every root turn; the first `lines` get exact scores, the others only need
    /// to be shown worse than the `lines`-th best.
    fn search_root(&mut self, root: &Position, roots: &mut [RootTurn], depth: u32, lines: usize) {
        let mut exact: Vec<i32> = Vec::with_capacity(lines);
        for root_turn in roots.iter_mut() {
            let alpha = if exact.len() < lines {
                -INFINITY
            } else {
                *exact.iter().min().expect("lines >= 1")
            };
            let child = root.play(root_turn.turn);
            self.keys.push(child.key());
            let score = -self.negamax(&child, depth - 1, 1, -INFINITY, -alpha, 0);
            self.keys.pop();
            if self.aborted {
                return;
            }
            if score > alpha || exact.len() < lines {
                root_turn.score = score;
                root_turn.pv.clear();
                root_turn.pv.push(root_turn.turn);
                root_turn.pv.extend_from_slice(&self.pv_table[1]);
                if exact.len() < lines {
                    exact.push(score);
                } else if let Some(worst) = exact.iter_mut().min() {
                    *worst = score;
                }
            } else {
                root_turn.score = -INFINITY + 1;
            }
        }
    }

    fn is_repetition(&self, key: u64) -> bool {
        // The current position is the last key; a draw is claimed on its first recurrence
        // inside the search, which is what repetition is worth when both sides can force it.
        let n = self.keys.len();
        n >= 2
            && self.keys[..n - 1]
                .iter()
                .rev()
                .skip(1)
                .step_by(2)
                .any(|&k| k == key)
    }

    fn negamax(
        &mut self,
        position: &Position,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        quiescence_plies: u32,
    ) -> i32 {
        self.nodes += 1;
        self.pv_table[ply].clear();
        self.seldepth = self.seldepth.max(ply as u32);
        if self.should_abort() {
            return 0;
        }
        if position.us().is_empty() {
            return -MATE + ply as i32;
        }
        let limit = self.request.rules.no_capture_limit;
        if (limit > 0 && position.turns_since_capture() >= limit)
            || self.is_repetition(position.key())
        {
            return 0;
        }
        let forced = has_capture(position);
        if ply >= MAX_PLY || (depth == 0 && (!forced || quiescence_plies >= MAX_QUIESCENCE_PLIES)) {
            return evaluate(position);
        }
        let mut turns = std::mem::take(&mut self.turn_lists[ply]);
        generate_turns(position, self.request.rules.chain_rule, &mut turns);
        if turns.is_empty() {
            self.turn_lists[ply] = turns;
            return -MATE + ply as i32;
        }
        turns.sort_unstable_by_key(|t| std::cmp::Reverse(t.captured().count()));
        let (next_depth, next_quiescence) = if depth == 0 {
            (0, quiescence_plies + 1)
        } else {
            (depth - 1, quiescence_plies)
        };
        let mut best = -INFINITY;
        for &turn in &turns {
            let child = position.play(turn);
            self.keys.push(child.key());
            let score = -self.negamax(&child, next_depth, ply + 1, -beta, -alpha, next_quiescence);
            self.keys.pop();
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    let (here, below) = self.pv_table.split_at_mut(ply + 1);
                    let line = &mut here[ply];
                    line.clear();
                    line.push(turn);
                    line.extend_from_slice(&below[0]);
                }
                if score >= beta {
                    break;
                }
            }
        }
        self.turn_lists[ply] = turns;
        best
    }
}

fn budget_for(limits: &Limits, overhead: Duration) -> Option<TimeBudget> {
    if limits.infinite {
        return None;
    }
    match (limits.movetime, limits.clock) {
        (Some(movetime), _) => Some(fixed_budget(movetime, overhead)),
        (None, Some(clock)) => Some(clock_budget(clock, overhead)),
        (None, None) => None,
    }
}
