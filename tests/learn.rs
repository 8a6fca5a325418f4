//! `vato datagen` and `vato train` as a user runs them: the real binary, small settings.

use std::path::Path;
use std::process::{Command, Output};

fn vato(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vato"))
        .args(args)
        .output()
        .expect("cannot start the vato binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn data_from_two_runs_trains_a_network_that_the_engine_loads() {
    let dir = std::env::temp_dir().join(format!("vato-learn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.vdata"), dir.join("b.vdata"));
    for (file, seed) in [(&a, "1"), (&b, "2")] {
        let out = vato(&[
            "datagen",
            "--output",
            path(file),
            "--games",
            "4",
            "--depth",
            "2",
            "--threads",
            "2",
            "--seed",
            seed,
            "--hand-written",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let said = text(&out.stdout);
        assert!(said.starts_with("4 games (+"), "{said}");
        assert!(!dir.join(format!("{}.partial", file.display())).exists());
    }
    // Files join with cat.
    let joined = dir.join("joined.vdata");
    let mut bytes = std::fs::read(&a).unwrap();
    bytes.extend(std::fs::read(&b).unwrap());
    std::fs::write(&joined, &bytes).unwrap();

    let net = dir.join("net.nnue");
    let out = vato(&[
        "train",
        path(&joined),
        "--output",
        path(&net),
        "--epochs",
        "2",
        "--batch",
        "256",
        "--second-layer",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("wrote ") && text(&out.stdout).ends_with("second layer\n"),
        "{}",
        text(&out.stdout)
    );
    assert!(text(&out.stderr).contains("epoch   2/2: training loss"));

    // A damaged data file is refused in one line, and no network is written.
    let damaged = dir.join("damaged.vdata");
    let last = bytes.len() - 5;
    bytes[last] ^= 0x40;
    std::fs::write(&damaged, &bytes).unwrap();
    let other = dir.join("other.nnue");
    let out = vato(&["train", path(&damaged), "--output", path(&other)]);
    assert!(!out.status.success());
    let error = text(&out.stderr);
    assert!(error.contains("checksum mismatch"), "{error}");
    assert_eq!(error.trim_end().lines().count(), 1, "{error}");
    assert!(!other.exists());

    // The engine plays with the new network.
    let mut child = Command::new(env!("CARGO_BIN_EXE_vato"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let script = format!(
        "setoption name EvalFile value {}\ngo depth 3\nquit\n",
        net.display()
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = text(&out.stdout);
    assert!(said.contains("info string network: "), "{said}");
    assert!(said.contains("bestmove "), "{said}");

    // `bench` searches with it too; a damaged network file is refused in one line.
    let out = vato(&["bench", "--depth", "2", "--eval-file", path(&net)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).trim_end().ends_with(" nps"));
    let out = vato(&["bench", "--depth", "2", "--eval-file", path(&damaged)]);
    assert!(!out.status.success());
    let error = text(&out.stderr);
    assert!(error.contains("not a Vato network file"), "{error}");
    assert_eq!(error.trim_end().lines().count(), 1, "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn datagen_needs_a_budget() {
    let out = vato(&["datagen", "--output", "unused.vdata"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--depth N, --nodes N or both"));
}
