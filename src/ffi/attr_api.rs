//! Caching on communicators (MPI 4.1 sections 7.7 and 7.8): keyvals, attributes with their
//! copy and delete callbacks, and names. Each endpoint is a rank, so each has its own
//! attributes and name, as each MPI process has; keyvals are process-wide.
//!
//! Callbacks run on the calling thread with no lock of the library held (they may call
//! EPMPI): the endpoint's cache is read or changed under its lock, and the callbacks run on
//! copies in between.

use super::boundary::out;
use super::object_name;
use super::types::*;
use crate::engine::attr::{Attr, Cache, Keyval, KeyvalKind};
use crate::engine::comm::{self, Endpoint};
use crate::ep_err;
use crate::error::{self, EpError, EpResult, ERR_INTERN, ERR_KEYVAL, ERR_OTHER};
use crate::handles::{endpoint, keyval, KEYVALS};
use parking_lot::Mutex;
use epmpi_macros::c_export;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

/// The error of a callback that returned `code`: its class (`EP_ERR_OTHER` for a code EPMPI
/// does not know).
fn callback_error(what: &str, key: c_int, code: c_int) -> EpError {
    let class = error::class_of(code).unwrap_or(ERR_OTHER);
    ep_err!(class, "the {what} callback of keyval {key} returned error code {code}")
}

/// The keyval of handle `h` for the attribute calls of `kind`. Errors: `EP_ERR_KEYVAL` (no
/// live keyval, or one of the other kind: MPI 4.1 section 7.7.2).
pub(crate) fn keyval_of(h: c_int, kind: KeyvalKind) -> EpResult<Arc<Keyval>> {
    let k = keyval(h)?;
    if k.kind != kind {
        return Err(ep_err!(ERR_KEYVAL, "keyval {h} was made for {:?} attributes, not {kind:?} ones", k.kind));
    }
    Ok(k)
}

/// Frees keyval `*h` of `kind` and sets `*h` to `EP_KEYVAL_INVALID`. Errors: `EP_ERR_KEYVAL`.
pub(crate) fn free_keyval(h: &mut c_int, kind: KeyvalKind) -> EpResult<()> {
    keyval_of(*h, kind)?;
    KEYVALS
        .remove(*h)
        .map_err(|why| crate::handles::registry::lookup_error("keyval", *h, why, ERR_KEYVAL))?;
    *h = EP_KEYVAL_INVALID;
    Ok(())
}

/// Runs the delete callback of `attr` for the object of handle `obj` (an endpoint of a
/// communicator or a window). Errors: the callback's.
pub(crate) fn run_delete(obj: c_int, attr: &Attr) -> EpResult<()> {
    // SAFETY: the user's callback with the arguments MPI gives it: the endpoint's handle, the
    // keyval, the value and extra state the user supplied, all passed through untouched.
    let rc = unsafe {
        (attr.keyval.delete)(obj, attr.key, attr.value as *mut c_void, attr.keyval.extra_state as *mut c_void)
    };
    if rc != EP_SUCCESS {
        return Err(callback_error("delete", attr.key, rc));
    }
    Ok(())
}

/// The attributes a dup of endpoint `ep` (handle `comm`) gets: each attribute's copy
/// callback decides (MPI 4.1 section 7.7.2). Errors: the first failing callback's.
pub(crate) fn copy_attrs(ep: &Endpoint, comm: EP_Comm) -> EpResult<Vec<Attr>> {
    let attrs = ep.cache.lock().attrs.clone();
    let mut copied = Vec::new();
    for a in attrs {
        let (mut value, mut flag): (usize, c_int) = (0, 0);
        // SAFETY: the user's callback with MPI's arguments: `attribute_val_out` points at
        // `value`, room for the `void *` it stores, and `flag` at a live int.
        let rc = unsafe {
            (a.keyval.copy)(
                comm,
                a.key,
                a.keyval.extra_state as *mut c_void,
                a.value as *mut c_void,
                &mut value as *mut usize as *mut c_void,
                &mut flag,
            )
        };
        if rc != EP_SUCCESS {
            return Err(callback_error("copy", a.key, rc));
        }
        if flag != 0 {
            copied.push(Attr { value, ..a });
        }
    }
    Ok(copied)
}

