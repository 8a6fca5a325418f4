//! Proving positions won, drawn or lost: depth-first proof-number search (df-pn, Nagai
//! 2002) over the game graph, with the endgame tables as leaves.
//!
//! A three-valued game needs two binary proofs. The first asks whether the side to move
//! wins; the second whether its opponent wins. Neither: a draw. The leaves are positions
//! without stones or without a legal turn (lost for the side to move), positions in the
//! tables (their value), and positions that repeat one earlier on the current path (a
//! draw). As in the tables, there is no no-capture limit.
//!
//! Proofs never rest on a repetition (a repeated position disproves a win, it never
//! proves one), so a `win` or `loss` verdict holds whatever the path. A disproof may: a
//! position disproved because it repeated an ancestor, stored in the table and reused
//! where that ancestor is not on the path, gives a false draw (the graph-history
//! interaction). So every disproof is confirmed by writing the defence down as a strategy
//! over positions, which holds whatever the path; when none is found, the question is
//! searched again storing only the values that rest on no repetition above them (the
//! simple, slower remedy). `check` verifies a written proof with the rules alone.

mod certificate;
mod check;
mod checkpoint;
mod cli;
mod codes;
mod compact_proof;
mod compaction;
mod defence;
mod dfpn;
mod engine_win;
mod evaluation_cache;
mod extract;
mod forced;
mod fortress;
mod huge_pages;
mod key_index;
mod known;
mod manager;
mod mapped_store;
mod one_question;
mod prefetch;
mod proof_file;
mod sample;
mod segment;
mod sorted_results;
mod store;
mod stored;
mod strategy;
mod table;
#[cfg(test)]
mod test_tables;
mod two_questions;
mod verdict;
mod win_strategy;

pub use certificate::{Certificate, Shaped};
pub use check::{Checked, check, tables_suffice};
pub use checkpoint::{Checkpoint, defence_path};
pub use cli::{SolveArgs, run_cli};
pub use compact_proof::{Choices, CompactProof};
pub use dfpn::{Answer, Budget, Method, Proof, Query, Solved};
pub use engine_win::EngineGuide;
pub use forced::ForcedDefences;
pub use known::Known;
pub use mapped_store::MappedStore;
pub use proof_file::ProofFile;
pub use sample::{Agreement, Heard, agreement, random_positions};
pub use store::{PROOFS_VARIABLE, ProofStore, default_store_dir};
pub use stored::{Proven, StoredResults};
pub use strategy::{ClosedDefence, Guarantee, Strategy};
pub use two_questions::{
    answer, on_own_stack, prove, second_checkpoint, solve, solve_on_own_stack, solve_one,
};
pub use verdict::Verdict;
