//! The emitters: lower one kernel of the typed program to a Cranelift
//! function that runs one tile (or one chunk of a non-tiled domain), reading
//! the facts of [`crate::plan`]. One module per concern: [`kernel`] (entry
//! points and layouts), [`regions`] (regions and tile loops), [`lanes`],
//! [`vector`] (the lanes' private scalars in 128-bit vectors), [`stmt`],
//! [`expr`], [`places`], [`arith`] (checked arithmetic), [`intrinsics`],
//! [`calls`], [`facts`] (the plan's facts in the current inlined call).
//!
//! # The barrier split
//! A tiled kernel's body is cut at its barriers (decided in
//! [`crate::plan::regions`]). Statements between two
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
//! (one array per slot, an element per work-item: see [`FrameSlot`]). A
//! region loads the ones it uses into
//! Cranelift variables when a work-item starts and stores them back when it
//! ends, so inside a region they sit in registers. Copies of the
//! work-item's coordinates (and of captured scalars) never written again
//! have no slot: each region computes them again. Locals declared inside a
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

mod arith;
mod calls;
mod expr;
mod facts;
mod growth;
mod intrinsics;
mod jam;
mod join;
mod kernel;
mod lanes;
mod objects;
mod outline;
mod places;
mod pointers;
mod precheck;
pub(crate) mod random;
mod regions;
mod shared;
mod stmt;
mod unions;
mod vector;

pub(crate) use join::{JOINED_TILES, join_candidate};
pub(crate) use kernel::kernel_signature;
pub(crate) use outline::outlined_signature;

use crate::decline::{Decline, R, decline, kind_name};
use crate::layout::clif_type;
use crate::plan::facts::Facts;
use crate::plan::lanes::LaneShape;
use crate::plan::locals::{
    always_returns, block_has_return, element_writes, expr_locals, mutated_locals, stmt_has_return,
};
use crate::plan::loops::FUEL;
use crate::plan::ranges::{const_int, is_comparison};
use crate::plan::regions::{
    RegionIo, Segment, last_region_start, pinned_item, region_io, row_limit, split,
};
use crate::plan::uniform::is_uniform;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, AtomicRmwOp, Block, FuncRef, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
    Value, types,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use std::collections::{BTreeSet, HashMap, HashSet};
use tessera_ir::layout::{field_offset, size_align};
use tessera_ir::visit::walk_stmt;
use tessera_ir::{
    AtomicOp, BinOp, Block as IrBlock, Const, Expr, ExprKind, FuncId, Function, FunctionKind,
    GlobalId, Init, Intrinsic, LocalId, MathFn, Program, Scalar, Space, Stmt, StmtKind, TileShape,
    TiledIndexPart, Type, UnOp,
};
use unions::Access;

/// The function ran to its end.
pub(crate) const STATUS_OK: i64 = 0;
/// A run-time check failed.
pub(crate) const STATUS_FAILED: i64 = 1;
/// The deadline passed or another worker failed.
pub(crate) const STATUS_STOPPED: i64 = 2;

/// Work-items per chunk of a non-tiled launch.
pub(crate) const CHUNK: i64 = 4096;

/// Expression nodes a kernel may lower to, inlined calls included.
pub(crate) const INLINE_BUDGET: usize = 20_000;

/// Cranelift instructions a function may have: compile time and memory
/// grow with it, and a kernel past it runs in the interpreter.
const MAX_INSTS: usize = 60_000;

/// Cranelift's SSA builder keeps, for each variable, a table over the
/// blocks up to the last one the variable is defined or looked up in, all
/// zeroed: a kernel that declares `v` variables while it has `b` blocks
/// costs about `v * b` entries of 4 bytes. Each inlined call adds
/// variables and blocks, so a kernel of thousands of calls grows those
/// tables with the square of its size (hundreds of megabytes before the
/// other budgets stop it). Past this many entries (16 MB), counted as the
/// blocks there are when each variable is declared, a kernel is declined;
/// the largest kernel of the tests and samples counts about 100,000.
const MAX_VARIABLE_BLOCKS: usize = 1 << 22;

/// Bytes of stack slots a function may use on the pool's workers, which
/// have 8 MiB stacks. A kernel that needs more (large private arrays) runs
/// its launches on threads made with room for them (see
/// [`KernelLayout::stack_bytes`]); a host statement, which runs on the
/// interpreter's thread, is declined.
pub(crate) const STACK_BUDGET: u32 = 1 << 20;

