//! A defence (a strategy that never loses) read from the proof table, path-independently.
//!
//! The search's disproofs may rest on repetitions of the line they were found on, so the
//! table cannot be followed blindly. Instead the positions the defence reaches are
//! gathered as a graph, the owner's turn in each chosen by the table, and positions that
//! turn out lost are taken away: a position of the other side to move dies with any of its
//! children, and one of the owner's moves on to its next choice, dying when it has none
//! left. What survives is closed (every line stays inside it or ends in a finished game or
//! a table position the owner does not lose), and a line inside it that goes on forever
//! repeats a position: a draw. No backtracking: each position is gathered once and dies at
//! most once.

use super::dfpn::Search;
use super::strategy::Guarantee;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use std::collections::{HashMap, HashSet};

/// The most nodes of the fresh search that asks whether a gathered position the table
/// does not settle is lost.
const FRESH_SEARCH_NODES: u64 = 10_000;

/// What a child of a gathered position is.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Child {
    /// Settled, and not lost for the owner: never dies.
    Safe,
    /// A position to gather, by key (for the owner's candidates, gathered only once
    /// chosen).
    Node(u64),
}

struct Node {
    position: Position,
    /// The owner to move: its candidate turns, best first, and the children they lead to.
    /// The other side: every turn.
    children: Vec<(Turn, Child)>,
    /// The owner to move: the candidate now chosen.
    choice: usize,
    dead: bool,
}

struct Defence {
    owner: Color,
    nodes: HashMap<u64, Node>,
    /// Who depends on a position: the other side's positions before it, and the owner's
    /// positions whose choice it is.
    parents: HashMap<u64, Vec<u64>>,
    to_gather: Vec<u64>,
    dying: Vec<u64>,
}

impl Defence {
    /// Registers `position` to be gathered, once.
    fn register(&mut self, position: Position) -> u64 {
        let key = position.key();
        self.nodes.entry(key).or_insert_with(|| {
            self.to_gather.push(key);
            Node {
                position,
                children: Vec::new(),
                choice: 0,
                dead: false,
            }
        });
        key
    }

    fn is_dead(&self, key: u64) -> bool {
        self.nodes.get(&key).is_some_and(|node| node.dead)
    }

    /// Makes the owner's position `parent` choose its first candidate from `from` on that
    /// is safe or not dead; it dies when none is left.
    fn choose_from(&mut self, parent: u64, from: usize) {
        let node = &self.nodes[&parent];
        let position = node.position;
        let found = node.children[from.min(node.children.len())..]
            .iter()
            .position(|&(_, child)| match child {
                Child::Safe => true,
                Child::Node(key) => !self.is_dead(key),
            })
            .map(|offset| from + offset);
        let Some(index) = found else {
            self.dying.push(parent);
            return;
        };
        let (turn, child) = self.nodes[&parent].children[index];
        self.nodes.get_mut(&parent).expect("registered").choice = index;
        if let Child::Node(_) = child {
            let key = self.register(position.play(turn));
            self.parents.entry(key).or_default().push(parent);
        }
    }

    /// `dead` has died: its dependant `parent` dies with it or moves on.
    fn revise(&mut self, parent: u64, dead: u64) {
        let node = &self.nodes[&parent];
        if node.dead {
            return;
        }
        if node.position.side_to_move() != self.owner {
            self.dying.push(parent);
        } else if node.children.get(node.choice).map(|c| c.1) == Some(Child::Node(dead)) {
            let next = node.choice + 1;
            self.choose_from(parent, next);
        }
    }

    /// A position found lost for the owner: its dependants lose it or move on.
    fn bury(&mut self, key: u64) {
        let node = self.nodes.get_mut(&key).expect("registered");
        if node.dead {
            return;
        }
        node.dead = true;
        for parent in self.parents.remove(&key).unwrap_or_default() {
            self.revise(parent, key);
        }
    }

