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
//!   with 1, 2 and 4 threads;
//! - [`mutants_agree`]: mutants of the samples and of `tests/run/semantics/`
//!   (the semantic mutator of `tessera_testkit`, and edits aimed at kernel
//!   bodies: literals at the edges of their types, swapped operators, indices
//!   pushed off by one or far), with a time limit of 1 s and 64 MiB of memory;
//! - [`hostile_kernels_agree`] and [`endless_programs_agree`]: hand-written
//!   programs aimed at the JIT's checks (bounds of views of each rank, of
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
//! many launches and host loops compiled code ran to the end against the
//! launches left to the interpreter (kernels the JIT declined, data without
//! a plain form, failed checks rerun by the interpreter), why kernels were
//! declined, the slowest cases, and the hand-written cases in which the JIT
//! compiled nothing.
//!
//! `TESSERA_AGREEMENT_MUTANTS` and `TESSERA_AGREEMENT_RANDOM` change the
//! number of mutants and random programs, `TESSERA_AGREEMENT_SEED` their seed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use tessera_diagnostics::{FileId, SourceFile, Sources, render};
use tessera_interp::Options;
use tessera_ir::Program;
use tessera_jit::Jit;
use tessera_runtime::{Limits, RunError, parse_size};
use tessera_syntax::lexer::{Token, lex};
use tessera_syntax::token::Tok;
use tessera_testkit::harness::env_number;
use tessera_testkit::mutate::Rng;
use tessera_testkit::{programs, samples, semantic};

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
    /// The run stops with this code.
    Error(&'static str),
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
    Random,
    /// Checks the harness itself: its second case kills its child, its
    /// fourth stops reporting.
    Harness,
}

const SUITES: [Suite; 6] = [
    Suite::Corpus,
    Suite::Mutants,
    Suite::Hostile,
    Suite::Endless,
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
            Suite::Hostile | Suite::Endless => {
                let cases = if self == Suite::Hostile {
                    hostile_cases()
                } else {
                    endless_cases()
                };
                (cases.len(), Box::new(move |i| Some(cases[i].clone())))
            }
            Suite::Harness => {
                let cases: Vec<Case> = ["first", "abort", "third", "hang", "fifth"]
                    .into_iter()
                    .map(|name| flat(name, 4, "av[i] = av[i] * 2;", OK))
                    .collect();
                (cases.len(), Box::new(move |i| Some(cases[i].clone())))
            }
            Suite::Random => {
                let n = env_number("TESSERA_AGREEMENT_RANDOM").map_or(RANDOM, |n| n as usize);
                (
                    n,
                    Box::new(move |i| {
                        Some(Case {
                            name: format!("random program {i} of seed {seed:#x}"),
                            source: programs::program(seed, i),
                            threads: vec![[1, 2, 4][i % 3]],
                            limits: limits(LONG_TIMEOUT, Limits::default().max_memory),
                            expect: Expect::Any,
                        })
                    }),
                )
            }
        }
    }
}

// ------------------------------------------------------------------ corpus

/// Every `samples/*.amp` and `tests/run/**/*.amp` in UTF-8, sorted.
fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "amp")
                // Cases are handled as text; a file that is not UTF-8 (the
                // encoding cases) is run under every engine by tests/run.
                && std::fs::read(&path).is_ok_and(|b| std::str::from_utf8(&b).is_ok())
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
    let root = samples::workspace_root();
    Case {
        name: path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string(),
        source,
        threads: vec![1, 2, 4],
        limits: case_limits,
        expect: Expect::Any,
    }
}

// ------------------------------------------------------------------ mutants

/// The programs mutants are made from: the samples and `tests/run/semantics/`.
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
        .collect()
}

/// Integer literals put in place of others in kernels: trip counts and
/// indices at the edges, shift counts at and past the widths, the ends of
/// `int`.
const EDGE_INTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "16",
    "31",
    "32",
    "33",
    "63",
    "64",
    "1023",
    "1024",
    "4097",
    "65536",
    "65537",
    "2147483647",
    "(-2147483647 - 1)",
];

/// Floating-point literals put in place of others: signed zeros, values out
/// of the range of `int` and of `float`, the smallest subnormal.
const EDGE_FLOATS: &[&str] = &[
    "0.0f",
    "-0.0f",
    "-1.0f",
    "3e9f",
    "-3e9f",
    "1e30f",
    "1e-45f",
    "1e300",
    "2147483648.0",
];

/// What an index becomes: off by one either way, doubled, far off.
const INDEX_NUDGES: &[&str] = &[" + 1", " - 1", " * 2", " + 4096", " - 2147483647"];

