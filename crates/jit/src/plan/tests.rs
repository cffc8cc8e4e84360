//! The plan on small programs: each is parsed and checked as `tessera run`
//! would, then the plan's facts are asserted on directly.

use super::facts::Facts;
use super::lanes::LaneShape;
use super::regions::{Segment, last_region_start, pinned_item, region_io, split};
use crate::decline::Decline;
use std::collections::HashSet;
use tessera_diagnostics::Sources;
use tessera_ir::facts::barrier_functions;
use tessera_ir::{
    Block as IrBlock, ExprKind, FuncId, Function, FunctionKind, Init, LocalId, Program, Stmt,
    StmtKind, TileShape,
};

/// The checked program of `source`; panics with the diagnostics when it
/// does not check (a test program is always valid).
fn compile(source: &str) -> Program {
    let mut sources = Sources::new();
    let checked = tessera_driver::compile_source(&mut sources, "plan.amp", source.as_bytes());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    checked.program
}

/// The program's only kernel, its body and tile shape.
fn kernel(prog: &Program) -> (&Function, &IrBlock, Option<TileShape>) {
    let mut kernels = prog.functions.iter().filter_map(|f| match &f.kind {
        FunctionKind::Kernel { tile, .. } => Some((f, f.body.as_ref()?, *tile)),
        _ => None,
    });
    let found = kernels.next().expect("a kernel");
    assert!(kernels.next().is_none(), "one kernel only");
    found
}

/// The id of the program's first kernel.
fn kernel_id(prog: &Program) -> FuncId {
    let at = prog
        .functions
        .iter()
        .position(|f| matches!(f.kind, FunctionKind::Kernel { .. }))
        .expect("a kernel");
    FuncId(u32::try_from(at).expect("few functions"))
}

/// The local of `func` named `name`.
fn local(func: &Function, name: &str) -> LocalId {
    let at = func.locals.iter().position(|l| l.name == name);
    LocalId(u32::try_from(at.expect(name)).expect("few locals"))
}

