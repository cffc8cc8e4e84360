//! Facts about the locals of the kernel being lowered: value ranges,
//! uniform counters, the declaration just before the current statement, and
//! which locals each function writes. The emitters fill the ranges as they
//! meet declarations (a range holds within one inlined call, keyed by its
//! scope id) and read them to drop checks.

use super::locals::mutated_locals;
use super::loops::CountedLoop;
use super::ranges::const_int;
use super::uniform::LaneAxis;
use std::collections::{HashMap, HashSet};
use tessera_ir::facts::Barriers;
use tessera_ir::{
    BinOp, Const, Expr, ExprKind, FuncId, Init, Intrinsic, LocalId, Program, Scalar, Stmt,
    StmtKind, TileShape, TiledIndexPart,
};

/// A counter's key and the range it had before its loop.
pub(crate) type SavedRange = ((usize, LocalId), Option<(i64, i64)>);

/// What is known about a kernel's locals while it is lowered.
pub(crate) struct Facts<'p> {
    pub(crate) prog: &'p Program,
    /// The kernel's tile shape, when tiled: local coordinates lie in it.
    pub(crate) tile: Option<TileShape>,
    /// Which functions and statements reach a barrier that runs.
    pub(crate) barriers: Barriers,
    /// Counters of loops with barriers that hold the same value in every
    /// work-item of a tile: one variable per tile, not a frame slot.
    pub(crate) uniform: HashSet<LocalId>,
    /// The local the statement before the current one declared, if it was
    /// a declaration (`for (int k = 0; ...)` is a declaration then a loop).
    pub(super) prev_let: Option<LocalId>,
    /// That declaration's local and initial value.
    pub(crate) prev_init: Option<(LocalId, Option<Expr>)>,
    /// Known value ranges (inclusive) of locals, by scope id: locals
    /// assigned once, and loop counters inside their counted loop.
    pub(super) ranges: HashMap<(usize, LocalId), (i64, i64)>,
    /// The range of each local's initial value, for counted loops.
    pub(super) init_ranges: HashMap<(usize, LocalId), (i64, i64)>,
    /// Locals each function writes after their declaration.
    mutated: HashMap<FuncId, HashSet<LocalId>>,
    /// The kernel's locals that live across barriers without a frame slot:
    /// never written after their declaration and computed from the
    /// work-item's coordinates, constants and captured scalars, they are
    /// computed again where a region needs them (in declaration order, each
    /// with its initialiser) instead of stored and loaded.
    pub(crate) remat: Vec<(LocalId, Expr)>,
    /// The kernel's references that live across barriers without a frame
    /// slot, with the place each is bound to: a place every region can
    /// name again (a reference is never bound anew), bound again in each
    /// region that names the reference (see `plan_frame`).
    pub(crate) ref_remat: Vec<(LocalId, Expr)>,
    /// The kernel's references that live across barriers bound to memory
    /// whose place cannot be named again (an element at an index changed
    /// later): each keeps the address taken where it is bound in a frame
    /// slot, and the regions that name it read it there. Such a region
    /// runs one work-item at a time.
    pub(crate) ref_addressed: HashSet<LocalId>,
    /// The largest launch extent the code is compiled for, per dimension
    /// (`i32::MAX` each when unknown): coordinates lie below it.
    extent_bound: Vec<i64>,
    /// The kernel's `index<N>` parameter, when the kernel never writes it:
    /// its components are then the work-item's coordinates.
    index_param: Option<LocalId>,
    /// Whether regions may run in lanes (see `KernelLayout::lanes`).
    lanes: bool,
    /// The kernel's own scalar locals that hold one of the work-item's
    /// global coordinates for good (`int row = t_idx.global[0];`, never
    /// written again), with the dimension.
    global_coordinates: HashMap<LocalId, usize>,
    /// Whether the kernel's tiled index is never written (its global part
    /// is then the work-item's coordinates).
    tiled_kept: bool,
}

impl<'p> Facts<'p> {
    /// No facts yet about a kernel (or host loop) of `prog` with this tile
    /// shape.
    pub(crate) fn new(prog: &'p Program, tile: Option<TileShape>) -> Self {
        Facts {
            prog,
            tile,
            barriers: Barriers::of(prog),
            uniform: HashSet::new(),
            prev_let: None,
            prev_init: None,
            ranges: HashMap::new(),
            init_ranges: HashMap::new(),
            mutated: HashMap::new(),
            remat: Vec::new(),
            ref_remat: Vec::new(),
            ref_addressed: HashSet::new(),
            extent_bound: Vec::new(),
            index_param: None,
            lanes: true,
            global_coordinates: HashMap::new(),
            tiled_kept: false,
        }
    }

    /// The same, with every region run one work-item at a time.
    pub(crate) fn without_lanes(mut self) -> Self {
        self.lanes = false;
        self
    }

    /// Whether regions may run in lanes.
    pub(crate) fn lanes_allowed(&self) -> bool {
        self.lanes
    }

