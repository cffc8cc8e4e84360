//! Helpers for the analyses' unit tests: programs from source through the
//! whole checker, and typed programs built by hand.

use std::cell::Cell;
use tessera_diagnostics::{Diagnostic, FileId, SourceFile, Sources, Span};
use tessera_ir::{
    AtomicOp, BinOp, Block, Capture, Const, Expr, ExprKind, Fence, FuncId, Function, FunctionKind,
    Init, Intrinsic, Local, LocalId, Program, Restriction, Scalar, Space, Stmt, StmtKind,
    SwitchArm, TileShape, TiledIndexPart, Type,
};

/// Every diagnostic of checking `src` (parse and check), in order.
pub fn check_src(src: &str) -> Vec<Diagnostic> {
    let mut sources = Sources::new();
    let (file, replaced) = SourceFile::from_bytes("test.amp", src.as_bytes());
    let id = sources.add(file);
    let parsed = tessera_syntax::parse_file(&sources, id, &replaced);
    let mut out = parsed.diagnostics;
    out.extend(crate::check(&parsed.unit).diagnostics);
    out
}

/// The codes of [`check_src`], in order.
pub fn src_codes(src: &str) -> Vec<&'static str> {
    check_src(src).iter().map(|d| d.code.as_str()).collect()
}

/// The codes the analyses report on a hand-built program.
pub fn ir_codes(program: &Program) -> Vec<&'static str> {
    ir_diags(program).iter().map(|d| d.code.as_str()).collect()
}

/// What the analyses report on a hand-built program.
pub fn ir_diags(program: &Program) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    super::analyse(program, &mut out);
    out
}

thread_local! {
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// A fresh span, distinct from every other one of this thread.
pub fn sp() -> Span {
    let n = NEXT.with(|c| {
        let n = c.get();
        c.set(n + 1);
        n
    });
    Span {
        file: FileId(0),
        start: n * 10,
        end: n * 10 + 5,
    }
}

fn mk(kind: ExprKind, ty: Type, place: bool) -> Expr {
    Expr {
        kind,
        ty,
        place,
        span: sp(),
    }
}

/// An `int` constant.
pub fn int(v: i64) -> Expr {
    mk(ExprKind::Const(Const::Int(v)), Type::INT, false)
}

/// A `float` constant.
pub fn float(v: f32) -> Expr {
    mk(ExprKind::Const(Const::Float(v)), Type::FLOAT, false)
}

/// A local (a place).
pub fn var(id: u32, ty: Type) -> Expr {
    mk(ExprKind::Local(LocalId(id)), ty, true)
}

/// An `int` local.
pub fn ivar(id: u32) -> Expr {
    var(id, Type::INT)
}

/// A captured variable.
pub fn cap(slot: u32, ty: Type) -> Expr {
    mk(ExprKind::Capture(slot), ty, true)
}

/// A 1-d tile shape.
pub fn tile1(n: u32) -> TileShape {
    TileShape {
        dims: [n, 1, 1],
        rank: 1,
    }
}

/// A part of the kernel's `tiled_index` (local 0).
pub fn part(which: TiledIndexPart, shape: TileShape) -> Expr {
    let t = var(0, Type::TiledIndex(shape));
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::TiledIndexPart(which),
            args: vec![t],
        },
        Type::Index(shape.rank),
        false,
    )
}

/// Component `i` of an index.
pub fn comp(index: Expr, i: i64) -> Expr {
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::ShapeComponent,
            args: vec![index, int(i)],
        },
        Type::INT,
        false,
    )
}

/// `t.local[0]` of a 1-d tile of `n`.
pub fn local0(n: u32) -> Expr {
    comp(part(TiledIndexPart::Local, tile1(n)), 0)
}

/// `t.tile[0]` of a 1-d tile of `n`.
pub fn tile0(n: u32) -> Expr {
    comp(part(TiledIndexPart::Tile, tile1(n)), 0)
}

/// A binary operation; comparisons are `bool`.
pub fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let ty = match op {
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Type::BOOL,
        _ => lhs.ty.clone(),
    };
    mk(
        ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        ty,
        false,
    )
}

/// `target = value`.
pub fn assign(target: Expr, value: Expr) -> Expr {
    let ty = target.ty.clone();
    mk(
        ExprKind::Assign {
            target: Box::new(target),
            value: Box::new(value),
        },
        ty,
        true,
    )
}

