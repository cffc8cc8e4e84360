//! Arithmetic turned into closures that give a number, not a [`Value`].
//!
//! Most of a hot loop is `int` index arithmetic, `float` or `double` sums
//! and products, and the comparisons that end it. As [`Value`]s every step
//! of those is wrapped, matched on its variant, dispatched on its operator
//! and dropped; here an expression of type `int`, `long`, `float` or
//! `double` made of such steps becomes closures over the plain number, each
//! operator its own closure. The rules are the tree walker's: an `int` or
//! `long` operation that would overflow or divide by zero, and every
//! operator not handled here, is finished by `Machine::finish_binary` with
//! the operands already evaluated, which reports what there is to report;
//! any other form is the general closure's value, unwrapped.

use super::{Compiler, FastExpr};
use crate::machine::{Machine, Res};
use crate::value::Value;
use tessera_ir::{BinOp, Const, Expr, ExprKind, Intrinsic, LocalId, Scalar, Type};

/// An expression turned into a closure giving a number (or any `N`).
pub(super) type NumExpr<'p, N> = Box<dyn Fn(&mut Machine<'p>) -> Res<N> + 'p>;

/// An index turned into a closure: its value when it is an integer.
pub(super) type IndexExpr<'p> = Box<dyn Fn(&mut Machine<'p>) -> Res<Option<i64>> + 'p>;

/// A condition turned into a closure: its truth.
pub(super) type CondExpr<'p> = Box<dyn Fn(&mut Machine<'p>) -> Res<bool> + 'p>;

/// An operand of an operator closure: a constant or a plain local is read
/// in the operator's own closure, with no call; anything else is the
/// operand's closure. Constants and locals are most operands of a loop's
/// arithmetic and comparisons, so this takes a call and a `Result` off most
/// of them.
pub(super) enum Operand<'p, N> {
    /// A constant of the operator's type.
    Const(N),
    /// A local read where it is (`e` is the read, for the tree walker when
    /// the local is a reference or not set).
    Local(LocalId, &'p Expr),
    /// Any other expression.
    Expr(NumExpr<'p, N>),
}

impl<'p, N: Number> Operand<'p, N> {
    /// The operand's number.
    #[inline(always)]
    pub(super) fn get(&self, m: &mut Machine<'p>) -> Res<N> {
        match self {
            Operand::Const(n) => Ok(*n),
            Operand::Local(id, e) => match m.plain_local(*id).and_then(|v| N::of(v)) {
                Some(n) => Ok(n),
                None => walk::<N>(m, e),
            },
            Operand::Expr(f) => f(m),
        }
    }
}

/// Expression `e` by the tree walker, as a number: the rare path of an
/// operand, kept out of line.
#[cold]
#[inline(never)]
fn walk<'p, N: Number>(m: &mut Machine<'p>, e: &'p Expr) -> Res<N> {
    m.eval(e).map(N::from_value)
}

/// An index operand (see [`Operand`]): an `int` or `long` constant or local
/// (or an `int` local widened to `long` or `size_t`, which keeps its value)
/// read with no call, else the index's closure.
pub(super) enum IndexOperand<'p> {
    /// A constant index.
    Const(i64),
    /// An integer local (`e` is the read, for the tree walker).
    Local(LocalId, &'p Expr),
    /// Any other index.
    Expr(IndexExpr<'p>),
}

impl<'p> IndexOperand<'p> {
    /// The index, when it is an integer.
    #[inline(always)]
    pub(super) fn get(&self, m: &mut Machine<'p>) -> Res<Option<i64>> {
        match self {
            IndexOperand::Const(i) => Ok(Some(*i)),
            IndexOperand::Local(id, e) => match m.plain_local(*id) {
                Some(Value::Int(i)) => Ok(Some(*i)),
                _ => walk::<Long>(m, e).map(|n| Some(n.0)),
            },
            IndexOperand::Expr(f) => f(m),
        }
    }
}

/// A number type the closures compute in: how its values are kept in a
/// [`Value`] and which operations cannot fail on it.
pub(super) trait Number: Copy + 'static {
    /// Its type in the program.
    const SCALAR: Scalar;

    /// The number a value of this type holds.
    fn of(v: &Value) -> Option<Self>;

    /// The number of a value of this type the general path computed (one
    /// of another variant does not occur: the checker typed it).
    fn from_value(v: Value) -> Self;

    /// The number as a value.
    fn value(self) -> Value;

    /// `a op b` when it is a number of this type that cannot fail; `None`
    /// leaves the operation to the general path.
    fn arith(op: BinOp, a: Self, b: Self) -> Option<Self>;

    /// `a op b` for a comparison.
    fn compare(op: BinOp, a: Self, b: Self) -> Option<bool>;
}

