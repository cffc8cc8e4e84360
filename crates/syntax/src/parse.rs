//! The front end's entry point: runs every stage and turns the parser's
//! errors into diagnostics.

use crate::actions::NoError;
use crate::ast::TranslationUnit;
use crate::lexer::{Token, lex};
use crate::preprocess::{MacroTable, preprocess};
use crate::token::Tok;
use crate::{classify, delimiters, grammar};
use lalrpop_util::{ErrorRecovery, ParseError};
use std::collections::HashSet;
use tessera_diagnostics::{Diagnostic, FileId, Sources, Span, codes};

/// Largest source file accepted (spans are 32-bit; real programs are far smaller).
pub const MAX_SOURCE_LEN: usize = 64 << 20;

/// At most this many syntax errors are reported per file; after that the rest
/// are likely consequences of the first ones.
const MAX_SYNTAX_ERRORS: usize = 100;

/// The result of parsing a file: the tree (with `Error` nodes where parsing
/// failed) and every diagnostic found on the way.
#[derive(Debug)]
pub struct Parsed {
    /// The syntax tree.
    pub unit: TranslationUnit,
    /// Diagnostics in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// State that lives across several inputs parsed as one program (the REPL):
/// macros and the names of declared structs.
#[derive(Debug, Default)]
pub struct ParseSession<'s> {
    /// `#define`s seen so far.
    pub macros: MacroTable<'s>,
    /// Struct and class names declared so far.
    pub types: HashSet<String>,
}

/// Parses file `file` of `sources`. `replaced` lists where invalid UTF-8 was
/// replaced when the file was read (see `SourceFile::from_bytes`).
pub fn parse_file(sources: &Sources, file: FileId, replaced: &[usize]) -> Parsed {
    let mut session = ParseSession::default();
    let text = sources.get(file).map_or("", |f| f.text.as_str());
    parse_in(&mut session, file, text, replaced)
}

/// Parses `text` (the text of `file`) in a session, so that macros and struct
/// names from earlier inputs are known and new ones are remembered.
pub fn parse_in<'s>(session: &mut ParseSession<'s>, file: FileId, text: &'s str, replaced: &[usize]) -> Parsed {
    let mut diags = Vec::new();
    if text.len() > MAX_SOURCE_LEN {
        diags.push(
            Diagnostic::error(codes::E0007, Span::new(file, 0..0), "source file too large")
                .with_label(format!("this file has {} bytes", text.len()))
                .with_note(format!("the limit is {} MiB", MAX_SOURCE_LEN >> 20)),
        );
        return Parsed {
            unit: TranslationUnit { items: Vec::new() },
            diagnostics: diags,
        };
    }
    let raw = lex(file, text, replaced, &mut diags);
    let mut tokens = preprocess(file, text, &raw, &mut session.macros, &mut diags);
    drop(raw);
    let delimiter_error = delimiters::check(file, &tokens, text.len(), &mut diags);
    classify::classify(&mut tokens, &mut session.types);

    let mut recovered: Vec<ErrorRecovery<usize, Tok<'s>, NoError>> = Vec::new();
    let stream = tokens
        .iter()
        .map(|t| Ok::<_, NoError>((t.start as usize, t.tok, t.end as usize)));
    let parser = grammar::TranslationUnitParser::new();
    let result = parser.parse(file, &mut diags, &mut recovered, stream);
    let mut syntax_errors: Vec<ParseError<usize, Tok<'s>, NoError>> =
        recovered.into_iter().map(|r| r.error).collect();
    let unit = match result {
        Ok(unit) => unit,
        Err(e) => {
            syntax_errors.push(e);
            TranslationUnit { items: Vec::new() }
        }
    };
    let reporter = Reporter { file, text, tokens: &tokens };
    let mut last_line = None;
    let mut reported = 0;
    for err in syntax_errors {
        let Some(diag) = reporter.diagnose(err) else { continue };
        // Errors after a delimiter error are mostly its echoes.
        if delimiter_error.is_some_and(|at| diag.primary.span.start >= at) {
            continue;
        }
        // One syntax error per line: recovery can stumble more than once on
        // the same broken statement.
        let line = text.get(..diag.primary.span.start as usize).map_or(0, |s| s.matches('\n').count());
        if last_line == Some(line) {
            continue;
        }
        last_line = Some(line);
        reported += 1;
        if reported > MAX_SYNTAX_ERRORS {
            break;
        }
        diags.push(diag);
    }
    // Stages report in their own order; people read top to bottom.
    diags.sort_by_key(|d| (d.primary.span.file, d.primary.span.start));
    Parsed { unit, diagnostics: diags }
}

