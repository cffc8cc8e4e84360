//! The bodies of library functions, set aside unparsed.
//!
//! Every program that includes `<amp.h>` or `<iostream>` brings the text of
//! the library headers written in the Tessera language (see
//! [`crate::headers`]), and a program uses few of their functions. Parsing
//! every body was most of the front end's work for a small program, so the
//! parse of a unit replaces each library function body `{ ... }` by one
//! [`Tok::LazyBody`] token and keeps the body's tokens (preprocessed and
//! classified in place, as the parse would have read them) in a
//! [`LazyBody`] that the tree holds. The checker parses a body with
//! [`crate::parse_lazy_body`] when it lowers the function; a body it never
//! lowers is never parsed.
//!
//! A body is set aside only when that cannot change what the program
//! means or what is reported:
//!
//! - it lies in a library header, and every token in it is the header's
//!   own text at its own place (no macro of the program expanded into it);
//! - it is the body of a function at namespace or class scope (see
//!   [`set_aside`] for how that is told from the tokens), not a destructor's
//!   (the checker looks into those when it declares them), and it declares
//!   no class (local classes are named in order by the namespace pass);
//! - it is not empty (an empty body costs nothing to parse, and the checker
//!   asks whether a body is empty).
//!
//! The parser accepts the token only where a function body may stand, so a
//! token set aside by mistake is a syntax error in the header; the unit is
//! then parsed again without setting anything aside (`parse_unit`).

use crate::ast::Block;
use crate::files::Segment;
use crate::lexer::Token;
use crate::token::Tok;
use std::fmt;
use std::sync::Arc;

/// The tokens of the bodies a unit set aside, and the library files they
/// lie in (for spans). Shared by every [`LazyBody`] of the unit.
#[derive(Debug, Default)]
pub struct LazyTokens {
    /// The bodies' tokens, each body's between its braces, one after the
    /// other; their text is the library's, which lives as long as the
    /// program.
    tokens: Vec<Token<'static>>,
    /// The library files of the unit, at their places among positions.
    segments: Vec<Segment<'static>>,
}

/// One function body set aside: where its tokens are, and its braces.
#[derive(Clone)]
pub struct LazyBody {
    /// Its number among the unit's bodies (the checker keys its parsed
    /// bodies by it).
    pub index: u32,
    store: Arc<LazyTokens>,
    /// Its tokens in `store.tokens`, the braces left out.
    first: u32,
    end: u32,
    /// Positions of the `{` and one past the `}`.
    open: u32,
    close: u32,
}

impl LazyBody {
    /// The body's tokens, its braces left out.
    pub fn tokens(&self) -> &[Token<'static>] {
        self.store
            .tokens
            .get(self.first as usize..self.end as usize)
            .unwrap_or(&[])
    }

    /// The library files of the unit (to make spans of positions).
    pub fn segments(&self) -> &[Segment<'static>] {
        &self.store.segments
    }

    /// Positions of the body's `{` and one past its `}`.
    pub fn braces(&self) -> (u32, u32) {
        (self.open, self.close)
    }
}

// The tree derives these; a body set aside is one value however often the
// tree is copied, so it is its number (and its unit's store) that counts.
impl PartialEq for LazyBody {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index && Arc::ptr_eq(&self.store, &other.store)
    }
}

impl fmt::Debug for LazyBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LazyBody({}, {} tokens)",
            self.index,
            self.end - self.first
        )
    }
}

/// A frame of the brace structure met so far.
struct Frame {
    /// Namespace or class scope (a function body may start here).
    scope: bool,
    /// The first token of the declaration being read at this level.
    start: usize,
}

