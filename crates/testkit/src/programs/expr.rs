//! Expressions: every operator, with the range of values each can take, so
//! that no operation overflows or divides by zero.

use super::*;

impl<'r> Gen<'r> {
    // ---------------------------------------------------------------
    // Expressions.

    pub(super) fn ex(&mut self, depth: u32) -> Ex {
        if depth == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(27) {
            0..=2 => self.leaf(),
            3..=8 => {
                let op = *self.rng.pick(&["+", "-", "*"]);
                let a = self.ex(d);
                let b = self.ex(d);
                self.arith(op, a, b)
            }
            9..=10 => {
                let op = if self.chance(3) { "%" } else { "/" };
                let a = self.ex(d);
                let b = self.ex(d);
                self.divide(op, a, b)
            }
            11..=12 => {
                let op = *self.rng.pick(&["&", "|", "^"]);
                let a = self.ex(d);
                let b = self.ex(d);
                self.bitwise(op, a, b)
            }
            13 => {
                let op = if self.chance(2) { "<<" } else { ">>" };
                let a = self.ex(d);
                self.shift(op, a)
            }
            14..=15 => {
                let (op, prec) = *self.rng.pick(&[
                    ("<", P_REL),
                    ("<=", P_REL),
                    (">", P_REL),
                    (">=", P_REL),
                    ("==", P_EQ),
                    ("!=", P_EQ),
                ]);
                let a = self.ex(d);
                let b = self.ex(d);
                self.bin(op, prec, &a, &b, Sc::Bool, Rg::I(0, 1))
            }
            16 if self.chance(2) => {
                let (op, prec) = if self.chance(2) {
                    ("&&", P_LAND)
                } else {
                    ("||", P_LOR)
                };
                let a = self.ex(d);
                let b = self.ex(d);
                self.bin(op, prec, &a, &b, Sc::Bool, Rg::I(0, 1))
            }
            17..=19 => {
                let a = self.ex(d);
                self.unary(a)
            }
            20 => {
                let c = self.ex(d);
                let a = self.ex(d);
                let b = self.ex(d);
                self.ternary(&c, a, b)
            }
            21 => {
                let a = self.ex(d);
                let to = self.pick_ty();
                self.cast_any(a, to)
            }
            22..=23 => self.call(d).unwrap_or_else(|| self.leaf()),
            24 => self.effect().unwrap_or_else(|| self.leaf()),
            25 if !self.fmacros.is_empty() && self.chance(3) => {
                let a = self.ex(d);
                let b = self.ex(d);
                self.macro_call(a, b)
            }
            25 if self.chance(3) => {
                // The comma operator: the left operand for its side effect.
                let a = self.effect().unwrap_or_else(|| self.leaf());
                let b = self.ex(d);
                Ex {
                    t: format!("({}, {})", a.t, b.t),
                    ty: b.ty,
                    rg: b.rg,
                    prec: P_PRIMARY,
                    pure: a.pure && b.pure,
                }
            }
            25 => self.math(d).unwrap_or_else(|| self.leaf()),
            _ => self.section_read().unwrap_or_else(|| self.leaf()),
        }
    }

    /// A floating-point operand of type `t` for a math function.
    pub(super) fn float_arg(&mut self, depth: u32, t: Sc) -> Ex {
        let e = self.ex(depth);
        if e.ty == t && e.rg.abs_max() <= 1e15 {
            return e;
        }
        let e = self.fit(e, t);
        self.cast_if(e, t)
    }