/// The statement list holding the loop counted by `counter`, and the
/// loop's position in it (a `for` is a block: its declaration, the loop).
fn find_loop(block: &IrBlock, counter: LocalId) -> Option<(&[Stmt], usize)> {
    for (at, s) in block.stmts.iter().enumerate() {
        match &s.kind {
            StmtKind::Loop {
                cond: Some(cond),
                body,
                ..
            } => {
                if let ExprKind::Binary { lhs, .. } = &cond.kind
                    && matches!(lhs.kind, ExprKind::Local(l) if l == counter)
                {
                    return Some((&block.stmts, at));
                }
                if let Some(found) = find_loop(body, counter) {
                    return Some(found);
                }
            }
            StmtKind::Block(inner) => {
                if let Some(found) = find_loop(inner, counter) {
                    return Some(found);
                }
            }
            StmtKind::If { then, els, .. } => {
                if let Some(found) = find_loop(then, counter) {
                    return Some(found);
                }
                if let Some(found) = els.as_ref().and_then(|e| find_loop(e, counter)) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// The initial value of the declaration of `l` in `block` (not nested).
fn init_of(block: &IrBlock, l: LocalId) -> &tessera_ir::Expr {
    block
        .stmts
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::Let {
                local,
                init: Some(Init::Expr(e)),
            } if *local == l => Some(e),
            _ => None,
        })
        .expect("a declaration with a value")
}

/// Records, as the emitter does, the declaration right before the loop at
/// `stmts[at]`, in the kernel's own scope (0).
fn declare_before(facts: &mut Facts<'_>, prog: &Program, stmts: &[Stmt], at: usize) {
    let prev = at.checked_sub(1).and_then(|p| stmts.get(p));
    let Some(Stmt {
        kind: StmtKind::Let { local, init },
        ..
    }) = prev
    else {
        panic!("a declaration before the loop");
    };
    let kernel = kernel_id(prog);
    facts.declare_scalar(0, kernel, *local, init.as_ref());
    facts.set_prev(prev);
}

/// A tiled matrix product in the shape of `samples/matmul_tiled.amp`.
const MATMUL: &str = r#"
#include <amp.h>
using namespace concurrency;
int main() {
    std::vector<float> av(64 * 64), bv(64 * 64), cv(64 * 64);
    array_view<const float, 2> a(64, 64, av);
    array_view<const float, 2> b(64, 64, bv);
    array_view<float, 2> c(64, 64, cv);
    parallel_for_each(c.extent.tile<16, 16>(), [=](tiled_index<16, 16> t) restrict(amp) {
        tile_static float at[16][16];
        tile_static float bt[16][16];
        int row = t.local[0];
        int col = t.local[1];
        float sum = 0.0f;
        for (int k0 = 0; k0 < 64; k0 += 16) {
            at[row][col] = a(t.global[0], k0 + col);
            bt[row][col] = b(k0 + row, t.global[1]);
            t.barrier.wait();
            for (int k = 0; k < 16; k++) {
                sum += at[row][k] * bt[k][col];
            }
            t.barrier.wait();
        }
        c[t.global] = sum;
    });
    return 0;
}
"#;

#[test]
fn the_matmul_tile_loop_counter_is_uniform_and_needs_no_frame_slot() {
    let prog = compile(MATMUL);
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let frame = facts.plan_frame(func, body).expect("planned");
    let k0 = local(func, "k0");
    assert_eq!(facts.uniform, HashSet::from([k0]));
    // `row`, `col`, `sum` and `k` are declared at the level of the
    // barriers. `row` and `col` are copies of the local coordinates,
    // computed again where they are needed; `sum` lives across the
    // barriers and takes 4 bytes. `k` is declared in the loop that holds
    // the barriers, but inside the `for` statement its region runs, and
    // named nowhere else: it needs no slot.
    assert_eq!(frame.slots, vec![(local(func, "sum"), 0)]);
    assert_eq!(frame.end, 4);
    let remat: Vec<LocalId> = facts.remat.iter().map(|(l, _)| *l).collect();
    assert_eq!(remat, vec![local(func, "row"), local(func, "col")]);
}

#[test]
fn a_counter_written_outside_its_step_is_not_uniform() {
    // Uniform still (the checker accepts the barriers), but the plan only
    // proves counters written by their step alone.
    let prog = compile(&MATMUL.replace(
        "t.barrier.wait();\n            for",
        "t.barrier.wait();\n            k0 += 0;\n            for",
    ));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let frame = facts.plan_frame(func, body).expect("planned");
    let k0 = local(func, "k0");
    assert!(facts.uniform.is_empty());
    assert!(frame.slots.iter().any(|(l, _)| *l == k0));
}

#[test]
fn a_reference_across_barriers_to_a_place_named_again_is_bound_again() {
    let prog = compile(&MATMUL.replace(
        "float sum = 0.0f;",
        "float sum = 0.0f; float& s = sum; float& corner = at[row][15];",
    ));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let frame = facts.plan_frame(func, body).expect("planned");
    let (s, corner, sum) = (local(func, "s"), local(func, "corner"), local(func, "sum"));
    let bound: Vec<LocalId> = facts.ref_remat.iter().map(|(l, _)| *l).collect();
    assert_eq!(bound, vec![s, corner]);
    // No slot for the references; the local they name keeps its own.
    assert!(!frame.slots.iter().any(|(l, _)| *l == s || *l == corner));
    assert!(frame.slots.iter().any(|(l, _)| *l == sum));
}

#[test]
fn a_reference_across_barriers_to_memory_that_may_move_keeps_its_address() {
    // `j` changes after the reference is bound: evaluating `at[j][0]`
    // again in a later region would name another element, so the address
    // taken at the binding lives in the frame.
    let prog = compile(&MATMUL.replace(
        "float sum = 0.0f;",
        "float sum = 0.0f; int j = row; float& s = at[j][0]; j = 0;",
    ));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let frame = facts.plan_frame(func, body).expect("planned");
    let s = local(func, "s");
    assert!(facts.ref_addressed.contains(&s));
    assert!(frame.slots.iter().any(|(l, _)| *l == s));
}

#[test]
fn a_reference_across_barriers_to_a_private_element_that_may_move_is_declined() {
    // A work-item's own array may sit in variables or the frame: its
    // element has no address that stays.
    let prog = compile(&MATMUL.replace(
        "float sum = 0.0f;",
        "float sum = 0.0f; float mine[2] = {0.0f, 1.0f}; int j = row % 2; float& s = mine[j]; j = 0;",
    ));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    assert_eq!(
        facts.plan_frame(func, body),
        Err(Decline::ReferenceDeclaredBetweenBarriers)
    );
}

#[test]
fn locals_and_loop_counters_in_a_switch_arm_at_the_barriers_are_planned() {
    // The tile takes one arm; `mine` lives across the arm's barrier, so it
    // needs a slot, and `step` counts a loop with barriers alike in every
    // work-item of the tile.
    let prog = compile(&MATMUL.replace(
        "c[t.global] = sum;",
        "switch (t.tile[0]) {
        case 0: {
            int mine = row * 7;
            t.barrier.wait();
            sum += mine;
            break;
        }
        default:
            for (int step = 0; step < 3; step++) {
                t.barrier.wait();
            }
        }
        c[t.global] = sum;",
    ));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let frame = facts.plan_frame(func, body).expect("planned");
    let (mine, step) = (local(func, "mine"), local(func, "step"));
    assert!(frame.slots.iter().any(|(l, _)| *l == mine));
    assert!(facts.uniform.contains(&step));
    assert!(!frame.slots.iter().any(|(l, _)| *l == step));
}

/// The id of `func`, one of `prog`'s functions.
fn id_of(prog: &Program, func: &Function) -> FuncId {
    let at = prog.functions.iter().position(|f| std::ptr::eq(f, func));
    FuncId(u32::try_from(at.expect("a function of the program")).expect("few functions"))
}

/// A flat kernel over `index<2>` whose `row` and `q` are computed from the
/// coordinates; `idx` is written when `write` is set.
fn flat_kernel(write: bool) -> String {
    let assign = if write { "idx[0] = 0;" } else { "" };
    format!(
        "#include <amp.h>\nusing namespace concurrency;\nint main() {{\n\
         array<int, 2> a(64, 64);\n\
         parallel_for_each(a.extent, [&a](index<2> idx) restrict(amp) {{\n\
         int row = idx[0] * 3 + idx[1];\nint q = idx[1] / 7;\n{assign}\n\
         a[idx] = row + q;\n}});\nreturn 0;\n}}\n"
    )
}

#[test]
fn coordinates_of_a_flat_kernel_lie_below_the_extent_bound() {
    let prog = compile(&flat_kernel(false));
    let (func, body, tile) = kernel(&prog);
    let kernel_id = id_of(&prog, func);
    let row = init_of(body, local(func, "row"));
    let q = init_of(body, local(func, "q"));
    // Compiled for launches of at most 100 x 4096 work-items.
    let facts = Facts::new(&prog, tile).with_extent_bound(kernel_id, &[100, 4096]);
    assert_eq!(facts.range_of(0, row), Some((0, 99 * 3 + 4095)));
    assert_eq!(facts.range_of(0, q), Some((0, 4095 / 7)));
    // Without a bound, `idx[0] * 3` may overflow: no range.
    let facts = Facts::new(&prog, tile).with_extent_bound(kernel_id, &[i64::from(i32::MAX); 2]);
    assert_eq!(facts.range_of(0, row), None);
    assert_eq!(
        facts.range_of(0, q),
        Some((0, (i64::from(i32::MAX) - 1) / 7))
    );
    // A kernel that writes its index: its components are not coordinates.
    let prog = compile(&flat_kernel(true));
    let (func, body, tile) = kernel(&prog);
    let facts = Facts::new(&prog, tile).with_extent_bound(id_of(&prog, func), &[100, 4096]);
    assert_eq!(facts.range_of(0, init_of(body, local(func, "q"))), None);
}

#[test]
fn local_coordinates_are_in_the_tile_and_global_ones_below_int_max() {
    let prog = compile(MATMUL);
    let (func, body, tile) = kernel(&prog);
    let facts = Facts::new(&prog, tile);
    let col = init_of(body, local(func, "col"));
    assert_eq!(facts.range_of(0, col), Some((0, 15)));
    let modulo = MATMUL.replace("int col = t.local[1];", "int col = t.global[1] % 5;");
    let prog = compile(&modulo);
    let (func, body, tile) = kernel(&prog);
    let facts = Facts::new(&prog, tile);
    // A global coordinate is not negative, so its remainder is below 5.
    assert_eq!(
        facts.range_of(0, init_of(body, local(func, "col"))),
        Some((0, 4))
    );
    let origin = MATMUL.replace("int col = t.local[1];", "int col = t.tile_origin[1] + 15;");
    let prog = compile(&origin);
    let (func, body, tile) = kernel(&prog);
    let facts = Facts::new(&prog, tile);
    // A tile's origin is at least a tile below `i32::MAX`: adding a local
    // coordinate cannot overflow.
    assert_eq!(
        facts.range_of(0, init_of(body, local(func, "col"))),
        Some((15, i64::from(i32::MAX) - 1))
    );
}

#[test]
fn the_inner_k_loop_is_counted_and_short() {
    let prog = compile(MATMUL);
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let k = local(func, "k");
    let (stmts, at) = find_loop(body, k).expect("the k loop");
    let StmtKind::Loop {
        cond, step, body, ..
    } = &stmts[at].kind
    else {
        unreachable!("find_loop finds loops");
    };
    // What the emitter records when it declares `k` right before the loop.
    declare_before(&mut facts, &prog, stmts, at);
    assert_eq!(facts.init_ranges.get(&(0, k)), Some(&(0, 0)));
    assert_eq!(
        facts.counted_loop(0, cond.as_ref(), step.as_ref(), body),
        Some(((0, k), (0, 15), 16))
    );
    let prev = facts.prev_init.clone();
    assert_eq!(facts.short_loop(0, prev.clone(), &stmts[at]), Some(16));
    // Constant bounds, steps of one, a small body: it may be unrolled.
    assert_eq!(
        facts.unrolled(0, prev.clone(), &stmts[at]),
        Some((k, (0..16).collect()))
    );
    // In another scope (another inlined call) nothing is known of `k`.
    assert_eq!(
        facts.counted_loop(1, cond.as_ref(), step.as_ref(), body),
        None
    );
    // Without the declaration right before it, the start is unknown.
    facts.set_prev(None);
    assert_eq!(
        facts.counted_loop(0, cond.as_ref(), step.as_ref(), body),
        None
    );
}

#[test]
fn a_loop_that_writes_its_counter_is_not_counted() {
    let prog = compile(&MATMUL.replace("sum += at[row][k]", "k += 0; sum += at[row][k]"));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let k = local(func, "k");
    let (stmts, at) = find_loop(body, k).expect("the k loop");
    let StmtKind::Loop {
        cond, step, body, ..
    } = &stmts[at].kind
    else {
        unreachable!("find_loop finds loops");
    };
    declare_before(&mut facts, &prog, stmts, at);
    assert_eq!(
        facts.counted_loop(0, cond.as_ref(), step.as_ref(), body),
        None
    );
    let prev = facts.prev_init.clone();
    assert_eq!(facts.short_loop(0, prev.clone(), &stmts[at]), None);
    assert_eq!(facts.unrolled(0, prev, &stmts[at]), None);
}

#[test]
fn a_loop_with_a_barrier_is_charged_for_its_short_inner_loop() {
    let prog = compile(MATMUL);
    let (func, body, tile) = kernel(&prog);
    let facts = Facts::new(&prog, tile);
    let (stmts, at) = find_loop(body, local(func, "k0")).expect("the k0 loop");
    let StmtKind::Loop { body, .. } = &stmts[at].kind else {
        unreachable!("find_loop finds loops");
    };
    // One for the iteration itself, sixteen for the `k` loop inside.
    assert_eq!(facts.loop_charge(0, body), 17);
}

/// The statements of the region that holds the `k` loop of `source`.
fn k_region(prog: &Program) -> (&Function, Facts<'_>, &[Stmt]) {
    let (func, body, tile) = kernel(prog);
    let mut facts = Facts::new(prog, tile);
    facts.plan_frame(func, body).expect("planned");
    let (stmts, _) = find_loop(body, local(func, "k")).expect("the k loop");
    (func, facts, stmts)
}

#[test]
fn the_matmul_inner_product_runs_four_lanes_sharing_its_counter() {
    let prog = compile(MATMUL);
    let (func, facts, region) = k_region(&prog);
    assert_eq!(
        facts.lane_shape(region),
        Some(LaneShape {
            lanes: 4,
            shared: HashSet::from([local(func, "k")]),
        })
    );
}

#[test]
fn lanes_need_a_tile_width_they_divide_and_the_same_path_in_every_work_item() {
    // A last dimension of 6 takes two lanes.
    let six = MATMUL
        .replace("tile<16, 16>", "tile<16, 6>")
        .replace("tiled_index<16, 16>", "tiled_index<16, 6>");
    let prog = compile(&six);
    let (_, facts, region) = k_region(&prog);
    assert_eq!(facts.lane_shape(region).map(|s| s.lanes), Some(2));
    // A bound that differs between work-items: each takes its own path.
    let prog = compile(&MATMUL.replace("k < 16;", "k < 16 - col;"));
    let (_, facts, region) = k_region(&prog);
    assert_eq!(facts.lane_shape(region), None);
    // An atomic: the order of the lanes' updates could be observed.
    let atomic = MATMUL.replace(
        "sum += at[row][k] * bt[k][col];",
        "sum += at[row][k] * bt[k][col]; atomic_fetch_add(&h[0], 1);",
    )
    .replace(
        "array_view<float, 2> c(64, 64, cv);",
        "array_view<float, 2> c(64, 64, cv); std::vector<int> hv(4); array_view<int, 1> h(4, hv);",
    );
    let prog = compile(&atomic);
    let (_, facts, region) = k_region(&prog);
    assert_eq!(facts.lane_shape(region), None);
}

#[test]
fn short_branches_that_differ_between_lanes_are_masked_long_or_impure_ones_are_not() {
    // A condition on the lane's own coordinate, short and pure: masked.
    let masked = MATMUL.replace(
        "sum += at[row][k] * bt[k][col];",
        "if (col < 5) { sum += at[row][k] * bt[k][col]; }",
    );
    let prog = compile(&masked);
    let (_, facts, region) = k_region(&prog);
    assert_eq!(facts.lane_shape(region).map(|s| s.lanes), Some(4));
    // `&&` and `?:` on it inside an expression: each lane evaluates them.
    let logical = MATMUL.replace(
        "sum += at[row][k] * bt[k][col];",
        "sum += col < 5 && at[row][k] > 0.0f ? at[row][k] : bt[k][col];",
    );
    let prog = compile(&logical);
    let (_, facts, region) = k_region(&prog);
    assert_eq!(facts.lane_shape(region).map(|s| s.lanes), Some(4));
    // A condition that writes: each lane would have to evaluate it once.
    let impure = MATMUL.replace(
        "sum += at[row][k] * bt[k][col];",
        "if ((sum += 1.0f) < 5.0f) { sum += at[row][k] * bt[k][col]; }",
    );
    let prog = compile(&impure);
    let (_, facts, region) = k_region(&prog);
    assert_eq!(facts.lane_shape(region), None);
    // A long branch: emitted on vectors and once per lane, too much code.
    let long_body = "sum += at[row][k] * bt[k][col];".repeat(60);
    let long = MATMUL.replace(
        "sum += at[row][k] * bt[k][col];",
        &format!("if (col < 5) {{ {long_body} }}"),
    );
    let prog = compile(&long);
    let (_, facts, region) = k_region(&prog);
    assert_eq!(facts.lane_shape(region), None);
}

#[test]
fn barrier_functions_reach_through_calls() {
    let prog = compile(
        r#"
#include <amp.h>
using namespace concurrency;
void wait(tiled_index<4> t) restrict(amp) { t.barrier.wait(); }
void twice(tiled_index<4> t) restrict(amp) { wait(t); wait(t); }
int plain(int x) restrict(amp) { return x + 1; }
int main() {
    std::vector<int> v(8);
    array_view<int, 1> a(8, v);
    parallel_for_each(a.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        a[t.global] = plain(t.local[0]);
        twice(t);
    });
    return 0;
}
"#,
    );
    let reaches = barrier_functions(&prog);
    let named = |name: &str| {
        let at = prog.functions.iter().position(|f| f.name == name);
        reaches[FuncId(u32::try_from(at.expect(name)).expect("few")).index()]
    };
    assert!(named("wait"));
    assert!(named("twice"));
    assert!(!named("plain"));
}

