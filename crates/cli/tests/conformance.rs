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
//! those (a test whose `//#Expects:` lines give only places, no code, counts
//! as rejected for its rule when every line they name has an error), *accepted* when it reports no error, and *crashed* when `tessera`
//! ends any other way (a signal, an unexpected exit status, the time limit).
//! Each other test (a runnable one) that `tessera check` accepts is run
//! under the interpreter and under the JIT (each with a time and a memory
//! limit) and counts as *pass*, *fail* or *skip* by its exit status (0, 1,
//! 2: the suite's `runall_result`), *error* (a run-time error, status 3),
//! *crashed* (no status, or another one), or *disagree* when the engines'
//! stdout or status differ. As the suite's harness does, a test's settings
//! come from the nearest `*.conf` found going up from its folder to
//! `Tests/`: a test that it parameterises with `definitions` is checked
//! (and run) in place once per definition set, each given as `-D NAME=VALUE`
//! flags, and counts as passing (or rejected for its rule) only when every
//! set does; the first set that does not decides its outcome, which the
//! report names (`[definition set 2 of 4]`). A test that the `*.conf` marks
//! `compile_only` is
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
    /// For a compile-fail test whose `//#Expects:` lines name no MSVC code,
    /// only where the errors are (`test.cpp\(33\)`): those line numbers.
    expected_lines: Vec<u64>,
    /// Its `test.conf` marks it `compile_only`: checked, never run.
    compile_only: bool,
    /// The definition sets it is compiled with, each as `-D` flags (one
    /// empty set when its `*.conf` has none).
    def_sets: Vec<Defs>,
}

/// A set of macro definitions the suite's harness passes as `-D NAME=VALUE`
/// when it compiles a test.
type Defs = Vec<(String, String)>;

/// The sets of `definitions` in a test's `*.conf` (a Perl hash: `'definitions'
/// => [ { 'DATA_TYPE' => 'int', 'RANK' => '1' }, { ... } ]`), in order; the
/// suite's harness compiles and runs the test once per set. Values are
/// single-quoted Perl strings, which may hold commas and spaces (`'5, 7'`).
fn definitions(conf: &str) -> Vec<Defs> {
    let Some(start) = conf.find("'definitions'") else {
        return Vec::new();
    };
    let mut sets = Vec::new();
    let mut current: Option<Defs> = None;
    let mut key: Option<String> = None;
    let mut chars = conf[start + "'definitions'".len()..].chars();
    while let Some(c) = chars.next() {
        match c {
            '{' => current = Some(Vec::new()),
            '}' => sets.extend(current.take()),
            // The end of the list of sets.
            ']' if current.is_none() => break,
            '\'' => {
                // A quoted string; `\'` and `\\` are Perl's only escapes in it.
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => text.extend(chars.next()),
                        '\'' => break,
                        c => text.push(c),
                    }
                }
                if let Some(set) = current.as_mut() {
                    match key.take() {
                        Some(k) => set.push((k, text)),
                        None => key = Some(text),
                    }
                }
            }
            _ => {}
        }
    }
    sets
}

/// The `*.conf` that applies to a test, as the suite's harness finds it
/// (`try_find_file_by_extension` in `run_tests.pl.in`): the one in the
/// test's folder or, failing that, in the nearest folder above it, up to
/// `Tests/` itself.
fn find_conf(test_dir: &Path, tests_root: &Path) -> Option<PathBuf> {
    test_dir
        .ancestors()
        .take_while(|d| d.starts_with(tests_root))
        .find_map(|d| {
            let mut confs: Vec<PathBuf> = std::fs::read_dir(d)
                .ok()?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "conf") && p.is_file())
                .collect();
            confs.sort();
            confs.into_iter().next()
        })
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
    /// For a test with several definition sets, the one this outcome is
    /// of (`definition set 2 of 4`): the first that did not pass.
    set: Option<String>,
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
            let expected_lines = match &expects {
                Some(codes) if codes.is_empty() => std::fs::read_to_string(&file)
                    .map(|text| lines_expected(&text))
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            let conf = file
                .parent()
                .and_then(|d| find_conf(d, &tests))
                .and_then(|c| std::fs::read_to_string(c).ok())
                .unwrap_or_default();
            let compile_only = conf.lines().any(|l| {
                let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
                l.starts_with("'compile_only'=>1")
            });
            let mut def_sets = definitions(&conf);
            if def_sets.is_empty() {
                def_sets.push(Vec::new());
            }
            Case {
                dir,
                file,
                expects,
                expected_lines,
                compile_only,
                def_sets,
            }
        })
        .collect()
}

