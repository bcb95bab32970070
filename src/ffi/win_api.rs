//! One-sided communication on endpoint communicators (MPI 4.1 chapter 12; DESIGN.md
//! section 3). Target ranks are endpoint ranks of the window's communicator; datatypes, ops,
//! `MPI_Info`, `MPI_Aint`, lock types (`MPI_LOCK_SHARED`, `MPI_LOCK_EXCLUSIVE`) and
//! assertions (`MPI_MODE_*`) are the host MPI's own. Memory for windows and addresses for
//! dynamic windows come from the host (`MPI_Alloc_mem`, `MPI_Get_address`, `MPI_Aint_add`).
//!
//! Thread safety: each window handle is used by one thread at a time (its endpoint's);
//! different endpoints' handles are used concurrently. Open MPI 4.1 needs
//! `OMPI_MCA_osc=ucx` on systems where its default one-sided component fails (README).

use super::boundary::out;
use crate::handles::{endpoint, group, new_request, window, WINS};
use super::types::*;
use crate::engine::comm::{ERRORS_ARE_FATAL, ERRORS_RETURN};
use crate::engine::request::{Op, Request};
use super::attr_api::{delete_every, keyval_of};
use crate::engine::attr::KeyvalKind;
use crate::engine::win::create;
use crate::engine::win::ops::TargetMem;
use crate::engine::win::WinFlavor;
use epmpi_macros::c_export;
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_INTERN, ERR_KEYVAL, ERR_WIN};
use crate::host::sys::{MPI_Aint, MPI_Datatype, MPI_Info, MPI_Op};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn insert_window(w: crate::engine::win::WinEndpoint) -> EpResult<EP_Win> {
    let local = w.local as usize;
    WINS.insert_near(Arc::new(w), local).ok_or_else(|| ep_err!(ERR_INTERN, "too many live window handles"))
}

/// Creates a window exposing `size` bytes at `base` of each endpoint (MPI 4.1 section
/// 12.2.1, `MPI_Win_create`).
///
/// Collective: every endpoint of the intracommunicator `comm` calls it once, each with its
/// own memory (`size` may be 0 and differ between endpoints; `disp_unit` in bytes, > 0, may
/// differ too). `info` goes to the host window of the endpoint's local index. `*win`
/// receives this endpoint's window handle. Origins name targets by endpoint rank; a target
/// displacement `d` addresses byte `d * disp_unit` of the target's memory.
///
/// Errors: `EP_ERR_COMM` (bad handle, intercommunicator), `EP_ERR_SIZE` (negative size),
/// `EP_ERR_DISP` (`disp_unit <= 0`), `EP_ERR_BUFFER` (NULL base with size > 0),
/// `EP_ERR_ARG` (NULL `win`); host failures as `EP_ERR_WIN` with the host's message. A bad
/// argument on any endpoint fails the call on every endpoint of every process (the others get
/// its error class; docs/errors.md).
/// Thread safety: the endpoints of a process call concurrently, each from its own thread.
///
/// # Safety
/// `base` is readable and writable for `size` bytes until the window is freed (MPI 4.1 section
/// 12.2.1), except for the accesses MPI forbids during epochs; `info` is a valid host info
/// handle (or `MPI_INFO_NULL`); `win` points at a writable `EP_Win` (NULL gives `EP_ERR_ARG`).
#[allow(clippy::unnecessary_cast, reason = "MPI_Aint is the host's `long` (or `ptrdiff_t`): i64 here, not on every target")]
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_create(base: *mut c_void, size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: EP_Comm, win: *mut EP_Win) -> c_int {
    let ep = endpoint(comm)?;
    let win = out(win, "win");
    let w = create::create(&ep, WinFlavor::Create, base, size as i64, disp_unit, info, win.as_ref().err().cloned())?;
    *win? = insert_window(w)?;
    Ok(())
}

/// Allocates `size` bytes per endpoint and creates a window over them (MPI 4.1 section
/// 12.2.2, `MPI_Win_allocate`): `baseptr` is a `void **` that receives the address of this
/// endpoint's memory (zeroed, page-aligned, in pages no other window exposes; freed by
/// `EP_Win_free`). Collective like `EP_Win_create`.
///
/// Errors: as `EP_Win_create`; `EP_ERR_ARG` for a NULL `baseptr` or `win`.
/// Thread safety: as `EP_Win_create`.
///
/// # Safety
/// `baseptr` points at a writable `void *` and `win` at a writable `EP_Win` (NULL gives
/// `EP_ERR_ARG`); `info` is a valid host info handle (or `MPI_INFO_NULL`).
#[allow(clippy::unnecessary_cast, reason = "MPI_Aint is the host's `long` (or `ptrdiff_t`): i64 here, not on every target")]
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_allocate(size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: EP_Comm, baseptr: *mut c_void, win: *mut EP_Win) -> c_int {
    let ep = endpoint(comm)?;
    let baseptr = out(baseptr as *mut *mut c_void, "baseptr");
    let win = out(win, "win");
    let fault = baseptr.as_ref().err().or(win.as_ref().err()).cloned();
    let w = create::create(&ep, WinFlavor::Allocate, std::ptr::null_mut(), size as i64, disp_unit, info, fault)?;
    *baseptr? = w.base.0 as *mut c_void;
    *win? = insert_window(w)?;
    Ok(())
}

