//! C++ object layout on LP64: sizes, alignments and field offsets.
//!
//! The definition lives with the typed program ([`tessera_ir::layout`]), so
//! the checker, the interpreter and the JIT share it; it is re-exported here
//! because the hand-off between engines (buffers in C++ layout) is this
//! crate's.

pub use tessera_ir::layout::{field_offset, size_align, size_align_u64};
