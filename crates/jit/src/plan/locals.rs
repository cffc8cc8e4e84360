//! Which locals a block reads, writes or writes through elements, and the
//! shape of its control flow (returns, exits from loops).

use std::collections::{BTreeSet, HashSet};
use tessera_ir::visit::{for_each_subexpr, walk_block, walk_stmt};
use tessera_ir::{
    Block as IrBlock, Expr, ExprKind, GlobalId, Init, Intrinsic, LocalId, Program, Stmt, StmtKind,
    Type,
};

/// Locals (vectors, views) whose elements a statement may write: targets
/// of assignments, `++`/`--` and atomics through `v[i]`, `av[idx]`, `av(i)`.
pub(crate) fn element_writes(prog: &Program, stmt: &Stmt) -> HashSet<LocalId> {
    fn root(e: &Expr) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(l) => Some(*l),
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
            ExprKind::Intrinsic {
                op:
                    Intrinsic::VectorElement
                    | Intrinsic::VectorAt
                    | Intrinsic::ViewElement
                    | Intrinsic::ViewProject
                    | Intrinsic::ViewSection
                    | Intrinsic::ViewAs
                    | Intrinsic::ReinterpretAs,
                args,
            } => args.first().and_then(root),
            ExprKind::Convert(inner) | ExprKind::Deref(inner) => root(inner),
            ExprKind::PtrAdd { ptr, .. } => root(ptr),
            _ => None,
        }
    }
    let mut found = HashSet::new();
    // A reference bound to an element may write it later.
    found.extend(referenced_locals(
        prog,
        &IrBlock {
            stmts: vec![stmt.clone()],
        },
    ));
    let found = std::cell::RefCell::new(found);
    walk_stmt(
        stmt,
        &mut |s| {
            // A reference bound to an element of a vector or view.
            if let StmtKind::Let {
                init: Some(Init::Ref(target)),
                ..
            } = &s.kind
                && let Some(l) = root(target)
            {
                found.borrow_mut().insert(l);
            }
        },
        &mut |e| {
            // An element passed by reference.
            if let ExprKind::Call { func, args } = &e.kind {
                let callee = prog.function(*func);
                for (k, a) in args.iter().enumerate() {
                    if callee.locals.get(k).is_some_and(|l| l.by_ref)
                        && let Some(l) = root(a)
                    {
                        found.borrow_mut().insert(l);
                    }
                }
            }
        },
    );
    walk_stmt(stmt, &mut |_| {}, &mut |e| {
        let targets: Vec<&Expr> = match &e.kind {
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => vec![target],
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                args,
            } => args.iter().take(2).collect(),
            // A pointer to a vector's elements that may write them (an
            // iterator a host statement declares; the writes go through
            // the iterator, whose root is not the vector).
            ExprKind::Intrinsic {
                op: Intrinsic::VectorData,
                args,
            } if matches!(
                e.ty,
                tessera_ir::Type::Ptr {
                    is_const: false,
                    ..
                }
            ) =>
            {
                args.iter().take(1).collect()
            }
            _ => Vec::new(),
        };
        for t in targets {
            if let Some(l) = root(t) {
                found.borrow_mut().insert(l);
            }
        }
    });
    found.into_inner()
}

/// The globals a host statement of `func` may change (see
/// [`changed_roots`]); `None` when it calls a function, which may write
/// globals it is not handed, or uses an atomic (whose place
/// `changed_roots` does not look for).
pub(crate) fn changed_globals(
    prog: &Program,
    func: &tessera_ir::Function,
    stmt: &Stmt,
) -> Option<HashSet<GlobalId>> {
    fn root(e: &Expr) -> Option<GlobalId> {
        match &e.kind {
            ExprKind::Global(g) => Some(*g),
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
            ExprKind::Convert(inner) => root(inner),
            _ => None,
        }
    }
    let opaque = std::cell::Cell::new(false);
    walk_stmt(stmt, &mut |_| {}, &mut |e| {
        if matches!(
            e.kind,
            ExprKind::Call { .. }
                | ExprKind::VirtualCall { .. }
                | ExprKind::CallPtr { .. }
                | ExprKind::Intrinsic {
                    op: Intrinsic::Atomic(_),
                    ..
                }
        ) {
            opaque.set(true);
        }
    });
    if opaque.get() {
        return None;
    }
    let block = IrBlock {
        stmts: vec![stmt.clone()],
    };
    Some(changed_roots_in(prog, func, &block, root))
}