    /// The same, for code of kernel `func` compiled for launches whose
    /// extent is at most `bound` in each dimension.
    pub(crate) fn with_extent_bound(mut self, func: FuncId, bound: &[i64]) -> Self {
        self.extent_bound = bound.to_vec();
        let kernel = self.prog.function(func);
        if matches!(kernel.kind, tessera_ir::FunctionKind::Kernel { .. })
            && kernel.params == 1
            && matches!(
                kernel.locals.first().map(|l| &l.ty),
                Some(tessera_ir::Type::Index(_))
            )
            && !self.is_mutated(func, LocalId(0))
        {
            self.index_param = Some(LocalId(0));
        }
        if matches!(kernel.kind, tessera_ir::FunctionKind::Kernel { .. })
            && let Some(body) = &kernel.body
        {
            self.tiled_kept = matches!(
                kernel.locals.first().map(|l| &l.ty),
                Some(tessera_ir::Type::TiledIndex(_))
            ) && !self.is_mutated(func, LocalId(0));
            for (l, init) in super::lanes::let_initialisers(body) {
                let plain_scalar = kernel.locals.get(l.0 as usize).is_some_and(|x| {
                    matches!(x.ty, tessera_ir::Type::Scalar(_))
                        && !x.by_ref
                        && x.space == tessera_ir::Space::Private
                });
                if plain_scalar
                    && !self.is_mutated(func, l)
                    && let Some(d) = self.global_coordinate(&init)
                {
                    self.global_coordinates.insert(l, d);
                }
            }
        }
        self
    }

