//! The lock of an endpoint's matching state (and of its epochs in a window): a spin lock whose
//! unlock is a plain store.
//!
//! An endpoint's queues are locked by its own thread on every receive and almost never by
//! anyone else, so the lock is uncontended and its cost is its atomic instructions.
//! `parking_lot`'s unlock is a read-modify-write (it must look for parked threads), a full
//! barrier on x86 that cost as much as the lock; this one releases with a store. Waiters spin
//! briefly, then yield (many endpoints may share few cores), and say they are waiting, so a
//! holder that keeps the lock across a polling loop hands it over ([`RawSpinLock::bump`]).
//! Built on `lock_api` (re-exported by `parking_lot`) for the guard types.

use parking_lot::lock_api::{GuardSend, RawMutex, RawMutexFair};
use std::sync::atomic::{AtomicU8, Ordering};

const LOCKED: u8 = 1;
/// Set by a thread waiting for the lock; cleared by every unlock.
const WANTED: u8 = 2;

/// The raw lock: one byte, LOCKED and WANTED bits.
pub struct RawSpinLock {
    state: AtomicU8,
}

/// A mutex with the spin lock (guards as `parking_lot`'s).
pub type SpinMutex<T> = parking_lot::lock_api::Mutex<RawSpinLock, T>;

/// A held [`SpinMutex`].
pub type SpinGuard<'a, T> = parking_lot::lock_api::MutexGuard<'a, RawSpinLock, T>;

impl RawSpinLock {
    #[cold]
    fn lock_contended(&self) {
        let mut spins = 0u32;
        loop {
            let s = self.state.load(Ordering::Relaxed);
            if s & LOCKED == 0 {
                if self
                    .state
                    .compare_exchange_weak(s, LOCKED, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return;
                }
                continue;
            }
            if s & WANTED == 0 {
                self.state.fetch_or(WANTED, Ordering::Relaxed);
            }
            if spins < 64 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

// SAFETY: `lock` returns only once this thread changed the state from unlocked to LOCKED
// (acquire); `unlock` releases with a release store; so one holder at a time.
unsafe impl RawMutex for RawSpinLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: RawSpinLock = RawSpinLock {
        state: AtomicU8::new(0),
    };
    type GuardMarker = GuardSend;

    #[inline]
    fn lock(&self) {
        if self
            .state
            .compare_exchange_weak(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.lock_contended();
        }
    }

    #[inline]
    fn try_lock(&self) -> bool {
        self.state
            .compare_exchange(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    #[inline]
    unsafe fn unlock(&self) {
        self.state.store(0, Ordering::Release);
    }
}

// SAFETY: as above; `bump` releases and takes the lock again.
unsafe impl RawMutexFair for RawSpinLock {
    #[inline]
    unsafe fn unlock_fair(&self) {
        self.unlock();
    }

    /// Hands the lock over if another thread waits for it (a load otherwise).
    #[inline]
    unsafe fn bump(&self) {
        if self.state.load(Ordering::Relaxed) & WANTED != 0 {
            self.unlock();
            std::thread::yield_now();
            self.lock();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SpinMutex;
    use std::sync::Arc;

    #[test]
    fn counts_under_contention_and_bump_hands_over() {
        let m = Arc::new(SpinMutex::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for i in 0..20_000 {
                        let mut g = m.lock();
                        *g += 1;
                        if i % 100 == 0 {
                            parking_lot::lock_api::MutexGuard::bump(&mut g);
                            *g += 1;
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*m.lock(), 4 * (20_000 + 200));
    }

    #[test]
    fn holder_in_a_polling_loop_lets_a_waiter_in() {
        let m = Arc::new(SpinMutex::new(false));
        let mut g = m.lock();
        let waiter = {
            let m = m.clone();
            std::thread::spawn(move || *m.lock() = true)
        };
        // The holder polls with the lock held, bumping: the waiter must get in.
        while !*g {
            parking_lot::lock_api::MutexGuard::bump(&mut g);
        }
        drop(g);
        waiter.join().unwrap();
    }
}
