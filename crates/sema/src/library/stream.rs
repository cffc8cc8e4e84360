//! `std::cout`, `std::cerr`, their wide twins `std::wcout`/`std::wcerr`,
//! `operator<<` and the `<iostream>`/`<iomanip>` manipulators.

use super::{Ns, Side, arity, check_side, intrinsic, mk, namespace};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{
    Const, Expr, ExprKind, Intrinsic, Manipulator, Scalar, StreamMember, StringStreamKind, Type,
};
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
    ("setiosflags", Manipulator::Setiosflags),
    ("resetiosflags", Manipulator::Resetiosflags),
];

/// The help for stream use in amp code.
const AMP_HELP: &str = "kernels cannot print: write the results into an `array_view` and print them on the host after the kernel";

/// `std::ios::fixed`, `std::ios_base::adjustfield` (also without `std::`
/// under `using namespace std;`): a format flag, an `int` constant with
/// libstdc++'s value.
fn flag_constant(path: &ast::Path) -> Option<Expr> {
    let names: Vec<&str> = path.segments.iter().map(|s| s.name.as_str()).collect();
    let flag = match names.as_slice() {
        ["std", "ios" | "ios_base", flag] | ["ios" | "ios_base", flag] => *flag,
        _ => return None,
    };
    let value = tessera_ir::fmtflags::named(flag)?;
    Some(mk(
        ExprKind::Const(Const::Int(i64::from(value))),
        Type::Scalar(Scalar::Int),
        false,
        path.span,
    ))
}

/// `std::cout` or a manipulator used as a value.
pub(super) fn name(cx: &mut FnCx<'_>, path: &ast::Path) -> Option<Expr> {
    if let Some(e) = flag_constant(path) {
        return Some(e);
    }
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
        // The input stream reads as a string stream does, its text coming
        // from the program's input.
        "cin" => Some((Intrinsic::Stdin, Type::StringStream(StringStreamKind::Cin))),
        "wcin" => Some((
            Intrinsic::Stdin,
            Type::StringStream(StringStreamKind::WideCin),
        )),
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
    let takes = match m {
        Manipulator::Setfill => "the fill character",
        Manipulator::Setiosflags | Manipulator::Resetiosflags => "the flags (`std::ios::fmtflags`)",
        _ => "one integer",
    };
    if !arity(cx, &what, &args, 1, takes, span) {
        return error_expr(span);
    }
    let Some(arg) = args.into_iter().next() else {
        return error_expr(span);
    };
    // C++ converts any number to the `int` parameter.
    let Some(arg) = super::number_arg(cx, &what, takes, arg, tessera_ir::Scalar::Int) else {
        return error_expr(span);
    };
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

/// The format member functions of a stream, by name.
const FORMAT_MEMBERS: &[(&str, StreamMember)] = &[
    ("precision", StreamMember::Precision),
    ("width", StreamMember::Width),
    ("fill", StreamMember::Fill),
    ("flags", StreamMember::Flags),
    ("setf", StreamMember::Setf),
    ("unsetf", StreamMember::Unsetf),
];

/// True when `name` is a member function of a stream's format
/// (`precision`, `width`, `fill`, `flags`, `setf`, `unsetf`).
pub(super) fn is_format_member(name: &str) -> bool {
    FORMAT_MEMBERS.iter().any(|(n, _)| *n == name)
}

/// `stream.precision(n)` and the other format members of a stream: the
/// same state the manipulators set, so `std::cout.precision(3)` works as
/// `std::cout << std::setprecision(3)` does. Each answers the value before
/// the call, as in C++.
pub(super) fn format_member(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let shown = cx.ck.show(&base.ty);
    let what = format!("`{shown}::{}`", name.name);
    if !check_side(cx, Side::Host, &what, name.span, "C3930", AMP_HELP) {
        return error_expr(span);
    }
    let Some(&(_, member)) = FORMAT_MEMBERS.iter().find(|(n, _)| *n == name.name) else {
        return error_expr(span);
    };
    let wide = match base.ty {
        Type::WideOstream => true,
        Type::StringStream(kind) => kind.wide(),
        _ => false,
    };
    // What each takes (its arguments' type and how many) and answers.
    let (arg_ty, counts, takes, result) = match member {
        StreamMember::Precision | StreamMember::Width => (
            Scalar::Long,
            &[0, 1][..],
            "nothing, or the new value (a `std::streamsize`)",
            Type::Scalar(Scalar::Long),
        ),
        StreamMember::Fill => (
            Scalar::Int,
            &[0, 1][..],
            "nothing, or the new fill character",
            Type::Scalar(if wide { Scalar::WChar } else { Scalar::Char }),
        ),
        StreamMember::Flags => (
            Scalar::Int,
            &[0, 1][..],
            "nothing, or the new flags (`std::ios::fmtflags`)",
            Type::Scalar(Scalar::Int),
        ),
        _ if name.name == "setf" => (
            Scalar::Int,
            &[1, 2][..],
            "the flags to set, and optionally the field they replace (`std::ios::floatfield`)",
            Type::Scalar(Scalar::Int),
        ),
        _ => (Scalar::Int, &[1][..], "the flags to clear", Type::Void),
    };
    if !counts.contains(&args.len()) {
        let want = if args.len() < counts[0] {
            counts[0]
        } else {
            counts[counts.len() - 1]
        };
        arity(cx, &what, &args, want, takes, span);
        return error_expr(span);
    }
    let member = match member {
        StreamMember::Setf if args.len() == 2 => StreamMember::SetfMasked,
        other => other,
    };
    let mut lowered = vec![base];
    for arg in args {
        let Some(arg) = super::number_arg(cx, &what, takes, arg, arg_ty) else {
            return error_expr(span);
        };
        lowered.push(arg);
    }
    intrinsic(Intrinsic::StreamFormat(member), lowered, result, span)
}

/// `std::ios::sync_with_stdio(b)` (also `std::ios_base::`), if `path` names
/// it: `true`, what libstdc++ answers the first time. Tessera keeps C's
/// stdio and the streams in one order whatever is asked, which is one of
/// the orders C++ allows once they are not in step.
pub(super) fn sync_with_stdio(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    args: &[Expr],
    span: Span,
) -> Option<Expr> {
    let names: Vec<&str> = path.segments.iter().map(|s| s.name.as_str()).collect();
    if !matches!(
        names.as_slice(),
        ["std", "ios" | "ios_base", "sync_with_stdio"] | ["ios" | "ios_base", "sync_with_stdio"]
    ) {
        return None;
    }
    let what = format!("`{}`", path.text());
    if !check_side(cx, Side::Host, &what, path.span, "C3930", AMP_HELP) {
        return Some(error_expr(span));
    }
    if args.len() > 1 || args.iter().any(|a| a.ty.scalar().is_none()) {
        arity(cx, &what, args, 1, "a `bool`", span);
        return Some(error_expr(span));
    }
    Some(mk(
        ExprKind::Const(Const::Bool(true)),
        Type::BOOL,
        false,
        span,
    ))
}
