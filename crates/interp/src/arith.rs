//! C++ arithmetic on scalars: the usual operators at each type's width, and
//! the conversions between types. Undefined behaviour (signed overflow,
//! division by zero, out-of-range shifts and float-to-int conversions) is an
//! [`ArithError`], never a silent result.

use crate::value::Value;
use tessera_ir::{BinOp, Scalar, UnOp};

/// Why an operation has no C++ result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ArithError {
    /// Integer `/` or `%` by zero.
    DivByZero,
    /// The result does not fit the signed type.
    Overflow,
    /// A shift count below zero or not below the width.
    Shift(i64, u32),
    /// A floating-point value that no value of the integer type equals after
    /// truncation.
    FloatToInt(f64, Scalar),
}

/// Keeps an integer in its type's range (two's complement wrap).
pub(crate) fn wrap(v: i128, ty: Scalar) -> i64 {
    match ty {
        Scalar::Bool => i64::from(v != 0),
        Scalar::Char => i64::from(v as i8),
        Scalar::UChar => i64::from(v as u8),
        Scalar::Short => i64::from(v as i16),
        Scalar::UShort => i64::from(v as u16),
        Scalar::Int | Scalar::WChar => i64::from(v as i32),
        Scalar::UInt => i64::from(v as u32),
        Scalar::Long | Scalar::ULong => v as i64,
        Scalar::Float | Scalar::Double => v as i64,
    }
}

/// The mathematical value of a stored integer of type `ty`.
fn wide(v: i64, ty: Scalar) -> i128 {
    if ty == Scalar::ULong {
        i128::from(v as u64)
    } else {
        i128::from(v)
    }
}

fn bits(ty: Scalar) -> u32 {
    ty.size() * 8
}

/// The value of `v` as a `double` (for float operands of type `ty`).
pub(crate) fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Float(f) => f64::from(*f),
        Value::Double(d) => *d,
        other => other.int() as f64,
    }
}

/// `lhs op rhs` where both operands have type `ty` (the shift count may have
/// another integer type, `rhs_ty`).
pub(crate) fn binary(
    op: BinOp,
    ty: Scalar,
    lhs: &Value,
    rhs: &Value,
    rhs_ty: Scalar,
) -> Result<Value, ArithError> {
    match ty {
        Scalar::Float => {
            let (a, b) = (as_f64(lhs) as f32, as_f64(rhs) as f32);
            Ok(match op {
                BinOp::Add => Value::Float(a + b),
                BinOp::Sub => Value::Float(a - b),
                BinOp::Mul => Value::Float(a * b),
                BinOp::Div => Value::Float(a / b),
                BinOp::Rem => Value::Float(a % b),
                _ => compare_floats(op, f64::from(a), f64::from(b)),
            })
        }
        Scalar::Double => {
            let (a, b) = (as_f64(lhs), as_f64(rhs));
            Ok(match op {
                BinOp::Add => Value::Double(a + b),
                BinOp::Sub => Value::Double(a - b),
                BinOp::Mul => Value::Double(a * b),
                BinOp::Div => Value::Double(a / b),
                BinOp::Rem => Value::Double(a % b),
                _ => compare_floats(op, a, b),
            })
        }
        _ => integer(op, ty, wide(lhs.int(), ty), rhs, rhs_ty),
    }
}

fn compare_floats(op: BinOp, a: f64, b: f64) -> Value {
    Value::Bool(match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        _ => a >= b,
    })
}

