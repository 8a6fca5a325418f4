//! Endgame tablebases: the exact value of every position with few stones.
//!
//! Positions are counted relative to the side to move: a *layer* `(a, b)` holds every
//! placement of `a` stones of the side to move and `b` stones of the opponent (`a, b >= 1`),
//! so one table serves both colours. A placement's index is the rank of the mover's stones
//! among the `a`-subsets of the 45 points, times `C(45 - a, b)`, plus the rank of the
//! opponent's stones among the `b`-subsets of the remaining points (combinatorial number
//! system), so no slot is wasted.
//!
//! Every position gets a [`Value`]: win, draw or loss for the side to move, and for wins and
//! losses the number of turns to the next capture or the end of the game (a "DTZ"), counted
//! as if there were no repetition rule and no no-capture limit. The winning side reaches a
//! capture (into a smaller, still won layer) or the end by always playing a turn with the
//! smallest distance, so it makes progress and never repeats; the losing side prolongs by
//! playing the largest. When a win's distance plus the turns already played without a
//! capture exceeds the no-capture limit, the win may not be forceable under that limit: the
//! table does not know the counter, so the prober must treat such a win as a possible draw.
//!
//! Layers are solved from few stones to many. A capture always leads to a smaller, solved
//! layer; a paika leads from `(a, b)` to `(b, a)`, so the two are solved together by
//! retrograde analysis: the positions that must capture or cannot move are decided from the
//! smaller layers, then each position decided at distance `n` is passed back, by undoing
//! the opponent's last step, to its predecessors, which are decided at `n + 1`.

mod classes;
mod cli;
mod index;
mod layer_file;
mod legacy;
mod location;
mod lz4_point;
mod pair_checkpoint;
mod probe;
mod solver;
mod stats;
mod symmetry;
mod value;

pub use cli::{TableRules, TablebaseCommand, parse_layer_pair, run_cli};
pub use index::{binomial, index_of, layer_size, layers_with, placement_of, position_of};
pub use layer_file::{BLOCK_ENTRIES, FORMAT_VERSION, Kind, table_file_name};
pub use legacy::{LEGACY_VERSION, legacy_file_name};
pub use location::{TABLEBASES_VARIABLE, default_dir};
pub use probe::{MAX_STONES, Tablebase, layer_names};
pub use solver::{BuildOptions, BuildReport, CHECKPOINT_EVERY, Progress, build, build_layers};
pub use stats::{LayerStats, layer_stats};
pub use value::{Outcome, Value};
