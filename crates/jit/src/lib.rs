//! The Cranelift engine.
//!
//! Compiles each kernel of a checked [`Program`] to native code, once, at its
//! first launch, and runs launches on a pool of worker threads. Host code
//! stays in the interpreter, which hands each launch over as plain data
//! ([`tessera_runtime::launch`]); a kernel this engine cannot compile is
//! declined and the interpreter runs it, and a launch that fails a run-time
//! check is rerun by the interpreter, which reports the error. So the two
//! engines print the same output and the same errors by construction, and
//! the JIT only ever makes correct programs faster.
//!
//! How a tiled kernel becomes work-item loops split at its barriers is
//! described in the `emit` module; what is decided before any code is
//! emitted (regions, uniformity, ranges, lanes, frame slots) is the `plan`.

mod cache;
mod cpus;
mod decline;
mod emit;
mod exec;
mod layout;
mod placement;
mod plan;

use cranelift_codegen::ir::{AbiParam, types};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, ModuleReloc};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tessera_ir::{FuncId, FunctionKind, Program, StmtId};
use tessera_runtime::launch::{HostPlan, KernelEngine, Launch, LaunchOutcome};

pub use cache::{CodeStore, MemoryStore};
pub use decline::Decline;

/// What the engine did, for `tessera run --stats`.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Time spent compiling kernels.
    pub compile: Duration,
    /// Time spent running compiled kernels (copies in and out excluded).
    pub kernels: Duration,
    /// Launches run by compiled code.
    pub launches: u64,
    /// Launches left to the interpreter because the JIT declined them: the
    /// kernel did not compile, or the interpreter kept data that has no
    /// compiled form.
    pub fallbacks: u64,
    /// Launches compiled code stopped at a failed run-time check (an index
    /// out of bounds, an overflow) and handed back: the interpreter runs
    /// them again to report the error as the reference does.
    pub reruns: u64,
    /// Kernels compiled.
    pub compiled: u64,
    /// Functions whose machine code was read from the [`CodeStore`]
    /// instead of made (see [`Jit::keep_code_in`]).
    pub cached: u64,
    /// Worker threads used.
    pub threads: usize,
    /// Time spent in compiled host statements.
    pub host: Duration,
    /// Host statements run by compiled code.
    pub host_runs: u64,
    /// The first launches run by compiled code: whether tiled, and how long
    /// each took (at most [`Stats::LAUNCHES_KEPT`]).
    pub launch_times: Vec<(bool, Duration)>,
}

impl Stats {
    /// Launches whose times are kept.
    pub const LAUNCHES_KEPT: usize = 64;
}

struct Compiled {
    entry: usize,
    layout: emit::KernelLayout,
    /// The joined function, running several tiles per call, when the
    /// kernel has one (see `emit::join`).
    joined: Option<usize>,
}

struct CompiledHost {
    entry: usize,
    layout: emit::HostLayout,
}

/// The JIT engine for one program.
pub struct Jit<'p> {
    prog: &'p Program,
    module: Option<JITModule>,
    helper_ids: Option<HelperIds>,
    kernels: HashMap<FuncId, Result<Compiled, Decline>>,
    /// How many times each kernel was compiled for launches (see
    /// [`Jit::extent_bound`]).
    compilations: HashMap<FuncId, u32>,
    /// Code generated so far, for unique symbol names.
    generated: u32,
    /// The worker threads beside the launching one, made at the first
    /// launch that can use them.
    pool: Option<exec::Pool>,
    /// Host statements, by function and statement id.
    hosts: HashMap<(FuncId, StmtId), Result<CompiledHost, Decline>>,
    /// How often each host loop was left to the interpreter for doing
    /// little work (see [`plan::work`]): one run again and again is not
    /// little, and is compiled at its [`LITTLE_RUNS`]th offer.
    little_runs: HashMap<(FuncId, StmtId), u32>,
    /// The target, for the thread of [`Jit::compile_ahead`].
    isa: Option<OwnedTargetIsa>,
    /// Host statements whose machine code that thread makes.
    ahead: HashMap<(FuncId, StmtId), AheadHost>,
    /// Set when the engine is dropped: that thread stops.
    ahead_stop: Arc<AtomicBool>,
    /// Kernels lowered ahead of their first launch, their machine code
    /// made on a thread of its own (see [`Jit::speculate_after`]).
    speculative: HashMap<FuncId, Speculated>,
    /// Kernels lowered ahead once already: never a second time.
    speculated: std::collections::HashSet<FuncId>,
    /// The kernels `main` launches, in the order of its text (made at the
    /// first launch).
    main_launches: Option<Arc<Vec<MainLaunch>>>,
    threads: usize,
    stats: Stats,
    /// Where machine code is kept between runs, when the caller gave a
    /// store.
    cache: Option<Arc<cache::CodeCache>>,
    /// Functions compiled out of line (see [`plan::outline`]): their ids in
    /// the module and the stack bytes each uses.
    outlined: HashMap<FuncId, Outlined>,
    /// The Cranelift IR of each function compiled out of line, for
    /// `dump clif`.
    outlined_clif: HashMap<FuncId, String>,
    /// Kernels for which calls out of line were tried: the functions
    /// they call so (`None`: tried, and they could not be).
    outlines: HashMap<FuncId, Option<Outlines>>,
}

/// A function compiled out of line (see [`plan::outline`]): its id in the
/// module and the bytes of stack slots it uses.
#[derive(Clone, Copy)]
struct Outlined {
    id: cranelift_module::FuncId,
    stack: u32,
}

/// The functions a kernel calls out of line.
type Outlines = Arc<Vec<(FuncId, Outlined)>>;

#[derive(Clone, Copy)]
struct HelperIds {
    math_f32: cranelift_module::FuncId,
    math_f64: cranelift_module::FuncId,
    poll: cranelift_module::FuncId,
    print_scalar: cranelift_module::FuncId,
    print_item: cranelift_module::FuncId,
    print_printf: cranelift_module::FuncId,
    rand: cranelift_module::FuncId,
    push: cranelift_module::FuncId,
    random: cranelift_module::FuncId,
}

impl HelperIds {
    /// How many functions the module declares first: the helpers.
    fn count(self) -> usize {
        [
            self.math_f32,
            self.math_f64,
            self.poll,
            self.print_scalar,
            self.print_item,
            self.print_printf,
            self.rand,
            self.push,
            self.random,
        ]
        .iter()
        .map(|id| id.as_u32() as usize + 1)
        .max()
        .unwrap_or(0)
    }
}

/// Types whose values only the interpreter keeps: pointers (checked) and
/// the host-only integers narrower than `int`.
fn interpreted_type(ty: &tessera_ir::Type, prog: &Program) -> bool {
    ty.contains_pointer(&prog.structs) || ty.contains_narrow_integer(&prog.structs)
}

/// True when host statement `stmt` of `func` uses pointers (or host-only
/// narrow integers) otherwise than as iterators over the elements of a
/// vector: pointer locals (declared in the statement or outside it, as
/// parameters) to objects of a plain type, made from `v.begin()`,
/// `v.end()` or `v.data()` of a vector variable and from each other,
/// moved, compared, subtracted and dereferenced (`emit/pointers.rs`,
/// `AllocKey::Elements`; one from outside must point into a vector, or the
/// interpreter runs the statement); or when a function it calls uses any.
fn host_pointers(prog: &Program, func: FuncId, stmt: &tessera_ir::Stmt) -> bool {
    let mut calls = Vec::new();
    if !pointers_followed(prog, func, std::slice::from_ref(stmt), &mut calls) {
        return true;
    }
    // The functions it calls, inlined: their pointer parameters are
    // iterators too.
    let mut seen = Vec::new();
    while let Some(callee) = calls.pop() {
        if seen.contains(&callee) {
            continue;
        }
        seen.push(callee);
        let Some(body) = prog.get_function(callee).and_then(|f| f.body.as_ref()) else {
            continue;
        };
        if !pointers_followed(prog, callee, &body.stmts, &mut calls) {
            return true;
        }
    }
    false
}

