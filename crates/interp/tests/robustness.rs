//! The interpreter's robustness rule: every checked program gets an answer
//! (an exit status, a run-time error, findings), never a panic, a hang or a
//! stack overflow, with and without `--check`.
//!
//! [`mutated_programs_never_break_the_interpreter`] mutates every sample and
//! every program of `tests/run/semantics/`, half of the time with the
//! semantic mutator of `tessera_testkit` and half of the time with
//! mutations aimed at run time (literals set to bounds, sizes and shift
//! counts at the edges, comparisons and arithmetic swapped: see
//! [`mutate_for_run_time`]). Of each mutant number it keeps the first of up
//! to [`ATTEMPTS`] mutants that parses and checks without errors, and runs
//! it twice, without and with `--check`, under tight limits ([`limits`]).
//! A run must end within its time limit plus [`SLACK`]; an error or finding
//! must have a run-time code, point into the source (every label) and
//! render; `--check` must not change the answer ([`same_answer`]).
//! `TESSERA_FUZZ_SEED` and `TESSERA_FUZZ_ITERS` pick the seed and the number
//! of mutants. The mutant being tried is written to
//! `target/fuzz-failure-run.amp` (with a description in
//! `target/fuzz-failure-run.txt`) before it is compiled and run, and removed
//! when the whole run passes, so after a panic, an abort (stack overflow) or
//! a hang that file reproduces the problem: `tessera run --timeout 1
//! --max-memory 64M target/fuzz-failure-run.amp` (and with `--check`).
//!
//! The other tests run hand-written adversarial programs (runaway recursion
//! and loops, huge extents, vectors and arrays, barriers in loops and in
//! helper functions, views over C arrays, sections at the edges, undefined
//! arithmetic, long and odd output, the deepest trees the parser accepts),
//! each with the answer it must get. Each case is compiled and run on a
//! thread named after it, so a stack overflow, which aborts the whole test
//! binary, names its case in the abort message; its program waits in
//! `target/run-failure-NAME.amp` until it passes.
//!
//! Memory: every run has [`MAX_MEMORY`], which the interpreter must keep
//! to; the test sees the time a run takes, not the memory it holds (that
//! would need a counting allocator, and the workspace denies unsafe code).
//!
//! The interpreter recurses over the tree (whose height the parser bounds)
//! and over user calls (bounded by `Limits::max_call_depth` and
//! `Limits::max_stack`), so every run happens on a thread with the CLI's
//! 256 MiB stack. Everything runs in the dev profile under `cargo test`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tessera_diagnostics::{Code, FileId, Phase, Sources, render};
use tessera_interp::{Options, Outcome};
use tessera_ir::Program;
use tessera_runtime::{EXIT_RUNTIME_ERROR, Limits, RunError};
use tessera_syntax::lexer::{Token, lex};
use tessera_syntax::token::Tok;
use tessera_testkit::harness::{
    check_span, count_panics, env_number, panic_text, panics_here, run_watched,
};
use tessera_testkit::mutate::Rng;
use tessera_testkit::samples::{self, Sample};
use tessera_testkit::semantic;

/// Stack of the threads that run programs: the CLI's.
const STACK: usize = 256 << 20;

/// The time limit of a run of an adversarial case that must end on its
/// own: each takes well under a second in the dev profile; the margin is
/// for a busy machine.
const TIMEOUT: Duration = Duration::from_secs(5);

/// The time limit of a run of a case that must reach it (there is no need
/// to wait longer to see that the limit holds).
const RUNAWAY_TIMEOUT: Duration = Duration::from_millis(500);

/// The time limit of a run of a mutant: the unmutated programs take a few
/// tens of milliseconds each in the dev profile.
const FUZZ_TIMEOUT: Duration = Duration::from_secs(1);

/// The time limit of a run of an unmutated program: they end on their own,
/// the slowest (`matmul_tiled.amp` with `--check`) in under a second in the
/// dev profile; the margin is for a busy machine.
const CORPUS_TIMEOUT: Duration = Duration::from_secs(10);

/// The memory limit of every run.
const MAX_MEMORY: u64 = 64 << 20;

/// How far past its time limit a run may end: the interpreter checks the
/// clock every few thousand steps, and the test may share two cores with
/// other tests.
const SLACK: Duration = Duration::from_secs(3);

/// How long the fuzz loop may go without finishing a mutant (two runs).
const MUTANT_LIMIT: Duration = Duration::from_secs(40);

/// How long one adversarial case (two runs) may take before it counts as a
/// hang.
const CASE_LIMIT: Duration = Duration::from_secs(40);

/// Mutants tried when `TESSERA_FUZZ_ITERS` is not set.
const DEFAULT_ITERS: usize = 200;

/// Seed used when `TESSERA_FUZZ_SEED` is not set (fixed, so CI is repeatable).
const DEFAULT_SEED: u64 = 0x7E55_E7A0_0123_2026;

/// Bytes of a program's output kept for comparison (the rest is counted).
const KEPT_OUTPUT: usize = 64 << 10;

/// The limits a run is held to: `timeout`, [`MAX_MEMORY`], and the default
/// call depth and stack.
fn limits(timeout: Duration) -> Limits {
    Limits {
        max_memory: MAX_MEMORY,
        timeout: Some(timeout),
        ..Limits::default()
    }
}

// ------------------------------------------------------------------ running

/// A program's standard output: counted, and its beginning kept.
#[derive(Default)]
struct Output {
    bytes: u64,
    head: Vec<u8>,
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        let room = KEPT_OUTPUT.saturating_sub(self.head.len());
        self.head.extend_from_slice(&buf[..buf.len().min(room)]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Parses and checks `bytes`; the program, or `None` when the parser or
/// the checker reports an error.
fn compile(name: &str, bytes: &[u8]) -> (Sources, Option<Program>) {
    let mut sources = Sources::new();
    let checked = tessera_driver::compile_source(&mut sources, name, bytes);
    if checked.has_errors() {
        return (sources, None);
    }
    (sources, Some(checked.program))
}

/// The compile errors of `text`, rendered (to explain a case that does not
/// check).
fn compile_errors(name: &str, text: &str) -> String {
    let mut sources = Sources::new();
    let checked = tessera_driver::compile_source(&mut sources, name, text.as_bytes());
    checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| render::render(d, &sources, false))
        .collect()
}

/// Whether `code` is registered as a run-time code in `lo..=hi` (`R0001`..).
fn run_code_in(code: Code, lo: u32, hi: u32) -> bool {
    let number = code
        .as_str()
        .strip_prefix('R')
        .and_then(|n| n.parse::<u32>().ok());
    code.info().is_some_and(|info| info.phase == Phase::Run)
        && number.is_some_and(|n| (lo..=hi).contains(&n))
}

/// An error or finding must point into the source, with every secondary
/// label, and render as the CLI renders it.
fn check_run_error(sources: &Sources, e: &RunError, what: &str) -> Result<(), String> {
    let what = format!("{what} ({} {:?})", e.code, e.message);
    check_span(sources, e.span, &what)?;
    for (span, label) in &e.secondary {
        check_span(
            sources,
            *span,
            &format!("{what}, secondary label {label:?}"),
        )?;
    }
    let d = e.to_diagnostic();
    check_span(sources, d.primary.span, &format!("{what}, as a diagnostic"))?;
    for label in &d.secondary {
        check_span(
            sources,
            label.span,
            &format!("{what}, as a diagnostic, secondary label"),
        )?;
    }
    let text = render::render(&d, sources, false);
    let severity = if d.is_error() { "error" } else { "warning" };
    let head = format!("{severity}[{}]: {}", e.code, e.message);
    if !text.starts_with(&head) {
        let shown: String = text.chars().take(300).collect();
        return Err(format!("{what}: odd rendering {shown:?}"));
    }
    Ok(())
}

/// Checks what an [`Outcome`] claims: an error means exit status 3 and a
/// code `R0001`-`R0099`; findings come only with `--check`, with codes
/// `R0100`-`R0199`; every span is valid and every diagnostic renders.
fn check_outcome(sources: &Sources, outcome: &Outcome, check: bool) -> Result<(), String> {
    if let Some(e) = &outcome.error {
        if outcome.exit_code != i32::from(EXIT_RUNTIME_ERROR) {
            return Err(format!(
                "the run stopped with {} but exits with {}",
                e.code, outcome.exit_code
            ));
        }
        if !run_code_in(e.code, 1, 99) {
            return Err(format!("{} is not a run-time error code", e.code));
        }
        check_run_error(sources, e, "the run-time error")?;
    }
    if !check && !outcome.findings.is_empty() {
        return Err(format!(
            "{} findings without --check",
            outcome.findings.len()
        ));
    }
    for (i, f) in outcome.findings.iter().enumerate() {
        if !run_code_in(f.code, 100, 199) {
            return Err(format!("finding {i}: {} is not a finding's code", f.code));
        }
        check_run_error(sources, f, &format!("finding {i}"))?;
    }
    Ok(())
}

/// What one run did.
struct Ran {
    exit_code: i32,
    error: Option<Code>,
    findings: Vec<Code>,
    output: Output,
    elapsed: Duration,
}

/// Runs `program` once under [`limits`], output to an [`Output`], and
/// checks the outcome and the time it took.
fn run_once(
    sources: &Sources,
    program: &Program,
    check: bool,
    timeout: Duration,
) -> Result<Ran, String> {
    let options = Options {
        check,
        limits: limits(timeout),
    };
    let mode = if check {
        "with --check"
    } else {
        "without --check"
    };
    let mut output = Output::default();
    let started = Instant::now();
    let outcome = tessera_interp::run(program, &options, &mut output);
    let elapsed = started.elapsed();
    if elapsed > timeout + SLACK {
        return Err(format!(
            "{mode}: the run took {elapsed:.1?}, past the time limit of {timeout:?} \
             (ended with {})",
            outcome.error.as_ref().map_or_else(
                || format!("exit {}", outcome.exit_code),
                |e| e.code.to_string()
            )
        ));
    }
    check_outcome(sources, &outcome, check).map_err(|e| format!("{mode}: {e}"))?;
    Ok(Ran {
        exit_code: outcome.exit_code,
        error: outcome.error.as_ref().map(|e| e.code),
        findings: outcome.findings.iter().map(|f| f.code).collect(),
        output,
        elapsed,
    })
}

/// Runs `program` without and with `--check`, catching panics (also those
/// caught inside the interpreter or the renderer), and compares the runs.
fn run_both(sources: &Sources, program: &Program, timeout: Duration) -> Result<[Ran; 2], String> {
    let before = panics_here();
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<[Ran; 2], String> {
        Ok([
            run_once(sources, program, false, timeout)?,
            run_once(sources, program, true, timeout)?,
        ])
    }));
    let ran = match result {
        Ok(_) if panics_here() != before => {
            return Err("a panic was caught inside the interpreter or the renderer".to_string());
        }
        Ok(ran) => ran?,
        Err(payload) => return Err(format!("panic: {}", panic_text(&*payload))),
    };
    same_answer(&ran[0], &ran[1])?;
    Ok(ran)
}

