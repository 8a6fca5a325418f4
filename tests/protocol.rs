//! The protocol as a graphical interface sees it: the real `vato` binary, started as a child
//! process and driven line by line through its standard input and output.
//!
//! Every test asserts the order and the content of lines, never how long anything took. The
//! only clock in this file is the hang guard: a test fails with the transcript so far when
//! the engine sends nothing (or does not exit) for a whole minute.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// Longest wait for one line or for the process to end: a guard against hangs, generous
/// enough never to fire on a slow machine. It is not a timing assertion.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// The start position as `fen` prints it.
const START_FEN: &str = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1";

/// Black has a stone (a1) but no legal turn: White has won.
const BLACK_BLOCKED: &str = "9/9/9/WW7/BW7 b";
/// Black has no stones left: White has won.
const BLACK_WIPED_OUT: &str = "9/9/9/9/W8 b";
/// A few stones: every search iteration costs few nodes, so small node limits still
/// complete several iterations. White (c1) can capture towards a1 or c3.
const SMALL: &str = "9/9/2B6/9/B1W6 w";

/// A running engine: its pipes, the lines it has written so far and a transcript for
/// failure messages.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Collects the engine's standard error until it closes.
    stderr: Option<JoinHandle<String>>,
    transcript: Vec<String>,
}

impl Engine {
    /// Starts `vato` with no arguments: the protocol session.
    fn start() -> Engine {
        Engine::start_command(Command::new(env!("CARGO_BIN_EXE_vato")))
    }

    /// Starts the protocol session through `command` (a wrapper that limits it, say),
    /// without the tables and the proof store of the machine's default folders unless
    /// `command` names some.
    fn start_command(mut command: Command) -> Engine {
        if !command.get_envs().any(|(key, _)| key == "VATO_TABLEBASES") {
            command.env("VATO_TABLEBASES", "");
        }
        if !command.get_envs().any(|(key, _)| key == "VATO_PROOFS") {
            command.env("VATO_PROOFS", "");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start the vato binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader.read_until(b'\n', &mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if buffer.last() == Some(&b'\n') {
                            buffer.pop();
                        }
                        let line = String::from_utf8_lossy(&buffer).into_owned();
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
            // Dropping the sender tells the test that the output is closed.
        });
        let stderr = {
            let mut pipe = child.stderr.take().expect("piped stderr");
            thread::spawn(move || {
                let mut text = String::new();
                let _ = pipe.read_to_string(&mut text);
                text
            })
        };
        let mut engine = Engine {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
            transcript: Vec::new(),
        };
        let version = env!("CARGO_PKG_VERSION");
        engine.expect_exact(&format!("Vato {version} by the Vato developers"));
        engine
    }

    /// Fails the test; the transcript follows (see `Drop`).
    fn fail(&self, message: &str) -> ! {
        panic!("{message}");
    }

    fn record(&mut self, direction: &str, line: &str) {
        const SHOWN: usize = 160;
        let shown: String = line.chars().take(SHOWN).collect();
        let more = if line.chars().count() > SHOWN {
            format!(" ...({} chars)", line.chars().count())
        } else {
            String::new()
        };
        self.transcript.push(format!("{direction} {shown}{more}"));
    }

    /// Sends one line (a newline is added).
    fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// Sends raw bytes as one line, for input that is not UTF-8.
    fn send_bytes(&mut self, bytes: &[u8]) {
        self.record(">", &String::from_utf8_lossy(bytes));
        let Some(stdin) = self.stdin.as_mut() else {
            self.fail("send after stdin was closed");
        };
        let written = stdin
            .write_all(bytes)
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush());
        if let Err(e) = written {
            self.fail(&format!("cannot write to the engine: {e}"));
        }
    }

    /// The next output line, failing the test after the hang guard.
    fn next_line(&mut self) -> String {
        match self.lines.recv_timeout(HANG_GUARD) {
            Ok(line) => {
                self.record("<", &line);
                line
            }
            Err(RecvTimeoutError::Timeout) => self.fail(&format!(
                "hang guard: the engine wrote nothing for {} s",
                HANG_GUARD.as_secs()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                self.fail("the engine closed its output unexpectedly")
            }
        }
    }

    /// The next output line, which must satisfy `predicate` (`what` describes it).
    fn expect_line(&mut self, what: &str, predicate: impl Fn(&str) -> bool) -> String {
        let line = self.next_line();
        if !predicate(&line) {
            self.fail(&format!("expected {what}, got {line:?}"));
        }
        line
    }

    /// The next output line, which must be exactly `expected`.
    fn expect_exact(&mut self, expected: &str) {
        self.expect_line(&format!("{expected:?}"), |line| line == expected);
    }

    /// Every line up to and including the first that starts with `prefix`.
    fn read_until(&mut self, prefix: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.next_line();
            let done = line.starts_with(prefix);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// Sends `isready` and returns the lines that came before `readyok`.
    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.read_until("readyok");
        let last = lines.pop();
        if last.as_deref() != Some("readyok") {
            self.fail(&format!("expected exactly 'readyok', got {last:?}"));
        }
        lines
    }

    /// Sends `isready` and requires that nothing at all came before `readyok`.
    fn sync_silent(&mut self, after: &str) {
        let lines = self.sync();
        if !lines.is_empty() {
            self.fail(&format!(
                "expected no output after {after:?}, got {lines:?}"
            ));
        }
    }

    /// Sends `line` and requires exactly one answer, an error, then `readyok`; returns it.
    fn expect_one_error(&mut self, line: &str) -> String {
        self.send(line);
        let lines = self.sync();
        if lines.len() != 1 || !is_error(&lines[0]) {
            self.fail(&format!(
                "expected exactly one error line for {line:?}, got {lines:?}"
            ));
        }
        lines[0].clone()
    }

    /// Sends a `go` command and reads up to its `bestmove`: (search info lines, bestmove
    /// line). Any other line on the way fails the test.
    fn go(&mut self, go: &str) -> (Vec<Info>, String) {
        self.send(go);
        let mut lines = self.read_until("bestmove");
        let bestmove = lines.pop().expect("read_until returns the bestmove line");
        let mut infos = Vec::new();
        for line in lines {
            match Info::parse(&line) {
                Some(info) => infos.push(info),
                None => self.fail(&format!("unexpected line during {go:?}: {line:?}")),
            }
        }
        (infos, bestmove)
    }

    /// The legal turns in the current position, from the `moves` command.
    fn legal_turns(&mut self) -> Vec<String> {
        self.send("moves");
        let line = self.next_line();
        line.split_whitespace().map(str::to_string).collect()
    }

    /// The current position, from the `fen` command.
    fn fen(&mut self) -> String {
        self.send("fen");
        self.next_line()
    }

    /// The answer to a UGI `query`.
    fn query(&mut self, what: &str) -> String {
        self.send(&format!("query {what}"));
        let line = self.expect_line("a 'response' line", |l| l.starts_with("response "));
        line["response ".len()..].to_string()
    }

    /// Closes the engine's input (end of file).
    fn close_stdin(&mut self) {
        self.transcript.push("> <end of input>".into());
        self.stdin = None;
    }

    /// Every line until the engine closes its output.
    fn rest_of_output(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            match self.lines.recv_timeout(HANG_GUARD) {
                Ok(line) => {
                    self.record("<", &line);
                    lines.push(line);
                }
                Err(RecvTimeoutError::Disconnected) => return lines,
                Err(RecvTimeoutError::Timeout) => {
                    self.fail("hang guard: the engine neither wrote nor closed its output")
                }
            }
        }
    }

    /// Waits for the process to end, failing the test after the hang guard.
    fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                Ok(None) => self.fail("hang guard: the engine did not exit"),
                Err(e) => self.fail(&format!("cannot wait for the engine: {e}")),
            }
        }
    }
}

impl Drop for Engine {
    /// Ends an engine the test left running and, when the test failed, prints what was
    /// said in both directions and what the engine wrote on standard error (a panic, say).
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if thread::panicking() {
            let stderr = self
                .stderr
                .take()
                .and_then(|reader| reader.join().ok())
                .unwrap_or_default();
            eprintln!(
                "--- transcript (> sent, < received) ---\n{}\n--- engine stderr ---\n{stderr}",
                self.transcript.join("\n")
            );
        }
    }
}

/// A search `info` line (not `info string`), reduced to the fields the tests check.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Info {
    depth: u32,
    multipv: u32,
    /// `cp N` or `mate N`.
    score: String,
    nodes: u64,
    pv: Vec<String>,
}

impl Info {
    /// Parses `info depth D ... score cp|mate N ... nodes N ... pv T...`; `None` for any
    /// other line. Every search info line must carry depth, score, nodes and a non-empty pv.
    fn parse(line: &str) -> Option<Info> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"info") || words.get(1) == Some(&"string") {
            return None;
        }
        let after = |key: &str| {
            let at = words.iter().position(|w| *w == key)?;
            words.get(at + 1).copied()
        };
        let score_at = words.iter().position(|w| *w == "score")?;
        let score = format!("{} {}", words.get(score_at + 1)?, words.get(score_at + 2)?);
        let pv_at = words.iter().position(|w| *w == "pv")?;
        let pv: Vec<String> = words[pv_at + 1..].iter().map(|w| w.to_string()).collect();
        if pv.is_empty() {
            return None;
        }
        Some(Info {
            depth: after("depth")?.parse().ok()?,
            multipv: after("multipv").map_or(Some(1), |m| m.parse().ok())?,
            score,
            nodes: after("nodes")?.parse().ok()?,
            pv,
        })
    }
}

/// The turn of a `bestmove T [ponder P]` line, and the ponder turn if any.
fn bestmove_parts(line: &str) -> (String, Option<String>) {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["bestmove", best] => (best.to_string(), None),
        ["bestmove", best, "ponder", reply] => (best.to_string(), Some(reply.to_string())),
        _ => panic!("malformed bestmove line {line:?}"),
    }
}

fn count_bestmoves(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("bestmove")).count()
}

/// Whether `line` is an error line: `info string error ...`, or one of the two forms that
/// the Fanorona web interface recognises for refused positions.
fn is_error(line: &str) -> bool {
    [
        "info string error ",
        "info string illegal move ",
        "info string invalid fen ",
    ]
    .iter()
    .any(|prefix| line.starts_with(prefix))
}

fn errors(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| is_error(l)).collect()
}

