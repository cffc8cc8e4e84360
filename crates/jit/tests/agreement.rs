//! The JIT's two promises, tested against the interpreter.
//!
//! 1. **Agreement**: a program run with the JIT (`run_with_engine` and a
//!    [`Jit`]) prints the same bytes, exits with the same status and stops
//!    with the same [`RunError`] (code, message, span, label, thread, notes)
//!    as under the interpreter alone, whatever the number of worker threads.
//! 2. **No crash**: no program makes the process panic, abort, or die of a
//!    signal raised by generated code.
//!
//! A crash of generated code kills the process that runs it, so no case
//! runs in the test process itself: each test re-runs this test binary as a
//! child (with `TESSERA_AGREEMENT_SUITE` naming the suite and
//! `TESSERA_AGREEMENT_FROM` the first case), which runs the cases one after
//! another and reports each on its standard output. When the child dies in
//! a case or stops reporting for longer than the case may take, the parent
//! records a crash or a hang for that case and starts a new child at the
//! next one ([`a_case_that_kills_its_child_is_a_crash`] checks that). A case
//! that fails leaves its program in `target/jit-agreement/SUITE-N.amp`. In
//! the child, the interpreter's run goes on on its own thread beside the
//! JIT's runs, each on a thread with the CLI's 256 MiB stack.
//!
//! The suites:
//!
//! - [`corpus_agrees`]: every `samples/*.amp` and `tests/run/**/*.amp`, with
//!   the time and memory limits of its `// run-flags:` line, under the JIT
//!   with 1, 2 and 4 threads; the JIT declines none of their launches (it
//!   may hand one back after a failed check, for the interpreter to report,
//!   unless the program's leading comments say `// jit-fallbacks: 0`);
//! - [`mutants_agree`]: mutants of the samples and of `tests/run/semantics/`
//!   (the semantic mutator of `tessera_testkit`, and edits aimed at kernel
//!   bodies: literals at the edges of their types, swapped operators, indices
//!   pushed off by one or far), with a time limit of 1 s and 64 MiB of memory;
//! - [`hostile_kernels_agree`] and [`endless_programs_agree`]: the hand-written
//!   programs of `tests/agreement/hostile/` and `tests/agreement/endless/`
//!   (see [`file_case`] for the comment lines that give each its name, its
//!   expected answer, its limits and its JIT thread counts), aimed at the JIT's checks (bounds of views of each rank, of
//!   sections and projections, of `tile_static` and private arrays; division,
//!   overflow, shifts, float-to-int conversions; barrier divergence), at its
//!   analyses (ranges of counters and coordinates, uniform loop counters,
//!   frame locals across barriers, inlined helpers), at its code generation
//!   (conversions, NaN, signed zeros, the order in which C++17 sequences the
//!   operands of assignments), at compiled host loops and at the hand-off
//!   (data shared with host code between launches, failed launches, the
//!   memory limit), each with the answer the interpreter gives it (so that
//!   the case tests what it says); the endless ones must stop at a time limit
//!   of 1 s;
//! - [`random_programs_agree`]: random well-defined programs of
//!   `tessera_testkit::programs`.
//!
//! Exact agreement has three exceptions, each counted in the summary:
//!
//! - both engines stopped at the time limit (R0009): where they stopped may
//!   differ, so only the output printed so far is compared (one must be a
//!   prefix of the other);
//! - the interpreter reached the time limit and the JIT, faster, did not: the
//!   interpreter's output must be a prefix of the JIT's. The other way round
//!   is a failure unless the interpreter itself needed a quarter of the limit;
//! - the program races (the interpreter with `--check` reports R0100): its
//!   result depends on the order of the work-items, which the JIT's workers
//!   do not keep.
//!
//! Each test prints a summary (with `--nocapture`): cases, verdicts, how
//! many launches and host loops compiled code ran to the end, the launches
//! the JIT declined (kernels it does not compile, data without a plain
//! form) and those it handed back after a failed check, why kernels were
//! declined, the slowest cases, and the hand-written cases in which the JIT
//! compiled nothing.
//!
//! `TESSERA_AGREEMENT_MUTANTS` and `TESSERA_AGREEMENT_RANDOM` change the
//! number of mutants and random programs, `TESSERA_AGREEMENT_SEED` their seed.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use tessera_diagnostics::{Sources, render};
use tessera_interp::Options;
use tessera_ir::Program;
use tessera_jit::Jit;
use tessera_runtime::{Limits, RunError, parse_size};
use tessera_testkit::harness::{check_span, env_number};
use tessera_testkit::mutate::Rng;
use tessera_testkit::semantic::{self, Focus};
use tessera_testkit::{programs, samples};

/// Names the suite a child runs; set only in children.
const SUITE_ENV: &str = "TESSERA_AGREEMENT_SUITE";
/// The first case a child runs.
const FROM_ENV: &str = "TESSERA_AGREEMENT_FROM";
/// Starts every line of the child's protocol.
const MARK: &str = "@@agreement";

/// Stack of the thread that compiles and runs programs (the CLI's): the
/// front end and the interpreter recurse over the tree.
const STACK: usize = 256 << 20;

/// Time limit of a mutant's run, and of a case that must reach the limit.
const SHORT_TIMEOUT: Duration = Duration::from_secs(1);
/// Time limit of a run that must end on its own: a safety net only.
const LONG_TIMEOUT: Duration = Duration::from_secs(20);
/// Memory limit of mutants and hand-written cases.
const MAX_MEMORY: u64 = 64 << 20;

/// How long past its time limits a case may go before the parent calls it a
/// hang: the interpreter and the JIT look at the clock every few thousand
/// steps, and the machine may be busy.
const SLACK: Duration = Duration::from_secs(3);

/// Bytes of a run's output kept for comparison and reports; the rest is
/// counted and hashed.
const KEPT: usize = 1 << 20;

/// Mutants tried by default.
const MUTANTS: usize = 240;
/// Random programs by default.
const RANDOM: usize = 200;
/// Seed of mutants and random programs by default.
const SEED: u64 = 0x00A6_EE0E_D15E_A5E5;
/// How many mutants a mutant number may make before one checks.
const ATTEMPTS: usize = 12;

// ------------------------------------------------------------------ cases

/// What the interpreter must answer for a hand-written case, so that the
/// case tests what its name says.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// Whatever the interpreter says (mutants, random programs, the corpus).
    Any,
    /// `main` returns this.
    Exit(i32),
    /// The run stops with one of these codes.
    Error(Vec<String>),
    /// `main` returns this, or the run stops with one of these codes (a
    /// construct Tessera may decline to run).
    ExitOrError(i32, Vec<String>),
}

