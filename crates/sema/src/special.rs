//! Special member functions that run user code: copy constructors,
//! destructors and the copy assignment C++ defines from the members'.
//!
//! Everything is lowered to calls the typed program already has, so the
//! engines need nothing new:
//!
//! - a copy (initialising from an lvalue, a by-value argument, a returned
//!   variable) of a class whose copy runs code is a call of the copy
//!   constructor with the source object by reference. A class that declares
//!   none gets the one C++ defines: each base and member copied in turn;
//! - an object whose destructor runs code is destroyed by a call of it,
//!   written by the checker where C++ destroys the object: at the end of
//!   its block, before a `break`, `continue` or `return` that leaves the
//!   block (in reverse order of construction), and for a temporary at the
//!   end of its full expression (the temporary lives in a hidden local);
//! - a destructor runs its body, then destroys the members and bases in
//!   reverse order;
//! - an implicitly defined special member runs where all the special
//!   members it calls run (C++ AMP infers its restriction); when none
//!   remains it is deleted (C2558 for a copy, C2582 for an assignment).
//!
//! What is not lowered is refused (E0211) rather than run wrongly: objects
//! with destructors passed by value, held in arrays, containers or globals,
//! made by `new`, captured by kernels, or in a program that throws.

use crate::cx::{Checker, FnCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{
    Expr, ExprKind, FuncId, Function, FunctionKind, Init, Local, LocalId, Restriction, Stmt,
    StmtKind, StructId, Type, visit,
};
use tessera_syntax::ast;

/// The deepest nesting of members and bases looked through.
const MAX_DEPTH: u32 = 64;

/// Which implicitly defined member is synthesised.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Implicit {
    Copy,
    Assign,
    Dtor,
}

impl Checker {
    /// The copy constructors class `id` declares (not `= default`).
    pub fn user_copy_ctors(&self, id: StructId) -> Vec<FuncId> {
        let Some(info) = self.classes.get(&id) else {
            return Vec::new();
        };
        info.ctors
            .iter()
            .copied()
            .filter(|c| {
                // `A(const A&, int = 0)` is a copy constructor too.
                let defaulted_rest = |f: &tessera_ir::Function| {
                    (1..f.params as usize).all(|i| {
                        self.defaults
                            .get(c)
                            .and_then(|d| d.get(i))
                            .is_some_and(Option::is_some)
                    })
                };
                self.program.get_function(*c).is_some_and(|f| {
                    f.params >= 1
                        && f.locals
                            .first()
                            .is_some_and(|p| p.by_ref && p.ty == Type::Struct(id))
                        && defaulted_rest(f)
                })
            })
            .collect()
    }

    /// Whether the copy constructor C++ defines for class `id` takes a
    /// `const` source (`A(const A&)`): when every base and member class has
    /// a copy constructor that does (one declared for any restriction, or
    /// its own implicit one); else it takes `A&` (MSVC C2558 when copying
    /// a const object).
    pub fn implicit_copy_takes_const(&self, id: StructId) -> bool {
        self.member_classes(id)
            .iter()
            .all(|m| self.copy_takes_const_depth(*m, 0))
    }

    fn copy_takes_const_depth(&self, id: StructId, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        let users = self.user_copy_ctors(id);
        if !users.is_empty() {
            return users.iter().any(|u| {
                self.program
                    .get_function(*u)
                    .and_then(|f| f.locals.first())
                    .is_some_and(|p| p.is_const)
            });
        }
        self.member_classes(id)
            .iter()
            .all(|m| self.copy_takes_const_depth(*m, depth + 1))
    }

    /// Whether the copy assignment C++ defines for class `id` takes a
    /// `const` source: when every base and member class has an
    /// `operator=` that does (or its own implicit one); else it takes `A&`
    /// (MSVC C2679 when assigning from a const object).
    pub fn implicit_assign_takes_const(&self, id: StructId) -> bool {
        self.member_classes(id)
            .iter()
            .all(|m| self.assign_takes_const_depth(*m, 0))
    }

    fn assign_takes_const_depth(&self, id: StructId, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        let copies = self.own_copy_assigns(id);
        if !copies.is_empty() {
            return copies.iter().any(|(_, takes_const)| *takes_const);
        }
        self.member_classes(id)
            .iter()
            .all(|m| self.assign_takes_const_depth(*m, depth + 1))
    }

    /// The copy assignments class `id` declares itself (`A& operator=(A&)`,
    /// `A& operator=(const A&)`): where each runs, and whether it takes a
    /// `const` source.
    fn own_copy_assigns(&self, id: StructId) -> Vec<(Restriction, bool)> {
        let own = self
            .classes
            .get(&id)
            .and_then(|c| c.methods.get("operator="))
            .cloned()
            .unwrap_or_default();
        own.iter()
            .filter_map(|f| self.program.get_function(*f))
            .filter_map(|f| {
                let source = f.locals.get(1)?;
                (f.params == 2 && source.by_ref && source.ty == Type::Struct(id))
                    .then_some((f.restriction, source.is_const))
            })
            .collect()
    }

