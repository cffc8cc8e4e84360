//! Runs a compiled kernel: the argument words, the worker pool, and the
//! helpers the generated code calls.
//!
//! This is the one module with `unsafe` code: it calls generated code and
//! lets generated code call back. What makes it sound is stated where it
//! happens; the central promise is that the generated code only touches
//! memory it was given (views whose every element lies inside their buffer,
//! checked here before the launch; scratch and frame blocks of the sizes
//! the code was compiled for) and never traps.
#![allow(unsafe_code)]

use crate::emit::{CHUNK, CaptureLayout, HostLayout, KernelLayout, STATUS_OK};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;
use tessera_ir::Scalar;
use tessera_runtime::format::ScalarValue;
use tessera_runtime::launch::{Arg, Bits, Buffer, HostOutput, Launch, LaunchOutcome, PrintItem};
use tessera_runtime::printf;

/// Shared by the workers of one launch; its address is argument word 0.
struct Control {
    deadline: Option<Instant>,
    interrupt: Option<std::sync::Arc<AtomicBool>>,
    stop: AtomicBool,
    /// A host statement's `std::cout` and what its code prints by number
    /// (`None` for a kernel).
    printing: Option<std::sync::Mutex<Printing>>,
    /// A host statement's `rand()` state (`None` for a kernel).
    rand: Option<std::sync::Mutex<tessera_runtime::rand::Rand>>,
    /// The vectors a host statement appends to (`None` for a kernel, or a
    /// statement that appends to none).
    growth: Option<std::sync::Mutex<Growth>>,
}

/// What [`push_element`] works on: the run's buffers, held here while it
/// runs, and which of them it may grow.
struct Growth {
    buffers: Vec<Buffer>,
    /// By argument, the vector it may grow.
    targets: Vec<Option<Target>>,
    /// The bytes the memory limit leaves.
    memory_left: u64,
}

/// A vector a host statement may append to.
#[derive(Clone, Copy)]
struct Target {
    /// Its buffer.
    buffer: usize,
    /// Its view's first argument word.
    word: u32,
    /// The bytes the memory limit counts per element.
    charge: u64,
    /// Its length when the run began.
    len: usize,
}

/// What a host statement's printing helpers work on.
struct Printing {
    output: HostOutput,
    items: Vec<PrintItem>,
}

/// The scalar types a host statement prints, numbered for its code (see
/// [`print_scalar`]).
pub(crate) const PRINTED_SCALARS: [Scalar; 7] = [
    Scalar::Bool,
    Scalar::Int,
    Scalar::UInt,
    Scalar::Long,
    Scalar::ULong,
    Scalar::Float,
    Scalar::Double,
];

/// The tile order of a wide launch of two or more dimensions: strips of
/// [`TileOrder::STRIP`] tile columns (along the last dimension), each run
/// row after row, one strip after the other, instead of whole rows of
/// tiles. A kernel that walks a band of rows of one matrix and a band of
/// columns of another (the tiled matrix product) then finds the column
/// bands of one strip in the cache as it moves to the next row, where a
/// row order sweeps every column band of the matrix between two uses of
/// one. Tiles are independent in C++ AMP (and several workers already take
/// them in no fixed order), so any order computes the same values.
#[derive(Clone, Copy, Debug, PartialEq)]
struct TileOrder {
    /// Rows of tiles: the product of every dimension's tile count but the last.
    rows: u64,
    /// Tiles along the last dimension, a whole number of strips.
    columns: u64,
}

// A joined call's four tiles stay in one row of one strip.
const _: () = assert!(TileOrder::STRIP.is_multiple_of(crate::emit::JOINED_TILES as u64));

impl TileOrder {
    /// Tile columns per strip: a multiple of the tiles a joined call runs
    /// (so those four stay neighbours in one row of one strip).
    const STRIP: u64 = 16;

    /// The strip order for a launch of `tiles` tiles along each dimension,
    /// or `None` (row order) when the launch has one dimension or its last
    /// one is not at least two whole strips wide.
    fn for_tiles(tiles: &[u64]) -> Option<TileOrder> {
        let (&columns, outer) = tiles.split_last()?;
        if outer.is_empty() || columns < 2 * Self::STRIP || !columns.is_multiple_of(Self::STRIP) {
            return None;
        }
        let rows = outer.iter().try_fold(1u64, |acc, t| acc.checked_mul(*t))?;
        // Every tile's number fits, so `group` cannot overflow.
        rows.checked_mul(columns)?;
        Some(TileOrder { rows, columns })
    }

    /// The row-order number of the `n`th tile taken (`n` below the
    /// launch's tile count); for a multiple of four `n`, the next three
    /// tiles taken are the three after it in row order too.
    fn group(&self, n: u64) -> u64 {
        let per_strip = self.rows * Self::STRIP;
        let (strip, within) = (n / per_strip, n % per_strip);
        let (row, column) = (within / Self::STRIP, within % Self::STRIP);
        row * self.columns + strip * Self::STRIP + column
    }
}

/// A cache line of a worker's scratch or frame block: the blocks start on
/// a line, so the vector rows the kernels load and store (16 bytes at
/// multiples of 16 from the start of a frame slot's array or of a
/// `tile_static` row of four-byte elements, as tiles are laid out) do not
/// straddle two lines.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// Worker threads kept for the launches of one engine: spawning threads
/// at every launch costs tens of microseconds each time, and, on a busy
/// machine, a launch would wait for a new thread to be scheduled at all
/// before it could end. A kept worker instead joins a launch only if it
/// wakes while the launch is still open; the launching thread does the
/// work itself meanwhile and, at the end, waits only for the workers that
/// joined.
pub(crate) struct Pool {
    shared: std::sync::Arc<PoolShared>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

struct PoolShared {
    state: std::sync::Mutex<PoolState>,
    /// `PoolState::opened`, readable without the lock: a spinning worker
    /// watches it.
    opened: AtomicU64,
    /// Set when the pool is dropped, for spinning workers to see.
    closing: AtomicBool,
    /// The CPU the launching thread was on when it last woke the workers
    /// (`usize::MAX`: not known), which they keep off (see `crate::cpus`).
    runner_cpu: AtomicUsize,
    /// Workers wait here for a launch to open.
    wake: std::sync::Condvar,
    /// The launching thread waits here for the workers that joined.
    done: std::sync::Condvar,
}

#[derive(Default)]
struct PoolState {
    /// The open launch's work, if any.
    job: Option<Job>,
    /// Launches opened so far: a worker joins each at most once.
    opened: u64,
    /// Calls of [`Pool::prewake`] so far.
    prewakes: u64,
    /// Workers running the open launch's work.
    active: usize,
    shutdown: bool,
}

/// The work of one launch, its lifetime erased.
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn() + Sync));

