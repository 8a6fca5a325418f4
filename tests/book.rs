//! `vato book`: a build split into shards and merged equals the whole build, a build
//! stopped and resumed from its journal equals one run through, books convert to the
//! web interface's text and back with their scores, and to its opening base.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory under Cargo's scratch space for integration tests.
fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("book-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("old scratch directory removable");
    }
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Runs `vato book ARGS`, which must succeed; returns its standard output.
fn vato_book(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_vato"))
        .arg("book")
        .args(args)
        .output()
        .expect("vato runs");
    assert!(
        output.status.success(),
        "vato book {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("text")
}

/// A small build: shallow searches, three lines, three plies.
fn build(out: &Path, extra: &[&str]) -> String {
    let out = out.to_str().unwrap();
    let mut args = vec![
        "build",
        "--out",
        out,
        "--depth",
        "3",
        "--lines",
        "3",
        "--margin",
        "60",
        "--plies",
        "3",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    vato_book(&args)
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("a book was written")
}

#[test]
fn shards_merged_equal_the_whole_build() {
    let dir = temp_dir("shards");
    let whole = dir.join("whole.book");
    build(&whole, &[]);
    let mut parts = Vec::new();
    for k in 1..=3 {
        let part = dir.join(format!("part{k}.book"));
        build(&part, &["--shard", &format!("{k}/3")]);
        parts.push(part);
    }
    let merged = dir.join("merged.book");
    let mut args = vec!["merge", merged.to_str().unwrap()];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    vato_book(&args);
    assert_eq!(bytes(&merged), bytes(&whole));
    // A shard alone is a smaller book.
    assert!(bytes(&parts[0]).len() < bytes(&whole).len());
}

#[test]
fn a_stopped_build_resumes_from_its_journal() {
    let dir = temp_dir("resume");
    let whole = dir.join("whole.book");
    build(&whole, &[]);
    let resumed = dir.join("resumed.book");
    let first = build(&resumed, &["--positions", "4"]);
    assert!(first.contains("cut short"), "{first}");
    let second = build(&resumed, &[]);
    assert!(second.contains("4 from the journal"), "{second}");
    assert_eq!(bytes(&resumed), bytes(&whole));
    // A journal line cut short by a crash is searched again.
    let journal = dir.join("resumed.book.journal");
    let text = std::fs::read_to_string(&journal).unwrap();
    std::fs::write(&journal, &text[..text.len() - 10]).unwrap();
    let third = build(&resumed, &[]);
    assert!(third.contains(": 1 searched"), "{third}");
    assert_eq!(bytes(&resumed), bytes(&whole));
}

#[test]
fn a_book_goes_to_text_and_back() {
    let dir = temp_dir("text");
    let book = dir.join("a.book");
    build(&book, &[]);
    let text = dir.join("a.txt");
    vato_book(&["export", book.to_str().unwrap(), text.to_str().unwrap()]);
    let again = dir.join("b.book");
    let imported = vato_book(&["import", text.to_str().unwrap(), again.to_str().unwrap()]);
    let text_again = dir.join("b.txt");
    vato_book(&[
        "export",
        again.to_str().unwrap(),
        text_again.to_str().unwrap(),
    ]);
    let first = std::fs::read_to_string(&text).unwrap();
    assert_eq!(first, std::fs::read_to_string(&text_again).unwrap());
    assert!(first.starts_with("-\t"), "{first}");
    // The scores and depths come back in their comment lines: the same book, byte for byte.
    assert!(
        first.lines().nth(1).unwrap().starts_with("#scores "),
        "{first}"
    );
    assert_eq!(bytes(&again), bytes(&book));
    // Without them (an older text), the turns and weights still read.
    let bare: String = first
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let bare_text = dir.join("bare.txt");
    std::fs::write(&bare_text, bare).unwrap();
    let bare_book = dir.join("bare.book");
    let report = vato_book(&[
        "import",
        bare_text.to_str().unwrap(),
        bare_book.to_str().unwrap(),
    ]);
    assert_eq!(
        report.split(" written").next(),
        imported.split(" written").next()
    );
    assert_ne!(bytes(&bare_book), bytes(&book));
    assert!(first.lines().count() > 3, "{first}");
    // The openings of the suite are lines `vato match` reads.
    let openings = vato_book(&[
        "openings",
        book.to_str().unwrap(),
        "--plies",
        "2",
        "--low",
        "0",
        "--high",
        "10000",
    ]);
    assert!(openings.lines().count() > 1, "{openings}");
    assert!(
        openings
            .lines()
            .all(|l| l.starts_with("startpos ") && l.split(' ').count() == 3),
        "{openings}"
    );
}

#[test]
fn a_book_exports_as_the_web_interfaces_opening_base() {
    let dir = temp_dir("json");
    let book = dir.join("a.book");
    build(&book, &[]);
    let json = dir.join("book.json");
    let report = vato_book(&["export", book.to_str().unwrap(), json.to_str().unwrap()]);
    assert!(report.contains("nodes"), "{report}");
    let base: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("JSON");
    assert!(base["net"].as_str().unwrap().starts_with("vato "));
    assert!(base["games"].is_string());
    let nodes = base["nodes"].as_object().expect("nodes");
    assert!(nodes.len() > 3);
    let positions = base["positions"].as_u64().unwrap() as usize;
    assert!(positions > 3 && positions <= nodes.len(), "{positions}");
    // The start, then nodes keyed by the turns to them, each a line of the node before.
    let start = &nodes[""];
    assert_eq!(start["d"], 3);
    for (path, node) in nodes {
        let lines = node["l"].as_array().unwrap();
        assert!(!lines.is_empty(), "{path}");
        let scores: Vec<i64> = lines.iter().map(|l| l[1].as_i64().unwrap()).collect();
        assert!(scores.is_sorted_by(|a, b| a >= b), "{path}: {scores:?}");
        assert!(scores.iter().any(|&s| s != 0), "{path}: {scores:?}");
        if !path.is_empty() {
            let (before, last) = path.rsplit_once(' ').unwrap_or(("", path));
            let parent = nodes[before]["l"].as_array().unwrap();
            assert!(parent.iter().any(|l| l[0] == *last), "{path}");
        }
    }
    // `--format text` writes text whatever the name.
    let text = dir.join("also.json");
    vato_book(&[
        "export",
        book.to_str().unwrap(),
        text.to_str().unwrap(),
        "--format",
        "text",
    ]);
    assert!(std::fs::read_to_string(&text).unwrap().starts_with("-\t"));
}
