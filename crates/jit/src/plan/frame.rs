//! Frame slots: the kernel's locals declared at the level of its barriers
//! live across them, so each work-item keeps them in its frame; counters
//! uniform across the tile, `tile_static` variables and copies of the
//! work-item's coordinates (computed again in each region) need no slot.

use super::facts::Facts;
use super::lanes::{let_initialisers, ref_initialisers};
use super::locals::mutated_locals;
use super::ranges::const_int;
use super::uniform::{collect_uniform_lets, uniform_counters};
use crate::decline::{Decline, R, decline};
use std::collections::{HashMap, HashSet};
use tessera_ir::facts::Barriers;
use tessera_ir::layout::size_align;
use tessera_ir::visit::{walk_block, walk_stmt};
use tessera_ir::{
    Block as IrBlock, Expr, ExprKind, Function, Intrinsic, LocalId, Space, StmtKind,
    TiledIndexPart, Type,
};

/// Bytes of a pointer's frame slot: its offset, then its allocation's
/// address.
pub(crate) const POINTER_SLOT: u32 = 16;

/// Bytes of the frame slot of a reference that keeps its address there
/// (see [`Facts::ref_addressed`]).
pub(crate) const REFERENCE_SLOT: u32 = 8;

/// Bytes and alignment of the frame image of a value of type `ty`, for a
/// local living across barriers: a plain type's own layout, a view's
/// words (base, offset, then its extents and strides, 8 bytes each), and
/// a struct holding views its fields' images in order, each aligned
/// ([`image_fields`], which the emitter reads and writes them by).
pub(crate) fn image_layout(prog: &tessera_ir::Program, ty: &Type) -> Option<(u32, u32)> {
    if let Some(plain) = size_align(&prog.structs, ty) {
        return Some(plain);
    }
    match ty {
        Type::ArrayView { rank, .. } => Some((8 * (2 + 2 * u32::from(*rank)), 8)),
        Type::Struct(_) => {
            let image = image_fields(prog, ty)?;
            Some((image.end.next_multiple_of(image.align), image.align))
        }
        _ => None,
    }
}

/// The frame image of a struct holding views, field by field.
pub(crate) struct ImageFields {
    /// Each field's offset in the image, and its type.
    pub(crate) fields: Vec<(u32, Type)>,
    /// Where the last field ends.
    pub(crate) end: u32,
    /// The image's alignment.
    pub(crate) align: u32,
}

