//! One binary question answered by df-pn and confirmed: a disproof by the defence
//! written down as a strategy, a proof (when asked for) by the prover's.

use super::dfpn::{Answer, Budget, Method, Proof, Query, Search};
use super::fortress;
use super::table::{INFINITE, ProofTable};
use crate::rules::Rules;
use crate::rules::position::Position;
use crate::tablebase::Tablebase;
use anyhow::{Result, bail};
use std::time::Instant;

/// The share of a time limit that df-pn has before a fortress is tried: a fortress that
/// holds a quiet 7-stone draw takes seconds where df-pn goes round for ever.
const SEARCH_SHARE_OF_TIME: f64 = 0.75;

/// Whether `query.prover` wins from `root` under `rules`, with `tables` as leaves, by
/// df-pn alone; with the strategy when `budget.proof` asks for it, or the store lacks
/// the result.
///
/// The search first stores every value it finds, which is fast but lets a disproof that
/// rested on a repetition of one line be reused on another (the graph-history
/// interaction). So a disproof is confirmed by writing the defence down as a strategy
/// over positions (see `defence`); if none is found, the question is searched again
/// storing only values that hold whatever the path, going on from the first search's
/// values that do (it marks those resting on a repetition, and those resting on marked
/// ones). A proof never rests on a repetition.
///
/// With [`Method::Exits`](super::dfpn::Method::Exits) no disproof rests on a repetition
/// either (a repetition is the prover's win there), so one search storing everything is
/// enough, and what it proves is left undecided.
///
/// When df-pn runs out of budget, a fortress of the defender (see `fortress`) may still
/// disprove the win, unless `budget.fortress` is `None`; when the budget ran out while a
/// disproof's defence was being written, the fortress starts from the placements it met.
/// It gathers at most the positions `budget.fortress` says (they count as nodes), within
/// the time and the stop left. With a time limit, df-pn has `SEARCH_SHARE_OF_TIME` of it,
/// so that the fortress has some.
pub fn answer(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
) -> Result<Answer> {
    let started = Instant::now();
    let Some(positions) = budget
        .fortress
        .filter(|_| budget.method == Method::DepthFirst)
    else {
        return answer_by_search(root, rules, tables, query, budget);
    };
    let search_budget = Budget {
        time: budget.time.map(|time| time.mul_f64(SEARCH_SHARE_OF_TIME)),
        ..budget
    };
    let searched = answer_by_search(root, rules, tables, query, search_budget)?;
    // A win proved whose strategy a proof asked for but was not written (the writer
    // follows the proof table, which may have lost the entries it needs): a fortress that
    // falls writes one. (Without a proof asked for, a win the store answers has no
    // strategy, and needs none.)
    let unwritten_win =
        matches!(searched.proof, Proof::Proved(_)) && searched.strategy.is_none() && budget.proof;
    if searched.proof != Proof::Unknown && !unwritten_win {
        return Ok(searched);
    }
    let defender = query.prover.opposite();
    let limits = fortress::Limits {
        positions,
        stop: budget.stop,
        deadline: budget.time.map(|time| started + time),
    };
    let found = fortress::defence(root, rules, tables, defender, &searched.defended, limits);
    Ok(match found {
        fortress::Found::Holds { .. } if unwritten_win => {
            tracing::warn!(
                "{root}: {}'s win was proved, and {}'s fortress holds: the win is not kept",
                query.prover.name(),
                defender.name()
            );
            Answer {
                proof: Proof::Unknown,
                ..searched
            }
        }
        fortress::Found::Holds {
            strategy,
            positions,
        } => {
            tracing::debug!(
                "{} wins? disproved by {}'s fortress: {positions} positions, a strategy of {} turns",
                query.prover.name(),
                defender.name(),
                strategy.turns.len()
            );
            Answer {
                proof: Proof::Disproved(
                    (root.side_to_move() == defender)
                        .then(|| strategy.turn(root.key()))
                        .flatten(),
                ),
                nodes: searched.nodes + positions,
                strategy: Some(strategy),
                numbers: (INFINITE, 0),
                closed: searched.closed,
                defended: Vec::new(),
            }
        }
        fortress::Found::Falls {
            strategy,
            positions,
        } => {
            tracing::debug!(
                "{} wins? proved where {}'s fortress fell: {positions} positions, a strategy of {} turns",
                query.prover.name(),
                defender.name(),
                strategy.turns.len()
            );
            Answer {
                proof: Proof::Proved(
                    (root.side_to_move() == query.prover)
                        .then(|| strategy.turn(root.key()))
                        .flatten(),
                ),
                nodes: searched.nodes + positions,
                strategy: Some(strategy),
                numbers: (0, INFINITE),
                closed: searched.closed,
                defended: Vec::new(),
            }
        }
        fortress::Found::Open { positions } => Answer {
            nodes: searched.nodes + positions,
            ..searched
        },
    })
}