/// The operators that may replace `tok`.
fn swaps(tok: Tok<'_>) -> &'static [&'static str] {
    match tok {
        Tok::Plus => &["-", "*"],
        Tok::Minus => &["+", "*"],
        Tok::Star => &["/", "%", "+"],
        Tok::Slash => &["%", "*"],
        Tok::Percent => &["/", "&"],
        Tok::Shl => &[">>"],
        Tok::Shr => &["<<"],
        Tok::Lt => &["<=", ">", "!="],
        Tok::Le => &["<", ">="],
        Tok::Gt => &[">=", "<"],
        Tok::Ge => &[">", "<="],
        Tok::EqEq => &["!="],
        Tok::NotEq => &["==", "<"],
        Tok::PlusPlus => &["--"],
        Tok::MinusMinus => &["++"],
        Tok::PlusAssign => &["-=", "*="],
        Tok::MinusAssign => &["+=", "*="],
        Tok::StarAssign => &["/=", "+=", "<<="],
        Tok::SlashAssign => &["%=", "*="],
        Tok::Pipe => &["^"],
        Tok::Caret => &["|"],
        Tok::AndAnd => &["||"],
        Tok::OrOr => &["&&"],
        _ => &[],
    }
}

/// The byte ranges of the bodies of `restrict(...)` functions and lambdas
/// that allow `amp`: the code the JIT compiles.
fn amp_bodies(tokens: &[Token<'_>]) -> Vec<Range<usize>> {
    let mut bodies = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        if t.tok != Tok::Restrict {
            continue;
        }
        let Some(close) = tokens[k..].iter().position(|t| t.tok == Tok::RParen) else {
            continue;
        };
        let clause = &tokens[k..k + close];
        if !clause.iter().any(|t| t.tok == Tok::Ident("amp")) {
            continue;
        }
        let Some(open) = tokens[k + close..]
            .iter()
            .position(|t| t.tok == Tok::LBrace)
            .map(|p| k + close + p)
        else {
            continue;
        };
        let mut depth = 0usize;
        for t in &tokens[open..] {
            match t.tok {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        bodies.push(tokens[open].end as usize..t.start as usize);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    bodies
}

/// One edit inside amp code (anywhere when there is none): a literal at an
/// edge, a swapped operator, or an index pushed off. Logged; false when the
/// text offers no place.
fn mutate_kernel(rng: &mut Rng, text: &mut String, log: &mut String) -> bool {
    let mut diags = Vec::new();
    let tokens = lex(FileId(0), text, &[], &mut diags);
    let bodies = amp_bodies(&tokens);
    let inside =
        |t: &Token<'_>| bodies.is_empty() || bodies.iter().any(|b| b.contains(&(t.start as usize)));
    let places: Vec<&Token<'_>> = tokens
        .iter()
        .filter(|t| inside(t))
        .filter(|t| {
            matches!(t.tok, Tok::Int(_) | Tok::Float(_) | Tok::RBracket) || !swaps(t.tok).is_empty()
        })
        .collect();
    if places.is_empty() {
        return false;
    }
    let t = *rng.pick(&places);
    let (range, new) = match t.tok {
        Tok::Int(_) => (t.start..t.end, rng.pick(EDGE_INTS).to_string()),
        Tok::Float(_) => (t.start..t.end, rng.pick(EDGE_FLOATS).to_string()),
        Tok::RBracket => (t.start..t.start, rng.pick(INDEX_NUDGES).to_string()),
        other => (t.start..t.end, rng.pick(swaps(other)).to_string()),
    };
    let range = range.start as usize..range.end as usize;
    let _ = write!(
        log,
        " kernel {}..{} {:?} -> {new:?};",
        range.start,
        range.end,
        &text[range.clone()]
    );
    text.replace_range(range, &new);
    true
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
                mutate_kernel(&mut rng, &mut text, &mut log);
                if rng.below(4) == 0 {
                    semantic::mutate_once(&mut rng, &mut text, &mut log);
                }
            }
            (text, log)
        };
        if compile(&text).is_ok() {
            return Some(Case {
                name: format!("mutant {i} (attempt {attempt}) of {name}:{log}"),
                source: text,
                threads: vec![[1, 2, 4][i % 3]],
                limits: limits(SHORT_TIMEOUT, MAX_MEMORY),
                expect: Expect::Any,
            });
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
    let (file, replaced) = SourceFile::from_bytes("case.amp", text.as_bytes());
    let id = sources.add(file);
    let parsed = tessera_syntax::parse_file(&sources, id, &replaced);
    let mut errors = String::new();
    if !parsed.has_errors() {
        let checked = tessera_sema::check(&parsed.unit);
        if !checked.has_errors() {
            return Ok((sources, checked.program));
        }
        for d in checked.diagnostics.iter().filter(|d| d.is_error()) {
            errors.push_str(&render::render(d, &sources, false));
        }
    }
    for d in parsed.diagnostics.iter().filter(|d| d.is_error()) {
        errors.push_str(&render::render(d, &sources, false));
    }
    Err(errors)
}

/// Runs `program` with the interpreter alone (`threads` is `None`) or with a
/// JIT of that many threads.
fn run(program: &Program, options: &Options, threads: Option<usize>) -> Ran {
    let mut out = Output::default();
    let started = Instant::now();
    let (outcome, stats) = match threads {
        None => (tessera_interp::run(program, options, &mut out), None),
        Some(t) => {
            let mut jit = Jit::new(program, t);
            let outcome = tessera_interp::run_with_engine(program, options, &mut out, &mut jit);
            (outcome, Some(jit.stats()))
        }
    };
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
    /// Launches left to the interpreter.
    fallbacks: u64,
    /// Kernels compiled.
    compiled: u64,
    /// Host loops run by compiled code.
    host_runs: u64,
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
fn as_expected(expect: &Expect, r: &Ran) -> bool {
    match expect {
        Expect::Any => true,
        Expect::Exit(code) => r.error.is_none() && r.exit == *code,
        Expect::Error(code) => r.error.as_ref().is_some_and(|e| e.code.as_str() == *code),
    }
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
        compiled: 0,
        host_runs: 0,
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
        // The interpreter's run goes on beside the JIT's: a case that runs
        // into the time limit takes the limit once, not twice.
        let (reference, jits) = std::thread::scope(|scope| {
            let reference = std::thread::Builder::new()
                .name("agreement-reference".into())
                .stack_size(STACK)
                .spawn_scoped(scope, || run(&program, &options, None))
                .expect("spawn the interpreter's thread");
            let jits: Vec<(usize, Ran)> = case
                .threads
                .iter()
                .map(|&t| (t, run(&program, &options, Some(t))))
                .collect();
            match reference.join() {
                Ok(r) => (r, jits),
                Err(payload) => std::panic::resume_unwind(payload),
            }
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
        let racy = differs && {
            let checked = Options {
                check: true,
                ..options
            };
            let c = run(&program, &checked, None);
            c.findings.iter().any(|f| f.code.as_str() == "R0100")
        };
        (reference, verdicts, stats, elapsed, racy)
    }));
    if PANICS.load(Ordering::SeqCst) != panics || result.is_err() {
        report.verdict = Verdict::Panic;
        report.detail = LAST_PANIC
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        return report;
    }
    let Ok((reference, verdicts, stats, jit_elapsed, racy)) = result else {
        return report;
    };
    for s in &stats {
        report.launches += s.launches;
        report.fallbacks += s.fallbacks;
        report.compiled += s.compiled;
        report.host_runs += s.host_runs;
    }
    // Why kernels were declined (compiling them again: not when that is slow).
    let jit_time: Duration = jit_elapsed.iter().sum();
    if report.fallbacks > 0 && jit_time < Duration::from_secs(1) {
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
    if worst < Verdict::Unexpected && !as_expected(&case.expect, &reference) {
        worst = Verdict::Unexpected;
        details.push(format!(
            "expected {:?}; the interpreter {}",
            case.expect,
            ending(&sources, &reference)
        ));
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
                    say(&format!("end {i} skipped 0 0 0 0 0 -"));
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
                    "end {i} {} {} {} {} {} {millis} {detail}",
                    r.verdict.word(),
                    r.launches,
                    r.fallbacks,
                    r.compiled,
                    r.host_runs
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
    compiled: u64,
    /// Host loops run by compiled code.
    host_runs: u64,
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
                            let f: Vec<&str> = rest.splitn(8, ' ').collect();
                            let i: usize = f[0].parse().unwrap_or(from);
                            let verdict = Verdict::from_word(f[1]).unwrap_or(Verdict::Differ);
                            let num = |k: usize| f.get(k).and_then(|x| x.parse().ok()).unwrap_or(0);
                            let detail = f.get(7).copied().unwrap_or("-").replace('\u{1f}', "\n");
                            tally.host_runs += num(5);
                            tally.slowest.push((num(6), i));
                            tally.cases += 1;
                            *tally.verdicts.entry(verdict).or_default() += 1;
                            tally.launches += num(2);
                            tally.fallbacks += num(3);
                            tally.compiled += num(4);
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
         (in {} cases, {} kernels compiled) and {} host loops, and left {} launches to the \
         interpreter",
        suite.name(),
        tally.cases,
        started.elapsed(),
        verdicts.join(", "),
        tally.launches,
        tally.jit_ran,
        tally.compiled,
        tally.host_runs,
        tally.fallbacks
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

const HEAD: &str = "#include <iostream>\n#include <iomanip>\n#include <vector>\n#include <amp.h>\n\
                    #include <amp_math.h>\nusing namespace concurrency;\n";

/// A hand-written case: `items` (helpers, structs) then `main` with `body`.
fn program(name: &str, items: &str, body: &str, expect: Expect) -> Case {
    Case {
        name: name.to_string(),
        source: format!("{HEAD}{items}\nint main() {{\n{body}\n    return 0;\n}}\n"),
        threads: vec![1, 3],
        limits: limits(LONG_TIMEOUT, MAX_MEMORY),
        expect,
    }
}

/// A case whose `main` fills `std::vector<int> v(n)` with `0, 1, ...`, makes
/// `array_view<int, 1> av(n, v)`, runs `launch` and prints every element.
fn on_ints(name: &str, items: &str, n: usize, launch: &str, expect: Expect) -> Case {
    program(
        name,
        items,
        &format!(
            "    std::vector<int> v({n});\n    for (int i = 0; i < {n}; i++) {{ v[i] = i; }}\n    \
             array_view<int, 1> av({n}, v);\n{launch}\n    av.synchronize();\n    \
             for (int i = 0; i < {n}; i++) {{ std::cout << v[i] << (i % 16 == 15 ? \"\\n\" : \" \"); }}\n    \
             std::cout << \"\\n\";"
        ),
        expect,
    )
}

/// [`on_ints`] with a non-tiled kernel over `av.extent` whose body is `body`
/// (the index is `i`).
fn flat(name: &str, n: usize, body: &str, expect: Expect) -> Case {
    on_ints(
        name,
        "",
        n,
        &format!(
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {{\n{body}\n    }});"
        ),
        expect,
    )
}

/// [`on_ints`] with a kernel over `av.extent` in tiles of `tile` (the tiled
/// index is `t`).
fn tiled(name: &str, n: usize, tile: usize, body: &str, expect: Expect) -> Case {
    on_ints(
        name,
        "",
        n,
        &format!(
            "    parallel_for_each(av.extent.tile<{tile}>(), [=](tiled_index<{tile}> t) restrict(amp) {{\n{body}\n    }});"
        ),
        expect,
    )
}

const OK: Expect = Expect::Exit(0);
const BOUNDS: Expect = Expect::Error("R0001");
const DIV_ZERO: Expect = Expect::Error("R0002");
const OVERFLOW: Expect = Expect::Error("R0003");
const SHIFT: Expect = Expect::Error("R0004");
const FLOAT_TO_INT: Expect = Expect::Error("R0005");
const DIVERGENCE: Expect = Expect::Error("R0008");
const TIME: Expect = Expect::Error("R0009");
const MEMORY: Expect = Expect::Error("R0010");

fn hostile_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(view_bounds_cases());
    cases.extend(array_bounds_cases());
    cases.extend(division_cases());
    cases.extend(overflow_cases());
    cases.extend(shift_cases());
    cases.extend(conversion_cases());
    cases.extend(barrier_cases());
    cases.extend(extent_cases());
    cases.extend(view_shape_cases());
    cases.extend(atomic_cases());
    cases.extend(aggregate_cases());
    cases.extend(call_cases());
    cases.extend(float_cases());
    cases.extend(hand_off_cases());
    cases.extend(range_cases());
    cases.extend(barrier_loop_cases());
    cases.extend(conversion_table_cases());
    cases.extend(host_loop_cases());
    cases.extend(relaunch_cases());
    cases.extend(resource_cases());
    cases.extend(sequencing_cases());
    cases
}

/// A rank-2 `array_view<int, 2> a(3, 4, v)` over `0..12` and a kernel over
/// `launch_extent` (index `i`) running `body`; prints `v`.
fn rank2(name: &str, launch_extent: &str, body: &str, expect: Expect) -> Case {
    program(
        name,
        "",
        &format!(
            r#"    std::vector<int> v(12);
    for (int k = 0; k < 12; k++) {{ v[k] = k; }}
    array_view<int, 2> a(3, 4, v);
    parallel_for_each({launch_extent}, [=](index<2> i) restrict(amp) {{
{body}
    }});
    a.synchronize();
    for (int k = 0; k < 12; k++) {{ std::cout << v[k] << " "; }}
    std::cout << "\n";"#
        ),
        expect,
    )
}

/// A rank-3 `array_view<int, 3> c(2, 3, 4, v)` over `0..24` and a kernel over
/// its extent (index `i`) running `body`; prints `v`.
fn rank3(name: &str, body: &str, expect: Expect) -> Case {
    program(
        name,
        "",
        &format!(
            r#"    std::vector<int> v(24);
    for (int k = 0; k < 24; k++) {{ v[k] = k; }}
    array_view<int, 3> c(2, 3, 4, v);
    parallel_for_each(c.extent, [=](index<3> i) restrict(amp) {{
{body}
    }});
    c.synchronize();
    for (int k = 0; k < 24; k++) {{ std::cout << v[k] << " "; }}
    std::cout << "\n";"#
        ),
        expect,
    )
}

/// Out-of-bounds indices of views of each rank, with the edge values of
/// `int`; indices that fall inside the view's storage but outside its
/// extent (a section, a row's neighbour) must fail all the same.
fn view_bounds_cases() -> Vec<Case> {
    vec![
        flat(
            "rank 1 index one past the end",
            8,
            "av[i] = av[i + 1];",
            BOUNDS,
        ),
        flat("rank 1 index minus one", 8, "av[i] = av[i - 1];", BOUNDS),
        flat(
            "rank 1 index INT_MIN",
            8,
            "int m = -2147483647 - 1; if (i[0] == 5) { av[i] = av[m]; }",
            BOUNDS,
        ),
        flat(
            "rank 1 write at INT_MAX",
            8,
            "if (i[0] == 3) { av[2147483647] = 1; }",
            BOUNDS,
        ),
        flat(
            "rank 1 index<1> far past the end",
            8,
            "index<1> j(i[0] * 1000); av[j] = 1;",
            BOUNDS,
        ),
        flat(
            "rank 1 call operator past the end",
            8,
            "av[i] = av(i[0] + 8);",
            BOUNDS,
        ),
        flat(
            "compound assignment past the end",
            8,
            "av[i + 1] += 1;",
            BOUNDS,
        ),
        flat(
            "out of bounds reached by one work-item",
            64,
            "if (i[0] == 37) { av[i + 100] = 0; } else { av[i] = 2 * av[i]; }",
            BOUNDS,
        ),
        rank2(
            "rank 2 column past the end, inside the storage",
            "a.extent",
            "a[i] = a(i[0], i[1] + 1);",
            BOUNDS,
        ),
        rank2(
            "rank 2 column minus one, inside the storage",
            "a.extent",
            "a[i] = a(i[0], i[1] - 1) + 100;",
            BOUNDS,
        ),
        rank2(
            "rank 2 row past the end",
            "a.extent",
            "a[i] = a[index<2>(i[0] + 3, 0)];",
            BOUNDS,
        ),
        rank2(
            "rank 2 INT_MIN column",
            "a.extent",
            "int m = -2147483647 - 1; if (i[0] == 2) { a(i[0], m) = 5; }",
            BOUNDS,
        ),
        rank2(
            "rank 2 projection past the last row",
            "a.extent",
            "a[i] = a[i[0] + 1][i[1]];",
            BOUNDS,
        ),
        rank2(
            "rank 2 projection's element past the end, inside the storage",
            "a.extent",
            "a[i] = a[i[0]][i[1] + 1];",
            BOUNDS,
        ),
        rank2(
            "rank 2 view indexed within bounds",
            "a.extent",
            "a[i] = a(i[0], 3 - i[1]) * 10 + a[i[0]][i[1]];",
            OK,
        ),
        rank3(
            "rank 3 middle component past the end, inside the storage",
            "c[i] = c(i[0], i[1] + 1, i[2]);",
            BOUNDS,
        ),
        rank3(
            "rank 3 last component minus one",
            "c[i] = c[index<3>(i[0], i[1], i[2] - 1)];",
            BOUNDS,
        ),
        rank3(
            "rank 3 INT_MIN middle component",
            "int m = -2147483647 - 1; if (i[2] == 3) { c(i[0], m, i[2]) = 1; }",
            BOUNDS,
        ),
        rank3(
            "rank 3 projections past the end",
            "c[i] = c[i[0]][i[1]][i[2] + 1];",
            BOUNDS,
        ),
        rank3(
            "rank 3 projections within bounds",
            "c[i] = c[1 - i[0]][2 - i[1]][i[2]] + 100 * c(i[0], i[1], 3 - i[2]);",
            OK,
        ),
        on_ints(
            "section index past its end, inside the storage",
            "",
            16,
            r#"    array_view<int, 1> s = av.section(4, 6);
    parallel_for_each(s.extent, [=](index<1> i) restrict(amp) { s[i] = s[i + 1] + 1000; });"#,
            BOUNDS,
        ),
        on_ints(
            "section index minus one, inside the storage",
            "",
            16,
            r#"    array_view<int, 1> s = av.section(4, 6);
    parallel_for_each(s.extent, [=](index<1> i) restrict(amp) { s[i] = s[i - 1] + 1000; });"#,
            BOUNDS,
        ),
        program(
            "rank 2 section's column past its end, inside the storage",
            "",
            r#"    std::vector<int> v(30);
    for (int k = 0; k < 30; k++) { v[k] = k; }
    array_view<int, 2> g(5, 6, v);
    array_view<int, 2> s = g.section(index<2>(1, 2), extent<2>(3, 3));
    parallel_for_each(s.extent, [=](index<2> i) restrict(amp) { s[i] = s(i[0], i[1] + 1); });
    g.synchronize();
    std::cout << v[29] << "\n";"#,
            BOUNDS,
        ),
        on_ints(
            "read-only view read past the end",
            "",
            8,
            r#"    std::vector<int> w(8, 3);
    array_view<const int, 1> r(8, w);
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = r[i[0] + 1]; });"#,
            BOUNDS,
        ),
        on_ints(
            "array captured by reference, index past the end",
            "",
            8,
            r#"    array<int, 1> arr(8);
    parallel_for_each(av.extent, [=, &arr](index<1> i) restrict(amp) { arr[i + 1] = av[i]; });"#,
            BOUNDS,
        ),
        on_ints(
            "rank 2 array, column past the end",
            "",
            8,
            r#"    array<int, 2> arr(2, 4);
    parallel_for_each(arr.extent, [=, &arr](index<2> i) restrict(amp) { arr(i[0], i[1] + 1) = 1; });"#,
            BOUNDS,
        ),
        flat(
            "atomic on an element past the end",
            8,
            "atomic_fetch_add(&av[i + 1], 1);",
            BOUNDS,
        ),
        on_ints(
            "view passed to a helper that indexes past its end",
            "int get(array_view<int, 1> a, int k) restrict(amp) { return a[k]; }",
            8,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = get(av, i[0] + 1); });",
            BOUNDS,
        ),
    ]
}

/// Out-of-bounds indices of `tile_static` and private C arrays, of arrays
/// of arrays (an index past one dimension that stays inside the whole
/// array), and of arrays inside structs.
fn array_bounds_cases() -> Vec<Case> {
    vec![
        tiled(
            "tile_static index one past the end",
            8,
            4,
            "tile_static int s[4]; s[t.local[0] + 1] = 1; t.barrier.wait(); av[t.global] = s[t.local[0]];",
            BOUNDS,
        ),
        tiled(
            "tile_static index minus one",
            8,
            4,
            "tile_static int s[4]; s[t.local[0] - 1] = 1;",
            BOUNDS,
        ),
        tiled(
            "tile_static index INT_MIN",
            8,
            4,
            "tile_static int s[4]; int m = -2147483647 - 1; s[t.local[0]] = 1; t.barrier.wait(); av[t.global] = s[m + t.local[0]];",
            BOUNDS,
        ),
        tiled(
            "tile_static rank 2 column past the end, inside the array",
            16,
            4,
            "tile_static int s[4][4]; s[t.local[0]][4] = 1; t.barrier.wait();",
            BOUNDS,
        ),
        tiled(
            "tile_static rank 2 column minus one, inside the array",
            16,
            4,
            "tile_static int s[4][4]; s[t.local[0]][t.local[0]] = 2; t.barrier.wait(); av[t.global] = s[3][-1];",
            BOUNDS,
        ),
        tiled(
            "tile_static read past the end after a barrier",
            8,
            4,
            "tile_static int s[4]; s[t.local[0]] = t.global[0]; t.barrier.wait(); av[t.global] = s[3 - t.local[0] + t.tile[0] * 4];",
            BOUNDS,
        ),
        flat(
            "private array index past the end",
            8,
            "int p[4] = {1, 2, 3, 4}; av[i] = p[i[0] % 8];",
            BOUNDS,
        ),
        flat(
            "private array index minus one",
            8,
            "int p[4] = {1, 2, 3, 4}; av[i] = p[i[0] - 1];",
            BOUNDS,
        ),
        flat(
            "private array index INT_MIN",
            8,
            "int p[4] = {1, 2, 3, 4}; int m = -2147483647 - 1; av[i] = p[m + i[0] * 0];",
            BOUNDS,
        ),
        flat(
            "private rank 2 column past the end, inside the array",
            8,
            "int p[2][3] = {{1, 2, 3}, {4, 5, 6}}; int k = i[0] + 3; av[i] = p[0][k];",
            BOUNDS,
        ),
        flat(
            "private rank 2 column minus one, inside the array",
            8,
            "int p[2][3] = {{1, 2, 3}, {4, 5, 6}}; int k = -1 - i[0]; av[i] = p[1][k];",
            BOUNDS,
        ),
        on_ints(
            "array member of a struct past its end",
            "struct P { int a[3]; int b; };",
            8,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { P p = {{1, 2, 3}, 4}; av[i] = p.a[i[0] % 4]; });",
            BOUNDS,
        ),
        on_ints(
            "array of structs past its end",
            "struct Q { int x; int y; };",
            8,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { Q q[2]; q[0].x = 1; q[1].x = 2; q[i[0] % 3].y = 5; av[i] = q[0].x; });",
            BOUNDS,
        ),
        flat(
            "private arrays within bounds, partly initialised",
            8,
            "int p[5] = {7, 8}; int r[2][3] = {{1}, {4, 5}}; av[i] = p[i[0] % 5] * 100 + r[i[0] % 2][i[0] % 3];",
            OK,
        ),
        flat(
            "private array written in a loop and summed",
            8,
            "int p[16]; for (int k = 0; k < 16; k++) { p[k] = k * i[0]; } int s = 0; for (int k = 15; k >= 0; k--) { s += p[k]; } av[i] = s;",
            OK,
        ),
    ]
}