/// `target op= value`.
pub fn compound(op: BinOp, target: Expr, value: Expr) -> Expr {
    let ty = target.ty.clone();
    mk(
        ExprKind::CompoundAssign {
            op,
            target: Box::new(target),
            value: Box::new(value),
        },
        ty,
        true,
    )
}

/// `++target`.
pub fn inc(target: Expr) -> Expr {
    let ty = target.ty.clone();
    mk(
        ExprKind::IncDec {
            increment: true,
            prefix: true,
            target: Box::new(target),
        },
        ty,
        true,
    )
}

/// `base[index]` on a C array.
pub fn elem(base: Expr, index: Expr) -> Expr {
    let ty = match &base.ty {
        Type::CArray(e, _) => (**e).clone(),
        _ => Type::Error,
    };
    let place = base.place;
    mk(
        ExprKind::Element {
            base: Box::new(base),
            index: Box::new(index),
        },
        ty,
        place,
    )
}

/// A call of a user function.
pub fn call(func: u32, args: Vec<Expr>, ret: Type) -> Expr {
    mk(
        ExprKind::Call {
            func: FuncId(func),
            args,
        },
        ret,
        false,
    )
}

/// `view[index]` (global memory).
pub fn view_elem(view: Expr, index: Expr, ty: Type) -> Expr {
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::ViewElement,
            args: vec![view, index],
        },
        ty,
        true,
    )
}

/// An atomic operation on `place`.
pub fn atomic(op: AtomicOp, place: Expr, value: Expr) -> Expr {
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::Atomic(op),
            args: vec![place, value],
        },
        Type::INT,
        false,
    )
}

/// `parallel_for_each` of `kernel`.
pub fn launch(kernel: u32, captures: Vec<Expr>) -> Expr {
    mk(
        ExprKind::Launch {
            domain: Box::new(int(0)),
            kernel: FuncId(kernel),
            captures,
        },
        Type::Void,
        false,
    )
}

fn st(kind: StmtKind) -> Stmt {
    Stmt::new(kind, sp())
}

/// An expression statement.
pub fn s_expr(e: Expr) -> Stmt {
    st(StmtKind::Expr(e))
}

/// A declaration with an initial value.
pub fn s_let(id: u32, init: Expr) -> Stmt {
    st(StmtKind::Let {
        local: LocalId(id),
        init: Some(Init::Expr(init)),
    })
}

/// A declaration without a value (`tile_static`).
pub fn s_decl(id: u32) -> Stmt {
    st(StmtKind::Let {
        local: LocalId(id),
        init: None,
    })
}

/// A reference bound to a place.
pub fn s_ref(id: u32, place: Expr) -> Stmt {
    st(StmtKind::Let {
        local: LocalId(id),
        init: Some(Init::Ref(place)),
    })
}

/// A block of statements.
pub fn block(stmts: Vec<Stmt>) -> Block {
    Block { stmts }
}

/// A nested block.
pub fn s_block(stmts: Vec<Stmt>) -> Stmt {
    st(StmtKind::Block(block(stmts)))
}

/// `if`.
pub fn s_if(cond: Expr, then: Vec<Stmt>, els: Option<Vec<Stmt>>) -> Stmt {
    st(StmtKind::If {
        cond,
        then: block(then),
        els: els.map(block),
    })
}

/// A `while` loop (`step` for a `for`).
pub fn s_loop(cond: Option<Expr>, body: Vec<Stmt>, step: Option<Expr>) -> Stmt {
    st(StmtKind::Loop {
        cond,
        test_first: true,
        body: block(body),
        step,
    })
}

/// `for (int counter = from; counter < to; counter += by) body`, as the checker lowers it.
pub fn s_for(counter: u32, from: Expr, to: Expr, by: Expr, body: Vec<Stmt>) -> Stmt {
    s_block(vec![
        s_let(counter, from),
        s_loop(
            Some(bin(BinOp::Lt, ivar(counter), to)),
            body,
            Some(compound(BinOp::Add, ivar(counter), by)),
        ),
    ])
}

/// `switch`.
pub fn s_switch(value: Expr, arms: Vec<(Option<i64>, Vec<Stmt>)>) -> Stmt {
    st(StmtKind::Switch {
        value,
        arms: arms
            .into_iter()
            .map(|(value, body)| SwitchArm {
                value,
                body: block(body),
            })
            .collect(),
    })
}

