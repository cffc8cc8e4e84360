//! `<sstream>`: `std::stringstream`, `std::istringstream` and
//! `std::ostringstream`.
//!
//! A string stream is a library type (`Type::StringStream`) whose value,
//! at run time, is a handle to the text it holds, its read position, its
//! format (the same as `std::cout`'s: `<<` on it is `Intrinsic::Print`)
//! and its state flags. It cannot be copied, so every name of a stream is
//! the one stream. A writing stream binds a `std::ostream&` (the class
//! derives from it in C++), through `Intrinsic::StreamAsOstream`.
//!
//! The text going in and out is a `std::string`'s characters: the
//! `std::vector<char>` member `__chars` of `<string>`'s class (written in
//! the Tessera language), which always ends in a zero. `ss.str()` builds a
//! `std::string` around a new such vector, and `ss >> s` and
//! `std::getline(ss, s)` write the member of `s` in place.

use super::{Side, arity, check_side, intrinsic, mk};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, ExprKind, Intrinsic, Scalar, StreamQuery, StringStreamKind, Type};
use tessera_syntax::ast;

/// The help for string streams in amp code.
const AMP_HELP: &str = "string streams live on the host: build the text after the kernel";

/// What a string stream has, for the help of an unknown member.
const MEMBERS: &str = "a string stream has `<<` (writing ones), `>>`, `get()`, `peek()` and `ignore()` (reading ones), `str()`, `str(s)`, `good()`, `fail()`, `eof()`, `bad()`, `clear()` and the format members (`precision`, `setf`, ...); `std::getline(stream, s)` reads a line";

/// What `std::cout` and the other output streams have, for the help of an
/// unknown member.
const OSTREAM_MEMBERS: &str = "an output stream has `<<`, `put(c)`, `flush()`, `good()`, `fail()`, `eof()`, `bad()`, `clear()` and the format members (`precision`, `setf`, ...)";

/// What `std::cin` has, for the help of an unknown member.
const CIN_MEMBERS: &str = "`std::cin` has `>>`, `get()`, `peek()`, `ignore()`, `good()`, `fail()`, `eof()`, `bad()`, `clear()` and the format members (`precision`, `setf`, ...); `std::getline(std::cin, s)` reads a line";

/// The name the `std::string` class has in the typed program.
const STRING_CLASS: &str = "std::string";

/// The member of `std::string` holding its characters and their zero.
const CHARS_FIELD: &str = "__chars";

/// True for a string stream's type.
pub(super) fn is_string_stream(ty: &Type) -> bool {
    matches!(ty, Type::StringStream(_))
}

/// The `std::string` class and the position of its characters, when
/// `<string>` was included.
fn string_class(cx: &FnCx<'_>) -> Option<(tessera_ir::StructId, u32)> {
    let id = *cx.ck.structs.get(STRING_CLASS)?;
    let def = cx.ck.program.get_struct(id)?;
    let field = def.fields.iter().position(|(n, _)| n == CHARS_FIELD)?;
    Some((id, u32::try_from(field).ok()?))
}

/// The characters (`std::vector<char>` ending in a zero) of a `std::string`
/// expression, a place when the string is one.
fn chars_of(cx: &FnCx<'_>, s: Expr) -> Option<Expr> {
    let (id, field) = string_class(cx)?;
    if s.ty != Type::Struct(id) {
        return None;
    }
    let (place, span) = (s.place, s.span);
    Some(mk(
        ExprKind::Field {
            base: Box::new(s),
            field,
        },
        Type::Vector(Box::new(Type::Scalar(Scalar::Char))),
        place,
        span,
    ))
}

/// The characters of `s` when it is a `std::string` (for a range `for`,
/// which loops over them without their final zero), or `s` itself.
pub(crate) fn string_chars(cx: &FnCx<'_>, s: Expr) -> Result<Expr, Expr> {
    match string_class(cx) {
        Some((id, _)) if s.ty == Type::Struct(id) => chars_of(cx, s.clone()).ok_or(s),
        _ => Err(s),
    }
}

/// `value` as a `std::string` (a literal or `const char*` converted), and
/// its characters; reports and answers `None` when it is not a string.
fn text_arg(cx: &mut FnCx<'_>, value: Expr, what: &str) -> Option<Expr> {
    let Some((id, _)) = string_class(cx) else {
        cx.ck.error(
            codes::E0211,
            value.span,
            format!("{what} needs `std::string`, which is not declared"),
            "not supported here",
            "include <sstream> or <string>",
        );
        return None;
    };
    let s = cx.coerce(value, &Type::Struct(id), what);
    if s.ty.is_error() {
        return None;
    }
    chars_of(cx, s)
}

