//! The wait policy (`EPMPI_WAIT_POLICY`) and the doorbells that wake parked waiters.
//!
//! An endpoint thread that waits spins, then yields (see [`super::backoff`]). When threads
//! outnumber cores a yielding waiter still takes time slices from the thread it waits for, so
//! under the passive policy a waiter whose wait another thread of the process can end (a
//! message from a local endpoint, a local receiver copying a rendezvous send's data) parks
//! instead, on its endpoint's [`Doorbell`], and the thread that ends the wait rings it. Waits
//! that only the host MPI can end (a message from another process) keep yielding: no thread of
//! the process would know when to ring. A park has a timeout (from [`PARK_TIMEOUT`]), so a
//! wake-up missed by a path that does not ring costs at most that, never a hang.
//!
//! The policy, like OpenMP's `OMP_WAIT_POLICY`: `active` (spin, then yield: the lowest latency
//! when every thread has a core), `passive` (spin briefly, then park) or `auto` (the default:
//! passive once a communicator has more endpoints in this process than the process may use
//! cores, or more on this node than the node has). Engine support: every layer of the engine
//! may ring or wait; it knows none of them.

use parking_lot_core::{park, unpark_all, DEFAULT_PARK_TOKEN, DEFAULT_UNPARK_TOKEN};
use std::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a waiter parks at first without being rung before it looks at its wait again
/// (and makes the process's progress, see [`super::backoff::on_patience`]); later parks of
/// the same wait last longer (`Backoff::snooze_on`).
pub const PARK_TIMEOUT: Duration = Duration::from_micros(200);

/// What `EPMPI_WAIT_POLICY` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Active,
    Passive,
    Auto,
}

impl Policy {
    /// The policy a value of `EPMPI_WAIT_POLICY` names (case-insensitive), `None` for others.
    pub fn parse(value: &str) -> Option<Policy> {
        match value.trim().to_ascii_lowercase().as_str() {
            "active" => Some(Policy::Active),
            "passive" => Some(Policy::Passive),
            "auto" | "" => Some(Policy::Auto),
            _ => None,
        }
    }
}

/// The policy of the process, read once from `EPMPI_WAIT_POLICY` (`auto` when unset; an
/// unknown value is reported on stderr once and counts as `auto`).
fn requested() -> Policy {
    static REQUESTED: OnceLock<Policy> = OnceLock::new();
    *REQUESTED.get_or_init(|| match std::env::var("EPMPI_WAIT_POLICY") {
        Err(_) => Policy::Auto,
        Ok(v) => Policy::parse(&v).unwrap_or_else(|| {
            eprintln!("EPMPI: EPMPI_WAIT_POLICY={v:?} is not active, passive or auto; using auto");
            Policy::Auto
        }),
    })
}

/// Whether waiters park (the passive policy in force): read on every ring, so a plain load.
static PASSIVE: AtomicBool = AtomicBool::new(false);
/// The most endpoints any communicator created so far has in this process...
static MOST_IN_PROCESS: AtomicUsize = AtomicUsize::new(0);
/// ...and on this node.
static MOST_ON_NODE: AtomicUsize = AtomicUsize::new(0);

/// True when waiters of this process park (the passive policy, requested or chosen by
/// `auto`).
#[inline]
pub fn passive() -> bool {
    PASSIVE.load(Ordering::Relaxed)
}

/// Cores of the node and cores this process may run on (its affinity and quota).
fn cores() -> (usize, usize) {
    let mine = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: `sysconf` reads a system value; no memory of ours is involved.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    (usize::try_from(online).unwrap_or(0).max(mine), mine)
}

/// The `auto` rule: waiters park when endpoints (each a thread that may wait) outnumber cores,
/// in this process (`in_process` endpoints on the `process_cores` it may use; processes bound
/// to cores of their own stay active) or on the node (`on_node` on `node_cores`).
pub fn oversubscribed(in_process: usize, process_cores: usize, on_node: usize, node_cores: usize) -> bool {
    in_process > process_cores || on_node > node_cores
}

/// Notes that a communicator with `in_process` endpoints in this process and `on_node` on
/// this node (in the processes that share memory with this one) was created, and settles the
/// policy: `auto` turns passive once endpoints outnumber cores (and stays so).
pub fn note_endpoints(in_process: usize, on_node: usize) {
    let in_process = MOST_IN_PROCESS.fetch_max(in_process, Ordering::Relaxed).max(in_process);
    let on_node = MOST_ON_NODE.fetch_max(on_node, Ordering::Relaxed).max(on_node);
    let passive = match requested() {
        Policy::Active => false,
        Policy::Passive => true,
        Policy::Auto => {
            let (node_cores, process_cores) = cores();
            oversubscribed(in_process, process_cores, on_node, node_cores)
        }
    };
    PASSIVE.store(passive, Ordering::Relaxed);
}