/// `t.barrier.wait()`.
pub fn s_barrier() -> Stmt {
    st(StmtKind::Barrier(Fence::All))
}

/// `return;`
pub fn s_return() -> Stmt {
    st(StmtKind::Return(None))
}

/// `return value;`
pub fn s_return_value(value: Expr) -> Stmt {
    st(StmtKind::Return(Some(value)))
}

/// `break;`
pub fn s_break() -> Stmt {
    st(StmtKind::Break)
}

/// `continue;`
pub fn s_continue() -> Stmt {
    st(StmtKind::Continue)
}

/// A local description.
pub fn loc(name: &str, ty: Type, space: Space) -> Local {
    Local {
        name: name.into(),
        ty,
        by_ref: false,
        is_const: false,
        space,
        span: sp(),
    }
}

/// A private `int` local.
pub fn private(name: &str) -> Local {
    loc(name, Type::INT, Space::Private)
}

/// A `tile_static` local.
pub fn shared(name: &str, ty: Type) -> Local {
    loc(name, ty, Space::TileStatic)
}

/// `float[n]`.
pub fn floats(n: u32) -> Type {
    Type::CArray(Box::new(Type::FLOAT), n)
}

/// A kernel whose local 0 is its index; `more` are its other locals.
pub fn kernel(
    tile: Option<TileShape>,
    captures: Vec<Capture>,
    more: Vec<Local>,
    body: Vec<Stmt>,
) -> Function {
    let index = match tile {
        Some(t) => Type::TiledIndex(t),
        None => Type::Index(1),
    };
    let mut locals = vec![loc("t", index, Space::Private)];
    locals.extend(more);
    Function {
        name: "<kernel>".into(),
        kind: FunctionKind::Kernel { tile, captures },
        restriction: Restriction {
            cpu: false,
            amp: true,
        },
        params: 1,
        locals,
        ret: Type::Void,
        ret_by_ref: false,
        body: Some(block(body)),
        stmt_count: 0,
        span: sp(),
    }
}

/// A capture of an `int`.
pub fn int_capture(name: &str) -> Capture {
    Capture {
        name: name.into(),
        ty: Type::INT,
        by_ref: false,
    }
}

/// A capture of a writable `array_view<float, 1>`.
pub fn view_capture(name: &str) -> Capture {
    Capture {
        name: name.into(),
        ty: float_view(),
        by_ref: false,
    }
}

/// `array_view<float, 1>`.
pub fn float_view() -> Type {
    Type::ArrayView {
        elem: Box::new(Type::FLOAT),
        rank: 1,
        read_only: false,
    }
}

/// A plain function: `params` parameters first among `locals`.
pub fn plain(
    name: &str,
    amp: bool,
    params: u32,
    locals: Vec<Local>,
    ret: Type,
    body: Vec<Stmt>,
) -> Function {
    Function {
        name: name.into(),
        kind: FunctionKind::Plain,
        restriction: Restriction { cpu: !amp, amp },
        params,
        locals,
        ret,
        ret_by_ref: false,
        body: Some(block(body)),
        stmt_count: 0,
        span: sp(),
    }
}

/// A program of these functions (the first is `main` when it is a host function).
pub fn program(functions: Vec<Function>) -> Program {
    let main = functions
        .first()
        .filter(|f| !f.restriction.amp)
        .map(|_| FuncId(0));
    Program {
        structs: Vec::new(),
        globals: Vec::new(),
        functions,
        main,
        dynamic: Default::default(),
    }
}

/// The host `main` of a test program: launches each of `kernels`.
pub fn main_launching(kernels: &[u32]) -> Function {
    let body = kernels
        .iter()
        .map(|&k| s_expr(launch(k, Vec::new())))
        .collect();
    plain("main", false, 0, Vec::new(), Type::INT, body)
}

/// A tiled kernel of `n` work-items per tile with these extra locals
/// (ids from 1) and statements, launched by `main` (function 0) as function 1.
pub fn tiled_program(n: u32, more: Vec<Local>, body: Vec<Stmt>) -> Program {
    program(vec![
        main_launching(&[1]),
        kernel(
            Some(tile1(n)),
            vec![int_capture("n"), view_capture("data")],
            more,
            body,
        ),
    ])
}

/// `float` scalar type.
pub fn float_ty() -> Type {
    Type::Scalar(Scalar::Float)
}