#[test]
fn the_matmul_splits_at_its_barriers() {
    let prog = compile(MATMUL);
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    facts.plan_frame(func, body).expect("planned");
    // The last region, after the `k0` loop, stores the result.
    let last = last_region_start(body, &facts.barriers);
    assert_eq!(last, body.stmts.len() - 1);
    let head = IrBlock {
        stmts: body.stmts[..last].to_vec(),
    };
    let top = split(&head, &facts.barriers, &facts.uniform, true);
    let kinds: Vec<&str> = top.iter().map(kind).collect();
    assert_eq!(kinds, ["region", "barriers"]);
    // The `for` is a block: its uniform counter, declared once per tile,
    // then the loop with the barriers.
    let Segment::AtBarriers(Stmt {
        kind: StmtKind::Block(for_block),
        ..
    }) = top[1]
    else {
        panic!("the k0 loop is at the level of the barriers");
    };
    let inner = split(for_block, &facts.barriers, &facts.uniform, true);
    assert_eq!(
        inner.iter().map(kind).collect::<Vec<_>>(),
        ["uniform let", "barriers"]
    );
    // Inside an inlined call the same counter would be a plain local.
    let inlined = split(for_block, &facts.barriers, &facts.uniform, false);
    assert_eq!(kind(&inlined[0]), "region");
    // The loop's body: two regions, each ended by a barrier.
    let (stmts, at) = find_loop(body, local(func, "k0")).expect("the k0 loop");
    let StmtKind::Loop { body: k0_body, .. } = &stmts[at].kind else {
        unreachable!("find_loop finds loops");
    };
    let regions = split(k0_body, &facts.barriers, &facts.uniform, true);
    assert_eq!(
        regions.iter().map(kind).collect::<Vec<_>>(),
        ["region", "barriers", "region", "barriers"]
    );
    // The inner product reads `row`, `col` and `sum` from the frame and
    // stores back `sum`, not the coordinates it only reads.
    let Segment::Region(product) = &regions[2] else {
        unreachable!("checked above");
    };
    let product: Vec<Stmt> = product.iter().map(|s| (*s).clone()).collect();
    let io = region_io(&prog, &facts.barriers, &product);
    for name in ["row", "col", "sum"] {
        assert!(io.loads.contains(&local(func, name)), "{name} is loaded");
    }
    assert!(io.stores.contains(&local(func, "sum")));
    assert!(!io.stores.contains(&local(func, "row")));
    assert!(!io.stores.contains(&local(func, "col")));
}

