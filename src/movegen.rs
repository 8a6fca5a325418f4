//! Legal turn generation.
//!
//! Whether a side can capture is decided set-wise, eight directions at a time, with shifts
//! of the whole board. Capture chains are then walked stone by stone, depth first, on plain
//! `u64` sets with precomputed neighbour and ray tables, so the hot path neither allocates
//! (beyond the caller's reusable list) nor builds routes. Routes, which the notation needs,
//! come from the same walk with a recording sink.

use crate::bitboard::Bitboard;
use crate::geometry::{Direction, NEIGHBORS, NONE, RAYS, Square};
use crate::position::Position;
use crate::rules::ChainRule;
use crate::turn::{CaptureKind, Route, Step, Turn};

/// The stones of `us` that have a capturing first step, given the enemy stones `them`.
#[inline]
pub fn capturing_stones(us: Bitboard, them: Bitboard) -> Bitboard {
    let empty = !(us | them);
    let mut stones = Bitboard::EMPTY;
    for d in Direction::ALL {
        let back = d.opposite();
        // Approach: the point ahead is empty and the one after it is an enemy.
        stones |= (empty & them.shift(back)).shift(back);
        // Withdrawal: the point ahead is empty and the point behind is an enemy.
        stones |= them.shift(d) & empty.shift(back);
    }
    stones & us
}

/// True when the side to move has a capture, so that it may not play a paika.
#[inline]
pub fn has_capture(position: &Position) -> bool {
    capturing_stones(position.us(), position.them()).any()
}

/// True when the side to move has any legal turn. Every turn starts with a step to an
/// empty neighbouring point, and any such step is a capture or, when no capture exists
/// anywhere, a legal paika; so this only looks for a stone with an empty neighbour.
#[inline]
pub fn has_legal_turn(position: &Position) -> bool {
    let (us, empty) = (position.us(), position.empty());
    Direction::ALL.iter().any(|&d| (us.shift(d) & empty).any())
}

/// Fills `out` (cleared first) with every legal turn, one entry per distinct result.
pub fn generate_turns(position: &Position, chain_rule: ChainRule, out: &mut Vec<Turn>) {
    out.clear();
    let (us, them) = (position.us(), position.them());
    let capturers = capturing_stones(us, them);
    if capturers.any() {
        for from in capturers {
            let first = out.len();
            let mut sink = TurnCollector {
                out,
                first,
                from,
                them: them.bits(),
            };
            walk_chains(from, us, them, chain_rule, &mut sink);
        }
    } else {
        let empty = position.empty();
        for d in Direction::ALL {
            for to in us.shift(d) & empty {
                let from = NEIGHBORS[to.index()][d.opposite().index()];
                out.push(Turn::new(
                    Square::from_index_unchecked(from),
                    to,
                    Bitboard::EMPTY,
                ));
            }
        }
    }
}

/// The number of legal turns, counted without building paika turns.
pub fn count_turns(position: &Position, chain_rule: ChainRule, scratch: &mut Vec<Turn>) -> usize {
    let (us, them) = (position.us(), position.them());
    if capturing_stones(us, them).any() {
        generate_turns(position, chain_rule, scratch);
        scratch.len()
    } else {
        let empty = position.empty();
        Direction::ALL
            .iter()
            .map(|&d| (us.shift(d) & empty).count() as usize)
            .sum()
    }
}

/// Every legal turn, in generation order. Allocates; the search uses [`generate_turns`].
pub fn legal_turns(position: &Position, chain_rule: ChainRule) -> Vec<Turn> {
    let mut turns = Vec::new();
    generate_turns(position, chain_rule, &mut turns);
    turns
}

/// Every legal route: every way of spelling every legal turn, routes of the same turn
/// included separately. For the notation, not for the search.
pub fn legal_routes(position: &Position, chain_rule: ChainRule) -> Vec<Route> {
    routes_of(position, chain_rule, Bitboard::ALL)
}

/// The legal routes of the stone on `from` (none if it has no legal turn).
pub fn stone_routes(position: &Position, chain_rule: ChainRule, from: Square) -> Vec<Route> {
    routes_of(position, chain_rule, from.into())
}

fn routes_of(position: &Position, chain_rule: ChainRule, stones: Bitboard) -> Vec<Route> {
    let (us, them) = (position.us(), position.them());
    let capturers = capturing_stones(us, them);
    if capturers.is_empty() {
        let mut turns = Vec::new();
        generate_turns(position, chain_rule, &mut turns);
        return turns
            .into_iter()
            .filter(|turn| stones.contains(turn.from()))
            .map(|turn| Route {
                turn,
                steps: vec![Step {
                    to: turn.to(),
                    kind: None,
                }],
            })
            .collect();
    }
    let mut routes = Vec::new();
    for from in capturers & stones {
        let mut sink = RouteRecorder {
            from,
            them,
            steps: Vec::new(),
            routes: &mut routes,
        };
        walk_chains(from, us, them, chain_rule, &mut sink);
    }
    routes
}