fn integer(
    op: BinOp,
    ty: Scalar,
    a: i128,
    rhs: &Value,
    rhs_ty: Scalar,
) -> Result<Value, ArithError> {
    // A type narrower than `int` is promoted first: `c++` and `s += 1` are
    // computed in `int` and converted back, which wraps (g++'s
    // implementation-defined conversion) instead of overflowing.
    if ty.promotes_to_int() && ty != Scalar::Bool {
        let r = integer(op, Scalar::Int, a, rhs, rhs_ty)?;
        return Ok(match r {
            Value::Int(v) => Value::Int(wrap(i128::from(v), ty)),
            other => other,
        });
    }
    let signed = !ty.is_unsigned();
    let b = wide(rhs.int(), rhs_ty);
    let checked = |r: i128| -> Result<Value, ArithError> {
        let w = wrap(r, ty);
        if signed && i128::from(w) != r {
            Err(ArithError::Overflow)
        } else {
            Ok(Value::Int(w))
        }
    };
    match op {
        BinOp::Add => checked(a + b),
        BinOp::Sub => checked(a - b),
        // Only two `unsigned long` values can overflow 128 bits; their
        // product wraps like any unsigned one.
        BinOp::Mul => match a.checked_mul(b) {
            Some(r) => checked(r),
            None => Ok(Value::Int(wrap(a.wrapping_mul(b), ty))),
        },
        BinOp::Div | BinOp::Rem => {
            if b == 0 {
                return Err(ArithError::DivByZero);
            }
            let r = if op == BinOp::Div { a / b } else { a % b };
            // INT_MIN / -1 overflows; C++ makes INT_MIN % -1 undefined too.
            if signed && b == -1 && wrap(-a, ty) as i128 != -a {
                return Err(ArithError::Overflow);
            }
            checked(r)
        }
        BinOp::Shl | BinOp::Shr => {
            let width = bits(ty);
            if b < 0 || b >= i128::from(width) {
                return Err(ArithError::Shift(b as i64, width));
            }
            let r = if op == BinOp::Shl {
                // C++20: the result is congruent to a * 2^b modulo 2^width.
                a << b
            } else {
                a >> b
            };
            Ok(Value::Int(wrap(r, ty)))
        }
        BinOp::BitAnd => Ok(Value::Int(wrap(a & b, ty))),
        BinOp::BitOr => Ok(Value::Int(wrap(a | b, ty))),
        BinOp::BitXor => Ok(Value::Int(wrap(a ^ b, ty))),
        BinOp::Eq => Ok(Value::Bool(a == b)),
        BinOp::Ne => Ok(Value::Bool(a != b)),
        BinOp::Lt => Ok(Value::Bool(a < b)),
        BinOp::Le => Ok(Value::Bool(a <= b)),
        BinOp::Gt => Ok(Value::Bool(a > b)),
        BinOp::Ge => Ok(Value::Bool(a >= b)),
    }
}

/// `op operand` at type `ty`.
pub(crate) fn unary(op: UnOp, ty: Scalar, v: &Value) -> Result<Value, ArithError> {
    match (op, ty) {
        (UnOp::Not, _) => Ok(Value::Bool(!v.truth())),
        (UnOp::Neg, Scalar::Float) => Ok(Value::Float(-(as_f64(v) as f32))),
        (UnOp::Neg, Scalar::Double) => Ok(Value::Double(-as_f64(v))),
        (UnOp::Neg, _) => {
            let a = wide(v.int(), ty);
            let w = wrap(-a, ty);
            if !ty.is_unsigned() && i128::from(w) != -a {
                Err(ArithError::Overflow)
            } else {
                Ok(Value::Int(w))
            }
        }
        (UnOp::BitNot, _) => Ok(Value::Int(wrap(!wide(v.int(), ty), ty))),
    }
}

/// Converts a scalar of type `from` to type `to` as C++ does.
pub(crate) fn convert(v: &Value, from: Scalar, to: Scalar) -> Result<Value, ArithError> {
    if from == to {
        return Ok(v.clone());
    }
    if from.is_floating() {
        let f = as_f64(v);
        return match to {
            Scalar::Float => Ok(Value::Float(f as f32)),
            Scalar::Double => Ok(Value::Double(f)),
            Scalar::Bool => Ok(Value::Bool(f != 0.0)),
            _ => {
                let t = f.trunc();
                // `to` is an integer type other than `bool` here.
                let (lo, hi) = to.float_to_int_bounds().unwrap_or((0.0, 0.0));
                if t.is_nan() || t < lo || t >= hi {
                    Err(ArithError::FloatToInt(f, to))
                } else if to == Scalar::ULong {
                    Ok(Value::Int(t as u64 as i64))
                } else {
                    Ok(Value::Int(t as i64))
                }
            }
        };
    }
    let n = wide(v.int(), from);
    Ok(match to {
        Scalar::Bool => Value::Bool(n != 0),
        Scalar::Float => Value::Float(if from == Scalar::ULong {
            n as u64 as f32
        } else {
            n as i64 as f32
        }),
        Scalar::Double => Value::Double(if from == Scalar::ULong {
            n as u64 as f64
        } else {
            n as i64 as f64
        }),
        _ => Value::Int(wrap(n, to)),
    })
}