/// One program and how to run it.
#[derive(Clone, Debug)]
struct Case {
    name: String,
    source: String,
    /// Worker threads of the JIT runs (one run each).
    threads: Vec<usize>,
    limits: Limits,
    expect: Expect,
    /// When `main` returns, what it must have printed.
    stdout: Option<String>,
    /// The least output the run must print, however it ends.
    at_least: u64,
    /// Also run the interpreter with `--check`: it must give the same
    /// answer, find these codes (among others it may) and point every
    /// finding into the source.
    check: Option<Vec<String>>,
    /// The JIT must run every launch to its end itself: none declined or
    /// failed and left to the interpreter (a check that fails where the
    /// program has no error would otherwise go unseen).
    jit_only: bool,
    /// The JIT must decline a launch, for a reason containing this text.
    declines: Option<String>,
    /// The least number of host statement runs compiled code must finish,
    /// over all the JIT's runs of the case (printing loops, say, which the
    /// interpreter would otherwise run and agree with itself).
    host_runs_at_least: u64,
    /// A corpus case: the JIT must decline none of its launches.
    corpus: bool,
    /// The program's standard input: a corpus case's `X.stdin`, else
    /// nothing (the input is at its end).
    stdin: Vec<u8>,
}

impl Case {
    /// A case of `source` with no expectation beyond agreement.
    fn new(name: String, source: String, threads: Vec<usize>, limits: Limits) -> Case {
        Case {
            name,
            source,
            threads,
            limits,
            expect: Expect::Any,
            stdout: None,
            at_least: 0,
            check: None,
            jit_only: false,
            declines: None,
            host_runs_at_least: 0,
            corpus: false,
            stdin: Vec::new(),
        }
    }
}

/// Limits with `timeout` and `max_memory`, the rest as default.
fn limits(timeout: Duration, max_memory: u64) -> Limits {
    Limits {
        timeout: Some(timeout),
        max_memory,
        ..Limits::default()
    }
}

/// The suites, each run by one test in its own child processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Suite {
    Corpus,
    Mutants,
    Hostile,
    Endless,
    Robustness,
    Random,
    /// Checks the harness itself: its second case kills its child, its
    /// fourth stops reporting.
    Harness,
}

const SUITES: [Suite; 7] = [
    Suite::Corpus,
    Suite::Mutants,
    Suite::Hostile,
    Suite::Endless,
    Suite::Robustness,
    Suite::Random,
    Suite::Harness,
];

impl Suite {
    fn name(self) -> &'static str {
        match self {
            Suite::Corpus => "corpus",
            Suite::Mutants => "mutants",
            Suite::Hostile => "hostile",
            Suite::Endless => "endless",
            Suite::Robustness => "robustness",
            Suite::Random => "random",
            Suite::Harness => "harness",
        }
    }

    /// The test that runs the suite (the child runs it alone).
    fn test(self) -> &'static str {
        match self {
            Suite::Corpus => "corpus_agrees",
            Suite::Mutants => "mutants_agree",
            Suite::Hostile => "hostile_kernels_agree",
            Suite::Endless => "endless_programs_agree",
            Suite::Robustness => "robustness_programs_agree",
            Suite::Random => "random_programs_agree",
            Suite::Harness => "a_case_that_kills_its_child_is_a_crash",
        }
    }

    fn from_name(name: &str) -> Option<Suite> {
        SUITES.into_iter().find(|s| s.name() == name)
    }

    /// The cases of the suite, made lazily (a mutant is found by compiling
    /// its attempts); `None` when mutant `i` has no attempt that checks.
    fn cases(self) -> (usize, Box<dyn Fn(usize) -> Option<Case>>) {
        let seed = env_number("TESSERA_AGREEMENT_SEED").unwrap_or(SEED);
        match self {
            Suite::Corpus => {
                let files = corpus_files();
                (files.len(), Box::new(move |i| Some(corpus_case(&files[i]))))
            }
            Suite::Mutants => {
                let n = env_number("TESSERA_AGREEMENT_MUTANTS").map_or(MUTANTS, |n| n as usize);
                let originals = mutant_originals();
                (n, Box::new(move |i| mutant_case(&originals, seed, i)))
            }
            Suite::Hostile | Suite::Endless | Suite::Robustness => {
                let cases = match self {
                    Suite::Robustness => file_cases("robustness", true),
                    _ => file_cases(&format!("agreement/{}", self.name()), false),
                };
                (cases.len(), Box::new(move |i| Some(cases[i].clone())))
            }
            Suite::Harness => {
                let cases: Vec<Case> = ["first", "abort", "third", "hang", "fifth"]
                    .into_iter()
                    .map(harness_case)
                    .collect();
                (cases.len(), Box::new(move |i| Some(cases[i].clone())))
            }
            Suite::Random => {
                let n = env_number("TESSERA_AGREEMENT_RANDOM").map_or(RANDOM, |n| n as usize);
                (
                    n,
                    Box::new(move |i| {
                        Some(Case::new(
                            format!("random program {i} of seed {seed:#x}"),
                            programs::program(seed, i),
                            vec![[1, 2, 4][i % 3]],
                            limits(LONG_TIMEOUT, Limits::default().max_memory),
                        ))
                    }),
                )
            }
        }
    }
}

// ------------------------------------------------------------------ corpus

/// Every `samples/*.amp` and `tests/run/**/*.amp` in UTF-8 without local
/// headers, sorted.
fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "amp")
                // Cases are compiled from their text alone: a file that is
                // not UTF-8 (the encoding cases), reads local headers or
                // needs `-D` definitions is run under every engine by
                // tests/run instead.
                && std::fs::read(&path).is_ok_and(|b| {
                    std::str::from_utf8(&b).is_ok_and(|text| {
                        let defines = text.lines().next().is_some_and(|l| {
                            l.starts_with("// run-flags:") && l.contains(" -D")
                        });
                        !text.contains("#include \"") && !defines
                    })
                })
            {
                out.push(path);
            }
        }
    }
    let root = samples::workspace_root();
    let mut files = Vec::new();
    walk(&root.join("samples"), &mut files);
    let samples = files.len();
    walk(&root.join("tests/run"), &mut files);
    assert!(
        samples >= 10 && files.len() >= samples + 30,
        "expected the samples and the run tests under {}",
        root.display()
    );
    files.sort();
    files
}

/// The time and memory limits of a `// run-flags:` line.
fn apply_run_flags(flags: &str, case_limits: &mut Limits) {
    let words: Vec<&str> = flags.split_whitespace().collect();
    for (k, w) in words.iter().enumerate() {
        let value = words.get(k + 1).copied().unwrap_or_default();
        match *w {
            "--timeout" => {
                let secs: f64 = value.parse().expect("a number of seconds");
                case_limits.timeout = Some(Duration::from_secs_f64(secs));
            }
            "--max-memory" => {
                case_limits.max_memory = parse_size(value).expect("a size");
            }
            _ => {}
        }
    }
}

