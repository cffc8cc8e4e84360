//! Lowers one kernel of the typed program to a Cranelift function that runs
//! one tile (or one chunk of a non-tiled domain).
//!
//! # The barrier split
//! A tiled kernel's body is cut at its barriers. Statements between two
//! barriers form a *region*, emitted as a loop over the tile's work-items
//! (nested loops over the local dimensions). A statement that holds a
//! barrier is not in a region: a block is split further; an `if` or a loop
//! evaluates its condition in a region of its own, checks that every
//! work-item got the same answer (else the launch fails and the reference
//! engine reports the divergence), and branches once for the whole tile.
//! Nothing runs concurrently within a tile, so a barrier is the end of one
//! region and the start of the next, and fences are no-ops.
//!
//! Locals declared outside any region (at the level of the barriers) live
//! across barriers: each work-item has a slot for them in the *frame* block
//! (`frames + wi * frame_size`). A region loads the ones it uses into
//! Cranelift variables when a work-item starts and stores them back when it
//! ends, so inside a region they sit in registers. Locals declared inside a
//! region are plain variables.
//!
//! # Checks
//! Every run-time check (bounds, division by zero, signed overflow,
//! out-of-range shifts and float-to-int conversions, barrier divergence)
//! branches to one block that returns [`STATUS_FAILED`]; loops count down a
//! fuel variable and call the poll helper when it runs out, which returns
//! [`STATUS_STOPPED`] past the deadline or when another worker failed. No
//! Cranelift trap instruction is emitted.
//!
//! Calls of user functions are inlined (amp code cannot recurse); a kernel
//! that needs more than [`INLINE_BUDGET`] expression nodes is declined.

use crate::layout::{clif_type, field_offset, size_align};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, AtomicRmwOp, Block, FuncRef, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
    Value, types,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use std::collections::{BTreeSet, HashMap, HashSet};
use tessera_ir::{
    AtomicOp, BinOp, Block as IrBlock, Const, Expr, ExprKind, FuncId, Function, FunctionKind, Init,
    Intrinsic, LocalId, MathFn, Program, Scalar, Space, Stmt, StmtKind, TileShape, TiledIndexPart,
    Type, UnOp,
};

/// The function ran to its end.
pub(crate) const STATUS_OK: i64 = 0;
/// A run-time check failed.
pub(crate) const STATUS_FAILED: i64 = 1;
/// The deadline passed or another worker failed.
pub(crate) const STATUS_STOPPED: i64 = 2;

/// Work-items per chunk of a non-tiled launch.
pub(crate) const CHUNK: i64 = 4096;

/// Expression nodes a kernel may lower to, inlined calls included.
const INLINE_BUDGET: usize = 20_000;

/// Cranelift instructions a function may have: compile time and memory
/// grow with it, and a kernel past it runs in the interpreter.
const MAX_INSTS: usize = 60_000;

/// Loop iterations between two polls.
const FUEL: i64 = 1 << 16;

/// Bytes of stack slots a kernel may use (workers have 8 MiB stacks).
const STACK_BUDGET: u32 = 1 << 20;

/// A counted loop of at most this many iterations does not poll.
const SHORT_LOOP: i64 = 1 << 16;

/// Why a kernel is left to the interpreter.
#[derive(Clone, Debug)]
pub struct Unsupported(pub String);

type R<T> = Result<T, Unsupported>;

fn unsupported<T>(what: impl Into<String>) -> R<T> {
    Err(Unsupported(what.into()))
}

/// Where each captured value sits in the launch's argument words.
#[derive(Clone, Debug)]
pub(crate) enum CaptureLayout {
    /// One word: the scalar's bits.
    Scalar(Scalar, u32),
    /// `rank` words: the components.
    Shape(u32, u32),
    /// A view of elements of a type and size: base pointer, offset, then
    /// `rank` extents and `rank` strides.
    View(Type, u32, u32, u32),
    /// A struct or C array: one word, its address.
    Object(Type, u32),
}

/// What the runner must provide for a compiled kernel.
#[derive(Clone, Debug)]
pub(crate) struct KernelLayout {
    /// Per capture slot.
    pub(crate) captures: Vec<CaptureLayout>,
    /// Word where the launch extent starts (`rank` words), followed by the
    /// tiles per dimension (tiled) or the total work-items (flat).
    pub(crate) extent_word: u32,
    /// Total argument words.
    pub(crate) words: u32,
    /// Bytes of `tile_static` memory per tile.
    pub(crate) scratch_bytes: u32,
    /// Bytes of frame per work-item.
    pub(crate) frame_bytes: u32,
    /// Bytes of frame the code uses; more than `frame_bytes` means the
    /// kernel must be lowered again with this stride.
    pub(crate) frame_needed: u32,
    /// The tile shape, for tiled kernels.
    pub(crate) tile: Option<TileShape>,
    /// The domain's rank.
    pub(crate) rank: u32,
}

/// What the runner must provide for a compiled host statement.
#[derive(Clone, Debug)]
pub(crate) struct HostLayout {
    /// The locals declared outside the statement that it names, in order.
    pub(crate) locals: Vec<LocalId>,
    /// For each, whether the statement may write its elements.
    pub(crate) written: Vec<bool>,
    /// Where each sits in the argument words.
    pub(crate) captures: Vec<CaptureLayout>,
    /// Total argument words.
    pub(crate) words: u32,
}

/// Helper functions the generated code calls.
pub(crate) struct Helpers {
    pub(crate) math_f32: FuncRef,
    pub(crate) math_f64: FuncRef,
    pub(crate) poll: FuncRef,
}

#[derive(Clone, Debug)]
struct ViewV {
    base: Value,
    offset: Value,
    ext: Vec<Value>,
    strides: Vec<Value>,
    elem: Type,
    elem_size: u32,
}

/// A lowered value.
#[derive(Clone, Debug)]
enum V {
    /// A scalar.
    S(Value),
    /// Index or extent components (`i32`).
    Shape(Vec<Value>),
    /// A view.
    View(ViewV),
    /// The kernel's `tiled_index`.
    Tiled,
    /// Nothing (`void`, a barrier object, a fence).
    Unit,
    /// An aggregate in memory, by address.
    Mem(Value),
}

/// A lowered place.
#[derive(Clone, Debug)]
enum Place {
    /// A scalar variable.
    Var(Variable),
    /// Index or extent variables.
    Shape(Vec<Variable>),
    /// Memory of the given type.
    Mem(Value, Type),
}

/// Where a local lives.
#[derive(Clone, Debug)]
enum Slot {
    /// Scalar (one) or index/extent (`rank`) variables.
    Vars(Vec<Variable>),
    /// An aggregate in a stack slot.
    Stack(cranelift_codegen::ir::StackSlot),
    /// An aggregate in the work-item's frame, at this offset.
    Frame(u32),
    /// In `tile_static` scratch memory, at this offset.
    TileStatic(u32),
    /// A reference.
    Ref(Place),
    /// A view (read-only binding).
    View(ViewV),
    /// The kernel's `tiled_index` parameter.
    Tiled,
}

struct Scope {
    /// Unique per inlined call, so facts about one call's locals never
    /// apply to another's.
    id: usize,
    func: FuncId,
    slots: HashMap<LocalId, Slot>,
    /// Where a `return` goes, and the variables that take its value.
    ret: Option<(Block, Vec<Variable>, Type)>,
    /// Where a returned struct or C array is built.
    ret_mem: Option<cranelift_codegen::ir::StackSlot>,
    /// Frame offsets of this scope's locals that live across barriers (the
    /// kernel's, or those of an inlined function that holds a barrier).
    frame: HashMap<LocalId, u32>,
}

struct LoopTargets {
    brk: Block,
    cont: Option<Block>,
    region: u32,
}

/// A counted loop: its counter's key, the counter's range in the body, and
/// the most iterations it can make.
type CountedLoop = ((usize, LocalId), (i64, i64), i64);

/// The nested loops over a tile's local dimensions of a work-item loop.
struct TileLoops {
    dims: Vec<i64>,
    coords: Vec<Variable>,
    heads: Vec<Block>,
    exits: Vec<Block>,
}

/// One lane of an interleaved region: its variables, coordinates, frame.
struct LaneCtx {
    slots: HashMap<LocalId, Slot>,
    coords: Vec<Variable>,
    frame_ptr: Variable,
}

/// The work-item loop being emitted.
struct RegionCtx {
    id: u32,
    /// Where a kernel-level `return` ends the work-item.
    item_end: Block,
}

/// Lowers one kernel.
pub(crate) struct Lower<'a, 'b, 'f> {
    prog: &'a Program,
    b: &'b mut FunctionBuilder<'f>,
    helpers: Helpers,
    layout: KernelLayout,
    env: Value,
    scratch: Value,
    frames: Value,
    fail: Block,
    stopped: Block,
    fuel: Variable,
    caps: Vec<V>,
    /// Tile coordinates (tiled) as `i32`.
    tile_coords: Vec<Value>,
    /// Local coordinates of the current work-item (tiled) or its global index (flat).
    item_coords: Vec<Variable>,
    /// Linear work-item number within the tile (kept only while a loop
    /// that needs it is emitted: see `need_item`).
    item: Variable,
    /// The work-item loop being emitted must count `item`.
    need_item: bool,
    /// The current work-item's frame: `frames + item * frame_bytes`.
    frame_ptr: Variable,
    scopes: Vec<Scope>,
    loops: Vec<LoopTargets>,
    region: Option<RegionCtx>,
    next_region: u32,
    /// Bytes of frame given out so far (the kernel's locals, then those of
    /// inlined functions with barriers).
    frame_cursor: u32,
    /// Bytes of `tile_static` memory given out so far.
    scratch_cursor: u32,
    /// `tile_static` variables of inlined functions: one per function and
    /// tile, as C++ AMP has them, whatever the number of calls.
    callee_tile_static: HashMap<(FuncId, LocalId), u32>,
    barrier_fns: Vec<bool>,
    budget: usize,
    ptr: types::Type,
    /// The last scope id given out.
    next_scope: usize,
    /// Bytes of stack slots so far.
    stack_bytes: u32,
    /// Emitting the kernel's last region, after its last barrier.
    last_region: bool,
    /// The local the statement before the current one declared, if it was
    /// a declaration (`for (int k = 0; ...)` is a declaration then a loop).
    prev_let: Option<LocalId>,
    /// That declaration's local and initial value.
    prev_init: Option<(LocalId, Option<Expr>)>,
    /// Known value ranges (inclusive) of locals, by scope id: locals
    /// assigned once, and loop counters inside their counted loop.
    ranges: HashMap<(usize, LocalId), (i64, i64)>,
    /// The range of each local's initial value, for counted loops.
    init_ranges: HashMap<(usize, LocalId), (i64, i64)>,
    /// Locals each function writes after their declaration.
    mutated: HashMap<FuncId, HashSet<LocalId>>,
    /// Counters of loops with barriers that hold the same value in every
    /// work-item of a tile: one variable per tile, not a frame slot.
    uniform: HashSet<LocalId>,
}

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

impl<'a, 'b, 'f> Lower<'a, 'b, 'f> {
    /// Plans the layout of kernel `kernel`: argument words, scratch, frame.
    pub(crate) fn plan(prog: &Program, kernel: FuncId) -> R<KernelLayout> {
        let func = &prog.functions[kernel.0 as usize];
        let FunctionKind::Kernel { tile, captures } = &func.kind else {
            return unsupported("not a kernel");
        };
        let rank = match func.locals.first().map(|l| &l.ty) {
            Some(Type::Index(r)) => u32::from(*r),
            Some(Type::TiledIndex(s)) => u32::from(s.rank),
            _ => return unsupported("a kernel parameter of an unexpected type"),
        };
        let mut word = 1u32;
        let mut layouts = Vec::with_capacity(captures.len());
        for c in captures {
            let l = match &c.ty {
                Type::Scalar(s) => {
                    let l = CaptureLayout::Scalar(*s, word);
                    word += 1;
                    l
                }
                Type::Index(r) | Type::Extent(r) => {
                    let l = CaptureLayout::Shape(u32::from(*r), word);
                    word += u32::from(*r);
                    l
                }
                Type::Array(elem, r) | Type::ArrayView { elem, rank: r, .. } => {
                    let Some((size, _)) = size_align(prog, elem) else {
                        return unsupported("a view of elements without a plain layout");
                    };
                    let l = CaptureLayout::View((**elem).clone(), size, u32::from(*r), word);
                    word += 2 + 2 * u32::from(*r);
                    l
                }
                ty @ (Type::Struct(_) | Type::CArray(..)) if size_align(prog, ty).is_some() => {
                    let l = CaptureLayout::Object(ty.clone(), word);
                    word += 1;
                    l
                }
                other => {
                    return unsupported(format!(
                        "a captured `{}`",
                        tessera_ir::display(other, &prog.structs)
                    ));
                }
            };
            layouts.push(l);
        }
        let extent_word = word;
        word += 2 * rank + 1;
        Ok(KernelLayout {
            captures: layouts,
            extent_word,
            words: word,
            scratch_bytes: 0,
            frame_bytes: 0,
            frame_needed: 0,
            tile: *tile,
            rank,
        })
    }

    /// Emits the whole kernel function into `b` (whose signature is
    /// `(env, group, scratch, frames) -> status`).
    pub(crate) fn emit(
        prog: &'a Program,
        kernel: FuncId,
        b: &'b mut FunctionBuilder<'f>,
        helpers: Helpers,
        mut layout: KernelLayout,
        min_frame: u32,
    ) -> R<KernelLayout> {
        let func = &prog.functions[kernel.0 as usize];
        let Some(body) = &func.body else {
            return unsupported("a kernel without a body");
        };
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let fail = b.create_block();
        let stopped = b.create_block();
        let fuel = b.declare_var(types::I64);
        let item = b.declare_var(types::I64);
        let frame_ptr = b.declare_var(types::I64);
        let fuel0 = b.ins().iconst(types::I64, FUEL);
        b.def_var(fuel, fuel0);
        let zero = b.ins().iconst(types::I64, 0);
        b.def_var(item, zero);
        b.def_var(frame_ptr, params[3]);
        let barrier_fns = barrier_functions(prog);
        let mut lw = Lower {
            prog,
            b,
            helpers,
            layout: layout.clone(),
            env: params[0],
            scratch: params[2],
            frames: params[3],
            fail,
            stopped,
            fuel,
            caps: Vec::new(),
            tile_coords: Vec::new(),
            item_coords: Vec::new(),
            item,
            need_item: false,
            frame_ptr,
            scopes: vec![Scope {
                id: 0,
                func: kernel,
                slots: HashMap::new(),
                ret: None,
                ret_mem: None,
                frame: HashMap::new(),
            }],
            loops: Vec::new(),
            region: None,
            next_region: 0,
            frame_cursor: 0,
            scratch_cursor: 0,
            callee_tile_static: HashMap::new(),
            barrier_fns,
            budget: INLINE_BUDGET,
            ptr: types::I64,
            next_scope: 0,
            stack_bytes: 0,
            last_region: false,
            prev_let: None,
            prev_init: None,
            ranges: HashMap::new(),
            init_ranges: HashMap::new(),
            mutated: HashMap::new(),
            uniform: HashSet::new(),
        };
        lw.load_captures();
        // tile_static memory: one block per tile, each variable at its offset.
        let mut scratch = 0u32;
        for (i, l) in func.locals.iter().enumerate() {
            if l.space == Space::TileStatic {
                let Some((size, align)) = size_align(prog, &l.ty) else {
                    return unsupported("a `tile_static` variable of this type");
                };
                scratch = scratch.next_multiple_of(align.max(1));
                lw.scopes[0]
                    .slots
                    .insert(LocalId(i as u32), Slot::TileStatic(scratch));
                scratch = scratch.saturating_add(size);
            }
        }
        layout.scratch_bytes = scratch;
        lw.scratch_cursor = scratch;
        let group = params[1];
        match layout.tile {
            Some(shape) => {
                lw.scopes[0].slots.insert(LocalId(0), Slot::Tiled);
                lw.tile_coords = lw.tile_coords(group, shape);
                let barriers = block_has_barrier(body, &lw.barrier_fns);
                if barriers {
                    // The stride between work-items' frames must be known
                    // before the first region; inlined functions with
                    // barriers may need more, found only while lowering
                    // them: the caller then lowers again with that size.
                    layout.frame_bytes = lw.plan_frame(func, body)?.max(min_frame);
                    lw.layout.frame_bytes = layout.frame_bytes;
                }
                lw.uniform_body(body)?;
                layout.frame_needed = lw.frame_cursor.next_multiple_of(8).max(layout.frame_bytes);
                // Inlined functions may have added `tile_static` variables.
                layout.scratch_bytes = lw.scratch_cursor;
            }
            None => {
                let rank = layout.rank as usize;
                let vars: Vec<Variable> = (0..rank).map(|_| lw.b.declare_var(types::I32)).collect();
                lw.scopes[0]
                    .slots
                    .insert(LocalId(0), Slot::Vars(vars.clone()));
                lw.item_coords = vars;
                lw.flat_loop(group, body)?;
            }
        }
        let ok = lw.b.ins().iconst(types::I32, STATUS_OK);
        lw.b.ins().return_(&[ok]);
        lw.b.switch_to_block(fail);
        let st = lw.b.ins().iconst(types::I32, STATUS_FAILED);
        lw.b.ins().return_(&[st]);
        lw.b.switch_to_block(stopped);
        let st = lw.b.ins().iconst(types::I32, STATUS_STOPPED);
        lw.b.ins().return_(&[st]);
        lw.b.seal_all_blocks();
        Ok(layout)
    }

    /// Plans a host statement (a loop of `main`, say): the locals declared
    /// outside it that it names, in order, and where each sits in the
    /// argument words. Scalars are read and written back; vectors and views
    /// are buffers like a kernel's views.
    pub(crate) fn plan_host(prog: &Program, func: FuncId, stmt: &Stmt) -> R<HostLayout> {
        let f = &prog.functions[func.0 as usize];
        let mut named = BTreeSet::new();
        stmt_locals(stmt, &mut named);
        let mut declared = HashSet::new();
        walk_stmt(
            stmt,
            &mut |s| {
                if let StmtKind::Let { local, .. } = &s.kind {
                    declared.insert(*local);
                }
            },
            &mut |_| {},
        );
        let mut word = 1u32;
        let mut locals = Vec::new();
        let mut captures = Vec::new();
        for l in named {
            if declared.contains(&l) {
                continue;
            }
            let Some(local) = f.locals.get(l.0 as usize) else {
                return unsupported("an unknown local");
            };
            if local.by_ref {
                return unsupported("a reference");
            }
            let layout = match &local.ty {
                Type::Scalar(s) => {
                    let c = CaptureLayout::Scalar(*s, word);
                    word += 1;
                    c
                }
                Type::Vector(elem) => {
                    let Some(s) = elem.scalar() else {
                        return unsupported("a vector of non-scalars");
                    };
                    let c = CaptureLayout::View(Type::Scalar(s), s.size(), 1, word);
                    word += 4;
                    c
                }
                Type::Array(elem, r) | Type::ArrayView { elem, rank: r, .. } => {
                    let Some((size, _)) = size_align(prog, elem) else {
                        return unsupported("a view of elements without a plain layout");
                    };
                    let c = CaptureLayout::View((**elem).clone(), size, u32::from(*r), word);
                    word += 2 + 2 * u32::from(*r);
                    c
                }
                _ => return unsupported("a host variable of this type"),
            };
            locals.push(l);
            captures.push(layout);
        }
        let written = element_writes(prog, stmt);
        let written = locals.iter().map(|l| written.contains(l)).collect();
        Ok(HostLayout {
            locals,
            written,
            captures,
            words: word,
        })
    }