/// A fresh, empty directory for one test's files, removed again when dropped (also when
/// the test fails).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "vato-protocol-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("cannot create a temporary directory");
        TempDir(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Whether `line` is `YYYY-MM-DD hh:mm:ss.mmm <direction> <text>`.
fn is_log_line(line: &str, direction: &str, text: &str) -> bool {
    let Some((stamp, rest)) = line.split_at_checked(23) else {
        return false;
    };
    let stamp_ok = stamp.char_indices().all(|(i, c)| match i {
        4 | 7 => c == '-',
        10 => c == ' ',
        13 | 16 => c == ':',
        19 => c == '.',
        _ => c.is_ascii_digit(),
    });
    stamp_ok && rest == format!(" {direction} {text}")
}

// ---------------------------------------------------------------------------------------
// 1. Handshake
// ---------------------------------------------------------------------------------------

const OPTION_NAMES: [&str; 42] = [
    "Hash",
    "Clear Hash",
    "Threads",
    "MultiPV",
    "Ponder",
    "Move Overhead",
    "Debug Log File",
    "NoCaptureLimit",
    "MandatoryContinuation",
    "TablebasePath",
    "TablebaseStones",
    "Skill Level",
    "UCI_LimitStrength",
    "UCI_Elo",
    "UCI_ShowWDL",
    "UseNNUE",
    "EvalFile",
    "Variant",
    "Vela",
    "OwnBook",
    "BookFile",
    "BookVariety",
    "BookDepth",
    "ProofFile",
    "SearchAspirationDelta",
    "SearchReductionBase",
    "SearchReductionDivisor",
    "SearchReductionFirstTurn",
    "SearchReductionMinDepth",
    "SearchCaptureReductionFirstTurn",
    "SearchCaptureReductionMinDepth",
    "SearchQuiescencePlies",
    "SearchQuiescenceWidth",
    "SearchQuiescenceProbeStones",
    "SearchQuiescenceGreedyPlies",
    "SearchReverseFutilityMargin",
    "SearchReverseFutilityDepth",
    "SearchNullMoveReduction",
    "SearchLateMovePruning",
    "SearchFutilityMargin",
    "SearchProgressScale",
    "Contempt",
];

/// Sends `hello` (`uci` or `ugi`) and checks the identification, one declaration per
/// option and the final `ok` line.
fn check_hello(engine: &mut Engine, hello: &str, ok: &str) {
    engine.send(hello);
    let lines = engine.read_until(ok);
    assert_eq!(lines.last().map(String::as_str), Some(ok), "{lines:?}");
    assert!(lines[0].starts_with("id name Vato"), "{lines:?}");
    assert!(lines[1].starts_with("id author "), "{lines:?}");
    let options = &lines[2..lines.len() - 1];
    assert_eq!(options.len(), OPTION_NAMES.len(), "{options:?}");
    for name in OPTION_NAMES {
        let prefix = format!("option name {name} type ");
        let declared: Vec<_> = options.iter().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(
            declared.len(),
            1,
            "option {name} declared once: {options:?}"
        );
    }
    assert!(
        options.contains(&"option name Threads type spin default 1 min 1 max 256".to_string()),
        "{options:?}"
    );
    assert!(
        options.contains(&"option name Hash type spin default 16 min 1 max 65536".to_string()),
        "{options:?}"
    );
    assert!(
        options.contains(&"option name Clear Hash type button".to_string()),
        "{options:?}"
    );
    assert!(
        options.contains(&"option name Ponder type check default false".to_string()),
        "{options:?}"
    );
}

#[test]
fn uci_identifies_lists_every_option_and_ends_with_uciok() {
    let mut engine = Engine::start();
    check_hello(&mut engine, "uci", "uciok");
    engine.send("isready");
    engine.expect_exact("readyok");
}

#[test]
fn ugi_answers_like_uci_but_ends_with_ugiok() {
    let mut engine = Engine::start();
    check_hello(&mut engine, "ugi", "ugiok");
    check_hello(&mut engine, "uci", "uciok");
    engine.sync_silent("uci");
}

// ---------------------------------------------------------------------------------------
// 2. Options
// ---------------------------------------------------------------------------------------

#[test]
fn valid_setoption_is_silent_and_option_names_ignore_case() {
    let mut engine = Engine::start();
    for line in [
        "setoption name Hash value 32",
        "setoption name hash value 1",
        "setoption name HASH value 64",
        "setoption name Clear Hash",
        "setoption name clear HASH",
        "setoption name Threads value 1",
        "setoption name MultiPV value 1",
        "setoption name Ponder value false",
        "setoption name ponder value TRUE",
        "setoption name Move Overhead value 0",
        "setoption name move overhead value 5000",
        "setoption name Debug Log File value <empty>",
        "setoption name MandatoryContinuation value false",
        "setoption name NoCaptureLimit value 100",
    ] {
        engine.send(line);
        engine.sync_silent(line);
    }

    // The options really take effect under any spelling of their names.
    engine.send("setoption name nocapturelimit value 5");
    engine.send("position fen 4B4/9/9/9/4W4 w 5 3");
    engine.sync_silent("setoption / position");
    assert_eq!(engine.query("gameover"), "true");
    assert_eq!(engine.query("result"), "draw");
    engine.send("setoption name NOCAPTURELIMIT value 6");
    engine.sync_silent("setoption");
    assert_eq!(engine.query("gameover"), "false");
    assert_eq!(engine.query("result"), "none");

    engine.send("setoption name multipv value 2");
    engine.send(&format!("position fen {SMALL}"));
    let (infos, bestmove) = engine.go("go depth 1");
    let lines: Vec<u32> = infos.iter().map(|i| i.multipv).collect();
    assert_eq!(lines, [1, 2], "{infos:?}");
    assert_ne!(infos[0].pv[0], infos[1].pv[0], "{infos:?}");
    assert_eq!(bestmove_parts(&bestmove).0, infos[0].pv[0]);
}

#[test]
fn bad_setoption_gives_one_error_each_and_changes_nothing() {
    let mut engine = Engine::start();
    let cases: [(&str, &str); 12] = [
        ("setoption name Hash value 0", "Hash"),
        ("setoption name Hash value 65537", "Hash"),
        ("setoption name Hash value lots", "lots"),
        ("setoption name Hash", "Hash"),
        ("setoption name Threads value 0", "Threads"),
        ("setoption name Clear Hash value now", "Clear Hash"),
        ("setoption name Ponder value yes", "Ponder"),
        ("setoption name NoCaptureLimit value -1", "NoCaptureLimit"),
        ("setoption name NoCaptureLimit value 5.5", "NoCaptureLimit"),
        ("setoption name Bogus value 1", "Bogus"),
        ("setoption name Contempt", "Contempt"),
        ("setoption name", "setoption"),
    ];
    for (line, mentioned) in cases {
        let error = engine.expect_one_error(line);
        assert!(
            error.contains(mentioned),
            "error for {line:?} should mention {mentioned:?}: {error:?}"
        );
    }
    let dir = TempDir::new("bad-log");
    let missing = dir.join("no such directory").join("vato.log");
    let error = engine.expect_one_error(&format!(
        "setoption name Debug Log File value {}",
        missing.display()
    ));
    assert!(error.contains("cannot open debug log file"), "{error:?}");
    assert!(!missing.exists());

    // The rejected NoCaptureLimit values left the default (100) in force.
    engine.send("position fen 4B4/9/9/9/4W4 w 99 50");
    assert_eq!(engine.query("gameover"), "false");
    engine.send("position fen 4B4/9/9/9/4W4 w 100 50");
    assert_eq!(engine.query("gameover"), "true");
    assert_eq!(engine.query("result"), "draw");

    // Still alive and searching.
    engine.send("position startpos");
    let (_, bestmove) = engine.go("go depth 1");
    let legal = engine.legal_turns();
    assert!(
        legal.contains(&bestmove_parts(&bestmove).0),
        "{bestmove} not in {legal:?}"
    );
}

// ---------------------------------------------------------------------------------------
// 3-5. Searches, stop and the busy state
// ---------------------------------------------------------------------------------------

#[test]
fn go_infinite_answers_isready_and_waits_for_stop() {
    let mut engine = Engine::start();
    engine.send("position startpos moves d3e3W");
    let legal = engine.legal_turns();
    engine.send("go infinite");
    for _ in 0..3 {
        let lines = engine.sync();
        assert_eq!(
            count_bestmoves(&lines),
            0,
            "bestmove before stop: {lines:?}"
        );
        assert!(errors(&lines).is_empty(), "{lines:?}");
    }
    engine.send("stop");
    let lines = engine.sync();
    assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
    let bestmove = lines.last().expect("a bestmove line");
    assert!(
        bestmove.starts_with("bestmove "),
        "bestmove comes last: {lines:?}"
    );
    let (best, ponder) = bestmove_parts(bestmove);
    assert_eq!(ponder, None, "Ponder is off");
    assert!(legal.contains(&best), "{best} is not among {legal:?}");
    // Nothing more arrives afterwards.
    engine.sync_silent("stop");
}

#[test]
fn every_go_gives_exactly_one_bestmove_even_with_stop() {
    let mut engine = Engine::start();
    let legal = engine.legal_turns();
    for go in [
        "go depth 1",
        "go nodes 1000",
        "go movetime 50",
        "go infinite",
        "go depth 2 nodes 2000 movetime 1000",
    ] {
        engine.send("position startpos");
        engine.send(go);
        engine.send("stop");
        let lines = engine.sync();
        assert_eq!(count_bestmoves(&lines), 1, "{go}: {lines:?}");
        assert!(errors(&lines).is_empty(), "{go}: {lines:?}");
        let best = bestmove_parts(lines.last().expect("lines")).0;
        assert!(legal.contains(&best), "{go}: {best} not in {legal:?}");
        // A second stop, with no search running, says nothing.
        engine.send("stop");
        engine.sync_silent("stop");
    }
    // The same searches left alone also end with one bestmove each.
    for go in ["go depth 1", "go nodes 1000", "go movetime 50"] {
        let (_, bestmove) = engine.go(go);
        assert!(
            legal.contains(&bestmove_parts(&bestmove).0),
            "{go}: {bestmove}"
        );
        engine.sync_silent("the finished search");
    }
}

#[test]
fn stop_and_ponderhit_when_idle_print_nothing() {
    let mut engine = Engine::start();
    engine.send("stop");
    engine.send("ponderhit");
    engine.send("stop");
    engine.sync_silent("stop / ponderhit");
}

#[test]
fn commands_during_a_search_are_refused_as_busy() {
    let mut engine = Engine::start();
    engine.send("position startpos moves d2e3A");
    let before = engine.fen();
    assert_ne!(before, START_FEN);
    engine.send("go infinite");
    let refused = [
        "position startpos",
        "go depth 1",
        "setoption name Hash value 1",
        "ucinewgame",
        "flip",
        "perft 1",
    ];
    for line in refused {
        engine.send(line);
        let lines = engine.sync();
        let errors = errors(&lines);
        assert_eq!(errors.len(), 1, "{line:?}: {lines:?}");
        assert!(
            errors[0].starts_with("info string error busy"),
            "{line:?}: {errors:?}"
        );
        assert_eq!(count_bestmoves(&lines), 0, "{line:?}: {lines:?}");
        // Nothing but search info besides the error: the command was ignored.
        for other in lines.iter().filter(|l| !is_error(l)) {
            assert!(Info::parse(other).is_some(), "{line:?}: {other:?}");
        }
    }
    engine.send("stop");
    let lines = engine.sync();
    assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
    assert_eq!(
        engine.fen(),
        before,
        "the busy 'position' must have been ignored"
    );
}

/// The lines of a batch that do not depend on the clock: every line but `info` lines,
/// and of those the depth, score, nodes and principal variation.
fn timeless(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|line| match Info::parse(line) {
            Some(info) => format!(
                "info depth {} score {} nodes {} pv {}",
                info.depth,
                info.score,
                info.nodes,
                info.pv.join(" ")
            ),
            None => line.clone(),
        })
        .collect()
}