/// Where the waiters of one endpoint park, and what the threads that end their waits ring.
///
/// A waiter [`arm`](Doorbell::arm)s (counts itself a sleeper and notes the ring count), looks
/// at its wait once more, then [`sleep`](Doorbell::sleep)s unless the bell rang in between. A
/// ringer changes the state the waiter looks at, then rings: a fence on each side between
/// the write and the read of the other's word means the waiter either sees the change or is
/// seen as a sleeper and woken.
#[derive(Default)]
pub struct Doorbell {
    rings: AtomicU32,
    sleepers: AtomicU32,
}

impl Doorbell {
    pub fn new() -> Doorbell {
        Doorbell::default()
    }

    /// The parking key: the bell's address, unique while it is alive (waiters hold it).
    fn key(&self) -> usize {
        self as *const Doorbell as usize
    }

    /// Wakes the waiters parked on this bell, if any; costs one load when nobody sleeps, and
    /// nothing under the active policy. Call after the change that ends their wait.
    #[inline]
    pub fn ring(&self) {
        if !passive() {
            return;
        }
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) != 0 {
            self.wake();
        }
    }

    #[cold]
    fn wake(&self) {
        self.rings.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the key is this bell's address, which no parking_lot lock uses (it is
        // not a lock), and the unpark token is the default one every parked waiter expects.
        unsafe { unpark_all(self.key(), DEFAULT_UNPARK_TOKEN) };
    }

    /// Counts the caller as a sleeper and returns the ring count to pass to
    /// [`sleep`](Doorbell::sleep); the caller must look at its wait after this, and call
    /// `disarm` once done (sleeping or not).
    pub fn arm(&self) -> u32 {
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        self.rings.load(Ordering::Relaxed)
    }

    /// Undoes [`arm`](Doorbell::arm).
    pub fn disarm(&self) {
        self.sleepers.fetch_sub(1, Ordering::Relaxed);
    }

    /// Parks the calling thread until the bell rings after `armed` (the count `arm` returned)
    /// or `timeout` passes; returns at once if it already rang.
    pub fn sleep(&self, armed: u32, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        // SAFETY: the key is this bell's address (see `wake`); the validation only loads an
        // atomic (it runs under parking_lot's queue lock, where taking a lock could deadlock),
        // and the callbacks do nothing.
        unsafe {
            park(
                self.key(),
                || self.rings.load(Ordering::SeqCst) == armed,
                || {},
                |_, _| {},
                DEFAULT_PARK_TOKEN,
                Some(deadline),
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_names() {
        assert_eq!(Policy::parse("active"), Some(Policy::Active));
        assert_eq!(Policy::parse(" Passive "), Some(Policy::Passive));
        assert_eq!(Policy::parse("AUTO"), Some(Policy::Auto));
        assert_eq!(Policy::parse(""), Some(Policy::Auto));
        assert_eq!(Policy::parse("sleepy"), None);
    }

    #[test]
    fn auto_rule() {
        assert!(!oversubscribed(2, 2, 2, 2), "one thread per core");
        assert!(oversubscribed(3, 2, 3, 2), "three threads of one process on two cores");
        assert!(oversubscribed(1, 2, 4, 2), "four single-endpoint processes on two cores");
        assert!(!oversubscribed(1, 1, 4, 4), "four processes bound to a core each");
        assert!(oversubscribed(2, 1, 2, 4), "two endpoints of a process bound to one core");
        let (node, mine) = cores();
        assert!(node >= mine && mine >= 1);
    }

    /// A ring after arming ends the sleep at once; without a ring the sleep lasts about the
    /// timeout; a ring from another thread wakes a sleeper long before a long timeout.
    #[test]
    fn ring_wakes_sleeper() {
        PASSIVE.store(true, Ordering::Relaxed);
        let bell = Doorbell::new();
        let armed = bell.arm();
        bell.ring();
        let t = Instant::now();
        bell.sleep(armed, Duration::from_secs(10));
        bell.disarm();
        assert!(t.elapsed() < Duration::from_secs(5), "rang before sleeping");

        let armed = bell.arm();
        let t = Instant::now();
        bell.sleep(armed, Duration::from_millis(20));
        bell.disarm();
        assert!(t.elapsed() >= Duration::from_millis(20), "woke without a ring");

        let flag = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while bell.sleepers.load(Ordering::SeqCst) == 0 {
                    std::thread::yield_now();
                }
                flag.store(true, Ordering::Relaxed);
                bell.ring();
            });
            let t = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                let armed = bell.arm();
                if !flag.load(Ordering::Relaxed) {
                    bell.sleep(armed, Duration::from_secs(10));
                }
                bell.disarm();
            }
            assert!(t.elapsed() < Duration::from_secs(5), "the ring woke the sleeper");
        });
    }
}