/// `--check` reports, it does not change what a program does: unless a run
/// ended at a limit that depends on the machine (time, native stack), both
/// runs end the same way after the same output.
fn same_answer(plain: &Ran, checked: &Ran) -> Result<(), String> {
    let machine_limit = |r: &Ran| {
        r.error
            .is_some_and(|c| ["R0009", "R0011"].contains(&c.as_str()))
    };
    if machine_limit(plain) || machine_limit(checked) {
        return Ok(());
    }
    let end = |r: &Ran| match r.error {
        Some(code) => code.to_string(),
        None => format!("exit {}", r.exit_code),
    };
    if end(plain) != end(checked)
        || plain.output.bytes != checked.output.bytes
        || plain.output.head != checked.output.head
    {
        return Err(format!(
            "--check changes the answer: without it {} after {} bytes of output, \
             with it {} after {} bytes",
            end(plain),
            plain.output.bytes,
            end(checked),
            checked.output.bytes
        ));
    }
    Ok(())
}

// ------------------------------------------------------------------ fuzzing

/// The programs the mutants start from: the samples, then the programs of
/// `tests/run/semantics/`.
fn corpus() -> Vec<Sample> {
    let mut programs = samples::load();
    let dir = samples::workspace_root().join("tests/run/semantics");
    let mut semantics: Vec<Sample> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "amp"))
        .map(|path| Sample {
            name: format!(
                "semantics/{}",
                path.file_name().unwrap_or_default().to_string_lossy()
            ),
            bytes: std::fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display())),
        })
        .collect();
    semantics.sort();
    assert!(
        semantics.len() >= 10,
        "expected the programs of {}",
        dir.display()
    );
    programs.extend(semantics);
    programs
}

/// `target/fuzz-failure-run.EXT`: the mutant being tried, and what it is.
fn failure_path(ext: &str) -> PathBuf {
    samples::target_dir().join(format!("fuzz-failure-run.{ext}"))
}

/// Integer literals put in place of others: loop bounds and sizes that are
/// empty, off by one, long or huge; shift counts at and past the width;
/// the ends of `int`.
const INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "31",
    "32",
    "64",
    "1024",
    "65536",
    "1000000",
    "2147483647",
    "(-2147483647 - 1)",
];

/// Floating-point literals put in place of others: zero, and values too
/// large for `int` and for `float`.
const FLOATS: &[&str] = &["0.0f", "0.0", "-3e9f", "1e30f", "1e300"];

