//! The compile entry: files come through the caller's loader, the
//! diagnostics of every stage come back merged in source order, the checker
//! runs beside syntax errors without reporting what the broken code would
//! have declared, and one function decides the engine.

use std::path::Path;
use tessera_diagnostics::{Diagnostic, FileId, Sources};
use tessera_driver::{Engine, Input, MemoryFiles, compile, compile_source, engine};

const HEAD: &str = "#include <amp.h>\nusing namespace concurrency;\n";

/// The codes of `diagnostics`, in order.
fn codes(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code.as_str()).collect()
}

/// The text each diagnostic's primary span points at.
fn texts<'s>(sources: &'s Sources, diagnostics: &[Diagnostic]) -> Vec<&'s str> {
    diagnostics
        .iter()
        .map(|d| sources.snippet(d.primary.span))
        .collect()
}

#[test]
fn files_come_through_the_loader() {
    let mut files = MemoryFiles::new();
    files.insert(
        "dir/main.amp",
        format!("{HEAD}int main() {{ return 3; }}\n"),
    );
    let mut sources = Sources::new();
    let checked = compile(&mut sources, &Input::new("dir/main.amp", &files)).expect("in memory");
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    assert!(checked.program.main.is_some());
    let main = sources.get(FileId(0)).map(|f| f.name.as_str());
    assert_eq!(main, Some("dir/main.amp"));
}

#[test]
fn a_file_the_loader_cannot_read_is_an_error_naming_it() {
    let files = MemoryFiles::new();
    let mut sources = Sources::new();
    let err = compile(&mut sources, &Input::new(Path::new("gone.amp"), &files))
        .expect_err("no such file");
    assert_eq!(err.path, Path::new("gone.amp"));
    assert!(
        err.to_string().starts_with("cannot read `gone.amp`: "),
        "{err}"
    );
}

#[test]
fn diagnostics_of_every_stage_are_merged_in_source_order() {
    // A checker error, then a syntax error, then a checker warning-free
    // function with an unknown name: reported in the order of the text.
    let text = format!(
        "{HEAD}int f() {{ return missing_one; }}\n\
         int g() {{ int x = ; return 0; }}\n\
         int h() {{ return missing_two; }}\n\
         int main() {{ return 0; }}\n"
    );
    let mut sources = Sources::new();
    let checked = compile_source(&mut sources, "order.amp", text.as_bytes());
    assert_eq!(codes(&checked.diagnostics), ["E0200", "E0100", "E0200"]);
    let starts: Vec<u32> = checked
        .diagnostics
        .iter()
        .map(|d| d.primary.span.start)
        .collect();
    assert!(starts.is_sorted(), "{starts:?}");
}

#[test]
fn items_that_parsed_are_checked_beside_syntax_errors() {
    let text = format!(
        "{HEAD}int broken(int a int b) {{ return a; }}\n\
         void fill(array_view<int, 1> av) {{\n\
             parallel_for_each(av.extent, [&](index<1> i) restrict(amp) {{ av[i] = 1; }});\n\
         }}\n\
         int main() {{ return broken(1, 2); }}\n"
    );
    let mut sources = Sources::new();
    let checked = compile_source(&mut sources, "both.amp", text.as_bytes());
    let found = codes(&checked.diagnostics);
    // The syntax error, and the capture rule broken in a sound function.
    assert!(found.contains(&"E0100"), "{found:?}");
    assert!(found.contains(&"E0307"), "{found:?}");
    // `broken` is not reported as unknown where it is called.
    let unknown: Vec<&str> = checked
        .diagnostics
        .iter()
        .zip(texts(&sources, &checked.diagnostics))
        .filter(|(d, _)| d.code.as_str() == "E0200")
        .map(|(_, t)| t)
        .collect();
    assert!(unknown.is_empty(), "{unknown:?}");
}

#[test]
fn a_local_whose_declaration_broke_is_not_reported_at_its_uses() {
    let text = format!(
        "{HEAD}int f(int n) {{\n    int total = n * ;\n    return total + n;\n}}\n\
         int g() {{ return nowhere; }}\n\
         int main() {{ return f(1) + g(); }}\n"
    );
    let mut sources = Sources::new();
    let checked = compile_source(&mut sources, "local.amp", text.as_bytes());
    let unknown: Vec<&str> = checked
        .diagnostics
        .iter()
        .zip(texts(&sources, &checked.diagnostics))
        .filter(|(d, _)| d.code.as_str() == "E0200")
        .map(|(_, t)| t)
        .collect();
    // `total` is quiet; `nowhere`, which no broken code mentions, is not.
    assert_eq!(unknown, ["nowhere"]);
}

