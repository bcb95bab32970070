//! Spin-then-yield waiting for blocking calls, and the hook that keeps the process progressing
//! while a patient waiter yields.
//!
//! Every blocking wait of the engine uses this (point-to-point, the collectives' board, direct
//! mode, the model-checked primitives through [`super::sync`]), so it sits below them all and
//! knows none of them. What a patient waiter progresses (posted receives of every endpoint,
//! direct-mode queues, orphaned operations) lives above: the engine registers it once, as a
//! function, when the process creates its first communicator (see [`on_patience`]); the call
//! through it is on the cold path, once a waiter has spun long enough to yield.

use std::sync::OnceLock;

/// What a patient waiter runs before it yields (see [`on_patience`]).
static PATIENCE: OnceLock<fn()> = OnceLock::new();

/// Registers `f`, the progress every patient waiter of the process makes before yielding
/// (MPI's progress rule: a posted receive and its matching send complete whatever else the
/// receiver does, MPI 4.1 section 3.5). The first registration stays; later ones are ignored.
pub fn on_patience(f: fn()) {
    let _ = PATIENCE.set(f);
}

/// Spin-then-yield backoff for blocking calls: many endpoints may share few cores, so a
/// waiting thread must let the one it waits for run. Not `crossbeam_utils::Backoff`: that one
/// has neither the progress hook nor separate patience for host polls, each of which is a
/// long wait by itself, and for spins on memory.
pub struct Backoff(u32);

/// Turns a waiter spins before yielding: after host polls (each long enough by itself)...
const PATIENCE_POLLING: u32 = 1024;
/// ...and on memory alone.
const PATIENCE_SPINNING: u32 = 64;

impl Backoff {
    pub fn new() -> Self {
        Backoff(0)
    }

    /// After a host poll, which takes long enough by itself: only yield once patient.
    #[inline]
    pub fn snooze_after_polling(&mut self) {
        if self.0 < PATIENCE_POLLING {
            self.0 += 1;
        } else {
            Self::yield_now();
        }
    }

    /// One turn of a spin that keeps a lock held: true while still patient (poll again at
    /// once, after a pause hint unless the turn polled the host), false once the caller should
    /// release its locks and `snooze`, which then yields.
    #[inline]
    pub fn keep_spinning(&mut self, polled_host: bool) -> bool {
        let patience = if polled_host {
            PATIENCE_POLLING
        } else {
            PATIENCE_SPINNING
        };
        if self.0 >= patience {
            return false;
        }
        if !polled_host {
            std::hint::spin_loop();
        }
        self.0 += 1;
        true
    }

    #[inline]
    pub fn snooze(&mut self) {
        if self.0 < PATIENCE_SPINNING {
            std::hint::spin_loop();
            self.0 += 1;
        } else {
            Self::yield_now();
        }
    }

    /// Once patient: keep the process progressing (the registered [`on_patience`] function),
    /// take a share of the work of the calling thread's endpoint team, if any (docs/teams.md),
    /// then let others run.
    #[cold]
    fn yield_now() {
        if let Some(f) = PATIENCE.get() {
            f();
        }
        super::share::help_current();
        std::thread::yield_now();
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}