/// The operators that may take the place of `tok`, if it is one this
/// mutation changes: comparisons by their neighbours (off-by-one bounds,
/// loops that never end), arithmetic by its inverse, `++` by `--`.
fn operator_swaps(tok: Tok<'_>) -> Option<&'static [&'static str]> {
    Some(match tok {
        Tok::Lt => &["<=", ">", "!="],
        Tok::Le => &["<", ">="],
        Tok::Gt => &[">=", "<"],
        Tok::Ge => &[">", "<="],
        Tok::EqEq => &["!="],
        Tok::Plus => &["-", "*"],
        Tok::Minus => &["+", "*"],
        Tok::Star => &["/", "+"],
        Tok::Slash => &["%", "*"],
        Tok::Percent => &["/"],
        Tok::PlusPlus => &["--"],
        Tok::MinusMinus => &["++"],
        _ => return None,
    })
}

/// A mutation aimed at run time rather than at the checker: one literal
/// or operator changed (see [`INTS`], [`FLOATS`], [`operator_swaps`]),
/// logged like the semantic mutator's. False when `text` has none.
fn mutate_for_run_time(rng: &mut Rng, text: &mut String, log: &mut String) -> bool {
    let mut diags = Vec::new();
    let tokens = lex(FileId(0), text, &[], &mut diags);
    let candidates: Vec<&Token<'_>> = tokens
        .iter()
        .filter(|t| match t.tok {
            Tok::Int(_) | Tok::Float(_) => true,
            other => operator_swaps(other).is_some(),
        })
        .collect();
    if candidates.is_empty() {
        return false;
    }
    let t = *rng.pick(&candidates);
    let replacement = match t.tok {
        Tok::Int(_) => rng.pick(INTS).to_string(),
        Tok::Float(_) => rng.pick(FLOATS).to_string(),
        other => rng
            .pick(operator_swaps(other).unwrap_or(&["+"]))
            .to_string(),
    };
    let range = t.start as usize..t.end as usize;
    let _ = write!(
        log,
        " run-time {}..{} {:?} -> {replacement:?};",
        range.start,
        range.end,
        &text[range.clone()]
    );
    text.replace_range(range, &replacement);
    true
}

/// How many mutants each mutant number may make before one checks without
/// errors (most mutants of the semantic mutator do not).
const ATTEMPTS: usize = 12;

/// One mutant of `original`: the semantic mutator's (one to three edits)
/// half of the time, otherwise one or two run-time mutations, each with a
/// semantic edit once in four times. Returns the text and a description.
fn mutant(rng: &mut Rng, original: &str) -> (String, String) {
    if rng.below(2) == 0 {
        let m = semantic::mutate(rng, original);
        return (m.text, m.log);
    }
    let mut text = original.to_string();
    let mut log = String::new();
    for _ in 0..1 + rng.below(2) {
        mutate_for_run_time(rng, &mut text, &mut log);
        if rng.below(4) == 0 {
            semantic::mutate_once(rng, &mut text, &mut log);
        }
    }
    (text, log)
}

/// Counts of what the mutants did.
#[derive(Default)]
struct Stats {
    /// Mutants made, accepted or not.
    attempts: usize,
    /// Numbers for which no attempt checked without errors.
    unchecked: usize,
    /// Mutants run (twice each).
    ran: usize,
    /// Runs that ended with `main`'s value.
    exited: usize,
    /// Runs stopped by the time limit.
    timed_out: usize,
    errors: BTreeSet<Code>,
    findings: BTreeSet<Code>,
    output: u64,
    slowest: Duration,
}

impl Stats {
    fn add(&mut self, ran: &Ran) {
        match ran.error {
            None => self.exited += 1,
            Some(code) => {
                self.timed_out += usize::from(code.as_str() == "R0009");
                self.errors.insert(code);
            }
        }
        self.findings.extend(ran.findings.iter().copied());
        self.output += ran.output.bytes;
        self.slowest = self.slowest.max(ran.elapsed);
    }
}

/// Compiles a mutant, catching panics of the front end (the checker's own
/// robustness test looks for those; here they only must not pass unseen).
fn compile_mutant(text: &str, about: &str) -> Result<(Sources, Option<Program>), String> {
    let before = panics_here();
    match catch_unwind(AssertUnwindSafe(|| compile("mutant.amp", text.as_bytes()))) {
        Ok(compiled) if panics_here() == before => Ok(compiled),
        Ok(_) => Err(format!("the front end panicked (caught)\n  {about}")),
        Err(payload) => Err(format!(
            "the front end panicked: {}\n  {about}",
            panic_text(&*payload)
        )),
    }
}

/// The fuzz loop; `Err` describes the first failure.
fn fuzz(
    seed: u64,
    iters: usize,
    corpus: &[Sample],
    progress: &AtomicUsize,
) -> Result<String, String> {
    let started = Instant::now();
    let _ = std::fs::create_dir_all(samples::target_dir());
    let texts: Vec<String> = corpus.iter().map(Sample::text).collect();
    let mut stats = Stats::default();
    for i in 0..iters {
        let k = i % corpus.len();
        // Each mutant has its own stream, so changing one changes no other.
        let mut rng = Rng::for_mutant(seed, i);
        let mut accepted = None;
        for attempt in 0..ATTEMPTS {
            let (text, log) = mutant(&mut rng, &texts[k]);
            let about = format!(
                "TESSERA_FUZZ_SEED={seed:#x}, mutant {i} (attempt {attempt}) of {} ({} bytes):{log}",
                corpus[k].name,
                text.len(),
            );
            let _ = std::fs::write(failure_path("amp"), &text);
            let _ = std::fs::write(failure_path("txt"), &about);
            stats.attempts += 1;
            if let (sources, Some(program)) = compile_mutant(&text, &about)? {
                accepted = Some((sources, program, about));
                break;
            }
        }
        let Some((sources, program, about)) = accepted else {
            stats.unchecked += 1;
            progress.store(i + 1, Ordering::Relaxed);
            continue;
        };
        match run_both(&sources, &program, FUZZ_TIMEOUT) {
            Ok(ran) => {
                stats.ran += 1;
                ran.iter().for_each(|r| stats.add(r));
            }
            Err(problem) => {
                return Err(format!(
                    "{problem}\n  {about}\n  the mutant is in {}",
                    failure_path("amp").display()
                ));
            }
        }
        progress.store(i + 1, Ordering::Relaxed);
    }
    // A guard against mutations that stop reaching the interpreter.
    if stats.ran < iters / 2 || stats.exited == 0 || stats.errors.len() < 2 {
        return Err(format!(
            "only {} of {iters} mutants ran ({} runs exited, run-time errors {:?})",
            stats.ran, stats.exited, stats.errors
        ));
    }
    let codes = |set: &BTreeSet<Code>| -> String {
        set.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(" ")
    };
    Ok(format!(
        "{iters} mutants ({} made, {} numbers without one that checks), {:.1?}: \
         {} run twice ({} runs exited, {} timed out, slowest {:.1?}; errors {}; \
         findings {}; {} KiB of output)",
        stats.attempts,
        stats.unchecked,
        started.elapsed(),
        stats.ran,
        stats.exited,
        stats.timed_out,
        stats.slowest,
        codes(&stats.errors),
        codes(&stats.findings),
        stats.output >> 10
    ))
}

#[test]
fn mutated_programs_never_break_the_interpreter() {
    count_panics();
    let seed = env_number("TESSERA_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let iters = env_number("TESSERA_FUZZ_ITERS").map_or(DEFAULT_ITERS, |n| n as usize);
    let corpus = corpus();
    let outcome = run_watched(
        "fuzz-run",
        STACK,
        MUTANT_LIMIT,
        move |progress| fuzz(seed, iters, &corpus, progress),
        || {
            let about = std::fs::read_to_string(failure_path("txt")).unwrap_or_default();
            format!("{about}\nreproduce with {}", failure_path("amp").display())
        },
    );
    match outcome {
        Ok(stats) => {
            let _ = std::fs::remove_file(failure_path("amp"));
            let _ = std::fs::remove_file(failure_path("txt"));
            eprintln!("fuzz (interpreter): seed {seed:#x}, {stats}");
        }
        Err(message) => panic!("{message}"),
    }
}

/// The unmutated programs run within the limits without a run-time error:
/// the baseline the mutants depart from.
#[test]
fn corpus_runs_within_the_limits() {
    count_panics();
    let outcome = run_watched(
        "corpus",
        STACK,
        CORPUS_TIMEOUT * 2 + SLACK,
        |progress| {
            let mut failures = Vec::new();
            for (i, program) in corpus().iter().enumerate() {
                let (sources, compiled) = compile(&program.name, &program.bytes);
                let Some(compiled) = compiled else {
                    failures.push(format!("{}: does not check", program.name));
                    continue;
                };
                match run_both(&sources, &compiled, CORPUS_TIMEOUT) {
                    Ok(ran) => {
                        for r in &ran {
                            if let Some(code) = r.error {
                                failures.push(format!("{}: stops with {code}", program.name));
                            }
                        }
                    }
                    Err(problem) => failures.push(format!("{}: {problem}", program.name)),
                }
                progress.store(i + 1, Ordering::Relaxed);
            }
            if failures.is_empty() {
                Ok(())
            } else {
                Err(failures.join("\n"))
            }
        },
        || "a corpus program hangs".to_string(),
    );
    if let Err(message) = outcome {
        panic!("{message}");
    }
}

// ------------------------------------------------------------------ cases

/// The answer an adversarial program must get (the same without and with
/// `--check`).
enum Expect {
    /// Runs to its end: `main`'s value and all of the output.
    Prints(i32, &'static str),
    /// Runs to its end with `main`'s value, whatever it prints.
    Exits(i32),
    /// Runs to its end with `main`'s value, printing at least this many bytes.
    PrintsAtLeast(i32, u64),
    /// Stops with one of these run-time errors.
    Fails(&'static [&'static str]),
    /// Stops with one of these errors after printing at least this many bytes.
    FailsAfter(&'static [&'static str], u64),
    /// Runs to its end as [`Expect::Prints`] says, or stops with one of these
    /// errors (a construct Tessera may decline to run).
    PrintsOrFails(i32, &'static str, &'static [&'static str]),
    /// Any answer: what C++ does here is undefined or unbounded.
    Anything,
}

/// One adversarial program.
struct Case {
    name: String,
    source: String,
    expect: Expect,
    /// Codes `--check` must find (among others it may).
    findings: &'static [&'static str],
}

impl Case {
    /// The case, with codes `--check` must find.
    fn finding(mut self, codes: &'static [&'static str]) -> Case {
        self.findings = codes;
        self
    }
}

const HEAD: &str = "#include <iostream>\n#include <iomanip>\n#include <vector>\n\
                    #include <amp.h>\nusing namespace concurrency;\n";

/// A case whose program is `HEAD` followed by `body` (top-level items).
fn case(name: &str, body: &str, expect: Expect) -> Case {
    Case {
        name: name.to_string(),
        source: format!("{HEAD}{body}"),
        expect,
        findings: &[],
    }
}

/// A case whose program is `HEAD` and a `main` holding `stmts`.
fn in_main(name: &str, stmts: &str, expect: Expect) -> Case {
    case(
        name,
        &format!("int main() {{\n{stmts}\n    return 0;\n}}\n"),
        expect,
    )
}

/// A case whose `main` makes `std::vector<int> v(n)` (0, 1, 2, ...) and a
/// view `av` over it, runs `kernel` (a `parallel_for_each` statement), then
/// prints `shown` elements of `v`, separated by spaces.
fn kernel_case(name: &str, n: u32, kernel: &str, shown: u32, expect: Expect) -> Case {
    in_main(name, &kernel_body(n, kernel, shown), expect)
}

/// The statements of [`kernel_case`]'s `main`, for one written by hand.
fn kernel_body(n: u32, kernel: &str, shown: u32) -> String {
    format!(
        "    std::vector<int> v({n});\n    for (int i = 0; i < {n}; i++) {{ v[i] = i; }}\n    \
         array_view<int, 1> av({n}, v);\n{kernel}\n    av.synchronize();\n    \
         for (int i = 0; i < {shown}; i++) {{ std::cout << (i ? \" \" : \"\") << v[i]; }}\n    \
         std::cout << \"\\n\";"
    )
}

/// A case of helper functions `helpers` and a `main` as [`kernel_case`]'s.
fn helper_case(
    name: &str,
    helpers: &str,
    n: u32,
    kernel: &str,
    shown: u32,
    expect: Expect,
) -> Case {
    case(
        name,
        &format!(
            "{helpers}\nint main() {{\n{}\n    return 0;\n}}\n",
            kernel_body(n, kernel, shown)
        ),
        expect,
    )
}

/// Whether a run's answer is what `expect` asks for.
fn verdict(expect: &Expect, ran: &Ran) -> Result<(), String> {
    let out = String::from_utf8_lossy(&ran.output.head);
    let got = match ran.error {
        Some(code) => format!("{code} after {} bytes of output", ran.output.bytes),
        None => format!(
            "exit {} with output {:?}",
            ran.exit_code,
            first_chars(&out, 200)
        ),
    };
    let stops_with = |codes: &[&str]| ran.error.is_some_and(|c| codes.contains(&c.as_str()));
    let prints = |code: i32, text: &str| {
        ran.error.is_none()
            && ran.exit_code == code
            && ran.output.bytes == text.len() as u64
            && out == text
    };
    let ok = match expect {
        Expect::Prints(code, text) => prints(*code, text),
        Expect::Exits(code) => ran.error.is_none() && ran.exit_code == *code,
        Expect::PrintsAtLeast(code, n) => {
            ran.error.is_none() && ran.exit_code == *code && ran.output.bytes >= *n
        }
        Expect::Fails(codes) => stops_with(codes),
        Expect::FailsAfter(codes, n) => stops_with(codes) && ran.output.bytes >= *n,
        Expect::PrintsOrFails(code, text, codes) => prints(*code, text) || stops_with(codes),
        Expect::Anything => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {}, got {got}", describe(expect)))
    }
}

fn describe(expect: &Expect) -> String {
    match expect {
        Expect::Prints(code, text) => format!("exit {code} with output {text:?}"),
        Expect::Exits(code) => format!("exit {code}"),
        Expect::PrintsAtLeast(code, n) => format!("exit {code} after at least {n} bytes"),
        Expect::Fails(codes) => format!("one of {codes:?}"),
        Expect::FailsAfter(codes, n) => format!("one of {codes:?} after at least {n} bytes"),
        Expect::PrintsOrFails(code, text, codes) => {
            format!("exit {code} with output {text:?}, or one of {codes:?}")
        }
        Expect::Anything => "anything".to_string(),
    }
}

fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The file that holds the case being run, so that an abort leaves it behind.
fn case_path(name: &str) -> PathBuf {
    let slug: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    samples::target_dir().join(format!("run-failure-{slug}.amp"))
}

/// Whether `expect` is only the time limit: such a case runs with
/// [`RUNAWAY_TIMEOUT`].
fn reaches_time_limit(expect: &Expect) -> bool {
    matches!(expect, Expect::Fails(codes) | Expect::FailsAfter(codes, _) if *codes == TIME)
}

/// Runs one case on its own thread (named after it), compiling it there
/// too (the front end recurses over deep trees), and judges its answer.
fn run_case(case: &Case) -> Result<(), String> {
    let _ = std::fs::create_dir_all(samples::target_dir());
    let path = case_path(&case.name);
    let _ = std::fs::write(&path, &case.source);
    let source = case.source.clone();
    let timeout = if reaches_time_limit(&case.expect) {
        RUNAWAY_TIMEOUT
    } else {
        TIMEOUT
    };
    let ran = run_watched(
        &format!("case: {}", case.name),
        STACK,
        CASE_LIMIT,
        move |_| {
            count_panics();
            let (sources, program) = compile("case.amp", source.as_bytes());
            let Some(program) = program else {
                return Err(format!(
                    "does not check:\n{}",
                    compile_errors("case.amp", &source)
                ));
            };
            run_both(&sources, &program, timeout)
        },
        || format!("reproduce with {}", path.display()),
    )?;
    for (r, mode) in ran.iter().zip(["without --check", "with --check"]) {
        verdict(&case.expect, r).map_err(|e| format!("{mode}: {e}"))?;
    }
    let found: Vec<&str> = ran[1].findings.iter().map(|c| c.as_str()).collect();
    if let Some(missing) = case.findings.iter().find(|c| !found.contains(c)) {
        return Err(format!(
            "--check does not find {missing} (it finds {found:?})"
        ));
    }
    let _ = std::fs::remove_file(case_path(&case.name));
    Ok(())
}

/// Runs every case and fails with the list of those that went wrong.
fn run_cases(cases: &[Case]) {
    count_panics();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| run_case(c).err().map(|e| format!("{}: {e}", c.name)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

const TIME: &[&str] = &["R0009"];
const MEMORY: &[&str] = &["R0010"];
const DEPTH: &[&str] = &["R0011"];
const BOUNDS: &[&str] = &["R0001"];
const OVERFLOW: &[&str] = &["R0003"];
const SHIFT: &[&str] = &["R0004"];
const FLOAT_TO_INT: &[&str] = &["R0005"];
const DOMAIN: &[&str] = &["R0006"];
const ARGUMENT: &[&str] = &["R0007"];
const DIVERGENCE: &[&str] = &["R0008"];

#[test]
fn runaway_host_code_is_stopped() {
    run_cases(&[
        case(
            "recursion without a base case",
            "int down(int n) { return down(n + 1); }\nint main() { return down(0); }\n",
            Expect::Fails(DEPTH),
        ),
        case(
            "deep recursion that ends",
            "int sum(int n) { if (n == 0) { return 0; } return n + sum(n - 1); }\n\
             int main() { std::cout << sum(9000) << \"\\n\"; return 0; }\n",
            Expect::Prints(0, "40504500\n"),
        ),
        case(
            "recursion inside a tall expression",
            &format!(
                "int f(int n) {{ return n <= 0 ? 0 : {}f(n - 1); }}\n\
                 int main() {{ return f(1000000); }}\n",
                "- ".repeat(350)
            ),
            Expect::Fails(DEPTH),
        ),
        case(
            "recursion through a reference parameter and a struct",
            "struct P { int a; int b[8]; };\n\
             int walk(P& p, int n) { p.b[n % 8] += 1; return walk(p, n + 1) + p.a; }\n\
             int main() { P p = {1}; return walk(p, 0); }\n",
            Expect::Fails(DEPTH),
        ),
        case(
            "exponential recursion without loops",
            "int f(int n) { if (n == 0) { return 0; } return f(n - 1) + f(n - 1) + 1; }\n\
             int main() { std::cout << f(62) << \"\\n\"; return 0; }\n",
            Expect::Fails(TIME),
        ),
        in_main(
            "infinite while loop",
            "    while (true) {}",
            Expect::Fails(TIME),
        ),
        in_main(
            "infinite for loop with a body",
            "    unsigned x = 0;\n    for (;;) { x = x * 3u + 1u; }",
            Expect::Fails(TIME),
        ),
        in_main(
            "infinite do loop with continue",
            "    int i = 0;\n    do { i = (i + 1) % 7; continue; } while (i >= 0);",
            Expect::Fails(TIME),
        ),
        in_main(
            "nested loops of two billion steps",
            "    long s = 0;\n    for (int i = 0; i < 2000000; i++) {\n        \
             for (int j = 0; j < 1000; j++) { s += j; }\n    }\n    std::cout << s;",
            Expect::Fails(TIME),
        ),
        in_main(
            "switch in an infinite loop",
            "    int k = 0;\n    while (1) {\n        switch (k % 3) { case 0: k++; case 1: k++; break; default: k = 0; }\n    }",
            Expect::Fails(TIME),
        ),
        in_main(
            "huge vector",
            "    std::vector<int> v(2000000000);\n    std::cout << v.size();",
            Expect::Fails(MEMORY),
        ),
        in_main(
            "vector of minus one elements",
            "    std::vector<double> v(-1);\n    std::cout << v.size();",
            Expect::Fails(MEMORY),
        ),
        in_main(
            "vector grown forever",
            "    std::vector<long> v;\n    while (true) { v.push_back(1); }",
            Expect::Fails(&["R0009", "R0010"]),
        ),
        in_main(
            "vectors copied forever",
            "    std::vector<int> v(1000000, 7);\n    std::vector<int> w = v;\n    \
             for (int i = 0; i < 1000; i++) { w = v; v.push_back(i); }",
            Expect::Fails(&["R0009", "R0010"]),
        ),
        case(
            "huge global C array",
            "int g[100000000];\nint main() { return g[5]; }\n",
            Expect::Fails(MEMORY),
        ),
        case(
            "huge global C array with an initialiser list",
            "struct S { int a[50000000]; };\nS s = {{1}};\nint main() { return s.a[0]; }\n",
            Expect::Fails(MEMORY),
        ),
        case(
            "huge global vector",
            "std::vector<float> g = std::vector<float>(1500000000);\nint main() { return 0; }\n",
            Expect::Fails(MEMORY),
        ),
        in_main(
            "huge array",
            "    array<int, 1> a(2147483647);\n    std::cout << a.extent[0];",
            Expect::Fails(MEMORY),
        ),
        in_main(
            "array whose size overflows",
            "    array<int, 3> a(extent<3>(2147483647, 2147483647, 2147483647));\n    \
             std::cout << a.extent[0];",
            Expect::Fails(MEMORY),
        ),
        in_main(
            "array_view whose size overflows",
            "    array_view<double, 2> a(2147483647, 2147483647);\n    std::cout << a.extent[0];",
            Expect::Fails(MEMORY),
        ),
        // 1,100 arrays of 64 KB: more than the memory limit in all, unless
        // each is given back at the end of its iteration.
        in_main(
            "C arrays declared in a loop",
            "    int s = 0;\n    for (int i = 0; i < 1100; i++) {\n        \
             int a[16000];\n        a[i % 16000] = i;\n        s = a[i % 16000];\n    }\n    \
             std::cout << s << \"\\n\";",
            Expect::Prints(0, "1099\n"),
        ),
        case(
            "C arrays in recursive calls",
            "int f(int n) { int a[2000]; a[0] = n; if (n == 0) { return 0; } return a[0] - n + f(n - 1); }\n\
             int main() { int s = 0; for (int i = 0; i < 100; i++) { s += f(100); } std::cout << s << \"\\n\"; return 0; }\n",
            Expect::Prints(0, "0\n"),
        ),
    ]);
}

#[test]
fn runaway_kernels_are_stopped() {
    run_cases(&[
        kernel_case(
            "kernel over a huge extent",
            4,
            "    parallel_for_each(extent<1>(2147483647), [=](index<1> i) restrict(amp) {\n        \
             if (i[0] < 4) { av[i] = av[i] + 1; }\n    });",
            4,
            Expect::Fails(TIME),
        ),
        kernel_case(
            "kernel over a huge rank-3 extent",
            4,
            "    parallel_for_each(extent<3>(2147483647, 2147483647, 2147483647), \
             [=](index<3> i) restrict(amp) {\n        int x = i[0] + i[1];\n    });",
            4,
            Expect::Fails(TIME),
        ),
        // Tiles of 1,024 work-items, each running statements without a loop:
        // the time limit must hold however little a tile's loops count.
        kernel_case(
            "tiled kernel over a huge extent",
            4,
            "    parallel_for_each(extent<1>(2147482624).tile<1024>(), \
             [=](tiled_index<1024> t) restrict(amp) {\n        \
             int a = t.local[0];\n        int b = a * 2;\n        int c = b + a;\n        \
             int d = c - b;\n        int e = d + 1;\n    });",
            4,
            Expect::Fails(TIME),
        ),
        kernel_case(
            "tiled kernel over a huge rank-3 extent",
            4,
            "    parallel_for_each(extent<3>(2147483647, 2147483647, 2147483647).tile<1, 1, 1>(), \
             [=](tiled_index<1, 1, 1> t) restrict(amp) {\n        int x = t.local[0];\n    });",
            4,
            Expect::Fails(TIME),
        ),
        kernel_case(
            "tiled kernel over a huge rank-2 extent",
            4,
            "    parallel_for_each(extent<2>(2147483584, 2147483584).tile<16, 16>(), \
             [=](tiled_index<16, 16> t) restrict(amp) {\n        t.barrier.wait();\n    });",
            4,
            Expect::Fails(TIME),
        ),
        kernel_case(
            "kernel over a zero extent",
            4,
            "    parallel_for_each(extent<2>(4, 0), [=](index<2> i) restrict(amp) {});",
            4,
            Expect::Fails(DOMAIN),
        ),
        kernel_case(
            "kernel over a negative extent",
            4,
            "    parallel_for_each(extent<1>(-2147483647 - 1).tile<4>(), \
             [=](tiled_index<4> t) restrict(amp) {});",
            4,
            Expect::Fails(DOMAIN),
        ),
        kernel_case(
            "infinite loop in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {\n        \
             while (true) { av[i] = av[i] + 0; }\n    });",
            4,
            Expect::Fails(TIME),
        ),
        kernel_case(
            "infinite loop around a barrier",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             for (;;) { t.barrier.wait(); }\n    });",
            8,
            Expect::Fails(TIME),
        ),
        kernel_case(
            "barriers in nested loops whose trip count varies by tile",
            16,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int n = t.tile[0] + 1;\n        int sum = 0;\n        \
             for (int i = 0; i < n; i++) {\n            for (int j = 0; j <= i; j++) {\n                \
             t.barrier.wait();\n                sum += j;\n            }\n            \
             t.barrier.wait();\n        }\n        av[t] = sum;\n    });",
            16,
            Expect::Prints(0, "0 0 0 0 1 1 1 1 4 4 4 4 10 10 10 10\n"),
        ),
        // The checker rejects a barrier under a condition that depends on
        // the work-item; a racy counter (`av[t.tile]++` gives each work-item
        // of a tile its own value, as the interpreter runs them in turn)
        // hides the dependence from it, so the divergence happens at run time.
        kernel_case(
            "barriers in loops whose trip count varies by work-item",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int x = av[t.tile]++;\n        for (int i = 0; i < 2; i++) {\n            \
             for (int j = 0; j < x; j++) { t.barrier.wait(); }\n        }\n    });",
            8,
            Expect::Fails(DIVERGENCE),
        ),
        kernel_case(
            "barrier after some work-items returned",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int x = av[t.tile]++;\n        if (x == 3) { return; }\n        t.barrier.wait();\n    });",
            8,
            Expect::Fails(DIVERGENCE),
        ),
        helper_case(
            "barrier divergence inside a helper",
            "void wait_if(tiled_index<4> t, int x) restrict(amp) { if (x > 1) { t.barrier.wait(); } }",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int x = av[t.tile]++;\n        wait_if(t, x);\n    });",
            8,
            Expect::Fails(DIVERGENCE),
        ),
        kernel_case(
            "barrier in a loop left by break",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int k = 0;\n        while (true) {\n            if (k == 3) { break; }\n            \
             t.barrier.wait();\n            k++;\n        }\n        av[t] = k;\n    });",
            8,
            Expect::Prints(0, "3 3 3 3 3 3 3 3\n"),
        ),
        kernel_case(
            "barriers in a switch",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int r = 0;\n        switch (t.tile[0]) {\n            case 0: t.barrier.wait(); r += 1;\n            \
             case 1: t.barrier.wait(); r += 2; break;\n            default: r = 9;\n        }\n        \
             av[t] = r;\n    });",
            8,
            Expect::Prints(0, "3 3 3 3 2 2 2 2\n"),
        ),
        helper_case(
            "barrier in a helper called inside an expression",
            "int f(tiled_index<4> t) restrict(amp) { t.barrier.wait(); return 1; }",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int x = f(t) + 1;\n        av[t] = x;\n    });",
            8,
            Expect::PrintsOrFails(0, "2 2 2 2 2 2 2 2\n", DIVERGENCE),
        ),
        helper_case(
            "barrier in a helper called in conditions",
            "int f(tiled_index<4> t) restrict(amp) { t.barrier.wait(); return t.tile[0] + 1; }",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             if (f(t) > 1) { av[t] = 1; } else { av[t] = 0; }\n        \
             while (f(t) < 0) { av[t] = 5; }\n        \
             for (int i = 0; i < f(t); i++) { av[t] += 10; }\n    });",
            8,
            Expect::PrintsOrFails(0, "10 10 10 10 21 21 21 21\n", DIVERGENCE),
        ),
        helper_case(
            "barrier in a helper called as an argument",
            "int f(tiled_index<4> t) restrict(amp) { t.barrier.wait(); return 1; }\n\
             int g(int a, int b) restrict(amp) { return a + b; }",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             av[t] = g(f(t), t.local[0]);\n    });",
            8,
            Expect::PrintsOrFails(0, "1 2 3 4 1 2 3 4\n", DIVERGENCE),
        ),
        helper_case(
            "barrier in a helper called in a compound assignment",
            "int f(tiled_index<4> t) restrict(amp) { t.barrier.wait(); return t.local[0]; }",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             av[t] += f(t);\n    });",
            8,
            Expect::PrintsOrFails(0, "0 2 4 6 4 6 8 10\n", DIVERGENCE),
        ),
        helper_case(
            "barrier helpers called in a loop",
            "void step(tiled_index<256> t) restrict(amp) { t.barrier.wait(); }\n\
             void two(tiled_index<256> t) restrict(amp) { step(t); step(t); }",
            512,
            "    parallel_for_each(av.extent.tile<256>(), [=](tiled_index<256> t) restrict(amp) {\n        \
             for (int i = 0; i < 100; i++) { two(t); }\n        av[t] = 7;\n    });",
            8,
            Expect::Prints(0, "7 7 7 7 7 7 7 7\n"),
        ),
        helper_case(
            "barrier helper returning a value through nested helpers",
            "int a(tiled_index<4> t) restrict(amp) { t.barrier.wait(); return t.local[0]; }\n\
             int b(tiled_index<4> t) restrict(amp) { int x = a(t); return x * 2; }\n\
             int c(tiled_index<4> t) restrict(amp) { return b(t); }",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             int r = 0;\n        r = c(t);\n        av[t] = r;\n    });",
            8,
            Expect::Prints(0, "0 2 4 6 0 2 4 6\n"),
        ),
    ]);
}

