//! The library: `concurrency` shapes, arrays and views, `std::vector`,
//! `std::cout`, math and atomics.

use crate::arith;
use crate::expr::scalar;
use crate::machine::{Machine, POLL_CHUNK, Res, Stop};
use crate::value::{
    Growth, Lost, Move, Place, Root, Storage, StorageKind, Value, View, ViewData, get_path,
};
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{
    AtomicOp, Container, Expr, Intrinsic, LookupOp, Manipulator, MathFn, OutStream, Scalar,
    TiledIndexPart, Type,
};
use tessera_runtime::format::ScalarValue;
use tessera_runtime::format::StreamFormat;

/// `(1, 2, 3)`
pub(crate) fn tuple(values: &[i64]) -> String {
    let parts: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("({})", parts.join(","))
}

/// The element type of an array, view or vector type.
fn elem_type(ty: &Type) -> Type {
    match ty {
        Type::Array(e, _)
        | Type::ArrayView { elem: e, .. }
        | Type::Vector(e)
        | Type::Container(_, e)
        | Type::CArray(e, _) => (**e).clone(),
        _ => Type::INT,
    }
}

/// Where `v` goes in the elements of a container of `kind` (in iteration
/// order), or `None` when a set already holds it. A set keeps ascending
/// order by `<` and a multiset puts a value after those equal to it, as
/// libstdc++'s tree does; the unordered containers are never iterated
/// (the checker refuses it), so only their size matters: a value goes last,
/// once for an `unordered_set`.
fn container_slot(data: &[Value], v: &Value, elem: Scalar, kind: Container) -> Option<usize> {
    match kind {
        Container::Set => {
            let at = data.partition_point(|x| less(x, v, elem));
            let present = data.get(at).is_some_and(|x| !less(v, x, elem));
            (!present).then_some(at)
        }
        Container::MultiSet => Some(data.partition_point(|x| !less(v, x, elem))),
        Container::UnorderedSet => {
            let present = data.iter().any(|x| equal(x, v, elem));
            (!present).then_some(data.len())
        }
        Container::UnorderedMultiSet | Container::Deque | Container::List => Some(data.len()),
    }
}

/// `a < b` for two values of the scalar type `s`, as C++ compares them.
fn less(a: &Value, b: &Value, s: Scalar) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::Double(x), Value::Double(y)) => x < y,
        (Value::Bool(x), Value::Bool(y)) => !x & y,
        // `unsigned long` is kept as its bit pattern.
        (Value::Int(x), Value::Int(y)) if s == Scalar::ULong => (*x as u64) < (*y as u64),
        (Value::Int(x), Value::Int(y)) => x < y,
        _ => false,
    }
}

/// `a == b` for two values of the scalar type `s` (`NaN` equals nothing).
fn equal(a: &Value, b: &Value, s: Scalar) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Double(x), Value::Double(y)) => x == y,
        _ => !less(a, b, s) && !less(b, a, s),
    }
}

/// A scalar as the stream formatter takes it.
/// A scalar value as the formatter takes it (for the string streams).
pub(crate) fn scalar_of(v: &Value, s: Scalar) -> ScalarValue {
    scalar_value(v, s)
}

fn scalar_value(v: &Value, s: Scalar) -> ScalarValue {
    match s {
        Scalar::Bool => ScalarValue::Bool(v.truth()),
        // `unsigned char` prints as a character too.
        Scalar::Char | Scalar::UChar => ScalarValue::Char(v.int() as i8),
        Scalar::Short => ScalarValue::Short(v.int() as i16),
        Scalar::UShort => ScalarValue::UShort(v.int() as u16),
        Scalar::WChar => ScalarValue::WChar(v.int() as i32),
        Scalar::Int => ScalarValue::Int(v.int() as i32),
        Scalar::UInt => ScalarValue::UInt(v.int() as u32),
        Scalar::Long => ScalarValue::Long(v.int()),
        Scalar::ULong => ScalarValue::ULong(v.int() as u64),
        Scalar::Float => ScalarValue::Float(arith::as_f64(v) as f32),
        Scalar::Double => ScalarValue::Double(arith::as_f64(v)),
    }
}

impl Machine<'_> {
    /// Records that elements of `s` (held by the container and by the
    /// caller's one handle) moved; the moves kept for the places and
    /// pointers that follow them count against the memory limit.
    pub(crate) fn record_move(&mut self, s: &Rc<Storage>, mv: Move, span: Span) -> Res<()> {
        let (added, dropped) = s.record_move(mv, 1);
        self.meter.give(dropped);
        self.take_memory(added, span)
    }
}

