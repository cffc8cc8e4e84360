//! Whole-program rules, checked on the typed program after lowering.
//!
//! - [`callgraph`]: recursion (E0303), `tile_static` in kernels launched
//!   without tiles (E0406), `tile_static` bytes per tile (E0405);
//! - [`uniformity`]: which values are the same for every work-item of a tile;
//! - [`divergence`]: barriers under divergent conditions (E0408) and early
//!   exits that skip barriers (E0409);
//! - [`races`]: warnings about `tile_static` races and reads of unwritten
//!   `tile_static` variables (W0411, W0412, W0413);
//! - [`work_items`]: index values in each work-item of a tile, for [`races`].
//!
//! The program may contain `Type::Error` nodes and, when built by hand, ids
//! that point nowhere: every lookup is checked (the `get_` accessors of
//! `tessera_ir`), nothing panics. The call graph, barrier facts and walkers
//! are `tessera_ir`'s (`facts`, `visit`); [`places`] has what only these rules
//! need.

pub mod callgraph;
pub mod divergence;
pub mod places;
pub mod races;
pub mod uniformity;
pub mod work_items;

#[cfg(test)]
mod testing;

use std::collections::HashSet;
use tessera_diagnostics::{Diagnostic, codes};
use tessera_ir::facts::{self, BarrierRule, Barriers, CallGraph};
use tessera_ir::{ExprKind, FuncId, Program, visit};

/// Runs every analysis.
pub fn analyse(program: &Program, diags: &mut Vec<Diagnostic>) {
    let graph = CallGraph::build(program);
    let mut found = Vec::new();
    undefined_calls(program, &mut found);
    callgraph::check(program, &graph, &mut found);
    let barriers = Barriers::find(program, &graph, BarrierRule::Written);
    let tiled: Vec<uniformity::Uniformity<'_>> = facts::kernels(program)
        .into_iter()
        .filter(|(_, tile)| tile.is_some())
        .map(|(kernel, _)| uniformity::Uniformity::analyse(program, &graph, kernel))
        .collect();
    divergence::check(program, &graph, &barriers, &tiled, &mut found);
    races::check(program, &barriers, &tiled, &mut found);
    // A function that several kernels call is analysed once per kernel.
    let mut seen = HashSet::new();
    for d in found {
        if seen.insert((d.code, d.primary.span)) {
            diags.push(d);
        }
    }
}

/// E0216: calls of functions that were declared but never defined, and
/// pointers to them (one report per function, at its first use).
fn undefined_calls(program: &Program, found: &mut Vec<Diagnostic>) {
    let mut reported: HashSet<FuncId> = HashSet::new();
    let mut look = |e: &tessera_ir::Expr| {
        let (func, label) = match &e.kind {
            ExprKind::Call { func, .. } => (*func, "called here"),
            ExprKind::FuncAddr(Some(func)) => (*func, "pointed to here"),
            _ => return,
        };
        if let Some(callee) = program.get_function(func)
            && callee.body.is_none()
            && reported.insert(func)
        {
            found.push(
                Diagnostic::error(
                    codes::E0216,
                    e.span,
                    format!("`{}` is declared but never defined", callee.name),
                )
                .with_label(label)
                .with_secondary(callee.span, "declared here, without a body")
                .with_help(
                    "write its body, e.g. after `main`: Tessera needs the definition to run it",
                )
                .with_note("a C++ compiler accepts the call (so does `tessera check`); building the program fails (g++: undefined reference)"),
            );
        }
    };
    for g in &program.globals {
        if let Some(init) = &g.init {
            visit::for_each_init_expr(init, &mut |e| visit::for_each_subexpr(e, &mut look));
        }
    }
    for f in &program.functions {
        let Some(body) = &f.body else { continue };
        visit::for_each_expr_deep(body, &mut look);
    }
}

#[cfg(test)]
mod tests {
    use super::testing::check_src;

    /// The codes the analyses report.
    const OURS: [&str; 8] = [
        "E0303", "E0405", "E0406", "E0408", "E0409", "W0411", "W0412", "W0413",
    ];

