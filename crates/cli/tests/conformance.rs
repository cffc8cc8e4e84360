//! Microsoft's C++ AMP conformance suite as a yardstick: how many of its
//! compile-fail tests `tessera check` rejects for the rule they test, and how
//! many of its runnable tests it accepts, runs and passes.
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
//! Each other test (a runnable one) that `tessera check` accepts is run
//! under the interpreter and under the JIT (each with a time and a memory
//! limit) and counts as *pass*, *fail* or *skip* by its exit status (0, 1,
//! 2: the suite's `runall_result`), *error* (a run-time error, status 3),
//! *crashed* (no status, or another one), or *disagree* when the engines'
//! stdout or status differ; a test that `test.conf` parameterises with
//! `definitions` is checked and run once, with its first definition set as
//! `#define`s at the top of a copy under `target/conformance/`; a test that
//! `test.conf` marks `compile_only` is
//! not run. The project's `amptest` shim (`tests/conformance/amptest`) is
//! passed with `-I`. The report goes to standard output and to
//! `target/conformance/report.txt`, and a fuller one (per folder, and why
//! each runnable test that does not pass did not) to
//! `tests/conformance/REPORT.md`; the test fails only when `tessera check`
//! crashes.

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

/// The time limit `tessera run` is given for one test under one engine,
/// and the memory limit.
const RUN_TIMEOUT_SECS: u64 = 60;
const RUN_MAX_MEMORY: &str = "1G";

/// How long the harness waits for a run before killing it: the program's
/// own limit plus the compile and a margin, so that a hang of Tessera
/// itself shows as a crash.
const RUN_LIMIT: Duration = Duration::from_secs(RUN_TIMEOUT_SECS + 30);

/// The engines every accepted runnable test runs under.
const ENGINES: [&str; 2] = ["interp", "jit"];

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
    /// Its `test.conf` marks it `compile_only`: checked, never run.
    compile_only: bool,
    /// Folders to search for its headers besides the shim's: a test made
    /// from a parameterised one (below) keeps finding its own.
    extra_includes: Vec<PathBuf>,
}

/// The first set of `definitions` in a `test.conf` (`'DATA_TYPE' => 'int'`),
/// which the suite's harness passes as `-D` when it compiles the test.
fn definitions(conf: &str) -> Vec<(String, String)> {
    let Some(start) = conf.find("'definitions'") else {
        return Vec::new();
    };
    let rest = &conf[start..];
    let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else {
        return Vec::new();
    };
    if close < open {
        return Vec::new();
    }
    rest[open + 1..close]
        .split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once("=>")?;
            let k = k.trim().trim_matches('\'');
            let v = v.trim().trim_matches('\'');
            (!k.is_empty()).then(|| (k.to_string(), v.to_string()))
        })
        .collect()
}

/// For a test that `test.conf` parameterises, a copy under `target/` that
/// starts with its first definition set as `#define`s (the suite is data
/// that stays where it is); `None` for the others.
fn parameterised_copy(file: &Path, dir: &str) -> Option<PathBuf> {
    // The `test.conf` of the test's folder, or of the folder around it
    // (shared by a group of tests).
    let conf = file
        .ancestors()
        .skip(1)
        .take(2)
        .find_map(|d| std::fs::read_to_string(d.join("test.conf")).ok())?;
    let defs = definitions(&conf);
    if defs.is_empty() {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let mut out = String::new();
    for (k, v) in &defs {
        out.push_str(&format!("#define {k} {v}\n"));
    }
    out.push_str(&text);
    let target = workspace()
        .join("target/conformance/parameterised")
        .join(dir);
    std::fs::create_dir_all(&target).ok()?;
    let copy = target.join("test.cpp");
    std::fs::write(&copy, out).ok()?;
    Some(copy)
}

/// How the runs of an accepted runnable test ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Run {
    /// Both engines exited with 0.
    Pass,
    /// Both exited with 1 (`runall_fail`).
    Fail,
    /// Both exited with 2 (`runall_skip`).
    Skip,
    /// Both stopped at a run-time error (status 3); its message.
    Error(String),
    /// An engine ended another way (a signal, the harness's time limit, an
    /// unexpected status); how.
    Crashed(String),
    /// The engines printed different output or exited differently.
    Disagree(String),
    /// `compile_only` in `test.conf`: accepted, not run.
    CompileOnly,
}

