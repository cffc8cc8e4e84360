//! Checked pointers: `&`, `*`, pointer arithmetic and comparisons, `new` and
//! `delete`.
//!
//! A pointer knows its allocation (an object or C array of the program, the
//! elements of a vector, `array` or `new` block, or a string literal) and
//! its element offset in it. Forming a pointer outside `[0, len]` is
//! reported when it happens (undefined in C++); dereferencing null, one past
//! the end, a deleted block or a local of a call that has returned stops
//! the run with the place it happened.

use crate::machine::{Machine, Res, Stop};
use crate::value::{
    Lost, Place, Pointer, Root, StorageKind, Target, Value, View, ViewData, row_major_strides,
};
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Expr, ExprKind, Type};

impl Machine<'_> {
    /// The generation of the frame a place's root lives in (0 for places
    /// that are not locals of a call).
    pub(crate) fn root_generation(&mut self, root: &Root) -> u64 {
        match root {
            Root::Local(depth, _) => self
                .strand()
                .stack
                .get(*depth as usize)
                .map_or(0, |f| f.generation),
            Root::HostLocal(depth, _) => self
                .host
                .stack
                .get(*depth as usize)
                .map_or(0, |f| f.generation),
            _ => 0,
        }
    }

    fn pointer_to_place(&mut self, place: Place, array: bool, len: u32) -> Value {
        let generation = self.root_generation(&place.root);
        Value::Ptr(Rc::new(Pointer {
            target: Target::Place {
                place,
                array,
                len,
                generation,
            },
            offset: 0,
            stamp: 0,
            generation: 0,
        }))
    }

    /// `&e`: a pointer to the place `e` names.
    pub(crate) fn addr_of(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            // `&*p` and `&p[i]` are the pointer itself.
            ExprKind::Deref(ptr) => {
                let v = self.eval(ptr)?;
                // Dereferencing is what `*p` would do; `&*p` of a valid
                // pointer is that pointer, and C++ allows `&p[n]` one past.
                return Ok(v);
            }
            ExprKind::Element { base, index } => {
                if let Type::CArray(_, n) = &base.ty {
                    let n = *n;
                    let place = self.place(base)?;
                    let i = self.eval(index)?.int();
                    if i < 0 || i >= i64::from(n) {
                        let shown = tessera_ir::display(&base.ty, &self.prog.structs);
                        return Err(self
                            .error(
                                codes::R0001,
                                e.span,
                                format!("index {i} is out of bounds for `{shown}`"),
                            )
                            .with_label(format!("index {i}"))
                            .with_note(format!("the valid indices are 0 to {}", n - 1))
                            .into());
                    }
                    let v = self.pointer_to_place(place, true, n);
                    return Ok(with_offset(v, i));
                }
            }
            _ => {}
        }
        let place = self.place(e)?;
        Ok(self.address_of_place(place))
    }

    /// A pointer to the object at `place`.
    pub(crate) fn address_of_place(&mut self, place: Place) -> Value {
        if let Root::Pun(pun, byte) = &place.root
            && place.path.is_empty()
        {
            return Machine::pun_address(pun, *byte);
        }
        if let Root::Elem(storage, i, generation) = &place.root
            && place.path.is_empty()
        {
            return Value::Ptr(Rc::new(Pointer {
                target: Target::Storage(Rc::clone(storage)),
                offset: *i as i64,
                stamp: 0,
                generation: *generation,
            }));
        }
        self.pointer_to_place(place, false, 1)
    }

    /// A C array place decayed to a pointer to its first element.
    pub(crate) fn decay(&mut self, e: &Expr) -> Res<Value> {
        let Type::CArray(_, n) = &e.ty else {
            return Ok(Pointer::null());
        };
        let n = *n;
        let place = self.place(e)?;
        Ok(self.pointer_to_place(place, true, n))
    }

    /// The error for a pointer that cannot be dereferenced, or `None`.
    fn deref_error(&mut self, p: &Pointer, span: Span, what: &str) -> Option<Stop> {
        let (lo, len) = p.bounds();
        match &p.target {
            // The memory under a pun must be alive too.
            Target::Pun(pun) => {
                let mem = Pointer {
                    target: pun.mem.clone(),
                    offset: 0,
                    stamp: 0,
                    generation: pun.mem.generation(),
                };
                if !matches!(mem.target, Target::Storage(_) | Target::Place { .. }) {
                    return None;
                }
                if let Some(stop) = self.deref_error(&mem, span, what)
                    && pun.total() > 0
                {
                    return Some(stop);
                }
            }
            Target::Null => {
                return Some(
                    self.error(codes::R0013, span, format!("{what} a null pointer"))
                        .with_label("this pointer is null")
                        .with_help("check the pointer before using it: `if (p != nullptr)`")
                        .into(),
                );
            }
            Target::Storage(s) if s.freed.get() => {
                return Some(
                    self.error(
                        codes::R0014,
                        span,
                        format!("{what} a pointer to memory that was deleted"),
                    )
                    .with_label("its block was freed by `delete`")
                    .with_help("do not use a pointer after deleting what it points to")
                    .into(),
                );
            }
            Target::Place {
                place, generation, ..
            } => {
                if let Some(stop) = self.dangling(place, *generation, span, what) {
                    return Some(stop);
                }
            }
            _ => {}
        }
        if p.offset < lo || p.offset >= len {
            let past = if p.offset == len {
                "one past the end of"
            } else {
                "outside"
            };
            return Some(
                self.error(
                    codes::R0001,
                    span,
                    format!(
                        "{what} a pointer {past} its array: element {} of {len}",
                        p.offset
                    ),
                )
                .with_label(format!("element {}", p.offset))
                .with_note(format!(
                    "the pointer may be dereferenced at elements 0 to {}",
                    len - 1
                ))
                .into(),
            );
        }
        None
    }

    /// Whether a place a pointer holds is gone: a local of a call that has
    /// returned, or of a block that has ended.
    fn dangling(&mut self, place: &Place, generation: u64, span: Span, what: &str) -> Option<Stop> {
        let (frame, slot) = match &place.root {
            Root::Local(depth, slot) => {
                let f = self.strand().stack.get(*depth as usize);
                (
                    f.map(|f| (f.generation, f.locals.get(*slot as usize).cloned())),
                    slot,
                )
            }
            Root::HostLocal(depth, slot) => {
                let f = self.host.stack.get(*depth as usize);
                (
                    f.map(|f| (f.generation, f.locals.get(*slot as usize).cloned())),
                    slot,
                )
            }
            _ => return None,
        };
        let _ = slot;
        let gone = match frame {
            Some((g, value)) if g == generation => {
                // A block's locals are cleared when it ends.
                matches!(value, None | Some(Value::Void))
            }
            _ => true,
        };
        gone.then(|| {
            self.error(
                codes::R0014,
                span,
                format!("{what} a dangling pointer: the variable it points to no longer exists"),
            )
            .with_label("points to a local whose function returned or whose block ended")
            .with_help("keep the variable alive while the pointer is used, or use `new`")
            .into()
        })
    }

    /// The place `*p` names, checked.
    pub(crate) fn deref_place(&mut self, v: &Value, span: Span) -> Res<Place> {
        let Value::Ptr(p) = v else {
            return Err(self
                .error(codes::R0013, span, "dereferenced a null pointer")
                .with_label("this pointer is null")
                .into());
        };
        let p = &match follow(p) {
            Ok(p) => p,
            Err(lost) => return Err(self.lost_element(span, "pointer", lost)),
        };
        if let Some(stop) = self.deref_error(p, span, "dereferenced") {
            return Err(stop);
        }
        let at = p.offset;
        Ok(match &p.target {
            Target::Place { place, array, .. } => {
                if *array {
                    place.clone().child(at as u32)
                } else {
                    place.clone()
                }
            }
            Target::Storage(s) => Place::root(Root::Elem(Rc::clone(s), at as usize, p.generation)),
            Target::Str(bytes) => {
                let b = bytes.get(at as usize).copied().unwrap_or(0);
                Machine::temp(Value::Int(i64::from(b as i8)))
            }
            Target::Null => Machine::temp(Value::Void),
            Target::Pun(pun) => {
                let byte = (pun.base as i64).saturating_add(at.saturating_mul(pun.ty.size as i64));
                Place::root(Root::Pun(Rc::clone(pun), u64::try_from(byte).unwrap_or(0)))
            }
        })
    }

    /// `p + n`, checked to stay within `[0, len]` of its allocation.
    pub(crate) fn ptr_add(&mut self, v: &Value, n: i64, span: Span) -> Res<Value> {
        let Value::Ptr(p) = v else {
            return Ok(v.clone());
        };
        if n == 0 {
            return Ok(v.clone());
        }
        let p = &match follow(p) {
            Ok(p) => p,
            Err(lost) => return Err(self.lost_element(span, "pointer", lost)),
        };
        let v = &Value::Ptr(Rc::clone(p));
        if p.is_null() {
            return Err(self
                .error(codes::R0013, span, "arithmetic on a null pointer")
                .with_label("this pointer is null")
                .with_note("C++ leaves arithmetic on a null pointer undefined")
                .into());
        }
        let (lo, len) = p.bounds();
        let to = p.offset.checked_add(n).filter(|t| (lo..=len).contains(t));
        let Some(to) = to else {
            return Err(self
                .error(
                    codes::R0001,
                    span,
                    format!(
                        "pointer arithmetic leaves its array: element {} {} {} of {len}",
                        p.offset,
                        if n < 0 { "-" } else { "+" },
                        n.unsigned_abs()
                    ),
                )
                .with_label("out of the array")
                .with_note(format!(
                    "a pointer may point to elements 0 to {len} (one past the end); C++ leaves any other result undefined"
                ))
                .into());
        };
        Ok(with_offset(v.clone(), to - p.offset))
    }

    /// `a - b`: both must point into the same allocation.
    pub(crate) fn ptr_diff(&mut self, a: &Value, b: &Value, span: Span) -> Res<Value> {
        let (Value::Ptr(a), Value::Ptr(b)) = (a, b) else {
            return Ok(Value::Int(0));
        };
        let (a, b) = match (follow(a), follow(b)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(lost), _) | (_, Err(lost)) => {
                return Err(self.lost_element(span, "pointer", lost));
            }
        };
        let (a, b) = (&a, &b);
        if !a.same_allocation(b) {
            return Err(self
                .error(
                    codes::R0001,
                    span,
                    "subtracted pointers into different arrays",
                )
                .with_label("not the same array")
                .with_note("C++ defines `p - q` only for pointers into the same array")
                .into());
        }
        Ok(Value::Int((a.position() - b.position()) / a.unit()))
    }

    /// `a op b` for two pointers: equality for any two, order only within
    /// one allocation.
    pub(crate) fn ptr_compare(
        &mut self,
        op: tessera_ir::BinOp,
        a: &Value,
        b: &Value,
        span: Span,
    ) -> Res<Value> {
        use tessera_ir::BinOp;
        let (Value::Ptr(a), Value::Ptr(b)) = (a, b) else {
            return Ok(Value::Bool(false));
        };
        let (a, b) = (&fresh(a), &fresh(b));
        let same = a.same_allocation(b);
        let (x, y) = (a.position(), b.position());
        let r = match op {
            BinOp::Eq => same && x == y,
            BinOp::Ne => !(same && x == y),
            _ => {
                if !same {
                    return Err(self
                        .error(
                            codes::R0001,
                            span,
                            "compared the order of pointers into different arrays",
                        )
                        .with_label("not the same array")
                        .with_note("C++ leaves `<` on unrelated pointers unspecified")
                        .into());
                }
                match op {
                    BinOp::Lt => x < y,
                    BinOp::Le => x <= y,
                    BinOp::Gt => x > y,
                    _ => x >= y,
                }
            }
        };
        Ok(Value::Bool(r))
    }

    /// `new T`, `new T(v)`, `new T[n]`.
    pub(crate) fn new_block(
        &mut self,
        e: &Expr,
        count: Option<&Expr>,
        value: Option<&Expr>,
    ) -> Res<Value> {
        let elem = e.ty.pointee().cloned().unwrap_or(Type::INT);
        let n = match count {
            Some(c) => {
                let n = self.eval(c)?.int();
                if n < 0 {
                    return Err(self
                        .error(
                            codes::R0007,
                            c.span,
                            format!("`new[]` of a negative number of elements ({n})"),
                        )
                        .with_label("negative size")
                        .into());
                }
                n as u64
            }
            None => 1,
        };
        // Checked before the first element is built, which for a class
        // nested deep by value is as much work as its size.
        let bytes = self.type_bytes(&elem);
        self.take_memory(n.saturating_mul(bytes), e.span)?;
        self.meter.give(n.saturating_mul(bytes));
        let fill = match value {
            Some(v) => {
                let x = self.eval(v)?;
                self.copy_value(x, &elem, v.span)?
            }
            None => self.zero_value(&elem, e.span)?,
        };
        let kind = StorageKind::Heap {
            array: count.is_some(),
        };
        let storage = if matches!(
            fill,
            Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Double(_)
        ) {
            self.new_storage(n, fill, &elem, kind, e.span)?
        } else {
            let bytes = self.type_bytes(&elem);
            self.take_memory(n.saturating_mul(bytes), e.span)?;
            self.meter.give(n.saturating_mul(bytes));
            let n = usize::try_from(n)
                .map_err(|_| self.error(codes::R0010, e.span, "allocation too large"))?;
            self.storage_of(vec![fill; n], &elem, kind, e.span)?
        };
        Ok(Value::Ptr(Rc::new(Pointer {
            target: Target::Storage(storage),
            offset: 0,
            stamp: 0,
            generation: 0,
        })))
    }

    /// `delete p` / `delete[] p`.
    pub(crate) fn delete(&mut self, ptr: &Expr, array: bool, span: Span) -> Res<()> {
        let v = self.eval(ptr)?;
        let Value::Ptr(p) = &v else {
            return Ok(());
        };
        let form = if array { "delete[]" } else { "delete" };
        let storage = match &p.target {
            Target::Null => return Ok(()),
            Target::Storage(s) if matches!(s.kind, StorageKind::Heap { .. }) => Rc::clone(s),
            // A pointer to the base subobject of a `new` object, deleted
            // through the base's virtual destructor (which ran the whole
            // object's destructors).
            Target::Place { place, .. }
                if !array
                    && self.deletes_through_base(ptr, place)
                    && let Root::Elem(s, 0, _) = &place.root =>
            {
                Rc::clone(s)
            }
            _ => {
                return Err(self
                    .error(
                        codes::R0015,
                        span,
                        format!("`{form}` of a pointer that `new` did not return"),
                    )
                    .with_label("this memory was not allocated with `new`")
                    .with_note("C++ leaves this undefined")
                    .into());
            }
        };
        if storage.freed.get() {
            return Err(self
                .error(
                    codes::R0015,
                    span,
                    format!("`{form}` of memory already deleted"),
                )
                .with_label("deleted a second time")
                .with_note("C++ leaves a double delete undefined")
                .into());
        }
        if p.offset != 0 {
            return Err(self
                .error(
                    codes::R0015,
                    span,
                    format!("`{form}` of a pointer into the middle of a block"),
                )
                .with_label(format!("element {} of the block", p.offset))
                .with_help("delete the pointer `new` returned")
                .into());
        }
        let StorageKind::Heap { array: made_array } = storage.kind else {
            return Ok(());
        };
        if made_array != array {
            let (made, want) = if made_array {
                ("new[]", "delete[]")
            } else {
                ("new", "delete")
            };
            return Err(self
                .error(
                    codes::R0015,
                    span,
                    format!("`{form}` of memory allocated with `{made}`"),
                )
                .with_label(format!("use `{want}`"))
                .with_note("C++ leaves mixing the two forms undefined")
                .into());
        }
        storage.freed.set(true);
        Ok(())
    }

    /// True when `place`, the target of the pointer `ptr` being deleted, is
    /// the base subobject of the single object of a `new` allocation, and
    /// the base's destructor is virtual.
    fn deletes_through_base(&self, ptr: &Expr, place: &crate::value::Place) -> bool {
        let Root::Elem(storage, 0, _) = &place.root else {
            return false;
        };
        if !matches!(storage.kind, StorageKind::Heap { array: false }) || storage.len() != 1 {
            return false;
        }
        let Type::Ptr { elem, .. } = &ptr.ty else {
            return false;
        };
        let Type::Struct(class) = elem.as_ref() else {
            return false;
        };
        let Some(dynamic) = self.prog.dynamic.get(class) else {
            return false;
        };
        let virtual_dtor = dynamic
            .overriders
            .keys()
            .any(|f| self.prog.function(*f).name.contains("::~"));
        virtual_dtor && !place.path.is_empty() && place.path.iter().all(|&step| step == 0)
    }

    /// A pointer to the bytes of a string (a C string: the bytes, then 0).
    pub(crate) fn string_value_of(bytes: &[u8]) -> Value {
        Self::string_pointer(&Value::Str(Rc::new(bytes.to_vec())))
    }

    /// A string literal as a `const char*`.
    pub(crate) fn string_pointer(v: &Value) -> Value {
        match v {
            Value::Str(bytes) => Value::Ptr(Rc::new(Pointer {
                target: Target::Str(Rc::clone(bytes)),
                offset: 0,
                stamp: 0,
                generation: 0,
            })),
            other => other.clone(),
        }
    }

    /// The bytes a `char` pointer points to, up to the first zero: what
    /// `std::cout << p` prints. Checked like a read of each byte.
    pub(crate) fn c_string(&mut self, v: &Value, span: Span) -> Res<Vec<u8>> {
        let Value::Ptr(p) = v else {
            return Ok(Vec::new());
        };
        if let Target::Str(bytes) = &p.target
            && p.offset >= 0
            && (p.offset as usize) <= bytes.len()
        {
            let rest = &bytes[p.offset as usize..];
            let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            return Ok(rest[..end].to_vec());
        }
        let mut out = Vec::new();
        let mut q = (**p).clone();
        loop {
            if let Some(stop) = self.deref_error(&q, span, "printed through") {
                return Err(stop);
            }
            let place = self.deref_place(&Value::Ptr(Rc::new(q.clone())), span)?;
            let b = self.read(&place, span)?.int();
            if b == 0 {
                return Ok(out);
            }
            out.push(b as u8);
            self.tick(span)?;
            q.offset += 1;
        }
    }

    /// The values a pointer points to, up to the first zero (a `const
    /// wchar_t*`'s characters). Checked like a read of each element.
    pub(crate) fn zero_terminated(&mut self, v: &Value, span: Span) -> Res<Vec<i64>> {
        let Value::Ptr(p) = v else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let mut q = (**p).clone();
        loop {
            if let Some(stop) = self.deref_error(&q, span, "read through") {
                return Err(stop);
            }
            let place = self.deref_place(&Value::Ptr(Rc::new(q.clone())), span)?;
            let c = self.read(&place, span)?.int();
            if c == 0 {
                return Ok(out);
            }
            out.push(c);
            self.tick(span)?;
            q.offset += 1;
        }
    }

    /// `array_view<T, N> v(e, p)`: a view of the `e.size()` elements from
    /// `p` on, which must all be in `p`'s allocation.
    pub(crate) fn view_over_pointer(
        &mut self,
        v: &Value,
        dims: Vec<i64>,
        span: Span,
    ) -> Res<Value> {
        // C++ AMP checks for a null pointer and throws.
        let null = || {
            crate::device::runtime_exception(
                "Invalid pointer argument (NULL) to array_view constructor",
            )
        };
        let Value::Ptr(p) = v else {
            return Err(self
                .error(codes::R0013, span, "a view over a null pointer")
                .with_exception(null())
                .into());
        };
        let n = Machine::size_of(&dims);
        if let Some(stop) = self.deref_error(p, span, "a view over") {
            if matches!(p.target, Target::Null) {
                return Err(Box::new(stop.with_exception(null())));
            }
            return Err(stop);
        }
        let room = u64::try_from(p.len() - p.offset).unwrap_or(0);
        if room < n {
            return Err(self.too_small(span, n, room));
        }
        let offset = usize::try_from(p.offset).unwrap_or(0);
        let strides = row_major_strides(&dims);
        let data = match &p.target {
            Target::Storage(s) => ViewData::Storage(Rc::clone(s)),
            Target::Place {
                place, array: true, ..
            } => ViewData::Place(place.clone()),
            Target::Place { place, .. } => ViewData::Object(place.clone()),
            Target::Pun(pun) => {
                let data = ViewData::Pun(Machine::pun_from(pun, p.offset));
                return Ok(Value::View(View::new(data, 0, dims, strides)));
            }
            Target::Null | Target::Str(_) => {
                return Err(self
                    .error(
                        codes::R0007,
                        span,
                        "a view over a string literal is not supported",
                    )
                    .with_label("a string literal")
                    .with_help("copy the characters into a `std::vector` first")
                    .into());
            }
        };
        Ok(Value::View(View::new(data, offset, dims, strides)))
    }

    /// `v.data()`.
    /// The `n` elements from pointer `p` on, each read checked (a read past
    /// the allocation fails before a huge `n` is reached).
    pub(crate) fn read_pointed(&mut self, p: &Value, n: i64, span: Span) -> Res<Vec<Value>> {
        let mut data = Vec::with_capacity(n.clamp(0, 1 << 16) as usize);
        for k in 0..n {
            let at = self.ptr_add(p, k, span)?;
            let place = self.deref_place(&at, span)?;
            data.push(self.read(&place, span)?);
        }
        Ok(data)
    }

    /// Writes `values` to the elements from `p + start` on, each checked.
    pub(crate) fn write_pointed(
        &mut self,
        p: &Value,
        start: i64,
        values: impl IntoIterator<Item = Value>,
        span: Span,
    ) -> Res<()> {
        for (k, v) in (start..).zip(values) {
            let at = self.ptr_add(p, k, span)?;
            let place = self.deref_place(&at, span)?;
            self.write(&place, v, span)?;
        }
        Ok(())
    }

    pub(crate) fn vector_data(&mut self, args: &[Expr]) -> Res<Value> {
        let Some(arg) = args.first() else {
            return Ok(Pointer::null());
        };
        match self.eval(arg)? {
            Value::Vector(s) => Ok(Value::Ptr(Rc::new(Pointer {
                generation: s.generation(),
                target: Target::Storage(s),
                offset: 0,
                stamp: 0,
            }))),
            // An `array`'s or rank-1 view's `data()`: its first element.
            Value::View(view) => match &view.data {
                // An array the CPU may not access has no host data.
                crate::value::ViewData::Storage(s)
                    if matches!(arg.ty, tessera_ir::Type::Array(..))
                        && s.cpu_access.get() == tessera_ir::device::ACCESS_NONE =>
                {
                    Ok(Pointer::null())
                }
                crate::value::ViewData::Storage(s) => Ok(Value::Ptr(Rc::new(Pointer {
                    target: Target::Storage(Rc::clone(s)),
                    offset: view.offset as i64,
                    stamp: 0,
                    generation: s.generation(),
                }))),
                crate::value::ViewData::Pun(pun) => Ok(Value::Ptr(Rc::new(Pointer {
                    target: Target::Pun(Machine::pun_from(pun, view.offset as i64)),
                    offset: 0,
                    stamp: 0,
                    generation: 0,
                }))),
                crate::value::ViewData::Place(_) | crate::value::ViewData::Object(_) => Err(self
                    .error(
                        codes::R0007,
                        arg.span,
                        "`data()` of a view over a C array is not supported yet",
                    )
                    .with_label("a view over a C array")
                    .with_help("take the address of the array's first element instead: `&arr[0]`")
                    .into()),
            },
            _ => Ok(Pointer::null()),
        }
    }
}

/// `p` with its offset carried to its storage's present generation: the
/// element it pointed to may have moved since (see `Storage::follow`), or
/// gone.
pub(crate) fn follow(p: &Rc<Pointer>) -> Result<Rc<Pointer>, Lost> {
    if let Target::Storage(s) = &p.target
        && p.generation != s.generation()
    {
        let at = usize::try_from(p.offset).map_err(|_| Lost::Untracked)?;
        let mut q = (**p).clone();
        q.offset = s.follow(at, p.generation, false)? as i64;
        q.generation = s.generation();
        return Ok(Rc::new(q));
    }
    Ok(Rc::clone(p))
}

/// [`follow`] for a comparison, which C++ leaves to the implementation for
/// a pointer to a removed element: such a pointer stays where it was.
fn fresh(p: &Rc<Pointer>) -> Rc<Pointer> {
    follow(p).unwrap_or_else(|_| Rc::clone(p))
}

/// `v` moved by `n` elements (unchecked: callers check).
fn with_offset(v: Value, n: i64) -> Value {
    match v {
        Value::Ptr(p) if n != 0 => {
            let mut q = (*p).clone();
            q.offset += n;
            Value::Ptr(Rc::new(q))
        }
        other => other,
    }
}
