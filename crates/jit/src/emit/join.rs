//! Joined tiles: a tiled kernel whose last region is one work-item's loop
//! (`if (lx == 0 && ly == 0) { for ... s += t[y][x]; }`, a tile's serial
//! sum) spends its time waiting on that loop's chain of dependent
//! operations, one tile after the other. Its joined function runs
//! [`JOINED_TILES`] neighbouring tiles per call: the regions before the
//! last barrier for each tile in turn (each in its own `tile_static`
//! memory and frames), then the last region for all of them at once,
//! statement by statement, so the processor overlaps the tiles' chains.
//! Loops and branches whose control is the same in every tile (counters
//! from constants and captured scalars) run once for the tiles; any other
//! statement runs for each tile in turn.
//!
//! Each tile computes exactly what it computes alone, in the same order;
//! only the interleaving of the tiles' statements changes, which C++ AMP
//! allows (tiles run in any order, or at once). A kernel without this
//! shape is declined here and runs one tile per call.

use super::*;
use tessera_ir::visit::walk_block;

/// Tiles per call of a joined function. Four measured faster than two
/// (whose chains still wait) and eight (whose code outgrows what the
/// processor overlaps) on the tile average benchmark (docs/performance.md).
pub(crate) const JOINED_TILES: usize = 4;

/// What [`Emitter::swap_lane`] exchanges for a tile of a joined function:
/// its memory, frames and coordinates.
pub(super) struct TileCtx {
    scratch: Value,
    frames: Value,
    coords: Vec<Value>,
}

