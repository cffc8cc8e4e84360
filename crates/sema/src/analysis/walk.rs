//! Helpers shared by the analyses: looking things up without panicking,
//! visiting statements and expressions, places and their roots, type sizes.

use tessera_ir::{
    Block, Expr, ExprKind, FuncId, Function, Init, Local, LocalId, Program, Space, Stmt, StmtKind,
    Type,
};

/// The function with this id, if the program has it.
pub fn function(program: &Program, id: FuncId) -> Option<&Function> {
    program.functions.get(id.0 as usize)
}

/// The local with this id in `func`, if it has it.
pub fn local(func: &Function, id: LocalId) -> Option<&Local> {
    func.locals.get(id.0 as usize)
}

/// True when `id` is a `tile_static` local of `func`.
pub fn is_tile_static(func: &Function, id: LocalId) -> bool {
    local(func, id).is_some_and(|l| l.space == Space::TileStatic)
}

/// Calls `f` on each direct operand of `e`, in evaluation order.
pub fn for_each_child<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Capture(_)
        | ExprKind::Str(_) => {}
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::Unary { operand, .. } => f(operand),
        ExprKind::Conditional { cond, then, els } => {
            f(cond);
            f(then);
            f(els);
        }
        ExprKind::Convert(inner) => f(inner),
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
            f(value);
            f(target);
        }
        ExprKind::IncDec { target, .. } => f(target),
        ExprKind::Field { base, .. } => f(base),
        ExprKind::Element { base, index } => {
            f(base);
            f(index);
        }
        ExprKind::Call { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Aggregate(args) => {
            for a in args {
                f(a);
            }
        }
        ExprKind::Launch {
            domain, captures, ..
        } => {
            f(domain);
            for c in captures {
                f(c);
            }
        }
        ExprKind::Comma { first, second } => {
            f(first);
            f(second);
        }
    }
}

/// Calls `f` on `e` and on every expression inside it, parents first.
pub fn for_each_subexpr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    for_each_child(e, &mut |c| for_each_subexpr(c, f));
}

/// Calls `f` on every expression of an initialiser.
pub fn for_each_init_expr<'a>(init: &'a Init, f: &mut impl FnMut(&'a Expr)) {
    match init {
        Init::Expr(e) | Init::Ref(e) => f(e),
        Init::List(items) => {
            for i in items {
                for_each_init_expr(i, f);
            }
        }
        Init::Zero => {}
    }
}

/// A statement, or a top-level expression of one.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    /// A statement, before what it contains.
    Stmt(&'a Stmt),
    /// A condition, step, initialiser, returned value or expression statement.
    Expr(&'a Expr),
}

/// Calls `f` on every statement of `block`, nested ones included, and on
/// every top-level expression they contain (conditions, steps, initialisers,
/// returned values), in program order.
pub fn for_each_stmt<'a>(block: &'a Block, f: &mut impl FnMut(Node<'a>)) {
    for s in &block.stmts {
        f(Node::Stmt(s));
        match &s.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(Node::Expr(e)),
            StmtKind::Let { init, .. } => {
                if let Some(init) = init {
                    for_each_init_expr(init, &mut |e| f(Node::Expr(e)));
                }
            }
            StmtKind::Block(b) => for_each_stmt(b, f),
            StmtKind::If { cond, then, els } => {
                f(Node::Expr(cond));
                for_each_stmt(then, f);
                if let Some(els) = els {
                    for_each_stmt(els, f);
                }
            }
            StmtKind::Loop {
                cond, body, step, ..
            } => {
                if let Some(c) = cond {
                    f(Node::Expr(c));
                }
                for_each_stmt(body, f);
                if let Some(st) = step {
                    f(Node::Expr(st));
                }
            }
            StmtKind::Switch { value, arms } => {
                f(Node::Expr(value));
                for arm in arms {
                    for_each_stmt(&arm.body, f);
                }
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Barrier(_) => {}
        }
    }
}

/// Calls `f` on every expression of `block`, sub-expressions included.
pub fn for_each_expr_deep<'a>(block: &'a Block, f: &mut impl FnMut(&'a Expr)) {
    for_each_stmt(block, &mut |n| {
        if let Node::Expr(e) = n {
            for_each_subexpr(e, f);
        }
    });
}

/// The local variable a place expression names or is part of (`x`, `x.f`,
/// `x[i][j]`, `(x = 1)`), if any. Elements of `array`/`array_view` and
/// references returned by calls have none.
pub fn place_root(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Local(id) => Some(*id),
        ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => place_root(base),
        ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
            place_root(target)
        }
        ExprKind::IncDec {
            target,
            prefix: true,
            ..
        } => place_root(target),
        ExprKind::Comma { second, .. } => place_root(second),
        _ => None,
    }
}

