//! Tests of the barrier rules (E0408, E0409) and of the uniformity they use.

use super::super::testing::*;
use tessera_ir::facts::CallGraph;
use tessera_ir::{AtomicOp, BinOp, Capture, Expr, ExprKind, LocalId, Space, TiledIndexPart, Type};

const N: u32 = 64;

fn eq0(e: Expr) -> Expr {
    bin(BinOp::Eq, e, int(0))
}

fn codes_of(more: Vec<tessera_ir::Local>, body: Vec<tessera_ir::Stmt>) -> Vec<&'static str> {
    ir_codes(&tiled_program(N, more, body))
}

// --- E0408 ---

#[test]
fn barrier_under_local_condition() {
    let cond = eq0(local0(N));
    let cond_span = cond.span;
    let p = tiled_program(N, vec![], vec![s_if(cond, vec![s_barrier()], None)]);
    let d = ir_diags(&p);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code.as_str(), "E0408");
    assert!(
        d[0].secondary
            .iter()
            .any(|l| l.span == cond_span && l.message.contains("differs between work-items"))
    );
    assert!(
        d[0].secondary.iter().any(|l| l.message.contains("`local`")),
        "{:#?}",
        d[0].secondary
    );
    assert!(
        d[0].help
            .as_deref()
            .is_some_and(|h| h.contains("move the barrier out of the condition"))
    );
    assert!(d[0].notes.iter().any(|n| n.contains("C3561")));
}

#[test]
fn barrier_under_tile_condition_is_fine() {
    assert!(codes_of(vec![], vec![s_if(eq0(tile0(N)), vec![s_barrier()], None)]).is_empty());
}

#[test]
fn barrier_under_capture_condition_is_fine() {
    let body = vec![s_if(
        bin(BinOp::Gt, cap(0, Type::INT), int(2)),
        vec![s_barrier()],
        Some(vec![s_barrier()]),
    )];
    assert!(codes_of(vec![], body).is_empty());
}

#[test]
fn non_uniformity_flows_through_locals() {
    // int x = t.local[0]; int y = x * 2; if (y == 0) barrier;
    let source = local0(N);
    let source_span = match &source.kind {
        ExprKind::Intrinsic { args, .. } => args[0].span,
        _ => source.span,
    };
    let p = tiled_program(
        N,
        vec![private("x"), private("y")],
        vec![
            s_let(1, source),
            s_let(2, bin(BinOp::Mul, ivar(1), int(2))),
            s_if(eq0(ivar(2)), vec![s_barrier()], None),
        ],
    );
    let d = ir_diags(&p);
    assert_eq!(
        d.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
        ["E0408"]
    );
    assert!(
        d[0].secondary.iter().any(|l| l.span == source_span),
        "{:#?}",
        d[0].secondary
    );
}

#[test]
fn assignment_order_does_not_matter() {
    // The use comes first in program order; the loop brings the assignment
    // of the previous iteration back to it.
    let body = vec![
        s_let(1, int(0)),
        s_for(
            2,
            int(0),
            int(4),
            int(1),
            vec![
                s_if(eq0(ivar(1)), vec![s_barrier()], None),
                s_expr(assign(ivar(1), local0(N))),
            ],
        ),
    ];
    assert_eq!(codes_of(vec![private("x"), private("k")], body), ["E0408"]);
}

#[test]
fn tiled_loop_with_barriers_is_fine() {
    // for (int k = 0; k < n; k += 16) { ...; barrier; ...; barrier; }
    let body = vec![s_for(
        1,
        int(0),
        cap(0, Type::INT),
        int(16),
        vec![
            s_expr(assign(elem(var(2, floats(N)), local0(N)), float(1.0))),
            s_barrier(),
            s_barrier(),
        ],
    )];
    let more = vec![private("k"), shared("cache", floats(N))];
    let mut p = tiled_program(N, more, body);
    if let Some(b) = p.functions[1].body.as_mut() {
        b.stmts.insert(0, s_decl(2));
    }
    assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
}

#[test]
fn loop_bound_from_global_is_divergent() {
    let body = vec![s_for(
        1,
        int(0),
        comp(part(TiledIndexPart::Global, tile1(N)), 0),
        int(1),
        vec![s_barrier()],
    )];
    assert_eq!(codes_of(vec![private("k")], body), ["E0408"]);
}

