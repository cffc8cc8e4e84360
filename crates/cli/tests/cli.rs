//! Tests of the `tessera` command as a whole: exit statuses, `explain`,
//! `dump`, the JSON output and the size limit. What `check` prints for each
//! kind of error is covered by the UI tests (`tests/ui`, run by `ui.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tessera_diagnostics::codes::REGISTRY;

/// The repository root: this crate is `crates/cli`.
fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .expect("crates/cli has two ancestors")
        .to_path_buf()
}

/// Runs `tessera ARGS` from the repository root, without colour.
fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .args(args)
        .output()
        .expect("tessera runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn every_sample_checks_cleanly() {
    let root = repo_root();
    let mut samples: Vec<PathBuf> = std::fs::read_dir(root.join("samples"))
        .expect("samples/ exists")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "amp"))
        .collect();
    samples.sort();
    assert!(!samples.is_empty(), "no samples found");
    let mut failures = Vec::new();
    for sample in &samples {
        let name = format!(
            "samples/{}",
            sample.file_name().expect("a file name").to_string_lossy()
        );
        let output = tessera(&["check", "--color", "never", &name]);
        if output.status.code() != Some(0) || !output.stderr.is_empty() {
            failures.push(format!("{name}: {}\n{}", output.status, stderr(&output)));
        }
    }
    assert!(
        failures.is_empty(),
        "samples that do not check:\n{}",
        failures.join("\n")
    );
}

