//! A won position's strategy, built as an attractor over a graph gathered with the proof
//! table's guidance.
//!
//! A table entry proved on one line may rest on nothing path-dependent (a proof never
//! uses a repetition), but the turn that proves it is not stored, and a turn chosen
//! merely because its child is proved can lead round in a circle. So the positions are
//! gathered (every turn of the other side, and the owner's turns one candidate at a
//! time, the table's proved ones first) and won backwards from the finished games and
//! the tables, as the tables themselves are built: the other side's position is won when
//! all its children are, the owner's when one candidate is, with that turn. A position is
//! won only after the one its turn leads to, so no line of the strategy repeats. A
//! position that cannot be won any more (the other side has a turn the owner does not
//! win, or the owner has tried every candidate) says so at once to the positions before
//! it: the other side's fail with it, and the owner's open their next candidate. Only
//! when nothing is left to gather and the root is still not won (its candidates go round
//! in circles) does every owner's position still open try its next candidate, in the
//! order the positions were gathered, so that a run is the same each time.
//!
//! Where the table shows none of the owner's turns to win (its entries were replaced, as
//! in a small table, or never stored), a fresh search of a few thousand nodes proves the
//! position again first, or shows that it is not won: a turn opened blindly can lead
//! into millions of positions.

use super::defence::FRESH_SEARCH_NODES;
use super::dfpn::{Search, WIN_WRITER_BYTES_PER_POSITION};
use super::strategy::Guarantee;
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use std::collections::{HashMap, HashSet};

struct Node {
    position: Position,
    /// The owner to move: candidate turns, best first, not yet opened.
    candidates: Vec<Turn>,
    /// The other side to move: children not won yet.
    remaining: usize,
    /// The owner to move: candidates opened whose positions are not known hopeless.
    open: usize,
    /// Whether the position cannot be won (the other side has a turn to a position the
    /// owner does not win, or the owner has no candidate left that might win).
    hopeless: bool,
    /// Won, with the owner's turn when the owner is to move.
    won: Option<Option<Turn>>,
    /// When it was first reached: the order of the search's widening steps.
    order: usize,
}

/// The rank of a candidate that neither the guide nor the table shows to win (see
/// [`Search::ranked_for_win`]).
const UNKNOWN_RANK: u64 = 1 << 62;

/// The owner's turns at a position, ranked for the win.
enum Ranked {
    /// A turn into a settled win.
    Won(Turn),
    /// Every other turn not into a settled loss, with its rank (lower is better).
    Candidates(Vec<(u64, Turn)>),
}

struct Attractor {
    owner: Color,
    nodes: HashMap<u64, Node>,
    /// The positions before each: the owner's (with the turn from it) or the other
    /// side's.
    parents: HashMap<u64, Vec<(u64, Option<Turn>)>>,
    to_gather: Vec<u64>,
    newly_won: Vec<u64>,
    /// Positions found hopeless, whose positions before them are still to be told.
    newly_hopeless: Vec<u64>,
}

impl Attractor {
    /// Registers `position`, reached from `parent` (by the owner's `turn`, if the owner
    /// played it), to be gathered once.
    fn link(&mut self, position: Position, parent: Option<(u64, Option<Turn>)>) -> u64 {
        let key = position.key();
        let order = self.nodes.len();
        self.nodes.entry(key).or_insert_with(|| {
            self.to_gather.push(key);
            Node {
                position,
                candidates: Vec::new(),
                remaining: 0,
                open: 0,
                hopeless: false,
                won: None,
                order,
            }
        });
        // A hopeless position has told those before it already; a new one is told by
        // its caller.
        if let Some(parent) = parent
            && !self.nodes[&key].hopeless
        {
            self.parents.entry(key).or_default().push(parent);
        }
        key
    }

    fn win(&mut self, key: u64, turn: Option<Turn>) {
        let node = self.nodes.get_mut(&key).expect("registered");
        if node.won.is_none() && !node.hopeless {
            node.won = Some(turn);
            self.newly_won.push(key);
        }
    }