#[test]
fn counter_changed_under_divergent_condition_is_divergent() {
    // for (k = 0; k < 4; k++) { if (t.local[0] == 0) k++; barrier; }
    let body = vec![s_for(
        1,
        int(0),
        int(4),
        int(1),
        vec![
            s_if(eq0(local0(N)), vec![s_expr(inc(ivar(1)))], None),
            s_barrier(),
        ],
    )];
    assert_eq!(codes_of(vec![private("k")], body), ["E0408"]);
}

#[test]
fn guarded_write_before_a_barrier_is_fine() {
    // if (t.local[0] == 0) total = data[t.tile]; barrier;
    let body = vec![
        s_decl(1),
        s_if(
            eq0(local0(N)),
            vec![s_expr(assign(
                var(1, float_ty()),
                view_elem(
                    cap(1, float_view()),
                    part(TiledIndexPart::Tile, tile1(N)),
                    float_ty(),
                ),
            ))],
            None,
        ),
        s_barrier(),
    ];
    assert!(codes_of(vec![shared("total", float_ty())], body).is_empty());
}

#[test]
fn guarded_private_write_makes_the_local_divergent() {
    // int x = 0; if (t.local[0] == 0) x = 1; if (x) barrier;
    let body = vec![
        s_let(1, int(0)),
        s_if(eq0(local0(N)), vec![s_expr(assign(ivar(1), int(1)))], None),
        s_if(eq0(ivar(1)), vec![s_barrier()], None),
    ];
    assert_eq!(codes_of(vec![private("x")], body), ["E0408"]);
}

#[test]
fn tile_static_reads_at_uniform_positions_are_uniform() {
    // tile_static int flag[4]; if (t.local[0] == 0) flag[0] = data...; barrier; if (flag[0]) barrier;
    let arr = Type::CArray(Box::new(Type::INT), 4);
    let body = vec![
        s_decl(1),
        s_if(
            eq0(local0(N)),
            vec![s_expr(assign(elem(var(1, arr.clone()), int(0)), local0(N)))],
            None,
        ),
        s_barrier(),
        s_if(
            eq0(elem(var(1, arr.clone()), int(0))),
            vec![s_barrier()],
            None,
        ),
    ];
    assert!(codes_of(vec![shared("flag", arr.clone())], body).is_empty());
    let body = vec![
        s_decl(1),
        s_expr(assign(elem(var(1, arr.clone()), local0(N)), int(1))),
        s_barrier(),
        s_if(
            eq0(elem(var(1, arr.clone()), local0(N))),
            vec![s_barrier()],
            None,
        ),
    ];
    assert_eq!(codes_of(vec![shared("flag", arr)], body), ["E0408"]);
}

#[test]
fn view_reads_depend_on_the_position() {
    let at_tile = view_elem(
        cap(1, float_view()),
        part(TiledIndexPart::Tile, tile1(N)),
        float_ty(),
    );
    let body = vec![s_if(
        bin(BinOp::Gt, at_tile, float(0.0)),
        vec![s_barrier()],
        None,
    )];
    assert!(codes_of(vec![], body).is_empty());
    let at_global = view_elem(
        cap(1, float_view()),
        part(TiledIndexPart::Global, tile1(N)),
        float_ty(),
    );
    let body = vec![s_if(
        bin(BinOp::Gt, at_global, float(0.0)),
        vec![s_barrier()],
        None,
    )];
    assert_eq!(codes_of(vec![], body), ["E0408"]);
}

#[test]
fn atomic_results_are_divergent() {
    let arr = Type::CArray(Box::new(Type::INT), 1);
    let old = atomic(AtomicOp::Add, elem(var(1, arr.clone()), int(0)), int(1));
    let body = vec![
        s_decl(1),
        s_let(2, old),
        s_if(eq0(ivar(2)), vec![s_barrier()], None),
    ];
    let d = ir_diags(&tiled_program(
        N,
        vec![shared("count", arr), private("old")],
        body,
    ));
    assert_eq!(
        d.iter().filter(|d| d.code.as_str() == "E0408").count(),
        1,
        "{d:#?}"
    );
    assert!(
        d.iter()
            .any(|d| d.secondary.iter().any(|l| l.message.contains("atomic")))
    );
}

