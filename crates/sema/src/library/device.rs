//! `concurrency::accelerator` and `accelerator_view` on the host.
//!
//! Tessera has the two accelerators C++ AMP shows on a machine with one
//! device: the default one (the CPU engine that runs every kernel) and the
//! CPU accelerator (`accelerator::cpu_accelerator`), which holds arrays and
//! runs no kernel. Values of either type are run-time values
//! (`Intrinsic::Device` and the `Device...` intrinsics): which accelerator,
//! and for a view its identity and queuing mode. What is the same for both
//! accelerators is answered here, as constants (`tessera_ir::device`).
//! `accelerator(path)` is checked at run time (`Intrinsic::DeviceOpen`), as
//! C++ AMP checks it.

use super::{Ns, Side, arity, check_side, intrinsic, is_pure, mk, namespace, no_member};
use crate::cx::{Checker, FnCx, error_expr};
use crate::enums::{EnumId, EnumInfo};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Const, DeviceText, Expr, ExprKind, Intrinsic, Scalar, Type, device};
use tessera_syntax::ast;

/// The help for device use in amp code.
const AMP_HELP: &str = "choose the accelerator on the host, before `parallel_for_each`";

/// The help listing what an `accelerator` has.
const ACCELERATOR_MEMBERS: &str = "an `accelerator` has `description`, `device_path`, `version`, `dedicated_memory`, `supports_double_precision`, `supports_limited_double_precision`, `supports_cpu_shared_memory`, `is_emulated`, `has_display`, `is_debug`, `default_view`, `default_cpu_access_type` (each also as `get_...()`), `set_default_cpu_access_type(t)` and `create_view()`";

/// The help listing what an `accelerator_view` has.
const VIEW_MEMBERS: &str = "an `accelerator_view` has `accelerator`, `queuing_mode`, `is_debug`, `version` (each also as `get_...()`), `wait()`, `flush()` and `create_marker()`";

/// `queuing_mode_automatic`, C++ AMP's default.
const QUEUING_AUTOMATIC: i64 = device::QUEUING_AUTOMATIC;

/// True for `accelerator` and `accelerator_view`.
pub(super) fn is_device(ty: &Type) -> bool {
    matches!(ty, Type::Accelerator | Type::AcceleratorView)
}

/// Reports device use in amp code; false when it reported.
fn host_only(cx: &mut FnCx<'_>, what: &str, span: Span) -> bool {
    check_side(cx, Side::Host, what, span, "C3930", AMP_HELP)
}

/// The default accelerator or its default view, as a value of `ty`.
fn device_value(ty: Type, span: Span) -> Expr {
    intrinsic(Intrinsic::Device, Vec::new(), ty, span)
}

/// A wide string constant (`L"cpu"`).
fn wide(text: &str, span: Span) -> Expr {
    mk(
        ExprKind::Str(text.as_bytes().to_vec()),
        Type::WideStr,
        false,
        span,
    )
}

fn constant(c: Const, s: Scalar, span: Span) -> Expr {
    mk(ExprKind::Const(c), Type::Scalar(s), false, span)
}

/// `value`, after `base` when evaluating `base` may do something.
fn after(base: Expr, value: Expr) -> Expr {
    if is_pure(&base) {
        return value;
    }
    let (ty, span) = (value.ty.clone(), value.span);
    mk(
        ExprKind::Comma {
            first: Box::new(base),
            second: Box::new(value),
        },
        ty,
        false,
        span,
    )
}

/// The name `access_type` is known by once declared.
const ACCESS_TYPE: &str = "access_type";

/// `concurrency::access_type`, an unscoped enumeration of `int` like C++
/// AMP's: declared the first time a program names it or one of its
/// enumerators, so that a program that never does may use the names for
/// itself, and from then on checked like the program's own enumerations
/// (nothing converts to it implicitly; it converts to `int`).
pub(crate) fn access_type_enum(ck: &mut Checker) -> EnumId {
    if let Some(&id) = ck.enum_names.get(ACCESS_TYPE)
        && ck
            .enums
            .get(id)
            .is_some_and(|e| e.values.len() == device::ACCESS_TYPES.len())
    {
        return id;
    }
    let id = ck.enums.len();
    let values: Vec<(String, i64)> = device::ACCESS_TYPES
        .iter()
        .map(|(n, v)| ((*n).to_string(), *v))
        .collect();
    let consts = std::rc::Rc::make_mut(&mut ck.const_globals);
    for (n, v) in &values {
        consts.insert(n.clone(), *v);
        consts.insert(format!("{ACCESS_TYPE}::{n}"), *v);
    }
    for (n, v) in &values {
        ck.enumerators.insert(n.clone(), (id, *v));
    }
    ck.enums.push(EnumInfo {
        name: ACCESS_TYPE.to_string(),
        scoped: false,
        underlying: Scalar::Int,
        values,
    });
    ck.enum_names.insert(ACCESS_TYPE.to_string(), id);
    id
}

