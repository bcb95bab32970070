//! The C boundary: every exported function runs its body through [`run`] (the
//! `#[c_export]` attribute of `macros/` writes that call, with the function's own name), which
//! catches panics, turns engine errors into codes with messages, and applies the
//! error handler of the endpoint the call was about (MPI 4.1 section 9.3).
//!
//! Handle lookups (the handle registry, `crate::handles`) record the endpoint's error handler
//! in the thread's call record, so a failure later in the call reaches the right handler
//! without every function passing it around. Errors that concern no valid endpoint use the
//! process default handler, which `EP_Comm_set_errhandler(EP_COMM_NULL, ...)` sets.

use super::types::EP_Status;
use crate::engine::comm::{ERRORS_ARE_FATAL, ERRORS_RETURN};
use crate::engine::p2p::Completion;
use crate::ep_err;
use crate::error::{self, EpError, EpResult, ERR_ARG, ERR_INTERN, ERR_NOT_INITIALIZED};
use crate::handles::call_state::call_state;
use crate::host;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI32, Ordering};

/// Handler for errors that concern no valid endpoint, and inherited by new communicators.
pub static DEFAULT_HANDLER: AtomicI32 = AtomicI32::new(ERRORS_ARE_FATAL);

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
    // A call made from a user callback inside another call gives the outer call's record back
    // when it ends, so the outer call's errors still reach its own handler.
    let outer = (c.handler.get(), c.comm.get());
    c.handler.set(0);
    c.comm.set(0);
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
    c.handler.set(outer.0);
    c.comm.set(outer.1);
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
    if handler == ERRORS_RETURN || crate::handles::call_user_handler(handler, call_state().comm.get(), code) {
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

/// A required output pointer. Errors: `EP_ERR_ARG` (NULL), naming `what`.
///
/// # Safety
/// `p` is NULL or points at a writable `T` that outlives `'a` (the C caller's contract).
#[inline]
pub unsafe fn out<'a, T>(p: *mut T, what: &str) -> EpResult<&'a mut T> {
    // SAFETY: non-null, `p` points at a writable `T` living for `'a` (this function's contract).
    unsafe { p.as_mut() }.ok_or_else(|| ep_err!(ERR_ARG, "{what} is NULL"))
}

/// A required input pointer, read only (a `const` argument may point at read-only memory).
/// Errors: `EP_ERR_ARG` (NULL), naming `what`.
///
/// # Safety
/// `p` is NULL or points at a readable `T` that outlives `'a` (the C caller's contract).
#[inline]
pub unsafe fn input<'a, T>(p: *const T, what: &str) -> EpResult<&'a T> {
    // SAFETY: non-null, `p` points at a readable `T` living for `'a` (this function's
    // contract); only a shared reference is made, so read-only memory is fine.
    unsafe { p.as_ref() }.ok_or_else(|| ep_err!(ERR_ARG, "{what} is NULL"))
}

/// Fills an optional status (NULL is `EP_STATUS_IGNORE`); `MPI_ERROR` is left alone, as
/// single-completion calls do in MPI.
///
/// # Safety
/// `p` is NULL or points at a writable `EP_Status`.
pub unsafe fn write_status(p: *mut EP_Status, c: &Completion) {
    // SAFETY: non-null, `p` points at a writable status (this function's contract).
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
