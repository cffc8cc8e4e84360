//! Run tests: `tessera run` on every program of `tests/run/` and `samples/`,
//! under every engine, and a differential test against the C++ oracle.
//!
//! For a case `tests/run/dir/name.amp`:
//!
//! - the command is `tessera run --engine E --color never [FLAGS] tests/run/dir/name.amp`,
//!   run from the repository root with `NO_COLOR=1` and `TESSERA_CACHE_DIR`
//!   a folder of the test's own, for every engine `E` of [`ENGINES`] (the
//!   first JIT run keeps the checked program, the next ones read it back). FLAGS come from a first line `// run-flags: ...`;
//!   flags after a `--` among them become the program's arguments (they go
//!   after the file name);
//! - its standard input is `name.stdin` when there is one, and empty
//!   otherwise (the oracle test gives the oracle the same);
//! - stdout must equal `name.stdout` (required), stderr must equal
//!   `name.stderr` (absent: empty) and the exit status must equal the number
//!   in `name.exit` (absent: 0).
//!
//! Every `samples/name.amp` must print `samples/name.expected` (the oracle's
//! output), with an empty stderr and exit status 0, under every engine.
//!
//! Blessing: `BLESS=1 cargo test -p tessera-cli --test run` writes the
//! expected files of `tests/run/` from what the engines print: `name.stdout`
//! always, `name.stderr` and `name.exit` only when stderr is not empty and the
//! status is not 0 (stale ones are deleted). A case on which the engines
//! disagree is not blessed and fails. Samples are never blessed: their
//! expected output comes from the oracle. Review `git diff` before committing.
//!
//! The oracle test compiles the same programs with g++ against an emulation
//! of C++ AMP (`<workspace>/../shared/oracle/amp-oracle`, or `$TESSERA_ORACLE`)
//! and requires the stdout and exit status Tessera's expected files record,
//! for every sample and for every case that exits with 0 and has no
//! `run-flags`. Without the oracle or g++ it says so and passes.
//!
//! Each test reports every failing case, with a compact diff, in one failure
//! message. Expected files without their `.amp` also fail the run test.

mod common;

use common::{display_path, files_under, repo_root};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The engines every case runs under: an `--engine` name and its options.
/// The JIT runs with one worker, with the default (one per core) and with
/// more workers than cores, so thread counts cannot change a result.
/// The runs share a cache folder of their test's own ([`TestCache`]): the
/// interpreter, the reference, checks each program afresh (`--no-cache`);
/// the first JIT run checks it and keeps it there, and the two after it
/// run the program read back from that record, so a kept program must
/// print what a freshly checked one does, warnings and run-time errors
/// included.
const ENGINES: &[&str] = &[
    "interp --no-cache",
    "jit",
    "jit --threads 1",
    "jit --threads 4",
];

/// A cache folder (`TESSERA_CACHE_DIR`) for the runs of one test, removed
/// when the test ends.
struct TestCache(PathBuf);

impl TestCache {
    fn new(test: &str) -> TestCache {
        let dir = std::env::temp_dir().join(format!("tessera-run-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TestCache(dir)
    }
}

impl Drop for TestCache {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The expected files of a case, by extension.
const EXPECTED: [&str; 3] = ["stdout", "stderr", "exit"];

/// How long one `tessera run` may take before the harness kills it: far more
/// than any case needs, even in a debug build, so only a hang reaches it.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// How long one oracle invocation may take (a first compilation is ~2 s).
const ORACLE_LIMIT: Duration = Duration::from_secs(300);

/// Oracle invocations running at once.
const ORACLE_WORKERS: usize = 3;

/// Lines of diff shown per stream before the rest is counted only.
const MAX_DIFF_LINES: usize = 40;

/// Unchanged lines shown around each change.
const CONTEXT: usize = 2;

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e == ext)
}

/// The flags of a case: the words of a first line `// run-flags: ...`.
/// `run-flags:` anywhere else in the opening comment block is a mistake.
fn read_flags(source: &str) -> Result<Vec<String>, String> {
    let mut flags = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let Some(comment) = line.trim_start().strip_prefix("//") else {
            break;
        };
        let Some(words) = comment.trim_start().strip_prefix("run-flags:") else {
            continue;
        };
        if number != 0 {
            return Err(format!(
                "`// run-flags:` on line {} counts only on the first line",
                number + 1
            ));
        }
        flags = words.split_whitespace().map(str::to_string).collect();
        if flags.is_empty() {
            return Err("`// run-flags:` names no flags".to_string());
        }
    }
    Ok(flags)
}

