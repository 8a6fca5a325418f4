//! Learning the evaluation: self-play data (`vato datagen`), its file format, and the
//! trainer of the network (`vato train`).
//!
//! This layer sits beside the runner: it plays games through the engine and writes files
//! that the engine's network loader reads; the engine never depends on it.

pub mod cli;
pub mod data;
pub mod datagen;
pub mod train;
