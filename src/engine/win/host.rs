//! The host MPI's side of windows: its one-sided constants (read through
//! `host_rma_shim.c`), a window handle the engine can share between threads, and the
//! mapping of host one-sided error classes onto EPMPI's.

use crate::error::{EpError, EpResult, ERR_ARG, ERR_DISP, ERR_LOCKTYPE, ERR_OP, ERR_RANK, ERR_RMA_RANGE, ERR_RMA_SYNC, ERR_SIZE, ERR_TYPE, ERR_WIN};
use crate::host::{sys, HOST};
use std::sync::LazyLock;
use std::os::raw::{c_char, c_int};

/// Host one-sided constants, filled once by `epmpi_host_rma_constants_get` (same layout as
/// the C struct in `src/host_rma_shim.c`).
#[repr(C)]
pub struct HostRmaConstants {
    pub win_null: sys::MPI_Win,
    pub aint: sys::MPI_Datatype,
    pub op_replace: sys::MPI_Op,
    pub op_no_op: sys::MPI_Op,
    pub op_sum: sys::MPI_Op,
    pub lock_exclusive: c_int,
    pub lock_shared: c_int,
    pub mode_nocheck: c_int,
    pub mode_nosucceed: c_int,
    pub mode_noprecede: c_int,
    pub mode_noput: c_int,
    pub mode_nostore: c_int,
    pub err_rma_sync: c_int,
    pub err_rma_range: c_int,
    pub err_rma_conflict: c_int,
    pub err_rma_attach: c_int,
    pub err_disp: c_int,
    pub err_type: c_int,
    pub err_op: c_int,
    pub err_rank: c_int,
    pub err_locktype: c_int,
    pub err_assert: c_int,
    pub err_size: c_int,
    pub err_arg: c_int,
    /// The host serves remote one-sided requests only in its general progress engine.
    pub needs_target_progress: c_int,
    /// `MPI_COMM_TYPE_SHARED`: processes that can share memory.
    pub comm_type_shared: c_int,
    /// The `MPI_WIN_MODEL` attribute key and its value `MPI_WIN_UNIFIED`.
    pub win_model_key: c_int,
    pub win_unified: c_int,
    /// A lock under `MPI_MODE_NOCHECK` leaves the host's later locks of that target working
    /// (not so on MPICH 4.0.2: `host_rma_shim.c`).
    pub nocheck_lock_reliable: c_int,
    /// `EP_Win_allocate` takes its memory from the host's `MPI_Win_allocate`, which the host
    /// reaches faster than other memory (Open MPI: `host_rma_shim.c`); elsewhere from pages of
    /// the library under `MPI_Win_create`.
    pub allocate_window_memory: c_int,
}

// SAFETY: immutable handle values of the host library.
unsafe impl Send for HostRmaConstants {}
// SAFETY: nothing writes the struct after `RMA` is initialised, so shared
// references only read.
unsafe impl Sync for HostRmaConstants {}

extern "C" {
    fn epmpi_host_rma_constants_get(out: *mut HostRmaConstants);
}

/// The host's one-sided constants, read on first use.
// SAFETY: `epmpi_host_rma_constants_get` (host_rma_shim.c) writes every field of
// `c`, a `repr(C)` struct with the C struct's layout, before `assume_init`.
pub static RMA: LazyLock<HostRmaConstants> = LazyLock::new(|| unsafe {
    let mut c = std::mem::MaybeUninit::<HostRmaConstants>::uninit();
    epmpi_host_rma_constants_get(c.as_mut_ptr());
    c.assume_init()
});

/// A host window owned by the engine. `Send`/`Sync`: host handles may be used from any
/// thread under `MPI_THREAD_MULTIPLE`, which communicator creation checks.
#[derive(Clone, Copy)]
pub struct HostWin(pub sys::MPI_Win);
// SAFETY: a host window handle is a plain value; under `MPI_THREAD_MULTIPLE`, which
// creation checks, any thread may use it.
unsafe impl Send for HostWin {}
// SAFETY: a shared `HostWin` only gives copies of the handle value.
unsafe impl Sync for HostWin {}

