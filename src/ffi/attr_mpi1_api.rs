//! The MPI-1 names of the caching calls on communicators, deprecated since MPI 2.0 and still in
//! MPI 4.1 (its chapter of deprecated interfaces): `MPI_Keyval_create`, `MPI_Keyval_free`,
//! `MPI_Attr_put`, `MPI_Attr_get`, `MPI_Attr_delete` and the predefined callbacks
//! `MPI_NULL_COPY_FN`, `MPI_DUP_FN`, `MPI_NULL_DELETE_FN`. Models written before MPI 2.0 call
//! them (reading `MPI_TAG_UB` with `MPI_Attr_get` above all), so the standard-names layer
//! forwards them like any other call. In C they are the MPI 2.0 calls under other names (MPI
//! 4.1 section 7.7.2 gives their meaning): keyvals, attributes and callbacks are the same
//! objects, and each name below runs the same code as its MPI 2.0 twin in `attr_api`.

use super::attr_api::{create_comm_keyval, delete_comm_attr, dup_copy, free_comm_keyval, get_comm_attr, null_copy, set_comm_attr};
use super::types::*;
use epmpi_macros::c_export;
use std::os::raw::{c_int, c_void};

/// `EP_Comm_create_keyval` under its MPI-1 name (`MPI_Keyval_create`, deprecated since MPI 2.0;
/// MPI 4.1 section 7.7.2): a keyval for attributes on communicators, whose `copy_fn` runs on
/// `EP_Comm_dup` (`EP_NULL_COPY_FN` never copies, `EP_DUP_FN` copies the value) and `delete_fn`
/// when the attribute is deleted, replaced or its endpoint freed; NULL stands for the null
/// function; `extra_state` goes to both. The keyval is the same kind of object as
/// `EP_Comm_create_keyval`'s: the MPI 2.0 calls take it too. Errors: `EP_ERR_ARG` (NULL
/// `keyval`). Thread safety: any thread.
///
/// # Safety
/// `keyval` points at a writable `int` (NULL gives `EP_ERR_ARG`); the callbacks are functions
/// with the signatures of their types, callable from any thread that uses the attribute.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Keyval_create(
    copy_fn: EP_Comm_copy_attr_function,
    delete_fn: EP_Comm_delete_attr_function,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    create_comm_keyval(copy_fn, delete_fn, keyval, extra_state)
}

/// `EP_Comm_free_keyval` under its MPI-1 name (`MPI_Keyval_free`; MPI 4.1 section 7.7.2): frees
/// a keyval and sets `*keyval` to `EP_KEYVAL_INVALID`; attributes still set with it keep
/// working. Errors: `EP_ERR_KEYVAL` (invalid, freed, a window's, or a predefined key),
/// `EP_ERR_ARG` (NULL pointer). Thread safety: any thread.
///
/// # Safety
/// `keyval` points at a readable and writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Keyval_free(keyval: *mut c_int) -> c_int {
    free_comm_keyval(keyval)
}

/// `EP_Comm_set_attr` under its MPI-1 name (`MPI_Attr_put`; MPI 4.1 section 7.7.2): sets the
/// attribute of `keyval` on this endpoint to `attribute_val` (an address-sized value stored as
/// given); a value already set goes to the keyval's delete callback first, and stays if that
/// fails. Errors: `EP_ERR_COMM`, `EP_ERR_KEYVAL` (invalid or freed keyval, or a predefined
/// key). Thread safety: one thread per endpoint at a time; the delete callback runs on the
/// calling thread.
///
/// # Safety
/// No pointer is read: `attribute_val` is stored, not dereferenced.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Attr_put(comm: EP_Comm, keyval: c_int, attribute_val: *mut c_void) -> c_int {
    set_comm_attr(comm, keyval, attribute_val)
}

/// `EP_Comm_get_attr` under its MPI-1 name (`MPI_Attr_get`; MPI 4.1 section 7.7.2): `*flag` is
/// 1 and `*(void **)attribute_val` the value when set, `*flag` is 0 otherwise; the predefined
/// keys (`EP_TAG_UB`, `EP_COMM_FLAVOR`) give a pointer to an `int`. Errors: `EP_ERR_COMM`,
/// `EP_ERR_KEYVAL` (a value that is no keyval, never set on this endpoint), `EP_ERR_ARG` (NULL
/// output). Thread safety: any thread.
///
/// # Safety
/// `attribute_val` points at a writable `void *` and `flag` at a writable `int` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Attr_get(comm: EP_Comm, keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) -> c_int {
    get_comm_attr(comm, keyval, attribute_val, flag)
}

/// `EP_Comm_delete_attr` under its MPI-1 name (`MPI_Attr_delete`; MPI 4.1 section 7.7.2):
/// deletes the attribute of `keyval` from this endpoint, running its delete callback first (the
/// attribute stays if it fails); deleting an attribute that is not set does nothing. Errors:
/// `EP_ERR_COMM`, `EP_ERR_KEYVAL` (a value that is no keyval, or a predefined key). Thread
/// safety: one thread per endpoint at a time; the callback runs on the calling thread.
///
/// # Safety
/// No pointer argument.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Attr_delete(comm: EP_Comm, keyval: c_int) -> c_int {
    delete_comm_attr(comm, keyval)
}

/// `EP_COMM_NULL_COPY_FN` under its MPI-1 name (`MPI_NULL_COPY_FN`; MPI 4.1 section 7.7.2): the
/// copy callback that never copies (`*flag = 0`). Errors: `EP_ERR_ARG` (NULL `flag`). Thread
/// safety: any thread.
///
/// # Safety
/// `flag` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_NULL_COPY_FN(
    oldcomm: EP_Comm,
    keyval: c_int,
    extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let _ = (oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out);
    null_copy(flag)
}

/// `EP_COMM_DUP_FN` under its MPI-1 name (`MPI_DUP_FN`; MPI 4.1 section 7.7.2): the copy
/// callback that copies the value (`*(void **)attribute_val_out = attribute_val_in`, `*flag =
/// 1`). Errors: `EP_ERR_ARG` (NULL pointers). Thread safety: any thread.
///
/// # Safety
/// `attribute_val_out` points at a writable `void *` and `flag` at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_DUP_FN(
    oldcomm: EP_Comm,
    keyval: c_int,
    extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let _ = (oldcomm, keyval, extra_state);
    dup_copy(attribute_val_in, attribute_val_out, flag)
}

/// `EP_COMM_NULL_DELETE_FN` under its MPI-1 name (`MPI_NULL_DELETE_FN`; MPI 4.1 section 7.7.2):
/// the delete callback that does nothing. Errors: none. Thread safety: any thread.
///
/// # Safety
/// No pointer is read.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_NULL_DELETE_FN(comm: EP_Comm, keyval: c_int, attribute_val: *mut c_void, extra_state: *mut c_void) -> c_int {
    let _ = (comm, keyval, attribute_val, extra_state);
    Ok(())
}
