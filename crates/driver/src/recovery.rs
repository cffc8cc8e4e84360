//! What the checker says after syntax errors.
//!
//! The parser recovers per top-level item and per statement, leaving
//! `Error` nodes where parsing failed, and the checker checks every item
//! that parsed. What a broken piece of code would have declared is missing,
//! though: a function whose signature did not parse, a local whose
//! declaration did not, a struct member. Every use of such a name would be
//! reported as unknown, once per use, about code that is not wrong.
//!
//! So after syntax errors, an "unknown name" (`E0200`), "unknown type"
//! (`E0201`) or "no such member" (`E0207`) error is left out when its name
//! appears in a *broken item*: a top-level item holding a syntax error, or a
//! stretch of text the parser could not read as an item. Every other
//! checker diagnostic stays, so a rule broken in a sound function is still
//! reported beside the syntax error of another. The price: a name that is
//! really unknown goes unreported while a broken item mentions it (inside
//! that item, or elsewhere under the same name), until the syntax error is
//! fixed.
//!
//! Also left out: a checker diagnostic whose primary span holds a lexical
//! error (an invalid escape, a bad literal): the lexer's token there is a
//! guess, already reported.

use std::collections::HashSet;
use std::ops::Range;
use tessera_diagnostics::{Diagnostic, FileId, Phase, Sources, Span, codes};
use tessera_syntax::ast::{ItemKind, TranslationUnit};

/// `check` without the errors about names that broken items mention.
pub(crate) fn quiet_follow_ons(
    sources: &Sources,
    unit: &TranslationUnit,
    parse: &[Diagnostic],
    check: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let broken = broken_names(sources, unit, parse);
    let lexical: Vec<Span> = parse
        .iter()
        .filter(|d| d.is_error() && d.code.info().is_some_and(|i| i.phase == Phase::Lex))
        .map(|d| d.primary.span)
        .collect();
    check
        .into_iter()
        .filter(|d| {
            let about_a_name =
                d.code == codes::E0200 || d.code == codes::E0201 || d.code == codes::E0207;
            let span = d.primary.span;
            let on_bad_token = lexical
                .iter()
                .any(|l| l.file == span.file && span.start <= l.start && l.end <= span.end);
            let declared_by_broken_code =
                about_a_name && name_at(sources, d).is_some_and(|n| broken.contains(n));
            !on_bad_token && !declared_by_broken_code
        })
        .collect()
}

/// Every identifier in the text of an item that holds a syntax error, or
/// that the parser could not read.
fn broken_names<'s>(
    sources: &'s Sources,
    unit: &TranslationUnit,
    parse: &[Diagnostic],
) -> HashSet<&'s str> {
    let mut regions: Vec<(FileId, Range<usize>)> = Vec::new();
    for d in parse.iter().filter(|d| d.is_error()) {
        let at = d.primary.span;
        // The item the error is in, or else the last one before it (an
        // error at the end of the file, after an unclosed brace).
        let item = unit
            .items
            .iter()
            .filter(|i| i.span.file == at.file && i.span.start <= at.start)
            .find(|i| at.start < i.span.end)
            .or_else(|| {
                unit.items
                    .iter()
                    .rfind(|i| i.span.file == at.file && i.span.start <= at.start)
            });
        if let Some(item) = item {
            regions.push((
                item.span.file,
                item.span.start as usize..item.span.end as usize,
            ));
        }
    }
    for item in &unit.items {
        if matches!(item.kind, ItemKind::Error) {
            regions.push((
                item.span.file,
                item.span.start as usize..item.span.end as usize,
            ));
        }
    }
    let mut names = HashSet::new();
    for (file, range) in regions {
        if let Some(text) = sources.get(file).and_then(|f| f.text.get(range)) {
            names.extend(identifiers(text));
        }
    }
    names
}

/// The name a diagnostic is about: the last identifier of the text at its
/// primary span (`f` of `ns::f`, `y` of `p.y`).
fn name_at<'s>(sources: &'s Sources, d: &Diagnostic) -> Option<&'s str> {
    let text = sources.snippet(d.primary.span);
    identifiers(text).last()
}

/// The identifiers of `text`, as C++ spells them.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}