/// Checks that `arg` is an `access_type` (an enumerator, a variable or
/// parameter of the type, or the library's own answer); false when it
/// reported that it is not.
pub(super) fn access_arg(cx: &mut FnCx<'_>, arg: &Expr, what: &str) -> bool {
    let id = access_type_enum(cx.ck);
    let library = matches!(
        &arg.kind,
        ExprKind::Intrinsic {
            op: Intrinsic::DeviceCpuAccess | Intrinsic::ArrayCpuAccess,
            ..
        }
    );
    if cx.ck.enum_at(arg.span) == Some(id) || library {
        return true;
    }
    let shown = cx.ck.show(&arg.ty);
    cx.ck.error(
        codes::E0203,
        arg.span,
        format!("mismatched types: {what} takes a `concurrency::access_type`, not `{shown}`"),
        format!("this is `{shown}`"),
        "pass `access_type_none`, `access_type_read`, `access_type_write`, `access_type_read_write` or `access_type_auto`",
    );
    false
}

/// True for `[concurrency::]accelerator::name`.
fn in_accelerator_class(path: &ast::Path) -> bool {
    let n = path.segments.len();
    n >= 2
        && path.segments[n - 2].name == "accelerator"
        && path.segments[..n - 2]
            .iter()
            .all(|s| s.name == "concurrency" || s.name == "Concurrency")
}

/// The static data members of `accelerator` and the `queuing_mode`
/// enumerators, used as values.
pub(super) fn name(cx: &mut FnCx<'_>, path: &ast::Path) -> Option<Expr> {
    let span = path.span;
    let last = path.last();
    let e = if in_accelerator_class(path) {
        let (_, text) = device::CONSTANTS.iter().find(|(n, _)| *n == last)?;
        wide(text, span)
    } else if matches!(namespace(path), Ns::Amp | Ns::Unqualified)
        && let Some((_, value)) = device::ACCESS_TYPES.iter().find(|(n, _)| *n == last)
    {
        access_type_enum(cx.ck);
        constant(Const::Int(*value), Scalar::Int, span)
    } else if matches!(namespace(path), Ns::Amp | Ns::Unqualified) {
        let mode = match last {
            "queuing_mode_immediate" => device::QUEUING_IMMEDIATE,
            "queuing_mode_automatic" => QUEUING_AUTOMATIC,
            _ => return None,
        };
        constant(Const::Int(mode), Scalar::Int, span)
    } else {
        return None;
    };
    if !host_only(cx, &format!("`{}`", path.text()), span) {
        return Some(error_expr(span));
    }
    Some(e)
}

/// A call of a static member function of `accelerator`, if it is one.
pub(super) fn call(cx: &mut FnCx<'_>, path: &ast::Path, args: &[Expr], span: Span) -> Option<Expr> {
    if !in_accelerator_class(path) {
        return None;
    }
    let last = path.last();
    let what = format!("`accelerator::{last}`");
    if !matches!(last, "get_all" | "set_default" | "get_auto_selection_view") {
        cx.ck.error(
            codes::E0200,
            path.span,
            format!("`accelerator` has no static member function `{last}`"),
            "unknown member",
            "the static member functions are `get_all()`, `set_default(path)` and `get_auto_selection_view()`",
        );
        return Some(error_expr(span));
    }
    if !host_only(cx, &what, path.span) {
        return Some(error_expr(span));
    }
    Some(match last {
        "get_all" => {
            if !arity(cx, &what, args, 0, "", span) {
                return Some(error_expr(span));
            }
            intrinsic(
                Intrinsic::DeviceAll,
                Vec::new(),
                Type::Vector(Box::new(Type::Accelerator)),
                span,
            )
        }
        "set_default" => {
            if !arity(cx, &what, args, 1, "a device path", span) {
                return Some(error_expr(span));
            }
            if !wide_arg(cx, &args[0], &what) {
                return Some(error_expr(span));
            }
            // The run decides: a path no accelerator has, or a default an
            // operation already used, makes it return `false`.
            intrinsic(
                Intrinsic::DeviceSetDefault,
                vec![args[0].clone()],
                Type::BOOL,
                span,
            )
        }
        _ => {
            if !arity(cx, &what, args, 0, "", span) {
                return Some(error_expr(span));
            }
            device_value(Type::AcceleratorView, span)
        }
    })
}

