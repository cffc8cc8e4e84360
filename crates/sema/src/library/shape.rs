//! `index<N>`, `extent<N>`, `tiled_extent<...>`, `tiled_index<...>` and
//! `tile_barrier`: construction, components, arithmetic and members.

use super::{
    arity, as_extent, as_index, int_const, intrinsic, is_pure, mk, no_member, shape_rank, sync,
    to_int, untile, untile_index,
};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{BinOp, Expr, ExprKind, Intrinsic, Rank, Scalar, TileShape, TiledIndexPart, Type};
use tessera_syntax::ast::{self, BinaryOp, UnaryOp};

/// Example tile sizes for a rank, for help lines.
fn tile_example(rank: Rank) -> &'static str {
    match rank {
        1 => "256",
        2 => "16, 16",
        _ => "4, 8, 8",
    }
}

/// An `extent<N>` holding the dimensions of a tile.
fn tile_dims(shape: TileShape, offset: i64, span: Span) -> Expr {
    let dims = shape
        .dims()
        .iter()
        .map(|&d| int_const(i64::from(d) + offset, span))
        .collect();
    intrinsic(Intrinsic::MakeShape, dims, Type::Extent(shape.rank), span)
}

/// `index<N>` or `extent<N>` built from `N` ints.
fn make_shape(ints: Vec<Expr>, ty: Type, span: Span) -> Expr {
    intrinsic(Intrinsic::MakeShape, ints, ty, span)
}

/// Reports E0210 for an operator the shape types do not define.
fn invalid(cx: &mut FnCx<'_>, op: BinaryOp, l: &Expr, r: &Expr, span: Span, help: &str) -> Expr {
    invalid_as(cx, op, l, r, span, help, None)
}

/// [`invalid`], naming the MSVC error when it is known.
fn invalid_as(
    cx: &mut FnCx<'_>,
    op: BinaryOp,
    l: &Expr,
    r: &Expr,
    span: Span,
    help: &str,
    msvc: Option<&'static str>,
) -> Expr {
    let (a, b) = (cx.ck.show(&l.ty), cx.ck.show(&r.ty));
    let mut d = Diagnostic::error(
        codes::E0210,
        span,
        format!("no operator `{}` for `{a}` and `{b}`", op.symbol()),
    )
    .with_label("invalid operands")
    .with_secondary(l.span, format!("`{a}`"))
    .with_secondary(r.span, format!("`{b}`"));
    if !help.is_empty() {
        d = d.with_help(help);
    }
    if let Some(msvc) = msvc {
        d = d.with_msvc(msvc);
    }
    cx.ck.report(d);
    error_expr(span)
}

/// A tiled index as its global index, a tiled extent as its extent.
fn normalize(cx: &mut FnCx<'_>, e: Expr) -> Expr {
    let e = untile(e);
    untile_index(cx, e)
}

/// `e[i]`: a component of an index or extent.
pub(super) fn subscript(cx: &mut FnCx<'_>, base: Expr, index: Expr, span: Span) -> Expr {
    if let Type::TiledIndex(_) = base.ty {
        let shown = cx.ck.show(&base.ty);
        cx.ck.error(
            codes::E0210,
            span,
            format!("`{shown}` cannot be indexed"),
            "not indexable",
            "index one of its parts: `t_idx.global[0]`, `t_idx.local[0]`, `t_idx.tile[0]`",
        );
        return error_expr(span);
    }
    // Components of an index or extent variable can be assigned; those of a
    // tiled extent cannot (its dimensions are fixed by the launch).
    let place = base.place && matches!(base.ty, Type::Index(_) | Type::Extent(_));
    let base = untile(base);
    let index = to_int(cx, index, "a component number");
    if index.ty.is_error() {
        return error_expr(span);
    }
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::ShapeComponent,
            args: vec![base, index],
        },
        Type::INT,
        place,
        span,
    )
}