/// The local a place passed by reference, bound to a reference or written
/// names: `x`, `x.f`, `x[i]`, or the index or extent `x` of `x[k]`.
pub(crate) fn named_root(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Local(l) => Some(*l),
        ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => named_root(base),
        ExprKind::Intrinsic {
            op: Intrinsic::ShapeComponent,
            args,
        } => args.first().and_then(named_root),
        _ => None,
    }
}

/// The scalar locals of `func` whose address its body takes (`&x`, also
/// as `&x` passed on): compiled kernels keep them in memory.
pub(crate) fn address_taken(prog: &Program, func: &tessera_ir::Function) -> HashSet<LocalId> {
    let _ = prog;
    let found = std::cell::RefCell::new(HashSet::new());
    if let Some(body) = &func.body {
        walk_block(body, &mut |_| {}, &mut |e| {
            if let ExprKind::AddrOf(target) = &e.kind
                && let ExprKind::Local(l) = &target.kind
                && func
                    .get_local(*l)
                    .is_some_and(|local| !local.by_ref && local.ty.scalar().is_some())
            {
                found.borrow_mut().insert(*l);
            }
        });
    }
    found.into_inner()
}

/// The pointer locals of `func` given, after their declaration, a value
/// that is not the same pointer moved (`p = q;`, `p = a;`, `p = c ? a :
/// b;`, but not `p = p + 1;`): they may point into more than one object
/// in a run (see `Emitter::let_pointer`).
pub(crate) fn reassigned_pointers(func: &tessera_ir::Function) -> HashSet<LocalId> {
    fn moves(e: &Expr, l: LocalId) -> bool {
        match &e.kind {
            ExprKind::Local(x) => *x == l,
            ExprKind::Convert(inner) => moves(inner, l),
            ExprKind::PtrAdd { ptr, .. } => moves(ptr, l),
            _ => false,
        }
    }
    let found = std::cell::RefCell::new(HashSet::new());
    if let Some(body) = &func.body {
        walk_block(body, &mut |_| {}, &mut |e| {
            if let ExprKind::Assign { target, value } = &e.kind
                && let ExprKind::Local(l) = &target.kind
                && matches!(target.ty, Type::Ptr { .. })
                && !moves(value, *l)
            {
                found.borrow_mut().insert(*l);
            }
        });
    }
    found.into_inner()
}

/// Locals bound to a reference, passed by reference, used by an atomic or
/// whose address is taken.
pub(crate) fn referenced_locals(prog: &Program, body: &IrBlock) -> HashSet<LocalId> {
    let found = std::cell::RefCell::new(HashSet::new());
    walk_block(
        body,
        &mut |s| {
            if let StmtKind::Let {
                init: Some(Init::Ref(target)),
                ..
            } = &s.kind
                && let Some(l) = named_root(target)
            {
                found.borrow_mut().insert(l);
            }
        },
        &mut |e| match &e.kind {
            // A pointer to it may write it (a compiled pointer is bound as
            // a reference is).
            ExprKind::AddrOf(target) => {
                if let Some(l) = named_root(target) {
                    found.borrow_mut().insert(l);
                }
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                args,
            } => {
                for a in args.iter().take(2) {
                    if let Some(l) = named_root(a) {
                        found.borrow_mut().insert(l);
                    }
                }
            }
            ExprKind::Call { func, args } => {
                let callee = prog.function(*func);
                for (k, a) in args.iter().enumerate() {
                    if callee.locals.get(k).is_some_and(|l| l.by_ref)
                        && let Some(l) = named_root(a)
                    {
                        found.borrow_mut().insert(l);
                    }
                }
            }
            _ => {}
        },
    );
    found.into_inner()
}

/// Locals a block writes: targets of assignments and `++`/`--`, and the
/// [`referenced_locals`] (atomics write theirs, and a reference may write
/// its local later).
pub(crate) fn mutated_locals(prog: &Program, body: &IrBlock, out: &mut HashSet<LocalId>) {
    out.extend(referenced_locals(prog, body));
    walk_block(body, &mut |_| {}, &mut |e| {
        if let ExprKind::Assign { target, .. }
        | ExprKind::CompoundAssign { target, .. }
        | ExprKind::IncDec { target, .. } = &e.kind
            && let Some(l) = named_root(target)
        {
            out.insert(l);
        }
    });
}

