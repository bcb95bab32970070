//! Counts of live engine objects, for leak checks (`EP_Debug_live_objects`).
//!
//! Handle tables count handles; these count the objects behind them, which outlive their
//! handles while something else still holds them (a freed communicator's shared state while
//! a request or another endpoint uses it, a freed active request until progress completes
//! it). A count that stays above zero after everything is freed is a leak, for example a
//! reference cycle between a communicator and the requests it keeps.
//!
//! Every nonblocking call makes a request, so counting must not put one shared cache line on
//! that path: each counter is split into cache-line shards, a thread counts on its own shard
//! and an object uncounts on the shard that counted it (from any thread); a query sums them.

use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

const SHARDS: usize = 32;

#[repr(align(64))]
struct Shard(AtomicIsize);

/// A count of live objects of one kind.
pub struct Counter([Shard; SHARDS]);

impl Counter {
    const fn new() -> Counter {
        Counter([const { Shard(AtomicIsize::new(0)) }; SHARDS])
    }

    /// Objects alive now (a snapshot).
    pub fn live(&self) -> usize {
        self.0.iter().map(|s| s.0.load(Ordering::Relaxed)).sum::<isize>().max(0) as usize
    }
}

/// Shared states of endpoint communicators (each owns host communicators).
pub static COMM_STATES: Counter = Counter::new();
/// Request objects (active or complete, with or without a handle).
pub static REQUESTS: Counter = Counter::new();
/// Shared states of windows (each owns host windows).
pub static WIN_STATES: Counter = Counter::new();

/// The shard of the calling thread, given out round robin on its first count.
fn my_shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS;
    }
    SHARD.try_with(|s| *s).unwrap_or(0)
}

/// A member of the object it counts: counts one on creation, uncounts on drop.
pub struct Counted(&'static AtomicIsize);

impl Counted {
    pub fn new(counter: &'static Counter) -> Counted {
        let shard = &counter.0[my_shard()].0;
        shard.fetch_add(1, Ordering::Relaxed);
        Counted(shard)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_across_threads_and_shards() {
        static C: Counter = Counter::new();
        let mine: Vec<Counted> = (0..3).map(|_| Counted::new(&C)).collect();
        let theirs: Vec<Counted> = std::thread::spawn(|| (0..5).map(|_| Counted::new(&C)).collect()).join().unwrap();
        assert_eq!(C.live(), 8);
        // Dropped on another thread than the one that counted them.
        std::thread::spawn(move || drop(theirs)).join().unwrap();
        assert_eq!(C.live(), 3);
        drop(mine);
        assert_eq!(C.live(), 0);
    }
}
