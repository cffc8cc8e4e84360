//! Links the `tessera` binary as a position-dependent executable.
//!
//! A position-independent one has its 14,000 pointers in read-only data
//! (the parser's tables, every trait object's vtable) patched by the
//! dynamic loader at each start, which writes to 58 pages and doubled
//! `tessera --version`'s CPU time (2.4 ms against 1.1 here). Linked at a
//! fixed address, those pointers are final in the file. What is given up
//! is the random placement of the program's own code; the libraries,
//! stack, heap and the JIT's code stay randomised.

fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
