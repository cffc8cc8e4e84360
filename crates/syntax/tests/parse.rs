//! Parser golden tests: every `tests/parse/NAME.amp` must parse without a
//! single diagnostic, and its tree, rendered by `tessera_syntax::pretty::dump`,
//! must equal `tests/parse/NAME.ast` byte for byte.
//!
//! Blessing: `BLESS=1 cargo test -p tessera-syntax --test parse` writes the
//! `.ast` files from the actual trees instead of comparing (a case with
//! diagnostics still fails and gets no `.ast`; add `-- --nocapture` to see
//! which files were written). Review the changes with `git diff` before
//! committing them: an `.ast` file is only as good as the eye that checked it.
//!
//! Every failing case is reported (diagnostics rendered, trees as a line
//! diff), then the test fails once with the list of failures. A missing
//! `.ast`, or an `.ast` without its `.amp` (stale after a rename), fails too.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tessera_diagnostics::{SourceFile, Sources, render};
use tessera_syntax::{parse_file, pretty};

/// Stack of the thread that runs the cases: the default of a main thread on
/// Linux, more than a test thread gets.
const STACK: usize = 8 << 20;

/// Lines of unchanged context shown around each difference.
const CONTEXT: usize = 2;

/// The largest pair of files diffed line by line (the product of their line
/// counts); beyond it the diff shows both files whole.
const MAX_DIFF_CELLS: usize = 4_000_000;

/// `tests/parse` at the repository root; this crate is `crates/syntax`.
fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parse")
}

fn blessing() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

