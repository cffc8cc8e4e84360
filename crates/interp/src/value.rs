//! Values, memory and places.
//!
//! Every C++ object is a [`Value`]. Scalars are stored by value; aggregates
//! (structs, C arrays, `index`, `extent`, `tiled_index`) share their elements
//! copy-on-write, so reading a struct is cheap and writing one field copies
//! only when the struct is shared. A C array of scalars keeps its elements
//! in one typed buffer in C++ layout ([`ScalarArray`]), also copy-on-write.
//! Vectors and the data of `array`s and
//! `array_view`s live in [`Storage`], shared by reference between a vector and
//! the views over it: Tessera's memory is shared between host and kernels.
//! A storage of scalars keeps them in one typed buffer in C++ layout, the
//! one a launch under the JIT works on (see [`Storage`]).

use crate::records::RecordShape;
use smallvec::SmallVec;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use tessera_diagnostics::Span;
use tessera_ir::{Manipulator, Scalar};
use tessera_runtime::launch::{Bits, Buffer};

/// Positions of fields and elements inside an object; short, so kept inline.
pub(crate) type Path = SmallVec<[u32; 4]>;

/// A run-time value.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    /// `void`, the stream `std::cout`, a `tile_barrier`.
    Void,
    /// A `tile_static` element not yet written in this tile (or a variable
    /// declared without a value).
    Uninit,
    /// `bool`
    Bool(bool),
    /// Every integer type, kept in its type's range (`unsigned long` as its
    /// bit pattern).
    Int(i64),
    /// `float`
    Float(f32),
    /// `double`
    Double(f64),
    /// Structs, C arrays, `index`, `extent`, `tiled_extent`, `tiled_index`
    /// (its global index): the elements in order.
    Agg(Rc<Vec<Value>>),
    /// A C array of scalars (the innermost dimension of a multi-dimensional
    /// one), in C++ layout; see [`ScalarArray`].
    Scalars(Rc<ScalarArray>),
    /// A `concurrency::array` or an `array_view`.
    View(Rc<View>),
    /// A `std::vector`.
    Vector(Rc<Storage>),
    /// What a reference variable or parameter refers to.
    Ref(Rc<Place>),
    /// A string literal.
    Str(Rc<Vec<u8>>),
    /// A stream manipulator and its argument.
    Manip(Manipulator, i32),
    /// A pointer.
    Ptr(Rc<Pointer>),
    /// A union: its active member and that member's value.
    Union(Rc<UnionVal>),
    /// An `accelerator` or an `accelerator_view`.
    Device(DeviceValue),
    /// A string stream, shared by every name it has.
    Stream(Rc<RefCell<crate::sstream::StringStream>>),
}

/// Which accelerator: Tessera has two, as C++ AMP on a machine with one
/// device has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accel {
    /// The default accelerator: the CPU engine that runs every kernel.
    Default,
    /// C++ AMP's CPU accelerator (`accelerator::cpu_accelerator`): it holds
    /// arrays the host reads and writes, and runs no kernel.
    Cpu,
}

impl Accel {
    /// Its `device_path`.
    pub(crate) fn path(self) -> &'static str {
        match self {
            Accel::Default => tessera_ir::device::PATH,
            Accel::Cpu => tessera_ir::device::CPU_PATH,
        }
    }

    /// Its `description`.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Accel::Default => tessera_ir::device::DESCRIPTION,
            Accel::Cpu => tessera_ir::device::CPU_DESCRIPTION,
        }
    }

    /// Its default view: the same view each time it is asked for.
    pub(crate) fn default_view(self) -> DeviceValue {
        let id = match self {
            Accel::Default => 0,
            Accel::Cpu => 1,
        };
        DeviceValue::View {
            id,
            accel: self,
            mode: tessera_ir::device::QUEUING_AUTOMATIC as i32,
        }
    }
}

/// An `accelerator` or `accelerator_view` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeviceValue {
    /// An accelerator; copies of one are the same accelerator.
    Accelerator(Accel),
    /// A view: `id` is its identity (a copy keeps it, so copies compare
    /// equal; each `create_view()` makes a new one), on `accel`, with its
    /// queuing mode.
    View {
        /// Which view (0 and 1: the default views).
        id: u32,
        /// The accelerator it is on.
        accel: Accel,
        /// `queuing_mode_immediate` or `queuing_mode_automatic`.
        mode: i32,
    },
}

impl DeviceValue {
    /// The accelerator it is, or is on.
    pub(crate) fn accel(self) -> Accel {
        match self {
            DeviceValue::Accelerator(a) | DeviceValue::View { accel: a, .. } => a,
        }
    }
}

/// A union object. Only its active member has a value: C++ leaves reading
/// another undefined, so the interpreter keeps nothing that could answer it.
#[derive(Clone, Debug)]
pub(crate) struct UnionVal {
    /// What the union's members are.
    pub(crate) shape: Rc<UnionShape>,
    /// The member alive (none in a `tile_static` union not yet written).
    pub(crate) active: Option<u32>,
    /// Its value.
    pub(crate) value: Value,
}

/// What a union type's members are, computed once per type.
#[derive(Debug)]
pub(crate) struct UnionShape {
    /// The union's name and its members' names, for messages.
    pub(crate) name: String,
    pub(crate) fields: Vec<String>,
    /// Member `i` when its life starts by a write into a part of it.
    pub(crate) fresh: Vec<Value>,
    /// `reads[j][a]`: how member `j` may be read while `a` is active.
    pub(crate) reads: Vec<Vec<Alias>>,
}

/// How one union member may be read while another is active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alias {
    /// Same type: the value is the active member's.
    Same,
    /// Both are structs whose first `n` members have the same types (the
    /// common initial sequence): those members may be read.
    Prefix(u32),
    /// Reading it is undefined.
    No,
}

/// A read of a union member that is not active.
#[derive(Debug)]
pub(crate) struct Misread {
    pub(crate) union: String,
    pub(crate) read: String,
    pub(crate) active: String,
}

impl UnionVal {
    /// Where a read of member `j` followed by `rest` of a path goes: the
    /// value to go on from, or the misread.
    fn read_member<'v>(&'v self, j: u32, rest: &[u32]) -> Result<&'v Value, Misread> {
        let Some(a) = self.active else {
            return self
                .shape
                .fresh
                .get(j as usize)
                .ok_or_else(|| self.misread(j, j));
        };
        if a == j {
            return Ok(&self.value);
        }
        let how = self
            .shape
            .reads
            .get(j as usize)
            .and_then(|r| r.get(a as usize))
            .copied()
            .unwrap_or(Alias::No);
        match (how, rest.first()) {
            (Alias::Same, _) => Ok(&self.value),
            (Alias::Prefix(n), Some(&k)) if k < n => Ok(&self.value),
            _ => Err(self.misread(j, a)),
        }
    }

    /// The value to write into when member `j` (or a part of it) is
    /// written: `j` becomes the active member.
    fn write_member(&mut self, j: u32) -> &mut Value {
        let keeps = match self.active {
            Some(a) => {
                a == j
                    || self
                        .shape
                        .reads
                        .get(j as usize)
                        .and_then(|r| r.get(a as usize))
                        == Some(&Alias::Same)
            }
            None => false,
        };
        if !keeps {
            self.value = self
                .shape
                .fresh
                .get(j as usize)
                .cloned()
                .unwrap_or(Value::Uninit);
        }
        self.active = Some(j);
        &mut self.value
    }

    fn misread(&self, read: u32, active: u32) -> Misread {
        let name = |i: u32| {
            self.shape
                .fields
                .get(i as usize)
                .cloned()
                .unwrap_or_default()
        };
        Misread {
            union: self.shape.name.clone(),
            read: name(read),
            active: name(active),
        }
    }
}

/// A pointer value: what it points into and where.
#[derive(Clone, Debug)]
pub(crate) struct Pointer {
    /// The allocation.
    pub(crate) target: Target,
    /// The element offset within it (one past the end is allowed).
    pub(crate) offset: i64,
    /// For an iterator of a container (`Type::Iter`): the container's
    /// `Storage::reshaped` when the iterator was made, so that a use after
    /// the container changed size is caught rather than read at a shifted
    /// position. 0 for other pointers, which are not checked.
    pub(crate) stamp: u64,
    /// For a pointer into a storage: the storage's generation its offset
    /// was taken at (see [`Storage::follow`]).
    pub(crate) generation: u64,
}

/// What a pointer points into.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    /// `nullptr`.
    Null,
    /// An object of the program: a C array (`array`: element `k` is
    /// `place.child(k)`, `len` of them) or one object (`len` 1).
    Place {
        /// The array or object.
        place: Place,
        /// Elements are the place's children.
        array: bool,
        /// How many elements.
        len: u32,
        /// The generation of the frame that owns the place (locals only),
        /// so that a pointer to a local of a returned call is caught.
        generation: u64,
    },
    /// Elements of a vector, an `array`, or a `new` allocation.
    Storage(Rc<Storage>),
    /// The bytes of a string literal and its terminating zero.
    Str(Rc<Vec<u8>>),
    /// Memory of one type read as another (`reinterpret_cast<U*>(p)`); the
    /// offset counts `U`s from the pun's first byte.
    Pun(Rc<Pun>),
}

impl Target {
    /// The generation of a storage target (see [`Storage::follow`]); 0 for
    /// others, whose positions never move.
    pub(crate) fn generation(&self) -> u64 {
        match self {
            Target::Storage(s) => s.generation(),
            _ => 0,
        }
    }
}

/// The scalars a type is made of, for reading its bytes as another type.
#[derive(Debug)]
pub(crate) struct Shape {
    /// The type.
    pub(crate) ty: tessera_ir::Type,
    /// Its size in bytes (C++ layout).
    pub(crate) size: u64,
    /// Its scalars in the order of their bytes.
    pub(crate) leaves: Vec<tessera_ir::layout::Leaf>,
}

/// Memory seen as another type: the bytes of `mem`'s elements (of type
/// `elem`) from byte `base` on, read as `ty`s.
///
/// Why the interpreter reads bytes through the scalars that hold them,
/// rather than keeping bytes: its memory is typed (a storage of scalars
/// is a buffer of one scalar type, other memory a `Value` per scalar, and
/// `--check` follows either element by element), and a pun is rare. A read of a `ty` scalar gathers the bytes of
/// the `elem` scalars under it (C++ layout, little-endian); a write changes
/// those scalars' bytes and nothing else, so writes through either type are
/// seen through the other. Bytes held by no scalar (padding) cannot be read.
#[derive(Debug)]
pub(crate) struct Pun {
    /// The memory as it is: a storage, a place or a string literal, as a
    /// pointer to its first element would hold it.
    pub(crate) mem: Target,
    /// Its elements' type.
    pub(crate) elem: Rc<Shape>,
    /// The type the bytes are read as.
    pub(crate) ty: Rc<Shape>,
    /// The first byte, from the start of `mem`.
    pub(crate) base: u64,
}

