//! A decided search's strategy read from its proof table: the prover's win (see
//! `win_strategy`) or its opponent's defence (see `defence`).

use super::check::{ByKey, follow};
use super::dfpn::Search;
use super::stored::StoredResults;
use super::strategy::{Guarantee, Strategy};
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use std::collections::HashMap;

impl Search<'_> {
    /// After the root is decided: the strategy of the side whose goal was reached there
    /// (`owner`), read from the proof table. Entries lost from the table are searched
    /// again; `None` if the search is stopped, or if no path-independent strategy is
    /// found (a value that rested on the graph-history interaction).
    pub(super) fn extract(&mut self, root: &Position, owner: Color) -> Option<Strategy> {
        self.path.clear();
        let guarantee = self.guarantee_of(owner);
        let turns = match guarantee {
            Guarantee::Win => self.extract_win(root, owner)?,
            Guarantee::NoLoss => self.extract_defence(root, owner)?,
        };
        if self.aborted {
            return None;
        }
        let turns = match self.store() {
            Some(store) => self.through_store(root, owner, guarantee, store, &turns)?,
            None => turns,
        };
        let mut turns: Vec<(u64, Turn)> = turns.into_iter().collect();
        turns.sort_unstable_by_key(|&(key, _)| key);
        Some(Strategy {
            owner,
            guarantee,
            turns,
        })
    }

    /// What `owner` reaches when its goal is reached: the prover a win, its opponent
    /// anything else.
    fn guarantee_of(&self, owner: Color) -> Guarantee {
        if owner == self.prover {
            Guarantee::Win
        } else {
            Guarantee::NoLoss
        }
    }

    /// Whether the proof's tables or the store answer `root` for `owner`, whose goal was
    /// reached there: the result needs no strategy to confirm it (the store's results
    /// were checked when they joined it), and the store none to learn it.
    pub(super) fn answered_already(&self, root: &Position, owner: Color) -> bool {
        self.settled_for(root, owner, self.guarantee_of(owner)) == Some(true)
    }

    /// The strategy `turns` completed with the store's turns past the stored results it
    /// reached, so that the proof stands without the store: the store's turn first where
    /// it has one (see `store`), then the search's. `None` if a line breaks the guarantee.
    fn through_store(
        &self,
        root: &Position,
        owner: Color,
        guarantee: Guarantee,
        store: &dyn StoredResults,
        turns: &HashMap<u64, Turn>,
    ) -> Option<HashMap<u64, Turn>> {
        let turn_of = |key| {
            store
                .turn(key, owner, guarantee)
                .or_else(|| turns.get(&key).copied())
        };
        match follow(
            root,
            &self.rules,
            self.tables(),
            owner,
            guarantee,
            ByKey(turn_of),
        ) {
            Ok(reached) => Some(
                reached
                    .into_iter()
                    .filter_map(|(key, turn)| Some((key, turn?)))
                    .collect(),
            ),
            Err(e) => {
                tracing::warn!("a strategy through the proof store does not hold: {e:#}");
                None
            }
        }
    }
}
