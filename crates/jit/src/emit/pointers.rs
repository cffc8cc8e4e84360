//! Pointers in kernels, bound as references: the ones
//! [`crate::plan::pointers`] lets through are made from `&place` (or from
//! another such pointer) and are only dereferenced or passed on, so each is
//! the place it was made from, computed (and bounds-checked) once where
//! the pointer is made, as the interpreter takes the address once.

use super::*;

impl Emitter<'_, '_, '_> {
    /// The place a pointer value names: `&place`, or a pointer local bound
    /// to one.
    fn pointee(&mut self, e: &Expr) -> R<Place> {
        match &e.kind {
            // A union member on the way declines (`Access::Unknown`): the
            // interpreter checks it again at each use of the pointer.
            ExprKind::AddrOf(place) => self.with_access(Access::Unknown, |lw| lw.place(place)),
            ExprKind::Convert(inner) if crate::plan::pointers::adds_const(&inner.ty, &e.ty) => {
                self.pointee(inner)
            }
            ExprKind::Local(l) => match self.scope().slots.get(l) {
                Some(Slot::Ref(p)) => Ok(p.clone()),
                _ => decline(Decline::Pointer),
            },
            _ => decline(Decline::Pointer),
        }
    }

    /// A pointer parameter bound to its argument: the place it points to,
    /// which lives in the caller for the whole call.
    pub(super) fn pointer_arg(&mut self, a: &Expr) -> R<Slot> {
        Ok(Slot::Ref(self.pointee(a)?))
    }

    /// A pointer local declared with its value. A place in a variable (a
    /// scalar local) is refused: the plans see writes through a reference
    /// only where it is bound, and a pointer local, unlike an argument,
    /// outlives the statement that binds it. So is a pointer living across
    /// barriers (it would need a frame slot).
    pub(super) fn let_pointer(&mut self, l: LocalId, init: Option<&Init>) -> R<()> {
        if self.scope().frame.contains_key(&l) {
            return decline(Decline::Pointer);
        }
        let Some(Init::Expr(e)) = init else {
            return decline(Decline::Pointer);
        };
        let place = self.pointee(e)?;
        let mut source = e;
        while let ExprKind::Convert(inner) = &source.kind {
            source = inner;
        }
        // Another pointer's place is the caller's, or memory already.
        if !matches!(source.kind, ExprKind::Local(_)) && !matches!(place, Place::Mem(..)) {
            return decline(Decline::PointerToVariable);
        }
        self.scope_mut().slots.insert(l, Slot::Ref(place));
        Ok(())
    }

    /// The place `*p` names, `p` a pointer local.
    pub(super) fn deref_place(&mut self, inner: &Expr) -> R<Place> {
        match &inner.kind {
            ExprKind::Local(_) => self.pointee(inner),
            _ => decline(Decline::Pointer),
        }
    }
}