/// Division and remainder by zero, and `INT_MIN / -1`, at each width.
fn division_cases() -> Vec<Case> {
    vec![
        flat(
            "int division by zero",
            8,
            "av[i] = 100 / (i[0] - 3);",
            DIV_ZERO,
        ),
        flat(
            "int remainder by zero",
            8,
            "av[i] = 100 % (i[0] - 5);",
            DIV_ZERO,
        ),
        flat(
            "INT_MIN / -1",
            8,
            "int m = -2147483647 - 1; av[i] = m / (i[0] - 4);",
            OVERFLOW,
        ),
        flat(
            "INT_MIN % -1",
            8,
            "int m = -2147483647 - 1; av[i] = m % (i[0] - 2);",
            OVERFLOW,
        ),
        flat(
            "long division by zero",
            8,
            "long x = 1000; long d = (long)i[0] - 6; av[i] = (int)(x / d);",
            DIV_ZERO,
        ),
        flat(
            "LONG_MIN / -1",
            8,
            "long m = (long)(-2147483647 - 1) * (long)65536 * (long)65536; long d = (long)i[0] - 2; av[i] = (int)(m / d % (long)1000);",
            OVERFLOW,
        ),
        flat(
            "unsigned division by zero",
            8,
            "unsigned u = 7u; av[i] = (int)(u / (unsigned)(i[0] - 3));",
            DIV_ZERO,
        ),
        flat(
            "unsigned remainder by zero",
            8,
            "unsigned u = 4000000000u; av[i] = (int)(u % (unsigned)(i[0] - 1) % 1000u);",
            DIV_ZERO,
        ),
        flat(
            "compound division by zero",
            8,
            "int x = 50; x /= i[0] - 7; av[i] = x;",
            DIV_ZERO,
        ),
        flat(
            "compound remainder INT_MIN % -1",
            8,
            "int x = -2147483647 - 1; x %= i[0] - 1; av[i] = x;",
            OVERFLOW,
        ),
        on_ints(
            "division by zero in a helper",
            "int ratio(int a, int b) restrict(amp) { return a / b; }",
            8,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = ratio(av[i] * 10, 6 - i[0]); });",
            DIV_ZERO,
        ),
        tiled(
            "division by zero after a barrier",
            8,
            4,
            "tile_static int s[4]; s[t.local[0]] = t.local[0]; t.barrier.wait(); av[t.global] = 12 / s[3 - t.local[0]];",
            DIV_ZERO,
        ),
        flat(
            "signed division and remainder round toward zero",
            8,
            "int a = -7 - i[0]; int b = 2 + i[0] % 3; av[i] = (a / b) * 1000 + a % b + (-a) % (-b) * 100;",
            OK,
        ),
        flat(
            "unsigned division of large values",
            8,
            "unsigned u = 4294967295u - (unsigned)i[0]; av[i] = (int)(u / 65536u) + (int)(u % 7u);",
            OK,
        ),
    ]
}

/// Signed overflow of every operator that can overflow, at `int` and
/// `long`; wrapping unsigned arithmetic and narrowing conversions, which
/// must not fail.
fn overflow_cases() -> Vec<Case> {
    vec![
        flat(
            "int + overflows",
            8,
            "int x = 2147483644 + i[0]; av[i] = x + 1;",
            OVERFLOW,
        ),
        flat(
            "int - overflows",
            8,
            "int x = i[0] - 2147483647; av[i] = x - 2;",
            OVERFLOW,
        ),
        flat(
            "int * overflows",
            8,
            "av[i] = (i[0] + 1) * 1073741824;",
            OVERFLOW,
        ),
        flat(
            "int postfix ++ overflows",
            8,
            "int x = 2147483646 + (i[0] == 5 ? 1 : 0); x++; av[i] = x - 2147483000;",
            OVERFLOW,
        ),
        flat(
            "int prefix ++ overflows in an expression",
            8,
            "int x = 2147483640 + i[0]; av[i] = ++x - 2147483000;",
            OVERFLOW,
        ),
        flat(
            "int -- overflows",
            8,
            "int x = -2147483647 + (i[0] == 6 ? 0 : 5); x--; --x; av[i] = x + 2147483000;",
            OVERFLOW,
        ),
        flat(
            "unary minus of INT_MIN",
            8,
            "int m = i[0] == 2 ? -2147483647 - 1 : i[0]; av[i] = -m;",
            OVERFLOW,
        ),
        flat(
            "+= overflows",
            8,
            "int x = i[0]; x += 2147483647; av[i] = x;",
            OVERFLOW,
        ),
        flat(
            "-= overflows",
            8,
            "int x = -i[0]; x -= 2147483647; av[i] = x;",
            OVERFLOW,
        ),
        flat(
            "*= overflows",
            8,
            "int x = 40000 + i[0]; x *= 60000; av[i] = x;",
            OVERFLOW,
        ),
        flat(
            "+= on a view element overflows",
            8,
            "av[i] += 2147483647;",
            OVERFLOW,
        ),
        tiled(
            "+= on a tile_static variable overflows",
            8,
            4,
            "tile_static int s; if (t.local[0] == 0) { s = 2147483645; } t.barrier.wait(); if (t.local[0] == 1) { s += 10; } t.barrier.wait(); av[t.global] = s;",
            OVERFLOW,
        ),
        flat(
            "long += overflows",
            8,
            "long x = (long)2147483647 * (long)65536 * (long)65536 + ((long)65536 * (long)65536 - (long)1); x += (long)i[0]; av[i] = (int)(x % (long)1000);",
            OVERFLOW,
        ),
        flat(
            "long * overflows",
            8,
            "long x = (long)65536 * (long)65536; long y = x * (long)(i[0] + 1) * (long)(65536 * 32768 - 1); av[i] = (int)(y % (long)7);",
            OVERFLOW,
        ),
        flat(
            "index arithmetic overflows",
            8,
            "index<1> j = i + 2147483647; av[i] = j[0];",
            OVERFLOW,
        ),
        flat(
            "index component times a large factor overflows",
            8,
            "av[i] = i[0] * 2147483647;",
            OVERFLOW,
        ),
        flat(
            "unsigned arithmetic wraps",
            8,
            "unsigned u = (unsigned)i[0]; u -= 5u; unsigned w = u * 4294967295u; av[i] = (int)(u >> 4) + (int)(w % 1000u);",
            OK,
        ),
        flat(
            "narrowing conversions wrap",
            8,
            "long big = (long)65536 * (long)65536; unsigned u = 4294967295u; av[i] = (int)(big + (long)i[0]) + (int)(u - (unsigned)i[0]);",
            OK,
        ),
        flat(
            "arithmetic at the edges of int without overflow",
            8,
            "int lo = -2147483647 - 1; int hi = 2147483647; av[i] = (hi - i[0]) + (lo + i[0]) + (lo / (i[0] + 1)) % 7 + hi % (i[0] + 2);",
            OK,
        ),
    ]
}

/// Shift counts that are negative or at least the width.
fn shift_cases() -> Vec<Case> {
    vec![
        flat("shift by 32", 8, "av[i] = 1 << (i[0] + 29);", SHIFT),
        flat("shift by -1", 8, "av[i] = 8 >> (i[0] - 1);", SHIFT),
        flat(
            "unsigned shift by 32",
            8,
            "unsigned u = 1u; av[i] = (int)(u << (unsigned)(i[0] + 28));",
            SHIFT,
        ),
        flat(
            "long shift by 64",
            8,
            "long x = 1; av[i] = (int)((x << (i[0] + 61)) >> 40);",
            SHIFT,
        ),
        flat(
            "shift by INT_MIN",
            8,
            "int n = -2147483647 - 1 + i[0] * 0; av[i] = av[i] >> n;",
            SHIFT,
        ),
        flat(
            "compound shift by 40",
            8,
            "int x = 1; x <<= 33 + i[0]; av[i] = x;",
            SHIFT,
        ),
        flat(
            "shifts at the edges",
            8,
            "int m = -1; long one = 1; unsigned u = 4294967295u; av[i] = (m << 31) / 65536 + (int)((one << 63) >> 62) + (int)(u >> 31) + (-8 >> (i[0] % 4)) + (1 << i[0]);",
            OK,
        ),
        flat(
            "left shifts out of range of positive values",
            8,
            "int x = 1073741824 + i[0]; av[i] = (x << 1) + (3 << 30) / 2;",
            Expect::Any,
        ),
    ]
}

/// Floating-point values converted to integer types they do not fit.
fn conversion_cases() -> Vec<Case> {
    vec![
        flat(
            "NaN to int",
            8,
            "float z = (float)(i[0] - i[0]); av[i] = (int)(z / z);",
            FLOAT_TO_INT,
        ),
        flat(
            "infinity to int",
            8,
            "float z = (float)(i[0] - i[0]); av[i] = (int)(1.0f / z);",
            FLOAT_TO_INT,
        ),
        flat(
            "3e9f to int",
            8,
            "float f = 3e9f * (float)i[0]; av[i] = (int)f;",
            FLOAT_TO_INT,
        ),
        flat(
            "2147483648.0f to int",
            8,
            "float f = 2147483520.0f + 128.0f * (float)i[0]; av[i] = (int)f % 1000;",
            FLOAT_TO_INT,
        ),
        flat(
            "-1.0f to unsigned",
            8,
            "float f = -1.0f * (float)i[0]; av[i] = (int)(unsigned)f;",
            FLOAT_TO_INT,
        ),
        flat(
            "4294967296.0 to unsigned",
            8,
            "double d = 4294967295.5 + (double)i[0]; av[i] = (int)((unsigned)d % 1000u);",
            FLOAT_TO_INT,
        ),
        flat(
            "9.3e18 to long",
            8,
            "double d = 9.2e18 + 1e17 * (double)i[0]; av[i] = (int)((long)d % 1000);",
            FLOAT_TO_INT,
        ),
        flat(
            "-2147483649.0 to int",
            8,
            "double d = -2147483648.5 - (double)i[0]; av[i] = (int)d % 1000;",
            FLOAT_TO_INT,
        ),
        flat(
            "float times a huge factor in a compound assignment",
            8,
            "int k = 5 + i[0]; k *= 1e30f * (float)(i[0] % 2); av[i] = k;",
            FLOAT_TO_INT,
        ),
        flat(
            "conversions at the edges that fit",
            8,
            "double a = 2147483647.9; double b = -2147483648.9; double c = -0.9; float f = -2147483648.0f; \
             av[i] = (int)a % 1000 + (int)b % 1000 + (int)(unsigned)c + (int)f % 1000 + (int)(unsigned)(4294967295.5 - (double)i[0]) % 100 + (int)((long)-9.2e18 % 1000);",
            OK,
        ),
        flat(
            "NaN and infinity to bool, and through comparisons",
            8,
            "float z = (float)(i[0] - i[0]); float n = z / z; bool b = n; bool c = 1.0f / z; av[i] = (b ? 1 : 0) + (c ? 2 : 0) + (n == n ? 4 : 0) + (n != n ? 8 : 0) + (n < 1.0f ? 16 : 0);",
            OK,
        ),
        flat(
            "double out of the range of float",
            8,
            "double d = 1e300 * (double)i[0]; float f = (float)d; av[i] = f > 1e30f ? 1 : 0;",
            Expect::Any,
        ),
    ]
}

/// Barriers: uniform loops that must run, divergent ones (the checker cannot
/// see through a racy counter) that must stop with R0008.
fn barrier_cases() -> Vec<Case> {
    vec![
        tiled(
            "barrier in a loop whose trip count differs between work-items",
            8,
            4,
            "int x = av[t.tile]++; for (int k = 0; k < 2; k++) { for (int j = 0; j < x; j++) { t.barrier.wait(); } }",
            DIVERGENCE,
        ),
        tiled(
            "barrier after some work-items returned",
            8,
            4,
            "int x = av[t.tile]++; if (x == 3) { return; } t.barrier.wait(); av[t.global] = 9;",
            DIVERGENCE,
        ),
        tiled(
            "break out of a barrier loop by some work-items",
            8,
            4,
            "int x = av[t.tile]++; for (int k = 0; k < 4; k++) { if (k == x - t.tile[0] * 4) { break; } t.barrier.wait(); }",
            DIVERGENCE,
        ),
        on_ints(
            "barrier divergence in a helper",
            "void maybe_wait(tiled_index<4> t, int x) restrict(amp) { if (x > 1) { t.barrier.wait(); } }",
            8,
            r#"    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        int x = av[t.tile]++;
        maybe_wait(t, x);
    });"#,
            DIVERGENCE,
        ),
        tiled(
            "barrier in a loop with a tile-dependent trip count",
            16,
            4,
            "int n = t.tile[0] + 1; int sum = 0; for (int k = 0; k < n; k++) { for (int j = 0; j <= k; j++) { t.barrier.wait(); sum += j; } t.barrier.wait(); } av[t.global] = sum;",
            OK,
        ),
        tiled(
            "barrier loop left by a tile-uniform break",
            8,
            4,
            "int k = 0; while (true) { if (k == 3) { break; } t.barrier.wait(); k++; } av[t.global] = k;",
            OK,
        ),
        tiled(
            "barriers in a switch on the tile",
            12,
            4,
            "int r = 0; switch (t.tile[0]) { case 0: t.barrier.wait(); r += 1; case 1: t.barrier.wait(); r += 2; break; default: r = 9; } av[t.global] = r;",
            OK,
        ),
        tiled(
            "tile_static reduction in a tree",
            64,
            16,
            "tile_static int s[16]; s[t.local[0]] = av[t.global]; t.barrier.wait(); \
             for (int w = 8; w > 0; w /= 2) { if (t.local[0] < w) { s[t.local[0]] += s[t.local[0] + w]; } t.barrier.wait(); } \
             av[t.global] = s[0] * 100 + t.local[0];",
            OK,
        ),
        on_ints(
            "barriers in helpers called in a loop",
            "void step(tiled_index<8> t) restrict(amp) { t.barrier.wait(); }\n\
             int twice(tiled_index<8> t, int x) restrict(amp) { step(t); step(t); return x * 2; }",
            16,
            r#"    parallel_for_each(av.extent.tile<8>(), [=](tiled_index<8> t) restrict(amp) {
        int x = 1;
        for (int k = 0; k < 5; k++) { x = twice(t, x); }
        av[t.global] = x + t.local[0];
    });"#,
            OK,
        ),
        tiled(
            "tile_static read before it is written reads zero",
            8,
            4,
            "tile_static int s[4]; int before = s[t.local[0]]; t.barrier.wait(); s[t.local[0]] = 5; t.barrier.wait(); av[t.global] = before + s[3 - t.local[0]];",
            OK,
        ),
    ]
}

