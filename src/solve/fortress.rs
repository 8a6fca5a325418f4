//! A defence confined to a few placements of the defender's stones (a fortress), solved
//! exactly by retrograde analysis.
//!
//! Df-pn cannot settle a quiet draw over the tables: neither side can force an exchange,
//! so the defence goes round forever, and which of the defender's quiet turns lose many
//! turns ahead is what no short search sees. But a defender that holds a draw seldom needs
//! to go far: it shuffles among a few placements of its own stones while the attacker's
//! stones go anywhere. So the game is solved with the defender's quiet turns confined to
//! a set of its placements, the attacker's turns all allowed: every position reachable so
//! is gathered (the attacker's placements times the confinement, at most), captures end
//! in the tables, and the attacker's wins are found backwards, as a table is built (a
//! position of the attacker is won when one of its children is, one of the defender's
//! when all of its allowed children are; a position with a child settled at once for its
//! mover, such as a turn that forces the other side into a losing capture, is decided
//! there, and its other children are not gathered). Whatever is not won is held by the
//! defender: confining it only took turns away from it, so the strategy that stays
//! outside the attacker's wins holds in the real game too (and is checked like any
//! other).
//!
//! The confinement starts with the root's placement and, when df-pn disproved the win but
//! the writer ran out of budget before the defence was written down, the defender's
//! placements in what the writer gathered: that defence may rest on repetitions or on
//! entries the table lost, but where it is sound it names most of the placements a
//! fortress needs, which growing from the root's alone takes many rounds to find. The
//! confinement grows where the attacker's refutation needs it to: the defender's steps out
//! of the confinement at its positions on the attacker's winning lines (each the child won
//! first) are let in, those taken most often first, and the game is solved again, until
//! the defender holds, the refutation meets no step left out, or the positions go past the
//! budget. A round settles at once the positions earlier rounds found held, and those
//! they found won whatever the defender's ways out (both hold in the real game, and the
//! strategies written follow those rounds' turns there), so it gathers only what is still
//! open.
//!
//! Each round also solves the game with the defender's steps out of the confinement
//! counted as its ways out (children the attacker never wins). What the attacker wins
//! then it wins in the real game, each of its lines going to positions won earlier, so
//! none repeats: when that is the root, the fortress has fallen, and the attacker's
//! strategy is kept as the proof of its win once the checker's walk confirms it (a
//! capture into a position no table holds was counted for the attacker, which would
//! fail there).

use super::check::{confirms, settled};
use super::strategy::{Guarantee, Strategy};
use crate::rules::Rules;
use crate::rules::bitboard::Bitboard;
use crate::rules::movegen::{has_capture, has_legal_turn};
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::tablebase::{Outcome, Tablebase};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A child that the tables (or the end of the game) settle as the attacker's win, or
/// that nothing settles after a capture: counted as the attacker's, which is safe.
const ATTACKER_WINS: u32 = u32::MAX;
/// A child settled as not lost for the defender.
const DEFENDER_HOLDS: u32 = u32::MAX - 1;

/// Bytes a gathered position takes, about: its stones, its place in the index, its
/// children and parents, and its marks.
pub(super) const BYTES_PER_POSITION: usize = 100;

/// A confinement grows by a quarter at most after a round (by `GROWTH_AT_LEAST`
/// placements while it is small): the rounds together cost a few times the last, and
/// the last is not much larger than the fortress needs. Measured on the quiet 7-stone
/// draws that df-pn leaves open, with the steps the refutation takes most often let in
/// first: growing by half, or ranking the steps by how near the root they are, needed
/// more positions (docs/experiments.md).
const GROWTH_DIVISOR: usize = 4;
/// The fewest placements let in after a round.
const GROWTH_AT_LEAST: usize = 8;

/// The limits of a fortress search.
#[derive(Copy, Clone)]
pub(super) struct Limits<'a> {
    /// The most positions of one confinement's game.
    pub positions: usize,
    /// Stop when this is set or the time is past.
    pub stop: &'a AtomicBool,
    /// When to stop, if ever.
    pub deadline: Option<Instant>,
}

impl Limits<'_> {
    fn reached(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What a fortress search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// The defender holds: its strategy, and the positions gathered over every round.
    Holds { strategy: Strategy, positions: u64 },
    /// The fortress fell where no step of the defender's was left out: the attacker wins
    /// in the real game, with this strategy (checked), and the positions gathered.
    Falls { strategy: Strategy, positions: u64 },
    /// Not found within the limits; the positions gathered over every round.
    Open { positions: u64 },
}