/// A segment's kind, for assertions.
fn kind(segment: &Segment<'_>) -> &'static str {
    match segment {
        Segment::Region(_) => "region",
        Segment::UniformLet(_) => "uniform let",
        Segment::AtBarriers(_) => "barriers",
    }
}

#[test]
fn steps_and_locals_the_same_across_work_items_or_lanes() {
    let prog = compile(MATMUL);
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    facts.plan_frame(func, body).expect("planned");
    let step_of = |counter: &str| {
        let (stmts, at) = find_loop(body, local(func, counter)).expect("a loop");
        let StmtKind::Loop { step, .. } = &stmts[at].kind else {
            unreachable!("find_loop finds loops");
        };
        step.clone().expect("a step")
    };
    // `k0 += 16` runs once per tile; `k++` (not a uniform counter) does not.
    assert!(facts.writes_only_uniform(&step_of("k0")));
    assert!(!facts.writes_only_uniform(&step_of("k")));
    // Lanes are neighbours along dimension 1: they share the row, not the
    // column.
    let kernel_id = prog
        .functions
        .iter()
        .position(|f| std::ptr::eq(f, func))
        .map(|at| FuncId(u32::try_from(at).expect("few functions")))
        .expect("the kernel");
    let shared = facts.lane_invariant_locals(
        kernel_id,
        super::uniform::LaneAxis {
            dim: 1,
            index: None,
        },
    );
    assert!(shared.contains(&local(func, "k0")));
    assert!(shared.contains(&local(func, "row")));
    assert!(!shared.contains(&local(func, "col")));
    // `sum` is written: each lane has its own.
    assert!(!shared.contains(&local(func, "sum")));
}

/// The function named `name` and its body.
fn function<'p>(prog: &'p Program, name: &str) -> (&'p Function, &'p IrBlock) {
    let f = prog
        .functions
        .iter()
        .find(|f| f.name == name)
        .expect("the function");
    (f, f.body.as_ref().expect("a body"))
}

