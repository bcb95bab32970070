//! The C boundary: every exported function runs its body through [`run`] (via `ep_call!`),
//! which catches panics, turns engine errors into codes with messages, and applies the
//! error handler of the endpoint the call was about (MPI 4.1 section 9.3).
//!
//! Lookups of handles record the endpoint's error handler in a thread-local, so a failure
//! later in the call reaches the right handler without every function passing it around.
//! Errors that concern no valid endpoint use the process default handler, which
//! `EP_Comm_set_errhandler(EP_COMM_NULL, ...)` sets.

use super::types::{EP_Comm, EP_Message, EP_Request, EP_Status};
use crate::engine::comm::{Endpoint, ERRORS_ARE_FATAL, ERRORS_RETURN};
use crate::engine::envelope::Envelope;
use crate::engine::p2p::{Completion, Payload};
use crate::engine::request::Request;
use crate::engine::win::WinEndpoint;
use crate::ep_err;
use crate::error::{
    self, EpError, EpResult, ERR_ARG, ERR_COMM, ERR_INTERN, ERR_NOT_INITIALIZED, ERR_REQUEST,
};
use crate::handles::{Kind, Lookup, Table};
use crate::host;
use std::sync::LazyLock;
use std::cell::{Cell, RefCell};
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;

/// A message taken by `EP_Mprobe`/`EP_Improbe`, waiting for `EP_Mrecv`.
pub struct MessageObj {
    pub ep: Arc<Endpoint>,
    pub envelope: Envelope,
    /// The message itself until `EP_Mrecv`/`EP_Imrecv` takes it.
    pub taken: parking_lot::Mutex<Option<Taken>>,
}

/// Where a taken message waits: the engine's payload, or the host (direct mode).
pub enum Taken {
    Engine(Payload),
    Host(crate::host::HostMessage),
}

pub static COMMS: LazyLock<Table<Endpoint>> = LazyLock::new(|| Table::new(Kind::Comm));
pub static REQUESTS: LazyLock<Table<Request>> = LazyLock::new(|| Table::new(Kind::Request));
pub static MESSAGES: LazyLock<Table<MessageObj>> = LazyLock::new(|| Table::new(Kind::Message));
pub static WINS: LazyLock<Table<WinEndpoint>> = LazyLock::new(|| Table::new(Kind::Win));

/// Handler for errors that concern no valid endpoint, and inherited by new communicators.
pub static DEFAULT_HANDLER: AtomicI32 = AtomicI32::new(ERRORS_ARE_FATAL);

fn note_handler(h: c_int) {
    call_state().handler.set(h);
}

/// The text of a caught panic's payload (`panic!` with a message gives a `&str` or a `String`).
/// The library installs no panic hook of its own: the process's hook (the application's, or
/// Rust's default, which names the file and line) prints the panic, and the error code the
/// call returns carries this text, so the error handler's message says what went wrong.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// The calls that work at any time, before `MPI_Init_thread` and after `MPI_Finalize` too
/// (MPI 4.1 section 11.4.1 allows `MPI_Error_class`, `MPI_Error_string` and
/// `MPI_Get_library_version` so; the others touch no MPI state): their argument errors keep
/// their own class.
const ANY_TIME: &[&str] = &[
    "EP_Error_string",
    "EP_Error_class",
    "EP_Get_library_version",
    "EP_Comm_set_errhandler",
    "EP_Comm_get_errhandler",
    "EP_Debug_live_handles",
    "EP_Debug_live_windows",
    "EP_Debug_live_objects",
    "EP_Get_count",
    "EP_Test_cancelled",
];

