//! Hands kernel launches to another engine (the JIT) as plain data.
//!
//! The captured values become [`Arg`]s and each distinct storage a captured
//! view reaches becomes one [`Buffer`]; the results are copied back only
//! when the engine ran the launch to its end. Anything the data form cannot
//! carry (a view over a C array, a struct capture, a vector of structs) keeps
//! the launch in the interpreter.

use crate::machine::Machine;
use crate::value::{Storage, Value, ViewData};
use std::rc::Rc;
use tessera_ir::{Capture, FuncId, Scalar, Type};
use tessera_runtime::launch::{Arg, Bits, Buffer, Launch, LaunchOutcome};

impl Machine<'_> {
    /// Offers the launch to the engine; true when the engine ran it and its
    /// results are in place, false when the interpreter must run it.
    pub(crate) fn offload(
        &mut self,
        kernel: FuncId,
        ext: &[i64],
        values: &[Value],
        decls: &[Capture],
    ) -> bool {
        let Some(engine) = self.engine.take() else {
            return false;
        };
        let ran = match self.marshal(kernel, ext, values, decls) {
            Some((mut launch, storages)) => {
                let bytes: u64 = launch
                    .buffers
                    .iter()
                    .map(|b| (b.len as u64).saturating_mul(u64::from(b.elem.size())))
                    .fold(0, u64::saturating_add);
                // The copies count against the memory limit while they live;
                // when they do not fit, the interpreter runs the launch in place.
                if self.meter.take(bytes).is_err() {
                    false
                } else {
                    let outcome = engine.launch(&mut launch);
                    if outcome == LaunchOutcome::Done {
                        for (buffer, storage) in launch.buffers.iter().zip(&storages) {
                            unmarshal(buffer, storage);
                        }
                    }
                    self.meter.give(bytes);
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
        &self,
        kernel: FuncId,
        ext: &[i64],
        values: &[Value],
        decls: &[Capture],
    ) -> Option<(Launch, Vec<Rc<Storage>>)> {
        let mut storages: Vec<Rc<Storage>> = Vec::new();
        let mut buffers = Vec::new();
        let mut args = Vec::with_capacity(values.len());
        for (v, decl) in values.iter().zip(decls) {
            let arg = match (&decl.ty, v) {
                (Type::Scalar(_), Value::Bool(b)) => Arg::Scalar(Bits::Bool(*b)),
                (Type::Scalar(_), Value::Int(n)) => Arg::Scalar(Bits::Int(*n)),
                (Type::Scalar(_), Value::Float(f)) => Arg::Scalar(Bits::Float(*f)),
                (Type::Scalar(_), Value::Double(d)) => Arg::Scalar(Bits::Double(*d)),
                (Type::Index(_) | Type::Extent(_), Value::Agg(_)) => Arg::Shape(v.dims()),
                (Type::Array(elem, _) | Type::ArrayView { elem, .. }, Value::View(view)) => {
                    let elem = elem.scalar()?;
                    let ViewData::Storage(storage) = &view.data else {
                        return None;
                    };
                    let buffer = match storages.iter().position(|s| Rc::ptr_eq(s, storage)) {
                        Some(i) => i,
                        None => {
                            buffers.push(marshal_storage(storage, elem)?);
                            storages.push(Rc::clone(storage));
                            storages.len() - 1
                        }
                    };
                    // Two views of one storage must agree on its element type.
                    if buffers[buffer].elem != elem {
                        return None;
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
        };
        Some((launch, storages))
    }
}

/// The storage's elements in C++ layout (never-written elements read as zero,
/// as the interpreter reads them).
fn marshal_storage(storage: &Storage, elem: Scalar) -> Option<Buffer> {
    let data = storage.data.borrow();
    let mut buffer = Buffer::zeroed(elem, data.len())?;
    for (i, v) in data.iter().enumerate() {
        let bits = match v {
            Value::Bool(b) => Bits::Bool(*b),
            Value::Int(n) => Bits::Int(*n),
            Value::Float(f) => Bits::Float(*f),
            Value::Double(d) => Bits::Double(*d),
            Value::Uninit => continue,
            _ => return None,
        };
        buffer.set(i, bits);
    }
    Some(buffer)
}

/// Copies the engine's results back into the storage.
fn unmarshal(buffer: &Buffer, storage: &Storage) {
    let mut data = storage.data.borrow_mut();
    for (i, slot) in data.iter_mut().enumerate() {
        if let Some(bits) = buffer.get(i) {
            let v = match bits {
                Bits::Bool(b) => Value::Bool(b),
                Bits::Int(n) => Value::Int(n),
                Bits::Float(f) => Value::Float(f),
                Bits::Double(d) => Value::Double(d),
            };
            // Never-written elements stay never-written unless the kernel
            // wrote them (it can only have written a value over a zero).
            if !(matches!(slot, Value::Uninit) && is_zero(bits)) {
                *slot = v;
            }
        }
    }
}

fn is_zero(bits: Bits) -> bool {
    match bits {
        Bits::Bool(b) => !b,
        Bits::Int(n) => n == 0,
        Bits::Float(f) => f.to_bits() == 0,
        Bits::Double(d) => d.to_bits() == 0,
    }
}
