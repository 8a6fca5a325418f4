//! Counts of wins, draws and losses in a layer's files, for `vato tablebase stats`.

use super::layer_file::{Kind, class_sizes, value_of};
use super::probe::{MappedLayer, open_layer};
use super::value::Outcome;
use crate::rules::Rules;
use anyhow::{Context, Result};
use std::path::Path;

/// Counts of layer `(a, b)` in `dir`, or `None` when it is not built. Each canonical entry
/// counts for every placement of its class, so the counts are those of the whole layer;
/// one block at a time is decoded, so any set is counted in little memory.
pub fn layer_stats(dir: &Path, rules: &Rules, a: usize, b: usize) -> Result<Option<LayerStats>> {
    let Some(MappedLayer { wdl, distance, .. }) = open_layer(dir, rules, a, b)? else {
        return Ok(None);
    };
    let mut stats = LayerStats {
        a,
        b,
        ..LayerStats::default()
    };
    let mut decompressor = zstd::bulk::Decompressor::new().context("starting zstd")?;
    let (mut values, mut turns, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
    for block in 0..wdl.blocks() {
        wdl.decode_block(block, &mut decompressor, &mut values)?;
        distance.decode_block(block, &mut decompressor, &mut turns)?;
        class_sizes(rules.board, (a, b), wdl.block_range(block), &mut sizes);
        for (offset, &size) in sizes.iter().enumerate() {
            if size == 0 {
                continue;
            }
            let w = Kind::Wdl.entry_in(&values, offset);
            let d = Kind::Distance.entry_in(&turns, offset);
            let value = value_of(w, d)
                .with_context(|| format!("{}: block {block} holds no value", wdl.name()))?;
            let count = u64::from(size);
            stats.positions += count;
            match value.outcome {
                Outcome::Win => stats.wins += count,
                Outcome::Draw => stats.draws += count,
                Outcome::Loss => stats.losses += count,
            }
            stats.longest = stats.longest.max(value.distance);
        }
    }
    Ok(Some(stats))
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