/// Checks that a device path argument is a wide string (a literal, an
/// `accelerator` constant or a `std::wstring`); false when it reported.
fn wide_arg(cx: &mut FnCx<'_>, arg: &Expr, what: &str) -> bool {
    match &arg.ty {
        Type::WideStr => true,
        _ => {
            let shown = cx.ck.show(&arg.ty);
            cx.ck.error(
                codes::E0203,
                arg.span,
                format!("mismatched types: {what} takes a device path, a `std::wstring`, not `{shown}`"),
                format!("this is `{shown}`"),
                "name the device with `accelerator::default_accelerator` or a wide string literal `L\"...\"`",
            );
            false
        }
    }
}

/// `accelerator()`, `accelerator(path)`, and copies of either type.
pub(super) fn construct(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    let what = if *ty == Type::Accelerator {
        "an `accelerator`"
    } else {
        "an `accelerator_view`"
    };
    if !host_only(cx, &format!("creating {what}"), span) {
        return error_expr(span);
    }
    match (ty, args.as_slice()) {
        (_, [one]) if one.ty == *ty => one.clone(),
        (Type::Accelerator, []) => device_value(Type::Accelerator, span),
        (Type::Accelerator, [path]) => {
            // `accelerator(p)` of a `const wchar_t*`: the `std::wstring` it
            // points to.
            let path = &super::wstring::from_pointer(cx, path.clone()).unwrap_or_else(|p| p);
            if !wide_arg(cx, path, "`accelerator`") {
                return error_expr(span);
            }
            intrinsic(
                Intrinsic::DeviceOpen,
                vec![path.clone()],
                Type::Accelerator,
                span,
            )
        }
        (Type::Accelerator, _) => {
            arity(cx, "`accelerator`", &args, 1, "a device path", span);
            error_expr(span)
        }
        _ => {
            let mut d = Diagnostic::error(
                codes::E0203,
                span,
                "an `accelerator_view` has no public constructor",
            )
            .with_label("no constructor")
            .with_help(
                "take the view of an accelerator: `acc.default_view` or `acc.create_view()`",
            );
            // amp.h declares its default constructor private.
            if args.is_empty() {
                d = d.with_msvc("C2248");
            }
            cx.ck.report(d);
            error_expr(span)
        }
    }
}

/// The value of a property (`description`, `is_emulated`) of an
/// accelerator or a view `base`.
fn property(base: &Expr, name: &str, span: Span) -> Option<Expr> {
    let ty = &base.ty;
    let b = |v: bool| constant(Const::Bool(v), Scalar::Bool, span);
    let of = |op: Intrinsic, ty: Type| intrinsic(op, vec![base.clone()], ty, span);
    let version = || constant(Const::Int(device::VERSION), Scalar::UInt, span);
    let value = match (ty, name) {
        (Type::Accelerator, "description") => {
            return Some(of(
                Intrinsic::DeviceText(DeviceText::Description),
                Type::WideStr,
            ));
        }
        (Type::Accelerator, "device_path") => {
            return Some(of(Intrinsic::DeviceText(DeviceText::Path), Type::WideStr));
        }
        (Type::Accelerator, "default_view") => {
            return Some(of(Intrinsic::DeviceDefaultView, Type::AcceleratorView));
        }
        (Type::AcceleratorView, "queuing_mode") => {
            return Some(of(Intrinsic::DeviceQueuingMode, Type::Scalar(Scalar::Int)));
        }
        (Type::AcceleratorView, "accelerator") => {
            return Some(of(Intrinsic::DeviceViewAccelerator, Type::Accelerator));
        }
        (Type::Accelerator, "dedicated_memory") => {
            // In kilobytes; the CPU has no memory of its own apart from the host's.
            constant(Const::Int(0), Scalar::ULong, span)
        }
        (Type::Accelerator, "supports_double_precision")
        | (Type::Accelerator, "supports_limited_double_precision") => b(true),
        // Kernels read and write host memory directly.
        (Type::Accelerator, "supports_cpu_shared_memory") => b(true),
        // Software devices, as WARP and the reference rasteriser are.
        (Type::Accelerator, "is_emulated") => b(true),
        (Type::Accelerator, "has_display") => b(false),
        // Run-time state: a program may set it.
        (Type::Accelerator, "default_cpu_access_type") => intrinsic(
            Intrinsic::DeviceCpuAccess,
            Vec::new(),
            Type::Scalar(Scalar::Int),
            span,
        ),
        (_, "is_debug") => b(false),
        (_, "version") => version(),
        _ => return None,
    };
    Some(after(base.clone(), value))
}

fn members_help(ty: &Type) -> &'static str {
    if *ty == Type::Accelerator {
        ACCELERATOR_MEMBERS
    } else {
        VIEW_MEMBERS
    }
}

