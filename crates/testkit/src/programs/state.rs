//! The generator's state: construction, small helpers, literals and
//! reading variables (paths, indices, places).

use super::*;

impl<'r> Gen<'r> {
    pub(super) fn new(rng: &'r mut Rng, options: Options) -> Self {
        Gen {
            rng,
            options,
            out: String::new(),
            ind: 0,
            next: 0,
            macros: Vec::new(),
            structs: Vec::new(),
            funcs: Vec::new(),
            scopes: vec![Vec::new()],
            amp: false,
            both: false,
            in_main: false,
            ret: None,
            may_print: false,
            callable: Vec::new(),
            fx_reads: Vec::new(),
            fx_writes: Vec::new(),
            effects: true,
            breakable: Vec::new(),
            kidx: Vec::new(),
            kdims: Vec::new(),
            acc: None,
            declared: Vec::new(),
            short_cout: false,
            budget: 0,
            nest: 0,
            kernel_return: false,
            kviews: Vec::new(),
            selectors: Vec::new(),
            fmacros: Vec::new(),
            place_effect: false,
        }
    }

    // ---------------------------------------------------------------
    // Small helpers.

    pub(super) fn chance(&mut self, n: usize) -> bool {
        self.rng.below(n) == 0
    }

    pub(super) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.rng.below(hi - lo + 1)
    }

    pub(super) fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    pub(super) fn line(&mut self, s: &str) {
        for _ in 0..self.ind {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    pub(super) fn cout(&self) -> &'static str {
        if self.short_cout { "cout" } else { "std::cout" }
    }

    /// A size, sometimes spelled with a macro of that value.
    pub(super) fn size(&mut self, n: usize) -> String {
        let names: Vec<String> = self
            .macros
            .iter()
            .filter(|(_, v)| *v == n)
            .map(|(name, _)| name.clone())
            .collect();
        if !names.is_empty() && self.chance(2) {
            self.rng.pick(&names).clone()
        } else {
            n.to_string()
        }
    }

    pub(super) fn begin(&mut self) {
        self.fx_reads.clear();
        self.fx_writes.clear();
    }

    pub(super) fn push_var(&mut self, v: Var) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(v);
        }
    }

    pub(super) fn pick_ty(&mut self) -> Sc {
        let table: &[Sc] = if self.amp {
            &[
                Sc::Int,
                Sc::Int,
                Sc::Int,
                Sc::UInt,
                Sc::Long,
                Sc::ULong,
                Sc::Float,
                Sc::Float,
                Sc::Double,
                Sc::Bool,
            ]
        } else {
            &[
                Sc::Int,
                Sc::Int,
                Sc::Int,
                Sc::UInt,
                Sc::Long,
                Sc::ULong,
                Sc::Float,
                Sc::Float,
                Sc::Double,
                Sc::Bool,
                Sc::Char,
            ]
        };
        *self.rng.pick(table)
    }

    /// `e`'s text, parenthesised when its operator binds more loosely than
    /// `max` allows (and now and then when it does not).
    pub(super) fn wrap(&mut self, e: &Ex, max: u8) -> String {
        if e.prec > max || (e.prec > P_PRIMARY && self.chance(8)) {
            format!("({})", e.t)
        } else {
            e.t.clone()
        }
    }

    /// The operand of a prefix operator.
    pub(super) fn wrap_unary(&mut self, e: &Ex) -> String {
        if e.t.starts_with('-') || e.t.starts_with('+') {
            format!("({})", e.t)
        } else {
            self.wrap(e, P_UNARY)
        }
    }

    pub(super) fn bin(&mut self, op: &str, prec: u8, a: &Ex, b: &Ex, ty: Sc, rg: Rg) -> Ex {
        let l = self.wrap(a, prec);
        let r = self.wrap(b, prec - 1);
        Ex {
            t: format!("{l} {op} {r}"),
            ty,
            rg,
            prec,
            pure: a.pure && b.pure,
        }
    }

    // ---------------------------------------------------------------
    // Literals.

    pub(super) fn literal(&mut self, t: Sc) -> Ex {
        if self.amp && matches!(t, Sc::Long | Sc::ULong) && !self.options.known_gaps {
            // Amp code takes no 64-bit literal: convert a 32-bit one.
            let small = if t == Sc::Long && self.chance(2) {
                Sc::Int
            } else {
                Sc::UInt
            };
            let e = self.literal(small);
            return self.cast_ex(e, t);
        }
        let lit = |t: String, ty: Sc, v: i128| Ex::atom(t, ty, Rg::I(v, v));
        match t {
            Sc::Bool => {
                if self.chance(2) {
                    lit("true".into(), t, 1)
                } else {
                    lit("false".into(), t, 0)
                }
            }
            Sc::Char => {
                let (text, v) = *self.rng.pick(CHAR_LITERALS);
                lit(text.into(), t, v)
            }
            Sc::Int => match self.rng.below(7) {
                0..=2 => {
                    let v = self.rng.below(21) as i128;
                    lit(v.to_string(), t, v)
                }
                3 => {
                    let v = 100 + self.rng.below(40_000) as i128;
                    lit(v.to_string(), t, v)
                }
                4 => {
                    let v = self.rng.below(0x1_0000) as i128;
                    lit(format!("0x{v:X}"), t, v)
                }
                5 => {
                    let v = (1 + self.rng.below(50)) as i128;
                    Ex {
                        t: format!("-{v}"),
                        ty: t,
                        rg: Rg::I(-v, -v),
                        prec: P_UNARY,
                        pure: true,
                    }
                }
                _ => {
                    let v = 0x7000_0000 + self.rng.below(0x0FFF_FFFF) as i128;
                    lit(v.to_string(), t, v)
                }
            },
            Sc::UInt => match self.rng.below(4) {
                0 | 1 => {
                    let v = self.rng.below(41) as i128;
                    lit(format!("{v}u"), t, v)
                }
                2 => {
                    let v = 2_000_000_000 + (self.rng.next_u64() % 2_294_967_296) as i128;
                    lit(format!("{v}u"), t, v)
                }
                _ => {
                    // A hexadecimal literal above INT_MAX is unsigned int.
                    let v = 0x8000_0000 + (self.rng.next_u64() % 0x8000_0000) as i128;
                    lit(format!("0x{v:X}"), t, v)
                }
            },
            Sc::Long => match self.rng.below(4) {
                0 | 1 => {
                    let v = self.rng.below(101) as i128;
                    lit(format!("{v}L"), t, v)
                }
                2 => {
                    // A decimal literal above INT_MAX is long.
                    let v = 2_147_483_648 + (self.rng.next_u64() % 3_000_000_000) as i128;
                    lit(v.to_string(), t, v)
                }
                _ => {
                    let v = (1 + self.rng.below(1000)) as i128;
                    Ex {
                        t: format!("-{v}L"),
                        ty: t,
                        rg: Rg::I(-v, -v),
                        prec: P_UNARY,
                        pure: true,
                    }
                }
            },
            Sc::ULong => match self.rng.below(3) {
                0 => {
                    let v = self.rng.below(101) as i128;
                    lit(format!("{v}UL"), t, v)
                }
                1 => {
                    let v = i128::from(self.rng.next_u64());
                    lit(format!("{v}UL"), t, v)
                }
                _ => {
                    // A hexadecimal literal above LONG_MAX is unsigned long.
                    let v = i128::from(self.rng.next_u64() | (1 << 63));
                    lit(format!("0x{v:X}"), t, v)
                }
            },
            Sc::Float | Sc::Double => {
                let text = if t == Sc::Float {
                    *self.rng.pick(FLOAT_LITERALS)
                } else {
                    *self.rng.pick(DOUBLE_LITERALS)
                };
                let digits = text.trim_end_matches(['f', 'F']);
                let v = if t == Sc::Float {
                    f64::from(digits.parse::<f32>().unwrap_or(0.0))
                } else {
                    digits.parse::<f64>().unwrap_or(0.0)
                };
                Ex::atom(text.into(), t, Rg::F(v, v))
            }
        }
    }

    // ---------------------------------------------------------------
    // Reading variables.

    /// Every path from a variable of kind `kind` to a scalar, with its type.
    pub(super) fn paths(&self, kind: &Kind) -> Vec<(Vec<Step>, Sc)> {
        match kind {
            Kind::Sc(t) => vec![(Vec::new(), *t)],
            Kind::Arr(t, dims) => vec![(dims.iter().map(|&n| Step::Index(n)).collect(), *t)],
            Kind::Vector(t, n) => vec![(vec![Step::Index(*n)], *t)],
            Kind::StVector(id, n) => self
                .struct_paths(*id)
                .into_iter()
                .map(|(mut steps, t)| {
                    steps.insert(0, Step::Index(*n));
                    (steps, t)
                })
                .collect(),
            Kind::View(..) => Vec::new(),
            Kind::St(id) => self.struct_paths(*id),
        }
    }

    pub(super) fn struct_paths(&self, id: usize) -> Vec<(Vec<Step>, Sc)> {
        let mut all = Vec::new();
        for (name, f) in &self.structs[id].fields {
            let field = Step::Field(name.clone());
            match f {
                FKind::Sc(t) => all.push((vec![field], *t)),
                FKind::Arr(t, n) => all.push((vec![field, Step::Index(*n)], *t)),
                FKind::St(j) => {
                    for (mut rest, t) in self.struct_paths(*j) {
                        rest.insert(0, field.clone());
                        all.push((rest, t));
                    }
                }
            }
        }
        all
    }

    pub(super) fn render(&mut self, base: &str, steps: &[Step]) -> String {
        let mut s = base.to_string();
        for step in steps {
            match step {
                Step::Field(f) => {
                    s.push('.');
                    s.push_str(f);
                }
                Step::Index(n) => {
                    let effect = if self.place_effect && self.effects {
                        self.effect()
                    } else {
                        None
                    };
                    let i = match effect {
                        Some(e) => {
                            self.place_effect = false;
                            self.index_of(e, *n)
                        }
                        None => self.index(*n),
                    };
                    let _ = write!(s, "[{i}]");
                }
            }
        }
        s
    }

    /// A side-effect-free index in `0..n`.
    pub(super) fn index(&mut self, n: usize) -> String {
        let saved = self.effects;
        self.effects = false;
        let text = if self.nest >= 2 || self.chance(3) {
            self.rng.below(n).to_string()
        } else {
            self.nest += 1;
            let depth = 1 + self.rng.below(2) as u32;
            let e = self.ex(depth);
            self.nest -= 1;
            self.index_of(e, n)
        };
        self.effects = saved;
        text
    }

    pub(super) fn index_of(&mut self, e: Ex, n: usize) -> String {
        let e = if e.ty.float() {
            self.fit(e, Sc::Int)
        } else {
            e
        };
        let (lo, hi) = e.rg.i();
        if lo >= 0 && hi < n as i128 {
            return e.t;
        }
        if n.is_power_of_two() && self.chance(2) {
            let l = self.wrap(&e, P_BAND);
            format!("{l} & {}", n - 1)
        } else {
            format!("(unsigned int)({}) % {}u", e.t, n)
        }
    }

    /// The variables that names resolve to here: the innermost declaration
    /// of each name, innermost first.
    pub(super) fn visible(&self) -> Vec<Var> {
        self.visible_from(0)
    }

    /// Like [`Gen::visible`], for the scopes from `start` on.
    pub(super) fn visible_from(&self, start: usize) -> Vec<Var> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for scope in self.scopes.iter().skip(start).rev() {
            for v in scope.iter().rev() {
                if !seen.contains(&v.name.as_str()) {
                    seen.push(&v.name);
                    out.push(v.clone());
                }
            }
        }
        out
    }

    /// Variables readable here, counters written in the current full
    /// expression left out.
    pub(super) fn readable(&self) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|v| !(v.counter && self.fx_writes.contains(&v.name)))
            .collect()
    }

    pub(super) fn read(&mut self, v: &Var) -> Ex {
        if let Kind::View(t, dims) = &v.kind {
            return self.read_view(&v.name, *t, &dims.clone());
        }
        if v.counter {
            self.fx_reads.push(v.name.clone());
        }
        let paths = self.paths(&v.kind);
        let (steps, t) = self.rng.pick(&paths).clone();
        let text = self.render(&v.name, &steps);
        let rg = match (&v.kind, v.rg) {
            (Kind::Sc(_) | Kind::Arr(..), Some(rg)) => rg,
            _ => inv(t),
        };
        Ex::atom(text, t, rg)
    }

    pub(super) fn read_view(&mut self, name: &str, t: Sc, dims: &[usize]) -> Ex {
        let same = dims == self.kdims.as_slice() && !self.kidx.is_empty();
        let text = if same && self.chance(3) {
            let k = self.rng.pick(&self.kidx).clone();
            format!("{name}[{k}]")
        } else if dims.len() == 1 {
            let i = self.index(dims[0]);
            if self.chance(4) {
                format!("{name}({i})")
            } else {
                format!("{name}[{i}]")
            }
        } else if dims.len() == 2 {
            let i = self.index(dims[0]);
            let j = self.index(dims[1]);
            match self.rng.below(3) {
                0 => format!("{name}({i}, {j})"),
                1 => format!("{name}[{i}][{j}]"),
                _ => format!("{name}[index<2>({i}, {j})]"),
            }
        } else {
            let is: Vec<String> = dims.iter().map(|&n| self.index(n)).collect();
            match self.rng.below(3) {
                0 => format!("{name}({})", is.join(", ")),
                1 => format!("{name}[{}]", is.join("][")),
                _ => format!("{name}[index<3>({})]", is.join(", ")),
            }
        };
        Ex::atom(text, t, inv(t))
    }

    /// An assignable location, of type `want` when given.
    pub(super) fn place(&mut self, want: Option<Sc>) -> Option<Place> {
        let mut cands = Vec::new();
        for v in self.visible() {
            if v.ro || v.counter {
                continue;
            }
            for (steps, t) in self.paths(&v.kind) {
                if want.is_none_or(|w| w == t) {
                    cands.push((v.name.clone(), steps, t));
                }
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (root, steps, ty) = self.rng.pick(&cands).clone();
        let t = self.render(&root, &steps);
        if self.nest == 0 && self.chance(8) {
            // One of two places: `(c ? p : q)` or a selector returning a
            // reference.
            let others: Vec<(String, Vec<Step>, Sc)> = cands
                .iter()
                .filter(|c| c.2 == ty && c.0 != root)
                .cloned()
                .collect();
            if !others.is_empty() {
                let (root2, steps2, _) = self.rng.pick(&others).clone();
                let t2 = self.render(&root2, &steps2);
                let saved = self.effects;
                self.effects = false;
                self.nest += 1;
                let c = self.ex(1);
                self.nest -= 1;
                self.effects = saved;
                let text = if self.selectors.contains(&ty) && self.chance(2) {
                    let c = self.fit(c, Sc::Bool);
                    format!("{}({t}, {t2}, {})", selector_name(ty), c.t)
                } else {
                    let ct = self.wrap(&c, P_LOR);
                    format!("({ct} ? {t} : {t2})")
                };
                return Some(Place { t: text, ty, root });
            }
        }
        Some(Place { t, ty, root })
    }

    pub(super) fn struct_vars(&self, id: usize, writable: bool) -> Vec<String> {
        self.visible()
            .into_iter()
            .filter(|v| matches!(v.kind, Kind::St(i) if i == id) && (!writable || !v.ro))
            .map(|v| v.name.clone())
            .collect()
    }
}