#[test]
fn host_loop_exits_are_returns_and_branches_that_leave() {
    let prog = compile(
        r#"
#include <iostream>
#include <vector>
int check(const std::vector<int>& v, int limit) {
    int total = 0;
    for (int i = 0; i < (int)v.size(); i++) {
        int x = v[i] * 2;
        if (x > limit) {
            std::cout << "too big at " << i << ": " << x << std::endl;
            return -1;
        }
        for (int j = 0; j < 3; j++) {
            if (j == x) {
                break;
            }
        }
        if (x == 7) {
            std::cout << "seven";
            break;
        }
        if (x == 9) {
            return 9;
        }
        total += x;
    }
    return total;
}
int main() { std::vector<int> v(3); return check(v, 4); }
"#,
    );
    let (f, body) = function(&prog, "check");
    let i = local(f, "i");
    let (stmts, at) = find_loop(body, i).expect("the loop");
    let exits = super::host::host_exits(&prog, &stmts[at], &|l| {
        f.get_local(l).map(|local| (&local.ty, local.by_ref))
    })
    .expect("exits");
    use tessera_runtime::launch::HostExitKind;
    let kinds: Vec<&str> = exits
        .exits
        .iter()
        .map(|e| match e.kind {
            HostExitKind::Return(_) => "return",
            HostExitKind::Branch { then: true, .. } => "then",
            HostExitKind::Branch { then: false, .. } => "else",
        })
        .collect();
    // The printing `return`, the printing `break` of the loop, the bare
    // `return 9`; not the inner loop's `break`.
    assert_eq!(kinds, ["then", "then", "then"]);
    // The first exit prints `i` (declared outside the loop's statement)
    // and `x` (declared inside): only `x` is handed back.
    let x = local(f, "x");
    assert_eq!(exits.exit_locals, [x]);
    assert_eq!(exits.exits[0].locals, [0]);
    // The compiled part names its own locals.
    assert!(exits.named.contains(&local(f, "total")));
    assert!(exits.declared.contains(&x));
}

