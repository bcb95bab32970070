//! Model checks of EPMPI's lock-free structures with `loom`: the source files themselves are
//! compiled here with loom's atomics and cells (see `src/engine/sync.rs`), under the module
//! paths they use in the library (`crate::engine::sync`).

#[path = "../../../src/engine/sync.rs"]
pub mod sync;

#[path = "../../../src/engine/spsc.rs"]
pub mod spsc;

/// The library's `crate::engine` as far as the included files need it.
pub mod engine {
    pub use crate::sync;
}

#[cfg(test)]
mod tests;

