//! Hands kernel launches, and host loops, to another engine (the JIT) as
//! plain data.
//!
//! The captured values become [`Arg`]s and each distinct memory a captured
//! view reaches (a vector's or array's storage, or a host C array) becomes
//! one [`Buffer`] in C++ layout; the results are copied back only when the
//! engine ran the launch to its end. Anything the data form cannot carry (a
//! view over a `tile_static` or private array, elements without a plain
//! layout) keeps the launch in the interpreter.

use crate::machine::{Flow, Machine, Res};
use crate::value::{Place, Root, ScalarArray, Storage, Value, ViewData};
use std::rc::Rc;
use tessera_diagnostics::Span;
use tessera_ir::{Capture, FuncId, Type};
use tessera_runtime::launch::{Arg, Bits, Buffer, HostExitKind, Launch, LaunchOutcome};
use tessera_runtime::layout::{field_offset, size_align};
use tessera_runtime::union_tags;

/// Costly compiled runs in a row after which the interpreter keeps a host
/// loop.
const KEEP_AFTER: u8 = 3;

/// What handing a host loop's data over has cost. A short loop over much
/// data (a helper writing a few elements of a big vector of structs, called
/// again and again from interpreted code) spends its time converting: the
/// elements it wrote go back to the interpreter's form after the run and
/// forth at the next run (a vector of scalars is handed over as it is, and
/// costs no conversion). When that happened after a run shorter than
/// the conversion, [`KEEP_AFTER`] times in a row, the interpreter keeps the
/// loop (either engine gives the same results).
#[derive(Debug, Default)]
pub(crate) struct HostCost {
    /// Costly runs in a row.
    strikes: u8,
    /// The storages the last run wrote.
    written: Vec<std::rc::Weak<Storage>>,
    /// Their elements.
    elements: usize,
    /// How long the last run took in compiled code.
    ran_for: std::time::Duration,
    /// Bytes the last run copied in and back (written C arrays, structs
    /// and vectors of scalars, copied so that a failed run leaves them as
    /// they were for the interpreter's rerun).
    copied: usize,
}

/// The most text a compiled host statement's run keeps before it stops
/// and leaves the statement to the interpreter (which writes as it goes).
const HOST_OUTPUT_ROOM: u64 = 64 << 20;

/// A generous time to convert one element between the engines' forms.
const CONVERT_NS: u64 = 2;

/// About the time to copy a byte in and back, in picoseconds (a 4 MB
/// `int` array took 0.2 ms a run on the machine of docs/performance.md).
const COPY_PS: u64 = 50;

/// How many times slower than compiled code the interpreter runs a host
/// loop, at the least, about: a run whose copies cost more than this many
/// runs of its compiled code is better left to the interpreter, which
/// copies nothing.
const INTERPRETER_SLOWDOWN: u32 = 100;

/// Where a buffer's data came from, to put results back.
enum Home {
    /// A vector's or array's elements.
    Storage {
        storage: Rc<Storage>,
        /// Some captured view (or the host statement) may write them.
        written: bool,
        /// The buffer is the storage's own typed buffer, taken out of it
        /// rather than copied (nothing writes it, or the storage is
        /// pristine): it must go back whatever the outcome.
        taken: bool,
        /// The storage held only the zeros it was made with: a launch
        /// writing it works on its own buffer, and a failed one leaves
        /// zeros behind (no copy made up front).
        pristine: bool,
    },
    /// A host C array a view was made over.
    Place(Place),
    /// A captured struct or C array (read-only in the kernel).
    Object,
    /// A struct or C array a host statement may write: the buffer's one
    /// element goes back to this place.
    Whole(Place),
    /// A C array of scalars a host statement only reads, taken out of this
    /// place (no copy): it goes back whatever the outcome.
    Taken(Place),
}

/// Memory the engine gets as buffers, and where each came from.
struct Marshalled {
    args: Vec<Arg>,
    buffers: Vec<Buffer>,
    homes: Vec<Home>,
}

impl Marshalled {
    fn new() -> Marshalled {
        Marshalled {
            args: Vec::new(),
            buffers: Vec::new(),
            homes: Vec::new(),
        }
    }

    /// Adds a buffer and where it goes back after the run; its position.
    fn push(&mut self, buffer: Buffer, home: Home) -> usize {
        self.buffers.push(buffer);
        self.homes.push(home);
        self.buffers.len() - 1
    }

    /// The buffer of a storage's elements, made once per storage. A
    /// storage of scalars hands over its own buffer when nothing writes it
    /// (it goes back whatever the outcome), else a copy of it (a failed run
    /// then leaves the storage as it was, for the interpreter's rerun; a
    /// run to the end makes the copy the elements): a byte copy, no
    /// conversion. Other elements are converted to C++ layout.
    fn storage_buffer(
        &mut self,
        structs: &[tessera_ir::StructDef],
        storage: &Rc<Storage>,
        elem: &Type,
        size: u32,
        written: bool,
    ) -> Option<usize> {
        if let Some(i) = self
            .homes
            .iter()
            .position(|h| matches!(h, Home::Storage { storage: s, .. } if Rc::ptr_eq(s, storage)))
        {
            // One storage reached twice (a vector and a view over it): the
            // buffer goes back if either writes it; a buffer taken for
            // reading becomes a copy, the original back in the storage.
            if written
                && let Some(Home::Storage {
                    written: w,
                    taken,
                    pristine,
                    ..
                }) = self.homes.get_mut(i)
            {
                *w = true;
                if *taken && !*pristine {
                    *taken = false;
                    let copy = self.buffers[i].clone();
                    let original = std::mem::replace(&mut self.buffers[i], copy);
                    storage.give_buffer(original);
                }
            }
            return (self.buffers[i].elem == *elem).then_some(i);
        }
        // Zeros never written need no copy to fall back on: they can be
        // made again.
        let pristine = storage.pristine();
        let own = if written && !pristine {
            storage.buffer_copy().map(|b| (b, false))
        } else {
            storage.take_buffer().map(|b| (b, true))
        };
        let (buffer, taken) = match own {
            Some(own) => own,
            None => (
                marshal_items(structs, elem, size, &storage.to_values())?,
                false,
            ),
        };
        let fits = buffer.elem == *elem && buffer.elem_size == size;
        self.buffers.push(buffer);
        self.homes.push(Home::Storage {
            storage: Rc::clone(storage),
            written,
            taken,
            pristine: pristine && taken,
        });
        fits.then_some(self.buffers.len() - 1)
    }
}

