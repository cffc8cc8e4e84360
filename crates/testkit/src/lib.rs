//! Support shared by Tessera's tests and benchmarks. Not part of the compiler:
//! the crates use it only as a dev-dependency.
//!
//! - [`samples`]: the sample programs of `samples/`, and the paths of the
//!   workspace (where a failing test leaves its reproducer).
//! - [`mutate`]: a deterministic PRNG ([`mutate::Rng`]) and byte- and
//!   token-level mutation of sources, for fuzz-style property tests; the same
//!   seed always gives the same mutants.
//! - [`semantic`]: mutations that keep a program's syntax valid but change
//!   its meaning (names, literals, restrictions, barriers, captures, tile
//!   sizes, declarations), so that mutants get past the parser and exercise
//!   the checker.
//! - [`generate`]: a generator of large, realistic programs for benchmarks.
//! - [`programs`]: a generator of random, well-defined programs for
//!   differential testing against the C++ oracle.
//! - [`harness`]: panic counting, span validation, numbers from the
//!   environment and median timing.

pub mod generate;
pub mod harness;
pub mod mutate;
pub mod programs;
pub mod samples;
pub mod semantic;