/// The index expressions of the C array elements a place goes through, outermost
/// array first (`a[i][j]` gives `[i, j]`), with the field positions as a guard:
/// two places with the same root are the same location when these match.
pub fn place_path(e: &Expr) -> Vec<PathStep<'_>> {
    let mut out = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Field { base, field } => {
                out.push(PathStep::Field(*field));
                cur = base;
            }
            ExprKind::Element { base, index } => {
                out.push(PathStep::Index(index));
                cur = base;
            }
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                cur = target
            }
            ExprKind::IncDec {
                target,
                prefix: true,
                ..
            } => cur = target,
            ExprKind::Comma { second, .. } => cur = second,
            _ => break,
        }
    }
    out.reverse();
    out
}

/// One step from a variable to a part of it.
#[derive(Clone, Copy, Debug)]
pub enum PathStep<'a> {
    /// A struct field, by position.
    Field(u32),
    /// A C array element at this index.
    Index(&'a Expr),
}

/// True when two paths are written the same way (see [`same_expr`]).
pub fn same_path(a: &[PathStep<'_>], b: &[PathStep<'_>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (PathStep::Field(f), PathStep::Field(g)) => f == g,
            (PathStep::Index(i), PathStep::Index(j)) => same_expr(i, j),
            _ => false,
        })
}

/// Structural equality of two expressions, ignoring spans: the same operators
/// on the same variables and constants.
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    use ExprKind as K;
    let kinds_match = match (&a.kind, &b.kind) {
        (K::Const(x), K::Const(y)) => return x == y,
        (K::Local(x), K::Local(y)) => return x == y,
        (K::Global(x), K::Global(y)) => return x == y,
        (K::Capture(x), K::Capture(y)) => return x == y,
        (K::Str(x), K::Str(y)) => return x == y,
        (K::Binary { op: x, .. }, K::Binary { op: y, .. }) => x == y,
        (K::Unary { op: x, .. }, K::Unary { op: y, .. }) => x == y,
        (K::Logical { and: x, .. }, K::Logical { and: y, .. }) => x == y,
        (K::CompoundAssign { op: x, .. }, K::CompoundAssign { op: y, .. }) => x == y,
        (
            K::IncDec {
                increment: x,
                prefix: p,
                ..
            },
            K::IncDec {
                increment: y,
                prefix: q,
                ..
            },
        ) => x == y && p == q,
        (K::Field { field: x, .. }, K::Field { field: y, .. }) => x == y,
        (K::Call { func: x, .. }, K::Call { func: y, .. }) => x == y,
        (K::Intrinsic { op: x, .. }, K::Intrinsic { op: y, .. }) => x == y,
        (K::Launch { kernel: x, .. }, K::Launch { kernel: y, .. }) => x == y,
        (K::Conditional { .. }, K::Conditional { .. })
        | (K::Convert(_), K::Convert(_))
        | (K::Assign { .. }, K::Assign { .. })
        | (K::Element { .. }, K::Element { .. })
        | (K::Aggregate(_), K::Aggregate(_))
        | (K::Comma { .. }, K::Comma { .. }) => true,
        _ => false,
    };
    if !kinds_match || a.ty != b.ty {
        return false;
    }
    let mut xs = Vec::new();
    for_each_child(a, &mut |c| xs.push(c));
    let mut ys = Vec::new();
    for_each_child(b, &mut |c| ys.push(c));
    xs.len() == ys.len() && xs.iter().zip(&ys).all(|(x, y)| same_expr(x, y))
}

