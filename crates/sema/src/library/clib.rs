//! The C library that host programs call: `<cstdio>` output (`printf`,
//! `fprintf` to `stdout`/`stderr`, `puts`, `putchar`, ...), `<cstdlib>`
//! (`rand`, `srand`, `exit`, `abort`) and `<cassert>`'s `assert`.
//!
//! All are host-only: none is `restrict(amp)` in C++ AMP, so amp code that
//! calls one is E0300 (MSVC: C3930).
//!
//! A format is checked against its arguments as gcc's `-Wformat` checks it;
//! a mismatch that C leaves undefined (`%d` given a `double`, too few
//! arguments, `%n`) is E0260, and arguments the format does not use are
//! W0261. Arguments are then promoted as a variadic call promotes them, so
//! the engines see only `int`, `unsigned int`, `long`, `unsigned long`,
//! `double` and strings.

use super::{Ns, Side, arity, check_side, intrinsic, mk};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Intrinsic, OutStream, Scalar, Type};
use tessera_runtime::printf::{self, Count, Kind, Length, Piece};
use tessera_syntax::ast;

/// `stdout`/`stderr` as values: a constant of type `Ostream` (1 or 2, the C
/// file descriptors), taken only by the `f...` functions.
pub(super) fn name(cx: &mut FnCx<'_>, path: &ast::Path) -> Option<Expr> {
    if !matches!(
        super::namespace(path),
        Ns::Std | Ns::Unqualified | Ns::Global
    ) {
        return None;
    }
    let fd = match path.last() {
        "stdout" => 1,
        "stderr" => 2,
        _ => return None,
    };
    let span = path.span;
    if cx.in_amp() {
        check_side(
            cx,
            Side::Host,
            &format!("`{}`", path.text()),
            span,
            "C3586",
            "kernels cannot print: write the results into an `array_view` and print them on the host",
        );
        return Some(error_expr(span));
    }
    Some(mk(
        ExprKind::Const(Const::Int(fd)),
        Type::Ostream,
        false,
        span,
    ))
}

/// The stream a `stdout`/`stderr` value names.
pub(super) fn c_stream(e: &Expr) -> Option<OutStream> {
    match (&e.kind, &e.ty) {
        (ExprKind::Const(Const::Int(1)), Type::Ostream) => Some(OutStream::Stdout),
        (ExprKind::Const(Const::Int(2)), Type::Ostream) => Some(OutStream::Stderr),
        _ => None,
    }
}

/// The C library functions this module knows.
const NAMES: &[&str] = &[
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "putc",
    "fflush",
    "rand",
    "srand",
    "exit",
    "abort",
    "assert",
    "getchar",
    "clock",
    "time",
    "difftime",
    "__tessera_clock_ns",
];

/// True when `path` names one of these functions.
pub(super) fn is_clib(path: &ast::Path, ns: Ns) -> bool {
    let name = path.last();
    matches!(ns, Ns::Std | Ns::Unqualified | Ns::Global)
        && NAMES.contains(&name)
        && (name != "assert" || ns == Ns::Unqualified)
}

