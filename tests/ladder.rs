//! The ladder's list (scripts/ladder.txt, docs/ladder.md): it reads, it holds the positions
//! its names promise, and each position string is the one its turns reach from the start;
//! and its easiest rung is proved, with a checked proof.

use std::collections::{BTreeSet, HashMap};

use vato::rules::ChainRule;
use vato::rules::fen::parse_position;
use vato::rules::notation::{parse_turn, spell_turn, spelled_turns};
use vato::rules::position::Position;

const LIST: &str = include_str!("../scripts/ladder.txt");

/// The turns after which Vato's line is cut.
const LINE_CUTS: [usize; 9] = [2, 4, 8, 12, 16, 20, 24, 30, 40];

const RULE: ChainRule = ChainRule::Optional;

struct Entry {
    name: String,
    fen: String,
    moves: Vec<String>,
}

fn parse_list(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, fen, moves] = fields[..] else {
            return Err(format!(
                "line {}: {} fields, expected 3: {line}",
                number + 1,
                fields.len()
            ));
        };
        entries.push(Entry {
            name: name.to_string(),
            fen: fen.to_string(),
            moves: moves.split_whitespace().map(str::to_string).collect(),
        });
    }
    Ok(entries)
}

/// Replays `moves` from the start, each in its canonical spelling.
fn replay(moves: &[String]) -> Result<Position, String> {
    let mut position = Position::start();
    for text in moves {
        let turn = parse_turn(&position, RULE, text).map_err(|e| format!("turn '{text}': {e}"))?;
        let canonical = spell_turn(&position, RULE, turn);
        if &canonical != text {
            return Err(format!(
                "turn '{text}' is spelled '{canonical}' canonically"
            ));
        }
        position = position.play(turn);
    }
    Ok(position)
}

/// The names the list must hold, each with its turns from the start (the line's turns
/// are not known in advance: `None`).
fn expected_names() -> HashMap<String, Option<Vec<String>>> {
    let mut names = HashMap::new();
    for cut in LINE_CUTS {
        names.insert(format!("line-{cut}"), None);
    }
    let start = Position::start();
    for (first, turn) in spelled_turns(&start, RULE) {
        names.insert(format!("first-{first}"), Some(vec![first.clone()]));
        for (second, _) in spelled_turns(&start.play(turn), RULE) {
            names.insert(
                format!("second-{first}-{second}"),
                Some(vec![first.clone(), second]),
            );
        }
    }
    names
}

/// Every check on the list; the first failure found, in words.
fn check(text: &str) -> Result<usize, String> {
    let entries = parse_list(text)?;
    let mut expected = expected_names();
    if entries.len() != expected.len() {
        return Err(format!(
            "{} entries, expected {}",
            entries.len(),
            expected.len()
        ));
    }

    let mut seen_fens: HashMap<String, &Entry> = HashMap::new();
    let mut line_moves: Vec<(usize, &[String])> = Vec::new();
    for entry in &entries {
        let name = &entry.name;
        let Some(moves) = expected.remove(name) else {
            return Err(format!("'{name}': unexpected or repeated name"));
        };
        match moves {
            Some(moves) if moves != entry.moves => {
                return Err(format!("'{name}': turns {:?}", entry.moves));
            }
            Some(_) => {}
            None => {
                let cut: usize = name["line-".len()..].parse().expect("a line name");
                if entry.moves.len() != cut {
                    return Err(format!("'{name}': {} turns", entry.moves.len()));
                }
                line_moves.push((cut, &entry.moves));
            }
        }

        let parsed = parse_position(&entry.fen).map_err(|e| format!("'{name}': {e}"))?;
        if parsed.to_string() != entry.fen {
            return Err(format!("'{name}': '{}' is written '{parsed}'", entry.fen));
        }
        let reached = replay(&entry.moves).map_err(|e| format!("'{name}': {e}"))?;
        if reached.to_string() != entry.fen {
            return Err(format!(
                "'{name}': its turns reach '{reached}', not '{}'",
                entry.fen
            ));
        }

        // The only position allowed twice: line-2 is one of the second-* positions.
        if let Some(other) = seen_fens.insert(entry.fen.clone(), entry) {
            let pair = [other.name.as_str(), name.as_str()];
            let twin = pair.contains(&"line-2")
                && pair.iter().any(|n| n.starts_with("second-"))
                && other.moves == entry.moves;
            if !twin {
                return Err(format!(
                    "'{}' and '{name}' are the same position",
                    other.name
                ));
            }
        }
    }

    // The line's cuts are one line.
    line_moves.sort();
    for pair in line_moves.windows(2) {
        let (short, long) = (pair[0].1, pair[1].1);
        if long[..short.len()] != *short {
            return Err(format!(
                "line-{} does not continue line-{}",
                pair[1].0, pair[0].0
            ));
        }
    }
    Ok(entries.len())
}

