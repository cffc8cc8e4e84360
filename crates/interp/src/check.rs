//! `--check`: dynamic checks beyond C++ AMP's rules.
//!
//! Every access of shared memory (`tile_static`, and elements of arrays and
//! views) by a kernel is recorded in shadow memory with who made it and in
//! which barrier interval. Two accesses of the same element by different
//! work-items race when they are not ordered by a barrier (same tile, same
//! interval; or different tiles, which nothing orders) and at least one
//! writes, unless both are atomic. Each pair of source locations is reported
//! once. The checker also reports reads of `tile_static` memory not written
//! in the tile, host access to vectors whose kernel writes were not
//! synchronised, and kernel reads of discarded data.

use crate::machine::{Machine, Res};
use crate::value::{Place, Root, StorageKind};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::HashSet;
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Fence, TileShape};
use tessera_runtime::{RunError, Thread};

/// One recorded access. Kept small (no [`Thread`]: the work-item's number
/// says which it is, see [`Checker::thread_of`]), as a checked launch keeps
/// a record of every element it touches.
#[derive(Clone, Copy, Debug, Default)]
struct Access {
    /// The work-item's number in the launch.
    item: u32,
    /// Its tile (for a non-tiled launch, the work-item itself).
    tile: u32,
    /// The barrier interval of the tile.
    epoch: u32,
    atomic: bool,
    span: Span,
}

/// What is known about one element.
#[derive(Debug, Default)]
struct Shadow {
    write: Option<Access>,
    /// Reads since the last write, by distinct work-items (a few suffice to
    /// find a conflicting one), oldest first.
    reads: Reads,
}

const READS_KEPT: usize = 4;

/// The last [`READS_KEPT`] reads of an element by distinct work-items, in a
/// ring: an element read by a whole row of a tile (a matrix product's
/// `tile_static` blocks) drops its oldest read at each new one, without
/// moving the others.
#[derive(Debug, Default)]
struct Reads {
    ring: [Access; READS_KEPT],
    /// Where the oldest read is.
    first: u8,
    len: u8,
}

impl Reads {
    /// The reads, oldest first.
    fn iter(&self) -> impl Iterator<Item = &Access> {
        let first = usize::from(self.first);
        (0..usize::from(self.len)).map(move |k| &self.ring[(first + k) % READS_KEPT])
    }

    /// Whether work-item `item` made one of the reads. (The ring is full,
    /// or its reads start at the first slot: either way they are the
    /// first `len` slots, in some order.)
    #[inline]
    fn has_item(&self, item: u32) -> bool {
        self.ring[..usize::from(self.len)]
            .iter()
            .any(|r| r.item == item)
    }

    /// Adds a read, dropping the oldest when full.
    fn push(&mut self, access: Access) {
        let first = usize::from(self.first);
        if usize::from(self.len) == READS_KEPT {
            self.ring[first] = access;
            self.first = ((first + 1) % READS_KEPT) as u8;
        } else {
            self.ring[(first + usize::from(self.len)) % READS_KEPT] = access;
            self.len += 1;
        }
    }

    fn clear(&mut self) {
        self.first = 0;
        self.len = 0;
    }
}

/// What one shadow record costs, counted against the memory limit: the
/// record, its key and the map's overhead.
const SHADOW_BYTES: u64 = 112;

/// The state of `--check`.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    /// Whether checks are on.
    pub(crate) on: bool,
    /// What was found, in order.
    pub(crate) findings: Vec<RunError>,
    reported: HashSet<(u16, Span, Span)>,
    tile_static_epoch: u32,
    global_epoch: u32,
    /// Records of `tile_static` elements, keyed by slot, 0 and path: the
    /// elements `dense` does not hold.
    tile_static: ShadowMap,
    /// Records of the scalar elements of `tile_static` arrays, by slot and
    /// then row-major position: the accesses of a tile's loops, looked up
    /// with no hashing.
    dense: Vec<Vec<Option<Shadow>>>,
    /// Where `dense` holds records, to forget them when the tile ends.
    dense_used: Vec<(u32, u32)>,
    /// By slot, once asked: the dimensions of a `tile_static` array of
    /// scalars small enough for `dense` (`Some(empty)` otherwise).
    dense_dims: Vec<Option<SmallVec<[u32; 4]>>>,
    /// Records of global elements, keyed by their storage, element, then
    /// path.
    global: ShadowMap,
    /// Records alive in both maps (their memory is taken from the budget).
    shadow_records: u64,
    /// Paths too long to pack into a key, numbered in the launch.
    deep_paths: FxHashMap<Box<[u32]>, u64>,
    /// The running launch's extent and tile shape, which say which
    /// work-item a number is.
    extent: Vec<i64>,
    shape: Option<TileShape>,
}

