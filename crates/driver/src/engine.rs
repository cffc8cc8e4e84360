//! Which engine runs a program's kernels, decided in one place.
//!
//! Host code always runs in the interpreter. Kernel launches (and the host
//! loops it can compile) go to the Cranelift JIT when it is chosen and the
//! dynamic checks (`--check`, `:check on`) are off: the checks watch every
//! access, which only the interpreter sees. A launch the JIT declines or
//! fails in is run by the interpreter, so both engines answer alike.

use std::io::{BufRead, Write};
use std::sync::Arc;
use tessera_interp::{Options, Outcome};
use tessera_ir::Program;
use tessera_jit::{CodeStore, Jit};

/// The engine chosen for kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The Cranelift JIT: kernels (and the host loops it can compile) run as
    /// native code, everything else in the interpreter.
    #[default]
    Jit,
    /// The reference interpreter alone.
    Interp,
}

impl Engine {
    /// The engine's name on the command line and in the REPL (`:engine`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Jit => "jit",
            Engine::Interp => "interp",
        }
    }
}

/// Whether launches run with the JIT: it is chosen and the dynamic checks,
/// which only the interpreter makes, are off. The only place that decides.
pub fn uses_jit(engine: Engine, options: &Options) -> bool {
    engine == Engine::Jit && !options.check
}

/// The kernel engine for a run of `program` with `threads` workers, or
/// `None` when the interpreter runs everything (see [`uses_jit`]). With a
/// `store`, machine code is kept there and taken from it (see
/// [`Jit::keep_code_in`]).
pub fn kernel_engine<'p>(
    program: &'p Program,
    engine: Engine,
    options: &Options,
    threads: usize,
    store: Option<&Arc<dyn CodeStore>>,
) -> Option<Jit<'p>> {
    uses_jit(engine, options).then(|| {
        let mut jit = Jit::new(program, threads);
        if let Some(store) = store {
            jit.keep_code_in(Arc::clone(store));
        }
        jit.compile_ahead();
        jit
    })
}

/// What a whole run gave.
#[derive(Debug)]
pub struct Ran {
    /// The interpreter's answer: exit status, run-time error, findings.
    pub outcome: Outcome,
    /// The JIT's counts and timings, when it ran the kernels.
    pub jit: Option<tessera_jit::Stats>,
}

/// Runs `program` to the end with `engine` for its kernels (`threads`
/// workers under the JIT); its output goes to `out`, and its standard
/// input (`std::cin`, `getchar`) is read from `input` as it asks.
/// Compiled code is kept in `store`, when given, for later runs.
pub fn run(
    program: &Program,
    engine: Engine,
    threads: usize,
    options: &Options,
    out: &mut dyn Write,
    input: &mut dyn BufRead,
    store: Option<&Arc<dyn CodeStore>>,
) -> Ran {
    match kernel_engine(program, engine, options, threads, store) {
        Some(mut jit) => {
            let outcome =
                tessera_interp::run_with_input(program, options, out, input, Some(&mut jit));
            Ran {
                outcome,
                jit: Some(jit.stats()),
            }
        }
        None => Ran {
            outcome: tessera_interp::run_with_input(program, options, out, input, None),
            jit: None,
        },
    }
}