    fn is_won(&self, key: u64) -> bool {
        self.nodes.get(&key).is_some_and(|node| node.won.is_some())
    }

    fn is_hopeless(&self, key: u64) -> bool {
        self.nodes.get(&key).is_some_and(|node| node.hopeless)
    }

    /// Marks a position not won as hopeless, to be told to the positions before it.
    fn give_up(&mut self, key: u64) {
        let node = self.nodes.get_mut(&key).expect("registered");
        if node.won.is_none() && !node.hopeless {
            node.hopeless = true;
            self.newly_hopeless.push(key);
        }
    }

    /// A hopeless position tells the positions before it: the other side's are hopeless
    /// too, and the owner's that played into it open their next candidate.
    fn retreat(&mut self, key: u64) {
        for (parent, turn) in self.parents.remove(&key).unwrap_or_default() {
            if self.nodes[&parent].won.is_some() || self.nodes[&parent].hopeless {
                continue;
            }
            match turn {
                None => self.give_up(parent),
                Some(_) => {
                    self.nodes.get_mut(&parent).expect("registered").open -= 1;
                    self.open_next_or_give_up(parent);
                }
            }
        }
    }

    /// Opens the owner's position's next candidate that is not known hopeless; gives the
    /// position up when none is left and none of those opened may still win.
    fn open_next_or_give_up(&mut self, key: u64) {
        while self.nodes[&key].won.is_none() {
            match self.open_next(key) {
                Some(child) if !self.is_hopeless(child) => return,
                Some(_) => self.nodes.get_mut(&key).expect("registered").open -= 1,
                None => {
                    if self.nodes[&key].open == 0 {
                        self.give_up(key);
                    }
                    return;
                }
            }
        }
    }

    /// A won position tells the positions before it.
    fn propagate(&mut self, key: u64) {
        for (parent, turn) in self.parents.remove(&key).unwrap_or_default() {
            match turn {
                Some(turn) => self.win(parent, Some(turn)),
                None => {
                    let node = self.nodes.get_mut(&parent).expect("registered");
                    if node.hopeless || node.won.is_some() {
                        continue;
                    }
                    node.remaining -= 1;
                    if node.remaining == 0 {
                        self.win(parent, None);
                    }
                }
            }
        }
    }

    /// Opens the next candidate of the owner's position `key`, if it has one left: the
    /// position it leads to.
    fn open_next(&mut self, key: u64) -> Option<u64> {
        let node = self.nodes.get_mut(&key).expect("registered");
        let turn = node.candidates.pop()?;
        node.open += 1;
        let child = node.position.play(turn);
        let child = self.link(child, Some((key, Some(turn))));
        if self.is_won(child) {
            self.win(key, Some(turn));
        }
        Some(child)
    }

    /// The won turns of the owner's positions that play from `root` reaches.
    fn strategy(&self, root: u64, rules: &Rules) -> HashMap<u64, Turn> {
        let mut turns = HashMap::new();
        let mut seen = HashSet::from([root]);
        let mut stack = vec![root];
        let mut all = Vec::new();
        while let Some(key) = stack.pop() {
            let node = &self.nodes[&key];
            let next: Vec<Position> = match node.won {
                Some(Some(turn)) => {
                    turns.insert(key, turn);
                    vec![node.position.play(turn)]
                }
                _ => {
                    all.clear();
                    rules.turn_rules().generate(&node.position, &mut all);
                    all.iter().map(|&turn| node.position.play(turn)).collect()
                }
            };
            for child in next {
                if self.nodes.contains_key(&child.key()) && seen.insert(child.key()) {
                    stack.push(child.key());
                }
            }
        }
        turns
    }
}