impl Marshalled {
    /// The buffer of the storage under a view made by `reinterpret_as`,
    /// and the view's first element counted in its own elements from the
    /// buffer's start; `None` (the interpreter runs the launch) when
    /// compiled code could not read the bytes as the interpreter does:
    /// memory other than a storage, an element type with padding (whose
    /// bytes the interpreter refuses to read) or with a `bool` (whose bytes
    /// it checks), or a first byte that is not a whole number of elements.
    fn pun_buffer(
        &mut self,
        structs: &[tessera_ir::StructDef],
        pun: &crate::value::Pun,
        written: &[*const Storage],
    ) -> Option<(usize, usize, usize)> {
        let crate::value::Target::Storage(s) = &pun.mem else {
            return None;
        };
        let plain = |shape: &crate::value::Shape| {
            let bytes: u64 = shape
                .leaves
                .iter()
                .map(|l| u64::from(l.scalar.size()))
                .sum();
            bytes == shape.size
                && shape
                    .leaves
                    .iter()
                    .all(|l| l.scalar != tessera_ir::Scalar::Bool)
        };
        // A first byte between whole elements keeps the scalars of up to
        // 4 bytes on their natural alignment (compiled atomics need it).
        let (_, align) = size_align(structs, &pun.ty.ty)?;
        let skew = pun.base % pun.ty.size.max(1);
        if !plain(&pun.elem) || !plain(&pun.ty) || !skew.is_multiple_of(u64::from(align.min(4))) {
            return None;
        }
        let size = u32::try_from(pun.elem.size).ok()?;
        let w = written.contains(&Rc::as_ptr(s));
        let buffer = self.storage_buffer(structs, s, &pun.elem.ty, size, w)?;
        Some((
            buffer,
            usize::try_from(pun.base / pun.ty.size.max(1)).ok()?,
            usize::try_from(skew).ok()?,
        ))
    }
}

/// How deeply structs holding views may nest in a capture handed over.
const MAX_FIELD_DEPTH: u32 = 16;

/// Storages some view among `values` may write: the kernel writes the
/// capture (`kernel_writes`, by slot; a slot it does not cover counts as
/// written) and its type allows writing.
fn written_storages(
    values: &[Value],
    decls: &[Capture],
    kernel_writes: &[bool],
) -> Vec<*const Storage> {
    let mut out = Vec::new();
    for (slot, (v, decl)) in values.iter().zip(decls).enumerate() {
        let writes = matches!(
            decl.ty,
            Type::Array(..)
                | Type::ArrayView {
                    read_only: false,
                    ..
                }
        ) && kernel_writes.get(slot).copied().unwrap_or(true);
        if writes && let Value::View(view) = v {
            match &view.data {
                ViewData::Storage(s) => out.push(Rc::as_ptr(s)),
                ViewData::Pun(p) => {
                    if let crate::value::Target::Storage(s) = &p.mem {
                        out.push(Rc::as_ptr(s));
                    }
                }
                ViewData::Place(_) | ViewData::Object(_) => {}
            }
        }
    }
    out
}