/// True when statements `stmts` of `func` use pointers only as
/// [`host_pointers`] lets through; the functions they call go to `calls`.
fn pointers_followed(
    prog: &Program,
    func: FuncId,
    stmts: &[tessera_ir::Stmt],
    calls: &mut Vec<FuncId>,
) -> bool {
    use tessera_ir::{ExprKind, Type};
    let f = prog.function(func);
    let plain_pointee = |t: &Type| !interpreted_type(t, prog) && !t.contains_union(&prog.structs);
    let iterator = |e: &tessera_ir::Expr| {
        matches!(&e.kind, ExprKind::Local(l) if f.get_local(*l).is_some_and(|l| {
            !l.by_ref && matches!(&l.ty, Type::Ptr { elem, .. } if plain_pointee(elem))
        }))
    };
    // True when `e` is not a pointer form compiled code follows.
    fn check(
        prog: &Program,
        e: &tessera_ir::Expr,
        iterator: &dyn Fn(&tessera_ir::Expr) -> bool,
        calls: &mut Vec<FuncId>,
    ) -> bool {
        // A reference member of a closure, followed: the object it refers
        // to, handed over as itself.
        if let ExprKind::Deref(inner) = &e.kind
            && let Some((base, _)) = crate::plan::host::reference_member(prog, inner)
        {
            return check(prog, base, iterator, calls);
        }
        if let ExprKind::Deref(inner) = &e.kind {
            let (ptr, offset) = match &inner.kind {
                ExprKind::PtrAdd { ptr, offset } => (&**ptr, Some(&**offset)),
                _ => (&**inner, None),
            };
            let plain = matches!(ptr.kind, ExprKind::Local(_))
                && !iterator(ptr)
                && matches!(&ptr.ty, Type::Ptr { elem, .. }
                    if elem.scalar().is_some() && !interpreted_type(elem, prog));
            if plain {
                return offset.is_some_and(|k| check(prog, k, iterator, calls));
            }
            return check(prog, inner, iterator, calls);
        }
        let pointer_op = matches!(
            e.kind,
            ExprKind::AddrOf(_)
                | ExprKind::PtrAdd { .. }
                | ExprKind::PtrDiff { .. }
                | ExprKind::New { .. }
                | ExprKind::Delete { .. }
                | ExprKind::Null
        );
        if interpreted_type(&e.ty, prog) || pointer_op {
            let mut sub = |x: &tessera_ir::Expr| check(prog, x, iterator, calls);
            return match &e.kind {
                // A closure holding references, as a whole (called, or
                // passed on): its members are reached only as above.
                ExprKind::Local(_) | ExprKind::Capture(_)
                    if crate::plan::host::holds_references(prog, &e.ty) =>
                {
                    false
                }
                ExprKind::Local(_) => !iterator(e),
                ExprKind::Intrinsic {
                    op: tessera_ir::Intrinsic::VectorData,
                    args,
                } => {
                    !(args.len() == 1
                        && matches!(args[0].kind, ExprKind::Local(_) | ExprKind::Global(_))
                        && matches!(&args[0].ty, Type::Vector(elem)
                        if !interpreted_type(elem, prog) && !elem.contains_union(&prog.structs)))
                }
                ExprKind::PtrAdd { ptr, offset } => sub(ptr) || sub(offset),
                ExprKind::PtrDiff { lhs, rhs } => sub(lhs) || sub(rhs),
                ExprKind::Convert(inner) if matches!(inner.ty, Type::Ptr { .. }) => sub(inner),
                ExprKind::Assign { target, value }
                | ExprKind::CompoundAssign { target, value, .. } => !iterator(target) || sub(value),
                ExprKind::IncDec { target, .. } => !iterator(target),
                ExprKind::Comma { first, second } => sub(first) || sub(second),
                _ => true,
            };
        }
        if let ExprKind::Call { func, .. } = e.kind {
            calls.push(func);
        }
        let mut bad = false;
        tessera_ir::visit::for_each_child(e, &mut |c| bad = bad || check(prog, c, iterator, calls));
        bad
    }
    let mut bad = false;
    for stmt in stmts {
        tessera_ir::visit::walk_stmt(
            stmt,
            &mut |s| s.for_each_expr(&mut |e| bad = bad || check(prog, e, &iterator, calls)),
            &mut |_| {},
        );
    }
    !bad
}

/// True when the code of `func` (or of `stmt` in it), or of a function it
/// calls, has a value or local of a type containing a union.
fn uses_unions(prog: &Program, func: FuncId, stmt: Option<&tessera_ir::Stmt>) -> bool {
    uses(prog, func, stmt, &|t| t.contains_union(&prog.structs))
}