#[test]
fn the_list_holds_the_positions_its_names_promise() {
    assert_eq!(check(LIST), Ok(53));
}

#[test]
fn the_names_are_the_line_the_first_turns_and_the_replies() {
    let entries = parse_list(LIST).unwrap();
    let count = |prefix: &str| {
        entries
            .iter()
            .filter(|e| e.name.starts_with(prefix))
            .count()
    };
    assert_eq!(count("line-"), 9);
    assert_eq!(count("first-"), 5);
    assert_eq!(count("second-"), 39);
    let names: BTreeSet<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), entries.len());
}

/// The checks catch a damaged list: a position string that its turns do not reach, a
/// missing entry, a repeated one, a turn spelled another way, a broken line.
#[test]
fn the_checks_catch_a_damaged_list() {
    let data: Vec<&str> = LIST.lines().filter(|l| !l.starts_with('#')).collect();
    let join = |lines: &[String]| lines.join("\n");
    let owned: Vec<String> = data.iter().map(|l| l.to_string()).collect();

    // Another entry's position string.
    let mut swapped = owned.clone();
    let fen_of = |line: &str| line.split('\t').nth(1).unwrap().to_string();
    let (a, b) = (fen_of(&owned[9]), fen_of(&owned[10]));
    swapped[9] = owned[9].replace(&a, &b);
    assert!(check(&join(&swapped)).unwrap_err().contains("reach"));

    // One entry fewer.
    let mut fewer = owned.clone();
    fewer.pop();
    assert!(check(&join(&fewer)).unwrap_err().contains("entries"));

    // One entry twice, in place of another.
    let mut repeated = owned.clone();
    let last = repeated.len() - 1;
    repeated[last] = owned[last - 1].clone();
    assert!(check(&join(&repeated)).unwrap_err().contains("repeated"));

    // The counters of the position string.
    let mut counters = owned.clone();
    counters[0] = owned[0].replace(" w 0 2\t", " w 0 3\t");
    assert_ne!(counters[0], owned[0]);
    assert!(check(&join(&counters)).is_err());

    // A line cut that does not continue the one before: line-4 replaced by four other
    // turns (d3e3W b4c3A, then the first legal turn twice), with the position they reach.
    let line_4 = owned
        .iter()
        .position(|l| l.starts_with("line-4\t"))
        .unwrap();
    let mut moves = vec!["d3e3W".to_string(), "b4c3A".to_string()];
    for _ in 0..2 {
        let position = replay(&moves).unwrap();
        moves.push(spelled_turns(&position, RULE)[0].0.clone());
    }
    let mut broken = owned.clone();
    broken[line_4] = format!("line-4\t{}\t{}", replay(&moves).unwrap(), moves.join(" "));
    assert!(check(&join(&broken)).unwrap_err().contains("continue"));

    // A turn in a lenient spelling.
    assert!(replay(&["D3-E3w".to_string()]).is_err());
    assert!(replay(&["d3e3W".to_string()]).is_ok());
}