/// The text given to a string stream of `kind`: a `std::string`'s
/// characters, or for a wide stream a `std::wstring`.
fn text_of_kind(
    cx: &mut FnCx<'_>,
    kind: StringStreamKind,
    value: Expr,
    what: &str,
) -> Option<Expr> {
    if !kind.wide() {
        return text_arg(cx, value, what);
    }
    let text = cx.coerce(value, &Type::WideStr, what);
    (!text.ty.is_error()).then_some(text)
}

/// A `std::string` holding the characters `chars` (a `std::vector<char>`
/// ending in a zero); reports when `std::string` is not declared.
fn string_of(cx: &mut FnCx<'_>, chars: Expr, span: Span) -> Expr {
    match string_class(cx) {
        Some((id, _)) => mk(
            ExprKind::Aggregate(vec![chars]),
            Type::Struct(id),
            false,
            span,
        ),
        None => {
            cx.ck.error(
                codes::E0211,
                span,
                "`str()` makes a `std::string`, which is not declared",
                "not supported here",
                "include <sstream> or <string>",
            );
            error_expr(span)
        }
    }
}

/// `std::stringstream ss;`, `std::istringstream in(text);`.
pub(super) fn construct(
    cx: &mut FnCx<'_>,
    kind: StringStreamKind,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    if !check_side(
        cx,
        Side::Host,
        &format!("`{}`", kind.name()),
        span,
        "C3930",
        AMP_HELP,
    ) {
        return error_expr(span);
    }
    let ty = Type::StringStream(kind);
    match <[Expr; 0]>::try_from(args) {
        Ok([]) => intrinsic(Intrinsic::StringStreamNew, Vec::new(), ty, span),
        Err(args) => {
            let mut args = args.into_iter();
            let (Some(text), None) = (args.next(), args.next()) else {
                cx.ck.error(
                    codes::E0211,
                    span,
                    format!("this `{}` constructor is not supported yet", kind.name()),
                    "not supported",
                    "build a string stream from nothing or from a string: `std::istringstream in(text);` (open modes are not supported)",
                );
                return error_expr(span);
            };
            match text_of_kind(cx, kind, text, "the stream's text") {
                Some(chars) => intrinsic(Intrinsic::StringStreamNew, vec![chars], ty, span),
                None => error_expr(span),
            }
        }
    }
}

