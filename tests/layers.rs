//! The crate's layers stay in order: no file of a layer names a layer above it.
//!
//! The order is the one docs/layout.md draws: `rules` at the bottom, `tablebase` on
//! it, `engine` on both, `book` on the engine, and `protocol` (which plays from the book),
//! `runner` and `learn` on top (`learn` may use the runner's opening generator). The shared helpers beside them (`echo`, `progress`,
//! `random`, `safe_file`, `shard`, `timestamp`) use no layer at all. The command line and
//! the fuzz targets' entry points stand above everything and are not checked.

use std::fs;
use std::path::Path;

/// Each checked top-level module with the modules of the crate it may name.
const ALLOWED: &[(&str, &[&str])] = &[
    ("rules", &[]),
    ("tablebase", &["rules"]),
    ("engine", &["rules", "tablebase"]),
    ("book", &["rules", "tablebase", "engine"]),
    ("solve", &["rules", "tablebase", "engine"]),
    (
        "protocol",
        &["rules", "tablebase", "engine", "book", "solve"],
    ),
    ("runner", &["rules", "tablebase", "engine"]),
    ("learn", &["rules", "tablebase", "engine", "runner"]),
    ("echo", &[]),
    ("progress", &[]),
    ("random", &[]),
    ("safe_file", &[]),
    ("shard", &[]),
    ("timestamp", &[]),
];

/// Modules that are helpers, which any layer may name.
const HELPERS: &[&str] = &[
    "echo",
    "progress",
    "random",
    "safe_file",
    "shard",
    "timestamp",
];

/// Every Rust file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    for entry in fs::read_dir(dir).expect("a readable source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules that `text` names through `crate::`, in paths and in grouped
/// imports such as `use crate::{rules::Rules, engine::tt}`.
fn named_modules(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let name = item.trim().split("::").next().unwrap_or("").trim();
                if !name.is_empty() {
                    names.push(name.to_string());
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

fn violations() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for &(module, allowed) in ALLOWED {
        let folder = src.join(module);
        let root = if folder.is_dir() {
            folder
        } else {
            src.join(format!("{module}.rs"))
        };
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        assert!(!files.is_empty(), "no source for module {module}");
        for file in files {
            let text = fs::read_to_string(&file).expect("a readable source file");
            for name in named_modules(&text) {
                let helper = HELPERS.contains(&name.as_str()) && !HELPERS.contains(&module);
                if name != module && !helper && !allowed.contains(&name.as_str()) {
                    let shown = file.strip_prefix(&src).unwrap_or(&file).display();
                    found.push(format!("src/{shown} ({module}) names crate::{name}"));
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn no_layer_names_a_layer_above_it() {
    let found = violations();
    assert!(
        found.is_empty(),
        "imports up the layers:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_paths_and_groups() {
    let text = "use crate::rules::Rules;\nuse crate::{engine::tt, protocol::echo};\n\
                let x = crate::runner::args::parse(y);";
    assert_eq!(
        named_modules(text),
        ["rules", "engine", "protocol", "runner"]
    );
}
