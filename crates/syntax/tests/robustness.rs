//! The front end's robustness rule: any byte sequence yields diagnostics or a
//! clean result, never a panic, a hang or a stack overflow.
//!
//! Two kinds of test live here:
//!
//! - [`mutated_samples_never_break_the_front_end`], a fuzz-style property
//!   test: a deterministic PRNG mutates the samples at byte and token level
//!   and every mutant goes through the whole front end, then through the
//!   diagnostic renderers. `TESSERA_FUZZ_SEED` and `TESSERA_FUZZ_ITERS` pick
//!   the seed and the number of mutants. The mutant being tried is written to
//!   `target/fuzz-failure.amp` before it is parsed and removed when the run
//!   passes, so after a panic, an abort (stack overflow) or a hang that file
//!   reproduces the problem: `tessera check target/fuzz-failure.amp`.
//! - named adversarial inputs (deep nesting, huge lines, runaway macros, ...),
//!   each parsed on a thread with an ordinary 8 MiB stack, not the CLI's big
//!   one, to show that the front end's own bounds keep it safe.
//!
//! The PRNG, the mutations and the samples come from `tessera-testkit`.
//!
//! Everything runs in the dev profile under `cargo test`.

use serde_json::Value;
use std::fmt::Write as _;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};
use tessera_diagnostics::{
    Code, Diagnostic, FileId, SourceFile, Sources, Span, codes, json, render,
};
use tessera_syntax::{MAX_SOURCE_LEN, ParseSession, Parsed, parse_file, parse_in, parse_stmts_in};
use tessera_testkit::harness::{
    check_span, count_panics, env_number, panic_text, panics_here, run_watched,
};
use tessera_testkit::mutate::{Mutant, Rng, mutate};
use tessera_testkit::samples::{self, Sample};

/// Stack of the threads that parse: the default of a main thread on Linux,
/// far below the CLI's.
const STACK: usize = 8 << 20;

/// How long one adversarial input may take before it counts as a hang. Each
/// takes well under this in the dev profile; the margin absorbs slow CI.
const CASE_LIMIT: Duration = Duration::from_secs(60);

/// How long the fuzz loop may go without finishing a mutant.
const MUTANT_LIMIT: Duration = Duration::from_secs(30);

/// Mutants tried when `TESSERA_FUZZ_ITERS` is not set.
const DEFAULT_ITERS: usize = 1500;

/// Seed used when `TESSERA_FUZZ_SEED` is not set (fixed, so CI is repeatable).
const DEFAULT_SEED: u64 = 0x7E55_E7A0_F022_2026;

// ------------------------------------------------------------------ checks

/// Which diagnostics [`check_diagnostics`] renders.
#[derive(Clone, Copy, PartialEq)]
enum Show {
    /// All, as text and as JSON.
    All,
    /// The first five and the last two, as text and as JSON (rendering
    /// costs time in proportion to the file for each diagnostic).
    Ends,
    /// The first five and the last two, as JSON only.
    EndsJson,
    /// None.
    Nothing,
}