#[test]
fn parse_trees_match_expected() {
    let worker = std::thread::Builder::new()
        .name("parse-cases".into())
        .stack_size(STACK)
        .spawn(run_cases)
        .expect("spawn the test thread");
    let failures = worker.join().expect("the test thread panicked");
    assert!(
        failures.is_empty(),
        "{} parse case(s) failed:\n  {}\n(if a change to the tree is intended, run `BLESS=1 cargo test -p tessera-syntax --test parse` and review the diff)",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Runs every case; prints each failure's details and returns their summaries.
fn run_cases() -> Vec<String> {
    let dir = cases_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()))
        .map(|entry| {
            entry
                .expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    let stem = |name: &str, ext: &str| name.strip_suffix(ext).map(str::to_string);
    let inputs: Vec<String> = names.iter().filter_map(|n| stem(n, ".amp")).collect();
    let expected: Vec<String> = names.iter().filter_map(|n| stem(n, ".ast")).collect();
    assert!(!inputs.is_empty(), "no .amp cases in {}", dir.display());

    let bless = blessing();
    let mut failures = Vec::new();
    for case in &inputs {
        if let Err(summary) = run_case(&dir, case, bless) {
            failures.push(format!("{case}: {summary}"));
        }
    }
    for orphan in expected.iter().filter(|e| !inputs.contains(e)) {
        eprintln!("---- {orphan}.ast has no {orphan}.amp");
        failures.push(format!(
            "{orphan}.ast: stale expected file without {orphan}.amp (delete it)"
        ));
    }
    failures
}

/// Checks (or blesses) one case; `Err` holds a one-line summary, after the
/// details have been printed.
fn run_case(dir: &Path, case: &str, bless: bool) -> Result<(), String> {
    let input = dir.join(format!("{case}.amp"));
    let expected_path = dir.join(format!("{case}.ast"));
    let bytes =
        std::fs::read(&input).map_err(|err| format!("cannot read {}: {err}", input.display()))?;
    let mut sources = Sources::new();
    let (source, replaced) = SourceFile::from_bytes(format!("tests/parse/{case}.amp"), &bytes);
    let file = sources.add(source);
    let parsed = parse_file(&sources, file, &replaced);
    if !parsed.diagnostics.is_empty() {
        let mut renderer = render::Renderer::new(&sources, false);
        let rendered: String = parsed
            .diagnostics
            .iter()
            .map(|d| renderer.render(d))
            .collect();
        eprintln!("---- {case}: unexpected diagnostics\n{rendered}");
        return Err(format!(
            "{} unexpected diagnostic(s)",
            parsed.diagnostics.len()
        ));
    }
    let actual = pretty::dump(&parsed.unit, &sources);
    let expected = match std::fs::read_to_string(&expected_path) {
        Ok(text) => Some(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(format!("cannot read {}: {err}", expected_path.display())),
    };
    if expected.as_deref() == Some(actual.as_str()) {
        return Ok(());
    }
    if bless {
        std::fs::write(&expected_path, &actual)
            .map_err(|err| format!("cannot write {}: {err}", expected_path.display()))?;
        eprintln!("blessed tests/parse/{case}.ast");
        return Ok(());
    }
    match expected {
        None => {
            eprintln!("---- {case}: no {case}.ast; the tree is:\n{actual}");
            Err(format!("missing expected file {case}.ast"))
        }
        Some(expected) => {
            eprintln!(
                "---- {case}: tree differs from {case}.ast (- expected, + actual)\n{}",
                diff(&expected, &actual)
            );
            Err("tree differs from the expected file".to_string())
        }
    }
}

/// One line of a diff.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    Same,
    Removed,
    Added,
}

/// A line diff of two texts in the style of `diff -u`, with [`CONTEXT`] lines
/// of context and `@@ -line +line @@` headers.
fn diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let script = edit_script(&old, &new);
    if script.iter().all(|(c, _)| *c == Change::Same) {
        return "(the lines are equal: only line endings or the final newline differ)\n"
            .to_string();
    }
    // Line numbers (1-based) in each file before each entry of the script.
    let mut numbers = Vec::with_capacity(script.len());
    let (mut o, mut n) = (1, 1);
    for (change, _) in &script {
        numbers.push((o, n));
        match change {
            Change::Same => {
                o += 1;
                n += 1;
            }
            Change::Removed => o += 1,
            Change::Added => n += 1,
        }
    }
    let changed: Vec<usize> = (0..script.len())
        .filter(|&i| script[i].0 != Change::Same)
        .collect();
    let mut out = String::new();
    let mut shown_until = 0; // entries before this index are already printed
    let mut i = 0;
    while i < changed.len() {
        // A hunk: changes closer than twice the context merge.
        let start = changed[i].saturating_sub(CONTEXT).max(shown_until);
        let mut last = changed[i];
        while i + 1 < changed.len() && changed[i + 1] <= last + 2 * CONTEXT + 1 {
            i += 1;
            last = changed[i];
        }
        let end = (last + CONTEXT + 1).min(script.len());
        let (o, n) = numbers[start];
        let _ = writeln!(out, "@@ -{o} +{n} @@");
        for (change, line) in &script[start..end] {
            let mark = match change {
                Change::Same => ' ',
                Change::Removed => '-',
                Change::Added => '+',
            };
            let _ = writeln!(out, "{mark}{line}");
        }
        shown_until = end;
        i += 1;
    }
    out
}

/// The shortest edit script from `old` to `new` (by longest common
/// subsequence); whole-file replacement when the files are very large.
fn edit_script<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<(Change, &'a str)> {
    let (n, m) = (old.len(), new.len());
    if n.saturating_mul(m) > MAX_DIFF_CELLS {
        let removed = old.iter().map(|l| (Change::Removed, *l));
        return removed
            .chain(new.iter().map(|l| (Change::Added, *l)))
            .collect();
    }
    // lcs[i][j]: length of the LCS of old[i..] and new[j..].
    let width = m + 1;
    let mut lcs = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * width + j] = if old[i] == new[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let mut script = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if old[i] == new[j] {
            script.push((Change::Same, old[i]));
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            script.push((Change::Removed, old[i]));
            i += 1;
        } else {
            script.push((Change::Added, new[j]));
            j += 1;
        }
    }
    script.extend(old[i..].iter().map(|l| (Change::Removed, *l)));
    script.extend(new[j..].iter().map(|l| (Change::Added, *l)));
    script
}

#[test]
fn diff_shows_changes_with_context() {
    let expected = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let actual = "a\nb\nC\nd\ne\nf\ng\nh\ni\n";
    let shown = diff(expected, actual);
    assert_eq!(
        shown,
        "@@ -1 +1 @@\n a\n b\n-c\n+C\n d\n e\n@@ -7 +7 @@\n g\n h\n+i\n"
    );
    assert!(diff("x\n", "x").contains("only line endings"));
}
