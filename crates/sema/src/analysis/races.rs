//! Warnings about how tiled kernels use `tile_static` memory:
//!
//! - W0411: every work-item of a tile writes the same `tile_static` location
//!   (a scalar, or an element at a uniform position) under uniform control:
//!   the writes race (`total += x` in Microsoft's "Using Tiles" article);
//! - W0412: a `tile_static` variable is read where no write to it can have
//!   happened yet (its contents are undefined until written);
//! - W0413: a kernel without any barrier writes `tile_static` elements at
//!   positions that differ between work-items and reads the variable at
//!   another position: it reads a neighbour's element with nothing ordering
//!   the neighbour's write before the read. In a kernel with barriers, a
//!   write and a read with no barrier between them in program order (the
//!   same *interval*) whose positions [`super::work_items`] can compute in
//!   each work-item, and where some work-item reads an element another one
//!   writes, under the conditions around each (a missing barrier between
//!   two phases of a tiled algorithm).
//!
//! Each function a tiled kernel can run is walked in program order for its
//! own `tile_static` variables. Control is *divergent* (only some work-items
//! get there) under a non-uniform condition, in a loop or `switch` that some
//! work-items leave early, after a non-uniform `return`, and in a function
//! that some call site reaches under divergent control.

use super::places::{self, PathStep};
use super::uniformity::{ExitFilter, Uniformity};
use super::work_items::{Step, WorkItems};
use std::collections::{HashMap, HashSet};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::facts::Barriers;
use tessera_ir::{
    AtomicOp, Block, Expr, ExprKind, FuncId, Function, FunctionKind, Init, Intrinsic, LocalId,
    Program, Stmt, StmtKind, TileShape,
};
use tessera_ir::{facts, visit};

/// Exits after which fewer work-items run the next iterations of a loop.
const LOOP_EXITS: ExitFilter = ExitFilter {
    breaks: true,
    continues: false,
    returns: true,
};

/// Exits after which fewer work-items run the rest of a `switch`.
const SWITCH_EXITS: ExitFilter = ExitFilter {
    breaks: true,
    continues: true,
    returns: true,
};

/// Runs W0411, W0412 and W0413 on every tiled kernel.
pub fn check(
    program: &Program,
    barriers: &Barriers,
    kernels: &[Uniformity<'_>],
    out: &mut Vec<Diagnostic>,
) {
    for uni in kernels {
        let shape = program
            .get_function(uni.kernel)
            .and_then(|k| match &k.kind {
                FunctionKind::Kernel { tile: Some(t), .. } => Some(*t),
                _ => None,
            });
        let within = Within { barriers, shape };
        let synchronised = barriers.contains(uni.kernel);
        // Which functions some call site reaches under divergent control; the
        // set only grows, so this ends.
        let mut entered: HashSet<FuncId> = HashSet::new();
        loop {
            let before = entered.len();
            for &f in &uni.funcs {
                if let Some(walker) = RaceWalk::run(program, uni, f, entered.contains(&f), within) {
                    entered.extend(walker.divergent_calls);
                }
            }
            if entered.len() == before {
                break;
            }
        }
        for &f in &uni.funcs {
            let Some(mut walker) = RaceWalk::run(program, uni, f, entered.contains(&f), within)
            else {
                continue;
            };
            if !synchronised {
                walker.unsynchronised_reads();
            } else if let Some(shape) = shape {
                walker.interval_races(shape);
            }
            out.append(&mut walker.diags);
        }
    }
}

/// What a walk knows of the kernel it is part of.
#[derive(Clone, Copy)]
struct Within<'a> {
    /// Which functions wait at a barrier.
    barriers: &'a Barriers,
    /// The kernel's tiles.
    shape: Option<TileShape>,
}

/// A write at positions that differ between work-items, or a read.
struct Access<'p> {
    local: LocalId,
    path: Vec<PathStep<'p>>,
    span: Span,
    /// The barrier interval it is in (see [`RaceWalk::interval`]).
    interval: u32,
    /// The conditions it runs under, each with the value it has there.
    guards: Vec<(&'p Expr, bool)>,
}

/// One walk over one function.
struct RaceWalk<'a, 'p> {
    program: &'p Program,
    uni: &'a Uniformity<'p>,
    f: FuncId,
    func: &'p Function,
    /// Work-items per tile, for messages.
    threads: Option<u64>,
    barriers: &'a Barriers,
    /// The barrier interval the walk is in: a new number after each barrier
    /// and around each statement that waits at one, so two accesses with
    /// the same number have no barrier between them in program order.
    interval: u32,
    /// The last interval number given out.
    intervals: u32,
    /// The conditions of the `if`s, `&&`, `||` and `?:` around the walk.
    guards: Vec<(&'p Expr, bool)>,
    /// Some work-items have returned.
    returned: bool,
    /// Per enclosing loop or `switch`: some work-items have left it or this iteration.
    left: Vec<bool>,
    /// Per enclosing loop or `switch`: it is a loop.
    is_loop: Vec<bool>,
    /// `tile_static` locals written so far (in program order, loops counted whole).
    written: HashSet<LocalId>,
    warned_unwritten: HashSet<LocalId>,
    warned_same: HashSet<LocalId>,
    /// Writes at positions that differ between work-items.
    spread_writes: Vec<Access<'p>>,
    reads: Vec<Access<'p>>,
    /// Functions called under divergent control.
    divergent_calls: HashSet<FuncId>,
    diags: Vec<Diagnostic>,
}

impl<'a, 'p> RaceWalk<'a, 'p> {
    /// Walks function `f`; `entered` says whether some call site reaches it
    /// under divergent control.
    fn run(
        program: &'p Program,
        uni: &'a Uniformity<'p>,
        f: FuncId,
        entered: bool,
        within: Within<'a>,
    ) -> Option<Self> {
        let func = program.get_function(f)?;
        let body = func.body.as_ref()?;
        let mut w = RaceWalk {
            program,
            uni,
            f,
            func,
            threads: within.shape.map(|t| t.threads()),
            barriers: within.barriers,
            interval: 0,
            intervals: 0,
            guards: Vec::new(),
            returned: false,
            left: Vec::new(),
            is_loop: Vec::new(),
            written: HashSet::new(),
            warned_unwritten: HashSet::new(),
            warned_same: HashSet::new(),
            spread_writes: Vec::new(),
            reads: Vec::new(),
            divergent_calls: HashSet::new(),
            diags: Vec::new(),
        };
        w.block(body, entered);
        Some(w)
    }