/// A call of one of these functions, if `path` names one.
pub(super) fn call(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    ns: Ns,
    args: Vec<Expr>,
    span: Span,
) -> Result<Expr, Vec<Expr>> {
    let name = path.last();
    if !is_clib(path, ns) {
        return Err(args);
    }
    if !host_only(cx, path) || args.iter().any(|a| a.ty.is_error()) {
        return Ok(error_expr(span));
    }
    let what = format!("`{}`", path.text());
    Ok(match name {
        "printf" => {
            let mut it = args.into_iter();
            let Some(fmt) = it.next() else {
                arity(
                    cx,
                    &what,
                    &[],
                    1,
                    "a format string and the values it converts",
                    span,
                );
                return Ok(error_expr(span));
            };
            format_call(
                cx,
                &what,
                &Formatted::Stream(OutStream::Stdout),
                fmt,
                it.collect(),
                span,
            )
        }
        "sprintf" | "snprintf" => {
            let bounded = name == "snprintf";
            let mut it = args.into_iter();
            let buffer = it.next();
            let size = if bounded { it.next() } else { None };
            let (Some(buffer), Some(fmt)) = (buffer, it.next()) else {
                let (n, takes) = if bounded {
                    (
                        3,
                        "a `char` buffer, its size, a format string and its values",
                    )
                } else {
                    (2, "a `char` buffer, a format string and its values")
                };
                arity(cx, &what, &[], n, takes, span);
                return Ok(error_expr(span));
            };
            if bounded && size.is_none() {
                return Ok(error_expr(span));
            }
            let char_ptr = Type::Ptr {
                elem: Box::new(Type::Scalar(Scalar::Char)),
                is_const: false,
            };
            let buffer = cx.coerce(buffer, &char_ptr, &format!("the buffer of {what}"));
            let size = size.map(|s| {
                cx.coerce(
                    s,
                    &Type::Scalar(Scalar::ULong),
                    &format!("the size of {what}"),
                )
            });
            if buffer.ty.is_error() || size.as_ref().is_some_and(|s| s.ty.is_error()) {
                return Ok(error_expr(span));
            }
            let target = Formatted::Buffer { buffer, size };
            format_call(cx, &what, &target, fmt, it.collect(), span)
        }
        "fprintf" => {
            let mut it = args.into_iter();
            let (Some(file), Some(fmt)) = (it.next(), it.next()) else {
                arity(
                    cx,
                    &what,
                    &[],
                    2,
                    "`stdout` or `stderr`, a format string and its values",
                    span,
                );
                return Ok(error_expr(span));
            };
            let Some(stream) = stream_arg(cx, &what, &file) else {
                return Ok(error_expr(span));
            };
            format_call(
                cx,
                &what,
                &Formatted::Stream(stream),
                fmt,
                it.collect(),
                span,
            )
        }
        "puts" | "fputs" => {
            let newline = name == "puts";
            let want = if newline { 1 } else { 2 };
            if !arity(cx, &what, &args, want, "a string literal", span) {
                return Ok(error_expr(span));
            }
            let stream = if newline {
                Some(OutStream::Stdout)
            } else {
                stream_arg(cx, &what, &args[1])
            };
            let Some(stream) = stream else {
                return Ok(error_expr(span));
            };
            let s = args.into_iter().next().unwrap_or_else(|| error_expr(span));
            if s.ty != Type::Str {
                mismatch(cx, &s, &format!("{what} takes a string literal"), "");
                return Ok(error_expr(span));
            }
            intrinsic(
                Intrinsic::Puts { stream, newline },
                vec![s],
                Type::INT,
                span,
            )
        }
        "putchar" | "fputc" | "putc" => {
            let want = if name == "putchar" { 1 } else { 2 };
            if !arity(cx, &what, &args, want, "a character", span) {
                return Ok(error_expr(span));
            }
            let stream = match args.get(1) {
                Some(f) => stream_arg(cx, &what, f),
                None => Some(OutStream::Stdout),
            };
            let Some(stream) = stream else {
                return Ok(error_expr(span));
            };
            let c = args.into_iter().next().unwrap_or_else(|| error_expr(span));
            let Some(c) = integer_arg(cx, &what, c, Scalar::Int) else {
                return Ok(error_expr(span));
            };
            intrinsic(Intrinsic::Putchar(stream), vec![c], Type::INT, span)
        }
        "getchar" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return Ok(error_expr(span));
            }
            intrinsic(Intrinsic::Getchar, Vec::new(), Type::INT, span)
        }
        "fflush" => {
            if !arity(cx, &what, &args, 1, "`stdout` or `stderr`", span) {
                return Ok(error_expr(span));
            }
            let Some(stream) = stream_arg(cx, &what, &args[0]) else {
                return Ok(error_expr(span));
            };
            intrinsic(Intrinsic::Fflush(stream), Vec::new(), Type::INT, span)
        }
        "rand" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return Ok(error_expr(span));
            }
            intrinsic(Intrinsic::Rand, Vec::new(), Type::INT, span)
        }
        "clock" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return Ok(error_expr(span));
            }
            intrinsic(
                Intrinsic::Clock,
                Vec::new(),
                Type::Scalar(Scalar::Long),
                span,
            )
        }
        // `<chrono>`'s clocks: the header's `now()` calls this with 1 for
        // the steady clock, 0 for the system clock (the name is reserved to
        // the implementation, so no program spells it).
        "__tessera_clock_ns" => {
            let steady = matches!(
                args.first().map(|a| &a.kind),
                Some(ExprKind::Const(Const::Int(1)))
            );
            intrinsic(
                Intrinsic::ClockNanos { steady },
                Vec::new(),
                Type::Scalar(Scalar::Long),
                span,
            )
        }
        "time" => {
            if !arity(cx, &what, &args, 1, "a `time_t*` or `NULL`", span) {
                return Ok(error_expr(span));
            }
            let Some(out) = args.into_iter().next() else {
                return Ok(error_expr(span));
            };
            let now = intrinsic(
                Intrinsic::Time,
                Vec::new(),
                Type::Scalar(Scalar::Long),
                span,
            );
            let null = matches!(out.ty, Type::Null)
                || matches!(out.kind, ExprKind::Null | ExprKind::Const(Const::Int(0)));
            if null {
                now
            } else if matches!(&out.ty, Type::Ptr { elem, is_const: false } if **elem == Type::Scalar(Scalar::Long))
            {
                // `time(&t)` stores the time and returns it.
                let target = cx.deref(out, span);
                mk(
                    ExprKind::Assign {
                        target: Box::new(target),
                        value: Box::new(now),
                    },
                    Type::Scalar(Scalar::Long),
                    false,
                    span,
                )
            } else {
                let shown = cx.ck.show(&out.ty);
                cx.ck.error(
                    codes::E0203,
                    out.span,
                    format!("`time` takes a `time_t*` or `NULL`, not `{shown}`"),
                    "not a `time_t*`",
                    "pass `NULL` or the address of a `time_t`",
                );
                error_expr(span)
            }
        }
        "difftime" => {
            if !arity(cx, &what, &args, 2, "two `time_t` values", span) {
                return Ok(error_expr(span));
            }
            let mut it = args.into_iter();
            let (Some(end), Some(start)) = (it.next(), it.next()) else {
                return Ok(error_expr(span));
            };
            let (Some(end), Some(start)) = (
                integer_arg(cx, &what, end, Scalar::Long),
                integer_arg(cx, &what, start, Scalar::Long),
            ) else {
                return Ok(error_expr(span));
            };
            let end = cx.convert_scalar(end, Scalar::Double);
            let start = cx.convert_scalar(start, Scalar::Double);
            mk(
                ExprKind::Binary {
                    op: tessera_ir::BinOp::Sub,
                    lhs: Box::new(end),
                    rhs: Box::new(start),
                },
                Type::Scalar(Scalar::Double),
                false,
                span,
            )
        }
        "srand" | "exit" => {
            let (op, to, takes) = if name == "srand" {
                (Intrinsic::Srand, Scalar::UInt, "an `unsigned int` seed")
            } else {
                (Intrinsic::Exit, Scalar::Int, "the exit status, an `int`")
            };
            if !arity(cx, &what, &args, 1, takes, span) {
                return Ok(error_expr(span));
            }
            let a = args.into_iter().next().unwrap_or_else(|| error_expr(span));
            let Some(a) = integer_arg(cx, &what, a, to) else {
                return Ok(error_expr(span));
            };
            intrinsic(op, vec![a], Type::Void, span)
        }
        "abort" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return Ok(error_expr(span));
            }
            intrinsic(Intrinsic::Abort, Vec::new(), Type::Void, span)
        }
        _ => {
            if !arity(cx, &what, &args, 1, "a condition", span) {
                return Ok(error_expr(span));
            }
            let cond = args.into_iter().next().unwrap_or_else(|| error_expr(span));
            let cond = cx.condition(cond);
            if cond.ty.is_error() {
                return Ok(error_expr(span));
            }
            let signature = signature(cx);
            intrinsic(Intrinsic::Assert(signature), vec![cond], Type::Void, span)
        }
    })
}

