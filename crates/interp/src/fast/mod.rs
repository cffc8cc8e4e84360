//! Loops, and a tile's statements between barriers, turned once into
//! closures.
//!
//! Walking the typed tree decides again at every step what each node is:
//! which kind of expression, whether a variable is `tile_static`, which
//! types an operator has. A loop runs its body many times, so the first time
//! a loop statement runs, its condition, step and body are turned into a
//! tree of closures with those decisions made, kept by function and
//! statement id for the rest of the run. A statement of a tiled kernel that
//! holds no barrier is run by each work-item of every tile in turn (see
//! `Machine::lock_stmts`), so it is turned into closures the same way.
//!
//! The closures do exactly what the tree walker does, in the same order,
//! with the same checks, ticks and errors: every form they handle calls the
//! same code for its work (`finish_binary`, `finish_assign`, ...), a fast
//! path gives up to the tree walker (`Machine::eval`) only before it has
//! done anything the walker would do again (its operands are pure), and
//! every form they do not handle is handed to the tree walker whole. So the
//! set of forms handled here can grow one at a time without a change of
//! behaviour.

mod elements;
mod numbers;

use crate::machine::{Flow, Machine, Res};
use crate::value::{Value, read_path_with};
use numbers::{Int, Long, Number, NumberType};
use std::rc::Rc;
use tessera_ir::{Block, Expr, ExprKind, FuncId, Init, Intrinsic, Scalar, Stmt, StmtKind, Type};

/// An expression turned into a closure: its value.
type FastExpr<'p> = Box<dyn Fn(&mut Machine<'p>) -> Res<Value> + 'p>;

/// An expression whose value is not used (a statement's, a loop's step)
/// turned into a closure: the value is never made.
type Effect<'p> = Box<dyn Fn(&mut Machine<'p>) -> Res<()> + 'p>;

/// A statement turned into a closure: how it finished.
pub(crate) type FastStmt<'p> = dyn Fn(&mut Machine<'p>) -> Res<Flow> + 'p;

/// Where the array of a `a[i][j]...` read lives.
#[derive(Clone, Copy)]
enum ArrayRoot {
    /// A `tile_static` variable, by slot.
    TileStatic(u32),
    /// A local of the running frame.
    Local(tessera_ir::LocalId),
}

/// What the closures of one function are made from.
struct Compiler<'p> {
    /// `tile_static` slot of each local of the function.
    ts_slot: Vec<Option<u32>>,
    /// The function's locals.
    func: &'p tessera_ir::Function,
}

/// Statements turned into closures, by function and statement id (`None`:
/// left to the tree walker).
pub(crate) type FastStmts<'p> =
    rustc_hash::FxHashMap<(FuncId, tessera_ir::StmtId), Option<Rc<FastStmt<'p>>>>;

impl<'p> Machine<'p> {
    /// The closures of loop statement `s` of the running function, made the
    /// first time it runs; `None` when it is not a statement of the running
    /// function's body (then the tree walker runs it).
    pub(crate) fn fast_loop(&mut self, s: &Stmt) -> Option<Rc<FastStmt<'p>>> {
        let func = self.current_fn()?;
        let key = (func, s.id);
        if let Some(found) = self.fast_loops.get(&key) {
            return found.clone();
        }
        // The caller has offered this loop to the engine already.
        let made = self
            .compiler(func, s)
            .map(|(c, stmt)| Rc::from(c.loop_stmt(stmt, false)));
        self.fast_loops.insert(key, made.clone());
        made
    }

    /// The closures of statement `s` of function `func`, which a tile's
    /// work-items run in turn (see `Machine::lock_stmts`), made the first
    /// time; `None` when it is not a statement of `func`'s body.
    pub(crate) fn fast_stmt(&mut self, func: FuncId, s: &Stmt) -> Option<Rc<FastStmt<'p>>> {
        // The closures read the running frame's locals as `func`'s.
        if self.current_fn() != Some(func) {
            return None;
        }
        let key = (func, s.id);
        if let Some(found) = self.fast_stmts.get(&key) {
            return found.clone();
        }
        let made = self
            .compiler(func, s)
            .map(|(c, stmt)| Rc::from(c.stmt(stmt)));
        self.fast_stmts.insert(key, made.clone());
        made
    }

    /// A compiler for function `func` and the program's own statement `s`
    /// (borrowed for as long as the machine runs), when `s` is one of
    /// `func`'s.
    fn compiler(&mut self, func: FuncId, s: &Stmt) -> Option<(Compiler<'p>, &'p Stmt)> {
        let prog: &'p tessera_ir::Program = self.prog;
        let f = prog.get_function(func)?;
        // The function's statements by id, found in one walk of its body.
        let stmts = self.stmt_index.entry(func).or_insert_with(|| {
            let mut stmts = rustc_hash::FxHashMap::default();
            if let Some(body) = &f.body {
                tessera_ir::visit::for_each_stmt(body, &mut |node| {
                    if let tessera_ir::visit::Node::Stmt(st) = node {
                        stmts.insert(st.id, st);
                    }
                });
            }
            stmts
        });
        let stmt: &'p Stmt = stmts.get(&s.id).copied()?;
        if !std::ptr::eq(stmt, s) {
            return None;
        }
        let compiler = Compiler {
            ts_slot: self.ts_slot.get(func.index()).cloned().unwrap_or_default(),
            func: f,
        };
        Some((compiler, stmt))
    }
}

