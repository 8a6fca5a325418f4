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
//!
//! A defence through the quiet endings of a guide's tables gathers tens of millions of
//! positions, so a gathered position keeps little: its stones and the owner's chosen turn,
//! in an arena indexed by `u32`. Only a position that may still die (one the guide does
//! not hold) has links to the positions that depend on it and, for the owner, its ranked
//! candidates. The other side's turns are generated again when the chosen turns are read
//! out.
//!
//! Such a defence takes hours, more than a run may have: with a checkpoint, it is saved
//! beside it now and then and when the run stops (see `saved`), and the next run goes on
//! from there.

mod closed;
mod saved;

pub(super) use saved::{DefenceFile, Question};

use super::dfpn::Search;
use super::key_index::KeyIndex;
use super::strategy::Guarantee;
use crate::rules::TurnRules;
use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::geometry::Square;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How often a defence being written says how far it got (at the debug level).
const REPORT_EVERY: Duration = Duration::from_secs(60);

/// The most nodes of the fresh search that asks whether a gathered position the table
/// does not settle is lost. Less is not cheaper: on the ladder's `line-4`, 1,000 left
/// more positions unknown to the table, so twenty times as many were searched and the
/// defence grew by a tenth (docs/experiments.md).
pub(super) const FRESH_SEARCH_NODES: u64 = 10_000;

/// What the allocator adds to each ranking's boxed candidates, about.
const BOX_OVERHEAD_BYTES: usize = 16;

/// The end of a list of links.
const NO_LINK: u32 = u32::MAX;

/// A child as the defence sees it, when it is not lost for the owner.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Class {
    /// Settled, and not lost for the owner: it never dies, and is not gathered.
    Safe,
    /// To gather; `guided` when the guide holds it.
    Open { guided: bool },
}

impl Class {
    /// Whether a position of this class can still be found lost. The guide's values are
    /// exact, so a position it says the owner holds never dies: nothing that depends on
    /// it needs a link, and a choice of it is final.
    fn may_die(self) -> bool {
        self == Class::Open { guided: false }
    }
}

/// One of the owner's candidate turns, by its place in the move generator's list of the
/// position's turns: 4 bytes instead of the 16 a turn would take with its class, since
/// the rankings of positions with many turns are most of a large defence's memory.
#[derive(Copy, Clone)]
struct Candidate {
    turn: u16,
    class: Class,
}

impl Candidate {
    /// The candidate of `turns[at]`.
    fn new(at: usize, class: Class) -> Candidate {
        Candidate {
            turn: u16::try_from(at).expect("fewer than 65,536 turns in a position"),
            class,
        }
    }

    /// Its turn among the position's `turns`, as the move generator lists them.
    fn turn(self, turns: &[Turn]) -> Turn {
        turns[usize::from(self.turn)]
    }
}

/// The turn of an owner's node before it is gathered (never read).
const UNCHOSEN: Turn = match Square::from_index(0) {
    Some(a1) => Turn::new(a1, a1, Bitboard::EMPTY),
    None => unreachable!(),
};

/// The side to move is Black.
const BLACK_TO_MOVE: u8 = 1;
/// The guide holds the position.
const GUIDED: u8 = 2;
/// The position was found lost for the owner.
const DEAD: u8 = 4;
/// The owner to move: its chosen turn leads to a position gathered (not a settled one).
const CHOSEN_OPEN: u8 = 8;

/// A gathered position. Most of a large defence lies in the guide's endings, where no
/// position dies, so a node keeps only what every position needs; the ranked candidates
/// of a choice that may still move on are kept apart ([`Defence::rankings`]).
struct Node {
    /// White's and Black's stones: with the side to move, all of the position the
    /// defence needs (its counters play no part in a key).
    stones: [Bitboard; 2],
    /// The owner to move: the turn chosen now.
    chosen: Turn,
    /// The first link to a position that depends on this one, or [`NO_LINK`].
    dependants: u32,
    flags: u8,
}

