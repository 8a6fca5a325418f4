//! `vato solve`'s proofs against retrograde analysis: positions solved by proof-number
//! search over the tables of fewer stones (or over no tables at all) get exactly the value
//! of the tables that hold them, on Tsivy's board and Dimy's.

#[path = "common/solve_cli.rs"]
mod solve_cli;
use solve_cli::{nodes_of, vato_solve};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
use vato::rules::Rules;
use vato::rules::board::Board;
use vato::rules::movegen::has_legal_turn;
use vato::rules::position::Position;
use vato::solve::{
    Budget, Certificate, Heard, Method, ProofFile, Verdict, agreement, random_positions, solve,
    solve_on_own_stack,
};
use vato::tablebase::{Progress, Tablebase, build, layer_size, layers_with, position_of};

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

/// The Fanoron-Tsivy tables of up to 4 stones, built once for the tests that solve
/// 4-stone positions over those of 3.
fn four_stone_tables() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    built_once(&DIR, "solve-four", 4, Board::Tsivy)
}

/// The tables of up to `stones` stones on `board`, built into the test folder `name` the
/// first time `cell` is asked.
fn built_once(
    cell: &'static OnceLock<PathBuf>,
    name: &str,
    stones: usize,
    board: Board,
) -> &'static PathBuf {
    cell.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = std::fs::remove_dir_all(&dir);
        build(&dir, stones, &rules_on(board), 2, Progress::Quiet).expect("tables build");
        dir
    })
}

/// `vato solve` of `fen` over the 3-stone tables of [`four_stone_tables`] with `nodes`
/// nodes and no store, `extra` added.
fn solve_over_three(fen: &str, nodes: &str, extra: &[&str]) -> (bool, String, String) {
    let common = [
        "--tablebase-path",
        four_stone_tables().to_str().unwrap(),
        "--tablebase-stones",
        "3",
        "--fen",
        fen,
        "--nodes",
        nodes,
        "--no-store",
    ];
    vato_solve(&[&common[..], extra].concat())
}

/// A long win of `fen` that `without` (extra options) leaves open within `nodes` nodes
/// is decided as `value` by the default solver, and its proof passes `--check`.
fn long_win_proved_and_checked(fen: &str, nodes: &str, without: &[&str], value: &str, file: &str) {
    let dir = four_stone_tables();
    let proof = dir.join(file);
    let (ok, answer, error) = solve_over_three(fen, nodes, without);
    assert!(ok && answer.starts_with("unknown "), "{answer}{error}");
    let (ok, answer, error) = solve_over_three(fen, nodes, &["--proof", proof.to_str().unwrap()]);
    assert!(ok && answer.starts_with(value), "{answer}{error}");
    let (ok, checked, error) = vato_solve(&[
        "--tablebase-path",
        dir.to_str().unwrap(),
        "--check",
        proof.to_str().unwrap(),
    ]);
    assert!(ok, "{checked}{error}");
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
    Verdict::from(tables.probe(position).expect("in the tables").outcome)
}

fn check(board: Board, stones: usize, leaves: usize, per_layer: u64) {
    check_by(Method::DepthFirst, board, stones, leaves, per_layer);
}

