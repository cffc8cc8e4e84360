//! Objects of one type between values and bytes: records.
//!
//! A [`RecordShape`] is a struct or C array type without unions with the
//! offset of every part worked out once. A storage of records
//! (`value::Elems::Records`: a `std::vector<float_4>`, an `array` of a
//! point struct) keeps its elements as bytes in C++ layout and reads or
//! writes one part of one element through the shape; a launch's hand-off
//! converts objects of other storages and places through it, where the
//! general writer and reader (`offload::write_object`, `read_object`)
//! worked out each field's offset again for every element (about 1,500
//! instructions an element of a million `float_4`s). Types with unions
//! take the general path: their bytes also need their tags.
//!
//! Reading through a shape gives what `read_object` gives; writing gives
//! the bytes `write_object` gives in a fresh (zero) buffer, and writes
//! zeros for a never-written part, so that it also overwrites an element.

use crate::offload::bits;
use crate::value::{ScalarArray, Value};
use std::rc::Rc;
use tessera_ir::{Scalar, StructDef, Type};
use tessera_runtime::launch::{Bits, Buffer};
use tessera_runtime::layout::{field_offset, size_align};

/// The deepest type a shape is made for (a deeper one takes the general
/// path; no real program comes near).
const MAX_DEPTH: u32 = 64;

/// A type without unions, with the offset of every part worked out.
#[derive(Debug)]
pub(crate) enum RecordShape {
    /// A scalar.
    Scalar(Scalar),
    /// An `index` or `extent` of this rank: `int`s, one per dimension.
    Dims(u8),
    /// A struct: each field's offset and shape, in order.
    Struct(Vec<(usize, RecordShape)>),
    /// A C array of scalars, copied as bytes.
    Scalars(Scalar, usize),
    /// A C array of anything else: its element type, the element's size,
    /// shape and count.
    Array(Type, usize, Box<RecordShape>, usize),
}

impl RecordShape {
    /// The shape of `ty`, or `None` when it holds a union or anything
    /// without a plain layout.
    pub(crate) fn of(structs: &[StructDef], ty: &Type) -> Option<RecordShape> {
        Self::at_depth(structs, ty, 0)
    }

