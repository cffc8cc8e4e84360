//! Bounds checks made once at a region's entry instead of per work-item.
//!
//! In a tiled kernel's staging region, `a(row, k0 + lx)` checks `k0 + lx`
//! against the view's extent for every work-item (for the first and the
//! last lane of every lane group). When such a component is a value that
//! every work-item of the tile shares (`k0`, a tile origin), plus a local
//! coordinate of the tile (`lx`, from 0 to the tile's size less one), and
//! the statement holding it runs in every work-item of the region, the
//! component takes every value from `u` to `u + size - 1` in the region,
//! so checking those two bounds at the region's entry checks them all.
//!
//! A failed entry check fails the launch before any work-item of the
//! region runs; that is only earlier than the work-item that reads out of
//! bounds would fail it. A failed launch goes to the interpreter, which
//! runs it again from its start and reports what it finds, so the answer
//! is the interpreter's either way.
//!
//! An access skips its check when its component is the same expression
//! (compared by its printed form, which holds its source span) on the
//! same view and dimension as one checked at the entry, in the kernel's
//! own scope: the emitter works on copies of the region's statements.
//! Such a component has the same value, as neither its shared part nor
//! the local coordinate is written in the region.

use super::*;

/// A component to check at a region's entry (see the module).
struct Hoisted<'s> {
    /// The view, a capture.
    view: &'s Expr,
    /// Its capture slot.
    slot: u32,
    /// The component's position in the index.
    dim: usize,
    /// The component.
    component: &'s Expr,
    /// Its part shared by the tile (a copied local's value in its place).
    shared: Expr,
    /// The local coordinate's tile size.
    size: i64,
}

/// A view index component whose bounds were checked at the entry of the
/// region being emitted.
#[derive(PartialEq, Eq)]
pub(super) struct Prechecked {
    /// The view's capture slot.
    slot: u32,
    /// The component's position in the index.
    dim: usize,
    /// The component, printed.
    component: String,
}

