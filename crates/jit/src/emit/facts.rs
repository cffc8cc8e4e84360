//! Facts read while emitting, in the current inlined call.

use super::*;

impl Emitter<'_, '_, '_> {
    /// The range of `e` in the current inlined call (see [`Facts::range_of`]).
    pub(super) fn range_of(&self, e: &Expr) -> Option<(i64, i64)> {
        self.facts.range_of(self.scope().id, e)
    }
}
