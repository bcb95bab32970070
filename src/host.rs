//! The host MPI: raw bindings (mpi-sys), its constants (from mpi-sys and `host_shim.c`), and thin
//! safe wrappers for the handful of host calls the engine makes everywhere.
//!
//! Host handles differ in representation (Open MPI: pointers, MPICH: ints), so nothing here
//! depends on their layout except [`handle_bits`], which only reads the bytes.

use crate::error::{EpError, EpResult, ERR_INTERN};
pub use mpi_sys as sys;
use std::sync::LazyLock;
use std::os::raw::{c_int, c_void};

/// The host's predefined handles and constants: those mpi-sys exports (its `RSMPI_*` statics)
/// read from it, the rest from `host_shim.c` ([`ShimConstants`]).
pub struct HostConstants {
    pub comm_world: sys::MPI_Comm,
    pub comm_null: sys::MPI_Comm,
    pub comm_self: sys::MPI_Comm,
    pub datatype_null: sys::MPI_Datatype,
    pub byte: sys::MPI_Datatype,
    pub packed: sys::MPI_Datatype,
    pub int_: sys::MPI_Datatype,
    pub message_null: sys::MPI_Message,
    pub request_null: sys::MPI_Request,
    pub info_null: sys::MPI_Info,
    pub op_null: sys::MPI_Op,
    pub op_min: sys::MPI_Op,
    pub op_max: sys::MPI_Op,
    pub op_sum: sys::MPI_Op,
    pub in_place: *mut c_void,
    pub status_ignore: *mut sys::MPI_Status,
    pub errors_return: sys::MPI_Errhandler,
    pub any_source: c_int,
    pub any_tag: c_int,
    pub proc_null: c_int,
    pub undefined: c_int,
    pub tag_ub_key: c_int,
    pub thread_multiple: c_int,
    pub success: c_int,
    pub comm_type_shared: c_int,
    pub root: c_int,
    /// 1 when the host's point-to-point semantics allow direct mode (see `host_shim.c`).
    pub direct_p2p: c_int,
}

/// What mpi-sys does not export, filled by `epmpi_host_constants_get` (same layout as the C
/// struct): handles bindgen cannot see (`MPI_BYTE`, `MPI_PACKED`, `MPI_INT`, `MPI_OP_NULL`, the address
/// macro `MPI_IN_PLACE`), integer constants whose Rust type
/// differs between hosts (a `#define` in MPICH, an `enum` in Open MPI), and the host's
/// semantics for direct mode.
#[repr(C)]
struct ShimConstants {
    byte: sys::MPI_Datatype,
    packed: sys::MPI_Datatype,
    int_: sys::MPI_Datatype,
    op_null: sys::MPI_Op,
    in_place: *mut c_void,
    tag_ub_key: c_int,
    success: c_int,
    root: c_int,
    direct_p2p: c_int,
}

// SAFETY: the struct holds immutable handle values and addresses of host globals.
unsafe impl Send for HostConstants {}
// SAFETY: nothing writes the struct after `HOST` is initialised, so shared references only read.
unsafe impl Sync for HostConstants {}

extern "C" {
    fn epmpi_host_constants_get(out: *mut ShimConstants);
    fn epmpi_host_predefined_types(out: *mut sys::MPI_Datatype, max: c_int) -> c_int;
    fn epmpi_host_type_is_named(t: sys::MPI_Datatype) -> c_int;
}

/// True when `t` is one of the host's predefined datatypes (combiner `MPI_COMBINER_NAMED`,
/// MPI 4.1 section 5.1.13), which no program can free: `MPI_2INT` and the other pair types,
/// the Fortran and optional types, beside those the engine caches. One host call. `t` must be
/// a valid datatype (checked by the caller): `MPI_Type_get_envelope` has no communicator, so
/// the host reports an invalid one through its default error handler, fatal by default.
pub fn type_is_named(t: sys::MPI_Datatype) -> bool {
    // SAFETY: the C function only passes `t`, a valid datatype, to `MPI_Type_get_envelope`
    // and writes its own locals.
    unsafe { epmpi_host_type_is_named(t) == 1 }
}