/// Solves a sample of `stones` stones over the tables of `leaves` by `method` and checks
/// every value against the tables, every proof by the checker, every best turn.
fn check_by(method: Method, board: Board, stones: usize, leaves: usize, per_layer: u64) {
    let rules = rules_on(board);
    let all = Tablebase::open(tables_dir(board), rules, stones).unwrap();
    let smaller = Tablebase::open(tables_dir(board), rules, leaves).unwrap();
    let stop = AtomicBool::new(false);
    let budget = Budget {
        nodes: Some(5_000_000),
        time: None,
        stop: &stop,
        table_mb: 16,
        strategy_mb: None,
        forced: None,
        fortress: Some(Budget::fortress_positions(64, None)),
        engine: None,
        checkpoint: None,
        proof: true,
        threads: 1,
        method,
        store: None,
        guide: None,
    };
    let positions = sample(board, stones, per_layer);
    assert!(positions.len() >= per_layer as usize);
    let mut unknown = 0;
    for position in &positions {
        let position = *position;
        let leaves = (leaves >= 2).then_some(&smaller);
        let solved = solve_on_own_stack(&position, rules, leaves, budget).unwrap();
        // A value found, but its proof not written within the budget, counts as unknown.
        if solved.verdict == Verdict::Unknown || solved.strategies.is_empty() {
            unknown += 1;
            continue;
        }
        assert_eq!(solved.verdict, expected(&all, &position), "{position}");
        // The proof holds up on its own, over the same tables.
        let certificate = Certificate {
            root: position,
            rules,
            verdict: solved.verdict,
            table_stones: if leaves.is_some() { 2 } else { 0 },
            strategies: solved.strategies.clone(),
        };
        if let Err(e) = vato::solve::check(&certificate, leaves) {
            panic!(
                "{position}: the proof of its {} fails: {e:#}",
                solved.verdict
            );
        }
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

#[test]
fn the_graph_method_agrees_with_the_tables() {
    let graph = Method::Graph { leaf_nodes: 100 };
    check_by(graph, Board::Tsivy, 3, 2, 100);
    check_by(graph, Board::Dimy, 3, 0, 30);
}

#[test]
fn a_question_left_open_says_how_far_it_got_and_the_methods_agree() {
    let fen = "9/B8/9/6W1W/9 b";
    // Without the walk along the engine's choices, which wins this within the budget.
    let (ok, stopped, _) = vato_solve(&[
        "--fen",
        fen,
        "--memory",
        "64",
        "--nodes",
        "2000",
        "--engine-depth",
        "0",
    ]);
    assert!(ok && stopped.starts_with("unknown "), "{stopped}");
    let open = stopped
        .lines()
        .find(|l| l.starts_with("open: "))
        .unwrap_or("");
    assert!(
        open.contains("wins? proof ") && open.contains(" disproof "),
        "{stopped}"
    );
    for method in ["dfpn", "graph"] {
        let (ok, whole, error) = vato_solve(&["--fen", fen, "--memory", "64", "--method", method]);
        assert!(ok && whole.starts_with("loss "), "{method}: {whole}{error}");
        assert!(!whole.contains("open: "), "{whole}");
    }
}

#[test]
fn a_stopped_solve_goes_on_from_its_checkpoint() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-checkpoint");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("proof.ckpt");
    let file = file.to_str().unwrap();
    // A loss: both questions are asked, the second after the first is answered.
    let fen = "9/B8/9/6W1W/9 b";
    let (ok, whole, _) = vato_solve(&["--fen", fen, "--memory", "64"]);
    assert!(ok && whole.starts_with("loss "), "{whole}");
    for stop_after in ["3000", "20000", "40000"] {
        let (ok, stopped, _) = vato_solve(&[
            "--fen",
            fen,
            "--memory",
            "64",
            "--nodes",
            stop_after,
            "--checkpoint",
            file,
            // The walk along the engine's choices would win it before the stop.
            "--engine-depth",
            "0",
        ]);
        assert!(ok && stopped.starts_with("unknown "), "{stopped}");
        assert!(std::path::Path::new(file).exists());
        let (ok, resumed, _) = vato_solve(&["--fen", fen, "--memory", "64", "--checkpoint", file]);
        assert!(ok && resumed.starts_with("loss "), "{resumed}");
        assert!(
            nodes_of(&resumed) < nodes_of(&whole),
            "{resumed} against {whole}"
        );
        assert!(!std::path::Path::new(file).exists(), "removed once proved");
    }
    // A damaged checkpoint, and one of another position: one line, nothing solved.
    let stop_early = || {
        vato_solve(&[
            "--fen",
            fen,
            "--memory",
            "64",
            "--no-fortress",
            "--nodes",
            "3000",
            "--checkpoint",
            file,
        ])
    };
    stop_early();
    let mut bytes = std::fs::read(file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 4;
    std::fs::write(file, &bytes).unwrap();
    let (ok, _, error) = vato_solve(&["--fen", fen, "--checkpoint", file]);
    assert!(
        !ok && error.contains("checksum") && error.trim().lines().count() == 1,
        "{error}"
    );
    std::fs::remove_file(file).unwrap();
    stop_early();
    let (ok, _, error) = vato_solve(&["--fen", "9/9/8B/5W3/9 w", "--checkpoint", file]);
    assert!(!ok && error.contains("another position"), "{error}");
    // A table saved without a guide may hold values the guide would change: a guided
    // run refuses it rather than mix the two.
    let tables = tables_dir(Board::Tsivy).to_str().unwrap();
    let (ok, _, error) = vato_solve(&[
        "--fen",
        fen,
        "--checkpoint",
        file,
        "--tablebase-path",
        tables,
        "--tablebase-stones",
        "2",
        "--guide-stones",
        "3",
    ]);
    assert!(
        !ok && error.contains("--guide-stones") && error.trim().lines().count() == 1,
        "{error}"
    );
    // Nor does a search of another method, whose values answer another question.
    let (ok, _, error) = vato_solve(&["--fen", fen, "--checkpoint", file, "--method", "exits"]);
    assert!(
        !ok && error.contains("--method") && error.trim().lines().count() == 1,
        "{error}"
    );
}

#[test]
fn shards_of_the_root_turns_combine_into_the_single_answer() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-shards");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for fen in ["9/B8/9/6W1W/9 b", "9/9/8B/5W3/9 w", "3W5/1B7/9/8W/9 w"] {
        let (ok, single, _) = vato_solve(&["--fen", fen, "--memory", "64"]);
        assert!(ok, "{single}");
        let mut parts = Vec::new();
        for k in 1..=3 {
            let (ok, part, _) =
                vato_solve(&["--fen", fen, "--memory", "64", "--shard", &format!("{k}/3")]);
            assert!(ok && part.lines().all(|l| l.starts_with("turn ")), "{part}");
            let file = dir.join(format!("part-{k}.txt"));
            std::fs::write(&file, part).unwrap();
            parts.push(file);
        }
        let mut args = vec!["--fen", fen, "--combine"];
        args.extend(parts.iter().map(|p| p.to_str().unwrap()));
        let (ok, combined, error) = vato_solve(&args);
        assert!(ok, "{error}");
        let verdict = |answer: &str| answer.split_whitespace().next().unwrap().to_string();
        assert_eq!(
            verdict(&combined),
            verdict(&single),
            "{fen}: {combined} against {single}"
        );
        // A missing shard is refused.
        args.pop();
        let (ok, _, error) = vato_solve(&args);
        assert!(!ok && error.contains("each turn exactly once"), "{error}");
    }
}

#[test]
fn fanoron_dimy_is_a_draw_and_b2c3a_its_only_drawing_first_turn() {
    let rules = rules_on(Board::Dimy);
    let start = rules.start();
    let stop = AtomicBool::new(false);
    let budget = Budget {
        nodes: Some(50_000_000),
        table_mb: 256,
        strategy_mb: None,
        forced: None,
        ..Budget::until(&stop)
    };
    let tables = Tablebase::open(tables_dir(Board::Dimy), rules, 3).unwrap();
    let solved = solve(&start, rules, Some(&tables), budget).unwrap();
    assert_eq!(solved.verdict, Verdict::Draw);
    let turn_rules = rules.turn_rules();
    let spelled = |turn| vato::rules::notation::spell_turn(&start, turn_rules, turn);
    assert_eq!(solved.best.map(spelled).as_deref(), Some("b2c3A"));
    for (text, turn) in vato::rules::notation::spelled_turns(&start, turn_rules) {
        let after = solve(&start.play(turn), rules, Some(&tables), budget).unwrap();
        let expected = if text == "b2c3A" {
            Verdict::Draw
        } else {
            Verdict::Win
        };
        assert_eq!(after.verdict, expected, "after {text}");
    }
}