/// A member function call on a string stream (or on a `std::ostream&`,
/// for the state functions).
pub(super) fn method(
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
    let query = match name.name.as_str() {
        "good" => Some(StreamQuery::Good),
        "fail" => Some(StreamQuery::Fail),
        "eof" => Some(StreamQuery::Eof),
        "bad" => Some(StreamQuery::Bad),
        _ => None,
    };
    if let Some(q) = query {
        if !arity(cx, &what, &args, 0, "no arguments", span) {
            return error_expr(span);
        }
        return intrinsic(Intrinsic::StreamQuery(q), vec![base], Type::BOOL, span);
    }
    let reads = matches!(base.ty, Type::StringStream(kind) if kind.reads());
    let writes = match base.ty {
        Type::StringStream(kind) => kind.writes(),
        _ => true,
    };
    match name.name.as_str() {
        "get" if reads && args.len() == 1 => return get_char(cx, base, &what, args, span),
        "getline" if reads && !matches!(base.ty, Type::StringStream(k) if k.wide()) => {
            return getline_buffer(cx, base, &what, args, span);
        }
        "get" | "peek" if reads => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let op = if name.name == "get" {
                Intrinsic::StreamGet
            } else {
                Intrinsic::StreamPeek
            };
            return intrinsic(op, vec![base], Type::INT, span);
        }
        "ignore" if reads => return ignore(cx, base, &what, args, span),
        // `std::cin.tie(nullptr)`: Tessera writes `std::cout`'s text out
        // before every read either way, which an untied stream may also
        // do; the result (the old tie, a pointer) is not supported.
        "tie" if reads && args.len() == 1 => {
            if !matches!(args[0].ty, Type::Null | Type::Scalar(_) | Type::Ptr { .. }) {
                let shown = cx.ck.show(&args[0].ty);
                cx.ck.error(
                    codes::E0203,
                    args[0].span,
                    format!("mismatched types: {what} takes a stream's address, not `{shown}`"),
                    format!("this is `{shown}`"),
                    "",
                );
                return error_expr(span);
            }
            // The library's no-op (as `future.wait()` is).
            return intrinsic(Intrinsic::DeviceWait, Vec::new(), Type::Void, span);
        }
        "flush" | "put" if writes => return unformatted(cx, base, name, &what, args, span),
        _ => {}
    }
    let text_stream = matches!(base.ty, Type::StringStream(kind) if !kind.is_stdin());
    match (name.name.as_str(), text_stream) {
        ("clear", _) => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            intrinsic(Intrinsic::StreamClear, vec![base], Type::Void, span)
        }
        ("str", true) => match <[Expr; 0]>::try_from(args) {
            Ok([]) if matches!(base.ty, Type::StringStream(k) if k.wide()) => {
                intrinsic(Intrinsic::StreamText, vec![base], Type::WideStr, span)
            }
            Ok([]) => {
                let chars = intrinsic(
                    Intrinsic::StreamText,
                    vec![base],
                    Type::Vector(Box::new(Type::Scalar(Scalar::Char))),
                    span,
                );
                string_of(cx, chars, span)
            }
            Err(args) => {
                if !arity(cx, &what, &args, 1, "nothing, or the new text", span) {
                    return error_expr(span);
                }
                let Some(text) = args.into_iter().next() else {
                    return error_expr(span);
                };
                let Type::StringStream(kind) = base.ty else {
                    return error_expr(span);
                };
                match text_of_kind(cx, kind, text, "the stream's new text") {
                    Some(chars) => intrinsic(
                        Intrinsic::StreamSetText,
                        vec![base, chars],
                        Type::Void,
                        span,
                    ),
                    None => error_expr(span),
                }
            }
        },
        _ => {
            cx.ck.error(
                codes::E0211,
                name.span,
                format!("{what} is not supported yet"),
                "not supported",
                match base.ty {
                    Type::StringStream(kind) if kind.is_stdin() => CIN_MEMBERS,
                    Type::StringStream(_) => MEMBERS,
                    _ => OSTREAM_MEMBERS,
                },
            );
            error_expr(span)
        }
    }
}

/// `out.flush()` and `out.put(c)`: written as `out << std::flush` and an
/// unformatted byte (`Manipulator::Put`); the result is the stream, for a
/// chain (`std::cout.put('a').put('\n')`).
fn unformatted(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    what: &str,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let flush = name.name == "flush";
    let (want, takes) = if flush {
        (0, "no arguments")
    } else {
        (1, "a character")
    };
    if !arity(cx, what, &args, want, takes, span) {
        return error_expr(span);
    }
    let value = match args.into_iter().next() {
        None => intrinsic(
            Intrinsic::Manipulator(tessera_ir::Manipulator::Flush),
            Vec::new(),
            Type::Manipulator,
            span,
        ),
        Some(c) if c.ty.scalar().is_some() => {
            let c = cx.convert_scalar(c, Scalar::Int);
            intrinsic(
                Intrinsic::Manipulator(tessera_ir::Manipulator::Put),
                vec![c],
                Type::Manipulator,
                span,
            )
        }
        Some(c) => {
            let shown = cx.ck.show(&c.ty);
            cx.ck.error(
                codes::E0203,
                c.span,
                format!("mismatched types: {what} takes a character, not `{shown}`"),
                format!("this is `{shown}`"),
                "",
            );
            return error_expr(span);
        }
    };
    let ty = base.ty.clone();
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::Print,
            args: vec![base, value],
        },
        ty,
        true,
        span,
    )
}

/// `in.get(c)`: the next byte, white space too, into a `char`.
fn get_char(cx: &mut FnCx<'_>, base: Expr, what: &str, args: Vec<Expr>, span: Span) -> Expr {
    let Some(target) = args.into_iter().next() else {
        return error_expr(span);
    };
    if target.ty != Type::Scalar(Scalar::Char) || !target.place {
        let shown = cx.ck.show(&target.ty);
        cx.ck.error(
            codes::E0203,
            target.span,
            format!("{what} reads into a `char` variable, not `{shown}`"),
            format!("this is `{shown}`"),
            "",
        );
        return error_expr(span);
    }
    cx.check_writable(&target, "read into by `get`");
    let ty = base.ty.clone();
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::StreamGetChar,
            args: vec![base, target],
        },
        ty,
        true,
        span,
    )
}