/// A tiled kernel whose last region is `LAST`, after one barrier.
fn tile_average_like(last: &str) -> String {
    format!(
        "#include <amp.h>
using namespace concurrency;
int main() {{
    array<float, 2> a(32, 32);
    array<float, 2> out(2, 2);
    parallel_for_each(a.extent.tile<16, 16>(), [=, &a, &out](tiled_index<16, 16> t) restrict(amp) {{
        tile_static float s[16][16];
        int ly = t.local[0];
        int lx = t.local[1];
        s[ly][lx] = a[t.global];
        t.barrier.wait();
        {last}
    }});
    return 0;
}}"
    )
}

/// What [`pinned_item`] finds in the last region of `tile_average_like(last)`.
fn pinned(last: &str) -> Option<Vec<i64>> {
    let prog = compile(&tile_average_like(last));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    facts.plan_frame(func, body).expect("planned");
    let start = last_region_start(body, &facts.barriers);
    let dims = tile.expect("tiled").dims().to_vec();
    pinned_item(&body.stmts[start..], &facts.remat, &dims).map(|(at, _)| at)
}

#[test]
fn a_region_only_one_work_item_acts_in_is_pinned_to_it() {
    let sum = "out[t.tile] = s[0][0] + s[15][15];";
    assert_eq!(
        pinned(&format!("if (lx == 0 && ly == 0) {{ {sum} }}")),
        Some(vec![0, 0])
    );
    assert_eq!(
        pinned(&format!("if (3 == t.local[0] && lx == 15) {{ {sum} }}")),
        Some(vec![3, 15])
    );
    // A dimension left free, a test that is not `==`, an `else`, an `||`,
    // a coordinate outside the tile or pinned twice: every work-item runs.
    assert_eq!(pinned(&format!("if (lx == 0) {{ {sum} }}")), None);
    assert_eq!(pinned(&format!("if (lx == 0 && ly < 1) {{ {sum} }}")), None);
    assert_eq!(
        pinned(&format!(
            "if (lx == 0 && ly == 0) {{ {sum} }} else {{ {sum} }}"
        )),
        None
    );
    assert_eq!(
        pinned(&format!("if (lx == 0 || ly == 0) {{ {sum} }}")),
        None
    );
    assert_eq!(
        pinned(&format!("if (lx == 16 && ly == 0) {{ {sum} }}")),
        None
    );
    assert_eq!(
        pinned(&format!("if (lx == 0 && ly == 0 && lx == 1) {{ {sum} }}")),
        None
    );
}

/// A tiled kernel whose body, at the level of its barrier, is `body`.
fn tiled_pointer_kernel(body: &str) -> String {
    format!(
        "#include <amp.h>\nusing namespace concurrency;\nint main() {{\n\
         array<int, 1> a(64);\n\
         parallel_for_each(a.extent.tile<8>(), [&a](tiled_index<8> t) restrict(amp) {{\n\
         tile_static int s[8];\nint x = t.local[0];\n{body}\n\
         t.barrier.wait();\na[t.global] = x;\n}});\nreturn 0;\n}}\n"
    )
}