/// Bytes of stack slots a kernel may use at all: past them it is declined.
/// The launch's threads are made with this much room and more, within the
/// memory limit, so it bounds what one launch asks the system for.
const MAX_KERNEL_STACK: u32 = 1 << 28;

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
    /// A struct holding views (a function object, a lambda's closure),
    /// which has no plain layout: its fields' layouts, in order.
    Fields(Vec<CaptureLayout>),
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
    /// Bytes of stack slots the code takes; past [`STACK_BUDGET`], its
    /// launches run on threads made for them, each with this much room.
    pub(crate) stack_bytes: u32,
    /// Bytes of frame the code uses; more than `frame_bytes` means the
    /// kernel must be lowered again with this stride.
    pub(crate) frame_needed: u32,
    /// The tile shape, for tiled kernels.
    pub(crate) tile: Option<TileShape>,
    /// The domain's rank.
    pub(crate) rank: u32,
    /// The largest launch extent the code was compiled for, per dimension:
    /// coordinates lie below it, which bounds the values computed from
    /// them and drops overflow checks. A launch past it needs the kernel
    /// compiled again ([`KernelLayout::covers`]).
    pub(crate) extent_bound: Vec<i64>,
    /// By capture slot: the code assumes the capture is a view whose
    /// extent covers the launch's in every dimension and whose last
    /// dimension is contiguous, so an element at the work-item's own
    /// coordinates needs no bounds check ([`view_covers`]).
    pub(crate) covering: Vec<bool>,
    /// Whether regions may run in lanes. A kernel whose lowering with
    /// lanes is declined (four lanes take four copies of a statement that
    /// runs lane by lane, and may pass the size budget) is lowered once
    /// more without.
    pub(crate) lanes: bool,
    /// Whether a region run in lanes may jam several lane groups into one
    /// pass (see [`jam`]). A kernel whose jammed lowering is declined is
    /// lowered once more without jamming, before giving up on lanes.
    pub(crate) jam: bool,
    /// Whether this is the joined function of a tiled kernel, which runs
    /// several tiles per call (see [`join`]).
    pub(crate) join: bool,
    /// Whether the launch takes its tiles in strips of columns rather
    /// than row after row (see `exec::TileOrder`): a tiled kernel with a
    /// loop that waits at barriers, which walks bands of memory.
    pub(crate) strips: bool,
    /// Whether calls of functions with barriers that bind their parameters
    /// alike share one copy of the body (see [`shared`]) instead of each
    /// inlining it: a kernel whose inlined calls passed a budget is
    /// lowered once more so.
    pub(crate) shared_calls: bool,
}

impl KernelLayout {
    /// The layout of a function that is not a launch (a host statement, a
    /// function called out of line): its arguments as `captures` in
    /// `words` words, no tile, no lanes, no memory of its own.
    pub(crate) fn without_launch(captures: Vec<CaptureLayout>, words: u32) -> KernelLayout {
        KernelLayout {
            captures,
            extent_word: words,
            words,
            scratch_bytes: 0,
            frame_bytes: 0,
            frame_needed: 0,
            stack_bytes: 0,
            tile: None,
            rank: 0,
            extent_bound: Vec::new(),
            covering: Vec::new(),
            lanes: false,
            jam: false,
            join: false,
            strips: false,
            shared_calls: false,
        }
    }

    /// Whether code compiled for this layout may run this launch: its
    /// extent within the bound, and every capture assumed covering so.
    pub(crate) fn covers(&self, launch: &tessera_runtime::launch::Launch) -> bool {
        let extent = &launch.extent;
        extent.len() == self.extent_bound.len()
            && extent.iter().zip(&self.extent_bound).all(|(e, b)| e <= b)
            && self
                .covering
                .iter()
                .zip(&launch.args)
                .all(|(assumed, arg)| !assumed || view_covers(arg, extent))
    }
}

/// Whether `arg` is a view whose extent is at least `extent` in every
/// dimension (of the same rank) and whose last dimension is contiguous.
pub(crate) fn view_covers(arg: &tessera_runtime::launch::Arg, extent: &[i64]) -> bool {
    use tessera_runtime::launch::Arg;
    let (Arg::View {
        extent: ext,
        strides,
        ..
    }
    | Arg::PunView {
        extent: ext,
        strides,
        ..
    }) = arg
    else {
        return false;
    };
    ext.len() == extent.len()
        && ext.iter().zip(extent).all(|(v, l)| v >= l)
        && strides.last() == Some(&1)
}