/// A binary operator with an index, extent, tiled index or tiled extent operand.
pub(super) fn binary(cx: &mut FnCx<'_>, op: BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
    let l = normalize(cx, l);
    let r = normalize(cx, r);
    if l.ty.is_error() || r.ty.is_error() {
        return error_expr(span);
    }
    let Some(bop) = crate::expr::bin_op(op) else {
        return invalid(cx, op, &l, &r, span, "");
    };
    let arith = matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
    );
    match (&l.ty, &r.ty) {
        (Type::Index(a) | Type::Extent(a), Type::Index(b) | Type::Extent(b)) => {
            if a != b {
                return invalid(cx, op, &l, &r, span, "the ranks must be the same");
            }
            match op {
                BinaryOp::Eq | BinaryOp::Ne if l.ty == r.ty => {
                    intrinsic(Intrinsic::ShapeArith(bop), vec![l, r], Type::BOOL, span)
                }
                BinaryOp::Eq | BinaryOp::Ne => invalid(
                    cx,
                    op,
                    &l,
                    &r,
                    span,
                    "compare an index with an index, or an extent with an extent",
                ),
                BinaryOp::Add | BinaryOp::Sub => {
                    let ty = match (&l.ty, &r.ty) {
                        (Type::Index(_), Type::Index(_)) => Type::Index(*a),
                        (Type::Extent(_), _) => Type::Extent(*a),
                        _ => {
                            return invalid(
                                cx,
                                op,
                                &l,
                                &r,
                                span,
                                "put the extent first: `e + idx`",
                            );
                        }
                    };
                    intrinsic(Intrinsic::ShapeArith(bop), vec![l, r], ty, span)
                }
                // amp.h's `*`, `/` and `%` take an `int` on the right:
                // another shape is a right operand none takes (C2679).
                _ => invalid_as(
                    cx,
                    op,
                    &l,
                    &r,
                    span,
                    "`*`, `/` and `%` combine an index or extent with an `int` only",
                    matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem).then_some("C2679"),
                ),
            }
        }
        (Type::Index(_) | Type::Extent(_), Type::Scalar(_)) if arith => {
            let ty = l.ty.clone();
            let r = cx.convert_scalar(r, Scalar::Int);
            intrinsic(Intrinsic::ShapeArith(bop), vec![l, r], ty, span)
        }
        (Type::Scalar(_), Type::Index(n) | Type::Extent(n)) if arith => {
            let (ty, n) = (r.ty.clone(), *n);
            let l = cx.convert_scalar(l, Scalar::Int);
            if matches!(op, BinaryOp::Add | BinaryOp::Mul) {
                // Commutative: the scalar goes right, where `ShapeArith` takes it.
                return intrinsic(Intrinsic::ShapeArith(bop), vec![r, l], ty, span);
            }
            if !is_pure(&l) {
                cx.ck.error(
                    codes::E0211,
                    l.span,
                    format!(
                        "`int {} {}` with a computed left operand is not supported",
                        op.symbol(),
                        cx.ck.show(&ty)
                    ),
                    "computed here",
                    "store the value in a variable first",
                );
                return error_expr(span);
            }
            let lspan = l.span;
            let spread = make_shape(vec![l; usize::from(n)], ty.clone(), lspan);
            intrinsic(Intrinsic::ShapeArith(bop), vec![spread, r], ty, span)
        }
        _ => invalid(cx, op, &l, &r, span, ""),
    }
}

/// `idx op= value` on an index or extent: `idx = idx op value`.
pub(super) fn compound_assign(
    cx: &mut FnCx<'_>,
    op: BinaryOp,
    target: Expr,
    value: Expr,
    span: Span,
) -> Expr {
    cx.check_writable(&target, "assigned");
    if !matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
    ) {
        let (a, b) = (cx.ck.show(&target.ty), cx.ck.show(&value.ty));
        cx.ck.error(
            codes::E0210,
            span,
            format!("no operator `{}=` for `{a}` and `{b}`", op.symbol()),
            "invalid operands",
            "",
        );
        return error_expr(span);
    }
    if !is_pure(&target) {
        let shown = cx.ck.show(&target.ty);
        cx.ck.error(
            codes::E0211,
            target.span,
            format!(
                "`{}=` on a computed `{shown}` location is not supported",
                op.symbol()
            ),
            "computed location",
            "write the new value with `=`: `x = x + v`",
        );
        return error_expr(span);
    }
    let ty = target.ty.clone();
    // `i += v` calls a member `operator+=` of the index or extent (of
    // another index or extent of its rank, or of an `int`): a value none
    // takes is MSVC's C2679.
    let from = cx.ck.diags.len();
    let value = binary(cx, op, target.clone(), value, span);
    super::name_msvc(cx, from, codes::E0210, "C2679");
    if value.ty.is_error() {
        return error_expr(span);
    }
    if value.ty != ty {
        let (a, b) = (cx.ck.show(&ty), cx.ck.show(&value.ty));
        cx.ck.error(
            codes::E0203,
            span,
            format!(
                "mismatched types: `{}=` makes a `{b}`, the target is `{a}`",
                op.symbol()
            ),
            "here",
            "",
        );
        return error_expr(span);
    }
    mk(
        ExprKind::Assign {
            target: Box::new(target),
            value: Box::new(value),
        },
        ty,
        true,
        span,
    )
}

