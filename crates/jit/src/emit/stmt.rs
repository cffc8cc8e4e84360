//! Statements inside a region: blocks, loops, declarations, control flow.

use super::*;
use tessera_runtime::launch::HostExitKind;

impl Emitter<'_, '_, '_> {
    /// A loop inside a region, for one work-item or for the lanes (whose
    /// condition and step are lane 0's: they are the same in every lane).
    pub(super) fn emit_loop(&mut self, s: &Stmt, mut lanes: Option<&mut [LaneCtx]>) -> R<()> {
        let StmtKind::Loop {
            cond,
            test_first,
            body,
            step,
        } = &s.kind
        else {
            return decline(Decline::LoopAnotherKind);
        };
        if let Some((counter, values)) =
            self.facts
                .unrolled(self.scope().id, self.facts.prev_init.clone(), s)
        {
            let done = match lanes.as_deref_mut() {
                None => self.unrolled_loop(counter, &values, body)?,
                Some(ctxs) => self.unrolled_lanes_loop(counter, &values, body, ctxs)?,
            };
            if done {
                return Ok(());
            }
        }
        // A counted loop: the counter's range holds in the body and the step.
        let counted = if *test_first {
            self.facts
                .counted_loop(self.scope().id, cond.as_ref(), step.as_ref(), body)
        } else {
            None
        };
        // A short loop nest never polls (the loops around it are charged
        // for its iterations); any other loop polls every iteration,
        // charged for the short nests inside too.
        let uncharged = self
            .facts
            .short_loop(self.scope().id, self.facts.prev_init.clone(), s)
            .is_some();
        let charge = self.facts.loop_charge(self.scope().id, body);
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
        let saved = counted.map(|counted| self.facts.enter_counted(counted));
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
            match lanes.as_deref_mut() {
                Some(ctxs) => self.in_lane0(ctxs, |lw| lw.expr(step).map(|_| ()))?,
                None => {
                    self.expr(step)?;
                }
            }
        }
        if let Some(saved) = saved {
            self.facts.leave_counted(saved);
        }
        if !uncharged {
            self.poll_point(charge)?;
        }
        // The condition is tested again at the bottom (the loop rotated):
        // the iterations then run through one contiguous stretch of code
        // with one branch back, whose speed depends less on where the
        // code generator happens to place the loop's blocks.
        match cond {
            Some(c) if *test_first => {
                let c = match lanes {
                    Some(ctxs) => self.in_lane0(ctxs, |lw| lw.scalar(c))?,
                    None => self.scalar(c)?,
                };
                self.b.ins().brif(c, body_blk, &[], exit, &[]);
            }
            _ => {
                self.b.ins().jump(test, &[]);
            }
        }
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// A loop emitted once per iteration (see [`Facts::unrolled`]): the
    /// counter is each of `values` in turn, known in the body as that
    /// constant, and is left one past the last, as the loop leaves it.
    /// False, with nothing emitted, when the counter is not a variable.
    fn unrolled_loop(&mut self, counter: LocalId, values: &[i64], body: &IrBlock) -> R<bool> {
        let Some(Slot::Vars(vars)) = self.scope().slots.get(&counter).cloned() else {
            return Ok(false);
        };
        let [var] = vars.as_slice() else {
            return Ok(false);
        };
        let scope = self.scope().id;
        let ty = self
            .prog
            .function(self.scope().func)
            .local(counter)
            .ty
            .clone();
        let Type::Scalar(sc) = ty else {
            return Ok(false);
        };
        let cty = clif_type(sc);
        for &v in values {
            let c = self.b.ins().iconst(cty, v);
            self.b.def_var(*var, c);
            let saved = self.facts.enter_counted(((scope, counter), (v, v), 1));
            let r = self.stmts(&body.stmts);
            self.facts.leave_counted(saved);
            r?;
        }
        if let Some(last) = values.last() {
            let c = self.b.ins().iconst(cty, last.saturating_add(1));
            self.b.def_var(*var, c);
        }
        Ok(true)
    }

    /// [`Emitter::unrolled_loop`] for the lanes of a region: the counter is
    /// one variable every lane shares (a loop runs once for the lanes), a
    /// constant in each copy of the body. False, with nothing emitted, when
    /// the lanes do not share it.
    fn unrolled_lanes_loop(
        &mut self,
        counter: LocalId,
        values: &[i64],
        body: &IrBlock,
        ctxs: &mut [LaneCtx],
    ) -> R<bool> {
        let shared = |ctx: &LaneCtx| match ctx.slots.get(&counter) {
            Some(Slot::Vars(vars)) if vars.len() == 1 => Some(vars[0]),
            _ => None,
        };
        let Some(var) = ctxs.first().and_then(shared) else {
            return Ok(false);
        };
        if ctxs.iter().any(|c| shared(c) != Some(var)) {
            return Ok(false);
        }
        let scope = self.scope().id;
        let Type::Scalar(sc) = self.prog.function(self.scope().func).local(counter).ty else {
            return Ok(false);
        };
        let cty = clif_type(sc);
        for &v in values {
            let c = self.b.ins().iconst(cty, v);
            self.b.def_var(var, c);
            let saved = self.facts.enter_counted(((scope, counter), (v, v), 1));
            let r = self.lane_stmts(&body.stmts, ctxs);
            self.facts.leave_counted(saved);
            r?;
        }
        if let Some(last) = values.last() {
            let c = self.b.ins().iconst(cty, last.saturating_add(1));
            self.b.def_var(var, c);
        }
        Ok(true)
    }

    pub(super) fn stmts(&mut self, stmts: &[Stmt]) -> R<()> {
        let mut prev: Option<&Stmt> = None;
        for s in stmts {
            self.facts.set_prev(prev);
            self.stmt(s)?;
            prev = Some(s);
        }
        self.facts.set_prev(None);
        Ok(())
    }

    /// Branches on `c`: creates the block taken when it is nonzero, the
    /// one taken otherwise and the block where both join, and continues
    /// in the first. Gives the second and the join.
    pub(super) fn branch_on(&mut self, c: Value) -> (Block, Block) {
        let taken = self.b.create_block();
        let other = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(c, taken, &[], other, &[]);
        self.b.switch_to_block(taken);
        (other, join)
    }

    pub(super) fn dead_block(&mut self) {
        let b = self.b.create_block();
        self.b.switch_to_block(b);
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> R<()> {
        self.spend()?;
        match &s.kind {
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Let { local, init } => self.let_local(*local, init.as_ref())?,
            StmtKind::Block(b) => self.stmts(&b.stmts)?,
            StmtKind::If { cond, then, els } => {
                let c = self.scalar(cond)?;
                let (e, join) = self.branch_on(c);
                if !self.host_exit(HostExitKind::Branch {
                    stmt: s.id,
                    then: true,
                })? && !self.host_bail(s.id, true)
                {
                    self.stmts(&then.stmts)?;
                }
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(e);
                if let Some(els) = els
                    && !self.host_exit(HostExitKind::Branch {
                        stmt: s.id,
                        then: false,
                    })?
                    && !self.host_bail(s.id, false)
                {
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
                    return decline(Decline::BreakOutsideLoop);
                };
                if t.region != region {
                    return decline(Decline::BreakOutOfLoopWithBarrier);
                }
                let brk = t.brk;
                self.b.ins().jump(brk, &[]);
                self.dead_block();
            }
            StmtKind::Continue => {
                let region = self.region_id();
                let Some(t) = self.loops.iter().rev().find(|t| t.cont.is_some()) else {
                    return decline(Decline::ContinueOutsideLoop);
                };
                if t.region != region {
                    return decline(Decline::ContinueInLoopWithBarrier);
                }
                let cont = t.cont.unwrap_or(t.brk);
                self.b.ins().jump(cont, &[]);
                self.dead_block();
            }
            StmtKind::Return(_) if self.host_exit(HostExitKind::Return(s.id))? => {}
            StmtKind::Return(value) if self.scopes.len() > 1 && self.scope().waits => {
                // In a function with barriers' last region (see
                // `Emitter::barrier_call`): its value into its frame slot,
                // then the end of the work-item's part of the region.
                if let Some(v) = value {
                    let lowered = self.expr(v)?;
                    if let Some(slot) = self.scope().ret_frame {
                        let ty = self.prog.function(self.scope().func).ret.clone();
                        let addr = self.frame_addr(slot);
                        self.store_value(addr, &ty, &lowered)?;
                    }
                }
                let Some(r) = &self.region else {
                    return decline(Decline::ReturnBetweenBarriers);
                };
                let end = r.item_end;
                self.b.ins().jump(end, &[]);
                self.dead_block();
            }
            StmtKind::Return(value) => {
                if self.scopes.len() > 1 {
                    let ret = self.scope().ret.clone();
                    let Some((blk, vars, ty)) = ret else {
                        return decline(Decline::ReturnHere);
                    };
                    if let Some(v) = value
                        && self.scope().ret_ref.is_some()
                    {
                        self.return_ref(v)?;
                    } else if let Some(v) = value
                        && let Some(fields) = self.scope().ret_obj.clone()
                    {
                        let V::Obj(values) = self.expr(v)? else {
                            return decline(Decline::ReturningValueType);
                        };
                        self.write_fields(&fields, &values)?;
                    } else if let Some(v) = value {
                        let lowered = self.expr(v)?;
                        match self.scope().ret_mem {
                            Some(ss) => {
                                let at = self.slot_addr(&Slot::Stack(ss))?;
                                self.store_value(at, &ty, &lowered)?;
                            }
                            None => self.assign_vars(&vars, &lowered, &ty)?,
                        }
                    }
                    self.b.ins().jump(blk, &[]);
                } else {
                    let Some(r) = &self.region else {
                        return decline(Decline::ReturnBetweenBarriers);
                    };
                    let end = r.item_end;
                    if let Some(ret) = self.returned {
                        // Counted, and skipped by the tile's later regions.
                        let addr = self.frame_addr(ret.slot);
                        let one = self.b.ins().iconst(types::I8, 1);
                        self.b.ins().store(flags(), one, addr, 0);
                        let n = self.b.use_var(ret.count);
                        let n1 = self.b.ins().iadd_imm_s(n, 1);
                        self.b.def_var(ret.count, n1);
                    } else if self.layout.frame_bytes > 0 && !self.last_region {
                        return decline(Decline::ReturnBeforeBarrier);
                    }
                    self.b.ins().jump(end, &[]);
                }
                self.dead_block();
            }
            StmtKind::Barrier(_) => return decline(Decline::BarrierInsideWorkItemLoop),
            StmtKind::Try { .. } => return decline(Decline::Exceptions),
            StmtKind::Goto(_) | StmtKind::Label(_) => return decline(Decline::Goto),
        }
        Ok(())
    }

    pub(super) fn let_local(&mut self, l: LocalId, init: Option<&Init>) -> R<()> {
        let func = self.scope().func;
        let local = self.prog.function(func).local(l);
        let ty = local.ty.clone();
        if local.space == Space::TileStatic {
            // Shared by the tile: its one instance lives in scratch memory.
            if init.is_some_and(|i| !matches!(i, Init::Zero)) {
                return decline(Decline::InitialisedTileStaticVariable);
            }
            if !self.scope().slots.contains_key(&l) {
                return decline(Decline::TileStaticVariableCalledFunction);
            }
            return Ok(());
        }
        if local.by_ref {
            let Some(Init::Ref(target)) = init else {
                return decline(Decline::ReferenceWithoutTarget);
            };
            let slot = self.bind_ref(target, &ty)?;
            // Its address kept for the later regions (see
            // `Facts::ref_addressed`): only a place in memory has one.
            if self.addressed_ref(l)
                && let Some(&off) = self.scope().frame.get(&l)
            {
                let Slot::Ref(Place::Mem(addr, _)) = &slot else {
                    return decline(Decline::ReferenceDeclaredBetweenBarriers);
                };
                let addr = *addr;
                let at = self.frame_addr(off);
                self.b.ins().store(flags(), addr, at, 0);
            }
            self.scope_mut().slots.insert(l, slot);
            return Ok(());
        }
        // A copy of a captured struct holding views that nothing changes
        // afterwards reads as the capture itself (neither ever changes).
        if places::held_views(self.prog, &ty)
            && let Some(Init::Expr(e)) = init
            && captured_object(e)
            && !crate::plan::locals::written_objects(self.prog, self.prog.function(func))
                .contains(&l)
        {
            let fields = self.obj_fields(e)?;
            self.scope_mut()
                .slots
                .insert(l, Slot::Ref(Place::Obj(fields)));
            return Ok(());
        }
        // Any other struct holding views: an object of its own, field by
        // field.
        if places::held_views(self.prog, &ty) {
            let fields = match init {
                Some(Init::Expr(e)) => {
                    let v = self.expr(e)?;
                    self.object_copy(&ty, &v)?
                }
                None | Some(Init::Zero) => self.new_fields(&ty)?,
                Some(Init::List(items)) => {
                    let fields = self.new_fields(&ty)?;
                    self.init_fields(&fields, &ty, items)?;
                    fields
                }
                Some(_) => return decline(Decline::AggregateType),
            };
            self.scope_mut()
                .slots
                .insert(l, Slot::Ref(Place::Fields(fields)));
            return Ok(());
        }
        match &ty {
            // A scalar whose address is taken lives in memory, which the
            // pointers to it read and write (see `address_taken`).
            Type::Scalar(s) if self.address_taken(func, l) => {
                let addr = match self.scope().frame.get(&l).copied() {
                    Some(off) => {
                        self.scope_mut().slots.insert(l, Slot::Frame(off));
                        self.frame_addr(off)
                    }
                    None => self.aggregate_slot(l, &ty)?,
                };
                let v = match init {
                    Some(Init::Expr(e)) => self.scalar(e)?,
                    _ => self.zero(*s),
                };
                self.b.ins().store(flags(), v, addr, 0);
            }
            Type::Scalar(s) => {
                let vars = self.local_vars(l, &ty, 1);
                let (scope, func) = (self.scope().id, self.scope().func);
                self.facts.declare_scalar(scope, func, l, init);
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
                                return decline(Decline::NestedInitialiserIndex);
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
            Type::Ptr { .. } => self.let_pointer(l, init)?,
            Type::ArrayView { .. } | Type::Array(..) => {
                let Some(Init::Expr(e)) = init else {
                    return decline(Decline::ViewLocalWithoutValue);
                };
                let V::View(v) = self.expr(e)? else {
                    return decline(Decline::ViewLocalKind);
                };
                // A view the function assigns another view to (`v = w;`)
                // is held in variables, which the assignment sets.
                let assigned =
                    crate::plan::locals::written_objects(self.prog, self.prog.function(func))
                        .contains(&l);
                let slot = if assigned {
                    Slot::Ref(Place::ViewVars(self.view_vars(&v)))
                } else {
                    Slot::View(v)
                };
                self.scope_mut().slots.insert(l, slot);
            }
            Type::Struct(_) | Type::CArray(..) => {
                let addr = self.aggregate_slot(l, &ty)?;
                match init {
                    None | Some(Init::Zero) => self.zero_mem(addr, &ty)?,
                    Some(i) => self.init_mem(addr, &ty, i)?,
                }
            }
            other => {
                return decline(Decline::LocalType(tessera_ir::display(
                    other,
                    &self.prog.structs,
                )));
            }
        }
        Ok(())
    }

    /// What a reference of type `ty` bound to `a` names: the place `a` is,
    /// or, for a value (`const T&` bound to `x + 1`), a temporary holding it
    /// that nothing can write.
    pub(super) fn bind_ref(&mut self, a: &Expr, ty: &Type) -> R<Slot> {
        // A vector or view is a handle on its elements, a view already.
        if matches!(
            ty,
            Type::Vector(_) | Type::Array(..) | Type::ArrayView { .. }
        ) {
            return match self.expr(a)? {
                V::View(v) => Ok(Slot::View(v)),
                _ => decline(Decline::ValueWhereViewExpected),
            };
        }
        // A `tiled_index` has only const members: a reference to the
        // kernel's is the kernel's, read where it is used.
        if matches!(ty, Type::TiledIndex(_)) {
            return match self.expr(a)? {
                V::Tiled => Ok(Slot::Tiled),
                _ => decline(Decline::TiledIndexNotKernels),
            };
        }
        // A kernel's captured scalar, index or extent is a value no
        // work-item can change (the kernel's lambda is `const`): a
        // reference to it reads a copy.
        let captured_value = self.host.is_none()
            && matches!(a.kind, ExprKind::Capture(slot)
                if matches!(self.entry.caps.get(slot as usize), Some(V::S(_) | V::Shape(_))));
        // A union member itself, or a reference to one: checked at each
        // use.
        if let ExprKind::Local(l) = &a.kind
            && let Some(Slot::MemberRef(m)) = self.scope().slots.get(l)
        {
            return Ok(Slot::MemberRef(std::rc::Rc::clone(m)));
        }
        if let ExprKind::Field { base, field } = &a.kind
            && a.binds_place()
            && self.union_def(&base.ty).is_some()
        {
            let object = self.root_path(base).map(|(root, mut path)| {
                path.push(*field);
                (root, path)
            });
            let (addr, ty, member) = self.member_address(base, *field)?;
            return Ok(Slot::MemberRef(std::rc::Rc::new(unions::MemberRef {
                member,
                addr,
                ty,
                object,
            })));
        }
        if a.binds_place() && !captured_value {
            // A union member further on the way declines
            // (`Access::Unknown`).
            return Ok(Slot::Ref(self.place(a)?));
        }
        Ok(match self.expr(a)? {
            V::S(x) => {
                let t = self.b.func.dfg.value_type(x);
                let var = self.var(t);
                self.b.def_var(var, x);
                Slot::Vars(vec![var])
            }
            V::Shape(cs) => {
                let vars: Vec<Variable> = cs.iter().map(|_| self.var(types::I32)).collect();
                for (v, c) in vars.iter().zip(cs) {
                    self.b.def_var(*v, c);
                }
                Slot::Vars(vars)
            }
            V::Mem(addr) => Slot::Ref(Place::Mem(addr, ty.clone())),
            V::View(v) => Slot::View(v),
            V::Tiled => Slot::Tiled,
            V::Obj(fields) => Slot::Ref(Place::Obj(fields)),
            V::Unit => return decline(Decline::ReferenceToNothing),
        })
    }
}

/// Whether `e` names a captured object or a field of one: a copy of it
/// that nothing changes can be the capture itself.
fn captured_object(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Capture(_) => true,
        ExprKind::Field { base, .. } | ExprKind::Convert(base) => captured_object(base),
        _ => false,
    }
}