/// `in.getline(buf, n)` and `in.getline(buf, n, delim)` into a `char`
/// array (or a `char*`).
fn getline_buffer(cx: &mut FnCx<'_>, base: Expr, what: &str, args: Vec<Expr>, span: Span) -> Expr {
    if args.len() != 2 && args.len() != 3 {
        arity(
            cx,
            what,
            &args,
            2,
            "a `char` buffer, its size and an optional delimiter",
            span,
        );
        return error_expr(span);
    }
    let mut args = args.into_iter();
    let (Some(buffer), Some(count)) = (args.next(), args.next()) else {
        return error_expr(span);
    };
    let char_ptr = Type::Ptr {
        elem: Box::new(Type::Scalar(Scalar::Char)),
        is_const: false,
    };
    let buffer = cx.coerce(buffer, &char_ptr, "the buffer");
    if buffer.ty.is_error() {
        return error_expr(span);
    }
    let mut rest = vec![count];
    rest.extend(args);
    let mut lowered = vec![base, buffer];
    for (i, arg) in rest.into_iter().enumerate() {
        let to = if i == 0 { Scalar::Long } else { Scalar::Char };
        let Some(arg) = super::number_arg(cx, what, "a size and a delimiter", arg, to) else {
            return error_expr(span);
        };
        lowered.push(arg);
    }
    if lowered.len() < 4 {
        lowered.push(mk(
            ExprKind::Const(tessera_ir::Const::Int(i64::from(b'\n'))),
            Type::Scalar(Scalar::Char),
            false,
            span,
        ));
    }
    let ty = lowered[0].ty.clone();
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::StreamGetlineBuf,
            args: lowered,
        },
        ty,
        true,
        span,
    )
}

/// `in.ignore()`, `in.ignore(n)`, `in.ignore(n, delim)`.
fn ignore(cx: &mut FnCx<'_>, base: Expr, what: &str, args: Vec<Expr>, span: Span) -> Expr {
    if args.len() > 2 {
        arity(
            cx,
            what,
            &args,
            2,
            "an optional count and an optional delimiter",
            span,
        );
        return error_expr(span);
    }
    let mut lowered = vec![base];
    for (i, arg) in args.into_iter().enumerate() {
        let to = if i == 0 { Scalar::Long } else { Scalar::Int };
        let Some(arg) = super::number_arg(cx, what, "a count and a delimiter", arg, to) else {
            return error_expr(span);
        };
        lowered.push(arg);
    }
    // The defaults: one byte, no delimiter (EOF).
    if lowered.len() < 2 {
        lowered.push(mk(
            ExprKind::Const(tessera_ir::Const::Int(1)),
            Type::Scalar(Scalar::Long),
            false,
            span,
        ));
    }
    if lowered.len() < 3 {
        lowered.push(mk(
            ExprKind::Const(tessera_ir::Const::Int(-1)),
            Type::INT,
            false,
            span,
        ));
    }
    intrinsic(Intrinsic::StreamIgnore, lowered, Type::Void, span)
}

