//! The accumulator: the hidden layer before its activation, one per perspective, kept up
//! to date as stones move and are captured.
//!
//! An accumulator remembers the stones it was computed for, so any accumulator can be
//! brought to any position by adding the columns of the stones that appeared and taking
//! off those that left: a paika changes two inputs per perspective, a chain capture a few
//! more. When the change is bigger than the position (more changed stones than stones),
//! computing afresh is cheaper, and done instead.

use super::HIDDEN;
use super::features::feature;
use super::network::{Network, bucket};
use crate::rules::bitboard::Bitboard;
use crate::rules::position::{Color, Position};

/// The accumulators of both perspectives for one set of stones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    white: Bitboard,
    black: Bitboard,
    /// Indexed by the perspective's colour.
    values: [[i16; HIDDEN]; 2],
}

/// The most inputs one update changes per perspective: every point at once.
const MAX_CHANGES: usize = 2 * crate::rules::geometry::NUM_SQUARES;

impl Accumulator {
    /// The accumulator of the empty board: the biases.
    pub fn empty(network: &Network) -> Accumulator {
        Accumulator {
            white: Bitboard::EMPTY,
            black: Bitboard::EMPTY,
            values: [network.feature_bias; 2],
        }
    }

    /// Computed from scratch for the given stones.
    pub fn new(network: &Network, white: Bitboard, black: Bitboard) -> Accumulator {
        let mut accumulator = Accumulator::empty(network);
        accumulator.update(network, white, black);
        accumulator
    }

    /// Inputs that differ between these stones and the accumulator's.
    #[inline]
    pub fn distance(&self, white: Bitboard, black: Bitboard) -> u32 {
        (self.white ^ white).count() + (self.black ^ black).count()
    }

    /// Brings the accumulator to the given stones by adding and removing the columns of
    /// the stones that changed.
    #[inline]
    pub fn update(&mut self, network: &Network, white: Bitboard, black: Bitboard) {
        // The inputs of both perspectives, gathered in one pass over the changed stones.
        let mut add = [[0u8; MAX_CHANGES]; 2];
        let mut sub = [[0u8; MAX_CHANGES]; 2];
        let (mut adds, mut subs) = (0, 0);
        for (stone, squares, added) in [
            (Color::White, white & !self.white, true),
            (Color::Black, black & !self.black, true),
            (Color::White, self.white & !white, false),
            (Color::Black, self.black & !black, false),
        ] {
            for square in squares {
                let (list, n) = if added {
                    (&mut add, &mut adds)
                } else {
                    (&mut sub, &mut subs)
                };
                list[0][*n] = feature(Color::White, stone, square.index()) as u8;
                list[1][*n] = feature(Color::Black, stone, square.index()) as u8;
                *n += 1;
            }
        }
        for perspective in [Color::White, Color::Black] {
            let side = perspective.index();
            network.kernel.update(
                &mut self.values[side],
                &network.feature_weights,
                &add[side][..adds],
                &sub[side][..subs],
            );
        }
        self.white = white;
        self.black = black;
    }

    /// The network's output for these stones with `side_to_move` to play, in hundredths
    /// of a stone for the side to move.
    #[inline]
    pub fn output(&self, network: &Network, side_to_move: Color) -> i32 {
        let stones = self.white.count() + self.black.count();
        let b = bucket(stones);
        let weights = &network.output_weights[b];
        let ceiling = super::QA as i16;
        let ours = network.kernel.clipped_dot(
            &self.values[side_to_move.index()],
            &weights[..HIDDEN],
            ceiling,
        );
        let theirs = network.kernel.clipped_dot(
            &self.values[side_to_move.opposite().index()],
            &weights[HIDDEN..],
            ceiling,
        );
        let mut sum = i64::from(ours) + i64::from(theirs) + i64::from(network.output_bias[b]);
        if let Some(layer) = &network.second {
            // Each value kept at the full precision of its sum (units of 1/(QA QB)), and the
            // sum of their products with the output's weights divided by QB once.
            let full = super::QA * super::QB;
            let mut products = 0i64;
            let sums = network.kernel.layer2_sums(
                &self.values[side_to_move.index()],
                &self.values[side_to_move.opposite().index()],
                &layer.weights,
                ceiling,
            );
            for ((z, bias), weight) in sums.iter().zip(layer.bias).zip(layer.output_weights[b]) {
                let value = (i64::from(*z) + i64::from(bias)).clamp(0, full);
                products += value * i64::from(weight);
            }
            sum += products.div_euclid(super::QB);
        }
        (sum * super::EVAL_SCALE / (super::QA * super::QB)) as i32
    }
}

/// One accumulator per ply of a search, each kept from the last position evaluated at
/// that ply: a position is evaluated from whichever of its own ply's and the two plies'
/// above is nearest (its parent's and grandparent's, or a sibling's), or afresh.
pub struct AccumulatorStack {
    entries: Vec<Accumulator>,
}

impl AccumulatorStack {
    /// A stack of `plies` empty-board accumulators.
    pub fn new(network: &Network, plies: usize) -> AccumulatorStack {
        AccumulatorStack {
            entries: vec![Accumulator::empty(network); plies.max(1)],
        }
    }

    /// The network's score of `position`, found at `ply`, for its side to move.
    #[inline]
    pub fn evaluate(&mut self, network: &Network, position: &Position, ply: usize) -> i32 {
        let ply = ply.min(self.entries.len() - 1);
        let (white, black) = (position.stones(Color::White), position.stones(Color::Black));
        let mut best = ply;
        let mut cost = self.entries[ply].distance(white, black);
        for above in ply.saturating_sub(2)..ply {
            let d = self.entries[above].distance(white, black);
            if d < cost {
                (best, cost) = (above, d);
            }
        }
        let stones = white.count() + black.count();
        if cost > stones {
            self.entries[ply] = Accumulator::new(network, white, black);
        } else {
            if best != ply {
                let (lower, upper) = self.entries.split_at_mut(ply);
                upper[0].clone_from(&lower[best]);
            }
            self.entries[ply].update(network, white, black);
        }
        self.entries[ply].output(network, position.side_to_move())
    }
}
