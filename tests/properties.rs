//! Properties of the rules core over positions from random playouts.

mod common;

use common::playout;
use proptest::prelude::*;
use vato::engine::evaluate::{evaluate, terms};
use vato::rules::ChainRule;
use vato::rules::movegen::{count_turns, has_capture, legal_routes, legal_turns};
use vato::rules::notation::{parse_turn, spell_turn, spelled_turns};
use vato::rules::position::Position;
use vato::rules::turn::Turn;

/// A symmetry of the board applied to a turn.
type TurnMap = fn(Turn) -> Turn;

fn rule() -> impl Strategy<Value = ChainRule> {
    prop_oneof![Just(ChainRule::Optional), Just(ChainRule::Mandatory)]
}

fn sorted(mut turns: Vec<Turn>) -> Vec<(usize, usize, u64)> {
    let mut keys: Vec<_> = turns
        .drain(..)
        .map(|t| (t.from().index(), t.to().index(), t.captured().bits()))
        .collect();
    keys.sort_unstable();
    keys
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn set_wise_capture_test_agrees_with_generator(seed in any::<u64>(), rule in rule()) {
        for p in playout(seed, 80, rule) {
            let turns = legal_turns(&p, rule);
            prop_assert_eq!(has_capture(&p), turns.iter().any(|t| t.is_capture()));
            if has_capture(&p) {
                prop_assert!(turns.iter().all(|t| t.is_capture()));
            }
            let mut scratch = Vec::new();
            prop_assert_eq!(count_turns(&p, rule, &mut scratch), turns.len());
        }
    }

    #[test]
    fn turns_are_distinct_and_routes_cover_them(seed in any::<u64>(), rule in rule()) {
        for p in playout(seed, 80, rule) {
            let turns = sorted(legal_turns(&p, rule));
            let mut deduped = turns.clone();
            deduped.dedup();
            prop_assert_eq!(&turns, &deduped);
            let mut from_routes = sorted(legal_routes(&p, rule).into_iter().map(|r| r.turn).collect());
            from_routes.dedup();
            prop_assert_eq!(turns, from_routes);
        }
    }

    #[test]
    fn canonical_spelling_reads_back(seed in any::<u64>(), rule in rule()) {
        for p in playout(seed, 60, rule) {
            for (spelling, turn) in spelled_turns(&p, rule) {
                prop_assert_eq!(parse_turn(&p, rule, &spelling), Ok(turn));
                prop_assert_eq!(parse_turn(&p, rule, &spelling.to_uppercase()), Ok(turn));
                prop_assert_eq!(spell_turn(&p, rule, turn), spelling);
            }
        }
    }

    #[test]
    fn mirrored_positions_have_mirrored_turns(seed in any::<u64>(), rule in rule()) {
        for p in playout(seed, 60, rule) {
            let turns = legal_turns(&p, rule);
            let cases: [(Position, TurnMap); 3] = [
                (p.mirror_files(), Turn::mirror_files),
                (p.mirror_ranks(), Turn::mirror_ranks),
                (p.rotate(), Turn::rotate),
            ];
            for (mirrored, map) in cases {
                prop_assert_eq!(
                    sorted(legal_turns(&mirrored, rule)),
                    sorted(turns.iter().map(|&t| map(t)).collect())
                );
            }
        }
    }

    #[test]
    fn position_strings_round_trip(seed in any::<u64>()) {
        for p in playout(seed, 60, ChainRule::Optional) {
            let text = p.to_string();
            let back: Position = text.parse().unwrap();
            prop_assert_eq!(back, p);
            prop_assert_eq!(back.key(), p.key());
        }
    }

    #[test]
    fn evaluation_is_colour_symmetric(seed in any::<u64>()) {
        for p in playout(seed, 120, ChainRule::Optional) {
            prop_assert_eq!(evaluate(&p), evaluate(&p.flip()), "{}", p);
            let terms: i32 = terms(&p).iter().map(|t| t.value).sum();
            prop_assert_eq!(terms, evaluate(&p));
        }
    }

    #[test]
    fn flipping_colours_mirrors_the_turns(seed in any::<u64>()) {
        for p in playout(seed, 60, ChainRule::Optional) {
            let turns = legal_turns(&p, ChainRule::Optional);
            prop_assert_eq!(
                sorted(legal_turns(&p.flip(), ChainRule::Optional)),
                sorted(turns.iter().map(|&t| t.rotate()).collect())
            );
            prop_assert_eq!(p.flip().flip(), p);
        }
    }
}