#[test]
fn pointers_at_the_barriers_are_computed_again_unless_they_change() {
    // From a `tile_static` array and the coordinates: bound again in each
    // region, no frame slot.
    let prog = compile(&tiled_pointer_kernel(
        "int* p = s + t.local[0];\n*p = x;\nint* q = &x;\n*q += 1;",
    ));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let frame = facts.plan_frame(func, body).expect("a frame");
    let slotted: HashSet<LocalId> = frame.slots.iter().map(|(l, _)| *l).collect();
    assert!(!slotted.contains(&local(func, "p")));
    assert!(!slotted.contains(&local(func, "q")));
    // `x`, whose address is taken, keeps its slot (and is no copy of a
    // coordinate computed again).
    assert!(slotted.contains(&local(func, "x")));
    // A pointer that moves keeps its offset and address in a slot.
    let prog = compile(&tiled_pointer_kernel("int* p = s;\np++;\n*p = x;"));
    let (func, body, tile) = kernel(&prog);
    let mut facts = Facts::new(&prog, tile);
    let frame = facts.plan_frame(func, body).expect("a frame");
    let p = local(func, "p");
    let at = frame.slots.iter().position(|(l, _)| *l == p).expect("p");
    let next = frame.slots.get(at + 1).map_or(frame.end, |(_, off)| *off);
    assert!(next - frame.slots[at].1 >= super::frame::POINTER_SLOT);
}

#[test]
fn pointer_casts_compile_only_between_scalars_of_one_size() {
    let kernel_with = |stmt: &str| {
        let prog = compile(&tiled_pointer_kernel(stmt));
        let id = prog
            .functions
            .iter()
            .position(|f| matches!(f.kind, FunctionKind::Kernel { .. }))
            .expect("a kernel");
        super::pointers::pointer_decline(&prog, FuncId(id as u32))
    };
    assert_eq!(kernel_with("float* f = (float*)&x;\n*f = 1.0f;"), None);
    assert_eq!(kernel_with("int* p = s + 2;\nint n = (int)(p - s);"), None);
    assert!(kernel_with("double* d = (double*)&s[0];\n*d = 1.0;").is_some());
    assert!(kernel_with("bool* b = (bool*)&x;\n*b = true;").is_some());
}

/// The calls left in the kernel's body after folding (see
/// [`super::fold::fold_calls`]), by callee name.
fn calls_after_folding(source: &str) -> Vec<String> {
    let prog = compile(source);
    let (_, body, _) = kernel(&prog);
    let folded = super::fold::fold_calls(&prog, &body.stmts);
    let names = std::cell::RefCell::new(Vec::new());
    tessera_ir::visit::walk_block(&IrBlock { stmts: folded }, &mut |_| {}, &mut |e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            names.borrow_mut().push(prog.function(*func).name.clone());
        }
    });
    names.into_inner()
}

#[test]
fn calls_of_one_expression_helpers_are_folded_when_every_argument_is_evaluated() {
    let source = r#"
#include <amp.h>
using namespace concurrency;
int lin(int a, int b) restrict(amp) { return a * 3 + b / 7; }
int nested(int a) restrict(amp) { return lin(a, a) + 1; }
int unused(int a, int b) restrict(amp) { return b * 2; }
int either(int a, int b) restrict(amp) { return a > 0 && b > 0 ? a : 0; }
void bump(int& c) restrict(amp) { c += 1; }
int byref(const int& a) restrict(amp) { return a + 1; }
int main() {
    std::vector<int> d(8);
    array_view<int, 1> v(8, d);
    parallel_for_each(v.extent, [=](index<1> i) restrict(amp) {
        int c = 0;
        bump(c);
        v[i] = lin(i[0], 2) + nested(i[0]) + unused(i[0], 1) + either(i[0], c) + byref(c)
            + lin(lin(i[0], 1), 5);
    });
    return 0;
}
"#;
    let mut left = calls_after_folding(source);
    left.sort();
    // `nested` calls `lin`: its body is not one expression of arithmetic
    // (a call changes nothing here, but `is_pure` does not look inside).
    assert_eq!(left, ["bump", "byref", "either", "nested", "unused"]);
}

/// The names of the functions `plan::outline::candidates` chooses for the
/// program's kernel, sorted.
fn outlined_names(prog: &Program) -> Option<Vec<String>> {
    let kernel = kernel_id(prog);
    let chosen = super::outline::candidates(prog, kernel)?;
    let mut names: Vec<String> = chosen
        .iter()
        .map(|f| prog.function(*f).name.clone())
        .collect();
    names.sort();
    Some(names)
}

