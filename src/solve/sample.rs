//! The solver against retrograde analysis, on many positions: random positions of one
//! stone count are solved over the tables of fewer stones, each value compared with the
//! tables that hold the position, and each proof checked.

use super::certificate::Certificate;
use super::check::check;
use super::dfpn::Budget;
use super::two_questions::solve;
use super::verdict::Verdict;
use crate::random::Rng;
use crate::rules::Rules;
use crate::rules::movegen::has_legal_turn;
use crate::rules::position::Position;
use crate::tablebase::{Tablebase, layer_size, position_of};
use anyhow::Result;
use std::time::Instant;

/// What a sample found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Positions solved.
    pub positions: usize,
    /// Values equal to the tables', with a proof that checks.
    pub agree: usize,
    /// Positions where the value or its proof is wrong, with what was found.
    pub disagree: Vec<String>,
    /// Positions left undecided within the budget, or whose value found no strategy to
    /// confirm it.
    pub undecided: usize,
    /// Nodes searched in all.
    pub nodes: u64,
}

/// `count` random positions of the layers `layers` (uniform over their positions with
/// White to move and a legal turn), drawn from `seed`.
pub fn random_positions(
    rules: &Rules,
    layers: &[(usize, usize)],
    count: usize,
    seed: u64,
) -> Vec<Position> {
    let layers: Vec<(usize, usize, u64)> = layers
        .iter()
        .map(|&(a, b)| (a, b, layer_size(rules.board, a, b)))
        .collect();
    let total: u64 = layers.iter().map(|l| l.2).sum();
    let mut rng = Rng::new(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count && total > 0 {
        let mut index = rng.below(total);
        for &(a, b, size) in &layers {
            if index < size {
                let position = position_of(rules.board, a, b, index);
                if has_legal_turn(&position) {
                    positions.push(position);
                }
                break;
            }
            index -= size;
        }
    }
    positions
}

/// What a sample says as it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// A position that does not agree, or is left undecided: one line on it.
    Line(String),
    /// The count of positions solved so far.
    Solved(usize),
}

/// Solves each of `positions` over `leaves` (tables of fewer stones) and compares with
/// `truth`; `report` hears of every position that does not agree, as it is found, and of
/// the count solved after each.
pub fn agreement(
    positions: &[Position],
    rules: Rules,
    leaves: Option<&Tablebase>,
    truth: &Tablebase,
    budget: Budget<'_>,
    report: &mut dyn FnMut(Heard),
) -> Result<Agreement> {
    let mut found = Agreement::default();
    let table_stones = leaves.map_or(0, |t| t.max_stones()) as u8;
    let budget = Budget {
        proof: true,
        checkpoint: None,
        ..budget
    };
    for position in positions {
        // Said before each position but the first, the last one's after the loop: the
        // positions that end early (`continue`) are counted too.
        if found.positions > 0 {
            report(Heard::Solved(found.positions));
        }
        let started = Instant::now();
        let solved = match solve(position, rules, leaves, budget) {
            Ok(solved) => solved,
            Err(e) => {
                found.positions += 1;
                found.undecided += 1;
                report(Heard::Line(format!("unconfirmed {position}: {e:#}")));
                continue;
            }
        };
        found.positions += 1;
        found.nodes += solved.nodes;
        let Some(outcome) = truth.probe_outcome(position) else {
            anyhow::bail!("{position} is not in the tables compared with");
        };
        let expected = Verdict::from(outcome);
        if solved.verdict == Verdict::Unknown || solved.strategies.is_empty() {
            found.undecided += 1;
            report(Heard::Line(format!(
                "undecided {position} (tables: {expected}) nodes {} time {:.3}",
                solved.nodes,
                started.elapsed().as_secs_f64()
            )));
            continue;
        }
        let certificate = Certificate {
            root: *position,
            rules,
            verdict: solved.verdict,
            table_stones,
            strategies: solved.strategies,
        };
        let checked = check(&certificate, leaves);
        if solved.verdict == expected && checked.is_ok() {
            found.agree += 1;
        } else {
            let why = match checked {
                Err(e) => format!(", its proof fails: {e:#}"),
                Ok(_) => String::new(),
            };
            let line = format!(
                "disagree {position}: solved {}, tables {expected}{why}",
                solved.verdict
            );
            found.disagree.push(line.clone());
            report(Heard::Line(line));
        }
    }
    report(Heard::Solved(found.positions));
    Ok(found)
}