    /// Emits a host statement as a function `(args, _, _, _) -> status`
    /// that runs it once and writes the scalars it names back.
    pub(crate) fn emit_host(
        prog: &'a Program,
        func: FuncId,
        stmt: &Stmt,
        b: &'b mut FunctionBuilder<'f>,
        helpers: Helpers,
        plan: &HostLayout,
    ) -> R<()> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let fail = b.create_block();
        let stopped = b.create_block();
        let fuel = b.declare_var(types::I64);
        let item = b.declare_var(types::I64);
        let frame_ptr = b.declare_var(types::I64);
        let fuel0 = b.ins().iconst(types::I64, FUEL);
        b.def_var(fuel, fuel0);
        let zero = b.ins().iconst(types::I64, 0);
        b.def_var(item, zero);
        b.def_var(frame_ptr, params[3]);
        let layout = KernelLayout {
            captures: plan.captures.clone(),
            extent_word: plan.words,
            words: plan.words,
            scratch_bytes: 0,
            frame_bytes: 0,
            frame_needed: 0,
            tile: None,
            rank: 0,
        };
        let mut lw = Lower {
            prog,
            b,
            helpers,
            layout,
            env: params[0],
            scratch: params[2],
            frames: params[3],
            fail,
            stopped,
            fuel,
            caps: Vec::new(),
            tile_coords: Vec::new(),
            item_coords: Vec::new(),
            item,
            need_item: false,
            frame_ptr,
            scopes: vec![Scope {
                id: 0,
                func,
                slots: HashMap::new(),
                ret: None,
                ret_mem: None,
                frame: HashMap::new(),
            }],
            loops: Vec::new(),
            region: None,
            next_region: 0,
            frame_cursor: 0,
            scratch_cursor: 0,
            callee_tile_static: HashMap::new(),
            barrier_fns: barrier_functions(prog),
            budget: INLINE_BUDGET,
            ptr: types::I64,
            next_scope: 0,
            stack_bytes: 0,
            last_region: false,
            prev_let: None,
            prev_init: None,
            ranges: HashMap::new(),
            init_ranges: HashMap::new(),
            mutated: HashMap::new(),
            uniform: HashSet::new(),
        };
        lw.load_captures();
        // The named locals: scalars in variables, vectors and views as views.
        let caps = std::mem::take(&mut lw.caps);
        for (l, v) in plan.locals.iter().zip(caps) {
            let slot = match v {
                V::S(x) => {
                    let t = lw.b.func.dfg.value_type(x);
                    let var = lw.b.declare_var(t);
                    lw.b.def_var(var, x);
                    Slot::Vars(vec![var])
                }
                V::View(view) => Slot::View(view),
                _ => return unsupported("a host variable of this kind"),
            };
            lw.scopes[0].slots.insert(*l, slot);
        }
        lw.stmt(stmt)?;
        // Scalars go back to their words.
        for (l, c) in plan.locals.iter().zip(&plan.captures) {
            if let (CaptureLayout::Scalar(s, w), Some(Slot::Vars(vars))) =
                (c, lw.scopes[0].slots.get(l).cloned())
            {
                let v = lw.b.use_var(vars[0]);
                let raw = lw.scalar_as_word(v, *s);
                lw.b.ins().store(flags(), raw, lw.env, (*w * 8) as i32);
            }
        }
        let ok = lw.b.ins().iconst(types::I32, STATUS_OK);
        lw.b.ins().return_(&[ok]);
        lw.b.switch_to_block(fail);
        let st = lw.b.ins().iconst(types::I32, STATUS_FAILED);
        lw.b.ins().return_(&[st]);
        lw.b.switch_to_block(stopped);
        let st = lw.b.ins().iconst(types::I32, STATUS_STOPPED);
        lw.b.ins().return_(&[st]);
        lw.b.seal_all_blocks();
        Ok(())
    }

    /// A scalar as its 64-bit argument word (sign- or zero-extended as the
    /// interpreter keeps integers).
    fn scalar_as_word(&mut self, v: Value, s: Scalar) -> Value {
        match s {
            Scalar::Long | Scalar::ULong => v,
            Scalar::Double => self.b.ins().bitcast(types::I64, MemFlagsData::new(), v),
            Scalar::Float => {
                let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), v);
                self.b.ins().uextend(types::I64, bits)
            }
            Scalar::UInt | Scalar::Bool => self.b.ins().uextend(types::I64, v),
            Scalar::Int | Scalar::Char => self.b.ins().sextend(types::I64, v),
        }
    }

    // ----- setup -----

    fn word(&mut self, w: u32) -> Value {
        self.b.ins().load(
            types::I64,
            flags().with_readonly(),
            self.env,
            (w * 8) as i32,
        )
    }

    fn load_captures(&mut self) {
        let layouts = self.layout.captures.clone();
        for l in layouts {
            let v = match l {
                CaptureLayout::Scalar(s, w) => {
                    let raw = self.word(w);
                    V::S(self.scalar_of_word(raw, s))
                }
                CaptureLayout::Shape(r, w) => V::Shape(
                    (0..r)
                        .map(|d| {
                            let x = self.word(w + d);
                            self.b.ins().ireduce(types::I32, x)
                        })
                        .collect(),
                ),
                CaptureLayout::View(elem, elem_size, r, w) => {
                    let base = self.word(w);
                    let offset = self.word(w + 1);
                    let ext = (0..r).map(|d| self.word(w + 2 + d)).collect();
                    let strides = (0..r).map(|d| self.word(w + 2 + r + d)).collect();
                    V::View(ViewV {
                        base,
                        offset,
                        ext,
                        strides,
                        elem,
                        elem_size,
                    })
                }
                CaptureLayout::Object(_, w) => V::Mem(self.word(w)),
            };
            self.caps.push(v);
        }
    }

    /// A scalar from its 64-bit argument word.
    fn scalar_of_word(&mut self, raw: Value, s: Scalar) -> Value {
        match s {
            Scalar::Long | Scalar::ULong => raw,
            Scalar::Double => self.b.ins().bitcast(types::F64, MemFlagsData::new(), raw),
            Scalar::Float => {
                let low = self.b.ins().ireduce(types::I32, raw);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), low)
            }
            other => self.b.ins().ireduce(clif_type(other), raw),
        }
    }

    /// The tile's coordinates from its linear number (last dimension fastest).
    fn tile_coords(&mut self, group: Value, shape: TileShape) -> Vec<Value> {
        let rank = usize::from(shape.rank);
        let mut coords = vec![group; rank];
        let mut rest = group;
        for d in (0..rank).rev() {
            let per = self.word(self.layout.extent_word + rank as u32 + d as u32);
            if d == 0 {
                coords[d] = rest;
            } else {
                coords[d] = self.b.ins().urem(rest, per);
                rest = self.b.ins().udiv(rest, per);
            }
        }
        coords
            .into_iter()
            .map(|c| self.b.ins().ireduce(types::I32, c))
            .collect()
    }

    /// Gives each kernel local declared outside a region a frame slot.
    fn plan_frame(&mut self, func: &Function, body: &IrBlock) -> R<u32> {
        let mut uniform = Vec::new();
        collect_uniform_lets(body, &self.barrier_fns, &mut uniform);
        self.uniform = uniform_counters(self.prog, body, &self.barrier_fns);
        let mut at = 0u32;
        for id in uniform {
            let local = &func.locals[id.0 as usize];
            if local.space == Space::TileStatic || self.uniform.contains(&id) {
                continue;
            }
            if local.by_ref {
                return unsupported("a reference declared between barriers");
            }
            let Some((size, align)) = size_align(self.prog, &local.ty) else {
                return unsupported("a local of this type declared between barriers");
            };
            at = at.next_multiple_of(align.max(1));
            self.scopes[0].frame.insert(id, at);
            at = at.saturating_add(size);
        }
        self.frame_cursor = at;
        Ok(at.next_multiple_of(8).max(8))
    }

    // ----- work-item loops -----

    /// A non-tiled chunk: work-items `group * CHUNK ..` up to the total.
    fn flat_loop(&mut self, group: Value, body: &IrBlock) -> R<()> {
        let rank = self.layout.rank as usize;
        let total = self.word(self.layout.extent_word + 2 * rank as u32);
        let start = self.b.ins().imul_imm_s(group, CHUNK);
        let end0 = self.b.ins().iadd_imm_s(start, CHUNK);
        let end = self.b.ins().umin(end0, total);
        // The starting index by division, then carry increments.
        let mut rest = start;
        let exts: Vec<Value> = (0..rank)
            .map(|d| self.word(self.layout.extent_word + d as u32))
            .collect();
        for d in (0..rank).rev() {
            let c = if d == 0 {
                rest
            } else {
                let c = self.b.ins().urem(rest, exts[d]);
                rest = self.b.ins().udiv(rest, exts[d]);
                c
            };
            let c32 = self.b.ins().ireduce(types::I32, c);
            self.b.def_var(self.item_coords[d], c32);
        }
        let n = self.b.declare_var(types::I64);
        self.b.def_var(n, start);
        let head = self.b.create_block();
        let body_blk = self.b.create_block();
        let item_end = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let nv = self.b.use_var(n);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, nv, end);
        self.b.ins().brif(more, body_blk, &[], exit, &[]);
        self.b.switch_to_block(body_blk);
        let id = self.next_region;
        self.next_region += 1;
        self.region = Some(RegionCtx { id, item_end });
        self.stmts(&body.stmts)?;
        self.region = None;
        self.b.ins().jump(item_end, &[]);
        self.b.switch_to_block(item_end);
        let nv = self.b.use_var(n);
        let n1 = self.b.ins().iadd_imm_s(nv, 1);
        self.b.def_var(n, n1);
        // Next index, last dimension fastest.
        let mut carry_blocks = Vec::new();
        for d in (0..rank).rev() {
            let v = self.b.use_var(self.item_coords[d]);
            let v1 = self.b.ins().iadd_imm_s(v, 1);
            if d == 0 {
                self.b.def_var(self.item_coords[d], v1);
                break;
            }
            let e32 = self.b.ins().ireduce(types::I32, exts[d]);
            let wrapped = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, v1, e32);
            let zero = self.b.ins().iconst(types::I32, 0);
            let nv = self.b.ins().select(wrapped, zero, v1);
            self.b.def_var(self.item_coords[d], nv);
            let next = self.b.create_block();
            let done = self.b.create_block();
            self.b.ins().brif(wrapped, next, &[], done, &[]);
            carry_blocks.push(done);
            self.b.switch_to_block(next);
        }
        for done in carry_blocks.into_iter().rev() {
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
        }
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// Emits `emit_body` once per work-item of the tile, loading the frame
    /// locals in `uses` before and storing them after.
    fn item_loop(
        &mut self,
        uses: &BTreeSet<LocalId>,
        stores: &HashSet<LocalId>,
        emit_body: &mut dyn FnMut(&mut Self) -> R<()>,
    ) -> R<()> {
        let Some(shape) = self.layout.tile else {
            return unsupported("a work-item loop outside a tiled kernel");
        };
        let count_items = self.need_item;
        if count_items {
            let zero64 = self.b.ins().iconst(types::I64, 0);
            self.b.def_var(self.item, zero64);
        }
        let tile_loops = self.open_tile_loops(shape);
        let saved_coords = std::mem::replace(&mut self.item_coords, tile_loops.coords.clone());
        let item_end = self.b.create_block();
        let id = self.next_region;
        self.next_region += 1;
        let saved_region = self.region.replace(RegionCtx { id, item_end });
        // Frame locals used here come into variables.
        let frame: Vec<(LocalId, u32)> = uses
            .iter()
            .filter_map(|l| self.scope().frame.get(l).map(|&off| (*l, off)))
            .collect();
        let kernel_fn = self.scope().func;
        for &(l, off) in &frame {
            let ty = self.prog.functions[kernel_fn.0 as usize].locals[l.0 as usize]
                .ty
                .clone();
            self.frame_to_vars(l, off, &ty)?;
        }
        emit_body(self)?;
        self.b.ins().jump(item_end, &[]);
        self.b.switch_to_block(item_end);
        let mut written: Vec<(LocalId, u32)> = stores
            .iter()
            .filter_map(|l| self.scope().frame.get(l).map(|&off| (*l, off)))
            .collect();
        written.sort();
        for &(l, off) in &written {
            let ty = self.prog.functions[kernel_fn.0 as usize].locals[l.0 as usize]
                .ty
                .clone();
            self.vars_to_frame(l, off, &ty)?;
        }
        self.region = saved_region;
        if count_items {
            let it = self.b.use_var(self.item);
            let it1 = self.b.ins().iadd_imm_s(it, 1);
            self.b.def_var(self.item, it1);
        }
        self.close_tile_loops(&tile_loops, 1);
        self.item_coords = saved_coords;
        Ok(())
    }

    /// Opens nested loops over a tile's local dimensions (the last
    /// innermost), each coordinate from 0, the frame pointer at the first
    /// work-item's frame.
    fn open_tile_loops(&mut self, shape: TileShape) -> TileLoops {
        let dims: Vec<i64> = shape.dims().iter().map(|&d| i64::from(d)).collect();
        let coords: Vec<Variable> = dims
            .iter()
            .map(|_| self.b.declare_var(types::I32))
            .collect();
        self.b.def_var(self.frame_ptr, self.frames);
        let mut heads = Vec::new();
        let mut exits = Vec::new();
        for &c in &coords {
            let zero = self.b.ins().iconst(types::I32, 0);
            self.b.def_var(c, zero);
            let head = self.b.create_block();
            let exit = self.b.create_block();
            self.b.ins().jump(head, &[]);
            self.b.switch_to_block(head);
            heads.push(head);
            exits.push(exit);
        }
        TileLoops {
            dims,
            coords,
            heads,
            exits,
        }
    }

    /// Closes the loops of [`Lower::open_tile_loops`], stepping `lanes`
    /// work-items along the last dimension (and their frames) at a time.
    fn close_tile_loops(&mut self, loops: &TileLoops, lanes: i64) {
        // The next work-item's frame, by a step rather than a multiplication.
        let fp = self.b.use_var(self.frame_ptr);
        let fp1 = self
            .b
            .ins()
            .iadd_imm_s(fp, lanes * i64::from(self.layout.frame_bytes));
        self.b.def_var(self.frame_ptr, fp1);
        let rank = loops.dims.len();
        for d in (0..rank).rev() {
            let step = if d == rank - 1 { lanes } else { 1 };
            let v = self.b.use_var(loops.coords[d]);
            let v1 = self.b.ins().iadd_imm_s(v, step);
            self.b.def_var(loops.coords[d], v1);
            let more = self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedLessThan, v1, loops.dims[d]);
            self.b
                .ins()
                .brif(more, loops.heads[d], &[], loops.exits[d], &[]);
            self.b.switch_to_block(loops.exits[d]);
        }
    }

    fn frame_addr(&mut self, off: u32) -> Value {
        let base = self.b.use_var(self.frame_ptr);
        self.b.ins().iadd_imm_s(base, i64::from(off))
    }

    fn frame_to_vars(&mut self, l: LocalId, off: u32, ty: &Type) -> R<()> {
        let n = match ty {
            Type::Scalar(_) => 1,
            Type::Index(r) | Type::Extent(r) => u32::from(*r),
            _ => {
                self.scope_mut().slots.insert(l, Slot::Frame(off));
                return Ok(());
            }
        };
        let vars = self.local_vars(l, ty, n);
        let addr = self.frame_addr(off);
        for (k, var) in vars.iter().enumerate() {
            let cty = match ty {
                Type::Scalar(s) => clif_type(*s),
                _ => types::I32,
            };
            let v = self.b.ins().load(cty, flags(), addr, (k * 4) as i32);
            self.b.def_var(*var, v);
        }
        Ok(())
    }

    fn vars_to_frame(&mut self, l: LocalId, off: u32, ty: &Type) -> R<()> {
        let Some(Slot::Vars(vars)) = self.scope().slots.get(&l).cloned() else {
            return Ok(());
        };
        let addr = self.frame_addr(off);
        for (k, var) in vars.iter().enumerate() {
            let v = self.b.use_var(*var);
            self.b.ins().store(flags(), v, addr, (k * 4) as i32);
        }
        let _ = ty;
        Ok(())
    }

    /// The variables of a scalar or shape local of the current scope,
    /// declared on first use.
    fn local_vars(&mut self, l: LocalId, ty: &Type, n: u32) -> Vec<Variable> {
        if let Some(Slot::Vars(v)) = self.scope().slots.get(&l) {
            return v.clone();
        }
        let cty = match ty {
            Type::Scalar(s) => clif_type(*s),
            _ => types::I32,
        };
        let vars: Vec<Variable> = (0..n).map(|_| self.b.declare_var(cty)).collect();
        self.scope_mut().slots.insert(l, Slot::Vars(vars.clone()));
        vars
    }

    fn scope(&self) -> &Scope {
        self.scopes.last().expect("a scope is always open")
    }

    fn scope_mut(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("a scope is always open")
    }

    // ----- statements at the level of barriers -----

    /// A block of a tiled kernel outside any region: runs of barrier-free
    /// statements become work-item loops, barriers separate them.
    fn uniform_block(&mut self, body: &IrBlock) -> R<()> {
        let mut run: Vec<&Stmt> = Vec::new();
        for s in &body.stmts {
            let uniform_let = self.scopes.len() == 1
                && matches!(&s.kind, StmtKind::Let { local, .. } if self.uniform.contains(local));
            if uniform_let {
                // Same value in every work-item: computed once for the tile.
                self.flush_region(&mut run)?;
                self.stmt(s)?;
            } else if stmt_has_barrier(s, &self.barrier_fns) || escapes_loop(s) {
                self.flush_region(&mut run)?;
                self.uniform_stmt(s)?;
            } else {
                run.push(s);
            }
        }
        self.flush_region(&mut run)
    }

    /// The kernel's body: as [`Lower::uniform_block`], and its last region
    /// (after the last barrier) may `return`: a work-item that returns
    /// there only skips the rest of that region.
    fn uniform_body(&mut self, body: &IrBlock) -> R<()> {
        let last_barrier = body
            .stmts
            .iter()
            .rposition(|s| stmt_has_barrier(s, &self.barrier_fns) || escapes_loop(s));
        let split = last_barrier.map_or(0, |i| i + 1);
        let head = IrBlock {
            stmts: body.stmts[..split].to_vec(),
        };
        self.uniform_block(&head)?;
        let mut tail: Vec<&Stmt> = body.stmts[split..].iter().collect();
        self.last_region = true;
        let r = self.flush_region(&mut tail);
        self.last_region = false;
        r
    }

    fn flush_region(&mut self, run: &mut Vec<&Stmt>) -> R<()> {
        if run.is_empty() {
            return Ok(());
        }
        let stmts: Vec<Stmt> = run.drain(..).cloned().collect();
        let mut uses = BTreeSet::new();
        for s in &stmts {
            stmt_locals(s, &mut uses);
        }
        // Declared here: nothing to load. Written or declared here: stored
        // back for the next region.
        let block = IrBlock {
            stmts: stmts.clone(),
        };
        let mut stores = HashSet::new();
        mutated_locals(self.prog, &block, &mut stores);
        for s in &stmts {
            if let StmtKind::Let { local, .. } = &s.kind {
                uses.remove(local);
                stores.insert(*local);
            }
        }
        // A `Let` nested in a block of this region declares a local that
        // later regions may still name (a frame local): store it as well.
        let mut nested = Vec::new();
        collect_uniform_lets(&block, &self.barrier_fns, &mut nested);
        stores.extend(nested);
        if let Some((lanes, shared)) = self.interleave_plan(&stmts) {
            return self.lane_loop(&uses, &stores, &stmts, lanes, &shared);
        }
        self.item_loop(&uses, &stores, &mut |lw| lw.stmts(&stmts))
    }

    // ----- interleaved work-items -----

    /// Whether a region can run several neighbouring work-items at once,
    /// statement by statement ("lanes"), and which locals the lanes share.
    ///
    /// Only a region without atomics and whose every branch and loop
    /// condition has the same value in every work-item. Between two
    /// barriers, work-items of a tile can only see each other's writes
    /// through a data race (undefined in C++ AMP, reported by `--check`) or
    /// through atomics, so the order in which the lanes' statements
    /// interleave cannot change a race-free program's result. Its loops'
    /// counters are then shared by the lanes, and the work of several
    /// work-items overlaps instead of each waiting on its own chain of
    /// operations (a dot product's running sum, say).
    fn interleave_plan(&self, stmts: &[Stmt]) -> Option<(usize, HashSet<LocalId>)> {
        if self.scopes.len() != 1 || self.last_region {
            return None;
        }
        let shape = self.layout.tile?;
        let last = *shape.dims().last()?;
        let lanes = [4u32, 2]
            .into_iter()
            .find(|l| last % l == 0 && last >= *l)? as usize;
        let block = IrBlock {
            stmts: stmts.to_vec(),
        };
        // Nothing that calls, leaves early or waits, and no atomics.
        let ok = std::cell::Cell::new(true);
        walk_block(
            &block,
            &mut |s| {
                if matches!(
                    s.kind,
                    StmtKind::Break
                        | StmtKind::Continue
                        | StmtKind::Return(_)
                        | StmtKind::Switch { .. }
                        | StmtKind::Barrier(_)
                ) {
                    ok.set(false);
                }
                if let StmtKind::Let {
                    init: Some(Init::Ref(_)),
                    ..
                } = &s.kind
                {
                    ok.set(false);
                }
            },
            &mut |e| match &e.kind {
                ExprKind::Call { .. }
                | ExprKind::Intrinsic {
                    op: Intrinsic::Atomic(_),
                    ..
                } => ok.set(false),
                _ => {}
            },
        );
        if !ok.get() {
            return None;
        }
        // Counters: declared here with a uniform value, compared with a
        // uniform bound, stepped uniformly, written by nothing else.
        let mut lets: HashMap<LocalId, Option<Expr>> = HashMap::new();
        let mut loops: Vec<(LocalId, Expr, Expr)> = Vec::new();
        let conds: std::cell::RefCell<Vec<Expr>> = std::cell::RefCell::new(Vec::new());
        walk_block(
            &block,
            &mut |s| match &s.kind {
                StmtKind::Let { local, init } => {
                    let e = match init {
                        Some(Init::Expr(e)) => Some(e.clone()),
                        _ => None,
                    };
                    lets.insert(*local, e);
                }
                StmtKind::Loop {
                    cond: Some(c),
                    step,
                    ..
                } => {
                    conds.borrow_mut().push(c.clone());
                    if let (ExprKind::Binary { lhs, rhs, .. }, Some(st)) = (&c.kind, step)
                        && let ExprKind::Local(k) = &lhs.kind
                    {
                        loops.push((*k, (**rhs).clone(), st.clone()));
                    }
                }
                StmtKind::If { cond, .. } => conds.borrow_mut().push(cond.clone()),
                _ => {}
            },
            &mut |e| match &e.kind {
                ExprKind::Logical { lhs, .. } => conds.borrow_mut().push((**lhs).clone()),
                ExprKind::Conditional { cond, .. } => conds.borrow_mut().push((**cond).clone()),
                _ => {}
            },
        );
        let conds = conds.into_inner();
        let mut writes: HashMap<LocalId, usize> = HashMap::new();
        walk_block(&block, &mut |_| {}, &mut |e| {
            if let ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } = &e.kind
                && let ExprKind::Local(l) = &target.kind
            {
                *writes.entry(*l).or_default() += 1;
            }
        });
        let shared: HashSet<LocalId> = lets
            .keys()
            .copied()
            .filter(|l| {
                let w = writes.get(l).copied().unwrap_or(0);
                let counter = loops.iter().filter(|(k, _, _)| k == l).count();
                (w == 0 && counter == 0) || (w == 1 && counter == 1)
            })
            .collect();
        let shared = uniform_fixpoint(shared, &lets, &loops, &self.uniform);
        let mut known: HashSet<LocalId> = shared.clone();
        known.extend(self.uniform.iter().copied());
        if !conds.iter().all(|c| is_uniform(c, &known)) {
            return None;
        }
        Some((lanes, shared))
    }

    /// A region for `lanes` neighbouring work-items at a time (along the
    /// last dimension): each lane has its own variables, coordinates and
    /// frame; statements run lane after lane, loops and branches once.
    fn lane_loop(
        &mut self,
        uses: &BTreeSet<LocalId>,
        stores: &HashSet<LocalId>,
        stmts: &[Stmt],
        lanes: usize,
        shared: &HashSet<LocalId>,
    ) -> R<()> {
        let Some(shape) = self.layout.tile else {
            return unsupported("a work-item loop outside a tiled kernel");
        };
        let tile_loops = self.open_tile_loops(shape);
        let coords = tile_loops.coords.clone();
        let rank = coords.len();
        let item_end = self.b.create_block();
        let id = self.next_region;
        self.next_region += 1;
        let saved_region = self.region.replace(RegionCtx { id, item_end });
        // What the lanes share: the tile's memory, the views, the tiled
        // index, the kernel's uniform counters and this region's.
        let base_slots: HashMap<LocalId, Slot> = self.scopes[0]
            .slots
            .iter()
            .filter(|(l, slot)| {
                matches!(slot, Slot::TileStatic(_) | Slot::Tiled | Slot::View(_))
                    || self.uniform.contains(l)
            })
            .map(|(l, slot)| (*l, slot.clone()))
            .collect();
        let kernel_fn = self.scopes[0].func;
        let mut shared_slots = base_slots;
        for l in shared {
            let ty = self.prog.functions[kernel_fn.0 as usize].locals[l.0 as usize]
                .ty
                .clone();
            let Type::Scalar(sc) = ty else {
                return unsupported("a shared counter that is not a scalar");
            };
            let var = self.b.declare_var(clif_type(sc));
            shared_slots.insert(*l, Slot::Vars(vec![var]));
        }
        let mut ctxs = Vec::with_capacity(lanes);
        for lane in 0..lanes {
            let mut lane_coords = coords.clone();
            let last = self.b.declare_var(types::I32);
            let base = self.b.use_var(coords[rank - 1]);
            let v = self.b.ins().iadd_imm_s(base, lane as i64);
            self.b.def_var(last, v);
            lane_coords[rank - 1] = last;
            let fp = self.b.declare_var(types::I64);
            let base_fp = self.b.use_var(self.frame_ptr);
            let v = self
                .b
                .ins()
                .iadd_imm_s(base_fp, lane as i64 * i64::from(self.layout.frame_bytes));
            self.b.def_var(fp, v);
            ctxs.push(LaneCtx {
                slots: shared_slots.clone(),
                coords: lane_coords,
                frame_ptr: fp,
            });
        }
        let saved_slots = std::mem::take(&mut self.scopes[0].slots);
        let saved_coords = std::mem::take(&mut self.item_coords);
        let saved_fp = self.frame_ptr;
        let frame: Vec<(LocalId, u32)> = uses
            .iter()
            .filter_map(|l| self.scopes[0].frame.get(l).map(|&off| (*l, off)))
            .collect();
        // Locals that hold the same value in neighbouring work-items (a row
        // index, say) are loaded once and shared by the lanes.
        let invariant = self.lane_invariant_locals(rank - 1);
        let mut shared_loaded: Vec<(LocalId, Slot)> = Vec::new();
        let result = (|| -> R<()> {
            let mut first = true;
            for ctx in ctxs.iter_mut() {
                self.swap_lane(ctx);
                for &(l, off) in &frame {
                    if !first && invariant.contains(&l) {
                        continue;
                    }
                    let ty = self.prog.functions[kernel_fn.0 as usize].locals[l.0 as usize]
                        .ty
                        .clone();
                    self.frame_to_vars(l, off, &ty)?;
                }
                self.swap_lane(ctx);
                if first {
                    // Lane 0 loaded the invariant locals: the others use them.
                    let loaded: Vec<(LocalId, Slot)> = frame
                        .iter()
                        .filter(|(l, _)| invariant.contains(l))
                        .filter_map(|(l, _)| ctx.slots.get(l).map(|s| (*l, s.clone())))
                        .collect();
                    shared_loaded = loaded;
                }
                if !first {
                    for (l, slot) in &shared_loaded {
                        ctx.slots.insert(*l, slot.clone());
                    }
                }
                first = false;
            }
            self.lane_stmts(stmts, &mut ctxs)?;
            self.b.ins().jump(item_end, &[]);
            self.b.switch_to_block(item_end);
            let mut written: Vec<(LocalId, u32)> = stores
                .iter()
                .filter_map(|l| self.scopes[0].frame.get(l).map(|&off| (*l, off)))
                .collect();
            written.sort();
            for ctx in ctxs.iter_mut() {
                self.swap_lane(ctx);
                for &(l, off) in &written {
                    let ty = self.prog.functions[kernel_fn.0 as usize].locals[l.0 as usize]
                        .ty
                        .clone();
                    self.vars_to_frame(l, off, &ty)?;
                }
                self.swap_lane(ctx);
            }
            Ok(())
        })();
        self.scopes[0].slots = saved_slots;
        self.item_coords = saved_coords;
        self.frame_ptr = saved_fp;
        self.region = saved_region;
        result?;
        self.close_tile_loops(&tile_loops, lanes as i64);
        Ok(())
    }

    /// The kernel's locals whose value is the same in work-items that differ
    /// only in local dimension `lane_dim`: never written after their
    /// declaration, declared from constants, captures, uniform counters, the
    /// tile's coordinates, the other dimensions' coordinates and such locals.
    fn lane_invariant_locals(&mut self, lane_dim: usize) -> HashSet<LocalId> {
        let kernel = self.scopes[0].func;
        let Some(body) = &self.prog.functions[kernel.0 as usize].body else {
            return HashSet::new();
        };
        let mut lets: Vec<(LocalId, Expr)> = Vec::new();
        walk_block(
            body,
            &mut |s| {
                if let StmtKind::Let {
                    local,
                    init: Some(Init::Expr(e)),
                } = &s.kind
                {
                    lets.push((*local, e.clone()));
                }
            },
            &mut |_| {},
        );
        let mut set: HashSet<LocalId> = self.uniform.clone();
        loop {
            let before = set.len();
            for (l, e) in &lets {
                if !set.contains(l) && !self.is_mutated(*l) && lane_invariant(e, &set, lane_dim) {
                    set.insert(*l);
                }
            }
            if set.len() == before {
                return set;
            }
        }
    }

    /// Makes `ctx` the current lane (calling it again switches back).
    fn swap_lane(&mut self, ctx: &mut LaneCtx) {
        std::mem::swap(&mut self.scopes[0].slots, &mut ctx.slots);
        std::mem::swap(&mut self.item_coords, &mut ctx.coords);
        std::mem::swap(&mut self.frame_ptr, &mut ctx.frame_ptr);
    }

    /// Runs `f` as lane 0, whose view of the shared counters is everyone's.
    fn in_lane0<T>(&mut self, ctxs: &mut [LaneCtx], f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        self.swap_lane(&mut ctxs[0]);
        let r = f(self);
        self.swap_lane(&mut ctxs[0]);
        r
    }

    /// A loop inside a region, for one work-item or for the lanes (whose
    /// condition and step are lane 0's: they are the same in every lane).
    fn emit_loop(&mut self, s: &Stmt, mut lanes: Option<&mut [LaneCtx]>) -> R<()> {
        let StmtKind::Loop {
            cond,
            test_first,
            body,
            step,
        } = &s.kind
        else {
            return unsupported("a loop of another kind");
        };
        // A counted loop: the counter's range holds in the body and the step.
        let counted = if *test_first {
            self.counted_loop(cond.as_ref(), step.as_ref(), body)
        } else {
            None
        };
        // An innermost short counted loop never polls (the loops around it
        // are charged for its iterations); any other polls every iteration,
        // charged for the inner loops too.
        let uncharged = self.innermost_short(self.prev_init.clone(), s).is_some();
        let charge = loop_charge(self, body);
        let test = self.b.create_block();
        let body_blk = self.b.create_block();
        let step_blk = self.b.create_block();
        let exit = self.b.create_block();
        if *test_first {
            self.b.ins().jump(test, &[]);
        } else {
            self.b.ins().jump(body_blk, &[]);
        }
        self.b.switch_to_block(test);
        match cond {
            Some(c) => {
                let c = match lanes.as_deref_mut() {
                    Some(ctxs) => self.in_lane0(ctxs, |lw| lw.scalar(c))?,
                    None => self.scalar(c)?,
                };
                self.b.ins().brif(c, body_blk, &[], exit, &[]);
            }
            None => {
                self.b.ins().jump(body_blk, &[]);
            }
        }
        self.b.switch_to_block(body_blk);
        let saved = counted.map(|(key, range, _)| (key, self.ranges.insert(key, range)));
        let r = match lanes.as_deref_mut() {
            Some(ctxs) => self.lane_stmts(&body.stmts, ctxs),
            None => {
                let region = self.region_id();
                self.loops.push(LoopTargets {
                    brk: exit,
                    cont: Some(step_blk),
                    region,
                });
                let r = self.stmts(&body.stmts);
                self.loops.pop();
                r
            }
        };
        r?;
        self.b.ins().jump(step_blk, &[]);
        self.b.switch_to_block(step_blk);
        if let Some(step) = step {
            match lanes {
                Some(ctxs) => self.in_lane0(ctxs, |lw| lw.expr(step).map(|_| ()))?,
                None => {
                    self.expr(step)?;
                }
            }
        }
        if let Some((key, old)) = saved {
            match old {
                Some(r) => self.ranges.insert(key, r),
                None => self.ranges.remove(&key),
            };
        }
        if !uncharged {
            self.poll_point(charge)?;
        }
        self.b.ins().jump(test, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    fn lane_stmts(&mut self, stmts: &[Stmt], ctxs: &mut [LaneCtx]) -> R<()> {
        let mut prev: Option<&Stmt> = None;
        for s in stmts {
            self.set_prev(prev);
            self.lane_stmt(s, ctxs)?;
            prev = Some(s);
        }
        self.set_prev(None);
        Ok(())
    }

    fn lane_stmt(&mut self, s: &Stmt, ctxs: &mut [LaneCtx]) -> R<()> {
        let shared_let = matches!(&s.kind, StmtKind::Let { local, .. }
        if matches!(ctxs[0].slots.get(local), Some(Slot::Vars(_)))
            && ctxs.len() > 1
            && matches!(
                (ctxs[0].slots.get(local), ctxs[1].slots.get(local)),
                (Some(Slot::Vars(a)), Some(Slot::Vars(b))) if a == b
            ));
        match &s.kind {
            StmtKind::Block(b) => self.lane_stmts(&b.stmts, ctxs),
            StmtKind::Let { .. } if shared_let => self.in_lane0(ctxs, |lw| lw.stmt(s)),
            StmtKind::If { cond, then, els } => {
                let c = self.in_lane0(ctxs, |lw| lw.scalar(cond))?;
                let t = self.b.create_block();
                let e = self.b.create_block();
                let join = self.b.create_block();
                self.b.ins().brif(c, t, &[], e, &[]);
                self.b.switch_to_block(t);
                self.lane_stmts(&then.stmts, ctxs)?;
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(e);
                if let Some(els) = els {
                    self.lane_stmts(&els.stmts, ctxs)?;
                }
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                Ok(())
            }
            StmtKind::Loop { .. } => self.emit_loop(s, Some(ctxs)),
            _ => {
                for ctx in ctxs.iter_mut() {
                    self.swap_lane(ctx);
                    let r = self.stmt(s);
                    self.swap_lane(ctx);
                    r?;
                }
                Ok(())
            }
        }
    }

    fn uniform_stmt(&mut self, s: &Stmt) -> R<()> {
        self.spend()?;
        match &s.kind {
            StmtKind::Barrier(_) => Ok(()),
            StmtKind::Block(b) => self.uniform_block(b),
            StmtKind::If { cond, then, els } => {
                let c = self.tile_cond(cond)?;
                let t = self.b.create_block();
                let e = self.b.create_block();
                let join = self.b.create_block();
                self.b.ins().brif(c, t, &[], e, &[]);
                self.b.switch_to_block(t);
                self.uniform_block(then)?;
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(e);
                if let Some(els) = els {
                    self.uniform_block(els)?;
                }
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                Ok(())
            }
            StmtKind::Loop {
                cond,
                test_first,
                body,
                step,
            } => {
                if block_has_return(body) {
                    return unsupported("`return` in a loop with a barrier");
                }
                let head = self.b.create_block();
                let body_blk = self.b.create_block();
                let step_blk = self.b.create_block();
                let exit = self.b.create_block();
                let test = self.b.create_block();
                if *test_first {
                    self.b.ins().jump(test, &[]);
                } else {
                    self.b.ins().jump(body_blk, &[]);
                }
                self.b.switch_to_block(test);
                match cond {
                    Some(c) => {
                        let c = self.tile_cond(c)?;
                        self.b.ins().brif(c, body_blk, &[], exit, &[]);
                    }
                    None => {
                        self.b.ins().jump(body_blk, &[]);
                    }
                }
                self.b.switch_to_block(body_blk);
                self.loops.push(LoopTargets {
                    brk: exit,
                    cont: Some(step_blk),
                    region: u32::MAX,
                });
                let r = self.uniform_block(body);
                self.loops.pop();
                r?;
                self.b.ins().jump(step_blk, &[]);
                self.b.switch_to_block(step_blk);
                if let Some(step) = step {
                    if self.writes_only_uniform(step) {
                        self.expr(step)?;
                    } else {
                        let st = Stmt {
                            id: tessera_ir::StmtId::UNNUMBERED,
                            kind: StmtKind::Expr(step.clone()),
                            span: step.span,
                        };
                        let mut run = vec![&st];
                        self.flush_region(&mut run)?;
                    }
                }
                let charge = loop_charge(self, body);
                self.poll_point(charge)?;
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(head);
                self.b.ins().jump(test, &[]);
                self.b.switch_to_block(exit);
                Ok(())
            }
            StmtKind::Expr(Expr {
                kind: ExprKind::Call { func, args },
                ..
            }) => self.barrier_call(*func, args),
            StmtKind::Break | StmtKind::Continue => {
                // Taken by the whole tile: the condition that led here was
                // checked to agree across the work-items.
                let Some(t) = self.loops.last() else {
                    return unsupported("`break` outside a loop");
                };
                let target = if matches!(s.kind, StmtKind::Break) {
                    t.brk
                } else {
                    let Some(c) = t.cont else {
                        return unsupported("`continue` in a switch");
                    };
                    c
                };
                self.b.ins().jump(target, &[]);
                self.dead_block();
                Ok(())
            }
            _ => unsupported("a barrier inside this kind of statement"),
        }
    }

    /// `f(t, ...);` of a function that holds a barrier, at the level of the
    /// barriers: its body is split like the kernel's, inline, and its
    /// locals (parameters included) get frame slots of their own.
    fn barrier_call(&mut self, func: FuncId, args: &[Expr]) -> R<()> {
        let callee = &self.prog.functions[func.0 as usize];
        let Some(body) = &callee.body else {
            return unsupported("a call of an undefined function");
        };
        if callee.ret_by_ref || callee.ret != Type::Void {
            return unsupported("a function with a barrier that returns a value");
        }
        if block_has_return(body) {
            return unsupported("`return` in a function with a barrier");
        }
        if self.scopes.len() > 16 {
            return unsupported("calls with barriers nested too deeply");
        }
        // Every local of the callee that has a memory layout gets a slot; a
        // reference parameter bound to a local of the caller that has one
        // shares it; `tile_static` variables live in scratch memory.
        let mut frame = HashMap::new();
        let mut slots = HashMap::new();
        for (i, local) in callee.locals.iter().enumerate() {
            let id = LocalId(i as u32);
            if local.space == Space::TileStatic {
                let key = (func, id);
                let at = match self.callee_tile_static.get(&key) {
                    Some(&at) => at,
                    None => {
                        let Some((size, align)) = size_align(self.prog, &local.ty) else {
                            return unsupported("a `tile_static` variable of this type");
                        };
                        let at = self.scratch_cursor.next_multiple_of(align.max(1));
                        self.scratch_cursor = at.saturating_add(size);
                        if self.scratch_cursor > 64 * 1024 {
                            return unsupported("`tile_static` memory past 64 KB");
                        }
                        self.callee_tile_static.insert(key, at);
                        at
                    }
                };
                slots.insert(id, Slot::TileStatic(at));
                continue;
            }
            if local.by_ref {
                let Some(a) = args.get(i) else {
                    return unsupported("a reference in a function with a barrier");
                };
                if matches!(local.ty, Type::TiledIndex(_)) {
                    continue;
                }
                let ExprKind::Local(l) = &a.kind else {
                    return unsupported("a reference argument other than a variable");
                };
                let Some(&off) = self.scope().frame.get(l) else {
                    return unsupported("a reference argument to a variable of a work-item loop");
                };
                frame.insert(id, off);
                continue;
            }
            if let Some((size, align)) = size_align(self.prog, &local.ty) {
                let at = self.frame_cursor.next_multiple_of(align.max(1));
                frame.insert(id, at);
                self.frame_cursor = at.saturating_add(size);
            }
        }
        // Views and the tiled index are the same in every work-item; the
        // other arguments are stored into the parameters' slots per work-item
        // (a reference already shares its variable's slot).
        let mut per_item = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let id = LocalId(k as u32);
            let param = &callee.locals[k];
            if param.by_ref && !matches!(param.ty, Type::TiledIndex(_)) {
                continue;
            }
            match &param.ty {
                Type::TiledIndex(_) => {
                    if !matches!(self.expr(a)?, V::Tiled) {
                        return unsupported("a tiled index other than the kernel's");
                    }
                    slots.insert(id, Slot::Tiled);
                }
                Type::ArrayView { .. } | Type::Array(..) => {
                    if !matches!(a.kind, ExprKind::Capture(_)) {
                        return unsupported("a view argument other than a captured view");
                    }
                    let V::View(v) = self.expr(a)? else {
                        return unsupported("a view argument of this kind");
                    };
                    slots.insert(id, Slot::View(v));
                }
                ty if frame.contains_key(&id) => per_item.push((a, ty.clone(), frame[&id])),
                _ => return unsupported("an argument of this type"),
            }
        }
        if !per_item.is_empty() {
            let mut uses = BTreeSet::new();
            for (a, _, _) in &per_item {
                expr_locals(a, &mut uses);
            }
            let mut stores = HashSet::new();
            for (a, _, _) in &per_item {
                let probe = IrBlock {
                    stmts: vec![Stmt {
                        id: tessera_ir::StmtId::UNNUMBERED,
                        kind: StmtKind::Expr((*a).clone()),
                        span: a.span,
                    }],
                };
                mutated_locals(self.prog, &probe, &mut stores);
            }
            self.item_loop(&uses, &stores, &mut |lw| {
                for (a, ty, off) in &per_item {
                    let v = lw.expr(a)?;
                    let addr = lw.frame_addr(*off);
                    lw.store_value(addr, ty, &v)?;
                }
                Ok(())
            })?;
        }
        self.next_scope += 1;
        self.scopes.push(Scope {
            id: self.next_scope,
            func,
            slots,
            ret: None,
            ret_mem: None,
            frame,
        });
        let saved_loops = std::mem::take(&mut self.loops);
        let r = self.uniform_block(body);
        self.loops = saved_loops;
        self.scopes.pop();
        r
    }

    /// A condition taken by the whole tile: computed once when it is
    /// uniform by construction, else per work-item and checked to agree.
    fn tile_cond(&mut self, cond: &Expr) -> R<Value> {
        // The uniform counters are the kernel's own locals.
        let empty = HashSet::new();
        let uniform = if self.scopes.len() == 1 {
            &self.uniform
        } else {
            &empty
        };
        if is_uniform(cond, uniform) {
            self.scalar(cond)
        } else {
            self.uniform_cond(cond)
        }
    }

    /// True for a step that writes only uniform counters with uniform values.
    fn writes_only_uniform(&self, step: &Expr) -> bool {
        if self.scopes.len() != 1 {
            return false;
        }
        match &step.kind {
            ExprKind::IncDec { target, .. } => {
                matches!(&target.kind, ExprKind::Local(l) if self.uniform.contains(l))
            }
            ExprKind::CompoundAssign { target, value, .. } | ExprKind::Assign { target, value } => {
                matches!(&target.kind, ExprKind::Local(l) if self.uniform.contains(l))
                    && is_uniform(value, &self.uniform)
            }
            _ => false,
        }
    }

    /// Evaluates a condition for every work-item and checks that they agree.
    fn uniform_cond(&mut self, cond: &Expr) -> R<Value> {
        let first = self.b.declare_var(types::I8);
        let mut uses = BTreeSet::new();
        expr_locals(cond, &mut uses);
        let mut stores = HashSet::new();
        let probe = IrBlock {
            stmts: vec![Stmt {
                id: tessera_ir::StmtId::UNNUMBERED,
                kind: StmtKind::Expr(cond.clone()),
                span: cond.span,
            }],
        };
        mutated_locals(self.prog, &probe, &mut stores);
        let fail = self.fail;
        let item = self.item;
        self.need_item = true;
        let r = self.item_loop(&uses, &stores, &mut |lw| {
            let c = lw.scalar(cond)?;
            let it = lw.b.use_var(item);
            let is_first = lw.b.ins().icmp_imm_s(IntCC::Equal, it, 0);
            let set = lw.b.create_block();
            let check = lw.b.create_block();
            let done = lw.b.create_block();
            lw.b.ins().brif(is_first, set, &[], check, &[]);
            lw.b.switch_to_block(set);
            lw.b.def_var(first, c);
            lw.b.ins().jump(done, &[]);
            lw.b.switch_to_block(check);
            let f = lw.b.use_var(first);
            let differ = lw.b.ins().icmp(IntCC::NotEqual, f, c);
            lw.b.ins().brif(differ, fail, &[], done, &[]);
            lw.b.switch_to_block(done);
            Ok(())
        });
        self.need_item = false;
        r?;
        Ok(self.b.use_var(first))
    }

    /// Counts one loop iteration as `charge` units of work (the iteration
    /// and the iterations of the innermost loops inside it that do not
    /// poll); polls when the fuel runs out.
    fn poll_point(&mut self, charge: i64) -> R<()> {
        let f = self.b.use_var(self.fuel);
        let f1 = self.b.ins().iadd_imm_s(f, -charge.max(1));
        self.b.def_var(self.fuel, f1);
        let empty = self.b.ins().icmp_imm_s(IntCC::SignedLessThanOrEqual, f1, 0);
        let poll = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(empty, poll, &[], go, &[]);
        self.b.switch_to_block(poll);
        let call = self.b.ins().call(self.helpers.poll, &[self.env]);
        let status = self.b.inst_results(call)[0];
        let refill = self.b.ins().iconst(types::I64, FUEL);
        self.b.def_var(self.fuel, refill);
        let stopped = self.stopped;
        self.b.ins().brif(status, stopped, &[], go, &[]);
        self.b.switch_to_block(go);
        Ok(())
    }

    // ----- statements inside a region -----

    fn stmts(&mut self, stmts: &[Stmt]) -> R<()> {
        let mut prev: Option<&Stmt> = None;
        for s in stmts {
            self.set_prev(prev);
            self.stmt(s)?;
            prev = Some(s);
        }
        self.set_prev(None);
        Ok(())
    }

    /// Remembers the statement before the current one, when it declares a
    /// local (a `for` is its counter's declaration, then the loop).
    fn set_prev(&mut self, prev: Option<&Stmt>) {
        match prev.map(|p| &p.kind) {
            Some(StmtKind::Let { local, init }) => {
                self.prev_let = Some(*local);
                let e = match init {
                    Some(Init::Expr(e)) => Some(e.clone()),
                    _ => None,
                };
                self.prev_init = Some((*local, e));
            }
            _ => {
                self.prev_let = None;
                self.prev_init = None;
            }
        }
    }

    /// The most iterations of `lp` when it is an innermost loop (no loop or
    /// call inside) counted from its counter's declaration right before it
    /// (`prev`) to a bound of known range, at most [`SHORT_LOOP`]. Such a
    /// loop never polls; the loops around it are charged for it.
    fn innermost_short(&self, prev: Option<(LocalId, Option<Expr>)>, lp: &Stmt) -> Option<i64> {
        let StmtKind::Loop {
            cond: Some(cond),
            test_first: true,
            body,
            step: Some(step),
        } = &lp.kind
        else {
            return None;
        };
        let (declared, Some(init)) = prev? else {
            return None;
        };
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return None;
        };
        let ExprKind::Local(k) = &lhs.kind else {
            return None;
        };
        if *k != declared {
            return None;
        }
        let step_ok = match &step.kind {
            ExprKind::IncDec {
                increment: true,
                target,
                ..
            } => matches!(&target.kind, ExprKind::Local(t) if t == k),
            ExprKind::CompoundAssign {
                op: BinOp::Add,
                target,
                value,
            } => {
                matches!(&target.kind, ExprKind::Local(t) if t == k)
                    && self.range_of(value).is_some_and(|(lo, _)| lo > 0)
            }
            _ => false,
        };
        if !step_ok {
            return None;
        }
        let inner = std::cell::Cell::new(false);
        walk_block(
            body,
            &mut |s| {
                if matches!(s.kind, StmtKind::Loop { .. }) {
                    inner.set(true);
                }
            },
            &mut |e| {
                if matches!(e.kind, ExprKind::Call { .. }) {
                    inner.set(true);
                }
            },
        );
        let mut written = HashSet::new();
        mutated_locals(self.prog, body, &mut written);
        if inner.get() || written.contains(k) {
            return None;
        }
        let (start, _) = self.range_of(&init)?;
        let (_, limit) = self.range_of(rhs)?;
        let hi = match op {
            BinOp::Lt => limit.checked_sub(1)?,
            BinOp::Le => limit,
            _ => return None,
        };
        let trips = hi.saturating_sub(start).saturating_add(1).max(0);
        (trips <= SHORT_LOOP).then_some(trips)
    }

    fn dead_block(&mut self) {
        let b = self.b.create_block();
        self.b.switch_to_block(b);
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        self.spend()?;
        match &s.kind {
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Let { local, init } => self.let_local(*local, init.as_ref())?,
            StmtKind::Block(b) => self.stmts(&b.stmts)?,
            StmtKind::If { cond, then, els } => {
                let c = self.scalar(cond)?;
                let t = self.b.create_block();
                let e = self.b.create_block();
                let join = self.b.create_block();
                self.b.ins().brif(c, t, &[], e, &[]);
                self.b.switch_to_block(t);
                self.stmts(&then.stmts)?;
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(e);
                if let Some(els) = els {
                    self.stmts(&els.stmts)?;
                }
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
            }
            StmtKind::Loop { .. } => self.emit_loop(s, None)?,
            StmtKind::Switch { value, arms } => {
                let v = self.scalar(value)?;
                let vty = clif_type(self.scalar_ty(&value.ty)?);
                let exit = self.b.create_block();
                let blocks: Vec<Block> = arms.iter().map(|_| self.b.create_block()).collect();
                let mut default = exit;
                for (arm, blk) in arms.iter().zip(&blocks) {
                    match arm.value {
                        Some(k) => {
                            let kv = self.b.ins().iconst(vty, k);
                            let hit = self.b.ins().icmp(IntCC::Equal, v, kv);
                            let next = self.b.create_block();
                            self.b.ins().brif(hit, *blk, &[], next, &[]);
                            self.b.switch_to_block(next);
                        }
                        None => default = *blk,
                    }
                }
                self.b.ins().jump(default, &[]);
                let region = self.region_id();
                self.loops.push(LoopTargets {
                    brk: exit,
                    cont: None,
                    region,
                });
                for (i, (arm, blk)) in arms.iter().zip(&blocks).enumerate() {
                    self.b.switch_to_block(*blk);
                    if let Err(e) = self.stmts(&arm.body.stmts) {
                        self.loops.pop();
                        return Err(e);
                    }
                    let fall = blocks.get(i + 1).copied().unwrap_or(exit);
                    self.b.ins().jump(fall, &[]);
                }
                self.loops.pop();
                self.b.switch_to_block(exit);
            }
            StmtKind::Break => {
                let region = self.region_id();
                let Some(t) = self.loops.last() else {
                    return unsupported("`break` outside a loop");
                };
                if t.region != region {
                    return unsupported("`break` out of a loop with a barrier");
                }
                let brk = t.brk;
                self.b.ins().jump(brk, &[]);
                self.dead_block();
            }
            StmtKind::Continue => {
                let region = self.region_id();
                let Some(t) = self.loops.iter().rev().find(|t| t.cont.is_some()) else {
                    return unsupported("`continue` outside a loop");
                };
                if t.region != region {
                    return unsupported("`continue` in a loop with a barrier");
                }
                let cont = t.cont.unwrap_or(t.brk);
                self.b.ins().jump(cont, &[]);
                self.dead_block();
            }
            StmtKind::Return(value) => {
                if self.scopes.len() > 1 {
                    let ret = self.scope().ret.clone();
                    let Some((blk, vars, ty)) = ret else {
                        return unsupported("`return` here");
                    };
                    if let Some(v) = value {
                        let lowered = self.expr(v)?;
                        match self.scope().ret_mem {
                            Some(ss) => {
                                let at = self.b.ins().stack_addr(self.ptr, ss, 0);
                                self.store_value(at, &ty, &lowered)?;
                            }
                            None => self.assign_vars(&vars, &lowered, &ty)?,
                        }
                    }
                    self.b.ins().jump(blk, &[]);
                } else {
                    if self.layout.frame_bytes > 0 && !self.last_region {
                        return unsupported("`return` before a barrier");
                    }
                    let Some(r) = &self.region else {
                        return unsupported("`return` between barriers");
                    };
                    let end = r.item_end;
                    self.b.ins().jump(end, &[]);
                }
                self.dead_block();
            }
            StmtKind::Barrier(_) => return unsupported("a barrier inside a work-item loop"),
        }
        Ok(())
    }

    fn region_id(&self) -> u32 {
        self.region.as_ref().map_or(u32::MAX, |r| r.id)
    }

    fn let_local(&mut self, l: LocalId, init: Option<&Init>) -> R<()> {
        let func = self.scope().func;
        let local = &self.prog.functions[func.0 as usize].locals[l.0 as usize];
        let ty = local.ty.clone();
        if local.space == Space::TileStatic {
            // Shared by the tile: its one instance lives in scratch memory.
            if init.is_some_and(|i| !matches!(i, Init::Zero)) {
                return unsupported("an initialised `tile_static` variable");
            }
            if !self.scope().slots.contains_key(&l) {
                return unsupported("a `tile_static` variable in a called function");
            }
            return Ok(());
        }
        if local.by_ref {
            let Some(Init::Ref(target)) = init else {
                return unsupported("a reference without a target");
            };
            let slot = self.bind_ref(target, &ty)?;
            self.scope_mut().slots.insert(l, slot);
            return Ok(());
        }
        match &ty {
            Type::Scalar(s) => {
                let vars = self.local_vars(l, &ty, 1);
                let depth = self.scope().id;
                let range = match init {
                    Some(Init::Expr(e)) => self.range_of(e),
                    _ => Some((0, 0)),
                };
                match range {
                    Some(r) => {
                        self.init_ranges.insert((depth, l), r);
                        if !self.is_mutated(l) {
                            self.ranges.insert((depth, l), r);
                        }
                    }
                    None => {
                        self.init_ranges.remove(&(depth, l));
                        self.ranges.remove(&(depth, l));
                    }
                }
                let v = match init {
                    Some(Init::Expr(e)) => self.scalar(e)?,
                    _ => self.zero(*s),
                };
                self.b.def_var(vars[0], v);
            }
            Type::Index(r) | Type::Extent(r) => {
                let vars = self.local_vars(l, &ty, u32::from(*r));
                let comps = match init {
                    Some(Init::Expr(e)) => self.shape(e)?,
                    Some(Init::List(items)) => {
                        let mut out = Vec::new();
                        for i in items {
                            let Init::Expr(e) = i else {
                                return unsupported("a nested initialiser of an index");
                            };
                            out.push(self.scalar(e)?);
                        }
                        out
                    }
                    _ => (0..*r)
                        .map(|_| self.b.ins().iconst(types::I32, 0))
                        .collect(),
                };
                for (var, c) in vars.iter().zip(comps) {
                    self.b.def_var(*var, c);
                }
            }
            Type::ArrayView { .. } | Type::Array(..) => {
                let Some(Init::Expr(e)) = init else {
                    return unsupported("a view local without a value");
                };
                let V::View(v) = self.expr(e)? else {
                    return unsupported("a view local of this kind");
                };
                self.scope_mut().slots.insert(l, Slot::View(v));
            }
            Type::Struct(_) | Type::CArray(..) => {
                let addr = self.aggregate_slot(l, &ty)?;
                match init {
                    None | Some(Init::Zero) => self.zero_mem(addr, &ty)?,
                    Some(i) => self.init_mem(addr, &ty, i)?,
                }
            }
            other => {
                return unsupported(format!(
                    "a local of type `{}`",
                    tessera_ir::display(other, &self.prog.structs)
                ));
            }
        }
        Ok(())
    }

    /// What a reference of type `ty` bound to `a` names: the place `a` is,
    /// or, for a value (`const T&` bound to `x + 1`), a temporary holding it
    /// that nothing can write.
    fn bind_ref(&mut self, a: &Expr, ty: &Type) -> R<Slot> {
        if a.place {
            return Ok(Slot::Ref(self.place(a)?));
        }
        Ok(match self.expr(a)? {
            V::S(x) => {
                let t = self.b.func.dfg.value_type(x);
                let var = self.b.declare_var(t);
                self.b.def_var(var, x);
                Slot::Vars(vec![var])
            }
            V::Shape(cs) => {
                let vars: Vec<Variable> =
                    cs.iter().map(|_| self.b.declare_var(types::I32)).collect();
                for (v, c) in vars.iter().zip(cs) {
                    self.b.def_var(*v, c);
                }
                Slot::Vars(vars)
            }
            V::Mem(addr) => Slot::Ref(Place::Mem(addr, ty.clone())),
            V::View(v) => Slot::View(v),
            V::Tiled => Slot::Tiled,
            V::Unit => return unsupported("a reference to nothing"),
        })
    }

    /// The address of an aggregate local, giving it a home on first use.
    fn aggregate_slot(&mut self, l: LocalId, ty: &Type) -> R<Value> {
        if let Some(slot) = self.scope().slots.get(&l).cloned() {
            return self.slot_addr(&slot);
        }
        if let Some(&off) = self.scope().frame.get(&l) {
            self.scope_mut().slots.insert(l, Slot::Frame(off));
            return Ok(self.frame_addr(off));
        }
        let Some((size, align)) = size_align(self.prog, ty) else {
            return unsupported("an aggregate of this type");
        };
        let ss = self.stack_slot(size, align)?;
        self.scope_mut().slots.insert(l, Slot::Stack(ss));
        Ok(self.b.ins().stack_addr(self.ptr, ss, 0))
    }

    /// A stack slot for a private aggregate; the kernel is declined past
    /// [`STACK_BUDGET`] bytes, since workers have fixed-size stacks.
    fn stack_slot(&mut self, size: u32, align: u32) -> R<cranelift_codegen::ir::StackSlot> {
        self.stack_bytes = self.stack_bytes.saturating_add(size);
        if self.stack_bytes > STACK_BUDGET {
            return unsupported("private arrays too large for a worker's stack");
        }
        Ok(self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size,
            align.trailing_zeros() as u8,
        )))
    }

    fn slot_addr(&mut self, slot: &Slot) -> R<Value> {
        Ok(match slot {
            Slot::Stack(ss) => self.b.ins().stack_addr(self.ptr, *ss, 0),
            Slot::Frame(off) => self.frame_addr(*off),
            Slot::TileStatic(off) => self.b.ins().iadd_imm_s(self.scratch, i64::from(*off)),
            _ => return unsupported("the address of a variable"),
        })
    }

    fn zero_mem(&mut self, addr: Value, ty: &Type) -> R<()> {
        let Some((size, _)) = size_align(self.prog, ty) else {
            return unsupported("an aggregate of this type");
        };
        let zero = self.b.ins().iconst(types::I8, 0);
        if size <= 256 {
            for k in 0..size {
                self.b.ins().store(flags(), zero, addr, k as i32);
            }
            return Ok(());
        }
        // A loop for large arrays.
        let i = self.b.declare_var(types::I64);
        let z64 = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(i, z64);
        let head = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let iv = self.b.use_var(i);
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, iv, i64::from(size));
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let at = self.b.ins().iadd(addr, iv);
        self.b.ins().store(flags(), zero, at, 0);
        let i1 = self.b.ins().iadd_imm_s(iv, 1);
        self.b.def_var(i, i1);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    fn init_mem(&mut self, addr: Value, ty: &Type, init: &Init) -> R<()> {
        match init {
            Init::Zero => self.zero_mem(addr, ty),
            Init::Expr(e) => {
                let v = self.expr(e)?;
                self.store_value(addr, ty, &v)
            }
            Init::List(items) => {
                self.zero_mem(addr, ty)?;
                for (k, item) in items.iter().enumerate() {
                    let (sub_ty, off) = match ty {
                        Type::CArray(elem, _) => {
                            let Some((size, _)) = size_align(self.prog, elem) else {
                                return unsupported("an array element of this type");
                            };
                            ((**elem).clone(), size * k as u32)
                        }
                        Type::Struct(id) => {
                            let Some(def) = self.prog.structs.get(id.0 as usize) else {
                                return unsupported("an unknown struct");
                            };
                            let Some((_, fty)) = def.fields.get(k) else {
                                return unsupported("an initialiser with too many fields");
                            };
                            let Some(off) = field_offset(self.prog, ty, k as u32) else {
                                return unsupported("a field of this type");
                            };
                            (fty.clone(), off)
                        }
                        _ => return unsupported("a braced initialiser of this type"),
                    };
                    let at = self.b.ins().iadd_imm_s(addr, i64::from(off));
                    self.init_mem(at, &sub_ty, item)?;
                }
                Ok(())
            }
            Init::Ref(_) => unsupported("a reference inside an aggregate"),
        }
    }

    /// Stores a value of type `ty` at `addr`.
    fn store_value(&mut self, addr: Value, ty: &Type, v: &V) -> R<()> {
        match (ty, v) {
            (Type::Scalar(_), V::S(x)) => {
                self.b.ins().store(flags(), *x, addr, 0);
            }
            (Type::Index(_) | Type::Extent(_), V::Shape(cs)) => {
                for (k, c) in cs.iter().enumerate() {
                    self.b.ins().store(flags(), *c, addr, (k * 4) as i32);
                }
            }
            (Type::Struct(_) | Type::CArray(..), V::Mem(src)) => {
                let Some((size, _)) = size_align(self.prog, ty) else {
                    return unsupported("an aggregate of this type");
                };
                self.copy_bytes(addr, *src, size);
            }
            _ => return unsupported("storing a value of this kind"),
        }
        Ok(())
    }

    fn copy_bytes(&mut self, dst: Value, src: Value, size: u32) {
        let mut k = 0u32;
        while k < size {
            let (t, n) = if size - k >= 8 && k.is_multiple_of(8) {
                (types::I64, 8)
            } else if size - k >= 4 && k.is_multiple_of(4) {
                (types::I32, 4)
            } else {
                (types::I8, 1)
            };
            let v = self.b.ins().load(t, flags(), src, k as i32);
            self.b.ins().store(flags(), v, dst, k as i32);
            k += n;
        }
    }

    // ----- value ranges -----

    /// True when the current function writes local `l` after declaring it.
    fn is_mutated(&mut self, l: LocalId) -> bool {
        let func = self.scope().func;
        if !self.mutated.contains_key(&func) {
            let mut set = HashSet::new();
            if let Some(body) = &self.prog.functions[func.0 as usize].body {
                mutated_locals(self.prog, body, &mut set);
            }
            self.mutated.insert(func, set);
        }
        self.mutated.get(&func).is_some_and(|m| m.contains(&l))
    }

    /// The range (inclusive) an `int`-like expression's value is known to
    /// lie in, when it is known.
    fn range_of(&self, e: &Expr) -> Option<(i64, i64)> {
        let s = e.ty.scalar()?;
        if s.is_floating() || s == Scalar::Bool {
            return None;
        }
        let (tlo, thi) = int_limits(s);
        let r = match &e.kind {
            ExprKind::Const(Const::Int(n)) => (*n, *n),
            ExprKind::Local(l) => *self.ranges.get(&(self.scope().id, *l))?,
            ExprKind::Convert(inner) => {
                let is = inner.ty.scalar()?;
                if is.is_floating() || is == Scalar::Bool {
                    return None;
                }
                self.range_of(inner)?
            }
            // `x & m` with `m >= 0` lies in `[0, m]` whatever `x` is; `x % n`
            // with `x >= 0` and `n > 0` in `[0, n - 1]`.
            ExprKind::Binary {
                op: BinOp::BitAnd,
                lhs,
                rhs,
            } if self
                .range_of(rhs)
                .or_else(|| self.range_of(lhs))
                .is_some_and(|(lo, _)| lo >= 0) =>
            {
                let m = self.range_of(rhs).filter(|(lo, _)| *lo >= 0);
                let m = m.or_else(|| self.range_of(lhs).filter(|(lo, _)| *lo >= 0))?;
                (0, m.1)
            }
            ExprKind::Binary {
                op: BinOp::Rem,
                lhs,
                rhs,
            } => {
                let (a, b) = (self.range_of(lhs)?, self.range_of(rhs)?);
                if a.0 < 0 || b.0 <= 0 {
                    return None;
                }
                (0, (b.1 - 1).min(a.1))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.range_of(lhs)?, self.range_of(rhs)?);
                let c = |x: i64, y: i64| -> Option<i64> {
                    match op {
                        BinOp::Add => x.checked_add(y),
                        BinOp::Sub => x.checked_sub(y),
                        BinOp::Mul => x.checked_mul(y),
                        _ => None,
                    }
                };
                let (ylo, yhi) = if *op == BinOp::Sub { (b.1, b.0) } else { b };
                let corners = [c(a.0, ylo)?, c(a.0, yhi)?, c(a.1, ylo)?, c(a.1, yhi)?];
                let lo = corners.iter().copied().min()?;
                let hi = corners.iter().copied().max()?;
                (lo, hi)
            }
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => {
                let k = const_int(&args[1])?;
                let ExprKind::Intrinsic {
                    op: Intrinsic::TiledIndexPart(TiledIndexPart::Local),
                    ..
                } = &args[0].kind
                else {
                    return None;
                };
                let shape = self.layout.tile?;
                let d = *shape.dims().get(usize::try_from(k).ok()?)?;
                (0, i64::from(d) - 1)
            }
            _ => return None,
        };
        (r.0 >= tlo && r.1 <= thi).then_some(r)
    }

    /// For `for (...; k < n; ++k)` (or `k <= n`, `k++`, `k += c` with
    /// `c > 0`) whose body does not write `k`, where `k` starts in a known
    /// range and `n` is known: the counter's key, its range in the body, and
    /// the most iterations the loop can make.
    fn counted_loop(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &IrBlock,
    ) -> Option<CountedLoop> {
        let ExprKind::Binary { op, lhs, rhs } = &cond?.kind else {
            return None;
        };
        let ExprKind::Local(k) = &lhs.kind else {
            return None;
        };
        let step_ok = match &step?.kind {
            ExprKind::IncDec {
                increment: true,
                target,
                ..
            } => matches!(&target.kind, ExprKind::Local(t) if t == k),
            ExprKind::CompoundAssign {
                op: BinOp::Add,
                target,
                value,
            } => {
                matches!(&target.kind, ExprKind::Local(t) if t == k)
                    && self.range_of(value).is_some_and(|(lo, _)| lo > 0)
            }
            _ => false,
        };
        if !step_ok {
            return None;
        }
        let mut written = HashSet::new();
        mutated_locals(self.prog, body, &mut written);
        if written.contains(k) {
            return None;
        }
        // The counter's first value is its declaration's only when the
        // declaration comes right before the loop.
        if self.prev_let != Some(*k) {
            return None;
        }
        let depth = self.scope().id;
        let (start, _) = *self.init_ranges.get(&(depth, *k))?;
        let (_, limit) = self.range_of(rhs)?;
        let hi = match op {
            BinOp::Lt => limit.checked_sub(1)?,
            BinOp::Le => limit,
            _ => return None,
        };
        if hi < start {
            return None;
        }
        let trips = hi.saturating_sub(start).saturating_add(1);
        Some(((depth, *k), (start, hi), trips))
    }

    // ----- expressions -----

    fn scalar_ty(&self, ty: &Type) -> R<Scalar> {
        match ty {
            Type::Scalar(s) => Ok(*s),
            other => unsupported(format!(
                "a value of type `{}` where a scalar was expected",
                tessera_ir::display(other, &self.prog.structs)
            )),
        }
    }

    fn zero(&mut self, s: Scalar) -> Value {
        match s {
            Scalar::Float => self.b.ins().f32const(0.0),
            Scalar::Double => self.b.ins().f64const(0.0),
            other => self.b.ins().iconst(clif_type(other), 0),
        }
    }

    fn scalar(&mut self, e: &Expr) -> R<Value> {
        match self.expr(e)? {
            V::S(v) => Ok(v),
            _ => unsupported("a non-scalar value where a scalar was expected"),
        }
    }

    fn shape(&mut self, e: &Expr) -> R<Vec<Value>> {
        match self.expr(e)? {
            V::Shape(v) => Ok(v),
            V::Tiled => Ok(self.global_index()),
            _ => unsupported("a value where an index was expected"),
        }
    }

    fn view(&mut self, e: &Expr) -> R<ViewV> {
        match self.expr(e)? {
            V::View(v) => Ok(v),
            _ => unsupported("a value where a view was expected"),
        }
    }

    fn global_index(&mut self) -> Vec<Value> {
        let Some(shape) = self.layout.tile else {
            return self
                .item_coords
                .iter()
                .map(|v| self.b.use_var(*v))
                .collect();
        };
        let coords = self.item_coords.clone();
        let tiles = self.tile_coords.clone();
        shape
            .dims()
            .iter()
            .enumerate()
            .map(|(d, &t)| {
                let origin = self.b.ins().imul_imm_s(tiles[d], i64::from(t));
                let l = self.b.use_var(coords[d]);
                self.b.ins().iadd(origin, l)
            })
            .collect()
    }

    fn spend(&mut self) -> R<()> {
        if self.budget == 0 || self.b.func.dfg.num_insts() > MAX_INSTS {
            return unsupported("a kernel too large after inlining its calls");
        }
        self.budget -= 1;
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> R<V> {
        self.spend()?;
        match &e.kind {
            ExprKind::Const(c) => Ok(V::S(match *c {
                Const::Bool(b) => self.b.ins().iconst(types::I8, i64::from(b)),
                Const::Int(n) => {
                    let s = self.scalar_ty(&e.ty)?;
                    self.b.ins().iconst(clif_type(s), n)
                }
                Const::Float(f) => self.b.ins().f32const(f),
                Const::Double(d) => self.b.ins().f64const(d),
            })),
            ExprKind::Local(l)
                if matches!(self.scope().slots.get(l), Some(Slot::View(_) | Slot::Tiled)) =>
            {
                match self.scope().slots.get(l) {
                    Some(Slot::View(v)) => Ok(V::View(v.clone())),
                    _ => Ok(V::Tiled),
                }
            }
            ExprKind::Local(_) | ExprKind::Field { .. } | ExprKind::Element { .. } => {
                let p = self.place(e)?;
                self.read(&p)
            }
            ExprKind::Capture(slot) => match self.caps.get(*slot as usize) {
                Some(v) => Ok(v.clone()),
                None => unsupported("an unknown capture"),
            },
            ExprKind::Global(_) => unsupported("a global variable in a kernel"),
            ExprKind::Binary { op, lhs, rhs } => {
                let s = self.scalar_ty(&lhs.ty)?;
                let rs = self.scalar_ty(&rhs.ty)?;
                let fits = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
                    && s == Scalar::Int
                    && self.range_of(e).is_some();
                let a = self.scalar(lhs)?;
                let b = self.scalar(rhs)?;
                if fits {
                    // Both operand ranges are known and the result fits: no
                    // overflow check.
                    return Ok(V::S(match op {
                        BinOp::Add => self.b.ins().iadd(a, b),
                        BinOp::Sub => self.b.ins().isub(a, b),
                        _ => self.b.ins().imul(a, b),
                    }));
                }
                Ok(V::S(self.binary(*op, s, a, b, rs)?))
            }
            ExprKind::Unary { op, operand } => {
                let s = self.scalar_ty(&operand.ty)?;
                let a = self.scalar(operand)?;
                Ok(V::S(self.unary(*op, s, a)?))
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let result = self.b.declare_var(types::I8);
                let a = self.scalar(lhs)?;
                self.b.def_var(result, a);
                let more = self.b.create_block();
                let done = self.b.create_block();
                if *and {
                    self.b.ins().brif(a, more, &[], done, &[]);
                } else {
                    self.b.ins().brif(a, done, &[], more, &[]);
                }
                self.b.switch_to_block(more);
                let b = self.scalar(rhs)?;
                self.b.def_var(result, b);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                Ok(V::S(self.b.use_var(result)))
            }
            ExprKind::Conditional { cond, then, els } => {
                let c = self.scalar(cond)?;
                let t = self.b.create_block();
                let f = self.b.create_block();
                let done = self.b.create_block();
                self.b.ins().brif(c, t, &[], f, &[]);
                self.b.switch_to_block(t);
                let tv = self.expr(then)?;
                let vars = self.temp_vars(&tv)?;
                self.set_vars(&vars, &tv);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(f);
                let fv = self.expr(els)?;
                if std::mem::discriminant(&tv) != std::mem::discriminant(&fv) {
                    return unsupported("a conditional of mixed kinds");
                }
                self.set_vars(&vars, &fv);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                Ok(self.get_vars(&vars, &tv))
            }
            ExprKind::Convert(inner) => self.convert_expr(inner, &e.ty),
            // C++17: the right operand of `=` and `op=` is evaluated before
            // the left one.
            ExprKind::Assign { target, value } => {
                let v = self.expr(value)?;
                let p = self.place(target)?;
                self.write(&p, &v, &target.ty)?;
                Ok(v)
            }
            ExprKind::CompoundAssign { op, target, value } => {
                let rhs = self.scalar(value)?;
                let p = self.place(target)?;
                let tv = self.read(&p)?;
                let V::S(old) = tv else {
                    return unsupported("a compound assignment to a non-scalar");
                };
                let ts = self.scalar_ty(&target.ty)?;
                let vs = self.scalar_ty(&value.ty)?;
                let (op_ty, rhs_ty) = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    (ts, vs)
                } else {
                    (vs, vs)
                };
                let lhs = self.convert(old, ts, op_ty)?;
                let r = self.binary(*op, op_ty, lhs, rhs, rhs_ty)?;
                let back = self.convert(r, op_ty, ts)?;
                self.write(&p, &V::S(back), &target.ty)?;
                Ok(V::S(back))
            }
            ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                let p = self.place(target)?;
                let V::S(old) = self.read(&p)? else {
                    return unsupported("`++` on a non-scalar");
                };
                let s = self.scalar_ty(&target.ty)?;
                if s == Scalar::Bool {
                    return unsupported("`++` on a bool");
                }
                let one = match s {
                    Scalar::Float => self.b.ins().f32const(1.0),
                    Scalar::Double => self.b.ins().f64const(1.0),
                    other => self.b.ins().iconst(clif_type(other), 1),
                };
                let op = if *increment { BinOp::Add } else { BinOp::Sub };
                let (lo, hi) = int_limits(s);
                let safe = self
                    .range_of(target)
                    .is_some_and(|(l, h)| if *increment { h < hi } else { l > lo });
                let new = if safe && !s.is_floating() {
                    if *increment {
                        self.b.ins().iadd(old, one)
                    } else {
                        self.b.ins().isub(old, one)
                    }
                } else {
                    self.binary(op, s, old, one, s)?
                };
                self.write(&p, &V::S(new), &target.ty)?;
                Ok(V::S(if *prefix { new } else { old }))
            }
            ExprKind::Call { func, args } => self.call(*func, args),
            ExprKind::Intrinsic { op, args } => self.intrinsic(op, args, e),
            ExprKind::Comma { first, second } => {
                self.expr(first)?;
                self.expr(second)
            }
            ExprKind::Aggregate(_) => unsupported("a braced list as a value"),
            ExprKind::Launch { .. } => unsupported("a launch inside a kernel"),
            ExprKind::Str(_) => unsupported("a string in a kernel"),
        }
    }

    fn temp_vars(&mut self, v: &V) -> R<Vec<Variable>> {
        Ok(match v {
            V::S(x) => {
                let t = self.b.func.dfg.value_type(*x);
                vec![self.b.declare_var(t)]
            }
            V::Shape(cs) => cs.iter().map(|_| self.b.declare_var(types::I32)).collect(),
            V::Mem(_) => vec![self.b.declare_var(self.ptr)],
            _ => return unsupported("a conditional of this type"),
        })
    }

    fn set_vars(&mut self, vars: &[Variable], v: &V) {
        match v {
            V::S(x) | V::Mem(x) => self.b.def_var(vars[0], *x),
            V::Shape(cs) => {
                for (var, c) in vars.iter().zip(cs) {
                    self.b.def_var(*var, *c);
                }
            }
            _ => {}
        }
    }

    fn get_vars(&mut self, vars: &[Variable], like: &V) -> V {
        match like {
            V::S(_) => V::S(self.b.use_var(vars[0])),
            V::Mem(_) => V::Mem(self.b.use_var(vars[0])),
            _ => V::Shape(vars.iter().map(|v| self.b.use_var(*v)).collect()),
        }
    }

    fn assign_vars(&mut self, vars: &[Variable], v: &V, ty: &Type) -> R<()> {
        match (v, ty) {
            (V::S(_) | V::Shape(_), _) => {
                self.set_vars(vars, v);
                Ok(())
            }
            (V::Tiled, Type::Index(_)) => {
                let g = self.global_index();
                self.set_vars(vars, &V::Shape(g));
                Ok(())
            }
            _ => unsupported("returning a value of this type"),
        }
    }

    // ----- places -----

    fn place(&mut self, e: &Expr) -> R<Place> {
        match &e.kind {
            ExprKind::Local(l) => {
                let slot = self.scope().slots.get(l).cloned();
                match slot {
                    Some(Slot::Vars(vars)) => Ok(if vars.len() == 1 && e.ty.scalar().is_some() {
                        Place::Var(vars[0])
                    } else {
                        Place::Shape(vars)
                    }),
                    Some(Slot::Ref(p)) => Ok(p),
                    Some(s @ (Slot::Stack(_) | Slot::Frame(_) | Slot::TileStatic(_))) => {
                        let addr = self.slot_addr(&s)?;
                        Ok(Place::Mem(addr, e.ty.clone()))
                    }
                    Some(Slot::View(_) | Slot::Tiled) => {
                        unsupported("a view or tiled index as a place")
                    }
                    None => {
                        // Declared without `Let` reaching here (a frame local
                        // read before its region declared it, or a parameter).
                        if let Some(&off) = self.scope().frame.get(l) {
                            let addr = self.frame_addr(off);
                            return Ok(Place::Mem(addr, e.ty.clone()));
                        }
                        let n = match &e.ty {
                            Type::Scalar(_) => 1,
                            Type::Index(r) | Type::Extent(r) => u32::from(*r),
                            _ => return unsupported("a local used before its declaration"),
                        };
                        let vars = self.local_vars(*l, &e.ty, n);
                        for v in &vars {
                            let z = match &e.ty {
                                Type::Scalar(s) => self.zero(*s),
                                _ => self.b.ins().iconst(types::I32, 0),
                            };
                            self.b.def_var(*v, z);
                        }
                        Ok(if n == 1 && e.ty.scalar().is_some() {
                            Place::Var(vars[0])
                        } else {
                            Place::Shape(vars)
                        })
                    }
                }
            }
            ExprKind::Capture(slot) => match self.caps.get(*slot as usize) {
                Some(V::Mem(addr)) => Ok(Place::Mem(*addr, e.ty.clone())),
                _ => unsupported("a captured value as a place"),
            },
            // A conversion that changes nothing in memory (to `const`, a
            // struct to itself): the place it converts.
            ExprKind::Convert(inner)
                if inner.place
                    && inner.ty.scalar().is_none()
                    && size_align(self.prog, &inner.ty).is_some()
                    && size_align(self.prog, &inner.ty) == size_align(self.prog, &e.ty) =>
            {
                match self.place(inner)? {
                    Place::Mem(addr, _) => Ok(Place::Mem(addr, e.ty.clone())),
                    other => Ok(other),
                }
            }
            ExprKind::Field { base, field } => {
                let (addr, bty) = self.mem_of(base)?;
                let Some(off) = field_offset(self.prog, &bty, *field) else {
                    return unsupported("a field of this type");
                };
                let at = self.b.ins().iadd_imm_s(addr, i64::from(off));
                Ok(Place::Mem(at, e.ty.clone()))
            }
            ExprKind::Element { base, index } => {
                let (addr, bty) = self.mem_of(base)?;
                let Type::CArray(elem, n) = &bty else {
                    return unsupported("an element of a non-array");
                };
                let Some((size, _)) = size_align(self.prog, elem) else {
                    return unsupported("an array element of this type");
                };
                let is = self.scalar_ty(&index.ty)?;
                let known = self.range_of(index);
                let i = self.scalar(index)?;
                let i64v = self.widen(i, is);
                if !known.is_some_and(|(lo, hi)| lo >= 0 && hi < i64::from(*n)) {
                    self.check_below(i64v, i64::from(*n));
                }
                let off = self.b.ins().imul_imm_s(i64v, i64::from(size));
                let at = self.b.ins().iadd(addr, off);
                Ok(Place::Mem(at, (**elem).clone()))
            }
            ExprKind::Intrinsic {
                op: Intrinsic::ViewElement,
                args,
            } => {
                let (at, elem) = self.view_element(args)?;
                Ok(Place::Mem(at, elem))
            }
            ExprKind::Intrinsic {
                op: Intrinsic::VectorElement,
                args,
            } => {
                let (at, elem) = self.vector_element(args)?;
                Ok(Place::Mem(at, elem))
            }
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => {
                let p = self.place(&args[0])?;
                let Some(k) = const_int(&args[1]) else {
                    return unsupported("a computed component of an index as a place");
                };
                match p {
                    Place::Shape(vars) => match vars.get(k as usize) {
                        Some(v) if k >= 0 => Ok(Place::Var(*v)),
                        _ => unsupported("a component past the rank"),
                    },
                    Place::Mem(addr, Type::Index(r) | Type::Extent(r))
                        if k >= 0 && k < i64::from(r) =>
                    {
                        let at = self.b.ins().iadd_imm_s(addr, k * 4);
                        Ok(Place::Mem(at, Type::INT))
                    }
                    _ => unsupported("a component of this index as a place"),
                }
            }
            ExprKind::Assign { .. } | ExprKind::CompoundAssign { .. } => {
                // `(a = b)` used as a place: do it, then name the target.
                let (ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. }) =
                    &e.kind
                else {
                    return unsupported("a place");
                };
                self.expr(e)?;
                self.place(target)
            }
            ExprKind::IncDec {
                prefix: true,
                target,
                ..
            } => {
                self.expr(e)?;
                self.place(target)
            }
            other => unsupported(format!("{} as a place", kind_name(other))),
        }
    }

    /// The address and type of an aggregate expression.
    fn mem_of(&mut self, e: &Expr) -> R<(Value, Type)> {
        if e.place {
            match self.place(e)? {
                Place::Mem(addr, ty) => return Ok((addr, ty)),
                _ => return unsupported("an aggregate outside memory"),
            }
        }
        match self.expr(e)? {
            V::Mem(addr) => Ok((addr, e.ty.clone())),
            _ => unsupported("an aggregate value of this kind"),
        }
    }

    fn read(&mut self, p: &Place) -> R<V> {
        Ok(match p {
            Place::Var(v) => V::S(self.b.use_var(*v)),
            Place::Shape(vars) => V::Shape(vars.iter().map(|v| self.b.use_var(*v)).collect()),
            Place::Mem(addr, ty) => match ty {
                Type::Scalar(s) => V::S(self.b.ins().load(clif_type(*s), flags(), *addr, 0)),
                Type::Index(r) | Type::Extent(r) => V::Shape(
                    (0..*r)
                        .map(|k| {
                            self.b
                                .ins()
                                .load(types::I32, flags(), *addr, i32::from(k) * 4)
                        })
                        .collect(),
                ),
                Type::Struct(_) | Type::CArray(..) => V::Mem(*addr),
                _ => return unsupported("reading memory of this type"),
            },
        })
    }

    fn write(&mut self, p: &Place, v: &V, ty: &Type) -> R<()> {
        match (p, v) {
            (Place::Var(var), V::S(x)) => {
                self.b.def_var(*var, *x);
                Ok(())
            }
            (Place::Shape(vars), V::Shape(cs)) => {
                for (var, c) in vars.iter().zip(cs) {
                    self.b.def_var(*var, *c);
                }
                Ok(())
            }
            (Place::Shape(vars), V::Tiled) => {
                let g = self.global_index();
                for (var, c) in vars.iter().zip(g) {
                    self.b.def_var(*var, c);
                }
                Ok(())
            }
            (Place::Mem(addr, mty), _) => {
                let _ = ty;
                self.store_value(*addr, mty, v)
            }
            _ => unsupported("an assignment of this kind"),
        }
    }

    // ----- arithmetic -----

    fn widen(&mut self, v: Value, s: Scalar) -> Value {
        match s {
            Scalar::Long | Scalar::ULong => v,
            Scalar::UInt | Scalar::Bool => self.b.ins().uextend(types::I64, v),
            _ => self.b.ins().sextend(types::I64, v),
        }
    }

    /// Fails unless `0 <= i < n` (`i` a signed 64-bit value).
    fn check_below(&mut self, i: Value, n: i64) {
        let ok = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, i, n);
        self.guard(ok);
    }

    /// Continues when `ok` is true, else fails.
    fn guard(&mut self, ok: Value) {
        let go = self.b.create_block();
        let fail = self.fail;
        self.b.ins().brif(ok, go, &[], fail, &[]);
        self.b.switch_to_block(go);
    }

    fn fail_if(&mut self, bad: Value) {
        let go = self.b.create_block();
        let fail = self.fail;
        self.b.ins().brif(bad, fail, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    fn binary(&mut self, op: BinOp, s: Scalar, a: Value, b: Value, rs: Scalar) -> R<Value> {
        if s.is_floating() {
            return self.float_binary(op, s, a, b);
        }
        if s == Scalar::Char || s == Scalar::Bool {
            // Computed as `int`, then checked to fit.
            let wa = self.b.ins().sextend(types::I32, a);
            let wb = if rs == Scalar::Char || rs == Scalar::Bool {
                self.b.ins().sextend(types::I32, b)
            } else {
                b
            };
            let wrs = if rs == Scalar::Char || rs == Scalar::Bool {
                Scalar::Int
            } else {
                rs
            };
            let r = self.binary(op, Scalar::Int, wa, wb, wrs)?;
            if is_comparison(op) {
                return Ok(r);
            }
            let back = self.b.ins().ireduce(types::I8, r);
            let again = self.b.ins().sextend(types::I32, back);
            let bad = self.b.ins().icmp(IntCC::NotEqual, again, r);
            self.fail_if(bad);
            return Ok(back);
        }
        let signed = !s.is_unsigned();
        let ins = self.b.ins();
        Ok(match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul if signed => {
                let (r, of) = match op {
                    BinOp::Add => ins.sadd_overflow(a, b),
                    BinOp::Sub => ins.ssub_overflow(a, b),
                    _ => ins.smul_overflow(a, b),
                };
                self.fail_if(of);
                r
            }
            BinOp::Add => ins.iadd(a, b),
            BinOp::Sub => ins.isub(a, b),
            BinOp::Mul => ins.imul(a, b),
            BinOp::Div | BinOp::Rem => {
                let zero = ins.icmp_imm_s(IntCC::Equal, b, 0);
                self.fail_if(zero);
                if signed {
                    let t = self.b.func.dfg.value_type(a);
                    let min = match t {
                        types::I32 => i64::from(i32::MIN),
                        _ => i64::MIN,
                    };
                    let is_min = self.b.ins().icmp_imm_s(IntCC::Equal, a, min);
                    let is_m1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                    let both = self.b.ins().band(is_min, is_m1);
                    self.fail_if(both);
                    if op == BinOp::Div {
                        self.b.ins().sdiv(a, b)
                    } else {
                        self.b.ins().srem(a, b)
                    }
                } else if op == BinOp::Div {
                    self.b.ins().udiv(a, b)
                } else {
                    self.b.ins().urem(a, b)
                }
            }
            BinOp::Shl | BinOp::Shr => {
                let width = i64::from(s.size() * 8);
                let wb = self.widen(b, rs);
                let ok = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, wb, width);
                self.guard(ok);
                if op == BinOp::Shl {
                    self.b.ins().ishl(a, wb)
                } else if signed {
                    self.b.ins().sshr(a, wb)
                } else {
                    self.b.ins().ushr(a, wb)
                }
            }
            BinOp::BitAnd => ins.band(a, b),
            BinOp::BitOr => ins.bor(a, b),
            BinOp::BitXor => ins.bxor(a, b),
            cmp => {
                let cc = match (cmp, signed) {
                    (BinOp::Eq, _) => IntCC::Equal,
                    (BinOp::Ne, _) => IntCC::NotEqual,
                    (BinOp::Lt, true) => IntCC::SignedLessThan,
                    (BinOp::Lt, false) => IntCC::UnsignedLessThan,
                    (BinOp::Le, true) => IntCC::SignedLessThanOrEqual,
                    (BinOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
                    (BinOp::Gt, true) => IntCC::SignedGreaterThan,
                    (BinOp::Gt, false) => IntCC::UnsignedGreaterThan,
                    (_, true) => IntCC::SignedGreaterThanOrEqual,
                    (_, false) => IntCC::UnsignedGreaterThanOrEqual,
                };
                ins.icmp(cc, a, b)
            }
        })
    }

    fn float_binary(&mut self, op: BinOp, s: Scalar, a: Value, b: Value) -> R<Value> {
        let ins = self.b.ins();
        Ok(match op {
            BinOp::Add => ins.fadd(a, b),
            BinOp::Sub => ins.fsub(a, b),
            BinOp::Mul => ins.fmul(a, b),
            BinOp::Div => ins.fdiv(a, b),
            BinOp::Rem => {
                let zero = self.zero(s);
                return self.math(MathFn::Fmod, s, &[a, b, zero]);
            }
            BinOp::Eq => ins.fcmp(FloatCC::Equal, a, b),
            BinOp::Ne => ins.fcmp(FloatCC::NotEqual, a, b),
            BinOp::Lt => ins.fcmp(FloatCC::LessThan, a, b),
            BinOp::Le => ins.fcmp(FloatCC::LessThanOrEqual, a, b),
            BinOp::Gt => ins.fcmp(FloatCC::GreaterThan, a, b),
            BinOp::Ge => ins.fcmp(FloatCC::GreaterThanOrEqual, a, b),
            _ => return unsupported("a bitwise operator on floats"),
        })
    }

    fn unary(&mut self, op: UnOp, s: Scalar, a: Value) -> R<Value> {
        Ok(match op {
            UnOp::Not => self.b.ins().bxor_imm_s(a, 1),
            UnOp::BitNot => {
                if s == Scalar::Bool {
                    return unsupported("`~` on a bool");
                }
                self.b.ins().bnot(a)
            }
            UnOp::Neg => match s {
                Scalar::Float | Scalar::Double => self.b.ins().fneg(a),
                Scalar::UInt | Scalar::ULong => self.b.ins().ineg(a),
                _ => {
                    let zero = self.zero(s);
                    return self.binary(BinOp::Sub, s, zero, a, s);
                }
            },
        })
    }

    fn convert_expr(&mut self, inner: &Expr, to: &Type) -> R<V> {
        let v = self.expr(inner)?;
        match (&inner.ty, to, v) {
            (Type::Scalar(from), Type::Scalar(to), V::S(x)) => {
                Ok(V::S(self.convert(x, *from, *to)?))
            }
            (_, Type::ArrayView { .. }, v @ V::View(_)) => Ok(v),
            (_, Type::Index(_) | Type::Extent(_), v @ V::Shape(_)) => Ok(v),
            (Type::TiledIndex(_), Type::Index(_), V::Tiled) => Ok(V::Shape(self.global_index())),
            (_, _, v @ V::Shape(_)) if matches!(to, Type::Extent(_)) => Ok(v),
            _ => unsupported("a conversion of this kind"),
        }
    }

    fn convert(&mut self, x: Value, from: Scalar, to: Scalar) -> R<Value> {
        if from == to {
            return Ok(x);
        }
        let ins = self.b.ins();
        Ok(match (from.is_floating(), to) {
            (true, Scalar::Float) => ins.fdemote(types::F32, x),
            (true, Scalar::Double) => ins.fpromote(types::F64, x),
            (true, Scalar::Bool) => {
                let z = self.zero(from);
                self.b.ins().fcmp(FloatCC::NotEqual, x, z)
            }
            (true, _) => {
                // Truncate, check the range as the interpreter does, then
                // convert with the saturating instruction (never a trap).
                let xd = if from == Scalar::Float {
                    ins.fpromote(types::F64, x)
                } else {
                    x
                };
                let t = self.b.ins().trunc(xd);
                let (lo, hi) = match to {
                    Scalar::Char => (-128.0, 128.0),
                    Scalar::Int => (-2_147_483_648.0, 2_147_483_648.0),
                    Scalar::UInt => (0.0, 4_294_967_296.0),
                    Scalar::Long => (-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0),
                    _ => (0.0, 18_446_744_073_709_551_616.0),
                };
                let lo_v = self.b.ins().f64const(lo);
                let hi_v = self.b.ins().f64const(hi);
                let above = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, t, lo_v);
                let below = self.b.ins().fcmp(FloatCC::LessThan, t, hi_v);
                let ok = self.b.ins().band(above, below);
                self.guard(ok);
                match to {
                    Scalar::ULong => self.b.ins().fcvt_to_uint_sat(types::I64, t),
                    Scalar::UInt => {
                        let w = self.b.ins().fcvt_to_uint_sat(types::I64, t);
                        self.b.ins().ireduce(types::I32, w)
                    }
                    other => {
                        let w = self.b.ins().fcvt_to_sint_sat(types::I64, t);
                        if other == Scalar::Long {
                            w
                        } else {
                            self.b.ins().ireduce(clif_type(other), w)
                        }
                    }
                }
            }
            (false, Scalar::Bool) => ins.icmp_imm_s(IntCC::NotEqual, x, 0),
            (false, Scalar::Float | Scalar::Double) => {
                let t = clif_type(to);
                if from.is_unsigned() || from == Scalar::Bool {
                    let w = self.widen(x, from);
                    self.b.ins().fcvt_from_uint(t, w)
                } else {
                    let w = self.widen(x, from);
                    self.b.ins().fcvt_from_sint(t, w)
                }
            }
            (false, _) => {
                let (fb, tb) = (from.size(), to.size());
                if tb < fb {
                    ins.ireduce(clif_type(to), x)
                } else if tb > fb {
                    if from.is_unsigned() || from == Scalar::Bool {
                        ins.uextend(clif_type(to), x)
                    } else {
                        ins.sextend(clif_type(to), x)
                    }
                } else {
                    x
                }
            }
        })
    }

    fn math(&mut self, f: MathFn, s: Scalar, args: &[Value]) -> R<Value> {
        let code = tessera_runtime::math::ALL_MATH
            .iter()
            .position(|g| *g == f)
            .unwrap_or(0) as i64;
        let code = self.b.ins().iconst(types::I32, code);
        let zero = self.zero(s);
        let a = args.first().copied().unwrap_or(zero);
        let b = args.get(1).copied().unwrap_or(zero);
        let c = args.get(2).copied().unwrap_or(zero);
        let helper = if s == Scalar::Float {
            self.helpers.math_f32
        } else {
            self.helpers.math_f64
        };
        let call = self.b.ins().call(helper, &[code, a, b, c]);
        Ok(self.b.inst_results(call)[0])
    }

    // ----- library -----

    /// The address of a view element, bounds-checked.
    fn view_element(&mut self, args: &[Expr]) -> R<(Value, Type)> {
        let view = self.view(&args[0])?;
        let idx = self.shape(&args[1])?;
        if idx.len() != view.ext.len() {
            return unsupported("an index of another rank");
        }
        let mut at = view.offset;
        for (d, &component) in idx.iter().enumerate() {
            let i = self.b.ins().sextend(types::I64, component);
            let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, view.ext[d]);
            self.guard(ok);
            let step = self.b.ins().imul(i, view.strides[d]);
            at = self.b.ins().iadd(at, step);
        }
        let bytes = self.b.ins().imul_imm_s(at, i64::from(view.elem_size));
        Ok((self.b.ins().iadd(view.base, bytes), view.elem))
    }

    /// The address of a vector element, bounds-checked (an `unsigned long`
    /// index past `i64::MAX` is out of bounds too).
    fn vector_element(&mut self, args: &[Expr]) -> R<(Value, Type)> {
        let v = self.view(&args[0])?;
        let is = self.scalar_ty(&args[1].ty)?;
        let i = self.scalar(&args[1])?;
        let i = self.widen(i, is);
        let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, v.ext[0]);
        self.guard(ok);
        let bytes = self.b.ins().imul_imm_s(i, i64::from(v.elem_size));
        Ok((self.b.ins().iadd(v.base, bytes), v.elem))
    }

    fn intrinsic(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> R<V> {
        match op {
            Intrinsic::ViewElement => {
                let (at, elem) = self.view_element(args)?;
                self.read(&Place::Mem(at, elem))
            }
            Intrinsic::Math(f) => {
                let s = self.scalar_ty(&e.ty)?;
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.scalar(a)?);
                }
                if !s.is_floating() {
                    return self.int_math(*f, s, &xs).map(V::S);
                }
                match (f, xs.as_slice()) {
                    (MathFn::Sqrt, [a]) => Ok(V::S(self.b.ins().sqrt(*a))),
                    (MathFn::Fabs, [a]) => Ok(V::S(self.b.ins().fabs(*a))),
                    (MathFn::Floor, [a]) => Ok(V::S(self.b.ins().floor(*a))),
                    (MathFn::Ceil, [a]) => Ok(V::S(self.b.ins().ceil(*a))),
                    (MathFn::Trunc, [a]) => Ok(V::S(self.b.ins().trunc(*a))),
                    _ => self.math(*f, s, &xs).map(V::S),
                }
            }
            Intrinsic::MakeShape => {
                let mut cs = Vec::with_capacity(args.len());
                for a in args {
                    let s = self.scalar_ty(&a.ty)?;
                    let x = self.scalar(a)?;
                    cs.push(self.convert(x, s, Scalar::Int)?);
                }
                Ok(V::Shape(cs))
            }
            Intrinsic::ShapeComponent => {
                let cs = self.shape(&args[0])?;
                match const_int(&args[1]) {
                    Some(k) if k >= 0 && (k as usize) < cs.len() => Ok(V::S(cs[k as usize])),
                    Some(_) => {
                        let fail = self.fail;
                        self.b.ins().jump(fail, &[]);
                        self.dead_block();
                        Ok(V::S(self.b.ins().iconst(types::I32, 0)))
                    }
                    None => {
                        let is = self.scalar_ty(&args[1].ty)?;
                        let k = self.scalar(&args[1])?;
                        let k = self.widen(k, is);
                        self.check_below(k, cs.len() as i64);
                        let mut r = cs[0];
                        for (j, c) in cs.iter().enumerate().skip(1) {
                            let hit = self.b.ins().icmp_imm_s(IntCC::Equal, k, j as i64);
                            r = self.b.ins().select(hit, *c, r);
                        }
                        Ok(V::S(r))
                    }
                }
            }
            Intrinsic::ShapeArith(op) => {
                let a = self.shape(&args[0])?;
                let b = match self.expr(&args[1])? {
                    V::Shape(b) => b,
                    V::Tiled => self.global_index(),
                    V::S(x) => {
                        let s = self.scalar_ty(&args[1].ty)?;
                        let x = self.convert(x, s, Scalar::Int)?;
                        vec![x; a.len()]
                    }
                    _ => return unsupported("index arithmetic with this operand"),
                };
                if matches!(op, BinOp::Eq | BinOp::Ne) {
                    let mut all = self.b.ins().iconst(types::I8, 1);
                    for (x, y) in a.iter().zip(&b) {
                        let eq = self.b.ins().icmp(IntCC::Equal, *x, *y);
                        all = self.b.ins().band(all, eq);
                    }
                    if *op == BinOp::Ne {
                        all = self.b.ins().bxor_imm_s(all, 1);
                    }
                    return Ok(V::S(all));
                }
                let mut out = Vec::with_capacity(a.len());
                for (x, y) in a.iter().zip(&b) {
                    out.push(self.binary(*op, Scalar::Int, *x, *y, Scalar::Int)?);
                }
                Ok(V::Shape(out))
            }
            Intrinsic::ExtentSize => {
                let cs = self.shape(&args[0])?;
                let s = self.scalar_ty(&e.ty)?;
                let mut n = self.b.ins().iconst(types::I64, 1);
                for c in cs {
                    let w = self.b.ins().sextend(types::I64, c);
                    n = self.b.ins().imul(n, w);
                }
                Ok(V::S(match s {
                    Scalar::Long | Scalar::ULong => n,
                    other => self.b.ins().ireduce(clif_type(other), n),
                }))
            }
            Intrinsic::ExtentContains => {
                let ext = self.shape(&args[0])?;
                let idx = self.shape(&args[1])?;
                let mut all = self.b.ins().iconst(types::I8, 1);
                for (d, i) in ext.iter().zip(&idx) {
                    let nonneg = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, *i, 0);
                    let below = self.b.ins().icmp(IntCC::SignedLessThan, *i, *d);
                    all = self.b.ins().band(all, nonneg);
                    all = self.b.ins().band(all, below);
                }
                Ok(V::S(all))
            }
            Intrinsic::Tile => self.expr(&args[0]),
            Intrinsic::TiledIndexPart(part) => {
                let Some(shape) = self.layout.tile else {
                    return unsupported("a tiled index outside a tiled kernel");
                };
                if !matches!(self.expr(&args[0])?, V::Tiled) {
                    return unsupported("a tiled index other than the kernel's");
                }
                let dims: Vec<i64> = shape.dims().iter().map(|&d| i64::from(d)).collect();
                Ok(match part {
                    TiledIndexPart::Global => V::Shape(self.global_index()),
                    TiledIndexPart::Local => V::Shape(
                        self.item_coords
                            .clone()
                            .iter()
                            .map(|v| self.b.use_var(*v))
                            .collect(),
                    ),
                    TiledIndexPart::Tile => V::Shape(self.tile_coords.clone()),
                    TiledIndexPart::TileOrigin => V::Shape(
                        self.tile_coords
                            .clone()
                            .iter()
                            .zip(&dims)
                            .map(|(t, d)| self.b.ins().imul_imm_s(*t, *d))
                            .collect(),
                    ),
                    TiledIndexPart::TileExtent => V::Shape(
                        dims.iter()
                            .map(|d| self.b.ins().iconst(types::I32, *d))
                            .collect(),
                    ),
                    TiledIndexPart::Barrier => V::Unit,
                })
            }
            Intrinsic::ViewExtent => {
                let v = self.view(&args[0])?;
                Ok(V::Shape(
                    v.ext
                        .iter()
                        .map(|x| self.b.ins().ireduce(types::I32, *x))
                        .collect(),
                ))
            }
            Intrinsic::ViewProject => {
                let v = self.view(&args[0])?;
                if v.ext.len() < 2 {
                    return unsupported("a projection of a rank-1 view");
                }
                let is = self.scalar_ty(&args[1].ty)?;
                let i = self.scalar(&args[1])?;
                let i = self.widen(i, is);
                let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, v.ext[0]);
                self.guard(ok);
                let step = self.b.ins().imul(i, v.strides[0]);
                let offset = self.b.ins().iadd(v.offset, step);
                Ok(V::View(ViewV {
                    base: v.base,
                    offset,
                    ext: v.ext[1..].to_vec(),
                    strides: v.strides[1..].to_vec(),
                    elem: v.elem,
                    elem_size: v.elem_size,
                }))
            }
            Intrinsic::ViewSection => {
                let v = self.view(&args[0])?;
                let origin = self.shape(&args[1])?;
                let ext = self.shape(&args[2])?;
                if origin.len() != v.ext.len() || ext.len() != v.ext.len() {
                    return unsupported("a section of another rank");
                }
                // Inside the view: 0 <= origin, 0 < extent, origin + extent <=
                // the view's extent, in every dimension (64-bit, no overflow).
                let mut offset = v.offset;
                let mut new_ext = Vec::with_capacity(ext.len());
                for d in 0..ext.len() {
                    let o = self.b.ins().sextend(types::I64, origin[d]);
                    let n = self.b.ins().sextend(types::I64, ext[d]);
                    let o_ok = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, o, 0);
                    let n_ok = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, 0);
                    let end = self.b.ins().iadd(o, n);
                    let end_ok = self
                        .b
                        .ins()
                        .icmp(IntCC::SignedLessThanOrEqual, end, v.ext[d]);
                    let ok = self.b.ins().band(o_ok, n_ok);
                    let ok = self.b.ins().band(ok, end_ok);
                    self.guard(ok);
                    let step = self.b.ins().imul(o, v.strides[d]);
                    offset = self.b.ins().iadd(offset, step);
                    new_ext.push(n);
                }
                Ok(V::View(ViewV {
                    base: v.base,
                    offset,
                    ext: new_ext,
                    strides: v.strides.clone(),
                    elem: v.elem,
                    elem_size: v.elem_size,
                }))
            }
            Intrinsic::MemoryFence(_) => Ok(V::Unit),
            Intrinsic::VectorElement => {
                let (at, elem) = self.vector_element(args)?;
                self.read(&Place::Mem(at, elem))
            }
            Intrinsic::VectorSize => {
                let v = self.view(&args[0])?;
                let s = self.scalar_ty(&e.ty)?;
                Ok(V::S(match s {
                    Scalar::Long | Scalar::ULong => v.ext[0],
                    other => self.b.ins().ireduce(clif_type(other), v.ext[0]),
                }))
            }
            Intrinsic::Atomic(a) => self.atomic(*a, args),
            _ => unsupported(format!("the library operation {op:?} in a kernel")),
        }
    }

    fn int_math(&mut self, f: MathFn, s: Scalar, xs: &[Value]) -> R<Value> {
        let signed = !s.is_unsigned();
        match (f, xs) {
            (MathFn::Abs, [a]) => {
                if !signed {
                    return Ok(*a);
                }
                let zero = self.zero(s);
                let neg = self.binary(BinOp::Sub, s, zero, *a, s)?;
                let is_neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, *a, 0);
                Ok(self.b.ins().select(is_neg, neg, *a))
            }
            (MathFn::Min, [a, b]) => Ok(if signed {
                self.b.ins().smin(*a, *b)
            } else {
                self.b.ins().umin(*a, *b)
            }),
            (MathFn::Max, [a, b]) => Ok(if signed {
                self.b.ins().smax(*a, *b)
            } else {
                self.b.ins().umax(*a, *b)
            }),
            _ => unsupported("this integer math function"),
        }
    }

    fn atomic(&mut self, op: AtomicOp, args: &[Expr]) -> R<V> {
        let s = self.scalar_ty(&args[0].ty)?;
        let p = self.place(&args[0])?;
        let Place::Mem(addr, _) = p else {
            return unsupported("an atomic on a variable");
        };
        let t = clif_type(s);
        if op == AtomicOp::CompareExchange {
            let ep = self.place(&args[1])?;
            let V::S(expected) = self.read(&ep)? else {
                return unsupported("an atomic of this kind");
            };
            let desired = self.scalar(&args[2])?;
            let old = self.b.ins().atomic_cas(flags(), addr, expected, desired);
            let ok = self.b.ins().icmp(IntCC::Equal, old, expected);
            let write = self.b.create_block();
            let done = self.b.create_block();
            self.b.ins().brif(ok, done, &[], write, &[]);
            self.b.switch_to_block(write);
            self.write(&ep, &V::S(old), &args[1].ty)?;
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
            return Ok(V::S(ok));
        }
        let operand = match args.get(1) {
            Some(a) => self.scalar(a)?,
            None => self.b.ins().iconst(t, 1),
        };
        let signed = !s.is_unsigned();
        let rmw = match op {
            AtomicOp::Add | AtomicOp::Inc => AtomicRmwOp::Add,
            AtomicOp::Sub | AtomicOp::Dec => AtomicRmwOp::Sub,
            AtomicOp::And => AtomicRmwOp::And,
            AtomicOp::Or => AtomicRmwOp::Or,
            AtomicOp::Xor => AtomicRmwOp::Xor,
            AtomicOp::Max if signed => AtomicRmwOp::Smax,
            AtomicOp::Max => AtomicRmwOp::Umax,
            AtomicOp::Min if signed => AtomicRmwOp::Smin,
            AtomicOp::Min => AtomicRmwOp::Umin,
            AtomicOp::Exchange | AtomicOp::CompareExchange => AtomicRmwOp::Xchg,
        };
        Ok(V::S(self.b.ins().atomic_rmw(
            t,
            flags(),
            rmw,
            addr,
            operand,
        )))
    }

    // ----- calls -----

    fn call(&mut self, func: FuncId, args: &[Expr]) -> R<V> {
        if self
            .barrier_fns
            .get(func.0 as usize)
            .copied()
            .unwrap_or(true)
        {
            return unsupported("a call of a function with a barrier");
        }
        let callee = &self.prog.functions[func.0 as usize];
        if callee.body.is_none() {
            return unsupported("a call of an undefined function");
        }
        if self.scopes.len() > 64 {
            return unsupported("calls nested too deeply");
        }
        let mut slots = HashMap::new();
        for (k, a) in args.iter().enumerate() {
            let local = &callee.locals[k];
            let slot = if local.by_ref {
                self.bind_ref(a, &local.ty)?
            } else {
                match (&local.ty, self.expr(a)?) {
                    (Type::Scalar(s), V::S(x)) => {
                        let var = self.b.declare_var(clif_type(*s));
                        self.b.def_var(var, x);
                        Slot::Vars(vec![var])
                    }
                    (Type::Index(_) | Type::Extent(_), V::Shape(cs)) => {
                        let vars: Vec<Variable> =
                            cs.iter().map(|_| self.b.declare_var(types::I32)).collect();
                        for (v, c) in vars.iter().zip(cs) {
                            self.b.def_var(*v, c);
                        }
                        Slot::Vars(vars)
                    }
                    (Type::Index(_), V::Tiled) => {
                        let g = self.global_index();
                        let vars: Vec<Variable> =
                            g.iter().map(|_| self.b.declare_var(types::I32)).collect();
                        for (v, c) in vars.iter().zip(g) {
                            self.b.def_var(*v, c);
                        }
                        Slot::Vars(vars)
                    }
                    (Type::ArrayView { .. } | Type::Array(..), V::View(v)) => Slot::View(v),
                    (Type::TiledIndex(_), V::Tiled) => Slot::Tiled,
                    (ty @ (Type::Struct(_) | Type::CArray(..)), V::Mem(src)) => {
                        let Some((size, align)) = size_align(self.prog, ty) else {
                            return unsupported("an argument of this type");
                        };
                        let ss = self.stack_slot(size, align)?;
                        let dst = self.b.ins().stack_addr(self.ptr, ss, 0);
                        self.copy_bytes(dst, src, size);
                        Slot::Stack(ss)
                    }
                    _ => return unsupported("an argument of this kind"),
                }
            };
            slots.insert(LocalId(k as u32), slot);
        }
        let done = self.b.create_block();
        let ret_ty = callee.ret.clone();
        if callee.ret_by_ref {
            return unsupported("a function returning a reference");
        }
        let mut ret_mem = None;
        let ret_vars: Vec<Variable> = match &ret_ty {
            Type::Void => Vec::new(),
            ty @ (Type::Struct(_) | Type::CArray(..)) => {
                let Some((size, align)) = size_align(self.prog, ty) else {
                    return unsupported("a function returning this type");
                };
                let ss = self.stack_slot(size, align)?;
                let at = self.b.ins().stack_addr(self.ptr, ss, 0);
                self.zero_mem(at, ty)?;
                ret_mem = Some(ss);
                Vec::new()
            }
            Type::Scalar(s) => vec![self.b.declare_var(clif_type(*s))],
            Type::Index(r) | Type::Extent(r) => {
                (0..*r).map(|_| self.b.declare_var(types::I32)).collect()
            }
            _ => return unsupported("a function returning this type"),
        };
        // A value for the result on every path (a missing `return` is UB in
        // C++; the checker rejects most).
        for v in &ret_vars {
            let z = match &ret_ty {
                Type::Scalar(s) => self.zero(*s),
                _ => self.b.ins().iconst(types::I32, 0),
            };
            self.b.def_var(*v, z);
        }
        self.next_scope += 1;
        self.scopes.push(Scope {
            id: self.next_scope,
            func,
            slots,
            ret: Some((done, ret_vars.clone(), ret_ty.clone())),
            ret_mem,
            frame: HashMap::new(),
        });
        let saved_loops = std::mem::take(&mut self.loops);
        let body = callee
            .body
            .as_ref()
            .map(|b| b.stmts.as_slice())
            .unwrap_or(&[]);
        let r = self.stmts(body);
        self.loops = saved_loops;
        self.scopes.pop();
        r?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        if let Some(ss) = ret_mem {
            return Ok(V::Mem(self.b.ins().stack_addr(self.ptr, ss, 0)));
        }
        Ok(match &ret_ty {
            Type::Void => V::Unit,
            Type::Scalar(_) => V::S(self.b.use_var(ret_vars[0])),
            _ => V::Shape(ret_vars.iter().map(|v| self.b.use_var(*v)).collect()),
        })
    }
}

