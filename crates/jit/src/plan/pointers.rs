//! Which pointers a kernel may keep in compiled code, before it is
//! lowered: pointers to objects without pointers or host-only narrow
//! integers inside, held only in locals and parameters (never in an
//! aggregate, behind a reference or another pointer, nor returned), each
//! declared with its value. What is done with them (arithmetic,
//! comparisons, `nullptr`, dereferences) is the emitter's to decide
//! (`emit/pointers.rs`), which follows the interpreter's checked pointers
//! where it can name the allocation and declines the kernel where it
//! cannot. Pointer casts, `new`, `delete`, function pointers and the
//! host-only narrow integers leave the kernel to the interpreter here.

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

/// True when both are scalar types of one size, neither a `bool`: their
/// bytes read as each other bit for bit, whatever they hold.
pub(crate) fn same_size_scalars(a: Option<&Type>, b: Option<&Type>) -> bool {
    match (a.and_then(Type::scalar), b.and_then(Type::scalar)) {
        (Some(x), Some(y)) => {
            x.size() == y.size() && x != tessera_ir::Scalar::Bool && y != tessera_ir::Scalar::Bool
        }
        _ => false,
    }
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
        let Some(function) = prog.get_function(f) else {
            return Some(Decline::Pointer);
        };
        if interpreted(prog, &function.ret) {
            return Some(Decline::PointerUse("a function returning a pointer"));
        }
        let mut pointers = HashSet::new();
        for (k, l) in function.locals.iter().enumerate() {
            if !interpreted(prog, &l.ty) {
                continue;
            }
            if l.ty.contains_narrow_integer(&prog.structs) {
                return Some(Decline::PointerUse(NARROW));
            }
            if l.by_ref || !plain_pointer(prog, &l.ty) {
                return Some(Decline::PointerUse(
                    "a reference to a pointer, a pointer to a pointer or a pointer in an aggregate",
                ));
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
            why: None,
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
                    match init {
                        _ if ok => {}
                        Some(Init::Expr(e)) => cx.fail(misuse(e)),
                        _ => cx.fail("a pointer declared without an address as its value"),
                    }
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
            return Some(Decline::PointerUse(
                "a pointer declared without an address as its value",
            ));
        }
        if let Some(why) = cx.why {
            return Some(Decline::PointerUse(why));
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
    /// The first use outside the forms allowed.
    why: Option<&'static str>,
}

/// The reason for the host-only integer types.
const NARROW: &str = "a host-only integer type (`short`, `unsigned short`, `unsigned char`)";

/// What an expression of pointer type (or a pointer operation) met where
/// no pointer may be is, for the reason given.
fn misuse(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::PtrAdd { .. } | ExprKind::PtrDiff { .. } => "pointer arithmetic",
        ExprKind::Convert(_)
        | ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::PtrReinterpret,
            ..
        } => "a pointer cast",
        ExprKind::Null => "a null pointer",
        ExprKind::Binary { .. } => "a pointer comparison",
        ExprKind::AddrOf(_) => "an address used other than as a pointer's value",
        ExprKind::Local(_) | ExprKind::Assign { .. } | ExprKind::IncDec { .. } => {
            "a pointer used as a value (changed, compared or copied)"
        }
        ExprKind::Deref(_) => "a dereference of a computed pointer",
        ExprKind::New { .. } | ExprKind::Delete { .. } => "`new` or `delete`",
        ExprKind::FuncAddr(_) | ExprKind::CallPtr { .. } => "a function pointer",
        _ => "a pointer value",
    }
}

impl Walk<'_, '_> {
    /// Records why the pointers are refused (the first reason met).
    fn fail(&mut self, why: &'static str) {
        self.why.get_or_insert(why);
    }

    /// A value given to a pointer of type `ty` (a local's initialiser).
    fn source(&mut self, e: &Expr, ty: &Type) -> bool {
        if e.ty != *ty {
            return false;
        }
        self.expr(e);
        true
    }