/// Checks the spans of every diagnostic, and renders (as text and as JSON)
/// those `show` asks for. Text goes through a [`render::Renderer`], as in
/// the CLI; the first one also through [`render::render`], which must agree.
fn check_diagnostics(sources: &Sources, diags: &[Diagnostic], show: Show) -> Result<(), String> {
    let n = diags.len();
    let mut renderer = render::Renderer::new(sources, false);
    let mut compared = false;
    for (i, d) in diags.iter().enumerate() {
        let what = format!("diagnostic {i} ({} {:?})", d.code, d.message);
        check_span(sources, d.primary.span, &what)?;
        for label in &d.secondary {
            check_span(sources, label.span, &format!("{what}, secondary label"))?;
        }
        let at_ends = i < 5 || i + 2 >= n;
        let (as_text, as_json) = match show {
            Show::All => (true, true),
            Show::Ends => (at_ends, at_ends),
            Show::EndsJson => (false, at_ends),
            Show::Nothing => (false, false),
        };
        if as_text {
            let text = renderer.render(d);
            if !compared {
                compared = true;
                if render::render(d, sources, false) != text {
                    return Err(format!("{what}: `render` and `Renderer` disagree"));
                }
            }
            let severity = if d.is_error() { "error" } else { "warning" };
            // Without colour there is no escape sequence, except those the
            // renderer copies from the source lines it quotes (a known issue).
            let escapes_in_source = sources
                .get(d.primary.span.file)
                .is_some_and(|f| f.text.contains('\x1b'));
            if !text.starts_with(&format!("{severity}[{}]", d.code))
                || (text.contains('\x1b') && !escapes_in_source)
            {
                return Err(format!(
                    "{what}: odd rendering {:?}",
                    first_chars(&text, 200)
                ));
            }
        }
        if !as_json {
            continue;
        }
        let line = json::to_json(d, sources);
        let value: Value = serde_json::from_str(&line)
            .map_err(|e| format!("{what}: invalid JSON ({e}): {line}"))?;
        if line.contains('\n') || value["code"] != d.code.as_str() {
            return Err(format!("{what}: odd JSON {line}"));
        }
    }
    Ok(())
}

/// Checks every span in a syntax tree, found generically in its JSON form
/// (every `Span` serialises as `{"file", "start", "end"}`).
fn check_tree_spans(sources: &Sources, tree: &Value) -> Result<(), String> {
    let mut stack = vec![tree];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                if let (Some(file), Some(start), Some(end), 3) =
                    (map.get("file"), map.get("start"), map.get("end"), map.len())
                {
                    let field = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
                    if let (Some(file), Some(start), Some(end)) =
                        (field(file), field(start), field(end))
                    {
                        let span = Span {
                            file: FileId(file),
                            start,
                            end,
                        };
                        check_span(sources, span, "syntax tree")?;
                        continue;
                    }
                }
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    Ok(())
}

fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn codes_of(parsed: &Parsed) -> Vec<Code> {
    parsed.diagnostics.iter().map(|d| d.code).collect()
}

// ------------------------------------------------------------------ fuzzing

fn failure_path(ext: &str) -> PathBuf {
    samples::target_dir().join(format!("fuzz-failure.{ext}"))
}

/// Runs one mutant through everything a user can reach: `parse_file`, the
/// `tokens` dump, and (with `session`) a REPL-style second input after the
/// unmutated sample, read both as declarations and as statements; then checks
/// and renders every diagnostic.
fn exercise(original: &[u8], mutant: &[u8], session: bool) -> Result<(), String> {
    let mut sources = Sources::new();
    let (file, replaced) = SourceFile::from_bytes("mutant.amp", mutant);
    let id = sources.add(file);
    let parsed = parse_file(&sources, id, &replaced);
    check_diagnostics(&sources, &parsed.diagnostics, Show::All)?;
    let tree =
        serde_json::to_value(&parsed.unit).map_err(|e| format!("tree does not serialise: {e}"))?;
    check_tree_spans(&sources, &tree)?;
    drop(tree);
    black_box(tessera_syntax::pretty::dump(&parsed.unit, &sources));
    drop(parsed);

    let text = sources.get(id).map_or("", |f| f.text.as_str());
    let (tokens, diags) = tessera_syntax::tokens(id, text, &replaced);
    for t in &tokens {
        check_span(&sources, t.span_in(id), &format!("token {:?}", t.tok))?;
    }
    check_diagnostics(&sources, &diags, Show::Nothing)?;

    if session {
        let mut sources = Sources::new();
        let (first, first_replaced) = SourceFile::from_bytes("first.amp", original);
        let (second, second_replaced) = SourceFile::from_bytes("second.amp", mutant);
        let first = sources.add(first);
        let second = sources.add(second);
        let texts: Vec<&str> = [first, second]
            .iter()
            .map(|&f| sources.get(f).map_or("", |f| f.text.as_str()))
            .collect();
        let mut session = ParseSession::default();
        let a = parse_in(&mut session, first, texts[0], &first_replaced);
        let mut stmt_session = session.clone();
        let b = parse_in(&mut session, second, texts[1], &second_replaced);
        let c = parse_stmts_in(&mut stmt_session, second, texts[1], &second_replaced);
        check_diagnostics(&sources, &a.diagnostics, Show::Nothing)?;
        check_diagnostics(&sources, &b.diagnostics, Show::All)?;
        check_diagnostics(&sources, &c.diagnostics, Show::All)?;
    }
    Ok(())
}

