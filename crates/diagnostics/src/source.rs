//! Source files and byte spans into them.

use serde::Serialize;
use std::ops::Range;

/// Index of a file in [`Sources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
///
/// Invariant: `start <= end <= file.text.len()`, and both ends fall on UTF-8
/// character boundaries of the file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span of `file` covering `range`.
    pub fn new(file: FileId, range: Range<usize>) -> Self {
        Span {
            file,
            start: range.start as u32,
            end: range.end as u32,
        }
    }

    /// The smallest span covering both (same file assumed; `self`'s file wins).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// An empty span at this span's end: where something missing should go.
    pub fn after(self) -> Span {
        Span {
            file: self.file,
            start: self.end,
            end: self.end,
        }
    }

    /// The byte range.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One source file: its display name and its text.
///
/// Source text is always valid UTF-8: bytes that are not are replaced before a
/// file gets here (see [`SourceFile::from_bytes`]), so spans stay on character
/// boundaries.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (usually the path as given).
    pub name: String,
    /// The text.
    pub text: String,
}

impl SourceFile {
    /// A file from raw bytes, with invalid UTF-8 sequences replaced by U+FFFD.
    /// Returns the file and the byte offsets (in the new text) of each replacement,
    /// so the lexer can report them.
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> (Self, Vec<usize>) {
        let mut text = String::with_capacity(bytes.len());
        let mut bad = Vec::new();
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                bad.push(text.len());
                text.push(char::REPLACEMENT_CHARACTER);
            }
        }
        (
            SourceFile {
                name: name.into(),
                text,
            },
            bad,
        )
    }
}

/// All files of one compilation (or one REPL session).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// No files.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId((self.files.len() - 1) as u32)
    }

    /// The file with this id, if any.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// The text under a span ("" if the span is not valid for these sources).
    pub fn snippet(&self, span: Span) -> &str {
        self.get(span.file)
            .and_then(|f| f.text.get(span.range()))
            .unwrap_or("")
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let Some(f) = self.get(file) else {
            return (1, 1);
        };
        let offset = (offset as usize).min(f.text.len());
        let before = f.text.get(..offset).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        (line, col)
    }
}
