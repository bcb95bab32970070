//! Public types and constants of `ep_mpi.h`. Values are EPMPI's own and the same under every
//! host MPI (DESIGN.md section 3), so C and Fortran code never depends on the host's values.
#![allow(non_camel_case_types, non_snake_case)]

use std::os::raw::{c_int, c_void};

/// Handle of one endpoint (one rank) of an endpoint communicator. Same value in C and Fortran.
pub type EP_Comm = c_int;
/// Handle of a nonblocking operation.
pub type EP_Request = c_int;
/// Handle of a message taken by `EP_Mprobe`/`EP_Improbe`.
pub type EP_Message = c_int;
/// Handle of a one-sided window.
pub type EP_Win = c_int;
/// Handle of a group of endpoints (MPI 4.1 section 7.3), a process-local object.
pub type EP_Group = c_int;
/// Handle of a user-defined error handler (`EP_Comm_create_errhandler`); the predefined
/// `EP_ERRORS_ARE_FATAL` and `EP_ERRORS_RETURN` are values of this type too.
pub type EP_Errhandler = c_int;

/// A keyval's copy callback (MPI's `MPI_Comm_copy_attr_function` on EPMPI handles), run by
/// `EP_Comm_dup` for each attribute of the old endpoint: it stores the new endpoint's value in
/// `*(void **)attribute_val_out` and sets `*flag` to 1 to copy, 0 to leave the attribute
/// out; a return value other than `EP_SUCCESS` fails the dup with that code.
/// NULL stands for `EP_COMM_NULL_COPY_FN`.
pub type EP_Comm_copy_attr_function = Option<
    unsafe extern "C" fn(
        oldcomm: EP_Comm,
        comm_keyval: c_int,
        extra_state: *mut c_void,
        attribute_val_in: *mut c_void,
        attribute_val_out: *mut c_void,
        flag: *mut c_int,
    ) -> c_int,
>;
/// A keyval's delete callback (MPI's `MPI_Comm_delete_attr_function` on EPMPI handles), run
/// when an attribute is deleted, replaced, or its endpoint freed; a return value other than
/// `EP_SUCCESS` fails that call with that code. NULL stands for `EP_COMM_NULL_DELETE_FN`.
pub type EP_Comm_delete_attr_function = Option<
    unsafe extern "C" fn(comm: EP_Comm, comm_keyval: c_int, attribute_val: *mut c_void, extra_state: *mut c_void) -> c_int,
>;
/// A window keyval's copy callback (MPI's `MPI_Win_copy_attr_function` on EPMPI handles), of
/// the shape of `EP_Comm_copy_attr_function`. Windows are never duplicated, so it is never
/// run; MPI asks for it all the same. NULL stands for `EP_WIN_NULL_COPY_FN`.
pub type EP_Win_copy_attr_function = Option<
    unsafe extern "C" fn(
        oldwin: EP_Win,
        win_keyval: c_int,
        extra_state: *mut c_void,
        attribute_val_in: *mut c_void,
        attribute_val_out: *mut c_void,
        flag: *mut c_int,
    ) -> c_int,
>;
/// A window keyval's delete callback (MPI's `MPI_Win_delete_attr_function` on EPMPI handles),
/// run when an attribute is deleted, replaced, or its window freed; a return value other than
/// `EP_SUCCESS` fails that call (with the code's class when it is one of EPMPI's codes, else
/// `EP_ERR_OTHER`). NULL stands for `EP_WIN_NULL_DELETE_FN`.
pub type EP_Win_delete_attr_function =
    Option<unsafe extern "C" fn(win: EP_Win, win_keyval: c_int, attribute_val: *mut c_void, extra_state: *mut c_void) -> c_int>;
/// A user-defined error handler (MPI's `MPI_Comm_errhandler_function` on EPMPI handles): it
/// receives a pointer to the endpoint's handle and to the error code; further arguments are
/// none.
pub type EP_Comm_errhandler_function = Option<unsafe extern "C" fn(comm: *mut EP_Comm, error_code: *mut c_int, ...)>;

