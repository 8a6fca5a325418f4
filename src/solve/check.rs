//! Checking a proof file without the solver: every line the strategies allow is followed
//! with the move generator alone, and must end as promised, in a finished game or in a
//! position of the tables. Only the rules, the tables and the file are trusted.

use super::certificate::Certificate;
use super::strategy::{Guarantee, Strategy};
use super::verdict::Verdict;
use crate::rules::Rules;
use crate::rules::movegen::has_legal_turn;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::{Outcome, Tablebase};
use anyhow::{Result, bail};
use std::collections::HashMap;

/// What a check went through: for each strategy, the positions it reaches (the finished
/// games and the tables' positions not counted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Positions reached, strategy by strategy.
    pub positions: Vec<usize>,
}

/// Verifies that `certificate`'s strategies prove its value, with `tables` for the
/// positions it leaves to them.
pub fn check(certificate: &Certificate, tables: Option<&Tablebase>) -> Result<Checked> {
    tables_suffice(certificate.table_stones, tables)?;
    if !certificate.fits() {
        bail!(
            "its strategies do not fit its value ({})",
            certificate.verdict
        );
    }
    let positions = certificate
        .strategies
        .iter()
        .map(|strategy| {
            let turn_of = ByKey(|key| strategy.turn(key));
            let (owner, guarantee) = (strategy.owner, strategy.guarantee);
            follow(
                &certificate.root,
                &certificate.rules,
                tables,
                owner,
                guarantee,
                turn_of,
            )
            .map(|reached| reached.len())
        })
        .collect::<Result<Vec<usize>>>()?;
    Ok(Checked { positions })
}

/// Whether `tables` hold every layer of up to `table_stones` stones, which a proof rests
/// on.
pub fn tables_suffice(table_stones: u8, tables: Option<&Tablebase>) -> Result<()> {
    let have = tables.map_or(0, |t| t.max_stones());
    if usize::from(table_stones) > have {
        bail!(
            "the proof rests on the tables of up to {table_stones} stones, and those given go to {have}"
        );
    }
    Ok(())
}

/// The value of a position that needs no strategy, for its side to move: a finished game
/// (lost without stones or without a legal turn, won when the other side has no stones),
/// or the tables'.
pub(super) fn settled(position: &Position, tables: Option<&Tablebase>) -> Option<Outcome> {
    if position.us().is_empty() || !has_legal_turn(position) {
        Some(Outcome::Loss)
    } else if position.them().is_empty() {
        Some(Outcome::Win)
    } else {
        tables.and_then(|t| t.probe_outcome(position))
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Mark {
    OnPath,
    Done,
}

/// The turn a strategy plays where its owner is to move: a lookup by position key, or the
/// next choice of a compact proof. It is given the position's key and its legal turns in
/// increasing order of their packed value, each once; its error says what is wrong with
/// the strategy there.
pub(super) trait Chooser {
    /// The owner's turn in the position with key `key`, one of `turns`.
    fn choose(&mut self, key: u64, turns: &[Turn]) -> Result<Turn>;
}

/// A strategy given as a lookup: the turn of the position with a key, if it has one.
pub(super) struct ByKey<F>(pub F);

impl<F: Fn(u64) -> Option<Turn>> ByKey<F> {
    /// Where in `turns` the strategy's turn for `key` stands.
    pub(super) fn index(&self, key: u64, turns: &[Turn]) -> Result<usize> {
        let Some(turn) = (self.0)(key) else {
            bail!("has no turn");
        };
        turns
            .binary_search_by_key(&turn.key(), |t| t.key())
            .map_err(|_| anyhow::anyhow!("plays a turn that is not legal"))
    }
}

impl<F: Fn(u64) -> Option<Turn>> Chooser for ByKey<F> {
    fn choose(&mut self, key: u64, turns: &[Turn]) -> Result<Turn> {
        Ok(turns[self.index(key, turns)?])
    }
}

/// The legal turns of `position` in the order every reader of a proof agrees on:
/// increasing packed value, each once (two capture routes that do the same are one turn).
pub(super) fn ordered_turns(position: &Position, rules: &Rules) -> Vec<Turn> {
    let mut turns = Vec::new();
    rules.turn_rules().generate(position, &mut turns);
    turns.sort_unstable_by_key(|turn| turn.key());
    turns.dedup_by_key(|turn| turn.key());
    turns
}

/// Whether `strategy` keeps its guarantee from `root`, followed as [`check`] follows it,
/// with `tables` settling the positions it leaves to them.
pub(super) fn confirms(
    root: &Position,
    rules: &Rules,
    tables: Option<&Tablebase>,
    strategy: &Strategy,
) -> bool {
    let turn_of = ByKey(|key| strategy.turn(key));
    follow(
        root,
        rules,
        tables,
        strategy.owner,
        strategy.guarantee,
        turn_of,
    )
    .is_ok()
}

/// Follows every line of the strategy of `owner` whose turns `chooser` gives, from
/// `root` (depth first, without recursion, the other side's turns in the order of
/// [`ordered_turns`]): the positions it reaches (not the finished games nor the tables'
/// positions) in the order first met, each with the owner's turn there (none where the
/// other side is to move), or the first line that breaks `guarantee`. The order is part
/// of the compact proof format (docs/proof-format.md), so it must not change.
pub(super) fn follow(
    root: &Position,
    rules: &Rules,
    tables: Option<&Tablebase>,
    owner: Color,
    guarantee: Guarantee,
    mut chooser: impl Chooser,
) -> Result<Vec<(u64, Option<Turn>)>> {
    let whose = format!(
        "{}'s {}",
        owner.name(),
        match guarantee {
            Guarantee::Win => "win",
            Guarantee::NoLoss => "defence",
        }
    );
    let mut reached = Vec::new();
    let mut marks: HashMap<u64, Mark> = HashMap::new();
    // Each frame: a position on the line and the positions after it still to follow,
    // the next one last.
    let mut line: Vec<(u64, Vec<Position>)> = Vec::new();
    let mut next = Some(*root);
    loop {
        if let Some(position) = next.take() {
            let key = position.key();
            match marks.get(&key) {
                Some(Mark::Done) => {}
                Some(Mark::OnPath) if guarantee == Guarantee::NoLoss => {}
                Some(Mark::OnPath) => bail!("{whose} goes round in a circle through {position}"),
                None => match settled(&position, tables) {
                    Some(outcome) => {
                        let mover = position.side_to_move();
                        if !guarantee.kept_by(outcome, mover, owner) {
                            bail!(
                                "{whose} reaches {position}, a {} for its side to move",
                                Verdict::from(outcome)
                            );
                        }
                    }
                    None => {
                        let turns = ordered_turns(&position, rules);
                        let after: Vec<Position> = if position.side_to_move() == owner {
                            let turn = chooser
                                .choose(key, &turns)
                                .map_err(|e| anyhow::anyhow!("{whose} {e:#} in {position}"))?;
                            reached.push((key, Some(turn)));
                            vec![position.play(turn)]
                        } else {
                            reached.push((key, None));
                            turns
                                .iter()
                                .rev()
                                .map(|&turn| position.play(turn))
                                .collect()
                        };
                        marks.insert(key, Mark::OnPath);
                        line.push((key, after));
                    }
                },
            }
        }
        let Some((key, after)) = line.last_mut() else {
            break;
        };
        match after.pop() {
            Some(position) => next = Some(position),
            None => {
                marks.insert(*key, Mark::Done);
                line.pop();
            }
        }
    }
    Ok(reached)
}