/// Runs the body of exported function `name`: never unwinds, returns `EP_SUCCESS` or an
/// error code, and aborts when the applicable handler is `EP_ERRORS_ARE_FATAL`. Outside
/// `MPI_Init_thread` .. `MPI_Finalize`, a failing call (all but those of `ANY_TIME`) reports
/// `EP_ERR_NOT_INITIALIZED` whatever else was wrong: before initialization no handle exists
/// (a bad-handle class would mislead), after finalization the handles are dead.
#[inline(always)]
pub fn run(name: &'static str, body: impl FnOnce() -> EpResult<()>) -> c_int {
    let c = call_state();
    c.handler.set(0);
    c.depth.set(c.depth.get() + 1);
    // The result becomes a code inside: an `EpResult` carried out of `catch_unwind` was
    // copied through memory on every call.
    let code = catch_unwind(AssertUnwindSafe(|| {
        if host::finalizing() && !ANY_TIME.contains(&name) {
            return failed(
                name,
                ep_err!(ERR_NOT_INITIALIZED, "called after MPI_Finalize"),
            );
        }
        match body() {
            Ok(()) => error::SUCCESS,
            Err(e) => failed(name, e),
        }
    }))
    .unwrap_or_else(|payload| {
        failed(
            name,
            EpError::new(
                ERR_INTERN,
                format!("internal error (a bug, please report it): {}", panic_text(&*payload)),
            ),
        )
    });
    c.depth.set(c.depth.get() - 1);
    if c.depth.get() == 0 {
        let released = c.cache.borrow_mut().release_deferred();
        drop(released);
    }
    code
}

/// The error path of [`run`].
#[cold]
#[inline(never)]
fn failed(name: &'static str, e: EpError) -> c_int {
    // Only here: the check costs two host calls.
    if e.class != ERR_NOT_INITIALIZED && !ANY_TIME.contains(&name) && !host::mpi_is_active() {
        return fail(
            name,
            ep_err!(
                ERR_NOT_INITIALIZED,
                "MPI is not initialized (call MPI_Init_thread first) or is finalized; besides, {}",
                e.msg
            ),
        );
    }
    fail(name, e)
}

/// Reports an error through the handler in force; returns its code.
pub fn fail(name: &str, e: EpError) -> c_int {
    let text = format!("{name}: {}", e.msg);
    let code = error::register(e.class, text.clone());
    let handler = match call_state().handler.get() {
        0 => DEFAULT_HANDLER.load(Ordering::Relaxed),
        h => h,
    };
    if handler == ERRORS_RETURN {
        return code;
    }
    abort_job(
        &format!(
            "EPMPI fatal error in {text} ({}); aborting (set EP_ERRORS_RETURN to handle errors)",
            error::class_text(e.class)
        ),
        e.class,
    );
    std::process::abort();
}

/// Prints `line` on stderr and aborts every process of the job with `code` (when MPI is
/// active; returns otherwise, for the caller to end the process).
pub fn abort_job(line: &str, code: c_int) {
    error::write_stderr_line(line);
    if host::mpi_is_active() && !host::finalizing() {
        // The launcher forwards our stderr through a pipe and may tear the job down as soon
        // as MPI_Abort reaches it (MPICH's hydra does): give it a moment to pass the message on.
        std::thread::sleep(std::time::Duration::from_millis(200));
        // SAFETY: MPI is active and not finalizing (checked just above); no buffer.
        unsafe { host::sys::MPI_Abort(host::HOST.comm_world, code) };
    }
}

fn lookup_error(what: &str, h: c_int, why: Lookup, class: c_int) -> EpError {
    let reason = match why {
        Lookup::Null => "is the null handle",
        Lookup::WrongKind => "is not a handle of this kind",
        Lookup::Stale => "was freed or never existed",
    };
    ep_err!(class, "{what} handle {h} {reason}")
}

/// Bumped whenever a communicator handle is freed: per-thread caches of handle lookups are
/// valid while it is unchanged.
static COMM_EPOCH: AtomicU64 = AtomicU64::new(0);
const CACHE_WAYS: usize = 4;

/// A thread's last communicator lookups. Each entry keeps its endpoint alive, which lets a
/// call borrow the endpoint instead of counting a reference: two atomic read-modify-writes
/// per call were a fifth of a same-process message's cost.
struct CommCache {
    epoch: u64,
    next: usize,
    entries: [(EP_Comm, Option<Arc<Endpoint>>); CACHE_WAYS],
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

    fn put(&mut self, h: EP_Comm, ep: Arc<Endpoint>) {
        let i = self.next;
        self.next = (i + 1) % CACHE_WAYS;
        if let (_, Some(old)) = std::mem::replace(&mut self.entries[i], (h, Some(ep))) {
            self.deferred.push(old);
        }
    }

    /// The entries that left the cache, for the caller to drop outside the cache's borrow
    /// (an endpoint's drop may run engine code); only when no call is in progress.
    fn release_deferred(&mut self) -> Vec<Arc<Endpoint>> {
        std::mem::take(&mut self.deferred)
    }