/// True when `e` has the same value in every work-item of a tile, given the
/// uniform locals: constants, captured scalars and shapes, extents of
/// captured views, the tile's own coordinates, and arithmetic on those.
/// Memory reads and calls are never uniform here.
fn is_uniform(e: &Expr, uniform: &HashSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Local(l) => uniform.contains(l),
        ExprKind::Capture(_) => !matches!(e.ty, Type::Array(..) | Type::ArrayView { .. }),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            is_uniform(lhs, uniform) && is_uniform(rhs, uniform)
        }
        ExprKind::Unary { operand, .. } => is_uniform(operand, uniform),
        ExprKind::Convert(inner) => is_uniform(inner, uniform),
        ExprKind::Conditional { cond, then, els } => {
            is_uniform(cond, uniform) && is_uniform(then, uniform) && is_uniform(els, uniform)
        }
        ExprKind::Intrinsic { op, args } => match op {
            Intrinsic::TiledIndexPart(
                TiledIndexPart::Tile | TiledIndexPart::TileOrigin | TiledIndexPart::TileExtent,
            ) => true,
            Intrinsic::ViewExtent => matches!(args[0].kind, ExprKind::Capture(_)),
            Intrinsic::ShapeComponent
            | Intrinsic::MakeShape
            | Intrinsic::ShapeArith(_)
            | Intrinsic::ExtentSize => args.iter().all(|a| is_uniform(a, uniform)),
            _ => false,
        },
        _ => false,
    }
}

