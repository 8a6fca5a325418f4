//! The line protocol on standard input and output: parsing commands, engine options, and
//! the session that dispatches them to the rules and the engine.

pub mod options;
pub mod parser;
pub mod session;
