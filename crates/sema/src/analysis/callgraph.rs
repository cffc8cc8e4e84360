//! The call graph of user functions and the rules checked on it:
//!
//! - E0303: a function that amp code can run is recursive, directly or through
//!   a chain of calls (MSVC: C3559);
//! - E0406: a kernel launched without tiles reaches a `tile_static`
//!   declaration, in its body or in a function it calls (MSVC: C3600);
//! - E0405: the `tile_static` variables a tiled kernel can reach need more
//!   than 32 KB per tile (MSVC: C3565).
//!
//! Edges are the `ExprKind::Call`s of each body; `parallel_for_each` is not a
//! call (kernels are never called, only launched). Calls to ids the program
//! does not have are ignored.

use super::places;
use std::collections::{HashMap, HashSet, VecDeque};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::facts::{CallGraph, kernels};
use tessera_ir::{FuncId, FunctionKind, LocalId, Program, Type, layout};

/// The most `tile_static` memory one tile may use, in bytes.
pub const TILE_STATIC_LIMIT: u64 = 32 * 1024;

/// Runs the three call-graph rules.
pub fn check(program: &Program, graph: &CallGraph, out: &mut Vec<Diagnostic>) {
    check_recursion(program, graph, out);
    check_untiled_tile_static(program, graph, out);
    check_tile_static_size(program, graph, out);
}

fn name(program: &Program, f: FuncId) -> String {
    program
        .get_function(f)
        .map_or_else(|| "<unknown>".into(), |f| f.name.clone())
}

/// E0303: cycles among the functions amp code can run.
fn check_recursion(program: &Program, graph: &CallGraph, out: &mut Vec<Diagnostic>) {
    // Every kernel and every `restrict(amp)` function is a root; recursion
    // among host-only functions that amp code never reaches is fine.
    let roots = program
        .functions_with_ids()
        .filter(|(_, f)| f.restriction.amp || matches!(f.kind, FunctionKind::Kernel { .. }))
        .map(|(id, _)| id);
    let in_scope = graph.reachable(roots);
    let adj = graph.adjacency();
    for component in graph.recursive_components(&in_scope) {
        report_cycle(program, graph, &adj, &component, out);
    }
}

