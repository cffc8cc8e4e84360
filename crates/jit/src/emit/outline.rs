//! Functions called out of line (see [`crate::plan::outline`]): each
//! compiled once as `(env, group, scratch, frames, args...) -> (status,
//! result)`, and its calls.
//!
//! Invariant: an outlined function runs as its inlined body would, in the
//! same work-item: its checks fail and its polls stop with the status it
//! returns, and the caller branches on that status to its own failure or
//! stop, so a launch ends the same way either way.

use super::*;

/// The signature of outlined function `func`: the kernel's four words,
/// then its parameters; the status, then its result.
pub(crate) fn outlined_signature(
    sig: &mut cranelift_codegen::ir::Signature,
    prog: &Program,
    func: FuncId,
) -> R<()> {
    kernel_signature(sig);
    let f = prog.function(func);
    for local in f.locals.iter().take(f.params as usize) {
        let Type::Scalar(s) = &local.ty else {
            return decline(Decline::ArgumentType);
        };
        sig.params.push(AbiParam::new(clif_type(*s)));
    }
    match &f.ret {
        Type::Void => {}
        Type::Scalar(s) => sig.returns.push(AbiParam::new(clif_type(*s))),
        _ => return decline(Decline::FunctionReturningType),
    }
    Ok(())
}

impl<'a, 'b, 'f> Emitter<'a, 'b, 'f> {
    /// Emits outlined function `func` into `b` (whose signature is
    /// [`outlined_signature`]'s): its body as an inlined call's, under an
    /// empty outer scope. The bytes of stack slots it uses.
    pub(crate) fn emit_outlined(
        prog: &'a Program,
        func: FuncId,
        b: &'b mut FunctionBuilder<'f>,
        helpers: Helpers,
    ) -> R<u32> {
        let f = prog.function(func);
        let Some(body) = &f.body else {
            return decline(Decline::CallUndefinedFunction);
        };
        declined_on_request(prog, func)?;
        let layout = KernelLayout::without_launch(Vec::new(), 0);
        let mut lw = Self::start(prog, func, b, helpers, layout);
        let Some(entry) = lw.b.current_block() else {
            return decline(Decline::CallUndefinedFunction);
        };
        let params = lw.b.block_params(entry).to_vec();
        let mut slots = HashMap::new();
        for (k, (local, &p)) in f.locals.iter().zip(params.iter().skip(4)).enumerate() {
            let Type::Scalar(s) = &local.ty else {
                return decline(Decline::ArgumentType);
            };
            let var = lw.var(clif_type(*s));
            lw.b.def_var(var, p);
            slots.insert(LocalId(k as u32), Slot::Vars(vec![var]));
        }
        let done = lw.b.create_block();
        let ret_vars: Vec<Variable> = match &f.ret {
            Type::Scalar(s) => {
                let var = lw.var(clif_type(*s));
                let zero = lw.zero(*s);
                lw.b.def_var(var, zero);
                vec![var]
            }
            _ => Vec::new(),
        };
        // The body runs as a call's: a scope of its own above the outer one,
        // its `return`s jumping to `done`.
        lw.alloc.next_scope += 1;
        lw.scopes.push(Scope {
            ret: Some((done, ret_vars.clone(), f.ret.clone())),
            ..Scope::new(lw.alloc.next_scope, func, slots)
        });
        lw.stmts(&body.stmts)?;
        // Running off the end of a function that returns a value fails, as
        // an inlined call does.
        if !matches!(f.ret, Type::Void) && !always_returns(&body.stmts) {
            lw.b.ins().jump(lw.entry.fail, &[]);
        } else {
            lw.b.ins().jump(done, &[]);
        }
        let zero_result = |lw: &mut Self| match &f.ret {
            Type::Scalar(s) => vec![lw.zero(*s)],
            _ => Vec::new(),
        };
        for (block, status) in [
            (lw.entry.fail, STATUS_FAILED),
            (lw.entry.stopped, STATUS_STOPPED),
        ] {
            lw.b.switch_to_block(block);
            let mut out = vec![lw.b.ins().iconst(types::I32, status)];
            out.extend(zero_result(&mut lw));
            lw.b.ins().return_(&out);
        }
        lw.b.switch_to_block(done);
        let mut out = vec![lw.b.ins().iconst(types::I32, STATUS_OK)];
        out.extend(ret_vars.iter().map(|v| lw.b.use_var(*v)));
        lw.b.ins().return_(&out);
        lw.b.seal_all_blocks();
        Ok(lw.alloc.stack_bytes)
    }

    /// A call of outlined function `func` (`callee` in this function):
    /// its result, after branching to the caller's failure or stop on the
    /// status it returned. Not in lanes: each lane would need a call.
    pub(super) fn call_outlined(&mut self, callee: FuncRef, func: FuncId, args: &[Expr]) -> R<V> {
        if self.vector.is_some() || self.jam.is_some() {
            return decline(Decline::OutlinedCallInLanes);
        }
        let f = self.prog.function(func);
        let mut words = vec![
            self.entry.env,
            self.entry.group,
            self.entry.scratch,
            self.entry.frames,
        ];
        for a in args {
            match self.expr(a)? {
                V::S(x) => words.push(x),
                _ => return decline(Decline::ArgumentKind),
            }
        }
        let call = self.b.ins().call(callee, &words);
        let results = self.b.inst_results(call).to_vec();
        let Some(&status) = results.first() else {
            return decline(Decline::FunctionReturningType);
        };
        let bad = self.b.ins().icmp_imm_s(IntCC::NotEqual, status, STATUS_OK);
        let passed_on = self.b.create_block();
        let go = self.b.create_block();
        self.b.set_cold_block(passed_on);
        self.b.ins().brif(bad, passed_on, &[], go, &[]);
        self.b.switch_to_block(passed_on);
        let stopped = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, status, STATUS_STOPPED);
        let (to_stop, to_fail) = (self.entry.stopped, self.entry.fail);
        self.b.ins().brif(stopped, to_stop, &[], to_fail, &[]);
        self.b.switch_to_block(go);
        Ok(match (&f.ret, results.get(1)) {
            (Type::Void, _) => V::Unit,
            (Type::Scalar(_), Some(&v)) => V::S(v),
            _ => return decline(Decline::FunctionReturningType),
        })
    }
}
