//! Vector lanes: in a region run in lanes, the lane-private locals of a
//! scalar type that fills a 128-bit vector with one element per lane
//! (`float`/`int` for four lanes, `double`/`long` for two) live in one
//! vector variable when every value they are given is computed on vectors,
//! and the statements that assign them, or store a contiguous row of
//! `tile_static` memory or of a view, are computed on vectors: values the
//! lanes share are splatted, an `int` growing by a fixed step from lane to
//! lane is a splat plus `0, step, 2 step, ...`, a row whose last index
//! grows by one from lane to lane is one vector load or store (its bounds
//! checked for the first lane and the last), floating-point arithmetic and
//! `int` to `float` are one vector instruction (IEEE single or double in
//! each lane, as the scalar code), `int` additions and subtractions check
//! overflow in every lane with one vector comparison, and anything else is
//! computed lane by lane, with the scalar code and its checks, and put into
//! its lane. A statement the
//! vector path does not take runs lane by lane as before, reading the
//! vector locals it names from their lanes and putting them back after.
//!
//! A branch whose condition may differ between the lanes is masked
//! ([`Emitter::masked_if`]): every lane's condition is computed first (one
//! vector comparison, `vall_true` and `vany_true`, when both operands are
//! on vectors), then the branch runs on the vector path when every lane
//! takes it, its `else` when none does, and lane by lane when they differ.
//! So the vector path's checks, done for the first lane and the last, are
//! only ever made where every lane runs the statement.

use super::*;
use crate::plan::uniform::{LaneAxis, lane_invariant};
use crate::plan::vector::{
    is_pure, lane_step, shape_steps, vector_assignment, vector_op, vector_targets,
};

/// The vector state of a region run in lanes.
pub(super) struct VectorLanes {
    /// Each vector local: its vector variable and element type.
    locals: HashMap<LocalId, (Variable, Scalar)>,
    /// Locals whose value grows by a fixed amount from lane to lane.
    steps: HashMap<LocalId, i64>,
    /// Locals with the same value in every lane.
    known: HashSet<LocalId>,
    /// The coordinate the lanes run along.
    axis: LaneAxis,
}

/// A value of the vector path.
#[derive(Clone, Copy)]
enum Lanes {
    /// The same scalar in every lane, computed once.
    Same(Value),
    /// One element per lane.
    Each(Value),
}

/// The vector type with one `s` per lane, when it is 128 bits wide.
fn vector_type(s: Scalar, lanes: usize) -> Option<types::Type> {
    if !matches!(
        s,
        Scalar::Int | Scalar::UInt | Scalar::Long | Scalar::ULong | Scalar::Float | Scalar::Double
    ) {
        return None;
    }
    let t = clif_type(s).by(u32::try_from(lanes).ok()?)?;
    (t.bits() == 128).then_some(t)
}

/// Vector memory accesses: a row of `tile_static` memory is not aligned to
/// 16 bytes in general.
fn vector_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Flags of a load from memory that nothing writes while the load may
/// run (see `Emitter::unwritten_scratch`): free to move and to merge.
fn unwritten_flags(aligned: bool) -> MemFlagsData {
    let f = MemFlagsData::new()
        .with_notrap()
        .with_readonly()
        .with_can_move();
    if aligned { f.with_aligned() } else { f }
}

