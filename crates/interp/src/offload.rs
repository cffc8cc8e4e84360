//! Hands kernel launches to another engine (the JIT) as plain data.
//!
//! The captured values become [`Arg`]s and each distinct memory a captured
//! view reaches (a vector's or array's storage, or a host C array) becomes
//! one [`Buffer`] in C++ layout; the results are copied back only when the
//! engine ran the launch to its end. Anything the data form cannot carry (a
//! view over a `tile_static` or private array, elements without a plain
//! layout) keeps the launch in the interpreter.

use crate::machine::Machine;
use crate::value::{Place, Root, Storage, Value, ViewData};
use std::rc::Rc;
use tessera_diagnostics::Span;
use tessera_ir::{Capture, FuncId, Type};
use tessera_runtime::launch::{Arg, Bits, Buffer, Launch, LaunchOutcome};
use tessera_runtime::layout::{field_offset, size_align};

/// Where a buffer's data came from, to copy results back.
enum Home {
    /// A vector's or array's elements; whether the kernel may write them,
    /// and whether the buffer came from a typed copy with writes the values
    /// lack.
    Storage(Rc<Storage>, bool, bool),
    /// A host C array a view was made over.
    Place(Place),
    /// A captured struct or C array (read-only in the kernel).
    Object,
}

impl Machine<'_> {
    /// Offers the launch to the engine; true when the engine ran it and its
    /// results are in place, false when the interpreter must run it.
    pub(crate) fn offload(
        &mut self,
        kernel: FuncId,
        ext: &[i64],
        values: &[Value],
        decls: &[Capture],
        span: Span,
    ) -> bool {
        let Some(engine) = self.engine.take() else {
            return false;
        };
        let ran = match self.marshal(kernel, ext, values, decls, span) {
            Some((mut launch, homes)) => {
                let bytes: u64 = launch
                    .buffers
                    .iter()
                    .map(|b| (b.len as u64).saturating_mul(u64::from(b.elem_size)))
                    .fold(0, u64::saturating_add);
                // The copies count against the memory limit while they live;
                // when they do not fit, the interpreter runs the launch in place.
                if self.meter.take(bytes).is_err() {
                    false
                } else {
                    let outcome = engine.launch(&mut launch);
                    self.meter.give(bytes);
                    if outcome == LaunchOutcome::Done {
                        for (buffer, home) in launch.buffers.into_iter().zip(&homes) {
                            self.unmarshal(buffer, home, span);
                        }
                    }
                    outcome == LaunchOutcome::Done
                }
            }
            None => {
                engine.kept(kernel);
                false
            }
        };
        self.engine = Some(engine);
        ran
    }

    fn marshal(
        &mut self,
        kernel: FuncId,
        ext: &[i64],
        values: &[Value],
        decls: &[Capture],
        span: Span,
    ) -> Option<(Launch, Vec<Home>)> {
        let structs = &self.prog.structs;
        let mut homes: Vec<Home> = Vec::new();
        let mut buffers = Vec::new();
        // Buffers some captured view may write (the rest need no copy back).
        let mut writable: Vec<bool> = Vec::new();
        let mut args = Vec::with_capacity(values.len());
        for (v, decl) in values.iter().zip(decls) {
            let arg = match (&decl.ty, v) {
                (Type::Scalar(_), v) => Arg::Scalar(bits(v)?),
                (Type::Index(_) | Type::Extent(_), Value::Agg(_)) => Arg::Shape(v.dims()),
                (ty @ (Type::Struct(_) | Type::CArray(..)), v) => {
                    let (size, _) = size_align(structs, ty)?;
                    let mut buffer = Buffer::zeroed(ty.clone(), size, 1)?;
                    write_object(structs, &mut buffer, 0, ty, v)?;
                    buffers.push(buffer);
                    homes.push(Home::Object);
                    writable.push(false);
                    Arg::Object {
                        buffer: buffers.len() - 1,
                    }
                }
                (Type::Array(elem, _) | Type::ArrayView { elem, .. }, Value::View(view)) => {
                    let read_only = matches!(
                        decl.ty,
                        Type::ArrayView {
                            read_only: true,
                            ..
                        }
                    );
                    let (size, _) = size_align(structs, elem)?;
                    let found = homes.iter().position(|h| match (h, &view.data) {
                        (Home::Storage(s, _, _), ViewData::Storage(t)) => Rc::ptr_eq(s, t),
                        (Home::Place(p), ViewData::Place(q)) => same_place(p, q),
                        _ => false,
                    });
                    let buffer = match found {
                        Some(i) => i,
                        None => {
                            let (items, home) = match &view.data {
                                ViewData::Storage(s) => {
                                    let (buffer, dirty) = match s.device_copy() {
                                        Some(copy) => copy,
                                        None => {
                                            (marshal_items(structs, elem, size, &s.data())?, false)
                                        }
                                    };
                                    buffers.push(buffer);
                                    homes.push(Home::Storage(Rc::clone(s), false, dirty));
                                    writable.push(false);
                                    let b = buffers.len() - 1;
                                    if !read_only {
                                        writable[b] = true;
                                    }
                                    if buffers[b].elem != **elem || buffers[b].elem_size != size {
                                        return None;
                                    }
                                    args.push(Arg::View {
                                        buffer: b,
                                        offset: view.offset,
                                        extent: view.extent.clone(),
                                        strides: view.strides.clone(),
                                    });
                                    continue;
                                }
                                ViewData::Place(p) => {
                                    if !matches!(
                                        p.root,
                                        Root::Local(..) | Root::HostLocal(..) | Root::Global(_)
                                    ) || self.in_kernel
                                    {
                                        return None;
                                    }
                                    match self.read(p, span).ok()? {
                                        Value::Agg(items) => {
                                            ((*items).clone(), Home::Place(p.clone()))
                                        }
                                        _ => return None,
                                    }
                                }
                            };
                            let buffer = marshal_items(structs, elem, size, &items)?;
                            buffers.push(buffer);
                            homes.push(home);
                            writable.push(false);
                            buffers.len() - 1
                        }
                    };
                    // Two views of one memory must agree on its element type.
                    if buffers[buffer].elem != **elem {
                        return None;
                    }
                    if !read_only {
                        writable[buffer] = true;
                    }
                    Arg::View {
                        buffer,
                        offset: view.offset,
                        extent: view.extent.clone(),
                        strides: view.strides.clone(),
                    }
                }
                _ => return None,
            };
            args.push(arg);
        }
        let launch = Launch {
            kernel,
            extent: ext.to_vec(),
            args,
            buffers,
            deadline: self.deadline(),
            interrupt: self.interrupt.clone(),
        };
        let homes = homes
            .into_iter()
            .zip(writable)
            .map(|(h, w)| match h {
                Home::Storage(s, _, dirty) => Home::Storage(s, w, dirty),
                Home::Place(_) if !w => Home::Object,
                other => other,
            })
            .collect();
        Some((launch, homes))
    }

    /// Puts the engine's results where the data came from: a buffer of
    /// scalars stays with its storage as its typed copy (the next launch
    /// takes it as it is; the host's next access converts it back).
    fn unmarshal(&mut self, buffer: Buffer, home: &Home, span: Span) {
        let structs = &self.prog.structs;
        let size = buffer.elem_size as usize;
        match home {
            Home::Object => {}
            Home::Storage(storage, writable, dirty) => {
                if matches!(buffer.elem, Type::Scalar(_)) {
                    storage.keep_device(buffer, *writable || *dirty);
                    return;
                }
                if !*writable {
                    return;
                }
                let mut data = storage.data_mut();
                for (i, slot) in data.iter_mut().enumerate() {
                    if let Some(v) = read_object(structs, &buffer, i * size, &buffer.elem) {
                        // Never-written elements stay never-written unless the
                        // kernel wrote them (it can only have written over a zero).
                        if !(matches!(slot, Value::Uninit) && is_zero(&v)) {
                            *slot = v;
                        }
                    }
                }
            }
            Home::Place(place) => {
                let items: Option<Vec<Value>> = (0..buffer.len)
                    .map(|i| read_object(structs, &buffer, i * size, &buffer.elem))
                    .collect();
                if let Some(items) = items {
                    // The place was read before the launch, so writing it back
                    // cannot fail for a reason the interpreter would report.
                    let _ = self.write(place, Value::Agg(Rc::new(items)), span);
                }
            }
        }
    }
}