/// What the runner must provide for a compiled host statement.
#[derive(Clone, Debug)]
pub(crate) struct HostLayout {
    /// The locals declared outside the statement that it names, in order.
    pub(crate) locals: Vec<LocalId>,
    /// For each, whether the statement may write its elements.
    pub(crate) written: Vec<bool>,
    /// For each, whether the statement appends to it (a vector).
    pub(crate) appended: Vec<bool>,
    /// Where each sits in the argument words: the locals, then the exit
    /// locals, then the exit taken.
    pub(crate) captures: Vec<CaptureLayout>,
    /// Total argument words.
    pub(crate) words: u32,
    /// Where the statement may leave the rest to the interpreter.
    pub(crate) exits: crate::plan::host::HostExits,
    /// The word of the exit taken (0: none).
    pub(crate) exit_word: u32,
    /// Every function the statement calls, directly or not.
    pub(crate) calls: Vec<FuncId>,
    /// The globals it names (also in the functions it calls), after the
    /// locals in the argument words.
    pub(crate) globals: Vec<GlobalId>,
    /// For each, whether the statement may write its elements.
    pub(crate) global_written: Vec<bool>,
    /// What its code prints other than numbers, by the number the code
    /// passes (see `exec::print_item`).
    pub(crate) print_items: Vec<tessera_runtime::launch::PrintItem>,
}

/// While a host statement is emitted: where its exits go.
struct HostCtx {
    /// The exits and their locals.
    exits: crate::plan::host::HostExits,
    /// The word of each exit local, with its type.
    exit_words: Vec<(u32, Scalar)>,
    /// The word of the exit taken.
    exit_word: u32,
    /// The block that hands the scalars back and returns.
    end: Block,
    /// Where the globals the statement names live.
    globals: HashMap<GlobalId, Slot>,
    /// What the code prints other than numbers, numbered as it goes.
    print_items: Vec<tessera_runtime::launch::PrintItem>,
}

/// Helper functions the generated code calls.
pub(crate) struct Helpers {
    pub(crate) math_f32: FuncRef,
    pub(crate) math_f64: FuncRef,
    pub(crate) poll: FuncRef,
    /// The printing helpers of host code (`exec::print_scalar`,
    /// `exec::print_item`); kernels have none.
    pub(crate) print: Option<(FuncRef, FuncRef)>,
    /// The `printf` helper of host code (`exec::print_printf`).
    pub(crate) printf: Option<FuncRef>,
    /// The `rand()` helper of host code (`exec::rand_next`).
    pub(crate) rand: Option<FuncRef>,
    /// The append helper of host code (`exec::push_element`).
    pub(crate) push: Option<FuncRef>,
    /// The `<random>` helper of host code (`exec::random_number`).
    pub(crate) random: Option<FuncRef>,
    /// Functions called out of line (see [`crate::plan::outline`]), by
    /// the program's id: none unless the kernel needs them.
    pub(crate) outlined: HashMap<FuncId, FuncRef>,
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
    /// A captured struct holding views, field by field (read-only: the
    /// kernel reaches it only through a `const` object).
    Obj(Vec<V>),
}

/// A lowered place.
#[derive(Clone, Debug)]
enum Place {
    /// A scalar variable.
    Var(Variable),
    /// Index or extent variables.
    Shape(Vec<Variable>),
    /// The component of index or extent variables at a computed position
    /// (an `i64` checked to lie below the rank).
    Component(Vec<Variable>, Value),
    /// Memory of the given type.
    Mem(Value, Type),
    /// A captured struct holding views (see [`V::Obj`]).
    Obj(Vec<V>),
    /// A struct holding views made in the kernel, field by field (see
    /// [`objects`]).
    Fields(Vec<objects::FieldVars>),
    /// A view field of such a struct.
    ViewVars(objects::ViewVars),
    /// One of several scalar variables or memory of a scalar type, as a
    /// run-time choice picks: `c ? v : m[i]`, or a function returning
    /// references to different places. The address is the memory's when
    /// it is picked, else that of a spare zeroed slot, so the memory and
    /// every variable may be read and written whichever is picked (see
    /// `Emitter::conditional_place` and `Emitter::return_ref`).
    VarsOrMem(VarsOrMem),
}

