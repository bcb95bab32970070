//! Model checks of EPMPI's lock-free structures with `loom`: the source files themselves are
//! compiled here with loom's atomics and cells (see `src/engine/sync.rs`), under the module
//! paths they use in the library (`crate::engine::sync`, `crate::error`, `crate::ep_err`).

#[path = "../../../src/engine/sync.rs"]
pub mod sync;

#[path = "../../../src/engine/spsc.rs"]
pub mod spsc;

#[path = "../../../src/engine/inbox.rs"]
pub mod inbox;

#[path = "../../../src/engine/transport/landing.rs"]
pub mod landing;

#[path = "../../../src/engine/coll/board.rs"]
pub mod board;

/// The library's `crate::engine` as far as the included files need it.
pub mod engine {
    pub use crate::spsc;
    pub use crate::sync;
}

/// The library's `crate::error` as far as the board needs it (`src/error.rs` itself
/// registers messages for the C interface, which the models do not need).
pub mod error {
    /// An engine error: class and message, as in the library.
    #[derive(Debug, Clone, PartialEq)]
    pub struct EpError {
        pub class: i32,
        pub msg: String,
    }

    /// The library's result type.
    pub type EpResult<T> = Result<T, EpError>;

    /// The class the board gives collectives that do not match.
    pub const ERR_OTHER: i32 = 19;
}

/// The library's `ep_err!`: an [`error::EpError`] of a class and a formatted message.
#[macro_export]
macro_rules! ep_err {
    ($class:expr, $($fmt:tt)*) => { $crate::error::EpError { class: $class, msg: format!($($fmt)*) } };
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod board_tests;

#[cfg(test)]
mod inbox_tests;

#[cfg(test)]
mod landing_tests;
