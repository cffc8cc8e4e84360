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
//! limit on nesting bound time and memory, whatever the macros do.

use crate::files::{Files, Segment};
use crate::lexer::{Token, lex};
use crate::token::Tok;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;
use tessera_diagnostics::{Diagnostic, FileId, Span, codes};

/// Headers `#include` accepts. Their declarations are built into the
/// compiler, so an include adds no tokens.
pub const KNOWN_HEADERS: &[&str] = &[
    "amp.h",
    "amp_math.h",
    "iostream",
    "iomanip",
    "vector",
    "cmath",
    "cstdlib",
    "cstdio",
    "algorithm",
    "numeric",
];

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
}

/// One `#define`.
#[derive(Debug)]
struct Macro<'s> {
    /// `None` for object-like macros.
    params: Option<Vec<&'s str>>,
    /// Per parameter: whether the body mentions it (unused arguments are not expanded).
    used: Vec<bool>,
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
    defs: HashMap<&'s str, Arc<Macro<'s>>>,
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
    /// `(including file, name between the quotes)` to what it names.
    pub resolved: HashMap<(FileId, String), Found>,
    /// Each header's place among positions (see [`Files`]) and the offsets
    /// of bytes that were not UTF-8 (see `SourceFile::from_bytes`).
    pub files: HashMap<FileId, (Segment<'s>, Vec<usize>)>,
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
        disabled: HashMap::new(),
        depth: 0,
        work: 0,
        limit: tokens.len().saturating_mul(16).saturating_add(1_000_000),
        exhausted: false,
    };
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
    disabled: HashMap<&'s str, u32>,
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
                        Tok::Ident(name) if !self.exhausted && self.macros.is_defined(name) => {
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
            let toks = mac
                .body
                .iter()
                .filter_map(|b| match b {
                    BodyTok::Tok(tok) => Some(PTok::new(Token {
                        tok: *tok,
                        ..pt.tok
                    })),
                    BodyTok::Param(_) => None,
                })
                .collect();
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
        if args.len() != params.len() {
            let (n, got) = (params.len(), args.len());
            let plural = |k: usize| if k == 1 { "" } else { "s" };
            self.diags.push(
                Diagnostic::error(
                    codes::E0054,
                    at.span(self.files),
                    format!(
                        "macro `{name}` takes {n} argument{} but {got} {} given",
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
            let raw = p.raw.get_mut(i).map(std::mem::take).unwrap_or_default();
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
                BodyTok::Param(i) => p.expanded.get(*i).map_or(0, Vec::len),
                BodyTok::Tok(_) => 1,
            })
            .fold(0usize, usize::saturating_add);
        if !self.reserve(size, p.at) {
            return;
        }
        let mut toks = Vec::with_capacity(size);
        for b in &p.mac.body {
            match b {
                BodyTok::Tok(tok) => toks.push(PTok::new(Token { tok: *tok, ..p.at })),
                BodyTok::Param(i) => toks.extend(p.expanded.get(*i).into_iter().flatten().copied()),
            }
        }
        self.push_context(frame, p.name, toks);
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
        if let Some(h) = body
            .iter()
            .find(|t| matches!(t.tok, Tok::Hash | Tok::HashHash))
        {
            self.diags.push(
                Diagnostic::error(
                    codes::E0051,
                    h.span(file),
                    "stringizing and token pasting are not supported",
                )
                .with_label(format!("`{}` in a macro body", h.tok))
                .with_help("write the string or the identifier out; macros only substitute tokens"),
            );
            return;
        }
        let index: HashMap<&str, usize> = params
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, p)| (*p, i))
            .collect();
        let mut used = vec![false; index.len()];
        let body: Vec<BodyTok<'s>> = body
            .iter()
            .map(|t| match t.tok {
                Tok::Ident(n) => match index.get(n) {
                    Some(&i) => {
                        if let Some(u) = used.get_mut(i) {
                            *u = true;
                        }
                        BodyTok::Param(i)
                    }
                    None => BodyTok::Tok(t.tok),
                },
                _ => BodyTok::Tok(t.tok),
            })
            .collect();
        let new = Macro {
            params,
            used,
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
                ) => {
                    if !seen.insert(*p) {
                        let message = format!("duplicate macro parameter `{p}`");
                        self.error(codes::E0051, t.span(file), message, "already a parameter");
                        return None;
                    }
                    params.push(*p);
                    prev = *t;
                }
                Some(t) if t.tok == Tok::Ellipsis => {
                    let message = "variadic macros are not supported".to_string();
                    self.error(codes::E0051, t.span(file), message, "`...` parameter");
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
        if KNOWN_HEADERS.contains(&name) {
            return;
        }
        let including = self.files.file_at(kw.start);
        match self.headers.resolved.get(&(including, name.to_string())) {
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
            Some(Found::Missing) if matches!(first.tok, Tok::Str(_)) => {
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

/// Evaluates a macro-expanded `#if` line in `i64`, with C's precedence.
///
/// `eval` is false in operands that C does not evaluate (`0 && x`, the
/// untaken side of `?:`), so that `0 && 1 / 0` is not an error.
struct ExprParser<'t, 's> {
    toks: &'t [Token<'s>],
    pos: usize,
    depth: u32,
    file: Files<'t, 's>,
    /// Where a missing operand is reported: the end of the line.
    end: Span,
}

type Eval = Result<i64, ExprError>;

impl<'s> ExprParser<'_, 's> {
    fn peek(&self) -> Option<Token<'s>> {
        self.toks.get(self.pos).copied()
    }

    fn error(&self, at: Option<Token<'s>>, message: String, label: &str) -> ExprError {
        ExprError {
            span: at.map_or(self.end, |t| t.span(self.file)),
            message,
            label: label.to_string(),
        }
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(self.error(
                self.peek(),
                "`#if` expression nested too deeply".to_string(),
                "too many nested parentheses or operators",
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// `c ? a : b` (right-associative) or a binary expression.
    fn conditional(&mut self, eval: bool) -> Eval {
        self.enter()?;
        let c = self.binary(1, eval)?;
        let value = match self.peek() {
            Some(t) if t.tok == Tok::Question => {
                self.pos += 1;
                let a = self.conditional(eval && c != 0)?;
                match self.peek() {
                    Some(t) if t.tok == Tok::Colon => self.pos += 1,
                    other => {
                        return Err(self.error(
                            other,
                            "expected `:` in `?:` expression".to_string(),
                            "expected `:`",
                        ));
                    }
                }
                let b = self.conditional(eval && c == 0)?;
                if c != 0 { a } else { b }
            }
            _ => c,
        };
        self.leave();
        Ok(value)
    }

    /// Precedence climbing over the binary operators binding at least as
    /// tightly as `min`; the recursion is at most one level per precedence.
    fn binary(&mut self, min: u8, eval: bool) -> Eval {
        let mut lhs = self.unary(eval)?;
        while let Some(op) = self.peek() {
            let Some(prec) = precedence(&op.tok) else {
                break;
            };
            if prec < min {
                break;
            }
            self.pos += 1;
            let rhs_eval = match op.tok {
                Tok::AndAnd => eval && lhs != 0,
                Tok::OrOr => eval && lhs == 0,
                _ => eval,
            };
            let rhs = self.binary(prec + 1, rhs_eval)?;
            lhs = self.apply(op, lhs, rhs, eval)?;
        }
        Ok(lhs)
    }

    fn apply(&self, op: Token<'s>, a: i64, b: i64, eval: bool) -> Eval {
        let truth = |x: bool| i64::from(x);
        Ok(match op.tok {
            Tok::Star => a.wrapping_mul(b),
            Tok::Slash | Tok::Percent if b == 0 => {
                if eval {
                    return Err(self.error(
                        Some(op),
                        "division by zero in `#if`".to_string(),
                        "division by zero",
                    ));
                }
                0
            }
            Tok::Slash => a.wrapping_div(b),
            Tok::Percent => a.wrapping_rem(b),
            Tok::Plus => a.wrapping_add(b),
            Tok::Minus => a.wrapping_sub(b),
            Tok::Shl => shift_left(a, b),
            Tok::Shr => shift_right(a, b),
            Tok::Lt => truth(a < b),
            Tok::Le => truth(a <= b),
            Tok::Gt => truth(a > b),
            Tok::Ge => truth(a >= b),
            Tok::EqEq => truth(a == b),
            Tok::NotEq => truth(a != b),
            Tok::Amp => a & b,
            Tok::Caret => a ^ b,
            Tok::Pipe => a | b,
            Tok::AndAnd => truth(a != 0 && b != 0),
            Tok::OrOr => truth(a != 0 || b != 0),
            _ => 0,
        })
    }

    fn unary(&mut self, eval: bool) -> Eval {
        self.enter()?;
        let value = match self.peek() {
            Some(t) if matches!(t.tok, Tok::Bang | Tok::Tilde | Tok::Minus | Tok::Plus) => {
                self.pos += 1;
                let v = self.unary(eval)?;
                match t.tok {
                    Tok::Bang => i64::from(v == 0),
                    Tok::Tilde => !v,
                    Tok::Minus => v.wrapping_neg(),
                    _ => v,
                }
            }
            _ => self.primary(eval)?,
        };
        self.leave();
        Ok(value)
    }

    fn primary(&mut self, eval: bool) -> Eval {
        let Some(t) = self.peek() else {
            return Err(self.error(
                None,
                "expected a value at the end of the `#if` expression".to_string(),
                "expected a value here",
            ));
        };
        self.pos += 1;
        match t.tok {
            Tok::Int(s) => parse_int(s).ok_or_else(|| {
                self.error(
                    Some(t),
                    format!("invalid integer constant `{s}` in `#if`"),
                    "not a valid integer, or too large for 64 bits",
                )
            }),
            Tok::Char(s) => parse_char(s).ok_or_else(|| {
                self.error(
                    Some(t),
                    format!("unsupported character constant {s} in `#if`"),
                    "expected a single character",
                )
            }),
            Tok::True => Ok(1),
            Tok::False => Ok(0),
            Tok::Ident("defined") => Err(self.error(
                Some(t),
                "`defined` must be followed by a macro name".to_string(),
                "write `defined NAME` or `defined(NAME)`",
            )),
            // As in C, an identifier left after expansion is 0.
            Tok::Ident(_) => Ok(0),
            k if is_keyword(&k) => Ok(0),
            Tok::LParen => {
                let v = self.conditional(eval)?;
                match self.peek() {
                    Some(close) if close.tok == Tok::RParen => {
                        self.pos += 1;
                        Ok(v)
                    }
                    other => Err(self.error(
                        other,
                        "expected `)` in `#if` expression".to_string(),
                        "expected `)` to close the parenthesis",
                    )),
                }
            }
            Tok::Float(_) => Err(self.error(
                Some(t),
                "floating-point constant in `#if`".to_string(),
                "`#if` takes integer expressions only",
            )),
            Tok::Str(_) => Err(self.error(
                Some(t),
                "string literal in `#if`".to_string(),
                "`#if` takes integer expressions only",
            )),
            other => Err(self.error(
                Some(t),
                format!(
                    "expected a value in `#if` expression, found {}",
                    other.describe()
                ),
                "expected a value",
            )),
        }
    }
}

/// Binding strength of a binary operator in `#if` (higher binds tighter).
fn precedence(tok: &Tok<'_>) -> Option<u8> {
    Some(match tok {
        Tok::Star | Tok::Slash | Tok::Percent => 10,
        Tok::Plus | Tok::Minus => 9,
        Tok::Shl | Tok::Shr => 8,
        Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge => 7,
        Tok::EqEq | Tok::NotEq => 6,
        Tok::Amp => 5,
        Tok::Caret => 4,
        Tok::Pipe => 3,
        Tok::AndAnd => 2,
        Tok::OrOr => 1,
        _ => return None,
    })
}

/// `a << b`, total: C leaves big and negative shifts undefined; here a
/// negative count shifts the other way and 64 or more gives 0 (or the sign).
fn shift_left(a: i64, b: i64) -> i64 {
    match b {
        0..=63 => a.wrapping_shl(b as u32),
        64.. => 0,
        _ => shift_right(a, b.saturating_neg()),
    }
}

/// `a >> b` (arithmetic), total like [`shift_left`].
fn shift_right(a: i64, b: i64) -> i64 {
    match b {
        0..=63 => a >> b,
        64.. => a >> 63,
        _ => shift_left(a, b.saturating_neg()),
    }
}

/// The value of an integer literal: decimal, `0x` hex, `0b` binary or
/// leading-`0` octal, with `u`/`l` suffixes ignored. `None` if it does not fit in 64 bits.
fn parse_int(s: &str) -> Option<i64> {
    let digits = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let (radix, body) = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, hex)
    } else if let Some(bin) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, bin)
    } else if let Some(oct) = digits.strip_prefix('0').filter(|o| !o.is_empty()) {
        (8, oct)
    } else {
        (10, digits)
    };
    // `from_str_radix` would accept a sign; a literal never has one.
    if body.starts_with(['+', '-']) {
        return None;
    }
    // Unsigned constants above `i64::MAX` wrap, like the rest of the arithmetic.
    u64::from_str_radix(body, radix).ok().map(|v| v as i64)
}