// SAFETY: a `Job` points to a `Sync` closure, which `Pool::run` keeps alive
// until every worker that took the pointer has finished with it (see
// there); sending the pointer to a worker is then sending a `&(dyn Fn() +
// Sync)`, which is `Send`.
unsafe impl Send for Job {}

impl Pool {
    /// A pool of `workers` threads (the launching thread is one more).
    pub(crate) fn new(workers: usize) -> Pool {
        let shared = std::sync::Arc::new(PoolShared {
            state: std::sync::Mutex::new(PoolState::default()),
            opened: AtomicU64::new(0),
            closing: AtomicBool::new(false),
            runner_cpu: AtomicUsize::new(usize::MAX),
            wake: std::sync::Condvar::new(),
            done: std::sync::Condvar::new(),
        });
        let mut threads = Vec::with_capacity(workers);
        for _ in 0..workers {
            let shared = std::sync::Arc::clone(&shared);
            let spawned = std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn(move || worker(&shared));
            match spawned {
                Ok(t) => threads.push(t),
                Err(_) => break,
            }
        }
        Pool { shared, threads }
    }

    /// Runs `work` on this thread and on every worker that wakes before
    /// this thread has finished its own share; returns when every worker
    /// that joined has returned from `work`.
    fn run(&self, work: &(dyn Fn() + Sync)) {
        let lock = || self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        {
            let mut st = lock();
            // SAFETY (lifetime erasure): the pointer is withdrawn below,
            // and this function waits until no worker still uses it, all
            // before `work`'s borrow ends.
            let erased: *const (dyn Fn() + Sync + '_) = work;
            st.job = Some(Job(unsafe {
                std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync)>(
                    erased,
                )
            }));
            st.opened += 1;
            self.shared.opened.store(st.opened, Ordering::Release);
        }
        self.note_runner_cpu();
        self.shared.wake.notify_all();
        // Withdrawn and waited for even if `work` unwinds.
        let _close = Close(&self.shared);
        work();
    }
}

