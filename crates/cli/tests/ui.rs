//! UI tests: run `tessera` on every `tests/ui/**/*.amp` and compare what it
//! prints with the expected output stored beside the case.
//!
//! For a case `tests/ui/dir/name.amp`:
//!
//! - the command is `tessera --color never check tests/ui/dir/name.amp`, run
//!   from the repository root (so paths print as `tests/ui/...`) with
//!   `NO_COLOR=1`. A leading comment line `// args: check --format json`
//!   replaces `check` by other arguments; the file name is always added last.
//! - a leading comment line `// exit: N` gives the expected exit status;
//!   without it the status must be 1 (most cases are errors).
//! - stderr must equal `name.stderr` and stdout must equal `name.stdout`,
//!   exactly. An absent file stands for empty output, so a case that
//!   prints nothing (such as `tests/ui/ok/`) needs no expected files.
//!
//! The `// args:` and `// exit:` lines count only in the comment block that
//! opens the file.
//!
//! Blessing: `BLESS=1 cargo test -p tessera-cli --test ui` writes the
//! expected files from the actual output (and deletes those whose output
//! became empty) instead of comparing. Review the changes with `git diff`
//! before committing them. Exit statuses are never blessed: they live in the
//! `.amp` files.
//!
//! Every failing case is reported with a line diff, then the test fails once
//! with the list of failures. Expected files without their `.amp` (stale
//! after a rename) also fail the test.

mod common;

use common::{bless_file, display_path, files_under, indent, line_diff, repo_root, run_all};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The output streams a case is checked on, with the extension of their
/// expected files.
const STREAMS: [&str; 2] = ["stderr", "stdout"];

/// What the opening comment block of a case asks for.
struct Header {
    args: Vec<String>,
    exit: i32,
}

fn read_header(source: &[u8]) -> Result<Header, String> {
    let mut header = Header {
        args: vec!["check".to_string()],
        exit: 1,
    };
    // Decoded as the compiler decodes it, so a case saved as UTF-16 or with a
    // byte-order mark carries directives too.
    let text = tessera_diagnostics::SourceFile::from_bytes("", source)
        .0
        .text;
    let (mut seen_args, mut seen_exit) = (false, false);
    for line in text.lines() {
        let Some(comment) = line.trim_start().strip_prefix("//") else {
            break;
        };
        let comment = comment.trim();
        let seen = if comment.starts_with("args:") {
            &mut seen_args
        } else if comment.starts_with("exit:") {
            &mut seen_exit
        } else {
            continue;
        };
        if std::mem::replace(seen, true) {
            return Err(format!("`// {}` is given twice", &comment[..5]));
        }
        if let Some(args) = comment.strip_prefix("args:") {
            header.args = args.split_whitespace().map(str::to_string).collect();
            if header.args.is_empty() {
                return Err("`// args:` names no arguments".to_string());
            }
        } else if let Some(exit) = comment.strip_prefix("exit:") {
            header.exit = exit
                .trim()
                .parse()
                .map_err(|_| format!("`// exit:` wants a number, found `{}`", exit.trim()))?;
        }
    }
    Ok(header)
}

/// Runs one case; returns the description of every mismatch (empty when it passes).
fn run_case(root: &Path, case: &Path, bless: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let source = match std::fs::read(root.join(case)) {
        Ok(bytes) => bytes,
        Err(err) => return vec![format!("cannot read the case: {err}")],
    };
    let header = match read_header(&source) {
        Ok(header) => header,
        Err(message) => return vec![message],
    };
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .args(["--color", "never"])
        .args(&header.args)
        .arg(display_path(case))
        .output();
    let output = match output {
        Ok(output) => output,
        Err(err) => return vec![format!("cannot run tessera: {err}")],
    };

    match output.status.code() {
        Some(code) if code == header.exit => {}
        Some(code) => problems.push(format!("exit status {code}, expected {}", header.exit)),
        None => problems.push(format!("tessera was killed: {}", output.status)),
    }

    for (stream, actual) in STREAMS.iter().zip([&output.stderr, &output.stdout]) {
        let expected_path = root.join(case.with_extension(stream));
        let actual = String::from_utf8_lossy(actual);
        if bless {
            if let Err(err) = bless_file(&expected_path, &actual) {
                problems.push(format!("cannot bless {}: {err}", expected_path.display()));
            }
            continue;
        }
        let expected = match std::fs::read(&expected_path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                if !actual.is_empty() {
                    problems.push(format!(
                        "{stream} is not empty but {} is missing (run with BLESS=1 to create it):\n{}",
                        display_path(&case.with_extension(stream)),
                        indent(&actual),
                    ));
                }
                continue;
            }
            Err(err) => {
                problems.push(format!("cannot read {}: {err}", expected_path.display()));
                continue;
            }
        };
        if expected != actual {
            problems.push(format!(
                "{stream} differs from {} (`-` expected, `+` actual):\n{}",
                display_path(&case.with_extension(stream)),
                line_diff(&expected, &actual),
            ));
        }
    }
    problems
}

#[test]
fn ui() {
    let root = repo_root();
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let files = files_under(&root, Path::new("tests/ui"));
    let cases: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "amp"))
        .collect();
    assert!(!cases.is_empty(), "no cases found under tests/ui");

    let mut failures: Vec<String> = Vec::new();
    for file in &files {
        let is_expected = file
            .extension()
            .is_some_and(|e| STREAMS.iter().any(|s| e == *s));
        if is_expected && !root.join(file.with_extension("amp")).is_file() {
            eprintln!(
                "STALE {}: no {} beside it\n",
                display_path(file),
                display_path(&file.with_extension("amp"))
            );
            failures.push(display_path(file));
        }
    }
    let results = run_all(&cases, |case| run_case(&root, case, bless));
    for (case, problems) in cases.iter().zip(results) {
        if !problems.is_empty() {
            eprintln!("FAIL {}", display_path(case));
            for problem in &problems {
                eprintln!("  {problem}");
            }
            eprintln!();
            failures.push(display_path(case));
        }
    }
    eprintln!(
        "ui: {} cases, {} failed{}",
        cases.len(),
        failures.len(),
        if bless { " (blessed)" } else { "" }
    );
    assert!(
        failures.is_empty(),
        "{} UI case(s) failed (details above; rerun with BLESS=1 to accept new output):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn line_diff_marks_changes() {
    let diff = line_diff("a\nb\nc\n", "a\nx\nc\n");
    assert_eq!(diff, "     a\n    -b\n    +x\n     c\n     \n");
    let far = (0..20).map(|n| format!("{n}\n")).collect::<String>();
    let changed = far.replace("10\n", "ten\n");
    let diff = line_diff(&far, &changed);
    assert!(diff.starts_with("    ...\n     7\n"), "{diff}");
    assert!(diff.contains("    -10\n    +ten\n"), "{diff}");
    assert!(diff.ends_with("    ...\n"), "{diff}");
}

#[test]
fn header_lines() {
    let header = read_header(b"// exit: 0\n// args: check --format json\nint x;\n// exit: 5\n")
        .expect("valid");
    assert_eq!(header.exit, 0);
    assert_eq!(header.args, ["check", "--format", "json"]);
    let header = read_header(b"int x;\n").expect("valid");
    assert_eq!((header.exit, header.args), (1, vec!["check".to_string()]));
    assert!(read_header(b"// exit: one\n").is_err());
    assert!(read_header(b"// exit: 0\n// exit: 1\n").is_err());
}