/// Which element a shadow record is about: its root (a `tile_static` slot,
/// or a storage and element) and its path inside it, packed (see
/// [`Checker::packed_path`]).
type ShadowKey = [u64; 3];

/// Where an element's shadow record is kept.
#[derive(Clone, Copy)]
enum Target {
    /// In `Checker::global`.
    Global(ShadowKey),
    /// In `Checker::tile_static`.
    TileStatic(ShadowKey),
    /// In `Checker::dense`: slot and position.
    Dense(u32, u32),
}

/// The most elements a `tile_static` array may have for `Checker::dense`
/// (C++ AMP allows 32 KiB of `tile_static` memory in all).
const DENSE_MAX: u64 = 1 << 16;

/// Shadow records by element. Every access of a checked launch looks one up,
/// so the keys are three words compared at once and hashed with a fast
/// non-cryptographic hash: they are addresses, which a program cannot choose
/// to make collide.
type ShadowMap = std::collections::HashMap<ShadowKey, Shadow, ShadowHash>;

/// The hash of a [`ShadowKey`]: the three words multiplied into one and
/// that one spread by MurmurHash3's finaliser, so that every bit of the key
/// reaches the low bits (which pick the bucket) and the top seven (which
/// tell the keys of a bucket group apart). `FxHash` alone leaves its low
/// bits depending on the low bits of the words only, where a packed path
/// has its innermost step: the elements of one column fell into the same
/// few buckets.
#[derive(Clone, Copy, Default)]
struct ShadowHash;

impl std::hash::BuildHasher for ShadowHash {
    type Hasher = ShadowHasher;

    fn build_hasher(&self) -> ShadowHasher {
        ShadowHasher::default()
    }
}

/// See [`ShadowHash`]: the words of the key in the order given.
#[derive(Default)]
struct ShadowHasher {
    words: [u64; 3],
    len: usize,
}

