//! Unit tests of the preprocessor.

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
    let src =
        "#define HAS_Q defined(Q) && defined R\n#define Q\n#define R 0\n#if HAS_Q\nyes\n#endif\n";
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
    let src =
        "#include <amp.h>\n#include <iostream>\n#include \"amp_math.h\"\n#include < vector >\nx\n";
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
    // The C spellings of the known C++ headers are known too.
    let (_, diags) = pp("#include \"math.h\"\n#include <stdio.h>\n");
    assert!(diags.is_empty());
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
        "#define F(a, ...) a\n#define F(... , a) a\n",
        "#define F(__VA_ARGS__) 1\n",
        "#define S(x) #y\n",
        "#define P(a, b) ## b\n",
        "#define Q(a, b) a ##\n",
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
fn stringizing_and_pasting() {
    let (out, diags) = pp(concat!(
        "#define S(x) #x\n",
        "#define X(x) S(x)\n",
        "#define N 7\n",
        "#define P(a, b) a ## b\n",
        "#define Q x ## 2\n",
        "#define R(a, b) w a ## b\n",
        "S(a  +  \"q\\n\") X(N) S(N) P(ab, cd) P(1, 5) P(, y) P(z, ) Q P(<, <=) R(, v)\n",
    ));
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        text(&out),
        r#""a + \"q\\n\"" "7" "N" abcd 15 y z x2 <<= w v"#
    );
    // Pasting that makes no single token is an error; the tokens stay apart.
    let (out, diags) = pp("#define P(a, b) a ## b\nP(+, -)\n");
    assert_eq!(codes_of(&diags), vec!["E0051"]);
    assert_eq!(text(&out), "+ -");
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

#[test]
fn variadic_macros() {
    // The variable arguments, commas included, replace `__VA_ARGS__`; none
    // at all is allowed (C++20).
    let src = "#define CALL(f, ...) f(__VA_ARGS__)\n\
               CALL(g, 1, (2, 3), h(4, 5)) CALL(g) CALL(g, )\n\
               #define ALL(...) [__VA_ARGS__]\n\
               ALL() ALL(x) ALL(x, y)\n";
    assert_eq!(
        clean(src),
        "g ( 1 , ( 2 , 3 ) , h ( 4 , 5 ) ) g ( ) g ( ) [ ] [ x ] [ x , y ]"
    );
    // Too few for the named parameters.
    let (_, diags) = pp("#define F(a, b, ...) a b\nF(1)\n");
    assert_eq!(codes_of(&diags), vec!["E0054"]);
    assert!(
        diags[0].message.contains("at least 2 arguments"),
        "{}",
        diags[0].message
    );
}
