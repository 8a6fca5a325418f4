//! The examples in README.md and protocol.md, run through the real binary, and the
//! README's length (at most 500 lines; detail belongs under `docs/`).
//!
//! Three kinds of fenced blocks are checked; any other block is prose or grammar:
//! - sessions: lines `> command` (or `>> command`, as in the debug log) sent to a fresh
//!   engine, each followed by the lines `< answer` (`<< answer`) it must print. A line of
//!   the form `  (...)` stands for any number of answer lines left out;
//! - shell lines `$ printf '...' | vato`, followed by the whole output;
//! - error tables, lines `command -> message`: the command gets exactly one error line,
//!   `info string error <message>` or `info string <message>`.
//!
//! Times and speeds (`time`, `nps`) are masked; node counts, scores, turns and errors are
//! compared to the letter. A block whose fence says `unchecked` is skipped: its prose says
//! why (it shows timing that no run repeats). With `VATO_UPDATE_DOCS=1` the test writes the
//! answers of session and shell blocks back into the files instead of comparing them
//! (`scripts/update-doc-examples.sh`).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// A guard against hangs only, never a timing assertion.
const HANG_GUARD: Duration = Duration::from_secs(20);

/// One fenced block: its fence line's info string, the index of its first line in the
/// file, and its lines.
struct Block {
    info: String,
    /// The fence's indentation, which every line of the block shares.
    indent: String,
    first_line: usize,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut current: Option<Block> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match current.take() {
                Some(block) => blocks.push(block),
                None => {
                    current = Some(Block {
                        info: info.trim().to_string(),
                        indent: line[..line.len() - trimmed.len()].to_string(),
                        first_line: index + 1,
                        lines: Vec::new(),
                    })
                }
            }
        } else if let Some(block) = current.as_mut() {
            block.lines.push(line.to_string());
        }
    }
    blocks
}

/// Masks what differs from run to run: `time N`, `nps N`, and the `N nps` of `bench`.
fn mask(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let mut out = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let after_key = i > 0 && matches!(words[i - 1], "time" | "nps");
        // The speed in `bench`'s last line, `<nodes> nodes <speed> nps`.
        let before_nps =
            i > 0 && i + 2 == words.len() && words[i + 1] == "nps" && words[i - 1] == "nodes";
        if (after_key || before_nps) && word.bytes().all(|b| b.is_ascii_digit()) {
            out.push("#");
        } else {
            out.push(word);
        }
    }
    out.join(" ")
}

/// The engine in a new process, its input and output piped, its diagnostics dropped.
/// No tables from the machine's default folder: the examples show an engine without them.
fn spawn_vato() -> Child {
    Command::new(env!("CARGO_BIN_EXE_vato"))
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start the vato binary")
}

