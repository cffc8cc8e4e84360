//! The terminal side: rustyline with multi-line validation, completion and
//! a history file.

use crate::driver::META_COMMANDS;
use crate::input::{is_complete, meta_command};
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};
use std::path::PathBuf;

/// Words completed everywhere: the keywords of the subset and the library
/// names a session uses most.
const WORDS: &[&str] = &[
    // Keywords.
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "class",
    "const",
    "constexpr",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "extern",
    "false",
    "float",
    "for",
    "if",
    "int",
    "long",
    "mutable",
    "namespace",
    "restrict",
    "return",
    "static",
    "static_cast",
    "struct",
    "switch",
    "tile_static",
    "true",
    "unsigned",
    "using",
    "void",
    "while",
    // Library.
    "all_memory_fence",
    "amp",
    "array",
    "array_view",
    "atomic_fetch_add",
    "barrier",
    "concurrency",
    "copy",
    "cout",
    "cpu",
    "discard_data",
    "endl",
    "extent",
    "fast_math",
    "fixed",
    "global",
    "index",
    "local",
    "parallel_for_each",
    "precise_math",
    "section",
    "setprecision",
    "setw",
    "size",
    "std",
    "synchronize",
    "tile",
    "tile_barrier",
    "tile_extent",
    "tile_origin",
    "tiled_extent",
    "tiled_index",
    "vector",
    "wait",
    "wait_with_all_memory_fence",
    "wait_with_global_memory_fence",
    "wait_with_tile_static_memory_fence",
];

/// The editor's helper: validation and completion.
pub struct ReplHelper {
    /// Names the session declared, updated after each input.
    pub names: Vec<String>,
    files: FilenameCompleter,
}

impl ReplHelper {
    /// A helper that knows no names yet.
    pub fn new() -> ReplHelper {
        ReplHelper {
            names: Vec::new(),
            files: FilenameCompleter::new(),
        }
    }
}

impl Default for ReplHelper {
    fn default() -> Self {
        ReplHelper::new()
    }
}

/// Candidates for `prefix` among keywords, library words, `names` and (at
/// the start of a line) meta-commands, sorted and without repeats.
pub fn candidates(line: &str, pos: usize, names: &[String]) -> (usize, Vec<String>) {
    let before = line.get(..pos).unwrap_or(line);
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map_or(before.len(), |(i, _)| i);
    let prefix = &before[start..];
    // `:ty|` completes a command name.
    if before.trim_start().starts_with(':') && before.trim_start()[1..] == *prefix {
        let colon = start.saturating_sub(1);
        let mut found: Vec<String> = META_COMMANDS
            .iter()
            .filter_map(|(c, _)| c.split(' ').next())
            .filter(|c| c[1..].starts_with(prefix))
            .map(str::to_string)
            .collect();
        found.dedup();
        return (colon, found);
    }
    if prefix.is_empty() {
        return (pos, Vec::new());
    }
    let mut found: Vec<String> = WORDS
        .iter()
        .map(|w| w.to_string())
        .chain(names.iter().cloned())
        .filter(|w| w.starts_with(prefix) && w != prefix)
        .collect();
    found.sort();
    found.dedup();
    (start, found)
}

/// True when the cursor, after `before`, is in the file argument of `:load`.
fn completes_path(before: &str) -> bool {
    match meta_command(before) {
        Some((word @ ("load" | "l"), _)) => before
            .trim_start()
            .get(1 + word.len()..)
            .is_some_and(|rest| rest.starts_with(char::is_whitespace)),
        _ => false,
    }
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        if completes_path(line.get(..pos).unwrap_or(line)) {
            return self.files.complete(line, pos, ctx);
        }
        let (start, found) = candidates(line, pos, &self.names);
        let pairs = found
            .into_iter()
            .map(|w| Pair {
                display: w.clone(),
                replacement: w,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if is_complete(ctx.input()) {
            ValidationResult::Valid(None)
        } else {
            ValidationResult::Incomplete
        })
    }
}

impl Helper for ReplHelper {}

/// Where the history is kept: `$TESSERA_HISTORY` if set (empty: nowhere),
/// else `$XDG_DATA_HOME/tessera/history`, else
/// `~/.local/share/tessera/history`.
pub fn history_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = std::env::var_os("TESSERA_HISTORY") {
        return (!path.is_empty()).then(|| PathBuf::from(path));
    }
    let data = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".local/share")))?;
    Some(data.join("tessera").join("history"))
}

#[cfg(test)]
mod tests {
    use super::candidates;

    #[test]
    fn completes_keywords_names_and_commands() {
        let names = vec!["sample".to_string(), "average".to_string()];
        let (start, found) = candidates("parallel_for_each(sam", 21, &names);
        assert_eq!(start, 18);
        assert_eq!(found, ["sample"]);
        let (_, found) = candidates("tile_s", 6, &names);
        assert_eq!(found, ["tile_static"]);
        let (start, found) = candidates(":ty", 3, &names);
        assert_eq!((start, found), (0, vec![":type".to_string()]));
        let (_, found) = candidates("std::co", 7, &names);
        assert_eq!(
            found,
            [
                "concurrency",
                "const",
                "constexpr",
                "continue",
                "copy",
                "cout"
            ]
        );
        let (_, found) = candidates("x + ", 4, &names);
        assert!(found.is_empty());
    }

    #[test]
    fn the_argument_of_load_completes_as_a_path() {
        assert!(super::completes_path(":load samp"));
        assert!(super::completes_path("  :l "));
        assert!(!super::completes_path(":load"));
        assert!(!super::completes_path(":loa"));
        assert!(!super::completes_path(":type samp"));
        assert!(!super::completes_path("load samp"));
    }
}
