//! The checker's robustness rule: any tree the parser accepts yields a typed
//! program and diagnostics, never a panic, a hang or a stack overflow, and
//! every diagnostic points into the text and renders.
//!
//! [`mutated_samples_never_break_the_checker`] mutates every sample with a
//! deterministic PRNG and compiles each mutant with
//! `tessera_driver::compile_source`, which checks every item that parsed,
//! also beside syntax errors.
//! Byte-level mutants (`tessera_testkit::mutate`) rarely parse, so most
//! mutants are semantic (`tessera_testkit::semantic`): the syntax stays valid
//! but names, literals, restrictions, barriers, captures, tile sizes and
//! declarations change. `TESSERA_FUZZ_SEED` and `TESSERA_FUZZ_ITERS` pick
//! the seed and the number of mutants. The mutant being tried is written to
//! `target/fuzz-failure-check.amp` (with a description in
//! `target/fuzz-failure-check.txt`) before it is parsed, and removed when the
//! run passes, so after a panic, an abort (stack overflow) or a hang that file
//! reproduces the problem: `tessera check target/fuzz-failure-check.amp`.
//!
//! The checker recurses over the tree, whose height the parser bounds
//! (`tessera_syntax::ast::MAX_HEIGHT`), so it runs on a thread with a 64 MiB
//! stack: frames are large in the dev profile, which `cargo test` uses.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};
use tessera_diagnostics::{Code, Diagnostic, Phase, SourceFile, Sources, render};
use tessera_testkit::harness::{
    check_span, count_panics, env_number, panic_text, panics_here, run_watched,
};
use tessera_testkit::mutate::{self, Rng};
use tessera_testkit::samples::{self, Sample};
use tessera_testkit::semantic;

/// Stack of the thread that parses and checks.
const STACK: usize = 64 << 20;

/// How long the fuzz loop may go without finishing a mutant.
const MUTANT_LIMIT: Duration = Duration::from_secs(30);

/// Mutants tried when `TESSERA_FUZZ_ITERS` is not set.
const DEFAULT_ITERS: usize = 800;

/// Seed used when `TESSERA_FUZZ_SEED` is not set (fixed, so CI is repeatable).
const DEFAULT_SEED: u64 = 0x7E55_E7A0_C4EC_2026;

// ------------------------------------------------------------------ checks

/// Checks the spans of every diagnostic; with `show`, renders each as the
/// CLI does (without colour).
fn check_diagnostics(sources: &Sources, diags: &[Diagnostic], show: bool) -> Result<(), String> {
    for (i, d) in diags.iter().enumerate() {
        let what = format!("diagnostic {i} ({} {:?})", d.code, d.message);
        check_span(sources, d.primary.span, &what)?;
        for label in &d.secondary {
            check_span(sources, label.span, &format!("{what}, secondary label"))?;
        }
        if show {
            let text = render::render(d, sources, false);
            let severity = if d.is_error() { "error" } else { "warning" };
            if !text.starts_with(&format!("{severity}[{}]", d.code)) {
                let head: String = text.chars().take(200).collect();
                return Err(format!("{what}: odd rendering {head:?}"));
            }
        }
    }
    Ok(())
}

/// What became of one mutant.
enum Fate {
    /// The parser reported an error; the checker did not run.
    ParseError,
    /// Checked; the codes of the checker's diagnostics.
    Checked(Vec<Code>),
}

/// Compiles `bytes` (the checker checks what parsed, also beside syntax
/// errors); checks and renders the diagnostics.
fn exercise(bytes: &[u8]) -> Result<Fate, String> {
    let mut sources = Sources::new();
    let checked = tessera_driver::compile_source(&mut sources, "mutant.amp", bytes);
    let (checker, front): (Vec<Diagnostic>, Vec<Diagnostic>) = checked
        .diagnostics
        .into_iter()
        .partition(|d| d.code.info().is_some_and(|i| i.phase == Phase::Check));
    // The front end's own test renders these; only their spans here.
    check_diagnostics(&sources, &front, false)?;
    check_diagnostics(&sources, &checker, true)?;
    if front.iter().any(Diagnostic::is_error) {
        return Ok(Fate::ParseError);
    }
    Ok(Fate::Checked(checker.iter().map(|d| d.code).collect()))
}

// ------------------------------------------------------------------ fuzzing

fn failure_path(ext: &str) -> PathBuf {
    samples::target_dir().join(format!("fuzz-failure-check.{ext}"))
}

