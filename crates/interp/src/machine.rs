//! The interpreter's state, places, statements and calls.

use crate::arith::{self, ArithError};
use crate::check::Checker;
use crate::value::{
    Alias, ElemLayout, Meter, Misread, Place, Root, ScalarArray, Storage, StorageKind, UnionShape,
    UnionVal, Value, read_path, write_path,
};
use crate::{Options, Outcome};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::Instant;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{
    Block, Expr, FuncId, Function, Init, LocalId, Program, Scalar, Stmt, StmtKind, TileShape, Type,
};
use tessera_runtime::format::StreamFormat;
use tessera_runtime::{RunError, Thread};

/// Why evaluation stopped early: a run-time error.
pub(crate) type Stop = Box<RunError>;
/// The result of running part of a program.
pub(crate) type Res<T> = Result<T, Stop>;

/// How a statement finished.
#[derive(Clone, Debug)]
pub(crate) enum Flow {
    /// Fell through to the next statement.
    Normal,
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return`, with the value (or `Ref` for a function returning a reference).
    Return(Value),
    /// `goto`, to the label of this number in this block or one around it.
    Goto(u32),
}

/// One function activation.
#[derive(Debug)]
pub(crate) struct Frame {
    /// The function (none while globals are initialised).
    pub(crate) func: Option<FuncId>,
    /// Locals, by `LocalId`.
    pub(crate) locals: Vec<Value>,
    /// Which activation this is: unique for the run, so that a pointer
    /// to a local of a returned call does not see a later call's locals.
    pub(crate) generation: u64,
}

/// A flow of control: the host, or one work-item of a kernel.
#[derive(Debug)]
pub(crate) struct Strand {
    /// The call stack.
    pub(crate) stack: Vec<Frame>,
    /// How its last statement finished (work-items in lock-step).
    pub(crate) flow: Flow,
    /// Who it is, for messages.
    pub(crate) thread: Thread,
    /// Its position in the launch (row-major over tiles, then within its tile).
    pub(crate) linear: u32,
}

impl Strand {
    pub(crate) fn new(thread: Thread, linear: u32) -> Strand {
        Strand {
            stack: Vec::new(),
            flow: Flow::Normal,
            thread,
            linear,
        }
    }
}

/// What a REPL session keeps between inputs: the globals, `main`'s frame,
/// the memory in use, the streams' format flags and `std::cin` (whose
/// input is at its end: a session has none).
#[derive(Debug)]
pub(crate) struct Saved {
    globals: Vec<Value>,
    host: Strand,
    meter: Rc<Meter>,
    stream: StreamFormat,
    wide_stream: StreamFormat,
    cin: Option<Rc<RefCell<crate::sstream::StringStream>>>,
    rand: tessera_runtime::rand::Rand,
}

impl Saved {
    /// Drops the globals of an input that failed (the session forgets it).
    pub(crate) fn forget_globals_from(&mut self, first: usize) {
        self.globals.truncate(first);
    }
}

/// The launch being executed.
#[derive(Debug, Default)]
pub(crate) struct LaunchState {
    /// The kernel's captured values, by slot.
    pub(crate) captures: Vec<Value>,
    /// The running tile's `tile_static` variables, by slot.
    pub(crate) tile_static: Vec<Value>,
    /// The tile shape of a tiled launch.
    pub(crate) shape: Option<TileShape>,
    /// The running tile, row-major.
    pub(crate) tile_linear: u32,
    /// The launch expression.
    pub(crate) span: Span,
}

/// The interpreter.
pub(crate) struct Machine<'p> {
    pub(crate) prog: &'p Program,
    pub(crate) opts: Options,
    pub(crate) globals: Vec<Value>,
    pub(crate) host: Strand,
    pub(crate) items: Vec<Strand>,
    pub(crate) cur: usize,
    pub(crate) in_kernel: bool,
    pub(crate) launch: LaunchState,
    /// `tile_static` slot of each (function, local), and its type.
    pub(crate) ts_slot: Vec<Vec<Option<u32>>>,
    pub(crate) ts_types: Vec<(FuncId, LocalId)>,
    /// Functions that wait at a barrier, directly or through calls.
    pub(crate) barriers: tessera_ir::facts::Barriers,
    pub(crate) meter: Rc<Meter>,
    pub(crate) stream: StreamFormat,
    /// `std::wcout`'s format, apart from `std::cout`'s as in C++.
    pub(crate) wide_stream: StreamFormat,
    pub(crate) out: Vec<u8>,
    sink: &'p mut dyn Write,
    sink_broken: bool,
    /// The program's standard input (none: at its end from the start).
    pub(crate) input: Option<&'p mut dyn std::io::BufRead>,
    /// The input reached its end (or failed): nothing more is read.
    pub(crate) input_done: bool,
    /// `std::cin`, made when the program first names it.
    pub(crate) cin: Option<Rc<RefCell<crate::sstream::StringStream>>>,
    start: Instant,
    ticks: u64,
    pub(crate) depth: u32,
    pub(crate) checker: Checker,
    /// Bytes of each function's locals, taken from the memory budget while
    /// a call of it is active (large local arrays, deep recursion).
    pub(crate) frame_bytes: Vec<u64>,
    /// The native stack's depth when the machine was made (see `enter`).
    stack_base: usize,
    /// Set from outside (Ctrl-C in the REPL) to stop the run.
    pub(crate) interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// What the last compiled runs of each host loop cost in hand-over,
    /// by function and statement id (see [`crate::offload::HostCost`]).
    pub(crate) host_costs:
        std::collections::HashMap<(FuncId, tessera_ir::StmtId), crate::offload::HostCost>,
    /// By function, then by statement id: whether the statement reaches a
    /// barrier, filled in for a function when first asked (see
    /// `Machine::has_barrier`).
    pub(crate) barrier_stmts: Vec<Option<Vec<bool>>>,
    /// By kernel: whether each capture's data may be written by a run of
    /// it ([`tessera_ir::facts::captures_written`]), filled in at the
    /// kernel's first launch offered to the engine.
    pub(crate) captures_written: Vec<Option<std::rc::Rc<[bool]>>>,
    /// By kernel: the most frame bytes one of its work-items can hold at
    /// once here (its own frame and those of every function it reaches),
    /// filled in at the kernel's first launch offered to the engine.
    pub(crate) work_item_frames: Vec<Option<u64>>,
    /// The engine offered each kernel launch first (the JIT), if any.
    pub(crate) engine: Option<&'p mut dyn tessera_runtime::launch::KernelEngine>,
    /// The C library's state: `rand`, what the program wrote to `stderr`,
    /// and the status `exit` asked for.
    pub(crate) clib: crate::clib::CState,
    /// The exception being thrown and those being handled.
    pub(crate) exceptions: crate::exceptions::Exceptions,
    /// Frames made so far (each frame's `generation`).
    pub(crate) generations: u64,
    /// The device's default CPU `access_type` as the program set it
    /// (`None`: `access_type_auto`), and whether the runtime's own default
    /// was already used for an array, after which it can no longer be set
    /// (C++ AMP's rule for `set_default_cpu_access_type`).
    pub(crate) cpu_default: (Option<i64>, bool),
    /// The identity the next `create_view()` gives its view (0 and 1 are
    /// the default views').
    pub(crate) next_view: u32,
    /// The default accelerator (`accelerator()`), which
    /// `accelerator::set_default` may change until something used it.
    pub(crate) default_accel: crate::value::Accel,
    /// The default accelerator can no longer change: an operation used it
    /// (an array or a launch without a view).
    pub(crate) default_fixed: bool,
    /// The accelerator of the view a `parallel_for_each` was given, between
    /// its check (`Intrinsic::DeviceLaunchOn`) and the launch.
    pub(crate) launch_on: Option<crate::value::Accel>,
    /// By struct id: the shape of each union type.
    pub(crate) unions: Vec<Option<Rc<UnionShape>>>,
    /// By struct id, once asked: whether the struct holds a vector or an
    /// array, which a copy must duplicate (asked at every struct copy).
    storage_structs: std::cell::RefCell<Vec<Option<bool>>>,
    /// Each loop statement run so far, by function and statement id, turned
    /// into closures (`None`: left to the tree walker); see `crate::fast`.
    pub(crate) fast_loops: crate::fast::FastStmts<'p>,
    /// Each statement a tile's work-items ran in turn so far (see
    /// `Machine::lock_stmts`), turned into closures like `fast_loops`.
    pub(crate) fast_stmts: crate::fast::FastStmts<'p>,
    /// By function: its statements by id (see `crate::fast`).
    pub(crate) stmt_index:
        rustc_hash::FxHashMap<FuncId, rustc_hash::FxHashMap<tessera_ir::StmtId, &'p Stmt>>,
}

impl<'p> Machine<'p> {
    pub(crate) fn new(prog: &'p Program, opts: Options, sink: &'p mut dyn Write) -> Self {
        let mut ts_slot = Vec::with_capacity(prog.functions.len());
        let mut ts_types = Vec::new();
        for (f, func) in prog.functions.iter().enumerate() {
            let slots = func
                .locals
                .iter()
                .enumerate()
                .map(|(l, local)| {
                    (local.space == tessera_ir::Space::TileStatic).then(|| {
                        ts_types.push((FuncId(f as u32), LocalId(l as u32)));
                        (ts_types.len() - 1) as u32
                    })
                })
                .collect();
            ts_slot.push(slots);
        }
        let barriers = tessera_ir::facts::Barriers::of(prog);
        let meter = Meter::new(opts.limits.max_memory);
        let mut m = Machine {
            prog,
            opts,
            globals: Vec::new(),
            host: Strand::new(Thread::Host, 0),
            items: Vec::new(),
            cur: 0,
            in_kernel: false,
            launch: LaunchState::default(),
            ts_slot,
            ts_types,
            barriers,
            meter,
            stream: StreamFormat::default(),
            wide_stream: StreamFormat::default(),
            out: Vec::new(),
            sink,
            sink_broken: false,
            input: None,
            input_done: false,
            cin: None,
            start: Instant::now(),
            ticks: 0,
            depth: 0,
            checker: Checker::new(opts.check),
            frame_bytes: Vec::new(),
            stack_base: stack_address(),
            interrupt: None,
            host_costs: std::collections::HashMap::new(),
            barrier_stmts: vec![None; prog.functions.len()],
            captures_written: vec![None; prog.functions.len()],
            work_item_frames: vec![None; prog.functions.len()],
            engine: None,
            clib: crate::clib::CState {
                err_format: StreamFormat::unbuffered(),
                wide_err_format: StreamFormat::unbuffered(),
                ..crate::clib::CState::default()
            },
            exceptions: crate::exceptions::Exceptions::default(),
            generations: 0,
            cpu_default: (None, false),
            next_view: 2,
            default_accel: crate::value::Accel::Default,
            default_fixed: false,
            launch_on: None,
            unions: Vec::new(),
            storage_structs: std::cell::RefCell::new(Vec::new()),
            fast_loops: Default::default(),
            fast_stmts: Default::default(),
            stmt_index: Default::default(),
        };
        // In id order: a union member of union type was declared first.
        for def in &prog.structs {
            let shape = def.is_union.then(|| Rc::new(m.union_shape(def)));
            m.unions.push(shape);
        }
        m.frame_bytes = prog
            .functions
            .iter()
            .map(|f| {
                f.locals
                    .iter()
                    .filter(|l| l.space != tessera_ir::Space::TileStatic && !l.by_ref)
                    .map(|l| m.type_bytes(&l.ty))
                    .fold(0u64, u64::saturating_add)
            })
            .collect();
        m
    }

    /// A machine that goes on from a REPL session's saved state.
    pub(crate) fn resume(
        prog: &'p Program,
        opts: Options,
        sink: &'p mut dyn Write,
        saved: Option<Saved>,
    ) -> Self {
        let mut m = Machine::new(prog, opts, sink);
        if let Some(saved) = saved {
            m.globals = saved.globals;
            m.host = saved.host;
            m.meter = saved.meter;
            m.stream = saved.stream;
            m.wide_stream = saved.wide_stream;
            m.cin = saved.cin;
            m.clib.rand = saved.rand;
        }
        m
    }

    /// What a REPL session keeps between inputs.
    pub(crate) fn save(self) -> Saved {
        Saved {
            globals: self.globals,
            host: self.host,
            meter: self.meter,
            stream: self.stream,
            wide_stream: self.wide_stream,
            cin: self.cin,
            rand: self.clib.rand,
        }
    }

    /// Runs the new part of a REPL session's program: globals from
    /// `first_global` on, then `main`'s top-level statements from
    /// `first_stmt` on in main's persistent frame. Returns the value of a
    /// final expression statement, shown.
    pub(crate) fn run_part(
        &mut self,
        first_global: usize,
        first_stmt: usize,
    ) -> Res<Option<crate::Shown>> {
        let prog = self.prog;
        self.globals.truncate(first_global);
        self.host.stack.truncate(1);
        if self.host.stack.is_empty() {
            self.host.stack.push(Frame {
                func: None,
                locals: Vec::new(),
                generation: 0,
            });
        }
        self.host.stack[0].func = None;
        for g in prog.globals.iter().skip(first_global) {
            self.take_memory(self.type_bytes(&g.ty), g.span)?;
            let v = match &g.init {
                Some(init) => self.init_value(init, &g.ty, g.span)?,
                None => self.zero_value(&g.ty, g.span)?,
            };
            self.globals.push(v);
        }
        let Some(main) = prog.main else {
            return Ok(None);
        };
        let func = prog.function(main);
        let frame = &mut self.host.stack[0];
        frame.func = Some(main);
        frame.locals.resize(func.locals.len(), Value::Void);
        let Some(body) = &func.body else {
            return Ok(None);
        };
        let stmts = body.stmts.get(first_stmt..).unwrap_or(&[]);
        for (i, s) in stmts.iter().enumerate() {
            if i + 1 == stmts.len()
                && let StmtKind::Expr(e) = &s.kind
                && !matches!(e.ty, Type::Void | Type::Ostream | Type::WideOstream)
            {
                let v = self.eval(e)?;
                let text = self.show(&v, &e.ty);
                return Ok(Some(crate::Shown {
                    text,
                    ty: tessera_ir::display(&e.ty, &prog.structs),
                }));
            }
            if let Flow::Return(_) = self.exec_stmt(s)? {
                break;
            }
        }
        Ok(None)
    }

    /// Runs the program: globals, then `main`.
    pub(crate) fn run(mut self) -> Outcome {
        let mut result = self.run_main();
        // An uncaught `std::exception`: what g++'s `terminate` prints.
        if let Err(e) = &mut result
            && e.code == codes::R0022
            && e.exception.is_none()
            && let Some(what) = self.uncaught_what(e.span)
        {
            e.notes.insert(0, format!("what():  {what}"));
        }
        self.flush();
        let (exit_code, error) = match (result, self.clib.exit) {
            (Ok(code), _) => (code, None),
            (Err(_), Some(code)) => (code, None),
            (Err(e), None) => (i32::from(tessera_runtime::EXIT_RUNTIME_ERROR), Some(*e)),
        };
        Outcome {
            exit_code,
            error,
            findings: std::mem::take(&mut self.checker.findings),
            stderr: std::mem::take(&mut self.clib.stderr),
        }
    }

    /// When the time limit passes, if there is one.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.opts.limits.timeout.map(|t| self.start + t)
    }

    fn run_main(&mut self) -> Res<i32> {
        let prog = self.prog;
        self.host.stack.push(Frame {
            func: None,
            locals: Vec::new(),
            generation: 0,
        });
        for g in &prog.globals {
            self.take_memory(self.type_bytes(&g.ty), g.span)?;
            let v = match &g.init {
                Some(init) => self.init_value(init, &g.ty, g.span)?,
                None => self.zero_value(&g.ty, g.span)?,
            };
            self.globals.push(v);
        }
        self.host.stack.clear();
        let Some(main) = prog.main else {
            return Ok(0);
        };
        let span = prog.function(main).span;
        let args = if prog.function(main).params == 2 {
            self.main_args(span)?
        } else {
            Vec::new()
        };
        let v = self.call(main, args, span)?;
        Ok(match v {
            Value::Int(code) => code as i32,
            _ => 0,
        })
    }

    /// `argc` and `argv` for `int main(int argc, char** argv)`: one argument,
    /// the program's name (`a.out`, as a C++ compiler names a program), and
    /// the null pointer that ends the list.
    fn main_args(&mut self, span: Span) -> Res<Vec<Value>> {
        let name = Machine::string_value_of(b"a.out");
        let char_ptr = Type::Ptr {
            elem: Box::new(Type::Scalar(Scalar::Char)),
            is_const: false,
        };
        let storage = self.storage_of(
            vec![name, crate::value::Pointer::null()],
            &char_ptr,
            StorageKind::Heap { array: true },
            span,
        )?;
        let argv = crate::value::Pointer::to_storage(storage);
        Ok(vec![Value::Int(1), argv])
    }

    // ----- output -----

    /// Writes buffered output to the sink.
    pub(crate) fn flush(&mut self) {
        // A closed pipe: the reader has gone; the program still runs to its
        // end like a C++ program would.
        if !self.sink_broken
            && !self.out.is_empty()
            && (self.sink.write_all(&self.out).is_err() || self.sink.flush().is_err())
        {
            self.sink_broken = true;
        }
        self.out.clear();
    }

    // ----- errors and limits -----

    /// Who is running now.
    pub(crate) fn thread(&self) -> Thread {
        if self.in_kernel {
            self.items.get(self.cur).map_or(Thread::Host, |s| s.thread)
        } else {
            Thread::Host
        }
    }

    /// An error in the running thread.
    pub(crate) fn error(
        &self,
        code: tessera_diagnostics::Code,
        span: Span,
        msg: impl Into<String>,
    ) -> Stop {
        Box::new(RunError::new(code, span, self.thread(), msg))
    }

    /// The error for a failed arithmetic operation.
    pub(crate) fn arith_error(&self, e: ArithError, ty: Scalar, span: Span) -> Stop {
        let name = ty.name();
        let err = match e {
            ArithError::DivByZero => RunError::new(
                codes::R0002,
                span,
                self.thread(),
                format!("integer division by zero (`{name}`)"),
            )
            .with_label("the divisor is 0")
            .with_help("check the divisor before dividing"),
            ArithError::Overflow => RunError::new(
                codes::R0003,
                span,
                self.thread(),
                format!("signed integer overflow: the result does not fit in `{name}`"),
            )
            .with_label("overflows")
            .with_note("C++ leaves signed overflow undefined; unsigned types wrap around")
            .with_help("use a wider type (`long`) or an unsigned type if wrapping is intended"),
            ArithError::Shift(count, width) => RunError::new(
                codes::R0004,
                span,
                self.thread(),
                format!("shift count {count} is out of range for a {width}-bit `{name}`"),
            )
            .with_label(format!("shifts by {count}"))
            .with_help(format!("shift by 0 to {} bits", width - 1)),
            ArithError::FloatToInt(value, to) => RunError::new(
                codes::R0005,
                span,
                self.thread(),
                format!(
                    "the value {value} does not fit in `{}` after conversion",
                    to.name()
                ),
            )
            .with_label("converted here")
            .with_note("C++ leaves the conversion of an out-of-range value undefined"),
        };
        Box::new(err)
    }

    /// Counts work; every few thousand steps, checks the time limit.
    pub(crate) fn tick(&mut self, span: Span) -> Res<()> {
        self.charge(1, span)
    }

    /// Counts `units` of work at once (bulk copies and fills count one unit
    /// per few elements), checking the time limit whenever the count passes
    /// a multiple of 4096.
    pub(crate) fn charge(&mut self, units: u64, span: Span) -> Res<()> {
        let before = self.ticks;
        self.ticks = self.ticks.wrapping_add(units);
        if (before >> 12) != (self.ticks >> 12) {
            return self.poll(span);
        }
        Ok(())
    }

    /// Checks now whether the run was interrupted or passed its time limit.
    pub(crate) fn poll(&self, span: Span) -> Res<()> {
        if let Some(flag) = &self.interrupt
            && flag.swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            return Err(self
                .error(codes::R0012, span, "interrupted")
                .with_label("running here when the run was interrupted")
                .into());
        }
        if let Some(limit) = self.opts.limits.timeout
            && self.start.elapsed() > limit
        {
            return Err(self
                .error(
                    codes::R0009,
                    span,
                    format!(
                        "the program ran longer than the time limit of {} s",
                        limit.as_secs_f64()
                    ),
                )
                .with_label("still running here")
                .with_help("look for a loop that never ends, or raise the limit with `--timeout`")
                .into());
        }
        Ok(())
    }

    /// A reference, pointer or iterator (`what`) used after its element
    /// was lost as `lost` says: removed from its container, or moved when
    /// its vector reallocated.
    pub(crate) fn lost_element(&self, span: Span, what: &str, lost: crate::value::Lost) -> Stop {
        let (message, label, note, help) = if lost == crate::value::Lost::Reallocated {
            (
                format!("this {what}'s element moved when its `std::vector` reallocated"),
                "used after the vector grew past its capacity",
                "growing a vector past its capacity moves every element to new memory (libstdc++ doubles the capacity, MSVC's library adds half); C++ leaves using a reference, pointer or iterator taken before undefined",
                "take the element again after growing the vector, or `reserve` room for all of them first",
            )
        } else {
            (
                format!("this {what}'s element was removed from its container"),
                "used after its element was removed",
                "C++ leaves using a reference, pointer or iterator to a removed element undefined",
                "take the element again after changing the container",
            )
        };
        self.error(codes::R0014, span, message)
            .with_label(label)
            .with_note(note)
            .with_help(help)
            .into()
    }

    /// An element past the end of its data: a view's over a vector that
    /// shrank after the view was made.
    pub(crate) fn past_the_data(&self, at: usize, len: usize, span: Span) -> Stop {
        self.error(
            codes::R0014,
            span,
            format!("element {at} is past the end of its data, which now has {len} elements"),
        )
        .with_label("the element no longer exists")
        .with_note("the `std::vector` under a view shrank after the view was made; C++ leaves using the elements it removed undefined")
        .with_help("make the view after resizing the vector, or keep the vector's size while the view is used")
        .into()
    }

    /// Takes `bytes` of program data from the memory budget.
    pub(crate) fn take_memory(&self, bytes: u64, span: Span) -> Res<()> {
        self.meter.take(bytes).map_err(|(used, limit)| {
            self.error(
                codes::R0010,
                span,
                format!(
                    "allocating {} would pass the memory limit of {} ({} in use)",
                    human_bytes(bytes),
                    human_bytes(limit),
                    human_bytes(used)
                ),
            )
            .with_label("allocated here")
            .with_help("use less data, or raise the limit with `--max-memory`")
            .into()
        })
    }

    /// New storage of `n` copies of `fill`.
    pub(crate) fn new_storage(
        &mut self,
        n: u64,
        fill: Value,
        elem: &Type,
        kind: StorageKind,
        span: Span,
    ) -> Res<Rc<Storage>> {
        let elem_bytes = self.type_bytes(elem);
        self.take_memory(n.saturating_mul(elem_bytes), span)?;
        self.charge(n / 16, span)?;
        let too_large = || self.error(codes::R0010, span, "allocation too large");
        let n = usize::try_from(n).map_err(|_| too_large())?;
        if let Type::Scalar(s) = elem {
            // Zeroed memory from the system costs nothing until touched;
            // another value is written a chunk at a time, so that the time
            // limit and an interrupt stop a huge fill.
            let storage =
                Storage::zeroed(n, *s, kind, elem_bytes, &self.meter).ok_or_else(too_large)?;
            let zero = match fill {
                Value::Uninit => true,
                Value::Bool(b) => !b,
                Value::Int(v) => v == 0,
                Value::Float(f) => f.to_bits() == 0,
                Value::Double(d) => d.to_bits() == 0,
                _ => false,
            };
            if !zero {
                for start in (0..n).step_by(POLL_CHUNK) {
                    storage.fill(start, (start + POLL_CHUNK).min(n), &fill);
                    self.poll(span)?;
                }
            }
            return Ok(storage);
        }
        // Each element is a complete object of the element type (an object
        // of a polymorphic class knows its class).
        let fill = self.as_complete_object(fill, elem);
        let layout = self.elem_layout(elem);
        if let Some(storage) = Storage::zeroed_records(n, &layout, kind, elem_bytes, &self.meter) {
            // Records: zero bytes from the system; another value is written
            // a chunk at a time, as for scalars.
            if !matches!(fill, Value::Uninit) && !storage.is_zero_record(&fill) {
                for start in (0..n).step_by(POLL_CHUNK) {
                    storage.fill(start, (start + POLL_CHUNK).min(n), &fill);
                    self.poll(span)?;
                }
            }
            return Ok(storage);
        }
        // Elements holding vectors or arrays each get their own copies.
        let mut data = Vec::new();
        data.try_reserve_exact(n).map_err(|_| too_large())?;
        let copies = self.holds_storage(elem, 0);
        for start in (0..n).step_by(POLL_CHUNK) {
            for _ in start..(start + POLL_CHUNK).min(n) {
                data.push(if copies {
                    self.copy_value(fill.clone(), elem, span)?
                } else {
                    fill.clone()
                });
            }
            self.poll(span)?;
        }
        Ok(Storage::new(
            data,
            kind,
            ElemLayout::Values,
            elem_bytes,
            &self.meter,
        ))
    }

    /// Vector storage of `n` objects of type `elem`, each the value of
    /// `build` evaluated anew (a constructor run once per element, as C++
    /// runs it), counted against the memory limit before any is built.
    pub(crate) fn constructed_storage(
        &mut self,
        n: u64,
        build: &tessera_ir::Expr,
        elem: &Type,
        span: Span,
    ) -> Res<Rc<Storage>> {
        let elem_bytes = self.type_bytes(elem);
        self.take_memory(n.saturating_mul(elem_bytes), span)?;
        let too_large = || self.error(codes::R0010, span, "allocation too large");
        let n = usize::try_from(n).map_err(|_| too_large())?;
        let mut data = Vec::new();
        data.try_reserve_exact(n).map_err(|_| too_large())?;
        for _ in 0..n {
            let v = self.eval(build)?;
            data.push(v);
        }
        Ok(Storage::new(
            data,
            StorageKind::Vector,
            self.elem_layout(elem),
            elem_bytes,
            &self.meter,
        ))
    }

    /// Storage holding `data`.
    pub(crate) fn storage_of(
        &mut self,
        data: Vec<Value>,
        elem: &Type,
        kind: StorageKind,
        span: Span,
    ) -> Res<Rc<Storage>> {
        let elem_bytes = self.type_bytes(elem);
        self.take_memory((data.len() as u64).saturating_mul(elem_bytes), span)?;
        self.charge(data.len() as u64 / 16, span)?;
        // A container owns its elements: those holding vectors or arrays
        // (`{row, row}`, a copied vector of vectors) get their own copies.
        let data = self.copied_elements(data, elem, span)?;
        Ok(Storage::new(
            data,
            kind,
            self.elem_layout(elem),
            elem_bytes,
            &self.meter,
        ))
    }

    /// Whether an object of type `ty` holds an object of a polymorphic
    /// class (so a hidden dynamic class), or nests too deep to tell.
    fn holds_dynamic(&self, ty: &Type, depth: u32) -> bool {
        if depth > 64 {
            return true;
        }
        match ty {
            Type::Struct(id) => {
                self.prog.dynamic.contains_key(id)
                    || self.prog.structs.get(id.index()).is_none_or(|d| {
                        d.fields
                            .iter()
                            .any(|(_, f)| self.holds_dynamic(f, depth + 1))
                    })
            }
            Type::CArray(elem, _) => self.holds_dynamic(elem, depth + 1),
            _ => false,
        }
    }

    /// How a storage keeps elements of type `elem`: scalars and records
    /// (structs and C arrays of scalars, without unions) in a typed buffer,
    /// anything else as values. Objects of polymorphic classes stay values,
    /// whose hidden dynamic class the buffer's bytes would not say apart
    /// from a member.
    pub(crate) fn elem_layout(&self, elem: &Type) -> ElemLayout {
        if let Type::Scalar(s) = elem {
            return ElemLayout::Scalar(*s);
        }
        if !matches!(elem, Type::Struct(_) | Type::CArray(..)) || self.holds_dynamic(elem, 0) {
            return ElemLayout::Values;
        }
        let structs = &self.prog.structs;
        match (
            crate::records::RecordShape::of(structs, elem),
            tessera_runtime::layout::size_align(structs, elem),
        ) {
            (Some(shape), Some((size, _))) if size > 0 => {
                ElemLayout::Record(Rc::new(shape), elem.clone(), size)
            }
            _ => ElemLayout::Values,
        }
    }

    /// The C++ size of a type, for the memory budget: its layout's size
    /// when it has a plain one; a handle (view, vector, ...) counts 8 bytes.
    pub(crate) fn type_bytes(&self, ty: &Type) -> u64 {
        // Pointers counted as C++ lays them out, so that a class holding
        // them (`struct Node { Node* left, *right; }`) is measured in one
        // walk of its classes, not by the field recursion below.
        if let Some((size, _)) = tessera_ir::layout::sizeof_align_u64(&self.prog.structs, ty) {
            return size;
        }
        match ty {
            // An aggregate holding handles: its parts, without padding.
            Type::Struct(id) => self.prog.get_struct(*id).map_or(8, |s| {
                s.fields
                    .iter()
                    .map(|(_, t)| self.type_bytes(t))
                    .sum::<u64>()
                    .max(1)
            }),
            Type::CArray(elem, n) => self.type_bytes(elem).saturating_mul(u64::from(*n)),
            _ => 8,
        }
    }

    // ----- values of types -----

    /// The value a variable of type `ty` starts with when zero-initialised.
    pub(crate) fn zero_value(&self, ty: &Type, span: Span) -> Res<Value> {
        // Zero-initialising a union zero-initialises its first member.
        if let Some(shape) = self.union_of(ty) {
            let first = match self
                .prog
                .get_struct(union_id(ty))
                .and_then(|d| d.fields.first())
            {
                Some((_, t)) => Some(self.zero_value(t, span)?),
                None => None,
            };
            let active = first.is_some().then_some(0);
            return Ok(Self::union_value(
                shape,
                active,
                first.unwrap_or(Value::Uninit),
            ));
        }
        Ok(match ty {
            Type::Scalar(s) => arith::zero(*s),
            Type::Struct(id) => {
                let fields = self
                    .prog
                    .get_struct(*id)
                    .map(|s| s.fields.clone())
                    .unwrap_or_default();
                let mut items = Vec::with_capacity(fields.len());
                for (_, t) in &fields {
                    items.push(self.zero_value(t, span)?);
                }
                Value::Agg(Rc::new(items))
            }
            Type::CArray(elem, n) => {
                // Frames are counted when they are entered (a local array
                // is in `used` already: taking its bytes again would count
                // it twice); this only makes sure that no single array is
                // built past the limit.
                let bytes = self.type_bytes(ty);
                if bytes > self.meter.limit() {
                    self.take_memory(bytes, span)?;
                    self.meter.give(bytes);
                }
                if let Type::Scalar(s) = **elem {
                    // Zeroed memory from the system: untouched elements
                    // cost nothing.
                    let a = ScalarArray::zeroed(s, *n as usize)
                        .ok_or_else(|| self.error(codes::R0010, span, "allocation too large"))?;
                    return Ok(Value::Scalars(Rc::new(a)));
                }
                // Rows of a zero array share one value until written.
                let z = self.zero_value(elem, span)?;
                Value::Agg(Rc::new(vec![z; *n as usize]))
            }
            Type::Index(r) | Type::Extent(r) => Value::shape(vec![0; usize::from(*r)]),
            Type::TiledExtent(t) | Type::TiledIndex(t) => {
                Value::shape(vec![0; usize::from(t.rank)])
            }
            Type::Vector(elem) | Type::Container(_, elem) => {
                let empty = Storage::new(
                    Vec::new(),
                    StorageKind::Vector,
                    match ty {
                        // Ordered and unordered containers work on values.
                        Type::Container(..) => {
                            elem.scalar().map_or(ElemLayout::Values, ElemLayout::Scalar)
                        }
                        _ => self.elem_layout(elem),
                    },
                    self.type_bytes(elem),
                    &self.meter,
                );
                // A default-constructed `std::vector` has no room yet.
                if matches!(ty, Type::Vector(_)) {
                    empty.set_capacity(0);
                }
                Value::Vector(empty)
            }
            // An empty `std::wstring`.
            Type::WideStr => Value::Str(Rc::new(Vec::new())),
            Type::StringStream(_) => self.empty_string_stream(span)?,
            // A singular iterator: a null pointer, which cannot be used.
            Type::Iter(_) => crate::value::Pointer::null(),
            Type::FnPtr(_) => crate::expr::fn_pointer(None),
            _ => Value::Void,
        })
    }

    /// What a union's members are and how each reads while another is active.
    fn union_shape(&self, def: &tessera_ir::StructDef) -> UnionShape {
        let structs = &self.prog.structs;
        let reads = def
            .fields
            .iter()
            .map(|(_, read)| {
                def.fields
                    .iter()
                    .map(|(_, active)| {
                        if read == active {
                            return Alias::Same;
                        }
                        // Two structs' common initial sequence: their
                        // leading members of the same types.
                        let members = |t: &Type| match t {
                            Type::Struct(id) => structs
                                .get(id.index())
                                .filter(|d| !d.is_union)
                                .map(|d| d.fields.iter().map(|(_, t)| t.clone()).collect()),
                            _ => None,
                        };
                        let (Some(r), Some(a)): (Option<Vec<Type>>, Option<Vec<Type>>) =
                            (members(read), members(active))
                        else {
                            return Alias::No;
                        };
                        match r.iter().zip(&a).take_while(|(x, y)| x == y).count() {
                            0 => Alias::No,
                            n => Alias::Prefix(n as u32),
                        }
                    })
                    .collect()
            })
            .collect();
        UnionShape {
            name: def.name.clone(),
            fields: def.fields.iter().map(|(n, _)| n.clone()).collect(),
            fresh: def
                .fields
                .iter()
                .map(|(_, t)| self.uninit_value(t))
                .collect(),
            reads,
        }
    }

    /// The shape of union type `ty`, if it is one.
    pub(crate) fn union_of(&self, ty: &Type) -> Option<Rc<UnionShape>> {
        match ty {
            Type::Struct(id) => self.unions.get(id.index()).cloned().flatten(),
            _ => None,
        }
    }

    /// A union of shape `shape` whose member `active` holds `value`.
    pub(crate) fn union_value(shape: Rc<UnionShape>, active: Option<u32>, value: Value) -> Value {
        Value::Union(Rc::new(UnionVal {
            shape,
            active,
            value,
        }))
    }

    /// The error for a read of a union member that is not active.
    pub(crate) fn misread(&self, m: Misread, span: Span) -> Stop {
        self.error(
            codes::R0016,
            span,
            format!(
                "read of member `{}` of union `{}`, whose active member is `{}`",
                m.read, m.union, m.active
            ),
        )
    }

    /// The value of an uninitialised `tile_static` variable of type `ty`.
    pub(crate) fn uninit_value(&self, ty: &Type) -> Value {
        if let Some(shape) = self.union_of(ty) {
            return Self::union_value(shape, None, Value::Uninit);
        }
        match ty {
            Type::Struct(id) => {
                let n = self.prog.get_struct(*id).map_or(0, |s| s.fields.len());
                let fields: Vec<Value> = (0..n)
                    .map(|i| {
                        self.prog
                            .struct_def(*id)
                            .fields
                            .get(i)
                            .map_or(Value::Uninit, |(_, t)| self.uninit_value(t))
                    })
                    .collect();
                Value::Agg(Rc::new(fields))
            }
            Type::CArray(elem, n) => {
                Value::Agg(Rc::new(vec![self.uninit_value(elem); *n as usize]))
            }
            _ => Value::Uninit,
        }
    }

    /// Evaluates an initialiser for a variable of type `ty`.
    pub(crate) fn init_value(&mut self, init: &Init, ty: &Type, span: Span) -> Res<Value> {
        match init {
            Init::Expr(e) => {
                let v = self.eval(e)?;
                self.copy_value(v, ty, e.span)
            }
            Init::Zero => self.zero_value(ty, span),
            Init::Ref(e) => Ok(Value::Ref(Rc::new(self.place(e)?))),
            // A braced list initialises a union's first member.
            Init::List(items) if self.union_of(ty).is_some() => {
                let shape = self.union_of(ty);
                let first = self
                    .prog
                    .get_struct(union_id(ty))
                    .and_then(|d| d.fields.first())
                    .map(|(_, t)| t.clone());
                let (Some(shape), Some(t)) = (shape, first) else {
                    return self.zero_value(ty, span);
                };
                let v = match items.first() {
                    Some(item) => self.init_value(item, &t, span)?,
                    None => self.zero_value(&t, span)?,
                };
                Ok(Self::union_value(shape, Some(0), v))
            }
            Init::List(items) => {
                if let Type::CArray(elem, n) = ty {
                    let bytes = self.type_bytes(ty);
                    self.take_memory(bytes, span)?;
                    self.meter.give(bytes);
                    if let Type::Scalar(s) = **elem {
                        // Scalars go straight into a typed array of zeros:
                        // the elements not given are those zeros.
                        self.charge(items.len() as u64 / 16, span)?;
                        let mut a = ScalarArray::zeroed(s, *n as usize).ok_or_else(|| {
                            self.error(codes::R0010, span, "allocation too large")
                        })?;
                        for (i, item) in items.iter().enumerate().take(*n as usize) {
                            let v = self.init_value(item, elem, span)?;
                            a.set(i, &v);
                        }
                        return Ok(Value::Scalars(Rc::new(a)));
                    }
                    self.charge(u64::from(*n) / 16, span)?;
                }
                let elem_types: Vec<Type> = match ty {
                    Type::Struct(id) => self
                        .prog
                        .get_struct(*id)
                        .map(|s| s.fields.iter().map(|(_, t)| t.clone()).collect())
                        .unwrap_or_default(),
                    Type::CArray(elem, n) => vec![(**elem).clone(); *n as usize],
                    _ => Vec::new(),
                };
                let mut out = Vec::with_capacity(elem_types.len());
                // The zero of the last type a missing part had: the
                // elements of an array share it.
                let mut zero: Option<(&Type, Value)> = None;
                for (i, t) in elem_types.iter().enumerate() {
                    out.push(match items.get(i) {
                        Some(item) => self.init_value(item, t, span)?,
                        None => match &zero {
                            Some((zt, z)) if *zt == t => z.clone(),
                            _ => {
                                let z = self.zero_value(t, span)?;
                                zero = Some((t, z.clone()));
                                z
                            }
                        },
                    });
                }
                Ok(Value::Agg(Rc::new(out)))
            }
        }
    }

    /// A copy of `v` for a new object of type `ty`: vectors and arrays are
    /// deep-copied (unless `v` is a temporary nobody else holds).
    pub(crate) fn copy_value(&mut self, v: Value, ty: &Type, span: Span) -> Res<Value> {
        // A copy is a complete object of its type; the dynamic class is set
        // last, over what copying its base subobjects set.
        let copy = self.copy_parts(v, ty, span)?;
        Ok(self.as_complete_object(copy, ty))
    }

    /// `copy_value` but for the dynamic class of a polymorphic object.
    fn copy_parts(&mut self, v: Value, ty: &Type, span: Span) -> Res<Value> {
        match (&v, ty) {
            (Value::Vector(s), _) if Rc::strong_count(s) > 1 => {
                self.take_memory(s.len() as u64 * s.elem_bytes, span)?;
                self.meter.give(s.len() as u64 * s.elem_bytes);
                let elem = ty.sequence_elem().cloned().unwrap_or(Type::INT);
                let copy = match s.copy_typed(StorageKind::Vector) {
                    // Scalars: a copy of the buffer (counted just above).
                    Some(copy) => {
                        self.take_memory(s.len() as u64 * s.elem_bytes, span)?;
                        self.charge(s.len() as u64 / 64, span)?;
                        copy
                    }
                    None => self.storage_of(s.to_values(), &elem, StorageKind::Vector, span)?,
                };
                // A copied hash table keeps its buckets, so its order.
                copy.buckets.set(s.buckets.get());
                Ok(Value::Vector(copy))
            }
            // A temporary array nobody else holds (`array<T, N> a(e);`) is
            // moved, not copied.
            (Value::View(view), Type::Array(..))
                if Rc::strong_count(view) == 1
                    && view.storage().is_some_and(|s| Rc::strong_count(s) == 1)
                    && view.offset == 0
                    && view.storage().is_some_and(|s| s.len() == view.size()) =>
            {
                Ok(v)
            }
            (Value::View(view), Type::Array(elem, _)) => {
                let view = Rc::clone(view);
                // An array over the whole of a typed storage, row by row
                // from its start (as arrays are): a copy of its buffer.
                if let Some(storage) = view.storage()
                    && !self.checker.on
                    && !storage.reallocated_since(view.generation)
                    && view.offset == 0
                    && view.size() == storage.len()
                    && view.strides == crate::value::row_major_strides(&view.extent)
                    && storage.typed()
                {
                    let n = view.size() as u64;
                    // What making it from its elements would charge and
                    // take, counted before the copy is made.
                    self.charge(n / 16 * 2, span)?;
                    self.take_memory(n.saturating_mul(self.type_bytes(elem)), span)?;
                    if let Some(copy) = storage.copy_typed(StorageKind::Device) {
                        return Ok(Value::View(crate::value::View::dense(
                            crate::value::ViewData::Storage(copy),
                            view.extent.clone(),
                        )));
                    }
                }
                let data = self.view_elements(&view, span)?;
                let storage = self.storage_of(data, elem, StorageKind::Device, span)?;
                Ok(Value::View(crate::value::View::dense(
                    crate::value::ViewData::Storage(storage),
                    view.extent.clone(),
                )))
            }
            // A struct or C array holding vectors or arrays: each of those
            // is copied too (C++ copies members and elements one by one).
            (Value::Agg(items), Type::Struct(_) | Type::CArray(..))
                if self.holds_storage(ty, 0) =>
            {
                let items = Rc::clone(items);
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let item_ty = match ty {
                        Type::Struct(id) => self
                            .prog
                            .structs
                            .get(id.0 as usize)
                            .and_then(|s| s.fields.get(i))
                            .map(|(_, t)| t.clone()),
                        Type::CArray(elem, _) => Some((**elem).clone()),
                        _ => None,
                    };
                    out.push(match item_ty {
                        Some(t) => self.copy_value(item.clone(), &t, span)?,
                        None => item.clone(),
                    });
                }
                Ok(Value::Agg(Rc::new(out)))
            }
            _ => Ok(v),
        }
    }

    /// `data` for a new sequence of `elem`s: elements holding vectors or
    /// arrays get their own copies of them.
    pub(crate) fn copied_elements(
        &mut self,
        mut data: Vec<Value>,
        elem: &Type,
        span: Span,
    ) -> Res<Vec<Value>> {
        if self.holds_storage(elem, 0) {
            for item in &mut data {
                let held = std::mem::replace(item, Value::Void);
                *item = self.copy_value(held, elem, span)?;
            }
        }
        Ok(data)
    }

    /// Whether a value of type `ty` holds a vector or an array (which a
    /// copy must duplicate) anywhere in its members or elements.
    pub(crate) fn holds_storage(&self, ty: &Type, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match ty {
            Type::Vector(_) | Type::Container(..) | Type::Array(..) => true,
            Type::CArray(elem, _) => self.holds_storage(elem, depth + 1),
            Type::Struct(id) => {
                let i = id.0 as usize;
                if let Some(Some(known)) = self.storage_structs.borrow().get(i) {
                    return *known;
                }
                let holds = self.prog.structs.get(i).is_some_and(|s| {
                    !s.is_union
                        && s.fields
                            .iter()
                            .any(|(_, t)| self.holds_storage(t, depth + 1))
                });
                let mut known = self.storage_structs.borrow_mut();
                if known.len() <= i {
                    known.resize(i + 1, None);
                }
                known[i] = Some(holds);
                holds
            }
            _ => false,
        }
    }

    // ----- places -----

    pub(crate) fn strand(&mut self) -> &mut Strand {
        if self.in_kernel {
            &mut self.items[self.cur]
        } else {
            &mut self.host
        }
    }

    pub(crate) fn frame_mut(&mut self) -> &mut Frame {
        let strand = self.strand();
        if strand.stack.is_empty() {
            strand.stack.push(Frame {
                func: None,
                locals: Vec::new(),
                generation: 0,
            });
        }
        let last = strand.stack.len() - 1;
        &mut strand.stack[last]
    }

    /// Sets a local of the current frame.
    pub(crate) fn set_local(&mut self, id: LocalId, v: Value) {
        let frame = self.frame_mut();
        let i = id.index();
        if frame.locals.len() <= i {
            frame.locals.resize(i + 1, Value::Void);
        }
        frame.locals[i] = v;
    }

    /// The slot of a local of the current frame that holds its own value
    /// (not a reference, not `tile_static`, whose frame slots stay `Void`):
    /// the fast path of variable access.
    #[inline]
    pub(crate) fn plain_local(&mut self, id: LocalId) -> Option<&mut Value> {
        let strand = if self.in_kernel {
            self.items.get_mut(self.cur)?
        } else {
            &mut self.host
        };
        let v = strand.stack.last_mut()?.locals.get_mut(id.index())?;
        match v {
            Value::Void | Value::Ref(_) | Value::Uninit => None,
            _ => Some(v),
        }
    }

    /// The place of a local of the current function.
    pub(crate) fn local_place(&mut self, func: FuncId, id: LocalId) -> Place {
        if let Some(Some(slot)) = self
            .ts_slot
            .get(func.index())
            .and_then(|f| f.get(id.index()))
        {
            return Place::root(Root::TileStatic(*slot));
        }
        let strand = self.strand();
        let depth = strand.stack.len().saturating_sub(1) as u32;
        if let Some(Value::Ref(p)) = strand.stack.last().and_then(|f| f.locals.get(id.index())) {
            return (**p).clone();
        }
        if self.in_kernel {
            Place::root(Root::Local(depth, id.0))
        } else {
            Place::root(Root::HostLocal(depth, id.0))
        }
    }

    /// Reads the value at a place.
    pub(crate) fn read(&mut self, place: &Place, span: Span) -> Res<Value> {
        let v = match &place.root {
            Root::Local(depth, slot) => {
                let strand = self.strand();
                strand
                    .stack
                    .get(*depth as usize)
                    .and_then(|f| f.locals.get(*slot as usize))
                    .map(|v| read_path(v, &place.path))
            }
            Root::HostLocal(depth, slot) => {
                if self.checker.on {
                    self.check_access(place, span, false, false)?;
                }
                self.host
                    .stack
                    .get(*depth as usize)
                    .and_then(|f| f.locals.get(*slot as usize))
                    .map(|v| read_path(v, &place.path))
            }
            Root::Global(g) => self
                .globals
                .get(*g as usize)
                .map(|v| read_path(v, &place.path)),
            Root::Capture(c) => self
                .launch
                .captures
                .get(*c as usize)
                .map(|v| read_path(v, &place.path)),
            Root::TileStatic(slot) => {
                let v = self
                    .launch
                    .tile_static
                    .get(*slot as usize)
                    .map(|v| read_path(v, &place.path));
                if self.checker.on {
                    self.check_access(place, span, false, false)?;
                }
                if matches!(v, Some(Ok(Some(Value::Uninit)))) && self.checker.on {
                    self.report_uninit(*slot, span);
                }
                v
            }
            Root::Elem(storage, i, generation) => {
                if self.checker.on {
                    self.check_access(place, span, false, false)?;
                }
                let i = match storage.follow(*i, *generation, false) {
                    Ok(i) => i,
                    Err(lost) => return Err(self.lost_element(span, "reference", lost)),
                };
                let v = if place.path.is_empty() {
                    storage.element(i).map(|v| Ok(Some(v)))
                } else {
                    storage.read_in(i, &place.path)
                };
                // Checked only when nothing was read: the hot path reads.
                if v.is_none() && i >= storage.len() {
                    return Err(self.past_the_data(i, storage.len(), span));
                }
                v
            }
            Root::Temp(cell) => Some(read_path(&cell.borrow(), &place.path)),
            Root::Pun(pun, byte) => {
                let pun = Rc::clone(pun);
                return self.pun_read(&pun, *byte, &place.path, span);
            }
        };
        match v {
            Some(Ok(Some(v))) => Ok(v),
            Some(Err(m)) => Err(self.misread(m, span)),
            _ => Ok(Value::Uninit),
        }
    }

    /// Stores a value at a place.
    pub(crate) fn write(&mut self, place: &Place, v: Value, span: Span) -> Res<()> {
        let slot: Option<&mut Value> = match &place.root {
            Root::Local(depth, slot) => {
                let strand = self.strand();
                strand
                    .stack
                    .get_mut(*depth as usize)
                    .and_then(|f| f.locals.get_mut(*slot as usize))
            }
            Root::HostLocal(depth, slot) => {
                if self.checker.on {
                    self.check_access(place, span, true, false)?;
                }
                self.host
                    .stack
                    .get_mut(*depth as usize)
                    .and_then(|f| f.locals.get_mut(*slot as usize))
            }
            Root::Global(g) => self.globals.get_mut(*g as usize),
            Root::Capture(c) => self.launch.captures.get_mut(*c as usize),
            Root::TileStatic(_) | Root::Elem(..) => {
                if self.checker.on {
                    self.check_access(place, span, true, false)?;
                }
                match &place.root {
                    Root::TileStatic(slot) => self.launch.tile_static.get_mut(*slot as usize),
                    Root::Elem(storage, i, generation) => {
                        let i = match storage.follow(*i, *generation, false) {
                            Ok(i) => i,
                            Err(lost) => return Err(self.lost_element(span, "reference", lost)),
                        };
                        if i >= storage.len() {
                            return Err(self.past_the_data(i, storage.len(), span));
                        }
                        if place.path.is_empty() {
                            storage.set(i, v);
                        } else {
                            storage.write_in(i, &place.path, v);
                        }
                        return Ok(());
                    }
                    _ => None,
                }
            }
            Root::Temp(cell) => {
                write_path(&mut cell.borrow_mut(), &place.path, v);
                return Ok(());
            }
            Root::Pun(pun, byte) => {
                let pun = Rc::clone(pun);
                return self.pun_write(&pun, *byte, &place.path, &v, span);
            }
        };
        // A path that leads nowhere writes nothing.
        if let Some(root) = slot {
            write_path(root, &place.path, v);
        }
        Ok(())
    }

    /// The value at a place of the host's frames or globals (a local, a
    /// global, and the fields and elements of their aggregates, unshared
    /// on the way as a write unshares them); `None` for any other place.
    pub(crate) fn host_value_mut(&mut self, place: &Place) -> Option<&mut Value> {
        let mut v = match &place.root {
            Root::HostLocal(depth, slot) => self
                .host
                .stack
                .get_mut(*depth as usize)?
                .locals
                .get_mut(*slot as usize)?,
            Root::Global(g) => self.globals.get_mut(*g as usize)?,
            _ => return None,
        };
        for &i in &place.path {
            v = match v {
                Value::Agg(items) => Rc::make_mut(items).get_mut(i as usize)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// A place holding a temporary value.
    pub(crate) fn temp(v: Value) -> Place {
        Place::root(Root::Temp(Rc::new(RefCell::new(v))))
    }

    // ----- statements -----

    /// Runs a block; its locals go out of scope at its end.
    pub(crate) fn exec_block(&mut self, b: &Block) -> Res<Flow> {
        let mut flow = Flow::Normal;
        let mut at = 0;
        while let Some(s) = b.stmts.get(at) {
            at += 1;
            // Every statement counts toward the time limit, so that a long
            // loop body is stopped as surely as a long loop.
            if let Err(e) = self.tick(s.span) {
                self.end_scope(b);
                return Err(e);
            }
            match self.exec_stmt(s) {
                Ok(Flow::Normal) => {}
                // A `goto` to a label of this block goes on from there.
                Ok(Flow::Goto(label))
                    if let Some(to) = b
                        .stmts
                        .iter()
                        .position(|s| matches!(s.kind, StmtKind::Label(l) if l == label)) =>
                {
                    at = to;
                }
                Ok(other) => {
                    flow = other;
                    break;
                }
                Err(e) => {
                    self.end_scope(b);
                    return Err(e);
                }
            }
        }
        self.end_scope(b);
        Ok(flow)
    }

    /// Destroys the locals a block declared (views release their data).
    pub(crate) fn end_scope(&mut self, b: &Block) {
        for s in &b.stmts {
            if let StmtKind::Let { local, .. } = s.kind {
                let frame = self.frame_mut();
                if let Some(slot) = frame.locals.get_mut(local.index()) {
                    *slot = Value::Void;
                }
            }
        }
    }

    pub(crate) fn exec_stmt(&mut self, s: &Stmt) -> Res<Flow> {
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(e)?;
            }
            StmtKind::Let { local, init } => self.exec_let(*local, init.as_ref(), s.span)?,
            StmtKind::Block(b) => {
                if self.engine.is_some()
                    && !self.in_kernel
                    && self
                        .host
                        .stack
                        .last()
                        .and_then(|f| f.func)
                        .is_some_and(|f| crate::offload::iterator_loop(self.prog.function(f), b))
                    && let Some(flow) = self.offload_host(s)
                {
                    return flow;
                }
                return self.exec_block(b);
            }
            StmtKind::If { cond, then, els } => {
                if self.eval(cond)?.truth() {
                    return self.exec_block(then);
                } else if let Some(els) = els {
                    return self.exec_block(els);
                }
            }
            StmtKind::Loop {
                cond,
                test_first,
                body,
                step,
            } => {
                // A host loop the engine compiles runs there, whole.
                if self.engine.is_some()
                    && !self.in_kernel
                    && let Some(flow) = self.offload_host(s)
                {
                    return flow;
                }
                if let Some(fast) = self.fast_loop(s) {
                    return fast(self);
                }
                let mut first = true;
                loop {
                    self.tick(s.span)?;
                    if (*test_first || !first)
                        && let Some(c) = cond
                        && !self.eval(c)?.truth()
                    {
                        break;
                    }
                    first = false;
                    match self.exec_block(body)? {
                        Flow::Break => break,
                        r @ (Flow::Return(_) | Flow::Goto(_)) => return Ok(r),
                        Flow::Normal | Flow::Continue => {}
                    }
                    if let Some(step) = step {
                        self.eval(step)?;
                    }
                }
            }
            StmtKind::Switch { value, arms } => {
                let v = self.eval(value)?.int();
                let start = arms
                    .iter()
                    .position(|a| a.value == Some(v))
                    .or_else(|| arms.iter().position(|a| a.value.is_none()));
                if let Some(start) = start {
                    for arm in &arms[start..] {
                        match self.exec_block(&arm.body)? {
                            Flow::Normal => {}
                            Flow::Break => break,
                            other => return Ok(other),
                        }
                    }
                }
            }
            StmtKind::Try { body, handlers } => return self.exec_try(body, handlers),
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Goto(label) => return Ok(Flow::Goto(*label)),
            StmtKind::Label(_) => {}
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.return_value(e)?,
                    None => Value::Void,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Barrier(_) => {
                return Err(self
                    .error(
                        codes::R0008,
                        s.span,
                        "this barrier cannot be reached in step with the rest of the tile",
                    )
                    .with_label("barrier")
                    .with_note("Tessera runs a function that waits at a barrier when every work-item of the tile calls it: as a statement, or in an expression that always evaluates the call (not on the right of `&&`, `||` or a comma, in a branch of `?:` or in the target of an assignment)")
                    .into());
            }
        }
        Ok(Flow::Normal)
    }

    /// The value a `return` gives: a place for functions returning a reference.
    pub(crate) fn return_value(&mut self, e: &Expr) -> Res<Value> {
        let func = self.current_fn();
        if func.is_some_and(|f| self.prog.function(f).ret_by_ref) {
            return Ok(Value::Ref(Rc::new(self.place(e)?)));
        }
        let v = self.eval(e)?;
        self.copy_value(v, &e.ty, e.span)
    }

    pub(crate) fn exec_let(&mut self, local: LocalId, init: Option<&Init>, span: Span) -> Res<()> {
        let Some(func) = self.current_fn() else {
            return Ok(());
        };
        let decl = self.prog.function(func).local(local);
        let ty = decl.ty.clone();
        if decl.space == tessera_ir::Space::TileStatic {
            // One instance per tile, made when the tile starts.
            return Ok(());
        }
        let v = match init {
            Some(init) => self.init_value(init, &ty, span)?,
            None => self.zero_value(&ty, span)?,
        };
        self.set_local(local, v);
        Ok(())
    }

    // ----- calls -----

    /// The function running in the current frame.
    pub(crate) fn current_fn(&mut self) -> Option<FuncId> {
        self.strand().stack.last().and_then(|f| f.func)
    }

    /// Pushes a frame for `func` with its arguments.
    /// Bytes of native stack the interpreter uses now.
    pub(crate) fn stack_used(&self) -> u64 {
        self.stack_base.saturating_sub(stack_address()) as u64
    }

    pub(crate) fn enter(&mut self, func: FuncId, args: Vec<Value>, span: Span) -> Res<()> {
        let limit = self.opts.limits.max_call_depth;
        if self.depth >= limit {
            return Err(self
                .error(
                    codes::R0011,
                    span,
                    format!("more than {limit} nested calls: the call stack is too deep"),
                )
                .with_label("called here")
                .with_help("look for recursion that never reaches its base case")
                .into());
        }
        let used = self.stack_base.saturating_sub(stack_address()) as u64;
        if used > self.opts.limits.max_stack {
            return Err(self
                .error(
                    codes::R0011,
                    span,
                    format!(
                        "{} nested calls use more than the {} of stack the interpreter may use",
                        self.depth,
                        human_bytes(self.opts.limits.max_stack)
                    ),
                )
                .with_label("called here")
                .with_help("look for recursion that never reaches its base case")
                .into());
        }
        self.tick(span)?;
        self.take_memory(self.frame_bytes[func.index()], span)?;
        self.depth += 1;
        let f: &Function = self.prog.function(func);
        let mut locals = args;
        locals.resize(f.locals.len(), Value::Void);
        self.generations += 1;
        let generation = self.generations;
        self.strand().stack.push(Frame {
            func: Some(func),
            locals,
            generation,
        });
        Ok(())
    }

    /// Pops the current frame.
    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        if let Some(Some(func)) = self.strand().stack.pop().map(|f| f.func) {
            self.meter.give(self.frame_bytes[func.index()]);
        }
    }

    /// Calls a user function with evaluated arguments.
    pub(crate) fn call(&mut self, func: FuncId, args: Vec<Value>, span: Span) -> Res<Value> {
        let prog = self.prog;
        let f = prog.function(func);
        let Some(body) = &f.body else {
            return Ok(Value::Void);
        };
        self.enter(func, args, span)?;
        let r = self.exec_block(body);
        self.leave();
        match r? {
            Flow::Return(v) => Ok(v),
            _ if f.ret != Type::Void && !f.ret.is_error() && f.name != "main" => {
                Err(self.ended_without_value(func, span))
            }
            _ => Ok(Value::Void),
        }
    }

    /// R0027: a function that returns a value reached the end of its body,
    /// which C++ leaves undefined once its value is used (and `main` alone
    /// may do, returning 0).
    pub(crate) fn ended_without_value(&self, func: FuncId, span: Span) -> Stop {
        let f = self.prog.function(func);
        self.error(
            codes::R0027,
            span,
            format!(
                "`{}` ended without returning a value",
                f.name
            ),
        )
        .with_label("called here")
        .with_secondary(f.span, "the function, which returns a value")
        .with_note("reaching the end of a function that returns a value, other than `main`, is undefined behaviour in C++")
        .with_help("end every path through the function with `return value;`")
        .into()
    }

    /// Evaluates the arguments of a call of `func`.
    pub(crate) fn call_args(&mut self, func: FuncId, args: &[Expr]) -> Res<Vec<Value>> {
        let prog = self.prog;
        let f = prog.function(func);
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let by_ref = f.locals.get(i).is_some_and(|l| l.by_ref);
            if by_ref {
                out.push(Value::Ref(Rc::new(self.place(a)?)));
            } else {
                let v = self.eval(a)?;
                let ty = f.locals.get(i).map_or(&a.ty, |l| &l.ty);
                out.push(self.copy_value(v, ty, a.span)?);
            }
        }
        Ok(out)
    }
}

/// Where the native stack is now: the address of a local. The stack grows
/// down on every platform Tessera runs on.
#[inline(never)]
/// The struct id of a union type (one past every id for another type).
fn union_id(ty: &Type) -> tessera_ir::StructId {
    match ty {
        Type::Struct(id) => *id,
        _ => tessera_ir::StructId(u32::MAX),
    }
}

fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Bytes as people read them.
pub(crate) fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// How many elements a bulk operation (a fill, `iota`) handles between two
/// checks of the time limit.
pub(crate) const POLL_CHUNK: usize = 1 << 16;