/// The parts of a [`Place::VarsOrMem`].
#[derive(Clone, Debug)]
struct VarsOrMem {
    /// Which is picked (`i64`): the position of a variable in `vars`, or
    /// -1 for the memory.
    which: Value,
    vars: Vec<Variable>,
    addr: Value,
    ty: Scalar,
}

/// What the `return`s of an inlined function returning a reference gave.
#[derive(Clone, Debug)]
struct RetRef {
    /// The address the taken `return` gave: its place's when in memory,
    /// 1 for variables; 0 while none has run.
    addr: Variable,
    /// The position in `vars` of the variable the taken `return` gave, or
    /// -1 (`i64`).
    which: Variable,
    /// Every place a `return` gave, in the order they were lowered.
    places: Vec<Place>,
    /// The distinct scalar variables among them.
    vars: Vec<Variable>,
}

/// Where a local lives.
#[derive(Clone, Debug)]
enum Slot {
    /// Scalar (one) or index/extent (`rank`) variables.
    Vars(Vec<Variable>),
    /// An aggregate in a stack slot.
    Stack(cranelift_codegen::ir::StackSlot),
    /// An aggregate in the work-item's frame slot.
    Frame(FrameSlot),
    /// In `tile_static` scratch memory, at this offset.
    TileStatic(u32),
    /// A reference.
    Ref(Place),
    /// A reference bound to a union member (`int& r = u.i;`): each use
    /// checks the member or makes it active, as `u.i` would there.
    MemberRef(std::rc::Rc<unions::MemberRef>),
    /// A view (read-only binding).
    View(ViewV),
    /// The kernel's `tiled_index` parameter.
    Tiled,
    /// A pointer that may move: its element offset in an allocation known
    /// where the code is emitted (see [`pointers`]).
    Ptr(std::rc::Rc<pointers::PtrAlloc>, Variable),
    /// A pointer local that may point into more than one object in a run
    /// (see [`pointers::ChosenPtr`]).
    ChosenPtr(pointers::ChosenPtr),
    /// A vector from outside a host statement that appends to it: its
    /// address and length change at each append (see
    /// [`crate::plan::growth`]).
    Growing(Growing),
}

/// A vector a host statement appends to: variables holding its first
/// element's address, its length, and how many elements its memory has
/// room for (appends up to there are written in place; the one past it
/// goes to the runtime, which makes more room and may move the elements).
#[derive(Clone, Debug)]
struct Growing {
    base: Variable,
    len: Variable,
    room: Variable,
    elem: Type,
    elem_size: u32,
    /// Its position among the statement's arguments.
    arg: u32,
    /// Its view's first argument word.
    word: u32,
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
    /// A function returning a reference: which places its `return`s gave
    /// so far, and which one the path taken gave.
    ret_ref: Option<RetRef>,
    /// Frame slots of this scope's locals that live across barriers (the
    /// kernel's, or those of an inlined function that holds a barrier).
    frame: HashMap<LocalId, FrameSlot>,
    /// A function returning a struct holding views: the object its
    /// `return`s give their values to.
    ret_obj: Option<Vec<objects::FieldVars>>,
    /// An inlined function that holds barriers (split into regions like
    /// the kernel): its `return`s, in its last region only, end the
    /// work-item's part of that region.
    waits: bool,
    /// Such a function with a value: the frame slot each work-item's
    /// `return` stores it in (see [`Emitter::barrier_call`]).
    ret_frame: Option<FrameSlot>,
}

impl Scope {
    /// The scope of `func`'s body with these slots: no `return` target,
    /// frame slots or results yet (the caller sets those it has).
    fn new(id: usize, func: FuncId, slots: HashMap<LocalId, Slot>) -> Scope {
        Scope {
            id,
            func,
            slots,
            ret: None,
            ret_mem: None,
            ret_ref: None,
            frame: HashMap::new(),
            ret_obj: None,
            waits: false,
            ret_frame: None,
        }
    }
}

struct LoopTargets {
    brk: Block,
    cont: Option<Block>,
    region: u32,
}

/// The nested loops over a tile's local dimensions of a work-item loop.
struct TileLoops {
    dims: Vec<i64>,
    coords: Vec<Variable>,
    heads: Vec<Block>,
    exits: Vec<Block>,
    /// Where the first dimension's loop stops, when below its extent.
    limit: Option<Value>,
}