/// Elements in C++ layout.
fn marshal_items(
    structs: &[tessera_ir::StructDef],
    elem: &Type,
    size: u32,
    items: &[Value],
) -> Option<Buffer> {
    let mut buffer = Buffer::zeroed(elem.clone(), size, items.len())?;
    if let Type::Scalar(s) = elem {
        let floating = s.is_floating();
        for (k, item) in items.iter().enumerate() {
            match item {
                // Never written: zero, as the buffer already holds.
                Value::Uninit => {}
                Value::Int(_) if floating => return None,
                v => buffer.set_at(k * size as usize, *s, bits(v)?),
            }
        }
        return Some(buffer);
    }
    for (k, item) in items.iter().enumerate() {
        write_object(structs, &mut buffer, k * size as usize, elem, item)?;
    }
    Some(buffer)
}

fn bits(v: &Value) -> Option<Bits> {
    Some(match v {
        Value::Bool(b) => Bits::Bool(*b),
        Value::Int(n) => Bits::Int(*n),
        Value::Float(f) => Bits::Float(*f),
        Value::Double(d) => Bits::Double(*d),
        // Never written: the interpreter reads it as zero.
        Value::Uninit => Bits::Int(0),
        _ => return None,
    })
}

/// Writes `v`, of type `ty`, at byte `at` of the buffer.
fn write_object(
    structs: &[tessera_ir::StructDef],
    buffer: &mut Buffer,
    at: usize,
    ty: &Type,
    v: &Value,
) -> Option<()> {
    match ty {
        Type::Scalar(s) => {
            let b = match (bits(v)?, s.is_floating()) {
                (Bits::Int(0), true) => {
                    if *s == tessera_ir::Scalar::Float {
                        Bits::Float(0.0)
                    } else {
                        Bits::Double(0.0)
                    }
                }
                (b, _) => b,
            };
            buffer.set_at(at, *s, b);
        }
        Type::Index(_) | Type::Extent(_) => {
            for (k, d) in v.dims().iter().enumerate() {
                buffer.set_at(at + 4 * k, tessera_ir::Scalar::Int, Bits::Int(*d));
            }
        }
        Type::Struct(_) => {
            let Value::Agg(fields) = v else {
                return matches!(v, Value::Uninit).then_some(());
            };
            let Type::Struct(id) = ty else { return None };
            let def = structs.get(id.0 as usize)?;
            for (k, ((_, fty), fv)) in def.fields.iter().zip(fields.iter()).enumerate() {
                let off = field_offset(structs, ty, k as u32)? as usize;
                write_object(structs, buffer, at + off, fty, fv)?;
            }
        }
        Type::CArray(elem, _) => {
            let Value::Agg(items) = v else {
                return matches!(v, Value::Uninit).then_some(());
            };
            let (size, _) = size_align(structs, elem)?;
            for (k, item) in items.iter().enumerate() {
                write_object(structs, buffer, at + k * size as usize, elem, item)?;
            }
        }
        _ => return None,
    }
    Some(())
}

