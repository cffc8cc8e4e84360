//! Unions: a hidden tag per union object says which member is active, as
//! the interpreter's `UnionVal::active` does, so that compiled code reads
//! and writes members by the interpreter's rules.
//!
//! # Tags
//! An object whose type holds unions has a tag area beside its bytes: one
//! byte per union, 0 while no member is active (a `tile_static` union not
//! yet written, or a union inside a member that has just become active),
//! `k + 1` while member `k` is. The area of a struct is its fields' areas
//! one after the other, of a C array its elements', of a union its own tag
//! then the area of whichever member is active: the members' areas overlap,
//! as their bytes do, so members of the same type (whose value a write of
//! one keeps) and the common initial sequence of two structs find the same
//! tags at the same places.
//!
//! A stack slot holds its tags after its bytes; a `tile_static` variable's
//! are in scratch memory after the variables (zeroed per tile, like the
//! variables). The address of a part's tags is computed where the part's
//! address is, and kept beside it (`Unions::tags`, by Cranelift value):
//! code that meets a union object whose tags it cannot find (a frame slot,
//! a value from a conditional) declines the kernel rather than guess.
//!
//! # Rules (the interpreter's `read_member` and `write_member`)
//! - reading member `j` is allowed while no member is active, while `j`
//!   is, while a member of the same type is, and, for a field among the
//!   first `n` of struct member `j`, while a struct member whose first `n`
//!   fields have the same types is; any other read fails the launch, and
//!   the interpreter runs it again and reports it;
//! - writing member `j` (or a part of it) makes `j` active; unless `j` or a
//!   member of the same type was, the member starts afresh: its bytes zero
//!   (the interpreter reads a never-written value as zero) and its unions
//!   without an active member;
//! - `op=` and `++` on a part of member `j` read, then write: compiled
//!   only while `j` (or a member of its type) is active, else the launch
//!   fails and the interpreter runs it;
//! - zero-initialising a union (a declaration without initialiser, `{}`)
//!   makes its first member active, zero-initialised in turn;
//! - a copy copies the tags with the bytes.
//!
//! A pointer to a member (`&u.m`) and a reference bound to one (`int& r =
//! u.m;`) carry the member's rules and the union's tag address
//! ([`MemberTag`]): each dereference or use checks the member or makes it
//! active as `u.m` would there. A pointer that would need its tags
//! elsewhere (living across barriers, chosen by a conditional, given to a
//! pointer that holds other objects), and a use whose access is not known
//! (the reference's address taken), decline; a reference bound again to
//! such a reference is one too.

use super::*;
use tessera_runtime::union_tags::{field_tags, tag_count};

/// The members a union may have for its tags to fit a 64-bit mask.
const MAX_MEMBERS: usize = 62;

/// How a place being computed will be used, for the union members on its
/// way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Access {
    /// Not said: a union member on the way declines the kernel.
    #[default]
    Unknown,
    /// Read.
    Read,
    /// Written whole or in part.
    Write,
    /// Read, then written (`op=`, `++`).
    ReadWrite,
}

/// What the emitter knows of union tags.
#[derive(Default)]
pub(super) struct Unions {
    /// The address of the tag area of an object, by the object's address.
    tags: HashMap<Value, Value>,
    /// Stack slots holding unions: where their tags start.
    stack: HashMap<cranelift_codegen::ir::StackSlot, u32>,
    /// `tile_static` variables holding unions: the offset of their tags in
    /// scratch memory, by the variable's offset.
    scratch: HashMap<u32, u32>,
    /// How the place being computed will be used.
    pub(super) access: Access,
}

/// What an access of one union member checks and sets: the union's tag
/// (where it is, in this run) and the tag values that allow a read or keep
/// the value at a write. A pointer to a member (`&u.m`) carries it, so each
/// dereference follows the rules an access by name does.
#[derive(Clone, Debug)]
pub(crate) struct MemberTag {
    /// The address of the union's tag.
    tags: Value,
    /// Which member.
    member: u32,
    /// How many members the union has.
    members: usize,
    /// A bit per tag value allowing a read of the member.
    readable: u64,
    /// A bit per tag value whose member's value a write keeps.
    keeps: u64,
    /// The member's bytes, zeroed when a write makes it active afresh.
    size: u32,
    /// The member's own tags (after the union's), zeroed then too.
    inner_tags: u32,
}

