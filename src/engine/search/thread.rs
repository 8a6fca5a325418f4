//! One search thread's state: its counters, its time budget and when to stop.

use super::{Limits, MAX_PLY, SearchConfig, SearchRequest, Shared, Signals};
use crate::engine::nnue::AccumulatorStack;
use crate::engine::timeman::{TimeBudget, clock_budget, fixed_budget};
use crate::engine::tt::TranspositionTable;
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The state of one search thread; the root, main and capture searches are its methods.
pub(super) struct Searcher<'a> {
    pub(super) request: &'a SearchRequest,
    pub(super) signals: &'a Signals,
    pub(super) shared: &'a Shared,
    pub(super) id: usize,
    pub(super) config: SearchConfig,
    pub(super) tt: &'a TranspositionTable,
    /// When the search started, for `info time` and nps.
    pub(super) start: Instant,
    /// When the time budget started: at the start, or at `ponderhit` for a ponder search.
    pub(super) budget_start: Option<Instant>,
    pub(super) budget: Option<TimeBudget>,
    pub(super) nodes: u64,
    pub(super) tbhits: u64,
    pub(super) seldepth: u32,
    pub(super) aborted: bool,
    /// Keys of the positions from the game's last capture to the current node, for
    /// repetition detection; earlier positions cannot recur.
    pub(super) keys: Vec<u64>,
    pub(super) turn_lists: Vec<Vec<Turn>>,
    pub(super) order_scores: Vec<Vec<i32>>,
    pub(super) pv_table: Vec<Vec<Turn>>,
    pub(super) killers: Vec<[Option<Turn>; 2]>,
    /// Paika history by (from, to): how often the turn refuted a position, weighted by depth.
    pub(super) history: Vec<[i32; 64]>,
    /// Late move reductions by depth and turn number, for `logarithmic_reductions`.
    pub(super) reductions: Box<[[i32; 64]; 64]>,
    /// Whether the node at each ply was reached by a null move (no two in a row).
    pub(super) passed: Vec<bool>,
    /// The network's accumulators by ply, when the evaluation is the network.
    pub(super) accumulators: Option<AccumulatorStack>,
}

impl<'a> Searcher<'a> {
    pub(super) fn new(
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
            reductions: reduction_table(&request.config),
            passed: vec![false; MAX_PLY + 1],
            accumulators: request
                .network
                .as_ref()
                .map(|network| AccumulatorStack::new(network, MAX_PLY + 1)),
        }
    }

    pub(super) fn is_main(&self) -> bool {
        self.id == 0
    }

    pub(super) fn publish_counts(&self) {
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

    pub(super) fn past(&mut self, limit: fn(&TimeBudget) -> Duration) -> bool {
        match (self.budget, self.budget_used()) {
            (Some(budget), Some(used)) => used >= limit(&budget),
            _ => false,
        }
    }

    pub(super) fn total_nodes(&self) -> u64 {
        if self.request.threads <= 1 {
            self.nodes
        } else {
            self.shared.total_nodes()
        }
    }

    /// Checked at every node: the node limit (exact with one thread) and, every 1024
    /// nodes, the stop signal and the hard time limit.
    #[inline]
    pub(super) fn should_abort(&mut self) -> bool {
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
}

/// Late move reductions: `base + ln(depth) * ln(turn number) / divisor` plies (by default
/// 0.5 + ln(depth) * ln(turn number) / 2), never negative.
fn reduction_table(config: &SearchConfig) -> Box<[[i32; 64]; 64]> {
    let base = f64::from(config.reduction_base) / 100.0;
    let divisor = f64::from(config.reduction_divisor.max(1)) / 100.0;
    let mut table = Box::new([[0; 64]; 64]);
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (number, r) in row.iter_mut().enumerate().skip(1) {
            let plies = base + (depth as f64).ln() * (number as f64).ln() / divisor;
            *r = plies.max(0.0) as i32;
        }
    }
    table
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
    fn reductions_grow_with_depth_and_turn_number() {
        let table = reduction_table(&SearchConfig::default());
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
}