/// A corpus program with the limits of its `// run-flags:` line (`--check`
/// is left out: the JIT is not used with it).
fn corpus_case(path: &Path) -> Case {
    let source = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut case_limits = limits(LONG_TIMEOUT, Limits::default().max_memory);
    if let Some(flags) = source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// run-flags:"))
    {
        apply_run_flags(flags, &mut case_limits);
    }
    let root = samples::workspace_root();
    let mut case = Case::new(
        path.strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string(),
        source,
        vec![1, 2, 4],
        case_limits,
    );
    // The input `run.rs` gives the case too.
    case.stdin = std::fs::read(path.with_extension("stdin")).unwrap_or_default();
    case.corpus = true;
    // `// jit-fallbacks: 0` among the leading comments: every launch must
    // run to its end in compiled code, none rerun after a failed check.
    case.jit_only = case
        .source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .any(|l| l.trim_end() == "// jit-fallbacks: 0");
    case
}

// ------------------------------------------------------------------ mutants

/// The programs mutants are made from: the samples and the programs of
/// `tests/run/semantics/` that launch kernels (the mutations edit kernels;
/// a host-only program would only dilute the suite).
fn mutant_originals() -> Vec<(String, String)> {
    let root = samples::workspace_root();
    corpus_files()
        .into_iter()
        .filter(|p| {
            p.starts_with(root.join("samples")) || p.starts_with(root.join("tests/run/semantics"))
        })
        .map(|p| {
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            let name = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
            (name, text)
        })
        .filter(|(_, text)| text.contains("parallel_for_each"))
        .collect()
}

/// Mutant number `i`: the first of [`ATTEMPTS`] tries that checks. A try is
/// the semantic mutator's (a third of the time) or one to three kernel edits,
/// each followed by a semantic edit once in four times.
fn mutant_case(originals: &[(String, String)], seed: u64, i: usize) -> Option<Case> {
    let (name, original) = &originals[i % originals.len()];
    let mut rng = Rng::for_mutant(seed, i);
    for attempt in 0..ATTEMPTS {
        let (text, log) = if rng.below(3) == 0 {
            let m = semantic::mutate(&mut rng, original);
            (m.text, m.log)
        } else {
            let mut text = original.clone();
            let mut log = String::new();
            for _ in 0..1 + rng.below(3) {
                semantic::mutate_run_time(&mut rng, &mut text, &mut log, Focus::Kernels);
                if rng.below(4) == 0 {
                    semantic::mutate_once(&mut rng, &mut text, &mut log);
                }
            }
            (text, log)
        };
        if compile(&text).is_ok() {
            return Some(Case::new(
                format!("mutant {i} (attempt {attempt}) of {name}:{log}"),
                text,
                vec![[1, 2, 4][i % 3]],
                limits(SHORT_TIMEOUT, MAX_MEMORY),
            ));
        }
    }
    None
}

// ------------------------------------------------------------------ running

/// A run's standard output: counted, hashed (FNV-1a), and its beginning kept.
#[derive(Clone, Debug)]
struct Output {
    len: u64,
    hash: u64,
    head: Vec<u8>,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            len: 0,
            hash: 0xCBF2_9CE4_8422_2325,
            head: Vec::new(),
        }
    }
}

impl Output {
    fn same(&self, other: &Output) -> bool {
        self.len == other.len && self.hash == other.hash && self.head == other.head
    }

    /// Whether one of the two outputs begins with the other (as far as both
    /// were kept).
    fn prefix_related(&self, other: &Output) -> bool {
        let n = self.head.len().min(other.head.len());
        self.head[..n] == other.head[..n]
    }

    /// Whether `self` begins with `other`.
    fn starts_with(&self, other: &Output) -> bool {
        self.len >= other.len && self.prefix_related(other)
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for b in buf {
            self.hash = (self.hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01B3);
        }
        self.len += buf.len() as u64;
        let room = KEPT.saturating_sub(self.head.len());
        self.head.extend_from_slice(&buf[..buf.len().min(room)]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How one run ended.
#[derive(Debug)]
struct Ran {
    exit: i32,
    error: Option<RunError>,
    findings: Vec<RunError>,
    out: Output,
    elapsed: Duration,
    stats: Option<tessera_jit::Stats>,
}

impl Ran {
    fn timed_out(&self) -> bool {
        self.error
            .as_ref()
            .is_some_and(|e| e.code.as_str() == "R0009")
    }
}

/// Parses and checks `text`; the rendered errors when it does not check.
fn compile(text: &str) -> Result<(Sources, Program), String> {
    let mut sources = Sources::new();
    let checked = tessera_driver::compile_source(&mut sources, "case.amp", text.as_bytes());
    if !checked.has_errors() {
        return Ok((sources, checked.program));
    }
    let mut errors = String::new();
    for d in checked.diagnostics.iter().filter(|d| d.is_error()) {
        errors.push_str(&render::render(d, &sources, false));
    }
    Err(errors)
}

/// Runs `program` with the interpreter alone (`threads` is `None`) or with a
/// JIT of that many threads.
fn run(program: &Program, options: &Options, threads: Option<usize>, stdin: &[u8]) -> Ran {
    let mut out = Output::default();
    let started = Instant::now();
    let (engine, threads) = match threads {
        None => (tessera_driver::Engine::Interp, 1),
        Some(t) => (tessera_driver::Engine::Jit, t),
    };
    let mut input = stdin;
    // One store for every run of the test: a kernel's second and third
    // runs (more threads) take the code its first run kept.
    static STORE: std::sync::OnceLock<Arc<dyn tessera_jit::CodeStore>> = std::sync::OnceLock::new();
    let store = STORE.get_or_init(|| Arc::new(tessera_jit::MemoryStore::default()));
    let ran = tessera_driver::engine::run(
        program,
        engine,
        threads,
        options,
        &mut out,
        &mut input,
        Some(store),
    );
    let (outcome, stats) = (ran.outcome, ran.jit);
    Ran {
        exit: outcome.exit_code,
        error: outcome.error,
        findings: outcome.findings,
        out,
        elapsed: started.elapsed(),
        stats,
    }
}

/// How a case ended, worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// No mutant of this number checks.
    Skipped,
    /// Exactly the same answer.
    Same,
    /// Both engines stopped at the time limit.
    BothTimedOut,
    /// The interpreter stopped at the time limit, the JIT finished.
    JitFaster,
    /// The JIT stopped at the time limit, the interpreter finished, but only
    /// after a good part of the limit.
    JitSlower,
    /// A difference, in a program that races.
    Racy,
    /// The interpreter's answer is not the one the case expects.
    Unexpected,
    /// The case does not compile.
    Rejected,
    /// The engines disagree.
    Differ,
    /// A panic (caught).
    Panic,
    /// The child died in the case (reported by the parent).
    Crash,
    /// The child stopped reporting in the case (reported by the parent).
    Hang,
}

impl Verdict {
    const ALL: [Verdict; 12] = [
        Verdict::Skipped,
        Verdict::Same,
        Verdict::BothTimedOut,
        Verdict::JitFaster,
        Verdict::JitSlower,
        Verdict::Racy,
        Verdict::Unexpected,
        Verdict::Rejected,
        Verdict::Differ,
        Verdict::Panic,
        Verdict::Crash,
        Verdict::Hang,
    ];

    fn word(self) -> &'static str {
        match self {
            Verdict::Skipped => "skipped",
            Verdict::Same => "same",
            Verdict::BothTimedOut => "both-timed-out",
            Verdict::JitFaster => "jit-faster",
            Verdict::JitSlower => "jit-slower",
            Verdict::Racy => "racy",
            Verdict::Unexpected => "unexpected",
            Verdict::Rejected => "rejected",
            Verdict::Differ => "differ",
            Verdict::Panic => "panic",
            Verdict::Crash => "crash",
            Verdict::Hang => "hang",
        }
    }

    fn from_word(w: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.word() == w)
    }

