//! `vato solve`'s proofs against retrograde analysis: positions solved by proof-number
//! search over the tables of fewer stones (or over no tables at all) get exactly the value
//! of the tables that hold them, on Tsivy's board and Dimy's.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
use vato::rules::Rules;
use vato::rules::board::Board;
use vato::rules::movegen::has_legal_turn;
use vato::rules::position::Position;
use vato::solve::{Budget, Verdict, solve};
use vato::tablebase::{Outcome, Progress, Tablebase, build, layer_size, layers_with, position_of};

fn rules_on(board: Board) -> Rules {
    Rules {
        board,
        ..Rules::default()
    }
}

/// The tables of up to three stones on `board`, built once for the file.
fn tables_dir(board: Board) -> &'static PathBuf {
    static DIRS: [OnceLock<PathBuf>; 2] = [OnceLock::new(), OnceLock::new()];
    DIRS[board as usize].get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("solve-three-{}", board.name()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        build(&dir, 3, &rules_on(board), 2, Progress::Quiet).expect("tables build");
        dir
    })
}

/// Positions of `stones` stones spread over every layer, `per_layer` from each, picked by
/// a fixed stride, with both sides able to play.
fn sample(board: Board, stones: usize, per_layer: u64) -> Vec<Position> {
    let mut positions = Vec::new();
    for (a, b) in layers_with(stones) {
        let size = layer_size(board, a, b);
        let stride = (size / per_layer).max(1) | 1;
        let mut index = 7 % size;
        for _ in 0..per_layer {
            let position = position_of(board, a, b, index);
            if has_legal_turn(&position) {
                positions.push(position);
            }
            index = (index + stride) % size;
        }
    }
    positions
}

fn expected(tables: &Tablebase, position: &Position) -> Verdict {
    match tables.probe(position).expect("in the tables").outcome {
        Outcome::Win => Verdict::Win,
        Outcome::Draw => Verdict::Draw,
        Outcome::Loss => Verdict::Loss,
    }
}

fn check(board: Board, stones: usize, leaves: usize, per_layer: u64) {
    let rules = rules_on(board);
    let all = Tablebase::open(tables_dir(board), rules, stones).unwrap();
    let smaller = Tablebase::open(tables_dir(board), rules, leaves).unwrap();
    let stop = AtomicBool::new(false);
    let budget = Budget {
        nodes: Some(5_000_000),
        time: None,
        stop: &stop,
        table_mb: 8,
    };
    let positions = sample(board, stones, per_layer);
    assert!(positions.len() >= per_layer as usize);
    let mut unknown = 0;
    for position in &positions {
        let position = *position;
        let leaves = (leaves >= 2).then_some(&smaller);
        let solved = solve(&position, rules, leaves, budget);
        if solved.verdict == Verdict::Unknown {
            unknown += 1;
            continue;
        }
        assert_eq!(solved.verdict, expected(&all, &position), "{position}");
        if let Some(turn) = solved.best {
            // The turn keeps the value: the child is worth the opposite to the opponent.
            let child = position.play(turn);
            let after = if child.us().is_empty() {
                Verdict::Loss
            } else {
                expected(&all, &child)
            };
            let kept = match solved.verdict {
                Verdict::Win => after == Verdict::Loss,
                Verdict::Draw => after == Verdict::Draw,
                _ => true,
            };
            assert!(kept, "{position}: {turn:?} leads to {after:?}");
        }
    }
    // Long wins can outlast the node budget; nearly every position is decided.
    assert!(
        unknown * 50 <= positions.len(),
        "{unknown} of {} undecided",
        positions.len()
    );
    eprintln!(
        "{board:?}, {stones} stones: {unknown} of {} undecided",
        positions.len()
    );
}

#[test]
fn two_stones_without_tables_agree_with_the_tables() {
    // Every position of one stone against one, on both boards.
    check(Board::Tsivy, 2, 0, 45 * 44);
    check(Board::Dimy, 2, 0, 25 * 24);
}

#[test]
fn three_stones_over_the_two_stone_tables_agree_with_the_tables() {
    check(Board::Tsivy, 3, 2, 400);
    check(Board::Dimy, 3, 2, 400);
}

#[test]
fn three_stones_without_tables_agree_with_the_tables() {
    check(Board::Tsivy, 3, 0, 60);
    check(Board::Dimy, 3, 0, 60);
}