#[test]
fn divergent_switch_around_a_barrier() {
    let body = vec![s_switch(
        local0(N),
        vec![(Some(0), vec![s_barrier(), s_break()]), (None, vec![])],
    )];
    assert_eq!(codes_of(vec![], body), ["E0408"]);
    let body = vec![s_switch(
        cap(0, Type::INT),
        vec![
            (Some(0), vec![s_barrier(), s_break()]),
            (None, vec![s_barrier()]),
        ],
    )];
    assert!(codes_of(vec![], body).is_empty());
}

#[test]
fn one_error_per_divergent_condition() {
    let body = vec![s_if(
        eq0(local0(N)),
        vec![s_barrier(), s_if(eq0(tile0(N)), vec![s_barrier()], None)],
        None,
    )];
    assert_eq!(codes_of(vec![], body), ["E0408"]);
}

#[test]
fn short_circuit_before_a_waiting_call() {
    // t.local[0] == 0 && sync(t)   where sync waits at a barrier
    let tile = Type::TiledIndex(tile1(N));
    let sync = plain(
        "sync",
        true,
        1,
        vec![loc("t", tile.clone(), Space::Private)],
        Type::BOOL,
        vec![s_barrier(), s_return_value(int(1))],
    );
    let and = Expr {
        kind: ExprKind::Logical {
            and: true,
            lhs: Box::new(eq0(local0(N))),
            rhs: Box::new(call(2, vec![var(0, tile)], Type::BOOL)),
        },
        ty: Type::BOOL,
        place: false,
        span: sp(),
    };
    let k = kernel(Some(tile1(N)), vec![], vec![], vec![s_expr(and)]);
    let p = program(vec![main_launching(&[1]), k, sync]);
    assert_eq!(ir_codes(&p), ["E0408"]);
}

// --- helpers ---

#[test]
fn call_of_a_waiting_helper_under_a_divergent_condition() {
    let tile = Type::TiledIndex(tile1(N));
    let helper = plain(
        "sync",
        true,
        1,
        vec![loc("t", tile.clone(), Space::Private)],
        Type::Void,
        vec![s_barrier()],
    );
    let barrier_span = helper.body.as_ref().map(|b| b.stmts[0].span);
    let k = kernel(
        Some(tile1(N)),
        vec![],
        vec![],
        vec![s_if(
            eq0(local0(N)),
            vec![s_expr(call(2, vec![var(0, tile)], Type::Void))],
            None,
        )],
    );
    let p = program(vec![main_launching(&[1]), k, helper]);
    let d = ir_diags(&p);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code.as_str(), "E0408");
    assert!(d[0].primary.message.contains("`sync` waits at a barrier"));
    assert!(d[0].secondary.iter().any(|l| Some(l.span) == barrier_span));
}

#[test]
fn call_of_a_waiting_helper_under_a_uniform_loop_is_fine() {
    let tile = Type::TiledIndex(tile1(N));
    let helper = plain(
        "sync",
        true,
        1,
        vec![loc("t", tile.clone(), Space::Private)],
        Type::Void,
        vec![s_barrier()],
    );
    let k = kernel(
        Some(tile1(N)),
        vec![int_capture("x")],
        vec![private("i")],
        vec![s_for(
            1,
            int(0),
            cap(0, Type::INT),
            int(1),
            vec![s_switch(
                cap(0, Type::INT),
                vec![(
                    Some(1),
                    vec![s_expr(call(2, vec![var(0, tile)], Type::Void))],
                )],
            )],
        )],
    );
    let p = program(vec![main_launching(&[1]), k, helper]);
    assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
}

/// `void helper(tiled_index t, int x) { if (x > 0) barrier; }` called with `arg`.
fn helper_program(arg: Expr) -> tessera_ir::Program {
    let tile = Type::TiledIndex(tile1(N));
    let helper = plain(
        "helper",
        true,
        2,
        vec![loc("t", tile.clone(), Space::Private), private("x")],
        Type::Void,
        vec![s_if(
            bin(BinOp::Gt, ivar(1), int(0)),
            vec![s_barrier()],
            None,
        )],
    );
    let k = kernel(
        Some(tile1(N)),
        vec![],
        vec![],
        vec![s_expr(call(2, vec![var(0, tile), arg], Type::Void))],
    );
    program(vec![main_launching(&[1]), k, helper])
}

