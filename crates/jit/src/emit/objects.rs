//! Structs holding views made in a kernel (a class with a view member
//! built by its constructor, copied, changed, destroyed): such a struct
//! has no plain layout, so a local of one lives field by field, each field
//! in variables (a scalar, an index, a view's base, offset, extents and
//! strides), in memory (a plain struct or C array, in a stack slot of its
//! own) or again field by field. Its fields are places: writing one writes
//! the variables, and a copy copies every field (the memory ones byte by
//! byte), so two objects never share a field.
//!
//! A copy of a captured struct that nothing changes stays the capture
//! itself (`V::Obj`, read-only); see `Emitter::let_stmt`.

use super::*;

/// A local struct holding views, field by field.
#[derive(Clone, Debug)]
pub(super) enum FieldVars {
    /// A scalar (one variable) or an index or extent (`rank` of them).
    Vars(Vec<Variable>, Type),
    /// A view: its base, offset, extents and strides.
    View(ViewVars),
    /// A plain struct or C array, in a stack slot of its own.
    Mem(Value, Type),
    /// A struct holding views.
    Obj(Vec<FieldVars>),
}

/// A view field: a variable per word of the view.
#[derive(Clone, Debug)]
pub(super) struct ViewVars {
    base: Variable,
    offset: Variable,
    ext: Vec<Variable>,
    strides: Vec<Variable>,
    elem: Type,
    elem_size: u32,
}