/// What `tessera check` said about one case, and how its runs ended.
struct Outcome {
    verdict: Verdict,
    /// The first error's code and its MSVC code, for the report.
    first_error: Option<String>,
    /// The first error's message and where it points, for `REPORT.md`.
    first_message: Option<String>,
    /// For an accepted runnable test, how its runs ended.
    run: Option<Run>,
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
            let compile_only = file
                .parent()
                .and_then(|d| std::fs::read_to_string(d.join("test.conf")).ok())
                .is_some_and(|conf| {
                    conf.lines().any(|l| {
                        let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
                        l.starts_with("'compile_only'=>1")
                    })
                });
            let (file, extra_includes) = match parameterised_copy(&file, &dir) {
                Some(copy) => {
                    let home = file.parent().map(Path::to_path_buf).unwrap_or_default();
                    (copy, vec![home])
                }
                None => (file, Vec::new()),
            };
            Case {
                dir,
                file,
                expects,
                compile_only,
                extra_includes,
            }
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
    for dir in includes.iter().chain(&case.extra_includes) {
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
                first_message: None,
                run: None,
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
    let first_message = errors.first().map(|d| {
        let message = d["message"].as_str().unwrap_or("?");
        match (d["file"].as_str(), d["span"]["line"].as_u64()) {
            (Some(file), Some(line)) => {
                let file = Path::new(file)
                    .file_name()
                    .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned());
                format!("{message} ({file}:{line})")
            }
            _ => message.to_string(),
        }
    });
    let run = (case.expects.is_none() && verdict == Verdict::Accepted).then(|| {
        if case.compile_only {
            Run::CompileOnly
        } else {
            run_both(bin, includes, case)
        }
    });
    Outcome {
        verdict,
        first_error,
        first_message,
        run,
    }
}

