//! Vato: a Fanorona engine.
//!
//! The rules core ([`geometry`], [`bitboard`], [`position`], [`movegen`], [`game`]) speaks
//! the notations of [`notation`] and [`fen`]; everything else is built on it.

pub mod bench;
pub mod bitboard;
pub mod cli;
pub mod diagram;
pub mod evaluate;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod notation;
pub mod options;
pub mod perft;
pub mod position;
pub mod protocol;
pub mod rules;
pub mod runner;
pub mod search;
pub mod session;
pub mod tablebase;
pub mod timeman;
pub mod tt;
pub mod turn;
mod zobrist;
