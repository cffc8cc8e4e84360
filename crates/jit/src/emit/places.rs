//! Places and memory: where locals live (variables, stack slots, frame,
//! `tile_static` scratch), reading and writing them, aggregates.

use super::*;

impl Emitter<'_, '_, '_> {
    /// The address of an aggregate local, giving it a home on first use.
    pub(super) fn aggregate_slot(&mut self, l: LocalId, ty: &Type) -> R<Value> {
        if let Some(slot) = self.scope().slots.get(&l).cloned() {
            return self.slot_addr(&slot);
        }
        if let Some(&off) = self.scope().frame.get(&l) {
            self.scope_mut().slots.insert(l, Slot::Frame(off));
            return Ok(self.frame_addr(off));
        }
        let Some((size, align)) = size_align(&self.prog.structs, ty) else {
            return decline(Decline::AggregateType);
        };
        let ss = self.aggregate_stack_slot(ty, size, align)?;
        self.scope_mut().slots.insert(l, Slot::Stack(ss));
        self.slot_addr(&Slot::Stack(ss))
    }

    /// A stack slot for a private aggregate. A host statement is declined
    /// past [`STACK_BUDGET`] bytes, as it runs on the interpreter's stack;
    /// a kernel past [`MAX_KERNEL_STACK`] (its launches make threads with
    /// the room it needs).
    pub(super) fn stack_slot(
        &mut self,
        size: u32,
        align: u32,
    ) -> R<cranelift_codegen::ir::StackSlot> {
        self.alloc.stack_bytes = self.alloc.stack_bytes.saturating_add(size);
        let limit = if self.host.is_some() {
            STACK_BUDGET
        } else {
            MAX_KERNEL_STACK
        };
        if self.alloc.stack_bytes > limit {
            return decline(Decline::PrivateArraysTooLargeForStack);
        }
        Ok(self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size,
            align.trailing_zeros() as u8,
        )))
    }

    pub(super) fn slot_addr(&mut self, slot: &Slot) -> R<Value> {
        let addr = match slot {
            Slot::Stack(ss) => self.b.ins().stack_addr(self.ptr, *ss, 0),
            Slot::Frame(off) => self.frame_addr(*off),
            Slot::TileStatic(off) => self.b.ins().iadd_imm_s(self.entry.scratch, i64::from(*off)),
            _ => return decline(Decline::AddressVariable),
        };
        self.note_slot_tags(slot, addr);
        Ok(addr)
    }

    pub(super) fn zero_mem(&mut self, addr: Value, ty: &Type) -> R<()> {
        let Some((size, _)) = size_align(&self.prog.structs, ty) else {
            return decline(Decline::AggregateType);
        };
        self.init_zero_tags(addr, ty)?;
        let zero = self.b.ins().iconst(types::I8, 0);
        if size <= 256 {
            for k in 0..size {
                self.b.ins().store(flags(), zero, addr, k as i32);
            }
            return Ok(());
        }
        // A loop for large arrays, 16 bytes a step (the address need not
        // be aligned to them), then the bytes left one by one.
        let whole = size - size % 16;
        let i = self.var(types::I64);
        let z64 = self.b.ins().iconst(types::I64, 0);
        let zeros = self.b.ins().splat(types::I64X2, z64);
        self.b.def_var(i, z64);
        let head = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let iv = self.b.use_var(i);
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, iv, i64::from(whole));
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let at = self.b.ins().iadd(addr, iv);
        self.b
            .ins()
            .store(MemFlagsData::new().with_notrap(), zeros, at, 0);
        let i1 = self.b.ins().iadd_imm_s(iv, 16);
        self.b.def_var(i, i1);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        for k in whole..size {
            self.b.ins().store(flags(), zero, addr, k as i32);
        }
        Ok(())
    }

    pub(super) fn init_mem(&mut self, addr: Value, ty: &Type, init: &Init) -> R<()> {
        match init {
            Init::Zero => self.zero_mem(addr, ty),
            Init::Expr(e) => {
                let v = self.expr(e)?;
                self.store_value(addr, ty, &v)
            }
            Init::List(items) => {
                self.zero_mem(addr, ty)?;
                for (k, item) in items.iter().enumerate() {
                    let (sub_ty, off) = match ty {
                        Type::CArray(elem, _) => {
                            let Some((size, _)) = size_align(&self.prog.structs, elem) else {
                                return decline(Decline::ArrayElementType);
                            };
                            ((**elem).clone(), size * k as u32)
                        }
                        Type::Struct(id) => {
                            let Some(def) = self.prog.get_struct(*id) else {
                                return decline(Decline::UnknownStruct);
                            };
                            let Some((_, fty)) = def.fields.get(k) else {
                                return decline(Decline::InitialiserTooManyFields);
                            };
                            let Some(off) = field_offset(&self.prog.structs, ty, k as u32) else {
                                return decline(Decline::FieldType);
                            };
                            (fty.clone(), off)
                        }
                        _ => return decline(Decline::BracedInitialiserType),
                    };
                    let at = self.b.ins().iadd_imm_s(addr, i64::from(off));
                    self.init_mem(at, &sub_ty, item)?;
                }
                Ok(())
            }
            Init::Ref(_) => decline(Decline::ReferenceInsideAggregate),
        }
    }

    /// Stores a value of type `ty` at `addr`.
    pub(super) fn store_value(&mut self, addr: Value, ty: &Type, v: &V) -> R<()> {
        match (ty, v) {
            (Type::Scalar(_), V::S(x)) => {
                self.b.ins().store(flags(), *x, addr, 0);
            }
            (Type::Index(_) | Type::Extent(_), V::Shape(cs)) => {
                for (k, c) in cs.iter().enumerate() {
                    self.b.ins().store(flags(), *c, addr, (k * 4) as i32);
                }
            }
            (Type::Struct(_) | Type::CArray(..), V::Mem(src)) => {
                let Some((size, _)) = size_align(&self.prog.structs, ty) else {
                    return decline(Decline::AggregateType);
                };
                self.check_bool_bytes(*src, ty)?;
                self.copy_tags(addr, *src, ty)?;
                self.copy_bytes(addr, *src, size);
            }
            _ => return decline(Decline::StoringValueKind),
        }
        Ok(())
    }

    /// Before an aggregate of type `ty` at `src` is copied, while `bool`s
    /// are checked (see `Emitter::check_bools`): fails unless each of its
    /// `bool`s is 0 or 1 (the interpreter reads a copy scalar by scalar).
    pub(super) fn check_bool_bytes(&mut self, src: Value, ty: &Type) -> R<()> {
        if !self.check_bools {
            return Ok(());
        }
        let Some(leaves) = tessera_ir::layout::scalar_leaves(&self.prog.structs, ty) else {
            return decline(Decline::AggregateType);
        };
        let bools: Vec<u64> = leaves
            .iter()
            .filter(|l| l.scalar == Scalar::Bool)
            .map(|l| l.offset)
            .collect();
        if bools.len() > 64 {
            return decline(Decline::AggregateType);
        }
        for off in bools {
            let Ok(off) = i32::try_from(off) else {
                return decline(Decline::AggregateType);
            };
            let byte = self.b.ins().load(types::I8, flags(), src, off);
            let ok = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, byte, 1);
            self.guard(ok);
        }
        Ok(())
    }

    pub(super) fn copy_bytes(&mut self, dst: Value, src: Value, size: u32) {
        for (k, t) in chunks(size) {
            let v = self.b.ins().load(t, flags(), src, k);
            self.b.ins().store(flags(), v, dst, k);
        }
    }

    /// Exchanges the `size` bytes at `x` and `y` (one object with itself
    /// stays as it is).
    pub(super) fn swap_bytes(&mut self, x: Value, y: Value, size: u32) {
        for (k, t) in chunks(size) {
            let a = self.b.ins().load(t, flags(), x, k);
            let b = self.b.ins().load(t, flags(), y, k);
            self.b.ins().store(flags(), b, x, k);
            self.b.ins().store(flags(), a, y, k);
        }
    }

    pub(super) fn temp_vars(&mut self, v: &V) -> R<Vec<Variable>> {
        Ok(match v {
            V::S(x) => {
                let t = self.b.func.dfg.value_type(*x);
                vec![self.var(t)]
            }
            V::Shape(cs) => cs.iter().map(|_| self.var(types::I32)).collect(),
            V::Mem(_) => vec![self.var(self.ptr)],
            _ => return decline(Decline::ConditionalType),
        })
    }

    pub(super) fn set_vars(&mut self, vars: &[Variable], v: &V) {
        match v {
            V::S(x) | V::Mem(x) => self.b.def_var(vars[0], *x),
            V::Shape(cs) => {
                for (var, c) in vars.iter().zip(cs) {
                    self.b.def_var(*var, *c);
                }
            }
            _ => {}
        }
    }

    pub(super) fn get_vars(&mut self, vars: &[Variable], like: &V) -> V {
        match like {
            V::S(_) => V::S(self.b.use_var(vars[0])),
            V::Mem(_) => V::Mem(self.b.use_var(vars[0])),
            _ => V::Shape(vars.iter().map(|v| self.b.use_var(*v)).collect()),
        }
    }

    pub(super) fn assign_vars(&mut self, vars: &[Variable], v: &V, ty: &Type) -> R<()> {
        match (v, ty) {
            (V::S(_) | V::Shape(_), _) => {
                self.set_vars(vars, v);
                Ok(())
            }
            (V::Tiled, Type::Index(_)) => {
                let g = self.global_index();
                self.set_vars(vars, &V::Shape(g));
                Ok(())
            }
            _ => decline(Decline::ReturningValueType),
        }
    }

    pub(super) fn place(&mut self, e: &Expr) -> R<Place> {
        match &e.kind {
            ExprKind::Local(l) => {
                let slot = self.scope().slots.get(l).cloned();
                match slot {
                    Some(Slot::Vars(vars)) => Ok(if vars.len() == 1 && e.ty.scalar().is_some() {
                        Place::Var(vars[0])
                    } else {
                        Place::Shape(vars)
                    }),
                    Some(Slot::Ref(p)) => Ok(p),
                    Some(Slot::MemberRef(m)) => {
                        let access = self.unions.access;
                        self.touch_member(&m.member, m.addr, access)?;
                        Ok(Place::Mem(m.addr, m.ty.clone()))
                    }
                    Some(s @ (Slot::Stack(_) | Slot::Frame(_) | Slot::TileStatic(_))) => {
                        let addr = self.slot_addr(&s)?;
                        Ok(Place::Mem(addr, e.ty.clone()))
                    }
                    Some(Slot::View(_) | Slot::Tiled | Slot::Growing(_)) => {
                        decline(Decline::ViewOrTiledIndexAsPlace)
                    }
                    // A pointer is not a place of its own here: its value is
                    // read and written by `ptr_value`.
                    Some(Slot::Ptr(..) | Slot::ChosenPtr(_)) => decline(Decline::Pointer),
                    None => {
                        // Declared without `Let` reaching here (a frame local
                        // read before its region declared it, or a parameter).
                        if let Some(&off) = self.scope().frame.get(l) {
                            let addr = self.frame_addr(off);
                            return Ok(Place::Mem(addr, e.ty.clone()));
                        }
                        let n = match &e.ty {
                            Type::Scalar(_) => 1,
                            Type::Index(r) | Type::Extent(r) => u32::from(*r),
                            _ => return decline(Decline::LocalUsedBeforeDeclaration),
                        };
                        let vars = self.local_vars(*l, &e.ty, n);
                        for v in &vars {
                            let z = match &e.ty {
                                Type::Scalar(s) => self.zero(*s),
                                _ => self.b.ins().iconst(types::I32, 0),
                            };
                            self.b.def_var(*v, z);
                        }
                        Ok(if n == 1 && e.ty.scalar().is_some() {
                            Place::Var(vars[0])
                        } else {
                            Place::Shape(vars)
                        })
                    }
                }
            }
            // `*closure.member`: the object a closure's reference member
            // refers to, handed over as itself.
            ExprKind::Deref(inner) if self.referred(inner) => match self.referred_value(inner)? {
                V::Mem(addr) => Ok(Place::Mem(addr, e.ty.clone())),
                _ => decline(Decline::ViewOrTiledIndexAsPlace),
            },
            ExprKind::Deref(inner) => self.deref_place(inner),
            ExprKind::Global(g) => match self.host_global(*g) {
                Some(Slot::Vars(vars)) if vars.len() == 1 => Ok(Place::Var(vars[0])),
                Some(Slot::Ref(p)) => Ok(p),
                _ => decline(Decline::GlobalVariableInKernel),
            },
            ExprKind::Call { func, args }
                if self.prog.get_function(*func).is_some_and(|f| f.ret_by_ref) =>
            {
                self.call_place(*func, args)
            }
            ExprKind::Capture(slot) => match self.entry.caps.get(*slot as usize) {
                Some(V::Mem(addr)) => Ok(Place::Mem(*addr, e.ty.clone())),
                Some(V::Obj(fields)) => Ok(Place::Obj(fields.clone())),
                _ => decline(Decline::CapturedValueAsPlace),
            },
            // A field of a captured struct holding views: memory for a
            // plain struct or C array, else variables holding a copy of the
            // value (the object is `const` where it is reached).
            ExprKind::Field { base, field } if held_views(self.prog, &base.ty) => {
                let fields = if base.place {
                    match self.place(base)? {
                        Place::Fields(fields) => return self.field_place(&fields, *field),
                        Place::Obj(fields) => fields,
                        _ => return decline(Decline::AggregateOutsideMemory),
                    }
                } else {
                    self.obj_fields(base)?
                };
                match fields.get(*field as usize) {
                    Some(V::Mem(addr)) => Ok(Place::Mem(*addr, e.ty.clone())),
                    Some(V::Obj(fields)) => Ok(Place::Obj(fields.clone())),
                    Some(v @ (V::S(_) | V::Shape(_))) => {
                        let v = v.clone();
                        let vars = self.temp_vars(&v)?;
                        self.set_vars(&vars, &v);
                        Ok(match vars.as_slice() {
                            [one] if e.ty.scalar().is_some() => Place::Var(*one),
                            _ => Place::Shape(vars),
                        })
                    }
                    Some(_) => decline(Decline::ViewOrTiledIndexAsPlace),
                    None => decline(Decline::FieldType),
                }
            }
            // A conversion that changes nothing in memory (to `const`, a
            // struct to itself): the place it converts.
            ExprKind::Convert(inner)
                if inner.place
                    && inner.ty.scalar().is_none()
                    && size_align(&self.prog.structs, &inner.ty).is_some()
                    && size_align(&self.prog.structs, &inner.ty)
                        == size_align(&self.prog.structs, &e.ty) =>
            {
                match self.place(inner)? {
                    Place::Mem(addr, _) => Ok(Place::Mem(addr, e.ty.clone())),
                    other => Ok(other),
                }
            }
            ExprKind::Field { base, field } => {
                if let Some(p) = self.union_field(e, base, *field)? {
                    return Ok(p);
                }
                let (addr, bty) = self.mem_of(base)?;
                let Some(off) = field_offset(&self.prog.structs, &bty, *field) else {
                    return decline(Decline::FieldType);
                };
                let at = self.b.ins().iadd_imm_s(addr, i64::from(off));
                self.note_field_tags(addr, at, &bty, *field);
                Ok(Place::Mem(at, e.ty.clone()))
            }
            ExprKind::Element { base, index } => {
                let (addr, bty) = self.mem_of(base)?;
                let Type::CArray(elem, n) = &bty else {
                    return decline(Decline::ElementOfNonArray);
                };
                let Some((size, _)) = size_align(&self.prog.structs, elem) else {
                    return decline(Decline::ArrayElementType);
                };
                let is = self.scalar_ty(&index.ty)?;
                let known = self.range_of(index);
                let i = self.scalar(index)?;
                let i64v = self.widen(i, is);
                if !known.is_some_and(|(lo, hi)| lo >= 0 && hi < i64::from(*n)) {
                    self.check_below(i64v, i64::from(*n));
                }
                let at = self.element_address(addr, i64v, i64::from(size), known);
                self.note_element_tags(addr, at, elem, i64v);
                Ok(Place::Mem(at, (**elem).clone()))
            }
            ExprKind::Intrinsic {
                op: Intrinsic::ViewElement,
                args,
            } => {
                let (at, elem) = self.view_element(args)?;
                Ok(Place::Mem(at, elem))
            }
            ExprKind::Intrinsic {
                op: Intrinsic::VectorElement,
                args,
            } => {
                let (at, elem) = self.vector_element(args)?;
                Ok(Place::Mem(at, elem))
            }
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => {
                let p = self.place(&args[0])?;
                let Some(k) = const_int(&args[1]) else {
                    // A computed component (`ex[i] = n`), checked to lie
                    // below the rank: of an index or extent in memory, its
                    // address; of one in variables, the variables and the
                    // position (`Place::Component`).
                    let rank = match &p {
                        Place::Mem(_, Type::Index(r) | Type::Extent(r)) => i64::from(*r),
                        Place::Shape(vars) if !vars.is_empty() => vars.len() as i64,
                        _ => return decline(Decline::ComputedIndexComponentAsPlace),
                    };
                    let is = self.scalar_ty(&args[1].ty)?;
                    let k = self.scalar(&args[1])?;
                    let k = self.widen(k, is);
                    self.check_below(k, rank);
                    return Ok(match p {
                        Place::Shape(vars) => Place::Component(vars, k),
                        Place::Mem(addr, _) => {
                            let offset = self.b.ins().imul_imm_s(k, 4);
                            Place::Mem(self.b.ins().iadd(addr, offset), Type::INT)
                        }
                        _ => return decline(Decline::ComputedIndexComponentAsPlace),
                    });
                };
                match p {
                    Place::Shape(vars) => match vars.get(k as usize) {
                        Some(v) if k >= 0 => Ok(Place::Var(*v)),
                        // A component the object does not have: the launch
                        // fails there, for the interpreter to report (the
                        // place after it is never reached).
                        _ => match vars.first() {
                            Some(v) => {
                                self.fail_here();
                                Ok(Place::Var(*v))
                            }
                            None => decline(Decline::ComponentPastRank),
                        },
                    },
                    Place::Mem(addr, Type::Index(r) | Type::Extent(r))
                        if k >= 0 && k < i64::from(r) =>
                    {
                        let at = self.b.ins().iadd_imm_s(addr, k * 4);
                        Ok(Place::Mem(at, Type::INT))
                    }
                    Place::Mem(addr, Type::Index(_) | Type::Extent(_)) => {
                        self.fail_here();
                        Ok(Place::Mem(addr, Type::INT))
                    }
                    _ => decline(Decline::IndexComponentAsPlace),
                }
            }
            ExprKind::Assign { .. } | ExprKind::CompoundAssign { .. } => {
                // `(a = b)` used as a place: do it, then name the target.
                let (ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. }) =
                    &e.kind
                else {
                    return decline(Decline::OtherPlace);
                };
                self.expr(e)?;
                self.place(target)
            }
            ExprKind::IncDec {
                prefix: true,
                target,
                ..
            } => {
                self.expr(e)?;
                self.place(target)
            }
            ExprKind::Conditional { cond, then, els } => self.conditional_place(cond, then, els),
            // `(a, b)` used as a place: `a` for its effects, then `b`.
            ExprKind::Comma { first, second } => {
                self.expr(first)?;
                self.place(second)
            }
            other => decline(Decline::ExprAsPlace(kind_name(other))),
        }
    }

    /// `c ? a : b` as a place: each arm's place is made on its own path
    /// (only the chosen arm's indices are evaluated and checked), joined
    /// as one address when both arms are memory of one type, or as the
    /// two variables a position picks ([`Place::Component`]) when both
    /// are scalar variables.
    fn conditional_place(&mut self, cond: &Expr, then: &Expr, els: &Expr) -> R<Place> {
        let c = self.scalar(cond)?;
        let (f, done) = self.branch_on(c);
        match self.place(then)? {
            Place::Mem(at_then, ty) => {
                self.b.append_block_param(done, self.ptr);
                self.b.ins().jump(done, &[at_then.into()]);
                self.b.switch_to_block(f);
                match (self.place(els)?, &ty) {
                    (Place::Mem(at_else, else_ty), _) if else_ty == ty => {
                        Ok(Place::Mem(self.join_address(done, at_else), ty))
                    }
                    (Place::Var(var), Type::Scalar(s)) if els.ty == ty => {
                        let s = *s;
                        let spare = self.spare_scalar()?;
                        let addr = self.join_address(done, spare);
                        Ok(self.var_or_mem(c, false, var, addr, s))
                    }
                    _ => decline(Decline::ConditionalMixedKinds),
                }
            }
            Place::Var(var_then) if self.scalar_var_place(els) => {
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(f);
                let Place::Var(var_else) = self.place(els)? else {
                    return decline(Decline::ConditionalMixedKinds);
                };
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                Ok(self.either_var(c, var_then, var_else))
            }
            Place::Var(var_then) => {
                // The other arm may be memory: its address comes through
                // `done`, a spare slot's from this arm.
                let Type::Scalar(s) = then.ty else {
                    return decline(Decline::ConditionalMixedKinds);
                };
                let spare = self.spare_scalar()?;
                self.b.append_block_param(done, self.ptr);
                self.b.ins().jump(done, &[spare.into()]);
                self.b.switch_to_block(f);
                match self.place(els)? {
                    Place::Var(var_else) => {
                        // Two variables after all (the second a reference's):
                        // the address is not used, but `spare` was made on
                        // the other path, so this one passes a value of its
                        // own.
                        let unused = self.b.ins().iconst(self.ptr, 0);
                        self.b.ins().jump(done, &[unused.into()]);
                        self.b.switch_to_block(done);
                        Ok(self.either_var(c, var_then, var_else))
                    }
                    Place::Mem(at_else, Type::Scalar(t)) if t == s => {
                        let addr = self.join_address(done, at_else);
                        Ok(self.var_or_mem(c, true, var_then, addr, s))
                    }
                    _ => decline(Decline::ConditionalMixedKinds),
                }
            }
            _ => decline(Decline::ConditionalMixedKinds),
        }
    }

    /// Ends an arm of a conditional place by passing `addr` to `done`,
    /// whose one parameter is the address; continues there with it.
    fn join_address(&mut self, done: Block, addr: Value) -> Value {
        self.b.ins().jump(done, &[addr.into()]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// A variable or memory, as a condition `c` picks (the variable when
    /// `c` is `var_when_true`).
    fn var_or_mem(
        &mut self,
        c: Value,
        var_when_true: bool,
        var: Variable,
        addr: Value,
        ty: Scalar,
    ) -> Place {
        let the_var = self.b.ins().iconst(types::I64, 0);
        let memory = self.b.ins().iconst(types::I64, -1);
        let which = if var_when_true {
            self.b.ins().select(c, the_var, memory)
        } else {
            self.b.ins().select(c, memory, the_var)
        };
        Place::VarsOrMem(VarsOrMem {
            which,
            vars: vec![var],
            addr,
            ty,
        })
    }

    /// The variable of the two a condition `c` picks (the first when true).
    fn either_var(&mut self, c: Value, var_then: Variable, var_else: Variable) -> Place {
        // Position 0 names the first arm's variable, 1 the second's.
        let zero = self.b.ins().iconst(types::I64, 0);
        let one = self.b.ins().iconst(types::I64, 1);
        let k = self.b.ins().select(c, zero, one);
        Place::Component(vec![var_then, var_else], k)
    }

    /// Whether `e` names a local held in one scalar variable (so that its
    /// place is [`Place::Var`]).
    fn scalar_var_place(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Local(l)
            if matches!(self.scope().slots.get(l), Some(Slot::Vars(v)) if v.len() == 1))
    }

    /// The address of a zeroed 8-byte stack slot, which a
    /// [`Place::VarsOrMem`] reads and writes when a variable is picked (a
    /// zero is a valid value of every scalar type, `bool` included).
    pub(super) fn spare_scalar(&mut self) -> R<Value> {
        let ss = self.stack_slot(8, 8)?;
        let addr = self.b.ins().stack_addr(self.ptr, ss, 0);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().store(flags(), zero, addr, 0);
        Ok(addr)
    }

    /// `addr + i * size`, its constants added last: `addr`'s own (a
    /// member's offset, a constant row index) and the element's when the
    /// index is known. x86-64 takes only an outermost constant into the
    /// address of a load that an arithmetic instruction reads from memory
    /// (Cranelift's `lower_to_amode` keeps an inner one in a register), and
    /// the variable part is then one value for every element at a constant
    /// distance from it, as `t[k][lx]` for each `k` of an unrolled loop.
    /// Address arithmetic wraps, so the regrouped sum is the same address.
    fn element_address(
        &mut self,
        addr: Value,
        i: Value,
        size: i64,
        known: Option<(i64, i64)>,
    ) -> Value {
        if let Some((lo, hi)) = known
            && lo == hi
        {
            let (base, c) = constant_part(&self.b.func.dfg, addr);
            if let Some(total) = lo.checked_mul(size).and_then(|o| o.checked_add(c)) {
                return self.b.ins().iadd_imm_s(base, total);
            }
        }
        self.scaled_address(addr, i, size)
    }

    /// `addr + i * size` with the constants of both `addr` and `i` added
    /// last (`i + 4`, the next lane group's index, scales to a constant 16
    /// that the load or store takes as its displacement), for the reason
    /// `element_address` gives. The sum wraps as the plain one does.
    pub(super) fn scaled_address(&mut self, addr: Value, i: Value, size: i64) -> Value {
        let (base, c) = constant_part(&self.b.func.dfg, addr);
        let (index, ci) = constant_part(&self.b.func.dfg, i);
        let (index, c) = match ci.checked_mul(size).and_then(|o| o.checked_add(c)) {
            Some(total) => (index, total),
            None => (i, c),
        };
        let off = self.b.ins().imul_imm_s(index, size);
        let sum = self.b.ins().iadd(base, off);
        if c == 0 {
            sum
        } else {
            self.b.ins().iadd_imm_s(sum, c)
        }
    }

    /// The address and type of an aggregate expression.
    /// The fields of a captured struct holding views that `e` names.
    pub(super) fn obj_fields(&mut self, e: &Expr) -> R<Vec<V>> {
        if e.place {
            return match self.place(e)? {
                Place::Obj(fields) => Ok(fields),
                Place::Fields(fields) => Ok(self.read_fields(&fields)),
                _ => decline(Decline::AggregateOutsideMemory),
            };
        }
        match self.expr(e)? {
            V::Obj(fields) => Ok(fields),
            _ => decline(Decline::AggregateValueKind),
        }
    }

    pub(super) fn mem_of(&mut self, e: &Expr) -> R<(Value, Type)> {
        if e.place {
            match self.place(e)? {
                Place::Mem(addr, ty) => return Ok((addr, ty)),
                _ => return decline(Decline::AggregateOutsideMemory),
            }
        }
        match self.expr(e)? {
            V::Mem(addr) => Ok((addr, e.ty.clone())),
            _ => decline(Decline::AggregateValueKind),
        }
    }

    pub(super) fn read(&mut self, p: &Place) -> R<V> {
        Ok(match p {
            Place::Var(v) => V::S(self.b.use_var(*v)),
            Place::Shape(vars) => V::Shape(vars.iter().map(|v| self.b.use_var(*v)).collect()),
            Place::Component(vars, k) => {
                let Some(first) = vars.first() else {
                    return decline(Decline::ComponentPastRank);
                };
                let mut r = self.b.use_var(*first);
                for (j, var) in vars.iter().enumerate().skip(1) {
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, *k, j as i64);
                    let c = self.b.use_var(*var);
                    r = self.b.ins().select(hit, c, r);
                }
                V::S(r)
            }
            Place::Mem(addr, ty) => match ty {
                Type::Scalar(Scalar::Bool) if self.check_bools => {
                    let byte = self.b.ins().load(types::I8, flags(), *addr, 0);
                    let ok = self
                        .b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, byte, 1);
                    self.guard(ok);
                    V::S(byte)
                }
                Type::Scalar(s) => V::S(self.b.ins().load(clif_type(*s), flags(), *addr, 0)),
                Type::Index(r) | Type::Extent(r) => V::Shape(
                    (0..*r)
                        .map(|k| {
                            self.b
                                .ins()
                                .load(types::I32, flags(), *addr, i32::from(k) * 4)
                        })
                        .collect(),
                ),
                Type::Struct(_) | Type::CArray(..) => V::Mem(*addr),
                _ => return decline(Decline::ReadingMemoryType),
            },
            Place::Obj(fields) => V::Obj(fields.clone()),
            Place::Fields(fields) => V::Obj(self.read_fields(fields)),
            Place::ViewVars(v) => V::View(self.read_view_vars(v)),
            Place::VarsOrMem(p) => {
                // All are read (the unpicked memory is the spare slot).
                let V::S(mut picked) = self.read(&Place::Mem(p.addr, Type::Scalar(p.ty)))? else {
                    return decline(Decline::ReadingMemoryType);
                };
                for (k, var) in p.vars.iter().enumerate() {
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, p.which, k as i64);
                    let in_var = self.b.use_var(*var);
                    picked = self.b.ins().select(hit, in_var, picked);
                }
                V::S(picked)
            }
        })
    }

    pub(super) fn write(&mut self, p: &Place, v: &V, ty: &Type) -> R<()> {
        match (p, v) {
            (Place::Var(var), V::S(x)) => {
                self.b.def_var(*var, *x);
                Ok(())
            }
            (Place::Shape(vars), V::Shape(cs)) => {
                for (var, c) in vars.iter().zip(cs) {
                    self.b.def_var(*var, *c);
                }
                Ok(())
            }
            (Place::Component(vars, k), V::S(x)) => {
                for (j, var) in vars.iter().enumerate() {
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, *k, j as i64);
                    let old = self.b.use_var(*var);
                    let new = self.b.ins().select(hit, *x, old);
                    self.b.def_var(*var, new);
                }
                Ok(())
            }
            (Place::Shape(vars), V::Tiled) => {
                let g = self.global_index();
                for (var, c) in vars.iter().zip(g) {
                    self.b.def_var(*var, c);
                }
                Ok(())
            }
            (Place::Mem(addr, mty), _) => {
                let _ = ty;
                self.store_value(*addr, mty, v)
            }
            (Place::Fields(fields), V::Obj(values)) => self.write_fields(fields, values),
            (Place::ViewVars(vars), V::View(x)) => self.write_view_vars(vars, x),
            (Place::VarsOrMem(p), V::S(x)) => {
                // A variable keeps its value unless picked; the store goes
                // to the spare slot unless the memory is picked.
                for (k, var) in p.vars.iter().enumerate() {
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, p.which, k as i64);
                    let old = self.b.use_var(*var);
                    let new = self.b.ins().select(hit, *x, old);
                    self.b.def_var(*var, new);
                }
                self.store_value(p.addr, &Type::Scalar(p.ty), v)
            }
            _ => decline(Decline::AssignmentKind),
        }
    }
}