/// The host constants, read on first use.
pub static HOST: LazyLock<HostConstants> = LazyLock::new(|| {
    let mut c = std::mem::MaybeUninit::<ShimConstants>::uninit();
    // SAFETY: `epmpi_host_constants_get` (host_shim.c) writes every field of `c`, a `repr(C)`
    // struct with the C struct's layout, before `assume_init`; it reads only the host's
    // link-time constants, which is valid before `MPI_Init` as well.
    let c = unsafe {
        epmpi_host_constants_get(c.as_mut_ptr());
        c.assume_init()
    };
    // SAFETY: mpi-sys's `RSMPI_*` statics are constants its C shim initialises from the host's
    // macros and never writes; reading them is valid before `MPI_Init` as well.
    unsafe {
        HostConstants {
            comm_world: sys::RSMPI_COMM_WORLD,
            comm_null: sys::RSMPI_COMM_NULL,
            comm_self: sys::RSMPI_COMM_SELF,
            datatype_null: sys::RSMPI_DATATYPE_NULL,
            byte: c.byte,
            packed: c.packed,
            int_: c.int_,
            message_null: sys::RSMPI_MESSAGE_NULL,
            request_null: sys::RSMPI_REQUEST_NULL,
            info_null: sys::RSMPI_INFO_NULL,
            op_null: c.op_null,
            op_min: sys::RSMPI_MIN,
            op_max: sys::RSMPI_MAX,
            op_sum: sys::RSMPI_SUM,
            in_place: c.in_place,
            status_ignore: sys::RSMPI_STATUS_IGNORE,
            errors_return: sys::RSMPI_ERRORS_RETURN,
            any_source: sys::RSMPI_ANY_SOURCE,
            any_tag: sys::RSMPI_ANY_TAG,
            proc_null: sys::RSMPI_PROC_NULL,
            undefined: sys::RSMPI_UNDEFINED,
            tag_ub_key: c.tag_ub_key,
            thread_multiple: sys::RSMPI_THREAD_MULTIPLE,
            success: c.success,
            comm_type_shared: sys::RSMPI_COMM_TYPE_SHARED,
            root: c.root,
            direct_p2p: c.direct_p2p,
        }
    }
});

/// The host's predefined datatypes (see `host_shim.c`).
pub fn predefined_types() -> Vec<sys::MPI_Datatype> {
    // SAFETY: with a null buffer and `max` 0 the C function writes nothing and returns the count `n`;
    // the second call writes at most `n` handles into `v`'s capacity of `n`, and `set_len`
    // covers only those it wrote.
    unsafe {
        let n = epmpi_host_predefined_types(std::ptr::null_mut(), 0);
        let mut v = Vec::with_capacity(n as usize);
        let got = epmpi_host_predefined_types(v.as_mut_ptr(), n);
        v.set_len(got.min(n) as usize);
        v
    }
}

/// The bits of a host handle as an integer: used as a map key and for equality, never to
/// rebuild the handle.
pub fn handle_bits<T: Copy>(h: T) -> u64 {
    let n = std::mem::size_of::<T>().min(8);
    let mut out = 0u64;
    // SAFETY: copies at most 8 bytes of a plain Copy value into a u64.
    unsafe {
        std::ptr::copy_nonoverlapping(
            &h as *const T as *const u8,
            &mut out as *mut u64 as *mut u8,
            n,
        )
    };
    out
}

/// A host communicator owned by the engine. `Send`/`Sync` because host MPI handles are
/// thread-safe to use under `MPI_THREAD_MULTIPLE`, which creation checks.
#[derive(Clone, Copy)]
pub struct HostComm(pub sys::MPI_Comm);
// SAFETY: a host communicator handle is a plain value (an int or a pointer to a host
// object); under `MPI_THREAD_MULTIPLE`, which creation checks, any thread may use it.
unsafe impl Send for HostComm {}
// SAFETY: a shared `HostComm` only gives copies of the handle value (see `Send`).
unsafe impl Sync for HostComm {}

impl HostComm {
    pub fn is_null(&self) -> bool {
        handle_bits(self.0) == handle_bits(HOST.comm_null)
    }
}