impl<'p> Compiler<'p> {
    /// Whether local `id` is one whose frame slot may hold its value (not
    /// `tile_static`, not a reference); a read of any other is the tree
    /// walker's.
    fn plain(&self, id: tessera_ir::LocalId) -> bool {
        !matches!(self.ts_slot.get(id.index()), Some(Some(_)))
            && self.func.get_local(id).is_some_and(|d| !d.by_ref)
    }

    /// A block: each statement counts toward the time limit, and the
    /// block's locals end with it (see `Machine::exec_block`).
    fn block(&self, b: &'p Block) -> Box<FastStmt<'p>> {
        // A block holding a `goto` target is the walker's, which resumes
        // at the label.
        if b.stmts.iter().any(|s| matches!(s.kind, StmtKind::Label(_))) {
            return Box::new(move |m| m.exec_block(b));
        }
        let stmts: Vec<(&'p Stmt, Box<FastStmt<'p>>)> =
            b.stmts.iter().map(|s| (s, self.stmt(s))).collect();
        // `end_scope` only clears the locals a block declares.
        let declares = b
            .stmts
            .iter()
            .any(|s| matches!(s.kind, StmtKind::Let { .. }));
        let end_scope = move |m: &mut Machine<'p>| {
            if declares {
                m.end_scope(b);
            }
        };
        Box::new(move |m| {
            let mut flow = Flow::Normal;
            for (s, run) in &stmts {
                if let Err(e) = m.tick(s.span) {
                    end_scope(m);
                    return Err(e);
                }
                match run(m) {
                    Ok(Flow::Normal) => {}
                    Ok(other) => {
                        flow = other;
                        break;
                    }
                    Err(e) => {
                        end_scope(m);
                        return Err(e);
                    }
                }
            }
            end_scope(m);
            Ok(flow)
        })
    }