impl Search<'_> {
    /// The owner's winning turn in every position of its strategy from `root`, or `None`.
    pub(super) fn extract_win(
        &mut self,
        root: &Position,
        owner: Color,
    ) -> Option<HashMap<u64, Turn>> {
        if self.settled_for(root, owner, Guarantee::Win).is_some() {
            return Some(HashMap::new());
        }
        let mut attractor = Attractor {
            owner,
            nodes: HashMap::new(),
            parents: HashMap::new(),
            to_gather: Vec::new(),
            newly_won: Vec::new(),
            newly_hopeless: Vec::new(),
        };
        let root_key = attractor.link(*root, None);
        loop {
            if self.out_of_budget()
                || self.writer_full(attractor.nodes.len() * WIN_WRITER_BYTES_PER_POSITION)
                || attractor.is_won(root_key)
            {
                break;
            }
            if let Some(key) = attractor.newly_won.pop() {
                attractor.propagate(key);
            } else if let Some(key) = attractor.newly_hopeless.pop() {
                attractor.retreat(key);
            } else if let Some(key) = attractor.to_gather.pop() {
                self.gather_for_win(key, &mut attractor);
            } else {
                // Stuck in circles: every owner's position not won tries its next
                // candidate, in the order they were reached.
                let mut open: Vec<(usize, u64)> = attractor
                    .nodes
                    .iter()
                    .filter(|(_, n)| n.won.is_none() && !n.hopeless && !n.candidates.is_empty())
                    .map(|(&key, n)| (n.order, key))
                    .collect();
                if open.is_empty() {
                    return None;
                }
                open.sort_unstable();
                tracing::trace!(
                    "win strategy stuck with {} positions gathered: {} open ones widen",
                    attractor.nodes.len(),
                    open.len()
                );
                for (_, key) in open {
                    attractor.open_next_or_give_up(key);
                }
            }
        }
        (!self.aborted).then(|| attractor.strategy(root_key, &self.rules))
    }

    /// The owner's turns at `position` ranked for the win, best (lowest) first: a turn to
    /// a settled win at once; else the guide's wins, the nearest capture first (the
    /// distance falls at every turn, so this never leads round); then children the table
    /// proves, the one proved earliest first (this position was proved after one of
    /// them, so that choice does not lead round to it); then unknown ones, by the work
    /// spent on them; then those the table says hold out. Turns to settled losses are
    /// left out.
    fn ranked_for_win(&self, position: &Position, turns: &[Turn], owner: Color) -> Ranked {
        let mut ranked = Vec::with_capacity(turns.len());
        for &turn in turns {
            let child = position.play(turn);
            match self.settled_for(&child, owner, Guarantee::Win) {
                Some(true) => return Ranked::Won(turn),
                Some(false) => {}
                None => {
                    if let Some(value) = self.guided(&child, true) {
                        if Guarantee::Win.kept_by(value.outcome, child.side_to_move(), owner) {
                            ranked.push((u64::from(value.distance), turn));
                        }
                        continue;
                    }
                    let key = child.key();
                    let rank = match self.table.get(key) {
                        Some((_, 0)) => 1 << 32 | u64::from(self.table.order(key)),
                        Some((0, _)) => 2 << 62 | self.table.work(key),
                        _ => UNKNOWN_RANK | self.table.work(key),
                    };
                    ranked.push((rank, turn));
                }
            }
        }
        Ranked::Candidates(ranked)
    }

    /// Expands a registered position: the other side's turns all, the owner's first
    /// candidate (a turn to a settled win at once).
    fn gather_for_win(&mut self, key: u64, attractor: &mut Attractor) {
        self.nodes += 1;
        let position = attractor.nodes[&key].position;
        let owner = attractor.owner;
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(&position, &mut turns);
        if position.side_to_move() == owner {
            let mut ranked = match self.ranked_for_win(&position, &turns, owner) {
                Ranked::Won(turn) => {
                    attractor.win(key, Some(turn));
                    return;
                }
                Ranked::Candidates(ranked) => ranked,
            };
            // No child known to be won: the table has lost the entries of this part of
            // the proof (or never had them). A fresh search proves the position again,
            // or shows that it is not won, before the writer opens turns blindly.
            if ranked.iter().all(|&(rank, _)| rank >= UNKNOWN_RANK) {
                let (_, delta) = self.probe(&position, FRESH_SEARCH_NODES);
                if delta == 0 {
                    attractor.give_up(key);
                    return;
                }
                ranked = match self.ranked_for_win(&position, &turns, owner) {
                    Ranked::Won(turn) => {
                        attractor.win(key, Some(turn));
                        return;
                    }
                    Ranked::Candidates(ranked) => ranked,
                };
            }
            ranked.sort_unstable_by_key(|&(rank, _)| std::cmp::Reverse(rank));
            attractor
                .nodes
                .get_mut(&key)
                .expect("registered")
                .candidates = ranked.into_iter().map(|(_, turn)| turn).collect();
            attractor.open_next_or_give_up(key);
        } else {
            let mut children = Vec::with_capacity(turns.len());
            for turn in turns {
                let child = position.play(turn);
                match self.settled_for(&child, owner, Guarantee::Win) {
                    Some(true) => {}
                    Some(false) => {
                        attractor.give_up(key);
                        return;
                    }
                    None if self.guided_for(&child, owner, Guarantee::Win) == Some(false) => {
                        attractor.give_up(key);
                        return;
                    }
                    None => children.push(child),
                }
            }
            let mut remaining = 0;
            for child in children {
                let child = attractor.link(child, Some((key, None)));
                if attractor.is_hopeless(child) {
                    attractor.give_up(key);
                    return;
                }
                if !attractor.is_won(child) {
                    remaining += 1;
                } else {
                    // Already won: its parents were told before this link.
                    if let Some(parents) = attractor.parents.get_mut(&child) {
                        parents.retain(|&(p, _)| p != key);
                    }
                }
            }
            attractor.nodes.get_mut(&key).expect("registered").remaining = remaining;
            if remaining == 0 {
                attractor.win(key, None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::check::{ByKey, follow};
    use crate::solve::dfpn::{Budget, Query};
    use crate::solve::sample::random_positions;
    use crate::solve::table::ProofTable;
    use crate::solve::test_tables::TestTables;
    use std::sync::atomic::AtomicBool;

    /// Wins of 4-stone positions over the 3-stone tables proved, then every entry of the
    /// proof table lost: the writer proves again what it needs with fresh searches
    /// instead of opening turns blindly, and writes each strategy, which the checker's
    /// walk confirms, in few nodes.
    #[test]
    fn wins_are_written_down_after_the_table_lost_its_entries() {
        let rules = Rules::default();
        let tables = TestTables::build("win-writer", rules, 4);
        let (all, leaves) = (&tables.all, &tables.leaves);
        let stop = AtomicBool::new(false);
        let budget = Budget {
            table_mb: 16,
            nodes: Some(2_000_000),
            ..Budget::until(&stop)
        };
        let (mut written, mut spent) = (0, 0);
        for root in random_positions(&rules, &[(3, 1), (2, 2), (1, 3)], 300, 7) {
            let outcome = all.probe_outcome(&root).unwrap();
            let winner = match outcome {
                crate::tablebase::Outcome::Win => root.side_to_move(),
                crate::tablebase::Outcome::Loss => root.side_to_move().opposite(),
                crate::tablebase::Outcome::Draw => continue,
            };
            let query = Query { prover: winner };
            let mut search = Search::new(&root, rules, Some(leaves), query, budget, false).unwrap();
            let (phi, delta) = search.probe(&root, 200_000);
            let proved = if root.side_to_move() == winner {
                phi == 0
            } else {
                delta == 0
            };
            if !proved {
                continue;
            }
            search.table = ProofTable::new(16);
            let before = search.nodes;
            let Some(turns) = search.extract_win(&root, winner) else {
                panic!("{root}: the win of {} is not written down", winner.name());
            };
            spent += search.nodes - before;
            written += 1;
            let turn_of = ByKey(|key| turns.get(&key).copied());
            follow(&root, &rules, Some(leaves), winner, Guarantee::Win, turn_of)
                .expect("the strategy wins");
        }
        // Measured: 240 wins in 67,343 nodes; opening turns blindly, 21 of them were
        // not written within the budget and the others took 482,547 nodes.
        assert!(written > 200, "{written} wins written");
        assert!(spent < 200_000, "{spent} nodes to write {written} wins");
    }
}