    fn fails(self) -> bool {
        self >= Verdict::Unexpected
    }
}

/// What a child reports for one case.
#[derive(Clone, Debug)]
struct Report {
    verdict: Verdict,
    /// Launches compiled code ran to the end.
    launches: u64,
    /// Launches the JIT declined (left to the interpreter).
    fallbacks: u64,
    /// Launches compiled code stopped at a failed check, rerun by the
    /// interpreter.
    reruns: u64,
    /// Kernels compiled.
    compiled: u64,
    /// Host loops run by compiled code.
    host_runs: u64,
    /// Functions whose code was taken from the store, not compiled.
    cached: u64,
    /// Why kernels were left to the interpreter, when some were.
    declined: Vec<String>,
    detail: String,
}

/// One line of an outcome, for reports.
fn ending(sources: &Sources, r: &Ran) -> String {
    let end = match &r.error {
        Some(e) => {
            let d = render::render(&e.to_diagnostic(), sources, false);
            format!("stops with:\n{}", d.trim_end())
        }
        None => format!("exits with {}", r.exit),
    };
    format!(
        "{end}\n    after {} bytes of output, in {:.0?}",
        r.out.len, r.elapsed
    )
}

/// Where two outputs part, for reports.
fn first_difference(a: &Output, b: &Output) -> String {
    let at = a
        .head
        .iter()
        .zip(&b.head)
        .position(|(x, y)| x != y)
        .unwrap_or(a.head.len().min(b.head.len()));
    let line_start = a.head[..at]
        .iter()
        .rposition(|c| *c == b'\n')
        .map_or(0, |p| p + 1);
    let show = |o: &Output| {
        let end = (at + 80).min(o.head.len());
        String::from_utf8_lossy(&o.head[line_start.min(end)..end]).into_owned()
    };
    format!(
        "outputs part at byte {at}: interpreter {:?}, JIT {:?}",
        show(a),
        show(b)
    )
}

/// Compares the interpreter's run with a JIT run.
fn compare(sources: &Sources, reference: &Ran, jit: &Ran, limit: Duration) -> (Verdict, String) {
    let both = || {
        format!(
            "interpreter {}\n  JIT {}",
            ending(sources, reference),
            ending(sources, jit)
        )
    };
    match (reference.timed_out(), jit.timed_out()) {
        (false, false) => {
            let mut problems = Vec::new();
            if reference.exit != jit.exit {
                problems.push(format!("exit {} vs {}", reference.exit, jit.exit));
            }
            if reference.error != jit.error {
                problems.push(format!(
                    "errors differ: {:?} vs {:?}",
                    reference.error, jit.error
                ));
            }
            if !reference.out.same(&jit.out) {
                problems.push(first_difference(&reference.out, &jit.out));
            }
            if !jit.findings.is_empty() {
                problems.push(format!("{} findings without --check", jit.findings.len()));
            }
            if problems.is_empty() {
                (Verdict::Same, String::new())
            } else {
                (
                    Verdict::Differ,
                    format!("{}\n  {}", problems.join("\n  "), both()),
                )
            }
        }
        (true, true) if reference.out.prefix_related(&jit.out) => {
            (Verdict::BothTimedOut, String::new())
        }
        (true, false) if jit.out.starts_with(&reference.out) => (Verdict::JitFaster, String::new()),
        (false, true) if reference.elapsed > limit / 4 && reference.out.starts_with(&jit.out) => {
            (Verdict::JitSlower, String::new())
        }
        (false, true) => (
            Verdict::Differ,
            format!(
                "the JIT stopped at the time limit ({limit:?}), the interpreter did not\n  {}",
                both()
            ),
        ),
        (true, _) => (
            Verdict::Differ,
            format!(
                "{}\n  {}",
                first_difference(&reference.out, &jit.out),
                both()
            ),
        ),
    }
}

/// Whether the interpreter's answer is what the case expects.
fn as_expected(case: &Case, r: &Ran) -> bool {
    let exits = |code: i32| {
        r.error.is_none()
            && r.exit == code
            && case
                .stdout
                .as_ref()
                .is_none_or(|text| r.out.len == text.len() as u64 && r.out.head == text.as_bytes())
    };
    let fails = |codes: &[String]| {
        r.error
            .as_ref()
            .is_some_and(|e| codes.iter().any(|c| c == e.code.as_str()))
    };
    let ends = match &case.expect {
        Expect::Any => true,
        Expect::Exit(code) => exits(*code),
        Expect::Error(codes) => fails(codes),
        Expect::ExitOrError(code, codes) => exits(*code) || fails(codes),
    };
    ends && r.out.len >= case.at_least
}

/// A case's run under the interpreter with `--check`, beside its run
/// without: `--check` reports, it does not change what the program does
/// (unless a run ended at a limit of the machine: time, native stack); it
/// finds what the case says; every error and finding points into the
/// source.
fn with_check(case: &Case, sources: &Sources, plain: &Ran, checked: &Ran) -> Result<(), String> {
    let Some(finds) = &case.check else {
        return Ok(());
    };
    let machine_limit = |r: &Ran| {
        r.error
            .as_ref()
            .is_some_and(|e| ["R0009", "R0011"].contains(&e.code.as_str()))
    };
    let end = |r: &Ran| match &r.error {
        Some(e) => e.code.to_string(),
        None => format!("exit {}", r.exit),
    };
    if !machine_limit(plain)
        && !machine_limit(checked)
        && (end(plain) != end(checked) || !plain.out.same(&checked.out))
    {
        return Err(format!(
            "the answer changes: without it {} after {} bytes of output, with it {} after {} bytes",
            end(plain),
            plain.out.len,
            end(checked),
            checked.out.len
        ));
    }
    if !as_expected(case, checked) {
        return Err(format!(
            "expected {:?}; the interpreter {}",
            case.expect,
            ending(sources, checked)
        ));
    }
    let found: Vec<&str> = checked.findings.iter().map(|f| f.code.as_str()).collect();
    if let Some(missing) = finds.iter().find(|c| !found.contains(&c.as_str())) {
        return Err(format!("does not find {missing} (it finds {found:?})"));
    }
    for e in plain
        .error
        .iter()
        .chain(checked.error.iter())
        .chain(&checked.findings)
    {
        let what = format!("{} {:?}", e.code, e.message);
        check_span(sources, e.span, &what)?;
        for (span, label) in &e.secondary {
            check_span(
                sources,
                *span,
                &format!("{what}, secondary label {label:?}"),
            )?;
        }
    }
    Ok(())
}

