//! Statements: declarations, assignments, control flow, output, atomics.

use super::*;

impl<'r> Gen<'r> {
    // ---------------------------------------------------------------
    // Statements.

    pub(super) fn stmts(&mut self, n: usize, depth: u32) {
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.stmt(depth);
        }
    }

    pub(super) fn stmt(&mut self, depth: u32) {
        for _ in 0..50 {
            let host = !self.amp;
            let done = match self.rng.below(100) {
                0..=15 => self.s_decl(),
                16..=19 => self.s_decl_array(),
                20..=22 => self.s_decl_struct(),
                23..=25 => self.s_decl_ref(),
                26..=37 => self.s_assign(),
                38..=45 => self.s_compound(),
                46..=49 => self.s_incdec(),
                50..=56 if depth > 0 => self.s_if(depth),
                57..=62 if depth > 0 => self.s_for(depth),
                63..=65 if depth > 0 => self.s_while(depth),
                66..=68 if depth > 0 => self.s_switch(depth),
                69..=73 => self.s_call(),
                74..=81 if host && (self.in_main || self.may_print) => self.s_print(),
                82..=84 if !self.breakable.is_empty() => self.s_jump(),
                85..=86 if self.ret.is_some() => self.s_return(),
                87..=88 if depth > 0 => self.s_block(depth),
                89..=95 if self.acc.is_some() => self.s_atomic(),
                96 if !self.kidx.is_empty() && self.chance(2) => self.s_index_local(),
                96 if self.kernel_return => {
                    self.begin();
                    let c = self.ex(2);
                    self.line(&format!("if ({}) return;", c.t));
                    true
                }
                97..=98 if host && (self.in_main || self.may_print) => self.s_print_math(),
                99 if host && self.chance(2) => self.s_vector(),
                99 if depth > 0 => self.s_pp_if(depth),
                _ => false,
            };
            if done {
                return;
            }
        }
        self.line(";");
    }

    pub(super) fn open(&mut self, header: &str, vars: Vec<Var>) {
        if header.is_empty() {
            self.line("{");
        } else {
            self.line(&format!("{header} {{"));
        }
        self.ind += 1;
        self.scopes.push(vars);
        if self.in_main && !self.amp {
            self.declared.push(Vec::new());
        }
    }

    pub(super) fn close(&mut self, tail: &str) {
        if self.in_main && !self.amp {
            let names = self.declared.pop().unwrap_or_default();
            if !names.is_empty() && self.chance(2) {
                let name = self.rng.pick(&names).clone();
                self.print_names(&[name]);
            }
        }
        self.scopes.pop();
        self.ind -= 1;
        self.line(&format!("}}{tail}"));
    }

    pub(super) fn body(&mut self, header: &str, vars: Vec<Var>, depth: u32, tail: &str) {
        self.open(header, vars);
        let n = self.range(1, 4);
        self.stmts(n, depth - 1);
        self.close(tail);
    }

    pub(super) fn note_declared(&mut self, name: &str) {
        if self.in_main
            && !self.amp
            && let Some(names) = self.declared.last_mut()
        {
            names.push(name.to_string());
        }
    }

    pub(super) fn starts_with_type(text: &str) -> bool {
        ["int", "unsigned", "long", "float", "double", "char", "bool"]
            .iter()
            .any(|w| text.starts_with(w))
    }

    /// A name for a new variable: fresh, or now and then the name of a
    /// variable of an enclosing block, which the new one hides.
    pub(super) fn decl_name(&mut self, prefix: &str) -> String {
        if self.chance(6) {
            let inner: Vec<String> = self
                .scopes
                .last()
                .map(|s| s.iter().map(|v| v.name.clone()).collect())
                .unwrap_or_default();
            let outer: Vec<String> = self
                .visible()
                .into_iter()
                .filter(|v| {
                    !inner.contains(&v.name)
                        && v.name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && !v.name.starts_with("SIZE")
                        && !matches!(
                            v.kind,
                            Kind::View(..) | Kind::Vector(..) | Kind::StVector(..)
                        )
                })
                .map(|v| v.name)
                .collect();
            if !outer.is_empty() {
                return self.rng.pick(&outer).clone();
            }
        }
        self.fresh(prefix)
    }

    /// [`Gen::decl_name`] for a variable whose initialiser is `init`: a
    /// name is in scope in its own initialiser, so hiding a variable that
    /// the initialiser reads would read the new, uninitialised one.
    pub(super) fn name_for(&mut self, prefix: &str, init: &str) -> String {
        let name = self.decl_name(prefix);
        if mentions(init, &name) {
            self.fresh(prefix)
        } else {
            name
        }
    }

    pub(super) fn s_decl(&mut self) -> bool {
        let t = self.pick_ty();
        self.begin();
        let depth = 1 + self.rng.below(4) as u32;
        let e = self.ex(depth);
        // The longest initialiser below is a fit of `e`, which mentions
        // what `e` mentions.
        let name = self.name_for("v", &e.t);
        let mut var = Var::new(name.clone(), Kind::Sc(t));
        match self.rng.below(7) {
            0 => {
                let e = self.fit(e, t);
                self.line(&format!("{} {name}{{{}}};", t.name(), e.t));
            }
            1 => {
                let e = self.fit_loose(e, t);
                if Self::starts_with_type(&e.t) {
                    // `int x(int(y));` would declare a function.
                    self.line(&format!("{} {name}(({}));", t.name(), e.t));
                } else {
                    self.line(&format!("{} {name}({});", t.name(), e.t));
                }
            }
            2 => {
                let e = self.fit_loose(e, t);
                let rg = conv_rg(e.rg, e.ty, t);
                self.line(&format!("const {} {name} = {};", t.name(), e.t));
                var.ro = true;
                var.rg = Some(rg);
            }
            3 => {
                let ty = e.ty;
                let e = self.fit(e, ty);
                self.line(&format!("auto {name} = {};", e.t));
                var.kind = Kind::Sc(ty);
            }
            _ => {
                let e = self.fit_loose(e, t);
                self.line(&format!("{} {name} = {};", t.name(), e.t));
            }
        }
        self.note_declared(&name);
        self.push_var(var);
        true
    }

    /// `{a, b, ...}` of exactly typed expressions, for `n` elements of type
    /// `t` (`k` of them given).
    pub(super) fn init_list(&mut self, t: Sc, k: usize) -> String {
        let mut items = Vec::new();
        for _ in 0..k {
            let e = self.ex(2);
            let e = self.fit(e, t);
            items.push(e.t);
        }
        format!("{{{}}}", items.join(", "))
    }

    pub(super) fn s_decl_array(&mut self) -> bool {
        let mut t = self.pick_ty();
        if self.amp && t == Sc::Bool {
            t = Sc::Int;
        }
        self.begin();
        if self.chance(4) {
            let (r, c) = (self.range(2, 3), self.range(2, 4));
            let mut rows = Vec::new();
            let given = self.range(0, r);
            for _ in 0..given {
                let k = self.range(1, c);
                rows.push(self.init_list(t, k));
            }
            let name = self.name_for("a", &rows.join(" "));
            let (rs, cs) = (self.size(r), self.size(c));
            self.line(&format!(
                "{} {name}[{rs}][{cs}] = {{{}}};",
                t.name(),
                rows.join(", ")
            ));
            self.push_var(Var::new(name, Kind::Arr(t, vec![r, c])));
            return true;
        }
        let n = self.range(2, 6);
        let ns = self.size(n);
        let name = match self.rng.below(4) {
            0 => {
                let name = self.fresh("a");
                self.line(&format!("{} {name}[{ns}];", t.name()));
                let i = self.fresh("i");
                let header = format!("for (int {i} = 0; {i} < {ns}; {i}++)");
                self.open(
                    &header,
                    vec![Var::fixed(i.clone(), Sc::Int, Rg::I(0, n as i128 - 1))],
                );
                self.begin();
                let e = self.ex(2);
                let e = self.fit_loose(e, t);
                self.line(&format!("{name}[{i}] = {};", e.t));
                self.close("");
                name
            }
            1 => {
                let name = self.decl_name("a");
                self.line(&format!("{} {name}[{ns}] = {{}};", t.name()));
                name
            }
            _ => {
                let k = self.range(1, n);
                let list = self.init_list(t, k);
                let name = self.name_for("a", &list);
                self.line(&format!("{} {name}[{ns}] = {list};", t.name()));
                name
            }
        };
        self.push_var(Var::new(name, Kind::Arr(t, vec![n])));
        true
    }

    /// An aggregate initialiser for struct `id`, with the first `k` fields
    /// given (all when `k` is `None`).
    pub(super) fn struct_init(&mut self, id: usize, k: Option<usize>) -> String {
        let fields = self.structs[id].fields.clone();
        let k = k.unwrap_or(fields.len()).min(fields.len());
        let mut items = Vec::new();
        for (_, f) in fields.iter().take(k) {
            items.push(match f {
                FKind::Sc(t) => {
                    let e = self.ex(2);
                    self.fit(e, *t).t
                }
                FKind::Arr(t, n) => {
                    let given = self.range(1, *n);
                    self.init_list(*t, given)
                }
                FKind::St(j) => self.struct_init(*j, None),
            });
        }
        format!("{{{}}}", items.join(", "))
    }

    pub(super) fn usable_structs(&self) -> Vec<usize> {
        (0..self.structs.len())
            .filter(|&i| !self.amp || self.structs[i].amp)
            .collect()
    }

    pub(super) fn s_decl_struct(&mut self) -> bool {
        let ids = self.usable_structs();
        if ids.is_empty() {
            return false;
        }
        let id = *self.rng.pick(&ids);
        let sname = self.structs[id].name.clone();
        self.begin();
        let others = self.struct_vars(id, false);
        let init = if !others.is_empty() && self.chance(3) {
            self.rng.pick(&others).clone()
        } else if self.chance(6) {
            "{}".to_string()
        } else {
            let n = self.structs[id].fields.len();
            let k = if self.chance(3) {
                Some(self.range(1, n))
            } else {
                None
            };
            self.struct_init(id, k)
        };
        let name = self.name_for("s", &init);
        self.line(&format!("{sname} {name} = {init};"));
        self.push_var(Var::new(name, Kind::St(id)));
        true
    }

    pub(super) fn s_decl_ref(&mut self) -> bool {
        self.begin();
        let name = self.fresh("r");
        if self.chance(2) {
            let Some(p) = self.place(None) else {
                return false;
            };
            self.line(&format!("{}& {name} = {};", p.ty.name(), p.t));
            self.push_var(Var::new(name, Kind::Sc(p.ty)));
        } else {
            let t = self.pick_ty();
            let e = self.ex(2);
            let mut e = if self.options.known_gaps {
                self.fit_loose(e, t)
            } else {
                self.fit(e, t)
            };
            if e.t.contains("std::min") || e.t.contains("std::max") || e.t.ends_with(']') {
                // They return a reference to an argument, maybe a temporary
                // that dies at the end of the declaration, and so does `[k]`
                // of a temporary index (`(t.global + index<2>(1, 1))[0]`):
                // bind a copy.
                e = self.cast_ex(e, t);
            }
            let rg = conv_rg(e.rg, e.ty, t);
            self.line(&format!("const {}& {name} = {};", t.name(), e.t));
            let mut v = Var::new(name.clone(), Kind::Sc(t));
            v.ro = true;
            v.rg = Some(rg);
            self.push_var(v);
            self.note_declared(&name);
        }
        true
    }

    pub(super) fn s_assign(&mut self) -> bool {
        self.begin();
        if self.chance(8) {
            // A struct copy.
            let ids = self.usable_structs();
            if let Some(&id) = ids.first() {
                let id = ids.get(self.rng.below(ids.len())).copied().unwrap_or(id);
                let targets = self.struct_vars(id, true);
                let sources = self.struct_vars(id, false);
                if !targets.is_empty() && !sources.is_empty() {
                    let a = self.rng.pick(&targets).clone();
                    let b = self.rng.pick(&sources).clone();
                    self.line(&format!("{a} = {b};"));
                    return true;
                }
            }
        }
        self.place_effect = self.chance(4);
        let p = self.place(None);
        self.place_effect = false;
        let Some(p) = p else {
            return false;
        };
        let e = self.ex(3);
        if self.chance(6)
            && let Some(q) = self.place(Some(p.ty))
            && q.root != p.root
        {
            let e = self.fit(e, p.ty);
            self.line(&format!("{} = {} = {};", p.t, q.t, e.t));
            return true;
        }
        let e = self.fit_loose(e, p.ty);
        self.line(&format!("{} = {};", p.t, e.t));
        true
    }

    /// Restores the invariant of `p` after a write that left it with range
    /// `r`.
    pub(super) fn restore(&mut self, p: &Place, r: Rg) {
        if within(r, inv(p.ty)) {
            return;
        }
        match p.ty {
            Sc::Int | Sc::Long => {
                let (_, m) = inv(p.ty).i();
                self.line(&format!("{} %= {};", p.t, m + 1));
            }
            Sc::Float | Sc::Double => {
                let bound = inv(p.ty).abs_max();
                let m = r.abs_max();
                let mut k = 1;
                while m / 10f64.powi(k) > bound * 0.5 {
                    k += 1;
                }
                let suffix = if p.ty == Sc::Float { "f" } else { "" };
                self.line(&format!("{} /= 1e{k}{suffix};", p.t));
            }
            _ => {}
        }
    }

    /// A place for a statement that evaluates it once; now and then one
    /// of a type that needs no restoring afterwards, with a side effect in
    /// an index.
    pub(super) fn place_once(&mut self, types: &[Sc]) -> Option<Place> {
        if self.chance(4) {
            let t = *self.rng.pick(types);
            self.place_effect = true;
            let p = self.place(Some(t));
            self.place_effect = false;
            if p.is_some() {
                return p;
            }
        }
        self.place(None)
    }

    pub(super) fn s_compound(&mut self) -> bool {
        self.begin();
        let Some(p) = self.place_once(&[Sc::UInt, Sc::ULong, Sc::Char, Sc::Bool]) else {
            return false;
        };
        let cur = inv(p.ty);
        let e = self.ex(2);
        if p.ty == Sc::Bool {
            if self.chance(3) {
                // bool += int: computed in int, converted back to bool.
                let op = *self.rng.pick(&["+=", "-=", "*="]);
                let e = self.fit(e, Sc::Int);
                self.line(&format!("{} {op} {};", p.t, e.t));
                return true;
            }
            let op = *self.rng.pick(&["&=", "|=", "^="]);
            let e = self.fit(e, Sc::Bool);
            self.line(&format!("{} {op} {};", p.t, e.t));
            return true;
        }
        if p.ty.float() {
            let op = *self.rng.pick(&["+=", "-=", "*=", "/="]);
            if op == "/=" {
                let d = self.float_divisor(e, p.ty);
                self.line(&format!("{} /= {};", p.t, d.t));
                return true;
            }
            let e = self.fit_loose(e, p.ty);
            let c = common(p.ty, e.ty);
            let er = conv_rg(e.rg, e.ty, c);
            let r = op_range(&op[..1], conv_rg(cur, p.ty, c), er, c).unwrap_or(full(c));
            self.line(&format!("{} {op} {};", p.t, e.t));
            self.restore(&p, conv_rg(r, c, p.ty));
            return true;
        }
        let mut ops = vec!["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ">>="];
        if !p.ty.signed() {
            ops.push("<<=");
        }
        let op = *self.rng.pick(&ops);
        let r = match op {
            "+=" | "-=" | "*=" => {
                let float_ok = matches!(p.ty, Sc::Int | Sc::Long) && op != "*=";
                let mut e = if e.ty.float() && !float_ok {
                    self.fit(e, Sc::Int)
                } else if e.ty.float() {
                    let ty = e.ty;
                    self.fit(e, ty)
                } else {
                    e
                };
                let opc = &op[..1];
                let mut c = common(p.ty, e.ty);
                let mut r = op_range(opc, conv_rg(cur, p.ty, c), conv_rg(e.rg, e.ty, c), c);
                if r.is_none() && !c.float() {
                    e = self.reduce(e, 100);
                    c = common(p.ty, e.ty);
                    r = op_range(opc, conv_rg(cur, p.ty, c), conv_rg(e.rg, e.ty, c), c);
                }
                let Some(r) = r else {
                    return false;
                };
                if c.float() && !float_fits(r, p.ty) {
                    return false;
                }
                self.line(&format!("{} {op} {};", p.t, e.t));
                conv_rg(r, c, p.ty)
            }
            "/=" | "%=" => {
                let c0 = common(p.ty, e.ty.promote());
                let risk = c0.signed() && conv_rg(cur, p.ty, c0).i().0 <= c0.min();
                let d = self.int_divisor(e, risk);
                let c = common(p.ty, d.ty);
                let r = div_range(&op[..1], conv_rg(cur, p.ty, c), conv_rg(d.rg, d.ty, c), c);
                self.line(&format!("{} {op} {};", p.t, d.t));
                conv_rg(r, c, p.ty)
            }
            "&=" | "|=" | "^=" => {
                let e = if e.ty.float() {
                    self.fit(e, Sc::Int)
                } else {
                    e
                };
                let c = common(p.ty, e.ty);
                let r = op_range(&op[..1], conv_rg(cur, p.ty, c), conv_rg(e.rg, e.ty, c), c)
                    .unwrap_or(full(c));
                self.line(&format!("{} {op} {};", p.t, e.t));
                conv_rg(r, c, p.ty)
            }
            _ => {
                let pp = p.ty.promote();
                let count = self.shift_count(pp.bits());
                self.line(&format!("{} {op} {};", p.t, count.t));
                if op == ">>=" { cur } else { full(p.ty) }
            }
        };
        self.restore(&p, r);
        true
    }

    pub(super) fn s_incdec(&mut self) -> bool {
        self.begin();
        let Some(p) = self.place_once(&[Sc::UInt, Sc::ULong, Sc::Char]) else {
            return false;
        };
        if p.ty == Sc::Bool {
            return false;
        }
        let up = self.chance(2);
        let (op, sign) = if up { ("++", ">") } else { ("--", "<") };
        if self.chance(2) {
            self.line(&format!("{}{op};", p.t));
        } else {
            self.line(&format!("{op}{};", p.t));
        }
        let limit = match p.ty {
            Sc::Int => "30000".to_string(),
            Sc::Long => "2000000000".to_string(),
            Sc::Float => "1000000.0f".to_string(),
            Sc::Double => "1000000000.0".to_string(),
            _ => return true,
        };
        let neg = if up { "" } else { "-" };
        let back = if up { "-" } else { "+" };
        if p.ty.integral() && self.chance(2) {
            let (lo, hi) = inv(p.ty).i();
            let r = if up {
                Rg::I(lo, hi + 1)
            } else {
                Rg::I(lo - 1, hi)
            };
            self.restore(&p, r);
        } else {
            self.line(&format!(
                "if ({} {sign} {neg}{limit}) {} {back}= 1;",
                p.t, p.t
            ));
        }
        true
    }

    pub(super) fn s_if(&mut self, depth: u32) -> bool {
        self.begin();
        let c = self.ex(3);
        self.body(&format!("if ({})", c.t), Vec::new(), depth, "");
        if self.chance(3) {
            self.begin();
            let c2 = self.ex(2);
            self.body(&format!("else if ({})", c2.t), Vec::new(), depth, "");
        }
        if self.chance(2) {
            self.body("else", Vec::new(), depth, "");
        }
        true
    }

    pub(super) fn loop_body(
        &mut self,
        header: &str,
        vars: Vec<Var>,
        depth: u32,
        pre: Option<String>,
        tail: &str,
    ) {
        self.breakable.push(true);
        self.open(header, vars);
        if let Some(pre) = pre {
            self.line(&pre);
        }
        let n = self.range(1, 4);
        self.stmts(n, depth - 1);
        self.close(tail);
        self.breakable.pop();
    }

    pub(super) fn s_for(&mut self, depth: u32) -> bool {
        let n = self.range(1, 6);
        let ns = self.size(n);
        let i = self.fresh("i");
        let ni = n as i128;
        if !self.amp && self.chance(5) {
            // A range for over a vector or a C array.
            let seqs: Vec<(String, Sc)> = self
                .visible()
                .into_iter()
                .filter_map(|v| match &v.kind {
                    Kind::Vector(t, _) => Some((v.name.clone(), *t)),
                    Kind::Arr(t, dims) if dims.len() == 1 => Some((v.name.clone(), *t)),
                    _ => None,
                })
                .collect();
            if !seqs.is_empty() {
                let (seq, t) = self.rng.pick(&seqs).clone();
                let var = Var::fixed(i.clone(), t, inv(t));
                let spelled = if self.chance(3) { "auto" } else { t.name() };
                let header = if self.chance(3) {
                    format!("for (const {spelled}& {i} : {seq})")
                } else {
                    format!("for ({spelled} {i} : {seq})")
                };
                self.loop_body(&header, vec![var], depth, None, "");
                return true;
            }
        }
        let (header, rg, t) = match self.rng.below(5) {
            0 => (
                format!("for (int {i} = {ns} - 1; {i} >= 0; --{i})"),
                Rg::I(0, ni - 1),
                Sc::Int,
            ),
            1 => {
                let step = self.range(2, 3);
                let start = self.range(0, 2);
                (
                    format!("for (int {i} = {start}; {i} < {ns} + {start}; {i} += {step})"),
                    Rg::I(start as i128, ni - 1 + start as i128),
                    Sc::Int,
                )
            }
            2 => (
                format!("for (unsigned int {i} = 0u; {i} < {n}u; ++{i})"),
                Rg::I(0, ni - 1),
                Sc::UInt,
            ),
            3 => (
                format!("for (long {i} = 0; {i} != {n}; {i}++)"),
                Rg::I(0, ni - 1),
                Sc::Long,
            ),
            _ => (
                format!("for (int {i} = 0; {i} < {ns}; {i}++)"),
                Rg::I(0, ni - 1),
                Sc::Int,
            ),
        };
        self.loop_body(&header, vec![Var::fixed(i, t, rg)], depth, None, "");
        true
    }

    pub(super) fn s_while(&mut self, depth: u32) -> bool {
        let n = self.range(1, 5);
        let w = self.fresh("w");
        self.line(&format!("int {w} = 0;"));
        self.push_var(Var::fixed(w.clone(), Sc::Int, Rg::I(0, n as i128)));
        let inc = match self.rng.below(3) {
            0 => format!("{w}++;"),
            1 => format!("++{w};"),
            _ => format!("{w} += 1;"),
        };
        if self.chance(2) {
            self.loop_body(
                &format!("while ({w} < {n})"),
                Vec::new(),
                depth,
                Some(inc),
                "",
            );
        } else {
            self.loop_body(
                "do",
                Vec::new(),
                depth,
                Some(inc),
                &format!(" while ({w} < {n});"),
            );
        }
        true
    }

    pub(super) fn s_switch(&mut self, depth: u32) -> bool {
        self.begin();
        let e = self.ex(2);
        let e = if e.ty.float() {
            self.fit(e, Sc::Int)
        } else {
            e
        };
        let (ctrl, ty, lo, hi) = match self.rng.below(3) {
            0 => {
                let w = self.wrap(&e, P_BAND);
                (format!("{w} & 7"), e.ty.promote(), 0, 7)
            }
            1 => {
                let e = self.fit(e, Sc::Int);
                let w = self.wrap(&e, P_MUL);
                (format!("{w} % 5"), Sc::Int, -4, 4)
            }
            _ => {
                let (lo, hi) = e.rg.i();
                (e.t.clone(), e.ty.promote(), lo.max(-3), hi.min(6))
            }
        };
        let lo = if ty.signed() { lo } else { lo.max(0) };
        if lo > hi {
            return false;
        }
        let mut labels: Vec<i128> = (lo..=hi).collect();
        let k = self.range(1, 4).min(labels.len());
        let mut chosen = Vec::new();
        for _ in 0..k {
            let at = self.rng.below(labels.len());
            chosen.push(labels.remove(at));
        }
        let with_default = self.chance(2);
        let default_at = self.rng.below(chosen.len() + 1);
        self.line(&format!("switch ({ctrl}) {{"));
        self.breakable.push(false);
        for slot in 0..=chosen.len() {
            let label = if slot == default_at && with_default {
                Some("default:".to_string())
            } else {
                None
            };
            let labels_here: Vec<String> = label
                .into_iter()
                .chain(chosen.get(slot).map(|v| format!("case {v}:")))
                .collect();
            if labels_here.is_empty() {
                continue;
            }
            self.line(&labels_here.join(" "));
            self.ind += 1;
            self.open("", Vec::new());
            let n = self.range(1, 3);
            self.stmts(n, depth - 1);
            if self.chance(4) {
                self.line("break;");
            }
            self.close("");
            if self.chance(2) {
                self.line("break;");
            }
            self.ind -= 1;
        }
        self.breakable.pop();
        self.line("}");
        true
    }

    pub(super) fn s_call(&mut self) -> bool {
        let cands = self.callable.clone();
        if cands.is_empty() {
            return false;
        }
        let f = self.funcs[*self.rng.pick(&cands)].clone();
        self.begin();
        let Some((args, _, roots)) = self.args(&f, 2) else {
            return false;
        };
        if let Some(ret) = f.ret
            && self.chance(2)
            && let Some(p) = self.place(None)
            && !roots.contains(&p.root)
        {
            let call = Ex::atom(format!("{}({args})", f.name), ret, inv(ret));
            let e = self.fit_loose(call, p.ty);
            self.line(&format!("{} = {};", p.t, e.t));
            return true;
        }
        self.line(&format!("{}({args});", f.name));
        true
    }

    /// `<< x` items that print `e`, with manipulators.
    pub(super) fn print_item(&mut self, e: Ex) -> String {
        let mut s = String::new();
        let body = if e.prec == P_PRIMARY {
            e.t.clone()
        } else {
            format!("({})", e.t)
        };
        match e.ty {
            Sc::Char => {
                let (lo, hi) = e.rg.i();
                if (lo >= 32 && hi <= 126) || (self.options.known_gaps && self.chance(2)) {
                    let _ = write!(s, " << {body}");
                } else if self.chance(2) {
                    let _ = write!(s, " << (int){body}");
                } else {
                    let _ = write!(s, " << +{body}");
                }
            }
            Sc::Bool => {
                if self.chance(3) && self.options.known_gaps {
                    let _ = write!(s, " << std::boolalpha << {body} << std::noboolalpha");
                } else if self.chance(6) {
                    // It stays on: the later bools print as words too.
                    let _ = write!(s, " << std::boolalpha << {body}");
                } else {
                    let _ = write!(s, " << {body}");
                }
            }
            Sc::Float | Sc::Double => {
                match self.rng.below(5) {
                    0 => {
                        let p = self.range(1, 17);
                        let _ = write!(s, " << std::setprecision({p})");
                    }
                    1 => {
                        let p = self.range(0, 9);
                        let _ = write!(s, " << std::fixed << std::setprecision({p})");
                    }
                    2 => {
                        let p = self.range(0, 9);
                        let _ = write!(s, " << std::scientific << std::setprecision({p})");
                    }
                    _ => {}
                }
                if self.chance(4) {
                    let w = self.range(1, 16);
                    let _ = write!(s, " << std::setw({w})");
                }
                let _ = write!(s, " << {body}");
                if self.chance(2) {
                    s.push_str(" << std::defaultfloat << std::setprecision(6)");
                }
            }
            _ => match self.rng.below(6) {
                0 => {
                    let w = self.range(1, 12);
                    let _ = write!(s, " << std::setw({w}) << {body}");
                }
                1 => {
                    let w = self.range(1, 12);
                    let fill = *self.rng.pick(&["'*'", "'0'", "'.'", "' '"]);
                    let side = *self.rng.pick(&["std::left", "std::right"]);
                    let _ = write!(
                        s,
                        " << {side} << std::setfill({fill}) << std::setw({w}) << {body} << std::setfill(' ') << std::right"
                    );
                }
                2 => {
                    let _ = write!(s, " << std::hex << {body} << std::dec");
                }
                _ => {
                    let _ = write!(s, " << {body}");
                }
            },
        }
        s
    }

    pub(super) fn s_print(&mut self) -> bool {
        self.begin();
        let label = self.fresh("p");
        let mut line = format!("{} << \"{label}:\"", self.cout());
        let k = self.range(1, 3);
        for _ in 0..k {
            let d = self.rng.below(4) as u32;
            let e = self.ex(d);
            line.push_str(" << ' '");
            let item = self.print_item(e);
            line.push_str(&item);
        }
        line.push_str(if self.chance(3) {
            " << std::endl;"
        } else {
            " << \"\\n\";"
        });
        self.line(&line);
        true
    }

    /// Prints library functions that are not exactly rounded (exp, sin,
    /// ...) with at most five significant digits, on moderate arguments:
    /// the C library and Tessera may differ in the last bits, not in five
    /// digits.
    pub(super) fn s_print_math(&mut self) -> bool {
        self.begin();
        let t = if self.chance(3) {
            Sc::Float
        } else {
            Sc::Double
        };
        let x = self.ex(2);
        let x = self.fit(x, t);
        let (suffix, div) = if t == Sc::Float {
            ("f", "1e5f")
        } else {
            ("", "1e8")
        };
        let xw = self.wrap(&x, P_MUL);
        let arg = format!("{xw} / {div}");
        let y = self.ex(1);
        let y = self.fit(y, t);
        let yw = self.wrap(&y, P_MUL);
        let arg2 = format!("{yw} / {div}");
        let one = format!("1.0{suffix}");
        let call = match self.rng.below(16) {
            0 => format!("std::exp({arg})"),
            1 => format!("std::sin({arg})"),
            2 => format!("std::cos({arg})"),
            3 => format!("std::atan({arg})"),
            4 => format!("std::tanh({arg})"),
            5 => format!("std::sinh({arg})"),
            6 => format!("std::exp2({arg})"),
            7 => format!("std::cbrt({arg})"),
            8 => format!("std::log(std::fabs({arg}) + {one})"),
            9 => format!("std::log2(std::fabs({arg}) + {one})"),
            10 => format!("std::log10(std::fabs({arg}) + {one})"),
            11 => format!("std::pow(std::fabs({arg}) + {one}, {arg2})"),
            12 => format!("std::atan2({arg}, {arg2})"),
            13 => format!("std::hypot({arg}, {arg2})"),
            14 => format!("std::erf({arg})"),
            _ => format!("std::cosh({arg})"),
        };
        let p = self.range(1, 5);
        let label = self.fresh("m");
        let cout = self.cout();
        let form = if self.chance(3) {
            "std::scientific << "
        } else {
            ""
        };
        self.line(&format!(
            "{cout} << \"{label}: \" << {form}std::setprecision({p}) << {call} << std::defaultfloat << \"\\n\";"
        ));
        true
    }

    /// Prints the named scalar variables.
    pub(super) fn print_names(&mut self, names: &[String]) {
        let vars: Vec<Var> = self
            .visible()
            .into_iter()
            .filter(|v| names.contains(&v.name))
            .collect();
        for v in vars {
            self.begin();
            let e = self.read(&v);
            let item = self.print_item(e);
            let line = format!("{} << \"{}=\"{item} << \"\\n\";", self.cout(), v.name);
            self.line(&line);
        }
    }

    pub(super) fn s_jump(&mut self) -> bool {
        let can_continue = self.breakable.contains(&true);
        let word = if can_continue && self.chance(2) {
            "continue"
        } else {
            "break"
        };
        self.begin();
        let c = self.ex(2);
        self.line(&format!("if ({}) {word};", c.t));
        true
    }

    pub(super) fn s_return(&mut self) -> bool {
        let Some(ret) = self.ret else {
            return false;
        };
        self.begin();
        let c = self.ex(2);
        match ret {
            None => self.line(&format!("if ({}) return;", c.t)),
            Some(t) => {
                let e = self.ex(2);
                let e = self.fit_loose(e, t);
                self.line(&format!("if ({}) return {};", c.t, e.t));
            }
        }
        true
    }

    /// An `index<N>` or `extent<N>` local in a kernel, computed from the
    /// kernel's index or a view's extent; its components become readable.
    pub(super) fn s_index_local(&mut self) -> bool {
        let dims = self.kdims.clone();
        let rank = dims.len();
        let Some(ix) = self.kidx.first().cloned() else {
            return false;
        };
        let name = self.fresh("p");
        let k = self.range(1, 3) as i128;
        let ks: Vec<String> = (0..rank).map(|_| k.to_string()).collect();
        let ks = ks.join(", ");
        // Each component's range from the kernel's dimension `n`.
        let (decl, extra, comp): (String, Option<String>, ComponentRange) = match self.rng.below(6)
        {
            0 => (
                format!("index<{rank}> {name} = {ix};"),
                None,
                Box::new(|n| (0, n - 1)),
            ),
            1 => (
                format!("index<{rank}> {name}({ix});"),
                Some(format!("{name} += index<{rank}>({ks});")),
                Box::new(move |n| (k, n - 1 + k)),
            ),
            2 => (
                format!("index<{rank}> {name} = {ix} * {k};"),
                Some(format!("{name} -= {k};")),
                Box::new(move |n| (-k, (n - 1) * k - k)),
            ),
            3 => (
                format!("index<{rank}> {name} = {ix};"),
                Some(format!("{name}++;")),
                Box::new(|n| (1, n)),
            ),
            4 => (
                format!("extent<{rank}> {name}({ks});"),
                Some(format!("{name} *= 2;")),
                Box::new(move |_| (2 * k, 2 * k)),
            ),
            _ => (
                format!("index<{rank}> {name} = {ix} % {};", k + 1),
                None,
                Box::new(move |_| (0, k)),
            ),
        };
        self.line(&decl);
        if let Some(extra) = extra {
            self.line(&extra);
        }
        for (d, &n) in dims.iter().enumerate() {
            let (lo, hi) = comp(n as i128);
            self.push_var(Var::fixed(format!("{name}[{d}]"), Sc::Int, Rg::I(lo, hi)));
        }
        true
    }

    /// A `std::vector` built on the host: by size, by size and value,
    /// element by element with `push_back`, or as a copy of another.
    pub(super) fn s_vector(&mut self) -> bool {
        let t = *self
            .rng
            .pick(&[Sc::Int, Sc::UInt, Sc::Float, Sc::Double, Sc::Long, Sc::Char]);
        self.begin();
        let name = self.fresh("vec");
        let copies: Vec<(String, usize)> = self
            .visible()
            .into_iter()
            .filter_map(|v| match v.kind {
                Kind::Vector(u, n) if u == t => Some((v.name, n)),
                _ => None,
            })
            .collect();
        let tn = t.name();
        let len = match self.rng.below(4) {
            0 if !copies.is_empty() => {
                let (other, n) = self.rng.pick(&copies).clone();
                self.line(&format!("std::vector<{tn}> {name} = {other};"));
                n
            }
            1 => {
                let n = self.range(1, 6);
                self.line(&format!("std::vector<{tn}> {name}({n});"));
                n
            }
            2 => {
                let n = self.range(1, 6);
                let e = self.ex(2);
                let e = self.fit(e, t);
                self.line(&format!("std::vector<{tn}> {name}({n}, {});", e.t));
                n
            }
            _ => {
                let n = self.range(1, 5);
                self.line(&format!("std::vector<{tn}> {name};"));
                for _ in 0..n {
                    self.begin();
                    let e = self.ex(2);
                    let e = self.fit_loose(e, t);
                    self.line(&format!("{name}.push_back({});", e.t));
                }
                n
            }
        };
        self.push_var(Var::new(name.clone(), Kind::Vector(t, len)));
        let size = Var::fixed(
            format!("{name}.size()"),
            Sc::ULong,
            Rg::I(len as i128, len as i128),
        );
        self.push_var(size);
        true
    }

    /// Statements under `#if`/`#ifdef`/`#ifndef`, with an `#else` branch:
    /// each branch is a block, so neither leaks declarations.
    pub(super) fn s_pp_if(&mut self, depth: u32) -> bool {
        let cond = match (self.macros.is_empty(), self.rng.below(5)) {
            (false, 0) => {
                let (name, v) = self.rng.pick(&self.macros).clone();
                let k = self.rng.below(10);
                let op = *self.rng.pick(&[">", "<", "==", "!=", ">="]);
                let _ = v;
                format!("#if {name} {op} {k}")
            }
            (false, 1) => {
                let (name, _) = self.rng.pick(&self.macros).clone();
                format!("#ifdef {name}")
            }
            (false, 2) => {
                let (name, v) = self.rng.pick(&self.macros).clone();
                format!("#if defined({name}) && {name} * 2 == {}", v * 2)
            }
            (_, 3) => "#ifndef TESSERA_NOT_DEFINED".to_string(),
            (_, 4) => "#ifdef TESSERA_NOT_DEFINED".to_string(),
            _ => format!("#if {}", self.rng.below(2)),
        };
        self.line(&cond);
        self.body("", Vec::new(), depth, "");
        if self.chance(3) {
            self.line("#elif 1");
            self.body("", Vec::new(), depth, "");
        }
        if self.chance(2) {
            self.line("#else");
            self.body("", Vec::new(), depth, "");
        }
        self.line("#endif");
        true
    }

    pub(super) fn s_block(&mut self, depth: u32) -> bool {
        self.body("", Vec::new(), depth, "");
        true
    }

    pub(super) fn s_atomic(&mut self) -> bool {
        let Some(acc) = self.acc.clone() else {
            return false;
        };
        self.begin();
        let i = self.index(acc.len);
        let loc = format!("&{}[{i}]", acc.view);
        let e = self.ex(2);
        let call = match acc.op {
            AccOp::Additive => {
                let v = self.fit_loose(e, Sc::Int);
                match self.rng.below(6) {
                    0 => format!("atomic_fetch_inc({loc});"),
                    1 => format!("atomic_fetch_dec({loc});"),
                    2 => format!("atomic_fetch_sub({loc}, {});", v.t),
                    3 => {
                        let ex = self.fresh("x");
                        let v = self.fit(v, Sc::Int);
                        let w = self.wrap(&v, P_ADD - 1);
                        // The addend is computed once: an expression with
                        // a side effect (`c--`) in the loop would add a
                        // different amount after each failed exchange, and
                        // the sum would depend on how often other threads
                        // won the race.
                        let add = self.fresh("d");
                        self.line("{");
                        self.ind += 1;
                        self.line(&format!("int {add} = {w};"));
                        self.line(&format!("int {ex} = atomic_fetch_add({loc}, 0);"));
                        self.line(&format!(
                            "while (!atomic_compare_exchange({loc}, &{ex}, {ex} + {add})) {{"
                        ));
                        self.line("}");
                        self.ind -= 1;
                        self.line("}");
                        return true;
                    }
                    _ => format!("atomic_fetch_add({loc}, {});", v.t),
                }
            }
            AccOp::UAdditive => {
                let v = self.fit_loose(e, Sc::UInt);
                let f = if self.chance(2) { "add" } else { "sub" };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
            AccOp::Max | AccOp::Min => {
                let v = self.fit_loose(e, Sc::Int);
                let f = if acc.op == AccOp::Max { "max" } else { "min" };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
            AccOp::UMax | AccOp::UMin => {
                let v = self.fit_loose(e, Sc::UInt);
                let f = if acc.op == AccOp::UMax { "max" } else { "min" };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
            AccOp::Or | AccOp::And | AccOp::Xor => {
                let v = self.fit_loose(e, Sc::UInt);
                let f = match acc.op {
                    AccOp::Or => "or",
                    AccOp::And => "and",
                    _ => "xor",
                };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
        };
        self.line(&call);
        true
    }
}
