//! The search's numeric parameters by name, with their ranges: the engine declares them as
//! options and the tuner (`vato tune`) moves them, so that none stays a guess.

use super::SearchConfig;

/// One tunable number of [`SearchConfig`].
pub struct Parameter {
    /// The option name (`setoption name ...`).
    pub name: &'static str,
    /// The smallest value that makes sense.
    pub min: i32,
    /// The largest value that makes sense.
    pub max: i32,
    get: fn(&SearchConfig) -> i32,
    set: fn(&mut SearchConfig, i32),
}

impl Parameter {
    /// The value in `config`.
    pub fn get(&self, config: &SearchConfig) -> i32 {
        (self.get)(config)
    }

    /// Sets the value in `config`, clamped to the range.
    pub fn set(&self, config: &mut SearchConfig, value: i32) {
        (self.set)(config, value.clamp(self.min, self.max))
    }

    /// The value in the default configuration.
    pub fn default_value(&self) -> i32 {
        self.get(&SearchConfig::default())
    }
}

macro_rules! parameter {
    ($name:literal, $field:ident, $min:literal, $max:literal) => {
        Parameter {
            name: $name,
            min: $min,
            max: $max,
            get: |c| c.$field as i32,
            set: |c, v| c.$field = v as _,
        }
    };
}

/// Every tunable parameter, in the order `uci` declares them.
pub const PARAMETERS: &[Parameter] = &[
    parameter!("SearchAspirationDelta", aspiration_delta, 5, 400),
    parameter!("SearchReductionBase", reduction_base, -100, 200),
    parameter!("SearchReductionDivisor", reduction_divisor, 50, 600),
    parameter!("SearchReductionFirstTurn", reduction_first_turn, 1, 12),
    parameter!("SearchReductionMinDepth", reduction_min_depth, 2, 8),
    parameter!(
        "SearchCaptureReductionFirstTurn",
        capture_reduction_first_turn,
        1,
        12
    ),
    parameter!(
        "SearchCaptureReductionMinDepth",
        capture_reduction_min_depth,
        2,
        8
    ),
    parameter!("SearchQuiescencePlies", quiescence_plies, 1, 16),
    parameter!("SearchQuiescenceWidth", quiescence_width, 0, 16),
    parameter!("SearchQuiescenceProbeStones", quiescence_probe_stones, 0, 8),
    parameter!(
        "SearchQuiescenceGreedyPlies",
        quiescence_greedy_plies,
        0,
        16
    ),
    parameter!(
        "SearchReverseFutilityMargin",
        reverse_futility_margin,
        0,
        1000
    ),
    parameter!("SearchReverseFutilityDepth", reverse_futility_depth, 1, 10),
    parameter!("SearchNullMoveReduction", null_move_reduction, 0, 6),
    parameter!("SearchLateMovePruning", late_move_pruning, 0, 40),
    parameter!("SearchFutilityMargin", futility_margin, 0, 1000),
    parameter!("SearchProgressScale", progress_scale, 0, 1000),
    parameter!("Contempt", contempt, -200, 200),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_in_range_and_names_are_distinct() {
        for (i, p) in PARAMETERS.iter().enumerate() {
            assert!((p.min..=p.max).contains(&p.default_value()), "{}", p.name);
            assert!(PARAMETERS[..i].iter().all(|q| q.name != p.name));
        }
    }

    #[test]
    fn set_clamps_and_reaches_the_field() {
        let mut config = SearchConfig::default();
        let width = PARAMETERS
            .iter()
            .find(|p| p.name == "SearchQuiescenceWidth")
            .unwrap();
        width.set(&mut config, 5);
        assert_eq!(config.quiescence_width, 5);
        width.set(&mut config, 99);
        assert_eq!(config.quiescence_width, 16);
        assert_eq!(width.get(&config), 16);
        assert_eq!(width.default_value(), 2);
    }
}
