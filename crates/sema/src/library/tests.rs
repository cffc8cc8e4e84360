//! Tests of the library: whole programs are parsed and checked, and the
//! diagnostics compared by code; a few tests also look at the lowering.

use tessera_diagnostics::{SourceFile, Sources};
use tessera_ir::{Expr, ExprKind, Intrinsic, Program, StmtKind, Type};

/// Parses and checks `src`; panics on syntax errors.
fn check(src: &str) -> crate::Checked {
    let mut sources = Sources::new();
    let (file, replaced) = SourceFile::from_bytes("test.amp", src.as_bytes());
    let id = sources.add(file);
    let parsed = tessera_syntax::parse_file(&sources, id, &replaced);
    assert!(
        !parsed.has_errors(),
        "syntax errors: {:#?}",
        parsed.diagnostics
    );
    crate::check(&parsed.unit)
}

/// Parses and checks `src` with the parts of the standard headers written
/// in the Tessera language (`<chrono>`, `<array>`), read as the driver
/// reads them; panics on syntax errors.
fn check_with_headers(src: &str) -> crate::Checked {
    let mut sources = Sources::new();
    let (file, replaced) = SourceFile::from_bytes("test.amp", src.as_bytes());
    let id = sources.add(file);
    let parsed = tessera_syntax::parse_with_library(&mut sources, id, &replaced);
    assert!(
        !parsed.has_errors(),
        "syntax errors: {:#?}",
        parsed.diagnostics
    );
    crate::check(&parsed.unit)
}

/// The codes of the diagnostics of `src`, in order.
fn codes(src: &str) -> Vec<&'static str> {
    check(src)
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

/// A program: the includes, then `body`.
fn program(body: &str) -> String {
    format!(
        "#include <amp.h>\n#include <amp_math.h>\n#include <iostream>\n#include <iomanip>\n#include <vector>\nusing namespace concurrency;\n{body}\n"
    )
}

/// Every expression of the program, depth first.
fn exprs(p: &Program) -> Vec<&Expr> {
    let mut out = Vec::new();
    for f in &p.functions {
        if let Some(b) = &f.body {
            tessera_ir::visit::for_each_expr_deep(b, &mut |e| out.push(e));
        }
    }
    out
}

/// The intrinsics used by the program, with their result types.
fn intrinsics(p: &Program) -> Vec<(Intrinsic, Type)> {
    exprs(p)
        .into_iter()
        .filter_map(|e| match &e.kind {
            ExprKind::Intrinsic { op, .. } => Some((op.clone(), e.ty.clone())),
            _ => None,
        })
        .collect()
}

/// A correct tiled program touching most of the library.
const TILED: &str = r#"
int twice(int x, const tile_barrier& b) restrict(amp) {
    b.wait_with_tile_static_memory_fence();
    return 2 * x;
}

int main() {
    std::vector<int> data(64);
    for (int i = 0; i < 64; i++) {
        data[i] = i;
    }
    std::vector<int> out(64, 0);
    array_view<const int, 2> in(8, 8, data);
    array_view<int, 2> res(8, 8, out);
    res.discard_data();
    std::vector<int> counts(4, 0);
    array_view<int, 1> hist(4, counts);
    array<float, 2> sums(extent<2>(4, 4));
    parallel_for_each(in.extent.tile<2, 2>(), [=, &sums](tiled_index<2, 2> t) restrict(amp) {
        tile_static int tile[2][2];
        tile[t.local[0]][t.local[1]] = in[t];
        t.barrier.wait();
        int sum = tile[0][0] + tile[0][1] + tile[1][0] + tile[1][1];
        atomic_fetch_add(&hist[sum % 4], 1);
        index<2> origin = t.tile_origin;
        res[t.global] = twice(sum, t.barrier) + origin[0] - t.tile[0] * 2;
        if (t.local == index<2>(0, 0)) {
            sums(t.tile[0], t.tile[1]) = fast_math::sqrt((float)sum);
        }
        tile_static_memory_fence(t.barrier);
    });
    res.synchronize();
    hist.synchronize();
    std::vector<float> back = sums;
    std::cout << std::setw(4) << out[9] << " " << counts[0] << " " << back[0] << std::endl;
    return 0;
}
"#;

#[test]
fn a_correct_tiled_program_has_no_diagnostics() {
    let checked = check(&program(TILED));
    assert!(checked.diagnostics.is_empty(), "{:#?}", checked.diagnostics);
    let ops = intrinsics(&checked.program);
    let has = |want: &dyn Fn(&Intrinsic, &Type) -> bool| ops.iter().any(|(op, ty)| want(op, ty));
    assert!(has(&|op, ty| *op == Intrinsic::Tile
        && matches!(ty, Type::TiledExtent(s) if s.dims() == [2, 2])));
    assert!(has(
        &|op, ty| matches!(op, Intrinsic::Atomic(_)) && *ty == Type::INT
    ));
    assert!(has(&|op, ty| *op
        == Intrinsic::ShapeArith(tessera_ir::BinOp::Eq)
        && *ty == Type::BOOL));
    assert!(has(&|op, _| *op == Intrinsic::Print));
    assert!(has(&|op, _| *op == Intrinsic::ArrayToVector));
    assert!(has(&|op, _| matches!(
        op,
        Intrinsic::MemoryFence(tessera_ir::Fence::TileStatic)
    )));
}