/// An engine in a fresh process, read line by line.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = spawn_vato();
        let stdout: ChildStdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            stdin: child.stdin.take(),
            child,
            lines,
        };
        let banner = engine.next().expect("the banner");
        assert!(banner.starts_with("Vato "), "{banner}");
        engine
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|_| stdin.flush())
            .expect("cannot write to the engine");
    }

    fn next(&mut self) -> Option<String> {
        self.lines.recv_timeout(HANG_GUARD).ok()
    }

    fn until(&mut self, wanted: impl Fn(&str) -> bool) -> Vec<String> {
        let mut lines = Vec::new();
        while let Some(line) = self.next() {
            let done = wanted(&line);
            lines.push(line);
            if done {
                break;
            }
        }
        lines
    }

    /// Sends `command` and returns its answer, read as a GUI would: a `go` that ends by
    /// itself up to its `bestmove`, `perft` and `bench` up to their totals, `stop` up to the running search's `bestmove` (if one
    /// runs), `quit` to the end of the output, anything else up to the `readyok` of an
    /// `isready` sent after it.
    fn ask(&mut self, command: &str, searching: &mut bool) -> Vec<String> {
        self.send(command);
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.first().copied() {
            Some("go") if words.contains(&"infinite") || words.contains(&"ponder") => {
                *searching = true;
                Vec::new()
            }
            Some("go") => self.until(|l| l.starts_with("bestmove")),
            // `perft`, `bench` and `solve` run like a search; an error ends them before they
            // start.
            Some("perft") => {
                self.until(|l| l.starts_with("Nodes searched") || l.starts_with("info string"))
            }
            Some("bench") => self.until(|l| l.ends_with(" nps") || l.starts_with("info string")),
            Some("solve") => self.until(|l| l.starts_with("info string")),
            Some("stop" | "ponderhit") if *searching => {
                *searching = false;
                self.until(|l| l.starts_with("bestmove"))
            }
            Some("quit") => {
                self.stdin = None;
                let mut lines = Vec::new();
                while let Some(line) = self.next() {
                    lines.push(line);
                }
                lines
            }
            Some("isready") => self.until(|l| l == "readyok"),
            _ => {
                self.send("isready");
                let mut lines = self.until(|l| l == "readyok");
                lines.pop();
                lines
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One line of an expected transcript.
#[derive(Clone, Debug, PartialEq)]
enum Expected {
    Input(String),
    Output(String),
    /// Any number of output lines.
    Elided,
}

fn matches(expected: &[Expected], actual: &[(bool, String)]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((Expected::Elided, rest)) => (0..=actual.len()).any(|skip| {
            actual[..skip].iter().all(|(input, _)| !input) && matches(rest, &actual[skip..])
        }),
        Some((Expected::Input(text), rest)) => matches!(
            actual.split_first(),
            Some(((true, line), tail)) if line == text && matches(rest, tail)
        ),
        Some((Expected::Output(text), rest)) => matches!(
            actual.split_first(),
            Some(((false, line), tail)) if mask(line) == mask(text) && matches(rest, tail)
        ),
    }
}

/// Reads a session block, or `None` if it is not one.
fn session(block: &Block) -> Option<(Vec<Expected>, &'static str, &'static str)> {
    let first = block
        .lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())?;
    let (input, output) = if first.starts_with(">> ") {
        (">> ", "<< ")
    } else if first.starts_with("> ") {
        ("> ", "< ")
    } else {
        return None;
    };
    let mut expected = Vec::new();
    for line in &block.lines {
        let line = line.trim();
        if let Some(text) = line.strip_prefix(input) {
            expected.push(Expected::Input(text.to_string()));
        } else if let Some(text) = line.strip_prefix(output) {
            expected.push(Expected::Output(text.to_string()));
        } else if line == output.trim() {
            expected.push(Expected::Output(String::new()));
        } else if line.starts_with('(') {
            expected.push(Expected::Elided);
        } else if !line.is_empty() {
            panic!("line {line:?} of a session is neither input, output nor '(...)'");
        }
    }
    Some((expected, input, output))
}

fn run_session(expected: &[Expected]) -> Vec<(bool, String)> {
    let mut engine = Engine::start();
    let mut searching = false;
    let mut transcript = Vec::new();
    for item in expected {
        if let Expected::Input(command) = item {
            transcript.push((true, command.clone()));
            for line in engine.ask(command, &mut searching) {
                transcript.push((false, line));
            }
        }
    }
    transcript
}

/// The arguments of `$ vato ARGS` (double quotes group words), or `None` for another
/// shell line.
fn vato_arguments(line: &str) -> Option<Vec<String>> {
    let rest = line.strip_prefix("$ vato ")?;
    let mut arguments = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in rest.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !current.is_empty() {
                    arguments.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        arguments.push(current);
    }
    Some(arguments)
}

fn run_vato(arguments: &[String]) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_vato"))
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", "")
        .args(arguments)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("cannot run the vato binary");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// The input lines of `$ printf '...' | vato`, or `None` for another shell line.
fn printf_input(line: &str) -> Option<String> {
    let rest = line.strip_prefix("$ printf '")?;
    let (format, tail) = rest.split_once('\'')?;
    (tail.trim() == "| vato").then(|| format.replace("\\n", "\n"))
}

fn run_printf(input: &str) -> Vec<String> {
    let mut child = spawn_vato();
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("cannot write to the engine");
    let mut output = String::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut output)
        .expect("cannot read the engine's output");
    let _ = child.wait();
    output.lines().map(String::from).collect()
}

/// The `command -> message` lines of an error table.
fn error_table(block: &Block) -> Vec<(String, String)> {
    block
        .lines
        .iter()
        .filter_map(|line| {
            let (command, message) = line.split_once(" -> ")?;
            Some((command.trim().to_string(), message.trim().to_string()))
        })
        .collect()
}

