//! Where the active-member tags of unions sit, for the compiled engine and
//! for the hand-off of elements that hold unions.
//!
//! An object whose type holds unions has a tag area: one byte per union, 0
//! while no member is active, `k + 1` while member `k` is. A struct's area
//! is its fields' areas one after the other, a C array's its elements', a
//! union's its own tag then the area of its active member (the members'
//! areas overlap, as their bytes do). An element of a buffer handed to the
//! compiled engine has its tags right after its bytes, within a stride
//! ([`tagged_size`]) wider than `sizeof`.

use tessera_ir::{StructDef, Type};

/// Tag bytes per object past which its unions are not tracked.
pub const MAX_TAGS: u32 = 1024;

/// The bytes of tags an object of type `ty` has (`None`: too many, or a
/// type unknown).
pub fn tag_count(structs: &[StructDef], ty: &Type) -> Option<u32> {
    let n = match ty {
        Type::Struct(id) => {
            let def = structs.get(id.index())?;
            let mut n = 0u32;
            for (_, t) in &def.fields {
                let k = tag_count(structs, t)?;
                n = if def.is_union {
                    n.max(k)
                } else {
                    n.checked_add(k)?
                };
            }
            if def.is_union { n.checked_add(1)? } else { n }
        }
        Type::CArray(elem, n) => tag_count(structs, elem)?.checked_mul(*n)?,
        _ => 0,
    };
    (n <= MAX_TAGS).then_some(n)
}

/// Where field `k` of struct `def` has its tags in the struct's area (a
/// union's members all have theirs at 1, after its own tag).
pub fn field_tags(structs: &[StructDef], def: &StructDef, k: u32) -> Option<u32> {
    if def.is_union {
        return Some(1);
    }
    let mut at = 0u32;
    for (_, t) in def.fields.iter().take(k as usize) {
        at = at.checked_add(tag_count(structs, t)?)?;
    }
    Some(at)
}

/// The stride of a buffer of elements of type `ty` handed to the compiled
/// engine: `sizeof`, widened (to the alignment) by the tags when the type
/// holds unions; `None` for a type without a layout or too many tags.
pub fn tagged_size(structs: &[StructDef], ty: &Type) -> Option<u32> {
    let (size, align) = tessera_ir::layout::size_align(structs, ty)?;
    let tags = tag_count(structs, ty)?;
    if tags == 0 {
        return Some(size);
    }
    size.checked_add(tags)?
        .checked_next_multiple_of(align.max(1))
}