/// One program to run, with what it must print.
struct Case {
    /// Relative to the repository root.
    path: PathBuf,
    /// From `// run-flags:`.
    flags: Vec<String>,
    /// Expected stdout; `None` when the file is missing.
    stdout: Option<String>,
    /// Expected stderr.
    stderr: String,
    /// Expected exit status.
    exit: i32,
    /// The opening comment says `// not for the oracle: WHY` (the oracle's
    /// emulation cannot compile it; the expected output was checked by hand).
    not_for_oracle: bool,
    /// The program's standard input, from `name.stdin` (absent: empty).
    stdin: Vec<u8>,
}

/// Reads `path`; `Ok(None)` when it does not exist.
fn read_optional(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(format!("cannot read {}: {err}", path.display())),
    }
}

/// A case of `tests/run/`, with its flags and its expected files.
fn load_case(root: &Path, path: &Path) -> Result<Case, String> {
    let source = read_optional(&root.join(path))?.ok_or("the case disappeared")?;
    let flags = read_flags(&source)?;
    let stdout = read_optional(&root.join(path.with_extension("stdout")))?;
    let stderr = read_optional(&root.join(path.with_extension("stderr")))?.unwrap_or_default();
    let exit = match read_optional(&root.join(path.with_extension("exit")))? {
        None => 0,
        Some(text) => text.trim().parse().map_err(|_| {
            format!(
                "{} must hold an exit status, not {:?}",
                display_path(&path.with_extension("exit")),
                text.trim()
            )
        })?,
    };
    let not_for_oracle = source.lines().take_while(|l| l.starts_with("//")).any(|l| {
        l.trim_start_matches('/')
            .trim_start()
            .starts_with("not for the oracle:")
    });
    let stdin = match std::fs::read(root.join(path.with_extension("stdin"))) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => return Err(format!("cannot read its .stdin: {err}")),
    };
    Ok(Case {
        path: path.to_path_buf(),
        flags,
        stdout,
        stderr,
        exit,
        not_for_oracle,
        stdin,
    })
}

/// A sample: its expected stdout is `X.expected`; no flags, no stderr, exit 0.
fn load_sample(root: &Path, path: &Path) -> Result<Case, String> {
    let expected = path.with_extension("expected");
    let stdout = read_optional(&root.join(&expected))?
        .ok_or_else(|| format!("{} is missing", display_path(&expected)))?;
    Ok(Case {
        path: path.to_path_buf(),
        flags: Vec::new(),
        stdout: Some(stdout),
        stderr: String::new(),
        exit: 0,
        not_for_oracle: false,
        stdin: Vec::new(),
    })
}

/// What a process did.
struct Outcome {
    stdout: String,
    stderr: String,
    /// The exit status, or why there is none (killed, timed out, not started).
    exit: Result<i32, String>,
}