    fn at_depth(structs: &[StructDef], ty: &Type, depth: u32) -> Option<RecordShape> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match ty {
            Type::Scalar(s) => RecordShape::Scalar(*s),
            Type::Index(r) | Type::Extent(r) => RecordShape::Dims(*r),
            Type::Struct(id) => {
                let def = structs.get(id.index())?;
                if def.is_union {
                    return None;
                }
                let mut fields = Vec::with_capacity(def.fields.len());
                for (k, (_, fty)) in def.fields.iter().enumerate() {
                    let off = field_offset(structs, ty, u32::try_from(k).ok()?)?;
                    fields.push((off as usize, Self::at_depth(structs, fty, depth + 1)?));
                }
                RecordShape::Struct(fields)
            }
            Type::CArray(elem, n) => match **elem {
                Type::Scalar(s) => RecordShape::Scalars(s, *n as usize),
                _ => {
                    let (size, _) = size_align(structs, elem)?;
                    let shape = Self::at_depth(structs, elem, depth + 1)?;
                    RecordShape::Array(
                        (**elem).clone(),
                        size as usize,
                        Box::new(shape),
                        *n as usize,
                    )
                }
            },
            _ => return None,
        })
    }

    /// Writes `v` at byte `at` of `buffer`, as `write_object` does.
    pub(crate) fn write(&self, buffer: &mut Buffer, at: usize, v: &Value) -> Option<()> {
        match self {
            RecordShape::Scalar(s) => {
                let b = match (bits(v)?, s.is_floating()) {
                    // An integer zero in a floating-point place: zero bits
                    // of that type.
                    (Bits::Int(0), true) if *s == Scalar::Float => Bits::Float(0.0),
                    (Bits::Int(0), true) => Bits::Double(0.0),
                    (b, _) => b,
                };
                buffer.set_at(at, *s, b);
            }
            RecordShape::Dims(_) => {
                for (k, d) in v.dims().iter().enumerate() {
                    buffer.set_at(at + 4 * k, Scalar::Int, Bits::Int(*d));
                }
            }
            RecordShape::Struct(fields) => {
                let Value::Agg(values) = v else {
                    // Never written: zero bytes.
                    return matches!(v, Value::Uninit).then(|| self.zero(buffer, at));
                };
                for ((off, shape), fv) in fields.iter().zip(values.iter()) {
                    shape.write(buffer, at + off, fv)?;
                }
            }
            RecordShape::Scalars(s, n) => {
                if let Value::Scalars(a) = v
                    && a.scalar() == *s
                    && a.len() == *n
                {
                    buffer.copy_bytes(at, a.words(), 0, n * s.size() as usize);
                    return Some(());
                }
                self.write_parts(buffer, at, v, s.size() as usize, &RecordShape::Scalar(*s))?;
            }
            RecordShape::Array(_, size, shape, _) => {
                self.write_parts(buffer, at, v, *size, shape)?
            }
        }
        Some(())
    }

    /// Writes the elements of C array `v`, `size` bytes apart.
    fn write_parts(
        &self,
        buffer: &mut Buffer,
        at: usize,
        v: &Value,
        size: usize,
        elem: &RecordShape,
    ) -> Option<()> {
        if !matches!(v, Value::Agg(_) | Value::Scalars(_)) {
            return matches!(v, Value::Uninit).then(|| self.zero(buffer, at));
        }
        for (k, item) in v.parts().enumerate() {
            elem.write(buffer, at + k * size, &item)?;
        }
        Some(())
    }

    /// Zero bytes for the whole object at byte `at`: every scalar zero.
    fn zero(&self, buffer: &mut Buffer, at: usize) {
        match self {
            RecordShape::Scalar(s) => buffer.set_at(at, *s, zero_bits(*s)),
            RecordShape::Dims(r) => {
                for k in 0..usize::from(*r) {
                    buffer.set_at(at + 4 * k, Scalar::Int, Bits::Int(0));
                }
            }
            RecordShape::Struct(fields) => {
                for (off, shape) in fields {
                    shape.zero(buffer, at + off);
                }
            }
            RecordShape::Scalars(s, n) => {
                for k in 0..*n {
                    buffer.set_at(at + k * s.size() as usize, *s, zero_bits(*s));
                }
            }
            RecordShape::Array(_, size, shape, n) => {
                for k in 0..*n {
                    shape.zero(buffer, at + k * size);
                }
            }
        }
    }

    /// The part of an object at byte `at` that `path` (field and element
    /// positions, as [`crate::value::read_path`] takes them) leads to: its
    /// shape and first byte, or `None` when the path leads nowhere. An
    /// element of a C array of scalars, or of an `index`, is a scalar.
    pub(crate) fn part(&self, at: usize, path: &[u32]) -> Option<(Part<'_>, usize)> {
        let Some((&i, rest)) = path.split_first() else {
            return Some((Part::Whole(self), at));
        };
        let i = i as usize;
        match self {
            RecordShape::Struct(fields) => {
                let (off, shape) = fields.get(i)?;
                shape.part(at + off, rest)
            }
            RecordShape::Array(_, size, shape, n) if i < *n => shape.part(at + i * size, rest),
            RecordShape::Scalars(s, n) if i < *n && rest.is_empty() => {
                Some((Part::Scalar(*s), at + i * s.size() as usize))
            }
            RecordShape::Dims(r) if i < usize::from(*r) && rest.is_empty() => {
                Some((Part::Scalar(Scalar::Int), at + 4 * i))
            }
            _ => None,
        }
    }

    /// The value at byte `at` of `buffer`, as `read_object` reads it.
    pub(crate) fn read(&self, buffer: &Buffer, at: usize) -> Option<Value> {
        Some(match self {
            RecordShape::Scalar(s) => match buffer.get_at(at, *s)? {
                Bits::Bool(b) => Value::Bool(b),
                Bits::Int(n) => Value::Int(n),
                Bits::Float(f) => Value::Float(f),
                Bits::Double(d) => Value::Double(d),
            },
            RecordShape::Dims(r) => Value::shape(
                (0..usize::from(*r))
                    .map(|k| match buffer.get_at(at + 4 * k, Scalar::Int) {
                        Some(Bits::Int(n)) => n,
                        _ => 0,
                    })
                    .collect::<Vec<i64>>(),
            ),
            RecordShape::Struct(fields) => {
                let mut values = Vec::with_capacity(fields.len());
                for (off, shape) in fields {
                    values.push(shape.read(buffer, at + off)?);
                }
                Value::Agg(Rc::new(values))
            }
            RecordShape::Scalars(s, n) => {
                Value::Scalars(Rc::new(ScalarArray::from_bytes(*s, *n, buffer, at)?))
            }
            RecordShape::Array(elem, size, shape, n) => {
                let mut items = Vec::with_capacity(*n);
                for k in 0..*n {
                    items.push(shape.read(buffer, at + k * size)?);
                }
                Value::array(elem, items)
            }
        })
    }

    /// Reads the value at byte `at` of `buffer` into `slot`, as
    /// [`RecordShape::read`] reads it, reusing the memory of the value `slot`
    /// holds where it is of the same shape and not shared: after a launch,
    /// the elements of a vector of structs are read back without an
    /// allocation each. On `None` (bytes that do not read as this shape,
    /// which a buffer made for it never holds) `slot` may be partly
    /// written.
    pub(crate) fn read_into(&self, buffer: &Buffer, at: usize, slot: &mut Value) -> Option<()> {
        match (self, &mut *slot) {
            (RecordShape::Struct(fields), Value::Agg(values)) => {
                if let Some(values) = Rc::get_mut(values)
                    && values.len() == fields.len()
                {
                    for ((off, shape), v) in fields.iter().zip(values.iter_mut()) {
                        shape.read_into(buffer, at + off, v)?;
                    }
                    return Some(());
                }
            }
            (RecordShape::Array(_, size, shape, n), Value::Agg(items)) => {
                if let Some(items) = Rc::get_mut(items)
                    && items.len() == *n
                {
                    for (k, v) in items.iter_mut().enumerate() {
                        shape.read_into(buffer, at + k * size, v)?;
                    }
                    return Some(());
                }
            }
            (RecordShape::Scalars(s, n), Value::Scalars(a)) => {
                if let Some(a) = Rc::get_mut(a)
                    && a.copy_from_bytes(*s, *n, buffer, at)
                {
                    return Some(());
                }
            }
            _ => {}
        }
        *slot = self.read(buffer, at)?;
        Some(())
    }
}