impl Machine<'_> {
    fn view_of(&self, v: &Value, span: Span) -> Res<Rc<View>> {
        match v {
            Value::View(view) => Ok(Rc::clone(view)),
            _ => Err(self.error(codes::R0007, span, "this view has no data")),
        }
    }

    fn oob(&self, span: Span, what: String, index: &[i64], extent: &[i64]) -> Stop {
        self.error(
            codes::R0001,
            span,
            format!(
                "index {} is out of bounds for {what} of extent {}",
                tuple(index),
                tuple(extent)
            ),
        )
        .with_label(format!("index {}", tuple(index)))
        .with_note(format!(
            "each component must be at least 0 and less than the extent's: {}",
            tuple(extent)
        ))
        .into()
    }

    /// The storage a view's elements are and the length of the view's
    /// rows, when the elements can be taken a row at a time with nothing
    /// for an element's read or write to report or record: the storage
    /// is the one the view was made over (no reallocation since), holds
    /// every element the view covers, and the rows are contiguous; and
    /// `--check` is off (it records each access).
    fn storage_rows(&self, view: &View) -> Option<(Rc<Storage>, usize)> {
        if self.checker.on {
            return None;
        }
        let s = view.storage()?;
        let row = usize::try_from(*view.extent.last()?).ok()?;
        let contiguous = view.strides.last() == Some(&1) || row == 1;
        if s.reallocated_since(view.generation) || !contiguous || row == 0 {
            return None;
        }
        (view.reach()? <= s.len()).then(|| (Rc::clone(s), row))
    }

    /// The storage and row length of view `s` (see [`Self::storage_rows`])
    /// when its rows can be copied into storage `to` as bytes: both hold
    /// scalars of one type, and they are two storages.
    fn scalar_rows_into(&self, s: &View, to: &Rc<Storage>) -> Option<(Rc<Storage>, usize)> {
        let (from, row) = self.storage_rows(s)?;
        let same_type = from.scalar().is_some_and(|t| to.scalar() == Some(t));
        (same_type && !Rc::ptr_eq(&from, to)).then_some((from, row))
    }

    /// Copies the elements of view `s` over those of `d` (of the same
    /// extent) a row of bytes at a time, when both are rows of typed
    /// storages of one scalar type (see [`Self::storage_rows`]) and the
    /// storages differ; false (nothing copied) otherwise.
    fn copy_rows(&mut self, s: &View, d: &View, span: Span) -> Res<bool> {
        let Some((to, to_row)) = self.storage_rows(d) else {
            return Ok(false);
        };
        let Some((from, row)) = self.scalar_rows_into(s, &to).filter(|(_, r)| *r == to_row) else {
            return Ok(false);
        };
        let n = s.size();
        // What reading and writing every element would charge.
        self.charge(n as u64 / 16 * 2, span)?;
        for r in 0..n / row {
            // Both storages hold every element of their views: each row fits.
            to.copy_scalars_from(d.nth(r * row), &from, s.nth(r * row), row);
        }
        Ok(true)
    }

    /// Copies the elements of view `s`, in row-major order, over the
    /// first elements of storage `to` (a vector's), a row of bytes at a
    /// time, when the view's rows are those of a typed storage (see
    /// [`Self::storage_rows`]) of `to`'s scalar type, another storage,
    /// and `to` holds that many elements; false (nothing copied)
    /// otherwise.
    fn copy_rows_to_storage(&mut self, s: &View, to: &Rc<Storage>, span: Span) -> Res<bool> {
        let n = s.size();
        let Some((from, row)) = self.scalar_rows_into(s, to).filter(|_| to.len() >= n) else {
            return Ok(false);
        };
        // What reading every element would charge.
        self.charge(n as u64 / 16, span)?;
        for r in 0..n / row {
            to.copy_scalars_from(r * row, &from, s.nth(r * row), row);
        }
        Ok(true)
    }

    /// Every element of a view, in row-major order.
    pub(crate) fn view_elements(&mut self, view: &View, span: Span) -> Res<Vec<Value>> {
        let n = view.size();
        self.charge(n as u64 / 16, span)?;
        if let Some((s, row)) = self.storage_rows(view) {
            let mut out = Vec::with_capacity(n);
            for r in 0..n / row {
                let lo = view.nth(r * row);
                out.extend(s.values(lo, lo + row));
            }
            // Every element was there to read (`storage_rows`).
            if out.len() == n {
                return Ok(out);
            }
        }
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let p = view.place_at(view.nth(k));
            out.push(self.read(&p, span)?);
        }
        Ok(out)
    }

    /// An extent value checked to be positive in every dimension.
    fn checked_extent(&self, v: &Value, span: Span, what: &str) -> Res<Vec<i64>> {
        let dims = v.dims();
        if dims.iter().any(|&d| d <= 0) {
            return Err(self
                .error(
                    codes::R0007,
                    span,
                    format!(
                        "{what} needs an extent greater than 0 in every dimension, not {}",
                        tuple(&dims)
                    ),
                )
                .with_label("this extent")
                .with_exception(crate::device::runtime_exception(
                    "Invalid - values for each dimension must be > 0",
                ))
                .into());
        }
        // C++ AMP counts elements in an `unsigned int`.
        if Machine::size_of(&dims) > u64::from(u32::MAX) {
            return Err(self.amp_refusal(
                span,
                format!(
                    "{what} of extent {} has more than 4,294,967,295 elements",
                    tuple(&dims)
                ),
                "this extent",
                "C++ AMP counts an extent's elements in an `unsigned int`, and throws a `runtime_exception` here",
                "Invalid - extent size exceeds UINT_MAX",
            ));
        }
        Ok(dims)
    }

    pub(crate) fn size_of(dims: &[i64]) -> u64 {
        dims.iter().fold(1u64, |acc, &d| {
            acc.saturating_mul(u64::try_from(d).unwrap_or(0))
        })
    }

    /// Runs a library operation for its value.
    pub(crate) fn intrinsic(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        match op {
            Intrinsic::ViewElement
            | Intrinsic::VectorElement
            | Intrinsic::VectorAt
            | Intrinsic::ShapeComponent
                if e.place =>
            {
                let p = self.intrinsic_place(op, args, e)?;
                let v = self.read(&p, span)?;
                if matches!(v, Value::Uninit) {
                    return self.zero_value(&e.ty, span);
                }
                Ok(v)
            }
            Intrinsic::ShapeComponent => {
                let base = self.eval(&args[0])?;
                let i = self.eval(&args[1])?.int();
                let dims = base.dims();
                self.component(&dims, i, span)?;
                Ok(Value::Int(dims[i as usize]))
            }
            Intrinsic::ViewElement
            | Intrinsic::VectorElement
            | Intrinsic::VectorAt
            | Intrinsic::Print
            | Intrinsic::Stdout
            | Intrinsic::Stderr
            | Intrinsic::Stdin => {
                let p = self.intrinsic_place(op, args, e)?;
                self.read(&p, span)
            }
            Intrinsic::StreamAsOstream
            | Intrinsic::StreamRead
            | Intrinsic::StreamGetline
            | Intrinsic::StreamGetChar
            | Intrinsic::StreamGetlineBuf => {
                let p = self.string_stream_place(op, args, e)?;
                self.read(&p, span)
            }
            Intrinsic::StringStreamNew
            | Intrinsic::StreamText
            | Intrinsic::StreamSetText
            | Intrinsic::StreamQuery(_)
            | Intrinsic::StreamClear
            | Intrinsic::StreamFormat(_)
            | Intrinsic::StreamGet
            | Intrinsic::StreamPeek
            | Intrinsic::StreamIgnore
            | Intrinsic::Getchar
            | Intrinsic::StringToNumber { .. }
            | Intrinsic::WideStrChars
            | Intrinsic::WideStrLen
            | Intrinsic::WideStrFromPtr => self.string_stream_op(op, args, e),
            Intrinsic::Math(f) => self.math(*f, args, e),
            Intrinsic::Atomic(a) => self.atomic(*a, args, e),
            Intrinsic::MakeShape => {
                let mut dims = Vec::with_capacity(args.len());
                for a in args {
                    dims.push(self.eval(a)?.int());
                }
                Ok(Value::shape(dims))
            }
            Intrinsic::ShapeArith(op) => {
                let l = self.eval(&args[0])?;
                let r = self.eval(&args[1])?;
                self.shape_arith(*op, &l, &r, span)
            }
            Intrinsic::ExtentSize => {
                let dims = self.eval(&args[0])?.dims();
                let n = dims.iter().fold(1i128, |acc, &d| acc * i128::from(d));
                Ok(Value::Int(arith::wrap(n, scalar(&e.ty))))
            }
            Intrinsic::ExtentContains => {
                let ext = self.eval(&args[0])?.dims();
                let idx = self.eval(&args[1])?.dims();
                Ok(Value::Bool(
                    ext.iter().zip(&idx).all(|(&d, &i)| i >= 0 && i < d),
                ))
            }
            Intrinsic::Tile => self.eval(&args[0]),
            Intrinsic::TiledIndexPart(part) => self.tiled_index_part(*part, args),
            Intrinsic::NewArray => self.new_array(args, e, false),
            Intrinsic::NewArrayOfRange => self.new_array(args, e, true),
            Intrinsic::NewView => self.new_view(args, e),
            Intrinsic::ViewProject => self.view_project(args, span),
            Intrinsic::ViewExtent => {
                let v = self.eval(&args[0])?;
                let view = self.view_of(&v, span)?;
                Ok(Value::shape(view.extent.iter().copied()))
            }
            Intrinsic::ViewSection => self.view_section(args, span),
            Intrinsic::ViewAs => self.view_as(args, span),
            Intrinsic::ReinterpretAs => self.reinterpret_view(args, e),
            Intrinsic::PtrReinterpret => self.reinterpret_pointer(args, e),
            Intrinsic::Downcast { to, strip, dynamic } => {
                self.downcast(&args[0], *to, strip, *dynamic, span)
            }
            Intrinsic::ViewSynchronize | Intrinsic::ViewRefresh => {
                let v = self.eval(&args[0])?;
                if let Value::View(view) = &v
                    && let Some(s) = view.backing_storage()
                    && matches!(op, Intrinsic::ViewSynchronize)
                {
                    s.unsynced.set(None);
                }
                Ok(Value::Void)
            }
            Intrinsic::ViewDiscard => {
                let v = self.eval(&args[0])?;
                if self.checker.on
                    && let Value::View(view) = &v
                    && let Some(s) = view.storage()
                {
                    let mut marks = s.discarded.borrow_mut();
                    marks.resize(s.len(), false);
                    for k in 0..view.size() {
                        if let Some(m) = marks.get_mut(view.nth(k)) {
                            *m = true;
                        }
                    }
                }
                Ok(Value::Void)
            }
            Intrinsic::Copy => {
                self.copy(args, span)?;
                Ok(Value::Void)
            }
            Intrinsic::ArrayToVector => {
                let v = self.eval(&args[0])?;
                let view = self.view_of(&v, span)?;
                let data = self.view_elements(&view, span)?;
                let elem = elem_type(&e.ty);
                Ok(Value::Vector(self.storage_of(
                    data,
                    &elem,
                    StorageKind::Vector,
                    span,
                )?))
            }
            Intrinsic::NewVector => {
                let elem = elem_type(&e.ty);
                let n = match args.first() {
                    Some(a) => {
                        let v = self.eval(a)?;
                        arith::convert(&v, scalar(&a.ty), Scalar::ULong)
                            .map_err(|err| self.arith_error(err, Scalar::ULong, span))?
                            .int() as u64
                    }
                    None => 0,
                };
                let fill = match args.get(1) {
                    Some(a) => self.eval(a)?,
                    None => self.zero_value(&elem, span)?,
                };
                let made = self.new_storage(n, fill, &elem, StorageKind::Vector, span)?;
                if matches!(e.ty, Type::Vector(_)) {
                    made.set_capacity(n);
                }
                Ok(Value::Vector(made))
            }
            Intrinsic::NewVectorConstructed => {
                let elem = elem_type(&e.ty);
                let (Some(count), Some(build)) = (args.first(), args.get(1)) else {
                    return Ok(Value::Void);
                };
                let v = self.eval(count)?;
                let n = arith::convert(&v, scalar(&count.ty), Scalar::ULong)
                    .map_err(|err| self.arith_error(err, Scalar::ULong, span))?
                    .int() as u64;
                let made = self.constructed_storage(n, build, &elem, span)?;
                made.set_capacity(n);
                Ok(Value::Vector(made))
            }
            Intrinsic::VectorOf => {
                let mut data = Vec::with_capacity(args.len());
                for a in args {
                    data.push(self.eval(a)?);
                }
                let elem = elem_type(&e.ty);
                let n = data.len() as u64;
                let made = self.storage_of(data, &elem, StorageKind::Vector, span)?;
                if matches!(e.ty, Type::Vector(_)) {
                    made.set_capacity(n);
                }
                Ok(Value::Vector(made))
            }
            Intrinsic::VectorFromPointers => {
                let first = self.eval(&args[0])?;
                let last = self.eval(&args[1])?;
                let n = self.ptr_diff(&last, &first, span)?.int();
                if n < 0 {
                    return Err(self
                        .error(
                            codes::R0001,
                            span,
                            format!(
                                "the range of a `std::vector` ends {} elements before it starts",
                                -n
                            ),
                        )
                        .with_label("`last` is before `first`")
                        .into());
                }
                let data = self.read_pointed(&first, n, span)?;
                let elem = elem_type(&e.ty);
                Ok(Value::Vector(self.storage_of(
                    data,
                    &elem,
                    StorageKind::Vector,
                    span,
                )?))
            }
            Intrinsic::ContainerInsert(kind) => {
                let cp = self.place(&args[0])?;
                let c = self.read(&cp, span)?;
                let v = self.eval(&args[1])?;
                let v = self.copy_value(v, &args[1].ty, span)?;
                let elem = scalar(&args[1].ty);
                if let Value::Vector(s) = c {
                    if kind.is_unordered() {
                        self.charge(s.len() as u64 / 16, span)?;
                        self.take_memory(s.elem_bytes, span)?;
                        let mut buckets = s.buckets.get();
                        // Hash tables work on values: a set's storage
                        // is one of values from its first insertion on.
                        let Some(mut data) = s.values_mut() else {
                            return Ok(Value::Void);
                        };
                        let placed = crate::hashtable::insert(
                            &mut data,
                            &mut buckets,
                            v,
                            elem,
                            !kind.is_unique(),
                            |a, b| equal(a, b, elem),
                        );
                        drop(data);
                        s.buckets.set(buckets);
                        let Some(placed) = placed else {
                            self.meter.give(s.elem_bytes);
                            return Ok(Value::Void);
                        };
                        s.reshape();
                        if let Some(to) = placed.moved {
                            self.record_move(&s, Move::Permuted(to.into()), span)?;
                        }
                        self.record_move(&s, Move::Inserted(placed.at), span)?;
                        return Ok(Value::Void);
                    }
                    let at = s
                        .values_mut()
                        .and_then(|data| container_slot(&data, &v, elem, *kind));
                    if let Some(at) = at {
                        self.take_memory(s.elem_bytes, span)?;
                        s.insert(at, v);
                        s.reshape();
                        self.record_move(&s, Move::Inserted(at), span)?;
                    }
                }
                Ok(Value::Void)
            }
            Intrinsic::ContainerLookup {
                op: LookupOp::EraseAt,
                ..
            } => {
                let cp = self.place(&args[0])?;
                let c = self.read(&cp, span)?;
                let it = self.eval(&args[1])?;
                let (Value::Vector(s), Value::Ptr(p)) = (c, &it) else {
                    return Ok(it);
                };
                let class = container_name(&args[0].ty);
                let at = match &p.target {
                    crate::value::Target::Storage(t) if Rc::ptr_eq(t, &s) => {
                        usize::try_from(p.offset).ok().filter(|&k| k < s.len())
                    }
                    _ => {
                        return Err(self
                            .error(
                                codes::R0007,
                                args[1].span,
                                format!("`erase` of an iterator of another `std::{class}`"),
                            )
                            .with_label("not an iterator of this container")
                            .with_note("C++ leaves this undefined")
                            .into());
                    }
                };
                let Some(at) = at else {
                    return Err(self
                        .error(
                            codes::R0001,
                            args[1].span,
                            format!("`erase` of the end of a `std::{class}`"),
                        )
                        .with_label("`end()` designates no element")
                        .with_note("C++ leaves this undefined")
                        .into());
                };
                self.charge(s.len() as u64 / 16, span)?;
                s.remove(at, at + 1);
                s.reshape();
                self.meter.give(s.elem_bytes);
                self.record_move(&s, Move::Removed { lo: at, hi: at + 1 }, span)?;
                // The element after the erased one, at the position now.
                let mut next = (**p).clone();
                next.offset = at as i64;
                next.generation = s.generation();
                Ok(Value::Ptr(Rc::new(next)))
            }
            Intrinsic::ContainerLookup { kind, op } => {
                let cp = self.place(&args[0])?;
                let c = self.read(&cp, span)?;
                let v = self.eval(&args[1])?;
                let elem = scalar(&args[1].ty);
                let Value::Vector(s) = c else {
                    return Ok(Value::Int(0));
                };
                let data = s.to_values();
                self.charge(data.len() as u64 / 16, span)?;
                // The equal elements' positions, first to last: a run in an
                // ordered set, anywhere in an unordered one.
                let equal_at: Vec<usize> = if kind.is_unordered() {
                    data.iter()
                        .enumerate()
                        .filter(|(_, x)| equal(x, &v, elem))
                        .map(|(k, _)| k)
                        .collect()
                } else {
                    let lo = data.partition_point(|x| less(x, &v, elem));
                    let hi = data.partition_point(|x| !less(&v, x, elem));
                    (lo..hi.max(lo)).collect()
                };
                drop(data);
                let n = equal_at.len() as i64;
                match op {
                    LookupOp::Find => Ok(Value::Int(
                        equal_at.first().map_or(s.len() as i64, |&k| k as i64),
                    )),
                    LookupOp::Count => Ok(Value::Int(n)),
                    LookupOp::EraseAt => Ok(Value::Int(0)),
                    LookupOp::Erase => {
                        // From the last, so the positions before stay.
                        for &k in equal_at.iter().rev() {
                            s.remove(k, k + 1);
                            s.reshape();
                            self.meter.give(s.elem_bytes);
                            self.record_move(&s, Move::Removed { lo: k, hi: k + 1 }, span)?;
                        }
                        Ok(Value::Int(n))
                    }
                }
            }
            Intrinsic::ContainerPushFront => {
                let cp = self.place(&args[0])?;
                let c = self.read(&cp, span)?;
                let v = self.eval(&args[1])?;
                let v = self.copy_value(v, &args[1].ty, span)?;
                if let Value::Vector(s) = c {
                    self.take_memory(s.elem_bytes, span)?;
                    self.charge(s.len() as u64 / 16, span)?;
                    s.insert(0, v);
                    s.reshape();
                    self.record_move(&s, Move::Inserted(0), span)?;
                }
                Ok(Value::Void)
            }
            Intrinsic::ContainerPop { front } => {
                let cp = self.place(&args[0])?;
                if let Value::Vector(s) = self.read(&cp, span)? {
                    let n = s.len();
                    let which = if *front { "pop_front" } else { "pop_back" };
                    if n == 0 {
                        let class = container_name(&args[0].ty);
                        return Err(self
                            .error(
                                codes::R0001,
                                span,
                                format!("`{which}` of an empty `std::{class}`"),
                            )
                            .with_label("the container is empty")
                            .with_note("C++ leaves this undefined")
                            .into());
                    }
                    let at = if *front { 0 } else { n - 1 };
                    if *front {
                        self.charge(n as u64 / 16, span)?;
                    }
                    s.remove(at, at + 1);
                    s.reshape();
                    self.meter.give(s.elem_bytes);
                    self.record_move(&s, Move::Removed { lo: at, hi: at + 1 }, span)?;
                }
                Ok(Value::Void)
            }
            Intrinsic::VectorReserve => {
                let vp = self.place(&args[0])?;
                let n = self.eval(&args[1])?.int() as u64;
                if let Value::Vector(s) = self.read(&vp, span)? {
                    // libstdc++'s `max_size()`: `PTRDIFF_MAX / sizeof(T)`.
                    let max = (i64::MAX as u64) / s.elem_bytes.max(1);
                    if n > max {
                        return Err(crate::exceptions::std_exception(
                            self,
                            span,
                            "length_error",
                            "vector::reserve".to_string(),
                            "thrown here".to_string(),
                            "reserve at most `max_size()` elements, or catch `std::length_error`"
                                .to_string(),
                        ));
                    }
                    if matches!(args[0].ty, Type::Vector(_)) && s.grow_capacity(n, Growth::Exact) {
                        self.record_move(&s, Move::Reallocated, span)?;
                    }
                }
                Ok(Value::Void)
            }
            Intrinsic::ContainerClear => {
                let cp = self.place(&args[0])?;
                if let Value::Vector(s) = self.read(&cp, span)? {
                    let n = s.len() as u64;
                    s.remove(0, usize::MAX);
                    s.reshape();
                    self.meter.give(n * s.elem_bytes);
                    let hi = n as usize;
                    self.record_move(&s, Move::Removed { lo: 0, hi }, span)?;
                }
                Ok(Value::Void)
            }
            // An iterator value is the pointer it holds. One of a list or a
            // set follows its element through insertions, as in C++ (an
            // unordered set's up to a rehash, see `IterBase`); any other
            // (a vector's or deque's reverse iterator) is stamped with the
            // container's shape when made and checked against it when used.
            Intrinsic::AsIter => match self.eval(&args[0])? {
                Value::Ptr(p) => {
                    let follows = matches!(&e.ty, Type::Iter(it) if it.of.is_some_and(|k| k != Container::Deque));
                    let mut p = (*p).clone();
                    if let crate::value::Target::Storage(s) = &p.target
                        && !follows
                    {
                        p.stamp = s.reshaped.get();
                    }
                    Ok(Value::Ptr(Rc::new(p)))
                }
                other => Ok(other),
            },
            Intrinsic::IterBase => {
                let v = self.eval(&args[0])?;
                let Value::Ptr(p) = &v else {
                    return Ok(v);
                };
                let crate::value::Target::Storage(s) = &p.target else {
                    return Ok(v);
                };
                if p.generation != s.generation() && p.stamp == 0 {
                    let at = usize::try_from(p.offset)
                        .map_err(|_| Lost::Untracked)
                        .and_then(|at| s.follow(at, p.generation, true));
                    let at = match at {
                        Ok(at) => at,
                        Err(Lost::Rehashed) => {
                            return Err(self
                                .error(
                                    codes::R0007,
                                    args[0].span,
                                    "this iterator was made before its container rehashed",
                                )
                                .with_label("used after an insertion that grew the table")
                                .with_note("an unordered container's insertion invalidates its iterators when it rehashes")
                                .with_help("take the iterator again after inserting")
                                .into());
                        }
                        Err(lost) => return Err(self.lost_element(args[0].span, "iterator", lost)),
                    };
                    let mut q = (**p).clone();
                    q.offset = at as i64;
                    q.generation = s.generation();
                    return Ok(Value::Ptr(Rc::new(q)));
                }
                if p.stamp != 0 && p.stamp != s.reshaped.get() {
                    return Err(self
                        .error(
                            codes::R0007,
                            args[0].span,
                            "this iterator was made before its container changed size",
                        )
                        .with_label("used after an insertion or removal")
                        .with_note("C++ invalidates a deque's iterators at every insertion, and a vector's when it grows past its capacity")
                        .with_help("take the iterator again after changing the container")
                        .into());
                }
                Ok(v)
            }
            Intrinsic::IterElements { reverse } => self.iter_elements(*reverse, args, e),
            Intrinsic::GatherIter => self.gather_iter(args, e),
            Intrinsic::ScatterIter => self.scatter_iter(args, e),
            Intrinsic::VectorAssign => {
                let vp = self.place(&args[0])?;
                let target = self.read(&vp, span)?;
                let source = self.eval(&args[1])?;
                if let (Value::Vector(t), Value::Vector(s)) = (target, source) {
                    let elem = args[0].ty.sequence_elem().cloned().unwrap_or(Type::INT);
                    let old = t.len() as u64;
                    // The old elements are gone, whether or not the new
                    // ones need new memory.
                    t.grow_capacity(s.len() as u64, Growth::Assign);
                    if old > 0 {
                        self.record_move(
                            &t,
                            Move::Removed {
                                lo: 0,
                                hi: old as usize,
                            },
                            span,
                        )?;
                    }
                    self.charge(s.len() as u64 / 16, span)?;
                    if s.typed() {
                        // Scalars or records: a copy of the buffer (or of
                        // the values, between different element types).
                        t.assign_from(&s);
                    } else {
                        let data = self.copied_elements(s.to_values(), &elem, span)?;
                        t.replace(data);
                    }
                    t.reshape();
                    self.meter.give(old * t.elem_bytes);
                }
                Ok(Value::Void)
            }
            Intrinsic::VectorResize => {
                let vp = self.place(&args[0])?;
                let target = self.read(&vp, span)?;
                let n = self.eval(&args[1])?.int();
                let value = self.eval(&args[2])?;
                let value = self.copy_value(value, &args[2].ty, span)?;
                if let Value::Vector(t) = target {
                    let Ok(n) = usize::try_from(n) else {
                        return Err(self
                            .error(codes::R0001, span, format!("`resize` to {n} elements"))
                            .with_label("a negative size")
                            .into());
                    };
                    let old = t.len();
                    if n > old
                        && matches!(args[0].ty, Type::Vector(_))
                        && t.grow_capacity(n as u64, Growth::Grow)
                    {
                        self.record_move(&t, Move::Reallocated, span)?;
                    }
                    if n > old {
                        self.take_memory((n - old) as u64 * t.elem_bytes, span)?;
                        self.charge((n - old) as u64 / 16, span)?;
                    } else {
                        self.meter.give((old - n) as u64 * t.elem_bytes);
                    }
                    if n > old && self.holds_storage(&args[2].ty, 0) {
                        let added =
                            self.copied_elements(vec![value; n - old], &args[2].ty, span)?;
                        t.insert_many(old, added);
                    } else if n > old {
                        // A big growth is filled a chunk at a time, so that
                        // the time limit stops it.
                        t.reserve(n - old);
                        for start in (old..n).step_by(POLL_CHUNK) {
                            let end = (start + POLL_CHUNK).min(n);
                            t.resize(end, value.clone());
                            self.poll(span)?;
                        }
                    } else {
                        t.resize(n, value);
                        if n < old {
                            self.record_move(&t, Move::Removed { lo: n, hi: old }, span)?;
                        }
                    }
                    t.reshape();
                }
                Ok(Value::Void)
            }
            Intrinsic::ContainerFrom => {
                let src = self.eval(&args[0])?;
                let data: Vec<Value> = match &src {
                    Value::Vector(s) => s.to_values(),
                    _ => Vec::new(),
                };
                let elem = elem_type(&e.ty);
                let mut out: Vec<Value> = Vec::with_capacity(data.len());
                let mut buckets = 1;
                match &e.ty {
                    Type::Container(kind, _) if kind.is_unordered() => {
                        let s = elem.scalar().unwrap_or(Scalar::Int);
                        let multi = !kind.is_unique();
                        // A multiset's range constructor sizes its table
                        // for the range first; a set's inserts one by one.
                        if multi {
                            buckets = crate::hashtable::presized(data.len() as u64);
                        }
                        self.charge(data.len() as u64 * (data.len() as u64 / 16 + 1), span)?;
                        for v in data {
                            crate::hashtable::insert(
                                &mut out,
                                &mut buckets,
                                v,
                                s,
                                multi,
                                |a, b| equal(a, b, s),
                            );
                        }
                    }
                    Type::Container(kind, _) if kind.is_associative() => {
                        let s = elem.scalar().unwrap_or(Scalar::Int);
                        self.charge(data.len() as u64, span)?;
                        for v in data {
                            if let Some(at) = container_slot(&out, &v, s, *kind) {
                                out.insert(at, v);
                            }
                        }
                    }
                    _ => out = data,
                }
                let made = self.storage_of(out, &elem, StorageKind::Vector, span)?;
                made.buckets.set(buckets);
                Ok(Value::Vector(made))
            }
            Intrinsic::VectorPush => {
                let vp = self.place(&args[0])?;
                let vec = self.read(&vp, span)?;
                let v = self.eval(&args[1])?;
                let v = self.copy_value(v, &args[1].ty, span)?;
                if let Value::Vector(s) = vec {
                    self.take_memory(s.elem_bytes, span)?;
                    let end = s.len();
                    if matches!(args[0].ty, Type::Vector(_))
                        && s.grow_capacity(end as u64 + 1, Growth::Grow)
                    {
                        self.record_move(&s, Move::Reallocated, span)?;
                    }
                    s.push(v);
                    s.reshape();
                    // A list's end iterator stays its end (a deque's, which
                    // C++ invalidates here, follows it too).
                    if matches!(args[0].ty, Type::Container(..)) {
                        self.record_move(
                            &s,
                            Move::Appended {
                                from: end,
                                count: 1,
                            },
                            span,
                        )?;
                    }
                }
                Ok(Value::Void)
            }
            Intrinsic::VectorSize => {
                if let Type::CArray(_, n) = &args[0].ty {
                    return Ok(Value::Int(i64::from(*n)));
                }
                let v = self.eval(&args[0])?;
                let n = match v {
                    Value::Vector(s) => s.len(),
                    _ => 0,
                };
                Ok(Value::Int(n as i64))
            }
            Intrinsic::VectorIterator { .. } => self.eval(&args[0]),
            Intrinsic::VectorReversed => {
                let v = self.eval(&args[0])?;
                let data = match &v {
                    Value::Vector(s) => s.to_values().into_iter().rev().collect(),
                    _ => Vec::new(),
                };
                let elem = elem_type(&e.ty);
                Ok(Value::Vector(self.storage_of(
                    data,
                    &elem,
                    StorageKind::Vector,
                    span,
                )?))
            }
            Intrinsic::VectorData => self.vector_data(args),
            Intrinsic::Manipulator(m) => {
                let arg = match args.first() {
                    Some(a) => self.eval(a)?.int() as i32,
                    None => 0,
                };
                Ok(Value::Manip(*m, arg))
            }
            Intrinsic::Barrier(_) | Intrinsic::MemoryFence(_) => Ok(Value::Void),
            Intrinsic::Printf(_)
            | Intrinsic::Sprintf { .. }
            | Intrinsic::Puts { .. }
            | Intrinsic::Putchar(_)
            | Intrinsic::Fflush(_)
            | Intrinsic::Rand
            | Intrinsic::Clock
            | Intrinsic::Time
            | Intrinsic::ClockNanos { .. }
            | Intrinsic::Srand
            | Intrinsic::Exit
            | Intrinsic::Abort
            | Intrinsic::Assert(_) => self.clib(op, args, e),
            Intrinsic::RandomSeed(_)
            | Intrinsic::RandomDevice
            | Intrinsic::RandomNext(_)
            | Intrinsic::RandomDiscard(_)
            | Intrinsic::RandomDraw(..) => self.random(op, args, span),
            Intrinsic::DeviceWait => Ok(Value::Void),
            Intrinsic::Device
            | Intrinsic::DeviceOpen
            | Intrinsic::DeviceSetDefault
            | Intrinsic::DeviceAll
            | Intrinsic::DeviceDefaultView
            | Intrinsic::DeviceCreateView
            | Intrinsic::DeviceViewAccelerator
            | Intrinsic::DeviceQueuingMode
            | Intrinsic::DeviceText(_)
            | Intrinsic::DeviceEq
            | Intrinsic::DeviceLaunchOn
            | Intrinsic::ArrayDeviceView { .. }
            | Intrinsic::ViewSourceView => self.device_op(op, args, e),
            Intrinsic::WideStrEq => {
                let a = self.eval(&args[0])?;
                let b = self.eval(&args[1])?;
                let same = match (&a, &b) {
                    (Value::Str(x), Value::Str(y)) => x == y,
                    _ => false,
                };
                Ok(Value::Bool(same))
            }
            Intrinsic::DeviceCpuAccess => Ok(Value::Int(
                self.cpu_default
                    .0
                    .unwrap_or(tessera_ir::device::ACCESS_AUTO),
            )),
            Intrinsic::DeviceSetCpuAccess => {
                let t = self.eval(&args[0])?.int();
                let ok = self.cpu_default == (None, false);
                if ok {
                    self.cpu_default.0 = Some(t);
                }
                Ok(Value::Bool(ok))
            }
            Intrinsic::ArrayCpuAccess => {
                let v = self.eval(&args[0])?;
                let t = match &v {
                    Value::View(view) => match &view.data {
                        crate::value::ViewData::Storage(s) => s.cpu_access.get(),
                        crate::value::ViewData::Place(_)
                        | crate::value::ViewData::Object(_)
                        | crate::value::ViewData::Pun(_) => tessera_ir::device::ACCESS_READ_WRITE,
                    },
                    _ => tessera_ir::device::ACCESS_READ_WRITE,
                };
                Ok(Value::Int(t))
            }
            Intrinsic::IterAt => self.eval(&args[1]),
            Intrinsic::Algorithm(algo) => self.algorithm(*algo, args, e),
            Intrinsic::Swap => self.swap(args, span),
        }
    }

    /// `view[i]` of a rank-`N` view: the rank-`N - 1` view at row `i`.
    fn view_project(&mut self, args: &[Expr], span: Span) -> Res<Value> {
        let view = self.eval(&args[0])?;
        let view = self.view_of(&view, span)?;
        let i = self.eval(&args[1])?.int();
        let d0 = view.extent.first().copied().unwrap_or(0);
        if i < 0 || i >= d0 {
            let stop = self.oob(span, "a projection of a view".into(), &[i], &[d0]);
            if self.in_kernel {
                return Err(stop);
            }
            // On the host C++ AMP checks a projection and throws.
            return Err(stop
                .with_note("C++ AMP throws a `runtime_exception` here on the host")
                .with_exception(crate::device::runtime_exception(
                    "the specified projection index is out of bound",
                ))
                .into());
        }
        let data = view.data.share();
        Ok(Value::View(View::inherit(
            View::new(
                data,
                view.offset + i as usize * view.strides[0],
                view.extent[1..].to_vec(),
                view.strides[1..].to_vec(),
            ),
            &view,
        )))
    }

    /// `view.section(origin, extent)`.
    fn view_section(&mut self, args: &[Expr], span: Span) -> Res<Value> {
        let v = self.eval(&args[0])?;
        let view = self.view_of(&v, span)?;
        let origin = self.eval(&args[1])?.dims();
        // Without an extent: the rest of the view from the origin.
        let ext = match args.get(2) {
            Some(e) => self.eval(e)?.dims(),
            None => view
                .extent
                .iter()
                .zip(&origin)
                .map(|(&d, &o)| d.saturating_sub(o))
                .collect(),
        };
        let fits = origin
            .iter()
            .zip(&ext)
            .zip(&view.extent)
            .all(|((&o, &n), &d)| o >= 0 && n > 0 && o.checked_add(n).is_some_and(|end| end <= d));
        if !fits {
            let stop = self
                .error(
                    codes::R0007,
                    span,
                    format!(
                        "the section at {} of extent {} does not fit in a view of extent {}",
                        tuple(&origin),
                        tuple(&ext),
                        tuple(&view.extent)
                    ),
                )
                .with_label("section out of bounds");
            if self.in_kernel {
                return Err(stop.into());
            }
            // What C++ AMP's host-side check throws, in the order it checks.
            let what = if origin.iter().any(|&o| o < 0) {
                "Invalid - values for each dimension must be >= 0"
            } else if ext.iter().any(|&n| n <= 0) {
                "Invalid - values for each dimension must be > 0"
            } else {
                "the specified section index and extent are out of bound"
            };
            return Err(stop
                .with_exception(crate::device::runtime_exception(what))
                .into());
        }
        let offset = view.offset
            + origin
                .iter()
                .zip(&view.strides)
                .map(|(&o, &s)| o as usize * s)
                .sum::<usize>();
        let data = view.data.share();
        Ok(Value::View(View::inherit(
            View::new(data, offset, ext, view.strides.clone()),
            &view,
        )))
    }

    /// `a.view_as(e)`: the elements from the first on, row-major, with
    /// extent `e` (the checker allows it only where they are contiguous).
    fn view_as(&mut self, args: &[Expr], span: Span) -> Res<Value> {
        let v = self.eval(&args[0])?;
        let view = self.view_of(&v, span)?;
        let ext = self.eval(&args[1])?.dims();
        let n = ext.iter().try_fold(1u64, |acc, &d| {
            u64::try_from(d).ok().and_then(|d| acc.checked_mul(d))
        });
        let have = view.size() as u64;
        let unit = view.strides.last().copied().unwrap_or(1);
        if ext.iter().any(|&d| d <= 0) || n.is_none_or(|n| n > have) {
            return Err(self
                .error(
                    codes::R0007,
                    span,
                    format!(
                        "`view_as` of extent {} needs more elements than the {} of the view",
                        tuple(&ext),
                        have
                    ),
                )
                .with_label("does not fit")
                .with_exception(tessera_runtime::LibraryException {
                    class: "runtime_exception",
                    what: "concurrency::array_view::view_as: the extent does not fit in the view"
                        .into(),
                    code: 0x8007_0057,
                })
                .into());
        }
        let strides = crate::value::row_major_strides(&ext)
            .into_iter()
            .map(|s| s * unit)
            .collect();
        Ok(Value::View(View::inherit(
            View::new(view.data.share(), view.offset, ext, strides),
            &view,
        )))
    }

    /// A member of a `tiled_index` (the value holds the global index).
    fn tiled_index_part(&mut self, part: TiledIndexPart, args: &[Expr]) -> Res<Value> {
        let v = self.eval(&args[0])?;
        let Type::TiledIndex(shape) = &args[0].ty else {
            return Ok(v);
        };
        let global = v.dims();
        let dims: Vec<i64> = shape.dims().iter().map(|&d| i64::from(d)).collect();
        let local = global.iter().zip(&dims).map(|(g, d)| g.rem_euclid(*d));
        Ok(match part {
            TiledIndexPart::Global => v,
            TiledIndexPart::Local => Value::shape(local),
            TiledIndexPart::Tile => {
                Value::shape(global.iter().zip(&dims).map(|(g, d)| g.div_euclid(*d)))
            }
            TiledIndexPart::TileOrigin => {
                Value::shape(global.iter().zip(&dims).map(|(g, d)| g - g.rem_euclid(*d)))
            }
            TiledIndexPart::TileExtent => Value::shape(dims),
            TiledIndexPart::Barrier => Value::Void,
        })
    }

    pub(crate) fn component(&self, dims: &[i64], i: i64, span: Span) -> Res<()> {
        if i < 0 || i as usize >= dims.len() {
            return Err(self
                .error(
                    codes::R0001,
                    span,
                    format!("component {i} does not exist: the rank is {}", dims.len()),
                )
                .with_label(format!("component {i}"))
                .into());
        }
        Ok(())
    }

    /// The components of an index expression, without building the index
    /// when it is written out (`v(i, j)`, `v[idx]` with `idx` built in place).
    fn eval_index(&mut self, e: &Expr) -> Res<smallvec::SmallVec<[i64; 4]>> {
        if let tessera_ir::ExprKind::Intrinsic {
            op: Intrinsic::MakeShape,
            args,
        } = &e.kind
        {
            let mut out = smallvec::SmallVec::new();
            for a in args {
                out.push(self.eval(a)?.int());
            }
            return Ok(out);
        }
        Ok(match self.eval(e)? {
            Value::Agg(items) => items.iter().map(Value::int).collect(),
            _ => smallvec::SmallVec::new(),
        })
    }

    /// Library operations that name a place.
    pub(crate) fn intrinsic_place(
        &mut self,
        op: &Intrinsic,
        args: &[Expr],
        e: &Expr,
    ) -> Res<Place> {
        let span = e.span;
        match op {
            Intrinsic::ViewElement => {
                let view = match &args[0].kind {
                    // The common case, a captured view: no copy of the handle.
                    tessera_ir::ExprKind::Capture(c) => match self.launch.captures.get(*c as usize)
                    {
                        Some(Value::View(v)) => Rc::clone(v),
                        _ => return Err(self.error(codes::R0007, span, "this view has no data")),
                    },
                    _ => {
                        let v = self.eval(&args[0])?;
                        self.view_of(&v, span)?
                    }
                };
                if !self.in_kernel && matches!(args[0].ty, Type::Array(..)) {
                    self.check_cpu_access(&view, span)?;
                }
                let idx = self.eval_index(&args[1])?;
                let inside = idx.len() == view.extent.len()
                    && idx.iter().zip(&view.extent).all(|(&i, &d)| i >= 0 && i < d);
                if !inside {
                    let what = tessera_ir::display(&args[0].ty, &self.prog.structs);
                    return Err(self.oob(span, format!("an `{what}`"), &idx, &view.extent));
                }
                let at = view.offset
                    + idx
                        .iter()
                        .zip(&view.strides)
                        .map(|(&i, &s)| i as usize * s)
                        .sum::<usize>();
                if !self.in_kernel
                    && let Some(s) = view.backing_storage()
                {
                    // Host access through a view brings the kernels' writes
                    // back to the container, as C++ AMP does.
                    s.unsynced.set(None);
                }
                Ok(view.place_at(at))
            }
            Intrinsic::VectorElement | Intrinsic::VectorAt => {
                let vp = self.place(&args[0])?;
                let v = self.read(&vp, span)?;
                let i = self.eval(&args[1])?;
                let i = if scalar(&args[1].ty) == Scalar::ULong {
                    i64::try_from(i.int() as u64).unwrap_or(i64::MAX)
                } else {
                    i.int()
                };
                let Value::Vector(s) = v else {
                    return Ok(Machine::temp(Value::Void));
                };
                let n = s.len() as i64;
                if (i < 0 || i >= n) && matches!(op, Intrinsic::VectorAt) {
                    // libstdc++'s check and text (the index as a `size_t`).
                    return Err(crate::exceptions::out_of_range(
                        self,
                        span,
                        format!(
                            "vector::_M_range_check: __n (which is {}) >= this->size() (which is {n})",
                            i as u64
                        ),
                    ));
                }
                if i < 0 || i >= n {
                    let class = container_name(&args[0].ty);
                    return Err(self
                        .error(
                            codes::R0001,
                            span,
                            format!("index {i} is out of bounds for a `std::{class}` of size {n}"),
                        )
                        .with_label(format!("index {i}"))
                        .with_note(if n == 0 {
                            format!("the {class} is empty")
                        } else {
                            format!("the valid indices are 0 to {}", n - 1)
                        })
                        .into());
                }
                if self.checker.on && !self.in_kernel {
                    self.check_host_access(&s, span);
                }
                Ok(Place {
                    root: Root::elem(s, i as usize),
                    path: crate::value::Path::new(),
                })
            }
            Intrinsic::ShapeComponent => {
                let p = self.place(&args[0])?;
                let i = self.eval(&args[1])?.int();
                let base = self.read(&p, span)?;
                self.component(&base.dims(), i, span)?;
                Ok(p.child(i as u32))
            }
            // A stream's value says which it is, for a `std::ostream&` that
            // may refer to either.
            Intrinsic::Stdout => Ok(Machine::temp(Value::Int(STDOUT))),
            Intrinsic::Stderr => Ok(Machine::temp(Value::Int(STDERR))),
            Intrinsic::Stdin => {
                let cin = self.stdin_stream(span)?;
                Ok(Machine::temp(Value::Stream(cin)))
            }
            Intrinsic::Print => {
                let stream = self.eval(&args[0])?;
                let v = self.eval(&args[1])?;
                if let Value::Stream(s) = &stream {
                    self.print_to_string(s, &v, &args[1].ty, span)?;
                    return Ok(Machine::temp(stream));
                }
                let to_stderr = tessera_ir::print_target(&args[0]) == OutStream::Stderr
                    || matches!(stream, Value::Int(STDERR));
                // `std::wcout` writes where `std::cout` does, with flags of
                // its own.
                let wide = args[0].ty == Type::WideOstream;
                if to_stderr {
                    self.print_err(&v, &args[1].ty, wide, span)?;
                } else {
                    self.print(&v, &args[1].ty, wide, span)?;
                }
                // `a << b` is the stream `a`, for the next `<<`.
                Ok(Machine::temp(Value::Int(if to_stderr {
                    STDERR
                } else {
                    STDOUT
                })))
            }
            _ => Ok(Machine::temp(self.intrinsic(op, args, e)?)),
        }
    }

    /// `std::cerr << v`: formatted with `std::cerr`'s own state, kept with
    /// the rest of standard error.
    fn print_err(&mut self, v: &Value, ty: &Type, wide: bool, span: Span) -> Res<()> {
        let floating = ty.scalar().is_some_and(Scalar::is_floating);
        let bound = self.clib.err_format(wide).output_bound(floating) as u64;
        // Standard error is kept until the run ends, so its text is memory in use.
        self.take_memory(bound.max(16), span)?;
        // A `char*` prints the text it points to, as on `std::cout`.
        let bytes = match v {
            Value::Ptr(_) => Some(self.c_string(v, span)?),
            _ => None,
        };
        let before = self.clib.stderr.len();
        let format = if wide {
            &mut self.clib.wide_err_format
        } else {
            &mut self.clib.err_format
        };
        let out = &mut self.clib.stderr;
        match (v, ty) {
            (Value::Str(s), _) => format.write_bytes(s, out),
            (Value::Ptr(_), _) => format.write_bytes(bytes.as_deref().unwrap_or_default(), out),
            (Value::Manip(m, arg), _) => format.apply(*m, *arg, out),
            (_, Type::Scalar(s)) => format.write_scalar(scalar_value(v, *s), out),
            _ => {}
        }
        let written = (self.clib.stderr.len() - before) as u64;
        self.meter.give(bound.max(16).saturating_sub(written));
        Ok(())
    }

    /// `std::cout << v` (`std::wcout << v` when `wide`).
    fn print(&mut self, v: &Value, ty: &Type, wide: bool, span: Span) -> Res<()> {
        // C++ would print a field of any width; Tessera builds the text in
        // memory first, so an absurd `setw` or `setprecision` is held to the
        // memory and time limits like any allocation.
        let floating = ty.scalar().is_some_and(Scalar::is_floating);
        let bound = self.out_format(wide).output_bound(floating) as u64;
        if bound > 1 << 16 {
            self.take_memory(bound, span)?;
            self.meter.give(bound);
            self.charge(bound / 64, span)?;
        }
        let bytes = match v {
            Value::Ptr(_) => Some(self.c_string(v, span)?),
            _ => None,
        };
        let format = if wide {
            &mut self.wide_stream
        } else {
            &mut self.stream
        };
        let mut flush = false;
        match (v, ty) {
            (Value::Str(s), _) => format.write_bytes(s, &mut self.out),
            (Value::Ptr(_), _) => {
                format.write_bytes(bytes.as_deref().unwrap_or_default(), &mut self.out);
            }
            (Value::Manip(m, arg), _) => {
                format.apply(*m, *arg, &mut self.out);
                flush = matches!(m, Manipulator::Endl | Manipulator::Flush);
            }
            (_, Type::Scalar(s)) => {
                format.write_scalar(scalar_value(v, *s), &mut self.out);
            }
            _ => {}
        }
        if flush || self.out.len() > 1 << 16 {
            self.flush();
        }
        Ok(())
    }

    /// The format of `std::cout`, or of `std::wcout` when `wide`.
    pub(crate) fn out_format(&mut self, wide: bool) -> &mut StreamFormat {
        if wide {
            &mut self.wide_stream
        } else {
            &mut self.stream
        }
    }

    /// `array<T, N>(...)`; `whole_range` when the source is an iterator
    /// range `[first, last)`, which C++ AMP copies in with
    /// `copy(first, last, *this)` (see [`Self::range_fits`]).
    fn new_array(&mut self, args: &[Expr], e: &Expr, whole_range: bool) -> Res<Value> {
        let span = e.span;
        let ext = self.eval(&args[0])?;
        let dims = self.checked_extent(&ext, args[0].span, "an `array`")?;
        let n = Machine::size_of(&dims);
        let elem = elem_type(&e.ty);
        // After the extent: the source (a vector or view), the accelerator
        // view and the associated view, then the CPU access type (an
        // `int`), each optional.
        let rest = args.get(1..).unwrap_or_default();
        let source = rest
            .iter()
            .find(|a| !matches!(a.ty, Type::Scalar(_) | Type::AcceleratorView));
        let access = rest.iter().find(|a| matches!(a.ty, Type::Scalar(_)));
        let mut views = Vec::new();
        for v in rest.iter().filter(|a| a.ty == Type::AcceleratorView) {
            let value = self.eval(v)?;
            views.push(crate::device::device_value(&value, &v.ty));
        }
        let storage = match source {
            None => {
                let z = self.zero_value(&elem, span)?;
                self.new_storage(n, z, &elem, StorageKind::Device, span)?
            }
            Some(src) if matches!(src.ty, Type::Ptr { .. }) => {
                // `array(e, p)` / `array(e, p, q)`: `n` elements from `p`,
                // each read checked; `q - p` must cover them.
                let p = self.eval(src)?;
                let end = rest
                    .iter()
                    .filter(|a| matches!(a.ty, Type::Ptr { .. }))
                    .nth(1);
                let mut count = n;
                if let Some(end) = end {
                    let q = self.eval(end)?;
                    let have = self.ptr_diff(&q, &p, span)?.int();
                    if have < 0 {
                        return Err(self
                            .error(
                                codes::R0007,
                                span,
                                format!("an `array` built from a range of {have} elements"),
                            )
                            .with_label("the range ends before it starts")
                            .into());
                    }
                    count = self.range_fits(span, have as u64, &dims, "an `array`")?;
                }
                let data = self.read_pointed(&p, count as i64, span)?;
                let data = self.zero_filled(data, n, &elem, span)?;
                self.storage_of(data, &elem, StorageKind::Device, span)?
            }
            Some(src) => {
                let v = self.eval(src)?;
                // The elements copied in: all `n`, or a shorter range's.
                let count = match &v {
                    Value::Vector(s) if whole_range => {
                        self.range_fits(span, s.len() as u64, &dims, "an `array`")?
                    }
                    _ => n,
                };
                match &v {
                    // A vector of the array's scalar type with elements
                    // enough: the array's zeroed storage, then the first
                    // `n` elements' bytes (with `--check`, the elements
                    // are read one by one as its records want).
                    Value::Vector(s)
                        if !self.checker.on
                            && count == n
                            && s.scalar().is_some_and(|t| elem == Type::Scalar(t))
                            && s.len() as u64 >= n =>
                    {
                        let storage =
                            self.new_storage(n, Value::Uninit, &elem, StorageKind::Device, span)?;
                        storage.copy_scalars_from(0, s, 0, n as usize);
                        storage
                    }
                    _ => {
                        let data = self.source_elements(&v, count, src.span, "the array")?;
                        let data = self.zero_filled(data, n, &elem, span)?;
                        self.storage_of(data, &elem, StorageKind::Device, span)?
                    }
                }
            }
        };
        let asked = match access {
            Some(a) => self.eval(a)?.int(),
            None => tessera_ir::device::ACCESS_AUTO,
        };
        // A staging array's associated view is its second; an array on one
        // view is associated with that view.
        let own = match views.first() {
            Some(v) => *v,
            None => {
                // An array without a view uses the default accelerator.
                self.default_fixed = true;
                self.default_accel.default_view()
            }
        };
        let t = if own.accel() == crate::value::Accel::Cpu {
            // The CPU accelerator's memory is the host's, whatever access
            // was asked for.
            tessera_ir::device::ACCESS_READ_WRITE
        } else if asked == tessera_ir::device::ACCESS_AUTO {
            // `access_type_auto`: the device's default, or the runtime's own
            // choice, which is then used and can no longer be changed.
            match self.cpu_default.0 {
                Some(t) if t != tessera_ir::device::ACCESS_AUTO => t,
                _ => {
                    self.cpu_default.1 = true;
                    tessera_ir::device::ACCESS_READ_WRITE
                }
            }
        } else {
            asked
        };
        storage.cpu_access.set(t);
        storage
            .placement
            .set((own, views.get(1).copied().unwrap_or(own)));
        Ok(Value::View(View::dense(ViewData::Storage(storage), dims)))
    }

    /// The first `n` elements of a vector or view, or an error if it has fewer.
    fn source_elements(&mut self, v: &Value, n: u64, span: Span, what: &str) -> Res<Vec<Value>> {
        let data = match v {
            Value::Vector(s) => {
                if self.checker.on && !self.in_kernel {
                    self.check_host_access(s, span);
                }
                s.to_values()
            }
            Value::View(view) => {
                let view = Rc::clone(view);
                self.view_elements(&view, span)?
            }
            _ => Vec::new(),
        };
        if (data.len() as u64) < n {
            return Err(self
                .error(
                    codes::R0007,
                    span,
                    format!(
                        "{what} needs {n} elements, but the source has only {}",
                        data.len()
                    ),
                )
                .with_label("too few elements")
                .into());
        }
        Ok(data.into_iter().take(n as usize).collect())
    }

    fn new_view(&mut self, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let ext = self.eval(&args[0])?;
        let dims = self.checked_extent(&ext, args[0].span, "an `array_view`")?;
        let n = Machine::size_of(&dims);
        let elem = elem_type(&e.ty);
        let Some(src) = args.get(1) else {
            let z = self.zero_value(&elem, span)?;
            let storage = self.new_storage(n, z, &elem, StorageKind::Device, span)?;
            storage.sourceless.set(true);
            return Ok(Value::View(View::dense(ViewData::Storage(storage), dims)));
        };
        match &src.ty {
            Type::CArray(_, len) => {
                if u64::from(*len) < n {
                    return Err(self.container_too_small(span, n, u64::from(*len)));
                }
                let p = self.place(src)?;
                Ok(Value::View(View::dense(ViewData::Place(p), dims)))
            }
            Type::Vector(_) => {
                let p = self.place(src)?;
                let v = self.read(&p, span)?;
                let Value::Vector(s) = v else {
                    return Err(self.container_too_small(span, n, 0));
                };
                if (s.len() as u64) < n {
                    return Err(self.container_too_small(span, n, s.len() as u64));
                }
                Ok(Value::View(View::dense(ViewData::Storage(s), dims)))
            }
            Type::Ptr { .. } => {
                let v = self.eval(src)?;
                self.view_over_pointer(&v, dims, src.span)
            }
            _ => {
                let v = self.eval(src)?;
                let view = self.view_of(&v, span)?;
                let data = view.data.share();
                Ok(Value::View(View::inherit(
                    View::new(data, view.offset, view.extent.clone(), view.strides.clone()),
                    &view,
                )))
            }
        }
    }

    /// Run-time error R0007 for a library operation that C++ AMP refuses
    /// on the host by throwing `runtime_exception(what)`, which a handler
    /// for it catches.
    pub(crate) fn amp_refusal(
        &self,
        span: Span,
        message: String,
        label: &str,
        note: &str,
        what: &str,
    ) -> Stop {
        self.error(codes::R0007, span, message)
            .with_label(label)
            .with_note(note)
            .with_exception(crate::device::runtime_exception(what))
            .into()
    }

    /// `data` (the elements a shorter range copied into a rank-1 array)
    /// followed by zeros up to `n` elements, as an array made from its
    /// extent alone holds.
    fn zero_filled(
        &self,
        mut data: Vec<Value>,
        n: u64,
        elem: &Type,
        span: Span,
    ) -> Res<Vec<Value>> {
        if (data.len() as u64) < n {
            let z = self.zero_value(elem, span)?;
            data.resize(n as usize, z);
        }
        Ok(data)
    }

    /// How many elements of an iterator range of `have` elements C++ AMP's
    /// `copy(first, last, dst)` copies into `dst` of extent `dims`: all of
    /// them when they fit, and at rank 2 or more only exactly as many as
    /// `dst` has; otherwise it throws.
    fn range_fits(&self, span: Span, have: u64, dims: &[i64], what: &str) -> Res<u64> {
        let size = Machine::size_of(dims);
        let thrown = if have > size {
            "Number of elements in range between [_SrcFirst, _SrcLast) exceeds total size of the _Dest."
        } else if dims.len() > 1 && have != size {
            "For _Rank > 1 the number of elements in range between [_SrcFirst, _SrcLast) has to be equal to total size of the _Dest."
        } else {
            return Ok(have);
        };
        Err(self.amp_refusal(
            span,
            format!("a range of {have} elements copied into {what} of {size}"),
            "sizes differ",
            "C++ AMP copies a range no longer than the destination, and for a \
             destination of rank 2 or more exactly as long; it throws a \
             `runtime_exception` here",
            thrown,
        ))
    }

    /// [`Self::too_small`] for a container or C array, for which C++ AMP
    /// checks the size and throws.
    fn container_too_small(&self, span: Span, n: u64, have: u64) -> Stop {
        Box::new(self.too_small(span, n, have).with_exception(
            crate::device::runtime_exception(
                "Invalid _Src container argument - _Src size is less than the size of the array_view.",
            ),
        ))
    }

    pub(crate) fn too_small(&self, span: Span, n: u64, have: u64) -> Stop {
        self.error(
            codes::R0007,
            span,
            format!("the view's extent has {n} elements, but its data source has only {have}"),
        )
        .with_label("data source too small")
        .with_help("make the container at least as large as the extent")
        .into()
    }

    fn copy(&mut self, args: &[Expr], span: Span) -> Res<()> {
        let src = self.eval(&args[0])?;
        let dst = self.eval(&args[1])?;
        match (&src, &dst) {
            // From `n` elements a pointer points to (`copy(p, view)`, or
            // `copy(p, q, view)` with `q - p` of them), each read checked.
            (Value::Ptr(_), Value::View(d)) => {
                let d = Rc::clone(d);
                let n = d.size() as i64;
                if let Some(end) = args.get(2) {
                    let end = self.eval(end)?;
                    let have = self.ptr_diff(&end, &src, span)?.int();
                    if have != n {
                        return Err(self
                            .error(
                                codes::R0007,
                                span,
                                format!("`copy` of {have} elements into a destination of {n}"),
                            )
                            .with_label("sizes differ")
                            .into());
                    }
                }
                let data = self.read_pointed(&src, n, span)?;
                self.fill_view(&d, data, span)
            }
            // Into the elements a pointer points to.
            (Value::View(s), Value::Ptr(_)) => {
                let s = Rc::clone(s);
                let data = self.view_elements(&s, span)?;
                self.write_pointed(&dst, 0, data, span)
            }
            (Value::View(s), Value::View(d)) => {
                let arrays = (
                    matches!(args[0].ty, Type::Array(..)),
                    matches!(args[1].ty, Type::Array(..)),
                );
                if copy_overlaps(s, d, arrays) {
                    // C++ AMP checks this before the extents.
                    return Err(self.amp_refusal(
                        span,
                        "`copy` between overlapping regions of the same memory".into(),
                        "source and destination overlap",
                        "C++ AMP refuses a copy between an `array` and a view of it, and \
                         between views of one `array` or container whose elements overlap; \
                         it throws a `runtime_exception` here",
                        "Cannot copy between overlapping regions of the same buffer.",
                    ));
                }
                if arrays == (true, true) && s.extent != d.extent {
                    // Between two arrays C++ AMP copies the source's
                    // elements, in order, over the first of the
                    // destination's, whatever the two extents.
                    if s.size() > d.size() {
                        return Err(self.amp_refusal(
                            span,
                            format!(
                                "`copy` of an array of {} elements into one of {}",
                                s.size(),
                                d.size()
                            ),
                            "the source is larger",
                            "C++ AMP copies between arrays of different extents when the \
                             destination has room for every element; it throws a \
                             `runtime_exception` here",
                            "Invalid _Src argument. _Src size exceeds total size of the _Dest.",
                        ));
                    }
                    let s = Rc::clone(s);
                    let d = Rc::clone(d);
                    let data = self.view_elements(&s, span)?;
                    return self.fill_view(&d, data, span);
                }
                if s.extent != d.extent {
                    return Err(self
                        .error(
                            codes::R0007,
                            span,
                            format!(
                                "`copy` between different extents: {} and {}",
                                tuple(&s.extent),
                                tuple(&d.extent)
                            ),
                        )
                        .with_label("extents differ")
                        .into());
                }
                let (s, d) = (Rc::clone(s), Rc::clone(d));
                if self.copy_rows(&s, &d, span)? {
                    return Ok(());
                }
                let data = self.view_elements(&s, span)?;
                self.fill_view(&d, data, span)
            }
            // A whole iterator range: C++ AMP checks its count first.
            (Value::Vector(elements), Value::View(d)) if args.len() == 3 => {
                let d = Rc::clone(d);
                // A shorter range fills the first elements of a rank-1
                // destination.
                let have =
                    self.range_fits(span, elements.len() as u64, &d.extent, "a destination")?;
                let data = self.source_elements(&src, have, args[0].span, "`copy`")?;
                self.fill_view(&d, data, span)
            }
            (Value::Vector(_), Value::View(d)) => {
                let d = Rc::clone(d);
                let data = self.source_elements(&src, d.size() as u64, args[0].span, "`copy`")?;
                self.fill_view(&d, data, span)
            }
            (Value::View(s), Value::Vector(v)) => {
                let s = Rc::clone(s);
                if self.copy_rows_to_storage(&s, v, span)? {
                    return Ok(());
                }
                let data = self.view_elements(&s, span)?;
                let have = v.len();
                if have < data.len() {
                    return Err(self
                        .error(
                            codes::R0007,
                            span,
                            format!(
                                "`copy` writes {} elements into a vector of size {have}",
                                data.len()
                            ),
                        )
                        .with_label("destination too small")
                        .into());
                }
                v.put_values(0, &data);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn fill_view(&mut self, view: &View, data: Vec<Value>, span: Span) -> Res<()> {
        self.charge(data.len() as u64 / 16, span)?;
        if let Some((s, row)) = self.storage_rows(view)
            && data.len() == view.size()
        {
            for (r, items) in data.chunks(row).enumerate() {
                s.put_values(view.nth(r * row), items);
            }
            return Ok(());
        }
        for (k, v) in data.into_iter().enumerate() {
            let p = view.place_at(view.nth(k));
            self.write(&p, v, span)?;
        }
        Ok(())
    }

    fn math(&mut self, f: MathFn, args: &[Expr], e: &Expr) -> Res<Value> {
        let mut xs = Vec::with_capacity(args.len());
        for a in args {
            xs.push(self.eval(a)?);
        }
        let ty = scalar(&e.ty);
        if !ty.is_floating() {
            let a = xs.first().map_or(0, Value::int);
            let b = xs.get(1).map_or(0, Value::int);
            // The mathematical values: `unsigned long` is stored as its bits.
            let wide = |v: i64| {
                if ty == Scalar::ULong {
                    i128::from(v as u64)
                } else {
                    i128::from(v)
                }
            };
            let (a, b) = (wide(a), wide(b));
            let r: i128 = match f {
                MathFn::Abs => a.abs(),
                MathFn::Min => a.min(b),
                _ => a.max(b),
            };
            let w = arith::wrap(r, ty);
            if wide(w) != r {
                return Err(self.arith_error(arith::ArithError::Overflow, ty, e.span));
            }
            return Ok(Value::Int(w));
        }
        let x: Vec<f64> = xs.iter().map(arith::as_f64).collect();
        let a = x.first().copied().unwrap_or(0.0);
        let b = x.get(1).copied().unwrap_or(0.0);
        let c = x.get(2).copied().unwrap_or(0.0);
        if ty == Scalar::Float {
            return Ok(Value::Float(tessera_runtime::math::math_f32(
                f, a as f32, b as f32, c as f32,
            )));
        }
        Ok(Value::Double(tessera_runtime::math::math_f64(f, a, b, c)))
    }

    fn atomic(&mut self, op: AtomicOp, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let p = self.place(&args[0])?;
        let ty = scalar(&args[0].ty);
        if op == AtomicOp::CompareExchange {
            let expected_place = self.place(&args[1])?;
            let desired = self.eval(&args[2])?;
            let cur = self.atomic_read(&p, span)?;
            let expected = self.read(&expected_place, span)?;
            if cur.int() == expected.int() {
                self.atomic_write(&p, desired, span)?;
                return Ok(Value::Bool(true));
            }
            self.write(&expected_place, cur, span)?;
            return Ok(Value::Bool(false));
        }
        let operand = match args.get(1) {
            Some(a) => self.eval(a)?,
            None => Value::Int(1),
        };
        let old = self.atomic_read(&p, span)?;
        let (a, b) = (old.int(), operand.int());
        let new = match op {
            AtomicOp::Add | AtomicOp::Inc => {
                Value::Int(arith::wrap(i128::from(a) + i128::from(b), ty))
            }
            AtomicOp::Sub | AtomicOp::Dec => {
                Value::Int(arith::wrap(i128::from(a) - i128::from(b), ty))
            }
            AtomicOp::And => Value::Int(a & b),
            AtomicOp::Or => Value::Int(a | b),
            AtomicOp::Xor => Value::Int(arith::wrap(i128::from(a ^ b), ty)),
            AtomicOp::Max => Value::Int(a.max(b)),
            AtomicOp::Min => Value::Int(a.min(b)),
            AtomicOp::Exchange | AtomicOp::CompareExchange => operand,
        };
        self.atomic_write(&p, new, span)?;
        Ok(old)
    }

    fn atomic_read(&mut self, p: &Place, span: Span) -> Res<Value> {
        if self.checker.on {
            self.check_access(p, span, true, true)?;
        }
        let saved = std::mem::replace(&mut self.checker.on, false);
        let v = self.read(p, span);
        self.checker.on = saved;
        v
    }

    fn atomic_write(&mut self, p: &Place, v: Value, span: Span) -> Res<()> {
        let saved = std::mem::replace(&mut self.checker.on, false);
        let r = self.write(p, v, span);
        self.checker.on = saved;
        r
    }
}

/// Reads part of a value (for tests of the path helpers).
#[allow(dead_code)]
pub(crate) fn part(v: &Value, path: &[u32]) -> Option<Value> {
    get_path(v, path)
}

/// The value of `std::cout` (and of a `std::ostream&` bound to it).
const STDOUT: i64 = 1;
/// The value of `std::cerr`.
pub(crate) const STDERR: i64 = 2;

impl Machine<'_> {
    /// `Intrinsic::IterElements`: the elements `[first, last)` (or from
    /// `first` to the end) in the order the iterators visit them, each read
    /// through a checked pointer.
    fn iter_elements(&mut self, reverse: bool, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let first = self.eval(&args[0])?;
        // The lowest pointer of the range and its length.
        let (low, n) = match args.get(1) {
            Some(last) => {
                let last = self.eval(last)?;
                if reverse {
                    let n = self.ptr_diff(&first, &last, span)?.int();
                    (last, n)
                } else {
                    let n = self.ptr_diff(&last, &first, span)?.int();
                    (first, n)
                }
            }
            None => {
                let (len, at) = match &first {
                    Value::Ptr(p) => (p.len(), p.offset),
                    _ => (0, 0),
                };
                if reverse {
                    (self.ptr_add(&first, -at, span)?, at)
                } else {
                    (first, len - at)
                }
            }
        };
        if n < 0 {
            return Err(self
                .error(
                    codes::R0001,
                    span,
                    format!("an iterator range ends {} elements before it starts", -n),
                )
                .with_label("`last` comes before `first`")
                .into());
        }
        self.charge(n as u64 / 16, span)?;
        let mut data = self.read_pointed(&low, n, span)?;
        if reverse {
            data.reverse();
        }
        let elem = elem_type(&e.ty);
        Ok(Value::Vector(self.storage_of(
            data,
            &elem,
            StorageKind::Vector,
            span,
        )?))
    }
}

impl Machine<'_> {
    /// `Intrinsic::GatherIter`: a loop over the program's iterator class.
    fn gather_iter(&mut self, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        self.eval(&args[0])?;
        self.eval(&args[1])?;
        let count = self.eval(&args[3])?.int();
        let elem = elem_type(&e.ty);
        let bytes = self.type_bytes(&elem);
        let mut out = Vec::new();
        while count < 0 || (out.len() as i64) < count {
            if !self.eval(&args[2])?.truth() {
                break;
            }
            let v = self.eval(&args[4])?;
            let v = self.copy_value(v, &args[4].ty, span)?;
            self.charge(1, span)?;
            self.take_memory(bytes, span)?;
            out.push(v);
            self.eval(&args[5])?;
        }
        // The elements' memory is the vector's from here on.
        self.meter.give(out.len() as u64 * bytes);
        Ok(Value::Vector(self.storage_of(
            out,
            &elem,
            StorageKind::Vector,
            span,
        )?))
    }

    /// `Intrinsic::ScatterIter`: each element written through the
    /// program's iterator class.
    fn scatter_iter(&mut self, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let data = match self.eval(&args[0])? {
            Value::Vector(s) => s.to_values(),
            _ => Vec::new(),
        };
        self.eval(&args[1])?;
        let place = self.place(&args[2])?;
        for x in data {
            self.charge(1, span)?;
            self.write(&place, x, span)?;
            self.eval(&args[3])?;
            self.eval(&args[4])?;
        }
        Ok(Value::Void)
    }
}

