//! Bytes to tokens.

use crate::token::Tok;
use logos::Logos;
use tessera_diagnostics::{Diagnostic, FileId, Span, codes};

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
    /// The token's span in `file`.
    pub fn span(&self, file: FileId) -> Span {
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
    for &offset in replaced {
        let span = Span::new(file, offset..offset + char::REPLACEMENT_CHARACTER.len_utf8());
        diags.push(
            Diagnostic::error(codes::E0002, span, "source is not valid UTF-8")
                .with_label("these bytes are not UTF-8")
                .with_help("save the file as UTF-8"),
        );
    }
    let mut out = Vec::with_capacity(text.len() / 4);
    let mut lexer = Tok::lexer(text);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(file, range.clone());
        let (start, end) = (range.start as u32, range.end as u32);
        match result {
            Ok(Tok::UnterminatedComment) => diags.push(
                Diagnostic::error(codes::E0003, Span::new(file, range.start..range.start + 2), "unterminated block comment")
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
                out.push(Token { tok: Tok::Int("0"), start, end });
            }
            Ok(tok) => out.push(Token { tok, start, end }),
            Err(()) => {
                let ch = text.get(range.clone()).and_then(|s| s.chars().next()).unwrap_or('\u{FFFD}');
                // Invalid UTF-8 was already reported once, where the file was read.
                if ch != char::REPLACEMENT_CHARACTER || !replaced.contains(&range.start) {
                    diags.push(invalid_char(span, ch));
                }
            }
        }
    }
    out
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
        '\u{201C}' | '\u{201D}' => diag.with_help("this is a typographic quote; use `\"`"),
        '\u{2018}' | '\u{2019}' => diag.with_help("this is a typographic quote; use `'`"),
        '$' | '@' | '`' => diag.with_help("C++ does not use this character outside strings and comments"),
        _ => diag.with_help("identifiers use ASCII letters, digits and `_`; other characters belong in comments or strings"),
    }
}