struct Reporter<'a, 's> {
    file: FileId,
    text: &'a str,
    tokens: &'a [Token<'s>],
}

impl Reporter<'_, '_> {
    fn diagnose(&self, err: ParseError<usize, Tok<'_>, NoError>) -> Option<Diagnostic> {
        match err {
            ParseError::UnrecognizedToken { token: (l, tok, r), expected } => Some(self.unexpected(l, r, &tok.describe(), &expected)),
            ParseError::ExtraToken { token: (l, tok, r) } => Some(
                Diagnostic::error(codes::E0100, Span::new(self.file, l..r), format!("unexpected {}", tok.describe()))
                    .with_label("not expected here"),
            ),
            ParseError::UnrecognizedEof { location, expected } => {
                let at = location.min(self.text.len());
                let what = summarize(&expected);
                Some(
                    Diagnostic::error(codes::E0103, Span::new(self.file, at..at), format!("unexpected end of file; expected {what}"))
                        .with_label(format!("expected {what} here"))
                        .with_help("the file ends in the middle of a declaration or statement"),
                )
            }
            ParseError::InvalidToken { .. } | ParseError::User { .. } => None,
        }
    }

    fn unexpected(&self, l: usize, r: usize, found: &str, expected: &[String]) -> Diagnostic {
        let found_span = Span::new(self.file, l..r);
        let wants = |s: &str| expected.iter().any(|e| e.trim_matches('"') == s);
        let prev_end = self.previous_end(l);
        if wants(";") {
            // Point where the `;` belongs, right after the previous token, as
            // the token found is often on the next line.
            let at = Span::new(self.file, prev_end..prev_end);
            return Diagnostic::error(codes::E0101, at, format!("expected `;`, found {found}"))
                .with_label("add `;` here")
                .with_secondary(found_span, "unexpected here");
        }
        let what = summarize(expected);
        let mut diag = Diagnostic::error(codes::E0100, found_span, format!("expected {what}, found {found}"))
            .with_label(format!("expected {what}"));
        if (wants(")") || wants("]") || wants("template >")) && prev_end < l {
            let closer = if wants(")") { ")" } else if wants("]") { "]" } else { ">" };
            let at = Span::new(self.file, prev_end..prev_end);
            diag = diag.with_secondary(at, format!("perhaps a `{closer}` is missing here"));
        }
        diag
    }

    /// End of the token before the one starting at `start`.
    fn previous_end(&self, start: usize) -> usize {
        let start = start as u32;
        let idx = self.tokens.partition_point(|t| t.start < start);
        let exact = self.tokens.get(idx).is_some_and(|t| t.start == start);
        let idx = if exact { Some(idx) } else { self.tokens.iter().position(|t| t.start == start) };
        match idx {
            Some(i) if i > 0 => self.tokens[i - 1].end as usize,
            _ => start as usize,
        }
    }
}

/// "`)`, `,` or an operator": the expected tokens, grouped so the list stays short.
fn summarize(expected: &[String]) -> String {
    let names: Vec<&str> = expected.iter().map(|e| e.trim_matches('"')).collect();
    let has = |s: &str| names.contains(&s);
    let expression_start = has("identifier") && has("integer literal");
    let type_start = has("int") && has("float") && has("void");
    let operator = has("+") && has("*");
    let mut parts: Vec<String> = Vec::new();
    for closer in [";", ")", "]", "}", ",", "{", "(", ":", "template >", "=", "identifier"] {
        if has(closer) && !(closer == "identifier" && expression_start) {
            let shown = match closer {
                "template >" => "`>`".to_string(),
                "identifier" => "an identifier".to_string(),
                other => format!("`{other}`"),
            };
            parts.push(shown);
        }
    }
    if expression_start {
        parts.push("an expression".into());
    }
    if type_start {
        parts.push("a type".into());
    }
    if operator {
        parts.push("an operator".into());
    }
    if parts.is_empty() {
        parts = names.iter().take(6).map(|n| format!("`{n}`")).collect();
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