    /// A call of an exactly rounded math function: `<cmath>` on the host,
    /// `fast_math`, `precise_math` and `direct3d` in amp code.
    pub(super) fn math(&mut self, depth: u32) -> Option<Ex> {
        let depth = depth.min(2);
        if self.both {
            return None;
        }
        if self.amp && self.chance(3) {
            return Some(self.direct3d(depth));
        }
        if !self.amp && self.chance(4) {
            // std::min / std::max: both arguments of one type.
            let t = self.pick_ty();
            let a = self.ex(depth);
            let a = self.fit(a, t);
            let b = self.ex(depth);
            let b = self.fit(b, t);
            let rg = match (a.rg, b.rg) {
                (Rg::I(a1, a2), Rg::I(b1, b2)) => Rg::I(a1.min(b1), a2.max(b2)),
                (ar, br) => {
                    let ((a1, a2), (b1, b2)) = (ar.f(), br.f());
                    Rg::F(a1.min(b1), a2.max(b2))
                }
            };
            let f = if self.chance(2) { "min" } else { "max" };
            return Some(Ex {
                t: format!("std::{f}({}, {})", a.t, b.t),
                ty: t,
                rg,
                prec: P_PRIMARY,
                pure: a.pure && b.pure,
            });
        }
        let (prefix, t) = if self.amp {
            match self.rng.below(4) {
                0 => ("concurrency::fast_math::", Sc::Float),
                1 => ("fast_math::", Sc::Float),
                2 => ("precise_math::", Sc::Double),
                _ => ("concurrency::precise_math::", Sc::Float),
            }
        } else if self.chance(2) {
            ("std::", Sc::Double)
        } else {
            ("std::", Sc::Float)
        };
        let a = self.float_arg(depth, t);
        let (lo, hi) = a.rg.f();
        let m = a.rg.abs_max();
        let host = !self.amp;
        let (text, rg) = match self.rng.below(if host { 12 } else { 10 }) {
            0 => (format!("{prefix}fabs({})", a.t), (0.0, m)),
            1 => (format!("{prefix}floor({})", a.t), (lo - 1.0, hi + 1.0)),
            2 => (format!("{prefix}ceil({})", a.t), (lo - 1.0, hi + 1.0)),
            3 => (format!("{prefix}round({})", a.t), (lo - 1.0, hi + 1.0)),
            4 => (format!("{prefix}trunc({})", a.t), (lo - 1.0, hi + 1.0)),
            5 => (
                format!("{prefix}sqrt({prefix}fabs({}))", a.t),
                (0.0, m.sqrt() + 1.0),
            ),
            6 | 7 => {
                let b = self.float_arg(depth, t);
                let (bl, bh) = b.rg.f();
                let f = if self.chance(2) { "fmin" } else { "fmax" };
                (
                    format!("{prefix}{f}({}, {})", a.t, b.t),
                    (lo.min(bl), hi.max(bh)),
                )
            }
            8 | 9 => {
                let b = self.ex(depth);
                let b = self.float_divisor(b, t);
                let b = self.cast_if(b, t);
                (format!("{prefix}fmod({}, {})", a.t, b.t), (-m, m))
            }
            10 => {
                let b = self.float_arg(depth, t);
                (format!("{prefix}copysign({}, {})", a.t, b.t), (-m, m))
            }
            _ => {
                let b = self.float_arg(depth, t);
                let (bl, bh) = b.rg.f();
                let c = self.float_arg(depth, t);
                let (cl, ch) = c.rg.f();
                let (pl, ph) = minmax(&[lo * bl, lo * bh, hi * bl, hi * bh]);
                if ph + ch > FLOAT_LIMIT || pl + cl < -FLOAT_LIMIT {
                    return None;
                }
                (
                    format!("{prefix}fma({}, {}, {})", a.t, b.t, c.t),
                    (pl + cl, ph + ch),
                )
            }
        };
        Some(
            Ex {
                t: text,
                ty: t,
                rg: widen(rg.0, rg.1, t),
                prec: P_PRIMARY,
                pure: true,
            }
            .with_purity(self.fx_writes.is_empty()),
        )
    }

    /// A `concurrency::direct3d` intrinsic (amp code).
    pub(super) fn direct3d(&mut self, depth: u32) -> Ex {
        let ns = if self.chance(2) {
            "direct3d::"
        } else {
            "concurrency::direct3d::"
        };
        let int_arg = |g: &mut Self| {
            let e = g.ex(depth);
            g.fit(e, Sc::Int)
        };
        let (text, ty, rg) = match self.rng.below(7) {
            0 | 1 => {
                let (a, b) = (int_arg(self), int_arg(self));
                let f = if self.chance(2) { "imax" } else { "imin" };
                (format!("{ns}{f}({}, {})", a.t, b.t), Sc::Int, inv(Sc::Int))
            }
            2 => {
                let a = self.ex(depth);
                let a = self.fit(a, Sc::UInt);
                let b = self.ex(depth);
                let b = self.fit(b, Sc::UInt);
                let f = if self.chance(2) { "umax" } else { "umin" };
                (
                    format!("{ns}{f}({}, {})", a.t, b.t),
                    Sc::UInt,
                    inv(Sc::UInt),
                )
            }
            3 => {
                let a = int_arg(self);
                (format!("{ns}abs({})", a.t), Sc::Int, Rg::I(0, INT_INV))
            }
            4 => {
                let lo = self.rng.below(200) as i128 - 100;
                let hi = lo + self.rng.below(300) as i128;
                if self.chance(2) {
                    let a = int_arg(self);
                    (
                        format!("{ns}clamp({}, {lo}, {hi})", a.t),
                        Sc::Int,
                        Rg::I(lo, hi),
                    )
                } else {
                    let a = self.float_arg(depth, Sc::Float);
                    (
                        format!("{ns}clamp({}, {lo}.5f, {hi}.5f)", a.t),
                        Sc::Float,
                        widen(lo as f64 - 0.5, hi as f64 + 0.5, Sc::Float),
                    )
                }
            }
            5 => {
                let t = if self.chance(2) { Sc::Float } else { Sc::Int };
                let a = self.ex(depth);
                let a = self.fit(a, t);
                let b = self.ex(depth);
                let b = self.fit(b, t);
                let c = self.ex(depth);
                let c = self.fit(c, t);
                let (al, ah) = a.rg.f();
                let (bl, bh) = b.rg.f();
                let (cl, ch) = c.rg.f();
                let (pl, ph) = minmax(&[al * bl, al * bh, ah * bl, ah * bh]);
                let rg = if t == Sc::Int {
                    Rg::I(pl as i128 + cl as i128, ph as i128 + ch as i128)
                } else {
                    widen(pl + cl, ph + ch, t)
                };
                (format!("{ns}mad({}, {}, {})", a.t, b.t, c.t), t, rg)
            }
            _ => {
                let a = self.float_arg(depth, Sc::Float);
                if self.chance(2) {
                    (format!("{ns}saturate({})", a.t), Sc::Float, Rg::F(0.0, 1.0))
                } else {
                    let d = self.float_divisor(a, Sc::Float);
                    let d = self.cast_if(d, Sc::Float);
                    (format!("{ns}rcp({})", d.t), Sc::Float, Rg::F(-1.0, 1.0))
                }
            }
        };
        Ex {
            t: text,
            ty,
            rg,
            prec: P_PRIMARY,
            pure: true,
        }
        .with_purity(self.fx_writes.is_empty())
    }