/// Allocates `size` bytes per endpoint in memory that every endpoint of `comm` can load from
/// and store into, and creates a window over it (MPI 4.1 section 12.2.3,
/// `MPI_Win_allocate_shared`): `baseptr` is a `void **` that receives the address of this
/// endpoint's segment (freed by `EP_Win_free`). `EP_Win_shared_query` gives the address of any
/// other endpoint's segment. Collective like `EP_Win_create` (sizes may differ and be 0).
///
/// Layout: by default the segments are contiguous in rank order (rank i's starts right after
/// the last byte of rank i-1's), across processes too. With the info key
/// `alloc_shared_noncontig` = "true" on every endpoint, each process holds its own endpoints'
/// segments (each starting on a 64-byte boundary); use `EP_Win_shared_query` then. Endpoints of
/// one process always share memory; endpoints of several processes need all those processes on
/// one node (the host's `MPI_Win_allocate_shared` over them; under Open MPI its `sm` one-sided
/// component must be allowed, e.g. `OMPI_MCA_osc=ucx,sm`). The window works with every
/// one-sided operation and synchronisation call; loads and stores follow MPI's rules for the
/// unified memory model (see `EP_WIN_MODEL` in `EP_Win_get_attr`).
///
/// Errors: as `EP_Win_create`; `EP_ERR_COMM` also when the processes of `comm` are not all on
/// one shared-memory node (MPI makes that call erroneous); `EP_ERR_ARG` for a NULL `baseptr`
/// or `win`; host failures as `EP_ERR_WIN` with the host's message. An error on any endpoint
/// fails the call on every endpoint. Thread safety: as `EP_Win_create`.
///
/// # Safety
/// `baseptr` points at a writable `void *` and `win` at a writable `EP_Win` (NULL gives
/// `EP_ERR_ARG`); `info` is a valid host info handle (or `MPI_INFO_NULL`).
#[allow(clippy::unnecessary_cast, reason = "MPI_Aint is the host's `long` (or `ptrdiff_t`): i64 here, not on every target")]
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_allocate_shared(
    size: MPI_Aint,
    disp_unit: c_int,
    info: MPI_Info,
    comm: EP_Comm,
    baseptr: *mut c_void,
    win: *mut EP_Win,
) -> c_int {
    let ep = endpoint(comm)?;
    let baseptr = out(baseptr as *mut *mut c_void, "baseptr");
    let win = out(win, "win");
    let fault = baseptr.as_ref().err().or(win.as_ref().err()).cloned();
    let w = create::create(&ep, WinFlavor::Shared, std::ptr::null_mut(), size as i64, disp_unit, info, fault)?;
    *baseptr? = w.base.0 as *mut c_void;
    *win? = insert_window(w)?;
    Ok(())
}

/// Where endpoint `rank`'s memory of the window is for this endpoint's loads and stores (MPI
/// 4.1 section 12.2.3, `MPI_Win_shared_query`): `*size` (bytes, an `MPI_Aint`), `*disp_unit`
/// and `*baseptr` (a `void **`). `rank = EP_PROC_NULL` names the lowest rank whose segment has
/// more than 0 bytes (size 0 and NULL when none has). Any window flavor: a window of
/// `EP_Win_allocate_shared` gives every rank's segment; windows of `EP_Win_create` and
/// `EP_Win_allocate` give those of the endpoints of this process (which share its memory) and
/// size 0 with a NULL address for others; dynamic windows size 0 and NULL. Local.
///
/// Errors: `EP_ERR_WIN` (bad handle), `EP_ERR_RANK` (rank outside the communicator),
/// `EP_ERR_ARG` (NULL output). Thread safety: any thread.
///
/// # Safety
/// `size` points at a writable `MPI_Aint`, `disp_unit` at a writable `int` and `baseptr` at a
/// writable `void *` (NULL gives `EP_ERR_ARG`).
#[allow(clippy::unnecessary_cast, reason = "MPI_Aint is the host's `long` (or `ptrdiff_t`): i64 here, not on every target")]
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_shared_query(
    win: EP_Win,
    rank: c_int,
    size: *mut MPI_Aint,
    disp_unit: *mut c_int,
    baseptr: *mut c_void,
) -> c_int {
    let (bytes, unit, base) = window(win)?.shared_query(rank)?;
    let size = out(size, "size")?;
    let disp_unit = out(disp_unit, "disp_unit")?;
    let baseptr = out(baseptr as *mut *mut c_void, "baseptr")?;
    *size = bytes as MPI_Aint;
    *disp_unit = unit as c_int;
    *baseptr = base as *mut c_void;
    Ok(())
}

