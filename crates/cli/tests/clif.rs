//! Golden code-generation tests: the Cranelift IR `tessera dump clif` prints
//! for every sample and every benchmark program, compared exactly with the
//! files under `tests/clif/`.
//!
//! `samples/X.amp` is compared with `tests/clif/samples/X.clif` and
//! `bench/programs/X.amp` with `tests/clif/bench/X.clif`. The command is
//! `tessera dump clif PATH`, run from the repository root so the locations
//! in the comments print as relative paths; it must exit with 0 and print
//! nothing on stderr.
//!
//! Why: the JIT's speed is the code it emits. A change that adds
//! instructions to a hot loop, drops a proven range or declines a kernel
//! shows up here as a diff to review, instead of as a slower benchmark
//! weeks later.
//!
//! Blessing: `BLESS=1 cargo test -p tessera-cli --test clif` writes the
//! expected files from the actual output. Expected files whose program is
//! gone (stale after a rename) fail the test.

mod common;

use common::{bless_file, display_path, files_under, line_diff, repo_root, run_all};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The program directories covered, each with the directory of its expected
/// output.
const SUITES: [(&str, &str); 2] = [
    ("samples", "tests/clif/samples"),
    ("bench/programs", "tests/clif/bench"),
];

/// One program and where its expected IR lives.
struct Case {
    program: PathBuf,
    expected: PathBuf,
}

/// Every `.amp` program of every suite, in a stable order.
fn cases(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    for (programs, expected) in SUITES {
        for program in files_under(root, Path::new(programs)) {
            // Only the programs directly in the directory: that is what
            // `bench/run.sh` and the sample tests run.
            let direct = program.parent() == Some(Path::new(programs));
            if !direct || program.extension().is_none_or(|e| e != "amp") {
                continue;
            }
            let Some(stem) = program.file_stem() else {
                continue;
            };
            let expected = Path::new(expected).join(stem).with_extension("clif");
            cases.push(Case { program, expected });
        }
    }
    cases
}

/// Runs one case; returns the description of every mismatch (empty when it
/// passes).
fn run_case(root: &Path, case: &Case, bless: bool) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .args(["--color", "never", "dump", "clif"])
        .arg(display_path(&case.program))
        .output();
    let output = match output {
        Ok(output) => output,
        Err(err) => return vec![format!("cannot run tessera: {err}")],
    };
    let mut problems = Vec::new();
    if !output.status.success() {
        problems.push(format!("tessera exited with {}", output.status));
    }
    if !output.stderr.is_empty() {
        problems.push(format!(
            "stderr is not empty:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    if !problems.is_empty() {
        return problems;
    }
    let actual = String::from_utf8_lossy(&output.stdout);
    let expected_path = root.join(&case.expected);
    if bless {
        let written = expected_path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| bless_file(&expected_path, &actual));
        if let Err(err) = written {
            problems.push(format!("cannot bless {}: {err}", expected_path.display()));
        }
        return problems;
    }
    match std::fs::read(&expected_path) {
        Ok(bytes) => {
            let expected = String::from_utf8_lossy(&bytes);
            if expected != actual {
                problems.push(format!(
                    "the IR differs from {} (`-` expected, `+` actual):\n{}",
                    display_path(&case.expected),
                    line_diff(&expected, &actual),
                ));
            }
        }
        Err(err) => problems.push(format!(
            "cannot read {} (run with BLESS=1 to create it): {err}",
            display_path(&case.expected)
        )),
    }
    problems
}

#[test]
fn clif() {
    let root = repo_root();
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let cases = cases(&root);
    assert!(!cases.is_empty(), "no programs found");

    let mut failures: Vec<String> = Vec::new();
    let wanted: Vec<&Path> = cases.iter().map(|c| c.expected.as_path()).collect();
    for (_, expected_dir) in SUITES {
        if !root.join(expected_dir).is_dir() {
            continue;
        }
        for file in files_under(&root, Path::new(expected_dir)) {
            if !wanted.contains(&file.as_path()) {
                eprintln!("STALE {}: no program of that name\n", display_path(&file));
                failures.push(display_path(&file));
            }
        }
    }
    let results = run_all(&cases, |case| run_case(&root, case, bless));
    for (case, problems) in cases.iter().zip(results) {
        if !problems.is_empty() {
            eprintln!("FAIL {}", display_path(&case.program));
            for problem in &problems {
                eprintln!("  {problem}");
            }
            eprintln!();
            failures.push(display_path(&case.program));
        }
    }
    eprintln!(
        "clif: {} programs, {} failed{}",
        cases.len(),
        failures.len(),
        if bless { " (blessed)" } else { "" }
    );
    assert!(
        failures.is_empty(),
        "{} clif case(s) failed (details above; rerun with BLESS=1 to accept new output):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
