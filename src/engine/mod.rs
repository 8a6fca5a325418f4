//! The engine: what a position is worth and which turn to play.
//!
//! The search reads positions through the rules layer and knows nothing of the protocol;
//! callers describe a job and receive reports.

pub mod bench;
pub mod evaluate;
pub mod nnue;
pub mod search;
pub mod skill;
pub mod telo;
pub mod timeman;
pub mod tt;
pub mod wdl;
