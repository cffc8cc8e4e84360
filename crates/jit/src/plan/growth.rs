//! Vectors a compiled host statement appends to (`push_back`).
//!
//! An append may move a vector's elements to new memory, so compiled code
//! reads such a vector's address and length again after each one (see
//! `Emitter::push_element`). What could still hold an address taken
//! before an append is refused here, so that no address outlives the
//! memory it points into:
//!
//! - the append is a statement of its own (`v.push_back(x);`) in the
//!   statement's own code, not in a function it calls, on a vector local
//!   declared outside the statement (the one name the hand-off gives it:
//!   `exec::run_host` checks that no other argument shares its buffer);
//! - the vector is otherwise named only to read its size or an element,
//!   or to write an element (`v[i]`, `v.at(i)`, `v.size()`): not as a
//!   whole (a call's argument, a copy, a lambda's capture), not for an
//!   iterator or its data pointer, and no pointer or reference is made to
//!   an element of it (`&v[i]`, `int& r = v[i]`).
//!
//! Within one statement nothing appends but the append itself, whose
//! value is computed before the vector is read for it; so every address
//! the code computes is used before the next append.

use crate::decline::{Decline, R, decline};
use std::collections::BTreeSet;
use tessera_ir::visit::{Node, any_subexpr, for_each_child, for_each_init_expr, for_each_node};
use tessera_ir::{Expr, ExprKind, Init, Intrinsic, LocalId, Stmt, StmtKind, Type};

/// The vector locals host statement `stmt` appends to, among `outside`
/// (the locals it names but does not declare; `local` gives a local's type
/// and whether it is a reference); an error when an append, or a use of a
/// vector appended to, is one compiled code does not run.
pub(crate) fn appended_vectors<'t>(
    stmt: &Stmt,
    outside: &BTreeSet<LocalId>,
    local: &dyn Fn(LocalId) -> Option<(&'t Type, bool)>,
) -> R<BTreeSet<LocalId>> {
    let refused = || decline(Decline::LibraryOperation("VectorPush".into()));
    // The appends, each a statement of its own on a vector from outside.
    let mut appended = BTreeSet::new();
    let mut statements = BTreeSet::new();
    let mut bad = false;
    for_each_node(stmt, &mut |n| {
        if let Node::Stmt(s) = n
            && let StmtKind::Expr(e) = &s.kind
            && let Some(l) = append_target(e)
        {
            let vector = matches!(local(l), Some((Type::Vector(_), _)));
            if outside.contains(&l) && vector {
                appended.insert(l);
                statements.insert(e as *const Expr);
            } else {
                bad = true;
            }
        }
    });
    if bad {
        return refused();
    }
    if appended.is_empty() {
        return Ok(appended);
    }
    // Every other use of them.
    let mut ok = true;
    for_each_node(stmt, &mut |n| match n {
        Node::Stmt(s) => {
            // A reference or pointer declared from one of them.
            if let StmtKind::Let {
                local: l,
                init: Some(init),
            } = &s.kind
            {
                let holds_address = matches!(init, Init::Ref(_))
                    || matches!(local(*l), Some((Type::Ptr { .. }, _)) | Some((_, true)));
                if holds_address && init_names(init, &appended) {
                    ok = false;
                }
            }
        }
        Node::Expr(e) => {
            let e = match append_target(e) {
                // The appended value.
                Some(_) if statements.contains(&(e as *const Expr)) => match &e.kind {
                    ExprKind::Intrinsic { args, .. } => match args.get(1) {
                        Some(value) => value,
                        None => return,
                    },
                    _ => return,
                },
                _ => e,
            };
            if !reads_elements_only(e, &appended) {
                ok = false;
            }
        }
    });
    if ok { Ok(appended) } else { refused() }
}

/// The local `e` appends to, when it is `local.push_back(value)`.
fn append_target(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::VectorPush,
            args,
        } => match args.first().map(|a| &a.kind) {
            Some(ExprKind::Local(l)) => Some(*l),
            // Not a local: refused by the caller's check of every use.
            _ => None,
        },
        _ => None,
    }
}

/// True when `e` names the vectors of `appended` only for their size or
/// an element's value or place, takes no address of an element, and
/// appends to nothing.
fn reads_elements_only(e: &Expr, appended: &BTreeSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Local(l) => !appended.contains(l),
        ExprKind::Intrinsic {
            op: Intrinsic::VectorPush,
            ..
        } => false,
        ExprKind::Intrinsic {
            op: Intrinsic::VectorElement | Intrinsic::VectorAt | Intrinsic::VectorSize,
            args,
        } if matches!(args.first().map(|a| &a.kind), Some(ExprKind::Local(l)) if appended.contains(l)) => {
            args[1..].iter().all(|a| reads_elements_only(a, appended))
        }
        ExprKind::AddrOf(inner) if names(inner, appended) => false,
        _ => {
            let mut ok = true;
            for_each_child(e, &mut |c| ok &= reads_elements_only(c, appended));
            ok
        }
    }
}

/// True when `e` names one of `locals`.
fn names(e: &Expr, locals: &BTreeSet<LocalId>) -> bool {
    any_subexpr(
        e,
        &mut |x| matches!(&x.kind, ExprKind::Local(l) if locals.contains(l)),
    )
}

/// True when an expression of `init` names one of `locals`.
fn init_names(init: &Init, locals: &BTreeSet<LocalId>) -> bool {
    let mut found = false;
    for_each_init_expr(init, &mut |e| found |= names(e, locals));
    found
}