/// `v` as a value plus a constant: through `iadd`s of constants (as
/// `iadd_imm_s` makes them), else `v` and 0.
fn constant_part(dfg: &cranelift_codegen::ir::DataFlowGraph, v: Value) -> (Value, i64) {
    use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
    let constant = |x: Value| match dfg.value_def(x) {
        ValueDef::Result(inst, 0) => match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        },
        _ => None,
    };
    let mut at = v;
    let mut total: i64 = 0;
    // A bounded walk: each step goes to an older value.
    for _ in 0..16 {
        let ValueDef::Result(inst, 0) = dfg.value_def(at) else {
            break;
        };
        let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args: [x, y],
        } = dfg.insts[inst]
        else {
            break;
        };
        let (rest, c) = match (constant(y), constant(x)) {
            (Some(c), _) => (x, c),
            (None, Some(c)) => (y, c),
            (None, None) => break,
        };
        let Some(t) = total.checked_add(c) else {
            break;
        };
        total = t;
        at = rest;
    }
    (at, total)
}

/// The pieces `size` bytes are moved in: each piece's offset and type,
/// eight bytes at a time where the offset allows, then four, then one.
fn chunks(size: u32) -> Vec<(i32, cranelift_codegen::ir::Type)> {
    let mut out = Vec::new();
    let mut k = 0u32;
    while k < size {
        let (t, n) = if size - k >= 8 && k.is_multiple_of(8) {
            (types::I64, 8)
        } else if size - k >= 4 && k.is_multiple_of(4) {
            (types::I32, 4)
        } else {
            (types::I8, 1)
        };
        out.push((k as i32, t));
        k += n;
    }
    out
}

/// Whether `ty` is a struct without a plain layout, which a kernel may
/// hold only as a captured object field by field (see [`V::Obj`]).
pub(super) fn held_views(prog: &Program, ty: &Type) -> bool {
    matches!(ty, Type::Struct(_)) && size_align(&prog.structs, ty).is_none()
}

impl Emitter<'_, '_, '_> {
    /// Whether `member` is a reference member of a closure that host code
    /// holds member by member (see `plan::host::holds_references`).
    pub(super) fn referred(&self, member: &Expr) -> bool {
        self.host.is_some() && crate::plan::host::reference_member(self.prog, member).is_some()
    }

    /// What reference member `member` (see [`Emitter::referred`]) refers
    /// to: the object's memory, or a vector's view.
    pub(super) fn referred_value(&mut self, member: &Expr) -> R<V> {
        let Some((base, field)) = crate::plan::host::reference_member(self.prog, member) else {
            return decline(Decline::Pointer);
        };
        match self.obj_fields(base)?.get(field as usize) {
            Some(v @ (V::Mem(_) | V::View(_))) => Ok(v.clone()),
            _ => decline(Decline::Pointer),
        }
    }
}