/// What the chain walk reports: each capturing step as it is taken and undone, and each
/// point where the turn may end.
trait ChainSink {
    fn enter(&mut self, to: u8, kind: CaptureKind);
    fn leave(&mut self);
    /// The turn may end on `to` with the enemy stones reduced to `them_left`.
    fn finish(&mut self, to: u8, them_left: u64);
}

/// Collects one stone's turns, merging routes that end alike.
struct TurnCollector<'a> {
    out: &'a mut Vec<Turn>,
    /// Index of this stone's first turn in `out`: routes merge only within one stone.
    first: usize,
    from: Square,
    them: u64,
}

impl ChainSink for TurnCollector<'_> {
    #[inline(always)]
    fn enter(&mut self, _to: u8, _kind: CaptureKind) {}

    #[inline(always)]
    fn leave(&mut self) {}

    #[inline(always)]
    fn finish(&mut self, to: u8, them_left: u64) {
        let to = Square::from_index_unchecked(to);
        let captured = Bitboard::from_bits(self.them & !them_left);
        let seen = self.out[self.first..]
            .iter()
            .any(|t| t.to() == to && t.captured() == captured);
        if !seen {
            self.out.push(Turn::new(self.from, to, captured));
        }
    }
}

/// Records every route with its steps.
struct RouteRecorder<'a> {
    from: Square,
    them: Bitboard,
    steps: Vec<Step>,
    routes: &'a mut Vec<Route>,
}

impl ChainSink for RouteRecorder<'_> {
    fn enter(&mut self, to: u8, kind: CaptureKind) {
        self.steps.push(Step {
            to: Square::from_index_unchecked(to),
            kind: Some(kind),
        });
    }

    fn leave(&mut self) {
        self.steps.pop();
    }

    fn finish(&mut self, to: u8, them_left: u64) {
        let captured = self.them & !Bitboard::from_bits(them_left);
        self.routes.push(Route {
            turn: Turn::new(self.from, Square::from_index_unchecked(to), captured),
            steps: self.steps.clone(),
        });
    }
}

fn walk_chains(
    from: Square,
    us: Bitboard,
    them: Bitboard,
    chain_rule: ChainRule,
    sink: &mut impl ChainSink,
) {
    let walk = ChainWalk {
        others: (us & !Bitboard::from_square(from)).bits(),
        chain_rule,
    };
    let at = from.index() as u8;
    walk.extend(at, them.bits(), 1 << at, NO_DIRECTION, sink);
}

const NO_DIRECTION: usize = 8;

/// The fixed facts of one stone's chain walk.
struct ChainWalk {
    /// The side's other stones, which never move during the turn.
    others: u64,
    chain_rule: ChainRule,
}

impl ChainWalk {
    /// Takes every capturing step from `at` and reports it; returns whether there was one.
    #[inline]
    fn extend(
        &self,
        at: u8,
        them: u64,
        visited: u64,
        last_direction: usize,
        sink: &mut impl ChainSink,
    ) -> bool {
        let empty = Bitboard::ALL.bits() & !(self.others | them | 1 << at);
        let neighbors = &NEIGHBORS[at as usize];
        let mut captured_any = false;
        for d in 0..8 {
            let to = neighbors[d];
            if d == last_direction || to == NONE {
                continue;
            }
            let to_bit = 1u64 << to;
            if empty & to_bit == 0 || visited & to_bit != 0 {
                continue;
            }
            let ahead = NEIGHBORS[to as usize][d];
            if ahead != NONE && them & (1 << ahead) != 0 {
                captured_any = true;
                let run = capture_run(ahead, d, them);
                self.step(to, CaptureKind::Approach, them & !run, visited | to_bit, d, sink);
            }
            let behind = neighbors[(d + 4) % 8];
            if behind != NONE && them & (1 << behind) != 0 {
                captured_any = true;
                let run = capture_run(behind, (d + 4) % 8, them);
                self.step(to, CaptureKind::Withdrawal, them & !run, visited | to_bit, d, sink);
            }
        }
        captured_any
    }

    #[inline]
    fn step(
        &self,
        to: u8,
        kind: CaptureKind,
        them_left: u64,
        visited: u64,
        direction: usize,
        sink: &mut impl ChainSink,
    ) {
        sink.enter(to, kind);
        let continued = self.extend(to, them_left, visited, direction, sink);
        if self.chain_rule == ChainRule::Optional || !continued {
            sink.finish(to, them_left);
        }
        sink.leave();
    }
}

/// The enemy stones removed by a capture whose first victim is `first`, going in direction
/// `d`: `first` and every enemy stone after it up to the first gap, friend or edge.
#[inline]
fn capture_run(first: u8, d: usize, them: u64) -> u64 {
    let line = 1u64 << first | RAYS[first as usize][d];
    let stops = line & !them;
    if stops == 0 {
        line
    } else if Direction::from_index(d).is_increasing() {
        line & ((stops & stops.wrapping_neg()) - 1)
    } else {
        let last_stop = 63 - stops.leading_zeros();
        line & (u64::MAX << (last_stop + 1))
    }
}