/// Deletes every attribute of `cache` (of the object of handle `obj`) before the object is
/// freed, in the reverse order of their first setting. Errors: the first failing delete
/// callback's; that attribute and those set before it stay.
pub(crate) fn delete_all(cache: &Mutex<Cache>, obj: c_int) -> EpResult<()> {
    loop {
        let Some(last) = cache.lock().attrs.last().cloned() else { return Ok(()) };
        run_delete(obj, &last)?;
        cache.lock().remove(last.key);
    }
}

/// [`delete_all`] for an object whose free goes on whatever the callbacks return (a collective
/// free, which the other members have joined): every attribute is removed, each callback run
/// once; the first callback's error is returned.
pub(crate) fn delete_every(cache: &Mutex<Cache>, obj: c_int) -> EpResult<()> {
    let mut first_error = Ok(());
    loop {
        let Some(last) = cache.lock().attrs.pop() else { return first_error };
        let rc = run_delete(obj, &last);
        if first_error.is_ok() {
            first_error = rc;
        }
    }
}

/// Creates a keyval for caching attributes on communicators (MPI 4.1 section 7.7.2).
/// `copy_fn` runs when `EP_Comm_dup` duplicates an endpoint with this attribute
/// (`EP_COMM_NULL_COPY_FN` never copies, `EP_COMM_DUP_FN` copies the value); `delete_fn`
/// when the attribute is deleted, replaced or its endpoint freed (`EP_COMM_NULL_DELETE_FN`
/// does nothing). NULL stands for the null function. `extra_state` is passed to both.
/// Keyvals are process-wide: any endpoint of any communicator may use them. Errors:
/// `EP_ERR_ARG` (NULL `keyval`). Thread safety: any thread.
///
/// # Safety
/// `keyval` points at a writable `int` (NULL gives `EP_ERR_ARG`); the callbacks are functions
/// with the signatures of their types, callable from any thread that uses the attribute.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_create_keyval(
    copy_fn: EP_Comm_copy_attr_function,
    delete_fn: EP_Comm_delete_attr_function,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    create_comm_keyval(copy_fn, delete_fn, keyval, extra_state)
}

/// The body of `EP_Comm_create_keyval` (and of its MPI-1 form, `EP_Keyval_create`).
///
/// # Safety
/// As `EP_Comm_create_keyval`.
pub(super) unsafe fn create_comm_keyval(
    copy_fn: EP_Comm_copy_attr_function,
    delete_fn: EP_Comm_delete_attr_function,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> EpResult<()> {
    let keyval = out(keyval, "keyval")?;
    let k = Keyval {
        kind: KeyvalKind::Comm,
        copy: copy_fn.unwrap_or(EP_COMM_NULL_COPY_FN),
        delete: delete_fn.unwrap_or(EP_COMM_NULL_DELETE_FN),
        extra_state: extra_state as usize,
    };
    *keyval = KEYVALS.insert(Arc::new(k)).ok_or_else(|| ep_err!(ERR_INTERN, "too many live keyvals"))?;
    Ok(())
}

/// Frees a keyval and sets `*keyval` to `EP_KEYVAL_INVALID` (MPI 4.1 section 7.7.2).
/// Attributes still set with it keep working (get, delete, and their callbacks on dup and
/// free). Errors: `EP_ERR_KEYVAL` (invalid, freed, a window's, or a predefined key), `EP_ERR_ARG`
/// (NULL pointer). Thread safety: any thread.
///
/// # Safety
/// `keyval` points at a readable and writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_free_keyval(keyval: *mut c_int) -> c_int {
    free_comm_keyval(keyval)
}

/// The body of `EP_Comm_free_keyval` (and of `EP_Keyval_free`).
///
/// # Safety
/// As `EP_Comm_free_keyval`.
pub(super) unsafe fn free_comm_keyval(keyval: *mut c_int) -> EpResult<()> {
    free_keyval(out(keyval, "keyval")?, KeyvalKind::Comm)
}

/// Sets the attribute of `keyval` on this endpoint to `attribute_val` (an address-sized
/// value stored as given, MPI 4.1 section 7.7.2). A value already set is first passed to the
/// keyval's delete callback; if that fails, the old value stays and the call fails with the
/// callback's error. Errors: `EP_ERR_COMM`, `EP_ERR_KEYVAL` (invalid or freed keyval, or a
/// predefined key, which cannot be set). Thread safety: one thread per endpoint at a time;
/// the delete callback runs on the calling thread.
///
/// # Safety
/// No pointer is read: `attribute_val` is stored, not dereferenced.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_set_attr(comm: EP_Comm, comm_keyval: c_int, attribute_val: *mut c_void) -> c_int {
    set_comm_attr(comm, comm_keyval, attribute_val)
}

