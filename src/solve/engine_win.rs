//! A win found by following the engine: at each of the prover's positions the turn that
//! the engine's own search chooses, checked against every turn of the defender, down to
//! the tables. This is the checkers proof's front end in its simplest form: in long quiet
//! wins (7 stones over the 6-stone tables, 23 to 36 turns to the next capture) df-pn
//! spends tens of millions of nodes without finding the winner's way, while the engine
//! at depth 12 knows it, and a proof along its choices takes tens of thousands of
//! positions (docs/experiments.md).
//!
//! The walk is depth first. A line that comes back to a position of the current path
//! fails there (a repetition is no win); so does one longer than [`MAX_PATH`]. Where the
//! engine's choice fails, the engine searches once more, shown the path (so that it
//! steers clear of the repetition) and without the turn that failed; a position where
//! that fails too is not won. Values are kept by position: a win whatever the path, a
//! failure only when no repetition or limit of this path caused it. What is found is a
//! [`Strategy`], which the caller confirms with the checker like any other.

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

/// The longest line the walk follows, in plies; longer ones fail.
const MAX_PATH: usize = 1_000;

/// The engine's transposition table for the walk's searches, in MiB.
const ENGINE_HASH_MB: usize = 64;

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
    let mut walk = Walk {
        rules,
        tables,
        prover,
        guide,
        limits,
        tt: Arc::new(TranspositionTable::new(ENGINE_HASH_MB)),
        won: HashMap::new(),
        failed: HashSet::new(),
        first_choice: HashMap::new(),
        path: Vec::new(),
        positions: 0,
        engine_nodes: 0,
    };
    let (won, _) = walk.wins(root);
    let (positions, engine_nodes) = (walk.positions, walk.engine_nodes);
    if won {
        Found::Win {
            strategy: walk.strategy(root),
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

/// `position` as if a capture had just been made, for the engine's first choice there:
/// the same whatever line reached it (the engine's scores shrink as the turns without a
/// capture add up).
fn afresh(position: &Position) -> Position {
    let (white, black) = match position.side_to_move() {
        Color::White => (position.us(), position.them()),
        Color::Black => (position.them(), position.us()),
    };
    Position::new_on(
        position.board(),
        white,
        black,
        position.side_to_move(),
        0,
        position.move_number(),
    )
    .expect("the parts of a valid position")
}

/// Whether the prover wins, and whether a failure depends on the path (a repetition, the
/// longest line, or a limit reached), so that it is not kept for the position.
type Walked = (bool, bool);

struct Walk<'a> {
    rules: Rules,
    tables: Option<&'a Tablebase>,
    prover: Color,
    guide: &'a EngineGuide,
    limits: Limits<'a>,
    tt: Arc<TranspositionTable>,
    /// Positions won, with the prover's turn where it is to move.
    won: HashMap<u64, Option<Turn>>,
    /// Positions not won whatever the path.
    failed: HashSet<u64>,
    /// The engine's choice in a position searched alone, by key: one choice a position,
    /// whatever line reached it.
    first_choice: HashMap<u64, Turn>,
    /// The current line.
    path: Vec<Position>,
    positions: u64,
    engine_nodes: u64,
}

impl Walk<'_> {
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

    /// The engine's turn at the end of `history`, among the turns not in `excluded`.
    fn engine_turn(&mut self, history: Vec<Position>, excluded: Option<Turn>) -> Option<Turn> {
        let mut limits = SearchLimits::to_depth(self.guide.depth);
        if let Some(excluded) = excluded {
            let position = history.last().expect("a position to search");
            let mut turns = Vec::new();
            self.rules.turn_rules().generate(position, &mut turns);
            turns.retain(|&turn| turn != excluded);
            if turns.is_empty() {
                return None;
            }
            limits.searchmoves = turns;
        }
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

    fn wins(&mut self, position: &Position) -> Walked {
        if let Some(won) = self.settled(position) {
            return (won, false);
        }
        let key = position.key();
        if self.won.contains_key(&key) {
            return (true, false);
        }
        if self.failed.contains(&key) {
            return (false, false);
        }
        if self.path.len() >= MAX_PATH
            || self.path.iter().any(|p| p.key() == key)
            || self.out_of_limits()
        {
            return (false, true);
        }
        self.positions += 1;
        self.path.push(*position);
        let (won, path_dependent, turn) = if position.side_to_move() == self.prover {
            self.prover_wins(position)
        } else {
            let (won, path_dependent) = self.defender_loses(position);
            (won, path_dependent, None)
        };
        self.path.pop();
        if won {
            self.won.insert(key, turn);
        } else if !path_dependent {
            self.failed.insert(key);
        }
        (won, path_dependent)
    }

    /// The prover to move: a turn into the tables that wins, else the engine's choice,
    /// else its second choice on this line.
    fn prover_wins(&mut self, position: &Position) -> (bool, bool, Option<Turn>) {
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(position, &mut turns);
        if let Some(&turn) = turns
            .iter()
            .find(|&&turn| self.settled(&position.play(turn)) == Some(true))
        {
            return (true, false, Some(turn));
        }
        let first = match self.first_choice.get(&position.key()) {
            Some(&turn) => Some(turn),
            None => {
                let turn = self.engine_turn(vec![afresh(position)], None);
                if let Some(turn) = turn {
                    self.first_choice.insert(position.key(), turn);
                }
                turn
            }
        };
        let Some(first) = first else {
            return (false, false, None);
        };
        let (won, mut path_dependent) = self.wins(&position.play(first));
        if won {
            return (true, false, Some(first));
        }
        if self.out_of_limits() {
            return (false, true, None);
        }
        if let Some(second) = self.engine_turn(self.path.clone(), Some(first)) {
            let (won, again_path_dependent) = self.wins(&position.play(second));
            if won {
                return (true, false, Some(second));
            }
            path_dependent |= again_path_dependent;
        }
        (false, path_dependent, None)
    }

    /// The defender to move: won when every turn is.
    fn defender_loses(&mut self, position: &Position) -> Walked {
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(position, &mut turns);
        let children: Vec<Position> = turns.into_iter().map(|turn| position.play(turn)).collect();
        // A turn the tables say escapes ends the walk here at no cost.
        if children
            .iter()
            .any(|child| self.settled(child) == Some(false))
        {
            return (false, false);
        }
        for child in &children {
            let (won, path_dependent) = self.wins(child);
            if !won {
                return (false, path_dependent);
            }
        }
        (true, false)
    }

    /// The prover's turns in the positions its wins reach from `root`: each won position
    /// rests only on positions won before it, so following the turns never comes back.
    fn strategy(&self, root: &Position) -> Strategy {
        let mut turns = Vec::new();
        let mut seen = HashSet::from([root.key()]);
        let mut stack = vec![*root];
        let mut generated = Vec::new();
        while let Some(position) = stack.pop() {
            if self.settled(&position).is_some() {
                continue;
            }
            let children: Vec<Position> = match self.won.get(&position.key()) {
                Some(Some(turn)) => {
                    turns.push((position.key(), *turn));
                    vec![position.play(*turn)]
                }
                _ => {
                    generated.clear();
                    self.rules.turn_rules().generate(&position, &mut generated);
                    generated.iter().map(|&turn| position.play(turn)).collect()
                }
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
}
