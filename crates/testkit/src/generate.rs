//! Large, realistic, error-free programs for benchmarks.
//!
//! [`large_program`] concatenates copies of the samples, each with its
//! top-level names renamed per copy ([`top_level_names`], [`renamed`]), each
//! round of copies followed by generated code ([`generated`]): a long
//! initialiser list, a 40-deep expression and a long `if` chain. The result
//! parses without a diagnostic and passes the checker without an error
//! (names are declared before use; amp code reads no global).

use std::collections::HashSet;
use std::fmt::Write as _;
use tessera_diagnostics::FileId;
use tessera_syntax::lexer::{Token, lex};
use tessera_syntax::token::Tok;

/// Copies of the samples (the texts of [`crate::samples::texts`]), each with
/// its own names, plus generated code, until the text is at least `target`
/// bytes long. Deterministic: the same samples and target give the same text.
pub fn large_program(samples: &[String], target: usize) -> String {
    let plans: Vec<(&str, Vec<Token<'_>>, HashSet<&str>)> = samples
        .iter()
        .map(|text| {
            let mut diags = Vec::new();
            let toks = lex(FileId(0), text, &[], &mut diags);
            let names = top_level_names(&toks);
            (text.as_str(), toks, names)
        })
        .collect();
    let mut out = String::with_capacity(target + (1 << 20));
    let mut copy = 0;
    while out.len() < target {
        for (sample, (text, toks, names)) in plans.iter().enumerate() {
            renamed(&mut out, text, toks, names, &format!("_{copy}_{sample}"));
            out.push('\n');
        }
        generated(&mut out, copy);
        copy += 1;
    }
    out
}

/// Names a sample declares at file level: macros, structs, functions and
/// global variables (renaming them per copy avoids redefinitions). `toks`
/// are the raw tokens of the sample (from [`lex`], directives included).
pub fn top_level_names<'s>(toks: &[Token<'s>]) -> HashSet<&'s str> {
    let mut names = HashSet::new();
    let (mut braces, mut parens) = (0i32, 0i32);
    let mut in_directive = false;
    for (i, t) in toks.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| toks[p].tok);
        let next = toks.get(i + 1).map(|n| n.tok);
        match t.tok {
            Tok::Hash => in_directive = true,
            Tok::Newline => in_directive = false,
            Tok::LBrace => braces += 1,
            Tok::RBrace => braces -= 1,
            Tok::LParen => parens += 1,
            Tok::RParen => parens -= 1,
            Tok::Ident(name) => {
                let defined = in_directive && prev == Some(Tok::Ident("define"));
                let declared_type = matches!(prev, Some(Tok::Struct | Tok::Class));
                let declared_here = !in_directive
                    && braces == 0
                    && parens == 0
                    && prev != Some(Tok::Namespace)
                    && matches!(
                        next,
                        Some(Tok::LParen | Tok::Assign | Tok::Semi | Tok::LBracket | Tok::Comma)
                    );
                if defined || declared_type || declared_here {
                    names.insert(name);
                }
            }
            _ => {}
        }
    }
    names
}

/// Appends `text` with `suffix` added to every identifier in `names`;
/// `toks` are the raw tokens of `text` (from [`lex`]).
pub fn renamed(
    out: &mut String,
    text: &str,
    toks: &[Token<'_>],
    names: &HashSet<&str>,
    suffix: &str,
) {
    let mut at = 0;
    for t in toks {
        if let Tok::Ident(name) = t.tok
            && names.contains(name)
        {
            let end = t.end as usize;
            out.push_str(&text[at..end]);
            out.push_str(suffix);
            at = end;
        }
    }
    out.push_str(&text[at..]);
}

/// Appends the generated code of round `copy`: a 2,000-element global
/// initialiser list (`table_N`), a `restrict(amp, cpu)` polynomial with a
/// 40-deep expression (`poly_N`), and a host function with a chain of 24
/// `if`s that reads the table (`mixed_N`; host-only, since amp code may not
/// read a global array).
pub fn generated(out: &mut String, copy: usize) {
    let _ = write!(out, "static const int table_{copy}[] = {{");
    for i in 0..2000 {
        if i % 16 == 0 {
            out.push_str("\n    ");
        }
        let _ = write!(out, "{}, ", (i * 7919 + copy) % 1000);
    }
    out.push_str("\n};\n\n");

    let _ = writeln!(out, "float poly_{copy}(float x) restrict(amp, cpu) {{");
    out.push_str("    return ");
    for _ in 0..40 {
        out.push('(');
    }
    out.push('x');
    for k in 0..40 {
        let _ = write!(out, " * x + {k}.5f)");
    }
    out.push_str(";\n}\n\n");

    let _ = writeln!(out, "int mixed_{copy}(int a, int b) restrict(cpu) {{");
    out.push_str("    int r = 0;\n");
    for k in 0..24 {
        let _ = writeln!(
            out,
            "    if ((a + {k}) * (b - {k}) > (a ^ b) % {m} && !(r < 0 || b == {k})) {{\n        \
             r += (a << {s}) - (b >> {s}) + table_{copy}[(a + b + {k}) % 2000] * (r % 3 == 0 ? 1 : -1);\n    \
             }} else {{\n        r -= {k};\n    }}",
            m = k + 2,
            s = k % 5
        );
    }
    out.push_str("    return r;\n}\n\n");

    // Classes and templates, instantiated and called from amp-capable code.
    let _ = write!(
        out,
        "template <typename T, int N>\n\
         struct Acc_{copy} {{\n    \
             T items[N];\n    \
             T sum() const restrict(amp, cpu) {{ T s = T(); for (int i = 0; i < N; i++) s += items[i]; return s; }}\n    \
             void fill(T v) restrict(amp, cpu) {{ for (int i = 0; i < N; i++) items[i] = v; }}\n\
         }};\n\n\
         template <typename T>\n\
         T clampv_{copy}(T v, T lo, T hi) restrict(amp, cpu) {{ return v < lo ? lo : (v > hi ? hi : v); }}\n\n\
         class Point_{copy} {{\n\
         public:\n    \
             Point_{copy}(float x, float y) restrict(amp, cpu) : x(x), y(y) {{}}\n    \
             Point_{copy} operator+(const Point_{copy}& o) const restrict(amp, cpu) {{ return Point_{copy}(x + o.x, y + o.y); }}\n    \
             float dot(const Point_{copy}& o) const restrict(amp, cpu) {{ return x * o.x + y * o.y; }}\n\
         private:\n    \
             float x, y;\n\
         }};\n\n\
         float use_{copy}(float a) restrict(amp, cpu) {{\n    \
             Acc_{copy}<float, 8> acc;\n    \
             acc.fill(a);\n    \
             Point_{copy} p(a, 1.0f), q(2.0f, a);\n    \
             return clampv_{copy}(acc.sum() + (p + q).dot(p), 0.0f, 100.0f) + clampv_{copy}<int>(3, 0, 2);\n\
         }}\n\n"
    );
}