/// Closes the open launch when dropped: no worker joins it any more, and
/// the drop returns once every worker that joined has finished.
struct Close<'a>(&'a PoolShared);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        let mut st = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        st.job = None;
        while st.active > 0 {
            st = self.0.done.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Pool {
    /// Wakes the workers ahead of a launch (before its kernel is compiled,
    /// say): each watches for it for a while, so that it joins at once
    /// instead of being woken, and perhaps its core too, when the launch
    /// opens.
    pub(crate) fn prewake(&self) {
        self.note_runner_cpu();
        {
            let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
            st.prewakes += 1;
        }
        self.shared.wake.notify_all();
    }
}

impl Pool {
    /// Records the launching thread's CPU, for the workers to keep off.
    fn note_runner_cpu(&self) {
        if let Some(cpu) = crate::cpus::current() {
            self.shared.runner_cpu.store(cpu, Ordering::Relaxed);
        }
    }
}

/// How long a worker woken ahead of a launch watches for it.
const PREWAKE_SPIN: std::time::Duration = std::time::Duration::from_millis(3);

/// How long a worker watches for the next launch after one.
const AFTER_SPIN: std::time::Duration = std::time::Duration::from_micros(200);

impl Drop for Pool {
    fn drop(&mut self) {
        {
            let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
            st.shutdown = true;
        }
        self.shared.closing.store(true, Ordering::Relaxed);
        self.shared.wake.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A kept worker: joins each launch that is open when it wakes.
fn worker(shared: &PoolShared) {
    let lock = || shared.state.lock().unwrap_or_else(|e| e.into_inner());
    let mut seen = 0u64;
    let mut prewakes = 0u64;
    // The CPUs the worker may run on, and the one it keeps off now.
    let allowed = crate::cpus::CpuSet::of_this_thread();
    let mut kept_off = usize::MAX;
    // Off the launching thread's CPU, which it shares otherwise until the
    // system balances them (see `crate::cpus`).
    let mut move_off_runner = || {
        let runner = shared.runner_cpu.load(Ordering::Relaxed);
        if runner != kept_off
            && let Some(rest) = allowed.as_ref().and_then(|a| a.without(runner))
        {
            rest.apply_to_this_thread();
            kept_off = runner;
        }
    };
    // Watches for a launch to open, for at most `spin`, without the lock.
    let watch = |seen: u64, spin: std::time::Duration| {
        let until = Instant::now() + spin;
        while shared.opened.load(Ordering::Acquire) == seen
            && !shared.closing.load(Ordering::Relaxed)
            && Instant::now() < until
        {
            std::hint::spin_loop();
        }
    };
    loop {
        let job = {
            let mut st = lock();
            loop {
                if st.shutdown {
                    return;
                }
                if let Some(job) = st.job
                    && st.opened != seen
                {
                    seen = st.opened;
                    st.active += 1;
                    break Some(job);
                }
                if st.prewakes != prewakes {
                    prewakes = st.prewakes;
                    break None;
                }
                st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        move_off_runner();
        let Some(job) = job else {
            watch(seen, PREWAKE_SPIN);
            continue;
        };
        // SAFETY: the launch was open when this worker counted itself
        // active, and `Pool::run` does not return (ending the closure's
        // borrow) while a worker is active.
        let work = unsafe { &*job.0 };
        // A panic in the work must still count this worker out, or the
        // launching thread would wait for it for ever.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        {
            let mut st = lock();
            st.active -= 1;
            if st.active == 0 {
                shared.done.notify_all();
            }
        }
        // Launches often come one after another.
        watch(seen, AFTER_SPIN);
    }
}

/// The signature of a compiled kernel.
type KernelFn = extern "C" fn(*mut u64, i64, *mut u8, *mut u8) -> i32;

extern "C" fn math_f32(code: i32, a: f32, b: f32, c: f32) -> f32 {
    match tessera_runtime::math::ALL_MATH.get(code as usize) {
        Some(f) => tessera_runtime::math::math_f32(*f, a, b, c),
        None => f32::NAN,
    }
}

extern "C" fn math_f64(code: i32, a: f64, b: f64, c: f64) -> f64 {
    match tessera_runtime::math::ALL_MATH.get(code as usize) {
        Some(f) => tessera_runtime::math::math_f64(*f, a, b, c),
        None => f64::NAN,
    }
}

/// Called from loops every few thousand iterations: non-zero stops the kernel.
extern "C" fn poll(env: *const u64) -> i32 {
    // SAFETY: generated code passes the argument words it was called with;
    // word 0 is the address of the launch's `Control`, which outlives every
    // worker (see `run`).
    let control = unsafe { &*(*env as usize as *const Control) };
    i32::from(control.should_stop())
}

impl Control {
    /// True once the deadline passed, the run was interrupted or a worker
    /// failed; sets the stop flag for the others.
    fn should_stop(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        let interrupted = self
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed));
        if interrupted || self.deadline.is_some_and(|d| Instant::now() > d) {
            self.stop.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}

/// The printing state of the run whose argument words are `env`, with
/// what to do with it; `1` (stop the run, which the interpreter then runs
/// again and prints as it goes) when there is none, it is poisoned, or the
/// text grew past its limit.
fn with_printing(env: *const u64, f: impl FnOnce(&mut Printing)) -> i32 {
    // SAFETY: as in `poll`: word 0 of the words generated code passes is
    // the address of the run's `Control`, alive for the whole run.
    let control = unsafe { &*(*env as usize as *const Control) };
    let Some(Ok(mut printing)) = control.printing.as_ref().map(|m| m.lock()) else {
        return 1;
    };
    f(&mut printing);
    i32::from(printing.output.bytes.len() > printing.output.limit)
}

/// `rand()` in compiled host code: the next of the run's copy of the
/// state, or -1 (stop the run) when it has none.
extern "C" fn rand_next(env: *const u64) -> i32 {
    // SAFETY: as in `poll`: word 0 of the words generated code passes is
    // the address of the run's `Control`, alive for the whole run.
    let control = unsafe { &*(*env as usize as *const Control) };
    match control.rand.as_ref().map(|m| m.lock()) {
        Some(Ok(mut rand)) => rand.rand(),
        _ => -1,
    }
}

/// `std::cout << x` of a number in compiled host code: `scalar` numbers
/// its type in [`PRINTED_SCALARS`], `bits` holds its value (an integer
/// sign- or zero-extended as its type is, a float's or double's bits).
/// Non-zero stops the run.
extern "C" fn print_scalar(env: *const u64, scalar: i32, bits: i64) -> i32 {
    let Some(s) = usize::try_from(scalar)
        .ok()
        .and_then(|k| PRINTED_SCALARS.get(k))
    else {
        return 1;
    };
    let v = match s {
        Scalar::Bool => ScalarValue::Bool(bits & 0xff != 0),
        Scalar::Int => ScalarValue::Int(bits as i32),
        Scalar::UInt => ScalarValue::UInt(bits as u32),
        Scalar::Long => ScalarValue::Long(bits),
        Scalar::ULong => ScalarValue::ULong(bits as u64),
        Scalar::Float => ScalarValue::Float(f32::from_bits(bits as u32)),
        _ => ScalarValue::Double(f64::from_bits(bits as u64)),
    };
    let floating = s.is_floating();
    with_printing(env, |p| {
        // A field wider than the interpreter builds without counting it
        // against the memory limit: left to the interpreter.
        if p.output.format.output_bound(floating) > 1 << 16 {
            p.output.limit = 0;
            p.output.bytes.push(0);
            return;
        }
        p.output.format.write_scalar(v, &mut p.output.bytes);
    })
}

/// `std::cout << item` in compiled host code, for item `item` of the
/// statement's [`PrintItem`]s; `arg` is a manipulator's argument. Non-zero
/// stops the run.
extern "C" fn print_item(env: *const u64, item: i32, arg: i32) -> i32 {
    with_printing(env, |p| {
        let Printing { output, items } = p;
        match usize::try_from(item).ok().and_then(|k| items.get(k)) {
            Some(PrintItem::Bytes(b)) => output.format.write_bytes(b, &mut output.bytes),
            // A `printf` goes through `print_printf`, which has its values.
            Some(PrintItem::Printf { .. }) => {
                output.limit = 0;
                output.bytes.push(0);
            }
            Some(PrintItem::Manip(m)) => {
                output.format.apply(*m, arg, &mut output.bytes);
                if matches!(
                    m,
                    tessera_ir::Manipulator::Endl | tessera_ir::Manipulator::Flush
                ) {
                    output.flushed = true;
                }
            }
            None => {
                output.limit = 0;
                output.bytes.push(0);
            }
        }
    })
}

/// `printf(format, values...)` in compiled host code, for item `item` (a
/// [`PrintItem::Printf`]) with its `count` values at `values` (words, as
/// the item says). Returns the bytes written, or -1 to stop the run (a
/// field wider than the interpreter builds without counting it against
/// the memory limit, or too much text kept).
extern "C" fn print_printf(env: *const u64, item: i32, values: *const u64, count: i32) -> i32 {
    let mut written = -1;
    let stop = with_printing(env, |p| {
        let Printing { output, items } = p;
        let Some(PrintItem::Printf { format, doubles }) =
            usize::try_from(item).ok().and_then(|k| items.get(k))
        else {
            output.limit = 0;
            output.bytes.push(0);
            return;
        };
        let count = usize::try_from(count).unwrap_or(0);
        if count != doubles.len() {
            output.limit = 0;
            output.bytes.push(0);
            return;
        }
        // SAFETY: generated code passes the address of `count` words it
        // stored just before the call, alive until it returns.
        let words = unsafe { std::slice::from_raw_parts(values, count) };
        let args: Vec<printf::Arg<'_>> = words
            .iter()
            .zip(doubles)
            .map(|(&w, &double)| {
                if double {
                    printf::Arg::Double(f64::from_bits(w))
                } else {
                    printf::Arg::Int(w as i64)
                }
            })
            .collect();
        if printf::bound(format, &args) > 1 << 16 {
            output.limit = 0;
            output.bytes.push(0);
            return;
        }
        let n = printf::format(format, &args, &mut output.bytes);
        written = i32::try_from(n).unwrap_or(i32::MAX);
    });
    if stop != 0 { -1 } else { written }
}

/// `v.push_back(x)` in compiled host code, when the vector that is
/// argument `arg` has no room for it: counts the `len` elements the code
/// has (those past the buffer's length written in place), makes room for
/// more, appends the element at `value`, and writes the vector's new
/// address and length to its view's words. Returns how many elements the
/// vector has room for now (the code writes in place up to there), or -1
/// (stop the run, which the interpreter runs again) when the memory limit
/// would be passed or the vector is not one the run may grow.
extern "C" fn push_element(env: *mut u64, arg: i32, value: *const u8, len: i64) -> i64 {
    // SAFETY: as in `poll`: word 0 of the words generated code passes is
    // the address of the run's `Control`, alive for the whole run.
    let control = unsafe { &*(*env as usize as *const Control) };
    let Some(Ok(mut growth)) = control.growth.as_ref().map(|m| m.lock()) else {
        return -1;
    };
    let growth = &mut *growth;
    let target = usize::try_from(arg)
        .ok()
        .and_then(|a| growth.targets.get(a).copied().flatten());
    let (Some(t), Ok(len)) = (target, usize::try_from(len)) else {
        return -1;
    };
    // The memory limit counts every element appended in this run.
    let appended = len.checked_sub(t.len).map(|n| n as u64);
    let Some(left) = appended
        .and_then(|n| n.checked_mul(t.charge))
        .and_then(|used| growth.memory_left.checked_sub(used))
        .and_then(|left| left.checked_sub(t.charge))
    else {
        return -1;
    };
    let Some(b) = growth.buffers.get_mut(t.buffer) else {
        return -1;
    };
    // Room for about as many again, within the memory limit.
    let within = left
        .checked_div(t.charge)
        .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let more = len.max(15).min(within);
    let Some(room) = len.checked_add(1).and_then(|n| n.checked_add(more)) else {
        return -1;
    };
    let size = b.elem_size as usize;
    if !b.set_len(len) || !b.reserve_elements(room) || !b.set_len(len + 1) {
        return -1;
    }
    // SAFETY: the generated code passes the address of a stack slot
    // holding one element of the vector's type (`Emitter::push_element`),
    // `elem_size` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(value, size) };
    b.write_bytes(len * size, bytes);
    let base = b.as_mut_ptr() as usize as u64;
    // SAFETY: the words are the run's argument words (a `Vec<u64>` that
    // `run_host` keeps alive and passes mutably); the vector's view has
    // its address at `word` and its extent at `word + 2` (`fill_args`),
    // both inside them.
    unsafe {
        *env.add(t.word as usize) = base;
        *env.add(t.word as usize + 2) = (len + 1) as u64;
    }
    i64::try_from(room).unwrap_or(-1)
}

/// A `<random>` engine's state in the memory of its struct: its words,
/// then its position (see `Emitter::engine_struct`).
struct EngineMemory {
    at: *mut u64,
    words: usize,
}

impl EngineMemory {
    fn slot(&self, i: usize) -> *mut u64 {
        // SAFETY (of the callers' accesses): `Emitter::random` passes the
        // address of a struct of `words` `unsigned long`s and a `long`,
        // checked to be the engine's, in memory the run owns; `i` is at
        // most `words`.
        self.at.wrapping_add(i)
    }
}

impl tessera_runtime::random::EngineState for EngineMemory {
    fn word(&self, i: usize) -> u64 {
        if i >= self.words {
            return 0;
        }
        // SAFETY: see `slot`.
        unsafe { self.slot(i).read_unaligned() }
    }

    fn set_word(&mut self, i: usize, v: u64) {
        if i < self.words {
            // SAFETY: see `slot`.
            unsafe { self.slot(i).write_unaligned(v) }
        }
    }

    fn pos(&self) -> usize {
        // SAFETY: see `slot`.
        let p = unsafe { self.slot(self.words).read_unaligned() } as i64;
        usize::try_from(p).unwrap_or(0)
    }

    fn set_pos(&mut self, p: usize) {
        // SAFETY: see `slot`.
        unsafe { self.slot(self.words).write_unaligned(p as u64) }
    }
}

/// `engine()` or `dist(engine)` in compiled host code, as
/// `emit::random::random_code` numbers them: `state` is the engine's
/// struct, `params` the distribution's (its parameters in order, each of
/// the distribution's type, then a normal distribution's kept number and
/// flag, which it updates). The number's bits: an integer's as `unsigned
/// long`, a `float`'s in the low 32 bits, a `double`'s, a `bool` as 0 or 1.
extern "C" fn random_number(_env: *const u64, code: i32, state: *mut u64, params: *mut u8) -> i64 {
    use tessera_ir::{Distribution, RandomEngine};
    use tessera_runtime::random;
    let engine = match code & 3 {
        0 => RandomEngine::Mt19937,
        1 => RandomEngine::Mt19937_64,
        2 => RandomEngine::MinstdRand0,
        _ => RandomEngine::MinstdRand,
    };
    let Some(&s) = crate::emit::random::RANDOM_SCALARS.get(((code >> 8) & 15) as usize) else {
        return 0;
    };
    let st = &mut EngineMemory {
        at: state,
        words: engine.state_words() as usize,
    };
    let size = s.size() as usize;
    // SAFETY (of the reads and writes below): `params` is the address of
    // the distribution's struct, checked by `Emitter::dist_struct` to hold
    // its fields in this order, each of size `size` (the flag after them),
    // in memory the run owns.
    let read = |k: usize| -> u64 {
        let at = params.wrapping_add(k * size);
        unsafe {
            match s {
                Scalar::Int => i64::from(at.cast::<i32>().read_unaligned()) as u64,
                Scalar::UInt => u64::from(at.cast::<u32>().read_unaligned()),
                Scalar::Float => u64::from(at.cast::<u32>().read_unaligned()),
                _ => at.cast::<u64>().read_unaligned(),
            }
        }
    };
    let dist = match (code >> 2) & 7 {
        0 => return random::next(engine, st) as i64,
        1 => Distribution::UniformInt(s),
        2 => Distribution::UniformReal(s),
        3 => Distribution::Normal(s),
        _ => Distribution::Bernoulli,
    };
    match dist {
        Distribution::UniformInt(_) => random::uniform_int(engine, st, read(0), read(1)) as i64,
        Distribution::UniformReal(Scalar::Float) => {
            let (a, b) = (
                f32::from_bits(read(0) as u32),
                f32::from_bits(read(1) as u32),
            );
            i64::from(random::uniform_real_f32(engine, st, a, b).to_bits())
        }
        Distribution::UniformReal(_) => {
            let (a, b) = (f64::from_bits(read(0)), f64::from_bits(read(1)));
            random::uniform_real_f64(engine, st, a, b).to_bits() as i64
        }
        Distribution::Normal(Scalar::Float) => {
            let flag = params.wrapping_add(3 * size);
            let mut saved = random::NormalSaved {
                value: f32::from_bits(read(2) as u32),
                available: unsafe { flag.read() } != 0,
            };
            let (mean, sd) = (
                f32::from_bits(read(0) as u32),
                f32::from_bits(read(1) as u32),
            );
            let v = random::normal_f32(engine, st, &mut saved, mean, sd);
            unsafe {
                params
                    .wrapping_add(2 * size)
                    .cast::<u32>()
                    .write_unaligned(saved.value.to_bits());
                flag.write(u8::from(saved.available));
            }
            i64::from(v.to_bits())
        }
        Distribution::Normal(_) => {
            let flag = params.wrapping_add(3 * size);
            let mut saved = random::NormalSaved {
                value: f64::from_bits(read(2)),
                available: unsafe { flag.read() } != 0,
            };
            let (mean, sd) = (f64::from_bits(read(0)), f64::from_bits(read(1)));
            let v = random::normal_f64(engine, st, &mut saved, mean, sd);
            unsafe {
                params
                    .wrapping_add(2 * size)
                    .cast::<u64>()
                    .write_unaligned(saved.value.to_bits());
                flag.write(u8::from(saved.available));
            }
            v.to_bits() as i64
        }
        Distribution::Bernoulli => {
            i64::from(random::bernoulli(engine, st, f64::from_bits(read(0))))
        }
    }
}

/// The helpers by the names the generated code imports.
pub(crate) fn helper_symbols() -> [(&'static str, *const u8); 9] {
    [
        ("tessera_random", random_number as *const u8),
        ("tessera_push", push_element as *const u8),
        ("tessera_rand", rand_next as *const u8),
        ("tessera_math_f32", math_f32 as *const u8),
        ("tessera_math_f64", math_f64 as *const u8),
        ("tessera_poll", poll as *const u8),
        ("tessera_print_scalar", print_scalar as *const u8),
        ("tessera_print_item", print_item as *const u8),
        ("tessera_printf", print_printf as *const u8),
    ]
}

/// Releases a module's code and data.
pub(crate) fn free(module: cranelift_jit::JITModule) {
    // SAFETY: called when the engine that owns the module is dropped; the
    // module's code runs only inside `run` and `run_host`, which borrow the
    // engine, so none of it is running or can run again.
    unsafe { module.free_memory() }
}

fn bits_word(b: &Bits) -> u64 {
    match b {
        Bits::Bool(v) => u64::from(*v),
        Bits::Int(n) => *n as u64,
        Bits::Float(f) => u64::from(f.to_bits()),
        Bits::Double(d) => d.to_bits(),
    }
}

impl Control {
    fn new(launch: &Launch) -> Control {
        Control {
            deadline: launch.deadline,
            interrupt: launch.interrupt.clone(),
            stop: AtomicBool::new(false),
            printing: None,
            rand: None,
            growth: None,
        }
    }
}

/// For each argument of a host statement, the vector it may append to:
/// its buffer, its view's first word, the bytes counted per element and
/// its length now; `None` when one is not a whole vector's view (offset
/// 0, stride 1) or another argument shares its buffer, whose address would
/// then go stale at an append.
fn growth_targets(
    growth: &tessera_runtime::launch::HostGrowth,
    layout: &HostLayout,
    launch: &Launch,
) -> Option<Vec<Option<Target>>> {
    fn buffers_of(a: &Arg, out: &mut Vec<usize>) {
        match a {
            Arg::Object { buffer } | Arg::View { buffer, .. } | Arg::PunView { buffer, .. } => {
                out.push(*buffer)
            }
            Arg::Fields(fields) => fields.iter().for_each(|f| buffers_of(f, out)),
            _ => {}
        }
    }
    let mut targets = vec![None; launch.args.len()];
    for &(arg, charge) in &growth.vectors {
        let (
            Some(Arg::View {
                buffer,
                offset: 0,
                strides,
                ..
            }),
            Some(CaptureLayout::View(_, _, 1, word)),
        ) = (launch.args.get(arg), layout.captures.get(arg))
        else {
            return None;
        };
        if strides.as_slice() != [1] {
            return None;
        }
        let mut others = Vec::new();
        for (k, a) in launch.args.iter().enumerate() {
            if k != arg {
                buffers_of(a, &mut others);
            }
        }
        if others.contains(buffer) {
            return None;
        }
        let len = launch.buffers.get(*buffer)?.len;
        *targets.get_mut(arg)? = Some(Target {
            buffer: *buffer,
            word: *word,
            charge,
            len,
        });
    }
    Some(targets)
}

/// The argument words of a run: word 0 the control block's address, then
/// the captured values; `None` when they do not fit the layout.
fn argument_words(
    control: &Control,
    count: u32,
    captures: &[CaptureLayout],
    launch: &mut Launch,
) -> Option<Vec<u64>> {
    let mut words = vec![0u64; count as usize];
    words[0] = control as *const Control as usize as u64;
    fill_words(captures, launch, &mut words).then_some(words)
}

/// Writes the captured values (and the buffers' addresses) into the
/// argument words; false when they do not match the layout or a view does
/// not lie inside its buffer.
fn fill_words(captures: &[CaptureLayout], launch: &mut Launch, words: &mut [u64]) -> bool {
    let bases: Vec<u64> = launch
        .buffers
        .iter_mut()
        .map(|b| b.as_mut_ptr() as usize as u64)
        .collect();
    fill_args(&launch.args, captures, &launch.buffers, &bases, words)
}

/// [`fill_words`] for `args` against `captures` (the captures of a launch,
/// or the fields of a captured struct holding views).
fn fill_args(
    args: &[Arg],
    captures: &[CaptureLayout],
    buffers: &[Buffer],
    bases: &[u64],
    words: &mut [u64],
) -> bool {
    if args.len() != captures.len() {
        return false;
    }
    for (arg, cl) in args.iter().zip(captures) {
        match (arg, cl) {
            (Arg::Fields(args), CaptureLayout::Fields(fields)) => {
                if !fill_args(args, fields, buffers, bases, words) {
                    return false;
                }
            }
            (Arg::Scalar(bits), CaptureLayout::Scalar(_, w)) => {
                words[*w as usize] = bits_word(bits);
            }
            (Arg::Shape(v), CaptureLayout::Shape(r, w)) if v.len() == *r as usize => {
                for (d, x) in v.iter().enumerate() {
                    words[*w as usize + d] = *x as u64;
                }
            }
            (
                Arg::View {
                    buffer,
                    offset,
                    extent,
                    strides,
                },
                CaptureLayout::View(elem, elem_size, r, w),
            ) => {
                let Some(buf) = buffers.get(*buffer) else {
                    return false;
                };
                if buf.elem != *elem
                    || buf.elem_size != *elem_size
                    || extent.len() != *r as usize
                    || strides.len() != *r as usize
                {
                    return false;
                }
                // Every element the view can name must lie in the buffer:
                // the generated code checks indices against the extent only.
                let mut last = *offset as u128;
                for (e, s) in extent.iter().zip(strides) {
                    if *e <= 0 {
                        continue;
                    }
                    last += (*e as u128 - 1) * (*s as u128);
                }
                let empty = extent.iter().any(|e| *e <= 0);
                if !empty && last >= buf.len as u128 {
                    return false;
                }
                let w = *w as usize;
                words[w] = bases[*buffer];
                words[w + 1] = *offset as u64;
                for d in 0..*r as usize {
                    words[w + 2 + d] = extent[d] as u64;
                    words[w + 2 + *r as usize + d] = strides[d] as u64;
                }
            }
            (
                Arg::PunView {
                    buffer,
                    elem: pun_elem,
                    elem_size: pun_size,
                    offset,
                    extent,
                    strides,
                    skew,
                },
                CaptureLayout::View(elem, elem_size, r, w),
            ) => {
                let Some(buf) = buffers.get(*buffer) else {
                    return false;
                };
                if pun_elem != elem
                    || pun_size != elem_size
                    || *elem_size == 0
                    || extent.len() != *r as usize
                    || strides.len() != *r as usize
                {
                    return false;
                }
                // The bytes of every element the view can name must lie in
                // the buffer, counted in the view's own elements.
                let mut last = *offset as u128;
                for (e, s) in extent.iter().zip(strides) {
                    if *e <= 0 {
                        continue;
                    }
                    last += (*e as u128 - 1) * (*s as u128);
                }
                let empty = extent.iter().any(|e| *e <= 0);
                let bytes = buf.len as u128 * u128::from(buf.elem_size);
                if !empty && *skew as u128 + (last + 1) * u128::from(*elem_size) > bytes {
                    return false;
                }
                let w = *w as usize;
                words[w] = bases[*buffer] + *skew as u64;
                words[w + 1] = *offset as u64;
                for d in 0..*r as usize {
                    words[w + 2 + d] = extent[d] as u64;
                    words[w + 2 + *r as usize + d] = strides[d] as u64;
                }
            }
            (Arg::Object { buffer }, CaptureLayout::Object(ty, w)) => {
                let Some(buf) = buffers.get(*buffer) else {
                    return false;
                };
                if buf.elem != *ty || buf.len != 1 {
                    return false;
                }
                words[*w as usize] = bases[*buffer];
            }
            _ => return false,
        }
    }
    true
}

/// Runs a compiled host statement once, on this thread, and reads the
/// scalars it wrote back into `launch.args`.
pub(crate) fn run_host(entry: usize, layout: &HostLayout, launch: &mut Launch) -> LaunchOutcome {
    let mut control = Control::new(launch);
    // The run's text goes back to the launch only if it ends well.
    if let Some(output) = launch.output.take() {
        control.printing = Some(std::sync::Mutex::new(Printing {
            output,
            items: layout.print_items.clone(),
        }));
    }
    control.rand = launch.rand.take().map(std::sync::Mutex::new);
    let Some(mut words) = argument_words(&control, layout.words, &layout.captures, launch) else {
        return LaunchOutcome::Declined;
    };
    if let Some(growth) = launch.growth.take() {
        let Some(targets) = growth_targets(&growth, layout, launch) else {
            return LaunchOutcome::Declined;
        };
        // The buffers stay where `fill_args` found them: only the list
        // moves to the control block, for the helper to grow them.
        control.growth = Some(std::sync::Mutex::new(Growth {
            buffers: std::mem::take(&mut launch.buffers),
            targets,
            memory_left: growth.memory_left,
        }));
    }
    let mut scratch = [0u64; 1];
    let mut frames = [0u64; 1];
    // SAFETY: as in `run`: `entry` was compiled with the `KernelFn`
    // signature by a module that outlives the call; the words (with the
    // control block word 0 points to) live until it returns.
    let f: KernelFn = unsafe { std::mem::transmute::<usize, KernelFn>(entry) };
    let status = f(
        words.as_mut_ptr(),
        0,
        scratch.as_mut_ptr().cast(),
        frames.as_mut_ptr().cast(),
    );
    // The buffers go back to the launch whatever the outcome (the
    // interpreter puts them back where they came from), each vector with
    // the length its code wrote back to its extent word; a failed run's
    // appends are undone, so a vector handed over as its own zeros gets
    // its zeros back at its old length.
    if let Some(growth) = control.growth.take() {
        let mut growth = growth.into_inner().unwrap_or_else(|e| e.into_inner());
        let ok = i64::from(status) == STATUS_OK;
        for t in growth.targets.iter().flatten() {
            if let Some(b) = growth.buffers.get_mut(t.buffer) {
                let counted = words
                    .get(t.word as usize + 2)
                    .and_then(|&n| usize::try_from(n).ok())
                    .is_some_and(|n| n >= t.len && b.set_len(n));
                if !ok || !counted {
                    b.truncate(t.len);
                }
                b.fit();
            }
        }
        // A length that could not be counted: the run's other results
        // assume its appends, so the interpreter runs it again.
        let uncounted = growth.targets.iter().flatten().any(|t| {
            growth
                .buffers
                .get(t.buffer)
                .is_none_or(|b| words.get(t.word as usize + 2) != Some(&(b.len as u64)))
        });
        launch.buffers = growth.buffers;
        if ok && uncounted {
            return LaunchOutcome::Failed;
        }
    }
    if i64::from(status) != STATUS_OK {
        return LaunchOutcome::Failed;
    }
    launch.output = control
        .printing
        .take()
        .and_then(|m| m.into_inner().ok())
        .map(|p| p.output);
    launch.rand = control.rand.take().and_then(|m| m.into_inner().ok());
    for (arg, c) in launch.args.iter_mut().zip(&layout.captures) {
        match (c, arg) {
            (CaptureLayout::Scalar(s, w), arg) => {
                let raw = words[*w as usize];
                *arg = Arg::Scalar(match s {
                    Scalar::Bool => Bits::Bool(raw & 0xff != 0),
                    Scalar::Float => Bits::Float(f32::from_bits(raw as u32)),
                    Scalar::Double => Bits::Double(f64::from_bits(raw)),
                    _ => Bits::Int(raw as i64),
                });
            }
            // A one-dimensional view's offset: a pointer's, which the
            // statement may have moved (a view's own stays as it was).
            (CaptureLayout::View(_, _, 1, w), Arg::View { offset, .. }) => {
                if let Ok(moved) = usize::try_from(words[*w as usize + 1]) {
                    *offset = moved;
                }
            }
            _ => {}
        }
    }
    LaunchOutcome::Done
}

/// Runs the kernel at `entry` over the launch on up to `threads` workers:
/// this thread and, when there is more than one group of work-items, the
/// pool's.
pub(crate) fn run(
    entry: usize,
    joined: Option<usize>,
    layout: &KernelLayout,
    launch: &mut Launch,
    threads: usize,
    pool: Option<&Pool>,
) -> LaunchOutcome {
    let control = Control::new(launch);
    let Some(mut words) = argument_words(&control, layout.words, &layout.captures, launch) else {
        return LaunchOutcome::Declined;
    };
    let rank = layout.rank as usize;
    // The code's value ranges assume the extent it was compiled for.
    if !layout.covers(launch) {
        return LaunchOutcome::Declined;
    }
    // The generated code holds coordinates as `i32` and relies on every
    // extent component fitting one (see `Facts::range_of`).
    if launch.extent.len() != rank
        || launch
            .extent
            .iter()
            .any(|e| *e <= 0 || *e > i64::from(i32::MAX))
    {
        return LaunchOutcome::Declined;
    }
    let ew = layout.extent_word as usize;
    let mut groups: u64 = 1;
    for (d, e) in launch.extent.iter().enumerate() {
        words[ew + d] = *e as u64;
    }
    let total = launch
        .extent
        .iter()
        .fold(1u64, |acc, e| acc.saturating_mul(*e as u64));
    let per_tile = match layout.tile {
        Some(shape) => {
            for (d, t) in shape.dims().iter().enumerate() {
                let per = launch.extent[d] as u64 / u64::from(*t);
                words[ew + rank + d] = per;
                groups = groups.saturating_mul(per);
            }
            shape.threads()
        }
        None => {
            groups = total.div_ceil(CHUNK as u64);
            1
        }
    };
    words[ew + 2 * rank] = total;
    // What each worker takes: a tile's frames and `tile_static` memory,
    // and a stack of its own when the kernel's private arrays need more
    // than the pool's workers have. The workers stay within the memory
    // the limit leaves (the interpreter ran the launch itself if one
    // tile's frames could pass it).
    let frame_bytes = (layout.frame_bytes as u64).saturating_mul(per_tile);
    let tile_bytes = frame_bytes.saturating_add(u64::from(layout.scratch_bytes));
    let own_stack = (layout.stack_bytes > crate::emit::STACK_BUDGET)
        .then(|| u64::from(layout.stack_bytes).saturating_add(OWN_STACK_ROOM));
    let per_worker = tile_bytes.saturating_add(own_stack.unwrap_or(0));
    if per_worker > launch.memory_left || groups == 0 {
        return LaunchOutcome::Declined;
    }
    let fit = (launch.memory_left / per_worker.max(1)).max(1);
    let workers = (threads as u64).min(groups).min(fit).max(1) as usize;
    let order = if layout.strips && layout.tile.is_some() {
        TileOrder::for_tiles(&words[ew + rank..ew + 2 * rank])
    } else {
        None
    };
    let group_of = |n: u64| order.map_or(n, |o| o.group(n));
    let next = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let words_addr = words.as_ptr() as usize;
    let scratch_lines = (layout.scratch_bytes as usize).div_ceil(64).max(1);
    let frame_lines = (frame_bytes as usize).div_ceil(64).max(1);
    // Workers take groups a batch at a time: an atomic read-modify-write
    // per group costs more than a small tile's work and, as it waits for
    // the worker's earlier stores, keeps one group's work from overlapping
    // the next's. Batches stay small against the groups per worker, so the
    // last ones still spread over the workers.
    // A joined function runs `JOINED_TILES` tiles per call, so batches
    // hold whole groups of them.
    let joined = joined.filter(|_| {
        layout.tile.is_some()
            && tile_bytes
                .saturating_mul(crate::emit::JOINED_TILES as u64)
                .saturating_mul(workers as u64)
                <= launch.memory_left
    });
    let per_call = crate::emit::JOINED_TILES as u64;
    let batch = (groups / (workers as u64 * 16)).clamp(1, 32);
    let batch = if joined.is_some() {
        batch.next_multiple_of(per_call)
    } else {
        batch
    };
    let work = || {
        // Each tile of a call: its `tile_static` memory and its frames.
        let tiles = if joined.is_some() {
            crate::emit::JOINED_TILES
        } else {
            1
        };
        let mut scratch: Vec<Vec<Line>> = vec![vec![Line::default(); scratch_lines]; tiles];
        let mut frames: Vec<Vec<Line>> = vec![vec![Line::default(); frame_lines]; tiles];
        let mut memory: Vec<*mut u8> = scratch.iter_mut().map(|s| s.as_mut_ptr().cast()).collect();
        let mut frame_blocks: Vec<*mut u8> =
            frames.iter_mut().map(|f| f.as_mut_ptr().cast()).collect();
        // SAFETY: `entry` (and `joined`) are the finalized code of
        // functions compiled with the `KernelFn` signature (see
        // `emit::kernel_signature`); the JIT module that owns them outlives
        // every launch.
        let f: KernelFn = unsafe { std::mem::transmute::<usize, KernelFn>(entry) };
        let f_joined: Option<KernelFn> =
            joined.map(|p| unsafe { std::mem::transmute::<usize, KernelFn>(p) });
        loop {
            let first = next.fetch_add(batch, Ordering::Relaxed);
            if first >= groups {
                return;
            }
            let end = first.saturating_add(batch).min(groups);
            let mut g = first;
            while g < end {
                if control.stop.load(Ordering::Relaxed) {
                    return;
                }
                // Kernels without loops never poll: look between groups.
                if g.is_multiple_of(64) && control.should_stop() {
                    return;
                }
                let (status, ran) = match f_joined {
                    // Several tiles: the joined function reads each one's
                    // memory and frames from these arrays of addresses.
                    Some(fp) if g + per_call <= end => {
                        for s in &mut scratch {
                            s.fill(Line::default());
                        }
                        let status = fp(
                            words_addr as *mut u64,
                            group_of(g) as i64,
                            memory.as_mut_ptr().cast(),
                            frame_blocks.as_mut_ptr().cast(),
                        );
                        (status, per_call)
                    }
                    _ => {
                        if layout.tile.is_some() {
                            // A tile's `tile_static` memory starts out zero,
                            // as the interpreter reads never-written memory.
                            scratch[0].fill(Line::default());
                        }
                        let status = f(
                            words_addr as *mut u64,
                            group_of(g) as i64,
                            memory[0].cast(),
                            frame_blocks[0].cast(),
                        );
                        (status, 1)
                    }
                };
                g += ran;
                if i64::from(status) != STATUS_OK {
                    failed.store(true, Ordering::Relaxed);
                    control.stop.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
    };
    match (own_stack, pool) {
        (Some(stack), _) => {
            if !run_on_own_threads(&work, workers, stack) {
                return LaunchOutcome::Declined;
            }
        }
        (None, Some(pool)) if workers > 1 => pool.run(&work),
        (None, _) => work(),
    }
    // The words (and the control block they point to) lived until here.
    drop(words);
    if failed.load(Ordering::Relaxed) || control.stop.load(Ordering::Relaxed) {
        LaunchOutcome::Failed
    } else {
        LaunchOutcome::Done
    }
}

/// Room on a thread made for a kernel's launch beyond its stack slots:
/// Cranelift's spills, the helpers it calls, the thread's own start.
const OWN_STACK_ROOM: u64 = 1 << 20;

/// Runs `work` on `workers` threads made with `stack` bytes of stack each,
/// for a kernel whose private arrays need more than the pool's workers
/// have; false when not one thread could be made (nothing ran). The
/// threads take the launch's groups as the pool's do, so fewer of them
/// than asked for still run it all.
fn run_on_own_threads(work: &(dyn Fn() + Sync), workers: usize, stack: u64) -> bool {
    let Ok(stack) = usize::try_from(stack) else {
        return false;
    };
    std::thread::scope(|scope| {
        let mut made = 0;
        for _ in 0..workers {
            let spawned = std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(scope, work);
            if spawned.is_ok() {
                made += 1;
            }
        }
        made > 0
    })
}

#[cfg(test)]
mod tests {
    use super::TileOrder;

    #[test]
    fn narrow_and_one_dimensional_launches_keep_the_row_order() {
        assert_eq!(TileOrder::for_tiles(&[4096]), None);
        assert_eq!(TileOrder::for_tiles(&[64, 16]), None);
        assert_eq!(TileOrder::for_tiles(&[64, 24]), None);
        assert_eq!(TileOrder::for_tiles(&[64, 40]), None);
        assert_eq!(TileOrder::for_tiles(&[]), None);
        assert_eq!(TileOrder::for_tiles(&[1 << 40, 1 << 30, 32]), None);
        assert!(TileOrder::for_tiles(&[2, 32]).is_some());
        assert!(TileOrder::for_tiles(&[2, 3, 64]).is_some());
    }

    #[test]
    fn the_strip_order_takes_every_tile_once_and_keeps_joined_calls_together() {
        for tiles in [
            &[1u64, 32][..],
            &[5, 48],
            &[64, 64],
            &[3, 7, 32],
            &[2, 1, 2, 64],
        ] {
            let order = TileOrder::for_tiles(tiles).expect("wide enough");
            let groups: u64 = tiles.iter().product();
            let mut seen = vec![false; groups as usize];
            for n in 0..groups {
                let g = order.group(n);
                assert!(g < groups, "{tiles:?}: tile {n} maps to {g}");
                assert!(!seen[g as usize], "{tiles:?}: tile {g} taken twice");
                seen[g as usize] = true;
                // Four tiles from a multiple of four: neighbours in a row.
                let first = n - n % 4;
                assert_eq!(g, order.group(first) + n % 4, "{tiles:?}: tile {n}");
            }
            // A strip's tiles first: the second tile taken is the first
            // row's second column, the 17th the second row's first.
            let columns = tiles[tiles.len() - 1];
            assert_eq!(order.group(1), 1);
            if groups > columns {
                assert_eq!(order.group(TileOrder::STRIP), columns);
            }
        }
    }
}