impl Machine<'_> {
    /// Offers the launch to the engine; true when the engine ran it and its
    /// results are in place, false when the interpreter must run it.
    pub(crate) fn offload(
        &mut self,
        kernel: FuncId,
        ext: &[i64],
        tile: Option<tessera_ir::TileShape>,
        values: &[Value],
        decls: &[Capture],
        span: Span,
    ) -> bool {
        // An engine runs up to `MAX_KERNEL_CALL_CHAIN` nested calls
        // without a call stack: where the interpreter's could not take
        // them, it runs the launch itself (and reports the depth).
        let depth_left = self.opts.limits.max_call_depth.saturating_sub(self.depth);
        let Some(engine) = self.engine.take() else {
            return false;
        };
        if depth_left <= tessera_runtime::launch::MAX_KERNEL_CALL_CHAIN {
            engine.kept(kernel);
            self.engine = Some(engine);
            return false;
        }
        // Where the frames the interpreter would take for the launch might
        // not fit in the memory limit, it runs the launch itself, so that
        // it reports the limit where it is passed: compiled code must not
        // run a launch to its end that the interpreter stops.
        let per_tile = tile.map_or(1, |shape| shape.threads());
        let frames = self.work_item_frames(kernel).saturating_mul(per_tile);
        if self.meter.take(frames).is_err() {
            engine.kept(kernel);
            self.engine = Some(engine);
            return false;
        }
        self.meter.give(frames);
        let mut m = Marshalled::new();
        let kernel_writes = self.captures_written(kernel);
        let ran = match self.marshal(&mut m, values, decls, &kernel_writes, span) {
            Some(()) => {
                let mut launch = Launch {
                    kernel,
                    extent: ext.to_vec(),
                    args: m.args,
                    buffers: m.buffers,
                    deadline: self.deadline(),
                    interrupt: self.interrupt.clone(),
                    output: None,
                    rand: None,
                    growth: None,
                    memory_left: self.meter.left(),
                };
                let homes = m.homes;
                self.hand_over(&mut launch, homes, span, |launch| engine.launch(launch))
            }
            None => {
                self.give_back(m, span);
                engine.kept(kernel);
                false
            }
        };
        self.engine = Some(engine);
        ran
    }

    /// A bound on the frame bytes one work-item of `kernel` holds at once
    /// in the interpreter: its own frame and those of every function it
    /// can call (a chain of calls holds each at most once, as kernels
    /// cannot recurse), worked out once per kernel.
    fn work_item_frames(&mut self, kernel: FuncId) -> u64 {
        if let Some(Some(known)) = self.work_item_frames.get(kernel.index()) {
            return *known;
        }
        let graph = tessera_ir::facts::CallGraph::build(self.prog);
        let bytes = graph
            .reachable([kernel])
            .iter()
            .zip(&self.frame_bytes)
            .filter(|(reached, _)| **reached)
            .map(|(_, bytes)| *bytes)
            .fold(0u64, u64::saturating_add);
        if let Some(slot) = self.work_item_frames.get_mut(kernel.index()) {
            *slot = Some(bytes);
        }
        bytes
    }

    /// Whether each capture of `kernel` may be written by a run of it,
    /// worked out once per kernel.
    fn captures_written(&mut self, kernel: FuncId) -> Rc<[bool]> {
        if let Some(Some(known)) = self.captures_written.get(kernel.index()) {
            return Rc::clone(known);
        }
        let flags: Rc<[bool]> = match self.prog.get_function(kernel) {
            Some(f) => tessera_ir::facts::captures_written(self.prog, f).into(),
            None => Rc::from([]),
        };
        if let Some(slot) = self.captures_written.get_mut(kernel.index()) {
            *slot = Some(Rc::clone(&flags));
        }
        flags
    }

    /// Puts back what a marshalling that gave up had taken.
    fn give_back(&mut self, m: Marshalled, span: Span) {
        for (buffer, home) in m.buffers.into_iter().zip(m.homes) {
            self.put_back(buffer, home, false, span);
        }
    }

    /// Runs `run` on the launch with its buffers counted against the memory
    /// limit, then puts every buffer back where it came from.
    fn hand_over(
        &mut self,
        launch: &mut Launch,
        homes: Vec<Home>,
        span: Span,
        run: impl FnOnce(&mut Launch) -> LaunchOutcome,
    ) -> bool {
        // Copies count against the limit while they live; a storage's or a
        // C array's own buffer, handed over in place, is counted already.
        let bytes: u64 = launch
            .buffers
            .iter()
            .zip(&homes)
            .filter(|(_, h)| !matches!(h, Home::Storage { taken: true, .. } | Home::Taken(_)))
            .map(|(b, _)| (b.len as u64).saturating_mul(u64::from(b.elem_size)))
            .fold(0, u64::saturating_add);
        // When the copies do not fit in the memory limit, the interpreter
        // runs the launch in place.
        let outcome = if self.meter.take(bytes).is_ok() {
            let outcome = run(launch);
            self.meter.give(bytes);
            outcome
        } else {
            LaunchOutcome::Declined
        };
        let done = outcome == LaunchOutcome::Done;
        let buffers = std::mem::take(&mut launch.buffers);
        for (buffer, home) in buffers.into_iter().zip(homes) {
            self.put_back(buffer, home, done, span);
        }
        done
    }

    fn marshal(
        &mut self,
        m: &mut Marshalled,
        values: &[Value],
        decls: &[Capture],
        kernel_writes: &[bool],
        span: Span,
    ) -> Option<()> {
        let written = written_storages(values, decls, kernel_writes);
        for (v, decl) in values.iter().zip(decls) {
            let arg = self.marshal_arg(m, &decl.ty, v, &written, 0, span)?;
            m.args.push(arg);
        }
        Some(())
    }

    /// One captured value of type `ty` (or, at `depth` > 0, a field of a
    /// captured struct holding views) as an argument, its memory added to
    /// `m`'s buffers.
    fn marshal_arg(
        &mut self,
        m: &mut Marshalled,
        ty: &Type,
        v: &Value,
        written: &[*const Storage],
        depth: u32,
        span: Span,
    ) -> Option<Arg> {
        let structs = &self.prog.structs;
        Some(match (ty, v) {
            (Type::Scalar(_), v) => Arg::Scalar(bits(v)?),
            (Type::Index(_) | Type::Extent(_), Value::Agg(_)) => Arg::Shape(v.dims()),
            // A struct holding views goes over field by field (a view
            // inside it is written when its type lets the kernel
            // write it); the depth bound guards hand-built programs.
            (Type::Struct(id), Value::Agg(fields))
                if size_align(structs, ty).is_none() && depth < MAX_FIELD_DEPTH =>
            {
                let def = structs.get(id.index())?;
                if def.is_union || def.fields.len() != fields.len() {
                    return None;
                }
                let tys: Vec<Type> = def.fields.iter().map(|(_, t)| t.clone()).collect();
                let mut args = Vec::with_capacity(tys.len());
                for (fty, fv) in tys.iter().zip(fields.iter()) {
                    let mut w = written.to_vec();
                    if let (
                        Type::Array(..)
                        | Type::ArrayView {
                            read_only: false, ..
                        },
                        Value::View(view),
                    ) = (fty, fv)
                    {
                        match &view.data {
                            ViewData::Storage(s) => w.push(Rc::as_ptr(s)),
                            ViewData::Pun(p) => {
                                if let crate::value::Target::Storage(s) = &p.mem {
                                    w.push(Rc::as_ptr(s));
                                }
                            }
                            ViewData::Place(_) | ViewData::Object(_) => {}
                        }
                    }
                    args.push(self.marshal_arg(m, fty, fv, &w, depth + 1, span)?);
                }
                Arg::Fields(args)
            }
            (ty @ (Type::Struct(_) | Type::CArray(..)), v) => Arg::Object {
                buffer: m.push(one_object(structs, ty, v)?, Home::Object),
            },
            (Type::Array(elem, _) | Type::ArrayView { elem, .. }, Value::View(view)) => {
                // Elements holding unions carry their tags after them.
                let size = union_tags::tagged_size(structs, elem)?;
                let buffer = match &view.data {
                    ViewData::Storage(s) => {
                        let w = written.contains(&Rc::as_ptr(s));
                        m.storage_buffer(structs, s, elem, size, w)?
                    }
                    ViewData::Place(p) => {
                        let read_only = matches!(
                            ty,
                            Type::ArrayView {
                                read_only: true,
                                ..
                            }
                        );
                        self.place_buffer(m, p, elem, size, !read_only, span)?
                    }
                    ViewData::Object(p) => {
                        let read_only = matches!(
                            ty,
                            Type::ArrayView {
                                read_only: true,
                                ..
                            }
                        );
                        self.object_buffer(m, p, elem, size, !read_only, span)?
                    }
                    ViewData::Pun(p) => {
                        let (buffer, offset, skew) = m.pun_buffer(structs, p, written)?;
                        return Some(Arg::PunView {
                            buffer,
                            elem: p.ty.ty.clone(),
                            elem_size: u32::try_from(p.ty.size).ok()?,
                            offset: offset + view.offset,
                            extent: view.extent.clone(),
                            strides: view.strides.clone(),
                            skew,
                        });
                    }
                };
                view_arg(buffer, view)
            }
            _ => return None,
        })
    }

    /// The buffer of the one object a view was made over (`array_view<int,
    /// 1> v(1, &x)`): a copy of it, written back after a run to the end
    /// when the view may write it. `None` (the interpreter runs the launch)
    /// when another buffer of the launch already holds memory of the same
    /// variable, which two copies could not keep in step.
    fn object_buffer(
        &mut self,
        m: &mut Marshalled,
        p: &Place,
        elem: &Type,
        size: u32,
        written: bool,
        span: Span,
    ) -> Option<usize> {
        if let Some(i) = m
            .homes
            .iter()
            .position(|h| matches!(h, Home::Whole(q) if same_place(p, q)))
        {
            return (m.buffers[i].elem == *elem).then_some(i);
        }
        let root = object_root(p)?;
        let shares = m
            .homes
            .iter()
            .any(|h| matches!(h, Home::Whole(q) | Home::Place(q) if object_root(q) == Some(root)));
        if shares
            || !matches!(
                p.root,
                Root::Local(..) | Root::HostLocal(..) | Root::Global(_)
            )
            || self.in_kernel
        {
            return None;
        }
        // An object holding unions would need its members' tags handed
        // over too: the interpreter keeps it.
        if union_tags::tag_count(&self.prog.structs, elem)? != 0 {
            return None;
        }
        let v = self.read(p, span).ok()?;
        let buffer = one_object(&self.prog.structs, elem, &v)?;
        if buffer.elem_size != size {
            return None;
        }
        let home = if written {
            Home::Whole(p.clone())
        } else {
            Home::Object
        };
        Some(m.push(buffer, home))
    }

    /// The buffer of a host C array a view was made over.
    fn place_buffer(
        &mut self,
        m: &mut Marshalled,
        p: &Place,
        elem: &Type,
        size: u32,
        written: bool,
        span: Span,
    ) -> Option<usize> {
        if let Some(i) = m
            .homes
            .iter()
            .position(|h| matches!(h, Home::Place(q) if same_place(p, q)))
        {
            return (m.buffers[i].elem == *elem).then_some(i);
        }
        let root = object_root(p);
        if !matches!(
            p.root,
            Root::Local(..) | Root::HostLocal(..) | Root::Global(_)
        ) || self.in_kernel
            || m.homes
                .iter()
                .any(|h| matches!(h, Home::Whole(q) if object_root(q) == root))
        {
            return None;
        }
        let buffer = match self.read(p, span).ok()? {
            // A typed array: its bytes as they are.
            Value::Scalars(a) if *elem == Type::Scalar(a.scalar()) && size == a.scalar().size() => {
                a.to_buffer()?
            }
            Value::Agg(items) => marshal_items(&self.prog.structs, elem, size, &items)?,
            v @ Value::Scalars(_) => {
                let items: Vec<Value> = v.parts().collect();
                marshal_items(&self.prog.structs, elem, size, &items)?
            }
            _ => return None,
        };
        // Read-only: nothing to write back.
        let home = if written {
            Home::Place(p.clone())
        } else {
            Home::Object
        };
        Some(m.push(buffer, home))
    }

    /// Puts a buffer back after a run: results go where the data came from
    /// when the run is `done`; a storage's own buffer, taken for reading,
    /// goes back to it whatever the outcome.
    fn put_back(&mut self, buffer: Buffer, home: Home, done: bool, span: Span) {
        let structs = &self.prog.structs;
        let size = buffer.elem_size as usize;
        let unions = self.unions.clone();
        let shapes = move |ty: &Type| match ty {
            Type::Struct(id) => unions.get(id.index()).cloned().flatten(),
            _ => None,
        };
        let tags = tags_at(structs, &buffer.elem, buffer.elem_size);
        match home {
            Home::Object => {}
            Home::Storage {
                storage,
                written,
                taken,
                pristine,
            } => {
                if taken && written && pristine {
                    // Its own zeros, written in place: the results, or
                    // zeros again after a failed run.
                    if done {
                        storage.give_buffer(buffer);
                    } else {
                        storage.give_zeros(&buffer);
                    }
                } else if taken {
                    // Its own buffer, read only: back as it was.
                    storage.give_unchanged(buffer, pristine);
                } else if done && written && storage.typed() {
                    // A copy the run wrote: now the elements.
                    storage.give_buffer(buffer);
                } else if done
                    && written
                    && let Some(mut data) = storage.values_mut()
                {
                    let shape = untagged_shape(structs, &buffer.elem, tags);
                    for (i, slot) in data.iter_mut().enumerate() {
                        let read = match &shape {
                            // An object the interpreter has written: read
                            // into its memory.
                            Some(shape) if matches!(slot, Value::Agg(_) | Value::Scalars(_)) => {
                                let _ = shape.read_into(&buffer, i * size, slot);
                                continue;
                            }
                            Some(shape) => shape.read(&buffer, i * size),
                            None => read_object(
                                structs,
                                &shapes,
                                &buffer,
                                i * size,
                                &buffer.elem,
                                tags.map(|t| i * size + t),
                            ),
                        };
                        if let Some(v) = read
                            && !(matches!(slot, Value::Uninit) && is_zero(&v))
                        {
                            // Never-written elements stay never-written
                            // unless the kernel wrote something there.
                            *slot = v;
                        }
                    }
                }
            }
            Home::Taken(place) => {
                if let Type::CArray(elem, n) = &buffer.elem
                    && let Type::Scalar(s) = **elem
                    && let Some(a) = ScalarArray::from_words(s, *n as usize, buffer.into_words())
                    && let Some(slot) = self.host_value_mut(&place)
                {
                    *slot = Value::Scalars(Rc::new(a));
                }
            }
            Home::Whole(place) => {
                // Into the memory the place holds, when it is an object of
                // the buffer's shape no one else shares: a big array is
                // then copied back without fresh memory.
                if done
                    && let Some(shape) = crate::records::RecordShape::of(structs, &buffer.elem)
                    && let Some(slot) = self.host_value_mut(&place)
                    && matches!(slot, Value::Agg(_) | Value::Scalars(_))
                    && shape.read_into(&buffer, 0, slot).is_some()
                {
                    return;
                }
                if done
                    && let Some(v) = read_object(structs, &shapes, &buffer, 0, &buffer.elem, None)
                {
                    // The place was read before the run: writing it back
                    // cannot fail for a reason the interpreter would report.
                    let _ = self.write(&place, v, span);
                }
            }
            Home::Place(place) => {
                if !done {
                    return;
                }
                let array = match ScalarArray::from_buffer(buffer) {
                    // Scalars: the buffer becomes the array as it is.
                    Ok(a) => Some(Value::Scalars(Rc::new(a))),
                    Err(buffer) => {
                        let shape = untagged_shape(structs, &buffer.elem, tags);
                        (0..buffer.len)
                            .map(|i| match &shape {
                                Some(shape) => shape.read(&buffer, i * size),
                                None => {
                                    let t = tags.map(|t| i * size + t);
                                    read_object(
                                        structs,
                                        &shapes,
                                        &buffer,
                                        i * size,
                                        &buffer.elem,
                                        t,
                                    )
                                }
                            })
                            .collect::<Option<Vec<Value>>>()
                            .map(|items| Value::array(&buffer.elem, items))
                    }
                };
                if let Some(array) = array {
                    // The place was read before the launch, so writing it back
                    // cannot fail for a reason the interpreter would report.
                    let _ = self.write(&place, array, span);
                }
            }
        }
    }

    /// Offers a host statement (a loop, or a block that is a `for` loop
    /// declaring iterators, see [`iterator_loop`]) to the engine: `None` when the
    /// interpreter must run it, else how it ended (having run to its end
    /// or, at one of its exits, through the code the interpreter ran there).
    pub(crate) fn offload_host(&mut self, stmt: &tessera_ir::Stmt) -> Option<Res<Flow>> {
        if self.in_kernel || self.checker.on {
            return None;
        }
        let func = self.host.stack.last().and_then(|f| f.func)?;
        let engine = self.engine.take()?;
        let ran = self.offload_host_with(engine, func, stmt);
        self.engine = Some(engine);
        let exit = ran?;
        Some(match exit {
            None => Ok(Flow::Normal),
            Some(kind) => self.run_host_exit(stmt, kind),
        })
    }

    /// Runs the code of a host statement's exit, which ends the statement.
    fn run_host_exit(&mut self, stmt: &tessera_ir::Stmt, kind: HostExitKind) -> Res<Flow> {
        let id = match kind {
            HostExitKind::Return(id) | HostExitKind::Branch { stmt: id, .. } => id,
        };
        let mut found = None;
        tessera_ir::visit::walk_stmt(
            stmt,
            &mut |s| {
                if s.id == id && found.is_none() {
                    found = Some(s);
                }
            },
            &mut |_| {},
        );
        let Some(s) = found else {
            return Ok(Flow::Normal);
        };
        match (kind, &s.kind) {
            (HostExitKind::Branch { then, .. }, tessera_ir::StmtKind::If { then: t, els, .. }) => {
                let block = if then { Some(t) } else { els.as_ref() };
                let Some(block) = block else {
                    return Ok(Flow::Normal);
                };
                // The branch ends with a `return`, or a `break` out of the
                // statement itself, which ends it normally.
                match self.exec_block(block)? {
                    Flow::Break => Ok(Flow::Normal),
                    other => Ok(other),
                }
            }
            _ => self.exec_stmt(s),
        }
    }

    /// True when the calls a compiled statement makes (inlined: the engine
    /// keeps no call stack) could not fail here in the interpreter for
    /// want of call depth, stack or memory for their frames.
    fn calls_fit(&mut self, calls: &[FuncId]) -> bool {
        if calls.is_empty() {
            return true;
        }
        // A chain of calls holds each function at most once (the engine
        // does not inline recursion).
        let chain = calls.len() as u64;
        if u64::from(self.depth) + chain >= u64::from(self.opts.limits.max_call_depth) {
            return false;
        }
        // A generous bound on the native stack an interpreted call takes.
        const STACK_PER_CALL: u64 = 1 << 20;
        if self.stack_used().saturating_add(chain * STACK_PER_CALL) > self.opts.limits.max_stack {
            return false;
        }
        let frames = calls
            .iter()
            .map(|f| self.frame_bytes.get(f.index()).copied().unwrap_or(u64::MAX))
            .fold(0u64, u64::saturating_add);
        if self.meter.take(frames).is_err() {
            return false;
        }
        self.meter.give(frames);
        true
    }

    /// Runs a host statement in the engine: `None` when it was not run,
    /// `Some(exit)` when it ran to its end (`None`) or to an exit.
    fn offload_host_with(
        &mut self,
        engine: &mut dyn tessera_runtime::launch::KernelEngine,
        func: FuncId,
        stmt: &tessera_ir::Stmt,
    ) -> Option<Option<HostExitKind>> {
        let key = (func, stmt.id);
        if let Some(cost) = self.host_costs.get_mut(&key) {
            let converted = cost
                .written
                .iter()
                .any(|w| w.upgrade().is_some_and(|s| !s.typed()));
            let convert = std::time::Duration::from_nanos(cost.elements as u64 * CONVERT_NS);
            let copy = std::time::Duration::from_nanos(cost.copied as u64 * COPY_PS / 1000);
            if (converted && cost.ran_for < convert) || copy > cost.ran_for * INTERPRETER_SLOWDOWN {
                cost.strikes = cost.strikes.saturating_add(1);
            } else if !cost.written.is_empty() || cost.copied > 0 {
                cost.strikes = 0;
            }
            cost.written.clear();
            if cost.strikes >= KEEP_AFTER {
                return None;
            }
        }
        let plan = engine.host_plan(func, stmt)?;
        if !self.calls_fit(&plan.calls) {
            return None;
        }
        let mut ran_for = std::time::Duration::ZERO;
        let depth = self.host.stack.len().saturating_sub(1) as u32;
        let prog = self.prog;
        let locals = &prog.function(func).locals;
        // Each local and global the statement names: its type, whether the
        // statement may write it, and its place. A reference stands for
        // what it refers to. A scalar, C array or struct is handed over as
        // a copy and written back, so none may be reachable two ways (two
        // references to one object, a reference to a local also named).
        let mut named: Vec<(Type, bool, Place)> = Vec::new();
        let mut roots = Vec::new();
        for &(l, written) in &plan.locals {
            let ty = locals.get(l.index())?.ty.clone();
            let slot = self.host.stack.last()?.locals.get(l.index())?;
            let place = match slot {
                Value::Ref(p) => (**p).clone(),
                _ => Place::root(Root::HostLocal(depth, l.0)),
            };
            if copied_whole(&ty) {
                let key = object_root(&place)?;
                if roots.contains(&key) {
                    return None;
                }
                roots.push(key);
            }
            named.push((ty, written, place));
        }
        for &(g, written) in &plan.globals {
            let ty = prog.globals.get(g.index())?.ty.clone();
            let place = Place::root(Root::Global(g.0));
            if copied_whole(&ty) {
                let key = object_root(&place)?;
                if roots.contains(&key) {
                    return None;
                }
                roots.push(key);
            }
            named.push((ty, written, place));
        }
        let mut values = Vec::with_capacity(named.len());
        for (_, _, place) in &named {
            values.push(self.read(place, stmt.span).ok()?);
        }
        // The vectors it appends to, with their lengths now: each goes as
        // its storage's typed buffer, which the run grows.
        let mut appended: Vec<(usize, Rc<Storage>, usize)> = Vec::new();
        for (i, (l, _)) in plan.locals.iter().enumerate() {
            if plan.appended.contains(l) {
                match values.get(i) {
                    Some(Value::Vector(s)) if s.typed() => {
                        appended.push((i, Rc::clone(s), s.len()));
                    }
                    _ => return None,
                }
            }
        }
        // What the memory limit leaves for the appended elements, as the
        // interpreter's own appends would find it.
        let memory_left = self.meter.left();
        let mut m = Marshalled::new();
        if self
            .marshal_host(&mut m, &named, values, roots, stmt.span)
            .is_none()
        {
            self.give_back(m, stmt.span);
            return None;
        }
        for l in &plan.exit_locals {
            let Some(Type::Scalar(s)) = locals.get(l.index()).map(|x| &x.ty) else {
                self.give_back(m, stmt.span);
                return None;
            };
            m.args.push(Arg::Scalar(zero_bits(*s)));
        }
        m.args.push(Arg::Scalar(Bits::Int(0)));
        let written: Vec<(std::rc::Weak<Storage>, usize)> = m
            .homes
            .iter()
            .filter_map(|h| match h {
                Home::Storage {
                    storage,
                    written: true,
                    ..
                } => Some((Rc::downgrade(storage), storage.len())),
                _ => None,
            })
            .collect();
        let copied: usize = m
            .homes
            .iter()
            .zip(&m.buffers)
            .filter(|(h, _)| {
                matches!(
                    h,
                    Home::Whole(_)
                        | Home::Storage {
                            written: true,
                            taken: false,
                            ..
                        }
                )
            })
            .map(|(_, b)| b.len.saturating_mul(b.elem_size as usize))
            .sum();
        // Room for what the run prints, kept until it ends: counted against
        // the memory limit meanwhile.
        let room = HOST_OUTPUT_ROOM.min(self.meter.left() / 2);
        let output_room = if self.meter.take(room).is_ok() {
            room
        } else {
            0
        };
        let mut launch = Launch {
            kernel: func,
            extent: Vec::new(),
            args: m.args,
            buffers: m.buffers,
            deadline: self.deadline(),
            interrupt: self.interrupt.clone(),
            output: Some(tessera_runtime::launch::HostOutput {
                format: self.stream.clone(),
                limit: output_room as usize,
                ..Default::default()
            }),
            rand: Some(self.clib.rand.clone()),
            growth: (!appended.is_empty()).then(|| tessera_runtime::launch::HostGrowth {
                vectors: appended
                    .iter()
                    .map(|(i, s, _)| (*i, s.elem_bytes))
                    .collect(),
                memory_left,
            }),
            memory_left: self.meter.left(),
        };
        let done = self.hand_over(&mut launch, m.homes, stmt.span, |launch| {
            let t = std::time::Instant::now();
            let outcome = engine.run_host(func, stmt, launch);
            ran_for = t.elapsed();
            outcome
        });
        self.meter.give(output_room);
        if !done {
            // Failed: a check, or a branch compiled code does not run
            // (printing, say) was reached. The interpreter runs the loop
            // again; after a few such runs in a row it keeps it.
            let cost = self.host_costs.entry(key).or_default();
            cost.strikes = cost.strikes.saturating_add(1);
            return None;
        }
        // `rand()` goes on from where the run left it.
        if let Some(rand) = launch.rand.take() {
            self.clib.rand = rand;
        }
        // The appended elements, as the interpreter's appends would have
        // counted them: their memory (within what the run was given), the
        // capacity each library would have grown to, and a reallocation
        // for every growth (positions taken before name nothing now).
        for (_, s, from) in &appended {
            let added = s.len().saturating_sub(*from);
            if added == 0 {
                continue;
            }
            let _ = self.meter.take((added as u64).saturating_mul(s.elem_bytes));
            for _ in 0..s.note_appends(*from) {
                // Within the limit the run was given: cannot fail for a
                // reason the interpreter's own appends would report.
                let _ = self.record_move(s, crate::value::Move::Reallocated, stmt.span);
            }
            s.reshape();
        }
        // What the run printed, in order before anything the interpreter
        // prints next (an exit's code, say).
        if let Some(output) = launch.output.take() {
            self.stream = output.format;
            self.out.extend_from_slice(&output.bytes);
            if output.flushed || self.out.len() > 1 << 16 {
                self.flush();
            }
        }
        let cost = self.host_costs.entry(key).or_default();
        if written.is_empty() && copied == 0 {
            // Nothing to convert or copy back: the run cost only itself.
            cost.strikes = 0;
        }
        cost.copied = copied;
        cost.elements = written.iter().map(|(_, n)| n).sum();
        cost.written = written.into_iter().map(|(w, _)| w).collect();
        cost.ran_for = ran_for;
        let value = |arg: &Arg| match arg {
            Arg::Scalar(b) => Some(match *b {
                Bits::Bool(x) => Value::Bool(x),
                Bits::Int(n) => Value::Int(n),
                Bits::Float(f) => Value::Float(f),
                Bits::Double(d) => Value::Double(d),
            }),
            _ => None,
        };
        for ((ty, _, place), arg) in named.iter().zip(&launch.args) {
            if let (Type::Scalar(_), Some(v)) = (ty, value(arg)) {
                // Read just before: writing it back cannot fail.
                let _ = self.write(place, v, stmt.span);
            }
            // A pointer the statement may have moved: its offset in the
            // vector it points into, which the run did not resize.
            if let (Type::Ptr { .. }, Arg::View { offset, .. }) = (ty, arg)
                && let Ok(Value::Ptr(p)) = self.read(place, stmt.span)
                && let Ok(p) = crate::pointer::follow(&p)
                && let Ok(offset) = i64::try_from(*offset)
                && p.offset != offset
            {
                let mut moved = (*p).clone();
                moved.offset = offset;
                let _ = self.write(place, Value::Ptr(Rc::new(moved)), stmt.span);
            }
        }
        let taken = match launch.args.last() {
            Some(Arg::Scalar(Bits::Int(k))) => usize::try_from(*k).unwrap_or(0),
            _ => 0,
        };
        let Some(exit) = taken.checked_sub(1).and_then(|k| plan.exits.get(k)) else {
            return Some(None);
        };
        let first = named.len();
        for &at in &exit.locals {
            let (Some(l), Some(v)) = (
                plan.exit_locals.get(at),
                launch.args.get(first + at).and_then(value),
            ) else {
                continue;
            };
            if let Some(slot) = self
                .host
                .stack
                .last_mut()
                .and_then(|f| f.locals.get_mut(l.index()))
            {
                *slot = v;
            }
        }
        Some(Some(exit.kind))
    }

    /// The locals and globals a host statement names (type, whether it
    /// may write them, place), of values `values`, as arguments and
    /// buffers. `roots` are the objects already handed over as copies
    /// (those named): an object a closure refers to may not be one of
    /// them, nor be referred to twice.
    fn marshal_host(
        &mut self,
        m: &mut Marshalled,
        named: &[(Type, bool, Place)],
        values: Vec<Value>,
        mut roots: Vec<(u8, usize, usize)>,
        span: Span,
    ) -> Option<()> {
        let prog = self.prog;
        for ((ty, written, place), v) in named.iter().zip(values) {
            // A C array of scalars only read: its own memory, taken out of
            // its place for the run.
            let v = match (ty, v) {
                (Type::CArray(elem, _), Value::Scalars(a))
                    if !*written && Type::Scalar(a.scalar()) == **elem =>
                {
                    match self.take_array(place, ty, a) {
                        Ok(buffer) => {
                            let buffer = m.push(buffer, Home::Taken(place.clone()));
                            m.args.push(Arg::Object { buffer });
                            continue;
                        }
                        Err(a) => Value::Scalars(a),
                    }
                }
                (_, v) => v,
            };
            let v = &v;
            let arg = match (ty, v) {
                (Type::Scalar(s), Value::Uninit) => Arg::Scalar(zero_bits(*s)),
                (Type::Scalar(_), v) => Arg::Scalar(bits(v)?),
                (Type::Vector(elem), Value::Vector(storage)) => {
                    whole_vector(m, &prog.structs, storage, elem, *written)?
                }
                (Type::Array(elem, _) | Type::ArrayView { elem, .. }, Value::View(view)) => {
                    let (size, _) = size_align(&prog.structs, elem)?;
                    let ViewData::Storage(storage) = &view.data else {
                        return None;
                    };
                    // A view over memory a vector left: the interpreter
                    // reports its first use.
                    if storage.reallocated_since(view.generation) {
                        return None;
                    }
                    // The host may not touch an array made with
                    // `access_type_none`: the interpreter runs the loop and
                    // throws at the first access.
                    if matches!(ty, Type::Array(..))
                        && storage.cpu_access.get() == tessera_ir::device::ACCESS_NONE
                    {
                        return None;
                    }
                    let buffer = m.storage_buffer(&prog.structs, storage, elem, size, *written)?;
                    view_arg(buffer, view)
                }
                // A pointer into a vector's or array's elements: a view of
                // the elements from the one it points to on (it is only
                // dereferenced, at offsets checked to lie in the view).
                (Type::Ptr { elem, .. }, Value::Ptr(p)) => {
                    // Where its element is now (a pointer taken before a
                    // `push_front` follows it); one whose element is gone
                    // leaves the loop to the interpreter, which reports it.
                    let p = &crate::pointer::follow(p).ok()?;
                    let crate::value::Target::Storage(storage) = &p.target else {
                        return None;
                    };
                    let (size, _) = size_align(&prog.structs, elem)?;
                    let buffer = m.storage_buffer(&prog.structs, storage, elem, size, *written)?;
                    // As for a vector: the buffer's length, not the storage's.
                    let len = m.buffers.get(buffer)?.len;
                    let from = usize::try_from(p.offset).ok().filter(|o| *o <= len)?;
                    Arg::View {
                        buffer,
                        offset: from,
                        extent: vec![(len - from) as i64],
                        strides: vec![1],
                    }
                }
                // A closure holding references (a lambda capturing by
                // reference): member by member, each reference as the
                // object it refers to, written back there; its own members
                // written back into it.
                (Type::Struct(id), Value::Agg(members))
                    if prog.structs.get(id.index()).is_some_and(|d| {
                        d.fields.iter().any(|(_, t)| matches!(t, Type::Ptr { .. }))
                    }) =>
                {
                    let def = prog.structs.get(id.index())?;
                    if def.is_union || def.fields.len() != members.len() {
                        return None;
                    }
                    let mut args = Vec::with_capacity(members.len());
                    for (k, ((_, fty), fv)) in def.fields.iter().zip(members.iter()).enumerate() {
                        let (target, value, home) = match fty {
                            Type::Ptr { elem, .. } => {
                                let at = self.deref_place(fv, span).ok()?;
                                let value = self.read(&at, span).ok()?;
                                (&**elem, value, at)
                            }
                            other => (other, fv.clone(), place.clone().child(k as u32)),
                        };
                        args.push(match (target, value) {
                            (Type::Vector(elem), Value::Vector(storage)) => {
                                whole_vector(m, &prog.structs, &storage, elem, true)?
                            }
                            (target, value) => {
                                if matches!(fty, Type::Ptr { .. }) {
                                    let root = object_root(&home)?;
                                    if roots.contains(&root) {
                                        return None;
                                    }
                                    roots.push(root);
                                }
                                let buffer = one_object(&prog.structs, target, &value)?;
                                Arg::Object {
                                    buffer: m.push(buffer, Home::Whole(home)),
                                }
                            }
                        });
                    }
                    Arg::Fields(args)
                }
                (
                    ty @ (Type::Struct(_) | Type::CArray(..) | Type::Index(_) | Type::Extent(_)),
                    v,
                ) => {
                    let home = if *written {
                        Home::Whole(place.clone())
                    } else {
                        Home::Object
                    };
                    Arg::Object {
                        buffer: m.push(one_object(&prog.structs, ty, v)?, home),
                    }
                }
                _ => return None,
            };
            m.args.push(arg);
        }
        Some(())
    }

    /// The buffer of C array `a`, the value at `place`, taken out of the
    /// place without a copy when nothing else shares it (the place holds
    /// nothing meanwhile: the interpreter runs nothing until it is put
    /// back); `a` back otherwise.
    fn take_array(
        &mut self,
        place: &Place,
        ty: &Type,
        a: Rc<ScalarArray>,
    ) -> Result<Buffer, Rc<ScalarArray>> {
        let size = a.len().checked_mul(a.scalar().size() as usize);
        let Some(size) = size.and_then(|b| u32::try_from(b).ok()) else {
            return Err(a);
        };
        // The words of an array are always its elements' bytes; a buffer
        // of one object of its type is made of them as they are.
        if a.words().len() != (size as usize).div_ceil(8) {
            return Err(a);
        }
        let Some(slot) = self.host_value_mut(place) else {
            return Err(a);
        };
        if !matches!(slot, Value::Scalars(b) if Rc::ptr_eq(b, &a)) {
            return Err(a);
        }
        let held = std::mem::replace(slot, Value::Uninit);
        drop(held);
        let array = match Rc::try_unwrap(a) {
            Ok(array) => array,
            Err(shared) => {
                // Shared elsewhere: back in its place, copied as before.
                if let Some(slot) = self.host_value_mut(place) {
                    *slot = Value::Scalars(Rc::clone(&shared));
                }
                return Err(shared);
            }
        };
        let (s, n) = (array.scalar(), array.len());
        match Buffer::from_words(ty.clone(), size, 1, array.into_words()) {
            Some(buffer) => Ok(buffer),
            None => {
                // Cannot be (the sizes were checked above): zeros of its
                // shape in its place rather than nothing.
                let zeros =
                    Rc::new(ScalarArray::zeroed(s, n).unwrap_or_else(|| ScalarArray::empty(s)));
                if let Some(slot) = self.host_value_mut(place) {
                    *slot = Value::Scalars(Rc::clone(&zeros));
                }
                Err(zeros)
            }
        }
    }
}