/// Extents that are large, odd or not multiples of a chunk, tiles at the
/// limits, padded and truncated tilings, and extents that are rejected
/// before the kernel runs.
fn extent_cases() -> Vec<Case> {
    vec![
        flat(
            "one work-item more than a chunk",
            4097,
            "av[i] = av[i] * 3 - i[0];",
            OK,
        ),
        flat(
            "two chunks and one work-item",
            8193,
            "if (i[0] % 1000 == 7) { av[i] = -av[i]; }",
            OK,
        ),
        program(
            "rank 3 extent of odd sizes",
            "",
            r#"    std::vector<int> v(3 * 5 * 7);
    array_view<int, 3> c(3, 5, 7, v);
    parallel_for_each(c.extent, [=](index<3> i) restrict(amp) { c[i] = i[0] * 100 + i[1] * 10 + i[2]; });
    c.synchronize();
    long s = 0;
    for (int k = 0; k < 105; k++) { s = s * 3 + v[k]; s %= 1000000007; }
    std::cout << s << " " << v[104] << "\n";"#,
            OK,
        ),
        program(
            "rank 3 extent of 32768 work-items",
            "",
            r#"    std::vector<int> v(32 * 32 * 32);
    array_view<int, 3> c(32, 32, 32, v);
    parallel_for_each(c.extent, [=](index<3> i) restrict(amp) { c[i] = (i[0] ^ i[1]) + i[2] * 3; });
    c.synchronize();
    long s = 0;
    for (int k = 0; k < 32768; k += 97) { s += v[k]; }
    std::cout << s << "\n";"#,
            OK,
        ),
        tiled(
            "tiles of 1024 work-items",
            2048,
            1024,
            "tile_static int s[1024]; s[1023 - t.local[0]] = t.global[0]; t.barrier.wait(); av[t.global] = s[t.local[0]] - t.tile[0];",
            OK,
        ),
        program(
            "rank 3 tiles of one work-item",
            "",
            r#"    std::vector<int> v(24);
    array_view<int, 3> c(2, 3, 4, v);
    parallel_for_each(c.extent.tile<1, 1, 1>(), [=](tiled_index<1, 1, 1> t) restrict(amp) {
        c[t.global] = t.tile[0] * 100 + t.tile[1] * 10 + t.tile[2] + t.local[0] + t.local[1] + t.local[2];
    });
    c.synchronize();
    for (int k = 0; k < 24; k++) { std::cout << v[k] << " "; }
    std::cout << "\n";"#,
            OK,
        ),
        program(
            "rank 3 tiles of 2x3x4 with tile_static memory",
            "",
            r#"    std::vector<int> v(4 * 6 * 8);
    array_view<int, 3> c(4, 6, 8, v);
    parallel_for_each(c.extent.tile<2, 3, 4>(), [=](tiled_index<2, 3, 4> t) restrict(amp) {
        tile_static int s[2][3][4];
        s[t.local[0]][t.local[1]][t.local[2]] = t.global[0] * 64 + t.global[1] * 8 + t.global[2];
        t.barrier.wait();
        c[t.global] = s[1 - t.local[0]][2 - t.local[1]][3 - t.local[2]] + t.tile_origin[2];
    });
    c.synchronize();
    long s = 0;
    for (int k = 0; k < 192; k++) { s = (s * 31 + v[k]) % 1000003; }
    std::cout << s << "\n";"#,
            OK,
        ),
        on_ints(
            "padded tiling",
            "",
            10,
            r#"    parallel_for_each(av.extent.tile<4>().pad(), [=](tiled_index<4> t) restrict(amp) {
        if (t.global[0] < 10) { av[t.global] = av[t.global] + t.tile[0] * 100; }
    });"#,
            OK,
        ),
        on_ints(
            "padded tiling without a guard",
            "",
            10,
            r#"    parallel_for_each(av.extent.tile<4>().pad(), [=](tiled_index<4> t) restrict(amp) {
        av[t.global] = 1;
    });"#,
            BOUNDS,
        ),
        on_ints(
            "truncated tiling",
            "",
            10,
            r#"    parallel_for_each(av.extent.tile<4>().truncate(), [=](tiled_index<4> t) restrict(amp) {
        av[t.global] = -1;
    });"#,
            OK,
        ),
        on_ints(
            "extent not divisible by the tile",
            "",
            10,
            r#"    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) { av[t.global] = 0; });"#,
            Expect::Any,
        ),
        on_ints(
            "negative extent",
            "",
            4,
            r#"    int n = -5;
    parallel_for_each(extent<1>(n), [=](index<1> i) restrict(amp) { av[0] = 1; });"#,
            Expect::Any,
        ),
        flat(
            "kernel returning early in some work-items",
            16,
            "if (i[0] % 3 == 0) { return; } av[i] = -1; if (i[0] % 3 == 1) { return; } av[i] = -2;",
            OK,
        ),
    ]
}

/// Views with offsets and strides: sections, projections, sections of
/// sections, views over host C arrays, views of structs and of floating
/// types, several views of one vector.
fn view_shape_cases() -> Vec<Case> {
    vec![
        program(
            "sections and projections with offsets and strides",
            "",
            r#"    std::vector<int> v(5 * 6);
    for (int k = 0; k < 30; k++) { v[k] = k; }
    array_view<int, 2> g(5, 6, v);
    array_view<int, 2> s = g.section(index<2>(1, 2), extent<2>(3, 3));
    array_view<int, 2> inner = s.section(index<2>(1, 1));
    array_view<int, 1> row = g[4];
    array_view<int, 1> tail = row.section(2, 3);
    parallel_for_each(s.extent, [=](index<2> i) restrict(amp) { s[i] = s(2 - i[0], 2 - i[1]) * 10 + i[0]; });
    parallel_for_each(inner.extent, [=](index<2> i) restrict(amp) { inner[i] += 1000; });
    parallel_for_each(tail.extent, [=](index<1> i) restrict(amp) { tail[i] = -tail[i] - row[0]; });
    g.synchronize();
    for (int k = 0; k < 30; k++) { std::cout << v[k] << (k % 6 == 5 ? "\n" : " "); }"#,
            OK,
        ),
        program(
            "projections of a rank 3 view captured by a kernel",
            "",
            r#"    std::vector<int> v(2 * 3 * 4);
    for (int k = 0; k < 24; k++) { v[k] = k; }
    array_view<int, 3> c(2, 3, 4, v);
    array_view<int, 2> plane = c[1];
    array_view<int, 1> line = c[0][2];
    parallel_for_each(plane.extent, [=](index<2> i) restrict(amp) {
        plane[i] = plane[i] * 2 + line[i[1]];
        array_view<int, 1> r = plane[i[0]];
        plane[i] += r.extent[0];
    });
    c.synchronize();
    for (int k = 0; k < 24; k++) { std::cout << v[k] << " "; }
    std::cout << "\n";"#,
            OK,
        ),
        program(
            "a read-only section and a written section of one vector",
            "",
            r#"    std::vector<int> v(16);
    for (int k = 0; k < 16; k++) { v[k] = k * k; }
    array_view<int, 1> all(16, v);
    array_view<const int, 1> low = all.section(0, 8);
    array_view<int, 1> high = all.section(8, 8);
    parallel_for_each(high.extent, [=](index<1> i) restrict(amp) { high[i] = low[7 - i[0]] + high[i]; });
    all.synchronize();
    for (int k = 0; k < 16; k++) { std::cout << v[k] << " "; }
    std::cout << "\n";"#,
            OK,
        ),
        program(
            "view over a host C array",
            "",
            r#"    int host[12] = {1, 2, 3};
    array_view<int, 2> hv(3, 4, host);
    parallel_for_each(hv.extent, [=](index<2> i) restrict(amp) { hv[i] = hv[i] + i[0] * 4 + i[1]; });
    hv.synchronize();
    for (int k = 0; k < 12; k++) { std::cout << host[k] << " "; }
    std::cout << hv(2, 3) << "\n";"#,
            OK,
        ),
        program(
            "view of structs written field by field",
            "struct Cell { int id; float w; double d; int pair[2]; };",
            r#"    std::vector<Cell> cells(6);
    for (int k = 0; k < 6; k++) { cells[k].id = k; cells[k].w = 0.5f * k; cells[k].d = 0.25 * k; }
    array_view<Cell, 1> cv(6, cells);
    parallel_for_each(cv.extent, [=](index<1> i) restrict(amp) {
        Cell c = cv[i];
        c.pair[0] = c.id * 2;
        c.pair[1] = cv[5 - i[0]].id;
        c.w += 1.5f;
        cv[i] = c;
        cv[i].d = cv[i].d * 3.0 + c.pair[1];
    });
    cv.synchronize();
    for (int k = 0; k < 6; k++) {
        std::cout << cells[k].id << " " << cells[k].w << " " << cells[k].d << " " << cells[k].pair[0] << " " << cells[k].pair[1] << "\n";
    }"#,
            OK,
        ),
        program(
            "views of float, double, unsigned and long",
            "",
            r#"    std::vector<float> f(8);
    std::vector<double> d(8);
    std::vector<unsigned> u(8);
    std::vector<long> l(8);
    for (int k = 0; k < 8; k++) { f[k] = 0.1f * k; d[k] = 1.0 / (k + 1); u[k] = 4294967295u - k; l[k] = 4294967296 * k; }
    array_view<float, 1> fv(8, f);
    array_view<double, 1> dv(8, d);
    array_view<unsigned, 1> uv(8, u);
    array_view<long, 1> lv(8, l);
    parallel_for_each(fv.extent, [=](index<1> i) restrict(amp) {
        fv[i] = fv[i] * 3.0f + (float)dv[i];
        dv[i] = dv[i] * (double)fv[i] - 1e-3;
        uv[i] = uv[i] * 3u + 7u;
        lv[i] = lv[i] / 3 - (long)uv[i];
    });
    fv.synchronize(); dv.synchronize(); uv.synchronize(); lv.synchronize();
    for (int k = 0; k < 8; k++) { std::cout << f[k] << " " << d[k] << " " << u[k] << " " << l[k] << "\n"; }"#,
            OK,
        ),
        program(
            "array with copies in and out",
            "",
            r#"    std::vector<int> v(12);
    for (int k = 0; k < 12; k++) { v[k] = 3 * k; }
    array<int, 2> arr(3, 4, v.begin());
    parallel_for_each(arr.extent, [=, &arr](index<2> i) restrict(amp) { arr[i] = arr(i[0], 3 - i[1]) - i[0]; });
    std::vector<int> w(12);
    copy(arr, w.begin());
    for (int k = 0; k < 12; k++) { std::cout << w[k] << " "; }
    std::cout << "\n";"#,
            OK,
        ),
        program(
            "view larger than its vector",
            "",
            r#"    std::vector<int> v(11);
    array_view<int, 2> a(3, 4, v);
    parallel_for_each(a.extent, [=](index<2> i) restrict(amp) { a[i] = 1; });
    a.synchronize();
    std::cout << v[0] << "\n";"#,
            Expect::Any,
        ),
    ]
}

/// Atomics on view elements, `tile_static` variables and struct fields,
/// with results that do not depend on the order of the work-items.
fn atomic_cases() -> Vec<Case> {
    vec![
        on_ints(
            "atomic counters over many work-items",
            "",
            4,
            r#"    std::vector<unsigned> u(2, 0u);
    array_view<unsigned, 1> uv(2, u);
    parallel_for_each(extent<1>(5000), [=](index<1> i) restrict(amp) {
        atomic_fetch_add(&av[0], i[0] % 7);
        atomic_fetch_sub(&av[1], 1);
        atomic_fetch_max(&av[2], (i[0] * 7919) % 5000);
        atomic_fetch_min(&av[3], -((i[0] * 31) % 977));
        atomic_fetch_or(&uv[0], 1u << (unsigned)(i[0] % 32));
        atomic_fetch_inc(&uv[1]);
    });
    uv.synchronize();
    std::cout << u[0] << " " << u[1] << "\n";"#,
            OK,
        ),
        on_ints(
            "compare-exchange loops",
            "",
            2,
            r#"    parallel_for_each(extent<1>(9000), [=](index<1> i) restrict(amp) {
        int seen = av[0];
        while (!atomic_compare_exchange(&av[0], &seen, seen + i[0])) {}
        int zero = 1;
        atomic_compare_exchange(&av[1], &zero, 100);
    });"#,
            OK,
        ),
        tiled(
            "atomics on tile_static memory",
            64,
            16,
            "tile_static int count; tile_static unsigned top; if (t.local[0] == 0) { count = 0; top = 0u; } t.barrier.wait(); \
             atomic_fetch_add(&count, t.global[0] % 5); atomic_fetch_max(&top, (unsigned)(t.global[0] * 37 % 101)); t.barrier.wait(); \
             av[t.global] = count * 1000 + (int)top;",
            OK,
        ),
        flat(
            "atomic add that passes INT_MAX",
            8,
            "if (i[0] < 4) { atomic_fetch_add(&av[7], 1073741824); }",
            Expect::Any,
        ),
        on_ints(
            "atomics on a field of a struct element",
            "struct Acc { int n; int sum; };",
            8,
            r#"    std::vector<Acc> acc(2);
    acc[0].n = 0; acc[0].sum = 0; acc[1].n = 0; acc[1].sum = 0;
    array_view<Acc, 1> ac(2, acc);
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        atomic_fetch_inc(&ac[i[0] % 2].n);
        atomic_fetch_add(&ac[i[0] % 2].sum, av[i]);
    });
    ac.synchronize();
    std::cout << acc[0].n << " " << acc[0].sum << " " << acc[1].n << " " << acc[1].sum << "\n";"#,
            OK,
        ),
    ]
}

