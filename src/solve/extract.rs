//! A decided search's strategy read from its proof table: the prover's win (see
//! `win_strategy`) or its opponent's defence (see `defence`).

use super::dfpn::Search;
use super::strategy::{Guarantee, Strategy};
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;

impl Search<'_> {
    /// After the root is decided: the strategy of the side whose goal was reached there
    /// (`owner`), read from the proof table. Entries lost from the table are searched
    /// again; `None` if the search is stopped, or if no path-independent strategy is
    /// found (a value that rested on the graph-history interaction).
    pub(super) fn extract(&mut self, root: &Position, owner: Color) -> Option<Strategy> {
        self.path.clear();
        let (guarantee, turns) = if owner == self.prover {
            (Guarantee::Win, self.extract_win(root, owner)?)
        } else {
            (Guarantee::NoLoss, self.extract_defence(root, owner)?)
        };
        if self.aborted {
            return None;
        }
        let mut turns: Vec<(u64, Turn)> = turns.into_iter().collect();
        turns.sort_unstable_by_key(|&(key, _)| key);
        Some(Strategy {
            owner,
            guarantee,
            turns,
        })
    }
}
