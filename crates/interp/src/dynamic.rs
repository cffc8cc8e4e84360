//! Virtual calls.
//!
//! An object of a polymorphic class holds its dynamic class in a hidden
//! field (`Program::dynamic`): a constructor sets it to its own class once
//! the bases are built, a destructor to its own class before its body, as
//! C++ says for calls made during construction and destruction. Every
//! other copy of an object is a complete object of its static type (a
//! derived object copied into a base is sliced), so a copy takes its
//! static type's class; an assignment keeps the class of the object
//! assigned to (C++'s assignment copies members, not the virtual table
//! pointer). A virtual call reads the class of the object it is made on
//! and runs the final overrider there, on the subobject of the overrider's
//! class.

use crate::machine::{Machine, Res};
use crate::value::{Place, Pointer, Value, get_path, write_path};
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Expr, FuncId, StructId, Type};

impl Machine<'_> {
    /// `v`, an object of type `ty` about to become a complete object of
    /// that type: a polymorphic object's dynamic class becomes `ty`'s.
    pub(crate) fn as_complete_object(&self, mut v: Value, ty: &Type) -> Value {
        if self.prog.dynamic.is_empty() {
            return v;
        }
        if let (Type::Struct(id), Value::Agg(_)) = (ty, &v)
            && let Some(path) = self.prog.dynamic_class_path(*id)
        {
            write_path(&mut v, &path, Value::Int(i64::from(id.0)));
        }
        v
    }

    /// `v` about to be assigned to the object at `place` of type `ty`: it
    /// keeps the dynamic class the object has (assigning to a base
    /// subobject leaves the complete object what it is).
    pub(crate) fn keep_dynamic_class(
        &mut self,
        place: &Place,
        mut v: Value,
        ty: &Type,
        span: Span,
    ) -> Res<Value> {
        if self.prog.dynamic.is_empty() {
            return Ok(v);
        }
        let Type::Struct(id) = ty else {
            return Ok(v);
        };
        let Some(path) = self.prog.dynamic_class_path(*id) else {
            return Ok(v);
        };
        let old = self.read(place, span)?;
        if let Some(Value::Int(class)) = get_path(&old, &path) {
            write_path(&mut v, &path, Value::Int(class));
        }
        Ok(v)
    }

    /// True when `func` is a virtual member function (a call through a
    /// pointer to it is virtual).
    pub(crate) fn is_virtual(&self, func: FuncId) -> bool {
        if self.prog.dynamic.is_empty() {
            return false;
        }
        let f = self.prog.function(func);
        match f.locals.first() {
            Some(this) if this.by_ref && f.params > 0 => match &this.ty {
                Type::Struct(class) => self
                    .prog
                    .dynamic
                    .get(class)
                    .is_some_and(|d| d.overriders.contains_key(&func)),
                _ => false,
            },
            _ => false,
        }
    }

    /// A virtual call of `func` with `args` (the object first): the final
    /// overrider in the object's dynamic class, and its arguments.
    pub(crate) fn virtual_target(
        &mut self,
        func: FuncId,
        args: &[Expr],
        span: Span,
    ) -> Res<(FuncId, Vec<Value>)> {
        let prog = self.prog;
        let declared = prog.function(func);
        let (Some(object), Some(Type::Struct(class))) =
            (args.first(), declared.locals.first().map(|l| &l.ty))
        else {
            return Err(self.error(codes::R0007, span, "a virtual call without an object"));
        };
        let place = self.place(object)?;
        let dynamic = self.dynamic_class(&place, *class, span)?;
        let chosen = prog.final_overrider(dynamic, func);
        let target = prog.function(chosen);
        if target.body.is_none() {
            let name = target.name.clone();
            return Err(self
                .error(
                    codes::R0025,
                    span,
                    format!("pure virtual function `{name}` called"),
                )
                .with_label("a virtual call that reaches a pure virtual function")
                .with_note(
                    "during a constructor or destructor, calls go to the class being built or destroyed, \
                     whose function here is pure; C++ stops the program (`pure virtual method called`)",
                )
                .with_help("do not call virtual functions from constructors and destructors of abstract classes")
                .into());
        }
        // The complete object of the dynamic class, then its subobject of
        // the overrider's class.
        let to_static = prog.dynamic_base_path(dynamic, *class).unwrap_or_default();
        let Some(keep) = place.path.len().checked_sub(to_static.len()) else {
            return Err(self.bad_object(span));
        };
        if place.path[keep..] != to_static[..] {
            return Err(self.bad_object(span));
        }
        let owner = match target.locals.first().map(|l| &l.ty) {
            Some(Type::Struct(owner)) => *owner,
            _ => dynamic,
        };
        let mut this = Place {
            root: place.root.clone(),
            path: place.path[..keep].iter().copied().collect(),
        };
        this.path
            .extend(prog.dynamic_base_path(dynamic, owner).unwrap_or_default());
        let mut out = Vec::with_capacity(args.len());
        out.push(Value::Ref(Rc::new(this)));
        let rest = self.call_args(chosen, &args[1..])?;
        out.extend(rest);
        Ok((chosen, out))
    }

    /// The dynamic class of the object at `place`, whose static class is
    /// `class`.
    fn dynamic_class(&mut self, place: &Place, class: StructId, span: Span) -> Res<StructId> {
        let Some(path) = self.prog.dynamic_class_path(class) else {
            return Ok(class);
        };
        let v = self.read(place, span)?;
        let found = match get_path(&v, &path) {
            Some(Value::Int(id)) => u32::try_from(id).ok().map(StructId),
            _ => None,
        };
        match found {
            Some(id) if self.prog.dynamic_base_path(id, class).is_some() => Ok(id),
            _ => Err(self.bad_object(span)),
        }
    }

    /// `static_cast<D*>(b)` (`dynamic` false) and `dynamic_cast<D*>(b)`
    /// (`dynamic` true) of the pointer `ptr`: the `to` object whose base
    /// subobject `*b` is, reached from it through the base fields `strip`
    /// (for a static cast) or through its dynamic class's polymorphic bases.
    pub(crate) fn downcast(
        &mut self,
        ptr: &Expr,
        to: StructId,
        strip: &[u32],
        dynamic: bool,
        span: Span,
    ) -> Res<Value> {
        let v = self.eval(ptr)?;
        let Value::Ptr(p) = &v else {
            return Ok(v);
        };
        if p.is_null() {
            return Ok(v);
        }
        let place = self.deref_place(&v, span)?;
        let from = match ptr.ty.pointee() {
            Some(Type::Struct(id)) => *id,
            _ => return Ok(Pointer::null()),
        };
        let prog = self.prog;
        if dynamic {
            let class = self.dynamic_class(&place, from, span)?;
            let (Some(up), Some(down)) = (
                prog.dynamic_base_path(class, from),
                prog.dynamic_base_path(class, to),
            ) else {
                return Ok(Pointer::null());
            };
            let Some(keep) = place.path.len().checked_sub(up.len()) else {
                return Err(self.bad_object(span));
            };
            if place.path[keep..] != up[..] {
                return Err(self.bad_object(span));
            }
            let mut object = Place {
                root: place.root.clone(),
                path: place.path[..keep].iter().copied().collect(),
            };
            object.path.extend(down);
            return Ok(self.object_address(object));
        }
        let fits = place
            .path
            .len()
            .checked_sub(strip.len())
            .filter(|&keep| place.path[keep..] == strip[..]);
        let Some(keep) = fits else {
            return Err(self.not_derived(to, span));
        };
        let object = Place {
            root: place.root.clone(),
            path: place.path[..keep].iter().copied().collect(),
        };
        // The object must be a `to`: of that dynamic class or one derived
        // from it when the class is polymorphic, of its number of fields
        // otherwise (all the memory can tell).
        if prog.dynamic_class_path(to).is_some() {
            let class = self.dynamic_class(&object, to, span);
            if class.is_err() {
                return Err(self.not_derived(to, span));
            }
        } else {
            let fields = prog.get_struct(to).map_or(0, |s| s.fields.len());
            match self.read(&object, span)? {
                Value::Agg(parts) if parts.len() == fields => {}
                _ => return Err(self.not_derived(to, span)),
            }
        }
        Ok(self.object_address(object))
    }

    /// A pointer to the object at `place`, which may be an element of a C
    /// array: then a pointer into the array, so that arithmetic on it
    /// reaches the other elements as in C++.
    fn object_address(&mut self, place: Place) -> Value {
        if let Some((&last, parent)) = place.path.split_last()
            && let Some(Type::CArray(_, n)) = self.place_type(&place.root, parent)
        {
            let array = Place {
                root: place.root.clone(),
                path: parent.iter().copied().collect(),
            };
            let generation = self.root_generation(&array.root);
            return Value::Ptr(Rc::new(Pointer {
                target: crate::value::Target::Place {
                    place: array,
                    array: true,
                    len: n,
                    generation,
                },
                offset: i64::from(last),
                stamp: 0,
                generation: 0,
            }));
        }
        self.address_of_place(place)
    }

    /// The type of the part `path` of a local or global `root`, when it can
    /// be told.
    fn place_type(&mut self, root: &crate::value::Root, path: &[u32]) -> Option<Type> {
        let prog = self.prog;
        let mut ty = match root {
            crate::value::Root::Local(_, slot) | crate::value::Root::HostLocal(_, slot) => {
                let depth = match root {
                    crate::value::Root::Local(d, _) => *d,
                    crate::value::Root::HostLocal(d, _) => *d,
                    _ => return None,
                };
                let frame = match root {
                    crate::value::Root::Local(..) => self.strand().stack.get(depth as usize),
                    _ => self.host.stack.get(depth as usize),
                }?;
                let func = prog.get_function(frame.func?)?;
                let local = func.locals.get(*slot as usize)?;
                if local.by_ref {
                    return None;
                }
                local.ty.clone()
            }
            crate::value::Root::Global(g) => prog.globals.get(*g as usize)?.ty.clone(),
            _ => return None,
        };
        for &i in path {
            ty = match ty {
                Type::Struct(id) => prog.get_struct(id)?.fields.get(i as usize)?.1.clone(),
                Type::CArray(elem, _) => *elem,
                _ => return None,
            };
        }
        Some(ty)
    }

    /// The error of a `static_cast` to a pointer or reference to `to` of an
    /// object that is not part of a `to`.
    fn not_derived(&self, to: StructId, span: Span) -> crate::machine::Stop {
        let name = self
            .prog
            .get_struct(to)
            .map_or_else(String::new, |s| s.name.clone());
        self.error(
            codes::R0026,
            span,
            format!("`static_cast` to `{name}` of an object that is not a `{name}`"),
        )
        .with_label("the object is not the base part of this class")
        .with_note("C++ leaves a downcast to the wrong class undefined")
        .with_help("use `dynamic_cast` when the object's class is not known, and check the result")
        .into()
    }

    /// The error of a virtual call on memory that holds no object of the
    /// class (never built, or read as another type).
    fn bad_object(&self, span: Span) -> crate::machine::Stop {
        self.error(
            codes::R0025,
            span,
            "virtual call on memory that holds no object of the class",
        )
        .with_label("the object's dynamic class cannot be found")
        .with_note("the object was never constructed, or the memory holds another type")
        .with_help("call virtual functions on objects that were constructed")
        .into()
    }
}
