//! How values of the typed program sit in Cranelift values and in memory.
//!
//! Scalars are one Cranelift value of their width (`bool` is an `i8` holding
//! 0 or 1). In memory (structs, C arrays, `tile_static` variables, captured
//! buffers) everything is laid out as C++ lays it out on LP64, so a buffer
//! the interpreter hands over is read as it is.

use cranelift_codegen::ir::types;
use tessera_ir::{Program, Scalar, Type};

/// The Cranelift type of a scalar.
pub(crate) fn clif_type(s: Scalar) -> types::Type {
    match s {
        Scalar::Bool | Scalar::Char => types::I8,
        Scalar::Int | Scalar::UInt => types::I32,
        Scalar::Long | Scalar::ULong => types::I64,
        Scalar::Float => types::F32,
        Scalar::Double => types::F64,
    }
}

/// Size and alignment in bytes of a type kept in memory, or `None` for a
/// type the JIT does not keep in memory.
pub(crate) fn size_align(prog: &Program, ty: &Type) -> Option<(u32, u32)> {
    match ty {
        Type::Scalar(s) => Some((s.size(), s.size())),
        Type::Index(r) | Type::Extent(r) => Some((4 * u32::from(*r), 4)),
        Type::CArray(elem, n) => {
            let (size, align) = size_align(prog, elem)?;
            Some((size.checked_mul(*n)?, align))
        }
        Type::Struct(id) => {
            let def = prog.structs.get(id.0 as usize)?;
            let mut at = 0u32;
            let mut align = 1u32;
            for (_, field_ty) in &def.fields {
                let (s, a) = size_align(prog, field_ty)?;
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
pub(crate) fn field_offset(prog: &Program, ty: &Type, field: u32) -> Option<u32> {
    let Type::Struct(id) = ty else {
        return None;
    };
    let def = prog.structs.get(id.0 as usize)?;
    let mut at = 0u32;
    for (i, (_, f_ty)) in def.fields.iter().enumerate() {
        let (s, a) = size_align(prog, f_ty)?;
        at = at.checked_next_multiple_of(a)?;
        if i as u32 == field {
            return Some(at);
        }
        at = at.checked_add(s)?;
    }
    None
}
