//! Counts of wins, draws and losses in a layer file, for `vato tablebase stats`.

use super::file::read_layer;
use super::value::{Outcome, Value};
use crate::rules::Rules;
use anyhow::Result;
use std::path::Path;

/// Counts of layer `(a, b)` in `dir`, or `None` when it is not built. Reads one layer at a
/// time, so that summing up large tables needs no more memory than their largest layer.
pub fn layer_stats(dir: &Path, rules: &Rules, a: usize, b: usize) -> Result<Option<LayerStats>> {
    Ok(read_layer(dir, rules, a, b)?.map(|data| LayerStats::of(a, b, &data)))
}

/// What one layer holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerStats {
    /// Stones of the side to move.
    pub a: usize,
    /// Stones of the opponent.
    pub b: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// The largest distance of a win or a loss.
    pub longest: u16,
}

impl LayerStats {
    fn of(a: usize, b: usize, data: &[u16]) -> LayerStats {
        let mut stats = LayerStats {
            a,
            b,
            positions: data.len() as u64,
            ..LayerStats::default()
        };
        for &code in data {
            let value = Value::decode(code);
            match value.outcome {
                Outcome::Win => stats.wins += 1,
                Outcome::Draw => stats.draws += 1,
                Outcome::Loss => stats.losses += 1,
            }
            stats.longest = stats.longest.max(value.distance);
        }
        stats
    }
}
