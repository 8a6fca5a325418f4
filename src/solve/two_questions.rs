//! The value of a position: two binary questions (does the side to move win? does its
//! opponent?), one after the other or side by side on two threads, each answered by
//! df-pn alone or by the graph search of `manager` with df-pn at its leaves.

use super::checkpoint::{self, Checkpoint, load, save};
use super::dfpn::{Answer, Budget, Method, Proof, Query, Solved};
use super::strategy::{Guarantee, Strategy};
use super::table::ProofTable;
use super::verdict::Verdict;
use super::{manager, one_question};
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::Tablebase;
use anyhow::{Context, Result, anyhow};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The stack of the solver's thread: far more than the longest line of the df-pn search
/// needs. Only the pages used are ever touched.
const STACK_BYTES: usize = 1 << 30;

/// One binary question answered by the budget's method.
pub fn answer(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
) -> Result<Answer> {
    match budget.method {
        Method::DepthFirst | Method::Exits => {
            one_question::answer(root, rules, tables, query, budget)
        }
        Method::Graph { leaf_nodes } => {
            manager::answer(root, rules, tables, query, budget, leaf_nodes)
        }
    }
}

/// Whether `query.prover` wins from `root`, by the budget's method: the proof and the
/// nodes it took.
pub fn prove(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
) -> Result<(Proof, u64)> {
    answer(root, rules, tables, query, budget).map(|answer| (answer.proof, answer.nodes))
}

/// A turn of a drawn `root` after which the opponent does not win, each candidate proved
/// from the child itself: the turn the root's search found rests on disproofs made with
/// the root on the path, where repeating it was a draw, and a child that is lost except
/// by repeating the root is lost once the root has been left.
fn drawing_turn(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budget: Budget<'_>,
) -> Result<(Option<Turn>, u64)> {
    let mut turns = Vec::new();
    rules.turn_rules().generate(root, &mut turns);
    let opponent = root.side_to_move().opposite();
    let budget = Budget {
        checkpoint: None,
        proof: false,
        ..budget
    };
    let mut nodes = 0;
    for turn in turns {
        let (proof, used) = prove(
            &root.play(turn),
            rules,
            tables,
            Query { prover: opponent },
            budget,
        )?;
        nodes += used;
        if matches!(proof, Proof::Disproved(_)) {
            return Ok((Some(turn), nodes));
        }
    }
    Ok((None, nodes))
}

/// Where the second question of a solve keeps its checkpoint: `FILE.second`.
pub fn second_checkpoint(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".second");
    PathBuf::from(name)
}