/// `defender`'s strategy from `root` that never loses, confined to a growing set of its
/// placements that starts with the root's and `seed`'s (the most promising first: when
/// the first game outgrows the limits, the seed's second half is left out, and so on),
/// with `tables` settling every position after a capture.
pub(super) fn defence(
    root: &Position,
    rules: Rules,
    tables: Option<&Tablebase>,
    defender: Color,
    mut seed: &[u64],
    limits: Limits<'_>,
) -> Found {
    let start = |seed: &[u64]| {
        let mut confinement = HashSet::from([root.stones(defender).bits()]);
        confinement.extend(seed);
        confinement
    };
    let mut confinement = start(seed);
    let mut spent = 0;
    let mut earlier = Earlier::default();
    let mut gathered_once = false;
    loop {
        let Some(game) = Game::gather(
            root,
            rules,
            tables,
            defender,
            &confinement,
            &earlier,
            limits,
        ) else {
            spent += limits.positions as u64;
            if !gathered_once && !seed.is_empty() && !limits.reached() {
                tracing::debug!(
                    "fortress of {}: {} placements outgrow the limits; the seed is halved",
                    defender.name(),
                    confinement.len()
                );
                seed = &seed[..seed.len() / 2];
                confinement = start(seed);
                continue;
            }
            return Found::Open { positions: spent };
        };
        gathered_once = true;
        spent += game.positions.len() as u64;
        let parents = game.parents();
        let won = game.attackers_wins(&parents, false);
        if !won.is_won(0) {
            let strategy = game
                .strategy(&won)
                .filter(|s| confirms(root, &rules, tables, s));
            return match strategy {
                Some(strategy) => Found::Holds {
                    strategy,
                    positions: spent,
                },
                None => {
                    tracing::warn!("{root}: a fortress held, but its strategy did not");
                    Found::Open { positions: spent }
                }
            };
        }
        // The attacker may win already where the defender's every way out counts for
        // it: a win in the real game, kept once the checker's walk confirms it (a
        // capture into a position no table holds was counted for the attacker).
        let won_anyway = game.attackers_wins(&parents, true);
        drop(parents);
        if won_anyway.is_won(0)
            && let Some(strategy) = game.attackers_strategy(&won_anyway)
            && confirms(root, &rules, tables, &strategy)
        {
            return Found::Falls {
                strategy,
                positions: spent,
            };
        }
        let most = (confinement.len() / GROWTH_DIVISOR).max(GROWTH_AT_LEAST);
        let steps = game.steps_out_on_the_refutation(&won, &confinement, most);
        tracing::debug!(
            "fortress of {}: {} placements, {} positions, {} of them the attacker's \
             ({} whatever the defender's ways out); {} more placements",
            defender.name(),
            confinement.len(),
            game.positions.len(),
            won.count(),
            won_anyway.count(),
            steps.len()
        );
        if steps.is_empty() || limits.reached() {
            return Found::Open { positions: spent };
        }
        let held = game.held(&won);
        let won_anyway = game.won_anyway(&won_anyway);
        drop(game);
        earlier.held.extend(held);
        earlier.won.extend(won_anyway);
        confinement.extend(steps);
    }
}

/// What earlier rounds of a fortress settled, each position with its owner's turn where
/// the owner is to move: the positions the defender held (confined, it only had fewer
/// turns) and those the attacker won whatever the defender's ways out. Both hold in the
/// real game, so a later round, whose confinement holds the earlier ones, settles them at
/// once and gathers nothing beyond them (docs/experiments.md).
#[derive(Default)]
struct Earlier {
    held: HashMap<u64, Option<Turn>>,
    won: HashMap<u64, Option<Turn>>,
}

impl Earlier {
    fn holds(&self, position: &Position) -> bool {
        self.held.contains_key(&position.key())
    }

    fn wins(&self, position: &Position) -> bool {
        self.won.contains_key(&position.key())
    }
}

/// The game with the defender confined: every position reachable from the root, each
/// with its children (indices, or a settled value).
struct Game<'a> {
    rules: Rules,
    defender: Color,
    /// Each position's stones, Black to move marked by bit 63 of White's word.
    positions: Vec<[u64; 2]>,
    index: HashMap<u64, u32>,
    /// Where each position's children start in `children`; one more at the end.
    first_child: Vec<u32>,
    children: Vec<u32>,
    /// The defender's positions with a quiet turn out of the confinement, left out.
    leaks: Vec<bool>,
    tables: Option<&'a Tablebase>,
    /// What earlier rounds settled, settled at once.
    earlier: &'a Earlier,
}

/// The side to move is Black (bit 63 of the first word: no point uses it).
const BLACK_TO_MOVE: u64 = 1 << 63;

fn pack(position: &Position) -> [u64; 2] {
    let side = match position.side_to_move() {
        Color::White => 0,
        Color::Black => BLACK_TO_MOVE,
    };
    [
        position.stones(Color::White).bits() | side,
        position.stones(Color::Black).bits(),
    ]
}

/// The positions before each position of a game, in one array: those of position `p`
/// are `all[first[p]..first[p + 1]]`.
struct Parents {
    first: Vec<u32>,
    all: Vec<u32>,
}

impl Parents {
    fn of(&self, position: usize) -> &[u32] {
        &self.all[self.first[position] as usize..self.first[position + 1] as usize]
    }
}

/// The attacker's wins in a game: a mark and, for the refutation, the order of each.
struct Won {
    order: Vec<u32>,
}

impl Won {
    const NOT_WON: u32 = u32::MAX;

    fn is_won(&self, position: usize) -> bool {
        self.order[position] != Won::NOT_WON
    }

    fn count(&self) -> usize {
        self.order.iter().filter(|&&o| o != Won::NOT_WON).count()
    }
}