/// The fields of a struct holding views with their offsets in its frame
/// image.
pub(crate) fn image_fields(prog: &tessera_ir::Program, ty: &Type) -> Option<ImageFields> {
    let Type::Struct(id) = ty else {
        return None;
    };
    let def = prog.get_struct(*id)?;
    if def.is_union {
        return None;
    }
    let (mut at, mut align) = (0u32, 1u32);
    let mut fields = Vec::with_capacity(def.fields.len());
    for (_, fty) in &def.fields {
        let (size, a) = image_layout(prog, fty)?;
        at = at.next_multiple_of(a.max(1));
        fields.push((at, fty.clone()));
        at = at.checked_add(size)?;
        align = align.max(a);
    }
    Some(ImageFields {
        fields,
        end: at,
        align,
    })
}

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
        let lets: HashMap<LocalId, Expr> = let_initialisers(body).into_iter().collect();
        let mut mutated = HashSet::new();
        mutated_locals(self.prog, body, &mut mutated);
        self.remat.clear();
        self.ref_remat.clear();
        self.ref_addressed.clear();
        let ref_targets: HashMap<LocalId, Expr> = ref_initialisers(body).into_iter().collect();
        let mut remat: HashSet<LocalId> = HashSet::new();
        let confined = confined_lets(body, &self.barriers);
        for id in at_barriers {
            let local = func.local(id);
            if local.space == Space::TileStatic
                || self.uniform.contains(&id)
                || confined.contains(&id)
            {
                continue;
            }
            if !local.by_ref
                && local.space == Space::Private
                && matches!(local.ty, Type::Scalar(_))
                && !mutated.contains(&id)
                && let Some(init) = lets.get(&id)
                && recomputable(init, &remat)
            {
                remat.insert(id);
                self.remat.push((id, init.clone()));
                continue;
            }
            // A pointer to a place every region can name again, never
            // changed.
            if matches!(local.ty, Type::Ptr { .. })
                && !mutated.contains(&id)
                && let Some(init) = lets.get(&id)
                && super::pointers::recomputable_pointer(func, init, &|e| {
                    recomputable_scalar(e, &remat)
                })
            {
                remat.insert(id);
                self.remat.push((id, init.clone()));
                continue;
            }
            // A view the kernel made over a `tile_static` array or a
            // captured view, never assigned: made again where a region
            // names it (the same memory, the same checks).
            if !local.by_ref
                && matches!(local.ty, Type::ArrayView { .. })
                && !mutated.contains(&id)
                && let Some(init) = lets.get(&id)
                && recomputable_view(func, init, &remat)
            {
                remat.insert(id);
                self.remat.push((id, init.clone()));
                continue;
            }
            // A reference bound to a place every region can name again:
            // bound again where a region names it (a reference is never
            // bound anew, and what its place's indices name never changes).
            // Kept out of `remat`, so no copy computed again reads through
            // it (the place's value may change; the copy's must not).
            // A reference bound to another reference (`double& b = a;`)
            // names what that one names.
            if local.by_ref
                && let Some(target) = ref_targets
                    .get(&id)
                    .map(|t| through_refs(func, t, &ref_targets))
                && super::pointers::recomputable_place(func, target, &|e| {
                    recomputable_scalar(e, &remat)
                })
            {
                self.ref_remat.push((id, target.clone()));
                continue;
            }
            // A reference bound to memory that lives through the launch
            // (a captured view's element, a `tile_static` variable's
            // part): its address, taken where it is bound, in the frame.
            if local.by_ref
                && let Some(target) = ref_targets
                    .get(&id)
                    .map(|t| through_refs(func, t, &ref_targets))
                && in_launch_memory(func, target)
            {
                at = at.next_multiple_of(REFERENCE_SLOT);
                frame.slots.push((id, at));
                at = at.saturating_add(REFERENCE_SLOT);
                self.ref_addressed.insert(id);
                continue;
            }
            if local.by_ref {
                return decline(Decline::ReferenceDeclaredBetweenBarriers);
            }
            // A pointer's slot holds its element offset and the address of
            // its allocation's first element (see `emit/pointers.rs`).
            // A struct holding views keeps its frame image (see
            // `image_layout`).
            let layout = match local.ty {
                Type::Ptr { .. } => Some((POINTER_SLOT, 8)),
                _ => image_layout(self.prog, &local.ty),
            };
            let Some((size, align)) = layout else {
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

/// Whether the place `e` is memory that stays where it is for the whole
/// launch, whatever its indices: an element of a captured view or array,
/// a `tile_static` variable or a part of one.
fn in_launch_memory(func: &Function, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(l) => func
            .get_local(*l)
            .is_some_and(|l| l.space == Space::TileStatic && !l.by_ref),
        ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => {
            in_launch_memory(func, base)
        }
        ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::ViewElement,
            args,
        } => args
            .first()
            .is_some_and(|v| matches!(v.kind, ExprKind::Capture(_))),
        _ => false,
    }
}

/// The place `target` names once each reference local it is (directly)
/// is replaced by what that reference was bound to.
fn through_refs<'e>(
    func: &Function,
    mut target: &'e Expr,
    ref_targets: &'e HashMap<LocalId, Expr>,
) -> &'e Expr {
    // A chain is as long as the references declared one after another;
    // the bound stops a cycle, which C++ cannot write.
    for _ in 0..64 {
        match &target.kind {
            ExprKind::Local(l) if func.get_local(*l).is_some_and(|l| l.by_ref) => {
                match ref_targets.get(l) {
                    Some(next) => target = next,
                    None => break,
                }
            }
            _ => break,
        }
    }
    target
}

/// The locals declared inside a statement without barriers at the level of
/// the barriers (a `for`'s counter, a block's locals) and named nowhere
/// else: the statement is part of one region, so they never live across a
/// barrier and need no frame slot. (A block's locals cannot be named after
/// it in C++; counting the names keeps this true whatever the IR groups
/// in a block.)
fn confined_lets(body: &IrBlock, barriers: &Barriers) -> HashSet<LocalId> {
    fn names(count: &mut HashMap<LocalId, usize>) -> impl FnMut(&Expr) + '_ {
        move |e| {
            if let ExprKind::Local(l) = e.kind {
                *count.entry(l).or_insert(0) += 1;
            }
        }
    }
    fn visit(
        block: &IrBlock,
        barriers: &Barriers,
        total: &HashMap<LocalId, usize>,
        out: &mut HashSet<LocalId>,
    ) {
        for s in &block.stmts {
            match &s.kind {
                StmtKind::Block(inner) if barriers.in_stmt(s) => {
                    visit(inner, barriers, total, out);
                }
                StmtKind::If { then, els, .. } if barriers.in_stmt(s) => {
                    visit(then, barriers, total, out);
                    if let Some(e) = els {
                        visit(e, barriers, total, out);
                    }
                }
                StmtKind::Loop { body, .. } if barriers.in_stmt(s) => {
                    visit(body, barriers, total, out);
                }
                StmtKind::Switch { arms, .. } if barriers.in_stmt(s) => {
                    for arm in arms {
                        visit(&arm.body, barriers, total, out);
                    }
                }
                StmtKind::Let { .. } => {}
                _ if barriers.in_stmt(s) => {}
                _ => {
                    let mut declared = Vec::new();
                    let mut here = HashMap::new();
                    {
                        let mut count = names(&mut here);
                        walk_stmt(
                            s,
                            &mut |inner| {
                                if let StmtKind::Let { local, .. } = inner.kind {
                                    declared.push(local);
                                }
                            },
                            &mut count,
                        );
                    }
                    for l in declared {
                        if here.get(&l) == total.get(&l) {
                            out.insert(l);
                        }
                    }
                }
            }
        }
    }
    let mut total = HashMap::new();
    {
        let mut count = names(&mut total);
        walk_block(body, &mut |_| {}, &mut count);
    }
    let mut out = HashSet::new();
    visit(body, barriers, &total, &mut out);
    out
}