/// True when the code of `func` (or of `stmt` in it), or of a function it
/// calls, has a value or local of a type `bad_type` picks.
fn uses(
    prog: &Program,
    func: FuncId,
    stmt: Option<&tessera_ir::Stmt>,
    bad_type: &dyn Fn(&tessera_ir::Type) -> bool,
) -> bool {
    let mut calls = Vec::new();
    let found = std::cell::Cell::new(false);
    // The walks below visit every sub-expression: each node is looked at once.
    let look = |x: &tessera_ir::Expr, calls: &mut Vec<FuncId>| {
        if bad_type(&x.ty) {
            found.set(true);
        }
        if let tessera_ir::ExprKind::Call { func, .. } = x.kind {
            calls.push(func);
        }
    };
    match stmt {
        Some(s) => tessera_ir::visit::walk_stmt(s, &mut |_| {}, &mut |e| look(e, &mut calls)),
        None => calls.push(func),
    }
    let mut seen = vec![false; prog.functions.len()];
    while let Some(f) = calls.pop() {
        if found.get() {
            return true;
        }
        let Some(slot) = seen.get_mut(f.index()) else {
            continue;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        let Some(function) = prog.get_function(f) else {
            continue;
        };
        if bad_type(&function.ret) || function.locals.iter().any(|l| bad_type(&l.ty)) {
            return true;
        }
        if let Some(body) = &function.body {
            tessera_ir::visit::walk_block(body, &mut |_| {}, &mut |e| look(e, &mut calls));
        }
    }
    found.get()
}

/// True when a kernel captures a union or data holding unions other than
/// through a view: the hand-off of such an object carries no tags.
fn captures_union(prog: &Program, kernel: FuncId) -> bool {
    match prog.get_function(kernel).map(|f| &f.kind) {
        Some(tessera_ir::FunctionKind::Kernel { captures, .. }) => {
            captures.iter().any(|c| {
                // A view's elements carry their tags (the hand-off's stride
                // has room for them); other captured objects do not.
                !matches!(
                    c.ty,
                    tessera_ir::Type::Array(..) | tessera_ir::Type::ArrayView { .. }
                ) && c.ty.contains_union(&prog.structs)
            })
        }
        _ => false,
    }
}

/// Builds the native code module, or says why this machine cannot; with
/// the target it compiles for (shared with the thread of
/// [`Jit::compile_ahead`]).
fn new_module() -> Result<(JITModule, HelperIds, OwnedTargetIsa), String> {
    let mut flags = settings::builder();
    let set = |flags: &mut settings::Builder, k: &str, v: &str| {
        flags
            .set(k, v)
            .map_err(|e| format!("cranelift setting {k}: {e}"))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(
        &mut flags,
        "enable_verifier",
        if cfg!(any(debug_assertions, feature = "verify")) {
            "true"
        } else {
            "false"
        },
    )?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    // The code offsets of each function's blocks, from which
    // `machine_code` places its loops (see `placement`).
    set(&mut flags, "machine_code_cfg_info", "true")?;
    let isa = cranelift_native::builder()
        .map_err(|e| format!("this machine is not supported: {e}"))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| format!("cranelift: {e}"))?;
    let mut jb = JITBuilder::with_isa(isa.clone(), cranelift_module::default_libcall_names());
    for (name, ptr) in exec::helper_symbols() {
        jb.symbol(name, ptr);
    }
    let mut module = JITModule::new(jb);
    let mut declare = |name: &str, params: &[types::Type], ret: types::Type| {
        let mut sig = module.make_signature();
        for p in params {
            sig.params.push(AbiParam::new(*p));
        }
        sig.returns.push(AbiParam::new(ret));
        module
            .declare_function(name, Linkage::Import, &sig)
            .map_err(|e| format!("cranelift: {e}"))
    };
    let math_f32 = declare(
        "tessera_math_f32",
        &[types::I32, types::F32, types::F32, types::F32],
        types::F32,
    )?;
    let math_f64 = declare(
        "tessera_math_f64",
        &[types::I32, types::F64, types::F64, types::F64],
        types::F64,
    )?;
    let poll = declare("tessera_poll", &[types::I64], types::I32)?;
    let print_scalar = declare(
        "tessera_print_scalar",
        &[types::I64, types::I32, types::I64],
        types::I32,
    )?;
    let print_item = declare(
        "tessera_print_item",
        &[types::I64, types::I32, types::I32],
        types::I32,
    )?;
    let print_printf = declare(
        "tessera_printf",
        &[types::I64, types::I32, types::I64, types::I32],
        types::I32,
    )?;
    let rand = declare("tessera_rand", &[types::I64], types::I32)?;
    let push = declare(
        "tessera_push",
        &[types::I64, types::I32, types::I64, types::I64],
        types::I64,
    )?;
    let random = declare(
        "tessera_random",
        &[types::I64, types::I32, types::I64, types::I64],
        types::I64,
    )?;
    Ok((
        module,
        HelperIds {
            math_f32,
            math_f64,
            poll,
            print_scalar,
            print_item,
            print_printf,
            rand,
            push,
            random,
        },
        isa,
    ))
}

/// Gives the function in `ctx` the kernel signature and the helpers.
fn start_function(
    module: &mut JITModule,
    ids: HelperIds,
    ctx: &mut cranelift_codegen::Context,
) -> emit::Helpers {
    emit::kernel_signature(&mut ctx.func.signature);
    emit::Helpers {
        math_f32: module.declare_func_in_func(ids.math_f32, &mut ctx.func),
        math_f64: module.declare_func_in_func(ids.math_f64, &mut ctx.func),
        poll: module.declare_func_in_func(ids.poll, &mut ctx.func),
        print: None,
        printf: None,
        rand: None,
        push: None,
        random: None,
        outlined: HashMap::new(),
    }
}

/// Makes the functions of `outlined` that code lowered for `from` calls
/// (see [`plan::outline::called_out_of_line`]) callable from the function
/// in `ctx`, through `helpers`: the bytes of stack slots they use
/// together, a bound for any chain of them (none is twice on a chain).
fn import_outlined(
    prog: &Program,
    module: &mut JITModule,
    from: FuncId,
    outlined: Option<&[(FuncId, Outlined)]>,
    helpers: &mut emit::Helpers,
    ctx: &mut cranelift_codegen::Context,
) -> u32 {
    let Some(outlined) = outlined else {
        return 0;
    };
    let ids: HashMap<FuncId, cranelift_module::FuncId> =
        outlined.iter().map(|(f, out)| (*f, out.id)).collect();
    for f in plan::outline::called_out_of_line(prog, from, &|f| ids.contains_key(&f)) {
        if let Some(id) = ids.get(&f) {
            helpers
                .outlined
                .insert(f, module.declare_func_in_func(*id, &mut ctx.func));
        }
    }
    outlined
        .iter()
        .fold(0u32, |sum, (_, out)| sum.saturating_add(out.stack))
}

/// Declares, compiles and finalizes the function in `ctx`.
fn define(
    module: &mut JITModule,
    name: &str,
    ctx: &mut cranelift_codegen::Context,
    cache: Option<&cache::CodeCache>,
) -> Result<cranelift_module::FuncId, String> {
    let id = module
        .declare_function(name, Linkage::Local, &ctx.func.signature)
        .map_err(|e| e.to_string())?;
    let code = machine_code(module.isa(), ctx, id, cache)?;
    module
        .define_function_bytes(id, code.alignment, &code.bytes, &code.relocs)
        .map_err(|e| e.to_string())?;
    module.clear_context(ctx);
    module.finalize_definitions().map_err(|e| e.to_string())?;
    Ok(id)
}

/// Lowers with fewer lanes next time: jammed lane groups first give way to
/// one group per pass, then lanes to one work-item at a time. False when
/// there were no lanes left to give up.
fn fewer_lanes(plan: &mut emit::KernelLayout) -> bool {
    if !plan.lanes {
        return false;
    }
    if plan.jam {
        plan.jam = false;
    } else {
        plan.lanes = false;
    }
    true
}

/// Most loops of `main` compiled ahead (see [`Jit::compile_ahead`]): their
/// Cranelift IR (0.1-0.25 ms each) is made before the program starts,
/// also for loops the run never reaches.
const MAX_AHEAD: usize = 16;

/// The run at which a host loop doing little work (see [`plan::work`]) is
/// compiled all the same: a loop run that often (in a function called
/// from interpreted code) does more than little work in all.
const LITTLE_RUNS: u32 = 3;

/// A host statement whose machine code the thread of
/// [`Jit::compile_ahead`] makes.
struct AheadHost {
    plan: emit::HostLayout,
    /// Its function in the module, declared, defined when taken.
    id: cranelift_module::FuncId,
    /// Where its code arrives.
    code: std::sync::mpsc::Receiver<Result<MachineCode, String>>,
}

/// A function's machine code, made away from its module.
struct MachineCode {
    bytes: Vec<u8>,
    relocs: Vec<ModuleReloc>,
    alignment: u64,
}

/// A kernel lowered ahead of its first launch (see
/// [`Jit::speculate_after`]).
struct Speculated {
    /// The layout it was lowered with: its extent bound and the captures
    /// assumed to cover the launch, which the launch checks.
    layout: emit::KernelLayout,
    /// Its function in the module, declared, defined when taken.
    id: cranelift_module::FuncId,
    /// Where its code arrives.
    code: std::sync::mpsc::Receiver<Result<MachineCode, String>>,
    /// Its joined function, when it has one, likewise.
    joined: Option<(
        cranelift_module::FuncId,
        std::sync::mpsc::Receiver<Result<MachineCode, String>>,
    )>,
}

/// A function lowered to Cranelift IR whose machine code another thread
/// makes, and where to send it.
type CodeJob = (
    cranelift_codegen::Context,
    cranelift_module::FuncId,
    std::sync::mpsc::Sender<Result<MachineCode, String>>,
);

/// Makes the machine code of `jobs`, in order, on a thread of its own,
/// until `stop` is set. A thread that cannot start drops the jobs: each
/// function is then compiled where it is needed, as without this.
fn machine_code_elsewhere(
    isa: OwnedTargetIsa,
    stop: Arc<AtomicBool>,
    jobs: Vec<CodeJob>,
    cache: Option<Arc<cache::CodeCache>>,
) {
    let _ = std::thread::Builder::new()
        .name("tessera-compile".into())
        .spawn(move || {
            for (mut ctx, id, send) in jobs {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let _ = send.send(machine_code(&*isa, &mut ctx, id, cache.as_deref()));
            }
        });
}

/// At most this many kernels are lowered ahead at a launch.
const MAX_SPECULATED: usize = 2;

/// What a kernel lowered ahead assumes of its captures (see
/// [`Jit::lower_ahead`]).
struct Assumed {
    /// For a domain of the launch's rank: which captures cover it.
    same_rank: Vec<bool>,
    /// The rank of each capture that is a view or `array` local.
    view_ranks: Vec<Option<tessera_ir::Rank>>,
}

/// A kernel `main` launches: the local each capture slot names, where
/// its first launch in `main`'s text captures a local as it is.
struct MainLaunch {
    kernel: FuncId,
    captured: Vec<Option<tessera_ir::LocalId>>,
    /// The rank of each capture that is a view or `array` local.
    view_ranks: Vec<Option<tessera_ir::Rank>>,
}

/// The kernels `main` launches, each once, in the order of their first
/// launch in its text.
fn launched_in_main(prog: &Program) -> Vec<MainLaunch> {
    let mut order: Vec<MainLaunch> = Vec::new();
    let Some(main) = prog.main.map(|m| prog.function(m)) else {
        return order;
    };
    let Some(body) = main.body.as_ref() else {
        return order;
    };
    tessera_ir::visit::for_each_stmt(body, &mut |node| {
        if let tessera_ir::visit::Node::Expr(e) = node {
            tessera_ir::visit::for_each_subexpr(e, &mut |x| {
                if let tessera_ir::ExprKind::Launch {
                    kernel, captures, ..
                } = &x.kind
                    && !order.iter().any(|l| l.kernel == *kernel)
                {
                    let captured: Vec<Option<tessera_ir::LocalId>> = captures
                        .iter()
                        .map(|c| match c.kind {
                            tessera_ir::ExprKind::Local(l) => Some(l),
                            _ => None,
                        })
                        .collect();
                    let view_ranks = captured
                        .iter()
                        .map(|l| {
                            let local = main.get_local((*l)?)?;
                            match local.ty {
                                tessera_ir::Type::ArrayView { rank, .. }
                                | tessera_ir::Type::Array(_, rank) => Some(rank),
                                _ => None,
                            }
                        })
                        .collect();
                    order.push(MainLaunch {
                        kernel: *kernel,
                        captured,
                        view_ranks,
                    });
                }
            });
        }
    });
    order
}

/// Compiles the function in `ctx`, to be function `id` of a module: its
/// code starts on a cache line, after the no-ops that place its loops.
/// With a `cache`, code kept from an earlier compile of the same IR is
/// taken instead, and new code is kept.
fn machine_code(
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    ctx: &mut cranelift_codegen::Context,
    id: cranelift_module::FuncId,
    cache: Option<&cache::CodeCache>,
) -> Result<MachineCode, String> {
    let Some(cache) = cache else {
        return compile_function(isa, ctx, id);
    };
    let key = cache.key(&ctx.func);
    if let Some(code) = cache.load(&key, id) {
        return Ok(code);
    }
    let code = compile_function(isa, ctx, id)?;
    cache.save(&key, &code);
    Ok(code)
}

/// [`machine_code`] made by Cranelift.
fn compile_function(
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    ctx: &mut cranelift_codegen::Context,
    id: cranelift_module::FuncId,
) -> Result<MachineCode, String> {
    let mut plane = cranelift_codegen::control::ControlPlane::default();
    // (The code is for this machine: `cranelift_native` chose the target.)
    let place = cfg!(target_arch = "x86_64");
    let depths = if place {
        placement::tag_innermost_loops(&mut ctx.func)
    } else {
        Vec::new()
    };
    ctx.compile(isa, &mut plane)
        .map_err(|e| format!("{:?}", e.inner))?;
    let Some(compiled) = ctx.compiled_code() else {
        return Err("no code was made".to_string());
    };
    let code = compiled.code_buffer();
    let own_alignment = compiled.buffer.alignment;
    // The function starts on a cache line, after as many no-ops as put
    // its innermost loops early in their lines (see `placement`).
    let padding = if place {
        let spans = placement::compiled_loop_spans(compiled, &depths);
        placement::loop_padding(&spans, own_alignment)
    } else {
        0
    };
    let mut bytes = placement::x86_nops(padding as usize);
    bytes.extend_from_slice(code);
    let relocs = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| {
            let mut reloc = ModuleReloc::from_mach_reloc(r, &ctx.func, id);
            reloc.offset += padding;
            reloc
        })
        .collect();
    Ok(MachineCode {
        bytes,
        relocs,
        alignment: u64::from(own_alignment.max(placement::LINE)),
    })
}