/// Structs and C arrays inside kernels: locals, copies, nesting, captures.
fn aggregate_cases() -> Vec<Case> {
    let items = "struct In { int a; float f; int arr[3]; };\n\
                 struct Out { In in; In pair[2]; long tag; };";
    vec![
        on_ints(
            "nested structs and arrays of structs in a kernel",
            items,
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        Out o = {{i[0], 1.5f, {1, 2, 3}}, {{0, 0.0f, {4}}, {7, 2.0f, {5, 6, 7}}}, 9};
        Out copy = o;
        copy.in.arr[2] = 100;
        copy.pair[1] = copy.in;
        In x = o.pair[i[0] % 2];
        x.arr[i[0] % 3] += 10;
        av[i] = o.in.arr[2] + copy.in.arr[2] + copy.pair[1].a + x.arr[0] + x.arr[1] + x.arr[2] + (int)(o.in.f * 2.0f) + (int)o.tag;
    });"#,
            OK,
        ),
        on_ints(
            "struct and C array captured by value",
            items,
            8,
            r#"    In cap = {5, 0.25f, {10, 20, 30}};
    int table[4] = {3, 1, 4, 1};
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        In local = cap;
        local.a += i[0];
        av[i] = local.a * 1000 + cap.arr[i[0] % 3] + table[i[0] % 4];
    });
    std::cout << cap.a << " " << table[2] << "\n";"#,
            OK,
        ),
        on_ints(
            "C arrays of three dimensions and their copies",
            "",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        int cube[2][3][4];
        for (int a = 0; a < 2; a++) { for (int b = 0; b < 3; b++) { for (int c = 0; c < 4; c++) { cube[a][b][c] = a * 12 + b * 4 + c + i[0]; } } }
        int s = 0;
        for (int b = 0; b < 3; b++) { s += cube[i[0] % 2][b][i[0] % 4]; }
        av[i] = s;
    });"#,
            OK,
        ),
        tiled(
            "tile_static struct array",
            8,
            4,
            "tile_static float fs[4]; tile_static int is[2][4]; fs[t.local[0]] = 0.5f * (float)t.global[0]; is[t.local[0] % 2][t.local[0]] = t.local[0]; \
             t.barrier.wait(); av[t.global] = (int)(fs[3 - t.local[0]] * 4.0f) + is[0][0] + is[1][1] + is[0][2] + is[1][3];",
            OK,
        ),
    ]
}

/// Helper functions: by value and by reference, returning structs and
/// references, nested deeply, in conditions, in loops.
fn call_cases() -> Vec<Case> {
    let chain: String = (0..40)
        .map(|k| {
            if k == 0 {
                "int f0(int x) restrict(amp) { return x + 1; }\n".to_string()
            } else {
                format!(
                    "int f{k}(int x) restrict(amp) {{ int y = f{}(x) * 3 % 1000; return y + {k}; }}\n",
                    k - 1
                )
            }
        })
        .collect();
    // A call tree of 2^depth leaves, called once by one work-item.
    let tree = |name: &str, depth: usize| {
        let helpers: String = (0..=depth)
            .map(|k| {
                if k == 0 {
                    "int g0(int x) restrict(amp) { return x % 7; }\n".to_string()
                } else {
                    format!(
                        "int g{k}(int x) restrict(amp) {{ return (g{p}(x + 1) + g{p}(x + 2)) % 1000; }}\n",
                        p = k - 1
                    )
                }
            })
            .collect();
        let mut case = on_ints(
            name,
            &helpers,
            1,
            &format!(
                "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {{ av[i] = g{depth}(av[i]); }});"
            ),
            OK,
        );
        case.threads = vec![1];
        case
    };
    // The interpreter runs it in a few milliseconds; the JIT inlines every
    // call, which takes seconds in a debug build.
    let mut slow_to_compile = tree("a kernel slow to compile, under a time limit of 0.5 s", 11);
    slow_to_compile.limits.timeout = Some(Duration::from_millis(500));
    vec![
        on_ints(
            "helpers by value, by reference and returning structs",
            "struct P { int x; int y; };\n\
             P make(int a, int b) restrict(amp) { P p = {a, b}; return p; }\n\
             P swapped(P p) restrict(amp) { int t = p.x; p.x = p.y; p.y = t; return p; }\n\
             void grow(P& p, int by) restrict(amp) { p.x += by; p.y *= by; }\n\
             int sum(const P& p) restrict(amp) { return p.x + p.y; }\n\
             int& pick(P& p, bool first) restrict(amp) { if (first) { return p.x; } return p.y; }\n\
             void bump(int& r) restrict(amp) { r += 1; }",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        P p = make(i[0], 10);
        P q = swapped(p);
        grow(p, 3);
        pick(q, i[0] % 2 == 0) = 77;
        bump(pick(p, false));
        bump(av[i]);
        av[i] = av[i] * 1000 + sum(p) * 10 + q.x + q.y;
    });"#,
            OK,
        ),
        on_ints(
            "a reference parameter bound twice to one variable",
            "void twice(int& a, int& b) restrict(amp) { a += 1; b *= 3; a += b; }",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        int x = i[0];
        twice(x, x);
        int arr[2] = {1, 2};
        twice(arr[i[0] % 2], arr[1]);
        av[i] = x * 100 + arr[0] * 10 + arr[1];
    });"#,
            OK,
        ),
        on_ints(
            "references to tile_static and private elements",
            "void add_to(int& r, int v) restrict(amp) { r += v; }",
            8,
            r#"    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        tile_static int s[4];
        int p[3] = {1, 2, 3};
        s[t.local[0]] = t.local[0];
        add_to(s[t.local[0]], 10);
        add_to(p[t.local[0] % 3], 100);
        t.barrier.wait();
        av[t.global] = s[3 - t.local[0]] + p[0] + p[1] + p[2];
    });"#,
            OK,
        ),
        on_ints(
            "helpers in loop conditions, with early returns",
            "int limit(int x) restrict(amp) { if (x > 5) { return 5; } for (int k = 0; k < 10; k++) { if (k == x) { return k; } } return -1; }\n\
             bool odd(int x) restrict(amp) { return x % 2 != 0; }",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        int n = 0;
        for (int k = 0; k < limit(i[0]); k++) { if (odd(k)) { continue; } n += k; }
        while (odd(n) && n < 100) { n = n * 3 + 1; }
        av[i] = n;
    });"#,
            OK,
        ),
        on_ints(
            "a chain of 40 nested calls",
            &chain,
            8,
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = f39(av[i]); });",
            OK,
        ),
        slow_to_compile,
        on_ints(
            "integer library functions at the edges",
            "",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        int m = -2147483647 - 1 + i[0];
        av[i] = direct3d::imin(m, i[0]) % 1000 + direct3d::imax(m, -i[0]) + (int)(direct3d::umin(4294967295u, (unsigned)i[0])) + direct3d::clamp(i[0] * 5, 3, 20) + direct3d::mad(i[0], 46341, -7);
    });"#,
            OK,
        ),
        flat(
            "abs of INT_MIN",
            8,
            "int m = i[0] == 4 ? -2147483647 - 1 : -i[0]; av[i] = direct3d::abs(m);",
            Expect::Any,
        ),
        flat(
            "mad that overflows",
            8,
            "av[i] = direct3d::mad(i[0] + 1, 1073741824, 0);",
            OVERFLOW,
        ),
    ]
}

/// Floating point: NaN, infinities, signed zeros, subnormals, library
/// functions at the edges of their domains, printed to the last digit.
fn float_cases() -> Vec<Case> {
    vec![
        program(
            "NaN, infinities and signed zeros from kernels",
            "",
            r#"    std::vector<float> f(8);
    std::vector<double> d(8);
    array_view<float, 1> fv(8, f);
    array_view<double, 1> dv(8, d);
    parallel_for_each(fv.extent, [=](index<1> i) restrict(amp) {
        float z = (float)(i[0] - i[0]);
        double dz = (double)z;
        float vals[8] = {z / z, -(z / z), 1.0f / z, -1.0f / z, -z, z * -1.0f, 1e-45f * 0.5f, 1e38f * 10.0f};
        fv[i] = vals[i[0]];
        double dvals[8] = {dz / dz, -(dz / dz), fast_math::sqrt(-1.0f), precise_math::sqrt(-1.0), precise_math::log(0.0), precise_math::pow(-8.0, 1.0 / 3.0), 5e-324 / 2.0, -dz};
        dv[i] = dvals[i[0]];
    });
    fv.synchronize();
    dv.synchronize();
    std::cout << std::setprecision(17);
    for (int k = 0; k < 8; k++) { std::cout << f[k] << " " << d[k] << "\n"; }"#,
            OK,
        ),
        program(
            "floating-point library functions at the edges",
            "",
            r#"    std::vector<double> d(12);
    array_view<double, 1> dv(12, d);
    parallel_for_each(dv.extent, [=](index<1> i) restrict(amp) {
        float z = (float)(i[0] - i[0]);
        float n = z / z;
        double r = 0.0;
        switch (i[0]) {
            case 0: r = fast_math::fmin(n, 1.0f); break;
            case 1: r = fast_math::fmax(1.0f, n); break;
            case 2: r = fast_math::fmod(5.0f, z); break;
            case 3: r = precise_math::fmod(-5.5, 2.0); break;
            case 4: r = precise_math::pow(0.0, -1.0); break;
            case 5: r = precise_math::exp(1000.0); break;
            case 6: r = fast_math::log(-1.0f); break;
            case 7: r = precise_math::fma(1.0000001, 1.0000001, -1.0000002); break;
            case 8: r = direct3d::mad(0.1f, 0.3f, -0.03f); break;
            case 9: r = precise_math::floor(-0.5); break;
            case 10: r = fast_math::fabs(-z); break;
            default: r = precise_math::atan2(-0.0, -1.0); break;
        }
        dv[i] = r;
    });
    dv.synchronize();
    std::cout << std::setprecision(17);
    for (int k = 0; k < 12; k++) { std::cout << d[k] << "\n"; }"#,
            OK,
        ),
        program(
            "float and double mixed arithmetic",
            "",
            r#"    std::vector<float> f(8);
    array_view<float, 1> fv(8, f);
    parallel_for_each(fv.extent, [=](index<1> i) restrict(amp) {
        float x = 0.1f * (float)(i[0] + 1);
        double y = x * 0.1;
        float acc = 0.0f;
        for (int k = 0; k < 100; k++) { acc += x / (float)(k + 1); }
        fv[i] = (float)(y * 1e7) + acc - (float)(unsigned)(x * 10.0f) + (x > 0.35f ? 0.5f : -0.5f);
    });
    fv.synchronize();
    std::cout << std::setprecision(9);
    for (int k = 0; k < 8; k++) { std::cout << f[k] << "\n"; }"#,
            OK,
        ),
        flat(
            "integer operators on negative and unsigned values",
            8,
            "int a = -7 - i[0]; unsigned u = (unsigned)a; bool b = u > 4000000000u; \
             av[i] = (a & 12) + (a | 3) * 10 + (a ^ 5) * 100 + (int)(~u % 1000u) + (b ? 1 : 0) + (int)(true + true) + (a < (int)u ? 1 : 0);",
            OK,
        ),
        flat(
            "short-circuit side effects and the comma operator",
            8,
            "int k = i[0]; bool x = (k++ > 3) && (k++ > 5); bool y = (k-- < 2) || (k-- < 0); int z = (k += 2, k * 3); \
             av[i] = k * 100 + z + (x ? 1000 : 0) + (y ? 10000 : 0);",
            OK,
        ),
        flat(
            "switch with fall-through and a default in the middle",
            8,
            "int r = 0; switch (i[0] % 5) { case 0: r += 1; case 1: r += 10; break; default: r += 100; case 3: r += 1000; break; case 4: r = -1; } av[i] = r;",
            OK,
        ),
    ]
}