/// Window attribute key: this endpoint's memory (`value` receives the `void *` itself;
/// `MPI_BOTTOM`, i.e. NULL, for dynamic windows).
pub const EP_WIN_BASE: c_int = 101;
/// Window attribute key: bytes this endpoint exposes (`value` receives an `MPI_Aint *`).
pub const EP_WIN_SIZE: c_int = 102;
/// Window attribute key: this endpoint's displacement unit (`value` receives an `int *`).
pub const EP_WIN_DISP_UNIT: c_int = 103;
/// Window attribute key: how the window was made (`value` receives an `int *` to an
/// `EP_WIN_FLAVOR_*`).
pub const EP_WIN_CREATE_FLAVOR: c_int = 104;
/// Window attribute key: memory model (`value` receives an `int *` to `EP_WIN_SEPARATE` or
/// `EP_WIN_UNIFIED`).
pub const EP_WIN_MODEL: c_int = 105;
/// `EP_WIN_CREATE_FLAVOR` of a window made by `EP_Win_create`.
pub const EP_WIN_FLAVOR_CREATE: c_int = 1;
/// `EP_WIN_CREATE_FLAVOR` of a window made by `EP_Win_allocate`.
pub const EP_WIN_FLAVOR_ALLOCATE: c_int = 2;
/// `EP_WIN_CREATE_FLAVOR` of a window made by `EP_Win_create_dynamic`.
pub const EP_WIN_FLAVOR_DYNAMIC: c_int = 3;
/// `EP_WIN_CREATE_FLAVOR` of a window made by `EP_Win_allocate_shared`.
pub const EP_WIN_FLAVOR_SHARED: c_int = 4;
/// `EP_WIN_MODEL`: public and private copies of window memory are kept apart (MPI 4.1 section
/// 12.4).
pub const EP_WIN_SEPARATE: c_int = 1;
/// `EP_WIN_MODEL`: one copy, updated by one-sided operations and by loads and stores alike.
pub const EP_WIN_UNIFIED: c_int = 2;

static FLAVOR_CREATE: c_int = EP_WIN_FLAVOR_CREATE;
static FLAVOR_ALLOCATE: c_int = EP_WIN_FLAVOR_ALLOCATE;
static FLAVOR_DYNAMIC: c_int = EP_WIN_FLAVOR_DYNAMIC;
static FLAVOR_SHARED: c_int = EP_WIN_FLAVOR_SHARED;
static MODEL_SEPARATE: c_int = EP_WIN_SEPARATE;
static MODEL_UNIFIED: c_int = EP_WIN_UNIFIED;

/// Reads a window attribute, as `MPI_Win_get_attr` does (MPI 4.1 sections 7.7.3, 12.2.6 and
/// 12.4). A key made by `EP_Win_create_keyval` gives the value `EP_Win_set_attr` stored on this
/// endpoint's window in `*(void **)value` with `*flag` 1 (even after the keyval was freed), or
/// `*flag` 0 when none is set. For the predefined keys, `value` is a `void *` that receives,
/// for `EP_WIN_BASE`, this endpoint's window
/// memory (the address itself), and for the other keys the address of the value: `EP_WIN_SIZE`
/// an `MPI_Aint *` (bytes this endpoint exposes), `EP_WIN_DISP_UNIT` an `int *`,
/// `EP_WIN_CREATE_FLAVOR` an `int *` to `EP_WIN_FLAVOR_CREATE`, `_ALLOCATE`, `_DYNAMIC` or
/// `_SHARED`, `EP_WIN_MODEL` an `int *` to `EP_WIN_UNIFIED` when every host window under the
/// window has the unified model (both supported hosts do here, so one-sided operations and
/// loads and stores see one copy of the memory), else `EP_WIN_SEPARATE`. The pointed-to values
/// stay valid while the window handle is. `*flag` is 1 for these keys.
///
/// Errors: `EP_ERR_WIN` (bad handle), `EP_ERR_KEYVAL` (neither a window keyval nor a
/// predefined window key), `EP_ERR_ARG` (NULL `value` or `flag`). Thread safety: any thread.
///
/// # Safety
/// `value` points at a writable `void *` and `flag` at a writable `int` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_get_attr(win: EP_Win, key: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
    let w = window(win)?;
    let value = out(value as *mut *const c_void, "value")?;
    let flag = out(flag, "flag")?;
    let by_flavor = |f: WinFlavor| match f {
        WinFlavor::Create => &FLAVOR_CREATE,
        WinFlavor::Allocate => &FLAVOR_ALLOCATE,
        WinFlavor::Dynamic => &FLAVOR_DYNAMIC,
        WinFlavor::Shared => &FLAVOR_SHARED,
    };
    *value = match key {
        EP_WIN_BASE => w.base.0 as *const c_void,
        EP_WIN_SIZE => &w.size as *const MPI_Aint as *const c_void,
        EP_WIN_DISP_UNIT => &w.disp_unit as *const c_int as *const c_void,
        EP_WIN_CREATE_FLAVOR => by_flavor(w.shared.flavor) as *const c_int as *const c_void,
        EP_WIN_MODEL => {
            let model = if w.shared.unified { &MODEL_UNIFIED } else { &MODEL_SEPARATE };
            model as *const c_int as *const c_void
        }
        _ => {
            let set = w.cache.lock().get(key).map(|a| a.value);
            match set {
                Some(v) => v as *const c_void,
                None => {
                    // A freed keyval still names the attributes set with it; anything else
                    // must be a live window keyval.
                    keyval_of(key, KeyvalKind::Win).map_err(|_| {
                        ep_err!(
                            ERR_KEYVAL,
                            "{key} is neither a window keyval nor a predefined window attribute key \
                             (EP_WIN_BASE, EP_WIN_SIZE, EP_WIN_DISP_UNIT, EP_WIN_CREATE_FLAVOR, EP_WIN_MODEL)"
                        )
                    })?;
                    *flag = 0;
                    return Ok(());
                }
            }
        }
    };
    *flag = 1;
    Ok(())
}

