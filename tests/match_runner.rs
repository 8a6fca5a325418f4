//! The match runner as a user drives it: `vato match` started as a child process, playing
//! real tournaments between real engines (Vato itself at depth 1 or 2) and between Vato
//! and the faulty stand-in engines of `tests/fixtures/`.
//!
//! No test asserts how long anything took; the stand-ins' time-outs and margins are kept
//! short only so that the file runs in a few seconds.

#![cfg(unix)]

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use vato::runner::pgn::{GameResult, PgnGame, Termination, parse_pgn};

const VATO: &str = env!("CARGO_BIN_EXE_vato");

/// A scratch directory for one test, removed when the test ends well.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("vato-match-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs `vato match` with `args`; the diagnostics stay off so that errors are one line.
fn vato_match(args: &[String]) -> Output {
    Command::new(VATO)
        .arg("match")
        .args(args)
        // The engines it starts inherit this: none reads the machine's tables or store.
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", "")
        .env("RUST_BACKTRACE", "0")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("cannot run vato")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// `--engine` words for Vato itself.
fn vato_engine(name: &str, limit: &str) -> Vec<String> {
    words(&format!("--engine name={name} cmd={VATO} {limit}"))
}

/// `--engine` words for a stand-in engine, which gets Vato's path to find legal turns.
fn stand_in(name: &str, script: &str, limits: &str) -> Vec<String> {
    let mut w = words(&format!("--engine name={name} cmd=bash"));
    w.push(format!("arg={}", fixture(script)));
    w.push(format!("arg={VATO}"));
    w.extend(words(limits));
    w
}

fn read_records(path: &Path) -> Vec<PgnGame> {
    let games = parse_pgn(&fs::read_to_string(path).expect("the match wrote records"))
        .expect("the records parse");
    for game in &games {
        game.replay()
            .unwrap_or_else(|e| panic!("a record does not replay: {e}"));
    }
    games
}

/// The first engine's W/D/L from the standings line `W/D/L w/d/l` after `Final results:`.
fn final_wdl(stdout: &str) -> (u64, u64, u64) {
    let last = stdout
        .rsplit("Final results:")
        .next()
        .expect("final results are printed");
    let line = last
        .lines()
        .find(|l| l.trim_start().starts_with("W/D/L "))
        .expect("a W/D/L line");
    let numbers: Vec<u64> = line.trim_start()["W/D/L ".len()..]
        .split(',')
        .next()
        .unwrap()
        .split('/')
        .map(|n| n.parse().unwrap())
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

fn assert_success(output: &Output) -> String {
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "vato match failed: {}\n{stdout}\n{}",
        output.status,
        text(&output.stderr)
    );
    stdout
}

#[test]
fn self_play_results_add_up_and_records_replay() {
    let scratch = Scratch::new("selfplay");
    let pgn = scratch.arg("games.pgn");
    let mut args = vato_engine("deep", "depth=2");
    args.extend(vato_engine("shallow", "depth=1"));
    args.extend(words(&format!(
        "--games 6 --concurrency 2 --random-openings 4 --seed 11 --report-every 2 --pgn {pgn}"
    )));
    let stdout = assert_success(&vato_match(&args));

    // A progress line per game and a standings block every two games.
    assert_eq!(stdout.matches("\nGame ").count(), 6, "{stdout}");
    assert!(stdout.matches("Standings after ").count() >= 3, "{stdout}");

    let games = read_records(Path::new(&pgn));
    assert_eq!(games.len(), 6);
    let (wins, draws, losses) = final_wdl(&stdout);
    assert_eq!(wins + draws + losses, 6);
    // The standings are the records' results, from the first engine's side.
    let mut counted = (0, 0, 0);
    for game in &games {
        let deep_is_white = game.tag("White") == Some("deep");
        match (game.result().unwrap(), deep_is_white) {
            (GameResult::Draw, _) => counted.1 += 1,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => counted.0 += 1,
            _ => counted.2 += 1,
        }
        assert_eq!(game.termination(), Some(Termination::Normal));
        assert!(game.tag("Date").is_some() && game.tag("TimeControl").is_some());
    }
    assert_eq!(counted, (wins, draws, losses));

    // Records come in schedule order, and the two games of a pair share the round, the
    // opening and the engines, with the colours swapped.
    let mut pairs: HashMap<String, Vec<&PgnGame>> = HashMap::new();
    for game in &games {
        pairs
            .entry(game.tag("Round").unwrap().to_string())
            .or_default()
            .push(game);
    }
    assert_eq!(pairs.len(), 3);
    for (round, pair) in &pairs {
        assert_eq!(pair.len(), 2, "pair {round}");
        let (a, b) = (pair[0], pair[1]);
        assert_eq!(a.tag("White"), b.tag("Black"));
        assert_eq!(a.tag("Black"), b.tag("White"));
        assert_ne!(a.tag("White"), a.tag("Black"));
        let book = |g: &PgnGame| -> Vec<String> {
            g.moves
                .iter()
                .filter(|m| m.time.is_none())
                .map(|m| m.turn.clone())
                .collect()
        };
        assert_eq!(book(a).len(), 4);
        assert_eq!(book(a), book(b), "pair {round} has one opening");
        assert_eq!(a.tag("FEN"), b.tag("FEN"));
    }
    assert_eq!(games[0].tag("White"), Some("deep"));

    // The summary of the file agrees with the match.
    let summary = vato_match(&words(&format!("--summary {pgn}")));
    let summary = assert_success(&summary);
    assert!(
        summary.contains(&format!("W/D/L {wins}/{draws}/{losses}")),
        "{summary}"
    );
    assert!(summary.contains("(3 pairs)"), "{summary}");
}

#[test]
fn gauntlet_and_round_robin_play_every_pairing() {
    let scratch = Scratch::new("tournaments");
    for (kind, expected) in [("gauntlet", 4), ("round-robin", 6)] {
        let pgn = scratch.arg(&format!("{kind}.pgn"));
        let mut args = vato_engine("a", "depth=1");
        args.extend(vato_engine("b", "depth=1"));
        args.extend(vato_engine("c", "depth=1"));
        args.extend(words(&format!(
            "--tournament {kind} --games 2 --max-turns 12 --pgn {pgn} --report-every 0"
        )));
        let stdout = assert_success(&vato_match(&args));
        let games = read_records(Path::new(&pgn));
        assert_eq!(games.len(), expected, "{kind}");
        let mut seen: Vec<(String, String)> = games
            .iter()
            .map(|g| {
                (
                    g.tag("White").unwrap().into(),
                    g.tag("Black").unwrap().into(),
                )
            })
            .collect();
        seen.sort();
        seen.dedup();
        assert_eq!(
            seen.len(),
            expected,
            "{kind}: each pairing plays both colours"
        );
        if kind == "gauntlet" {
            assert!(
                games
                    .iter()
                    .all(|g| g.tag("White") == Some("a") || g.tag("Black") == Some("a"))
            );
        }
        // Points over the table add up to the number of games.
        assert!(stdout.contains("rank"), "{stdout}");
        for game in &games {
            if game.termination() == Some(Termination::Adjudication) {
                assert_eq!(game.result(), Some(GameResult::Draw));
                assert!(game.moves.len() <= 12);
            }
        }
    }
}

#[test]
fn openings_from_a_file_in_order() {
    let scratch = Scratch::new("openings");
    let book = scratch.path("book.txt");
    fs::write(
        &book,
        "# two openings\nstartpos d3e3W d4c3A\n\n9/9/4W4/9/B8 w 0 1  # a quiet ending\n",
    )
    .unwrap();
    let pgn = scratch.arg("games.pgn");
    let mut args = vato_engine("x", "depth=1");
    args.extend(vato_engine("y", "depth=1"));
    args.extend(words(&format!(
        "--games 4 --openings {} --no-capture-limit 20 --pgn {pgn}",
        book.display()
    )));
    assert_success(&vato_match(&args));
    let games = read_records(Path::new(&pgn));
    assert_eq!(games.len(), 4);
    assert_eq!(games[0].moves[0].turn, "d3e3W");
    assert_eq!(games[1].moves[1].turn, "d4c3A");
    assert_eq!(games[0].tag("FEN"), None);
    assert_eq!(games[2].tag("FEN"), Some("9/9/4W4/9/B8 w 0 1"));
    assert_eq!(games[3].tag("NoCaptureLimit"), Some("20"));
    assert_eq!(games[2].termination(), Some(Termination::Normal));

    let bad = scratch.path("bad.txt");
    fs::write(&bad, "startpos\nstartpos e5e4\n").unwrap();
    let mut args = vato_engine("x", "depth=1");
    args.extend(vato_engine("y", "depth=1"));
    args.extend(words(&format!("--openings {}", bad.display())));
    let output = vato_match(&args);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("line 2: turn 1 'e5e4' is illegal"),
        "{stderr}"
    );
}