/// True for the types a compiled host statement gets as a copy it hands
/// back (rather than as a window on shared storage).
/// A vector's elements as a view argument: its storage's buffer, the
/// whole of it.
fn whole_vector(
    m: &mut Marshalled,
    structs: &[tessera_ir::StructDef],
    storage: &Rc<Storage>,
    elem: &Type,
    written: bool,
) -> Option<Arg> {
    let (size, _) = size_align(structs, elem)?;
    let buffer = m.storage_buffer(structs, storage, elem, size, written)?;
    // The buffer's length: a storage named twice (two references to one
    // vector) is empty while the first name has its buffer taken.
    let len = m.buffers.get(buffer)?.len;
    Some(Arg::View {
        buffer,
        offset: 0,
        extent: vec![len as i64],
        strides: vec![1],
    })
}

fn copied_whole(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Scalar(_) | Type::Struct(_) | Type::CArray(..) | Type::Index(_) | Type::Extent(_)
    )
}

fn zero_bits(s: tessera_ir::Scalar) -> Bits {
    match s {
        tessera_ir::Scalar::Bool => Bits::Bool(false),
        tessera_ir::Scalar::Float => Bits::Float(0.0),
        tessera_ir::Scalar::Double => Bits::Double(0.0),
        _ => Bits::Int(0),
    }
}