    /// A read through a section or a projection of a view of the kernel,
    /// or an index or extent computed with the library's arithmetic.
    pub(super) fn section_read(&mut self) -> Option<Ex> {
        if self.kviews.is_empty() {
            return None;
        }
        let (name, t, dims) = self.rng.pick(&self.kviews).clone();
        if self.chance(3) || dims.len() > 2 {
            return Some(self.extent_expr(&name, &dims));
        }
        let text = if dims.len() == 1 {
            let n = dims[0];
            let at = self.rng.below(n);
            let len = 1 + self.rng.below(n - at);
            let i = self.index(len);
            match self.rng.below(4) {
                0 => format!("{name}.section({at}, {len})[{i}]"),
                1 => format!("{name}.section(index<1>({at}))[{i}]"),
                2 => format!("{name}.section(extent<1>({len}))({i})"),
                _ => format!("{name}.section(index<1>({at}), extent<1>({len}))[{i}]"),
            }
        } else {
            let (r, c) = (dims[0], dims[1]);
            let (ar, ac) = (self.rng.below(r), self.rng.below(c));
            let (lr, lc) = (1 + self.rng.below(r - ar), 1 + self.rng.below(c - ac));
            let i = self.index(lr);
            let j = self.index(lc);
            match self.rng.below(4) {
                0 => format!("{name}.section({ar}, {ac}, {lr}, {lc})({i}, {j})"),
                1 => format!("{name}.section(index<2>({ar}, {ac}))[{i}][{j}]"),
                2 => {
                    let row = self.index(r);
                    format!("{name}[{row}].section({ac}, {lc})[{j}]")
                }
                _ => format!(
                    "{name}.section(index<2>({ar}, {ac}), extent<2>({lr}, {lc}))[index<2>({i}, {j})]"
                ),
            }
        };
        Some(Ex::atom(text, t, inv(t)))
    }

    /// An `int` computed from the extent of view `name` or from the kernel's
    /// index with the arithmetic of `index` and `extent`.
    pub(super) fn extent_expr(&mut self, name: &str, dims: &[usize]) -> Ex {
        let d = self.rng.below(dims.len());
        let n = dims[d] as i128;
        let rank = dims.len();
        let ext = if self.chance(2) {
            format!("{name}.extent")
        } else {
            format!("{name}.get_extent()")
        };
        let k = self.range(1, 3) as i128;
        let ones: Vec<String> = (0..rank).map(|_| k.to_string()).collect();
        let ones = ones.join(", ");
        let same = dims == self.kdims.as_slice();
        let idx = self.kidx.first().cloned();
        match (self.rng.below(7), idx) {
            (0, _) => Ex::atom(format!("{ext}[{d}]"), Sc::Int, Rg::I(n, n)),
            (1, _) => {
                let size: i128 = dims.iter().map(|&x| x as i128).product();
                Ex::atom(format!("{ext}.size()"), Sc::UInt, Rg::I(size, size))
            }
            (2, _) => Ex::atom(
                format!("({ext} + extent<{rank}>({ones}))[{d}]"),
                Sc::Int,
                Rg::I(n + k, n + k),
            ),
            (3, _) => Ex::atom(format!("({ext} * {k})[{d}]"), Sc::Int, Rg::I(n * k, n * k)),
            (4, Some(i)) if same => {
                let ix = if i == "t" { "t.global".to_string() } else { i };
                Ex {
                    t: format!("{ext}.contains({ix} + index<{rank}>({ones}))"),
                    ty: Sc::Bool,
                    rg: Rg::I(0, 1),
                    prec: P_PRIMARY,
                    pure: true,
                }
            }
            (5, Some(i)) if same => {
                let ix = if i == "t" { "t.global".to_string() } else { i };
                Ex::atom(
                    format!("({ix} + index<{rank}>({ones}))[{d}]"),
                    Sc::Int,
                    Rg::I(k, n - 1 + k),
                )
            }
            (6, Some(i)) if same => {
                let ix = if i == "t" { "t.global".to_string() } else { i };
                match self.rng.below(3) {
                    0 => Ex::atom(format!("({ix} * {k})[{d}]"), Sc::Int, Rg::I(0, (n - 1) * k)),
                    1 => Ex::atom(format!("({ix} - {k})[{d}]"), Sc::Int, Rg::I(-k, n - 1 - k)),
                    _ => Ex::atom(format!("({ix} % {})[{d}]", k + 1), Sc::Int, Rg::I(0, k)),
                }
            }
            _ => Ex::atom(format!("{ext}[{d}]"), Sc::Int, Rg::I(n, n)),
        }
    }