#[test]
fn mutated_samples_never_break_the_front_end() {
    count_panics();
    let seed = env_number("TESSERA_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let iters = env_number("TESSERA_FUZZ_ITERS").map_or(DEFAULT_ITERS, |n| n as usize);
    let samples = samples::load();
    let outcome = run_watched(
        "fuzz",
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
            eprintln!("fuzz: seed {seed:#x}, {stats}");
        }
        Err(message) => panic!("{message}"),
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
    let _ = std::fs::create_dir_all(failure_path("amp").parent().unwrap_or(Path::new(".")));
    let mut bytes_total = 0usize;
    for i in 0..iters {
        let Sample {
            name,
            bytes: original,
        } = &samples[i % samples.len()];
        // Each mutant has its own stream, so changing one changes no other.
        let mut rng = Rng::for_mutant(seed, i);
        let Mutant { bytes: mutant, log } = mutate(&mut rng, original, &donors);
        let session = i % 8 == 7;
        let about = format!(
            "TESSERA_FUZZ_SEED={seed:#x}, mutant {i} of {name} ({} bytes):{log}",
            mutant.len()
        );
        let _ = std::fs::write(failure_path("amp"), &mutant);
        let _ = std::fs::write(failure_path("txt"), &about);

        let panics_before = panics_here();
        let result = catch_unwind(AssertUnwindSafe(|| exercise(original, &mutant, session)));
        let problem = match result {
            Ok(Ok(())) if panics_here() == panics_before => None,
            Ok(Ok(())) => {
                Some("a panic was caught inside the front end or the renderer".to_string())
            }
            Ok(Err(broken)) => Some(broken),
            Err(payload) => Some(format!("panic: {}", panic_text(&*payload))),
        };
        if let Some(problem) = problem {
            return Err(format!(
                "{problem}\n  {about}\n  the mutant is in {}",
                failure_path("amp").display()
            ));
        }
        bytes_total += mutant.len();
        progress.store(i + 1, Ordering::Relaxed);
    }
    Ok(format!(
        "{iters} mutants, {} KiB, {:.1?}",
        bytes_total >> 10,
        started.elapsed()
    ))
}

// ------------------------------------------------------------------ adversarial inputs

/// What an adversarial input gave.
#[derive(Debug)]
struct Outcome {
    codes: Vec<Code>,
    items: usize,
}

impl Outcome {
    fn has(&self, code: Code) -> bool {
        self.codes.contains(&code)
    }

    fn is_clean(&self) -> bool {
        self.codes.is_empty()
    }
}

/// Parses `bytes` on a fresh thread with an 8 MiB stack, checks and renders
/// the diagnostics (all of their spans; the text of the first and last few),
/// and drops the result on that thread. Fails on a panic or after
/// [`CASE_LIMIT`].
fn run_case(name: &str, bytes: Vec<u8>) -> Outcome {
    run_on_small_stack(name, move || {
        let (file, replaced) = SourceFile::from_bytes("case.amp", &bytes);
        drop(bytes);
        let mut sources = Sources::new();
        let id = sources.add(file);
        parse_and_check(&sources, id, &replaced, Show::Ends)
    })
}

/// `run_case` for a whole program: the parts of the standard headers
/// written in the Tessera language (`<chrono>`, `<array>`) are read as the
/// driver reads them, so their templates are known names.
fn run_program(name: &str, bytes: Vec<u8>) -> Outcome {
    run_on_small_stack(name, move || {
        let (file, replaced) = SourceFile::from_bytes("case.amp", &bytes);
        drop(bytes);
        let mut sources = Sources::new();
        let id = sources.add(file);
        let parsed = tessera_syntax::parse_with_library(&mut sources, id, &replaced);
        if let Err(problem) = check_diagnostics(&sources, &parsed.diagnostics, Show::Ends) {
            panic!("{problem}");
        }
        Outcome {
            codes: codes_of(&parsed),
            items: parsed.unit.items.len(),
        }
    })
}

fn parse_and_check(sources: &Sources, id: FileId, replaced: &[usize], show: Show) -> Outcome {
    let parsed = parse_file(sources, id, replaced);
    // The tree's printers recurse over it, which its bounded height allows.
    black_box(tessera_syntax::pretty::dump(&parsed.unit, sources));
    black_box(serde_json::to_string(&parsed.unit).expect("the tree serialises"));
    if let Err(problem) = check_diagnostics(sources, &parsed.diagnostics, show) {
        panic!("{problem}");
    }
    let outcome = Outcome {
        codes: codes_of(&parsed),
        items: parsed.unit.items.len(),
    };
    drop(parsed);
    outcome
}

fn run_on_small_stack<T: Send + 'static>(
    name: &str,
    job: impl FnOnce() -> T + Send + 'static,
) -> T {
    count_panics();
    let (tx, rx) = mpsc::channel();
    let handle = thread::Builder::new()
        .name(format!("adversarial {name}"))
        .stack_size(STACK)
        .spawn(move || {
            let panics_before = panics_here();
            let value = job();
            let _ = tx.send((value, panics_here() - panics_before));
        })
        .expect("spawn a parsing thread");
    match rx.recv_timeout(CASE_LIMIT) {
        Ok((value, 0)) => value,
        Ok((_, caught)) => {
            panic!("{name}: {caught} panic(s) caught inside the front end or the renderer")
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name}: not finished after {CASE_LIMIT:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let why = handle
                .join()
                .err()
                .map(|p| panic_text(&*p))
                .unwrap_or_default();
            panic!("{name}: panicked: {why}");
        }
    }
}