/// Panics seen in this process (any thread), counted by a hook.
static PANICS: AtomicUsize = AtomicUsize::new(0);
/// Where the last panic happened, and its message.
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

fn count_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current().name().unwrap_or("?").to_string();
        *LAST_PANIC
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            format!("thread {thread} panicked at {at}: {what}");
        default(info);
    }));
}

/// Runs one case under both engines and judges it.
fn judge(case: &Case) -> Report {
    let mut report = Report {
        verdict: Verdict::Same,
        launches: 0,
        fallbacks: 0,
        reruns: 0,
        compiled: 0,
        host_runs: 0,
        cached: 0,
        declined: Vec::new(),
        detail: String::new(),
    };
    let (sources, program) = match compile(&case.source) {
        Ok(compiled) => compiled,
        Err(errors) => {
            report.verdict = Verdict::Rejected;
            report.detail = errors;
            return report;
        }
    };
    let options = Options {
        check: false,
        limits: case.limits,
    };
    let limit = case.limits.timeout.unwrap_or(LONG_TIMEOUT);
    let panics = PANICS.load(Ordering::SeqCst);
    let result = catch_unwind(AssertUnwindSafe(|| {
        // The interpreter's runs go on beside the JIT's: a case that runs
        // into the time limit takes the limit once, not twice.
        let with_check = Options {
            check: true,
            ..options
        };
        let (reference, jits, checked) = std::thread::scope(|scope| {
            let (program, options, with_check) = (&program, &options, &with_check);
            let stdin = case.stdin.as_slice();
            let reference = std::thread::Builder::new()
                .name("agreement-reference".into())
                .stack_size(STACK)
                .spawn_scoped(scope, move || run(program, options, None, stdin))
                .expect("spawn the interpreter's thread");
            let checked = case.check.is_some().then(|| {
                std::thread::Builder::new()
                    .name("agreement-check".into())
                    .stack_size(STACK)
                    .spawn_scoped(scope, move || run(program, with_check, None, stdin))
                    .expect("spawn the checking interpreter's thread")
            });
            let jits: Vec<(usize, Ran)> = case
                .threads
                .iter()
                .map(|&t| (t, run(program, options, Some(t), stdin)))
                .collect();
            let join = |h: std::thread::ScopedJoinHandle<'_, Ran>| match h.join() {
                Ok(r) => r,
                Err(payload) => std::panic::resume_unwind(payload),
            };
            (join(reference), jits, checked.map(join))
        });
        let mut verdicts = Vec::new();
        let mut stats = Vec::new();
        let mut elapsed = Vec::new();
        let mut differs = false;
        for (t, jit) in jits {
            elapsed.push(jit.elapsed);
            let (v, why) = compare(&sources, &reference, &jit, limit);
            differs |= v == Verdict::Differ;
            verdicts.push((t, v, why));
            stats.extend(jit.stats);
        }
        // A racy program may legitimately differ: the checker says whether
        // it races.
        let checked = checked
            .or_else(|| differs.then(|| run(&program, &with_check, None, case.stdin.as_slice())));
        let racy = differs
            && checked
                .as_ref()
                .is_some_and(|c| c.findings.iter().any(|f| f.code.as_str() == "R0100"));
        (reference, verdicts, stats, elapsed, racy, checked)
    }));
    if PANICS.load(Ordering::SeqCst) != panics || result.is_err() {
        report.verdict = Verdict::Panic;
        report.detail = LAST_PANIC
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        return report;
    }
    let Ok((reference, verdicts, stats, jit_elapsed, racy, checked)) = result else {
        return report;
    };
    for s in &stats {
        report.launches += s.launches;
        report.fallbacks += s.fallbacks;
        report.reruns += s.reruns;
        report.compiled += s.compiled;
        report.host_runs += s.host_runs;
        report.cached += s.cached;
    }
    // Why kernels were declined (compiling them again: not when that is slow).
    let jit_time: Duration = jit_elapsed.iter().sum();
    if report.fallbacks > 0 && (jit_time < Duration::from_secs(1) || case.declines.is_some()) {
        report.declined = Jit::new(&program, 1)
            .dump_clif()
            .into_iter()
            .filter_map(|k| k.clif.err())
            .collect();
    }
    let mut worst = Verdict::Same;
    let mut details = Vec::new();
    for (t, v, why) in verdicts {
        let v = if v == Verdict::Differ && racy {
            Verdict::Racy
        } else {
            v
        };
        if matches!(v, Verdict::Differ | Verdict::Racy) {
            details.push(format!("with {t} JIT threads: {why}"));
        }
        worst = worst.max(v);
    }
    let declined_why = || {
        report
            .declined
            .iter()
            .map(|d| format!("; declined: {}", d.replace('\n', " ")))
            .collect::<String>()
    };
    if case.corpus && worst < Verdict::Unexpected && report.fallbacks > 0 {
        worst = Verdict::Unexpected;
        details.push(format!(
            "the JIT declined {} launches, none expected{}",
            report.fallbacks,
            declined_why()
        ));
    }
    let left = report.fallbacks + report.reruns;
    if worst < Verdict::Unexpected && case.jit_only && left > 0 {
        worst = Verdict::Unexpected;
        details.push(format!(
            "{left} launches left to the interpreter ({} declined, {} rerun after a failed check), none expected{}",
            report.fallbacks,
            report.reruns,
            report
                .declined
                .iter()
                .map(|d| format!("; declined: {}", d.replace('\n', " ")))
                .collect::<String>()
        ));
    }
    if let Some(why) = &case.declines
        && worst < Verdict::Unexpected
        && !report.declined.iter().any(|d| d.contains(why.as_str()))
    {
        worst = Verdict::Unexpected;
        details.push(format!(
            "the JIT declined {} launches, one for a reason containing {why:?} expected{}",
            report.fallbacks,
            declined_why()
        ));
    }
    if worst < Verdict::Unexpected && report.host_runs < case.host_runs_at_least {
        worst = Verdict::Unexpected;
        details.push(format!(
            "compiled code finished {} host statement runs, at least {} expected{}",
            report.host_runs,
            case.host_runs_at_least,
            declined_why()
        ));
    }
    if worst < Verdict::Unexpected && !as_expected(case, &reference) {
        worst = Verdict::Unexpected;
        details.push(format!(
            "expected {:?}{}; the interpreter {}",
            case.expect,
            case.stdout
                .as_ref()
                .map_or(String::new(), |t| format!(" printing {t:?}")),
            ending(&sources, &reference)
        ));
    }
    if worst < Verdict::Unexpected
        && let Some(Err(why)) = checked.map(|c| with_check(case, &sources, &reference, &c))
    {
        worst = Verdict::Unexpected;
        details.push(format!("with --check: {why}"));
    }
    report.verdict = worst;
    report.detail = details.join("\n  ");
    report
}

