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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The output streams a case is checked on, with the extension of their
/// expected files.
const STREAMS: [&str; 2] = ["stderr", "stdout"];

/// The repository root: this crate is `crates/cli`.
fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .expect("crates/cli has two ancestors")
        .to_path_buf()
}

/// Every file under `dir`, recursively, as paths relative to `root`, sorted.
fn files_under(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root.join(dir)];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current)
            .unwrap_or_else(|err| panic!("cannot list {}: {err}", current.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(root).expect("under the root");
                found.push(relative.to_path_buf());
            }
        }
    }
    found.sort();
    found
}

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

/// The path of `case` with `/` separators, as `tessera` will print it.
fn display_path(case: &Path) -> String {
    case.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
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

/// Writes `text` to `path`, or removes `path` when `text` is empty.
fn bless_file(path: &Path, text: &str) -> std::io::Result<()> {
    if text.is_empty() {
        match std::fs::remove_file(path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        }
    } else {
        std::fs::write(path, text)
    }
}

fn indent(text: &str) -> String {
    text.lines().fold(String::new(), |mut out, line| {
        let _ = writeln!(out, "    | {line}");
        out
    })
}

/// One line of a diff.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edit<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// The edits turning `old` into `new`, from a longest common subsequence of
/// their lines (quadratic, which is plenty for expected outputs).
fn edits<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Edit<'a>> {
    // common[i][j]: length of the longest common subsequence of old[i..] and new[j..].
    let width = new.len() + 1;
    let mut common = vec![0usize; (old.len() + 1) * width];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i * width + j] = if old[i] == new[j] {
                common[(i + 1) * width + j + 1] + 1
            } else {
                common[(i + 1) * width + j].max(common[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(old.len().max(new.len()));
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            out.push(Edit::Same(old[i]));
            i += 1;
            j += 1;
        } else if i < old.len()
            && (j == new.len() || common[(i + 1) * width + j] >= common[i * width + j + 1])
        {
            out.push(Edit::Removed(old[i]));
            i += 1;
        } else {
            out.push(Edit::Added(new[j]));
            j += 1;
        }
    }
    out
}

/// Lines of context shown around each change.
const CONTEXT: usize = 3;

/// A readable diff of two texts: changed lines with a little context, and
/// `...` where unchanged lines are left out.
fn line_diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.split('\n').collect();
    let new: Vec<&str> = actual.split('\n').collect();
    let edits = edits(&old, &new);
    let changed: Vec<usize> = (0..edits.len())
        .filter(|&k| !matches!(edits[k], Edit::Same(_)))
        .collect();
    let near_change = |k: usize| changed.iter().any(|&c| c.abs_diff(k) <= CONTEXT);
    let mut out = String::new();
    let mut skipped = false;
    for (k, edit) in edits.iter().enumerate() {
        if !near_change(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("    ...\n");
            skipped = false;
        }
        let _ = match edit {
            Edit::Same(line) => writeln!(out, "     {line}"),
            Edit::Removed(line) => writeln!(out, "    -{line}"),
            Edit::Added(line) => writeln!(out, "    +{line}"),
        };
    }
    if skipped {
        out.push_str("    ...\n");
    }
    if out.is_empty() {
        // Same lines: the texts differ only in something `split` hides.
        out.push_str("    (the texts differ in invisible characters)\n");
    }
    out
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
    // Cases run on a few threads (some take a second or two in a debug
    // build); results are reported in the order of the cases.
    let workers = std::thread::available_parallelism()
        .map_or(4, usize::from)
        .min(cases.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(vec![Vec::new(); cases.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(k) else { break };
                    let problems = run_case(&root, case, bless);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[k] = problems;
                }
            });
        }
    });
    let results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
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
