//! C++ object layout on LP64: sizes, alignments and field offsets.
//!
//! The interpreter lays data out this way when it hands a launch over, and
//! the JIT's code reads it this way; one definition keeps them in step.

use tessera_ir::{StructDef, Type};

/// Size and alignment in bytes of a type with a plain memory layout
/// (scalars, indices, extents, structs and C arrays of those), or `None`.
pub fn size_align(structs: &[StructDef], ty: &Type) -> Option<(u32, u32)> {
    match ty {
        Type::Scalar(s) => Some((s.size(), s.size())),
        Type::Index(r) | Type::Extent(r) => Some((4 * u32::from(*r), 4)),
        Type::CArray(elem, n) => {
            let (size, align) = size_align(structs, elem)?;
            Some((size.checked_mul(*n)?, align))
        }
        Type::Struct(id) => {
            let def = structs.get(id.0 as usize)?;
            let mut at = 0u32;
            let mut align = 1u32;
            for (_, field_ty) in &def.fields {
                let (s, a) = size_align(structs, field_ty)?;
                at = at.checked_next_multiple_of(a)?;
                at = at.checked_add(s)?;
                align = align.max(a);
            }
            Some((at.checked_next_multiple_of(align)?.max(1), align))
        }
        _ => None,
    }
}

/// Byte offset of field `field` of struct type `ty`.
pub fn field_offset(structs: &[StructDef], ty: &Type, field: u32) -> Option<u32> {
    let Type::Struct(id) = ty else {
        return None;
    };
    let def = structs.get(id.0 as usize)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_ir::{Scalar, StructId};

    #[test]
    fn structs_are_padded_as_cpp_pads_them() {
        let span = tessera_diagnostics::Span::default();
        let structs = vec![StructDef {
            name: "P".into(),
            fields: vec![
                ("c".into(), Type::Scalar(Scalar::Char)),
                ("d".into(), Type::Scalar(Scalar::Double)),
                ("i".into(), Type::Scalar(Scalar::Int)),
            ],
            span,
        }];
        let p = Type::Struct(StructId(0));
        assert_eq!(size_align(&structs, &p), Some((24, 8)));
        assert_eq!(field_offset(&structs, &p, 1), Some(8));
        assert_eq!(field_offset(&structs, &p, 2), Some(16));
        let arr = Type::CArray(Box::new(p), 3);
        assert_eq!(size_align(&structs, &arr), Some((72, 8)));
    }
}
