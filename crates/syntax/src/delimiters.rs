//! Bracket matching before parsing: an unclosed or mismatched delimiter gets
//! a message that names both ends, which an LR parser alone cannot give.

use crate::files::Files;
use crate::lexer::Token;
use crate::token::Tok;
use tessera_diagnostics::{Diagnostic, codes};

fn closer_of(open: Tok<'_>) -> Tok<'static> {
    match open {
        Tok::LParen | Tok::InitParen | Tok::DeclParen => Tok::RParen,
        Tok::LBracket => Tok::RBracket,
        _ => Tok::RBrace,
    }
}

/// At most this many delimiter errors are reported; more would only repeat
/// the first ones' story (and a file of a million `(` would need gigabytes).
const MAX_REPORTS: usize = 50;

/// Checks that `(`, `[` and `{` nest properly. Returns the byte offset of the
/// first problem, if any, so that the parser's follow-on errors can be dropped.
pub fn check(
    file: Files<'_, '_>,
    tokens: &[Token<'_>],
    text_len: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<u32> {
    let mut stack: Vec<&Token<'_>> = Vec::new();
    let mut first = None;
    let start = diags.len();
    for t in tokens {
        if diags.len() - start >= MAX_REPORTS {
            break;
        }
        match t.tok {
            Tok::LParen | Tok::InitParen | Tok::DeclParen | Tok::LBracket | Tok::LBrace => {
                stack.push(t)
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => match stack.last() {
                Some(open) if closer_of(open.tok) == t.tok => {
                    stack.pop();
                }
                Some(open) => {
                    let open = **open;
                    diags.push(
                        Diagnostic::error(
                            codes::E0107,
                            t.span(file),
                            format!("mismatched closing delimiter `{}`", t.tok),
                        )
                        .with_label(format!("expected `{}` here", closer_of(open.tok)))
                        .with_secondary(open.span(file), format!("`{}` opened here", open.tok))
                        .with_help(format!(
                            "close `{}` with `{}` before this",
                            open.tok,
                            closer_of(open.tok)
                        )),
                    );
                    first.get_or_insert(t.start);
                    // Resynchronise: if the closer matches something further
                    // down, assume the delimiters in between were left open.
                    // Otherwise take it as a typo for the innermost closer.
                    match stack.iter().rposition(|o| closer_of(o.tok) == t.tok) {
                        Some(pos) => stack.truncate(pos),
                        None => {
                            stack.pop();
                        }
                    }
                }
                None => {
                    diags.push(
                        Diagnostic::error(
                            codes::E0107,
                            t.span(file),
                            format!("unexpected closing delimiter `{}`", t.tok),
                        )
                        .with_label("nothing here is open")
                        .with_help("remove it, or add the opening delimiter it belongs to"),
                    );
                    first.get_or_insert(t.start);
                }
            },
            _ => {}
        }
    }
    let eof = file.span(text_len as u32, text_len as u32);
    for open in stack
        .iter()
        .rev()
        .take(MAX_REPORTS.saturating_sub(diags.len() - start))
    {
        diags.push(
            Diagnostic::error(
                codes::E0102,
                open.span(file),
                format!("unclosed delimiter `{}`", open.tok),
            )
            .with_label("never closed")
            .with_secondary(eof, "the file ends here")
            .with_help(format!("add the matching `{}`", closer_of(open.tok))),
        );
        first = Some(first.map_or(open.start, |f: u32| f.min(open.start)));
    }
    first
}
