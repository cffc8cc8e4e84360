//! Library intrinsics: math functions, element access of views and vectors,
//! shape operations, atomics.

use super::*;

impl Emitter<'_, '_, '_> {
    pub(super) fn math(&mut self, f: MathFn, s: Scalar, args: &[Value]) -> R<Value> {
        let code = tessera_runtime::math::ALL_MATH
            .iter()
            .position(|g| *g == f)
            .unwrap_or(0) as i64;
        let code = self.b.ins().iconst(types::I32, code);
        let zero = self.zero(s);
        let a = args.first().copied().unwrap_or(zero);
        let b = args.get(1).copied().unwrap_or(zero);
        let c = args.get(2).copied().unwrap_or(zero);
        let helper = if s == Scalar::Float {
            self.entry.helpers.math_f32
        } else {
            self.entry.helpers.math_f64
        };
        let call = self.b.ins().call(helper, &[code, a, b, c]);
        Ok(self.b.inst_results(call)[0])
    }

    /// `array_view<T, N> v(extent, c_array)` in a kernel: a dense view of
    /// the array's memory (see the `NewView` arm of the intrinsics).
    fn view_over_c_array(&mut self, extent: &Expr, source: &Expr) -> R<V> {
        let Type::CArray(elem, len) = &source.ty else {
            return decline(Decline::LibraryOperation("NewView".into()));
        };
        if self.has_tags(elem) {
            return decline(Decline::UnionTags);
        }
        if matches!(**elem, Type::CArray(..)) {
            return decline(Decline::LibraryOperation("NewView".into()));
        }
        let Some((elem_size, _)) = size_align(&self.prog.structs, elem) else {
            return decline(Decline::LibraryOperation("NewView".into()));
        };
        let ext = self.shape(extent)?;
        let place = self.with_access(Access::ReadWrite, |lw| lw.place(source))?;
        let Place::Mem(base, _) = place else {
            return decline(Decline::LibraryOperation("NewView".into()));
        };
        // Each component positive, and their product (which only grows,
        // each factor at least one and the running product at most the
        // array's length, so it cannot overflow 64 bits) within the array.
        let wide: Vec<Value> = ext
            .iter()
            .map(|&c| self.b.ins().sextend(types::I64, c))
            .collect();
        let mut count = self.b.ins().iconst(types::I64, 1);
        for &c in &wide {
            let positive = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, c, 0);
            self.guard(positive);
            count = self.b.ins().imul(count, c);
            let fits =
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, count, i64::from(*len));
            self.guard(fits);
        }
        // Row-major strides: the last dimension contiguous.
        let mut strides = vec![self.b.ins().iconst(types::I64, 1); wide.len()];
        for d in (0..wide.len().saturating_sub(1)).rev() {
            strides[d] = self.b.ins().imul(strides[d + 1], wide[d + 1]);
        }
        Ok(V::View(ViewV {
            base,
            offset: self.b.ins().iconst(types::I64, 0),
            ext: wide,
            strides,
            elem: (**elem).clone(),
            elem_size,
        }))
    }

    /// The address of a view element, bounds-checked.
    pub(super) fn view_element(&mut self, args: &[Expr]) -> R<(Value, Type)> {
        let own = self.own_element(&args[0], &args[1]);
        let own_components = self.own_components(&args[0], &args[1]);
        let prechecked = self.prechecked(&args[0], &args[1]);
        let view = self.view(&args[0])?;
        let idx = self.shape(&args[1])?;
        if idx.len() != view.ext.len() {
            return decline(Decline::IndexAnotherRank);
        }
        // A covering view's last dimension is contiguous (checked at each
        // launch): its stride is one.
        let unit_last = self.covering_capture(&args[0]);
        let mut at = view.offset;
        for (d, &component) in idx.iter().enumerate() {
            // The work-item's own coordinate is within the extent, so not
            // negative: zero-extended, which is free (see `widen_from`).
            // A component checked at the region's entry is in the extent
            // too (see `precheck`).
            let own_d = own
                || own_components.get(d).copied().unwrap_or(false)
                || prechecked.get(d).copied().unwrap_or(false);
            let i = if own_d {
                self.b.ins().uextend(types::I64, component)
            } else {
                self.b.ins().sextend(types::I64, component)
            };
            if !own_d {
                let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, view.ext[d]);
                self.guard(ok);
            }
            let step = if unit_last && d + 1 == idx.len() {
                i
            } else {
                self.b.ins().imul(i, view.strides[d])
            };
            at = self.b.ins().iadd(at, step);
        }
        let bytes = self.b.ins().imul_imm_s(at, i64::from(view.elem_size));
        let addr = self.b.ins().iadd(view.base, bytes);
        self.note_element_tags_after(addr, &view.elem);
        Ok((addr, view.elem))
    }

    /// Whether `view` is a capture the code assumes covers the launch's
    /// extent with a contiguous last dimension (`KernelLayout::covering`,
    /// checked at each launch).
    pub(super) fn covering_capture(&self, view: &Expr) -> bool {
        let ExprKind::Capture(slot) = view.kind else {
            return false;
        };
        self.layout
            .covering
            .get(slot as usize)
            .copied()
            .unwrap_or(false)
    }

    /// By component of `index` (a list of components, `v(i, j)`), whether
    /// it lies in `view`'s extent for certain: the view covers the launch
    /// (see [`Self::covering_capture`]) and the component is the
    /// work-item's global coordinate in the same dimension, which lies
    /// below the launch's extent there. Empty when nothing is known.
    pub(super) fn own_components(&self, view: &Expr, index: &Expr) -> Vec<bool> {
        if self.scope().id != 0 || !self.covering_capture(view) {
            return Vec::new();
        }
        let ExprKind::Intrinsic {
            op: Intrinsic::MakeShape,
            args: components,
        } = &index.kind
        else {
            return Vec::new();
        };
        components
            .iter()
            .enumerate()
            .map(|(d, c)| self.facts.global_coordinate(c) == Some(d))
            .collect()
    }

    /// Whether element `index` of `view` lies in the view for certain: the
    /// view is a capture the code assumes covers the launch's extent with
    /// a contiguous last dimension (`KernelLayout::covering`, checked at
    /// each launch), and the index is the work-item's own coordinates (the
    /// tiled index's global one, or the kernel's `index<N>` parameter when
    /// the kernel never writes it), which lie below that extent.
    pub(super) fn own_element(&self, view: &Expr, index: &Expr) -> bool {
        if !self.covering_capture(view) {
            return false;
        }
        let tiled = |e: &Expr| {
            matches!(&e.kind, ExprKind::Local(l)
                if matches!(self.scope().slots.get(l), Some(Slot::Tiled)))
        };
        match &index.kind {
            ExprKind::Local(l) => {
                (self.scope().id == 0 && self.facts.is_index_param(*l)) || tiled(index)
            }
            ExprKind::Convert(inner) => matches!(index.ty, Type::Index(_)) && tiled(inner),
            ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(TiledIndexPart::Global),
                args,
            } => args.first().is_some_and(tiled),
            _ => false,
        }
    }

    /// The address of a vector element, bounds-checked (an `unsigned long`
    /// index past `i64::MAX` is out of bounds too).
    pub(super) fn vector_element(&mut self, args: &[Expr]) -> R<(Value, Type)> {
        let v = self.view(&args[0])?;
        let is = self.scalar_ty(&args[1].ty)?;
        let i = self.scalar(&args[1])?;
        let i = self.widen(i, is);
        let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, v.ext[0]);
        self.guard(ok);
        let bytes = self.b.ins().imul_imm_s(i, i64::from(v.elem_size));
        Ok((self.b.ins().iadd(v.base, bytes), v.elem))
    }

    pub(super) fn intrinsic(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> R<V> {
        match op {
            Intrinsic::ViewElement => {
                let (at, elem) = self.view_element(args)?;
                self.read(&Place::Mem(at, elem))
            }
            Intrinsic::Math(f) => {
                let s = self.scalar_ty(&e.ty)?;
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.scalar(a)?);
                }
                if !s.is_floating() {
                    return self.int_math(*f, s, &xs).map(V::S);
                }
                match (f, xs.as_slice()) {
                    (MathFn::Sqrt, [a]) => Ok(V::S(self.b.ins().sqrt(*a))),
                    (MathFn::Fabs, [a]) => Ok(V::S(self.b.ins().fabs(*a))),
                    (MathFn::Floor, [a]) => Ok(V::S(self.b.ins().floor(*a))),
                    (MathFn::Ceil, [a]) => Ok(V::S(self.b.ins().ceil(*a))),
                    (MathFn::Trunc, [a]) => Ok(V::S(self.b.ins().trunc(*a))),
                    _ => self.math(*f, s, &xs).map(V::S),
                }
            }
            Intrinsic::MakeShape
            | Intrinsic::ShapeComponent
            | Intrinsic::ShapeArith(_)
            | Intrinsic::ExtentSize
            | Intrinsic::ExtentContains
            | Intrinsic::TiledIndexPart(_) => self.shape_intrinsic(op, args, e),
            Intrinsic::Tile => self.expr(&args[0]),
            Intrinsic::ViewExtent
            | Intrinsic::ViewProject
            | Intrinsic::ViewSection
            | Intrinsic::ViewAs => self.view_intrinsic(op, args),
            Intrinsic::ReinterpretAs => self.reinterpret_view(args, &e.ty),
            Intrinsic::MemoryFence(_) => Ok(V::Unit),
            Intrinsic::VectorElement => {
                let (at, elem) = self.vector_element(args)?;
                self.read(&Place::Mem(at, elem))
            }
            Intrinsic::VectorSize => {
                let v = self.view(&args[0])?;
                let s = self.scalar_ty(&e.ty)?;
                Ok(V::S(match s {
                    Scalar::Long | Scalar::ULong => v.ext[0],
                    other => self.b.ins().ireduce(clif_type(other), v.ext[0]),
                }))
            }
            Intrinsic::Atomic(a) => self.atomic(*a, args),
            // A view made from an array or view (a conversion, a copy): as
            // the interpreter makes it, the source's window itself, once
            // the extent given is checked to be positive.
            Intrinsic::NewView
                if args.len() == 2
                    && matches!(args[1].ty, Type::Array(..) | Type::ArrayView { .. }) =>
            {
                let ext = self.shape(&args[0])?;
                for c in ext {
                    let ok = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, c, 0);
                    self.guard(ok);
                }
                Ok(V::View(self.view(&args[1])?))
            }
            // A view a kernel makes over one of its C arrays (private, a
            // `tile_static` one, a member of a local object): the array's
            // memory, row-major, once the extent given is checked to be
            // positive and to hold no more elements than the array. A
            // failed check leaves the launch to the interpreter, which
            // reports it.
            Intrinsic::NewView
                if self.host.is_none()
                    && args.len() == 2
                    && matches!(args[1].ty, Type::CArray(..)) =>
            {
                self.view_over_c_array(&args[0], &args[1])
            }
            // `std::swap` of two scalars, or of two objects of a plain type
            // in memory (iterators' elements, say).
            Intrinsic::Swap if args.len() == 2 && args[0].ty == args[1].ty => {
                let a = self.with_access(Access::ReadWrite, |lw| lw.place(&args[0]))?;
                let b = self.with_access(Access::ReadWrite, |lw| lw.place(&args[1]))?;
                if args[0].ty.scalar().is_some() {
                    let x = self.read(&a)?;
                    let y = self.read(&b)?;
                    self.write(&a, &y, &args[0].ty)?;
                    self.write(&b, &x, &args[1].ty)?;
                    return Ok(V::Unit);
                }
                let (Place::Mem(x, _), Place::Mem(y, _)) = (&a, &b) else {
                    return decline(Decline::LibraryOperation("Swap".into()));
                };
                if self.has_tags(&args[0].ty) {
                    return decline(Decline::UnionTags);
                }
                let Some((size, _)) = size_align(&self.prog.structs, &args[0].ty) else {
                    return decline(Decline::LibraryOperation("Swap".into()));
                };
                self.swap_bytes(*x, *y, size);
                Ok(V::Unit)
            }
            // `<random>`: an engine's number, a distribution's draw.
            Intrinsic::RandomNext(engine) if self.host.is_some() => {
                self.random(*engine, None, args, &e.ty)
            }
            Intrinsic::RandomDraw(dist, engine) if self.host.is_some() => {
                self.random(*engine, Some(*dist), args, &e.ty)
            }
            // `v.push_back(x);` on a vector from outside a host statement.
            Intrinsic::VectorPush if self.host.is_some() => self.push_element(args),
            // `rand()`: the next number of the run's copy of C's state.
            Intrinsic::Rand if self.host.is_some() && args.is_empty() => {
                let Some(rand) = self.entry.helpers.rand else {
                    return decline(Decline::LibraryOperation(format!("{op:?}")));
                };
                let call = self.b.ins().call(rand, &[self.entry.env]);
                let n = self.b.inst_results(call)[0];
                let ok = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, n, 0);
                self.guard(ok);
                Ok(V::S(n))
            }
            Intrinsic::Print if self.host.is_some() && self.entry.helpers.print.is_some() => {
                self.print(e)
            }
            Intrinsic::Printf(_) if self.host.is_some() && self.entry.helpers.printf.is_some() => {
                self.printf(e)
            }
            _ => decline(Decline::LibraryOperation(format!("{op:?}"))),
        }
    }

    /// `std::cout << a << b ...` in a host statement: each value in turn
    /// through the printing helpers, into the run's text (see
    /// `exec::print_scalar`). A helper that says stop (the text grew too
    /// long) stops the run, and the interpreter runs it again.
    fn print(&mut self, e: &Expr) -> R<V> {
        let (Some(values), Some((scalar_fn, item_fn))) = (
            crate::plan::host::printed_values(e),
            self.entry.helpers.print,
        ) else {
            return decline(Decline::LibraryOperation("Print".into()));
        };
        for v in values {
            if let Some(text) = crate::plan::host::literal_text(v) {
                let k = self
                    .print_item_number(tessera_runtime::launch::PrintItem::Bytes(text.clone()))?;
                let k = self.b.ins().iconst(types::I32, k as i64);
                let zero = self.b.ins().iconst(types::I32, 0);
                let call = self.b.ins().call(item_fn, &[self.entry.env, k, zero]);
                self.print_status(call);
                continue;
            }
            if let Some((cond, yes, no)) = crate::plan::host::literal_choice(v) {
                let c = self.scalar(cond)?;
                let yes =
                    self.print_item_number(tessera_runtime::launch::PrintItem::Bytes(yes.clone()))?;
                let no =
                    self.print_item_number(tessera_runtime::launch::PrintItem::Bytes(no.clone()))?;
                let yes = self.b.ins().iconst(types::I32, yes as i64);
                let no = self.b.ins().iconst(types::I32, no as i64);
                let k = self.b.ins().select(c, yes, no);
                let zero = self.b.ins().iconst(types::I32, 0);
                let call = self.b.ins().call(item_fn, &[self.entry.env, k, zero]);
                self.print_status(call);
                continue;
            }
            let item = match (&v.kind, &v.ty) {
                (ExprKind::Const(Const::Int(c)), Type::Scalar(Scalar::Char | Scalar::UChar)) => {
                    Some((
                        tessera_runtime::launch::PrintItem::Bytes(vec![*c as u8]),
                        None,
                    ))
                }
                (
                    ExprKind::Intrinsic {
                        op: Intrinsic::Manipulator(m),
                        args,
                    },
                    _,
                ) => Some((tessera_runtime::launch::PrintItem::Manip(*m), args.first())),
                _ => None,
            };
            let call = match item {
                Some((item, arg)) => {
                    let arg = match arg {
                        Some(a) => {
                            let s = self.scalar_ty(&a.ty)?;
                            let x = self.scalar(a)?;
                            self.convert(x, s, Scalar::Int)?
                        }
                        None => self.b.ins().iconst(types::I32, 0),
                    };
                    let k = self.print_item_number(item)?;
                    let k = self.b.ins().iconst(types::I32, k as i64);
                    self.b.ins().call(item_fn, &[self.entry.env, k, arg])
                }
                None => {
                    let s = self.scalar_ty(&v.ty)?;
                    let Some(code) = crate::exec::PRINTED_SCALARS.iter().position(|x| *x == s)
                    else {
                        return decline(Decline::LibraryOperation("Print".into()));
                    };
                    let x = self.scalar(v)?;
                    let bits = self.scalar_as_word(x, s);
                    let code = self.b.ins().iconst(types::I32, code as i64);
                    self.b.ins().call(scalar_fn, &[self.entry.env, code, bits])
                }
            };
            self.print_status(call);
        }
        Ok(V::Unit)
    }

    /// `printf(format, values...)` in a host statement: the values as
    /// words in a stack slot, formatted by the `printf` helper into the
    /// run's text (see `exec::print_printf`); its value is the bytes
    /// written. A helper that says stop stops the run.
    fn printf(&mut self, e: &Expr) -> R<V> {
        let (Some((format, values)), Some(helper)) = (
            crate::plan::host::printf_values(e),
            self.entry.helpers.printf,
        ) else {
            return decline(Decline::LibraryOperation("Printf".into()));
        };
        let mut words = Vec::with_capacity(values.len());
        let mut doubles = Vec::with_capacity(values.len());
        for v in values {
            let s = self.scalar_ty(&v.ty)?;
            let x = self.scalar(v)?;
            words.push(self.scalar_as_word(x, s));
            doubles.push(s == Scalar::Double);
        }
        let slot = self.stack_slot(8 * (words.len().max(1) as u32), 8)?;
        for (k, w) in words.iter().enumerate() {
            self.b
                .ins()
                .stack_store(types::I64, *w, slot, (8 * k) as i32);
        }
        let addr = self.b.ins().stack_addr(types::I64, slot, 0);
        let item = self.print_item_number(tessera_runtime::launch::PrintItem::Printf {
            format: format.clone(),
            doubles,
        })?;
        let item = self.b.ins().iconst(types::I32, item as i64);
        let count = self.b.ins().iconst(types::I32, words.len() as i64);
        let call = self
            .b
            .ins()
            .call(helper, &[self.entry.env, item, addr, count]);
        let written = self.b.inst_results(call)[0];
        let stop = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, written, 0);
        let go = self.b.create_block();
        let stopped = self.entry.stopped;
        self.b.ins().brif(stop, stopped, &[], go, &[]);
        self.b.switch_to_block(go);
        Ok(V::S(written))
    }

    /// The number of a host statement's print item, added if new.
    fn print_item_number(&mut self, item: tessera_runtime::launch::PrintItem) -> R<usize> {
        let Some(host) = self.host.as_mut() else {
            return decline(Decline::LibraryOperation("Print".into()));
        };
        Ok(match host.print_items.iter().position(|i| *i == item) {
            Some(k) => k,
            None => {
                host.print_items.push(item);
                host.print_items.len() - 1
            }
        })
    }

    /// After a printing helper's `call`: stops the run when it says so.
    fn print_status(&mut self, call: cranelift_codegen::ir::Inst) {
        let status = self.b.inst_results(call)[0];
        let go = self.b.create_block();
        let stopped = self.entry.stopped;
        self.b.ins().brif(status, stopped, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    /// Operations on indices, extents and the tiled index.
    fn shape_intrinsic(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> R<V> {
        match op {
            Intrinsic::MakeShape => {
                let mut cs = Vec::with_capacity(args.len());
                for a in args {
                    let s = self.scalar_ty(&a.ty)?;
                    let x = self.scalar(a)?;
                    cs.push(self.convert(x, s, Scalar::Int)?);
                }
                Ok(V::Shape(cs))
            }
            Intrinsic::ShapeComponent => {
                let cs = self.shape(&args[0])?;
                match const_int(&args[1]) {
                    Some(k) if k >= 0 && (k as usize) < cs.len() => Ok(V::S(cs[k as usize])),
                    Some(_) => {
                        let fail = self.entry.fail;
                        self.b.ins().jump(fail, &[]);
                        self.dead_block();
                        Ok(V::S(self.b.ins().iconst(types::I32, 0)))
                    }
                    None => {
                        let is = self.scalar_ty(&args[1].ty)?;
                        let k = self.scalar(&args[1])?;
                        let k = self.widen(k, is);
                        self.check_below(k, cs.len() as i64);
                        let mut r = cs[0];
                        for (j, c) in cs.iter().enumerate().skip(1) {
                            let hit = self.b.ins().icmp_imm_s(IntCC::Equal, k, j as i64);
                            r = self.b.ins().select(hit, *c, r);
                        }
                        Ok(V::S(r))
                    }
                }
            }
            Intrinsic::ShapeArith(op) => {
                let a = self.shape(&args[0])?;
                let b = match self.expr(&args[1])? {
                    V::Shape(b) => b,
                    V::Tiled => self.global_index(),
                    V::S(x) => {
                        let s = self.scalar_ty(&args[1].ty)?;
                        let x = self.convert(x, s, Scalar::Int)?;
                        vec![x; a.len()]
                    }
                    _ => return decline(Decline::IndexArithmeticOperand),
                };
                if matches!(op, BinOp::Eq | BinOp::Ne) {
                    let mut all = self.b.ins().iconst(types::I8, 1);
                    for (x, y) in a.iter().zip(&b) {
                        let eq = self.b.ins().icmp(IntCC::Equal, *x, *y);
                        all = self.b.ins().band(all, eq);
                    }
                    if *op == BinOp::Ne {
                        all = self.b.ins().bxor_imm_s(all, 1);
                    }
                    return Ok(V::S(all));
                }
                let mut out = Vec::with_capacity(a.len());
                for (x, y) in a.iter().zip(&b) {
                    out.push(self.binary(*op, Scalar::Int, *x, *y, Scalar::Int)?);
                }
                Ok(V::Shape(out))
            }
            Intrinsic::ExtentSize => {
                let cs = self.shape(&args[0])?;
                let s = self.scalar_ty(&e.ty)?;
                let mut n = self.b.ins().iconst(types::I64, 1);
                for c in cs {
                    let w = self.b.ins().sextend(types::I64, c);
                    n = self.b.ins().imul(n, w);
                }
                Ok(V::S(match s {
                    Scalar::Long | Scalar::ULong => n,
                    other => self.b.ins().ireduce(clif_type(other), n),
                }))
            }
            Intrinsic::ExtentContains => {
                let ext = self.shape(&args[0])?;
                let idx = self.shape(&args[1])?;
                let mut all = self.b.ins().iconst(types::I8, 1);
                for (d, i) in ext.iter().zip(&idx) {
                    let nonneg = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, *i, 0);
                    let below = self.b.ins().icmp(IntCC::SignedLessThan, *i, *d);
                    all = self.b.ins().band(all, nonneg);
                    all = self.b.ins().band(all, below);
                }
                Ok(V::S(all))
            }
            Intrinsic::TiledIndexPart(part) => {
                let Some(shape) = self.layout.tile else {
                    return decline(Decline::TiledIndexOutsideTiledKernel);
                };
                if !matches!(self.expr(&args[0])?, V::Tiled) {
                    return decline(Decline::TiledIndexNotKernels);
                }
                let dims: Vec<i64> = shape.dims().iter().map(|&d| i64::from(d)).collect();
                Ok(match part {
                    TiledIndexPart::Global => V::Shape(self.global_index()),
                    TiledIndexPart::Local => V::Shape(
                        self.wi
                            .item_coords
                            .clone()
                            .iter()
                            .map(|v| self.b.use_var(*v))
                            .collect(),
                    ),
                    TiledIndexPart::Tile => V::Shape(self.wi.tile_coords.clone()),
                    TiledIndexPart::TileOrigin => V::Shape(
                        self.wi
                            .tile_coords
                            .clone()
                            .iter()
                            .zip(&dims)
                            .map(|(t, d)| self.b.ins().imul_imm_s(*t, *d))
                            .collect(),
                    ),
                    TiledIndexPart::TileExtent => V::Shape(
                        dims.iter()
                            .map(|d| self.b.ins().iconst(types::I32, *d))
                            .collect(),
                    ),
                    TiledIndexPart::Barrier => V::Unit,
                })
            }
            _ => decline(Decline::LibraryOperation(format!("{op:?}"))),
        }
    }

    /// A view's extent, projection and section.
    fn view_intrinsic(&mut self, op: &Intrinsic, args: &[Expr]) -> R<V> {
        match op {
            Intrinsic::ViewExtent => {
                let v = self.view(&args[0])?;
                Ok(V::Shape(
                    v.ext
                        .iter()
                        .map(|x| self.b.ins().ireduce(types::I32, *x))
                        .collect(),
                ))
            }
            Intrinsic::ViewProject => {
                let v = self.view(&args[0])?;
                if v.ext.len() < 2 {
                    return decline(Decline::ProjectionOfRank1View);
                }
                let is = self.scalar_ty(&args[1].ty)?;
                let i = self.scalar(&args[1])?;
                let i = self.widen(i, is);
                let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, v.ext[0]);
                self.guard(ok);
                let step = self.b.ins().imul(i, v.strides[0]);
                let offset = self.b.ins().iadd(v.offset, step);
                Ok(V::View(ViewV {
                    base: v.base,
                    offset,
                    ext: v.ext[1..].to_vec(),
                    strides: v.strides[1..].to_vec(),
                    elem: v.elem,
                    elem_size: v.elem_size,
                }))
            }
            Intrinsic::ViewSection => {
                let v = self.view(&args[0])?;
                let origin = self.shape(&args[1])?;
                // Without an extent: the rest of the view from the origin
                // (32-bit, as the interpreter computes it; checked below).
                let ext = match args.get(2) {
                    Some(e) => self.shape(e)?,
                    None => {
                        if origin.len() != v.ext.len() {
                            return decline(Decline::SectionAnotherRank);
                        }
                        let mut rest = Vec::with_capacity(origin.len());
                        for (d, &o) in origin.iter().enumerate() {
                            let full = self.b.ins().ireduce(types::I32, v.ext[d]);
                            rest.push(self.b.ins().isub(full, o));
                        }
                        rest
                    }
                };
                if origin.len() != v.ext.len() || ext.len() != v.ext.len() {
                    return decline(Decline::SectionAnotherRank);
                }
                // Inside the view: 0 <= origin, 0 < extent, origin + extent <=
                // the view's extent, in every dimension (64-bit, no overflow).
                let mut offset = v.offset;
                let mut new_ext = Vec::with_capacity(ext.len());
                for d in 0..ext.len() {
                    let o = self.b.ins().sextend(types::I64, origin[d]);
                    let n = self.b.ins().sextend(types::I64, ext[d]);
                    let o_ok = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, o, 0);
                    let n_ok = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, 0);
                    let end = self.b.ins().iadd(o, n);
                    let end_ok = self
                        .b
                        .ins()
                        .icmp(IntCC::SignedLessThanOrEqual, end, v.ext[d]);
                    let ok = self.b.ins().band(o_ok, n_ok);
                    let ok = self.b.ins().band(ok, end_ok);
                    self.guard(ok);
                    let step = self.b.ins().imul(o, v.strides[d]);
                    offset = self.b.ins().iadd(offset, step);
                    new_ext.push(n);
                }
                Ok(V::View(ViewV {
                    base: v.base,
                    offset,
                    ext: new_ext,
                    strides: v.strides.clone(),
                    elem: v.elem,
                    elem_size: v.elem_size,
                }))
            }
            Intrinsic::ViewAs => {
                let v = self.view(&args[0])?;
                let ext = self.shape(&args[1])?;
                let Some(&unit) = v.strides.last() else {
                    return decline(Decline::SectionAnotherRank);
                };
                // Every extent positive and the product (64-bit; each
                // factor is below 2^31, so checking after each step keeps
                // it from overflowing) at most the view's size.
                let mut have = self.b.ins().iconst(types::I64, 1);
                for &d in &v.ext {
                    have = self.b.ins().imul(have, d);
                }
                let mut n = self.b.ins().iconst(types::I64, 1);
                let mut wide = Vec::with_capacity(ext.len());
                for &d in &ext {
                    let d = self.b.ins().sextend(types::I64, d);
                    let pos = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, d, 0);
                    self.guard(pos);
                    n = self.b.ins().imul(n, d);
                    let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, n, have);
                    self.guard(fits);
                    wide.push(d);
                }
                let mut strides = vec![unit; wide.len()];
                for d in (0..wide.len().saturating_sub(1)).rev() {
                    strides[d] = self.b.ins().imul(strides[d + 1], wide[d + 1]);
                }
                Ok(V::View(ViewV {
                    base: v.base,
                    offset: v.offset,
                    ext: wide,
                    strides,
                    elem: v.elem,
                    elem_size: v.elem_size,
                }))
            }
            _ => decline(Decline::LibraryOperation(format!("{op:?}"))),
        }
    }

    /// `a.reinterpret_as<U>()`: the same bytes of the same buffer as a
    /// rank-1 view of `U`s. Buffers hold the C++ layout, so this is the
    /// interpreter's reading exactly when every byte belongs to a scalar
    /// and none is a `bool` (the interpreter refuses padding and checks
    /// `bool` bytes): other types are declined. A view that is not one run
    /// of elements, whose bytes do not end on a whole `U`, or whose first
    /// byte would put a scalar of `U` of up to 4 bytes off its alignment,
    /// fails, and the interpreter runs the launch (and reports or throws).
    fn reinterpret_view(&mut self, args: &[Expr], ty: &Type) -> R<V> {
        let Type::ArrayView { elem: to, .. } = ty else {
            return decline(Decline::LibraryOperation("ReinterpretAs".into()));
        };
        let v = self.view(&args[0])?;
        let structs = &self.prog.structs;
        // The size of a type every byte of which a scalar holds, and
        // whether one of them is a `bool`.
        let plain = |t: &Type| {
            let (Some((size, _)), Some(leaves)) = (
                size_align(structs, t),
                tessera_ir::layout::scalar_leaves(structs, t),
            ) else {
                return None;
            };
            let bytes: u64 = leaves.iter().map(|l| u64::from(l.scalar.size())).sum();
            let ok = size > 0 && bytes == u64::from(size);
            ok.then_some((size, leaves.iter().any(|l| l.scalar == Scalar::Bool)))
        };
        // The memory holds no `bool` (a write of `U` could leave one that
        // is neither 0 nor 1, which the interpreter refuses); `U` may:
        // from here on every `bool` read from memory checks its byte, as
        // the interpreter checks a `bool` read through the pun (elsewhere
        // a `bool`'s byte is 0 or 1, and the check never fails).
        let (Some((t_size, false)), Some((u_size, u_bools))) = (plain(&v.elem), plain(to)) else {
            return decline(Decline::LibraryOperation(
                "ReinterpretAs of a type with padding or of memory holding a bool".into(),
            ));
        };
        if u_bools {
            self.check_bools = true;
        }
        // One run of elements: row-major strides, the last one 1.
        let rank = v.ext.len();
        let mut want = self.b.ins().iconst(types::I64, 1);
        let mut n = self.b.ins().iconst(types::I64, 1);
        for d in (0..rank).rev() {
            let ok = self.b.ins().icmp(IntCC::Equal, v.strides[d], want);
            self.guard(ok);
            want = self.b.ins().imul(want, v.ext[d]);
            n = self.b.ins().imul(n, v.ext[d]);
        }
        let tsz = self.b.ins().iconst(types::I64, i64::from(t_size));
        let usz = self.b.ins().iconst(types::I64, i64::from(u_size));
        let first = self.b.ins().imul(v.offset, tsz);
        let bytes = self.b.ins().imul(n, tsz);
        // The first byte may fall between whole `U`s (the view then starts
        // `first % U` bytes past its base) when it keeps the scalars of up
        // to 4 bytes on their natural alignment, as compiled atomics need.
        let u_align = size_align(structs, to).map_or(1, |(_, a)| a).clamp(1, 4);
        let at = self.b.ins().iadd(v.base, first);
        let misaligned = self.b.ins().band_imm_u(at, i64::from(u_align - 1));
        // Amp code keeps the whole `U`s there are; host code (amp.h's
        // check) throws for a rest, which the interpreter does.
        let rem = if self.host.is_some() {
            let bytes_rem = self.b.ins().urem(bytes, usz);
            self.b.ins().bor(misaligned, bytes_rem)
        } else {
            misaligned
        };
        let whole = self.b.ins().icmp_imm_u(IntCC::Equal, rem, 0);
        self.guard(whole);
        let skew = self.b.ins().urem(first, usz);
        let base = self.b.ins().iadd(v.base, skew);
        let offset = self.b.ins().udiv(first, usz);
        let count = self.b.ins().udiv(bytes, usz);
        let one = self.b.ins().iconst(types::I64, 1);
        Ok(V::View(ViewV {
            base,
            offset,
            ext: vec![count],
            strides: vec![one],
            elem: (**to).clone(),
            elem_size: u_size,
        }))
    }

    pub(super) fn int_math(&mut self, f: MathFn, s: Scalar, xs: &[Value]) -> R<Value> {
        let signed = !s.is_unsigned();
        match (f, xs) {
            (MathFn::Abs, [a]) => {
                if !signed {
                    return Ok(*a);
                }
                let zero = self.zero(s);
                let neg = self.binary(BinOp::Sub, s, zero, *a, s)?;
                let is_neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, *a, 0);
                Ok(self.b.ins().select(is_neg, neg, *a))
            }
            (MathFn::Min, [a, b]) => Ok(if signed {
                self.b.ins().smin(*a, *b)
            } else {
                self.b.ins().umin(*a, *b)
            }),
            (MathFn::Max, [a, b]) => Ok(if signed {
                self.b.ins().smax(*a, *b)
            } else {
                self.b.ins().umax(*a, *b)
            }),
            _ => decline(Decline::IntegerMathFunction),
        }
    }

    pub(super) fn atomic(&mut self, op: AtomicOp, args: &[Expr]) -> R<V> {
        let s = self.scalar_ty(&args[0].ty)?;
        let p = self.place(&args[0])?;
        let Place::Mem(addr, _) = p else {
            return decline(Decline::AtomicOnVariable);
        };
        let t = clif_type(s);
        if op == AtomicOp::CompareExchange {
            let ep = self.place(&args[1])?;
            let V::S(expected) = self.read(&ep)? else {
                return decline(Decline::AtomicKind);
            };
            let desired = self.scalar(&args[2])?;
            let old = self.b.ins().atomic_cas(flags(), addr, expected, desired);
            let ok = self.b.ins().icmp(IntCC::Equal, old, expected);
            let write = self.b.create_block();
            let done = self.b.create_block();
            self.b.ins().brif(ok, done, &[], write, &[]);
            self.b.switch_to_block(write);
            self.write(&ep, &V::S(old), &args[1].ty)?;
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
            return Ok(V::S(ok));
        }
        let operand = match args.get(1) {
            Some(a) => self.scalar(a)?,
            None => self.b.ins().iconst(t, 1),
        };
        let signed = !s.is_unsigned();
        let rmw = match op {
            AtomicOp::Add | AtomicOp::Inc => AtomicRmwOp::Add,
            AtomicOp::Sub | AtomicOp::Dec => AtomicRmwOp::Sub,
            AtomicOp::And => AtomicRmwOp::And,
            AtomicOp::Or => AtomicRmwOp::Or,
            AtomicOp::Xor => AtomicRmwOp::Xor,
            AtomicOp::Max if signed => AtomicRmwOp::Smax,
            AtomicOp::Max => AtomicRmwOp::Umax,
            AtomicOp::Min if signed => AtomicRmwOp::Smin,
            AtomicOp::Min => AtomicRmwOp::Umin,
            AtomicOp::Exchange | AtomicOp::CompareExchange => AtomicRmwOp::Xchg,
        };
        Ok(V::S(self.b.ins().atomic_rmw(
            t,
            flags(),
            rmw,
            addr,
            operand,
        )))
    }
}