/// `stream >> target`.
pub(crate) fn read(cx: &mut FnCx<'_>, stream: Expr, target: Expr, span: Span) -> Expr {
    if stream.ty.is_error() || target.ty.is_error() {
        return error_expr(span);
    }
    let Type::StringStream(kind) = stream.ty else {
        return error_expr(span);
    };
    if !kind.reads() {
        cx.ck.report(
            Diagnostic::error(
                codes::E0210,
                span,
                format!("no operator `>>` for `{}`", kind.name()),
            )
            .with_label("writes only")
            .with_secondary(stream.span, "an output stream")
            .with_help("read from a `std::istringstream` or a `std::stringstream`"),
        );
        return error_expr(span);
    }
    if !check_side(cx, Side::Host, "reading a stream", span, "C3930", AMP_HELP) {
        return error_expr(span);
    }
    // `in >> std::hex`: a manipulator changes the format, as on output.
    if target.ty == Type::Manipulator {
        let ty = stream.ty.clone();
        return mk(
            ExprKind::Intrinsic {
                op: Intrinsic::StreamRead,
                args: vec![stream, target],
            },
            ty,
            true,
            span,
        );
    }
    // A narrow stream has no `>>` for `wchar_t` (nor does C++), a wide one
    // none for `char`; a wide stream reads words into a `std::wstring`.
    let readable = match &target.ty {
        Type::Scalar(s) if kind.wide() => !matches!(
            s,
            Scalar::Bool | Scalar::WChar | Scalar::Char | Scalar::UChar
        ),
        Type::Scalar(s) => !matches!(s, Scalar::Bool | Scalar::WChar),
        Type::WideStr => kind.wide(),
        _ => false,
    };
    let target = if readable {
        target
    } else if let Some(chars) = chars_of(cx, target.clone()).filter(|_| !kind.wide()) {
        chars
    } else {
        let shown = cx.ck.show(&target.ty);
        let code =
            if target.ty == Type::BOOL || kind.wide() && target.ty == Type::Scalar(Scalar::WChar) {
                codes::E0211
            } else {
                codes::E0210
            };
        cx.ck.report(
            Diagnostic::error(
                code,
                target.span,
                format!("a value of type `{shown}` cannot be read from a stream"),
            )
            .with_label(format!("this is `{shown}`"))
            .with_secondary(stream.span, "the stream")
            .with_help("read numbers, `char`s and `std::string`s (words)"),
        );
        return error_expr(span);
    };
    if !read_target(cx, &target, target.span, "`>>`") {
        return error_expr(span);
    }
    let ty = stream.ty.clone();
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::StreamRead,
            args: vec![stream, target],
        },
        ty,
        true,
        span,
    )
}

/// `std::getline(stream, s)` and `std::getline(stream, s, delim)`.
pub(super) fn getline(cx: &mut FnCx<'_>, args: Vec<Expr>, span: Span) -> Expr {
    if !check_side(cx, Side::Host, "`std::getline`", span, "C3930", AMP_HELP) {
        return error_expr(span);
    }
    if args.len() != 2 && args.len() != 3 {
        arity(
            cx,
            "`std::getline`",
            &args,
            2,
            "a stream, a `std::string` and an optional delimiter",
            span,
        );
        return error_expr(span);
    }
    let mut args = args.into_iter();
    let (Some(stream), Some(target)) = (args.next(), args.next()) else {
        return error_expr(span);
    };
    let delim = match args.next() {
        Some(d) => {
            if d.ty.scalar().is_none() {
                let shown = cx.ck.show(&d.ty);
                cx.ck.error(
                    codes::E0203,
                    d.span,
                    format!("the delimiter of `std::getline` is a `char`, not `{shown}`"),
                    format!("this is `{shown}`"),
                    "",
                );
                return error_expr(span);
            }
            cx.convert_scalar(d, Scalar::Char)
        }
        None => mk(
            ExprKind::Const(tessera_ir::Const::Int(i64::from(b'\n'))),
            Type::Scalar(Scalar::Char),
            false,
            span,
        ),
    };
    let Type::StringStream(kind) = stream.ty else {
        let shown = cx.ck.show(&stream.ty);
        let code = if matches!(stream.ty, Type::Ostream | Type::WideOstream) {
            codes::E0210
        } else {
            codes::E0203
        };
        cx.ck.report(
            Diagnostic::error(
                code,
                stream.span,
                format!("`std::getline` reads from an input stream, not `{shown}`"),
            )
            .with_label(format!("this is `{shown}`"))
            .with_help(
                "read lines from `std::cin`, a `std::istringstream` or a `std::stringstream`",
            ),
        );
        return error_expr(span);
    };
    if kind.wide() {
        cx.ck.error(
            codes::E0211,
            stream.span,
            format!("`std::getline` on a `{}` is not supported yet", kind.name()),
            "a wide stream",
            "read words with `>>`, or use a narrow `std::istringstream`",
        );
        return error_expr(span);
    }
    if !kind.reads() {
        cx.ck.error(
            codes::E0210,
            stream.span,
            format!("`std::getline` reads, and a `{}` only writes", kind.name()),
            "an output stream",
            "read from a `std::istringstream` or a `std::stringstream`",
        );
        return error_expr(span);
    }
    let Some(chars) = chars_of(cx, target.clone()) else {
        let shown = cx.ck.show(&target.ty);
        cx.ck.error(
            codes::E0203,
            target.span,
            format!("`std::getline` reads into a `std::string`, not `{shown}`"),
            format!("this is `{shown}`"),
            "",
        );
        return error_expr(span);
    };
    if !read_target(cx, &chars, target.span, "`std::getline`") {
        return error_expr(span);
    }
    let ty = stream.ty.clone();
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::StreamGetline,
            args: vec![stream, chars, delim],
        },
        ty,
        true,
        span,
    )
}