#[test]
fn divergent_argument_makes_the_parameter_divergent() {
    assert_eq!(ir_codes(&helper_program(local0(N))), ["E0408"]);
    assert!(ir_codes(&helper_program(tile0(N))).is_empty());
}

#[test]
fn helper_results_carry_their_divergence() {
    // int lid(tiled_index t) { return t.local[0]; }  if (lid(t) == 0) barrier;
    let tile = Type::TiledIndex(tile1(N));
    let lid = plain(
        "lid",
        true,
        1,
        vec![loc("t", tile.clone(), Space::Private)],
        Type::INT,
        vec![s_return_value(local0(N))],
    );
    let k = kernel(
        Some(tile1(N)),
        vec![],
        vec![],
        vec![s_if(
            eq0(call(2, vec![var(0, tile)], Type::INT)),
            vec![s_barrier()],
            None,
        )],
    );
    let p = program(vec![main_launching(&[1]), k, lid]);
    assert_eq!(ir_codes(&p), ["E0408"]);
}

#[test]
fn writes_through_reference_parameters_reach_the_caller() {
    // void set(int& r, int v) { r = v; }   int x = 0; set(x, t.local[0]); if (x == 0) barrier;
    let mut r = private("r");
    r.by_ref = true;
    let set = plain(
        "set",
        true,
        2,
        vec![r, private("v")],
        Type::Void,
        vec![s_expr(assign(ivar(0), ivar(1)))],
    );
    let k = kernel(
        Some(tile1(N)),
        vec![],
        vec![private("x")],
        vec![
            s_let(1, int(0)),
            s_expr(call(2, vec![ivar(1), local0(N)], Type::Void)),
            s_if(eq0(ivar(1)), vec![s_barrier()], None),
        ],
    );
    let p = program(vec![main_launching(&[1]), k, set]);
    assert_eq!(ir_codes(&p), ["E0408"]);
}

#[test]
fn writes_through_reference_locals_reach_the_referent() {
    // int x = 0; int& r = x; r = t.local[0]; if (x == 0) barrier;
    let mut r = private("r");
    r.by_ref = true;
    let body = vec![
        s_let(1, int(0)),
        s_ref(2, ivar(1)),
        s_expr(assign(ivar(2), local0(N))),
        s_if(eq0(ivar(1)), vec![s_barrier()], None),
    ];
    assert_eq!(codes_of(vec![private("x"), r], body), ["E0408"]);
}

#[test]
fn loop_left_early_by_some_work_items_makes_its_counter_divergent() {
    // for (i = 0; i < n; i++) { if (data[t.global] == i) break; }  if (i < 5) barrier;
    let data = view_elem(
        cap(1, float_view()),
        part(TiledIndexPart::Global, tile1(N)),
        Type::INT,
    );
    let body = vec![
        s_let(1, int(0)),
        s_loop(
            Some(bin(BinOp::Lt, ivar(1), cap(0, Type::INT))),
            vec![s_if(bin(BinOp::Eq, data, ivar(1)), vec![s_break()], None)],
            Some(inc(ivar(1))),
        ),
        s_if(bin(BinOp::Lt, ivar(1), int(5)), vec![s_barrier()], None),
    ];
    assert_eq!(codes_of(vec![private("i")], body), ["E0408"]);
}

// --- E0409 ---

#[test]
fn early_return_before_a_barrier() {
    let cond = bin(
        BinOp::Ge,
        comp(part(TiledIndexPart::Global, tile1(N)), 0),
        cap(0, Type::INT),
    );
    let body = vec![s_if(cond, vec![s_return()], None), s_barrier()];
    let p = tiled_program(N, vec![], body);
    let d = ir_diags(&p);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code.as_str(), "E0409");
    assert!(
        d[0].secondary
            .iter()
            .any(|l| l.message.contains("this condition differs"))
    );
    assert!(
        d[0].secondary
            .iter()
            .any(|l| l.message.contains("wait for them at this barrier"))
    );
    assert!(
        d[0].secondary
            .iter()
            .any(|l| l.message.contains("`global`"))
    );
}

#[test]
fn early_return_after_the_last_barrier_is_fine() {
    let body = vec![s_barrier(), s_if(eq0(local0(N)), vec![s_return()], None)];
    assert!(codes_of(vec![], body).is_empty());
}