    /// `MAC(a, b)`, a function-like macro that expands to `((a) OP (b))`.
    pub(super) fn macro_call(&mut self, a: Ex, b: Ex) -> Ex {
        let (name, op) = self.rng.pick(&self.fmacros).clone();
        let bitwise = matches!(op, "^" | "&" | "|");
        let (mut a, mut b) = if bitwise {
            let a = if a.ty.float() {
                self.fit(a, Sc::Int)
            } else {
                a
            };
            let b = if b.ty.float() {
                self.fit(b, Sc::Int)
            } else {
                b
            };
            (a, b)
        } else {
            (a, b)
        };
        let mut c = common(a.ty, b.ty);
        if c.float() && (exactly_zero(a.rg) || exactly_zero(b.rg)) {
            return a;
        }
        let mut rg = op_range(op, conv_rg(a.rg, a.ty, c), conv_rg(b.rg, b.ty, c), c);
        if rg.is_none() && !c.float() {
            a = self.reduce(a, 1000);
            b = self.reduce(b, 1000);
            c = common(a.ty, b.ty);
            rg = op_range(op, conv_rg(a.rg, a.ty, c), conv_rg(b.rg, b.ty, c), c);
        }
        let Some(rg) = rg else {
            return a;
        };
        Ex {
            t: format!("{name}({}, {})", a.t, b.t),
            ty: c,
            rg,
            prec: P_PRIMARY,
            pure: a.pure && b.pure,
        }
    }

    pub(super) fn leaf(&mut self) -> Ex {
        let vars = self.readable();
        if vars.is_empty() || self.chance(3) {
            let t = self.pick_ty();
            return self.literal(t);
        }
        let v = self.rng.pick(&vars).clone();
        self.read(&v)
    }

    pub(super) fn arith(&mut self, op: &'static str, a: Ex, b: Ex) -> Ex {
        let c = common(a.ty, b.ty);
        let prec = if op == "*" { P_MUL } else { P_ADD };
        let ar = conv_rg(a.rg, a.ty, c);
        let br = conv_rg(b.rg, b.ty, c);
        if c.float() && op != "*" && (exactly_zero(a.rg) || exactly_zero(b.rg)) {
            // g++ folds `0 - (float)i` to `-(float)i` (and `0 + -(float)i`
            // to `-(float)i`), which gives -0.0 where IEEE arithmetic gives
            // +0.0; stay clear of it.
            return if exactly_zero(a.rg) { b } else { a };
        }
        if let Some(rg) = op_range(op, ar, br, c) {
            return self.bin(op, prec, &a, &b, c, rg);
        }
        if c.float() {
            return a;
        }
        if self.chance(2) {
            // Compute in the unsigned type, convert back.
            let u = c.unsigned();
            let a2 = self.cast_ex(a, u);
            let b2 = self.cast_ex(b, u);
            let inner = self.bin(op, prec, &a2, &b2, u, full(u));
            self.cast_ex(inner, c)
        } else {
            let a2 = self.reduce(a, 1000);
            let b2 = self.reduce(b, 1000);
            self.arith(op, a2, b2)
        }
    }

    /// `e % m`, in `e`'s promoted type (integral `e`).
    pub(super) fn reduce(&mut self, e: Ex, m: i128) -> Ex {
        let p = e.ty.promote();
        let (lo, hi) = conv_rg(e.rg, e.ty, p).i();
        if lo > -m && hi < m {
            return e;
        }
        let l = self.wrap(&e, P_MUL);
        let rg = if !p.signed() || lo >= 0 {
            Rg::I(0, m - 1)
        } else {
            Rg::I(-(m - 1), m - 1)
        };
        Ex {
            t: format!("{l} % {m}"),
            ty: p,
            rg,
            prec: P_MUL,
            pure: e.pure,
        }
    }

