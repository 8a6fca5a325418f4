//! One binary question answered by df-pn and confirmed: a disproof by the defence
//! written down as a strategy, a proof (when asked for) by the prover's.

use super::check::confirms;
use super::dfpn::{Answer, Budget, Method, Proof, Query, Search};
use super::engine_win;
use super::fortress;
use super::table::{INFINITE, ProofTable};
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use crate::tablebase::Tablebase;
use anyhow::{Result, bail};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The share of a time limit that df-pn has before a fortress is tried: a fortress that
/// holds a quiet 7-stone draw takes seconds where df-pn goes round for ever.
const SEARCH_SHARE_OF_TIME: f64 = 0.75;

/// The share of a time limit that writing down the defence of an open question has.
const OPEN_DEFENCE_SHARE_OF_TIME: f64 = 0.125;

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
/// When df-pn left the question open and the fortress does not settle it, the defence
/// that df-pn's table points to is written down (as many nodes again as the search had,
/// `OPEN_DEFENCE_SHARE_OF_TIME` of a time limit): finished and confirmed by the checker's
/// walk, it disproves the win; unfinished, a second fortress starts from its placements.
/// (Seeded so at once, the fortress grows elsewhere and loses some that the root's
/// placement alone settles: docs/experiments.md.) Each fortress gathers at most the
/// positions `budget.fortress` says (they count as nodes), within the time and the stop
/// left. With a time limit, df-pn has `SEARCH_SHARE_OF_TIME` of it, so that the fortress
/// has some. A question still open after all that, with `budget.engine`, is tried along
/// the engine's own choices (see `engine_win`), within what is left of the time; the win
/// found is kept when the checker's walk confirms it.
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
        return Ok(answer_by_search(root, rules, tables, query, budget, false)?.0);
    };
    let search_budget = Budget {
        time: budget.time.map(|time| time.mul_f64(SEARCH_SHARE_OF_TIME)),
        ..budget
    };
    let (searched, open) = answer_by_search(root, rules, tables, query, search_budget, true)?;
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
    let mut found = fortress::defence(root, rules, tables, defender, &searched.defended, limits);
    let mut nodes = searched.nodes;
    let time_left = limits
        .deadline
        .map(|deadline| deadline.saturating_duration_since(Instant::now()));
    if let (fortress::Found::Open { positions }, Some(search)) = (&found, open)
        && !limits.stop.load(Ordering::Relaxed)
        && time_left.is_none_or(|left| !left.is_zero())
    {
        nodes += positions;
        let share = budget
            .time
            .map(|time| time.mul_f64(OPEN_DEFENCE_SHARE_OF_TIME));
        let writer_time = share.zip(time_left).map(|(share, left)| share.min(left));
        let (again, writer_nodes) =
            from_open_defence(root, rules, tables, defender, search, writer_time, limits);
        found = again;
        nodes += writer_nodes;
    }
    if let (fortress::Found::Open { positions }, Some(guide)) = (&found, budget.engine)
        && !limits.stop.load(Ordering::Relaxed)
        && limits
            .deadline
            .is_none_or(|deadline| Instant::now() < deadline)
    {
        nodes += positions;
        let walk_limits = engine_win::Limits {
            positions: budget.engine_positions(),
            stop: limits.stop,
            deadline: limits.deadline,
        };
        match engine_win::win(root, rules, tables, query.prover, guide, walk_limits) {
            engine_win::Found::Win {
                strategy,
                positions,
                engine_nodes,
            } => {
                let confirmed = confirms(root, &rules, tables, &strategy);
                tracing::debug!(
                    "{} wins? the engine's choices win: {positions} positions, {engine_nodes} \
                     nodes of the engine, a strategy of {} turns{}",
                    query.prover.name(),
                    strategy.turns.len(),
                    if confirmed {
                        ""
                    } else {
                        ", which the checker refuses"
                    }
                );
                nodes += positions + engine_nodes;
                if confirmed {
                    return Ok(Answer {
                        proof: Proof::Proved(
                            (root.side_to_move() == query.prover)
                                .then(|| strategy.turn(root.key()))
                                .flatten(),
                        ),
                        nodes,
                        strategy: Some(strategy),
                        numbers: (0, INFINITE),
                        closed: searched.closed,
                        defended: Vec::new(),
                    });
                }
            }
            engine_win::Found::Open {
                positions,
                engine_nodes,
            } => {
                tracing::debug!(
                    "{} wins? the engine's choices do not win within {positions} positions \
                     ({engine_nodes} nodes of the engine)",
                    query.prover.name()
                );
                nodes += positions + engine_nodes;
            }
        }
        found = fortress::Found::Open { positions: 0 };
    }
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
                nodes: nodes + positions,
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
                nodes: nodes + positions,
                strategy: Some(strategy),
                numbers: (0, INFINITE),
                closed: searched.closed,
                defended: Vec::new(),
            }
        }
        fortress::Found::Open { positions } => Answer {
            nodes: nodes + positions,
            ..searched
        },
    })
}