#[test]
fn early_return_on_a_uniform_condition_is_fine() {
    let body = vec![s_if(eq0(tile0(N)), vec![s_return()], None), s_barrier()];
    assert!(codes_of(vec![], body).is_empty());
}

#[test]
fn early_return_does_not_skip_the_barrier_of_the_other_branch() {
    // if (n > 0) { if (t.local[0] == 0) return; } else { barrier; }
    let body = vec![s_if(
        bin(BinOp::Gt, cap(0, Type::INT), int(0)),
        vec![s_if(eq0(local0(N)), vec![s_return()], None)],
        Some(vec![s_barrier()]),
    )];
    assert!(codes_of(vec![], body).is_empty());
    // ... but it skips the ones after the `if`.
    let body = vec![
        s_if(
            bin(BinOp::Gt, cap(0, Type::INT), int(0)),
            vec![s_if(eq0(local0(N)), vec![s_return()], None)],
            Some(vec![s_barrier()]),
        ),
        s_barrier(),
    ];
    assert_eq!(codes_of(vec![], body), ["E0409"]);
}

#[test]
fn early_return_in_a_loop_skips_the_next_iteration_barrier() {
    let body = vec![s_for(
        1,
        int(0),
        int(4),
        int(1),
        vec![s_barrier(), s_if(eq0(local0(N)), vec![s_return()], None)],
    )];
    assert_eq!(codes_of(vec![private("k")], body), ["E0409"]);
}

#[test]
fn break_out_of_a_loop_with_a_barrier() {
    let body = vec![s_for(
        1,
        int(0),
        int(4),
        int(1),
        vec![s_barrier(), s_if(eq0(local0(N)), vec![s_break()], None)],
    )];
    assert_eq!(codes_of(vec![private("k")], body), ["E0409"]);
}

#[test]
fn break_out_of_a_loop_without_barrier_is_fine() {
    let body = vec![
        s_for(
            1,
            int(0),
            int(4),
            int(1),
            vec![s_if(eq0(local0(N)), vec![s_break()], None)],
        ),
        s_barrier(),
    ];
    assert!(codes_of(vec![private("k")], body).is_empty());
}

#[test]
fn continue_before_a_barrier() {
    let body = vec![s_for(
        1,
        int(0),
        int(4),
        int(1),
        vec![s_if(eq0(local0(N)), vec![s_continue()], None), s_barrier()],
    )];
    assert_eq!(codes_of(vec![private("k")], body), ["E0409"]);
}

#[test]
fn continue_after_the_barrier_of_the_iteration_is_fine() {
    let body = vec![s_for(
        1,
        int(0),
        int(4),
        int(1),
        vec![s_barrier(), s_if(eq0(local0(N)), vec![s_continue()], None)],
    )];
    assert!(codes_of(vec![private("k")], body).is_empty());
}

#[test]
fn divergent_loop_with_a_harmless_continue_is_still_reported() {
    // for (k = 0; k < t.local[0]; k++) { barrier; if (t.local[0] == k) continue; }
    let body = vec![s_for(
        1,
        int(0),
        local0(N),
        int(1),
        vec![
            s_barrier(),
            s_if(bin(BinOp::Eq, local0(N), ivar(1)), vec![s_continue()], None),
        ],
    )];
    assert_eq!(codes_of(vec![private("k")], body), ["E0408"]);
}

#[test]
fn break_out_of_a_switch_before_its_barrier() {
    let body = vec![s_switch(
        cap(0, Type::INT),
        vec![(
            Some(0),
            vec![s_if(eq0(local0(N)), vec![s_break()], None), s_barrier()],
        )],
    )];
    assert_eq!(codes_of(vec![], body), ["E0409"]);
}

#[test]
fn early_exit_in_a_helper_does_not_skip_the_callers_barrier() {
    let tile = Type::TiledIndex(tile1(N));
    let helper = plain(
        "helper",
        true,
        1,
        vec![loc("t", tile.clone(), Space::Private)],
        Type::Void,
        vec![s_if(eq0(local0(N)), vec![s_return()], None)],
    );
    let k = kernel(
        Some(tile1(N)),
        vec![],
        vec![],
        vec![s_expr(call(2, vec![var(0, tile)], Type::Void)), s_barrier()],
    );
    let p = program(vec![main_launching(&[1]), k, helper]);
    assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
}