/// A batch of searches with commands between them: `go` lines that end by themselves.
const BATCH: &[&str] = &[
    "position startpos",
    "go depth 4",
    "position startpos moves d3e3W",
    "d",
    "go depth 4",
    "fen",
    "position fen 9/9/2B6/9/B1W6 w",
    "go nodes 3000",
    "moves",
];

#[test]
fn a_piped_batch_answers_every_search_in_order_as_typed() {
    // Typed: each line sent once the answer of the one before has come.
    let mut typed = Engine::start();
    let mut expected = Vec::new();
    for line in BATCH {
        if line.starts_with("go ") {
            typed.send(line);
            expected.extend(typed.read_until("bestmove"));
        } else {
            typed.send(line);
            expected.extend(typed.sync());
        }
    }
    assert_eq!(count_bestmoves(&expected), 3, "{expected:?}");
    // Piped: every line at once, then the end of input.
    let piped = run_batch(BATCH);
    assert_eq!(timeless(&piped), timeless(&expected));
    // The same with the lines sent while the first search runs, then `quit` once the
    // last search has answered.
    let mut engine = Engine::start();
    for line in BATCH {
        engine.send(line);
    }
    let mut lines = Vec::new();
    while count_bestmoves(&lines) < 3 {
        lines.push(engine.next_line());
    }
    lines.extend(engine.sync());
    assert_eq!(timeless(&lines), timeless(&expected));
}

#[test]
fn isready_and_reading_commands_answer_at_once_while_commands_wait() {
    let mut engine = Engine::start();
    engine.send("go depth 60");
    // Nothing waits yet: a reading command answers with the searched position (after
    // whatever info lines the running search prints first).
    engine.send("fen");
    let fen = loop {
        let line = engine.next_line();
        if Info::parse(&line).is_none() {
            break line;
        }
    };
    assert_eq!(fen, START_FEN);
    engine.send("position startpos moves d3e3W");
    engine.send("fen");
    engine.send("go depth 60");
    for _ in 0..3 {
        let lines = engine.sync();
        assert!(
            lines.iter().all(|l| Info::parse(l).is_some()),
            "readyok at once, nothing but the search's info: {lines:?}"
        );
    }
    // The search may still be printing (on a loaded machine its depth-2 line can come
    // this late): `debug on` itself adds nothing else.
    engine.send("debug on");
    let lines = engine.sync();
    assert!(
        lines.iter().all(|l| Info::parse(l).is_some()),
        "nothing but the search's info after 'debug on': {lines:?}"
    );
    // `stop` ends the running search only: the waiting commands then run, in order.
    engine.send("stop");
    let first = engine.read_until("bestmove");
    assert_eq!(count_bestmoves(&first), 1, "{first:?}");
    let fen = engine.expect_line("the waiting 'fen'", |l| !l.starts_with("info "));
    assert_ne!(fen, START_FEN, "the waiting position was set first");
    let lines = engine.sync();
    assert_eq!(
        count_bestmoves(&lines),
        0,
        "the second search runs: {lines:?}"
    );
    engine.send("stop");
    let second = engine.read_until("bestmove");
    let legal_after = {
        engine.send("moves");
        engine.next_line()
    };
    let best = bestmove_parts(second.last().expect("a bestmove")).0;
    assert!(
        legal_after.split_whitespace().any(|t| t == best),
        "{best} is a turn of the waiting position: {legal_after}"
    );
    engine.sync_silent("the second stop");
}

#[test]
fn quit_answers_every_waiting_go_at_once_and_exits() {
    let mut engine = Engine::start();
    engine.send("go depth 60");
    engine.send("position startpos moves d3e3W");
    engine.send("go depth 60");
    engine.send("go movetime 600000");
    engine.send("quit");
    let rest = engine.rest_of_output();
    assert_eq!(count_bestmoves(&rest), 3, "{rest:?}");
    assert!(errors(&rest).is_empty(), "{rest:?}");
    assert!(engine.wait_exit().success());
}

#[test]
fn the_end_of_input_answers_every_waiting_go() {
    let lines = run_batch(&[
        "go depth 3",
        "position startpos moves d3e3W",
        "go depth 3",
        "go infinite",
        "go nodes 2000",
    ]);
    // The `go infinite` taken from the queue is stopped at once; the `go nodes` after it
    // meets that search, as if typed then, and is refused as busy.
    assert_eq!(count_bestmoves(&lines), 3, "{lines:?}");
    let errors = errors(&lines);
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(errors[0].contains("busy"), "{errors:?}");
}

#[test]
fn a_waiting_go_infinite_keeps_the_busy_answer_for_what_follows_it() {
    let mut engine = Engine::start();
    engine.send("go depth 60");
    engine.send("go infinite");
    engine.send("position startpos moves d3e3W");
    let lines = engine.sync();
    assert!(lines.iter().all(|l| Info::parse(l).is_some()), "{lines:?}");
    engine.send("stop");
    // The first search answers; the infinite one starts, and the position sent after it
    // is refused as it would be if typed now.
    let lines = engine.read_until("bestmove");
    assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(errors(&lines)[0].contains("busy"), "{lines:?}");
    assert_eq!(count_bestmoves(&lines), 0, "{lines:?}");
    engine.send("stop");
    engine.read_until("bestmove");
    assert_eq!(
        engine.fen(),
        START_FEN,
        "the refused position changed nothing"
    );
}

// ---------------------------------------------------------------------------------------
// 6. Finished positions
// ---------------------------------------------------------------------------------------

#[test]
fn finished_positions_give_bestmove_none_after_mate_0() {
    let mut engine = Engine::start();
    for fen in [BLACK_BLOCKED, BLACK_WIPED_OUT] {
        engine.send(&format!("position fen {fen}"));
        assert_eq!(engine.legal_turns(), Vec::<String>::new(), "{fen}");
        for go in ["go depth 1", "go nodes 1000", "go movetime 50"] {
            engine.send(go);
            engine.expect_exact("info depth 0 score mate 0");
            engine.expect_exact("bestmove (none)");
            engine.sync_silent(go);
        }
        assert_eq!(engine.query("gameover"), "true", "{fen}");
        assert_eq!(engine.query("result"), "p1win", "{fen}");
        assert_eq!(engine.query("p1turn"), "false", "{fen}");
    }
}

// ---------------------------------------------------------------------------------------
// 7. Illegal moves in `position`
// ---------------------------------------------------------------------------------------

#[test]
fn an_illegal_move_leaves_the_previous_position() {
    let mut engine = Engine::start();
    engine.send("position startpos moves d3e3W");
    let before = engine.fen();
    assert_ne!(before, START_FEN);
    assert!(before.ends_with(" b 0 1"), "{before}");

    let cases = [
        ("position startpos moves d3e3W zz9", 2, "zz9"),
        ("position startpos moves a1a2", 1, "a1a2"),
        ("position startpos moves d3e3", 1, "d3e3"),
        ("position startpos moves d2e3A d2e3A", 2, "d2e3A"),
        ("position startpos moves e2e3A Q", 2, "Q"),
        (
            &format!("position fen {BLACK_BLOCKED} moves a1b1"),
            1,
            "a1b1",
        ),
    ];
    for (line, index, turn) in cases {
        let error = engine.expect_one_error(line);
        // A turn after the end of the game is refused as such, any other as illegal; the
        // turn comes right after the prefix, where the web interface reads it.
        let named = format!("info string illegal move {turn} (turn {index}): ");
        assert!(error.starts_with(&named), "{line:?}: {error:?}");
        assert_eq!(engine.fen(), before, "after {line:?}");
    }
    for (line, prefix) in [
        (
            "position fen garbage moves d3e3W",
            "info string invalid fen 'garbage': ",
        ),
        (
            "position fen 9/9/9/9 w",
            "info string invalid fen '9/9/9/9 w': ",
        ),
        ("position startpos nonsense", "info string error position: "),
        ("position", "info string error position: "),
    ] {
        let error = engine.expect_one_error(line);
        assert!(error.starts_with(prefix), "{error:?}");
        assert_eq!(engine.fen(), before, "after {line:?}");
    }
    // Turns are read liberally: any case, dashes, the kind left out when only one fits.
    engine.send("position startpos moves F2-E3");
    engine.sync_silent("position");
    let liberal = engine.fen();
    engine.send("position startpos moves f2e3A");
    assert_eq!(engine.fen(), liberal);
}

// ---------------------------------------------------------------------------------------
// 8. Garbage
// ---------------------------------------------------------------------------------------