/// Size and alignment in bytes of a value of `ty` in `tile_static` memory,
/// with C layout for structs. Types that cannot be shared count as 0.
pub fn size_align(ty: &Type, program: &Program) -> (u64, u64) {
    size_align_at(ty, program, 0)
}

/// Struct nesting is bounded in valid programs; this guards malformed ones.
const MAX_TYPE_DEPTH: u32 = 64;

fn size_align_at(ty: &Type, program: &Program, depth: u32) -> (u64, u64) {
    if depth > MAX_TYPE_DEPTH {
        return (0, 1);
    }
    match ty {
        Type::Scalar(s) => (u64::from(s.size()), u64::from(s.size())),
        Type::CArray(elem, n) => {
            let (size, align) = size_align_at(elem, program, depth + 1);
            (size.saturating_mul(u64::from(*n)), align)
        }
        Type::Index(rank) | Type::Extent(rank) => (4 * u64::from(*rank), 4),
        Type::Struct(id) => {
            let Some(def) = program.structs.get(id.0 as usize) else {
                return (0, 1);
            };
            let mut offset: u64 = 0;
            let mut max_align: u64 = 1;
            for (_, field_ty) in &def.fields {
                let (size, align) = size_align_at(field_ty, program, depth + 1);
                let align = align.max(1);
                offset = round_up(offset, align).saturating_add(size);
                max_align = max_align.max(align);
            }
            (round_up(offset, max_align), max_align)
        }
        _ => (0, 1),
    }
}

fn round_up(n: u64, align: u64) -> u64 {
    match n % align {
        0 => n,
        r => n.saturating_add(align - r),
    }
}

/// Every `tile_static` declaration of a function: the local and the span of
/// its declaration, in program order.
pub fn tile_static_decls(func: &Function) -> Vec<(LocalId, tessera_diagnostics::Span)> {
    let mut out = Vec::new();
    if let Some(body) = &func.body {
        for_each_stmt(body, &mut |n| {
            if let Node::Stmt(s) = n
                && let StmtKind::Let { local: id, .. } = &s.kind
                && is_tile_static(func, *id)
            {
                out.push((*id, s.span));
            }
        });
    }
    out
}

/// The locals that code in `block` may write: targets of assignments,
/// `++`/`--` and atomics, places passed to non-const reference parameters,
/// and places references are bound to (a reference may be written later).
pub fn written_roots(program: &Program, block: &Block) -> std::collections::HashSet<LocalId> {
    let mut out = std::collections::HashSet::new();
    for_each_stmt(block, &mut |n| match n {
        Node::Stmt(s) => {
            if let StmtKind::Let {
                init: Some(Init::Ref(place)),
                ..
            } = &s.kind
                && let Some(root) = place_root(place)
            {
                out.insert(root);
            }
        }
        Node::Expr(e) => for_each_subexpr(e, &mut |e| {
            for place in written_places(program, e) {
                if let Some(root) = place_root(place) {
                    out.insert(root);
                }
            }
        }),
    });
    out
}

/// The places that evaluating `e` itself (not its operands) may write.
pub fn written_places<'a>(program: &Program, e: &'a Expr) -> Vec<&'a Expr> {
    match &e.kind {
        ExprKind::Assign { target, .. }
        | ExprKind::CompoundAssign { target, .. }
        | ExprKind::IncDec { target, .. } => {
            vec![target.as_ref()]
        }
        ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::Atomic(_),
            args,
        } => args.first().into_iter().collect(),
        ExprKind::Call { func, args } => {
            let params = function(program, *func)
                .map(|f| &f.locals[..(f.params as usize).min(f.locals.len())]);
            args.iter()
                .enumerate()
                .filter(|(i, _)| {
                    params
                        .and_then(|p| p.get(*i))
                        .is_some_and(|p| p.by_ref && !p.is_const)
                })
                .map(|(_, a)| a)
                .collect()
        }
        _ => Vec::new(),
    }
}