    /// A statement (see `Machine::exec_stmt`).
    fn stmt(&self, s: &'p Stmt) -> Box<FastStmt<'p>> {
        match &s.kind {
            StmtKind::Expr(e) => {
                let e = self.effect(e);
                Box::new(move |m| {
                    e(m)?;
                    Ok(Flow::Normal)
                })
            }
            StmtKind::Let {
                local,
                init: Some(Init::Expr(init)),
            } if self
                .func
                .get_local(*local)
                .is_some_and(|d| d.space != tessera_ir::Space::TileStatic) =>
            {
                // `Machine::exec_let` with `Machine::init_value`.
                let local = *local;
                let ty: &'p Type = &self.func.local(local).ty;
                let value = self.expr(init);
                Box::new(move |m| {
                    let v = value(m)?;
                    let v = m.copy_value(v, ty, init.span)?;
                    m.set_local(local, v);
                    Ok(Flow::Normal)
                })
            }
            StmtKind::Block(b) if crate::offload::iterator_loop(self.func, b) => {
                let block = self.block(b);
                Box::new(move |m| {
                    if m.engine.is_some()
                        && !m.in_kernel
                        && let Some(flow) = m.offload_host(s)
                    {
                        return flow;
                    }
                    block(m)
                })
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::If { cond, then, els } => {
                let cond = self.condition(cond);
                let then = self.block(then);
                let els = els.as_ref().map(|b| self.block(b));
                Box::new(move |m| {
                    if cond(m)? {
                        then(m)
                    } else if let Some(els) = &els {
                        els(m)
                    } else {
                        Ok(Flow::Normal)
                    }
                })
            }
            StmtKind::Loop { .. } => self.loop_stmt(s, true),
            StmtKind::Break => Box::new(|_| Ok(Flow::Break)),
            StmtKind::Continue => Box::new(|_| Ok(Flow::Continue)),
            _ => Box::new(move |m| m.exec_stmt(s)),
        }
    }

    /// A loop; `offer` when it is offered to the engine first, as a loop
    /// nested in another is each time it starts.
    fn loop_stmt(&self, s: &'p Stmt, offer: bool) -> Box<FastStmt<'p>> {
        let StmtKind::Loop {
            cond,
            test_first,
            body,
            step,
        } = &s.kind
        else {
            return Box::new(move |m| m.exec_stmt(s));
        };
        let test_first = *test_first;
        let cond = cond.as_ref().map(|c| self.condition(c));
        let body = match &body.stmts[..] {
            // One expression statement (`sum += a[i] * b[i];`): run in the
            // loop's closure, as the block would run it.
            [only] if let StmtKind::Expr(x) = &only.kind => LoopBody::Effect(only, self.effect(x)),
            _ => LoopBody::Block(self.block(body)),
        };
        let step = step.as_ref().map(|e| self.effect(e));
        Box::new(move |m| {
            if offer
                && m.engine.is_some()
                && !m.in_kernel
                && let Some(flow) = m.offload_host(s)
            {
                return flow;
            }
            let mut first = true;
            loop {
                m.tick(s.span)?;
                if (test_first || !first)
                    && let Some(c) = &cond
                    && !c(m)?
                {
                    break;
                }
                first = false;
                match body.run(m)? {
                    Flow::Break => break,
                    r @ (Flow::Return(_) | Flow::Goto(_)) => return Ok(r),
                    Flow::Normal | Flow::Continue => {}
                }
                if let Some(step) = &step {
                    step(m)?;
                }
            }
            Ok(Flow::Normal)
        })
    }

    /// An expression (see `Machine::eval`).
    fn expr(&self, e: &'p Expr) -> FastExpr<'p> {
        match &e.kind {
            ExprKind::Const(c) => {
                let v = match c {
                    tessera_ir::Const::Bool(b) => Value::Bool(*b),
                    tessera_ir::Const::Int(i) => Value::Int(*i),
                    tessera_ir::Const::Float(f) => Value::Float(*f),
                    tessera_ir::Const::Double(d) => Value::Double(*d),
                };
                Box::new(move |_| Ok(v.clone()))
            }
            ExprKind::Local(id) => {
                let id = *id;
                Box::new(move |m| match m.plain_local(id) {
                    Some(v) => Ok(copy(v)),
                    None => m.eval(e),
                })
            }
            ExprKind::Binary { op, lhs, rhs }
                if numbers::is_comparison(*op) && lhs.ty == rhs.ty && quick_type(&lhs.ty) =>
            {
                let truth = self.condition(e);
                Box::new(move |m| Ok(Value::Bool(truth(m)?)))
            }
            ExprKind::Binary { lhs, rhs, .. } if lhs.ty == e.ty && rhs.ty == e.ty => {
                match NumberType::of(&e.ty) {
                    Some(NumberType::Int) => self.boxed(self.number::<Int>(e)),
                    Some(NumberType::Long) => self.boxed(self.number::<Long>(e)),
                    Some(NumberType::Float) => self.boxed(self.number::<f32>(e)),
                    Some(NumberType::Double) => self.boxed(self.number::<f64>(e)),
                    None => self.binary(e),
                }
            }
            ExprKind::Binary { .. } => self.binary(e),
            ExprKind::Logical { .. } => {
                let truth = self.condition(e);
                Box::new(move |m| Ok(Value::Bool(truth(m)?)))
            }
            ExprKind::Conditional { cond, then, els } => {
                let (c, t, f) = (self.expr(cond), self.expr(then), self.expr(els));
                Box::new(move |m| if c(m)?.truth() { t(m) } else { f(m) })
            }
            ExprKind::Convert(inner)
                if matches!(
                    (inner.ty.scalar(), e.ty.scalar()),
                    (Some(Scalar::Int), Some(Scalar::Long | Scalar::ULong))
                ) =>
            {
                // An `int` widened (an index, mostly) keeps its stored
                // value: `unsigned long` is kept as its bit pattern.
                let value = self.expr(inner);
                Box::new(move |m| match value(m)? {
                    Value::Int(i) => Ok(Value::Int(i)),
                    other => m.finish_convert(e, inner, other),
                })
            }
            ExprKind::Convert(_) if NumberType::of(&e.ty).is_some_and(|t| self.widens(e, t)) => {
                match NumberType::of(&e.ty) {
                    Some(NumberType::Long) => self.boxed(self.number::<Long>(e)),
                    Some(NumberType::Float) => self.boxed(self.number::<f32>(e)),
                    Some(NumberType::Double) => self.boxed(self.number::<f64>(e)),
                    _ => self.boxed(self.number::<Int>(e)),
                }
            }
            ExprKind::Convert(inner) if inner.ty.scalar().is_some() && e.ty.scalar().is_some() => {
                let value = self.expr(inner);
                Box::new(move |m| {
                    let v = value(m)?;
                    m.finish_convert(e, inner, v)
                })
            }
            ExprKind::Assign { target, value }
                if target.ty == value.ty && matches!(target.kind, ExprKind::Element { .. }) =>
            {
                match NumberType::of(&target.ty) {
                    Some(NumberType::Int) => self.assign_element::<Int>(e),
                    Some(NumberType::Long) => self.assign_element::<Long>(e),
                    Some(NumberType::Float) => self.assign_element::<f32>(e),
                    Some(NumberType::Double) => self.assign_element::<f64>(e),
                    None => self.assign(e),
                }
            }
            ExprKind::Assign { .. } => self.assign(e),
            ExprKind::CompoundAssign { op, target, value }
                if target.ty == value.ty && quick_type(&target.ty) =>
            {
                let ExprKind::Local(id) = target.kind else {
                    return self.compound(e);
                };
                match NumberType::of(&target.ty) {
                    Some(NumberType::Int) => self.compound_local::<Int>(e, id),
                    Some(NumberType::Long) => self.compound_local::<Long>(e, id),
                    Some(NumberType::Float) => self.compound_local::<f32>(e, id),
                    Some(NumberType::Double) => self.compound_local::<f64>(e, id),
                    None => self.compound(e),
                }
            }
            ExprKind::CompoundAssign { .. } => self.compound(e),
            ExprKind::IncDec {
                prefix,
                target,
                increment,
            } if matches!(target.ty, Type::Scalar(Scalar::Int | Scalar::Long)) => {
                let ExprKind::Local(id) = target.kind else {
                    return Box::new(move |m| m.eval(e));
                };
                // `Machine::eval_inc_dec`'s fast path; anything else (an
                // overflow, a reference) is left to it whole.
                let (prefix, increment) = (*prefix, *increment);
                let long = target.ty == Type::Scalar(Scalar::Long);
                Box::new(move |m| {
                    if let Some(Value::Int(slot)) = m.plain_local(id) {
                        let v = *slot;
                        let next = if increment {
                            v.checked_add(1)
                        } else {
                            v.checked_sub(1)
                        };
                        if let Some(next) = next
                            && (long || i32::try_from(next).is_ok())
                        {
                            *slot = next;
                            return Ok(Value::Int(if prefix { next } else { v }));
                        }
                    }
                    m.eval(e)
                })
            }
            ExprKind::Comma { first, second } => {
                let (a, b) = (self.expr(first), self.expr(second));
                Box::new(move |m| {
                    a(m)?;
                    b(m)
                })
            }
            ExprKind::Element { .. } => self.element(e),
            ExprKind::Intrinsic {
                op: Intrinsic::VectorElement,
                args,
            } => self.vector_element(e, args),
            ExprKind::Intrinsic {
                op: Intrinsic::ViewElement,
                args,
            } => self.view_element_as(e, args, |v| Some(copy(v)), |v| v),
            _ => Box::new(move |m| m.eval(e)),
        }
    }

    /// Expression `e` for its effect only: `x op= y` and `++`/`--` of a
    /// plain local change it where it is and make no value; anything else
    /// is [`Compiler::expr`] with its value dropped.
    fn effect(&self, e: &'p Expr) -> Effect<'p> {
        match &e.kind {
            ExprKind::CompoundAssign { target, value, .. }
                if target.ty == value.ty && quick_type(&target.ty) =>
            {
                if let ExprKind::Local(id) = target.kind {
                    match NumberType::of(&target.ty) {
                        Some(NumberType::Int) => return self.compound_effect::<Int>(e, id),
                        Some(NumberType::Long) => return self.compound_effect::<Long>(e, id),
                        Some(NumberType::Float) => return self.compound_effect::<f32>(e, id),
                        Some(NumberType::Double) => return self.compound_effect::<f64>(e, id),
                        None => {}
                    }
                }
            }
            ExprKind::IncDec {
                target, increment, ..
            } if matches!(target.ty, Type::Scalar(Scalar::Int | Scalar::Long)) => {
                if let ExprKind::Local(id) = target.kind {
                    let increment = *increment;
                    let long = target.ty == Type::Scalar(Scalar::Long);
                    // As `Compiler::expr`'s `++`/`--`, without the value.
                    return Box::new(move |m| {
                        if let Some(Value::Int(slot)) = m.plain_local(id) {
                            let next = if increment {
                                slot.checked_add(1)
                            } else {
                                slot.checked_sub(1)
                            };
                            if let Some(next) = next
                                && (long || i32::try_from(next).is_ok())
                            {
                                *slot = next;
                                return Ok(());
                            }
                        }
                        m.eval(e).map(drop)
                    });
                }
            }
            _ => {}
        }
        let value = self.expr(e);
        Box::new(move |m| value(m).map(drop))
    }

    /// [`Compiler::compound_local`] for its effect only.
    fn compound_effect<N: Number>(&self, e: &'p Expr, id: tessera_ir::LocalId) -> Effect<'p> {
        let ExprKind::CompoundAssign { op, target, value } = &e.kind else {
            return Box::new(move |m| m.eval(e).map(drop));
        };
        let op = *op;
        let rhs = self.operand::<N>(value);
        Box::new(move |m| {
            let rhs = rhs.get(m)?;
            if let Some(slot) = m.plain_local(id)
                && let Some(x) = N::of(slot)
                && let Some(r) = N::arith(op, x, rhs)
            {
                // The slot holds a number (`N::of` said so): nothing to drop.
                std::mem::forget(std::mem::replace(slot, r.value()));
                return Ok(());
            }
            m.finish_compound(e, op, target, value, rhs.value())
                .map(drop)
        })
    }

    /// A number closure as a value closure.
    fn boxed<N: Number>(&self, number: numbers::NumExpr<'p, N>) -> FastExpr<'p> {
        Box::new(move |m| Ok(number(m)?.value()))
    }

    /// `target = value` in general.
    fn assign(&self, e: &'p Expr) -> FastExpr<'p> {
        let ExprKind::Assign { target, value } = &e.kind else {
            return Box::new(move |m| m.eval(e));
        };
        let v = self.expr(value);
        Box::new(move |m| {
            let v = v(m)?;
            m.finish_assign(e, target, value, v)
        })
    }

    /// `lhs op rhs` in general.
    fn binary(&self, e: &'p Expr) -> FastExpr<'p> {
        let ExprKind::Binary { op, lhs, rhs } = &e.kind else {
            return Box::new(move |m| m.eval(e));
        };
        let op = *op;
        let (a, b) = (self.expr(lhs), self.expr(rhs));
        Box::new(move |m| {
            let a = a(m)?;
            let b = b(m)?;
            m.finish_binary(e, op, lhs, rhs, a, b)
        })
    }

    /// Whether conversion `e` to number type `to` is one the number
    /// closures make (see `Compiler::widening`).
    fn widens(&self, e: &Expr, to: NumberType) -> bool {
        let ExprKind::Convert(inner) = &e.kind else {
            return false;
        };
        matches!(
            (NumberType::of(&inner.ty), to),
            (
                Some(NumberType::Int | NumberType::Long),
                NumberType::Float | NumberType::Double
            ) | (Some(NumberType::Float), NumberType::Double)
                | (Some(NumberType::Double), NumberType::Float)
                | (Some(NumberType::Int), NumberType::Long)
        )
    }

    /// `x op= value` of a plain local `x` of number type `N`, changed where
    /// it is (`finish_compound`'s own fast path); anything else (an
    /// overflow, a reference) goes to `finish_compound` with the value.
    fn compound_local<N: Number>(&self, e: &'p Expr, id: tessera_ir::LocalId) -> FastExpr<'p> {
        let ExprKind::CompoundAssign { op, target, value } = &e.kind else {
            return Box::new(move |m| m.eval(e));
        };
        let op = *op;
        let rhs = self.operand::<N>(value);
        Box::new(move |m| {
            let rhs = rhs.get(m)?;
            if let Some(slot) = m.plain_local(id)
                && let Some(x) = N::of(slot)
                && let Some(r) = N::arith(op, x, rhs)
            {
                let r = r.value();
                *slot = copy(&r);
                return Ok(r);
            }
            m.finish_compound(e, op, target, value, rhs.value())
        })
    }

    /// `target op= value` in general.
    fn compound(&self, e: &'p Expr) -> FastExpr<'p> {
        let ExprKind::CompoundAssign { op, target, value } = &e.kind else {
            return Box::new(move |m| m.eval(e));
        };
        let op = *op;
        let rhs = self.expr(value);
        Box::new(move |m| {
            let rhs = rhs(m)?;
            m.finish_compound(e, op, target, value, rhs)
        })
    }

    /// `a[i][j]...` of a C array variable (see `Machine::element_fast`): the
    /// indices are evaluated outermost first, and anything but an element
    /// read in bounds goes to the tree walker, which evaluates the pure
    /// indices again and reports what there is to report.
    fn element(&self, e: &'p Expr) -> FastExpr<'p> {
        self.element_as(e, |v| Some(copy(v)), |v| v)
    }

    /// [`Compiler::element`] giving what `read` makes of the element (or,
    /// when it makes nothing of it, what `convert` makes of the walker's
    /// value): the number itself, for the number closures.
    fn element_as<T: 'p>(
        &self,
        e: &'p Expr,
        read: impl Fn(&Value) -> Option<T> + Copy + 'p,
        convert: impl Fn(Value) -> T + Copy + 'p,
    ) -> numbers::NumExpr<'p, T> {
        const MAX_RANK: usize = 4;
        let mut indices: Vec<(numbers::IndexOperand<'p>, i64)> = Vec::new();
        let mut node = e;
        while let ExprKind::Element { base, index } = &node.kind {
            let Type::CArray(_, n) = &base.ty else {
                return Box::new(move |m| m.eval(e).map(convert));
            };
            if !crate::expr::pure(index) {
                return Box::new(move |m| m.eval(e).map(convert));
            }
            indices.push((self.index_operand(index), i64::from(*n)));
            node = base;
        }
        let ExprKind::Local(id) = node.kind else {
            return Box::new(move |m| m.eval(e).map(convert));
        };
        let rank = indices.len();
        if rank > MAX_RANK {
            return Box::new(move |m| m.eval(e).map(convert));
        }
        let root = match self.ts_slot.get(id.index()) {
            Some(Some(slot)) => ArrayRoot::TileStatic(*slot),
            _ => ArrayRoot::Local(id),
        };
        Box::new(move |m| {
            // The outermost index is the last step of the path.
            let mut path = [0u32; MAX_RANK];
            for (k, (index, n)) in indices.iter().enumerate() {
                match index.get(m)? {
                    Some(i) if i >= 0 && i < *n => path[rank - 1 - k] = i as u32,
                    _ => return m.eval(e).map(convert),
                }
            }
            let path = &path[..rank];
            let array = match root {
                ArrayRoot::TileStatic(slot) => m.launch.tile_static.get(slot as usize),
                ArrayRoot::Local(id) => match m.plain_local(id) {
                    Some(v) => Some(&*v),
                    None => return m.eval(e).map(convert),
                },
            };
            let value = array.and_then(|v| element_at(v, path, read));
            let Some(value) = value else {
                return m.eval(e).map(convert);
            };
            // `--check` records a read of shared memory as the walker's
            // `Machine::read` does (a private array's elements are not
            // shared, so there is nothing to record).
            if let ArrayRoot::TileStatic(slot) = root
                && m.checker.on
            {
                m.check_tile_static(slot, path, e.span, false)?;
            }
            Ok(value)
        })
    }

    /// `v[i]` of a `std::vector` variable (see
    /// `Machine::vector_element_fast`).
    fn vector_element(&self, e: &'p Expr, args: &'p [Expr]) -> FastExpr<'p> {
        self.vector_element_as(e, args, |v| Some(copy(v)), |v| v)
    }

    /// [`Compiler::vector_element`] giving what `read` makes of the element
    /// (see [`Compiler::element_as`]).
    fn vector_element_as<T: 'p>(
        &self,
        e: &'p Expr,
        args: &'p [Expr],
        read: impl Fn(&Value) -> Option<T> + Copy + 'p,
        convert: impl Fn(Value) -> T + Copy + 'p,
    ) -> numbers::NumExpr<'p, T> {
        let [vector, index] = args else {
            return Box::new(move |m| m.eval(e).map(convert));
        };
        let ExprKind::Local(id) = vector.kind else {
            return Box::new(move |m| m.eval(e).map(convert));
        };
        if !crate::expr::pure(index) {
            return Box::new(move |m| m.eval(e).map(convert));
        }
        let index = self.index_operand(index);
        Box::new(move |m| {
            let i = match index.get(m)? {
                Some(i) if i >= 0 => i as usize,
                _ => return m.eval(e).map(convert),
            };
            let checked = m.checker.on;
            let Some(Value::Vector(storage)) = m.plain_local(id) else {
                return m.eval(e).map(convert);
            };
            // `--check` watches host reads of a vector only while a kernel's
            // writes to it are unsynchronised: then the walker reports it.
            if checked && storage.unsynced.get().is_some() {
                return m.eval(e).map(convert);
            }
            let found = storage.element_with(i, read);
            match found {
                Some(v) => Ok(v),
                None => m.eval(e).map(convert),
            }
        })
    }
}

/// A loop's body.
enum LoopBody<'p> {
    /// Any block.
    Block(Box<FastStmt<'p>>),
    /// A block of one expression statement, which needs no scope.
    Effect(&'p Stmt, Effect<'p>),
}

impl<'p> LoopBody<'p> {
    /// Runs the body once (see `Compiler::block`).
    #[inline(always)]
    fn run(&self, m: &mut Machine<'p>) -> Res<Flow> {
        match self {
            LoopBody::Block(b) => b(m),
            LoopBody::Effect(s, effect) => {
                m.tick(s.span)?;
                effect(m)?;
                Ok(Flow::Normal)
            }
        }
    }
}

/// What `read` makes of the element at `path` inside aggregate `root`
/// (`None` for an unwritten one; see `read_path_with`), with the common
/// cases, nested aggregates ending in a typed array, followed here.
#[inline(always)]
fn element_at<T>(root: &Value, path: &[u32], read: impl FnOnce(&Value) -> Option<T>) -> Option<T> {
    let (&last, outer) = path.split_last()?;
    let mut v = root;
    for &i in outer {
        match v {
            Value::Agg(items) => v = items.get(i as usize)?,
            _ => {
                return read_path_with(root, path, |x| if_written(x, read))
                    .ok()
                    .flatten();
            }
        }
    }
    match v {
        Value::Scalars(a) => a.get_with(last as usize, read),
        Value::Agg(items) => if_written(items.get(last as usize)?, read),
        _ => read_path_with(root, path, |x| if_written(x, read))
            .ok()
            .flatten(),
    }
}

/// What `read` makes of `v`, unless it was never written.
#[inline(always)]
fn if_written<T>(v: &Value, read: impl FnOnce(&Value) -> Option<T>) -> Option<T> {
    match v {
        Value::Uninit => None,
        v => read(v),
    }
}

/// True for the types `quick_arith` (in `expr.rs`) answers for.
fn quick_type(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Scalar(Scalar::Int | Scalar::Long | Scalar::Float | Scalar::Double)
    )
}

/// A copy of a value, without a call for the scalars.
#[inline(always)]
fn copy(v: &Value) -> Value {
    match v {
        Value::Int(i) => Value::Int(*i),
        Value::Float(f) => Value::Float(*f),
        Value::Double(d) => Value::Double(*d),
        Value::Bool(b) => Value::Bool(*b),
        other => other.clone(),
    }
}
