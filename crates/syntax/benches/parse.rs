//! Front-end throughput: `cargo bench -p tessera-syntax --bench parse`.
//!
//! Builds a large, realistic and error-free source file (about 10 MB: copies
//! of every sample with their top-level names renamed per copy, each with a
//! long initialiser list and some deep-ish expressions; the generator is
//! `tessera_testkit::generate::large_program`), then times, several
//! times each, lexing alone, lexing plus preprocessing, those plus
//! classification, and the whole front end (`parse_file`), and prints the
//! median throughput of each.
//!
//! No benchmarking framework: a plain `main` keeps the build lean.
//! `TESSERA_BENCH_RUNS` sets the number of runs (default 7);
//! `TESSERA_BENCH_MB` the input size in MB (default 10).

use std::hint::black_box;
use std::time::Duration;
use tessera_diagnostics::{FileId, SourceFile, Sources, render};
use tessera_syntax::files::{Files, Segment};
use tessera_syntax::lexer::lex;
use tessera_syntax::preprocess::{Headers, MacroTable, preprocess};
use tessera_syntax::{parse_file, tokens};
use tessera_testkit::generate::large_program;
use tessera_testkit::harness::{env_number, median_time};
use tessera_testkit::samples;

fn main() {
    let runs = env_number("TESSERA_BENCH_RUNS")
        .map_or(7, |n| n as usize)
        .max(1);
    let megabytes = env_number("TESSERA_BENCH_MB")
        .map_or(10, |n| n as usize)
        .max(1);
    let samples = samples::texts();
    let text = large_program(&samples, megabytes * 1_000_000);
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
            let segments = [Segment {
                base: 0,
                file,
                text: &text,
            }];
            let files = Files::new(&segments);
            black_box(preprocess(
                files,
                &raw,
                &Headers::default(),
                &mut macros,
                &mut diags,
            ));
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