/// Whether scalar `e` (an index or offset of a pointer computed again)
/// can be computed again with the same value: a [`recomputable`] value, or
/// one converted or computed from such. A check on the way fails again
/// only where it failed where the pointer was declared: the same values.
fn recomputable_scalar(e: &Expr, remat: &HashSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Convert(inner) => {
            matches!((&inner.ty, &e.ty), (Type::Scalar(_), Type::Scalar(_)))
                && recomputable_scalar(inner, remat)
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            matches!((&lhs.ty, &rhs.ty), (Type::Scalar(_), Type::Scalar(_)))
                && recomputable_scalar(lhs, remat)
                && recomputable_scalar(rhs, remat)
        }
        ExprKind::Unary { operand, .. } => {
            matches!(operand.ty, Type::Scalar(_)) && recomputable_scalar(operand, remat)
        }
        _ => recomputable(e, remat),
    }
}

/// Whether `e` can be computed again, with the same value and without a
/// check that could fail, wherever the work-item is known: a constant, a
/// captured scalar, a component of the tiled index (its local or global
/// index, tile or tile origin), or a local in `remat`.
/// `array_view<T, N> v(extent, source)` whose extent every region can
/// compute again (constants, captured scalars, copies computed again) and
/// whose source every region names the same: a `tile_static` C array of
/// the kernel, or a captured view or array.
fn recomputable_view(func: &tessera_ir::Function, e: &Expr, remat: &HashSet<LocalId>) -> bool {
    let ExprKind::Intrinsic {
        op: Intrinsic::NewView,
        args,
    } = &e.kind
    else {
        return false;
    };
    let [extent, source] = args.as_slice() else {
        return false;
    };
    // Arithmetic on values every region has (it cannot fail where it did
    // not at the view's declaration: the same operands give the same
    // result).
    fn arithmetic(e: &Expr, remat: &HashSet<LocalId>) -> bool {
        match &e.kind {
            ExprKind::Binary { lhs, rhs, .. } => arithmetic(lhs, remat) && arithmetic(rhs, remat),
            ExprKind::Unary { operand, .. } => arithmetic(operand, remat),
            ExprKind::Convert(inner) => arithmetic(inner, remat),
            _ => recomputable(e, remat),
        }
    }
    let extent_ok = match &extent.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::MakeShape,
            args: components,
        } => components.iter().all(|c| arithmetic(c, remat)),
        ExprKind::Capture(_) => true,
        _ => false,
    };
    let source_ok = match &source.kind {
        ExprKind::Local(l) => func.is_tile_static(*l) && matches!(source.ty, Type::CArray(..)),
        ExprKind::Capture(_) => matches!(source.ty, Type::Array(..) | Type::ArrayView { .. }),
        _ => false,
    };
    extent_ok && source_ok
}

fn recomputable(e: &Expr, remat: &HashSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Local(l) => remat.contains(l),
        ExprKind::Capture(_) => matches!(e.ty, Type::Scalar(_)),
        ExprKind::Intrinsic {
            op: Intrinsic::ShapeComponent,
            args,
        } => {
            let [shape, k] = args.as_slice() else {
                return false;
            };
            let ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(part),
                ..
            } = &shape.kind
            else {
                return false;
            };
            let Type::Index(rank) = shape.ty else {
                return false;
            };
            matches!(
                part,
                TiledIndexPart::Local
                    | TiledIndexPart::Global
                    | TiledIndexPart::Tile
                    | TiledIndexPart::TileOrigin
            ) && const_int(k).is_some_and(|k| k >= 0 && k < i64::from(rank))
        }
        _ => false,
    }
}
