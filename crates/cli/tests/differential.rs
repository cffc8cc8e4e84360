//! Differential testing of `tessera run` against the C++ oracle, on random
//! well-defined programs from `tessera_testkit::programs`.
//!
//! Not part of `cargo test`: the test is `#[ignore]`d, and is run by hand:
//!
//! ```sh
//! cargo build --release
//! TESSERA_BIN=target/release/tessera TESSERA_DIFF_ITERS=300 \
//!     cargo test -p tessera-cli --test differential -- --ignored --nocapture
//! ```
//!
//! Settings (environment):
//!
//! - `TESSERA_DIFF_ITERS`: how many programs (default 200);
//! - `TESSERA_DIFF_SEED`: the seed of the run (default 1); program `i` of
//!   seed `s` is always the same text;
//! - `TESSERA_DIFF_START`: the number of the first program (default 0);
//! - `TESSERA_DIFF_JOBS`: programs tested at once (default: the number of
//!   processors);
//! - `TESSERA_DIFF_GAPS`: when 1, the programs also use what Tessera is
//!   known to reject or get wrong (`programs::Options::known_gaps`), to
//!   see those findings again;
//! - `TESSERA_DIFF_ENGINES`: the engines `tessera run` is tried with, comma
//!   separated, each the words after `--engine` (default `interp,jit`; for
//!   example `interp,jit --threads 1,jit --threads 4`);
//! - `TESSERA_BIN`: the `tessera` binary (default: the one cargo built for
//!   this test);
//! - `TESSERA_ORACLE`: the oracle (default `<workspace>/../shared/oracle/amp-oracle`).
//!
//! For every program: `tessera check` must accept it (a rejection is a bug of
//! the generator or of the checker), the oracle must compile and run it
//! (g++ rejecting it, exit status 125, or the emulation reporting undefined
//! behaviour or an exception, an `amp-oracle:` message, is a bug of the
//! generator), and `tessera run` must print the same stdout, byte for byte,
//! and exit with the same status, under each engine (the first engine that
//! disagrees gives `.tessera.stdout`). Every finding is written to
//! `target/differential/` as `KIND_sSEED_N.amp` (KIND: `rejected`,
//! `oracle` or `mismatch`), beside `KIND_sSEED_N.txt` with what happened
//! and, when there are outputs, `.tessera.stdout` and `.oracle.stdout`.
//! The test fails when there is a finding. Without the oracle or without
//! g++ it says so and passes.
//!
//! A mismatch is a bug of Tessera or, rarely, of g++: g++ folds
//! `0 - (float)i` to `-(float)i`, which prints `-0` where IEEE arithmetic
//! gives `+0` (the generator avoids that shape). Minimise it by hand and
//! decide with the C++ rules.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tessera_testkit::harness::{Ran, env_number, run_limited};
use tessera_testkit::programs::{self, Options};

/// Longest a `tessera check` or `tessera run` may take.
const TESSERA_LIMIT: Duration = Duration::from_secs(60);

/// Longest an oracle invocation may take (compiling is ~1.5 s).
const ORACLE_LIMIT: Duration = Duration::from_secs(180);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/cli lies two levels below the workspace")
        .to_path_buf()
}

/// The oracle, if it and g++ are there.
fn find_oracle(root: &Path) -> Result<PathBuf, String> {
    let oracle = std::env::var_os("TESSERA_ORACLE")
        .map_or_else(|| root.join("../shared/oracle/amp-oracle"), PathBuf::from);
    if !oracle.is_file() {
        return Err(format!("no oracle at {}", oracle.display()));
    }
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let probe = Command::new(&compiler)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match probe {
        Ok(status) if status.success() => Ok(oracle),
        _ => Err(format!("no working {compiler}")),
    }
}

fn status_text(status: &Result<i32, String>) -> String {
    match status {
        Ok(code) => format!("exit status {code}"),
        Err(why) => why.clone(),
    }
}