#[test]
fn views_and_indices_at_the_edges() {
    run_cases(&[
        kernel_case(
            "array_view over a private C array in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {\n        \
             int cells[4] = {1, 2, 3, 4};\n        array_view<int, 1> cv(4, cells);\n        \
             cv[1] += i[0];\n        av[i] = cv[1] + cells[1];\n    });",
            4,
            Expect::Prints(0, "4 6 8 10\n"),
        ),
        kernel_case(
            "rank-2 array_view over a private C array in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {\n        \
             int cells[6] = {0, 1, 2, 3, 4, 5};\n        array_view<int, 2> cv(2, 3, cells);\n        \
             av[i] = cv(1, 2) + cv[1][0] + cv(0, 1) * i[0];\n    });",
            4,
            Expect::Prints(0, "8 9 10 11\n"),
        ),
        kernel_case(
            "array_view over a tile_static array",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             tile_static int cells[4];\n        array_view<int, 1> tv(4, cells);\n        \
             tv[t.local] = t.global[0];\n        t.barrier.wait();\n        \
             av[t] = tv[3 - t.local[0]];\n    });",
            8,
            Expect::Prints(0, "3 2 1 0 7 6 5 4\n"),
        ),
        kernel_case(
            "array_view larger than its C array in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {\n        \
             int cells[4];\n        array_view<int, 1> cv(5, cells);\n        av[i] = cv[4];\n    });",
            4,
            Expect::Fails(ARGUMENT),
        ),
        in_main(
            "host C array written by a kernel through a view",
            "    int host[8] = {0};\n    array_view<int, 1> hv(8, host);\n    \
             parallel_for_each(hv.extent, [=](index<1> i) restrict(amp) { hv[i] = i[0] * 2; });\n    \
             hv.synchronize();\n    std::cout << host[7] << \" \" << hv[3] << \"\\n\";",
            Expect::Prints(0, "14 6\n"),
        ),
        case(
            "view over a C array that went out of scope",
            "array_view<int, 1> make() { int a[4] = {1, 2, 3, 4}; array_view<int, 1> v(4, a); return v; }\n\
             int clobber() { std::vector<int> w(3, 9); int b[4] = {5, 6, 7, 8}; return w[0] + b[0]; }\n\
             int main() {\n    array_view<int, 1> v = make();\n    clobber();\n    \
             parallel_for_each(v.extent, [=](index<1> i) restrict(amp) { v[i] = v[i] + 1; });\n    \
             std::cout << v[0] << v[3] << \"\\n\";\n    return 0;\n}\n",
            Expect::Anything,
        ),
        in_main(
            "sections at the edges",
            "    std::vector<int> v(12);\n    for (int i = 0; i < 12; i++) { v[i] = i; }\n    \
             array_view<int, 2> a(3, 4, v);\n    \
             array_view<int, 2> corner = a.section(index<2>(2, 3), extent<2>(1, 1));\n    \
             array_view<int, 2> whole = a.section(index<2>(0, 0), extent<2>(3, 4));\n    \
             array_view<int, 1> row = a[2];\n    \
             array_view<int, 1> tail = row.section(index<1>(3), extent<1>(1));\n    \
             parallel_for_each(corner.extent, [=](index<2> i) restrict(amp) { corner[i] += 100; });\n    \
             std::cout << corner(0, 0) << \" \" << whole(2, 3) << \" \" << tail[0] << \" \" << row[0] << \"\\n\";",
            Expect::Prints(0, "111 111 111 8\n"),
        ),
        in_main(
            "section one past the edge",
            "    std::vector<int> v(12);\n    array_view<int, 2> a(3, 4, v);\n    \
             array_view<int, 2> s = a.section(index<2>(2, 3), extent<2>(1, 2));\n    std::cout << s(0, 0);",
            Expect::Fails(ARGUMENT),
        ),
        in_main(
            "section at a negative origin",
            "    std::vector<int> v(12);\n    array_view<int, 2> a(3, 4, v);\n    \
             array_view<int, 2> s = a.section(index<2>(-1, 0), extent<2>(1, 1));\n    std::cout << s(0, 0);",
            Expect::Fails(ARGUMENT),
        ),
        in_main(
            "empty section",
            "    std::vector<int> v(12);\n    array_view<int, 2> a(3, 4, v);\n    \
             array_view<int, 2> s = a.section(index<2>(0, 0), extent<2>(0, 4));\n    std::cout << s.extent[0];",
            Expect::Fails(ARGUMENT),
        ),
        in_main(
            "section whose end overflows",
            "    std::vector<int> v(12);\n    array_view<int, 1> a(12, v);\n    \
             array_view<int, 1> s = a.section(index<1>(2147483647), extent<1>(2147483647));\n    std::cout << s[0];",
            Expect::Fails(ARGUMENT),
        ),
        in_main(
            "projection past the edge",
            "    std::vector<int> v(12);\n    array_view<int, 2> a(3, 4, v);\n    \
             array_view<int, 1> r = a[3];\n    std::cout << r[0];",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "negative projection",
            "    std::vector<int> v(12);\n    array_view<int, 2> a(3, 4, v);\n    \
             std::cout << a[-1][0];",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "view larger than its vector",
            "    std::vector<int> v(11);\n    array_view<int, 2> a(3, 4, v);\n    std::cout << a(0, 0);",
            Expect::Fails(ARGUMENT),
        ),
        in_main(
            "negative vector index",
            "    std::vector<int> v(4);\n    std::cout << v[-1];",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "vector index past the end",
            "    std::vector<int> v(4);\n    v[4] = 1;",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "huge unsigned vector index",
            "    std::vector<int> v(4);\n    unsigned long i = 18446744073709551615ul;\n    v[i] = 1;",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "negative C array index",
            "    int a[4] = {1, 2, 3, 4};\n    int k = -1;\n    std::cout << a[k];",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "index of minimum int in a C array",
            "    int a[4][4];\n    int k = -2147483647 - 1;\n    a[1][k] = 0;",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "negative view index on the host",
            "    std::vector<int> v(4);\n    array_view<int, 1> av(4, v);\n    std::cout << av[-1];",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "negative rank-2 view index",
            "    std::vector<int> v(4);\n    array_view<int, 2> av(2, 2, v);\n    std::cout << av(index<2>(1, -1));",
            Expect::Fails(BOUNDS),
        ),
        kernel_case(
            "negative view index in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i - 1]; });",
            4,
            Expect::Fails(BOUNDS),
        ),
        kernel_case(
            "negative tile_static index",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             tile_static int s[4];\n        s[t.local[0] - 1] = 1;\n    });",
            8,
            Expect::Fails(BOUNDS),
        ),
        kernel_case(
            "array index past the end in a kernel",
            4,
            "    array<int, 1> arr(4);\n    \
             parallel_for_each(av.extent, [=, &arr](index<1> i) restrict(amp) { arr[i + 1] = 1; });",
            4,
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "negative extent component",
            "    extent<2> e(3, 4);\n    int k = -1;\n    std::cout << e[k];",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "index component past the rank",
            "    index<1> i(5);\n    int k = 1;\n    i[k] = 3;\n    std::cout << i[0];",
            Expect::Fails(BOUNDS),
        ),
        in_main(
            "extent arithmetic that overflows",
            "    extent<1> e(2147483647);\n    extent<1> f = e + 1;\n    std::cout << f[0];",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "size of a huge extent",
            "    extent<3> e(2147483647, 2147483647, 2147483647);\n    std::cout << e.size() << \"\\n\";",
            Expect::Anything,
        ),
        in_main(
            "copy between different extents",
            "    std::vector<int> v(4);\n    std::vector<int> w(6);\n    \
             array_view<int, 1> a(4, v);\n    array_view<int, 1> b(6, w);\n    copy(a, b);",
            Expect::Fails(ARGUMENT),
        ),
        in_main(
            "copy into a short vector",
            "    array<int, 1> a(8);\n    std::vector<int> w(3);\n    copy(a, w.begin());",
            Expect::Anything,
        ),
    ]);
}