/// The locals whose memory a run of statements reads without anything
/// in it writing there: those it names but never writes, nor passes by
/// reference, nor takes the address of (see [`mutated_locals`]). Nothing
/// when the run uses pointers, or views the kernel made (see
/// [`made_view`]), which may write any local's memory without naming it.
pub(crate) fn unwritten_locals(prog: &Program, stmts: &[Stmt]) -> HashSet<LocalId> {
    let block = IrBlock {
        stmts: stmts.to_vec(),
    };
    let pointers = std::cell::Cell::new(false);
    walk_block(&block, &mut |_| {}, &mut |e| {
        if matches!(e.ty, tessera_ir::Type::Ptr { .. })
            || matches!(e.kind, ExprKind::Deref(_) | ExprKind::AddrOf(_))
            || made_view(e)
        {
            pointers.set(true);
        }
    });
    if pointers.get() {
        return HashSet::new();
    }
    let mut written = HashSet::new();
    mutated_locals(prog, &block, &mut written);
    let mut named = BTreeSet::new();
    for s in stmts {
        stmt_locals(s, &mut named);
    }
    named.into_iter().filter(|l| !written.contains(l)).collect()
}

/// True when `e` is a view not reached from a capture: one the kernel
/// made, perhaps over one of its own arrays, which writes through it
/// change without naming them (a view parameter of an inlined function
/// counts too).
fn made_view(e: &Expr) -> bool {
    fn from_capture(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Capture(_) => true,
            ExprKind::Field { base, .. } => from_capture(base),
            ExprKind::Convert(inner) => from_capture(inner),
            ExprKind::Intrinsic {
                op: Intrinsic::ViewProject | Intrinsic::ViewSection | Intrinsic::ViewAs,
                args,
            } => args.first().is_some_and(from_capture),
            _ => false,
        }
    }
    matches!(e.ty, tessera_ir::Type::ArrayView { .. }) && !from_capture(e)
}

/// True when running `stmts` to their end always ends in a `return`: the
/// last statement is one, or a block, or an `if` with an `else`, whose
/// statements always do.
pub(crate) fn always_returns(stmts: &[Stmt]) -> bool {
    match stmts.last().map(|s| &s.kind) {
        Some(StmtKind::Return(_)) => true,
        Some(StmtKind::Block(b)) => always_returns(&b.stmts),
        Some(StmtKind::If {
            then,
            els: Some(els),
            ..
        }) => always_returns(&then.stmts) && always_returns(&els.stmts),
        _ => false,
    }
}

/// True when the block holds a `return`.
pub(crate) fn block_has_return(b: &IrBlock) -> bool {
    b.stmts.iter().any(stmt_has_return)
}

/// True when the statement is or holds a `return`.
pub(crate) fn stmt_has_return(s: &Stmt) -> bool {
    let found = std::cell::Cell::new(false);
    walk_stmt(
        s,
        &mut |s| {
            if matches!(s.kind, StmtKind::Return(_)) {
                found.set(true);
            }
        },
        &mut |_| {},
    );
    found.get()
}

/// True when the statement holds a `break` or `continue` that leaves it for
/// an enclosing loop (one inside a nested loop, or a `break` inside a nested
/// `switch`, stays inside).
pub(crate) fn escapes_loop(s: &Stmt) -> bool {
    fn stmt(s: &Stmt, in_loop: bool, in_switch: bool) -> bool {
        match &s.kind {
            StmtKind::Break => !in_loop && !in_switch,
            StmtKind::Continue => !in_loop,
            StmtKind::Block(b) => b.stmts.iter().any(|s| stmt(s, in_loop, in_switch)),
            StmtKind::If { then, els, .. } => {
                then.stmts.iter().any(|s| stmt(s, in_loop, in_switch))
                    || els
                        .as_ref()
                        .is_some_and(|e| e.stmts.iter().any(|s| stmt(s, in_loop, in_switch)))
            }
            StmtKind::Loop { .. } => false,
            StmtKind::Switch { arms, .. } => arms
                .iter()
                .any(|a| a.body.stmts.iter().any(|s| stmt(s, in_loop, true))),
            _ => false,
        }
    }
    stmt(s, false, false)
}

