//! Calls of user functions, inlined.

use super::*;

impl Emitter<'_, '_, '_> {
    pub(super) fn call(&mut self, func: FuncId, args: &[Expr]) -> R<V> {
        if self.prog.get_function(func).is_some_and(|f| f.ret_by_ref) {
            let p = self.call_place(func, args)?;
            return self.read(&p);
        }
        match self.inline(func, args)? {
            Inlined::Value(v) => Ok(v),
            Inlined::Place(_) => decline(Decline::FunctionReturningReference),
        }
    }

    /// A call of a function returning a reference: the place it returns.
    pub(super) fn call_place(&mut self, func: FuncId, args: &[Expr]) -> R<Place> {
        match self.inline(func, args)? {
            Inlined::Place(p) => Ok(p),
            Inlined::Value(_) => decline(Decline::FunctionReturningReference),
        }
    }

    /// Inlines a call: its value, or the place it returns a reference to.
    fn inline(&mut self, func: FuncId, args: &[Expr]) -> R<Inlined> {
        if self.facts.barriers.contains(func) {
            return decline(Decline::CallOfFunctionWithBarrier);
        }
        if let Some(&callee) = self.entry.helpers.outlined.get(&func) {
            return Ok(Inlined::Value(self.call_outlined(callee, func, args)?));
        }
        let Some(callee) = self.prog.get_function(func) else {
            return decline(Decline::CallUndefinedFunction);
        };
        if callee.body.is_none() {
            return decline(Decline::CallUndefinedFunction);
        }
        // The interpreter hands a launch over only where its call stack
        // could take this many more calls (see `MAX_KERNEL_CALL_CHAIN`).
        if self.scopes.len() > tessera_runtime::launch::MAX_KERNEL_CALL_CHAIN as usize {
            return decline(Decline::CallsNestedTooDeeply);
        }
        let mut slots = HashMap::new();
        let mut param_ranges = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let local = &callee.locals[k];
            let slot = if local.by_ref {
                let slot = self.bind_ref(a, &local.ty)?;
                // A captured struct holding views is read-only here: a
                // function that may change it (a non-`const` member
                // function) runs in the interpreter, which shares the one
                // object between work-items.
                // A closure holding references in host code is memory the
                // run writes back (its members and the objects they refer
                // to): a `mutable` lambda may change it.
                if matches!(slot, Slot::Ref(Place::Obj(_)))
                    && !local.is_const
                    && !(self.host.is_some()
                        && crate::plan::host::holds_references(self.prog, &local.ty))
                {
                    return decline(Decline::CapturedValueAsPlace);
                }
                slot
            } else if matches!(local.ty, Type::Ptr { .. }) {
                self.pointer_arg(a)?
            } else {
                match (&local.ty, self.expr(a)?) {
                    (Type::Scalar(s), V::S(x)) => {
                        // The argument's range is the parameter's while the
                        // callee leaves it alone (a conversion to the
                        // parameter's type keeps it only when it fits).
                        let range = self
                            .range_of(a)
                            .filter(|(lo, hi)| *lo >= s.int_range().0 && *hi <= s.int_range().1);
                        if !s.is_floating() && *s != Scalar::Bool {
                            param_ranges.push((LocalId(k as u32), range));
                        }
                        let var = self.var(clif_type(*s));
                        self.b.def_var(var, x);
                        Slot::Vars(vec![var])
                    }
                    (Type::Index(_) | Type::Extent(_), V::Shape(cs)) => {
                        let vars: Vec<Variable> = cs.iter().map(|_| self.var(types::I32)).collect();
                        for (v, c) in vars.iter().zip(cs) {
                            self.b.def_var(*v, c);
                        }
                        Slot::Vars(vars)
                    }
                    (Type::Index(_), V::Tiled) => {
                        let g = self.global_index();
                        let vars: Vec<Variable> = g.iter().map(|_| self.var(types::I32)).collect();
                        for (v, c) in vars.iter().zip(g) {
                            self.b.def_var(*v, c);
                        }
                        Slot::Vars(vars)
                    }
                    (Type::ArrayView { .. } | Type::Array(..), V::View(v)) => Slot::View(v),
                    (Type::TiledIndex(_), V::Tiled) => Slot::Tiled,
                    // A struct holding views by value: the callee's own copy.
                    (ty @ Type::Struct(_), v @ V::Obj(_)) if places::held_views(self.prog, ty) => {
                        let fields = self.object_copy(ty, &v)?;
                        Slot::Ref(Place::Fields(fields))
                    }
                    (ty @ (Type::Struct(_) | Type::CArray(..)), V::Mem(src)) => {
                        let Some((size, align)) = size_align(&self.prog.structs, ty) else {
                            return decline(Decline::ArgumentType);
                        };
                        let ss = self.aggregate_stack_slot(ty, size, align)?;
                        let dst = self.slot_addr(&Slot::Stack(ss))?;
                        self.check_bool_bytes(src, ty)?;
                        self.copy_tags(dst, src, ty)?;
                        self.copy_bytes(dst, src, size);
                        Slot::Stack(ss)
                    }
                    _ => return decline(Decline::ArgumentKind),
                }
            };
            slots.insert(LocalId(k as u32), slot);
        }
        let done = self.b.create_block();
        let ret_ty = callee.ret.clone();
        let ret_ref = callee.ret_by_ref.then(|| {
            let addr = self.var(self.ptr);
            let null = self.b.ins().iconst(self.ptr, 0);
            self.b.def_var(addr, null);
            let which = self.var(types::I64);
            let memory = self.b.ins().iconst(types::I64, -1);
            self.b.def_var(which, memory);
            RetRef {
                addr,
                which,
                places: Vec::new(),
                vars: Vec::new(),
            }
        });
        let mut ret_mem = None;
        let mut ret_obj = None;
        let ret_vars: Vec<Variable> = match &ret_ty {
            _ if callee.ret_by_ref => Vec::new(),
            Type::Void => Vec::new(),
            // A struct holding views (a constructor's object): field by
            // field, in variables the `return`s set.
            ty if places::held_views(self.prog, ty) => {
                ret_obj = Some(self.new_fields(ty)?);
                Vec::new()
            }
            ty @ (Type::Struct(_) | Type::CArray(..)) => {
                let Some((size, align)) = size_align(&self.prog.structs, ty) else {
                    return decline(Decline::FunctionReturningType);
                };
                let ss = self.aggregate_stack_slot(ty, size, align)?;
                let at = self.slot_addr(&Slot::Stack(ss))?;
                self.zero_mem(at, ty)?;
                ret_mem = Some(ss);
                Vec::new()
            }
            Type::Scalar(s) => vec![self.var(clif_type(*s))],
            Type::Index(r) | Type::Extent(r) => (0..*r).map(|_| self.var(types::I32)).collect(),
            _ => return decline(Decline::FunctionReturningType),
        };
        // A value for the result on every path to `done` (running off the
        // end fails the launch, below).
        for v in &ret_vars {
            let z = match &ret_ty {
                Type::Scalar(s) => self.zero(*s),
                _ => self.b.ins().iconst(types::I32, 0),
            };
            self.b.def_var(*v, z);
        }
        declined_on_request(self.prog, func)?;
        self.alloc.next_scope += 1;
        for (l, range) in param_ranges {
            self.facts
                .declare_param(self.alloc.next_scope, func, l, range);
        }
        self.scopes.push(Scope {
            ret: Some((done, ret_vars.clone(), ret_ty.clone())),
            ret_mem,
            ret_ref,
            ret_obj,
            ..Scope::new(self.alloc.next_scope, func, slots)
        });
        let saved_loops = std::mem::take(&mut self.loops);
        let body = callee
            .body
            .as_ref()
            .map(|b| b.stmts.as_slice())
            .unwrap_or(&[]);
        let r = self.stmts(body);
        self.loops = saved_loops;
        let mut scope = self.scopes.pop();
        r?;
        // Running off the end of a function that returns a value (UB in
        // C++ unless the value goes unused; the interpreter stops there,
        // R0027) fails the launch for the interpreter to report. A
        // function returning a reference is checked after `done`.
        // (A body that always ends in a `return` has no such path: its end
        // joins `done` as before, which keeps the code it had.)
        let falls_off_with_value = !matches!(ret_ty, Type::Void)
            && scope.as_ref().is_some_and(|s| s.ret_ref.is_none())
            && !always_returns(body);
        if falls_off_with_value {
            self.b.ins().jump(self.entry.fail, &[]);
        } else {
            self.b.ins().jump(done, &[]);
        }
        self.b.switch_to_block(done);
        if let Some(fields) = scope.as_mut().and_then(|s| s.ret_obj.take()) {
            return Ok(Inlined::Value(V::Obj(self.read_fields(&fields))));
        }
        if let Some(RetRef {
            addr,
            which,
            places,
            vars,
        }) = scope.and_then(|s| s.ret_ref)
        {
            // Every `return` gave memory (its address in `addr`), or every
            // one the same variables, or each memory or a scalar variable
            // (which one in `which`); a function without one is left to
            // the interpreter. A path that ran off the end without a
            // `return` (UB in C++) left `addr` zero: the launch fails and
            // the interpreter decides what that does.
            let at = self.b.use_var(addr);
            let none = self.b.ins().icmp_imm_u(IntCC::Equal, at, 0);
            self.fail_if(none);
            let scalar_vars = |p: &Place| matches!(p, Place::Var(_) | Place::Component(..));
            let scalar_or_memory = |p: &Place| match p {
                Place::Var(_) | Place::Component(..) => true,
                Place::VarsOrMem(x) => ret_ty == Type::Scalar(x.ty),
                Place::Mem(_, ty) => *ty == ret_ty,
                _ => false,
            };
            return Ok(Inlined::Place(match places.first() {
                Some(Place::Mem(..)) if places.iter().all(|p| matches!(p, Place::Mem(..))) => {
                    Place::Mem(at, ret_ty)
                }
                Some(Place::Var(v))
                    if places.iter().all(|p| matches!(p, Place::Var(w) if w == v)) =>
                {
                    Place::Var(*v)
                }
                Some(Place::Shape(vs))
                    if places
                        .iter()
                        .all(|p| matches!(p, Place::Shape(ws) if ws == vs)) =>
                {
                    Place::Shape(vs.clone())
                }
                Some(_) if places.iter().all(scalar_vars) && matches!(ret_ty, Type::Scalar(_)) => {
                    Place::Component(vars, self.b.use_var(which))
                }
                Some(_) if places.iter().all(scalar_or_memory) => {
                    let Type::Scalar(ty) = ret_ty else {
                        return decline(Decline::FunctionReturningReference);
                    };
                    // A variable picked, the memory read and written is
                    // a spare slot's.
                    let which = self.b.use_var(which);
                    let spare = self.spare_scalar()?;
                    let memory = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, which, 0);
                    let addr = self.b.ins().select(memory, at, spare);
                    Place::VarsOrMem(VarsOrMem {
                        which,
                        vars,
                        addr,
                        ty,
                    })
                }
                _ => return decline(Decline::FunctionReturningReference),
            }));
        }
        if let Some(ss) = ret_mem {
            return Ok(Inlined::Value(V::Mem(self.slot_addr(&Slot::Stack(ss))?)));
        }
        Ok(Inlined::Value(match &ret_ty {
            Type::Void => V::Unit,
            Type::Scalar(_) => V::S(self.b.use_var(ret_vars[0])),
            _ => V::Shape(ret_vars.iter().map(|v| self.b.use_var(*v)).collect()),
        }))
    }

    /// `return e;` in a function returning a reference: `e`'s place, which
    /// must outlive the call (not one of the function's own variables).
    pub(super) fn return_ref(&mut self, e: &Expr) -> R<()> {
        fn root(e: &Expr) -> Option<LocalId> {
            match &e.kind {
                ExprKind::Local(l) => Some(*l),
                ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
                ExprKind::Convert(inner) => root(inner),
                _ => None,
            }
        }
        let func = self.scope().func;
        if let Some(l) = root(e)
            && !self.prog.function(func).local(l).by_ref
        {
            return decline(Decline::FunctionReturningReference);
        }
        if !e.place {
            return decline(Decline::FunctionReturningReference);
        }
        let p = self.place(e)?;
        let scalar = matches!(e.ty, Type::Scalar(_));
        // The address, or (variables) any non-zero word: this path
        // returned.
        let given = match &p {
            Place::Mem(addr, _) => *addr,
            Place::VarsOrMem(x) => x.addr,
            _ => self.b.ins().iconst(self.ptr, 1),
        };
        let Some(ret) = self.scopes.last_mut().and_then(|s| s.ret_ref.as_mut()) else {
            return decline(Decline::ReturnHere);
        };
        // The place's scalar variables, by their positions among all the
        // `return`s' (new ones added), and which of them it picks.
        let (vars, picks): (Vec<Variable>, Option<Value>) = match &p {
            Place::Var(var) if scalar => (vec![*var], None),
            Place::Component(vs, k) if scalar => (vs.clone(), Some(*k)),
            Place::VarsOrMem(x) => (x.vars.clone(), Some(x.which)),
            _ => (Vec::new(), None),
        };
        let positions: Vec<i64> = vars
            .iter()
            .map(|var| match ret.vars.iter().position(|v| v == var) {
                Some(k) => k as i64,
                None => {
                    ret.vars.push(*var);
                    ret.vars.len() as i64 - 1
                }
            })
            .collect();
        ret.places.push(p);
        let (addr, which) = (ret.addr, ret.which);
        self.b.def_var(addr, given);
        let picked = match (picks, positions.as_slice()) {
            (None, [only]) => self.b.ins().iconst(types::I64, *only),
            (Some(k), _) => {
                // -1 (the memory) unless `k` names one of the variables.
                let mut picked = self.b.ins().iconst(types::I64, -1);
                for (j, position) in positions.iter().enumerate() {
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, k, j as i64);
                    let at = self.b.ins().iconst(types::I64, *position);
                    picked = self.b.ins().select(hit, at, picked);
                }
                picked
            }
            _ => self.b.ins().iconst(types::I64, -1),
        };
        self.b.def_var(which, picked);
        Ok(())
    }
}

/// What an inlined call gives.
enum Inlined {
    /// A value (a function returning one, or `void`).
    Value(V),
    /// A place (a function returning a reference).
    Place(Place),
}