/// Creates a window with no memory yet (MPI 4.1 section 12.2.4, `MPI_Win_create_dynamic`):
/// each endpoint then exposes regions with `EP_Win_attach`; origins use the host addresses
/// of those regions (`MPI_Get_address`, `MPI_Aint_add`) as target displacements, with a
/// displacement unit of 1. Collective like `EP_Win_create`.
///
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL `win`), host failures as `EP_ERR_WIN`; a NULL
/// `win` on any endpoint fails the call on every endpoint of every process.
/// Thread safety: as `EP_Win_create`.
///
/// # Safety
/// `info` is a valid host info handle (or `MPI_INFO_NULL`); `win` points at a writable `EP_Win`
/// (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_create_dynamic(info: MPI_Info, comm: EP_Comm, win: *mut EP_Win) -> c_int {
    let ep = endpoint(comm)?;
    let win = out(win, "win");
    let w = create::create(&ep, WinFlavor::Dynamic, std::ptr::null_mut(), 0, 1, info, win.as_ref().err().cloned())?;
    *win? = insert_window(w)?;
    Ok(())
}

/// Exposes `size` bytes at `base` in this endpoint's part of a dynamic window (MPI 4.1
/// section 12.2.4). Local: no other endpoint takes part. Several regions may be attached.
///
/// Errors: `EP_ERR_WIN` (bad handle, not a dynamic window, host refusal), `EP_ERR_SIZE`,
/// `EP_ERR_BUFFER` (NULL base with size > 0). Thread safety: the endpoint's thread.
///
/// # Safety
/// `base` is readable and writable for `size` bytes until it is detached (MPI 4.1 section
/// 12.2.4).
#[allow(clippy::unnecessary_cast, reason = "MPI_Aint is the host's `long` (or `ptrdiff_t`): i64 here, not on every target")]
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_attach(win: EP_Win, base: *mut c_void, size: MPI_Aint) -> c_int {
    window(win)?.attach(base, size as i64)
}

/// Withdraws a region attached with `EP_Win_attach` at `base` (MPI 4.1 section 12.2.4).
/// Errors: `EP_ERR_WIN` (bad handle, not dynamic, region not attached), `EP_ERR_ARG` (NULL).
/// Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer is dereferenced: `base` is compared with the attached regions' addresses.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_detach(win: EP_Win, base: *const c_void) -> c_int {
    window(win)?.detach(base)
}

/// Frees this endpoint's window handle and sets it to `EP_WIN_NULL` (MPI 4.1 section
/// 12.2.5). Collective: returns when every endpoint of the window has called it; the host
/// windows (and `EP_Win_allocate` memory) go then. No lock may be held.
///
/// The endpoint's attributes are deleted first, each through its keyval's delete callback
/// (MPI 4.1 section 7.7.3), in the reverse order of their first setting. The window is freed
/// even when a callback fails (the other endpoints are in the collective free): every
/// attribute's callback runs once, the handle is set to `EP_WIN_NULL`, and the first
/// callback's error is returned.
///
/// Errors: `EP_ERR_WIN` (bad or freed handle), `EP_ERR_RMA_SYNC` (an epoch of lock, lock_all,
/// post or start open: the handle stays valid), `EP_ERR_ARG` (NULL), a delete callback's
/// error (the window freed). Thread safety: each endpoint from its own thread.
///
/// # Safety
/// `win` points at a readable and writable `EP_Win` (NULL gives `EP_ERR_ARG`); memory from
/// `EP_Win_allocate` is not used afterwards.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_free(win: *mut EP_Win) -> c_int {
    let h = out(win, "win")?;
    let w = window(*h)?;
    create::check_free(&w)?;
    // The free is collective: the window goes even when a delete callback fails, whose error
    // comes after (the other endpoints must not wait for a second call).
    let deleted = delete_every(&w.cache, *h);
    create::free(&w)?;
    WINS.remove(*h).map_err(|_| ep_err!(ERR_WIN, "window handle {} was freed", *h))?;
    *h = EP_WIN_NULL;
    deleted
}

