//! Lanes: a region run four neighbouring work-items per step, statement by
//! statement, each lane with its own variables, coordinates and frame.
//! Loops run once for the lanes; a branch runs once when its condition is
//! the same in every lane, and is masked (see [`super::vector`]) when not.

use super::*;

impl Emitter<'_, '_, '_> {
    /// A region for `lanes` neighbouring work-items at a time (along the
    /// last dimension): each lane has its own variables, coordinates and
    /// frame; statements run lane after lane, loops and branches once.
    pub(super) fn lane_loop(
        &mut self,
        uses: &BTreeSet<LocalId>,
        stores: &HashSet<LocalId>,
        stmts: &[Stmt],
        lanes: usize,
        shared: &HashSet<LocalId>,
        limit: Option<Value>,
    ) -> R<()> {
        let Some(shape) = self.layout.tile else {
            return decline(Decline::WorkItemLoopOutsideTiledKernel);
        };
        let groups = self.jam_groups(stmts, lanes);
        // The `tile_static` arrays this region only reads: their loads are
        // marked free to move (within the region: nothing in it writes
        // them), so the loads and the arithmetic on them interleave instead
        // of every load coming first, and identical loads of lane groups
        // merge. The region's `tile_static` addresses then rest on a value
        // made at its entry, so no load moves above it, where a barrier
        // and the region before may have written the array. (Not `scratch
        // + 0` with a trapping add: the optimiser merges identical
        // trapping instructions, so a later region's would be the
        // first's.)
        // Only a region with a loop has loads enough to gain (a loop's
        // iterations, unrolled or not, each load again).
        let unwritten: HashSet<LocalId> = if self.scopes.len() == 1 && super::jam::has_loop(stmts) {
            let func = self.prog.function(self.scope().func);
            crate::plan::locals::unwritten_locals(self.prog, stmts)
                .into_iter()
                .filter(|l| {
                    matches!(self.scope().slots.get(l), Some(Slot::TileStatic(_)))
                        && numbers_only(&func.local(*l).ty)
                })
                .collect()
        } else {
            HashSet::new()
        };
        let scratch = self.entry.scratch;
        if !unwritten.is_empty() {
            // The address read back with an atomic load, which the
            // optimiser neither moves nor merges with another, nor
            // replaces with the value stored.
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                8,
                3,
            ));
            let at = self.b.ins().stack_addr(types::I64, slot, 0);
            self.b.ins().store(flags(), scratch, at, 0);
            self.entry.scratch = self.b.ins().atomic_load(types::I64, flags(), at);
        }
        let outer = std::mem::replace(&mut self.unwritten_scratch, unwritten);
        let tile_loops = self.open_tile_loops(shape, limit);
        let r = self.lanes_step(
            &tile_loops.coords,
            uses,
            stores,
            stmts,
            (lanes, groups),
            shared,
        );
        self.unwritten_scratch = outer;
        self.entry.scratch = scratch;
        r?;
        self.close_tile_loops(&tile_loops, (lanes * groups) as i64);
        Ok(())
    }

    /// One step of a region run in lanes: `stmts` for the `lanes.0 *
    /// lanes.1` work-items whose coordinates are `coords` and its
    /// neighbours along the last dimension (`lanes.1` groups of `lanes.0`
    /// lanes, jammed: see [`super::jam`]), with the frame loads and stores
    /// of `uses` and `stores`. A non-tiled kernel's index parameter is each
    /// lane's own coordinates.
    pub(super) fn lanes_step(
        &mut self,
        coords: &[Variable],
        uses: &BTreeSet<LocalId>,
        stores: &HashSet<LocalId>,
        stmts: &[Stmt],
        (lanes, groups): (usize, usize),
        shared: &HashSet<LocalId>,
    ) -> R<()> {
        let width = lanes;
        let lanes = width * groups;
        let rank = coords.len();
        let index_param = self.facts.lane_axis(rank).index;
        let folded = crate::plan::fold::fold_calls(self.prog, stmts);
        let stmts = folded.as_slice();
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
                    || self.facts.uniform.contains(l)
            })
            .map(|(l, slot)| (*l, slot.clone()))
            .collect();
        let kernel_fn = self.scopes[0].func;
        let mut shared_slots = base_slots;
        for l in shared {
            let ty = self.prog.function(kernel_fn).local(*l).ty.clone();
            let Type::Scalar(sc) = ty else {
                return decline(Decline::SharedCounterNotScalar);
            };
            let var = self.var(clif_type(sc));
            shared_slots.insert(*l, Slot::Vars(vec![var]));
        }
        let mut ctxs = Vec::with_capacity(lanes);
        for lane in 0..lanes {
            let mut lane_coords = coords.to_vec();
            let last = self.var(types::I32);
            let base = self.b.use_var(coords[rank - 1]);
            let v = self.b.ins().iadd_imm_s(base, lane as i64);
            self.b.def_var(last, v);
            lane_coords[rank - 1] = last;
            let item = self.var(types::I64);
            let first = self.b.use_var(self.wi.frame_item);
            let v = self.b.ins().iadd_imm_s(first, lane as i64);
            self.b.def_var(item, v);
            let mut slots = shared_slots.clone();
            if let Some(p) = index_param {
                slots.insert(p, Slot::Vars(lane_coords.clone()));
            }
            ctxs.push(LaneCtx {
                slots,
                coords: lane_coords,
                frame_item: item,
                tile: None,
            });
        }
        let saved_slots = std::mem::take(&mut self.scopes[0].slots);
        let saved_coords = std::mem::take(&mut self.wi.item_coords);
        let saved_item = self.wi.frame_item;
        let frame: Vec<(LocalId, FrameSlot)> = uses
            .iter()
            .filter_map(|l| self.scopes[0].frame.get(l).map(|&off| (*l, off)))
            .collect();
        // Locals that hold the same value in neighbouring work-items (a row
        // index, say) are loaded once and shared by the lanes.
        // Lanes run only in the kernel's own regions (scope 0).
        let kernel = self.scopes[0].func;
        let axis = self.facts.lane_axis(rank);
        let invariant = self.facts.lane_invariant_locals(kernel, axis);
        let mut shared_loaded: Vec<(LocalId, Slot)> = Vec::new();
        // Frame locals that may become vectors wait for the vector path's
        // choice before they are loaded (one vector load, or lane by lane):
        // their lanes' variables are only declared here.
        let unloaded: Vec<(LocalId, FrameSlot)> = frame
            .iter()
            .filter(|(l, _)| {
                let ty = &self.prog.function(kernel_fn).local(*l).ty;
                !invariant.contains(l) && self.frame_row_candidate(*l, ty, width)
            })
            .copied()
            .collect();
        let result = (|| -> R<()> {
            let mut first = true;
            for ctx in ctxs.iter_mut() {
                self.swap_lane(ctx);
                for &(l, off) in &frame {
                    if !first && invariant.contains(&l) {
                        continue;
                    }
                    let ty = self.prog.function(kernel_fn).local(l).ty.clone();
                    if unloaded.iter().any(|(u, _)| *u == l) {
                        self.local_vars(l, &ty, 1);
                    } else {
                        self.frame_to_vars(l, off, &ty)?;
                    }
                }
                // Copies of the coordinates: computed again in each lane.
                self.remat_locals(uses)?;
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
            let mut known = invariant.clone();
            known.extend(shared.iter().copied());
            // The frame locals the region does not write.
            let read_only: HashSet<LocalId> = unloaded
                .iter()
                .map(|(l, _)| *l)
                .filter(|l| !stores.contains(l))
                .collect();
            self.start_groups(
                stmts,
                &mut ctxs,
                width,
                &known,
                axis,
                (&unloaded, &read_only),
            )?;
            let body = self.lane_stmts(stmts, &mut ctxs);
            let mut written: Vec<(LocalId, FrameSlot)> = stores
                .iter()
                .filter_map(|l| self.scopes[0].frame.get(l).map(|&off| (*l, off)))
                .collect();
            written.sort();
            // Only the body's end reaches `item_end` in a lane region (a
            // region that may `return` does not run in lanes), so the
            // vectors' values here are those stored there.
            let mut rows = Vec::new();
            if body.is_ok() {
                rows = self.finish_groups(&mut ctxs, width, &written);
            }
            self.vector = None;
            self.jam = None;
            body?;
            self.b.ins().jump(item_end, &[]);
            self.b.switch_to_block(item_end);
            // By group: the rows stored whole, and the others' lanes one
            // by one.
            for (part, part_rows) in ctxs.chunks_mut(width).zip(&rows) {
                for &(_, v, addr) in part_rows {
                    self.store_frame_row(v, addr);
                }
                let rest: Vec<(LocalId, FrameSlot)> = written
                    .iter()
                    .filter(|(l, _)| part_rows.iter().all(|(r, _, _)| r != l))
                    .copied()
                    .collect();
                for ctx in part.iter_mut() {
                    self.swap_lane(ctx);
                    for &(l, off) in &rest {
                        let ty = self.prog.function(kernel_fn).local(l).ty.clone();
                        self.vars_to_frame(l, off, &ty)?;
                    }
                    self.swap_lane(ctx);
                }
            }
            Ok(())
        })();
        self.scopes[0].slots = saved_slots;
        self.wi.item_coords = saved_coords;
        self.wi.frame_item = saved_item;
        self.region = saved_region;
        self.vector = None;
        self.jam = None;
        result.map_err(|e| match e {
            Decline::InLanes(_) => e,
            other => Decline::InLanes(Box::new(other)),
        })
    }

    /// Makes `ctx` the current lane (calling it again switches back).
    pub(super) fn swap_lane(&mut self, ctx: &mut LaneCtx) {
        std::mem::swap(&mut self.scopes[0].slots, &mut ctx.slots);
        std::mem::swap(&mut self.wi.item_coords, &mut ctx.coords);
        std::mem::swap(&mut self.wi.frame_item, &mut ctx.frame_item);
        if let Some(tile) = &mut ctx.tile {
            self.swap_tile(tile);
        }
    }

    /// Runs `f` as lane 0, whose view of the shared counters is everyone's.
    pub(super) fn in_lane0<T>(
        &mut self,
        ctxs: &mut [LaneCtx],
        f: impl FnOnce(&mut Self) -> R<T>,
    ) -> R<T> {
        self.in_lane(&mut ctxs[0], f)
    }

    /// Runs `f` as the lane (or tile) of `ctx`.
    pub(super) fn in_lane<T>(
        &mut self,
        ctx: &mut LaneCtx,
        f: impl FnOnce(&mut Self) -> R<T>,
    ) -> R<T> {
        self.swap_lane(ctx);
        let r = f(self);
        self.swap_lane(ctx);
        r
    }

    /// A branch whose condition is the same in every lane: tested once
    /// (in lane 0), each side's statements for all the lanes.
    pub(super) fn shared_if(
        &mut self,
        cond: &Expr,
        then: &IrBlock,
        els: Option<&IrBlock>,
        ctxs: &mut [LaneCtx],
    ) -> R<()> {
        let c = self.in_lane0(ctxs, |lw| lw.scalar(cond))?;
        let (e, join) = self.branch_on(c);
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

    pub(super) fn lane_stmts(&mut self, stmts: &[Stmt], ctxs: &mut [LaneCtx]) -> R<()> {
        let mut prev: Option<&Stmt> = None;
        for s in stmts {
            self.facts.set_prev(prev);
            self.lane_stmt(s, ctxs)?;
            prev = Some(s);
        }
        self.facts.set_prev(None);
        Ok(())
    }

    pub(super) fn lane_stmt(&mut self, s: &Stmt, ctxs: &mut [LaneCtx]) -> R<()> {
        if self.joining.is_some() {
            return self.joined_stmt(s, ctxs);
        }
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
            // Jammed groups: a branch that may differ between the lanes is
            // masked in each group.
            StmtKind::If { cond, .. } if self.jam.is_some() && !self.lane_invariant_cond(cond) => {
                self.each_group(s, ctxs)
            }
            // `if (a && b) S` is `if (a) { if (b) S }`: each part of the
            // condition gets its own test (shared, on vectors or masked),
            // and `b` is still evaluated only where `a` holds.
            StmtKind::If {
                cond,
                then,
                els: None,
            } if !self.lane_invariant_cond(cond)
                && let ExprKind::Logical {
                    and: true,
                    lhs,
                    rhs,
                } = &cond.kind =>
            {
                let inner = Stmt {
                    id: s.id,
                    kind: StmtKind::If {
                        cond: (**rhs).clone(),
                        then: then.clone(),
                        els: None,
                    },
                    span: s.span,
                };
                let outer = Stmt {
                    id: s.id,
                    kind: StmtKind::If {
                        cond: (**lhs).clone(),
                        then: IrBlock { stmts: vec![inner] },
                        els: None,
                    },
                    span: s.span,
                };
                self.lane_stmt(&outer, ctxs)
            }
            StmtKind::If { cond, then, els } if !self.lane_invariant_cond(cond) => {
                self.masked_if(s, cond, then, els.as_ref(), ctxs)
            }
            StmtKind::If { cond, then, els } => self.shared_if(cond, then, els.as_ref(), ctxs),
            StmtKind::Loop { .. } => self.emit_loop(s, Some(ctxs)),
            _ if self.jam.is_some() => self.each_group(s, ctxs),
            _ => {
                if self.vector_stmt(s, ctxs)? {
                    return Ok(());
                }
                self.lane_by_lane(s, ctxs)
            }
        }
    }
}

/// Whether a `tile_static` variable of type `ty` holds plain numbers only
/// (a number or C arrays of them): no union, whose reads check the active
/// member, and no `bool`, whose reads may check the byte.
fn numbers_only(ty: &Type) -> bool {
    match ty {
        Type::Scalar(s) => *s != Scalar::Bool,
        Type::CArray(elem, _) => numbers_only(elem),
        _ => false,
    }
}