fn check_file(name: &str, update: bool) -> Vec<String> {
    let path = format!("{}/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the document is readable");
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut failures = Vec::new();
    let mut checked = 0;
    // Replacements (first line, line count, new lines), applied from the end.
    let mut rewrites: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for block in blocks(&text) {
        if block.info.split_whitespace().any(|w| w == "unchecked") {
            continue;
        }
        let place = format!("{name}:{}", block.first_line);
        if let Some((expected, input, output)) = session(&block) {
            checked += 1;
            let actual = run_session(&expected);
            let fits = matches(&expected, &actual);
            if update && !fits && !expected.contains(&Expected::Elided) {
                let new = actual
                    .iter()
                    .map(|(is_input, line)| {
                        let marker = if *is_input { input } else { output };
                        format!("{}{marker}{line}", block.indent)
                            .trim_end()
                            .to_string()
                    })
                    .collect();
                rewrites.push((block.first_line, block.lines.len(), new));
            } else if !fits {
                let shown: Vec<String> = actual
                    .iter()
                    .map(|(i, l)| format!("{}{l}", if *i { input } else { output }))
                    .collect();
                failures.push(format!("{place}: the engine said\n{}", shown.join("\n")));
            }
        } else if let Some(actual) = block.lines.first().and_then(|l| {
            let l = l.trim();
            printf_input(l)
                .map(|input| run_printf(&input))
                .or_else(|| vato_arguments(l).map(|a| run_vato(&a)))
        }) {
            checked += 1;
            let expected: Vec<&String> = block.lines[1..].iter().collect();
            let fits = expected.len() == actual.len()
                && expected
                    .iter()
                    .zip(&actual)
                    .all(|(e, a)| mask(e.trim()) == mask(a));
            if update && !fits {
                let mut new = vec![block.lines[0].clone()];
                new.extend(actual.iter().map(|l| format!("{}{l}", block.indent)));
                rewrites.push((block.first_line, block.lines.len(), new));
            } else if expected.len() != actual.len()
                || expected
                    .iter()
                    .zip(&actual)
                    .any(|(e, a)| mask(e) != mask(a))
            {
                failures.push(format!("{place}: the engine said\n{}", actual.join("\n")));
            }
        } else {
            let table = error_table(&block);
            if table.is_empty() {
                continue;
            }
            checked += 1;
            let mut engine = Engine::start();
            for (command, message) in table {
                // An error starts no search: the answer ends where `isready` is answered.
                engine.send(&command);
                let answer = engine.ask("isready", &mut false);
                let answer = &answer[..answer.len().saturating_sub(1)];
                let fits = |line: &String| {
                    *line == format!("info string error {message}")
                        || *line == format!("info string {message}")
                };
                if answer.len() != 1 || !fits(&answer[0]) {
                    failures.push(format!("{place}: {command:?} gave {answer:?}"));
                }
            }
        }
    }
    if update && !rewrites.is_empty() {
        rewrites.sort_by_key(|r| std::cmp::Reverse(r.0));
        for (first, count, new) in rewrites {
            lines.splice(first..first + count, new);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(&path, text).expect("the document is writable");
    }
    assert!(checked > 0, "{name}: no example was found to check");
    failures
}

fn check(name: &str) {
    let update = std::env::var_os("VATO_UPDATE_DOCS").is_some();
    let failures = check_file(name, update);
    assert!(
        failures.is_empty(),
        "{} example(s) in {name} no longer match (run scripts/update-doc-examples.sh after an \
         intended change):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn protocol_md_examples_are_what_the_engine_says() {
    check("protocol.md");
}

#[test]
fn readme_examples_are_what_the_engine_says() {
    check("README.md");
}

/// The README speaks to users; detail goes to a page under `docs/`, linked from it.
#[test]
fn readme_stays_short() {
    const MOST_LINES: usize = 500;
    let path = format!("{}/README.md", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("README.md is readable");
    let lines = text.lines().count();
    assert!(
        lines <= MOST_LINES,
        "README.md has {lines} lines, more than {MOST_LINES}: move detail to a page under docs/ \
         and link it from the README"
    );
}

#[test]
fn masking_hides_only_times_and_speeds() {
    assert_eq!(
        mask("info depth 2 nodes 500 nps 250000 hashfull 0 time 2 pv d3e3W"),
        "info depth 2 nodes 500 nps # hashfull 0 time # pv d3e3W"
    );
    assert_eq!(mask("2543508 nodes 2981838 nps"), "2543508 nodes # nps");
}

#[test]
fn elisions_match_output_but_never_input() {
    let out = |s: &str| (false, s.to_string());
    let inp = |s: &str| (true, s.to_string());
    let expected = [
        Expected::Input("go infinite".into()),
        Expected::Elided,
        Expected::Input("stop".into()),
        Expected::Output("bestmove d3e3W".into()),
    ];
    let actual = [
        inp("go infinite"),
        out("info a"),
        out("info b"),
        inp("stop"),
        out("bestmove d3e3W"),
    ];
    assert!(matches(&expected, &actual));
    let wrong = [
        inp("go infinite"),
        inp("isready"),
        inp("stop"),
        out("bestmove d3e3W"),
    ];
    assert!(!matches(&expected, &wrong));
    let other = [inp("go infinite"), inp("stop"), out("bestmove f2e3A")];
    assert!(!matches(&expected, &other));
}
