//! The values of index expressions and conditions in each work-item of a
//! tile, where the program fixes them: for the race rules, which ask whether
//! one work-item's write and another's read can reach the same
//! `tile_static` element.
//!
//! An expression has a value in a work-item when it is built from integer
//! constants, the tiled index's `local` components and `tile_extent`, and
//! private locals declared once with such an initialiser and never written
//! again. Anything else (data, loop counters, the tile's position, floating
//! point) has no value here, and a value that would leave its type's range
//! is given up rather than guessed, so a value found is the value the
//! program computes.

use super::places::PathStep;
use std::collections::{HashMap, HashSet};
use tessera_ir::{
    BinOp, Const, Expr, ExprKind, Function, Init, Intrinsic, LocalId, Program, Space, StmtKind,
    TileShape, TiledIndexPart, Type, UnOp, facts, visit,
};

/// How deep a chain of locals defined from locals is followed.
const MAX_DEPTH: u32 = 32;

/// Local coordinates of one work-item (unused dimensions 0).
pub type Coords = [i64; 3];

/// One step of a location: a struct field or a C array element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// A field, by position.
    Field(u32),
    /// An element, by index.
    Index(i64),
}

/// Evaluates expressions of one function in each work-item of a tile.
pub struct WorkItems<'p> {
    shape: TileShape,
    /// Private locals declared once with a value and never written again:
    /// their initialiser.
    defs: HashMap<LocalId, &'p Expr>,
}

impl<'p> WorkItems<'p> {
    /// The evaluator for `func`, run by tiles of `shape`.
    pub fn new(program: &'p Program, func: &'p Function, shape: TileShape) -> Self {
        let mut defs: HashMap<LocalId, &'p Expr> = HashMap::new();
        let mut declared: HashSet<LocalId> = HashSet::new();
        let mut taken: HashSet<LocalId> = HashSet::new();
        if let Some(body) = &func.body {
            let written = facts::written_roots(program, body);
            visit::for_each_stmt(body, &mut |n| match n {
                visit::Node::Stmt(s) => {
                    if let StmtKind::Let { local, init } = &s.kind {
                        // A second declaration of one id would be a new
                        // variable; keep neither.
                        if !declared.insert(*local) {
                            defs.remove(local);
                        } else if let Some(Init::Expr(e)) = init
                            && !written.contains(local)
                            && func
                                .get_local(*local)
                                .is_some_and(|l| l.space == Space::Private && !l.by_ref)
                        {
                            defs.insert(*local, e);
                        }
                    }
                }
                // A pointer may write the local behind our back.
                visit::Node::Expr(e) => visit::for_each_subexpr(e, &mut |e| {
                    if let ExprKind::AddrOf(inner) = &e.kind
                        && let Some(root) = facts::place_root(inner)
                    {
                        taken.insert(root);
                    }
                }),
            });
        }
        defs.retain(|id, _| !taken.contains(id));
        WorkItems { shape, defs }
    }

    /// The local coordinates of every work-item of a tile, in row-major order.
    pub fn all(&self) -> Vec<Coords> {
        let d = self.shape.dims;
        let dim = |i: usize| {
            if i < usize::from(self.shape.rank) {
                i64::from(d[i])
            } else {
                1
            }
        };
        let mut out = Vec::new();
        for a in 0..dim(0) {
            for b in 0..dim(1) {
                for c in 0..dim(2) {
                    out.push([a, b, c]);
                }
            }
        }
        out
    }

    /// The coordinates as the tiled index shows them: `(1,0,3)`.
    pub fn show(&self, at: &Coords) -> String {
        let rank = usize::from(self.shape.rank).clamp(1, 3);
        let parts: Vec<String> = at[..rank].iter().map(i64::to_string).collect();
        format!("({})", parts.join(","))
    }

    /// False when one of `guards` (a condition and the value it must have)
    /// is known not to hold in the work-item at `at`; true when each holds
    /// or may hold.
    pub fn may_run(&self, guards: &[(&Expr, bool)], at: &Coords) -> bool {
        guards
            .iter()
            .all(|(cond, want)| self.value(cond, at, 0).is_none_or(|v| (v != 0) == *want))
    }