/// Plays two games (one pair) of Vato against a stand-in and checks that the stand-in
/// lost both with `termination` and that the match still ended normally.
fn fault_match(name: &str, script: &str, limits: &str, termination: Termination, detail: &str) {
    // Two tests use the same stand-in: the termination keeps their directories apart.
    let scratch = Scratch::new(&format!(
        "{name}-{}",
        termination.as_str().replace(' ', "-")
    ));
    let pgn = scratch.arg("games.pgn");
    let logs = scratch.arg("logs");
    let mut args = vato_engine("vato", "depth=1");
    args.extend(stand_in(name, script, limits));
    args.extend(words(&format!("--games 2 --pgn {pgn} --log-dir {logs}")));
    let stdout = assert_success(&vato_match(&args));
    assert_eq!(final_wdl(&stdout), (2, 0, 0), "{stdout}");
    assert!(stdout.contains(&format!("{termination} 2")), "{stdout}");
    let games = read_records(Path::new(&pgn));
    assert_eq!(games.len(), 2);
    for game in &games {
        assert_eq!(game.termination(), Some(termination));
        let loser_is_white = game.tag("White") == Some(name);
        let expected = if loser_is_white {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        };
        assert_eq!(game.result(), Some(expected));
        let reason = game.closing.join(" ");
        assert!(reason.starts_with(&format!("{name} (")), "{reason}");
        assert!(reason.contains(detail), "{reason}");
    }
    // The protocol logs show what happened.
    let log = fs::read_to_string(scratch.path("logs").join(format!("{name}-1.log"))).unwrap();
    assert!(log.contains(">> uci"), "{log}");
}

