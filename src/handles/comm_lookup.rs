//! Communicator handles to endpoints, through the thread's lookup cache: the lookup every
//! call on a communicator starts with.

use super::call_state::{call_state, CallState, NO_LAST};
use super::registry::{lookup_error, COMMS};
use super::Lookup;
use crate::engine::comm::Endpoint;
use crate::error::{EpResult, ERR_COMM};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bumped whenever a communicator handle is freed: per-thread caches of handle lookups are
/// valid while it is unchanged.
static COMM_EPOCH: AtomicU64 = AtomicU64::new(0);
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
        c.comm.set(h);
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
        c.comm.set(h);
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
    c.comm.set(h);
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
