//! The front end's entry point: runs every stage and turns the parser's
//! errors into diagnostics.
//!
//! Syntax errors are reported with two techniques:
//!
//! - **repair**: when the first error is a missing `;` (or a missing `)`/`]`
//!   while brackets are unbalanced), the token is inserted and the file parsed
//!   again, so the rest of the file parses as the user meant it and the one
//!   mistake gives one message;
//! - **recovery**: otherwise lalrpop's error recovery skips the broken
//!   statement or top-level item and goes on.
//!
//! Then follow-on errors are filtered: at most one syntax error per line, none
//! right after a lexical or preprocessor error (a broken literal or a dropped
//! macro call leaves a broken statement behind), none after a delimiter error
//! or a cut-off macro expansion.

use crate::actions::{Input, NoError};
use crate::ast::{Block, Stmt, TranslationUnit};
use crate::files::{Files, Segment};
use crate::include::Included;
use crate::lazy::LazyBody;
use crate::lexer::{Token, lex};
use crate::preprocess::{Headers, MacroTable, preprocess};
use crate::token::Tok;
use crate::{classify, delimiters, grammar};
use lalrpop_util::{ErrorRecovery, ParseError};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use tessera_diagnostics::{Diagnostic, FileId, Sources, Span, codes};

/// Largest source file accepted (spans are 32-bit; real programs are far smaller).
pub const MAX_SOURCE_LEN: usize = 64 << 20;

/// At most this many syntax errors are reported per file; after that the rest
/// are likely consequences of the first ones.
const MAX_SYNTAX_ERRORS: usize = 100;

/// The parser stops reading once it has recovered from this many errors: each
/// recovery costs time, and nobody reads the thousandth message.
const MAX_RECOVERIES: usize = 1000;

/// At most this many diagnostics of all kinds are reported per file.
const MAX_DIAGNOSTICS: usize = 200;

/// At most this many tokens are inserted by repair (each costs a re-parse).
const MAX_REPAIRS: usize = 20;

/// Repairs stop once the re-parses would read this many tokens in total.
const REPAIR_TOKEN_BUDGET: usize = 4_000_000;

type Recovered<'s> = ErrorRecovery<usize, Tok<'s>, NoError>;
type SyntaxError<'s> = ParseError<usize, Tok<'s>, NoError>;