/// What a path inside an object leads to (see [`RecordShape::part`]).
pub(crate) enum Part<'s> {
    /// A whole object of this shape.
    Whole(&'s RecordShape),
    /// A scalar element of a C array or an `index`.
    Scalar(Scalar),
}

impl Part<'_> {
    /// Its value at byte `at` of `buffer`.
    pub(crate) fn read(&self, buffer: &Buffer, at: usize) -> Option<Value> {
        match self {
            Part::Whole(shape) => shape.read(buffer, at),
            Part::Scalar(s) => RecordShape::Scalar(*s).read(buffer, at),
        }
    }

    /// Writes `v` there; `None` (perhaps partly written) when `v` is no
    /// value of this shape.
    pub(crate) fn write(&self, buffer: &mut Buffer, at: usize, v: &Value) -> Option<()> {
        match self {
            Part::Whole(shape) => shape.write(buffer, at, v),
            Part::Scalar(s) => RecordShape::Scalar(*s).write(buffer, at, v),
        }
    }
}

/// Zero of type `s`, as a buffer stores it.
fn zero_bits(s: Scalar) -> Bits {
    match s {
        Scalar::Bool => Bits::Bool(false),
        Scalar::Float => Bits::Float(0.0),
        Scalar::Double => Bits::Double(0.0),
        _ => Bits::Int(0),
    }
}
