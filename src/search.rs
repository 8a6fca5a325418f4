//! The search: iterative deepening principal-variation search with aspiration windows,
//! a transposition table shared by Lazy SMP threads, and a quiescence search that follows
//! forced captures.
//!
//! The caller describes the job in a [`SearchRequest`], steers it through [`Signals`] from
//! another thread, and receives one [`Report`] per finished iteration and PV line. It knows
//! nothing of the protocol: the session turns reports into `info` lines.

use crate::evaluate::{evaluate, evaluate_material};
use crate::movegen::{capturing_stones, generate_turns, has_capture, has_legal_turn};
use crate::position::Position;
use crate::rules::Rules;
use crate::tablebase::{Outcome as TablebaseOutcome, Tablebase, Value as TablebaseValue};
use crate::timeman::{Clock, TimeBudget, clock_budget, fixed_budget};
use crate::tt::{Bound, TranspositionTable};
use crate::turn::Turn;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Deepest ply the search reaches (iterations, extensions and quiescence together).
pub const MAX_PLY: usize = 128;
/// Score of a side that wins now; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are wins or losses.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Score of a position the endgame tables say is won, before the plies to it and the turns
/// to its next capture are taken off: beyond any evaluation, short of the mate range
/// (the tables count turns to the next capture, not to the end).
pub const TABLEBASE_WIN: i32 = 20_000;
/// The most turns to the next capture a tablebase score tells apart.
const TABLEBASE_DISTANCES: i32 = 1_000;
/// Scores beyond this (in absolute value) are wins or losses, proven by search or tables.
const DECIDED_BOUND: i32 = TABLEBASE_WIN - MAX_PLY as i32 - TABLEBASE_DISTANCES;
const INFINITY: i32 = MATE + 1;

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

impl Limits {
    /// Exactly `depth` iterations, no other limit.
    pub fn to_depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }
}

/// Switches and sizes of the search's heuristics, so that each can be measured by games
/// against the others; [`SearchConfig::default`] is the configuration that plays best.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Plies of forced captures followed past the horizon before scoring statically.
    pub quiescence_plies: u32,
    /// Aspiration windows around the previous iteration's score.
    pub aspiration: bool,
    /// Reduce late paika turns in positions without captures.
    pub late_move_reductions: bool,
    /// Search one ply deeper where the side to move has a single legal turn.
    pub single_reply_extension: bool,
    /// The full evaluation; material only when false.
    pub positional_evaluation: bool,
    /// Late move reductions growing with the logarithms of depth and turn number, instead
    /// of one or two plies.
    pub logarithmic_reductions: bool,
    /// Reduce the late captures (those taking fewer stones) of a forced non-PV node.
    pub capture_reductions: bool,
    /// Just past the horizon, search every paika of a quiet position whose side to move
    /// is threatened with a capture, instead of scoring it statically.
    pub threat_quiescence: bool,
    /// Past the first quiescence ply, search only this many captures of a position, those
    /// taking the most stones (all when zero).
    pub quiescence_width: usize,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            quiescence_plies: 4,
            aspiration: true,
            late_move_reductions: true,
            single_reply_extension: true,
            positional_evaluation: true,
            logarithmic_reductions: true,
            capture_reductions: true,
            threat_quiescence: true,
            quiescence_width: 2,
        }
    }
}

/// One search job.
#[derive(Clone)]
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
    /// Threads to search with (Lazy SMP); at least one.
    pub threads: usize,
    /// The table, kept between searches by the caller.
    pub tt: Arc<TranspositionTable>,
    /// Endgame tables probed inside the search, if any.
    pub tablebase: Option<Arc<Tablebase>>,
    /// Heuristics.
    pub config: SearchConfig,
}

impl SearchRequest {
    /// A one-thread search of the last position of `history` under the default rules and
    /// heuristics, one PV line, no move overhead and no endgame tables: the job of tools
    /// and tests, which change the fields they need.
    pub fn new(history: Vec<Position>, limits: Limits, tt: Arc<TranspositionTable>) -> Self {
        SearchRequest {
            history,
            rules: Rules::default(),
            limits,
            multipv: 1,
            move_overhead: Duration::ZERO,
            threads: 1,
            tt,
            tablebase: None,
            config: SearchConfig::default(),
        }
    }
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
    /// Nodes so far, all threads.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Transposition table use in permille.
    pub hashfull: u32,
    /// Positions answered by the endgame tables so far, all threads.
    pub tbhits: u64,
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
    /// Score of the best turn, in the search's internal units.
    pub score: i32,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched, all threads.
    pub nodes: u64,
}