/// True when `e` has the same value in work-items that differ only in
/// local dimension `lane_dim` (see `Lower::lane_invariant_locals`).
fn lane_invariant(e: &Expr, known: &HashSet<LocalId>, lane_dim: usize) -> bool {
    let go = |x: &Expr| lane_invariant(x, known, lane_dim);
    match &e.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::ShapeComponent,
            args,
        } if matches!(
            args[0].kind,
            ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(TiledIndexPart::Local | TiledIndexPart::Global),
                ..
            }
        ) =>
        {
            const_int(&args[1]).is_some_and(|k| k >= 0 && k as usize != lane_dim)
        }
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            go(lhs) && go(rhs)
        }
        ExprKind::Unary { operand, .. } => go(operand),
        ExprKind::Convert(inner) => go(inner),
        ExprKind::Conditional { cond, then, els } => go(cond) && go(then) && go(els),
        _ => is_uniform(e, known),
    }
}

/// Narrows `candidates` to the counters that hold the same value in every
/// work-item: declared with a uniform value, compared with a uniform bound
/// and stepped (`++`, `op=`) by a uniform amount, where uniform may rest on
/// the other candidates and on `known` (iterated to a fixed point).
fn uniform_fixpoint(
    mut candidates: HashSet<LocalId>,
    lets: &HashMap<LocalId, Option<Expr>>,
    loops: &[(LocalId, Expr, Expr)],
    known: &HashSet<LocalId>,
) -> HashSet<LocalId> {
    loop {
        let before = candidates.len();
        let mut uniform: HashSet<LocalId> = candidates.clone();
        uniform.extend(known.iter().copied());
        candidates.retain(|l| {
            let init_ok = matches!(lets.get(l), Some(Some(e)) if is_uniform(e, &uniform));
            let loop_ok = loops
                .iter()
                .filter(|(c, _, _)| c == l)
                .all(|(_, bound, step)| {
                    let step_ok = match &step.kind {
                        ExprKind::IncDec { target, .. } => {
                            matches!(&target.kind, ExprKind::Local(t) if t == l)
                        }
                        ExprKind::CompoundAssign { target, value, .. } => {
                            matches!(&target.kind, ExprKind::Local(t) if t == l)
                                && is_uniform(value, &uniform)
                        }
                        _ => false,
                    };
                    step_ok && is_uniform(bound, &uniform)
                });
            init_ok && loop_ok
        });
        if candidates.len() == before {
            return candidates;
        }
    }
}

