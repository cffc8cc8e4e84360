//! `parallel_for_each`: the launch, the kernel function its lambda becomes,
//! and the lambda's captures (what may be captured, and how).

use crate::cx::{Capturable, FnCx, KernelCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::visit;
use tessera_ir::{
    Block, Expr, ExprKind, FuncId, Function, FunctionKind, Init, Intrinsic, Local, LocalId,
    Program, Restriction, Space, Stmt, StmtKind, Type,
};
use tessera_syntax::ast::{self, ExprKind as K};

/// A capture made by a kernel: name, the local it copies, by reference.
type MadeCapture = (String, LocalId, bool);

/// The function template of `<ppl.h>` that PPL's `parallel_for_each(first,
/// last, f)` over iterators calls (the name is C++ AMP's launch otherwise).
const PPL_FOR_EACH: &str = "concurrency::__ppl_parallel_for_each";

impl FnCx<'_> {
    /// Resolves a name from the function around a kernel lambda: a capture.
    pub(crate) fn capture(&mut self, name: &str, span: Span) -> Option<Expr> {
        let kernel = self.kernel.as_mut()?;
        if let Some(slot) = kernel.made.iter().position(|(n, _, _)| n == name) {
            let ty = self.func_capture_type(slot);
            return Some(mk(ExprKind::Capture(slot as u32), ty, true, span));
        }
        let (_, found) = kernel.outer.iter().rev().find(|(n, _)| n == name)?;
        let Capturable { local, info } = found.clone();
        let explicit = kernel.explicit.iter().find(|(n, _, _)| n == name).cloned();
        let by_ref = match (&explicit, kernel.default_capture) {
            (Some((_, by_ref, _)), _) => *by_ref,
            (None, Some(ast::CaptureDefault::ByValue)) => false,
            (None, Some(ast::CaptureDefault::ByRef)) => true,
            (None, None) => {
                let capture_span = kernel.capture_span;
                self.ck.report(
                    Diagnostic::error(
                        codes::E0200,
                        span,
                        format!("`{name}` is not captured by the kernel"),
                    )
                    .with_label("used here")
                    .with_secondary(capture_span, "capture list")
                    .with_secondary(info.span, "declared outside the lambda")
                    .with_help(format!(
                        "capture it: `[=]` captures everything by value, or list it: `[{name}]`"
                    )),
                );
                return Some(error_expr(span));
            }
        };
        let kernel = self.kernel.as_mut()?;
        let capture_span = explicit.as_ref().map_or(kernel.capture_span, |e| e.2);
        kernel.made.push((name.to_string(), local, by_ref));
        let slot = kernel.made.len() - 1;
        let before = self.ck.diags.len();
        // A lambda that is not amp code (a host lambda used as a value)
        // captures what C++ lets it.
        if self.func.restriction.amp {
            self.check_capture(name, &info, by_ref, capture_span, span);
        }
        // An invalid capture is reported once; its uses are not checked again.
        let ty = if self.ck.diags.len() == before {
            info.ty.clone()
        } else {
            Type::Error
        };
        if let FunctionKind::Kernel { captures, .. } = &mut self.func.kind {
            captures.push(tessera_ir::Capture {
                name: name.to_string(),
                ty: ty.clone(),
                by_ref,
            });
        }
        Some(mk(ExprKind::Capture(slot as u32), ty, true, span))
    }

    fn func_capture_type(&self, slot: usize) -> Type {
        match &self.func.kind {
            FunctionKind::Kernel { captures, .. } => {
                captures.get(slot).map_or(Type::Error, |c| c.ty.clone())
            }
            FunctionKind::Plain => Type::Error,
        }
    }

    /// The capture rules of C++ AMP (E0307, E0308, E0309).
    fn check_capture(
        &mut self,
        name: &str,
        info: &Local,
        by_ref: bool,
        capture_span: Span,
        use_span: Span,
    ) {
        let is_array = matches!(info.ty, Type::Array(..));
        if by_ref && !is_array && !info.ty.is_error() {
            let shown = self.ck.show(&info.ty);
            self.ck.report(
                Diagnostic::error(codes::E0307, use_span, format!("`{name}` is captured by reference; only a `concurrency::array` may be captured by reference"))
                    .with_label(format!("`{name}` is `{shown}`"))
                    .with_secondary(capture_span, "captured by reference here")
                    .with_note("MSVC reports this as C3590; the kernel runs on the accelerator, which cannot reach host variables")
                    .standing_for("C3590")
                    .with_help(if matches!(info.ty, Type::ArrayView { .. }) {
                        "capture views by value (`[=]`): a copy of an `array_view` still refers to the same data".to_string()
                    } else {
                        format!("capture `{name}` by value, and write results through an `array_view` or `array`")
                    }),
            );
        }
        if is_array && !by_ref {
            self.ck.report(
                Diagnostic::error(codes::E0308, use_span, format!("`concurrency::array` `{name}` is captured by value"))
                    .with_label("captured by value")
                    .with_secondary(capture_span, "capture list")
                    .with_note("MSVC reports this as C3597; an `array` owns accelerator memory and cannot be copied into a kernel")
                    .standing_for("C3597")
                    .with_help(format!("capture it by reference: `[=, &{name}]`")),
            );
        }
        let problem = match &info.ty {
            Type::Vector(_) => Some(
                "`std::vector` is host memory; wrap it in an `array_view` and capture the view"
                    .to_string(),
            ),
            Type::Container(kind, _) => Some(format!(
                "`std::{}` is host memory; copy it into an `array` and capture the array",
                kind.name()
            )),
            Type::Ostream
            | Type::WideOstream
            | Type::StringStream(_)
            | Type::Manipulator
            | Type::Str
            | Type::WideStr => Some("streams are host-only".into()),
            // A capture becomes a member of the kernel's closure, and amp
            // code allows no pointer members.
            Type::Ptr { .. } | Type::Null => Some(
                "a kernel cannot capture a pointer; capture the data through an `array_view` instead"
                    .into(),
            ),
            other if other.contains_pointer(&self.ck.program.structs) => Some(
                "a kernel cannot capture data that holds a pointer".into(),
            ),
            other => crate::stmt::kernel_type_problem(self.ck, other),
        };
        if let Some(problem) = problem {
            let shown = self.ck.show(&info.ty);
            self.ck.report(
                Diagnostic::error(
                    codes::E0309,
                    use_span,
                    format!("`{name}` of type `{shown}` cannot be captured by a kernel"),
                )
                .with_label("captured here")
                .with_secondary(info.span, "declared here")
                .with_msvc("C3596")
                .with_help(problem),
            );
        }
    }

    /// `parallel_for_each(domain, [captures](index) restrict(amp) { ... })`.
    /// `parallel_for_each(e, kernel)`, `(view, e, kernel)`, or PPL's
    /// `parallel_for_each(first, last, f)` on the host (see `PPL_FOR_EACH`).
    pub(crate) fn launch(&mut self, path: &ast::Path, args: &[ast::Expr], span: Span) -> Expr {
        let mut on = None;
        let launch = self.launch_on(path, args, span, &mut on);
        match on {
            // `parallel_for_each(view, ...)`: the view is checked first (the
            // CPU accelerator runs no kernel), then the launch runs.
            Some(view) if matches!(launch.kind, ExprKind::Launch { .. }) => {
                let check = mk(
                    ExprKind::Intrinsic {
                        op: tessera_ir::Intrinsic::DeviceLaunchOn,
                        args: vec![view],
                    },
                    Type::Void,
                    false,
                    span,
                );
                mk(
                    ExprKind::Comma {
                        first: Box::new(check),
                        second: Box::new(launch),
                    },
                    Type::Void,
                    false,
                    span,
                )
            }
            _ => launch,
        }
    }

    /// [`Self::launch`], leaving the view of a three-argument call in `on`.
    fn launch_on(
        &mut self,
        path: &ast::Path,
        args: &[ast::Expr],
        span: Span,
        on: &mut Option<Expr>,
    ) -> Expr {
        if self.in_amp() {
            self.ck.report(
                Diagnostic::error(
                    codes::E0310,
                    path.span,
                    "`parallel_for_each` can only be called from host code",
                )
                .with_label("called from amp code")
                .with_note("kernels cannot launch kernels")
                .with_help("launch the second kernel from the host after the first one"),
            );
            return error_expr(span);
        }
        let (domain_ast, lambda_ast) = match args {
            [d, l] => (d, l),
            [view, d, l] => {
                let view = self.expr(view);
                // PPL's `parallel_for_each(first, last, f)` over iterators,
                // from `<ppl.h>`.
                if matches!(
                    view.ty,
                    Type::Iter(_) | Type::Iterator(_) | Type::Ptr { .. } | Type::CArray(..)
                ) && self.is_function_template(PPL_FOR_EACH)
                {
                    let last = self.expr(d);
                    let f = self.expr(l);
                    let path = ast::Path {
                        global: false,
                        segments: vec![ast::Ident {
                            name: PPL_FOR_EACH.into(),
                            span: path.span,
                        }],
                        span: path.span,
                    };
                    return self.call_templates(&path, &[], None, vec![view, last, f], span);
                }
                if view.ty == Type::AcceleratorView {
                    *on = Some(view.clone());
                }
                if !matches!(view.ty, Type::AcceleratorView | Type::Error) {
                    let shown = self.ck.show(&view.ty);
                    self.ck.error(
                        codes::E0203,
                        view.span,
                        format!("mismatched types: the first of three arguments of `parallel_for_each` is an `accelerator_view`, not `{shown}`"),
                        format!("this is `{shown}`"),
                        "pass `acc.default_view`, or leave it out",
                    );
                }
                (d, l)
            }
            _ => {
                self.ck.error(
                    codes::E0206,
                    span,
                    "`parallel_for_each` takes a compute domain and a kernel",
                    "wrong number of arguments",
                    "write `parallel_for_each(e, [=](index<1> i) restrict(amp) { ... });`",
                );
                return error_expr(span);
            }
        };
        let domain = self.expr(domain_ast);
        let (tile, rank) = match &domain.ty {
            Type::Extent(r) => (None, *r),
            Type::TiledExtent(shape) => {
                if !crate::types::check_tile_threads(self.ck, *shape, domain.span) {
                    return error_expr(span);
                }
                (Some(*shape), shape.rank)
            }
            Type::Error => (None, 0),
            other => {
                let shown = self.ck.show(other);
                self.ck.error(
                    codes::E0203,
                    domain.span,
                    format!(
                        "the compute domain must be an `extent` or a `tiled_extent`, not `{shown}`"
                    ),
                    "not a compute domain",
                    "use `view.extent` or `view.extent.tile<16, 16>()`",
                );
                (None, 0)
            }
        };
        let K::Lambda(lambda) = &lambda_ast.kind else {
            let functor = self.expr(lambda_ast);
            if functor.ty.is_error() {
                return error_expr(span);
            }
            if let Some((id, object)) =
                self.functor_kernel(functor, &domain, tile, rank, lambda_ast.span)
            {
                return mk(
                    ExprKind::Launch {
                        domain: Box::new(domain),
                        kernel: id,
                        captures: vec![object],
                    },
                    Type::Void,
                    false,
                    span,
                );
            }
            self.ck.error(
                codes::E0211,
                lambda_ast.span,
                "the kernel must be a lambda or a function object with `operator()`",
                "not a lambda or function object",
                "write `[=](index<1> i) restrict(amp) { ... }`",
            );
            return error_expr(span);
        };
        let kernel = self.kernel_function(lambda, &domain, tile, rank, lambda_ast.span);
        let Some((id, made)) = kernel else {
            return error_expr(span);
        };
        let captures: Vec<Expr> = made
            .iter()
            .map(|(_, local, _)| self.local_expr(*local, lambda_ast.span))
            .collect();
        mk(
            ExprKind::Launch {
                domain: Box::new(domain),
                kernel: id,
                captures,
            },
            Type::Void,
            false,
            span,
        )
    }

    fn kernel_function(
        &mut self,
        lambda: &ast::Lambda,
        domain: &Expr,
        tile: Option<tessera_ir::TileShape>,
        rank: u8,
        span: Span,
    ) -> Option<(FuncId, Vec<MadeCapture>)> {
        let domain_span = domain.span;
        let domain = &domain.ty;
        let restriction = crate::declare::restriction(self.ck, lambda.restrict.as_ref());
        crate::declare::check_exception_spec(self.ck, lambda.exception_spec, restriction);
        if !restriction.amp {
            let at = lambda
                .restrict
                .as_ref()
                .map_or(lambda.capture_span, |r| r.span);
            self.ck.report(
                Diagnostic::error(codes::E0312, at, "the kernel must be `restrict(amp)`")
                    .with_label(if lambda.restrict.is_some() {
                        "restricted to the host"
                    } else {
                        "no `restrict(amp)` clause"
                    })
                    .with_msvc("C3577")
                    .with_help("add `restrict(amp)` after the parameter list"),
            );
        }
        if let Some(ret) = &lambda.ret
            && !matches!(ret.specs.ty, ast::BaseType::Builtin(ast::Builtin::Void))
        {
            self.ck.error(
                codes::E0312,
                ret.span,
                "a kernel returns `void`",
                "return type",
                "remove `-> T`",
            );
        }
        let expected = match tile {
            Some(shape) => Type::TiledIndex(shape),
            None => Type::Index(rank),
        };
        let param = match lambda.params.as_slice() {
            [p] => Some(p),
            _ => {
                let shown = self.ck.show(&expected);
                let at = lambda.params.get(1).map_or(lambda.capture_span, |p| p.span);
                self.ck.error(
                    codes::E0312,
                    at,
                    format!(
                        "a kernel takes exactly one parameter, the index; it has {}",
                        lambda.params.len()
                    ),
                    "kernel",
                    format!("write `({shown} idx)`"),
                );
                None
            }
        };
        let (param_ty, param_name) = self.kernel_param(param, domain_span, domain, &expected);
        // Visible locals of the function around the lambda, for captures.
        let mut outer: Vec<(String, Capturable)> = Vec::new();
        for scope in &self.scopes {
            for (name, id) in scope {
                if let Some(info) = self.local(*id) {
                    outer.push((
                        name.clone(),
                        Capturable {
                            local: *id,
                            info: info.clone(),
                        },
                    ));
                }
            }
        }
        let explicit = self.explicit_captures(lambda, &outer);
        let func = Function {
            name: "<kernel>".into(),
            kind: FunctionKind::Kernel {
                tile,
                captures: Vec::new(),
            },
            restriction: Restriction {
                amp: true,
                cpu: restriction.cpu,
            },
            params: 1,
            locals: vec![Local {
                name: param_name.clone(),
                ty: param_ty,
                by_ref: false,
                // The lambda's parameter is a copy the kernel owns: const only
                // when declared so (a `tiled_index`'s members stay const).
                is_const: param.is_none_or(|p| self.ck.specs_const(&p.specs)),
                space: Space::Private,
                span: param.map_or(span, |p| p.span),
            }],
            ret: Type::Void,
            ret_by_ref: false,
            body: None,
            stmt_count: 0,
            span,
        };
        let outer_consts = self.visible_consts().locals;
        let id = crate::declare::reserve_function(self.ck, func.clone());
        let mut kcx = FnCx::new(self.ck, func);
        if !param_name.is_empty() {
            kcx.scopes[0].insert(param_name, LocalId(0));
        }
        // Extra parameters (already reported) stay visible so that their uses
        // are not reported again as unknown names.
        for p in lambda.params.iter().skip(1) {
            let d = kcx.resolve(&p.specs, &p.declarator.modifiers, &p.declarator.array_dims);
            if let Some(n) = &p.declarator.name {
                kcx.declare(Local {
                    name: n.name.clone(),
                    ty: d.ty,
                    by_ref: d.by_ref,
                    is_const: false,
                    space: Space::Private,
                    span: p.span,
                });
            }
        }
        kcx.kernel = Some(KernelCx {
            outer,
            default_capture: lambda.default_capture,
            is_mutable: lambda.is_mutable,
            outer_consts,
            explicit,
            made: Vec::new(),
            capture_span: lambda.capture_span,
        });
        let body = kcx.block(&lambda.body);
        let made = kcx.kernel.take().map(|k| k.made).unwrap_or_default();
        let mut func = kcx.func;
        func.body = Some(body);
        if lambda.is_mutable {
            let head = lambda
                .restrict
                .as_ref()
                .map_or(lambda.capture_span, |r| lambda.capture_span.to(r.span));
            self.ck
                .report(non_const_kernel_warning(head, "the lambda is `mutable`"));
            privatize_captures(&self.ck.program, &mut func, span);
        }
        *self.ck.program.function_mut(id) = func;
        Some((id, made))
    }

    /// The kernel's index parameter: its type (the one the domain passes,
    /// after reporting a mismatch) and its name.
    fn kernel_param(
        &mut self,
        param: Option<&ast::Param>,
        domain_span: Span,
        domain: &Type,
        expected: &Type,
    ) -> (Type, String) {
        let mut param_ty = Type::Error;
        let mut param_name = String::new();
        if let Some(p) = param {
            let d = self.resolve(&p.specs, &p.declarator.modifiers, &p.declarator.array_dims);
            param_ty = d.ty;
            param_name = p
                .declarator
                .name
                .as_ref()
                .map_or_else(String::new, |n| n.name.clone());
            if !param_ty.is_error() && !domain.is_error() && param_ty != *expected {
                let (got, want, dom) = (
                    self.ck.show(&param_ty),
                    self.ck.show(expected),
                    self.ck.show(domain),
                );
                let hint = match (&param_ty, expected) {
                    (Type::TiledIndex(a), Type::TiledIndex(b)) if a.rank == b.rank => {
                        format!("the tile is <{b}>, the index says <{a}>")
                    }
                    (Type::Index(_), Type::TiledIndex(_)) => {
                        "a tiled launch passes a `tiled_index`".into()
                    }
                    (Type::TiledIndex(_), Type::Index(_)) => {
                        "only a tiled extent (`e.tile<...>()`) passes a `tiled_index`".into()
                    }
                    _ => "the index's rank must be the extent's".into(),
                };
                self.ck.report(
                    Diagnostic::error(codes::E0400, p.span, format!("the kernel takes `{got}`, but the compute domain `{dom}` passes `{want}`"))
                        .with_label(format!("should be `{want}`"))
                        .with_secondary(domain_span, format!("the compute domain is `{dom}`"))
                        .with_note(hint)
                        .with_msvc("C3577")
                        .with_help(format!("declare the parameter as `{want}`")),
                );
                param_ty = expected.clone();
            }
        }
        (param_ty, param_name)
    }

    /// The lambda's explicit captures that name visible locals (the others
    /// are reported): name, by reference, span.
    fn explicit_captures(
        &mut self,
        lambda: &ast::Lambda,
        outer: &[(String, Capturable)],
    ) -> Vec<(String, bool, Span)> {
        // A kernel inside a kernel is reported above; an enclosing kernel's
        // captures are not visible here.
        let mut explicit = Vec::new();
        for c in &lambda.captures {
            if c.name.name == "this" {
                self.ck.error(
                    codes::E0307,
                    c.span,
                    "a kernel cannot capture `this`",
                    "`this` capture",
                    "",
                );
                continue;
            }
            if !outer.iter().any(|(n, _)| n == &c.name.name) {
                self.ck.error(
                    codes::E0200,
                    c.name.span,
                    format!("cannot capture `{}`: no such local variable", c.name.name),
                    "not declared",
                    "",
                );
                continue;
            }
            explicit.push((c.name.name.clone(), c.by_ref, c.span));
        }
        explicit
    }
}