/// A view's window on buffer `buffer`.
fn view_arg(buffer: usize, view: &crate::value::View) -> Arg {
    Arg::View {
        buffer,
        offset: view.offset,
        extent: view.extent.clone(),
        strides: view.strides.clone(),
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
    let tags = tags_at(structs, elem, size);
    if let Some(shape) = untagged_shape(structs, elem, tags) {
        for (k, item) in items.iter().enumerate() {
            shape.write(&mut buffer, k * size as usize, item)?;
        }
        return Some(buffer);
    }
    for (k, item) in items.iter().enumerate() {
        let at = k * size as usize;
        write_object(structs, &mut buffer, at, elem, item, tags.map(|t| at + t))?;
    }
    Some(buffer)
}

/// The record shape of `elem` when its buffer has no union tags (`tags`
/// as [`tags_at`] gives them): objects of it then go through the shape.
fn untagged_shape(
    structs: &[tessera_ir::StructDef],
    elem: &Type,
    tags: Option<usize>,
) -> Option<crate::records::RecordShape> {
    if tags.is_some() {
        return None;
    }
    crate::records::RecordShape::of(structs, elem)
}

/// Where, from an element's first byte, its union tags are in a buffer of
/// stride `size` (see `tessera_runtime::union_tags`): after its bytes when
/// the stride is the one with tags; `None` without unions, or when the
/// stride has no room for them (a union then cannot be handed over).
fn tags_at(structs: &[tessera_ir::StructDef], elem: &Type, size: u32) -> Option<usize> {
    let count = union_tags::tag_count(structs, elem)?;
    let (plain, _) = size_align(structs, elem)?;
    (count > 0 && union_tags::tagged_size(structs, elem) == Some(size)).then_some(plain as usize)
}

pub(crate) fn bits(v: &Value) -> Option<Bits> {
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

/// A buffer holding one object of type `ty` whose value is `v`; `None`
/// for an object holding a union, whose tag has no place here.
fn one_object(structs: &[tessera_ir::StructDef], ty: &Type, v: &Value) -> Option<Buffer> {
    let (size, _) = size_align(structs, ty)?;
    let mut buffer = Buffer::zeroed(ty.clone(), size, 1)?;
    // Without unions, through the type's shape: the offsets are worked out
    // once, not again for every element of a big array of structs.
    match crate::records::RecordShape::of(structs, ty) {
        Some(shape) => shape.write(&mut buffer, 0, v)?,
        None => write_object(structs, &mut buffer, 0, ty, v, None)?,
    }
    Some(buffer)
}

/// Writes `v`, of type `ty`, at byte `at` of the buffer, the tags of its
/// unions from byte `tags` (a union without a place for its tag cannot be
/// written).
fn write_object(
    structs: &[tessera_ir::StructDef],
    buffer: &mut Buffer,
    at: usize,
    ty: &Type,
    v: &Value,
    tags: Option<usize>,
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
        Type::Struct(id) if structs.get(id.index()).is_some_and(|d| d.is_union) => {
            let tag = tags?;
            let def = structs.get(id.index())?;
            let Value::Union(u) = v else {
                // Never written: no member active, zero bytes.
                return matches!(v, Value::Uninit).then_some(());
            };
            let Some(active) = u.active else {
                return Some(());
            };
            let (_, mty) = def.fields.get(active as usize)?;
            buffer.set_at(
                tag,
                tessera_ir::Scalar::Char,
                Bits::Int(i64::from(active) + 1),
            );
            let off = field_offset(structs, ty, active)? as usize;
            write_object(structs, buffer, at + off, mty, &u.value, Some(tag + 1))?;
        }
        Type::Struct(_) => {
            let Value::Agg(fields) = v else {
                return matches!(v, Value::Uninit).then_some(());
            };
            let Type::Struct(id) = ty else { return None };
            let def = structs.get(id.index())?;
            for (k, ((_, fty), fv)) in def.fields.iter().zip(fields.iter()).enumerate() {
                let off = field_offset(structs, ty, k as u32)? as usize;
                let ftags = match tags {
                    Some(t) => Some(t + union_tags::field_tags(structs, def, k as u32)? as usize),
                    None => None,
                };
                write_object(structs, buffer, at + off, fty, fv, ftags)?;
            }
        }
        Type::CArray(elem, n) => {
            // A typed array: its bytes as they are.
            if let (Value::Scalars(a), Type::Scalar(s)) = (v, &**elem)
                && a.scalar() == *s
                && a.len() == *n as usize
            {
                buffer.copy_bytes(at, a.words(), 0, a.len() * s.size() as usize);
                return Some(());
            }
            if !matches!(v, Value::Agg(_) | Value::Scalars(_)) {
                return matches!(v, Value::Uninit).then_some(());
            }
            let (size, _) = size_align(structs, elem)?;
            let per = union_tags::tag_count(structs, elem)? as usize;
            for (k, item) in v.parts().enumerate() {
                let etags = tags.map(|t| t + k * per);
                write_object(structs, buffer, at + k * size as usize, elem, &item, etags)?;
            }
        }
        _ => return None,
    }
    Some(())
}

/// The shape of each union type, by struct id, for [`read_object`].
type Shapes<'a> = &'a dyn Fn(&Type) -> Option<Rc<crate::value::UnionShape>>;

/// Reads a value of type `ty` at byte `at` of the buffer, the tags of its
/// unions from byte `tags` (a union without them cannot be read: its bytes
/// do not say which member is active).
fn read_object(
    structs: &[tessera_ir::StructDef],
    shapes: Shapes<'_>,
    buffer: &Buffer,
    at: usize,
    ty: &Type,
    tags: Option<usize>,
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
            let def = structs.get(id.index())?;
            if def.is_union {
                let tag = tags?;
                let shape = shapes(ty)?;
                let Some(Bits::Int(t)) = buffer.get_at(tag, tessera_ir::Scalar::Char) else {
                    return None;
                };
                if t == 0 {
                    return Some(Machine::union_value(shape, None, Value::Uninit));
                }
                let active = u32::try_from(t - 1).ok()?;
                let (_, mty) = def.fields.get(active as usize)?;
                let off = field_offset(structs, ty, active)? as usize;
                let v = read_object(structs, shapes, buffer, at + off, mty, Some(tag + 1))?;
                return Some(Machine::union_value(shape, Some(active), v));
            }
            let mut fields = Vec::with_capacity(def.fields.len());
            for (k, (_, fty)) in def.fields.iter().enumerate() {
                let off = field_offset(structs, ty, k as u32)? as usize;
                let ftags = match tags {
                    Some(t) => Some(t + union_tags::field_tags(structs, def, k as u32)? as usize),
                    None => None,
                };
                fields.push(read_object(structs, shapes, buffer, at + off, fty, ftags)?);
            }
            Value::Agg(Rc::new(fields))
        }
        Type::CArray(elem, n) => {
            if let Type::Scalar(s) = **elem {
                let a = ScalarArray::from_bytes(s, *n as usize, buffer, at)?;
                return Some(Value::Scalars(Rc::new(a)));
            }
            let (size, _) = size_align(structs, elem)?;
            let per = union_tags::tag_count(structs, elem)? as usize;
            let mut items = Vec::with_capacity(*n as usize);
            for k in 0..*n as usize {
                let etags = tags.map(|t| t + k * per);
                items.push(read_object(
                    structs,
                    shapes,
                    buffer,
                    at + k * size as usize,
                    elem,
                    etags,
                )?);
            }
            Value::array(elem, items)
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
        // A union no member of which was written.
        Value::Union(u) => u.active.is_none(),
        _ => false,
    }
}

