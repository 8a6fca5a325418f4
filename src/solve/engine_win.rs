//! A win found by following the engine: at each of the prover's positions the turn that
//! the engine's own search chooses, checked against every turn of the defender, down to
//! the tables. This is the checkers proof's front end in its simplest form: in long quiet
//! wins (7 stones over the 6-stone tables, 23 to 36 turns to the next capture) df-pn
//! spends tens of millions of nodes without finding the winner's way, while the engine
//! at depth 12 knows it, and a proof along its choices takes tens of thousands of
//! positions (docs/experiments.md).
//!
//! The positions walked form a graph, solved backwards as the tables are built: one of
//! the prover's positions is won when the child of one of its chosen turns is, one of the
//! defender's when every child is; a position is dead when the defender escapes from it
//! into the tables, or when every choice of the prover there is dead and the engine has
//! no other. A cycle is neither: its positions stay open until a choice leads out, so no
//! value rests on a path (the graph-history problem of a search that calls a repetition
//! a failure does not arise). A won position rests only on positions won before it, so
//! its strategy never comes back to it.
//!
//! The walk goes depth first, in passes from the root over the open positions. Where a
//! line comes back to a position of its own path, the last of the prover's positions on
//! that path gets the engine's next choice, the engine shown the cycle so that it scores
//! the return as the draw it is and steers clear; at most [`MAX_CHOICES`] a position.
//! When a pass changes nothing, every one of the prover's positions on a cycle of the
//! open part gets one more choice; when that changes nothing either, the walk is over.
//! What is found is a [`Strategy`], which the caller confirms with the checker like any
//! other.

use super::check::settled;
use super::strategy::{Guarantee, Strategy};
use crate::engine::nnue::Network;
use crate::engine::search::{Limits as SearchLimits, SearchRequest, Signals, search};
use crate::engine::tt::TranspositionTable;
use crate::rules::Rules;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::Tablebase;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The most turns of the engine tried in one of the prover's positions.
const MAX_CHOICES: usize = 3;

/// What one position of the walk's graph holds, about (its position, children,
/// parents and index entry), for the memory limit.
pub(super) const BYTES_PER_POSITION: u64 = 512;

/// How often the walk reports its progress, in positions expanded.
const REPORT_EVERY: u64 = 100_000;

/// The engine's transposition table for the walk's searches, in MiB.
const ENGINE_HASH_MB: usize = 64;

/// A walked position's value for the prover.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum State {
    /// Not known yet.
    Open,
    /// Won by the engine's choices.
    Won,
    /// Not won by them: the defender escapes, or the engine has no choice left.
    Dead,
}

/// A position of the walk's graph (one the tables do not settle).
struct Node {
    position: Position,
    state: State,
    expanded: bool,
    /// The prover's: its choices not dead; the defender's: its children not yet won.
    pending: u32,
    /// The prover's turns tried here: the engine's choices, in order.
    tried: Vec<Turn>,
    /// Children in the graph (the positions the tables settle are not in it).
    children: Vec<u32>,
    /// The prover's turn that wins here.
    winning: Option<Turn>,
    /// The open positions with this one as a child, dropped once it is settled.
    parents: Vec<u32>,
    /// The last pass that visited it, and whether it is on that pass's current path.
    visited: u32,
    on_path: bool,
}

/// The engine that chooses the prover's turns: its endgame tables (the proof's, opened
/// for the engine), its evaluation and how deep it searches.
pub struct EngineGuide {
    /// The tables the engine probes; only its choices depend on them.
    pub tables: Option<Arc<Tablebase>>,
    /// The evaluation network; the hand-written evaluation when `None`.
    pub network: Option<Arc<Network>>,
    /// The depth of each search.
    pub depth: u32,
}

impl std::fmt::Debug for EngineGuide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineGuide")
            .field("tables", &self.tables.as_ref().map(|t| t.max_stones()))
            .field("network", &self.network.is_some())
            .field("depth", &self.depth)
            .finish()
    }
}

/// What stops the walk.
#[derive(Copy, Clone)]
pub struct Limits<'a> {
    /// The most positions walked.
    pub positions: u64,
    /// Stop when this is set.
    pub stop: &'a AtomicBool,
    /// Stop at this time.
    pub deadline: Option<Instant>,
}

