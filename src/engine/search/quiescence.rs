//! The capture search past the horizon: forced captures, and threats just past it.

use super::thread::Searcher;
use super::{INFINITY, MATE, MAX_PLY};
use crate::rules::movegen::{has_capture, has_legal_turn, opponent_has_capture};
use crate::rules::position::Position;

impl Searcher<'_> {
    /// Past the horizon: a quiet position is scored statically; a position with captures
    /// is never, since the side to move must capture: its captures are searched, up to
    /// `quiescence_plies` of them and `quiescence_greedy_plies` more, and only then is the
    /// evaluation taken as it stands. The first ply searches every capture; the later ones
    /// only the `quiescence_width` greediest, and the greedy plies the greediest alone,
    /// which keeps the search (almost all of whose nodes are here in a game of forced
    /// captures) narrow. Just past the horizon, a quiet position whose side to move is
    /// threatened with a capture gets its paikas searched (`threat_quiescence`): the
    /// static score cannot tell whether the threat can be parried.
    pub(super) fn quiescence(
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
            && position.occupied().count() <= self.config.quiescence_probe_stones
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
                && opponent_has_capture(position);
            if !threatened {
                return self.evaluate(position, ply);
            }
        } else if qply >= self.config.quiescence_plies + self.config.quiescence_greedy_plies
            || ply >= MAX_PLY - 1
        {
            return self.evaluate(position, ply);
        }
        let mut turns = std::mem::take(&mut self.turn_lists[ply]);
        self.request
            .rules
            .turn_rules()
            .generate(position, &mut turns);
        let mut scores = std::mem::take(&mut self.order_scores[ply]);
        self.score_turns(&turns, &mut scores, ply, None);
        let mut best = -INFINITY;
        let width = match self.config.quiescence_width {
            _ if qply >= self.config.quiescence_plies => 1,
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
