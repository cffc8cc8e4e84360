//! Element accesses of a kernel's statements as closures: an element of a
//! captured view read, and an element of a C array (`tile_static` or
//! private) written.
//!
//! A tiled kernel's statements between barriers (a tile's loads into
//! `tile_static` memory, mostly) run once per work-item and barrier
//! interval; through the tree walker each of them builds a [`Place`] for
//! both sides and matches every node again. Here the decisions are made
//! once, as in the rest of `fast`: the work is the walker's (`read`'s and
//! `write`'s, including `--check`'s records), and anything but an access
//! in bounds of plain data is handed to the walker before anything was
//! done, so that it reports what there is to report.

use super::numbers::{IndexOperand, NumExpr, Number};
use super::{ArrayRoot, Compiler, FastExpr};
use crate::value::{Path, Place, Root, Value, ViewData, leaf_mut, write_path};
use std::rc::Rc;
use tessera_ir::{Expr, ExprKind, Intrinsic, Type};

/// The highest rank the closures here handle; a higher one is the walker's.
const MAX_RANK: usize = 4;

impl<'p> Compiler<'p> {
    /// `view(i, j, ...)` of a captured view in a kernel, giving what `read`
    /// makes of the element (see `Compiler::element_as`); the walker's way
    /// is `intrinsic_place` then `Machine::read`.
    pub(super) fn view_element_as<T: 'p>(
        &self,
        e: &'p Expr,
        args: &'p [Expr],
        read: impl Fn(&Value) -> Option<T> + Copy + 'p,
        convert: impl Fn(Value) -> T + Copy + 'p,
    ) -> NumExpr<'p, T> {
        let walker = move || -> NumExpr<'p, T> { Box::new(move |m| m.eval(e).map(convert)) };
        let [view, index] = args else {
            return walker();
        };
        let ExprKind::Capture(capture) = view.kind else {
            return walker();
        };
        let ExprKind::Intrinsic {
            op: Intrinsic::MakeShape,
            args: coords,
        } = &index.kind
        else {
            return walker();
        };
        if coords.len() > MAX_RANK || !coords.iter().all(crate::expr::pure) {
            return walker();
        }
        let coords: Vec<IndexOperand<'p>> = coords.iter().map(|c| self.index_operand(c)).collect();
        Box::new(move |m| {
            // On the host a view access also synchronises: the walker's.
            if !m.in_kernel {
                return m.eval(e).map(convert);
            }
            let mut at = [0i64; MAX_RANK];
            for (k, c) in coords.iter().enumerate() {
                match c.get(m)? {
                    Some(i) => at[k] = i,
                    None => return m.eval(e).map(convert),
                }
            }
            let Some(Value::View(view)) = m.launch.captures.get(capture as usize) else {
                return m.eval(e).map(convert);
            };
            let ViewData::Storage(storage) = &view.data else {
                return m.eval(e).map(convert);
            };
            let rank = coords.len();
            if view.extent.len() != rank || view.strides.len() != rank {
                return m.eval(e).map(convert);
            }
            let mut offset = view.offset;
            for ((&i, &n), &stride) in at.iter().zip(&view.extent).zip(&view.strides) {
                if i < 0 || i >= n {
                    return m.eval(e).map(convert);
                }
                offset += i as usize * stride;
            }
            let found = storage.element_with(offset, read);
            let Some(found) = found else {
                return m.eval(e).map(convert);
            };
            if m.checker.on {
                let place = Place {
                    root: Root::elem(Rc::clone(storage), offset),
                    path: Path::new(),
                };
                m.check_access(&place, e.span, false, false)?;
            }
            Ok(found)
        })
    }

    /// `a[i][j]... = value` of a C array variable with an element of number
    /// type `N` and a value of that type (so `copy_value` keeps it as it
    /// is): the walker's `finish_assign` with the place made here. Indices
    /// out of bounds, a private array under `--check` (its host accesses
    /// are recorded) and a local that is not plain go to `finish_assign`
    /// with the value, which makes the place again from the pure indices.
    pub(super) fn assign_element<N: Number>(&self, e: &'p Expr) -> FastExpr<'p> {
        let ExprKind::Assign { target, value } = &e.kind else {
            return Box::new(move |m| m.eval(e));
        };
        let v = self.operand::<N>(value);
        let general = move |v: super::numbers::Operand<'p, N>| -> FastExpr<'p> {
            Box::new(move |m| {
                let x = v.get(m)?;
                m.finish_assign(e, target, value, x.value())
            })
        };
        let mut indices: Vec<(IndexOperand<'p>, i64)> = Vec::new();
        let mut node: &'p Expr = target;
        while let ExprKind::Element { base, index } = &node.kind {
            let Type::CArray(_, n) = &base.ty else {
                return general(v);
            };
            if !crate::expr::pure(index) {
                return general(v);
            }
            indices.push((self.index_operand(index), i64::from(*n)));
            node = base;
        }
        let ExprKind::Local(id) = node.kind else {
            return general(v);
        };
        let rank = indices.len();
        if rank == 0 || rank > MAX_RANK {
            return general(v);
        }
        let root = match self.ts_slot.get(id.index()) {
            Some(Some(slot)) => ArrayRoot::TileStatic(*slot),
            _ => ArrayRoot::Local(id),
        };
        Box::new(move |m| {
            let x = v.get(m)?;
            // The outermost index is the last step of the path.
            let mut path = [0u32; MAX_RANK];
            for (k, (index, n)) in indices.iter().enumerate() {
                match index.get(m)? {
                    Some(i) if i >= 0 && i < *n => path[rank - 1 - k] = i as u32,
                    _ => return m.finish_assign(e, target, value, x.value()),
                }
            }
            let path = &path[..rank];
            let array = match root {
                ArrayRoot::TileStatic(slot) => {
                    if slot as usize >= m.launch.tile_static.len() {
                        return m.finish_assign(e, target, value, x.value());
                    }
                    if m.checker.on {
                        m.check_tile_static(slot, path, e.span, true)?;
                    }
                    m.launch.tile_static.get_mut(slot as usize)
                }
                ArrayRoot::Local(id) => match m.checker.on {
                    true => None,
                    false => m.plain_local(id),
                },
            };
            let Some(array) = array else {
                return m.finish_assign(e, target, value, x.value());
            };
            match leaf_mut(array, path) {
                Some(leaf) => leaf.store(x.value()),
                // As `Machine::write`: a path that leads nowhere writes
                // nothing; one through a union makes its member active.
                None => {
                    write_path(array, path, x.value());
                }
            }
            Ok(x.value())
        })
    }
}