fn main_with(body: &str) -> Vec<u8> {
    format!(
        "int f(int a) {{ return a; }}\nint main() {{\n    int x = 1;\n{body}\n    return 0;\n}}\n"
    )
    .into_bytes()
}

fn assert_code(name: &str, outcome: &Outcome, code: Code) {
    assert!(
        outcome.has(code),
        "{name}: expected {code}, got {:?}",
        outcome.codes
    );
}

const DEEP: usize = 10_000;

#[test]
fn invalid_utf8_is_e0002() {
    let mut src =
        b"int main() {\n    int x\xff\xfe = 1;\n    // \xc3\n    return 0;\n}\n\xe2\x82".to_vec();
    src.extend_from_slice(b"\xed\xa0\x80\xf4\x90\x80\x80");
    let out = run_case("invalid UTF-8", src);
    assert_code("invalid UTF-8", &out, codes::E0002);
    assert!(
        out.codes.iter().all(|&c| c != codes::E0001),
        "replacement reported twice: {:?}",
        out.codes
    );
}

#[test]
fn nul_bytes_are_e0001() {
    let out = run_case("NUL", b"int main() {\0\n    return \x000;\n}\0".to_vec());
    assert_code("NUL", &out, codes::E0001);
    let only_nuls = run_case("only NUL", vec![0; 100_000]);
    assert_code("only NUL", &only_nuls, codes::E0001);
}

#[test]
fn ten_megabyte_expression_line_is_e0104() {
    // Ten-digit operands keep the token count, and so the time in the dev
    // profile, moderate (1.7 million tokens); the dense chain after it has
    // a token per byte.
    let mut body = String::with_capacity(10 << 20);
    body.push_str("    int y = 1");
    while body.len() < 10 << 20 {
        body.push_str(" + 1000000000");
    }
    body.push(';');
    let out = run_case("10 MB expression", main_with(&body));
    assert_eq!(out.codes, vec![codes::E0104], "10 MB expression");
    assert_eq!(out.items, 2);

    let dense = format!("    int y = 1{};", "+1".repeat(1 << 19));
    let out = run_case("1 MB dense expression", main_with(&dense));
    assert_eq!(out.codes, vec![codes::E0104], "1 MB dense expression");
}