/// Runs the host's progress engine once where the host needs it to serve other processes'
/// one-sided requests on this process's windows (Open MPI: see `host_rma_shim.c`). Every
/// synchronisation call runs it or a host call that waits in that engine (a lock or unlock
/// that asks another process: `LockTable`), but flushes, which run it one call in
/// [`FLUSHES_PER_PROGRESS`] of the thread's ([`progress_targets_now_and_then`]) unless they
/// flush host operations on this process's own windows, whose host calls do not run it. So an
/// endpoint that only locks its own window (XIOS's clients do, while the server reads) or
/// only flushes still lets the server's locks through.
pub fn progress_targets() {
    if RMA.needs_target_progress != 0 {
        let mut flag = 0;
        // An Iprobe runs the progress engine; MPI_COMM_SELF and a wildcard take nothing.
        // SAFETY: a probe on `MPI_COMM_SELF` (valid while MPI is, and every caller runs on
        // a live window) that writes only `flag`, a live local; the status is ignored.
        unsafe { sys::MPI_Iprobe(HOST.any_source, HOST.any_tag, HOST.comm_self, &mut flag, HOST.status_ignore) };
    }
}

/// A thread's flushes run [`progress_targets`] once in this many: a put and a flush of 4 KiB
/// between two processes took 0.33 us with the probe at every flush against 0.25 without
/// (Open MPI 4.1.4; plain MPI 0.10 us), and a loop of flushes still serves other processes'
/// requests within 16 of its flushes.
const FLUSHES_PER_PROGRESS: u32 = 16;

thread_local! {
    /// This thread's flushes since its last [`progress_targets`] through
    /// [`progress_targets_now_and_then`].
    static FLUSHES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// [`progress_targets`] at one call in [`FLUSHES_PER_PROGRESS`] of this thread's.
pub fn progress_targets_now_and_then() {
    if RMA.needs_target_progress == 0 {
        return;
    }
    let due = FLUSHES.with(|n| {
        let k = n.get() + 1;
        n.set(if k >= FLUSHES_PER_PROGRESS { 0 } else { k });
        k >= FLUSHES_PER_PROGRESS
    });
    if due {
        progress_targets();
    }
}

/// Serialises, within the process, the host calls that touch dynamic windows' regions where
/// the host needs it: Open MPI 4.1's UCX component keeps the remote keys of dynamic windows
/// in tables it does not lock, and threads attaching or issuing operations at once corrupt
/// them ("failed to unpack remote key", then a crash). Only operations and attach/detach
/// take it; the only wait under it is the local completion of an operation on Open MPI 4
/// (`ompi4.rs`), which needs no other thread of this process. MPICH runs without it.
pub static DYNAMIC_SERIAL: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

/// A pointer handed between the endpoints of a process during window creation.
#[derive(Clone, Copy)]
pub struct SendPtr(pub *mut u8);
// SAFETY: only an address moves between threads; whoever dereferences it answers
// for the memory (the user's window memory, or the host's from `MPI_Win_allocate`).
unsafe impl Send for SendPtr {}
// SAFETY: as for `Send`: a shared `SendPtr` only gives copies of the address.
unsafe impl Sync for SendPtr {}

/// Turns the return code of a host one-sided call into an engine error whose class says
/// what the host found (`EP_ERR_RMA_SYNC` for an operation outside an epoch, ...) and whose
/// message carries the host's own text.
pub fn check_rma(rc: c_int, what: &str) -> EpResult<()> {
    if rc == HOST.success {
        return Ok(());
    }
    let mut host_class = 0;
    let mut text = vec![0 as c_char; sys::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len = 0;
    // SAFETY: any code the host returned is valid input; the host writes `host_class`
    // and `len`, and at most `MPI_MAX_ERROR_STRING` characters into `text`, which holds one
    // more.
    unsafe {
        sys::MPI_Error_class(rc, &mut host_class);
        sys::MPI_Error_string(rc, text.as_mut_ptr(), &mut len);
    }
    let text: String = text[..len.clamp(0, sys::MPI_MAX_ERROR_STRING as c_int) as usize].iter().map(|&c| c as u8 as char).collect();
    let r = &*RMA;
    let class = match host_class {
        c if c == r.err_rma_sync => ERR_RMA_SYNC,
        c if c == r.err_rma_range => ERR_RMA_RANGE,
        c if c == r.err_disp => ERR_DISP,
        c if c == r.err_type => ERR_TYPE,
        c if c == r.err_op => ERR_OP,
        c if c == r.err_rank => ERR_RANK,
        c if c == r.err_locktype => ERR_LOCKTYPE,
        c if c == r.err_size => ERR_SIZE,
        c if c == r.err_arg || c == r.err_assert => ERR_ARG,
        _ => ERR_WIN,
    };
    Err(EpError::new(class, format!("host MPI call {what} failed: {}", text.trim_end())))
}