/// A host request kept inside an engine request.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct HostRequest(pub sys::MPI_Request);
// SAFETY: a host request handle is a plain value; under `MPI_THREAD_MULTIPLE` any thread may
// test, wait on or cancel it, and the engine request that holds it lets one thread do so at a time.
unsafe impl Send for HostRequest {}
// SAFETY: a shared `HostRequest` only gives copies of the handle value (see `Send`).
unsafe impl Sync for HostRequest {}

impl HostRequest {
    /// True for `MPI_REQUEST_NULL` (a completed, freed or never started host request).
    #[inline]
    pub fn is_null(&self) -> bool {
        handle_bits(self.0) == handle_bits(HOST.request_null)
    }
}

/// A host message taken by a matched probe (`MPI_Improbe`), waiting for its receive.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct HostMessage(pub sys::MPI_Message);
// SAFETY: a host message handle is a plain value; under `MPI_THREAD_MULTIPLE` any thread may
// receive it, and the `MessageObj` that holds it hands it to one receive only.
unsafe impl Send for HostMessage {}
// SAFETY: a shared `HostMessage` only gives copies of the handle value (see `Send`).
unsafe impl Sync for HostMessage {}

/// A host datatype kept inside an engine object (a receive waiting for its message).
#[derive(Clone, Copy)]
pub struct HostType(pub sys::MPI_Datatype);
// SAFETY: a host datatype handle is a plain value; every host call that takes a datatype
// is thread-safe under `MPI_THREAD_MULTIPLE`.
unsafe impl Send for HostType {}
// SAFETY: a shared `HostType` only gives copies of the handle value (see `Send`).
unsafe impl Sync for HostType {}

/// Turns a host return code into an engine error naming the host call. `MPI_SUCCESS` is 0 in
/// every MPI (MPI 4.1 section 9.4: "0 = MPI_SUCCESS < MPI_ERR_... <= MPI_ERR_LASTCODE"), so
/// the check is a comparison with 0, inlined into every host call site.
#[inline(always)]
pub fn check(rc: c_int, what: &str) -> EpResult<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(host_failed(rc, what))
    }
}

#[cold]
#[inline(never)]
pub(crate) fn host_failed(rc: c_int, what: &str) -> EpError {
    EpError::new(
        ERR_INTERN,
        format!("host MPI call {what} failed with code {rc}"),
    )
}

/// A duplicate of `MPI_COMM_SELF` whose error handler is `MPI_ERRORS_RETURN`, for host calls
/// that take a communicator only to report errors (`MPI_Pack`, `MPI_Unpack`): a host error
/// then comes back as a code instead of running the handler of a user's communicator
/// (`MPI_COMM_WORLD`'s is fatal by default). Made on first use, which needs MPI initialized;
/// freed when `MPI_Finalize` starts. Thread safety: any thread; after the first call one
/// atomic load.
#[inline]
pub fn quiet_comm() -> EpResult<HostComm> {
    match QUIET_COMM.get() {
        Some(c) => Ok(*c),
        None => make_quiet_comm(),
    }
}

static QUIET_COMM: std::sync::OnceLock<HostComm> = std::sync::OnceLock::new();
/// Held while the quiet communicator is made or freed: only one thread duplicates
/// `MPI_COMM_SELF`, and freeing waits for a creation in progress.
static QUIET_COMM_LOCK: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

#[cold]
#[inline(never)]
fn make_quiet_comm() -> EpResult<HostComm> {
    let _only_one = QUIET_COMM_LOCK.lock();
    if let Some(c) = QUIET_COMM.get() {
        return Ok(*c);
    }
    if finalizing() || !mpi_is_active() {
        return Err(EpError::new(ERR_INTERN, "MPI is not initialized or is finalized"));
    }
    // Frees the communicator when MPI_Finalize starts.
    install_finalize_hook();
    let mut c = HostComm(HOST.comm_null);
    // SAFETY: plain host calls on MPI_COMM_SELF and on the new communicator, whose handle
    // `c.0` is written by the host before it is read.
    unsafe {
        check(sys::MPI_Comm_dup(HOST.comm_self, &mut c.0), "MPI_Comm_dup(MPI_COMM_SELF)")?;
        if let Err(e) = check(sys::MPI_Comm_set_errhandler(c.0, HOST.errors_return), "MPI_Comm_set_errhandler") {
            free_comm(c);
            return Err(e);
        }
    }
    // Cannot be set already: the lock is held and the slot was empty.
    let _ = QUIET_COMM.set(c);
    Ok(c)
}