/// The hand-off: data the interpreter and the JIT pass between them, a
/// launch that fails after it wrote, a copy that does not fit in the memory
/// limit, host writes between launches.
fn hand_off_cases() -> Vec<Case> {
    vec![
        on_ints(
            "a launch that fails after writing leaves no trace",
            "",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 2; });
    av.synchronize();
    for (int k = 0; k < 8; k++) { std::cout << v[k] << " "; }
    std::cout << "\n";
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = 99; av[i] = av[i + 1]; });"#,
            BOUNDS,
        ),
        on_ints(
            "one kernel launched many times, failing in a late launch",
            "",
            8,
            r#"    for (int round = 0; round < 40; round++) {
        parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 2 + 1; });
        if (round % 8 == 0) { std::cout << av[7] << "\n"; }
    }"#,
            OVERFLOW,
        ),
        on_ints(
            "host writes between launches",
            "",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 10; });
    av[2] = 500;
    std::cout << av[2] << " " << av[3] << "\n";
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 2; });
    av.synchronize();
    v[4] = -1;
    std::cout << v[4] << " " << v[5] << "\n";
    av.refresh();
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 1; });"#,
            OK,
        ),
        on_ints(
            "host reads the vector without synchronizing",
            "",
            8,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 5; });
    std::cout << v[3] << "\n";
    std::vector<int> w = v;
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 1; });
    std::cout << w[3] << " " << v[3] << "\n";"#,
            OK,
        ),
        on_ints(
            "two views of one vector written by one kernel each",
            "",
            8,
            r#"    array_view<int, 2> sq(2, 4, v);
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 1; });
    parallel_for_each(sq.extent, [=](index<2> i) restrict(amp) { sq[i] = sq[i] * 10 + i[0]; });
    std::cout << av[5] << " " << sq(1, 1) << "\n";"#,
            OK,
        ),
        on_ints(
            "discarded data written by a kernel",
            "",
            8,
            r#"    av.discard_data();
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = 7 - i[0]; });"#,
            OK,
        ),
        program(
            "a copy for the JIT that does not fit in the memory limit",
            "",
            r#"    std::vector<int> big(10000000, 1);
    array_view<int, 1> all(10000000, big);
    array_view<int, 1> few = all.section(5000, 8);
    parallel_for_each(few.extent, [=](index<1> i) restrict(amp) { few[i] = few[i] + i[0]; });
    all.synchronize();
    std::cout << big[4999] << " " << big[5000] << " " << big[5007] << " " << big[5008] << "\n";"#,
            OK,
        ),
        program(
            "a launch's data kept for the next launch does not count against the memory limit",
            "",
            r#"    std::vector<int> big(6000000, 1);
    array_view<int, 1> all(6000000, big);
    array_view<int, 1> few = all.section(100, 8);
    parallel_for_each(few.extent, [=](index<1> i) restrict(amp) { few[i] = few[i] + i[0]; });
    std::vector<int> more(8000000, 2);
    std::cout << more[5] << " " << all[107] << "\n";"#,
            OK,
        ),
        program(
            "a vector too large for the memory limit",
            "",
            r#"    std::vector<int> big(20000000, 1);
    std::cout << big[0] << "\n";"#,
            MEMORY,
        ),
        program(
            "unsigned long multiplication wraps",
            "",
            r#"    unsigned long a = 18446744073709551615ul;
    unsigned long b = a * a;
    std::cout << b << "\n";"#,
            OK,
        ),
        program(
            "unsigned long multiplication wraps in a kernel",
            "",
            r#"    std::vector<unsigned long> u(4);
    array_view<unsigned long, 1> uv(4, u);
    parallel_for_each(uv.extent, [=](index<1> i) restrict(amp) {
        unsigned long a = (unsigned long)0 - (unsigned long)(i[0] + 1);
        uv[i] = a * a;
    });
    uv.synchronize();
    std::cout << u[0] << " " << u[3] << "\n";"#,
            OK,
        ),
    ]
}

/// Kernels that never end, or would take far longer than the limit: each
/// must stop with R0009 within its 1 s time limit under both engines.
fn endless_cases() -> Vec<Case> {
    let mut cases = vec![
        flat(
            "infinite while loop in a kernel",
            8,
            "while (true) { av[i] = av[i] + 0; }",
            TIME,
        ),
        tiled(
            "infinite loop around a barrier",
            8,
            4,
            "for (;;) { t.barrier.wait(); }",
            TIME,
        ),
        flat(
            "infinite loop in one work-item",
            64,
            "if (i[0] == 40) { int k = 0; do { k = (k + 1) % 7; continue; } while (k >= 0); av[i] = k; }",
            TIME,
        ),
        flat(
            "nested short counted loops",
            4,
            "unsigned acc = 0u; for (int a = 0; a < 60000; a++) { for (int b = 0; b < 60000; b++) { for (int c = 0; c < 60000; c++) { acc ^= (unsigned)(a + b + c); } } } av[i] = (int)(acc % 7u);",
            TIME,
        ),
        flat(
            "a counted-looking loop that never reaches its bound",
            4,
            "unsigned acc = 0u; for (unsigned k = 0u; k != 7u; k += 2u) { acc += k; } av[i] = (int)(acc % 7u);",
            TIME,
        ),
        flat(
            "a loop counter reset in the body",
            4,
            "int n = 0; for (int k = 0; k < 10; k++) { n = (n + k) % 100; if (k == 8) { k = 0; } } av[i] = n;",
            TIME,
        ),
        on_ints(
            "a loop counter reset through a reference parameter",
            "void reset(int& k) restrict(amp) { if (k == 8) { k = 0; } }",
            4,
            r#"    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        int n = 0;
        for (int k = 0; k < 10; k++) { n = (n + k) % 100; reset(k); }
        av[i] = n;
    });"#,
            TIME,
        ),
        flat(
            "a loop of 2^40 iterations",
            4,
            "long s = 0; long n = (long)1048576 * (long)1048576; for (long k = 0; k < n; k++) { s = (s + k) % (long)1000; } av[i] = (int)s;",
            TIME,
        ),
        on_ints(
            "infinite host loop",
            "",
            4,
            "    int n = 0;\n    while (true) { n = (n + 1) % 7; v[n % 4] = n; }",
            TIME,
        ),
        on_ints(
            "nested short counted host loops",
            "",
            4,
            "    unsigned acc = 0u;\n    for (int a = 0; a < 60000; a++) { for (int b = 0; b < 60000; b++) { for (int c = 0; c < 60000; c++) { acc ^= (unsigned)(a + b + c); } } }\n    v[0] = (int)(acc % 7u);",
            TIME,
        ),
        on_ints(
            "kernel over a huge extent",
            "",
            4,
            r#"    parallel_for_each(extent<1>(2147483647), [=](index<1> i) restrict(amp) { if (i[0] < 4) { av[i] = av[i] + 1; } });"#,
            TIME,
        ),
        on_ints(
            "tiled kernel over a huge rank 2 extent",
            "",
            4,
            r#"    parallel_for_each(extent<2>(2147483584, 2147483584).tile<16, 16>(), [=](tiled_index<16, 16> t) restrict(amp) {
        t.barrier.wait();
        if (t.global[0] == 0 && t.global[1] < 4) { av[t.global[1]] = 5; }
    });"#,
            TIME,
        ),
    ];
    for c in &mut cases {
        c.limits = limits(SHORT_TIMEOUT, MAX_MEMORY);
        c.threads = vec![2];
    }
    cases
}

/// A helper that moves a counter by reference (for [`range_cases`] and
/// [`barrier_loop_cases`]).
const BUMP: &str = "int bump(int& k) restrict(amp, cpu) { k += 4; return k; }";

/// The JIT drops checks where it proves values in range (loop counters,
/// tile-local coordinates, single-assignment locals, masks, remainders):
/// counters and locals moved behind its back (in the body, through a
/// reference, by a helper), bounds changed in the loop, remainders of
/// negative values, loops that end by overflow.
fn range_cases() -> Vec<Case> {
    let f = |name: &str, body: &str, expect: Expect| {
        on_ints(
            name,
            BUMP,
            8,
            &format!(
                "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {{\n        \
                 int p[4] = {{1, 2, 3, 4}};\n        {body}\n    }});"
            ),
            expect,
        )
    };
    let t = |name: &str, body: &str, expect: Expect| {
        on_ints(
            name,
            BUMP,
            16,
            &format!(
                "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {{\n        \
                 tile_static int s[8];\n        {body}\n    }});"
            ),
            expect,
        )
    };
    vec![
        f(
            "counter moved in the body",
            "int s = 0; for (int k = 0; k < 4; k++) { k += 4; s += p[k]; } av[i] = s;",
            BOUNDS,
        ),
        f(
            "counter moved through a reference",
            "int s = 0; for (int k = 0; k < 4; k++) { int& r = k; r += 4; s += p[k]; } av[i] = s;",
            BOUNDS,
        ),
        f(
            "counter moved by a helper",
            "int s = 0; for (int k = 0; k < 4; k++) { bump(k); s += p[k]; } av[i] = s;",
            BOUNDS,
        ),
        f(
            "counter moved inside an index",
            "int s = 0; for (int k = 0; k < 4; k++) { s += p[k += 2]; } av[i] = s;",
            BOUNDS,
        ),
        f(
            "bound raised in the body",
            "int s = 0; int n = 4; for (int k = 0; k < n; k++) { n = 8; s += p[k]; } av[i] = s;",
            BOUNDS,
        ),
        f(
            "counter used after its loop",
            "int k = 0; for (; k < 4; k++) { p[k] += 1; } av[i] = p[k];",
            BOUNDS,
        ),
        f(
            "counter one past the bound with <=",
            "int s = 0; for (int k = 0; k <= 4; k++) { s += p[k]; } av[i] = s;",
            BOUNDS,
        ),
        f(
            "counter down to minus one",
            "int s = 0; for (int k = 3; k >= -1; k--) { s += p[k]; } av[i] = s;",
            BOUNDS,
        ),
        f(
            "sum of two counters",
            "int s = 0; for (int k = 0; k < 4; k++) { for (int j = 0; j < 4; j++) { s += p[k + j]; } } av[i] = s;",
            BOUNDS,
        ),
        f(
            "counters in range, then one constant past it",
            "int s = 0; for (int k = 0; k < 4; k++) { s += p[3 - k] + p[k * 2 - k] + p[(k + 1) % 4] + p[k / 2 + 2] + p[k & 3]; } av[i] = s + p[i[0] - 1];",
            BOUNDS,
        ),
        f(
            "remainder of a negative value",
            "int x = i[0] - 10; av[i] = p[x % 4];",
            BOUNDS,
        ),
        f(
            "mask and remainder of a negative value in range",
            "int x = i[0] - 10; av[i] = p[x & 3] + p[(unsigned)x % 4u] + p[(x % 4 + 4) % 4];",
            OK,
        ),
        f(
            "counter that overflows at the end of a <= loop",
            "int acc = 0; for (int k = 2147483600; k <= 2147483647; k++) { acc += 1; } av[i] = acc;",
            OVERFLOW,
        ),
        f(
            "counter that overflows with a large step",
            "int acc = 0; for (int k = 0; k < 2147483647; k += 1073741824) { acc += 1; } av[i] = acc;",
            OVERFLOW,
        ),
        f(
            "unsigned counter that wraps below zero",
            "int q[6] = {1, 2, 3, 4, 5, 6}; int s = 0; for (unsigned k = 5u; k <= 5u; k--) { s = s * 2 + q[k]; } av[i] = s + p[0];",
            OK,
        ),
        f(
            "counter shadowed by an inner counter",
            "int s = 0; for (int k = 0; k < 4; k++) { for (int k = 0; k < 100; k++) { s += k; } s += p[k]; } av[i] = s;",
            OK,
        ),
        t(
            "tile-local coordinate moved through a reference",
            "int x = t.local[0]; int& r = x; r = 10; s[x] = 1; t.barrier.wait(); av[t.global] = s[0];",
            BOUNDS,
        ),
        t(
            "tile-local coordinate moved by a helper",
            "int x = t.local[0]; bump(x); bump(x); s[x] = 1; t.barrier.wait(); av[t.global] = s[0];",
            BOUNDS,
        ),
        t(
            "tile-local coordinate times three",
            "int x = t.local[0] * 3; s[x] = 1; t.barrier.wait(); av[t.global] = s[0];",
            BOUNDS,
        ),
        t(
            "global coordinate where a local one would fit",
            "s[t.global[0]] = 1; t.barrier.wait(); av[t.global] = s[0];",
            BOUNDS,
        ),
        t(
            "remainder of a negative global coordinate",
            "int x = t.global[0] - 6; s[x % 8] = 1; t.barrier.wait(); av[t.global] = s[0];",
            BOUNDS,
        ),
        on_ints(
            "tile coordinates of a rank 2 tile swapped",
            "",
            16,
            r#"    array_view<int, 2> g(2, 8, v);
    parallel_for_each(g.extent.tile<2, 8>(), [=](tiled_index<2, 8> t) restrict(amp) {
        tile_static int s[2][8];
        s[t.local[0]][t.local[1]] = t.global[1];
        t.barrier.wait();
        g[t.global] = s[t.local[1]][t.local[0]];
    });"#,
            BOUNDS,
        ),
        on_ints(
            "tile coordinates of a rank 2 tile in range",
            "",
            16,
            r#"    array_view<int, 2> g(2, 8, v);
    parallel_for_each(g.extent.tile<2, 8>(), [=](tiled_index<2, 8> t) restrict(amp) {
        tile_static int s[8][2];
        s[t.local[1]][t.local[0]] = t.global[1] * 10 + t.global[0];
        t.barrier.wait();
        g[t.global] = s[7 - t.local[1]][1 - t.local[0]];
    });"#,
            OK,
        ),
        flat(
            "an unused division by zero still fails",
            8,
            "int unused = i[0] / (i[0] - 2);",
            DIV_ZERO,
        ),
        flat(
            "uninitialised private variables read as zero",
            8,
            "int q[4]; int y; if (i[0] == 0) { q[0] = 9; q[1] = 8; q[2] = 7; q[3] = 6; y = 3; } av[i] = q[i[0] % 4] + y * 100;",
            OK,
        ),
        tiled(
            "uninitialised frame locals and arrays read as zero in every tile",
            16,
            4,
            "int x; int q[4]; if (t.tile[0] == 0) { x = 5; q[t.local[0]] = 7; } t.barrier.wait(); av[t.global] = x * 10 + q[t.local[0]];",
            OK,
        ),
    ]
}