/// One side's result ("White does not lose", the other question left open) is a proof
/// of its own: written, checked, merged into a store that then holds it, in both forms.
#[test]
fn one_sides_result_is_written_checked_and_kept() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-one-side");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fen = "9/9/8B/5W3/9 w";
    for form in [None, Some("--compact")] {
        let proof = dir.join("one-side.proof");
        let proof = proof.to_str().unwrap();
        let mut args = vec!["--fen", fen, "--ask", "black", "--proof", proof];
        args.extend(form);
        let (ok, answer, error) = vato_solve(&args);
        assert!(ok, "{error}");
        assert!(answer.starts_with("unknown "), "{answer}");
        assert!(
            answer.contains("proven: draw or better for white"),
            "{answer}"
        );
        assert!(answer.contains(&format!("proof {proof} (")), "{answer}");
        let (ok, answer, error) = vato_solve(&["--check", proof]);
        assert!(ok, "{error}");
        assert!(
            answer.starts_with(&format!(
                "proof ok: draw or better for white in {fen} 0 1 ("
            )),
            "{answer}"
        );
        let store = dir.join(format!("store-{}", form.is_some()));
        let store = store.to_str().unwrap();
        let (ok, _, error) = vato_solve(&["--merge-store", proof, "--store", store]);
        assert!(ok, "{error}");
        let (ok, answer, error) = vato_solve(&["--fen", fen, "--store", store, "--stored"]);
        assert!(ok, "{error}");
        assert!(answer.contains("holds only: draw or better"), "{answer}");
    }
    // Asked the other way round, nothing is proven and no file is written.
    let none = dir.join("none.proof");
    let (ok, answer, error) = vato_solve(&[
        "--fen",
        fen,
        "--ask",
        "white",
        "--nodes",
        "1",
        "--proof",
        none.to_str().unwrap(),
    ]);
    assert!(ok && answer.starts_with("unknown "), "{answer}{error}");
    assert!(!none.exists());
}

#[test]
fn a_compact_proof_is_checked_written_back_in_full_and_refused_when_damaged() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-compact-proof");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let [full, compact, again] = ["full", "compact", "again"].map(|name| {
        let path = dir.join(format!("{name}.proof"));
        path.to_str().unwrap().to_string()
    });
    let tables = tables_dir(Board::Dimy).to_str().unwrap();
    let common = ["--variant", "dimy", "--tablebase-path", tables];
    let run = |extra: &[&str]| {
        let mut args = common.to_vec();
        args.extend(extra);
        vato_solve(&args)
    };
    let (ok, answer, error) = run(&["--proof", &compact, "--compact"]);
    assert!(ok, "{error}");
    assert!(
        answer.contains(&format!("proof {compact} (compact: ")),
        "{answer}"
    );
    let (ok, _, error) = run(&["--proof", &full]);
    assert!(ok, "{error}");
    let size = |file: &str| std::fs::metadata(file).unwrap().len();
    assert!(
        size(&compact) * 8 < size(&full),
        "{} against {}",
        size(&compact),
        size(&full)
    );

    // Checked like the full form, following the same positions.
    let (ok, checked_full, error) = run(&["--check", &full]);
    assert!(ok, "{error}");
    let (ok, checked_compact, error) = run(&["--check", &compact, "--proof", &again]);
    assert!(ok, "{error}");
    let followed = |answer: &str| answer.split(" time ").next().unwrap().to_string();
    assert_eq!(followed(&checked_compact), followed(&checked_full));
    let (ok, checked_again, error) = run(&["--check", &again]);
    assert!(ok, "{error}");
    assert_eq!(followed(&checked_again), followed(&checked_full));
    assert!(matches!(
        ProofFile::read(std::path::Path::new(&again)).unwrap(),
        ProofFile::Full(_)
    ));

    // Read back with other tables than it rests on, its choices would fall on other
    // positions: refused before it is followed.
    let (ok, _, error) = run(&["--check", &compact, "--tablebase-stones", "2"]);
    assert!(
        !ok && error.contains("rests on the tables of up to 3 stones"),
        "{error}"
    );

    // Damaged by one byte anywhere: one line.
    let bytes = std::fs::read(&compact).unwrap();
    for at in [20, bytes.len() / 2, bytes.len() - 1] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 4;
        let file = dir.join("damaged.proof");
        std::fs::write(&file, &damaged).unwrap();
        let (ok, _, error) = run(&["--check", file.to_str().unwrap()]);
        assert!(!ok, "byte {at}");
        assert_eq!(error.trim().lines().count(), 1, "{error}");
    }
}

