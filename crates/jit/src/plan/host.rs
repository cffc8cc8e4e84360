//! Where a compiled host statement (a loop) may stop and leave the rest to
//! the interpreter: its exits.
//!
//! Code that leaves the loop runs at most once per run of it, so it need
//! not be compiled: a `return` (anywhere in the loop, outside inlined
//! calls), and a branch of an `if` that ends by leaving the loop (a
//! `return`, or a `break` out of the loop itself) with no other `break` or
//! `continue` inside. Such a branch may hold anything the interpreter runs
//! (output, say: the "print the first mismatch and stop" of a check loop).
//! The compiled code stops there with the locals the exit's code reads, and
//! the interpreter runs that code.

use crate::decline::{Decline, R, decline};
use crate::plan::locals::stmt_locals;
use std::collections::{BTreeSet, HashMap};
use tessera_ir::visit::{for_each_subexpr, walk_block, walk_stmt};
use tessera_ir::{
    Block as IrBlock, Const, Expr, ExprKind, FuncId, GlobalId, Intrinsic, LocalId, Program, Scalar,
    Stmt, StmtId, StmtKind, Type,
};
use tessera_runtime::launch::{HostExit, HostExitKind};

/// The exits of a host statement, and the locals its compiled part names.
#[derive(Clone, Debug, Default)]
pub(crate) struct HostExits {
    /// The exits, numbered from 1 in the exit argument.
    pub(crate) exits: Vec<HostExit>,
    /// Scalar locals declared inside the statement that some exit reads.
    pub(crate) exit_locals: Vec<LocalId>,
    /// Each exit's number, by the code it stands for.
    pub(crate) by_kind: HashMap<HostExitKind, u32>,
    /// Branches (the `if`'s id, `then` or `else`) that print or throw:
    /// compiled code that reaches one stops as a failed check does, and
    /// the interpreter runs the whole statement again. Such a branch is
    /// rare by nature (the report of a mismatch), and printing is the one
    /// thing the compiled code cannot do.
    pub(crate) bails: BTreeSet<(StmtId, bool)>,
    /// Every local the compiled part names (reads, writes or declares).
    pub(crate) named: BTreeSet<LocalId>,
    /// Every global the compiled part names (not counting the functions
    /// it calls).
    pub(crate) globals: BTreeSet<GlobalId>,
    /// The locals the compiled part declares.
    pub(crate) declared: BTreeSet<LocalId>,
}

/// Finds the exits of host loop `stmt` of a function whose locals' types
/// are `local_ty` (`None` for an unknown local).
pub(crate) fn host_exits<'t>(
    prog: &Program,
    stmt: &Stmt,
    local_ty: &dyn Fn(LocalId) -> Option<(&'t Type, bool)>,
) -> R<HostExits> {
    let mut found = Found {
        prog: Some(prog),
        ..Found::default()
    };
    found.stmt(stmt, 0);
    let mut out = HostExits {
        bails: found.bails,
        named: found.named,
        declared: found.declared,
        globals: found.globals,
        ..HostExits::default()
    };
    for (kind, code_locals) in found.exits {
        let mut locals = Vec::new();
        for l in code_locals {
            // Declared outside the statement: the interpreter has it (the
            // compiled part hands back every scalar it names).
            if !out.declared.contains(&l) {
                continue;
            }
            match local_ty(l) {
                Some((Type::Scalar(_), false)) => {}
                _ => return decline(Decline::HostExitLocal),
            }
            let at = match out.exit_locals.iter().position(|x| *x == l) {
                Some(at) => at,
                None => {
                    out.exit_locals.push(l);
                    out.exit_locals.len() - 1
                }
            };
            locals.push(at);
        }
        out.by_kind.insert(kind, out.exits.len() as u32 + 1);
        out.exits.push(HostExit { kind, locals });
    }
    Ok(out)
}

#[derive(Default)]
struct Found<'p> {
    prog: Option<&'p Program>,
    bails: BTreeSet<(StmtId, bool)>,
    /// Each exit with the locals its code names but does not declare.
    exits: Vec<(HostExitKind, BTreeSet<LocalId>)>,
    named: BTreeSet<LocalId>,
    declared: BTreeSet<LocalId>,
    globals: BTreeSet<GlobalId>,
}