impl Node {
    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    fn side_to_move(&self) -> Color {
        if self.has(BLACK_TO_MOVE) {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// The owner's candidates at a position whose choice may still move on, best first, and
/// the one chosen now.
struct Ranking {
    candidates: Box<[Candidate]>,
    choice: usize,
}

/// A position that depends on another: the other side's position before it, or the
/// owner's position whose choice it is (or was: a choice that moved on leaves its link).
struct Link {
    dependant: u32,
    next: u32,
}

/// What the fresh searches of gathered positions did, for diagnostics.
#[derive(Default)]
struct FreshSearches {
    searches: u64,
    nodes: u64,
    lost: u64,
    undecided: u64,
}

struct Defence {
    owner: Color,
    board: Board,
    /// The rules that list a position's turns, in the order candidates refer to.
    turn_rules: TurnRules,
    fresh: FreshSearches,
    /// Each gathered position's index in `nodes`, by key.
    index: KeyIndex,
    nodes: Vec<Node>,
    /// The candidates of the owner's positions whose choice may die.
    rankings: HashMap<u32, Ranking>,
    /// How many candidates `rankings` holds, for [`Defence::bytes`].
    ranked: usize,
    links: Vec<Link>,
    to_gather: Vec<u32>,
    dying: Vec<u32>,
    /// A position the guide says the owner holds was found lost: the guide and the
    /// search disagree, and the defence is given up.
    contradicted: bool,
}

impl Defence {
    fn new(owner: Color, board: Board, turn_rules: TurnRules) -> Defence {
        Defence {
            owner,
            board,
            turn_rules,
            fresh: FreshSearches::default(),
            index: KeyIndex::default(),
            nodes: Vec::new(),
            rankings: HashMap::new(),
            ranked: 0,
            links: Vec::new(),
            to_gather: Vec::new(),
            dying: Vec::new(),
            contradicted: false,
        }
    }

    /// The position of a gathered node.
    fn position(&self, index: u32) -> Position {
        let node = &self.nodes[index as usize];
        let [white, black] = node.stones;
        Position::new_on(self.board, white, black, node.side_to_move(), 0, 1)
            .expect("a gathered position was a position")
    }

    /// Registers `position` (`guided` when the guide holds it) to be gathered, once; its
    /// index.
    fn register(&mut self, position: Position, guided: bool) -> u32 {
        let next = u32::try_from(self.nodes.len()).expect("fewer than 2^32 positions");
        let index = self.index.get_or_insert(position.key(), next);
        if index == next {
            let mut flags = 0;
            if position.side_to_move() == Color::Black {
                flags |= BLACK_TO_MOVE;
            }
            if guided {
                flags |= GUIDED;
            }
            self.nodes.push(Node {
                stones: [position.stones(Color::White), position.stones(Color::Black)],
                chosen: UNCHOSEN,
                dependants: NO_LINK,
                flags,
            });
            self.to_gather.push(index);
        }
        index
    }

    /// Registers the child `position` of `parent`, of class `class`, and records that
    /// `parent` depends on it when it may die.
    fn register_child(&mut self, position: Position, class: Class, parent: u32) {
        let Class::Open { guided } = class else {
            return;
        };
        let child = self.register(position, guided);
        if class.may_die() {
            let next = self.nodes[child as usize].dependants;
            self.nodes[child as usize].dependants =
                u32::try_from(self.links.len()).expect("fewer than 2^32 links");
            self.links.push(Link {
                dependant: parent,
                next,
            });
        }
    }

    fn is_dead(&self, key: u64) -> bool {
        self.index
            .get(key)
            .is_some_and(|index| self.nodes[index as usize].has(DEAD))
    }

    /// The class of a gathered position, `None` when it has died (never safe, and not
    /// lost as far as the tables and the guide tell: it was registered only so).
    fn class_of(&self, index: u32) -> Option<Class> {
        let node = &self.nodes[index as usize];
        (!node.has(DEAD)).then_some(Class::Open {
            guided: node.has(GUIDED),
        })
    }

    /// Makes the owner's position `parent`, with its candidates among its `turns` best
    /// first, choose.
    fn choose(&mut self, parent: u32, turns: &[Turn], candidates: Box<[Candidate]>) {
        let ranking = Ranking {
            candidates,
            choice: 0,
        };
        self.choose_from(parent, turns, ranking);
    }

    /// Makes the owner's position `parent` (whose turns are `turns`) choose the first of
    /// its candidates from `ranking.choice` on that is safe or not dead; it dies when
    /// none is left. The ranking is kept only while the choice may die.
    fn choose_from(&mut self, parent: u32, turns: &[Turn], mut ranking: Ranking) {
        let position = self.position(parent);
        let found = ranking.candidates[ranking.choice..]
            .iter()
            .position(|candidate| {
                candidate.class == Class::Safe
                    || !self.is_dead(position.play(candidate.turn(turns)).key())
            });
        let Some(offset) = found else {
            self.dying.push(parent);
            return;
        };
        ranking.choice += offset;
        let candidate = ranking.candidates[ranking.choice];
        let turn = candidate.turn(turns);
        let node = &mut self.nodes[parent as usize];
        node.chosen = turn;
        if candidate.class == Class::Safe {
            node.flags &= !CHOSEN_OPEN;
        } else {
            node.flags |= CHOSEN_OPEN;
        }
        self.register_child(position.play(turn), candidate.class, parent);
        if candidate.class.may_die() {
            self.ranked += ranking.candidates.len();
            self.rankings.insert(parent, ranking);
        }
    }

    /// `dead` has died: its dependant `parent` dies with it or moves on.
    fn revise(&mut self, parent: u32, dead: u32) {
        let node = &self.nodes[parent as usize];
        if node.has(DEAD) {
            return;
        }
        if node.side_to_move() != self.owner {
            self.dying.push(parent);
            return;
        }
        let chosen = node.chosen;
        let position = self.position(parent);
        if node.has(CHOSEN_OPEN)
            && position.play(chosen).key() == self.position(dead).key()
            && let Some(mut ranking) = self.rankings.remove(&parent)
        {
            self.ranked -= ranking.candidates.len();
            ranking.choice += 1;
            let mut turns = Vec::new();
            self.turn_rules.generate(&position, &mut turns);
            self.choose_from(parent, &turns, ranking);
        }
    }

    /// About how many bytes the defence holds: what stops a writer at its share of
    /// memory. The rankings count: a defence of positions with many turns outside the
    /// guide keeps more in them than in its nodes. A vector's room beyond its length is
    /// left out, since the pages it has not touched take no memory.
    fn bytes(&self) -> usize {
        self.parts().iter().sum()
    }

    /// The parts of [`Defence::bytes`]: the nodes, the index, the links, the rankings
    /// (the map's slots with a control byte each, the boxed candidates and what the
    /// allocator adds to each box), and the positions to gather and dying.
    fn parts(&self) -> [usize; 5] {
        use std::mem::size_of;
        [
            self.nodes.len() * size_of::<Node>(),
            self.index.bytes(),
            self.links.len() * size_of::<Link>(),
            self.rankings.capacity() * (size_of::<(u32, Ranking)>() + 1)
                + self.rankings.len() * BOX_OVERHEAD_BYTES
                + self.ranked * size_of::<Candidate>(),
            (self.to_gather.len() + self.dying.len()) * size_of::<u32>(),
        ]
    }

    /// A position found lost for the owner: its dependants lose it or move on.
    fn bury(&mut self, index: u32) {
        let node = &mut self.nodes[index as usize];
        if node.has(DEAD) {
            return;
        }
        node.flags |= DEAD;
        if node.has(GUIDED) {
            self.contradicted = true;
        }
        let mut link = std::mem::replace(&mut node.dependants, NO_LINK);
        while link != NO_LINK {
            let Link { dependant, next } = self.links[link as usize];
            self.revise(dependant, index);
            link = next;
        }
    }

    /// What has been gathered, for diagnostics: the positions, how many died, how many
    /// wait, and per material (the owner's stones first) the positions gathered and
    /// (after `/`) those that died; the fresh searches; the memory of each part, in MB.
    fn census(&self) -> String {
        // By material, the owner's stones first: whether the defence grows where the
        // owner is the stronger side or the weaker tells which choices to improve.
        let owner = self.owner.index();
        let mut by_material = std::collections::BTreeMap::<(u32, u32), (usize, usize)>::new();
        for node in &self.nodes {
            let material = (node.stones[owner].count(), node.stones[1 - owner].count());
            let entry = by_material.entry(material).or_default();
            entry.0 += 1;
            entry.1 += usize::from(node.has(DEAD));
        }
        let dead: usize = by_material.values().map(|&(_, dead)| dead).sum();
        let counts: Vec<String> = by_material
            .iter()
            .map(|((own, other), (all, dead))| format!("{own}v{other}:{all}/{dead}"))
            .collect();
        let fresh = &self.fresh;
        let megabytes = |bytes: usize| bytes >> 20;
        let [nodes, index, links, rankings, _] = self.parts();
        format!(
            "{} positions, {dead} lost, {} to gather; by material {}; {} fresh searches \
             ({} nodes, {} lost, {} undecided); MB: nodes {}, index {}, links {}, rankings {}",
            self.nodes.len(),
            self.to_gather.len(),
            counts.join(" "),
            fresh.searches,
            fresh.nodes,
            fresh.lost,
            fresh.undecided,
            megabytes(nodes),
            megabytes(index),
            megabytes(links),
            megabytes(rankings),
        )
    }

    /// The owner's placements in the positions still alive, each once, those met most
    /// often first.
    fn placements(&self) -> Vec<u64> {
        let mut met = HashMap::<u64, u32>::new();
        for (index, node) in self.nodes.iter().enumerate() {
            if !node.has(DEAD) {
                let placement = self.position(index as u32).stones(self.owner).bits();
                *met.entry(placement).or_default() += 1;
            }
        }
        let mut placements: Vec<(u64, u32)> = met.into_iter().collect();
        placements.sort_unstable_by_key(|&(placement, met)| (std::cmp::Reverse(met), placement));
        placements
            .into_iter()
            .map(|(placement, _)| placement)
            .collect()
    }
}

impl Search<'_> {
    /// The owner's turn in every position its defence from `root` reaches, or `None`.
    pub(super) fn extract_defence(
        &mut self,
        root: &Position,
        owner: Color,
    ) -> Option<HashMap<u64, Turn>> {
        let guided = match self.settled_for(root, owner, Guarantee::NoLoss) {
            Some(safe) => return safe.then(HashMap::new),
            None => match self.guided_for(root, owner, Guarantee::NoLoss) {
                Some(false) => return None,
                guided => guided.is_some(),
            },
        };
        let mut file = self.defence_file(root, owner);
        let mut defence = file
            .as_ref()
            .and_then(|file| file.resume(self.rules.turn_rules()))
            .unwrap_or_else(|| Defence::new(owner, root.board(), self.rules.turn_rules()));
        // A resumed defence holds the root already: its index comes back.
        let root = defence.register(*root, guided);
        let mut turns = Vec::new();
        let mut last_report = Instant::now();
        for round in 0u64.. {
            // A defence of tens of millions of positions takes minutes: say how it goes,
            // and keep it for the next run.
            if round % 4096 == 0 {
                if last_report.elapsed() >= REPORT_EVERY {
                    tracing::debug!("defence so far: {}", defence.census());
                    last_report = Instant::now();
                }
                if let Some(file) = file.as_mut().filter(|file| file.due()) {
                    file.save(&defence);
                }
            }
            if self.out_of_budget() || self.writer_full(defence.bytes()) {
                tracing::debug!("defence not finished: {}", defence.census());
                self.defended = defence.placements();
                if let Some(file) = file.as_mut() {
                    file.save(&defence);
                }
                if self.store().is_some() {
                    self.keep_closed_part(defence);
                }
                return None;
            }
            if let Some(index) = defence.dying.pop() {
                defence.bury(index);
            } else if let Some(index) = defence.to_gather.pop() {
                self.gather(index, &mut defence, &mut turns);
            } else {
                break;
            }
        }
        tracing::debug!("defence finished: {}", defence.census());
        if let Some(file) = &file {
            file.remove();
        }
        if defence.contradicted {
            tracing::warn!("the guide's tables and the search disagree: no defence written");
            return None;
        }
        if defence.nodes[root as usize].has(DEAD) {
            return None;
        }
        // What only the gathering needed goes before the turns are read out.
        defence.links = Vec::new();
        defence.rankings = HashMap::new();
        defence.ranked = 0;
        Some(self.chosen_turns(&defence, root))
    }

    /// Keeps what is finished of `defence`, left unfinished, for the store: the parts
    /// only the gathering needed go first, to make room for the links the search for it
    /// builds.
    fn keep_closed_part(&mut self, mut defence: Defence) {
        defence.links = Vec::new();
        defence.rankings = HashMap::new();
        defence.ranked = 0;
        let started = Instant::now();
        self.closed = self.closed_part(&defence);
        tracing::debug!(
            "finished part of the defence: {} positions of {}, {:.1} s",
            self.closed
                .as_ref()
                .map_or(0, |closed| closed.reached.len()),
            defence.nodes.len(),
            started.elapsed().as_secs_f64()
        );
    }

    /// Where the defence of `owner` from `root` is saved, when the search keeps a
    /// checkpoint.
    fn defence_file(&self, root: &Position, owner: Color) -> Option<DefenceFile> {
        let checkpoint = self.strategy_checkpoint()?;
        let question = Question {
            root: root.key(),
            board: self.rules.board,
            chain_rule: self.rules.chain_rule,
            owner,
            guide_stones: self.guide_stones(),
            table_stones: self.tables().map_or(0, |tables| tables.max_stones() as u8),
            with_store: self.store().is_some(),
        };
        Some(DefenceFile::new(
            checkpoint.path,
            checkpoint.every,
            question,
        ))
    }

    /// The owner's chosen turns in the positions reachable from `root` (alive): the
    /// other side's turns lead on to every child that was gathered (the others are
    /// settled).
    fn chosen_turns(&self, defence: &Defence, root: u32) -> HashMap<u64, Turn> {
        let mut chosen = HashMap::new();
        let mut seen = vec![false; defence.nodes.len()];
        seen[root as usize] = true;
        let mut stack = vec![root];
        let mut turns = Vec::new();
        while let Some(index) = stack.pop() {
            let node = &defence.nodes[index as usize];
            let position = defence.position(index);
            if position.side_to_move() == defence.owner {
                chosen.insert(position.key(), node.chosen);
                turns.clear();
                if node.has(CHOSEN_OPEN) {
                    turns.push(node.chosen);
                }
            } else {
                self.rules.turn_rules().generate(&position, &mut turns);
            }
            for &turn in &turns {
                if let Some(child) = defence.index.get(position.play(turn).key())
                    && !std::mem::replace(&mut seen[child as usize], true)
                {
                    stack.push(child);
                }
            }
        }
        chosen
    }

    /// A child as the defence sees it, or `None` when it is settled lost for the owner or
    /// the guide says so.
    fn classify(&mut self, position: &Position, owner: Color) -> Option<Class> {
        match self.settled_for(position, owner, Guarantee::NoLoss) {
            Some(safe) => safe.then_some(Class::Safe),
            None => match self.guided_for(position, owner, Guarantee::NoLoss) {
                Some(false) => None,
                known => Some(Class::Open {
                    guided: known.is_some(),
                }),
            },
        }
    }

    /// [`Search::classify`], answered without probing for a position already gathered
    /// (`None` too when it has died).
    fn classify_child(&mut self, position: &Position, defence: &Defence) -> Option<Class> {
        match defence.index.get(position.key()) {
            Some(index) => defence.class_of(index),
            None => self.classify(position, defence.owner),
        }
    }

    /// How many of the other side's replies at `position` (the owner's candidate) the
    /// defence would have to answer: a position already gathered counts once, a new one
    /// twice, a settled one not at all. Among the turns the guide says hold, the one
    /// with the fewest keeps the defence small. Counting stops once it passes `bound`
    /// (the fewest of a candidate before): only the fewest must be exact.
    fn replies_to_answer(&self, position: &Position, defence: &Defence, bound: u64) -> u64 {
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(position, &mut turns);
        let replies: Vec<Position> = turns.into_iter().map(|turn| position.play(turn)).collect();
        // Each lookup misses the caches: ask for all the lines first.
        for next in &replies {
            defence.index.prefetch(next.key());
        }
        let mut count = 0;
        for next in &replies {
            // A gathered position is never settled: it is asked first, without a probe.
            count += if defence.index.contains(next.key()) {
                1
            } else if self.settled_for(next, defence.owner, Guarantee::NoLoss) == Some(true) {
                0
            } else {
                2
            };
            if count > bound {
                break;
            }
        }
        count
    }

    /// At `position`, the other side to move outside the guide: when every reply is a
    /// capture into positions the tables, the store or the guide hold, whether the owner
    /// holds after each; `None` when a reply stays outside them. Captures are compulsory,
    /// so the owner can offer stones and so leave the positions no table holds, where a
    /// defence grows without end.
    fn exit_holds(&self, position: &Position, owner: Color) -> Option<bool> {
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(position, &mut turns);
        if turns.is_empty() {
            return None;
        }
        for turn in turns {
            if !turn.is_capture() {
                return None;
            }
            let next = position.play(turn);
            let holds = self
                .settled_for(&next, owner, Guarantee::NoLoss)
                .or_else(|| self.guided_for(&next, owner, Guarantee::NoLoss))?;
            if !holds {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Whether the owner reaches its goal at `position` (not settled) by the table, or
    /// else by a fresh search.
    fn owner_holds(&mut self, position: &Position, defence: &mut Defence) -> bool {
        let owner = defence.owner;
        if let Some(holds) = self.guided_for(position, owner, Guarantee::NoLoss) {
            return holds;
        }
        // An exits search showed the defence forced from here: no search needed.
        if owner != self.prover && self.forced(position).is_some() {
            return true;
        }
        let owner_to_move = position.side_to_move() == owner;
        // The goal of the side to move: the owner's goal is its opponent's failure.
        let holds = |goal: Option<bool>| goal == Some(owner_to_move);
        // A fresh search that stops undecided gives the position the benefit of the
        // doubt: the defence stays sound, since a lost position dies anyway once the
        // lines below it reach the loss.
        if holds(self.goal_reached(position, false)) {
            return true;
        }
        let before = self.nodes;
        let goal = self.goal_reached(position, true);
        let fresh = &mut defence.fresh;
        fresh.searches += 1;
        fresh.nodes += self.nodes - before;
        match goal {
            None => fresh.undecided += 1,
            Some(goal) if goal != owner_to_move => fresh.lost += 1,
            Some(_) => {}
        }
        goal.is_none_or(|goal| goal == owner_to_move)
    }

    /// Expands a registered position: its children, or its death. `turns` is scratch
    /// space.
    fn gather(&mut self, index: u32, defence: &mut Defence, turns: &mut Vec<Turn>) {
        self.nodes += 1;
        let position = defence.position(index);
        let flags = defence.nodes[index as usize].flags;
        // A guided position was gathered because the guide says the owner holds it.
        if flags & DEAD != 0 || (flags & GUIDED == 0 && !self.owner_holds(&position, defence)) {
            defence.dying.push(index);
            return;
        }
        self.rules.turn_rules().generate(&position, turns);
        if position.side_to_move() == defence.owner {
            // Candidates: safe children first, then those the guide says hold, by the
            // replies they leave, then those where the table says the other side fails,
            // by the work their proofs took, then those it does not know; those where
            // the table proves the other side's win are left out.
            let mut ranked: Vec<(u64, Candidate)> = Vec::new();
            let mut fewest = u64::MAX;
            for (at, &turn) in turns.iter().enumerate() {
                let next = position.play(turn);
                let Some(class) = self.classify_child(&next, defence) else {
                    continue;
                };
                let rank = match class {
                    Class::Safe => 0,
                    Class::Open { guided: true } => {
                        let replies = self.replies_to_answer(&next, defence, fewest);
                        fewest = fewest.min(replies);
                        1 + replies
                    }
                    Class::Open { guided: false } => match self.goal_reached(&next, false) {
                        Some(true) => continue,
                        known => match self.exit_holds(&next, defence.owner) {
                            // Every reply captures into the endings, and one loses.
                            Some(false) => continue,
                            // Every reply captures into endings the owner holds: the
                            // defence leaves the positions outside the guide at once.
                            Some(true) => 1 << 31,
                            // Then those from which an exits search forced its way
                            // out, the least work first: no cycle below them.
                            None => match (self.forced(&next), known) {
                                (Some(work), _) => (1 << 31) + 1 + work.min(1 << 30),
                                (None, Some(_)) => (1 << 32) + self.table.work(next.key()),
                                // Not in the table: searched if it comes to that.
                                (None, None) => u64::MAX,
                            },
                        },
                    },
                };
                ranked.push((rank, Candidate::new(at, class)));
            }
            ranked.sort_unstable_by_key(|&(rank, _)| rank);
            defence.choose(
                index,
                turns,
                ranked.into_iter().map(|(_, candidate)| candidate).collect(),
            );
        } else {
            // Every child must be classified before any is registered: a lost one kills
            // the position, which then needs none of them.
            let mut gathered = Vec::with_capacity(turns.len());
            let guided = defence.nodes[index as usize].has(GUIDED);
            for &turn in turns.iter() {
                let next = position.play(turn);
                // A quiet reply in the guide's endings stays in the guide's layer, where the
                // owner holds whatever the other side plays (the guide's values are
                // exact): no probe.
                let class = match defence.index.get(next.key()) {
                    Some(gathered) => defence.class_of(gathered),
                    None if guided && !turn.is_capture() => Some(Class::Open { guided: true }),
                    None => self.classify(&next, defence.owner),
                };
                match class {
                    Some(Class::Safe) => {}
                    Some(Class::Open { guided }) => gathered.push((next, guided)),
                    None => {
                        defence.dying.push(index);
                        return;
                    }
                }
            }
            for (next, guided) in gathered {
                defence.register_child(next, Class::Open { guided }, index);
            }
        }
    }

    /// Whether the side to move at `position` (not settled) reaches its goal in the
    /// search's terms (the prover a win, its opponent anything else), as the table says;
    /// `None` when it does not know. With `fresh`, the position is searched again first,
    /// from an empty path: the extraction's lines are not the search's.
    fn goal_reached(&mut self, position: &Position, fresh: bool) -> Option<bool> {
        let numbers = if fresh {
            self.probe(position, FRESH_SEARCH_NODES)
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
