//! perft: the number of distinct positions reached after a given number of turns, the
//! standard check of a move generator (routes that give the same turn count once).

use crate::movegen::{count_turns, generate_turns};
use crate::notation::spell_turn;
use crate::position::Position;
use crate::rules::ChainRule;
use crate::turn::Turn;

/// Leaf count of the turn tree `depth` turns deep. The last ply is counted, not played.
pub fn perft(position: &Position, depth: u32, chain_rule: ChainRule) -> u64 {
    let mut lists = turn_lists(depth);
    count_leaves(position, depth, chain_rule, &mut lists)
}

/// The leaf count below each legal turn, in generation order.
pub fn perft_divide(position: &Position, depth: u32, chain_rule: ChainRule) -> Vec<(Turn, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut lists = turn_lists(depth);
    let (root, below) = lists.split_first_mut().expect("depth >= 1");
    generate_turns(position, chain_rule, root);
    root.iter()
        .map(|&turn| {
            let leaves = count_leaves(&position.play(turn), depth - 1, chain_rule, below);
            (turn, leaves)
        })
        .collect()
}

/// The text that `perft` prints, on the command line and in the protocol alike: with
/// `divide`, a line `<turn>: <count>` per legal turn sorted by spelling, then a blank line;
/// always a last line `Nodes searched: <N>`. Returns the text and the leaf count.
pub fn perft_report(
    position: &Position,
    depth: u32,
    divide: bool,
    chain_rule: ChainRule,
) -> (String, u64) {
    let mut text = String::new();
    let total = if divide && depth > 0 {
        let mut lines: Vec<(String, u64)> = perft_divide(position, depth, chain_rule)
            .into_iter()
            .map(|(turn, n)| (spell_turn(position, chain_rule, turn), n))
            .collect();
        lines.sort();
        for (spelling, n) in &lines {
            text.push_str(&format!("{spelling}: {n}\n"));
        }
        text.push('\n');
        lines.iter().map(|(_, n)| n).sum()
    } else {
        perft(position, depth, chain_rule)
    };
    text.push_str(&format!("Nodes searched: {total}\n"));
    (text, total)
}

/// One reusable list per ply, so the recursion never allocates once warmed up.
fn turn_lists(depth: u32) -> Vec<Vec<Turn>> {
    (0..depth).map(|_| Vec::with_capacity(128)).collect()
}

fn count_leaves(
    position: &Position,
    depth: u32,
    chain_rule: ChainRule,
    lists: &mut [Vec<Turn>],
) -> u64 {
    let Some((turns, below)) = lists.split_first_mut() else {
        return 1;
    };
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return count_turns(position, chain_rule, turns) as u64;
    }
    generate_turns(position, chain_rule, turns);
    turns
        .iter()
        .map(|&turn| count_leaves(&position.play(turn), depth - 1, chain_rule, below))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_counts() {
        let start = Position::start();
        let expected = [1u64, 5, 39, 724, 18_026];
        for (depth, &nodes) in expected.iter().enumerate() {
            assert_eq!(perft(&start, depth as u32, ChainRule::Optional), nodes, "depth {depth}");
        }
    }
}