/// Counts of what the mutants did.
#[derive(Default)]
struct Stats {
    parse_errors: usize,
    checked: usize,
    checked_with_errors: usize,
    codes: BTreeSet<Code>,
    bytes: usize,
}

/// One mutant of `original`: semantic three times in four, byte-level
/// otherwise. Returns the bytes and a description.
fn mutant(rng: &mut Rng, original: &Sample, donors: &[Vec<u8>]) -> (Vec<u8>, String) {
    if rng.below(4) == 0 {
        let m = mutate::mutate(rng, &original.bytes, donors);
        (m.bytes, format!(" bytes:{}", m.log))
    } else {
        let m = semantic::mutate(rng, &original.text());
        (m.text.into_bytes(), format!(" semantic:{}", m.log))
    }
}

/// The fuzz loop; `Err` describes the first failure.
fn fuzz(
    seed: u64,
    iters: usize,
    samples: &[Sample],
    progress: &AtomicUsize,
) -> Result<String, String> {
    let started = Instant::now();
    let donors: Vec<Vec<u8>> = samples.iter().map(|s| s.bytes.clone()).collect();
    let _ = std::fs::create_dir_all(samples::target_dir());
    let mut stats = Stats::default();
    for i in 0..iters {
        let sample = &samples[i % samples.len()];
        // Each mutant has its own stream, so changing one changes no other.
        let mut rng = Rng::for_mutant(seed, i);
        let (bytes, log) = mutant(&mut rng, sample, &donors);
        let about = format!(
            "TESSERA_FUZZ_SEED={seed:#x}, mutant {i} of {} ({} bytes):{log}",
            sample.name,
            bytes.len()
        );
        let _ = std::fs::write(failure_path("amp"), &bytes);
        let _ = std::fs::write(failure_path("txt"), &about);

        let panics_before = panics_here();
        let result = catch_unwind(AssertUnwindSafe(|| exercise(&bytes)));
        let problem = match result {
            Ok(Ok(fate)) if panics_here() == panics_before => {
                match fate {
                    Fate::ParseError => stats.parse_errors += 1,
                    Fate::Checked(codes) => {
                        stats.checked += 1;
                        stats.checked_with_errors += usize::from(!codes.is_empty());
                        stats.codes.extend(codes);
                    }
                }
                None
            }
            Ok(Ok(_)) => Some("a panic was caught inside the compiler or the renderer".to_string()),
            Ok(Err(broken)) => Some(broken),
            Err(payload) => Some(format!("panic: {}", panic_text(&*payload))),
        };
        if let Some(problem) = problem {
            return Err(format!(
                "{problem}\n  {about}\n  the mutant is in {}",
                failure_path("amp").display()
            ));
        }
        stats.bytes += bytes.len();
        progress.store(i + 1, Ordering::Relaxed);
    }
    // A guard against mutations that stop reaching the checker.
    if stats.checked < iters / 2 || stats.checked_with_errors == 0 {
        return Err(format!(
            "only {} of {iters} mutants reached the checker ({} with diagnostics)",
            stats.checked, stats.checked_with_errors
        ));
    }
    let codes: Vec<&str> = stats.codes.iter().map(|c| c.as_str()).collect();
    Ok(format!(
        "{iters} mutants, {} KiB, {:.1?}: {} rejected by the parser, {} checked \
         ({} with diagnostics; codes {})",
        stats.bytes >> 10,
        started.elapsed(),
        stats.parse_errors,
        stats.checked,
        stats.checked_with_errors,
        codes.join(" ")
    ))
}

#[test]
fn mutated_samples_never_break_the_checker() {
    count_panics();
    let seed = env_number("TESSERA_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let iters = env_number("TESSERA_FUZZ_ITERS").map_or(DEFAULT_ITERS, |n| n as usize);
    let samples = samples::load();
    let outcome = run_watched(
        "fuzz-check",
        STACK,
        MUTANT_LIMIT,
        move |progress| fuzz(seed, iters, &samples, progress),
        || {
            let about = std::fs::read_to_string(failure_path("txt")).unwrap_or_default();
            format!("{about}\nreproduce with {}", failure_path("amp").display())
        },
    );
    match outcome {
        Ok(stats) => {
            let _ = std::fs::remove_file(failure_path("amp"));
            let _ = std::fs::remove_file(failure_path("txt"));
            eprintln!("fuzz (checker): seed {seed:#x}, {stats}");
        }
        Err(message) => panic!("{message}"),
    }
}

/// The unmutated samples pass the checker without an error: the baseline
/// the mutants depart from.
#[test]
fn samples_check_without_errors() {
    let worker = thread::Builder::new()
        .name("samples".into())
        .stack_size(STACK)
        .spawn(|| {
            for sample in samples::load() {
                let mut sources = Sources::new();
                let checked =
                    tessera_driver::compile_source(&mut sources, &sample.name, &sample.bytes);
                let errors: Vec<String> = checked
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| render::render(d, &sources, false))
                    .collect();
                assert!(errors.is_empty(), "{}:\n{}", sample.name, errors.concat());
            }
        })
        .expect("spawn a checking thread");
    if let Err(payload) = worker.join() {
        panic!("{}", panic_text(&*payload));
    }
}