/// The result of parsing a file: the tree (with `Error` nodes where parsing
/// failed) and every diagnostic found on the way.
#[derive(Debug)]
pub struct Parsed {
    /// The syntax tree.
    pub unit: TranslationUnit,
    /// Diagnostics, ordered by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// The result of parsing a sequence of statements (one REPL input): the
/// statements (with `Error` nodes where parsing failed) and every diagnostic.
#[derive(Debug)]
pub struct ParsedStmts {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// Diagnostics, ordered by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The input ended in an expression or declaration without its `;`, and
    /// one was supplied: `x + 1` reads as `x + 1;`.
    pub implicit_semicolon: bool,
}

impl ParsedStmts {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// State that lives across several inputs parsed as one program (the REPL):
/// macros and the names of declared structs. Cloning it gives a session to
/// try an input in without committing to it.
#[derive(Clone, Debug, Default)]
pub struct ParseSession<'s> {
    /// `#define`s seen so far.
    pub macros: MacroTable<'s>,
    /// Type and template names declared so far.
    pub names: crate::classify::KnownNames,
}

/// Parses file `file` of `sources`, which includes no local header.
/// `replaced` lists where bytes that were not UTF-8 were read (see
/// `SourceFile::from_bytes`).
pub fn parse_file(sources: &Sources, file: FileId, replaced: &[usize]) -> Parsed {
    parse_unit(sources, file, replaced, &Included::default())
}

/// Parses file `file` of `sources`, which includes no local header, with
/// the library headers written in the Tessera language that it includes
/// (`<chrono>`, `<array>`, ...), read into `sources` as the driver reads
/// them.
pub fn parse_with_library(sources: &mut Sources, file: FileId, replaced: &[usize]) -> Parsed {
    let included = crate::include::read_headers(sources, file, &crate::include::NoFiles, &[]);
    parse_unit(sources, file, replaced, &included)
}

/// Parses file `file` of `sources` with the local headers it includes,
/// already read into `sources` (see [`crate::include::read_headers`]).
pub fn parse_unit(
    sources: &Sources,
    file: FileId,
    replaced: &[usize],
    included: &Included,
) -> Parsed {
    parse_unit_with(sources, file, replaced, included, true)
}

/// [`parse_unit`], setting the library's function bodies aside or not
/// (the tests compare the two).
fn parse_unit_with(
    sources: &Sources,
    file: FileId,
    replaced: &[usize],
    included: &Included,
    set_bodies_aside: bool,
) -> Parsed {
    let text_of = |id: FileId| sources.get(id).map_or("", |f| f.text.as_str());
    let mut segments = vec![Segment {
        base: 0,
        file,
        text: text_of(file),
    }];
    let mut headers = Headers {
        resolved: included.resolved.clone(),
        files: Default::default(),
        prelude: included.prelude,
    };
    let prelude = included.prelude.map(|id| (id, Vec::new()));
    for (id, replaced) in included.headers.iter().chain(prelude.iter()) {
        // One position between files, so that a file's end is its own.
        let base = segments.last().map_or(0, |s| s.end().saturating_add(1));
        let seg = Segment {
            base,
            file: *id,
            text: text_of(*id),
        };
        segments.push(seg);
        headers.files.insert(*id, (seg, replaced.clone()));
    }
    // The library's files, with their text as the headers module holds
    // it, for the bodies set aside (see `crate::lazy`).
    let library: Vec<Segment<'static>> = segments
        .iter()
        .filter_map(|s| {
            let name = &sources.get(s.file).filter(|_| set_bodies_aside)?.name;
            let text = crate::headers::text_of_name(name).filter(|t| *t == s.text)?;
            Some(Segment {
                base: s.base,
                file: s.file,
                text,
            })
        })
        .collect();
    let mut session = ParseSession::default();
    let (mut input, mut diagnostics, _, set_aside) = parse_with(
        &mut session,
        &segments,
        &headers,
        replaced,
        Mode::Unit,
        &library,
    );
    // An error in a library file after bodies were set aside may be one
    // set aside where none stands (or a body that its setting aside would
    // hide): the unit is read again as a whole, as it always was.
    let in_library = |d: &Diagnostic| library.iter().any(|s| s.file == d.primary.span.file);
    if set_aside > 0 && diagnostics.iter().any(|d| d.is_error() && in_library(d)) {
        let mut session = ParseSession::default();
        (input, diagnostics, _, _) =
            parse_with(&mut session, &segments, &headers, replaced, Mode::Unit, &[]);
    }
    let standard_headers = session.macros.standard_headers().to_vec();
    let mut unit = match input {
        Input::Unit(unit) => unit,
        Input::Stmts(_) => TranslationUnit {
            items: Vec::new(),
            library_files: Vec::new(),
            standard_headers: None,
        },
    };
    unit.standard_headers = Some(standard_headers);
    unit.library_files = segments
        .iter()
        .map(|s| s.file)
        .filter(|&id| {
            sources
                .get(id)
                .is_some_and(|f| crate::headers::is_library_source(&f.name))
        })
        .collect();
    Parsed { unit, diagnostics }
}

/// What the token stream is read as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A translation unit (a file).
    Unit,
    /// A sequence of statements (a REPL input).
    Stmts,
}

/// One run of the parser over a token stream.
struct Attempt<'s> {
    input: Input,
    /// Diagnostics from the grammar's actions (E0104, E0105, ...).
    action_diags: Vec<Diagnostic>,
    /// Syntax errors in the order met.
    errors: Vec<SyntaxError<'s>>,
    /// The parser stopped early after too many errors.
    truncated: bool,
}

fn run_parser<'s>(
    file: Files<'_, 's>,
    tokens: &[Token<'s>],
    mode: Mode,
    lazy: &[LazyBody],
) -> Attempt<'s> {
    let recovered: RefCell<Vec<Recovered<'s>>> = RefCell::new(Vec::new());
    let mut action_diags = Vec::new();
    let mut truncated = false;
    let result = {
        let truncated = &mut truncated;
        let recovered_ref = &recovered;
        let marker = (mode == Mode::Stmts).then_some(Ok((0, Tok::StmtsMarker, 0)));
        let stream = tokens.iter().map_while(|t| {
            if recovered_ref.borrow().len() >= MAX_RECOVERIES {
                *truncated = true;
                return None;
            }
            Some(Ok::<_, NoError>((t.start as usize, t.tok, t.end as usize)))
        });
        grammar::InputParser::new().parse(
            file,
            &mut action_diags,
            &recovered,
            lazy,
            marker.into_iter().chain(stream),
        )
    };
    let mut errors: Vec<SyntaxError<'s>> = recovered
        .into_inner()
        .into_iter()
        .map(|r| r.error)
        .collect();
    let input = match result {
        Ok(input) => input,
        Err(e) => {
            errors.push(e);
            match mode {
                Mode::Unit => Input::Unit(TranslationUnit {
                    items: Vec::new(),
                    library_files: Vec::new(),
                    standard_headers: None,
                }),
                Mode::Stmts => Input::Stmts(Vec::new()),
            }
        }
    };
    if truncated {
        // The end of input was simulated: its complaint is not the user's.
        errors.retain(|e| !matches!(e, ParseError::UnrecognizedEof { .. }));
    }
    Attempt {
        input,
        action_diags,
        errors,
        truncated,
    }
}

