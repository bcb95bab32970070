//! User-defined error handlers on communicators (MPI 4.1 section 9.3.1): creation, explicit
//! calls and freeing. `EP_Comm_set_errhandler` and `EP_Comm_get_errhandler` (in
//! `comm_api`) take them as they take the predefined ones, and the C boundary calls them for
//! the library's own errors on an endpoint that has one.

use super::boundary::{abort_job, out};
use super::types::*;
use crate::engine::comm::{is_predefined_handler, ERRORS_ARE_FATAL, ERRORS_RETURN};
use crate::engine::errhandler::Errhandler;
use crate::ep_err;
use crate::error::{self, EpResult, ERR_ARG, ERR_INTERN};
use crate::handles::{call_user_handler, endpoint, errhandler, ERRHANDLERS};
use epmpi_macros::c_export;
use std::os::raw::c_int;
use std::sync::Arc;

/// Checks that `h` is a value `EP_Comm_set_errhandler` may take: a predefined handler or a
/// user handler the user holds. Errors: `EP_ERR_ARG`.
pub(crate) fn check_handler(h: c_int) -> EpResult<()> {
    if is_predefined_handler(h) {
        return Ok(());
    }
    errhandler(h).map(drop).map_err(|_| ep_err!(ERR_ARG, "unknown error handler {h}"))
}

/// Creates an error handler that calls `function` (MPI 4.1 section 9.3.1) with a pointer to
/// the endpoint's handle and a pointer to the error code, on the thread of the failing
/// call; when it returns, the call returns the error code. Attach it with
/// `EP_Comm_set_errhandler`; free it with `EP_Errhandler_free`. Errors: `EP_ERR_ARG` (NULL
/// `function` or `errhandler`). Thread safety: any thread.
///
/// # Safety
/// `function` is a function of the type's signature, callable from any thread;
/// `errhandler` points at a writable `EP_Errhandler` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_create_errhandler(
    function: EP_Comm_errhandler_function,
    errhandler: *mut EP_Errhandler,
) -> c_int {
    let errhandler = out(errhandler, "errhandler")?;
    let function = function.ok_or_else(|| ep_err!(ERR_ARG, "function is NULL"))?;
    *errhandler = ERRHANDLERS
        .insert(Arc::new(Errhandler::new(function)))
        .ok_or_else(|| ep_err!(ERR_INTERN, "too many live error handlers"))?;
    Ok(())
}

/// Calls the error handler of endpoint `comm` with `errorcode` (MPI 4.1 section 9.3.5): a
/// user handler runs; `EP_ERRORS_RETURN` does nothing; `EP_ERRORS_ARE_FATAL` prints the
/// code's message and aborts every process. Returns `EP_SUCCESS` when the handler returns.
/// Errors: `EP_ERR_COMM`. Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// No pointer argument.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_call_errhandler(comm: EP_Comm, errorcode: c_int) -> c_int {
    let ep = endpoint(comm)?;
    let h = ep.errhandler();
    drop(ep);
    if h == ERRORS_RETURN || call_user_handler(h, comm, errorcode) {
        return Ok(());
    }
    debug_assert_eq!(h, ERRORS_ARE_FATAL);
    let text = error::message_of(errorcode).unwrap_or_else(|| format!("error code {errorcode}"));
    abort_job(&format!("EPMPI fatal error: EP_Comm_call_errhandler on communicator {comm}: {text}; aborting"), errorcode);
    std::process::abort();
}

/// Frees an error handler handle and sets `*errhandler` to `EP_ERRHANDLER_NULL` (MPI 4.1
/// section 9.3.4). Each handle the user got (from `EP_Comm_create_errhandler`, and from
/// every `EP_Comm_get_errhandler` that returned a user handler) is freed once; endpoints
/// that use the handler keep it. Freeing a predefined handler only sets the handle to
/// `EP_ERRHANDLER_NULL`. Errors: `EP_ERR_ARG` (invalid or already freed handle, NULL
/// pointer). Thread safety: any thread.
///
/// # Safety
/// `errhandler` points at a readable and writable `EP_Errhandler` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Errhandler_free(errhandler: *mut EP_Errhandler) -> c_int {
    let h = out(errhandler, "errhandler")?;
    if !is_predefined_handler(*h) {
        let e = self::errhandler(*h)?;
        if !e.release() {
            return Err(ep_err!(ERR_ARG, "error handler {} was freed", *h));
        }
    }
    *h = EP_ERRHANDLER_NULL;
    Ok(())
}