/// The second try at a question df-pn left open (`search` as it stopped) and a fortress
/// grown from the root's placement did not settle: the defence of `defender` that the
/// table points to, written down within as many nodes again as the search had and
/// `writer_time`. Finished and confirmed, it holds; unfinished, a fortress starts from
/// the placements it met. What was found, and the writer's nodes.
fn from_open_defence(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    defender: Color,
    mut search: Search<'_>,
    writer_time: Option<Duration>,
    limits: fortress::Limits<'_>,
) -> (fortress::Found, u64) {
    let searched_nodes = search.nodes;
    search.budget_for_open_defence(writer_time);
    let written = search.extract(root, defender);
    let writer_nodes = search.nodes - searched_nodes;
    let seed = std::mem::take(&mut search.defended);
    drop(search);
    tracing::debug!(
        "{}'s defence of an open question {} after {writer_nodes} nodes",
        defender.name(),
        if written.is_some() {
            "written"
        } else {
            "not finished"
        }
    );
    let found = match written.filter(|strategy| confirms(root, &rules, tables, strategy)) {
        Some(strategy) => fortress::Found::Holds {
            strategy,
            positions: 0,
        },
        None if seed.is_empty() => fortress::Found::Open { positions: 0 },
        None => fortress::defence(root, rules, tables, defender, &seed, limits),
    };
    (found, writer_nodes)
}

/// [`answer`] by df-pn alone; with `keep_open`, the search too when it leaves the
/// question open (its table points to a defence that may be written down).
fn answer_by_search<'a>(
    root: &Position,
    rules: Rules,
    tables: Option<&'a Tablebase>,
    query: Query,
    budget: Budget<'a>,
    keep_open: bool,
) -> Result<(Answer, Option<Search<'a>>)> {
    let started = Instant::now();
    let (spent, mut table) =
        match answer_storing(root, rules, tables, query, budget, None, keep_open)? {
            Ok(answered) => return Ok(answered),
            Err((spent, _)) if budget.method.repetition_is_prover_win() => {
                return Ok((
                    Answer {
                        nodes: spent,
                        ..Answer::given(Proof::Unknown)
                    },
                    None,
                ));
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
    match answer_storing(root, rules, tables, query, budget, Some(table), false)? {
        Ok((answer, _)) => Ok((
            Answer {
                nodes: answer.nodes + spent,
                ..answer
            },
            None,
        )),
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
#[allow(clippy::type_complexity)]
fn answer_storing<'a>(
    root: &Position,
    rules: Rules,
    tables: Option<&'a Tablebase>,
    query: Query,
    budget: Budget<'a>,
    inherited: Option<ProofTable>,
    keep_open: bool,
) -> Result<Result<(Answer, Option<Search<'a>>), (u64, ProofTable)>> {
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
    let answer = Answer {
        proof,
        nodes: search.nodes,
        strategy,
        numbers,
        closed: search.take_closed(),
        defended: std::mem::take(&mut search.defended),
    };
    let open = keep_open && proof == Proof::Unknown && !wanted;
    Ok(Ok((answer, open.then_some(search))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::certificate::Certificate;
    use crate::solve::check::check;
    use crate::solve::sample::random_positions;
    use crate::solve::strategy::Guarantee;
    use crate::solve::test_tables::TestTables;
    use crate::solve::verdict::Verdict;
    use std::sync::atomic::AtomicBool;

    /// Over the 3-stone tables, with budgets too small for df-pn to decide 4-stone
    /// positions and a fortress too small to hold anything, the defence of a question
    /// left open is written down where it can be: each such disproof agrees with the
    /// 4-stone tables and its strategy passes the checker, and some questions that df-pn
    /// alone leaves open are decided so (measured: 6 of 92).
    #[test]
    fn an_open_questions_defence_written_down_disproves_it_soundly() {
        let rules = Rules::default();
        let tables = TestTables::build("open-defence", rules, 4);
        let (truth, leaves) = (&tables.all, &tables.leaves);
        let stop = AtomicBool::new(false);
        let alone = Budget {
            nodes: Some(200),
            fortress: None,
            ..Budget::until(&stop)
        };
        let with_defence = Budget {
            fortress: Some(1),
            ..alone
        };
        let (mut open, mut written) = (0, 0);
        for root in random_positions(&rules, &[(2, 2), (3, 1), (1, 3)], 400, 9) {
            for prover in [Color::White, Color::Black] {
                let query = Query { prover };
                let (searched, _) =
                    answer_by_search(&root, rules, Some(leaves), query, alone, false).unwrap();
                if searched.proof != Proof::Unknown {
                    continue;
                }
                open += 1;
                let answer =
                    super::answer(&root, rules, Some(leaves), query, with_defence).unwrap();
                let Proof::Disproved(_) = answer.proof else {
                    continue;
                };
                let outcome = truth.probe_outcome(&root).unwrap();
                let mover = root.side_to_move();
                assert!(
                    !Guarantee::Win.kept_by(outcome, mover, prover),
                    "{root}: {} wins, and its open question was disproved",
                    prover.name()
                );
                let certificate = Certificate {
                    root,
                    rules,
                    verdict: Verdict::Unknown,
                    table_stones: 3,
                    strategies: vec![answer.strategy.expect("a disproof's defence")],
                };
                if let Err(e) = check(&certificate, Some(leaves)) {
                    panic!("{root}: the open question's defence fails the check: {e:#}");
                }
                written += 1;
            }
        }
        eprintln!("{written} of {open} open questions disproved by their defence");
        assert!(written >= 5, "{written} of {open}");
    }
}