/// Reports one cycle of a recursive component: it starts at the function
/// declared first and is closed by a call back to it.
fn report_cycle(
    program: &Program,
    graph: &CallGraph,
    adj: &[Vec<usize>],
    component: &[usize],
    out: &mut Vec<Diagnostic>,
) {
    let members: HashSet<usize> = component.iter().copied().collect();
    let position = |v: usize| {
        let span = program
            .get_function(FuncId(v as u32))
            .map(|f| f.span)
            .unwrap_or_default();
        (span.file, span.start, v)
    };
    let Some(&start) = component.iter().min_by_key(|&&v| position(v)) else {
        return;
    };
    // Shortest way round: breadth first from `start` until a node calls `start`.
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut seen = HashSet::from([start]);
    let mut closer = None;
    while let Some(v) = queue.pop_front() {
        if adj[v].contains(&start) {
            closer = Some(v);
            break;
        }
        for &w in &adj[v] {
            if members.contains(&w) && seen.insert(w) {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    let Some(last) = closer else { return };
    let mut cycle = vec![last];
    let mut cur = last;
    while cur != start {
        let Some(&p) = parent.get(&cur) else { break };
        cycle.push(p);
        cur = p;
    }
    cycle.reverse();
    let ids: Vec<FuncId> = cycle.iter().map(|&v| FuncId(v as u32)).collect();
    let start_id = FuncId(start as u32);
    let last_id = FuncId(last as u32);
    let Some(&(_, closing)) = graph.calls(last_id).iter().find(|(c, _)| *c == start_id) else {
        return;
    };
    let start_name = name(program, start_id);
    let message = if ids.len() == 1 {
        format!("recursion in amp code: `{start_name}` calls itself")
    } else {
        let chain: Vec<String> = ids
            .iter()
            .skip(1)
            .chain(std::iter::once(&start_id))
            .map(|&f| format!("`{}`", name(program, f)))
            .collect();
        format!(
            "recursion in amp code: `{start_name}` calls {}",
            chain.join(", which calls ")
        )
    };
    let mut d = Diagnostic::error(codes::E0303, closing, message).with_label(if ids.len() == 1 {
        "recursive call".to_string()
    } else {
        format!("this call back to `{start_name}` closes the cycle")
    });
    for (i, &f) in ids.iter().enumerate() {
        let callee = ids.get(i + 1).copied().unwrap_or(start_id);
        let Some(func) = program.get_function(f) else {
            continue;
        };
        let label = if callee == f {
            "calls itself".to_string()
        } else {
            format!("calls `{}`", name(program, callee))
        };
        d = d.with_secondary(func.span, label);
    }
    out.push(
        d.with_note("a kernel is compiled by inlining every function it calls, and a recursive call cannot be inlined")
            .with_msvc("C3559")
            .with_help("rewrite the recursion as a loop (keep pending work in a local array if needed)"),
    );
}

/// E0406: `tile_static` declarations a kernel launched without tiles can reach.
fn check_untiled_tile_static(program: &Program, graph: &CallGraph, out: &mut Vec<Diagnostic>) {
    let mut reported: HashSet<(FuncId, LocalId)> = HashSet::new();
    for (kernel, tile) in kernels(program) {
        let Some(kfunc) = program.get_function(kernel) else {
            continue;
        };
        // A launch whose domain did not check has no tile shape either; its
        // kernel's parameter tells whether a tiled launch was meant.
        let untiled =
            tile.is_none() && matches!(kfunc.locals.first().map(|l| &l.ty), Some(Type::Index(_)));
        if !untiled {
            continue;
        }
        let reached = graph.reach(kernel);
        for (at, r) in reached.iter().enumerate() {
            let Some(func) = program.get_function(r.func) else {
                continue;
            };
            for (local, decl_span) in places::tile_static_decls(func) {
                if !reported.insert((r.func, local)) {
                    continue;
                }
                let var = func
                    .get_local(local)
                    .map_or_else(String::new, |l| l.name.clone());
                let mut d = Diagnostic::error(
                    codes::E0406,
                    decl_span,
                    format!(
                        "`tile_static` variable `{var}` is used by a kernel launched without tiles"
                    ),
                )
                .with_label("`tile_static` declaration")
                .with_secondary(
                    kfunc.span,
                    "this kernel is launched over a plain `extent`, without tiles",
                );
                for (callee, span) in CallGraph::path(&reached, at) {
                    d = d.with_secondary(span, format!("calls `{}`", name(program, callee)));
                }
                out.push(
                    d.with_note("`tile_static` memory is shared by the work-items of a tile; a launch without tiles has none, and C++ AMP leaves the result undefined")
                        .with_msvc("C3600")
                        .with_help("launch over a tiled extent (`e.tile<64>()`) with a `tiled_index` parameter, or use an ordinary local variable"),
                );
            }
        }
    }
}

/// E0405: the `tile_static` bytes of each tiled kernel, its callees included.
fn check_tile_static_size(program: &Program, graph: &CallGraph, out: &mut Vec<Diagnostic>) {
    let mut reported: HashSet<Span> = HashSet::new();
    for (kernel, tile) in kernels(program) {
        if tile.is_none() {
            continue;
        }
        let Some(kfunc) = program.get_function(kernel) else {
            continue;
        };
        // Each function counts once, however often it is called.
        let mut decls: Vec<(String, Span, u64)> = Vec::new();
        for r in graph.reach(kernel) {
            let Some(func) = program.get_function(r.func) else {
                continue;
            };
            for (local, span) in places::tile_static_decls(func) {
                let Some(l) = func.get_local(local) else {
                    continue;
                };
                // A type without a plain layout cannot be shared; it adds nothing.
                let (size, _) = layout::size_align_u64(&program.structs, &l.ty).unwrap_or((0, 1));
                decls.push((l.name.clone(), span, size));
            }
        }
        let total = decls.iter().fold(0u64, |acc, d| acc.saturating_add(d.2));
        if total <= TILE_STATIC_LIMIT {
            continue;
        }
        let Some(largest) = decls
            .iter()
            .max_by_key(|d| (d.2, std::cmp::Reverse(d.1.start)))
        else {
            continue;
        };
        if !reported.insert(largest.1) {
            continue;
        }
        let mut d = Diagnostic::error(codes::E0405, largest.1, format!("the `tile_static` variables of this kernel need {total} bytes per tile, more than the limit of {TILE_STATIC_LIMIT}"))
            .with_label(format!("`{}` takes {} bytes", largest.0, largest.2));
        for other in decls.iter().filter(|d| d.1 != largest.1 && d.2 > 0) {
            d = d.with_secondary(other.1, format!("`{}` takes {} bytes", other.0, other.2));
        }
        out.push(
            d.with_secondary(kfunc.span, "in this kernel")
                .with_note(format!("the kernel uses {total} bytes of `tile_static` memory per tile; the limit is {TILE_STATIC_LIMIT} bytes"))
                .with_msvc("C3565")
                .with_help("size `tile_static` arrays by the tile, not by the data; process larger data in rounds with a barrier between them"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use tessera_ir::Type;

    // --- recursion ---

    #[test]
    fn direct_recursion_in_amp_code() {
        let f = plain(
            "f",
            true,
            1,
            vec![private("n")],
            Type::INT,
            vec![s_return_value(call(1, vec![ivar(0)], Type::INT))],
        );
        let p = program(vec![main_launching(&[]), f]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0303");
        assert!(
            d[0].message.contains("`f` calls itself"),
            "{}",
            d[0].message
        );
        assert_eq!(d[0].secondary.len(), 1);
        assert_eq!(d[0].secondary[0].message, "calls itself");
        assert!(d[0].notes.iter().any(|n| n.contains("C3559")));
        assert!(d[0].help.as_deref().is_some_and(|h| h.contains("loop")));
    }

    #[test]
    fn recursion_through_a_chain_is_reported_once_at_the_closing_call() {
        // f (1) -> g (2) -> h (3) -> f
        let f = plain(
            "f",
            true,
            0,
            vec![],
            Type::INT,
            vec![s_return_value(call(2, vec![], Type::INT))],
        );
        let g = plain(
            "g",
            true,
            0,
            vec![],
            Type::INT,
            vec![s_return_value(call(3, vec![], Type::INT))],
        );
        let closing = call(1, vec![], Type::INT);
        let closing_span = closing.span;
        let h = plain(
            "h",
            true,
            0,
            vec![],
            Type::INT,
            vec![s_return_value(closing)],
        );
        let p = program(vec![main_launching(&[]), f, g, h]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0303");
        assert_eq!(d[0].primary.span, closing_span);
        assert_eq!(
            d[0].message,
            "recursion in amp code: `f` calls `g`, which calls `h`, which calls `f`"
        );
        let labels: Vec<&str> = d[0].secondary.iter().map(|l| l.message.as_str()).collect();
        assert_eq!(labels, ["calls `g`", "calls `h`", "calls `f`"]);
    }

    #[test]
    fn recursion_reached_from_a_kernel_through_a_host_function_is_reported() {
        // The kernel calls a host function (an E0300 the lowering reports); it recurses.
        let h = plain(
            "h",
            false,
            0,
            vec![],
            Type::INT,
            vec![s_return_value(call(2, vec![], Type::INT))],
        );
        let k = kernel(
            None,
            vec![],
            vec![],
            vec![s_expr(call(2, vec![], Type::INT))],
        );
        let p = program(vec![main_launching(&[1]), k, h]);
        assert_eq!(ir_codes(&p), ["E0303"]);
    }

    #[test]
    fn host_recursion_is_fine() {
        let f = plain(
            "f",
            false,
            1,
            vec![private("n")],
            Type::INT,
            vec![s_return_value(call(1, vec![ivar(0)], Type::INT))],
        );
        let p = program(vec![main_launching(&[]), f]);
        assert!(ir_codes(&p).is_empty());
    }

    #[test]
    fn calls_to_missing_functions_are_ignored() {
        let f = plain(
            "f",
            true,
            0,
            vec![],
            Type::INT,
            vec![s_expr(call(99, vec![ivar(7)], Type::Error))],
        );
        let p = program(vec![main_launching(&[5]), f]);
        assert!(ir_codes(&p).is_empty());
    }

    // --- tile_static without tiles ---

    #[test]
    fn tile_static_in_a_kernel_without_tiles() {
        let k = kernel(
            None,
            vec![],
            vec![shared("cache", floats(64))],
            vec![s_decl(1)],
        );
        let p = program(vec![main_launching(&[1]), k]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0406");
        assert!(d[0].notes.iter().any(|n| n.contains("C3600")));
    }

    #[test]
    fn tile_static_in_a_helper_of_a_kernel_without_tiles() {
        let helper = plain(
            "helper",
            true,
            0,
            vec![shared("cache", floats(4))],
            Type::Void,
            vec![s_decl(0)],
        );
        let k = kernel(
            None,
            vec![],
            vec![],
            vec![s_expr(call(2, vec![], Type::Void))],
        );
        let p = program(vec![main_launching(&[1]), k, helper]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0406");
        assert!(
            d[0].secondary.iter().any(|l| l.message == "calls `helper`"),
            "{:#?}",
            d[0].secondary
        );
    }

    #[test]
    fn tile_static_in_a_tiled_kernel_is_fine() {
        let k = kernel(
            Some(tile1(64)),
            vec![],
            vec![shared("cache", floats(64))],
            vec![s_decl(1)],
        );
        let p = program(vec![main_launching(&[1]), k]);
        assert!(ir_codes(&p).is_empty());
    }

    // --- tile_static size ---

    #[test]
    fn tile_static_memory_over_the_limit() {
        let k = kernel(
            Some(tile1(256)),
            vec![],
            vec![shared("cache", floats(8193))],
            vec![s_decl(1)],
        );
        let p = program(vec![main_launching(&[1]), k]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0405");
        assert!(d[0].message.contains("32772"), "{}", d[0].message);
        assert!(d[0].notes.iter().any(|n| n.contains("C3565")));
    }

    #[test]
    fn tile_static_memory_at_the_limit_is_fine() {
        let k = kernel(
            Some(tile1(256)),
            vec![],
            vec![shared("cache", floats(8192))],
            vec![s_decl(1)],
        );
        let p = program(vec![main_launching(&[1]), k]);
        assert!(ir_codes(&p).is_empty());
    }

    #[test]
    fn helpers_count_once_towards_the_limit() {
        // 8000 floats in the kernel, 200 in a helper called twice: 32800 bytes.
        let helper = plain(
            "helper",
            true,
            0,
            vec![shared("extra", floats(200))],
            Type::Void,
            vec![s_decl(0)],
        );
        let k = kernel(
            Some(tile1(256)),
            vec![],
            vec![shared("cache", floats(8000))],
            vec![
                s_decl(1),
                s_expr(call(2, vec![], Type::Void)),
                s_expr(call(2, vec![], Type::Void)),
            ],
        );
        let big = k.body.as_ref().map(|b| b.stmts[0].span);
        let p = program(vec![main_launching(&[1]), k, helper]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0405");
        assert_eq!(Some(d[0].primary.span), big);
        assert!(d[0].message.contains("32800"), "{}", d[0].message);
    }

    #[test]
    fn struct_sizes_follow_c_layout() {
        use tessera_ir::{Program, Scalar, StructDef, StructId};
        let size_align = |ty: &Type, p: &Program| {
            tessera_ir::layout::size_align_u64(&p.structs, ty).unwrap_or((0, 1))
        };
        let mut p = Program::default();
        p.structs.push(StructDef {
            name: "A".into(),
            fields: vec![
                ("c".into(), Type::Scalar(Scalar::Char)),
                ("d".into(), Type::Scalar(Scalar::Double)),
            ],
            is_union: false,
            span: sp(),
        });
        p.structs.push(StructDef {
            name: "B".into(),
            fields: vec![
                ("i".into(), Type::INT),
                ("c".into(), Type::Scalar(Scalar::Char)),
            ],
            is_union: false,
            span: sp(),
        });
        p.structs.push(StructDef {
            name: "Loop".into(),
            fields: vec![("me".into(), Type::Struct(StructId(2)))],
            is_union: false,
            span: sp(),
        });
        assert_eq!(size_align(&Type::Struct(StructId(0)), &p), (16, 8));
        assert_eq!(size_align(&Type::Struct(StructId(1)), &p), (8, 4));
        assert_eq!(
            size_align(&Type::CArray(Box::new(Type::Struct(StructId(1))), 3), &p),
            (24, 4)
        );
        assert_eq!(size_align(&Type::Struct(StructId(9)), &p), (0, 1));
        // A struct containing itself cannot be written; a malformed one does not hang.
        assert_eq!(size_align(&Type::Struct(StructId(2)), &p).0, 0);
        // An empty struct takes a byte, as in C++.
        p.structs.push(StructDef {
            name: "E".into(),
            fields: vec![],
            is_union: false,
            span: sp(),
        });
        assert_eq!(size_align(&Type::Struct(StructId(3)), &p), (1, 1));
    }

    // --- from source ---

    #[test]
    fn recursion_from_source() {
        let src = "int f(int n) restrict(amp) { return n < 2 ? n : f(n - 1) + f(n - 2); }\nint main() { return 0; }\n";
        assert_eq!(src_codes(src), ["E0303"]);
    }

    #[test]
    fn indirect_recursion_from_source() {
        let src = "int g(int n) restrict(amp);\n\
                   int f(int n) restrict(amp) { return g(n); }\n\
                   int g(int n) restrict(amp) { return n > 0 ? f(n - 1) : 0; }\n\
                   int main() { return 0; }\n";
        let d = check_src(src);
        assert_eq!(
            d.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
            ["E0303"]
        );
        // `g`'s definition comes after `f`'s, so the cycle starts at `f`.
        assert!(
            d[0].message.contains("`f` calls `g`, which calls `f`"),
            "{}",
            d[0].message
        );
    }

    #[test]
    fn host_recursion_from_source_is_fine() {
        let src = "int f(int n) { return n > 0 ? f(n - 1) : 0; }\nint main() { return f(3); }\n";
        assert!(src_codes(src).is_empty());
    }

    #[test]
    fn recursion_docs_example() {
        let src = "#include <amp.h>\nusing namespace concurrency;\n\
                   int fibonacci(int n) restrict(amp) {\n    return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);\n}\n\
                   void fill(array_view<int, 1> out) {\n\
                       parallel_for_each(out.extent, [=](index<1> idx) restrict(amp) {\n\
                           out[idx] = fibonacci(idx[0]);\n    });\n}\n";
        assert_eq!(src_codes(src), ["E0303"]);
    }

    #[test]
    fn untiled_tile_static_docs_example() {
        let src = "#include <amp.h>\nusing namespace concurrency;\n\
                   void shift_left(array_view<const int, 1> in, array_view<int, 1> out) {\n\
                       parallel_for_each(out.extent, [=](index<1> idx) restrict(amp) {\n\
                           tile_static int cache[64];\n\
                           cache[idx[0] % 64] = in[idx];\n\
                           out[idx] = cache[(idx[0] + 1) % 64];\n    });\n}\n";
        assert_eq!(src_codes(src), ["E0406"]);
    }

    #[test]
    fn untiled_tile_static_through_a_helper_from_source() {
        let src = "#include <amp.h>\nusing namespace concurrency;\n\
                   int helper(int x) restrict(amp) { tile_static int cache[4]; cache[0] = x; return cache[0]; }\n\
                   void run(array_view<int, 1> out) {\n\
                       parallel_for_each(out.extent, [=](index<1> idx) restrict(amp) { out[idx] = helper(idx[0]); });\n}\n";
        assert_eq!(src_codes(src), ["E0406"]);
    }

    #[test]
    fn tile_static_size_docs_example() {
        let src = "#include <amp.h>\nusing namespace concurrency;\n#define N 16384\n#define TILE 256\n\
                   void reverse_tiles(array_view<float, 1> data) {\n\
                       parallel_for_each(extent<1>(N).tile<TILE>(), [=](tiled_index<TILE> t) restrict(amp) {\n\
                           tile_static float cache[N];\n\
                           cache[t.global[0]] = data[t.global];\n\
                           t.barrier.wait();\n\
                           data[t.global] = cache[t.tile_origin[0] + TILE - 1 - t.local[0]];\n    });\n}\n";
        let d = check_src(src);
        assert_eq!(
            d.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
            ["E0405"]
        );
        assert!(d[0].message.contains("65536"), "{}", d[0].message);
    }

    #[test]
    fn tile_static_size_docs_fix() {
        let src = "#include <amp.h>\nusing namespace concurrency;\n#define N 16384\n#define TILE 256\n\
                   void reverse_tiles(array_view<float, 1> data) {\n\
                       parallel_for_each(extent<1>(N).tile<TILE>(), [=](tiled_index<TILE> t) restrict(amp) {\n\
                           tile_static float cache[TILE];\n\
                           cache[t.local[0]] = data[t.global];\n\
                           t.barrier.wait();\n\
                           data[t.global] = cache[TILE - 1 - t.local[0]];\n    });\n}\n";
        assert!(src_codes(src).is_empty());
    }
}