    #[test]
    fn samples_are_clean() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.retain(|p| p.extension().is_some_and(|e| e == "amp"));
        entries.sort();
        assert!(!entries.is_empty(), "no samples in {}", dir.display());
        for path in entries {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let found: Vec<_> = check_src(&text)
                .into_iter()
                .filter(|d| OURS.contains(&d.code.as_str()))
                .collect();
            assert!(found.is_empty(), "{}: {found:#?}", path.display());
        }
    }
}

#[cfg(test)]
mod stress {
    use super::testing::check_src;

    /// A tiled kernel around `body`.
    fn kernel(body: &str) -> String {
        format!(
            "#include <amp.h>\nusing namespace concurrency;\n\
             void run(array_view<int, 1> out, int x) {{\n\
             parallel_for_each(out.extent.tile<16>(), [=](tiled_index<16> t) restrict(amp) {{\n\
             tile_static int s[16];\n{body}\n}});\n}}\n"
        )
    }

    #[test]
    fn deep_nesting_is_handled() {
        let depth = 120;
        let mut body = String::new();
        for i in 0..depth {
            match i % 4 {
                0 => body.push_str("if (t.local[0] > x) {\n"),
                1 => body.push_str("for (int i = 0; i < x; i++) {\n"),
                2 => body.push_str("switch (x) { case 1: {\n"),
                _ => body.push_str("while (x > 3) {\n"),
            }
        }
        body.push_str("s[0] += 1; t.barrier.wait(); if (t.global[0] == 2) { return; }\n");
        for i in (0..depth).rev() {
            body.push_str(if i % 4 == 2 { "} break; }\n" } else { "}\n" });
        }
        let expr = format!("{}t.local[0]{}", "(1 + ".repeat(depth), ")".repeat(depth));
        body.push_str(&format!("out[t.global] = {expr};\n"));
        // On a stack like the one the CLI gives the compiler (debug builds
        // take far more stack per nested statement than release ones).
        let codes: Vec<&str> = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                check_src(&kernel(&body))
                    .iter()
                    .map(|d| d.code.as_str())
                    .collect()
            })
            .expect("spawn the checking thread")
            .join()
            .expect("checking finished");
        assert!(codes.contains(&"E0408"), "{codes:?}");
        assert!(codes.contains(&"E0409"), "{codes:?}");
    }
}

#[cfg(test)]
mod deep_ir {
    use super::testing::*;
    use tessera_ir::{BinOp, TiledIndexPart, Type};

    /// Deeper than any checked program (the syntax tree's height is at most
    /// 400, lowering adds a conversion node or two per level). The CLI runs
    /// the compiler on a 256 MB stack; a debug build of the analyses needs
    /// about 2 KB per level, so this runs on a 32 MB one.
    #[test]
    fn deep_programs_do_not_overflow() {
        let worker = std::thread::Builder::new()
            .stack_size(32 << 20)
            .spawn(deep_program);
        assert!(worker.is_ok_and(|w| w.join().is_ok()));
    }

    fn deep_program() {
        let mut value = local0(64);
        for i in 0..1200 {
            value = bin(
                if i % 2 == 0 { BinOp::Add } else { BinOp::Mul },
                value,
                ivar(1),
            );
        }
        let mut body = vec![
            s_expr(assign(ivar(1), value)),
            s_expr(compound(BinOp::Add, var(2, Type::INT), ivar(1))),
            s_barrier(),
            s_if(bin(BinOp::Eq, ivar(1), int(0)), vec![s_return()], None),
            s_barrier(),
        ];
        for i in 0..400 {
            body = match i % 4 {
                0 => vec![s_if(bin(BinOp::Gt, ivar(1), int(0)), body, None)],
                1 => vec![s_for(3, int(0), cap(0, Type::INT), int(1), body)],
                2 => vec![s_switch(cap(0, Type::INT), vec![(Some(1), body)])],
                _ => vec![s_block(body)],
            };
        }
        body.insert(0, s_decl(2));
        let p = tiled_program(
            64,
            vec![private("x"), shared("s", Type::INT), private("i")],
            body,
        );
        let codes = ir_codes(&p);
        assert!(
            codes.contains(&"E0408") && codes.contains(&"E0409"),
            "{codes:?}"
        );
        let _ = part(TiledIndexPart::Tile, tile1(64));
    }
}
