//! What both engines share at run time: C++ `std::cout` formatting
//! ([`format`]), run-time errors and the limits a run is held to.
//!
//! Both engines format output and report failures through this crate, so the
//! two agree on every byte they print by construction.

pub mod error;
pub mod format;
pub mod launch;
pub mod layout;
pub mod math;
mod pages;
pub mod printf;
pub mod rand;
pub mod random;
pub mod union_tags;

pub use error::{EXIT_RUNTIME_ERROR, LibraryException, Limits, RunError, Thread, parse_size};