/// What went wrong with one program, if anything: a kind and a report.
struct Finding {
    kind: &'static str,
    report: String,
    tessera_stdout: Option<Vec<u8>>,
    oracle_stdout: Option<Vec<u8>>,
}

/// Tests one program, written at `file`, under each of `engines` (the words
/// after `--engine`, such as `jit --threads 1`).
fn test_one(tessera: &Path, oracle: &Path, file: &Path, engines: &[String]) -> Option<Finding> {
    let check = run_limited(
        Command::new(tessera)
            .env("NO_COLOR", "1")
            .args(["check", "--color", "never"])
            .arg(file),
        TESSERA_LIMIT,
    );
    if check.status != Ok(0) {
        return Some(Finding {
            kind: "rejected",
            report: format!(
                "`tessera check` rejected the program ({}):\n{}{}",
                status_text(&check.status),
                String::from_utf8_lossy(&check.stdout),
                check.stderr
            ),
            tessera_stdout: None,
            oracle_stdout: None,
        });
    }
    let reference = run_limited(Command::new(oracle).arg(file), ORACLE_LIMIT);
    // 125 with g++'s diagnostics: g++ rejected the program; 3 and 4 with a
    // message: the emulation found undefined behaviour or threw. (A program
    // may exit with 3, 4 or 125 itself: `main` returns a computed status.)
    let diagnosed = reference.stderr.contains("amp-oracle:");
    let rejected = reference.status == Ok(125) && reference.stderr.contains("error");
    if rejected || diagnosed || reference.status.is_err() {
        return Some(Finding {
            kind: "oracle",
            report: format!(
                "the oracle did not run the program ({}); a generator bug:\n{}",
                status_text(&reference.status),
                reference.stderr
            ),
            tessera_stdout: None,
            oracle_stdout: Some(reference.stdout),
        });
    }
    let mut report = String::new();
    let mut first_stdout = None;
    for engine in engines {
        let ours = run_limited(
            Command::new(tessera)
                .env("NO_COLOR", "1")
                .args(["run", "--color", "never", "--engine"])
                .args(engine.split_whitespace())
                .arg(file),
            TESSERA_LIMIT,
        );
        if ours.stdout == reference.stdout && ours.status == reference.status {
            continue;
        }
        mismatch_report(&mut report, engine, &ours, &reference);
        first_stdout.get_or_insert(ours.stdout);
    }
    let tessera_stdout = first_stdout?;
    if !reference.stderr.is_empty() {
        let _ = writeln!(report, "oracle stderr:\n{}", reference.stderr);
    }
    Some(Finding {
        kind: "mismatch",
        report,
        tessera_stdout: Some(tessera_stdout),
        oracle_stdout: Some(reference.stdout),
    })
}

/// Describes how `tessera run --engine ENGINE` (`ours`) differs from the
/// oracle.
fn mismatch_report(report: &mut String, engine: &str, ours: &Ran, reference: &Ran) {
    let _ = writeln!(
        report,
        "tessera --engine {engine}: {}; oracle: {}",
        status_text(&ours.status),
        status_text(&reference.status)
    );
    if ours.stdout != reference.stdout {
        let ours_text = String::from_utf8_lossy(&ours.stdout);
        let theirs_text = String::from_utf8_lossy(&reference.stdout);
        let first = ours_text
            .lines()
            .zip(theirs_text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| ours_text.lines().count().min(theirs_text.lines().count()));
        let _ = writeln!(report, "stdout differs from line {}:", first + 1);
        let _ = writeln!(
            report,
            "  tessera: {:?}",
            ours_text.lines().nth(first).unwrap_or("<end>")
        );
        let _ = writeln!(
            report,
            "  oracle:  {:?}",
            theirs_text.lines().nth(first).unwrap_or("<end>")
        );
    }
    if !ours.stderr.is_empty() {
        let _ = writeln!(report, "tessera stderr:\n{}", ours.stderr);
    }
}

