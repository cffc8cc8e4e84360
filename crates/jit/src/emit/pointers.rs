//! Pointers in kernels, in one of two forms.
//!
//! A pointer into an allocation compiled code can name where the pointer
//! is made (a C array or object in a stack slot, the frame, `tile_static`
//! memory or a captured value, reached through fields and constant
//! indices; or null) is that allocation, known here, and an element
//! offset, a variable. The interpreter's checked pointers are an
//! allocation and an offset too, and this form follows them exactly:
//! arithmetic stays within `[0, len]`, a dereference within `[0, len)`,
//! order and difference need one allocation, and two allocations told
//! apart here are two objects there (different locals, captures or
//! paths). Every check that fails fails the launch, and the interpreter
//! reports it. A pointer local keeps its allocation for life: a value
//! from another allocation declines the kernel, so the object outlives
//! the pointer (it was named where the pointer was declared, so in scope
//! there) and compiled code never reads past it.
//!
//! Any other pointer (to a view's element, to what a reference names, to
//! a scalar in a variable) is bound as a reference to its place, as
//! [`crate::plan::pointers`] lets through: made from `&place`, then only
//! dereferenced or passed on, so it is neither null nor past an end.

use super::unions::MemberTag;
use super::*;
use std::rc::Rc;

/// An allocation a pointer points into, as the interpreter tells them
/// apart: the object (root and constant path) and whether its elements
/// are an array's, or null.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum AllocKey {
    /// `nullptr`: no element.
    Null,
    /// The elements of a `std::vector` a host statement names (`v.begin()`,
    /// `v.data()`) or a pointer from outside: the variable's scope and
    /// local, its global or the pointer's capture. Two such keys may still
    /// name one vector (two references to it, two iterators): their
    /// pointers are compared by address (see [`Emitter::ptr_compare`]).
    Elements(ElementsOf),
    /// Any of the objects of [`Emitter::alloc_id`], as the `i64` identity
    /// this run holds: a pointer local given values in more than one.
    Chosen(Value),
    /// An object of the kernel.
    Object {
        /// Where the object's outermost variable lives.
        root: RootKey,
        /// Fields and constant element indices from the root.
        path: Vec<u32>,
        /// The pointer moves over the object's elements (a C array), not
        /// over the object itself (one element).
        array: bool,
    },
}

/// The vector variable whose elements an [`AllocKey::Elements`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ElementsOf {
    /// A local, by its scope and id.
    Local(usize, u32),
    /// A global.
    Global(u32),
    /// A pointer local the statement got from outside (a parameter, an
    /// iterator declared before a loop), by its capture: the vector it
    /// points into, the whole of it (see [`Emitter::captured_pointer`]).
    Pointer(usize),
}

/// How many elements an allocation has: known where the code is emitted
/// (a C array, an object), or a value of the run (a vector's size, which
/// a host statement cannot change: it declines `push_back` and the like).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Len {
    /// This many.
    Fixed(i64),
    /// The `i64` value of the run.
    Runtime(Value),
}

/// The variable an allocation is part of: one per stack slot, frame slot
/// of a scope's local, `tile_static` variable or captured value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RootKey {
    /// A private aggregate in a stack slot.
    Stack(u32),
    /// A local in the frame: its scope and local.
    Frame(usize, u32),
    /// A `tile_static` variable, by its offset in scratch memory.
    TileStatic(u32),
    /// A captured value, by its capture slot.
    Capture(u32),
}

/// An allocation known where the code is emitted: its identity, where its
/// first element is and how many elements it has.
#[derive(Clone, Debug)]
pub(crate) struct PtrAlloc {
    /// Which allocation, for comparisons.
    key: AllocKey,
    /// The address of element 0, computed where the pointer was made
    /// (which dominates every use of the pointer).
    base: Value,
    /// Bytes per element.
    size: u32,
    /// Elements: a pointer may be formed at `[0, len]` and dereferenced
    /// at `[0, len)`.
    len: Len,
    /// A union member (`&u.m`): each dereference checks or makes it
    /// active.
    member: Option<MemberTag>,
}

/// A pointer local given another pointer's value after its declaration,
/// which may then point into another object than its first (`p = b;`,
/// `p = c ? a : b;`): its object's identity (see [`Emitter::alloc_id`]),
/// first element and length are variables, set with the offset at each
/// assignment, so each use checks the object the run chose. It lives in
/// variables only: one declared at the level of barriers keeps the
/// one-object form, and such an assignment declines.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChosenPtr {
    id: Variable,
    base: Variable,
    len: Variable,
    off: Variable,
    /// Bytes per element of the pointee type.
    size: u32,
}

/// A pointer value.
#[derive(Clone, Debug)]
pub(super) enum PtrV {
    /// Bound to a place: only dereferenced or passed on.
    Fixed(Place),
    /// An element offset (`i64`) in an allocation.
    At(Rc<PtrAlloc>, Value),
}