impl Emitter<'_, '_, '_> {
    /// Checks at the entry of the region `stmts`, in the kernel's own
    /// scope, the view index components it can check there (see the
    /// module); those components, whose accesses then skip the check.
    pub(super) fn precheck_region(&mut self, stmts: &[Stmt]) -> R<Vec<Prechecked>> {
        let mut done = Vec::new();
        let Some(shape) = self.layout.tile else {
            return Ok(done);
        };
        if self.scopes.len() != 1 {
            return Ok(done);
        }
        // Straight-line statements only: each runs in every work-item.
        let straight = stmts.iter().all(|s| match &s.kind {
            StmtKind::Expr(_) => true,
            StmtKind::Let { init, .. } => matches!(init, None | Some(Init::Expr(_) | Init::Zero)),
            _ => false,
        });
        if !straight {
            return Ok(done);
        }
        // (Not `unwritten_locals`: a copied local's value names locals the
        // region need not name, such as the tiled index.)
        let mut written = HashSet::new();
        mutated_locals(
            self.prog,
            &IrBlock {
                stmts: stmts.to_vec(),
            },
            &mut written,
        );
        let mut found: Vec<Hoisted<'_>> = Vec::new();
        for s in stmts {
            let e = match &s.kind {
                StmtKind::Expr(e)
                | StmtKind::Let {
                    init: Some(Init::Expr(e)),
                    ..
                } => e,
                _ => continue,
            };
            always_evaluated(e, &mut |x| {
                self.hoistable(x, shape, &written, &mut found);
            });
        }
        for h in found {
            let key = Prechecked {
                slot: h.slot,
                dim: h.dim,
                component: format!("{:?}", h.component),
            };
            if done.contains(&key) {
                continue;
            }
            let view = self.view(h.view)?;
            let Some(extent) = view.ext.get(h.dim).copied() else {
                continue;
            };
            let shared = self.scalar(&h.shared)?;
            let low = self.b.ins().sextend(types::I64, shared);
            let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, low, extent);
            self.guard(ok);
            let high = self.b.ins().iadd_imm_s(low, h.size - 1);
            let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, high, extent);
            self.guard(ok);
            done.push(key);
        }
        Ok(done)
    }

    /// Adds to `found` the components of `e`, if it is an element of a
    /// captured view, that are a tile-shared value plus a local coordinate
    /// (none of the shared value's locals `written` in the region).
    fn hoistable<'s>(
        &self,
        e: &'s Expr,
        shape: TileShape,
        written: &HashSet<LocalId>,
        found: &mut Vec<Hoisted<'s>>,
    ) {
        let ExprKind::Intrinsic {
            op: Intrinsic::ViewElement,
            args,
        } = &e.kind
        else {
            return;
        };
        let [view, index] = args.as_slice() else {
            return;
        };
        let Some((slot, components)) = captured_view_index(view, index) else {
            return;
        };
        let int = Some(Scalar::Int);
        for (dim, c) in components.iter().enumerate() {
            let ExprKind::Binary {
                op: BinOp::Add,
                lhs,
                rhs,
            } = &c.kind
            else {
                continue;
            };
            if c.ty.scalar() != int {
                continue;
            }
            for (shared, coord) in [(&**lhs, &**rhs), (&**rhs, &**lhs)] {
                let Some(d) = crate::plan::regions::local_coordinate(coord, &self.facts.remat)
                else {
                    continue;
                };
                let Some(&size) = shape.dims().get(d) else {
                    continue;
                };
                // A local copied from a shared value (`int by =
                // t.tile_origin[0];`) is that value.
                let shared = match &shared.kind {
                    ExprKind::Local(l) => self
                        .facts
                        .remat
                        .iter()
                        .find(|(r, _)| r == l)
                        .map_or(shared, |(_, init)| init),
                    _ => shared,
                };
                let mut names = BTreeSet::new();
                expr_locals(shared, &mut names);
                if shared.ty.scalar() == int
                    && coord.ty.scalar() == int
                    && crate::plan::vector::is_pure(shared)
                    && is_uniform(shared, &self.facts.uniform)
                    && names.iter().all(|l| !written.contains(l))
                {
                    found.push(Hoisted {
                        view,
                        slot,
                        dim,
                        component: c,
                        shared: shared.clone(),
                        size: i64::from(size),
                    });
                    break;
                }
            }
        }
    }

    /// By component of `index` into `view`, whether its bounds were
    /// checked at the region's entry (see [`Self::precheck_region`]).
    pub(super) fn prechecked(&self, view: &Expr, index: &Expr) -> Vec<bool> {
        if self.prechecked.is_empty() || self.scopes.len() != 1 {
            return Vec::new();
        }
        let Some((slot, components)) = captured_view_index(view, index) else {
            return Vec::new();
        };
        components
            .iter()
            .enumerate()
            .map(|(dim, c)| {
                let printed = format!("{c:?}");
                self.prechecked
                    .iter()
                    .any(|p| p.slot == slot && p.dim == dim && p.component == printed)
            })
            .collect()
    }
}

/// The capture slot of `view` and the components of `index`, for an
/// element `view(i, j, ...)` of a captured view.
fn captured_view_index<'e>(view: &Expr, index: &'e Expr) -> Option<(u32, &'e [Expr])> {
    match (&view.kind, &index.kind) {
        (
            ExprKind::Capture(slot),
            ExprKind::Intrinsic {
                op: Intrinsic::MakeShape,
                args,
            },
        ) => Some((*slot, args.as_slice())),
        _ => None,
    }
}

/// Calls `f` on every subexpression of `e` that is evaluated whenever `e`
/// is: all but the operands a `&&`, `||` or `?:` may skip.
fn always_evaluated<'s>(e: &'s Expr, f: &mut impl FnMut(&'s Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Logical { lhs, .. } => always_evaluated(lhs, f),
        ExprKind::Conditional { cond, .. } => always_evaluated(cond, f),
        _ => tessera_ir::visit::for_each_child(e, &mut |c| always_evaluated(c, f)),
    }
}