/// Active-target synchronisation (MPI 4.1 section 12.5.1, `MPI_Win_fence`): collective
/// over all endpoints of the window; completes every operation issued since the previous
/// fence and opens the next epoch (unless `assert` has `MPI_MODE_NOSUCCEED`). `assert` is a
/// combination of the host's `MPI_MODE_*` bits, or 0.
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_RMA_SYNC` (inside a lock epoch), host failures.
/// Thread safety: each endpoint from its own thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_fence(assert: c_int, win: EP_Win) -> c_int {
    window(win)?.fence(assert)
}

/// Starts a passive-target epoch on endpoint `rank` (MPI 4.1 section 12.5.3,
/// `MPI_Win_lock`): `lock_type` is the host's `MPI_LOCK_SHARED` or `MPI_LOCK_EXCLUSIVE`;
/// `assert` 0 or `MPI_MODE_NOCHECK`. An exclusive lock excludes every other endpoint, of any
/// process, this one's included; the call may block until the lock is granted.
/// `EP_PROC_NULL` does nothing.
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_RANK`, `EP_ERR_LOCKTYPE`, `EP_ERR_RMA_SYNC` (already
/// locked by this endpoint, or inside `EP_Win_lock_all` or a start's access epoch). Thread
/// safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_lock(lock_type: c_int, rank: c_int, assert: c_int, win: EP_Win) -> c_int {
    window(win)?.lock(lock_type, rank, assert)
}

/// Ends the passive-target epoch on `rank` (MPI 4.1 section 12.5.3, `MPI_Win_unlock`):
/// every operation this endpoint issued to it is complete at origin and target.
/// Errors: `EP_ERR_WIN`, `EP_ERR_RANK`, `EP_ERR_RMA_SYNC` (not locked). Thread safety: the
/// endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_unlock(rank: c_int, win: EP_Win) -> c_int {
    window(win)?.unlock(rank)
}

/// Starts a shared passive-target epoch on every endpoint of the window (MPI 4.1 section
/// 12.5.3, `MPI_Win_lock_all`); `assert` 0 or `MPI_MODE_NOCHECK`.
/// Errors: `EP_ERR_WIN`, `EP_ERR_RMA_SYNC` (already in a lock epoch or a start's access
/// epoch). Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_lock_all(assert: c_int, win: EP_Win) -> c_int {
    window(win)?.lock_all(assert)
}

/// Ends the `EP_Win_lock_all` epoch (MPI 4.1 section 12.5.3, `MPI_Win_unlock_all`).
/// Errors: `EP_ERR_WIN`, `EP_ERR_RMA_SYNC` (no lock_all). Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_unlock_all(win: EP_Win) -> c_int {
    window(win)?.unlock_all()
}

/// Completes, at origin and target, every operation this endpoint issued to `rank` (MPI
/// 4.1 section 12.5.4, `MPI_Win_flush`); inside a lock or lock_all epoch on it.
/// Errors: `EP_ERR_WIN`, `EP_ERR_RANK`, `EP_ERR_RMA_SYNC`. Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_flush(rank: c_int, win: EP_Win) -> c_int {
    window(win)?.flush(rank, false)
}

/// `EP_Win_flush` of every target this endpoint has locked (MPI 4.1 section 12.5.4,
/// `MPI_Win_flush_all`). Errors: `EP_ERR_WIN`. Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_flush_all(win: EP_Win) -> c_int {
    window(win)?.flush_all(false)
}

/// Completes at the origin (buffers reusable) the operations this endpoint issued to
/// `rank` (MPI 4.1 section 12.5.4, `MPI_Win_flush_local`).
/// Errors: `EP_ERR_WIN`, `EP_ERR_RANK`, `EP_ERR_RMA_SYNC`. Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_flush_local(rank: c_int, win: EP_Win) -> c_int {
    window(win)?.flush(rank, true)
}

/// `EP_Win_flush_local` of every target this endpoint has locked (MPI 4.1 section 12.5.4,
/// `MPI_Win_flush_local_all`): its operations complete at the origin (buffers reusable).
/// Errors: `EP_ERR_WIN`. Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_flush_local_all(win: EP_Win) -> c_int {
    window(win)?.flush_all(true)
}

/// Synchronises the public and private copies of this endpoint's window memory (MPI 4.1
/// section 12.5.4, `MPI_Win_sync`): a full memory barrier (both hosts use the unified model).
/// Errors: `EP_ERR_WIN`. Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_sync(win: EP_Win) -> c_int {
    window(win)?.sync()
}