    /// A divisor for an integral division whose dividend, converted to the
    /// common type, has range `ar_min`-inclusive when `risk`: never zero,
    /// and never -1 when `risk`.
    pub(super) fn int_divisor(&mut self, b: Ex, risk: bool) -> Ex {
        let b = if b.ty.float() {
            self.fit(b, Sc::Int)
        } else {
            b
        };
        let pb = b.ty.promote();
        let (bl, bh) = conv_rg(b.rg, b.ty, pb).i();
        match self.rng.below(5) {
            0 => {
                let v = self.range(1, 40) as i128;
                let v = if self.chance(3) { -v - 1 } else { v };
                let t = if self.amp {
                    *self.rng.pick(&[Sc::Int, Sc::Int, Sc::UInt])
                } else {
                    *self.rng.pick(&[Sc::Int, Sc::Int, Sc::UInt, Sc::Long])
                };
                if v < 0 && t == Sc::UInt {
                    return Ex::atom(format!("{}u", -v), t, Rg::I(-v, -v));
                }
                if v < 0 {
                    return Ex {
                        t: format!("-{}{}", -v, t.suffix()),
                        ty: t,
                        rg: Rg::I(v, v),
                        prec: P_UNARY,
                        pure: true,
                    };
                }
                Ex::atom(format!("{v}{}", t.suffix()), t, Rg::I(v, v))
            }
            1 | 2 if b.pure => {
                let w = self.wrap(&b, P_EQ);
                let w2 = self.wrap(&b, P_COND);
                let m1 = (-1i128).max(pb.min());
                let risky = risk && bl <= -1 && bh >= -1 && pb.signed() && m1 == -1;
                let (t, g) = if risky {
                    (format!("{w} != 0 && {w} != -1 ? {w2} : 3"), 3)
                } else {
                    (format!("{w} != 0 ? {w2} : 1"), 1)
                };
                let rg = if bl == 0 && bh == 0 {
                    Rg::I(g, g)
                } else {
                    Rg::I(bl.min(g), bh.max(g))
                };
                Ex {
                    t,
                    ty: pb,
                    rg,
                    prec: P_COND,
                    pure: true,
                }
            }
            _ => {
                let w = self.wrap(&b, P_BAND);
                Ex {
                    t: format!("({w} & 15) + 1"),
                    ty: pb,
                    rg: Rg::I(1, 16),
                    prec: P_ADD,
                    pure: b.pure,
                }
            }
        }
    }

    /// A floating-point divisor at least 1 away from zero.
    pub(super) fn float_divisor(&mut self, b: Ex, c: Sc) -> Ex {
        if b.pure && self.chance(2) {
            let bb = self.cast_if(b, c);
            let w = self.wrap(&bb, P_REL);
            let w2 = self.wrap(&bb, P_ADD);
            let (lo, hi) = bb.rg.f();
            return Ex {
                t: format!("{w} >= 0 ? {w2} + 1 : {w2} - 1"),
                ty: c,
                rg: widen(lo - 1.0, hi + 1.0, c),
                prec: P_COND,
                pure: true,
            };
        }
        let text = *self.rng.pick(&[
            "2.0f", "4.0", "3.0f", "-8.0", "10.0f", "1.5", "-2.5f", "7.0", "1.0f", "16.0",
        ]);
        let ty = if text.ends_with('f') {
            Sc::Float
        } else {
            Sc::Double
        };
        let v = text.trim_end_matches('f').parse::<f64>().unwrap_or(1.0);
        Ex {
            t: text.to_string(),
            ty,
            rg: Rg::F(v, v),
            prec: if v < 0.0 { P_UNARY } else { P_PRIMARY },
            pure: true,
        }
    }

    pub(super) fn divide(&mut self, op: &'static str, a: Ex, b: Ex) -> Ex {
        if a.ty.float() || b.ty.float() {
            let c = common(a.ty, b.ty);
            let d = self.float_divisor(b, c);
            let c = common(a.ty, d.ty);
            let m = conv_rg(a.rg, a.ty, c).abs_max();
            let rg = widen(-m, m, c);
            return self.bin("/", P_MUL, &a, &d, c, rg);
        }
        let c0 = common(a.ty, b.ty.promote());
        let (al, _) = conv_rg(a.rg, a.ty, c0).i();
        let risk = c0.signed() && al <= c0.min();
        let d = self.int_divisor(b, risk);
        let c = common(a.ty, d.ty);
        let ar = conv_rg(a.rg, a.ty, c);
        let dr = conv_rg(d.rg, d.ty, c);
        let (al, _) = ar.i();
        let (dl, dh) = dr.i();
        if c.signed() && al <= c.min() && dl <= -1 && dh >= -1 {
            // The literal or guard did not rule out -1 after all.
            let safe = Ex::atom("7".into(), Sc::Int, Rg::I(7, 7));
            let rg = div_range(op, ar, Rg::I(7, 7), c);
            return self.bin(op, P_MUL, &a, &safe, c, rg);
        }
        let rg = div_range(op, ar, dr, c);
        self.bin(op, P_MUL, &a, &d, c, rg)
    }

    pub(super) fn bitwise(&mut self, op: &'static str, a: Ex, b: Ex) -> Ex {
        let a = if a.ty.float() {
            self.fit(a, Sc::Int)
        } else {
            a
        };
        let b = if b.ty.float() {
            self.fit(b, Sc::UInt)
        } else {
            b
        };
        let c = common(a.ty, b.ty);
        let rg = op_range(op, conv_rg(a.rg, a.ty, c), conv_rg(b.rg, b.ty, c), c).unwrap_or(full(c));
        let prec = match op {
            "&" => P_BAND,
            "^" => P_BXOR,
            _ => P_BOR,
        };
        self.bin(op, prec, &a, &b, c, rg)
    }