/// Writes `finding` for program `name` to `dir`; returns a one-line summary.
fn record(dir: &Path, name: &str, text: &str, finding: &Finding) -> String {
    let stem = format!("{}_{name}", finding.kind);
    let write = |ext: &str, bytes: &[u8]| {
        let path = dir.join(format!("{stem}.{ext}"));
        if let Err(err) = std::fs::write(&path, bytes) {
            eprintln!("cannot write {}: {err}", path.display());
        }
    };
    write("amp", text.as_bytes());
    write("txt", finding.report.as_bytes());
    if let Some(out) = &finding.tessera_stdout {
        write("tessera.stdout", out);
    }
    if let Some(out) = &finding.oracle_stdout {
        write("oracle.stdout", out);
    }
    let first = finding.report.lines().next().unwrap_or_default();
    format!("{stem}: {first}")
}

#[test]
#[ignore = "slow: compiles every program with g++; run by hand with --ignored"]
fn differential() {
    let root = workspace();
    let oracle = match find_oracle(&root) {
        Ok(oracle) => oracle,
        Err(why) => {
            eprintln!("differential: skipped, {why}");
            return;
        }
    };
    let tessera = std::env::var_os("TESSERA_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_tessera")),
        |p| {
            let p = PathBuf::from(p);
            if p.is_relative() { root.join(p) } else { p }
        },
    );
    let iters = env_number("TESSERA_DIFF_ITERS").unwrap_or(200) as usize;
    let seed = env_number("TESSERA_DIFF_SEED").unwrap_or(1);
    let start = env_number("TESSERA_DIFF_START").unwrap_or(0) as usize;
    let options = Options {
        known_gaps: env_number("TESSERA_DIFF_GAPS") == Some(1),
    };
    let jobs = env_number("TESSERA_DIFF_JOBS").map_or_else(
        || std::thread::available_parallelism().map_or(2, usize::from),
        |n| n.max(1) as usize,
    );
    let engines: Vec<String> = std::env::var("TESSERA_DIFF_ENGINES")
        .unwrap_or_else(|_| "interp,jit".to_string())
        .split(',')
        .map(|e| e.trim().to_string())
        .filter(|e| !e.is_empty())
        .collect();
    let out_dir = root.join("target/differential");
    let work_dir = out_dir.join("work");
    std::fs::create_dir_all(&work_dir).expect("target/differential can be created");
    eprintln!(
        "differential: {iters} programs from #{start} of seed {seed}, {jobs} at a time, \
         {options:?}, engines {engines:?}, tessera {}, oracle {}",
        tessera.display(),
        oracle.display()
    );

    let next = AtomicUsize::new(start);
    let done = AtomicUsize::new(0);
    let findings: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= start + iters {
                        break;
                    }
                    let name = format!("s{seed}_{i}");
                    let text = programs::program_with(seed, i, options);
                    let file = work_dir.join(format!("{name}.amp"));
                    if let Err(err) = std::fs::write(&file, &text) {
                        panic!("cannot write {}: {err}", file.display());
                    }
                    if let Some(finding) = test_one(&tessera, &oracle, &file, &engines) {
                        let line = record(&out_dir, &name, &text, &finding);
                        eprintln!("differential: {line}");
                        findings
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .push((i, line));
                    }
                    let _ = std::fs::remove_file(&file);
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n.is_multiple_of(25) {
                        eprintln!(
                            "differential: {n}/{iters} programs in {:.0?}",
                            started.elapsed()
                        );
                    }
                }
            });
        }
    });
    let mut findings = findings
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    findings.sort();
    eprintln!(
        "differential: {iters} programs in {:.0?}, {} findings (in {})",
        started.elapsed(),
        findings.len(),
        out_dir.display()
    );
    let summary: Vec<String> = findings.into_iter().map(|(_, line)| line).collect();
    assert!(
        summary.is_empty(),
        "{} of {iters} programs went wrong:\n{}",
        summary.len(),
        summary.join("\n")
    );
}