/// The two questions answered one after the other: the second only if the first is
/// disproved.
fn one_after_the_other(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budgets: [Budget<'_>; 2],
    first_answered: bool,
) -> Result<[Answer; 2]> {
    let started = Instant::now();
    let mover = root.side_to_move();
    let first = if first_answered {
        Answer::given(Proof::Disproved(None))
    } else {
        answer(root, rules, tables, Query { prover: mover }, budgets[0])?
    };
    if !matches!(first.proof, Proof::Disproved(_)) {
        return Ok([first, Answer::given(Proof::Unknown)]);
    }
    if let Some(checkpoint) = budgets[0].checkpoint
        && !first_answered
    {
        mark_first_answered(checkpoint.path, root, &rules, &budgets[0])?;
    }
    let budget = budgets[1].after(started.elapsed(), first.nodes);
    let second = answer(
        root,
        rules,
        tables,
        Query {
            prover: mover.opposite(),
        },
        budget,
    )?;
    Ok([first, second])
}

/// Writes the first question's checkpoint as the empty table of the second: the file
/// then says that the first was disproved.
fn mark_first_answered(
    path: &Path,
    root: &Position,
    rules: &Rules,
    budget: &Budget<'_>,
) -> Result<()> {
    let second_owner = budget.checkpoint_owner(root, rules, root.side_to_move().opposite());
    save(path, second_owner, &ProofTable::new(1))
}

/// The two questions answered at once on two threads: a proof of either stops the other,
/// which it makes needless.
fn side_by_side(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budgets: [Budget<'_>; 2],
    first_answered: bool,
) -> Result<[Answer; 2]> {
    let mover = root.side_to_move();
    let stops = [AtomicBool::new(false), AtomicBool::new(false)];
    let run = |question: usize| -> Result<Answer> {
        if question == 0 && first_answered {
            return Ok(Answer::given(Proof::Disproved(None)));
        }
        let prover = if question == 0 {
            mover
        } else {
            mover.opposite()
        };
        let budget = Budget {
            stop: &stops[question],
            ..budgets[question]
        };
        let answer = on_own_stack(|| answer(root, rules, tables, Query { prover }, budget))?;
        match answer.proof {
            Proof::Proved(_) => stops[1 - question].store(true, Ordering::Relaxed),
            Proof::Disproved(_) if question == 0 && !first_answered => {
                if let Some(checkpoint) = budgets[0].checkpoint {
                    mark_first_answered(checkpoint.path, root, &rules, &budgets[0])?;
                }
            }
            _ => {}
        }
        Ok(answer)
    };
    std::thread::scope(|scope| {
        let handles = [scope.spawn(|| run(0)), scope.spawn(|| run(1))];
        while !handles.iter().all(|h| h.is_finished()) {
            if budgets[0].stop.load(Ordering::Relaxed) {
                stops.iter().for_each(|s| s.store(true, Ordering::Relaxed));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let [first, second] = handles.map(|h| h.join().map_err(|_| anyhow!("the solver failed")));
        Ok([first??, second??])
    })
}

/// The value of `root` for its side to move: whether it wins, and whether its opponent
/// does (one after the other, or side by side with `budget.threads` at least 2). Neither:
/// a draw. With a checkpoint, a run goes on from the files of both questions (the first
/// in FILE, the second in [`second_checkpoint`]), which are removed once the value is
/// proved.
pub fn solve(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budget: Budget<'_>,
) -> Result<Solved> {
    let started = Instant::now();
    let mover = root.side_to_move();
    let second_file = budget.checkpoint.map(|c| second_checkpoint(c.path));
    let second_budget = Budget {
        checkpoint: moved_to(budget.checkpoint, second_file.as_deref()),
        ..budget
    };
    // A proof needs the first question's strategy, which the mark does not keep.
    let second_owner = budget.checkpoint_owner(root, &rules, mover.opposite());
    let first_answered = !budget.proof
        && match budget.checkpoint {
            Some(checkpoint) => {
                load(checkpoint.path)?.is_some_and(|(owner, _)| owner == second_owner)
            }
            None => false,
        };
    let budgets = [budget, second_budget];
    let [first, second] = if budget.threads >= 2 {
        side_by_side(root, rules, tables, budgets, first_answered)?
    } else {
        one_after_the_other(root, rules, tables, budgets, first_answered)?
    };
    let nodes = first.nodes + second.nodes;
    let open = [(mover, &first), (mover.opposite(), &second)]
        .into_iter()
        .filter_map(|(prover, answer)| left_open(prover, answer))
        .collect();
    let learned: Vec<Strategy> = [&first.strategy, &second.strategy]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let root_turn =
        |strategy: &Option<Strategy>| strategy.as_ref().and_then(|s| s.turn(root.key()));
    let (verdict, best, strategies, nodes) = match (first.proof, second.proof) {
        (Proof::Proved(turn), _) => {
            let best = root_turn(&first.strategy).or(turn);
            (Verdict::Win, best, vec![first.strategy], nodes)
        }
        (_, Proof::Proved(_)) => (Verdict::Loss, None, vec![second.strategy], nodes),
        (Proof::Disproved(_), Proof::Disproved(_)) => {
            // The store's turn when the store answered the root (no strategy written).
            let stored = budget
                .store
                .and_then(|store| store.turn(root.key(), mover, Guarantee::NoLoss));
            let (best, more) = match root_turn(&second.strategy).or(stored) {
                Some(turn) => (Some(turn), 0),
                None => drawing_turn(root, rules, tables, budget)?,
            };
            (
                Verdict::Draw,
                best,
                vec![first.strategy, second.strategy],
                nodes + more,
            )
        }
        _ => (Verdict::Unknown, None, Vec::new(), nodes),
    };
    if verdict != Verdict::Unknown
        && let Some(checkpoint) = budget.checkpoint
    {
        checkpoint::remove(checkpoint.path);
        if let Some(second) = &second_file {
            checkpoint::remove(second);
        }
    }
    Ok(Solved {
        verdict,
        best,
        nodes,
        elapsed: started.elapsed(),
        strategies: if budget.proof && strategies.iter().all(Option::is_some) {
            strategies.into_iter().flatten().collect()
        } else {
            Vec::new()
        },
        open,
        learned,
        closed: [first.closed, second.closed]
            .into_iter()
            .flatten()
            .collect(),
    })
}

/// Whether `prover` wins from `root`, the other question left unasked (on one thread): a
/// win or a loss for the side to move when it is proved, else unknown. A disproof, once
/// confirmed, is one side's result ("Black does not win"): its strategy is among what
/// was learned. The question keeps its checkpoint where [`solve`] keeps it, so that a
/// later solve of both goes on from it.
pub fn solve_one(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budget: Budget<'_>,
    prover: Color,
) -> Result<Solved> {
    // The tables answer both questions at once.
    if tables.is_some_and(|tables| tables.probe_outcome(root).is_some()) {
        return solve_on_own_stack(root, rules, tables, budget);
    }
    let started = Instant::now();
    let mover = root.side_to_move();
    let second_file = budget.checkpoint.map(|c| second_checkpoint(c.path));
    let checkpoint = if prover == mover {
        budget.checkpoint
    } else {
        moved_to(budget.checkpoint, second_file.as_deref())
    };
    let budget = Budget {
        checkpoint,
        ..budget
    };
    let answer = on_own_stack(|| answer(root, rules, tables, Query { prover }, budget))?;
    let verdict = match answer.proof {
        Proof::Proved(_) if prover == mover => Verdict::Win,
        Proof::Proved(_) => Verdict::Loss,
        _ => Verdict::Unknown,
    };
    let best = match answer.proof {
        Proof::Proved(turn) if prover == mover => answer
            .strategy
            .as_ref()
            .and_then(|s| s.turn(root.key()))
            .or(turn),
        _ => None,
    };
    if answer.proof != Proof::Unknown
        && let Some(checkpoint) = checkpoint
    {
        checkpoint::remove(checkpoint.path);
    }
    let open = left_open(prover, &answer).into_iter().collect();
    let strategies = match &answer.strategy {
        Some(strategy) if budget.proof && verdict != Verdict::Unknown => vec![strategy.clone()],
        _ => Vec::new(),
    };
    Ok(Solved {
        verdict,
        best,
        nodes: answer.nodes,
        elapsed: started.elapsed(),
        strategies,
        open,
        learned: answer.strategy.into_iter().collect(),
        closed: answer.closed.into_iter().collect(),
    })
}

/// `checkpoint`'s timing with its file at `path` (the second question's), when both are
/// given.
fn moved_to<'a>(
    checkpoint: Option<Checkpoint<'a>>,
    path: Option<&'a Path>,
) -> Option<Checkpoint<'a>> {
    checkpoint
        .zip(path)
        .map(|(checkpoint, path)| Checkpoint { path, ..checkpoint })
}

/// The question of `prover`, searched and left open: its proof and disproof numbers at
/// the root.
fn left_open(prover: Color, answer: &Answer) -> Option<(Color, u32, u32)> {
    (answer.proof == Proof::Unknown && answer.nodes > 0).then_some((
        prover,
        answer.numbers.0,
        answer.numbers.1,
    ))
}

/// Runs `work` on a thread of its own with room for the longest line (proof-number search
/// recurses once per ply of its current line).
pub fn on_own_stack<T: Send>(work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("solve".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, work)
            .context("cannot start the solver's thread")?
            .join()
            .map_err(|_| anyhow!("the solver failed"))?
    })
}

/// [`solve`] on a thread of its own with room for the longest line.
pub fn solve_on_own_stack(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    budget: Budget<'_>,
) -> Result<Solved> {
    on_own_stack(|| solve(root, rules, tables, budget))
}
