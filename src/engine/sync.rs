//! The synchronisation primitives of the engine's model-checked files (`spsc.rs`,
//! `coll/board.rs`): `std`'s and `parking_lot`'s in the library; `loom`'s when `tests/loom`
//! compiles those files with `cfg(loom)`, so that loom explores the interleavings of their
//! atomics and checks every access to their cells. In the library these are the plain types
//! (or wrappers that inline to them): the switch costs nothing.

#[cfg(not(loom))]
mod imp {
    pub use crate::engine::backoff::Backoff;
    pub use crate::engine::doorbell::Doorbell;
    pub use crate::engine::share::WorkList;
    pub use parking_lot::Mutex;
    pub use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU16, AtomicU32, AtomicU64, Ordering};

    /// `std`'s cell with the access API of `loom::cell::UnsafeCell`.
    pub struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        /// A cell holding `v`.
        pub fn new(v: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(v))
        }

        /// Runs `f` with a pointer for reading the contents (loom checks the read).
        #[inline(always)]
        pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Runs `f` with a pointer for writing the contents (loom checks the write).
        #[inline(always)]
        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

#[cfg(loom)]
mod imp {
    pub use loom::cell::UnsafeCell;
    pub use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU16, AtomicU32, AtomicU64, Ordering};

    /// `loom`'s mutex with `parking_lot`'s API (no poisoning).
    pub struct Mutex<T>(loom::sync::Mutex<T>);

    impl<T> Mutex<T> {
        /// A mutex holding `v`.
        pub fn new(v: T) -> Self {
            Mutex(loom::sync::Mutex::new(v))
        }

        /// Locks it (loom explores who gets it first).
        pub fn lock(&self) -> loom::sync::MutexGuard<'_, T> {
            self.0.lock().unwrap()
        }
    }

    /// The engine's spin-then-yield waiting, in a model: every wait yields at once, which
    /// tells loom that this thread cannot go on until another one runs.
    #[derive(Default)]
    pub struct Backoff;

    impl Backoff {
        /// A fresh wait.
        pub fn new() -> Self {
            Backoff
        }

        /// One more turn of a wait.
        pub fn snooze(&mut self) {
            loom::thread::yield_now();
        }

        /// One more turn of a wait that `_bell` announces: as `snooze` (a model never parks).
        pub fn snooze_on(&mut self, _bell: &Doorbell) {
            loom::thread::yield_now();
        }
    }

    /// The engine's doorbell, in a model: waiters never park, so ringing does nothing.
    #[derive(Default)]
    pub struct Doorbell;

    impl Doorbell {
        /// A bell.
        pub fn new() -> Self {
            Doorbell
        }

        /// Rings nobody.
        pub fn ring(&self) {}
    }

    /// The engine's work list (`engine::share`), in a model: no job is ever listed, so a
    /// waiter that offers help finds none. Braced, not a unit struct, so that the board builds
    /// it with `WorkList::default()` as it does the engine's.
    #[derive(Default)]
    pub struct WorkList {}

    impl WorkList {
        /// Finds nothing to do.
        pub fn help(&self) -> bool {
            false
        }
    }
}

pub use imp::*;