#[test]
fn garbage_lines_give_one_error_each_and_the_engine_survives() {
    let mut engine = Engine::start();
    for silent in [
        "",
        "   ",
        "\t \t",
        "# comment",
        "#",
        "   # indented comment",
    ] {
        engine.send(silent);
        engine.sync_silent(silent);
    }
    let long_word = "x".repeat(100_000);
    let many_words = format!("isready{}", " x".repeat(50_000));
    let malformed: Vec<String> = [
        "bogus",
        "UCI",
        "Isready",
        "isready now",
        "uci please",
        "go depth x",
        "go depth",
        "go depth -1",
        "go fast",
        "go nodes 1e6",
        "go searchmoves",
        "go searchmoves zz9",
        "go depth 1 searchmoves d3e3",
        "position fen garbage",
        "position start",
        "setoption",
        "setoption Hash 3",
        "query",
        "query winner",
        "query result now",
        "perft",
        "perft x",
        "perft 1 twice",
        "moves zz",
        "moves d3 d4",
        "bench x",
        "debug maybe",
        "debug on off",
        "stop now",
        "quit now",
        "héllo wörld ✓",
        "Фанорона",
        "position fen ☺☺☺ w",
        "moves ü",
        "\u{0}",
        "\u{7}\u{1b}[31m",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([long_word, many_words])
    .collect();
    for line in &malformed {
        engine.expect_one_error(line);
    }
    // Still alive, still at the start, still searching.
    assert_eq!(engine.fen(), START_FEN);
    let legal = engine.legal_turns();
    let (_, bestmove) = engine.go("go depth 1");
    assert!(legal.contains(&bestmove_parts(&bestmove).0), "{bestmove}");
    engine.sync_silent("go depth 1");
}

#[test]
fn a_line_that_is_not_utf8_is_an_error_not_the_end() {
    let mut engine = Engine::start();
    engine.send_bytes(b"\xe9t\xe9");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    engine.sync_silent("isready");
}

// ---------------------------------------------------------------------------------------
// 9. End of input and quit
// ---------------------------------------------------------------------------------------

#[test]
fn end_of_input_exits_with_status_0() {
    let mut engine = Engine::start();
    engine.sync_silent("start");
    engine.close_stdin();
    let rest = engine.rest_of_output();
    assert!(rest.is_empty(), "{rest:?}");
    let status = engine.wait_exit();
    assert!(status.success(), "{status}");
}

#[test]
fn end_of_input_during_go_infinite_prints_bestmove_and_exits_0() {
    let mut engine = Engine::start();
    let legal = engine.legal_turns();
    engine.send("go infinite");
    engine.sync();
    engine.close_stdin();
    let rest = engine.rest_of_output();
    assert_eq!(count_bestmoves(&rest), 1, "{rest:?}");
    let last = rest.last().expect("a bestmove line");
    assert!(legal.contains(&bestmove_parts(last).0), "{last}");
    let status = engine.wait_exit();
    assert!(status.success(), "{status}");
}

#[test]
fn quit_exits_with_status_0_even_with_input_open() {
    let mut engine = Engine::start();
    engine.sync_silent("start");
    engine.send("quit");
    let rest = engine.rest_of_output();
    assert!(rest.is_empty(), "{rest:?}");
    let status = engine.wait_exit();
    assert!(status.success(), "{status}");
}

#[test]
fn quit_during_go_infinite_prints_bestmove_and_exits_0() {
    let mut engine = Engine::start();
    engine.send("go infinite");
    engine.sync();
    engine.send("quit");
    let rest = engine.rest_of_output();
    assert_eq!(count_bestmoves(&rest), 1, "{rest:?}");
    let status = engine.wait_exit();
    assert!(status.success(), "{status}");
}

#[test]
fn quit_during_go_ponder_prints_bestmove_and_exits_0() {
    let mut engine = Engine::start();
    engine.send(&format!("position fen {SMALL}"));
    engine.send("go ponder depth 2");
    engine.sync();
    engine.send("quit");
    let rest = engine.rest_of_output();
    assert_eq!(count_bestmoves(&rest), 1, "{rest:?}");
    let status = engine.wait_exit();
    assert!(status.success(), "{status}");
}

// ---------------------------------------------------------------------------------------
// 10. UGI
// ---------------------------------------------------------------------------------------

#[test]
fn ugi_queries_and_aliases() {
    let mut engine = Engine::start();
    assert_eq!(engine.query("p1turn"), "true");
    assert_eq!(engine.query("gameover"), "false");
    assert_eq!(engine.query("result"), "none");

    engine.send("position startpos moves d3e3W");
    assert_eq!(engine.query("p1turn"), "false");
    assert_eq!(engine.query("gameover"), "false");

    engine.send(&format!("position fen {BLACK_WIPED_OUT}"));
    assert_eq!(engine.query("gameover"), "true");
    assert_eq!(engine.query("result"), "p1win");

    // White to move with no stones: Black has won.
    engine.send("position fen 4B4/9/9/9/9 w");
    assert_eq!(engine.query("gameover"), "true");
    assert_eq!(engine.query("result"), "p2win");
    assert_eq!(engine.query("p1turn"), "true");

    // uginewgame (like ucinewgame) is accepted silently and goes back to the start.
    engine.send("uginewgame");
    engine.sync_silent("uginewgame");
    assert_eq!(engine.fen(), START_FEN);
    engine.send("position startpos moves d3e3W");
    engine.send("ucinewgame");
    engine.sync_silent("ucinewgame");
    assert_eq!(engine.fen(), START_FEN);

    let legal = engine.legal_turns();
    for go in [
        "go p1time 1000 p2time 1000",
        "go p1time 1000 p2time 1000 p1inc 10 p2inc 10",
        "go wtime 1000 btime 1000 movestogo 10",
    ] {
        let (_, bestmove) = engine.go(go);
        assert!(
            legal.contains(&bestmove_parts(&bestmove).0),
            "{go}: {bestmove}"
        );
        engine.sync_silent(go);
    }
    // Black's clock counts when Black is to move.
    engine.send("position startpos moves d3e3W");
    let legal = engine.legal_turns();
    let (_, bestmove) = engine.go("go p1time 0 p2time 1000");
    assert!(legal.contains(&bestmove_parts(&bestmove).0), "{bestmove}");
}

// ---------------------------------------------------------------------------------------
// 11. Search output and determinism
// ---------------------------------------------------------------------------------------

/// Checks that a finished search reported something and that the bestmove is the first
/// turn of the last main line.
fn check_search(infos: &[Info], bestmove: &str, legal: &[String]) {
    assert!(!infos.is_empty(), "no info line before {bestmove:?}");
    for pair in infos.windows(2) {
        assert!(pair[0].depth <= pair[1].depth, "{infos:?}");
        assert!(pair[0].nodes <= pair[1].nodes, "{infos:?}");
    }
    for info in infos {
        assert!(
            info.score.starts_with("cp ") || info.score.starts_with("mate "),
            "{info:?}"
        );
        assert!(legal.contains(&info.pv[0]), "{info:?} starts illegally");
    }
    let (best, _) = bestmove_parts(bestmove);
    assert_eq!(best, infos.last().expect("infos").pv[0], "{infos:?}");
}

#[test]
fn go_depth_2_reports_info_then_one_bestmove() {
    let mut engine = Engine::start();
    let legal = engine.legal_turns();
    let (infos, bestmove) = engine.go("go depth 2");
    check_search(&infos, &bestmove, &legal);
    assert_eq!(infos.first().expect("infos").depth, 1, "{infos:?}");
    assert_eq!(infos.last().expect("infos").depth, 2, "{infos:?}");
    engine.sync_silent("go depth 2");
}

#[test]
fn go_nodes_500_reports_info_within_the_limit_then_one_bestmove() {
    let mut engine = Engine::start();
    engine.send(&format!("position fen {SMALL}"));
    let legal = engine.legal_turns();
    let (infos, bestmove) = engine.go("go nodes 500");
    check_search(&infos, &bestmove, &legal);
    for info in &infos {
        assert!(info.nodes <= 500, "{info:?}");
    }
    engine.sync_silent("go nodes 500");
}

#[test]
fn go_nodes_500_from_the_start_reports_info() {
    let mut engine = Engine::start();
    let legal = engine.legal_turns();
    let (infos, bestmove) = engine.go("go nodes 500");
    check_search(&infos, &bestmove, &legal);
}

#[test]
fn go_nodes_is_deterministic() {
    let mut engine = Engine::start();
    // Exactly the brief's case: the same node-limited search twice from the start. A GUI
    // starts each game with ucinewgame; clearing the (future) hash table between the two
    // runs keeps the comparison about the search, not about what a table remembers.
    let (first_infos, first) = engine.go("go nodes 500");
    engine.send("setoption name Clear Hash");
    engine.send("ucinewgame");
    engine.send("position startpos");
    let (second_infos, second) = engine.go("go nodes 500");
    assert_eq!(first, second);
    assert_eq!(first_infos, second_infos);

    // Where the limit allows several iterations, every reported line repeats exactly.
    let mut runs = Vec::new();
    for _ in 0..2 {
        engine.send("setoption name Clear Hash");
        engine.send("ucinewgame");
        engine.send(&format!("position fen {SMALL}"));
        runs.push(engine.go("go nodes 500"));
    }
    assert!(runs[0].0.len() >= 2, "{:?}", runs[0]);
    assert_eq!(runs[0], runs[1]);

    // A second engine process agrees too.
    let mut other = Engine::start();
    other.send(&format!("position fen {SMALL}"));
    assert_eq!(other.go("go nodes 500"), runs[0]);
}

#[test]
fn multipv_and_searchmoves_shape_the_output() {
    let mut engine = Engine::start();
    let legal = engine.legal_turns();
    assert_eq!(legal.len(), 5);
    engine.send("setoption name MultiPV value 3");
    let (infos, bestmove) = engine.go("go depth 1");
    let numbers: Vec<u32> = infos.iter().map(|i| i.multipv).collect();
    assert_eq!(numbers, [1, 2, 3], "{infos:?}");
    let mut firsts: Vec<&String> = infos.iter().map(|i| &i.pv[0]).collect();
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "three different lines: {infos:?}");
    assert_eq!(bestmove_parts(&bestmove).0, infos[0].pv[0]);

    // More lines than turns: one line per turn.
    engine.send("setoption name MultiPV value 256");
    let (infos, _) = engine.go("go depth 1");
    assert_eq!(infos.len(), 5, "{infos:?}");

    engine.send("setoption name MultiPV value 1");
    for only in ["d3e3W", "e2e3A"] {
        let (infos, bestmove) = engine.go(&format!("go depth 2 searchmoves {only}"));
        assert_eq!(bestmove, format!("bestmove {only}"));
        assert!(infos.iter().all(|i| i.pv[0] == only), "{infos:?}");
    }
}

#[test]
fn debug_on_adds_info_strings_and_off_removes_them() {
    let mut engine = Engine::start();
    engine.send(&format!("position fen {SMALL}"));
    engine.send("debug on");
    engine.send("go depth 1");
    let lines = engine.read_until("bestmove");
    assert!(
        lines[0].starts_with("info string debug: searching "),
        "{lines:?}"
    );
    engine.send("debug off");
    engine.go("go depth 1");
    // `debug` alone toggles.
    engine.send("debug");
    engine.send("go depth 1");
    let lines = engine.read_until("bestmove");
    assert!(lines[0].starts_with("info string debug: "), "{lines:?}");
    engine.send("debug");
    engine.go("go depth 1");
}

// ---------------------------------------------------------------------------------------
// 12. moves and perft
// ---------------------------------------------------------------------------------------

#[test]
fn moves_lists_the_legal_turns() {
    let mut engine = Engine::start();
    engine.send("moves");
    engine.expect_exact("d2e3A d3e3A d3e3W e2e3A f2e3A");
    engine.send("moves d3");
    engine.expect_exact("d3e3A d3e3W");
    engine.send("moves d3e3");
    engine.expect_exact("d3e3A d3e3W");
    engine.send("moves D3-E3W");
    engine.expect_exact("d3e3W");
    engine.send("moves a1");
    engine.expect_exact("");
    engine.sync_silent("moves");
}