// ------------------------------------------------------------------ child

/// Writes one protocol line and flushes it (a crash right after must not
/// lose it).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{MARK} {line}");
    let _ = out.flush();
}

/// The longest a case may take before its child counts as hung: the runs
/// of the JIT one after another beside the interpreter's, and one more run
/// of the interpreter (with `--check`, when they disagree).
fn budget(case: &Case) -> Duration {
    let limit = case.limits.timeout.unwrap_or(LONG_TIMEOUT);
    limit * (case.threads.len() as u32 + 1) + SLACK * 2
}

/// The child: runs the suite's cases from `from`, reporting each.
fn child(suite: Suite, from: usize) {
    count_panics();
    let worker = std::thread::Builder::new()
        .name(format!("agreement-{}", suite.name()))
        .stack_size(STACK)
        .spawn(move || {
            let (count, make) = suite.cases();
            say(&format!("count {count}"));
            for i in from..count {
                // Making a mutant compiles its attempts: give it time too.
                say(&format!("make {i}"));
                let Some(case) = make(i) else {
                    say(&format!("end {i} skipped 0 0 0 0 0 0 -"));
                    continue;
                };
                write_reproducer(suite, i, &case.source);
                if suite == Suite::Harness && case.name == "abort" {
                    say(&format!("begin {i} 5"));
                    std::process::abort();
                }
                if suite == Suite::Harness && case.name == "hang" {
                    say(&format!("begin {i} 1"));
                    std::thread::sleep(Duration::from_secs(60));
                }
                say(&format!("begin {i} {}", budget(&case).as_secs()));
                reset_peak_memory();
                let started = Instant::now();
                let r = judge(&case);
                let millis = started.elapsed().as_millis();
                if let Some(kib) = peak_memory_kib() {
                    say(&format!("peak {i} {kib}"));
                }
                if r.compiled == 0 && matches!(suite, Suite::Hostile | Suite::Endless) {
                    say(&format!("uncompiled {i} {}", case.name));
                }
                for why in &r.declined {
                    say(&format!("declined {}", why.replace('\n', " ")));
                }
                if !r.verdict.fails() {
                    let _ = std::fs::remove_file(reproducer_path(suite, i));
                }
                let detail = match r.verdict {
                    Verdict::Same | Verdict::BothTimedOut | Verdict::Skipped => "-".to_string(),
                    _ if r.detail.is_empty() => case.name.replace('\n', " "),
                    _ => format!("{}\n  {}", case.name, r.detail).replace('\n', "\u{1f}"),
                };
                say(&format!(
                    "end {i} {} {} {} {} {} {} {millis} {} {detail}",
                    r.verdict.word(),
                    r.launches,
                    r.fallbacks,
                    r.reruns,
                    r.compiled,
                    r.host_runs,
                    r.cached
                ));
            }
            say("done");
        })
        .expect("spawn the worker thread");
    if worker.join().is_err() {
        say("died");
    }
}

/// Starts a new measure of the process's peak memory (Linux; elsewhere
/// nothing is measured).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's peak resident memory since [`reset_peak_memory`], in KiB.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn reproducer_path(suite: Suite, i: usize) -> PathBuf {
    let target = samples::target_dir();
    target
        .canonicalize()
        .unwrap_or(target)
        .join("jit-agreement")
        .join(format!("{}-{i}.amp", suite.name()))
}

/// Leaves the case's program where a crash or a hang leaves it behind.
fn write_reproducer(suite: Suite, i: usize, source: &str) {
    let path = reproducer_path(suite, i);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&path, source);
}

// ------------------------------------------------------------------ parent

/// The parent's record of a suite.
#[derive(Default)]
struct Tally {
    cases: usize,
    verdicts: BTreeMap<Verdict, usize>,
    launches: u64,
    fallbacks: u64,
    reruns: u64,
    compiled: u64,
    /// Host loops run by compiled code.
    host_runs: u64,
    /// Functions whose code was taken from the store.
    cached: u64,
    /// Cases in which compiled code ran at least one launch to its end.
    jit_ran: usize,
    /// Why kernels were declined, with how many kernels each.
    declined: BTreeMap<String, usize>,
    /// Hand-written cases in which the JIT compiled no kernel.
    uncompiled: Vec<String>,
    /// The child's peak memory in each case (KiB), and its number.
    peaks: Vec<(u64, usize)>,
    /// Milliseconds each case took, and its number.
    slowest: Vec<(u64, usize)>,
    /// Cases that passed only by an exception to exact agreement.
    excused: Vec<String>,
    failures: Vec<String>,
}

/// What a child said, line by line, or that it ended.
enum Heard {
    Line(String),
    Closed,
}

/// A running child and the channels of its output.
struct Running {
    child: Child,
    lines: mpsc::Receiver<Heard>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

fn spawn_child(suite: Suite, from: usize) -> Running {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Command::new(exe)
        .args([suite.test(), "--exact", "--nocapture", "--include-ignored"])
        .args(["--test-threads", "1"])
        .env(SUITE_ENV, suite.name())
        .env(FROM_ENV, from.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the test binary as a child");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.strip_prefix(MARK)
                && tx.send(Heard::Line(rest.trim_start().to_string())).is_err()
            {
                return;
            }
        }
        let _ = tx.send(Heard::Closed);
    });
    let kept = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&kept);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut k = sink
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            k.extend_from_slice(&buf[..n]);
            let excess = k.len().saturating_sub(8 << 10);
            k.drain(..excess);
        }
    });
    Running {
        child,
        lines,
        stderr: kept,
    }
}

/// How a child ended.
fn status_text(status: Option<ExitStatus>) -> String {
    #[cfg(unix)]
    let signal = {
        use std::os::unix::process::ExitStatusExt;
        status.and_then(|s| s.signal())
    };
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    match (status, signal) {
        (_, Some(sig)) => format!("killed by signal {sig}"),
        (Some(s), None) => match s.code() {
            Some(code) => format!("exit status {code}"),
            None => s.to_string(),
        },
        (None, None) => "killed after it stopped reporting".to_string(),
    }
}

