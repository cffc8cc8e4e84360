//! Jammed lane groups: a region run in lanes may take `J` neighbouring
//! groups of lanes (`J * lanes` work-items of one row of the tile) in
//! one pass, each group with its own vector state. Loops, blocks and
//! branches whose condition every lane shares run once for all the
//! groups; any other statement (an assignment, a masked branch) runs for
//! the first group, then the second, and so on. An unrolled dot product
//! so gets `J` independent chains of vector additions, one statement of
//! each after the other, which the processor overlaps: one group's chain
//! alone waits on the latency of every addition. Each group computes
//! exactly what it computes alone (the same operations in the same order
//! for every work-item); only the interleaving of the work-items'
//! statements changes, which the plan allows between barriers (see
//! [`Facts::lane_shape`]).

use super::*;
use crate::plan::uniform::LaneAxis;
use tessera_ir::visit::walk_block;

/// The vector states of a jammed region's lane groups.
pub(super) struct Jam {
    /// By group: its vector state while another group's is the
    /// emitter's (the first group's is the emitter's between statements,
    /// so its slot here is empty then).
    parts: Vec<Option<vector::VectorLanes>>,
    /// The lanes of one group.
    width: usize,
}

/// Lane groups per pass tried, most first: each must fit the tile's row.
/// Two measured faster than four on the tiled matmul (see
/// docs/performance.md): four groups' code outgrows what the processor
/// overlaps, and one group's vectors already overlap across passes.
const JAM_GROUPS: [usize; 2] = [2, 1];

/// Lane groups per pass tried for a region that computes on the
/// work-items' own scalars alone (see [`private_arithmetic`]): its few
/// vector operations per group leave the loop's own work (counters, the
/// test) as much of the pass, which more groups share. Four measured
/// faster than two on the barrier loop (docs/performance.md); a region
/// that reads or writes elements may take them lane by lane, and its
/// scalar lanes in four groups outnumber the registers (the barrier
/// exchange was slower with four).
const ARITHMETIC_JAM_GROUPS: [usize; 3] = [4, 2, 1];

impl Emitter<'_, '_, '_> {
    /// How many groups of `lanes` lanes a region runs per pass, in a tile
    /// whose row holds the groups whole: two for a region with a loop
    /// (its chains of dependent vector operations overlap), four for one
    /// that only computes on the work-items' own scalars, two for any
    /// other (both share the work of the loop over the work-items).
    pub(super) fn jam_groups(&self, stmts: &[Stmt], lanes: usize) -> usize {
        let Some(shape) = self.layout.tile else {
            return 1;
        };
        let Some(&last) = shape.dims().last() else {
            return 1;
        };
        if !self.layout.jam {
            return 1;
        }
        let tried: &[usize] = if !has_loop(stmts) && private_arithmetic(stmts) {
            &ARITHMETIC_JAM_GROUPS
        } else {
            &JAM_GROUPS
        };
        tried
            .iter()
            .copied()
            .find(|&j| j >= 1 && u32::try_from(j * lanes).is_ok_and(|w| last % w == 0 && last >= w))
            .unwrap_or(1)
    }

    /// Starts the vector path of each group of `width` lanes of `ctxs`
    /// (see [`Emitter::start_vector_lanes`]): the first group's state is
    /// the emitter's, the others' wait in [`Jam`].
    pub(super) fn start_groups(
        &mut self,
        stmts: &[Stmt],
        ctxs: &mut [LaneCtx],
        width: usize,
        known: &HashSet<LocalId>,
        axis: LaneAxis,
        frame: (&[(LocalId, FrameSlot)], &HashSet<LocalId>),
    ) -> R<()> {
        let mut parts = Vec::new();
        for part in ctxs.chunks_mut(width) {
            self.start_vector_lanes(stmts, part, known.clone(), axis, frame)?;
            parts.push(self.vector.take());
        }
        if parts.len() > 1 {
            self.vector = parts[0].take();
            self.jam = Some(Jam { parts, width });
        } else {
            self.vector = parts.pop().flatten();
        }
        Ok(())
    }

    /// Ends every group's vector path: by group, the frame rows it
    /// writes whole from a vector (see [`Emitter::frame_rows_written`]).
    pub(super) fn finish_groups(
        &mut self,
        ctxs: &mut [LaneCtx],
        width: usize,
        written: &[(LocalId, FrameSlot)],
    ) -> Vec<Vec<(LocalId, Value, Value)>> {
        let mut parts = match self.jam.take() {
            Some(jam) => jam.parts,
            None => vec![None],
        };
        if let Some(first) = parts.first_mut() {
            *first = self.vector.take();
        }
        let mut rows = Vec::new();
        for (part, state) in ctxs.chunks_mut(width).zip(parts) {
            self.vector = state;
            rows.push(self.frame_rows_written(part, written));
            self.finish_vector_lanes(part);
        }
        self.vector = None;
        rows
    }

    /// `s` for each group in turn, with that group's lanes and vector
    /// state.
    pub(super) fn each_group(&mut self, s: &Stmt, ctxs: &mut [LaneCtx]) -> R<()> {
        let Some(mut jam) = self.jam.take() else {
            return self.lane_stmt(s, ctxs);
        };
        if ctxs.len() != jam.width * jam.parts.len() {
            self.jam = Some(jam);
            return decline(Decline::NonScalarWhereScalarExpected);
        }
        let mut r = Ok(());
        for (j, part) in ctxs.chunks_mut(jam.width).enumerate() {
            // Group `j`'s state in the emitter; the first group's waits in
            // its slot meanwhile.
            if j > 0 {
                std::mem::swap(&mut self.vector, &mut jam.parts[j]);
            }
            r = self.lane_stmt(s, part);
            if j > 0 {
                std::mem::swap(&mut self.vector, &mut jam.parts[j]);
            }
            if r.is_err() {
                break;
            }
        }
        self.jam = Some(jam);
        r
    }
}

/// Whether `stmts` compute on locals alone: constants, captured values,
/// locals, arithmetic, conversions and assignments of locals, no element
/// of any memory and no call.
fn private_arithmetic(stmts: &[Stmt]) -> bool {
    let block = IrBlock {
        stmts: stmts.to_vec(),
    };
    let plain = std::cell::Cell::new(true);
    walk_block(&block, &mut |_| {}, &mut |e| {
        let ok = match &e.kind {
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::Capture(_)
            | ExprKind::Binary { .. }
            | ExprKind::Unary { .. }
            | ExprKind::Logical { .. }
            | ExprKind::Conditional { .. }
            | ExprKind::Convert(_) => e.ty.scalar().is_some(),
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => matches!(target.kind, ExprKind::Local(_)),
            _ => false,
        };
        if !ok {
            plain.set(false);
        }
    });
    plain.get()
}

/// Whether `stmts` hold a loop.
pub(super) fn has_loop(stmts: &[Stmt]) -> bool {
    let block = IrBlock {
        stmts: stmts.to_vec(),
    };
    let found = std::cell::Cell::new(false);
    walk_block(
        &block,
        &mut |s| {
            if matches!(s.kind, StmtKind::Loop { .. }) {
                found.set(true);
            }
        },
        &mut |_| {},
    );
    found.get()
}