/// Loops and branches around barriers: counters shared by the tile,
/// `break` and `continue` on conditions the checker thinks uniform (a racy
/// counter makes them differ at run time), frame locals written through
/// references and helpers between barriers.
fn barrier_loop_cases() -> Vec<Case> {
    let t = |name: &str, body: &str, expect: Expect| {
        on_ints(
            name,
            BUMP,
            8,
            &format!(
                "    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {{\n        {body}\n    }});"
            ),
            expect,
        )
    };
    vec![
        t(
            "barrier loop counter moved by a racy amount",
            "int n = 0; for (int k = 0; k < 4; k++) { t.barrier.wait(); k += av[t.tile]++ % 2; n++; } av[t.global] = n;",
            DIVERGENCE,
        ),
        t(
            "break on a racy condition in a barrier loop",
            "int n = 0; for (int k = 0; k < 6; k++) { t.barrier.wait(); if (av[t.tile]++ % 3 == 1) { break; } n++; } av[t.global] = n;",
            DIVERGENCE,
        ),
        t(
            "continue on a racy condition in a barrier loop",
            "int n = 0; for (int k = 0; k < 6; k++) { t.barrier.wait(); if (av[t.tile]++ % 3 == 1) { continue; } n++; } av[t.global] = n;",
            Expect::Any,
        ),
        t(
            "barrier loop bound moved by a racy amount",
            "int n = 0; int lim = 3; for (int k = 0; k < lim; k++) { t.barrier.wait(); lim = 3 + (av[t.tile]++ % 2); n++; } av[t.global] = n;",
            DIVERGENCE,
        ),
        t(
            "frame local written through a reference between barriers",
            "int x = 1; t.barrier.wait(); int& r = x; r = 5 + t.local[0]; t.barrier.wait(); av[t.global] = x;",
            OK,
        ),
        t(
            "frame local written by a helper between barriers",
            "int x = 1; t.barrier.wait(); bump(x); t.barrier.wait(); av[t.global] = x;",
            OK,
        ),
        t(
            "frame local moved by a helper in a barrier loop",
            "int x = t.local[0]; int y = 0; for (int k = 0; k < 3; k++) { t.barrier.wait(); y += x; bump(x); } av[t.global] = x * 100 + y;",
            OK,
        ),
        t(
            "barrier loop counter moved by a helper",
            "int k = 0; int s = 0; while (k < 3) { t.barrier.wait(); s += k; bump(k); k -= 3; } av[t.global] = s * 10 + k;",
            OK,
        ),
        t(
            "frame array element written through a reference",
            "int p[3] = {1, 2, 3}; t.barrier.wait(); int& r = p[t.local[0] % 3]; r += 10; t.barrier.wait(); av[t.global] = p[0] + p[1] + p[2];",
            OK,
        ),
        t(
            "reference declared before a barrier, written after it",
            "int x = 1; int& r = x; t.barrier.wait(); r = 7 + t.local[0]; t.barrier.wait(); av[t.global] = x + r;",
            OK,
        ),
        t(
            "barrier loop counter read through a reference",
            "int n = 0; for (int k = 0; k < 4; k++) { t.barrier.wait(); int& r = k; n += r; } av[t.global] = n;",
            OK,
        ),
        t(
            "barrier loop counter used after the loop",
            "int n = 0; int k = 0; for (; k < 4; k++) { t.barrier.wait(); n += k; } av[t.global] = n * 10 + k;",
            OK,
        ),
        t(
            "two barrier loops with counters of one name",
            "int n = 0; for (int k = 0; k < 4; k++) { t.barrier.wait(); n += k; } av[t.global] = n; int m = 0; for (int k = 0; k < 2; k++) { t.barrier.wait(); m += k * t.local[0]; } av[t.global] += m;",
            OK,
        ),
        t(
            "barrier loop with a tile-dependent step",
            "int n = 0; for (int k = 0; k < 8; k += t.tile[0] + 1) { t.barrier.wait(); n += k; } av[t.global] = n;",
            OK,
        ),
        t(
            "return after the last barrier by some work-items",
            "t.barrier.wait(); if (t.local[0] % 2 == 0) { return; } av[t.global] = -1;",
            OK,
        ),
        t(
            "return in a barrier loop by the whole tile",
            "for (int k = 0; k < 4; k++) { t.barrier.wait(); if (k == t.tile[0] + 1) { return; } av[t.global] += k; }",
            OK,
        ),
        on_ints(
            "a barrier helper with a reference to a tile_static variable",
            "void accumulate(tiled_index<4> t, int& total, int v) restrict(amp) { if (t.local[0] == 0) { total = 0; } t.barrier.wait(); atomic_fetch_add(&total, v); t.barrier.wait(); }",
            8,
            r#"    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        tile_static int sum;
        accumulate(t, sum, av[t.global]);
        int first = sum;
        accumulate(t, sum, first + t.local[0]);
        av[t.global] = first * 1000 + sum;
    });"#,
            OK,
        ),
        on_ints(
            "barrier helpers with reference parameters to each work-item's variables",
            "void step(tiled_index<4> t, int& x, int by) restrict(amp) { x += by; t.barrier.wait(); x = x * 2 + t.local[0]; }\n\
             void two(tiled_index<4> t, int& x) restrict(amp) { int local = x % 5; step(t, x, local); t.barrier.wait(); step(t, x, 1); }",
            8,
            r#"    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        int x = t.global[0];
        int y = 100 - x;
        two(t, x);
        two(t, y);
        two(t, x);
        av[t.global] = x * 1000 + y;
    });"#,
            OK,
        ),
        on_ints(
            "a barrier helper with its own tile_static variable",
            "int shuffle(tiled_index<4> t, int v) restrict(amp) { tile_static int s[4]; s[t.local[0]] = v; t.barrier.wait(); int r = s[3 - t.local[0]]; t.barrier.wait(); return r; }",
            8,
            r#"    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        int a = shuffle(t, av[t.global]);
        int b = shuffle(t, a * 10);
        av[t.global] = a + b;
    });"#,
            OK,
        ),
    ]
}

/// Conversions between every pair of types that can go wrong in code
/// generation (sign and zero extension, `bool` from wide values, rounding
/// to `float`), compound assignments that convert, increments of floating
/// types and wrapping unsigned ones, comparisons with NaN, and the library
/// functions whose C semantics differ from the machine's instructions
/// (`round` halfway, `fmin`/`fmax` with NaN).
fn conversion_table_cases() -> Vec<Case> {
    vec![program(
        "a table of conversions and edge operations",
        "",
        r#"    std::vector<double> d(40);
    array_view<double, 1> dv(40, d);
    parallel_for_each(extent<1>(1), [=](index<1> i) restrict(amp) {
        int z = i[0];
        unsigned u = 4294967295u - (unsigned)z;
        long l = (long)u;
        long l2 = (int)u;
        unsigned long ul = (unsigned long)(int)(-1 - z);
        unsigned long ul2 = (unsigned long)u;
        bool b1 = (bool)(256 + z);
        bool b2 = (bool)((long)65536 * (long)65536 + (long)z);
        bool b3 = 0.5f + (float)z;
        bool b4 = -0.0f * (float)(z + 1);
        float f1 = (float)(16777217 + z);
        float f2 = (float)(2147483647 - z);
        float f3 = (float)u;
        double d1 = (double)ul;
        double d2 = (double)((long)134217728 * (long)67108864 + (long)(1 + z));
        float f4 = (float)ul;
        int x = 7 + z; x /= 2.0f;
        int y = 7 + z; y += 0.9;
        unsigned w = 5u + (unsigned)z; w -= 10;
        unsigned w2 = 5u; w2 *= -1;
        float ff = 16777216.0f + (float)z; ff++;
        double dd = 0.1 + (double)z; dd--;
        unsigned um = 4294967295u - (unsigned)z; um++;
        unsigned uz = (unsigned)z; uz--;
        int sh = (int)(0xF0000000u >> 28) + ((int)0xF0000000u >> 28) * 100;
        unsigned q = 4000000000u / 3000000000u + (unsigned)z;
        unsigned r = 4000000000u % 3000000000u + (unsigned)z;
        double rnd = precise_math::round(2.5 + (double)z) * 1000 + precise_math::round(-2.5) * 10 + fast_math::round(0.5f);
        double tr = precise_math::trunc(-2.7) + precise_math::ceil(-0.5) * 10;
        float nz = (float)z / 0.0f - (float)z / 0.0f;
        double vals[40] = {(double)l, (double)l2, (double)ul, (double)ul2, b1, b2, b3, b4, f1, f2, f3, d1, d2, f4,
            (double)x, (double)y, (double)w, (double)w2, ff, dd, (double)um, (double)uz, (double)sh, (double)q,
            (double)r, rnd, tr, nz, (double)(!0.0f), (double)(!nz), (double)(nz <= nz), (double)(nz > 0.0f || nz < 0.0f),
            (double)(!(nz == nz)), (double)(nz != 1.0f ? 1 : 2), precise_math::fmin(nz, 2.0), fast_math::fmax(nz, -2.0f),
            direct3d::clamp(nz, 0.0f, 1.0f), direct3d::saturate(2.5f), direct3d::rcp(0.0f), (double)direct3d::clamp(-5, 0, 3)};
        for (int k = 0; k < 40; k++) { dv[k] = vals[k]; }
    });
    dv.synchronize();
    std::cout << std::setprecision(20);
    for (int k = 0; k < 40; k++) { std::cout << k << ": " << d[k] << "\n"; }"#,
        OK,
    )]
}

/// Host loops, which the JIT compiles when they name only scalars, vectors
/// and views: each check, and the data they share with kernels.
fn host_loop_cases() -> Vec<Case> {
    let h = |name: &str, stmts: &str, expect: Expect| {
        on_ints(&format!("host loop: {name}"), "", 8, stmts, expect)
    };
    vec![
        h(
            "vector index one past the end",
            "    for (int k = 0; k <= 8; k++) { v[k] = v[k] * 2; }",
            BOUNDS,
        ),
        h(
            "vector index minus one",
            "    int s = 0; for (int k = 7; k >= -1; k--) { s += v[k]; } v[0] = s;",
            BOUNDS,
        ),
        h(
            "C array index past the end",
            "    int c[4] = {1, 2, 3, 4}; for (int k = 0; k < 8; k++) { v[k] = c[k]; }",
            BOUNDS,
        ),
        h(
            "view index past the end",
            "    for (int k = 0; k < 8; k++) { av[k + 1] = av[k]; }",
            BOUNDS,
        ),
        h(
            "signed overflow",
            "    int s = 2147483600; for (int k = 0; k < 8; k++) { s += v[k] * 10; } v[0] = s;",
            OVERFLOW,
        ),
        h(
            "INT_MIN / -1",
            "    int m = -2147483647 - 1; for (int k = 0; k < 8; k++) { v[k] = m / (k - 6); }",
            OVERFLOW,
        ),
        h(
            "division by zero",
            "    int s = 0; for (int k = 0; k < 8; k++) { s += 100 / (k - 5); } v[0] = s;",
            DIV_ZERO,
        ),
        h(
            "shift past the width",
            "    int s = 0; for (int k = 0; k < 8; k++) { s += 1 << (k * 5); } v[0] = s;",
            SHIFT,
        ),
        h(
            "float to int out of range",
            "    float f = 1e30f; for (int k = 0; k < 8; k++) { v[k] = (int)(f * (float)k); }",
            FLOAT_TO_INT,
        ),
        h(
            "break, continue and a nested loop",
            "    for (int k = 0; k < 8; k++) { if (k == 3) { continue; } if (k == 6) { break; } v[k] = -v[k]; for (int j = 0; j < k; j++) { v[k] += j; } }",
            OK,
        ),
        h(
            "references to elements and a double accumulator",
            "    for (int k = 0; k < 8; k++) { int& r = v[k]; r = r * r; } double d = 0.0; for (int k = 0; k < 8; k++) { d += 0.1 * v[k]; v[k] = (int)(d * 10.0); }",
            OK,
        ),
        h(
            "a vector of doubles and its size",
            "    std::vector<double> d(8); for (int k = 0; k < 8; k++) { d[k] = k * 0.5; } for (int k = 0; k < 8; k++) { v[k] = (int)(d[7 - k] * 4.0) + (int)d.size(); }",
            OK,
        ),
        h(
            "unsigned long arithmetic",
            "    unsigned long big = 3ul; for (int k = 0; k < 8; k++) { big = big * 6364136223846793005ul + 1442695040888963407ul; v[k] = (int)(big >> 40); }",
            OK,
        ),
        h(
            "reads through a view after a kernel, without synchronizing",
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 3; });\n    \
             for (int k = 0; k < 8; k++) { v[k] = av[7 - k] + v[k]; }",
            OK,
        ),
        h(
            "writes to the vector between kernels",
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 3; });\n    \
             av.synchronize();\n    for (int k = 0; k < 8; k++) { v[k] += 1; }\n    av.refresh();\n    \
             parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 100; });",
            OK,
        ),
        h(
            "writes through the view and to the vector between kernels",
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 3; });\n    \
             for (int k = 0; k < 8; k++) { av[k] += 1; }\n    \
             parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 100; });\n    \
             av.synchronize();\n    for (int k = 0; k < 8; k++) { v[k] -= 1; }",
            OK,
        ),
        h(
            "a copy of the vector between kernels",
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] * 3; });\n    \
             std::vector<int> w(8);\n    for (int k = 0; k < 8; k++) { w[k] = v[k] + av[k]; }\n    \
             for (int k = 0; k < 8; k++) { v[k] = w[k]; }",
            OK,
        ),
        h(
            "a loop that fails after a kernel wrote the vector",
            "    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = av[i] + 1000; });\n    \
             for (int k = 0; k < 8; k++) { std::cout << v[k] << \" \"; }\n    std::cout << \"\\n\";\n    \
             for (int k = 0; k < 9; k++) { v[k] = -v[k]; }",
            BOUNDS,
        ),
        h(
            "sections, rank 2 views and projections",
            "    array_view<int, 1> mid = av.section(2, 4);\n    array_view<int, 2> g(2, 4, v);\n    \
             for (int k = 0; k < 4; k++) { mid[k] = mid[k] * 10 + k; }\n    \
             for (int r = 0; r < 2; r++) { for (int c = 0; c < 4; c++) { g(r, c) += g[1 - r][3 - c]; } }",
            OK,
        ),
        h(
            "section index past its end, inside the storage",
            "    array_view<int, 1> mid = av.section(2, 4);\n    for (int k = 0; k < 5; k++) { mid[k] = -1; }",
            BOUNDS,
        ),
        h(
            "an array written by a kernel, read by a host loop",
            "    array<int, 1> arr(8, v.begin());\n    \
             parallel_for_each(arr.extent, [=, &arr](index<1> i) restrict(amp) { arr[i] = arr[i] * 7; });\n    \
             std::vector<int> w(8);\n    copy(arr, w.begin());\n    \
             for (int k = 0; k < 8; k++) { v[k] = w[k] + w[7 - k]; }",
            OK,
        ),
        on_ints(
            "host loop: a vector of structs",
            "struct Cell { int id; double w; };",
            8,
            "    std::vector<Cell> cells(8);\n    \
             for (int k = 0; k < 8; k++) { cells[k].id = k * 3; cells[k].w = 0.5 * k; }\n    \
             for (int k = 0; k < 8; k++) { v[k] = cells[7 - k].id + (int)(cells[k].w * 4.0); }",
            Expect::Any,
        ),
        h(
            "an unsigned long counter up to the size",
            "    for (unsigned long k = 0; k < v.size(); k++) { v[k] = (int)(k * k) - v[v.size() - 1 - k]; }",
            OK,
        ),
        h(
            "a negative long index",
            "    long at = 3; for (int k = 0; k < 8; k++) { at -= 1; v[at] = k; }",
            BOUNDS,
        ),
        on_ints(
            "host loop: a global counter",
            "int total = 0;",
            8,
            "    for (int k = 0; k < 8; k++) { total += v[k]; v[k] = total; }\n    std::cout << total << \"\\n\";",
            OK,
        ),
        on_ints(
            "host loop: in a helper taking a vector by reference",
            "void fill(std::vector<int>& w, int from) { for (int k = 0; k < (int)w.size(); k++) { w[k] = from - k * k; } }",
            8,
            "    fill(v, 100);\n    std::vector<int> w(3);\n    fill(w, -1);\n    v[0] = w[2];\n    fill(w, -2147483647);",
            OVERFLOW,
        ),
        h(
            "a loop of 2^31 steps of a long counter that ends",
            "    long s = 0; for (long k = 2147483640; k < 2147483650; k++) { s += k % 3; } v[0] = (int)s;",
            OK,
        ),
    ]
}

