//! Spin-then-yield waiting for blocking calls (spin-then-park under the passive wait policy,
//! for waits another thread of the process ends: [`super::doorbell`]), and the hook that keeps
//! the process progressing while a patient waiter yields or parks.
//!
//! Every blocking wait of the engine uses this (point-to-point, the collectives' board, direct
//! mode, the model-checked primitives through [`super::sync`]), so it sits below them all and
//! knows none of them. What a patient waiter progresses (posted receives of every endpoint,
//! direct-mode receives, orphaned operations) lives above: the engine registers it once, as a
//! function, when the process creates its first communicator (see [`on_patience`]); the call
//! through it is on the cold path, once a waiter has spun long enough to yield.

use super::doorbell::{self, Doorbell, PARK_TIMEOUT};
use std::sync::OnceLock;

/// What a patient waiter runs before it yields or parks, one turn in [`PROGRESS_EVERY`] (see
/// [`on_patience`]).
static PATIENCE: OnceLock<fn()> = OnceLock::new();

/// Registers `f`, the progress patient waiters of the process make before yielding or parking
/// (one turn in [`PROGRESS_EVERY`]; MPI's progress rule: a posted receive and its matching send complete whatever else the
/// receiver does, MPI 4.1 section 3.5). The first registration stays; later ones are ignored.
pub fn on_patience(f: fn()) {
    let _ = PATIENCE.set(f);
}

/// Spin-then-yield backoff for blocking calls: many endpoints may share few cores, so a
/// waiting thread must let the one it waits for run (and under the passive policy parks,
/// see [`Backoff::snooze_on`]). Not `crossbeam_utils::Backoff`: that one
/// has neither the progress hook nor separate patience for host polls, each of which is a
/// long wait by itself, and for spins on memory.
pub struct Backoff<'a> {
    turns: u32,
    /// Parks so far (see [`Backoff::snooze_on`]): each waits longer, up to
    /// [`PARK_TIMEOUT`] times 2^[`PARK_GROWTH`].
    parks: u32,
    /// The doorbell this waiter is armed on, with the ring count it saw, between the
    /// `snooze_on` that arms and the one that sleeps (see [`Backoff::snooze_on`]).
    armed: Option<(&'a Doorbell, u32)>,
}

/// Turns a waiter spins before yielding: after host polls (each long enough by itself)...
const PATIENCE_POLLING: u32 = 1024;
/// ...and on memory alone.
const PATIENCE_SPINNING: u32 = 64;
/// Doublings of a parked waiter's timeout (see [`Backoff::snooze_on`]).
const PARK_GROWTH: u32 = 4;
/// A patient waiter makes the process's progress (the [`on_patience`] function) on one turn in
/// this many: that progress visits every endpoint with posted receives and polls the host for
/// each, so a thread that yields often and makes it every time starves the threads with work
/// when they outnumber cores (measured on the ring of `benches/ring.rs`: 4 x 4 endpoints on 2
/// cores took 56 ms per 1000 rounds making it every turn, 42 ms one turn in 16); MPI's progress
/// rule only needs it to happen.
const PROGRESS_EVERY: u32 = 16;

thread_local! {
    /// The calling thread's patient turns, for [`PROGRESS_EVERY`].
    static PATIENT_TURNS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}
/// Under the passive policy, where threads outnumber cores and a spinning waiter takes the
/// core from the thread it waits for: spins on memory before yielding...
const PASSIVE_SPINNING: u32 = 2;
/// ...and yields before parking (a yield hands the core to a runnable thread of the same core
/// at once; waking a parked one costs a futex call and, when its core idles, an interrupt).
/// Chosen by measurement (`benches/ring.rs`, docs/performance.md).
const PASSIVE_YIELDS: u32 = 16;

/// `passive` under the passive wait policy, else `active`.
#[inline]
fn by_policy(passive: u32, active: u32) -> u32 {
    if doorbell::passive() {
        passive
    } else {
        active
    }
}

