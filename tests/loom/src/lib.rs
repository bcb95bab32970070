//! Model checks of EPMPI's lock-free structures with `loom`: the source files themselves are
//! compiled here with loom's atomics (see their `sync` modules).

#[path = "../../../src/engine/spsc.rs"]
pub mod spsc;

#[cfg(test)]
mod tests;