/// Counters of the loops with barriers in a kernel body that every
/// work-item of a tile steps alike: declared at the level of the barriers
/// with a uniform value, compared with a uniform bound, stepped by a uniform
/// amount in the loop's step and written nowhere else.
fn uniform_counters(prog: &Program, body: &IrBlock, barrier_fns: &[bool]) -> HashSet<LocalId> {
    let mut lets: HashMap<LocalId, Option<Expr>> = HashMap::new();
    let mut loops: Vec<(LocalId, Expr, Expr)> = Vec::new();
    fn scan(
        b: &IrBlock,
        barrier_fns: &[bool],
        lets: &mut HashMap<LocalId, Option<Expr>>,
        loops: &mut Vec<(LocalId, Expr, Expr)>,
    ) {
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Let { local, init } => {
                    let e = match init {
                        Some(Init::Expr(e)) => Some(e.clone()),
                        _ => None,
                    };
                    lets.insert(*local, e);
                }
                StmtKind::Block(inner) => scan(inner, barrier_fns, lets, loops),
                StmtKind::If { then, els, .. } if stmt_has_barrier(s, barrier_fns) => {
                    scan(then, barrier_fns, lets, loops);
                    if let Some(e) = els {
                        scan(e, barrier_fns, lets, loops);
                    }
                }
                StmtKind::Loop {
                    cond: Some(cond),
                    step: Some(step),
                    body,
                    ..
                } if stmt_has_barrier(s, barrier_fns) => {
                    if let ExprKind::Binary { lhs, rhs, .. } = &cond.kind {
                        let counter = match (&lhs.kind, &rhs.kind) {
                            (ExprKind::Local(l), _) => Some((*l, (**rhs).clone())),
                            (_, ExprKind::Local(l)) => Some((*l, (**lhs).clone())),
                            _ => None,
                        };
                        if let Some((l, bound)) = counter {
                            loops.push((l, bound, step.clone()));
                        }
                    }
                    scan(body, barrier_fns, lets, loops);
                }
                _ => {}
            }
        }
    }
    scan(body, barrier_fns, &mut lets, &mut loops);
    // Each candidate must be written exactly once after its declaration:
    // by its loop's step.
    let mut writes: HashMap<LocalId, usize> = HashMap::new();
    walk_block(body, &mut |_| {}, &mut |e| {
        let target = match &e.kind {
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => Some(&**target),
            _ => None,
        };
        if let Some(t) = target
            && let ExprKind::Local(l) = &t.kind
        {
            *writes.entry(*l).or_default() += 1;
        }
    });
    // Writes through references and atomics are not assignments: a local
    // reached so is never a uniform counter.
    let mut aliased = HashSet::new();
    let mut probe = HashSet::new();
    mutated_locals(prog, body, &mut probe);
    for l in probe {
        if !writes.contains_key(&l) {
            aliased.insert(l);
        }
    }
    aliased.extend(referenced_locals(prog, body));
    let set: HashSet<LocalId> = loops
        .iter()
        .map(|(l, _, _)| *l)
        .filter(|l| writes.get(l) == Some(&1) && lets.contains_key(l) && !aliased.contains(l))
        .collect();
    uniform_fixpoint(set, &lets, &loops, &HashSet::new())
}