/// One lane of an interleaved region: its variables, coordinates, frame.
struct LaneCtx {
    slots: HashMap<LocalId, Slot>,
    coords: Vec<Variable>,
    frame_item: Variable,
    /// A tile of a joined function: its memory, frames and coordinates
    /// (see [`join`]); `None` for a lane of one tile.
    tile: Option<join::TileCtx>,
}

/// A local's place in the frame block. The block holds one array per slot,
/// with an element per work-item of the tile: the copy of work-item `i`
/// is at `frames + off * tile_threads + i * stride`. Neighbouring
/// work-items' copies of a scalar are adjacent, so lanes load and store
/// them as one vector. Slots do not overlap: `[off, off + stride)` are
/// disjoint ranges of the per-work-item frame size, so the arrays
/// `[off * T, (off + stride) * T)` are disjoint ranges of the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct FrameSlot {
    /// Offset of the slot in a work-item's share of the frame.
    off: u32,
    /// Bytes between neighbouring work-items' copies: the size of the
    /// local the slot was given out for (a reference shares it whole).
    stride: u32,
}

/// The work-item loop being emitted.
struct RegionCtx {
    id: u32,
    /// Where a kernel-level `return` ends the work-item.
    item_end: Block,
}

/// The emitter context: the state of emitting one kernel (or host loop),
/// the Cranelift builder, variables, blocks, scopes and the current region,
/// beside the plan's facts it reads.
pub(crate) struct Emitter<'a, 'b, 'f> {
    /// The program the kernel is part of.
    prog: &'a Program,
    /// The Cranelift function being built.
    b: &'b mut FunctionBuilder<'f>,
    /// Where the kernel's arguments sit, its tile and frame sizes.
    layout: KernelLayout,
    /// The kernel's scope, then one per inlined call being emitted.
    scopes: Vec<Scope>,
    /// Where `break` and `continue` go in the loops being emitted.
    loops: Vec<LoopTargets>,
    /// The work-item loop being emitted, if any.
    region: Option<RegionCtx>,
    /// The number of the next region.
    next_region: u32,
    /// The pointer type.
    ptr: types::Type,
    /// Emitting the kernel's last region, after its last barrier.
    last_region: bool,
    /// What is known about the kernel's locals: ranges, uniform counters,
    /// the declaration before the current statement.
    facts: Facts<'a>,
    /// What the function was given, and the blocks every check and poll
    /// branches to.
    entry: Entry,
    /// Memory given out so far, and what is left of the budgets.
    alloc: Alloc,
    /// The current work-item: its coordinates, number and frame.
    wi: WorkItem,
    /// Emitting a host statement: where its exits go.
    host: Option<HostCtx>,
    /// Emitting a region in lanes: its vector locals.
    vector: Option<vector::VectorLanes>,
    /// Emitting a region whose lane groups are jammed: the other groups'
    /// vector states (see [`jam`]).
    jam: Option<jam::Jam>,
    /// Where the active-member tags of unions are.
    unions: unions::Unions,
    /// Emitting the last region of a joined function: the loop counters
    /// its tiles share (see [`join`]).
    joining: Option<HashSet<LocalId>>,
    /// The allocations of pointer locals living across barriers, by scope
    /// and local, for the regions after their declaration.
    /// (With a variable holding the allocation's address: see
    /// `Emitter::pointer_to_frame`.)
    frame_pointers: HashMap<(usize, LocalId), (std::rc::Rc<pointers::PtrAlloc>, Variable)>,
    /// A view reads memory as a type holding `bool`s (`reinterpret_as`):
    /// every `bool` read from memory, alone or in a copy, checks that its
    /// byte is 0 or 1, as the interpreter does for such a read.
    check_bools: bool,
    /// The `tile_static` arrays the region being emitted reads and never
    /// writes (see [`Emitter::lane_loop`]): their loads there may move
    /// within the region, and lane groups share them.
    unwritten_scratch: HashSet<LocalId>,
    /// The view index components of the region being emitted whose bounds
    /// were checked at its entry (see [`precheck`]).
    prechecked: Vec<precheck::Prechecked>,
    /// By function, its scalar locals whose address is taken (see
    /// `Emitter::address_taken`).
    addr_taken: HashMap<FuncId, HashSet<LocalId>>,
    /// By function, its pointer locals given another pointer's value after
    /// their declaration (see `Emitter::let_pointer`).
    reassigned: HashMap<FuncId, HashSet<LocalId>>,
    /// The objects pointers were made into, whose positions (plus one;
    /// null is 0) identify them at run time (see `Emitter::alloc_id`).
    alloc_ids: Vec<pointers::AllocKey>,
    /// A tiled kernel that may `return` before its last barrier: which of
    /// the tile's work-items have returned (see [`Returned`]).
    returned: Option<Returned>,
    /// While the statement that takes a call of a function with barriers'
    /// value runs for each work-item: that call (its function and span)
    /// and the frame slot its value was left in (see
    /// [`Emitter::barrier_call`]).
    barrier_result: Option<(FuncId, tessera_diagnostics::Span, FrameSlot)>,
    /// Lowered with shared calls of functions with barriers (see
    /// [`shared`]): the bodies emitted so far. `None`: every call inlined.
    shared: Option<shared::SharedBodies>,
}