/// A reference bound to a union member: the member's rules, its address
/// and type, and the object it is (as a pointer to it names it), when it
/// has a name there.
#[derive(Debug)]
pub(super) struct MemberRef {
    pub(super) member: MemberTag,
    pub(super) addr: Value,
    pub(super) ty: Type,
    pub(super) object: Option<(super::pointers::RootKey, Vec<u32>)>,
}

/// How one member of a union may be read while another is active (the
/// interpreter's `Alias`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alias {
    Same,
    Prefix(usize),
    No,
}

/// The tags of a zero-initialised object of type `ty`, written into `out`
/// from `at`: each union's first member active.
fn zero_tags(structs: &[tessera_ir::StructDef], ty: &Type, out: &mut [u8], at: usize) {
    match ty {
        Type::Struct(id) => {
            let Some(def) = structs.get(id.index()) else {
                return;
            };
            if def.is_union {
                if let (Some(slot), Some((_, first))) = (out.get_mut(at), def.fields.first()) {
                    *slot = 1;
                    zero_tags(structs, first, out, at + 1);
                }
                return;
            }
            let mut k = at;
            for (_, t) in &def.fields {
                zero_tags(structs, t, out, k);
                k += tag_count(structs, t).unwrap_or(0) as usize;
            }
        }
        Type::CArray(elem, n) => {
            let size = tag_count(structs, elem).unwrap_or(0) as usize;
            if size == 0 {
                return;
            }
            for i in 0..*n as usize {
                zero_tags(structs, elem, out, at + i * size);
            }
        }
        _ => {}
    }
}

/// How member `read` of union `def` may be read while `active` is: the
/// interpreter's `union_shape` rule.
fn alias(
    structs: &[tessera_ir::StructDef],
    def: &tessera_ir::StructDef,
    read: usize,
    active: usize,
) -> Alias {
    let (Some((_, r)), Some((_, a))) = (def.fields.get(read), def.fields.get(active)) else {
        return Alias::No;
    };
    if r == a {
        return Alias::Same;
    }
    let members = |t: &Type| match t {
        Type::Struct(id) => structs
            .get(id.index())
            .filter(|d| !d.is_union)
            .map(|d| d.fields.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>()),
        _ => None,
    };
    let (Some(r), Some(a)) = (members(r), members(a)) else {
        return Alias::No;
    };
    match r.iter().zip(&a).take_while(|(x, y)| x == y).count() {
        0 => Alias::No,
        n => Alias::Prefix(n),
    }
}