#[test]
fn an_illegal_move_loses() {
    fault_match(
        "illegal",
        "illegal.sh",
        "depth=1 timeout=5000",
        Termination::IllegalMove,
        "played an illegal move: 'e3e5'",
    );
}

#[test]
fn a_crash_loses_and_the_engine_is_restarted() {
    fault_match(
        "crash",
        "crash.sh",
        "depth=1 timeout=5000",
        Termination::Crash,
        "crashed: its output closed",
    );
    // Run again to look at the log: one start for each game.
    let scratch = Scratch::new("crash-log");
    let logs = scratch.arg("logs");
    let mut args = vato_engine("vato", "depth=1");
    args.extend(stand_in("crash", "crash.sh", "depth=1"));
    args.extend(words(&format!("--games 4 --log-dir {logs}")));
    let stdout = assert_success(&vato_match(&args));
    assert_eq!(final_wdl(&stdout), (4, 0, 0), "{stdout}");
    let log = fs::read_to_string(scratch.path("logs").join("crash-1.log")).unwrap();
    assert_eq!(log.matches(">> uci\n").count(), 4, "{log}");
}

#[test]
fn no_answer_to_go_loses_on_time() {
    fault_match(
        "silent",
        "silent.sh",
        "tc=0.3 timemargin=50",
        Termination::TimeForfeit,
        "loses on time",
    );
}

#[test]
fn no_answer_without_a_clock_is_a_stall() {
    fault_match(
        "silent",
        "silent.sh",
        "depth=1 timeout=500",
        Termination::Stalled,
        "no bestmove within 500 ms",
    );
}

#[test]
fn a_late_answer_loses_on_time() {
    fault_match(
        "slow",
        "slow.sh",
        "movetime=100 timemargin=50",
        Termination::TimeForfeit,
        "loses on time",
    );
}

#[test]
fn no_readyok_loses() {
    fault_match(
        "noready",
        "noready.sh",
        "depth=1 timeout=500",
        Termination::Stalled,
        "no readyok within 500 ms",
    );
}