    fn divergent(&self, ctrl: bool) -> bool {
        ctrl || self.returned || self.left.iter().any(|&l| l)
    }

    fn is_tile_static(&self, id: LocalId) -> bool {
        self.func.is_tile_static(id)
    }

    fn block(&mut self, block: &'p Block, ctrl: bool) {
        for s in &block.stmts {
            self.stmt(s, ctrl);
        }
    }

    /// Starts a new barrier interval.
    fn next_interval(&mut self) {
        self.intervals += 1;
        self.interval = self.intervals;
    }

    fn stmt(&mut self, s: &'p Stmt, ctrl: bool) {
        // Accesses inside a statement that waits at a barrier are kept apart
        // from those before and after it: which of them a barrier separates
        // depends on the path taken, and a race is only claimed where none
        // can.
        let waits = self.barriers.in_stmt(s);
        if waits {
            self.next_interval();
        }
        self.stmt_inner(s, ctrl, waits);
        if waits {
            self.next_interval();
        }
    }

    fn stmt_inner(&mut self, s: &'p Stmt, ctrl: bool, waits: bool) {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e, ctrl),
            StmtKind::Let { init, .. } => match init {
                Some(Init::Ref(place)) => {
                    self.place(place, ctrl, false);
                    // A reference may be written through later.
                    if let Some(root) = facts::place_root(place)
                        && self.is_tile_static(root)
                    {
                        self.written.insert(root);
                    }
                }
                Some(init) => visit::for_each_init_expr(init, &mut |e| self.expr(e, ctrl)),
                None => {}
            },
            StmtKind::Block(b) => self.block(b, ctrl),
            StmtKind::Try { body, handlers } => {
                self.block(body, ctrl);
                for h in handlers {
                    self.block(&h.body, ctrl);
                }
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond, ctrl);
                let c = ctrl || !self.uni.is_uniform(self.f, cond);
                self.guards.push((cond, true));
                self.block(then, c);
                self.guards.pop();
                if let Some(els) = els {
                    // The branches are not run one after the other.
                    if waits {
                        self.next_interval();
                    }
                    self.guards.push((cond, false));
                    self.block(els, c);
                    self.guards.pop();
                }
            }
            StmtKind::Loop {
                cond, body, step, ..
            } => {
                let c = ctrl
                    || cond
                        .as_ref()
                        .is_some_and(|e| !self.uni.is_uniform(self.f, e))
                    || self.uni.divergent_exit(self.f, body, LOOP_EXITS).is_some();
                // Reads in one iteration see the writes of the previous ones.
                for id in facts::written_roots(self.program, body) {
                    if self.is_tile_static(id) {
                        self.written.insert(id);
                    }
                }
                for e in cond.iter().chain(step.iter()) {
                    visit::for_each_subexpr(e, &mut |sub| {
                        for place in facts::written_places(self.program, sub) {
                            if let Some(root) = facts::place_root(place)
                                && self.func.is_tile_static(root)
                            {
                                self.written.insert(root);
                            }
                        }
                    });
                }
                self.left.push(false);
                self.is_loop.push(true);
                if let Some(cond) = cond {
                    self.expr(cond, c);
                }
                self.block(body, c);
                if let Some(step) = step {
                    self.expr(step, c);
                }
                self.left.pop();
                self.is_loop.pop();
            }
            StmtKind::Switch { value, arms } => {
                self.expr(value, ctrl);
                let c = ctrl
                    || !self.uni.is_uniform(self.f, value)
                    || arms.iter().any(|a| {
                        self.uni
                            .divergent_exit(self.f, &a.body, SWITCH_EXITS)
                            .is_some()
                    });
                self.left.push(false);
                self.is_loop.push(false);
                for arm in arms {
                    if waits {
                        self.next_interval();
                    }
                    self.block(&arm.body, c);
                }
                self.left.pop();
                self.is_loop.pop();
            }
            StmtKind::Break => {
                if self.divergent(ctrl)
                    && let Some(last) = self.left.last_mut()
                {
                    *last = true;
                }
            }
            StmtKind::Continue => {
                if self.divergent(ctrl)
                    && let Some(target) = self.is_loop.iter().rposition(|&l| l)
                {
                    for l in self.left.iter_mut().skip(target) {
                        *l = true;
                    }
                }
            }
            StmtKind::Return(value) => {
                if let Some(v) = value {
                    self.expr(v, ctrl);
                }
                if self.divergent(ctrl) {
                    self.returned = true;
                }
            }
            // Host code only: amp code has no `goto` (E0304).
            StmtKind::Goto(_) | StmtKind::Label(_) => {}
            StmtKind::Barrier(_) => self.next_interval(),
        }
    }

    /// Evaluates `e` for its value.
    fn expr(&mut self, e: &'p Expr, ctrl: bool) {
        match &e.kind {
            ExprKind::Local(_) | ExprKind::Field { .. } | ExprKind::Element { .. } => {
                self.place(e, ctrl, true)
            }
            ExprKind::Assign { target, value } => {
                self.expr(value, ctrl);
                self.place(target, ctrl, false);
                self.write(target, e.span, ctrl, false);
            }
            ExprKind::CompoundAssign { target, value, .. } => {
                self.expr(value, ctrl);
                self.place(target, ctrl, true);
                self.write(target, e.span, ctrl, false);
            }
            ExprKind::IncDec { target, .. } => {
                self.place(target, ctrl, true);
                self.write(target, e.span, ctrl, false);
            }
            ExprKind::Conditional { cond, then, els } => {
                self.expr(cond, ctrl);
                let c = ctrl || !self.uni.is_uniform(self.f, cond);
                self.guards.push((cond, true));
                self.expr(then, c);
                self.guards.pop();
                self.guards.push((cond, false));
                self.expr(els, c);
                self.guards.pop();
            }
            ExprKind::Logical { lhs, rhs, and } => {
                self.expr(lhs, ctrl);
                let c = ctrl || !self.uni.is_uniform(self.f, lhs);
                self.guards.push((lhs, *and));
                self.expr(rhs, c);
                self.guards.pop();
            }
            ExprKind::Call { func, args } => {
                let callee = self.program.get_function(*func);
                for (i, a) in args.iter().enumerate() {
                    let param = callee
                        .filter(|c| (i as u32) < c.params)
                        .and_then(|c| c.locals.get(i));
                    if param.is_some_and(|p| p.by_ref && !p.is_const) {
                        // The callee may write the place; count it as written.
                        self.place(a, ctrl, false);
                        if let Some(root) = facts::place_root(a)
                            && self.is_tile_static(root)
                        {
                            self.written.insert(root);
                        }
                    } else {
                        self.expr(a, ctrl);
                    }
                }
                if self.divergent(ctrl) {
                    self.divergent_calls.insert(*func);
                }
            }
            // A pointer to the place: what is done through it is not
            // followed, so the place counts as written (no warning about
            // reading it first) and taking the address reads nothing.
            ExprKind::AddrOf(inner) => self.address_taken(inner, ctrl),
            ExprKind::Convert(inner)
                if matches!(inner.ty, tessera_ir::Type::CArray(..))
                    && matches!(e.ty, tessera_ir::Type::Ptr { .. }) =>
            {
                self.address_taken(inner, ctrl)
            }
            // A view made over the array: what is done through it is not
            // followed either, as for a pointer.
            ExprKind::Intrinsic {
                op: Intrinsic::NewView,
                args,
            } if args.len() == 2 && matches!(args[1].ty, tessera_ir::Type::CArray(..)) => {
                self.expr(&args[0], ctrl);
                self.address_taken(&args[1], ctrl);
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(op),
                args,
            } => {
                let mut rest = args.iter();
                if let Some(place) = rest.next() {
                    // Every atomic but an exchange reads the old value.
                    self.place(place, ctrl, *op != AtomicOp::Exchange);
                    self.write(place, e.span, ctrl, true);
                }
                for a in rest {
                    self.expr(a, ctrl);
                }
            }
            _ => visit::for_each_child(e, &mut |c| self.expr(c, ctrl)),
        }
    }

    /// `&e`, or the array `e` decayed to a pointer.
    fn address_taken(&mut self, e: &'p Expr, ctrl: bool) {
        self.place(e, ctrl, false);
        if let Some(root) = facts::place_root(e)
            && self.is_tile_static(root)
        {
            self.written.insert(root);
        }
    }

    /// Evaluates the place `e` (its indices), reading it when `read`.
    fn place(&mut self, e: &'p Expr, ctrl: bool, read: bool) {
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Field { base, .. } => cur = base,
                ExprKind::Element { base, index } => {
                    self.expr(index, ctrl);
                    cur = base;
                }
                _ => break,
            }
        }
        match &cur.kind {
            ExprKind::Local(id) => {
                if read && self.is_tile_static(*id) {
                    self.read(*id, e);
                }
            }
            _ => self.expr(cur, ctrl),
        }
    }

    fn declaration(&self, id: LocalId) -> Option<(String, Span)> {
        self.func.get_local(id).map(|l| (l.name.clone(), l.span))
    }

    /// A read of the `tile_static` local `id` through the place `e`.
    fn read(&mut self, id: LocalId, e: &'p Expr) {
        self.reads.push(Access {
            local: id,
            path: places::place_path(e),
            span: e.span,
            interval: self.interval,
            guards: self.guards.clone(),
        });
        if self.written.contains(&id) || !self.warned_unwritten.insert(id) {
            return;
        }
        let Some((name, decl)) = self.declaration(id) else {
            return;
        };
        self.diags.push(
            Diagnostic::warning(codes::W0412, e.span, format!("`tile_static` variable `{name}` is read before anything is written to it"))
                .with_label("read here")
                .with_secondary(decl, "declared here; `tile_static` variables cannot be initialised")
                .with_note("its contents are undefined until a work-item writes it; MSVC can report this as C3564")
                .with_help("write it first (one work-item, or each work-item its own element), then wait at a barrier before reading it"),
        );
    }

    /// A write to `target` by the expression at `span`.
    fn write(&mut self, target: &'p Expr, span: Span, ctrl: bool, atomic: bool) {
        let Some(root) = facts::place_root(target) else {
            return;
        };
        if !self.is_tile_static(root) {
            return;
        }
        self.written.insert(root);
        if self.uni.path_why(self.f, target).is_some() {
            self.spread_writes.push(Access {
                local: root,
                path: places::place_path(target),
                span,
                interval: self.interval,
                guards: self.guards.clone(),
            });
            return;
        }
        // A tile of one work-item has no one to race with.
        if atomic
            || self.threads == Some(1)
            || self.divergent(ctrl)
            || !self.warned_same.insert(root)
        {
            return;
        }
        let Some((name, decl)) = self.declaration(root) else {
            return;
        };
        let who = self.threads.map_or_else(
            || "all work-items".to_string(),
            |n| format!("all {n} work-items"),
        );
        self.diags.push(
            Diagnostic::warning(codes::W0411, span, format!("every work-item of the tile writes the same `tile_static` location `{name}`"))
                .with_label("every work-item of the tile runs this write")
                .with_secondary(decl, "one instance, shared by the whole tile")
                .with_note(format!("{who} of the tile write the same location at the same time: the writes race, and what is left depends on timing"))
                .with_help("let one work-item write it (guard the write with a test that the tiled index's `local` is zero in every dimension), or give each work-item its own element, indexed by `local`"),
        );
    }

    /// W0413 in a kernel with barriers: a read and a write of one variable
    /// in the same barrier interval, where some work-item reads an element
    /// another one writes (both computed in each work-item of a tile).
    fn interval_races(&mut self, shape: TileShape) {
        if self.reads.is_empty() || self.spread_writes.is_empty() {
            return;
        }
        let items = WorkItems::new(self.program, self.func, shape);
        let coords = items.all();
        let mut warned: HashSet<LocalId> = HashSet::new();
        let mut found = Vec::new();
        for read in &self.reads {
            if warned.contains(&read.local) {
                continue;
            }
            let hit = self
                .spread_writes
                .iter()
                .filter(|w| w.local == read.local && w.interval == read.interval)
                .filter(|w| !self.exclusive(read, w))
                .find_map(|w| conflict(&items, &coords, w, read).map(|hit| (w, hit)));
            let Some((write, hit)) = hit else {
                continue;
            };
            warned.insert(read.local);
            let Some((name, decl)) = self.declaration(read.local) else {
                continue;
            };
            let element = show_element(&name, &hit.location);
            let (writer, reader) = (items.show(&hit.writer), items.show(&hit.reader));
            found.push(
                Diagnostic::warning(codes::W0413, read.span, format!("`tile_static` variable `{name}` is shared between work-items without a barrier"))
                    .with_label(format!("local {reader} reads {element} here"))
                    .with_secondary(write.span, format!("local {writer} writes it here"))
                    .with_secondary(decl, "declared here")
                    .with_note("no barrier comes between the write and the read, so nothing orders them: the read may happen before or after the other work-item's write")
                    .with_help("wait at `t.barrier.wait()` between the writes and the reads"),
            );
        }
        self.diags.append(&mut found);
    }

    /// True when `a` and `b` are in the two branches of one condition that
    /// every work-item of a tile evaluates alike: no tile runs both.
    fn exclusive(&self, a: &Access<'p>, b: &Access<'p>) -> bool {
        a.guards.iter().any(|(x, want)| {
            b.guards.iter().any(|(y, other)| {
                std::ptr::eq(*x, *y) && want != other && self.uni.is_uniform(self.f, x)
            })
        })
    }

    /// W0413: reads of other work-items' elements in a kernel without barriers.
    fn unsynchronised_reads(&mut self) {
        let mut warned: HashSet<LocalId> = HashSet::new();
        for read in &self.reads {
            let writes: Vec<&Access<'_>> = self
                .spread_writes
                .iter()
                .filter(|w| w.local == read.local)
                .collect();
            let Some(first) = writes.first() else {
                continue;
            };
            if writes
                .iter()
                .any(|w| places::same_path(&w.path, &read.path))
                || !warned.insert(read.local)
            {
                continue;
            }
            let Some((name, decl)) = self.declaration(read.local) else {
                continue;
            };
            self.diags.push(
                Diagnostic::warning(codes::W0413, read.span, format!("`tile_static` variable `{name}` is shared between work-items without a barrier"))
                    .with_label("this may read an element another work-item writes")
                    .with_secondary(first.span, "each work-item writes its own element here")
                    .with_secondary(decl, "declared here")
                    .with_note("the kernel waits at no barrier, so nothing makes the other work-items' writes happen before this read")
                    .with_help("wait at `t.barrier.wait()` between the writes and the reads"),
            );
        }
    }
}