/// What the walk found.
#[derive(Debug)]
pub enum Found {
    /// The prover wins by this strategy (not yet confirmed by the checker).
    Win {
        /// The prover's turn in each of its positions the strategy reaches.
        strategy: Strategy,
        /// Positions walked.
        positions: u64,
        /// Nodes of the engine's searches.
        engine_nodes: u64,
    },
    /// The engine's choices did not win within the limits.
    Open {
        /// Positions walked.
        positions: u64,
        /// Nodes of the engine's searches.
        engine_nodes: u64,
    },
}

/// Whether `prover` wins from `root` by the engine's choices (see the module's text),
/// with `tables` as the proof's leaves.
pub fn win(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    prover: Color,
    guide: &EngineGuide,
    limits: Limits<'_>,
) -> Found {
    let mut graph = Graph::new(rules, tables, prover, guide, limits, ENGINE_HASH_MB);
    let won = graph.run(root);
    let (positions, engine_nodes) = (graph.positions, graph.engine_nodes);
    tracing::debug!(
        "the engine's choices {}: {positions} positions expanded, {} in the graph, {} \
         choices off cycles, {} rounds on cycles, {engine_nodes} nodes of the engine",
        if won { "win" } else { "do not win" },
        graph.nodes.len(),
        graph.choices_off_cycles,
        graph.rounds,
    );
    if won {
        Found::Win {
            strategy: graph.strategy(root),
            positions,
            engine_nodes,
        }
    } else {
        Found::Open {
            positions,
            engine_nodes,
        }
    }
}

/// `position` as if a capture had just been made, for the engine's choices there: the
/// same whatever line reached it (the engine's scores shrink as the turns without a
/// capture add up).
fn afresh(position: &Position) -> Position {
    with_counter(position, 0)
}

/// `position` with its count of turns since the last capture set.
fn with_counter(position: &Position, turns_since_capture: u32) -> Position {
    let (white, black) = match position.side_to_move() {
        Color::White => (position.us(), position.them()),
        Color::Black => (position.them(), position.us()),
    };
    Position::new_on(
        position.board(),
        white,
        black,
        position.side_to_move(),
        turns_since_capture,
        position.move_number(),
    )
    .expect("the parts of a valid position")
}

/// The walk's graph of the positions the tables do not settle, and what the walk needs.
struct Graph<'a> {
    rules: Rules,
    tables: Option<&'a Tablebase>,
    prover: Color,
    guide: &'a EngineGuide,
    limits: Limits<'a>,
    tt: Arc<TranspositionTable>,
    nodes: Vec<Node>,
    index: HashMap<u64, u32>,
    changed: Vec<u32>,
    positions: u64,
    engine_nodes: u64,
    /// Choices added where a pass came back to its path, and in rounds after a pass that
    /// changed nothing.
    choices_off_cycles: u64,
    rounds: u64,
    pass: u32,
}

impl<'a> Graph<'a> {
    /// An empty graph, the engine's table of `hash_mb` MiB.
    fn new(
        rules: Rules,
        tables: Option<&'a Tablebase>,
        prover: Color,
        guide: &'a EngineGuide,
        limits: Limits<'a>,
        hash_mb: usize,
    ) -> Self {
        Graph {
            rules,
            tables,
            prover,
            guide,
            limits,
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            nodes: Vec::new(),
            index: HashMap::new(),
            changed: Vec::new(),
            positions: 0,
            engine_nodes: 0,
            choices_off_cycles: 0,
            rounds: 0,
            pass: 0,
        }
    }

    /// Whether the prover wins a position decided without search: the end of the game or
    /// the tables' value.
    fn settled(&self, position: &Position) -> Option<bool> {
        settled(position, self.tables)
            .map(|outcome| Guarantee::Win.kept_by(outcome, position.side_to_move(), self.prover))
    }