#[test]
fn ten_megabyte_comment_line_is_clean() {
    let mut src = String::with_capacity(10 << 20);
    src.push_str("// ");
    while src.len() < 10 << 20 {
        src.push_str("comment ");
    }
    src.push_str("\nint main() { return 0; }\n");
    let out = run_case("10 MB comment", src.into_bytes());
    assert!(out.is_clean(), "10 MB comment: {:?}", out.codes);
    assert_eq!(out.items, 1);
}

#[test]
fn ten_megabyte_string_literal() {
    let mut body = String::with_capacity(10 << 20);
    body.push_str("    const char* s = \"");
    while body.len() < 10 << 20 {
        body.push_str("abcdefgh");
    }
    body.push_str("\";");
    let out = run_case("10 MB string", main_with(&body));
    assert!(out.is_clean(), "10 MB string: {:?}", out.codes);
}

#[test]
fn deeply_nested_parentheses_are_e0104() {
    let body = format!("    int y = {}1{};", "(".repeat(DEEP), ")".repeat(DEEP));
    let out = run_case("nested parentheses", main_with(&body));
    // Parentheses leave no node in the tree: this is not even deep.
    let only_depth = out.codes.iter().all(|&c| c == codes::E0104);
    assert!(only_depth, "nested parentheses: {:?}", out.codes);
}

#[test]
fn deeply_nested_calls_are_e0104() {
    let body = format!("    int y = {}1{};", "f(".repeat(DEEP), ")".repeat(DEEP));
    let out = run_case("nested calls", main_with(&body));
    assert_code("nested calls", &out, codes::E0104);
}

#[test]
fn deeply_nested_blocks_are_e0104() {
    let body = format!("{}x = 2;{}", "{".repeat(DEEP), "}".repeat(DEEP));
    let out = run_case("nested blocks", main_with(&body));
    assert_code("nested blocks", &out, codes::E0104);
}

#[test]
fn deeply_nested_ifs_are_e0104() {
    let body = format!("{}x = 2;", "if (x) ".repeat(DEEP));
    let out = run_case("nested if", main_with(&body));
    assert_code("nested if", &out, codes::E0104);
}

#[test]
fn long_else_if_chain_is_e0104() {
    let body = format!("{}x = 0;", "if (x) x = 1; else ".repeat(DEEP));
    let out = run_case("else-if chain", main_with(&body));
    assert_code("else-if chain", &out, codes::E0104);
}

#[test]
fn many_unary_minus_are_e0104() {
    let body = format!("    int y = {}1;", "- ".repeat(DEEP));
    let out = run_case("unary minus", main_with(&body));
    assert_code("unary minus", &out, codes::E0104);
}

#[test]
fn hundred_thousand_comma_operators_are_e0104() {
    let body = format!("    x = (1{});", ",1".repeat(100_000));
    let out = run_case("comma operators", main_with(&body));
    assert_code("comma operators", &out, codes::E0104);
}

#[test]
fn long_flat_lists_are_fine() {
    let body = format!(
        "    int a[] = {{1{}}};\n    x = f(1{});",
        ",1".repeat(100_000),
        ",1".repeat(100_000)
    );
    let out = run_case("long lists", main_with(&body));
    // The call has too many arguments for `f`, but that is the checker's business.
    assert!(out.is_clean(), "long lists: {:?}", out.codes);
}