/// A work-item that reads an element another one writes.
struct Conflict {
    writer: [i64; 3],
    reader: [i64; 3],
    location: Vec<Step>,
}

/// Whether some work-item of a tile reads, at `read`, an element another
/// work-item writes at `write`, where the positions are known.
fn conflict(
    items: &WorkItems<'_>,
    coords: &[[i64; 3]],
    write: &Access<'_>,
    read: &Access<'_>,
) -> Option<Conflict> {
    // A write of a whole element covers its parts, and the other way round.
    let common = write.path.len().min(read.path.len());
    let mut writers: HashMap<Vec<Step>, Vec<usize>> = HashMap::new();
    for (i, at) in coords.iter().enumerate() {
        if !items.may_run(&write.guards, at) {
            continue;
        }
        let Some(mut location) = items.location(&write.path, at) else {
            continue;
        };
        location.truncate(common);
        let who = writers.entry(location).or_default();
        // Two writers are enough to find one other than any reader.
        if who.len() < 2 {
            who.push(i);
        }
    }
    for (i, at) in coords.iter().enumerate() {
        if !items.may_run(&read.guards, at) {
            continue;
        }
        let Some(mut location) = items.location(&read.path, at) else {
            continue;
        };
        location.truncate(common);
        if let Some(&w) = writers
            .get(&location)
            .and_then(|who| who.iter().find(|&&w| w != i))
        {
            return Some(Conflict {
                writer: coords[w],
                reader: *at,
                location: items.location(&read.path, at)?,
            });
        }
    }
    None
}