    fn find(&self, h: EP_Comm) -> Option<&Arc<Endpoint>> {
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
struct CallState {
    /// First, so that it is dropped first: while the rest is destroyed (the cache's endpoints
    /// may run engine code), [`call_state`] no longer hands this state out.
    _slot: SlotClearer,
    handler: Cell<c_int>,
    depth: Cell<u32>,
    cache: RefCell<CommCache>,
    /// The last lookup the cache answered: (handle, endpoint, epoch). The endpoint is one the
    /// cache holds: whatever leaves the cache empties this first.
    last: Cell<(EP_Comm, *const Endpoint, u64)>,
}

/// `CallState::last` when it holds nothing (no epoch reaches this value).
const NO_LAST: (EP_Comm, *const Endpoint, u64) = (0, std::ptr::null(), u64::MAX);

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
fn call_state() -> &'static CallState {
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
pub fn endpoint(h: EP_Comm) -> EpResult<Arc<Endpoint>> {
    Ok(endpoint_ref(h)?.to_arc())
}

/// An endpoint borrowed from this thread's lookup cache for the length of one call: the
/// cache keeps whatever leaves it until the thread's outermost call ends, so the endpoint
/// stays alive even if its handle is freed meanwhile (by user code the call runs, or by
/// another thread). Outside a call the reference is counted instead.
pub struct EpRef {
    ep: *const Endpoint,
    _counted: Option<Arc<Endpoint>>,
}

impl EpRef {
    /// A counted reference, for requests and other objects that outlive the call.
    pub fn to_arc(&self) -> Arc<Endpoint> {
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
pub fn endpoint_ref(h: EP_Comm) -> EpResult<EpRef> {
    let epoch = COMM_EPOCH.load(Ordering::Acquire);
    let c = call_state();
    let (last_h, last_ep, last_epoch) = c.last.get();
    if last_h == h && last_epoch == epoch && c.depth.get() != 0 {
        // SAFETY: the cache holds this endpoint (see `CallState::last`).
        c.handler.set(unsafe { &*last_ep }.errhandler());
        return Ok(EpRef { ep: last_ep, _counted: None });
    }
    endpoint_ref_cached(c, h, epoch)
}

/// [`endpoint_ref`] through the cache's entries, then the shared table.
#[inline(never)]
fn endpoint_ref_cached(c: &CallState, h: EP_Comm, epoch: u64) -> EpResult<EpRef> {
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
fn endpoint_miss(h: EP_Comm, epoch: u64) -> EpResult<EpRef> {
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
pub fn remove_endpoint(h: EP_Comm) -> Result<Arc<Endpoint>, Lookup> {
    let ep = COMMS.remove(h)?;
    COMM_EPOCH.fetch_add(1, Ordering::AcqRel);
    // Released when this thread's outermost call ends (borrowed ones may be in use).
    let c = call_state();
    c.last.set(NO_LAST);
    c.cache.borrow_mut().forget_all();
    crate::engine::request::endpoint_freed(&ep);
    Ok(ep)
}

/// The request behind a request handle.
#[inline]
pub fn request(h: EP_Request) -> EpResult<Arc<Request>> {
    let r = REQUESTS
        .get(h)
        .map_err(|why| lookup_error("request", h, why, ERR_REQUEST))?;
    if let Some(ep) = &r.ep {
        note_handler(ep.errhandler());
    }
    Ok(r)
}

/// The message behind a message handle.
pub fn message(h: EP_Message) -> EpResult<Arc<MessageObj>> {
    let m = MESSAGES
        .get(h)
        .map_err(|why| lookup_error("message", h, why, crate::error::ERR_REQUEST))?;
    note_handler(m.ep.errhandler());
    Ok(m)
}

/// The window endpoint behind a window handle.
pub fn window(h: super::types::EP_Win) -> EpResult<Arc<WinEndpoint>> {
    let w = WINS
        .get(h)
        .map_err(|why| lookup_error("window", h, why, crate::error::ERR_WIN))?;
    note_handler(w.errhandler());
    Ok(w)
}

/// Withdraws the pre-posted host receives of every endpoint still alive at `MPI_Finalize`
/// (a program that never freed its communicators), so the host finalizes cleanly.
pub fn withdraw_host_receives() {
    COMMS.for_each(|ep| ep.state().queues.lock().remote_rx = None);
    for ep in crate::engine::request::orphanage_endpoints() {
        ep.state().queues.lock().remote_rx = None;
    }
}

/// Stores a request, returning its handle.
pub fn new_request(r: Arc<Request>) -> EpResult<EP_Request> {
    REQUESTS
        .insert(r)
        .ok_or_else(|| ep_err!(ERR_INTERN, "too many live requests"))
}

/// A required output pointer.
#[inline]
pub fn out<'a, T>(p: *mut T, what: &str) -> EpResult<&'a mut T> {
    // SAFETY: non-null pointers from C are taken to point at a valid `T`, as in every C API.
    unsafe { p.as_mut() }.ok_or_else(|| ep_err!(ERR_ARG, "{what} is NULL"))
}

/// A required input pointer, read only (a `const` argument may point at read-only memory).
#[inline]
pub fn input<'a, T>(p: *const T, what: &str) -> EpResult<&'a T> {
    // SAFETY: non-null pointers from C are taken to point at a valid `T`, as in every C API;
    // only a shared reference is made, so read-only memory is fine.
    unsafe { p.as_ref() }.ok_or_else(|| ep_err!(ERR_ARG, "{what} is NULL"))
}

/// Fills an optional status (NULL is `EP_STATUS_IGNORE`); `MPI_ERROR` is left alone, as
/// single-completion calls do in MPI.
pub fn write_status(p: *mut EP_Status, c: &Completion) {
    // SAFETY: see `out`.
    if let Some(s) = unsafe { p.as_mut() } {
        s.MPI_SOURCE = c.source;
        s.MPI_TAG = c.tag;
        s.ep_count_lo = (c.bytes & 0x7fff_ffff) as c_int;
        s.ep_count_hi = (c.bytes >> 31) as c_int;
        s.ep_cancelled = c.cancelled as c_int;
    }
}

/// Bytes recorded in a status.
pub fn status_bytes(s: &EP_Status) -> u64 {
    (s.ep_count_lo as u64 & 0x7fff_ffff) | ((s.ep_count_hi as u64) << 31)
}

/// The error of a completed operation, as an engine error: truncation (the class alone), or
/// an error met while completing it (a registered code, whose message says what happened).
pub fn completion_error(c: &Completion) -> EpResult<()> {
    if c.error == 0 {
        return Ok(());
    }
    if c.error != crate::error::ERR_TRUNCATE {
        let class = crate::error::class_of(c.error).unwrap_or(ERR_INTERN);
        let msg = crate::error::message_of(c.error).unwrap_or_default();
        return Err(crate::error::EpError::new(class, msg));
    }
    Err(ep_err!(
        c.error,
        "message of {} bytes from rank {} (tag {}) truncated to the receive buffer's {} bytes",
        c.sent_bytes,
        c.source,
        c.tag,
        c.bytes
    ))
}

/// `ep_call!("EP_Name", { body })`: the one wrapper of every exported function.
#[macro_export]
macro_rules! ep_call {
    ($name:literal, $body:block) => {
        $crate::ffi::boundary::run($name, || -> $crate::error::EpResult<()> { $body })
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A panic inside a call becomes an error code whose message carries the panic's text, and
    /// the process's own panic hook stays in place (a library must not replace it).
    #[test]
    fn a_panic_becomes_an_error_and_the_process_hook_stays() {
        static HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {
            HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
        }));
        let handler = DEFAULT_HANDLER.swap(ERRORS_RETURN, Ordering::SeqCst);

        let code = run("EP_Test_panic", || panic!("the payload of a test panic"));
        let after_call = HOOK_CALLS.load(Ordering::SeqCst);
        let _ = std::panic::catch_unwind(|| panic!("a panic of the application"));
        let after_app = HOOK_CALLS.load(Ordering::SeqCst);

        DEFAULT_HANDLER.store(handler, Ordering::SeqCst);
        std::panic::set_hook(previous);
        assert_ne!(code, error::SUCCESS);
        let msg = error::message_of(code).expect("the code has a message");
        assert!(msg.contains("EP_Test_panic") && msg.contains("the payload of a test panic"), "{msg}");
        assert_eq!((after_call, after_app), (1, 2), "the process's hook saw each panic once");
    }
}
