//! Vato: a Fanorona engine.
//!
//! The rules core ([`geometry`], [`bitboard`], [`position`], [`movegen`], [`game`]) speaks
//! the notations of [`notation`] and [`fen`]; everything else is built on it.

pub mod bitboard;
pub mod cli;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod rules;
pub mod turn;
mod zobrist;