impl Emitter<'_, '_, '_> {
    /// Chooses the vector locals of a region run in lanes (after the
    /// lanes' frame loads, which are packed into them) and starts the
    /// vector path; `known` are the locals every lane shares.
    pub(super) fn start_vector_lanes(
        &mut self,
        stmts: &[Stmt],
        ctxs: &mut [LaneCtx],
        known: HashSet<LocalId>,
        axis: LaneAxis,
        (unloaded, read_only): (&[(LocalId, FrameSlot)], &HashSet<LocalId>),
    ) -> R<()> {
        let lanes = ctxs.len();
        let kernel = self.scopes[0].func;
        let steps = self.facts.lane_step_locals(kernel, axis, &known);
        let targets = vector_targets(stmts);
        let mut chosen: HashMap<LocalId, Scalar> = HashMap::new();
        // Also the frame locals the region only reads: one vector load of
        // their row, rather than one load per lane.
        let candidates = targets.keys().chain(
            unloaded
                .iter()
                .map(|(l, _)| l)
                .filter(|l| read_only.contains(l) && !targets.contains_key(l)),
        );
        for l in candidates {
            let local = self.prog.function(kernel).local(*l);
            let Type::Scalar(s) = local.ty else { continue };
            // A local that grows by a fixed step from lane to lane (a
            // coordinate) stays scalar: its lanes' indices address rows.
            if local.by_ref
                || local.space != Space::Private
                || known.contains(l)
                || steps.contains_key(l)
                || vector_type(s, lanes).is_none()
            {
                continue;
            }
            // Lane-private: its own variable in each lane, or declared here.
            let vars: Vec<Option<Variable>> = ctxs.iter().map(|c| Self::lane_var(c, *l)).collect();
            let declared_here = ctxs.iter().all(|c| !c.slots.contains_key(l));
            let distinct: BTreeSet<u32> = vars.iter().flatten().map(|v| v.as_u32()).collect();
            if declared_here || distinct.len() == lanes {
                chosen.insert(*l, s);
            }
        }
        self.vector = Some(VectorLanes {
            locals: HashMap::new(),
            steps,
            known,
            axis,
        });
        // Only locals whose every value is computed on vectors: one whose
        // value needs elements gathered lane by lane costs more packing
        // and unpacking than its vector arithmetic saves.
        loop {
            let names: HashSet<LocalId> = chosen.keys().copied().collect();
            let before = chosen.len();
            chosen.retain(|l, _| {
                targets.get(l).map_or(read_only.contains(l), |values| {
                    values.iter().all(|v| self.fully_vector(v, &names, ctxs))
                })
            });
            if chosen.len() == before {
                break;
            }
        }
        // The frame locals whose loads waited for this choice: those that
        // are not vectors now load lane by lane.
        let kernel_fn = self.scopes[0].func;
        for &(l, slot) in unloaded {
            if chosen.contains_key(&l) {
                continue;
            }
            let ty = self.prog.function(kernel_fn).local(l).ty.clone();
            for ctx in ctxs.iter_mut() {
                self.swap_lane(ctx);
                let loaded = self.frame_to_vars(l, slot, &ty);
                self.swap_lane(ctx);
                loaded?;
            }
        }
        let mut order: Vec<(LocalId, Scalar)> = chosen.into_iter().collect();
        order.sort_by_key(|(l, _)| *l);
        let mut locals = HashMap::new();
        for (l, s) in order {
            let Some(vty) = vector_type(s, lanes) else {
                continue;
            };
            let vector = self.var(vty);
            if ctxs.iter().all(|c| !c.slots.contains_key(&l)) {
                // Declared in the region: each lane gets its variable now,
                // for the statements that run lane by lane.
                for c in ctxs.iter_mut() {
                    let var = self.var(clif_type(s));
                    c.slots.insert(l, Slot::Vars(vec![var]));
                }
                let zero = self.zero(s);
                let v = self.b.ins().splat(vty, zero);
                self.b.def_var(vector, v);
            } else if unloaded.iter().any(|(u, _)| *u == l)
                && let Some(addr) = self.frame_row(ctxs, l, vty)
            {
                // The lanes' copies are adjacent in the frame: one vector
                // load, and each lane's variable its element.
                let v = self.b.ins().load(vty, vector_flags(), addr, 0);
                self.b.def_var(vector, v);
                for (i, c) in ctxs.iter().enumerate() {
                    if let Some(var) = Self::lane_var(c, l) {
                        let x = self.b.ins().extractlane(v, i as u8);
                        self.b.def_var(var, x);
                    }
                }
            } else {
                self.pack_lanes(ctxs, l, vector, vty);
            }
            locals.insert(l, (vector, s));
        }
        if let Some(v) = self.vector.as_mut() {
            v.locals = locals;
        }
        Ok(())
    }

    /// Whether the lanes' copies of frame local `l` (of type `ty`) may be
    /// one vector: a scalar that fills a vector with one element per lane,
    /// in a slot of its own size (see [`FrameSlot`]).
    pub(super) fn frame_row_candidate(&self, l: LocalId, ty: &Type, lanes: usize) -> bool {
        let Type::Scalar(s) = ty else {
            return false;
        };
        let Some(slot) = self.scopes[0].frame.get(&l) else {
            return false;
        };
        vector_type(*s, lanes).is_some_and(|vty| slot.stride == vty.lane_bits() / 8)
    }

    /// Whether the vector path computes `e` with no element gathered lane
    /// by lane, `names` being the vector locals.
    fn fully_vector(&self, e: &Expr, names: &HashSet<LocalId>, ctxs: &[LaneCtx]) -> bool {
        let Some(v) = self.vector.as_ref() else {
            return false;
        };
        if let ExprKind::Local(l) = &e.kind
            && names.contains(l)
        {
            return true;
        }
        if (is_pure(e) && lane_invariant(e, &v.known, v.axis))
            || self.int_lane_step(e).is_some()
            || self.tile_static_step(e, ctxs).is_some_and(|s| s <= 1)
            || self.tile_static_wrapped(e, ctxs).is_some()
            || self.is_view_row(e, ctxs)
        {
            return true;
        }
        let Some(s) = e.ty.scalar() else {
            return false;
        };
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs }
            | ExprKind::CompoundAssign {
                op,
                target: lhs,
                value: rhs,
            } if lhs.ty == e.ty && rhs.ty == e.ty => {
                let on_vectors = if s.is_floating() {
                    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                } else {
                    matches!(
                        op,
                        BinOp::Add | BinOp::Sub | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
                    )
                };
                on_vectors
                    && self.fully_vector(lhs, names, ctxs)
                    && self.fully_vector(rhs, names, ctxs)
            }
            ExprKind::Unary {
                op: UnOp::Neg,
                operand,
            } if s.is_floating() && operand.ty == e.ty => self.fully_vector(operand, names, ctxs),
            ExprKind::Convert(inner)
                if s == Scalar::Float
                    && inner.ty.scalar() == Some(Scalar::Int)
                    && ctxs.len() == 4 =>
            {
                self.fully_vector(inner, names, ctxs)
            }
            _ => false,
        }
    }

    /// Ends the vector path: each lane's variables get their vector
    /// locals' elements (for the frame stores after the region).
    pub(super) fn finish_vector_lanes(&mut self, ctxs: &mut [LaneCtx]) {
        if let Some(v) = self.vector.take() {
            let mut names: Vec<LocalId> = v.locals.keys().copied().collect();
            names.sort();
            self.vector = Some(v);
            self.unpack_lanes(ctxs, &names);
            self.vector = None;
        }
    }

    /// The address of lane 0's copy of the kernel's frame local `l` when
    /// the lanes' copies are adjacent and fill one vector of type `vty`
    /// (a scalar slot: see [`FrameSlot`]).
    fn frame_row(&mut self, ctxs: &mut [LaneCtx], l: LocalId, vty: types::Type) -> Option<Value> {
        let slot = *self.scopes[0].frame.get(&l)?;
        let lanes = u32::try_from(ctxs.len()).ok()?;
        if vty.lane_count() != lanes || slot.stride != vty.lane_bits() / 8 {
            return None;
        }
        self.swap_lane(&mut ctxs[0]);
        let addr = self.frame_addr(slot);
        self.swap_lane(&mut ctxs[0]);
        Some(addr)
    }

    /// The frame locals written whole from their vector at the region's
    /// end: the kernel's frame locals in `written` that live in a vector
    /// of adjacent copies, with that vector and lane 0's address.
    pub(super) fn frame_rows_written(
        &mut self,
        ctxs: &mut [LaneCtx],
        written: &[(LocalId, FrameSlot)],
    ) -> Vec<(LocalId, Value, Value)> {
        let mut rows = Vec::new();
        for &(l, _) in written {
            let Some((vector, _)) = self.vector_local(l) else {
                continue;
            };
            let v = self.b.use_var(vector);
            let vty = self.b.func.dfg.value_type(v);
            if let Some(addr) = self.frame_row(ctxs, l, vty) {
                rows.push((l, v, addr));
            }
        }
        rows
    }

    /// Stores a vector of adjacent frame copies (see [`Emitter::frame_rows_written`]).
    pub(super) fn store_frame_row(&mut self, v: Value, addr: Value) {
        self.b.ins().store(vector_flags(), v, addr, 0);
    }

    fn vector_local(&self, l: LocalId) -> Option<(Variable, Scalar)> {
        self.vector.as_ref()?.locals.get(&l).copied()
    }

    /// Each lane's variable of `l`.
    fn lane_var(ctx: &LaneCtx, l: LocalId) -> Option<Variable> {
        match ctx.slots.get(&l) {
            Some(Slot::Vars(v)) if v.len() == 1 => Some(v[0]),
            _ => None,
        }
    }

    /// Puts each lane's variable of `l` into its lane of `vector`.
    fn pack_lanes(&mut self, ctxs: &[LaneCtx], l: LocalId, vector: Variable, vty: types::Type) {
        let mut acc: Option<Value> = None;
        for (i, c) in ctxs.iter().enumerate() {
            let Some(var) = Self::lane_var(c, l) else {
                return;
            };
            let x = self.b.use_var(var);
            acc = Some(match acc {
                None => self.b.ins().splat(vty, x),
                Some(v) => self.b.ins().insertlane(v, x, i as u8),
            });
        }
        if let Some(v) = acc {
            self.b.def_var(vector, v);
        }
    }

    /// Gives each lane's variable of every vector local in `names` its
    /// element.
    fn unpack_lanes(&mut self, ctxs: &[LaneCtx], names: &[LocalId]) {
        for &l in names {
            let Some((vector, _)) = self.vector_local(l) else {
                continue;
            };
            let v = self.b.use_var(vector);
            for (i, c) in ctxs.iter().enumerate() {
                if let Some(var) = Self::lane_var(c, l) {
                    let x = self.b.ins().extractlane(v, i as u8);
                    self.b.def_var(var, x);
                }
            }
        }
    }

    /// The vector locals a statement names.
    fn vector_names(&self, s: &Stmt) -> Vec<LocalId> {
        let mut named = BTreeSet::new();
        crate::plan::locals::stmt_locals(s, &mut named);
        named
            .into_iter()
            .filter(|l| self.vector_local(*l).is_some())
            .collect()
    }

    /// The vector locals an expression names.
    fn vector_names_in(&self, e: &Expr) -> Vec<LocalId> {
        let mut named = BTreeSet::new();
        expr_locals(e, &mut named);
        named
            .into_iter()
            .filter(|l| self.vector_local(*l).is_some())
            .collect()
    }

    /// A statement lane by lane, as without vectors, the vector locals it
    /// names taken from their lanes before and put back after.
    pub(super) fn lane_by_lane(&mut self, s: &Stmt, ctxs: &mut [LaneCtx]) -> R<()> {
        let names = self.vector_names(s);
        self.unpack_lanes(ctxs, &names);
        for ctx in ctxs.iter_mut() {
            self.swap_lane(ctx);
            let r = self.stmt(s);
            self.swap_lane(ctx);
            r?;
        }
        for l in names {
            if let Some((vector, sc)) = self.vector_local(l) {
                let Some(vty) = vector_type(sc, ctxs.len()) else {
                    continue;
                };
                self.pack_lanes(ctxs, l, vector, vty);
            }
        }
        Ok(())
    }

    /// Runs `s` on vectors when it has a form the vector path takes
    /// (answering whether it did).
    pub(super) fn vector_stmt(&mut self, s: &Stmt, ctxs: &mut [LaneCtx]) -> R<bool> {
        if self.vector.is_none() {
            return Ok(false);
        }
        match &s.kind {
            StmtKind::Let {
                local,
                init: Some(init @ Init::Expr(e)),
            } if is_pure(e) => {
                let Some((vector, sc)) = self.vector_local(*local) else {
                    return Ok(false);
                };
                self.spend()?;
                let (scope, func) = (self.scope().id, self.scope().func);
                self.facts.declare_scalar(scope, func, *local, Some(init));
                let v = self.lanes_value(e, sc, ctxs)?;
                let v = self.each(v, sc, ctxs.len());
                self.b.def_var(vector, v);
                Ok(true)
            }
            StmtKind::Expr(e) => {
                if let Some(l) = vector_assignment(e)
                    && let Some((vector, sc)) = self.vector_local(l)
                {
                    self.spend()?;
                    let v = match &e.kind {
                        ExprKind::CompoundAssign { op, value, .. } => {
                            let rhs = self.lanes_value(value, sc, ctxs)?;
                            let old = Lanes::Each(self.b.use_var(vector));
                            self.lanes_binary(*op, sc, old, rhs, ctxs.len())?
                        }
                        ExprKind::Assign { value, .. } => self.lanes_value(value, sc, ctxs)?,
                        _ => return Ok(false),
                    };
                    let v = self.each(v, sc, ctxs.len());
                    self.b.def_var(vector, v);
                    return Ok(true);
                }
                // A row of `tile_static` memory, one element per lane.
                if let ExprKind::Assign { target, value } = &e.kind
                    && is_pure(value)
                    && value.ty == target.ty
                    && let Some(sc) = target.ty.scalar()
                    && vector_type(sc, ctxs.len()).is_some()
                    && self.tile_static_step(target, ctxs) == Some(1)
                    && self.vector_gains(value, ctxs)
                {
                    self.spend()?;
                    let v = self.lanes_value(value, sc, ctxs)?;
                    let v = self.each(v, sc, ctxs.len());
                    let at = self.row_address(target, ctxs)?;
                    self.b.ins().store(vector_flags(), v, at, 0);
                    return Ok(true);
                }
                // `row op= value` on a row of `tile_static` memory or of a
                // view: one load, the operation on vectors, one store.
                if let ExprKind::CompoundAssign { op, target, value } = &e.kind
                    && is_pure(value)
                    && is_pure(target)
                    && value.ty == target.ty
                    && vector_op(*op)
                    && let Some(sc) = target.ty.scalar()
                    && let Some(vty) = vector_type(sc, ctxs.len())
                {
                    let at = if self.tile_static_step(target, ctxs) == Some(1) {
                        Some(true)
                    } else {
                        self.is_view_row(target, ctxs).then_some(false)
                    };
                    if let Some(tile_static) = at {
                        self.spend()?;
                        let rhs = self.lanes_value(value, sc, ctxs)?;
                        let at = if tile_static {
                            self.row_address(target, ctxs)?
                        } else {
                            self.view_row(target, ctxs)?
                        };
                        let old = self.b.ins().load(vty, vector_flags(), at, 0);
                        let v = self.lanes_binary(*op, sc, Lanes::Each(old), rhs, ctxs.len())?;
                        let v = self.each(v, sc, ctxs.len());
                        self.b.ins().store(vector_flags(), v, at, 0);
                        return Ok(true);
                    }
                }
                // A row of a view, one element per lane.
                if let ExprKind::Assign { target, value } = &e.kind
                    && is_pure(value)
                    && value.ty == target.ty
                    && let Some(sc) = target.ty.scalar()
                    && vector_type(sc, ctxs.len()).is_some()
                    && self.is_view_row(target, ctxs)
                {
                    // Also a value gathered lane by lane: one store and
                    // one pair of bounds checks for the row cost less than
                    // a view element's address and checks in every lane.
                    self.spend()?;
                    let v = self.lanes_value(value, sc, ctxs)?;
                    let v = self.each(v, sc, ctxs.len());
                    let at = self.view_row(target, ctxs)?;
                    self.b.ins().store(vector_flags(), v, at, 0);
                    return Ok(true);
                }
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// Whether `cond` has the same value in every lane, so that lane 0
    /// evaluates it for all of them.
    pub(super) fn lane_invariant_cond(&self, cond: &Expr) -> bool {
        self.vector
            .as_ref()
            .is_some_and(|v| is_pure(cond) && lane_invariant(cond, &v.known, v.axis))
    }

    /// A branch whose condition may differ between the lanes (the plan
    /// allows it when the condition changes nothing and the branch is
    /// short). Every lane's condition is computed first; then the branch
    /// runs on the vector path when every lane takes it, its `else` when
    /// none does, and the whole statement runs lane by lane, with the
    /// scalar code, when they differ. A lane thus does only what its own
    /// work-item does: a row read or written on vectors, or arithmetic
    /// checked on vectors, is reached only when every lane gets there, so
    /// no lane reads out of bounds or fails a check its work-item would
    /// not.
    pub(super) fn masked_if(
        &mut self,
        s: &Stmt,
        cond: &Expr,
        then: &IrBlock,
        els: Option<&IrBlock>,
        ctxs: &mut [LaneCtx],
    ) -> R<()> {
        self.spend()?;
        let (all, any) = self.lanes_cond(cond, ctxs)?;
        let every = self.b.create_block();
        let some = self.b.create_block();
        let mixed = self.b.create_block();
        let none = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(all, every, &[], some, &[]);
        self.b.switch_to_block(some);
        self.b.ins().brif(any, mixed, &[], none, &[]);
        self.b.switch_to_block(every);
        self.lane_stmts(&then.stmts, ctxs)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(none);
        if let Some(els) = els {
            self.lane_stmts(&els.stmts, ctxs)?;
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(mixed);
        // Each lane evaluates its condition again (it changes nothing) and
        // takes its own branch.
        self.lane_by_lane(s, ctxs)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// Whether `cond` holds in every lane, and whether it holds in any.
    fn lanes_cond(&mut self, cond: &Expr, ctxs: &mut [LaneCtx]) -> R<(Value, Value)> {
        if let Some(mask) = self.vector_compare(cond, ctxs)? {
            let all = self.b.ins().vall_true(mask);
            let any = self.b.ins().vany_true(mask);
            return Ok((all, any));
        }
        let names = self.vector_names_in(cond);
        self.unpack_lanes(ctxs, &names);
        let mut acc: Option<(Value, Value)> = None;
        for ctx in ctxs.iter_mut() {
            self.swap_lane(ctx);
            let r = self.scalar(cond);
            self.swap_lane(ctx);
            let mut c = r?;
            if cond.ty.scalar() != Some(Scalar::Bool) {
                // Only `bool` is known to be 0 or 1, which `band` needs.
                c = self.b.ins().icmp_imm_s(IntCC::NotEqual, c, 0);
            }
            acc = Some(match acc {
                None => (c, c),
                Some((all, any)) => (self.b.ins().band(all, c), self.b.ins().bor(any, c)),
            });
        }
        match acc {
            Some(pair) => Ok(pair),
            None => decline(Decline::NonScalarWhereScalarExpected),
        }
    }

    /// A comparison of two `int` or `float` operands that the vector path
    /// computes with no element gathered lane by lane, as one vector
    /// comparison: a mask with all bits set in the lanes where it holds.
    fn vector_compare(&mut self, cond: &Expr, ctxs: &mut [LaneCtx]) -> R<Option<Value>> {
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return Ok(None);
        };
        let Some(s) = lhs.ty.scalar() else {
            return Ok(None);
        };
        if !is_comparison(*op)
            || lhs.ty != rhs.ty
            || !matches!(s, Scalar::Int | Scalar::Float)
            || vector_type(s, ctxs.len()).is_none()
        {
            return Ok(None);
        }
        let names: HashSet<LocalId> = match self.vector.as_ref() {
            Some(v) => v.locals.keys().copied().collect(),
            None => return Ok(None),
        };
        if !self.fully_vector(lhs, &names, ctxs) || !self.fully_vector(rhs, &names, ctxs) {
            return Ok(None);
        }
        let lanes = ctxs.len();
        let a = self.lanes_value(lhs, s, ctxs)?;
        let b = self.lanes_value(rhs, s, ctxs)?;
        let va = self.each(a, s, lanes);
        let vb = self.each(b, s, lanes);
        let mask = if s == Scalar::Float {
            // As the scalar comparisons: ordered, but `!=` holds for NaN.
            let cc = match op {
                BinOp::Eq => FloatCC::Equal,
                BinOp::Ne => FloatCC::NotEqual,
                BinOp::Lt => FloatCC::LessThan,
                BinOp::Le => FloatCC::LessThanOrEqual,
                BinOp::Gt => FloatCC::GreaterThan,
                _ => FloatCC::GreaterThanOrEqual,
            };
            self.b.ins().fcmp(cc, va, vb)
        } else {
            let Some(cc) = super::arith::signed_cc(*op) else {
                return Ok(None);
            };
            self.b.ins().icmp(cc, va, vb)
        };
        Ok(Some(mask))
    }

    /// Whether the vector path computes some of `e` as vectors (it names
    /// a vector local, reads a row or counts along the lanes): a value computed lane by lane only
    /// is stored lane by lane too, rather than put into a vector first.
    fn vector_gains(&self, e: &Expr, ctxs: &[LaneCtx]) -> bool {
        match &e.kind {
            ExprKind::Local(l) if self.vector_local(*l).is_some() => true,
            ExprKind::Binary { op, lhs, rhs }
                if vector_op(*op) && lhs.ty == e.ty && rhs.ty == e.ty =>
            {
                self.vector_gains(lhs, ctxs) || self.vector_gains(rhs, ctxs)
            }
            ExprKind::Unary {
                op: UnOp::Neg,
                operand,
            } if operand.ty == e.ty => self.vector_gains(operand, ctxs),
            ExprKind::Convert(inner)
                if e.ty.scalar() == Some(Scalar::Float)
                    && inner.ty.scalar() == Some(Scalar::Int)
                    && ctxs.len() == 4 =>
            {
                self.vector_gains(inner, ctxs)
            }
            _ => {
                self.tile_static_step(e, ctxs) == Some(1)
                    || self.tile_static_wrapped(e, ctxs).is_some()
                    || self.is_view_row(e, ctxs)
                    || self.int_lane_step(e).is_some_and(|s| s != 0)
            }
        }
    }

    /// A value as one element per lane.
    fn each(&mut self, v: Lanes, s: Scalar, lanes: usize) -> Value {
        match v {
            Lanes::Each(v) => v,
            Lanes::Same(x) => {
                let vty = vector_type(s, lanes).unwrap_or(types::I32X4);
                self.b.ins().splat(vty, x)
            }
        }
    }

    /// How an index into a row of `tile_static` memory grows from lane to
    /// lane, when `e` is an element of a `tile_static` C array whose other
    /// indices are the same in every lane.
    fn tile_static_step(&self, e: &Expr, ctxs: &[LaneCtx]) -> Option<i64> {
        let v = self.vector.as_ref()?;
        let (index, _) = self.tile_static_element(e, ctxs)?;
        lane_step(index, &v.steps, &v.known, v.axis)
    }

    /// `e` as an element of a `tile_static` C array of scalars whose
    /// indices but the last are the same in every lane: the last index,
    /// and the length of the array it indexes.
    fn tile_static_element<'e>(&self, e: &'e Expr, ctxs: &[LaneCtx]) -> Option<(&'e Expr, u32)> {
        let v = self.vector.as_ref()?;
        let ExprKind::Element { base, index } = &e.kind else {
            return None;
        };
        let Type::CArray(elem, len) = &base.ty else {
            return None;
        };
        if **elem != e.ty || e.ty.scalar().is_none() {
            return None;
        }
        let mut at = &**base;
        loop {
            match &at.kind {
                ExprKind::Element { base, index } => {
                    if lane_step(index, &v.steps, &v.known, v.axis)? != 0 {
                        return None;
                    }
                    at = base;
                }
                ExprKind::Local(l) => {
                    return matches!(ctxs[0].slots.get(l), Some(Slot::TileStatic(_)))
                        .then_some((&**index, *len));
                }
                _ => return None,
            }
        }
    }

    /// An element of a `tile_static` C array read at `x & m`, where `x`
    /// grows by one from lane to lane, `m + 1` is a power of two no larger
    /// than the array (so every such index is inside it) and at least the
    /// lanes, and the array's other indices are the same in every lane: the
    /// lanes' elements are a row, unless the row passes `m` and goes on
    /// from 0 (a neighbour's element in a ring, `t[(l + 1) & (WG - 1)]`).
    /// Gives `x` and `m`.
    fn tile_static_wrapped<'e>(&self, e: &'e Expr, ctxs: &[LaneCtx]) -> Option<(&'e Expr, i64)> {
        let v = self.vector.as_ref()?;
        let (index, len) = self.tile_static_element(e, ctxs)?;
        // The index widened to `long` keeps its value, which lies in
        // `[0, m]`.
        let masked = match &index.kind {
            ExprKind::Convert(inner) if inner.ty.scalar().is_some_and(|s| !s.is_floating()) => {
                &**inner
            }
            _ => index,
        };
        let ExprKind::Binary {
            op: BinOp::BitAnd,
            lhs,
            rhs,
        } = &masked.kind
        else {
            return None;
        };
        if lhs.ty != masked.ty || rhs.ty != masked.ty {
            return None;
        }
        let constant = |e: &Expr| {
            self.range_of(e)
                .filter(|(lo, hi)| lo == hi)
                .map(|(lo, _)| lo)
        };
        let (x, m) = match (constant(rhs), constant(lhs)) {
            (Some(m), _) => (&**lhs, m),
            (None, Some(m)) => (&**rhs, m),
            (None, None) => return None,
        };
        let ring = m.checked_add(1)?;
        let fits = ring > 0
            && (ring as u64).is_power_of_two()
            && ring <= i64::from(len)
            && ring >= ctxs.len() as i64;
        (fits && lane_step(x, &v.steps, &v.known, v.axis) == Some(1)).then_some((x, m))
    }

    /// The lanes' elements of a ring row of `tile_static` memory (see
    /// [`Self::tile_static_wrapped`]): one vector load when the row does
    /// not pass the ring's end in these lanes, else lane by lane. The
    /// first lane's and the last lane's indices are computed, with their
    /// checks, either way; those between lie between them.
    fn wrapped_row(
        &mut self,
        e: &Expr,
        (x, m): (&Expr, i64),
        vty: types::Type,
        s: Scalar,
        ctxs: &mut [LaneCtx],
    ) -> R<Value> {
        let at = self.row_address(e, ctxs)?;
        let first = self.in_lane0(ctxs, |lw| lw.scalar(x))?;
        let lanes = ctxs.len() as i64;
        let start = self.b.ins().band_imm_s(first, m);
        let whole = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThanOrEqual, start, m - (lanes - 1));
        let row = self.b.create_block();
        let ring = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, vty);
        // Lanes pass the ring's end once per pass over the ring: the block
        // that gathers them goes out of line, so the common path is one
        // untaken branch rather than two jumps taken each time.
        self.b.set_cold_block(ring);
        self.b.ins().brif(whole, row, &[], ring, &[]);
        self.b.switch_to_block(row);
        self.b.seal_block(row);
        let v = self.b.ins().load(vty, vector_flags(), at, 0);
        self.b.ins().jump(join, &[v.into()]);
        self.b.switch_to_block(ring);
        self.b.seal_block(ring);
        let v = match self.lane_by_lane_value(e, s, ctxs)? {
            Lanes::Each(v) => v,
            Lanes::Same(x) => self.b.ins().splat(vty, x),
        };
        self.b.ins().jump(join, &[v.into()]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        Ok(self.b.block_params(join)[0])
    }

    /// How the address of an element of a `tile_static` C array grows from
    /// lane to lane, in bytes, when each of its indices grows by a fixed
    /// step (the lanes' elements then lie between the first lane's and the
    /// last lane's, whose indices are checked).
    fn tile_static_byte_step(&self, e: &Expr, ctxs: &[LaneCtx]) -> Option<i64> {
        let v = self.vector.as_ref()?;
        let step = |x: &Expr| lane_step(x, &v.steps, &v.known, v.axis);
        e.ty.scalar()?;
        let mut bytes: i64 = 0;
        let mut at = e;
        loop {
            match &at.kind {
                ExprKind::Element { base, index } => {
                    let Type::CArray(elem, _) = &base.ty else {
                        return None;
                    };
                    let (size, _) = size_align(&self.prog.structs, elem)?;
                    bytes = bytes.checked_add(step(index)?.checked_mul(i64::from(size))?)?;
                    at = base;
                }
                ExprKind::Local(l) => {
                    return matches!(ctxs[0].slots.get(l), Some(Slot::TileStatic(_)))
                        .then_some(bytes);
                }
                _ => return None,
            }
        }
    }

    /// The address of the first lane's element of a row whose index grows
    /// by one from lane to lane, the bounds checked for the first lane and
    /// the last (the lanes between lie between them).
    fn row_address(&mut self, e: &Expr, ctxs: &mut [LaneCtx]) -> R<Value> {
        let names = self.vector_names_in(e);
        self.unpack_lanes(ctxs, &names);
        let first = self.in_lane0(ctxs, |lw| lw.place(e))?;
        let n = ctxs.len();
        self.swap_lane(&mut ctxs[n - 1]);
        let last = self.place(e);
        self.swap_lane(&mut ctxs[n - 1]);
        last?;
        match first {
            Place::Mem(at, _) => Ok(at),
            _ => decline(Decline::OtherPlace),
        }
    }

    /// Whether `e` is an element of a view the lanes share whose index is
    /// the same in every lane but in its last component, which grows by one
    /// from lane to lane.
    fn is_view_row(&self, e: &Expr, ctxs: &[LaneCtx]) -> bool {
        let Some(v) = self.vector.as_ref() else {
            return false;
        };
        let ExprKind::Intrinsic {
            op: Intrinsic::ViewElement,
            args,
        } = &e.kind
        else {
            return false;
        };
        let shared_view = match &args[0].kind {
            ExprKind::Capture(_) => true,
            ExprKind::Local(l) => matches!(ctxs[0].slots.get(l), Some(Slot::View(_))),
            _ => false,
        };
        if !shared_view || e.ty.scalar().is_none() || !is_pure(&args[1]) {
            return false;
        }
        let Some(steps) = shape_steps(&args[1], &v.steps, &v.known, v.axis) else {
            return false;
        };
        steps
            .split_last()
            .is_some_and(|(last, rest)| *last == 1 && rest.iter().all(|s| *s == 0))
    }

    /// The address of the first lane's element of a view row (see
    /// [`Self::is_view_row`]), the bounds checked for the first lane and
    /// the last. The lanes' elements are side by side when the view's last
    /// dimension is contiguous, as C++ AMP's views are: one that is not
    /// fails the launch, which the interpreter then runs (no join of a
    /// vector and a lane-by-lane path in the loop).
    fn view_row(&mut self, e: &Expr, ctxs: &mut [LaneCtx]) -> R<Value> {
        let ExprKind::Intrinsic { args, .. } = &e.kind else {
            return decline(Decline::OtherPlace);
        };
        let names = self.vector_names_in(e);
        self.unpack_lanes(ctxs, &names);
        // The lanes' slots (the tiled index among them) are lane 0's here.
        let own = self.in_lane0(ctxs, |lw| Ok(lw.own_element(&args[0], &args[1])))?;
        let Place::Mem(at, _) = self.in_lane0(ctxs, |lw| lw.place(e))? else {
            return decline(Decline::OtherPlace);
        };
        if own {
            // Every lane's element is its work-item's own, in a view that
            // covers the launch and is contiguous along its last dimension.
            return Ok(at);
        }
        let (covering, last_own) = self.in_lane0(ctxs, |lw| {
            let own = lw.own_components(&args[0], &args[1]);
            Ok((
                lw.covering_capture(&args[0]),
                own.last().copied().unwrap_or(false),
            ))
        })?;
        if last_own {
            // The last component is the work-item's coordinate along the
            // lanes' axis in each lane, all below the extent of a view
            // that covers the launch, contiguous along that dimension.
            return Ok(at);
        }
        let view = self.in_lane0(ctxs, |lw| lw.view(&args[0]))?;
        // The last lane's index differs from the first lane's in its last
        // component only: the others were checked for the first lane. A
        // last component checked at the region's entry is in the extent
        // in every lane (see `precheck`).
        if self.prechecked(&args[0], &args[1]).last() != Some(&true) {
            let n = ctxs.len();
            self.swap_lane(&mut ctxs[n - 1]);
            let last = self.shape(&args[1]);
            self.swap_lane(&mut ctxs[n - 1]);
            let (Some(component), Some(extent)) = (last?.last().copied(), view.ext.last().copied())
            else {
                return decline(Decline::IndexAnotherRank);
            };
            let i = self.b.ins().sextend(types::I64, component);
            let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, extent);
            self.guard(ok);
        }
        if covering {
            // A covering view's last dimension is contiguous (checked at
            // each launch).
            return Ok(at);
        }
        let Some(stride) = view.strides.last() else {
            return decline(Decline::IndexAnotherRank);
        };
        let unit = self.b.ins().icmp_imm_s(IntCC::Equal, *stride, 1);
        self.guard(unit);
        Ok(at)
    }

    /// The value of `e` (of type `s`) in every lane.
    fn lanes_value(&mut self, e: &Expr, s: Scalar, ctxs: &mut [LaneCtx]) -> R<Lanes> {
        self.spend()?;
        let lanes = ctxs.len();
        if let ExprKind::Local(l) = &e.kind
            && let Some((vector, _)) = self.vector_local(*l)
        {
            return Ok(Lanes::Each(self.b.use_var(vector)));
        }
        let same = self
            .vector
            .as_ref()
            .is_some_and(|v| is_pure(e) && lane_invariant(e, &v.known, v.axis));
        if same {
            return Ok(Lanes::Same(self.in_lane0(ctxs, |lw| lw.scalar(e))?));
        }
        // `unwritten_scratch` holds plain numbers only (no `bool`, no union).
        let unwritten = e.ty.scalar() == Some(s)
            && crate::plan::locals::named_root(e)
                .is_some_and(|l| self.unwritten_scratch.contains(&l));
        match self.tile_static_step(e, ctxs) {
            Some(0) if unwritten => {
                let at = self.row_address(e, ctxs)?;
                let x = self
                    .b
                    .ins()
                    .load(clif_type(s), unwritten_flags(true), at, 0);
                return Ok(Lanes::Same(x));
            }
            Some(0) => return Ok(Lanes::Same(self.in_lane0(ctxs, |lw| lw.scalar(e))?)),
            Some(1) => {
                if let Some(vty) = vector_type(s, lanes) {
                    let at = self.row_address(e, ctxs)?;
                    let f = if unwritten {
                        unwritten_flags(false)
                    } else {
                        vector_flags()
                    };
                    return Ok(Lanes::Each(self.b.ins().load(vty, f, at, 0)));
                }
            }
            _ => {}
        }
        if e.ty.scalar() == Some(s)
            && let Some(vty) = vector_type(s, lanes)
            && let Some(ring) = self.tile_static_wrapped(e, ctxs)
        {
            return Ok(Lanes::Each(self.wrapped_row(e, ring, vty, s, ctxs)?));
        }
        // A column of `tile_static` memory (`t[lx][ly]`): one address, the
        // lanes' elements at fixed distances from it.
        if let Some(bytes) = self.tile_static_byte_step(e, ctxs)
            && bytes != 0
            && e.ty.scalar() == Some(s)
            && let Some(vty) = vector_type(s, lanes)
            && let Some(offsets) = (0..lanes as i64)
                .map(|i| i32::try_from(bytes.checked_mul(i)?).ok())
                .collect::<Option<Vec<i32>>>()
        {
            let at = self.row_address(e, ctxs)?;
            let mut acc: Option<Value> = None;
            for (i, offset) in offsets.into_iter().enumerate() {
                let x = self.b.ins().load(clif_type(s), flags(), at, offset);
                acc = Some(match acc {
                    None => self.b.ins().splat(vty, x),
                    Some(v) => self.b.ins().insertlane(v, x, i as u8),
                });
            }
            if let Some(v) = acc {
                return Ok(Lanes::Each(v));
            }
        }
        if let Some(step) = self.int_lane_step(e)
            && step != 0
            && let Some(vty) = vector_type(s, lanes)
        {
            return self.lane_sequence(e, step, vty, ctxs);
        }
        if self.is_view_row(e, ctxs)
            && let Some(vty) = vector_type(s, lanes)
        {
            let at = self.view_row(e, ctxs)?;
            return Ok(Lanes::Each(self.b.ins().load(vty, vector_flags(), at, 0)));
        }
        match &e.kind {
            // Integer `*`, `/` and `%` have no checked vector form: on
            // vectors only where value ranges show nothing can fail (see
            // `lanes_exact_int`), else the whole operation lane by lane
            // with the scalar code, which knows those ranges too.
            ExprKind::Binary {
                op: op @ (BinOp::Mul | BinOp::Div | BinOp::Rem),
                lhs,
                rhs,
            } if !s.is_floating() && lhs.ty == e.ty && rhs.ty == e.ty => {
                match self.lanes_exact_int(*op, e, lhs, rhs, s, ctxs)? {
                    Some(v) => Ok(v),
                    None => self.lane_by_lane_value(e, s, ctxs),
                }
            }
            ExprKind::Binary { op, lhs, rhs }
                if vector_op(*op) && lhs.ty == e.ty && rhs.ty == e.ty =>
            {
                let a = self.lanes_value(lhs, s, ctxs)?;
                let b = self.lanes_value(rhs, s, ctxs)?;
                if !s.is_floating() && self.range_of(e).is_some() {
                    // In range in every lane: no overflow check.
                    let va = self.each(a, s, lanes);
                    let vb = self.each(b, s, lanes);
                    let r = match op {
                        BinOp::Add => self.b.ins().iadd(va, vb),
                        BinOp::Sub => self.b.ins().isub(va, vb),
                        _ => return self.lanes_binary(*op, s, a, b, lanes),
                    };
                    return Ok(Lanes::Each(r));
                }
                self.lanes_binary(*op, s, a, b, lanes)
            }
            // `int` to `float`, four lanes: the same rounding as the scalar
            // conversion (which converts the value widened to `long`,
            // exactly the same integer).
            ExprKind::Convert(inner)
                if s == Scalar::Float && inner.ty.scalar() == Some(Scalar::Int) && lanes == 4 =>
            {
                match self.lanes_value(inner, Scalar::Int, ctxs)? {
                    Lanes::Same(x) => Ok(Lanes::Same(self.convert(x, Scalar::Int, s)?)),
                    Lanes::Each(v) => Ok(Lanes::Each(self.b.ins().fcvt_from_sint(types::F32X4, v))),
                }
            }
            ExprKind::Unary {
                op: UnOp::Neg,
                operand,
            } if s.is_floating() && operand.ty == e.ty => {
                match self.lanes_value(operand, s, ctxs)? {
                    Lanes::Same(x) => Ok(Lanes::Same(self.b.ins().fneg(x))),
                    Lanes::Each(v) => Ok(Lanes::Each(self.b.ins().fneg(v))),
                }
            }
            _ => self.lane_by_lane_value(e, s, ctxs),
        }
    }

    /// How the integer value of `e` grows from lane to lane, when by a
    /// fixed amount and `e` changes nothing.
    fn int_lane_step(&self, e: &Expr) -> Option<i64> {
        let v = self.vector.as_ref()?;
        if e.ty.scalar().is_none_or(Scalar::is_floating) || !is_pure(e) {
            return None;
        }
        lane_step(e, &v.steps, &v.known, v.axis)
    }

    /// An integer that grows by `step` from lane to lane (a coordinate):
    /// the first lane's value splatted plus `0, step, 2 step, ...`. The
    /// first lane's value and the last's are computed with their checks;
    /// the lanes between lie between them.
    fn lane_sequence(
        &mut self,
        e: &Expr,
        step: i64,
        vty: types::Type,
        ctxs: &mut [LaneCtx],
    ) -> R<Lanes> {
        let first = self.in_lane0(ctxs, |lw| lw.scalar(e))?;
        let n = ctxs.len();
        self.swap_lane(&mut ctxs[n - 1]);
        let last = self.scalar(e);
        self.swap_lane(&mut ctxs[n - 1]);
        last?;
        let lane_bytes = (vty.lane_bits() / 8) as usize;
        let mut bytes = Vec::with_capacity(16);
        for i in 0..n as i64 {
            let k = i.wrapping_mul(step).to_le_bytes();
            bytes.extend_from_slice(&k[..lane_bytes]);
        }
        let offsets = self.b.func.dfg.constants.insert(bytes.into());
        let offsets = self.b.ins().vconst(vty, offsets);
        let base = self.b.ins().splat(vty, first);
        Ok(Lanes::Each(self.b.ins().iadd(base, offsets)))
    }

    /// The value of `e` computed in each lane by the scalar code (with its
    /// checks), put into its lane.
    fn lane_by_lane_value(&mut self, e: &Expr, s: Scalar, ctxs: &mut [LaneCtx]) -> R<Lanes> {
        let Some(vty) = vector_type(s, ctxs.len()) else {
            return decline(Decline::NonScalarWhereScalarExpected);
        };
        let names = self.vector_names_in(e);
        self.unpack_lanes(ctxs, &names);
        let mut acc: Option<Value> = None;
        for (i, ctx) in ctxs.iter_mut().enumerate() {
            self.swap_lane(ctx);
            let r = self.scalar(e);
            self.swap_lane(ctx);
            let x = r?;
            acc = Some(match acc {
                None => self.b.ins().splat(vty, x),
                Some(v) => self.b.ins().insertlane(v, x, i as u8),
            });
        }
        match acc {
            Some(v) => Ok(Lanes::Each(v)),
            None => decline(Decline::NonScalarWhereScalarExpected),
        }
    }

    /// `e`, `lhs op rhs` on 32-bit integers, on vectors when value ranges
    /// show that no lane can overflow, divide by zero or be negative where
    /// that would matter (`None` otherwise): a product in range is one
    /// vector multiplication; a quotient or remainder of a value in `[0,
    /// 2^24)` by one in `[1, 2^24)` is computed in `float`, exact there
    /// (both operands are exact floats, and a quotient rounded to the
    /// nearest float never reaches the next integer: `x / d` is at least
    /// `1 / d` below it, more than half a unit in the last place of a
    /// value below `2^24 / d`), and by a power of two it is a shift or a
    /// mask.
    fn lanes_exact_int(
        &mut self,
        op: BinOp,
        e: &Expr,
        lhs: &Expr,
        rhs: &Expr,
        s: Scalar,
        ctxs: &mut [LaneCtx],
    ) -> R<Option<Lanes>> {
        let lanes = ctxs.len();
        if !matches!(s, Scalar::Int | Scalar::UInt)
            || vector_type(s, lanes) != Some(types::I32X4)
            || self.range_of(e).is_none()
        {
            return Ok(None);
        }
        const EXACT: i64 = 1 << 24;
        let divisor = const_int(rhs);
        let power_of_two = divisor.filter(|d| *d > 0 && (*d & (*d - 1)) == 0);
        // Whether a quotient is computed in `double` (operands below 2^31:
        // exact there by the same argument, with 53 bits).
        let mut in_double = false;
        match op {
            BinOp::Mul => {}
            BinOp::Div | BinOp::Rem if power_of_two.is_some() => {}
            _ => {
                let (Some(a), Some(b)) = (self.range_of(lhs), self.range_of(rhs)) else {
                    return Ok(None);
                };
                let max = i64::from(i32::MAX);
                if a.0 < 0 || a.1 > max || b.0 < 1 || b.1 > max {
                    return Ok(None);
                }
                in_double = a.1 >= EXACT || b.1 >= EXACT;
            }
        }
        let a = self.lanes_value(lhs, s, ctxs)?;
        let b = self.lanes_value(rhs, s, ctxs)?;
        if let (Lanes::Same(x), Lanes::Same(y)) = (a, b) {
            return Ok(Some(Lanes::Same(self.binary(op, s, x, y, s)?)));
        }
        let va = self.each(a, s, lanes);
        let r = match (op, power_of_two) {
            (BinOp::Mul, _) => {
                let vb = self.each(b, s, lanes);
                self.b.ins().imul(va, vb)
            }
            (BinOp::Div, Some(d)) => self.b.ins().ushr_imm_s(va, i64::from(d.trailing_zeros())),
            (BinOp::Rem, Some(d)) => {
                let mask = self.b.ins().iconst(types::I32, d - 1);
                let mask = self.b.ins().splat(types::I32X4, mask);
                self.b.ins().band(va, mask)
            }
            _ => {
                let vb = self.each(b, s, lanes);
                let q = if in_double {
                    self.quotient_in_double(va, vb)
                } else {
                    let fa = self.b.ins().fcvt_from_sint(types::F32X4, va);
                    let fb = self.b.ins().fcvt_from_sint(types::F32X4, vb);
                    let fq = self.b.ins().fdiv(fa, fb);
                    self.b.ins().fcvt_to_sint_sat(types::I32X4, fq)
                };
                if op == BinOp::Div {
                    q
                } else {
                    let p = self.b.ins().imul(q, vb);
                    self.b.ins().isub(va, p)
                }
            }
        };
        Ok(Some(Lanes::Each(r)))
    }

    /// The lanes' quotients `a / b` of `int`s known to lie in `[0, 2^31)`
    /// and `[1, 2^31)`, computed in `double` two lanes at a time (the
    /// conversions are the ones x86-64 has for two lanes: `cvtdq2pd`,
    /// `cvttpd2dq`).
    fn quotient_in_double(&mut self, a: Value, b: Value) -> Value {
        let bytes =
            |lw: &mut Self, order: [u8; 16]| lw.b.func.dfg.immediates.push(order.to_vec().into());
        let lanes = MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little);
        let mut low_high = [0u8; 16];
        for (i, byte) in low_high.iter_mut().enumerate() {
            *byte = ((i + 8) % 16) as u8;
        }
        let swap = bytes(self, low_high);
        // Lanes 2 and 3 moved to 0 and 1.
        let high = |lw: &mut Self, v: Value| {
            let x = lw.b.ins().bitcast(types::I8X16, lanes, v);
            let x = lw.b.ins().shuffle(x, x, swap);
            lw.b.ins().bitcast(types::I32X4, lanes, x)
        };
        let zero = self.b.func.dfg.constants.insert(vec![0u8; 16].into());
        let mut halves = Vec::with_capacity(2);
        for (x, y) in [(a, b), (high(self, a), high(self, b))] {
            let wx = self.b.ins().swiden_low(x);
            let fx = self.b.ins().fcvt_from_sint(types::F64X2, wx);
            let wy = self.b.ins().swiden_low(y);
            let fy = self.b.ins().fcvt_from_sint(types::F64X2, wy);
            let fq = self.b.ins().fdiv(fx, fy);
            let q = self.b.ins().fcvt_to_sint_sat(types::I64X2, fq);
            let zeros = self.b.ins().vconst(types::I64X2, zero);
            let q = self.b.ins().snarrow(q, zeros);
            halves.push(self.b.ins().bitcast(types::I8X16, lanes, q));
        }
        // The low two lanes of each: bytes 0-7 of the first, 0-7 of the second.
        let mut join = [0u8; 16];
        for (i, byte) in join.iter_mut().enumerate() {
            *byte = if i < 8 { i as u8 } else { (i + 8) as u8 };
        }
        let join = bytes(self, join);
        let q = self.b.ins().shuffle(halves[0], halves[1], join);
        self.b.ins().bitcast(types::I32X4, lanes, q)
    }

    /// `a op b` in every lane, both of type `s`.
    fn lanes_binary(&mut self, op: BinOp, s: Scalar, a: Lanes, b: Lanes, lanes: usize) -> R<Lanes> {
        if let (Lanes::Same(x), Lanes::Same(y)) = (a, b) {
            return Ok(Lanes::Same(self.binary(op, s, x, y, s)?));
        }
        let va = self.each(a, s, lanes);
        let vb = self.each(b, s, lanes);
        let ins = self.b.ins();
        let r = match (op, s.is_floating()) {
            (BinOp::Add, true) => ins.fadd(va, vb),
            (BinOp::Sub, true) => ins.fsub(va, vb),
            (BinOp::Mul, true) => ins.fmul(va, vb),
            (BinOp::Div, true) => ins.fdiv(va, vb),
            (BinOp::BitAnd, false) => ins.band(va, vb),
            (BinOp::BitOr, false) => ins.bor(va, vb),
            (BinOp::BitXor, false) => ins.bxor(va, vb),
            (BinOp::Add | BinOp::Sub, false) => {
                let add = op == BinOp::Add;
                let r = if add {
                    ins.iadd(va, vb)
                } else {
                    ins.isub(va, vb)
                };
                if !s.is_unsigned() {
                    // Signed overflow in a lane: the result's sign differs
                    // from both operands' (addition), or from the first
                    // operand's where the operands' signs differ
                    // (subtraction).
                    let x = self.b.ins().bxor(va, r);
                    let y = if add {
                        self.b.ins().bxor(vb, r)
                    } else {
                        self.b.ins().bxor(va, vb)
                    };
                    let both = self.b.ins().band(x, y);
                    let vty = self.b.func.dfg.value_type(both);
                    let zero = self.zero(s);
                    let zeros = self.b.ins().splat(vty, zero);
                    let negative = self.b.ins().icmp(IntCC::SignedLessThan, both, zeros);
                    let any = self.b.ins().vany_true(negative);
                    self.fail_if(any);
                }
                r
            }
            _ => {
                // Lane by lane, with the scalar checks (division by zero,
                // `INT_MIN / -1`, multiplication overflow, `fmod`).
                let mut acc = va;
                for i in 0..lanes {
                    let x = self.b.ins().extractlane(va, i as u8);
                    let y = self.b.ins().extractlane(vb, i as u8);
                    let r = self.binary(op, s, x, y, s)?;
                    acc = self.b.ins().insertlane(acc, r, i as u8);
                }
                acc
            }
        };
        Ok(Lanes::Each(r))
    }
}