/// Runs an accepted test under each engine and compares the answers.
fn run_both(bin: &Path, includes: &[PathBuf], case: &Case) -> Run {
    let mut answers = Vec::new();
    for engine in ENGINES {
        let mut command = Command::new(bin);
        command.args(["--color", "never", "run", "--engine", engine]);
        command.args(["--timeout", &RUN_TIMEOUT_SECS.to_string()]);
        command.args(["--max-memory", RUN_MAX_MEMORY]);
        for dir in includes.iter().chain(&case.extra_includes) {
            command.arg("-I").arg(dir);
        }
        command.arg(&case.file);
        let ran = run_limited(&mut command, RUN_LIMIT);
        match ran.status {
            Ok(code @ 0..=3) => answers.push((engine, code, ran.stdout, ran.stderr)),
            Ok(code) => return Run::Crashed(format!("{engine}: exit status {code}")),
            Err(why) => return Run::Crashed(format!("{engine}: {why}")),
        }
    }
    let [
        (first, code, stdout, stderr),
        (second, other_code, other_stdout, _),
    ] = answers.as_slice()
    else {
        return Run::Crashed("an engine gave no answer".to_string());
    };
    if code != other_code {
        return Run::Disagree(format!(
            "{first} exits with {code}, {second} with {other_code}"
        ));
    }
    if stdout != other_stdout {
        return Run::Disagree(format!("{first} and {second} print different output"));
    }
    match code {
        0 => Run::Pass,
        1 => Run::Fail,
        2 => Run::Skip,
        _ => Run::Error(
            stderr
                .lines()
                .find(|l| l.contains("error"))
                .or_else(|| stderr.lines().next())
                .unwrap_or("run-time error")
                .trim()
                .to_string(),
        ),
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

/// Counts of how runnable tests ended.
#[derive(Default, Clone, Copy)]
struct RunTally {
    /// Rejected by `tessera check`, or `check` crashed.
    not_compiled: usize,
    pass: usize,
    fail: usize,
    skip: usize,
    error: usize,
    crashed: usize,
    disagree: usize,
    compile_only: usize,
}

impl RunTally {
    fn add(&mut self, outcome: &Outcome) {
        match &outcome.run {
            None => self.not_compiled += 1,
            Some(Run::Pass) => self.pass += 1,
            Some(Run::Fail) => self.fail += 1,
            Some(Run::Skip) => self.skip += 1,
            Some(Run::Error(_)) => self.error += 1,
            Some(Run::Crashed(_)) => self.crashed += 1,
            Some(Run::Disagree(_)) => self.disagree += 1,
            Some(Run::CompileOnly) => self.compile_only += 1,
        }
    }
    fn merge(&mut self, other: &RunTally) {
        self.not_compiled += other.not_compiled;
        self.pass += other.pass;
        self.fail += other.fail;
        self.skip += other.skip;
        self.error += other.error;
        self.crashed += other.crashed;
        self.disagree += other.disagree;
        self.compile_only += other.compile_only;
    }
    fn total(&self) -> usize {
        self.not_compiled
            + self.pass
            + self.fail
            + self.skip
            + self.error
            + self.crashed
            + self.disagree
            + self.compile_only
    }
    /// The counts in the order of [`RUN_COLUMNS`].
    fn columns(&self) -> [usize; 8] {
        [
            self.not_compiled,
            self.pass,
            self.fail,
            self.skip,
            self.error,
            self.crashed,
            self.disagree,
            self.compile_only,
        ]
    }
}

const RUN_COLUMNS: [&str; 8] = [
    "not compiled",
    "pass",
    "fail",
    "skip",
    "error",
    "crashed",
    "disagree",
    "compile-only",
];

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
    let shim = workspace().join("tests/conformance/amptest");
    let includes: Vec<PathBuf> = [shim].into_iter().filter(|d| d.is_dir()).collect();
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
    let _ = std::fs::write(
        workspace().join("tests/conformance/REPORT.md"),
        markdown(&cases, &outcomes),
    );
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
    let mut runs: BTreeMap<&str, RunTally> = BTreeMap::new();
    for (case, outcome) in cases.iter().zip(outcomes) {
        let Some(outcome) = outcome else { continue };
        if case.expects.is_none() {
            runs.entry(chapter(&case.dir)).or_default().add(outcome);
        }
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
    let mut all_runs = RunTally::default();
    for t in runs.values() {
        all_runs.merge(t);
    }
    let _ = writeln!(
        out,
        "runnable tests run: {} | {}",
        all_runs.total(),
        RUN_COLUMNS
            .iter()
            .zip(all_runs.columns())
            .map(|(name, n)| format!("{name} {n}"))
            .collect::<Vec<_>>()
            .join(" | ")
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
        "\nrunnable tests by chapter ({}):",
        RUN_COLUMNS.join(" / ")
    );
    for (chapter, t) in &runs {
        let cells: Vec<String> = t.columns().iter().map(|n| format!("{n:>4}")).collect();
        let _ = writeln!(out, "  {chapter:<20} {}", cells.join(" / "));
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

/// Two folders deep: `5_Data_Cont/5_1_array`.
fn section(dir: &str) -> String {
    dir.split('/').take(2).collect::<Vec<_>>().join("/")
}

/// `tests/conformance/REPORT.md`: the counts per folder, then every
/// runnable test that does not pass with the reason, and every compile-fail
/// test not rejected for its rule with what Tessera said.
fn markdown(cases: &[Case], outcomes: &[Option<Outcome>]) -> String {
    let mut negative: BTreeMap<String, Tally> = BTreeMap::new();
    let mut runs: BTreeMap<String, RunTally> = BTreeMap::new();
    let mut not_passing = Vec::new();
    let mut not_ruled = Vec::new();
    for (case, outcome) in cases.iter().zip(outcomes) {
        let Some(outcome) = outcome else { continue };
        if case.expects.is_some() {
            negative
                .entry(section(&case.dir))
                .or_default()
                .add(outcome.verdict);
            let said = match outcome.verdict {
                Verdict::RightRule => continue,
                Verdict::Accepted => "accepted".to_string(),
                Verdict::Crashed => "check crashed".to_string(),
                Verdict::Rejected => format!(
                    "{}: {}",
                    outcome.first_error.as_deref().unwrap_or("?"),
                    outcome.first_message.as_deref().unwrap_or("?")
                ),
            };
            let expects: Vec<&str> = case.expects.iter().flatten().map(String::as_str).collect();
            not_ruled.push((case.dir.as_str(), expects.join(", "), said));
            continue;
        }
        runs.entry(section(&case.dir)).or_default().add(outcome);
        let why = match &outcome.run {
            Some(Run::Pass) => continue,
            None if outcome.verdict == Verdict::Crashed => "check crashed".to_string(),
            None => format!(
                "not compiled: {}: {}",
                outcome.first_error.as_deref().unwrap_or("?"),
                outcome.first_message.as_deref().unwrap_or("?")
            ),
            Some(Run::Fail) => "fail (exit 1)".to_string(),
            Some(Run::Skip) => "skip (exit 2)".to_string(),
            Some(Run::Error(message)) => format!("run-time error: {message}"),
            Some(Run::Crashed(how)) => format!("crashed: {how}"),
            Some(Run::Disagree(how)) => format!("engines disagree: {how}"),
            Some(Run::CompileOnly) => "compile-only: accepted, not run".to_string(),
        };
        not_passing.push((case.dir.as_str(), why));
    }
    let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Tessera against the C++ AMP conformance suite\n\n\
         Generated by `crates/cli/tests/conformance.rs` (see tests/README.md); do not edit.\n\
         Runnable tests are run under the interpreter and the JIT \
         ({RUN_TIMEOUT_SECS} s, {RUN_MAX_MEMORY} each) with `-I tests/conformance/amptest`.\n"
    );
    let mut all_runs = RunTally::default();
    for t in runs.values() {
        all_runs.merge(t);
    }
    let _ = writeln!(out, "## Runnable tests\n");
    let _ = writeln!(out, "| folder | tests | {} |", RUN_COLUMNS.join(" | "));
    let _ = writeln!(out, "| --- | ---: |{}", " ---: |".repeat(RUN_COLUMNS.len()));
    for (folder, t) in runs.iter().chain([(&"all".to_string(), &all_runs)]) {
        let cells: Vec<String> = t.columns().iter().map(usize::to_string).collect();
        let _ = writeln!(out, "| {folder} | {} | {} |", t.total(), cells.join(" | "));
    }
    let mut all_negative = Tally::default();
    for t in negative.values() {
        all_negative.right += t.right;
        all_negative.rejected += t.rejected;
        all_negative.accepted += t.accepted;
        all_negative.crashed += t.crashed;
    }
    let _ = writeln!(out, "\n## Compile-fail tests\n");
    let _ = writeln!(
        out,
        "| folder | tests | rejected for the rule | for another reason | accepted | crashed |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | ---: | ---: |");
    for (folder, t) in negative.iter().chain([(&"all".to_string(), &all_negative)]) {
        let _ = writeln!(
            out,
            "| {folder} | {} | {} | {} | {} | {} |",
            t.total(),
            t.right,
            t.rejected,
            t.accepted,
            t.crashed
        );
    }
    let _ = writeln!(
        out,
        "\n## Runnable tests that do not pass ({})\n",
        not_passing.len()
    );
    let _ = writeln!(out, "| test | how it ended |");
    let _ = writeln!(out, "| --- | --- |");
    for (dir, why) in &not_passing {
        let _ = writeln!(out, "| {} | {} |", cell(dir), cell(why));
    }
    let _ = writeln!(
        out,
        "\n## Compile-fail tests not rejected for their rule ({})\n",
        not_ruled.len()
    );
    let _ = writeln!(out, "| test | expects | Tessera's first error |");
    let _ = writeln!(out, "| --- | --- | --- |");
    for (dir, expects, said) in &not_ruled {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(dir),
            cell(expects),
            cell(said)
        );
    }
    out
}