impl Pun {
    /// Bytes of the memory.
    pub(crate) fn total(&self) -> u64 {
        let count = match &self.mem {
            Target::Null | Target::Pun(_) => 0,
            Target::Place { len, .. } => u64::from(*len),
            Target::Storage(s) => s.len() as u64,
            Target::Str(bytes) => bytes.len() as u64 + 1,
        };
        count.saturating_mul(self.elem.size)
    }

    /// The offsets a pointer may take: `ty`s from `lo` (the first whole one
    /// in the memory) to `hi` (one past the last).
    pub(crate) fn bounds(&self) -> (i64, i64) {
        let size = self.ty.size.max(1);
        let lo = -i64::try_from(self.base / size).unwrap_or(i64::MAX);
        let hi = i64::try_from(self.total().saturating_sub(self.base) / size).unwrap_or(i64::MAX);
        (lo, hi)
    }
}

impl Pointer {
    /// A pointer to the first element of `storage`.
    pub(crate) fn to_storage(storage: Rc<Storage>) -> Value {
        let generation = storage.generation();
        Value::Ptr(Rc::new(Pointer {
            target: Target::Storage(storage),
            offset: 0,
            stamp: 0,
            generation,
        }))
    }

    pub(crate) fn null() -> Value {
        Value::Ptr(Rc::new(Pointer {
            target: Target::Null,
            offset: 0,
            stamp: 0,
            generation: 0,
        }))
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self.target, Target::Null)
    }

    /// Number of elements of the allocation.
    pub(crate) fn len(&self) -> i64 {
        self.bounds().1
    }

    /// The offsets the pointer may take: dereferenced from `lo` to `hi - 1`,
    /// formed from `lo` to `hi` (one past the end). `lo` is 0 except for a
    /// pun that starts inside its memory.
    pub(crate) fn bounds(&self) -> (i64, i64) {
        match &self.target {
            Target::Null => (0, 0),
            Target::Place { len, .. } => (0, i64::from(*len)),
            Target::Storage(s) => (0, s.len() as i64),
            Target::Str(bytes) => (0, bytes.len() as i64 + 1),
            Target::Pun(p) => p.bounds(),
        }
    }

    /// Where the pointer is in its allocation, in the units of
    /// [`Pointer::unit`]: the element offset, or for a pun the byte (puns
    /// made at different bytes of one memory are compared by it).
    pub(crate) fn position(&self) -> i64 {
        match &self.target {
            Target::Pun(p) => {
                (p.base as i64).saturating_add(self.offset.saturating_mul(p.ty.size as i64))
            }
            _ => self.offset,
        }
    }

    /// How many [`Pointer::position`] units one element is.
    pub(crate) fn unit(&self) -> i64 {
        match &self.target {
            Target::Pun(p) => (p.ty.size as i64).max(1),
            _ => 1,
        }
    }

    /// True when both point into the same allocation.
    pub(crate) fn same_allocation(&self, other: &Pointer) -> bool {
        match (&self.target, &other.target) {
            (Target::Null, Target::Null) => true,
            (Target::Storage(a), Target::Storage(b)) => Rc::ptr_eq(a, b),
            (Target::Str(a), Target::Str(b)) => Rc::ptr_eq(a, b),
            // Two puns of one memory as one type: their positions
            // ([`Pointer::position`]) compare.
            (Target::Pun(a), Target::Pun(b)) => {
                a.ty.ty == b.ty.ty
                    && Pointer {
                        target: a.mem.clone(),
                        offset: 0,
                        stamp: 0,
                        generation: 0,
                    }
                    .same_allocation(&Pointer {
                        target: b.mem.clone(),
                        offset: 0,
                        stamp: 0,
                        generation: 0,
                    })
            }
            (
                Target::Place {
                    place: a,
                    array: x,
                    generation: g,
                    ..
                },
                Target::Place {
                    place: b,
                    array: y,
                    generation: h,
                    ..
                },
            ) => x == y && g == h && a.same(b),
            _ => false,
        }
    }
}

// Every element of a struct, a C array or a storage of non-scalars is a
// `Value`: its size is the interpreter's memory per element there (a fat
// pointer in a variant made it 24 bytes and every big one half as large
// again). Storages of scalars hold C++-sized elements instead.
const _: () = assert!(std::mem::size_of::<Value>() == 16);

impl Value {
    /// The integer in a scalar (bools are 0 or 1, floats truncate).
    pub(crate) fn int(&self) -> i64 {
        match self {
            Value::Int(v) => *v,
            Value::Bool(b) => i64::from(*b),
            Value::Float(f) => *f as i64,
            Value::Double(d) => *d as i64,
            _ => 0,
        }
    }

    /// The truth of a `bool`.
    pub(crate) fn truth(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Int(v) => *v != 0,
            Value::Float(f) => *f != 0.0,
            Value::Double(d) => *d != 0.0,
            Value::Ptr(p) => !p.is_null(),
            _ => false,
        }
    }

    /// The components of an index or extent.
    pub(crate) fn dims(&self) -> Vec<i64> {
        match self {
            Value::Agg(items) => items.iter().map(Value::int).collect(),
            _ => Vec::new(),
        }
    }

    /// An index or extent from its components.
    pub(crate) fn shape(dims: impl IntoIterator<Item = i64>) -> Value {
        Value::Agg(Rc::new(dims.into_iter().map(Value::Int).collect()))
    }

    /// A C array of `elem`s holding `items`: typed when the elements are
    /// scalars and every item is one (an unwritten one keeps the array an
    /// aggregate, see [`ScalarArray`]).
    pub(crate) fn array(elem: &tessera_ir::Type, items: Vec<Value>) -> Value {
        if let tessera_ir::Type::Scalar(s) = elem
            && items.iter().all(Value::is_number)
            && let Some(a) = ScalarArray::of(*s, &items)
        {
            return Value::Scalars(Rc::new(a));
        }
        Value::Agg(Rc::new(items))
    }

    /// True for a `bool`, an integer or a floating-point value.
    pub(crate) fn is_number(&self) -> bool {
        matches!(
            self,
            Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Double(_)
        )
    }

    /// How many parts an aggregate has (fields, elements); 0 for anything
    /// else.
    pub(crate) fn part_count(&self) -> usize {
        match self {
            Value::Agg(items) => items.len(),
            Value::Scalars(a) => a.len(),
            _ => 0,
        }
    }

    /// Part `i` of an aggregate (a field, an element), whichever way the
    /// aggregate keeps it.
    pub(crate) fn part(&self, i: usize) -> Option<Value> {
        match self {
            Value::Agg(items) => items.get(i).cloned(),
            Value::Scalars(a) => a.get(i),
            _ => None,
        }
    }

    /// The parts of an aggregate, in order.
    pub(crate) fn parts(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.part_count()).filter_map(|i| self.part(i))
    }
}

/// Counts the bytes of program data alive at once, against `--max-memory`.
#[derive(Debug)]
pub(crate) struct Meter {
    used: Cell<u64>,
    limit: u64,
}

impl Meter {
    pub(crate) fn new(limit: u64) -> Rc<Meter> {
        Rc::new(Meter {
            used: Cell::new(0),
            limit,
        })
    }

    /// Takes `bytes` more, or says how much is in use if that passes the limit.
    pub(crate) fn take(&self, bytes: u64) -> Result<(), (u64, u64)> {
        let used = self.used.get();
        match used.checked_add(bytes) {
            Some(total) if total <= self.limit => {
                self.used.set(total);
                Ok(())
            }
            _ => Err((used, self.limit)),
        }
    }

    /// The limit.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// The bytes the limit leaves.
    pub(crate) fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used.get())
    }

    /// Returns `bytes` to the budget.
    pub(crate) fn give(&self, bytes: u64) {
        self.used.set(self.used.get().saturating_sub(bytes));
    }
}

/// What a [`Storage`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StorageKind {
    /// The elements of a `std::vector`.
    Vector,
    /// Memory of the accelerator: an `array`, or an `array_view` made
    /// without a data source.
    Device,
    /// Host memory from `new` (`array`: from `new T[n]`).
    Heap {
        /// Made by `new T[n]`, so freed by `delete[]`.
        array: bool,
    },
}

/// A storage's elements.
#[derive(Debug)]
enum Elems {
    /// Scalars of one type, in C++ layout: the memory a launch hands to a
    /// kernel engine as it is, and the interpreter reads and writes one
    /// element at a time. A `std::vector<int>` of n elements takes 4n
    /// bytes, as in C++.
    Scalars(Scalar, Buffer),
    /// Structs (or C arrays) of scalars without unions, in C++ layout
    /// ([`RecordShape`] says where each part is): a launch uses the buffer in
    /// place, as a typed storage's, and the interpreter reads and writes
    /// one part of one element at a time. An operation that would move
    /// elements about (an insertion in the middle, a sort with a
    /// comparison) first turns the storage into one of values, for good.
    Records(Rc<RecordShape>, Buffer),
    /// Elements of any other type (structs, strings, nested containers),
    /// or of a container the library works on as values (sets, maps).
    Values(Vec<Value>),
}

