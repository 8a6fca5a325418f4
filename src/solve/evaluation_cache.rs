//! The static evaluations of the positions df-pn met last, kept so that a node searched
//! again does not evaluate its children again.

use crate::engine::evaluate::evaluate;
use crate::rules::position::Position;

/// Entries of the cache: 512 KiB, which stays in the core's second-level cache. Df-pn
/// goes back to the nodes near its current line over and over. Evaluating took about 30%
/// of a 7-stone search's instructions before the cache. A cache of 16 MiB saved more
/// instructions but cost time, since each look-up went out to memory
/// (docs/experiments.md).
const ENTRIES: usize = 1 << 15;

/// A direct-mapped table of evaluations by position key; a position whose key is 0 is
/// evaluated each time (that key marks an empty entry).
pub(super) struct EvaluationCache {
    entries: Vec<(u64, i32)>,
}

impl EvaluationCache {
    /// An empty cache (its memory is taken as it fills).
    pub(super) fn new() -> EvaluationCache {
        EvaluationCache {
            entries: vec![(0, 0); ENTRIES],
        }
    }

    /// [`evaluate`]`(position)`, from the cache when it holds it.
    pub(super) fn evaluate(&mut self, position: &Position) -> i32 {
        let key = position.key();
        let mask = self.entries.len() - 1;
        let entry = &mut self.entries[key as usize & mask];
        if entry.0 == key && key != 0 {
            return entry.1;
        }
        let value = evaluate(position);
        *entry = (key, value);
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// The cache gives what the evaluation gives, on positions met once and again, also
    /// when they share an entry.
    #[test]
    fn the_cache_answers_what_the_evaluation_answers() {
        let rules = Rules::default();
        let mut cache = EvaluationCache::new();
        let mut positions = vec![rules.start()];
        let mut frontier = positions.clone();
        let mut turns = Vec::new();
        for _ in 0..2 {
            let mut next = Vec::new();
            for position in &frontier {
                turns.clear();
                rules.turn_rules().generate(position, &mut turns);
                next.extend(turns.iter().map(|&turn| position.play(turn)));
            }
            positions.extend(&next);
            frontier = next;
        }
        assert!(positions.len() > 30, "{} positions", positions.len());
        for _ in 0..2 {
            for position in &positions {
                assert_eq!(cache.evaluate(position), evaluate(position), "{position}");
            }
        }
        let mut small = EvaluationCache {
            entries: vec![(0, 0); 2],
        };
        for position in positions.iter().chain(positions.iter().rev()) {
            assert_eq!(small.evaluate(position), evaluate(position), "{position}");
        }
    }
}