/// The value of type `ty` that `1` converts to (for `++`/`--`).
pub(crate) fn one(ty: Scalar) -> Value {
    match ty {
        Scalar::Float => Value::Float(1.0),
        Scalar::Double => Value::Double(1.0),
        Scalar::Bool => Value::Bool(true),
        _ => Value::Int(1),
    }
}

/// Zero of a scalar type.
pub(crate) fn zero(ty: Scalar) -> Value {
    match ty {
        Scalar::Float => Value::Float(0.0),
        Scalar::Double => Value::Double(0.0),
        Scalar::Bool => Value::Bool(false),
        _ => Value::Int(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> Value {
        Value::Int(v)
    }

    #[test]
    fn signed_overflow_is_an_error_and_unsigned_wraps() {
        let max = int(i64::from(i32::MAX));
        assert_eq!(
            binary(BinOp::Add, Scalar::Int, &max, &int(1), Scalar::Int).err(),
            Some(ArithError::Overflow)
        );
        let umax = int(i64::from(u32::MAX));
        let r = binary(BinOp::Add, Scalar::UInt, &umax, &int(1), Scalar::UInt);
        assert!(matches!(r, Ok(Value::Int(0))));
        let min = int(i64::from(i32::MIN));
        assert_eq!(
            binary(BinOp::Div, Scalar::Int, &min, &int(-1), Scalar::Int).err(),
            Some(ArithError::Overflow)
        );
        assert_eq!(
            binary(BinOp::Rem, Scalar::Int, &int(5), &int(0), Scalar::Int).err(),
            Some(ArithError::DivByZero)
        );
    }

    #[test]
    fn division_truncates_toward_zero() {
        let r = binary(BinOp::Div, Scalar::Int, &int(-7), &int(2), Scalar::Int);
        assert!(matches!(r, Ok(Value::Int(-3))));
        let r = binary(BinOp::Rem, Scalar::Int, &int(-7), &int(3), Scalar::Int);
        assert!(matches!(r, Ok(Value::Int(-1))));
    }

    #[test]
    fn shifts() {
        let r = binary(BinOp::Shl, Scalar::Int, &int(-1), &int(31), Scalar::Int);
        assert!(matches!(r, Ok(Value::Int(v)) if v == i64::from(i32::MIN)));
        assert!(binary(BinOp::Shl, Scalar::Int, &int(1), &int(32), Scalar::Int).is_err());
        let r = binary(
            BinOp::Shr,
            Scalar::UInt,
            &int(0x8000_0000),
            &int(31),
            Scalar::Int,
        );
        assert!(matches!(r, Ok(Value::Int(1))));
    }

    #[test]
    fn conversions() {
        let r = convert(&int(-1), Scalar::Int, Scalar::UInt);
        assert!(matches!(r, Ok(Value::Int(4_294_967_295))));
        let r = convert(&Value::Double(-2.9), Scalar::Double, Scalar::Int);
        assert!(matches!(r, Ok(Value::Int(-2))));
        assert!(convert(&Value::Double(3e9), Scalar::Double, Scalar::Int).is_err());
        assert!(convert(&Value::Double(f64::NAN), Scalar::Double, Scalar::Int).is_err());
        let r = convert(&int(-1), Scalar::Long, Scalar::ULong);
        assert!(matches!(r, Ok(Value::Int(-1))));
        let r = convert(&int(-1), Scalar::ULong, Scalar::Double);
        assert!(matches!(r, Ok(Value::Double(d)) if d == 18_446_744_073_709_551_615.0));
    }
}