    /// Every expression: pointers only of the plain types, no cast
    /// between pointer types other than adding `const`, no allocation.
    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Call { func, .. } => {
                self.calls.push(*func);
                if self.prog.get_function(*func).is_none() {
                    self.fail("a call of an unknown function");
                    return;
                }
            }
            // A pointer cast between scalars of one size, neither a `bool`:
            // the same bytes, read bit for bit (the emitter binds the
            // result to the element it points to).
            ExprKind::Intrinsic {
                op: tessera_ir::Intrinsic::PtrReinterpret,
                args,
            } if args
                .first()
                .is_some_and(|a| same_size_scalars(a.ty.pointee(), e.ty.pointee())) => {}
            ExprKind::New { .. }
            | ExprKind::Delete { .. }
            | ExprKind::FuncAddr(_)
            | ExprKind::CallPtr { .. }
            | ExprKind::Intrinsic {
                op: tessera_ir::Intrinsic::PtrReinterpret,
                ..
            } => {
                self.fail(misuse(e));
                return;
            }
            // A conversion to a pointer: from `nullptr`, an array decaying,
            // or `const` added; any other is a cast.
            ExprKind::Convert(inner)
                if matches!(e.ty, Type::Ptr { .. })
                    && !matches!(inner.ty, Type::Null | Type::CArray(..))
                    && !adds_const(&inner.ty, &e.ty) =>
            {
                self.fail(misuse(e));
                return;
            }
            _ => {}
        }
        if e.ty.contains_narrow_integer(&self.prog.structs) {
            self.fail(NARROW);
            return;
        }
        if interpreted(self.prog, &e.ty)
            && !matches!(e.ty, Type::Null)
            && !plain_pointer(self.prog, &e.ty)
        {
            self.fail(misuse(e));
            return;
        }
        let _ = self.pointers;
        for_each_child(e, &mut |c| self.expr(c));
    }
}

/// Whether `e` names the same place wherever a region of the kernel
/// evaluates it again: any variable of the kernel but a reference, a
/// capture, a field of such a place, an element of one at a constant (or
/// `offset`) index, an element of a captured view at constant indices or
/// parts of the tiled index. (A variable declared at the level of the
/// barriers whose address is taken or that a reference names lives in
/// `tile_static` memory or in the work-item's frame, or is a uniform loop
/// counter: never computed again.)
pub(crate) fn recomputable_place(
    func: &tessera_ir::Function,
    e: &Expr,
    offset: &dyn Fn(&Expr) -> bool,
) -> bool {
    let constant = |e: &Expr| constant(e) || offset(e);
    match &e.kind {
        ExprKind::Local(l) => func.get_local(*l).is_some_and(|l| !l.by_ref),
        ExprKind::Capture(_) => true,
        ExprKind::Field { base, .. } => recomputable_place(func, base, offset),
        ExprKind::Element { base, index } => {
            recomputable_place(func, base, offset) && constant(index)
        }
        ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::ViewElement,
            args,
        } => match args.split_first() {
            Some((view, rest)) => {
                matches!(view.kind, ExprKind::Capture(_))
                    && rest.iter().all(|a| constant(a) || tiled_index(a))
            }
            None => false,
        },
        _ => false,
    }
}

/// A part of the kernel's tiled index, which nothing changes.
fn tiled_index(e: &Expr) -> bool {
    matches!(
        &e.kind,
        ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::TiledIndexPart(
                tessera_ir::TiledIndexPart::Global
                    | tessera_ir::TiledIndexPart::Local
                    | tessera_ir::TiledIndexPart::Tile
                    | tessera_ir::TiledIndexPart::TileOrigin
            ),
            ..
        }
    )
}

/// A constant, or an index of constants.
fn constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Convert(inner) => constant(inner),
        ExprKind::Intrinsic { args, .. } => {
            matches!(e.ty, Type::Index(_)) && args.iter().all(constant)
        }
        _ => false,
    }
}

/// True when pointer local `init` names the same place wherever it is
/// computed again, with no check that could fail there unless it failed
/// where the pointer was declared: `&place` or an array decaying, the
/// place a `tile_static` variable of `func`, a captured object or an
/// element of a captured view, reached through fields and indices that
/// are constants (or values `offset` says can be computed again with the
/// same value); or such a pointer plus such an offset, with `const` added,
/// reinterpreted, or a pointer local `offset` says is computed again.
/// Such a pointer declared at the level of a kernel's barriers needs no
/// frame slot: each region binds it again (see `Facts::plan_frame`).
pub(crate) fn recomputable_pointer(
    func: &tessera_ir::Function,
    init: &Expr,
    offset: &dyn Fn(&Expr) -> bool,
) -> bool {
    let place = |func: &tessera_ir::Function, e: &Expr| recomputable_place(func, e, offset);
    match &init.kind {
        ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::PtrReinterpret,
            args,
        } => args
            .first()
            .is_some_and(|a| recomputable_pointer(func, a, offset)),
        // Another pointer computed again (`offset` knows those).
        ExprKind::Local(_) => offset(init),
        ExprKind::AddrOf(p) => place(func, p),
        ExprKind::Convert(inner) if matches!(inner.ty, Type::CArray(..)) => place(func, inner),
        ExprKind::Convert(inner) if adds_const(&inner.ty, &init.ty) => {
            recomputable_pointer(func, inner, offset)
        }
        ExprKind::PtrAdd { ptr, offset: n } => recomputable_pointer(func, ptr, offset) && offset(n),
        _ => false,
    }
}
