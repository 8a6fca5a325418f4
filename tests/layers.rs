//! The crate's layers stay in order: no file of a layer names a layer above it.
//!
//! The order is the one docs/layout.md draws: `rules` at the bottom, `tablebase` on
//! it, `engine` on both, `book` on the engine, and `protocol` (which plays from the book),
//! `runner` and `learn` on top (`learn` may use the runner's opening generator). The
//! shared helpers beside them (`data_folder`, `echo`, `key_search`, `progress`, `random`,
//! `safe_file`, `shard`, `timestamp`) use no layer at all. The command line and
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
    ("data_folder", &[]),
    ("echo", &[]),
    ("key_search", &[]),
    ("progress", &[]),
    ("random", &[]),
    ("safe_file", &[]),
    ("shard", &[]),
    ("timestamp", &[]),
];

/// Modules that are helpers, which any layer may name.
const HELPERS: &[&str] = &[
    "data_folder",
    "echo",
    "key_search",
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

/// The sibling files that a file of a folder names, by `super::name` or
/// `crate::<folder path>::name`, in paths and grouped imports. The file's test module is
/// left out (there `super` is the file itself), and so are comments.
fn named_siblings(text: &str, folder_path: &str, siblings: &[String]) -> Vec<String> {
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or(text);
    // Comments, doc links included, are not dependencies.
    let code: String = before_tests
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let code = code.as_str();
    let prefixes = ["super::".to_string(), format!("crate::{folder_path}::")];
    let mut names = Vec::new();
    for prefix in &prefixes {
        for (at, _) in code.match_indices(prefix.as_str()) {
            // `super::super::` and the like climb out of the folder.
            let rest = &code[at + prefix.len()..];
            let items: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => top_level_items(group),
                None => vec![rest],
            };
            for item in items {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if siblings.contains(&name) && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names
}

/// The items of a grouped import up to its closing brace, split at the commas of its own
/// level: `a::{b, c}, d}` gives `a::{b, c}` and `d`.
fn top_level_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..at]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

/// The circles of a graph given as each node's successors: every strongly connected part
/// of more than one node (or a node naming itself), each as its nodes, sorted.
fn circles(edges: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let index = |name: &str| edges.iter().position(|(n, _)| n == name);
    let count = edges.len();
    // Which nodes each reaches, by a search from each: the folders are small.
    let reach: Vec<Vec<bool>> = (0..count)
        .map(|start| {
            let mut seen = vec![false; count];
            let mut stack = vec![start];
            while let Some(at) = stack.pop() {
                for next in edges[at].1.iter().filter_map(|n| index(n)) {
                    if !seen[next] {
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
            seen
        })
        .collect();
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut placed = vec![false; count];
    for a in 0..count {
        if placed[a] || !reach[a][a] {
            continue;
        }
        let mut part: Vec<String> = (0..count)
            .filter(|&b| reach[a][b] && reach[b][a])
            .inspect(|&b| placed[b] = true)
            .map(|b| edges[b].0.clone())
            .collect();
        part.sort();
        found.push(part);
    }
    found
}

/// Every folder under `dir` with its path below `src`, joined by `::`.
fn folders(dir: &Path, path: &str, out: &mut Vec<(std::path::PathBuf, String)>) {
    for entry in fs::read_dir(dir).expect("a readable source folder") {
        let entry = entry.expect("a folder entry").path();
        if entry.is_dir() {
            let name = entry.file_name().unwrap().to_string_lossy().to_string();
            let inner = if path.is_empty() {
                name
            } else {
                format!("{path}::{name}")
            };
            folders(&entry, &inner, out);
            out.push((entry, inner));
        }
    }
}

/// The circles between the files of each folder (its `mod.rs`, which only declares and
/// re-exports, left out), named `folder: a -> b -> a`.
fn circles_in_folders() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    folders(&src, "", &mut all);
    let mut found = Vec::new();
    for (folder, path) in all {
        let mut files: Vec<(String, String)> = fs::read_dir(&folder)
            .expect("a readable source folder")
            .map(|e| e.expect("a folder entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .map(|p| {
                let stem = p.file_stem().unwrap().to_string_lossy().to_string();
                (
                    stem,
                    fs::read_to_string(&p).expect("a readable source file"),
                )
            })
            .filter(|(stem, _)| stem != "mod")
            .collect();
        files.sort();
        let siblings: Vec<String> = files.iter().map(|(stem, _)| stem.clone()).collect();
        let edges: Vec<(String, Vec<String>)> = files
            .iter()
            .map(|(stem, text)| {
                let mut named = named_siblings(text, &path, &siblings);
                named.retain(|n| n != stem);
                (stem.clone(), named)
            })
            .collect();
        for part in circles(&edges) {
            found.push(format!(
                "src/{}: {}",
                path.replace("::", "/"),
                part.join(", ")
            ));
        }
    }
    found.sort();
    found
}

#[test]
fn the_files_of_a_folder_name_each_other_in_one_direction() {
    let found = circles_in_folders();
    assert!(
        found.is_empty(),
        "files that name each other round a circle (untie them so the folder reads one \
         way):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_finder_sees_a_circle_and_only_a_circle() {
    let graph = |pairs: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        pairs
            .iter()
            .map(|(n, s)| (n.to_string(), s.iter().map(|x| x.to_string()).collect()))
            .collect()
    };
    let one_way = graph(&[("a", &["b"]), ("b", &["c"]), ("c", &[]), ("d", &["a", "c"])]);
    assert!(circles(&one_way).is_empty());
    let round = graph(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"]), ("d", &["a"])]);
    assert_eq!(circles(&round), [["a", "b", "c"]]);
}

#[test]
fn the_sibling_scan_sees_super_groups_and_crate_paths_but_not_tests() {
    let siblings: Vec<String> = ["dfpn", "strategy", "table", "codes", "defence"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let text = "use super::dfpn::Search;\nuse super::{table::INFINITE, strategy};\n\
                let c = crate::solve::codes::board_code(x);\nuse super::super::rules;\n\
                /// See [`super::defence`].\n\
                #[cfg(test)]\nmod tests { use super::*; use super::codes; }";
    assert_eq!(
        named_siblings(text, "solve", &siblings),
        ["dfpn", "table", "strategy", "codes"]
    );
    let nested = "use super::{table::{A, B}, codes};";
    assert_eq!(
        named_siblings(nested, "solve", &siblings),
        ["table", "codes"]
    );
}