#[test]
fn deep_ternaries_assignments_and_indexing_are_e0104() {
    for (name, body) in [
        (
            "nested ?:",
            format!("    x = {}0;", "x ? 1 : ".repeat(DEEP)),
        ),
        ("chained =", format!("    {}0;", "x = ".repeat(DEEP))),
        (
            "nested []",
            format!("    x = {}0{};", "a[".repeat(DEEP), "]".repeat(DEEP)),
        ),
        (
            "nested casts",
            format!(
                "    x = {}x{};",
                "static_cast<int>(".repeat(DEEP),
                ")".repeat(DEEP)
            ),
        ),
        (
            "nested lambdas",
            format!(
                "    auto l = {}0;{}",
                "[=]() { return ".repeat(DEEP),
                " };".repeat(DEEP)
            ),
        ),
    ] {
        let out = run_case(name, main_with(&body));
        assert_code(name, &out, codes::E0104);
    }
}

#[test]
fn unterminated_comment_is_e0003() {
    let out = run_case(
        "unterminated comment",
        b"int main() {\n    /* never closed\n    return 0;\n}\n".to_vec(),
    );
    assert_code("unterminated comment", &out, codes::E0003);
}

#[test]
fn unterminated_string_is_e0004() {
    let out = run_case(
        "unterminated string",
        b"int main() {\n    const char* s = \"abc;\n}\n".to_vec(),
    );
    assert_code("unterminated string", &out, codes::E0004);
    let out = run_case("unterminated char", b"int main() { char c = 'a".to_vec());
    assert_code("unterminated char", &out, codes::E0004);
}

#[test]
fn self_referencing_macro_is_not_an_error() {
    let src = b"#define X X\nint main() {\n    int X = 1;\n    return X;\n}\n".to_vec();
    let out = run_case("#define X X", src);
    assert!(out.is_clean(), "#define X X: {:?}", out.codes);
    let src = b"#define F(a) F(a)\n#define G G F(G)\nint main() {\n    int F = 1, G = 0;\n    return F(G);\n}\n".to_vec();
    let out = run_case("recursive function-like macro", src);
    assert!(
        out.codes
            .iter()
            .all(|c| c.as_str() < "E0050" || c.as_str() >= "E0100"),
        "recursive function-like macro: {:?}",
        out.codes
    );
}

#[test]
fn exponential_macro_is_e0055() {
    let mut src = String::new();
    for level in 0..40 {
        let _ = writeln!(src, "#define M{level} M{next} M{next}", next = level + 1);
    }
    src.push_str("#define M40 1 +\nint main() {\n    int x = M0 1;\n    return x;\n}\n");
    let out = run_case("exponential macro", src.into_bytes());
    assert_code("exponential macro", &out, codes::E0055);
}

#[test]
fn deeply_nested_macro_arguments() {
    let src = format!(
        "#define F(a) (a)\nint main() {{\n    int x = {}1{};\n}}\n",
        "F(".repeat(DEEP),
        ")".repeat(DEEP)
    );
    let out = run_case("nested macro arguments", src.into_bytes());
    assert!(
        !out.is_clean(),
        "nested macro arguments: expected E0055 or E0104"
    );
}

#[test]
fn unclosed_macro_arguments_are_e0054() {
    let src =
        b"#define F(a, b) a + b\nint main() {\n    int x = F(1, (2;\n    return x;\n}\n".to_vec();
    let out = run_case("unclosed macro call", src);
    assert_code("unclosed macro call", &out, codes::E0054);
    run_case("macro name at end of file", b"#define F(a) a\nF".to_vec());
    let out = run_case(
        "macro call open at end of file",
        b"#define F(a) a\nint x = F(".to_vec(),
    );
    assert_code("macro call open at end of file", &out, codes::E0054);
}

#[test]
fn deeply_nested_template_arguments() {
    let deep = format!("{}int{} v;\n", "vector<".repeat(5_000), ">".repeat(5_000));
    let out = run_case("5,000 nested template arguments", deep.into_bytes());
    assert!(!out.is_clean(), "5,000 nested template arguments: {out:?}");
    let spaced = format!("{}int{} v;\n", "vector<".repeat(5_000), " >".repeat(5_000));
    run_case(
        "5,000 nested template arguments, spaced",
        spaced.into_bytes(),
    );
    let moderate = format!("{}int{} v;\n", "std::vector<".repeat(50), ">".repeat(50));
    let out = run_case("50 nested template arguments", moderate.into_bytes());
    assert!(
        out.is_clean(),
        "50 nested template arguments: {:?}",
        out.codes
    );
}

