//! The plan: facts about a kernel computed as data before any code is
//! emitted (uniformity, value ranges, which locals are read and written),
//! with no Cranelift types, so they can be tested on small programs.

pub(crate) mod facts;
pub(crate) mod frame;
pub(crate) mod lanes;
pub(crate) mod locals;
pub(crate) mod loops;
pub(crate) mod ranges;
pub(crate) mod regions;
pub(crate) mod uniform;

#[cfg(test)]
mod tests;
