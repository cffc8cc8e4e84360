//! Checker throughput: `cargo bench -p tessera-sema --bench check`.
//!
//! Builds the large program of the front-end benchmark
//! (`tessera_testkit::generate::large_program`: about 10 MB of renamed
//! copies of every sample plus generated code), makes sure it parses without
//! a diagnostic and checks without an error, then times, several times each,
//! the whole front end (`parse_file`), the front end plus the checker
//! (`parse_file` then `tessera_sema::check`), and the checker alone on one
//! tree, and prints the median of each.
//!
//! No benchmarking framework: a plain `main` keeps the build lean.
//! `TESSERA_BENCH_RUNS` sets the number of runs (default 7);
//! `TESSERA_BENCH_MB` the input size in MB (default 10).

use std::hint::black_box;
use std::time::Duration;
use tessera_diagnostics::{FileId, SourceFile, Sources, render};
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
    let token_count = tokens(FileId(0), &text, &[]).0.len();

    let mut sources = Sources::new();
    let id = sources.add(SourceFile {
        name: "bench.amp".into(),
        text: text.clone(),
    });
    let parsed = parse_file(&sources, id, &[]);
    if let Some(first) = parsed.diagnostics.first() {
        eprint!("{}", render::render(first, &sources, false));
        panic!(
            "the generated input should parse cleanly, but has {} diagnostics",
            parsed.diagnostics.len()
        );
    }
    let checked = tessera_sema::check(&parsed.unit);
    let errors: Vec<_> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    if let Some(first) = errors.first() {
        eprint!("{}", render::render(first, &sources, false));
        panic!(
            "the generated input should pass the checker, but has {} errors",
            errors.len()
        );
    }
    let warnings = checked.diagnostics.len();
    let functions = checked.program.functions.len();
    drop(checked);

    println!(
        "input: {:.2} MB, {lines} lines, {token_count} tokens after preprocessing, \
         {functions} functions ({} samples, renamed copies); {warnings} warnings; \
         median of {runs} runs",
        text.len() as f64 / 1e6,
        samples.len()
    );
    let report = |stage: &str, median: Duration| {
        let seconds = median.as_secs_f64();
        println!(
            "{stage:<36} {:>9.1} ms {:>8.1} MB/s {:>8.3} M lines/s",
            seconds * 1e3,
            text.len() as f64 / 1e6 / seconds,
            lines as f64 / 1e6 / seconds
        );
    };

    report(
        "front end (parse_file)",
        median_time(runs, || {
            black_box(parse_file(black_box(&sources), id, &[]));
        }),
    );
    report(
        "front end + checker",
        median_time(runs, || {
            let parsed = parse_file(black_box(&sources), id, &[]);
            black_box(tessera_sema::check(&parsed.unit));
        }),
    );
    report(
        "checker alone (tessera_sema::check)",
        median_time(runs, || {
            black_box(tessera_sema::check(black_box(&parsed.unit)));
        }),
    );
}