/// Locals (vectors, views) whose elements a statement may write: targets
/// of assignments, `++`/`--` and atomics through `v[i]`, `av[idx]`, `av(i)`.
fn element_writes(prog: &Program, stmt: &Stmt) -> HashSet<LocalId> {
    fn root(e: &Expr) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(l) => Some(*l),
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
            ExprKind::Intrinsic {
                op:
                    Intrinsic::VectorElement
                    | Intrinsic::ViewElement
                    | Intrinsic::ViewProject
                    | Intrinsic::ViewSection,
                args,
            } => args.first().and_then(root),
            ExprKind::Convert(inner) => root(inner),
            _ => None,
        }
    }
    let mut found = HashSet::new();
    // A reference bound to an element may write it later.
    found.extend(referenced_locals(
        prog,
        &IrBlock {
            stmts: vec![stmt.clone()],
        },
    ));
    let found = std::cell::RefCell::new(found);
    walk_stmt(stmt, &mut |_| {}, &mut |e| {
        let targets: Vec<&Expr> = match &e.kind {
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => vec![target],
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                args,
            } => args.iter().take(2).collect(),
            _ => Vec::new(),
        };
        for t in targets {
            if let Some(l) = root(t) {
                found.borrow_mut().insert(l);
            }
        }
    });
    found.into_inner()
}