#[test]
fn sprt_stops_the_match_at_a_bound() {
    let scratch = Scratch::new("sprt");
    let pgn = scratch.arg("games.pgn");
    let mut args = vato_engine("vato", "depth=1");
    args.extend(stand_in("illegal", "illegal.sh", "depth=1"));
    // No --games: the match goes on until the test decides.
    args.extend(words(&format!(
        "--sprt elo0=0 elo1=100 alpha=0.1 beta=0.1 --pgn {pgn}"
    )));
    let stdout = assert_success(&vato_match(&args));
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    assert!(stdout.contains("(bounds -2.20, 2.20)"), "{stdout}");
    let games = read_records(Path::new(&pgn));
    // Never before ten pairs, however one-sided: the variance of a few pairs is no
    // estimate, and one pair of two wins used to pass the bound by itself.
    assert!(
        games.len() >= 20 && games.len().is_multiple_of(2),
        "{} games",
        games.len()
    );
    // The summary computes the same test from the file.
    let summary = assert_success(&vato_match(&words(&format!(
        "--summary {pgn} --sprt elo0=0 elo1=100 alpha=0.1 beta=0.1"
    ))));
    assert!(summary.contains("LLR"), "{summary}");
}

#[test]
fn bad_command_lines_give_one_line_errors() {
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vato_engine("a", "depth=1"),
            "a match needs at least two --engine",
        ),
        (
            [
                vato_engine("a", "depth=1"),
                words("--engine cmd=/nonexistent/engine depth=1"),
            ]
            .concat(),
            "engine 'engine': cannot start",
        ),
        (
            [vato_engine("a", "depth=1"), vato_engine("a", "depth=2")].concat(),
            "two engines are named 'a'",
        ),
        (
            [
                vato_engine("a", "depth=1"),
                words(&format!("--engine cmd={VATO}")),
            ]
            .concat(),
            "has no limit",
        ),
        (
            [vato_engine("a", "depth=1"), vato_engine("b", "speed=9")].concat(),
            "--engine 2: unknown key 'speed'",
        ),
        (
            [
                vato_engine("a", "depth=1"),
                vato_engine("b", "depth=1"),
                words("--sprt elo0=5 elo1=0"),
            ]
            .concat(),
            "--sprt: elo0 (5) must be below elo1 (0)",
        ),
        (
            [
                vato_engine("a", "depth=1"),
                vato_engine("b", "depth=1"),
                vato_engine("c", "depth=1"),
                words("--sprt elo0=0 elo1=5"),
            ]
            .concat(),
            "--sprt needs exactly two engines",
        ),
        (
            words("--summary /nonexistent/games.pgn"),
            "cannot read /nonexistent/games.pgn",
        ),
    ];
    for (args, message) in cases {
        let output = vato_match(&args);
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn ctrl_c_stops_cleanly() {
    let scratch = Scratch::new("ctrl-c");
    let pgn = scratch.arg("games.pgn");
    let mut args = vec!["match".to_string()];
    args.extend(vato_engine("a", "depth=1"));
    args.extend(vato_engine("b", "depth=1"));
    args.extend(words(&format!(
        "--games 1000 --random-openings 4 --seed 2 --pgn {pgn}"
    )));
    let mut child = Command::new(VATO)
        .args(&args)
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", "")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    // Wait for the first finished game, then interrupt as a terminal's Ctrl-C would.
    loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "{seen}");
        seen.push_str(&line);
        if line.starts_with("Game ") {
            break;
        }
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "an interrupted match is not a success");
    assert!(rest.contains("Final results:"), "{rest}");
    assert!(rest.contains("Match interrupted"), "{rest}");
    let finished = (seen.clone() + &rest).matches("\nGame ").count();
    let games = read_records(Path::new(&pgn));
    assert_eq!(
        games.len(),
        finished,
        "every finished game is recorded, no other"
    );
    assert!(games.len() < 1000);
}

#[test]
fn the_shipped_openings_are_legal_and_balanced() {
    use vato::rules::Rules;
    use vato::runner::openings::{imbalance, read_openings};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/openings.txt");
    let openings = read_openings(&path, Rules::default()).expect("the file reads");
    assert!(openings.len() >= 24, "{} openings", openings.len());
    for opening in &openings {
        assert_eq!(
            imbalance(&opening.game(Rules::default())),
            None,
            "{opening}"
        );
    }
    let mut lines: Vec<String> = openings.iter().map(|o| o.to_string()).collect();
    lines.sort();
    lines.dedup();
    assert_eq!(lines.len(), openings.len(), "no opening twice");
}