/// E0300 for a call in amp code; false when it reported.
pub(super) fn host_only(cx: &mut FnCx<'_>, path: &ast::Path) -> bool {
    let help = match path.last() {
        "assert" => "kernels cannot stop the program; check on the host, after the kernel",
        "rand" | "srand" => "make the random numbers on the host and pass them in an `array_view`",
        "clock" | "time" | "difftime" | "__tessera_clock_ns" => {
            "time the kernel on the host, around the `parallel_for_each`"
        }
        "exit" | "abort" => "kernels cannot stop the program; return from the kernel instead",
        _ => {
            "kernels cannot print: write the results into an `array_view` and print them on the host"
        }
    };
    let what = format!("`{}`", path.text());
    check_side(cx, Side::Host, &what, path.span, "C3930", help)
}

/// The current function as glibc's `assert` names it (`__PRETTY_FUNCTION__`):
/// `int f(int, float)`.
fn signature(cx: &FnCx<'_>) -> String {
    let f = &cx.func;
    let params: Vec<String> = f
        .locals
        .iter()
        .take(f.params as usize)
        .map(|l| {
            let t = cx.ck.show(&l.ty);
            match (l.by_ref, l.is_const) {
                (true, true) => format!("const {t}&"),
                (true, false) => format!("{t}&"),
                _ => t,
            }
        })
        .collect();
    format!("{} {}({})", cx.ck.show(&f.ret), f.name, params.join(", "))
}