/// Runs `suite` in child processes and tallies the reports.
fn run_suite(suite: Suite) -> Tally {
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut from = 0usize;
    let mut count = None::<usize>;
    loop {
        let mut running = spawn_child(suite, from);
        // The case under way, with the time it may take.
        let mut current: Option<(usize, Duration, Instant)> = None;
        let mut finished = false;
        let mut hung = false;
        loop {
            let wait = current.map_or(Duration::from_secs(120), |(_, budget, since)| {
                budget.saturating_sub(since.elapsed()) + Duration::from_millis(100)
            });
            match running.lines.recv_timeout(wait) {
                Ok(Heard::Line(line)) => {
                    let mut words = line.splitn(2, ' ');
                    let head = words.next().unwrap_or_default();
                    let rest = words.next().unwrap_or_default();
                    match head {
                        "count" => count = rest.parse().ok(),
                        "make" => {
                            let i = rest.parse().unwrap_or(from);
                            current = Some((i, Duration::from_secs(120), Instant::now()));
                        }
                        "begin" => {
                            let mut w = rest.split(' ');
                            let i = w.next().and_then(|x| x.parse().ok()).unwrap_or(from);
                            let secs = w.next().and_then(|x| x.parse().ok()).unwrap_or(60);
                            current = Some((i, Duration::from_secs(secs), Instant::now()));
                        }
                        "end" => {
                            let f: Vec<&str> = rest.splitn(10, ' ').collect();
                            let i: usize = f[0].parse().unwrap_or(from);
                            let verdict = Verdict::from_word(f[1]).unwrap_or(Verdict::Differ);
                            let num = |k: usize| f.get(k).and_then(|x| x.parse().ok()).unwrap_or(0);
                            let detail = f.get(9).copied().unwrap_or("-").replace('\u{1f}', "\n");
                            tally.host_runs += num(6);
                            tally.cached += num(8);
                            tally.slowest.push((num(7), i));
                            tally.cases += 1;
                            *tally.verdicts.entry(verdict).or_default() += 1;
                            tally.launches += num(2);
                            tally.fallbacks += num(3);
                            tally.reruns += num(4);
                            tally.compiled += num(5);
                            tally.jit_ran += usize::from(num(2) > 0);
                            if matches!(
                                verdict,
                                Verdict::Racy | Verdict::JitFaster | Verdict::JitSlower
                            ) {
                                let name = detail.lines().next().unwrap_or_default();
                                let name: String = name.chars().take(100).collect();
                                tally.excused.push(format!(
                                    "[{} {i}] {}: {name}",
                                    suite.name(),
                                    verdict.word()
                                ));
                            }
                            if verdict.fails() {
                                tally.failures.push(format!(
                                    "[{} {i}] {}: {detail}\n  program: {}",
                                    suite.name(),
                                    verdict.word(),
                                    reproducer_path(suite, i).display()
                                ));
                            }
                            from = i + 1;
                            current = None;
                        }
                        "declined" => *tally.declined.entry(rest.to_string()).or_default() += 1,
                        "uncompiled" => tally.uncompiled.push(rest.to_string()),
                        "peak" => {
                            let mut w = rest.split(' ');
                            let i = w.next().and_then(|x| x.parse().ok()).unwrap_or(from);
                            let kib = w.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                            tally.peaks.push((kib, i));
                        }
                        "done" => finished = true,
                        _ => {}
                    }
                }
                Ok(Heard::Closed) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    hung = true;
                    let _ = running.child.kill();
                    break;
                }
            }
        }
        let status = running.child.wait().ok();
        if finished {
            break;
        }
        let stderr = {
            let k = running
                .stderr
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let text = String::from_utf8_lossy(&k).into_owned();
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(12)..].join("\n    ")
        };
        let Some((i, budget, _)) = current else {
            panic!(
                "the {} child ended outside any case ({}):\n    {stderr}",
                suite.name(),
                status_text(status)
            );
        };
        let verdict = if hung { Verdict::Hang } else { Verdict::Crash };
        let how = if hung {
            format!("no report after {budget:?}; killed")
        } else {
            status_text(status)
        };
        tally.cases += 1;
        *tally.verdicts.entry(verdict).or_default() += 1;
        tally.failures.push(format!(
            "[{} {i}] {}: {how}\n    {stderr}\n  program: {}",
            suite.name(),
            verdict.word(),
            reproducer_path(suite, i).display()
        ));
        from = i + 1;
        if count.is_some_and(|n| from >= n) {
            break;
        }
    }
    let verdicts: Vec<String> = tally
        .verdicts
        .iter()
        .map(|(v, n)| format!("{} {n}", v.word()))
        .collect();
    eprintln!(
        "jit agreement, {}: {} cases in {:.1?} ({}); the JIT ran {} launches in compiled code \
         (in {} cases, {} kernels compiled, {} functions' code taken from the store) and {} \
         host loops, declined {} launches and handed {} back to the interpreter after a failed \
         check",
        suite.name(),
        tally.cases,
        started.elapsed(),
        verdicts.join(", "),
        tally.launches,
        tally.jit_ran,
        tally.compiled,
        tally.cached,
        tally.host_runs,
        tally.fallbacks,
        tally.reruns
    );
    let mut reasons: Vec<(&String, &usize)> = tally.declined.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1));
    for (why, n) in reasons.iter().take(6) {
        eprintln!("  declined {n} times: {why}");
    }
    tally.slowest.sort_by(|a, b| b.cmp(a));
    let slowest: Vec<String> = tally
        .slowest
        .iter()
        .take(5)
        .map(|(ms, i)| format!("#{i} {ms} ms"))
        .collect();
    eprintln!("  slowest: {}", slowest.join(", "));
    tally.peaks.sort_by(|a, b| b.cmp(a));
    let peaks: Vec<String> = tally
        .peaks
        .iter()
        .take(3)
        .map(|(kib, i)| format!("#{i} {} MiB", kib >> 10))
        .collect();
    if !peaks.is_empty() {
        eprintln!("  most memory: {}", peaks.join(", "));
    }
    if !tally.uncompiled.is_empty() {
        eprintln!(
            "  no kernel compiled in:\n    {}",
            tally.uncompiled.join("\n    ")
        );
    }
    if !tally.excused.is_empty() {
        eprintln!("  excused:\n    {}", tally.excused.join("\n    "));
    }
    tally
}

/// The first case a child runs.
fn env_from() -> usize {
    std::env::var(FROM_ENV)
        .ok()
        .and_then(|f| f.parse().ok())
        .unwrap_or(0)
}

/// A suite's test: in a child, runs the cases; in the parent, runs the child
/// and fails on every disagreement, crash or hang. `min_jit_cases` guards
/// against a suite whose kernels the JIT stopped compiling.
fn suite_test(suite: Suite, min_jit_cases: usize) {
    if let Ok(name) = std::env::var(SUITE_ENV) {
        if Suite::from_name(&name) == Some(suite) {
            child(suite, env_from());
        }
        return;
    }
    let tally = run_suite(suite);
    assert!(
        tally.failures.is_empty(),
        "{} of {} cases of the {} suite went wrong:\n{}",
        tally.failures.len(),
        tally.cases,
        suite.name(),
        tally.failures.join("\n")
    );
    assert!(
        tally.jit_ran >= min_jit_cases,
        "compiled code ran in only {} cases of the {} suite (expected at least {min_jit_cases})",
        tally.jit_ran,
        suite.name()
    );
}