/// Host polls before yielding: under the passive policy as many as spins on memory under the
/// active one (fewer polls did not help the ring or the message rates measurably, and each
/// yield costs a switch).
#[inline]
fn polling_patience() -> u32 {
    by_policy(PATIENCE_SPINNING, PATIENCE_POLLING)
}

/// Spins on memory before yielding.
#[inline]
fn spinning_patience() -> u32 {
    by_policy(PASSIVE_SPINNING, PATIENCE_SPINNING)
}

impl<'a> Backoff<'a> {
    pub fn new() -> Self {
        Backoff { turns: 0, parks: 0, armed: None }
    }

    /// After a host poll, which takes long enough by itself: only yield once patient.
    #[inline]
    pub fn snooze_after_polling(&mut self) {
        self.disarm();
        if self.turns < polling_patience() {
            self.turns += 1;
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
            polling_patience()
        } else {
            spinning_patience()
        };
        if self.turns >= patience {
            return false;
        }
        if !polled_host {
            std::hint::spin_loop();
        }
        self.turns += 1;
        true
    }

    #[inline]
    pub fn snooze(&mut self) {
        self.disarm();
        if self.turns < spinning_patience() {
            std::hint::spin_loop();
            self.turns += 1;
        } else {
            Self::yield_now();
        }
    }

    /// [`snooze`](Backoff::snooze) for a wait that another thread of the process ends and
    /// then rings `bell` (the waiter's endpoint's, see [`super::doorbell`]). Under the passive
    /// policy: [`PASSIVE_SPINNING`] spins, [`PASSIVE_YIELDS`] yields, then the calls
    /// alternate: one makes the process's progress and arms the bell, and returns so that the
    /// caller looks at its wait again; the next parks until
    /// the bell rings or a timeout passes: [`PARK_TIMEOUT`] at first, doubling with every park
    /// up to 2^[`PARK_GROWTH`] times that. The timeout only bounds what a missed ring costs
    /// and how long the process's progress waits for a parked thread: a long wait looks
    /// about every 3 ms. Under the active policy, `snooze`.
    #[inline]
    pub fn snooze_on(&mut self, bell: &'a Doorbell) {
        if !doorbell::passive() {
            return self.snooze();
        }
        if self.turns < PASSIVE_SPINNING {
            std::hint::spin_loop();
            self.turns += 1;
            return;
        }
        if self.turns < PASSIVE_SPINNING + PASSIVE_YIELDS {
            self.turns += 1;
            return Self::yield_now();
        }
        match self.armed.take() {
            Some((armed_on, rings)) if std::ptr::eq(armed_on, bell) => {
                bell.sleep(rings, PARK_TIMEOUT * (1 << self.parks.min(PARK_GROWTH)));
                self.parks += 1;
                bell.disarm();
            }
            other => {
                if let Some((previous, _)) = other {
                    previous.disarm();
                }
                Self::be_patient();
                self.armed = Some((bell, bell.arm()));
            }
        }
    }

    /// Leaves the bell this waiter is armed on, if any.
    #[inline]
    fn disarm(&mut self) {
        if let Some((bell, _)) = self.armed.take() {
            bell.disarm();
        }
    }

    /// What a patient waiter does before it yields or parks: keep the process progressing
    /// (the registered [`on_patience`] function, one turn in [`PROGRESS_EVERY`]), take a share of the work of the calling
    /// thread's endpoint team, if any (docs/teams.md).
    #[cold]
    fn be_patient() {
        let turn = PATIENT_TURNS.with(|t| {
            t.set(t.get().wrapping_add(1));
            t.get()
        });
        if turn.is_multiple_of(PROGRESS_EVERY) {
            if let Some(f) = PATIENCE.get() {
                f();
            }
        }
        super::share::help_current();
    }

    /// Once patient: keep the process progressing (the registered [`on_patience`] function),
    /// take a share of the work of the calling thread's endpoint team, if any (docs/teams.md),
    /// then let others run.
    #[cold]
    fn yield_now() {
        Self::be_patient();
        std::thread::yield_now();
    }
}

impl Default for Backoff<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Backoff<'_> {
    fn drop(&mut self) {
        self.disarm();
    }
}