#[test]
fn undefined_arithmetic_is_an_error() {
    run_cases(&[
        in_main(
            "INT_MIN / -1",
            "    int x = -2147483647 - 1;\n    int y = -1;\n    std::cout << x / y;",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "INT_MIN % -1",
            "    int x = -2147483647 - 1;\n    int y = -1;\n    std::cout << x % y;",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "negated INT_MIN",
            "    int x = -2147483647 - 1;\n    std::cout << -x;",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "LONG_MIN / -1",
            "    long x = -9223372036854775807L - 1;\n    long y = -1;\n    std::cout << x / y;",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "INT_MIN /= -1",
            "    int x = -2147483647 - 1;\n    x /= -1;\n    std::cout << x;",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "abs of INT_MIN",
            "    int x = -2147483647 - 1;\n    std::cout << abs(x);",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "INT_MAX + 1 by ++",
            "    int x = 2147483647;\n    x++;\n    std::cout << x;",
            Expect::Fails(OVERFLOW),
        ),
        in_main(
            "LONG_MAX + 1 by ++",
            "    long x = 9223372036854775807L;\n    ++x;\n    std::cout << x;",
            Expect::Fails(OVERFLOW),
        ),
        kernel_case(
            "INT_MIN / -1 in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {\n        \
             int m = -2147483647 - 1;\n        av[i] = m / (i[0] - 1);\n    });",
            4,
            Expect::Fails(OVERFLOW),
        ),
        kernel_case(
            "division by zero in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = 1 % i[0]; });",
            4,
            Expect::Fails(&["R0002"]),
        ),
        in_main(
            "unsigned arithmetic wraps",
            "    unsigned u = 0u;\n    u -= 1u;\n    unsigned long big = 18446744073709551615ul;\n    \
             big += 2ul;\n    std::cout << u << \" \" << big << \" \" << (u << 31) << \"\\n\";",
            Expect::Prints(0, "4294967295 1 2147483648\n"),
        ),
        in_main(
            "shift by 32",
            "    int x = 1;\n    int n = 32;\n    std::cout << (x << n);",
            Expect::Fails(SHIFT),
        ),
        in_main(
            "shift by -1",
            "    int x = 8;\n    int n = -1;\n    std::cout << (x >> n);",
            Expect::Fails(SHIFT),
        ),
        in_main(
            "unsigned shift by 32",
            "    unsigned x = 1u;\n    std::cout << (x >> 32);",
            Expect::Fails(SHIFT),
        ),
        in_main(
            "long shift by 64",
            "    long x = 1L;\n    int n = 64;\n    std::cout << (x << n);",
            Expect::Fails(SHIFT),
        ),
        in_main(
            "compound shift by 40",
            "    int x = 1;\n    x <<= 40;\n    std::cout << x;",
            Expect::Fails(SHIFT),
        ),
        in_main(
            "char shifted by 32",
            "    char c = 1;\n    std::cout << (c << 32);",
            Expect::Fails(SHIFT),
        ),
        in_main(
            "shift by a huge long",
            "    int x = 1;\n    long n = -9223372036854775807L - 1;\n    std::cout << (x << n);",
            Expect::Fails(SHIFT),
        ),
        in_main(
            "shifts at the edges",
            "    int x = -1;\n    long y = 1L;\n    std::cout << (x << 31) << \" \" << (y << 63) << \" \" << (x >> 31) << \"\\n\";",
            Expect::Prints(0, "-2147483648 -9223372036854775808 -1\n"),
        ),
        in_main(
            "double too large for int",
            "    double d = 1e10;\n    int i = (int)d;\n    std::cout << i;",
            Expect::Fails(FLOAT_TO_INT),
        ),
        in_main(
            "NaN to int",
            "    double z = 0.0;\n    int i = (int)(z / z);\n    std::cout << i;",
            Expect::Fails(FLOAT_TO_INT),
        ),
        in_main(
            "infinity to long",
            "    double z = 0.0;\n    long i = (long)(1.0 / z);\n    std::cout << i;",
            Expect::Fails(FLOAT_TO_INT),
        ),
        in_main(
            "negative float to unsigned",
            "    float f = -1.0f;\n    unsigned u = f;\n    std::cout << u;",
            Expect::Fails(FLOAT_TO_INT),
        ),
        in_main(
            "1e19 to long",
            "    double d = 1e19;\n    long l = d;\n    std::cout << l;",
            Expect::Fails(FLOAT_TO_INT),
        ),
        in_main(
            "300.0 to char",
            "    double d = 300.0;\n    char c = (char)d;\n    std::cout << (int)c;",
            Expect::Fails(FLOAT_TO_INT),
        ),
        in_main(
            "float too large for int in a compound assignment",
            "    int i = 5;\n    i *= 1e30f;\n    std::cout << i;",
            Expect::Fails(FLOAT_TO_INT),
        ),
        kernel_case(
            "float to int overflow in a kernel",
            4,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {\n        \
             float f = 3e9f * (float)i[0];\n        av[i] = (int)f;\n    });",
            4,
            Expect::Fails(FLOAT_TO_INT),
        ),
        in_main(
            "float to int conversions at the edges",
            "    double a = 2147483647.9;\n    double b = -2147483648.9;\n    double c = -0.9;\n    \
             std::cout << (int)a << \" \" << (int)b << \" \" << (unsigned)c << \" \" << (long)-9.2e18 << \"\\n\";",
            Expect::Prints(0, "2147483647 -2147483648 0 -9200000000000000000\n"),
        ),
    ]);
}