/// Reads a value of type `ty` at byte `at` of the buffer.
fn read_object(
    structs: &[tessera_ir::StructDef],
    buffer: &Buffer,
    at: usize,
    ty: &Type,
) -> Option<Value> {
    Some(match ty {
        Type::Scalar(s) => match buffer.get_at(at, *s)? {
            Bits::Bool(b) => Value::Bool(b),
            Bits::Int(n) => Value::Int(n),
            Bits::Float(f) => Value::Float(f),
            Bits::Double(d) => Value::Double(d),
        },
        Type::Index(r) | Type::Extent(r) => Value::shape(
            (0..usize::from(*r))
                .map(
                    |k| match buffer.get_at(at + 4 * k, tessera_ir::Scalar::Int) {
                        Some(Bits::Int(n)) => n,
                        _ => 0,
                    },
                )
                .collect::<Vec<i64>>(),
        ),
        Type::Struct(id) => {
            let def = structs.get(id.0 as usize)?;
            let mut fields = Vec::with_capacity(def.fields.len());
            for (k, (_, fty)) in def.fields.iter().enumerate() {
                let off = field_offset(structs, ty, k as u32)? as usize;
                fields.push(read_object(structs, buffer, at + off, fty)?);
            }
            Value::Agg(Rc::new(fields))
        }
        Type::CArray(elem, n) => {
            let (size, _) = size_align(structs, elem)?;
            let mut items = Vec::with_capacity(*n as usize);
            for k in 0..*n as usize {
                items.push(read_object(structs, buffer, at + k * size as usize, elem)?);
            }
            Value::Agg(Rc::new(items))
        }
        _ => return None,
    })
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Int(n) => *n == 0,
        Value::Float(f) => f.to_bits() == 0,
        Value::Double(d) => d.to_bits() == 0,
        _ => false,
    }
}

/// True when two places name the same object.
fn same_place(a: &Place, b: &Place) -> bool {
    let root = match (&a.root, &b.root) {
        (Root::Local(f, s), Root::Local(g, t)) | (Root::HostLocal(f, s), Root::HostLocal(g, t)) => {
            f == g && s == t
        }
        (Root::Global(x), Root::Global(y)) => x == y,
        _ => false,
    };
    root && a.path == b.path
}