/// The value of a one-character literal such as `'a'` or `'\n'`.
fn parse_char(s: &str) -> Option<i64> {
    let inner = s
        .strip_prefix('L')
        .unwrap_or(s)
        .strip_prefix('\'')?
        .strip_suffix('\'')?;
    let mut chars = inner.chars();
    let value = match chars.next()? {
        '\\' => {
            let esc = chars.next()?;
            match esc {
                'n' => 10,
                't' => 9,
                'r' => 13,
                'a' => 7,
                'b' => 8,
                'f' => 12,
                'v' => 11,
                '\\' | '\'' | '"' | '?' => u32::from(esc),
                'x' => {
                    let hex: String = chars.by_ref().collect();
                    return u32::from_str_radix(&hex, 16).ok().map(i64::from);
                }
                '0'..='7' => {
                    let oct: String = std::iter::once(esc).chain(chars.by_ref()).collect();
                    return (oct.len() <= 3)
                        .then(|| u32::from_str_radix(&oct, 8).ok().map(i64::from))
                        .flatten();
                }
                _ => return None,
            }
        }
        c => u32::from(c),
    };
    chars.next().is_none().then_some(i64::from(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;
    use std::time::{Duration, Instant};

    const FILE: FileId = FileId(0);

    /// Lexes and preprocesses `src` with a fresh table.
    fn pp(src: &str) -> (Vec<Token<'_>>, Vec<Diagnostic>) {
        let mut table = MacroTable::new();
        pp_with(src, &mut table)
    }

    fn pp_with<'s>(src: &'s str, table: &mut MacroTable<'s>) -> (Vec<Token<'s>>, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let toks = lex(FILE, src, &[], &mut diags);
        let segments = [Segment {
            base: 0,
            file: FILE,
            text: src,
        }];
        let files = Files::new(&segments);
        let out = preprocess(files, &toks, &Headers::default(), table, &mut diags);
        (out, diags)
    }

    fn text(toks: &[Token<'_>]) -> String {
        toks.iter()
            .map(|t| t.tok.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn codes_of(diags: &[Diagnostic]) -> Vec<&'static str> {
        diags.iter().map(|d| d.code.as_str()).collect()
    }

    /// Preprocesses and checks there were no diagnostics.
    fn clean(src: &str) -> String {
        let (out, diags) = pp(src);
        assert!(
            diags.is_empty(),
            "unexpected diagnostics for {src:?}: {diags:#?}"
        );
        text(&out)
    }

    /// Byte range of the `nth` occurrence of `needle` in `src`.
    fn at(src: &str, needle: &str, nth: usize) -> (u32, u32) {
        let start = src
            .match_indices(needle)
            .nth(nth)
            .map_or(usize::MAX, |(i, _)| i);
        assert!(start != usize::MAX, "{needle:?} not found");
        (start as u32, (start + needle.len()) as u32)
    }

    /// Byte range of the first diagnostic's primary span.
    fn primary(diags: &[Diagnostic]) -> Option<(u32, u32)> {
        diags
            .first()
            .map(|d| (d.primary.span.start, d.primary.span.end))
    }

    fn range(t: &Token<'_>) -> (u32, u32) {
        (t.start, t.end)
    }

    #[test]
    fn object_like() {
        assert_eq!(clean("#define N 10\nint a = N;\n"), "int a = 10 ;");
        assert_eq!(clean("#define EMPTY\nEMPTY x EMPTY\n"), "x");
        // A space before `(` makes the parenthesis part of the body.
        assert_eq!(clean("#define F (x)\nF\n"), "( x )");
    }

    #[test]
    fn function_like() {
        let src = "#define ADD(a, b) ((a) + (b))\nx = ADD(1, f(2, 3));\n";
        assert_eq!(clean(src), "x = ( ( 1 ) + ( f ( 2 , 3 ) ) ) ;");
        assert_eq!(clean("#define Z() 0\nZ()\n"), "0");
        assert_eq!(clean("#define ONE(x) [x]\nONE()\n"), "[ ]");
        // Without `(` the name is an ordinary identifier.
        assert_eq!(clean("#define F(x) x\nint F;\n"), "int F ;");
        // Arguments may span lines.
        assert_eq!(clean("#define ADD(a, b) a + b\nADD(1,\n 2\n)\n"), "1 + 2");
        assert_eq!(clean("#define F(x) <x>\nF\n\n(1)\n"), "< 1 >");
    }

    #[test]
    fn nested_macros() {
        assert_eq!(clean("#define A B + 1\n#define B 2\nA\n"), "2 + 1");
        let src = "#define SQ(x) ((x) * (x))\n#define N 3\n#define G SQ\nSQ(SQ(N)) G(N)\n";
        assert_eq!(
            clean(src),
            "( ( ( ( 3 ) * ( 3 ) ) ) * ( ( ( 3 ) * ( 3 ) ) ) ) ( ( 3 ) * ( 3 ) )"
        );
        // Unused arguments are not expanded; used ones are, before substitution.
        assert_eq!(
            clean("#define FIRST(a, b) a\n#define X 7\nFIRST(X, X)\n"),
            "7"
        );
    }

    #[test]
    fn self_reference_terminates() {
        assert_eq!(clean("#define X X\nX\n"), "X");
        assert_eq!(clean("#define X 1 + X\nX\n"), "1 + X");
        assert_eq!(clean("#define A B\n#define B A\nA B\n"), "A B");
        assert_eq!(clean("#define f(x) x f\nf(1)(2)\n"), "1 f ( 2 )");
        assert_eq!(clean("#define g(x) g(x + 1)\ng(0)\n"), "g ( 0 + 1 )");
    }

    #[test]
    fn expanded_tokens_take_the_use_range() {
        let src = "#define SAMPLESIZE 2\ntile<SAMPLESIZE, SAMPLESIZE>\n";
        let (out, diags) = pp(src);
        assert!(diags.is_empty());
        assert_eq!(text(&out), "tile < 2 , 2 >");
        let twos: Vec<_> = out.iter().filter(|t| t.tok == Tok::Int("2")).collect();
        assert_eq!(twos.len(), 2);
        for (nth, t) in twos.iter().enumerate() {
            assert_eq!(range(t), at(src, "SAMPLESIZE", nth + 1));
        }
    }

    #[test]
    fn argument_tokens_keep_their_range() {
        let src = "#define ID(x) (x)\nID(abc)\n";
        let (out, _) = pp(src);
        assert_eq!(text(&out), "( abc )");
        let call = (at(src, "ID(abc)", 0).0, at(src, "ID(abc)", 0).1);
        let ranges: Vec<_> = out.iter().map(range).collect();
        assert_eq!(ranges, vec![call, at(src, "abc", 0), call]);
    }

    #[test]
    fn nested_expansions_take_the_outermost_range() {
        let src = "#define INNER 5\n#define OUTER INNER\n#define ID(x) x\nOUTER ID(INNER)\n";
        let (out, _) = pp(src);
        assert_eq!(text(&out), "5 5");
        let ranges: Vec<_> = out.iter().map(range).collect();
        // The argument `INNER` keeps its own range, the use of `INNER` inside the argument.
        assert_eq!(ranges, vec![at(src, "OUTER", 1), at(src, "INNER", 2)]);
    }

    #[test]
    fn conditionals_nest() {
        let src = "#define A\n#ifdef A\n#ifndef B\none\n#else\ntwo\n#endif\n#else\n#ifdef A\nthree\n#endif\n#endif\n";
        assert_eq!(clean(src), "one");
        let src = "#ifdef NOPE\n#if 1\nx\n#else\ny\n#endif\n#elif 1\nz\n#else\nw\n#endif\n";
        assert_eq!(clean(src), "z");
        let src = "#if 0\na\n#elif 0\nb\n#elif 2\nc\n#elif 1\nd\n#else\ne\n#endif\n";
        assert_eq!(clean(src), "c");
        assert_eq!(clean("#define M\n#if 0\n#elifdef M\nm\n#endif\n"), "m");
        // Skipped blocks ignore everything but conditionals.
        let src = "#if 0\n#foo\n#include <bogus>\n#define X (\n#error no\n$ @ \"\n#endif\nok\n";
        let (out, diags) = pp(src);
        assert_eq!(text(&out), "ok");
        // The lexer still reports the bad characters; the preprocessor adds nothing.
        assert!(
            diags.iter().all(|d| d.code.as_str() < "E0050"),
            "{diags:#?}"
        );
    }

    #[test]
    fn if_arithmetic() {
        let src = "#define V 3\n#if defined(V) && V * 2 == 6 && !defined NOPE && NOPE == 0\nyes\n#else\nno\n#endif\n";
        assert_eq!(clean(src), "yes");
        let exprs = [
            "(1 ? 2 : 3) == 2",
            "0x10 == 16 && 010 == 8 && 0b11 == 3 && 10UL / 3 == 3",
            "-1 < 0 && (1 << 4) == 16 && (-16 >> 2) == -4",
            "~0 == -1 && (6 & 3) == 2 && (6 ^ 3) == 5 && (6 | 3) == 7",
            "7 % 3 == 1 && 2 + 3 * 4 == 14 && (2 + 3) * 4 == 20",
            "1 - 2 - 3 == -4 && 1 || 0 && 0",
            "0 ? 1 : 0 ? 2 : 3",
            "'a' == 97 && '\\n' == 10",
            "true && !false",
            "0 && 1 / 0 || 1",
            "9223372036854775807 + 1 < 0",
        ];
        for e in exprs {
            let src = format!("#if {e}\nyes\n#else\nno\n#endif\n");
            assert_eq!(clean(&src), "yes", "{e}");
        }
        // `defined` operands are not expanded; macros elsewhere are.
        let src = "#define A B\n#if defined A && !defined B\nyes\n#endif\n";
        assert_eq!(clean(src), "yes");
        // `defined` produced by a macro still takes its operand unexpanded.
        let src = "#define HAS_Q defined(Q) && defined R\n#define Q\n#define R 0\n#if HAS_Q\nyes\n#endif\n";
        assert_eq!(clean(src), "yes");
    }

    #[test]
    fn if_errors() {
        for (src, expect) in [
            ("#if 1 / 0\nx\n#endif\n", "/"),
            ("#if 1 +\nx\n#endif\n", ""),
            ("#if\nx\n#endif\n", "#if"),
            ("#if (1\nx\n#endif\n", ""),
            ("#if 1 2\nx\n#endif\n", "2"),
            ("#if 1.5\nx\n#endif\n", "1.5"),
            ("#if defined\nx\n#endif\n", "defined"),
            ("#if 09\nx\n#endif\n", "09"),
        ] {
            let (out, diags) = pp(src);
            assert_eq!(codes_of(&diags), vec!["E0056"], "{src:?}");
            // An invalid condition counts as false.
            assert_eq!(text(&out), "", "{src:?}");
            let span = diags.first().map(|d| d.primary.span);
            let shown = span.and_then(|s| src.get(s.range()));
            assert_eq!(shown, Some(expect), "{src:?}");
        }
        let deep = format!("#if {}1\n#endif\n", "(".repeat(100_000));
        assert_eq!(codes_of(&pp(&deep).1), vec!["E0056"]);
        let deep = format!("#if {}1\n#endif\n", "-".repeat(100_000));
        assert_eq!(codes_of(&pp(&deep).1), vec!["E0056"]);
        let deep = format!("#if {}1\n#endif\n", "1 ? 1 : ".repeat(100_000));
        assert_eq!(codes_of(&pp(&deep).1), vec!["E0056"]);
    }

    #[test]
    fn includes() {
        let src = "#include <amp.h>\n#include <iostream>\n#include \"amp_math.h\"\n#include < vector >\nx\n";
        assert_eq!(clean(src), "x");
        let src = "#include <amp.h>\n#include <fstream>\n";
        let (out, diags) = pp(src);
        assert!(out.is_empty());
        assert_eq!(codes_of(&diags), vec!["W0050"]);
        let span = diags.first().map(|d| d.primary.span);
        assert_eq!(span.and_then(|s| src.get(s.range())), Some("fstream"));
        assert!(
            diags
                .first()
                .and_then(|d| d.help.as_deref())
                .is_some_and(|h| h.contains("<amp.h>"))
        );

        let (_, diags) = pp("#include <Windows.h>\n");
        assert_eq!(codes_of(&diags), vec!["W0050"]);
        assert_eq!(
            diags.first().and_then(|d| d.help.as_deref()),
            Some(
                "Windows console calls are not part of the language; remove the include and the calls"
            )
        );
        let (_, diags) = pp("#include \"math.h\"\n");
        assert_eq!(
            diags.first().and_then(|d| d.help.as_deref()),
            Some("in C++ this header is `<cmath>`")
        );
        for src in [
            "#include\n",
            "#include <\n",
            "#include <amp.h",
            "#include FOO\n",
            "#include <>\n",
        ] {
            assert_eq!(codes_of(&pp(src).1), vec!["E0051"], "{src:?}");
        }
    }

    #[test]
    fn unterminated_if() {
        let src = "#ifdef A\nx\n#if 1\ny\n#endif\n";
        let (_, diags) = pp(src);
        assert_eq!(codes_of(&diags), vec!["E0052"]);
        assert_eq!(primary(&diags), Some(at(src, "#ifdef", 0)));
        let d = diags.first();
        assert!(d.is_some_and(|d| !d.primary.message.is_empty()));
    }

    #[test]
    fn stray_conditionals() {
        assert_eq!(codes_of(&pp("x\n#endif\n").1), vec!["E0053"]);
        assert_eq!(codes_of(&pp("#else\n").1), vec!["E0053"]);
        assert_eq!(codes_of(&pp("#elif 1\n").1), vec!["E0053"]);
        let (out, diags) = pp("#if 1\na\n#else\nb\n#else\nc\n#endif\n");
        assert_eq!(codes_of(&diags), vec!["E0051"]);
        assert_eq!(text(&out), "a");
    }

    #[test]
    fn wrong_argument_count() {
        let src = "#define ADD(a, b) a + b\nx ADD(1) y\n";
        let (out, diags) = pp(src);
        assert_eq!(codes_of(&diags), vec!["E0054"]);
        // The invocation is dropped.
        assert_eq!(text(&out), "x y");
        assert_eq!(primary(&diags), Some(at(src, "ADD(1)", 0)));
        assert!(
            diags
                .first()
                .is_some_and(|d| d.notes.iter().any(|n| n.contains("ADD(a, b)")))
        );
        assert_eq!(codes_of(&pp("#define Z() 0\nZ(1)\n").1), vec!["E0054"]);
        // Unterminated, also when a directive comes first (which still runs).
        assert_eq!(codes_of(&pp("#define F(x) x\nF(1, (2)\n").1), vec!["E0054"]);
        let (out, diags) = pp("#define F(x) x\nF(1\n#define G 5\nG\n");
        assert_eq!(codes_of(&diags), vec!["E0054"]);
        assert_eq!(text(&out), "5");
    }

    #[test]
    fn exponential_macros_hit_the_limit_fast() {
        let mut src = String::from("#define M0 x x\n");
        for i in 1..=40 {
            src.push_str(&format!("#define M{i} M{} M{}\n", i - 1, i - 1));
        }
        src.push_str("M40 M40\n");
        let begin = Instant::now();
        let (out, diags) = pp(&src);
        assert_eq!(codes_of(&diags), vec!["E0055"]);
        assert!(out.len() < 3_000_000);
        assert!(begin.elapsed() < Duration::from_secs(20));

        // Through arguments.
        let src = format!("#define D(x) x x\n{}0{}\n", "D(".repeat(40), ")".repeat(40));
        let (_, diags) = pp(&src);
        assert_eq!(codes_of(&diags), vec!["E0055"]);

        // Too deep: a chain of 300 macros, and 300 nested arguments.
        let mut src = String::from("#define C0 end\n");
        for i in 1..300 {
            src.push_str(&format!("#define C{i} C{}\n", i - 1));
        }
        src.push_str("C299\n");
        assert_eq!(codes_of(&pp(&src).1), vec!["E0055"]);
        let src = format!(
            "#define I(x) x\n{}0{}\n",
            "I(".repeat(10_000),
            ")".repeat(10_000)
        );
        assert_eq!(codes_of(&pp(&src).1), vec!["E0055"]);
    }

    #[test]
    fn error_directive() {
        let src = "#error stop here // why\nx\n";
        let (out, diags) = pp(src);
        assert_eq!(codes_of(&diags), vec!["E0057"]);
        assert_eq!(
            diags.first().map(|d| d.message.as_str()),
            Some("#error stop here")
        );
        assert_eq!(text(&out), "x");
    }

    #[test]
    fn redefinition() {
        assert_eq!(clean("#define A 1 + 2\n#define A 1 + 2\nA\n"), "1 + 2");
        let src = "#define A 1\n#define A 2\nA\n";
        let (out, diags) = pp(src);
        assert_eq!(codes_of(&diags), vec!["W0058"]);
        assert!(diags.iter().all(|d| !d.is_error()));
        assert_eq!(text(&out), "2");
        assert_eq!(primary(&diags), Some(at(src, "A", 1)));
        assert_eq!(
            diags
                .first()
                .and_then(|d| d.secondary.first())
                .map(|l| (l.span.start, l.span.end)),
            Some(at(src, "A", 0))
        );
        assert_eq!(
            codes_of(&pp("#define F(a) a\n#define F(b) b\n").1),
            vec!["W0058"]
        );
        assert_eq!(clean("#define A 1\n#undef A\n#define A 2\nA\n"), "2");
    }

    #[test]
    fn malformed_defines() {
        for src in [
            "#define\n",
            "#define 3 x\n",
            "#define int long\n",
            "#define defined 1\n",
            "#define F(a, a) a\n",
            "#define F(a\n",
            "#define F(\n",
            "#define F(a,) a\n",
            "#define F(...) __VA_ARGS__\n",
            "#define S(x) #x\n",
            "#define P(a, b) a ## b\n",
            "#undef\n",
            "#ifdef\n#endif\n",
            "#foo\n",
            "#line 3\n",
            "# 3\n",
        ] {
            assert_eq!(codes_of(&pp(src).1), vec!["E0051"], "{src:?}");
        }
        // Null directive, pragmas, and `#` elsewhere on a line (left for the parser).
        let (out, diags) = pp("#\n#pragma once\n#pragma omp parallel\na # b ## c\n");
        assert!(diags.is_empty());
        assert_eq!(text(&out), "a # b ## c");
    }

    #[test]
    fn no_newlines_in_output() {
        let src = "#define F(x) x\nint\nmain\n(\n)\n{ F(\n1\n) ;\n}\n";
        let (out, diags) = pp(src);
        assert!(diags.is_empty());
        assert!(out.iter().all(|t| t.tok != Tok::Newline));
        assert_eq!(text(&out), "int main ( ) { 1 ; }");
    }

    #[test]
    fn table_persists_across_inputs() {
        let mut table = MacroTable::new();
        let (_, diags) = pp_with("#define N 4\n", &mut table);
        assert!(diags.is_empty());
        assert!(table.is_defined("N"));
        let (out, _) = pp_with("N\n#undef N\n", &mut table);
        assert_eq!(text(&out), "4");
        assert!(!table.is_defined("N"));
    }

    #[test]
    fn never_panics() {
        let fragments = [
            "#",
            "##",
            "define",
            "undef",
            "if",
            "ifdef",
            "ifndef",
            "elif",
            "else",
            "endif",
            "include",
            "error",
            "pragma",
            "defined",
            "F",
            "G",
            "X",
            "(",
            ")",
            ",",
            "<",
            ">",
            "\"amp.h\"",
            "1",
            "0",
            "/",
            "?",
            ":",
            "&&",
            "\n",
            "\n",
            "\n",
            " ",
            "...",
            "x",
            "'a'",
        ];
        let prefix = "#define F(a, b) a G(b) a\n#define G(x) F(x, x) X\n#define X F(\n";
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..400 {
            let mut src = String::from(prefix);
            for _ in 0..60 {
                // xorshift: a reproducible stream of fragment choices.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let pick = fragments
                    .get((seed % fragments.len() as u64) as usize)
                    .copied()
                    .unwrap_or("");
                src.push_str(pick);
                src.push(' ');
            }
            let _ = pp(&src);
        }
        for src in [
            "#define",
            "#if",
            "#include <",
            "#define F(x) x\nF(1",
            "#define F(",
            "#if (",
            "#elif",
            "#ifdef",
            "#undef",
            "#if defined(",
            "#if defined(X",
            "#define F() x\nF(1)",
            "#include \"",
            "#error",
            "#define F(x) x\n#if F(",
            "#define L (\n#define F(x) x\n#define G(y) y\nG(F L 1)",
        ] {
            let _ = pp(src);
        }
    }
}