#[test]
fn long_and_odd_output_is_streamed() {
    run_cases(&[
        in_main(
            "very long output",
            "    for (int i = 0; i < 100000; i++) { std::cout << \"line \" << i << \"\\n\"; }",
            Expect::PrintsAtLeast(0, 1_000_000),
        ),
        in_main(
            "output without end",
            "    while (true) { std::cout << \"spam spam spam spam\" << std::endl; }",
            Expect::FailsAfter(TIME, 1 << 10),
        ),
        in_main(
            "one very long line",
            "    for (int i = 0; i < 200000; i++) { std::cout << i % 10; }\n    std::cout << std::endl;",
            Expect::PrintsAtLeast(0, 200_001),
        ),
        in_main(
            "huge setw",
            "    std::cout << std::setw(2000000000) << 1 << \"\\n\";",
            Expect::Anything,
        ),
        in_main(
            "negative setw",
            "    std::cout << std::setw(-5) << 1 << \"|\\n\";",
            Expect::Prints(0, "1|\n"),
        ),
        in_main(
            "huge setprecision",
            "    std::cout << std::setprecision(2000000000) << 1.5 << \"\\n\";",
            Expect::Anything,
        ),
        in_main(
            "huge setprecision in fixed notation",
            "    std::cout << std::fixed << std::setprecision(70000) << 0.1 << \"\\n\";",
            Expect::Anything,
        ),
        in_main(
            "huge setprecision in scientific notation",
            "    std::cout << std::scientific << std::setprecision(100000) << 1e300 << \"\\n\";",
            Expect::Anything,
        ),
        in_main(
            "negative setprecision",
            "    std::cout << std::setprecision(-3) << 3.14159265 << \"\\n\";",
            Expect::Prints(0, "3.14159\n"),
        ),
        in_main(
            "extreme floating-point values",
            "    double z = 0.0;\n    \
             double vals[6] = {1.0 / z, -1.0 / z, z / z, 1e308 * 10.0, 5e-324, -0.0};\n    \
             for (int i = 0; i < 6; i++) {\n        \
             float f = (float)vals[i];\n        \
             std::cout << vals[i] << \" \" << std::fixed << vals[i] << \" \" << std::scientific << vals[i] \
             << \" \" << std::setprecision(0) << vals[i] << \" \" << f << std::setprecision(60) << \" \" << f \
             << std::defaultfloat << std::setprecision(6) << \"\\n\";\n    }\n    \
             std::cout << std::fixed << std::setprecision(400) << 1e308 << \"\\n\";",
            Expect::PrintsAtLeast(0, 700),
        ),
    ]);
}