#[test]
fn corpus_agrees() {
    suite_test(Suite::Corpus, 40);
}

#[test]
fn mutants_agree() {
    suite_test(Suite::Mutants, 60);
}

#[test]
fn hostile_kernels_agree() {
    suite_test(Suite::Hostile, 30);
}

#[test]
fn robustness_programs_agree() {
    suite_test(Suite::Robustness, 5);
}

#[test]
fn endless_programs_agree() {
    suite_test(Suite::Endless, 0);
}

/// The harness records a case whose child dies as a crash, and one that
/// stops reporting as a hang, and runs the cases after each in a new child.
#[test]
fn a_case_that_kills_its_child_is_a_crash() {
    if let Ok(name) = std::env::var(SUITE_ENV) {
        if name == Suite::Harness.name() {
            child(Suite::Harness, env_from());
        }
        return;
    }
    let tally = run_suite(Suite::Harness);
    let _ = std::fs::remove_file(reproducer_path(Suite::Harness, 1));
    let _ = std::fs::remove_file(reproducer_path(Suite::Harness, 3));
    assert_eq!(tally.cases, 5);
    assert_eq!(tally.verdicts.get(&Verdict::Same), Some(&3));
    assert_eq!(tally.verdicts.get(&Verdict::Crash), Some(&1));
    assert_eq!(tally.verdicts.get(&Verdict::Hang), Some(&1));
    assert!(
        tally.failures[0].contains("[harness 1] crash: killed by signal 6")
            && tally.failures[1].contains("[harness 3] hang: no report after 1s"),
        "{:?}",
        tally.failures
    );
}

#[test]
fn random_programs_agree() {
    suite_test(Suite::Random, 100);
}

// ------------------------------------------------------------------ hand-written cases

/// The hand-written cases of `tests/DIR/`, sorted by file name; with
/// `check`, each also runs under the interpreter with `--check`.
fn file_cases(dir: &str, check: bool) -> Vec<Case> {
    let dir = samples::workspace_root().join("tests").join(dir);
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "amp"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let mut case = file_case(path);
            if check && case.check.is_none() {
                case.check = Some(Vec::new());
            }
            case
        })
        .collect()
}

/// A hand-written case file. Its leading comment lines say what it is (see
/// `tests/README.md`): `// case: NAME` (its name in reports),
/// `// expect: exit N`, `// expect: error CODE...` (one of the codes),
/// `// expect: exit N or error CODE...` or `// expect: any` (what the
/// interpreter must answer), `// stdout: "TEXT"` (what it prints when it
/// exits, escaped as in Rust), `// output-at-least: BYTES`,
/// `// check-finds: CODE...` (run with `--check` too, which must find these),
/// `// run-flags: --timeout S --max-memory SIZE`, `// threads: 1 3` (the
/// JIT's worker counts, one run each), `// jit-fallbacks: 0` (the JIT
/// runs every launch to its end, none left to the interpreter),
/// `// jit-declines: TEXT` (the JIT declines a launch, for a reason
/// containing TEXT) and
/// `// host-runs-at-least: N` (compiled code finishes at least N runs of
/// host statements, over all the JIT's runs of the case).
fn file_case(path: &Path) -> Case {
    let source = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut case = Case::new(
        path.display().to_string(),
        String::new(),
        vec![1, 3],
        limits(LONG_TIMEOUT, MAX_MEMORY),
    );
    let bad = |key: &str, value: &str| -> ! { panic!("{}: `// {key}: {value}`", path.display()) };
    for (key, value) in header(&source) {
        match key {
            "case" => case.name = value.to_string(),
            "expect" => case.expect = parse_expect(value).unwrap_or_else(|| bad(key, value)),
            "stdout" => case.stdout = Some(unescape(value).unwrap_or_else(|| bad(key, value))),
            "output-at-least" => case.at_least = value.parse().unwrap_or_else(|_| bad(key, value)),
            "check-finds" => {
                case.check = Some(value.split_whitespace().map(str::to_string).collect());
            }
            "run-flags" => apply_run_flags(value, &mut case.limits),
            "jit-fallbacks" if value == "0" => case.jit_only = true,
            "jit-fallbacks" => bad(key, value),
            "jit-declines" => case.declines = Some(value.to_string()),
            "host-runs-at-least" => {
                case.host_runs_at_least = value.parse().unwrap_or_else(|_| bad(key, value));
            }
            "threads" => {
                case.threads = value
                    .split_whitespace()
                    .map(|n| n.parse().unwrap_or_else(|_| bad(key, value)))
                    .collect();
            }
            _ => {}
        }
    }
    case.source = source;
    case
}

/// `exit N`, `error CODE...`, `exit N or error CODE...` or `any`.
fn parse_expect(value: &str) -> Option<Expect> {
    let codes =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_string).collect() };
    if value == "any" {
        return Some(Expect::Any);
    }
    if let Some(codes_text) = value.strip_prefix("error ") {
        return Some(Expect::Error(codes(codes_text)));
    }
    let rest = value.strip_prefix("exit ")?;
    match rest.split_once(" or error ") {
        Some((n, codes_text)) => Some(Expect::ExitOrError(
            n.trim().parse().ok()?,
            codes(codes_text),
        )),
        None => Some(Expect::Exit(rest.trim().parse().ok()?)),
    }
}

/// The text of a string literal written as Rust's `{:?}` writes it.
fn unescape(quoted: &str) -> Option<String> {
    let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            '\'' => out.push('\''),
            'u' => {
                let rest: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let hex = rest.strip_prefix('{')?;
                out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The `// key: value` comment lines at the top of a program.
fn header(source: &str) -> Vec<(&str, &str)> {
    source
        .lines()
        .map_while(|l| l.strip_prefix("//"))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect()
}

/// The harness's own cases: each doubles the elements of a view and
/// prints them.
fn harness_case(name: &str) -> Case {
    let source = "#include <iostream>\n#include <vector>\n#include <amp.h>\n\
                  using namespace concurrency;\n\nint main() {\n    \
                  std::vector<int> v(4);\n    for (int i = 0; i < 4; i++) { v[i] = i; }\n    \
                  array_view<int, 1> av(4, v);\n    \
                  parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {\n\
                  av[i] = av[i] * 2;\n    });\n    av.synchronize();\n    \
                  for (int i = 0; i < 4; i++) { std::cout << v[i] << (i % 16 == 15 ? \"\\n\" : \" \"); }\n    \
                  std::cout << \"\\n\";\n    return 0;\n}\n";
    let mut case = Case::new(
        name.to_string(),
        source.to_string(),
        vec![1, 3],
        limits(LONG_TIMEOUT, MAX_MEMORY),
    );
    case.expect = Expect::Exit(0);
    case
}
