//! Status and request queries (MPI 4.1 sections 3.2.5, 3.7.6, 3.8.4, 5.1.11, 13.3):
//! `EP_Request_get_status` and its array forms, the status field accessors,
//! `EP_Get_elements(_x)`, `EP_Status_set_elements(_x)`, `EP_Status_set_cancelled`.
//!
//! An `EP_Status` records the bytes received; elements of a datatype are counted from them.
//! For basic elements of derived datatypes the host counts: the bytes go into a host status
//! (`MPI_Status_set_elements_x` in `MPI_BYTE`) and the host's `MPI_Get_elements_x` reads it
//! in the user's datatype, so every datatype the host supports counts as in MPI, partial last
//! element included.

use super::boundary::{completion_error, input, out, status_bytes, write_status};
use super::completion_api::{test_all, test_any, test_some};
use super::types::*;
use crate::engine::datatype::{bytes_of_elements, elements_in_bytes};
use crate::engine::p2p::Completion;
use crate::engine::request::inactive_completion;
use crate::error::EpResult;
use crate::handles::request;
use crate::host::sys::{MPI_Count, MPI_Datatype};
use epmpi_macros::c_export;
use std::os::raw::c_int;

/// Tells whether a request is complete without completing it (MPI 4.1 section 3.7.6):
/// `*flag = 1` and `status` filled when it is (the handle stays valid and a persistent
/// request stays active: complete it with a completion call or free it), `*flag = 0`
/// otherwise. Progresses the request's endpoint. A null (`EP_REQUEST_NULL`) or inactive
/// persistent request gives `*flag = 1` and an empty status. Errors: `EP_ERR_REQUEST`
/// (invalid or freed handle), `EP_ERR_TRUNCATE` (a complete receive that was truncated; the
/// status is filled), `EP_ERR_ARG`. Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `flag` points at a writable `int` (NULL gives `EP_ERR_ARG`); `status` is
/// `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Request_get_status(
    request_h: EP_Request,
    flag: *mut c_int,
    status: *mut EP_Status,
) -> c_int {
    let flag = out(flag, "flag")?;
    let c = if request_h == EP_REQUEST_NULL {
        Some(inactive_completion())
    } else {
        let r = request(request_h)?;
        if r.is_active() {
            r.test()?
        } else {
            Some(inactive_completion())
        }
    };
    match c {
        Some(c) => {
            *flag = 1;
            write_status(status, &c);
            if let Some(s) = status.as_mut() {
                s.MPI_ERROR = EP_SUCCESS;
            }
            completion_error(&c)
        }
        None => {
            *flag = 0;
            Ok(())
        }
    }
}

/// `EP_Testany` that completes nothing (MPI 4.1 section 3.7.6, `MPI_Request_get_status_any`):
/// `*flag = 1` with `*index` the position of a complete request and `status` filled, the
/// handle left valid (and a persistent request active); `*flag = 1` with `*index =
/// EP_UNDEFINED` and an empty status when no request is active (all null or inactive);
/// `*flag = 0` with `*index = EP_UNDEFINED` otherwise. Progresses the requests' endpoints.
/// Errors: `EP_ERR_REQUEST`, `EP_ERR_COUNT`, `EP_ERR_ARG`, the error of the complete request
/// found (`EP_ERR_TRUNCATE` for a truncated receive; its status is filled). Thread safety:
/// one thread per endpoint at a time.
///
/// # Safety
/// `array_of_requests` holds `count` readable `EP_Request`s (NULL only when `count` is 0);
/// `index` and `flag` point at writable `int`s (NULL gives `EP_ERR_ARG`); `status` is
/// `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Request_get_status_any(
    count: c_int,
    array_of_requests: *const EP_Request,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut EP_Status,
) -> c_int {
    // Read only: nothing is retired.
    test_any(count, array_of_requests as *mut EP_Request, index, flag, status, false)
}

/// `EP_Testall` that completes nothing (MPI 4.1 section 3.7.6, `MPI_Request_get_status_all`):
/// `*flag = 1` when every request is complete (null and inactive ones count as complete, with
/// empty statuses), each status then filled with its `MPI_ERROR`, the handles left valid;
/// `*flag = 0` otherwise, statuses untouched. Errors: `EP_ERR_IN_STATUS` (a complete request
/// failed: its status says how), `EP_ERR_REQUEST`, `EP_ERR_COUNT`, `EP_ERR_ARG`. Thread
/// safety: one thread per endpoint at a time.
///
/// # Safety
/// `array_of_requests` holds `count` readable `EP_Request`s (NULL only when `count` is 0);
/// `flag` points at a writable `int` (NULL gives `EP_ERR_ARG`); `array_of_statuses` is
/// `EP_STATUSES_IGNORE` (NULL) or holds `count` writable `EP_Status`es.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Request_get_status_all(
    count: c_int,
    array_of_requests: *const EP_Request,
    flag: *mut c_int,
    array_of_statuses: *mut EP_Status,
) -> c_int {
    test_all(count, array_of_requests as *mut EP_Request, flag, array_of_statuses, "EP_Request_get_status_all", false)
}