// --- robustness ---

#[test]
fn malformed_programs_do_not_panic() {
    let bad_local = var(99, Type::Error);
    let bad_call = call(77, vec![var(55, Type::Error)], Type::Error);
    let error_cond = Expr {
        kind: ExprKind::Const(tessera_ir::Const::Int(0)),
        ty: Type::Error,
        place: false,
        span: sp(),
    };
    let body = vec![
        s_if(bad_local.clone(), vec![s_barrier(), s_return()], None),
        s_expr(assign(var(42, Type::Error), local0(N))),
        s_expr(bad_call),
        s_if(error_cond, vec![s_barrier()], None),
        s_ref(88, var(3, Type::Error)),
        s_switch(
            var(12, Type::Error),
            vec![(None, vec![s_break(), s_continue()])],
        ),
        s_continue(),
        s_break(),
        s_barrier(),
    ];
    let mut p = tiled_program(N, vec![], body);
    p.functions.push(kernel(
        Some(tile1(N)),
        vec![Capture {
            name: "x".into(),
            ty: Type::Error,
            by_ref: false,
        }],
        vec![],
        vec![s_expr(call(0, vec![], Type::Error))],
    ));
    let _ = ir_codes(&p);
    let u = crate::analysis::uniformity::Uniformity::analyse(
        &p,
        &CallGraph::build(&p),
        tessera_ir::FuncId(1000),
    );
    assert!(u.local_why(tessera_ir::FuncId(1000), LocalId(0)).is_none());
}

// --- from source ---

const PRELUDE: &str = "#include <amp.h>\nusing namespace concurrency;\n";

#[test]
fn divergent_barrier_docs_example() {
    let src = format!(
        "{PRELUDE}void tile_sums(array_view<const float, 1> in, array_view<float, 1> sums) {{\n\
         parallel_for_each(in.extent.tile<64>(), [=](tiled_index<64> t) restrict(amp) {{\n\
             tile_static float cache[64];\n\
             cache[t.local[0]] = in[t.global];\n\
             if (t.local[0] == 0) {{\n\
                 t.barrier.wait();\n\
                 float sum = 0.0f;\n\
                 for (int i = 0; i < 64; ++i) {{ sum += cache[i]; }}\n\
                 sums[t.tile] = sum;\n\
             }}\n\
         }});\n}}\n"
    );
    assert_eq!(src_codes(&src), ["E0408"]);
}

#[test]
fn divergent_barrier_docs_fix() {
    let src = format!(
        "{PRELUDE}void tile_sums(array_view<const float, 1> in, array_view<float, 1> sums) {{\n\
         parallel_for_each(in.extent.tile<64>(), [=](tiled_index<64> t) restrict(amp) {{\n\
             tile_static float cache[64];\n\
             cache[t.local[0]] = in[t.global];\n\
             t.barrier.wait();\n\
             if (t.local[0] == 0) {{\n\
                 float sum = 0.0f;\n\
                 for (int i = 0; i < 64; ++i) {{ sum += cache[i]; }}\n\
                 sums[t.tile] = sum;\n\
             }}\n\
             if (t.tile[0] == 0) {{ t.barrier.wait(); }}\n\
         }});\n}}\n"
    );
    assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
}

#[test]
fn barriers_in_helpers_under_captured_conditions() {
    // CONF ControlFlow Test.12/13: loops and switches on a captured `x`.
    let src = format!(
        "{PRELUDE}void sync(tiled_index<16> t) restrict(amp) {{ t.barrier.wait(); }}\n\
         void run(array_view<int, 1> out, int x) {{\n\
         parallel_for_each(out.extent.tile<16>(), [=](tiled_index<16> t) restrict(amp) {{\n\
             for (int i = 0; i < x; i++) {{\n\
                 switch (x) {{ case 1: sync(t); break; default: t.barrier.wait(); break; }}\n\
             }}\n\
             while (x > 100) {{ sync(t); }}\n\
             int g = t.tile[0];\n\
             if (g > 0) {{ t.barrier.wait(); }}\n\
             out[t.global] = x;\n\
         }});\n}}\n"
    );
    assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
}