/// `` `s[0][1]` `` for a location of the variable `name` made of elements;
/// "an element" when it goes through fields.
fn show_element(name: &str, location: &[Step]) -> String {
    let mut text = format!("`{name}");
    for step in location {
        match step {
            Step::Index(i) => text.push_str(&format!("[{i}]")),
            Step::Field(_) => return "an element".to_string(),
        }
    }
    text.push('`');
    text
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use tessera_ir::{AtomicOp, BinOp, Expr, Space, TiledIndexPart, Type};

    const N: u32 = 64;

    fn eq0(e: Expr) -> Expr {
        bin(BinOp::Eq, e, int(0))
    }

    fn sorted(mut codes: Vec<&'static str>) -> Vec<&'static str> {
        codes.sort_unstable();
        codes
    }

    fn codes_of(more: Vec<tessera_ir::Local>, body: Vec<tessera_ir::Stmt>) -> Vec<&'static str> {
        sorted(ir_codes(&tiled_program(N, more, body)))
    }

    fn global_value() -> Expr {
        view_elem(
            cap(1, float_view()),
            part(TiledIndexPart::Global, tile1(N)),
            float_ty(),
        )
    }

    fn total() -> Expr {
        var(1, float_ty())
    }

    // --- W0411 and W0412 ---

    #[test]
    fn every_work_item_adds_to_the_same_total() {
        // tile_static float total; total += data[t.global]; barrier;
        let write = compound(BinOp::Add, total(), global_value());
        let write_span = write.span;
        let p = tiled_program(
            N,
            vec![shared("total", float_ty())],
            vec![s_decl(1), s_expr(write), s_barrier()],
        );
        let d = ir_diags(&p);
        assert_eq!(
            sorted(d.iter().map(|d| d.code.as_str()).collect()),
            ["W0411", "W0412"],
            "{d:#?}"
        );
        let same = d
            .iter()
            .find(|d| d.code.as_str() == "W0411")
            .expect("W0411");
        assert_eq!(same.primary.span, write_span);
        assert!(
            same.notes.iter().any(|n| n.contains("all 64 work-items")),
            "{:#?}",
            same.notes
        );
        assert!(same.help.as_deref().is_some_and(
            |h| h.contains("let one work-item write it") && h.contains("indexed by `local`")
        ));
        assert!(!same.is_error());
    }

    #[test]
    fn one_work_item_at_a_time_is_fine() {
        // if (t.local[0] == 0) total = data[..]; barrier; if (t.local[0] == 1) total += data[..]; barrier;
        let body = vec![
            s_decl(1),
            s_if(
                eq0(local0(N)),
                vec![s_expr(assign(total(), global_value()))],
                None,
            ),
            s_barrier(),
            s_if(
                bin(BinOp::Eq, local0(N), int(1)),
                vec![s_expr(compound(BinOp::Add, total(), global_value()))],
                None,
            ),
            s_barrier(),
        ];
        assert!(codes_of(vec![shared("total", float_ty())], body).is_empty());
    }

    #[test]
    fn each_work_item_its_own_element_is_fine() {
        let body = vec![
            s_decl(1),
            s_expr(assign(elem(var(1, floats(N)), local0(N)), global_value())),
            s_barrier(),
        ];
        assert!(codes_of(vec![shared("cache", floats(N))], body).is_empty());
    }

    #[test]
    fn same_element_from_every_work_item() {
        let body = vec![
            s_decl(1),
            s_expr(assign(elem(var(1, floats(N)), int(0)), global_value())),
            s_barrier(),
        ];
        assert_eq!(codes_of(vec![shared("cache", floats(N))], body), ["W0411"]);
    }

    #[test]
    fn every_element_from_every_work_item_in_a_uniform_loop() {
        // for (k = 0; k < 64; k++) cache[k] = 0;
        let body = vec![
            s_decl(1),
            s_for(
                2,
                int(0),
                int(64),
                int(1),
                vec![s_expr(assign(elem(var(1, floats(N)), ivar(2)), float(0.0)))],
            ),
        ];
        assert_eq!(
            codes_of(vec![shared("cache", floats(N)), private("k")], body),
            ["W0411"]
        );
    }

    #[test]
    fn atomics_never_race() {
        let count = || var(1, Type::INT);
        let body = vec![
            s_decl(1),
            s_if(eq0(local0(N)), vec![s_expr(assign(count(), int(0)))], None),
            s_barrier(),
            s_expr(atomic(AtomicOp::Add, count(), int(1))),
            s_barrier(),
        ];
        assert!(codes_of(vec![shared("count", Type::INT)], body).is_empty());
    }

    #[test]
    fn atomic_on_an_unwritten_variable_reads_it() {
        let body = vec![
            s_decl(1),
            s_expr(atomic(AtomicOp::Add, var(1, Type::INT), int(1))),
        ];
        assert_eq!(codes_of(vec![shared("count", Type::INT)], body), ["W0412"]);
        let body = vec![
            s_decl(1),
            s_expr(atomic(AtomicOp::Exchange, var(1, Type::INT), int(1))),
        ];
        assert!(codes_of(vec![shared("count", Type::INT)], body).is_empty());
    }

    #[test]
    fn writes_after_a_divergent_return_are_by_some_work_items() {
        // if (t.local[0] != 0) return; total = data[...];
        let body = vec![
            s_decl(1),
            s_if(bin(BinOp::Ne, local0(N), int(0)), vec![s_return()], None),
            s_expr(assign(total(), global_value())),
        ];
        assert!(codes_of(vec![shared("total", float_ty())], body).is_empty());
    }

    #[test]
    fn writes_after_a_uniform_return_are_by_every_work_item() {
        let body = vec![
            s_decl(1),
            s_if(eq0(tile0(N)), vec![s_return()], None),
            s_expr(assign(total(), global_value())),
        ];
        assert_eq!(codes_of(vec![shared("total", float_ty())], body), ["W0411"]);
    }

    #[test]
    fn writes_in_a_loop_some_work_items_leave_are_fine() {
        // for (k = 0; k < 4; k++) { if (t.local[0] == k) break; total = k; }
        let body = vec![
            s_decl(1),
            s_for(
                2,
                int(0),
                int(4),
                int(1),
                vec![
                    s_if(bin(BinOp::Eq, local0(N), ivar(2)), vec![s_break()], None),
                    s_expr(assign(var(1, Type::INT), ivar(2))),
                ],
            ),
        ];
        assert!(codes_of(vec![shared("total", Type::INT), private("k")], body).is_empty());
    }

    #[test]
    fn read_before_any_write() {
        // float v = cache[t.local[0]]; cache[t.local[0]] = v;
        let read = elem(var(1, floats(N)), local0(N));
        let read_span = read.span;
        let p = tiled_program(
            N,
            vec![
                shared("cache", floats(N)),
                loc("v", float_ty(), Space::Private),
            ],
            vec![
                s_decl(1),
                s_let(2, read),
                s_expr(assign(
                    elem(var(1, floats(N)), local0(N)),
                    var(2, float_ty()),
                )),
            ],
        );
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "W0412");
        assert_eq!(d[0].primary.span, read_span);
        assert!(d[0].notes.iter().any(|n| n.contains("C3564")));
    }

    #[test]
    fn reads_in_a_loop_that_writes_are_fine() {
        // for (k...) { if (t.local[0] == 0) { float v = total; total = v + 1; } barrier; }
        let body = vec![
            s_decl(1),
            s_for(
                2,
                int(0),
                int(4),
                int(1),
                vec![
                    s_if(
                        eq0(local0(N)),
                        vec![
                            s_let(3, total()),
                            s_expr(assign(
                                total(),
                                bin(BinOp::Add, var(3, float_ty()), float(1.0)),
                            )),
                        ],
                        None,
                    ),
                    s_barrier(),
                ],
            ),
        ];
        let more = vec![
            shared("total", float_ty()),
            private("k"),
            loc("v", float_ty(), Space::Private),
        ];
        assert!(codes_of(more, body).is_empty());
    }

    #[test]
    fn passing_by_reference_counts_as_a_write() {
        let mut r = loc("r", float_ty(), Space::Private);
        r.by_ref = true;
        let set = plain(
            "set",
            true,
            1,
            vec![r],
            Type::Void,
            vec![s_expr(assign(var(0, float_ty()), float(1.0)))],
        );
        let k = kernel(
            Some(tile1(N)),
            vec![],
            vec![
                shared("cache", floats(N)),
                loc("v", float_ty(), Space::Private),
            ],
            vec![
                s_decl(1),
                s_expr(call(
                    2,
                    vec![elem(var(1, floats(N)), local0(N))],
                    Type::Void,
                )),
                s_barrier(),
                s_let(2, elem(var(1, floats(N)), int(3))),
            ],
        );
        let p = program(vec![main_launching(&[1]), k, set]);
        assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
    }

    /// A helper with its own `tile_static` scalar, written by whoever calls it.
    fn helper_program(guarded: bool) -> tessera_ir::Program {
        let helper = plain(
            "publish",
            true,
            1,
            vec![private("v"), shared("slot", Type::INT)],
            Type::Void,
            vec![s_decl(1), s_expr(assign(var(1, Type::INT), ivar(0)))],
        );
        let relay = plain(
            "relay",
            true,
            1,
            vec![private("v")],
            Type::Void,
            vec![s_expr(call(3, vec![ivar(0)], Type::Void))],
        );
        let the_call = s_expr(call(2, vec![tile0(N)], Type::Void));
        let body = if guarded {
            vec![s_if(eq0(local0(N)), vec![the_call], None)]
        } else {
            vec![the_call]
        };
        let k = kernel(Some(tile1(N)), vec![], vec![], body);
        program(vec![main_launching(&[1]), k, relay, helper])
    }

    #[test]
    fn helpers_reached_by_every_work_item_race_too() {
        assert_eq!(ir_codes(&helper_program(false)), ["W0411"]);
    }

    #[test]
    fn helpers_reached_by_one_work_item_do_not() {
        assert!(ir_codes(&helper_program(true)).is_empty());
    }

    // --- W0413 ---

    /// `cache[i] = data[t.global]; out = cache[read_at];` with `i = t.local[0]`,
    /// and a barrier in between when `barrier`.
    fn neighbour_program(read_at: Expr, barrier: bool) -> tessera_ir::Program {
        let mut body = vec![
            s_decl(1),
            s_let(2, local0(N)),
            s_expr(assign(elem(var(1, floats(N)), ivar(2)), global_value())),
        ];
        if barrier {
            body.push(s_barrier());
        }
        body.push(s_expr(assign(
            global_value(),
            elem(var(1, floats(N)), read_at),
        )));
        tiled_program(N, vec![shared("cache", floats(N)), private("i")], body)
    }

    #[test]
    fn neighbour_read_without_a_barrier() {
        let next = bin(BinOp::Rem, bin(BinOp::Add, ivar(2), int(1)), int(64));
        let d = ir_diags(&neighbour_program(next, false));
        assert_eq!(
            d.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
            ["W0413"],
            "{d:#?}"
        );
        assert!(d[0].help.as_deref().is_some_and(|h| h.contains("barrier")));
    }

    #[test]
    fn neighbour_read_after_a_barrier_is_fine() {
        let next = bin(BinOp::Rem, bin(BinOp::Add, ivar(2), int(1)), int(64));
        assert!(ir_codes(&neighbour_program(next, true)).is_empty());
    }

    #[test]
    fn own_element_read_without_a_barrier_is_fine() {
        assert!(ir_codes(&neighbour_program(ivar(2), false)).is_empty());
    }

    #[test]
    fn barrier_in_a_helper_counts() {
        let tile = tessera_ir::Type::TiledIndex(tile1(N));
        let sync = plain(
            "sync",
            true,
            1,
            vec![loc("t", tile.clone(), Space::Private)],
            Type::Void,
            vec![s_barrier()],
        );
        let next = bin(BinOp::Rem, bin(BinOp::Add, ivar(2), int(1)), int(64));
        let mut p = neighbour_program(next, false);
        if let Some(b) = p.functions[1].body.as_mut() {
            b.stmts
                .insert(3, s_expr(call(2, vec![var(0, tile)], Type::Void)));
        }
        p.functions.push(sync);
        assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
    }

    // --- from source ---

    const PRELUDE: &str = "#include <amp.h>\nusing namespace concurrency;\n#define SAMPLESIZE 2\n";

    #[test]
    fn seed_race_docs_example() {
        let src = format!(
            "{PRELUDE}void averages(array_view<const float, 2> matrix, array_view<float, 2> out) {{\n\
             parallel_for_each(matrix.extent.tile<SAMPLESIZE, SAMPLESIZE>(),\n\
                 [=](tiled_index<SAMPLESIZE, SAMPLESIZE> t_idx) restrict(amp) {{\n\
                 tile_static float total;\n\
                 total += matrix[t_idx];\n\
                 t_idx.barrier.wait();\n\
                 out(t_idx.tile[0], t_idx.tile[1]) = total / (SAMPLESIZE * SAMPLESIZE);\n\
             }});\n}}\n"
        );
        assert_eq!(sorted(src_codes(&src)), ["W0411", "W0412"]);
    }

    #[test]
    fn seed_race_guarded_version() {
        let src = format!(
            "{PRELUDE}void averages(array_view<const float, 2> matrix, array_view<float, 2> out) {{\n\
             parallel_for_each(matrix.extent.tile<SAMPLESIZE, SAMPLESIZE>(),\n\
                 [=](tiled_index<SAMPLESIZE, SAMPLESIZE> t_idx) restrict(amp) {{\n\
                 tile_static float total;\n\
                 if (t_idx.local[0] == 0&& t_idx.local[1] == 0) {{\n\
                     total = matrix[t_idx];\n\
                 }}\n\
                 t_idx.barrier.wait();\n\
                 if (t_idx.local[0] == 0&& t_idx.local[1] == 1) {{\n\
                     total += matrix[t_idx];\n\
                 }}\n\
                 t_idx.barrier.wait();\n\
                 out(t_idx.tile[0], t_idx.tile[1]) = total;\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn seed_race_docs_fix() {
        let src = format!(
            "{PRELUDE}void averages(array_view<const float, 2> matrix, array_view<float, 2> out) {{\n\
             parallel_for_each(matrix.extent.tile<SAMPLESIZE, SAMPLESIZE>(),\n\
                 [=](tiled_index<SAMPLESIZE, SAMPLESIZE> t_idx) restrict(amp) {{\n\
                 tile_static float values[SAMPLESIZE][SAMPLESIZE];\n\
                 values[t_idx.local[0]][t_idx.local[1]] = matrix[t_idx];\n\
                 t_idx.barrier.wait();\n\
                 if (t_idx.local[0] == 0 && t_idx.local[1] == 0) {{\n\
                     float total = 0.0f;\n\
                     for (int r = 0; r < SAMPLESIZE; ++r) {{\n\
                         for (int c = 0; c < SAMPLESIZE; ++c) {{ total += values[r][c]; }}\n\
                     }}\n\
                     out(t_idx.tile[0], t_idx.tile[1]) = total / (SAMPLESIZE * SAMPLESIZE);\n\
                 }}\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn unwritten_histogram_docs_example() {
        let src = format!(
            "{PRELUDE}void histogram(array_view<const int, 1> data, array_view<int, 1> hist) {{\n\
             parallel_for_each(data.extent.tile<128>(), [=](tiled_index<128> t) restrict(amp) {{\n\
                 tile_static int bins[16];\n\
                 atomic_fetch_add(&bins[data[t.global] % 16], 1);\n\
                 t.barrier.wait();\n\
                 if (t.local[0] < 16) {{\n\
                     atomic_fetch_add(&hist[t.local[0]], bins[t.local[0]]);\n\
                 }}\n\
             }});\n}}\n"
        );
        assert_eq!(src_codes(&src), ["W0412"]);
    }

    #[test]
    fn unwritten_histogram_docs_fix() {
        let src = format!(
            "{PRELUDE}void histogram(array_view<const int, 1> data, array_view<int, 1> hist) {{\n\
             parallel_for_each(data.extent.tile<128>(), [=](tiled_index<128> t) restrict(amp) {{\n\
                 tile_static int bins[16];\n\
                 if (t.local[0] < 16) {{\n\
                     bins[t.local[0]] = 0;\n\
                 }}\n\
                 t.barrier.wait();\n\
                 atomic_fetch_add(&bins[data[t.global] % 16], 1);\n\
                 t.barrier.wait();\n\
                 if (t.local[0] < 16) {{\n\
                     atomic_fetch_add(&hist[t.local[0]], bins[t.local[0]]);\n\
                 }}\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn missing_barrier_docs_example() {
        let src = format!(
            "{PRELUDE}void smooth(array_view<const float, 1> in, array_view<float, 1> out) {{\n\
             parallel_for_each(in.extent.tile<64>(), [=](tiled_index<64> t) restrict(amp) {{\n\
                 tile_static float cache[64];\n\
                 int i = t.local[0];\n\
                 cache[i] = in[t.global];\n\
                 out[t.global] = (cache[i] + cache[(i + 1) % 64]) / 2;\n\
             }});\n}}\n"
        );
        assert_eq!(src_codes(&src), ["W0413"]);
    }

    #[test]
    fn missing_barrier_docs_fix() {
        let src = format!(
            "{PRELUDE}void smooth(array_view<const float, 1> in, array_view<float, 1> out) {{\n\
             parallel_for_each(in.extent.tile<64>(), [=](tiled_index<64> t) restrict(amp) {{\n\
                 tile_static float cache[64];\n\
                 int i = t.local[0];\n\
                 cache[i] = in[t.global];\n\
                 t.barrier.wait();\n\
                 out[t.global] = (cache[i] + cache[(i + 1) % 64]) / 2;\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    // --- W0413 between two barriers ---

    /// A tiled 3-D reduction over tiles of 2x2x4: the elements are stored,
    /// then halved along the last dimension twice; `between` goes between
    /// the store and the first step, `middle` between the two steps.
    fn reduction_3d(between: &str, middle: &str) -> String {
        format!(
            "{PRELUDE}void reduce(array_view<const int, 3> in, array_view<int, 3> out) {{\n\
             parallel_for_each(in.extent.tile<2, 2, 4>(), [=](tiled_index<2, 2, 4> t) restrict(amp) {{\n\
                 tile_static int s[2][2][4];\n\
                 int a = t.local[0];\n\
                 int b = t.local[1];\n\
                 int c = t.local[2];\n\
                 s[a][b][c] = in[t.global];\n\
                 {between}\n\
                 if (c < 2) s[a][b][c] += s[a][b][c + 2];\n\
                 {middle}\n\
                 if (c == 0) s[a][b][0] += s[a][b][1];\n\
                 t.barrier.wait();\n\
                 out[t.global] = s[0][0][0] + s[0][1][0] + s[1][0][0] + s[1][1][0];\n\
             }});\n}}\n"
        )
    }

    #[test]
    fn reduction_3d_with_every_barrier_is_fine() {
        // Each step reads elements of work-items that write nothing in it.
        let src = reduction_3d("t.barrier.wait();", "t.barrier.wait();");
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn reduction_3d_without_its_middle_barriers() {
        let src = reduction_3d("", "");
        let d = check_src(&src);
        let codes: Vec<&str> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["W0413"], "{d:#?}");
        // The first step reads what another work-item's store wrote.
        assert!(
            d[0].primary
                .message
                .contains("local (0,0,0) reads `s[0][0][2]`")
        );
        assert!(
            d[0].secondary
                .iter()
                .any(|l| l.message.contains("local (0,0,2) writes it"))
        );
    }

    #[test]
    fn reduction_3d_without_the_barrier_between_its_steps() {
        // `c == 0` reads `s[a][b][1]`, which `c == 1` writes in the step before.
        let src = reduction_3d("t.barrier.wait();", "");
        let d = check_src(&src);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert!(
            d[0].primary
                .message
                .contains("local (0,0,0) reads `s[0][0][1]`")
        );
    }

    #[test]
    fn a_barrier_in_a_loop_separates_its_iterations_phases() {
        let src = format!(
            "{PRELUDE}void run(array_view<int, 2> v) {{\n\
             parallel_for_each(v.extent.tile<4, 4>(), [=](tiled_index<4, 4> t) restrict(amp) {{\n\
                 tile_static int s[4][4];\n\
                 int r = t.local[0];\n\
                 int c = t.local[1];\n\
                 for (int k = 0; k < 3; k++) {{\n\
                     s[r][c] = v[t.global] + k;\n\
                     t.barrier.wait();\n\
                     v[t.global] = s[c][r];\n\
                     t.barrier.wait();\n\
                 }}\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
        let racy = src.replacen("t.barrier.wait();\n", "\n", 1);
        assert_eq!(src_codes(&racy), ["W0413"]);
    }

    #[test]
    fn branches_of_a_uniform_condition_do_not_race() {
        // Every work-item of a tile takes the same branch of `flag`.
        let src = format!(
            "{PRELUDE}void run(array_view<int, 1> v, int flag) {{\n\
             parallel_for_each(v.extent.tile<8>(), [=](tiled_index<8> t) restrict(amp) {{\n\
                 tile_static int s[8];\n\
                 int i = t.local[0];\n\
                 s[i] = 0;\n\
                 t.barrier.wait();\n\
                 if (flag > 0) s[i] = v[t.global]; else v[t.global] = s[7 - i];\n\
                 t.barrier.wait();\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
        // Under a condition that differs between work-items they do.
        let racy = src.replace("flag > 0", "v[t.global] > 0");
        assert_eq!(src_codes(&racy), ["W0413"]);
    }

    #[test]
    fn positions_the_program_does_not_fix_are_not_guessed() {
        // `j` comes from data: the read may or may not be another's element.
        let src = format!(
            "{PRELUDE}void run(array_view<int, 1> v) {{\n\
             parallel_for_each(v.extent.tile<8>(), [=](tiled_index<8> t) restrict(amp) {{\n\
                 tile_static int s[8];\n\
                 int i = t.local[0];\n\
                 int j = v[t.global] & 7;\n\
                 t.barrier.wait();\n\
                 s[i] = i;\n\
                 v[t.global] = s[j];\n\
                 t.barrier.wait();\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn a_view_over_a_tile_static_array_is_not_a_read_of_it() {
        // What is done through the view is not followed: making it reads
        // nothing, and the array counts as written.
        let src = format!(
            "{PRELUDE}void run(array_view<int, 1> v) {{\n\
             parallel_for_each(v.extent.tile<8>(), [=](tiled_index<8> t) restrict(amp) {{\n\
                 tile_static int s[8];\n\
                 array_view<int, 1> sv(8, s);\n\
                 sv[t.local] = t.global[0];\n\
                 t.barrier.wait();\n\
                 v[t.global] = s[7 - t.local[0]];\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
        // Read directly before anything is written, it is still reported.
        let early = src.replace(
            "array_view<int, 1> sv(8, s);",
            "int first = s[0];\n array_view<int, 1> sv(8, s);",
        );
        assert_eq!(src_codes(&early), ["W0412"]);
    }
}