/// Whether a diagnostic is the checker judging the program by a rule of
/// the language, not the front end or the checker failing to read it (a
/// syntax error, an unknown name or type, a construct Tessera does not
/// support): only such an error can stand for what a test expects at a line.
fn judged_by_a_rule(d: &serde_json::Value) -> bool {
    let code = d["code"].as_str().unwrap_or("");
    // Codes are `E` and four digits; below E0202 are the lexer, the
    // preprocessor, the parser and unknown names and types.
    code.starts_with('E') && code.len() == 5 && code >= "E0202" && code != "E0211"
}

/// The line numbers a test's `//#Expects: Error: test.cpp\(N\)...` lines
/// name, for the tests whose expectations give a place but no MSVC code.
fn lines_expected(text: &str) -> Vec<u64> {
    const PLACE: &str = "test.cpp\\(";
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("//#Expects:"))
        .filter_map(|rest| {
            let at = rest.find(PLACE)? + PLACE.len();
            let digits: String = rest[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
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

/// `-I` for each include folder and `-D NAME=VALUE` for each definition.
fn front_args(command: &mut Command, includes: &[PathBuf], defs: &Defs) {
    for dir in includes {
        command.arg("-I").arg(dir);
    }
    for (name, value) in defs {
        command.arg("-D").arg(format!("{name}={value}"));
    }
}

/// Judges one case under each of its definition sets in turn, as the
/// suite's harness builds and runs it once per set: the case passes (or is
/// rejected for its rule) only when every set does, and the first set that
/// does not decides how it ended (the later ones are not tried).
fn judge(bin: &Path, includes: &[PathBuf], case: &Case) -> Outcome {
    let count = case.def_sets.len();
    let mut last = None;
    for (k, defs) in case.def_sets.iter().enumerate() {
        let mut outcome = judge_set(bin, includes, case, defs);
        let good = match case.expects {
            Some(_) => outcome.verdict == Verdict::RightRule,
            None => matches!(outcome.run, Some(Run::Pass | Run::CompileOnly)),
        };
        if count > 1 {
            outcome.set = Some(format!("definition set {} of {count}", k + 1));
        }
        if !good {
            return outcome;
        }
        last = Some(outcome);
    }
    last.map_or_else(
        || judge_set(bin, includes, case, &Vec::new()),
        |mut o| {
            // Every set passed: nothing to single out.
            o.set = None;
            o
        },
    )
}

/// Runs `tessera check --format json` on one case with one definition set,
/// judges the answer, and runs the case when it is a runnable one accepted.
fn judge_set(bin: &Path, includes: &[PathBuf], case: &Case, defs: &Defs) -> Outcome {
    let mut command = Command::new(bin);
    command.args(["--color", "never", "check", "--format", "json"]);
    front_args(&mut command, includes, defs);
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
                set: None,
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
    } else if !case.expected_lines.is_empty()
        && case.expected_lines.iter().all(|&line| {
            errors.iter().any(|d| {
                judged_by_a_rule(d)
                    && d["span"]["line"].as_u64() == Some(line)
                    && d["file"]
                        .as_str()
                        .is_some_and(|f| Path::new(f).file_name().is_some_and(|n| n == "test.cpp"))
            })
        })
    {
        // No code to compare: every line the test names has an error.
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
            run_both(bin, includes, case, defs)
        }
    });
    Outcome {
        verdict,
        first_error,
        first_message,
        run,
        set: None,
    }
}

/// Runs an accepted test under each engine and compares the answers.
fn run_both(bin: &Path, includes: &[PathBuf], case: &Case, defs: &Defs) -> Run {
    let mut answers = Vec::new();
    for engine in ENGINES {
        let mut command = Command::new(bin);
        command.args(["--color", "never", "run", "--engine", engine]);
        command.args(["--timeout", &RUN_TIMEOUT_SECS.to_string()]);
        command.args(["--max-memory", RUN_MAX_MEMORY]);
        front_args(&mut command, includes, defs);
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
        (second, other_code, other_stdout, other_stderr),
    ] = answers.as_slice()
    else {
        return Run::Crashed("an engine gave no answer".to_string());
    };
    // A run stopped by the time limit says nothing about its meaning: the
    // engines are not compared then (a loaded machine slows both).
    for (engine, err) in [(first, stderr), (second, other_stderr)] {
        if err.contains("R0009") {
            return Run::Error(format!(
                "{engine} reached the time limit of {RUN_TIMEOUT_SECS} s"
            ));
        }
    }
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
            let said = match &outcome.set {
                Some(set) => format!("{said} [{set}]"),
                None => said,
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
        let why = match &outcome.set {
            Some(set) => format!("{why} [{set}]"),
            None => why,
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
