//! `std::numeric_limits<T>::max()` without templates in the grammar.
//!
//! The grammar has no way to name a member of a class template
//! specialisation. Before classification, each `numeric_limits<T>::m()` (and
//! `numeric_limits<T>::m` for the data members) is rewritten, keeping the
//! positions of what was written, into the call
//! `numeric_limits::m(static_cast<T>(0))`: the checker reads the type from
//! the argument's and the member from the name (see the checker's
//! `library::limits`). No C++ program can write that call itself
//! (`numeric_limits` without arguments names no class), so nothing else is
//! read differently.

use crate::lexer::Token;
use crate::token::Tok;

/// The members that are functions (`max()`); the others are data (`digits`).
pub const FUNCTIONS: &[&str] = &[
    "max",
    "min",
    "lowest",
    "epsilon",
    "round_error",
    "infinity",
    "quiet_NaN",
    "signaling_NaN",
    "denorm_min",
];

/// Rewrites every `numeric_limits<T>::m()` in `tokens`.
pub fn rewrite(tokens: &mut Vec<Token<'_>>) {
    if !tokens.iter().any(|t| t.tok == Tok::Ident("numeric_limits")) {
        return;
    }
    let mut out = Vec::with_capacity(tokens.len() + 8);
    let mut i = 0;
    while i < tokens.len() {
        match rewrite_at(tokens, i, &mut out) {
            Some(next) => i = next,
            None => {
                out.push(tokens[i]);
                i += 1;
            }
        }
    }
    *tokens = out;
}

/// Rewrites the use at `i`, if there is one; returns the index after it.
fn rewrite_at<'s>(tokens: &[Token<'s>], i: usize, out: &mut Vec<Token<'s>>) -> Option<usize> {
    let at = |k: usize| tokens.get(k).map(|t| t.tok);
    if at(i) != Some(Tok::Ident("numeric_limits")) || at(i + 1) != Some(Tok::Lt) {
        return None;
    }
    // The type: a few tokens without brackets, up to the `>`.
    let close = (i + 2..tokens.len().min(i + 8)).find(|&k| at(k) == Some(Tok::Gt))?;
    if close == i + 2
        || tokens[i + 2..close]
            .iter()
            .any(|t| matches!(t.tok, Tok::Lt | Tok::LParen | Tok::RParen | Tok::Semi))
    {
        return None;
    }
    let Some(Tok::Ident(member)) = at(close + 2) else {
        return None;
    };
    if at(close + 1) != Some(Tok::ColonColon) {
        return None;
    }
    let function = FUNCTIONS.contains(&member);
    let called = at(close + 3) == Some(Tok::LParen) && at(close + 4) == Some(Tok::RParen);
    if function != called {
        return None;
    }
    let (lt, gt, name) = (tokens[i + 1], tokens[close], tokens[close + 2]);
    let with = |tok: Tok<'s>, t: Token<'s>| Token { tok, ..t };
    out.push(tokens[i]);
    out.push(tokens[close + 1]);
    out.push(name);
    let (open, shut) = if called {
        (tokens[close + 3], tokens[close + 4])
    } else {
        (with(Tok::LParen, name), with(Tok::RParen, name))
    };
    out.push(open);
    out.push(with(Tok::StaticCast, lt));
    out.push(lt);
    out.extend_from_slice(&tokens[i + 2..close]);
    out.push(gt);
    out.push(with(Tok::LParen, gt));
    out.push(with(Tok::Int("0"), gt));
    out.push(with(Tok::RParen, gt));
    out.push(shut);
    Some(if called { close + 5 } else { close + 3 })
}