impl Emitter<'_, '_, '_> {
    /// Exchanges the emitter's tile (memory, frames, coordinates) with
    /// `tile`'s.
    pub(super) fn swap_tile(&mut self, tile: &mut TileCtx) {
        std::mem::swap(&mut self.entry.scratch, &mut tile.scratch);
        std::mem::swap(&mut self.entry.frames, &mut tile.frames);
        std::mem::swap(&mut self.wi.tile_coords, &mut tile.coords);
    }

    /// The body of a joined function (see the module): `scratch` and
    /// `frames` point to [`JOINED_TILES`] addresses each, the tiles' own,
    /// and `group` is the first tile's number.
    pub(super) fn joined_body(&mut self, body: &IrBlock, shape: TileShape) -> R<()> {
        let func = self.prog.function(self.scopes[0].func);
        let plain = func.locals.iter().enumerate().all(|(i, l)| {
            i == 0
                || l.space == Space::TileStatic
                || matches!(l.ty, Type::Scalar(_) | Type::Index(_) | Type::Extent(_))
        });
        let split = last_region_start(body, &self.facts.barriers);
        let tail = &body.stmts[split..];
        let Some((at, then)) = pinned_item(tail, &self.facts.remat, shape.dims()) else {
            return decline(Decline::JoinedTiles);
        };
        if !plain || split == 0 || !joinable(then) || self.returned.is_some() {
            return decline(Decline::JoinedTiles);
        }
        let head = IrBlock {
            stmts: body.stmts[..split].to_vec(),
        };
        let then = then.clone();
        let (scratch, frames, group) = (self.entry.scratch, self.entry.frames, self.entry.group);
        let mut tiles = Vec::with_capacity(JOINED_TILES);
        for k in 0..JOINED_TILES {
            let g = self.b.ins().iadd_imm_s(group, k as i64);
            let at = 8 * k as i32;
            tiles.push(TileCtx {
                scratch: self.b.ins().load(self.ptr, flags(), scratch, at),
                frames: self.b.ins().load(self.ptr, flags(), frames, at),
                coords: self.tile_coords(g, shape),
            });
        }
        // The regions before the last barrier, tile after tile, each with
        // variables of its own.
        let base = self.scopes[0].slots.clone();
        let mut ctxs = Vec::with_capacity(JOINED_TILES);
        let mut cursors = Vec::with_capacity(JOINED_TILES);
        for mut tile in tiles {
            self.swap_tile(&mut tile);
            self.scopes[0].slots = base.clone();
            let r = self.uniform_block(&head);
            let slots = std::mem::replace(&mut self.scopes[0].slots, base.clone());
            self.swap_tile(&mut tile);
            r?;
            cursors.push((self.alloc.frame_cursor, self.alloc.scratch_cursor));
            ctxs.push(LaneCtx {
                slots,
                coords: Vec::new(),
                frame_item: self.wi.frame_item,
                tile: Some(tile),
            });
        }
        // Every tile's regions must lay memory out as the first's.
        if cursors.windows(2).any(|w| w[0] != w[1]) {
            return decline(Decline::JoinedTiles);
        }
        self.joined_tail(tail, &at, &then, &mut ctxs, shape)
    }

    /// The last region, one pinned work-item in each tile, the tiles'
    /// statements interleaved (see [`Emitter::joined_stmt`]).
    fn joined_tail(
        &mut self,
        tail: &[Stmt],
        at: &[i64],
        then: &IrBlock,
        ctxs: &mut [LaneCtx],
        shape: TileShape,
    ) -> R<()> {
        let RegionIo {
            loads: uses,
            stores,
        } = self.region_io_with_refs(tail);
        let coords = self.pin_item(at, shape);
        let kernel_fn = self.scopes[0].func;
        let shared = shared_counters(self.prog, then);
        for &l in &shared {
            let Type::Scalar(s) = self.prog.function(kernel_fn).local(l).ty else {
                return decline(Decline::JoinedTiles);
            };
            let var = self.var(clif_type(s));
            for ctx in ctxs.iter_mut() {
                ctx.slots.insert(l, Slot::Vars(vec![var]));
            }
        }
        for ctx in ctxs.iter_mut() {
            ctx.coords = coords.clone();
        }
        let item_end = self.b.create_block();
        let id = self.next_region;
        self.next_region += 1;
        let saved_region = self.region.replace(RegionCtx { id, item_end });
        let saved_slots = self.scopes[0].slots.clone();
        let result = (|| -> R<()> {
            for ctx in ctxs.iter_mut() {
                self.in_lane(ctx, |lw| lw.load_frame_locals(&uses))?;
            }
            self.joining = Some(shared);
            let r = self.lane_stmts(&then.stmts, ctxs);
            self.joining = None;
            r?;
            self.b.ins().jump(item_end, &[]);
            self.b.switch_to_block(item_end);
            for ctx in ctxs.iter_mut() {
                self.in_lane(ctx, |lw| lw.store_frame_locals(&stores))?;
            }
            Ok(())
        })();
        self.scopes[0].slots = saved_slots;
        self.region = saved_region;
        result
    }

    /// One statement of a joined region: blocks, and loops and branches
    /// whose control is the same in every tile, once for the tiles (their
    /// statements interleaved in turn); anything else for each tile in
    /// turn.
    pub(super) fn joined_stmt(&mut self, s: &Stmt, ctxs: &mut [LaneCtx]) -> R<()> {
        let same = |lw: &Self, e: &Expr| {
            lw.joining
                .as_ref()
                .is_some_and(|shared| tile_invariant(e, shared))
        };
        let shared_local = |l: &LocalId| {
            let slot = |c: &LaneCtx| match c.slots.get(l) {
                Some(Slot::Vars(v)) => Some(v.clone()),
                _ => None,
            };
            let first = ctxs.first().and_then(slot);
            first.is_some() && ctxs.iter().all(|c| slot(c) == first)
        };
        match &s.kind {
            StmtKind::Block(b) => self.lane_stmts(&b.stmts, ctxs),
            StmtKind::Let { local, init } if shared_local(local) => {
                let invariant = match init {
                    None => true,
                    Some(Init::Expr(e)) => same(self, e),
                    Some(_) => false,
                };
                if !invariant {
                    return decline(Decline::JoinedTiles);
                }
                self.in_lane0(ctxs, |lw| lw.stmt(s))
            }
            StmtKind::Loop { cond, step, .. }
                if cond.as_ref().is_none_or(|c| same(self, c))
                    && step
                        .as_ref()
                        .is_some_and(|e| same_step(e, self.joining.as_ref())) =>
            {
                self.emit_loop(s, Some(ctxs))
            }
            StmtKind::If { cond, then, els } if same(self, cond) => {
                self.shared_if(cond, then, els.as_ref(), ctxs)
            }
            _ => {
                for ctx in ctxs.iter_mut() {
                    self.in_lane(ctx, |lw| lw.stmt(s))?;
                }
                Ok(())
            }
        }
    }
}

/// Whether a kernel might have a joined function (see the module): worth
/// lowering it a second time only if its body ends with a barrier and
/// then a branch holding a loop.
pub(crate) fn join_candidate(prog: &Program, kernel: FuncId) -> bool {
    let Some(body) = &prog.function(kernel).body else {
        return false;
    };
    let [.., last_but_one, last] = body.stmts.as_slice() else {
        return false;
    };
    matches!(last_but_one.kind, StmtKind::Barrier(_))
        && matches!(&last.kind, StmtKind::If { then, els: None, .. } if has_loop(then))
}

