//! C++ object layout on LP64: sizes, alignments and field offsets.
//!
//! The interpreter lays data out this way when it hands a launch over, the
//! JIT's code reads it this way, and the checker sums `tile_static` memory
//! with it; one definition keeps them in step.

use crate::{StructDef, Type};

/// Struct nesting is finite in valid programs (a struct cannot contain
/// itself); this guards hand-built malformed ones, far above what a program
/// written by hand nests.
const MAX_DEPTH: u32 = 1024;

/// Size and alignment in bytes of a type with a plain memory layout
/// (scalars, indices, extents, structs and C arrays of those), computed
/// without bound: sizes past `u64::MAX` saturate. `None` for other types
/// (views, vectors, ...), for unknown struct ids and for nesting deeper
/// than any valid program has.
pub fn size_align_u64(structs: &[StructDef], ty: &Type) -> Option<(u64, u64)> {
    size_align_at(structs, ty, 0, false, &mut Vec::new())
}

/// Size and alignment as `sizeof` and `alignof` give them on LP64, also of
/// types holding pointers (8 bytes; a pointer to a member function 16, as
/// in the Itanium ABI g++ follows). Only for answering `sizeof`: a pointer
/// has no plain memory layout the engines could hand over, so
/// [`size_align_u64`] keeps refusing them.
pub fn sizeof_align_u64(structs: &[StructDef], ty: &Type) -> Option<(u64, u64)> {
    size_align_at(structs, ty, 0, true, &mut Vec::new())
}

/// A struct's size and alignment, by id, once computed in one walk: a
/// class used several times (two members of one type, nested again and
/// again) is laid out once, so the walk stays linear in the classes.
type Memo = Vec<Option<Option<(u64, u64)>>>;

fn size_align_at(
    structs: &[StructDef],
    ty: &Type,
    depth: u32,
    pointers: bool,
    memo: &mut Memo,
) -> Option<(u64, u64)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match ty {
        Type::FnPtr(sig) if pointers && sig.member_of.is_some() => Some((16, 8)),
        Type::Ptr { .. } | Type::Null | Type::FnPtr(_) if pointers => Some((8, 8)),
        Type::Scalar(s) => Some((u64::from(s.size()), u64::from(s.size()))),
        Type::Index(r) | Type::Extent(r) => Some((4 * u64::from(*r), 4)),
        Type::CArray(elem, n) => {
            let (size, align) = size_align_at(structs, elem, depth + 1, pointers, memo)?;
            Some((size.saturating_mul(u64::from(*n)), align))
        }
        Type::Struct(id) => {
            if let Some(Some(known)) = memo.get(id.index()) {
                return *known;
            }
            let def = structs.get(id.index())?;
            let mut at = 0u64;
            let mut align = 1u64;
            for (_, field_ty) in &def.fields {
                let (s, a) = size_align_at(structs, field_ty, depth + 1, pointers, memo)?;
                // A union's members overlap: it is as large as its largest.
                at = if def.is_union {
                    at.max(s)
                } else {
                    round_up(at, a).saturating_add(s)
                };
                align = align.max(a);
            }
            // C++ gives an empty struct size 1, so distinct objects have
            // distinct addresses.
            let answer = Some((round_up(at, align).max(1), align));
            if memo.len() <= id.index() {
                memo.resize(structs.len().max(id.index() + 1), None);
            }
            memo[id.index()] = Some(answer);
            answer
        }
        _ => None,
    }
}

fn round_up(n: u64, align: u64) -> u64 {
    match n % align.max(1) {
        0 => n,
        r => n.saturating_add(align - r),
    }
}

/// Size and alignment in bytes of a type with a plain memory layout whose
/// size fits in `u32` (the engines' buffers), or `None`.
pub fn size_align(structs: &[StructDef], ty: &Type) -> Option<(u32, u32)> {
    let (size, align) = size_align_u64(structs, ty)?;
    Some((u32::try_from(size).ok()?, u32::try_from(align).ok()?))
}

/// Byte offset of field `field` of struct type `ty` (`None` when `ty` is no
/// struct, has no such field, or does not fit [`size_align`]).
pub fn field_offset(structs: &[StructDef], ty: &Type, field: u32) -> Option<u32> {
    let Type::Struct(id) = ty else {
        return None;
    };
    let def = structs.get(id.index())?;
    if def.is_union {
        return (field < def.fields.len() as u32).then_some(0);
    }
    let mut at = 0u32;
    for (i, (_, f_ty)) in def.fields.iter().enumerate() {
        let (s, a) = size_align(structs, f_ty)?;
        at = at.checked_next_multiple_of(a)?;
        if i as u32 == field {
            return Some(at);
        }
        at = at.checked_add(s)?;
    }
    None
}

/// One scalar of an object's layout: where it is in the value (the field
/// and element positions) and in the bytes, and its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Field and element positions from the whole object to the scalar.
    pub path: Vec<u32>,
    /// Its first byte in the object.
    pub offset: u64,
    /// Its type.
    pub scalar: crate::Scalar,
}

/// The most scalars [`scalar_leaves`] lists: reading a type's bytes as
/// another's works scalar by scalar, and a type larger than this (a big C
/// array) is refused rather than listed.
pub const MAX_LEAVES: usize = 1 << 16;