#[test]
fn a_proof_of_fanoron_dimy_is_written_checked_and_a_forged_one_refused() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-proof");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let proof = dir.join("dimy.proof");
    let proof_arg = proof.to_str().unwrap();
    let tables = tables_dir(Board::Dimy).to_str().unwrap();
    let common = ["--variant", "dimy", "--tablebase-path", tables];
    for threads in ["1", "2"] {
        let mut args = common.to_vec();
        args.extend(["--threads", threads, "--proof", proof_arg]);
        let (ok, answer, error) = vato_solve(&args);
        assert!(ok, "{error}");
        assert!(answer.starts_with("draw bestmove b2c3A"), "{answer}");
        assert!(answer.contains(&format!("proof {proof_arg} (")), "{answer}");
        let mut args = common.to_vec();
        args.extend(["--check", proof_arg]);
        let (ok, answer, error) = vato_solve(&args);
        assert!(ok, "{error}");
        assert!(
            answer.starts_with("proof ok: draw for white in BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w"),
            "{answer}"
        );
    }

    // Checking needs the tables the proof rests on.
    let (ok, _, error) = vato_solve(&[
        "--check",
        proof_arg,
        "--tablebase-stones",
        "2",
        "--tablebase-path",
        tables,
    ]);
    assert!(
        !ok && error.contains("rests on the tables of up to 3 stones"),
        "{error}"
    );

    // A damaged file: one line, naming the file.
    let mut bytes = std::fs::read(&proof).unwrap();
    let damaged = dir.join("damaged.proof");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&damaged, &bytes).unwrap();
    let (ok, _, error) = vato_solve(&["--check", damaged.to_str().unwrap()]);
    assert!(!ok && error.contains("checksum"), "{error}");
    assert_eq!(error.trim().lines().count(), 1, "{error}");

    // A well-formed proof that proves nothing: White's first turn made a losing one.
    let ProofFile::Full(mut forged) = ProofFile::read(&proof).unwrap() else {
        panic!("written in full");
    };
    let start = forged.root;
    let losing =
        vato::rules::notation::parse_turn(&start, forged.rules.turn_rules(), "b3c3A").unwrap();
    let white = forged
        .strategies
        .iter_mut()
        .find(|s| s.owner == start.side_to_move())
        .unwrap();
    let at = white
        .turns
        .binary_search_by_key(&start.key(), |&(key, _)| key)
        .unwrap();
    white.turns[at].1 = losing;
    let forged_file = dir.join("forged.proof");
    forged.write(&forged_file).unwrap();
    let (ok, _, error) = vato_solve(&[
        "--check",
        forged_file.to_str().unwrap(),
        "--tablebase-path",
        tables,
    ]);
    assert!(!ok && error.contains("does not prove its value"), "{error}");

    // A proof that says it rests on fewer stones than the folder holds is checked with
    // those layers alone: a position of a larger layer needs its strategy. This one
    // claims 2 stones but gives no turn for its 3-stone root.
    let root = vato::rules::fen::parse_position_on(Board::Dimy, "5/2B2/5/1W3/3W1 w 0 1").unwrap();
    let all = Tablebase::open(tables_dir(Board::Dimy), rules_on(Board::Dimy), 3).unwrap();
    let verdict = expected(&all, &root);
    assert_eq!(verdict, Verdict::Win, "the root is a White win");
    let empty = Certificate {
        root,
        rules: rules_on(Board::Dimy),
        verdict,
        table_stones: 2,
        strategies: vec![vato::solve::Strategy {
            owner: root.side_to_move(),
            guarantee: vato::solve::Guarantee::Win,
            turns: Vec::new(),
        }],
    };
    let empty_file = dir.join("empty.proof");
    empty.write(&empty_file).unwrap();
    let (ok, _, error) = vato_solve(&[
        "--check",
        empty_file.to_str().unwrap(),
        "--variant",
        "dimy",
        "--tablebase-path",
        tables,
    ]);
    assert!(!ok && error.contains("does not prove its value"), "{error}");
}

#[test]
fn two_threads_give_the_values_of_one() {
    let rules = rules_on(Board::Dimy);
    let tables = Tablebase::open(tables_dir(Board::Dimy), rules, 3).unwrap();
    let stop = AtomicBool::new(false);
    let budget = |threads| Budget {
        nodes: Some(50_000_000),
        time: None,
        stop: &stop,
        table_mb: 256,
        strategy_mb: None,
        forced: None,
        fortress: Some(Budget::fortress_positions(64, None)),
        engine: None,
        checkpoint: None,
        proof: false,
        threads,
        method: Method::DepthFirst,
        store: None,
        guide: None,
    };
    let start = rules.start();
    let turn_rules = rules.turn_rules();
    for (_, turn) in vato::rules::notation::spelled_turns(&start, turn_rules) {
        let child = start.play(turn);
        let one = solve_on_own_stack(&child, rules, Some(&tables), budget(1)).unwrap();
        let two = solve_on_own_stack(&child, rules, Some(&tables), budget(2)).unwrap();
        assert_eq!(one.verdict, two.verdict, "{child}");
        assert_ne!(one.verdict, Verdict::Unknown, "{child}");
    }
}

#[test]
fn a_sample_of_random_positions_agrees_with_the_tables() {
    for board in [Board::Tsivy, Board::Dimy] {
        let tables = tables_dir(board).to_str().unwrap();
        let (ok, answer, error) = vato_solve(&[
            "--variant",
            board.name(),
            "--tablebase-path",
            tables,
            "--sample",
            "200",
            "--nodes",
            "5000000",
            "--memory",
            "16",
        ]);
        assert!(ok, "{error}");
        let last = answer.lines().last().unwrap();
        assert!(
            last.starts_with("sample 200 positions of 3 stones over the tables of up to 2: ")
                && last.contains(" 0 disagree"),
            "{answer}"
        );
    }
    let tables = tables_dir(Board::Dimy).to_str().unwrap();
    let (ok, _, error) = vato_solve(&[
        "--variant",
        "dimy",
        "--tablebase-path",
        tables,
        "--sample",
        "5",
        "--stones",
        "2",
    ]);
    assert!(!ok && error.contains("--stones 2"), "{error}");
}