/// `++`/`--` on an index or extent: every component changes by one.
pub(super) fn inc_dec(cx: &mut FnCx<'_>, target: Expr, op: UnaryOp, span: Span) -> Expr {
    cx.check_writable(&target, "incremented");
    if target.ty.is_error() {
        return error_expr(span);
    }
    if !is_pure(&target) {
        let shown = cx.ck.show(&target.ty);
        cx.ck.error(
            codes::E0211,
            target.span,
            format!("`++`/`--` on a computed `{shown}` location is not supported"),
            "computed location",
            "write the new value with `=`: `x = x + 1`",
        );
        return error_expr(span);
    }
    let increment = matches!(op, UnaryOp::PreInc | UnaryOp::PostInc);
    let prefix = matches!(op, UnaryOp::PreInc | UnaryOp::PreDec);
    let (step, undo) = if increment {
        (BinOp::Add, BinOp::Sub)
    } else {
        (BinOp::Sub, BinOp::Add)
    };
    let ty = target.ty.clone();
    let stepped = intrinsic(
        Intrinsic::ShapeArith(step),
        vec![target.clone(), int_const(1, span)],
        ty.clone(),
        span,
    );
    let assigned = mk(
        ExprKind::Assign {
            target: Box::new(target),
            value: Box::new(stepped),
        },
        ty.clone(),
        true,
        span,
    );
    if prefix {
        return assigned;
    }
    // The old value: the new one, stepped back.
    intrinsic(
        Intrinsic::ShapeArith(undo),
        vec![assigned, int_const(1, span)],
        ty,
        span,
    )
}

