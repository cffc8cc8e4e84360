//! Member types of library containers named through the container's type:
//! `std::vector<T>::size_type`, `std::vector<T>::value_type`,
//! `array_view<T, N>::value_type`. They are rewritten, before the tokens
//! are classified, into the type they name (`size_t`, `ptrdiff_t`, or the
//! element type's own tokens), so the grammar needs no form for a member
//! of a template instance. A vector's `iterator` and `const_iterator`
//! become `T*` and `const T*`: a stored vector iterator is a pointer to its
//! element in Tessera (as in several standard libraries), checked like any
//! pointer. The `type` of the type traits that strip qualifiers
//! (`std::remove_const<T>::type`) becomes the library template
//! `__remove_const<T>`, which the checker resolves; `std::is_same<A,
//! B>::value` becomes `__is_same<A, B>::value`, whose value the checker
//! finds (its arguments are rewritten like any other tokens).

use crate::lexer::Token;
use crate::token::Tok;

/// Library class templates whose member types are rewritten, with the
/// members each has.
const CONTAINERS: &[(&str, &[&str])] = &[
    ("vector", SEQUENCE),
    ("deque", SEQUENCE),
    ("list", SEQUENCE),
    ("set", SEQUENCE),
    ("multiset", SEQUENCE),
    ("unordered_set", SEQUENCE),
    ("unordered_multiset", SEQUENCE),
    ("array", &["value_type"]),
    ("array_view", &["value_type"]),
    ("remove_const", &["type"]),
    ("remove_volatile", &["type"]),
    ("remove_cv", &["type"]),
];

/// The type traits of [`CONTAINERS`], with the library template each
/// one's `type` becomes.
pub const QUALIFIER_TRAITS: &[(&str, &str)] = &[
    ("remove_const", "__remove_const"),
    ("remove_volatile", "__remove_volatile"),
    ("remove_cv", "__remove_cv"),
];

/// The member types of the host containers.
const SEQUENCE: &[&str] = &[
    "size_type",
    "difference_type",
    "value_type",
    "iterator",
    "const_iterator",
    "reverse_iterator",
    "const_reverse_iterator",
];

/// The library templates an iterator type of a container becomes when it
/// is not a pointer: `set<int>::iterator` is `__iterator<std::set<int>>`.
/// The checker resolves them (`Type::Iter`).
pub const ITERATOR_TEMPLATES: &[&str] = &[
    "__iterator",
    "__const_iterator",
    "__reverse_iterator",
    "__const_reverse_iterator",
];

/// How far a template argument list may reach.
const MAX_SCAN: usize = 256;

/// The member types of `std::string`: its iterators are pointers to its
/// characters (`<string>`'s `begin()` returns one).
const STRING_MEMBERS: &[&str] = &[
    "size_type",
    "difference_type",
    "value_type",
    "iterator",
    "const_iterator",
];

/// Rewrites every `std::string::member` of [`STRING_MEMBERS`] in `tokens`
/// into the type it names.
fn rewrite_string_members(tokens: &mut Vec<Token<'_>>) {
    let at = |i: usize, tokens: &[Token<'_>]| {
        matches!(tokens[i].tok, Tok::Ident("string"))
            && tokens
                .get(i + 1)
                .is_some_and(|t| matches!(t.tok, Tok::ColonColon))
            && matches!(tokens.get(i + 2).map(|t| t.tok), Some(Tok::Ident(m)) if STRING_MEMBERS.contains(&m))
    };
    if !(0..tokens.len()).any(|i| at(i, tokens)) {
        return;
    }
    let mut out: Vec<Token<'_>> = Vec::with_capacity(tokens.len());
    let mut starred: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if at(i, tokens) {
            take_back_qualifiers(&mut out);
            let (start, end) = (tokens[i].start, tokens[i + 2].end);
            let mark = |tok| Token { tok, start, end };
            match tokens[i + 2].tok {
                Tok::Ident("size_type") => out.push(mark(Tok::Ident("size_t"))),
                Tok::Ident("difference_type") => out.push(mark(Tok::Ident("ptrdiff_t"))),
                Tok::Ident("value_type") => out.push(mark(Tok::CharKw)),
                member => {
                    if member == Tok::Ident("const_iterator") {
                        out.push(mark(Tok::Const));
                    }
                    out.push(mark(Tok::CharKw));
                    out.push(mark(Tok::Star));
                    starred.extend(later_declarators(tokens, i + 3));
                }
            }
            i += 3;
            continue;
        }
        if starred.contains(&i) {
            out.push(Token {
                tok: Tok::Star,
                start: tokens[i].start,
                end: tokens[i].start,
            });
        }
        out.push(tokens[i]);
        i += 1;
    }
    *tokens = out;
}

