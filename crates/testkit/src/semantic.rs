//! Mutations that keep a program's syntax (mostly) valid but change what it
//! means, so that mutants get past the parser and exercise the checker.
//!
//! Byte-level mutants ([`crate::mutate`]) rarely parse; these work on the
//! tokens of the text ([`lex`]) and on whole lines, and each produces text
//! the parser usually accepts:
//!
//! - swap an identifier for another identifier of the same text;
//! - change a numeric literal to 0, -1, 1025, 65 or a huge value;
//! - swap `restrict(amp)`, `restrict(cpu)` and `restrict(amp, cpu)`;
//! - remove or duplicate a `barrier.wait();` statement;
//! - wrap a statement in `if (t_idx.local[0] == 0) { ... }` (with the name of
//!   the nearest kernel's index before it);
//! - change a lambda's default capture `[=]` to `[&]` and back;
//! - change a size of `tile<...>`, `tiled_index<...>` or `tiled_extent<...>`;
//! - remove or duplicate a declaration line, or remove a statement line.
//!
//! [`mutate_run_time`] aims at run time instead (the engines' checks and
//! their agreement): literals at the edges of their types, swapped
//! operators, indices pushed off, in kernels or anywhere.
//!
//! Deterministic like the rest of the kit: the same [`Rng`] state and text
//! give the same mutant.

use crate::mutate::Rng;
use std::fmt::Write as _;
use std::ops::Range;
use tessera_diagnostics::FileId;
use tessera_syntax::lexer::{Token, lex};
use tessera_syntax::token::Tok;

/// Numeric literals put in place of others: zero, negative, just past the
/// usual limits (1,024 threads per tile), odd, and too big for `int` or for
/// any type.
pub const LITERALS: &[&str] = &[
    "0",
    "-1",
    "1025",
    "65",
    "2147483648",
    "4294967296",
    "18446744073709551616",
    "1e39f",
];

/// Tile sizes put in place of others.
pub const TILE_SIZES: &[&str] = &["1", "2", "3", "4", "7", "16", "0", "-1", "1024", "1025"];

/// Restriction specifiers swapped for one another.
const RESTRICTIONS: &[&str] = &["amp", "cpu", "amp, cpu"];

/// How many kinds of mutation there are (numbered as in `Doc::edit`).
const KINDS: usize = 10;

/// A mutated text and what was done to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    /// The mutated text.
    pub text: String,
    /// The mutations applied, one `;`-terminated entry each, each preceded by
    /// a space (for example ` literal 12..14 "16" -> "1025";`).
    pub log: String,
}

/// Mutates a copy of `text` by one to three [`mutate_once`] steps, and once
/// in eight times by up to five more.
pub fn mutate(rng: &mut Rng, text: &str) -> Mutant {
    let mut out = text.to_string();
    let mut log = String::new();
    let rounds = 1 + rng.below(3) + if rng.below(8) == 0 { rng.below(6) } else { 0 };
    for _ in 0..rounds {
        mutate_once(rng, &mut out, &mut log);
    }
    Mutant { text: out, log }
}

/// Applies one semantic mutation to `text` and appends a description of it
/// to `log`. A kind of mutation is chosen at random; when the text offers it
/// no place (no barrier, say), the next kind is tried. Returns false when no
/// kind applies (for example in an empty text).
pub fn mutate_once(rng: &mut Rng, text: &mut String, log: &mut String) -> bool {
    let first = rng.below(KINDS);
    let edit = {
        let doc = Doc::new(text);
        (0..KINDS).find_map(|k| doc.edit((first + k) % KINDS, rng))
    };
    let Some(edit) = edit else {
        return false;
    };
    let _ = write!(
        log,
        " {} {}..{} {:?} -> {:?};",
        edit.what,
        edit.range.start,
        edit.range.end,
        first_chars(&text[edit.range.clone()], 60),
        first_chars(&edit.replacement, 60)
    );
    text.replace_range(edit.range, &edit.replacement);
    true
}

fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// A replacement of a byte range of the text.
struct Edit {
    what: &'static str,
    range: Range<usize>,
    replacement: String,
}

/// How a `{` opens: a block of statements, or something else (a struct, an
/// initialiser list).
#[derive(Clone, Copy, PartialEq)]
enum Brace {
    Code,
    Other,
}