#[test]
fn classic_tiled_kernels_are_clean() {
    // Bitonic sort steps, a scan, and a loop bound read from `tile_static` memory.
    let src = format!(
        "{PRELUDE}void run(array_view<int, 1> data, int n) {{\n\
         parallel_for_each(data.extent.tile<256>(), [=](tiled_index<256> t) restrict(amp) {{\n\
             tile_static int s[256];\n\
             tile_static int count;\n\
             int i = t.local[0];\n\
             bool active = t.global[0] < n;\n\
             s[i] = active ? data[t.global] : 0;\n\
             if (i == 0) {{ count = data[t.tile] % 8; }}\n\
             t.barrier.wait();\n\
             for (int k = 2; k <= 256; k <<= 1) {{\n\
                 for (int j = k >> 1; j > 0; j >>= 1) {{\n\
                     int ixj = i ^ j;\n\
                     if (ixj > i) {{\n\
                         int a = s[i];\n\
                         int b = s[ixj];\n\
                         if ((a > b) == ((i & k) == 0)) {{ s[i] = b; s[ixj] = a; }}\n\
                     }}\n\
                     t.barrier.wait();\n\
                 }}\n\
             }}\n\
             int offset = 1;\n\
             for (int d = 128; d > 0; d >>= 1) {{\n\
                 t.barrier.wait();\n\
                 if (i < d) {{ s[offset * (2 * i + 2) - 1] += s[offset * (2 * i + 1) - 1]; }}\n\
                 offset *= 2;\n\
             }}\n\
             for (int r = 0; r < count; r++) {{ t.barrier.wait(); }}\n\
             t.barrier.wait();\n\
             if (active) {{ data[t.global] = s[i]; }}\n\
         }});\n}}\n"
    );
    assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
}

#[test]
fn barrier_in_helper_under_local_condition_from_source() {
    let src = format!(
        "{PRELUDE}void sync(tiled_index<16> t) restrict(amp) {{ t.barrier.wait(); }}\n\
         void run(array_view<int, 1> out) {{\n\
         parallel_for_each(out.extent.tile<16>(), [=](tiled_index<16> t) restrict(amp) {{\n\
             if (t.local[0] % 2 == 0) {{ sync(t); }}\n\
             out[t.global] = 1;\n\
         }});\n}}\n"
    );
    assert_eq!(src_codes(&src), ["E0408"]);
}

#[test]
fn early_exit_docs_example() {
    let src = format!(
        "{PRELUDE}void shift(array_view<const float, 1> in, array_view<float, 1> out) {{\n\
         int n = in.extent[0];\n\
         parallel_for_each(extent<1>((n + 63) / 64 * 64).tile<64>(),\n\
             [=](tiled_index<64> t) restrict(amp) {{\n\
             tile_static float cache[64];\n\
             if (t.global[0] >= n) {{\n\
                 return;\n\
             }}\n\
             cache[t.local[0]] = in[t.global];\n\
             t.barrier.wait();\n\
             out[t.global] = cache[(t.local[0] + 1) % 64];\n\
         }});\n}}\n"
    );
    assert_eq!(src_codes(&src), ["E0409"]);
}

#[test]
fn early_exit_docs_fix() {
    let src = format!(
        "{PRELUDE}void shift(array_view<const float, 1> in, array_view<float, 1> out) {{\n\
         int n = in.extent[0];\n\
         parallel_for_each(extent<1>((n + 63) / 64 * 64).tile<64>(),\n\
             [=](tiled_index<64> t) restrict(amp) {{\n\
             tile_static float cache[64];\n\
             bool inside = t.global[0] < n;\n\
             cache[t.local[0]] = inside ? in[t.global] : 0.0f;\n\
             t.barrier.wait();\n\
             if (inside) {{\n\
                 out[t.global] = cache[(t.local[0] + 1) % 64];\n\
             }}\n\
             if (!inside) {{ return; }}\n\
         }});\n}}\n"
    );
    assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
}

#[test]
fn break_and_continue_from_source() {
    let src = format!(
        "{PRELUDE}void run(array_view<int, 1> out, int x) {{\n\
         parallel_for_each(out.extent.tile<16>(), [=](tiled_index<16> t) restrict(amp) {{\n\
             for (int i = 0; i < x; i++) {{\n\
                 if (t.local[0] == i) {{ continue; }}\n\
                 t.barrier.wait();\n\
             }}\n\
             for (int i = 0; i < x; i++) {{\n\
                 t.barrier.wait();\n\
                 if (out[t.global] > i) {{ break; }}\n\
             }}\n\
         }});\n}}\n"
    );
    assert_eq!(src_codes(&src), ["E0409", "E0409"]);
}