/// Status of a completed receive or probe (MPI 4.1 section 3.2.5). The public fields have
/// MPI's names; read the element count with `EP_Get_count`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EP_Status {
    /// Rank of the source endpoint (`EP_PROC_NULL` for a receive from `EP_PROC_NULL`).
    pub MPI_SOURCE: c_int,
    /// Tag of the message.
    pub MPI_TAG: c_int,
    /// Error code; set only by the multiple-completion calls (MPI semantics).
    pub MPI_ERROR: c_int,
    /// Private: received bytes, low 31 bits.
    pub ep_count_lo: c_int,
    /// Private: received bytes, bits 31 and up.
    pub ep_count_hi: c_int,
    /// Private: 1 when the operation was cancelled.
    pub ep_cancelled: c_int,
}

/// Number of `int`s in an `EP_Status` (the Fortran status array size).
pub const EP_STATUS_SIZE: c_int = 6;

/// Bytes that each message buffered by `EP_Bsend`/`EP_Ibsend`/`EP_Bsend_init` takes in the
/// attached buffer beyond its packed data (MPI's `MPI_BSEND_OVERHEAD`, MPI 4.1 section 3.6.1):
/// size a buffer for n messages as the sum of their `MPI_Pack_size` plus n times this.
pub const EP_BSEND_OVERHEAD: c_int = 96;

/// The null communicator handle.
pub const EP_COMM_NULL: EP_Comm = 0;
/// The null request handle; completion calls set completed requests to it.
pub const EP_REQUEST_NULL: EP_Request = 0;
/// The null message handle.
pub const EP_MESSAGE_NULL: EP_Message = 0;
/// Message handle returned by a matched probe on `EP_PROC_NULL`.
pub const EP_MESSAGE_NO_PROC: EP_Message = 1;
/// The null window handle.
pub const EP_WIN_NULL: EP_Win = 0;
/// Wildcard source rank of receives and probes.
pub const EP_ANY_SOURCE: c_int = -2;
/// Wildcard tag of receives and probes.
pub const EP_ANY_TAG: c_int = -1;
/// Null peer: sends to it do nothing, receives from it complete at once.
pub const EP_PROC_NULL: c_int = -1;
/// Root argument of an intercommunicator collective at its root endpoint (the root group's
/// other endpoints pass `EP_PROC_NULL`, the remote group the root's rank); MPI's `MPI_ROOT`
/// (MPI 4.1 section 6.2.2). Intracommunicator collectives refuse it with `EP_ERR_ROOT`.
pub const EP_ROOT: c_int = -3;
/// Undefined value (`EP_Get_count` of a partial element, `EP_Waitany` with no active request).
pub const EP_UNDEFINED: c_int = -32766;
/// Room for the longest error string, terminating NUL included.
pub const EP_MAX_ERROR_STRING: c_int = 512;
/// Largest tag EPMPI carries, on every host MPI (tags travel in EPMPI's own header).
pub const EP_TAG_UB_VALUE: c_int = 2147483647;

/// The null group handle.
pub const EP_GROUP_NULL: EP_Group = 0;
/// The predefined empty group; group calls that give a group without members return it.
pub const EP_GROUP_EMPTY: EP_Group = 1;
/// The null error handler handle (`EP_Errhandler_free` sets freed handles to it).
pub const EP_ERRHANDLER_NULL: EP_Errhandler = 0;
/// The invalid keyval (`EP_Comm_free_keyval` sets freed keyvals to it).
pub const EP_KEYVAL_INVALID: c_int = 0;
/// Room for the longest communicator name, terminating NUL included.
pub const EP_MAX_OBJECT_NAME: c_int = 128;
/// Split type of `EP_Comm_split_type` that groups the endpoints of each process (EPMPI
/// extension; the host's `MPI_COMM_TYPE_SHARED` groups those of each node).
pub const EP_COMM_TYPE_PROCESS: c_int = 17744;

/// Result of `EP_Comm_compare`: the same communicator.
pub const EP_IDENT: c_int = 0;
/// Result of `EP_Comm_compare`: same ranks in the same order, different contexts.
pub const EP_CONGRUENT: c_int = 1;
/// Result of `EP_Comm_compare`: same endpoints, different order.
pub const EP_SIMILAR: c_int = 2;
/// Result of `EP_Comm_compare`: different endpoints.
pub const EP_UNEQUAL: c_int = 3;

