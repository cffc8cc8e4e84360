//! How values of the typed program sit in Cranelift values and in memory.
//!
//! Scalars are one Cranelift value of their width (`bool` is an `i8` holding
//! 0 or 1). In memory (structs, C arrays, `tile_static` variables, captured
//! buffers) everything is laid out as C++ lays it out on LP64
//! ([`tessera_ir::layout`]), so a buffer the interpreter hands over is
//! read as it is.

use cranelift_codegen::ir::types;
use tessera_ir::Scalar;

/// The Cranelift type of a scalar.
pub(crate) fn clif_type(s: Scalar) -> types::Type {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::UChar => types::I8,
        Scalar::Short | Scalar::UShort => types::I16,
        Scalar::Int | Scalar::UInt | Scalar::WChar => types::I32,
        Scalar::Long | Scalar::ULong => types::I64,
        Scalar::Float => types::F32,
        Scalar::Double => types::F64,
    }
}