/// One line's tokens, with what the line is.
struct Line {
    /// Index range into [`Doc::toks`] (never empty).
    toks: Range<usize>,
    /// Byte range of the whole line, its newline included when there is one.
    bytes: Range<usize>,
    /// A whole statement or declaration on its own line.
    statement: bool,
    /// Inside a block of statements (a function or lambda body).
    in_code: bool,
}

/// A text with its tokens and lines.
struct Doc<'s> {
    text: &'s str,
    toks: Vec<Token<'s>>,
    lines: Vec<Line>,
}

impl<'s> Doc<'s> {
    fn new(text: &'s str) -> Self {
        let mut diags = Vec::new();
        let all = lex(FileId(0), text, &[], &mut diags);
        // Tokens without the newlines, and the lines as index ranges.
        let mut toks = Vec::with_capacity(all.len());
        let mut ranges = Vec::new();
        let mut start = 0;
        for t in all {
            if t.tok == Tok::Newline {
                if toks.len() > start {
                    ranges.push(start..toks.len());
                }
                start = toks.len();
            } else {
                toks.push(t);
            }
        }
        if toks.len() > start {
            ranges.push(start..toks.len());
        }

        let mut braces: Vec<Brace> = Vec::new();
        let mut lines = Vec::with_capacity(ranges.len());
        let mut prev_last: Option<Tok<'_>> = None;
        let mut prev_directive = true;
        for r in ranges {
            let line_toks = &toks[r.clone()];
            let first = line_toks[0].tok;
            let last = line_toks[line_toks.len() - 1].tok;
            let directive = first == Tok::Hash;
            let in_code = braces.last() == Some(&Brace::Code);
            let statement = !directive
                && last == Tok::Semi
                && balanced(line_toks)
                && !matches!(
                    first,
                    Tok::For
                        | Tok::Else
                        | Tok::Case
                        | Tok::Default
                        | Tok::RBrace
                        | Tok::Public
                        | Tok::Private
                        | Tok::Protected
                )
                && (prev_directive
                    || matches!(
                        prev_last,
                        None | Some(
                            Tok::Semi
                                | Tok::LBrace
                                | Tok::RBrace
                                | Tok::Colon
                                | Tok::RParen
                                | Tok::Else
                                | Tok::Do
                        )
                    ));
            if !directive {
                for (i, t) in line_toks.iter().enumerate() {
                    match t.tok {
                        Tok::LBrace => {
                            let before = if i > 0 {
                                Some(line_toks[i - 1].tok)
                            } else {
                                prev_last
                            };
                            let code = matches!(
                                before,
                                Some(
                                    Tok::RParen
                                        | Tok::Else
                                        | Tok::Do
                                        | Tok::Mutable
                                        | Tok::Semi
                                        | Tok::RBrace
                                        | Tok::Colon
                                )
                            ) || (before == Some(Tok::LBrace)
                                && braces.last() == Some(&Brace::Code));
                            braces.push(if code { Brace::Code } else { Brace::Other });
                        }
                        Tok::RBrace => {
                            braces.pop();
                        }
                        _ => {}
                    }
                }
                prev_last = Some(last);
            }
            prev_directive = directive;
            let from = line_toks[0].start as usize;
            let to = line_toks[line_toks.len() - 1].end as usize;
            let begin = text[..from].rfind('\n').map_or(0, |i| i + 1);
            let end = text[to..].find('\n').map_or(text.len(), |i| to + i + 1);
            lines.push(Line {
                toks: r,
                bytes: begin..end,
                statement,
                in_code,
            });
        }
        Doc { text, toks, lines }
    }

