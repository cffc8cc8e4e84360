//! Regions and tile loops: the barrier split of a tiled kernel into
//! work-item loops, statements at the level of the barriers (uniform or
//! checked-uniform conditions, calls of functions with barriers), frames and
//! polls.

use super::*;

impl Emitter<'_, '_, '_> {
    /// A non-tiled chunk: work-items `group * CHUNK ..` up to the total.
    /// `param`: the variables of the index parameter when the kernel
    /// writes it (else it reads the loop's counter itself). A body that can
    /// run in lanes (see [`Facts::flat_lane_shape`]) runs four work-items
    /// per step while four are left in both the row and the chunk, and one
    /// at a time with the scalar code otherwise. Every lane is then a
    /// work-item of the launch, so an element at a lane's own coordinates
    /// is in a covering view.
    pub(super) fn flat_loop(
        &mut self,
        group: Value,
        body: &IrBlock,
        param: Option<&[Variable]>,
    ) -> R<()> {
        let lanes = match param {
            None => self.facts.flat_lane_shape(&body.stmts),
            Some(_) => None,
        };
        // A launch whose rows are all shorter than a step of lanes (this
        // code's extent bound says so) never takes one: no vector code to
        // compile for it.
        let row_bound = self.layout.extent_bound.last().copied().unwrap_or(0);
        let lanes = lanes.filter(|shape| row_bound >= shape.lanes as i64);
        let (end, exts) = self.chunk_start(group);
        let rank = exts.len();
        let n = self.var(types::I64);
        let start = self.b.ins().imul_imm_s(group, CHUNK);
        self.b.def_var(n, start);
        let head = self.b.create_block();
        let body_blk = self.b.create_block();
        let item_end = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let nv = self.b.use_var(n);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, nv, end);
        if let Some(shape) = &lanes {
            let choose = self.b.create_block();
            let lanes_blk = self.b.create_block();
            self.b.ins().brif(more, choose, &[], exit, &[]);
            self.b.switch_to_block(choose);
            // As many more in the chunk, and in the row: the last
            // coordinate plus the lanes at most the last extent.
            let step = shape.lanes as i64;
            let nv = self.b.use_var(n);
            let n_after = self.b.ins().iadd_imm_s(nv, step);
            let in_chunk = self
                .b
                .ins()
                .icmp(IntCC::UnsignedLessThanOrEqual, n_after, end);
            let c = self.b.use_var(self.wi.item_coords[rank - 1]);
            let c = self.b.ins().sextend(types::I64, c);
            let c_after = self.b.ins().iadd_imm_s(c, step);
            let in_row = self
                .b
                .ins()
                .icmp(IntCC::SignedLessThanOrEqual, c_after, exts[rank - 1]);
            let both = self.b.ins().band(in_chunk, in_row);
            // One work-item at a time only at the end of a chunk or a row.
            self.b.set_cold_block(body_blk);
            self.b.ins().brif(both, lanes_blk, &[], body_blk, &[]);
            self.b.switch_to_block(lanes_blk);
            let coords = self.wi.item_coords.clone();
            self.lanes_step(
                &coords,
                &BTreeSet::new(),
                &HashSet::new(),
                &body.stmts,
                (shape.lanes, 1),
                &shape.shared,
            )?;
            self.next_item(n, &exts, step);
            self.b.ins().jump(head, &[]);
        } else {
            self.b.ins().brif(more, body_blk, &[], exit, &[]);
        }
        self.b.switch_to_block(body_blk);
        let id = self.next_region;
        self.next_region += 1;
        self.region = Some(RegionCtx { id, item_end });
        // A kernel that writes its index parameter writes its own copy.
        for (p, c) in param.unwrap_or(&[]).iter().zip(&self.wi.item_coords) {
            let v = self.b.use_var(*c);
            self.b.def_var(*p, v);
        }
        self.stmts(&body.stmts)?;
        self.region = None;
        self.b.ins().jump(item_end, &[]);
        self.b.switch_to_block(item_end);
        self.next_item(n, &exts, 1);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// The end of a non-tiled chunk (its first work-item's number plus
    /// [`CHUNK`], at most the total) and the launch's extent, with the
    /// coordinates of the chunk's first work-item set (by division).
    fn chunk_start(&mut self, group: Value) -> (Value, Vec<Value>) {
        let rank = self.layout.rank as usize;
        let total = self.word(self.layout.extent_word + 2 * rank as u32);
        let start = self.b.ins().imul_imm_s(group, CHUNK);
        let end0 = self.b.ins().iadd_imm_s(start, CHUNK);
        let end = self.b.ins().umin(end0, total);
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
            self.b.def_var(self.wi.item_coords[d], c32);
        }
        (end, exts)
    }

    /// Steps the work-item counter `n` and the coordinates `step`
    /// work-items on, last dimension fastest: a step never passes the end
    /// of a row, so reaching it starts the next row.
    fn next_item(&mut self, n: Variable, exts: &[Value], step: i64) {
        let rank = exts.len();
        let nv = self.b.use_var(n);
        let n1 = self.b.ins().iadd_imm_s(nv, step);
        self.b.def_var(n, n1);
        let mut carry_blocks = Vec::new();
        for d in (0..rank).rev() {
            let v = self.b.use_var(self.wi.item_coords[d]);
            let v1 = self
                .b
                .ins()
                .iadd_imm_s(v, if d == rank - 1 { step } else { 1 });
            if d == 0 {
                self.b.def_var(self.wi.item_coords[d], v1);
                break;
            }
            let e32 = self.b.ins().ireduce(types::I32, exts[d]);
            let wrapped = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, v1, e32);
            let zero = self.b.ins().iconst(types::I32, 0);
            let nv = self.b.ins().select(wrapped, zero, v1);
            self.b.def_var(self.wi.item_coords[d], nv);
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
    }

    /// Emits `emit_body` once per work-item of the tile, loading the frame
    /// locals in `uses` before and storing them after.
    pub(super) fn item_loop(
        &mut self,
        uses: &BTreeSet<LocalId>,
        stores: &HashSet<LocalId>,
        limit: Option<Value>,
        emit_body: &mut dyn FnMut(&mut Self) -> R<()>,
    ) -> R<()> {
        let Some(shape) = self.layout.tile else {
            return decline(Decline::WorkItemLoopOutsideTiledKernel);
        };
        let count_items = self.wi.need_item;
        if count_items {
            let zero64 = self.b.ins().iconst(types::I64, 0);
            self.b.def_var(self.wi.item, zero64);
        }
        let tile_loops = self.open_tile_loops(shape, limit);
        let saved_coords = std::mem::replace(&mut self.wi.item_coords, tile_loops.coords.clone());
        self.region_body(uses, stores, emit_body)?;
        if count_items {
            let it = self.b.use_var(self.wi.item);
            let it1 = self.b.ins().iadd_imm_s(it, 1);
            self.b.def_var(self.wi.item, it1);
        }
        self.close_tile_loops(&tile_loops, 1);
        self.wi.item_coords = saved_coords;
        Ok(())
    }

    /// Emits `body` for the one work-item at local coordinates `at` (see
    /// [`pinned_item`]), loading the frame locals in `uses` before and
    /// storing those in `stores` after.
    pub(super) fn single_item(
        &mut self,
        uses: &BTreeSet<LocalId>,
        stores: &HashSet<LocalId>,
        at: &[i64],
        body: &IrBlock,
    ) -> R<()> {
        let Some(shape) = self.layout.tile else {
            return decline(Decline::WorkItemLoopOutsideTiledKernel);
        };
        let coords = self.pin_item(at, shape);
        let saved_coords = std::mem::replace(&mut self.wi.item_coords, coords);
        let result = self.region_body(uses, stores, &mut |e| e.stmts(&body.stmts));
        self.wi.item_coords = saved_coords;
        result
    }

    /// Makes the work-item at local coordinates `at` the current one: its
    /// number in the tile (last dimension fastest, as the tile loops count
    /// it) for its frame, and variables holding its coordinates.
    pub(super) fn pin_item(&mut self, at: &[i64], shape: TileShape) -> Vec<Variable> {
        let number = at
            .iter()
            .zip(shape.dims())
            .fold(0i64, |n, (c, d)| n * i64::from(*d) + c);
        let number_v = self.b.ins().iconst(types::I64, number);
        if self.wi.need_item {
            self.b.def_var(self.wi.item, number_v);
        }
        self.b.def_var(self.wi.frame_item, number_v);
        at.iter()
            .map(|&c| {
                let var = self.var(types::I32);
                let v = self.b.ins().iconst(types::I32, c);
                self.b.def_var(var, v);
                var
            })
            .collect()
    }

    /// One work-item's code in a region: the frame locals in `uses` loaded
    /// into variables, `emit_body`, then those in `stores` written back to
    /// the frame. A `return` in the body jumps to the region's end, where
    /// the stores are.
    fn region_body(
        &mut self,
        uses: &BTreeSet<LocalId>,
        stores: &HashSet<LocalId>,
        emit_body: &mut dyn FnMut(&mut Self) -> R<()>,
    ) -> R<()> {
        let item_end = self.b.create_block();
        let id = self.next_region;
        self.next_region += 1;
        // A work-item that has returned takes no part (see [`Returned`]).
        let skip = self.returned.map(|r| {
            let addr = self.frame_addr(r.slot);
            let gone = self.b.ins().load(types::I8, flags(), addr, 0);
            let run = self.b.create_block();
            let skip = self.b.create_block();
            self.b.ins().brif(gone, skip, &[], run, &[]);
            self.b.switch_to_block(run);
            skip
        });
        let saved_region = self.region.replace(RegionCtx { id, item_end });
        let result = (|| -> R<()> {
            self.load_frame_locals(uses)?;
            emit_body(self)?;
            self.b.ins().jump(item_end, &[]);
            self.b.switch_to_block(item_end);
            self.store_frame_locals(stores)
        })();
        self.region = saved_region;
        if let Some(skip) = skip {
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        result
    }

    /// After a region in which work-items may have returned: a tile whose
    /// work-items have all returned is done (see [`Returned`]).
    fn done_if_all_returned(&mut self, stmts: &[Stmt]) {
        let Some(r) = self.returned else { return };
        let Some(shape) = self.layout.tile else {
            return;
        };
        if self.scopes.len() != 1 || !stmts.iter().any(stmt_has_return) {
            return;
        }
        let count = self.b.use_var(r.count);
        let all = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, count, shape.threads() as i64);
        let go = self.b.create_block();
        self.b.ins().brif(all, r.done, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    /// A barrier: reached while some work-items have returned, it is a
    /// divergence (see [`Returned`]); the interpreter reports it.
    fn barrier_after_returns(&mut self) {
        let Some(r) = self.returned else { return };
        let count = self.b.use_var(r.count);
        let go = self.b.create_block();
        self.b.ins().brif(count, self.entry.fail, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    /// The current work-item's start of a region: the locals in `uses`
    /// that live in the frame loaded into its variables, then those the
    /// plan computes again from the tiled index.
    pub(super) fn load_frame_locals(&mut self, uses: &BTreeSet<LocalId>) -> R<()> {
        let func = self.scope().func;
        let frame: Vec<(LocalId, FrameSlot)> = uses
            .iter()
            .filter_map(|l| self.scope().frame.get(l).map(|&off| (*l, off)))
            .collect();
        for (l, off) in frame {
            let ty = self.prog.function(func).local(l).ty.clone();
            self.frame_to_vars(l, off, &ty)?;
        }
        self.remat_locals(uses)
    }

    /// The current work-item's end of a region: the locals in `stores`
    /// that live in the frame stored from its variables, in slot order.
    pub(super) fn store_frame_locals(&mut self, stores: &HashSet<LocalId>) -> R<()> {
        let func = self.scope().func;
        let mut written: Vec<(LocalId, FrameSlot)> = stores
            .iter()
            .filter_map(|l| self.scope().frame.get(l).map(|&off| (*l, off)))
            .collect();
        written.sort();
        for (l, off) in written {
            let ty = self.prog.function(func).local(l).ty.clone();
            self.vars_to_frame(l, off, &ty)?;
        }
        Ok(())
    }

    /// Opens nested loops over a tile's local dimensions (the last
    /// innermost), each coordinate from 0, the frame pointer at the first
    /// work-item's frame. `limit`: the first dimension's coordinates stop
    /// below it too (see [`row_limit`]): the work-items left out are the
    /// last ones, so the frame numbering of those that run is unchanged.
    pub(super) fn open_tile_loops(&mut self, shape: TileShape, limit: Option<Value>) -> TileLoops {
        let dims: Vec<i64> = shape.dims().iter().map(|&d| i64::from(d)).collect();
        let coords: Vec<Variable> = dims.iter().map(|_| self.var(types::I32)).collect();
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(self.wi.frame_item, zero);
        let limit = limit.map(|l| {
            let rows = self.b.ins().iconst(types::I32, dims[0]);
            self.b.ins().smin(l, rows)
        });
        let mut heads = Vec::new();
        let mut exits = Vec::new();
        for (d, &c) in coords.iter().enumerate() {
            let zero = self.b.ins().iconst(types::I32, 0);
            self.b.def_var(c, zero);
            let head = self.b.create_block();
            let exit = self.b.create_block();
            match limit {
                Some(l) if d == 0 => {
                    let any = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, l, 0);
                    self.b.ins().brif(any, head, &[], exit, &[]);
                }
                _ => {
                    self.b.ins().jump(head, &[]);
                }
            }
            self.b.switch_to_block(head);
            heads.push(head);
            exits.push(exit);
        }
        TileLoops {
            dims,
            coords,
            heads,
            exits,
            limit,
        }
    }

    /// Closes the loops of [`Emitter::open_tile_loops`], stepping `lanes`
    /// work-items along the last dimension (and their frames) at a time.
    pub(super) fn close_tile_loops(&mut self, loops: &TileLoops, lanes: i64) {
        // The work-item's number for its frame slots, when there are any
        // (a counter nothing reads would still be carried round the loop),
        // or when work-items' returns are kept there.
        if self.returned.is_some() || self.scopes.iter().any(|s| !s.frame.is_empty()) {
            let item = self.b.use_var(self.wi.frame_item);
            let next = self.b.ins().iadd_imm_s(item, lanes);
            self.b.def_var(self.wi.frame_item, next);
        }
        let rank = loops.dims.len();
        for d in (0..rank).rev() {
            let step = if d == rank - 1 { lanes } else { 1 };
            let v = self.b.use_var(loops.coords[d]);
            let v1 = self.b.ins().iadd_imm_s(v, step);
            self.b.def_var(loops.coords[d], v1);
            let more = match loops.limit {
                Some(l) if d == 0 => self.b.ins().icmp(IntCC::SignedLessThan, v1, l),
                _ => self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedLessThan, v1, loops.dims[d]),
            };
            self.b
                .ins()
                .brif(more, loops.heads[d], &[], loops.exits[d], &[]);
            self.b.switch_to_block(loops.exits[d]);
        }
    }

    /// Computes again the kernel's locals in `uses` that have no frame
    /// slot because they are copies of the work-item's coordinates (see
    /// [`Facts::remat`]), and those they are computed from, in declaration
    /// order. Only in the kernel's own regions: an inlined function cannot
    /// name the kernel's locals.
    pub(super) fn remat_locals(&mut self, uses: &BTreeSet<LocalId>) -> R<()> {
        if self.scopes.len() != 1
            || (self.facts.remat.is_empty() && self.facts.ref_remat.is_empty())
        {
            return Ok(());
        }
        let remat = self.facts.remat.clone();
        let refs = self.facts.ref_remat.clone();
        let mut needed: BTreeSet<LocalId> = uses.clone();
        // A reference's place may index with copies computed again.
        for (l, target) in &refs {
            if uses.contains(l) {
                expr_locals(target, &mut needed);
            }
        }
        // Initialisers name only earlier locals: one pass backwards closes
        // the set.
        for (l, e) in remat.iter().rev() {
            if needed.contains(l) {
                expr_locals(e, &mut needed);
            }
        }
        let kernel_fn = self.scope().func;
        for (l, e) in &remat {
            if !needed.contains(l) {
                continue;
            }
            let ty = self.prog.function(kernel_fn).local(*l).ty.clone();
            if matches!(ty, Type::Ptr { .. }) {
                self.let_pointer(*l, Some(&Init::Expr(e.clone())))?;
                continue;
            }
            if matches!(ty, Type::ArrayView { .. }) {
                self.let_local(*l, Some(&Init::Expr(e.clone())))?;
                continue;
            }
            let v = self.scalar(e)?;
            let vars = self.local_vars(*l, &ty, 1);
            let Some(var) = vars.first() else {
                return decline(Decline::NonScalarWhereScalarExpected);
            };
            self.b.def_var(*var, v);
        }
        // References last: their places may name the copies above.
        for (l, target) in &refs {
            if uses.contains(l) {
                self.let_local(*l, Some(&Init::Ref(target.clone())))?;
            }
        }
        Ok(())
    }

    /// [`region_io`] of a region made of `stmts`, with what the kernel's
    /// references bound again in each region (see [`Facts::ref_remat`])
    /// name: a region that names such a reference loads the locals its
    /// place names and stores them back, as it may write them through it.
    pub(super) fn region_io_with_refs(&self, stmts: &[Stmt]) -> RegionIo {
        let mut io = region_io(self.prog, &self.facts.barriers, stmts);
        if self.scopes.len() == 1 && !self.facts.ref_remat.is_empty() {
            // A reference declared in this region is bound where its
            // declaration runs, not ahead of it at the region's start.
            let mut declared = HashSet::new();
            for s in stmts {
                tessera_ir::visit::walk_stmt(
                    s,
                    &mut |s| {
                        if let StmtKind::Let { local, .. } = &s.kind {
                            declared.insert(*local);
                        }
                    },
                    &mut |_| {},
                );
            }
            for (l, target) in &self.facts.ref_remat {
                if declared.contains(l) {
                    io.loads.remove(l);
                } else if io.loads.contains(l) {
                    let mut named = BTreeSet::new();
                    expr_locals(target, &mut named);
                    io.stores.extend(named.iter().copied());
                    io.loads.extend(named);
                }
            }
        }
        io
    }

    /// The address of the current work-item's copy in frame slot `slot`.
    pub(super) fn frame_addr(&mut self, slot: FrameSlot) -> Value {
        let threads = self.layout.tile.map_or(1, |s| s.threads() as i64);
        let array = self
            .b
            .ins()
            .iadd_imm_s(self.entry.frames, i64::from(slot.off) * threads);
        let item = self.b.use_var(self.wi.frame_item);
        self.scaled_address(array, item, i64::from(slot.stride))
    }

    /// Whether `l` is a kernel reference that keeps its address in its
    /// frame slot (see [`Facts::ref_addressed`]); inlined functions'
    /// references share their caller's slots instead.
    pub(super) fn addressed_ref(&self, l: LocalId) -> bool {
        self.scopes.len() == 1 && self.facts.ref_addressed.contains(&l)
    }

    pub(super) fn frame_to_vars(&mut self, l: LocalId, off: FrameSlot, ty: &Type) -> R<()> {
        if matches!(ty, Type::Ptr { .. }) {
            return self.frame_to_pointer(l, off);
        }
        // A reference whose address lives in the frame (see
        // [`Facts::ref_addressed`]): bound to that address for the region.
        // Joined tiles would share the binding.
        let func = self.scope().func;
        if self.addressed_ref(l) {
            if self.joining.is_some() {
                return decline(Decline::ReferenceDeclaredBetweenBarriers);
            }
            let at = self.frame_addr(off);
            let addr = self.b.ins().load(self.ptr, flags(), at, 0);
            self.scope_mut()
                .slots
                .insert(l, Slot::Ref(Place::Mem(addr, ty.clone())));
            return Ok(());
        }
        if places::held_views(self.prog, ty) {
            return self.frame_to_object(l, off, ty);
        }
        // A scalar whose address is taken stays in memory.
        if matches!(ty, Type::Scalar(_)) && self.address_taken(func, l) {
            self.scope_mut().slots.insert(l, Slot::Frame(off));
            return Ok(());
        }
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

    pub(super) fn vars_to_frame(&mut self, l: LocalId, off: FrameSlot, ty: &Type) -> R<()> {
        if let Some(Slot::Ptr(_, var)) = self.scope().slots.get(&l).cloned() {
            return self.pointer_to_frame(l, var, off);
        }
        if places::held_views(self.prog, ty) {
            return self.object_to_frame(l, off, ty);
        }
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
    pub(super) fn local_vars(&mut self, l: LocalId, ty: &Type, n: u32) -> Vec<Variable> {
        if let Some(Slot::Vars(v)) = self.scope().slots.get(&l) {
            return v.clone();
        }
        let cty = match ty {
            Type::Scalar(s) => clif_type(*s),
            _ => types::I32,
        };
        let vars: Vec<Variable> = (0..n).map(|_| self.var(cty)).collect();
        self.scope_mut().slots.insert(l, Slot::Vars(vars.clone()));
        vars
    }

    pub(super) fn scope(&self) -> &Scope {
        self.scopes.last().expect("a scope is always open")
    }

    pub(super) fn scope_mut(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("a scope is always open")
    }

    /// A block of a tiled kernel outside any region: runs of barrier-free
    /// statements become work-item loops, barriers separate them.
    pub(super) fn uniform_block(&mut self, body: &IrBlock) -> R<()> {
        let kernel_level = self.scopes.len() == 1;
        let segments = split(
            body,
            &self.facts.barriers,
            &self.facts.uniform,
            kernel_level,
        );
        for segment in segments {
            match segment {
                Segment::Region(run) => self.flush_region(&run)?,
                // Same value in every work-item: computed once for the tile.
                Segment::UniformLet(s) => {
                    self.stmt(s)?;
                    // A loop's counter declared right before it (see
                    // `Facts::counted_loop`).
                    self.facts.set_prev(Some(s));
                    continue;
                }
                Segment::AtBarriers(s) => self.uniform_stmt(s)?,
            }
            self.facts.set_prev(None);
        }
        self.facts.set_prev(None);
        Ok(())
    }

    /// The kernel's body: as [`Emitter::uniform_block`], and its last region
    /// (after the last barrier) may `return`: a work-item that returns
    /// there only skips the rest of that region.
    pub(super) fn uniform_body(&mut self, body: &IrBlock) -> R<()> {
        let split = last_region_start(body, &self.facts.barriers);
        let head = IrBlock {
            stmts: body.stmts[..split].to_vec(),
        };
        self.uniform_block(&head)?;
        let tail: Vec<&Stmt> = body.stmts[split..].iter().collect();
        self.last_region = true;
        let r = self.flush_region(&tail);
        self.last_region = false;
        r
    }

    /// Emits one region: a loop over the tile's work-items (or its lanes)
    /// with the frame loads and stores the plan gives it.
    pub(super) fn flush_region(&mut self, run: &[&Stmt]) -> R<()> {
        self.flush_region_ending(run, false)
    }

    /// [`Emitter::flush_region`] for the last region of a function with
    /// barriers that returns a value: a work-item that reaches the end of
    /// `run` without a `return` fails the launch.
    fn flush_region_then_fail(&mut self, run: &[&Stmt]) -> R<()> {
        self.flush_region_ending(run, true)
    }

    fn flush_region_ending(&mut self, run: &[&Stmt], then_fail: bool) -> R<()> {
        if run.is_empty() {
            return Ok(());
        }
        let stmts: Vec<Stmt> = run.iter().map(|s| (*s).clone()).collect();
        let RegionIo {
            loads: uses,
            stores,
        } = self.region_io_with_refs(&stmts);
        // Interleaving is planned for the kernel's own regions; inlined
        // calls run one work-item at a time. A last region that may
        // `return` is not interleaved (`lane_shape` refuses it): a lane
        // that returns would end its neighbours' work-items too.
        // A region that only one work-item acts in (`if (lx == 0 && ly ==
        // 0)`) runs for that work-item alone: the others' tests would
        // change nothing.
        if self.scopes.len() == 1
            && let Some(tile) = self.layout.tile
            && let Some((at, then)) = pinned_item(&stmts, &self.facts.remat, tile.dims())
        {
            let then = then.clone();
            self.single_item(&uses, &stores, &at, &then)?;
            self.done_if_all_returned(&stmts);
            return Ok(());
        }
        // Lanes would run a returned work-item beside the others.
        let shape = if self.scopes.len() != 1 || self.returned.is_some() || then_fail {
            None
        } else {
            self.facts.lane_shape(&stmts)
        };
        // A region that is one `if (l < n)` on the first local coordinate
        // runs only the rows below `n` (a tree reduction's halving steps).
        let limit = match (self.scopes.len(), self.layout.tile) {
            (1, Some(_)) => match row_limit(&stmts, &self.facts.remat, &self.facts.uniform) {
                Some(n) => Some(self.scalar(n)?),
                None => None,
            },
            _ => None,
        };
        let prechecked = match limit {
            None => self.precheck_region(&stmts)?,
            Some(_) => Vec::new(),
        };
        let outer = std::mem::replace(&mut self.prechecked, prechecked);
        let r = match shape {
            Some(LaneShape { lanes, shared }) => {
                self.lane_loop(&uses, &stores, &stmts, lanes, &shared, limit)
            }
            None => self.item_loop(&uses, &stores, limit, &mut |lw| {
                lw.stmts(&stmts)?;
                if then_fail {
                    let fail = lw.entry.fail;
                    lw.b.ins().jump(fail, &[]);
                    lw.dead_block();
                }
                Ok(())
            }),
        };
        self.prechecked = outer;
        r?;
        self.done_if_all_returned(&stmts);
        Ok(())
    }

    pub(super) fn uniform_stmt(&mut self, s: &Stmt) -> R<()> {
        self.spend()?;
        match &s.kind {
            StmtKind::Barrier(_) => {
                self.barrier_after_returns();
                Ok(())
            }
            StmtKind::Block(b) => self.uniform_block(b),
            StmtKind::If { cond, then, els } => {
                let c = self.tile_cond(cond)?;
                let (e, join) = self.branch_on(c);
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
                // The kernel's own `return` there is counted (see
                // [`Returned`]); a called function's is not.
                if block_has_return(body) && (self.scopes.len() != 1 || self.returned.is_none()) {
                    return decline(Decline::ReturnInLoopWithBarrier);
                }
                // A counted loop: the counter's range holds in the body
                // (its regions included) and the step.
                let counted = if *test_first {
                    self.facts
                        .counted_loop(self.scope().id, cond.as_ref(), step.as_ref(), body)
                } else {
                    None
                };
                self.facts.set_prev(None);
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
                let saved = counted.map(|counted| self.facts.enter_counted(counted));
                let r = self.uniform_block(body);
                self.loops.pop();
                let r = r.and_then(|()| {
                    self.b.ins().jump(step_blk, &[]);
                    self.b.switch_to_block(step_blk);
                    match step {
                        Some(step)
                            if self.scopes.len() == 1 && self.facts.writes_only_uniform(step) =>
                        {
                            self.expr(step).map(drop)
                        }
                        Some(step) => {
                            let st = Stmt {
                                id: tessera_ir::StmtId::UNNUMBERED,
                                kind: StmtKind::Expr(step.clone()),
                                span: step.span,
                            };
                            self.flush_region(&[&st])
                        }
                        None => Ok(()),
                    }
                });
                if let Some(saved) = saved {
                    self.facts.leave_counted(saved);
                }
                r?;
                let charge = self.facts.loop_charge(self.scope().id, body);
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
            }) => self.barrier_call(*func, args, None).map(drop),
            StmtKind::Let {
                init: Some(Init::Expr(call)),
                ..
            } if matches!(call.kind, ExprKind::Call { .. }) => self.barrier_call_value(s, call),
            StmtKind::Expr(Expr {
                kind: ExprKind::Assign { target, value },
                ..
            }) if matches!(value.kind, ExprKind::Call { .. })
                && !self.facts.barriers.in_expr(target) =>
            {
                self.barrier_call_value(s, value)
            }
            // `return g(t);`, the last statement of a function with
            // barriers: `g` leaves its value where this function's callers
            // read it.
            StmtKind::Return(Some(Expr {
                kind: ExprKind::Call { func, args },
                ..
            })) if self.scopes.len() > 1 && self.scope().waits => {
                let dest = self.scope().ret_frame;
                self.barrier_call(*func, args, dest).map(drop)
            }
            StmtKind::Break | StmtKind::Continue => {
                // Taken by the whole tile: the condition that led here was
                // checked to agree across the work-items.
                let Some(t) = self.loops.last() else {
                    return decline(Decline::BreakOutsideLoop);
                };
                let target = if matches!(s.kind, StmtKind::Break) {
                    t.brk
                } else {
                    let Some(c) = t.cont else {
                        return decline(Decline::ContinueInSwitch);
                    };
                    c
                };
                self.b.ins().jump(target, &[]);
                self.dead_block();
                Ok(())
            }
            StmtKind::Switch { value, arms } => self.uniform_switch(value, arms),
            _ => decline(Decline::BarrierInsideStatementKind),
        }
    }

    /// A `switch` that holds barriers, at their level: the whole tile takes
    /// one arm, so each case's test (`value == k`, in source order) is a
    /// tile condition, checked to agree across the work-items where it is
    /// not uniform. `value` is evaluated once per test, so it must be free
    /// of effects. Arms fall through to the next as in C++; `break` leaves.
    fn uniform_switch(&mut self, value: &Expr, arms: &[tessera_ir::SwitchArm]) -> R<()> {
        if !effect_free(value) || value.ty.scalar().is_none_or(|s| !s.is_integral()) {
            return decline(Decline::BarrierInsideStatementKind);
        }
        let exit = self.b.create_block();
        let blocks: Vec<Block> = arms.iter().map(|_| self.b.create_block()).collect();
        for (arm, &block) in arms.iter().zip(&blocks) {
            let Some(k) = arm.value else { continue };
            let test = Expr {
                kind: ExprKind::Binary {
                    op: tessera_ir::BinOp::Eq,
                    lhs: Box::new(value.clone()),
                    rhs: Box::new(Expr {
                        kind: ExprKind::Const(tessera_ir::Const::Int(k)),
                        ty: value.ty.clone(),
                        place: false,
                        span: value.span,
                    }),
                },
                ty: Type::BOOL,
                place: false,
                span: value.span,
            };
            let c = self.tile_cond(&test)?;
            let next = self.b.create_block();
            self.b.ins().brif(c, block, &[], next, &[]);
            self.b.switch_to_block(next);
        }
        let default = arms.iter().position(|a| a.value.is_none());
        self.b.ins().jump(default.map_or(exit, |d| blocks[d]), &[]);
        self.loops.push(LoopTargets {
            brk: exit,
            cont: None,
            region: u32::MAX,
        });
        let mut result = Ok(());
        for (i, (arm, &block)) in arms.iter().zip(&blocks).enumerate() {
            self.b.switch_to_block(block);
            result = self.uniform_block(&arm.body);
            if result.is_err() {
                break;
            }
            let fall = blocks.get(i + 1).copied().unwrap_or(exit);
            self.b.ins().jump(fall, &[]);
        }
        self.loops.pop();
        result?;
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// `f(t, ...);` of a function that holds a barrier, at the level of the
    /// barriers: its body is split like the kernel's, inline, and its
    /// locals (parameters included) get frame slots of their own. A
    /// function with a value leaves each work-item's in frame slot `dest`,
    /// or in one of its own when `dest` is `None`; the slot is returned.
    pub(super) fn barrier_call(
        &mut self,
        func: FuncId,
        args: &[Expr],
        dest: Option<FrameSlot>,
    ) -> R<Option<FrameSlot>> {
        let callee = self.prog.function(func);
        let Some(body) = &callee.body else {
            return decline(Decline::CallUndefinedFunction);
        };
        if callee.ret_by_ref {
            return decline(Decline::FunctionBarrierReturnsValue);
        }
        // Lowered with shared calls, a call like one already emitted jumps
        // to that code (see [`shared`]).
        let key = self.shared_key(func, callee, args, dest);
        if let Some(key) = &key
            && let Some(ret_frame) = self.enter_shared(key, callee, args)?
        {
            return Ok(ret_frame);
        }
        // Its value: each work-item's `return` leaves it in a frame slot
        // (the caller's, for `return f(t);`), for the statement that takes
        // it to read (see `Emitter::barrier_result`).
        let ret_frame = match (&callee.ret, dest) {
            (Type::Void, _) => None,
            (_, Some(dest)) => Some(dest),
            (ty, None) => {
                let Some((size, align)) = size_align(&self.prog.structs, ty) else {
                    return decline(Decline::FunctionBarrierReturnsValue);
                };
                if !matches!(
                    ty,
                    Type::Scalar(_) | Type::Index(_) | Type::Extent(_) | Type::Struct(_)
                ) {
                    return decline(Decline::FunctionBarrierReturnsValue);
                }
                let at = self.alloc.frame_cursor.next_multiple_of(align.max(1));
                self.alloc.frame_cursor = at.saturating_add(size);
                Some(FrameSlot {
                    off: at,
                    stride: size,
                })
            }
        };
        // A `return` may end the function only where no barrier follows:
        // in its last region, or as its last statement, `return g(t);`.
        let split = last_region_start(body, &self.facts.barriers);
        let head = &body.stmts[..split];
        let returns_early = head.iter().enumerate().any(|(i, s)| {
            let last_call = i + 1 == body.stmts.len()
                && matches!(&s.kind, StmtKind::Return(Some(e)) if matches!(e.kind, ExprKind::Call { .. }));
            !last_call && stmt_has_return(s)
        });
        if returns_early {
            return decline(Decline::ReturnInFunctionWithBarrier);
        }
        // Its work-items leave their values in the frame slot; one that
        // runs off the end leaves none (UB in C++; R0027 in the
        // interpreter): reaching the end fails the launch, for the
        // interpreter to report.
        let falls_off = !matches!(callee.ret, Type::Void) && !always_returns(&body.stmts);
        if self.scopes.len() > 16 {
            return decline(Decline::CallsBarriersNestedTooDeeply);
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
                let at = match self.alloc.callee_tile_static.get(&key) {
                    Some(&at) => at,
                    None => {
                        let Some((size, align)) = size_align(&self.prog.structs, &local.ty) else {
                            return decline(Decline::TileStaticVariableType);
                        };
                        let at = self.alloc.scratch_cursor.next_multiple_of(align.max(1));
                        self.alloc.scratch_cursor = at.saturating_add(size);
                        if self.alloc.scratch_cursor > 64 * 1024 {
                            return decline(Decline::TileStaticMemoryPast64Kb);
                        }
                        self.alloc.callee_tile_static.insert(key, at);
                        at
                    }
                };
                slots.insert(id, Slot::TileStatic(at));
                continue;
            }
            if local.by_ref {
                let Some(a) = args.get(i) else {
                    return decline(Decline::ReferenceInFunctionWithBarrier);
                };
                if matches!(local.ty, Type::TiledIndex(_)) {
                    continue;
                }
                // A `const` reference to a captured struct holding views
                // (a function object's `this`): the same in every
                // work-item, read where it is used.
                if let ExprKind::Capture(c) = &a.kind
                    && let Some(V::Obj(fields)) = self.entry.caps.get(*c as usize)
                {
                    if !local.is_const {
                        return decline(Decline::CapturedValueAsPlace);
                    }
                    slots.insert(id, Slot::Ref(Place::Obj(fields.clone())));
                    continue;
                }
                let ExprKind::Local(l) = &a.kind else {
                    return decline(Decline::ReferenceArgumentNotVariable);
                };
                // A `tile_static` variable is at the same place in every
                // region: the parameter names it there.
                if let Some(Slot::TileStatic(at)) = self.scope().slots.get(l) {
                    slots.insert(id, Slot::TileStatic(*at));
                    continue;
                }
                let Some(&off) = self.scope().frame.get(l) else {
                    return decline(Decline::ReferenceArgumentToWorkItemLoopVariable);
                };
                frame.insert(id, off);
                continue;
            }
            if let Some((size, align)) = size_align(&self.prog.structs, &local.ty) {
                let at = self.alloc.frame_cursor.next_multiple_of(align.max(1));
                frame.insert(
                    id,
                    FrameSlot {
                        off: at,
                        stride: size,
                    },
                );
                self.alloc.frame_cursor = at.saturating_add(size);
            }
        }
        declined_on_request(self.prog, func)?;
        self.bind_barrier_args(callee, args, &frame, &mut slots)?;
        if let Some(key) = &key {
            self.begin_shared(key.clone(), &frame, ret_frame);
        }
        self.alloc.next_scope += 1;
        self.scopes.push(Scope {
            frame,
            waits: true,
            ret_frame,
            ..Scope::new(self.alloc.next_scope, func, slots)
        });
        let saved_loops = std::mem::take(&mut self.loops);
        let head = IrBlock {
            stmts: head.to_vec(),
        };
        let tail: Vec<&Stmt> = body.stmts[split..].iter().collect();
        let r = self.uniform_block(&head).and_then(|()| {
            if !falls_off {
                self.flush_region(&tail)
            } else if tail.is_empty() {
                // No `return` after the last barrier, none before it
                // (`returns_early`): every work-item runs off the end.
                let fail = self.entry.fail;
                self.b.ins().jump(fail, &[]);
                self.dead_block();
                Ok(())
            } else {
                self.flush_region_then_fail(&tail)
            }
        });
        self.loops = saved_loops;
        self.scopes.pop();
        r?;
        if let Some(key) = &key {
            self.end_shared(key);
        }
        Ok(ret_frame)
    }

    /// Binds the arguments of a call of a function with barriers: views
    /// and the tiled index, the same in every work-item, into `slots`; the
    /// other values each work-item stores into the parameters' slots of
    /// `frame` (a reference already shares its variable's slot).
    pub(super) fn bind_barrier_args(
        &mut self,
        callee: &Function,
        args: &[Expr],
        frame: &HashMap<LocalId, FrameSlot>,
        slots: &mut HashMap<LocalId, Slot>,
    ) -> R<()> {
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
                        return decline(Decline::TiledIndexNotKernels);
                    }
                    slots.insert(id, Slot::Tiled);
                }
                Type::ArrayView { .. } | Type::Array(..) => {
                    if !matches!(a.kind, ExprKind::Capture(_)) {
                        return decline(Decline::ViewArgumentNotCapturedView);
                    }
                    let V::View(v) = self.expr(a)? else {
                        return decline(Decline::ViewArgumentKind);
                    };
                    slots.insert(id, Slot::View(v));
                }
                ty if frame.contains_key(&id) => per_item.push((a, ty.clone(), frame[&id])),
                _ => return decline(Decline::ArgumentType),
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
            self.item_loop(&uses, &stores, None, &mut |lw| {
                for (a, ty, off) in &per_item {
                    let v = lw.expr(a)?;
                    let addr = lw.frame_addr(*off);
                    lw.store_value(addr, ty, &v)?;
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// A statement at the level of the barriers that takes the value of a
    /// call of a function with barriers (`T x = f(t);`, `x = f(t);`): the
    /// call, its value left in a frame slot per work-item, then the
    /// statement itself for each work-item, the call reading as that value.
    fn barrier_call_value(&mut self, s: &Stmt, call: &Expr) -> R<()> {
        let ExprKind::Call { func, args } = &call.kind else {
            return decline(Decline::BarrierInsideStatementKind);
        };
        let Some(slot) = self.barrier_call(*func, args, None)? else {
            return decline(Decline::FunctionBarrierReturnsValue);
        };
        let stmts = [s.clone()];
        let RegionIo {
            loads: uses,
            stores,
        } = self.region_io_with_refs(&stmts);
        let outer = self.barrier_result.replace((*func, call.span, slot));
        let r = self.item_loop(&uses, &stores, None, &mut |lw| lw.stmts(&stmts));
        self.barrier_result = outer;
        r
    }

    /// The value of a call of a function with barriers while the statement
    /// that takes it runs (see [`Emitter::barrier_call_value`]): the
    /// current work-item's, from the frame slot its `return` left it in.
    pub(super) fn barrier_result(&mut self, func: FuncId, call: &Expr) -> R<Option<V>> {
        let Some((f, span, slot)) = self.barrier_result else {
            return Ok(None);
        };
        if f != func || span != call.span {
            return Ok(None);
        }
        let addr = self.frame_addr(slot);
        Ok(Some(match &call.ty {
            Type::Scalar(sc) => V::S(self.b.ins().load(clif_type(*sc), flags(), addr, 0)),
            Type::Index(r) | Type::Extent(r) => V::Shape(
                (0..i32::from(*r))
                    .map(|k| self.b.ins().load(types::I32, flags(), addr, 4 * k))
                    .collect(),
            ),
            Type::Struct(_) => V::Mem(addr),
            _ => return decline(Decline::FunctionBarrierReturnsValue),
        }))
    }

    /// A condition taken by the whole tile: computed once when it is
    /// uniform by construction, else per work-item and checked to agree.
    pub(super) fn tile_cond(&mut self, cond: &Expr) -> R<Value> {
        // The uniform counters are the kernel's own locals.
        let empty = HashSet::new();
        let uniform = if self.scopes.len() == 1 {
            &self.facts.uniform
        } else {
            &empty
        };
        if is_uniform(cond, uniform) {
            self.scalar(cond)
        } else {
            self.uniform_cond(cond)
        }
    }

    /// Evaluates a condition for every work-item and checks that they agree.
    pub(super) fn uniform_cond(&mut self, cond: &Expr) -> R<Value> {
        let first = self.var(types::I8);
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
        let fail = self.entry.fail;
        let item = self.wi.item;
        self.wi.need_item = true;
        // Where work-items may have returned, the first that takes part
        // need not be the tile's first: a flag says whether one has.
        let seen = self.returned.map(|_| {
            let seen = self.var(types::I8);
            let no = self.b.ins().iconst(types::I8, 0);
            self.b.def_var(seen, no);
            seen
        });
        let r = self.item_loop(&uses, &stores, None, &mut |lw| {
            let c = lw.scalar(cond)?;
            let is_first = match seen {
                Some(seen) => {
                    let s = lw.b.use_var(seen);
                    lw.b.ins().icmp_imm_s(IntCC::Equal, s, 0)
                }
                None => {
                    let it = lw.b.use_var(item);
                    lw.b.ins().icmp_imm_s(IntCC::Equal, it, 0)
                }
            };
            let set = lw.b.create_block();
            let check = lw.b.create_block();
            let done = lw.b.create_block();
            lw.b.ins().brif(is_first, set, &[], check, &[]);
            lw.b.switch_to_block(set);
            lw.b.def_var(first, c);
            if let Some(seen) = seen {
                let yes = lw.b.ins().iconst(types::I8, 1);
                lw.b.def_var(seen, yes);
            }
            lw.b.ins().jump(done, &[]);
            lw.b.switch_to_block(check);
            let f = lw.b.use_var(first);
            let differ = lw.b.ins().icmp(IntCC::NotEqual, f, c);
            lw.b.ins().brif(differ, fail, &[], done, &[]);
            lw.b.switch_to_block(done);
            Ok(())
        });
        self.wi.need_item = false;
        r?;
        Ok(self.b.use_var(first))
    }

    /// Counts one loop iteration as `charge` units of work (the iteration
    /// and the iterations of the innermost loops inside it that do not
    /// poll); polls when the fuel runs out.
    pub(super) fn poll_point(&mut self, charge: i64) -> R<()> {
        let f = self.b.use_var(self.entry.fuel);
        let f1 = self.b.ins().iadd_imm_s(f, -charge.max(1));
        self.b.def_var(self.entry.fuel, f1);
        let empty = self.b.ins().icmp_imm_s(IntCC::SignedLessThanOrEqual, f1, 0);
        let poll = self.b.create_block();
        let go = self.b.create_block();
        // Once in `FUEL` units of work: out of the loop's straight line.
        self.b.set_cold_block(poll);
        self.b.ins().brif(empty, poll, &[], go, &[]);
        self.b.switch_to_block(poll);
        let call = self
            .b
            .ins()
            .call(self.entry.helpers.poll, &[self.entry.env]);
        let status = self.b.inst_results(call)[0];
        let refill = self.b.ins().iconst(types::I64, FUEL);
        self.b.def_var(self.entry.fuel, refill);
        let stopped = self.entry.stopped;
        self.b.ins().brif(status, stopped, &[], go, &[]);
        self.b.switch_to_block(go);
        Ok(())
    }

    pub(super) fn region_id(&self) -> u32 {
        self.region.as_ref().map_or(u32::MAX, |r| r.id)
    }
}

/// Whether evaluating `e` again changes nothing and yields the same value:
/// constants, locals, captures, parts of the tiled index, conversions and
/// arithmetic of those (no assignment, call or increment).
fn effect_free(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Capture(_) => true,
        ExprKind::Convert(inner) => effect_free(inner),
        ExprKind::Unary { operand, .. } => effect_free(operand),
        ExprKind::Binary { lhs, rhs, .. } => effect_free(lhs) && effect_free(rhs),
        ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::TiledIndexPart(_) | tessera_ir::Intrinsic::ShapeComponent,
            args,
        } => args.iter().all(effect_free),
        _ => false,
    }
}
