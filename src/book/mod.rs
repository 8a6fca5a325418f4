//! Opening books: the turns worth playing in the first plies of a game, found by deep
//! searches of the opening tree (`vato book build`) and played at once by the engine
//! (`OwnBook`).
//!
//! A book maps positions (by their hash key, which covers the stones and the side to move)
//! to turns, each with a weight (how often to play it; 0: known but not played), the
//! search's score and the depth it was searched to. It lives in two forms:
//!
//! - Vato's own compact file ([`file`]): entries sorted by key, binary-searched in a memory
//!   map, with a header naming the rules and a checksum;
//! - the text form of the Fanorona web interface ([`text`]): one line per position, found
//!   again by replaying the turns from the start, so that books move between the two;
//! - the web interface's opening base ([`web_json`]), JSON that its Openings panel reads.
//!
//! The builder ([`build`]) keeps every searched position in a journal ([`journal`]), so
//! that a stopped build goes on where it stopped, and splits the tree among machines by
//! the root's turns (`--shard K/N`). The book's searched positions also give the match
//! runner sharper openings than level ones ([`suite`]).

pub mod build;
mod choose;
mod cli;
mod contents;
mod file;
mod journal;
mod suite;
mod text;
mod web_json;

pub use choose::choose;
pub use cli::{BookCommand, ProvenTurn, run_cli};
pub use contents::{BookContents, BookRules, BookTurn, MAX_BOOK_SCORE};
pub use file::{BOOK_VERSION, Book, encode};
pub use text::{TextImport, read_text, write_text};
pub use web_json::{WebBase, write_web_json};