impl Found<'_> {
    /// `depth`: the loops and `switch`es between the host loop's body and
    /// `s` (0 for the host loop itself, 1 in its body).
    fn stmt(&mut self, s: &Stmt, depth: u32) {
        match &s.kind {
            StmtKind::Return(_) => {
                let mut code = BTreeSet::new();
                stmt_locals(s, &mut code);
                self.exits.push((HostExitKind::Return(s.id), code));
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.branch(s.id, true, then, depth);
                if let Some(els) = els {
                    self.branch(s.id, false, els, depth);
                }
            }
            StmtKind::Loop {
                cond, body, step, ..
            } => {
                for e in cond.iter().chain(step.iter()) {
                    self.expr(e);
                }
                self.block(body, depth + 1);
            }
            StmtKind::Switch { value, arms } => {
                self.expr(value);
                for arm in arms {
                    self.block(&arm.body, depth + 1);
                }
            }
            StmtKind::Block(b) => self.block(b, depth),
            StmtKind::Let { local, .. } => {
                self.declared.insert(*local);
                self.whole(s);
            }
            // The emitter declines `try`; its names count all the same.
            _ => self.whole(s),
        }
    }

    /// Notes the names of an expression of the compiled part.
    fn expr(&mut self, e: &Expr) {
        for_each_subexpr(e, &mut |e| match &e.kind {
            ExprKind::Local(l) => {
                self.named.insert(*l);
            }
            ExprKind::Global(g) => {
                self.globals.insert(*g);
            }
            _ => {}
        });
    }

    /// Notes the names of a statement of the compiled part, and of what
    /// it holds.
    fn whole(&mut self, s: &Stmt) {
        stmt_locals(s, &mut self.named);
        let mut globals = BTreeSet::new();
        walk_stmt(s, &mut |_| {}, &mut |e| {
            if let ExprKind::Global(g) = &e.kind {
                globals.insert(*g);
            }
        });
        self.globals.extend(globals);
    }

    fn block(&mut self, b: &IrBlock, depth: u32) {
        for s in &b.stmts {
            self.stmt(s, depth);
        }
    }

    fn branch(&mut self, id: StmtId, then: bool, b: &IrBlock, depth: u32) {
        if leaves(b, depth) {
            let mut code = BTreeSet::new();
            let mut inner = BTreeSet::new();
            for s in &b.stmts {
                stmt_locals(s, &mut code);
                walk_stmt(
                    s,
                    &mut |s| {
                        if let StmtKind::Let { local, .. } = &s.kind {
                            inner.insert(*local);
                        }
                    },
                    &mut |_| {},
                );
            }
            let code = code.difference(&inner).copied().collect();
            self.exits
                .push((HostExitKind::Branch { stmt: id, then }, code));
        } else if self.prog.is_some_and(|prog| prints(prog, b)) {
            self.bails.insert((id, then));
        } else {
            self.block(b, depth);
        }
    }
}

/// True when block `b`, at `depth` inside the host loop, ends by leaving it
/// (a `return`, or a `break` of the host loop itself) and holds no other
/// `break` or `continue` that could bring control back to compiled code.
fn leaves(b: &IrBlock, depth: u32) -> bool {
    let last = match b.stmts.last().map(|s| &s.kind) {
        Some(StmtKind::Return(_)) => None,
        Some(StmtKind::Break) if depth == 1 => Some(()),
        _ => return false,
    };
    let mut jumps = 0usize;
    for s in &b.stmts {
        walk_stmt(
            s,
            &mut |s| {
                if matches!(s.kind, StmtKind::Break | StmtKind::Continue) {
                    jumps += 1;
                }
            },
            &mut |_| {},
        );
    }
    jumps == usize::from(last.is_some())
}

/// The values of `std::cout << a << b ...` (a chain of `Intrinsic::Print`
/// on `std::cout`), first to last, when compiled host code prints them (see
/// `exec::print_scalar`): numbers of the types of
/// [`crate::exec::PRINTED_SCALARS`], string literals, character constants
/// and manipulators. `None` for any other chain (another stream, a value of
/// another type).
pub(crate) fn printed_values(e: &Expr) -> Option<Vec<&Expr>> {
    let mut values = Vec::new();
    let mut at = e;
    loop {
        match &at.kind {
            ExprKind::Intrinsic {
                op: Intrinsic::Print,
                args,
            } if args.len() == 2 => {
                if !printable(&args[1]) {
                    return None;
                }
                values.push(&args[1]);
                at = &args[0];
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Stdout,
                ..
            } if at.ty == Type::Ostream => break,
            _ => return None,
        }
    }
    values.reverse();
    Some(values)
}

/// The bytes of a string literal, also one converted (to `const char*`).
pub(crate) fn literal_text(e: &Expr) -> Option<&Vec<u8>> {
    match &e.kind {
        ExprKind::Str(bytes) => Some(bytes),
        ExprKind::Convert(inner) => literal_text(inner),
        _ => None,
    }
}