/// Frees the quiet communicator, if it was made (at the start of `MPI_Finalize`, while MPI
/// still works; no call uses it afterwards).
fn free_quiet_comm() {
    let _no_creation = QUIET_COMM_LOCK.lock();
    if let Some(c) = QUIET_COMM.get() {
        free_comm(*c);
    }
}

/// The error class of a host error code (`MPI_Error_class`), or `code` itself if the host does
/// not know it.
pub fn error_class(code: c_int) -> c_int {
    let mut class = code;
    // SAFETY: `class` is a valid place for the host to write an int.
    if unsafe { sys::MPI_Error_class(code, &mut class) } != 0 {
        return code;
    }
    class
}

/// True between `MPI_Init*` and `MPI_Finalize`.
pub fn mpi_is_active() -> bool {
    let (mut init, mut fin) = (0, 0);
    // SAFETY: MPI allows `MPI_Initialized` and `MPI_Finalized` at any time, before
    // initialization and after finalization; they write `init` and `fin`, live locals.
    unsafe {
        sys::MPI_Initialized(&mut init);
        sys::MPI_Finalized(&mut fin);
    }
    init != 0 && fin == 0
}

/// Rank and size of a host communicator.
pub fn rank_size(comm: HostComm) -> EpResult<(i32, i32)> {
    let (mut r, mut s) = (0, 0);
    // SAFETY: the host writes `r` and `s`, live locals; `comm` is a host communicator the caller
    // holds and has not freed.
    unsafe {
        check(sys::MPI_Comm_rank(comm.0, &mut r), "MPI_Comm_rank")?;
        check(sys::MPI_Comm_size(comm.0, &mut s), "MPI_Comm_size")?;
    }
    Ok((r, s))
}

/// The sum of `value` over the processes of `comm` that share memory with the caller (the
/// host's `MPI_COMM_TYPE_SHARED`: usually a node): collective over `comm`.
pub fn node_sum(comm: HostComm, value: c_int) -> EpResult<c_int> {
    let mut node = HostComm(HOST.comm_null);
    // SAFETY: `comm` is a host communicator the caller holds; the host writes `node.0`, a live
    // local; every process of `comm` makes this call (the caller's contract).
    unsafe {
        check(
            sys::MPI_Comm_split_type(comm.0, HOST.comm_type_shared, 0, HOST.info_null, &mut node.0),
            "MPI_Comm_split_type",
        )?
    };
    let sum = allreduce_int(node, value, HOST.op_sum);
    free_comm(node);
    sum
}

/// `MPI_Allreduce` of one int with `op` over `comm`: collective, every process of `comm`
/// calls it with the same op.
pub fn allreduce_int(comm: HostComm, value: c_int, op: sys::MPI_Op) -> EpResult<c_int> {
    let mut result: c_int = 0;
    // SAFETY: one int read from `value` and one written to `result`, live locals; `comm` is a
    // host communicator the caller holds and has not freed.
    unsafe {
        check(
            sys::MPI_Allreduce(
                &value as *const c_int as *const std::ffi::c_void,
                &mut result as *mut c_int as *mut std::ffi::c_void,
                1,
                HOST.int_,
                op,
                comm.0,
            ),
            "MPI_Allreduce",
        )?
    };
    Ok(result)
}

/// The host's `MPI_TAG_UB`, an attribute of `MPI_COMM_WORLD` only (MPI 4.1 section 9.1.2).
pub fn tag_ub() -> EpResult<i32> {
    let comm = HostComm(HOST.comm_world);
    let mut val: *mut c_int = std::ptr::null_mut();
    let mut flag = 0;
    // SAFETY: the host writes `flag` and `val`, live locals (for `MPI_Comm_get_attr` the value is
    // the address of the attribute, MPI's convention); `*val` is read only when `flag` says the
    // attribute exists and the address is not null: then it points at the host's `MPI_TAG_UB`
    // value, which lives as long as `MPI_COMM_WORLD`.
    unsafe {
        check(
            sys::MPI_Comm_get_attr(
                comm.0,
                HOST.tag_ub_key,
                &mut val as *mut _ as *mut c_void,
                &mut flag,
            ),
            "MPI_Comm_get_attr(MPI_TAG_UB)",
        )?;
        if flag == 0 || val.is_null() {
            return Err(EpError::new(
                ERR_INTERN,
                format!(
                    "host MPI has no MPI_TAG_UB attribute (key {}, flag {flag})",
                    HOST.tag_ub_key
                ),
            ));
        }
        Ok(*val)
    }
}