#[test]
fn perft_counts_and_divides() {
    let mut engine = Engine::start();
    engine.send("perft 1");
    engine.expect_exact("Nodes searched: 5");
    engine.send("perft 3");
    engine.expect_exact("Nodes searched: 724");

    engine.send("perft 2 divide");
    let lines = engine.read_until("Nodes searched:");
    assert_eq!(lines.last().map(String::as_str), Some("Nodes searched: 39"));
    let blank = lines.len() - 2;
    assert_eq!(lines[blank], "", "a blank line before the total: {lines:?}");
    let divide = &lines[..blank];
    let mut sorted = divide.to_vec();
    sorted.sort();
    assert_eq!(divide, sorted.as_slice(), "sorted");
    let mut turns = Vec::new();
    let mut total = 0;
    for line in divide {
        let (turn, count) = line.split_once(": ").expect("'turn: count'");
        turns.push(turn.to_string());
        total += count.parse::<u64>().expect("a count");
    }
    assert_eq!(total, 39);
    assert_eq!(turns, ["d2e3A", "d3e3A", "d3e3W", "e2e3A", "f2e3A"]);
    assert_eq!(divide[2], "d3e3W: 18");
    engine.sync_silent("perft");

    // perft follows the position.
    engine.send(&format!("position fen {BLACK_BLOCKED}"));
    engine.send("perft 2");
    engine.expect_exact("Nodes searched: 0");
}

// ---------------------------------------------------------------------------------------
// 13. Pondering
// ---------------------------------------------------------------------------------------

#[test]
fn ponder_option_adds_the_expected_reply_to_bestmove() {
    let mut engine = Engine::start();
    let legal = engine.legal_turns();
    engine.send("setoption name Ponder value true");
    let (infos, bestmove) = engine.go("go depth 3");
    check_search(&infos, &bestmove, &legal);
    let pv = &infos.last().expect("infos").pv;
    assert!(pv.len() >= 2, "a depth 3 main line has a reply: {pv:?}");
    let (best, ponder) = bestmove_parts(&bestmove);
    assert_eq!(best, pv[0]);
    let reply = ponder.unwrap_or_else(|| panic!("no ponder turn in {bestmove:?}"));
    assert_eq!(reply, pv[1]);
    engine.send(&format!("position startpos moves {best}"));
    let replies = engine.legal_turns();
    assert!(replies.contains(&reply), "{reply} not in {replies:?}");

    // Without the option, the same search names no ponder turn.
    engine.send("setoption name Ponder value false");
    engine.send("position startpos");
    let (_, bestmove) = engine.go("go depth 3");
    let (best, ponder) = bestmove_parts(&bestmove);
    assert_eq!(ponder, None, "{bestmove}");
    assert!(legal.contains(&best), "{best} not in {legal:?}");
}

#[test]
fn a_ugi_session_writes_bestmove_without_ponder() {
    // UGI runners read `bestmove <turn>` only; a third word made one wait forever.
    let mut engine = Engine::start();
    engine.send("ugi");
    engine.read_until("ugiok");
    engine.send("setoption name Ponder value true");
    for go in ["go depth 3", "go p1time 2000 p2time 2000"] {
        let (_, bestmove) = engine.go(go);
        assert_eq!(bestmove.split_whitespace().count(), 2, "{go}: {bestmove}");
        assert_eq!(bestmove_parts(&bestmove).1, None, "{go}: {bestmove}");
    }

    // A later `uci` opens a UCI session again, which names the expected reply.
    engine.send("uci");
    engine.read_until("uciok");
    let (infos, bestmove) = engine.go("go depth 3");
    let pv = &infos.last().expect("infos").pv;
    assert_eq!(
        bestmove_parts(&bestmove).1.as_ref(),
        pv.get(1),
        "{bestmove}"
    );
}

#[test]
fn go_ponder_waits_for_ponderhit() {
    let mut engine = Engine::start();
    engine.send("setoption name Ponder value true");
    engine.send(&format!("position fen {SMALL}"));
    let legal = engine.legal_turns();
    engine.send("go ponder depth 2");
    for _ in 0..3 {
        let lines = engine.sync();
        assert_eq!(
            count_bestmoves(&lines),
            0,
            "bestmove while pondering: {lines:?}"
        );
    }
    engine.send("ponderhit");
    let lines = engine.read_until("bestmove");
    let best = bestmove_parts(lines.last().expect("bestmove")).0;
    assert!(legal.contains(&best), "{best} not in {legal:?}");
    engine.sync_silent("the finished ponder search");
}

#[test]
fn go_ponder_stops_on_stop() {
    let mut engine = Engine::start();
    let legal = engine.legal_turns();
    engine.send("go ponder wtime 1000 btime 1000");
    let lines = engine.sync();
    assert_eq!(count_bestmoves(&lines), 0, "{lines:?}");
    engine.send("stop");
    let lines = engine.sync();
    assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
    let best = bestmove_parts(lines.last().expect("bestmove")).0;
    assert!(legal.contains(&best), "{best} not in {legal:?}");
}

// ---------------------------------------------------------------------------------------
// 14. Debug log file
// ---------------------------------------------------------------------------------------

#[test]
fn debug_log_file_records_input_and_output_with_time_stamps() {
    let dir = TempDir::new("log");
    let path = dir.join("vato debug.log");
    fs::write(&path, "earlier line\n").expect("cannot write the log file");

    let mut engine = Engine::start();
    engine.send(&format!(
        "setoption name Debug Log File value {}",
        path.display()
    ));
    engine.sync_silent("setoption Debug Log File");
    engine.send("bogus");
    engine.sync();
    // Each output line is logged right after it is written: one more round trip makes
    // sure the session has got past the previous answers.
    engine.sync();
    engine.send("setoption name debug log file value <empty>");
    engine.sync_silent("closing the log");
    engine.send("not logged");
    engine.sync();

    let text = fs::read_to_string(&path).expect("cannot read the log file");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "earlier line", "the log is appended to: {text}");
    let expected = [
        (">>", "isready".to_string()),
        ("<<", "readyok".to_string()),
        (">>", "bogus".to_string()),
        (
            "<<",
            "info string error unknown command 'bogus' (try 'help')".to_string(),
        ),
        (">>", "isready".to_string()),
        ("<<", "readyok".to_string()),
        (">>", "isready".to_string()),
        ("<<", "readyok".to_string()),
        (
            ">>",
            "setoption name debug log file value <empty>".to_string(),
        ),
    ];
    assert_eq!(lines.len(), 1 + expected.len(), "{text}");
    for (line, (direction, content)) in lines[1..].iter().zip(&expected) {
        assert!(
            is_log_line(line, direction, content),
            "expected '<time> {direction} {content}', got {line:?}\n{text}"
        );
    }
    assert!(!text.contains("not logged"), "{text}");
}

#[test]
fn go_infinite_in_a_finished_position_waits_for_stop() {
    let mut engine = Engine::start();
    engine.send(&format!("position fen {BLACK_WIPED_OUT}"));
    engine.send("go infinite");
    let lines = engine.sync();
    assert_eq!(
        count_bestmoves(&lines),
        0,
        "bestmove before stop: {lines:?}"
    );
    engine.send("stop");
    let lines = engine.sync();
    assert_eq!(lines.last().map(String::as_str), Some("bestmove (none)"));
}

// ---------------------------------------------------------------------------------------
// 15. The Fanorona web interface's dialect, and commands that read during a search
// ---------------------------------------------------------------------------------------

/// Sends `batch` at once, closes the input, and returns every line written after it.
fn run_batch(batch: &[&str]) -> Vec<String> {
    let mut engine = Engine::start();
    for line in batch {
        engine.send(line);
    }
    engine.close_stdin();
    let lines = engine.rest_of_output();
    let status = engine.wait_exit();
    assert!(status.success(), "{status}");
    lines
}

/// What the web interface takes from a state batch: the `Fen: ` line, the line before
/// the `status ` line (the bare list of legal turns) and the status itself.
fn interface_state(lines: &[String]) -> (String, Vec<String>, String) {
    let fen = lines
        .iter()
        .find_map(|l| l.strip_prefix("Fen: "))
        .unwrap_or_else(|| panic!("no 'Fen: ' line: {lines:?}"));
    let index = lines
        .iter()
        .position(|l| l.starts_with("status "))
        .unwrap_or_else(|| panic!("no 'status ' line: {lines:?}"));
    assert!(index > 0, "{lines:?}");
    let legal = lines[index - 1]
        .split_whitespace()
        .map(String::from)
        .collect();
    (
        fen.to_string(),
        legal,
        lines[index]["status ".len()..].to_string(),
    )
}

#[test]
fn the_web_interface_state_batch_gets_the_answers_it_reads() {
    // The exact batch the interface pipes for the board state.
    let lines = run_batch(&[
        "position startpos moves d3e3W",
        "d",
        "moves",
        "status",
        "quit",
    ]);
    let (fen, legal, status) = interface_state(&lines);
    assert_eq!(
        fen,
        "BBBBBBBBB/BBBBBBBBB/BW2WBWBW/WWWWWWWWW/WWWWWWWWW b 0 1"
    );
    assert_eq!(status, "ongoing");
    assert!(
        !legal.is_empty() && legal.iter().all(|t| t != "moves"),
        "{legal:?}"
    );
    assert!(lines.iter().all(|l| !is_error(l)), "{lines:?}");

    // A won game: Black has no legal turn.
    let lines = run_batch(&[
        &format!("position fen {BLACK_BLOCKED}"),
        "d",
        "moves",
        "status",
        "quit",
    ]);
    let (_, legal, status) = interface_state(&lines);
    assert!(legal.is_empty(), "{legal:?}");
    assert_eq!(status, "white wins");

    // A drawn game: the no-capture limit (2 turns) reached by two paikas.
    let lines = run_batch(&[
        "setoption name NoCaptureLimit value 2",
        "position fen 9/9/4B4/9/W8 w moves a1a2 e3e4",
        "status",
        "quit",
    ]);
    assert_eq!(lines, ["status draw (no-capture limit)"]);
}

#[test]
fn refused_positions_start_with_the_phrases_the_web_interface_knows() {
    let lines = run_batch(&["position startpos moves d3e3W e5e4", "d", "quit"]);
    let errors = errors(&lines);
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(
        errors[0].starts_with("info string illegal move e5e4 (turn 2): "),
        "{errors:?}"
    );
    let (fen, _, _) = (lines.iter().find_map(|l| l.strip_prefix("Fen: ")), (), ());
    assert_eq!(fen, Some(START_FEN), "the position stays as it was");

    let lines = run_batch(&["position fen 9/9/9/9/9/9 w", "quit"]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string invalid fen '9/9/9/9/9/9 w': "),
        "{lines:?}"
    );
}