/// Replaces each library function body in `tokens` by a
/// [`Tok::LazyBody`] token and returns the bodies, in order (the token's
/// number is the index). `segments` are the unit's library files with
/// their text, which must be the text the tokens were lexed from.
///
/// A `{` opens a function body when, at namespace or class scope and
/// outside parentheses, the declaration before it has a parameter list
/// (a `(` outside parentheses), no `=` outside parentheses (which would
/// make the braces an initializer or a lambda's; `operator=` excepted), is
/// not a class, enumeration or namespace, and the token before the `{` is
/// `)`, `const`, `volatile`, `override` or `final` (so constructors with a
/// member initialiser list ending in braces, function-try-blocks and
/// trailing return types are parsed as before).
pub fn set_aside(tokens: &mut Vec<Token<'_>>, segments: &[Segment<'static>]) -> Vec<LazyBody> {
    let mut frames = vec![Frame {
        scope: true,
        start: 0,
    }];
    let mut parens = 0usize;
    // (first token index of the body, index of its `}`, library text).
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::LParen => parens += 1,
            Tok::RParen => parens = parens.saturating_sub(1),
            Tok::Semi if parens == 0 => {
                if let Some(f) = frames.last_mut() {
                    f.start = i + 1;
                }
            }
            Tok::Colon
                if parens == 0
                    && i > 0
                    && matches!(
                        tokens[i - 1].tok,
                        Tok::Public | Tok::Private | Tok::Protected
                    ) =>
            {
                if let Some(f) = frames.last_mut() {
                    f.start = i + 1;
                }
            }
            Tok::LBrace => {
                let (scope, start) = frames.last().map_or((false, i), |f| (f.scope, f.start));
                let decl = tokens.get(start..i).unwrap_or(&[]);
                if scope
                    && parens == 0
                    && is_function_head(decl)
                    && let Some(close) = matching_brace(tokens, i)
                    && let Some(seg) = library_body(tokens, i, close, segments)
                {
                    found.push((i, close, seg));
                    if let Some(f) = frames.last_mut() {
                        f.start = close + 1;
                    }
                    i = close + 1;
                    continue;
                }
                let opens_scope = parens == 0 && scope && opens_scope(decl);
                frames.push(Frame {
                    scope: opens_scope,
                    start: i + 1,
                });
            }
            Tok::RBrace => {
                if frames.len() > 1 {
                    frames.pop();
                }
                if let Some(f) = frames.last_mut() {
                    f.start = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if found.is_empty() {
        return Vec::new();
    }
    let kept = found.iter().map(|&(open, close, _)| close - open - 1).sum();
    let mut store = LazyTokens {
        tokens: Vec::with_capacity(kept),
        segments: segments.to_vec(),
    };
    let mut ranges = Vec::with_capacity(found.len());
    for &(open, close, seg) in &found {
        let first = store.tokens.len() as u32;
        let text = segments[seg];
        store.tokens.extend(tokens[open + 1..close].iter().map(|t| {
            let own = local_text(text, t).unwrap_or("");
            Token {
                tok: t.tok.with_text(own),
                start: t.start,
                end: t.end,
            }
        }));
        ranges.push((first, store.tokens.len() as u32));
    }
    let store = Arc::new(store);
    let mut out = Vec::with_capacity(tokens.len());
    let mut bodies = Vec::with_capacity(found.len());
    let mut next = 0;
    for (k, (&(open, close, _), &(first, end))) in found.iter().zip(&ranges).enumerate() {
        out.extend_from_slice(&tokens[next..open]);
        let (from, to) = (tokens[open].start, tokens[close].end);
        out.push(Token {
            tok: Tok::LazyBody(k as u32),
            start: from,
            end: to,
        });
        bodies.push(LazyBody {
            index: k as u32,
            store: Arc::clone(&store),
            first,
            end,
            open: from,
            close: to,
        });
        next = close + 1;
    }
    out.extend_from_slice(&tokens[next..]);
    *tokens = out;
    bodies
}

/// Whether the declaration `decl`, followed by `{`, is a function's head.
fn is_function_head(decl: &[Token<'_>]) -> bool {
    let Some(last) = decl.last() else {
        return false;
    };
    if !matches!(
        last.tok,
        Tok::RParen | Tok::Const | Tok::Volatile | Tok::Override | Tok::Final
    ) {
        return false;
    }
    let mut parens = 0usize;
    let mut params = false;
    for (k, t) in decl.iter().enumerate() {
        let after_operator = k > 0 && decl[k - 1].tok == Tok::Operator;
        match t.tok {
            Tok::LParen => {
                if parens == 0 {
                    params = true;
                }
                parens += 1;
            }
            Tok::RParen => parens = parens.saturating_sub(1),
            // An initializer, a lambda's body, `= default`.
            Tok::Assign if parens == 0 && !after_operator => return false,
            // A destructor: the checker looks into its body at once.
            Tok::Tilde if parens == 0 && !after_operator => return false,
            // A class, enumeration or namespace (`template <class T>`
            // names a parameter, not a class).
            Tok::Struct | Tok::Class | Tok::Union | Tok::Enum | Tok::Namespace | Tok::Typedef
                if parens == 0 && !in_template_params(decl, k) =>
            {
                return false;
            }
            _ => {}
        }
    }
    params
}

/// Whether token `k` of `decl` lies in a template parameter list.
fn in_template_params(decl: &[Token<'_>], k: usize) -> bool {
    let mut depth = 0i32;
    for t in &decl[..k] {
        match t.tok {
            Tok::TplOpen | Tok::Lt => depth += 1,
            Tok::TplClose | Tok::Gt => depth -= 1,
            Tok::Shr => depth -= 2,
            _ => {}
        }
    }
    depth > 0
}

/// Whether the `{` after `decl` opens a namespace, a class or a linkage
/// block, whose members may be functions with bodies.
fn opens_scope(decl: &[Token<'_>]) -> bool {
    decl.iter().enumerate().any(|(k, t)| {
        matches!(
            t.tok,
            Tok::Namespace | Tok::Struct | Tok::Class | Tok::Union | Tok::Extern
        ) && !in_template_params(decl, k)
    })
}

/// The index of the `}` that closes the `{` at `open`.
fn matching_brace(tokens: &[Token<'_>], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.tok {
            Tok::LBrace => depth += 1,
            Tok::RBrace => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// If the body from `open` to `close` may be set aside, the index in
/// `segments` of the library file it lies in.
fn library_body(
    tokens: &[Token<'_>],
    open: usize,
    close: usize,
    segments: &[Segment<'static>],
) -> Option<usize> {
    // An empty body is no work to parse, and the checker asks whether a
    // body is empty.
    if close <= open + 1 {
        return None;
    }
    let at = tokens[open].start;
    let seg = segments.iter().position(|s| s.base <= at && at < s.end())?;
    let text = segments[seg];
    let mut last = 0u32;
    for t in &tokens[open..=close] {
        // Out of order or shared positions: a macro's expansion.
        if t.start < last || t.end < t.start {
            return None;
        }
        last = t.end;
        let own = local_text(text, t)?;
        let spelt = match t.tok {
            // A local class is named by its place among the function's.
            Tok::Struct | Tok::Class | Tok::Union | Tok::Enum => return None,
            // Half of `>>`, and the classified `delete []` and `decltype((`,
            // cover other text than they spell.
            Tok::TplClose => own.starts_with('>'),
            Tok::DeleteArray => own.starts_with("delete"),
            Tok::DecltypeParen => own.starts_with("decltype"),
            Tok::LazyBody(_) => false,
            tok => tok.spelling() == own,
        };
        if !spelt {
            return None;
        }
    }
    Some(seg)
}

/// The text of the library file `seg` at token `t`'s place.
fn local_text(seg: Segment<'static>, t: &Token<'_>) -> Option<&'static str> {
    if t.start < seg.base || t.end > seg.end() {
        return None;
    }
    seg.text
        .get((t.start - seg.base) as usize..(t.end - seg.base) as usize)
}

/// A block standing for body `index` of `lazy` (its statements are parsed
/// later), spanning `l..r`.
pub fn block(lazy: &[LazyBody], index: u32, span: tessera_diagnostics::Span) -> Block {
    Block {
        stmts: Vec::new(),
        span,
        lazy: lazy.get(index as usize).cloned(),
    }
}