    /// A shift count for a left operand of `bits` bits: text, largest value.
    pub(super) fn shift_count(&mut self, bits: u32) -> Ex {
        let mask = *self.rng.pick(&[1u32, 3, 7, 15, bits - 1]);
        if self.chance(2) {
            let k = self.rng.below(mask as usize + 1) as i128;
            return Ex::atom(k.to_string(), Sc::Int, Rg::I(k, k));
        }
        let e = self.ex(1);
        let e = if e.ty.float() {
            self.fit(e, Sc::Int)
        } else {
            e
        };
        let (lo, hi) = e.rg.i();
        if lo >= 0 && hi <= i128::from(mask) {
            return e;
        }
        let w = self.wrap(&e, P_BAND);
        Ex {
            t: format!("{w} & {mask}"),
            ty: e.ty.promote(),
            rg: Rg::I(0, i128::from(mask)),
            prec: P_BAND,
            pure: e.pure,
        }
    }

    pub(super) fn shift(&mut self, op: &'static str, a: Ex) -> Ex {
        let a = if a.ty.float() {
            self.fit(a, Sc::Int)
        } else {
            a
        };
        let p = a.ty.promote();
        let count = self.shift_count(p.bits());
        let (_, kmax) = count.rg.i();
        let (al, ah) = conv_rg(a.rg, a.ty, p).i();
        if op == ">>" {
            let rg = if p.signed() {
                Rg::I(al.min(0), ah.max(0))
            } else {
                Rg::I(0, ah)
            };
            return self.bin(op, P_SHIFT, &a, &count, p, rg);
        }
        if p.signed() && al >= 0 && (ah << kmax) <= p.max() {
            return self.bin(op, P_SHIFT, &a, &count, p, Rg::I(al, ah << kmax));
        }
        let (a, p) = if p.signed() {
            let u = p.unsigned();
            (self.cast_ex(a, u), u)
        } else {
            (a, p)
        };
        let (al, ah) = conv_rg(a.rg, a.ty, p).i();
        let rg = if al >= 0 && (ah << kmax) <= p.max() {
            Rg::I(al, ah << kmax)
        } else {
            full(p)
        };
        self.bin(op, P_SHIFT, &a, &count, p, rg)
    }

    pub(super) fn unary(&mut self, a: Ex) -> Ex {
        let p = a.ty.promote();
        let r = conv_rg(a.rg, a.ty, p);
        let operand = self.wrap_unary(&a);
        let (op, ty, rg) = match self.rng.below(5) {
            0 | 1 => {
                let rg = match r {
                    Rg::F(lo, hi) => Rg::F(-hi, -lo),
                    Rg::I(lo, hi) if p.signed() => {
                        if lo <= p.min() {
                            return a;
                        }
                        Rg::I(-hi, -lo)
                    }
                    Rg::I(0, 0) => Rg::I(0, 0),
                    Rg::I(lo, hi) if lo >= 1 => Rg::I(p.max() + 1 - hi, p.max() + 1 - lo),
                    Rg::I(..) => full(p),
                };
                ("-", p, rg)
            }
            2 if p.integral() => {
                let (lo, hi) = r.i();
                let rg = if p.signed() {
                    Rg::I(-hi - 1, -lo - 1)
                } else {
                    Rg::I(p.max() - hi, p.max() - lo)
                };
                ("~", p, rg)
            }
            3 => ("+", p, r),
            _ => {
                let rg = match conv_rg(a.rg, a.ty, Sc::Bool) {
                    Rg::I(0, 0) => Rg::I(1, 1),
                    Rg::I(1, 1) => Rg::I(0, 0),
                    _ => Rg::I(0, 1),
                };
                ("!", Sc::Bool, rg)
            }
        };
        Ex {
            t: format!("{op}{operand}"),
            ty,
            rg,
            prec: P_UNARY,
            pure: a.pure,
        }
    }

    pub(super) fn ternary(&mut self, c: &Ex, a: Ex, b: Ex) -> Ex {
        let ty = if a.ty == b.ty {
            a.ty
        } else {
            common(a.ty, b.ty)
        };
        let ar = conv_rg(a.rg, a.ty, ty);
        let br = conv_rg(b.rg, b.ty, ty);
        let rg = match (ar, br) {
            (Rg::I(a1, a2), Rg::I(b1, b2)) => Rg::I(a1.min(b1), a2.max(b2)),
            _ => {
                let ((a1, a2), (b1, b2)) = (ar.f(), br.f());
                Rg::F(a1.min(b1), a2.max(b2))
            }
        };
        let ct = self.wrap(c, P_LOR);
        let at = self.wrap(&a, P_COND);
        let bt = self.wrap(&b, P_LOR);
        Ex {
            t: format!("{ct} ? {at} : {bt}"),
            ty,
            rg,
            prec: P_COND,
            pure: c.pure && a.pure && b.pure,
        }
    }