/// A sample says how many positions it has solved after each one, so that a long run shows
/// its progress: 1, 2, ... up to the last, in order, and its lines as they are found.
#[test]
fn a_sample_counts_the_positions_it_has_solved() {
    let rules = rules_on(Board::Tsivy);
    let tables = Tablebase::open(tables_dir(Board::Tsivy), rules, 3).unwrap();
    let leaves = Tablebase::open(tables_dir(Board::Tsivy), rules, 2).unwrap();
    let positions = random_positions(&rules, &[(2, 1), (1, 2)], 30, 5);
    let stop = AtomicBool::new(false);
    let budget = Budget {
        nodes: Some(100),
        table_mb: 16,
        ..Budget::until(&stop)
    };
    let (mut counts, mut lines) = (Vec::new(), 0);
    let found = agreement(
        &positions,
        rules,
        Some(&leaves),
        &tables,
        budget,
        &mut |news| match news {
            Heard::Solved(count) => counts.push(count),
            Heard::Line(_) => lines += 1,
        },
    )
    .unwrap();
    assert_eq!(counts, (1..=positions.len()).collect::<Vec<_>>());
    assert_eq!(found.positions, positions.len());
    assert_eq!(lines, found.undecided + found.disagree.len());
}

/// Quiet draws that df-pn goes round are held by a fortress (the defender confined to a
/// few placements of its stones, solved backwards): 100 random 4-stone positions over the
/// 3-stone tables at 200,000 nodes each all agree with the tables, each proof checked;
/// df-pn alone (`--no-fortress`) leaves draws undecided (12 of them). A fortress that
/// falls proves the attacker's win.
#[test]
fn quiet_draws_are_held_by_a_fortress() {
    let dir = four_stone_tables();
    let sample = |extra: &[&str]| {
        let common = [
            "--tablebase-path",
            dir.to_str().unwrap(),
            "--sample",
            "100",
            "--stones",
            "4",
            "--seed",
            "1",
            "--nodes",
            "200000",
        ];
        let (ok, answer, error) = vato_solve(&[&common[..], extra].concat());
        assert!(ok, "{error}");
        answer
    };
    let with = sample(&[]);
    assert!(
        with.lines().last().unwrap().starts_with(
            "sample 100 positions of 4 stones over the tables of up to 3: 100 agree, 0 \
             disagree, 0 undecided"
        ),
        "{with}"
    );
    let without = sample(&["--no-fortress"]);
    let undecided: Vec<&str> = without
        .lines()
        .filter(|line| line.starts_with("undecided "))
        .collect();
    assert!(
        !undecided.is_empty() && undecided.iter().all(|line| line.contains("(tables: draw)")),
        "{without}"
    );

    // A long win that df-pn leaves open at 200,000 nodes: the loser's fortress falls
    // where its every way out counts for the winner, and that is the proof, checked.
    long_win_proved_and_checked(
        "9/3B4W/9/1B7/3W5 w",
        "200000",
        &["--no-fortress"],
        "loss ",
        "fallen.proof",
    );
}

/// A long win that df-pn and the fortress leave open within 5,000 nodes is won along the
/// engine's own choices, and the checker accepts the proof; `--engine-depth 0` leaves it
/// open, and a depth out of range is refused in one line.
#[test]
fn a_long_win_is_found_along_the_engines_choices() {
    let fen = "9/W8/9/1W6B/W8 w";
    long_win_proved_and_checked(
        fen,
        "5000",
        &["--engine-depth", "0"],
        "win ",
        "engine.proof",
    );
    let (ok, answer, error) = solve_over_three(fen, "5000", &["--engine-depth", "65"]);
    assert!(!ok && answer.is_empty(), "{answer}");
    assert!(
        error.contains("invalid value '65' for '--engine-depth"),
        "{error}"
    );
}

/// A copy of the tables in `full`, in a fresh folder `name`, without the files whose names
/// start with `left_out`: a set that lacks a layer.
fn copy_without(full: &Path, name: &str, left_out: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(full).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        if !file.starts_with(left_out) {
            std::fs::copy(&path, dir.join(&file)).unwrap();
        }
    }
    dir
}

/// A set built a layer pair at a time may lack layers of its largest count: the sample is
/// drawn from the layers held, and says which it leaves out.
#[test]
fn a_sample_is_drawn_from_the_layers_held() {
    let dir = copy_without(
        tables_dir(Board::Tsivy),
        "solve-three-without-2v1",
        "vato-2v1.",
    );
    let (ok, answer, error) = vato_solve(&[
        "--tablebase-path",
        dir.to_str().unwrap(),
        "--sample",
        "40",
        "--stones",
        "3",
        "--nodes",
        "5000000",
        "--memory",
        "16",
    ]);
    assert!(ok, "{error}");
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(
        lines[0], "layers 2v1 are not in the tables: the positions are drawn from 1v2",
        "{answer}"
    );
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("sample 40 positions of 3 stones") && last.contains(" 0 disagree"),
        "{answer}"
    );
}

/// `--layers` draws the sample from the pairs named only: a missing layer of another pair
/// is not missed, and the pairs give the stone count.
#[test]
fn a_sample_is_drawn_from_the_layers_asked_for() {
    let dir = copy_without(
        five_stone_dimy_dir(),
        "solve-five-dimy-without-4v1",
        "vato-dimy-4v1.",
    );
    let sample = |layers: &str| {
        vato_solve(&[
            "--variant",
            "dimy",
            "--tablebase-path",
            dir.to_str().unwrap(),
            "--sample",
            "30",
            "--layers",
            layers,
            "--nodes",
            "5000000",
            "--memory",
            "16",
        ])
    };
    let (ok, answer, error) = sample("3v2");
    assert!(ok, "{error}");
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines.len(), 1, "{answer}");
    assert!(
        lines[0].starts_with("sample 30 positions of 5 stones over the tables of up to 4: ")
            && lines[0].contains(" 0 disagree"),
        "{answer}"
    );
    let (ok, answer, error) = sample("1v4,3v2");
    assert!(ok, "{error}");
    assert!(
        answer.starts_with(
            "layers 4v1 are not in the tables: the positions are drawn from 3v2, 2v3, 1v4\n"
        ),
        "{answer}"
    );
    let (ok, _, error) = sample("3v2,2v1");
    assert!(!ok && error.contains("the same stone count"), "{error}");
}