/// Opens an exposure epoch of this endpoint's memory to the endpoints of `group` (MPI 4.1
/// section 12.5.2, `MPI_Win_post`): each of them may then access it in an epoch of
/// `EP_Win_start`; `EP_Win_wait` or `EP_Win_test` ends it. Does not block. `group` is a group
/// of the window's endpoints (from `EP_Win_get_group` or `EP_Comm_group` and the group
/// calls), this endpoint allowed; `assert` is 0 or an or of the host's `MPI_MODE_NOCHECK`,
/// `MPI_MODE_NOSTORE`, `MPI_MODE_NOPUT` (`MPI_MODE_NOCHECK` only when every matching start
/// gives it too).
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_GROUP` (bad handle, or an endpoint not in the window),
/// `EP_ERR_ARG` (other assertion bits), `EP_ERR_RMA_SYNC` (already exposed by a post not
/// waited for), `EP_ERR_UNSUPPORTED` (when 2 x (endpoints per process)^2 exceeds the host's
/// `MPI_TAG_UB` + 1, whose tags then cannot name them: above about 11,500 endpoints per
/// process on MPICH), host failures of a notice (the epoch is open and every other origin
/// told). Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_post(group: EP_Group, assert: c_int, win: EP_Win) -> c_int {
    let w = window(win)?;
    let ranks = w.ranks_in(&*self::group(group)?)?;
    w.post(ranks, assert)
}

/// Opens an access epoch of this endpoint to the endpoints of `group` (MPI 4.1 section
/// 12.5.2, `MPI_Win_start`): `EP_Put`, `EP_Get`, `EP_Accumulate` and the other operations
/// (not the request forms, which need a lock) may then target them until `EP_Win_complete`.
/// Blocks until every target has called the matching `EP_Win_post`, unless `assert` is the
/// host's `MPI_MODE_NOCHECK` (the program guarantees the posts, which then give it too); 0
/// otherwise. The targets are locked shared in the host meanwhile, so a target's exclusive
/// passive-target lock and a start's epoch exclude each other.
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_GROUP`, `EP_ERR_ARG` (other assertion bits),
/// `EP_ERR_RMA_SYNC` (inside an access epoch of start, lock or lock_all), `EP_ERR_UNSUPPORTED`
/// (as `EP_Win_post`), host failures: a start that fails after it began to wait opens no
/// epoch and ends its targets' exposure as `EP_Win_complete` would. Thread safety: the
/// endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_start(group: EP_Group, assert: c_int, win: EP_Win) -> c_int {
    let w = window(win)?;
    let ranks = w.ranks_in(&*self::group(group)?)?;
    w.start(ranks, assert)
}

/// Ends the access epoch of `EP_Win_start` (MPI 4.1 section 12.5.2, `MPI_Win_complete`): every
/// operation of the epoch is complete, at the origin and at its target, and each target's
/// `EP_Win_wait` may return. Does not wait for the targets' waits.
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_RMA_SYNC` (no start), host failures (every target is told
/// of the end even then). Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_complete(win: EP_Win) -> c_int {
    window(win)?.complete()
}

/// Ends the exposure epoch of `EP_Win_post` (MPI 4.1 section 12.5.2, `MPI_Win_wait`): blocks
/// until every endpoint of the post's group has called `EP_Win_complete`; their operations
/// are then in this endpoint's memory.
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_RMA_SYNC` (no post), host failures (the epoch ends).
/// Thread safety: the endpoint's thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_wait(win: EP_Win) -> c_int {
    window(win)?.wait_exposure()
}

/// `EP_Win_wait` without blocking (MPI 4.1 section 12.5.2, `MPI_Win_test`): `*flag` = 1 when
/// every origin of the post's group has completed, and the exposure epoch is then over (as
/// after `EP_Win_wait`); 0 otherwise, and the epoch goes on.
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_ARG` (NULL `flag`), `EP_ERR_RMA_SYNC` (no post). Thread
/// safety: the endpoint's thread.
///
/// # Safety
/// `flag` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_test(win: EP_Win, flag: *mut c_int) -> c_int {
    let w = window(win)?;
    let flag = out(flag, "flag")?;
    *flag = w.test_exposure()? as c_int;
    Ok(())
}

fn target(rank: c_int, disp: MPI_Aint, count: c_int, dtype: MPI_Datatype) -> TargetMem {
    TargetMem { rank, disp, count, dtype }
}

/// Writes `origin_count` elements of `origin_datatype` at `origin_addr` into endpoint
/// `target_rank`'s window at displacement `target_disp` (in its displacement units) as
/// `target_count` elements of `target_datatype` (MPI 4.1 section 12.3.1, `MPI_Put`).
/// Complete at the next fence, unlock or flush. `EP_PROC_NULL` does nothing.
///
/// Errors: `EP_ERR_WIN`, `EP_ERR_RANK`, `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_BUFFER`,
/// `EP_ERR_DISP` (negative displacement), `EP_ERR_RMA_RANGE` (past the target's window),
/// `EP_ERR_RMA_SYNC` (outside an access epoch on the target). Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` is readable for `origin_count` elements of `origin_datatype` and left
/// unchanged until the operation completes at the origin (the epoch's end, a flush or, for
/// request operations, the request); the datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Put(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: EP_Win,
) -> c_int {
    window(win)?.put(origin_addr, origin_count, origin_datatype, &target(target_rank, target_disp, target_count, target_datatype))
}