/// A block of elements: a vector's, or an array's.
///
/// Elements of a scalar type live in one typed buffer in C++ layout
/// ([`Elems::Scalars`]), which a launch under the JIT uses in place: no
/// element is converted at a hand-off in either direction, and the memory
/// the interpreter takes is the memory the program asks for. Every access
/// goes through the element methods below, which convert one element at a
/// time.
#[derive(Debug)]
pub(crate) struct Storage {
    /// The elements.
    elems: RefCell<Elems>,
    /// Vector or accelerator memory.
    pub(crate) kind: StorageKind,
    /// A `new` allocation that was deleted.
    pub(crate) freed: Cell<bool>,
    /// Bytes of one element in C++ (for the memory limit).
    pub(crate) elem_bytes: u64,
    meter: Rc<Meter>,
    /// Live `array_view`s over this data (vectors only): when the last one
    /// goes, C++ AMP copies the kernels' writes back, so they are no longer
    /// pending.
    pub(crate) views: Cell<u32>,
    /// `--check`: a kernel wrote through a view and nothing synchronised it
    /// yet; the launch's span.
    pub(crate) unsynced: Cell<Option<Span>>,
    /// `--check`: elements dropped by `discard_data()` and not written since.
    pub(crate) discarded: RefCell<Vec<bool>>,
    /// An `array`'s CPU `access_type` (C++ AMP's value), set when it is
    /// made; `access_type_read_write` for everything else.
    pub(crate) cpu_access: Cell<i64>,
    /// An `array`'s accelerator view and associated view (C++ AMP's
    /// staging arrays differ in the two), set when it is made; the default
    /// view for everything else.
    pub(crate) placement: Cell<(DeviceValue, DeviceValue)>,
    /// An `array_view` made without a data source: C++ AMP refuses to
    /// name the accelerator view of its source.
    pub(crate) sourceless: Cell<bool>,
    /// An unordered container's bucket count (1 before its first
    /// insertion), which decides its iteration order (`hashtable`).
    pub(crate) buckets: Cell<u64>,
    /// How many times the elements changed number (insertions, removals):
    /// positions, and with them iterator values, are stale after a change.
    pub(crate) reshaped: Cell<u64>,
    /// How many times elements changed position (an insertion before the
    /// end, a removal, a rehash): a place or pointer holds the generation its position
    /// was taken at, and [`Storage::follow`] carries the position through
    /// the moves since, so that a reference stays on its element as in C++.
    generation: Cell<u64>,
    /// The moves since generation `moves_from`, each with the generation
    /// before it (an `Appended` run spans one generation per element),
    /// kept only while something besides the container may hold a
    /// position in it (see [`Storage::record_move`]).
    moves: RefCell<Vec<(u64, Move)>>,
    /// The generation before the first of `moves`.
    moves_from: Cell<u64>,
    /// A `std::vector`'s capacity in each library C++ AMP programs run
    /// with ([`Capacity`]); unknown for every other storage.
    capacity: Cell<Capacity>,
    /// The generation its last reallocation started (0: none).
    last_reallocation: Cell<u64>,
    /// Its elements are the zeros it was made with: nothing has written
    /// them (every write goes through [`Storage::elems_mut`]), so a launch
    /// may write the buffer in place and, should it fail, leave zeros
    /// behind instead of keeping a copy.
    pristine: Cell<bool>,
}

/// A value as a scalar of type `s` (what a typed buffer stores). Values
/// reach a storage already converted to its element type; the conversions
/// here only make sure that a stray one (an `Int` zero for a `double`, a
/// never-written element) is stored as C++ would hold it, never as the
/// wrong bits.
fn bits_of(s: Scalar, v: &Value) -> Bits {
    let floating = s.is_floating();
    match (v, s) {
        (Value::Bool(b), Scalar::Bool) => Bits::Bool(*b),
        (Value::Int(n), Scalar::Bool) => Bits::Bool(*n != 0),
        (Value::Float(f), Scalar::Bool) => Bits::Bool(*f != 0.0),
        (Value::Double(d), Scalar::Bool) => Bits::Bool(*d != 0.0),
        (Value::Float(f), Scalar::Float) => Bits::Float(*f),
        (Value::Double(d), Scalar::Double) => Bits::Double(*d),
        (Value::Float(f), Scalar::Double) => Bits::Double(f64::from(*f)),
        (Value::Double(d), Scalar::Float) => Bits::Float(*d as f32),
        (Value::Int(n), Scalar::Float) => Bits::Float(*n as f32),
        (Value::Int(n), Scalar::Double) => Bits::Double(*n as f64),
        (Value::Bool(b), _) if floating => Bits::Double(f64::from(u8::from(*b))),
        (Value::Bool(b), _) => Bits::Int(i64::from(*b)),
        (Value::Int(n), _) => Bits::Int(*n),
        (Value::Float(f), _) => Bits::Int(*f as i64),
        (Value::Double(d), _) => Bits::Int(*d as i64),
        // Never written (or not a scalar at all): zero, as the interpreter
        // reads a never-written element.
        (_, Scalar::Bool) => Bits::Bool(false),
        (_, Scalar::Float) => Bits::Float(0.0),
        (_, Scalar::Double) => Bits::Double(0.0),
        _ => Bits::Int(0),
    }
}

/// The value of a scalar read from a typed buffer.
#[inline(always)]
fn value_of(b: Bits) -> Value {
    match b {
        Bits::Bool(b) => Value::Bool(b),
        Bits::Int(n) => Value::Int(n),
        Bits::Float(f) => Value::Float(f),
        Bits::Double(d) => Value::Double(d),
    }
}

/// Element `i` of a typed buffer.
#[inline(always)]
fn scalar_at(s: Scalar, b: &Buffer, i: usize) -> Option<Value> {
    if i >= b.len {
        return None;
    }
    b.get_at(i * b.elem_size as usize, s).map(value_of)
}

/// Stores element `i` of a typed buffer (a scalar `Bool` stores as 0/1).
#[inline(always)]
fn set_scalar(s: Scalar, b: &mut Buffer, i: usize, v: &Value) -> bool {
    if i >= b.len {
        return false;
    }
    let bits = match (s, v) {
        // The common cases, without the general conversion's match.
        (Scalar::Double, Value::Double(d)) => Bits::Double(*d),
        (Scalar::Float, Value::Float(f)) => Bits::Float(*f),
        (_, Value::Int(n)) if !s.is_floating() && s != Scalar::Bool => Bits::Int(*n),
        _ => bits_of(s, v),
    };
    b.set_at(i * b.elem_size as usize, s, bits);
    true
}

/// A typed buffer of `values`, or `None` when one is too big to address.
/// How a storage keeps elements of a type: chosen where it is made.
#[derive(Clone, Debug)]
pub(crate) enum ElemLayout {
    /// Scalars of this type, in a typed buffer.
    Scalar(Scalar),
    /// Records of this shape, type and size, in a typed buffer.
    Record(Rc<RecordShape>, tessera_ir::Type, u32),
    /// Values.
    Values,
}

/// A buffer of one record, `v`, of the type of storage buffer `b`; `None`
/// when `v` is no value of its shape.
fn one_record(shape: &RecordShape, b: &Buffer, v: &Value) -> Option<Buffer> {
    let mut one = Buffer::zeroed(b.elem.clone(), b.elem_size, 1)?;
    shape.write(&mut one, 0, v)?;
    Some(one)
}

/// Element `i` of a storage of records, as a value.
fn record_at(shape: &RecordShape, b: &Buffer, i: usize) -> Option<Value> {
    if i >= b.len {
        return None;
    }
    shape.read(b, i * b.elem_size as usize)
}

/// A buffer of records of `shape` holding `values`, or `None` when one is
/// no value of that shape (or the size overflows).
fn records(
    shape: &RecordShape,
    elem: tessera_ir::Type,
    size: u32,
    values: &[Value],
) -> Option<Buffer> {
    let mut b = Buffer::zeroed(elem, size, values.len())?;
    for (i, v) in values.iter().enumerate() {
        shape.write(&mut b, i * size as usize, v)?;
    }
    Some(b)
}

/// Turns typed elements into values, for good.
fn to_values(elems: &mut Elems) {
    let items: Vec<Value> = match &*elems {
        Elems::Scalars(s, b) => (0..b.len).filter_map(|i| scalar_at(*s, b, i)).collect(),
        Elems::Records(shape, b) => (0..b.len).filter_map(|i| record_at(shape, b, i)).collect(),
        Elems::Values(_) => return,
    };
    *elems = Elems::Values(items);
}

/// Turns records into values (an operation that moves elements about).
fn to_values_if_records(elems: &mut Elems) {
    if matches!(elems, Elems::Records(..)) {
        to_values(elems);
    }
}

fn typed(s: Scalar, values: &[Value]) -> Option<Buffer> {
    let mut b = Buffer::scalars(s, values.len())?;
    for (i, v) in values.iter().enumerate() {
        set_scalar(s, &mut b, i, v);
    }
    Some(b)
}

/// A C array whose elements are scalars: `n` elements of one scalar type in
/// one typed buffer in C++ layout (4 bytes an `int`, 8 a `double`, 1 a
/// `bool` or `char`), as a [`Storage`] of scalars keeps them.
///
/// It is a value, shared copy-on-write like [`Value::Agg`]: a copy of a
/// struct holding one shares the buffer until either side writes. Why
/// only the innermost dimension: a multi-dimensional array is an
/// aggregate of such rows, so that every place, path and pointer into it
/// keeps the shape it has for any other aggregate (`m[i]` is part `i`,
/// `m[i][j]` part `j` of that), and rows of a zero array share one buffer
/// until written.
///
/// Arrays whose elements may be unwritten (`tile_static` arrays in a tile
/// that has not written them yet, a union member not yet given a value)
/// stay aggregates of [`Value::Uninit`]: a typed buffer has no room to tell
/// an unwritten element from a zero, which `--check` reports apart.
///
/// Why its own words rather than a [`Buffer`]: rows of a multi-dimensional
/// array are often short (`float v[n][3]`), and a row of at most 16 bytes
/// lives inside the array's one allocation (a `Buffer` would add a type
/// and a second allocation to each row, more than the 16-byte values it
/// replaces).
#[derive(Clone, Debug)]
pub(crate) struct ScalarArray {
    /// The elements' type.
    scalar: Scalar,
    /// Number of elements.
    len: usize,
    /// The elements' bytes in C++ layout, zero past the last one.
    words: SmallVec<[u64; 2]>,
}

impl ScalarArray {
    /// `n` zeros of type `s` (zeroed memory from the system, which costs
    /// nothing until written), or `None` when the size overflows.
    pub(crate) fn zeroed(s: Scalar, n: usize) -> Option<ScalarArray> {
        let bytes = n.checked_mul(s.size() as usize)?;
        Some(ScalarArray {
            scalar: s,
            len: n,
            words: SmallVec::from_elem(0, bytes.div_ceil(8)),
        })
    }

    /// An array of no elements of type `s`.
    pub(crate) fn empty(s: Scalar) -> ScalarArray {
        ScalarArray {
            scalar: s,
            len: 0,
            words: SmallVec::new(),
        }
    }

    /// An array of `values` (each converted to `s` as a storage stores it),
    /// or `None` when one is too big to address.
    pub(crate) fn of(s: Scalar, values: &[Value]) -> Option<ScalarArray> {
        let mut a = ScalarArray::zeroed(s, values.len())?;
        for (i, v) in values.iter().enumerate() {
            a.set(i, v);
        }
        Some(a)
    }

    /// The array a buffer of scalars in C++ layout holds (a launch's
    /// result), or the buffer back when it holds something else.
    pub(crate) fn from_buffer(buf: Buffer) -> Result<ScalarArray, Buffer> {
        match buf.elem.scalar() {
            Some(s) if buf.elem_size == s.size() => Ok(ScalarArray {
                scalar: s,
                len: buf.len,
                words: SmallVec::from_vec(buf.into_words()),
            }),
            _ => Err(buf),
        }
    }