/// `EP_Testsome` that completes nothing (MPI 4.1 section 3.7.6, `MPI_Request_get_status_some`):
/// `*outcount` requests are complete, their positions in `array_of_indices[0..outcount]` and
/// statuses in `array_of_statuses[0..outcount]`, the handles left valid; `*outcount =
/// EP_UNDEFINED` when no request is active. Errors: `EP_ERR_IN_STATUS`, `EP_ERR_REQUEST`,
/// `EP_ERR_COUNT`, `EP_ERR_ARG`. Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `array_of_requests` holds `incount` readable `EP_Request`s (NULL only when `incount` is 0);
/// `outcount` points at a writable `int` (NULL gives `EP_ERR_ARG`); `array_of_indices` holds
/// `incount` writable `int`s; `array_of_statuses` is `EP_STATUSES_IGNORE` (NULL) or holds
/// `incount` writable `EP_Status`es.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Request_get_status_some(
    incount: c_int,
    array_of_requests: *const EP_Request,
    outcount: *mut c_int,
    array_of_indices: *mut c_int,
    array_of_statuses: *mut EP_Status,
) -> c_int {
    let reqs = array_of_requests as *mut EP_Request;
    test_some(incount, reqs, outcount, array_of_indices, array_of_statuses, "EP_Request_get_status_some", false)
}

/// The source rank a status records (MPI 4.1 section 3.2.5, `MPI_Status_get_source`), the
/// same as its `MPI_SOURCE` field. Errors: `EP_ERR_ARG` (NULL pointers). Thread safety: any
/// thread.
///
/// # Safety
/// `status` points at a readable `EP_Status` and `source` at a writable `int` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_get_source(status: *const EP_Status, source: *mut c_int) -> c_int {
    *out(source, "source")? = input(status, "status")?.MPI_SOURCE;
    Ok(())
}

/// The tag a status records (MPI 4.1 section 3.2.5, `MPI_Status_get_tag`). Errors, safety and
/// thread safety as `EP_Status_get_source`.
///
/// # Safety
/// `status` points at a readable `EP_Status` and `tag` at a writable `int` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_get_tag(status: *const EP_Status, tag: *mut c_int) -> c_int {
    *out(tag, "tag")? = input(status, "status")?.MPI_TAG;
    Ok(())
}

/// The error code a status records (MPI 4.1 section 3.2.5, `MPI_Status_get_error`): set by
/// the calls that complete several requests. Errors, safety and thread safety as
/// `EP_Status_get_source`.
///
/// # Safety
/// `status` points at a readable `EP_Status` and `err` at a writable `int` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_get_error(status: *const EP_Status, err: *mut c_int) -> c_int {
    *out(err, "err")? = input(status, "status")?.MPI_ERROR;
    Ok(())
}

/// Sets the source rank of a status (MPI 4.1 section 3.2.5, `MPI_Status_set_source`), for
/// generalized requests and layered libraries; the other fields are left alone. Errors:
/// `EP_ERR_ARG` (NULL status). Thread safety: any thread.
///
/// # Safety
/// `status` points at a writable `EP_Status` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_set_source(status: *mut EP_Status, source: c_int) -> c_int {
    out(status, "status")?.MPI_SOURCE = source;
    Ok(())
}

/// Sets the tag of a status (MPI 4.1 section 3.2.5, `MPI_Status_set_tag`). As
/// `EP_Status_set_source`.
///
/// # Safety
/// `status` points at a writable `EP_Status` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_set_tag(status: *mut EP_Status, tag: c_int) -> c_int {
    out(status, "status")?.MPI_TAG = tag;
    Ok(())
}

/// Sets the error code of a status (MPI 4.1 section 3.2.5, `MPI_Status_set_error`). As
/// `EP_Status_set_source`.
///
/// # Safety
/// `status` points at a writable `EP_Status` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_set_error(status: *mut EP_Status, err: c_int) -> c_int {
    out(status, "status")?.MPI_ERROR = err;
    Ok(())
}

/// Basic elements of `datatype` recorded in `status`, as `EP_Get_elements_x` computes them.
///
/// # Safety
/// `status` points at a readable `EP_Status` (NULL gives `EP_ERR_ARG`).
unsafe fn elements(status: *const EP_Status, datatype: MPI_Datatype) -> EpResult<Option<i64>> {
    // SAFETY: this function's contract.
    let st = unsafe { input(status, "status")? };
    elements_in_bytes(datatype, status_bytes(st))
}

