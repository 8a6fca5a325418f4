//! Helpers shared by the integration tests.

use vato::rules::ChainRule;
use vato::rules::movegen::legal_turns;
use vato::rules::position::Position;

/// The positions of a game played from the start by a random player driven by `seed`
/// (a xorshift generator: the same seed always gives the same game).
pub fn playout(seed: u64, length: usize, chain_rule: ChainRule) -> Vec<Position> {
    let mut state = seed | 1;
    let mut position = Position::start();
    let mut positions = vec![position];
    for _ in 0..length {
        let turns = legal_turns(&position, chain_rule);
        if turns.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        position = position.play(turns[(state % turns.len() as u64) as usize]);
        positions.push(position);
    }
    positions
}
