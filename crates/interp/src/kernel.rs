//! `parallel_for_each`: launches, tiles, and running a tile's work-items in
//! lock-step between barriers.
//!
//! A non-tiled kernel runs each work-item to its end, one after another. A
//! tiled kernel runs the work-items of one tile on this thread: every
//! statement that contains no barrier runs for each work-item in turn, to
//! its end; a statement that contains a barrier (a `Barrier`, or a loop,
//! branch or call with one inside) is entered by all of them together, so
//! that each barrier is reached by the whole tile before any work-item goes
//! past it. Work-items that take different paths through a barrier-holding
//! branch or loop are followed per path; when a barrier is then reached by
//! only part of the tile, that is barrier divergence, reported with the
//! work-items on each side.

// Work-item numbers index several parallel lists (the strands, the masks of
// who takes part); a plain index loop says that most directly.
#![allow(clippy::needless_range_loop)]

use crate::machine::{Flow, Frame, LaunchState, Machine, Res, Strand};
use crate::value::Value;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Block, Expr, ExprKind, Fence, FuncId, FunctionKind, Init, Stmt, StmtKind, Type};
use tessera_runtime::{RunError, Thread};

/// A call of a barrier-holding function in the forms lock-step execution runs.
enum BarrierCall<'a> {
    /// `f(...);`
    Discard(&'a Expr),
    /// `place = f(...);`
    Assign(&'a Expr, &'a Expr),
    /// `T x = f(...);`
    Let(tessera_ir::LocalId, &'a Expr),
    /// `return f(...);`
    Return(&'a Expr),
}

impl Machine<'_> {
    fn expr_has_barrier(&self, e: &Expr) -> bool {
        self.barriers.in_expr(e)
    }

    /// True when running `s`, a statement of `func`, reaches a barrier.
    /// Lock-step execution asks again for every statement of a loop body on
    /// every iteration of every tile, so the answers for a function's
    /// statements are computed together, once, by statement id.
    fn has_barrier(&mut self, func: FuncId, s: &Stmt) -> bool {
        let prog = self.prog;
        let Some(slot) = self.barrier_stmts.get_mut(func.index()) else {
            return self.barriers.in_stmt(s);
        };
        let table = slot.get_or_insert_with(|| self.barriers.stmt_table(prog.function(func)));
        match table.get(s.id.index()) {
            Some(&known) => known,
            // Not numbered: a program that did not come from the checker.
            None => self.barriers.in_stmt(s),
        }
    }

    /// `parallel_for_each(domain, kernel)`.
    pub(crate) fn launch_kernel(
        &mut self,
        domain: &Expr,
        kernel: FuncId,
        captures: &[Expr],
        span: Span,
    ) -> Res<()> {
        let prog = self.prog;
        let func = prog.function(kernel);
        // The view `parallel_for_each` was given, if any (checked already).
        let on = self.launch_on.take();
        let FunctionKind::Kernel {
            tile,
            captures: decls,
        } = &func.kind
        else {
            return Ok(());
        };
        let ext = self.eval(domain)?.dims();
        // What C++ AMP's `invalid_compute_domain::what()` says (as the oracle's
        // library words it), for a program that catches it.
        let tiling = if tile.is_some() { " (tiling)" } else { "" };
        if let Some(bad) = ext.iter().position(|&d| d <= 0) {
            let what = format!(
                "concurrency::parallel_for_each{tiling}: unsupported compute domain, the extent of dimension {bad} of the compute domain ({}) cannot be smaller than or equal to 0.",
                ext[bad]
            );
            return Err(self
                .error(
                    codes::R0006,
                    domain.span,
                    format!(
                        "invalid compute domain: dimension {bad} of the extent {} is {}; every dimension must be greater than 0",
                        crate::library::tuple(&ext),
                        ext[bad]
                    ),
                )
                .with_label("this extent")
                .with_note("C++ AMP throws `concurrency::invalid_compute_domain` here")
                .with_exception(invalid_compute_domain(what))
                .into());
        }
        if let Some(shape) = tile {
            let dims = shape.dims();
            for (d, (&e, &t)) in ext.iter().zip(dims).enumerate() {
                if e % i64::from(t) != 0 {
                    let tile_text: Vec<String> = dims.iter().map(u32::to_string).collect();
                    let what = format!(
                        "concurrency::parallel_for_each (tiling): unsupported compute domain, the extent of dimension {d} of the compute domain ({e}) is not a multiple of the extent of dimension {d} of the tile ({t})."
                    );
                    return Err(self
                        .error(
                            codes::R0006,
                            domain.span,
                            format!(
                                "invalid compute domain: the extent {} is not a multiple of the tile <{}>: dimension {d} is {e}, not a multiple of {t}",
                                crate::library::tuple(&ext),
                                tile_text.join(", ")
                            ),
                        )
                        .with_label(format!("extent {}", crate::library::tuple(&ext)))
                        .with_note("C++ AMP throws `concurrency::invalid_compute_domain` here")
                        .with_help(
                            "make each dimension a multiple of the tile size, or use `.pad()` and test `extent.contains(t.global)` in the kernel",
                        )
                        .with_exception(invalid_compute_domain(what))
                        .into());
                }
            }
        }
        let mut values = Vec::with_capacity(captures.len());
        for (c, decl) in captures.iter().zip(decls) {
            let v = if decl.by_ref {
                let p = self.place(c)?;
                self.read(&p, c.span)?
            } else {
                let v = self.eval(c)?;
                self.copy_value(v, &decl.ty, c.span)?
            };
            values.push(v);
        }
        // C++ AMP copies a view's whole extent to the accelerator at the
        // launch: a view over a vector that shrank since it was made would
        // read elements that no longer exist.
        for ((v, c), decl) in values.iter().zip(captures).zip(decls) {
            if let Value::View(view) = v
                && let crate::value::ViewData::Storage(s) = &view.data
                && s.reallocated_since(view.generation)
            {
                return Err(self
                    .error(
                        codes::R0014,
                        c.span,
                        format!(
                            "the kernel's `array_view` `{}` is over a `std::vector` that reallocated after the view was made",
                            decl.name
                        ),
                    )
                    .with_label(format!("`{}`'s memory is gone", decl.name))
                    .with_note("growing a vector past its capacity moves its elements to new memory; a view keeps the memory it was made over, and C++ leaves using it then undefined")
                    .with_help("make the view after growing the vector, or `reserve` room for all the elements before making it")
                    .into());
            }
            if let Value::View(view) = v
                && let crate::value::ViewData::Storage(s) = &view.data
                && let Some(reach) = view.reach()
                && reach > s.len()
            {
                return Err(self
                    .error(
                        codes::R0014,
                        c.span,
                        format!(
                            "the kernel's `array_view` `{}` covers {reach} elements of a vector that now has {}",
                            decl.name,
                            s.len()
                        ),
                    )
                    .with_label(format!("`{}`'s `std::vector` shrank after the view was made", decl.name))
                    .with_note("C++ AMP copies a view's whole extent to the accelerator at the launch; C++ leaves reading the elements the vector removed undefined")
                    .with_help("make the view after resizing the vector, or keep the vector's size while the view is used")
                    .into());
            }
        }
        // A kernel runs where its arrays live: one on the CPU accelerator
        // cannot be captured (C++ AMP throws as for a launch on its view).
        let mut arrays = false;
        for ((v, decl), c) in values.iter().zip(decls).zip(captures) {
            if let (Type::Array(..), Value::View(view)) = (&decl.ty, v)
                && let crate::value::ViewData::Storage(s) = &view.data
            {
                arrays = true;
                self.check_launch_on(s.placement.get().0.accel(), c.span)?;
            }
        }
        // Without a view or an array to say where, the launch runs on the
        // default accelerator, which from then on cannot change.
        if on.is_none() && !arrays {
            self.default_fixed = true;
            self.check_launch_on(self.default_accel, span)?;
        }
        if self.offload(kernel, &ext, *tile, &values, decls, span) {
            return Ok(());
        }
        let total: u64 = ext
            .iter()
            .fold(1u64, |acc, &d| acc.saturating_mul(d as u64));
        let saved_launch = std::mem::replace(
            &mut self.launch,
            LaunchState {
                captures: values,
                tile_static: Vec::new(),
                shape: *tile,
                tile_linear: 0,
                span,
            },
        );
        let freed = self.checker.begin_launch(&ext, *tile);
        self.meter.give(freed);
        self.in_kernel = true;
        let param_ty = func
            .locals
            .first()
            .map(|l| l.ty.clone())
            .unwrap_or(Type::Void);
        let r = match tile {
            None => self.run_flat(kernel, &ext, total, &param_ty),
            Some(shape) => self.run_tiled(kernel, &ext, *shape),
        };
        self.in_kernel = false;
        self.items.clear();
        let freed = self.checker.end_launch();
        self.meter.give(freed);
        self.launch = saved_launch;
        r
    }

    fn run_flat(&mut self, kernel: FuncId, ext: &[i64], total: u64, _param: &Type) -> Res<()> {
        let rank = ext.len();
        let prog = self.prog;
        let body = match &prog.function(kernel).body {
            Some(b) => b,
            None => return Ok(()),
        };
        self.items = vec![Strand::new(Thread::Host, 0)];
        self.cur = 0;
        let mut idx = vec![0i64; rank];
        for n in 0..total {
            let mut g = [0i64; 3];
            for (d, v) in idx.iter().take(3).enumerate() {
                g[d] = *v;
            }
            self.items[0].thread = Thread::Item {
                rank: rank.min(3) as u8,
                global: g,
            };
            self.items[0].linear = n as u32;
            self.items[0].stack.clear();
            self.enter(
                kernel,
                vec![Value::shape(idx.iter().copied())],
                body_span(body, prog.function(kernel)),
            )?;
            let r = self.exec_block(body);
            self.leave();
            r?;
            self.tick(body_span(body, prog.function(kernel)))?;
            // Next index, last dimension fastest.
            for d in (0..rank).rev() {
                idx[d] += 1;
                if idx[d] < ext[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        Ok(())
    }

    fn run_tiled(&mut self, kernel: FuncId, ext: &[i64], shape: tessera_ir::TileShape) -> Res<()> {
        let prog = self.prog;
        let Some(body) = &prog.function(kernel).body else {
            return Ok(());
        };
        let rank = usize::from(shape.rank);
        let tdims: Vec<i64> = shape.dims().iter().map(|&d| i64::from(d)).collect();
        let tiles: Vec<i64> = ext.iter().zip(&tdims).map(|(e, t)| e / t).collect();
        // Saturating: a launch that large ends at the time limit, not in an overflow.
        let ntiles: i64 = tiles.iter().fold(1i64, |acc, &n| acc.saturating_mul(n));
        let per_tile: i64 = tdims.iter().product();
        let ts_types: Vec<Type> = self
            .ts_types
            .iter()
            .map(|(f, l)| prog.function(*f).local(*l).ty.clone())
            .collect();
        for t in 0..ntiles {
            let tile = delinearize(t, &tiles);
            self.launch.tile_linear = t as u32;
            self.launch.tile_static = ts_types.iter().map(|ty| self.uninit_value(ty)).collect();
            let freed = self.checker.begin_tile();
            self.meter.give(freed);
            self.items.clear();
            for l in 0..per_tile {
                let local = delinearize(l, &tdims);
                let mut tile3 = [0i64; 3];
                let mut local3 = [0i64; 3];
                tile3[..rank].copy_from_slice(&tile[..rank]);
                local3[..rank].copy_from_slice(&local[..rank]);
                let global: Vec<i64> = (0..rank).map(|d| tile[d] * tdims[d] + local[d]).collect();
                let mut strand = Strand::new(
                    Thread::Tiled {
                        rank: shape.rank,
                        tile: tile3,
                        local: local3,
                    },
                    t.saturating_mul(per_tile).saturating_add(l) as u32,
                );
                let mut locals = vec![Value::shape(global)];
                locals.resize(prog.function(kernel).locals.len(), Value::Void);
                self.generations += 1;
                strand.stack.push(Frame {
                    func: Some(kernel),
                    locals,
                    generation: self.generations,
                });
                self.items.push(strand);
            }
            // The work-items' frames, counted like any call's.
            let frames = self.frame_bytes[kernel.index()].saturating_mul(per_tile as u64);
            self.take_memory(frames, body_span(body, prog.function(kernel)))?;
            let mask = vec![true; self.items.len()];
            let r = self.lock_block(kernel, body, &mask);
            self.meter.give(frames);
            r?;
            // Count every work-item: a tile of 1,024 is 1,024 steps of work.
            self.charge(per_tile as u64, body_span(body, prog.function(kernel)))?;
        }
        Ok(())
    }

    /// Runs a block for the work-items in `mask`, in lock-step at barriers.
    fn lock_block(&mut self, func: FuncId, b: &Block, mask: &[bool]) -> Res<()> {
        let r = self.lock_stmts(func, b, mask);
        for i in 0..self.items.len() {
            if mask[i] {
                self.cur = i;
                self.end_scope(b);
            }
        }
        r
    }

    fn lock_stmts(&mut self, func: FuncId, b: &Block, mask: &[bool]) -> Res<()> {
        for s in &b.stmts {
            if !self.any_active(mask) {
                break;
            }
            if !self.has_barrier(func, s) {
                // Turned into closures once (seen from a work-item that
                // runs it), run by every work-item.
                if let Some(first) = (0..self.items.len())
                    .find(|&i| mask[i] && matches!(self.items[i].flow, Flow::Normal))
                {
                    self.cur = first;
                }
                let fast = self.fast_stmt(func, s);
                for i in 0..self.items.len() {
                    if mask[i] && matches!(self.items[i].flow, Flow::Normal) {
                        self.cur = i;
                        let flow = match &fast {
                            Some(run) => run(self)?,
                            None => self.exec_stmt(s)?,
                        };
                        self.items[i].flow = flow;
                    }
                }
                continue;
            }
            self.lock_stmt(func, s, mask)?;
        }
        Ok(())
    }

    fn any_active(&self, mask: &[bool]) -> bool {
        self.items
            .iter()
            .zip(mask)
            .any(|(s, &m)| m && matches!(s.flow, Flow::Normal))
    }

    fn active(&self, mask: &[bool]) -> Vec<bool> {
        self.items
            .iter()
            .zip(mask)
            .map(|(s, &m)| m && matches!(s.flow, Flow::Normal))
            .collect()
    }

    fn lock_stmt(&mut self, func: FuncId, s: &Stmt, mask: &[bool]) -> Res<()> {
        match &s.kind {
            StmtKind::Barrier(fence) => self.barrier(s.span, *fence, mask),
            StmtKind::Block(b) => self.lock_block(func, b, mask),
            StmtKind::If { cond, then, els } => {
                let live = self.active(mask);
                let mut yes = vec![false; live.len()];
                let mut no = vec![false; live.len()];
                for i in 0..live.len() {
                    if live[i] {
                        self.cur = i;
                        if self.eval(cond)?.truth() {
                            yes[i] = true;
                        } else {
                            no[i] = true;
                        }
                    }
                }
                if yes.contains(&true) {
                    self.lock_block(func, then, &yes)?;
                }
                if let Some(els) = els
                    && no.contains(&true)
                {
                    self.lock_block(func, els, &no)?;
                }
                Ok(())
            }
            StmtKind::Loop {
                cond,
                test_first,
                body,
                step,
            } => {
                let mut live = self.active(mask);
                let mut first = true;
                loop {
                    self.tick(s.span)?;
                    if (*test_first || !first)
                        && let Some(c) = cond
                    {
                        for i in 0..live.len() {
                            if live[i] {
                                self.cur = i;
                                if !self.eval(c)?.truth() {
                                    live[i] = false;
                                }
                            }
                        }
                    }
                    first = false;
                    if !live.contains(&true) {
                        break;
                    }
                    self.lock_block(func, body, &live)?;
                    for i in 0..live.len() {
                        if !live[i] {
                            continue;
                        }
                        match self.items[i].flow {
                            Flow::Break => {
                                self.items[i].flow = Flow::Normal;
                                live[i] = false;
                            }
                            Flow::Continue => self.items[i].flow = Flow::Normal,
                            // Kernels have no `goto` (E0304).
                            Flow::Return(_) | Flow::Goto(_) => live[i] = false,
                            Flow::Normal => {}
                        }
                        if live[i]
                            && let Some(step) = step
                        {
                            self.cur = i;
                            self.eval(step)?;
                        }
                    }
                }
                Ok(())
            }
            StmtKind::Switch { value, arms } => {
                let live = self.active(mask);
                let mut start = vec![usize::MAX; live.len()];
                for i in 0..live.len() {
                    if live[i] {
                        self.cur = i;
                        let v = self.eval(value)?.int();
                        start[i] = arms
                            .iter()
                            .position(|a| a.value == Some(v))
                            .or_else(|| arms.iter().position(|a| a.value.is_none()))
                            .unwrap_or(usize::MAX);
                    }
                }
                let mut broke = vec![false; live.len()];
                for (k, arm) in arms.iter().enumerate() {
                    let arm_mask: Vec<bool> = (0..live.len())
                        .map(|i| live[i] && start[i] <= k && !broke[i])
                        .collect();
                    if arm_mask.contains(&true) {
                        self.lock_block(func, &arm.body, &arm_mask)?;
                    }
                    for i in 0..live.len() {
                        if arm_mask[i] && matches!(self.items[i].flow, Flow::Break) {
                            self.items[i].flow = Flow::Normal;
                            broke[i] = true;
                        }
                    }
                }
                Ok(())
            }
            _ => {
                let call = match &s.kind {
                    StmtKind::Expr(e) => match &e.kind {
                        ExprKind::Call { .. } => Some(BarrierCall::Discard(e)),
                        ExprKind::Assign { target, value }
                            if matches!(value.kind, ExprKind::Call { .. })
                                && !self.expr_has_barrier(target) =>
                        {
                            Some(BarrierCall::Assign(target, value))
                        }
                        _ => None,
                    },
                    StmtKind::Let {
                        local,
                        init: Some(Init::Expr(e)),
                    } if matches!(e.kind, ExprKind::Call { .. }) => {
                        Some(BarrierCall::Let(*local, e))
                    }
                    StmtKind::Return(Some(e)) if matches!(e.kind, ExprKind::Call { .. }) => {
                        Some(BarrierCall::Return(e))
                    }
                    _ => None,
                };
                match call {
                    Some(call) => self.lock_call(call, mask),
                    None => Err(self
                        .error(
                            codes::R0008,
                            s.span,
                            "a barrier inside this statement cannot be run in step with the rest of the tile",
                        )
                        .with_label("calls a function that waits at a barrier")
                        .with_note("Tessera runs a function that waits at a barrier when every work-item of the tile calls it: as a statement, or in an expression that always evaluates the call (not on the right of `&&`, `||` or a comma, in a branch of `?:` or in the target of an assignment)")
                        .with_help("call the function in a statement of its own")
                        .into()),
                }
            }
        }
    }

    /// Calls a barrier-holding function for the work-items in `mask` together.
    fn lock_call(&mut self, call: BarrierCall<'_>, mask: &[bool]) -> Res<()> {
        let e = match &call {
            BarrierCall::Discard(e)
            | BarrierCall::Assign(_, e)
            | BarrierCall::Let(_, e)
            | BarrierCall::Return(e) => *e,
        };
        let ExprKind::Call { func, args } = &e.kind else {
            return Ok(());
        };
        let prog = self.prog;
        let Some(body) = &prog.function(*func).body else {
            return Ok(());
        };
        let live = self.active(mask);
        // The work-items run the call side by side: count it once, as one
        // work-item's call.
        let depth = self.depth;
        for i in 0..live.len() {
            if live[i] {
                self.cur = i;
                let values = self.call_args(*func, args)?;
                self.enter(*func, values, e.span)?;
                self.depth = depth;
            }
        }
        self.depth = depth + 1;
        let r = self.lock_block(*func, body, &live);
        let mut results = vec![Value::Void; live.len()];
        let mut ran_off: Option<usize> = None;
        for i in 0..live.len() {
            if live[i] {
                self.cur = i;
                match std::mem::replace(&mut self.items[i].flow, Flow::Normal) {
                    Flow::Return(v) => results[i] = v,
                    _ => ran_off = ran_off.or(Some(i)),
                }
                self.leave();
            }
        }
        self.depth = depth;
        r?;
        // A work-item that reached the end of a function returning a value
        // (R0027, as for any other call).
        let callee = prog.function(*func);
        if let Some(i) = ran_off
            && callee.ret != Type::Void
            && !callee.ret.is_error()
        {
            self.cur = i;
            return Err(self.ended_without_value(*func, e.span));
        }
        for i in 0..live.len() {
            if !live[i] {
                continue;
            }
            self.cur = i;
            let v = std::mem::replace(&mut results[i], Value::Void);
            let v = match v {
                Value::Ref(p) if !matches!(call, BarrierCall::Return(_)) => {
                    self.read(&p, e.span)?
                }
                v => v,
            };
            match &call {
                BarrierCall::Discard(_) => {}
                BarrierCall::Assign(target, _) => {
                    let v = self.copy_value(v, &target.ty, e.span)?;
                    let p = self.place(target)?;
                    self.write(&p, v, e.span)?;
                }
                BarrierCall::Let(local, _) => self.set_local(*local, v),
                BarrierCall::Return(_) => self.items[i].flow = Flow::Return(v),
            }
        }
        Ok(())
    }

    /// A barrier reached by the work-items in `mask`.
    fn barrier(&mut self, span: Span, fence: Fence, mask: &[bool]) -> Res<()> {
        let live = self.active(mask);
        let waiting: Vec<usize> = (0..live.len()).filter(|&i| live[i]).collect();
        if waiting.len() == self.items.len() {
            self.checker.barrier(fence);
            return Ok(());
        }
        let absent: Vec<usize> = (0..live.len()).filter(|&i| !live[i]).collect();
        let describe = |m: &Self, list: &[usize]| -> String {
            let shown: Vec<String> = list
                .iter()
                .take(4)
                .map(|&i| local_text(&m.items[i].thread))
                .collect();
            let more = if list.len() > 4 {
                format!(" and {} more", list.len() - 4)
            } else {
                String::new()
            };
            format!("{}{more}", shown.join(", "))
        };
        let finished: Vec<usize> = absent
            .iter()
            .copied()
            .filter(|&i| matches!(self.items[i].flow, Flow::Return(_)))
            .collect();
        let elsewhere: Vec<usize> = absent
            .iter()
            .copied()
            .filter(|&i| !matches!(self.items[i].flow, Flow::Return(_)))
            .collect();
        self.cur = waiting[0];
        let mut err = RunError::new(
            codes::R0008,
            span,
            self.items[waiting[0]].thread,
            format!(
                "barrier divergence: {} of the tile's {} work-items wait at this barrier, the others never reach it",
                waiting.len(),
                self.items.len()
            ),
        )
        .with_label(format!("waiting here: local {}", describe(self, &waiting)))
        .with_note(format!("in tile {}", tile_text(&self.items[waiting[0]].thread)));
        if !finished.is_empty() {
            err = err.with_note(format!(
                "these work-items already finished the kernel: local {}",
                describe(self, &finished)
            ));
        }
        if !elsewhere.is_empty() {
            err = err.with_note(format!(
                "these work-items took another path and do not wait here: local {}",
                describe(self, &elsewhere)
            ));
        }
        Err(Box::new(err.with_help(
            "every work-item of a tile must reach the same barriers in the same order: make the condition around the barrier the same for the whole tile",
        )))
    }
}

/// `(0,1)`: the local index of a tiled work-item.
fn local_text(t: &Thread) -> String {
    coords(t, false)
}

/// `(1,2)`: the tile of a tiled work-item.
fn tile_text(t: &Thread) -> String {
    coords(t, true)
}

fn coords(t: &Thread, tile_part: bool) -> String {
    match t {
        Thread::Tiled { rank, tile, local } => {
            let values = if tile_part { tile } else { local };
            let parts: Vec<String> = values[..usize::from(*rank)]
                .iter()
                .map(i64::to_string)
                .collect();
            format!("({})", parts.join(","))
        }
        other => other.to_string(),
    }
}

/// Row-major position `n` in a box of `dims`.
fn delinearize(mut n: i64, dims: &[i64]) -> Vec<i64> {
    let mut out = vec![0; dims.len()];
    for d in (0..dims.len()).rev() {
        out[d] = n % dims[d];
        n /= dims[d];
    }
    out
}

fn body_span(b: &Block, func: &tessera_ir::Function) -> Span {
    b.stmts.first().map_or(func.span, |s| s.span)
}

/// The exception C++ AMP throws for a compute domain a launch cannot take.
fn invalid_compute_domain(what: String) -> tessera_runtime::LibraryException {
    tessera_runtime::LibraryException {
        class: "invalid_compute_domain",
        what,
        // E_INVALIDARG, as a 64-bit `long`
        code: 0x8007_0057,
    }
}