    fn tok_text(&self, i: usize) -> &'s str {
        let t = &self.toks[i];
        &self.text[t.start as usize..t.end as usize]
    }

    fn tok_range(&self, i: usize) -> Range<usize> {
        let t = &self.toks[i];
        t.start as usize..t.end as usize
    }

    /// Whether token `i` is on a preprocessor directive's line.
    fn directive_tokens(&self) -> Vec<bool> {
        let mut flags = vec![false; self.toks.len()];
        for line in &self.lines {
            if self.toks[line.toks.start].tok == Tok::Hash {
                for f in &mut flags[line.toks.clone()] {
                    *f = true;
                }
            }
        }
        flags
    }

    /// The mutation of kind `kind`, or `None` when the text has no place for it.
    fn edit(&self, kind: usize, rng: &mut Rng) -> Option<Edit> {
        match kind {
            0 => self.swap_identifier(rng),
            1 => self.change_literal(rng),
            2 => self.swap_restriction(rng),
            3 => self.barrier(rng),
            4 => self.wrap_statement(rng),
            5 => self.flip_capture(rng),
            6 => self.tile_size(rng),
            7 => self.declaration(rng, false),
            8 => self.declaration(rng, true),
            _ => self.remove_statement(rng),
        }
    }

    fn swap_identifier(&self, rng: &mut Rng) -> Option<Edit> {
        let directive = self.directive_tokens();
        let places: Vec<usize> = (0..self.toks.len())
            .filter(|&i| !directive[i] && matches!(self.toks[i].tok, Tok::Ident(_)))
            .collect();
        let mut names: Vec<&str> = places.iter().map(|&i| self.tok_text(i)).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() < 2 {
            return None;
        }
        let at = *rng.pick(&places);
        let old = self.tok_text(at);
        let mut new = *rng.pick(&names);
        if new == old {
            new = names[(names.iter().position(|&n| n == old).unwrap_or(0) + 1) % names.len()];
        }
        Some(Edit {
            what: "identifier",
            range: self.tok_range(at),
            replacement: new.to_string(),
        })
    }

    fn change_literal(&self, rng: &mut Rng) -> Option<Edit> {
        let places: Vec<usize> = (0..self.toks.len())
            .filter(|&i| matches!(self.toks[i].tok, Tok::Int(_) | Tok::Float(_)))
            .collect();
        if places.is_empty() {
            return None;
        }
        let at = *rng.pick(&places);
        Some(Edit {
            what: "literal",
            range: self.tok_range(at),
            replacement: (*rng.pick(LITERALS)).to_string(),
        })
    }

    fn swap_restriction(&self, rng: &mut Rng) -> Option<Edit> {
        // `restrict ( ... )`: the range between the parentheses.
        let places: Vec<Range<usize>> = (0..self.toks.len())
            .filter(|&i| {
                self.toks[i].tok == Tok::Restrict
                    && self.toks.get(i + 1).map(|t| t.tok) == Some(Tok::LParen)
            })
            .filter_map(|i| {
                let close = (i + 2..self.toks.len().min(i + 8))
                    .find(|&k| self.toks[k].tok == Tok::RParen)?;
                Some(self.toks[i + 1].end as usize..self.toks[close].start as usize)
            })
            .collect();
        if places.is_empty() {
            return None;
        }
        let range = rng.pick(&places).clone();
        let old = self.text[range.clone()].trim();
        let others: Vec<&str> = RESTRICTIONS.iter().copied().filter(|&r| r != old).collect();
        Some(Edit {
            what: "restrict",
            range,
            replacement: (*rng.pick(&others)).to_string(),
        })
    }

    /// Statement lines holding `barrier.wait...`.
    fn barrier_lines(&self) -> Vec<usize> {
        (0..self.lines.len())
            .filter(|&l| {
                let r = self.lines[l].toks.clone();
                self.lines[l].statement
                    && r.clone().any(|i| {
                        self.toks[i].tok == Tok::Ident("barrier")
                            && self.toks.get(i + 1).map(|t| t.tok) == Some(Tok::Dot)
                            && matches!(
                                self.toks.get(i + 2).map(|t| t.tok),
                                Some(Tok::Ident(w)) if w.starts_with("wait")
                            )
                    })
            })
            .collect()
    }

    fn barrier(&self, rng: &mut Rng) -> Option<Edit> {
        let places = self.barrier_lines();
        if places.is_empty() {
            return None;
        }
        let line = &self.lines[*rng.pick(&places)];
        let text = &self.text[line.bytes.clone()];
        if rng.below(2) == 0 {
            Some(Edit {
                what: "remove barrier",
                range: line.bytes.clone(),
                replacement: String::new(),
            })
        } else {
            let copy = if text.ends_with('\n') {
                text.to_string()
            } else {
                format!("\n{text}")
            };
            Some(Edit {
                what: "duplicate barrier",
                range: line.bytes.end..line.bytes.end,
                replacement: copy,
            })
        }
    }

    /// The condition `first thread of the tile` in terms of the last kernel
    /// index declared before byte `at` (`t_idx` when there is none).
    fn first_thread_condition(&self, at: usize) -> String {
        let mut found = None;
        for i in 0..self.toks.len() {
            if self.toks[i].start as usize >= at {
                break;
            }
            let tiled = match self.toks[i].tok {
                Tok::Ident("tiled_index") => true,
                Tok::Ident("index") => false,
                _ => continue,
            };
            if self.toks.get(i + 1).map(|t| t.tok) != Some(Tok::Lt) {
                continue;
            }
            let Some(close) =
                (i + 2..self.toks.len().min(i + 10)).find(|&k| self.toks[k].tok == Tok::Gt)
            else {
                continue;
            };
            if let Some(Tok::Ident(name)) = self.toks.get(close + 1).map(|t| t.tok) {
                found = Some((tiled, name));
            }
        }
        match found {
            Some((false, name)) => format!("{name}[0] == 0"),
            Some((true, name)) => format!("{name}.local[0] == 0"),
            None => "t_idx.local[0] == 0".to_string(),
        }
    }

    fn wrap_statement(&self, rng: &mut Rng) -> Option<Edit> {
        // A barrier in one thread of the tile only is the interesting case:
        // one time in three when there is a barrier.
        let barriers = self.barrier_lines();
        let places: Vec<usize> = if !barriers.is_empty() && rng.below(3) == 0 {
            barriers
        } else {
            (0..self.lines.len())
                .filter(|&l| self.lines[l].statement && self.lines[l].in_code)
                .collect()
        };
        if places.is_empty() {
            return None;
        }
        let line = &self.lines[*rng.pick(&places)];
        let first = &self.toks[line.toks.start];
        let last = &self.toks[line.toks.end - 1];
        let statement = first.start as usize..last.end as usize;
        let condition = self.first_thread_condition(statement.start);
        Some(Edit {
            what: "wrap",
            replacement: format!("if ({condition}) {{ {} }}", &self.text[statement.clone()]),
            range: statement,
        })
    }

    fn flip_capture(&self, rng: &mut Rng) -> Option<Edit> {
        // `[=` or `[&` followed by `]` or `,`: a default capture.
        let places: Vec<usize> = (1..self.toks.len().saturating_sub(1))
            .filter(|&i| {
                self.toks[i - 1].tok == Tok::LBracket
                    && matches!(self.toks[i].tok, Tok::Assign | Tok::Amp)
                    && matches!(self.toks[i + 1].tok, Tok::RBracket | Tok::Comma)
            })
            .collect();
        if places.is_empty() {
            return None;
        }
        let at = *rng.pick(&places);
        let replacement = if self.toks[at].tok == Tok::Assign {
            "&"
        } else {
            "="
        };
        Some(Edit {
            what: "capture",
            range: self.tok_range(at),
            replacement: replacement.to_string(),
        })
    }

    fn tile_size(&self, rng: &mut Rng) -> Option<Edit> {
        // The arguments of `tile<...>`, `tiled_index<...>`, `tiled_extent<...>`.
        let mut places = Vec::new();
        for i in 0..self.toks.len() {
            if !matches!(
                self.toks[i].tok,
                Tok::Ident("tile" | "tiled_index" | "tiled_extent")
            ) || self.toks.get(i + 1).map(|t| t.tok) != Some(Tok::Lt)
            {
                continue;
            }
            for k in i + 2..self.toks.len().min(i + 10) {
                match self.toks[k].tok {
                    Tok::Int(_) | Tok::Ident(_) => places.push(k),
                    Tok::Comma => {}
                    _ => break,
                }
            }
        }
        if places.is_empty() {
            return None;
        }
        let at = *rng.pick(&places);
        Some(Edit {
            what: "tile size",
            range: self.tok_range(at),
            replacement: (*rng.pick(TILE_SIZES)).to_string(),
        })
    }

    /// Whether line `l` looks like a declaration: after optional specifiers,
    /// a type keyword, or a (possibly qualified) name followed by a name or
    /// by `<`.
    fn is_declaration(&self, l: usize) -> bool {
        let line = &self.lines[l];
        if !line.statement {
            return false;
        }
        let mut toks = self.toks[line.toks.clone()]
            .iter()
            .map(|t| t.tok)
            .peekable();
        while toks
            .next_if(|t| {
                matches!(
                    t,
                    Tok::Static | Tok::Const | Tok::Constexpr | Tok::TileStatic | Tok::Extern
                )
            })
            .is_some()
        {}
        // A qualified type name: `std::vector<int> v;` but not `std::cout << x;`.
        let mut first = toks.next();
        while matches!(first, Some(Tok::Ident(_))) && toks.next_if_eq(&Tok::ColonColon).is_some() {
            first = toks.next();
        }
        let second = toks.next();
        let keyword = matches!(
            first,
            Some(
                Tok::IntKw
                    | Tok::FloatKw
                    | Tok::Double
                    | Tok::Bool
                    | Tok::CharKw
                    | Tok::Unsigned
                    | Tok::Signed
                    | Tok::Long
                    | Tok::Short
                    | Tok::Auto
            )
        );
        let named =
            matches!(first, Some(Tok::Ident(_))) && matches!(second, Some(Tok::Ident(_) | Tok::Lt));
        keyword || named
    }

    fn declaration(&self, rng: &mut Rng, duplicate: bool) -> Option<Edit> {
        let places: Vec<usize> = (0..self.lines.len())
            .filter(|&l| self.is_declaration(l))
            .collect();
        if places.is_empty() {
            return None;
        }
        let line = &self.lines[*rng.pick(&places)];
        if duplicate {
            let text = &self.text[line.bytes.clone()];
            let copy = if text.ends_with('\n') {
                text.to_string()
            } else {
                format!("\n{text}")
            };
            Some(Edit {
                what: "duplicate declaration",
                range: line.bytes.end..line.bytes.end,
                replacement: copy,
            })
        } else {
            Some(Edit {
                what: "remove declaration",
                range: line.bytes.clone(),
                replacement: String::new(),
            })
        }
    }

    fn remove_statement(&self, rng: &mut Rng) -> Option<Edit> {
        let places: Vec<usize> = (0..self.lines.len())
            .filter(|&l| self.lines[l].statement && self.lines[l].in_code)
            .collect();
        if places.is_empty() {
            return None;
        }
        let line = &self.lines[*rng.pick(&places)];
        Some(Edit {
            what: "remove statement",
            range: line.bytes.clone(),
            replacement: String::new(),
        })
    }
}

