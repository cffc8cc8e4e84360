//! Memory read as another type: `a.reinterpret_as<U>()` and
//! `reinterpret_cast<U*>(p)`.
//!
//! A pun ([`Pun`]) keeps the memory as it is (its elements and their type)
//! and the type it is read as. Reading a `U` scalar at a byte gathers the
//! bytes of the element scalars that hold it, in C++ layout and
//! little-endian order, each read through [`Machine::read`] (so `--check`
//! sees the access, as it sees any element access); writing
//! one changes those scalars' bytes and nothing else. Both directions are
//! exact bit for bit; what has no exact answer is refused when it happens:
//! bytes that no scalar holds (padding) and a `bool` byte other than 0 or 1.

use crate::machine::{Machine, Res};
use crate::value::{Pointer, Pun, Shape, Target, Value, View, ViewData};
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Expr, Scalar, Type, layout};

/// The bytes of a scalar value of type `s`, little-endian (a value not yet
/// written reads as zero bytes, as the interpreter reads it as 0).
fn scalar_bytes(v: &Value, s: Scalar) -> [u8; 8] {
    match (v, s) {
        (Value::Float(f), _) => u64::from(f.to_bits()).to_le_bytes(),
        (Value::Double(d), _) => d.to_bits().to_le_bytes(),
        (Value::Bool(b), _) => u64::from(*b).to_le_bytes(),
        (Value::Int(i), _) => (*i as u64).to_le_bytes(),
        _ => [0; 8],
    }
}

/// The value of type `s` whose bytes are the first `s.size()` of `bytes`;
/// `None` for a `bool` byte that is neither 0 nor 1.
fn scalar_value(bytes: [u8; 8], s: Scalar) -> Option<Value> {
    let size = s.size();
    let raw = u64::from_le_bytes(bytes);
    let bits = if size >= 8 {
        raw
    } else {
        raw & ((1u64 << (8 * size)) - 1)
    };
    Some(match s {
        Scalar::Bool => match bits {
            0 => Value::Bool(false),
            1 => Value::Bool(true),
            _ => return None,
        },
        Scalar::Float => Value::Float(f32::from_bits(bits as u32)),
        Scalar::Double => Value::Double(f64::from_bits(bits)),
        s if s.is_unsigned() || size >= 8 => Value::Int(bits as i64),
        _ => {
            // Sign-extend from the type's width.
            let shift = 64 - 8 * size;
            Value::Int(((bits << shift) as i64) >> shift)
        }
    })
}

