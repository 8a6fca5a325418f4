//! Jobs spread over machines: match and datagen shards add up to the unsharded run, the
//! GNU parallel scripts merge their shards into the single-machine result, and the Slurm
//! batch scripts do the same when run as the array tasks Slurm would start.

use std::path::{Path, PathBuf};
use std::process::Command;

mod scratch;

const VATO: &str = env!("CARGO_BIN_EXE_vato");

fn script(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Runs `command`, requires success and returns its standard output.
fn run(command: &mut Command) -> String {
    let out = command.output().expect("the command starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{command:?} failed\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A tiny deterministic match: depth-limited engines, a fixed seed and schedule.
fn match_words() -> Vec<String> {
    format!(
        "--engine name=net cmd={VATO} --engine name=hand cmd={VATO} option.UseNNUE=false \
         --each depth=2 --games 4 --rounds 2 --random-openings 4 --seed 11 --report-every 0"
    )
    .split_whitespace()
    .map(String::from)
    .collect()
}

/// The standings of a `--summary` report: everything after the lines naming the files.
fn standings(summary: &str) -> String {
    summary
        .lines()
        .skip_while(|line| !line.starts_with("Standings"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The summary of the unsharded match, played once for all the tests that compare with it.
fn single_run_standings() -> String {
    static SINGLE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SINGLE
        .get_or_init(|| {
            let dir = scratch::fresh_dir("distributed", "single");
            let pgn = dir.join("all.pgn");
            run(Command::new(VATO)
                .arg("match")
                .args(match_words())
                .arg("--pgn")
                .arg(&pgn));
            let summary = run(Command::new(VATO).args(["match", "--summary"]).arg(&pgn));
            assert!(summary.contains("8 games"), "{summary}");
            standings(&summary)
        })
        .clone()
}

#[test]
fn match_shards_merged_equal_the_single_run() {
    let dir = scratch::fresh_dir("distributed", "shards");
    let mut files = Vec::new();
    for k in 1..=3 {
        let pgn = dir.join(format!("shard-{k}.pgn"));
        let out = run(Command::new(VATO)
            .arg("match")
            .args(match_words())
            .args(["--shard", &format!("{k}/3"), "--pgn"])
            .arg(&pgn));
        assert!(out.contains(&format!("(shard {k}/3)")), "{out}");
        files.push(pgn);
    }
    // In any order: the merge puts the games back in schedule order.
    files.reverse();
    let merged = run(Command::new(VATO).args(["match", "--summary"]).args(&files));
    assert_eq!(standings(&merged), single_run_standings());
    // A shard plays whole colour-swapped pairs: 8 games, 4 pairs, over 3 shards.
    let counts: Vec<usize> = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .matches("[GameNumber ")
                .count()
        })
        .collect();
    assert_eq!(counts, [2, 2, 4]);
}

#[test]
fn a_shard_needs_a_fixed_schedule_and_a_valid_k_of_n() {
    let refused = |extra: &str| {
        let out = Command::new(VATO)
            .arg("match")
            .args(match_words())
            .args(extra.split_whitespace())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{extra}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(refused("--shard 4/3").contains("K/N"));
    assert!(refused("--shard x").contains("K/N"));
    assert!(refused("--shard 1/2 --sprt elo0=0 elo1=10").contains("--sprt"));
}

/// A scratch directory holding a login file of two job slots on this machine (`2/:`), or
/// `None` when GNU parallel is missing. It is a Debian package, not a crate: CI installs
/// it and sets `VATO_REQUIRE_PARALLEL`, so there its absence fails the test; elsewhere
/// the test is skipped.
fn local_logins(name: &str) -> Option<(PathBuf, PathBuf)> {
    let found = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("VATO_REQUIRE_PARALLEL").is_none(),
            "GNU parallel is not installed"
        );
        eprintln!("GNU parallel is not installed: the script test is skipped");
        return None;
    }
    let dir = scratch::fresh_dir("distributed", name);
    let logins = dir.join("logins");
    std::fs::write(&logins, "2/:\n").unwrap();
    Some((dir, logins))
}

#[test]
fn parallel_match_on_two_local_job_slots_equals_the_single_run() {
    let Some((dir, logins)) = local_logins("parallel-match") else {
        return;
    };
    let parallel_match = || {
        run(Command::new(script("scripts/parallel-match.sh"))
            .env("VATO", VATO)
            .arg(&logins)
            .arg("3")
            .arg(dir.join("run"))
            .args(match_words()))
    };
    assert_eq!(standings(&parallel_match()), single_run_standings());
    // Finished shards are kept: a second run plays nothing and prints the same.
    let first_records = std::fs::read(dir.join("run/shard-1.pgn")).unwrap();
    assert_eq!(standings(&parallel_match()), single_run_standings());
    assert_eq!(
        std::fs::read(dir.join("run/shard-1.pgn")).unwrap(),
        first_records
    );
}

#[test]
fn parallel_datagen_parts_hold_the_single_runs_records() {
    let Some((dir, logins)) = local_logins("parallel-datagen") else {
        return;
    };
    let words = [
        "--games",
        "4",
        "--depth",
        "2",
        "--seed",
        "3",
        "--hand-written",
    ];
    run(Command::new(script("scripts/parallel-datagen.sh"))
        .env("VATO", VATO)
        .arg(&logins)
        .arg("2")
        .arg(dir.join("parts"))
        .args(words));
    run(Command::new(VATO)
        .arg("datagen")
        .args(words)
        .arg("--output")
        .arg(dir.join("whole.vdata")));
    let mut parts = std::fs::read(dir.join("parts/part-1.vdata")).unwrap();
    parts.extend(std::fs::read(dir.join("parts/part-2.vdata")).unwrap());
    let records = |bytes: &[u8]| {
        let mut records = vato::learn::data::parse(bytes).unwrap();
        records.sort_by_key(|r| format!("{r:?}"));
        records
    };
    let whole = std::fs::read(dir.join("whole.vdata")).unwrap();
    assert_eq!(records(&parts), records(&whole));
}

/// The small book build of the book tests: shallow searches, three lines, three plies.
const BOOK_WORDS: [&str; 8] = [
    "--depth", "3", "--lines", "3", "--margin", "60", "--plies", "3",
];

#[test]
fn parallel_book_shards_merge_into_the_single_build() {
    let Some((dir, logins)) = local_logins("parallel-book") else {
        return;
    };
    run(Command::new(script("scripts/parallel-book.sh"))
        .env("VATO", VATO)
        .arg(&logins)
        .arg("2")
        .arg(dir.join("parts"))
        .args(BOOK_WORDS));
    run(Command::new(VATO)
        .args(["book", "build", "--out"])
        .arg(dir.join("whole.book"))
        .args(BOOK_WORDS));
    assert_eq!(
        std::fs::read(dir.join("parts/book.book")).unwrap(),
        std::fs::read(dir.join("whole.book")).unwrap()
    );
}

#[test]
fn slurm_book_array_and_merge_equal_the_single_build() {
    let dir = scratch::fresh_dir("distributed", "slurm-book");
    let mut args: Vec<&Path> = vec![&dir];
    args.extend(BOOK_WORDS.iter().map(Path::new));
    for task in 1..=3 {
        array_task("scripts/slurm/book.sbatch", task, 3, &[], &args);
    }
    run(Command::new(VATO)
        .args(["book", "merge"])
        .arg(dir.join("merged.book"))
        .args((1..=3).map(|k| dir.join(format!("part-{k}.book")))));
    run(Command::new(VATO)
        .args(["book", "build", "--out"])
        .arg(dir.join("whole.book"))
        .args(BOOK_WORDS));
    assert_eq!(
        std::fs::read(dir.join("merged.book")).unwrap(),
        std::fs::read(dir.join("whole.book")).unwrap()
    );
}

/// Runs a batch script as Slurm would run task `task` of an array of `tasks`.
fn array_task(path: &str, task: u32, tasks: u32, env: &[(&str, &str)], args: &[&Path]) {
    let mut command = Command::new("sh");
    command
        .arg(script(path))
        .args(args)
        .env("VATO", VATO)
        .env("SLURM_ARRAY_TASK_ID", task.to_string())
        .env("SLURM_ARRAY_TASK_COUNT", tasks.to_string());
    for (key, value) in env {
        command.env(key, value);
    }
    run(&mut command);
}

/// Slurm itself is not started here: each array task's script is run with the variables
/// Slurm sets, which is what the batch scripts see on a cluster.
#[test]
fn slurm_match_array_and_merge_equal_the_single_run() {
    let dir = scratch::fresh_dir("distributed", "slurm-match");
    for task in 1..=2 {
        let mut command = Command::new("sh");
        command
            .arg(script("scripts/slurm/match.sbatch"))
            .arg(&dir)
            .args(match_words())
            .env("VATO", VATO)
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "2");
        run(&mut command);
    }
    let merged = run(Command::new("sh")
        .arg(script("scripts/slurm/merge-match.sbatch"))
        .arg(&dir)
        .env("VATO", VATO));
    assert_eq!(standings(&merged), single_run_standings());
}

#[test]
fn slurm_datagen_and_tablebase_arrays_run_their_tasks() {
    let dir = scratch::fresh_dir("distributed", "slurm-datagen");
    for task in 1..=2 {
        array_task(
            "scripts/slurm/datagen.sbatch",
            task,
            2,
            &[],
            &[
                &dir,
                Path::new("--games"),
                Path::new("2"),
                Path::new("--depth"),
                Path::new("2"),
            ],
        );
    }
    for k in 1..=2 {
        assert!(dir.join(format!("part-{k}.vdata")).is_file());
    }

    let tables = scratch::fresh_dir("distributed", "slurm-tablebase");
    let layer_task = |stones: &str, task: u32, tasks: u32| {
        let mut command = Command::new("sh");
        command
            .arg(script("scripts/slurm/tablebase.sbatch"))
            .arg(&tables)
            .env("VATO", VATO)
            .env("STONES", stones)
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", tasks.to_string());
        command.output().unwrap()
    };
    assert!(layer_task("2", 1, 1).status.success());
    // A pair whose smaller layers are not there yet is refused, not built wrong.
    let early = layer_task("4", 1, 2);
    assert!(!early.status.success());
    assert!(String::from_utf8_lossy(&early.stderr).contains("missing"));
    assert!(layer_task("3", 1, 1).status.success());
    for task in 1..=2 {
        assert!(layer_task("4", task, 2).status.success());
    }
    let stats = run(Command::new(VATO)
        .args(["tablebase", "stats", "--dir"])
        .arg(&tables));
    assert!(
        stats.contains("complete: every layer of up to 4 stones"),
        "{stats}"
    );
}

/// The campaign's Slurm array: a task runs its line of the jobs that `campaign.sh jobs`
/// wrote, into the shared store, which then proves the rung; a task past the last line
/// fails with a message.
#[test]
fn slurm_campaign_array_runs_a_rung_into_the_shared_store() {
    let dir = scratch::fresh_dir("distributed", "slurm-campaign");
    let tables = dir.join("tables");
    run(Command::new(VATO)
        .args(["tablebase", "build", "--stones", "3", "--dir"])
        .arg(&tables));
    let rung = "second-d3e3W-c4c3Ad3W";
    let campaign = |command: &str, extra: &[&str]| {
        run(Command::new("bash")
            .arg(script("scripts/campaign.sh"))
            .arg(command)
            .arg("--store")
            .arg(dir.join("store"))
            .arg("--data")
            .arg(dir.join("data"))
            .arg("--tablebase-path")
            .arg(&tables)
            .args(["--tablebase-stones", "3"])
            .args(extra)
            .arg(rung)
            .env("VATO", VATO)
            .env("VATO_TABLEBASES", "")
            .env("VATO_PROOFS", ""))
    };
    let jobs = campaign(
        "jobs",
        &["--time", "30", "--memory", "64", "--threads", "1"],
    );
    assert_eq!(jobs.lines().count(), 1, "{jobs}");
    let file = dir.join("jobs.txt");
    std::fs::write(&file, jobs).unwrap();
    array_task("scripts/slurm/campaign.sbatch", 1, 1, &[], &[&file]);
    assert!(
        campaign("status", &[]).starts_with(&format!("{rung}\twin\n")),
        "the store proves the rung"
    );
    assert!(dir.join(format!("data/{rung}.proof")).is_file());
    let past = Command::new("sh")
        .arg(script("scripts/slurm/campaign.sbatch"))
        .arg(&file)
        .env("SLURM_ARRAY_TASK_ID", "2")
        .output()
        .unwrap();
    assert!(!past.status.success());
    assert!(String::from_utf8_lossy(&past.stderr).contains("has no line 2"));
}
