//! The proof store of `vato solve`: results kept across runs are leaves of the next run,
//! the proofs that rest on them are checked without the store, shards' stores merge into
//! the values of one run, and a damaged or foreign store is refused in one line while the
//! solver goes on without it.

#[path = "common/solve_cli.rs"]
mod solve_cli;
use solve_cli::{nodes_of, vato_solve};
use std::path::{Path, PathBuf};
use vato::rules::Rules;
use vato::rules::board::Board;
use vato::tablebase::{Progress, build};

/// A position of Tsivy without tables that `vato solve` proves lost in a fraction of a
/// second, and whose turns the shards split.
const SMALL: &str = "9/B8/9/6W1W/9 b";

/// Dimy's start position after White's first turn b2c3A (a draw).
const DIMY_AFTER_B2C3A: &str = "BBBB1/BBB1B/BWWBW/W1WWW/WWWWW b 0 1";

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("store-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `store DIR: N positions added, M in all` line's N and M.
fn store_counts(answer: &str) -> (u64, u64) {
    let line = answer
        .lines()
        .find(|l| l.starts_with("store "))
        .unwrap_or_else(|| panic!("no store line in {answer}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |word: &str| {
        let at = words.iter().position(|&w| w == word).expect("the word");
        words[at - 1].parse().expect("a count")
    };
    (number("positions"), number("in"))
}

fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vps"))
        .collect();
    found.sort();
    found
}

#[test]
fn a_stored_result_is_a_leaf_and_the_proof_stands_without_the_store() {
    let dir = folder("leaf");
    let tables = dir.join("tables");
    let rules = Rules {
        board: Board::Dimy,
        ..Rules::default()
    };
    build(&tables, 3, &rules, 2, Progress::Quiet).expect("tables build");
    let store = dir.join("store");
    let proof = dir.join("start.proof");
    let (tables, store, proof) = (
        tables.to_str().unwrap(),
        store.to_str().unwrap(),
        proof.to_str().unwrap(),
    );
    let dimy = ["--variant", "dimy", "--tablebase-path", tables];

    let (ok, without, error) = vato_solve(&dimy);
    assert!(
        ok && without.starts_with("draw bestmove b2c3A"),
        "{without}{error}"
    );
    assert!(
        !without.contains("store"),
        "no store unless asked: {without}"
    );

    // The position after b2c3A, proved once, is a leaf of the start's search.
    let mut child = dimy.to_vec();
    child.extend(["--fen", DIMY_AFTER_B2C3A, "--store", store]);
    let (ok, answer, error) = vato_solve(&child);
    assert!(ok && answer.starts_with("draw "), "{answer}{error}");
    let (added, all) = store_counts(&answer);
    assert!(added > 0 && added == all, "{answer}");

    let mut start = dimy.to_vec();
    start.extend(["--store", store, "--proof", proof]);
    let (ok, with, error) = vato_solve(&start);
    assert!(
        ok && with.starts_with("draw bestmove b2c3A"),
        "{with}{error}"
    );
    assert!(
        nodes_of(&with) < nodes_of(&without),
        "fewer nodes with the store: {with} against {without}"
    );
    // The proof carries the stored strategies: it is checked without the store.
    let mut check = dimy.to_vec();
    check.extend(["--check", proof]);
    let (ok, answer, error) = vato_solve(&check);
    assert!(
        ok && answer.starts_with("proof ok: draw"),
        "{answer}{error}"
    );

    // Proved once, answered from the store.
    let (ok, again, error) = vato_solve(&start);
    assert!(
        ok && again.starts_with("draw bestmove b2c3A nodes 0 "),
        "{again}{error}"
    );
    // The store settles the start, so it is only glanced at, not read whole.
    assert!(
        again.contains(": 0 positions added, the value read from it"),
        "{again}"
    );
    // `--stored` answers from the store alone, and says when it cannot.
    let mut glance = dimy.to_vec();
    glance.extend(["--store", store, "--stored"]);
    let (ok, answer, error) = vato_solve(&glance);
    assert!(
        ok && answer.starts_with("draw bestmove b2c3A nodes 0 "),
        "{answer}{error}"
    );
    glance.extend(["--fen", "5/5/2W2/5/B4 w"]);
    let (ok, answer, error) = vato_solve(&glance);
    assert!(
        ok && answer == "unknown nodes 0 (the proof store does not settle it)\n",
        "{answer}{error}"
    );
    // Without a proof file, nothing is written down again: the store has it already.
    let mut stored = dimy.to_vec();
    stored.extend(["--store", store, "--log-level", "debug"]);
    let (ok, again, error) = vato_solve(&stored);
    assert!(
        ok && again.starts_with("draw bestmove b2c3A nodes 0 "),
        "{again}{error}"
    );
    assert!(!error.contains("strategy written"), "{error}");
    let (ok, answer, error) = vato_solve(&check);
    assert!(
        ok && answer.starts_with("proof ok: draw"),
        "{answer}{error}"
    );

    // The store is the default folder's when $VATO_PROOFS names it.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", store)
        .arg("solve")
        .args(dimy)
        .output()
        .unwrap();
    let answer = String::from_utf8_lossy(&output.stdout);
    assert!(
        answer.starts_with("draw bestmove b2c3A nodes 0 "),
        "{answer}"
    );

    // The engine's `solve` reads the default store too.
    let answer = engine_solve(store, tables);
    assert!(
        answer.starts_with("info string solve draw bestmove b2c3A nodes 0 "),
        "{answer}"
    );
}

/// What the engine writes for the commands `input` (ended by `quit`), with the store
/// `store` as its default and no default tables.
fn engine_output(store: &str, input: &str) -> Vec<String> {
    use std::io::{BufRead, BufReader, Write};
    let mut engine = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", store)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("vato runs");
    let mut stdin = engine.stdin.take().unwrap();
    writeln!(stdin, "{input}\nquit").unwrap();
    let lines = BufReader::new(engine.stdout.take().unwrap())
        .lines()
        .map(|line| line.unwrap())
        .collect();
    engine.wait().unwrap();
    lines
}

/// The engine's answer to `solve` at Dimy's start, with the store `store` as its default
/// and the tables in `tables`.
fn engine_solve(store: &str, tables: &str) -> String {
    let input = format!(
        "setoption name Variant value dimy\nsetoption name TablebasePath value {tables}\n\
         position startpos\nsolve"
    );
    engine_output(store, &input)
        .into_iter()
        .find(|line| line.starts_with("info string solve") || line.contains("error"))
        .unwrap_or_default()
}

#[test]
fn shards_stores_merged_give_the_values_of_one_run() {
    let dir = folder("shards");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (one, first, second, merged) = (path("one"), path("a"), path("b"), path("merged"));

    let (ok, single, error) = vato_solve(&["--fen", SMALL, "--store", &one]);
    assert!(ok && single.starts_with("loss "), "{single}{error}");
    for (k, store) in [(1, &first), (2, &second)] {
        let shard = format!("{k}/2");
        let (ok, part, error) = vato_solve(&["--fen", SMALL, "--shard", &shard, "--store", store]);
        assert!(ok && part.contains("turn "), "{part}{error}");
    }
    let (ok, answer, error) = vato_solve(&["--merge-store", &first, &second, "--store", &merged]);
    assert!(ok, "{error}");
    let (added, all) = store_counts(&answer);
    assert!(added > 0 && added == all, "{answer}");
    assert_eq!(segments(Path::new(&merged)).len(), 1, "one new segment");

    // The root's value from the merged store, at once: every turn's child is stored.
    let (ok, answer, error) = vato_solve(&["--fen", SMALL, "--store", &merged]);
    assert!(ok, "{error}");
    assert_eq!(
        answer.split_whitespace().next(),
        single.split_whitespace().next(),
        "{answer} against {single}"
    );
    assert!(
        nodes_of(&answer) < nodes_of(&single),
        "{answer} against {single}"
    );
    // A second merge of the same stores adds nothing.
    let (ok, answer, error) = vato_solve(&["--merge-store", &first, &second, "--store", &merged]);
    assert!(ok && store_counts(&answer).0 == 0, "{answer}{error}");
}

/// Compacting merges a store's segments into one that answers as they did: the next
/// run reads the same value in as few nodes, and a store of one segment is left alone.
#[test]
fn a_compacted_store_is_one_segment_that_answers_as_before() {
    let dir = folder("compact");
    let store = dir.join("store").to_str().unwrap().to_string();
    for k in ["1/2", "2/2"] {
        let (ok, part, error) = vato_solve(&["--fen", SMALL, "--shard", k, "--store", &store]);
        assert!(ok && part.contains("turn "), "{part}{error}");
    }
    // The first run proves the root from the shards' results and stores it; the second
    // reads it.
    let (ok, first, error) = vato_solve(&["--fen", SMALL, "--store", &store]);
    assert!(ok && first.starts_with("loss "), "{first}{error}");
    let (ok, before, error) = vato_solve(&["--fen", SMALL, "--store", &store]);
    assert!(ok && before.starts_with("loss "), "{before}{error}");
    let count = segments(Path::new(&store)).len();
    assert!(count >= 2, "{count} segments");

    let (ok, answer, error) = vato_solve(&["--compact-store", "--store", &store]);
    assert!(ok, "{error}");
    assert!(
        answer.contains(&format!("{count} segments")) && answer.contains("compacted into one"),
        "{answer}"
    );
    assert_eq!(segments(Path::new(&store)).len(), 1, "{answer}");
    let (ok, after, error) = vato_solve(&["--fen", SMALL, "--store", &store]);
    assert!(ok, "{error}");
    assert_eq!(
        after.split_whitespace().next(),
        before.split_whitespace().next(),
        "{after} against {before}"
    );
    assert_eq!(
        nodes_of(&after),
        nodes_of(&before),
        "{after} against {before}"
    );

    let (ok, answer, error) = vato_solve(&["--compact-store", "--store", &store]);
    assert!(
        ok && answer.contains("nothing to compact"),
        "{answer}{error}"
    );
}

/// A proof file (such as those committed under `proofs/`) joins a store once it is
/// checked, so a store lost with its machine is rebuilt from the proofs; a damaged proof
/// or one of other rules is refused in one line and the store is left as it was.
#[test]
fn a_checked_proof_file_joins_the_store_and_a_bad_one_is_refused() {
    let dir = folder("proof-file");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (proof, store, refused) = (path("small.proof"), path("store"), path("refused"));

    let (ok, plain, error) = vato_solve(&["--fen", SMALL, "--no-store", "--proof", &proof]);
    assert!(ok && plain.starts_with("loss "), "{plain}{error}");
    let (ok, answer, error) = vato_solve(&["--merge-store", &proof, "--store", &store]);
    assert!(ok, "{error}");
    let (added, all) = store_counts(&answer);
    assert!(added > 0 && added == all, "{answer}");
    let (ok, answer, error) = vato_solve(&["--fen", SMALL, "--store", &store]);
    assert!(
        ok && answer.starts_with("loss ") && nodes_of(&answer) == 0,
        "answered from the store: {answer}{error}"
    );

    let mut damaged = std::fs::read(&proof).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x10;
    let bad = path("damaged.proof");
    std::fs::write(&bad, &damaged).unwrap();
    let (ok, answer, error) = vato_solve(&["--merge-store", &bad, "--store", &refused]);
    assert!(!ok && answer.is_empty(), "{answer}");
    assert_eq!(error.trim_end().lines().count(), 1, "{error}");
    assert!(error.contains("damaged.proof"), "{error}");
    assert!(!Path::new(&refused).exists(), "nothing written");

    let (ok, _, error) = vato_solve(&[
        "--merge-store",
        &proof,
        "--store",
        &refused,
        "--variant",
        "dimy",
    ]);
    assert!(!ok && error.contains("other rules"), "{error}");
    assert_eq!(error.trim_end().lines().count(), 1, "{error}");
    assert!(!Path::new(&refused).exists(), "nothing written");
}

#[test]
fn a_damaged_or_foreign_store_is_refused_in_one_line_and_the_solver_goes_on() {
    let dir = folder("damaged");
    let store = dir.join("store");
    let store_arg = store.to_str().unwrap();
    let (ok, _, error) = vato_solve(&["--fen", SMALL, "--store", store_arg]);
    assert!(ok, "{error}");
    let (ok, plain, error) = vato_solve(&["--fen", SMALL, "--no-store"]);
    assert!(ok, "{error}");
    let segment = segments(&store).pop().expect("a segment");
    let bytes = std::fs::read(&segment).unwrap();

    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x04;
    std::fs::write(&segment, &damaged).unwrap();
    let (ok, answer, error) = vato_solve(&["--fen", SMALL, "--store", store_arg]);
    assert!(ok, "{error}");
    assert_eq!(
        nodes_of(&answer),
        nodes_of(&plain),
        "searched as without a store"
    );
    assert!(
        !answer.contains("store "),
        "nothing added to a refused store: {answer}"
    );
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(
        error.contains("damaged") && error.contains("solving without the proof store"),
        "{error}"
    );
    assert_eq!(std::fs::read(&segment).unwrap(), damaged, "left as it was");

    std::fs::write(&segment, b"not a store at all").unwrap();
    let (ok, _, error) = vato_solve(&["--fen", SMALL, "--store", store_arg]);
    assert!(ok, "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(error.contains("not a Vato proof store segment"), "{error}");

    // A store proved over tables this run does not have is left alone too.
    std::fs::remove_file(&segment).unwrap();
    let tables = dir.join("tables");
    build(&tables, 2, &Rules::default(), 2, Progress::Quiet).expect("tables build");
    let (ok, _, error) = vato_solve(&[
        "--fen",
        SMALL,
        "--store",
        store_arg,
        "--tablebase-path",
        tables.to_str().unwrap(),
    ]);
    assert!(ok, "{error}");
    let (ok, _, error) = vato_solve(&["--fen", SMALL, "--store", store_arg]);
    assert!(ok, "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(
        error.contains("rests on the tables of up to 2 stones"),
        "{error}"
    );
}

/// The engine's `book` marks a turn whose position the default store settles, the engine
/// playing from the book does not play it when it is a proven loss, and the engine plays
/// the store's win where the store proves one: the ladder's easiest rung (Black's reply
/// c4c3Ad3W to d3e3W, a White win) proved over the 3-stone tables, and a text book that
/// offers it after d3e3W beside another reply.
#[test]
fn the_engine_plays_what_the_store_proves_and_its_book_says_so() {
    let dir = folder("book");
    let tables = dir.join("tables");
    build(&tables, 3, &Rules::default(), 2, Progress::Quiet).unwrap();
    let (tables, store) = (tables.to_str().unwrap(), dir.join("store"));
    let store = store.to_str().unwrap();
    let rung = "BBBBBBBBB/BB1BBBBBB/B2BWBWBW/WW1WWWWWW/WW1WWWWWW w 0 2";
    let (ok, answer, _) =
        vato_solve(&["--fen", rung, "--tablebase-path", tables, "--store", store]);
    assert!(ok && answer.starts_with("win bestmove "), "{answer}");
    let winning = answer.split_whitespace().nth(2).unwrap().to_string();
    let book = dir.join("book.txt");
    std::fs::write(&book, "-\td3e3W 1\nd3e3W\tc4c3Ad3W 2 d4d3A 1\n").unwrap();

    let input = format!(
        "setoption name TablebasePath value {tables}\nsetoption name BookFile value {}\n\
         position startpos moves d3e3W\nbook",
        book.display()
    );
    let listing = |store: &str| -> Vec<String> {
        engine_output(store, &input)
            .into_iter()
            .filter(|line| line.starts_with("book "))
            .collect()
    };
    assert_eq!(
        listing(store),
        [
            "book c4c3Ad3W weight 2 score 0 depth 0 proven loss",
            "book d4d3A weight 1 score 0 depth 0",
        ]
    );
    assert_eq!(
        listing(""),
        [
            "book c4c3Ad3W weight 2 score 0 depth 0",
            "book d4d3A weight 1 score 0 depth 0",
        ],
        "no store, no marks"
    );

    // The opening base exported for the web interface says so too.
    let base = dir.join("base.json");
    let export = |store: &str| -> serde_json::Value {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
            .env("VATO_TABLEBASES", "")
            .env("VATO_PROOFS", store)
            .args(["book", "export"])
            .args([&book, &base])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap()
    };
    let replies = |base: &serde_json::Value| base["nodes"]["d3e3W"]["l"].clone();
    assert_eq!(
        replies(&export(store)),
        serde_json::json!([["c4c3Ad3W", 0, "c4c3Ad3W", "loss"], ["d4d3A", 0, "d4d3A"]])
    );
    assert_eq!(
        replies(&export("")),
        serde_json::json!([["c4c3Ad3W", 0, "c4c3Ad3W"], ["d4d3A", 0, "d4d3A"]])
    );

    // Playing from the book, the engine never picks a turn the store proves lost.
    let input = format!(
        "setoption name TablebasePath value {tables}\nsetoption name BookFile value {}\n\
         setoption name OwnBook value true\nposition startpos moves d3e3W\ngo depth 1",
        book.display()
    );
    let played = |store: &str| -> Vec<String> {
        engine_output(store, &input)
            .into_iter()
            .filter(|line| line.starts_with("bestmove") || line.starts_with("info string book "))
            .collect()
    };
    assert_eq!(
        played(store),
        [
            "info string book d4d3A weight 1 score 0 depth 0",
            "bestmove d4d3A"
        ]
    );
    assert_eq!(
        played(""),
        [
            "info string book c4c3Ad3W weight 2 score 0 depth 0",
            "bestmove c4c3Ad3W"
        ]
    );

    // In the rung, White plays the store's win at once, unless weakened or without it.
    let answer = |store: &str, options: &str| -> Vec<String> {
        let input = format!(
            "setoption name TablebasePath value {tables}
{options}             position fen {rung}
go depth 1"
        );
        engine_output(store, &input)
            .into_iter()
            .filter(|line| line.starts_with("bestmove") || line.starts_with("info string proven"))
            .collect()
    };
    assert_eq!(
        answer(store, ""),
        [
            format!("info string proven win {winning}"),
            format!("bestmove {winning}")
        ]
    );
    for (store, options) in [
        ("", ""),
        (
            store,
            "setoption name Skill Level value 3
",
        ),
    ] {
        let lines = answer(store, options);
        assert!(
            lines.len() == 1 && lines[0].starts_with("bestmove "),
            "{lines:?}"
        );
    }

    // The engine probes the store where it lies, so a damaged block costs only its own
    // answers: a later copy of the segment, its last entry damaged, leaves the marks.
    let segment = segments(Path::new(store)).pop().expect("a segment");
    let mut damaged = std::fs::read(&segment).unwrap();
    *damaged.last_mut().unwrap() ^= 0x40;
    std::fs::write(Path::new(store).join("99999999999999999999-1.vps"), damaged).unwrap();
    assert_eq!(
        listing(store)[0],
        "book c4c3Ad3W weight 2 score 0 depth 0 proven loss"
    );
    assert_eq!(
        answer(store, "")[0],
        format!("info string proven win {winning}")
    );
}

/// `--stored` says what one side's result the store holds when it settles no value.
#[test]
fn stored_alone_names_a_one_sided_result() {
    use vato::rules::position::Color;
    use vato::solve::{Guarantee, ProofStore};
    let dir = folder("one-sided");
    let rules = Rules {
        board: Board::Dimy,
        ..Rules::default()
    };
    let fen = "BBBB1/BBB1B/BWWBW/W1WWW/WWWWW b 0 1";
    let position = vato::rules::fen::parse_position_on(Board::Dimy, fen).unwrap();
    let mut store = ProofStore::new(&rules);
    store.learn(
        Color::White,
        Guarantee::NoLoss,
        &[(position.key(), None)],
        0,
    );
    store.save(&dir).unwrap();
    let dir = dir.to_str().unwrap();
    let (ok, answer, error) = vato_solve(&[
        "--variant",
        "dimy",
        "--fen",
        fen,
        "--store",
        dir,
        "--stored",
    ]);
    assert!(
        ok && answer
            == "unknown nodes 0 (the proof store holds only: draw or worse for the side to move)\n",
        "{answer}{error}"
    );
}