    fn out_of_limits(&self) -> bool {
        self.positions >= self.limits.positions
            || self.limits.stop.load(Ordering::Relaxed)
            || self
                .limits
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// Whether the prover wins from `root`: passes, and rounds where a pass changed
    /// nothing, until the root is settled, nothing changes or a limit is reached.
    fn run(&mut self, root: &Position) -> bool {
        if let Some(won) = self.settled(root) {
            return won;
        }
        let root_index = self.intern(root);
        loop {
            match self.nodes[root_index as usize].state {
                State::Won => return true,
                State::Dead => return false,
                State::Open => {}
            }
            if self.out_of_limits() {
                return false;
            }
            if !self.pass(root_index) && !self.widen(root_index) {
                return false;
            }
        }
    }

    /// One depth-first pass over the open positions reachable from the root: the new
    /// ones expanded, and where a line comes back to a position of its own path, the
    /// last of the prover's positions on it given the engine's next choice, the engine
    /// shown the path. Whether anything changed.
    fn pass(&mut self, root: u32) -> bool {
        self.pass += 1;
        let pass = self.pass;
        let mut changed = false;
        if !self.nodes[root as usize].expanded {
            self.expand(root);
            self.propagate();
            changed = true;
        }
        self.nodes[root as usize].visited = pass;
        self.nodes[root as usize].on_path = true;
        let mut frames: Vec<(u32, usize)> = vec![(root, 0)];
        while let Some(&(v, next)) = frames.last() {
            if self.out_of_limits() {
                break;
            }
            let node = &self.nodes[v as usize];
            if node.state != State::Open || next >= node.children.len() {
                self.nodes[v as usize].on_path = false;
                frames.pop();
                continue;
            }
            frames.last_mut().expect("a frame").1 += 1;
            let c = node.children[next];
            let child = &self.nodes[c as usize];
            if child.state != State::Open {
                continue;
            }
            if child.on_path {
                changed |= self.choose_off_the_cycle(&frames, c);
                continue;
            }
            if child.visited == pass {
                continue;
            }
            self.nodes[c as usize].visited = pass;
            if !self.nodes[c as usize].expanded {
                self.expand(c);
                self.propagate();
                changed = true;
                if self.nodes[c as usize].state != State::Open {
                    continue;
                }
            }
            self.nodes[c as usize].on_path = true;
            frames.push((c, 0));
        }
        for (u, _) in frames {
            self.nodes[u as usize].on_path = false;
        }
        changed
    }

    /// A line of the pass (`frames`, from the root) comes back to `again`, a position on
    /// it: the last of the prover's positions on the line gets the engine's next choice,
    /// the engine shown the cycle, so that it scores the return as a draw. (Shown the
    /// line since its last capture instead, the engine's searches grew much dearer on
    /// one of the long wins measured, docs/experiments.md.) Whether a choice was added.
    fn choose_off_the_cycle(&mut self, frames: &[(u32, usize)], again: u32) -> bool {
        let start = frames
            .iter()
            .position(|&(u, _)| u == again)
            .expect("the position is on the line");
        let Some(last) = frames
            .iter()
            .rposition(|&(u, _)| self.nodes[u as usize].position.side_to_move() == self.prover)
        else {
            return false;
        };
        let p = frames[last].0;
        if last < start || self.nodes[p as usize].state != State::Open {
            return false;
        }
        let cycle: Vec<Position> = frames[start..=last]
            .iter()
            .map(|&(u, _)| self.nodes[u as usize].position)
            .collect();
        let added = self.add_choice(p, Some(cycle));
        self.choices_off_cycles += u64::from(added);
        self.propagate();
        added
    }

    /// The node of an unsettled position, made if new.
    fn intern(&mut self, position: &Position) -> u32 {
        let key = position.key();
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        self.nodes.push(Node {
            position: *position,
            state: State::Open,
            expanded: false,
            pending: 0,
            tried: Vec::new(),
            children: Vec::new(),
            winning: None,
            parents: Vec::new(),
            visited: 0,
            on_path: false,
        });
        self.index.insert(key, i);
        i
    }

    /// Settles the open node `i`, its parents told at the next [`Graph::propagate`].
    fn settle(&mut self, i: u32, state: State, winning: Option<Turn>) {
        let node = &mut self.nodes[i as usize];
        debug_assert_eq!(node.state, State::Open);
        node.state = state;
        node.winning = winning;
        self.changed.push(i);
    }

    /// Links `child` under `parent`; whether it is new there.
    fn link(&mut self, parent: u32, child: u32) -> bool {
        if self.nodes[parent as usize].children.contains(&child) {
            return false;
        }
        self.nodes[parent as usize].children.push(child);
        let node = &mut self.nodes[child as usize];
        if node.state == State::Open {
            node.parents.push(parent);
        }
        true
    }

    /// Expands the open node `i`: the prover's gets a turn into the tables that wins or
    /// the engine's first choice, the defender's every child.
    fn expand(&mut self, i: u32) {
        self.positions += 1;
        if self.positions.is_multiple_of(REPORT_EVERY) {
            tracing::debug!(
                "the engine's choices: {} positions expanded, {} in the graph, {} nodes of the engine",
                self.positions,
                self.nodes.len(),
                self.engine_nodes
            );
        }
        self.nodes[i as usize].expanded = true;
        let position = self.nodes[i as usize].position;
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(&position, &mut turns);
        if position.side_to_move() == self.prover {
            if let Some(&turn) = turns
                .iter()
                .find(|&&turn| self.settled(&position.play(turn)) == Some(true))
            {
                self.settle(i, State::Won, Some(turn));
                return;
            }
            if !self.add_choice(i, None) {
                self.settle(i, State::Dead, None);
            }
        } else {
            let children: Vec<Position> = turns.iter().map(|&turn| position.play(turn)).collect();
            let mut open = Vec::new();
            for child in &children {
                match self.settled(child) {
                    Some(true) => {}
                    Some(false) => {
                        self.settle(i, State::Dead, None);
                        return;
                    }
                    None => open.push(*child),
                }
            }
            let mut pending = 0;
            for child in &open {
                let c = self.intern(child);
                match self.nodes[c as usize].state {
                    State::Won => {}
                    State::Dead => {
                        self.settle(i, State::Dead, None);
                        return;
                    }
                    State::Open => {
                        if self.link(i, c) {
                            pending += 1;
                        }
                    }
                }
            }
            self.nodes[i as usize].pending = pending;
            if pending == 0 {
                self.settle(i, State::Won, None);
            }
        }
    }

    /// The engine's next choice in the prover's open node `i`, its position searched
    /// alone and without the turns tried there: whether a live one was added (the node
    /// may have been won by it).
    fn add_choice(&mut self, i: u32, history: Option<Vec<Position>>) -> bool {
        let position = self.nodes[i as usize].position;
        let mut legal = Vec::new();
        self.rules.turn_rules().generate(&position, &mut legal);
        while self.nodes[i as usize].tried.len() < MAX_CHOICES {
            let tried = &self.nodes[i as usize].tried;
            let turns: Vec<Turn> = legal
                .iter()
                .copied()
                .filter(|turn| !tried.contains(turn))
                .collect();
            if turns.is_empty() {
                return false;
            }
            let excluded = !tried.is_empty();
            let Some(turn) =
                self.engine_turn(&position, history.clone(), excluded.then_some(turns))
            else {
                return false;
            };
            self.nodes[i as usize].tried.push(turn);
            let child = position.play(turn);
            match self.settled(&child) {
                Some(true) => {
                    self.settle(i, State::Won, Some(turn));
                    return true;
                }
                Some(false) => continue,
                None => {}
            }
            let c = self.intern(&child);
            match self.nodes[c as usize].state {
                State::Won => {
                    self.settle(i, State::Won, Some(turn));
                    return true;
                }
                State::Dead => continue,
                State::Open => {
                    if self.link(i, c) {
                        self.nodes[i as usize].pending += 1;
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The engine's turn in `position` (shown `history` before it when given, else the
    /// position alone and afresh), among `searchmoves` when given.
    fn engine_turn(
        &mut self,
        position: &Position,
        history: Option<Vec<Position>>,
        searchmoves: Option<Vec<Turn>>,
    ) -> Option<Turn> {
        let mut limits = SearchLimits::to_depth(self.guide.depth);
        if let Some(turns) = searchmoves {
            limits.searchmoves = turns;
        }
        // Shown a path, the engine scores a return to it as the draw it is; the path's
        // last position is given a counter that reaches back over all of it.
        let history = match history {
            Some(mut path) => {
                let reach = u32::try_from(path.len()).expect("a short path") - 1;
                *path.last_mut().expect("a path") = with_counter(position, reach);
                path
            }
            None => vec![afresh(position)],
        };
        let mut request = SearchRequest::new(history, limits, self.tt.clone());
        // The solver knows no no-capture limit (a repetition is its only draw): with it,
        // the engine would call every line past it a draw and choose at random there.
        request.rules = Rules {
            no_capture_limit: 0,
            ..self.rules
        };
        request.tablebase = self.guide.tables.clone();
        request.network = self.guide.network.clone();
        let outcome = search(&request, &Signals::new(false), &mut |_| {});
        self.engine_nodes += outcome.nodes;
        outcome.best
    }

    /// Passes the values settled since the last call up to the parents, as retrograde
    /// analysis does; a prover's position whose last live choice died asks the engine
    /// for another.
    fn propagate(&mut self) {
        while let Some(x) = self.changed.pop() {
            let state = self.nodes[x as usize].state;
            let parents = std::mem::take(&mut self.nodes[x as usize].parents);
            for p in parents {
                if self.nodes[p as usize].state != State::Open {
                    continue;
                }
                let parent = &self.nodes[p as usize];
                if parent.position.side_to_move() == self.prover {
                    if state == State::Won {
                        let position = parent.position;
                        let key = self.nodes[x as usize].position.key();
                        let turn = parent
                            .tried
                            .iter()
                            .copied()
                            .find(|&turn| position.play(turn).key() == key);
                        self.settle(p, State::Won, turn);
                    } else {
                        self.nodes[p as usize].pending -= 1;
                        if self.nodes[p as usize].pending == 0 && !self.add_choice(p, None) {
                            self.settle(p, State::Dead, None);
                        }
                    }
                } else if state == State::Won {
                    self.nodes[p as usize].pending -= 1;
                    if self.nodes[p as usize].pending == 0 {
                        self.settle(p, State::Won, None);
                    }
                } else {
                    self.settle(p, State::Dead, None);
                }
            }
        }
    }

    /// A pass changed nothing and the root is open: the defender can keep the game among
    /// open positions. Each of the prover's positions on a cycle of the open part gets
    /// the engine's next choice, its position searched alone. Whether one was added.
    fn widen(&mut self, root: u32) -> bool {
        self.rounds += 1;
        let cyclic = self.cyclic_prover_nodes(root);
        tracing::debug!(
            "the engine's choices: a round on {} positions on cycles",
            cyclic.len()
        );
        let mut changed = false;
        for p in cyclic {
            if self.out_of_limits() {
                return true;
            }
            if self.nodes[p as usize].state == State::Open && self.add_choice(p, None) {
                changed = true;
            }
            self.propagate();
        }
        changed
    }

    /// The prover's open nodes that lie on a cycle of the open region reachable from
    /// `root` (Tarjan's strongly connected components, iteratively).
    fn cyclic_prover_nodes(&self, root: u32) -> Vec<u32> {
        let open_children = |i: u32| -> Vec<u32> {
            self.nodes[i as usize]
                .children
                .iter()
                .copied()
                .filter(|&c| self.nodes[c as usize].state == State::Open)
                .collect()
        };
        let mut number: HashMap<u32, (u32, u32)> = HashMap::new(); // index, lowlink
        let mut on_stack: HashSet<u32> = HashSet::new();
        let mut component_stack: Vec<u32> = Vec::new();
        let mut result = Vec::new();
        let mut counter = 0u32;
        // (node, its open children, next child to visit)
        let mut call: Vec<(u32, Vec<u32>, usize)> = Vec::new();
        number.insert(root, (counter, counter));
        counter += 1;
        on_stack.insert(root);
        component_stack.push(root);
        call.push((root, open_children(root), 0));
        while let Some(frame) = call.last_mut() {
            let (v, ref children, ref mut next) = *frame;
            if *next < children.len() {
                let w = children[*next];
                *next += 1;
                match number.get(&w) {
                    None => {
                        number.insert(w, (counter, counter));
                        counter += 1;
                        on_stack.insert(w);
                        component_stack.push(w);
                        let grandchildren = open_children(w);
                        call.push((w, grandchildren, 0));
                    }
                    Some(&(w_index, _)) => {
                        if on_stack.contains(&w) {
                            let entry = number.get_mut(&v).expect("numbered");
                            entry.1 = entry.1.min(w_index);
                        }
                    }
                }
            } else {
                call.pop();
                let (v_index, v_low) = number[&v];
                if let Some(&(u, _, _)) = call.last() {
                    let entry = number.get_mut(&u).expect("numbered");
                    entry.1 = entry.1.min(v_low);
                }
                if v_low == v_index {
                    let mut component = Vec::new();
                    loop {
                        let w = component_stack.pop().expect("on the stack");
                        on_stack.remove(&w);
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    // Turns alternate sides, so a cycle has two positions at least.
                    if component.len() > 1 {
                        result.extend(component.into_iter().filter(|&w| {
                            self.nodes[w as usize].position.side_to_move() == self.prover
                        }));
                    }
                }
            }
        }
        result
    }

    /// The prover's turns in the won positions reached from `root`.
    fn strategy(&self, root: &Position) -> Strategy {
        let mut turns = Vec::new();
        let mut seen = HashSet::from([root.key()]);
        let mut stack = vec![*root];
        let mut generated = Vec::new();
        while let Some(position) = stack.pop() {
            if self.settled(&position).is_some() {
                continue;
            }
            let node = &self.nodes[self.index[&position.key()] as usize];
            debug_assert_eq!(node.state, State::Won);
            let children: Vec<Position> = if position.side_to_move() == self.prover {
                let turn = node.winning.expect("a won position's turn");
                turns.push((position.key(), turn));
                vec![position.play(turn)]
            } else {
                generated.clear();
                self.rules.turn_rules().generate(&position, &mut generated);
                generated.iter().map(|&turn| position.play(turn)).collect()
            };
            for child in children {
                if seen.insert(child.key()) {
                    stack.push(child);
                }
            }
        }
        turns.sort_unstable_by_key(|&(key, _)| key);
        Strategy {
            owner: self.prover,
            guarantee: Guarantee::Win,
            turns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::check::confirms;
    use crate::solve::sample::random_positions;
    use crate::solve::test_tables::TestTables;

    /// Over the 3-stone tables, random positions of four stones and both questions: every
    /// win the engine's choices make is one in truth and passes the checker, and they make
    /// most of the wins there are.
    #[test]
    fn the_engines_wins_are_true_and_confirmed() {
        let rules = Rules::default();
        let tables = TestTables::build("engine-win", rules, 4);
        let guide = EngineGuide {
            tables: Some(Arc::new(tables.leaves_again(rules))),
            network: None,
            depth: 4,
        };
        let stop = AtomicBool::new(false);
        let limits = Limits {
            positions: 2_000,
            stop: &stop,
            deadline: None,
        };
        let (mut wins, mut found) = (0, 0);
        for root in random_positions(&rules, &[(3, 1), (1, 3), (2, 2)], 100, 11) {
            let truth = tables.all.probe_outcome(&root).expect("in the tables");
            for prover in [Color::White, Color::Black] {
                let truly = Guarantee::Win.kept_by(truth, root.side_to_move(), prover);
                wins += usize::from(truly);
                let leaves = Some(&tables.leaves);
                if let Found::Win { strategy, .. } =
                    win(&root, rules, leaves, prover, &guide, limits)
                {
                    assert!(truly, "{root}: {} wins? found, and false", prover.name());
                    assert!(
                        confirms(&root, &rules, leaves, &strategy),
                        "{root}: the checker refuses {}'s win",
                        prover.name()
                    );
                    found += 1;
                }
            }
        }
        eprintln!("{found} of {wins} wins found along the engine's choices");
        assert!(found * 2 > wins, "{found} of {wins} wins found");
    }

    /// A walk told to stop, or given no positions, finds nothing and walks nothing.
    #[test]
    fn a_walk_out_of_limits_walks_nothing() {
        let rules = Rules::default();
        let root: Position = "9/9/2W3W2/9/4B4 b".parse().unwrap();
        let guide = EngineGuide {
            tables: None,
            network: None,
            depth: 2,
        };
        let (stopped, running) = (AtomicBool::new(true), AtomicBool::new(false));
        for (positions, stop) in [(100, &stopped), (0, &running)] {
            let limits = Limits {
                positions,
                stop,
                deadline: None,
            };
            match win(&root, rules, None, Color::White, &guide, limits) {
                Found::Open {
                    positions: 0,
                    engine_nodes: 0,
                } => {}
                other => panic!("{other:?}"),
            }
        }
    }

    /// The rounds on cycles widen the prover's positions on a cycle of the open part and
    /// no others: not the root, which leads into the cycle, nor a defender's position.
    #[test]
    fn the_positions_on_cycles_are_found() {
        let guide = EngineGuide {
            tables: None,
            network: None,
            depth: 1,
        };
        let stop = AtomicBool::new(false);
        let limits = Limits {
            positions: 100,
            stop: &stop,
            deadline: None,
        };
        let mut graph = Graph::new(Rules::default(), None, Color::White, &guide, limits, 1);
        let [root, into, on_cycle, back, aside, won]: [u32; 6] = [
            "W8/9/9/9/8B w",
            "W8/9/9/9/8B b",
            "1W7/9/9/9/8B w",
            "1W7/9/9/9/8B b",
            "2W6/9/9/9/8B b",
            "3W5/9/9/9/8B w",
        ]
        .map(|fen| graph.intern(&fen.parse().unwrap()));
        for (parent, child) in [
            (root, into),
            (root, aside),
            (into, on_cycle),
            (on_cycle, back),
            (back, on_cycle),
            (aside, won),
        ] {
            graph.link(parent, child);
        }
        graph.nodes[won as usize].state = State::Won;
        assert_eq!(graph.cyclic_prover_nodes(root), vec![on_cycle]);
        // Once a position of the cycle is settled, the cycle is gone.
        graph.nodes[back as usize].state = State::Won;
        assert_eq!(graph.cyclic_prover_nodes(root), Vec::<u32>::new());
    }
}