/// The body of `EP_Comm_set_attr` (and of `EP_Attr_put`).
pub(super) fn set_comm_attr(comm: EP_Comm, comm_keyval: c_int, attribute_val: *mut c_void) -> EpResult<()> {
    let ep = endpoint(comm)?;
    let kv = keyval_of(comm_keyval, KeyvalKind::Comm)?;
    let old = ep.cache.lock().get(comm_keyval).cloned();
    if let Some(old) = old {
        run_delete(comm, &old)?;
    }
    ep.cache.lock().put(Attr { key: comm_keyval, keyval: kv, value: attribute_val as usize });
    Ok(())
}

static TAG_UB_VALUE: c_int = EP_TAG_UB_VALUE;
static FLAVOR_ENDPOINTS: c_int = EP_FLAVOR_ENDPOINTS;

/// Reads an attribute, as `MPI_Comm_get_attr` does (MPI 4.1 section 7.7.2): `*flag` is 1 and
/// `*(void **)attribute_val` the value when set, `*flag` is 0 otherwise. Predefined keys
/// give a pointer to an `int`: `EP_TAG_UB` (largest tag, 2147483647 on every host MPI),
/// `EP_COMM_FLAVOR` (`EP_FLAVOR_ENDPOINTS`). A key made by `EP_Comm_create_keyval` gives
/// the value `EP_Comm_set_attr` stored, even after the keyval was freed. Errors:
/// `EP_ERR_COMM`, `EP_ERR_KEYVAL` (a value that is no keyval, never set on this endpoint),
/// `EP_ERR_ARG` (NULL output). Thread safety: any thread.
///
/// # Safety
/// `attribute_val` points at a writable `void *` and `flag` at a writable `int` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_get_attr(comm: EP_Comm, comm_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) -> c_int {
    get_comm_attr(comm, comm_keyval, attribute_val, flag)
}

/// The body of `EP_Comm_get_attr` (and of `EP_Attr_get`).
///
/// # Safety
/// As `EP_Comm_get_attr`.
pub(super) unsafe fn get_comm_attr(comm: EP_Comm, comm_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) -> EpResult<()> {
    let ep = endpoint(comm)?;
    let value = out(attribute_val as *mut usize, "attribute_val")?;
    let flag = out(flag, "flag")?;
    let predefined: Option<&'static c_int> = match comm_keyval {
        EP_TAG_UB => Some(&TAG_UB_VALUE),
        EP_COMM_FLAVOR => Some(match ep.shared.flavor {
            comm::Flavor::Endpoints => &FLAVOR_ENDPOINTS,
        }),
        _ => None,
    };
    if let Some(p) = predefined {
        *value = p as *const c_int as usize;
        *flag = 1;
        return Ok(());
    }
    let set = ep.cache.lock().get(comm_keyval).map(|a| a.value);
    match set {
        Some(v) => {
            *value = v;
            *flag = 1;
        }
        None => {
            // A freed keyval still names the attributes set with it; anything else must be
            // a live keyval.
            keyval_of(comm_keyval, KeyvalKind::Comm)?;
            *flag = 0;
        }
    }
    Ok(())
}

/// Deletes the attribute of `keyval` from this endpoint, running its delete callback first
/// (MPI 4.1 section 7.7.2); if the callback fails, the attribute stays and the call fails
/// with its error. Deleting an attribute that is not set does nothing. Errors: `EP_ERR_COMM`,
/// `EP_ERR_KEYVAL` (a value that is no keyval, or a predefined key). Thread safety: one
/// thread per endpoint at a time; the callback runs on the calling thread.
///
/// # Safety
/// No pointer argument.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_delete_attr(comm: EP_Comm, comm_keyval: c_int) -> c_int {
    delete_comm_attr(comm, comm_keyval)
}

/// The body of `EP_Comm_delete_attr` (and of `EP_Attr_delete`).
pub(super) fn delete_comm_attr(comm: EP_Comm, comm_keyval: c_int) -> EpResult<()> {
    let ep = endpoint(comm)?;
    let set = ep.cache.lock().get(comm_keyval).cloned();
    match set {
        Some(attr) => {
            run_delete(comm, &attr)?;
            ep.cache.lock().remove(comm_keyval);
        }
        None => {
            keyval_of(comm_keyval, KeyvalKind::Comm)?;
        }
    }
    Ok(())
}