#[test]
fn check_findings_point_into_the_source() {
    run_cases(&[
        kernel_case(
            "uninitialised tile_static memory",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             tile_static int s[4];\n        if (t.local[0] != 0) { s[t.local[0]] = 1; }\n        \
             t.barrier.wait();\n        av[t] = s[0] + s[1];\n    });",
            8,
            Expect::Prints(0, "1 1 1 1 1 1 1 1\n"),
        )
        .finding(&["R0101"]),
        kernel_case(
            "discarded data read by a kernel",
            4,
            "    av.discard_data();\n    \
             parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 1; });",
            4,
            Expect::Prints(0, "1 2 3 4\n"),
        )
        .finding(&["R0103"]),
        in_main(
            "vector read before synchronize",
            "    std::vector<int> v(4, 1);\n    array_view<int, 1> av(4, v);\n    \
             parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = 2; });\n    \
             std::cout << v[0] << \"\\n\";",
            Expect::Prints(0, "2\n"),
        )
        .finding(&["R0102"]),
        kernel_case(
            "races between tiles and atomics that do not race",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             av[0] = t.global[0];\n        atomic_fetch_add(&av[1], 1);\n    });",
            2,
            Expect::Prints(0, "7 9\n"),
        )
        .finding(&["R0100"]),
        kernel_case(
            "race on tile_static memory without a barrier",
            8,
            "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {\n        \
             tile_static int s;\n        s = t.local[0];\n        av[t] = s;\n    });",
            8,
            Expect::Anything,
        )
        .finding(&["R0100"]),
    ]);
}