    /// The words of the elements, without a copy when they are on the
    /// heap (a short row is copied out of its inline words).
    pub(crate) fn into_words(self) -> Vec<u64> {
        self.words.into_vec()
    }

    /// The array of `n` elements of type `s` whose bytes are `words` (as
    /// [`ScalarArray::into_words`] gave them), or `None` when they are
    /// not that many.
    pub(crate) fn from_words(s: Scalar, n: usize, words: Vec<u64>) -> Option<ScalarArray> {
        let bytes = n.checked_mul(s.size() as usize)?;
        (words.len() == bytes.div_ceil(8)).then(|| ScalarArray {
            scalar: s,
            len: n,
            words: SmallVec::from_vec(words),
        })
    }

    /// Overwrites the elements with the bytes from byte `at` of `src`, when
    /// they are `n` elements of type `s`; false (nothing changed) otherwise.
    pub(crate) fn copy_from_bytes(&mut self, s: Scalar, n: usize, src: &Buffer, at: usize) -> bool {
        if self.scalar != s || self.len != n {
            return false;
        }
        let bytes = n.saturating_mul(s.size() as usize);
        tessera_runtime::launch::copy_bytes(&mut self.words, 0, src.words(), at, bytes);
        true
    }

    /// The `n` elements of type `s` from byte `at` of `src` (a launch's
    /// buffer, where the array is part of an object), copied as bytes.
    pub(crate) fn from_bytes(s: Scalar, n: usize, src: &Buffer, at: usize) -> Option<ScalarArray> {
        let mut a = ScalarArray::zeroed(s, n)?;
        let bytes = n.saturating_mul(s.size() as usize);
        tessera_runtime::launch::copy_bytes(&mut a.words, 0, src.words(), at, bytes);
        Some(a)
    }

    /// The elements' type.
    pub(crate) fn scalar(&self) -> Scalar {
        self.scalar
    }

    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Element `i` (`None` past the end).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<Value> {
        if i >= self.len {
            return None;
        }
        let at = i * self.scalar.size() as usize;
        tessera_runtime::launch::load(&self.words, at, self.scalar).map(value_of)
    }

    /// What `read` makes of element `i`, the element handed over in
    /// registers (see [`Storage::element_with`]).
    #[inline(always)]
    pub(crate) fn get_with<T>(
        &self,
        i: usize,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Option<T> {
        // A scalar owns nothing: not dropping it spares the drop glue.
        let v = std::mem::ManuallyDrop::new(self.get(i)?);
        read(&v)
    }

    /// Stores `v` in element `i` (false past the end). A value that is not
    /// a scalar (an unwritten element copied from `tile_static` memory)
    /// stores as zero, which is how the interpreter reads one.
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, v: &Value) -> bool {
        if i >= self.len {
            return false;
        }
        let s = self.scalar;
        let bits = match (s, v) {
            // The common cases, without the general conversion's match.
            (Scalar::Double, Value::Double(d)) => Bits::Double(*d),
            (Scalar::Float, Value::Float(f)) => Bits::Float(*f),
            (_, Value::Int(n)) if !s.is_floating() && s != Scalar::Bool => Bits::Int(*n),
            _ => bits_of(s, v),
        };
        tessera_runtime::launch::store(&mut self.words, i * s.size() as usize, s, bits);
        true
    }

    /// The elements' bytes in C++ layout, as words.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// The elements as a buffer in C++ layout (a copy of the bytes), for a
    /// launch.
    pub(crate) fn to_buffer(&self) -> Option<Buffer> {
        Buffer::from_words(
            tessera_ir::Type::Scalar(self.scalar),
            self.scalar.size(),
            self.len,
            self.words.to_vec(),
        )
    }
}

impl Storage {
    /// Records a change in the number of elements (iterators made before
    /// it are stale).
    pub(crate) fn reshape(&self) {
        self.reshaped
            .set(self.reshaped.get().wrapping_add(1).max(1));
    }

    /// The number of moves so far: positions taken now are measured at it.
    #[inline(always)]
    pub(crate) fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// Records that elements changed position. `others` is how many
    /// handles on the storage the caller holds besides the container's own
    /// value: when nothing else holds it, no place or pointer can hold a
    /// position in it (each holds the storage), so the moves kept so far
    /// are dropped instead of kept. Returns the bytes the kept moves grew
    /// by and the bytes dropped, for the memory limit.
    pub(crate) fn record_move(self: &Rc<Self>, mv: Move, others: usize) -> (u64, u64) {
        let mut moves = self.moves.borrow_mut();
        let before = self.generation.get();
        self.generation.set(before + 1);
        if matches!(mv, Move::Reallocated) {
            self.last_reallocation.set(before + 1);
        }
        if Rc::strong_count(self) <= 1 + others {
            let dropped = moves.iter().map(|(_, m)| m.bytes()).sum();
            moves.clear();
            self.moves_from.set(before + 1);
            return (0, dropped);
        }
        // Appending right after an append extends its run: a loop of
        // `push_back`s holds one move, not one per element.
        if let (Move::Appended { from: at, count: 1 }, Some((_, Move::Appended { from, count }))) =
            (&mv, moves.last_mut())
            && *at == *from + *count
        {
            *count += 1;
            return (0, 0);
        }
        let added = mv.bytes();
        moves.push((before, mv));
        (added, 0)
    }

    /// Where the element at position `at` of generation `generation` is
    /// now, or why it is nowhere. An iterator (`iterator`) does not survive
    /// a rehash, as in C++; a reference or pointer follows its element
    /// through it.
    #[inline(always)]
    pub(crate) fn follow(&self, at: usize, generation: u64, iterator: bool) -> Result<usize, Lost> {
        if generation == self.generation.get() {
            return Ok(at);
        }
        self.follow_moves(at, generation, iterator)
    }

    fn follow_moves(&self, mut at: usize, generation: u64, iterator: bool) -> Result<usize, Lost> {
        // Nothing holding a position can have a generation whose moves
        // were dropped.
        if generation < self.moves_from.get() {
            return Err(Lost::Untracked);
        }
        let moves = self.moves.borrow();
        // The move the generation falls in (a run of appends spans several).
        let start = moves.partition_point(|(g, mv)| g + mv.generations() <= generation);
        for (n, (g, mv)) in moves.get(start..).unwrap_or_default().iter().enumerate() {
            match mv {
                Move::Inserted(k) => {
                    if at >= *k {
                        at += 1;
                    }
                }
                Move::Appended { from, count } => {
                    // Only the end moves, to the end: what the appends
                    // before `generation` (in the first move looked at)
                    // did is already in `at`.
                    let done = if n == 0 {
                        generation.saturating_sub(*g) as usize
                    } else {
                        0
                    };
                    if at >= from + done {
                        at += count - done;
                    }
                }
                Move::Removed { lo, hi } => {
                    if at >= *hi {
                        at -= hi - lo;
                    } else if at >= *lo {
                        return Err(Lost::Removed);
                    }
                }
                Move::Reallocated => return Err(Lost::Reallocated),
                Move::Permuted(to) => {
                    if iterator {
                        return Err(Lost::Rehashed);
                    }
                    // One past the end stays one past the end.
                    at = to.get(at).map_or(to.len(), |&k| k as usize);
                }
            }
        }
        Ok(at)
    }

    fn make(elems: Elems, kind: StorageKind, elem_bytes: u64, meter: &Rc<Meter>) -> Rc<Storage> {
        Rc::new(Storage {
            elems: RefCell::new(elems),
            kind,
            freed: Cell::new(false),
            elem_bytes,
            meter: Rc::clone(meter),
            views: Cell::new(0),
            unsynced: Cell::new(None),
            discarded: RefCell::new(Vec::new()),
            cpu_access: Cell::new(tessera_ir::device::ACCESS_READ_WRITE),
            placement: Cell::new((Accel::Default.default_view(), Accel::Default.default_view())),
            sourceless: Cell::new(false),
            buckets: Cell::new(1),
            reshaped: Cell::new(1),
            generation: Cell::new(0),
            moves: RefCell::new(Vec::new()),
            moves_from: Cell::new(0),
            capacity: Cell::new(Capacity::UNKNOWN),
            last_reallocation: Cell::new(0),
            pristine: Cell::new(false),
        })
    }

    /// True when the vector reallocated after generation `generation`:
    /// memory taken then (a view's) is gone.
    pub(crate) fn reallocated_since(&self, generation: u64) -> bool {
        self.last_reallocation.get() > generation
    }

    /// Sets a `std::vector`'s capacity to exactly `n` in both libraries,
    /// as its construction with `n` elements leaves it.
    pub(crate) fn set_capacity(&self, n: u64) {
        self.capacity.set(Capacity { gnu: n, msvc: n });
    }

    /// A `std::vector` of `len` elements grows to `needed`, as `growth`
    /// grows it: true when either library moves its elements to new
    /// memory. A capacity below the length (the elements changed number
    /// some way not followed here) is unknown from then on, so that no
    /// reallocation is ever reported that a library would not make.
    pub(crate) fn grow_capacity(&self, needed: u64, growth: Growth) -> bool {
        let len = self.len() as u64;
        let cap = self.capacity.get();
        if len > cap.gnu.min(cap.msvc) {
            self.capacity.set(Capacity::UNKNOWN);
            return false;
        }
        let (gnu, moved_gnu) = cap.grown_gnu(len, needed, growth);
        let (msvc, moved_msvc) = cap.grown_msvc(needed, growth);
        self.capacity.set(Capacity { gnu, msvc });
        moved_gnu || moved_msvc
    }

    /// Follows the capacity through the appends that took a vector from
    /// `from` elements to its length now, one `push_back` at a time as
    /// [`Storage::grow_capacity`] does (without visiting the appends that
    /// fit); returns how many of them reallocated.
    pub(crate) fn note_appends(&self, from: usize) -> u64 {
        let end = self.len() as u64;
        let mut len = from as u64;
        let mut reallocations = 0;
        while len < end {
            let cap = self.capacity.get();
            let room = cap.gnu.min(cap.msvc);
            if len > room {
                self.capacity.set(Capacity::UNKNOWN);
                break;
            }
            // The appends up to `room` elements fit in both libraries.
            if room >= end {
                break;
            }
            len = len.max(room);
            let (gnu, _) = cap.grown_gnu(len, len + 1, Growth::Grow);
            let (msvc, _) = cap.grown_msvc(len + 1, Growth::Grow);
            self.capacity.set(Capacity { gnu, msvc });
            reallocations += 1;
            len += 1;
        }
        reallocations
    }