/// State the threads of one search share.
struct Shared {
    /// Set when the main thread is done: helpers stop.
    done: AtomicBool,
    /// Node count per thread, published every so often.
    nodes: Vec<AtomicU64>,
    /// Tablebase hits per thread, published with the nodes.
    tbhits: Vec<AtomicU64>,
}

impl Shared {
    fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }

    fn total_tbhits(&self) -> u64 {
        self.tbhits.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

/// Runs a search to its limits (or a stop) and returns the best turn found. Reports come
/// from the main thread only.
pub fn search(
    request: &SearchRequest,
    signals: &Signals,
    report: &mut dyn FnMut(Report),
) -> Outcome {
    // The clock starts before any helper thread does, so that starting many threads
    // counts against the budget rather than beside it.
    let start = Instant::now();
    request.tt.new_search();
    let threads = request.threads.max(1);
    let shared = Shared {
        done: AtomicBool::new(false),
        nodes: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        tbhits: (0..threads).map(|_| AtomicU64::new(0)).collect(),
    };
    std::thread::scope(|scope| {
        for id in 1..threads {
            let shared = &shared;
            scope.spawn(move || {
                Searcher::new(request, signals, shared, id, start).run(&mut |_| {});
            });
        }
        let mut outcome = Searcher::new(request, signals, &shared, 0, start).run(report);
        shared.done.store(true, Ordering::SeqCst);
        outcome.nodes = shared.total_nodes();
        outcome
    })
}

/// A root turn with the score of its latest search.
#[derive(Clone)]
struct RootTurn {
    turn: Turn,
    score: i32,
    pv: Vec<Turn>,
}

/// Ordering scores: hash turn, then captures by stones taken, then killers, then history.
const HASH_TURN_SCORE: i32 = 1 << 30;
const CAPTURE_SCORE: i32 = 1 << 24;
const KILLER_SCORE: i32 = 1 << 22;

struct Searcher<'a> {
    request: &'a SearchRequest,
    signals: &'a Signals,
    shared: &'a Shared,
    id: usize,
    config: SearchConfig,
    tt: &'a TranspositionTable,
    /// When the search started, for `info time` and nps.
    start: Instant,
    /// When the time budget started: at the start, or at `ponderhit` for a ponder search.
    budget_start: Option<Instant>,
    budget: Option<TimeBudget>,
    nodes: u64,
    tbhits: u64,
    seldepth: u32,
    aborted: bool,
    /// Keys of the positions from the game's last capture to the current node, for
    /// repetition detection; earlier positions cannot recur.
    keys: Vec<u64>,
    turn_lists: Vec<Vec<Turn>>,
    order_scores: Vec<Vec<i32>>,
    pv_table: Vec<Vec<Turn>>,
    killers: Vec<[Option<Turn>; 2]>,
    /// Paika history by (from, to): how often the turn refuted a position, weighted by depth.
    history: Vec<[i32; 64]>,
    /// Late move reductions by depth and turn number, for `logarithmic_reductions`.
    reductions: Box<[[i32; 64]; 64]>,
}