/// `int`: kept as an `i64` in `i32`'s range.
#[derive(Clone, Copy)]
pub(super) struct Int(i64);

/// `long`: the whole `i64`.
#[derive(Clone, Copy)]
pub(super) struct Long(i64);

fn compare_ord<T: PartialOrd>(op: BinOp, a: T, b: T) -> Option<bool> {
    Some(match op {
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        _ => return None,
    })
}

impl Number for Int {
    const SCALAR: Scalar = Scalar::Int;

    #[inline(always)]
    fn of(v: &Value) -> Option<Self> {
        match v {
            Value::Int(i) => Some(Int(*i)),
            _ => None,
        }
    }

    fn from_value(v: Value) -> Self {
        Int(v.int())
    }

    #[inline(always)]
    fn value(self) -> Value {
        Value::Int(self.0)
    }

    #[inline(always)]
    fn arith(op: BinOp, a: Self, b: Self) -> Option<Self> {
        let (x, y) = (a.0 as i32, b.0 as i32);
        let r = match op {
            BinOp::Add => x.checked_add(y)?,
            BinOp::Sub => x.checked_sub(y)?,
            BinOp::Mul => x.checked_mul(y)?,
            BinOp::Div => x.checked_div(y)?,
            BinOp::Rem => x.checked_rem(y)?,
            _ => return None,
        };
        Some(Int(i64::from(r)))
    }

    #[inline(always)]
    fn compare(op: BinOp, a: Self, b: Self) -> Option<bool> {
        compare_ord(op, a.0, b.0)
    }
}

impl Number for Long {
    const SCALAR: Scalar = Scalar::Long;

    #[inline(always)]
    fn of(v: &Value) -> Option<Self> {
        match v {
            Value::Int(i) => Some(Long(*i)),
            _ => None,
        }
    }

    fn from_value(v: Value) -> Self {
        Long(v.int())
    }

    #[inline(always)]
    fn value(self) -> Value {
        Value::Int(self.0)
    }

    #[inline(always)]
    fn arith(op: BinOp, a: Self, b: Self) -> Option<Self> {
        let r = match op {
            BinOp::Add => a.0.checked_add(b.0)?,
            BinOp::Sub => a.0.checked_sub(b.0)?,
            BinOp::Mul => a.0.checked_mul(b.0)?,
            _ => return None,
        };
        Some(Long(r))
    }

    #[inline(always)]
    fn compare(op: BinOp, a: Self, b: Self) -> Option<bool> {
        compare_ord(op, a.0, b.0)
    }
}

/// `float` and `double`: IEEE arithmetic, which cannot fail.
macro_rules! floating_number {
    ($t:ty, $scalar:ident, $variant:ident, $other:ident) => {
        impl Number for $t {
            const SCALAR: Scalar = Scalar::$scalar;

            #[inline(always)]
            fn of(v: &Value) -> Option<Self> {
                match v {
                    Value::$variant(x) => Some(*x),
                    _ => None,
                }
            }

            fn from_value(v: Value) -> Self {
                match v {
                    Value::$variant(x) => x,
                    Value::$other(x) => x as $t,
                    other => other.int() as $t,
                }
            }

            #[inline(always)]
            fn value(self) -> Value {
                Value::$variant(self)
            }

            #[inline(always)]
            fn arith(op: BinOp, a: Self, b: Self) -> Option<Self> {
                Some(match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    _ => return None,
                })
            }

            #[inline(always)]
            fn compare(op: BinOp, a: Self, b: Self) -> Option<bool> {
                compare_ord(op, a, b)
            }
        }
    };
}

floating_number!(f32, Float, Float, Double);
floating_number!(f64, Double, Double, Float);

/// The number type closures compute type `ty` in, if any.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum NumberType {
    Int,
    Long,
    Float,
    Double,
}

impl NumberType {
    pub(super) fn of(ty: &Type) -> Option<NumberType> {
        match ty {
            Type::Scalar(Scalar::Int) => Some(NumberType::Int),
            Type::Scalar(Scalar::Long) => Some(NumberType::Long),
            Type::Scalar(Scalar::Float) => Some(NumberType::Float),
            Type::Scalar(Scalar::Double) => Some(NumberType::Double),
            _ => None,
        }
    }
}

/// The value of a constant.
pub(super) fn constant(c: &Const) -> Value {
    match c {
        Const::Bool(b) => Value::Bool(*b),
        Const::Int(i) => Value::Int(*i),
        Const::Float(f) => Value::Float(*f),
        Const::Double(d) => Value::Double(*d),
    }
}

/// Whether `op` compares.
pub(super) fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

