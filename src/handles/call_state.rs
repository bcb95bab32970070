//! What a call keeps per thread (the error handler in force, the nesting depth) and the
//! communicator lookups it caches. Lookups of handles record the endpoint's error handler
//! here, so a failure later in the call reaches the right handler (MPI 4.1 section 9.3)
//! without every function passing it around; the C boundary reads it when a call fails.

use super::registry::{lookup_error, COMMS};
use super::Lookup;
use crate::engine::comm::Endpoint;
use crate::error::{EpResult, ERR_COMM};
use std::cell::{Cell, RefCell};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Records `h` as the error handler of the call in progress on this thread.
pub(crate) fn note_handler(h: c_int) {
    call_state().handler.set(h);
}

/// Bumped whenever a communicator handle is freed: per-thread caches of handle lookups are
/// valid while it is unchanged.
static COMM_EPOCH: AtomicU64 = AtomicU64::new(0);
const CACHE_WAYS: usize = 4;

/// A thread's last communicator lookups. Each entry keeps its endpoint alive, which lets a
/// call borrow the endpoint instead of counting a reference: two atomic read-modify-writes
/// per call were a fifth of a same-process message's cost.
pub(crate) struct CommCache {
    epoch: u64,
    next: usize,
    entries: [(c_int, Option<Arc<Endpoint>>); CACHE_WAYS],
    /// Entries dropped from the cache while calls were in progress on this thread (they may
    /// borrow them): released when the outermost call ends.
    deferred: Vec<Arc<Endpoint>>,
}

impl CommCache {
    /// Forgets every entry (something was freed somewhere).
    fn forget_all(&mut self) {
        for e in self.entries.iter_mut() {
            if let (_, Some(ep)) = std::mem::take(e) {
                self.deferred.push(ep);
            }
        }
    }

    fn put(&mut self, h: c_int, ep: Arc<Endpoint>) {
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

    fn find(&self, h: c_int) -> Option<&Arc<Endpoint>> {
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
    pub(crate) depth: Cell<u32>,
    pub(crate) cache: RefCell<CommCache>,
    /// The last lookup the cache answered: (handle, endpoint, epoch). The endpoint is one the
    /// cache holds: whatever leaves the cache empties this first.
    last: Cell<(c_int, *const Endpoint, u64)>,
}

/// `CallState::last` when it holds nothing (no epoch reaches this value).
const NO_LAST: (c_int, *const Endpoint, u64) = (0, std::ptr::null(), u64::MAX);

thread_local! {
    static CALL: CallState = const {
        CallState {
            _slot: SlotClearer,
            handler: Cell::new(0),
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

/// The endpoint behind a communicator handle, counted (for objects that outlive the call).
#[inline]
pub(crate) fn endpoint(h: c_int) -> EpResult<Arc<Endpoint>> {
    Ok(endpoint_ref(h)?.to_arc())
}

/// An endpoint borrowed from this thread's lookup cache for the length of one call: the
/// cache keeps whatever leaves it until the thread's outermost call ends, so the endpoint
/// stays alive even if its handle is freed meanwhile (by user code the call runs, or by
/// another thread). Outside a call the reference is counted instead.
pub(crate) struct EpRef {
    ep: *const Endpoint,
    _counted: Option<Arc<Endpoint>>,
}

impl EpRef {
    /// A counted reference, for requests and other objects that outlive the call.
    pub(crate) fn to_arc(&self) -> Arc<Endpoint> {
        // SAFETY: `ep` came from `Arc::as_ptr` of an Arc kept alive while we borrow.
        unsafe {
            Arc::increment_strong_count(self.ep);
            Arc::from_raw(self.ep)
        }
    }
}

impl std::ops::Deref for EpRef {
    type Target = Endpoint;

    #[inline]
    fn deref(&self) -> &Endpoint {
        // SAFETY: see `to_arc`.
        unsafe { &*self.ep }
    }
}

/// The endpoint behind a communicator handle, borrowed for this call (see [`EpRef`]).
/// Inside a call, a handle looked up last on this thread costs a few loads and compares
/// (every point-to-point call starts here).
#[inline(always)]
pub(crate) fn endpoint_ref(h: c_int) -> EpResult<EpRef> {
    let epoch = COMM_EPOCH.load(Ordering::Acquire);
    let c = call_state();
    let (last_h, last_ep, last_epoch) = c.last.get();
    if last_h == h && last_epoch == epoch && c.depth.get() != 0 {
        // SAFETY: the cache holds this endpoint (see `CallState::last`).
        c.handler.set(unsafe { &*last_ep }.errhandler());
        return Ok(EpRef {
            ep: last_ep,
            _counted: None,
        });
    }
    endpoint_ref_cached(c, h, epoch)
}

/// [`endpoint_ref`] through the cache's entries, then the shared table.
#[inline(never)]
fn endpoint_ref_cached(c: &CallState, h: c_int, epoch: u64) -> EpResult<EpRef> {
    let hit = (|| {
        let mut cache = c.cache.borrow_mut();
        if cache.epoch != epoch {
            // Something was freed: forget everything.
            c.last.set(NO_LAST);
            cache.forget_all();
            cache.epoch = epoch;
            return None;
        }
        let ep = cache.find(h)?;
        c.handler.set(ep.errhandler());
        c.last.set((h, Arc::as_ptr(ep), epoch));
        let counted = (c.depth.get() == 0).then(|| ep.clone());
        Some(EpRef {
            ep: Arc::as_ptr(ep),
            _counted: counted,
        })
    })();
    match hit {
        Some(r) => Ok(r),
        None => endpoint_miss(h, epoch),
    }
}

/// A lookup the cache could not answer: the shared table, then into the cache.
#[cold]
fn endpoint_miss(h: c_int, epoch: u64) -> EpResult<EpRef> {
    let ep = COMMS
        .get(h)
        .map_err(|why| lookup_error("communicator", h, why, ERR_COMM))?;
    let r = EpRef {
        ep: Arc::as_ptr(&ep),
        _counted: Some(ep.clone()),
    };
    let c = call_state();
    c.handler.set(ep.errhandler());
    let mut cache = c.cache.borrow_mut();
    if cache.epoch == epoch {
        // `put` may evict the endpoint `last` names.
        c.last.set(NO_LAST);
        cache.put(h, ep);
    }
    Ok(r)
}

/// Removes a communicator handle; cached lookups of it become invalid everywhere.
pub(crate) fn remove_endpoint(h: c_int) -> Result<Arc<Endpoint>, Lookup> {
    let ep = COMMS.remove(h)?;
    COMM_EPOCH.fetch_add(1, Ordering::AcqRel);
    // Released when this thread's outermost call ends (borrowed ones may be in use).
    let c = call_state();
    c.last.set(NO_LAST);
    c.cache.borrow_mut().forget_all();
    crate::engine::request::endpoint_freed(&ep);
    Ok(ep)
}
