//! A best-first proof search over an explicit graph, with depth-first proof-number
//! searches of bounded size at its leaves (PN², as Schadd et al. solved Fanoron-Tsivy, and
//! the front end and back end of the checkers proof).
//!
//! Near the root the graph of positions is wide and full of cycles, and df-pn alone goes
//! round them: a node's numbers depend on the line it was reached by, the table holds the
//! numbers of another line, and the search re-enters the same positions without end. Here
//! the positions near the root are kept as a graph, each with its children, and decided
//! the way the tables are built, backwards: a prover's position is won when one child is,
//! a defender's when every child is. A cycle is settled exactly: what the prover cannot
//! force inside the explored graph (its attractor, counting unexplored leaves as possible
//! wins) is not a win, so a draw by repetition needs no value that depends on the path.
//! Each new leaf gets a df-pn search of a few thousand nodes on one table shared by all
//! of them, which keeps every value it decides for the next leaves; the graph's decided
//! values go into that table too, so later df-pn searches stop at them.
//!
//! The proof is read from that table at the end, as for df-pn alone, and a disproof is
//! confirmed by writing the defence down as a strategy over positions.

use super::dfpn::{Answer, Budget, Proof, Query, Search};
use super::table::INFINITE;
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::Tablebase;
use anyhow::{Result, bail};
use std::collections::HashMap;

/// What is known of a position of the graph, for the prover.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Value {
    Open,
    /// The prover wins.
    Proved,
    /// The prover does not win.
    Disproved,
}

/// The numbers of a node whose side to move can do nothing but repeat a position of the
/// current line: as good as lost for the prover on this line, so the search looks
/// elsewhere until the node's numbers are worked out again from its children.
const LOOPING: u32 = INFINITE - 1;

/// Bytes a node of the graph takes, about: the position, the numbers, the lists of
/// children and parents, the index.
const NODE_BYTES: usize = 160;

struct Node {
    position: Position,
    /// Whether the prover is to move.
    prover_moves: bool,
    /// Children, once expanded (each position once).
    children: Vec<u32>,
    /// The expanded positions with a turn to this one.
    parents: Vec<u32>,
    expanded: bool,
    value: Value,
    /// The prover's proof number and disproof number.
    pn: u32,
    dn: u32,
    /// Children not yet decided against the side to move's purpose: for the prover's
    /// position, those not disproved; for the defender's, those not proved.
    undecided: u32,
}

/// The graph and the df-pn search that evaluates its leaves.
struct Manager<'s, 'a> {
    search: &'s mut Search<'a>,
    prover: Color,
    nodes: Vec<Node>,
    index: HashMap<u64, u32>,
    /// The descent in progress: the nodes on it carry the descent's number.
    stamp: Vec<u64>,
    descent: u64,
    /// Nodes decided but not yet told to their parents.
    to_tell: Vec<u32>,
    leaf_nodes: u64,
    max_nodes: usize,
}

impl Manager<'_, '_> {
    /// The prover's numbers of a position decided or evaluated by df-pn, from the numbers
    /// of its side to move.
    fn for_prover(&self, prover_moves: bool, (phi, delta): (u32, u32)) -> (u32, u32) {
        if prover_moves {
            (phi, delta)
        } else {
            (delta, phi)
        }
    }

    fn value_of(pn: u32, dn: u32) -> Value {
        if pn == 0 {
            Value::Proved
        } else if dn == 0 {
            Value::Disproved
        } else {
            Value::Open
        }
    }

    /// The node of `position`, added (with its value when the rules or the tables settle
    /// it, else with a short df-pn search) when it is new.
    fn node(&mut self, position: &Position) -> u32 {
        if let Some(&at) = self.index.get(&position.key()) {
            return at;
        }
        let prover_moves = position.side_to_move() == self.prover;
        let numbers = match self.search.leaf(position) {
            Some(numbers) => numbers,
            None => self.search.probe(position, self.leaf_nodes),
        };
        let (pn, dn) = self.for_prover(prover_moves, numbers);
        let at = self.nodes.len() as u32;
        self.nodes.push(Node {
            position: *position,
            prover_moves,
            children: Vec::new(),
            parents: Vec::new(),
            expanded: false,
            value: Manager::value_of(pn, dn),
            pn,
            dn,
            undecided: 0,
        });
        self.stamp.push(0);
        self.index.insert(position.key(), at);
        at
    }