    /// What has been gathered, for diagnostics: the positions, how many died, how many
    /// wait, and per stone count the positions gathered and (after `/`) those that died.
    fn census(&self) -> String {
        let mut by_stones = std::collections::BTreeMap::<u32, (usize, usize)>::new();
        for node in self.nodes.values() {
            let stones = node.position.us().count() + node.position.them().count();
            let entry = by_stones.entry(stones).or_default();
            entry.0 += 1;
            entry.1 += usize::from(node.dead);
        }
        let dead: usize = by_stones.values().map(|&(_, dead)| dead).sum();
        let counts: Vec<String> = by_stones
            .iter()
            .map(|(stones, (all, dead))| format!("{stones}:{all}/{dead}"))
            .collect();
        format!(
            "{} positions, {dead} lost, {} to gather; by stones {}",
            self.nodes.len(),
            self.to_gather.len(),
            counts.join(" ")
        )
    }

    /// The owner's chosen turns in the positions reachable from `root` (alive).
    fn chosen_turns(&self, root: u64) -> HashMap<u64, Turn> {
        let mut turns = HashMap::new();
        let mut seen = HashSet::from([root]);
        let mut stack = vec![root];
        while let Some(key) = stack.pop() {
            let node = &self.nodes[&key];
            let next: Vec<Child> = if node.position.side_to_move() == self.owner {
                let (turn, child) = node.children[node.choice];
                turns.insert(key, turn);
                vec![child]
            } else {
                node.children.iter().map(|&(_, child)| child).collect()
            };
            for child in next {
                if let Child::Node(child) = child
                    && seen.insert(child)
                {
                    stack.push(child);
                }
            }
        }
        turns
    }
}