/// W0315 for a kernel whose call operator is not `const`, at `at`.
pub(crate) fn non_const_kernel_warning(at: Span, why: &str) -> Diagnostic {
    Diagnostic::warning(
        codes::W0315,
        at,
        "the kernel's call operator is not `const`: each work-item changes only its own copy of what the kernel holds",
    )
    .with_label(why)
    .with_msvc("C4882")
    .with_note("C++ AMP deprecates kernels that are not `const`: a change one work-item makes to a captured value is seen neither by the other work-items nor by the host")
    .with_help("make the kernel `const` (drop `mutable`, or declare `operator()` `const`) and keep what changes in a local variable or write it through an `array_view`")
}

/// Gives each work-item of a kernel whose call operator is not `const` its
/// own copy of every value it captured: the by-value captures become
/// locals of the kernel, copied from the captured values before the body
/// runs, and the body uses the locals. C++ AMP runs each work-item on its
/// own copy of the kernel object, so a change to one is seen only by the
/// work-item that made it, never by another or by the host; a
/// `concurrency::array`, captured by reference, stays shared. Captures the
/// body cannot change stay as they are: a copy of them would be the same.
pub(crate) fn privatize_captures(program: &Program, func: &mut Function, span: Span) {
    let FunctionKind::Kernel { captures, .. } = &func.kind else {
        return;
    };
    let changed = match &func.body {
        Some(body) => changed_captures(body, captures.len(), &func.locals, program),
        None => return,
    };
    let mut copies: Vec<Option<LocalId>> = Vec::with_capacity(captures.len());
    let mut lets = Vec::new();
    for (slot, c) in captures.iter().enumerate() {
        if c.by_ref || c.ty.is_error() || !changed[slot] {
            copies.push(None);
            continue;
        }
        let id = LocalId(func.locals.len() as u32);
        func.locals.push(Local {
            name: c.name.clone(),
            ty: c.ty.clone(),
            by_ref: false,
            is_const: false,
            space: Space::Private,
            span,
        });
        let value = mk(ExprKind::Capture(slot as u32), c.ty.clone(), true, span);
        lets.push(Stmt::new(
            StmtKind::Let {
                local: id,
                init: Some(Init::Expr(value)),
            },
            span,
        ));
        copies.push(Some(id));
    }
    if lets.is_empty() {
        return;
    }
    fn redirect(e: &mut Expr, copies: &[Option<LocalId>]) {
        if let ExprKind::Capture(slot) = e.kind
            && let Some(Some(id)) = copies.get(slot as usize)
        {
            e.kind = ExprKind::Local(*id);
            return;
        }
        visit::for_each_child_mut(e, &mut |c| redirect(c, copies));
    }
    if let Some(body) = &mut func.body {
        visit::for_each_stmt_expr_mut(body, &mut |e| redirect(e, &copies));
        lets.append(&mut body.stmts);
        body.stmts = lets;
    }
}