/// The stream an `f...` function's argument names, or E0203.
fn stream_arg(cx: &mut FnCx<'_>, what: &str, e: &Expr) -> Option<OutStream> {
    if let Some(s) = c_stream(e) {
        return Some(s);
    }
    mismatch(
        cx,
        e,
        &format!("{what} writes to `stdout` or `stderr`"),
        "Tessera's C streams are `stdout` and `stderr`",
    );
    None
}

/// An integral argument converted to `to`, or E0203.
fn integer_arg(cx: &mut FnCx<'_>, what: &str, e: Expr, to: Scalar) -> Option<Expr> {
    if e.ty.scalar().is_some_and(Scalar::is_integral) {
        return Some(cx.convert_scalar(e, to));
    }
    mismatch(
        cx,
        &e,
        &format!("{what} takes an integer"),
        "convert it: `(int)x`",
    );
    None
}

/// E0203 at `e`.
fn mismatch(cx: &mut FnCx<'_>, e: &Expr, message: &str, help: &str) {
    let shown = cx.ck.show(&e.ty);
    let mut d = Diagnostic::error(
        codes::E0203,
        e.span,
        format!("mismatched types: {message}, not `{shown}`"),
    )
    .with_label(format!("this is `{shown}`"));
    if !help.is_empty() {
        d = d.with_help(help);
    }
    cx.ck.report(d);
}

/// Where formatted text goes.
enum Formatted {
    /// `printf`, `fprintf`: a stream.
    Stream(OutStream),
    /// `sprintf`, `snprintf`: a `char` buffer (with its size).
    Buffer {
        /// The `char*` written through.
        buffer: Expr,
        /// `snprintf`'s size, converted to `size_t`.
        size: Option<Expr>,
    },
}

/// `printf`/`fprintf`/`sprintf`/`snprintf`: checks the format against the
/// values and promotes them.
fn format_call(
    cx: &mut FnCx<'_>,
    what: &str,
    target: &Formatted,
    fmt: Expr,
    values: Vec<Expr>,
    span: Span,
) -> Expr {
    // `printf(ok ? "passed\n" : "failed\n")`: each format is checked
    // against the values, and the condition picks the call.
    if let ExprKind::Conditional { cond, then, els } = fmt.kind {
        let then = format_call(cx, what, target, *then, values.clone(), span);
        let els = format_call(cx, what, target, *els, values, span);
        if then.ty.is_error() || els.ty.is_error() {
            return error_expr(span);
        }
        let ty = then.ty.clone();
        return mk(
            ExprKind::Conditional {
                cond,
                then: Box::new(then),
                els: Box::new(els),
            },
            ty,
            false,
            span,
        );
    }
    let ExprKind::Str(bytes) = &fmt.kind else {
        let shown = cx.ck.show(&fmt.ty);
        cx.ck.report(
            Diagnostic::error(
                codes::E0260,
                fmt.span,
                format!("the format of {what} must be a string literal, not `{shown}`"),
            )
            .with_label("not a string literal")
            .with_msvc("C4477")
            .with_help("write the format as a literal: `printf(\"%d\\n\", x)`"),
        );
        return error_expr(span);
    };
    let bytes = bytes.clone();
    let mut out = vec![fmt];
    let mut values = values.into_iter();
    let mut ok = true;
    for piece in printf::parse(&bytes) {
        let Piece::Conv(spec) = piece else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes[spec.start..spec.end]).into_owned();
        if let Some(why) = refused(&spec) {
            let fmt_span = out[0].span;
            cx.ck.report(
                Diagnostic::error(
                    codes::E0260,
                    fmt_span,
                    format!("`{text}` in the format of {what}: {why}"),
                )
                .with_label(format!("`{text}` here"))
                .with_msvc("C4477")
                .with_note("C leaves its behaviour undefined, or Tessera does not have it"),
            );
            ok = false;
            continue;
        }
        let stars = [spec.width, spec.precision]
            .iter()
            .filter(|c| **c == Some(Count::Star))
            .count();
        for _ in 0..stars {
            let Some(v) = values.next() else {
                ok &= missing(cx, what, &text, &out[0], span);
                break;
            };
            match promote_star(cx, v, &text) {
                Some(v) => out.push(v),
                None => ok = false,
            }
        }
        if spec.kind() == Kind::Percent {
            continue;
        }
        let Some(v) = values.next() else {
            ok &= missing(cx, what, &text, &out[0], span);
            continue;
        };
        match promote(cx, v, &spec, &text) {
            Some(v) => out.push(v),
            None => ok = false,
        }
    }
    let extra: Vec<Expr> = values.collect();
    if let (Some(first), Some(last)) = (extra.first(), extra.last()) {
        let n = extra.len();
        let plural = if n == 1 { "" } else { "s" };
        cx.ck.report(
            Diagnostic::warning(
                codes::W0261,
                first.span.to(last.span),
                format!("{n} argument{plural} of {what} not used by its format"),
            )
            .with_label("not converted")
            .with_secondary(out[0].span, "the format")
            .with_msvc("C4474")
            .with_help("add a conversion for each value, or remove the extra arguments"),
        );
    }
    if !ok {
        return error_expr(span);
    }
    match target {
        Formatted::Stream(stream) => intrinsic(Intrinsic::Printf(*stream), out, Type::INT, span),
        Formatted::Buffer { buffer, size } => {
            let bounded = size.is_some();
            let args = std::iter::once(buffer.clone())
                .chain(size.clone())
                .chain(out)
                .collect();
            intrinsic(Intrinsic::Sprintf { bounded }, args, Type::INT, span)
        }
    }
}

