//! Appending to a vector in host code (`v.push_back(x);`): the element
//! goes to the runtime (`exec::push_element`), which grows the vector's
//! buffer and writes its new address and length to the vector's argument
//! words; the code reads them from there into the vector's variables.
//! [`crate::plan::growth`] decides which appends compile.

use super::*;

impl Emitter<'_, '_, '_> {
    /// The view of a vector a host statement appends to, as it is now.
    pub(super) fn growing_view(&mut self, g: &Growing) -> ViewV {
        let base = self.b.use_var(g.base);
        let len = self.b.use_var(g.len);
        let offset = self.b.ins().iconst(types::I64, 0);
        let stride = self.b.ins().iconst(types::I64, 1);
        ViewV {
            base,
            offset,
            ext: vec![len],
            strides: vec![stride],
            elem: g.elem.clone(),
            elem_size: g.elem_size,
        }
    }

    /// `vector.push_back(value)`, in the statement's own code, on a vector
    /// from outside it that [`crate::plan::growth`] let it append to.
    pub(super) fn push_element(&mut self, args: &[Expr]) -> R<V> {
        let refuse = || decline(Decline::LibraryOperation("VectorPush".into()));
        let ([target, value], Some(push)) = (args, self.entry.helpers.push) else {
            return refuse();
        };
        let ExprKind::Local(l) = &target.kind else {
            return refuse();
        };
        // Only the statement's own code appends (not an inlined call).
        if self.scopes.len() != 1 {
            return refuse();
        }
        let Some(Slot::Growing(g)) = self.scope().slots.get(l).cloned() else {
            return refuse();
        };
        if value.ty != g.elem || self.has_tags(&g.elem) {
            return refuse();
        }
        // The value first: it may read the vector.
        let v = self.expr(value)?;
        let len = self.b.use_var(g.len);
        let room = self.b.use_var(g.room);
        let in_place = self.b.create_block();
        let grow = self.b.create_block();
        let done = self.b.create_block();
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, len, room);
        // Growing doubles the room, so it is rare: out of line.
        self.b.set_cold_block(grow);
        self.b.ins().brif(fits, in_place, &[], grow, &[]);
        // Room left: the element goes after the last.
        self.b.switch_to_block(in_place);
        self.b.seal_block(in_place);
        let base = self.b.use_var(g.base);
        let bytes = self.b.ins().imul_imm_s(len, i64::from(g.elem_size));
        let at = self.b.ins().iadd(base, bytes);
        if g.elem.scalar().is_none() {
            self.zero_mem(at, &g.elem)?;
        }
        self.store_value(at, &g.elem, &v)?;
        let longer = self.b.ins().iadd_imm_s(len, 1);
        self.b.def_var(g.len, longer);
        self.b.ins().jump(done, &[]);
        // None: the runtime makes room and appends the element, from
        // memory of its own.
        self.b.switch_to_block(grow);
        self.b.seal_block(grow);
        let ss = self.stack_slot(g.elem_size.max(1), 16)?;
        let slot = self.b.ins().stack_addr(self.ptr, ss, 0);
        if g.elem.scalar().is_none() {
            self.zero_mem(slot, &g.elem)?;
        }
        self.store_value(slot, &g.elem, &v)?;
        let arg = self.b.ins().iconst(types::I32, i64::from(g.arg));
        let call = self.b.ins().call(push, &[self.entry.env, arg, slot, len]);
        let new_room = self.b.inst_results(call)[0];
        let ok = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThan, new_room, 0);
        self.guard(ok);
        // Where the elements are now (the helper wrote the word: not
        // read-only memory).
        let moved = self
            .b
            .ins()
            .load(types::I64, flags(), self.entry.env, (g.word * 8) as i32);
        self.b.def_var(g.base, moved);
        let longer = self.b.ins().iadd_imm_s(len, 1);
        self.b.def_var(g.len, longer);
        self.b.def_var(g.room, new_room);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        Ok(V::Unit)
    }
}