impl<'a> Searcher<'a> {
    fn new(
        request: &'a SearchRequest,
        signals: &'a Signals,
        shared: &'a Shared,
        id: usize,
        start: Instant,
    ) -> Searcher<'a> {
        let root = request.history.last().expect("history holds the root");
        let reversible = root.turns_since_capture() as usize + 1;
        let first = request.history.len().saturating_sub(reversible);
        let keys = request.history[first..].iter().map(Position::key).collect();
        let now = start;
        Searcher {
            request,
            signals,
            shared,
            id,
            config: request.config,
            tt: &request.tt,
            start: now,
            budget_start: (!signals.pondering()).then_some(now),
            budget: budget_for(&request.limits, request.move_overhead),
            nodes: 0,
            tbhits: 0,
            seldepth: 0,
            aborted: false,
            keys,
            turn_lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            order_scores: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            pv_table: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![[0; 64]; 64],
            reductions: reduction_table(),
        }
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    fn publish_counts(&self) {
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        self.shared.tbhits[self.id].store(self.tbhits, Ordering::Relaxed);
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

    fn total_nodes(&self) -> u64 {
        if self.request.threads <= 1 {
            self.nodes
        } else {
            self.shared.total_nodes()
        }
    }

    /// Checked at every node: the node limit (exact with one thread) and, every 1024
    /// nodes, the stop signal and the hard time limit.
    #[inline]
    fn should_abort(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.is_main()
            && let Some(limit) = self.request.limits.nodes
            && self.total_nodes() >= limit
        {
            self.aborted = true;
            return true;
        }
        if self.nodes & 1023 == 0 {
            self.publish_counts();
            let stop = if self.is_main() {
                self.signals.stopped() || self.past(|b| b.hard)
            } else {
                self.shared.done.load(Ordering::Relaxed) || self.signals.stopped()
            };
            self.aborted = stop;
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
        let hash_turn = self.tt.probe(root.key()).and_then(|e| e.turn);
        turns.sort_by_key(|&t| std::cmp::Reverse((Some(t) == hash_turn, t.captured().count())));
        // Helper threads start from another order so that they explore other subtrees.
        if self.id > 0 && turns.len() > 1 {
            let shift = self.id % turns.len();
            turns.rotate_left(shift);
        }
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
        let max_depth = match (self.is_main(), self.request.limits.depth) {
            (true, Some(depth)) => depth.clamp(1, MAX_PLY as u32 - 1),
            _ => MAX_PLY as u32 - 1,
        };
        let lines = self.request.multipv.clamp(1, roots.len());
        let mut completed: Vec<RootTurn> = Vec::new();
        let mut completed_depth = 0;
        let first_depth = 1 + (self.id % 2) as u32;
        for depth in first_depth..=max_depth {
            self.seldepth = 0;
            for pv_index in 0..lines {
                self.aspiration_search(&root, &mut roots, depth, pv_index);
                if self.aborted {
                    break;
                }
            }
            if self.aborted {
                if completed.is_empty() {
                    // Stopped inside the first iteration: the best turn searched so far
                    // (roots are sorted, searched ones first); if none was, the best by the
                    // static evaluation one ply deep, which costs no search.
                    if roots[0].score == -INFINITY {
                        for root_turn in roots.iter_mut() {
                            root_turn.score = -self.evaluate(&root.play(root_turn.turn));
                        }
                        roots.sort_by_key(|r| std::cmp::Reverse(r.score));
                    }
                    completed = roots.clone();
                    completed_depth = depth;
                    if self.is_main() {
                        self.report_lines(&roots[..1], depth, report);
                    }
                }
                break;
            }
            completed = roots.clone();
            completed_depth = depth;
            if self.is_main() {
                self.report_lines(&roots[..lines], depth, report);
                let only_turn = roots.len() == 1 && self.budget.is_some();
                // A proven result does not change with depth once the iterations have
                // gone past it; only `infinite` asks to keep searching.
                let best = roots[0].score;
                let proven = best.abs() >= MATE_BOUND
                    && depth as i32 > MATE - best.abs() + 1
                    && !self.request.limits.infinite;
                if only_turn || proven || self.past(|b| b.soft) {
                    break;
                }
            }
        }
        self.publish_counts();
        let best = &completed[0];
        let ponder = best.pv.get(1).copied().or_else(|| {
            let after = root.play(best.turn);
            let hinted = self.tt.probe(after.key()).and_then(|e| e.turn)?;
            let mut replies = Vec::new();
            generate_turns(&after, self.request.rules.chain_rule, &mut replies);
            replies.contains(&hinted).then_some(hinted)
        });
        Outcome {
            best: Some(best.turn),
            ponder,
            score: best.score,
            depth: completed_depth,
            nodes: self.nodes,
        }
    }

    fn report_lines(&mut self, lines: &[RootTurn], depth: u32, report: &mut dyn FnMut(Report)) {
        self.publish_counts();
        let nodes = self.total_nodes();
        let hashfull = self.tt.hashfull();
        for (i, line) in lines.iter().enumerate() {
            report(Report {
                depth,
                seldepth: self.seldepth,
                multipv: i + 1,
                score: Score::from_internal(line.score),
                nodes,
                elapsed: self.start.elapsed(),
                hashfull,
                tbhits: self.shared.total_tbhits(),
                pv: line.pv.clone(),
            });
        }
    }

    /// Searches the root turns from `pv_index` on, in a window around the previous score
    /// that widens until the score falls inside it.
    fn aspiration_search(
        &mut self,
        root: &Position,
        roots: &mut [RootTurn],
        depth: u32,
        pv_index: usize,
    ) {
        let previous = roots[pv_index].score;
        let mut delta = 40;
        let use_window = self.config.aspiration && depth >= 4 && previous.abs() < MATE_BOUND;
        let (mut alpha, mut beta) = if use_window {
            (previous - delta, previous + delta)
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.search_root(root, &mut roots[pv_index..], depth, alpha, beta);
            // Stable: among equal scores, the earlier (better in the last iteration) stays first.
            roots[pv_index..].sort_by_key(|r| std::cmp::Reverse(r.score));
            if self.aborted {
                return;
            }
            if score <= alpha && alpha > -INFINITY {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta && beta < INFINITY {
                beta = (score + delta).min(INFINITY);
            } else {
                return;
            }
            delta *= 2;
            if delta > 1000 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Principal-variation search over the root turns, fail-soft.
    fn search_root(
        &mut self,
        root: &Position,
        roots: &mut [RootTurn],
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let mut best = -INFINITY;
        let depth = depth as i32;
        for (i, root_turn) in roots.iter_mut().enumerate() {
            let child = root.play(root_turn.turn);
            self.keys.push(child.key());
            let mut score;
            if i == 0 {
                score = -self.negamax(&child, depth - 1, 1, -beta, -alpha, true);
            } else {
                score = -self.negamax(&child, depth - 1, 1, -alpha - 1, -alpha, false);
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(&child, depth - 1, 1, -beta, -alpha, true);
                }
            }
            self.keys.pop();
            if self.aborted {
                return best;
            }
            if i == 0 || score > alpha {
                root_turn.score = score;
                root_turn.pv.clear();
                root_turn.pv.push(root_turn.turn);
                root_turn.pv.extend_from_slice(&self.pv_table[1]);
            } else {
                // Only an upper bound: order it after the turns with exact scores.
                root_turn.score = -INFINITY;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn is_repetition(&self) -> bool {
        // The current position is the last key; a draw is claimed on its first recurrence
        // inside the search, which is what a repetition is worth when either side can
        // force it.
        let n = self.keys.len();
        let key = self.keys[n - 1];
        n >= 5
            && self.keys[..n - 1]
                .iter()
                .rev()
                .skip(1)
                .step_by(2)
                .any(|&k| k == key)
    }

    fn is_draw(&self, position: &Position) -> bool {
        let limit = self.request.rules.no_capture_limit;
        (limit > 0 && position.turns_since_capture() >= limit) || self.is_repetition()
    }

    /// Orders `turns` by putting a score for each in `scores`.
    fn score_turns(
        &self,
        turns: &[Turn],
        scores: &mut Vec<i32>,
        ply: usize,
        hash_turn: Option<Turn>,
    ) {
        scores.clear();
        for &turn in turns {
            let score = if Some(turn) == hash_turn {
                HASH_TURN_SCORE
            } else if turn.is_capture() {
                CAPTURE_SCORE + 1024 * turn.captured().count() as i32
            } else if self.killers[ply][0] == Some(turn) {
                KILLER_SCORE + 1
            } else if self.killers[ply][1] == Some(turn) {
                KILLER_SCORE
            } else {
                self.history[turn.from().index()][turn.to().index()]
            };
            scores.push(score);
        }
    }

    /// Moves the best-scored turn from `index` on to `index` (selection sort, one step at
    /// a time, since a cut-off often comes early).
    fn pick(turns: &mut [Turn], scores: &mut [i32], index: usize) -> Turn {
        let mut best = index;
        for i in index + 1..turns.len() {
            if scores[i] > scores[best] {
                best = i;
            }
        }
        turns.swap(index, best);
        scores.swap(index, best);
        turns[index]
    }

    fn negamax(
        &mut self,
        position: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        pv_node: bool,
    ) -> i32 {
        self.pv_table[ply].clear();
        if self.is_draw(position) {
            self.nodes += 1;
            return 0;
        }
        if ply > 0
            && let Some(score) = self.probe_tablebase(position, ply)
        {
            self.nodes += 1;
            return score;
        }
        if depth <= 0 {
            return self.quiescence(position, ply, alpha, beta, 0);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if self.should_abort() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(position);
        }
        // Mate distance: no line from here beats a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let key = position.key();
        let entry = self.tt.probe(key);
        if let Some(e) = entry
            && !pv_node
            && i32::from(e.depth) >= depth
        {
            let score = score_from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }
        let mut turns = std::mem::take(&mut self.turn_lists[ply]);
        generate_turns(position, self.request.rules.chain_rule, &mut turns);
        if turns.is_empty() {
            self.turn_lists[ply] = turns;
            return -MATE + ply as i32;
        }
        if turns.len() == 1 && self.config.single_reply_extension && ply < MAX_PLY / 2 {
            depth += 1;
        }
        let forced = turns[0].is_capture();
        let mut scores = std::mem::take(&mut self.order_scores[ply]);
        self.score_turns(&turns, &mut scores, ply, entry.and_then(|e| e.turn));
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_turn = None;
        for i in 0..turns.len() {
            let turn = Self::pick(&mut turns, &mut scores, i);
            let child = position.play(turn);
            self.keys.push(child.key());
            let reduction =
                if self.config.capture_reductions && forced && !pv_node && depth >= 3 && i >= 2 {
                    1
                } else if !self.config.late_move_reductions
                    || forced
                    || i < 3
                    || depth < 3
                    || scores[i] >= KILLER_SCORE
                {
                    0
                } else if self.config.logarithmic_reductions {
                    let r = self.reductions[(depth as usize).min(63)][i.min(63)];
                    (r - i32::from(pv_node)).clamp(1, depth - 2)
                } else {
                    1 + i32::from(i >= 8 && depth >= 5)
                };
            let mut score;
            if i == 0 {
                score = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha, pv_node);
            } else {
                score = -self.negamax(
                    &child,
                    depth - 1 - reduction,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    false,
                );
                if score > alpha && reduction > 0 && !self.aborted {
                    score = -self.negamax(&child, depth - 1, ply + 1, -alpha - 1, -alpha, false);
                }
                if score > alpha && score < beta && pv_node && !self.aborted {
                    score = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha, true);
                }
            }
            self.keys.pop();
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_turn = Some(turn);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, turn);
                    if score >= beta {
                        if !turn.is_capture() {
                            self.reward_quiet(turn, ply, depth);
                        }
                        break;
                    }
                }
            }
        }
        self.turn_lists[ply] = turns;
        self.order_scores[ply] = scores;
        if self.aborted {
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            depth.clamp(0, 255) as u8,
            bound,
            score_to_tt(best, ply),
            best_turn,
        );
        best
    }

    /// The tables' score of `position`, when it is in them and their value holds within
    /// the no-capture limit from here (a longer win or loss is left to the search).
    #[inline]
    fn probe_tablebase(&mut self, position: &Position, ply: usize) -> Option<i32> {
        let tables = self.request.tablebase.as_ref()?;
        let value = tables.probe(position)?;
        let limit = self.request.rules.no_capture_limit;
        if !value.holds_within(position.turns_since_capture(), limit) {
            return None;
        }
        self.tbhits += 1;
        Some(tablebase_score(value, ply))
    }

    #[inline]
    fn evaluate(&self, position: &Position) -> i32 {
        if self.config.positional_evaluation {
            evaluate(position)
        } else {
            evaluate_material(position)
        }
    }

    fn update_pv(&mut self, ply: usize, turn: Turn) {
        let (here, below) = self.pv_table.split_at_mut(ply + 1);
        let line = &mut here[ply];
        line.clear();
        line.push(turn);
        line.extend_from_slice(&below[0]);
    }

    fn reward_quiet(&mut self, turn: Turn, ply: usize, depth: i32) {
        if self.killers[ply][0] != Some(turn) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(turn);
        }
        let entry = &mut self.history[turn.from().index()][turn.to().index()];
        *entry = (*entry + depth * depth).min(KILLER_SCORE - 1);
    }

    /// Past the horizon: a quiet position is scored statically; a position with captures
    /// is never, since the side to move must capture: its captures are searched, up to
    /// `quiescence_plies` of them, and only then is the evaluation taken as it stands.
    /// The first ply searches every capture; the later ones only the `quiescence_width`
    /// greediest, which keeps the search (almost all of whose nodes are here in a game of
    /// forced captures) narrow. Just past the horizon, a quiet position whose side to move
    /// is threatened with a capture gets its paikas searched (`threat_quiescence`): the
    /// static score cannot tell whether the threat can be parried.
    fn quiescence(
        &mut self,
        position: &Position,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        qply: u32,
    ) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        self.pv_table[ply].clear();
        if self.should_abort() {
            return 0;
        }
        if qply > 0
            && let Some(score) = self.probe_tablebase(position, ply)
        {
            return score;
        }
        if !has_capture(position) {
            if !has_legal_turn(position) {
                return -MATE + ply as i32;
            }
            let threatened = self.config.threat_quiescence
                && qply == 0
                && ply < MAX_PLY - 1
                && !capturing_stones(position.them(), position.us()).is_empty();
            if !threatened {
                return self.evaluate(position);
            }
        } else if qply >= self.config.quiescence_plies || ply >= MAX_PLY - 1 {
            return self.evaluate(position);
        }
        let mut turns = std::mem::take(&mut self.turn_lists[ply]);
        generate_turns(position, self.request.rules.chain_rule, &mut turns);
        let mut scores = std::mem::take(&mut self.order_scores[ply]);
        self.score_turns(&turns, &mut scores, ply, None);
        let mut best = -INFINITY;
        let width = match self.config.quiescence_width {
            0 => turns.len(),
            _ if qply == 0 => turns.len(),
            width => width.min(turns.len()),
        };
        for i in 0..width {
            let turn = Self::pick(&mut turns, &mut scores, i);
            let child = position.play(turn);
            let score = -self.quiescence(&child, ply + 1, -beta, -alpha, qply + 1);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, turn);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.turn_lists[ply] = turns;
        self.order_scores[ply] = scores;
        best
    }
}

