//! perft: the number of distinct positions reached after a given number of turns, the
//! standard check of a move generator (routes that give the same turn count once).

use crate::rules::movegen::{TurnCounting, count_turns, generate_turns, legal_turns};
use crate::rules::notation::spell_turn;
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use crate::rules::{ChainRule, TurnRules};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The deepest `perft` accepted: already far beyond what finishes in a lifetime, and a
/// bound on the per-ply lists allocated up front.
pub const MAX_PERFT_DEPTH: u32 = 20;

/// Leaf count of the turn tree `depth` turns deep. The last ply is counted, not played.
pub fn perft(position: &Position, depth: u32, chain_rule: ChainRule) -> u64 {
    let mut lists = PerftLists::new(depth);
    lists.count_leaves(position, depth, chain_rule, 0, &AtomicBool::new(false))
}

/// The leaf count below each legal turn, in generation order, computed by `threads`
/// threads (at least one). Work is shared out two plies down, so that the few turns of a
/// position keep every thread busy; the counts do not depend on the thread count.
pub fn perft_divide(
    position: &Position,
    depth: u32,
    chain_rule: ChainRule,
    threads: usize,
) -> Vec<(Turn, u64)> {
    perft_divide_until(
        position,
        depth,
        chain_rule,
        threads,
        &AtomicBool::new(false),
    )
}

/// [`perft_divide`] that gives up soon after `stop` is set; the counts are then partial.
fn perft_divide_until(
    position: &Position,
    depth: u32,
    chain_rule: ChainRule,
    threads: usize,
    stop: &AtomicBool,
) -> Vec<(Turn, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let roots = legal_turns(position, chain_rule);
    if depth < 3 || threads <= 1 {
        let mut lists = PerftLists::new(depth - 1);
        return roots
            .into_iter()
            .map(|turn| {
                let leaves =
                    lists.count_leaves(&position.play(turn), depth - 1, chain_rule, 0, stop);
                (turn, leaves)
            })
            .collect();
    }
    let jobs: Vec<(usize, Position)> = roots
        .iter()
        .enumerate()
        .flat_map(|(root_index, &root)| {
            let child = position.play(root);
            legal_turns(&child, chain_rule)
                .into_iter()
                .map(move |turn| (root_index, child.play(turn)))
        })
        .collect();
    let next_job = AtomicUsize::new(0);
    let mut totals = vec![0u64; roots.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut lists = PerftLists::new(depth - 2);
                    let mut sums = vec![0u64; roots.len()];
                    loop {
                        let job = next_job.fetch_add(1, Ordering::Relaxed);
                        let Some((root_index, grandchild)) = jobs.get(job) else {
                            return sums;
                        };
                        sums[*root_index] +=
                            lists.count_leaves(grandchild, depth - 2, chain_rule, 0, stop);
                    }
                })
            })
            .collect();
        for worker in workers {
            let sums = worker.join().expect("a perft worker panicked");
            for (total, sum) in totals.iter_mut().zip(sums) {
                *total += sum;
            }
        }
    });
    roots.into_iter().zip(totals).collect()
}

/// The text that `perft` prints, on the command line and in the protocol alike: with
/// `divide`, a line `<turn>: <count>` per legal turn sorted by spelling, then a blank line;
/// always a last line `Nodes searched: <N>`. Returns the text and the leaf count, or `None`
/// when `stop` was set before the count was complete.
pub fn perft_report(
    position: &Position,
    depth: u32,
    divide: bool,
    rules: impl Into<TurnRules>,
    threads: usize,
    stop: &AtomicBool,
) -> Option<(String, u64)> {
    let rules = rules.into();
    let chain_rule = rules.chain_rule;
    let mut text = String::new();
    let total = if depth == 0 {
        1
    } else {
        let counts = if rules.vela.is_some() {
            // The vela game's first phase has turns of its own: counted plainly.
            let mut turns = Vec::new();
            rules.generate(position, &mut turns);
            turns
                .into_iter()
                .map(|turn| {
                    (
                        turn,
                        plain_perft(&position.play(turn), depth - 1, rules, stop),
                    )
                })
                .collect()
        } else {
            perft_divide_until(position, depth, chain_rule, threads, stop)
        };
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if divide {
            let mut lines: Vec<(String, u64)> = counts
                .iter()
                .map(|&(turn, n)| (spell_turn(position, rules, turn), n))
                .collect();
            lines.sort();
            for (spelling, n) in &lines {
                text.push_str(&format!("{spelling}: {n}\n"));
            }
            text.push('\n');
        }
        counts.iter().map(|(_, n)| n).sum()
    };
    text.push_str(&format!("Nodes searched: {total}\n"));
    Some((text, total))
}

/// perft by listing every turn at every ply, under any rules; stops early (with a partial
/// count) once `stop` is set.
fn plain_perft(position: &Position, depth: u32, rules: TurnRules, stop: &AtomicBool) -> u64 {
    if depth == 0 {
        return 1;
    }
    if stop.load(Ordering::Relaxed) {
        return 0;
    }
    let mut turns = Vec::new();
    rules.generate(position, &mut turns);
    if depth == 1 {
        return turns.len() as u64;
    }
    turns
        .into_iter()
        .map(|turn| plain_perft(&position.play(turn), depth - 1, rules, stop))
        .sum()
}

/// One reusable turn list per ply and the last ply's counting memory, so that the
/// recursion never allocates once warmed up.
struct PerftLists {
    turns: Vec<Vec<Turn>>,
    counting: TurnCounting,
}

impl PerftLists {
    fn new(depth: u32) -> PerftLists {
        PerftLists {
            turns: (0..depth).map(|_| Vec::with_capacity(128)).collect(),
            counting: TurnCounting::default(),
        }
    }

    /// The leaves below `position`, `ply` plies below where the lists start; returns early
    /// (a partial count) once `stop` is set, which is looked at only where at least two
    /// plies remain, so that it costs next to nothing.
    fn count_leaves(
        &mut self,
        position: &Position,
        depth: u32,
        chain_rule: ChainRule,
        ply: usize,
        stop: &AtomicBool,
    ) -> u64 {
        match depth {
            0 => return 1,
            1 => return count_turns(position, chain_rule, &mut self.counting) as u64,
            _ => {}
        }
        if stop.load(Ordering::Relaxed) {
            return 0;
        }
        let mut turns = std::mem::take(&mut self.turns[ply]);
        generate_turns(position, chain_rule, &mut turns);
        let leaves = turns
            .iter()
            .map(|&turn| {
                self.count_leaves(&position.play(turn), depth - 1, chain_rule, ply + 1, stop)
            })
            .sum();
        self.turns[ply] = turns;
        leaves
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_counts() {
        let start = Position::start();
        let expected = [1u64, 5, 39, 724, 18_026];
        for (depth, &nodes) in expected.iter().enumerate() {
            assert_eq!(
                perft(&start, depth as u32, ChainRule::Optional),
                nodes,
                "depth {depth}"
            );
        }
    }
}