// ------------------------------------------------------------------ deep trees

/// A shape of nest: its name, and the statements nesting it `n` deep.
type Shape = (&'static str, fn(usize) -> String);

/// `body` in a host function, or (with `amp`) in a kernel.
fn program_with(body: &str, amp: bool) -> String {
    let head = "#include <amp.h>\nusing namespace concurrency;\n\
                int f(int a) restrict(amp, cpu) { return a; }\n";
    if amp {
        format!(
            "{head}int main() {{\n    std::vector<int> v(4);\n    array_view<int, 1> av(4, v);\n    \
             parallel_for_each(av.extent, [=](index<1> idx) restrict(amp) {{\n        \
             int x = 1;\n{body}\n        av[idx] = x;\n    }});\n    return 0;\n}}\n"
        )
    } else {
        format!("{head}int main() {{\n    int x = 1;\n{body}\n    return x;\n}}\n")
    }
}

/// Deep trees of each shape, as deep as the parser accepts (the height is
/// bounded by `tessera_syntax::ast::MAX_HEIGHT`), in host code and in a
/// kernel: the checker's recursion must fit the stack (about 4 MiB was
/// enough in the dev profile when this was written).
#[test]
fn deepest_trees_pass_the_checker() {
    let shapes: [Shape; 11] = [
        ("unary minus", |n| format!("x = {}1;", "- ".repeat(n))),
        ("calls", |n| {
            format!("x = {}1{};", "f(".repeat(n), ")".repeat(n))
        }),
        ("blocks", |n| {
            format!("{}x = 2;{}", "{".repeat(n), "}".repeat(n))
        }),
        ("ifs", |n| format!("{}x = 2;", "if (x) ".repeat(n))),
        ("else-if chain", |n| {
            format!("{}x = 0;", "if (x) x = 1; else ".repeat(n))
        }),
        ("ternaries", |n| format!("x = {}0;", "x ? 1 : ".repeat(n))),
        ("assignments", |n| format!("{}0;", "x = ".repeat(n))),
        ("casts", |n| {
            format!("x = {}x{};", "static_cast<int>(".repeat(n), ")".repeat(n))
        }),
        ("sums", |n| format!("x = 1{};", " + 1".repeat(n))),
        ("while loops", |n| {
            format!("{}x = 2;", "while (x) ".repeat(n))
        }),
        ("for loops", |n| {
            format!("{}x = 2;", "for (int i = 0; i < 2; i++) ".repeat(n))
        }),
    ];
    let worker = thread::Builder::new()
        .name("deep".into())
        .stack_size(STACK)
        .spawn(move || {
            let max = tessera_syntax::ast::MAX_HEIGHT as usize;
            for (name, shape) in shapes {
                for amp in [false, true] {
                    let what = format!("{name}{}", if amp { " in a kernel" } else { "" });
                    // The deepest nest the parser takes (E0104 past it).
                    let deepest = (0..max).rev().step_by(5).find_map(|depth| {
                        let text = program_with(&shape(depth), amp);
                        let mut sources = Sources::new();
                        let id = sources.add(SourceFile {
                            name: "deep.amp".into(),
                            text,
                        });
                        let parsed = tessera_syntax::parse_file(&sources, id, &[]);
                        (!parsed.has_errors()).then_some((depth, sources, parsed))
                    });
                    let Some((depth, sources, parsed)) = deepest else {
                        panic!("{what}: no depth parses");
                    };
                    assert!(depth + 100 > max, "{what}: only {depth} deep parses");
                    let checked =
                        tessera_driver::check_parsed(&sources, &parsed.unit, parsed.diagnostics);
                    if let Err(problem) = check_diagnostics(&sources, &checked.diagnostics, true) {
                        panic!("{what}, {depth} deep: {problem}");
                    }
                }
            }
        })
        .expect("spawn a checking thread");
    if let Err(payload) = worker.join() {
        panic!("{}", panic_text(&*payload));
    }
}
