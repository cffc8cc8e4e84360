//! References bound to temporaries, made variables.
//!
//! `const int& r = x + 1;` (or `int&& r = x + 1;`) binds `r` to a
//! temporary that lives as long as `r` and that nothing else names, which
//! is what a variable `const int r = x + 1;` is. So such a reference of a
//! scalar, index or extent type (no destructor, no view, nothing its
//! address could tell apart) becomes that variable here, after the
//! analyses, which reported on the program as written. Both engines then
//! keep it as any variable: the JIT in a frame slot when it lives across
//! a barrier, where it declined a reference it could not bind again.

use tessera_ir::{Expr, ExprKind, Init, Program, StmtKind, Type};

/// Makes every reference local bound to a temporary of a plain value type
/// a variable holding that value.
pub(crate) fn as_variables(program: &mut Program) {
    let by_ref: Vec<bool> = program.functions.iter().map(|f| f.ret_by_ref).collect();
    for f in &mut program.functions {
        let Some(body) = f.body.as_mut() else {
            continue;
        };
        let locals = &mut f.locals;
        tessera_ir::visit::for_each_stmt_mut(body, &mut |s| {
            let StmtKind::Let { local, init } = &mut s.kind else {
                return;
            };
            let Some(Init::Ref(e)) = init else {
                return;
            };
            let Some(l) = locals.get_mut(local.0 as usize) else {
                return;
            };
            let plain = matches!(l.ty, Type::Scalar(_) | Type::Index(_) | Type::Extent(_));
            if !l.by_ref || !temporary(e, &by_ref) || !plain || e.ty != l.ty {
                return;
            }
            l.by_ref = false;
            if let Some(Init::Ref(e)) = init.take() {
                *init = Some(Init::Expr(e));
            }
        });
    }
}

/// Whether `e` makes a new value, as the engines evaluate it (a reference
/// binds to it as to a temporary): a constant, an operator's result, a
/// conversion, a library operation's value (`index<1>(i)`), or a call of
/// a function returning by value. Not a cast to
/// a reference (`static_cast<const int&>(x)` is `x`), nor anything else
/// that may name a place.
fn temporary(e: &Expr, ret_by_ref: &[bool]) -> bool {
    match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Binary { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Logical { .. }
        | ExprKind::Convert(_)
        | ExprKind::Conditional { .. }
        | ExprKind::Intrinsic { .. } => !e.binds_place(),
        ExprKind::Call { func, .. } => {
            !e.binds_place() && ret_by_ref.get(func.index()).is_some_and(|r| !r)
        }
        _ => false,
    }
}