/// [`answer`] by df-pn alone.
fn answer_by_search(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
) -> Result<Answer> {
    let started = Instant::now();
    let (spent, mut table) = match answer_storing(root, rules, tables, query, budget, None)? {
        Ok(answer) => return Ok(answer),
        Err((spent, _)) if budget.method.repetition_is_prover_win() => {
            return Ok(Answer {
                nodes: spent,
                ..Answer::given(Proof::Unknown)
            });
        }
        Err(unconfirmed) => unconfirmed,
    };
    let budget = Budget {
        checkpoint: None,
        ..budget.after(started.elapsed(), spent)
    };
    // What the first search found that rests on no repetition holds on any line: the
    // second goes on from it, not from nothing.
    table.forget_what_rests_on_path();
    match answer_storing(root, rules, tables, query, budget, Some(table))? {
        Ok(answer) => Ok(Answer {
            nodes: answer.nodes + spent,
            ..answer
        }),
        Err(_) => bail!(
            "{root}: a value was found, but not a strategy that holds whatever the path \
             (the graph-history interaction): it is not confirmed"
        ),
    }
}

/// One search of `query`: the first (`inherited` is `None`) stores values that rest on
/// repetitions too, marked; the second stores only values that hold whatever the path,
/// over the first's table with the marked values forgotten. The nodes it took and its
/// table when its disproof is not confirmed by a strategy.
fn answer_storing(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
    inherited: Option<ProofTable>,
) -> Result<Result<Answer, (u64, ProofTable)>> {
    let store_dependent = inherited.is_none();
    let mut search = Search::new(root, rules, tables, query, budget, store_dependent)?;
    if let Some(table) = inherited {
        search.table = table;
    }
    let mover = root.side_to_move();
    let mover_is_prover = mover == query.prover;
    let (phi, delta) = match search.leaf(root) {
        Some(numbers) => numbers,
        None => {
            let (phi, delta, _) = search.expand(root, INFINITE, INFINITE);
            (phi, delta)
        }
    };
    tracing::debug!(
        "{} wins? {} values that rest on the path: numbers {phi} {delta} after {} nodes",
        query.prover.name(),
        if store_dependent {
            "storing"
        } else {
            "not storing"
        },
        search.nodes
    );
    let proof = if search.aborted && phi != 0 && delta != 0 {
        Proof::Unknown
    } else if phi == 0 {
        // The root's mover reached its goal.
        let turn = search.goal_turn(root);
        if mover_is_prover {
            Proof::Proved(turn)
        } else {
            Proof::Disproved(turn)
        }
    } else if mover_is_prover {
        Proof::Disproved(None)
    } else {
        Proof::Proved(None)
    };
    // A proof that a repetition counted for is no proof of a win.
    let proof = match proof {
        Proof::Proved(_) if budget.method.repetition_is_prover_win() => Proof::Unknown,
        proof => proof,
    };
    // A disproof is always confirmed, and so is any value over a guide (it may rest on
    // the guide's values), unless the proof's tables or the store (whose results were
    // checked when they joined it) answer the root. A strategy is also written for a
    // proof file, and for the store when the result is new to it.
    let owner = if phi == 0 { mover } else { mover.opposite() };
    let settled = search.answered_already(root, owner);
    let disproved = matches!(proof, Proof::Disproved(_));
    let unconfirmed = !settled && (disproved || budget.guide.is_some());
    let for_store = budget.store.is_some() && !settled;
    let wanted = proof != Proof::Unknown && (budget.proof || unconfirmed || for_store);
    let strategy = if wanted {
        // Searches again where the table lost entries, within what is left of the
        // budget; saves no checkpoint.
        search.budget_for_strategy();
        let strategy = search.extract(root, owner);
        tracing::debug!(
            "{}'s strategy {} after {} nodes",
            owner.name(),
            if strategy.is_some() {
                "written"
            } else {
                "not found"
            },
            search.nodes
        );
        if strategy.is_none() && !search.aborted {
            if owner != query.prover {
                let table = std::mem::replace(&mut search.table, ProofTable::new(1));
                return Ok(Err((search.nodes, table)));
            }
            bail!(
                "{root}: {}'s win was proved, but not written down as a strategy",
                owner.name()
            );
        }
        strategy
    } else {
        None
    };
    // Stopped while confirming: the value is not known to hold, and the table is saved
    // for the next run.
    let proof = if wanted && unconfirmed && strategy.is_none() {
        if let Some(checkpoint) = budget.checkpoint {
            search.save(checkpoint);
        }
        Proof::Unknown
    } else {
        proof
    };
    let numbers = if mover_is_prover {
        (phi, delta)
    } else {
        (delta, phi)
    };
    Ok(Ok(Answer {
        proof,
        nodes: search.nodes,
        strategy,
        numbers,
        closed: search.take_closed(),
        defended: std::mem::take(&mut search.defended),
    }))
}