#[test]
fn nested_conditionals_and_if_expressions() {
    let src = format!("{}int x;\n", "#if 1\n".repeat(DEEP));
    let out = run_case("unterminated #if nest", src.into_bytes());
    assert_code("unterminated #if nest", &out, codes::E0052);
    let src = format!("#if {}1{}\n#endif\n", "(".repeat(DEEP), ")".repeat(DEEP));
    let out = run_case("deep #if expression", src.into_bytes());
    assert_code("deep #if expression", &out, codes::E0056);
    let src = format!("#if {}1\n#endif\n", "-".repeat(DEEP));
    run_case("deep #if unary", src.into_bytes());
}

#[test]
fn tiny_files() {
    for (name, src, clean) in [
        ("empty file", &b""[..], true),
        ("only #", b"#", true),
        ("only a backslash", b"\\", false),
        ("only a BOM", b"\xef\xbb\xbf", true),
        ("only a newline", b"\n", true),
        ("only CR", b"\r", true),
        ("a backslash-newline", b"\\\n", true),
        ("only #define", b"#define", false),
        ("only /*", b"/*", false),
        ("only a quote", b"\"", false),
        ("only '", b"'", false),
        ("only }", b"}", false),
        ("only <", b"<", false),
        ("only 0x", b"0x", false),
    ] {
        let out = run_case(name, src.to_vec());
        if clean {
            assert!(out.is_clean(), "{name}: {:?}", out.codes);
        } else {
            assert!(!out.is_clean(), "{name}: expected a diagnostic");
        }
    }
}

#[test]
fn crlf_samples_parse_like_lf_samples() {
    for Sample { name, bytes } in samples::load() {
        let bom = [&b"\xef\xbb\xbf"[..], &bytes].concat();
        let crlf = String::from_utf8(bytes)
            .expect("UTF-8 sample")
            .replace('\n', "\r\n");
        let out = run_program(&format!("{name} with CRLF"), crlf.into_bytes());
        assert!(out.is_clean(), "{name} with CRLF: {:?}", out.codes);
        let out = run_program(&format!("{name} with a BOM"), bom);
        assert!(out.is_clean(), "{name} with a BOM: {:?}", out.codes);
    }
}

#[test]
fn oversized_file_is_e0007_without_lexing() {
    let out = run_on_small_stack("64 MiB + 1", || {
        // NUL bytes: if this were lexed there would be one E0001 per byte.
        let text = String::from_utf8(vec![0; MAX_SOURCE_LEN + 1]).expect("NULs are UTF-8");
        let mut sources = Sources::new();
        let id = sources.add(SourceFile {
            name: "huge.amp".into(),
            text,
        });
        // JSON only: the renderer quotes the whole first line, here all
        // 64 MiB of it, which takes minutes in the dev profile.
        parse_and_check(&sources, id, &[], Show::EndsJson)
    });
    // Lexing would have given one E0001 per NUL byte.
    assert_eq!(out.codes, vec![codes::E0007], "64 MiB + 1");
}

#[test]
fn floods_of_delimiters() {
    run_case("100,000 unclosed (", main_with(&"(".repeat(100_000)));
    run_case("100,000 stray )", main_with(&")".repeat(100_000)));
    run_case("100,000 unclosed {", "{".repeat(100_000).into_bytes());
    run_case("100,000 ;", ";".repeat(100_000).into_bytes());
}