impl Emitter<'_, '_, '_> {
    /// The value of an expression of pointer type.
    pub(super) fn ptr_value(&mut self, e: &Expr) -> R<PtrV> {
        self.spend()?;
        match &e.kind {
            ExprKind::Null => self.null_ptr(),
            ExprKind::Convert(inner) if matches!(inner.ty, Type::Null) => {
                self.ptr_value(inner)?;
                self.null_ptr()
            }
            ExprKind::Convert(inner) if crate::plan::pointers::adds_const(&inner.ty, &e.ty) => {
                self.ptr_value(inner)
            }
            // `c ? a : b` of two arrays, decayed: a pointer into the one
            // the run chose.
            ExprKind::Convert(inner)
                if matches!(inner.ty, Type::CArray(..))
                    && let ExprKind::Conditional { cond, then, els } = &inner.kind =>
            {
                self.conditional_pointer(cond, then, els)
            }
            // An array decays to a pointer to its first element.
            ExprKind::Convert(inner) if matches!(inner.ty, Type::CArray(..)) && inner.place => {
                let zero = self.b.ins().iconst(types::I64, 0);
                self.array_pointer(inner, zero)
            }
            ExprKind::AddrOf(inner) => match &inner.kind {
                // `&*p` and `&p[i]` are the pointer itself.
                ExprKind::Deref(p) => self.ptr_value(p),
                ExprKind::Element { base, index }
                    if matches!(base.ty, Type::CArray(..)) && base.place =>
                {
                    // The array first, then the index, as the interpreter.
                    let (base_addr, _) = self.with_access(Access::Unknown, |lw| lw.mem_of(base))?;
                    let Type::CArray(_, n) = &base.ty else {
                        return decline(Decline::Pointer);
                    };
                    let n = i64::from(*n);
                    let is = self.scalar_ty(&index.ty)?;
                    let i = self.scalar(index)?;
                    let i = self.widen(i, is);
                    // `&a[n]` is refused by the interpreter too.
                    self.check_below(i, n);
                    self.array_pointer_at(base, base_addr, i)
                }
                // `&u.m`: a pointer to the member that checks it (or makes it
                // active) where it is dereferenced, as `u.m` would there.
                // Its object is the member, as the interpreter's place is.
                ExprKind::Field { base, field } if self.union_def(&base.ty).is_some() => {
                    let key = self.root_path(base);
                    let (addr, mty, member) = self.member_address(base, *field)?;
                    let Some((root, mut path)) = key else {
                        return decline(Decline::UnionMemberAccess);
                    };
                    path.push(*field);
                    self.object_pointer(root, path, addr, &mty, Some(member))
                }
                // `&r` of a reference bound to a union member: the
                // pointer `&u.m` would be.
                ExprKind::Local(l)
                    if matches!(self.scope().slots.get(l), Some(Slot::MemberRef(_))) =>
                {
                    let Some(Slot::MemberRef(m)) = self.scope().slots.get(l) else {
                        return decline(Decline::UnionMemberAccess);
                    };
                    let m = Rc::clone(m);
                    let Some((root, path)) = m.object.clone() else {
                        return decline(Decline::UnionMemberAccess);
                    };
                    self.object_pointer(root, path, m.addr, &m.ty, Some(m.member.clone()))
                }
                _ => {
                    let place = self.with_access(Access::Unknown, |lw| lw.place(inner))?;
                    let key = self.root_path(inner);
                    match (place, key) {
                        (Place::Mem(addr, ty), Some((root, path))) if !self.has_tags(&ty) => {
                            self.object_pointer(root, path, addr, &ty, None)
                        }
                        // A captured object held field by field is read-only.
                        (Place::Obj(_), _) if !matches!(e.ty, Type::Ptr { is_const: true, .. }) => {
                            decline(Decline::CapturedValueAsPlace)
                        }
                        (place, _) => Ok(PtrV::Fixed(place)),
                    }
                }
            },
            ExprKind::Local(l) => match self.scope().slots.get(l) {
                Some(Slot::Ptr(alloc, var)) => {
                    let (alloc, var) = (Rc::clone(alloc), *var);
                    Ok(PtrV::At(alloc, self.b.use_var(var)))
                }
                Some(Slot::Ref(p)) => Ok(PtrV::Fixed(p.clone())),
                Some(Slot::ChosenPtr(c)) => {
                    let c = *c;
                    Ok(self.chosen_value(c))
                }
                _ => decline(Decline::Pointer),
            },
            ExprKind::PtrAdd { ptr, offset } => {
                let p = self.ptr_value(ptr)?;
                if const_int(offset) == Some(0) {
                    self.expr(offset)?;
                    return Ok(p);
                }
                let s = self.scalar_ty(&offset.ty)?;
                let n = self.scalar(offset)?;
                let n = self.widen(n, s);
                self.ptr_add(p, n)
            }
            ExprKind::Assign { target, value } => {
                let v = self.ptr_value(value)?;
                self.set_pointer(target, v)
            }
            ExprKind::CompoundAssign { op, target, value }
                if matches!(op, BinOp::Add | BinOp::Sub) =>
            {
                let s = self.scalar_ty(&value.ty)?;
                let n = self.scalar(value)?;
                let mut n = self.widen(n, s);
                if *op == BinOp::Sub {
                    n = self.b.ins().ineg(n);
                }
                let old = self.ptr_value(target)?;
                let new = self.ptr_add(old, n)?;
                self.set_pointer(target, new)
            }
            ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                let old = self.ptr_value(target)?;
                let one = self
                    .b
                    .ins()
                    .iconst(types::I64, if *increment { 1 } else { -1 });
                let new = self.ptr_add(old.clone(), one)?;
                let new = self.set_pointer(target, new)?;
                Ok(if *prefix { new } else { old })
            }
            ExprKind::Comma { first, second } => {
                self.expr(first)?;
                self.ptr_value(second)
            }
            ExprKind::Conditional { cond, then, els } => self.conditional_pointer(cond, then, els),
            ExprKind::Intrinsic {
                op: Intrinsic::PtrReinterpret,
                args,
            } if args.len() == 1 => self.reinterpret_pointer(&args[0], &e.ty),
            ExprKind::Intrinsic {
                op: Intrinsic::VectorData,
                args,
            } if args.len() == 1 && self.host.is_some() => self.vector_elements(&args[0]),
            _ => decline(Decline::Pointer),
        }
    }

    /// `&x` of one object of type `ty` at `addr` (its root and path from
    /// there), a union member's rules with it when it is one.
    fn object_pointer(
        &mut self,
        root: RootKey,
        path: Vec<u32>,
        addr: Value,
        ty: &Type,
        member: Option<MemberTag>,
    ) -> R<PtrV> {
        let size = self.elem_size(ty)?;
        let zero = self.b.ins().iconst(types::I64, 0);
        Ok(PtrV::At(
            Rc::new(PtrAlloc {
                key: AllocKey::Object {
                    root,
                    path,
                    array: false,
                },
                base: addr,
                size,
                len: Len::Fixed(1),
                member,
            }),
            zero,
        ))
    }

    /// `v.data()` (and `v.begin()`, `v.end()` made from it) of a vector a
    /// host statement names: its elements as an allocation whose length is
    /// the vector's size in this run.
    fn vector_elements(&mut self, v: &Expr) -> R<PtrV> {
        let of = match &v.kind {
            ExprKind::Local(l) => ElementsOf::Local(self.scope().id, l.0),
            ExprKind::Global(g) => ElementsOf::Global(g.0),
            _ => return decline(Decline::Pointer),
        };
        let Type::Vector(elem) = &v.ty else {
            return decline(Decline::Pointer);
        };
        let size = self.elem_size(elem)?;
        let view = self.view(v)?;
        let skip = self.b.ins().imul_imm_s(view.offset, i64::from(size));
        let base = self.b.ins().iadd(view.base, skip);
        let zero = self.b.ins().iconst(types::I64, 0);
        Ok(PtrV::At(
            Rc::new(PtrAlloc {
                key: AllocKey::Elements(of),
                base,
                size,
                len: Len::Runtime(view.ext[0]),
                member: None,
            }),
            zero,
        ))
    }

    /// The number of elements `len` says, as an `i64` value.
    fn len_value(&mut self, len: Len) -> Value {
        match len {
            Len::Fixed(n) => self.b.ins().iconst(types::I64, n),
            Len::Runtime(v) => v,
        }
    }

    /// Continues when `i` is in `[0, len)`, else fails.
    fn check_below_len(&mut self, i: Value, len: Len) {
        match len {
            Len::Fixed(n) => self.check_below(i, n),
            Len::Runtime(n) => {
                let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, n);
                self.guard(ok);
            }
        }
    }

    /// For pointers into the elements of two vector variables or pointers
    /// from outside (two names may reach one vector): whether they point
    /// into one, by address. The hand-off gives each vector one buffer,
    /// so two buffers are two vectors, except that every empty buffer may
    /// have the same (dangling) address: two empty ones at one address
    /// fail the run, and the interpreter compares them.
    fn same_elements(&mut self, x: &PtrAlloc, y: &PtrAlloc) -> Option<Value> {
        if !matches!(x.key, AllocKey::Elements(_)) || !matches!(y.key, AllocKey::Elements(_)) {
            return None;
        }
        let same = self.b.ins().icmp(IntCC::Equal, x.base, y.base);
        let len = self.len_value(x.len);
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
        let unknown = self.b.ins().band(same, empty);
        self.fail_if(unknown);
        Some(same)
    }

    /// A pointer local named by a host statement that got it from outside,
    /// handed over as a view from its element to the end of its vector
    /// (`plan_host`): the vector's elements as an allocation, and the
    /// pointer's offset in a variable the statement moves and hands back.
    pub(super) fn captured_pointer(&mut self, capture: usize, view: &ViewV) -> R<Slot> {
        let size = self.elem_size(&view.elem)?;
        let len = self.b.ins().iadd(view.offset, view.ext[0]);
        let var = self.var(types::I64);
        self.b.def_var(var, view.offset);
        Ok(Slot::Ptr(
            Rc::new(PtrAlloc {
                key: AllocKey::Elements(ElementsOf::Pointer(capture)),
                base: view.base,
                size,
                len: Len::Runtime(len),
                member: None,
            }),
            var,
        ))
    }

    /// `reinterpret_cast<U*>(p)` between scalars of one size, neither a
    /// `bool`: the interpreter reads the bytes of the element `p` points
    /// to as a `U`, which is what a load of `U` there gives. A pointer
    /// into an object stays one (its arithmetic and comparisons move by
    /// bytes in the interpreter, which for elements of one size are whole
    /// elements); one bound to its element stays bound, read as a `U`.
    fn reinterpret_pointer(&mut self, arg: &Expr, to: &Type) -> R<PtrV> {
        let (Some(from), Some(to)) = (arg.ty.pointee(), to.pointee()) else {
            return decline(Decline::Pointer);
        };
        let p = self.ptr_value(arg)?;
        if from == to {
            return Ok(p);
        }
        if !crate::plan::pointers::same_size_scalars(Some(from), Some(to)) {
            return decline(Decline::PointerUse("a pointer cast"));
        }
        match p {
            // Elements of one size: the same offset in the same object,
            // read and written as the new type where dereferenced (a one
            // past the end stays one, compared and moved as before).
            PtrV::At(alloc, off) => Ok(PtrV::At(alloc, off)),
            PtrV::Fixed(Place::Mem(addr, _)) => Ok(PtrV::Fixed(Place::Mem(addr, to.clone()))),
            PtrV::Fixed(_) => decline(Decline::PointerToVariable),
        }
    }

    /// Whether local `l` of `func` is a scalar whose address a kernel
    /// takes (`&x`): it lives in memory rather than in a variable, so that
    /// pointers to it and the local itself see each other's writes. Host
    /// code keeps its scalars in variables (it declines such pointers).
    pub(super) fn address_taken(&mut self, func: FuncId, l: LocalId) -> bool {
        if self.host.is_some() {
            return false;
        }
        let prog = self.prog;
        self.addr_taken
            .entry(func)
            .or_insert_with(|| crate::plan::locals::address_taken(prog, prog.function(func)))
            .contains(&l)
    }

    /// Whether pointer local `l` of `func` is given another pointer's
    /// value after its declaration (see [`ChosenPtr`]).
    fn reassigned(&mut self, func: FuncId, l: LocalId) -> bool {
        let prog = self.prog;
        self.reassigned
            .entry(func)
            .or_insert_with(|| crate::plan::locals::reassigned_pointers(prog.function(func)))
            .contains(&l)
    }

    /// `nullptr`: an allocation of no element.
    fn null_ptr(&mut self) -> R<PtrV> {
        let zero = self.b.ins().iconst(types::I64, 0);
        let base = self.b.ins().iconst(self.ptr, 0);
        Ok(PtrV::At(
            Rc::new(PtrAlloc {
                key: AllocKey::Null,
                base,
                size: 0,
                len: Len::Fixed(0),
                member: None,
            }),
            zero,
        ))
    }

    /// The size of an element a pointer moves over; a type with union
    /// tags declines (their tags are found through the places named).
    fn elem_size(&mut self, ty: &Type) -> R<u32> {
        if self.has_tags(ty) {
            return decline(Decline::UnionTags);
        }
        match size_align(&self.prog.structs, ty) {
            Some((size, _)) if size > 0 => Ok(size),
            _ => decline(Decline::Pointer),
        }
    }

    /// A pointer to element `i` (already checked in bounds) of the C array
    /// place `base`.
    fn array_pointer(&mut self, base: &Expr, i: Value) -> R<PtrV> {
        let (addr, _) = self.with_access(Access::Unknown, |lw| lw.mem_of(base))?;
        self.array_pointer_at(base, addr, i)
    }

    fn array_pointer_at(&mut self, base: &Expr, addr: Value, i: Value) -> R<PtrV> {
        let Type::CArray(elem, n) = &base.ty else {
            return decline(Decline::Pointer);
        };
        let size = self.elem_size(elem)?;
        match self.root_path(base) {
            Some((root, path)) => Ok(PtrV::At(
                Rc::new(PtrAlloc {
                    key: AllocKey::Object {
                        root,
                        path,
                        array: true,
                    },
                    base: addr,
                    size,
                    len: Len::Fixed(i64::from(*n)),
                    member: None,
                }),
                i,
            )),
            // An array compiled code cannot name (what a reference names):
            // the element, bound as a reference.
            None => {
                let off = self.b.ins().imul_imm_s(i, i64::from(size));
                let at = self.b.ins().iadd(addr, off);
                Ok(PtrV::Fixed(Place::Mem(at, (**elem).clone())))
            }
        }
    }

    /// The variable and path of fields and constant indices a place
    /// expression names, when compiled code can tell its object apart:
    /// a local in a stack slot, the frame or `tile_static` memory, or a
    /// captured value; not through a union or a reference.
    pub(super) fn root_path(&self, e: &Expr) -> Option<(RootKey, Vec<u32>)> {
        match &e.kind {
            ExprKind::Local(l) => {
                let root = match self.scope().slots.get(l) {
                    Some(Slot::Stack(ss)) => RootKey::Stack(ss.as_u32()),
                    Some(Slot::TileStatic(off)) => RootKey::TileStatic(*off),
                    Some(Slot::Frame(_)) => RootKey::Frame(self.scope().id, l.0),
                    None if self.scope().frame.contains_key(l) => {
                        RootKey::Frame(self.scope().id, l.0)
                    }
                    _ => return None,
                };
                Some((root, Vec::new()))
            }
            ExprKind::Capture(slot) => match self.entry.caps.get(*slot as usize) {
                Some(V::Mem(_)) => Some((RootKey::Capture(*slot), Vec::new())),
                _ => None,
            },
            ExprKind::Field { base, field } => {
                let Type::Struct(id) = &base.ty else {
                    return None;
                };
                if self.prog.get_struct(*id).is_none_or(|d| d.is_union)
                    || places::held_views(self.prog, &base.ty)
                {
                    return None;
                }
                let (root, mut path) = self.root_path(base)?;
                path.push(*field);
                Some((root, path))
            }
            ExprKind::Element { base, index } if matches!(base.ty, Type::CArray(..)) => {
                let k = u32::try_from(const_int(index)?).ok()?;
                let (root, mut path) = self.root_path(base)?;
                path.push(k);
                Some((root, path))
            }
            _ => None,
        }
    }

    /// `p + n`: checked to stay within `[0, len]`, as the interpreter's.
    fn ptr_add(&mut self, p: PtrV, n: Value) -> R<PtrV> {
        let PtrV::At(alloc, off) = p else {
            return decline(Decline::PointerUse(
                "arithmetic on a pointer bound to its element (a view's element, through a reference, reinterpreted)",
            ));
        };
        // `off` is in `[0, len]`, so neither bound overflows.
        let lo = self.b.ins().ineg(off);
        let len = self.len_value(alloc.len);
        let hi = self.b.ins().isub(len, off);
        let above = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, n, lo);
        let below = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, n, hi);
        let ok = self.b.ins().band(above, below);
        self.guard(ok);
        let to = self.b.ins().iadd(off, n);
        Ok(PtrV::At(alloc, to))
    }

    /// The value of a pointer local that may point into more than one
    /// object.
    fn chosen_value(&mut self, c: ChosenPtr) -> PtrV {
        let id = self.b.use_var(c.id);
        let base = self.b.use_var(c.base);
        let len = self.b.use_var(c.len);
        let off = self.b.use_var(c.off);
        PtrV::At(
            Rc::new(PtrAlloc {
                key: AllocKey::Chosen(id),
                base,
                size: c.size,
                len: Len::Runtime(len),
                member: None,
            }),
            off,
        )
    }

    /// `c ? p : q` of pointers (arrays decayed, `nullptr`): each arm's
    /// pointer made on its own path, joined as a pointer into the object
    /// the run chose (see [`ChosenPtr`]).
    fn conditional_pointer(&mut self, cond: &Expr, then: &Expr, els: &Expr) -> R<PtrV> {
        let c = self.scalar(cond)?;
        let (f, done) = self.branch_on(c);
        for ty in [types::I64, self.ptr, types::I64, types::I64] {
            self.b.append_block_param(done, ty);
        }
        let mut size = None;
        for (k, arm) in [then, els].into_iter().enumerate() {
            if k == 1 {
                self.b.switch_to_block(f);
            }
            let v = if matches!(arm.ty, Type::CArray(..)) && arm.place {
                let zero = self.b.ins().iconst(types::I64, 0);
                self.array_pointer(arm, zero)?
            } else {
                self.ptr_value(arm)?
            };
            let PtrV::At(alloc, off) = v else {
                return decline(Decline::PointerUse(
                    "a conditional of a pointer bound to its element (a view's element, through a reference, reinterpreted)",
                ));
            };
            // The chosen object's union member would need its tag chosen too.
            if alloc.member.is_some() {
                return decline(Decline::UnionMemberAccess);
            }
            if alloc.key != AllocKey::Null {
                if size.is_some_and(|s| s != alloc.size) {
                    return decline(Decline::PointerUse(
                        "a conditional of pointers of two sizes",
                    ));
                }
                size = Some(alloc.size);
            }
            let Some(id) = self.alloc_id(&alloc.key) else {
                return decline(Decline::PointerUse(
                    "a conditional of pointers into vectors",
                ));
            };
            let len = self.len_value(alloc.len);
            self.b.ins().jump(
                done,
                &[id.into(), alloc.base.into(), len.into(), off.into()],
            );
        }
        self.b.switch_to_block(done);
        let [id, base, len, off] = self.b.block_params(done) else {
            return decline(Decline::Pointer);
        };
        let (id, base, len, off) = (*id, *base, *len, *off);
        Ok(PtrV::At(
            Rc::new(PtrAlloc {
                key: AllocKey::Chosen(id),
                base,
                size: size.unwrap_or(0),
                len: Len::Runtime(len),
                member: None,
            }),
            off,
        ))
    }

    /// Gives a pointer local that may point into more than one object the
    /// value `v`: its object's identity, first element, length, offset.
    fn set_chosen(&mut self, c: ChosenPtr, v: PtrV) -> R<()> {
        let PtrV::At(from, off) = v else {
            return decline(Decline::PointerUse(
                "a pointer given the value of one bound to its element (a view's element, through a reference, reinterpreted)",
            ));
        };
        if from.member.is_some() {
            return decline(Decline::UnionMemberAccess);
        }
        if from.key != AllocKey::Null && from.size != c.size {
            return decline(Decline::PointerUse(
                "a pointer given a value of another size",
            ));
        }
        let Some(id) = self.alloc_id(&from.key) else {
            return decline(Decline::PointerUse(
                "a pointer into a vector given a value in another object",
            ));
        };
        let len = self.len_value(from.len);
        self.b.def_var(c.id, id);
        self.b.def_var(c.base, from.base);
        self.b.def_var(c.len, len);
        self.b.def_var(c.off, off);
        Ok(())
    }

    /// The run-time identity of an allocation: null 0, an object of the
    /// kernel its position among those seen plus one, a chosen one what
    /// the run holds. A vector's elements have none (two names may reach
    /// one vector: see [`Emitter::same_elements`]).
    fn alloc_id(&mut self, key: &AllocKey) -> Option<Value> {
        let n = match key {
            AllocKey::Chosen(id) => return Some(*id),
            AllocKey::Elements(_) => return None,
            AllocKey::Null => 0,
            AllocKey::Object { .. } => match self.alloc_ids.iter().position(|k| k == key) {
                Some(k) => k + 1,
                None => {
                    self.alloc_ids.push(key.clone());
                    self.alloc_ids.len()
                }
            },
        };
        Some(self.b.ins().iconst(types::I64, n as i64))
    }

    /// Whether `x` and `y` are one allocation in this run, when either is
    /// one a pointer local chose (`None` otherwise, or for a vector's).
    fn same_chosen(&mut self, x: &PtrAlloc, y: &PtrAlloc) -> Option<Value> {
        if !matches!(x.key, AllocKey::Chosen(_)) && !matches!(y.key, AllocKey::Chosen(_)) {
            return None;
        }
        let xi = self.alloc_id(&x.key)?;
        let yi = self.alloc_id(&y.key)?;
        Some(self.b.ins().icmp(IntCC::Equal, xi, yi))
    }

    /// Gives pointer local `target` the value `v` (of its allocation) and
    /// returns it.
    fn set_pointer(&mut self, target: &Expr, v: PtrV) -> R<PtrV> {
        let ExprKind::Local(l) = &target.kind else {
            return decline(Decline::Pointer);
        };
        if let Some(Slot::ChosenPtr(c)) = self.scope().slots.get(l) {
            let c = *c;
            self.set_chosen(c, v)?;
            return Ok(self.chosen_value(c));
        }
        let Some(Slot::Ptr(alloc, var)) = self.scope().slots.get(l) else {
            return decline(Decline::PointerUse(
                "a pointer changed that was bound to its element (a view's element, through a reference, reinterpreted)",
            ));
        };
        let (alloc, var) = (Rc::clone(alloc), *var);
        match v {
            PtrV::At(from, off) if from.key == alloc.key => {
                self.b.def_var(var, off);
                Ok(PtrV::At(alloc, off))
            }
            // Another name of a vector's elements (an iterator from outside
            // given another's value): checked to be the same vector.
            PtrV::At(from, off) if let Some(same) = self.same_elements(&from, &alloc) => {
                self.guard(same);
                self.b.def_var(var, off);
                Ok(PtrV::At(alloc, off))
            }
            _ => decline(Decline::PointerUse(
                "a pointer given a value in another object than its first",
            )),
        }
    }

    /// A pointer comparison: equality of any two, order within one
    /// allocation (the interpreter refuses any other: the launch fails).
    pub(super) fn ptr_compare(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr) -> R<Value> {
        let a = self.ptr_value(lhs)?;
        let b = self.ptr_value(rhs)?;
        let (PtrV::At(x, i), PtrV::At(y, j)) = (a, b) else {
            return decline(Decline::PointerUse(
                "a comparison of a pointer bound to its element (a view's element, through a reference, reinterpreted)",
            ));
        };
        // Two allocations only the run tells apart: one a pointer local
        // chose, or two names of vectors (compared by address).
        let same = if matches!(x.key, AllocKey::Chosen(_)) || matches!(y.key, AllocKey::Chosen(_)) {
            let Some(same) = self.same_chosen(&x, &y) else {
                return decline(Decline::PointerUse(
                    "a comparison of a pointer into a vector with one given values in several objects",
                ));
            };
            Some(same)
        } else if x.key != y.key {
            self.same_elements(&x, &y)
        } else {
            None
        };
        if let Some(same) = same {
            let Some(cc) = super::arith::signed_cc(op) else {
                return decline(Decline::Pointer);
            };
            let at = self.b.ins().icmp(cc, i, j);
            return Ok(match op {
                // Two objects are never equal, as in the interpreter.
                BinOp::Eq => self.b.ins().band(same, at),
                BinOp::Ne => {
                    let other = self.b.ins().bxor_imm_u(same, 1);
                    self.b.ins().bor(other, at)
                }
                // Order needs one object (one vector), as in the
                // interpreter.
                _ => {
                    self.guard(same);
                    at
                }
            });
        }
        if x.key != y.key {
            return Ok(match op {
                BinOp::Eq => self.b.ins().iconst(types::I8, 0),
                BinOp::Ne => self.b.ins().iconst(types::I8, 1),
                _ => {
                    let no = self.b.ins().iconst(types::I8, 0);
                    self.guard(no);
                    no
                }
            });
        }
        let Some(cc) = super::arith::signed_cc(op) else {
            return decline(Decline::Pointer);
        };
        Ok(self.b.ins().icmp(cc, i, j))
    }

    /// `a - b`: elements between two pointers into one allocation (a
    /// `long`); pointers into two fail the launch, as in the interpreter.
    pub(super) fn ptr_diff(&mut self, lhs: &Expr, rhs: &Expr) -> R<Value> {
        let a = self.ptr_value(lhs)?;
        let b = self.ptr_value(rhs)?;
        let (PtrV::At(x, i), PtrV::At(y, j)) = (a, b) else {
            return decline(Decline::PointerUse(
                "a difference of pointers bound to their elements (a view's element, through a reference, reinterpreted)",
            ));
        };
        if x.key != y.key {
            let same = match self.same_chosen(&x, &y) {
                Some(same) => same,
                None => match self.same_elements(&x, &y) {
                    Some(same) => same,
                    None => self.b.ins().iconst(types::I8, 0),
                },
            };
            self.guard(same);
        }
        Ok(self.b.ins().isub(i, j))
    }

    /// A pointer as a `bool`: not null.
    pub(super) fn ptr_truth(&mut self, e: &Expr) -> R<Value> {
        let v = self.ptr_value(e)?;
        if let PtrV::At(a, _) = &v
            && let AllocKey::Chosen(id) = a.key
        {
            return Ok(self.b.ins().icmp_imm_s(IntCC::NotEqual, id, 0));
        }
        let null = matches!(&v, PtrV::At(a, _) if a.key == AllocKey::Null);
        Ok(self.b.ins().iconst(types::I8, i64::from(!null)))
    }

    /// A pointer parameter bound to its argument: a moving pointer gets a
    /// variable of its own, a bound one the place.
    pub(super) fn pointer_arg(&mut self, a: &Expr) -> R<Slot> {
        Ok(match self.ptr_value(a)? {
            PtrV::Fixed(p) => Slot::Ref(p),
            PtrV::At(alloc, off) => {
                let var = self.var(types::I64);
                self.b.def_var(var, off);
                Slot::Ptr(alloc, var)
            }
        })
    }

    /// A pointer local declared with its value. A bound one to a place in
    /// a variable (a scalar local) is refused: the plans see writes
    /// through a reference only where it is bound, and a pointer local,
    /// unlike an argument, outlives the statement that binds it. So is a
    /// pointer living across barriers (it would need a frame slot).
    pub(super) fn let_pointer(&mut self, l: LocalId, init: Option<&Init>) -> R<()> {
        let Some(Init::Expr(e)) = init else {
            return decline(Decline::Pointer);
        };
        let in_frame = self.scope().frame.contains_key(&l);
        let func = self.scope().func;
        if !in_frame && self.reassigned(func, l) {
            let Some(pointee) = self.prog.function(func).local(l).ty.pointee().cloned() else {
                return decline(Decline::Pointer);
            };
            let size = self.elem_size(&pointee)?;
            let c = ChosenPtr {
                id: self.var(types::I64),
                base: self.var(self.ptr),
                len: self.var(types::I64),
                off: self.var(types::I64),
                size,
            };
            let v = self.ptr_value(e)?;
            self.set_chosen(c, v)?;
            self.scope_mut().slots.insert(l, Slot::ChosenPtr(c));
            return Ok(());
        }
        let slot = match self.ptr_value(e)? {
            // The frame keeps no union tag's address.
            PtrV::At(alloc, _) if in_frame && alloc.member.is_some() => {
                return decline(Decline::UnionMemberAccess);
            }
            PtrV::At(alloc, off) => {
                // Later regions find the allocation's address in the frame
                // and its identity here.
                if in_frame {
                    let scope = self.scope().id;
                    let base = self.var(self.ptr);
                    self.b.def_var(base, alloc.base);
                    self.frame_pointers
                        .insert((scope, l), (Rc::clone(&alloc), base));
                }
                let var = self.var(types::I64);
                self.b.def_var(var, off);
                Slot::Ptr(alloc, var)
            }
            // A place has no form in the frame.
            PtrV::Fixed(_) if in_frame => return decline(Decline::Pointer),
            PtrV::Fixed(place) => {
                let mut source = e;
                while let ExprKind::Convert(inner) = &source.kind {
                    source = inner;
                }
                // Another pointer's place is the caller's, or memory already.
                if !matches!(source.kind, ExprKind::Local(_)) && !matches!(place, Place::Mem(..)) {
                    return decline(Decline::PointerToVariable);
                }
                Slot::Ref(place)
            }
        };
        self.scope_mut().slots.insert(l, slot);
        Ok(())
    }

    /// The place `*p` names: a moving pointer's element, checked to be one
    /// of its allocation's.
    pub(super) fn deref_place(&mut self, inner: &Expr) -> R<Place> {
        let Some(pointee) = inner.ty.pointee().cloned() else {
            return decline(Decline::Pointer);
        };
        match self.ptr_value(inner)? {
            PtrV::Fixed(p) => Ok(p),
            PtrV::At(alloc, off) => {
                // Null has no element: the check fails, and the address
                // after it is never reached.
                if alloc.key == AllocKey::Null {
                    self.fail_here();
                    return Ok(Place::Mem(alloc.base, pointee));
                }
                self.check_below_len(off, alloc.len);
                let bytes = self.b.ins().imul_imm_s(off, i64::from(alloc.size));
                let at = self.b.ins().iadd(alloc.base, bytes);
                if let Some(member) = &alloc.member {
                    let access = self.unions.access;
                    self.touch_member(member, at, access)?;
                }
                Ok(Place::Mem(at, pointee))
            }
        }
    }

    /// A pointer local living across barriers, loaded from its frame slot
    /// at the start of a region: its offset, and its allocation's address,
    /// which is the same for the work-item in every region of its tile
    /// (`tile_static` memory, its frame, a stack slot, a capture). Before
    /// its declaration has been emitted it is not loaded: the declaration
    /// binds it.
    pub(super) fn frame_to_pointer(&mut self, l: LocalId, slot: FrameSlot) -> R<()> {
        let scope = self.scope().id;
        let Some((alloc, base_var)) = self.frame_pointers.get(&(scope, l)).cloned() else {
            return Ok(());
        };
        let addr = self.frame_addr(slot);
        let off = self.b.ins().load(types::I64, flags(), addr, 0);
        let base = self.b.ins().load(self.ptr, flags(), addr, 8);
        let var = self.var(types::I64);
        self.b.def_var(var, off);
        self.b.def_var(base_var, base);
        let alloc = Rc::new(PtrAlloc {
            base,
            ..(*alloc).clone()
        });
        self.scope_mut().slots.insert(l, Slot::Ptr(alloc, var));
        Ok(())
    }

    /// Stores a pointer local living across barriers to its frame slot at
    /// the end of a region (see [`Emitter::frame_to_pointer`]).
    /// The address is kept in a variable of its own, set where the
    /// pointer is declared or loaded: the end of a region may be reached
    /// from a `return` before either.
    pub(super) fn pointer_to_frame(&mut self, l: LocalId, var: Variable, slot: FrameSlot) -> R<()> {
        let scope = self.scope().id;
        let Some((_, base_var)) = self.frame_pointers.get(&(scope, l)).cloned() else {
            return decline(Decline::Pointer);
        };
        let addr = self.frame_addr(slot);
        let off = self.b.use_var(var);
        let base = self.b.use_var(base_var);
        self.b.ins().store(flags(), off, addr, 0);
        self.b.ins().store(flags(), base, addr, 8);
        Ok(())
    }
}
