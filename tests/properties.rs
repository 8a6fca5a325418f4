//! Properties of the rules core over positions from random playouts.

mod common;

use common::playout;
use proptest::prelude::*;
use vato::engine::evaluate::{evaluate, terms};
use vato::engine::nnue::{AccumulatorStack, embedded};
use vato::rules::ChainRule;
use vato::rules::movegen::{TurnCounting, count_turns, has_capture, legal_routes, legal_turns};
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
            let mut scratch = TurnCounting::default();
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
    fn the_network_updated_along_a_game_equals_it_computed_afresh(
        seed in any::<u64>(),
        wander in any::<u64>(),
    ) {
        let network = embedded();
        let scalar = (*network).clone().with_scalar_kernel();
        let mut stack = AccumulatorStack::new(&network, 130);
        // The plies go up and down as in a search, so that updates start from parents,
        // grandparents, siblings and stale entries alike.
        let mut ply = 0usize;
        let mut bits = wander | 1;
        for p in playout(seed, 150, ChainRule::Optional) {
            let fresh = network.evaluate(&p);
            prop_assert_eq!(stack.evaluate(&network, &p, ply), fresh, "{}", p);
            prop_assert_eq!(scalar.evaluate(&p), fresh, "scalar kernel: {}", p);
            prop_assert_eq!(network.evaluate(&p.flip()), fresh, "colour flip: {}", p);
            bits = bits.rotate_left(7) ^ (bits >> 3);
            ply = if bits % 3 == 0 { ply.saturating_sub(1) } else { (ply + 1).min(129) };
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

/// Output that a test can read back: every session line lands in a shared buffer.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A protocol line: a command word (or none) and arbitrary bytes, often control bytes and
/// broken UTF-8. `setoption` is left out: its options touch files and memory sizes.
fn protocol_line() -> impl Strategy<Value = Vec<u8>> {
    let command = prop::sample::select(vec![
        "",
        "uci",
        "isready",
        "position fen ",
        "position startpos moves ",
        "go depth ",
        "go searchmoves ",
        "perft ",
        "perft 1 ",
        "moves ",
        "query ",
        "debug ",
        "bench ",
        "stop ",
        "d ",
        "bogus",
    ]);
    let noise = prop::collection::vec(
        prop_oneof![
            any::<u8>(),
            Just(b'\r'),
            Just(0u8),
            Just(0x1b),
            Just(0xc2),
            Just(0x85),
            Just(0xff),
            Just(b' '),
        ],
        0..400,
    );
    (command, noise).prop_map(|(command, noise)| {
        let mut line = command.as_bytes().to_vec();
        line.extend(noise.into_iter().filter(|&b| b != b'\n'));
        line
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Whatever the input, every error line the session writes is one line of printable
    /// text of bounded length.
    #[test]
    fn every_error_line_is_one_bounded_printable_line(
        lines in prop::collection::vec(protocol_line(), 1..6)
    ) {
        let mut input = Vec::new();
        for line in &lines {
            input.extend_from_slice(line);
            input.push(b'\n');
        }
        let captured = Captured::default();
        let out = vato::protocol::session::Output::new(Box::new(captured.clone()));
        vato::protocol::session::run(std::io::Cursor::new(input), out, None)
            .expect("the thread that reads the input starts");
        let bytes = captured.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).expect("the session writes UTF-8");
        prop_assert!(!text.contains('\r'));
        for line in text.lines().filter(|l| vato::fuzzing::is_error_line(l)) {
            vato::fuzzing::assert_printable_error_line(line);
        }
    }
}