/// A data member: `acc.description`, `view.queuing_mode`.
pub(super) fn member(cx: &mut FnCx<'_>, base: Expr, name: &ast::Ident, span: Span) -> Expr {
    if !host_only(cx, &format!("`{}`", name.name), name.span) {
        return error_expr(span);
    }
    let ty = base.ty.clone();
    match property(&base, &name.name, span) {
        Some(value) => value,
        None => no_member(cx, &ty, name, members_help(&ty)),
    }
}

/// A member function call: `acc.get_description()`, `view.wait()`.
pub(super) fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let what = format!("`{}`", name.name);
    if !host_only(cx, &what, name.span) {
        return error_expr(span);
    }
    let ty = base.ty.clone();
    let value = match (&ty, name.name.as_str()) {
        (Type::Accelerator, "create_view") => {
            // The one queue, whatever mode is asked for.
            if args.len() > 1 {
                arity(cx, &what, &args, 1, "an optional `queuing_mode`", span);
                return error_expr(span);
            }
            if let Some(mode) = args.first()
                && !matches!(mode.ty, Type::Scalar(Scalar::Int))
            {
                let shown = cx.ck.show(&mode.ty);
                cx.ck.error(
                    codes::E0203,
                    mode.span,
                    format!(
                        "mismatched types: `create_view` takes a `queuing_mode`, not `{shown}`"
                    ),
                    format!("this is `{shown}`"),
                    "pass `queuing_mode_automatic` or `queuing_mode_immediate`",
                );
                return error_expr(span);
            }
            let mode = args
                .into_iter()
                .next()
                .unwrap_or_else(|| constant(Const::Int(QUEUING_AUTOMATIC), Scalar::Int, span));
            return intrinsic(
                Intrinsic::DeviceCreateView,
                vec![base, mode],
                Type::AcceleratorView,
                span,
            );
        }
        (Type::Accelerator, "set_default_cpu_access_type") => {
            if !arity(cx, &what, &args, 1, "an `access_type`", span)
                || !access_arg(cx, &args[0], &what)
            {
                return error_expr(span);
            }
            let set = intrinsic(
                Intrinsic::DeviceSetCpuAccess,
                args,
                Type::Scalar(Scalar::Bool),
                span,
            );
            return after(base, set);
        }
        (Type::AcceleratorView, "get_accelerator") => intrinsic(
            Intrinsic::DeviceViewAccelerator,
            vec![base.clone()],
            Type::Accelerator,
            span,
        ),
        (Type::AcceleratorView, "wait" | "flush") => {
            intrinsic(Intrinsic::DeviceWait, Vec::new(), Type::Void, span)
        }
        // Every command before the marker has finished when it is made: a
        // ready future.
        (Type::AcceleratorView, "create_marker") => super::future::ready(cx.ck, span),
        (_, getter) => {
            let value = match getter
                .strip_prefix("get_")
                .and_then(|p| property(&base, p, span))
            {
                Some(v) => v,
                None => return no_member(cx, &ty, name, members_help(&ty)),
            };
            if !arity(cx, &what, &args, 0, "", span) {
                return error_expr(span);
            }
            return value;
        }
    };
    if !arity(cx, &what, &args, 0, "", span) {
        return error_expr(span);
    }
    match value.kind {
        // The view's own operation: it reads the view itself.
        ExprKind::Intrinsic {
            op: Intrinsic::DeviceViewAccelerator,
            ..
        } => value,
        _ => after(base, value),
    }
}

/// `a == b` and `a != b` on two accelerators (the same device path) or two
/// views (the same view, or copies of it).
pub(super) fn compare(cx: &mut FnCx<'_>, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
    let equal = match op {
        ast::BinaryOp::Eq => true,
        ast::BinaryOp::Ne => false,
        _ => {
            let shown = cx.ck.show(&l.ty);
            cx.ck.error(
                codes::E0210,
                span,
                format!("no operator `{}` for `{shown}`", op.symbol()),
                "invalid operands",
                "devices compare only with `==` and `!=`",
            );
            return error_expr(span);
        }
    };
    if l.ty != r.ty {
        let (a, b) = (cx.ck.show(&l.ty), cx.ck.show(&r.ty));
        cx.ck.error(
            codes::E0210,
            span,
            format!("no operator `{}` between `{a}` and `{b}`", op.symbol()),
            "invalid operands",
            "",
        );
        return error_expr(span);
    }
    if !host_only(cx, "comparing devices", span) {
        return error_expr(span);
    }
    let same = intrinsic(Intrinsic::DeviceEq, vec![l, r], Type::BOOL, span);
    if equal {
        return same;
    }
    mk(
        ExprKind::Unary {
            op: tessera_ir::UnOp::Not,
            operand: Box::new(same),
        },
        Type::BOOL,
        false,
        span,
    )
}