/// Locals bound to a reference, passed by reference or used by an atomic.
fn referenced_locals(prog: &Program, body: &IrBlock) -> HashSet<LocalId> {
    fn root(e: &Expr) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(l) => Some(*l),
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => args.first().and_then(root),
            _ => None,
        }
    }
    let found = std::cell::RefCell::new(HashSet::new());
    walk_block(
        body,
        &mut |s| {
            if let StmtKind::Let {
                init: Some(Init::Ref(target)),
                ..
            } = &s.kind
                && let Some(l) = root(target)
            {
                found.borrow_mut().insert(l);
            }
        },
        &mut |e| match &e.kind {
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                args,
            } => {
                for a in args.iter().take(2) {
                    if let Some(l) = root(a) {
                        found.borrow_mut().insert(l);
                    }
                }
            }
            ExprKind::Call { func, args } => {
                let callee = &prog.functions[func.0 as usize];
                for (k, a) in args.iter().enumerate() {
                    if callee.locals.get(k).is_some_and(|l| l.by_ref)
                        && let Some(l) = root(a)
                    {
                        found.borrow_mut().insert(l);
                    }
                }
            }
            _ => {}
        },
    );
    found.into_inner()
}

/// Units of work one iteration of a loop with body `body` stands for: one,
/// plus every iteration of the innermost short loops inside it, which do
/// not poll (see `Lower::innermost_short`).
fn loop_charge(lw: &Lower<'_, '_, '_>, body: &IrBlock) -> i64 {
    fn block(lw: &Lower<'_, '_, '_>, b: &IrBlock) -> i64 {
        let mut total: i64 = 0;
        let mut prev: Option<(LocalId, Option<Expr>)> = None;
        for s in &b.stmts {
            let add = match &s.kind {
                StmtKind::Loop { .. } => lw.innermost_short(prev.clone(), s).unwrap_or(0),
                StmtKind::Block(inner) => block(lw, inner),
                StmtKind::If { then, els, .. } => {
                    block(lw, then).max(els.as_ref().map_or(0, |e| block(lw, e)))
                }
                StmtKind::Switch { arms, .. } => arms.iter().map(|a| block(lw, &a.body)).sum(),
                _ => 0,
            };
            total = total.saturating_add(add);
            prev = match &s.kind {
                StmtKind::Let { local, init } => {
                    let e = match init {
                        Some(Init::Expr(e)) => Some(e.clone()),
                        _ => None,
                    };
                    Some((*local, e))
                }
                _ => None,
            };
        }
        total
    }
    block(lw, body).saturating_add(1).min(FUEL)
}

