//! Diagnostics as plain data.
//!
//! Every phase of Tessera reports problems as [`Diagnostic`] values: a stable
//! [`Code`], a [`Severity`], a message, labelled [`Span`]s, notes and a help line.
//! Nothing here prints: [`render`] turns diagnostics into text for people
//! (ariadne) and [`json`] into one JSON object per diagnostic for tools.
//! Spans are byte ranges into a [`SourceFile`] held by [`Sources`].

pub mod codes;
pub mod json;
pub mod render;
mod source;

pub use codes::{Code, CodeInfo, Phase};
pub use source::{FOREIGN_BYTE_BASE, FileId, SourceFile, Sources, Span, foreign_byte};

use serde::{Deserialize, Serialize};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A likely bug that does not stop compilation.
    Warning,
    /// The program is rejected.
    Error,
}

/// A span with a message attached: what is wrong there, or why it matters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// Where in the source.
    pub span: Span,
    /// What this place has to do with the diagnostic (may be empty).
    pub message: String,
}

/// One problem found in a program.
///
/// Invariant: `primary` is the span the problem is reported at; `secondary`
/// labels explain it. All spans refer to files of the same [`Sources`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable code, e.g. `E0101`.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// One-line summary, lower case, no trailing period.
    pub message: String,
    /// The offending place.
    pub primary: Label,
    /// Other places that explain the problem.
    pub secondary: Vec<Label>,
    /// Extra facts ("note: ...").
    pub notes: Vec<String>,
    /// How to fix it ("help: ...").
    pub help: Option<String>,
    /// The MSVC error this diagnostic stands for, when it is more precise
    /// than its code's (see [`Diagnostic::msvc`]).
    pub msvc: Option<&'static str>,
}

/// Read back field by field as written (a record of a checked program kept
/// between runs); the MSVC code through [`codes::static_msvc`].
impl<'de> Deserialize<'de> for Diagnostic {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// [`Diagnostic`]'s fields in its order, the MSVC code owned.
        #[derive(Deserialize)]
        struct Fields {
            code: Code,
            severity: Severity,
            message: String,
            primary: Label,
            secondary: Vec<Label>,
            notes: Vec<String>,
            help: Option<String>,
            msvc: Option<String>,
        }
        let f = Fields::deserialize(deserializer)?;
        Ok(Diagnostic {
            code: f.code,
            severity: f.severity,
            message: f.message,
            primary: f.primary,
            secondary: f.secondary,
            notes: f.notes,
            help: f.help,
            msvc: f.msvc.map(codes::static_msvc),
        })
    }
}

impl Diagnostic {
    /// An error with code `code` at `span`; the primary label carries no text yet.
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, span, message)
    }

    /// A warning with code `code` at `span`.
    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, span, message)
    }

    fn new(severity: Severity, code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            primary: Label {
                span,
                message: String::new(),
            },
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
            msvc: None,
        }
    }

    /// Sets the text of the primary label.
    pub fn with_label(mut self, message: impl Into<String>) -> Self {
        self.primary.message = message.into();
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
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

    /// Names the MSVC error this diagnostic stands for, with a note saying so.
    pub fn with_msvc(mut self, code: &'static str) -> Self {
        self.msvc = Some(code);
        self.notes.push(format!("MSVC reports this as {code}"));
        self
    }

    /// Names the MSVC error this diagnostic stands for, for a diagnostic
    /// whose own note already says so in other words.
    pub fn standing_for(mut self, code: &'static str) -> Self {
        self.msvc = Some(code);
        self
    }

    /// The MSVC error this diagnostic stands for: its own, or its code's.
    pub fn msvc(&self) -> Option<&'static str> {
        self.msvc
            .or_else(|| codes::lookup(self.code.as_str()).and_then(|info| info.msvc))
    }

    /// True for errors (which make a check fail), false for warnings.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