#[test]
fn missing_file_is_a_usage_error() {
    let output = tessera(&["check", "--color", "never", "tests/ui/no_such_file.amp"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("cannot read `tests/ui/no_such_file.amp`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_invocations_are_usage_errors() {
    for args in [
        &[][..],
        &["frobnicate"][..],
        &["check"][..],
        &["explain"][..],
    ] {
        let output = tessera(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "tessera {args:?}: {}",
            stderr(&output)
        );
        assert!(!output.stderr.is_empty(), "tessera {args:?} says nothing");
    }
}

#[test]
fn explain_prints_the_page() {
    for code in ["E0101", "e0101"] {
        let output = tessera(&["explain", code]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "explain {code}: {}",
            stderr(&output)
        );
        assert!(
            stdout(&output).starts_with("# E0101"),
            "explain {code}: {}",
            stdout(&output)
        );
        assert!(
            output.stderr.is_empty(),
            "explain {code}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn explain_rejects_unknown_codes() {
    for code in ["E9999", "E01", "hello", ""] {
        let output = tessera(&["explain", code]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "explain {code:?}: {}",
            stdout(&output)
        );
        assert!(
            output.stdout.is_empty(),
            "explain {code:?}: {}",
            stdout(&output)
        );
        assert!(
            stderr(&output).contains("is not a Tessera error code"),
            "explain {code:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn every_registered_code_has_its_page() {
    let root = repo_root();
    for info in REGISTRY {
        let code = info.code.as_str();
        let page = std::fs::read_to_string(root.join(format!("docs/errors/{code}.md")))
            .unwrap_or_else(|err| panic!("docs/errors/{code}.md: {err}"));
        let output = tessera(&["explain", code]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "explain {code}: {}",
            stderr(&output)
        );
        assert_eq!(
            stdout(&output),
            page,
            "explain {code} differs from docs/errors/{code}.md"
        );
    }
}

#[test]
fn every_page_is_registered() {
    let registered: Vec<&str> = REGISTRY.iter().map(|info| info.code.as_str()).collect();
    for entry in std::fs::read_dir(repo_root().join("docs/errors")).expect("docs/errors exists") {
        let path = entry.expect("directory entry").path();
        let stem = path
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        assert!(
            path.extension().is_some_and(|e| e == "md") && registered.contains(&stem.as_str()),
            "{} is not the page of a registered code",
            path.display()
        );
    }
}

#[test]
fn dump_ast_prints_a_tree() {
    let output = tessera(&["dump", "ast", "samples/hello_extent.amp"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!output.stdout.is_empty());
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn json_output_is_one_object_per_line() {
    let output = tessera(&[
        "check",
        "--format",
        "json",
        "tests/ui/parse/several_errors.amp",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        output.stderr.is_empty(),
        "JSON mode writes nothing to stderr: {}",
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(text.ends_with('\n'), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "expected several diagnostics: {text}");
    for line in lines {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"));
        let object = value
            .as_object()
            .unwrap_or_else(|| panic!("not an object: {line}"));
        let code = object
            .get("code")
            .and_then(|c| c.as_str())
            .unwrap_or_default();
        assert!(
            REGISTRY.iter().any(|info| info.code.as_str() == code),
            "unregistered code {code:?}: {line}"
        );
        assert!(
            matches!(
                object.get("severity").and_then(|s| s.as_str()),
                Some("error" | "warning")
            ),
            "severity: {line}"
        );
        assert!(
            object
                .get("message")
                .and_then(|m| m.as_str())
                .is_some_and(|m| !m.is_empty()),
            "message: {line}"
        );
        let span = object
            .get("span")
            .and_then(|s| s.as_object())
            .unwrap_or_else(|| panic!("span: {line}"));
        for field in ["start", "end", "line", "column", "end_line", "end_column"] {
            assert!(
                span.get(field).is_some_and(|n| n.is_u64()),
                "span.{field}: {line}"
            );
        }
    }
}

/// Removes a file when dropped, so a failing test leaves no 64 MiB behind.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn file_over_the_size_limit_is_rejected() {
    let limit = tessera_syntax::MAX_SOURCE_LEN;
    assert_eq!(
        limit,
        64 << 20,
        "the test and docs/errors/E0007.md assume 64 MiB"
    );
    let path = std::env::temp_dir().join(format!("tessera-e0007-{}.amp", std::process::id()));
    let file = TempFile(path);
    // Spaces only: valid UTF-8, and the file would otherwise be an empty program.
    std::fs::write(&file.0, vec![b' '; limit + 1]).expect("can write to the temporary directory");
    let name = file.0.to_string_lossy().into_owned();
    // JSON rather than the human format: rendering a snippet of a 64 MiB file
    // takes ten seconds or more in a debug build (the renderer indexes the
    // whole text), while the check itself stops at the size.
    let output = tessera(&["check", "--format", "json", &name]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_str(text.trim_end()).expect("one JSON object");
    assert_eq!(value["code"], "E0007", "{text}");
    assert_eq!(value["message"], "source file too large", "{text}");
    assert_eq!(
        value["label"],
        format!("this file has {} bytes", limit + 1),
        "{text}"
    );
    drop(file);
}

/// A C array of scalars takes its C++ size (4 bytes an `int`), not a
/// value of the interpreter's per element: `tests/robustness/
/// c_array_of_534_mib.amp` (534 MiB of `int`s) runs in an address space
/// of about 1 GB, where 16 bytes an element (2.2 GB) would not fit.
#[cfg(target_os = "linux")]
#[test]
fn a_large_c_array_takes_its_cpp_size() {
    let program = "tests/robustness/c_array_of_534_mib.amp";
    for engine in ["interp", "jit"] {
        let script = format!(
            "ulimit -v 1200000 && exec \"$0\" run --engine {engine} --max-memory 1G {program}"
        );
        let output = Command::new("sh")
            .current_dir(repo_root())
            .args(["-c", &script, env!("CARGO_BIN_EXE_tessera")])
            .output()
            .expect("sh runs");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{engine}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "6 0 2.75\n", "{engine}");
    }
}

/// Runs `tessera run --stats ARGS` under the JIT with its code cache in
/// `cache`; returns stdout and the `cached=` count of the stats line.
fn run_with_cache(cache: &Path, args: &[&str]) -> (String, u64) {
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .env("TESSERA_CACHE_DIR", cache)
        .args(["run", "--engine", "jit", "--threads", "2", "--stats"])
        .args(args)
        .output()
        .expect("tessera runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let err = stderr(&output);
    let cached = err
        .split_whitespace()
        .find_map(|w| w.strip_prefix("cached="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cached= in {err}"));
    (stdout(&output), cached)
}

/// The records of every build folder under `cache` whose first bytes are
/// `magic`: `TSRCODE` for compiled code, `TSRFRNT` for checked programs.
fn records_of(cache: &Path, magic: &[u8]) -> Vec<PathBuf> {
    let mut records = Vec::new();
    for build in std::fs::read_dir(cache).into_iter().flatten().flatten() {
        for record in std::fs::read_dir(build.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let bytes = std::fs::read(record.path()).unwrap_or_default();
            if bytes.starts_with(magic) {
                records.push(record.path());
            }
        }
    }
    records.sort();
    records
}

/// The compiled-code records under `cache`.
fn cache_records(cache: &Path) -> Vec<PathBuf> {
    records_of(cache, b"TSRCODE")
}

/// What one `tessera run --stats` printed: stdout, stderr without the stats
/// line, the exit status, and whether the checked program was a kept one.
struct KeptRun {
    stdout: String,
    stderr: String,
    status: Option<i32>,
    kept: bool,
}

/// Runs `tessera run --stats ARGS` in folder `dir` with its caches in
/// `cache`.
fn run_in(dir: &Path, cache: &Path, args: &[&str]) -> KeptRun {
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env("TESSERA_CACHE_DIR", cache)
        .args(["run", "--stats"])
        .args(args)
        .output()
        .expect("tessera runs");
    let err = stderr(&output);
    let (stats, rest): (Vec<&str>, Vec<&str>) =
        err.lines().partition(|l| l.starts_with("tessera-stats "));
    let kept = match stats.first().and_then(|l| {
        l.split_whitespace()
            .find_map(|w| w.strip_prefix("kept_program="))
    }) {
        Some("1") => true,
        Some("0") => false,
        other => panic!("no kept_program= in the stats line ({other:?}): {err}"),
    };
    KeptRun {
        stdout: stdout(&output),
        stderr: rest.join("\n"),
        status: output.status.code(),
        kept,
    }
}

#[test]
fn a_checked_program_is_kept_until_a_file_it_reads_changes() {
    let dir = std::env::temp_dir().join(format!("tessera-cli-kept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (work, inc, cache) = (dir.join("work"), dir.join("inc"), dir.join("cache"));
    std::fs::create_dir_all(&work).expect("a work folder");
    std::fs::create_dir_all(&inc).expect("an include folder");
    let write = |path: &Path, text: &str| std::fs::write(path, text).expect("write a file");
    // A warning (W0217) and a run-time error (division by zero): both are
    // shown again from a kept program, with the same source lines.
    write(
        &work.join("main.amp"),
        "#include <iostream>\n#include \"h.h\"\nvoid main() {\n    std::cout << VALUE << \"\\n\";\n    int zero = VALUE - VALUE;\n    std::cout << 10 / zero << \"\\n\";\n}\n",
    );
    write(&inc.join("h.h"), "#define VALUE 1\n");
    let args = ["-I", "../inc", "main.amp"];

    let first = run_in(&work, &cache, &args);
    assert!(!first.kept, "an empty cache keeps nothing");
    assert_eq!(first.stdout, "1\n");
    assert!(first.stderr.contains("W0217"), "{}", first.stderr);
    assert!(first.stderr.contains("10 / zero"), "{}", first.stderr);
    assert_ne!(first.status, Some(0));
    assert_eq!(
        records_of(&cache, b"TSRFRNT").len(),
        1,
        "the checked program is kept"
    );

    let second = run_in(&work, &cache, &args);
    assert!(second.kept, "the same files: the kept program");
    assert_eq!(
        (&second.stdout, &second.stderr, second.status),
        (&first.stdout, &first.stderr, first.status),
        "a kept program runs and reports as the checked one"
    );

    // A header changes: checked again, and kept again.
    write(&inc.join("h.h"), "#define VALUE 2\n");
    let changed = run_in(&work, &cache, &args);
    assert!(!changed.kept, "a header changed");
    assert_eq!(changed.stdout, "2\n");
    assert!(run_in(&work, &cache, &args).kept);

    // A header appears where `#include "h.h"` looks first.
    write(&work.join("h.h"), "#define VALUE 3\n");
    let shadowed = run_in(&work, &cache, &args);
    assert!(!shadowed.kept, "a new header is found first");
    assert_eq!(shadowed.stdout, "3\n");

    // Other macros, another program.
    let defined = run_in(&work, &cache, &["-D", "EXTRA", "-I", "../inc", "main.amp"]);
    assert!(!defined.kept, "-D is part of the key");
    assert_eq!(defined.stdout, "3\n");

    // A damaged record is only a miss.
    for record in records_of(&cache, b"TSRFRNT") {
        let mut bytes = std::fs::read(&record).expect("a record");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x5a;
        std::fs::write(&record, bytes).expect("write the record");
    }
    let damaged = run_in(&work, &cache, &args);
    assert!(!damaged.kept, "a damaged record is not taken");
    assert_eq!(damaged.stdout, "3\n");
    assert!(run_in(&work, &cache, &args).kept, "and is written afresh");
    assert!(!run_in(&work, &cache, &["--no-cache", "-I", "../inc", "main.amp"]).kept);

    // A program with an error is not kept.
    let _ = std::fs::remove_dir_all(&cache);
    write(&work.join("bad.amp"), "int main() { return undeclared; }\n");
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(&work)
        .env("TESSERA_CACHE_DIR", &cache)
        .args(["run", "bad.amp"])
        .output()
        .expect("tessera runs");
    assert_ne!(output.status.code(), Some(0));
    assert!(records_of(&cache, b"TSRFRNT").is_empty(), "nothing kept");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compiled_code_is_kept_between_runs_and_a_damaged_record_only_costs_a_compile() {
    let cache = std::env::temp_dir().join(format!("tessera-cli-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let program = "samples/matmul_tiled.amp";
    let expected = std::fs::read_to_string(repo_root().join("samples/matmul_tiled.expected"))
        .expect("the sample's expected output");

    let (first, cached) = run_with_cache(&cache, &[program]);
    assert_eq!(first, expected);
    assert_eq!(cached, 0, "an empty cache gives nothing");
    let records = cache_records(&cache);
    assert!(!records.is_empty(), "the first run keeps its code");

    let (second, cached) = run_with_cache(&cache, &[program]);
    assert_eq!(second, expected);
    assert_eq!(
        cached as usize,
        records.len(),
        "every kept function is taken"
    );

    // Records cut short, or swapped for one another: each fails its
    // check and is compiled again.
    for (n, record) in records.iter().enumerate() {
        let bytes = std::fs::read(record).expect("a record");
        let damaged = if n % 2 == 0 {
            bytes[..bytes.len() / 2].to_vec()
        } else {
            std::fs::read(&records[(n + 1) % records.len()]).expect("another record")
        };
        std::fs::write(record, damaged).expect("write the record");
    }
    let (third, cached) = run_with_cache(&cache, &[program]);
    assert_eq!(third, expected);
    assert_eq!(cached, 0, "no damaged record is taken");

    // `--no-cache` neither reads nor writes.
    let _ = std::fs::remove_dir_all(&cache);
    let (fourth, cached) = run_with_cache(&cache, &["--no-cache", program]);
    assert_eq!(fourth, expected);
    assert_eq!(cached, 0);
    assert!(!cache.exists(), "--no-cache made {}", cache.display());
    let _ = std::fs::remove_dir_all(&cache);
}