/// `if (stream)`, `!stream`, `while (ss >> x)`: whether the stream has
/// not failed.
pub(crate) fn truth(stream: Expr) -> Expr {
    let span = stream.span;
    intrinsic(
        Intrinsic::StreamQuery(StreamQuery::Ok),
        vec![stream],
        Type::BOOL,
        span,
    )
}

/// A writing string stream bound to a `std::ostream&` (`std::wostream&`
/// for a wide one): the same stream.
pub(crate) fn as_ostream(stream: Expr) -> Expr {
    let (place, span) = (stream.place, stream.span);
    let base = match stream.ty {
        Type::StringStream(kind) => kind.base(),
        _ => Type::Ostream,
    };
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::StreamAsOstream,
            args: vec![stream],
        },
        base,
        place,
        span,
    )
}

/// A reading string stream bound to a `std::istream&` (of type `base`,
/// the type of `std::cin`): the same stream.
pub(crate) fn as_base(stream: Expr, base: Type) -> Expr {
    let (place, span) = (stream.place, stream.span);
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::StreamAsOstream,
            args: vec![stream],
        },
        base,
        place,
        span,
    )
}

/// `std::stoi` and its family: the name, the type each returns, and
/// whether it takes a base.
const STRING_TO_NUMBER: &[(&str, Scalar, bool)] = &[
    ("stoi", Scalar::Int, true),
    ("stol", Scalar::Long, true),
    ("stoll", Scalar::Long, true),
    ("stoul", Scalar::ULong, true),
    ("stoull", Scalar::ULong, true),
    ("stof", Scalar::Float, false),
    ("stod", Scalar::Double, false),
];

/// `std::stoi(s)`, `std::stoi(s, &pos)`, `std::stoi(s, &pos, base)` and the
/// others of the family (`Intrinsic::StringToNumber`), if `name` is one.
pub(super) fn string_to_number(
    cx: &mut FnCx<'_>,
    name: &str,
    args: &[Expr],
    span: Span,
) -> Option<Expr> {
    let &(function, result, takes_base) = STRING_TO_NUMBER.iter().find(|(n, ..)| *n == name)?;
    let what = format!("`std::{function}`");
    if !check_side(cx, Side::Host, &what, span, "C3930", AMP_HELP) {
        return Some(error_expr(span));
    }
    let most = if takes_base { 3 } else { 2 };
    if args.is_empty() || args.len() > most {
        let takes = if takes_base {
            "a string, and optionally where to store the position after the number and the base"
        } else {
            "a string, and optionally where to store the position after the number"
        };
        arity(cx, &what, args, most, takes, span);
        return Some(error_expr(span));
    }
    let mut args = args.iter().cloned();
    let text = args.next()?;
    let chars = match text_arg(cx, text, &format!("the text of {what}")) {
        Some(chars) => chars,
        None => return Some(error_expr(span)),
    };
    let idx_ptr = Type::Ptr {
        elem: Box::new(Type::Scalar(Scalar::ULong)),
        is_const: false,
    };
    let idx = match args.next() {
        Some(idx) => cx.coerce(idx, &idx_ptr, "the position"),
        None => mk(ExprKind::Null, idx_ptr, false, span),
    };
    let base = match args.next() {
        Some(base) => cx.coerce(base, &Type::Scalar(Scalar::Int), "the base"),
        None => mk(
            ExprKind::Const(tessera_ir::Const::Int(10)),
            Type::Scalar(Scalar::Int),
            false,
            span,
        ),
    };
    Some(intrinsic(
        Intrinsic::StringToNumber {
            name: tessera_ir::LiteralName(function),
        },
        vec![chars, idx, base],
        Type::Scalar(result),
        span,
    ))
}

/// Whether `target` is a variable that `reader` (`>>`, `std::getline`) may
/// read into; E0204 at `at` (the argument as written) for a temporary, and
/// the const checks of a write.
fn read_target(cx: &mut FnCx<'_>, target: &Expr, at: Span, reader: &str) -> bool {
    if !target.place {
        cx.ck.error(
            codes::E0204,
            at,
            format!("{reader} reads into a variable, not a temporary value"),
            "temporary",
            "read into a variable",
        );
        return false;
    }
    cx.check_writable(target, &format!("read into by {reader}"));
    true
}