/// Parses `text` (the text of `file`) in a session, so that macros and struct
/// names from earlier inputs are known and new ones are remembered.
pub fn parse_in<'s>(
    session: &mut ParseSession<'s>,
    file: FileId,
    text: &'s str,
    replaced: &[usize],
) -> Parsed {
    let segments = [Segment {
        base: 0,
        file,
        text,
    }];
    let (input, diagnostics, _, _) = parse_with(
        session,
        &segments,
        &Headers::default(),
        replaced,
        Mode::Unit,
        &[],
    );
    let unit = match input {
        Input::Unit(unit) => unit,
        Input::Stmts(_) => TranslationUnit {
            items: Vec::new(),
            library_files: Vec::new(),
            standard_headers: None,
        },
    };
    Parsed { unit, diagnostics }
}

/// Parses `text` (the text of `file`) in a session as a sequence of
/// statements, as if it were the body of a function: the input of a REPL.
/// Directives work as in a file. When the input ends where only a `;` is
/// missing (`x + 1`, `int n = 4`), the `;` is supplied without a diagnostic
/// and [`ParsedStmts::implicit_semicolon`] is set.
pub fn parse_stmts_in<'s>(
    session: &mut ParseSession<'s>,
    file: FileId,
    text: &'s str,
    replaced: &[usize],
) -> ParsedStmts {
    let segments = [Segment {
        base: 0,
        file,
        text,
    }];
    let (input, diagnostics, implicit_semicolon, _) = parse_with(
        session,
        &segments,
        &Headers::default(),
        replaced,
        Mode::Stmts,
        &[],
    );
    let stmts = match input {
        Input::Stmts(stmts) => stmts,
        Input::Unit(_) => Vec::new(),
    };
    ParsedStmts {
        stmts,
        diagnostics,
        implicit_semicolon,
    }
}