/// Rewrites every `C<args>::member` of [`CONTAINERS`] in `tokens`.
pub fn rewrite(tokens: &mut Vec<Token<'_>>) {
    rewrite_string_members(tokens);
    // The `<` first: it rules most identifiers out without comparing
    // their names.
    let opens = |i: usize, tokens: &[Token<'_>]| {
        tokens.get(i + 1).is_some_and(|t| matches!(t.tok, Tok::Lt))
            && matches!(tokens[i].tok, Tok::Ident(name) if name == "is_same" || CONTAINERS.iter().any(|(c, _)| *c == name))
    };
    if !(0..tokens.len()).any(|i| opens(i, tokens)) {
        return;
    }
    let mut out: Vec<Token<'_>> = Vec::with_capacity(tokens.len());
    // Declarators after the first of a declaration whose type became a
    // pointer (`vector<int>::iterator a = x, b = y;`) get their own `*`.
    let mut starred: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if opens(i, tokens) && is_same_value(tokens, i) {
            // Only the name changes: the arguments go through this loop.
            take_back_qualifiers(&mut out);
            out.push(Token {
                tok: Tok::Ident("__is_same"),
                ..tokens[i]
            });
            i += 1;
            continue;
        }
        if opens(i, tokens)
            && let Some(next) = rewrite_at(tokens, i, &mut out)
        {
            if out.last().is_some_and(|t| t.tok == Tok::Star) {
                starred.extend(later_declarators(tokens, next));
            }
            i = next;
            continue;
        }
        if starred.contains(&i) {
            out.push(Token {
                tok: Tok::Star,
                start: tokens[i].start,
                end: tokens[i].start,
            });
        }
        out.push(tokens[i]);
        i += 1;
    }
    *tokens = out;
}

/// True for `is_same<...>::value` at `i`.
fn is_same_value(tokens: &[Token<'_>], i: usize) -> bool {
    if tokens[i].tok != Tok::Ident("is_same") {
        return false;
    }
    let Some(close) = closing(tokens, i + 1) else {
        return false;
    };
    tokens.get(close + 1).map(|t| t.tok) == Some(Tok::ColonColon)
        && tokens.get(close + 2).map(|t| t.tok) == Some(Tok::Ident("value"))
}

/// Takes back the `std ::` (or a leading `::`) already pushed before a
/// library name.
fn take_back_qualifiers(out: &mut Vec<Token<'_>>) {
    if let [
        ..,
        Token {
            tok: Tok::Ident("std"),
            ..
        },
        Token {
            tok: Tok::ColonColon,
            ..
        },
    ] = out.as_slice()
    {
        out.truncate(out.len() - 2);
    }
    if let [
        ..,
        Token {
            tok: Tok::ColonColon,
            ..
        },
    ] = out.as_slice()
    {
        out.truncate(out.len() - 1);
    }
}

/// The names of the declarators after the first in the declaration whose
/// first declarator starts at `from`: an identifier after a comma at the
/// outer level, followed by `=`, `,`, `;`, `(` or `{`. Stops at the end of
/// the declaration (or of the parameter it is in).
fn later_declarators(tokens: &[Token<'_>], from: usize) -> Vec<usize> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(from).take(MAX_SCAN) {
        match t.tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => break,
            },
            Tok::Semi if depth == 0 => break,
            Tok::Comma if depth == 0 => {
                let name = matches!(tokens.get(k + 1).map(|t| t.tok), Some(Tok::Ident(_)));
                let after = tokens.get(k + 2).map(|t| t.tok);
                let declarator = matches!(
                    after,
                    Some(Tok::Assign | Tok::Comma | Tok::Semi | Tok::LParen | Tok::LBrace)
                );
                if name && declarator {
                    found.push(k + 1);
                }
            }
            _ => {}
        }
    }
    found
}

/// The index of the `>` closing the argument list opened at `open`, if it
/// closes plainly (no `>>`, no statement punctuation on the way).
fn closing(tokens: &[Token<'_>], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut parens = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open).take(MAX_SCAN) {
        match t.tok {
            Tok::Lt if parens == 0 => depth += 1,
            Tok::Gt if parens == 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            Tok::LParen => parens += 1,
            Tok::RParen => parens = parens.checked_sub(1)?,
            Tok::Shr | Tok::Semi | Tok::LBrace | Tok::RBrace => return None,
            _ => {}
        }
    }
    None
}