/// Runs `command` with `input` as its standard input and piped output,
/// killing it after `limit`.
fn execute(command: &mut Command, input: &[u8], limit: Duration) -> Outcome {
    let spawned = command
        .stdin(if input.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            return Outcome {
                stdout: String::new(),
                stderr: String::new(),
                exit: Err(format!("cannot start {command:?}: {err}")),
            };
        }
    };
    let stdout_pipe = child.stdout.take();
    let stderr_pipe = child.stderr.take();
    let stdin_pipe = child.stdin.take();
    std::thread::scope(|scope| {
        // Written beside the reading, so a program that prints much before
        // it reads cannot block on a full pipe; a program that stops
        // reading early closes the pipe, which is not an error here.
        scope.spawn(move || {
            if let Some(mut pipe) = stdin_pipe {
                let _ = std::io::Write::write_all(&mut pipe, input);
            }
        });
        let stdout = scope.spawn(move || drain(stdout_pipe));
        let stderr = scope.spawn(move || drain(stderr_pipe));
        let start = Instant::now();
        let exit = loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    break status
                        .code()
                        .ok_or_else(|| format!("the process was killed: {status}"));
                }
                Ok(None) if start.elapsed() > limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Err(format!("still running after {limit:?}, killed"));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(err) => break Err(format!("cannot wait for the process: {err}")),
            }
        };
        Outcome {
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
            exit,
        }
    })
}