/// The front end for both entry points: the input as read, its diagnostics,
/// whether a final `;` was supplied, and how many library bodies were set
/// aside. Bodies of functions in `library` (the unit's library files with
/// their text) are set aside (see `crate::lazy`).
fn parse_with<'s>(
    session: &mut ParseSession<'s>,
    segments: &[Segment<'s>],
    headers: &Headers<'s>,
    replaced: &[usize],
    mode: Mode,
    library: &[Segment<'static>],
) -> (Input, Vec<Diagnostic>, bool, usize) {
    let files = Files::new(segments);
    let main = files.segment(0);
    let (file, text) = (main.file, main.text);
    let empty = || match mode {
        Mode::Unit => Input::Unit(TranslationUnit {
            items: Vec::new(),
            library_files: Vec::new(),
            standard_headers: None,
        }),
        Mode::Stmts => Input::Stmts(Vec::new()),
    };
    let mut diags = Vec::new();
    if text.len() > MAX_SOURCE_LEN {
        diags.push(
            Diagnostic::error(codes::E0007, Span::new(file, 0..0), "source file too large")
                .with_label(format!("this file has {} bytes", text.len()))
                .with_note(format!("the limit is {} MiB", MAX_SOURCE_LEN >> 20)),
        );
        return (empty(), diags, false, 0);
    }
    let raw = lex(file, text, replaced, &mut diags);
    let mut tokens = preprocess(files, &raw, headers, &mut session.macros, &mut diags);
    drop(raw);
    classify::classify(&mut tokens, &mut session.names);
    let lazy = if mode == Mode::Unit && !library.is_empty() {
        crate::lazy::set_aside(&mut tokens, library)
    } else {
        Vec::new()
    };

    // Lines with a lexical or preprocessor problem: syntax errors there (and on
    // the next line) are its echoes.
    let line_starts: HashMap<FileId, Vec<usize>> = segments
        .iter()
        .map(|s| {
            let starts = std::iter::once(0)
                .chain(s.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            (s.file, starts)
        })
        .collect();
    let line_of = |span: Span| {
        let line = line_starts.get(&span.file).map_or(0, |starts| {
            starts
                .partition_point(|&start| start <= span.start as usize)
                .saturating_sub(1)
        });
        (span.file, line)
    };
    // A diagnostic's place among token positions.
    let global = |span: Span| {
        segments
            .iter()
            .find(|s| s.file == span.file)
            .map_or(span.start, |s| s.base.saturating_add(span.start))
    };
    let early_lines: HashSet<(FileId, usize)> = diags
        .iter()
        .filter(|d| d.is_error())
        .flat_map(|d| {
            let (f, l) = line_of(d.primary.span);
            [(f, l), (f, l + 1)]
        })
        .collect();
    let expansion_cut = diags
        .iter()
        .filter(|d| d.code == codes::E0055)
        .map(|d| global(d.primary.span))
        .min();
    let first_early = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| global(d.primary.span))
        .min();

    // Each repair costs a parse of the whole file: bound the total work, and
    // do not mend what a cut-off macro expansion left behind.
    let max_repairs = if expansion_cut.is_some() {
        0
    } else {
        MAX_REPAIRS.min(REPAIR_TOKEN_BUDGET / tokens.len().max(1))
    };
    let mut repairs: Vec<Diagnostic> = Vec::new();
    let mut repaired_at: HashSet<usize> = HashSet::new();
    let mut implicit_semicolon = false;
    let (attempt, delim_diags, delimiter_error) = loop {
        let mut delim_diags = Vec::new();
        let delimiter_error = delimiters::check(files, &tokens, text.len(), &mut delim_diags);
        let attempt = run_parser(files, &tokens, mode, &lazy);
        // A statement input may leave out its last `;`, like a REPL line.
        if mode == Mode::Stmts
            && !implicit_semicolon
            && delimiter_error.is_none()
            && let Some(ParseError::UnrecognizedEof { expected, .. }) = attempt.errors.first()
            && only_semicolon_missing(expected)
        {
            let at = tokens.last().map_or(0, |t| t.end);
            tokens.push(Token {
                tok: Tok::Semi,
                start: at,
                end: at,
            });
            implicit_semicolon = true;
            continue;
        }
        let reporter = Reporter {
            file: files,
            text,
            tokens: &tokens,
        };
        let repair = attempt
            .errors
            .first()
            .filter(|_| repairs.len() < max_repairs)
            .and_then(|first| reporter.repair(first, delimiter_error.is_some()))
            .filter(|(index, _, _)| repaired_at.insert(*index));
        match repair {
            Some((index, tok, diag)) => {
                let at = tokens.get(index).map_or(text.len() as u32, |t| t.start);
                let at = reporter.previous_end(at as usize) as u32;
                tokens.insert(
                    index,
                    Token {
                        tok,
                        start: at,
                        end: at,
                    },
                );
                repairs.push(diag);
            }
            None => break (attempt, delim_diags, delimiter_error),
        }
    };

    // A delimiter left open by a broken comment, literal or macro call is the
    // broken thing's fault, not the user's.
    let delim_diags = delim_diags.into_iter().filter(|d| {
        !(d.code == codes::E0102 && first_early.is_some_and(|e| e > global(d.primary.span)))
    });
    diags.extend(delim_diags);
    diags.extend(attempt.action_diags);
    // A repair's secondary label is the token found; judge it by that place.
    let found_at = |d: &Diagnostic| d.secondary.first().map_or(d.primary.span, |l| l.span);
    diags.extend(repairs.into_iter().filter(|d| {
        !early_lines.contains(&line_of(found_at(d)))
            && expansion_cut.is_none_or(|cut| global(found_at(d)) < cut)
    }));

    let reporter = Reporter {
        file: files,
        text,
        tokens: &tokens,
    };
    let cutoff = [delimiter_error, expansion_cut].into_iter().flatten().min();
    let mut last_line = None;
    let mut reported = 0;
    for err in attempt.errors {
        let Some((found_at, diag)) = reporter.diagnose(err) else {
            continue;
        };
        if cutoff.is_some_and(|at| found_at >= at as usize) {
            continue;
        }
        let line = line_of(files.span(found_at as u32, found_at as u32));
        if early_lines.contains(&line) || last_line == Some(line) {
            continue;
        }
        last_line = Some(line);
        reported += 1;
        if reported > MAX_SYNTAX_ERRORS {
            break;
        }
        diags.push(diag);
    }
    if (attempt.truncated || reported > MAX_SYNTAX_ERRORS)
        && let Some(last) = diags.iter_mut().rev().find(|d| d.is_error())
    {
        last.notes
            .push("too many syntax errors; stopped reading the file here".into());
    }
    // Stages report in their own order; people read top to bottom.
    diags.sort_by_key(|d| (d.primary.span.file, d.primary.span.start));
    if diags.len() > MAX_DIAGNOSTICS {
        let hidden = diags.len() - MAX_DIAGNOSTICS;
        diags.truncate(MAX_DIAGNOSTICS);
        if let Some(last) = diags.last_mut() {
            last.notes
                .push(format!("{hidden} more diagnostics not shown"));
        }
    }
    (attempt.input, diags, implicit_semicolon, lazy.len())
}

/// Parses the body of a library function set aside when its unit was
/// parsed (see [`crate::lazy`]): the block as the parse of the unit would
/// have built it, spans included, and what the parser reported in it. The
/// library's bodies are correct, so a syntax error here is Tessera's own:
/// it comes back as a diagnostic (and an empty block), never a panic.
pub fn parse_lazy_body(body: &LazyBody) -> (Block, Vec<Diagnostic>) {
    let files = Files::new(body.segments());
    let (open, close) = body.braces();
    let span = files.span(open, close);
    let recovered: RefCell<Vec<Recovered<'static>>> = RefCell::new(Vec::new());
    let mut diags = Vec::new();
    // The body's statements read as a statement input (as the REPL's are):
    // the grammar's one automaton has the same rules for both.
    let marker = std::iter::once(Ok::<_, NoError>((0, Tok::StmtsMarker, 0)));
    let stream = body
        .tokens()
        .iter()
        .map(|t| Ok((t.start as usize, t.tok, t.end as usize)));
    let result =
        grammar::InputParser::new().parse(files, &mut diags, &recovered, &[], marker.chain(stream));
    let stmts = match result {
        Ok(Input::Stmts(stmts)) if recovered.borrow().is_empty() => stmts,
        _ => {
            diags.push(
                Diagnostic::error(
                    codes::E0100,
                    span,
                    "internal error: the body of this library function could not be parsed",
                )
                .with_label("in this body")
                .with_note("the library's text is Tessera's own; please report this"),
            );
            Vec::new()
        }
    };
    let block = Block {
        stmts,
        span,
        lazy: None,
    };
    (block, diags)
}

/// True when, at the end of input, a `;` would end the statement: it is
/// expected, and no statement may start there (a lone `if (x)` needs more
/// than a `;`).
fn only_semicolon_missing(expected: &[String]) -> bool {
    let wants = names(expected);
    wants.contains(&";") && !wants.contains(&"if")
}

struct Reporter<'a, 's> {
    file: Files<'a, 's>,
    text: &'a str,
    tokens: &'a [Token<'s>],
}