/// Every local a statement names (reads, writes or declares).
pub(crate) fn stmt_locals(s: &Stmt, out: &mut BTreeSet<LocalId>) {
    // Only the kernel's own locals have frame slots; a callee's locals are
    // named inside its inlined body, which this walk does not enter.
    let found = std::cell::RefCell::new(std::mem::take(out));
    walk_stmt(
        s,
        &mut |s| {
            if let StmtKind::Let { local, .. } = &s.kind {
                found.borrow_mut().insert(*local);
            }
        },
        &mut |e| {
            if let ExprKind::Local(l) = &e.kind {
                found.borrow_mut().insert(*l);
            }
        },
    );
    *out = found.into_inner();
}

pub(crate) fn expr_locals(e: &Expr, out: &mut BTreeSet<LocalId>) {
    for_each_subexpr(e, &mut |e| {
        if let ExprKind::Local(l) = &e.kind {
            out.insert(*l);
        }
    });
}

/// Captures a kernel's own body may change (see [`changed_roots`]).
pub(crate) fn changed_captures(prog: &Program, kernel: &tessera_ir::Function) -> HashSet<u32> {
    fn root(e: &Expr) -> Option<u32> {
        match &e.kind {
            ExprKind::Capture(c) => Some(*c),
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
            ExprKind::Convert(inner) => root(inner),
            _ => None,
        }
    }
    changed_roots(prog, kernel, root)
}

/// Locals of a function its body may change (see [`changed_roots`]); a
/// `const` reference bound to one does not count.
pub(crate) fn written_objects(prog: &Program, func: &tessera_ir::Function) -> HashSet<LocalId> {
    fn root(e: &Expr) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(l) => Some(*l),
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => root(base),
            ExprKind::Convert(inner) => root(inner),
            _ => None,
        }
    }
    changed_roots(prog, func, root)
}

/// The objects (named by `root`) a function's own body may change:
/// targets of assignments and `++`/`--`, and places bound to references
/// that are not `const` (a `let`, or an argument of a function that takes
/// one), and objects whose address is taken for a pointer that is not to
/// `const` (the pointer may write them). Functions it calls reach an
/// object only through such a reference or pointer.
fn changed_roots<T: Eq + std::hash::Hash>(
    prog: &Program,
    func: &tessera_ir::Function,
    root: fn(&Expr) -> Option<T>,
) -> HashSet<T> {
    match &func.body {
        Some(body) => changed_roots_in(prog, func, body, root),
        None => HashSet::new(),
    }
}

/// [`changed_roots`] for `block`, a part of `func`'s body.
fn changed_roots_in<T: Eq + std::hash::Hash>(
    prog: &Program,
    func: &tessera_ir::Function,
    body: &IrBlock,
    root: fn(&Expr) -> Option<T>,
) -> HashSet<T> {
    let out = std::cell::RefCell::new(HashSet::new());
    let mutable_ref = |f: &tessera_ir::Function, l: usize| {
        f.locals.get(l).is_some_and(|l| l.by_ref && !l.is_const)
    };
    walk_block(
        body,
        &mut |s| {
            if let StmtKind::Let {
                local,
                init: Some(Init::Expr(e) | Init::Ref(e)),
            } = &s.kind
                && mutable_ref(func, local.index())
                && let Some(c) = root(e)
            {
                out.borrow_mut().insert(c);
            }
        },
        &mut |e| match &e.kind {
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => out.borrow_mut().extend(root(target)),
            ExprKind::AddrOf(target)
                if matches!(
                    e.ty,
                    tessera_ir::Type::Ptr {
                        is_const: false,
                        ..
                    }
                ) =>
            {
                out.borrow_mut().extend(root(target))
            }
            ExprKind::Call { func, args } => {
                if let Some(f) = prog.get_function(*func) {
                    for (k, a) in args.iter().enumerate() {
                        if mutable_ref(f, k) {
                            out.borrow_mut().extend(root(a));
                        }
                    }
                }
            }
            _ => {}
        },
    );
    out.into_inner()
}
