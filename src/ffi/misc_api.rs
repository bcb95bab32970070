//! Errors, abort, time and version (MPI 4.1 chapters 9 and 11).

use super::boundary::out;
use crate::handles::{COMMS, MESSAGES, REQUESTS};
use super::types::*;
use crate::ep_err;
use crate::error::{self, ERR_ARG};
use crate::host::sys;
use super::boundary;
use epmpi_macros::c_export;
use std::os::raw::{c_char, c_int};

/// Writes the message of an error code into `buf` (room for `EP_MAX_ERROR_STRING` chars):
/// for codes returned by EPMPI, the call and the cause (e.g. "EP_Send: send tag -3 is
/// negative ..."); for a class, the class text. `*len` receives the length without the NUL.
/// Errors: `EP_ERR_ARG` (unknown code, NULL pointers). Thread safety: any thread; works
/// before `MPI_Init_thread` too. MPI 4.1 section 9.4.
///
/// # Safety
/// `buf` is writable for `EP_MAX_ERROR_STRING` chars and `len` points at a writable `int` (NULL
/// gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Error_string(code: c_int, buf: *mut c_char, len: *mut c_int) -> c_int {
    let len = out(len, "resultlen")?;
    if buf.is_null() {
        return Err(ep_err!(ERR_ARG, "string buffer is NULL"));
    }
    let text = if code == EP_SUCCESS {
        "no error".to_string()
    } else {
        error::message_of(code).ok_or_else(|| ep_err!(ERR_ARG, "{code} is not an EPMPI error code"))?
    };
    let max = EP_MAX_ERROR_STRING as usize - 1;
    let mut n = text.len().min(max);
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, n);
    *buf.add(n) = 0;
    *len = n as c_int;
    Ok(())
}

/// The class (`EP_SUCCESS` or an `EP_ERR_*`) of an error code (MPI 4.1 section 9.5).
/// Errors: `EP_ERR_ARG` (unknown code, NULL pointer). Thread safety: any thread.
///
/// # Safety
/// `class` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Error_class(code: c_int, class: *mut c_int) -> c_int {
    let class = out(class, "errorclass")?;
    *class = error::class_of(code).ok_or_else(|| ep_err!(ERR_ARG, "{code} is not an EPMPI error code"))?;
    Ok(())
}

/// Aborts every process of the job with `errorcode` (MPI 4.1 section 11.5), printing which
/// endpoint asked. `comm` may be any handle, valid or not: abort still happens.
/// Thread safety: any thread. Does not return when MPI is active.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
// Not `#[c_export]`: it never returns, and no error handler may stand between the call and the
// end of the job.
#[no_mangle]
pub unsafe extern "C" fn EP_Abort(comm: EP_Comm, errorcode: c_int) -> c_int {
    let who = match COMMS.get(comm) {
        Ok(ep) => format!("rank {}", ep.rank),
        Err(_) => format!("communicator handle {comm}"),
    };
    boundary::abort_job(&format!("EPMPI: EP_Abort called by {who} with error code {errorcode}"), errorcode);
    std::process::exit(if errorcode == 0 { 1 } else { errorcode })
}

/// Wall-clock time in seconds since an arbitrary point in the past (`MPI_Wtime` of the
/// host; MPI 4.1 section 9.6). Thread safety: any thread.
#[no_mangle]
pub extern "C" fn EP_Wtime() -> f64 {
    // SAFETY: `MPI_Wtime` takes no argument and touches no memory of ours.
    unsafe { sys::MPI_Wtime() }
}

/// Writes `"EPMPI <version> on <host MPI version>"` into `version` (room for
/// `EP_MAX_ERROR_STRING` chars); `*len` receives its length. Errors: `EP_ERR_ARG`.
/// Thread safety: any thread. Mirrors `MPI_Get_library_version` (MPI 4.1 section 9.1.1).
///
/// # Safety
/// `version` is writable for `EP_MAX_ERROR_STRING` chars and `len` points at a
/// writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Get_library_version(version: *mut c_char, len: *mut c_int) -> c_int {
    let len = out(len, "resultlen")?;
    if version.is_null() {
        return Err(ep_err!(ERR_ARG, "version buffer is NULL"));
    }
    let mut hostv = vec![0u8; 8192];
    let mut hl: c_int = 0;
    sys::MPI_Get_library_version(hostv.as_mut_ptr() as *mut c_char, &mut hl);
    // Open MPI counts the terminating NUL in the length: stop at the first NUL.
    let hl = (hl.max(0) as usize).min(hostv.len());
    let end = hostv[..hl].iter().position(|&b| b == 0).unwrap_or(hl);
    let hostv = String::from_utf8_lossy(&hostv[..end]);
    let first_line = hostv.lines().next().unwrap_or("unknown host MPI").trim();
    let text = format!("EPMPI {} on {}", env!("CARGO_PKG_VERSION"), first_line);
    let n = text.len().min(EP_MAX_ERROR_STRING as usize - 1);
    std::ptr::copy_nonoverlapping(text.as_ptr(), version as *mut u8, n);
    *version.add(n) = 0;
    *len = n as c_int;
    Ok(())
}

/// Counts the live handles of this process: communicator endpoints, requests and matched
/// messages (any pointer may be NULL). For leak checks in tests and long runs.
/// Thread safety: any thread (counts are a snapshot). EPMPI extension.
///
/// # Safety
/// `comms`, `requests` and `messages` each point at a writable `int` or are NULL (not written).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Debug_live_handles(comms: *mut c_int, requests: *mut c_int, messages: *mut c_int) -> c_int {
    if let Some(p) = comms.as_mut() {
        *p = COMMS.live() as c_int;
    }
    if let Some(p) = requests.as_mut() {
        *p = REQUESTS.live() as c_int;
    }
    if let Some(p) = messages.as_mut() {
        *p = MESSAGES.live() as c_int;
    }
    Ok(())
}

/// Counts the live engine objects of this process behind the handles (any pointer may be
/// NULL): shared states of communicators (one per communicator per process, holding its host
/// communicators), request objects (but those of sends that were complete when they started,
/// which hold nothing), and shared states of windows. They outlive their handles
/// while the engine still needs them (a freed active request until it completes, a freed
/// communicator while one of its requests is alive); after every handle is freed and every
/// request completed, all three are 0, or something leaked. For leak checks in tests.
/// Thread safety: any thread (counts are a snapshot). EPMPI extension.
///
/// # Safety
/// `comm_states`, `requests` and `win_states` each point at a writable `int` or are NULL (not
/// written).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Debug_live_objects(comm_states: *mut c_int, requests: *mut c_int, win_states: *mut c_int) -> c_int {
    use crate::live;
    if let Some(p) = comm_states.as_mut() {
        *p = live::COMM_STATES.live() as c_int;
    }
    if let Some(p) = requests.as_mut() {
        *p = live::REQUESTS.live() as c_int;
    }
    if let Some(p) = win_states.as_mut() {
        *p = live::WIN_STATES.live() as c_int;
    }
    Ok(())
}

