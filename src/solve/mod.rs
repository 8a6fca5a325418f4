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
//! proves one), so a `win` or `loss` verdict holds whatever the path. A disproof does:
//! a position disproved because it repeated an ancestor is stored in the table and may be
//! reused where that ancestor is not on the path (the graph-history interaction). A
//! `draw` verdict alone therefore says that no win was found for either side under the
//! path's repetitions. Asked for a proof, the solver writes each side's defence down as a
//! positional strategy, which `check` follows line by line whatever the path: a draw with
//! a checked proof is sound.

mod certificate;
mod check;
mod checkpoint;
mod cli;
mod defence;
mod dfpn;
mod sample;
mod strategy;
mod table;
mod win_strategy;

pub use certificate::Certificate;
pub use check::{Checked, check};
pub use checkpoint::Checkpoint;
pub use cli::{SolveArgs, run_cli};
pub use dfpn::{
    Answer, Budget, Proof, Query, Solved, Verdict, answer, on_own_stack, prove, second_checkpoint,
    solve, solve_on_own_stack,
};
pub use sample::{Agreement, agreement, random_positions};
pub use strategy::{Guarantee, Strategy};
