//! Which pointers a kernel may keep in compiled code: those that behave as
//! references, so that no check the interpreter makes of a pointer (null,
//! bounds, lifetime) can fail.
//!
//! A pointer local qualifies when it is a parameter, or a local declared
//! with `&place` or another qualifying pointer as its value, and is never
//! changed; and when it is only dereferenced (`*p`, an atomic's `p`) or
//! passed on to a pointer parameter of the same type. A pointer parameter
//! gets `&place` or a qualifying pointer. Such a pointer holds the address
//! of a whole object that was named when it was made: not null, not past
//! an end. Nothing can outlive what it points to: the object was in scope
//! where the pointer was declared (so declared earlier, in the same block
//! or an enclosing one) or is the caller's, and the pointer is never
//! stored, returned or copied anywhere else. Compiled code binds it as a
//! reference to the place. Anything else with a pointer type (arithmetic,
//! comparisons, casts, `nullptr`, pointers to pointers, pointers in
//! structs, `new`) and the host-only narrow integers leave the kernel to
//! the interpreter.

use crate::decline::Decline;
use std::collections::HashSet;
use tessera_ir::visit::{for_each_child, walk_block};
use tessera_ir::{Expr, ExprKind, FuncId, Init, LocalId, Program, StmtKind, Type};

/// True when a type holds a pointer or a host-only narrow integer.
fn interpreted(prog: &Program, ty: &Type) -> bool {
    ty.contains_pointer(&prog.structs) || ty.contains_narrow_integer(&prog.structs)
}

/// True when `ty` is a pointer compiled code may keep: to an object with
/// no pointers or narrow integers inside.
fn plain_pointer(prog: &Program, ty: &Type) -> bool {
    match ty {
        Type::Ptr { elem, .. } => {
            !interpreted(prog, elem)
                && (elem.scalar().is_some() || matches!(**elem, Type::Struct(_) | Type::CArray(..)))
        }
        _ => false,
    }
}

/// True when a pointer of type `from` becomes one of type `to` by adding
/// `const` to its pointee (or not changing at all).
pub(crate) fn adds_const(from: &Type, to: &Type) -> bool {
    matches!((from, to), (Type::Ptr { elem: a, is_const: c }, Type::Ptr { elem: b, is_const: d })
        if a == b && (*d || !*c))
}

/// Why the pointers of `kernel` (and the functions it calls) cannot be
/// compiled as references, or `None` when they can (or there are none).
pub(crate) fn pointer_decline(prog: &Program, kernel: FuncId) -> Option<Decline> {
    let mut seen = HashSet::new();
    let mut todo = vec![kernel];
    while let Some(f) = todo.pop() {
        if !seen.insert(f) {
            continue;
        }
        let function = prog.get_function(f)?;
        if interpreted(prog, &function.ret) {
            return Some(Decline::Pointer);
        }
        let mut pointers = HashSet::new();
        for (k, l) in function.locals.iter().enumerate() {
            if !interpreted(prog, &l.ty) {
                continue;
            }
            if l.by_ref || !plain_pointer(prog, &l.ty) {
                return Some(Decline::Pointer);
            }
            pointers.insert(LocalId(k as u32));
        }
        let Some(body) = &function.body else {
            continue;
        };
        let mut cx = Walk {
            prog,
            pointers: &pointers,
            calls: Vec::new(),
            bad: false,
        };
        let mut declared = HashSet::new();
        walk_block(
            body,
            &mut |s| {
                if let StmtKind::Let { local, init } = &s.kind
                    && pointers.contains(local)
                {
                    declared.insert(*local);
                    let ty = &function.local(*local).ty;
                    let ok = matches!(init, Some(Init::Expr(e)) if cx.source(e, ty));
                    cx.bad |= !ok;
                    return;
                }
                s.for_each_expr(&mut |e| cx.expr(e));
            },
            &mut |_| {},
        );
        // Every pointer that is not a parameter is declared with its value.
        if pointers
            .iter()
            .any(|l| l.0 >= function.params && !declared.contains(l))
        {
            return Some(Decline::Pointer);
        }
        if cx.bad {
            return Some(Decline::Pointer);
        }
        todo.extend(cx.calls);
    }
    None
}

/// The walk over one function's expressions.
struct Walk<'p, 's> {
    prog: &'p Program,
    /// Its pointer locals.
    pointers: &'s HashSet<LocalId>,
    /// The functions it calls.
    calls: Vec<FuncId>,
    /// A use outside the forms allowed was met.
    bad: bool,
}

impl Walk<'_, '_> {
    /// A value given to a pointer of type `ty`: `&place` or a pointer
    /// local of that very type.
    fn source(&mut self, e: &Expr, ty: &Type) -> bool {
        if e.ty != *ty {
            return false;
        }
        match &e.kind {
            // `const` added to the pointee: the same address.
            ExprKind::Convert(inner) if adds_const(&inner.ty, ty) => {
                let inner_ty = inner.ty.clone();
                self.source(inner, &inner_ty)
            }
            ExprKind::AddrOf(place) => {
                self.place(place);
                true
            }
            ExprKind::Local(l) => self.pointers.contains(l),
            _ => false,
        }
    }

    /// A place whose address is taken or that is dereferenced to.
    fn place(&mut self, e: &Expr) {
        if !e.place {
            self.bad = true;
        }
        self.expr(e);
    }

    /// Any other expression.
    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Deref(inner) => match &inner.kind {
                ExprKind::Local(l) if self.pointers.contains(l) => {}
                _ => self.bad = true,
            },
            ExprKind::Call { func, args } => {
                self.calls.push(*func);
                let Some(callee) = self.prog.get_function(*func) else {
                    self.bad = true;
                    return;
                };
                for (k, a) in args.iter().enumerate() {
                    match callee.locals.get(k) {
                        Some(p) if interpreted(self.prog, &p.ty) => {
                            let ty = p.ty.clone();
                            if !self.source(a, &ty) {
                                self.bad = true;
                            }
                        }
                        _ => self.expr(a),
                    }
                }
                if interpreted(self.prog, &e.ty) {
                    self.bad = true;
                }
            }
            ExprKind::New { .. }
            | ExprKind::Delete { .. }
            | ExprKind::AddrOf(_)
            | ExprKind::FuncAddr(_)
            | ExprKind::CallPtr { .. } => self.bad = true,
            _ => {
                if interpreted(self.prog, &e.ty) {
                    self.bad = true;
                    return;
                }
                for_each_child(e, &mut |c| self.expr(c));
            }
        }
    }
}