#[test]
fn barriers_become_statements() {
    let checked = check(&program(TILED));
    let kernel_has_barrier = checked.program.functions.iter().any(|f| {
        f.body.as_ref().is_some_and(|b| {
            b.stmts
                .iter()
                .any(|s| matches!(s.kind, StmtKind::Barrier(tessera_ir::Fence::All)))
        })
    });
    assert!(kernel_has_barrier);
}

#[test]
fn barrier_through_a_plain_index_is_e0407() {
    let src = program(
        r#"int main() {
            std::vector<int> v(8);
            array_view<int, 1> av(8, v);
            parallel_for_each(av.extent, [=](index<1> idx) restrict(amp) {
                av[idx] = 1;
                idx.barrier.wait();
            });
            return 0;
        }"#,
    );
    let checked = check(&src);
    assert_eq!(codes(&src), ["E0407"]);
    let d = &checked.diagnostics[0];
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.contains("tiled_index<256>")),
        "{d:#?}"
    );
    assert!(d.notes.iter().any(|n| n.contains("C2039")));
}

#[test]
fn atomic_on_a_float_or_a_private_variable_is_e0410() {
    let src = program(
        r#"int main() {
            std::vector<float> v(8);
            array_view<float, 1> av(8, v);
            parallel_for_each(av.extent, [=](index<1> idx) restrict(amp) {
                atomic_fetch_add(&av[idx], 1.0f);
                int mine = 0;
                atomic_fetch_add(&mine, 1);
                tile_static int shared;
            });
            return 0;
        }"#,
    );
    let c = codes(&src);
    assert_eq!(c.iter().filter(|c| **c == "E0410").count(), 2, "{c:?}");
    // `atomic_exchange` also takes floats.
    let ok = program(
        r#"int main() {
            std::vector<float> v(8);
            array_view<float, 1> av(8, v);
            parallel_for_each(av.extent, [=](index<1> idx) restrict(amp) {
                float old = atomic_exchange(&av[idx], 1.0f);
            });
            return 0;
        }"#,
    );
    assert_eq!(codes(&ok), Vec::<&str>::new());
}

#[test]
fn writing_through_a_const_view_is_e0205() {
    let src = program(
        r#"int main() {
            std::vector<int> v(8);
            array_view<const int, 1> cv(8, v);
            parallel_for_each(cv.extent, [=](index<1> idx) restrict(amp) {
                cv[idx] = 1;
                atomic_fetch_add(&cv[idx], 1);
            });
            std::vector<int> w(8);
            copy(w.begin(), w.end(), cv);
            return 0;
        }"#,
    );
    assert_eq!(codes(&src), ["E0205", "E0205", "E0205"]);
}

#[test]
fn cout_in_a_kernel_is_e0300() {
    let src = program(
        r#"int main() {
            std::vector<int> v(8);
            array_view<int, 1> av(8, v);
            parallel_for_each(av.extent, [=](index<1> idx) restrict(amp) {
                std::cout << av[idx];
                int m = std::max(av[idx], 2);
                av[idx] = std::sqrt(2.0);
            });
            return 0;
        }"#,
    );
    assert_eq!(codes(&src), ["E0300", "E0300", "E0300"]);
    let checked = check(&src);
    assert!(checked.diagnostics.iter().all(|d| {
        d.notes
            .iter()
            .any(|n| n.starts_with("MSVC reports this as"))
    }));
}

#[test]
fn amp_only_functions_in_host_code_are_e0301() {
    let src = program(
        r#"int helper(int x) restrict(amp, cpu) { return direct3d::imax(x, 0); }
        int main() {
            int a = direct3d::imin(1, 2);
            float b = fast_math::sqrt(2.0f);
            return helper(a) + (int)b;
        }"#,
    );
    assert_eq!(codes(&src), ["E0301", "E0301", "E0301"]);
}

#[test]
fn tile_rank_must_match_the_extent_e0213() {
    let src = program(
        r#"int main() {
            extent<2> e(8, 8);
            auto a = e.tile<4>();
            auto b = e.tile<2, 2, 2>();
            auto c = e.tile();
            auto d = e.tile<4, 4>();
            return 0;
        }"#,
    );
    assert_eq!(codes(&src), ["E0213", "E0213", "E0213"]);
    let checked = check(&src);
    assert!(
        checked.diagnostics[0]
            .notes
            .iter()
            .any(|n| n.contains("C2338"))
    );
}

