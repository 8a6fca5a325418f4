//! A set of solved layers read into memory, probed by the search and the protocol.

use super::file::read_layer;
use super::index::{index_of, layers_with};
use super::value::{Outcome, Value};
use crate::rules::Rules;
use crate::rules::notation::spelled_turns;
use crate::rules::position::Position;
use anyhow::{Result, bail};
use std::path::Path;

/// The most stones a layer of the tables can have.
pub const MAX_STONES: usize = 8;

/// A set of solved layers read into memory, probed through shared references so that
/// every search thread can use one copy.
pub struct Tablebase {
    /// Layer `(a, b)` at `a * (MAX_STONES + 1) + b`, when it was found.
    layers: Vec<Option<Vec<u16>>>,
    rules: Rules,
}

/// Layers as words, `4v3, 3v4`, for messages.
pub fn layer_names(layers: &[(usize, usize)]) -> String {
    let names: Vec<String> = layers.iter().map(|(a, b)| format!("{a}v{b}")).collect();
    names.join(", ")
}

/// The layers that a set holding `held` lacks, up to its largest stone count.
pub fn missing_layers(held: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let largest = held.iter().map(|&(a, b)| a + b).max().unwrap_or(0);
    (2..=largest)
        .flat_map(layers_with)
        .filter(|layer| !held.contains(layer))
        .collect()
}

pub(super) fn slot_of(a: usize, b: usize) -> usize {
    a * (MAX_STONES + 1) + b
}

impl Tablebase {
    /// Reads every layer of up to `max_stones` stones found in `dir`, for the given rules.
    /// Missing layers are left out (their positions are not in the tables); a layer that
    /// is damaged or was built for other rules is an error.
    pub fn open(dir: &Path, rules: Rules, max_stones: usize) -> Result<Tablebase> {
        if !dir.is_dir() {
            bail!("{}: not a directory", dir.display());
        }
        let mut layers = vec![None; slot_of(MAX_STONES, MAX_STONES) + 1];
        for n in 2..=max_stones.min(MAX_STONES) {
            for (a, b) in layers_with(n) {
                layers[slot_of(a, b)] = read_layer(dir, &rules, a, b)?;
            }
        }
        Ok(Tablebase { layers, rules })
    }

    /// The board whose positions the tables hold.
    pub fn board(&self) -> crate::rules::board::Board {
        self.rules.board
    }

    /// The layers held, smallest first.
    pub fn layers(&self) -> Vec<(usize, usize)> {
        (2..=MAX_STONES)
            .flat_map(layers_with)
            .filter(|&(a, b)| self.layers[slot_of(a, b)].is_some())
            .collect()
    }

    /// The layers missing from a complete set up to [`Tablebase::max_stones`]: empty for
    /// a set built in full, or collected in full from builds on several machines.
    pub fn missing(&self) -> Vec<(usize, usize)> {
        missing_layers(&self.layers())
    }

    /// The most stones of any layer held (0 when empty).
    pub fn max_stones(&self) -> usize {
        self.layers().iter().map(|&(a, b)| a + b).max().unwrap_or(0)
    }

    /// The value of `position` for its side to move, or `None` when its layer is not in
    /// the tables (or a side has no stones, which is not a position the tables hold).
    #[inline]
    pub fn probe(&self, position: &Position) -> Option<Value> {
        let (us, them) = (position.us(), position.them());
        let (a, b) = (us.count() as usize, them.count() as usize);
        if a == 0 || b == 0 || a + b > MAX_STONES {
            return None;
        }
        let layer = self.layers[slot_of(a, b)].as_ref()?;
        Some(Value::decode(
            layer[index_of(self.rules.board, us, them) as usize],
        ))
    }

    /// Every legal turn of `position` with its value for the side to move, best first;
    /// `None` when some child is not in the tables.
    pub fn probe_turns(&self, position: &Position) -> Option<Vec<(String, Value)>> {
        let mut out = Vec::new();
        for (text, turn) in spelled_turns(position, self.rules.chain_rule) {
            let child = position.play(turn);
            let value = if child.us().is_empty() {
                Value {
                    outcome: Outcome::Win,
                    distance: 1,
                }
            } else {
                self.probe(&child)?.through_turn(turn.is_capture())
            };
            out.push((text, value));
        }
        out.sort_by_key(|(text, value)| (-value.preference(), text.clone()));
        Some(out)
    }
}