    /// Marks `at` decided, keeps it in the df-pn table, and queues it for its parents.
    fn decide(&mut self, at: u32, value: Value) {
        let node = &mut self.nodes[at as usize];
        if node.value != Value::Open {
            return;
        }
        node.value = value;
        (node.pn, node.dn) = match value {
            Value::Proved => (0, INFINITE),
            _ => (INFINITE, 0),
        };
        let (pn, dn, prover_moves, key) =
            (node.pn, node.dn, node.prover_moves, node.position.key());
        let (phi, delta) = self.for_prover(prover_moves, (pn, dn));
        self.search.keep_decided(key, phi, delta);
        self.to_tell.push(at);
    }

    /// Tells the parents of every node decided since the last call, and theirs in turn:
    /// retrograde analysis on the graph.
    fn tell_parents(&mut self) {
        while let Some(at) = self.to_tell.pop() {
            let value = self.nodes[at as usize].value;
            let parents = self.nodes[at as usize].parents.clone();
            for parent in parents {
                let node = &mut self.nodes[parent as usize];
                if node.value != Value::Open {
                    continue;
                }
                // The prover's position is won by one won child, lost when no child is
                // left that is not lost; the defender's the other way round.
                let decisive = (value == Value::Proved) == node.prover_moves;
                if decisive {
                    self.decide(parent, value);
                } else {
                    node.undecided -= 1;
                    if node.undecided == 0 {
                        self.decide(parent, value);
                    }
                }
            }
        }
    }

    /// Expands `at`: adds its children, each evaluated, and decides it when they do.
    fn expand(&mut self, at: u32) {
        let position = self.nodes[at as usize].position;
        let mut turns = Vec::new();
        self.search
            .rules
            .turn_rules()
            .generate(&position, &mut turns);
        let mut children: Vec<u32> = Vec::with_capacity(turns.len());
        for turn in turns {
            let child = self.node(&position.play(turn));
            if !children.contains(&child) {
                children.push(child);
            }
        }
        let prover_moves = self.nodes[at as usize].prover_moves;
        let (against, decisive) = if prover_moves {
            (Value::Disproved, Value::Proved)
        } else {
            (Value::Proved, Value::Disproved)
        };
        let mut undecided = 0;
        let mut settled = None;
        for &child in &children {
            self.nodes[child as usize].parents.push(at);
            let value = self.nodes[child as usize].value;
            if value == decisive {
                settled = Some(decisive);
            } else if value != against {
                undecided += 1;
            }
        }
        let node = &mut self.nodes[at as usize];
        node.children = children;
        node.expanded = true;
        node.undecided = undecided;
        if settled.is_none() && undecided == 0 {
            settled = Some(against);
        }
        match settled {
            Some(value) => self.decide(at, value),
            None => self.update(at),
        }
        self.tell_parents();
    }

    /// Works out the numbers of an open expanded node from its children: the side to
    /// move's number is its best child's, the other the largest plus one per other open
    /// child (weak proof numbers, as in the df-pn search).
    fn update(&mut self, at: u32) {
        let node = &self.nodes[at as usize];
        if node.value != Value::Open || !node.expanded {
            return;
        }
        let (mut least, mut largest, mut open) = (INFINITE, 0u64, 0u64);
        for &child in &node.children {
            let child = &self.nodes[child as usize];
            let (ours, theirs) = if node.prover_moves {
                (child.pn, child.dn)
            } else {
                (child.dn, child.pn)
            };
            least = least.min(ours);
            if child.value == Value::Open {
                largest = largest.max(u64::from(theirs));
                open += 1;
            }
        }
        let sum = if open == 0 {
            0
        } else {
            (largest + open - 1).min(u64::from(INFINITE - 1)) as u32
        };
        let node = &mut self.nodes[at as usize];
        (node.pn, node.dn) = if node.prover_moves {
            (least, sum)
        } else {
            (sum, least)
        };
    }

