//! Source files and byte spans into them.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Index of a file in [`Sources`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
///
/// Invariant: `start <= end <= file.text.len()`, and both ends fall on UTF-8
/// character boundaries of the file's text.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SourceFile {
    /// The name shown in diagnostics (usually the path as given).
    pub name: String,
    /// The text.
    pub text: String,
}

/// First of the 128 private-use characters that stand for bytes that are
/// not UTF-8: byte `b` (0x80..=0xFF) is read as `U+EF00 + b`.
///
/// A stand-in per byte keeps the byte recoverable (a string literal holds the
/// byte itself, as g++ copies it) and is three bytes long in UTF-8, like the
/// replacement character shown in its place when a line is rendered.
pub const FOREIGN_BYTE_BASE: u32 = 0xEF00;

/// The byte a stand-in character of [`SourceFile::from_bytes`] was read from.
pub fn foreign_byte(c: char) -> Option<u8> {
    let v = u32::from(c).checked_sub(FOREIGN_BYTE_BASE)?;
    u8::try_from(v).ok().filter(|b| *b >= 0x80)
}

impl SourceFile {
    /// A file from raw bytes as editors save them.
    ///
    /// UTF-8, with or without a byte-order mark, is taken as it is; UTF-16
    /// with a byte-order mark (as Visual Studio saves files) is decoded. A
    /// byte that is not part of valid UTF-8 (a Latin-1 `©` in a comment, say)
    /// is read as a private-use stand-in (see [`FOREIGN_BYTE_BASE`]), so the
    /// rest of the file is read as written. Returns the file and the byte
    /// offsets (in the new text) of each stand-in, in ascending order: the
    /// lexer reports those outside comments and literals, and literals keep
    /// the original bytes. An unpaired UTF-16 surrogate is read as U+FFFD and
    /// listed the same way.
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> (Self, Vec<usize>) {
        let (text, foreign) = decode(bytes);
        (
            SourceFile {
                name: name.into(),
                text,
            },
            foreign,
        )
    }
}

/// The text of a file's bytes and the offsets of stand-in characters.
fn decode(bytes: &[u8]) -> (String, Vec<usize>) {
    match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => decode_utf8(rest),
        [0xFF, 0xFE, rest @ ..] => decode_utf16(rest, u16::from_le_bytes),
        [0xFE, 0xFF, rest @ ..] => decode_utf16(rest, u16::from_be_bytes),
        _ => decode_utf8(bytes),
    }
}

fn decode_utf8(bytes: &[u8]) -> (String, Vec<usize>) {
    let mut text = String::with_capacity(bytes.len());
    let mut foreign = Vec::new();
    for chunk in bytes.utf8_chunks() {
        push_valid(&mut text, &mut foreign, chunk.valid());
        for &b in chunk.invalid() {
            push_foreign(&mut text, &mut foreign, b);
        }
    }
    (text, foreign)
}

/// Appends valid text. A character that is itself one of the stand-ins is
/// written as stand-ins for its own UTF-8 bytes, so that every stand-in in
/// the text means one byte, whatever the file held.
fn push_valid(text: &mut String, foreign: &mut Vec<usize>, valid: &str) {
    if !valid.chars().any(|c| foreign_byte(c).is_some()) {
        text.push_str(valid);
        return;
    }
    for c in valid.chars() {
        if foreign_byte(c).is_some() {
            for &b in c.encode_utf8(&mut [0; 4]).as_bytes() {
                push_foreign(text, foreign, b);
            }
        } else {
            text.push(c);
        }
    }
}

fn push_foreign(text: &mut String, foreign: &mut Vec<usize>, byte: u8) {
    foreign.push(text.len());
    text.push(char::from_u32(FOREIGN_BYTE_BASE + u32::from(byte)).unwrap_or('\u{FFFD}'));
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> (String, Vec<usize>) {
    let units = bytes.chunks(2).map(|pair| match pair {
        [a, b] => unit([*a, *b]),
        // An odd trailing byte cannot be a whole code unit.
        _ => 0xFFFD,
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut foreign = Vec::new();
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => push_valid(&mut text, &mut foreign, c.encode_utf8(&mut [0; 4])),
            Err(_) => {
                foreign.push(text.len());
                text.push(char::REPLACEMENT_CHARACTER);
            }
        }
    }
    (text, foreign)
}

/// All files of one compilation (or one REPL session).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> (String, Vec<usize>) {
        let (file, foreign) = SourceFile::from_bytes("t", bytes);
        (file.text, foreign)
    }

    #[test]
    fn byte_order_marks_select_the_encoding() {
        assert_eq!(read(b"\xEF\xBB\xBFint"), ("int".into(), vec![]));
        assert_eq!(read(b"\xFF\xFEi\0n\0t\0"), ("int".into(), vec![]));
        assert_eq!(read(b"\xFE\xFF\0i\0n\0t"), ("int".into(), vec![]));
        // U+00E9 and a surrogate pair (U+1F600) in UTF-16LE.
        let (text, foreign) = read(b"\xFF\xFE\xE9\x00\x3D\xD8\x00\xDE");
        assert_eq!(text, "\u{E9}\u{1F600}");
        assert!(foreign.is_empty());
    }

    #[test]
    fn broken_utf16_is_marked_not_dropped() {
        // An unpaired high surrogate, then `a`, then an odd trailing byte.
        let (text, foreign) = read(b"\xFF\xFE\x00\xD8a\x00z");
        assert_eq!(text, "\u{FFFD}a\u{FFFD}");
        assert_eq!(foreign, vec![0]);
    }

    #[test]
    fn bytes_that_are_not_utf8_keep_their_value() {
        let (text, foreign) = read(b"// caf\xE9\n\xA9");
        assert_eq!(foreign, vec![6, 10]);
        let bytes: Vec<Option<u8>> = text.chars().map(foreign_byte).collect();
        assert_eq!(bytes[6], Some(0xE9));
        assert_eq!(bytes[8], Some(0xA9));
        assert_eq!(bytes[..6].iter().flatten().count(), 0);
    }

    #[test]
    fn a_stand_in_written_in_the_file_is_its_own_bytes() {
        // U+EF85 written as UTF-8 must not read as the single byte 0x85.
        let (text, foreign) = read("\u{EF85}".as_bytes());
        let bytes: Vec<u8> = text.chars().filter_map(foreign_byte).collect();
        assert_eq!(bytes, "\u{EF85}".as_bytes());
        assert_eq!(foreign, vec![0, 3, 6]);
    }
}
