//! Vato: a Fanorona engine.
//!
//! The crate is built in layers; each uses only the layers below it.
//!
//! ```text
//!   cli (command line)   protocol (parser, options, session)   runner   learn (datagen, train)
//!          \                      |                                |       /
//!           \              book (files, text, builder)             |      /
//!            \                    |                                |     /
//!             +------------ engine (search, evaluate, nnue, tt, timeman, bench)
//!                                 |            \
//!                                 |          tablebase (index, values, files, probe, solver)
//!                                 |            /
//!                           rules (geometry, bitboard, position, turn, movegen,
//!                                  notation, fen, game, perft, diagram)
//! ```
//!
//! - [`rules`]: the board, positions, turns, their generation and notation, how a game ends.
//! - [`tablebase`]: exact values of every position with few stones, built by retrograde
//!   analysis, written to and read from files.
//! - [`engine`]: evaluation and the search, which may consult the tables.
//! - [`book`]: opening books, built by searching the opening tree, and played from.
//! - [`solve`]: proof-number search that proves positions won, drawn or lost on top of the
//!   tables.
//! - [`protocol`]: the UCI-style line protocol spoken on standard input and output.
//! - [`runner`]: the match runner, which drives engines as child processes.
//! - [`learn`]: self-play training data and the trainer of the evaluation network; it
//!   uses the runner's opening generator and writes the files the engine's network reads.
//! - [`cli`]: the command line that starts each of them.
//! - [`fuzzing`]: the fuzz targets' entry points, also replayed by the ordinary tests.
//! - [`data_folder`], [`echo`], [`key_search`], [`progress`], [`random`], [`safe_file`],
//!   [`shard`] and [`timestamp`]: where long-lived data lives, text from outside made safe
//!   to print on one line, searches in sorted keys, progress of long jobs, seedable random
//!   numbers, checksummed files written atomically, one of N parts of a job (for more than
//!   one machine) and UTC dates, shared by layers. They use no layer.
//!
//! The items that most callers need are re-exported here.

pub mod book;
pub mod cli;
pub mod data_folder;
pub mod echo;
pub mod engine;
pub mod fuzzing;
pub mod key_search;
pub mod learn;
pub mod progress;
pub mod protocol;
pub mod random;
pub mod rules;
pub mod runner;
pub mod safe_file;
pub mod shard;
pub mod solve;
pub mod tablebase;
pub mod timestamp;

pub use engine::search::{Limits, SearchRequest, Signals, search};
pub use engine::tt::TranspositionTable;
pub use rules::fen::parse_position;
pub use rules::movegen::legal_turns;
pub use rules::position::{Color, Position};
pub use rules::turn::Turn;
pub use rules::{ChainRule, Rules};
