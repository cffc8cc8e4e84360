//! Whole-program run times: `cargo bench -p tessera-cli --bench run`.
//!
//! Runs each program of `benches/programs/` with the `tessera` binary under
//! every configuration (engine, `--check`) and prints the median wall time
//! of the whole process, and the cost of each configuration relative to the
//! first. Compile time alone (`tessera check`) is printed beside, so the
//! run time of the program itself can be read off.
//!
//! Never a timed test: numbers are printed for people to read and to record
//! in `docs/performance.md`. `TESSERA_BENCH_RUNS` sets the runs per
//! configuration (default 3); `TESSERA_BENCH_FILTER` keeps only programs
//! whose name contains it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use tessera_testkit::harness::env_number;

/// The configurations each program runs under: a label and the arguments
/// before the file.
const CONFIGS: &[(&str, &[&str])] = &[
    ("jit", &["run", "--engine", "jit"]),
    (
        "jit --threads 1",
        &["run", "--engine", "jit", "--threads", "1"],
    ),
    ("interp", &["run", "--engine", "interp"]),
    ("interp --check", &["run", "--engine", "interp", "--check"]),
];

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time_command(args: &[&str], file: &Path, runs: usize) -> Result<Duration, String> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(args)
            .arg(file)
            .output()
            .map_err(|e| format!("cannot start tessera: {e}"))?;
        let elapsed = start.elapsed();
        if !output.status.success() {
            return Err(format!(
                "`tessera {} {}` failed with {}: {}",
                args.join(" "),
                file.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        times.push(elapsed);
    }
    Ok(median(times))
}

fn main() {
    let runs = env_number("TESSERA_BENCH_RUNS")
        .map_or(3, |n| n as usize)
        .max(1);
    let filter = std::env::var("TESSERA_BENCH_FILTER").unwrap_or_default();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/programs");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "amp"))
                .collect()
        })
        .unwrap_or_default();
    programs.sort();
    println!("median of {runs} runs, whole process");
    println!(
        "{:<24} {:<18} {:>10} {:>8}",
        "program", "configuration", "time", "ratio"
    );
    for program in &programs {
        let name = program
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !name.contains(&filter) {
            continue;
        }
        match time_command(&["check"], program, runs) {
            Ok(t) => println!("{name:<24} {:<18} {:>8.3} s", "check only", t.as_secs_f64()),
            Err(e) => println!("{name:<24} check failed: {e}"),
        }
        let mut base: Option<Duration> = None;
        for (label, args) in CONFIGS {
            match time_command(args, program, runs) {
                Ok(t) => {
                    let ratio = base.map_or(1.0, |b| t.as_secs_f64() / b.as_secs_f64());
                    base.get_or_insert(t);
                    println!(
                        "{name:<24} {label:<18} {:>8.3} s {ratio:>7.2}x",
                        t.as_secs_f64()
                    );
                }
                Err(e) => println!("{name:<24} {label:<18} failed: {e}"),
            }
        }
    }
}
