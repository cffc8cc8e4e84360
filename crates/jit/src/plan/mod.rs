//! The plan: what the JIT decides about a kernel, as data with no Cranelift
//! types, so it can be tested on small programs (`tests.rs`).
//!
//! - [`regions`]: the barrier split, and each region's frame loads and stores;
//! - [`frame`]: frame slots of the locals that live across barriers;
//! - [`uniform`]: uniform counters, conditions and steps;
//! - [`facts`]: what is known of the kernel's locals, value ranges;
//! - [`loops`]: the counted-loop recogniser, polls and their charges;
//! - [`host`]: where a compiled host loop leaves the rest to the interpreter;
//! - [`work`]: whether a host loop does too little work to compile;
//! - [`pointers`]: which pointers compiled code keeps (as references);
//! - [`lanes`]: which regions run work-items interleaved, what lanes share;
//! - [`fold`]: calls of one-expression functions folded for the lanes;
//! - [`outline`]: functions compiled once and called, for kernels too
//!   large to inline whole;
//! - [`locals`], [`ranges`]: which locals a block reads and writes; integer
//!   limits and constants.
//!
//! The frame plan is made before the kernel's body is emitted; the split,
//! lane shape and counted loops are decided per block as the emitters reach
//! it, and value ranges are recorded as declarations are met (a range
//! depends on the inlined call, so it is keyed by the call's scope id).

pub(crate) mod facts;
pub(crate) mod fold;
pub(crate) mod frame;
pub(crate) mod growth;
pub(crate) mod host;
pub(crate) mod lanes;
pub(crate) mod locals;
pub(crate) mod loops;
pub(crate) mod outline;
pub(crate) mod pointers;
pub(crate) mod ranges;
pub(crate) mod regions;
pub(crate) mod uniform;
pub(crate) mod vector;
pub(crate) mod work;

#[cfg(test)]
mod tests;
