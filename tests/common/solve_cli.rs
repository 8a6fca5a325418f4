//! `vato solve` run as a process, for the tests of the solver and its store.

/// Runs `vato solve ARGS` without the machine's default tables or proof store: (success,
/// standard output, standard error).
pub fn vato_solve(args: &[&str]) -> (bool, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
        .env("VATO_TABLEBASES", "")
        .env("VATO_PROOFS", "")
        .arg("solve")
        .args(args)
        .output()
        .expect("vato runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The `nodes N` of a `vato solve` answer.
pub fn nodes_of(answer: &str) -> u64 {
    let words: Vec<&str> = answer.split_whitespace().collect();
    let at = words
        .iter()
        .position(|&w| w == "nodes")
        .expect("a node count");
    words[at + 1].parse().expect("a number")
}