/// The loops of `block` that are not inside another loop, through blocks
/// and branches: those the interpreter offers the engine first.
fn outer_loops<'b>(block: &'b tessera_ir::Block, out: &mut Vec<&'b tessera_ir::Stmt>) {
    use tessera_ir::StmtKind;
    for s in &block.stmts {
        match &s.kind {
            StmtKind::Loop { .. } => out.push(s),
            StmtKind::Block(b) => outer_loops(b, out),
            StmtKind::If { then, els, .. } => {
                outer_loops(then, out);
                if let Some(els) = els {
                    outer_loops(els, out);
                }
            }
            _ => {}
        }
    }
}

impl<'p> Jit<'p> {
    /// An engine for `prog` running launches on `threads` workers (at least 1).
    pub fn new(prog: &'p Program, threads: usize) -> Jit<'p> {
        let (module, helper_ids, isa) = match new_module() {
            Ok((m, h, i)) => (Some(m), Some(h), Some(i)),
            Err(_) => (None, None, None),
        };
        Jit {
            prog,
            module,
            helper_ids,
            kernels: HashMap::new(),
            compilations: HashMap::new(),
            generated: 0,
            // Started now, the workers are running by the first launch.
            pool: (threads > 1).then(|| exec::Pool::new(threads - 1)),
            hosts: HashMap::new(),
            little_runs: HashMap::new(),
            isa,
            ahead: HashMap::new(),
            ahead_stop: Arc::new(AtomicBool::new(false)),
            speculative: HashMap::new(),
            speculated: std::collections::HashSet::new(),
            main_launches: None,
            threads: threads.max(1),
            stats: Stats {
                threads: threads.max(1),
                ..Stats::default()
            },
            cache: None,
            outlined: HashMap::new(),
            outlined_clif: HashMap::new(),
            outlines: HashMap::new(),
        }
    }

    /// The worker threads for this machine: one per core.
    pub fn default_threads() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// What the engine has done so far.
    pub fn stats(&self) -> Stats {
        let mut stats = self.stats.clone();
        stats.cached = self.cache.as_ref().map_or(0, |c| c.hits());
        stats
    }

    /// Keeps the machine code this engine makes in `store`, and takes code
    /// kept there by an earlier run when it was made from the same
    /// Cranelift IR for the same target (see the `cache` module). Call it
    /// before [`Jit::compile_ahead`].
    pub fn keep_code_in(&mut self, store: Arc<dyn CodeStore>) {
        let (Some(module), Some(ids)) = (self.module.as_ref(), self.helper_ids) else {
            return;
        };
        let count = ids.count();
        let names: Vec<String> = module
            .declarations()
            .get_functions()
            .take(count)
            .map(|(_, f)| f.name.clone().unwrap_or_default())
            .collect();
        if names.len() != count {
            return;
        }
        self.cache = Some(Arc::new(cache::CodeCache::new(store, module.isa(), &names)));
    }

    /// The extent bound to compile `kernel` for ahead of a launch over
    /// `extent`: at first each component rounded up to a power of two, so
    /// value ranges computed from the coordinates are tight and their
    /// overflow checks go; a launch past that bound compiles it once more
    /// for the larger of the two, and a third time with no bound at all.
    fn extent_bound(&mut self, kernel: FuncId, extent: &[i64]) -> Option<Vec<i64>> {
        let max = i64::from(i32::MAX);
        let count = self.compilations.entry(kernel).or_insert(0);
        *count += 1;
        let old = match self.kernels.get(&kernel) {
            Some(Ok(c)) => c.layout.extent_bound.clone(),
            _ => Vec::new(),
        };
        if *count > 2 {
            return None;
        }
        let bound = extent
            .iter()
            .enumerate()
            .map(|(d, e)| {
                let e = (*e).max(old.get(d).copied().unwrap_or(1)).clamp(1, max);
                u64::try_from(e)
                    .ok()
                    .and_then(u64::checked_next_power_of_two)
                    .and_then(|p| i64::try_from(p).ok())
                    .unwrap_or(max)
                    .min(max)
            })
            .collect();
        Some(bound)
    }

    /// Why `kernel` runs in the interpreter whatever its launch, if it
    /// does: no native code, pointers that do not behave as references
    /// (the interpreter checks every pointer), unions in the kernel's own
    /// memory (`emit/unions.rs` keeps tags; a launch's data does not say
    /// which members are active).
    fn never_compiled(&self, kernel: FuncId) -> Option<Decline> {
        if self.module.is_none() || self.helper_ids.is_none() {
            return Some(Decline::NoNativeCode);
        }
        if let Some(why) = plan::pointers::pointer_decline(self.prog, kernel) {
            return Some(why);
        }
        captures_union(self.prog, kernel).then_some(Decline::UnionCapture)
    }

    /// The plan of `kernel` for launches within `bound` (any launch
    /// without one), assuming the captures `covering` marks cover them.
    fn kernel_plan(
        &self,
        kernel: FuncId,
        bound: Option<Vec<i64>>,
        covering: Vec<bool>,
    ) -> Result<emit::KernelLayout, Decline> {
        let mut plan = emit::Emitter::plan(self.prog, kernel)?;
        if let Some(bound) = bound
            && bound.len() == plan.extent_bound.len()
        {
            plan.extent_bound = bound;
        }
        plan.covering = covering;
        Ok(plan)
    }

    /// Lowers `kernel` to Cranelift IR in `ctx` with `plan`: again with
    /// fewer lanes when a region run in lanes is declined (four lanes take
    /// four copies of a statement that runs lane by lane, which may pass
    /// a budget), and again with a larger frame when the first pass found
    /// it needs one. The layout of the lowered code.
    fn lower_kernel(
        &mut self,
        kernel: FuncId,
        plan: &mut emit::KernelLayout,
        ctx: &mut cranelift_codegen::Context,
    ) -> Result<emit::KernelLayout, Decline> {
        let mut min_frame = 0;
        let tree = plan::outline::call_tree(self.prog, kernel);
        // Functions called out of line, once inlining them all was too
        // large (kept for the kernel's later compiles).
        let mut outlined = match self.outlines.get(&kernel) {
            Some(tried) => tried.clone(),
            None if tree
                .as_ref()
                .is_some_and(|t| t.outline_first(emit::INLINE_BUDGET)) =>
            {
                self.outline(kernel)
            }
            None => None,
        };
        // Calls of functions with barriers: shared from the start when
        // inlined they would be many, else once inlining passed a budget.
        let sharing = tree.and_then(|t| t.shared_calls());
        if sharing == Some(true) {
            plan.shared_calls = true;
        }
        loop {
            let (Some(module), Some(ids)) = (self.module.as_mut(), self.helper_ids) else {
                return Err(Decline::NoNativeCode);
            };
            ctx.func.clear();
            // Called as `extern "C"` (`exec::KernelFn`): the platform's
            // convention, which `clear` replaced.
            ctx.func.signature.call_conv = module.isa().default_call_conv();
            let mut helpers = start_function(module, ids, ctx);
            let outlined_stack = import_outlined(
                self.prog,
                module,
                kernel,
                outlined.as_deref().map(Vec::as_slice),
                &mut helpers,
                ctx,
            );
            let frontend = module.isa().frontend_config();
            let mut fbc = FunctionBuilderContext::new();
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
            let mut layout = match emit::Emitter::emit(
                self.prog,
                kernel,
                &mut b,
                helpers,
                plan.clone(),
                min_frame,
            ) {
                Ok(l) => l,
                Err(Decline::InLanes(inner)) => {
                    if !fewer_lanes(plan) {
                        return Err(*inner);
                    }
                    min_frame = 0;
                    continue;
                }
                Err(
                    e @ (Decline::KernelTooManyVariablesAndBlocks
                    | Decline::KernelTooLargeAfterInliningCalls),
                ) => {
                    // Smaller code: first the calls that can be made out
                    // of line, then the calls of functions with barriers
                    // sharing their bodies.
                    if !self.outlines.contains_key(&kernel)
                        && let Some(made) = self.outline(kernel)
                    {
                        outlined = Some(made);
                    } else if !plan.shared_calls && sharing.is_some() {
                        plan.shared_calls = true;
                    } else {
                        return Err(e);
                    }
                    min_frame = 0;
                    continue;
                }
                Err(e) => return Err(e),
            };
            b.finalize(frontend);
            if layout.frame_needed > layout.frame_bytes {
                if min_frame != 0 {
                    // Lowering is deterministic: a second pass never needs more.
                    return Err(Decline::FrameLayoutUnsettled);
                }
                min_frame = layout.frame_needed;
                continue;
            }
            // Each outlined function is at most once on a chain of calls
            // (there is no cycle): their slots together bound the stack
            // they add.
            layout.stack_bytes = layout.stack_bytes.saturating_add(outlined_stack);
            return Ok(layout);
        }
    }

    /// Compiles the functions `kernel` can call out of line (see
    /// [`plan::outline`]) into the module, once each for the engine: their
    /// ids and the stack bytes each uses, or `None` when there are none or
    /// one of them does not compile.
    fn outline(&mut self, kernel: FuncId) -> Option<Outlines> {
        let made = self.compile_outlined(kernel);
        self.outlines.insert(kernel, made.clone());
        made
    }

    /// [`Self::outline`]'s work, each time it is asked.
    fn compile_outlined(&mut self, kernel: FuncId) -> Option<Outlines> {
        let chosen = plan::outline::candidates(self.prog, kernel)?;
        let (module, ids) = (self.module.as_mut()?, self.helper_ids?);
        // Declared first, so that each body can call the others; those
        // compiled for an earlier kernel are taken as they are.
        let mut declared = Vec::new();
        let mut new = Vec::new();
        for &f in &chosen {
            if let Some(done) = self.outlined.get(&f) {
                declared.push((f, *done));
                continue;
            }
            let mut sig = module.make_signature();
            emit::outlined_signature(&mut sig, self.prog, f).ok()?;
            self.generated += 1;
            let name = format!("outlined_{}_{}", f.0, self.generated);
            let id = module.declare_function(&name, Linkage::Local, &sig).ok()?;
            new.push((declared.len(), sig));
            declared.push((f, Outlined { id, stack: 0 }));
        }
        // Machine code for every new one first, then all defined at once:
        // one defined while another fails would name an undefined function.
        let mut made = Vec::new();
        let mut ctx = module.make_context();
        for (k, sig) in new {
            let (f, Outlined { id, .. }) = declared[k];
            ctx.func.clear();
            let mut helpers = start_function(module, ids, &mut ctx);
            ctx.func.signature = sig;
            import_outlined(
                self.prog,
                module,
                f,
                Some(&declared),
                &mut helpers,
                &mut ctx,
            );
            let frontend = module.isa().frontend_config();
            let mut fbc = FunctionBuilderContext::new();
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
            let stack = emit::Emitter::emit_outlined(self.prog, f, &mut b, helpers).ok()?;
            b.finalize(frontend);
            self.outlined_clif.insert(f, ctx.func.display().to_string());
            let code = machine_code(module.isa(), &mut ctx, id, self.cache.as_deref()).ok()?;
            module.clear_context(&mut ctx);
            declared[k].1.stack = stack;
            made.push((id, code));
        }
        for (id, code) in made {
            module
                .define_function_bytes(id, code.alignment, &code.bytes, &code.relocs)
                .ok()?;
        }
        module.finalize_definitions().ok()?;
        for (f, done) in &declared {
            self.outlined.insert(*f, *done);
        }
        Some(Arc::new(declared))
    }

    /// Compiles one kernel, for launches whose extent is within `bound`
    /// (any launch without one); with `clif`, also returns its Cranelift
    /// IR.
    fn compile(
        &mut self,
        kernel: FuncId,
        clif: bool,
        bound: Option<Vec<i64>>,
        covering: Vec<bool>,
    ) -> (Result<Compiled, Decline>, String) {
        if let Some(why) = self.never_compiled(kernel) {
            return (Err(why), String::new());
        }
        let started = Instant::now();
        let mut plan = match self.kernel_plan(kernel, bound, covering) {
            Ok(p) => p,
            Err(e) => return (Err(e), String::new()),
        };
        let Some(mut ctx) = self.module.as_ref().map(|m| m.make_context()) else {
            return (Err(Decline::NoNativeCode), String::new());
        };
        let (compiled, text) = loop {
            let layout = match self.lower_kernel(kernel, &mut plan, &mut ctx) {
                Ok(l) => l,
                Err(e) => return (Err(e), String::new()),
            };
            let text = if clif {
                ctx.func.display().to_string()
            } else {
                String::new()
            };
            self.generated += 1;
            let name = format!("kernel_{}_{}", kernel.0, self.generated);
            let Some(module) = self.module.as_mut() else {
                return (Err(Decline::NoNativeCode), text);
            };
            match define(module, &name, &mut ctx, self.cache.as_deref()) {
                Ok(id) => {
                    break (
                        Ok(Compiled {
                            entry: module.get_finalized_function(id) as usize,
                            layout,
                            joined: None,
                        }),
                        text,
                    );
                }
                // A vector form the code generator cannot lower: the
                // kernel again with fewer lanes.
                Err(_) if plan.lanes => {
                    module.clear_context(&mut ctx);
                    fewer_lanes(&mut plan);
                }
                Err(e) => break (Err(Decline::CodeGeneration(e.to_string())), text),
            }
        };
        let (compiled, text) = match compiled {
            // `lower_joined` decides whether the kernel has one.
            Ok(mut c) => {
                let (joined, joined_text) = self.compile_joined(kernel, &c.layout, clif);
                c.joined = joined;
                let text = match joined {
                    Some(_) if clif => format!(
                        "{text}\n; joined: {} tiles per call\n{joined_text}",
                        emit::JOINED_TILES
                    ),
                    _ => text,
                };
                (Ok(c), text)
            }
            other => (other, text),
        };
        self.stats.compile += started.elapsed();
        if compiled.is_ok() {
            self.stats.compiled += 1;
        }
        (compiled, text)
    }

    /// The joined function of a tiled kernel compiled with `layout` (see
    /// `emit::join`), if the kernel has one whose memory layout is
    /// `layout`'s: the launch then gives each of the call's tiles memory
    /// and frames of that size.
    /// With `clif`, its IR as text too.
    fn compile_joined(
        &mut self,
        kernel: FuncId,
        layout: &emit::KernelLayout,
        clif: bool,
    ) -> (Option<usize>, String) {
        let Some(mut ctx) = self.lower_joined(kernel, layout) else {
            return (None, String::new());
        };
        let text = if clif {
            ctx.func.display().to_string()
        } else {
            String::new()
        };
        self.generated += 1;
        let name = format!("joined_{}_{}", kernel.0, self.generated);
        let Some(module) = self.module.as_mut() else {
            return (None, String::new());
        };
        match define(module, &name, &mut ctx, self.cache.as_deref()) {
            Ok(id) => (Some(module.get_finalized_function(id) as usize), text),
            Err(_) => {
                module.clear_context(&mut ctx);
                (None, String::new())
            }
        }
    }

    /// The joined function of a tiled kernel lowered with `layout` (see
    /// [`Self::compile_joined`]) to Cranelift IR, if it has one whose
    /// memory layout is `layout`'s.
    fn lower_joined(
        &mut self,
        kernel: FuncId,
        layout: &emit::KernelLayout,
    ) -> Option<cranelift_codegen::Context> {
        if layout.tile.is_none() || !emit::join_candidate(self.prog, kernel) {
            return None;
        }
        let (Some(module), Some(ids)) = (self.module.as_mut(), self.helper_ids) else {
            return None;
        };
        let mut ctx = module.make_context();
        let mut helpers = start_function(module, ids, &mut ctx);
        let outlined = self.outlines.get(&kernel).cloned().flatten();
        import_outlined(
            self.prog,
            module,
            kernel,
            outlined.as_deref().map(Vec::as_slice),
            &mut helpers,
            &mut ctx,
        );
        let frontend = module.isa().frontend_config();
        let mut fbc = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let mut plan = layout.clone();
        plan.join = true;
        let joined =
            emit::Emitter::emit(self.prog, kernel, &mut b, helpers, plan, layout.frame_bytes)
                .ok()?;
        b.finalize(frontend);
        if joined.frame_needed > layout.frame_bytes
            || joined.stack_bytes > emit::STACK_BUDGET
            || joined.frame_bytes != layout.frame_bytes
            || joined.scratch_bytes != layout.scratch_bytes
        {
            return None;
        }
        Some(ctx)
    }

    /// Compiles one host statement (or takes the code
    /// [`Self::compile_ahead`] made for it).
    fn compile_host(
        &mut self,
        func: FuncId,
        stmt: &tessera_ir::Stmt,
    ) -> Result<CompiledHost, Decline> {
        if let Some(ahead) = self.ahead.remove(&(func, stmt.id))
            && let Some(done) = self.take_ahead(ahead)
        {
            return done;
        }
        if plan::work::little_work(self.prog, func, stmt) {
            let runs = self.little_runs.entry((func, stmt.id)).or_insert(0);
            *runs += 1;
            if *runs < LITTLE_RUNS {
                return Err(Decline::LittleWork);
            }
        }
        // `host_ir` counts its own time.
        let (mut ctx, plan) = self.host_ir(func, stmt)?;
        let started = Instant::now();
        let Some(module) = self.module.as_mut() else {
            return Err(Decline::NoNativeCode);
        };
        let name = format!("host_{}", self.hosts.len());
        let result = define(module, &name, &mut ctx, self.cache.as_deref());
        self.stats.compile += started.elapsed();
        match result {
            Ok(id) => {
                self.stats.compiled += 1;
                Ok(CompiledHost {
                    entry: module.get_finalized_function(id) as usize,
                    layout: plan,
                })
            }
            Err(e) => Err(Decline::CodeGeneration(e.to_string())),
        }
    }

    /// The Cranelift IR of one host statement, and its layout.
    fn host_ir(
        &mut self,
        func: FuncId,
        stmt: &tessera_ir::Stmt,
    ) -> Result<(cranelift_codegen::Context, emit::HostLayout), Decline> {
        let (Some(module), Some(ids)) = (self.module.as_mut(), self.helper_ids) else {
            return Err(Decline::NoNativeCode);
        };
        if host_pointers(self.prog, func, stmt) {
            return Err(Decline::Pointer);
        }
        if uses_unions(self.prog, func, Some(stmt)) {
            return Err(Decline::Union);
        }
        let started = Instant::now();
        let plan = emit::Emitter::plan_host(self.prog, func, stmt)?;
        let mut ctx = module.make_context();
        let mut helpers = start_function(module, ids, &mut ctx);
        helpers.print = Some((
            module.declare_func_in_func(ids.print_scalar, &mut ctx.func),
            module.declare_func_in_func(ids.print_item, &mut ctx.func),
        ));
        helpers.printf = Some(module.declare_func_in_func(ids.print_printf, &mut ctx.func));
        helpers.rand = Some(module.declare_func_in_func(ids.rand, &mut ctx.func));
        helpers.push = Some(module.declare_func_in_func(ids.push, &mut ctx.func));
        helpers.random = Some(module.declare_func_in_func(ids.random, &mut ctx.func));
        let frontend = module.isa().frontend_config();
        let mut fbc = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let mut plan = plan;
        let emitted = emit::Emitter::emit_host(self.prog, func, stmt, &mut b, helpers, &plan);
        self.stats.compile += started.elapsed();
        plan.print_items = emitted?;
        b.finalize(frontend);
        Ok((ctx, plan))
    }

    /// Starts compiling the loops of `main` that the interpreter will
    /// offer this engine (those not inside another loop) on a thread of
    /// their own: their Cranelift IR is made here, their machine code
    /// there, while the program's first kernels compile and run, and
    /// [`Self::compile_host`] takes it when a loop is reached (waiting for
    /// it if need be). Machine code is most of a loop's compile time.
    pub fn compile_ahead(&mut self) {
        let Some(main) = self.prog.main else {
            return;
        };
        let Some(body) = &self.prog.function(main).body else {
            return;
        };
        let Some(isa) = self.isa.clone() else {
            return;
        };
        let mut loops = Vec::new();
        outer_loops(body, &mut loops);
        let mut jobs = Vec::new();
        for stmt in loops.into_iter().take(MAX_AHEAD) {
            let key = (main, stmt.id);
            if stmt.id == StmtId::UNNUMBERED
                || self.hosts.contains_key(&key)
                || self.ahead.contains_key(&key)
                || plan::work::little_work(self.prog, main, stmt)
            {
                continue;
            }
            let Ok((ctx, plan)) = self.host_ir(main, stmt) else {
                continue;
            };
            let Some(module) = self.module.as_mut() else {
                return;
            };
            let name = format!("ahead_{}_{}", main.0, stmt.id.0);
            let Ok(id) = module.declare_function(&name, Linkage::Local, &ctx.func.signature) else {
                continue;
            };
            let (send, code) = std::sync::mpsc::channel();
            jobs.push((ctx, id, send));
            self.ahead.insert(key, AheadHost { plan, id, code });
        }
        if jobs.is_empty() {
            return;
        }
        machine_code_elsewhere(isa, Arc::clone(&self.ahead_stop), jobs, self.cache.clone());
    }

    /// Before `launch`'s kernel is compiled for a bound, or else once its
    /// code is ready, before it runs: the next kernels `main` launches
    /// after it (at most [`MAX_SPECULATED`])
    /// that have no code yet and whose domain has no more dimensions are
    /// lowered now for a guessed extent bound (this launch's, or, for
    /// fewer dimensions, its largest component in each), and their
    /// machine code is made on a thread of its own while this launch
    /// runs (and while this thread compiles the launch's own kernel):
    /// most of a kernel's compile time is there. A capture is
    /// assumed to cover the launch when it is a local this launch
    /// captures too and covers this launch, or, for fewer dimensions, a
    /// view or `array` local of the kernel's rank. A wrong guess costs
    /// that thread's time only: a launch checks
    /// that such code covers it ([`emit::KernelLayout::covers`]), as it
    /// checks any code it reuses, and compiles the kernel for itself
    /// otherwise.
    fn speculate_after(&mut self, launch: &Launch, bound: &[i64]) {
        let Some(isa) = self.isa.clone() else {
            return;
        };
        let prog = self.prog;
        let order = Arc::clone(
            self.main_launches
                .get_or_insert_with(|| Arc::new(launched_in_main(prog))),
        );
        let Some(at) = order.iter().position(|l| l.kernel == launch.kernel) else {
            return;
        };
        let waiting = |k: &FuncId| !self.kernels.contains_key(k) && !self.speculated.contains(k);
        // Most launches find every later kernel compiled or lowered already.
        if !order.iter().skip(at + 1).any(|l| waiting(&l.kernel)) {
            return;
        }
        // The locals this launch captures that cover it.
        let covering: Vec<tessera_ir::LocalId> = order[at]
            .captured
            .iter()
            .zip(&launch.args)
            .filter_map(|(l, arg)| l.filter(|_| emit::view_covers(arg, &launch.extent)))
            .collect();
        let mut jobs = Vec::new();
        let mut lowered = 0;
        for next in order.iter().skip(at + 1) {
            if lowered == MAX_SPECULATED {
                break;
            }
            if self.kernels.contains_key(&next.kernel) || self.speculated.contains(&next.kernel) {
                continue;
            }
            let assumed = Assumed {
                same_rank: next
                    .captured
                    .iter()
                    .map(|l| l.is_some_and(|l| covering.contains(&l)))
                    .collect(),
                view_ranks: next.view_ranks.clone(),
            };
            if let Some(made) = self.lower_ahead(next.kernel, bound, assumed) {
                jobs.extend(made);
                lowered += 1;
            }
        }
        if !jobs.is_empty() {
            machine_code_elsewhere(isa, Arc::clone(&self.ahead_stop), jobs, self.cache.clone());
        }
    }

    /// `kernel` lowered for launches within `bound` whose captures cover
    /// them as `assumed` says (see [`Self::speculate_after`]), kept in
    /// `speculative`: the jobs that make its machine code (and its joined
    /// function's). `None` when its domain has more dimensions than
    /// `bound` or it does not lower.
    fn lower_ahead(
        &mut self,
        kernel: FuncId,
        bound: &[i64],
        assumed: Assumed,
    ) -> Option<Vec<CodeJob>> {
        if self.never_compiled(kernel).is_some() {
            return None;
        }
        let started = Instant::now();
        let mut plan = self.kernel_plan(kernel, None, Vec::new()).ok()?;
        let rank = plan.extent_bound.len();
        if rank == bound.len() {
            plan.extent_bound = bound.to_vec();
            plan.covering = assumed.same_rank;
        } else if rank < bound.len() {
            // A kernel over fewer dimensions, such as the rows of the
            // matrix this launch covers: each of its components guessed
            // to be as large as this launch's largest, and its views of
            // its own rank to cover it.
            let largest = bound.iter().copied().max()?;
            plan.extent_bound = vec![largest; rank];
            plan.covering = assumed
                .view_ranks
                .iter()
                .map(|r| r.is_some_and(|r| usize::from(r) == rank))
                .collect();
        } else {
            return None;
        }
        self.speculated.insert(kernel);
        let mut ctx = self.module.as_ref()?.make_context();
        let lowered = self.lower_kernel(kernel, &mut plan, &mut ctx);
        let Ok(layout) = lowered else {
            self.stats.compile += started.elapsed();
            return None;
        };
        let joined_ctx = self.lower_joined(kernel, &layout);
        self.stats.compile += started.elapsed();
        let mut jobs = Vec::new();
        let mut declare = |jit: &mut Self, what: &str, ctx: cranelift_codegen::Context| {
            jit.generated += 1;
            let name = format!("{what}_{}_{}", kernel.0, jit.generated);
            let module = jit.module.as_mut()?;
            let id = module
                .declare_function(&name, Linkage::Local, &ctx.func.signature)
                .ok()?;
            let (send, code) = std::sync::mpsc::channel();
            jobs.push((ctx, id, send));
            Some((id, code))
        };
        let (id, code) = declare(self, "kernel", ctx)?;
        let joined = joined_ctx.and_then(|c| declare(self, "joined", c));
        self.speculative.insert(
            kernel,
            Speculated {
                layout,
                id,
                code,
                joined,
            },
        );
        Some(jobs)
    }

    /// The code lowered ahead for `kernel` (see [`Self::speculate_after`]),
    /// put into the module, if it covers `launch` and its machine code
    /// was made (waiting for it if need be).
    fn take_speculated(&mut self, kernel: FuncId, launch: &Launch) -> Option<Compiled> {
        let ahead = self.speculative.remove(&kernel)?;
        if !ahead.layout.covers(launch) {
            return None;
        }
        let started = Instant::now();
        let module = self.module.as_mut()?;
        let mut define_taken =
            |id, code: std::sync::mpsc::Receiver<Result<MachineCode, String>>| {
                let c = code.recv().ok()?.ok()?;
                module
                    .define_function_bytes(id, c.alignment, &c.bytes, &c.relocs)
                    .ok()
                    .map(|_| id)
            };
        let entry = define_taken(ahead.id, ahead.code);
        let joined = ahead.joined.and_then(|(id, code)| define_taken(id, code));
        let finalized = module.finalize_definitions().is_ok();
        let compiled = entry.filter(|_| finalized).map(|id| Compiled {
            entry: module.get_finalized_function(id) as usize,
            layout: ahead.layout,
            joined: joined.map(|id| module.get_finalized_function(id) as usize),
        });
        self.stats.compile += started.elapsed();
        if compiled.is_some() {
            self.stats.compiled += 1;
            // As if compiled at this launch (see `extent_bound`).
            self.compilations.insert(kernel, 1);
        }
        compiled
    }

    /// The code made ahead for a host statement, put into the module:
    /// `None` when the thread could not make it (the statement is then
    /// compiled here).
    fn take_ahead(&mut self, ahead: AheadHost) -> Option<Result<CompiledHost, Decline>> {
        let started = Instant::now();
        let code = ahead.code.recv().ok();
        let module = self.module.as_mut()?;
        let defined = code?.and_then(|c| {
            module
                .define_function_bytes(ahead.id, c.alignment, &c.bytes, &c.relocs)
                .map_err(|e| e.to_string())?;
            module.finalize_definitions().map_err(|e| e.to_string())?;
            Ok(module.get_finalized_function(ahead.id) as usize)
        });
        self.stats.compile += started.elapsed();
        Some(match defined {
            Ok(entry) => {
                self.stats.compiled += 1;
                Ok(CompiledHost {
                    entry,
                    layout: ahead.plan,
                })
            }
            Err(e) => Err(Decline::CodeGeneration(e)),
        })
    }

    /// The Cranelift IR of every kernel after the barrier split, in source
    /// order, or why a kernel is left to the interpreter.
    pub fn dump_clif(&mut self) -> Vec<KernelClif> {
        let mut out = Vec::new();
        for (id, f) in self.prog.functions_with_ids() {
            let FunctionKind::Kernel { tile, .. } = &f.kind else {
                continue;
            };
            let (compiled, text) = self.compile(id, true, None, Vec::new());
            let clif = match compiled {
                Ok(c) => {
                    let head = format!(
                        "; arguments: {} words; tile_static: {} bytes per tile; frame: {} bytes per work-item\n",
                        c.layout.words, c.layout.scratch_bytes, c.layout.frame_bytes
                    );
                    self.kernels.insert(id, Ok(c));
                    // The functions it calls out of line, after it.
                    let mut text = head + &text;
                    for (f, _) in self
                        .outlines
                        .get(&id)
                        .cloned()
                        .flatten()
                        .iter()
                        .flat_map(|o| o.iter())
                    {
                        if let Some(ir) = self.outlined_clif.get(f) {
                            let name = &self.prog.function(*f).name;
                            text.push_str(&format!("\n; called out of line: `{name}`\n{ir}"));
                        }
                    }
                    Ok(text)
                }
                Err(e) => Err(e.to_string()),
            };
            out.push(KernelClif {
                span: f.span,
                tile: *tile,
                clif,
            });
        }
        out
    }
}

/// One kernel's Cranelift IR, for `tessera dump clif`.
#[derive(Clone, Debug)]
pub struct KernelClif {
    /// Where the kernel is.
    pub span: tessera_diagnostics::Span,
    /// Its tile shape, when tiled.
    pub tile: Option<tessera_ir::TileShape>,
    /// The IR as text, or why the kernel runs in the interpreter.
    pub clif: Result<String, String>,
}

impl Drop for Jit<'_> {
    fn drop(&mut self) {
        self.ahead_stop.store(true, Ordering::Relaxed);
        // The module leaks its code on purpose unless freed: a REPL makes
        // an engine per input.
        if let Some(module) = self.module.take() {
            exec::free(module);
        }
    }
}