/// Keywords of C++ features outside the Tessera language.
fn unsupported_feature(tok: Tok<'_>) -> Option<&'static str> {
    Some(match tok {
        Tok::Template | Tok::Typename => {
            "member templates, templates declared in a function and `typename` qualifiers"
        }
        Tok::Enum => "enumerations declared inside a function or a class",
        Tok::Union => "unions declared inside a function or a class",
        Tok::Namespace => "namespace definitions inside a function or a class",
        Tok::Operator => {
            "operator functions in this form (conversion functions outside their class, `operator new`, `operator` named in an expression)"
        }
        Tok::Virtual => "virtual functions in this form",
        _ => return None,
    })
}

fn names(expected: &[String]) -> Vec<&str> {
    expected.iter().map(|e| e.trim_matches('"')).collect()
}

impl Reporter<'_, '_> {
    /// The diagnostic for a syntax error, with the offset of the token found.
    fn diagnose(&self, err: SyntaxError<'_>) -> Option<(usize, Diagnostic)> {
        match err {
            ParseError::UnrecognizedToken {
                token: (l, tok, r),
                expected,
            } => Some((
                l,
                self.misplaced_restrict(l)
                    .unwrap_or_else(|| self.unexpected(l, r, tok, &expected)),
            )),
            ParseError::ExtraToken { token: (l, tok, r) } => Some((
                l,
                Diagnostic::error(
                    codes::E0100,
                    self.file.span(l as u32, r as u32),
                    format!("unexpected {}", tok.describe()),
                )
                .with_label("not expected here"),
            )),
            ParseError::UnrecognizedEof { location, expected } => {
                let at = location.min(self.text.len());
                let what = summarize(&expected);
                Some((
                    at,
                    Diagnostic::error(
                        codes::E0103,
                        self.file.span(at as u32, at as u32),
                        format!("unexpected end of file; expected {what}"),
                    )
                    .with_label(format!("expected {what} here"))
                    .with_help("the file ends in the middle of a declaration or statement"),
                ))
            }
            ParseError::InvalidToken { .. } | ParseError::User { .. } => None,
        }
    }

    /// If `err` is best mended by inserting a token, where (an index into the
    /// tokens), what, and the diagnostic that reports the mistake.
    fn repair<'s>(
        &self,
        err: &SyntaxError<'s>,
        unbalanced: bool,
    ) -> Option<(usize, Tok<'s>, Diagnostic)> {
        let ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } = err
        else {
            return None;
        };
        let index = self.index_of(*l)?;
        let prev = index.checked_sub(1).and_then(|i| self.tokens.get(i))?;
        let wants = names(expected);
        let found_span = self.file.span(*l as u32, *r as u32);
        let prev_end = prev.end as usize;
        let here = self.file.span(prev_end as u32, prev_end as u32);
        // Where a statement or declaration may start, `;` is merely allowed
        // (as an empty one), not missing.
        let at_start = wants.contains(&"using") || wants.contains(&"if");
        if wants.contains(&";") && !at_start && unsupported_feature(*tok).is_none() {
            if let Some(diag) = self.misplaced_restrict(*l) {
                return Some((index, Tok::Semi, diag));
            }
            let diag = Diagnostic::error(
                codes::E0101,
                here,
                format!("expected `;`, found {}", tok.describe()),
            )
            .with_label("add `;` here")
            .with_secondary(found_span, "unexpected here");
            // MSVC: "syntax error: missing ';' before identifier".
            let diag = if matches!(tok, Tok::Ident(_) | Tok::Restrict) {
                diag.with_msvc("C2146")
            } else {
                diag
            };
            return Some((index, Tok::Semi, diag));
        }
        // A wrong closer (`(x]`) is a typo the delimiter check already names.
        let found_closer = matches!(tok, Tok::RParen | Tok::RBracket | Tok::RBrace);
        if unbalanced && !found_closer {
            for (closer, tok_closer) in [(")", Tok::RParen), ("]", Tok::RBracket)] {
                if wants.contains(&closer) {
                    let diag = Diagnostic::error(
                        codes::E0100,
                        found_span,
                        format!("expected `{closer}`, found {}", tok.describe()),
                    )
                    .with_label(format!("expected `{closer}`"))
                    .with_secondary(here, format!("perhaps a `{closer}` is missing here"));
                    return Some((index, tok_closer, diag));
                }
            }
        }
        None
    }

    /// A syntax error at or just after a `restrict(...)` that stands where
    /// no restriction may (before a declaration, between its type and its
    /// name, after a class's name, after an exception specification): the
    /// diagnostic that says where a restriction goes.
    fn misplaced_restrict(&self, l: usize) -> Option<Diagnostic> {
        let index = self.index_of(l)?;
        let is_restrict = |t: &Token<'_>| matches!(t.tok, Tok::Restrict | Tok::Ident("restrict"));
        // The error is found at `restrict` itself or inside its parentheses.
        let first = index.saturating_sub(3);
        let at = (first..=index.min(self.tokens.len().saturating_sub(1)))
            .rev()
            .find(|&i| {
                self.tokens.get(i).is_some_and(is_restrict)
                    && self.tokens.get(i + 1).is_some_and(|t| t.tok == Tok::LParen)
            })?;
        let close = self.tokens[at..]
            .iter()
            .take(8)
            .find(|t| t.tok == Tok::RParen)
            .map_or(self.tokens[at].end, |t| t.end);
        // A macro's tokens (`__GPU`) may lie in its definition: show the
        // clause only when it is one stretch of text.
        let span = if close > self.tokens[at].start {
            self.file.span(self.tokens[at].start, close)
        } else {
            self.file.span(self.tokens[at].start, self.tokens[at].end)
        };
        // `restrict(amp) restrict(cpu)`: C++ AMP allows a sequence of
        // clauses, which Tessera does not read yet.
        let after_clause = self.tokens[..at]
            .last()
            .is_some_and(|t| t.tok == Tok::RParen)
            && self.tokens[at.saturating_sub(8)..at]
                .windows(2)
                .any(|w| is_restrict(&w[0]) && w[1].tok == Tok::LParen);
        if after_clause {
            return Some(
                Diagnostic::error(
                    codes::E0106,
                    span,
                    "a second `restrict(...)` clause is not supported yet",
                )
                .with_label("another clause")
                .with_help("write one clause with every specifier: `restrict(amp, cpu)`"),
            );
        }
        // MSVC's error depends on where it stands. After a lambda's `->
        // type` it is a syntax error (C2059), or C3409 right after `mutable
        // -> type`; after `throw(...)` MSVC takes it for a misspelt
        // `override` (C3646, "unknown override specifier"); before a
        // declaration or after a class's name it reads `restrict(cpu)` as a
        // call and `cpu` as an undeclared name (C2065).
        let before = &self.tokens[at.saturating_sub(6)..at];
        let arrow = before.iter().rposition(|t| t.tok == Tok::Arrow);
        let after_throw = before.last().is_some_and(|t| t.tok == Tok::RParen)
            && before.iter().any(|t| t.tok == Tok::Throw);
        // After a declarator's name (`T *p restrict(cpu);`) or a cast
        // (`(int) restrict(cpu) a`) MSVC takes `restrict` for a second name
        // ("missing `;` before identifier", C2146); not after a class's name.
        let after_declarator = matches!(
            before.last().map(|t| t.tok),
            Some(Tok::Ident(_) | Tok::RParen)
        ) && !matches!(
            before
                .len()
                .checked_sub(2)
                .and_then(|i| before.get(i))
                .map(|t| t.tok),
            Some(Tok::Class | Tok::Struct | Tok::Union)
        );
        let (msvc, help) = match arrow {
            Some(a) => {
                let after_mutable = a
                    .checked_sub(1)
                    .and_then(|i| before.get(i))
                    .is_some_and(|t| t.tok == Tok::Mutable);
                (
                    if after_mutable { "C3409" } else { "C2059" },
                    "a lambda's restriction comes before its return type: `[=](int x) mutable restrict(amp) -> int { ... }`",
                )
            }
            None => (
                if after_throw {
                    "C3646"
                } else if after_declarator {
                    "C2146"
                } else {
                    "C2065"
                },
                "a restriction follows a function's parameters (and `const`), before any exception specification: `int f(int x) restrict(amp) { ... }`; classes and variables take none",
            ),
        };
        Some(
            Diagnostic::error(
                codes::E0100,
                span,
                "a `restrict(...)` clause cannot stand here",
            )
            .with_label("misplaced restriction")
            .with_msvc(msvc)
            .with_help(help),
        )
    }

    fn unexpected(&self, l: usize, r: usize, tok: Tok<'_>, expected: &[String]) -> Diagnostic {
        let found_span = self.file.span(l as u32, r as u32);
        let found = tok.describe();
        if let Some(feature) = unsupported_feature(tok) {
            return Diagnostic::error(codes::E0106, found_span, format!("{feature} are not part of the Tessera language"))
                .with_label("not supported")
                .with_note("Tessera reads the subset of C++ that C++ AMP programs use; see docs/language.md")
                .with_help("write the code without this construct (for templates: write the function for the types you need)");
        }
        let what = summarize(expected);
        let prev_end = self.previous_end(l);
        let mut diag = Diagnostic::error(
            codes::E0100,
            found_span,
            format!("expected {what}, found {found}"),
        )
        .with_label(format!("expected {what}"));
        // `(int) restrict(cpu) a`: MSVC reads the contextual keyword as an
        // identifier where none may stand ("syntax error: missing ... before
        // identifier").
        if tok == Tok::Restrict {
            diag = diag.with_msvc("C2146");
        }
        let wants = names(expected);
        let closer = [")", "]", "template >"]
            .into_iter()
            .find(|c| wants.contains(c));
        if let Some(closer) = closer
            && prev_end < l
        {
            let closer = closer.trim_start_matches("template ");
            let at = self.file.span(prev_end as u32, prev_end as u32);
            diag = diag.with_secondary(at, format!("perhaps a `{closer}` is missing here"));
        }
        diag
    }

    /// Index of the token starting at byte `start`.
    fn index_of(&self, start: usize) -> Option<usize> {
        let start = start as u32;
        let idx = self.tokens.partition_point(|t| t.start < start);
        if self.tokens.get(idx).is_some_and(|t| t.start == start) {
            Some(idx)
        } else {
            // Macro expansions can put tokens out of order: look everywhere.
            self.tokens.iter().position(|t| t.start == start)
        }
    }

    /// End of the token before the one starting at `start`.
    fn previous_end(&self, start: usize) -> usize {
        match self.index_of(start) {
            Some(i) if i > 0 => self.tokens[i - 1].end as usize,
            _ => start,
        }
    }
}