/// Whether the parentheses, brackets and braces of `toks` balance.
fn balanced(toks: &[Token<'_>]) -> bool {
    let mut depth = [0i32; 3];
    for t in toks {
        let (k, d) = match t.tok {
            Tok::LParen => (0, 1),
            Tok::RParen => (0, -1),
            Tok::LBracket => (1, 1),
            Tok::RBracket => (1, -1),
            Tok::LBrace => (2, 1),
            Tok::RBrace => (2, -1),
            _ => continue,
        };
        depth[k] += d;
        if depth[k] < 0 {
            return false;
        }
    }
    depth == [0; 3]
}

// ------------------------------------------------------------------ run time

/// Integer literals put in place of others in kernels: trip counts and
/// indices at the edges, shift counts at and past the widths, the ends of
/// `int`.
pub const EDGE_INTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "16",
    "31",
    "32",
    "33",
    "63",
    "64",
    "1023",
    "1024",
    "4097",
    "65536",
    "65537",
    "2147483647",
    "(-2147483647 - 1)",
];

/// Floating-point literals put in place of others: signed zeros, values out
/// of the range of `int` and of `float`, the smallest subnormal.
pub const EDGE_FLOATS: &[&str] = &[
    "0.0f",
    "-0.0f",
    "-1.0f",
    "3e9f",
    "-3e9f",
    "1e30f",
    "1e-45f",
    "1e300",
    "2147483648.0",
];