/// For each of `count` capture slots, whether `body` may change the
/// captured object itself (not the data a captured view refers to): it is
/// assigned, incremented, bound to a reference that is not `const` (a
/// `let`, or an argument, `this` included, of a function taking one),
/// handed to a library operation that may write it, or has its address
/// taken for a pointer that is not to `const`. The answer errs towards
/// "changed", which only costs a copy.
fn changed_captures(body: &Block, count: usize, locals: &[Local], program: &Program) -> Vec<bool> {
    /// The capture slots whose object the place `e` lies in.
    fn roots(e: &Expr, out: &mut Vec<bool>) {
        match &e.kind {
            ExprKind::Capture(slot) => {
                if let Some(flag) = out.get_mut(*slot as usize) {
                    *flag = true;
                }
            }
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => roots(base, out),
            ExprKind::Convert(inner) => roots(inner, out),
            // A view's elements are not the view.
            ExprKind::Intrinsic {
                op: Intrinsic::ViewElement | Intrinsic::ViewProject,
                ..
            } => {}
            ExprKind::Intrinsic { args, .. } => {
                if let Some(first) = args.first() {
                    roots(first, out);
                }
            }
            _ => visit::for_each_child(e, &mut |c| {
                if c.place {
                    roots(c, out);
                }
            }),
        }
    }
    let mutable_ref = |l: Option<&Local>| l.is_some_and(|l| l.by_ref && !l.is_const);
    let out = std::cell::RefCell::new(vec![false; count]);
    visit::walk_block(
        body,
        &mut |s| {
            if let StmtKind::Let {
                local,
                init: Some(Init::Expr(e) | Init::Ref(e)),
            } = &s.kind
                && mutable_ref(locals.get(local.index()))
            {
                roots(e, &mut out.borrow_mut());
            }
        },
        &mut |e| match &e.kind {
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => roots(target, &mut out.borrow_mut()),
            ExprKind::AddrOf(target) if !matches!(e.ty, Type::Ptr { is_const: true, .. }) => {
                roots(target, &mut out.borrow_mut())
            }
            ExprKind::Call { func, args } => {
                let callee = program.get_function(*func);
                for (k, a) in args.iter().enumerate() {
                    if a.place && callee.is_none_or(|f| mutable_ref(f.locals.get(k))) {
                        roots(a, &mut out.borrow_mut());
                    }
                }
            }
            // Reading a view or a shape component leaves the object as it
            // is; any other library operation on a place may write it.
            ExprKind::Intrinsic { op, args } if !reads_only(op) => {
                for a in args.iter().filter(|a| a.place) {
                    roots(a, &mut out.borrow_mut());
                }
            }
            _ => {}
        },
    );
    out.into_inner()
}

/// Library operations that read their place operands and change none.
fn reads_only(op: &Intrinsic) -> bool {
    matches!(
        op,
        Intrinsic::Math(_)
            | Intrinsic::ViewElement
            | Intrinsic::ViewProject
            | Intrinsic::ViewExtent
            | Intrinsic::ViewSection
            | Intrinsic::ViewAs
            | Intrinsic::ReinterpretAs
            | Intrinsic::ShapeComponent
    )
}