#[test]
fn functions_called_out_of_line_take_scalars_by_value_and_wait_at_no_barrier() {
    let source = r#"
#include <amp.h>
using namespace concurrency;
int leaf(int a, float b) restrict(amp) { return a + (int)b; }
float scaled(float x) restrict(amp) { return x * 2.0f + leaf(1, x); }
void nothing(int a) restrict(amp) { int b = a; }
int by_ref(int& a) restrict(amp) { a += 1; return a; }
int waits(tiled_index<4> t, int a) restrict(amp) { t.barrier.wait(); return a; }
int calls_waits(tiled_index<4> t, int a) restrict(amp) { return waits(t, a) + leaf(a, 0.0f); }
int shared(int a) restrict(amp) { tile_static int s; s = a; return s; }
int main() {
    std::vector<int> d(8);
    array_view<int, 1> v(8, d);
    parallel_for_each(v.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
        int c = t.global[0];
        nothing(c);
        v[t.global] = (int)scaled((float)c) + by_ref(c) + calls_waits(t, c) + shared(c);
    });
    return 0;
}
"#;
    let prog = compile(source);
    assert_eq!(
        outlined_names(&prog),
        Some(vec![
            "leaf".to_string(),
            "nothing".to_string(),
            "scaled".to_string()
        ])
    );
    // Inlined whole, this kernel is small and shallow: lowered as before.
    let kernel = kernel_id(&prog);
    let tree = super::outline::call_tree(&prog, kernel).expect("no cycle");
    assert!(!tree.outline_first(20_000));
    assert!(tree.outline_first(10));
}

#[test]
fn a_chain_of_calls_deeper_than_32_is_called_out_of_line_from_the_start() {
    // The front end recurses through the template's instances: more than
    // a test thread's stack takes in a debug build.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(deep_chains_are_called_out_of_line)
        .expect("a thread")
        .join()
        .expect("the checks pass");
}

fn deep_chains_are_called_out_of_line() {
    let chain = |depth: i32| {
        format!(
            r#"
#include <amp.h>
using namespace concurrency;
template <int N> int down(int x) restrict(amp) {{ return down<N - 1>(x) + 1; }}
template <> int down<0>(int x) restrict(amp) {{ return x; }}
int main() {{
    std::vector<int> d(8);
    array_view<int, 1> v(8, d);
    parallel_for_each(v.extent, [=](index<1> i) restrict(amp) {{ v[i] = down<{depth}>(i[0]); }});
    return 0;
}}
"#
        )
    };
    for (depth, first) in [(31, false), (33, true)] {
        let prog = compile(&chain(depth));
        let kernel = kernel_id(&prog);
        assert_eq!(
            super::outline::call_tree(&prog, kernel).is_some_and(|t| t.outline_first(20_000)),
            first,
            "depth {depth}"
        );
        let names = outlined_names(&prog).expect("candidates");
        assert_eq!(names.len(), depth as usize + 1, "depth {depth}");
    }
}

/// Every loop of `main` in `source`, each before the loops it holds, with
/// whether it does little work (see `plan::work`).
fn little_loops(source: &str) -> Vec<bool> {
    let prog = compile(source);
    let main = prog.main.expect("a main");
    let body = prog.function(main).body.as_ref().expect("a body");
    let mut loops = Vec::new();
    tessera_ir::visit::walk_block(
        body,
        &mut |s| {
            if matches!(s.kind, StmtKind::Loop { .. }) {
                loops.push(s);
            }
        },
        &mut |_| {},
    );
    loops
        .into_iter()
        .map(|s| super::work::surely_little(&prog, main, s))
        .collect()
}

#[test]
fn sampled_checks_are_little_work_and_full_passes_are_not() {
    let source = r#"
        #include <vector>
        #include <iostream>
        struct Block { float v[4096]; };
        int twice(int x) { return 2 * x; }
        int main() {
            std::vector<float> out(65536, 1.0f), ref(512, 1.0f);
            int bad = 0;
            double sum = 0.0;
            for (int s = 0; s < 256; s++) {
                int g = s * 256 + (s * 37) % 256;
                if (out[g] != ref[s]) { bad++; }
                sum += (double)out[g] * twice(s);
            }
            const int tiles = 65536 / 256;
            for (int r = 0; r < 2; r++) {
                int tile = r == 0 ? 0 : tiles - 1;
                for (int l = 0; l < 256; l++) {
                    float v = out[tile * 256 + l];
                    if (v != ref[r * 256 + l]) { bad++; }
                    sum += (double)v * (double)(l % 7 + 1);
                }
            }
            for (int i = 0; i < 65536; i++) { sum += out[i]; }
            int n = (int)out.size();
            for (int i = 0; i < n; i++) { sum += out[i]; }
            for (int i = 0; i < 8; i++) { i += 0; }
            Block a = {}, b = {};
            for (int i = 0; i < 8; i++) { a = b; }
            std::cout << bad << " " << sum << a.v[0] << "\n";
            return 0;
        }
    "#;
    // The nested loops of the second nest are not outer loops of `main`
    // but are listed too: they count as little on their own.
    assert_eq!(
        little_loops(source),
        [true, true, true, false, false, false, false],
        "sampled, nested, inner, full pass, run-time bound, counter written, object copied"
    );
}
