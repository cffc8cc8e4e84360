//! The `#` (stringizing) and `##` (token pasting) operators of macro
//! bodies. Both make tokens whose text is not in any source file; that text
//! is kept in a process-wide table of interned strings, so the tokens can
//! borrow it like any other. The table only grows (a compiler run is
//! short; the REPL re-uses entries) and is capped so that no input can
//! make it grow without bound.

use crate::lexer::Token;
use crate::token::Tok;
use logos::Logos;
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// The most text the table holds, in bytes.
const MAX_INTERNED: usize = 16 << 20;

struct Interned {
    strings: HashSet<&'static str>,
    bytes: usize,
}

fn table() -> &'static Mutex<Interned> {
    static TABLE: OnceLock<Mutex<Interned>> = OnceLock::new();
    TABLE.get_or_init(|| {
        Mutex::new(Interned {
            strings: HashSet::new(),
            bytes: 0,
        })
    })
}

/// `text` as a string that lives as long as the program; `None` when the
/// table is full.
pub(super) fn intern(text: String) -> Option<&'static str> {
    // A poisoned lock only means another thread panicked while holding
    // it; the set itself is still whole.
    let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = t.strings.get(text.as_str()) {
        return Some(found);
    }
    if t.bytes.saturating_add(text.len()) > MAX_INTERNED {
        return None;
    }
    t.bytes += text.len();
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    t.strings.insert(leaked);
    Some(leaked)
}

/// The spelling of a token as the preprocessor sees it.
fn spelling(tok: Tok<'_>) -> String {
    tok.to_string()
}

/// Why a `#` or `##` produced no token.
pub(super) enum Failure {
    /// The two tokens do not make one token together.
    NotAToken(String),
    /// The table of made-up text is full.
    Full,
}

/// `#arg`: a string literal spelling the argument's tokens, one space where
/// the source had white space between two of them, with `"` and `\` in
/// string and character literals escaped.
pub(super) fn stringize<'s>(arg: &[Token<'s>]) -> Result<Tok<'s>, Failure> {
    let mut text = String::from("\"");
    for (k, t) in arg.iter().enumerate() {
        if k > 0 && arg[k - 1].end != t.start {
            text.push(' ');
        }
        let s = spelling(t.tok);
        if matches!(t.tok, Tok::Str(_) | Tok::Char(_)) {
            for c in s.chars() {
                if c == '"' || c == '\\' {
                    text.push('\\');
                }
                text.push(c);
            }
        } else {
            text.push_str(&s);
        }
    }
    text.push('"');
    intern(text).map(Tok::Str).ok_or(Failure::Full)
}

/// `a ## b`: the one token the two spellings make together.
pub(super) fn paste<'s>(a: Tok<'s>, b: Tok<'s>) -> Result<Tok<'s>, Failure> {
    let joined = format!("{}{}", spelling(a), spelling(b));
    let mut lexer = Tok::lexer(&joined);
    let one = matches!(lexer.next(), Some(Ok(_)))
        && lexer.span() == (0..joined.len())
        && lexer.next().is_none();
    if !one || joined.is_empty() {
        return Err(Failure::NotAToken(joined));
    }
    let text = intern(joined).ok_or(Failure::Full)?;
    match Tok::lexer(text).next() {
        Some(Ok(tok)) => Ok(tok),
        _ => Err(Failure::NotAToken(text.to_string())),
    }
}