    /// An explicit conversion of `a` to `to`, in one of the cast syntaxes.
    /// A floating-point `a` must fit `to` ([`float_fits`]).
    pub(super) fn cast_ex(&mut self, a: Ex, to: Sc) -> Ex {
        let rg = conv_rg(a.rg, a.ty, to);
        let pure = a.pure;
        match self.rng.below(4) {
            0 if to.word().is_some() => Ex {
                t: format!("{}({})", to.word().unwrap_or("int"), a.t),
                ty: to,
                rg,
                prec: P_PRIMARY,
                pure,
            },
            1 => Ex {
                t: format!("static_cast<{}>({})", to.name(), a.t),
                ty: to,
                rg,
                prec: P_PRIMARY,
                pure,
            },
            _ => {
                let operand = self.wrap(&a, P_UNARY);
                Ex {
                    t: format!("({}){operand}", to.name()),
                    ty: to,
                    rg,
                    prec: P_UNARY,
                    pure,
                }
            }
        }
    }

    pub(super) fn cast_if(&mut self, a: Ex, to: Sc) -> Ex {
        if a.ty == to { a } else { self.cast_ex(a, to) }
    }

    /// A cast to `to`, made valid first when `a` is a floating-point value
    /// that does not fit.
    pub(super) fn cast_any(&mut self, a: Ex, to: Sc) -> Ex {
        if a.ty.float() && to.integral() && !float_fits(a.rg, to) {
            return self.fit(a, to);
        }
        self.cast_ex(a, to)
    }

    /// `e` divided by a power of ten so that it lies within ±`bound`
    /// (floating-point `e`).
    pub(super) fn scale(&mut self, e: Ex, bound: f64) -> Ex {
        let m = e.rg.abs_max();
        if m <= bound {
            return e;
        }
        let mut k = 1;
        while m / 10f64.powi(k) > bound * 0.5 {
            k += 1;
        }
        let suffix = if e.ty == Sc::Float { "f" } else { "" };
        let l = self.wrap(&e, P_MUL);
        let (lo, hi) = e.rg.f();
        let d = 10f64.powi(k);
        Ex {
            t: format!("{l} / 1e{k}{suffix}"),
            ty: e.ty,
            rg: widen(lo / d, hi / d, e.ty),
            prec: P_MUL,
            pure: e.pure,
        }
    }

    /// `clamp_T(e)`: one of the clamping helpers every program defines
    /// ([`CLAMPS`]), which returns a value of type `t` in its invariant.
    pub(super) fn clamp(&mut self, e: Ex, t: Sc) -> Ex {
        let name = match t {
            Sc::Int => "clamp_i",
            Sc::Long => "clamp_l",
            Sc::Float => "clamp_f",
            _ => "clamp_d",
        };
        Ex {
            t: format!("{name}({})", e.t),
            ty: t,
            rg: inv(t),
            prec: P_PRIMARY,
            pure: e.pure,
        }
    }

    /// `e` converted to exactly type `t`, with a value in the invariant of
    /// `t` (reduced, clamped or scaled into it when needed).
    pub(super) fn fit(&mut self, e: Ex, t: Sc) -> Ex {
        if t == Sc::Bool {
            return self.cast_if(e, t);
        }
        if t.integral() {
            if e.ty.float() {
                return match t {
                    Sc::Int | Sc::Long => {
                        if float_fits(e.rg, t) && within(conv_rg(e.rg, e.ty, t), inv(t)) {
                            return self.cast_ex(e, t);
                        }
                        if !self.chance(4) {
                            return self.clamp(e, t);
                        }
                        let bound = if t == Sc::Int {
                            INT_INV as f64
                        } else {
                            LONG_INV as f64
                        };
                        let e2 = self.scale(e, bound);
                        self.cast_ex(e2, t)
                    }
                    _ => {
                        let via = if t == Sc::ULong { Sc::Long } else { Sc::Int };
                        let mid = self.fit(e, via);
                        self.cast_ex(mid, t)
                    }
                };
            }
            if within(conv_rg(e.rg, e.ty, t), inv(t)) {
                return self.cast_if(e, t);
            }
            let (_, m) = inv(t).i();
            let reduced = self.reduce(e, m + 1);
            return self.cast_if(reduced, t);
        }
        if within(conv_rg(e.rg, e.ty, t), inv(t)) {
            return self.cast_if(e, t);
        }
        if !self.chance(4) {
            return self.clamp(e, t);
        }
        let as_t = self.cast_if(e, t);
        let bound = inv(t).abs_max();
        self.scale(as_t, bound)
    }

    /// Like [`Gen::fit`], but leaves the conversion implicit (for an
    /// initialiser, an assignment, an argument or a return) when no
    /// reduction is needed.
    pub(super) fn fit_loose(&mut self, e: Ex, t: Sc) -> Ex {
        if e.ty != t && self.chance(2) {
            let ok = !(e.ty.float() && t.integral() && t != Sc::Bool) || float_fits(e.rg, t);
            if ok && within(conv_rg(e.rg, e.ty, t), inv(t)) {
                return e;
            }
        }
        self.fit(e, t)
    }