impl Emitter<'_, '_, '_> {
    /// The fields of a new object of struct type `ty` (holding views),
    /// zeroed: a view never given a value has no elements, so any access
    /// to it fails and the interpreter runs the launch.
    pub(super) fn new_fields(&mut self, ty: &Type) -> R<Vec<FieldVars>> {
        let Type::Struct(id) = ty else {
            return decline(Decline::AggregateType);
        };
        let Some(def) = self.prog.get_struct(*id) else {
            return decline(Decline::UnknownStruct);
        };
        if def.is_union {
            return decline(Decline::Union);
        }
        let tys: Vec<Type> = def.fields.iter().map(|(_, t)| t.clone()).collect();
        let mut out = Vec::with_capacity(tys.len());
        for fty in tys {
            out.push(self.new_field(&fty)?);
        }
        Ok(out)
    }

    fn new_field(&mut self, ty: &Type) -> R<FieldVars> {
        Ok(match ty {
            Type::Scalar(s) => {
                let var = self.var(clif_type(*s));
                let z = self.zero(*s);
                self.b.def_var(var, z);
                FieldVars::Vars(vec![var], ty.clone())
            }
            Type::Index(r) | Type::Extent(r) => {
                let vars: Vec<Variable> = (0..*r)
                    .map(|_| {
                        let var = self.var(types::I32);
                        let z = self.b.ins().iconst(types::I32, 0);
                        self.b.def_var(var, z);
                        var
                    })
                    .collect();
                FieldVars::Vars(vars, ty.clone())
            }
            Type::ArrayView { elem, rank, .. } => {
                let Some((elem_size, _)) = size_align(&self.prog.structs, elem) else {
                    return decline(Decline::AggregateType);
                };
                let mut word = || {
                    let var = self.var(types::I64);
                    let z = self.b.ins().iconst(types::I64, 0);
                    self.b.def_var(var, z);
                    var
                };
                let base = word();
                let offset = word();
                let ext = (0..*rank).map(|_| word()).collect();
                let strides = (0..*rank).map(|_| word()).collect();
                FieldVars::View(ViewVars {
                    base,
                    offset,
                    ext,
                    strides,
                    elem: (**elem).clone(),
                    elem_size,
                })
            }
            Type::Struct(_) if places::held_views(self.prog, ty) => {
                FieldVars::Obj(self.new_fields(ty)?)
            }
            Type::Struct(_) | Type::CArray(..) => {
                let Some((size, align)) = size_align(&self.prog.structs, ty) else {
                    return decline(Decline::AggregateType);
                };
                let ss = self.aggregate_stack_slot(ty, size, align)?;
                let addr = self.slot_addr(&Slot::Stack(ss))?;
                self.zero_mem(addr, ty)?;
                FieldVars::Mem(addr, ty.clone())
            }
            _ => return decline(Decline::AggregateType),
        })
    }

    /// The place of one field of an object held field by field.
    pub(super) fn field_place(&mut self, fields: &[FieldVars], k: u32) -> R<Place> {
        Ok(match fields.get(k as usize) {
            Some(FieldVars::Vars(vars, ty)) => match vars.as_slice() {
                [one] if ty.scalar().is_some() => Place::Var(*one),
                _ => Place::Shape(vars.clone()),
            },
            Some(FieldVars::View(v)) => Place::ViewVars(v.clone()),
            Some(FieldVars::Mem(addr, ty)) => Place::Mem(*addr, ty.clone()),
            Some(FieldVars::Obj(sub)) => Place::Fields(sub.clone()),
            None => return decline(Decline::FieldType),
        })
    }

    /// The value of an object held field by field.
    pub(super) fn read_fields(&mut self, fields: &[FieldVars]) -> Vec<V> {
        fields
            .iter()
            .map(|f| match f {
                FieldVars::Vars(vars, ty) => match vars.as_slice() {
                    [one] if ty.scalar().is_some() => V::S(self.b.use_var(*one)),
                    _ => V::Shape(vars.iter().map(|v| self.b.use_var(*v)).collect()),
                },
                FieldVars::View(v) => V::View(self.read_view_vars(v)),
                FieldVars::Mem(addr, _) => V::Mem(*addr),
                FieldVars::Obj(sub) => V::Obj(self.read_fields(sub)),
            })
            .collect()
    }

    /// Variables holding the view `v`, for a view that may be given
    /// another.
    pub(super) fn view_vars(&mut self, v: &ViewV) -> ViewVars {
        let mut hold = |x: Value| {
            let var = self.var(types::I64);
            self.b.def_var(var, x);
            var
        };
        ViewVars {
            base: hold(v.base),
            offset: hold(v.offset),
            ext: v.ext.iter().map(|&x| hold(x)).collect(),
            strides: v.strides.iter().map(|&x| hold(x)).collect(),
            elem: v.elem.clone(),
            elem_size: v.elem_size,
        }
    }

    /// The view a view field holds.
    pub(super) fn read_view_vars(&mut self, v: &ViewVars) -> ViewV {
        ViewV {
            base: self.b.use_var(v.base),
            offset: self.b.use_var(v.offset),
            ext: v.ext.iter().map(|x| self.b.use_var(*x)).collect(),
            strides: v.strides.iter().map(|x| self.b.use_var(*x)).collect(),
            elem: v.elem.clone(),
            elem_size: v.elem_size,
        }
    }

    /// Gives a view field the view `x` (of the same element type and rank).
    pub(super) fn write_view_vars(&mut self, v: &ViewVars, x: &ViewV) -> R<()> {
        if x.ext.len() != v.ext.len() || x.strides.len() != v.strides.len() || x.elem != v.elem {
            return decline(Decline::AssignmentKind);
        }
        let words = [(v.base, x.base), (v.offset, x.offset)]
            .into_iter()
            .chain(v.ext.iter().copied().zip(x.ext.iter().copied()))
            .chain(v.strides.iter().copied().zip(x.strides.iter().copied()));
        for (var, val) in words.collect::<Vec<_>>() {
            if self.b.func.dfg.value_type(val) != types::I64 {
                return decline(Decline::AssignmentKind);
            }
            self.b.def_var(var, val);
        }
        Ok(())
    }

    /// Gives an object held field by field the value `values` (field by
    /// field, the memory ones copied).
    pub(super) fn write_fields(&mut self, fields: &[FieldVars], values: &[V]) -> R<()> {
        if fields.len() != values.len() {
            return decline(Decline::AssignmentKind);
        }
        for (f, v) in fields.iter().zip(values) {
            match (f, v) {
                (FieldVars::Vars(vars, _), V::S(_) | V::Shape(_)) => {
                    if let V::Shape(cs) = v
                        && cs.len() != vars.len()
                    {
                        return decline(Decline::AssignmentKind);
                    }
                    self.set_vars(vars, v);
                }
                (FieldVars::View(vv), V::View(x)) => self.write_view_vars(vv, x)?,
                (FieldVars::Mem(addr, ty), V::Mem(_)) => self.store_value(*addr, ty, v)?,
                (FieldVars::Obj(sub), V::Obj(xs)) => self.write_fields(sub, xs)?,
                _ => return decline(Decline::AssignmentKind),
            }
        }
        Ok(())
    }

    /// A struct holding views living across barriers, loaded from its
    /// frame image into its fields (made at the first load; a region that
    /// declares it makes its own) at the start of a region.
    pub(super) fn frame_to_object(&mut self, l: LocalId, off: FrameSlot, ty: &Type) -> R<()> {
        let addr = self.frame_addr(off);
        let values = self.load_image(addr, ty)?;
        let fields = match self.scope().slots.get(&l) {
            Some(Slot::Ref(Place::Fields(fields))) => fields.clone(),
            _ => {
                let fields = self.new_fields(ty)?;
                self.scope_mut()
                    .slots
                    .insert(l, Slot::Ref(Place::Fields(fields.clone())));
                fields
            }
        };
        self.write_fields(&fields, &values)
    }

    /// A struct holding views living across barriers, stored to its frame
    /// image at the end of a region (if the region gave it a value).
    pub(super) fn object_to_frame(&mut self, l: LocalId, off: FrameSlot, ty: &Type) -> R<()> {
        let values = match self.scope().slots.get(&l).cloned() {
            Some(Slot::Ref(Place::Fields(fields))) => self.read_fields(&fields),
            Some(Slot::Ref(Place::Obj(values))) => values,
            _ => return Ok(()),
        };
        let addr = self.frame_addr(off);
        self.store_image(addr, ty, &values)
    }

    /// The fields of a struct holding views, each with its offset in the
    /// struct's frame image (see [`crate::plan::frame::image_fields`]).
    fn image_fields(&self, ty: &Type) -> R<Vec<(i32, Type)>> {
        let Some(image) = crate::plan::frame::image_fields(self.prog, ty) else {
            return decline(Decline::LocalTypeDeclaredBetweenBarriers);
        };
        if i32::try_from(image.end).is_err() {
            return decline(Decline::LocalTypeDeclaredBetweenBarriers);
        }
        Ok(image
            .fields
            .into_iter()
            .map(|(at, fty)| (at as i32, fty))
            .collect())
    }

    /// Writes the value of a struct holding views (`values`, field by
    /// field) as its frame image at `addr`.
    fn store_image(&mut self, addr: Value, ty: &Type, values: &[V]) -> R<()> {
        let fields = self.image_fields(ty)?;
        if fields.len() != values.len() {
            return decline(Decline::LocalTypeDeclaredBetweenBarriers);
        }
        for ((offset, fty), v) in fields.into_iter().zip(values) {
            let at = self.b.ins().iadd_imm_s(addr, i64::from(offset));
            match v {
                V::View(view) => {
                    let words = [view.base, view.offset]
                        .into_iter()
                        .chain(view.ext.iter().copied())
                        .chain(view.strides.iter().copied());
                    for (k, word) in words.enumerate() {
                        self.b.ins().store(flags(), word, at, (k * 8) as i32);
                    }
                }
                V::Obj(sub) => self.store_image(at, &fty, sub)?,
                _ => self.store_value(at, &fty, v)?,
            }
        }
        Ok(())
    }

    /// The value of a struct holding views, field by field, from its frame
    /// image at `addr` (a plain aggregate field as its memory there).
    fn load_image(&mut self, addr: Value, ty: &Type) -> R<Vec<V>> {
        let fields = self.image_fields(ty)?;
        let mut out = Vec::with_capacity(fields.len());
        for (offset, fty) in fields {
            let at = self.b.ins().iadd_imm_s(addr, i64::from(offset));
            out.push(match &fty {
                Type::ArrayView { elem, rank, .. } => {
                    let Some((elem_size, _)) = size_align(&self.prog.structs, elem) else {
                        return decline(Decline::AggregateType);
                    };
                    let rank = usize::from(*rank);
                    let mut word =
                        |k: usize| self.b.ins().load(types::I64, flags(), at, (k * 8) as i32);
                    let base = word(0);
                    let offset = word(1);
                    let ext = (0..rank).map(|d| word(2 + d)).collect();
                    let strides = (0..rank).map(|d| word(2 + rank + d)).collect();
                    V::View(ViewV {
                        base,
                        offset,
                        ext,
                        strides,
                        elem: (**elem).clone(),
                        elem_size,
                    })
                }
                Type::Struct(_) if places::held_views(self.prog, &fty) => {
                    V::Obj(self.load_image(at, &fty)?)
                }
                _ => self.read(&Place::Mem(at, fty.clone()))?,
            });
        }
        Ok(out)
    }

    /// Gives a new (zeroed) object of struct type `ty`, held field by
    /// field, a braced initialiser's values, field by field in order.
    pub(super) fn init_fields(&mut self, fields: &[FieldVars], ty: &Type, items: &[Init]) -> R<()> {
        let Type::Struct(id) = ty else {
            return decline(Decline::BracedInitialiserType);
        };
        let Some(def) = self.prog.get_struct(*id) else {
            return decline(Decline::UnknownStruct);
        };
        let types: Vec<Type> = def.fields.iter().map(|(_, t)| t.clone()).collect();
        for (k, item) in items.iter().enumerate() {
            let Some(fty) = types.get(k) else {
                return decline(Decline::InitialiserTooManyFields);
            };
            let place = self.field_place(fields, k as u32)?;
            match (item, place) {
                (Init::Zero, _) => {}
                (Init::Expr(e), place) => {
                    let v = self.expr(e)?;
                    self.write(&place, &v, fty)?;
                }
                (Init::List(sub), Place::Fields(sub_fields)) => {
                    self.init_fields(&sub_fields, fty, sub)?;
                }
                (Init::List(_), Place::Mem(addr, mty)) => self.init_mem(addr, &mty, item)?,
                _ => return decline(Decline::BracedInitialiserType),
            }
        }
        Ok(())
    }

    /// A new object of type `ty` holding the value `v`: a copy.
    pub(super) fn object_copy(&mut self, ty: &Type, v: &V) -> R<Vec<FieldVars>> {
        let V::Obj(values) = v else {
            return decline(Decline::AggregateValueKind);
        };
        let fields = self.new_fields(ty)?;
        self.write_fields(&fields, values)?;
        Ok(fields)
    }
}
