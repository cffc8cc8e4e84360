//! Frame slots: the kernel's locals declared at the level of its barriers
//! live across them, so each work-item keeps them in its frame; counters
//! uniform across the tile and `tile_static` variables need no slot.

use super::facts::Facts;
use super::uniform::{collect_uniform_lets, uniform_counters};
use crate::decline::{Decline, R, decline};
use tessera_ir::layout::size_align;
use tessera_ir::{Block as IrBlock, Function, LocalId, Space};

/// Where the kernel's locals that live across barriers sit in a
/// work-item's frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FramePlan {
    /// Each such local and its byte offset, in declaration order.
    pub(crate) slots: Vec<(LocalId, u32)>,
    /// The end of the last slot: where inlined functions' slots start.
    pub(crate) end: u32,
}

impl Facts<'_> {
    /// Finds the counters of loops with barriers that are uniform across
    /// the tile (kept in [`Facts::uniform`]) and gives every other local
    /// declared at the level of the barriers a frame slot.
    pub(crate) fn plan_frame(&mut self, func: &Function, body: &IrBlock) -> R<FramePlan> {
        let mut at_barriers = Vec::new();
        collect_uniform_lets(body, &self.barriers, &mut at_barriers);
        self.uniform = uniform_counters(self.prog, body, &self.barriers);
        let mut frame = FramePlan::default();
        let mut at = 0u32;
        for id in at_barriers {
            let local = func.local(id);
            if local.space == Space::TileStatic || self.uniform.contains(&id) {
                continue;
            }
            if local.by_ref {
                return decline(Decline::ReferenceDeclaredBetweenBarriers);
            }
            let Some((size, align)) = size_align(&self.prog.structs, &local.ty) else {
                return decline(Decline::LocalTypeDeclaredBetweenBarriers);
            };
            at = at.next_multiple_of(align.max(1));
            frame.slots.push((id, at));
            at = at.saturating_add(size);
        }
        frame.end = at;
        Ok(frame)
    }
}