#[test]
fn binary_and_utf16_input() {
    for Sample { name, bytes } in samples::load() {
        // What an editor saving "Unicode" writes: UTF-16LE with a BOM.
        // It reads as the UTF-8 file does, big- or little-endian.
        let text = String::from_utf8(bytes.clone()).expect("UTF-8 sample");
        let as_utf8 = run_case(&name, bytes);
        for (order, unit) in [
            ("LE", u16::to_le_bytes as fn(u16) -> [u8; 2]),
            ("BE", u16::to_be_bytes),
        ] {
            let utf16: Vec<u8> = [0xFEFF_u16]
                .into_iter()
                .chain(text.encode_utf16())
                .flat_map(unit)
                .collect();
            let out = run_case(&format!("{name} in UTF-16{order}"), utf16);
            assert_eq!(out.codes, as_utf8.codes, "{name} in UTF-16{order}");
        }
    }
    // Bytes of no particular shape, as from an executable passed by mistake.
    let mut rng = Rng::new(0x0B1A_2B3C);
    let garbage: Vec<u8> = (0..2 << 20).map(|_| rng.next_u64() as u8).collect();
    let out = run_case("2 MiB of random bytes", garbage);
    assert_code("2 MiB of random bytes", &out, codes::E0002);
}

#[test]
fn if_arithmetic_edge_cases() {
    let mut src = String::new();
    for expr in [
        "(-9223372036854775807 - 1) / -1",
        "(-9223372036854775807 - 1) % -1",
        "-(-9223372036854775807 - 1)",
        "9223372036854775807 + 1",
        "9223372036854775807 * 9223372036854775807",
        "18446744073709551615u + 1",
        "99999999999999999999999999",
        "0x8000000000000000 >> 1",
        "1 << 64",
        "1 << -1",
        "1 >> -9223372036854775807 - 1",
        "1 << (-9223372036854775807 - 1)",
        "-1 >> 200",
        "1 / 0",
        "0 && 1 / 0",
        "1 ? 2 : 1 % 0",
        "'\\777' + '\\x' + '\\xffffffffff' + '' + 'ab'",
        "defined",
        "defined(",
        "defined X Y",
        "(1",
        "1)",
        "~0 == -1",
        "!!!!!!!!!!!!!!!!1",
        "1 ? : 2",
        "+",
    ] {
        let _ = write!(src, "#if {expr}\nint a;\n#endif\n");
    }
    let out = run_case("#if arithmetic", src.into_bytes());
    assert_code("#if arithmetic", &out, codes::E0056);
}

#[test]
fn preprocessor_extremes() {
    let params: Vec<String> = (0..10_000).map(|i| format!("p{i}")).collect();
    let args = vec!["1"; 10_000].join(", ");
    let src = format!(
        "#define WIDE({}) p0 + p9999\nint x = WIDE({args});\nint y = WIDE(1);\n",
        params.join(", ")
    );
    let out = run_case("10,000 macro parameters", src.into_bytes());
    assert_code("10,000 macro parameters", &out, codes::E0054);

    let long_name = "n".repeat(10 << 20);
    let src = format!("#define {long_name} 1\nint x = {long_name};\n");
    let out = run_case("10 MB macro name", src.into_bytes());
    assert!(out.is_clean(), "10 MB macro name: {:?}", out.codes);

    let src = "#include <amp.h>\n".repeat(100_000);
    let out = run_case("100,000 includes", src.into_bytes());
    assert!(out.is_clean(), "100,000 includes: {:?}", out.codes);

    let src: String = (0..100_000)
        .map(|i| format!("#define M{i} M{} + 1\n", i + 1))
        .collect();
    let out = run_case(
        "100,000 chained macros",
        format!("{src}int x = M0;\n").into_bytes(),
    );
    assert!(
        !out.is_clean(),
        "100,000 chained macros: expected a limit to be hit"
    );

    let src = "#define S(x) #x\n#define P(a, b) a ## b\nint P(x, y) = S(1 + 2);\n#define\n#undef\n#ifdef\n#ifndef\n#elif\n#else\n#endif\n#unknown\n#include\n#include <\n#include \"amp.h\n#error\n#warning w\n#line 10\n# 1 \"f\"\n#pragma\n";
    run_case("malformed directives", src.as_bytes().to_vec());

    let nested_else = format!(
        "{}int x;\n{}",
        "#if 0\n#elif 1\n#else\n".repeat(5_000),
        "#endif\n".repeat(5_000)
    );
    run_case("5,000 nested #if/#elif/#else", nested_else.into_bytes());
}
