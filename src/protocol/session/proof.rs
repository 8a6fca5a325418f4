//! A proof in a session: which one is read, and the turn it (or the proof store)
//! prescribes.

use crate::rules::Rules;
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use crate::solve::{Certificate, Guarantee, StoredResults};
use std::fmt;

/// The turn a proof prescribes in the position to play, and what it keeps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Proven {
    /// The strategy's turn.
    pub turn: Turn,
    /// What the strategy guarantees the side to move from here on.
    pub guarantee: Guarantee,
}

impl Proven {
    /// Whether the turn is played without a search: a win, in a game without a
    /// no-capture limit (the proof knows none, and the limit might draw a long win).
    pub fn at_once(&self, rules: &Rules) -> bool {
        self.guarantee == Guarantee::Win && rules.no_capture_limit == 0
    }
}

impl fmt::Display for Proven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.guarantee {
            Guarantee::Win => "win",
            Guarantee::NoLoss => "draw or better",
        })
    }
}

/// The line that says which proof was read.
pub(super) fn describe(certificate: &Certificate, file: &str) -> String {
    format!(
        "info string proof: {file} ({} in {}, {} turns)",
        certificate.claim(),
        certificate.root,
        certificate.turn_counts()
    )
}

/// The proof store's turn for `position` under `rules` (the rules the store was read
/// for), among `searchmoves` when some are given: a win's turn when the store proves the
/// side to move wins, else a turn that keeps a draw when it proves that; `None` in a vela
/// game (the store knows none) or when the store proves nothing for the side to move.
pub(super) fn stored_turn(
    store: &dyn StoredResults,
    position: &Position,
    rules: &Rules,
    searchmoves: &[Turn],
) -> Option<Proven> {
    if rules.vela.is_some() {
        return None;
    }
    let (key, mover) = (position.key(), position.side_to_move());
    let (guarantee, turn) = [Guarantee::Win, Guarantee::NoLoss]
        .into_iter()
        .find_map(|g| store.turn(key, mover, g).map(|turn| (g, turn)))?;
    allowed(turn, position, rules, searchmoves).then_some(Proven { turn, guarantee })
}

/// Whether `turn` is legal in `position` and among `searchmoves` when some are given.
fn allowed(turn: Turn, position: &Position, rules: &Rules, searchmoves: &[Turn]) -> bool {
    let mut legal = Vec::new();
    rules.turn_rules().generate(position, &mut legal);
    legal.contains(&turn) && (searchmoves.is_empty() || searchmoves.contains(&turn))
}

/// The proof's turn for `position` under `rules`, among `searchmoves` when some are given:
/// `None` when the proof is for other rules, has no strategy of the side to move that
/// reaches the position, or prescribes no legal turn allowed.
pub(super) fn proven_turn(
    certificate: &Certificate,
    position: &Position,
    rules: &Rules,
    searchmoves: &[Turn],
) -> Option<Proven> {
    let same_rules = certificate.rules.board == rules.board
        && certificate.rules.chain_rule == rules.chain_rule
        && rules.vela.is_none();
    if !same_rules {
        return None;
    }
    let strategy = certificate
        .strategies
        .iter()
        .find(|s| s.owner == position.side_to_move() && s.turn(position.key()).is_some())?;
    let turn = strategy.turn(position.key())?;
    allowed(turn, position, rules, searchmoves).then_some(Proven {
        turn,
        guarantee: strategy.guarantee,
    })
}