#[test]
fn the_web_interface_options_are_understood() {
    let mut engine = Engine::start();
    for line in [
        "setoption name UseNNUE value false",
        "setoption name OwnBook value false",
        "setoption name Variant value tsivy",
        "setoption name Vela value none",
        "setoption name MultiPV value 3",
        "setoption name MandatoryContinuation value false",
    ] {
        engine.send(line);
        engine.sync_silent(line);
    }
    let error = engine.expect_one_error("setoption name OwnBook value maybe");
    assert!(error.contains("needs true or false"), "{error}");
}

/// A book in the web interface's text form: White's first turn d2e3A (the weakest of the
/// search's choices, so that only the book plays it) and, after f2e3A, Black's reply f3f2A.
const WEB_BOOK: &str = "-\td2e3A 7 f2e3A 0\nf2e3A\tf3f2A 3 c3d4W 0\n";

/// The `book ...` lines of the `book` command.
fn book_lines(engine: &mut Engine) -> Vec<String> {
    engine.send("book");
    engine.sync()
}

#[test]
fn a_book_in_the_web_interface_form_is_played_at_once() {
    let dir = TempDir::new("web-book");
    let path = dir.join("book.txt");
    fs::write(&path, WEB_BOOK).unwrap();
    let mut engine = Engine::start();
    engine.send(&format!("setoption name BookFile value {}", path.display()));
    engine.sync_silent("BookFile while OwnBook is false");
    engine.send("setoption name OwnBook value true");
    let said = engine.sync();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("info string book: ") && said[0].contains("2 positions"),
        "{said:?}"
    );
    assert_eq!(
        book_lines(&mut engine),
        [
            "book d2e3A weight 7 score 0 depth 0",
            "book f2e3A weight 0 score 0 depth 0"
        ]
    );
    engine.send("go wtime 60000 btime 60000");
    let lines = engine.read_until("bestmove");
    // The book's line and the turn, with no `info depth` line: how GUIs tell a book turn.
    assert_eq!(
        lines,
        [
            "info string book d2e3A weight 7 score 0 depth 0",
            "bestmove d2e3A"
        ]
    );
    // After f2e3A the position is found by replaying the line's turns.
    engine.send("position startpos moves f2e3A");
    let (_, bestmove) = {
        engine.send("go movetime 5000");
        let lines = engine.read_until("bestmove");
        assert!(lines[0].starts_with("info string book f3f2A"), "{lines:?}");
        assert_eq!(lines.len(), 2, "{lines:?}");
        (lines.clone(), lines.last().unwrap().clone())
    };
    assert_eq!(bestmove, "bestmove f3f2A");
    // `searchmoves` without the book's turn: the search answers.
    engine.send("position startpos");
    let (infos, bestmove) = engine.go("go depth 2 searchmoves f2e3A");
    assert!(!infos.is_empty());
    assert_eq!(bestmove, "bestmove f2e3A");
    // Analysis never comes from the book.
    engine.send("go infinite");
    engine.expect_line("an info line of the search", |l| {
        l.starts_with("info depth")
    });
    // `book` answers during the search.
    let during = book_lines(&mut engine);
    assert!(
        during
            .iter()
            .any(|l| l == "book d2e3A weight 7 score 0 depth 0"),
        "{during:?}"
    );
    engine.send("stop");
    let rest = engine.read_until("bestmove");
    assert!(
        rest.iter().all(|l| !l.starts_with("info string book")),
        "{rest:?}"
    );
    // Other rules: the book is not used, and `book` says why.
    engine.send("setoption name MandatoryContinuation value true");
    engine.sync();
    let lines = book_lines(&mut engine);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("book none: ") && lines[0].contains("mandatory"),
        "{lines:?}"
    );
    let (infos, _) = engine.go("go depth 2");
    assert!(!infos.is_empty(), "searched under other rules");
    // The book stops past BookDepth.
    engine.send("setoption name MandatoryContinuation value false");
    engine.send("setoption name BookDepth value 1");
    engine.send("position startpos moves f2e3A");
    let (infos, _) = engine.go("go depth 2");
    assert!(!infos.is_empty(), "searched past BookDepth");
}

#[test]
fn a_damaged_or_foreign_book_is_refused_in_one_line_and_the_book_in_use_kept() {
    let dir = TempDir::new("bad-book");
    let good = dir.join("good.txt");
    fs::write(&good, WEB_BOOK).unwrap();
    let mut engine = Engine::start();
    engine.send("setoption name OwnBook value true");
    engine.sync();
    engine.send(&format!("setoption name BookFile value {}", good.display()));
    engine.sync();
    let before = book_lines(&mut engine);
    // A Vato book with one flipped byte, a text with a bad line, a folder, no file.
    let binary = dir.join("book.bin");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
        .args(["book", "import"])
        .arg(&good)
        .arg(&binary)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let mut bytes = fs::read(&binary).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let damaged = dir.join("damaged.bin");
    fs::write(&damaged, &bytes).unwrap();
    let bad_text = dir.join("bad.txt");
    fs::write(&bad_text, "-\tf2e3A 1\nf2e3A x3y4A 2\n").unwrap();
    for (file, why) in [
        (damaged.clone(), "checksum"),
        (bad_text.clone(), "line 2"),
        (dir.0.clone(), "not"),
        (dir.join("missing"), "cannot"),
    ] {
        let error =
            engine.expect_one_error(&format!("setoption name BookFile value {}", file.display()));
        assert!(
            error.contains("option 'BookFile'") && error.contains(why),
            "{error}"
        );
        assert_eq!(book_lines(&mut engine), before);
    }
    // The undamaged binary reads as the text did.
    engine.send(&format!(
        "setoption name BookFile value {}",
        binary.display()
    ));
    engine.sync();
    assert_eq!(book_lines(&mut engine), before);
}

/// The `network` line of `eval`, and the line saying which evaluation the search uses.
fn eval_network_lines(engine: &mut Engine) -> (String, String) {
    engine.send("eval");
    let lines = engine.sync();
    let network = lines.iter().find(|l| l.trim_start().starts_with("network"));
    let in_use = lines.iter().find(|l| l.starts_with("The search uses"));
    (
        network.expect("eval shows the network").clone(),
        in_use.expect("eval says what the search uses").clone(),
    )
}

#[test]
fn a_bad_network_file_is_refused_in_one_line_and_the_network_stays() {
    let dir = std::env::temp_dir().join(format!("vato-evalfile-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let mut engine = Engine::start();
    engine.send("position fen 9/9/1BB6/9/W1B6 w");
    let before = eval_network_lines(&mut engine);
    assert!(before.1.contains("network (<embedded>)"), "{before:?}");
    let shipped = fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.nnue")).unwrap();
    let (good, damaged, foreign) = (
        dir.join("good.nnue"),
        dir.join("damaged.nnue"),
        dir.join("foreign.nnue"),
    );
    fs::write(&good, &shipped).unwrap();
    let mut bytes = shipped.clone();
    bytes[1000] ^= 0x10;
    fs::write(&damaged, &bytes).unwrap();
    fs::write(&foreign, b"a text file, not a network").unwrap();
    let missing = dir.join("missing.nnue");
    for (path, reason) in [
        (&damaged, "checksum mismatch"),
        (&foreign, "not a Vato network file"),
        (&missing, "cannot read"),
    ] {
        let line = format!("setoption name EvalFile value {}", path.display());
        let error = engine.expect_one_error(&line);
        assert!(error.contains("kept the network in use"), "{error}");
        assert!(error.contains(reason), "{error}");
        assert_eq!(eval_network_lines(&mut engine), before);
    }
    // The same network from a file reads and scores the same.
    engine.send(&format!("setoption name EvalFile value {}", good.display()));
    engine.expect_line("the network read", |l| {
        l.starts_with("info string network: ")
    });
    let (network, in_use) = eval_network_lines(&mut engine);
    assert_eq!(network, before.0);
    assert!(in_use.contains("good.nnue"), "{in_use}");
    // The hand-written evaluation on request, and back.
    engine.send("setoption name UseNNUE value false");
    let (network, in_use) = eval_network_lines(&mut engine);
    assert_eq!(network, before.0);
    assert!(in_use.contains("hand-written"), "{in_use}");
    engine.send("setoption name UseNNUE value true");
    engine.send("go depth 2");
    engine.read_until("bestmove ");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn commands_that_only_read_answer_during_a_search() {
    let mut engine = Engine::start();
    engine.send("position startpos moves d3e3W");
    let fen = engine.fen();
    engine.send("go infinite");
    for (line, first) in [
        ("fen", fen.as_str()),
        ("status", "status ongoing"),
        ("query result", "response none"),
    ] {
        engine.send(line);
        let lines = engine.sync();
        let answers: Vec<_> = lines.iter().filter(|l| Info::parse(l).is_none()).collect();
        assert_eq!(answers, [first], "{line:?}: {lines:?}");
    }
    for (line, needle) in [
        ("d", "Fen: "),
        ("eval", "  total"),
        ("help", "  isready"),
        ("moves d4", "d4"),
    ] {
        engine.send(line);
        let lines = engine.sync();
        assert!(errors(&lines).is_empty(), "{line:?}: {lines:?}");
        assert!(
            lines.iter().any(|l| l.starts_with(needle)),
            "{line:?}: {lines:?}"
        );
        assert_eq!(count_bestmoves(&lines), 0, "{line:?}: {lines:?}");
    }
    engine.send("stop");
    let lines = engine.sync();
    assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
}

#[test]
fn end_of_input_lets_a_search_with_a_limit_finish() {
    // The README's hand-typed session, piped: the search still reaches its depth.
    let lines = run_batch(&[
        "uci",
        "isready",
        "position startpos moves d3e3W",
        "go depth 4",
        "d",
        "moves d4",
    ]);
    let infos: Vec<Info> = lines.iter().filter_map(|l| Info::parse(l)).collect();
    assert_eq!(infos.last().map(|i| i.depth), Some(4), "{lines:?}");
    assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("Fen: ")), "{lines:?}");
    assert!(errors(&lines).is_empty(), "{lines:?}");
}

// ---------------------------------------------------------------------------------------
// 16. Hardening: what fuzzing and fault injection found
// ---------------------------------------------------------------------------------------

/// Starts `vato` under `sh` with a shell `limit` command run first (`ulimit ...`).
fn start_limited(limit: &str) -> Engine {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{limit} && exec \"$0\""))
        .arg(env!("CARGO_BIN_EXE_vato"))
        // One malloc arena: the address-space limit then falls on thread stacks only.
        .env("MALLOC_ARENA_MAX", "1");
    Engine::start_command(command)
}

#[test]
fn perft_depth_is_bounded_with_a_clear_error() {
    let mut engine = Engine::start();
    for line in ["perft 4294967295", "perft 100000000", "perft 21 divide"] {
        let error = engine.expect_one_error(line);
        assert!(error.contains("at most 20"), "{line}: {error}");
    }
    engine.send("perft 1");
    engine.expect_exact("Nodes searched: 5");
    engine.sync_silent("perft 1");
}

