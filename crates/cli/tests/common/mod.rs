//! Helpers shared by the golden-output harnesses (`ui.rs`, `clif.rs`, `run.rs`):
//! finding cases, blessing expected files and printing readable diffs.

// Each harness includes this module and uses part of it.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The repository root: this crate is `crates/cli`.
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .expect("crates/cli has two ancestors")
        .to_path_buf()
}

/// Every file under `dir`, recursively, as paths relative to `root`, sorted.
pub fn files_under(root: &Path, dir: &Path) -> Vec<PathBuf> {
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

/// The path of `case` with `/` separators, as `tessera` will print it.
pub fn display_path(case: &Path) -> String {
    case.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Writes `text` to `path`, or removes `path` when `text` is empty.
pub fn bless_file(path: &Path, text: &str) -> std::io::Result<()> {
    if text.is_empty() {
        match std::fs::remove_file(path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        }
    } else {
        std::fs::write(path, text)
    }
}

pub fn indent(text: &str) -> String {
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
pub fn line_diff(expected: &str, actual: &str) -> String {
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

/// `run` applied to every case on a few threads (some cases take a second
/// or two in a debug build); the results come back in the order of the cases.
pub fn run_all<C: Sync, R: Send + Default + Clone>(
    cases: &[C],
    run: impl Fn(&C) -> R + Sync,
) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(4, usize::from)
        .min(cases.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(vec![R::default(); cases.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(k) else { break };
                    let result = run(case);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[k] = result;
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