/// Attribute key: largest tag value (`value` receives an `int *`).
pub const EP_TAG_UB: c_int = 1;
/// Attribute key: kind of communicator (`value` receives an `int *` to an `EP_FLAVOR_*`).
pub const EP_COMM_FLAVOR: c_int = 2;
/// `EP_COMM_FLAVOR` of an endpoints communicator.
pub const EP_FLAVOR_ENDPOINTS: c_int = 1;

/// Error handler: print a message naming the call and the cause, then abort all processes.
pub const EP_ERRORS_ARE_FATAL: c_int = 1;
/// Error handler: return the error code to the caller.
pub const EP_ERRORS_RETURN: c_int = 2;

/// Success.
pub const EP_SUCCESS: c_int = 0;
/// Invalid buffer pointer (NULL with a nonzero count).
pub const EP_ERR_BUFFER: c_int = 1;
/// Invalid count (negative).
pub const EP_ERR_COUNT: c_int = 2;
/// Invalid datatype.
pub const EP_ERR_TYPE: c_int = 3;
/// Invalid tag (negative, or a wildcard where not allowed).
pub const EP_ERR_TAG: c_int = 4;
/// Invalid communicator handle (null, freed, or not a communicator).
pub const EP_ERR_COMM: c_int = 5;
/// Invalid rank.
pub const EP_ERR_RANK: c_int = 6;
/// Invalid request handle.
pub const EP_ERR_REQUEST: c_int = 7;
/// Invalid root.
pub const EP_ERR_ROOT: c_int = 8;
/// Invalid reduction operation.
pub const EP_ERR_OP: c_int = 9;
/// Invalid argument of another kind.
pub const EP_ERR_ARG: c_int = 10;
/// Message longer than the receive buffer.
pub const EP_ERR_TRUNCATE: c_int = 11;
/// Errors are in the statuses (multiple-completion calls).
pub const EP_ERR_IN_STATUS: c_int = 12;
/// Request neither failed nor completed (multiple-completion calls).
pub const EP_ERR_PENDING: c_int = 13;
/// Invalid window handle.
pub const EP_ERR_WIN: c_int = 14;
/// The host MPI was not initialized with `MPI_THREAD_MULTIPLE`.
pub const EP_ERR_THREAD_LEVEL: c_int = 15;
/// Called before `MPI_Init_thread` or after `MPI_Finalize`: any failing call then has this
/// class, except `EP_Error_class`, `EP_Error_string`, `EP_Get_library_version`,
/// `EP_Comm_set_errhandler`/`EP_Comm_get_errhandler` (process default), `EP_Debug_live_*`,
/// `EP_Get_count` and `EP_Test_cancelled`, which work at any time.
pub const EP_ERR_NOT_INITIALIZED: c_int = 16;
/// Operation not supported by EPMPI.
pub const EP_ERR_UNSUPPORTED: c_int = 17;
/// Internal error (a bug in EPMPI, or a host MPI failure).
pub const EP_ERR_INTERN: c_int = 18;
/// Other error.
pub const EP_ERR_OTHER: c_int = 19;
/// One-sided operation or synchronisation outside its epoch (MPI's `MPI_ERR_RMA_SYNC`).
pub const EP_ERR_RMA_SYNC: c_int = 20;
/// Target memory outside the target endpoint's window (MPI's `MPI_ERR_RMA_RANGE`).
pub const EP_ERR_RMA_RANGE: c_int = 21;
/// Invalid lock type (MPI's `MPI_ERR_LOCKTYPE`).
pub const EP_ERR_LOCKTYPE: c_int = 22;
/// Invalid displacement or displacement unit (MPI's `MPI_ERR_DISP`).
pub const EP_ERR_DISP: c_int = 23;
/// Invalid size argument (MPI's `MPI_ERR_SIZE`).
pub const EP_ERR_SIZE: c_int = 24;
/// Invalid group (MPI's `MPI_ERR_GROUP`).
pub const EP_ERR_GROUP: c_int = 25;
/// Invalid attribute key value (MPI's `MPI_ERR_KEYVAL`).
pub const EP_ERR_KEYVAL: c_int = 26;
/// Invalid topology, or a topology call on a communicator without one (MPI's `MPI_ERR_TOPOLOGY`).
pub const EP_ERR_TOPOLOGY: c_int = 27;
/// Invalid dimension argument (MPI's `MPI_ERR_DIMS`).
pub const EP_ERR_DIMS: c_int = 28;
/// Last error class.
pub const EP_ERR_LASTCODE: c_int = 28;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{comm, envelope};
    use crate::error;

    /// The header's literal values (cbindgen needs literals) agree with the engine's.
    #[test]
    fn constants_match_engine() {
        assert_eq!(EP_ANY_SOURCE, envelope::ANY_SOURCE);
        assert_eq!(EP_ANY_TAG, envelope::ANY_TAG);
        assert_eq!(EP_PROC_NULL, envelope::PROC_NULL);
        assert_eq!(EP_ROOT, crate::engine::coll::inter::ROOT);
        assert_eq!(EP_UNDEFINED, crate::engine::split::UNDEFINED);
        assert_eq!(EP_COMM_TYPE_PROCESS, crate::engine::split::COMM_TYPE_PROCESS);
        assert_eq!(EP_GROUP_EMPTY, crate::handles::registry::GROUP_EMPTY);
        assert_eq!(EP_FLAVOR_ENDPOINTS, comm::Flavor::Endpoints as c_int);
        assert_eq!(EP_ERRORS_ARE_FATAL, comm::ERRORS_ARE_FATAL);
        assert_eq!(EP_ERRORS_RETURN, comm::ERRORS_RETURN);
        assert_eq!(EP_BSEND_OVERHEAD as usize, crate::engine::bsend::BSEND_OVERHEAD);
        let pairs = [
            (EP_SUCCESS, error::SUCCESS), (EP_ERR_BUFFER, error::ERR_BUFFER), (EP_ERR_COUNT, error::ERR_COUNT),
            (EP_ERR_TYPE, error::ERR_TYPE), (EP_ERR_TAG, error::ERR_TAG), (EP_ERR_COMM, error::ERR_COMM),
            (EP_ERR_RANK, error::ERR_RANK), (EP_ERR_REQUEST, error::ERR_REQUEST), (EP_ERR_ROOT, error::ERR_ROOT),
            (EP_ERR_OP, error::ERR_OP), (EP_ERR_ARG, error::ERR_ARG), (EP_ERR_TRUNCATE, error::ERR_TRUNCATE),
            (EP_ERR_IN_STATUS, error::ERR_IN_STATUS), (EP_ERR_PENDING, error::ERR_PENDING),
            (EP_ERR_WIN, error::ERR_WIN), (EP_ERR_THREAD_LEVEL, error::ERR_THREAD_LEVEL),
            (EP_ERR_NOT_INITIALIZED, error::ERR_NOT_INITIALIZED), (EP_ERR_UNSUPPORTED, error::ERR_UNSUPPORTED),
            (EP_ERR_INTERN, error::ERR_INTERN), (EP_ERR_OTHER, error::ERR_OTHER),
            (EP_ERR_RMA_SYNC, error::ERR_RMA_SYNC), (EP_ERR_RMA_RANGE, error::ERR_RMA_RANGE),
            (EP_ERR_LOCKTYPE, error::ERR_LOCKTYPE), (EP_ERR_DISP, error::ERR_DISP), (EP_ERR_SIZE, error::ERR_SIZE),
            (EP_ERR_GROUP, error::ERR_GROUP), (EP_ERR_KEYVAL, error::ERR_KEYVAL),
            (EP_ERR_TOPOLOGY, error::ERR_TOPOLOGY), (EP_ERR_DIMS, error::ERR_DIMS),
            (EP_ERR_LASTCODE, error::ERR_LASTCODE),
        ];
        for (public, engine) in pairs {
            assert_eq!(public, engine);
        }
        assert_eq!(std::mem::size_of::<EP_Status>(), EP_STATUS_SIZE as usize * 4);
    }
}