/// Why a conversion is refused, if it is.
fn refused(spec: &printf::Spec) -> Option<String> {
    let kind = spec.kind();
    let conv = char::from(spec.conv);
    if kind == Kind::Invalid {
        return Some(match spec.conv {
            0 => "the format ends inside a conversion".into(),
            b'n' => "`%n` writes through a pointer, and Tessera has no pointers".into(),
            b'p' => "`%p` prints a pointer, and Tessera has no pointers".into(),
            c if c.is_ascii_graphic() => format!("`{conv}` is not a conversion"),
            _ => "this is not a conversion".into(),
        });
    }
    if kind == Kind::Percent {
        return None;
    }
    if let Length::Other(c) = spec.length {
        let c = char::from(c);
        return Some(format!(
            "the length modifier `{c}` names a type Tessera does not have"
        ));
    }
    let length = spec.length;
    let bad_length = match kind {
        Kind::Char => length != Length::Plain,
        // `%ls`: a wide string.
        Kind::Str => !matches!(length, Length::Plain | Length::Long),
        Kind::Double => !matches!(length, Length::Plain | Length::Long),
        _ => false,
    };
    if bad_length {
        return Some(format!(
            "the length modifier `{}` does not go with `%{conv}`",
            length.text()
        ));
    }
    if spec.hash && (matches!(kind, Kind::Signed | Kind::Char | Kind::Str) || conv == 'u') {
        return Some(format!("the `#` flag does not go with `%{conv}`"));
    }
    if spec.zero && matches!(kind, Kind::Char | Kind::Str) {
        return Some(format!("the `0` flag does not go with `%{conv}`"));
    }
    if spec.precision.is_some() && kind == Kind::Char {
        return Some("a precision does not go with `%c`".into());
    }
    None
}

/// E0260 for a conversion without its argument; always false.
fn missing(cx: &mut FnCx<'_>, what: &str, text: &str, fmt: &Expr, span: Span) -> bool {
    cx.ck.report(
        Diagnostic::error(
            codes::E0260,
            fmt.span,
            format!("`{text}` in the format of {what} has no argument"),
        )
        .with_label(format!("`{text}` converts a value that is not there"))
        .with_secondary(span, "the call")
        .with_msvc("C4477")
        .with_help("pass a value for each conversion"),
    );
    false
}

/// A `*` width or precision: an `int`.
fn promote_star(cx: &mut FnCx<'_>, v: Expr, text: &str) -> Option<Expr> {
    match v.ty.scalar() {
        Some(s) if s.promotes_to_int() || matches!(s, Scalar::Int | Scalar::UInt) => {
            Some(cx.convert_scalar(v, Scalar::Int))
        }
        _ => {
            wrong(cx, &v, text, "`int` for its `*`", "convert it: `(int)n`");
            None
        }
    }
}