impl KernelEngine for Jit<'_> {
    fn launch(&mut self, launch: &mut Launch) -> LaunchOutcome {
        // Woken now, the workers are ready by the time the kernel is
        // compiled and the launch opens.
        if let Some(pool) = &self.pool {
            pool.prewake();
        }
        if !self.kernels.contains_key(&launch.kernel)
            && let Some(c) = self.take_speculated(launch.kernel, launch)
        {
            self.kernels.insert(launch.kernel, Ok(c));
        }
        let stale = match self.kernels.get(&launch.kernel) {
            None => true,
            // Compiled with no bound after two tries: any launch it does
            // not cover is not one for compiled code at all.
            Some(Ok(c)) => {
                !c.layout.covers(launch)
                    && self
                        .compilations
                        .get(&launch.kernel)
                        .is_some_and(|n| *n <= 2)
            }
            Some(Err(_)) => false,
        };
        // Whether the next kernels were lowered ahead at this launch.
        let mut looked_ahead = false;
        if stale {
            let bound = self.extent_bound(launch.kernel, &launch.extent);
            // With a bound, the next kernels are lowered for it before this
            // one is compiled: their machine code is then made while this
            // thread makes this kernel's, not only while it runs.
            if let Some(bound) = &bound {
                self.speculate_after(launch, bound);
                looked_ahead = true;
            }
            // The views that cover this launch are assumed to cover the
            // launches the code runs later (checked at each); with no
            // bound, nothing is assumed.
            let covering = match bound {
                Some(_) => launch
                    .args
                    .iter()
                    .map(|a| emit::view_covers(a, &launch.extent))
                    .collect(),
                None => Vec::new(),
            };
            let (c, _) = self.compile(launch.kernel, false, bound, covering);
            self.kernels.insert(launch.kernel, c);
        }
        if !looked_ahead && let Some(Ok(c)) = self.kernels.get(&launch.kernel) {
            let bound = c.layout.extent_bound.clone();
            self.speculate_after(launch, &bound);
        }
        let Some(Ok(compiled)) = self.kernels.get(&launch.kernel) else {
            self.stats.fallbacks += 1;
            return LaunchOutcome::Declined;
        };
        let started = Instant::now();
        let outcome = exec::run(
            compiled.entry,
            compiled.joined,
            &compiled.layout,
            launch,
            self.threads,
            self.pool.as_ref(),
        );
        let took = started.elapsed();
        self.stats.kernels += took;
        match outcome {
            LaunchOutcome::Done => {
                self.stats.launches += 1;
                if self.stats.launch_times.len() < Stats::LAUNCHES_KEPT {
                    let tiled = compiled.layout.tile.is_some();
                    self.stats.launch_times.push((tiled, took));
                }
            }
            LaunchOutcome::Failed => self.stats.reruns += 1,
            LaunchOutcome::Declined => self.stats.fallbacks += 1,
        }
        outcome
    }

    fn kept(&mut self, _kernel: FuncId) {
        self.stats.fallbacks += 1;
    }

    fn host_plan(&mut self, func: FuncId, stmt: &tessera_ir::Stmt) -> Option<HostPlan> {
        // Ids tell statements apart only once the checker has numbered
        // them; an unnumbered statement could share its key with another.
        if stmt.id == StmtId::UNNUMBERED {
            return None;
        }
        let key = (func, stmt.id);
        // A loop left for doing little work is offered again each run.
        if matches!(self.hosts.get(&key), Some(Err(Decline::LittleWork))) {
            self.hosts.remove(&key);
        }
        if !self.hosts.contains_key(&key) {
            let compiled = self.compile_host(func, stmt);
            self.hosts.insert(key, compiled);
        }
        match self.hosts.get(&key) {
            Some(Ok(c)) => Some(HostPlan {
                locals: c
                    .layout
                    .locals
                    .iter()
                    .copied()
                    .zip(c.layout.written.iter().copied())
                    .collect(),
                globals: c
                    .layout
                    .globals
                    .iter()
                    .copied()
                    .zip(c.layout.global_written.iter().copied())
                    .collect(),
                appended: c
                    .layout
                    .locals
                    .iter()
                    .zip(&c.layout.appended)
                    .filter(|(_, a)| **a)
                    .map(|(l, _)| *l)
                    .collect(),
                exit_locals: c.layout.exits.exit_locals.clone(),
                exits: c.layout.exits.exits.clone(),
                calls: c.layout.calls.clone(),
            }),
            _ => None,
        }
    }

    fn run_host(
        &mut self,
        func: FuncId,
        stmt: &tessera_ir::Stmt,
        launch: &mut Launch,
    ) -> LaunchOutcome {
        let Some(Ok(compiled)) = self.hosts.get(&(func, stmt.id)) else {
            return LaunchOutcome::Declined;
        };
        let started = Instant::now();
        let outcome = exec::run_host(compiled.entry, &compiled.layout, launch);
        self.stats.host += started.elapsed();
        if outcome == LaunchOutcome::Done {
            self.stats.host_runs += 1;
        }
        outcome
    }
}
