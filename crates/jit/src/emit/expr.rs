//! Expressions: the value of each kind of expression.

use super::*;

impl Emitter<'_, '_, '_> {
    pub(super) fn scalar_ty(&self, ty: &Type) -> R<Scalar> {
        match ty {
            Type::Scalar(s) => Ok(*s),
            other => decline(Decline::TypeWhereScalarExpected(tessera_ir::display(
                other,
                &self.prog.structs,
            ))),
        }
    }

    pub(super) fn zero(&mut self, s: Scalar) -> Value {
        match s {
            Scalar::Float => self.b.ins().f32const(0.0),
            Scalar::Double => self.b.ins().f64const(0.0),
            other => self.b.ins().iconst(clif_type(other), 0),
        }
    }

    pub(super) fn scalar(&mut self, e: &Expr) -> R<Value> {
        match self.expr(e)? {
            V::S(v) => Ok(v),
            _ => decline(Decline::NonScalarWhereScalarExpected),
        }
    }

    pub(super) fn shape(&mut self, e: &Expr) -> R<Vec<Value>> {
        match self.expr(e)? {
            V::Shape(v) => Ok(v),
            V::Tiled => Ok(self.global_index()),
            _ => decline(Decline::ValueWhereIndexExpected),
        }
    }

    pub(super) fn view(&mut self, e: &Expr) -> R<ViewV> {
        match self.expr(e)? {
            V::View(v) => Ok(v),
            _ => decline(Decline::ValueWhereViewExpected),
        }
    }

    pub(super) fn global_index(&mut self) -> Vec<Value> {
        let Some(shape) = self.layout.tile else {
            return self
                .wi
                .item_coords
                .iter()
                .map(|v| self.b.use_var(*v))
                .collect();
        };
        let coords = self.wi.item_coords.clone();
        let tiles = self.wi.tile_coords.clone();
        shape
            .dims()
            .iter()
            .enumerate()
            .map(|(d, &t)| {
                let origin = self.b.ins().imul_imm_s(tiles[d], i64::from(t));
                let l = self.b.use_var(coords[d]);
                self.b.ins().iadd(origin, l)
            })
            .collect()
    }

    pub(super) fn spend(&mut self) -> R<()> {
        if self.alloc.budget == 0 || self.b.func.dfg.num_insts() > MAX_INSTS {
            return decline(Decline::KernelTooLargeAfterInliningCalls);
        }
        if self.alloc.variable_blocks > MAX_VARIABLE_BLOCKS {
            return decline(Decline::KernelTooManyVariablesAndBlocks);
        }
        self.alloc.budget -= 1;
        Ok(())
    }

    /// A new Cranelift variable of type `ty`, counted against
    /// [`MAX_VARIABLE_BLOCKS`].
    pub(super) fn var(&mut self, ty: types::Type) -> Variable {
        self.alloc.variable_blocks += self.b.func.dfg.num_blocks();
        self.b.declare_var(ty)
    }

    pub(super) fn expr(&mut self, e: &Expr) -> R<V> {
        self.spend()?;
        // A pointer's value is read where it is used (`ptr_value`); here
        // it is only made for its effects (`p++;`, `p = q;`).
        if matches!(e.ty, Type::Ptr { .. } | Type::Null) {
            self.ptr_value(e)?;
            return Ok(V::Unit);
        }
        match &e.kind {
            ExprKind::Const(c) => Ok(V::S(match *c {
                Const::Bool(b) => self.b.ins().iconst(types::I8, i64::from(b)),
                Const::Int(n) => {
                    let s = self.scalar_ty(&e.ty)?;
                    self.b.ins().iconst(clif_type(s), n)
                }
                Const::Float(f) => self.b.ins().f32const(f),
                Const::Double(d) => self.b.ins().f64const(d),
            })),
            ExprKind::Local(l)
                if matches!(
                    self.scope().slots.get(l),
                    Some(Slot::View(_) | Slot::Tiled | Slot::Growing(_))
                ) =>
            {
                match self.scope().slots.get(l).cloned() {
                    Some(Slot::View(v)) => Ok(V::View(v)),
                    Some(Slot::Growing(g)) => Ok(V::View(self.growing_view(&g))),
                    _ => Ok(V::Tiled),
                }
            }
            // A field of a captured struct holding views: its value (a
            // view field has no place).
            ExprKind::Field { base, field } if places::held_views(self.prog, &base.ty) => {
                match self.obj_fields(base)?.get(*field as usize) {
                    // A scalar member in memory of its own (a closure's).
                    Some(V::Mem(addr)) if e.ty.scalar().is_some() => {
                        let addr = *addr;
                        self.read(&Place::Mem(addr, e.ty.clone()))
                    }
                    Some(v) => Ok(v.clone()),
                    None => decline(Decline::FieldType),
                }
            }
            ExprKind::Local(_) | ExprKind::Field { .. } | ExprKind::Element { .. } => {
                let p = self.with_access(Access::Read, |lw| lw.place(e))?;
                self.read(&p)
            }
            ExprKind::Capture(slot) => match self.entry.caps.get(*slot as usize) {
                Some(v) => Ok(v.clone()),
                None => decline(Decline::UnknownCapture),
            },
            ExprKind::Global(g) => match self.host_global(*g) {
                Some(Slot::View(v)) => Ok(V::View(v)),
                Some(_) => {
                    let p = self.place(e)?;
                    self.read(&p)
                }
                None => decline(Decline::GlobalVariableInKernel),
            },
            ExprKind::Binary { op, lhs, rhs }
                if matches!(lhs.ty, Type::Ptr { .. } | Type::Null) =>
            {
                Ok(V::S(self.ptr_compare(*op, lhs, rhs)?))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let s = self.scalar_ty(&lhs.ty)?;
                let rs = self.scalar_ty(&rhs.ty)?;
                let fits = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
                    && s == Scalar::Int
                    && self.range_of(e).is_some();
                // Division of a value known not negative by one known
                // positive (what gives a division a range): no check can
                // fail, and unsigned division (the same result then) is the
                // cheaper one.
                let positive_division = matches!(op, BinOp::Div | BinOp::Rem)
                    && matches!(s, Scalar::Int | Scalar::Long)
                    && s == rs
                    && self.range_of(e).is_some();
                let a = self.scalar(lhs)?;
                let b = self.scalar(rhs)?;
                if positive_division {
                    return Ok(V::S(if *op == BinOp::Div {
                        self.b.ins().udiv(a, b)
                    } else {
                        self.b.ins().urem(a, b)
                    }));
                }
                if fits {
                    // Both operand ranges are known and the result fits: no
                    // overflow check.
                    return Ok(V::S(match op {
                        BinOp::Add => self.b.ins().iadd(a, b),
                        BinOp::Sub => self.b.ins().isub(a, b),
                        _ => self.b.ins().imul(a, b),
                    }));
                }
                Ok(V::S(self.binary(*op, s, a, b, rs)?))
            }
            ExprKind::Unary { op, operand } => {
                let s = self.scalar_ty(&operand.ty)?;
                let a = self.scalar(operand)?;
                Ok(V::S(self.unary(*op, s, a)?))
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let result = self.var(types::I8);
                let a = self.scalar(lhs)?;
                self.b.def_var(result, a);
                let more = self.b.create_block();
                let done = self.b.create_block();
                if *and {
                    self.b.ins().brif(a, more, &[], done, &[]);
                } else {
                    self.b.ins().brif(a, done, &[], more, &[]);
                }
                self.b.switch_to_block(more);
                let b = self.scalar(rhs)?;
                self.b.def_var(result, b);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                Ok(V::S(self.b.use_var(result)))
            }
            ExprKind::Conditional { cond, then, els } => {
                let c = self.scalar(cond)?;
                let (f, done) = self.branch_on(c);
                let tv = self.expr(then)?;
                // Two views: held in variables as a view local that is
                // assigned is (see `view_vars`).
                if let V::View(t) = &tv {
                    let vars = self.view_vars(t);
                    self.b.ins().jump(done, &[]);
                    self.b.switch_to_block(f);
                    let V::View(fv) = self.expr(els)? else {
                        return decline(Decline::ConditionalMixedKinds);
                    };
                    if fv.ext.len() != t.ext.len() || fv.elem != t.elem {
                        return decline(Decline::ConditionalMixedKinds);
                    }
                    self.write_view_vars(&vars, &fv)?;
                    self.b.ins().jump(done, &[]);
                    self.b.switch_to_block(done);
                    return Ok(V::View(self.read_view_vars(&vars)));
                }
                let vars = self.temp_vars(&tv)?;
                self.set_vars(&vars, &tv);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(f);
                let fv = self.expr(els)?;
                if std::mem::discriminant(&tv) != std::mem::discriminant(&fv) {
                    return decline(Decline::ConditionalMixedKinds);
                }
                self.set_vars(&vars, &fv);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                Ok(self.get_vars(&vars, &tv))
            }
            ExprKind::Convert(inner)
                if matches!(inner.ty, Type::Ptr { .. } | Type::Null) && e.ty == Type::BOOL =>
            {
                Ok(V::S(self.ptr_truth(inner)?))
            }
            ExprKind::Convert(inner) => self.convert_expr(inner, &e.ty),
            // C++17: the right operand of `=` and `op=` is evaluated before
            // the left one.
            ExprKind::Assign { target, value } => {
                let v = self.expr(value)?;
                let p = self.with_access(Access::Write, |lw| lw.place(target))?;
                self.write(&p, &v, &target.ty)?;
                Ok(v)
            }
            ExprKind::CompoundAssign { op, target, value } => {
                let rhs = self.scalar(value)?;
                let p = self.with_access(Access::ReadWrite, |lw| lw.place(target))?;
                let tv = self.read(&p)?;
                let V::S(old) = tv else {
                    return decline(Decline::CompoundAssignmentNonScalar);
                };
                let ts = self.scalar_ty(&target.ty)?;
                let vs = self.scalar_ty(&value.ty)?;
                let (op_ty, rhs_ty) = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    (ts, vs)
                } else {
                    (vs, vs)
                };
                let lhs = self.convert(old, ts, op_ty)?;
                let r = self.binary(*op, op_ty, lhs, rhs, rhs_ty)?;
                let back = self.convert(r, op_ty, ts)?;
                self.write(&p, &V::S(back), &target.ty)?;
                Ok(V::S(back))
            }
            ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                let p = self.with_access(Access::ReadWrite, |lw| lw.place(target))?;
                let V::S(old) = self.read(&p)? else {
                    return decline(Decline::IncrementOnNonScalar);
                };
                let s = self.scalar_ty(&target.ty)?;
                if s == Scalar::Bool {
                    return decline(Decline::IncrementOnBool);
                }
                let one = match s {
                    Scalar::Float => self.b.ins().f32const(1.0),
                    Scalar::Double => self.b.ins().f64const(1.0),
                    other => self.b.ins().iconst(clif_type(other), 1),
                };
                let op = if *increment { BinOp::Add } else { BinOp::Sub };
                let (lo, hi) = s.int_range();
                let safe = self
                    .range_of(target)
                    .is_some_and(|(l, h)| if *increment { h < hi } else { l > lo });
                let new = if safe && !s.is_floating() {
                    if *increment {
                        self.b.ins().iadd(old, one)
                    } else {
                        self.b.ins().isub(old, one)
                    }
                } else {
                    self.binary(op, s, old, one, s)?
                };
                self.write(&p, &V::S(new), &target.ty)?;
                Ok(V::S(if *prefix { new } else { old }))
            }
            ExprKind::Call { func, args } => match self.barrier_result(*func, e)? {
                Some(v) => Ok(v),
                None => self.call(*func, args),
            },
            ExprKind::Intrinsic { op, args } => self.intrinsic(op, args, e),
            ExprKind::Comma { first, second } => {
                self.expr(first)?;
                self.expr(second)
            }
            // `S{ a, b }` as a value in host code: built in memory of its
            // own, as a local initialised from the list would be.
            ExprKind::Aggregate(items) if self.host.is_some() => {
                let Some((size, align)) = size_align(&self.prog.structs, &e.ty) else {
                    return decline(Decline::BracedListAsValue);
                };
                if self.has_tags(&e.ty) {
                    return decline(Decline::UnionTags);
                }
                let ss = self.stack_slot(size.max(1), align.max(8))?;
                let addr = self.b.ins().stack_addr(self.ptr, ss, 0);
                let init = Init::List(items.iter().cloned().map(Init::Expr).collect());
                self.init_mem(addr, &e.ty, &init)?;
                Ok(V::Mem(addr))
            }
            ExprKind::Aggregate(_) => decline(Decline::BracedListAsValue),
            ExprKind::Launch { .. } => decline(Decline::LaunchInKernel),
            ExprKind::Str(_) => decline(Decline::StringInKernel),
            ExprKind::Throw(_) => decline(Decline::Exceptions),
            // A vector a closure's reference member refers to: its view.
            ExprKind::Deref(inner) if self.referred(inner) && matches!(e.ty, Type::Vector(_)) => {
                self.referred_value(inner)
            }
            ExprKind::Deref(_) if self.host.is_some() => {
                let p = self.place(e)?;
                self.read(&p)
            }
            // In a kernel, a pointer the plan let through is a reference.
            ExprKind::Deref(_) => {
                let p = self.with_access(Access::Read, |lw| lw.place(e))?;
                self.read(&p)
            }
            ExprKind::PtrDiff { lhs, rhs } => Ok(V::S(self.ptr_diff(lhs, rhs)?)),
            ExprKind::Null
            | ExprKind::AddrOf(_)
            | ExprKind::PtrAdd { .. }
            | ExprKind::New { .. }
            | ExprKind::Delete { .. }
            | ExprKind::FuncAddr(_)
            | ExprKind::CallPtr { .. } => decline(Decline::Pointer),
            ExprKind::VirtualCall { .. } => decline(Decline::VirtualCall),
        }
    }
}
