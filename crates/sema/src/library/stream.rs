//! `std::cout`, `std::cerr`, their wide twins `std::wcout`/`std::wcerr`,
//! `operator<<` and the `<iostream>`/`<iomanip>` manipulators.

use super::{Ns, Side, arity, check_side, intrinsic, mk, namespace};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, ExprKind, Intrinsic, Manipulator, Type};
use tessera_syntax::ast::{self, BinaryOp};

/// Manipulators used as values: `std::cout << std::endl`.
const MANIPULATORS: &[(&str, Manipulator)] = &[
    ("endl", Manipulator::Endl),
    ("fixed", Manipulator::Fixed),
    ("scientific", Manipulator::Scientific),
    ("defaultfloat", Manipulator::DefaultFloat),
    ("left", Manipulator::Left),
    ("right", Manipulator::Right),
    ("hex", Manipulator::Hex),
    ("dec", Manipulator::Dec),
    ("boolalpha", Manipulator::Boolalpha),
    ("noboolalpha", Manipulator::Noboolalpha),
    ("oct", Manipulator::Oct),
    ("showpos", Manipulator::Showpos),
    ("noshowpos", Manipulator::Noshowpos),
    ("showpoint", Manipulator::Showpoint),
    ("noshowpoint", Manipulator::Noshowpoint),
    ("uppercase", Manipulator::Uppercase),
    ("nouppercase", Manipulator::Nouppercase),
    ("showbase", Manipulator::Showbase),
    ("noshowbase", Manipulator::Noshowbase),
    ("internal", Manipulator::Internal),
    ("hexfloat", Manipulator::Hexfloat),
    ("flush", Manipulator::Flush),
    ("ends", Manipulator::Ends),
];

/// Manipulators called with one integer: `std::setw(4)`.
const MANIPULATOR_FNS: &[(&str, Manipulator)] = &[
    ("setw", Manipulator::Setw),
    ("setprecision", Manipulator::Setprecision),
    ("setfill", Manipulator::Setfill),
];

/// The help for stream use in amp code.
const AMP_HELP: &str = "kernels cannot print: write the results into an `array_view` and print them on the host after the kernel";

/// `std::cout` or a manipulator used as a value.
pub(super) fn name(cx: &mut FnCx<'_>, path: &ast::Path) -> Option<Expr> {
    if !matches!(namespace(path), Ns::Std | Ns::Unqualified) {
        return None;
    }
    let span = path.span;
    let last = path.last();
    let stream = match last {
        "cout" => Some((Intrinsic::Stdout, Type::Ostream)),
        "wcout" => Some((Intrinsic::Stdout, Type::WideOstream)),
        // `clog` is `cerr` with a buffer; the text and its order are the same.
        "cerr" | "clog" => Some((Intrinsic::Stderr, Type::Ostream)),
        "wcerr" | "wclog" => Some((Intrinsic::Stderr, Type::WideOstream)),
        _ => None,
    };
    let (e, msvc) = if let Some((op, ty)) = stream {
        // Only the first operand of `Print` has this type; see the module docs.
        (
            mk(
                ExprKind::Intrinsic {
                    op,
                    args: Vec::new(),
                },
                ty,
                true,
                span,
            ),
            "C3586 (a global variable)",
        )
    } else {
        let m = MANIPULATORS.iter().find(|(n, _)| *n == last)?.1;
        (
            intrinsic(
                Intrinsic::Manipulator(m),
                Vec::new(),
                Type::Manipulator,
                span,
            ),
            "C3930",
        )
    };
    if cx.in_amp() {
        check_side(
            cx,
            Side::Host,
            &format!("`{}`", path.text()),
            span,
            msvc,
            AMP_HELP,
        );
        return Some(error_expr(span));
    }
    Some(e)
}

/// The manipulator a function name makes (`setw`), if it is one.
pub(super) fn manipulator_fn(name: &str) -> Option<Manipulator> {
    MANIPULATOR_FNS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, m)| *m)
}

/// `std::setw(n)`, `std::setprecision(n)`, `std::setfill(c)`.
pub(super) fn manipulator_call(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    m: Manipulator,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let what = format!("`{}`", path.text());
    check_side(cx, Side::Host, &what, path.span, "C3930", AMP_HELP);
    let takes = if m == Manipulator::Setfill {
        "the fill character"
    } else {
        "one integer"
    };
    if !arity(cx, &what, &args, 1, takes, span) {
        return error_expr(span);
    }
    let Some(arg) = args.into_iter().next() else {
        return error_expr(span);
    };
    if arg.ty.scalar().is_none() {
        let shown = cx.ck.show(&arg.ty);
        cx.ck.error(
            codes::E0203,
            arg.span,
            format!("mismatched types: {what} takes {takes}, not `{shown}`"),
            format!("this is `{shown}`"),
            "",
        );
        return error_expr(span);
    }
    // C++ converts any number to the `int` parameter.
    let arg = cx.convert_scalar(arg, tessera_ir::Scalar::Int);
    intrinsic(
        Intrinsic::Manipulator(m),
        vec![arg],
        Type::Manipulator,
        span,
    )
}