/// Whether the pinned work-item's branch `then` may run joined: it holds
/// a loop, and nothing that leaves a statement early (one tile's `break`
/// or `return` would skip the other tiles' share) or waits.
fn joinable(then: &IrBlock) -> bool {
    let mut loops = false;
    let mut leaves = false;
    walk_block(
        then,
        &mut |s| match s.kind {
            StmtKind::Loop { .. } => loops = true,
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(_)
            | StmtKind::Goto(_)
            | StmtKind::Label(_)
            | StmtKind::Barrier(_)
            | StmtKind::Switch { .. } => leaves = true,
            _ => {}
        },
        &mut |_| {},
    );
    loops && !leaves
}

/// Whether `stmts` hold a loop.
fn has_loop(block: &IrBlock) -> bool {
    let mut found = false;
    walk_block(
        block,
        &mut |s| {
            if matches!(s.kind, StmtKind::Loop { .. }) {
                found = true;
            }
        },
        &mut |_| {},
    );
    found
}

/// The loop counters of `then` that hold the same value in every tile: a
/// counter declared just before its loop (as a `for` declares it) from
/// constants, captured scalars and other such counters, tested against
/// them, stepped by them and written nowhere else.
fn shared_counters(prog: &Program, then: &IrBlock) -> HashSet<LocalId> {
    let mut candidates: Vec<Counter> = Vec::new();
    let mut blocks = vec![then];
    walk_block(
        then,
        &mut |s| match &s.kind {
            StmtKind::Block(b) => blocks.push(b),
            StmtKind::If { then, els, .. } => {
                blocks.push(then);
                blocks.extend(els.iter());
            }
            StmtKind::Loop { body, .. } => blocks.push(body),
            _ => {}
        },
        &mut |_| {},
    );
    for block in blocks {
        for pair in block.stmts.windows(2) {
            let (
                StmtKind::Let { local, init },
                StmtKind::Loop {
                    cond,
                    test_first: true,
                    body,
                    step: Some(step),
                },
            ) = (&pair[0].kind, &pair[1].kind)
            else {
                continue;
            };
            let init = match init {
                Some(Init::Expr(e)) => Some(e),
                None => None,
                Some(_) => continue,
            };
            candidates.push((*local, init, cond.as_ref(), step, body));
        }
    }
    let mut shared: HashSet<LocalId> = candidates.iter().map(|c| c.0).collect();
    loop {
        let before = shared.len();
        candidates.retain(|&(l, init, cond, step, body)| {
            let mut written = HashSet::new();
            mutated_locals(prog, body, &mut written);
            let keep = init.is_none_or(|e| tile_invariant(e, &shared))
                && cond.is_none_or(|e| tile_invariant(e, &shared))
                && same_step(step, Some(&shared))
                && steps_only(step, l)
                && !written.contains(&l);
            if !keep {
                shared.remove(&l);
            }
            keep
        });
        if shared.len() == before {
            return shared;
        }
    }
}

/// A loop counter and its loop: (the counter, its initial value, the
/// loop's condition, its step, its body).
type Counter<'a> = (
    LocalId,
    Option<&'a Expr>,
    Option<&'a Expr>,
    &'a Expr,
    &'a IrBlock,
);

/// Whether `e` has the same value in every tile: made of constants,
/// captured scalars and the counters in `shared`, without effects.
fn tile_invariant(e: &Expr, shared: &HashSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Local(l) => shared.contains(l),
        ExprKind::Capture(_) => e.ty.scalar().is_some(),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            tile_invariant(lhs, shared) && tile_invariant(rhs, shared)
        }
        ExprKind::Unary { operand, .. } => tile_invariant(operand, shared),
        ExprKind::Convert(inner) => e.ty.scalar().is_some() && tile_invariant(inner, shared),
        ExprKind::Conditional { cond, then, els } => {
            tile_invariant(cond, shared)
                && tile_invariant(then, shared)
                && tile_invariant(els, shared)
        }
        _ => false,
    }
}

/// Whether loop step `e` changes only a shared counter, by a value the
/// same in every tile (`++i`, `i += k`, `i = i + k`).
fn same_step(e: &Expr, shared: Option<&HashSet<LocalId>>) -> bool {
    let Some(shared) = shared else {
        return false;
    };
    let counter = |t: &Expr| matches!(&t.kind, ExprKind::Local(l) if shared.contains(l));
    match &e.kind {
        ExprKind::IncDec { target, .. } => counter(target),
        ExprKind::CompoundAssign { target, value, .. } | ExprKind::Assign { target, value } => {
            counter(target) && tile_invariant(value, shared)
        }
        _ => false,
    }
}

/// Whether step `e` writes local `l` (and nothing else).
fn steps_only(e: &Expr, l: LocalId) -> bool {
    match &e.kind {
        ExprKind::IncDec { target, .. }
        | ExprKind::CompoundAssign { target, .. }
        | ExprKind::Assign { target, .. } => matches!(target.kind, ExprKind::Local(t) if t == l),
        _ => false,
    }
}
