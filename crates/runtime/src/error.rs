//! Run-time errors and `--check` findings, as plain data.
//!
//! An engine stops at a [`RunError`] and goes on after a finding; both become
//! [`Diagnostic`]s so that they render exactly like compile-time diagnostics
//! (ariadne for people, JSON for tools), in one place.

use std::fmt;
use tessera_diagnostics::{Code, Diagnostic, Span, codes};

/// Which work-item was running when something went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Thread {
    /// Host code (`main` and what it calls).
    Host,
    /// A work-item of a non-tiled `parallel_for_each`, by its global index.
    Item {
        /// The index's rank.
        rank: u8,
        /// Its components (the first `rank` are meaningful).
        global: [i64; 3],
    },
    /// A work-item of a tiled `parallel_for_each`.
    Tiled {
        /// The tile's rank.
        rank: u8,
        /// The tile's index.
        tile: [i64; 3],
        /// The work-item's index within the tile.
        local: [i64; 3],
    },
}

fn tuple(values: &[i64]) -> String {
    let parts: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("({})", parts.join(","))
}

impl fmt::Display for Thread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Thread::Host => f.write_str("host code"),
            Thread::Item { rank, global } => {
                write!(f, "work-item {}", tuple(&global[..usize::from(*rank)]))
            }
            Thread::Tiled { rank, tile, local } => {
                let r = usize::from(*rank);
                write!(
                    f,
                    "tile {}, local {}",
                    tuple(&tile[..r]),
                    tuple(&local[..r])
                )
            }
        }
    }
}

/// A run-time error: the run stops, the program exits with [`EXIT_RUNTIME_ERROR`].
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    /// The diagnostic code (`R0001`..).
    pub code: Code,
    /// What went wrong, with the values involved.
    pub message: String,
    /// The expression or statement that failed.
    pub span: Span,
    /// The label at `span`.
    pub label: String,
    /// The work-item that failed.
    pub thread: Thread,
    /// Other places that explain the error.
    pub secondary: Vec<(Span, String)>,
    /// Extra facts.
    pub notes: Vec<String>,
    /// How to fix it.
    pub help: Option<String>,
    /// For an error C++ AMP reports by throwing: the exception, which a
    /// program's `catch` may take instead of the run stopping.
    pub exception: Option<LibraryException>,
}

/// An exception the C++ AMP library throws, as a program catches it.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryException {
    /// The class, unqualified: `invalid_compute_domain`.
    pub class: &'static str,
    /// What `what()` returns.
    pub what: String,
    /// What `get_error_code()` returns (an `HRESULT`, a `long`).
    pub code: i64,
}

/// The exit status of a program stopped by a run-time error: what a C++ AMP
/// program returns when an uncaught exception aborts it.
pub const EXIT_RUNTIME_ERROR: u8 = 3;

impl RunError {
    /// An error of `code` at `span` in `thread`.
    pub fn new(code: Code, span: Span, thread: Thread, message: impl Into<String>) -> Self {
        RunError {
            code,
            message: message.into(),
            span,
            label: String::new(),
            thread,
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
            exception: None,
        }
    }

    /// Marks the error as the library exception a program may catch.
    pub fn with_exception(mut self, exception: LibraryException) -> Self {
        self.exception = Some(exception);
        self
    }

    /// Sets the primary label.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The error as a diagnostic; the thread becomes the first note.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.code, self.span, self.message.clone());
        if !self.label.is_empty() {
            d = d.with_label(self.label.clone());
        }
        for (span, label) in &self.secondary {
            d = d.with_secondary(*span, label.clone());
        }
        // A race names both work-items in its labels, and barrier divergence
        // names the work-items on each side, already.
        if self.thread != Thread::Host && self.code != codes::R0100 && self.code != codes::R0008 {
            d = d.with_note(format!("in {}", self.thread));
        }
        for note in &self.notes {
            d = d.with_note(note.clone());
        }
        if let Some(help) = &self.help {
            d = d.with_help(help.clone());
        }
        d
    }
}

/// Limits a run is held to, so that no program can exhaust the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of data (vectors, arrays, views' own storage) alive at once,
    /// counted as C++ sizes.
    pub max_memory: u64,
    /// Wall-clock time of the whole run, if limited.
    pub timeout: Option<std::time::Duration>,
    /// Nested calls of user functions.
    pub max_call_depth: u32,
    /// Bytes of native stack an engine may use for nested calls; the engine
    /// must run on a thread whose stack is larger (the CLI's has 256 MiB).
    pub max_stack: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_memory: DEFAULT_MAX_MEMORY,
            timeout: None,
            max_call_depth: 10_000,
            max_stack: DEFAULT_MAX_STACK,
        }
    }
}

/// The default of `--max-memory`: 1 GiB of program data, well below the
/// machines Tessera runs on even after the engines' own overhead.
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;

/// The default of [`Limits::max_stack`]: 192 MiB, for threads of 256 MiB.
pub const DEFAULT_MAX_STACK: u64 = 192 << 20;

/// Parses a size such as `64M`, `2G`, `1500K` or `4096` (bytes).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size: write a number of bytes, or e.g. 64M, 2G"))?;
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("`{text}` has an unknown unit: use K, M or G")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert!(parse_size("12X").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }

    #[test]
    fn threads_print_like_the_issue_asks() {
        let t = Thread::Tiled {
            rank: 2,
            tile: [1, 2, 0],
            local: [0, 1, 0],
        };
        assert_eq!(t.to_string(), "tile (1,2), local (0,1)");
        let i = Thread::Item {
            rank: 1,
            global: [7, 0, 0],
        };
        assert_eq!(i.to_string(), "work-item (7)");
    }
}
