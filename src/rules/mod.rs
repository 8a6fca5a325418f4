//! The rules of Fanoron-Tsivy and its sister games, exact and fast: the board, positions, turns and their
//! generation, the notations, and how a game ends.
//!
//! Nothing here knows of search, protocol or files; every other layer is built on this one.

pub mod bitboard;
pub mod board;
pub mod diagram;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
mod ruleset;
pub mod telo;
pub mod turn;
pub mod variant;
pub mod vela;
mod zobrist;

pub use ruleset::{ChainRule, DEFAULT_NO_CAPTURE_LIMIT, Rules, TurnRules};