#[test]
fn deep_perft_answers_isready_and_obeys_stop_and_end_of_input() {
    let mut engine = Engine::start();
    engine.send("perft 20");
    for _ in 0..3 {
        let lines = engine.sync();
        assert!(lines.is_empty(), "nothing but readyok meanwhile: {lines:?}");
    }
    // A perft ends by itself: a command that changes the position waits for it, and is
    // carried out once `stop` has ended it.
    engine.send("position startpos moves d3e3W");
    assert!(engine.sync().is_empty(), "the position waits for the perft");
    engine.send("stop");
    let lines = engine.sync();
    assert_eq!(lines, ["info string perft stopped"], "{lines:?}");
    assert_ne!(
        engine.fen(),
        START_FEN,
        "the waiting position was set after the perft"
    );
    engine.send("position startpos");
    engine.send("perft 2");
    engine.expect_exact("Nodes searched: 39");
    engine.send("perft 20 divide");
    engine.sync();
    // The end of input gives it a grace period, then stops it.
    engine.close_stdin();
    let rest = engine.rest_of_output();
    assert_eq!(rest, ["info string perft stopped"], "{rest:?}");
    assert!(engine.wait_exit().success());
}

#[test]
fn end_of_input_lets_a_short_perft_and_bench_finish() {
    let lines = run_batch(&["perft 3"]);
    assert_eq!(lines, ["Nodes searched: 724"]);
    let lines = run_batch(&["bench 1"]);
    assert!(
        lines.last().is_some_and(|l| l.ends_with(" nps")),
        "{lines:?}"
    );
    assert!(errors(&lines).is_empty(), "{lines:?}");
}

#[test]
fn deep_bench_answers_isready_and_obeys_stop_and_quit() {
    let mut engine = Engine::start();
    engine.send("bench 60");
    let lines = engine.sync();
    assert!(lines.is_empty(), "nothing but readyok meanwhile: {lines:?}");
    engine.send("stop");
    let lines = engine.sync();
    assert_eq!(
        lines.last().map(String::as_str),
        Some("info string bench stopped"),
        "{lines:?}"
    );
    engine.send("bench 60");
    engine.sync();
    engine.send("quit");
    let rest = engine.rest_of_output();
    assert_eq!(
        rest.last().map(String::as_str),
        Some("info string bench stopped"),
        "{rest:?}"
    );
    assert!(engine.wait_exit().success());
}

/// Under an address-space limit too small for the stacks of 256 threads, the search runs
/// with the threads it could start, says so in at most one line and always answers
/// `bestmove`; the next searches work as well.
#[test]
fn search_threads_that_cannot_start_are_reported_and_bestmove_still_comes() {
    let mut engine = start_limited("ulimit -v 250000");
    engine.send("setoption name Threads value 256");
    let legal = engine.legal_turns();
    for _ in 0..3 {
        engine.send("go infinite");
        let lines = engine.sync();
        assert_eq!(count_bestmoves(&lines), 0, "{lines:?}");
        engine.send("stop");
        let lines = engine.sync();
        // Helpers that finish early free their stacks for later ones, so how many start
        // varies: when some could not, one line says so.
        let notes: Vec<_> = lines
            .iter()
            .filter(|l| l.starts_with("info string "))
            .collect();
        assert!(notes.len() <= 1, "{lines:?}");
        for note in notes {
            let words: Vec<&str> = note.split_whitespace().collect();
            assert_eq!(words[..3], ["info", "string", "only"], "{note}");
            assert!(words[3].parse::<usize>().unwrap() < 256, "{note}");
            assert!(
                note.ends_with(" of 256 search threads could be started"),
                "{note}"
            );
        }
        assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
        let best = bestmove_parts(lines.last().unwrap()).0;
        assert!(legal.contains(&best), "{best} not in {legal:?}");
    }
}

/// Control characters are never echoed raw: a lone CR inside an error line could make a
/// GUI read a `bestmove` the engine never played. Echoed fragments are capped.
#[test]
fn error_lines_escape_control_characters_and_are_capped() {
    let mut engine = Engine::start();
    let mut bad_lines: Vec<Vec<u8>> = vec![
        b"\xff\rbestmove d3e3W\r ".to_vec(),
        b"bogus\rbestmove d3e3W".to_vec(),
        b"go depth \x1b[2J\rbestmove".to_vec(),
        "moves \u{2028}bestmove".as_bytes().to_vec(),
        b"setoption name Hash value \x07\rreadyok".to_vec(),
    ];
    let mut huge = vec![0xffu8];
    huge.extend(std::iter::repeat_n(b'\r', 1_000_000));
    bad_lines.push(huge);
    bad_lines.push(format!("unknown{}", "\r".repeat(1_000_000)).into_bytes());
    for bytes in &bad_lines {
        engine.send_bytes(bytes);
        let lines = engine.sync();
        assert_eq!(lines.len(), 1, "{lines:?}");
        let error = &lines[0];
        assert!(error.starts_with("info string error "), "{error:?}");
        assert!(
            !error.chars().any(|c| c.is_control() || c == '\u{2028}'),
            "{error:?}"
        );
        assert!(error.chars().count() <= 300, "{} chars", error.len());
    }
    let error = &engine.expect_one_error("bogus\u{7}bestmove d3e3W");
    assert!(error.contains("'bogus\\x07bestmove'"), "{error}");
}

// ---------------------------------------------------------------------------------------
// 17. Weaker play and win-draw-loss chances
// ---------------------------------------------------------------------------------------

#[test]
fn a_weakened_level_plays_legal_turns_from_a_capped_multipv_search() {
    let mut engine = Engine::start();
    engine.send("setoption name Skill Level value 3");
    engine.send("position startpos moves d3e3W");
    let legal = engine.legal_turns();
    for _ in 0..5 {
        let (infos, bestmove) = engine.go("go depth 10");
        // Level 3 stops at depth 2 and scores four lines per depth.
        assert!(infos.iter().all(|i| i.depth <= 2), "{bestmove}");
        assert!(infos.iter().any(|i| i.multipv == 4), "{bestmove}");
        assert!(legal.contains(&bestmove_parts(&bestmove).0), "{bestmove}");
    }
    engine.send("setoption name UCI_LimitStrength value true");
    engine.send("setoption name UCI_Elo value 500");
    let (infos, _) = engine.go("go depth 10");
    assert!(
        infos.iter().all(|i| i.depth == 1),
        "level 0 searches depth 1 only"
    );
    let error = engine.expect_one_error("setoption name UCI_Elo value 3000");
    assert!(error.contains("UCI_Elo"), "{error}");
}

#[test]
fn show_wdl_adds_chances_that_add_up_to_1000() {
    let mut engine = Engine::start();
    engine.send("setoption name UCI_ShowWDL value true");
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove");
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(!infos.is_empty(), "{lines:?}");
    for line in infos {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|&w| w == "wdl").expect("a wdl field");
        assert_eq!(words[at - 3], "score", "wdl follows the score: {line}");
        let chances: Vec<u32> = words[at + 1..at + 4]
            .iter()
            .map(|w| w.parse().unwrap())
            .collect();
        assert_eq!(chances.iter().sum::<u32>(), 1000, "{line}");
    }
    engine.send("setoption name UCI_ShowWDL value false");
    let (_, _) = engine.go("go depth 1");
}

// ---------------------------------------------------------------------------------------
// 18. Short clocks
// ---------------------------------------------------------------------------------------

