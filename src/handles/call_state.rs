//! What a call keeps per thread: the error handler in force, the nesting depth, and the
//! cache of communicator lookups (`comm_lookup`). Lookups of handles record the endpoint's
//! error handler here, so a failure later in the call reaches the right handler (MPI 4.1 section 9.3)
//! without every function passing it around; the C boundary reads it when a call fails.

use crate::engine::comm::Endpoint;
use std::cell::{Cell, RefCell};
use std::os::raw::c_int;
use std::sync::Arc;

/// Records `h` as the error handler of the call in progress on this thread.
pub(crate) fn note_handler(h: c_int) {
    call_state().handler.set(h);
}

/// Records the error handler of endpoint `ep` and its handle (which a user-defined handler
/// receives) for the call in progress on this thread.
pub(crate) fn note_endpoint(ep: &Endpoint) {
    note_handler_of(ep.errhandler(), ep.handle());
}

/// Records error handler `h` of the communicator whose handle is `comm` for the call in
/// progress on this thread.
pub(crate) fn note_handler_of(h: c_int, comm: c_int) {
    let c = call_state();
    c.handler.set(h);
    c.comm.set(comm);
}

const CACHE_WAYS: usize = 4;

/// A thread's last communicator lookups. Each entry keeps its endpoint alive, which lets a
/// call borrow the endpoint instead of counting a reference: two atomic read-modify-writes
/// per call were a fifth of a same-process message's cost.
pub(crate) struct CommCache {
    pub(crate) epoch: u64,
    next: usize,
    entries: [(c_int, Option<Arc<Endpoint>>); CACHE_WAYS],
    /// Entries dropped from the cache while calls were in progress on this thread (they may
    /// borrow them): released when the outermost call ends.
    deferred: Vec<Arc<Endpoint>>,
}

impl CommCache {
    /// Forgets every entry (something was freed somewhere).
    pub(crate) fn forget_all(&mut self) {
        for e in self.entries.iter_mut() {
            if let (_, Some(ep)) = std::mem::take(e) {
                self.deferred.push(ep);
            }
        }
    }

    pub(crate) fn put(&mut self, h: c_int, ep: Arc<Endpoint>) {
        let i = self.next;
        self.next = (i + 1) % CACHE_WAYS;
        if let (_, Some(old)) = std::mem::replace(&mut self.entries[i], (h, Some(ep))) {
            self.deferred.push(old);
        }
    }

    /// The entries that left the cache, for the caller to drop outside the cache's borrow
    /// (an endpoint's drop may run engine code); only when no call is in progress.
    pub(crate) fn release_deferred(&mut self) -> Vec<Arc<Endpoint>> {
        std::mem::take(&mut self.deferred)
    }

    pub(crate) fn find(&self, h: c_int) -> Option<&Arc<Endpoint>> {
        self.entries
            .iter()
            .find(|(k, e)| *k == h && e.is_some())
            .and_then(|(_, e)| e.as_ref())
    }
}

/// What the C boundary keeps per thread: the error handler of the call in progress, how
/// deeply calls are nested (a call may run user code, such as a reduction op, that calls
/// EPMPI again), and the last communicator lookups. Reached through [`call_state`] when a
/// call starts, at each handle lookup and when it ends.
pub(crate) struct CallState {
    /// First, so that it is dropped first: while the rest is destroyed (the cache's endpoints
    /// may run engine code), [`call_state`] no longer hands this state out.
    _slot: SlotClearer,
    pub(crate) handler: Cell<c_int>,
    /// The communicator handle the error handler belongs to (0: none), for a user-defined one.
    pub(crate) comm: Cell<c_int>,
    pub(crate) depth: Cell<u32>,
    pub(crate) cache: RefCell<CommCache>,
    /// The last lookup the cache answered: (handle, endpoint, epoch). The endpoint is one the
    /// cache holds: whatever leaves the cache empties this first.
    pub(crate) last: Cell<(c_int, *const Endpoint, u64)>,
}

/// `CallState::last` when it holds nothing (no epoch reaches this value).
pub(crate) const NO_LAST: (c_int, *const Endpoint, u64) = (0, std::ptr::null(), u64::MAX);

thread_local! {
    static CALL: CallState = const {
        CallState {
            _slot: SlotClearer,
            handler: Cell::new(0),
            comm: Cell::new(0),
            depth: Cell::new(0),
            cache: RefCell::new(CommCache { epoch: 0, next: 0, entries: [(0, None), (0, None), (0, None), (0, None)], deferred: Vec::new() }),
            last: Cell::new(NO_LAST),
        }
    };
}

extern "C" {
    fn epmpi_thread_slot_get() -> *mut std::ffi::c_void;
    fn epmpi_thread_slot_set(p: *mut std::ffi::c_void);
}

/// Empties this thread's slot (`src/thread_slot.c`) when the thread destroys its `CALL`, so
/// the slot never points at a destroyed state: a later access goes through `CALL` again,
/// which reports the access after destruction as Rust does.
struct SlotClearer;

impl Drop for SlotClearer {
    fn drop(&mut self) {
        // SAFETY: the C function only stores the value in this thread's slot.
        unsafe { epmpi_thread_slot_set(std::ptr::null_mut()) };
    }
}

/// This thread's `CALL`. Rust's thread-locals in a shared library go through the dynamic
/// loader on every access (`__tls_get_addr` and a state check: about 45 instructions, twice
/// per call); the address is cached in an initial-exec C thread-local, one load.
#[inline(always)]
pub(crate) fn call_state() -> &'static CallState {
    // SAFETY: the C function only loads this thread's slot.
    let p = unsafe { epmpi_thread_slot_get() } as *const CallState;
    if p.is_null() {
        return call_state_first();
    }
    // SAFETY: set by `call_state_first` to this thread's `CALL`, and emptied by its
    // `SlotClearer` before that is destroyed.
    unsafe { &*p }
}

/// [`call_state`] on this thread's first call.
#[cold]
#[inline(never)]
fn call_state_first() -> &'static CallState {
    let p = CALL.with(|c| c as *const CallState);
    // SAFETY: the C function only stores the value in this thread's slot.
    unsafe { epmpi_thread_slot_set(p as *mut std::ffi::c_void) };
    // SAFETY: as in `call_state`: the thread's `CALL` lives until its destructor empties the slot.
    unsafe { &*p }
}
