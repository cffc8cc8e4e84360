//! The preprocessor: directives and macro expansion over the token stream.
//!
//! Input is the lexer's output, which still holds [`Tok::Newline`] tokens
//! (directives end at them) and [`Tok::Hash`]. Output holds no newlines: the
//! directives are gone and the macros are expanded.
//!
//! Expansion follows the C model in simplified form. Each expansion pushes a
//! *context* (the replacement tokens still to be rescanned); while a context of
//! macro `M` is on the stack, `M` is *disabled*, and an identifier `M` read in
//! that time is *painted*: it never expands again ("blue paint"). Arguments of
//! function-like macros are expanded in isolation before substitution; instead
//! of recursing, that work runs in a nested *frame* on an explicit stack, so no
//! input can overflow the call stack. A budget on the tokens produced and a
//! limit on nesting bound time and memory, whatever the macros do. `#` and
//! `##` in a body (see `paste`) work on the arguments as written.

mod builtin;
mod cond;
mod paste;

use crate::files::{Files, Segment};
use crate::lexer::{Token, lex};
use crate::token::Tok;
use cond::ExprParser;
use std::collections::{HashMap, HashSet};
// The macro table is probed for every identifier the preprocessor reads:
// FxHash costs a fraction of SipHash there (see docs/dependencies.md).
use rustc_hash::FxHashMap;
use std::rc::Rc;
use std::sync::Arc;
use tessera_diagnostics::{Diagnostic, FileId, Span, codes};

/// Headers `#include` accepts. Their declarations are built into the
/// compiler, so an include adds no tokens.
pub const KNOWN_HEADERS: &[&str] = &[
    "amp.h",
    "amp_math.h",
    "amp_graphics.h",
    "amp_short_vectors.h",
    "ppl.h",
    "ppltasks.h",
    "iostream",
    "iomanip",
    "vector",
    "cmath",
    "math.h",
    "cstdlib",
    "stdlib.h",
    "cstdio",
    "stdio.h",
    "cassert",
    "assert.h",
    "climits",
    "limits.h",
    "cfloat",
    "float.h",
    "limits",
    "cstring",
    "string.h",
    "cctype",
    "ctype.h",
    "ctime",
    "time.h",
    "cstdint",
    "stdint.h",
    "cstddef",
    "stddef.h",
    "algorithm",
    "numeric",
    "random",
    "chrono",
    "string",
    "sstream",
    "array",
    "utility",
    "functional",
    "memory",
    "iterator",
    "ostream",
    "tuple",
    "future",
    "type_traits",
    "typeinfo",
    "exception",
    "stdexcept",
    "set",
    "unordered_set",
    "list",
    "deque",
    "queue",
];

pub use builtin::header_of as macro_header;

/// Most `#include`s open at once (GCC's limit): a header that includes
/// itself without a guard stops here.
pub const MAX_INCLUDE_DEPTH: u32 = 200;

/// Most macro expansions (plus argument pre-expansions) in progress at once.
const MAX_DEPTH: usize = 256;

/// Most nested parentheses, unary operators and `?:` in an `#if` expression:
/// the expression parser recurses, so its depth must be bounded.
const MAX_EXPR_DEPTH: u32 = 256;

/// A token of a macro body: a plain token, or a use of parameter `n`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum BodyTok<'s> {
    Tok(Tok<'s>),
    Param(usize),
    /// `#param`: the argument as written, as a string literal.
    Stringize(usize),
    /// `##`: the tokens on either side become one.
    Paste,
}

/// One `#define`.
#[derive(Debug)]
struct Macro<'s> {
    /// `None` for object-like macros. A variadic macro's last parameter is
    /// `__VA_ARGS__` (its `...`).
    params: Option<Vec<&'s str>>,
    /// Whether the parameter list ends with `...`: the arguments from the
    /// last parameter's position on are its one argument, commas included.
    variadic: bool,
    /// Per parameter: whether the body mentions it (unused arguments are not expanded).
    used: Vec<bool>,
    /// Per parameter: whether the body needs it as written (after `#`,
    /// beside `##`).
    raw_used: Vec<bool>,
    /// The replacement list. Positions are not kept: expanded tokens take the
    /// position of the macro's use.
    body: Vec<BodyTok<'s>>,
    /// The macro name in the `#define`, for "previously defined here".
    def: Span,
}

/// Macro definitions that persist across inputs (the REPL feeds several
/// inputs through one table).
///
/// Names and bodies borrow from the source text, so every input preprocessed
/// with one table must live as long as the table (`'s`).
#[derive(Clone, Debug, Default)]
pub struct MacroTable<'s> {
    defs: FxHashMap<&'s str, Arc<Macro<'s>>>,
    /// The standard headers `#include`d so far, each once, in order.
    standard_headers: Vec<&'static str>,
}

impl<'s> MacroTable<'s> {
    /// An empty table: no macros are predefined.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `name` is currently `#define`d.
    pub fn is_defined(&self, name: &str) -> bool {
        self.defs.contains_key(name)
    }

    /// The standard headers (entries of [`KNOWN_HEADERS`]) that an
    /// `#include` read so far named, each once, in order: the checker
    /// knows from them which of the library's names are declared.
    pub fn standard_headers(&self) -> &[&'static str] {
        &self.standard_headers
    }
}

/// What a `#include` of a local header names, found before preprocessing
/// (see [`crate::include`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The header is this file. `spelled` is set when the name was found
    /// only by ignoring case: the name of the file on disk.
    File {
        /// The header's file.
        file: FileId,
        /// The file's real name, when it differs in case from the include.
        spelled: Option<String>,
    },
    /// No such file in the including file's folder or the include folders.
    Missing,
}

/// The local headers a unit may include: which file each `#include` names
/// (by including file and name as written) and the text of each header.
#[derive(Clone, Debug, Default)]
pub struct Headers<'s> {
    /// `(including file, name as written, written in quotes)` to what it
    /// names (see [`crate::include::Included`]).
    pub resolved: HashMap<(FileId, String, bool), Found>,
    /// Each header's place among positions (see [`Files`]) and the offsets
    /// of bytes that were not UTF-8 (see `SourceFile::from_bytes`).
    pub files: HashMap<FileId, (Segment<'s>, Vec<usize>)>,
    /// A file of `files` read before the main file, as if included on its
    /// first line (see [`crate::include::Included::prelude`]).
    pub prelude: Option<FileId>,
}