// ------------------------------------------------------------------ deep trees

/// Where [`program_with`] puts a nest.
#[derive(Clone, Copy)]
enum Site {
    Host,
    Kernel,
    /// A tiled kernel, with a barrier where the nest's innermost `x = 2;`
    /// is (the work-items run the whole nest in lock-step).
    Tiled,
}

/// `body` (statements using `int x`) in `main`, a kernel or a tiled kernel;
/// the program prints `x`.
fn program_with(body: &str, site: Site) -> String {
    let head = "#include <iostream>\n#include <amp.h>\nusing namespace concurrency;\n\
                int f(int a) restrict(amp, cpu) { return a; }\n";
    let kernel = |domain: &str, param: &str, body: &str| {
        format!(
            "{head}int main() {{\n    std::vector<int> v(4);\n    array_view<int, 1> av(4, v);\n    \
             parallel_for_each({domain}, [=]({param} idx) restrict(amp) {{\n        \
             int x = 1;\n{body}\n        av[idx] = x;\n    }});\n    av.synchronize();\n    \
             std::cout << v[0] << \"\\n\";\n    return 0;\n}}\n"
        )
    };
    match site {
        Site::Host => format!(
            "{head}int main() {{\n    int x = 1;\n{body}\n    std::cout << x << \"\\n\";\n    return 0;\n}}\n"
        ),
        Site::Kernel => kernel("av.extent", "index<1>", body),
        Site::Tiled => kernel(
            "av.extent.tile<2>()",
            "tiled_index<2>",
            &body.replacen("x = 2;", "{ idx.barrier.wait(); x = 2; }", 1),
        ),
    }
}

/// A shape of nest: its name, and the statements nesting it `n` deep.
type Shape = (&'static str, fn(usize) -> String);

/// The deepest trees the parser accepts, of each shape, run in host code,
/// in a kernel and in a tiled kernel (nests of statements around a
/// barrier): the interpreter's recursion over one tree, and over a nest it
/// runs in lock-step, must fit the stack.
#[test]
fn deepest_trees_run() {
    let shapes: [Shape; 9] = [
        ("unary minus", |n| format!("x = {}1;", "- ".repeat(n))),
        ("calls", |n| {
            format!("x = {}1{};", "f(".repeat(n), ")".repeat(n))
        }),
        ("blocks", |n| {
            format!("{}x = 2;{}", "{".repeat(n), "}".repeat(n))
        }),
        ("ifs", |n| format!("{}x = 2;", "if (x) ".repeat(n))),
        ("ternaries", |n| format!("x = {}0;", "x ? 1 : ".repeat(n))),
        ("assignments", |n| format!("{}0;", "x = ".repeat(n))),
        ("sums", |n| format!("x = 1{};", " + 1".repeat(n))),
        ("while loops", |n| {
            format!("{}x = 2;", "while (x == 1) ".repeat(n))
        }),
        ("for loops", |n| {
            format!("{}x = 2;", "for (int i = 0; i < 1; i++) ".repeat(n))
        }),
    ];
    let max = tessera_syntax::ast::MAX_HEIGHT as usize;
    // The front end recurses over the tree too: search on a large stack.
    let search = std::thread::Builder::new()
        .name("deepest".into())
        .stack_size(STACK)
        .spawn(move || {
            let mut cases = Vec::new();
            for (name, shape) in shapes {
                for site in [Site::Host, Site::Kernel, Site::Tiled] {
                    // The deepest nest the front end takes (E0104 past it).
                    let deepest = (0..max).rev().step_by(5).find_map(|depth| {
                        let text = program_with(&shape(depth), site);
                        let (_, program) = compile("deep.amp", text.as_bytes());
                        program.map(|_| (depth, text))
                    });
                    let Some((depth, text)) = deepest else {
                        panic!("{name}: no depth checks");
                    };
                    assert!(depth + 100 > max, "{name}: only {depth} deep checks");
                    cases.push(Case {
                        name: format!(
                            "{depth} {name}{}",
                            match site {
                                Site::Host => "",
                                Site::Kernel => " in a kernel",
                                Site::Tiled => " in a tiled kernel",
                            }
                        ),
                        source: text,
                        expect: Expect::Exits(0),
                        findings: &[],
                    });
                }
            }
            cases
        })
        .expect("spawn a thread");
    let cases = match search.join() {
        Ok(cases) => cases,
        Err(payload) => panic!("{}", panic_text(&*payload)),
    };
    run_cases(&cases);
}