/// Number of basic elements of `datatype` received, from a status filled by a receive,
/// probe or completion call (MPI 4.1 section 5.1.11): for a predefined datatype the same
/// as `EP_Get_count`; for a derived one the basic elements of its type signature in the
/// bytes received, which may end in a partial element (where `EP_Get_count` says
/// `EP_UNDEFINED`). `*count = EP_UNDEFINED` when the bytes are not a whole number of basic
/// elements or the number does not fit in an `int`. Errors: `EP_ERR_ARG` (NULL pointers),
/// `EP_ERR_TYPE`. Thread safety: any thread.
///
/// # Safety
/// `status` points at a readable `EP_Status` filled by EPMPI (NULL gives `EP_ERR_ARG`) and
/// `count` at a writable `int` (NULL gives `EP_ERR_ARG`); `datatype` is a valid host
/// datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Get_elements(
    status: *const EP_Status,
    datatype: MPI_Datatype,
    count: *mut c_int,
) -> c_int {
    let count = out(count, "count")?;
    *count = match elements(status, datatype)? {
        Some(n) => c_int::try_from(n).unwrap_or(EP_UNDEFINED),
        None => EP_UNDEFINED,
    };
    Ok(())
}

/// `EP_Get_elements` with an `MPI_Count` result (MPI 4.1 section 5.1.11), for counts beyond
/// an `int`. `*count = EP_UNDEFINED` when the bytes are not a whole number of basic elements.
/// Errors as `EP_Get_elements`.
///
/// # Safety
/// `status` points at a readable `EP_Status` filled by EPMPI (NULL gives `EP_ERR_ARG`) and
/// `count` at a writable `MPI_Count` (NULL gives `EP_ERR_ARG`); `datatype` is a valid host
/// datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Get_elements_x(
    status: *const EP_Status,
    datatype: MPI_Datatype,
    count: *mut MPI_Count,
) -> c_int {
    let count = out(count, "count")?;
    *count = elements(status, datatype)?.unwrap_or(EP_UNDEFINED as i64) as MPI_Count;
    Ok(())
}

/// Sets the status's received size to `count` basic elements of `datatype`, so that
/// `EP_Get_elements` with that datatype gives `count` and `EP_Get_count` the whole elements
/// (MPI 4.1 section 13.3, for generalized requests and layered libraries); source, tag and
/// the cancelled flag are left alone. Errors: `EP_ERR_ARG` (NULL status), `EP_ERR_COUNT`
/// (negative), `EP_ERR_TYPE`. Thread safety: any thread.
///
/// # Safety
/// `status` points at a writable `EP_Status` (NULL gives `EP_ERR_ARG`); `datatype` is a
/// valid host datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_set_elements(
    status: *mut EP_Status,
    datatype: MPI_Datatype,
    count: c_int,
) -> c_int {
    set_elements(status, datatype, count as i64)
}

/// `EP_Status_set_elements` with an `MPI_Count` (MPI 4.1 section 13.3). Errors as
/// `EP_Status_set_elements`.
///
/// # Safety
/// As for `EP_Status_set_elements`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_set_elements_x(
    status: *mut EP_Status,
    datatype: MPI_Datatype,
    count: MPI_Count,
) -> c_int {
    #[allow(clippy::unnecessary_cast, reason = "MPI_Count is the host's `long long` or `long`")]
    set_elements(status, datatype, count as i64)
}

/// Records `count` basic elements of `datatype` in a status.
///
/// # Safety
/// `status` is NULL or points at a writable `EP_Status`.
unsafe fn set_elements(status: *mut EP_Status, datatype: MPI_Datatype, count: i64) -> EpResult<()> {
    // SAFETY: this function's contract.
    let st = unsafe { out(status, "status")? };
    let bytes = bytes_of_elements(datatype, count)?;
    let (source, tag, cancelled) = (st.MPI_SOURCE, st.MPI_TAG, st.ep_cancelled != 0);
    let c = Completion { source, tag, bytes, cancelled, ..Completion::default() };
    // SAFETY: `st` is a writable status (checked above).
    unsafe { write_status(st, &c) };
    Ok(())
}

/// Sets the cancelled flag of a status (`flag` nonzero: `EP_Test_cancelled` then says 1;
/// MPI 4.1 section 13.3). Errors: `EP_ERR_ARG` (NULL status). Thread safety: any thread.
///
/// # Safety
/// `status` points at a writable `EP_Status` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Status_set_cancelled(status: *mut EP_Status, flag: c_int) -> c_int {
    out(status, "status")?.ep_cancelled = (flag != 0) as c_int;
    Ok(())
}