/// Dimy's tables of up to five stones, built once for the file.
fn five_stone_dimy_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    built_once(&DIR, "solve-five-dimy", 5, Board::Dimy)
}

/// A guide of more stones decides the positions it holds at once, but the proof goes on
/// below them to the proof's tables: every value found is the tables', every proof checks
/// over the smaller tables alone, and the guide decides more than the search alone.
#[test]
fn a_guide_decides_more_and_the_proof_rests_on_the_smaller_tables() {
    let rules = rules_on(Board::Dimy);
    let dir = five_stone_dimy_dir();
    let all = Tablebase::open(dir, rules, 5).unwrap();
    let leaves = Tablebase::open(dir, rules, 3).unwrap();
    let guide = Tablebase::open(dir, rules, 4).unwrap();
    let stop = AtomicBool::new(false);
    let budget = |guide| Budget {
        nodes: Some(20_000),
        time: None,
        stop: &stop,
        table_mb: 16,
        strategy_mb: None,
        forced: None,
        fortress: Some(Budget::fortress_positions(64, None)),
        engine: None,
        checkpoint: None,
        proof: true,
        threads: 1,
        method: Method::DepthFirst,
        store: None,
        guide,
    };
    let positions = sample(Board::Dimy, 5, 12);
    let (mut alone, mut guided) = (0, 0);
    for position in &positions {
        let unguided = solve_on_own_stack(position, rules, Some(&leaves), budget(None)).unwrap();
        alone += usize::from(!unguided.strategies.is_empty());
        let solved = solve_on_own_stack(position, rules, Some(&leaves), budget(Some(&guide)));
        let solved = solved.unwrap();
        if solved.strategies.is_empty() {
            continue;
        }
        guided += 1;
        assert_eq!(solved.verdict, expected(&all, position), "{position}");
        let certificate = Certificate {
            root: *position,
            rules,
            verdict: solved.verdict,
            table_stones: 3,
            strategies: solved.strategies,
        };
        if let Err(e) = vato::solve::check(&certificate, Some(&leaves)) {
            panic!("{position}: the guided proof fails over 3 stones: {e:#}");
        }
    }
    eprintln!(
        "{} positions: {alone} proved alone, {guided} guided",
        positions.len()
    );
    assert!(guided > alone, "{guided} guided, {alone} alone");
}

#[test]
fn a_guide_must_hold_more_than_the_proofs_tables() {
    let tables = tables_dir(Board::Dimy).to_str().unwrap();
    let (ok, _, error) = vato_solve(&[
        "--variant",
        "dimy",
        "--tablebase-path",
        tables,
        "--fen",
        "5/2B2/5/1W3/5 w 0 1",
        "--guide-stones",
        "3",
    ]);
    assert!(
        !ok,
        "a guide of no more stones than the proof's tables is refused"
    );
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(error.contains("--guide-stones 3"), "{error}");
    let (ok, answer, error) = vato_solve(&[
        "--variant",
        "dimy",
        "--tablebase-path",
        tables,
        "--guide-stones",
        "3",
        "--sample",
        "60",
        "--stones",
        "3",
        "--nodes",
        "1000000",
        "--memory",
        "16",
    ]);
    assert!(ok, "{error}");
    let last = answer.lines().last().unwrap();
    assert!(
        last.starts_with("sample 60 positions of 3 stones over the tables of up to 2 guided by 3:")
            && last.contains(" 0 disagree")
            && last.contains(" 0 undecided"),
        "{answer}"
    );
}

#[test]
fn false_draws_from_repetitions_on_other_lines_are_caught() {
    // Over the 4-stone Dimy tables, the search alone (storing every value it found)
    // called these three positions draws: each rested on a repetition of a line other
    // than the one it was met on. The tables of 5 stones say otherwise.
    let rules = rules_on(Board::Dimy);
    let dir = five_stone_dimy_dir();
    let all = Tablebase::open(dir, rules, 5).unwrap();
    let leaves = Tablebase::open(dir, rules, 4).unwrap();
    let stop = AtomicBool::new(false);
    let budget = Budget {
        nodes: Some(5_000_000),
        time: None,
        stop: &stop,
        table_mb: 64,
        strategy_mb: None,
        forced: None,
        fortress: Some(Budget::fortress_positions(64, None)),
        engine: None,
        checkpoint: None,
        proof: true,
        threads: 1,
        method: Method::DepthFirst,
        store: None,
        guide: None,
    };
    for fen in [
        "W4/4B/3W1/1BB2/5 w 0 1",
        "BB2B/5/5/3WW/5 w 0 1",
        "5/2B2/3B1/5/1WW1W w 0 1",
    ] {
        let position = vato::rules::fen::parse_position_on(Board::Dimy, fen).unwrap();
        let solved = solve_on_own_stack(&position, rules, Some(&leaves), budget).unwrap();
        assert_eq!(solved.verdict, expected(&all, &position), "{fen}");
        assert_ne!(solved.verdict, Verdict::Draw, "{fen}");
        let certificate = Certificate {
            root: position,
            rules,
            verdict: solved.verdict,
            table_stones: 4,
            strategies: solved.strategies,
        };
        vato::solve::check(&certificate, Some(&leaves)).unwrap();
    }
}

