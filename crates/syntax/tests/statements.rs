//! `parse_stmts_in`, the REPL's second entry point: an input read as the
//! statements of a function body, in a session shared with `parse_in`.

use tessera_diagnostics::{FileId, SourceFile, Sources, codes};
use tessera_syntax::ast::StmtKind;
use tessera_syntax::{ParseSession, parse_in, parse_stmts_in};

/// Adds each text as its own file, as the REPL does with its inputs.
fn sources_of(texts: &[&str]) -> (Sources, Vec<FileId>) {
    let mut sources = Sources::new();
    let ids = texts
        .iter()
        .enumerate()
        .map(|(i, t)| sources.add(SourceFile::from_bytes(format!("<input {i}>"), t.as_bytes()).0))
        .collect();
    (sources, ids)
}

fn text(sources: &Sources, id: FileId) -> &str {
    sources.get(id).map_or("", |f| f.text.as_str())
}

#[test]
fn statements_and_expressions_parse_with_spans_in_the_input() {
    let (sources, ids) = sources_of(&["int x = 5;\nx += 2;\nif (x > 6) x = 0; else x = 1;"]);
    let mut session = ParseSession::default();
    let parsed = parse_stmts_in(&mut session, ids[0], text(&sources, ids[0]), &[]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert!(!parsed.implicit_semicolon);
    assert_eq!(parsed.stmts.len(), 3);
    assert!(matches!(parsed.stmts[0].kind, StmtKind::Decl(_)));
    assert!(matches!(parsed.stmts[1].kind, StmtKind::Expr(_)));
    assert_eq!(sources.snippet(parsed.stmts[1].span), "x += 2;");
    assert_eq!(parsed.stmts[1].span.file, ids[0]);
}

#[test]
fn a_missing_final_semicolon_is_supplied() {
    for input in [
        "x + 1",
        "int n = 4",
        "v[2]",
        "f(1, 2)  // trailing comment\n",
    ] {
        let (sources, ids) = sources_of(&[input]);
        let mut session = ParseSession::default();
        let parsed = parse_stmts_in(&mut session, ids[0], text(&sources, ids[0]), &[]);
        assert!(
            parsed.diagnostics.is_empty(),
            "{input}: {:?}",
            parsed.diagnostics
        );
        assert!(parsed.implicit_semicolon, "{input}");
        assert_eq!(parsed.stmts.len(), 1, "{input}");
    }
}

#[test]
fn a_semicolon_is_not_supplied_where_more_is_missing() {
    // A lone `if (x)` wants a statement; `x +` wants an operand.
    for input in ["if (x)", "x +", "while (true)"] {
        let (sources, ids) = sources_of(&[input]);
        let mut session = ParseSession::default();
        let parsed = parse_stmts_in(&mut session, ids[0], text(&sources, ids[0]), &[]);
        assert!(!parsed.implicit_semicolon, "{input}");
        assert!(
            parsed.diagnostics.iter().any(|d| d.code == codes::E0103),
            "{input}: {:?}",
            parsed.diagnostics
        );
    }
    // Only the last statement may lack its `;`.
    let (sources, ids) = sources_of(&["x = 1\ny = 2"]);
    let mut session = ParseSession::default();
    let parsed = parse_stmts_in(&mut session, ids[0], text(&sources, ids[0]), &[]);
    assert!(parsed.has_errors());
    assert!(parsed.diagnostics.iter().any(|d| d.code == codes::E0101));
}

#[test]
fn macros_and_struct_names_carry_over_between_both_entry_points() {
    let (sources, ids) = sources_of(&[
        "#define N 4\nstruct P { int x; };",
        "P p = {N};\narray_view<int, 1> v(N, data);",
    ]);
    let mut session = ParseSession::default();
    let first = parse_in(&mut session, ids[0], text(&sources, ids[0]), &[]);
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    let second = parse_stmts_in(&mut session, ids[1], text(&sources, ids[1]), &[]);
    assert!(second.diagnostics.is_empty(), "{:?}", second.diagnostics);
    assert_eq!(second.stmts.len(), 2);
    // `N` expanded to `4`, with the span of the macro's use.
    let StmtKind::Decl(decl) = &second.stmts[0].kind else {
        panic!("not a declaration: {:?}", second.stmts[0].kind);
    };
    assert_eq!(decl.declarators.len(), 1);
}

#[test]
fn a_broken_statement_is_reported_and_the_rest_still_parses() {
    let (sources, ids) = sources_of(&["int x = ;\nx = 3;"]);
    let mut session = ParseSession::default();
    let parsed = parse_stmts_in(&mut session, ids[0], text(&sources, ids[0]), &[]);
    assert!(parsed.has_errors());
    assert!(matches!(parsed.stmts[0].kind, StmtKind::Error));
    assert!(matches!(
        parsed.stmts.last().map(|s| &s.kind),
        Some(StmtKind::Expr(_))
    ));
    let first = &parsed.diagnostics[0];
    assert_eq!(first.primary.span.file, ids[0]);
}

#[test]
fn an_empty_input_is_no_statement() {
    let (sources, ids) = sources_of(&["  // nothing\n"]);
    let mut session = ParseSession::default();
    let parsed = parse_stmts_in(&mut session, ids[0], text(&sources, ids[0]), &[]);
    assert!(parsed.diagnostics.is_empty());
    assert!(parsed.stmts.is_empty());
    assert!(!parsed.implicit_semicolon);
}