    /// The child of `at` the search goes into next: the most proving for the prover to
    /// move, the most disproving for the defender, off the current descent and open.
    fn most_promising(&self, at: u32) -> Option<u32> {
        let node = &self.nodes[at as usize];
        node.children
            .iter()
            .copied()
            .filter(|&child| {
                self.nodes[child as usize].value == Value::Open
                    && self.stamp[child as usize] != self.descent
            })
            .min_by_key(|&child| {
                let child = &self.nodes[child as usize];
                if node.prover_moves {
                    (child.pn, child.dn)
                } else {
                    (child.dn, child.pn)
                }
            })
    }

    /// One descent from the root to the most promising leaf, which is expanded; the
    /// numbers are worked out again on the way back. False when the descent ended on a
    /// position whose open children all lie on the descent (nothing expanded).
    fn descend(&mut self, root: u32) -> bool {
        self.descent += 1;
        let mut line = vec![root];
        self.stamp[root as usize] = self.descent;
        let mut at = root;
        let expanded = loop {
            if !self.nodes[at as usize].expanded {
                self.expand(at);
                break true;
            }
            match self.most_promising(at) {
                Some(child) => {
                    self.stamp[child as usize] = self.descent;
                    line.push(child);
                    at = child;
                }
                None => {
                    // Only repetitions of this line are left here.
                    let node = &mut self.nodes[at as usize];
                    (node.pn, node.dn) = (LOOPING, 1);
                    line.pop();
                    break false;
                }
            }
        };
        for &node in line.iter().rev() {
            self.update(node);
        }
        expanded
    }

    /// A turn from the expanded `root` to a child with the root's own `value` for the
    /// prover: the turn that keeps it, when the root's mover is the one it favours.
    fn turn_keeping(&self, root: &Position, value: Value) -> Option<Turn> {
        let mut turns = Vec::new();
        self.search.rules.turn_rules().generate(root, &mut turns);
        turns.into_iter().find(|&turn| {
            self.index
                .get(&root.play(turn).key())
                .is_some_and(|&child| self.nodes[child as usize].value == value)
        })
    }

    /// Decides every open position from which the prover cannot force its way, inside
    /// the graph, to a won position or an unexplored one: the defender keeps it from the
    /// win for ever (a repetition is a draw) or until a position already disproved.
    fn close_cycles(&mut self) {
        let count = self.nodes.len();
        let mut reachable = vec![false; count];
        let mut missing: Vec<u32> = vec![0; count];
        let mut queue = Vec::new();
        for (at, node) in self.nodes.iter().enumerate() {
            let seed = match node.value {
                Value::Proved => true,
                Value::Disproved => false,
                Value::Open => !node.expanded,
            };
            if seed {
                reachable[at] = true;
                queue.push(at as u32);
            } else if node.value == Value::Open {
                missing[at] = node.children.len() as u32;
            }
        }
        while let Some(at) = queue.pop() {
            for &parent in &self.nodes[at as usize].parents {
                let p = parent as usize;
                if reachable[p] || self.nodes[p].value != Value::Open {
                    continue;
                }
                let enough = self.nodes[p].prover_moves || {
                    missing[p] -= 1;
                    missing[p] == 0
                };
                if enough {
                    reachable[p] = true;
                    queue.push(parent);
                }
            }
        }
        let cut_off: Vec<u32> = (0..count as u32)
            .filter(|&at| !reachable[at as usize] && self.nodes[at as usize].value == Value::Open)
            .collect();
        for at in cut_off {
            self.decide(at, Value::Disproved);
        }
        self.tell_parents();
    }
}