impl<'a> Game<'a> {
    /// Gathers the game breadth first; `None` past the limits.
    fn gather(
        root: &Position,
        rules: Rules,
        tables: Option<&'a Tablebase>,
        defender: Color,
        confinement: &HashSet<u64>,
        earlier: &'a Earlier,
        limits: Limits<'_>,
    ) -> Option<Game<'a>> {
        let stones = root.occupied().count();
        let mut game = Game {
            rules,
            defender,
            positions: vec![pack(root)],
            index: HashMap::from([(root.key(), 0)]),
            first_child: Vec::new(),
            children: Vec::new(),
            leaks: Vec::new(),
            tables,
            earlier,
        };
        let (mut turns, mut replies, mut to_gather) = (Vec::new(), Vec::new(), Vec::new());
        let mut at = 0;
        while at < game.positions.len() {
            let position = game.unpack(at);
            at += 1;
            game.first_child.push(game.children.len() as u32);
            game.leaks.push(false);
            if at % 4096 == 0 && limits.reached() {
                return None;
            }
            if position.us().is_empty() || !has_legal_turn(&position) {
                continue; // lost for the side to move: no children
            }
            let mover = position.side_to_move();
            turns.clear();
            rules.turn_rules().generate(&position, &mut turns);
            // The children to gather; a child settled at once for the mover decides the
            // position, and then the others are not needed.
            let mut decided = None;
            to_gather.clear();
            for &turn in &turns {
                let child = position.play(turn);
                let captured = child.occupied().count() < stones;
                if !captured
                    && mover == defender
                    && !confinement.contains(&child.stones(defender).bits())
                {
                    game.leaks[at - 1] = true;
                    continue;
                }
                let Some(holds) = game.settled_at_once(&child, captured, &mut replies) else {
                    to_gather.push(child);
                    continue;
                };
                let settled = if holds { DEFENDER_HOLDS } else { ATTACKER_WINS };
                if holds == (mover == defender) {
                    decided = Some(settled);
                    break;
                }
                game.children.push(settled);
            }
            if let Some(decided) = decided {
                let first = game.first_child[at - 1] as usize;
                game.children.truncate(first);
                game.children.push(decided);
                continue;
            }
            for child in &to_gather {
                let next = game.positions.len() as u32;
                let id = *game.index.entry(child.key()).or_insert(next);
                if id == next {
                    game.positions.push(pack(child));
                }
                game.children.push(id);
            }
            if game.positions.len() > limits.positions {
                return None;
            }
        }
        game.first_child.push(game.children.len() as u32);
        Some(game)
    }

    /// The position gathered at `at`, on the board of the rules.
    fn unpack(&self, at: usize) -> Position {
        let stones = self.positions[at];
        let side = if stones[0] & BLACK_TO_MOVE == 0 {
            Color::White
        } else {
            Color::Black
        };
        Position::new_on(
            self.rules.board,
            Bitboard::from_bits(stones[0] & !BLACK_TO_MOVE),
            Bitboard::from_bits(stones[1]),
            side,
            0,
            1,
        )
        .expect("a gathered position is valid")
    }

    /// The value of a finished game or a table's position, for its side to move.
    fn settled(&self, position: &Position) -> Option<Outcome> {
        settled(position, self.tables)
    }

    /// A position whose side to move must capture, settled at once from what its
    /// captures lead to, so that it takes no place in the game (a third or so of the
    /// positions): whether the defender holds, and the defender's capture that holds
    /// when it is the one to move. `None` when the side to move has a quiet turn.
    fn forced_capture(
        &self,
        position: &Position,
        turns: &mut Vec<Turn>,
    ) -> Option<(bool, Option<Turn>)> {
        if !has_capture(position) {
            return None;
        }
        turns.clear();
        self.rules.turn_rules().generate(position, turns);
        if turns.iter().any(|turn| !turn.is_capture()) {
            return None;
        }
        let holds = |turn: Turn| self.holds_after_capture(&position.play(turn));
        Some(if position.side_to_move() == self.defender {
            match turns.iter().copied().find(|&turn| holds(turn)) {
                Some(turn) => (true, Some(turn)),
                None => (false, None),
            }
        } else {
            (turns.iter().all(|&turn| holds(turn)), None)
        })
    }

    /// Whether the defender holds a child that needs no place in the game: one reached
    /// by a capture (`captured`), settled by the tables, one whose side to move must
    /// capture, or one an earlier round settled. `None` for a child to gather.
    fn settled_at_once(
        &self,
        child: &Position,
        captured: bool,
        turns: &mut Vec<Turn>,
    ) -> Option<bool> {
        if captured {
            Some(self.holds_after_capture(child))
        } else if self.earlier.holds(child) {
            Some(true)
        } else if self.earlier.wins(child) {
            Some(false)
        } else {
            self.forced_capture(child, turns).map(|(holds, _)| holds)
        }
    }

    /// Whether the defender does not lose after a capture: settled and not lost for it.
    /// What nothing settles counts as lost, which is safe.
    fn holds_after_capture(&self, position: &Position) -> bool {
        self.settled(position).is_some_and(|outcome| {
            Guarantee::NoLoss.kept_by(outcome, position.side_to_move(), self.defender)
        })
    }

    fn children_of(&self, position: usize) -> &[u32] {
        &self.children[self.first_child[position] as usize..self.first_child[position + 1] as usize]
    }

    fn attacker_to_move(&self, position: usize) -> bool {
        let black_to_move = self.positions[position][0] & BLACK_TO_MOVE != 0;
        black_to_move == (self.defender == Color::White)
    }

    /// The positions before each position of the game, for solving it backwards.
    fn parents(&self) -> Parents {
        let n = self.positions.len();
        let mut first_parent = vec![0u32; n + 1];
        for &child in &self.children {
            if child < DEFENDER_HOLDS {
                first_parent[child as usize + 1] += 1;
            }
        }
        for i in 0..n {
            first_parent[i + 1] += first_parent[i];
        }
        let mut parents = vec![0u32; first_parent[n] as usize];
        let mut fill = first_parent.clone();
        for position in 0..n {
            for &child in self.children_of(position) {
                if child < DEFENDER_HOLDS {
                    parents[fill[child as usize] as usize] = position as u32;
                    fill[child as usize] += 1;
                }
            }
        }
        Parents {
            first: first_parent,
            all: parents,
        }
    }

    /// The attacker's wins, backwards from the settled children, each position's
    /// defender counting its allowed children not yet won. With `escapes`, a defender's
    /// quiet turn out of the confinement counts as a child never won: what the attacker
    /// wins then, it wins in the real game.
    fn attackers_wins(&self, parents: &Parents, escapes: bool) -> Won {
        let n = self.positions.len();
        let mut won = Won {
            order: vec![Won::NOT_WON; n],
        };
        // The defender's allowed children not yet won (unused for the attacker's).
        let mut open: Vec<u32> = (0..n)
            .map(|position| {
                let children = self.children_of(position);
                let allowed = children.iter().filter(|&&c| c != ATTACKER_WINS).count() as u32;
                allowed + u32::from(escapes && self.leaks[position])
            })
            .collect();
        let mut queue: Vec<u32> = Vec::new();
        for (position, &allowed) in open.iter().enumerate() {
            let lost_here = if self.attacker_to_move(position) {
                self.children_of(position).contains(&ATTACKER_WINS)
            } else {
                allowed == 0
            };
            if lost_here {
                won.order[position] = queue.len() as u32;
                queue.push(position as u32);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let child = queue[head] as usize;
            head += 1;
            for &parent in parents.of(child) {
                let parent = parent as usize;
                if won.is_won(parent) {
                    continue;
                }
                let now_won = self.attacker_to_move(parent) || {
                    open[parent] -= 1;
                    open[parent] == 0
                };
                if now_won {
                    won.order[parent] = queue.len() as u32;
                    queue.push(parent as u32);
                }
            }
        }
        won
    }

    /// The defender's steps out of `confinement` at its positions on the attacker's
    /// refutation (from the root, the attacker's child won first, every child of the
    /// defender's): at most `most` of them, those that the most of these positions step
    /// to first.
    fn steps_out_on_the_refutation(
        &self,
        won: &Won,
        confinement: &HashSet<u64>,
        most: usize,
    ) -> Vec<u64> {
        let mut steps: HashMap<u64, u32> = HashMap::new();
        let mut seen = HashSet::from([0u32]);
        let mut stack = vec![0u32];
        let mut turns = Vec::new();
        while let Some(at) = stack.pop() {
            let children = self.children_of(at as usize);
            let next: Vec<u32> = if self.attacker_to_move(at as usize) {
                if children.contains(&ATTACKER_WINS) {
                    continue;
                }
                children
                    .iter()
                    .copied()
                    .filter(|&c| c < DEFENDER_HOLDS)
                    .min_by_key(|&c| won.order[c as usize])
                    .into_iter()
                    .collect()
            } else {
                let position = self.unpack(at as usize);
                turns.clear();
                self.rules.turn_rules().generate(&position, &mut turns);
                for &turn in &turns {
                    if !turn.is_capture() {
                        let placement = position.play(turn).stones(self.defender).bits();
                        if !confinement.contains(&placement) {
                            *steps.entry(placement).or_insert(0) += 1;
                        }
                    }
                }
                children
                    .iter()
                    .copied()
                    .filter(|&c| c < DEFENDER_HOLDS)
                    .collect()
            };
            for child in next {
                if seen.insert(child) {
                    stack.push(child);
                }
            }
        }
        let mut steps: Vec<(u64, u32)> = steps.into_iter().collect();
        // Ties by placement, so that a run is the same each time.
        steps.sort_unstable_by_key(|&(placement, count)| (std::cmp::Reverse(count), placement));
        steps
            .into_iter()
            .take(most)
            .map(|(placement, _)| placement)
            .collect()
    }

    /// The attacker's winning capture in a position where it must capture and one of its
    /// captures leads into a table's win for it.
    fn attackers_winning_capture(
        &self,
        position: &Position,
        turns: &mut Vec<Turn>,
    ) -> Option<Turn> {
        turns.clear();
        self.rules.turn_rules().generate(position, turns);
        let attacker = self.defender.opposite();
        turns.iter().copied().find(|&turn| {
            let child = position.play(turn);
            turn.is_capture()
                && self.settled(&child).is_some_and(|outcome| {
                    Guarantee::Win.kept_by(outcome, child.side_to_move(), attacker)
                })
        })
    }

    /// A strategy of `owner` walked from the root: `step` is told of each position it
    /// reaches (its index, the position and its turns), records the owner's turns and
    /// the positions to walk next in `walk`, and returns `None` to give up.
    fn walk(
        &self,
        owner: Color,
        guarantee: Guarantee,
        mut step: impl FnMut(usize, &Position, &[Turn], &mut Walk) -> Option<()>,
    ) -> Option<Strategy> {
        let mut walk = Walk {
            chosen: Vec::new(),
            next: Vec::new(),
            reached: HashSet::from([0u32]),
            replies: Vec::new(),
        };
        let mut stack = vec![0u32];
        let mut turns = Vec::new();
        while let Some(at) = stack.pop() {
            let position = self.unpack(at as usize);
            // The children are matched again by the position each turn leads to: those
            // the game settled at once are not in it, and the defender's turns leaving
            // the confinement were left out.
            turns.clear();
            self.rules.turn_rules().generate(&position, &mut turns);
            step(at as usize, &position, &turns, &mut walk)?;
            for id in std::mem::take(&mut walk.next) {
                if walk.reached.insert(id) {
                    stack.push(id);
                }
            }
        }
        walk.chosen.sort_unstable_by_key(|&(key, _)| key);
        walk.chosen.dedup_by_key(|&mut (key, _)| key);
        Some(Strategy {
            owner,
            guarantee,
            turns: walk.chosen,
        })
    }

    /// The attacker's strategy along the refutation of a game whose root it wins: in
    /// its positions the turn into a settled win, else into its child won first, every
    /// turn of the defender's followed; where the attacker must capture, a capture that
    /// the tables give it. Each line goes to positions won ever earlier, so none repeats.
    /// `None` if a forced capture has no win the tables confirm.
    fn attackers_strategy(&self, won: &Won) -> Option<Strategy> {
        let attacker = self.defender.opposite();
        let mut into_earlier = Vec::new();
        let strategy = self.walk(attacker, Guarantee::Win, |at, position, turns, walk| {
            let stones = position.occupied().count();
            if self.attacker_to_move(at) {
                let mut best: Option<(u32, Turn, u32)> = None;
                for &turn in turns {
                    let child = position.play(turn);
                    let captured = child.occupied().count() < stones;
                    if self.settled_at_once(&child, captured, &mut walk.replies) == Some(false) {
                        // Into the tables, or the defender must capture into them.
                        best = Some((0, turn, ATTACKER_WINS));
                        break;
                    }
                    if let Some(&id) = self.index.get(&child.key())
                        && won.is_won(id as usize)
                        && best.is_none_or(|(order, _, _)| won.order[id as usize] + 1 < order)
                    {
                        best = Some((won.order[id as usize] + 1, turn, id));
                    }
                }
                let (_, turn, id) = best?;
                walk.chosen.push((position.key(), turn));
                if id != ATTACKER_WINS {
                    walk.next.push(id);
                } else {
                    let child = position.play(turn);
                    if child.occupied().count() == stones && self.earlier.wins(&child) {
                        into_earlier.push(child);
                    }
                }
                return Some(());
            }
            for &turn in turns {
                let child = position.play(turn);
                if child.occupied().count() < stones {
                    continue; // into the tables
                }
                if has_capture(&child) {
                    // The attacker must capture.
                    let capture = self.attackers_winning_capture(&child, &mut walk.replies)?;
                    walk.chosen.push((child.key(), capture));
                    continue;
                }
                if self.earlier.wins(&child) {
                    into_earlier.push(child);
                    continue;
                }
                walk.next.push(*self.index.get(&child.key())?);
            }
            Some(())
        });
        let mut strategy = strategy?;
        self.earlier_turns(attacker, into_earlier, &mut strategy.turns)?;
        strategy.turns.sort_unstable_by_key(|&(key, _)| key);
        strategy.turns.dedup_by_key(|&mut (key, _)| key);
        Some(strategy)
    }

    /// The defender's strategy over the positions it reaches from the root, staying out
    /// of the attacker's wins: where it can, a turn into the tables or into a position
    /// the strategy reaches already, so that the strategy stays small; where it reaches
    /// a position an earlier round found held, that round's turns. `None` if an earlier
    /// round's turns leave a position they do not hold (which does not happen).
    fn strategy(&self, won: &Won) -> Option<Strategy> {
        let mut into_earlier = Vec::new();
        let strategy = self.walk(
            self.defender,
            Guarantee::NoLoss,
            |at, position, turns, walk| {
                let stones = position.occupied().count();
                if self.attacker_to_move(at) {
                    for &turn in turns {
                        let child = position.play(turn);
                        if child.occupied().count() < stones {
                            continue;
                        }
                        if let Some((_, capture)) = self.forced_capture(&child, &mut walk.replies) {
                            // The defender to move must capture: its capture that holds.
                            if let Some(capture) = capture {
                                walk.chosen.push((child.key(), capture));
                            }
                            continue;
                        }
                        if let Some(&id) = self.index.get(&child.key()) {
                            walk.next.push(id);
                        } else if self.earlier.holds(&child) {
                            into_earlier.push(child);
                        }
                    }
                    return Some(());
                }
                let mut best: Option<(u8, Turn, u32)> = None;
                for &turn in turns {
                    let child = position.play(turn);
                    let captured = child.occupied().count() < stones;
                    let (rank, id) = match self.settled_at_once(&child, captured, &mut walk.replies)
                    {
                        Some(true) => (0, DEFENDER_HOLDS),
                        Some(false) => continue,
                        None => {
                            let Some(&id) = self.index.get(&child.key()) else {
                                continue;
                            };
                            if won.is_won(id as usize) {
                                continue;
                            }
                            (if walk.reached.contains(&id) { 1 } else { 2 }, id)
                        }
                    };
                    if best.is_none_or(|(r, _, _)| rank < r) {
                        best = Some((rank, turn, id));
                    }
                }
                let (_, turn, id) =
                    best.expect("a position the defender holds has a turn that holds");
                walk.chosen.push((position.key(), turn));
                if id < DEFENDER_HOLDS {
                    walk.next.push(id);
                } else {
                    let child = position.play(turn);
                    if child.occupied().count() == stones && self.earlier.holds(&child) {
                        into_earlier.push(child);
                    }
                }
                Some(())
            },
        );
        let mut strategy = strategy.expect("the defender's walk never gives up");
        self.earlier_turns(self.defender, into_earlier, &mut strategy.turns)?;
        strategy.turns.sort_unstable_by_key(|&(key, _)| key);
        strategy.turns.dedup_by_key(|&mut (key, _)| key);
        Some(strategy)
    }

    /// The turns of `owner` (the defender's held positions, or the attacker's won ones)
    /// that earlier rounds chose, followed from `starts` into `chosen`: every line stays
    /// among the positions those rounds settled for `owner`, or ends in the tables (the
    /// checker's walk confirms what they give). `None` if a line leaves them.
    fn earlier_turns(
        &self,
        owner: Color,
        starts: Vec<Position>,
        chosen: &mut Vec<(u64, Turn)>,
    ) -> Option<()> {
        let settled = if owner == self.defender {
            &self.earlier.held
        } else {
            &self.earlier.won
        };
        let mut seen: HashSet<u64> = starts.iter().map(Position::key).collect();
        let mut stack = starts;
        let (mut turns, mut replies) = (Vec::new(), Vec::new());
        while let Some(position) = stack.pop() {
            let stones = position.occupied().count();
            turns.clear();
            if position.side_to_move() == owner {
                let turn = (*settled.get(&position.key())?)?;
                chosen.push((position.key(), turn));
                turns.push(turn);
            } else {
                self.rules.turn_rules().generate(&position, &mut turns);
            }
            for &turn in &turns {
                let child = position.play(turn);
                if child.occupied().count() < stones {
                    continue; // into the tables
                }
                if let Some((holds, capture)) = self.forced_capture(&child, &mut replies) {
                    // The side to move must capture: the defender's capture that holds,
                    // or the attacker's that wins.
                    if holds != (owner == self.defender) {
                        return None;
                    }
                    let capture = match capture {
                        Some(capture) => Some(capture),
                        None if owner != self.defender && child.side_to_move() == owner => {
                            Some(self.attackers_winning_capture(&child, &mut replies)?)
                        }
                        None => None,
                    };
                    if let Some(capture) = capture {
                        chosen.push((child.key(), capture));
                    }
                    continue;
                }
                if !settled.contains_key(&child.key()) {
                    return None;
                }
                if seen.insert(child.key()) {
                    stack.push(child);
                }
            }
        }
        Some(())
    }

    /// Every position of the game that the attacker wins whatever the defender's ways out
    /// (in `won_anyway`), with its turn where it is to move (as its strategy chooses), for
    /// the rounds after.
    fn won_anyway(&self, won_anyway: &Won) -> Vec<(u64, Option<Turn>)> {
        let (mut turns, mut replies) = (Vec::new(), Vec::new());
        let mut won = Vec::new();
        for at in 0..self.positions.len() {
            if !won_anyway.is_won(at) {
                continue;
            }
            let position = self.unpack(at);
            if !self.attacker_to_move(at) {
                won.push((position.key(), None));
                continue;
            }
            let stones = position.occupied().count();
            turns.clear();
            self.rules.turn_rules().generate(&position, &mut turns);
            let mut best: Option<(u32, Turn)> = None;
            for &turn in &turns {
                let child = position.play(turn);
                let captured = child.occupied().count() < stones;
                if self.settled_at_once(&child, captured, &mut replies) == Some(false) {
                    best = Some((0, turn));
                    break;
                }
                if let Some(&id) = self.index.get(&child.key())
                    && won_anyway.is_won(id as usize)
                    && best.is_none_or(|(order, _)| won_anyway.order[id as usize] + 1 < order)
                {
                    best = Some((won_anyway.order[id as usize] + 1, turn));
                }
            }
            if let Some((_, turn)) = best {
                won.push((position.key(), Some(turn)));
            }
        }
        won
    }

    /// Every position of the game the defender holds (not in `won`), with its turn where
    /// it is to move (one into a settled hold, else into a position held), for the rounds
    /// after.
    fn held(&self, won: &Won) -> Vec<(u64, Option<Turn>)> {
        let (mut turns, mut replies) = (Vec::new(), Vec::new());
        let mut held = Vec::new();
        for at in 0..self.positions.len() {
            if won.is_won(at) {
                continue;
            }
            let position = self.unpack(at);
            if self.attacker_to_move(at) {
                held.push((position.key(), None));
                continue;
            }
            let stones = position.occupied().count();
            turns.clear();
            self.rules.turn_rules().generate(&position, &mut turns);
            let mut into_game = None;
            let mut settled = None;
            for &turn in &turns {
                let child = position.play(turn);
                let captured = child.occupied().count() < stones;
                match self.settled_at_once(&child, captured, &mut replies) {
                    Some(true) => {
                        settled = Some(turn);
                        break;
                    }
                    Some(false) => {}
                    None => {
                        if into_game.is_none()
                            && let Some(&id) = self.index.get(&child.key())
                            && !won.is_won(id as usize)
                        {
                            into_game = Some(turn);
                        }
                    }
                }
            }
            if let Some(turn) = settled.or(into_game) {
                held.push((position.key(), Some(turn)));
            }
        }
        held
    }
}