/// E0260: the argument `v` is not what `text` converts.
fn wrong(cx: &mut FnCx<'_>, v: &Expr, text: &str, expects: &str, help: &str) {
    let shown = cx.ck.show(&v.ty);
    let d = Diagnostic::error(
        codes::E0260,
        v.span,
        format!("`{text}` expects {expects}, but the argument is `{shown}`"),
    )
    .with_label(format!("this is `{shown}`"))
    .with_msvc("C4477")
    .with_note("a value of the wrong type makes `printf` read garbage: C leaves it undefined");
    let d = if help.is_empty() {
        d
    } else {
        d.with_help(help)
    };
    cx.ck.report(d);
}

/// The argument of a conversion, promoted; E0260 when it does not fit.
fn promote(cx: &mut FnCx<'_>, v: Expr, spec: &printf::Spec, text: &str) -> Option<Expr> {
    // An array passed to `...` decays to a pointer to its first element.
    let v = match &v.ty {
        Type::CArray(elem, _)
            if matches!(**elem, Type::Scalar(Scalar::Char | Scalar::WChar)) && v.place =>
        {
            let to = Type::Ptr {
                elem: elem.clone(),
                is_const: true,
            };
            cx.coerce(v, &to, "a `printf` argument")
        }
        // A wide literal: a pointer to its characters.
        Type::WideStr => super::wstring::literal_pointer(v).unwrap_or_else(|v| v),
        _ => v,
    };
    let Some(s) = v.ty.scalar() else {
        // `%s` takes a string literal or a `char*` (printed up to its 0).
        let c_string =
            matches!(&v.ty, Type::Ptr { elem, .. } if **elem == Type::Scalar(Scalar::Char));
        let wide_string =
            matches!(&v.ty, Type::Ptr { elem, .. } if **elem == Type::Scalar(Scalar::WChar));
        if spec.kind() == Kind::Str && spec.length == Length::Long {
            if wide_string {
                return Some(v);
            }
            wrong(cx, &v, text, "a wide string (a `wchar_t*`)", "");
            return None;
        }
        if (v.ty == Type::Str || c_string) && spec.kind() == Kind::Str {
            return Some(v);
        }
        let expects = match spec.kind() {
            Kind::Str => "a string (a literal or a `char*`)",
            Kind::Double => "a `double`",
            _ => "an integer",
        };
        let help = if wide_string && spec.kind() == Kind::Str {
            "use `%ls` for a wide string"
        } else {
            ""
        };
        wrong(cx, &v, text, expects, help);
        return None;
    };
    let wide = spec.length.wide();
    // Arguments narrower than `int` arrive promoted to `int`.
    let small = s.promotes_to_int() || matches!(s, Scalar::Int | Scalar::UInt);
    let long = matches!(s, Scalar::Long | Scalar::ULong);
    let conv = char::from(spec.conv);
    match spec.kind() {
        Kind::Signed | Kind::Unsigned => {
            let fits = if wide { long } else { small };
            if !fits {
                let expects = match (spec.kind(), wide) {
                    (Kind::Signed, false) => "an `int`",
                    (Kind::Signed, true) => "a `long`",
                    (_, false) => "an `unsigned int`",
                    (_, true) => "an `unsigned long`",
                };
                let help = if long {
                    format!("use `%l{conv}` for a `{}`", s.name())
                } else if small {
                    format!(
                        "use `%{conv}` for an `{}`, or convert it: `(long)x`",
                        s.name()
                    )
                } else {
                    format!(
                        "use `%f`, `%g` or `%e` for a `{}`, or convert it: `(int)x`",
                        s.name()
                    )
                };
                wrong(cx, &v, text, expects, &help);
                return None;
            }
            Some(if small {
                let to = if s == Scalar::UInt {
                    Scalar::UInt
                } else {
                    Scalar::Int
                };
                cx.convert_scalar(v, to)
            } else {
                v
            })
        }
        Kind::Char => {
            if !small {
                wrong(
                    cx,
                    &v,
                    text,
                    "an `int` (a character)",
                    "convert it: `(char)x`",
                );
                return None;
            }
            Some(cx.convert_scalar(v, Scalar::Int))
        }
        Kind::Double => {
            if !s.is_floating() {
                wrong(
                    cx,
                    &v,
                    text,
                    "a `double`",
                    &format!(
                        "use `%d` (`%ld` for a `long`, `%u` for unsigned) for an `{}`, or convert it: `(double)x`",
                        s.name()
                    ),
                );
                return None;
            }
            Some(cx.convert_scalar(v, Scalar::Double))
        }
        Kind::Str => {
            wrong(cx, &v, text, "a string literal", "");
            None
        }
        Kind::Percent | Kind::Invalid => None,
    }
}