/// `index<N>(...)` / `extent<N>(...)`.
pub(super) fn construct(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    let Some(n) = shape_rank(ty) else {
        return error_expr(span);
    };
    let shown = cx.ck.show(ty);
    if args.is_empty() {
        let zeros = (0..n).map(|_| int_const(0, span)).collect();
        return make_shape(zeros, ty.clone(), span);
    }
    // `extent<3>(dims)`, `index<2>(p)`: the first `n` elements of an `int`
    // array (or what an `int*` points to), each read with its bounds checked.
    if let [one] = args.as_slice()
        && let Some(elem) = match &one.ty {
            Type::CArray(elem, _) if one.place => Some(elem.as_ref()),
            Type::Ptr { elem, .. } => Some(elem.as_ref()),
            _ => None,
        }
        && matches!(elem, Type::Scalar(s) if s.is_integral())
    {
        let elem = elem.clone();
        let ints = (0..n)
            .map(|i| {
                let at = Expr {
                    ty: Type::Scalar(Scalar::Long),
                    kind: ExprKind::Const(tessera_ir::Const::Int(i64::from(i))),
                    place: false,
                    span,
                };
                let item = match &one.ty {
                    Type::CArray(..) => Expr {
                        kind: ExprKind::Element {
                            base: Box::new(one.clone()),
                            index: Box::new(at),
                        },
                        ty: elem.clone(),
                        place: true,
                        span,
                    },
                    _ => {
                        let moved = Expr {
                            kind: ExprKind::PtrAdd {
                                ptr: Box::new(one.clone()),
                                offset: Box::new(at),
                            },
                            ty: one.ty.clone(),
                            place: false,
                            span,
                        };
                        Expr {
                            kind: ExprKind::Deref(Box::new(moved)),
                            ty: elem.clone(),
                            place: true,
                            span,
                        }
                    }
                };
                to_int(cx, item, "a dimension")
            })
            .collect();
        return make_shape(ints, ty.clone(), span);
    }
    if let [one] = args.as_slice()
        && !matches!(one.ty, Type::Scalar(_))
    {
        let one = normalize(cx, one.clone());
        if one.ty.is_error() {
            return error_expr(span);
        }
        return Expr {
            place: false,
            ..super::coerce_argument(cx, one, ty, &format!("the `{shown}` to copy"))
        };
    }
    if let Some(bad) = args.iter().find(|a| !matches!(a.ty, Type::Scalar(_))) {
        let found = cx.ck.show(&bad.ty);
        cx.ck.report(
            Diagnostic::error(
                codes::E0203,
                bad.span,
                format!("mismatched types: `{shown}` is built from integers, found `{found}`"),
            )
            .with_label(format!("this is `{found}`"))
            .with_help(format!(
                "write `{shown}({})`",
                (0..n)
                    .map(|i| format!("n{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
        return error_expr(span);
    }
    if args.len() != usize::from(n) || n > 3 {
        let what = if n > 3 {
            format!(
                "`{shown}` has no constructor taking {} integers (C++ AMP has them for ranks 1 to 3 only)",
                args.len()
            )
        } else {
            format!(
                "`{shown}` is built from {n} integer{}, but {} were given",
                if n == 1 { "" } else { "s" },
                args.len()
            )
        };
        let d = Diagnostic::error(codes::E0206, span, what).with_label("wrong number of values");
        // amp.h has a constructor of 1, 2 and 3 integers for every rank,
        // each with a `static_assert` on the rank; none takes more.
        let d = if args.len() > 3 {
            d.with_msvc("C2661")
        } else {
            super::amp_static_assert(d)
        };
        cx.ck.report(d);
        return error_expr(span);
    }
    let ints = args
        .into_iter()
        .map(|a| cx.convert_scalar(a, Scalar::Int))
        .collect();
    make_shape(ints, ty.clone(), span)
}

/// Copies of a `tiled_extent`, `tiled_index` or `tile_barrier`; nothing else builds them.
pub(super) fn construct_tiled(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    if let [one] = args.as_slice()
        && &one.ty == ty
    {
        return Expr {
            place: false,
            ..one.clone()
        };
    }
    // `tiled_extent<4>(e)`: the extent tiled, as `e.tile<4>()` makes it.
    if let (Type::TiledExtent(shape), [one]) = (ty, args.as_slice())
        && one.ty == Type::Extent(shape.rank)
    {
        return intrinsic(Intrinsic::Tile, vec![one.clone()], ty.clone(), span);
    }
    let shown = cx.ck.show(ty);
    let help = match ty {
        Type::TiledExtent(s) => format!("tile an extent: `e.tile<{s}>()`"),
        Type::TiledIndex(_) => {
            "only `parallel_for_each` makes tiled indices: take one as the kernel's parameter"
                .to_string()
        }
        _ => "a `tile_barrier` comes from a tiled index: `t_idx.barrier`".to_string(),
    };
    cx.ck.error(
        codes::E0203,
        span,
        format!("a `{shown}` cannot be built from these arguments"),
        "no such constructor",
        help,
    );
    error_expr(span)
}

/// The names of the methods of a shape type, for help lines.
fn methods_of(ty: &Type) -> &'static [&'static str] {
    match ty {
        Type::Extent(_) => &["size", "contains", "tile"],
        Type::TiledExtent(_) => &["size", "contains", "pad", "truncate", "get_tile_extent"],
        Type::TiledIndex(_) => &["get_tile_extent"],
        Type::TileBarrier => &[
            "wait",
            "wait_with_all_memory_fence",
            "wait_with_global_memory_fence",
            "wait_with_tile_static_memory_fence",
        ],
        _ => &[],
    }
}

/// What a shape type has, for help lines.
fn members_help(ty: &Type) -> &'static str {
    match ty {
        Type::Index(_) => "an `index` has `rank` and its components `i[0]`, ...",
        Type::Extent(_) => "an `extent` has `rank`, `size()`, `contains(idx)` and `tile<...>()`",
        Type::TiledExtent(_) => {
            "a `tiled_extent` has `rank`, `tile_extent`, `tile_dim0`..`tile_dim2`, `pad()`, `truncate()`, `size()` and `contains(idx)`"
        }
        Type::TiledIndex(_) => {
            "a `tiled_index` has `global`, `local`, `tile`, `tile_origin`, `tile_extent`, `barrier` and `tile_dim0`..`tile_dim2`"
        }
        _ => {
            "a `tile_barrier` has the methods `wait()`, `wait_with_all_memory_fence()`, `wait_with_global_memory_fence()` and `wait_with_tile_static_memory_fence()`"
        }
    }
}

/// `rank` and `tile_dimK`, constant members.
fn constant_member(ty: &Type, name: &str, span: Span) -> Option<Expr> {
    let rank = shape_rank(ty)?;
    if name == "rank" {
        return Some(int_const(i64::from(rank), span));
    }
    let shape = match ty {
        Type::TiledExtent(s) | Type::TiledIndex(s) => *s,
        _ => return None,
    };
    let k: usize = name.strip_prefix("tile_dim")?.parse().ok()?;
    let d = shape.dims().get(k)?;
    Some(int_const(i64::from(*d), span))
}

/// A data member of a shape type.
pub(super) fn member(cx: &mut FnCx<'_>, base: Expr, name: &ast::Ident, span: Span) -> Expr {
    let ty = base.ty.clone();
    if let Some(c) = constant_member(&ty, &name.name, span) {
        return c;
    }
    match (&ty, name.name.as_str()) {
        (Type::Index(n), "barrier") => return sync::no_barrier(cx, &ty, *n, name),
        (Type::TiledIndex(s), part) => {
            let part = match part {
                "global" => Some(TiledIndexPart::Global),
                "local" => Some(TiledIndexPart::Local),
                "tile" => Some(TiledIndexPart::Tile),
                "tile_origin" => Some(TiledIndexPart::TileOrigin),
                "tile_extent" => Some(TiledIndexPart::TileExtent),
                "barrier" => return sync::barrier_of(base, span),
                _ => None,
            };
            if let Some(part) = part {
                let ty = if part == TiledIndexPart::TileExtent {
                    Type::Extent(s.rank)
                } else {
                    Type::Index(s.rank)
                };
                return intrinsic(Intrinsic::TiledIndexPart(part), vec![base], ty, span);
            }
        }
        (Type::TiledExtent(s), "tile_extent") => return tile_dims(*s, 0, span),
        _ => {}
    }
    let help = if methods_of(&ty).contains(&name.name.as_str()) {
        format!("`{0}` is a method: call it, `x.{0}()`", name.name)
    } else {
        members_help(&ty).to_string()
    };
    no_member(cx, &ty, name, &help)
}

/// The shape of `tile<...>` with the constants visible here.
fn tile_shape(cx: &mut FnCx<'_>, span: Span, args: &[ast::TemplateArg]) -> Option<TileShape> {
    let visible = cx.visible_consts();
    let lookup = move |n: &str| visible.get(n);
    crate::types::tile_shape(cx.ck, span, args, &lookup, false)
}

/// `e.tile<D0, ...>()`.
fn tile(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    template_args: Option<&[ast::TemplateArg]>,
    args: &[Expr],
    span: Span,
) -> Expr {
    let Type::Extent(n) = base.ty else {
        return no_member(cx, &base.ty.clone(), name, "only an `extent` can be tiled");
    };
    let example = tile_example(n);
    let targs = match template_args {
        Some(t) if !t.is_empty() => t,
        _ => {
            cx.ck.error(
                codes::E0213,
                name.span,
                "`tile` needs the tile's dimensions as template arguments",
                "no tile dimensions",
                format!("write `e.tile<{example}>()`"),
            );
            return error_expr(span);
        }
    };
    if !arity(
        cx,
        "`extent::tile`",
        args,
        0,
        "no arguments: the dimensions are template arguments",
        span,
    ) {
        return error_expr(span);
    }
    if n > 3 {
        cx.ck.report(
            Diagnostic::error(
                codes::E0213,
                name.span,
                format!("only extents of rank 1, 2 or 3 can be tiled, not `extent<{n}>`"),
            )
            .with_label("rank too high")
            .with_note("MSVC reports this as C2338 (a `static_assert` in `<amp.h>`)")
            .standing_for("C2338"),
        );
        return error_expr(span);
    }
    let Some(shape) = tile_shape(cx, name.span, targs) else {
        return error_expr(span);
    };
    if shape.rank != n {
        let plural = if n == 1 { "" } else { "s" };
        cx.ck.report(
            Diagnostic::error(
                codes::E0213,
                name.span,
                format!(
                    "`extent<{n}>::tile` takes {n} tile dimension{plural}, but {} were given",
                    shape.rank
                ),
            )
            .with_label(format!(
                "a tile of rank {} for an extent of rank {n}",
                shape.rank
            ))
            .with_note("MSVC reports this as C2338 (a `static_assert` in `<amp.h>`)")
            .standing_for("C2338")
            .with_help(format!(
                "give one tile size per dimension: `e.tile<{example}>()`"
            )),
        );
        return error_expr(span);
    }
    intrinsic(Intrinsic::Tile, vec![base], Type::TiledExtent(shape), span)
}

/// `te.pad()` (dimensions rounded up to whole tiles) and `te.truncate()`
/// (rounded down), lowered to arithmetic on the extent.
fn pad_truncate(base: Expr, shape: TileShape, pad: bool, span: Span) -> Expr {
    let rank = shape.rank;
    let Some(ext) = as_extent(base) else {
        return error_expr(span);
    };
    let arith = |op: BinOp, l: Expr, r: Expr| {
        intrinsic(
            Intrinsic::ShapeArith(op),
            vec![l, r],
            Type::Extent(rank),
            span,
        )
    };
    let start = if pad {
        arith(BinOp::Add, ext, tile_dims(shape, -1, span))
    } else {
        ext
    };
    let tiles = arith(BinOp::Div, start, tile_dims(shape, 0, span));
    let whole = arith(BinOp::Mul, tiles, tile_dims(shape, 0, span));
    intrinsic(Intrinsic::Tile, vec![whole], Type::TiledExtent(shape), span)
}

/// A method of a shape type.
pub(super) fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    template_args: Option<&[ast::TemplateArg]>,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let ty = base.ty.clone();
    let m = name.name.as_str();
    if let Type::TileBarrier = ty
        && let Some(fence) = sync::wait_fence(m)
    {
        return sync::barrier_wait(cx, base, name, fence, args, span);
    }
    let is_extent = matches!(ty, Type::Extent(_) | Type::TiledExtent(_));
    match (m, &ty) {
        ("tile", _) => return tile(cx, base, name, template_args, &args, span),
        ("size", _) if is_extent => {
            if !arity(cx, "`extent::size`", &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let Some(ext) = as_extent(base) else {
                return error_expr(span);
            };
            return intrinsic(
                Intrinsic::ExtentSize,
                vec![ext],
                Type::Scalar(Scalar::UInt),
                span,
            );
        }
        ("contains", _) if is_extent => return contains(cx, base, args, span),
        ("pad" | "truncate", Type::TiledExtent(s)) => {
            if !arity(
                cx,
                &format!("`tiled_extent::{m}`"),
                &args,
                0,
                "no arguments",
                span,
            ) {
                return error_expr(span);
            }
            return pad_truncate(base, *s, m == "pad", span);
        }
        ("get_tile_extent", Type::TiledExtent(s)) => {
            if !arity(cx, "`get_tile_extent`", &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            return tile_dims(*s, 0, span);
        }
        ("get_tile_extent", Type::TiledIndex(s)) => {
            if !arity(cx, "`get_tile_extent`", &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let ty = Type::Extent(s.rank);
            return intrinsic(
                Intrinsic::TiledIndexPart(TiledIndexPart::TileExtent),
                vec![base],
                ty,
                span,
            );
        }
        _ => {}
    }
    let help = match (&ty, m) {
        (
            Type::TiledIndex(_),
            "wait"
            | "wait_with_all_memory_fence"
            | "wait_with_global_memory_fence"
            | "wait_with_tile_static_memory_fence",
        ) => {
            format!("wait at the tile's barrier: `t_idx.barrier.{m}()`")
        }
        (
            Type::Index(n),
            "wait"
            | "wait_with_all_memory_fence"
            | "wait_with_global_memory_fence"
            | "wait_with_tile_static_memory_fence",
        ) => {
            return sync::no_barrier(cx, &ty, *n, name);
        }
        _ => members_help(&ty).to_string(),
    };
    no_member(cx, &ty, name, &help)
}

/// `e.contains(idx)`.
fn contains(cx: &mut FnCx<'_>, base: Expr, args: Vec<Expr>, span: Span) -> Expr {
    if !arity(cx, "`extent::contains`", &args, 1, "an index", span) {
        return error_expr(span);
    }
    let Some(ext) = as_extent(base) else {
        return error_expr(span);
    };
    let Type::Extent(n) = ext.ty else {
        return error_expr(span);
    };
    let Some(arg) = args.into_iter().next() else {
        return error_expr(span);
    };
    let want = Type::Index(n);
    let idx = match as_index(cx, arg.clone()) {
        Some(idx) if idx.ty == want || idx.ty.is_error() => idx,
        _ => super::coerce_argument(cx, arg, &want, "the index to look for"),
    };
    if idx.ty.is_error() {
        return error_expr(span);
    }
    intrinsic(Intrinsic::ExtentContains, vec![ext, idx], Type::BOOL, span)
}