/// `stream op value` where the left operand is `std::cout`.
pub(super) fn shift(
    cx: &mut FnCx<'_>,
    op: BinaryOp,
    stream: Expr,
    value: Expr,
    span: Span,
) -> Expr {
    if op != BinaryOp::Shl {
        cx.ck.error(
            codes::E0210,
            span,
            format!("no operator `{}` for `std::ostream`", op.symbol()),
            "invalid operands",
            "write values to a stream with `<<`: `std::cout << x`",
        );
        return error_expr(span);
    }
    if let Type::StringStream(kind) = stream.ty
        && !kind.writes()
    {
        cx.ck.report(
            Diagnostic::error(
                codes::E0210,
                span,
                format!("no operator `<<` for `{}`", kind.name()),
            )
            .with_label("reads only")
            .with_secondary(stream.span, "an input stream")
            .with_help("write to a `std::ostringstream` or a `std::stringstream`"),
        );
        return error_expr(span);
    }
    let wide_stream = match stream.ty {
        Type::WideOstream => true,
        Type::StringStream(kind) => kind.wide(),
        _ => false,
    };
    // A `wchar_t*` (or array) prints the wide string it points to.
    let value = super::wstring::from_pointer(cx, value).unwrap_or_else(|v| v);
    if value.ty == Type::Scalar(tessera_ir::Scalar::WChar) && !wide_stream {
        cx.ck.report(
            Diagnostic::error(
                codes::E0210,
                value.span,
                "a `wchar_t` cannot be written to a narrow stream",
            )
            .with_label("a wide character")
            .with_secondary(stream.span, "writes `char`s")
            .with_note("C++20 deletes `operator<<(std::ostream&, wchar_t)`; earlier C++ printed the character's code as a number")
            .with_help("write it to `std::wcout` (or `std::wcerr`), or convert it: `int(c)` for its code"),
        );
        return error_expr(span);
    }
    if value.ty == Type::WideStr && !wide_stream {
        cx.ck.report(
            Diagnostic::error(
                codes::E0210,
                value.span,
                "a wide string cannot be written to a narrow stream",
            )
            .with_label("a wide string")
            .with_secondary(stream.span, "writes `char`s")
            .with_note("C++ deletes `operator<<(std::ostream&, const wchar_t*)`, and has none for `std::wstring`")
            .with_help("write it to `std::wcout` (or `std::wcerr`)"),
        );
        return error_expr(span);
    }
    // A `char` array decays to a pointer to its first element, which
    // prints as the string it holds.
    let value = match &value.ty {
        Type::CArray(elem, _) if **elem == Type::Scalar(tessera_ir::Scalar::Char) => {
            let to = Type::Ptr {
                elem: elem.clone(),
                is_const: true,
            };
            cx.coerce(value, &to, "the string written")
        }
        _ => value,
    };
    // A `char*` prints the string it points to; other pointers print an
    // address, which differs from run to run.
    let char_pointer = matches!(&value.ty, Type::Ptr { elem, .. } if **elem == Type::Scalar(tessera_ir::Scalar::Char));
    let printable = char_pointer
        || matches!(
            value.ty,
            Type::Scalar(_) | Type::Str | Type::WideStr | Type::Manipulator
        );
    if !printable {
        let shown = cx.ck.show(&value.ty);
        let help = match &value.ty {
            Type::Index(_) | Type::Extent(_) => {
                "print the components: `std::cout << i[0] << \",\" << i[1]`".to_string()
            }
            Type::Struct(_) => {
                "print its members one by one: `std::cout << p.x << \" \" << p.y`".to_string()
            }
            Type::Array(..)
            | Type::ArrayView { .. }
            | Type::Vector(_)
            | Type::Container(..)
            | Type::CArray(..) => "print the elements in a loop".to_string(),
            Type::Void => "this expression has no value".to_string(),
            Type::Ptr { .. } | Type::Null => {
                "an address differs from run to run; print what it points to: `std::cout << *p`"
                    .to_string()
            }
            Type::Ostream | Type::WideOstream | Type::StringStream(_) => {
                "chain the values instead: `std::cout << a << b`".to_string()
            }
            _ => String::new(),
        };
        let mut d = Diagnostic::error(
            codes::E0210,
            value.span,
            format!("a value of type `{shown}` cannot be written to a stream"),
        )
        .with_label(format!("this is `{shown}`"))
        .with_secondary(stream.span, "the stream");
        if !help.is_empty() {
            d = d.with_help(help);
        }
        cx.ck.report(d);
        return error_expr(span);
    }
    // `bool` and `char` keep their type: the stream prints them as such.
    let ty = stream.ty.clone();
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::Print,
            args: vec![stream, value],
        },
        ty,
        true,
        span,
    )
}
