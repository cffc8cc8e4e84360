//! Bytes to tokens.

use crate::files::Files;
use crate::token::Tok;
use logos::Logos;
use tessera_diagnostics::{Diagnostic, FileId, Span, codes};

/// At most this many lexical diagnostics are kept per file.
const MAX_LEX_DIAGS: usize = 100;

/// A token with its byte range in the file it came from.
///
/// For a token produced by macro expansion, the range is that of the macro's
/// use (the name, or the whole `NAME(args)`), so that diagnostics point at
/// what the user wrote; tokens of macro arguments keep their own ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'s> {
    /// What it is.
    pub tok: Tok<'s>,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Token<'_> {
    /// The token's span (in the file its position lies in).
    pub fn span(&self, files: Files<'_, '_>) -> Span {
        files.span(self.start, self.end)
    }

    /// The token's span in `file`, for a token of a unit without headers
    /// (its positions are offsets in that file).
    pub fn span_in(&self, file: FileId) -> Span {
        Span {
            file,
            start: self.start,
            end: self.end,
        }
    }
}

/// Splits `text` into tokens, keeping newlines (the preprocessor needs them).
///
/// Malformed input never stops the lexer: each problem becomes a diagnostic and
/// lexing goes on after it. `replaced` lists byte offsets where invalid UTF-8
/// was replaced when the file was read (see `SourceFile::from_bytes`).
pub fn lex<'s>(
    file: FileId,
    text: &'s str,
    replaced: &[usize],
    diags: &mut Vec<Diagnostic>,
) -> Vec<Token<'s>> {
    let first_diag = diags.len();
    let mut out = Vec::with_capacity(text.len() / 4);
    let mut lexer = Tok::lexer(text);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(file, range.clone());
        let (start, end) = (range.start as u32, range.end as u32);
        // Past the limit, problems are skipped without building their message.
        let room = diags.len() - first_diag < MAX_LEX_DIAGS;
        match result {
            Ok(Tok::UnterminatedComment | Tok::UnterminatedLiteral) if !room => {}
            Err(()) if !room => {}
            Ok(Tok::BadNumber(_)) if !room => out.push(Token {
                tok: Tok::Int("0"),
                start,
                end,
            }),
            Ok(Tok::UnterminatedComment) => diags.push(
                Diagnostic::error(
                    codes::E0003,
                    Span::new(file, range.start..range.start + 2),
                    "unterminated block comment",
                )
                .with_label("this comment is never closed")
                .with_help("add `*/` where the comment should end"),
            ),
            Ok(Tok::UnterminatedLiteral) => diags.push(
                Diagnostic::error(codes::E0004, span, "unterminated literal")
                    .with_label("missing closing quote")
                    .with_help("close the literal on the same line; a literal cannot span lines"),
            ),
            Ok(Tok::BadNumber(raw)) => {
                diags.push(
                    Diagnostic::error(codes::E0005, span, format!("malformed number literal `{raw}`"))
                        .with_label("not a valid number")
                        .with_help("integers are decimal, hex (`0x1F`) or binary (`0b101`) with optional `u`/`l` suffixes; floats look like `1.5`, `1.5f` or `2e10`"),
                );
                out.push(Token {
                    tok: Tok::Int("0"),
                    start,
                    end,
                });
            }
            Ok(tok @ (Tok::Str(raw) | Tok::Char(raw))) => {
                check_escapes(file, raw, range.start, diags);
                out.push(Token { tok, start, end });
            }
            Ok(tok) => out.push(Token { tok, start, end }),
            Err(()) => {
                let ch = text
                    .get(range.clone())
                    .and_then(|s| s.chars().next())
                    .unwrap_or('\u{FFFD}');
                // A byte that is not UTF-8 is fine in a comment or a literal
                // (never an error token there); elsewhere it is one report per
                // run of such bytes. `replaced` is in ascending order (see
                // `SourceFile::from_bytes`); a linear search made binary input
                // quadratic.
                if replaced.binary_search(&range.start).is_err() {
                    diags.push(invalid_char(span, ch));
                } else if let Some(last) = diags[first_diag..]
                    .last_mut()
                    .filter(|d| d.code == codes::E0002 && d.primary.span.end == span.start)
                {
                    last.primary.span.end = span.end;
                } else if room {
                    diags.push(
                        Diagnostic::error(codes::E0002, span, "source is not valid UTF-8")
                            .with_label("these bytes are not UTF-8")
                            .with_help("save the file as UTF-8; outside comments and literals, C++ source is ASCII"),
                    );
                }
            }
        }
    }
    // Past this many, more lexical errors only bury the first ones (binary
    // input yields one per byte).
    let found = diags.len() - first_diag;
    if found > MAX_LEX_DIAGS {
        diags.truncate(first_diag + MAX_LEX_DIAGS);
        if let Some(last) = diags.last_mut() {
            last.notes.push(format!(
                "{} more lexical errors not shown; is this a text file?",
                found - MAX_LEX_DIAGS
            ));
        }
    }
    out
}

/// Reports escape sequences C++ does not know in a string or character
/// literal (`raw` includes the quotes and starts at byte `base`).
fn check_escapes(file: FileId, raw: &str, base: usize, diags: &mut Vec<Diagnostic>) {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(&next) = bytes.get(i + 1) else { break };
        let valid = match next {
            b'n'
            | b't'
            | b'r'
            | b'0'..=b'7'
            | b'\\'
            | b'\''
            | b'"'
            | b'?'
            | b'a'
            | b'b'
            | b'f'
            | b'v' => true,
            b'x' => bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit),
            b'u' => bytes
                .get(i + 2..i + 6)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
            b'U' => bytes
                .get(i + 2..i + 10)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
            _ => false,
        };
        if !valid {
            let len = raw
                .get(i + 1..)
                .and_then(|r| r.chars().next())
                .map_or(1, char::len_utf8);
            let span = Span::new(file, base + i..base + i + 1 + len);
            let shown = raw.get(i..i + 1 + len).unwrap_or("\\");
            diags.push(
                Diagnostic::error(codes::E0006, span, format!("invalid escape sequence `{shown}`"))
                    .with_label("unknown escape")
                    .with_help("C++ escapes are \\n \\t \\r \\0 \\\\ \\' \\\" \\? \\a \\b \\f \\v, octal \\123 and hex \\x7f; write `\\\\` for a backslash"),
            );
        }
        i += 2;
    }
}

fn invalid_char(span: Span, ch: char) -> Diagnostic {
    let shown = if ch.is_control() || ch.is_whitespace() {
        format!("U+{:04X}", ch as u32)
    } else {
        format!("`{ch}` (U+{:04X})", ch as u32)
    };
    let diag = Diagnostic::error(codes::E0001, span, format!("invalid character {shown}"))
        .with_label("not allowed here");
    match ch {
        '\0' => diag.with_help("a NUL byte: is this a binary file, or text saved as UTF-16? Tessera reads UTF-8 text"),
        '\u{201C}' | '\u{201D}' => diag.with_help("this is a typographic quote; use `\"`"),
        '\u{2018}' | '\u{2019}' => diag.with_help("this is a typographic quote; use `'`"),
        '$' | '@' | '`' => diag.with_help("C++ does not use this character outside strings and comments"),
        _ => diag.with_help("identifiers use ASCII letters, digits and `_`; other characters belong in comments or strings"),
    }
}