/// "`)` or `,`", "an expression", "a declaration": the expected tokens,
/// grouped so the list stays short.
fn summarize(expected: &[String]) -> String {
    let names = names(expected);
    let has = |s: &str| names.contains(&s);
    if has("using") && has("struct") {
        return "a declaration".into();
    }
    let expression_start = has("identifier") && has("integer literal");
    let closers = [";", ")", "]", "}", ",", ":", "template >"];
    let any_closer = closers.iter().any(|c| has(c));
    let mut parts: Vec<String> = Vec::new();
    for closer in closers {
        if has(closer) {
            parts.push(format!("`{}`", closer.trim_start_matches("template ")));
        }
    }
    if !any_closer {
        if expression_start {
            parts.push("an expression".into());
        } else {
            for other in ["{", "(", "=", "identifier"] {
                if has(other) {
                    parts.push(if other == "identifier" {
                        "an identifier".into()
                    } else {
                        format!("`{other}`")
                    });
                }
            }
        }
    }
    if parts.is_empty() {
        if has("+") && has("*") {
            parts.push("an operator".into());
        } else {
            parts = names.iter().take(6).map(|n| format!("`{n}`")).collect();
        }
    }
    match parts.len() {
        0 => "something else".into(),
        1 => parts.remove(0),
        n => {
            let last = parts.remove(n - 1);
            format!("{} or {last}", parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Item, ItemKind};
    use tessera_diagnostics::SourceFile;

    /// Replaces every body set aside in `items` by its parse; returns how
    /// many there were.
    fn fill(items: &mut [Item]) -> usize {
        let mut n = 0;
        for item in items.iter_mut() {
            match &mut item.kind {
                ItemKind::Namespace(ns) => n += fill(&mut ns.items),
                ItemKind::Template(t) => n += fill(std::slice::from_mut(&mut *t.item)),
                ItemKind::Function(f) => n += fill_body(&mut f.body),
                ItemKind::Struct(s) => {
                    for m in &mut s.methods {
                        n += fill_body(&mut m.item.body);
                    }
                    for c in &mut s.classes {
                        for m in &mut c.item.methods {
                            n += fill_body(&mut m.item.body);
                        }
                    }
                    for m in &mut s.method_templates {
                        n += fill(std::slice::from_mut(&mut *m.item.item));
                    }
                }
                _ => {}
            }
        }
        n
    }

    /// Program `text` (named `name`) parsed with every body in place, and
    /// with the library's bodies set aside.
    fn eager_and_lazy(name: &str, text: &str) -> (Parsed, Parsed) {
        let mut sources = Sources::new();
        let (file, replaced) = SourceFile::from_bytes(name, text.as_bytes());
        let id = sources.add(file);
        let included =
            crate::include::read_headers(&mut sources, id, &crate::include::NoFiles, &[]);
        let eager = parse_unit_with(&sources, id, &replaced, &included, false);
        let lazy = parse_unit_with(&sources, id, &replaced, &included, true);
        (eager, lazy)
    }

    /// Replaces `body`, if set aside, by its parse: 1 if it was.
    fn fill_body(body: &mut Option<Block>) -> usize {
        let Some(block) = body else { return 0 };
        let Some(lazy) = &block.lazy else { return 0 };
        let (parsed, diags) = parse_lazy_body(lazy);
        assert!(diags.is_empty(), "{diags:?}");
        *block = parsed;
        1
    }

    /// Every library body set aside parses, on its own, to the block the
    /// parse of the whole unit builds, spans included.
    #[test]
    fn bodies_set_aside_parse_as_in_place() {
        let text = "#include <algorithm>\n#include <cmath>\n#include <amp_math.h>\n\
                    #include <cstring>\n#include <cctype>\n#include <vector>\n\
                    #include <array>\n#include <chrono>\n#include <string>\n\
                    #include <amp_short_vectors.h>\n#include <ppl.h>\n#include <typeinfo>\n\
                    int main() { return 0; }\n";
        let (eager, lazy) = eager_and_lazy("all.amp", text);
        assert!(!eager.has_errors() && !lazy.has_errors());
        let mut filled = lazy.unit.clone();
        let n = fill(&mut filled.items);
        assert!(n > 300, "only {n} bodies set aside");
        assert_eq!(filled, eager.unit);
        assert_ne!(lazy.unit, eager.unit);
    }

    /// A body a macro of the program reaches into is parsed in place.
    #[test]
    fn bodies_a_macro_reaches_are_parsed() {
        let text = "#define isdigit(c) ((c) >= '0')\n#include <cctype>\nint main() { return 0; }\n";
        let (eager, lazy) = eager_and_lazy("m.amp", text);
        assert_eq!(lazy.diagnostics.len(), eager.diagnostics.len());
        let mut filled = lazy.unit.clone();
        fill(&mut filled.items);
        assert_eq!(filled, eager.unit);
    }
}