/// What a strategy's walk has gathered so far (see [`Game::walk`]).
struct Walk {
    /// The owner's turns chosen, by position key.
    chosen: Vec<(u64, Turn)>,
    /// The positions of the game to walk next, from the one just seen.
    next: Vec<u32>,
    /// The positions of the game reached so far.
    reached: HashSet<u32>,
    /// Room for the turns of a child.
    replies: Vec<Turn>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::certificate::Certificate;
    use crate::solve::check::check;
    use crate::solve::sample::random_positions;
    use crate::solve::test_tables::TestTables;
    use crate::solve::verdict::Verdict;

    /// Over the 2-stone tables, a 3-stone position's fortress holds only where the
    /// 3-stone tables say its defender does not lose, falls (the attacker's win proved)
    /// only where they say it loses, and each strategy passes the checker; it holds in
    /// most of the first and falls in most of the others; each with and without a seed.
    /// On both boards: the game is gathered on the root's.
    #[test]
    fn a_fortress_holds_only_where_the_defender_does_not_lose_and_falls_where_it_loses() {
        for rules in [Rules::default(), crate::solve::store::tests::dimy()] {
            fortresses_hold_only_where_the_defender_does_not_lose(rules);
        }
    }

    fn fortresses_hold_only_where_the_defender_does_not_lose(rules: Rules) {
        let tables = TestTables::build("fortress", rules, 3);
        let (all, leaves) = (&tables.all, &tables.leaves);
        let stop = AtomicBool::new(false);
        let limits = Limits {
            positions: 100_000,
            stop: &stop,
            deadline: None,
        };
        let (mut held, mut holds_by_tables, mut fell, mut wins_by_tables) = (0, 0, 0, 0);
        let roots = random_positions(&rules, &[(2, 1), (1, 2)], 200, 3);
        // A seed is any set of placements (it only decides where the search begins):
        // here those of the other roots, as many as the defender's stones allow.
        let placements_of = |defender: Color, stones: usize| -> Vec<u64> {
            let placements = roots.iter().map(|root| root.stones(defender));
            placements
                .filter(|placement| placement.count() as usize == stones)
                .map(|placement| placement.bits())
                .collect()
        };
        for (root, seeded) in roots.iter().flat_map(|root| [(root, false), (root, true)]) {
            for defender in [Color::White, Color::Black] {
                let truth = all.probe_outcome(root).unwrap();
                let holds = Guarantee::NoLoss.kept_by(truth, root.side_to_move(), defender);
                holds_by_tables += usize::from(holds);
                wins_by_tables += usize::from(!holds);
                let seed = match seeded {
                    true => placements_of(defender, root.stones(defender).count() as usize),
                    false => Vec::new(),
                };
                let strategy = match defence(root, rules, Some(leaves), defender, &seed, limits) {
                    Found::Holds { strategy, .. } => {
                        assert!(holds, "{root}: {}'s fortress holds a loss", defender.name());
                        held += 1;
                        strategy
                    }
                    Found::Falls { strategy, .. } => {
                        assert!(
                            !holds,
                            "{root}: {}'s fortress falls in a draw",
                            defender.name()
                        );
                        assert_eq!(strategy.owner, defender.opposite());
                        fell += 1;
                        strategy
                    }
                    Found::Open { .. } => continue,
                };
                let verdict = match strategy.guarantee {
                    Guarantee::NoLoss => Verdict::Unknown,
                    Guarantee::Win if strategy.owner == root.side_to_move() => Verdict::Win,
                    Guarantee::Win => Verdict::Loss,
                };
                let certificate = Certificate {
                    root: *root,
                    rules,
                    verdict,
                    table_stones: 2,
                    strategies: vec![strategy],
                };
                if let Err(e) = check(&certificate, Some(leaves)) {
                    panic!(
                        "{root}: {}'s fortress fails the check: {e:#}",
                        defender.name()
                    );
                }
            }
        }
        eprintln!(
            "{}: {held} fortresses held of {holds_by_tables} defences the tables allow, \
             {fell} fell of {wins_by_tables} the attacker wins",
            rules.board.name()
        );
        assert!(held * 2 > holds_by_tables, "{held} of {holds_by_tables}");
        assert!(fell * 2 > wins_by_tables, "{fell} of {wins_by_tables}");
    }