/// Reads `target_count` elements of `target_datatype` at `target_disp` of endpoint
/// `target_rank`'s window into `origin_addr` (MPI 4.1 section 12.3.2, `MPI_Get`); the data
/// is there after the next fence, unlock or flush. Errors: as `EP_Put`.
/// Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` is writable for `origin_count` elements of `origin_datatype` and not accessed
/// by the caller until the operation completes at the origin (the epoch's end, a flush or, for
/// request operations, the request); the datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Get(
    origin_addr: *mut c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: EP_Win,
) -> c_int {
    window(win)?.get(origin_addr, origin_count, origin_datatype, &target(target_rank, target_disp, target_count, target_datatype))
}

fn rma_request(r: Option<crate::host::HostRequest>) -> EpResult<EP_Request> {
    new_request(Request::completed(Op::Rma(r)))
}

/// `EP_Put` with a request (MPI 4.1 section 12.3.5, `MPI_Rput`), inside a passive-target
/// epoch: completing `*request` (`EP_Wait`, `EP_Test`, ...) makes the origin buffer
/// reusable; the data is at the target after a flush or unlock. Errors: as `EP_Put`;
/// `EP_ERR_ARG` for a NULL `request`. Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` is readable for `origin_count` elements of `origin_datatype` and left
/// unchanged until the operation completes at the origin (the epoch's end, a flush or, for
/// request operations, the request); the datatypes are valid host handles; `request` points at
/// a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Rput(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: EP_Win,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let w = window(win)?;
    let r = w.rput(origin_addr, origin_count, origin_datatype, &target(target_rank, target_disp, target_count, target_datatype))?;
    *request = rma_request(r)?;
    Ok(())
}

/// `EP_Get` with a request (MPI 4.1 section 12.3.5, `MPI_Rget`): the data is in
/// `origin_addr` once `*request` completes. Errors: as `EP_Rput`.
/// Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` is writable for `origin_count` elements of `origin_datatype` and not accessed
/// by the caller until the operation completes at the origin (the epoch's end, a flush or, for
/// request operations, the request); the datatypes are valid host handles; `request` points at
/// a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Rget(
    origin_addr: *mut c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    win: EP_Win,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let w = window(win)?;
    let r = w.rget(origin_addr, origin_count, origin_datatype, &target(target_rank, target_disp, target_count, target_datatype))?;
    *request = rma_request(r)?;
    Ok(())
}

/// Combines origin data into the target with `op` (MPI 4.1 section 12.3.4,
/// `MPI_Accumulate`): a predefined op (`MPI_REPLACE` included), element-wise atomic against
/// every other accumulate on the same memory, from endpoints of any process, this one's
/// included. Errors: as `EP_Put`; `EP_ERR_OP`. Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` is readable for `origin_count` elements of `origin_datatype` and left
/// unchanged until the operation completes at the origin (the epoch's end, a flush or, for
/// request operations, the request); the datatypes are valid host handles; `op` is a valid host
/// op.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: EP_Win,
) -> c_int {
    window(win)?.accumulate(origin_addr, origin_count, origin_datatype, &target(target_rank, target_disp, target_count, target_datatype), op)
}

/// Fetches the target data into `result_addr`, then accumulates the origin data into it
/// with `op`, atomically (MPI 4.1 section 12.3.4, `MPI_Get_accumulate`); `MPI_NO_OP` only
/// fetches (the origin buffer is then not read). Errors: as `EP_Accumulate`.
/// Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` (not read with `MPI_NO_OP`) is readable for `origin_count` elements of
/// `origin_datatype` and `result_addr` writable for `result_count` elements of
/// `result_datatype`, until the operation completes at the origin (the epoch's end, a flush or,
/// for request operations, the request); the datatypes and `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Get_accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    result_addr: *mut c_void,
    result_count: c_int,
    result_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: EP_Win,
) -> c_int {
    window(win)?.get_accumulate(
        origin_addr,
        origin_count,
        origin_datatype,
        result_addr,
        result_count,
        result_datatype,
        &target(target_rank, target_disp, target_count, target_datatype),
        op,
    )
}

