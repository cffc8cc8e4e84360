//! Expressions: values and places.

use crate::arith;
use crate::machine::{Machine, Res};
use crate::value::{Place, Root, Value, read_path_with};
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{BinOp, Expr, ExprKind, FuncId, Intrinsic, Scalar, Type};

/// The scalar type of an expression (`int` for anything else, which the
/// checker never lets reach arithmetic).
pub(crate) fn scalar(ty: &Type) -> Scalar {
    ty.scalar().unwrap_or(Scalar::Int)
}

/// True for expressions without side effects that are cheap to evaluate
/// twice (a fast path may give up after evaluating one).
pub(crate) fn pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Const(_) | ExprKind::Capture(_) => true,
        ExprKind::Convert(inner) => pure(inner),
        ExprKind::Binary { lhs, rhs, .. } => pure(lhs) && pure(rhs),
        _ => false,
    }
}

/// `a op b` for the common cases, without the general machinery: `float`
/// and `double` arithmetic and comparisons, and `int` or `long` ones that
/// cannot fail. Both operands have type `ty` (the caller checked). `None`
/// for everything else, including every case that would be an error
/// (overflow, division by zero), which the general path reports.
#[inline]
pub(crate) fn quick_arith(op: BinOp, ty: &Type, a: &Value, b: &Value) -> Option<Value> {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => quick_float(op, *x, *y),
        (Value::Double(x), Value::Double(y)) => quick_double(op, *x, *y),
        (Value::Int(x), Value::Int(y)) => quick_int(op, ty, *x, *y),
        _ => None,
    }
}

/// [`quick_arith`] of two `float`s.
#[inline(always)]
fn quick_float(op: BinOp, x: f32, y: f32) -> Option<Value> {
    Some(match op {
        BinOp::Add => Value::Float(x + y),
        BinOp::Sub => Value::Float(x - y),
        BinOp::Mul => Value::Float(x * y),
        BinOp::Div => Value::Float(x / y),
        BinOp::Lt => Value::Bool(x < y),
        BinOp::Le => Value::Bool(x <= y),
        BinOp::Gt => Value::Bool(x > y),
        BinOp::Ge => Value::Bool(x >= y),
        BinOp::Eq => Value::Bool(x == y),
        BinOp::Ne => Value::Bool(x != y),
        _ => return None,
    })
}

/// [`quick_arith`] of two `double`s.
#[inline(always)]
fn quick_double(op: BinOp, x: f64, y: f64) -> Option<Value> {
    Some(match op {
        BinOp::Add => Value::Double(x + y),
        BinOp::Sub => Value::Double(x - y),
        BinOp::Mul => Value::Double(x * y),
        BinOp::Div => Value::Double(x / y),
        BinOp::Lt => Value::Bool(x < y),
        BinOp::Le => Value::Bool(x <= y),
        BinOp::Gt => Value::Bool(x > y),
        BinOp::Ge => Value::Bool(x >= y),
        BinOp::Eq => Value::Bool(x == y),
        BinOp::Ne => Value::Bool(x != y),
        _ => return None,
    })
}

/// [`quick_arith`] of two integers of type `ty` (`int` or `long` only).
#[inline(always)]
fn quick_int(op: BinOp, ty: &Type, x: i64, y: i64) -> Option<Value> {
    match ty {
        Type::Scalar(Scalar::Int) => {
            // Values of type `int` are kept in its range.
            let (x, y) = (x as i32, y as i32);
            Some(match op {
                BinOp::Add => Value::Int(i64::from(x.checked_add(y)?)),
                BinOp::Sub => Value::Int(i64::from(x.checked_sub(y)?)),
                BinOp::Mul => Value::Int(i64::from(x.checked_mul(y)?)),
                BinOp::Div => Value::Int(i64::from(x.checked_div(y)?)),
                BinOp::Rem => Value::Int(i64::from(x.checked_rem(y)?)),
                BinOp::Lt => Value::Bool(x < y),
                BinOp::Le => Value::Bool(x <= y),
                BinOp::Gt => Value::Bool(x > y),
                BinOp::Ge => Value::Bool(x >= y),
                BinOp::Eq => Value::Bool(x == y),
                BinOp::Ne => Value::Bool(x != y),
                _ => return None,
            })
        }
        Type::Scalar(Scalar::Long) => Some(match op {
            BinOp::Add => Value::Int(x.checked_add(y)?),
            BinOp::Sub => Value::Int(x.checked_sub(y)?),
            BinOp::Mul => Value::Int(x.checked_mul(y)?),
            BinOp::Lt => Value::Bool(x < y),
            BinOp::Le => Value::Bool(x <= y),
            BinOp::Gt => Value::Bool(x > y),
            BinOp::Ge => Value::Bool(x >= y),
            BinOp::Eq => Value::Bool(x == y),
            BinOp::Ne => Value::Bool(x != y),
            _ => return None,
        }),
        _ => None,
    }
}