/// What an index becomes: off by one either way, doubled, far off.
pub const INDEX_NUDGES: &[&str] = &[" + 1", " - 1", " * 2", " + 4096", " - 2147483647"];

/// The operators that may replace `tok`.
pub fn swaps(tok: Tok<'_>) -> &'static [&'static str] {
    match tok {
        Tok::Plus => &["-", "*"],
        Tok::Minus => &["+", "*"],
        Tok::Star => &["/", "%", "+"],
        Tok::Slash => &["%", "*"],
        Tok::Percent => &["/", "&"],
        Tok::Shl => &[">>"],
        Tok::Shr => &["<<"],
        Tok::Lt => &["<=", ">", "!="],
        Tok::Le => &["<", ">="],
        Tok::Gt => &[">=", "<"],
        Tok::Ge => &[">", "<="],
        Tok::EqEq => &["!="],
        Tok::NotEq => &["==", "<"],
        Tok::PlusPlus => &["--"],
        Tok::MinusMinus => &["++"],
        Tok::PlusAssign => &["-=", "*="],
        Tok::MinusAssign => &["+=", "*="],
        Tok::StarAssign => &["/=", "+=", "<<="],
        Tok::SlashAssign => &["%=", "*="],
        Tok::Pipe => &["^"],
        Tok::Caret => &["|"],
        Tok::AndAnd => &["||"],
        Tok::OrOr => &["&&"],
        _ => &[],
    }
}

/// The byte ranges of the bodies of `restrict(...)` functions and lambdas
/// that allow `amp`: the code the JIT compiles.
fn amp_bodies(tokens: &[Token<'_>]) -> Vec<Range<usize>> {
    let mut bodies = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        if t.tok != Tok::Restrict {
            continue;
        }
        let Some(close) = tokens[k..].iter().position(|t| t.tok == Tok::RParen) else {
            continue;
        };
        let clause = &tokens[k..k + close];
        if !clause.iter().any(|t| t.tok == Tok::Ident("amp")) {
            continue;
        }
        let Some(open) = tokens[k + close..]
            .iter()
            .position(|t| t.tok == Tok::LBrace)
            .map(|p| k + close + p)
        else {
            continue;
        };
        let mut depth = 0usize;
        for t in &tokens[open..] {
            match t.tok {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        bodies.push(tokens[open].end as usize..t.start as usize);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    bodies
}

/// Where [`mutate_run_time`] edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// Inside amp code (functions and lambdas whose `restrict` allows
    /// `amp`: what the JIT compiles), or anywhere when there is none.
    Kernels,
    /// Anywhere: host code too.
    Anywhere,
}

/// A mutation aimed at run time rather than at the checker: one literal
/// put at an edge of its type ([`EDGE_INTS`], [`EDGE_FLOATS`]), an
/// operator swapped for a neighbour ([`swaps`]: off-by-one bounds, loops
/// that never end, arithmetic by its inverse) or an index pushed off
/// ([`INDEX_NUDGES`]), where `focus` says. Logged like [`mutate_once`];
/// false when the text offers no place.
pub fn mutate_run_time(rng: &mut Rng, text: &mut String, log: &mut String, focus: Focus) -> bool {
    let mut diags = Vec::new();
    let tokens = lex(FileId(0), text, &[], &mut diags);
    let bodies = match focus {
        Focus::Kernels => amp_bodies(&tokens),
        Focus::Anywhere => Vec::new(),
    };
    let inside =
        |t: &Token<'_>| bodies.is_empty() || bodies.iter().any(|b| b.contains(&(t.start as usize)));
    let places: Vec<&Token<'_>> = tokens
        .iter()
        .filter(|t| inside(t))
        .filter(|t| {
            matches!(t.tok, Tok::Int(_) | Tok::Float(_) | Tok::RBracket) || !swaps(t.tok).is_empty()
        })
        .collect();
    if places.is_empty() {
        return false;
    }
    let t = *rng.pick(&places);
    let (range, new) = match t.tok {
        Tok::Int(_) => (t.start..t.end, rng.pick(EDGE_INTS).to_string()),
        Tok::Float(_) => (t.start..t.end, rng.pick(EDGE_FLOATS).to_string()),
        Tok::RBracket => (t.start..t.start, rng.pick(INDEX_NUDGES).to_string()),
        other => (t.start..t.end, rng.pick(swaps(other)).to_string()),
    };
    let range = range.start as usize..range.end as usize;
    let _ = write!(
        log,
        " {} {}..{} {:?} -> {new:?};",
        match focus {
            Focus::Kernels => "kernel",
            Focus::Anywhere => "run-time",
        },
        range.start,
        range.end,
        &text[range.clone()]
    );
    text.replace_range(range, &new);
    true
}