/// Frees a host communicator unless MPI is already finalized (never call MPI after it).
pub fn free_comm(comm: HostComm) {
    if comm.is_null() || finalizing() || !mpi_is_active() {
        return;
    }
    let mut c = comm.0;
    // SAFETY: MPI is active (checked just above); `c` is a live local copy of a handle the
    // caller owns and gives up here, which the host sets to `MPI_COMM_NULL`.
    unsafe { sys::MPI_Comm_free(&mut c) };
}

static FINALIZING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static HOOK: std::sync::Once = std::sync::Once::new();

/// Work to do at the start of `MPI_Finalize`, while MPI still works (set by the engine).
pub static BEFORE_FINALIZE: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

extern "C" fn on_finalize() {
    if let Some(f) = BEFORE_FINALIZE.get() {
        // Never unwind into the host MPI.
        let _ = std::panic::catch_unwind(f);
    }
    free_quiet_comm();
    FINALIZING.store(true, std::sync::atomic::Ordering::SeqCst);
}

extern "C" {
    fn epmpi_host_on_finalize(callback: extern "C" fn()) -> c_int;
}

/// Registers a delete callback on `MPI_COMM_SELF`: `MPI_Finalize` deletes its attributes
/// first (MPI 4.1 section 11.2.2), so the engine learns of finalization without a host call
/// on the hot path. Call once MPI is initialized.
pub fn install_finalize_hook() {
    // SAFETY: the C side stores `on_finalize`, an `extern "C" fn` that never unwinds (it catches
    // panics), as the delete callback of an attribute of `MPI_COMM_SELF`; callers run this once
    // MPI is initialized (`make_quiet_comm` checks it, endpoint creation requires it).
    HOOK.call_once(|| unsafe {
        epmpi_host_on_finalize(on_finalize);
    });
}

/// True once `MPI_Finalize` has started (only known after [`install_finalize_hook`]).
#[inline]
pub fn finalizing() -> bool {
    FINALIZING.load(std::sync::atomic::Ordering::Relaxed)
}

/// `MPI_Comm_create_group` of the ranks `ranks` (in that order) of `parent`: collective over
/// those processes only. Note that Open MPI exchanges point-to-point messages on `parent`
/// with `tag`, so `parent` must carry no wildcard receive that could take them.
pub fn create_group_comm(parent: HostComm, ranks: &[u32], tag: c_int) -> EpResult<HostComm> {
    let ranks: Vec<c_int> = ranks.iter().map(|&r| r as c_int).collect();
    let mut host = HostComm(HOST.comm_null);
    // SAFETY: the host writes the two group handles and `host.0`, live locals; `MPI_Group_incl`
    // reads `ranks.len()` ints from `ranks`, which outlives the call; each group made here is
    // freed once, and `parent` is a host communicator the caller holds.
    unsafe {
        let mut parent_group = std::mem::zeroed::<sys::MPI_Group>();
        check(
            sys::MPI_Comm_group(parent.0, &mut parent_group),
            "MPI_Comm_group",
        )?;
        let mut group = std::mem::zeroed::<sys::MPI_Group>();
        let mut rc = check(
            sys::MPI_Group_incl(
                parent_group,
                ranks.len() as c_int,
                ranks.as_ptr(),
                &mut group,
            ),
            "MPI_Group_incl",
        );
        if rc.is_ok() {
            rc = check(
                sys::MPI_Comm_create_group(parent.0, group, tag, &mut host.0),
                "MPI_Comm_create_group",
            );
            sys::MPI_Group_free(&mut group);
        }
        sys::MPI_Group_free(&mut parent_group);
        rc?;
    }
    Ok(host)
}
