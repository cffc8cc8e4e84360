//! Arithmetic with its run-time checks: division by zero, `INT_MIN / -1`,
//! signed overflow, shift counts, float-to-int range; conversions.

use super::*;

impl Emitter<'_, '_, '_> {
    pub(super) fn widen(&mut self, v: Value, s: Scalar) -> Value {
        match s {
            Scalar::Long | Scalar::ULong => v,
            Scalar::UInt | Scalar::Bool => self.b.ins().uextend(types::I64, v),
            _ => self.b.ins().sextend(types::I64, v),
        }
    }

    /// Fails unless `0 <= i < n` (`i` a signed 64-bit value).
    pub(super) fn check_below(&mut self, i: Value, n: i64) {
        let ok = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, i, n);
        self.guard(ok);
    }

    /// Continues when `ok` is true, else fails.
    pub(super) fn guard(&mut self, ok: Value) {
        let go = self.b.create_block();
        let fail = self.entry.fail;
        self.b.ins().brif(ok, go, &[], fail, &[]);
        self.b.switch_to_block(go);
    }

    /// Fails whenever this point is reached (code after it stays valid,
    /// never run).
    pub(super) fn fail_here(&mut self) {
        let no = self.b.ins().iconst(types::I8, 0);
        self.guard(no);
    }

    pub(super) fn fail_if(&mut self, bad: Value) {
        let go = self.b.create_block();
        let fail = self.entry.fail;
        self.b.ins().brif(bad, fail, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    pub(super) fn binary(
        &mut self,
        op: BinOp,
        s: Scalar,
        a: Value,
        b: Value,
        rs: Scalar,
    ) -> R<Value> {
        if s.is_floating() {
            return self.float_binary(op, s, a, b);
        }
        if s == Scalar::Char || s == Scalar::Bool {
            // Computed as `int`, then checked to fit.
            let wa = self.b.ins().sextend(types::I32, a);
            let wb = if rs == Scalar::Char || rs == Scalar::Bool {
                self.b.ins().sextend(types::I32, b)
            } else {
                b
            };
            let wrs = if rs == Scalar::Char || rs == Scalar::Bool {
                Scalar::Int
            } else {
                rs
            };
            let r = self.binary(op, Scalar::Int, wa, wb, wrs)?;
            if is_comparison(op) {
                return Ok(r);
            }
            let back = self.b.ins().ireduce(types::I8, r);
            // A `char` result wraps, as the conversion back from the
            // promoted `int` does in g++; a `bool` must stay 0 or 1.
            if s == Scalar::Bool {
                let again = self.b.ins().sextend(types::I32, back);
                let bad = self.b.ins().icmp(IntCC::NotEqual, again, r);
                self.fail_if(bad);
            }
            return Ok(back);
        }
        let signed = !s.is_unsigned();
        let ins = self.b.ins();
        Ok(match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul if signed => {
                let (r, of) = match op {
                    BinOp::Add => ins.sadd_overflow(a, b),
                    BinOp::Sub => ins.ssub_overflow(a, b),
                    _ => ins.smul_overflow(a, b),
                };
                self.fail_if(of);
                r
            }
            BinOp::Add => ins.iadd(a, b),
            BinOp::Sub => ins.isub(a, b),
            BinOp::Mul => ins.imul(a, b),
            BinOp::Div | BinOp::Rem => {
                let zero = ins.icmp_imm_s(IntCC::Equal, b, 0);
                self.fail_if(zero);
                if signed {
                    let t = self.b.func.dfg.value_type(a);
                    let min = match t {
                        types::I32 => i64::from(i32::MIN),
                        _ => i64::MIN,
                    };
                    let is_min = self.b.ins().icmp_imm_s(IntCC::Equal, a, min);
                    let is_m1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                    let both = self.b.ins().band(is_min, is_m1);
                    self.fail_if(both);
                    if op == BinOp::Div {
                        self.b.ins().sdiv(a, b)
                    } else {
                        self.b.ins().srem(a, b)
                    }
                } else if op == BinOp::Div {
                    self.b.ins().udiv(a, b)
                } else {
                    self.b.ins().urem(a, b)
                }
            }
            BinOp::Shl | BinOp::Shr => {
                let width = i64::from(s.size() * 8);
                let wb = self.widen(b, rs);
                let ok = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, wb, width);
                self.guard(ok);
                if op == BinOp::Shl {
                    self.b.ins().ishl(a, wb)
                } else if signed {
                    self.b.ins().sshr(a, wb)
                } else {
                    self.b.ins().ushr(a, wb)
                }
            }
            BinOp::BitAnd => ins.band(a, b),
            BinOp::BitOr => ins.bor(a, b),
            BinOp::BitXor => ins.bxor(a, b),
            cmp => {
                let cc = match (cmp, signed) {
                    (BinOp::Eq, _) => IntCC::Equal,
                    (BinOp::Ne, _) => IntCC::NotEqual,
                    (BinOp::Lt, true) => IntCC::SignedLessThan,
                    (BinOp::Lt, false) => IntCC::UnsignedLessThan,
                    (BinOp::Le, true) => IntCC::SignedLessThanOrEqual,
                    (BinOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
                    (BinOp::Gt, true) => IntCC::SignedGreaterThan,
                    (BinOp::Gt, false) => IntCC::UnsignedGreaterThan,
                    (_, true) => IntCC::SignedGreaterThanOrEqual,
                    (_, false) => IntCC::UnsignedGreaterThanOrEqual,
                };
                ins.icmp(cc, a, b)
            }
        })
    }

    pub(super) fn float_binary(&mut self, op: BinOp, s: Scalar, a: Value, b: Value) -> R<Value> {
        let ins = self.b.ins();
        Ok(match op {
            BinOp::Add => ins.fadd(a, b),
            BinOp::Sub => ins.fsub(a, b),
            BinOp::Mul => ins.fmul(a, b),
            BinOp::Div => ins.fdiv(a, b),
            BinOp::Rem => {
                let zero = self.zero(s);
                return self.math(MathFn::Fmod, s, &[a, b, zero]);
            }
            BinOp::Eq => ins.fcmp(FloatCC::Equal, a, b),
            BinOp::Ne => ins.fcmp(FloatCC::NotEqual, a, b),
            BinOp::Lt => ins.fcmp(FloatCC::LessThan, a, b),
            BinOp::Le => ins.fcmp(FloatCC::LessThanOrEqual, a, b),
            BinOp::Gt => ins.fcmp(FloatCC::GreaterThan, a, b),
            BinOp::Ge => ins.fcmp(FloatCC::GreaterThanOrEqual, a, b),
            _ => return decline(Decline::BitwiseOperatorOnFloats),
        })
    }

    pub(super) fn unary(&mut self, op: UnOp, s: Scalar, a: Value) -> R<Value> {
        Ok(match op {
            UnOp::Not => self.b.ins().bxor_imm_s(a, 1),
            UnOp::BitNot => {
                if s == Scalar::Bool {
                    return decline(Decline::ComplementOnBool);
                }
                self.b.ins().bnot(a)
            }
            UnOp::Neg => match s {
                Scalar::Float | Scalar::Double => self.b.ins().fneg(a),
                Scalar::UInt | Scalar::ULong => self.b.ins().ineg(a),
                _ => {
                    let zero = self.zero(s);
                    return self.binary(BinOp::Sub, s, zero, a, s);
                }
            },
        })
    }

    pub(super) fn convert_expr(&mut self, inner: &Expr, to: &Type) -> R<V> {
        let v = self.expr(inner)?;
        match (&inner.ty, to, v) {
            (Type::Scalar(from), Type::Scalar(to), V::S(x)) => {
                // A number that cannot be negative widens with zeros, free
                // on x86-64, where extending the sign costs an instruction
                // (an `int` index becomes a `long` before it addresses).
                let integers = !from.is_floating() && !to.is_floating() && *to != Scalar::Bool;
                if integers
                    && to.size() > from.size()
                    && self.range_of(inner).is_some_and(|(lo, _)| lo >= 0)
                {
                    return Ok(V::S(self.b.ins().uextend(clif_type(*to), x)));
                }
                Ok(V::S(self.convert(x, *from, *to)?))
            }
            (_, Type::ArrayView { .. }, v @ V::View(_)) => Ok(v),
            (_, Type::Index(_) | Type::Extent(_), v @ V::Shape(_)) => Ok(v),
            (Type::TiledIndex(_), Type::Index(_), V::Tiled) => Ok(V::Shape(self.global_index())),
            (_, _, v @ V::Shape(_)) if matches!(to, Type::Extent(_)) => Ok(v),
            _ => decline(Decline::ConversionKind),
        }
    }

    pub(super) fn convert(&mut self, x: Value, from: Scalar, to: Scalar) -> R<Value> {
        if from == to {
            return Ok(x);
        }
        let ins = self.b.ins();
        Ok(match (from.is_floating(), to) {
            (true, Scalar::Float) => ins.fdemote(types::F32, x),
            (true, Scalar::Double) => ins.fpromote(types::F64, x),
            (true, Scalar::Bool) => {
                let z = self.zero(from);
                self.b.ins().fcmp(FloatCC::NotEqual, x, z)
            }
            (true, _) => {
                // Every integer type but `bool` has bounds.
                let Some((lo, hi)) = to.float_to_int_bounds() else {
                    return decline(Decline::ConversionKind);
                };
                // Truncate, check the range as the interpreter does, then
                // convert with the saturating instruction (never a trap).
                let xd = if from == Scalar::Float {
                    ins.fpromote(types::F64, x)
                } else {
                    x
                };
                let t = self.b.ins().trunc(xd);
                let lo_v = self.b.ins().f64const(lo);
                let hi_v = self.b.ins().f64const(hi);
                let above = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, t, lo_v);
                let below = self.b.ins().fcmp(FloatCC::LessThan, t, hi_v);
                let ok = self.b.ins().band(above, below);
                self.guard(ok);
                match to {
                    Scalar::ULong => self.b.ins().fcvt_to_uint_sat(types::I64, t),
                    Scalar::UInt => {
                        let w = self.b.ins().fcvt_to_uint_sat(types::I64, t);
                        self.b.ins().ireduce(types::I32, w)
                    }
                    other => {
                        let w = self.b.ins().fcvt_to_sint_sat(types::I64, t);
                        if other == Scalar::Long {
                            w
                        } else {
                            self.b.ins().ireduce(clif_type(other), w)
                        }
                    }
                }
            }
            (false, Scalar::Bool) => ins.icmp_imm_s(IntCC::NotEqual, x, 0),
            (false, Scalar::Float | Scalar::Double) => {
                let t = clif_type(to);
                if from.is_unsigned() || from == Scalar::Bool {
                    let w = self.widen(x, from);
                    self.b.ins().fcvt_from_uint(t, w)
                } else {
                    let w = self.widen(x, from);
                    self.b.ins().fcvt_from_sint(t, w)
                }
            }
            (false, _) => {
                let (fb, tb) = (from.size(), to.size());
                if tb < fb {
                    ins.ireduce(clif_type(to), x)
                } else if tb > fb {
                    if from.is_unsigned() || from == Scalar::Bool {
                        ins.uextend(clif_type(to), x)
                    } else {
                        ins.sextend(clif_type(to), x)
                    }
                } else {
                    x
                }
            }
        })
    }
}

/// The signed integer comparison `op` is, when it is one.
pub(super) fn signed_cc(op: BinOp) -> Option<IntCC> {
    Some(match op {
        BinOp::Eq => IntCC::Equal,
        BinOp::Ne => IntCC::NotEqual,
        BinOp::Lt => IntCC::SignedLessThan,
        BinOp::Le => IntCC::SignedLessThanOrEqual,
        BinOp::Gt => IntCC::SignedGreaterThan,
        BinOp::Ge => IntCC::SignedGreaterThanOrEqual,
        _ => return None,
    })
}