/// Rewrites the use at `i` (the container's name), pushing the result to
/// `out` after taking back the qualifiers already pushed (`std::`,
/// `typename`); the index after the use, or `None` when it is not one.
fn rewrite_at<'s>(tokens: &[Token<'s>], i: usize, out: &mut Vec<Token<'s>>) -> Option<usize> {
    let Tok::Ident(container) = tokens[i].tok else {
        return None;
    };
    let members = CONTAINERS.iter().find(|(c, _)| *c == container)?.1;
    let close = closing(tokens, i + 1)?;
    if tokens.get(close + 1)?.tok != Tok::ColonColon {
        return None;
    }
    let Tok::Ident(member) = tokens.get(close + 2)?.tok else {
        return None;
    };
    if !members.contains(&member) {
        return None;
    }
    // Take back `std ::`, `concurrency ::`, a leading `::` and `typename`.
    let mut start = tokens[i].start;
    loop {
        match out.as_slice() {
            [
                ..,
                Token {
                    tok: Tok::Ident(ns),
                    start: s,
                    ..
                },
                Token {
                    tok: Tok::ColonColon,
                    ..
                },
            ] if matches!(*ns, "std" | "concurrency" | "Concurrency") => {
                start = *s;
                out.truncate(out.len() - 2);
            }
            [
                ..,
                Token {
                    tok: Tok::ColonColon,
                    start: s,
                    ..
                },
            ]
            | [
                ..,
                Token {
                    tok: Tok::Typename,
                    start: s,
                    ..
                },
            ] => {
                start = *s;
                out.truncate(out.len() - 1);
            }
            _ => break,
        }
    }
    let end = tokens[close + 2].end;
    let named = |name: &'s str| Token {
        tok: Tok::Ident(name),
        start,
        end,
    };
    let pointer = matches!(container, "vector" | "deque");
    if let Some((_, template)) = QUALIFIER_TRAITS.iter().find(|(t, _)| *t == container) {
        // `__remove_const<args>`: the trait's own argument list.
        out.push(Token {
            tok: Tok::Ident(template),
            start,
            end: tokens[i].end,
        });
        out.extend_from_slice(&tokens[i + 1..=close]);
        return Some(close + 3);
    }
    match member {
        "size_type" => out.push(named("size_t")),
        "difference_type" => out.push(named("ptrdiff_t")),
        "iterator" | "const_iterator" | "reverse_iterator" | "const_reverse_iterator"
            if !pointer || member.ends_with("reverse_iterator") =>
        {
            // `__iterator<std::C<args>>` and its kin.
            let mark = |tok: Tok<'s>| Token { tok, start, end };
            let template = match member {
                "iterator" => ITERATOR_TEMPLATES[0],
                "const_iterator" => ITERATOR_TEMPLATES[1],
                "reverse_iterator" => ITERATOR_TEMPLATES[2],
                _ => ITERATOR_TEMPLATES[3],
            };
            out.push(mark(Tok::Ident(template)));
            out.push(mark(Tok::Lt));
            out.push(mark(Tok::Ident("std")));
            out.push(mark(Tok::ColonColon));
            out.extend_from_slice(&tokens[i..=close]);
            out.push(mark(Tok::Gt));
        }
        "iterator" | "const_iterator" => {
            let elem = element_tokens(tokens, i, close)?;
            let mark = |tok: Tok<'s>| Token { tok, start, end };
            if member == "const_iterator" {
                out.push(mark(Tok::Const));
            }
            out.extend_from_slice(elem);
            out.push(mark(Tok::Star));
        }
        _ => {
            let elem = element_tokens(tokens, i, close)?;
            out.extend_from_slice(elem);
        }
    }
    Some(close + 3)
}

/// The tokens of the first template argument of the list opened after the
/// name at `i` and closed at `close`: up to a comma outside brackets.
fn element_tokens<'t, 's>(
    tokens: &'t [Token<'s>],
    i: usize,
    close: usize,
) -> Option<&'t [Token<'s>]> {
    let mut depth = 0usize;
    let mut end_arg = close;
    for (k, t) in tokens.iter().enumerate().take(close).skip(i + 2) {
        match t.tok {
            Tok::Lt | Tok::LParen => depth += 1,
            Tok::Gt | Tok::RParen => depth = depth.saturating_sub(1),
            Tok::Comma if depth == 0 => {
                end_arg = k;
                break;
            }
            _ => {}
        }
    }
    (end_arg > i + 2).then(|| &tokens[i + 2..end_arg])
}