    /// The elements, to change them: the storage is no longer pristine.
    fn elems_mut(&self) -> std::cell::RefMut<'_, Elems> {
        self.pristine.set(false);
        self.elems.borrow_mut()
    }

    /// Whether the elements are still the zeros the storage was made with.
    pub(crate) fn pristine(&self) -> bool {
        self.pristine.get()
    }

    /// Puts back a buffer [`Storage::take_buffer`] took and nothing
    /// wrote; `pristine` is what [`Storage::pristine`] said before.
    pub(crate) fn give_unchanged(&self, buffer: Buffer, pristine: bool) {
        self.give_buffer(buffer);
        self.pristine.set(pristine);
    }

    /// Replaces the buffer a failed launch wrote in place (taken from a
    /// pristine storage) with zeros of the same shape: the storage as it
    /// was before the launch.
    pub(crate) fn give_zeros(&self, written: &Buffer) {
        if let Some(zeros) = Buffer::zeroed(written.elem.clone(), written.elem_size, written.len) {
            self.give_buffer(zeros);
            self.pristine.set(true);
        }
    }

    /// New storage of `data`, counted against `meter` (already taken):
    /// typed when its elements are scalars or records (`layout`).
    pub(crate) fn new(
        data: Vec<Value>,
        kind: StorageKind,
        layout: ElemLayout,
        elem_bytes: u64,
        meter: &Rc<Meter>,
    ) -> Rc<Storage> {
        let elems = match layout {
            ElemLayout::Scalar(s) => match typed(s, &data) {
                Some(b) => Elems::Scalars(s, b),
                None => Elems::Values(data),
            },
            ElemLayout::Record(shape, elem, size) => match records(&shape, elem, size, &data) {
                Some(b) => Elems::Records(shape, b),
                None => Elems::Values(data),
            },
            ElemLayout::Values => Elems::Values(data),
        };
        Storage::make(elems, kind, elem_bytes, meter)
    }

    /// New storage of `n` zero records of `layout` (zeroed memory from the
    /// system), or `None` when its size overflows or the layout is no
    /// record's.
    pub(crate) fn zeroed_records(
        n: usize,
        layout: &ElemLayout,
        kind: StorageKind,
        elem_bytes: u64,
        meter: &Rc<Meter>,
    ) -> Option<Rc<Storage>> {
        let ElemLayout::Record(shape, elem, size) = layout else {
            return None;
        };
        let b = Buffer::zeroed(elem.clone(), *size, n)?;
        let storage = Storage::make(Elems::Records(Rc::clone(shape), b), kind, elem_bytes, meter);
        storage.pristine.set(true);
        Some(storage)
    }

    /// New storage of `n` zero scalars of type `s` (zeroed memory from the
    /// system, which costs nothing until it is touched), or `None` when
    /// its size overflows.
    pub(crate) fn zeroed(
        n: usize,
        s: Scalar,
        kind: StorageKind,
        elem_bytes: u64,
        meter: &Rc<Meter>,
    ) -> Option<Rc<Storage>> {
        let b = Buffer::scalars(s, n)?;
        let storage = Storage::make(Elems::Scalars(s, b), kind, elem_bytes, meter);
        storage.pristine.set(true);
        Some(storage)
    }

    /// A copy of a typed storage (its buffer copied as it is), or `None`
    /// for one of values.
    pub(crate) fn copy_typed(&self, kind: StorageKind) -> Option<Rc<Storage>> {
        let elems = match &*self.elems.borrow() {
            Elems::Scalars(s, b) => Elems::Scalars(*s, b.clone()),
            Elems::Records(shape, b) => Elems::Records(Rc::clone(shape), b.clone()),
            Elems::Values(_) => return None,
        };
        Some(Storage::make(elems, kind, self.elem_bytes, &self.meter))
    }

    pub(crate) fn len(&self) -> usize {
        match &*self.elems.borrow() {
            Elems::Scalars(_, b) | Elems::Records(_, b) => b.len,
            Elems::Values(v) => v.len(),
        }
    }

    /// The scalar type of a storage of scalars.
    pub(crate) fn scalar(&self) -> Option<Scalar> {
        match &*self.elems.borrow() {
            Elems::Scalars(s, _) => Some(*s),
            Elems::Records(..) | Elems::Values(_) => None,
        }
    }

    /// Copies elements `from..from + n` of `src` over this storage's
    /// elements from `to` on, as bytes, when both hold scalars of one type
    /// in typed buffers and both ranges lie within them; false (nothing
    /// copied) otherwise. `src` must be another storage.
    pub(crate) fn copy_scalars_from(
        &self,
        to: usize,
        src: &Storage,
        from: usize,
        n: usize,
    ) -> bool {
        if std::ptr::eq(self, src) {
            return false;
        }
        let source = src.elems.borrow();
        let Elems::Scalars(s, b) = &*source else {
            return false;
        };
        let fits = |at: usize, len: usize| at.checked_add(n).is_some_and(|end| end <= len);
        if self.scalar() != Some(*s) || !fits(from, b.len) || !fits(to, self.len()) {
            return false;
        }
        let size = b.elem_size as usize;
        let mut elems = self.elems_mut();
        let Elems::Scalars(_, d) = &mut *elems else {
            return false;
        };
        d.copy_bytes(to * size, b.words(), from * size, n * size);
        true
    }

    /// Whether `v` is all zero bytes as an element of this storage of
    /// records (so a fresh storage holds it already).
    pub(crate) fn is_zero_record(&self, v: &Value) -> bool {
        let Elems::Records(shape, b) = &*self.elems.borrow() else {
            return false;
        };
        one_record(shape, b, v).is_some_and(|one| one.words().iter().all(|w| *w == 0))
    }

    /// Whether the elements are records in a typed buffer.
    fn records(&self) -> bool {
        matches!(&*self.elems.borrow(), Elems::Records(..))
    }

    /// Whether the elements are in one buffer in C++ layout (scalars or
    /// records), which a launch uses in place.
    pub(crate) fn typed(&self) -> bool {
        !matches!(&*self.elems.borrow(), Elems::Values(_))
    }

    /// Element `i` as the interpreter sees it (inlined, so that the value
    /// reaches its caller in registers: see [`Storage::element_with`]).
    #[inline(always)]
    pub(crate) fn element(&self, i: usize) -> Option<Value> {
        match &*self.elems.borrow() {
            Elems::Scalars(s, b) => scalar_at(*s, b, i),
            Elems::Records(shape, b) => record_at(shape, b, i),
            Elems::Values(v) => v.get(i).cloned(),
        }
    }

    /// What `read` makes of element `i`, unless it was never written:
    /// the hot path of element reads, inlined into its caller so that the
    /// element goes from the buffer to `read` in registers (an `Option<Value>`
    /// returned through memory costs a store-forwarding stall per read).
    #[inline(always)]
    pub(crate) fn element_with<T>(
        &self,
        i: usize,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Option<T> {
        match &*self.elems.borrow() {
            Elems::Scalars(s, b) => {
                // A scalar value owns nothing: not dropping it spares the
                // call to `Value`'s drop glue on every read.
                let v = std::mem::ManuallyDrop::new(scalar_at(*s, b, i)?);
                read(&v)
            }
            Elems::Records(shape, b) => read(&record_at(shape, b, i)?),
            Elems::Values(v) => match v.get(i)? {
                Value::Uninit => None,
                v => read(v),
            },
        }
    }

    /// Part `path` of element `i`: `None` past the end, else as
    /// [`read_path`] answers.
    pub(crate) fn read_in(&self, i: usize, path: &[u32]) -> Option<Result<Option<Value>, Misread>> {
        match &*self.elems.borrow() {
            Elems::Scalars(s, b) => {
                let v = scalar_at(*s, b, i)?;
                Some(Ok(path.is_empty().then_some(v)))
            }
            Elems::Records(shape, b) => {
                if i >= b.len {
                    return None;
                }
                let at = i * b.elem_size as usize;
                Some(Ok(shape
                    .part(at, path)
                    .and_then(|(part, at)| part.read(b, at))))
            }
            Elems::Values(v) => v.get(i).map(|v| read_path(v, path)),
        }
    }

    /// Stores `v` in element `i` (nothing past the end).
    #[inline]
    pub(crate) fn set(&self, i: usize, v: Value) {
        let mut elems = self.elems_mut();
        if let Elems::Records(shape, b) = &mut *elems {
            if i >= b.len {
                return;
            }
            let at = i * b.elem_size as usize;
            if shape.write(b, at, &v).is_some() {
                return;
            }
            // Not a value of the element type's shape: keep values.
            to_values(&mut elems);
        }
        match &mut *elems {
            Elems::Scalars(s, b) => {
                set_scalar(*s, b, i, &v);
            }
            Elems::Records(..) => {}
            Elems::Values(items) => {
                if let Some(slot) = items.get_mut(i) {
                    *slot = v;
                }
            }
        }
    }

    /// Stores `v` in part `path` of element `i`.
    pub(crate) fn write_in(&self, i: usize, path: &[u32], v: Value) {
        let mut elems = self.elems_mut();
        if let Elems::Records(shape, b) = &mut *elems {
            if i >= b.len {
                return;
            }
            let at = i * b.elem_size as usize;
            match shape.part(at, path) {
                // The path leads nowhere: nothing is written.
                None => return,
                Some((part, at)) => {
                    if part.write(b, at, &v).is_some() {
                        return;
                    }
                }
            }
            to_values(&mut elems);
        }
        match &mut *elems {
            Elems::Scalars(s, b) => {
                if path.is_empty() {
                    set_scalar(*s, b, i, &v);
                }
            }
            Elems::Records(..) => {}
            Elems::Values(items) => {
                if let Some(target) = items.get_mut(i) {
                    write_path(target, path, v);
                }
            }
        }
    }

    /// Elements `lo..hi` (clipped to the length) as values.
    pub(crate) fn values(&self, lo: usize, hi: usize) -> Vec<Value> {
        match &*self.elems.borrow() {
            Elems::Scalars(s, b) => {
                let hi = hi.min(b.len);
                (lo.min(hi)..hi)
                    .filter_map(|i| scalar_at(*s, b, i))
                    .collect()
            }
            Elems::Records(shape, b) => {
                let hi = hi.min(b.len);
                (lo.min(hi)..hi)
                    .filter_map(|i| record_at(shape, b, i))
                    .collect()
            }
            Elems::Values(v) => {
                let hi = hi.min(v.len());
                v[lo.min(hi)..hi].to_vec()
            }
        }
    }

    /// Every element, as values.
    pub(crate) fn to_values(&self) -> Vec<Value> {
        self.values(0, usize::MAX)
    }

    /// Stores `items` in the elements from `lo` on (those that exist).
    pub(crate) fn put_values(&self, lo: usize, items: &[Value]) {
        if self.records() {
            for (k, v) in items.iter().enumerate() {
                self.set(lo + k, v.clone());
            }
            return;
        }
        match &mut *self.elems_mut() {
            Elems::Scalars(s, b) => {
                for (k, v) in items.iter().enumerate() {
                    set_scalar(*s, b, lo + k, v);
                }
            }
            // Written element by element above.
            Elems::Records(..) => {}
            Elems::Values(v) => {
                for (slot, x) in v.iter_mut().skip(lo).zip(items) {
                    *slot = x.clone();
                }
            }
        }
    }

    /// Stores `v` in elements `lo..hi`.
    pub(crate) fn fill(&self, lo: usize, hi: usize, v: &Value) {
        if let Elems::Records(shape, b) = &mut *self.elems_mut() {
            // The value's bytes once, copied to every element.
            let size = b.elem_size as usize;
            if let Some(one) = one_record(shape, b, v) {
                for i in lo..hi.min(b.len) {
                    b.copy_bytes(i * size, one.words(), 0, size);
                }
                return;
            }
        }
        if self.records() {
            // Not a value of the element type's shape: `set` keeps values.
            for i in lo..hi.min(self.len()) {
                self.set(i, v.clone());
            }
            return;
        }
        match &mut *self.elems_mut() {
            Elems::Scalars(s, b) => b.fill(lo, hi, bits_of(*s, v)),
            // Written element by element above.
            Elems::Records(..) => {}
            Elems::Values(items) => {
                let hi = hi.min(items.len());
                items[lo.min(hi)..hi].fill(v.clone());
            }
        }
    }

    /// Reverses elements `lo..hi`.
    pub(crate) fn reverse(&self, lo: usize, hi: usize) {
        let mut elems = self.elems_mut();
        to_values_if_records(&mut elems);
        match &mut *elems {
            Elems::Scalars(_, b) => b.reverse(lo, hi),
            Elems::Records(..) => {}
            Elems::Values(items) => {
                let hi = hi.min(items.len());
                items[lo.min(hi)..hi].reverse();
            }
        }
    }

    /// Sorts elements `lo..hi` of a storage of scalars as numbers
    /// (ascending, or descending when `greater`) as `std::sort` orders
    /// them: floating-point by their total order, `unsigned long` as
    /// unsigned. False for a storage of values, which the caller sorts.
    ///
    /// Why keys rather than sorting values: a number sorts as 8 bytes with
    /// a plain comparison, and elements that compare equal are the same
    /// bits, so an unstable sort gives the stable sort's result.
    pub(crate) fn sort_scalars(&self, lo: usize, hi: usize, greater: bool) -> bool {
        let mut elems = self.elems_mut();
        let Elems::Scalars(s, b) = &mut *elems else {
            return false;
        };
        let (s, hi) = (*s, hi.min(b.len));
        let range = lo.min(hi)..hi;
        let put = |b: &mut Buffer, keys: Vec<Value>| {
            for (k, v) in keys.iter().enumerate() {
                set_scalar(s, b, lo + k, v);
            }
        };
        match s {
            Scalar::Float | Scalar::Double => {
                let mut keys: Vec<f64> = range
                    .filter_map(|i| match scalar_at(s, b, i)? {
                        Value::Float(f) => Some(f64::from(f)),
                        Value::Double(d) => Some(d),
                        _ => None,
                    })
                    .collect();
                keys.sort_unstable_by(f64::total_cmp);
                if greater {
                    keys.reverse();
                }
                put(b, keys.into_iter().map(Value::Double).collect());
            }
            Scalar::ULong => {
                let mut keys: Vec<u64> = range
                    .filter_map(|i| Some(scalar_at(s, b, i)?.int() as u64))
                    .collect();
                keys.sort_unstable();
                if greater {
                    keys.reverse();
                }
                put(b, keys.into_iter().map(|k| Value::Int(k as i64)).collect());
            }
            _ => {
                let mut keys: Vec<i64> = range
                    .filter_map(|i| Some(scalar_at(s, b, i)?.int()))
                    .collect();
                keys.sort_unstable();
                if greater {
                    keys.reverse();
                }
                put(b, keys.into_iter().map(Value::Int).collect());
            }
        }
        true
    }

    /// Appends `v`.
    pub(crate) fn push(&self, v: Value) {
        if let Elems::Records(_, b) = &mut *self.elems_mut() {
            b.resize(b.len + 1);
        }
        if self.records() {
            self.set(self.len() - 1, v);
            return;
        }
        match &mut *self.elems_mut() {
            Elems::Scalars(s, b) => b.push(bits_of(*s, &v)),
            Elems::Records(..) => {}
            Elems::Values(items) => items.push(v),
        }
    }

    /// Inserts `v` before element `at` (at most the length).
    pub(crate) fn insert(&self, at: usize, v: Value) {
        self.insert_many(at, vec![v]);
    }

    /// Inserts `new` before element `at` (at most the length).
    pub(crate) fn insert_many(&self, at: usize, new: Vec<Value>) {
        if self.records() && at == self.len() {
            for v in new {
                self.push(v);
            }
            return;
        }
        let mut elems = self.elems_mut();
        to_values_if_records(&mut elems);
        match &mut *elems {
            Elems::Records(..) => {}
            Elems::Scalars(s, b) => {
                if at <= b.len {
                    b.insert_zeroed(at, new.len());
                    for (k, v) in new.iter().enumerate() {
                        set_scalar(*s, b, at + k, v);
                    }
                }
            }
            Elems::Values(items) => {
                if at <= items.len() {
                    items.splice(at..at, new);
                }
            }
        }
    }

    /// Removes elements `lo..hi`.
    pub(crate) fn remove(&self, lo: usize, hi: usize) {
        let mut elems = self.elems_mut();
        if let Elems::Records(_, b) = &mut *elems
            && hi >= b.len
        {
            // The last elements (`pop_back`, `erase` to the end).
            if lo < b.len {
                b.resize(lo);
            }
            return;
        }
        to_values_if_records(&mut elems);
        match &mut *elems {
            Elems::Scalars(_, b) => b.remove_range(lo, hi),
            Elems::Records(..) => {}
            Elems::Values(items) => {
                let hi = hi.min(items.len());
                items.drain(lo.min(hi)..hi);
            }
        }
    }

    /// Sets the number of elements to `n`, new ones `fill`.
    pub(crate) fn resize(&self, n: usize, fill: Value) {
        let grown = match &mut *self.elems_mut() {
            Elems::Records(_, b) => {
                let old = b.len;
                b.resize(n);
                Some(old)
            }
            _ => None,
        };
        if let Some(old) = grown {
            // New elements are zero bytes: only another value is written.
            if !matches!(fill, Value::Uninit) {
                for i in old..n {
                    self.set(i, fill.clone());
                }
            }
            return;
        }
        match &mut *self.elems_mut() {
            Elems::Records(..) => {}
            Elems::Scalars(s, b) => {
                let old = b.len;
                b.resize(n);
                if n > old {
                    b.fill(old, n, bits_of(*s, &fill));
                }
            }
            Elems::Values(items) => items.resize(n, fill),
        }
    }

    /// Reserves room for `extra` more elements.
    pub(crate) fn reserve(&self, extra: usize) {
        match &mut *self.elems_mut() {
            Elems::Scalars(_, b) | Elems::Records(_, b) => b.reserve(extra),
            Elems::Values(items) => items.reserve(extra),
        }
    }

    /// Replaces every element.
    pub(crate) fn replace(&self, data: Vec<Value>) {
        let mut elems = self.elems_mut();
        match &mut *elems {
            Elems::Scalars(s, b) => match typed(*s, &data) {
                Some(new) => *b = new,
                None => *elems = Elems::Values(data),
            },
            Elems::Records(shape, b) => match records(shape, b.elem.clone(), b.elem_size, &data) {
                Some(new) => *b = new,
                None => *elems = Elems::Values(data),
            },
            Elems::Values(items) => *items = data,
        }
    }

    /// Replaces every element by a copy of `other`'s (a storage of the same
    /// element type): a buffer copy between typed storages.
    pub(crate) fn assign_from(&self, other: &Storage) {
        if std::ptr::eq(self, other) {
            return;
        }
        let copied = match (&mut *self.elems_mut(), &*other.elems.borrow()) {
            (Elems::Scalars(s, b), Elems::Scalars(t, c)) if s == t => {
                b.copy_from(c);
                true
            }
            (Elems::Records(_, b), Elems::Records(_, c)) if b.elem == c.elem => {
                b.copy_from(c);
                true
            }
            _ => false,
        };
        if !copied {
            self.replace(other.to_values());
        }
    }

    /// The elements as a vector of values, for the library's operations on
    /// ordered and unordered containers (sorted insertion, hash buckets),
    /// which work on values: a typed storage becomes a storage of values
    /// for good (containers are not handed to kernels).
    pub(crate) fn values_mut(&self) -> Option<std::cell::RefMut<'_, Vec<Value>>> {
        let mut elems = self.elems_mut();
        to_values(&mut elems);
        // Always a vector of values by now.
        std::cell::RefMut::filter_map(elems, |e| match e {
            Elems::Values(v) => Some(v),
            Elems::Scalars(..) | Elems::Records(..) => None,
        })
        .ok()
    }

    /// Hands the typed buffer to a launch, which uses it in place: the
    /// storage is empty until [`Storage::give_buffer`] puts it back (the
    /// interpreter runs nothing in between). `None` for a storage of
    /// values.
    pub(crate) fn take_buffer(&self) -> Option<Buffer> {
        match &mut *self.elems_mut() {
            Elems::Scalars(_, b) | Elems::Records(_, b) => {
                let empty = Buffer::zeroed(b.elem.clone(), b.elem_size, 0)?;
                Some(std::mem::replace(b, empty))
            }
            Elems::Values(_) => None,
        }
    }

    /// A copy of the typed buffer, for a launch that may write it: a run
    /// that fails leaves the storage as it was (the interpreter then runs
    /// the launch from the same state).
    pub(crate) fn buffer_copy(&self) -> Option<Buffer> {
        match &*self.elems.borrow() {
            Elems::Scalars(_, b) | Elems::Records(_, b) => Some(b.clone()),
            Elems::Values(_) => None,
        }
    }

    /// Puts back the buffer [`Storage::take_buffer`] took, or makes a
    /// launch's result the elements.
    pub(crate) fn give_buffer(&self, buffer: Buffer) {
        if let Elems::Scalars(_, b) | Elems::Records(_, b) = &mut *self.elems_mut()
            && buffer.elem == b.elem
        {
            *b = buffer;
        }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        let n = self.len() as u64;
        let moves: u64 = self.moves.get_mut().iter().map(|(_, m)| m.bytes()).sum();
        self.meter
            .give(n.saturating_mul(self.elem_bytes).saturating_add(moves));
    }
}

