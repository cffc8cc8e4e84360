//! Calls of user functions, inlined.

use super::*;

impl Emitter<'_, '_, '_> {
    pub(super) fn call(&mut self, func: FuncId, args: &[Expr]) -> R<V> {
        if self.facts.barriers.contains(func) {
            return decline(Decline::CallOfFunctionWithBarrier);
        }
        let Some(callee) = self.prog.get_function(func) else {
            return decline(Decline::CallUndefinedFunction);
        };
        if callee.body.is_none() {
            return decline(Decline::CallUndefinedFunction);
        }
        if self.scopes.len() > 64 {
            return decline(Decline::CallsNestedTooDeeply);
        }
        let mut slots = HashMap::new();
        for (k, a) in args.iter().enumerate() {
            let local = &callee.locals[k];
            let slot = if local.by_ref {
                self.bind_ref(a, &local.ty)?
            } else if matches!(local.ty, Type::Ptr { .. }) {
                self.pointer_arg(a)?
            } else {
                match (&local.ty, self.expr(a)?) {
                    (Type::Scalar(s), V::S(x)) => {
                        let var = self.b.declare_var(clif_type(*s));
                        self.b.def_var(var, x);
                        Slot::Vars(vec![var])
                    }
                    (Type::Index(_) | Type::Extent(_), V::Shape(cs)) => {
                        let vars: Vec<Variable> =
                            cs.iter().map(|_| self.b.declare_var(types::I32)).collect();
                        for (v, c) in vars.iter().zip(cs) {
                            self.b.def_var(*v, c);
                        }
                        Slot::Vars(vars)
                    }
                    (Type::Index(_), V::Tiled) => {
                        let g = self.global_index();
                        let vars: Vec<Variable> =
                            g.iter().map(|_| self.b.declare_var(types::I32)).collect();
                        for (v, c) in vars.iter().zip(g) {
                            self.b.def_var(*v, c);
                        }
                        Slot::Vars(vars)
                    }
                    (Type::ArrayView { .. } | Type::Array(..), V::View(v)) => Slot::View(v),
                    (Type::TiledIndex(_), V::Tiled) => Slot::Tiled,
                    (ty @ (Type::Struct(_) | Type::CArray(..)), V::Mem(src)) => {
                        let Some((size, align)) = size_align(&self.prog.structs, ty) else {
                            return decline(Decline::ArgumentType);
                        };
                        let ss = self.aggregate_stack_slot(ty, size, align)?;
                        let dst = self.slot_addr(&Slot::Stack(ss))?;
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
        if callee.ret_by_ref {
            return decline(Decline::FunctionReturningReference);
        }
        let mut ret_mem = None;
        let ret_vars: Vec<Variable> = match &ret_ty {
            Type::Void => Vec::new(),
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
            Type::Scalar(s) => vec![self.b.declare_var(clif_type(*s))],
            Type::Index(r) | Type::Extent(r) => {
                (0..*r).map(|_| self.b.declare_var(types::I32)).collect()
            }
            _ => return decline(Decline::FunctionReturningType),
        };
        // A value for the result on every path (a missing `return` is UB in
        // C++; the checker rejects most).
        for v in &ret_vars {
            let z = match &ret_ty {
                Type::Scalar(s) => self.zero(*s),
                _ => self.b.ins().iconst(types::I32, 0),
            };
            self.b.def_var(*v, z);
        }
        self.alloc.next_scope += 1;
        self.scopes.push(Scope {
            id: self.alloc.next_scope,
            func,
            slots,
            ret: Some((done, ret_vars.clone(), ret_ty.clone())),
            ret_mem,
            frame: HashMap::new(),
        });
        let saved_loops = std::mem::take(&mut self.loops);
        let body = callee
            .body
            .as_ref()
            .map(|b| b.stmts.as_slice())
            .unwrap_or(&[]);
        let r = self.stmts(body);
        self.loops = saved_loops;
        self.scopes.pop();
        r?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        if let Some(ss) = ret_mem {
            return Ok(V::Mem(self.slot_addr(&Slot::Stack(ss))?));
        }
        Ok(match &ret_ty {
            Type::Void => V::Unit,
            Type::Scalar(_) => V::S(self.b.use_var(ret_vars[0])),
            _ => V::Shape(ret_vars.iter().map(|v| self.b.use_var(*v)).collect()),
        })
    }
}
