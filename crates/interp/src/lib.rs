//! The reference interpreter.
//!
//! Runs a checked [`Program`] exactly as C++ AMP defines it: host code and
//! kernels, tiles with their `tile_static` memory and barriers, `std::cout`
//! output byte for byte as libstdc++ writes it. Undefined behaviour that C++
//! would let pass silently (signed overflow, out-of-bounds access, barrier
//! divergence) stops the run with a [`RunError`]; with [`Options::check`],
//! races and other hazards are reported as findings while the run goes on.
//!
//! The interpreter is single-threaded and deterministic: tiles run one after
//! another, and a tile's work-items run in lock-step between barriers (see
//! the `kernel` module). No IO but the output sink and the input it is
//! given (a REPL session has no input: `std::cin` is at its end).

mod algorithm;
mod arith;
mod check;
mod clib;
mod device;
mod dynamic;
mod exceptions;
mod expr;
mod fast;
mod hashtable;
mod kernel;
mod library;
mod machine;
mod offload;
mod pointer;
mod pun;
mod random;
mod records;
mod show;
mod sstream;
mod value;

use std::io::Write;
use tessera_ir::Program;
use tessera_runtime::{Limits, RunError};

/// How to run a program.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Run the dynamic checks (`--check`).
    pub check: bool,
    /// Memory, time and stack limits.
    pub limits: Limits,
}

/// How a run ended.
#[derive(Debug)]
pub struct Outcome {
    /// `main`'s return value, or [`tessera_runtime::EXIT_RUNTIME_ERROR`].
    pub exit_code: i32,
    /// The error that stopped the run.
    pub error: Option<RunError>,
    /// What `--check` found, in order.
    pub findings: Vec<RunError>,
    /// What the program wrote to `stderr` (`fprintf(stderr, ...)`), in order.
    pub stderr: Vec<u8>,
}

/// Runs `program`, writing its standard output to `out`.
pub fn run(program: &Program, options: &Options, out: &mut dyn Write) -> Outcome {
    machine::Machine::new(program, *options, out).run()
}

/// Runs `program`, offering each kernel launch to `engine` first; the
/// interpreter runs host code, and every launch the engine declines or stops
/// in (see [`tessera_runtime::launch`]). Without `--check` only: the checks
/// watch every access, which only the interpreter sees.
pub fn run_with_engine(
    program: &Program,
    options: &Options,
    out: &mut dyn Write,
    engine: &mut dyn tessera_runtime::launch::KernelEngine,
) -> Outcome {
    let mut m = machine::Machine::new(program, *options, out);
    if !options.check {
        m.engine = Some(engine);
    }
    m.run()
}

/// Runs `program` as [`run_with_engine`] does (the interpreter alone when
/// `engine` is `None`), reading its standard input (`std::cin`,
/// `getchar`) from `input` as the program asks for it. Standard output is
/// flushed to `out` before each read, as `std::cin` is tied to
/// `std::cout`, so a prompt shows before the program waits.
pub fn run_with_input<'p>(
    program: &'p Program,
    options: &Options,
    out: &'p mut dyn Write,
    input: &'p mut dyn std::io::BufRead,
    engine: Option<&'p mut dyn tessera_runtime::launch::KernelEngine>,
) -> Outcome {
    let mut m = machine::Machine::new(program, *options, out);
    m.input = Some(input);
    if !options.check {
        m.engine = engine;
    }
    m.run()
}

/// A value shown by the REPL.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// The value as text; several lines for a rank-2 view, array or tile map.
    pub text: String,
    /// Its type as C++ writes it.
    pub ty: String,
}

/// How one REPL input ended.
#[derive(Debug)]
pub struct SessionOutcome {
    /// The value of the input's last expression statement, if it has one.
    pub shown: Option<Shown>,
    /// The error that stopped the input.
    pub error: Option<RunError>,
    /// What `--check` found.
    pub findings: Vec<RunError>,
    /// What the input wrote to `stderr`.
    pub stderr: Vec<u8>,
}

/// A REPL session: globals and `main`'s locals live on between inputs.
///
/// Each input is checked as a whole program (every accepted declaration,
/// then a `main` holding every accepted statement); lowering is
/// deterministic, so the program of the next input begins with the same
/// globals and statements, and only the new ones run.
#[derive(Debug, Default)]
pub struct Session {
    options: Options,
    saved: Option<machine::Saved>,
    interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Session {
    /// A new, empty session.
    pub fn new(options: Options) -> Session {
        Session {
            options,
            saved: None,
            interrupt: None,
        }
    }

    /// A flag that, once set (by a Ctrl-C handler, say), stops the input
    /// running with an R0012 error within a few thousand steps; the run
    /// clears it.
    pub fn set_interrupt(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// The options inputs run with.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Changes the options for later inputs (`:check on`).
    pub fn set_options(&mut self, options: Options) {
        self.options = options;
    }

    /// Initialises globals `first_global..` of `program`, then runs `main`'s
    /// top-level statements `first_stmt..` in main's persistent frame. When
    /// the last of them is an expression statement with a value (not `void`,
    /// not the stream), its value is returned, shown.
    pub fn run(
        &mut self,
        program: &Program,
        first_global: usize,
        first_stmt: usize,
        out: &mut dyn Write,
    ) -> SessionOutcome {
        self.run_with_engine(program, first_global, first_stmt, out, None)
    }

    /// [`Session::run`], offering each kernel launch to `engine` first (see
    /// [`run_with_engine`]; not with `--check`).
    pub fn run_with_engine<'p>(
        &mut self,
        program: &'p Program,
        first_global: usize,
        first_stmt: usize,
        out: &'p mut dyn Write,
        engine: Option<&'p mut dyn tessera_runtime::launch::KernelEngine>,
    ) -> SessionOutcome {
        let mut m = machine::Machine::resume(program, self.options, out, self.saved.take());
        if !self.options.check {
            m.engine = engine;
        }
        m.interrupt = self.interrupt.clone();
        let result = m.run_part(first_global, first_stmt);
        m.flush();
        let findings = std::mem::take(&mut m.checker.findings);
        let stderr = std::mem::take(&mut m.clib.stderr);
        // `exit` in a session ends the input, which is kept.
        let result = match (result, m.clib.exit) {
            (Err(_), Some(_)) => Ok(None),
            (r, _) => r,
        };
        self.saved = Some(m.save());
        match result {
            Ok(shown) => SessionOutcome {
                shown,
                error: None,
                findings,
                stderr,
            },
            Err(e) => {
                if let Some(saved) = &mut self.saved {
                    saved.forget_globals_from(first_global);
                }
                SessionOutcome {
                    shown: None,
                    error: Some(*e),
                    findings,
                    stderr,
                }
            }
        }
    }
}
