//! Two spellings in class definitions that say nothing the grammar needs,
//! rewritten before the tokens are classified:
//!
//! - the base `std::iterator<Category, T, ...>` (C++98's helper whose only
//!   members are type aliases a class may inherit) is dropped from a base
//!   list: the class then has no such base, and nothing else changes;
//! - a constructor declared with the template's arguments, `X<T>(int n)`
//!   inside `class X`, loses them: it is the constructor `X(int n)`;
//! - a member function's statement `operator++();` (the prefix operator
//!   called by name on the object) becomes `++(*this);`, and likewise
//!   `operator--();`.

use crate::lexer::Token;
use crate::token::Tok;

/// How far a template argument list may reach.
const MAX_SCAN: usize = 256;

/// Rewrites the forms above in `tokens`.
pub fn rewrite(tokens: &mut Vec<Token<'_>>) {
    operator_calls(tokens);
    let has_iterator_base = tokens.windows(3).any(|w| {
        w[0].tok == Tok::Ident("std")
            && w[1].tok == Tok::ColonColon
            && w[2].tok == Tok::Ident("iterator")
    });
    let has_class = tokens
        .iter()
        .any(|t| matches!(t.tok, Tok::Class | Tok::Struct));
    if !has_class {
        return;
    }
    let mut drop = vec![false; tokens.len()];
    // The classes being defined, with the brace depth of their bodies.
    let mut classes: Vec<(&str, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Class | Tok::Struct => {
                if let Some(Tok::Ident(name)) = tokens.get(i + 1).map(|t| t.tok)
                    && let Some(open) = body_start(tokens, i + 2)
                {
                    if has_iterator_base {
                        drop_iterator_bases(tokens, i + 2, open, &mut drop);
                    }
                    classes.push((name, depth + 1));
                }
            }
            Tok::LBrace => depth += 1,
            Tok::RBrace => {
                if classes.last().is_some_and(|(_, d)| *d == depth) {
                    classes.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(name)
                if classes
                    .last()
                    .is_some_and(|(c, d)| *c == name && *d == depth)
                    && member_start(tokens, i)
                    && tokens.get(i + 1).is_some_and(|t| t.tok == Tok::Lt) =>
            {
                if let Some(close) = closing(tokens, i + 1)
                    && tokens.get(close + 1).is_some_and(|t| t.tok == Tok::LParen)
                {
                    for d in &mut drop[i + 1..=close] {
                        *d = true;
                    }
                    i = close;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if drop.iter().any(|d| *d) {
        let mut k = 0;
        tokens.retain(|_| {
            let keep = !drop[k];
            k += 1;
            keep
        });
    }
}

/// The index of the `{` opening a class body whose head continues at
/// `from` (`: bases {`, or `{`), if the head is one.
fn body_start(tokens: &[Token<'_>], from: usize) -> Option<usize> {
    let mut angle = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(from).take(MAX_SCAN) {
        match t.tok {
            Tok::LBrace if angle == 0 => return Some(k),
            Tok::Lt => angle += 1,
            Tok::Gt => angle = angle.saturating_sub(1),
            Tok::Semi | Tok::LParen | Tok::RBrace | Tok::Assign => return None,
            _ => {}
        }
    }
    None
}

/// True when the token at `i` starts a member declaration: it follows
/// `{`, `;`, `}`, an access label's `:` or `explicit`.
fn member_start(tokens: &[Token<'_>], i: usize) -> bool {
    i.checked_sub(1)
        .and_then(|p| tokens.get(p))
        .is_some_and(|t| {
            matches!(
                t.tok,
                Tok::LBrace | Tok::Semi | Tok::RBrace | Tok::Colon | Tok::Explicit
            )
        })
}

/// Marks the base `[access] std::iterator<...>` of the base list in
/// `[from, open)` for dropping, with the `:` or `,` that joins it.
fn drop_iterator_bases(tokens: &[Token<'_>], from: usize, open: usize, drop: &mut [bool]) {
    if tokens.get(from).map(|t| t.tok) != Some(Tok::Colon) {
        return;
    }
    // The bases: spans between the `:`/`,` separators at the outer level.
    let mut bases = Vec::new();
    let mut start = from + 1;
    let mut angle = 0usize;
    for (k, t) in tokens.iter().enumerate().take(open).skip(from + 1) {
        match t.tok {
            Tok::Lt => angle += 1,
            Tok::Gt => angle = angle.saturating_sub(1),
            Tok::Comma if angle == 0 => {
                bases.push((start, k));
                start = k + 1;
            }
            _ => {}
        }
    }
    bases.push((start, open));
    let is_iterator = |(a, b): (usize, usize)| {
        let mut k = a;
        while k < b && matches!(tokens[k].tok, Tok::Public | Tok::Protected | Tok::Private) {
            k += 1;
        }
        k + 3 < b
            && tokens[k].tok == Tok::Ident("std")
            && tokens[k + 1].tok == Tok::ColonColon
            && tokens[k + 2].tok == Tok::Ident("iterator")
            && tokens[k + 3].tok == Tok::Lt
    };
    let kept = bases.iter().filter(|b| !is_iterator(**b)).count();
    for (n, &(a, b)) in bases.iter().enumerate() {
        if !is_iterator((a, b)) {
            continue;
        }
        for d in &mut drop[a..b] {
            *d = true;
        }
        // The separator: the `:` when no base is left, else a comma.
        if kept == 0 {
            drop[from] = true;
        } else if n + 1 < bases.len() {
            drop[b] = true;
        } else if let Some(comma) = a.checked_sub(1) {
            drop[comma] = true;
        }
    }
}

/// The index of the `>` closing the argument list opened at `open`.
fn closing(tokens: &[Token<'_>], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open).take(MAX_SCAN) {
        match t.tok {
            Tok::Lt => depth += 1,
            Tok::Gt => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            Tok::Shr if depth >= 2 => {
                depth -= 2;
                if depth == 0 {
                    return Some(k);
                }
            }
            Tok::Semi | Tok::LBrace | Tok::RBrace => return None,
            _ => {}
        }
    }
    None
}

/// `operator++();` and `operator--();` as statements: `++(*this);`.
fn operator_calls(tokens: &mut Vec<Token<'_>>) {
    let at = |tokens: &[Token<'_>], i: usize| {
        tokens[i].tok == Tok::Operator
            && matches!(
                tokens.get(i + 1).map(|t| t.tok),
                Some(Tok::PlusPlus | Tok::MinusMinus)
            )
            && tokens.get(i + 2).map(|t| t.tok) == Some(Tok::LParen)
            && tokens.get(i + 3).map(|t| t.tok) == Some(Tok::RParen)
            && tokens.get(i + 4).map(|t| t.tok) == Some(Tok::Semi)
            && i.checked_sub(1)
                .and_then(|p| tokens.get(p))
                .is_some_and(|t| matches!(t.tok, Tok::Semi | Tok::LBrace | Tok::RBrace))
    };
    if !(0..tokens.len()).any(|i| at(tokens, i)) {
        return;
    }
    let mut out = Vec::with_capacity(tokens.len() + 4);
    let mut i = 0;
    while i < tokens.len() {
        if at(tokens, i) {
            let (start, end) = (tokens[i].start, tokens[i + 3].end);
            let mark = |tok| Token { tok, start, end };
            out.push(mark(tokens[i + 1].tok));
            out.push(mark(Tok::LParen));
            out.push(mark(Tok::Star));
            out.push(mark(Tok::This));
            out.push(mark(Tok::RParen));
            i += 4;
            continue;
        }
        out.push(tokens[i]);
        i += 1;
    }
    *tokens = out;
}
