//! The interpreter's robustness rule: every checked program gets an answer
//! (an exit status, a run-time error, findings), never a panic, a hang or a
//! stack overflow, with and without `--check`.
//!
//! [`mutated_programs_never_break_the_interpreter`] mutates every sample and
//! every program of `tests/run/semantics/`, half of the time with the
//! semantic mutator of `tessera_testkit` and half of the time with its
//! mutations aimed at run time (`semantic::mutate_run_time` anywhere in the
//! program: literals at the edges of their types, comparisons and
//! arithmetic swapped, indices pushed off). Of each mutant number it keeps the first of up
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
//! [`deepest_trees_run`] runs the deepest trees the parser accepts. Each
//! such case is compiled and run on a thread named after it, so a stack
//! overflow, which aborts the whole test binary, names its case in the
//! abort message; its program waits in `target/run-failure-NAME.amp` until
//! it passes. The hand-written adversarial programs (runaway recursion and
//! loops, huge extents, vectors and arrays, barriers in loops and in helper
//! functions, views over C arrays, sections at the edges, undefined
//! arithmetic, long and odd output, `--check` findings), each with the
//! answer it must get, are files in `tests/robustness/`, run without and
//! with `--check` and under the JIT by `crates/jit/tests/agreement.rs`.
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
use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tessera_diagnostics::{Code, Phase, Sources, render};
use tessera_interp::{Options, Outcome};
use tessera_ir::Program;
use tessera_runtime::{EXIT_RUNTIME_ERROR, Limits, RunError};
use tessera_testkit::harness::{
    check_span, count_panics, env_number, panic_text, panics_here, run_watched,
};
use tessera_testkit::mutate::Rng;
use tessera_testkit::samples::{self, Sample};
use tessera_testkit::semantic::{self, Focus};

/// Stack of the threads that run programs: the CLI's.
const STACK: usize = 256 << 20;

/// The time limit of a run of an adversarial case that must end on its
/// own: each takes well under a second in the dev profile; the margin is
/// for a busy machine.
const TIMEOUT: Duration = Duration::from_secs(5);

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
        // Programs are compiled from their bytes alone: one that reads local
        // headers or needs `-D` definitions is run under every engine by
        // tests/run instead. A program drawing from `std::random_device`
        // prints the same each run, but its mutants need not, and the runs
        // compared here must agree.
        .filter(|path| {
            std::fs::read(path).is_ok_and(|b| {
                let text = String::from_utf8_lossy(&b);
                let defines = text
                    .lines()
                    .next()
                    .is_some_and(|l| l.starts_with("// run-flags:") && l.contains(" -D"));
                !text.contains("#include \"") && !defines && !text.contains("random_device")
            })
        })
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
        semantic::mutate_run_time(rng, &mut text, &mut log, Focus::Anywhere);
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

/// One program that must run to its end and exit with 0, without and with
/// `--check`. (The hand-written adversarial programs, each with the answer
/// it must get, are files in `tests/robustness/`, run under every engine by
/// `crates/jit/tests/agreement.rs`.)
struct Case {
    name: String,
    source: String,
}

/// Whether a run exited with 0.
fn verdict(ran: &Ran) -> Result<(), String> {
    match ran.error {
        Some(code) => Err(format!(
            "expected exit 0, got {code} after {} bytes of output",
            ran.output.bytes
        )),
        None if ran.exit_code != 0 => Err(format!("expected exit 0, got exit {}", ran.exit_code)),
        None => Ok(()),
    }
}

/// The file that holds the case being run, so that an abort leaves it behind.
fn case_path(name: &str) -> PathBuf {
    let slug: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    samples::target_dir().join(format!("run-failure-{slug}.amp"))
}

/// Runs one case on its own thread (named after it), compiling it there
/// too (the front end recurses over deep trees), and judges its answer.
fn run_case(case: &Case) -> Result<(), String> {
    let _ = std::fs::create_dir_all(samples::target_dir());
    let path = case_path(&case.name);
    let _ = std::fs::write(&path, &case.source);
    let source = case.source.clone();
    let timeout = TIMEOUT;
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
        verdict(r).map_err(|e| format!("{mode}: {e}"))?;
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