/// The scalars an object of type `ty` is made of, in the order of their
/// bytes, or `None` when it has no plain layout, holds a union (whose
/// bytes depend on which member is alive) or more than [`MAX_LEAVES`]
/// scalars. Used to read the same bytes as another type (`reinterpret_as`,
/// `reinterpret_cast`).
pub fn scalar_leaves(structs: &[StructDef], ty: &Type) -> Option<Vec<Leaf>> {
    fn walk(
        structs: &[StructDef],
        ty: &Type,
        path: &mut Vec<u32>,
        at: u64,
        out: &mut Vec<Leaf>,
        depth: u32,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match ty {
            _ if out.len() >= MAX_LEAVES => return None,
            Type::Scalar(s) => out.push(Leaf {
                path: path.clone(),
                offset: at,
                scalar: *s,
            }),
            Type::Index(r) | Type::Extent(r) => {
                for i in 0..u32::from(*r) {
                    path.push(i);
                    walk(
                        structs,
                        &Type::INT,
                        path,
                        at + 4 * u64::from(i),
                        out,
                        depth + 1,
                    )?;
                    path.pop();
                }
            }
            Type::CArray(elem, n) => {
                // Also bounds the loop for elements without scalars.
                if *n as usize > MAX_LEAVES {
                    return None;
                }
                let (size, _) = size_align_at(structs, elem, depth + 1, false, &mut Vec::new())?;
                for i in 0..*n {
                    path.push(i);
                    let off = at.checked_add(size.checked_mul(u64::from(i))?)?;
                    walk(structs, elem, path, off, out, depth + 1)?;
                    path.pop();
                }
            }
            Type::Struct(id) => {
                let def = structs.get(id.index())?;
                if def.is_union {
                    return None;
                }
                let mut off = 0u64;
                for (i, (_, f)) in def.fields.iter().enumerate() {
                    let (s, a) = size_align_at(structs, f, depth + 1, false, &mut Vec::new())?;
                    off = round_up(off, a);
                    path.push(u32::try_from(i).ok()?);
                    walk(structs, f, path, at.checked_add(off)?, out, depth + 1)?;
                    path.pop();
                    off = off.saturating_add(s);
                }
            }
            _ => return None,
        }
        Some(())
    }
    let mut out = Vec::new();
    walk(structs, ty, &mut Vec::new(), 0, &mut out, 0)?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scalar, StructId};

    fn padded() -> Vec<StructDef> {
        vec![StructDef {
            name: "P".into(),
            fields: vec![
                ("c".into(), Type::Scalar(Scalar::Char)),
                ("d".into(), Type::Scalar(Scalar::Double)),
                ("i".into(), Type::Scalar(Scalar::Int)),
            ],
            is_union: false,
            span: tessera_diagnostics::Span::default(),
        }]
    }

    #[test]
    fn structs_are_padded_as_cpp_pads_them() {
        let structs = padded();
        let p = Type::Struct(StructId(0));
        assert_eq!(size_align(&structs, &p), Some((24, 8)));
        assert_eq!(field_offset(&structs, &p, 1), Some(8));
        assert_eq!(field_offset(&structs, &p, 2), Some(16));
        let arr = Type::CArray(Box::new(p), 3);
        assert_eq!(size_align(&structs, &arr), Some((72, 8)));
    }

    #[test]
    fn sizes_past_u32_saturate_in_u64_and_are_refused_in_u32() {
        let structs = padded();
        let big = Type::CArray(
            Box::new(Type::CArray(Box::new(Type::Struct(StructId(0))), 1 << 20)),
            1 << 20,
        );
        assert_eq!(size_align_u64(&structs, &big), Some((24 << 40, 8)));
        assert_eq!(size_align(&structs, &big), None);
        assert_eq!(size_align(&structs, &Type::Struct(StructId(5))), None);
        assert_eq!(size_align(&structs, &Type::Ostream), None);
    }

    #[test]
    fn a_union_is_as_large_as_its_largest_member() {
        let structs = vec![StructDef {
            name: "U".into(),
            fields: vec![
                (
                    "c".into(),
                    Type::CArray(Box::new(Type::Scalar(Scalar::Char)), 5),
                ),
                ("i".into(), Type::Scalar(Scalar::Int)),
            ],
            is_union: true,
            span: tessera_diagnostics::Span::default(),
        }];
        let u = Type::Struct(StructId(0));
        assert_eq!(size_align(&structs, &u), Some((8, 4)));
        assert_eq!(field_offset(&structs, &u, 1), Some(0));
    }

    #[test]
    fn an_empty_struct_has_size_one() {
        let structs = vec![StructDef {
            name: "E".into(),
            fields: vec![],
            is_union: false,
            span: tessera_diagnostics::Span::default(),
        }];
        assert_eq!(
            size_align(&structs, &Type::Struct(StructId(0))),
            Some((1, 1))
        );
    }

    #[test]
    fn leaves_follow_the_padded_layout() {
        let structs = padded();
        let leaves = scalar_leaves(&structs, &Type::Struct(StructId(0)))
            .expect("a padded struct has a plain layout");
        let offsets: Vec<u64> = leaves.iter().map(|l| l.offset).collect();
        assert_eq!(offsets, vec![0, 8, 16]);
        assert_eq!(leaves[2].path, vec![2]);
        assert_eq!(scalar_leaves(&structs, &Type::Ostream), None);
    }
}