    /// True when copying an object of class `id` runs user code: it or a
    /// base or member (at any depth) declares a copy constructor.
    pub fn copy_runs_code(&self, id: StructId) -> bool {
        self.copy_runs_code_depth(id, 0)
    }

    fn copy_runs_code_depth(&self, id: StructId, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if !self.user_copy_ctors(id).is_empty() {
            return true;
        }
        self.member_classes(id)
            .iter()
            .any(|m| self.copy_runs_code_depth(*m, depth + 1))
    }

    /// True when destroying an object of class `id` runs user code: its
    /// destructor has a body with statements (or is not defined yet), or a
    /// base's or member's does.
    pub fn dtor_runs_code(&self, id: StructId) -> bool {
        self.dtor_runs_code_depth(id, 0)
    }

    fn dtor_runs_code_depth(&self, id: StructId, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if let Some(d) = self.classes.get(&id).and_then(|c| c.dtor)
            && self
                .program
                .get_function(d)
                .is_some_and(|f| f.body.as_ref().is_none_or(|b| !b.stmts.is_empty()))
        {
            return true;
        }
        self.member_classes(id)
            .iter()
            .any(|m| self.dtor_runs_code_depth(*m, depth + 1))
    }

    /// The classes of the bases and members of class `id`, arrays of them
    /// included.
    fn member_classes(&self, id: StructId) -> Vec<StructId> {
        self.program
            .get_struct(id)
            .map(|s| {
                s.fields
                    .iter()
                    .filter_map(|(_, t)| {
                        let mut t = t;
                        while let Type::CArray(inner, _) = t {
                            t = inner;
                        }
                        match t {
                            Type::Struct(m) => Some(*m),
                            _ => None,
                        }
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Refuses a variable of static storage (a global, a `static` local)
    /// whose destruction runs code: C++ destroys it after `main` returns.
    pub fn refuse_static_dtor(&mut self, ty: &Type, span: Span) {
        let mut t = ty;
        while let Type::CArray(inner, _) = t {
            t = inner;
        }
        if let Type::Struct(id) = t
            && self.dtor_runs_code(*id)
        {
            self.error(
                codes::E0211,
                span,
                "variables of static storage whose destructor runs code are not supported yet",
                "destroyed after `main` returns",
                "make it a local of `main`",
            );
        }
    }

    /// True when a member of class `id` is a C array of objects whose copy
    /// or destruction runs code (which Tessera does not lower).
    fn has_array_of_special(&self, id: StructId) -> bool {
        self.program.get_struct(id).is_some_and(|s| {
            s.fields.iter().any(|(_, t)| {
                let mut t = t;
                let mut array = false;
                while let Type::CArray(inner, _) = t {
                    t = inner;
                    array = true;
                }
                array
                    && matches!(t, Type::Struct(m) if self.copy_runs_code(*m) || self.dtor_runs_code(*m) || self.assignment_runs_code(*m))
            })
        })
    }
}

/// The name the returns of a function body all name, when every `return`
/// returns the same variable (C++ compilers then build it in the caller's
/// object).
pub fn nrvo_name(body: &ast::Block) -> Option<String> {
    fn walk(s: &ast::Stmt, names: &mut Vec<Option<String>>) {
        use ast::StmtKind as S;
        match &s.kind {
            S::Return(Some(e)) => names.push(match &e.kind {
                ast::ExprKind::Name(p) if p.segments.len() == 1 && !p.global => {
                    Some(p.last().to_string())
                }
                _ => None,
            }),
            S::Return(None) => names.push(None),
            S::Block(b) => b.stmts.iter().for_each(|s| walk(s, names)),
            S::If { then, els, .. } => {
                walk(then, names);
                if let Some(e) = els {
                    walk(e, names);
                }
            }
            S::While { body, .. } | S::DoWhile { body, .. } | S::Switch { body, .. } => {
                walk(body, names)
            }
            S::For { body, .. } | S::ForRange { body, .. } => walk(body, names),
            S::Labeled { stmt, .. } => walk(stmt, names),
            S::Try { body, handlers } => {
                body.stmts.iter().for_each(|s| walk(s, names));
                for h in handlers {
                    h.body.stmts.iter().for_each(|s| walk(s, names));
                }
            }
            _ => {}
        }
    }
    let mut names = Vec::new();
    body.stmts.iter().for_each(|s| walk(s, &mut names));
    let first = names.first()?.clone()?;
    names
        .iter()
        .all(|n| n.as_deref() == Some(first.as_str()))
        .then_some(first)
}

impl FnCx<'_> {
    /// `e` as the source of a new object: a call of the copy constructor
    /// when `e` names an object whose copy runs code, else `e` itself.
    pub(crate) fn copied(&mut self, e: Expr) -> Expr {
        if !e.place {
            // `std::move(x)` (or a returned local): the object is built by
            // the constructor overload resolution picks for an rvalue, the
            // move constructor when the class has one.
            if let Type::Struct(id) = e.ty
                && self.ck.moved.contains(&e.span)
                && crate::library::moved_place(&e)
                && self.ck.copy_runs_code(id)
                && !self.ck.user_copy_ctors(id).is_empty()
            {
                let span = e.span;
                return self
                    .construct_object(id, vec![e], false, span)
                    .unwrap_or_else(|| error_expr(span));
            }
            return e;
        }
        let Type::Struct(id) = e.ty else { return e };
        if !self.ck.copy_runs_code(id) {
            return e;
        }
        let span = e.span;
        if !self.ck.user_copy_ctors(id).is_empty() {
            return self
                .construct_object(id, vec![e], false, span)
                .unwrap_or_else(|| error_expr(span));
        }
        let Some(fid) = self.implicit_member(id, Implicit::Copy, span) else {
            return error_expr(span);
        };
        if !self.source_fits(fid, 0, &e, "copy constructor", "C2558") {
            return error_expr(span);
        }
        mk(
            ExprKind::Call {
                func: fid,
                args: vec![e],
            },
            Type::Struct(id),
            false,
            span,
        )
    }

    /// `target = value` for a class whose implicit assignment calls a
    /// base's or member's `operator=`.
    pub(crate) fn implicit_assign(&mut self, target: Expr, value: Expr, span: Span) -> Expr {
        let Type::Struct(id) = target.ty else {
            return error_expr(span);
        };
        self.check_writable(&target, "assigned");
        let value = self.coerce(value, &Type::Struct(id), "the assigned value");
        let Some(fid) = self.implicit_member(id, Implicit::Assign, span) else {
            return error_expr(span);
        };
        if !self.source_fits(fid, 1, &value, "copy assignment", "C2679") {
            return error_expr(span);
        }
        mk(
            ExprKind::Call {
                func: fid,
                args: vec![target, value],
            },
            Type::Struct(id),
            true,
            span,
        )
    }

    /// Whether `source` may be passed as parameter `param` of the implicit
    /// member `fid`: one that takes `A&` (a base or member copies only from
    /// a non-const object) cannot copy from a const object (reported).
    fn source_fits(
        &mut self,
        fid: FuncId,
        param: usize,
        source: &Expr,
        what: &str,
        msvc: &'static str,
    ) -> bool {
        let takes_const = self
            .ck
            .program
            .get_function(fid)
            .and_then(|f| f.locals.get(param))
            .is_none_or(|p| p.is_const);
        if takes_const || !source.place {
            return true;
        }
        let Some((why, _)) = self.read_only_reason(source) else {
            return true;
        };
        let shown = self.ck.show(&source.ty);
        self.ck.report(
            Diagnostic::error(
                codes::E0203,
                source.span,
                format!("the {what} of `{shown}` takes a `{shown}&`, and this object is const: {why}"),
            )
            .with_label("a const object")
            .with_msvc(msvc)
            .with_help(format!(
                "a base or member of `{shown}` copies only from a non-const object; copy from one, or give that class a {what} taking a `const` reference"
            )),
        );
        false
    }

    /// The call that destroys `object` (a place), or `None` when its
    /// destruction runs no code.
    pub(crate) fn destroy_call(&mut self, object: Expr, span: Span) -> Option<Expr> {
        self.destroy_call_checked(object, span, true)
    }

    /// `destroy_call`, reporting a destructor that cannot run here when
    /// `report` (a declared local's is reported where it is declared).
    fn destroy_call_checked(&mut self, object: Expr, span: Span, report: bool) -> Option<Expr> {
        let Type::Struct(id) = object.ty else {
            return None;
        };
        if !self.ck.dtor_runs_code(id) {
            return None;
        }
        let dtor = match self.ck.classes.get(&id).and_then(|c| c.dtor) {
            Some(d) => d,
            None => self.implicit_member(id, Implicit::Dtor, span)?,
        };
        crate::template::ensure_body(self.ck, dtor, span);
        let r = self
            .ck
            .program
            .get_function(dtor)
            .map(|f| (f.restriction, f.span));
        if let Some((r, at)) = r.filter(|_| report) {
            let here = self.restriction();
            if (here.amp && !r.amp) || (here.cpu && !here.amp && !r.cpu) {
                let name = self.ck.show(&Type::Struct(id));
                let only = if r.amp { "in amp code" } else { "on the host" };
                self.ck.report(
                    Diagnostic::error(
                        if r.amp { codes::E0301 } else { codes::E0300 },
                        span,
                        format!("the destructor of `{name}` runs only {only}, but the object is destroyed here"),
                    )
                    .with_label("object destroyed here")
                    .with_secondary(at, "destructor")
                    .with_msvc("C3930")
                    .with_help(format!("give `{name}`'s destructor the restriction of this code")),
                );
            }
        }
        Some(mk(
            ExprKind::Call {
                func: dtor,
                args: vec![object],
            },
            Type::Void,
            false,
            span,
        ))
    }

    /// A local just declared: when destroying it runs code, its destructor
    /// call is registered for the end of its scope.
    pub(crate) fn register_local(&mut self, local: LocalId, span: Span) {
        let Some(l) = self.local(local).cloned() else {
            return;
        };
        if l.by_ref || l.space == tessera_ir::Space::TileStatic {
            return;
        }
        let mut t = &l.ty;
        let mut array = false;
        while let Type::CArray(inner, _) = t {
            t = inner;
            array = true;
        }
        let Type::Struct(id) = t else { return };
        if !self.ck.dtor_runs_code(*id) {
            return;
        }
        if array {
            self.ck.error(
                codes::E0211,
                span,
                "arrays of objects whose destructor runs code are not supported yet",
                "array of objects with a destructor",
                "declare the objects one by one",
            );
            return;
        }
        let object = self.local_expr(local, span);
        if let Some(call) = self.destroy_call_checked(object, span, false) {
            self.cleanups.push((self.scopes.len(), local, call));
        }
    }

    /// The destructor calls that end the innermost scope, in reverse order of
    /// construction, appended to `stmts` (unless it ends with a jump, which
    /// ran them).
    pub(crate) fn close_scope(&mut self, stmts: &mut Vec<Stmt>) {
        let depth = self.scopes.len();
        let mut calls = Vec::new();
        while let Some((d, _, _)) = self.cleanups.last()
            && *d >= depth
        {
            if let Some((_, _, call)) = self.cleanups.pop() {
                calls.push(call);
            }
        }
        let jumped = stmts.last().is_some_and(|s| {
            matches!(
                s.kind,
                StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue
            )
        });
        if jumped {
            return;
        }
        for call in calls {
            let span = call.span;
            stmts.push(Stmt::new(StmtKind::Expr(call), span));
        }
    }

    /// After a scope's closure: objects registered in a scope that no block
    /// closed (a declaration in a `catch` or range-`for` head) are refused.
    pub(crate) fn leave_scope(&mut self) {
        let depth = self.scopes.len();
        let mut refused = None;
        while let Some((d, _, call)) = self.cleanups.last()
            && *d >= depth
        {
            refused = Some(call.span);
            self.cleanups.pop();
        }
        if let Some(span) = refused {
            self.ck.error(
                codes::E0211,
                span,
                "an object whose destructor runs code cannot be declared here yet",
                "object with a destructor",
                "declare it inside the block",
            );
        }
    }

    /// The destructor calls a jump out of the scopes deeper than `depth`
    /// runs, innermost first (`skip`: the object a `return` hands back).
    pub(crate) fn jump_cleanups(
        &self,
        depth: usize,
        skip: Option<LocalId>,
        span: Span,
    ) -> Vec<Stmt> {
        self.cleanups
            .iter()
            .rev()
            .filter(|(d, l, _)| *d > depth && Some(*l) != skip)
            .map(|(_, _, call)| {
                Stmt::new(
                    StmtKind::Expr(Expr {
                        span,
                        ..call.clone()
                    }),
                    span,
                )
            })
            .collect()
    }

    /// The scope depth a `break` (`continue: false`) or `continue` leaves to.
    pub(crate) fn jump_depth(&self, continuing: bool) -> Option<usize> {
        self.jump_scopes
            .iter()
            .rev()
            .find(|(_, is_loop)| *is_loop || !continuing)
            .map(|(d, _)| *d)
    }

    /// Lowers a full expression's temporaries: each object whose destructor
    /// runs code and that is not the object being initialised (`init`) is
    /// kept in a hidden local declared in `out`; returns the expression and
    /// the destructor calls to run after it, in order.
    pub(crate) fn temporaries(
        &mut self,
        e: &mut Expr,
        init: bool,
        out: &mut Vec<Stmt>,
    ) -> Vec<Expr> {
        if !self.ck.any_dtor {
            return Vec::new();
        }
        let mut dtors = Vec::new();
        self.temps_in(e, init, false, out, &mut dtors);
        dtors.reverse();
        dtors
    }

    fn temps_in(
        &mut self,
        e: &mut Expr,
        consumed: bool,
        conditional: bool,
        out: &mut Vec<Stmt>,
        dtors: &mut Vec<Expr>,
    ) {
        // The parts a value flows into without a temporary, and the parts
        // evaluated only sometimes.
        match &mut e.kind {
            ExprKind::Conditional { cond, then, els } => {
                self.temps_in(cond, false, conditional, out, dtors);
                self.temps_in(then, consumed, true, out, dtors);
                self.temps_in(els, consumed, true, out, dtors);
            }
            ExprKind::Logical { lhs, rhs, .. } => {
                self.temps_in(lhs, false, conditional, out, dtors);
                self.temps_in(rhs, false, true, out, dtors);
            }
            ExprKind::Comma { first, second } => {
                self.temps_in(first, false, conditional, out, dtors);
                self.temps_in(second, consumed, conditional, out, dtors);
                // Its value is its second operand's object.
                return;
            }
            ExprKind::Call { func, args } => {
                let func = *func;
                let by_value: Vec<bool> = self
                    .ck
                    .program
                    .get_function(func)
                    .map(|f| f.locals.iter().map(|l| !l.by_ref).collect())
                    .unwrap_or_default();
                for (i, a) in args.iter_mut().enumerate() {
                    let value = by_value.get(i).copied().unwrap_or(false);
                    if value
                        && let Type::Struct(id) = a.ty
                        && self.ck.dtor_runs_code(id)
                    {
                        self.ck.error(
                            codes::E0211,
                            a.span,
                            "passing an object whose destructor runs code by value is not supported yet",
                            "copied into a parameter",
                            "pass it by `const` reference",
                        );
                    }
                    self.temps_in(a, value, conditional, out, dtors);
                }
            }
            ExprKind::Aggregate(items) => {
                for a in items {
                    self.temps_in(a, true, conditional, out, dtors);
                }
            }
            // The object `new` makes is the heap's, destroyed by `delete`.
            ExprKind::New {
                value: Some(value),
                count: None,
            } => {
                self.temps_in(value, true, conditional, out, dtors);
            }
            ExprKind::Launch { .. } | ExprKind::New { .. } => {
                visit::for_each_child_mut(e, &mut |c| {
                    if let Type::Struct(id) = c.ty
                        && !c.place
                        && self.ck.dtor_runs_code(id)
                    {
                        self.ck.error(
                            codes::E0211,
                            c.span,
                            "this object, whose destructor runs code, is not supported here yet",
                            "object with a destructor",
                            "",
                        );
                    }
                });
            }
            _ => {
                let mut children = Vec::new();
                visit::for_each_child_mut(e, &mut |c| {
                    children.push(std::mem::replace(c, error_expr(c.span)))
                });
                for c in &mut children {
                    self.temps_in(c, false, conditional, out, dtors);
                }
                let mut it = children.into_iter();
                visit::for_each_child_mut(e, &mut |c| {
                    if let Some(n) = it.next() {
                        *c = n;
                    }
                });
            }
        }
        if consumed || e.place {
            return;
        }
        let Type::Struct(id) = e.ty else { return };
        if !self.ck.dtor_runs_code(id) {
            return;
        }
        let span = e.span;
        if conditional {
            self.ck.error(
                codes::E0211,
                span,
                "a temporary whose destructor runs code, made only on one path of `?:`, `&&` or `||`, is not supported yet",
                "conditional temporary",
                "make the object a variable before the expression",
            );
            return;
        }
        let space = self.local_space();
        let local = self.declare(Local {
            name: String::new(),
            ty: Type::Struct(id),
            by_ref: false,
            is_const: false,
            space,
            span,
        });
        out.push(Stmt::new(
            StmtKind::Let {
                local,
                init: Some(Init::Zero),
            },
            span,
        ));
        let target = self.local_expr(local, span);
        let value = std::mem::replace(e, error_expr(span));
        *e = mk(
            ExprKind::Assign {
                target: Box::new(target),
                value: Box::new(value),
            },
            Type::Struct(id),
            true,
            span,
        );
        let object = self.local_expr(local, span);
        if let Some(call) = self.destroy_call(object, span) {
            dtors.push(call);
        }
    }

    /// A full expression evaluated for its effects (a statement), with its
    /// temporaries destroyed after it.
    pub(crate) fn effect_stmt(&mut self, mut e: Expr, span: Span, out: &mut Vec<Stmt>) {
        let dtors = self.temporaries(&mut e, false, out);
        out.push(Stmt::new(StmtKind::Expr(e), span));
        for d in dtors {
            out.push(Stmt::new(StmtKind::Expr(d), span));
        }
    }

    /// A full expression whose value is used (a condition, a `for` step):
    /// its temporaries are destroyed after it within the expression.
    pub(crate) fn valued_expr(&mut self, mut e: Expr, out: &mut Vec<Stmt>, keep: bool) -> Expr {
        let dtors = self.temporaries(&mut e, false, out);
        if dtors.is_empty() {
            return e;
        }
        let span = e.span;
        let ty = if keep { e.ty.clone() } else { Type::Void };
        let mut tail = if ty == Type::Void {
            None
        } else {
            let space = self.local_space();
            let local = self.declare(Local {
                name: String::new(),
                ty: ty.clone(),
                by_ref: false,
                is_const: false,
                space,
                span,
            });
            out.push(Stmt::new(StmtKind::Let { local, init: None }, span));
            let target = self.local_expr(local, span);
            e = mk(
                ExprKind::Assign {
                    target: Box::new(target),
                    value: Box::new(e),
                },
                ty.clone(),
                true,
                span,
            );
            Some(self.local_expr(local, span))
        };
        let mut seq = e;
        for d in dtors {
            seq = mk(
                ExprKind::Comma {
                    first: Box::new(seq),
                    second: Box::new(d),
                },
                Type::Void,
                false,
                span,
            );
        }
        if let Some(result) = tail.take() {
            seq = mk(
                ExprKind::Comma {
                    first: Box::new(seq),
                    second: Box::new(Expr {
                        place: false,
                        ..result
                    }),
                },
                ty,
                false,
                span,
            );
        }
        seq
    }

    /// `a.~A()` / `p->~A()`: runs the destructor of the object (nothing for
    /// a class whose destruction runs no code, or a scalar).
    pub(crate) fn explicit_destroy(&mut self, object: Expr, name: &ast::Ident, span: Span) -> Expr {
        let plain = name.name.trim_start_matches('~');
        let named = self
            .ck
            .alias(plain)
            .cloned()
            .or_else(|| self.ck.structs.get(plain).map(|id| Type::Struct(*id)));
        if object.ty.is_error() {
            return error_expr(span);
        }
        if let Some(t) = &named
            && *t != object.ty
            && !t.is_error()
        {
            let (a, b) = (self.ck.show(t), self.ck.show(&object.ty));
            self.ck.error(
                codes::E0203,
                name.span,
                format!("`~{a}` does not name the destructor of a `{b}`"),
                "another type",
                "",
            );
            return error_expr(span);
        }
        match self.destroy_call(object.clone(), span) {
            Some(call) => call,
            None => mk(
                ExprKind::Comma {
                    first: Box::new(object),
                    second: Box::new(mk(
                        ExprKind::Const(tessera_ir::Const::Int(0)),
                        Type::INT,
                        false,
                        span,
                    )),
                },
                Type::INT,
                false,
                span,
            ),
        }
    }

    /// The destructor calls of a class's members and bases, in reverse
    /// order, on the object `this` names (run after a destructor's body).
    pub(crate) fn member_dtors(&mut self, id: StructId, this: LocalId, span: Span) -> Vec<Stmt> {
        let fields = self.ck.struct_fields(id);
        let mut out = Vec::new();
        for (i, (_, t)) in fields.iter().enumerate().rev() {
            let Type::Struct(_) = t else { continue };
            let object = self.local_expr(this, span);
            let field = mk(
                ExprKind::Field {
                    base: Box::new(object),
                    field: i as u32,
                },
                t.clone(),
                true,
                span,
            );
            if let Some(call) = self.destroy_call(field, span) {
                out.push(Stmt::new(StmtKind::Expr(call), span));
            }
        }
        out
    }

    /// The special member C++ defines implicitly for class `id`, made once:
    /// its restriction is where everything it calls may run; `None` after
    /// reporting that it is deleted (no context is left).
    fn implicit_member(&mut self, id: StructId, kind: Implicit, span: Span) -> Option<FuncId> {
        let cached = self.ck.classes.get(&id).and_then(|c| match kind {
            Implicit::Copy => c.implicit_copy,
            Implicit::Assign => c.implicit_assign,
            Implicit::Dtor => c.implicit_dtor,
        });
        let name = self.ck.classes.get(&id)?.name.clone();
        let fid = match cached {
            Some(f) => f,
            None => {
                if self.ck.has_array_of_special(id) {
                    self.ck.error(
                        codes::E0211,
                        span,
                        format!("copying or destroying a `{name}`, which holds an array of objects with special members, is not supported yet"),
                        "here",
                        "",
                    );
                    return None;
                }
                let fid = synthesise(self.ck, id, kind, &name, span);
                if let Some(c) = self.ck.classes.get_mut(&id) {
                    match kind {
                        Implicit::Copy => c.implicit_copy = Some(fid),
                        Implicit::Assign => c.implicit_assign = Some(fid),
                        Implicit::Dtor => c.implicit_dtor = Some(fid),
                    }
                }
                fid
            }
        };
        let (r, at) = self
            .ck
            .program
            .get_function(fid)
            .map(|f| (f.restriction, f.span))?;
        if !r.cpu && !r.amp {
            let (what, msvc, fix) = match kind {
                Implicit::Copy => ("copy constructor", "C2558", "copy constructors"),
                Implicit::Assign => ("copy assignment", "C2582", "`operator=`s"),
                Implicit::Dtor => ("destructor", "C2512", "destructors"),
            };
            self.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    span,
                    format!("`{name}` has no {what}: those of its bases and members run in no common context"),
                )
                .with_label(format!("needs the {what} of `{name}`"))
                .with_secondary(at, "class")
                .with_msvc(msvc)
                .with_help(format!("give the bases' and members' {fix} a restriction in common")),
            );
            return None;
        }
        let path = ast::Path {
            global: false,
            segments: vec![ast::Ident {
                name: match kind {
                    Implicit::Copy => format!("{name}::{name}"),
                    Implicit::Assign => format!("{name}::operator="),
                    Implicit::Dtor => format!("{name}::~{name}"),
                },
                span,
            }],
            span,
        };
        if kind != Implicit::Dtor {
            self.check_call_restriction(&path, r, at, span);
        }
        Some(fid)
    }
}

/// The destructor C++ defines for class `id`, which declares none, made now
/// when destroying an object runs code: a base's virtual destructor has it
/// as its overrider, so `delete` through a base pointer runs it.
pub(crate) fn implicit_virtual_dtor(ck: &mut Checker, id: StructId, span: Span) -> Option<FuncId> {
    let info = ck.classes.get(&id)?;
    if info.dtor.is_some() {
        return None;
    }
    if let Some(f) = info.implicit_dtor {
        return Some(f);
    }
    if !ck.dtor_runs_code(id) || ck.has_array_of_special(id) {
        return None;
    }
    let name = info.name.clone();
    let fid = synthesise(ck, id, Implicit::Dtor, &name, span);
    if let Some(c) = ck.classes.get_mut(&id) {
        c.implicit_dtor = Some(fid);
    }
    Some(fid)
}

/// Lowers the implicitly defined member `kind` of class `id`: under
/// `restrict(cpu, amp)` first, then (when its calls allow only one context)
/// again under that one, so that calls overloaded on `restrict` resolve for
/// it.
fn synthesise(ck: &mut Checker, id: StructId, kind: Implicit, name: &str, span: Span) -> FuncId {
    let decl_span = ck.program.get_struct(id).map_or(span, |s| s.span);
    let both = Restriction {
        cpu: true,
        amp: true,
    };
    let source_const = match kind {
        Implicit::Copy => ck.implicit_copy_takes_const(id),
        Implicit::Assign => ck.implicit_assign_takes_const(id),
        Implicit::Dtor => true,
    };
    let placeholder = member_function(id, kind, name, both, source_const, decl_span);
    let fid = crate::declare::reserve_function(ck, placeholder);
    let before = ck.diags.len();
    let (mut func, mut r) = lower_implicit(ck, id, kind, name, both, source_const, decl_span);
    // The class's own destructor bounds where its objects are made.
    if kind == Implicit::Copy
        && let Some(d) = ck.classes.get(&id).and_then(|c| c.dtor)
        && let Some(f) = ck.program.get_function(d)
    {
        r.cpu &= f.restriction.cpu;
        r.amp &= f.restriction.amp;
    }
    if r != both && (r.cpu || r.amp) {
        // The first lowering's reports were for a context it does not run in.
        ck.diags.truncate(before);
        let (again, _) = lower_implicit(ck, id, kind, name, r, source_const, decl_span);
        func = again;
    }
    // The calls it cannot make are reported at its uses, as C++ AMP does.
    drop_restriction_errors(ck, before);
    func.restriction = r;
    *ck.program.function_mut(fid) = func;
    fid
}

/// Drops the restriction errors reported since `before` (while an implicit
/// member was lowered for a context it turns out not to run in); other
/// errors stay.
pub fn drop_restriction_errors(ck: &mut Checker, before: usize) {
    let mut i = 0;
    ck.diags.retain(|d| {
        i += 1;
        i <= before || (d.code != codes::E0300 && d.code != codes::E0301)
    });
}

/// The signature of an implicit member: a copy constructor takes the
/// source; an assignment the object and the source and returns the
/// object; a destructor takes the object.
fn member_function(
    id: StructId,
    kind: Implicit,
    name: &str,
    restriction: Restriction,
    source_const: bool,
    span: Span,
) -> Function {
    let space = if restriction.amp && !restriction.cpu {
        tessera_ir::Space::Private
    } else {
        tessera_ir::Space::Host
    };
    let param = |n: &str, is_const: bool| Local {
        name: n.into(),
        ty: Type::Struct(id),
        by_ref: true,
        is_const,
        space,
        span,
    };
    let (fname, locals, ret, ret_by_ref) = match kind {
        Implicit::Copy => (
            format!("{name}::{name}"),
            vec![param("other", source_const)],
            Type::Struct(id),
            false,
        ),
        Implicit::Assign => (
            format!("{name}::operator="),
            vec![param("this", false), param("other", source_const)],
            Type::Struct(id),
            true,
        ),
        Implicit::Dtor => (
            format!("{name}::~{name}"),
            vec![param("this", false)],
            Type::Void,
            false,
        ),
    };
    Function {
        name: fname,
        kind: FunctionKind::Plain,
        restriction,
        params: locals.len() as u32,
        locals,
        ret,
        ret_by_ref,
        body: None,
        stmt_count: 0,
        span,
    }
}

/// The body of an implicit member under restriction `r`, and the
/// restriction its calls leave (a call overloaded on `restrict` counts for
/// every context one of its overloads runs in).
fn lower_implicit(
    ck: &mut Checker,
    id: StructId,
    kind: Implicit,
    name: &str,
    r: Restriction,
    source_const: bool,
    span: Span,
) -> (Function, Restriction) {
    let func = member_function(id, kind, name, r, source_const, span);
    let mut fcx = FnCx::new(ck, func);
    let fields = fcx.ck.struct_fields(id);
    let mut stmts = Vec::new();
    match kind {
        Implicit::Copy => {
            let space = fcx.local_space();
            let object = fcx.declare(Local {
                name: String::new(),
                ty: Type::Struct(id),
                by_ref: false,
                is_const: false,
                space,
                span,
            });
            stmts.push(Stmt::new(
                StmtKind::Let {
                    local: object,
                    init: Some(Init::Expr(fcx.local_expr(LocalId(0), span))),
                },
                span,
            ));
            for (i, (_, t)) in fields.iter().enumerate() {
                let Type::Struct(m) = t else { continue };
                if !fcx.ck.copy_runs_code(*m) {
                    continue;
                }
                let source = field(fcx.local_expr(LocalId(0), span), i, t, span);
                let value = fcx.copied(source);
                let target = field(fcx.local_expr(object, span), i, t, span);
                let assign = mk(
                    ExprKind::Assign {
                        target: Box::new(target),
                        value: Box::new(value),
                    },
                    t.clone(),
                    true,
                    span,
                );
                stmts.push(Stmt::new(StmtKind::Expr(assign), span));
            }
            let result = fcx.local_expr(object, span);
            stmts.push(Stmt::new(StmtKind::Return(Some(result)), span));
        }
        Implicit::Assign => {
            for (i, (_, t)) in fields.iter().enumerate() {
                let target = field(fcx.local_expr(LocalId(0), span), i, t, span);
                let source = field(fcx.local_expr(LocalId(1), span), i, t, span);
                let e = match t {
                    Type::Struct(m) if fcx.ck.find_methods(*m, "operator=").is_some() => {
                        fcx.class_operator("=", vec![target, source], span)
                    }
                    Type::Struct(m) if fcx.ck.assignment_runs_code(*m) => {
                        fcx.implicit_assign(target, source, span)
                    }
                    _ => mk(
                        ExprKind::Assign {
                            target: Box::new(target),
                            value: Box::new(source),
                        },
                        t.clone(),
                        true,
                        span,
                    ),
                };
                stmts.push(Stmt::new(StmtKind::Expr(e), span));
            }
            let result = fcx.local_expr(LocalId(0), span);
            stmts.push(Stmt::new(StmtKind::Return(Some(result)), span));
        }
        Implicit::Dtor => {
            stmts = fcx.member_dtors(id, LocalId(0), span);
        }
    }
    let block = tessera_ir::Block { stmts };
    let mut left = calls_restriction(fcx.ck, &block);
    // From a const source, a member's assignment runs only where one of its
    // own taking a const source does.
    if kind == Implicit::Assign && source_const {
        for (_, t) in &fields {
            let Type::Struct(m) = t else { continue };
            let copies = fcx.ck.own_copy_assigns(*m);
            if copies.is_empty() {
                continue;
            }
            let mut r = Restriction::default();
            for (runs, takes_const) in copies {
                if takes_const {
                    r.cpu |= runs.cpu;
                    r.amp |= runs.amp;
                }
            }
            left.cpu &= r.cpu;
            left.amp &= r.amp;
        }
    }
    // A copy runs where each base's and member's copy constructor does: one
    // of its own, or the one C++ defines for it.
    if kind == Implicit::Copy {
        left = Restriction {
            cpu: true,
            amp: true,
        };
        for (_, t) in &fields {
            let Type::Struct(m) = t else { continue };
            if !fcx.ck.copy_runs_code(*m) {
                continue;
            }
            let users = fcx.ck.user_copy_ctors(*m);
            let mut r = Restriction::default();
            if users.is_empty() {
                if let Some(f) = fcx
                    .ck
                    .classes
                    .get(m)
                    .and_then(|c| c.implicit_copy)
                    .and_then(|f| fcx.ck.program.get_function(f))
                {
                    r = f.restriction;
                }
            } else {
                // From a const source, only the constructors taking one.
                for u in users {
                    if let Some(f) = fcx.ck.program.get_function(u)
                        && (!source_const || f.locals.first().is_some_and(|p| p.is_const))
                    {
                        r.cpu |= f.restriction.cpu;
                        r.amp |= f.restriction.amp;
                    }
                }
            }
            left.cpu &= r.cpu;
            left.amp &= r.amp;
        }
    }
    let mut func = fcx.func;
    func.body = Some(block);
    (func, left)
}

/// Where every call of `block` may run: a call overloaded on `restrict`
/// (lowered for both contexts) counts for each context one of its
/// overloads runs in.
pub fn calls_restriction(ck: &Checker, block: &tessera_ir::Block) -> Restriction {
    let mut left = Restriction {
        cpu: true,
        amp: true,
    };
    visit::for_each_expr_deep(block, &mut |e: &Expr| {
        if let ExprKind::Call { func: callee, .. } = &e.kind
            && let Some(f) = ck.program.get_function(*callee)
        {
            let mut cr = f.restriction;
            if let Some(ExprKind::Call { func: other, .. }) =
                ck.dual_calls.get(&(e.span, *callee)).map(|d| &d.kind)
                && let Some(o) = ck.program.get_function(*other)
            {
                cr.cpu |= o.restriction.cpu;
                cr.amp |= o.restriction.amp;
            }
            left.cpu &= cr.cpu;
            left.amp &= cr.amp;
        }
    });
    left
}

/// Field `i` (of type `t`) of the object `base`.
fn field(base: Expr, i: usize, t: &Type, span: Span) -> Expr {
    mk(
        ExprKind::Field {
            base: Box::new(base),
            field: i as u32,
        },
        t.clone(),
        true,
        span,
    )
}
