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
//! the `kernel` module). No IO but the output sink it is given.

mod arith;
mod check;
mod expr;
mod kernel;
mod library;
mod machine;
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
}

/// Runs `program`, writing its standard output to `out`.
pub fn run(program: &Program, options: &Options, out: &mut dyn Write) -> Outcome {
    machine::Machine::new(program, *options, out).run()
}