#[test]
fn index_and_extent_arithmetic() {
    let src = program(
        r#"int main() {
            index<2> a(1, 2);
            index<2> b = a + index<2>(3, 4);
            b += 1;
            b = 2 * b;
            b = 10 - b;
            b++;
            --b;
            extent<2> e = extent<2>(4, 6) + a;
            bool in = e.contains(b) && e.size() > 3u && a != b;
            int c = b[0] + e[1];
            b[1] = 5;
            index<2> bad1 = a * a;
            index<2> bad2 = a + index<3>(1, 2, 3);
            index<2> bad3 = a + e;
            return c;
        }"#,
    );
    assert_eq!(codes(&src), ["E0210", "E0210", "E0210"]);
}

#[test]
fn containers_copy_and_iterators() {
    let src = program(
        r#"int main() {
            std::vector<int> v(12);
            v.push_back(1);
            unsigned long n = v.size();
            array<int, 2> a(3, 4, v.begin(), v.end());
            array<int, 2> b(extent<2>(3, 4));
            array_view<int, 2> av(b);
            array_view<int, 1> part = av[1];
            array_view<int, 2> sec = av.section(index<2>(1, 1), extent<2>(2, 2));
            array_view<int, 2> rest = av.section(index<2>(1, 1));
            copy(a, b);
            copy(a, v.begin());
            copy(v.begin(), v.end(), a);
            copy(v.begin(), av);
            std::vector<int> back = a;
            back = b;
            int x = av(1, 2) + part[0] + sec[index<2>(0, 0)] + rest.extent[0];
            return x;
        }"#,
    );
    assert_eq!(codes(&src), Vec::<&str>::new());
    let bad = program(
        r#"int main() {
            std::vector<int> v(12);
            std::vector<int> w(12);
            array<int, 1> a(12, v.begin(), w.end());
            array<int, 1> b(12, v);
            int i = v.begin() * 2;
            copy(a, v);
            return 0;
        }"#,
    );
    assert_eq!(codes(&bad), ["E0203", "E0203", "E0211", "E0203"]);
}

#[test]
fn math_families_pick_their_precision() {
    // The unqualified `sqrt` in the kernel is `precise_math::sqrt` because of
    // the `using` directive; without it, it would be `<cmath>`'s (E0300).
    let src = program(
        r#"using namespace concurrency::precise_math;
        int main() {
            std::vector<double> d(4);
            array_view<double, 1> dv(4, d);
            parallel_for_each(dv.extent, [=](index<1> i) restrict(amp) {
                float f = fast_math::pow(2.0, 3);
                double p = precise_math::sqrt(dv[i]);
                float q = precise_math::sqrtf(2);
                double u = sqrt(dv[i]);
                dv[i] = f + p + q + u;
            });
            double h = std::sqrt(2) + std::pow(2.0f, 3.0f);
            return 0;
        }"#,
    );
    let checked = check(&src);
    assert!(checked.diagnostics.is_empty(), "{:#?}", checked.diagnostics);
    let precisions: Vec<Type> = intrinsics(&checked.program)
        .into_iter()
        .filter_map(|(op, ty)| matches!(op, Intrinsic::Math(_)).then_some(ty))
        .collect();
    let float = Type::FLOAT;
    let double = Type::Scalar(tessera_ir::Scalar::Double);
    // `main` first (`std::sqrt(int)`, `std::pow(float, float)`), then the kernel.
    assert_eq!(
        precisions,
        [
            double.clone(),
            float.clone(),
            float.clone(),
            double.clone(),
            float,
            double
        ]
    );
}

#[test]
fn every_sample_checks_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "amp") {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let checked = check_with_headers(&src);
        let found: Vec<&str> = checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(found, Vec::<&str>::new(), "{}", path.display());
    }
}

/// The ids of a function's statements in program order.
fn stmt_ids(f: &tessera_ir::Function) -> Vec<u32> {
    let mut ids = Vec::new();
    if let Some(b) = &f.body {
        tessera_ir::visit::walk_block(b, &mut |s| ids.push(s.id.0), &mut |_| {});
    }
    ids
}

#[test]
fn the_checker_numbers_every_statement_and_keeps_the_numbers_of_a_prefix() {
    let body = "int s = 0; for (int i = 0; i < 3; ++i) { if (i) s += i; else { s -= 1; } }";
    let src = format!("int main() {{ {body} return s; }}\n");
    let checked = check(&src);
    assert!(!checked.has_errors(), "{:#?}", checked.diagnostics);
    for f in &checked.program.functions {
        let ids = stmt_ids(f);
        assert_eq!(ids, (0..f.stmt_count).collect::<Vec<_>>(), "{}", f.name);
    }
    let longer = format!("int main() {{ {body} s *= 2; return s; }}\n");
    let again = check(&longer);
    let (before, after) = (
        stmt_ids(&checked.program.functions[0]),
        stmt_ids(&again.program.functions[0]),
    );
    // The statements before the new one keep their ids.
    assert_eq!(after[..before.len() - 1], before[..before.len() - 1]);
}
