//! The learned evaluation: a small NNUE-style network ("efficiently updatable neural
//! network") over the stones, quantised to 16-bit integers.
//!
//! 90 inputs per perspective ([`features`]) feed [`HIDDEN`] accumulator values per side
//! ([`accumulator`]), clipped to [0, 1] and read by one linear output per bucket of stone
//! counts ([`network`]), and optionally by a second layer of [`LAYER2`] clipped values that
//! the output reads as well. The side to move's half comes first, so the output is its
//! score.
//! The default network is built into the binary; `vato train` makes others.

pub mod accumulator;
pub mod features;
pub mod network;
pub mod simd;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use network::{Network, TrainingSummary};

use crate::rules::position::{Color, Position};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Accumulator values per perspective.
pub const HIDDEN: usize = 128;
/// Values of the optional second layer, between the accumulator and the output.
pub const LAYER2: usize = 16;
/// Output buckets, by the number of stones on the board.
pub const BUCKETS: usize = 8;
/// The accumulator's fixed-point unit: 1.0 is QA, and the activation clips to [0, QA].
pub const QA: i64 = 255;
/// The output weights' fixed-point unit: fine, since an output weight's rounding error is
/// multiplied by up to 255 and by the evaluation scale.
pub const QB: i64 = 1024;
/// Hundredths of a stone per unit of the network's output.
pub const EVAL_SCALE: i64 = 400;

/// The network that the command-line switches ask for: none with `--hand-written`, the
/// file given by `--eval-file`, else the built-in one.
pub fn chosen(
    hand_written: bool,
    eval_file: Option<&Path>,
) -> anyhow::Result<Option<Arc<Network>>> {
    Ok(match eval_file {
        _ if hand_written => None,
        Some(path) => Some(Arc::new(Network::load(path)?)),
        None => Some(embedded()),
    })
}

/// The network built into the binary (`nets/default.nnue`), read once.
pub fn embedded() -> Arc<Network> {
    static EMBEDDED: OnceLock<Arc<Network>> = OnceLock::new();
    EMBEDDED
        .get_or_init(|| {
            let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.nnue"));
            Arc::new(Network::from_bytes(bytes).expect("the built-in network is valid"))
        })
        .clone()
}

impl Network {
    /// The network's score of `position` for its side to move, computed from scratch.
    pub fn evaluate(&self, position: &Position) -> i32 {
        let accumulator = Accumulator::new(
            self,
            position.stones(Color::White),
            position.stones(Color::Black),
        );
        accumulator.output(self, position.side_to_move())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Rng;
    use crate::rules::movegen::legal_turns;

    /// A network of random weights of a realistic size, with or without a second layer.
    pub(crate) fn random_network(seed: u64, second_layer: bool) -> Network {
        let mut rng = Rng::new(seed);
        let mut small = |range: u64| (rng.below(2 * range + 1) as i64 - range as i64) as i16;
        let mut fw = Box::new([[0i16; HIDDEN]; features::INPUTS]);
        for column in fw.iter_mut() {
            column.iter_mut().for_each(|v| *v = small(300));
        }
        let fb = std::array::from_fn(|_| small(200));
        let mut ow = Box::new([[0i16; 2 * HIDDEN]; BUCKETS]);
        for row in ow.iter_mut() {
            row.iter_mut().for_each(|v| *v = small(120));
        }
        let ob = std::array::from_fn(|i| i as i32 * 1000 - 3000);
        let second = second_layer.then(|| {
            let mut layer = Box::new(network::SecondLayer {
                weights: [[0; 2 * HIDDEN]; LAYER2],
                bias: std::array::from_fn(|_| i32::from(small(200)) * 300),
                output_weights: [[0; LAYER2]; BUCKETS],
            });
            for row in layer.weights.iter_mut() {
                row.iter_mut().for_each(|v| *v = small(60));
            }
            for row in layer.output_weights.iter_mut() {
                row.iter_mut().for_each(|v| *v = small(500));
            }
            layer
        });
        Network::from_parts(fw, fb, ow, ob, TrainingSummary::default()).with_second_layer(second)
    }

    #[test]
    fn incremental_equals_fresh_on_random_playouts() {
        for (game, second_layer) in (0..40).zip([false, true].into_iter().cycle()) {
            let network = random_network(1, second_layer);
            let scalar = random_network(1, second_layer).with_scalar_kernel();
            let mut rng = Rng::new(4 + game);
            let mut stack = AccumulatorStack::new(&network, 130);
            let mut position = Position::start();
            let mut ply = 0;
            for _ in 0..200 {
                let fresh = network.evaluate(&position);
                assert_eq!(
                    stack.evaluate(&network, &position, ply),
                    fresh,
                    "game {game}"
                );
                assert_eq!(scalar.evaluate(&position), fresh);
                assert_eq!(network.evaluate(&position.flip()), fresh, "colour flip");
                let turns = legal_turns(&position, Default::default());
                if turns.is_empty() {
                    break;
                }
                position = position.play(turns[rng.below(turns.len() as u64) as usize]);
                // Wander up and down the stack as a search does.
                ply = match rng.below(3) {
                    0 => ply.saturating_sub(1),
                    _ => (ply + 1).min(129),
                };
            }
        }
    }

    #[test]
    fn network_files_round_trip_and_damage_is_refused() {
        let with_second_layer = random_network(3, true);
        let bytes = with_second_layer.to_bytes();
        let again = Network::from_bytes(&bytes).unwrap();
        assert!(again.has_second_layer());
        assert_eq!(again.to_bytes(), bytes);
        let start = Position::start();
        assert_eq!(again.evaluate(&start), with_second_layer.evaluate(&start));
        let network = random_network(2, false);
        let bytes = network.to_bytes();
        let again = Network::from_bytes(&bytes).unwrap();
        assert_eq!(again.to_bytes(), bytes);
        // The second layer's size is the seventh field of the header.
        let mut other_second = bytes.clone();
        other_second[36] = 8;
        assert!(message(&other_second).contains("second layer of 8"));
        let mut later_version = bytes.clone();
        later_version[8] = 4;
        assert!(message(&later_version).contains("format version 4"));
        // A version 2 file, summed with FNV-1a, still loads.
        let mut older = bytes[..bytes.len() - 8].to_vec();
        older[8] = 2;
        let sum = crate::safe_file::legacy_fnv1a(&[&older]);
        older.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(Network::from_bytes(&older).unwrap().to_bytes(), bytes);
        let mut older_damaged = older.clone();
        older_damaged[500] ^= 1;
        assert!(message(&older_damaged).contains("checksum mismatch"));
        let mut damaged = bytes.clone();
        damaged[500] ^= 1;
        assert!(message(&damaged).contains("checksum mismatch"));
        assert!(message(&bytes[..bytes.len() / 2]).contains("checksum"));
        assert!(message(b"VATODATA and more").contains("not a Vato network file"));
        let mut other_shape = bytes.clone();
        other_shape[16] = 64;
        assert!(message(&other_shape).contains("architecture"));
        assert!(!message(&damaged).contains('\n'));
    }

    fn message(bytes: &[u8]) -> String {
        format!("{:#}", Network::from_bytes(bytes).unwrap_err())
    }

    #[test]
    fn the_embedded_network_loads() {
        // It is a version 1 file, written before the second layer existed.
        let network = embedded();
        let start = Position::start();
        assert_eq!(network.evaluate(&start), network.evaluate(&start.flip()));
    }
}