/// Everything readable from `pipe`, as text.
fn drain(pipe: Option<impl Read>) -> String {
    let mut bytes = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `tessera run` on `case` with `engine`, from the repository root.
fn run_tessera(root: &Path, cache: &TestCache, case: &Case, engine: &str) -> Outcome {
    let split = case
        .flags
        .iter()
        .position(|f| f == "--")
        .unwrap_or(case.flags.len());
    let (options, arguments) = case.flags.split_at(split);
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    command
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env("TESSERA_CACHE_DIR", &cache.0)
        .args(["run", "--engine"])
        .args(engine.split(' '))
        .args(["--color", "never"])
        .args(options)
        .arg(display_path(&case.path))
        .args(arguments);
    execute(&mut command, &case.stdin, RUN_LIMIT)
}

/// How `actual` differs from what `case` expects; empty when it matches.
fn mismatches(case: &Case, actual: &Outcome) -> Vec<String> {
    let mut problems = Vec::new();
    match &actual.exit {
        Ok(code) if *code == case.exit => {}
        Ok(code) => problems.push(format!("exit status {code}, expected {}", case.exit)),
        Err(why) => problems.push(why.clone()),
    }
    match &case.stdout {
        Some(expected) if *expected == actual.stdout => {}
        Some(expected) => problems.push(format!(
            "stdout differs (- expected, + actual):\n{}",
            compact_diff(expected, &actual.stdout)
        )),
        None => problems.push(format!(
            "{} is missing (BLESS=1 writes it); stdout was:\n{}",
            display_path(&case.path.with_extension("stdout")),
            compact_diff("", &actual.stdout)
        )),
    }
    if case.stderr != actual.stderr {
        problems.push(format!(
            "stderr differs (- expected, + actual):\n{}",
            compact_diff(&case.stderr, &actual.stderr)
        ));
    }
    problems
}

/// Writes the expected files of `case` from the outcomes of the engines
/// (named beside them), if they agree; returns the problems otherwise, and
/// then writes nothing.
fn bless(root: &Path, case: &Case, outcomes: &[(&str, Outcome)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (engine, outcome) in outcomes {
        if let Err(why) = &outcome.exit {
            problems.push(format!("not blessed: [{engine}] {why}"));
        }
    }
    let Some(((first_engine, first), others)) = outcomes.split_first() else {
        return vec!["not blessed: no engine ran".to_string()];
    };
    for (engine, outcome) in others {
        let reference = Case {
            path: case.path.clone(),
            flags: Vec::new(),
            stdout: Some(first.stdout.clone()),
            stderr: first.stderr.clone(),
            exit: first.exit.clone().unwrap_or(-1),
            not_for_oracle: case.not_for_oracle,
            stdin: Vec::new(),
        };
        for problem in mismatches(&reference, outcome) {
            problems.push(format!(
                "not blessed: [{engine}] disagrees with [{first_engine}]: {problem}"
            ));
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    let exit = first.exit.clone().unwrap_or_default();
    let files = [
        ("stdout", Some(first.stdout.clone())),
        (
            "stderr",
            (!first.stderr.is_empty()).then(|| first.stderr.clone()),
        ),
        ("exit", (exit != 0).then(|| format!("{exit}\n"))),
    ];
    for (ext, contents) in files {
        let path = root.join(case.path.with_extension(ext));
        let written = match contents {
            // Expected files are compared as lossy UTF-8, so one that
            // already matches keeps its exact bytes (a program may print
            // bytes that are not UTF-8).
            Some(text)
                if std::fs::read(&path)
                    .is_ok_and(|old| String::from_utf8_lossy(&old) == text.as_str()) =>
            {
                Ok(())
            }
            Some(text) => std::fs::write(&path, text),
            None => match std::fs::remove_file(&path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
                _ => Ok(()),
            },
        };
        if let Err(err) = written {
            problems.push(format!("cannot bless {}: {err}", path.display()));
        }
    }
    problems
}

/// Applies `job` to every item on `workers` threads; results keep the order
/// of the items.
fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    job: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(k) else { break };
                    let result = job(item);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[k] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect()
}

fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// Runs `cases` under every engine (blessing them if `bless`), with
/// `cache` as their cache folder, and returns one report entry per failing
/// case.
fn run_all(
    root: &Path,
    cache: &TestCache,
    cases: &[Result<Case, (PathBuf, String)>],
    bless_them: bool,
) -> Vec<String> {
    let results = parallel_map(cases, workers(), |case| {
        let case = match case {
            Ok(case) => case,
            Err((path, why)) => return vec![format!("{}: {why}", display_path(path))],
        };
        let outcomes: Vec<(&str, Outcome)> = ENGINES
            .iter()
            .map(|engine| (*engine, run_tessera(root, cache, case, engine)))
            .collect();
        let name = display_path(&case.path);
        if bless_them {
            return bless(root, case, &outcomes)
                .into_iter()
                .map(|problem| format!("{name}: {problem}"))
                .collect();
        }
        let mut failures = Vec::new();
        for (engine, outcome) in &outcomes {
            let problems = mismatches(case, outcome);
            if !problems.is_empty() {
                failures.push(format!("{name} [{engine}]:\n  {}", problems.join("\n  ")));
            }
        }
        failures
    });
    results.into_iter().flatten().collect()
}

/// Fails with every entry of `failures`, if there are any.
fn report(what: &str, count: usize, failures: &[String], hint: &str) {
    eprintln!("{what}: {count} programs, {} failures", failures.len());
    assert!(
        failures.is_empty(),
        "{} failure(s) in {count} {what}{hint}:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn run_cases() {
    let root = repo_root();
    let bless_them = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let files = files_under(&root, Path::new("tests/run"));
    let mut failures = Vec::new();
    for file in &files {
        let expected_file =
            EXPECTED.iter().any(|ext| has_extension(file, ext)) || has_extension(file, "stdin");
        if expected_file && !root.join(file.with_extension("amp")).is_file() {
            failures.push(format!(
                "{}: stale, there is no {} beside it",
                display_path(file),
                display_path(&file.with_extension("amp"))
            ));
        }
    }
    let cases: Vec<Result<Case, (PathBuf, String)>> = files
        .iter()
        .filter(|f| has_extension(f, "amp"))
        .map(|f| load_case(&root, f).map_err(|why| (f.clone(), why)))
        .collect();
    assert!(!cases.is_empty(), "no cases under tests/run");
    let cache = TestCache::new("cases");
    failures.extend(run_all(&root, &cache, &cases, bless_them));
    let hint = if bless_them {
        " (others were blessed)"
    } else {
        " (BLESS=1 rewrites the expected files; review the diff)"
    };
    report("run cases", cases.len(), &failures, hint);
}

#[test]
fn run_samples() {
    let root = repo_root();
    let samples: Vec<Result<Case, (PathBuf, String)>> = files_under(&root, Path::new("samples"))
        .iter()
        .filter(|f| has_extension(f, "amp"))
        .map(|f| load_sample(&root, f).map_err(|why| (f.clone(), why)))
        .collect();
    assert!(!samples.is_empty(), "no samples found");
    let cache = TestCache::new("samples");
    let failures = run_all(&root, &cache, &samples, false);
    report(
        "samples",
        samples.len(),
        &failures,
        " (samples are never blessed: X.expected is the oracle's output)",
    );
}

/// The oracle script, if it and g++ are available; otherwise why not.
fn oracle(root: &Path) -> Result<PathBuf, String> {
    let script = match std::env::var_os("TESSERA_ORACLE") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => root.join("../shared/oracle/amp-oracle"),
    };
    if !script.is_file() {
        return Err(format!("{} does not exist", script.display()));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if !std::env::split_paths(&path).any(|dir| dir.join("g++").is_file()) {
        return Err("g++ is not on PATH".to_string());
    }
    Ok(script)
}

#[test]
fn oracle_agrees() {
    let root = repo_root();
    let script = match oracle(&root) {
        Ok(script) => script,
        Err(why) => {
            eprintln!("oracle not available ({why}): the differential test is skipped");
            return;
        }
    };
    let mut programs: Vec<Case> = Vec::new();
    let mut failures = Vec::new();
    for file in files_under(&root, Path::new("samples")) {
        if has_extension(&file, "amp") {
            match load_sample(&root, &file) {
                Ok(case) => programs.push(case),
                Err(why) => failures.push(format!("{}: {why}", display_path(&file))),
            }
        }
    }
    for file in files_under(&root, Path::new("tests/run")) {
        if !has_extension(&file, "amp") {
            continue;
        }
        // A case that is broken or not blessed yet fails in `run_cases`.
        if let Ok(case) = load_case(&root, &file)
            && case.flags.is_empty()
            && !case.not_for_oracle
            && case.exit == 0
            && case.stdout.is_some()
        {
            programs.push(case);
        }
    }
    let results = parallel_map(&programs, ORACLE_WORKERS, |case| {
        let mut command = Command::new(&script);
        command.current_dir(&root).arg(display_path(&case.path));
        let outcome = execute(&mut command, &case.stdin, ORACLE_LIMIT);
        let mut problems = Vec::new();
        match &outcome.exit {
            Ok(code) if *code == case.exit => {}
            Ok(code) => problems.push(format!("oracle exit status {code}, expected {}", case.exit)),
            Err(why) => problems.push(format!("oracle: {why}")),
        }
        let expected = case.stdout.as_deref().unwrap_or_default();
        if outcome.stdout != expected {
            problems.push(format!(
                "the oracle's stdout differs (- expected file, + oracle):\n{}",
                compact_diff(expected, &outcome.stdout)
            ));
        }
        if !problems.is_empty() && !outcome.stderr.is_empty() {
            problems.push(format!(
                "oracle stderr:\n{}",
                compact_diff("", &outcome.stderr)
            ));
        }
        problems
    });
    for (case, problems) in programs.iter().zip(results) {
        if !problems.is_empty() {
            failures.push(format!(
                "{}:\n  {}",
                display_path(&case.path),
                problems.join("\n  ")
            ));
        }
    }
    report(
        "programs under the oracle",
        programs.len(),
        &failures,
        " (the expected files must be what C++ prints)",
    );
}

/// One line of a diff.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Line<'a> {
    Same(&'a str),
    Gone(&'a str),
    New(&'a str),
}

/// Aligns `old` and `new` by a longest common subsequence when that is
/// cheap enough, and otherwise replaces the one by the other.
fn align<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Line<'a>> {
    if old.len().saturating_mul(new.len()) > 1_000_000 {
        let gone = old.iter().map(|l| Line::Gone(l));
        return gone.chain(new.iter().map(|l| Line::New(l))).collect();
    }
    // longest[i][j]: the longest common subsequence of old[i..] and new[j..].
    let width = new.len() + 1;
    let mut longest = vec![0u32; (old.len() + 1) * width];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            longest[i * width + j] = if old[i] == new[j] {
                longest[(i + 1) * width + j + 1] + 1
            } else {
                longest[(i + 1) * width + j].max(longest[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut lines = Vec::with_capacity(old.len() + new.len());
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            lines.push(Line::Same(old[i]));
            i += 1;
            j += 1;
        } else if j == new.len()
            || (i < old.len() && longest[(i + 1) * width + j] >= longest[i * width + j + 1])
        {
            lines.push(Line::Gone(old[i]));
            i += 1;
        } else {
            lines.push(Line::New(new[j]));
            j += 1;
        }
    }
    lines
}

/// A line as shown in a diff: control characters escaped, and a mark when
/// the line has no final newline.
fn shown(line: &str) -> String {
    let (body, newline) = match line.strip_suffix('\n') {
        Some(body) => (body, true),
        None => (line, false),
    };
    let mut text = if body.chars().any(|c| c.is_control() && c != '\t') {
        body.escape_debug().to_string()
    } else {
        body.to_string()
    };
    if !newline {
        text.push_str("  (no newline at end)");
    }
    text
}

/// A compact line diff: the changed lines with [`CONTEXT`] unchanged lines
/// around them, numbered by their line in `expected`, at most
/// [`MAX_DIFF_LINES`] lines.
fn compact_diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.split_inclusive('\n').collect();
    let new: Vec<&str> = actual.split_inclusive('\n').collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut lines: Vec<Line> = old[..head].iter().map(|l| Line::Same(l)).collect();
    lines.extend(align(
        &old[head..old.len() - tail],
        &new[head..new.len() - tail],
    ));
    lines.extend(old[old.len() - tail..].iter().map(|l| Line::Same(l)));

    let changed: Vec<usize> = (0..lines.len())
        .filter(|&k| !matches!(lines[k], Line::Same(_)))
        .collect();
    if changed.is_empty() {
        return "    (no difference in lines)\n".to_string();
    }
    let near = |k: usize| changed.iter().any(|&c| c.abs_diff(k) <= CONTEXT);
    let mut out = String::new();
    let mut shown_lines = 0;
    let mut skipping = true;
    let mut line_number = 0;
    for (k, line) in lines.iter().enumerate() {
        if !matches!(line, Line::New(_)) {
            line_number += 1;
        }
        if !near(k) {
            skipping = true;
            continue;
        }
        if shown_lines == MAX_DIFF_LINES {
            let rest = (k..lines.len()).filter(|&m| near(m)).count();
            let _ = writeln!(out, "    ... and {rest} more lines of diff");
            break;
        }
        if skipping {
            let at = if matches!(line, Line::New(_)) {
                line_number + 1
            } else {
                line_number
            };
            let _ = writeln!(out, "    @ line {at}");
            skipping = false;
        }
        let _ = match line {
            Line::Same(text) => writeln!(out, "      {}", shown(text)),
            Line::Gone(text) => writeln!(out, "    - {}", shown(text)),
            Line::New(text) => writeln!(out, "    + {}", shown(text)),
        };
        shown_lines += 1;
    }
    out
}

#[test]
fn diff_is_compact() {
    let diff = compact_diff("a\nb\nc\n", "a\nx\nc\n");
    assert_eq!(diff, "    @ line 1\n      a\n    - b\n    + x\n      c\n");
    let many: String = (0..30).map(|n| format!("{n}\n")).collect();
    let diff = compact_diff(&many, &many.replace("20\n", "twenty\n"));
    assert_eq!(
        diff,
        "    @ line 19\n      18\n      19\n    - 20\n    + twenty\n      21\n      22\n"
    );
    let diff = compact_diff("end\n", "end");
    assert_eq!(
        diff,
        "    @ line 1\n    - end\n    + end  (no newline at end)\n"
    );
    let diff = compact_diff("", "one\ntwo\n");
    assert_eq!(diff, "    @ line 1\n    + one\n    + two\n");
    let long_old: String = (0..100).map(|n| format!("{n}\n")).collect();
    let long_new: String = (0..100).map(|n| format!("{}\n", n * 2)).collect();
    let diff = compact_diff(&long_old, &long_new);
    assert!(diff.lines().count() <= MAX_DIFF_LINES + 2, "{diff}");
    assert!(diff.ends_with("more lines of diff\n"), "{diff}");
    assert_eq!(
        compact_diff("a\r\n", "a\n"),
        "    @ line 1\n    - a\\r\n    + a\n"
    );
}

#[test]
fn flags_come_from_the_first_line() {
    let flags = read_flags("// run-flags: --timeout 1 --check\nint main() {}\n").expect("valid");
    assert_eq!(flags, ["--timeout", "1", "--check"]);
    assert!(
        read_flags("// a comment\nint main() {}\n")
            .expect("valid")
            .is_empty()
    );
    assert!(
        read_flags("int main() {}\n// run-flags: --check\n")
            .expect("valid")
            .is_empty()
    );
    assert!(read_flags("// comment\n// run-flags: --check\n").is_err());
    assert!(read_flags("// run-flags:\n").is_err());
}

/// A scratch directory for the blessing tests, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("tessera-run-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn outcome(stdout: &str, stderr: &str, exit: i32) -> Outcome {
    Outcome {
        stdout: stdout.to_string(),
        stderr: stderr.to_string(),
        exit: Ok(exit),
    }
}

#[test]
fn bless_writes_only_what_is_needed() {
    let scratch = Scratch::new("bless");
    let root = &scratch.0;
    std::fs::write(root.join("case.amp"), "int main() {}\n").expect("write");
    std::fs::write(root.join("case.stderr"), "old\n").expect("write");
    std::fs::write(root.join("case.exit"), "3\n").expect("write");
    let case = load_case(root, Path::new("case.amp")).expect("a case");
    let agreeing = [
        ("a", outcome("out\n", "", 0)),
        ("b", outcome("out\n", "", 0)),
    ];
    assert!(bless(root, &case, &agreeing).is_empty());
    let read = |ext: &str| std::fs::read_to_string(root.join(format!("case.{ext}"))).ok();
    assert_eq!(read("stdout").as_deref(), Some("out\n"));
    assert_eq!(read("stderr"), None, "an empty stderr leaves no file");
    assert_eq!(read("exit"), None, "exit status 0 leaves no file");

    let failing = [("a", outcome("", "error\n", 3))];
    assert!(bless(root, &case, &failing).is_empty());
    assert_eq!(read("stdout").as_deref(), Some(""));
    assert_eq!(read("stderr").as_deref(), Some("error\n"));
    assert_eq!(read("exit").as_deref(), Some("3\n"));
    let case = load_case(root, Path::new("case.amp")).expect("a case");
    assert_eq!((case.exit, case.stderr.as_str()), (3, "error\n"));
}

#[test]
fn bless_refuses_engines_that_disagree() {
    let scratch = Scratch::new("disagree");
    let root = &scratch.0;
    std::fs::write(root.join("case.amp"), "int main() {}\n").expect("write");
    let case = load_case(root, Path::new("case.amp")).expect("a case");
    let disagreeing = [("a", outcome("1\n", "", 0)), ("b", outcome("2\n", "", 0))];
    let problems = bless(root, &case, &disagreeing);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("[b] disagrees with [a]"),
        "{problems:?}"
    );
    assert!(!root.join("case.stdout").exists(), "nothing is written");
    let killed = [(
        "a",
        Outcome {
            stdout: String::new(),
            stderr: String::new(),
            exit: Err("killed".to_string()),
        },
    )];
    assert!(!bless(root, &case, &killed).is_empty());
    assert!(!root.join("case.stdout").exists(), "nothing is written");
}