/// Tiny clocks and move times on positions with many turns: a legal `bestmove` must still
/// come (how fast is for the match runner's measurements, never for a test).
#[test]
fn tiny_clocks_on_wide_positions_still_get_a_legal_bestmove() {
    let mut engine = Engine::start();
    for position in [
        "position startpos",
        "position startpos moves d3e3W d4d3Ac3W",
        "position fen 9/1B1B1B1B1/9/W1W1W1W1W/9 w",
    ] {
        engine.send(position);
        let legal = engine.legal_turns();
        for go in [
            "go wtime 100 btime 100 winc 0 binc 0",
            "go wtime 1 btime 1",
            "go movetime 5",
            "go wtime 2000 btime 2000 winc 20 binc 20",
        ] {
            let (_, bestmove) = engine.go(go);
            let best = bestmove_parts(&bestmove).0;
            assert!(
                legal.contains(&best),
                "{position} / {go}: {best} not in {legal:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Variants: Fanoron-Dimy and Fanoron-Telo
// ---------------------------------------------------------------------------------------

const DIMY_START_FEN: &str = "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 1";

#[test]
fn variant_is_a_combo_option_of_three_games() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.read_until("uciok");
    assert!(
        lines.contains(
            &"option name Variant type combo default tsivy var tsivy var dimy var telo".into()
        ),
        "{lines:?}"
    );
    let error = engine.expect_one_error("setoption name Variant value chess");
    assert!(error.contains("tsivy, dimy, telo"), "{error}");
    assert_eq!(engine.fen(), START_FEN, "a refused variant changes nothing");
}

#[test]
fn switching_to_dimy_resets_to_its_start_and_every_command_follows_the_board() {
    let mut engine = Engine::start();
    engine.send("position startpos moves d3e3W");
    engine.send("setoption name Variant value dimy");
    assert_eq!(engine.fen(), DIMY_START_FEN);
    assert_eq!(
        engine.legal_turns(),
        ["b2c3A", "b3c3A", "b3c3W", "c2c3A", "d2c3A"]
    );
    engine.send("perft 4");
    let lines = engine.read_until("Nodes searched");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 3469");

    // A Tsivy string is the wrong size: one line, the position stays.
    engine.send("position fen BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w");
    let refusal = engine.next_line();
    assert!(
        refusal.contains("has 9 points, expected 5 for dimy (5 x 5); position unchanged"),
        "{refusal}"
    );
    assert_eq!(engine.fen(), DIMY_START_FEN);

    engine.send("position startpos moves d2c3A");
    assert_eq!(engine.fen(), "1BBBB/B1BBB/BWWBW/WWW1W/WWWWW b 0 1");
    let (_, bestmove) = engine.go("go depth 6");
    let turn = bestmove.strip_prefix("bestmove ").unwrap().to_string();
    assert!(engine.legal_turns().contains(&turn), "{bestmove}");
    engine.send("d");
    let drawing = engine.sync();
    assert_eq!(drawing[0], "5  . - B - B - B - B", "{drawing:?}");
    assert!(
        drawing.contains(&"   a   b   c   d   e".to_string()),
        "{drawing:?}"
    );
    engine.send("eval");
    let eval = engine.sync();
    assert!(
        eval.iter()
            .any(|l| l.contains("network knows Tsivy's board only")),
        "{eval:?}"
    );
    engine.send("status");
    engine.expect_exact("status ongoing");

    engine.send("setoption name Variant value tsivy");
    assert_eq!(engine.fen(), START_FEN);
    engine.send("setoption name Variant value dimy");
    engine.send("ucinewgame");
    assert_eq!(engine.fen(), DIMY_START_FEN);
}

#[test]
fn telo_is_played_perfectly_and_weaker_with_a_depth() {
    let mut engine = Engine::start();
    engine.send("setoption name Variant value telo");
    assert_eq!(engine.fen(), "3/3/3 w 0 1");
    assert_eq!(engine.legal_turns().len(), 9);
    // The solved start: White wins, and only by taking the centre first.
    let (infos, bestmove) = engine.go("go");
    assert_eq!(bestmove, "bestmove b2");
    assert_eq!(infos.len(), 1, "{infos:?}");
    engine.send("eval");
    engine.expect_exact("Fanoron-Telo is solved: white to move wins in 9 plies.");

    // Movement phase: a1b1 style turns; an illegal one is refused whole.
    engine.send("position startpos moves b2 a1 c3 a3 a2 c1");
    engine.send("position startpos moves b2 a1 c3 a3 a2 c1 c3c2 b1");
    let refusal = engine.next_line();
    assert!(
        refusal.starts_with("info string illegal move b1 (turn 8): "),
        "{refusal}"
    );
    assert_eq!(engine.fen(), "B1W/WW1/B1B w 0 4");

    // Three in a row wins, during placement too; the game is then over.
    engine.send("position fen WW1/BB1/3 w moves c3");
    engine.send("status");
    engine.expect_exact("status white wins");
    assert_eq!(engine.query("result"), "p1win");
    let (_, bestmove) = engine.go("go");
    assert_eq!(bestmove, "bestmove (none)");
    engine.send("perft 1");
    engine.expect_exact("Nodes searched: 0");

    // With the win on the board, depth 1 takes it; a position where the side to move
    // already has a line cannot arise and is refused.
    engine.send("position fen WW1/BB1/3 w");
    let (_, bestmove) = engine.go("go depth 1");
    assert_eq!(bestmove, "bestmove c3");
    engine.send("position fen WWW/BB1/B2 w");
    assert!(engine.next_line().starts_with("info string invalid fen"));

    engine.send("position startpos");
    engine.send("perft 2");
    let lines = engine.read_until("Nodes searched");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 72");

    // A deep Telo perft runs on its own thread like Tsivy's, a command that changes the
    // position waits for it, and `stop` ends it; a held `go infinite` answers at `stop`.
    engine.send("perft 20");
    engine.send("position startpos");
    assert!(engine.sync().is_empty(), "the position waits for the perft");
    engine.send("stop");
    assert_eq!(engine.sync(), ["info string perft stopped"]);
    engine.send("go infinite");
    assert!(engine.sync().is_empty(), "no answer before stop");
    engine.send("stop");
    engine.read_until("bestmove");

    engine.send("setoption name Variant value tsivy");
    assert_eq!(engine.fen(), START_FEN);
}

#[test]
fn vela_games_follow_their_first_phase() {
    let mut engine = Engine::start();
    // Black favoured: Black moves first and captures one stone a turn.
    engine.send("setoption name Vela value black");
    assert_eq!(engine.fen(), START_FEN.replace(" w ", " b "));
    assert_eq!(
        engine.legal_turns(),
        ["d4e3A", "e4e3A", "f3e3A", "f3e3W", "f4e3A"]
    );
    engine.send("position startpos moves d4e3Ad3A");
    let refusal = engine.next_line();
    assert!(
        refusal.contains("in phase 1 of the vela game") && refusal.ends_with("position unchanged"),
        "{refusal}"
    );
    // One stone only: f3 withdraws from g3 and takes g3 alone, not the run behind it.
    engine.send("position startpos moves f3e3W");
    assert_eq!(
        engine.fen(),
        "BBBBBBBBB/BBBBBBBBB/BWBWB2BW/WWWWWWWWW/WWWWWWWWW w 0 2"
    );
    // White, not favoured, plays paikas only (and those leaving Black a capture).
    for turn in engine.legal_turns() {
        assert_eq!(turn.len(), 4, "a paika: {turn}");
    }
    engine.send("perft 2");
    let lines = engine.read_until("Nodes searched");
    let count: u64 = lines.last().unwrap()["Nodes searched: ".len()..]
        .parse()
        .unwrap();
    assert!(count > 0);
    let (_, bestmove) = engine.go("go depth 4");
    let turn = bestmove.strip_prefix("bestmove ").unwrap().to_string();
    assert!(engine.legal_turns().contains(&turn), "{bestmove}");

    // The favoured side without a capture in phase 1 has lost.
    engine.send("position fen 8B/9/9/9/WWWWWW3 b");
    engine.send("status");
    engine.expect_exact("status white wins");

    engine.send("setoption name Vela value none");
    assert_eq!(engine.fen(), START_FEN);
    assert_eq!(engine.legal_turns().len(), 5);
}

#[test]
fn solve_runs_as_a_task_that_stop_ends() {
    let mut engine = Engine::start();
    engine.send("position fen 9/9/8B/5W3/9 w");
    engine.send("solve");
    let line = engine.expect_line("the solve line", |l| l.starts_with("info string solve"));
    assert!(
        line.starts_with("info string solve draw bestmove "),
        "{line}"
    );
    engine.send("position startpos");
    engine.send("solve");
    assert!(engine.sync().is_empty());
    let busy = engine.expect_one_error("position startpos moves d3e3A");
    assert!(busy.contains("busy: solve is running"), "{busy}");
    engine.send("stop");
    let line = engine.expect_line("the solve line", |l| l.starts_with("info string solve"));
    assert!(
        line.starts_with("info string solve unknown nodes "),
        "{line}"
    );
    let error = engine.expect_one_error("solve soon");
    assert!(error.contains("solve"), "{error}");
}

/// Runs `vato solve --fen FEN --proof FILE` without tables and without the machine's proof
/// store: the turn it names.
fn solve_with_proof(fen: &str, proof: &Path) -> String {
    solve_with_proof_in(fen, proof, &[])
}

/// [`solve_with_proof`] with more arguments.
fn solve_with_proof_in(fen: &str, proof: &Path, more: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_vato"))
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", "")
        .args(["solve", "--fen", fen, "--proof"])
        .arg(proof)
        .args(more)
        .output()
        .expect("vato solve runs");
    let answer = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{answer}");
    let words: Vec<&str> = answer.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "bestmove").expect("a turn");
    words[at + 1].to_string()
}

#[test]
fn a_compact_proof_file_is_played_from_like_one_in_full() {
    let dir = TempDir::new("compact-proof-file");
    let draw_fen = "9/3B5/9/9/4W4 b 0 1";
    let compact = dir.join("draw.proof");
    let turn = solve_with_proof_in(draw_fen, &compact, &["--compact"]);
    let mut engine = Engine::start();
    engine.send(&format!(
        "setoption name ProofFile value {}",
        compact.display()
    ));
    let said = engine.sync();
    assert!(
        said.len() == 1 && said[0].starts_with("info string proof: "),
        "{said:?}"
    );
    engine.send(&format!("position fen {draw_fen}"));
    engine.send("go depth 4");
    let lines = engine.read_until("bestmove");
    assert!(
        lines.contains(&format!("info string proven draw or better {turn}")),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), &format!("bestmove {turn}"));
}

#[test]
fn a_proof_file_is_played_from_and_a_bad_one_refused() {
    let dir = TempDir::new("proof-file");
    let (win_fen, draw_fen) = ("9/3B5/9/9/1W4W2 w 0 1", "9/3B5/9/9/4W4 b 0 1");
    let win = dir.join("win.proof");
    let draw = dir.join("draw.proof");
    let win_turn = solve_with_proof(win_fen, &win);
    let draw_turn = solve_with_proof(draw_fen, &draw);

    let mut engine = Engine::start();
    engine.send(&format!("setoption name ProofFile value {}", win.display()));
    let said = engine.sync();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("info string proof: ") && said[0].contains("win for white"),
        "{said:?}"
    );
    // Without a no-capture limit, a proven win is played at once.
    engine.send("setoption name NoCaptureLimit value 0");
    engine.send(&format!("position fen {win_fen}"));
    engine.send("go wtime 60000 btime 60000");
    let lines = engine.read_until("bestmove");
    assert_eq!(
        lines[0],
        format!("info string proven win {win_turn}"),
        "{lines:?}"
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[2], format!("bestmove {win_turn}"));
    // With the limit, the search runs, and the proof's turn is played unless the search
    // finds a win of its own.
    engine.send("setoption name NoCaptureLimit value 50");
    engine.send(&format!("position fen {win_fen}"));
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove");
    let said = lines
        .iter()
        .find(|l| l.starts_with("info string proven win "))
        .expect("a proven line");
    let played = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(said.contains(played), "{lines:?}");

    // A bad file: one error, the proof in use kept.
    let damaged = dir.join("damaged.proof");
    let mut bytes = fs::read(&draw).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&damaged, &bytes).unwrap();
    for bad in [damaged, dir.join("missing.proof"), dir.0.clone()] {
        let error =
            engine.expect_one_error(&format!("setoption name ProofFile value {}", bad.display()));
        assert!(error.contains("the proof in use is kept"), "{error}");
    }
    engine.send("setoption name NoCaptureLimit value 0");
    engine.send(&format!("position fen {win_fen}"));
    engine.send("go depth 1");
    let lines = engine.read_until("bestmove");
    assert!(lines[0].starts_with("info string proven win"), "{lines:?}");

    // A defence: the search runs and the proof's turn is played.
    engine.send(&format!(
        "setoption name ProofFile value {}",
        draw.display()
    ));
    engine.sync();
    engine.send(&format!("position fen {draw_fen}"));
    engine.send("go depth 4");
    let lines = engine.read_until("bestmove");
    assert!(
        lines.contains(&format!("info string proven draw or better {draw_turn}")),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), &format!("bestmove {draw_turn}"));
    // Positions the proof does not reach, and games under other rules, are searched.
    engine.send("setoption name Variant value dimy");
    engine.send("position startpos");
    engine.send("go depth 2");
    let lines = engine.read_until("bestmove");
    assert!(!lines.iter().any(|l| l.contains("proven")), "{lines:?}");
    // An empty value drops the proof.
    engine.send("setoption name Variant value tsivy");
    engine.send("setoption name ProofFile value");
    engine.sync_silent("ProofFile emptied");
    engine.send(&format!("position fen {draw_fen}"));
    engine.send("go depth 2");
    let lines = engine.read_until("bestmove");
    assert!(!lines.iter().any(|l| l.contains("proven")), "{lines:?}");
}
