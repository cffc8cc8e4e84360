//! Member accesses and calls: overload choice among user functions, the
//! library's members and functions, and the restriction contexts a call
//! must respect (`restrict(cpu)` code calling `restrict(amp)` functions and
//! the reverse).

use crate::cx::{FnCx, error_expr};
use crate::expr::mk;
use crate::library;
use crate::overload::{self, Arg, Param, Resolution, Sequence};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, ExprKind, FuncId, Local, Restriction, Type};
use tessera_syntax::ast::{self, ExprKind as K, UnaryOp as U};

impl FnCx<'_> {
    pub(crate) fn member(
        &mut self,
        base: Expr,
        name: &ast::Ident,
        template_args: Option<&[ast::TemplateArg]>,
        span: Span,
    ) -> Expr {
        if let Type::Struct(id) = base.ty {
            // `obj.count` for a static data member: the object only names
            // the class (evaluating it has no effect when it is pure).
            if self.ck.find_field(id, &name.name).is_none()
                && library::is_pure(&base)
                && let Some(e) = self.static_member(id, &name.name, span)
            {
                return e;
            }
            // A property (`v.xy` of a short vector): its getter.
            if let Some(getter) = self.ck.property_accessor(id, &name.name, false) {
                let ident = ast::Ident {
                    name: getter,
                    span: name.span,
                };
                return self
                    .method_call_with(base, id, &ident, None, Vec::new(), span)
                    .unwrap_or_else(|| error_expr(span));
            }
            if let Some(e) = self.class_field(base, id, name, span) {
                return e;
            }
            let sname = self.ck.show(&Type::Struct(id));
            if self.ck.find_methods(id, &name.name).is_some() {
                self.ck.error(
                    codes::E0208,
                    name.span,
                    format!("`{sname}::{}` is a member function; call it", name.name),
                    "member function used as a value",
                    "add the arguments: `obj.f(x)`",
                );
            } else {
                self.ck.error(
                    codes::E0207,
                    name.span,
                    format!("`{sname}` has no member `{}`", name.name),
                    "unknown member",
                    "",
                );
            }
            return error_expr(span);
        }
        if base.ty.is_error() {
            return error_expr(span);
        }
        library::member(self, base, name, template_args, span)
    }

    pub(crate) fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> Expr {
        match &callee.kind {
            // `(object.*pointer)(args)`, `(p->*pointer)(args)`.
            K::Binary {
                op: op @ (ast::BinaryOp::MemberPointer | ast::BinaryOp::MemberPointerArrow),
                lhs,
                rhs,
            } => {
                let mut object = self.expr(lhs);
                if *op == ast::BinaryOp::MemberPointerArrow && !object.ty.is_error() {
                    let ospan = object.span;
                    object = self.deref(object, ospan);
                }
                let pointer = self.expr(rhs);
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                return self.call_member_pointer(object, pointer, lowered, span);
            }
            K::Name(path) if path.last() == "parallel_for_each" => {
                if !crate::library::headers::declared(self.ck, path) {
                    return error_expr(span);
                }
                return self.launch(path, args, span);
            }
            // A name of namespace `std` (or of C++ AMP's) is the library's,
            // whether built in or written in a header's text: it needs
            // the header that declares it.
            K::Name(path)
                if crate::library::headers::is_library_namespace(path)
                    && !crate::library::headers::declared(self.ck, path) =>
            {
                return error_expr(span);
            }
            // C++ AMP's atomics take the address of the location: `atomic_fetch_add(&x, 1)`.
            // Tessera has no pointers, so the place itself is passed on.
            K::Name(path) if library::takes_address(path) => {
                let lowered: Vec<Expr> = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let is_location =
                            i == 0 || (i == 1 && path.last() == "atomic_compare_exchange");
                        match &a.kind {
                            K::Unary {
                                op: U::AddrOf,
                                operand,
                            } if is_location => self.expr(operand),
                            _ if is_location => {
                                // A pointer to the location: `atomic_fetch_add(p, 1)`.
                                let lowered = self.expr(a);
                                if let Type::Ptr { .. } = lowered.ty {
                                    return self.deref(lowered, a.span);
                                }
                                if lowered.ty.is_error() {
                                    return error_expr(a.span);
                                }
                                self.ck.error(
                                    codes::E0203,
                                    a.span,
                                    format!("`{}` takes the address of the location", path.text()),
                                    "a value, not an address",
                                    "write `&x` (for example `&counts[i]`)",
                                );
                                error_expr(a.span)
                            }
                            _ => self.expr(a),
                        }
                    })
                    .collect();
                return library::call(self, path, lowered, span);
            }
            K::Name(path)
                if path.segments.len() == 1
                    && (path.global || self.lookup_local(path.last()).is_none()) =>
            {
                // Inside a member function, the class's members come first
                // (not for `::f`, which names the global scope's).
                if !path.global
                    && let Some(class) = self.current_class()
                    && (self.ck.find_methods(class, path.last()).is_some()
                        || self
                            .ck
                            .classes
                            .get(&class)
                            .is_some_and(|c| c.member_templates.contains_key(path.last())))
                {
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    if let Some(call) = self.implicit_method_call(path.last(), lowered, span) {
                        return call;
                    }
                }
                // `operator+(a, b)` named is `a + b` (the program's operator
                // functions and the library's, for index and extent), but
                // no function is named so for two numbers.
                if let Some(symbol) = path.last().strip_prefix("operator")
                    && let [a, b] = args
                    && let Some(op) = binary_op_named(symbol)
                {
                    let height = a.height.max(b.height).saturating_add(1);
                    let e = ast::Expr {
                        kind: ast::ExprKind::Binary {
                            op,
                            lhs: Box::new(a.clone()),
                            rhs: Box::new(b.clone()),
                        },
                        span,
                        height,
                    };
                    let lowered = self.expr(&e);
                    // The built-in operator on two numbers: no function.
                    if let ExprKind::Binary { lhs, rhs, .. } = &lowered.kind
                        && let (Type::Scalar(ta), Type::Scalar(tb)) = (&lhs.ty, &rhs.ty)
                    {
                        self.ck.error(
                            codes::E0200,
                            path.span,
                            format!(
                                "no function `{}` takes ({}, {})",
                                path.last(),
                                ta.name(),
                                tb.name()
                            ),
                            "not declared for these types",
                            format!("write the operator itself: `a {symbol} b`"),
                        );
                        return error_expr(span);
                    }
                    return lowered;
                }
                if let Some((written, flats)) = self.ck.overload_sets.get(path.last()).cloned() {
                    return self.call_overload_set(path, &written, &flats, args, span);
                }
                if self.is_function_template(path.last()) {
                    let plain = self
                        .ck
                        .functions
                        .get(path.last())
                        .cloned()
                        .unwrap_or_default();
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    // An algorithm the built-in library runs itself in this
                    // form (`std::sort(b, e)` of numbers) beside the
                    // templates of `<algorithm>` (`std::sort(b, e, comp)`).
                    if let Some(algorithm) = path.last().strip_prefix("std::")
                        && library::builtin_algorithm_form(algorithm, &lowered)
                    {
                        let std_path = ast::Path {
                            global: false,
                            segments: ["std", algorithm]
                                .iter()
                                .map(|n| ast::Ident {
                                    name: n.to_string(),
                                    span: path.span,
                                })
                                .collect(),
                            span: path.span,
                        };
                        return library::call(self, &std_path, lowered, span);
                    }
                    return self.call_templates(path, &plain, None, lowered, span);
                }
                if let Some(ids) = self.ck.functions.get(path.last()).cloned() {
                    let lowered = self.arguments_for(&ids, args);
                    return self.call_user(path, &ids, lowered, span, false);
                }
            }
            K::Member {
                base,
                name,
                arrow,
                template_args,
            } if !(*arrow && matches!(base.kind, K::This)) => {
                let mut base = self.expr(base);
                if *arrow && !base.ty.is_error() {
                    // `p->f(x)` is `(*p).f(x)`, or a class's `operator->`.
                    base = self.arrow_object(base, span);
                }
                if base.ty.is_error() {
                    return error_expr(span);
                }
                if name.name.starts_with('~') {
                    if !args.is_empty() {
                        self.ck.error(
                            codes::E0206,
                            span,
                            "a destructor takes no arguments",
                            "arguments",
                            "",
                        );
                    }
                    return self.explicit_destroy(base, name, span);
                }
                if library::random::kind_of(self.ck, &base.ty).is_some() {
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    return library::random::method(self, base, name, lowered, span);
                }
                if library::task::result_of(self.ck, &base.ty).is_some() {
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    return library::task::method(self, base, name, lowered, span);
                }
                if library::future::is_future(self.ck, &base.ty) {
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    return library::future::method(self, base, name, lowered, span);
                }
                if !matches!(base.ty, Type::Struct(_)) {
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    return library::method(
                        self,
                        base,
                        name,
                        template_args.as_deref(),
                        lowered,
                        span,
                    );
                }
                let Type::Struct(id) = base.ty else {
                    return error_expr(span);
                };
                // `s.view(i, j)`: calling a data member (a view) is fine.
                if self.ck.find_field(id, &name.name).is_some() {
                    let member_span = base.span.to(name.span);
                    let callee = self.member(base, name, None, member_span);
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    if callee.ty.is_error() {
                        return error_expr(span);
                    }
                    if let Type::Struct(_) = callee.ty {
                        return self.call_object(callee, lowered, span);
                    }
                    return library::call_value(self, callee, lowered, span);
                }
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                if let Some(call) =
                    self.method_call_with(base, id, name, template_args.as_deref(), lowered, span)
                {
                    return call;
                }
                let sname = self.ck.show(&Type::Struct(id));
                self.ck.error(
                    codes::E0207,
                    name.span,
                    format!("`{sname}` has no member `{}`", name.name),
                    "unknown member",
                    "",
                );
                return error_expr(span);
            }
            K::Member {
                base,
                name,
                arrow: true,
                ..
            } if matches!(base.kind, K::This) => {
                let Some(object) = self.this_object(base.span) else {
                    return self.expr(callee);
                };
                let Type::Struct(id) = object.ty else {
                    return error_expr(span);
                };
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                if self.ck.find_field(id, &name.name).is_none()
                    && let Some(call) = self.method_call(object, id, name, lowered, span)
                {
                    return call;
                }
                let callee = self.expr(callee);
                if callee.ty.is_error() {
                    return error_expr(span);
                }
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                return library::call_value(self, callee, lowered, span);
            }
            // `Vec<float>::make()`: a static member function of an instance.
            K::TypeMember {
                ty,
                member,
                template_args,
            } => {
                let d = self.resolve(&ty.specs, &ty.modifiers, &[]);
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                let Type::Struct(class) = d.ty else {
                    return error_expr(span);
                };
                if let Some(call) = self.qualified_method_call(
                    class,
                    &member.name,
                    template_args.as_deref(),
                    lowered,
                    span,
                ) {
                    return call;
                }
                let shown = self.ck.show(&d.ty);
                self.ck.error(
                    codes::E0207,
                    member.span,
                    format!("`{shown}` has no member function `{}`", member.name),
                    "unknown member",
                    "",
                );
                return error_expr(span);
            }
            // `Point::origin()`, `Base::f()`, and `T::f()` where a template's
            // type parameter (or another alias) names a class.
            K::Name(path)
                if path.segments.len() == 2
                    && self.class_named(&path.segments[0].name).is_some() =>
            {
                let Some(class) = self.class_named(&path.segments[0].name) else {
                    return error_expr(span);
                };
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                if let Some(call) =
                    self.qualified_method_call(class, path.last(), None, lowered, span)
                {
                    return call;
                }
                self.ck.error(
                    codes::E0207,
                    path.segments[1].span,
                    format!(
                        "`{}` has no member function `{}`",
                        path.segments[0].name,
                        path.last()
                    ),
                    "unknown member",
                    "",
                );
                return error_expr(span);
            }
            _ => {}
        }
        // A qualified name (`::f`, `N::f`) never names a local or a capture.
        if let K::Name(path) = &callee.kind
            && ((path.global || path.segments.len() > 1)
                || (self.lookup_local(path.last()).is_none()
                    && self
                        .kernel
                        .as_ref()
                        .is_none_or(|k| !k.outer.iter().any(|(n, _)| n == path.last()))))
            && !self.ck.globals.contains_key(path.last())
        {
            let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
            // Argument-dependent lookup: `require_device(flags)` finds the
            // function in the namespace of its argument's class.
            if path.segments.len() == 1 && !path.global {
                let found = self.argument_dependent(path.last(), &lowered);
                if !found.is_empty() {
                    return self.call_set(path, &found, lowered, span);
                }
            }
            return library::call(self, path, lowered, span);
        }
        let callee = self.expr(callee);
        let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        if callee.ty.is_error() {
            return error_expr(span);
        }
        if let Type::Struct(_) = callee.ty {
            return self.call_object(callee, lowered, span);
        }
        library::call_value(self, callee, lowered, span)
    }

    /// `f(args)` where the unqualified `f` names functions (and function
    /// templates) of several namespaces, `flats`: one overload set.
    fn call_overload_set(
        &mut self,
        path: &ast::Path,
        written: &str,
        flats: &[String],
        args: &[ast::Expr],
        span: Span,
    ) -> Expr {
        let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        // Diagnostics name the function as written.
        let shown = ast::Path {
            global: false,
            segments: vec![ast::Ident {
                name: written.to_string(),
                span: path.span,
            }],
            span: path.span,
        };
        self.call_set(&shown, flats, lowered, span)
    }

    /// Calls the best of the functions and function templates named by
    /// each of `flats` (flat names), as one overload set named `path`.
    fn call_set(
        &mut self,
        path: &ast::Path,
        flats: &[String],
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let args: Vec<Expr> = args
            .into_iter()
            .map(|a| crate::library::materialize_iterator(self, a))
            .collect();
        let mut plain = Vec::new();
        let mut instances = Vec::new();
        for flat in flats {
            plain.extend(self.ck.functions.get(flat).cloned().unwrap_or_default());
            instances.extend(self.template_instances(flat, &[], &args, span));
        }
        self.call_candidates(path, &plain, instances, args, span)
    }

    /// The functions named `name` in the namespaces of the arguments'
    /// classes, by flat name ([basic.lookup.argdep], for classes only).
    fn argument_dependent(&self, name: &str, args: &[Expr]) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for a in args {
            let mut ty = &a.ty;
            while let Type::Ptr { elem, .. } | Type::CArray(elem, _) = ty {
                ty = elem;
            }
            let Type::Struct(id) = ty else { continue };
            let Some(def) = self.ck.program.get_struct(*id) else {
                continue;
            };
            let Some(ns) = namespace_of(&def.name) else {
                continue;
            };
            let flat = format!("{ns}::{name}");
            if (self.ck.functions.contains_key(&flat)
                || self.ck.templates.functions.contains_key(&flat))
                && !found.contains(&flat)
            {
                found.push(flat);
            }
        }
        found
    }

    /// `f(args)` where `f` is a class object: its `operator()`.
    /// A call of a value with `args`: a function object's `operator()`
    /// (a lambda's), for library functions that call what they are given.
    pub(crate) fn call_callable(&mut self, callee: Expr, args: Vec<Expr>, span: Span) -> Expr {
        if callee.ty.is_error() {
            return error_expr(span);
        }
        self.call_object(callee, args, span)
    }

    pub(crate) fn call_object(&mut self, callee: Expr, args: Vec<Expr>, span: Span) -> Expr {
        if library::random::kind_of(self.ck, &callee.ty).is_some() {
            return library::random::call(self, callee, args, span);
        }
        let shown = self.ck.show(&callee.ty);
        let callee_span = callee.span;
        let mut operands = vec![callee];
        operands.extend(args);
        match self.user_operator("()", operands, span) {
            Ok(call) => call,
            Err(_) => {
                self.ck.error(
                    codes::E0208,
                    callee_span,
                    format!("`{shown}` has no `operator()`; it cannot be called"),
                    "not a function",
                    "",
                );
                error_expr(span)
            }
        }
    }

    /// A default argument must call only functions that can run where the
    /// call is (it was bound where it is written: MSVC C3931).
    fn check_default_restriction(&mut self, value: &Expr, at: Span, call: Span) {
        let here = self.restriction();
        if here.cpu {
            let mut amp_only = None;
            tessera_ir::visit::for_each_subexpr(value, &mut |e| {
                if let ExprKind::Call { func, .. } = &e.kind
                    && let Some(f) = self.ck.program.get_function(*func)
                    && !f.restriction.cpu
                    && amp_only.is_none()
                {
                    amp_only = Some(f.name.clone());
                }
            });
            if let Some(name) = amp_only {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0301,
                        call,
                        format!(
                            "this call's default argument calls `{name}`, which runs only on the accelerator"
                        ),
                    )
                    .with_label("default argument used in host code")
                    .with_secondary(at, "default argument, bound as amp code")
                    .with_msvc("C3931")
                    .with_help("pass the argument explicitly in host code"),
                );
            }
        }
        if !here.amp {
            return;
        }
        let mut host_only = None;
        let mut global = None;
        tessera_ir::visit::for_each_subexpr(value, &mut |e| {
            if let ExprKind::Global(g) = &e.kind
                && let Some(gl) = self.ck.program.get_global(*g)
                && !self.ck.global_consts.contains_key(g)
                && global.is_none()
            {
                global = Some(gl.name.clone());
            }
            if let ExprKind::Call { func, .. } = &e.kind
                && let Some(f) = self.ck.program.get_function(*func)
                && !f.restriction.amp
                && host_only.is_none()
            {
                host_only = Some(f.name.clone());
            }
        });
        if let Some(name) = global {
            self.ck.report(
                Diagnostic::error(
                    codes::E0305,
                    call,
                    format!("this call's default argument reads the global variable `{name}`, which amp code cannot"),
                )
                .with_label("default argument used in amp code")
                .with_secondary(at, "default argument")
                .with_msvc("C3586")
                .with_help("pass the argument explicitly in amp code"),
            );
        }
        if let Some(name) = host_only {
            self.ck.report(
                Diagnostic::error(
                    codes::E0300,
                    call,
                    format!(
                        "this call's default argument calls `{name}`, which runs only on the host"
                    ),
                )
                .with_label("default argument used in amp code")
                .with_secondary(at, "default argument, bound as host code")
                .with_msvc("C3931")
                .with_help("pass the argument explicitly in amp code"),
            );
        }
    }

    /// Calls the best of the user functions `ids` for `args`. With `object`,
    /// the first argument is the object a member function is called on (or
    /// an operator's left operand), which C++ lets a non-const member bind
    /// even when it is a temporary.
    pub(crate) fn call_user(
        &mut self,
        path: &ast::Path,
        ids: &[FuncId],
        mut args: Vec<Expr>,
        span: Span,
        object: bool,
    ) -> Expr {
        // A vector's iterator passed to a user function is a pointer to its
        // element there.
        args = args
            .into_iter()
            .map(|a| crate::library::materialize_iterator(self, a))
            .collect();
        if let Some(e) = self.call_in_both_contexts(path, ids, &args, span, object) {
            return e;
        }
        // Overloads: by arity (default arguments included), then by
        // restriction fitting the caller (C++ AMP allows overloading on
        // `restrict`).
        let here = self.restriction();
        let candidates: Vec<FuncId> = ids
            .iter()
            .copied()
            .filter(|id| {
                self.ck.program.get_function(*id).is_some_and(|f| {
                    let n = f.params as usize;
                    args.len() <= n && args.len() + self.defaulted_count(*id) >= n
                })
            })
            .collect();
        // Overloads of different arities that the call fits through default
        // arguments are ranked on the arguments written only, as C++ does
        // (their parameter lists are cut to the call's length): `f(int, int
        // = 0)` against `f(double)` for `f(1)` picks the first, against
        // `f(int)` it is ambiguous.
        let Some(&first) = candidates.first() else {
            let f = ids.first().and_then(|id| self.ck.program.get_function(*id));
            let (n, decl) = f.map_or((0, span), |f| (f.params, f.span));
            let optional = ids.first().map_or(0, |id| self.defaulted_count(*id)) as u32;
            let takes = if optional > 0 {
                format!("{} to {n}", n - optional.min(n))
            } else {
                n.to_string()
            };
            let mut d = Diagnostic::error(
                codes::E0206,
                span,
                format!(
                    "`{}` takes {takes} argument{}, but {} {} given",
                    path.text(),
                    if n == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
            )
            .with_label("wrong number of arguments");
            // The library's classes (`std::exception`) are declared nowhere
            // in the program.
            if decl != Span::default() {
                d = d.with_secondary(decl, "declared here");
            }
            self.ck.report(d);
            return error_expr(span);
        };
        let fits = |r: Restriction| {
            (here.amp && r.amp)
                || (here.cpu && r.cpu && !here.amp)
                || (here.cpu && here.amp && r.cpu && r.amp)
        };
        let fitting: Vec<FuncId> = candidates
            .iter()
            .copied()
            .filter(|id| {
                self.ck
                    .program
                    .get_function(*id)
                    .is_some_and(|f| fits(f.restriction))
            })
            .collect();
        let chosen = match fitting.as_slice() {
            // None fits where it is called: the restriction check reports it.
            [] => first,
            [one] => *one,
            several => match self.overload(path, several, &args, span, object) {
                Some(id) => id,
                None => return error_expr(span),
            },
        };
        if self.ck.unevaluated == 0 {
            crate::template::ensure_body(self.ck, chosen, span);
        }
        let Some(f) = self.ck.program.get_function(chosen) else {
            return error_expr(span);
        };
        let (restriction, decl_span, ret, ret_by_ref) =
            (f.restriction, f.span, f.ret.clone(), f.ret_by_ref);
        let params: Vec<Local> = f.locals.iter().take(f.params as usize).cloned().collect();
        // A free operator function's left operand is an argument like any
        // other, converted to its parameter; only a member's object is
        // bound as it is.
        let object = object && params.first().is_some_and(|l| l.name == "this");
        self.check_call_restriction(path, restriction, decl_span, span);
        if !self.ck.enums.is_empty() {
            let param_enums = self
                .ck
                .enum_sigs
                .get(&chosen)
                .map(|(_, p)| p.clone())
                .unwrap_or_default();
            for (i, (arg, p)) in args.iter().zip(params.iter()).enumerate() {
                let target = param_enums.get(i).copied().flatten();
                if p.by_ref {
                    self.ck
                        .check_ref_bind(target, arg.span, &arg.ty, p.is_const);
                } else {
                    self.ck.check_enum_target(target, arg.span, &arg.ty);
                }
            }
        }
        // Missing arguments are the defaults, each evaluated at the call.
        if let Some(defaults) = self.ck.defaults.get(&chosen).cloned() {
            for (value, at) in defaults.iter().skip(args.len()).flatten() {
                self.check_default_restriction(value, *at, span);
                args.push(value.clone());
            }
        }
        let mut lowered = Vec::new();
        for (i, (arg, p)) in args.into_iter().zip(params.iter()).enumerate() {
            let is_object = object && i == 0 && p.by_ref;
            if is_object && !arg.place {
                // A temporary object: the callee works on a copy of it.
                lowered.push(arg);
                continue;
            }
            if is_object
                && !p.is_const
                && !arg.ty.is_error()
                && let Some((why, at)) = self.read_only_reason(&arg)
            {
                let name = path.text();
                let mut d = Diagnostic::error(
                    codes::E0252,
                    arg.span,
                    format!(
                        "`{name}` is not a `const` member function, but the object is const: {why}"
                    ),
                )
                .with_label("const object")
                .with_msvc("C2662")
                .with_help(format!(
                    "declare `{name}` `const` if it does not change the object"
                ));
                if let Some(at) = at {
                    d = d.with_secondary(at, "declared here");
                }
                self.ck.report(d);
                lowered.push(arg);
                continue;
            }
            // A derived object passed as its base: its base subobject.
            let arg = self.to_base(arg, &p.ty);
            if p.by_ref && self.ck.rvalue_refs.contains(&p.span) {
                lowered.push(self.rvalue_ref_arg(arg, p));
                continue;
            }
            if p.by_ref {
                if !arg.place && !p.is_const && !arg.ty.is_error() {
                    self.ck.error(
                        codes::E0204,
                        arg.span,
                        "a temporary value cannot be passed by non-const reference",
                        "temporary",
                        "pass a variable",
                    );
                }
                // A `const T&` binds a temporary: the value itself, or one
                // converted to `T` (`const std::string&` given a `char*`).
                if p.is_const && (!arg.place || arg.ty != p.ty) && !arg.ty.is_error() {
                    lowered.push(self.coerce(arg, &p.ty, "an argument"));
                    continue;
                }
                if arg.ty != p.ty && !arg.ty.is_error() && !p.ty.is_error() {
                    let (a, b) = (self.ck.show(&p.ty), self.ck.show(&arg.ty));
                    self.ck.error(
                        codes::E0203,
                        arg.span,
                        format!("expected a `{a}` to pass by reference, found `{b}`"),
                        "different type",
                        "",
                    );
                }
                if !p.is_const && arg.place {
                    self.check_writable(&arg, "passed by non-const reference");
                }
                lowered.push(arg);
            } else {
                let what = parameter_name(&p.name);
                let arg = self.coerce(arg, &p.ty, &what);
                lowered.push(self.copied(arg));
            }
        }
        mk(
            ExprKind::Call {
                func: chosen,
                args: lowered,
            },
            ret,
            ret_by_ref,
            span,
        )
    }

    /// The best of several functions of one name for `args`, as C++ ranks
    /// them; `None` after reporting that none fits (E0240) or that the call
    /// is ambiguous (E0241).
    fn overload(
        &mut self,
        path: &ast::Path,
        candidates: &[FuncId],
        args: &[Expr],
        span: Span,
        object: bool,
    ) -> Option<FuncId> {
        // An argument already in error would only add noise: take the first.
        if args.iter().any(|a| a.ty.is_error()) {
            return candidates.first().copied();
        }
        let shapes: Vec<Arg<'_>> = args
            .iter()
            .enumerate()
            .map(|(i, a)| Arg {
                ty: &a.ty,
                modifiable_lvalue: if object && i == 0 && !a.place {
                    true
                } else {
                    a.place && self.read_only_reason(a).is_none()
                },
                lvalue: a.place,
            })
            .collect();
        let sequences: Vec<Option<Vec<Sequence>>> = candidates
            .iter()
            .map(|id| {
                let f = self.ck.program.get_function(*id)?;
                // Only a member function's object (its `this`) is exempt from
                // user-defined conversions; a free operator's left operand
                // is an argument like any other.
                let member = f.locals.first().is_some_and(|l| l.name == "this");
                f.locals
                    .iter()
                    .take(f.params as usize)
                    .zip(&shapes)
                    .enumerate()
                    .map(|(i, (p, a))| {
                        let param = Param {
                            ty: &p.ty,
                            by_ref: p.by_ref,
                            is_const: p.is_const,
                            rvalue_ref: self.ck.rvalue_refs.contains(&p.span),
                        };
                        overload::sequence(*a, param)
                            .or_else(|| self.class_sequence(*a, param, object && member && i == 0))
                    })
                    .collect()
            })
            .collect();
        let name = path.text();
        let shown = |ck: &crate::cx::Checker| {
            args.iter()
                .map(|a| ck.show(&a.ty))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let decl = |ck: &crate::cx::Checker, i: usize| {
            candidates
                .get(i)
                .and_then(|id| ck.program.get_function(*id))
                .map(|f| f.span)
        };
        match overload::resolve(&sequences) {
            Resolution::Best(i) => candidates.get(i).copied(),
            Resolution::NoneViable => {
                let mut d = Diagnostic::error(
                    codes::E0240,
                    span,
                    format!("no overload of `{name}` takes ({})", shown(self.ck)),
                )
                .with_label("no function of this name accepts these arguments")
                .with_msvc("C2665");
                for i in 0..candidates.len() {
                    if let Some(at) = decl(self.ck, i) {
                        d = d.with_secondary(at, "a candidate");
                    }
                }
                self.ck.report(d);
                None
            }
            Resolution::Ambiguous(tied) => {
                let mut d = Diagnostic::error(
                    codes::E0241,
                    span,
                    format!("the call `{name}({})` is ambiguous", shown(self.ck)),
                )
                .with_label("more than one function fits equally well")
                .with_msvc("C2668")
                .with_help("convert the arguments to the exact parameter types of one of them");
                for i in tied {
                    if let Some(at) = decl(self.ck, i) {
                        d = d.with_secondary(at, "fits equally well");
                    }
                }
                self.ck.report(d);
                None
            }
        }
    }

    /// E0300/E0301: the callee must be able to run where the caller runs.
    pub fn check_call_restriction(
        &mut self,
        path: &ast::Path,
        callee: Restriction,
        decl_span: Span,
        span: Span,
    ) {
        let here = self.restriction();
        let name = path.text();
        // An implicit call (the constructor of each element of an array of
        // objects) is C3931 in MSVC; a call written out is C3930.
        let msvc = if self.building_elements {
            "C3931"
        } else {
            "C3930"
        };
        if here.amp && !callee.amp {
            self.ck.report(
                Diagnostic::error(
                    codes::E0300,
                    span,
                    format!("`{name}` runs only on the host, but is called from amp code"),
                )
                .with_label("called from `restrict(amp)` code")
                .with_secondary(decl_span, "declared without `restrict(amp)`")
                .with_msvc(msvc)
                .with_help(format!(
                    "mark `{name}` `restrict(amp, cpu)` if its body is valid amp code"
                )),
            );
        } else if here.cpu && !here.amp && !callee.cpu {
            self.ck.report(
                Diagnostic::error(
                    codes::E0301,
                    span,
                    format!("`{name}` runs only on the accelerator, but is called from host code"),
                )
                .with_label("called from host code")
                .with_secondary(decl_span, "declared `restrict(amp)`")
                .with_msvc(msvc)
                .with_help(format!(
                    "mark `{name}` `restrict(amp, cpu)`, or call it from a kernel"
                )),
            );
        } else if here.cpu && here.amp && !(callee.cpu && callee.amp) {
            let missing = if callee.amp { "cpu" } else { "amp" };
            self.ck.report(
                Diagnostic::error(if callee.amp { codes::E0301 } else { codes::E0300 }, span, format!("`{name}` cannot run everywhere its `restrict(amp, cpu)` caller runs"))
                    .with_label("called here")
                    .with_secondary(decl_span, format!("not marked `{missing}`"))
                    .with_note("a function marked `restrict(amp, cpu)` may call only functions marked both ways")
                    .with_help(format!("add `{missing}` to `{name}`'s restrict clause")),
            );
        }
    }
}

/// The namespace part of a class's flat name (`a::b` of `a::b::C<int>`),
/// if it has one.
fn namespace_of(class: &str) -> Option<&str> {
    let mut depth = 0i32;
    let mut last = None;
    let bytes = class.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => last = Some(i),
            _ => {}
        }
    }
    last.map(|i| &class[..i])
}