/// Runs directives and expands macros.
///
/// `tokens` is the lexer's output for the main file of `files` (with
/// `Newline` and `Hash` tokens); `headers` are the local headers it may
/// include, whose tokens are read in place of their `#include`. The result
/// has no `Newline` tokens; directives are removed and macros expanded.
/// Tokens produced by a macro carry the range of the macro's use (the name,
/// or `NAME(...)` through the `)`), except tokens that came from an argument,
/// which keep their own. Problems are pushed to `diags`; this never fails and
/// never panics.
pub fn preprocess<'s>(
    files: Files<'_, 's>,
    tokens: &[Token<'s>],
    headers: &Headers<'s>,
    macros: &mut MacroTable<'s>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Token<'s>> {
    let mut pp = Pp {
        files,
        toks: tokens.into(),
        headers,
        lexed: HashMap::new(),
        once: HashSet::new(),
        outer: Vec::new(),
        pos: 0,
        macros,
        diags,
        out: Vec::with_capacity(tokens.len()),
        conds: Vec::new(),
        disabled: FxHashMap::default(),
        depth: 0,
        work: 0,
        limit: tokens.len().saturating_mul(16).saturating_add(1_000_000),
        exhausted: false,
    };
    if let Some(prelude) = headers.prelude {
        // Read first, then the main file from its start: an include at
        // position 0 (which cannot be nested too deeply, the one case where
        // the span is shown).
        let at = pp.span(0, 0);
        pp.include_file(prelude, at);
    }
    pp.run();
    pp.out
}

/// A file whose `#include` is being read: where to go on after the header.
struct Including<'s> {
    toks: Rc<[Token<'s>]>,
    /// The token after the `#include` line.
    pos: usize,
    /// Conditionals open when the header started; the header must close
    /// those it opens.
    conds: usize,
}

/// A token being expanded, with its blue paint.
#[derive(Clone, Copy, Debug)]
struct PTok<'s> {
    tok: Token<'s>,
    /// Set when the token named a macro that was disabled when it was read:
    /// it must never expand, even after that macro is enabled again.
    painted: bool,
}

impl<'s> PTok<'s> {
    fn new(tok: Token<'s>) -> Self {
        PTok {
            tok,
            painted: false,
        }
    }
}

/// Tokens still to be rescanned; a named context disables its macro.
struct Context<'s> {
    name: Option<&'s str>,
    toks: Vec<PTok<'s>>,
    idx: usize,
}

/// An expansion in progress: the bottom frame of the source text or of an
/// `#if` line, or the pre-expansion of one macro argument.
struct Frame<'s> {
    contexts: Vec<Context<'s>>,
    /// Whether tokens after the contexts may be taken from the source text
    /// (a function-like macro's arguments may follow the expansion that
    /// produced its name). Only the source text's bottom frame does.
    reads_base: bool,
    /// In an `#if` line, `defined X` is an operator, not something to expand.
    if_mode: bool,
    out: Vec<PTok<'s>>,
    /// The invocation whose arguments are being expanded by the frame above.
    pending: Option<Pending<'s>>,
}

impl<'s> Frame<'s> {
    fn new(toks: Vec<PTok<'s>>, reads_base: bool, if_mode: bool) -> Self {
        Frame {
            contexts: vec![Context {
                name: None,
                toks,
                idx: 0,
            }],
            reads_base,
            if_mode,
            out: Vec::new(),
            pending: None,
        }
    }
}

/// A function-like macro invocation waiting for its arguments to be expanded.
struct Pending<'s> {
    name: &'s str,
    mac: Arc<Macro<'s>>,
    /// The name with the range of the whole invocation.
    at: Token<'s>,
    raw: Vec<Vec<PTok<'s>>>,
    expanded: Vec<Vec<PTok<'s>>>,
    /// The next argument to consider.
    next: usize,
    /// The argument being expanded now.
    current: usize,
}

/// Where an open conditional block stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CondState {
    /// The current branch is taken.
    Taking,
    /// No branch taken yet; a later `#elif`/`#else` may be.
    Waiting,
    /// A branch was taken, or the whole block is inside a skipped one.
    Done,
}

/// An open `#if`/`#ifdef`/`#ifndef`.
struct Cond {
    kind: &'static str,
    open: Span,
    state: CondState,
    else_span: Option<Span>,
}

/// A malformed `#if` expression.
struct ExprError {
    span: Span,
    message: String,
    label: String,
}

