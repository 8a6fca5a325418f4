//! `vato tune` and the search parameters it tunes: every parameter is an option that plays
//! legal turns at both ends of its range, and a tuning run writes a log that resumes it
//! exactly and refuses damage.

use std::process::{Command, Output};

mod scratch;

const VATO: &str = env!("CARGO_BIN_EXE_vato");

fn vato(args: &[&str]) -> Output {
    Command::new(VATO).args(args).output().expect("vato starts")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The engine's answer to a script given on standard input (a search that ends by itself
/// is waited for at the end of input).
fn session(script: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(VATO)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    text(&child.wait_with_output().unwrap().stdout)
}

/// The `Search...` spin options the engine declares: name, min, max.
fn search_options() -> Vec<(String, i64, i64)> {
    session("uci\n")
        .lines()
        .filter_map(|line| line.strip_prefix("option name Search"))
        .map(|rest| {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let field = |key: &str| {
                let at = words.iter().position(|w| *w == key).unwrap();
                words[at + 1].parse::<i64>().unwrap()
            };
            (format!("Search{}", words[0]), field("min"), field("max"))
        })
        .collect()
}

#[test]
fn every_search_parameter_plays_legal_turns_at_both_ends_of_its_range() {
    let options = search_options();
    assert!(options.len() >= 10, "{options:?}");
    for (name, min, max) in options {
        for value in [min, max] {
            let out = session(&format!(
                "setoption name {name} value {value}\n\
                 position startpos moves f2e3A d5d4A g3f2W c3d2A\ngo depth 5\n"
            ));
            assert!(!out.contains("error"), "{name}={value} was refused:\n{out}");
            let best = out
                .lines()
                .find_map(|l| l.strip_prefix("bestmove "))
                .unwrap_or_else(|| panic!("{name}={value}: no bestmove:\n{out}"));
            let check = session(&format!(
                "position startpos moves f2e3A d5d4A g3f2W c3d2A {}\n",
                best.split_whitespace().next().unwrap()
            ));
            assert!(
                !check.contains("error"),
                "{name}={value}: {best} is illegal: {check}"
            );
        }
    }
}

#[test]
fn search_parameters_out_of_range_are_refused() {
    let out = session("setoption name SearchNullMoveReduction value 99\nuci\n");
    assert!(out.contains("must be between 0 and 6, found 99"), "{out}");
    assert!(out.contains("option name SearchNullMoveReduction type spin default 0 min 0 max 6"));
}

fn tune_args<'a>(log: &'a str, iterations: &'a str) -> Vec<&'a str> {
    vec![
        "tune",
        "--engine",
        concat!("cmd=", env!("CARGO_BIN_EXE_vato")),
        "depth=2",
        "--param",
        "SearchAspirationDelta",
        "--param",
        "SearchQuiescenceWidth=1",
        "--iterations",
        iterations,
        "--r-end",
        "0.2",
        "--seed",
        "5",
        "--openings",
        concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/openings.txt"),
        "--concurrency",
        "2",
        "--log",
        log,
    ]
}

#[test]
fn a_tuning_run_resumes_from_its_log_exactly() {
    let dir = scratch::fresh_dir("tune", "resume");
    let log = dir.join("tune.log");
    let log_name = log.to_str().unwrap();
    let out = vato(&tune_args(log_name, "8"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let full = std::fs::read_to_string(&log).unwrap();
    assert_eq!(full.lines().count(), 1 + 8, "{full}");
    let last = text(&out.stdout);
    assert!(
        last.lines()
            .last()
            .unwrap()
            .starts_with("after 8 iterations: option.SearchAspirationDelta="),
        "{last}"
    );

    // A run stopped after 3 iterations and started again writes the same log: the signs
    // and openings depend on the seed and the iteration alone, and depth-limited games
    // on nothing else.
    let cut: String = full.lines().take(1 + 3).map(|l| format!("{l}\n")).collect();
    std::fs::write(&log, cut).unwrap();
    let again = vato(&tune_args(log_name, "8"));
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(
        text(&again.stdout).starts_with("resuming"),
        "{}",
        text(&again.stdout)
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap(), full);

    // A finished run plays nothing more.
    let done = vato(&tune_args(log_name, "8"));
    assert!(done.status.success());
    assert_eq!(std::fs::read_to_string(&log).unwrap(), full);
}

#[test]
fn a_damaged_log_is_refused_and_kept() {
    let dir = scratch::fresh_dir("tune", "damaged");
    let log = dir.join("tune.log");
    let log_name = log.to_str().unwrap();
    let out = vato(&tune_args(log_name, "2"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let good = std::fs::read_to_string(&log).unwrap();
    let damaged = good.replacen("\n1 ", "\n1 9", 1);
    assert_ne!(damaged, good);
    std::fs::write(&log, &damaged).unwrap();
    let out = vato(&tune_args(log_name, "2"));
    assert!(!out.status.success());
    let error = text(&out.stderr);
    assert!(error.contains("line 2: checksum does not match"), "{error}");
    assert_eq!(error.trim().lines().count(), 1, "{error}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), damaged);
}

#[test]
fn unknown_and_unsuitable_parameters_are_refused() {
    let dir = scratch::fresh_dir("tune", "unknown");
    let log = dir.join("tune.log");
    let engine = format!("cmd={VATO}");
    for (param, message) in [
        ("SearchNoSuchThing", "declares no spin option of that name"),
        ("Ponder", "declares no spin option of that name"),
        ("SearchAspirationDelta=-1", "C must be a positive number"),
    ] {
        let out = vato(&[
            "tune",
            "--engine",
            &engine,
            "depth=1",
            "--param",
            param,
            "--log",
            log.to_str().unwrap(),
        ]);
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains(message),
            "{param}: {}",
            text(&out.stderr)
        );
        assert!(!log.exists(), "no log is written for a refused run");
    }
}
