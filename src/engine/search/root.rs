//! The root: iterative deepening, aspiration windows and the reports of each iteration.

use super::thread::Searcher;
use super::{INFINITY, MATE, MATE_BOUND, MAX_PLY, Outcome, Report, Score};
use crate::rules::position::Position;
use crate::rules::turn::Turn;

/// A root turn with the score of its latest search.
#[derive(Clone)]
struct RootTurn {
    turn: Turn,
    score: i32,
    pv: Vec<Turn>,
}

impl Searcher<'_> {
    fn root_turns(&self, root: &Position) -> Vec<RootTurn> {
        let mut turns = Vec::new();
        self.request.rules.turn_rules().generate(root, &mut turns);
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

    pub(super) fn run(&mut self, report: &mut dyn FnMut(Report)) -> Outcome {
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
                // A later line can score above an earlier one (each is searched in its
                // own window): the lines found so far are kept in score order, so that
                // line 1 is the best turn and the reported lines come best first.
                roots[..=pv_index].sort_by_key(|r| std::cmp::Reverse(r.score));
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
                            root_turn.score = -self.evaluate(&root.play(root_turn.turn), 1);
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
            self.request
                .rules
                .turn_rules()
                .generate(&after, &mut replies);
            replies.contains(&hinted).then_some(hinted)
        });
        Outcome {
            best: Some(best.turn),
            ponder,
            score: best.score,
            depth: completed_depth,
            nodes: self.nodes,
            threads: 1,
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
        let mut delta = self.config.aspiration_delta;
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
}