/// A defence stopped half-written is saved beside the checkpoint, and the next run goes on
/// from it instead of gathering its positions again; a damaged one is set aside in one
/// line.
#[test]
fn a_defence_stopped_half_written_goes_on_from_where_it_stopped() {
    // Black to move loses: "Black wins?" is disproved in about 4,500 nodes, and White's
    // defence takes about 10,000 more, so 6,000 stop it half-written.
    let fen = "9/B8/9/6W1W/9 b";
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-defence");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ask.checkpoint");
    let saved = vato::solve::defence_path(&file);
    let file = file.to_str().unwrap();
    // One question, from the checkpoint `checkpoint`.
    let ask = |checkpoint: &str, extra: &[&str]| {
        // Df-pn alone: a fortress would hold this draw at once, and the defence
        // writer's save is what is tested.
        let common = [
            "--fen",
            fen,
            "--memory",
            "64",
            "--ask",
            "black",
            "--no-fortress",
        ];
        vato_solve(&[&common[..], &["--checkpoint", checkpoint], extra].concat())
    };
    let (ok, stopped, error) = ask(file, &["--nodes", "6000"]);
    assert!(ok && stopped.starts_with("unknown "), "{stopped}{error}");
    assert!(!stopped.contains("proven: "), "{stopped}");
    assert!(saved.exists(), "the defence is saved when the run stops");
    let table_alone = dir.join("table-alone.checkpoint");
    std::fs::copy(file, &table_alone).unwrap();
    let table_alone = table_alone.to_str().unwrap();
    let whole_bytes = std::fs::read(&saved).unwrap();

    let (ok, resumed, error) = ask(file, &[]);
    assert!(ok, "{error}");
    assert!(
        resumed.contains("\nproven: draw or better for white\n"),
        "{resumed}"
    );
    assert!(
        !saved.exists() && !Path::new(file).exists(),
        "removed once done"
    );
    // Without the saved defence, the same table writes it all again.
    let (ok, afresh, error) = ask(table_alone, &[]);
    assert!(
        ok && afresh.contains("proven: draw or better for white"),
        "{afresh}{error}"
    );
    assert!(
        nodes_of(&resumed) < nodes_of(&afresh),
        "{resumed} against {afresh}"
    );

    // A damaged saved defence: one line, and the defence is written afresh.
    let (ok, _, _) = ask(file, &["--nodes", "6000"]);
    assert!(ok && saved.exists());
    let mut damaged = whole_bytes;
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(&saved, &damaged).unwrap();
    let (ok, answer, error) = ask(file, &[]);
    assert!(
        ok && answer.contains("proven: draw or better for white"),
        "{answer}{error}"
    );
    let warnings: Vec<&str> = error.lines().filter(|l| l.contains("checksum")).collect();
    assert_eq!(warnings.len(), 1, "{error}");
    assert!(warnings[0].contains("afresh"), "{error}");
}

/// `--method exits` shows only what a defence forcing its way into the tables holds: it
/// never calls a position won or lost, every draw it shows is one by the tables, with a
/// proof the checker accepts, and a draw held only by going round the same positions
/// stays open.
#[test]
fn the_exits_method_shows_only_draws_that_force_their_way_into_the_tables() {
    let board = Board::Tsivy;
    let rules = rules_on(board);
    let all = Tablebase::open(tables_dir(board), rules, 3).unwrap();
    let leaves = Tablebase::open(tables_dir(board), rules, 2).unwrap();
    let stop = AtomicBool::new(false);
    let budget = Budget {
        nodes: Some(1_000_000),
        table_mb: 16,
        strategy_mb: None,
        forced: None,
        proof: true,
        method: Method::Exits,
        ..Budget::until(&stop)
    };
    let (mut draws, mut open) = (0, 0);
    for position in sample(board, 3, 60) {
        let solved = solve_on_own_stack(&position, rules, Some(&leaves), budget).unwrap();
        match solved.verdict {
            Verdict::Unknown => open += 1,
            Verdict::Draw => {
                draws += 1;
                assert_eq!(expected(&all, &position), Verdict::Draw, "{position}");
                let certificate = Certificate {
                    root: position,
                    rules,
                    verdict: solved.verdict,
                    table_stones: 2,
                    strategies: solved.strategies.clone(),
                };
                if let Err(e) = vato::solve::check(&certificate, Some(&leaves)) {
                    panic!("{position}: the proof of its draw fails: {e:#}");
                }
            }
            verdict => panic!("{position}: --method exits called it a {verdict}"),
        }
    }
    eprintln!("exits: {draws} draws shown, {open} open");
    assert!(draws > 0 && open > 0, "{draws} draws, {open} open");

    // One stone against one without tables: a draw that only goes round.
    let fen = "9/9/2B6/9/6W2 w";
    let (ok, dfpn, error) = vato_solve(&["--fen", fen, "--memory", "64"]);
    assert!(ok && dfpn.starts_with("draw "), "{dfpn}{error}");
    let (ok, exits, error) = vato_solve(&["--fen", fen, "--memory", "64", "--method", "exits"]);
    assert!(ok && exits.starts_with("unknown "), "{exits}{error}");
    // A loss: its winner's side is never shown, its loser's "does not win" is.
    let fen = "9/B8/9/6W1W/9 b";
    let common = ["--fen", fen, "--memory", "64", "--method", "exits"];
    let (ok, won, error) = vato_solve(&[&common[..], &["--ask", "white"]].concat());
    assert!(ok && won.starts_with("unknown "), "{won}{error}");
    assert!(!won.contains("proven: "), "{won}");
    let (ok, held, error) = vato_solve(&[&common[..], &["--ask", "black"]].concat());
    assert!(ok && held.starts_with("unknown "), "{held}{error}");
    assert!(
        held.contains("\nproven: draw or better for white\n"),
        "{held}"
    );
}