/// One kernel launched again and again with other data: sections at other
/// offsets, other extents (across the size of a chunk), other captured
/// values of every scalar type, many captures.
fn relaunch_cases() -> Vec<Case> {
    vec![
        program(
            "one kernel over sections at moving offsets",
            "",
            r#"    std::vector<int> v(36);
    for (int k = 0; k < 36; k++) { v[k] = k; }
    array_view<int, 2> g(6, 6, v);
    for (int r = 0; r < 5; r++) {
        array_view<int, 2> s = g.section(index<2>(r, 4 - r), extent<2>(2, 2));
        parallel_for_each(s.extent, [=](index<2> i) restrict(amp) { s[i] = s[i] * 2 + r; });
    }
    g.synchronize();
    for (int k = 0; k < 36; k++) { std::cout << v[k] << (k % 6 == 5 ? "\n" : " "); }"#,
            OK,
        ),
        program(
            "one kernel over growing extents",
            "",
            r#"    std::vector<int> v(9000);
    array_view<int, 1> av(9000, v);
    for (int n = 1; n <= 9000; n = n * 3 + 1) {
        parallel_for_each(extent<1>(n), [=](index<1> i) restrict(amp) { av[i] = av[i] + n; });
    }
    av.synchronize();
    long s = 0;
    for (int k = 0; k < 9000; k++) { s += (long)v[k] * (k % 7 + 1); }
    std::cout << s << " " << v[0] << " " << v[8999] << "\n";"#,
            OK,
        ),
        program(
            "rank 3 kernel over an extent across chunks",
            "",
            r#"    std::vector<int> v(2 * 3 * 3000);
    array_view<int, 3> c(2, 3, 3000, v);
    parallel_for_each(c.extent, [=](index<3> i) restrict(amp) { c[i] = i[0] * 7 + i[1] * 3 + i[2] % 11; });
    c.synchronize();
    long s = 0;
    for (int k = 0; k < 18000; k++) { s = (s * 7 + v[k]) % 1000003; }
    std::cout << s << "\n";"#,
            OK,
        ),
        program(
            "captures of every scalar type, changing between launches",
            "",
            r#"    std::vector<double> d(8);
    array_view<double, 1> dv(8, d);
    for (int r = 0; r < 3; r++) {
        bool flag = r % 2 == 1;
        int n = -3 * r;
        unsigned u = 4294967295u - (unsigned)r;
        long l = -4000000000 * (long)(r + 1);
        unsigned long ul = 18446744073709551615ul - (unsigned long)r;
        float f = 0.1f * r;
        double x = 1.0 / (r + 3);
        index<2> at(r, -r);
        extent<3> e(r + 1, 2, 3);
        parallel_for_each(dv.extent, [=](index<1> i) restrict(amp) {
            double vals[8] = {flag ? 1.0 : -1.0, (double)n, (double)u, (double)l, (double)(ul % (unsigned long)1000), (double)f, x, (double)(at[0] * 10 + at[1] + e.size())};
            dv[i] = dv[i] + vals[i[0]];
        });
    }
    dv.synchronize();
    std::cout << std::setprecision(17);
    for (int k = 0; k < 8; k++) { std::cout << d[k] << "\n"; }"#,
            OK,
        ),
        program(
            "a kernel with many captured views and scalars",
            "",
            r#"    std::vector<int> a(4, 1), b(4, 2), c(4, 3), d(4, 4), e(4, 5), f(4, 6), g(4, 7), h(4, 8);
    array_view<int, 1> va(4, a), vb(4, b), vc(4, c), vd(4, d), ve(4, e), vf(4, f), vg(4, g), vh(4, h);
    int s0 = 1, s1 = 2, s2 = 3, s3 = 4, s4 = 5, s5 = 6, s6 = 7, s7 = 8, s8 = 9, s9 = 10;
    parallel_for_each(va.extent, [=](index<1> i) restrict(amp) {
        int t = vb[i] + vc[i] * s0 + vd[i] * s1 + ve[i] * s2 + vf[i] * s3 + vg[i] * s4 + vh[i] * s5 + s6 + s7 + s8 + s9;
        va[i] = t + i[0];
        vh[i] = -t;
    });
    va.synchronize();
    vh.synchronize();
    for (int k = 0; k < 4; k++) { std::cout << a[k] << " " << h[k] << "\n"; }"#,
            OK,
        ),
        program(
            "compare-exchange writing back the expected value",
            "",
            r#"    std::vector<int> v(8);
    for (int k = 0; k < 8; k++) { v[k] = k; }
    array_view<int, 1> av(8, v);
    std::vector<int> w(8);
    array_view<int, 1> wv(8, w);
    parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
        int expected = 3;
        bool won = atomic_compare_exchange(&av[i], &expected, 100);
        int old = atomic_exchange(&av[i], av[i] + 1);
        wv[i] = expected * 1000 + (won ? 100 : 0) + old;
    });
    av.synchronize();
    wv.synchronize();
    for (int k = 0; k < 8; k++) { std::cout << v[k] << " " << w[k] << "\n"; }"#,
            OK,
        ),
    ]
}

/// What the JIT's own resources must not change: a private array too
/// large for a worker's stack, deep expressions, and barrier helpers
/// nested so deep that inlining them at the level of the barriers blows up.
fn resource_cases() -> Vec<Case> {
    let deep_sum = format!(
        "int x = i[0];\n        av[i] = {}x{};",
        "(x + ".repeat(300),
        ")".repeat(300)
    );
    let deep_minus = format!("av[i] = {}av[i];", "- ".repeat(300));
    let deep_ifs = format!("{}av[i] = -av[i];", "if (av[i] >= 0) ".repeat(200));
    let deep_loops = format!(
        "int n = 0;\n        {}n++;\n        av[i] = n;",
        (0..12)
            .map(|k| format!("for (int k{k} = 0; k{k} < 2; k{k}++) "))
            .collect::<String>()
    );
    // 2^depth barriers, as the interpreter meets them; the JIT inlines
    // every call at the level of the barriers.
    let barrier_tree = |depth: usize| -> String {
        (0..=depth)
            .map(|k| {
                if k == 0 {
                    "void w0(tiled_index<4> t, int& x) restrict(amp) { t.barrier.wait(); x = (x * 3 + t.local[0]) % 1000; }\n".to_string()
                } else {
                    format!(
                        "void w{k}(tiled_index<4> t, int& x) restrict(amp) {{ w{p}(t, x); x += 1; w{p}(t, x); }}\n",
                        p = k - 1
                    )
                }
            })
            .collect()
    };
    let mut barrier_heavy = on_ints(
        "barrier helpers nested 11 deep, under a time limit of 1 s",
        &barrier_tree(11),
        8,
        r#"    parallel_for_each(av.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        int x = t.global[0];
        w11(t, x);
        av[t.global] = x;
    });"#,
        OK,
    );
    barrier_heavy.threads = vec![1];
    barrier_heavy.limits.timeout = Some(SHORT_TIMEOUT);
    vec![
        on_ints(
            "private arrays of a tile beyond the memory limit",
            "",
            1024,
            r#"    parallel_for_each(av.extent.tile<1024>(), [=](tiled_index<1024> t) restrict(amp) {
        int big[60000];
        big[t.local[0]] = t.global[0];
        big[59999] = 1;
        t.barrier.wait();
        av[t.global] = big[t.local[0]] + big[59999];
    });"#,
            MEMORY,
        ),
        on_ints(
            "a private array too large for a worker's stack",
            "",
            8,
            r#"    parallel_for_each(extent<1>(12288), [=](index<1> i) restrict(amp) {
        if (i[0] >= 8) { return; }
        int big[4000000];
        big[3999999] = i[0];
        big[i[0]] = 3;
        av[i] = big[3999999] + big[0];
    });"#,
            OK,
        ),
        flat("an expression 300 sums deep", 8, &deep_sum, OK),
        flat("300 nested unary minuses", 8, &deep_minus, OK),
        flat("200 nested ifs", 8, &deep_ifs, OK),
        flat("12 nested loops", 8, &deep_loops, OK),
        barrier_heavy,
    ]
}

/// C++17 sequences the right operand of `=` and of every compound
/// assignment before the left one (and before reading the left operand's
/// value): an index or a variable changed by the right operand changes
/// which element is written, or the value that is combined. The order of
/// other operands (function arguments, `+`) is unspecified: only the
/// engines' agreement counts there.
fn sequencing_cases() -> Vec<Case> {
    let one = |name: &str, body: &str, expect: Expect| {
        on_ints(
            name,
            BUMP,
            4,
            &format!(
                "    parallel_for_each(extent<1>(1), [=](index<1> i) restrict(amp) {{\n        \
                 int k = 0;\n        {body}\n    }});"
            ),
            expect,
        )
    };
    vec![
        one(
            "assignment to a view element whose index the right operand changes",
            "av[k] = (k = 2);",
            OK,
        ),
        one(
            "compound assignment to a view element whose index the right operand changes",
            "av[k] += (k = 2);",
            OK,
        ),
        one(
            "assignment to a view element indexed by k++, of k",
            "av[k++] = k;",
            OK,
        ),
        one(
            "assignment to a private element whose index the right operand changes",
            "int p[4] = {0, 0, 0, 0}; p[k] = (k = 2); av[0] = p[0] * 10 + p[2];",
            OK,
        ),
        one(
            "compound assignment to a private element whose index the right operand changes",
            "int p[4] = {5, 6, 7, 8}; p[k] += (k += 3); av[0] = p[0] * 100 + p[3];",
            OK,
        ),
        one(
            "compound assignment whose right operand changes the variable",
            "k = 5; k += k++; av[0] = k;",
            OK,
        ),
        one(
            "element copied to the index after the one read",
            "int p[4] = {5, 6, 7, 8}; p[k] = p[k++]; av[0] = p[0] * 1000 + p[1] * 100 + k;",
            OK,
        ),
        one(
            "chained assignments with a side effect",
            "int a = 1; int b = 2; a = b = (k = 3) + k; av[0] = a * 100 + b * 10 + k;",
            OK,
        ),
        one(
            "places with side effects evaluated once",
            "int p[4] = {1, 2, 3, 4}; p[bump(k) % 4] += 1; p[k++ % 4] += 5; p[k++ % 4]++; ++p[k++ % 4]; av[bump(k) % 4]++; \
             atomic_fetch_add(&av[k++ % 4], 7); av[3] = k * 1000 + p[0] * 100 + p[1] * 10 + p[2];",
            OK,
        ),
        one(
            "conditional places and nested indices with side effects",
            "int a = 1; int b = 2; (k++ > 0 ? a : b) = 5; (k++ > 0 ? a : b) += 7; int q[2][2] = {{1, 2}, {3, 4}}; \
             k = 0; q[k++][k++] = 9; av[0] = a * 100 + b * 10 + k; av[1] = q[0][1] * 10 + q[1][0];",
            OK,
        ),
        one(
            "function arguments with side effects",
            "av[0] = (bump(k) << (bump(k) % 8)) + bump(k) / 3; av[1] = bump(k) * 10 + bump(k); av[2] = (bump(k), bump(k)) + (k > 5 && bump(k) > 0) + (k < 5 || bump(k) > 0);",
            OK,
        ),
        on_ints(
            "host loop: assignment to an element whose index the right operand changes",
            "",
            4,
            "    int k = 0;\n    for (int r = 0; r < 2; r++) { v[k] = (k = 2 + r); v[k] += (k = 3 - r); }",
            OK,
        ),
    ]
}