struct Pp<'a, 's> {
    files: Files<'a, 's>,
    /// The tokens of the file being read (the main file or a header).
    toks: Rc<[Token<'s>]>,
    headers: &'a Headers<'s>,
    /// Headers lexed so far (each is lexed once, however often included).
    lexed: HashMap<FileId, Rc<[Token<'s>]>>,
    /// Files that said `#pragma once` and are not read again.
    once: HashSet<FileId>,
    /// The files whose `#include` is being read, innermost last.
    outer: Vec<Including<'s>>,
    /// The next source token not yet consumed.
    pos: usize,
    macros: &'a mut MacroTable<'s>,
    diags: &'a mut Vec<Diagnostic>,
    out: Vec<Token<'s>>,
    conds: Vec<Cond>,
    /// How many contexts of each macro are on the stacks.
    disabled: FxHashMap<&'s str, u32>,
    /// Named contexts plus argument frames in progress.
    depth: usize,
    /// Tokens produced by expansion so far.
    work: usize,
    limit: usize,
    /// Set after E0055: no more expansion, the rest is copied as it is.
    exhausted: bool,
}

impl<'s> Pp<'_, 's> {
    fn run(&mut self) {
        self.run_files();
        for cond in std::mem::take(&mut self.conds) {
            self.unclosed(cond);
        }
    }

    fn unclosed(&mut self, cond: Cond) {
        self.diags.push(
            Diagnostic::error(
                codes::E0052,
                cond.open,
                format!("`{}` without a matching `#endif`", cond.kind),
            )
            .with_label("this conditional block is never closed")
            .with_help("add `#endif` where the block should end"),
        );
    }

    /// Reads the tokens of the current file (`self.toks` from `self.pos`)
    /// and of the headers it includes: an `#include` makes the header the
    /// current file, and the end of a header returns to the file that
    /// included it (a loop, not a recursion, so that no nesting of headers
    /// can overflow the stack).
    fn run_files(&mut self) {
        loop {
            let toks = Rc::clone(&self.toks);
            let Some(&t) = toks.get(self.pos) else {
                let Some(outer) = self.outer.pop() else {
                    return;
                };
                // A conditional must close in the file that opened it.
                for cond in self.conds.split_off(outer.conds.min(self.conds.len())) {
                    self.unclosed(cond);
                }
                (self.toks, self.pos) = (outer.toks, outer.pos);
                continue;
            };
            match t.tok {
                Tok::Newline => self.pos += 1,
                Tok::Hash if self.at_line_start(self.pos) => {
                    let end = toks
                        .get(self.pos..)
                        .and_then(|rest| rest.iter().position(|t| t.tok == Tok::Newline))
                        .map_or(toks.len(), |n| self.pos + n);
                    let line = toks.get(self.pos + 1..end).unwrap_or_default();
                    let line_end = toks
                        .get(end)
                        .map_or(self.files.end_of(t.start), |t| t.start);
                    self.pos = end;
                    self.directive(t, line, line_end);
                }
                _ => {
                    self.pos += 1;
                    if self.skipping() {
                        continue;
                    }
                    match t.tok {
                        Tok::Ident(name)
                            if !self.exhausted
                                && (self.macros.is_defined(name) || name == "__LINE__") =>
                        {
                            let expanded = self.expand(vec![PTok::new(t)], true, false);
                            self.out.extend(expanded.into_iter().map(|p| p.tok));
                        }
                        _ => self.out.push(t),
                    }
                }
            }
        }
    }

    /// A `#` here starts a directive.
    fn at_line_start(&self, pos: usize) -> bool {
        pos.checked_sub(1)
            .and_then(|p| self.toks.get(p))
            .is_none_or(|t| t.tok == Tok::Newline)
    }

    fn skipping(&self) -> bool {
        self.conds
            .last()
            .is_some_and(|c| c.state != CondState::Taking)
    }

    fn span(&self, start: u32, end: u32) -> Span {
        self.files.span(start, end)
    }

    fn error(&mut self, code: tessera_diagnostics::Code, span: Span, message: String, label: &str) {
        self.diags
            .push(Diagnostic::error(code, span, message).with_label(label));
    }

    // ----- expansion -----

    /// Expands `initial` (and, if `reads_base`, whatever source tokens a
    /// function-like macro at its end needs) completely.
    fn expand(&mut self, initial: Vec<PTok<'s>>, reads_base: bool, if_mode: bool) -> Vec<PTok<'s>> {
        let mut frames = vec![Frame::new(initial, reads_base, if_mode)];
        loop {
            let Some(frame) = frames.last_mut() else {
                return Vec::new();
            };
            if let Some(pt) = self.next_in_contexts(frame) {
                self.step(&mut frames, pt);
                continue;
            }
            let Some(done) = frames.pop() else {
                return Vec::new();
            };
            if frames.is_empty() {
                return done.out;
            }
            // An argument is fully expanded: hand it to the invocation waiting below.
            self.depth = self.depth.saturating_sub(1);
            if let Some(p) = frames.last_mut().and_then(|f| f.pending.as_mut())
                && let Some(slot) = p.expanded.get_mut(p.current)
            {
                *slot = done.out;
            }
            self.advance_pending(&mut frames);
        }
    }

    /// Handles one token read during expansion: copies it, or starts expanding it.
    fn step(&mut self, frames: &mut Vec<Frame<'s>>, pt: PTok<'s>) {
        let Some(frame) = frames.last_mut() else {
            return;
        };
        let name = match pt.tok.tok {
            Tok::Ident(name) if !pt.painted && !self.exhausted => name,
            _ => return frame.out.push(pt),
        };
        if frame.if_mode && name == "defined" {
            return self.defined_operator(frame, pt);
        }
        let Some(mac) = self.macros.defs.get(name).cloned() else {
            // `__LINE__`: the line of the token (of a macro's use, for a
            // token a macro produced), counted in its own file.
            if name == "__LINE__" {
                let segment = self.files.segment(pt.tok.start);
                let offset = (pt.tok.start.saturating_sub(segment.base)) as usize;
                let before = segment.text.get(..offset).unwrap_or(segment.text);
                let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
                if let Some(text) = paste::intern(line.to_string()) {
                    return frame.out.push(PTok {
                        tok: Token {
                            tok: Tok::Int(text),
                            ..pt.tok
                        },
                        ..pt
                    });
                }
            }
            return frame.out.push(pt);
        };
        if self.is_disabled(name) {
            return frame.out.push(PTok {
                painted: true,
                ..pt
            });
        }
        let Some(params) = &mac.params else {
            if !self.reserve(mac.body.len(), pt.tok) {
                return frame.out.push(pt);
            }
            let toks = self.substitute(&mac, pt.tok, &[], &[]);
            return self.push_context(frame, name, toks);
        };
        // A function-like macro name not followed by `(` is an ordinary identifier.
        if !self.peek_lparen(frame) {
            return frame.out.push(pt);
        }
        let Some((mut args, close)) = self.collect_args(frame, pt.tok, name) else {
            return;
        };
        let at = Token {
            tok: pt.tok.tok,
            start: pt.tok.start.min(close.start),
            end: pt.tok.end.max(close.end),
        };
        // `F()` passes one empty argument, which is no argument for `F` without parameters.
        if params.is_empty() && args.len() == 1 && args.first().is_some_and(Vec::is_empty) {
            args.clear();
        }
        if mac.variadic {
            // `F(a)` for `F(x, ...)` passes no variable arguments (C++20);
            // more arguments than parameters join the last one, with the
            // commas between them.
            let fixed = params.len().saturating_sub(1);
            if args.len() == fixed {
                args.push(Vec::new());
            } else if args.len() > params.len() {
                let rest = args.split_off(fixed);
                let comma = PTok::new(Token {
                    tok: Tok::Comma,
                    ..at
                });
                let mut joined = Vec::new();
                for (k, arg) in rest.into_iter().enumerate() {
                    if k > 0 {
                        joined.push(comma);
                    }
                    joined.extend(arg);
                }
                args.push(joined);
            }
        }
        if args.len() != params.len() {
            let (n, got) = (params.len(), args.len());
            let plural = |k: usize| if k == 1 { "" } else { "s" };
            let least = if mac.variadic { "at least " } else { "" };
            let n = if mac.variadic { n - 1 } else { n };
            self.diags.push(
                Diagnostic::error(
                    codes::E0054,
                    at.span(self.files),
                    format!(
                        "macro `{name}` takes {least}{n} argument{} but {got} {} given",
                        plural(n),
                        if got == 1 { "was" } else { "were" }
                    ),
                )
                .with_label(format!("{got} argument{} given here", plural(got)))
                .with_secondary(mac.def, "macro defined here")
                .with_note(format!("the macro is `{name}({})`", params.join(", "))),
            );
            return;
        }
        let count = args.len();
        frame.pending = Some(Pending {
            name,
            mac: Arc::clone(&mac),
            at,
            raw: args,
            expanded: vec![Vec::new(); count],
            next: 0,
            current: 0,
        });
        self.advance_pending(frames);
    }

    /// Starts expanding the next used argument of the top frame's pending
    /// invocation in a new frame, or, when all are done, substitutes them.
    fn advance_pending(&mut self, frames: &mut Vec<Frame<'s>>) {
        let Some(frame) = frames.last_mut() else {
            return;
        };
        let if_mode = frame.if_mode;
        let Some(p) = frame.pending.as_mut() else {
            return;
        };
        while p.next < p.raw.len() {
            let i = p.next;
            p.next += 1;
            if !p.mac.used.get(i).copied().unwrap_or(false) {
                continue;
            }
            // An argument the body also needs as written is kept.
            let raw = if p.mac.raw_used.get(i).copied().unwrap_or(false) {
                p.raw.get(i).cloned().unwrap_or_default()
            } else {
                p.raw.get_mut(i).map(std::mem::take).unwrap_or_default()
            };
            p.current = i;
            let at = p.at;
            if self.reserve(raw.len(), at) {
                self.depth += 1;
                frames.push(Frame::new(raw, false, if_mode));
            } else {
                // Over the limit: the invocation is dropped.
                frame.pending = None;
            }
            return;
        }
        let Some(p) = frame.pending.take() else {
            return;
        };
        let size = p
            .mac
            .body
            .iter()
            .map(|b| match b {
                BodyTok::Param(i) => p
                    .expanded
                    .get(*i)
                    .map_or(0, Vec::len)
                    .max(p.raw.get(*i).map_or(0, Vec::len)),
                BodyTok::Tok(_) | BodyTok::Stringize(_) => 1,
                BodyTok::Paste => 0,
            })
            .fold(0usize, usize::saturating_add);
        if !self.reserve(size, p.at) {
            return;
        }
        let toks = self.substitute(&p.mac, p.at, &p.raw, &p.expanded);
        self.push_context(frame, p.name, toks);
    }

    /// A macro's replacement for a use at `at`: body tokens with the
    /// arguments in (expanded, or as written after `#` and beside `##`),
    /// strings made and tokens pasted.
    fn substitute(
        &mut self,
        mac: &Macro<'s>,
        at: Token<'s>,
        raw: &[Vec<PTok<'s>>],
        expanded: &[Vec<PTok<'s>>],
    ) -> Vec<PTok<'s>> {
        let mut out: Vec<PTok<'s>> = Vec::with_capacity(mac.body.len());
        let mut paste_next = false;
        // Whether the last piece placed was empty (an empty argument).
        let mut last_empty = false;
        for (k, b) in mac.body.iter().enumerate() {
            let beside_paste = paste_next || matches!(mac.body.get(k + 1), Some(BodyTok::Paste));
            let piece: Vec<PTok<'s>> = match b {
                BodyTok::Paste => {
                    paste_next = true;
                    continue;
                }
                BodyTok::Tok(tok) => vec![PTok::new(Token { tok: *tok, ..at })],
                BodyTok::Param(i) if beside_paste => raw.get(*i).cloned().unwrap_or_default(),
                BodyTok::Param(i) => expanded.get(*i).cloned().unwrap_or_default(),
                BodyTok::Stringize(i) => {
                    let arg: Vec<Token<'s>> =
                        raw.get(*i).into_iter().flatten().map(|t| t.tok).collect();
                    match paste::stringize(&arg) {
                        Ok(tok) => vec![PTok::new(Token { tok, ..at })],
                        Err(failure) => {
                            self.paste_failure(failure, at);
                            Vec::new()
                        }
                    }
                }
            };
            let left_empty = std::mem::replace(&mut last_empty, piece.is_empty());
            if !std::mem::take(&mut paste_next) {
                out.extend(piece);
                continue;
            }
            // An empty side (a placemarker) leaves the other as it is.
            let Some((first, rest)) = piece.split_first() else {
                last_empty = left_empty;
                continue;
            };
            let left = if left_empty { None } else { out.pop() };
            let Some(left) = left else {
                out.extend(piece);
                continue;
            };
            match paste::paste(left.tok.tok, first.tok.tok) {
                Ok(tok) => out.push(PTok::new(Token { tok, ..at })),
                Err(failure) => {
                    self.paste_failure(failure, at);
                    out.push(left);
                    out.push(*first);
                }
            }
            out.extend(rest.iter().copied());
        }
        out
    }

    fn paste_failure(&mut self, failure: paste::Failure, at: Token<'s>) {
        let d = match failure {
            paste::Failure::NotAToken(text) => Diagnostic::error(
                codes::E0051,
                at.span(self.files),
                format!("pasting with `##` gives `{text}`, which is not one token"),
            )
            .with_label("in this macro's expansion")
            .with_help("`##` must join its two sides into one identifier, number or operator"),
            paste::Failure::Full => Diagnostic::error(
                codes::E0055,
                at.span(self.files),
                "too much text made by `#` and `##`",
            )
            .with_label("in this macro's expansion"),
        };
        self.diags.push(d);
    }

    /// Accounts for `n` more tokens of expansion one level deeper; false (after
    /// reporting E0055 once) when that would pass a limit.
    fn reserve(&mut self, n: usize, at: Token<'s>) -> bool {
        if self.exhausted {
            return false;
        }
        // Even an empty expansion counts, so that the number of expansions is bounded too.
        self.work = self.work.saturating_add(n.max(1));
        if self.work <= self.limit && self.depth < MAX_DEPTH {
            return true;
        }
        self.exhausted = true;
        self.diags.push(
            Diagnostic::error(codes::E0055, at.span(self.files), "macro expansion too large")
                .with_label("expanding this macro goes past the preprocessor's limits")
                .with_note(format!(
                    "the limits are {} tokens of expansion for this input and {MAX_DEPTH} nested expansions",
                    self.limit
                ))
                .with_help(
                    "look for macros that use other macros several times (their expansion grows \
                     exponentially) or long chains of macros; no macro is expanded after this point",
                ),
        );
        false
    }

    /// Whether an expansion of macro `name` is being rescanned.
    fn is_disabled(&self, name: &str) -> bool {
        self.disabled.get(name).is_some_and(|&n| n > 0)
    }

    fn push_context(&mut self, frame: &mut Frame<'s>, name: &'s str, toks: Vec<PTok<'s>>) {
        *self.disabled.entry(name).or_default() += 1;
        self.depth += 1;
        frame.contexts.push(Context {
            name: Some(name),
            toks,
            idx: 0,
        });
    }

    fn pop_context(&mut self, frame: &mut Frame<'s>) {
        if let Some(ctx) = frame.contexts.pop()
            && let Some(name) = ctx.name
        {
            if let Some(n) = self.disabled.get_mut(name) {
                *n = n.saturating_sub(1);
            }
            self.depth = self.depth.saturating_sub(1);
        }
    }

    /// The next token of the frame's contexts, painted if its macro is disabled.
    ///
    /// A finished context is popped only when reading past it, not when its
    /// last token is read: a macro stays disabled while the expansion of its
    /// last token is rescanned (`#define A B` / `#define B A` stops at `A`).
    fn next_in_contexts(&mut self, frame: &mut Frame<'s>) -> Option<PTok<'s>> {
        loop {
            let ctx = frame.contexts.last_mut()?;
            if let Some(&pt) = ctx.toks.get(ctx.idx) {
                ctx.idx += 1;
                let painted =
                    pt.painted || matches!(pt.tok.tok, Tok::Ident(n) if self.is_disabled(n));
                return Some(PTok { painted, ..pt });
            }
            self.pop_context(frame);
        }
    }

    /// The next token for a macro invocation: from the contexts, then (for the
    /// source's frame) from the source, across lines but never into a directive.
    fn next_any(&mut self, frame: &mut Frame<'s>) -> Option<PTok<'s>> {
        if let Some(pt) = self.next_in_contexts(frame) {
            return Some(pt);
        }
        if !frame.reads_base {
            return None;
        }
        while let Some(&t) = self.toks.get(self.pos) {
            if t.tok == Tok::Newline {
                self.pos += 1;
                continue;
            }
            if t.tok == Tok::Hash && self.at_line_start(self.pos) {
                return None;
            }
            self.pos += 1;
            return Some(PTok::new(t));
        }
        None
    }

    /// Whether the next token `next_any` would return is `(`, consuming nothing
    /// but finished contexts.
    fn peek_lparen(&mut self, frame: &mut Frame<'s>) -> bool {
        loop {
            match frame.contexts.last() {
                Some(ctx) => match ctx.toks.get(ctx.idx) {
                    Some(pt) => return pt.tok.tok == Tok::LParen,
                    None => self.pop_context(frame),
                },
                None if frame.reads_base => {
                    return self
                        .toks
                        .get(self.pos..)
                        .and_then(|rest| rest.iter().find(|t| t.tok != Tok::Newline))
                        .is_some_and(|t| t.tok == Tok::LParen);
                }
                None => return false,
            }
        }
    }

    /// Reads `( args )` after a function-like macro's name. Returns the
    /// arguments, split at top-level commas, and the closing `)`; `None` (after
    /// reporting E0054) when the list never closes.
    fn collect_args(
        &mut self,
        frame: &mut Frame<'s>,
        name_tok: Token<'s>,
        name: &str,
    ) -> Option<(Vec<Vec<PTok<'s>>>, Token<'s>)> {
        let open = self.next_any(frame)?;
        let mut args = vec![Vec::new()];
        let mut nesting = 0usize;
        let mut last = open.tok;
        loop {
            let Some(pt) = self.next_any(frame) else {
                let span = self.span(
                    name_tok.start.min(open.tok.start),
                    name_tok.end.max(last.end),
                );
                self.diags.push(
                    Diagnostic::error(
                        codes::E0054,
                        span,
                        format!("unterminated invocation of macro `{name}`"),
                    )
                    .with_label("this argument list is never closed")
                    .with_help(
                        "add the missing `)`; arguments may span lines, but not contain directives",
                    ),
                );
                return None;
            };
            last = pt.tok;
            match pt.tok.tok {
                Tok::LParen => nesting += 1,
                Tok::RParen if nesting == 0 => return Some((args, pt.tok)),
                Tok::RParen => nesting -= 1,
                Tok::Comma if nesting == 0 => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(arg) = args.last_mut() {
                arg.push(pt);
            }
        }
    }

    /// `defined X` or `defined(X)` in an `#if` line becomes `1` or `0`. The
    /// operand is read here so that it is not macro-expanded. A malformed use
    /// is passed on as it is, for the expression parser to report.
    fn defined_operator(&mut self, frame: &mut Frame<'s>, kw: PTok<'s>) {
        let mut read = vec![kw];
        let mut operand = self.next_any(frame);
        let paren = operand.is_some_and(|t| t.tok.tok == Tok::LParen);
        if paren {
            read.extend(operand);
            operand = self.next_any(frame);
        }
        let Some(operand) = operand else {
            return frame.out.extend(read);
        };
        read.push(operand);
        let defined = match operand.tok.tok {
            Tok::Ident(n) => self.macros.is_defined(n),
            t if is_keyword(&t) => false,
            _ => return frame.out.extend(read),
        };
        let mut last = operand.tok;
        if paren {
            match self.next_any(frame) {
                Some(t) if t.tok.tok == Tok::RParen => last = t.tok,
                other => {
                    read.extend(other);
                    return frame.out.extend(read);
                }
            }
        }
        frame.out.push(PTok::new(Token {
            tok: Tok::Int(if defined { "1" } else { "0" }),
            start: kw.tok.start.min(last.start),
            end: kw.tok.end.max(last.end),
        }));
    }

    // ----- directives -----

    /// `hash` is the `#`, `line` the rest of its line, `line_end` the offset
    /// where the line ends.
    fn directive(&mut self, hash: Token<'s>, line: &[Token<'s>], line_end: u32) {
        // A lone `#` is the null directive.
        let Some((&kw, rest)) = line.split_first() else {
            return;
        };
        let span = self.span(hash.start, kw.end);
        let name = directive_name(&kw.tok);
        match name.as_deref().unwrap_or("") {
            "if" => self.open_conditional("#if", span, kw, rest),
            "ifdef" => self.open_conditional("#ifdef", span, kw, rest),
            "ifndef" => self.open_conditional("#ifndef", span, kw, rest),
            "elif" => self.elif("#elif", span, kw, rest),
            "elifdef" => self.elif("#elifdef", span, kw, rest),
            "elifndef" => self.elif("#elifndef", span, kw, rest),
            // Tokens after `#else`/`#endif` are ignored, as most compilers do
            // (`#endif FOO` is common in older code).
            "else" => self.else_directive(span),
            "endif" => self.endif(span),
            // In a skipped block only conditionals count.
            _ if self.skipping() => {}
            "define" => self.define(kw, rest),
            "undef" => self.undef(kw, rest),
            "include" => self.include(kw, rest),
            "error" => self.error_directive(hash, kw, rest, line_end),
            "pragma" => {
                // `#pragma once`: the file is not read again. Every other
                // pragma has no effect here.
                if matches!(rest.first().map(|t| t.tok), Some(Tok::Ident("once"))) {
                    self.once.insert(self.files.file_at(hash.start));
                }
                // `#pragma pack` changes the layout of the structs after it;
                // ignoring it would give them another layout than C++ does.
                if matches!(rest.first().map(|t| t.tok), Some(Tok::Ident("pack"))) {
                    self.diags.push(
                        Diagnostic::error(codes::E0051, span, "`#pragma pack` is not supported")
                            .with_label("changes the layout of structs")
                            .with_help("remove it: C++ AMP types must keep their natural alignment (MSVC rejects packed types in amp code, C3581)"),
                    );
                }
            }
            "line" | "warning" | "ident" | "sccs" | "import" | "include_next" | "assert"
            | "unassert" => {
                let shown = kw.tok.to_string();
                self.diags.push(
                    Diagnostic::error(codes::E0051, span, format!("`#{shown}` is not supported"))
                        .with_label("unsupported directive")
                        .with_help(SUPPORTED_DIRECTIVES),
                );
            }
            "" => {
                self.diags.push(
                    Diagnostic::error(
                        codes::E0051,
                        span,
                        format!(
                            "expected a directive name after `#`, found {}",
                            kw.tok.describe()
                        ),
                    )
                    .with_label("not a directive")
                    .with_help(SUPPORTED_DIRECTIVES),
                );
            }
            other => {
                let message = format!("unknown directive `#{other}`");
                self.diags.push(
                    Diagnostic::error(codes::E0051, span, message)
                        .with_label("unknown directive")
                        .with_help(SUPPORTED_DIRECTIVES),
                );
            }
        }
    }

    fn open_conditional(
        &mut self,
        kind: &'static str,
        span: Span,
        kw: Token<'s>,
        rest: &[Token<'s>],
    ) {
        let state = if self.skipping() {
            CondState::Done
        } else if self.condition(kind, span, kw, rest) {
            CondState::Taking
        } else {
            CondState::Waiting
        };
        self.conds.push(Cond {
            kind,
            open: span,
            state,
            else_span: None,
        });
    }

    /// Evaluates the condition of `#if`, `#ifdef` and relatives; errors count as false.
    fn condition(&mut self, kind: &str, span: Span, kw: Token<'s>, rest: &[Token<'s>]) -> bool {
        match kind {
            "#ifdef" | "#elifdef" => self.name_operand(kind, kw, rest).unwrap_or(false),
            "#ifndef" | "#elifndef" => self.name_operand(kind, kw, rest).is_some_and(|d| !d),
            _ => self.eval_if(kind, span, rest),
        }
    }

    /// Whether the macro named by the first token of `rest` is defined; `None`
    /// (after reporting E0051) when there is no name.
    fn name_operand(&mut self, kind: &str, kw: Token<'s>, rest: &[Token<'s>]) -> Option<bool> {
        // Extra tokens after the name are ignored, as most compilers only warn about them.
        match rest.first() {
            Some(Token {
                tok: Tok::Ident(n), ..
            }) => Some(self.macros.is_defined(n)),
            // Keywords cannot be macros here, so they are never defined.
            Some(t) if is_keyword(&t.tok) => Some(false),
            Some(t) => {
                let message = format!(
                    "macro name must be an identifier, found {}",
                    t.tok.describe()
                );
                self.error(
                    codes::E0051,
                    t.span(self.files),
                    message,
                    "expected a macro name",
                );
                None
            }
            None => {
                let message = format!("macro name missing after `{kind}`");
                self.error(
                    codes::E0051,
                    kw.span(self.files),
                    message,
                    "expected a macro name after this",
                );
                None
            }
        }
    }

    fn elif(&mut self, kind: &'static str, span: Span, kw: Token<'s>, rest: &[Token<'s>]) {
        let Some(&Cond {
            state, else_span, ..
        }) = self.conds.last()
        else {
            return self.without_if(kind, span);
        };
        if let Some(else_span) = else_span {
            self.diags.push(
                Diagnostic::error(codes::E0051, span, format!("`{kind}` after `#else`"))
                    .with_label("this branch can never be taken")
                    .with_secondary(else_span, "the `#else` is here")
                    .with_help("move this branch before the `#else`"),
            );
            if let Some(top) = self.conds.last_mut() {
                top.state = CondState::Done;
            }
            return;
        }
        let state = match state {
            // Only evaluated when no branch was taken: the outer block is then active.
            CondState::Waiting if self.condition(kind, span, kw, rest) => CondState::Taking,
            CondState::Waiting => CondState::Waiting,
            CondState::Taking | CondState::Done => CondState::Done,
        };
        if let Some(top) = self.conds.last_mut() {
            top.state = state;
        }
    }

    fn else_directive(&mut self, span: Span) {
        let Some(top) = self.conds.last_mut() else {
            return self.without_if("#else", span);
        };
        let previous = top.else_span.replace(span);
        top.state = match top.state {
            CondState::Waiting if previous.is_none() => CondState::Taking,
            _ => CondState::Done,
        };
        if let Some(previous) = previous {
            self.diags.push(
                Diagnostic::error(codes::E0051, span, "`#else` after `#else`")
                    .with_label("second `#else`")
                    .with_secondary(previous, "the first `#else` is here")
                    .with_help("a conditional block has at most one `#else`"),
            );
        }
    }

    fn endif(&mut self, span: Span) {
        if self.conds.pop().is_none() {
            self.without_if("#endif", span);
        }
    }

    fn without_if(&mut self, kind: &str, span: Span) {
        self.diags.push(
            Diagnostic::error(codes::E0053, span, format!("`{kind}` without `#if`"))
                .with_label("no conditional block is open here")
                .with_help("remove it, or add the `#if` it belongs to"),
        );
    }

    fn define(&mut self, kw: Token<'s>, rest: &[Token<'s>]) {
        let file = self.files;
        let Some((&name_tok, after)) = rest.split_first() else {
            let message = "macro name missing after `#define`".to_string();
            return self.error(
                codes::E0051,
                kw.span(file),
                message,
                "expected a macro name after this",
            );
        };
        let name = match name_tok.tok {
            Tok::Ident("defined") => {
                let message = "`defined` cannot be used as a macro name".to_string();
                return self.error(codes::E0051, name_tok.span(file), message, "reserved name");
            }
            Tok::Ident(name) => name,
            t if is_keyword(&t) => {
                self.diags.push(
                    Diagnostic::error(
                        codes::E0051,
                        name_tok.span(file),
                        format!("cannot define the keyword `{t}` as a macro"),
                    )
                    .with_label("this is a keyword")
                    .with_help("choose a name that is not a keyword"),
                );
                return;
            }
            t => {
                let message = format!("macro name must be an identifier, found {}", t.describe());
                return self.error(
                    codes::E0051,
                    name_tok.span(file),
                    message,
                    "expected a macro name",
                );
            }
        };
        // Function-like only when `(` touches the name: `#define F (x)` is object-like.
        let (params, body) = match after.split_first() {
            Some((lp, inner)) if lp.tok == Tok::LParen && lp.start == name_tok.end => {
                let Some((params, body)) = self.parse_params(*lp, inner) else {
                    return;
                };
                (Some(params), body)
            }
            _ => (None, after),
        };
        let variadic = params
            .as_ref()
            .is_some_and(|ps| ps.last() == Some(&"__VA_ARGS__"));
        let index: HashMap<&str, usize> = params
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, p)| (*p, i))
            .collect();
        let mut used = vec![false; index.len()];
        let mut raw_used = vec![false; index.len()];
        let mut out: Vec<BodyTok<'s>> = Vec::with_capacity(body.len());
        let mut k = 0;
        while k < body.len() {
            let t = body[k];
            k += 1;
            match t.tok {
                Tok::HashHash => {
                    if out.is_empty() || k == body.len() {
                        return self.hash_error(t, "`##` cannot begin or end a macro body");
                    }
                    if let Some(BodyTok::Param(i)) = out.last()
                        && let Some(r) = raw_used.get_mut(*i)
                    {
                        *r = true;
                    }
                    out.push(BodyTok::Paste);
                }
                // `#` is an operator only in a function-like macro.
                Tok::Hash if params.is_some() => {
                    let param = body.get(k).and_then(|n| match n.tok {
                        Tok::Ident(n) => index.get(n).copied(),
                        _ => None,
                    });
                    let Some(i) = param else {
                        return self.hash_error(t, "`#` must be followed by a macro parameter");
                    };
                    k += 1;
                    if let Some(u) = used.get_mut(i) {
                        *u = true;
                    }
                    if let Some(r) = raw_used.get_mut(i) {
                        *r = true;
                    }
                    out.push(BodyTok::Stringize(i));
                }
                Tok::Ident(n) => match index.get(n) {
                    Some(&i) => {
                        if let Some(u) = used.get_mut(i) {
                            *u = true;
                        }
                        if matches!(out.last(), Some(BodyTok::Paste))
                            && let Some(r) = raw_used.get_mut(i)
                        {
                            *r = true;
                        }
                        out.push(BodyTok::Param(i));
                    }
                    None => out.push(BodyTok::Tok(t.tok)),
                },
                _ => out.push(BodyTok::Tok(t.tok)),
            }
        }
        let body = out;
        let new = Macro {
            params,
            variadic,
            used,
            raw_used,
            body,
            def: name_tok.span(file),
        };
        if let Some(old) = self.macros.defs.get(name)
            && (old.params != new.params || old.body != new.body)
        {
            self.diags.push(
                Diagnostic::warning(
                    codes::W0058,
                    new.def,
                    format!("macro `{name}` redefined with a different body"),
                )
                .with_label("redefined here")
                .with_secondary(old.def, "previous definition")
                .with_help(format!(
                    "if the change is intended, write `#undef {name}` first"
                )),
            );
        }
        self.macros.defs.insert(name, Arc::new(new));
    }

    /// Reports a misplaced `#` or `##` in a macro body (the `#define` is
    /// dropped).
    fn hash_error(&mut self, at: Token<'s>, message: &str) {
        let span = at.span(self.files);
        self.diags.push(
            Diagnostic::error(codes::E0051, span, message.to_string())
                .with_label(format!("`{}` here", at.tok)),
        );
    }

    /// Parses a parameter list after its `(`; returns the names and the body tokens.
    fn parse_params<'t>(
        &mut self,
        lparen: Token<'s>,
        toks: &'t [Token<'s>],
    ) -> Option<(Vec<&'s str>, &'t [Token<'s>])> {
        let file = self.files;
        let mut params = Vec::new();
        // A set, so that a huge parameter list is not checked in quadratic time.
        let mut seen = HashSet::new();
        if toks.first().is_some_and(|t| t.tok == Tok::RParen) {
            return Some((params, toks.get(1..).unwrap_or_default()));
        }
        let mut i = 0;
        let mut prev = lparen;
        loop {
            let at = |t: Option<&Token<'s>>, prev: Token<'s>| {
                t.map_or(prev.span(file).after(), |t| t.span(file))
            };
            match toks.get(i) {
                Some(
                    t @ Token {
                        tok: Tok::Ident(p), ..
                    },
                ) if *p != "__VA_ARGS__" => {
                    if !seen.insert(*p) {
                        let message = format!("duplicate macro parameter `{p}`");
                        self.error(codes::E0051, t.span(file), message, "already a parameter");
                        return None;
                    }
                    params.push(*p);
                    prev = *t;
                }
                // `...` ends the list; the body names it `__VA_ARGS__`.
                Some(t) if t.tok == Tok::Ellipsis => match toks.get(i + 1) {
                    Some(close) if close.tok == Tok::RParen => {
                        params.push("__VA_ARGS__");
                        return Some((params, toks.get(i + 2..).unwrap_or_default()));
                    }
                    other => {
                        let found = other.map_or("end of line".to_string(), |t| t.tok.describe());
                        let message = format!("expected `)` after `...`, found {found}");
                        self.error(codes::E0051, at(other, *t), message, "expected `)`");
                        return None;
                    }
                },
                Some(
                    t @ Token {
                        tok: Tok::Ident("__VA_ARGS__"),
                        ..
                    },
                ) => {
                    let message = "`__VA_ARGS__` cannot name a parameter".to_string();
                    self.error(codes::E0051, t.span(file), message, "reserved name");
                    return None;
                }
                other => {
                    let found = other.map_or("end of line".to_string(), |t| t.tok.describe());
                    let message = format!("expected a parameter name, found {found}");
                    self.error(
                        codes::E0051,
                        at(other, prev),
                        message,
                        "expected a parameter name",
                    );
                    return None;
                }
            }
            i += 1;
            match toks.get(i) {
                Some(t) if t.tok == Tok::Comma => prev = *t,
                Some(t) if t.tok == Tok::RParen => {
                    return Some((params, toks.get(i + 1..).unwrap_or_default()));
                }
                other => {
                    let found = other.map_or("end of line".to_string(), |t| t.tok.describe());
                    let message =
                        format!("expected `,` or `)` in the parameter list, found {found}");
                    self.error(
                        codes::E0051,
                        at(other, prev),
                        message,
                        "expected `,` or `)`",
                    );
                    return None;
                }
            }
            i += 1;
        }
    }

    fn undef(&mut self, kw: Token<'s>, rest: &[Token<'s>]) {
        if let Some(Token {
            tok: Tok::Ident(name),
            ..
        }) = rest.first()
        {
            self.macros.defs.remove(name);
        } else {
            // Reports a missing or malformed name; a keyword is simply not a macro.
            let _ = self.name_operand("#undef", kw, rest);
        }
    }

    fn include(&mut self, kw: Token<'s>, rest: &[Token<'s>]) {
        let file = self.files;
        let Some(&first) = rest.first() else {
            self.diags.push(
                Diagnostic::error(
                    codes::E0051,
                    kw.span(file),
                    "`#include` expects a header name",
                )
                .with_label("expected `<header>` or `\"header\"` after this")
                .with_help("for example `#include <amp.h>`"),
            );
            return;
        };
        // `<amp.h>` lexes as several tokens; the name is the source text between `<` and `>`.
        let (start, end) = match first.tok {
            Tok::Lt => {
                let close = rest
                    .iter()
                    .find(|t| matches!(t.tok, Tok::Gt | Tok::Ge | Tok::Shr | Tok::ShrAssign));
                let Some(close) = close else {
                    let last = rest.last().map_or(first.end, |t| t.end);
                    self.diags.push(
                        Diagnostic::error(
                            codes::E0051,
                            self.span(first.start, last),
                            "missing `>` after the header name",
                        )
                        .with_label("this header name is not closed")
                        .with_help("write for example `#include <amp.h>`"),
                    );
                    return;
                };
                (first.end, close.start)
            }
            Tok::Str(s) if s.starts_with('"') => {
                (first.start.saturating_add(1), first.end.saturating_sub(1))
            }
            t => {
                self.diags.push(
                    Diagnostic::error(
                        codes::E0051,
                        first.span(file),
                        format!(
                            "expected `<header>` or `\"header\"`, found {}",
                            t.describe()
                        ),
                    )
                    .with_label("not a header name")
                    .with_help("name the header directly; macros are not expanded in `#include`"),
                );
                return;
            }
        };
        let raw = self.files.text(start, end);
        // Spaces inside the brackets are tolerated: `< amp.h >` names `amp.h`.
        let name = raw.trim();
        let start = start.saturating_add((raw.len() - raw.trim_start().len()) as u32);
        let span = self.span(start, start.saturating_add(name.len() as u32));
        let including = self.files.file_at(kw.start);
        let quoted = matches!(first.tok, Tok::Str(_));
        if let Some(&known) = KNOWN_HEADERS.iter().find(|&&h| h == name) {
            // What the library's own text includes is its business: a
            // program gets only what its headers bring (see `headers`).
            let from_library = crate::headers::is_library_text(self.files.segment(kw.start).text);
            if !from_library && !self.macros.standard_headers.contains(&known) {
                self.macros.standard_headers.push(known);
            }
            builtin::define(self.macros, name, span);
            // The part of the header written in the Tessera language.
            if let Some(Found::File { file, .. }) =
                self.headers
                    .resolved
                    .get(&(including, name.to_string(), quoted))
                && crate::headers::source_of(name).is_some()
            {
                self.include_file(*file, span);
            }
            return;
        }
        match self
            .headers
            .resolved
            .get(&(including, name.to_string(), quoted))
        {
            Some(Found::File { file, spelled }) => {
                if let Some(spelled) = spelled {
                    self.diags.push(
                        Diagnostic::warning(
                            codes::W0060,
                            span,
                            format!("`{name}` is found only as `{spelled}`"),
                        )
                        .with_label("the file's name differs in case")
                        .with_note("Windows finds it, but file names are case-sensitive elsewhere")
                        .with_help(format!("write `{spelled}`")),
                    );
                }
                return self.include_file(*file, span);
            }
            Some(Found::Missing) if quoted => {
                self.diags.push(
                    Diagnostic::error(codes::E0059, span, format!("header file `{name}` not found"))
                        .with_label("no such file")
                        .with_note("a `\"...\"` header is looked for next to the file that includes it, then in each folder given with `-I`")
                        .with_help("check the name, or pass its folder with `-I DIR`"),
                );
                return;
            }
            _ => {}
        }
        if name.is_empty() {
            let message = "empty header name".to_string();
            return self.error(
                codes::E0051,
                first.span(file),
                message,
                "no header named here",
            );
        }
        let c_name = name.strip_suffix(".h").map(|base| format!("c{base}"));
        let help = match c_name {
            _ if name.eq_ignore_ascii_case("windows.h") => {
                "Windows console calls are not part of the language; remove the include and the calls"
                    .to_string()
            }
            Some(c) if KNOWN_HEADERS.contains(&c.as_str()) => {
                format!("in C++ this header is `<{c}>`")
            }
            _ => format!(
                "the known headers are {}",
                KNOWN_HEADERS
                    .iter()
                    .map(|h| format!("`<{h}>`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        self.diags.push(
            Diagnostic::warning(codes::W0050, span, format!("unknown header `{name}` skipped"))
                .with_label("not a header Tessera knows")
                .with_note("the contents of the known headers are built into Tessera; what this header declares is unknown")
                .with_help(help),
        );
    }

    /// Reads the tokens of header `file` here, as if written in place of
    /// the `#include` at `span`.
    fn include_file(&mut self, file: FileId, span: Span) {
        if self.once.contains(&file) {
            return;
        }
        if self.outer.len() >= MAX_INCLUDE_DEPTH as usize {
            self.diags.push(
                Diagnostic::error(codes::E0061, span, "`#include` nested too deeply")
                    .with_label(format!("{MAX_INCLUDE_DEPTH} headers are open here"))
                    .with_help(
                        "a header that includes itself needs an include guard or `#pragma once`",
                    ),
            );
            return;
        }
        let toks = match self.lexed.get(&file) {
            Some(toks) => Rc::clone(toks),
            None => {
                let Some((seg, replaced)) = self.headers.files.get(&file) else {
                    return;
                };
                let mut toks = lex(file, seg.text, replaced, self.diags);
                for t in &mut toks {
                    t.start = t.start.saturating_add(seg.base);
                    t.end = t.end.saturating_add(seg.base);
                }
                let toks: Rc<[Token<'s>]> = toks.into();
                self.lexed.insert(file, Rc::clone(&toks));
                toks
            }
        };
        // `run_files` reads the header next, then comes back here.
        self.outer.push(Including {
            toks: std::mem::replace(&mut self.toks, toks),
            pos: self.pos,
            conds: self.conds.len(),
        });
        self.pos = 0;
    }

    fn error_directive(
        &mut self,
        hash: Token<'s>,
        kw: Token<'s>,
        rest: &[Token<'s>],
        line_end: u32,
    ) {
        // The message is the source text, not the tokens: it need not be valid C++.
        // A comment after the last token is not part of it.
        let last = rest.last().map_or(kw.end, |t| t.end);
        let tail = self.files.text(last, line_end);
        let comment = ["//", "/*"].iter().filter_map(|c| tail.find(c)).min();
        let end = last.saturating_add(comment.unwrap_or(tail.len()) as u32);
        let message = self.files.text(kw.end, end).trim();
        let message = if message.is_empty() {
            "`#error` directive".to_string()
        } else {
            format!("#error {message}")
        };
        let span = self.span(hash.start, end.max(kw.end));
        self.error(codes::E0057, span, message, "`#error` reached");
    }

    // ----- `#if` expressions -----

    fn eval_if(&mut self, kind: &str, span: Span, rest: &[Token<'s>]) -> bool {
        let Some(last) = rest.last() else {
            let message = format!("`{kind}` with no expression");
            self.error(
                codes::E0056,
                span,
                message,
                "expected an expression after this",
            );
            return false;
        };
        let end = self.span(last.end, last.end);
        let initial = rest.iter().map(|&t| PTok::new(t)).collect();
        let toks: Vec<Token<'s>> = self
            .expand(initial, false, true)
            .into_iter()
            .map(|p| p.tok)
            .collect();
        let mut parser = ExprParser {
            toks: &toks,
            pos: 0,
            depth: 0,
            file: self.files,
            end,
        };
        let result = parser.conditional(true).and_then(|v| match parser.peek() {
            None => Ok(v),
            Some(t) => Err(parser.error(
                Some(t),
                format!("unexpected {} in `{kind}` expression", t.tok.describe()),
                "expected an operator or the end of the line",
            )),
        });
        match result {
            Ok(v) => v != 0,
            Err(e) => {
                self.diags.push(
                    Diagnostic::error(codes::E0056, e.span, e.message)
                        .with_label(e.label)
                        .with_secondary(span, "in this directive"),
                );
                false
            }
        }
    }
}

/// The help line listing what the preprocessor does support.
const SUPPORTED_DIRECTIVES: &str = "the supported directives are `#include`, `#define`, `#undef`, \
     `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif`, `#error` and `#pragma`";

/// The name after `#`: an identifier or a keyword (`if`, `else`).
fn directive_name(tok: &Tok<'_>) -> Option<String> {
    match tok {
        Tok::Ident(s) => Some((*s).to_string()),
        t if is_keyword(t) => Some(t.to_string()),
        _ => None,
    }
}

/// Whether the lexer made a keyword token of something spelled like an identifier.
fn is_keyword(tok: &Tok<'_>) -> bool {
    match tok {
        Tok::Ident(_)
        | Tok::TypeName(_)
        | Tok::NsQual(_)
        | Tok::ClassQual(_)
        | Tok::NestedQual(_)
        | Tok::TemplateQual(_)
        | Tok::TemplateName(_)
        | Tok::Int(_)
        | Tok::Float(_)
        | Tok::BadNumber(_)
        | Tok::Str(_)
        | Tok::Char(_) => false,
        other => other
            .to_string()
            .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'),
    }
}

#[cfg(test)]
mod tests;