/// The object a place handed to compiled host code as a copy is part of,
/// as a key two such places share when they may overlap; `None` when it
/// could also be reached another way (an element of a buffer, a pun).
fn object_root(place: &Place) -> Option<(u8, usize, usize)> {
    Some(match &place.root {
        Root::Local(d, s) | Root::HostLocal(d, s) => (0, *d as usize, *s as usize),
        Root::Global(g) => (1, *g as usize, 0),
        Root::Temp(cell) => (2, Rc::as_ptr(cell) as usize, 0),
        _ => return None,
    })
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

/// True when block `b` of `func` is a `for` statement whose first clause
/// declares a pointer (`for (auto it = v.begin(); it != v.end(); ++it)`):
/// its declarations, then the loop. The engine is offered the block
/// whole, since compiled code moves a pointer the statement declares (an
/// iterator over a vector's elements); one from outside, it only reads
/// through. The loop comes last, so a `break` out of it ends the block.
pub(crate) fn iterator_loop(func: &tessera_ir::Function, b: &tessera_ir::Block) -> bool {
    use tessera_ir::StmtKind;
    let Some((last, decls)) = b.stmts.split_last() else {
        return false;
    };
    matches!(last.kind, StmtKind::Loop { .. })
        && decls.iter().all(|s| matches!(s.kind, StmtKind::Let { .. }))
        && decls.iter().any(|s| {
            matches!(&s.kind, StmtKind::Let { local, .. }
                if func.get_local(*local).is_some_and(|l| matches!(l.ty, Type::Ptr { .. })))
        })
}