#[test]
fn the_scripts_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = |name: &str| root.join("scripts").join(name);
    let smoke = Command::new("bash")
        .arg(script("smoke.sh"))
        .arg(VATO)
        .env("GAMES", "2")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = assert_success(&smoke);
    assert!(stdout.contains("Final results:"), "{stdout}");
    assert!(stdout.contains(": 2 games\n"), "{stdout}");
    for name in ["sprt.sh", "gauntlet.sh", "smoke.sh"] {
        let help = Command::new("bash")
            .arg(script(name))
            .arg("--help")
            .output()
            .unwrap();
        assert!(help.status.success(), "{name} --help");
        assert!(text(&help.stdout).starts_with("Usage: scripts/"), "{name}");
    }
    for name in ["sprt.sh", "gauntlet.sh"] {
        let bare = Command::new("bash").arg(script(name)).output().unwrap();
        assert_eq!(bare.status.code(), Some(2), "{name} without arguments");
        assert!(text(&bare.stderr).starts_with("Usage: "), "{name}");
    }
}

/// An engine that writes a line without end loses the game as a protocol fault once the
/// line passes the bound, instead of the runner buffering it until memory runs out.
#[test]
fn an_endless_line_is_a_protocol_fault_that_loses() {
    fault_match(
        "endless",
        "endless.sh",
        "depth=1 timeout=20000",
        Termination::Crash,
        "a line longer than 65536 bytes",
    );
}

/// NUL and escape bytes from an engine never reach the game records raw.
#[test]
fn control_bytes_from_an_engine_are_escaped_in_the_records() {
    let scratch = Scratch::new("nul");
    let pgn = scratch.arg("games.pgn");
    let mut args = vato_engine("vato", "depth=1");
    args.extend(stand_in("nul", "nul.sh", "depth=1 timeout=5000"));
    args.extend(words(&format!("--games 2 --pgn {pgn}")));
    let stdout = assert_success(&vato_match(&args));
    assert_eq!(final_wdl(&stdout), (2, 0, 0), "{stdout}");
    let bytes = fs::read(&pgn).unwrap();
    let controls: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|&b| b < 0x20 && b != b'\n')
        .collect();
    assert!(controls.is_empty(), "{controls:?} in\n{}", text(&bytes));
    for game in read_records(Path::new(&pgn)) {
        assert_eq!(game.termination(), Some(Termination::IllegalMove));
        assert!(game.closing.join(" ").contains("\\0"), "{:?}", game.closing);
    }
}

/// Whether process `pid` is gone (or a zombie waiting for whoever adopted it).
fn process_is_gone(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(") ")
            .next()
            .is_some_and(|rest| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// The runner ends an engine's whole process group, not only the process it started.
#[test]
fn an_engines_helper_processes_are_ended_with_it() {
    let scratch = Scratch::new("lingering");
    let pids = scratch.arg("pids");
    let mut args = vato_engine("vato", "depth=1");
    args.extend(words("--engine name=lingering cmd=bash"));
    args.push(format!("arg={}", fixture("lingering.sh")));
    args.push(format!("arg={VATO}"));
    args.push(format!("arg={pids}"));
    args.extend(words("depth=1 timeout=5000 --games 2"));
    assert_success(&vato_match(&args));
    let pids = fs::read_to_string(&pids).unwrap();
    let pids: Vec<&str> = pids.split_whitespace().collect();
    assert!(!pids.is_empty());
    // Killing is asynchronous: give the kernel a moment (not a timing assertion).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while pids.iter().any(|p| !process_is_gone(p)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for pid in &pids {
        let gone = process_is_gone(pid);
        if !gone {
            let _ = Command::new("kill").arg(pid).status();
        }
        assert!(gone, "helper process {pid} outlived the match");
    }
}

#[test]
fn dimy_matches_set_the_variant_and_their_records_replay_on_the_small_board() {
    let scratch = Scratch::new("dimy");
    let pgn = scratch.arg("dimy.pgn");
    let mut args = vato_engine("deep", "depth=3");
    args.extend(vato_engine("shallow", "depth=1"));
    args.extend(words(&format!(
        "--games 2 --variant dimy --random-openings 2 --seed 3 --pgn {pgn}"
    )));
    assert_success(&vato_match(&args));
    let games = read_records(Path::new(&pgn));
    assert_eq!(games.len(), 2);
    for game in &games {
        assert_eq!(game.tag("Variant"), Some("dimy"));
        assert_eq!(game.termination(), Some(Termination::Normal));
        // Every turn stays on files a to e.
        for record in &game.moves {
            assert!(
                record.turn.chars().all(|c| !('f'..='i').contains(&c)),
                "{}",
                record.turn
            );
        }
    }
    // Telo has nothing for the referee to capture-check: refused in one line.
    let mut args = vato_engine("a", "depth=1");
    args.extend(vato_engine("b", "depth=1"));
    args.extend(words("--games 2 --variant telo"));
    let output = vato_match(&args);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("this takes a capture game, tsivy or dimy, not telo"),
        "{}",
        text(&output.stderr)
    );
}