/// A `std::vector`'s capacity in libstdc++ (`gnu`) and in MSVC's library
/// (`msvc`), which grow it differently; `u64::MAX` where it is not known
/// (a vector copied, or built some way not followed), which never grows.
/// Using a reference to an element after its vector reallocated is
/// undefined in C++, and a program C++ AMP accepts must not depend on which
/// library runs it, so a reallocation in either is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Capacity {
    gnu: u64,
    msvc: u64,
}

/// How a `std::vector` operation asks for room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Growth {
    /// `push_back`, `emplace_back`, `insert` and `resize`: the libraries'
    /// growth policies.
    Grow,
    /// `reserve(n)`: exactly `n` in both.
    Exact,
    /// `assign`: exactly the new size in libstdc++, the growth policy in
    /// MSVC's (which clears and inserts).
    Assign,
}

impl Capacity {
    const UNKNOWN: Capacity = Capacity {
        gnu: u64::MAX,
        msvc: u64::MAX,
    };

    /// libstdc++: `_M_check_len(n)` grows to `size() + max(size(), n)`.
    fn grown_gnu(self, len: u64, needed: u64, growth: Growth) -> (u64, bool) {
        if needed <= self.gnu {
            return (self.gnu, false);
        }
        let new = match growth {
            Growth::Grow => len.saturating_add(len.max(needed - len)),
            Growth::Exact | Growth::Assign => needed,
        };
        (new, true)
    }

