//! Front-end throughput: `cargo bench -p tessera-syntax --bench parse`.
//!
//! Builds a large, realistic and error-free source file (about 10 MB: copies
//! of every sample with their top-level names renamed per copy, each with a
//! long initialiser list and some deep-ish expressions), then times, several
//! times each, lexing alone, lexing plus preprocessing, those plus
//! classification, and the whole front end (`parse_file`), and prints the
//! median throughput of each.
//!
//! No benchmarking framework: a plain `main` keeps the build lean.
//! `TESSERA_BENCH_RUNS` sets the number of runs (default 7);
//! `TESSERA_BENCH_MB` the input size in MB (default 10).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};
use tessera_diagnostics::{FileId, SourceFile, Sources, render};
use tessera_syntax::lexer::{Token, lex};
use tessera_syntax::preprocess::{MacroTable, preprocess};
use tessera_syntax::token::Tok;
use tessera_syntax::{parse_file, tokens};

fn main() {
    let runs = env_number("TESSERA_BENCH_RUNS").unwrap_or(7).max(1);
    let megabytes = env_number("TESSERA_BENCH_MB").unwrap_or(10).max(1);
    let samples = load_samples();
    let text = generate(&samples, megabytes * 1_000_000);
    let lines = text.lines().count();
    let file = FileId(0);

    let mut sources = Sources::new();
    let id = sources.add(SourceFile {
        name: "bench.amp".into(),
        text: text.clone(),
    });
    let parsed = parse_file(&sources, id, &[]);
    if let Some(first) = parsed.diagnostics.first() {
        eprint!("{}", render::render(first, &sources, false));
        panic!(
            "the generated input should be clean, but has {} diagnostics",
            parsed.diagnostics.len()
        );
    }
    let token_count = tokens(file, &text, &[]).0.len();
    drop(parsed);

    println!(
        "input: {:.2} MB, {lines} lines, {token_count} tokens after preprocessing \
         ({} samples, renamed copies); median of {runs} runs",
        text.len() as f64 / 1e6,
        samples.len()
    );
    let report = |stage: &str, median: Duration| {
        let seconds = median.as_secs_f64();
        println!(
            "{stage:<32} {:>9.1} ms {:>8.1} MB/s {:>8.2} M lines/s",
            seconds * 1e3,
            text.len() as f64 / 1e6 / seconds,
            lines as f64 / 1e6 / seconds
        );
    };

    report(
        "lex",
        median_time(runs, || {
            let mut diags = Vec::new();
            black_box(lex(file, black_box(&text), &[], &mut diags));
        }),
    );
    report(
        "lex + preprocess",
        median_time(runs, || {
            let mut diags = Vec::new();
            let raw = lex(file, black_box(&text), &[], &mut diags);
            let mut macros = MacroTable::default();
            black_box(preprocess(file, &text, &raw, &mut macros, &mut diags));
        }),
    );
    report(
        "lex + preprocess + classify",
        median_time(runs, || {
            black_box(tokens(file, black_box(&text), &[]));
        }),
    );
    report(
        "whole front end (parse_file)",
        median_time(runs, || {
            black_box(parse_file(black_box(&sources), id, &[]));
        }),
    );
}

/// The median wall time of `runs` calls of `job` (after one warm-up call).
fn median_time(runs: usize, mut job: impl FnMut()) -> Duration {
    job();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            job();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

fn load_samples() -> Vec<String> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples"));
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("the samples directory")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "amp"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| std::fs::read_to_string(path).expect("a readable UTF-8 sample"))
        .collect()
}

/// Copies of the samples, each with its own names, plus generated code,
/// until the text is at least `target` bytes long.
fn generate(samples: &[String], target: usize) -> String {
    let plans: Vec<(&str, Vec<Token<'_>>, HashSet<&str>)> = samples
        .iter()
        .map(|text| {
            let mut diags = Vec::new();
            let toks = lex(FileId(0), text, &[], &mut diags);
            let names = top_level_names(&toks);
            (text.as_str(), toks, names)
        })
        .collect();
    let mut out = String::with_capacity(target + (1 << 20));
    let mut copy = 0;
    while out.len() < target {
        for (sample, (text, toks, names)) in plans.iter().enumerate() {
            renamed(&mut out, text, toks, names, &format!("_{copy}_{sample}"));
            out.push('\n');
        }
        generated(&mut out, copy);
        copy += 1;
    }
    out
}

/// Names a sample declares at file level: macros, structs, functions and
/// global variables (renaming them per copy avoids redefinitions).
fn top_level_names<'s>(toks: &[Token<'s>]) -> HashSet<&'s str> {
    let mut names = HashSet::new();
    let (mut braces, mut parens) = (0i32, 0i32);
    let mut in_directive = false;
    for (i, t) in toks.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| toks[p].tok);
        let next = toks.get(i + 1).map(|n| n.tok);
        match t.tok {
            Tok::Hash => in_directive = true,
            Tok::Newline => in_directive = false,
            Tok::LBrace => braces += 1,
            Tok::RBrace => braces -= 1,
            Tok::LParen => parens += 1,
            Tok::RParen => parens -= 1,
            Tok::Ident(name) => {
                let defined = in_directive && prev == Some(Tok::Ident("define"));
                let declared_type = matches!(prev, Some(Tok::Struct | Tok::Class));
                let declared_here = !in_directive
                    && braces == 0
                    && parens == 0
                    && prev != Some(Tok::Namespace)
                    && matches!(
                        next,
                        Some(Tok::LParen | Tok::Assign | Tok::Semi | Tok::LBracket | Tok::Comma)
                    );
                if defined || declared_type || declared_here {
                    names.insert(name);
                }
            }
            _ => {}
        }
    }
    names
}

/// Appends `text` with `suffix` added to every identifier in `names`.
fn renamed(out: &mut String, text: &str, toks: &[Token<'_>], names: &HashSet<&str>, suffix: &str) {
    let mut at = 0;
    for t in toks {
        if let Tok::Ident(name) = t.tok
            && names.contains(name)
        {
            let end = t.end as usize;
            out.push_str(&text[at..end]);
            out.push_str(suffix);
            at = end;
        }
    }
    out.push_str(&text[at..]);
}

/// A long initialiser list and functions with deep-ish expressions.
fn generated(out: &mut String, copy: usize) {
    let _ = write!(out, "static const int table_{copy}[] = {{");
    for i in 0..2000 {
        if i % 16 == 0 {
            out.push_str("\n    ");
        }
        let _ = write!(out, "{}, ", (i * 7919 + copy) % 1000);
    }
    out.push_str("\n};\n\n");

    let _ = writeln!(out, "float poly_{copy}(float x) restrict(amp, cpu) {{");
    out.push_str("    return ");
    for _ in 0..40 {
        out.push('(');
    }
    out.push('x');
    for k in 0..40 {
        let _ = write!(out, " * x + {k}.5f)");
    }
    out.push_str(";\n}\n\n");

    let _ = writeln!(out, "int mixed_{copy}(int a, int b) restrict(amp, cpu) {{");
    out.push_str("    int r = 0;\n");
    for k in 0..24 {
        let _ = writeln!(
            out,
            "    if ((a + {k}) * (b - {k}) > (a ^ b) % {m} && !(r < 0 || b == {k})) {{\n        \
             r += (a << {s}) - (b >> {s}) + table_{copy}[(a + b + {k}) % 2000] * (r % 3 == 0 ? 1 : -1);\n    \
             }} else {{\n        r -= {k};\n    }}",
            m = k + 2,
            s = k % 5
        );
    }
    out.push_str("    return r;\n}\n\n");
}