/// Whether `query.prover` wins from `root`: the graph grows one leaf at a time from the
/// root, each new position searched by df-pn for at most `leaf_nodes` nodes.
pub(super) fn answer(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    query: Query,
    budget: Budget<'_>,
    leaf_nodes: u64,
) -> Result<Answer> {
    let mut search = Search::new(root, rules, tables, query, budget, false)?;
    let max_nodes = (budget.table_mb.max(1) << 20) / NODE_BYTES;
    let mut manager = Manager {
        search: &mut search,
        prover: query.prover,
        nodes: Vec::new(),
        index: HashMap::new(),
        stamp: Vec::new(),
        descent: 0,
        to_tell: Vec::new(),
        leaf_nodes: leaf_nodes.max(1),
        max_nodes,
    };
    let start = manager.node(root);
    let mut next_closing = 1_024;
    let mut stuck = 0;
    while manager.nodes[start as usize].value == Value::Open
        && !manager.search.over_budget()
        && manager.nodes.len() < manager.max_nodes
    {
        if manager.descend(start) {
            stuck = 0;
        } else {
            stuck += 1;
        }
        if manager.nodes.len() >= next_closing || stuck >= 64 {
            manager.close_cycles();
            next_closing = manager.nodes.len() + manager.nodes.len() / 4 + 1;
            if stuck >= 64 && manager.nodes[start as usize].value == Value::Open {
                // Every way forward repeats: only a re-evaluation of the numbers helps.
                for at in 0..manager.nodes.len() as u32 {
                    manager.update(at);
                }
                stuck = 0;
            }
        }
    }
    if manager.nodes[start as usize].value == Value::Open {
        manager.close_cycles();
    }
    let value = manager.nodes[start as usize].value;
    let graph = manager.nodes.len();
    let (pn, dn) = (
        manager.nodes[start as usize].pn,
        manager.nodes[start as usize].dn,
    );
    tracing::info!("graph of {graph} positions, root numbers {pn} {dn}");
    let graph_turn = manager.turn_keeping(root, value);
    let mover = root.side_to_move();
    let proof = match value {
        Value::Open => Proof::Unknown,
        Value::Proved => Proof::Proved(None),
        Value::Disproved => Proof::Disproved(None),
    };
    if proof == Proof::Unknown {
        return Ok(Answer {
            proof,
            nodes: search.nodes,
            strategy: None,
            numbers: (pn, dn),
            closed: None,
            defended: Vec::new(),
        });
    }
    // The root's mover reached its goal (the prover a win, the defender anything else)
    // or failed: the strategy belongs to whoever reached theirs.
    let owner = if value == Value::Proved {
        query.prover
    } else {
        query.prover.opposite()
    };
    let disproved = value == Value::Disproved;
    // As in `one_question`: a disproof is confirmed and a result new to the store gets
    // its strategy, unless the tables or the store answer the root already.
    let settled = search.answered_already(root, owner);
    let strategy = if budget.proof || (!settled && (disproved || budget.store.is_some())) {
        search.budget_for_strategy();
        let strategy = search.extract(root, owner);
        if strategy.is_none() && !search.aborted {
            bail!(
                "{root}: {}'s {} was found on the graph but not written down as a strategy",
                owner.name(),
                if disproved { "defence" } else { "win" }
            );
        }
        strategy
    } else {
        None
    };
    let turn = strategy
        .as_ref()
        .and_then(|s| s.turn(root.key()))
        .or(graph_turn)
        .filter(|_| owner == mover);
    let proof = match proof {
        Proof::Disproved(_) if strategy.is_none() && !settled => Proof::Unknown,
        Proof::Disproved(_) => Proof::Disproved(turn),
        Proof::Proved(_) => Proof::Proved(turn),
        Proof::Unknown => Proof::Unknown,
    };
    Ok(Answer {
        proof,
        nodes: search.nodes,
        strategy,
        numbers: (pn, dn),
        closed: search.take_closed(),
        defended: Vec::new(),
    })
}