    /// MSVC's library: `_Grow_to(n)` grows to `capacity() * 3 / 2`, or to
    /// `n` when that is more; `reserve(n)` to exactly `n`.
    fn grown_msvc(self, needed: u64, growth: Growth) -> (u64, bool) {
        if needed <= self.msvc {
            return (self.msvc, false);
        }
        let new = match growth {
            Growth::Grow | Growth::Assign => self.msvc.saturating_add(self.msvc / 2).max(needed),
            Growth::Exact => needed,
        };
        (new, true)
    }
}

/// A change of the elements' positions, for [`Storage::follow`].
#[derive(Debug)]
pub(crate) enum Move {
    /// One element went in before position `k`: those from `k` on moved up
    /// one.
    Inserted(usize),
    /// `count` elements were appended one after another, the first at
    /// position `from` (the end then): only the end moved, to the new end.
    /// One generation per element.
    Appended {
        /// The end before the first.
        from: usize,
        /// How many.
        count: usize,
    },
    /// The elements at positions `lo..hi` went; those after moved down.
    Removed {
        /// The first removed.
        lo: usize,
        /// One past the last removed.
        hi: usize,
    },
    /// The elements were reordered (a hash table's rehash): element `i`
    /// went to position `to[i]`.
    Permuted(Rc<[u32]>),
    /// A `std::vector` grew past its capacity: its elements moved to new
    /// memory, and every position taken before names nothing.
    Reallocated,
}

/// Why a position held across moves names no element now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lost {
    /// The element was removed.
    Removed,
    /// An iterator's container rehashed.
    Rehashed,
    /// The moves were not kept (nothing was thought to hold a position).
    Untracked,
    /// A `std::vector`'s elements moved to new memory.
    Reallocated,
}

impl Move {
    /// How many generations the move spans.
    fn generations(&self) -> u64 {
        match self {
            Move::Appended { count, .. } => *count as u64,
            _ => 1,
        }
    }

    /// The memory the move takes while kept.
    fn bytes(&self) -> u64 {
        let own = std::mem::size_of::<(u64, Move)>() as u64;
        match self {
            Move::Inserted(_)
            | Move::Appended { .. }
            | Move::Removed { .. }
            | Move::Reallocated => own,
            Move::Permuted(to) => own + 4 * to.len() as u64,
        }
    }
}

/// Where a view's elements are.
#[derive(Debug)]
pub(crate) enum ViewData {
    /// In shared storage.
    Storage(Rc<Storage>),
    /// In a C array variable (`array_view<int, 2> v(2, 2, cells)` over a
    /// `tile_static` or private array): element `k` is `place[k]`.
    Place(Place),
    /// One object (`array_view<int, 1> v(1, &x)`): the view's one element
    /// is the place itself.
    Object(Place),
    /// Other memory read as the view's element type (`reinterpret_as`):
    /// element `k` is the pun's `k`-th `ty`.
    Pun(Rc<Pun>),
}

impl ViewData {
    /// Another handle on the same elements (a section or projection of a
    /// view sees what the view sees).
    pub(crate) fn share(&self) -> ViewData {
        match self {
            ViewData::Storage(s) => ViewData::Storage(Rc::clone(s)),
            ViewData::Place(p) => ViewData::Place(p.clone()),
            ViewData::Object(p) => ViewData::Object(p.clone()),
            ViewData::Pun(p) => ViewData::Pun(Rc::clone(p)),
        }
    }
}

/// An `array` or `array_view`: a rectangular window on some elements.
#[derive(Debug)]
pub(crate) struct View {
    /// Where the elements are.
    pub(crate) data: ViewData,
    /// The position of element `(0, ..., 0)`.
    pub(crate) offset: usize,
    /// The extent.
    pub(crate) extent: Vec<i64>,
    /// How far apart neighbours in each dimension are.
    pub(crate) strides: Vec<usize>,
    /// The generation of its storage when the view was made over it (see
    /// [`Storage::reallocated_since`]); 0 for other data.
    pub(crate) generation: u64,
}

impl View {
    /// `view`, just made from `parent` (a section, a projection): over
    /// the memory the parent was made over, stale if that is.
    pub(crate) fn inherit(mut view: Rc<View>, parent: &View) -> Rc<View> {
        if let Some(v) = Rc::get_mut(&mut view) {
            v.generation = parent.generation;
        }
        view
    }

    /// A view of `data`; counts itself among the data's views.
    pub(crate) fn new(
        data: ViewData,
        offset: usize,
        extent: Vec<i64>,
        strides: Vec<usize>,
    ) -> Rc<View> {
        let generation = match &data {
            ViewData::Storage(s) => {
                s.views.set(s.views.get().saturating_add(1));
                s.generation()
            }
            _ => 0,
        };
        Rc::new(View {
            data,
            offset,
            extent,
            strides,
            generation,
        })
    }

    /// A dense view of all of `data`, in row-major order.
    pub(crate) fn dense(data: ViewData, extent: Vec<i64>) -> Rc<View> {
        let strides = row_major_strides(&extent);
        View::new(data, 0, extent, strides)
    }

    /// Elements in the view.
    pub(crate) fn size(&self) -> usize {
        self.extent
            .iter()
            .map(|&d| usize::try_from(d).unwrap_or(0))
            .product()
    }

    /// The storage offset of the `n`-th element in row-major order.
    pub(crate) fn nth(&self, mut n: usize) -> usize {
        let mut at = self.offset;
        for (d, stride) in self.extent.iter().zip(&self.strides).rev() {
            let d = usize::try_from(*d).unwrap_or(1).max(1);
            at += (n % d) * stride;
            n /= d;
        }
        at
    }

    /// One past the last storage offset the view covers (`None` for an
    /// empty view or one whose offsets overflow).
    pub(crate) fn reach(&self) -> Option<usize> {
        let mut last = self.offset;
        for (&d, &stride) in self.extent.iter().zip(&self.strides) {
            let d = usize::try_from(d).ok().filter(|&d| d > 0)?;
            last = last.checked_add((d - 1).checked_mul(stride)?)?;
        }
        last.checked_add(1)
    }

    /// The place of the element at storage offset `at`.
    pub(crate) fn place_at(&self, at: usize) -> Place {
        match &self.data {
            // A view over a vector that reallocated since holds memory
            // that is gone: its places follow from the view's generation,
            // which reports that.
            ViewData::Storage(s) if s.reallocated_since(self.generation) => Place {
                root: Root::Elem(Rc::clone(s), at, self.generation),
                path: Path::new(),
            },
            ViewData::Storage(s) => Place {
                root: Root::elem(Rc::clone(s), at),
                path: Path::new(),
            },
            // The view's extent is checked against its one element.
            ViewData::Object(p) => p.clone(),
            ViewData::Place(p) => {
                let mut path = p.path.clone();
                path.push(u32::try_from(at).unwrap_or(u32::MAX));
                Place {
                    root: p.root.clone(),
                    path,
                }
            }
            ViewData::Pun(p) => {
                let byte = (at as u64).saturating_mul(p.ty.size).saturating_add(p.base);
                Place::root(Root::Pun(Rc::clone(p), byte))
            }
        }
    }

    /// The shared storage the view's bytes are in, also for a view made by
    /// `reinterpret_as` (whose elements are not the storage's): what a
    /// `synchronize` or a host access through the view brings up to date.
    pub(crate) fn backing_storage(&self) -> Option<&Rc<Storage>> {
        match &self.data {
            ViewData::Storage(s) => Some(s),
            ViewData::Pun(p) => match &p.mem {
                Target::Storage(s) => Some(s),
                _ => None,
            },
            ViewData::Place(_) | ViewData::Object(_) => None,
        }
    }