impl<'p> Compiler<'p> {
    /// Expression `e`, of type `N`, as a closure computing its number.
    pub(super) fn number<N: Number>(&self, e: &'p Expr) -> NumExpr<'p, N> {
        match &e.kind {
            ExprKind::Const(c) => {
                if let Some(n) = N::of(&constant(c)) {
                    return Box::new(move |_| Ok(n));
                }
            }
            ExprKind::Local(id) => {
                let id = *id;
                return Box::new(move |m| match m.plain_local(id).and_then(|v| N::of(v)) {
                    Some(n) => Ok(n),
                    None => m.eval(e).map(N::from_value),
                });
            }
            ExprKind::Binary { op, lhs, rhs }
                if !is_comparison(*op)
                    && lhs.ty == e.ty
                    && rhs.ty == e.ty
                    && e.ty == Type::Scalar(N::SCALAR) =>
            {
                return self.arithmetic::<N>(e, *op, lhs, rhs);
            }
            ExprKind::Element { .. } => {
                return self.element_as(e, N::of, N::from_value);
            }
            ExprKind::Intrinsic {
                op: Intrinsic::VectorElement,
                args,
            } => {
                return self.vector_element_as(e, args, N::of, N::from_value);
            }
            ExprKind::Intrinsic {
                op: Intrinsic::ViewElement,
                args,
            } => {
                return self.view_element_as(e, args, N::of, N::from_value);
            }
            ExprKind::Convert(inner) if e.ty == Type::Scalar(N::SCALAR) => {
                if let Some(convert) = self.widening::<N>(inner) {
                    return convert;
                }
            }
            _ => {}
        }
        let general: FastExpr<'p> = self.expr(e);
        Box::new(move |m| general(m).map(N::from_value))
    }

    /// Operand `e`, of type `N` (see [`Operand`]).
    pub(super) fn operand<N: Number>(&self, e: &'p Expr) -> Operand<'p, N> {
        match &e.kind {
            ExprKind::Const(c) if e.ty == Type::Scalar(N::SCALAR) => {
                if let Some(n) = N::of(&constant(c)) {
                    return Operand::Const(n);
                }
            }
            ExprKind::Local(id) if self.plain(*id) => return Operand::Local(*id, e),
            _ => {}
        }
        Operand::Expr(self.number::<N>(e))
    }

    /// Index `e` as an operand (see [`IndexOperand`]).
    pub(super) fn index_operand(&self, e: &'p Expr) -> IndexOperand<'p> {
        let integer = |ty: &Type| matches!(ty, Type::Scalar(Scalar::Int | Scalar::Long));
        let leaf = match &e.kind {
            ExprKind::Convert(inner)
                if inner.ty == Type::Scalar(Scalar::Int)
                    && matches!(e.ty, Type::Scalar(Scalar::Long | Scalar::ULong)) =>
            {
                inner
            }
            _ if integer(&e.ty) => e,
            _ => return IndexOperand::Expr(self.index(e)),
        };
        match &leaf.kind {
            ExprKind::Const(Const::Int(i)) => IndexOperand::Const(*i),
            ExprKind::Local(id) if self.plain(*id) => IndexOperand::Local(*id, leaf),
            _ => IndexOperand::Expr(self.index(e)),
        }
    }

    /// `lhs op rhs` computed in `N`: one closure per operator, so the
    /// operator is matched once, here.
    fn arithmetic<N: Number>(
        &self,
        e: &'p Expr,
        op: BinOp,
        lhs: &'p Expr,
        rhs: &'p Expr,
    ) -> NumExpr<'p, N> {
        let (a, b) = (self.operand::<N>(lhs), self.operand::<N>(rhs));
        macro_rules! each_op {
            ($($op:ident),*) => {
                match op {
                    $(BinOp::$op => Box::new(move |m| {
                        let x = a.get(m)?;
                        let y = b.get(m)?;
                        match N::arith(BinOp::$op, x, y) {
                            Some(r) => Ok(r),
                            None => m
                                .finish_binary(e, op, lhs, rhs, x.value(), y.value())
                                .map(N::from_value),
                        }
                    }),)*
                    _ => Box::new(move |m| {
                        let x = a.get(m)?;
                        let y = b.get(m)?;
                        m.finish_binary(e, op, lhs, rhs, x.value(), y.value())
                            .map(N::from_value)
                    }),
                }
            };
        }
        each_op!(Add, Sub, Mul, Div, Rem)
    }

    /// A conversion to `N` that cannot fail and that the general path
    /// makes with the same rounding: `int` or `long` to a floating type,
    /// `float` to `double` and back, `int` to `long`.
    fn widening<N: Number>(&self, inner: &'p Expr) -> Option<NumExpr<'p, N>> {
        let from = NumberType::of(&inner.ty)?;
        Some(match (from, N::SCALAR) {
            (NumberType::Int, Scalar::Float) => {
                let v = self.number::<Int>(inner);
                Box::new(move |m| Ok(N::from_value(Value::Float(v(m)?.0 as f32))))
            }
            (NumberType::Long, Scalar::Float) => {
                let v = self.number::<Long>(inner);
                Box::new(move |m| Ok(N::from_value(Value::Float(v(m)?.0 as f32))))
            }
            (NumberType::Int, Scalar::Double) => {
                let v = self.number::<Int>(inner);
                Box::new(move |m| Ok(N::from_value(Value::Double(v(m)?.0 as f64))))
            }
            (NumberType::Long, Scalar::Double) => {
                let v = self.number::<Long>(inner);
                Box::new(move |m| Ok(N::from_value(Value::Double(v(m)?.0 as f64))))
            }
            (NumberType::Float, Scalar::Double) => {
                let v = self.number::<f32>(inner);
                Box::new(move |m| Ok(N::from_value(Value::Double(f64::from(v(m)?)))))
            }
            (NumberType::Double, Scalar::Float) => {
                let v = self.number::<f64>(inner);
                Box::new(move |m| Ok(N::from_value(Value::Float(v(m)? as f32))))
            }
            (NumberType::Int, Scalar::Long) => {
                let v = self.number::<Int>(inner);
                Box::new(move |m| Ok(N::from_value(Value::Int(v(m)?.0))))
            }
            _ => return None,
        })
    }

    /// Index `e` as a closure computing it (`None` for a value that is not
    /// an integer, which the caller leaves to the tree walker).
    pub(super) fn index(&self, e: &'p Expr) -> IndexExpr<'p> {
        // An `int` widened to `long` or `size_t` keeps its value (a
        // negative one is a huge `size_t`, out of every bound as it is).
        if let ExprKind::Convert(inner) = &e.kind
            && inner.ty == Type::Scalar(Scalar::Int)
            && matches!(e.ty, Type::Scalar(Scalar::Long | Scalar::ULong))
        {
            let n = self.number::<Int>(inner);
            return Box::new(move |m| Ok(Some(n(m)?.0)));
        }
        match NumberType::of(&e.ty) {
            Some(NumberType::Int) => {
                let n = self.number::<Int>(e);
                Box::new(move |m| Ok(Some(n(m)?.0)))
            }
            Some(NumberType::Long) => {
                let n = self.number::<Long>(e);
                Box::new(move |m| Ok(Some(n(m)?.0)))
            }
            _ => {
                let general = self.expr(e);
                Box::new(move |m| match general(m)? {
                    Value::Int(i) => Ok(Some(i)),
                    _ => Ok(None),
                })
            }
        }
    }

    /// Condition `e` as a closure computing its truth.
    pub(super) fn condition(&self, e: &'p Expr) -> CondExpr<'p> {
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs } if is_comparison(*op) && lhs.ty == rhs.ty => {
                match NumberType::of(&lhs.ty) {
                    Some(NumberType::Int) => return self.comparison::<Int>(e, *op, lhs, rhs),
                    Some(NumberType::Long) => return self.comparison::<Long>(e, *op, lhs, rhs),
                    Some(NumberType::Float) => return self.comparison::<f32>(e, *op, lhs, rhs),
                    Some(NumberType::Double) => return self.comparison::<f64>(e, *op, lhs, rhs),
                    None => {}
                }
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let and = *and;
                let (a, b) = (self.condition(lhs), self.condition(rhs));
                return Box::new(move |m| {
                    let a = a(m)?;
                    if a != and {
                        return Ok(a);
                    }
                    b(m)
                });
            }
            _ => {}
        }
        let general = self.expr(e);
        Box::new(move |m| Ok(general(m)?.truth()))
    }

    /// `lhs op rhs` for a comparison of two `N`s.
    fn comparison<N: Number>(
        &self,
        e: &'p Expr,
        op: BinOp,
        lhs: &'p Expr,
        rhs: &'p Expr,
    ) -> CondExpr<'p> {
        let (a, b) = (self.operand::<N>(lhs), self.operand::<N>(rhs));
        macro_rules! each_op {
            ($($op:ident),*) => {
                match op {
                    $(BinOp::$op => Box::new(move |m| {
                        let x = a.get(m)?;
                        let y = b.get(m)?;
                        match N::compare(BinOp::$op, x, y) {
                            Some(r) => Ok(r),
                            None => Ok(m
                                .finish_binary(e, op, lhs, rhs, x.value(), y.value())?
                                .truth()),
                        }
                    }),)*
                    _ => Box::new(move |m| {
                        let x = a.get(m)?;
                        let y = b.get(m)?;
                        Ok(m.finish_binary(e, op, lhs, rhs, x.value(), y.value())?.truth())
                    }),
                }
            };
        }
        each_op!(Lt, Le, Gt, Ge, Eq, Ne)
    }
}