/// The type arithmetic on a value of type `s` happens in (integer promotion).
pub(crate) fn promoted(s: Scalar) -> Scalar {
    match s {
        Scalar::Bool | Scalar::Char => Scalar::Int,
        other => other,
    }
}

impl Machine<'_> {
    /// Evaluates an expression to its value. Leaves (constants and plain
    /// variables) are most of the nodes evaluated; they are handled here,
    /// small enough to inline into every caller, and the rest out of line.
    #[inline]
    pub(crate) fn eval(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            ExprKind::Const(tessera_ir::Const::Int(i)) => Ok(Value::Int(*i)),
            ExprKind::Local(id) => match self.plain_local(*id) {
                Some(v) => Ok(v.clone()),
                None => self.eval_node(e),
            },
            _ => self.eval_node(e),
        }
    }

    /// Evaluates an expression that is not a simple leaf.
    #[inline(never)]
    fn eval_node(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            ExprKind::Throw(value) => self.throw(value.as_deref(), e.span),
            ExprKind::Const(c) => Ok(match c {
                tessera_ir::Const::Bool(b) => Value::Bool(*b),
                tessera_ir::Const::Int(i) => Value::Int(*i),
                tessera_ir::Const::Float(f) => Value::Float(*f),
                tessera_ir::Const::Double(d) => Value::Double(*d),
            }),
            ExprKind::Local(id) => {
                if let Some(v) = self.plain_local(*id) {
                    return Ok(v.clone());
                }
                let p = self.place(e)?;
                self.read_value(&p, e)
            }
            ExprKind::Assign { target, value } => {
                let v = self.eval(value)?;
                self.finish_assign(e, target, value, v)
            }
            ExprKind::CompoundAssign { op, target, value } => {
                let rhs = self.eval(value)?;
                self.finish_compound(e, *op, target, value, rhs)
            }
            ExprKind::Element { .. } => {
                if !self.checker.on
                    && let Some(v) = self.element_fast(e)?
                {
                    return Ok(v);
                }
                let p = self.place(e)?;
                self.read_value(&p, e)
            }
            ExprKind::Global(g) => Ok(self.globals.get(g.index()).cloned().unwrap_or(Value::Void)),
            ExprKind::Capture(c) => Ok(self
                .launch
                .captures
                .get(*c as usize)
                .cloned()
                .unwrap_or(Value::Void)),
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                self.finish_binary(e, *op, lhs, rhs, a, b)
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                let ty = scalar(&operand.ty);
                arith::unary(*op, ty, &v).map_err(|err| self.arith_error(err, ty, e.span))
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let a = self.eval(lhs)?.truth();
                if a != *and {
                    return Ok(Value::Bool(a));
                }
                Ok(Value::Bool(self.eval(rhs)?.truth()))
            }
            ExprKind::Conditional { cond, then, els } => {
                if self.eval(cond)?.truth() {
                    self.eval(then)
                } else {
                    self.eval(els)
                }
            }
            ExprKind::Convert(inner) => {
                match (&inner.ty, &e.ty) {
                    (Type::CArray(..), Type::Ptr { .. }) => return self.decay(inner),
                    (Type::Str, Type::Ptr { .. }) => {
                        let v = self.eval(inner)?;
                        return Ok(Machine::string_pointer(&v));
                    }
                    (
                        Type::Ptr { .. } | Type::Null | Type::FnPtr(_),
                        Type::Scalar(Scalar::Bool),
                    ) => {
                        return Ok(Value::Bool(self.eval(inner)?.truth()));
                    }
                    _ => {}
                }
                let v = self.eval(inner)?;
                self.finish_convert(e, inner, v)
            }
            ExprKind::IncDec {
                prefix,
                target,
                increment,
            } => self.eval_inc_dec(e, *increment, *prefix, target),
            ExprKind::Field { base, field } => {
                if base.place {
                    let p = self.place(e)?;
                    return self.read_value(&p, e);
                }
                let v = self.eval(base)?;
                match crate::value::read_path(&v, &[*field]) {
                    Ok(found) => Ok(self.as_complete_object(found.unwrap_or(Value::Void), &e.ty)),
                    Err(m) => Err(self.misread(m, e.span)),
                }
            }
            ExprKind::Call { func, args } => {
                let args = self.call_args(*func, args)?;
                match self.call(*func, args, e.span)? {
                    Value::Ref(p) => self.read_value(&p, e),
                    v => Ok(v),
                }
            }
            ExprKind::Intrinsic { op, args } => {
                if matches!(op, Intrinsic::VectorElement)
                    && !self.checker.on
                    && let Some(v) = self.vector_element_fast(args)?
                {
                    return Ok(v);
                }
                if matches!(op, Intrinsic::ShapeComponent) && e.place && !self.checker.on {
                    return self.shape_component_read(args, e);
                }
                self.intrinsic(op, args, e)
            }
            ExprKind::Launch {
                domain,
                kernel,
                captures,
            } => {
                self.launch_kernel(domain, *kernel, captures, e.span)?;
                Ok(Value::Void)
            }
            ExprKind::Aggregate(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    let v = self.eval(item)?;
                    out.push(self.copy_value(v, &item.ty, item.span)?);
                }
                // A union's list holds its first member's value.
                if let Some(shape) = self.union_of(&e.ty) {
                    let first = out.into_iter().next();
                    let active = first.is_some().then_some(0);
                    return Ok(Self::union_value(
                        shape,
                        active,
                        first.unwrap_or(Value::Uninit),
                    ));
                }
                if let Type::CArray(elem, _) = &e.ty {
                    return Ok(Value::array(elem, out));
                }
                Ok(Value::Agg(Rc::new(out)))
            }
            ExprKind::Str(s) => Ok(Value::Str(Rc::new(s.clone()))),
            ExprKind::Comma { first, second } => {
                self.eval(first)?;
                self.eval(second)
            }
            ExprKind::Null => Ok(crate::value::Pointer::null()),
            ExprKind::FuncAddr(func) => Ok(fn_pointer(*func)),
            ExprKind::CallPtr { callee, args } => {
                let func = self.pointed_function(callee, e.span)?;
                // A pointer to a virtual member function calls the
                // overrider for the object's dynamic class.
                let (func, args) = if self.is_virtual(func) {
                    self.virtual_target(func, args, e.span)?
                } else {
                    (func, self.call_args(func, args)?)
                };
                match self.call(func, args, e.span)? {
                    Value::Ref(p) => self.read_value(&p, e),
                    v => Ok(v),
                }
            }
            ExprKind::VirtualCall { func, args } => {
                let (func, args) = self.virtual_target(*func, args, e.span)?;
                match self.call(func, args, e.span)? {
                    Value::Ref(p) => self.read_value(&p, e),
                    v => Ok(v),
                }
            }
            ExprKind::AddrOf(inner) => self.addr_of(inner),
            ExprKind::Deref(_) => {
                let p = self.place(e)?;
                self.read_value(&p, e)
            }
            ExprKind::PtrAdd { ptr, offset } => {
                let p = self.eval(ptr)?;
                let n = self.eval(offset)?.int();
                self.ptr_add(&p, n, e.span)
            }
            ExprKind::PtrDiff { lhs, rhs } => {
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                self.ptr_diff(&a, &b, e.span)
            }
            ExprKind::New { count, value } => self.new_block(e, count.as_deref(), value.as_deref()),
            ExprKind::Delete { ptr, array } => {
                self.delete(ptr, *array, e.span)?;
                Ok(Value::Void)
            }
        }
    }

    /// `lhs op rhs` (expression `e`) from the operands' values.
    #[inline]
    pub(crate) fn finish_binary(
        &mut self,
        e: &Expr,
        op: BinOp,
        lhs: &Expr,
        rhs: &Expr,
        a: Value,
        b: Value,
    ) -> Res<Value> {
        if let Value::Ptr(_) = a {
            return self.ptr_compare(op, &a, &b, e.span);
        }
        if let Type::FnPtr(_) = lhs.ty {
            // Only `==` and `!=` compare function pointers.
            let same = a.int() == b.int();
            return Ok(Value::Bool(if op == BinOp::Ne { !same } else { same }));
        }
        // The common cases first, without the general machinery (a shift's
        // count may have another type than its operand).
        if lhs.ty == rhs.ty
            && let Some(r) = quick_arith(op, &lhs.ty, &a, &b)
        {
            return Ok(r);
        }
        let ty = scalar(&lhs.ty);
        arith::binary(op, ty, &a, &b, scalar(&rhs.ty))
            .map_err(|err| self.arith_error(err, ty, e.span))
    }

    /// The conversion `e` of `inner`'s value `v` between arithmetic types
    /// (other values pass unchanged).
    #[inline]
    pub(crate) fn finish_convert(&self, e: &Expr, inner: &Expr, v: Value) -> Res<Value> {
        match (inner.ty.scalar(), e.ty.scalar()) {
            (Some(from), Some(to)) => {
                arith::convert(&v, from, to).map_err(|err| self.arith_error(err, to, e.span))
            }
            _ => Ok(v),
        }
    }

    /// `target = value` (expression `e`), the value `v` evaluated.
    #[inline]
    pub(crate) fn finish_assign(
        &mut self,
        e: &Expr,
        target: &Expr,
        value: &Expr,
        v: Value,
    ) -> Res<Value> {
        let v = self.copy_value(v, &target.ty, value.span)?;
        if let ExprKind::Local(id) = target.kind
            && let Some(slot) = self.plain_local(id)
        {
            *slot = v.clone();
            return Ok(v);
        }
        let p = self.place(target)?;
        let v = self.keep_dynamic_class(&p, v, &target.ty, e.span)?;
        self.write(&p, v.clone(), e.span)?;
        Ok(v)
    }

    /// `target op= value` (expression `e`), the right side `rhs` evaluated;
    /// a plain local is updated in place.
    #[inline]
    pub(crate) fn finish_compound(
        &mut self,
        e: &Expr,
        op: BinOp,
        target: &Expr,
        value: &Expr,
        rhs: Value,
    ) -> Res<Value> {
        if let ExprKind::Local(id) = target.kind
            && let Some(slot) = self.plain_local(id)
        {
            // `x op= y` with both of one type: no conversions on the way.
            if target.ty == value.ty
                && let Some(r) = quick_arith(op, &target.ty, slot, &rhs)
            {
                *slot = r.clone();
                return Ok(r);
            }
            let cur = slot.clone();
            let r = self.compound(op, &cur, &rhs, target, value, e.span)?;
            if let Some(slot) = self.plain_local(id) {
                *slot = r.clone();
            }
            return Ok(r);
        }
        let p = self.place(target)?;
        let cur = self.read_at(&p, e.span, &target.ty)?;
        let r = self.compound(op, &cur, &rhs, target, value, e.span)?;
        self.write(&p, r.clone(), e.span)?;
        Ok(r)
    }

    /// `++`/`--`; an `int` or `long` local (the common loop counter) is
    /// stepped in place.
    #[inline]
    fn eval_inc_dec(
        &mut self,
        e: &Expr,
        increment: bool,
        prefix: bool,
        target: &Expr,
    ) -> Res<Value> {
        if let ExprKind::Local(id) = target.kind
            && let Some(ty) = target.ty.scalar()
            && matches!(ty, Scalar::Int | Scalar::Long)
            && let Some(slot) = self.plain_local(id)
            && let Value::Int(v) = *slot
        {
            // The common loop counter: an `int` or `long` variable.
            let next = if increment {
                v.checked_add(1)
            } else {
                v.checked_sub(1)
            };
            // Overflow takes the general path, which reports it.
            if let Some(next) = next
                && (ty == Scalar::Long || i32::try_from(next).is_ok())
            {
                *slot = Value::Int(next);
                return Ok(Value::Int(if prefix { next } else { v }));
            }
        }
        let (p, old) = self.inc_dec(e)?;
        if !prefix {
            return Ok(old);
        }
        if let ExprKind::Local(id) = target.kind
            && let Some(v) = self.plain_local(id)
        {
            return Ok(v.clone());
        }
        self.read_value(&p, e)
    }

    /// Reads a place for expression `e`: an uninitialised value reads as
    /// zero (after `--check` has reported it).
    fn read_value(&mut self, p: &Place, e: &Expr) -> Res<Value> {
        self.read_at(p, e.span, &e.ty)
    }

    /// Reads a place of type `ty` for an access reported at `span`.
    fn read_at(&mut self, p: &Place, span: Span, ty: &Type) -> Res<Value> {
        let v = self.read(p, span)?;
        if matches!(v, Value::Uninit) {
            return self.zero_value(ty, span);
        }
        Ok(self.as_complete_object(v, ty))
    }

    /// Reads `a[i][j]...` of a C array variable without building its place:
    /// the hot path of kernels that work on `tile_static` and private arrays.
    /// `None` when the expression is not of that simple form.
    fn element_fast(&mut self, e: &Expr) -> Res<Option<Value>> {
        let mut indices: smallvec::SmallVec<[u32; 4]> = smallvec::SmallVec::new();
        let mut node = e;
        while let ExprKind::Element { base, index } = &node.kind {
            let Type::CArray(_, n) = &base.ty else {
                return Ok(None);
            };
            if !pure(index) {
                return Ok(None);
            }
            let i = match self.eval(index)? {
                Value::Int(i) => i,
                _ => return Ok(None),
            };
            if i < 0 || i >= i64::from(*n) {
                return Ok(None);
            }
            indices.push(i as u32);
            node = base;
        }
        let ExprKind::Local(id) = node.kind else {
            return Ok(None);
        };
        indices.reverse();
        let func = self.current_fn().unwrap_or(tessera_ir::FuncId(0));
        let root = if let Some(Some(slot)) = self
            .ts_slot
            .get(func.index())
            .and_then(|f| f.get(id.index()))
        {
            self.launch.tile_static.get(*slot as usize)
        } else {
            match self.plain_local(id) {
                Some(v) => Some(&*v),
                None => return Ok(None),
            }
        };
        let found = root.and_then(|v| {
            read_path_with(v, &indices, |x| match x {
                Value::Uninit => None,
                x => Some(x.clone()),
            })
            .ok()
            .flatten()
        });
        Ok(found)
    }

    /// Reads `v[i]` of a `std::vector` variable without building its place:
    /// the hot path of host loops. `None` when the expression is not of that
    /// simple form or the general path has something to say (an index out of
    /// bounds, an element never written); the index is pure, so the general
    /// path may evaluate it again.
    fn vector_element_fast(&mut self, args: &[Expr]) -> Res<Option<Value>> {
        let [vector, index] = args else {
            return Ok(None);
        };
        let ExprKind::Local(id) = vector.kind else {
            return Ok(None);
        };
        if !pure(index) {
            return Ok(None);
        }
        let i = match self.eval(index)? {
            Value::Int(i) if i >= 0 => i as usize,
            _ => return Ok(None),
        };
        let Some(Value::Vector(storage)) = self.plain_local(id) else {
            return Ok(None);
        };
        match storage.element(i) {
            Some(Value::Uninit) | None => Ok(None),
            Some(v) => Ok(Some(v)),
        }
    }

    /// Reads `idx[i]` of an index or extent that is a place, without
    /// `--check`: the library's way (the place of the shape, its value
    /// read to check the component, then the component's place read) with
    /// the component taken from the value already read. A shape in
    /// reinterpreted memory goes the library's way.
    fn shape_component_read(&mut self, args: &[Expr], e: &Expr) -> Res<Value> {
        let [shape, index] = args else {
            return self.intrinsic(&Intrinsic::ShapeComponent, args, e);
        };
        let p = self.place(shape)?;
        if let Root::Pun(..) = p.root {
            let i = self.eval(index)?.int();
            let base = self.read(&p, e.span)?;
            self.component(&base.dims(), i, e.span)?;
            let v = self.read(&p.child(i as u32), e.span)?;
            if matches!(v, Value::Uninit) {
                return self.zero_value(&e.ty, e.span);
            }
            return Ok(v);
        }
        let i = self.eval(index)?.int();
        let base = self.read(&p, e.span)?;
        let items: &[Value] = match &base {
            Value::Agg(items) => items,
            _ => &[],
        };
        if i < 0 || i as usize >= items.len() {
            self.component(&base.dims(), i, e.span)?;
        }
        match items.get(i as usize) {
            Some(Value::Uninit) | None => self.zero_value(&e.ty, e.span),
            Some(v) => Ok(v.clone()),
        }
    }

    /// Evaluates an lvalue to its place (anything else to a temporary).
    pub(crate) fn place(&mut self, e: &Expr) -> Res<Place> {
        match &e.kind {
            ExprKind::Local(id) => {
                let func = self.current_fn().unwrap_or(tessera_ir::FuncId(0));
                Ok(self.local_place(func, *id))
            }
            ExprKind::Global(g) => Ok(Place::root(Root::Global(g.0))),
            ExprKind::Capture(c) => Ok(Place::root(Root::Capture(*c))),
            ExprKind::Field { base, field } if base.place => Ok(self.place(base)?.child(*field)),
            ExprKind::Element { base, index } => {
                let n = match &base.ty {
                    Type::CArray(_, n) => i64::from(*n),
                    _ => 0,
                };
                let base_place = self.place(base)?;
                let i = self.eval(index)?;
                let i = if scalar(&index.ty) == Scalar::ULong {
                    i64::try_from(i.int() as u64).unwrap_or(i64::MAX)
                } else {
                    i.int()
                };
                if i < 0 || i >= n {
                    let shown = tessera_ir::display(&base.ty, &self.prog.structs);
                    return Err(self
                        .error(
                            codes::R0001,
                            e.span,
                            format!("index {i} is out of bounds for `{shown}`"),
                        )
                        .with_label(format!("index {i}"))
                        .with_note(format!("the valid indices are 0 to {}", n - 1))
                        .into());
                }
                Ok(base_place.child(i as u32))
            }
            ExprKind::Assign { target, value } => {
                let v = self.eval(value)?;
                let v = self.copy_value(v, &target.ty, value.span)?;
                let p = self.place(target)?;
                let v = self.keep_dynamic_class(&p, v, &target.ty, e.span)?;
                self.write(&p, v, e.span)?;
                Ok(p)
            }
            ExprKind::CompoundAssign { op, target, value } => {
                let rhs = self.eval(value)?;
                let p = self.place(target)?;
                // The read and the write are one access of `e`, as far as
                // messages go.
                let cur = self.read_at(&p, e.span, &target.ty)?;
                let r = self.compound(*op, &cur, &rhs, target, value, e.span)?;
                self.write(&p, r, e.span)?;
                Ok(p)
            }
            ExprKind::IncDec { prefix: true, .. } => Ok(self.inc_dec(e)?.0),
            ExprKind::Conditional { cond, then, els } if e.place => {
                if self.eval(cond)?.truth() {
                    self.place(then)
                } else {
                    self.place(els)
                }
            }
            ExprKind::Call { func, args } => {
                let args = self.call_args(*func, args)?;
                match self.call(*func, args, e.span)? {
                    Value::Ref(p) => Ok((*p).clone()),
                    v => Ok(Machine::temp(v)),
                }
            }
            ExprKind::CallPtr { callee, args } => {
                let func = self.pointed_function(callee, e.span)?;
                // A pointer to a virtual member function calls the
                // overrider for the object's dynamic class.
                let (func, args) = if self.is_virtual(func) {
                    self.virtual_target(func, args, e.span)?
                } else {
                    (func, self.call_args(func, args)?)
                };
                match self.call(func, args, e.span)? {
                    Value::Ref(p) => Ok((*p).clone()),
                    v => Ok(Machine::temp(v)),
                }
            }
            ExprKind::VirtualCall { func, args } => {
                let (func, args) = self.virtual_target(*func, args, e.span)?;
                match self.call(func, args, e.span)? {
                    Value::Ref(p) => Ok((*p).clone()),
                    v => Ok(Machine::temp(v)),
                }
            }
            ExprKind::Intrinsic { op, args } if e.place => match op {
                Intrinsic::ViewElement
                | Intrinsic::VectorElement
                | Intrinsic::VectorAt
                | Intrinsic::ShapeComponent
                | Intrinsic::Print
                | Intrinsic::Stdout
                | Intrinsic::Stderr
                | Intrinsic::Stdin => self.intrinsic_place(op, args, e),
                Intrinsic::StreamAsOstream
                | Intrinsic::StreamRead
                | Intrinsic::StreamGetline
                | Intrinsic::StreamGetChar
                | Intrinsic::StreamGetlineBuf => self.string_stream_place(op, args, e),
                _ => Ok(Machine::temp(self.eval(e)?)),
            },
            ExprKind::Comma { first, second } => {
                self.eval(first)?;
                self.place(second)
            }
            ExprKind::Deref(ptr) => {
                let p = self.eval(ptr)?;
                self.deref_place(&p, e.span)
            }
            _ => Ok(Machine::temp(self.eval(e)?)),
        }
    }

    /// The new value of `target op= value`, from the current one.
    fn compound(
        &mut self,
        op: BinOp,
        cur: &Value,
        rhs: &Value,
        target: &Expr,
        value: &Expr,
        span: Span,
    ) -> Res<Value> {
        let Some(tty) = target.ty.scalar() else {
            if let Type::Ptr { .. } = target.ty {
                let n = if op == BinOp::Sub {
                    rhs.int().wrapping_neg()
                } else {
                    rhs.int()
                };
                return self.ptr_add(cur, n, span);
            }
            return self.shape_arith(op, cur, rhs, span);
        };
        let shift = matches!(op, BinOp::Shl | BinOp::Shr);
        let op_ty = if shift {
            promoted(tty)
        } else {
            scalar(&value.ty)
        };
        let cur =
            arith::convert(cur, tty, op_ty).map_err(|err| self.arith_error(err, op_ty, span))?;
        let r = arith::binary(op, op_ty, &cur, rhs, scalar(&value.ty))
            .map_err(|err| self.arith_error(err, op_ty, span))?;
        arith::convert(&r, op_ty, tty).map_err(|err| self.arith_error(err, tty, span))
    }

    /// `++`/`--`: the place and its old value.
    fn inc_dec(&mut self, e: &Expr) -> Res<(Place, Value)> {
        let ExprKind::IncDec {
            increment, target, ..
        } = &e.kind
        else {
            return Ok((Machine::temp(Value::Void), Value::Void));
        };
        let p = self.place(target)?;
        let old = self.read_at(&p, e.span, &target.ty)?;
        let new = if let Some(ty) = target.ty.scalar() {
            let op_ty = promoted(ty);
            let op = if *increment { BinOp::Add } else { BinOp::Sub };
            let cur = arith::convert(&old, ty, op_ty)
                .map_err(|err| self.arith_error(err, op_ty, e.span))?;
            let r = arith::binary(op, op_ty, &cur, &arith::one(op_ty), op_ty)
                .map_err(|err| self.arith_error(err, op_ty, e.span))?;
            arith::convert(&r, op_ty, ty).map_err(|err| self.arith_error(err, ty, e.span))?
        } else if let Type::Ptr { .. } | Type::Iter(_) = target.ty {
            self.ptr_add(&old, if *increment { 1 } else { -1 }, e.span)?
        } else {
            old.clone()
        };
        self.write(&p, new, e.span)?;
        Ok((p, old))
    }

    /// Componentwise index/extent arithmetic (`rhs` a shape or an int).
    pub(crate) fn shape_arith(
        &mut self,
        op: BinOp,
        lhs: &Value,
        rhs: &Value,
        span: Span,
    ) -> Res<Value> {
        let a = lhs.dims();
        let b: Vec<i64> = match rhs {
            Value::Agg(_) => rhs.dims(),
            other => vec![other.int(); a.len()],
        };
        match op {
            BinOp::Eq => return Ok(Value::Bool(a == b)),
            BinOp::Ne => return Ok(Value::Bool(a != b)),
            _ => {}
        }
        let mut out = Vec::with_capacity(a.len());
        for (x, y) in a.iter().zip(&b) {
            let r = arith::binary(
                op,
                Scalar::Int,
                &Value::Int(*x),
                &Value::Int(*y),
                Scalar::Int,
            )
            .map_err(|err| self.arith_error(err, Scalar::Int, span))?;
            out.push(r.int());
        }
        Ok(Value::shape(out))
    }
}

/// The value of a function pointer: the function's id plus one, 0 for null,
/// so that zero-initialised storage holds the null function pointer.
pub(crate) fn fn_pointer(func: Option<FuncId>) -> Value {
    Value::Int(func.map_or(0, |f| i64::from(f.0) + 1))
}

impl Machine<'_> {
    /// The function a function pointer points to; a null (or never set)
    /// pointer is a run-time error.
    fn pointed_function(&mut self, callee: &Expr, span: Span) -> Res<FuncId> {
        let v = self.eval(callee)?;
        let found = match v {
            Value::Int(n) if n > 0 => u32::try_from(n - 1)
                .ok()
                .map(FuncId)
                .filter(|f| self.prog.get_function(*f).is_some()),
            _ => None,
        };
        match found {
            Some(f) => Ok(f),
            None => Err(self
                .error(codes::R0013, span, "called a null function pointer")
                .with_label("this function pointer is null")
                .into()),
        }
    }
}
