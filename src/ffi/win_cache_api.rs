//! Caching on windows (MPI 4.1 sections 7.7.3, 7.8 and 12.2.7): keyvals and attributes, names
//! and info hints. Each endpoint is a rank, so each has its own window name and attributes, as
//! each MPI process has; keyvals are process-wide. Delete callbacks run on the calling thread
//! with no lock of the library held, as for communicators (`attr_api.rs`).

use super::attr_api::{free_keyval, keyval_of, run_delete};
use super::boundary::out;
use super::object_name;
use super::types::*;
use crate::engine::attr::{Attr, Keyval, KeyvalKind};
use crate::ep_err;
use crate::error::ERR_INTERN;
use crate::handles::{window, KEYVALS};
use crate::host::sys::MPI_Info;
use epmpi_macros::c_export;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

/// Creates a keyval for caching attributes on windows (MPI 4.1 section 7.7.3,
/// `MPI_Win_create_keyval`). `delete_fn` runs when an attribute is deleted, replaced or its
/// window freed (`EP_WIN_NULL_DELETE_FN` does nothing); `copy_fn` is kept but never run, since
/// windows are not duplicated. NULL stands for the null function. `extra_state` is passed to
/// the callbacks. A window keyval names no communicator attribute, nor a communicator keyval a
/// window one. Errors: `EP_ERR_ARG` (NULL `keyval`), `EP_ERR_INTERN` (too many live keyvals).
/// Thread safety: any thread.
///
/// # Safety
/// `keyval` points at a writable `int` (NULL gives `EP_ERR_ARG`); the callbacks are functions
/// with the signatures of their types, callable from any thread that uses the attribute.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_create_keyval(
    copy_fn: EP_Win_copy_attr_function,
    delete_fn: EP_Win_delete_attr_function,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    let keyval = out(keyval, "keyval")?;
    let k = Keyval {
        kind: KeyvalKind::Win,
        copy: copy_fn.unwrap_or(EP_WIN_NULL_COPY_FN),
        delete: delete_fn.unwrap_or(EP_WIN_NULL_DELETE_FN),
        extra_state: extra_state as usize,
    };
    *keyval = KEYVALS.insert(Arc::new(k)).ok_or_else(|| ep_err!(ERR_INTERN, "too many live keyvals"))?;
    Ok(())
}

/// Frees a window keyval and sets `*keyval` to `EP_KEYVAL_INVALID` (MPI 4.1 section 7.7.3).
/// Attributes still set with it keep working (get, delete, and the delete callback on free).
/// Errors: `EP_ERR_KEYVAL` (invalid, freed, a communicator's, or a predefined key),
/// `EP_ERR_ARG` (NULL pointer). Thread safety: any thread.
///
/// # Safety
/// `keyval` points at a readable and writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_free_keyval(keyval: *mut c_int) -> c_int {
    free_keyval(out(keyval, "keyval")?, KeyvalKind::Win)
}

/// Sets the attribute of `win_keyval` on this endpoint's window to `attribute_val` (an
/// address-sized value stored as given, MPI 4.1 section 7.7.3). A value already set is first
/// passed to the keyval's delete callback; if that fails, the old value stays and the call
/// fails with the callback's error. Errors: `EP_ERR_WIN`, `EP_ERR_KEYVAL` (invalid or freed
/// keyval, a communicator's, or a predefined key, which cannot be set). Thread safety: the
/// endpoint's thread; the delete callback runs on the calling thread.
///
/// # Safety
/// No pointer is read: `attribute_val` is stored, not dereferenced.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_set_attr(win: EP_Win, win_keyval: c_int, attribute_val: *mut c_void) -> c_int {
    let w = window(win)?;
    let kv = keyval_of(win_keyval, KeyvalKind::Win)?;
    let old = w.cache.lock().get(win_keyval).cloned();
    if let Some(old) = old {
        run_delete(win, &old)?;
    }
    w.cache.lock().put(Attr { key: win_keyval, keyval: kv, value: attribute_val as usize });
    Ok(())
}

/// Deletes the attribute of `win_keyval` from this endpoint's window, running its delete
/// callback first (MPI 4.1 section 7.7.3); if the callback fails, the attribute stays and the
/// call fails with its error. Deleting an attribute that is not set does nothing. Errors:
/// `EP_ERR_WIN`, `EP_ERR_KEYVAL` (a value that is no window keyval, or a predefined key).
/// Thread safety: the endpoint's thread; the callback runs on the calling thread.
///
/// # Safety
/// No pointer argument.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_delete_attr(win: EP_Win, win_keyval: c_int) -> c_int {
    let w = window(win)?;
    let set = w.cache.lock().get(win_keyval).cloned();
    match set {
        Some(attr) => {
            run_delete(win, &attr)?;
            w.cache.lock().remove(win_keyval);
        }
        None => {
            keyval_of(win_keyval, KeyvalKind::Win)?;
        }
    }
    Ok(())
}

/// The copy callback that never copies (`*flag = 0`), MPI's `MPI_WIN_NULL_COPY_FN`. Errors:
/// `EP_ERR_ARG` (NULL `flag`). Thread safety: any thread.
///
/// # Safety
/// `flag` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_WIN_NULL_COPY_FN(
    oldwin: EP_Win,
    win_keyval: c_int,
    extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let _ = (oldwin, win_keyval, extra_state, attribute_val_in, attribute_val_out);
    *out(flag, "flag")? = 0;
    Ok(())
}

/// The copy callback that copies the value (`*(void **)attribute_val_out = attribute_val_in`,
/// `*flag = 1`), MPI's `MPI_WIN_DUP_FN`. Errors: `EP_ERR_ARG` (NULL pointers). Thread safety:
/// any thread.
///
/// # Safety
/// `attribute_val_out` points at a writable `void *` and `flag` at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_WIN_DUP_FN(
    oldwin: EP_Win,
    win_keyval: c_int,
    extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let _ = (oldwin, win_keyval, extra_state);
    *out(attribute_val_out as *mut *mut c_void, "attribute_val_out")? = attribute_val_in;
    *out(flag, "flag")? = 1;
    Ok(())
}

/// The delete callback that does nothing, MPI's `MPI_WIN_NULL_DELETE_FN`. Errors: none.
/// Thread safety: any thread.
///
/// # Safety
/// No pointer is read.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_WIN_NULL_DELETE_FN(win: EP_Win, win_keyval: c_int, attribute_val: *mut c_void, extra_state: *mut c_void) -> c_int {
    let _ = (win, win_keyval, attribute_val, extra_state);
    Ok(())
}

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
    w.cache.lock().name = Some(name);
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
    let text = w.cache.lock().name.clone().unwrap_or_default();
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