/// What an expression is, for the reason a kernel is declined.
fn kind_name(k: &ExprKind) -> String {
    match k {
        ExprKind::Intrinsic { op, .. } => format!("the library operation {op:?}"),
        ExprKind::Conditional { .. } => "a conditional".into(),
        ExprKind::Comma { .. } => "a comma expression".into(),
        ExprKind::Call { .. } => "a call".into(),
        ExprKind::Convert(_) => "a conversion".into(),
        ExprKind::Global(_) => "a global".into(),
        ExprKind::IncDec { .. } => "a postfix `++`/`--`".into(),
        other => {
            let text = format!("{other:?}");
            let name: String = text.chars().take_while(|c| c.is_alphanumeric()).collect();
            format!("an expression ({name})")
        }
    }
}

/// The smallest and largest values of an integer type.
fn int_limits(s: Scalar) -> (i64, i64) {
    match s {
        Scalar::Bool => (0, 1),
        Scalar::Char => (i64::from(i8::MIN), i64::from(i8::MAX)),
        Scalar::Int => (i64::from(i32::MIN), i64::from(i32::MAX)),
        Scalar::UInt => (0, i64::from(u32::MAX)),
        Scalar::Long => (i64::MIN, i64::MAX),
        // `unsigned long` values past `i64::MAX` are not tracked.
        _ => (0, i64::MAX),
    }
}

/// Locals a block writes: targets of assignments, `++`/`--` and atomics,
/// and anything bound to a reference (which may write it later).
fn mutated_locals(prog: &Program, body: &IrBlock, out: &mut HashSet<LocalId>) {
    fn root(e: &Expr) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(l) => Some(*l),
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => args.first().and_then(root),
            _ => None,
        }
    }
    let found = std::cell::RefCell::new(std::mem::take(out));
    walk_block(
        body,
        &mut |s| {
            if let StmtKind::Let {
                init: Some(Init::Ref(target)),
                ..
            } = &s.kind
                && let Some(l) = root(target)
            {
                found.borrow_mut().insert(l);
            }
        },
        &mut |e| {
            let targets: Vec<&Expr> = match &e.kind {
                ExprKind::Assign { target, .. }
                | ExprKind::CompoundAssign { target, .. }
                | ExprKind::IncDec { target, .. } => vec![target],
                ExprKind::Intrinsic {
                    op: Intrinsic::Atomic(_),
                    args,
                } => args.iter().take(2).collect(),
                ExprKind::Call { func, args } => {
                    let callee = &prog.functions[func.0 as usize];
                    args.iter()
                        .enumerate()
                        .filter(|(k, _)| callee.locals.get(*k).is_some_and(|l| l.by_ref))
                        .map(|(_, a)| a)
                        .collect()
                }
                _ => Vec::new(),
            };
            for t in targets {
                if let Some(l) = root(t) {
                    found.borrow_mut().insert(l);
                }
            }
        },
    );
    *out = found.into_inner();
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

fn const_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Const(Const::Int(n)) => Some(*n),
        ExprKind::Convert(inner) => const_int(inner),
        _ => None,
    }
}

/// The signature of every compiled kernel: `(env, group, scratch, frames) -> status`.
pub(crate) fn kernel_signature(sig: &mut cranelift_codegen::ir::Signature) {
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I32));
}

// ----- barrier analysis -----

/// Functions that reach a barrier, directly or through calls.
pub(crate) fn barrier_functions(prog: &Program) -> Vec<bool> {
    let n = prog.functions.len();
    let mut has = vec![false; n];
    let mut calls: Vec<Vec<FuncId>> = vec![Vec::new(); n];
    for (i, f) in prog.functions.iter().enumerate() {
        if let Some(b) = &f.body {
            walk_block(
                b,
                &mut |s| {
                    if matches!(s.kind, StmtKind::Barrier(_)) {
                        has[i] = true;
                    }
                },
                &mut |e| {
                    if let ExprKind::Call { func, .. } = &e.kind {
                        calls[i].push(*func);
                    }
                },
            );
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            if !has[i]
                && calls[i]
                    .iter()
                    .any(|c| has.get(c.0 as usize).copied().unwrap_or(false))
            {
                has[i] = true;
                changed = true;
            }
        }
    }
    has
}

fn walk_block(b: &IrBlock, fs: &mut dyn FnMut(&Stmt), fe: &mut dyn FnMut(&Expr)) {
    for s in &b.stmts {
        walk_stmt(s, fs, fe);
    }
}

fn walk_stmt(s: &Stmt, fs: &mut dyn FnMut(&Stmt), fe: &mut dyn FnMut(&Expr)) {
    fs(s);
    match &s.kind {
        StmtKind::Expr(e) => walk_expr(e, fe),
        StmtKind::Let { init: Some(i), .. } => walk_init(i, fe),
        StmtKind::Block(b) => walk_block(b, fs, fe),
        StmtKind::If { cond, then, els } => {
            walk_expr(cond, fe);
            walk_block(then, fs, fe);
            if let Some(e) = els {
                walk_block(e, fs, fe);
            }
        }
        StmtKind::Loop {
            cond, body, step, ..
        } => {
            if let Some(c) = cond {
                walk_expr(c, fe);
            }
            walk_block(body, fs, fe);
            if let Some(st) = step {
                walk_expr(st, fe);
            }
        }
        StmtKind::Switch { value, arms } => {
            walk_expr(value, fe);
            for a in arms {
                walk_block(&a.body, fs, fe);
            }
        }
        StmtKind::Return(Some(e)) => walk_expr(e, fe),
        _ => {}
    }
}

fn walk_init(i: &Init, fe: &mut dyn FnMut(&Expr)) {
    match i {
        Init::Expr(e) | Init::Ref(e) => walk_expr(e, fe),
        Init::List(items) => {
            for it in items {
                walk_init(it, fe);
            }
        }
        Init::Zero => {}
    }
}

fn walk_expr(e: &Expr, fe: &mut dyn FnMut(&Expr)) {
    fe(e);
    match &e.kind {
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            walk_expr(lhs, fe);
            walk_expr(rhs, fe);
        }
        ExprKind::Unary { operand, .. } => walk_expr(operand, fe),
        ExprKind::Conditional { cond, then, els } => {
            walk_expr(cond, fe);
            walk_expr(then, fe);
            walk_expr(els, fe);
        }
        ExprKind::Convert(x) => walk_expr(x, fe),
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
            walk_expr(target, fe);
            walk_expr(value, fe);
        }
        ExprKind::IncDec { target, .. } => walk_expr(target, fe),
        ExprKind::Field { base, .. } => walk_expr(base, fe),
        ExprKind::Element { base, index } => {
            walk_expr(base, fe);
            walk_expr(index, fe);
        }
        ExprKind::Call { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Aggregate(args) => {
            for a in args {
                walk_expr(a, fe);
            }
        }
        ExprKind::Launch {
            domain, captures, ..
        } => {
            walk_expr(domain, fe);
            for c in captures {
                walk_expr(c, fe);
            }
        }
        ExprKind::Comma { first, second } => {
            walk_expr(first, fe);
            walk_expr(second, fe);
        }
        _ => {}
    }
}

fn stmt_has_barrier(s: &Stmt, barrier_fns: &[bool]) -> bool {
    let found = std::cell::Cell::new(false);
    walk_stmt(
        s,
        &mut |s| {
            if matches!(s.kind, StmtKind::Barrier(_)) {
                found.set(true);
            }
        },
        &mut |e| {
            if let ExprKind::Call { func, .. } = &e.kind
                && barrier_fns.get(func.0 as usize).copied().unwrap_or(false)
            {
                found.set(true);
            }
        },
    );
    found.get()
}

fn block_has_barrier(b: &IrBlock, barrier_fns: &[bool]) -> bool {
    b.stmts.iter().any(|s| stmt_has_barrier(s, barrier_fns))
}

/// True when the block holds a `return`.
fn block_has_return(b: &IrBlock) -> bool {
    let found = std::cell::Cell::new(false);
    walk_block(
        b,
        &mut |s| {
            if matches!(s.kind, StmtKind::Return(_)) {
                found.set(true);
            }
        },
        &mut |_| {},
    );
    found.get()
}

/// True when the statement holds a `break` or `continue` that leaves it for
/// an enclosing loop (one inside a nested loop, or a `break` inside a nested
/// `switch`, stays inside).
fn escapes_loop(s: &Stmt) -> bool {
    fn stmt(s: &Stmt, in_loop: bool, in_switch: bool) -> bool {
        match &s.kind {
            StmtKind::Break => !in_loop && !in_switch,
            StmtKind::Continue => !in_loop,
            StmtKind::Block(b) => b.stmts.iter().any(|s| stmt(s, in_loop, in_switch)),
            StmtKind::If { then, els, .. } => {
                then.stmts.iter().any(|s| stmt(s, in_loop, in_switch))
                    || els
                        .as_ref()
                        .is_some_and(|e| e.stmts.iter().any(|s| stmt(s, in_loop, in_switch)))
            }
            StmtKind::Loop { .. } => false,
            StmtKind::Switch { arms, .. } => arms
                .iter()
                .any(|a| a.body.stmts.iter().any(|s| stmt(s, in_loop, true))),
            _ => false,
        }
    }
    stmt(s, false, false)
}

/// Locals declared by `Let`s that are not inside a region: in blocks that
/// hold barriers, at any depth of such blocks, and directly in them.
fn collect_uniform_lets(b: &IrBlock, barrier_fns: &[bool], out: &mut Vec<LocalId>) {
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Let { local, .. } => out.push(*local),
            StmtKind::Block(inner) => collect_uniform_lets(inner, barrier_fns, out),
            StmtKind::If { then, els, .. } if stmt_has_barrier(s, barrier_fns) => {
                collect_uniform_lets(then, barrier_fns, out);
                if let Some(e) = els {
                    collect_uniform_lets(e, barrier_fns, out);
                }
            }
            StmtKind::Loop { body, .. } if stmt_has_barrier(s, barrier_fns) => {
                collect_uniform_lets(body, barrier_fns, out);
            }
            _ => {}
        }
    }
}

/// Every local a statement names (reads, writes or declares).
fn stmt_locals(s: &Stmt, out: &mut BTreeSet<LocalId>) {
    // Only the kernel's own locals have frame slots; a callee's locals are
    // named inside its inlined body, which this walk does not enter.
    let found = std::cell::RefCell::new(std::mem::take(out));
    walk_stmt(
        s,
        &mut |s| {
            if let StmtKind::Let { local, .. } = &s.kind {
                found.borrow_mut().insert(*local);
            }
        },
        &mut |e| {
            if let ExprKind::Local(l) = &e.kind {
                found.borrow_mut().insert(*l);
            }
        },
    );
    *out = found.into_inner();
}

fn expr_locals(e: &Expr, out: &mut BTreeSet<LocalId>) {
    walk_expr(e, &mut |e| {
        if let ExprKind::Local(l) = &e.kind {
            out.insert(*l);
        }
    });
}