/// A kernel over `out` tiled by 4, with `x` captured, whose body is `body`.
fn tiled_source(body: &str) -> String {
    format!(
        "{PRELUDE}void run(array_view<int, 1> out, int x) {{\n\
         parallel_for_each(out.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {{\n\
         {body}\n\
         }});\n}}\n"
    )
}

#[test]
fn a_local_reset_to_a_uniform_value_is_uniform_again() {
    let cases = [
        "int n = t.local[0]; out[t.global] = n; n = 2;\n\
         for (int k = 0; k < n; k++) { t.barrier.wait(); }",
        "int n = t.local[0]; n = x; if (n > 1) { t.barrier.wait(); }",
        "int n = t.local[0]; if (x > 0) { n = 1; } else { n = 2; }\n\
         while (n > 0) { t.barrier.wait(); n--; }",
        "for (int i = 0; i < 3; i++) { int m = t.local[0]; out[t.global] += m; m = i;\n\
         if (m > 0) { t.barrier.wait(); } }",
        "int n = 0; do { n = t.local[0]; out[t.global] = n; n = 4; } while (n < 3);\n\
         if (n == 4) { t.barrier.wait(); }",
    ];
    for body in cases {
        let src = tiled_source(body);
        assert!(src_codes(&src).is_empty(), "{body}: {:#?}", check_src(&src));
    }
}

#[test]
fn a_reset_that_not_every_path_makes_keeps_the_local_divergent() {
    let cases = [
        // Only when `x > 0`: the other path keeps `local`.
        "int n = t.local[0]; if (x > 0) { n = 2; } if (n > 1) { t.barrier.wait(); }",
        // Under a divergent condition.
        "int n = t.local[0]; if (t.local[0] > 0) { n = 2; } if (n > 1) { t.barrier.wait(); }",
        // The next iteration sees the divergent value.
        "int n = 2; for (int k = 0; k < n; k++) { t.barrier.wait(); n = t.local[0]; }",
        // A `break` leaves with the divergent value.
        "int n = 0; while (true) { n = t.local[0]; if (x > 0) { break; } n = 2; }\n\
         if (n > 1) { t.barrier.wait(); }",
        // A `continue` skips the reset.
        "int n = 0; for (int k = 0; k < 3; k++) { n = t.local[0]; if (x > 0) { continue; } n = 2; }\n\
         if (n > 1) { t.barrier.wait(); }",
        // A `switch` arm that falls through without the reset.
        "int n = 0; switch (x) { case 1: n = t.local[0]; case 2: break; default: n = 1; }\n\
         if (n > 1) { t.barrier.wait(); }",
        // Assigned in one operand of `?:` only.
        "int n = 1; (x > 0) ? (n = t.local[0]) : (n = 1); if (n > 1) { t.barrier.wait(); }",
        // Assigned and read in the condition itself.
        "int n = 1; if ((n = t.local[0], n) > 1) { t.barrier.wait(); }",
        // Written through a reference: the local is not followed.
        "int n = 2; int& r = n; r = t.local[0]; if (n > 1) { t.barrier.wait(); }",
    ];
    for body in cases {
        let src = tiled_source(body);
        assert_eq!(src_codes(&src), ["E0408"], "{body}: {:#?}", check_src(&src));
    }
}

#[test]
fn deep_loop_nests_keep_the_flow_insensitive_answer() {
    // 40 nested loops each reaching a fixpoint would revisit the innermost
    // body about 2^40 times; the walk gives up and the answer stays sound.
    let mut body = String::from("int n = t.local[0];\n");
    for i in 0..40 {
        body.push_str(&format!(
            "for (int k{i} = 0; k{i} < 2; k{i}++) {{ n = {i};\n"
        ));
    }
    body.push_str("n = t.local[0];");
    body.push_str(&"}".repeat(40));
    body.push_str("\nn = 1; if (n > 0) { t.barrier.wait(); }");
    let src = tiled_source(&body);
    assert_eq!(src_codes(&src), ["E0408"], "{:#?}", check_src(&src));
}