/// `c ? "a" : "b"`: the condition and the two literals' bytes.
pub(crate) fn literal_choice(e: &Expr) -> Option<(&Expr, &Vec<u8>, &Vec<u8>)> {
    match &e.kind {
        ExprKind::Conditional { cond, then, els } => {
            Some((cond, literal_text(then)?, literal_text(els)?))
        }
        ExprKind::Convert(inner) => literal_choice(inner),
        _ => None,
    }
}

/// The values of `printf(format, values...)` to standard output when
/// compiled host code prints it (see `exec::print_printf`): a literal
/// format and numbers (as C promotes them: `int`, `unsigned`, `long`,
/// `unsigned long`, `double`). `None` for any other call (a `char*`
/// value, another stream).
pub(crate) fn printf_values(e: &Expr) -> Option<(&Vec<u8>, &[Expr])> {
    let ExprKind::Intrinsic {
        op: Intrinsic::Printf(tessera_ir::OutStream::Stdout),
        args,
    } = &e.kind
    else {
        return None;
    };
    let (format, values) = args.split_first()?;
    let format = literal_text(format)?;
    values
        .iter()
        .all(|v| {
            matches!(
                v.ty,
                Type::Scalar(
                    Scalar::Int | Scalar::UInt | Scalar::Long | Scalar::ULong | Scalar::Double
                )
            )
        })
        .then_some((format, values))
}

/// Whether compiled host code prints `v` (see [`printed_values`]).
fn printable(v: &Expr) -> bool {
    if literal_text(v).is_some() || literal_choice(v).is_some() {
        return true;
    }
    match (&v.kind, &v.ty) {
        (
            ExprKind::Intrinsic {
                op: Intrinsic::Manipulator(_),
                args,
            },
            _,
        ) => args.len() <= 1,
        (ExprKind::Const(Const::Int(_)), Type::Scalar(Scalar::Char | Scalar::UChar)) => true,
        (_, Type::Scalar(s)) => crate::exec::PRINTED_SCALARS.contains(s),
        _ => false,
    }
}

/// The nodes of a printing chain compiled code runs (see
/// [`printed_values`]) other than the values' own code: the `<<`s, the
/// stream, and the values that are constants.
pub(crate) fn print_chain_nodes(e: &Expr) -> Option<Vec<*const Expr>> {
    let values = printed_values(e)?;
    let mut nodes = Vec::new();
    let mut at = e;
    while let ExprKind::Intrinsic {
        op: Intrinsic::Print,
        args,
    } = &at.kind
    {
        nodes.push(at as *const Expr);
        at = &args[0];
    }
    nodes.push(at as *const Expr);
    for v in values {
        // A literal, or a choice of two, with the conversions around them
        // (a choice's condition is code like any).
        if literal_text(v).is_some() {
            through_conversions(v, &mut nodes);
        } else if literal_choice(v).is_some() {
            if let ExprKind::Conditional { then, els, .. } =
                &through_conversions(v, &mut nodes).kind
            {
                through_conversions(then, &mut nodes);
                through_conversions(els, &mut nodes);
            }
        } else if matches!(
            v.kind,
            ExprKind::Const(_)
                | ExprKind::Intrinsic {
                    op: Intrinsic::Manipulator(_),
                    ..
                }
        ) {
            nodes.push(v as *const Expr);
        }
    }
    Some(nodes)
}

/// Adds `e` and the conversions inside it to `nodes`; the expression they
/// convert.
fn through_conversions<'e>(e: &'e Expr, nodes: &mut Vec<*const Expr>) -> &'e Expr {
    let mut at = e;
    while let ExprKind::Convert(inner) = &at.kind {
        nodes.push(at as *const Expr);
        at = inner;
    }
    nodes.push(at as *const Expr);
    at
}