#[test]
fn a_token_with_a_lexical_error_gets_no_checker_diagnostic() {
    let text = format!("{HEAD}int main() {{ char c = '\\g'; return 0; }}\n");
    let mut sources = Sources::new();
    let checked = compile_source(&mut sources, "lex.amp", text.as_bytes());
    assert_eq!(codes(&checked.diagnostics), ["E0006"]);
}

#[test]
fn a_program_without_syntax_errors_gets_every_checker_diagnostic() {
    let text = format!("{HEAD}int main() {{ return undeclared; }}\n");
    let mut sources = Sources::new();
    let checked = compile_source(&mut sources, "plain.amp", text.as_bytes());
    assert_eq!(codes(&checked.diagnostics), ["E0200"]);
    assert!(checked.has_errors());
}

#[test]
fn the_jit_runs_kernels_unless_the_dynamic_checks_are_on() {
    let plain = tessera_interp::Options::default();
    let checked = tessera_interp::Options {
        check: true,
        ..plain
    };
    assert!(engine::uses_jit(Engine::Jit, &plain));
    assert!(!engine::uses_jit(Engine::Jit, &checked));
    assert!(!engine::uses_jit(Engine::Interp, &plain));
    assert!(!engine::uses_jit(Engine::Interp, &checked));
    assert_eq!(Engine::default(), Engine::Jit);
    assert_eq!(
        [Engine::Jit.name(), Engine::Interp.name()],
        ["jit", "interp"]
    );
}

#[test]
fn both_engines_run_a_program_alike() {
    let text = format!(
        "#include <iostream>\n#include <vector>\n{HEAD}int main() {{\n\
         std::vector<int> v(8);\n\
         array_view<int, 1> av(8, v);\n\
         parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {{ av[i] = i[0] * 3; }});\n\
         av.synchronize();\n\
         for (int i = 0; i < 8; i++) {{ std::cout << v[i] << \" \"; }}\n\
         return 7;\n}}\n"
    );
    let mut sources = Sources::new();
    let checked = compile_source(&mut sources, "run.amp", text.as_bytes());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let options = tessera_interp::Options::default();
    let mut outputs = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mut out = Vec::new();
        let ran = engine::run(
            &checked.program,
            engine,
            2,
            &options,
            &mut out,
            &mut &b""[..],
            None,
        );
        assert_eq!(ran.outcome.exit_code, 7);
        assert_eq!(ran.jit.is_some(), engine == Engine::Jit);
        outputs.push(out);
    }
    assert_eq!(outputs[0], b"0 3 6 9 12 15 18 21 ");
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn defines_come_before_the_main_file_and_before_its_headers() {
    let mut files = MemoryFiles::new();
    // The header sees the definition too: it is read after the prelude.
    files.insert("lib.h", "#ifndef N\n#error N undefined\n#endif\n");
    files.insert(
        "main.amp",
        format!(
            "#include \"lib.h\"\n{HEAD}int main() {{ int a[N]; a[0] = ON; return a[0] - 1; }}\n"
        ),
    );
    let mut sources = Sources::new();
    let mut input = Input::new("main.amp", &files);
    input.defines = vec![
        ("N".to_string(), "4".to_string()),
        ("ON".to_string(), "1".to_string()),
    ];
    let checked = compile(&mut sources, &input).expect("in memory");
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    // Without them, the header's `#error` fires.
    let checked = compile(&mut Sources::new(), &Input::new("main.amp", &files)).expect("in memory");
    assert!(checked.has_errors(), "{:?}", checked.diagnostics);
}

#[test]
fn a_line_break_in_a_define_cannot_start_a_directive() {
    let text = tessera_driver::prelude_text(&[("A".to_string(), "1\n#define B 2".to_string())]);
    assert_eq!(text.lines().count(), 1, "{text}");
}

/// A program without an error that still holds an expression the checker
/// gave no type is refused there (E0211), not run as nothing; a program
/// whose every expression has a type is not.
#[test]
fn an_untyped_expression_is_refused() {
    let mut sources = Sources::new();
    let mut checked = compile_source(&mut sources, "main.amp", b"int main() { return 1 + 2; }\n");
    assert!(codes(&checked.diagnostics).is_empty());
    assert!(tessera_sema::untyped(&checked.program).is_none());
    let mut marked = false;
    for f in &mut checked.program.functions {
        if let Some(body) = &mut f.body {
            tessera_ir::visit::for_each_stmt_mut(body, &mut |s| {
                if let tessera_ir::StmtKind::Return(Some(e)) = &mut s.kind {
                    e.ty = tessera_ir::Type::Error;
                    marked = true;
                }
            });
        }
    }
    assert!(marked);
    let refusal = tessera_sema::untyped(&checked.program).map(|d| (d.code.as_str(), d.is_error()));
    assert_eq!(refusal, Some(("E0211", true)));
}
