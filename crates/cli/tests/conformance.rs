//! Microsoft's C++ AMP conformance suite as a yardstick: how many of its
//! compile-fail tests `tessera check` rejects for the rule they test, and how
//! many of its runnable tests it accepts.
//!
//! Not part of `cargo test` (the suite is data outside the project, and the
//! counts are a measurement, not a pass/fail line); run by hand:
//!
//! ```sh
//! cargo build --release
//! TESSERA_BIN=target/release/tessera \
//!     cargo test -p tessera-cli --test conformance -- --ignored --nocapture
//! ```
//!
//! Settings (environment): `TESSERA_CONFORMANCE`, the suite (default
//! `<workspace>/../shared/conformance`); `TESSERA_BIN`, the binary (default:
//! the one cargo built for this test); `TESSERA_CONFORMANCE_JOBS`, checks at
//! once (default: the number of processors).
//!
//! A compile-fail test lists the MSVC errors it expects (`negative-tests.tsv`,
//! from its `//#Expects:` lines). It counts as *rejected for the rule* when
//! one of those codes is among the `msvc` fields of the JSON diagnostics,
//! *rejected for another reason* when Tessera reports errors but none of
//! those, *accepted* when it reports no error, and *crashed* when `tessera`
//! ends any other way (a signal, an unexpected exit status, the time limit).
//! Each other test (a runnable one) counts as accepted, rejected or crashed.
//! When the project has its own `amptest` shim (`tests/conformance/`), it is
//! passed with `-I`. The report goes to standard output and to
//! `target/conformance/report.txt`; the test fails only on a crash.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tessera_testkit::harness::{env_number, run_limited};

/// Longest one `tessera check` may take.
const LIMIT: Duration = Duration::from_secs(60);

/// How one test came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// A compile-fail test rejected with one of the MSVC codes it expects.
    RightRule,
    /// Rejected, but not for an expected code (or a runnable test rejected).
    Rejected,
    /// No error reported.
    Accepted,
    /// `tessera` did not answer normally.
    Crashed,
}

/// One test file and what it expects.
struct Case {
    /// The test's folder under `Tests/`, e.g. `2_Cxx_Lang_Exte/.../Test.04`.
    dir: String,
    file: PathBuf,
    /// MSVC codes for a compile-fail test; `None` for a runnable one.
    expects: Option<BTreeSet<String>>,
}

/// What `tessera check` said about one case.
struct Outcome {
    verdict: Verdict,
    /// The first error's code and its MSVC code, for the report.
    first_error: Option<String>,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn suite_root() -> PathBuf {
    std::env::var_os("TESSERA_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/conformance"))
}

/// The compile-fail tests (from `negative-tests.tsv`) and every other
/// `test.cpp` under `Tests/`.
fn cases(root: &Path) -> Vec<Case> {
    let tsv = std::fs::read_to_string(root.join("negative-tests.tsv")).unwrap_or_default();
    let mut negative: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(dir), Some(codes)) = (cols.first(), cols.get(2)) else {
            continue;
        };
        let codes = codes
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect();
        negative.insert((*dir).to_string(), codes);
    }
    let tests = root.join("Tests");
    let mut files = Vec::new();
    walk(&tests, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let dir = file
                .parent()
                .and_then(|p| p.strip_prefix(&tests).ok())
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let expects = negative.get(&dir).cloned();
            Case { dir, file, expects }
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.file_name().is_some_and(|n| n == "test.cpp") {
            out.push(path);
        }
    }
}

/// Runs `tessera check --format json` on one case and judges the answer.
fn judge(bin: &Path, includes: &[PathBuf], case: &Case) -> Outcome {
    let mut command = Command::new(bin);
    command.args(["--color", "never", "check", "--format", "json"]);
    for dir in includes {
        command.arg("-I").arg(dir);
    }
    command.arg(&case.file);
    let ran = run_limited(&mut command, LIMIT);
    let status = match ran.status {
        Ok(code @ (0 | 1)) => code,
        _ => {
            return Outcome {
                verdict: Verdict::Crashed,
                first_error: None,
            };
        }
    };
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let errors: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|d| d["severity"] == "error")
        .collect();
    let first_error = errors.first().map(|d| {
        let code = d["code"].as_str().unwrap_or("?");
        match d["msvc"].as_str() {
            Some(msvc) => format!("{code} ({msvc})"),
            None => code.to_string(),
        }
    });
    let verdict = if status == 0 || errors.is_empty() {
        Verdict::Accepted
    } else if let Some(expects) = &case.expects
        && errors
            .iter()
            .filter_map(|d| d["msvc"].as_str())
            .any(|m| expects.contains(m))
    {
        Verdict::RightRule
    } else {
        Verdict::Rejected
    };
    Outcome {
        verdict,
        first_error,
    }
}

/// Counts per verdict.
#[derive(Default, Clone, Copy)]
struct Tally {
    right: usize,
    rejected: usize,
    accepted: usize,
    crashed: usize,
}