impl Emitter<'_, '_, '_> {
    /// The union definition a type names, if it is a union.
    pub(super) fn union_def(&self, ty: &Type) -> Option<&tessera_ir::StructDef> {
        match ty {
            Type::Struct(id) => self.prog.get_struct(*id).filter(|d| d.is_union),
            _ => None,
        }
    }

    /// True when objects of type `ty` have tags.
    pub(super) fn has_tags(&self, ty: &Type) -> bool {
        ty.contains_union(&self.prog.structs)
    }

    /// The size of the tag area of type `ty`, or the kernel declined.
    fn tag_bytes(&self, ty: &Type) -> R<u32> {
        tag_count(&self.prog.structs, ty).ok_or(Decline::UnionTags)
    }

    /// The address of the tags of the object at `addr`, or the kernel
    /// declined when they are not known there.
    fn tags_of(&self, addr: Value) -> R<Value> {
        self.unions
            .tags
            .get(&addr)
            .copied()
            .ok_or(Decline::UnionTags)
    }

    /// Runs `f` with places computed for `access`, the access before
    /// restored after.
    pub(super) fn with_access<T>(
        &mut self,
        access: Access,
        f: impl FnOnce(&mut Self) -> R<T>,
    ) -> R<T> {
        let saved = std::mem::replace(&mut self.unions.access, access);
        let r = f(self);
        self.unions.access = saved;
        r
    }

    /// A stack slot for an aggregate of type `ty` (`size` bytes), with room
    /// for its tags after its bytes when it holds unions.
    pub(super) fn aggregate_stack_slot(
        &mut self,
        ty: &Type,
        size: u32,
        align: u32,
    ) -> R<cranelift_codegen::ir::StackSlot> {
        if !self.has_tags(ty) {
            return self.stack_slot(size, align);
        }
        let tags = self.tag_bytes(ty)?;
        let ss = self.stack_slot(size.saturating_add(tags), align)?;
        self.unions.stack.insert(ss, size);
        Ok(ss)
    }

    /// Gives the `tile_static` variables holding unions their tags, after
    /// the variables in scratch memory (`cursor`: the bytes given out).
    pub(super) fn tile_static_tags(&mut self, func: &Function, cursor: &mut u32) -> R<()> {
        for (i, l) in func.locals.iter().enumerate() {
            if l.space != Space::TileStatic || !self.has_tags(&l.ty) {
                continue;
            }
            let Some(Slot::TileStatic(off)) = self.scopes[0].slots.get(&LocalId(i as u32)) else {
                continue;
            };
            let off = *off;
            let tags = self.tag_bytes(&l.ty)?;
            self.unions.scratch.insert(off, *cursor);
            *cursor = cursor.saturating_add(tags);
        }
        Ok(())
    }

    /// Notes where the tags of a slot's object are, the slot's address
    /// just computed as `addr`.
    pub(super) fn note_slot_tags(&mut self, slot: &Slot, addr: Value) {
        let tags = match slot {
            Slot::Stack(ss) => match self.unions.stack.get(ss) {
                Some(&off) => self.b.ins().stack_addr(self.ptr, *ss, off as i32),
                None => return,
            },
            Slot::TileStatic(off) => match self.unions.scratch.get(off) {
                Some(&at) => self.b.ins().iadd_imm_s(self.entry.scratch, i64::from(at)),
                None => return,
            },
            _ => return,
        };
        self.unions.tags.insert(addr, tags);
    }

    /// Notes where the tags of a part are: field `field` of the struct of
    /// type `ty` at `addr`, now at `at`.
    pub(super) fn note_field_tags(&mut self, addr: Value, at: Value, ty: &Type, field: u32) {
        let Some(def) = self.prog.get_struct(match ty {
            Type::Struct(id) => *id,
            _ => return,
        }) else {
            return;
        };
        let Some((_, fty)) = def.fields.get(field as usize) else {
            return;
        };
        if !self.has_tags(fty) {
            return;
        }
        let (Some(&base), Some(off)) = (
            self.unions.tags.get(&addr),
            field_tags(&self.prog.structs, def, field),
        ) else {
            return;
        };
        let tags = self.b.ins().iadd_imm_s(base, i64::from(off));
        self.unions.tags.insert(at, tags);
    }

    /// Notes where the tags of element `i` (a 64-bit index) of the array
    /// of `elem` at `addr`, now at `at`, are.
    pub(super) fn note_element_tags(&mut self, addr: Value, at: Value, elem: &Type, i: Value) {
        if !self.has_tags(elem) {
            return;
        }
        let (Some(&base), Some(size)) = (
            self.unions.tags.get(&addr),
            tag_count(&self.prog.structs, elem),
        ) else {
            return;
        };
        let off = self.b.ins().imul_imm_s(i, i64::from(size));
        let tags = self.b.ins().iadd(base, off);
        self.unions.tags.insert(at, tags);
    }

    /// Notes where the tags of an element of a view at `addr` are: after
    /// its bytes (see `tessera_runtime::union_tags::tagged_size`).
    pub(super) fn note_element_tags_after(&mut self, addr: Value, elem: &Type) {
        if !self.has_tags(elem) {
            return;
        }
        let Some((size, _)) = size_align(&self.prog.structs, elem) else {
            return;
        };
        let tags = self.b.ins().iadd_imm_s(addr, i64::from(size));
        self.unions.tags.insert(addr, tags);
    }

    /// Copies the tags of an object of type `ty` from `src` to `dst`, its
    /// bytes being copied.
    pub(super) fn copy_tags(&mut self, dst: Value, src: Value, ty: &Type) -> R<()> {
        if !self.has_tags(ty) {
            return Ok(());
        }
        let n = self.tag_bytes(ty)?;
        let (d, s) = (self.tags_of(dst)?, self.tags_of(src)?);
        self.copy_bytes(d, s, n);
        Ok(())
    }

    /// Sets the tags of a zero-initialised object of type `ty` at `addr`.
    pub(super) fn init_zero_tags(&mut self, addr: Value, ty: &Type) -> R<()> {
        if !self.has_tags(ty) {
            return Ok(());
        }
        let n = self.tag_bytes(ty)?;
        let tags = self.tags_of(addr)?;
        let mut pattern = vec![0u8; n as usize];
        zero_tags(&self.prog.structs, ty, &mut pattern, 0);
        for (k, byte) in pattern.into_iter().enumerate() {
            let v = self.b.ins().iconst(types::I8, i64::from(byte));
            self.b.ins().store(flags(), v, tags, k as i32);
        }
        Ok(())
    }

    /// A member of a union as a place, or a field of a union's struct
    /// member read by the common-initial-sequence rule: `None` when `e`
    /// (`base.field`) is neither.
    pub(super) fn union_field(&mut self, e: &Expr, base: &Expr, field: u32) -> R<Option<Place>> {
        if self.union_def(&base.ty).is_some() {
            let (at, _) = self.union_member(base, field, None)?;
            return Ok(Some(Place::Mem(at, e.ty.clone())));
        }
        // `u.s.k` read: member `s` checked knowing field `k` comes next.
        let ExprKind::Field {
            base: ubase,
            field: member,
        } = &base.kind
        else {
            return Ok(None);
        };
        if self.unions.access != Access::Read || self.union_def(&ubase.ty).is_none() {
            return Ok(None);
        }
        let (at, mty) = self.union_member(ubase, *member, Some(field))?;
        let Some(off) = field_offset(&self.prog.structs, &mty, field) else {
            return decline(Decline::FieldType);
        };
        let fat = self.b.ins().iadd_imm_s(at, i64::from(off));
        self.note_field_tags(at, fat, &mty, field);
        Ok(Some(Place::Mem(fat, e.ty.clone())))
    }

    /// Member `j` of the union `ubase`, checked or made active as the
    /// access being computed asks (`rest`: the field of it read next):
    /// its address and type, its tags noted.
    fn union_member(&mut self, ubase: &Expr, j: u32, rest: Option<u32>) -> R<(Value, Type)> {
        let access = self.unions.access;
        if access == Access::Unknown {
            return decline(Decline::UnionMemberAccess);
        }
        let (at, mty, member) = self.member_of(ubase, j, rest)?;
        self.touch_member(&member, at, access)?;
        if self.has_tags(&mty) {
            let inner = self.b.ins().iadd_imm_s(member.tags, 1);
            self.unions.tags.insert(at, inner);
        }
        Ok((at, mty))
    }

    /// `&u.m`: the address of member `j` of the union `ubase`, without a
    /// check, and what a dereference of the pointer checks or makes
    /// active (see [`MemberTag`]). A member holding unions itself is
    /// declined: the pointer would need its tags too.
    pub(super) fn member_address(&mut self, ubase: &Expr, j: u32) -> R<(Value, Type, MemberTag)> {
        let (at, mty, member) = self.member_of(ubase, j, None)?;
        if self.has_tags(&mty) {
            return decline(Decline::UnionMemberAccess);
        }
        Ok((at, mty, member))
    }

    /// Member `j` of the union `ubase` (`rest`: the field of it read
    /// next): its address, type and tag rules.
    fn member_of(
        &mut self,
        ubase: &Expr,
        j: u32,
        rest: Option<u32>,
    ) -> R<(Value, Type, MemberTag)> {
        let (addr, uty) = self.mem_of(ubase)?;
        let Some(def) = self.union_def(&uty) else {
            return decline(Decline::UnionTags);
        };
        let def = def.clone();
        if def.fields.len() > MAX_MEMBERS {
            return decline(Decline::UnionTags);
        }
        let Some((_, mty)) = def.fields.get(j as usize).cloned() else {
            return decline(Decline::FieldType);
        };
        let tags = self.tags_of(addr)?;
        let k = j as usize;
        let structs = &self.prog.structs;
        // Tag values (`k + 1` for member `k`, 0 for none) allowing a read,
        // and those whose value a write of `j` keeps.
        let mut readable: u64 = 1 | (1 << (k + 1));
        let mut keeps: u64 = 1 << (k + 1);
        for a in 0..def.fields.len() {
            match alias(structs, &def, k, a) {
                Alias::Same => {
                    readable |= 1 << (a + 1);
                    keeps |= 1 << (a + 1);
                }
                Alias::Prefix(n) if rest.is_some_and(|f| (f as usize) < n) => {
                    readable |= 1 << (a + 1);
                }
                _ => {}
            }
        }
        let Some((size, _)) = size_align(&self.prog.structs, &mty) else {
            return decline(Decline::FieldType);
        };
        let inner_tags = self.tag_bytes(&mty)?;
        let Some(off) = field_offset(&self.prog.structs, &uty, j) else {
            return decline(Decline::FieldType);
        };
        let at = self.b.ins().iadd_imm_s(addr, i64::from(off));
        let member = MemberTag {
            tags,
            member: j,
            members: def.fields.len(),
            readable,
            keeps,
            size,
            inner_tags,
        };
        Ok((at, mty, member))
    }

    /// Checks member `m.member` for `access` (a read: readable; a read
    /// then write: its value kept), or makes it active (a write: from zero
    /// unless a member whose value it keeps was), at `at`, its address.
    pub(super) fn touch_member(&mut self, m: &MemberTag, at: Value, access: Access) -> R<()> {
        let tag = self.b.ins().load(types::I8, flags(), m.tags, 0);
        let tag = self.b.ins().uextend(types::I64, tag);
        let in_set = |lw: &mut Self, set: u64| {
            let mask = lw.b.ins().iconst(types::I64, set as i64);
            let bit = lw.b.ins().ushr(mask, tag);
            lw.b.ins().band_imm_u(bit, 1)
        };
        match access {
            Access::Read => {
                let ok = in_set(self, m.readable);
                self.guard(ok);
            }
            Access::ReadWrite => {
                let ok = in_set(self, m.keeps);
                self.guard(ok);
            }
            Access::Write => {
                let all: u64 = (1u64 << (m.members + 1)) - 2;
                if m.keeps & all != all {
                    // A member that starts afresh: zero bytes, no unions
                    // active inside.
                    let kept = in_set(self, m.keeps);
                    let fresh = self.b.create_block();
                    let done = self.b.create_block();
                    self.b.ins().brif(kept, done, &[], fresh, &[]);
                    self.b.switch_to_block(fresh);
                    self.zero_bytes(at, m.size);
                    let after = self.b.ins().iadd_imm_s(m.tags, 1);
                    self.zero_bytes(after, m.inner_tags);
                    self.b.ins().jump(done, &[]);
                    self.b.switch_to_block(done);
                }
            }
            Access::Unknown => return decline(Decline::UnionMemberAccess),
        }
        if matches!(access, Access::Write | Access::ReadWrite) {
            let v = self.b.ins().iconst(types::I8, i64::from(m.member) + 1);
            self.b.ins().store(flags(), v, m.tags, 0);
        }
        Ok(())
    }

    /// Zeroes `n` bytes at `addr`.
    fn zero_bytes(&mut self, addr: Value, n: u32) {
        let bytes = Type::CArray(Box::new(Type::Scalar(Scalar::Char)), n);
        // An array of `char` has no unions: no tags to set.
        let _ = self.zero_mem(addr, &bytes);
    }
}