impl std::hash::Hasher for ShadowHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u64(&mut self, word: u64) {
        if self.len < 3 {
            self.words[self.len] = word;
        } else {
            // Not a `ShadowKey`: fold the rest in.
            self.words[2] = self.words[2].rotate_left(5) ^ word;
        }
        self.len += 1;
    }

    /// A slice's length (the key's, always 3) adds nothing.
    #[inline]
    fn write_usize(&mut self, _: usize) {}

    #[inline]
    fn finish(&self) -> u64 {
        let [a, b, c] = self.words;
        let mut h =
            (a.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ b).wrapping_mul(0xf135_7aea_2e62_a9c5) ^ c;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// Bits per path step in a packed path, and how many steps fit.
const STEP_BITS: u32 = 20;
const PACKED_STEPS: usize = 3;

impl Checker {
    pub(crate) fn new(on: bool) -> Checker {
        Checker {
            on,
            ..Checker::default()
        }
    }

    /// Starts a launch of `extent` (tiled by `shape`) with no records;
    /// returns the bytes the last launch's records held.
    pub(crate) fn begin_launch(&mut self, extent: &[i64], shape: Option<TileShape>) -> u64 {
        self.global_epoch = 0;
        self.extent = extent.to_vec();
        self.shape = shape;
        self.end_launch()
    }

    /// The work-item numbered `item` in the running launch: row-major in the
    /// extent, or tile by tile and row-major in each (as the launch numbers
    /// them).
    fn thread_of(&self, item: u32) -> Thread {
        let item = i64::from(item);
        let Some(shape) = self.shape else {
            let mut global = [0i64; 3];
            let rank = self.extent.len();
            for (d, c) in row_major(item, &self.extent)
                .into_iter()
                .take(3)
                .enumerate()
            {
                global[d] = c;
            }
            return Thread::Item {
                rank: rank.min(3) as u8,
                global,
            };
        };
        let rank = usize::from(shape.rank).min(3);
        let dims: Vec<i64> = shape.dims().iter().map(|&d| i64::from(d).max(1)).collect();
        let per_tile: i64 = dims.iter().product::<i64>().max(1);
        let tiles: Vec<i64> = self
            .extent
            .iter()
            .zip(&dims)
            .map(|(e, t)| (e / t).max(1))
            .collect();
        let (mut tile, mut local) = ([0i64; 3], [0i64; 3]);
        for (d, c) in row_major(item / per_tile, &tiles)
            .into_iter()
            .take(rank)
            .enumerate()
        {
            tile[d] = c;
        }
        for (d, c) in row_major(item % per_tile, &dims)
            .into_iter()
            .take(rank)
            .enumerate()
        {
            local[d] = c;
        }
        Thread::Tiled {
            rank: shape.rank,
            tile,
            local,
        }
    }

    /// Forgets every record; returns the bytes they held.
    pub(crate) fn end_launch(&mut self) -> u64 {
        self.global.clear();
        self.tile_static.clear();
        self.forget_dense();
        self.deep_paths.clear();
        std::mem::take(&mut self.shadow_records) * SHADOW_BYTES
    }

    /// Forgets the records of the last tile's `tile_static` memory; returns
    /// the bytes they held.
    pub(crate) fn begin_tile(&mut self) -> u64 {
        let freed = (self.tile_static.len() + self.dense_used.len()) as u64;
        self.shadow_records = self.shadow_records.saturating_sub(freed);
        self.tile_static.clear();
        self.forget_dense();
        self.tile_static_epoch = 0;
        self.global_epoch = self.global_epoch.wrapping_add(1);
        freed * SHADOW_BYTES
    }

    /// Forgets the records `dense` holds.
    fn forget_dense(&mut self) {
        for (slot, at) in self.dense_used.drain(..) {
            if let Some(record) = self
                .dense
                .get_mut(slot as usize)
                .and_then(|d| d.get_mut(at as usize))
            {
                *record = None;
            }
        }
    }

    /// The record of `target`, if there is one.
    #[inline]
    fn shadow_mut(&mut self, target: Target) -> Option<&mut Shadow> {
        match target {
            Target::Global(key) => self.global.get_mut(&key),
            Target::TileStatic(key) => self.tile_static.get_mut(&key),
            Target::Dense(slot, at) => self
                .dense
                .get_mut(slot as usize)
                .and_then(|d| d.get_mut(at as usize))
                .and_then(Option::as_mut),
        }
    }

    /// Keeps `record` as `target`'s.
    fn insert(&mut self, target: Target, record: Shadow) {
        match target {
            Target::Global(key) => {
                self.global.insert(key, record);
            }
            Target::TileStatic(key) => {
                self.tile_static.insert(key, record);
            }
            Target::Dense(slot, at) => {
                if let Some(cell) = self
                    .dense
                    .get_mut(slot as usize)
                    .and_then(|d| d.get_mut(at as usize))
                {
                    *cell = Some(record);
                    self.dense_used.push((slot, at));
                }
            }
        }
    }

    /// Every work-item of the tile passed a barrier.
    pub(crate) fn barrier(&mut self, fence: Fence) {
        if matches!(fence, Fence::All | Fence::TileStatic) {
            self.tile_static_epoch = self.tile_static_epoch.wrapping_add(1);
        }
        if matches!(fence, Fence::All | Fence::Global) {
            self.global_epoch = self.global_epoch.wrapping_add(1);
        }
    }

    /// A path inside an element as one word: up to three steps of under
    /// 2^20 each (the paths of nearly every access) are packed with their
    /// count in the top bits; a longer path gets a number of its own, with
    /// a count no packed path has.
    #[inline]
    fn packed_path(&mut self, path: &[u32]) -> u64 {
        let limit = 1u32 << STEP_BITS;
        if path.len() <= PACKED_STEPS && path.iter().all(|&step| step < limit) {
            let steps = path
                .iter()
                .fold(0u64, |acc, &step| (acc << STEP_BITS) | u64::from(step));
            return ((path.len() as u64) << 60) | steps;
        }
        if let Some(&n) = self.deep_paths.get(path) {
            return n;
        }
        let n = (15u64 << 60) | self.deep_paths.len() as u64;
        self.deep_paths.insert(path.into(), n);
        n
    }

    /// Records a finding unless the same one (by code and spans) was made.
    fn report(&mut self, key: (u16, Span, Span), finding: RunError) {
        if self.reported.insert(key) {
            self.findings.push(finding);
        }
    }
}

/// Row-major position `n` in a box of `dims` (each at least 1).
fn row_major(mut n: i64, dims: &[i64]) -> Vec<i64> {
    let mut out = vec![0; dims.len()];
    for d in (0..dims.len()).rev() {
        let size = dims[d].max(1);
        out[d] = n % size;
        n /= size;
    }
    out
}

impl Shadow {
    /// Records an access; returns an earlier one it races with, and whether
    /// that one wrote.
    fn add(&mut self, access: Access, write: bool) -> Option<(Access, bool)> {
        let mut clash = None;
        if let Some(w) = &self.write
            && conflict(&access, w)
        {
            clash = Some((*w, true));
        }
        if write && clash.is_none() {
            clash = self
                .reads
                .iter()
                .find(|r| conflict(&access, r))
                .map(|r| (*r, false));
        }
        if write {
            self.write = Some(access);
            self.reads.clear();
        } else if !self.reads.has_item(access.item) {
            self.reads.push(access);
        }
        clash
    }
}

/// Whether two accesses of one element race.
fn conflict(a: &Access, b: &Access) -> bool {
    a.item != b.item && (a.tile != b.tile || a.epoch == b.epoch) && !(a.atomic && b.atomic)
}

impl Machine<'_> {
    /// Records a kernel's access of shared memory and reports races.
    pub(crate) fn check_access(
        &mut self,
        place: &Place,
        span: Span,
        write: bool,
        atomic: bool,
    ) -> Res<()> {
        if !self.in_kernel {
            return Ok(());
        }
        let thread = self.items[self.cur].thread;
        let launch_span = self.launch.span;
        // Which shadow map the element's record lives in, and its key there.
        let key = match &place.root {
            Root::TileStatic(slot) => {
                let target = self.tile_static_target(*slot, &place.path);
                return self.record_access(target, span, write, atomic, || place.clone());
            }
            Root::Elem(storage, i, generation) => {
                let i = &storage.follow(*i, *generation, false).unwrap_or(usize::MAX);
                if write {
                    if storage.kind == StorageKind::Vector {
                        storage.unsynced.set(Some(launch_span));
                    }
                    if let Some(m) = storage.discarded.borrow_mut().get_mut(*i) {
                        *m = false;
                    }
                } else if storage.discarded.borrow().get(*i).copied().unwrap_or(false) {
                    let f = RunError::new(
                        codes::R0103,
                        span,
                        thread,
                        "this reads data that `discard_data()` dropped: its value is undefined",
                    )
                    .with_label("reads discarded data")
                    .with_note("on a GPU the kernel sees whatever the accelerator's memory held")
                    .with_help("call `discard_data()` only on views whose old contents the kernel never reads");
                    self.checker.report((103, span, span), f);
                }
                let path = self.checker.packed_path(&place.path);
                [Rc::as_ptr(storage) as u64, *i as u64, path]
            }
            // A view over a host C array: global memory for the kernel (no
            // storage has address 0).
            Root::HostLocal(depth, slot) => {
                let at = (u64::from(*depth) << 32) | u64::from(*slot);
                [0, at, self.checker.packed_path(&place.path)]
            }
            _ => return Ok(()),
        };
        self.record_access(Target::Global(key), span, write, atomic, || place.clone())
    }

    /// Where the record of element `path` of `tile_static` slot `slot` is
    /// kept: a scalar element of an array small enough is in
    /// `Checker::dense`, any other in the map.
    #[inline]
    fn tile_static_target(&mut self, slot: u32, path: &[u32]) -> Target {
        let s = slot as usize;
        if !matches!(self.checker.dense_dims.get(s), Some(Some(_))) {
            self.init_dense(slot);
        }
        if let Some(Some(dims)) = self.checker.dense_dims.get(s)
            && !dims.is_empty()
            && dims.len() == path.len()
        {
            let mut at = 0u32;
            let mut inside = true;
            for (&p, &d) in path.iter().zip(dims) {
                inside &= p < d;
                at = at.wrapping_mul(d).wrapping_add(p);
            }
            if inside {
                return Target::Dense(slot, at);
            }
        }
        Target::TileStatic([u64::from(slot), 0, self.checker.packed_path(path)])
    }

    /// Finds out whether `tile_static` slot `slot` has its records in
    /// `Checker::dense`, and makes its table if so.
    #[cold]
    fn init_dense(&mut self, slot: u32) {
        let s = slot as usize;
        if self.checker.dense_dims.len() <= s {
            self.checker.dense_dims.resize(s + 1, None);
            self.checker.dense.resize_with(s + 1, Vec::new);
        }
        let dims = self.dense_dims(slot);
        if !dims.is_empty() {
            let size = dims.iter().map(|&d| u64::from(d)).product::<u64>();
            self.checker.dense[s] = (0..size).map(|_| None).collect();
        }
        self.checker.dense_dims[s] = Some(dims);
    }

    /// The dimensions of `tile_static` slot `slot` when it is an array of
    /// scalars of at most [`DENSE_MAX`] elements; empty otherwise.
    fn dense_dims(&self, slot: u32) -> SmallVec<[u32; 4]> {
        let mut dims = SmallVec::new();
        let Some(&(f, l)) = self.ts_types.get(slot as usize) else {
            return dims;
        };
        let Some(local) = self.prog.get_function(f).and_then(|f| f.get_local(l)) else {
            return dims;
        };
        let mut ty = &local.ty;
        let mut size = 1u64;
        while let tessera_ir::Type::CArray(elem, n) = ty {
            dims.push(*n);
            size = size.saturating_mul(u64::from(*n));
            ty = elem;
        }
        if !matches!(ty, tessera_ir::Type::Scalar(_)) || size == 0 || size > DENSE_MAX {
            dims.clear();
        }
        dims
    }

    /// [`Machine::check_access`] of element `path` of `tile_static` slot
    /// `slot`, without making its place (the closures' accesses).
    #[inline]
    pub(crate) fn check_tile_static(
        &mut self,
        slot: u32,
        path: &[u32],
        span: Span,
        write: bool,
    ) -> Res<()> {
        if !self.in_kernel {
            return Ok(());
        }
        let target = self.tile_static_target(slot, path);
        self.record_access(target, span, write, false, || Place {
            root: Root::TileStatic(slot),
            path: path.into(),
        })
    }

    /// Records an access of the element of shadow `key` (in the global map
    /// or the `tile_static` one) and reports a race; `place` names the
    /// element for a report.
    fn record_access(
        &mut self,
        target: Target,
        span: Span,
        write: bool,
        atomic: bool,
        place: impl FnOnce() -> Place,
    ) -> Res<()> {
        let strand = &self.items[self.cur];
        let tile = if self.launch.shape.is_some() {
            self.launch.tile_linear
        } else {
            strand.linear
        };
        let (item, thread) = (strand.linear, strand.thread);
        let epoch = if matches!(target, Target::Global(_)) {
            self.checker.global_epoch
        } else {
            self.checker.tile_static_epoch
        };
        let access = Access {
            item,
            tile,
            epoch,
            atomic,
            span,
        };
        let clash = match self.checker.shadow_mut(target) {
            Some(record) => record.add(access, write),
            None => {
                // Shadow records are data too: `--check` on a large launch
                // is held to the memory limit like the program's own arrays.
                self.take_memory(SHADOW_BYTES, span).map_err(|e| {
                    let mut e = *e;
                    e.notes
                        .push("`--check` keeps a record of every element a launch touches".into());
                    Box::new(e)
                })?;
                self.checker.shadow_records += 1;
                let mut record = Shadow::default();
                record.add(access, write);
                self.checker.insert(target, record);
                None
            }
        };
        if let Some((other, other_wrote)) = clash {
            // Named only when reported: formatting on every access would tax
            // the whole checked run.
            let place = place();
            let what = match &place.root {
                Root::TileStatic(slot) => {
                    format!(
                        "`tile_static` memory (`{}`)",
                        self.tile_static_name(*slot, &place.path)
                    )
                }
                Root::Elem(s, i, g) => format!(
                    "global memory (element {} of its data)",
                    s.follow(*i, *g, false).unwrap_or(*i)
                ),
                _ => "global memory (an element of a host array)".to_string(),
            };
            let kind = |w: bool, a: bool| match (w, a) {
                (true, true) => "atomic write",
                (true, false) => "write",
                (false, _) => "read",
            };
            let (first, second) = if other.span <= span {
                (other.span, span)
            } else {
                (span, other.span)
            };
            let f = RunError::new(
                codes::R0100,
                span,
                thread,
                format!("data race on {what}: two work-items access it with nothing ordering them, and one writes"),
            )
            .with_label(format!("{} by {}", kind(write, atomic), thread))
            .with_secondary(other.span, format!("{} by {}", kind(other_wrote, other.atomic), self.checker.thread_of(other.item)))
            .with_help(if self.launch.shape.is_none() {
                "the work-items of a non-tiled kernel are never ordered: give each its own element, or use atomics"
            } else if access.tile == other.tile {
                "put a barrier (`t.barrier.wait()`) between the two accesses, or make both atomic"
            } else {
                "work-items of different tiles are never ordered: give each its own element, or use atomics"
            });
            self.checker.report((100, first, second), f);
        }
        Ok(())
    }

    fn tile_static_name(&self, slot: u32, path: &[u32]) -> String {
        let (f, l) = self.ts_types[slot as usize];
        let name = &self.prog.function(f).local(l).name;
        let idx: String = path.iter().map(|i| format!("[{i}]")).collect();
        format!("{name}{idx}")
    }

    /// A read of a `tile_static` element nobody wrote in this tile.
    pub(crate) fn report_uninit(&mut self, slot: u32, span: Span) {
        let thread = self.thread();
        let (f, l) = self.ts_types[slot as usize];
        let local = &self.prog.function(f).local(l);
        let f = RunError::new(
            codes::R0101,
            span,
            thread,
            format!(
                "read of `tile_static` memory (`{}`) that no work-item of this tile has written",
                local.name
            ),
        )
        .with_label("reads an uninitialised element")
        .with_secondary(local.span, "declared here, without a value")
        .with_note("`tile_static` memory starts undefined in every tile; Tessera reads it as 0")
        .with_help("write every element before a barrier, then read it after the barrier");
        self.checker.report((101, span, span), f);
    }

    /// Host code touching a vector whose view has unsynchronised kernel writes.
    pub(crate) fn check_host_access(&mut self, storage: &crate::value::Storage, span: Span) {
        let Some(launch) = storage.unsynced.get() else {
            return;
        };
        let f = RunError::new(
            codes::R0102,
            span,
            Thread::Host,
            "host code uses a vector that a kernel changed through an `array_view`, before the view was synchronised",
        )
        .with_label("the vector is used here")
        .with_secondary(launch, "the kernel that wrote through the view")
        .with_note("Tessera shares memory with kernels, so it shows the new data; on a GPU the vector still holds the old data here")
        .with_help("call `view.synchronize()` after the kernel, or read the results through the view");
        self.checker.report((102, launch, launch), f);
    }
}
