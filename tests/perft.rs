//! The move generator against published counts: perft from the start and the shared vectors
//! of positions that independent implementations agree on.

#[path = "common/vectors.rs"]
mod vectors;

use vato::rules::ChainRule;
use vato::rules::fen::parse_position;
use vato::rules::movegen::legal_routes;
use vato::rules::perft::{perft, perft_divide};
use vato::rules::position::Position;
use vectors::perft_vectors;

const OPTIONAL: ChainRule = ChainRule::Optional;

/// perft counting every route (every distinct spelling) at every ply.
fn perft_routes(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    legal_routes(position, OPTIONAL)
        .iter()
        .map(|route| perft_routes(&position.play(route.turn), depth - 1))
        .sum()
}

#[test]
fn start_position_perft_1_to_6() {
    let expected = [5u64, 39, 724, 18_026, 431_830, 9_204_447];
    for (i, &nodes) in expected.iter().enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(
            perft(&Position::start(), depth, OPTIONAL),
            nodes,
            "depth {depth}"
        );
    }
}

#[test]
fn start_position_routes_at_depth_5() {
    assert_eq!(perft_routes(&Position::start(), 5), 431_852);
}

#[test]
fn divide_sums_to_perft_whatever_the_thread_count() {
    let start = Position::start();
    for threads in [1, 2, 3] {
        let divide = perft_divide(&start, 4, OPTIONAL, threads);
        assert_eq!(divide.len(), 5);
        assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 18_026);
    }
}

#[test]
fn shared_vectors() {
    let vectors = perft_vectors();
    for v in &vectors {
        let position = parse_position(v.fen).unwrap();
        assert_eq!(perft(&position, 1, OPTIONAL), v.turns, "{}", v.fen);
        assert_eq!(perft(&position, 2, OPTIONAL), v.perft2, "{}", v.fen);
        assert_eq!(perft_routes(&position, 1), v.turns_routes, "{}", v.fen);
        assert_eq!(perft_routes(&position, 2), v.perft2_routes, "{}", v.fen);
    }
    assert_eq!(vectors.len(), 40);
}

/// Runs the `vato` binary with `arguments`: (success, standard output, standard error).
fn vato(arguments: &[&str]) -> (bool, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
        .args(arguments)
        .output()
        .expect("cannot run the vato binary");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_command_line_takes_startpos_for_a_position() {
    let (ok, out, err) = vato(&["perft", "2", "--fen", "startpos"]);
    assert!(ok, "{err}");
    assert_eq!(out.trim_end(), "Nodes searched: 39");
}

#[test]
fn an_unknown_log_level_is_refused() {
    let (ok, out, err) = vato(&["--log-level", "verbose", "perft", "1"]);
    assert!(!ok);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("'verbose'") && err.contains("debug"), "{err}");
    let (ok, _, err) = vato(&["--log-level", "debug", "perft", "1"]);
    assert!(ok, "{err}");
}