    /// A side effect on a counter, if one is free.
    pub(super) fn effect(&mut self) -> Option<Ex> {
        if !self.effects {
            return None;
        }
        let free: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|v| {
                v.counter && !self.fx_reads.contains(&v.name) && !self.fx_writes.contains(&v.name)
            })
            .map(|v| v.name.clone())
            .collect();
        if free.is_empty() {
            return None;
        }
        let h = self.rng.pick(&free).clone();
        self.fx_writes.push(h.clone());
        let k = self.range(1, 3);
        let (t, prec) = match self.rng.below(6) {
            0 => (format!("++{h}"), P_UNARY),
            1 => (format!("--{h}"), P_UNARY),
            2 => (format!("{h}++"), P_PRIMARY),
            3 => (format!("{h}--"), P_PRIMARY),
            4 => (format!("{h} += {k}"), P_COND),
            _ => (format!("{h} -= {k}"), P_COND),
        };
        Some(Ex {
            t,
            ty: Sc::Int,
            rg: Rg::I(-COUNTER_INV, COUNTER_INV),
            prec,
            pure: false,
        })
    }

    /// Arguments for `f` (the struct arguments from variables in scope);
    /// `None` when a struct or a reference argument is missing.
    pub(super) fn args(&mut self, f: &Func, depth: u32) -> Option<(String, bool, Vec<String>)> {
        let mut texts = Vec::new();
        let mut pure = true;
        let mut roots = Vec::new();
        for (_, ty, mode) in &f.params {
            match (ty, mode) {
                (PTy::Sc(t), Mode::Ref) => {
                    let p = self.place(Some(*t))?;
                    roots.push(p.root);
                    texts.push(p.t);
                }
                (PTy::Sc(t), mode) => {
                    let e = self.ex(depth);
                    let e = if f.overloaded || (*mode == Mode::CRef && !self.options.known_gaps) {
                        self.fit(e, *t)
                    } else {
                        self.fit_loose(e, *t)
                    };
                    pure &= e.pure;
                    texts.push(e.t);
                }
                (PTy::St(id), mode) => {
                    let vars = self.struct_vars(*id, *mode == Mode::Ref);
                    if vars.is_empty() {
                        return None;
                    }
                    let v = self.rng.pick(&vars).clone();
                    roots.push(v.clone());
                    texts.push(v);
                }
            }
        }
        Some((texts.join(", "), pure, roots))
    }

    /// A call of a value-returning function without reference parameters.
    pub(super) fn call(&mut self, depth: u32) -> Option<Ex> {
        let cands: Vec<usize> = self
            .callable
            .clone()
            .into_iter()
            .filter(|&i| {
                self.funcs[i].ret.is_some() && self.funcs[i].params.iter().all(|p| p.2 != Mode::Ref)
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let f = self.funcs[*self.rng.pick(&cands)].clone();
        let (args, pure, _) = self.args(&f, depth)?;
        let ret = f.ret?;
        Some(Ex {
            t: format!("{}({args})", f.name),
            ty: ret,
            rg: inv(ret),
            prec: P_PRIMARY,
            pure,
        })
    }

    /// A combination of a few variables in scope (the innermost first),
    /// converted to `t`: what a function returns or a kernel writes.
    pub(super) fn digest(&mut self, t: Sc) -> Ex {
        let mut vars: Vec<Var> = Vec::new();
        let mut kernel_inputs: Vec<Var> = Vec::new();
        {
            for v in self.visible() {
                if matches!(v.kind, Kind::View(..))
                    || v.name.starts_with("idx[")
                    || v.name.starts_with("t.")
                {
                    kernel_inputs.push(v.clone());
                } else if !(v.counter && self.fx_writes.contains(&v.name)) {
                    vars.push(v.clone());
                }
            }
        }
        vars.truncate(12);
        let mut acc = if !kernel_inputs.is_empty() && !self.chance(5) {
            // A kernel writes something that depends on its index.
            let v = self.rng.pick(&kernel_inputs).clone();
            self.read(&v)
        } else if vars.is_empty() {
            self.ex(2)
        } else {
            let v = self.rng.pick(&vars).clone();
            self.read(&v)
        };
        let extra = self.range(1, 4);
        for _ in 0..extra {
            let b = if vars.is_empty() || self.chance(4) {
                self.ex(1)
            } else {
                let v = self.rng.pick(&vars).clone();
                self.read(&v)
            };
            let b = if b.ty.float() && acc.ty.integral() && self.chance(2) {
                self.fit(b, Sc::Int)
            } else {
                b
            };
            acc = match self.rng.below(5) {
                0 => self.bitwise("^", acc, b),
                1 => self.arith("-", acc, b),
                2 => self.arith("*", acc, b),
                _ => self.arith("+", acc, b),
            };
        }
        self.fit_loose(acc, t)
    }
}