/// True when block `b`, or a function it calls, prints (other than what
/// compiled code prints: [`printed_values`]), throws, launches a kernel or
/// allocates: code compiled host loops never run.
fn prints(prog: &Program, b: &IrBlock) -> bool {
    let found = std::cell::Cell::new(false);
    let mut calls = Vec::new();
    // The nodes of printing chains compiled code runs, found at the chain's
    // outer `<<` (the walk visits an expression before its parts).
    let covered: std::cell::RefCell<std::collections::HashSet<*const Expr>> = Default::default();
    let look = |e: &Expr, calls: &mut Vec<FuncId>| {
        if covered.borrow().contains(&(e as *const Expr)) {
            return;
        }
        if let Some(nodes) = print_chain_nodes(e) {
            covered.borrow_mut().extend(nodes);
            return;
        }
        if printf_values(e).is_some() {
            // The call and its format (the values are code like any).
            let mut nodes = vec![e as *const Expr];
            if let ExprKind::Intrinsic { args, .. } = &e.kind
                && let Some(format) = args.first()
            {
                through_conversions(format, &mut nodes);
            }
            covered.borrow_mut().extend(nodes);
            return;
        }
        let host_only = match &e.kind {
            ExprKind::Str(_)
            | ExprKind::Throw(_)
            | ExprKind::Launch { .. }
            | ExprKind::New { .. }
            | ExprKind::Delete { .. } => true,
            ExprKind::Intrinsic { op, .. } => matches!(
                op,
                Intrinsic::Print
                    | Intrinsic::Printf(_)
                    | Intrinsic::Sprintf { .. }
                    | Intrinsic::Puts { .. }
                    | Intrinsic::Putchar(_)
                    | Intrinsic::Fflush(_)
                    | Intrinsic::Stdout
                    | Intrinsic::Stderr
                    | Intrinsic::Manipulator(_)
                    | Intrinsic::StringStreamNew
                    | Intrinsic::StreamAsOstream
                    | Intrinsic::StreamRead
                    | Intrinsic::StreamGetline
                    | Intrinsic::StreamText
                    | Intrinsic::StreamSetText
                    | Intrinsic::StreamQuery(_)
                    | Intrinsic::StreamClear
                    | Intrinsic::StreamFormat(_)
                    | Intrinsic::Stdin
                    | Intrinsic::StreamGet
                    | Intrinsic::StreamGetChar
                    | Intrinsic::StreamGetlineBuf
                    | Intrinsic::StreamPeek
                    | Intrinsic::StreamIgnore
                    | Intrinsic::Getchar
                    | Intrinsic::StringToNumber { .. }
            ),
            ExprKind::Call { func, .. } => {
                calls.push(*func);
                false
            }
            _ => false,
        };
        if host_only {
            found.set(true);
        }
    };
    let try_stmt = |s: &Stmt| {
        if matches!(s.kind, StmtKind::Try { .. }) {
            found.set(true);
        }
    };
    for s in &b.stmts {
        walk_stmt(s, &mut |s| try_stmt(s), &mut |e| look(e, &mut calls));
    }
    let mut seen = BTreeSet::new();
    while let Some(f) = calls.pop() {
        if found.get() {
            return true;
        }
        if !seen.insert(f) {
            continue;
        }
        if let Some(body) = prog.get_function(f).and_then(|f| f.body.as_ref()) {
            walk_block(body, &mut |s| try_stmt(s), &mut |e| look(e, &mut calls));
        }
    }
    found.get()
}

/// Whether `ty` is an object holding references (a lambda's closure that
/// captures by reference: one member per capture, a pointer to the
/// variable for each by reference) that compiled host code can hold: it
/// has a pointer member, and each member is, or points to, a scalar that
/// is not narrower than `int`, a plain struct or C array, or a vector of
/// plain elements. The hand-off gives each pointed-to object as itself
/// (`CaptureLayout::Fields`), and the code reaches it only through the
/// member (`*closure.member`; see `crate::host_pointers`).
pub(crate) fn holds_references(prog: &Program, ty: &Type) -> bool {
    let Some(def) = (match ty {
        Type::Struct(id) => prog.get_struct(*id),
        _ => None,
    }) else {
        return false;
    };
    // Scalars not narrower than `int`, and memory of a plain layout.
    let plain = |t: &Type| {
        let memory = match t {
            Type::Scalar(s) => {
                return !matches!(
                    s,
                    Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort
                );
            }
            Type::Vector(elem) => elem,
            Type::Struct(_) | Type::CArray(..) => t,
            _ => return false,
        };
        tessera_ir::layout::size_align(&prog.structs, memory).is_some()
            && !memory.contains_union(&prog.structs)
            && !memory.contains_narrow_integer(&prog.structs)
    };
    !def.is_union
        && def
            .fields
            .iter()
            .any(|(_, t)| matches!(t, Type::Ptr { .. }))
        && def.fields.iter().all(|(_, t)| match t {
            Type::Ptr { elem, .. } => plain(elem),
            other => plain(other),
        })
}

/// The closure and the member `member` reads when it is a reference
/// member of a closure holding references (`closure.member`, of pointer
/// type): compiled host code follows it only as `*closure.member`.
pub(crate) fn reference_member<'e>(prog: &Program, member: &'e Expr) -> Option<(&'e Expr, u32)> {
    match &member.kind {
        ExprKind::Field { base, field }
            if matches!(member.ty, Type::Ptr { .. }) && holds_references(prog, &base.ty) =>
        {
            Some((base, *field))
        }
        _ => None,
    }
}