/// Late move reductions: about ln(depth) * ln(turn number) / 2 plies.
fn reduction_table() -> Box<[[i32; 64]; 64]> {
    let mut table = Box::new([[0; 64]; 64]);
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (number, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.5 + (depth as f64).ln() * (number as f64).ln() / 2.0) as i32;
        }
    }
    table
}

/// A tablebase value as a score `ply` plies from the root: wins score less the further
/// they are (in plies from the root and turns to the next capture), losses the reverse,
/// like mates; draws are draws.
pub fn tablebase_score(value: TablebaseValue, ply: usize) -> i32 {
    let far = ply as i32 + i32::from(value.distance).min(TABLEBASE_DISTANCES);
    match value.outcome {
        TablebaseOutcome::Win => TABLEBASE_WIN - far,
        TablebaseOutcome::Draw => 0,
        TablebaseOutcome::Loss => -TABLEBASE_WIN + far,
    }
}

/// Decided scores (mates and tablebase results) are stored relative to the node, so that
/// they stay right wherever the position recurs in the tree.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= DECIDED_BOUND {
        score + ply as i32
    } else if score <= -DECIDED_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= DECIDED_BOUND {
        score - ply as i32
    } else if score <= -DECIDED_BOUND {
        score + ply as i32
    } else {
        score
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_count_turns_of_the_side_to_move() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-MATE + 2), Score::Mate(-1));
        assert_eq!(Score::from_internal(-MATE + 4), Score::Mate(-2));
        assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
        assert_eq!(Score::from_internal(150), Score::Centi(150));
    }

    #[test]
    fn reductions_grow_with_depth_and_turn_number() {
        let table = reduction_table();
        assert_eq!(table[1][1], 0);
        assert_eq!(table[3][3], 1);
        for depth in 1..63 {
            for number in 1..63 {
                assert!(table[depth][number] <= table[depth + 1][number]);
                assert!(table[depth][number] <= table[depth][number + 1]);
            }
        }
        // Never more than the remaining depth can give at the depths used.
        assert!(table[63][63] < 63);
    }

    #[test]
    fn table_scores_are_relative_to_the_node() {
        for ply in [0, 3, 17] {
            for score in [
                MATE - 5,
                -MATE + 9,
                TABLEBASE_WIN - 40,
                -TABLEBASE_WIN + 7,
                42,
            ] {
                let stored = score_to_tt(score, ply);
                assert_eq!(score_from_tt(stored, ply), score);
            }
        }
        // A decided score found at ply 3 means the same result from a node at ply 1 as
        // two plies nearer.
        for score in [MATE - 5, TABLEBASE_WIN - 40] {
            assert_eq!(score_from_tt(score_to_tt(score, 3), 1), score + 2);
        }
    }

    #[test]
    fn tablebase_scores_rank_between_evaluations_and_mates() {
        use crate::tablebase::{Outcome, Value};
        let win = |distance| Value {
            outcome: Outcome::Win,
            distance,
        };
        let loss = Value {
            outcome: Outcome::Loss,
            distance: 30,
        };
        let fast = tablebase_score(win(2), 4);
        let slow = tablebase_score(win(30), 4);
        let far = tablebase_score(win(2), 10);
        assert!(MATE_BOUND > fast && fast > slow && fast > far && slow > DECIDED_BOUND);
        assert_eq!(tablebase_score(loss, 4), -tablebase_score(win(30), 4));
        assert_eq!(tablebase_score(Value::DRAW, 4), 0);
        // Absurd distances still score as decided.
        assert!(tablebase_score(win(u16::MAX >> 2), MAX_PLY) >= DECIDED_BOUND);
    }
}