/// The ladder's easiest rung, proved over the 3-stone tables (a fraction of a second) and
/// its proof checked, so that CI sees the solver climb one rung.
#[test]
fn the_easiest_rung_is_proved_and_its_proof_checked() {
    use std::sync::atomic::AtomicBool;
    use vato::rules::Rules;
    use vato::solve::{Budget, Certificate, Method, Verdict, check, solve_on_own_stack};
    use vato::tablebase::{Progress, Tablebase, build};

    let entries = parse_list(LIST).unwrap();
    let rung = entries
        .iter()
        .find(|e| e.name == "second-d3e3W-c4c3Ad3W")
        .expect("the rung is in the list");
    let root = parse_position(&rung.fen).unwrap();
    let rules = Rules::default();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ladder-three");
    let _ = std::fs::remove_dir_all(&dir);
    build(&dir, 3, &rules, 2, Progress::Quiet).expect("tables build");
    let tables = Tablebase::open(&dir, rules, 3).unwrap();
    let stop = AtomicBool::new(false);
    let budget = Budget {
        nodes: Some(2_000_000),
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
    let solved = solve_on_own_stack(&root, rules, Some(&tables), budget).unwrap();
    assert_eq!(solved.verdict, Verdict::Win, "{}", rung.name);
    let certificate = Certificate {
        root,
        rules,
        verdict: solved.verdict,
        table_stones: 3,
        strategies: solved.strategies,
    };
    check(&certificate, Some(&tables)).expect("the proof holds");
}

/// `scripts/campaign.sh COMMAND OPTIONS EXTRA` with this build's `vato`, without the
/// machine's tables or proof store: its standard output, once it has succeeded.
fn run_campaign(command: &str, options: &[String], extra: &[&str]) -> String {
    let output = std::process::Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/campaign.sh"))
        .arg(command)
        .args(options)
        .args(extra)
        .env("VATO", env!("CARGO_BIN_EXE_vato"))
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", "")
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The campaign script over the 3-stone tables: a run proves the easiest rung into a
/// store of its own, writes its proof and log row, and then finds it proven there.
#[test]
fn the_campaign_runs_a_rung_into_its_store_and_then_finds_it_proven() {
    use vato::rules::Rules;
    use vato::tablebase::{Progress, build};

    let base = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("campaign");
    let _ = std::fs::remove_dir_all(&base);
    let tables = base.join("tables");
    build(&tables, 3, &Rules::default(), 2, Progress::Quiet).expect("tables build");
    let options = [
        "--store",
        base.join("store").to_str().unwrap(),
        "--tablebase-path",
        tables.to_str().unwrap(),
        "--data",
        base.join("data").to_str().unwrap(),
    ]
    .map(String::from);
    let campaign = |command: &str, extra: &[&str]| run_campaign(command, &options, extra);
    let rung = "second-d3e3W-c4c3Ad3W";
    assert!(campaign("status", &[rung]).starts_with("second-d3e3W-c4c3Ad3W\topen\n"));
    assert!(campaign("jobs", &[rung]).contains("second-d3e3W-c4c3Ad3W.checkpoint"));
    // Another method keeps its table apart: its values answer another question.
    let exits = campaign("jobs", &["--method", "exits", rung]);
    assert!(
        exits.contains("--method exits")
            && exits.contains("second-d3e3W-c4c3Ad3W.exits.checkpoint"),
        "{exits}"
    );
    // With --forced, a df-pn job takes what the rung's kept exits run disproved, once
    // there is one; the writer's memory is passed on.
    let forced = ["--forced", "--strategy-memory", "5000", rung];
    let before = campaign("jobs", &forced);
    assert!(
        !before.contains("--forced-from") && before.contains("--strategy-memory 5000"),
        "{before}"
    );
    std::fs::create_dir_all(base.join("data")).unwrap();
    let kept = base.join("data/second-d3e3W-c4c3Ad3W.exits.checkpoint.second");
    std::fs::write(&kept, b"kept").unwrap();
    let after = campaign("jobs", &forced);
    assert!(
        after.contains(&format!("--forced-from {}", kept.display())),
        "{after}"
    );
    std::fs::remove_file(&kept).unwrap();
    let options = ["--time", "30", "--memory", "64", "--threads", "1", rung];
    let ran = campaign("run", &options);
    assert!(ran.contains("\tsecond-d3e3W-c4c3Ad3W\twin\t"), "{ran}");
    assert!(base.join("data/second-d3e3W-c4c3Ad3W.proof").is_file());
    let log = std::fs::read_to_string(base.join("data/log.tsv")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    let status = campaign("status", &[rung]);
    assert!(
        status.starts_with("second-d3e3W-c4c3Ad3W\twin\n"),
        "{status}"
    );
    assert_eq!(campaign("jobs", &[rung]), "", "nothing left to do");

    // Adopted: checked, copied where the repository keeps proofs, with its README row.
    let into = base.join("into");
    let row = campaign("adopt", &["--into", into.to_str().unwrap(), rung]);
    assert!(
        row.starts_with("| `second-d3e3W-c4c3Ad3W` | `BBBBBBBBB/BB1BBBBBB/B2BWBWBW/WW1WWWWWW/WW1WWWWWW w 0 2` | White wins | ")
            && row.ends_with(" s |\n")
            && row.lines().count() == 1,
        "{row}"
    );
    assert_eq!(
        std::fs::read(into.join("second-d3e3W-c4c3Ad3W.proof")).unwrap(),
        std::fs::read(base.join("data/second-d3e3W-c4c3Ad3W.proof")).unwrap()
    );

    // The store lost, its proof brings it back.
    std::fs::remove_dir_all(base.join("store")).unwrap();
    assert!(campaign("status", &[rung]).starts_with("second-d3e3W-c4c3Ad3W\topen\n"));
    let proof = base.join("data/second-d3e3W-c4c3Ad3W.proof");
    let seeded = campaign("seed", &[proof.to_str().unwrap()]);
    assert!(seeded.starts_with("store "), "{seeded}");
    assert!(campaign("status", &[rung]).starts_with("second-d3e3W-c4c3Ad3W\twin\n"));
}

/// `--ask`: a job asks one question; a rung where the store answers it is passed over,
/// and the other question's job still runs, after which the store has the value.
#[test]
fn the_campaign_asks_one_question_and_passes_over_a_rung_that_has_its_answer() {
    let base = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("campaign-ask");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    // Two stones against two, Black to move: neither side wins, without tables.
    let list = base.join("list.txt");
    std::fs::write(&list, "# one rung\ntwo-two\t9/B7B/9/6W1W/9 b 0 1\t0\n").unwrap();
    let options = [
        "--store",
        base.join("store").to_str().unwrap(),
        "--data",
        base.join("data").to_str().unwrap(),
        "--list",
        list.to_str().unwrap(),
        "--time",
        "30",
        "--memory",
        "64",
    ]
    .map(String::from);
    let campaign = |command: &str, extra: &[&str]| run_campaign(command, &options, extra);
    assert!(campaign("jobs", &["--ask", "black"]).contains(" --ask black "));
    let ran = campaign("run", &["--ask", "black"]);
    assert!(ran.contains("\ttwo-two\tunknown\t"), "{ran}");
    assert_eq!(
        campaign("status", &[]).lines().next(),
        Some("two-two\topen (draw or worse)")
    );
    assert_eq!(
        campaign("jobs", &["--ask", "black"]),
        "",
        "Black's question is answered"
    );
    assert!(campaign("jobs", &["--ask", "white"]).contains(" --ask white "));
    assert!(campaign("jobs", &[]).contains("two-two.checkpoint"));
    campaign("run", &["--ask", "white"]);
    assert_eq!(
        campaign("status", &[]).lines().next(),
        Some("two-two\tdraw")
    );
    assert_eq!(campaign("jobs", &[]), "");
}

/// A job that ends open leaves no checkpoint, unless `--keep`: then the next run goes on
/// from it.
#[test]
fn the_campaign_keeps_the_checkpoint_of_a_rung_left_open_only_when_asked() {
    let base = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("campaign-keep");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    // The start, without tables: open after a second.
    let list = base.join("list.txt");
    let start = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1";
    std::fs::write(&list, format!("# one rung\nstart\t{start}\t0\n")).unwrap();
    let data = base.join("data");
    let options = [
        "--store",
        base.join("store").to_str().unwrap(),
        "--data",
        data.to_str().unwrap(),
        "--list",
        list.to_str().unwrap(),
        "--time",
        "1",
        "--memory",
        "64",
        "--threads",
        "1",
    ]
    .map(String::from);
    let checkpoint = data.join("start.checkpoint");
    let ran = run_campaign("run", &options, &[]);
    assert!(ran.contains("\tstart\tunknown\t"), "{ran}");
    assert!(!checkpoint.exists(), "removed without --keep");
    let ran = run_campaign("run", &options, &["--keep"]);
    assert!(ran.contains("\tstart\tunknown\t"), "{ran}");
    assert!(checkpoint.is_file(), "kept with --keep");
}

/// The proofs committed under `proofs/tsivy/` (checked with the 7-stone tables, which CI
/// does not build): each file is whole (its checksum holds), compact, named for a rung of
/// the ladder whose position it proves, rests on no more than the 7-stone set, and its
/// strategies fit its value (or are one side's defence); and proofs/README.md lists each of them.
#[test]
fn the_committed_proofs_are_whole_and_of_the_rungs_they_are_named_for() {
    use vato::solve::ProofFile;
    let folder = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/proofs/tsivy"));
    let readme = std::fs::read_to_string(folder.join("../README.md")).expect("proofs/README.md");
    let rungs: HashMap<String, String> = parse_list(LIST)
        .unwrap()
        .into_iter()
        .map(|entry| (entry.name, entry.fen))
        .collect();
    let mut files = 0;
    for entry in std::fs::read_dir(folder).expect("proofs/tsivy") {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        assert_eq!(
            path.extension().and_then(|e| e.to_str()),
            Some("proof"),
            "{name}"
        );
        let file = ProofFile::read(&path).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        let ProofFile::Compact(certificate) = file else {
            panic!("{name} is not compact");
        };
        let fen = rungs
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is no rung"));
        assert_eq!(certificate.root, parse_position(fen).unwrap(), "{name}");
        assert!(certificate.table_stones <= 7, "{name}");
        assert!(certificate.fits(), "{name}");
        assert!(
            readme.contains(&format!("`{name}`")),
            "{name} not in proofs/README.md"
        );
        files += 1;
    }
    assert!(files > 0, "no proofs");
}

/// Names are prefixes (`line-2` is also `line-20` and `line-24`), unless `--exact`.
#[test]
fn the_campaign_takes_names_as_prefixes_unless_told_they_are_exact() {
    let names = |extra: &[&str]| -> Vec<String> {
        run_campaign("status", &[], extra)
            .lines()
            .filter(|line| !line.starts_with("store "))
            .map(|line| line.split('\t').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&["line-2"]), ["line-2", "line-20", "line-24"]);
    assert_eq!(
        names(&["--exact", "second-d3e3W-c4c3A", "line-2"]),
        ["line-2", "second-d3e3W-c4c3A"]
    );
    assert_eq!(names(&["--exact", "line"]), Vec::<String>::new());
}