/// The binary operator `operator@` names, for the symbols a call may name.
fn binary_op_named(symbol: &str) -> Option<ast::BinaryOp> {
    use ast::BinaryOp as B;
    [
        B::Mul,
        B::Div,
        B::Rem,
        B::Add,
        B::Sub,
        B::Shl,
        B::Shr,
        B::Lt,
        B::Gt,
        B::Le,
        B::Ge,
        B::Eq,
        B::Ne,
    ]
    .into_iter()
    .find(|op| op.symbol() == symbol)
}

impl FnCx<'_> {
    /// An argument for the rvalue reference parameter `p` (`T&&`): an
    /// rvalue, converted to the parameter's type, which the callee may
    /// change (a temporary only it sees), or `std::move(x)`, which binds
    /// `x` itself. An lvalue does not bind (MSVC C2664).
    fn rvalue_ref_arg(&mut self, arg: Expr, p: &tessera_ir::Local) -> Expr {
        if arg.ty.is_error() {
            return arg;
        }
        if arg.place {
            let shown = self.ck.show(&arg.ty);
            self.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    arg.span,
                    format!(
                        "an rvalue reference parameter cannot bind an lvalue of type `{shown}`"
                    ),
                )
                .with_label("an lvalue")
                .with_msvc("C2664")
                .with_secondary(p.span, "declared `&&` here")
                .with_help("pass a temporary, or take the parameter as `const T&`"),
            );
            return error_expr(arg.span);
        }
        if self.ck.moved_copies.contains(&arg.span) {
            self.ck.error(
                codes::E0211,
                arg.span,
                "`std::move` of an element reached through a view or an iterator, passed to an rvalue reference parameter, is not supported",
                "would bind the parameter to the element itself",
                "move a local copy of the element",
            );
            return error_expr(arg.span);
        }
        if self.ck.moved.contains(&arg.span) && arg.ty == p.ty && crate::library::moved_place(&arg)
        {
            // `std::move(x)`: the parameter refers to `x` itself.
            return Expr { place: true, ..arg };
        }
        // Bound directly, as a `const T&` binds a temporary: no copy.
        self.coerce(arg, &p.ty, &parameter_name(&p.name))
    }
}

/// How a diagnostic names a parameter: by its name, or as "an argument"
/// when it has none (`A(B)`).
fn parameter_name(name: &str) -> String {
    if name.is_empty() {
        "an argument".to_string()
    } else {
        format!("parameter `{name}`")
    }
}