/// A vela match: the favoured side (here Black) moves first and takes exactly one stone a
/// turn while the other side has more than five; the records carry the `Vela` tag and
/// replay under the vela rules. The vela game is Tsivy's: with Dimy it is refused.
#[test]
fn vela_matches_play_the_handicap_game_and_their_records_replay() {
    let scratch = Scratch::new("vela");
    let pgn = scratch.arg("vela.pgn");
    let mut args = vato_engine("deep", "depth=3");
    args.extend(vato_engine("shallow", "depth=1"));
    args.extend(words(&format!(
        "--games 2 --vela black --random-openings 2 --seed 5 --pgn {pgn}"
    )));
    assert_success(&vato_match(&args));
    let games = read_records(Path::new(&pgn));
    assert_eq!(games.len(), 2);
    for game in &games {
        assert_eq!(game.tag("Vela"), Some("black"));
        assert!(game.tag("FEN").is_some_and(|fen| fen.ends_with(" b 0 1")));
        let replayed = game
            .replay()
            .expect("the record replays under the vela rules");
        assert_eq!(
            replayed.rules().vela,
            Some(vato::rules::position::Color::Black)
        );
        // Black's first turn, by the vela rules, takes exactly one stone (one step and
        // its letter).
        let first = &game.moves[0].turn;
        assert!(
            first.len() == 5 && (first.ends_with('A') || first.ends_with('W')),
            "{first}"
        );
    }
    let mut args = vato_engine("a", "depth=1");
    args.extend(vato_engine("b", "depth=1"));
    args.extend(words("--games 2 --variant dimy --vela white"));
    let output = vato_match(&args);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("the vela game is played on Tsivy's board"),
        "{}",
        text(&output.stderr)
    );
}

/// The pentanomial counts in a standings report.
fn pentanomial(report: &str) -> Vec<u32> {
    let line = report
        .lines()
        .find(|l| l.contains("pairs by points"))
        .unwrap_or_else(|| panic!("no pair counts in {report}"));
    let inside = &line[line.find(": [").expect("counts") + 3..line.find(']').expect("counts")];
    inside.split(", ").map(|n| n.parse().unwrap()).collect()
}

/// Two separate matches (a test continued with another seed), summarised together: each
/// keeps its own pairs, so the pair counts are the sums of the two matches' counts.
#[test]
fn summaries_of_separate_matches_keep_each_matchs_pairs() {
    let scratch = Scratch::new("continued");
    let mut reports = Vec::new();
    let mut files = Vec::new();
    for seed in [7, 10] {
        let pgn = scratch.arg(&format!("part-{seed}.pgn"));
        // Equal engines: a pair's two games go to the same colour, so pairing the games
        // of one colour across the two files changes the counts (with these seeds, White
        // wins the third pair of both matches).
        let mut args = vato_engine("one", "depth=2");
        args.extend(vato_engine("other", "depth=2"));
        args.extend(words(&format!(
            "--games 2 --rounds 3 --random-openings 4 --seed {seed} --pgn {pgn}"
        )));
        reports.push(assert_success(&vato_match(&args)));
        files.push(pgn);
    }
    let summary = assert_success(&vato_match(&words(&format!(
        "--summary {} {}",
        files[0], files[1]
    ))));
    let sum: Vec<u32> = pentanomial(&reports[0])
        .iter()
        .zip(pentanomial(&reports[1]))
        .map(|(a, b)| a + b)
        .collect();
    assert_eq!(pentanomial(&summary), sum, "{summary}");
    assert!(summary.contains("(6 pairs)"), "{summary}");
}