/// The `std::` name of a vector or container type, for messages: `vector`,
/// or the `deque` of `d[i]` and of `front()`/`back()`.
fn container_name(ty: &Type) -> &'static str {
    match ty {
        Type::Container(kind, _) => kind.name(),
        _ => "vector",
    }
}

/// Whether `copy` from view `s` to view `d` is one C++ AMP refuses as a
/// copy "between overlapping regions of the same buffer"; `arrays` says
/// which of the two is an `array` (rather than an `array_view`).
///
/// As C++ AMP decides it: an `array` and a view of its memory always
/// count as overlapping (whatever their elements); two views of one memory
/// overlap when the boxes of elements they cover meet, where both are
/// laid out alike (the same rank and strides: sections of one view), and
/// otherwise when the ranges from their first element's position on, as
/// long as their element counts, meet. A copy of an `array` onto itself
/// moves every element onto itself and is not refused. Only views of
/// shared storage are compared; views over a C array or a single object
/// are not.
fn copy_overlaps(s: &View, d: &View, arrays: (bool, bool)) -> bool {
    let (ViewData::Storage(a), ViewData::Storage(b)) = (&s.data, &d.data) else {
        return false;
    };
    if !Rc::ptr_eq(a, b) || s.size() == 0 || d.size() == 0 {
        return false;
    }
    match arrays {
        (true, true) => false,
        (true, false) | (false, true) => true,
        (false, false) => {
            if s.strides == d.strides
                && let (Some(from), Some(to)) = (box_origin(s), box_origin(d))
            {
                let meet = |o1: i64, n1: i64, o2: i64, n2: i64| o1 < o2 + n2 && o2 < o1 + n1;
                return from
                    .iter()
                    .zip(&s.extent)
                    .zip(to.iter().zip(&d.extent))
                    .all(|((&o1, &n1), (&o2, &n2))| meet(o1, n1, o2, n2));
            }
            let (o1, o2) = (s.offset as i128, d.offset as i128);
            let (n1, n2) = (s.size() as i128, d.size() as i128);
            o1 < o2 + n2 && o2 < o1 + n1
        }
    }
}

/// The position of a view's first element in the row-major whole its
/// strides describe: in dimension 0 its offset over stride 0, in
/// dimension `k` what is left within one stride `k - 1` over stride `k`;
/// `None` for a zero stride.
fn box_origin(v: &View) -> Option<Vec<i64>> {
    let mut origin = Vec::with_capacity(v.strides.len());
    for (k, &stride) in v.strides.iter().enumerate() {
        let within = match k.checked_sub(1) {
            None => v.offset,
            Some(outer) => v.offset.checked_rem(v.strides[outer])?,
        };
        origin.push(i64::try_from(within.checked_div(stride)?).ok()?);
    }
    Some(origin)
}