/// The copy callback that never copies (`*flag = 0`), MPI's `MPI_COMM_NULL_COPY_FN`.
/// Errors: `EP_ERR_ARG` (NULL `flag`). Thread safety: any thread.
///
/// # Safety
/// `flag` points at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_COMM_NULL_COPY_FN(
    oldcomm: EP_Comm,
    comm_keyval: c_int,
    extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let _ = (oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out);
    null_copy(flag)
}

/// The body of `EP_COMM_NULL_COPY_FN` (and of `EP_NULL_COPY_FN`): `*flag = 0`.
///
/// # Safety
/// `flag` is NULL or points at a writable `int`.
pub(super) unsafe fn null_copy(flag: *mut c_int) -> EpResult<()> {
    *out(flag, "flag")? = 0;
    Ok(())
}

/// The copy callback that copies the value (`*(void **)attribute_val_out =
/// attribute_val_in`, `*flag = 1`), MPI's `MPI_COMM_DUP_FN`. Errors: `EP_ERR_ARG` (NULL
/// pointers). Thread safety: any thread.
///
/// # Safety
/// `attribute_val_out` points at a writable `void *` and `flag` at a writable `int`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_COMM_DUP_FN(
    oldcomm: EP_Comm,
    comm_keyval: c_int,
    extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let _ = (oldcomm, comm_keyval, extra_state);
    dup_copy(attribute_val_in, attribute_val_out, flag)
}

/// The body of `EP_COMM_DUP_FN` (and of `EP_DUP_FN`): the value copied, `*flag = 1`.
///
/// # Safety
/// `attribute_val_out` is NULL or points at a writable `void *`; `flag` is NULL or points at a
/// writable `int`.
pub(super) unsafe fn dup_copy(attribute_val_in: *mut c_void, attribute_val_out: *mut c_void, flag: *mut c_int) -> EpResult<()> {
    *out(attribute_val_out as *mut *mut c_void, "attribute_val_out")? = attribute_val_in;
    *out(flag, "flag")? = 1;
    Ok(())
}

/// The delete callback that does nothing, MPI's `MPI_COMM_NULL_DELETE_FN`. Errors: none.
/// Thread safety: any thread.
///
/// # Safety
/// No pointer is read.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_COMM_NULL_DELETE_FN(
    comm: EP_Comm,
    comm_keyval: c_int,
    attribute_val: *mut c_void,
    extra_state: *mut c_void,
) -> c_int {
    let _ = (comm, comm_keyval, attribute_val, extra_state);
    Ok(())
}

/// Names this endpoint of a communicator (MPI 4.1 section 7.8): a NUL-terminated string,
/// kept up to `EP_MAX_OBJECT_NAME - 1` bytes (longer names are cut). Names are per
/// endpoint, as MPI's are per process, and `EP_Comm_dup` does not copy them. Errors:
/// `EP_ERR_COMM`, `EP_ERR_ARG` (NULL `name`). Thread safety: any thread.
///
/// # Safety
/// `name` points at a readable NUL-terminated string (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_set_name(comm: EP_Comm, name: *const c_char) -> c_int {
    let ep = endpoint(comm)?;
    // SAFETY: `name` is NULL or a NUL-terminated string (this function's contract).
    let name = unsafe { object_name::read(name)? };
    ep.cache.lock().name = Some(name);
    Ok(())
}

/// This endpoint's name (MPI 4.1 section 7.8): written NUL-terminated to `name`, which holds
/// `EP_MAX_OBJECT_NAME` chars, with its length (without the NUL) in `*resultlen`; the empty
/// string when none was set. Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL pointers). Thread
/// safety: any thread.
///
/// # Safety
/// `name` points at `EP_MAX_OBJECT_NAME` writable chars and `resultlen` at a writable `int`
/// (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_get_name(comm: EP_Comm, name: *mut c_char, resultlen: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    let text = ep.cache.lock().name.clone().unwrap_or_default();
    // SAFETY: `name` holds `EP_MAX_OBJECT_NAME` writable chars and `resultlen` is a writable
    // `int`, or NULL (this function's contract).
    unsafe { object_name::write(&text, name, resultlen) }
}
