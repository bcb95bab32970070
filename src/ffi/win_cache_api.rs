//! Caching on windows (MPI 4.1 sections 7.8 and 12.2.7): names and info hints. Each endpoint
//! is a rank, so each has its own window name, as each MPI process has.

use super::object_name;
use super::boundary::out;
use super::types::*;
use crate::handles::window;
use crate::host::sys::MPI_Info;
use epmpi_macros::c_export;
use std::os::raw::{c_char, c_int};

/// Names this endpoint's window (MPI 4.1 section 7.8, `MPI_Win_set_name`): a NUL-terminated
/// string, kept up to `EP_MAX_OBJECT_NAME - 1` bytes (longer names are cut). Local; the other
/// endpoints' names of the window are their own. Errors: `EP_ERR_WIN`, `EP_ERR_ARG` (NULL
/// `win_name`). Thread safety: any thread.
///
/// # Safety
/// `win_name` points at a readable NUL-terminated string (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_set_name(win: EP_Win, win_name: *const c_char) -> c_int {
    let w = window(win)?;
    // SAFETY: `win_name` is NULL or a NUL-terminated string (this function's contract).
    let name = unsafe { object_name::read(win_name)? };
    *w.name.lock() = Some(name);
    Ok(())
}

/// This endpoint's window name (MPI 4.1 section 7.8, `MPI_Win_get_name`): written
/// NUL-terminated to `win_name`, which holds `EP_MAX_OBJECT_NAME` chars, with its length
/// (without the NUL) in `*resultlen`; the empty string when none was set. Errors: `EP_ERR_WIN`,
/// `EP_ERR_ARG` (NULL pointers). Thread safety: any thread.
///
/// # Safety
/// `win_name` points at `EP_MAX_OBJECT_NAME` writable chars and `resultlen` at a writable
/// `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_get_name(win: EP_Win, win_name: *mut c_char, resultlen: *mut c_int) -> c_int {
    let w = window(win)?;
    let text = w.name.lock().clone().unwrap_or_default();
    // SAFETY: `win_name` holds `EP_MAX_OBJECT_NAME` writable chars and `resultlen` is a
    // writable `int`, or NULL (this function's contract).
    unsafe { object_name::write(&text, win_name, resultlen) }
}

/// Sets hints on this endpoint's window (MPI 4.1 section 12.2.7, `MPI_Win_set_info`): the
/// hints a window uses are fixed when its host windows are made (`EP_Win_create`'s `info`), so
/// `info` (a host info handle, or `MPI_INFO_NULL`) is accepted and ignored, as MPI allows.
/// Local (MPI makes it collective; endpoints need not meet for a call that changes nothing).
/// Errors: `EP_ERR_WIN`. Thread safety: the endpoint's thread.
///
/// # Safety
/// `info` is a valid host info handle or `MPI_INFO_NULL`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_set_info(win: EP_Win, info: MPI_Info) -> c_int {
    let _ = info;
    window(win)?;
    Ok(())
}

/// The hints in use on this endpoint's window (MPI 4.1 section 12.2.7, `MPI_Win_get_info`):
/// a new host info object holding the hints of the host window that exposes this endpoint's
/// memory (those given at creation that the host kept, and the host's defaults); free it with
/// `MPI_Info_free`. Local. Errors: `EP_ERR_WIN`, `EP_ERR_ARG` (NULL `info_used`), host
/// failures. Thread safety: any thread.
///
/// # Safety
/// `info_used` points at a writable `MPI_Info` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_get_info(win: EP_Win, info_used: *mut MPI_Info) -> c_int {
    let w = window(win)?;
    let info_used = out(info_used, "info_used")?;
    *info_used = w.info_used()?;
    Ok(())
}
