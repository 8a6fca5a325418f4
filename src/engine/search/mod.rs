//! The search: iterative deepening principal-variation search with aspiration windows,
//! a transposition table shared by Lazy SMP threads, and a quiescence search that follows
//! forced captures.
//!
//! The caller describes the job in a [`SearchRequest`], steers it through [`Signals`] from
//! another thread, and receives one [`Report`] per finished iteration and PV line. It knows
//! nothing of the protocol: the session turns reports into `info` lines.

use crate::engine::nnue::Network;
use crate::engine::timeman::Clock;
use crate::engine::tt::TranspositionTable;
use crate::rules::Rules;
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use crate::tablebase::{Outcome as TablebaseOutcome, Tablebase, Value as TablebaseValue};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod negamax;
mod parameters;
mod quiescence;
mod root;
mod thread;

pub use parameters::{PARAMETERS, Parameter};
use thread::Searcher;

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
    /// Plies after `quiescence_plies` in which only the greediest capture is followed, so
    /// that fewer positions with a capture to make are scored statically (0: none).
    pub quiescence_greedy_plies: u32,
    /// Half-width of the first aspiration window, in centi-stones.
    pub aspiration_delta: i32,
    /// Logarithmic reductions: `base / 100 + ln(depth) * ln(turn number) * 100 / divisor`
    /// plies.
    pub reduction_base: i32,
    /// See `reduction_base`.
    pub reduction_divisor: i32,
    /// The first paika turn (counted from 0 in search order) that may be reduced.
    pub reduction_first_turn: i32,
    /// The least remaining depth at which paikas are reduced.
    pub reduction_min_depth: i32,
    /// The first capture (counted from 0) that `capture_reductions` reduces.
    pub capture_reduction_first_turn: i32,
    /// The least remaining depth at which captures are reduced.
    pub capture_reduction_min_depth: i32,
    /// Reverse futility pruning: a quiet, unthreatened non-PV node whose static score
    /// beats beta by this margin per ply of remaining depth returns it (0: off).
    pub reverse_futility_margin: i32,
    /// The deepest remaining depth at which reverse futility pruning applies.
    pub reverse_futility_depth: i32,
    /// Null move pruning: a quiet, unthreatened non-PV node whose static score is at
    /// least beta lets the opponent move twice, searched this many plies shallower
    /// (besides the ply of the pass), and returns beta when even that fails high (0: off).
    pub null_move_reduction: i32,
    /// Late move pruning: at a quiet, unthreatened non-PV node with at most 3 plies to go,
    /// search only this many paikas plus the depth squared (0: off).
    pub late_move_pruning: i32,
    /// Futility pruning: at a quiet, unthreatened non-PV node with at most 2 plies to go
    /// whose static score plus this margin per ply stays at or below alpha, search only
    /// the first paika and the killers (0: off).
    pub futility_margin: i32,
    /// Progress: static scores shrink towards 0 as the turns without a capture add up,
    /// to `(scale - turns) / scale` of themselves (0: off), so that the side ahead prefers
    /// the lines that capture soonest instead of drifting into the no-capture limit.
    pub progress_scale: i32,
    /// Contempt, in centi-stones: a draw is worth this much less than 0 to the side that
    /// started the search and this much more to its opponent, so that a stronger engine
    /// steers away from draws it could play on from (0: a draw is 0 to both).
    pub contempt: i32,
    /// The most stones a position found past the horizon (in quiescence) may have to be
    /// looked up in the endgame tables; the main search looks up every layer held. A
    /// lookup in the largest layers mostly meets a block nobody read before, and
    /// quiescence reaches a hundred times more positions than the main search: 6 leaves
    /// the 7-stone layers to the main search, which costs the search a third of the time
    /// that probing them in quiescence too did, for the same gain in games.
    pub quiescence_probe_stones: u32,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            quiescence_plies: 4,
            quiescence_probe_stones: 6,
            aspiration: true,
            late_move_reductions: true,
            single_reply_extension: true,
            positional_evaluation: true,
            logarithmic_reductions: true,
            capture_reductions: true,
            threat_quiescence: true,
            quiescence_width: 2,
            quiescence_greedy_plies: 0,
            aspiration_delta: 40,
            reduction_base: 50,
            reduction_divisor: 200,
            reduction_first_turn: 3,
            reduction_min_depth: 3,
            capture_reduction_first_turn: 2,
            capture_reduction_min_depth: 3,
            reverse_futility_margin: 0,
            reverse_futility_depth: 3,
            null_move_reduction: 0,
            late_move_pruning: 0,
            futility_margin: 0,
            progress_scale: 200,
            contempt: 0,
        }
    }
}

impl SearchConfig {
    /// True when some pruning needs the static score of interior nodes.
    pub fn needs_static_score(&self) -> bool {
        self.reverse_futility_margin > 0 || self.null_move_reduction > 0 || self.futility_margin > 0
    }

    /// True when some pruning of quiet interior nodes is on.
    pub fn prunes(&self) -> bool {
        self.needs_static_score() || self.late_move_pruning > 0
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
    /// The evaluation network; the hand-written evaluation when `None`.
    pub network: Option<Arc<Network>>,
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
            network: None,
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

    /// The stop request as a flag, for jobs other than a search (`perft`) to watch.
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
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
    /// Threads that searched: fewer than asked for when the system would not start more.
    pub threads: usize,
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
    // Each searcher is set up before its thread starts, the main one first: when the
    // system runs out of room for threads, the searchers already made can still run, and
    // the one whose thread was refused gives its memory back.
    let mut main = Searcher::new(request, signals, &shared, 0, start);
    std::thread::scope(|scope| {
        // A system out of threads (a process limit, say) refuses some helpers: the search
        // goes on with those that started, the calling thread at least.
        let mut started = 1;
        for id in 1..threads {
            let mut helper = Searcher::new(request, signals, &shared, id, start);
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                helper.run(&mut |_| {});
            });
            match spawned {
                Ok(_) => started += 1,
                Err(_) => break,
            }
        }
        let mut outcome = main.run(report);
        shared.done.store(true, Ordering::SeqCst);
        outcome.nodes = shared.total_nodes();
        outcome.threads = started;
        outcome
    })
}

/// Whether `score` (the search's internal units) is a win proved by the search or the
/// tables: a mate or a tablebase win.
pub fn is_decided_win(score: i32) -> bool {
    score >= DECIDED_BOUND
}

/// The score of a win whose distance is unknown (a proof's): the smallest tablebase win.
pub fn proven_win_score() -> i32 {
    TABLEBASE_WIN - TABLEBASE_DISTANCES
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