/// What a `--method exits` search disproved holds on any path: read from its checkpoint
/// with `--forced-from`, those positions are leaves of a df-pn search, which then shows
/// the same one-sided result in fewer nodes, with a proof the checker accepts. A df-pn
/// checkpoint, whose disproofs may rest on repetitions, and a missing file are refused in
/// one line.
#[test]
fn an_exits_searchs_disproofs_are_leaves_of_a_dfpn_search() {
    // Black to move loses: "Black wins?" is disproved.
    let fen = "9/B8/9/6W1W/9 b";
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-forced");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let ask = |extra: &[&str]| {
        let common = ["--fen", fen, "--memory", "64", "--ask", "black"];
        vato_solve(&[&common[..], extra].concat())
    };
    let (exits, dfpn) = (path("exits.checkpoint"), path("dfpn.checkpoint"));
    let (ok, stopped, error) = ask(&[
        "--method",
        "exits",
        "--nodes",
        "10000",
        "--checkpoint",
        &exits,
    ]);
    assert!(ok && stopped.starts_with("unknown "), "{stopped}{error}");
    assert!(
        Path::new(&exits).exists(),
        "an open search keeps its checkpoint"
    );

    let (ok, alone, error) = ask(&[]);
    assert!(
        ok && alone.contains("\nproven: draw or better for white\n"),
        "{alone}{error}"
    );
    let proof = path("forced.proof");
    let (ok, forced, error) = ask(&["--forced-from", &exits, "--proof", &proof]);
    assert!(
        ok && forced.contains("\nproven: draw or better for white\n"),
        "{forced}{error}"
    );
    assert!(
        nodes_of(&forced) < nodes_of(&alone),
        "{forced} against {alone}"
    );
    let (ok, checked, error) = vato_solve(&["--check", &proof]);
    assert!(
        ok && checked.starts_with("proof ok: draw or better for white"),
        "{checked}{error}"
    );

    let (ok, _, error) = ask(&["--nodes", "3000", "--no-fortress", "--checkpoint", &dfpn]);
    assert!(ok && Path::new(&dfpn).exists(), "{error}");
    for (file, why) in [
        (
            dfpn.as_str(),
            "not the checkpoint of a --method exits search",
        ),
        (&path("missing"), "no checkpoint"),
    ] {
        let (ok, _, error) = ask(&["--forced-from", file]);
        assert!(
            !ok && error.contains(why) && error.trim().lines().count() == 1,
            "{error}"
        );
    }
}

/// A defence stopped by its budget keeps its finished part in the store: the positions
/// whose every line stays among those gathered. The next run takes them as leaves, takes
/// fewer nodes than a run without them, and its proof, completed through them, checks.
#[test]
fn a_defence_left_unfinished_keeps_its_finished_part_in_the_store() {
    // Black to move loses: "Black wins?" is disproved, and White's defence is written.
    let fen = "9/B8/9/6W1W/9 b";
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-closed-part");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let store = path("proofs");
    let ask = |extra: &[&str]| {
        let common = ["--fen", fen, "--memory", "64", "--ask", "black"];
        vato_solve(&[&common[..], extra].concat())
    };
    let (ok, alone, error) = ask(&["--no-store"]);
    assert!(
        ok && alone.contains("\nproven: draw or better for white\n"),
        "{alone}{error}"
    );
    // The search takes about 8,000 nodes, and the writer as many again: too few.
    let (ok, stopped, error) = ask(&["--nodes", "8000", "--store", &store]);
    assert!(ok && stopped.starts_with("unknown "), "{stopped}{error}");
    let kept = stopped
        .lines()
        .find_map(|line| {
            line.split("; ")
                .nth(1)?
                .strip_suffix(" positions of unfinished defences kept")
        })
        .and_then(|count| count.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(kept > 0, "nothing of the defence kept: {stopped}");

    let proof = path("through-the-store.proof");
    let (ok, resumed, error) = ask(&["--store", &store, "--proof", &proof]);
    assert!(
        ok && resumed.contains("\nproven: draw or better for white\n"),
        "{resumed}{error}"
    );
    assert!(
        nodes_of(&resumed) < nodes_of(&alone),
        "{resumed} against {alone}"
    );
    let (ok, checked, error) = vato_solve(&["--check", &proof]);
    assert!(
        ok && checked.starts_with("proof ok: draw or better for white"),
        "{checked}{error}"
    );
}

/// One question asked alone (`--ask`): a proof gives the value, a disproof one side's
/// result, which joins the store as such.
#[test]
fn one_question_asked_alone_gives_the_value_or_one_sides_result() {
    // Black to move loses.
    let fen = "9/B8/9/6W1W/9 b";
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("solve-ask");
    let _ = std::fs::remove_dir_all(&dir);
    let store = dir.join("proofs");
    let store = store.to_str().unwrap();
    let (ok, won, error) = vato_solve(&["--fen", fen, "--memory", "64", "--ask", "white"]);
    assert!(ok && won.starts_with("loss nodes "), "{won}{error}");
    assert!(!won.contains("proven: "), "{won}");
    let common = ["--fen", fen, "--memory", "64", "--store", store];
    let (ok, one_sided, error) = vato_solve(&[&common[..], &["--ask", "black"]].concat());
    assert!(
        ok && one_sided.starts_with("unknown nodes "),
        "{one_sided}{error}"
    );
    assert!(
        one_sided.contains("\nproven: draw or better for white\n"),
        "{one_sided}"
    );
    let (ok, stored, error) = vato_solve(&["--fen", fen, "--stored", "--store", store]);
    assert!(ok, "{error}");
    assert!(
        stored.contains("holds only: draw or worse for the side to move"),
        "{stored}"
    );
    let (ok, _, error) = vato_solve(&["--fen", fen, "--ask", "blue"]);
    assert!(!ok && error.contains("white or black"), "{error}");
}