/// `EP_Accumulate` with a request (MPI 4.1 section 12.3.5, `MPI_Raccumulate`), inside a
/// passive-target epoch: completing `*request` (`EP_Wait`, `EP_Test`, ...) makes the origin
/// buffer reusable; the data is combined at the target after a flush or unlock. Errors: as
/// `EP_Accumulate`; `EP_ERR_ARG` for a NULL `request`. Thread safety: the endpoint's thread.
///
/// # Safety
/// As for `EP_Accumulate`; `request` points at a writable `EP_Request` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Raccumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: EP_Win,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let t = target(target_rank, target_disp, target_count, target_datatype);
    let r = window(win)?.raccumulate(origin_addr, origin_count, origin_datatype, &t, op)?;
    *request = rma_request(r)?;
    Ok(())
}

/// `EP_Get_accumulate` with a request (MPI 4.1 section 12.3.5, `MPI_Rget_accumulate`), inside
/// a passive-target epoch: the fetched data is in `result_addr` and the origin buffer reusable
/// once `*request` completes. Errors: as `EP_Get_accumulate`; `EP_ERR_ARG` for a NULL
/// `request`. Thread safety: the endpoint's thread.
///
/// # Safety
/// As for `EP_Get_accumulate`; `request` points at a writable `EP_Request` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Rget_accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: MPI_Datatype,
    result_addr: *mut c_void,
    result_count: c_int,
    result_datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    target_count: c_int,
    target_datatype: MPI_Datatype,
    op: MPI_Op,
    win: EP_Win,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let t = target(target_rank, target_disp, target_count, target_datatype);
    let r = window(win)?.rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, &t, op)?;
    *request = rma_request(r)?;
    Ok(())
}

/// One-element `EP_Get_accumulate` (MPI 4.1 section 12.3.4, `MPI_Fetch_and_op`): the old
/// target element goes to `result_addr`, the target becomes `old op origin`. `datatype` is
/// a predefined type (`MPI_AINT`, `MPI_INT64_T`, ...); `MPI_SUM`, `MPI_REPLACE`, `MPI_NO_OP`
/// and the other predefined ops. Errors: as `EP_Accumulate`. Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` (not read with `MPI_NO_OP`) is readable and `result_addr` writable for one
/// element of `datatype`, until the operation completes at the origin (the epoch's end, a flush
/// or, for request operations, the request); `datatype` and `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Fetch_and_op(
    origin_addr: *const c_void,
    result_addr: *mut c_void,
    datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    op: MPI_Op,
    win: EP_Win,
) -> c_int {
    window(win)?.fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op)
}

/// Atomically replaces the target element with `*origin_addr` if it equals
/// `*compare_addr`; the old element goes to `result_addr` either way (MPI 4.1 section
/// 12.3.4, `MPI_Compare_and_swap`). `datatype`: a predefined integer, logical or byte type.
/// Errors: as `EP_Put`. Thread safety: the endpoint's thread.
///
/// # Safety
/// `origin_addr` and `compare_addr` are readable and `result_addr` writable for one element of
/// `datatype`, until the operation completes at the origin (the epoch's end, a flush or, for
/// request operations, the request); `datatype` is a valid host handle.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Compare_and_swap(
    origin_addr: *const c_void,
    compare_addr: *const c_void,
    result_addr: *mut c_void,
    datatype: MPI_Datatype,
    target_rank: c_int,
    target_disp: MPI_Aint,
    win: EP_Win,
) -> c_int {
    window(win)?.compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp)
}

/// Sets the error handler of this endpoint's window handle (MPI 4.1 section 9.3.2):
/// `EP_ERRORS_ARE_FATAL` or `EP_ERRORS_RETURN`. A window starts with the handler of the
/// communicator endpoint that created it. Errors: `EP_ERR_WIN`, `EP_ERR_ARG`.
/// Thread safety: any thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_set_errhandler(win: EP_Win, handler: c_int) -> c_int {
    if handler != ERRORS_ARE_FATAL && handler != ERRORS_RETURN {
        return Err(ep_err!(ERR_ARG, "unknown error handler {handler}"));
    }
    window(win)?.errhandler.store(handler, Ordering::Relaxed);
    Ok(())
}

/// Reads the error handler of a window handle (MPI 4.1 section 9.3.2).
/// Errors: `EP_ERR_WIN`, `EP_ERR_ARG` (NULL). Thread safety: any thread.
///
/// # Safety
/// `handler` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Win_get_errhandler(win: EP_Win, handler: *mut c_int) -> c_int {
    let h = window(win)?.errhandler();
    *out(handler, "handler")? = h;
    Ok(())
}

/// Counts this process's live window handles (one per endpoint per window), for leak
/// checks in tests and long runs. Thread safety: any thread (a snapshot). EPMPI extension,
/// companion of `EP_Debug_live_handles`. Errors: `EP_ERR_ARG` (NULL).
///
/// # Safety
/// `windows` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Debug_live_windows(windows: *mut c_int) -> c_int {
    *out(windows, "windows")? = WINS.live() as c_int;
    Ok(())
}