/// The work-items of a tile that have returned, for a kernel that may
/// `return` before its last barrier. A work-item that returns sets its
/// byte of a frame slot and counts itself; every later work-item loop of
/// the tile skips it. As in the interpreter, a barrier reached while any
/// work-item has returned is a divergence (the check fails and the
/// interpreter runs the launch again to report it), and a tile whose
/// work-items have all returned is done: after a region that may return,
/// the count is compared with the tile's size.
#[derive(Clone, Copy)]
struct Returned {
    /// One byte per work-item: 1 once it has returned.
    slot: FrameSlot,
    /// How many of the tile's work-items have returned.
    count: Variable,
    /// Returns `STATUS_OK`: the tile is done.
    done: Block,
}

/// What the function was given, and the blocks every check and poll
/// branches to.
struct Entry {
    /// The callbacks: math functions and the poll.
    helpers: Helpers,
    /// The launch's argument words.
    env: Value,
    /// The group to run: a tile's number, or a chunk's first work-item.
    group: Value,
    /// The tile's `tile_static` memory.
    scratch: Value,
    /// The worker's frame block.
    frames: Value,
    /// Returns `STATUS_FAILED`: every failed check branches here.
    fail: Block,
    /// Returns `STATUS_STOPPED`: a poll that says stop branches here.
    stopped: Block,
    /// Units of work left before the next poll.
    fuel: Variable,
    /// The captured values, loaded from the argument words.
    caps: Vec<V>,
}

/// Memory given out so far, and what is left of the budgets.
struct Alloc {
    /// Bytes of frame given out so far (the kernel's locals, then those of
    /// inlined functions with barriers).
    frame_cursor: u32,
    /// Bytes of `tile_static` memory given out so far.
    scratch_cursor: u32,
    /// `tile_static` variables of inlined functions: one per function and
    /// tile, as C++ AMP has them, whatever the number of calls.
    callee_tile_static: HashMap<(FuncId, LocalId), u32>,
    /// Expression nodes left to lower, inlined calls included.
    budget: usize,
    /// The last scope id given out.
    next_scope: usize,
    /// Bytes of stack slots so far.
    stack_bytes: u32,
    /// The blocks there were at each variable's declaration, summed (see
    /// [`MAX_VARIABLE_BLOCKS`]).
    variable_blocks: usize,
}

/// The current work-item: its coordinates, number and frame.
struct WorkItem {
    /// Tile coordinates (tiled) as `i32`.
    tile_coords: Vec<Value>,
    /// Local coordinates of the current work-item (tiled) or its global index (flat).
    item_coords: Vec<Variable>,
    /// Linear work-item number within the tile (kept only while a loop
    /// that needs it is emitted: see `need_item`).
    item: Variable,
    /// The work-item loop being emitted must count `item`.
    need_item: bool,
    /// The current work-item's number in the tile, for its frame slots
    /// (see [`FrameSlot`]): counted by every work-item loop.
    frame_item: Variable,
}

/// Functions whose name starts so are declined, in builds with the
/// `declines-on-request` feature (the agreement tests'): a case can then
/// test the fallback to the interpreter (a kernel declined, a function
/// called out of line that does not compile) without depending on what
/// the JIT cannot compile yet.
pub(crate) const DECLINED_ON_REQUEST: &str = "jit_declines_";

/// Declines `func`'s body when it asks to be (see [`DECLINED_ON_REQUEST`]).
fn declined_on_request(prog: &Program, func: FuncId) -> R<()> {
    if cfg!(feature = "declines-on-request")
        && prog.function(func).name.starts_with(DECLINED_ON_REQUEST)
    {
        return decline(Decline::OnRequest);
    }
    Ok(())
}

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}