    /// The dimension of the work-item's global coordinate that `e`, an
    /// expression of the kernel's own body, is: a constant component of
    /// the tiled index's global part or of the never-written index
    /// parameter, or a local holding one (see `global_coordinates`).
    pub(crate) fn global_coordinate(&self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Local(l) => self.global_coordinates.get(l).copied(),
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => {
                let whole = match &args.first()?.kind {
                    ExprKind::Intrinsic {
                        op: Intrinsic::TiledIndexPart(TiledIndexPart::Global),
                        args: parts,
                    } => {
                        self.tiled_kept
                            && parts
                                .first()
                                .is_some_and(|t| matches!(t.kind, ExprKind::Local(LocalId(0))))
                    }
                    ExprKind::Local(l) => self.index_param == Some(*l),
                    _ => false,
                };
                let k = const_int(args.get(1)?)?;
                (whole && k >= 0).then_some(k as usize)
            }
            _ => None,
        }
    }

    /// Whether `l` is the kernel's `index<N>` parameter, never written (its
    /// components are the work-item's coordinates).
    pub(crate) fn is_index_param(&self, l: LocalId) -> bool {
        self.index_param == Some(l)
    }

    /// The coordinate lanes run along in a kernel of rank `rank`: its last
    /// dimension, of the tiled index or of the index parameter.
    pub(crate) fn lane_axis(&self, rank: usize) -> LaneAxis {
        LaneAxis {
            dim: rank.saturating_sub(1),
            index: self.index_param,
        }
    }

    /// The most work-items a launch of the code may have: the product of
    /// the extent bound (saturating; unknown bounds are `i32::MAX`).
    pub(crate) fn launch_items_bound(&self) -> i64 {
        if self.extent_bound.is_empty() {
            return i64::MAX;
        }
        self.extent_bound
            .iter()
            .fold(1i64, |n, b| n.saturating_mul((*b).max(1)))
    }

    /// The largest value component `k` of a launch extent may have.
    fn extent_max(&self, k: usize) -> i64 {
        let max = i64::from(i32::MAX);
        self.extent_bound
            .get(k)
            .copied()
            .unwrap_or(max)
            .clamp(1, max)
    }

    /// Whether `func` writes its local `l` after its declaration (computed
    /// once per function).
    pub(crate) fn is_mutated(&mut self, func: FuncId, l: LocalId) -> bool {
        if !self.mutated.contains_key(&func) {
            let mut set = HashSet::new();
            if let Some(body) = &self.prog.function(func).body {
                mutated_locals(self.prog, body, &mut set);
            }
            self.mutated.insert(func, set);
        }
        self.mutated.get(&func).is_some_and(|m| m.contains(&l))
    }

    /// Records the range of a scalar local declared in `scope` (a function
    /// `func`'s, inlined): its initial value's, which holds for good when
    /// the function never writes it again. Without an initialiser it starts
    /// at zero.
    pub(crate) fn declare_scalar(
        &mut self,
        scope: usize,
        func: FuncId,
        l: LocalId,
        init: Option<&Init>,
    ) {
        let range = match init {
            Some(Init::Expr(e)) => self.range_of(scope, e),
            _ => Some((0, 0)),
        };
        match range {
            Some(r) => {
                self.init_ranges.insert((scope, l), r);
                if !self.is_mutated(func, l) {
                    self.ranges.insert((scope, l), r);
                }
            }
            None => {
                self.init_ranges.remove(&(scope, l));
                self.ranges.remove(&(scope, l));
            }
        }
    }

    /// Records the range of a by-value scalar parameter `l` of an inlined
    /// call `scope` of `func`: its argument's range `arg` (in the caller),
    /// which holds for good when the function never writes the parameter.
    pub(crate) fn declare_param(
        &mut self,
        scope: usize,
        func: FuncId,
        l: LocalId,
        arg: Option<(i64, i64)>,
    ) {
        if let Some(r) = arg
            && !self.is_mutated(func, l)
        {
            self.ranges.insert((scope, l), r);
        }
    }

    /// Gives a counted loop's counter its range for the body and the step;
    /// what to hand to [`Facts::leave_counted`] after them.
    pub(crate) fn enter_counted(&mut self, counted: CountedLoop) -> SavedRange {
        let (key, range, _) = counted;
        (key, self.ranges.insert(key, range))
    }

    /// Restores the counter's range from before its loop.
    pub(crate) fn leave_counted(&mut self, (key, old): SavedRange) {
        match old {
            Some(r) => self.ranges.insert(key, r),
            None => self.ranges.remove(&key),
        };
    }

    /// Remembers the statement before the current one, when it declares a
    /// local (a `for` is its counter's declaration, then the loop).
    pub(crate) fn set_prev(&mut self, prev: Option<&Stmt>) {
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

    /// The range (inclusive) an `int`-like expression's value is known to
    /// lie in, when it is known, in the inlined call `scope`.
    pub(crate) fn range_of(&self, scope: usize, e: &Expr) -> Option<(i64, i64)> {
        let s = e.ty.scalar()?;
        if s.is_floating() || s == Scalar::Bool {
            return None;
        }
        let (tlo, thi) = s.int_range();
        let r = match &e.kind {
            ExprKind::Const(Const::Int(n)) => (*n, *n),
            ExprKind::Local(l) => *self.ranges.get(&(scope, *l))?,
            // A captured number is any value of its type, which bounds a
            // loop's counter compared with it (`k0 < n`).
            ExprKind::Capture(_) => (tlo, thi),
            ExprKind::Convert(inner) => {
                let is = inner.ty.scalar()?;
                if is.is_floating() || is == Scalar::Bool {
                    return None;
                }
                self.range_of(scope, inner)?
            }
            // `x & m` with `m >= 0` lies in `[0, m]` whatever `x` is; `x % n`
            // with `x >= 0` and `n > 0` in `[0, n - 1]`.
            ExprKind::Binary {
                op: BinOp::BitAnd,
                lhs,
                rhs,
            } if self
                .range_of(scope, rhs)
                .or_else(|| self.range_of(scope, lhs))
                .is_some_and(|(lo, _)| lo >= 0) =>
            {
                let m = self.range_of(scope, rhs).filter(|(lo, _)| *lo >= 0);
                let m = m.or_else(|| self.range_of(scope, lhs).filter(|(lo, _)| *lo >= 0))?;
                (0, m.1)
            }
            // `x % n` and `x / n` with `x >= 0` and `n > 0`.
            ExprKind::Binary {
                op: op @ (BinOp::Rem | BinOp::Div),
                lhs,
                rhs,
            } => {
                let (a, b) = (self.range_of(scope, lhs)?, self.range_of(scope, rhs)?);
                if a.0 < 0 || b.0 <= 0 {
                    return None;
                }
                if *op == BinOp::Rem {
                    (0, (b.1 - 1).min(a.1))
                } else {
                    (a.0 / b.1, a.1 / b.0)
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.range_of(scope, lhs)?, self.range_of(scope, rhs)?);
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
                let k = usize::try_from(const_int(args.get(1)?)?).ok()?;
                // The extent's components are each at most the bound the
                // code is compiled for (`exec` runs no launch past it, nor
                // past `i32::MAX`), so a coordinate is below it.
                let max = self.extent_max(k);
                match &args.first()?.kind {
                    ExprKind::Local(l) if scope == 0 && Some(*l) == self.index_param => {
                        (0, max - 1)
                    }
                    ExprKind::Intrinsic {
                        op: Intrinsic::TiledIndexPart(part),
                        ..
                    } => {
                        let shape = self.tile?;
                        let d = i64::from(*shape.dims().get(k)?);
                        // A tiled launch's extent is a whole number of
                        // tiles, so a tile's origin is at least a tile
                        // below it.
                        match part {
                            TiledIndexPart::Local => (0, d - 1),
                            TiledIndexPart::Global => (0, max - 1),
                            TiledIndexPart::TileOrigin => (0, (max - d).max(0)),
                            TiledIndexPart::Tile => (0, (max / d - 1).max(0)),
                            _ => return None,
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        (r.0 >= tlo && r.1 <= thi).then_some(r)
    }
}