    /// The location `path` names in the work-item at `at`, when every index
    /// has a value there.
    pub fn location(&self, path: &[PathStep<'_>], at: &Coords) -> Option<Vec<Step>> {
        path.iter()
            .map(|step| match step {
                PathStep::Field(f) => Some(Step::Field(*f)),
                PathStep::Index(e) => self.value(e, at, 0).map(Step::Index),
            })
            .collect()
    }

    /// The value of `e` in the work-item at `at`, if the program fixes it.
    pub fn value(&self, e: &Expr, at: &Coords, depth: u32) -> Option<i64> {
        if depth > MAX_DEPTH {
            return None;
        }
        let v = match &e.kind {
            ExprKind::Const(Const::Int(v)) => *v,
            ExprKind::Const(Const::Bool(b)) => i64::from(*b),
            ExprKind::Local(id) => self.value(self.defs.get(id)?, at, depth + 1)?,
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => {
                let [shape, i] = args.as_slice() else {
                    return None;
                };
                let i = usize::try_from(self.value(i, at, depth + 1)?).ok()?;
                if i >= usize::from(self.shape.rank) {
                    return None;
                }
                match self.part(shape, depth + 1)? {
                    TiledIndexPart::Local => at[i],
                    TiledIndexPart::TileExtent => i64::from(self.shape.dims[i]),
                    _ => return None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (x, y) = (
                    self.value(lhs, at, depth + 1)?,
                    self.value(rhs, at, depth + 1)?,
                );
                binary(*op, x, y)?
            }
            ExprKind::Unary { op, operand } => {
                let x = self.value(operand, at, depth + 1)?;
                match op {
                    UnOp::Neg => x.checked_neg()?,
                    UnOp::BitNot => !x,
                    UnOp::Not => i64::from(x == 0),
                }
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let x = self.value(lhs, at, depth + 1)? != 0;
                if x != *and {
                    i64::from(x)
                } else {
                    i64::from(self.value(rhs, at, depth + 1)? != 0)
                }
            }
            ExprKind::Conditional { cond, then, els } => {
                if self.value(cond, at, depth + 1)? != 0 {
                    self.value(then, at, depth + 1)?
                } else {
                    self.value(els, at, depth + 1)?
                }
            }
            ExprKind::Convert(inner) => {
                let x = self.value(inner, at, depth + 1)?;
                match e.ty.scalar() {
                    Some(tessera_ir::Scalar::Bool) => i64::from(x != 0),
                    _ => x,
                }
            }
            _ => return None,
        };
        // Only values the type holds: a wrap or an overflow is not followed.
        let scalar = e.ty.scalar().filter(|s| s.is_integral())?;
        let (lo, hi) = scalar.int_range();
        (lo..=hi).contains(&v).then_some(v)
    }

    /// Which part of the kernel's tiled index `e` is (`t.local`, ...).
    fn part(&self, e: &Expr, depth: u32) -> Option<TiledIndexPart> {
        if depth > MAX_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(part),
                args,
            } if args
                .first()
                .is_some_and(|t| matches!(t.ty, Type::TiledIndex(_))) =>
            {
                Some(*part)
            }
            ExprKind::Local(id) => self.part(self.defs.get(id)?, depth + 1),
            _ => None,
        }
    }
}

/// `x op y` for integers, or `None` where C++ leaves it undefined.
fn binary(op: BinOp, x: i64, y: i64) -> Option<i64> {
    Some(match op {
        BinOp::Add => x.checked_add(y)?,
        BinOp::Sub => x.checked_sub(y)?,
        BinOp::Mul => x.checked_mul(y)?,
        BinOp::Div => x.checked_div(y)?,
        BinOp::Rem => x.checked_rem(y)?,
        BinOp::Shl => x.checked_shl(u32::try_from(y).ok().filter(|&s| s < 63)?)?,
        BinOp::Shr => x.checked_shr(u32::try_from(y).ok().filter(|&s| s < 63)?)?,
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Eq => i64::from(x == y),
        BinOp::Ne => i64::from(x != y),
        BinOp::Lt => i64::from(x < y),
        BinOp::Le => i64::from(x <= y),
        BinOp::Gt => i64::from(x > y),
        BinOp::Ge => i64::from(x >= y),
    })
}
