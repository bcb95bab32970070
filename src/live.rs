//! Counts of live engine objects, for leak checks (`EP_Debug_live_objects`).
//!
//! Handle tables count handles; these count the objects behind them, which outlive their
//! handles while something else still holds them (a freed communicator's shared state while
//! a request or another endpoint uses it, a freed active request until progress completes
//! it). A count that stays above zero after everything is freed is a leak, for example a
//! reference cycle between a communicator and the requests it keeps.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Shared states of endpoint communicators (each owns host communicators).
pub static COMM_STATES: AtomicUsize = AtomicUsize::new(0);
/// Request objects (active or complete, with or without a handle).
pub static REQUESTS: AtomicUsize = AtomicUsize::new(0);
/// Shared states of windows (each owns host windows).
pub static WIN_STATES: AtomicUsize = AtomicUsize::new(0);

/// A member of the object it counts: counts one on creation, uncounts on drop.
pub struct Counted(&'static AtomicUsize);

impl Counted {
    pub fn new(counter: &'static AtomicUsize) -> Counted {
        counter.fetch_add(1, Ordering::Relaxed);
        Counted(counter)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for Counted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Counted")
    }
}