impl Tally {
    fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::RightRule => self.right += 1,
            Verdict::Rejected => self.rejected += 1,
            Verdict::Accepted => self.accepted += 1,
            Verdict::Crashed => self.crashed += 1,
        }
    }
    fn total(&self) -> usize {
        self.right + self.rejected + self.accepted + self.crashed
    }
}

/// The chapter of a test: its first folder, e.g. `2_Cxx_Lang_Exte`.
fn chapter(dir: &str) -> &str {
    dir.split('/').next().unwrap_or(dir)
}

#[test]
#[ignore = "a measurement over ../shared/conformance; run by hand"]
fn conformance_suite() {
    let root = suite_root();
    if !root.join("negative-tests.tsv").is_file() {
        println!(
            "conformance: no suite at {}; nothing measured",
            root.display()
        );
        return;
    }
    // A relative `TESSERA_BIN` is taken from the workspace, where it was typed.
    let bin = std::env::var_os("TESSERA_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_tessera")),
        |b| workspace().join(b),
    );
    let shim = workspace().join("tests/conformance");
    let includes: Vec<PathBuf> = [shim.clone(), shim.join("amptest")]
        .into_iter()
        .filter(|d| d.is_dir())
        .collect();
    let cases = cases(&root);
    let jobs = env_number("TESSERA_CONFORMANCE_JOBS").map_or_else(
        || std::thread::available_parallelism().map_or(2, usize::from),
        |n| n.max(1) as usize,
    );
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> =
        Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let outcome = judge(&bin, &includes, case);
                    if let Ok(mut all) = outcomes.lock() {
                        all[i] = Some(outcome);
                    }
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap_or_default();
    let report = report(&cases, &outcomes);
    print!("{report}");
    let out_dir = workspace().join("target/conformance");
    let _ = std::fs::create_dir_all(&out_dir);
    let _ = std::fs::write(out_dir.join("report.txt"), &report);
    let crashed: Vec<&str> = cases
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| o.as_ref().is_some_and(|o| o.verdict == Verdict::Crashed))
        .map(|(c, _)| c.dir.as_str())
        .collect();
    assert!(crashed.is_empty(), "tessera crashed on: {crashed:#?}");
}

/// The report: totals, a line per chapter, the accepted compile-fail tests,
/// and the most common first errors of the rejected runnable ones.
fn report(cases: &[Case], outcomes: &[Option<Outcome>]) -> String {
    let mut negative: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut positive: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut accepted_negative = Vec::new();
    let mut blockers: BTreeMap<String, usize> = BTreeMap::new();
    for (case, outcome) in cases.iter().zip(outcomes) {
        let Some(outcome) = outcome else { continue };
        let table = if case.expects.is_some() {
            &mut negative
        } else {
            &mut positive
        };
        table
            .entry(chapter(&case.dir))
            .or_default()
            .add(outcome.verdict);
        if case.expects.is_some() && outcome.verdict == Verdict::Accepted {
            accepted_negative.push(case.dir.as_str());
        }
        if case.expects.is_none()
            && outcome.verdict == Verdict::Rejected
            && let Some(first) = &outcome.first_error
        {
            *blockers.entry(first.clone()).or_default() += 1;
        }
    }
    let mut out = String::new();
    let sum = |t: &BTreeMap<&str, Tally>| {
        t.values().fold(Tally::default(), |mut a, b| {
            a.right += b.right;
            a.rejected += b.rejected;
            a.accepted += b.accepted;
            a.crashed += b.crashed;
            a
        })
    };
    let n = sum(&negative);
    let p = sum(&positive);
    let _ = writeln!(
        out,
        "compile-fail tests: {} | rejected for the rule {} | for another reason {} | accepted {} | crashed {}",
        n.total(),
        n.right,
        n.rejected,
        n.accepted,
        n.crashed
    );
    let _ = writeln!(
        out,
        "runnable tests: {} | accepted by check {} | rejected {} | crashed {}",
        p.total(),
        p.accepted,
        p.rejected,
        p.crashed
    );
    let _ = writeln!(
        out,
        "\ncompile-fail tests by chapter (rule / other / accepted / crashed):"
    );
    for (chapter, t) in &negative {
        let _ = writeln!(
            out,
            "  {chapter:<20} {:>4} / {:>4} / {:>4} / {:>4}",
            t.right, t.rejected, t.accepted, t.crashed
        );
    }
    let _ = writeln!(
        out,
        "\nrunnable tests by chapter (accepted / rejected / crashed):"
    );
    for (chapter, t) in &positive {
        let _ = writeln!(
            out,
            "  {chapter:<20} {:>4} / {:>4} / {:>4}",
            t.accepted, t.rejected, t.crashed
        );
    }
    let _ = writeln!(
        out,
        "\ncompile-fail tests accepted ({}):",
        accepted_negative.len()
    );
    for dir in &accepted_negative {
        let _ = writeln!(out, "  {dir}");
    }
    let mut common: Vec<(&String, &usize)> = blockers.iter().collect();
    common.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let _ = writeln!(
        out,
        "\nfirst errors of rejected runnable tests (most common):"
    );
    for (code, count) in common.iter().take(15) {
        let _ = writeln!(out, "  {count:>4}  {code}");
    }
    out
}