    /// The shared storage, if the view's elements are its elements.
    pub(crate) fn storage(&self) -> Option<&Rc<Storage>> {
        match &self.data {
            ViewData::Storage(s) => Some(s),
            ViewData::Place(_) | ViewData::Object(_) | ViewData::Pun(_) => None,
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        if let ViewData::Storage(s) = &self.data {
            let left = s.views.get().saturating_sub(1);
            s.views.set(left);
            if left == 0 {
                // The last view of the data went away: C++ AMP writes the
                // kernels' results back to the container now.
                s.unsynced.set(None);
            }
        }
    }
}

/// Row-major strides of an extent.
pub(crate) fn row_major_strides(extent: &[i64]) -> Vec<usize> {
    let mut strides = vec![1usize; extent.len()];
    for i in (0..extent.len().saturating_sub(1)).rev() {
        let d = usize::try_from(extent[i + 1]).unwrap_or(0);
        strides[i] = strides[i + 1].saturating_mul(d);
    }
    strides
}

/// Where an object lives.
#[derive(Clone, Debug)]
pub(crate) enum Root {
    /// A local of the running work-item's (or the host's) call stack:
    /// frame number and slot.
    Local(u32, u32),
    /// A local of the host's call stack, reached from a kernel through a view
    /// over a host C array: frame number and slot.
    HostLocal(u32, u32),
    /// A global.
    Global(u32),
    /// A captured variable of the running kernel.
    Capture(u32),
    /// A `tile_static` variable of the running tile.
    TileStatic(u32),
    /// An element of shared storage: the storage, the element's position,
    /// and the storage's generation the position was taken at (see
    /// [`Storage::follow`]).
    Elem(Rc<Storage>, usize, u64),
    /// A temporary.
    Temp(Rc<RefCell<Value>>),
    /// The object of the pun's type at this byte of the pun's memory.
    Pun(Rc<Pun>, u64),
}

impl Root {
    /// Element `at` of `storage` as it is now.
    pub(crate) fn elem(storage: Rc<Storage>, at: usize) -> Root {
        let generation = storage.generation();
        Root::Elem(storage, at, generation)
    }
}

/// A place: an object, or a part of one (field and element positions).
#[derive(Clone, Debug)]
pub(crate) struct Place {
    /// The whole object.
    pub(crate) root: Root,
    /// Positions of fields and elements inside it.
    pub(crate) path: Path,
}

impl Place {
    pub(crate) fn root(root: Root) -> Place {
        Place {
            root,
            path: Path::new(),
        }
    }

    /// True when both name the same object (same root, same path).
    pub(crate) fn same(&self, other: &Place) -> bool {
        let roots = match (&self.root, &other.root) {
            (Root::Local(a, b), Root::Local(c, d))
            | (Root::HostLocal(a, b), Root::HostLocal(c, d)) => a == c && b == d,
            (Root::Global(a), Root::Global(b))
            | (Root::Capture(a), Root::Capture(b))
            | (Root::TileStatic(a), Root::TileStatic(b)) => a == b,
            (Root::Elem(a, i, g), Root::Elem(b, j, h)) => {
                Rc::ptr_eq(a, b) && a.follow(*i, *g, false).ok() == b.follow(*j, *h, false).ok()
            }
            (Root::Temp(a), Root::Temp(b)) => Rc::ptr_eq(a, b),
            (Root::Pun(a, i), Root::Pun(b, j)) => Rc::ptr_eq(a, b) && i == j,
            _ => false,
        };
        roots && self.path == other.path
    }

    /// The place of part `i` of this one.
    pub(crate) fn child(mut self, i: u32) -> Place {
        self.path.push(i);
        self
    }
}

/// Follows `path` into `v` for reading (`None` also for a read of a union
/// member that is not active: [`read_path`] tells that apart).
pub(crate) fn get_path(v: &Value, path: &[u32]) -> Option<Value> {
    read_path(v, path).ok().flatten()
}

/// Follows `path` into `v` for reading: the value, `None` when the path
/// leads nowhere, or the read of a union member that is not active.
pub(crate) fn read_path(v: &Value, path: &[u32]) -> Result<Option<Value>, Misread> {
    read_path_with(v, path, |x| Some(x.clone()))
}

/// What `read` makes of the part `path` of `v` (`Ok(None)` when the path
/// leads nowhere or `read` makes nothing of it): an element of a typed
/// array goes to `read` in registers, as [`Storage::element_with`] hands
/// its elements over.
#[inline(always)]
pub(crate) fn read_path_with<T>(
    mut v: &Value,
    path: &[u32],
    read: impl FnOnce(&Value) -> Option<T>,
) -> Result<Option<T>, Misread> {
    for (k, &i) in path.iter().enumerate() {
        match v {
            Value::Agg(items) => match items.get(i as usize) {
                Some(item) => v = item,
                None => return Ok(None),
            },
            // An element is the end of any path that reaches it.
            Value::Scalars(a) if k + 1 == path.len() => return Ok(a.get_with(i as usize, read)),
            Value::Union(u) => v = u.read_member(i, &path[k + 1..])?,
            _ => return Ok(None),
        }
    }
    Ok(read(v))
}

/// Stores `new` at part `path` of `v`, unsharing aggregates on the way (a
/// union on the way takes the member written as its active one); false
/// when the path leads nowhere.
pub(crate) fn write_path(mut v: &mut Value, path: &[u32], new: Value) -> bool {
    for (k, &i) in path.iter().enumerate() {
        match v {
            Value::Agg(items) => match Rc::make_mut(items).get_mut(i as usize) {
                Some(item) => v = item,
                None => return false,
            },
            Value::Scalars(a) if k + 1 == path.len() => {
                if i as usize >= a.len() {
                    return false;
                }
                return Rc::make_mut(a).set(i as usize, &new);
            }
            Value::Union(u) => v = Rc::make_mut(u).write_member(i),
            _ => return false,
        }
    }
    *v = new;
    true
}

/// Where a write of a number at some path inside a value goes (see
/// [`leaf_mut`]).
pub(crate) enum Leaf<'v> {
    /// Element `i` of a typed array.
    Typed(&'v mut ScalarArray, usize),
    /// A value of an aggregate (or the whole value).
    Value(&'v mut Value),
}

impl Leaf<'_> {
    /// Stores `new` there.
    #[inline(always)]
    pub(crate) fn store(self, new: Value) {
        match self {
            Leaf::Typed(a, i) => {
                a.set(i, &new);
            }
            Leaf::Value(v) => *v = new,
        }
    }
}

/// The place of part `path` of `v` to store into, the aggregates on the way
/// unshared; `None` when the path leads nowhere or through a union (whose
/// active member a write changes: [`write_path`] does that).
///
/// Why apart from [`write_path`]: inlined into the closures that write
/// C array elements, the number written reaches the typed buffer in
/// registers, where through a call it would be stored as a `Value` and
/// read back as bytes (a store-forwarding stall on every write).
#[inline(always)]
pub(crate) fn leaf_mut<'v>(mut v: &'v mut Value, path: &[u32]) -> Option<Leaf<'v>> {
    for (k, &i) in path.iter().enumerate() {
        match v {
            Value::Agg(items) => v = Rc::make_mut(items).get_mut(i as usize)?,
            Value::Scalars(a) if k + 1 == path.len() => {
                if i as usize >= a.len() {
                    return None;
                }
                // `Rc::make_mut`, with its common case (not shared) inlined.
                if Rc::get_mut(a).is_none() {
                    *a = Rc::new((**a).clone());
                }
                return Rc::get_mut(a).map(|a| Leaf::Typed(a, i as usize));
            }
            _ => return None,
        }
    }
    Some(Leaf::Value(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i64]) -> Value {
        let items: Vec<Value> = values.iter().map(|&v| Value::Int(v)).collect();
        Value::array(&tessera_ir::Type::INT, items)
    }

    #[test]
    fn arrays_of_numbers_are_typed_and_unwritten_ones_are_not() {
        assert!(matches!(ints(&[1, 2, 3]), Value::Scalars(_)));
        let unwritten = Value::array(&tessera_ir::Type::INT, vec![Value::Int(1), Value::Uninit]);
        assert!(matches!(unwritten, Value::Agg(_)));
        let Value::Scalars(a) = ints(&[-5, 7]) else {
            panic!("typed");
        };
        assert_eq!(a.len(), 2);
        // 4 bytes an `int`, as in C++.
        assert_eq!(a.words().len(), 1);
        assert!(matches!(a.get(0), Some(Value::Int(-5))));
        assert!(a.get(2).is_none());
    }

    #[test]
    fn a_copy_is_a_value_of_its_own() {
        // A struct holding an array and a number, copied, then written.
        let original = Value::Agg(Rc::new(vec![ints(&[1, 2, 3]), Value::Double(0.5)]));
        let mut copy = original.clone();
        assert!(write_path(&mut copy, &[0, 1], Value::Int(20)));
        assert!(matches!(get_path(&copy, &[0, 1]), Some(Value::Int(20))));
        assert!(matches!(get_path(&original, &[0, 1]), Some(Value::Int(2))));
        // The same through the inlined leaf of element writes.
        let mut other = original.clone();
        match leaf_mut(&mut other, &[0, 2]) {
            Some(leaf) => leaf.store(Value::Int(30)),
            None => panic!("an element"),
        }
        assert!(matches!(get_path(&other, &[0, 2]), Some(Value::Int(30))));
        assert!(matches!(get_path(&original, &[0, 2]), Some(Value::Int(3))));
        assert!(matches!(get_path(&copy, &[0, 2]), Some(Value::Int(3))));
    }

    #[test]
    fn paths_past_an_element_or_the_end_lead_nowhere() {
        let mut v = Value::Agg(Rc::new(vec![ints(&[1, 2])]));
        assert!(get_path(&v, &[0, 2]).is_none());
        assert!(get_path(&v, &[0, 0, 0]).is_none());
        assert!(!write_path(&mut v, &[0, 2], Value::Int(9)));
        assert!(!write_path(&mut v, &[0, 0, 0], Value::Int(9)));
        assert!(leaf_mut(&mut v, &[0, 5]).is_none());
        assert!(matches!(get_path(&v, &[0, 1]), Some(Value::Int(2))));
        // The whole array is a part like any other.
        assert!(matches!(get_path(&v, &[0]), Some(Value::Scalars(_))));
    }

    #[test]
    fn elements_keep_their_type() {
        let mut bytes = Value::array(
            &tessera_ir::Type::Scalar(Scalar::UChar),
            vec![Value::Int(255), Value::Int(0)],
        );
        write_path(&mut bytes, &[1], Value::Int(128));
        assert!(matches!(get_path(&bytes, &[0]), Some(Value::Int(255))));
        assert!(matches!(get_path(&bytes, &[1]), Some(Value::Int(128))));
        let mut flags = Value::array(
            &tessera_ir::Type::Scalar(Scalar::Bool),
            vec![Value::Bool(false); 3],
        );
        write_path(&mut flags, &[2], Value::Bool(true));
        // An unwritten value copied in reads as zero, as it would anyway.
        write_path(&mut flags, &[0], Value::Uninit);
        assert!(matches!(get_path(&flags, &[2]), Some(Value::Bool(true))));
        assert!(matches!(get_path(&flags, &[0]), Some(Value::Bool(false))));
        let Value::Scalars(a) = &flags else {
            panic!("typed");
        };
        assert_eq!(a.words().len(), 1);
        let big = ScalarArray::zeroed(Scalar::Double, 1000).expect("small");
        assert_eq!(big.words().len(), 1000);
    }
}
