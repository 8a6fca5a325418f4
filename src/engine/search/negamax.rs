//! The main search: principal-variation alpha-beta with the transposition table,
//! pruning, reductions and turn ordering.

use super::thread::Searcher;
use super::{DECIDED_BOUND, INFINITY, MATE, MAX_PLY, score_from_tt, score_to_tt, tablebase_score};
use crate::engine::evaluate::{evaluate, evaluate_material};
use crate::engine::tt::Bound;
use crate::rules::movegen::{has_capture, opponent_has_capture};
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use crate::tablebase::Outcome as TablebaseOutcome;

/// Ordering scores: hash turn, then captures by stones taken, then killers, then history.
const HASH_TURN_SCORE: i32 = 1 << 30;
const CAPTURE_SCORE: i32 = 1 << 24;
const KILLER_SCORE: i32 = 1 << 22;

impl Searcher<'_> {
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

    /// The score of a draw `ply` plies from the root for the side to move there: the
    /// root's side moves at even plies (a turn is one ply, a pass included).
    #[inline]
    fn draw_score(&self, ply: usize) -> i32 {
        if ply.is_multiple_of(2) {
            -self.config.contempt
        } else {
            self.config.contempt
        }
    }

    /// Orders `turns` by putting a score for each in `scores`.
    pub(super) fn score_turns(
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
    pub(super) fn pick(turns: &mut [Turn], scores: &mut [i32], index: usize) -> Turn {
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

    pub(super) fn negamax(
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
            return self.draw_score(ply);
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
            return self.evaluate(position, ply);
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
        // Pruning by the static score, only where it can be trusted: no capture to make,
        // none threatened, far from decided scores, off the principal variation.
        let mut static_score = None;
        let quiet = self.config.prunes()
            && !pv_node
            && ply > 0
            && beta.abs() < DECIDED_BOUND
            && alpha.abs() < DECIDED_BOUND
            && !has_capture(position)
            && !opponent_has_capture(position);
        if quiet && self.config.needs_static_score() {
            let score = self.evaluate(position, ply);
            static_score = Some(score);
            let config = &self.config;
            if config.reverse_futility_margin > 0
                && depth <= config.reverse_futility_depth
                && score - config.reverse_futility_margin * depth >= beta
            {
                return score;
            }
            if config.null_move_reduction > 0
                && depth >= 3
                && score >= beta
                && !self.passed[ply]
                && position.us().count() >= 3
                && ply < MAX_PLY - 2
            {
                let child = position.with_turn_passed();
                let reduced = depth - 1 - config.null_move_reduction;
                self.keys.push(child.key());
                self.passed[ply + 1] = true;
                let score = -self.negamax(&child, reduced, ply + 1, -beta, -beta + 1, false);
                self.passed[ply + 1] = false;
                self.keys.pop();
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return beta;
                }
            }
        }
        let mut turns = std::mem::take(&mut self.turn_lists[ply]);
        self.request
            .rules
            .turn_rules()
            .generate(position, &mut turns);
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
        let late_move_limit = (self.config.late_move_pruning > 0 && depth <= 3)
            .then(|| (self.config.late_move_pruning + depth * depth) as usize);
        let futile = static_score.is_some_and(|score| {
            self.config.futility_margin > 0
                && depth <= 2
                && score + self.config.futility_margin * depth <= alpha
        });
        for i in 0..turns.len() {
            let turn = Self::pick(&mut turns, &mut scores, i);
            // Turns come best-ordered first, so once one is pruned all later ones are.
            if quiet
                && i > 0
                && scores[i] < KILLER_SCORE
                && (futile || late_move_limit.is_some_and(|limit| i >= limit))
            {
                break;
            }
            let child = position.play(turn);
            self.keys.push(child.key());
            let config = &self.config;
            let reduction = if config.capture_reductions
                && forced
                && !pv_node
                && depth >= config.capture_reduction_min_depth
                && i as i32 >= config.capture_reduction_first_turn
            {
                1
            } else if !config.late_move_reductions
                || forced
                || (i as i32) < config.reduction_first_turn
                || depth < config.reduction_min_depth
                || scores[i] >= KILLER_SCORE
            {
                0
            } else if config.logarithmic_reductions {
                let r = self.reductions[(depth as usize).min(63)][i.min(63)];
                (r - i32::from(pv_node)).clamp(1, (depth - 2).max(1))
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
    pub(super) fn probe_tablebase(&mut self, position: &Position, ply: usize) -> Option<i32> {
        let tables = self.request.tablebase.as_ref()?;
        let limit = self.request.rules.no_capture_limit;
        let value = tables.probe_for_search(position, position.turns_since_capture(), limit)?;
        self.tbhits += 1;
        Some(match value.outcome {
            TablebaseOutcome::Draw => self.draw_score(ply),
            _ => tablebase_score(value, ply),
        })
    }

    /// The static score of `position`, found `ply` plies from the root: by the network
    /// when there is one (its accumulators follow the search by ply), else by hand.
    #[inline]
    pub(super) fn evaluate(&mut self, position: &Position, ply: usize) -> i32 {
        let score = if !self.config.positional_evaluation {
            evaluate_material(position)
        } else if let (Some(network), Some(stack)) =
            (self.request.network.as_deref(), self.accumulators.as_mut())
        {
            stack.evaluate(network, position, ply)
        } else {
            evaluate(position)
        };
        scaled_for_progress(
            score,
            position.turns_since_capture(),
            self.config.progress_scale,
        )
    }

    pub(super) fn update_pv(&mut self, ply: usize, turn: Turn) {
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
}

/// `score` shrunk by the turns played since the last capture (see
/// [`crate::engine::search::SearchConfig::progress_scale`]): unchanged when `scale` is 0 or no turn has passed,
/// never past 0, never changing sign.
#[inline]
fn scaled_for_progress(score: i32, turns_since_capture: u32, scale: i32) -> i32 {
    if scale <= 0 {
        return score;
    }
    let turns = (turns_since_capture as i32).min(scale);
    score * (scale - turns) / scale
}

#[cfg(test)]
mod progress_tests {
    use super::scaled_for_progress;

    #[test]
    fn scores_shrink_with_the_turns_since_the_last_capture() {
        assert_eq!(scaled_for_progress(300, 50, 0), 300);
        assert_eq!(scaled_for_progress(300, 0, 200), 300);
        assert_eq!(scaled_for_progress(300, 50, 200), 225);
        assert_eq!(scaled_for_progress(-300, 100, 200), -150);
        assert_eq!(scaled_for_progress(300, 500, 200), 0);
    }
}