    /// A seed whose first game outgrows the limits is halved until one fits: with limits
    /// one position short of the whole seed's first game, the fortress finds what it
    /// finds from the seed's first half, having spent the limit on the try.
    #[test]
    fn a_seed_too_large_for_the_limits_is_halved() {
        let rules = Rules::default();
        let tables = TestTables::build("fortress-seed", rules, 3);
        let leaves = Some(&tables.leaves);
        let stop = AtomicBool::new(false);
        let limits = |positions| Limits {
            positions,
            stop: &stop,
            deadline: None,
        };
        let roots = random_positions(&rules, &[(1, 2), (2, 1)], 100, 5);
        let nothing = Earlier::default();
        let (mut tried, mut held) = (0, 0);
        for (root, defender) in roots
            .iter()
            .flat_map(|root| [(root, Color::White), (root, Color::Black)])
        {
            let stones = root.stones(defender).count();
            let seed: Vec<u64> = roots
                .iter()
                .map(|other| other.stones(defender))
                .filter(|placement| placement.count() == stones)
                .map(|placement| placement.bits())
                .take(20)
                .collect();
            let half = &seed[..seed.len() / 2];
            let first_game = |seed: &[u64], most| {
                let confinement = seed.iter().copied().chain([root.stones(defender).bits()]);
                let confinement = confinement.collect();
                Game::gather(root, rules, leaves, defender, &confinement, &nothing, most)
                    .map(|game| game.positions.len())
            };
            let whole = first_game(&seed, limits(1_000_000)).expect("a small game");
            let short = whole - 1;
            if first_game(half, limits(short)).is_none() {
                continue;
            }
            let spent = short as u64;
            let expected = match defence(root, rules, leaves, defender, half, limits(short)) {
                Found::Holds {
                    strategy,
                    positions,
                } => {
                    held += 1;
                    Found::Holds {
                        strategy,
                        positions: positions + spent,
                    }
                }
                Found::Falls {
                    strategy,
                    positions,
                } => Found::Falls {
                    strategy,
                    positions: positions + spent,
                },
                Found::Open { positions } => Found::Open {
                    positions: positions + spent,
                },
            };
            let found = defence(root, rules, leaves, defender, &seed, limits(short));
            assert_eq!(found, expected, "{root}, {} defending", defender.name());
            tried += 1;
        }
        assert!(tried >= 50 && held >= 20, "{tried} tried, {held} held");
    }