impl Machine<'_> {
    /// The scalars of `ty`, or the error for a type whose bytes cannot be
    /// read (the checker refuses those where it sees them).
    fn shape(&self, ty: &Type, span: Span) -> Res<Rc<Shape>> {
        let structs = &self.prog.structs;
        let size = layout::size_align_u64(structs, ty).map(|(s, _)| s);
        match (size, layout::scalar_leaves(structs, ty)) {
            (Some(size), Some(leaves)) if size > 0 => Ok(Rc::new(Shape {
                ty: ty.clone(),
                size,
                leaves,
            })),
            _ => {
                let shown = tessera_ir::display(ty, structs);
                Err(self
                    .error(
                        codes::R0024,
                        span,
                        format!("the bytes of `{shown}` cannot be read as another type"),
                    )
                    .with_label("reinterpreted here")
                    .into())
            }
        }
    }

    /// A pointer to the bytes of `mem` (elements `elem`) from byte `byte`
    /// on, read as `ty`: a plain pointer when that is what it is.
    fn pun_pointer(mem: Target, elem: Rc<Shape>, ty: Rc<Shape>, byte: u64) -> Value {
        if ty.ty == elem.ty && byte.is_multiple_of(elem.size) {
            let generation = mem.generation();
            return Value::Ptr(Rc::new(Pointer {
                target: mem,
                offset: (byte / elem.size) as i64,
                stamp: 0,
                generation,
            }));
        }
        Value::Ptr(Rc::new(Pointer {
            target: Target::Pun(Rc::new(Pun {
                mem,
                elem,
                ty,
                base: byte,
            })),
            offset: 0,
            stamp: 0,
            generation: 0,
        }))
    }

    /// `reinterpret_cast<U*>(p)`: `e` is the cast, its one argument `p`.
    pub(crate) fn reinterpret_pointer(&mut self, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let v = self.eval(&args[0])?;
        let Value::Ptr(p) = &v else {
            return Ok(v);
        };
        let (Some(to), Some(from)) = (e.ty.pointee(), args[0].ty.pointee()) else {
            return Ok(v);
        };
        match &p.target {
            Target::Null => Ok(v.clone()),
            Target::Pun(pun) => {
                let u = self.shape(to, span)?;
                let byte =
                    (pun.base as i64).saturating_add(p.offset.saturating_mul(pun.ty.size as i64));
                Ok(Self::pun_pointer(
                    pun.mem.clone(),
                    Rc::clone(&pun.elem),
                    u,
                    u64::try_from(byte).unwrap_or(0),
                ))
            }
            target => {
                if from == to {
                    return Ok(v.clone());
                }
                let t = self.shape(from, span)?;
                let u = self.shape(to, span)?;
                let byte = u64::try_from(p.offset).unwrap_or(0).saturating_mul(t.size);
                Ok(Self::pun_pointer(target.clone(), t, u, byte))
            }
        }
    }

    /// A pointer to the pun object a place names (`&v[i]` of a view made
    /// by `reinterpret_as`), so that arithmetic on it moves through the
    /// memory as on any array.
    pub(crate) fn pun_address(pun: &Rc<Pun>, byte: u64) -> Value {
        Value::Ptr(Rc::new(Pointer {
            target: Target::Pun(Rc::new(Pun {
                mem: pun.mem.clone(),
                elem: Rc::clone(&pun.elem),
                ty: Rc::clone(&pun.ty),
                base: byte,
            })),
            offset: 0,
            stamp: 0,
            generation: 0,
        }))
    }

    /// The view of a pun pointer's memory from offset `offset` on.
    pub(crate) fn pun_from(pun: &Pun, offset: i64) -> Rc<Pun> {
        let byte = (pun.base as i64).saturating_add(offset.saturating_mul(pun.ty.size as i64));
        Rc::new(Pun {
            mem: pun.mem.clone(),
            elem: Rc::clone(&pun.elem),
            ty: Rc::clone(&pun.ty),
            base: u64::try_from(byte).unwrap_or(0),
        })
    }

    /// `a.reinterpret_as<U>()`: `e` is the call, its one argument `a`.
    pub(crate) fn reinterpret_view(&mut self, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let v = self.eval(&args[0])?;
        let Value::View(view) = &v else {
            return Err(self.error(codes::R0007, span, "this view has no data"));
        };
        let (Type::Array(from, _) | Type::ArrayView { elem: from, .. }) = &args[0].ty else {
            return Ok(v.clone());
        };
        let Type::ArrayView { elem: to, .. } = &e.ty else {
            return Ok(v.clone());
        };
        let u = self.shape(to, span)?;
        // The elements must be one run of memory: an `array` is, and so is
        // a rank-1 view unless it steps over elements.
        if view.strides != crate::value::row_major_strides(&view.extent) {
            return Err(self
                .error(
                    codes::R0007,
                    span,
                    "`reinterpret_as` of a view whose elements are not contiguous",
                )
                .with_label("not one run of memory")
                .into());
        }
        let n = view.size() as u64;
        let (mem, elem, base, size) = match &view.data {
            ViewData::Pun(p) => (
                p.mem.clone(),
                Rc::clone(&p.elem),
                p.base
                    .saturating_add((view.offset as u64).saturating_mul(p.ty.size)),
                p.ty.size,
            ),
            data => {
                let t = self.shape(from, span)?;
                let base = (view.offset as u64).saturating_mul(t.size);
                let size = t.size;
                let mem = match data {
                    ViewData::Storage(s) => Target::Storage(Rc::clone(s)),
                    ViewData::Place(p) => Target::Place {
                        place: p.clone(),
                        array: true,
                        len: u32::try_from(view.offset as u64 + n).unwrap_or(u32::MAX),
                        generation: self.root_generation(&p.root),
                    },
                    ViewData::Object(p) => Target::Place {
                        place: p.clone(),
                        array: false,
                        len: 1,
                        generation: self.root_generation(&p.root),
                    },
                    ViewData::Pun(_) => return Ok(v.clone()),
                };
                (mem, t, base, size)
            }
        };
        let bytes = n.saturating_mul(size);
        // On the host amp.h checks that the bytes make whole elements; amp
        // code cannot throw and keeps the whole elements there are.
        if !bytes.is_multiple_of(u.size) && !self.in_kernel {
            let shown = tessera_ir::display(to, &self.prog.structs);
            return Err(self
                .error(
                    codes::R0007,
                    span,
                    format!(
                        "`reinterpret_as<{shown}>` of {bytes} bytes: they do not divide into elements of {} bytes",
                        u.size
                    ),
                )
                .with_label("not a whole number of elements")
                .with_exception(tessera_runtime::LibraryException {
                    class: "runtime_exception",
                    what: "Element type of reinterpret_as does not evenly divide into extent"
                        .into(),
                    code: 0x8007_0057,
                })
                .into());
        }
        let count = (bytes / u.size) as i64;
        let pun = Rc::new(Pun {
            mem,
            elem,
            ty: u,
            base,
        });
        Ok(Value::View(View::new(
            ViewData::Pun(pun),
            0,
            vec![count],
            vec![1],
        )))
    }

    /// The type and first byte of the part `path` names of the pun object
    /// at `byte`.
    fn pun_part(&self, pun: &Pun, byte: u64, path: &[u32]) -> Option<(Type, u64)> {
        let structs = &self.prog.structs;
        let mut ty = pun.ty.ty.clone();
        let mut at = byte;
        for &i in path {
            let (next, off) = match &ty {
                Type::Struct(id) => {
                    let def = structs.get(id.index())?;
                    let f = def.fields.get(i as usize)?.1.clone();
                    (f, u64::from(layout::field_offset(structs, &ty, i)?))
                }
                Type::CArray(elem, _) => {
                    let (size, _) = layout::size_align_u64(structs, elem)?;
                    ((**elem).clone(), size.checked_mul(u64::from(i))?)
                }
                Type::Index(_) | Type::Extent(_) => (Type::INT, 4 * u64::from(i)),
                _ => return None,
            };
            ty = next;
            at = at.checked_add(off)?;
        }
        Some((ty, at))
    }

    /// Reads the part `path` of the pun object at `byte`.
    pub(crate) fn pun_read(
        &mut self,
        pun: &Rc<Pun>,
        byte: u64,
        path: &[u32],
        span: Span,
    ) -> Res<Value> {
        let Some((ty, at)) = self.pun_part(pun, byte, path) else {
            return Ok(Value::Uninit);
        };
        self.pun_build(pun, &ty, at, span)
    }

    fn pun_build(&mut self, pun: &Rc<Pun>, ty: &Type, at: u64, span: Span) -> Res<Value> {
        let structs = &self.prog.structs;
        let parts: Vec<(Type, u64)> = match ty {
            Type::Scalar(s) => {
                let bytes = self.pun_bytes(pun, at, s.size(), span)?;
                return match scalar_value(bytes, *s) {
                    Some(v) => Ok(v),
                    None => Err(self
                        .error(
                            codes::R0024,
                            span,
                            format!("read a `bool` whose byte is {}, neither 0 nor 1", bytes[0]),
                        )
                        .with_label("not a `bool`")
                        .with_note("C++ leaves reading such a byte as a `bool` undefined")
                        .into()),
                };
            }
            Type::Struct(id) => {
                let Some(def) = structs.get(id.index()) else {
                    return Ok(Value::Uninit);
                };
                let mut parts = Vec::with_capacity(def.fields.len());
                for (i, (_, f)) in def.fields.iter().enumerate() {
                    let off = layout::field_offset(structs, ty, i as u32).unwrap_or(0);
                    parts.push((f.clone(), at + u64::from(off)));
                }
                parts
            }
            Type::CArray(elem, n) => {
                let size = layout::size_align_u64(structs, elem).map_or(0, |(s, _)| s);
                (0..u64::from(*n))
                    .map(|i| ((**elem).clone(), at + i * size))
                    .collect()
            }
            Type::Index(r) | Type::Extent(r) => (0..u64::from(*r))
                .map(|i| (Type::INT, at + 4 * i))
                .collect(),
            _ => return Ok(Value::Uninit),
        };
        let mut items = Vec::with_capacity(parts.len());
        for (t, off) in parts {
            items.push(self.pun_build(pun, &t, off, span)?);
        }
        if let Type::CArray(elem, _) = ty {
            return Ok(Value::array(elem, items));
        }
        Ok(Value::Agg(Rc::new(items)))
    }

    /// Writes `v` into the part `path` of the pun object at `byte`.
    pub(crate) fn pun_write(
        &mut self,
        pun: &Rc<Pun>,
        byte: u64,
        path: &[u32],
        v: &Value,
        span: Span,
    ) -> Res<()> {
        let Some((ty, at)) = self.pun_part(pun, byte, path) else {
            return Ok(());
        };
        self.pun_store(pun, &ty, at, v, span)
    }

    fn pun_store(&mut self, pun: &Rc<Pun>, ty: &Type, at: u64, v: &Value, span: Span) -> Res<()> {
        if let Type::Scalar(s) = ty {
            if matches!(v, Value::Uninit) {
                return Ok(());
            }
            let bytes = scalar_bytes(v, *s);
            return self.pun_put(pun, at, &bytes[..s.size() as usize], span);
        }
        if !matches!(v, Value::Agg(_) | Value::Scalars(_)) {
            return Ok(());
        }
        let structs = &self.prog.structs;
        let parts: Vec<(Type, u64)> = match ty {
            Type::Struct(id) => match structs.get(id.index()) {
                Some(def) => def
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, (_, f))| {
                        let off = layout::field_offset(structs, ty, i as u32).unwrap_or(0);
                        (f.clone(), at + u64::from(off))
                    })
                    .collect(),
                None => Vec::new(),
            },
            Type::CArray(elem, n) => {
                let size = layout::size_align_u64(structs, elem).map_or(0, |(s, _)| s);
                (0..u64::from(*n))
                    .map(|i| ((**elem).clone(), at + i * size))
                    .collect()
            }
            Type::Index(r) | Type::Extent(r) => (0..u64::from(*r))
                .map(|i| (Type::INT, at + 4 * i))
                .collect(),
            _ => Vec::new(),
        };
        for ((t, off), item) in parts.into_iter().zip(v.parts()) {
            self.pun_store(pun, &t, off, &item, span)?;
        }
        Ok(())
    }

    /// The place of element `k` of the pun's memory, checked like `*p`.
    fn pun_elem(&mut self, pun: &Pun, k: u64, span: Span) -> Res<crate::value::Place> {
        let p = Value::Ptr(Rc::new(Pointer {
            target: pun.mem.clone(),
            offset: i64::try_from(k).unwrap_or(i64::MAX),
            stamp: 0,
            generation: pun.mem.generation(),
        }));
        self.deref_place(&p, span)
    }

    /// The element scalars that overlap bytes `at..at + n` of the memory:
    /// each one's place, type and first byte.
    fn pun_cover(
        &mut self,
        pun: &Pun,
        at: u64,
        n: u64,
        span: Span,
    ) -> Res<Vec<(crate::value::Place, Scalar, u64)>> {
        let es = pun.elem.size;
        let end = at.saturating_add(n);
        if end > pun.total() {
            let total = pun.total();
            return Err(self
                .error(
                    codes::R0001,
                    span,
                    format!("read bytes {at} to {} of memory that has {total}", end - 1),
                )
                .with_label("past the end of the memory")
                .into());
        }
        let mut out = Vec::new();
        for k in at / es..=(end - 1) / es {
            let place = self.pun_elem(pun, k, span)?;
            let first = k * es;
            for leaf in &pun.elem.leaves {
                let lo = first + leaf.offset;
                let hi = lo + u64::from(leaf.scalar.size());
                if hi <= at || lo >= end {
                    continue;
                }
                let mut p = place.clone();
                p.path.extend(leaf.path.iter().copied());
                out.push((p, leaf.scalar, lo));
            }
        }
        Ok(out)
    }

    /// Bytes `at..at + n` (`n` at most 8) of the memory.
    fn pun_bytes(&mut self, pun: &Pun, at: u64, n: u32, span: Span) -> Res<[u8; 8]> {
        let n = u64::from(n);
        let mut out = [0u8; 8];
        let mut covered = 0u32;
        for (place, s, lo) in self.pun_cover(pun, at, n, span)? {
            let v = self.read(&place, span)?;
            let bytes = scalar_bytes(&v, s);
            let hi = lo + u64::from(s.size());
            for b in lo.max(at)..hi.min(at + n) {
                out[(b - at) as usize] = bytes[(b - lo) as usize];
                covered |= 1 << (b - at);
            }
        }
        if covered != (1u32 << n) - 1 {
            let shown = tessera_ir::display(&pun.elem.ty, &self.prog.structs);
            return Err(self
                .error(
                    codes::R0024,
                    span,
                    format!("read padding bytes of `{shown}` as a value"),
                )
                .with_label("these bytes hold no value")
                .with_note("the bytes between the members of a struct are padding; C++ leaves their values unspecified")
                .into());
        }
        Ok(out)
    }

    /// Writes `bytes` at byte `at` of the memory: each element scalar under
    /// them takes their part, keeping its other bytes.
    fn pun_put(&mut self, pun: &Pun, at: u64, bytes: &[u8], span: Span) -> Res<()> {
        let n = bytes.len() as u64;
        for (place, s, lo) in self.pun_cover(pun, at, n, span)? {
            let hi = lo + u64::from(s.size());
            let mut cur = if lo >= at && hi <= at + n {
                [0u8; 8]
            } else {
                let v = self.read(&place, span)?;
                scalar_bytes(&v, s)
            };
            for b in lo.max(at)..hi.min(at + n) {
                cur[(b - lo) as usize] = bytes[(b - at) as usize];
            }
            let Some(v) = scalar_value(cur, s) else {
                return Err(self
                    .error(
                        codes::R0024,
                        span,
                        format!(
                            "wrote byte {} into a `bool`, which holds only 0 or 1",
                            cur[0]
                        ),
                    )
                    .with_label("not a `bool`")
                    .into());
            };
            self.write(&place, v, span)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: Value, s: Scalar) -> Option<Value> {
        scalar_value(scalar_bytes(&v, s), s)
    }

    #[test]
    fn scalars_keep_their_bits() {
        assert!(matches!(
            round_trip(Value::Int(-2), Scalar::Int),
            Some(Value::Int(-2))
        ));
        assert!(matches!(
            round_trip(Value::Int(0xffff_fffe), Scalar::UInt),
            Some(Value::Int(0xffff_fffe))
        ));
        assert!(matches!(
            round_trip(Value::Int(-1), Scalar::Long),
            Some(Value::Int(-1))
        ));
        let bytes = scalar_bytes(&Value::Float(1.5), Scalar::Float);
        assert!(matches!(
            scalar_value(bytes, Scalar::Int),
            Some(Value::Int(0x3fc0_0000))
        ));
        // The high word of a double, read as an int, is sign-extended.
        let d = scalar_bytes(&Value::Double(-2.25), Scalar::Double);
        let mut high = [0u8; 8];
        high[..4].copy_from_slice(&d[4..]);
        assert!(matches!(
            scalar_value(high, Scalar::Int),
            Some(Value::Int(v)) if v == i64::from(0xc002_0000u32 as i32)
        ));
    }

    #[test]
    fn only_0_and_1_are_bools() {
        assert!(matches!(
            scalar_value([1, 0, 0, 0, 0, 0, 0, 0], Scalar::Bool),
            Some(Value::Bool(true))
        ));
        assert!(scalar_value([2, 0, 0, 0, 0, 0, 0, 0], Scalar::Bool).is_none());
    }
}