impl Search<'_> {
    /// The owner's turn in every position its defence from `root` reaches, or `None`.
    pub(super) fn extract_defence(
        &mut self,
        root: &Position,
        owner: Color,
    ) -> Option<HashMap<u64, Turn>> {
        let mut defence = Defence {
            owner,
            nodes: HashMap::new(),
            parents: HashMap::new(),
            to_gather: Vec::new(),
            dying: Vec::new(),
        };
        match self.settled_for(root, owner, Guarantee::NoLoss) {
            Some(safe) => return safe.then(HashMap::new),
            None => defence.register(*root),
        };
        loop {
            if self.out_of_budget() || self.writer_full(defence.nodes.len()) {
                tracing::debug!("defence not finished: {}", defence.census());
                return None;
            }
            if let Some(key) = defence.dying.pop() {
                defence.bury(key);
            } else if let Some(key) = defence.to_gather.pop() {
                self.gather(key, &mut defence);
            } else {
                break;
            }
        }
        tracing::debug!("defence finished: {}", defence.census());
        if defence.is_dead(root.key()) {
            return None;
        }
        Some(defence.chosen_turns(root.key()))
    }

    /// A child as the defence sees it: safe, to gather, or `None` when it is settled lost
    /// for the owner.
    fn classify(&mut self, position: &Position, owner: Color) -> Option<Child> {
        match self.settled_for(position, owner, Guarantee::NoLoss) {
            Some(safe) => safe.then_some(Child::Safe),
            None if self.guided_for(position, owner, Guarantee::NoLoss) == Some(false) => None,
            None => Some(Child::Node(position.key())),
        }
    }

    /// How many of the other side's replies at `position` (the owner's candidate) the
    /// defence would have to answer: a position already gathered counts once, a new one
    /// twice, a settled one not at all. Among the turns the guide says hold, the one
    /// with the fewest keeps the defence small.
    fn replies_to_answer(&self, position: &Position, defence: &Defence) -> u64 {
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(position, &mut turns);
        turns
            .into_iter()
            .map(|turn| {
                let next = position.play(turn);
                if self.settled_for(&next, defence.owner, Guarantee::NoLoss) == Some(true) {
                    0
                } else if defence.nodes.contains_key(&next.key()) {
                    1
                } else {
                    2
                }
            })
            .sum()
    }

    /// Whether the owner reaches its goal at `position` (not settled) by the table, or
    /// else by a fresh search.
    fn owner_holds(&mut self, position: &Position, owner: Color) -> bool {
        if let Some(holds) = self.guided_for(position, owner, Guarantee::NoLoss) {
            return holds;
        }
        let owner_to_move = position.side_to_move() == owner;
        // The goal of the side to move: the owner's goal is its opponent's failure.
        let holds = |goal: Option<bool>| goal == Some(owner_to_move);
        // A fresh search that stops undecided gives the position the benefit of the
        // doubt: the defence stays sound, since a lost position dies anyway once the
        // lines below it reach the loss.
        holds(self.goal_reached(position, false))
            || self
                .goal_reached(position, true)
                .is_none_or(|goal| goal == owner_to_move)
    }

    /// Expands a registered position: its children, or its death.
    fn gather(&mut self, key: u64, defence: &mut Defence) {
        self.nodes += 1;
        let position = defence.nodes[&key].position;
        if defence.nodes[&key].dead || !self.owner_holds(&position, defence.owner) {
            defence.dying.push(key);
            return;
        }
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(&position, &mut turns);
        if position.side_to_move() == defence.owner {
            // Candidates: safe children first, then those the guide says hold, by the
            // replies they leave, then those where the table says the other side fails,
            // by the work their proofs took, then those it does not know; those where
            // the table proves the other side's win are left out.
            let mut ranked: Vec<(u64, Turn, Child)> = Vec::new();
            for turn in turns {
                let next = position.play(turn);
                match self.classify(&next, defence.owner) {
                    Some(Child::Safe) => ranked.push((0, turn, Child::Safe)),
                    Some(child) if self.guided(&next, false).is_some() => {
                        let replies = self.replies_to_answer(&next, defence);
                        ranked.push((1 + replies, turn, child));
                    }
                    Some(child) => match self.goal_reached(&next, false) {
                        Some(false) => {
                            let work = self.table.work(next.key());
                            ranked.push(((1 << 32) + work, turn, child));
                        }
                        // Not in the table: searched if it comes to that.
                        None => ranked.push((u64::MAX, turn, child)),
                        Some(true) => {}
                    },
                    None => {}
                }
            }
            ranked.sort_unstable_by_key(|&(rank, _, _)| rank);
            defence.nodes.get_mut(&key).expect("registered").children =
                ranked.into_iter().map(|(_, t, c)| (t, c)).collect();
            defence.choose_from(key, 0);
        } else {
            let mut children = Vec::with_capacity(turns.len());
            for turn in turns {
                let next = position.play(turn);
                match self.classify(&next, defence.owner) {
                    Some(child) => children.push((turn, child, next)),
                    None => {
                        defence.dying.push(key);
                        return;
                    }
                }
            }
            for &(_, child, next) in &children {
                if let Child::Node(_) = child {
                    let child = defence.register(next);
                    defence.parents.entry(child).or_default().push(key);
                    if defence.is_dead(child) {
                        defence.dying.push(key);
                    }
                }
            }
            defence.nodes.get_mut(&key).expect("registered").children =
                children.into_iter().map(|(t, c, _)| (t, c)).collect();
        }
    }

    /// Whether the side to move at `position` (not settled) reaches its goal in the
    /// search's terms (the prover a win, its opponent anything else), as the table says;
    /// `None` when it does not know. With `fresh`, the position is searched again first,
    /// from an empty path: the extraction's lines are not the search's.
    fn goal_reached(&mut self, position: &Position, fresh: bool) -> Option<bool> {
        let numbers = if fresh {
            let line = std::mem::take(&mut self.path);
            let numbers = self.probe(position, FRESH_SEARCH_NODES);
            self.path = line;
            numbers
        } else {
            self.table.get(position.key())?
        };
        match numbers {
            (0, _) => Some(true),
            (_, 0) => Some(false),
            _ => None,
        }
    }
}