    /// A round that settles at once what earlier rounds held or won anyway gives every
    /// position it gathers the value the same round gives it without them, and gathers
    /// fewer: over the 3-stone tables, 4-stone positions, four rounds each, both
    /// defenders.
    #[test]
    fn what_earlier_rounds_settled_changes_no_value_and_gathers_less() {
        let rules = Rules::default();
        let tables = TestTables::build("fortress-rounds", rules, 4);
        let stop = AtomicBool::new(false);
        let limits = Limits {
            positions: 1_000_000,
            stop: &stop,
            deadline: None,
        };
        let nothing = Earlier::default();
        let (mut with_earlier, mut without, mut compared) = (0, 0, 0);
        for root in random_positions(&rules, &[(3, 1), (2, 2), (1, 3)], 30, 11) {
            for defender in [Color::White, Color::Black] {
                let mut confinement = HashSet::from([root.stones(defender).bits()]);
                let mut earlier = Earlier::default();
                for _ in 0..4 {
                    let gather = |earlier| {
                        let game = Game::gather(
                            &root,
                            rules,
                            Some(&tables.leaves),
                            defender,
                            &confinement,
                            earlier,
                            limits,
                        )
                        .expect("within the limits");
                        let parents = game.parents();
                        let won = game.attackers_wins(&parents, false);
                        let anyway = game.attackers_wins(&parents, true);
                        (game, won, anyway)
                    };
                    let (plain, plain_won, _) = gather(&nothing);
                    let (game, won, anyway) = gather(&earlier);
                    without += plain.positions.len();
                    with_earlier += game.positions.len();
                    for (key, &id) in &game.index {
                        let plain_id = plain.index[key] as usize;
                        assert_eq!(won.is_won(id as usize), plain_won.is_won(plain_id));
                        compared += 1;
                    }
                    if !plain_won.is_won(0) {
                        break;
                    }
                    let steps = plain.steps_out_on_the_refutation(&plain_won, &confinement, 8);
                    if steps.is_empty() {
                        break;
                    }
                    let (held, won_anyway) = (game.held(&won), game.won_anyway(&anyway));
                    drop(game);
                    earlier.held.extend(held);
                    earlier.won.extend(won_anyway);
                    confinement.extend(steps);
                }
            }
        }
        eprintln!("{with_earlier} positions gathered instead of {without}; {compared} compared");
        assert!(compared > 10_000, "{compared} positions compared");
        assert!(
            with_earlier * 10 < without * 9,
            "{with_earlier} of {without}"
        );
    }
}
