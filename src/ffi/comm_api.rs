//! Communicator creation, queries, dup and free (DESIGN.md section 3; MPI Forum endpoints
//! proposal; MPI 4.1 chapter 7).

use super::boundary::{out, DEFAULT_HANDLER};
use crate::handles::{endpoint, remove_endpoint};
use super::types::*;
use super::attr_api::{copy_attrs, delete_all};
use super::errhandler_api::check_handler;
use crate::engine::comm::{self, is_predefined_handler, CommShared, Endpoint};
use crate::engine::request::{Op, Request};
use crate::handles::new_request;
use crate::engine::rankmap::{compare_groups, GroupOrder};
use crate::engine::{create, group_create, inter, split, team};
use epmpi_macros::c_export;
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG};
use crate::host::sys::{MPI_Comm, MPI_Info};
use std::os::raw::c_int;
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn insert_endpoint(shared: &Arc<CommShared>, local: u32, errhandler: c_int) -> EpResult<EP_Comm> {
    let ep = Arc::new(Endpoint::new(shared.clone(), local, errhandler));
    crate::handles::registry::insert_endpoint(ep, local as usize)
}

/// The handle of a split's new endpoint, or `EP_COMM_NULL` for an endpoint left out.
pub(super) fn handle_or_null(new: Option<Endpoint>) -> EpResult<EP_Comm> {
    match new {
        Some(new) => insert_endpoint(&new.shared, new.local, new.errhandler()),
        None => Ok(EP_COMM_NULL),
    }
}

/// Creates an endpoints communicator from a host communicator (array form).
///
/// Collective over `parent`; call it from one thread per process. Each process asks for
/// `my_num_ep >= 0` endpoints (counts may differ between processes; 0 leaves the process out
/// of the new communicator). Ranks are ordered by (rank in `parent`, index), so `out[i]` is the
/// handle of this process's i-th endpoint. `out` must hold `my_num_ep` handles; each handle
/// is then used by one thread at a time (typically handed to OpenMP thread i).
/// `info` is accepted and ignored (`MPI_INFO_NULL` is fine).
///
/// Errors: `EP_ERR_NOT_INITIALIZED` before `MPI_Init_thread`, `EP_ERR_THREAD_LEVEL` when the
/// host is not at `MPI_THREAD_MULTIPLE`, `EP_ERR_ARG` for `my_num_ep < 0` or above 65536, or a
/// NULL `out` with `my_num_ep > 0`, `EP_ERR_COMM` for `MPI_COMM_NULL`. A NULL `out` or a bad
/// `my_num_ep` on one process fails the call on every process (the others get its error class;
/// docs/errors.md).
/// Thread safety: any thread; different processes' calls match in order on `parent`.
/// Follows the MPI Forum endpoints proposal (`MPI_Comm_create_endpoints`).
///
/// # Safety
/// `parent` is a valid host communicator and `info` a valid host info handle (or
/// `MPI_INFO_NULL`); `out_comms` holds `my_num_ep` writable `EP_Comm`s (NULL gives `EP_ERR_ARG`
/// when `my_num_ep` > 0).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_create_endpoints(
    parent: MPI_Comm,
    my_num_ep: c_int,
    info: MPI_Info,
    out_comms: *mut EP_Comm,
) -> c_int {
    let _ = info;
    let fault = (my_num_ep > 0 && out_comms.is_null()).then(|| ep_err!(ERR_ARG, "out_comms is NULL"));
    let Some(shared) = create::create_shared(parent, my_num_ep, fault)? else { return Ok(()) };
    let handler = DEFAULT_HANDLER.load(Ordering::Relaxed);
    for i in 0..my_num_ep as usize {
        *out_comms.add(i) = insert_endpoint(&shared, i as u32, handler)?;
    }
    Ok(())
}

/// Creates an endpoints communicator from a host communicator (team form).
///
/// Called by `my_num_ep` threads of each process (e.g. inside `!$omp parallel`), each with a
/// distinct `index` in `0..my_num_ep`; every thread gets in `*comm` the handle of endpoint
/// `index`. Gives the same communicator as `EP_Comm_create_endpoints` with the same counts.
/// Processes that want no endpoint call `EP_Comm_create_endpoints(parent, 0, ...)` instead.
/// The threads of one process block until all `my_num_ep` have called.
///
/// Errors: those of `EP_Comm_create_endpoints`; `EP_ERR_ARG` for an index out of range, or a
/// `my_num_ep` that differs from the one other threads of the process gave (that thread
/// alone); a NULL `comm` on one thread fails the call on every thread of every process.
/// Thread safety: meant to be called concurrently by the team; the endpoint identity comes
/// from `index`, never from the OpenMP thread number.
///
/// # Safety
/// `parent` is a valid host communicator; `comm` points at a writable `EP_Comm` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_create_endpoint(
    parent: MPI_Comm,
    my_num_ep: c_int,
    index: c_int,
    comm: *mut EP_Comm,
) -> c_int {
    let comm = out(comm, "comm");
    let shared = team::join(parent, my_num_ep, index, comm.as_ref().err().cloned())?;
    let comm = comm?;
    *comm = insert_endpoint(&shared, index as u32, DEFAULT_HANDLER.load(Ordering::Relaxed))?;
    Ok(())
}

/// Rank of the endpoint `comm` in its communicator (MPI 4.1 section 7.4.1).
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL `rank`). Thread safety: any thread.
///
/// # Safety
/// `rank` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_rank(comm: EP_Comm, rank: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    *out(rank, "rank")? = ep.rank;
    Ok(())
}

/// Number of endpoints (ranks) of the communicator, of the local group for an
/// intercommunicator (MPI 4.1 sections 7.4.1, 7.6.1).
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL `size`). Thread safety: any thread.
///
/// # Safety
/// `size` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_size(comm: EP_Comm, size: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    *out(size, "size")? = ep.shared.group_map(ep.shared.group_of(ep.local)).size() as c_int;
    Ok(())
}

/// Size of the remote group of an intercommunicator (MPI 4.1 section 7.6.1); for an
/// intracommunicator MPI defines none, so this is `EP_ERR_COMM`.
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL `size`). Thread safety: any thread.
///
/// # Safety
/// `size` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_remote_size(comm: EP_Comm, size: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    let size = out(size, "size")?;
    if !ep.shared.is_inter() {
        return Err(ep_err!(crate::error::ERR_COMM, "communicator {comm} is not an intercommunicator"));
    }
    *size = ep.shared.peer_map(ep.local).size() as c_int;
    Ok(())
}

/// Sets `*flag` to 1 for an intercommunicator, 0 otherwise (MPI 4.1 section 7.6.1).
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG`. Thread safety: any thread.
///
/// # Safety
/// `flag` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_test_inter(comm: EP_Comm, flag: *mut c_int) -> c_int {
    let ep = endpoint(comm)?;
    *out(flag, "flag")? = ep.shared.is_inter() as c_int;
    Ok(())
}

/// Creates an intercommunicator (MPI 4.1 section 7.6.2) between the group of `local_comm`
/// (an endpoint intracommunicator; every endpoint calls) and the group whose leader is rank
/// `remote_leader` of `peer_comm`. `local_leader` is a rank of `local_comm`; `peer_comm`,
/// `remote_leader` and `tag` matter only on the local leader (others may pass
/// `EP_COMM_NULL`); the two leaders talk over `peer_comm` with `tag`. The groups may live
/// on disjoint processes or share processes (one process holding endpoints of both, each
/// group's endpoints calling on their own `local_comm`). Ranks of `*newintercomm` name the
/// remote group in point-to-point calls; `EP_Comm_rank`/`EP_Comm_size` give the local group.
/// Errors: `EP_ERR_COMM` (invalid handles, `local_comm` an intercommunicator, null
/// `peer_comm` on the leader), `EP_ERR_RANK` (leader ranks), `EP_ERR_TAG` (negative tag),
/// `EP_ERR_ARG` (NULL output). A bad argument on any endpoint fails the call on every endpoint of every process (the
/// others get its error class; docs/errors.md). Except for a bad `peer_comm`,
/// `remote_leader` or tag on the local leader, this includes the remote group.
/// Thread safety: one call per endpoint, concurrently; the endpoints of a process wait for
/// each other.
///
/// # Safety
/// `newintercomm` points at a writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Intercomm_create(
    local_comm: EP_Comm,
    local_leader: c_int,
    peer_comm: EP_Comm,
    remote_leader: c_int,
    tag: c_int,
    newintercomm: *mut EP_Comm,
) -> c_int {
    let ep = endpoint(local_comm)?;
    let newintercomm = out(newintercomm, "newintercomm");
    let peer = if ep.rank == local_leader { endpoint(peer_comm).map(Some) } else { Ok(None) };
    let fault = newintercomm.as_ref().err().or(peer.as_ref().err()).cloned();
    let peer = peer.ok().flatten();
    let new = inter::create(&ep, local_leader, peer.as_deref(), remote_leader, tag, fault)?;
    *newintercomm? = insert_endpoint(&new.shared, new.local, new.errhandler())?;
    Ok(())
}

/// Merges the two groups of an intercommunicator into an intracommunicator (MPI 4.1 section
/// 7.6.2): the group whose endpoints pass `high = 0` comes first, each group in its own rank
/// order; when both groups pass the same `high`, group order is EPMPI's choice (the same on
/// every endpoint). Every endpoint of both groups calls it. Errors: `EP_ERR_COMM` (not an
/// intercommunicator), `EP_ERR_ARG` (NULL output). A bad argument on any endpoint fails the call on every endpoint of every process (the
/// others get its error class; docs/errors.md).
/// Thread safety: one call per endpoint.
///
/// # Safety
/// `newintracomm` points at a writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Intercomm_merge(intercomm: EP_Comm, high: c_int, newintracomm: *mut EP_Comm) -> c_int {
    let ep = endpoint(intercomm)?;
    let newintracomm = out(newintracomm, "newintracomm");
    let new = inter::merge(&ep, high != 0, newintracomm.as_ref().err().cloned())?;
    *newintracomm? = insert_endpoint(&new.shared, new.local, new.errhandler())?;
    Ok(())
}

/// Where the endpoint lives: its index among its process's endpoints of this communicator,
/// that count, and the rank of its process among the communicator's processes (0-based, in
/// rank order of the processes' first endpoints). Any output may be NULL.
/// Errors: `EP_ERR_COMM`. Thread safety: any thread. EPMPI extension.
///
/// # Safety
/// `local_index`, `local_count` and `process_rank` each point at a writable `int` or are NULL
/// (not written).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_local_info(
    comm: EP_Comm,
    local_index: *mut c_int,
    local_count: *mut c_int,
    process_rank: *mut c_int,
) -> c_int {
    let ep = endpoint(comm)?;
    if let Some(p) = local_index.as_mut() {
        *p = ep.local as c_int;
    }
    if let Some(p) = local_count.as_mut() {
        *p = ep.shared.local_count() as c_int;
    }
    if let Some(p) = process_rank.as_mut() {
        *p = ep.shared.my_proc as c_int;
    }
    Ok(())
}

/// Compares two communicators (MPI 4.1 section 7.4.1): `EP_IDENT` for endpoints of the same
/// communicator, `EP_CONGRUENT` for the same endpoints in the same rank order (a dup),
/// `EP_SIMILAR` for the same endpoints in another order, `EP_UNEQUAL` otherwise. Endpoints
/// keep their identity through dup; different creations make different endpoints.
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG`. Thread safety: any thread.
///
/// # Safety
/// `result` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_compare(comm1: EP_Comm, comm2: EP_Comm, result: *mut c_int) -> c_int {
    let (a, b) = (endpoint(comm1)?, endpoint(comm2)?);
    let result = out(result, "result")?;
    let groups = |e: &comm::Endpoint| {
        let s = &e.shared;
        let local = s.group_map(s.group_of(e.local)).identities().to_vec();
        let remote = s.is_inter().then(|| s.peer_map(e.local).identities().to_vec());
        (local, remote)
    };
    let ((la, ra), (lb, rb)) = (groups(&a), groups(&b));
    *result = if Arc::ptr_eq(&a.shared, &b.shared) && a.shared.group_of(a.local) == b.shared.group_of(b.local) {
        EP_IDENT
    } else {
        let order = match (ra, rb) {
            (None, None) => compare_groups(&la, &lb),
            (Some(ra), Some(rb)) => match (compare_groups(&la, &lb), compare_groups(&ra, &rb)) {
                (GroupOrder::Same, GroupOrder::Same) => GroupOrder::Same,
                (GroupOrder::Different, _) | (_, GroupOrder::Different) => GroupOrder::Different,
                _ => GroupOrder::Permuted,
            },
            _ => GroupOrder::Different,
        };
        match order {
            GroupOrder::Same => EP_CONGRUENT,
            GroupOrder::Permuted => EP_SIMILAR,
            GroupOrder::Different => EP_UNEQUAL,
        }
    };
    Ok(())
}

/// Duplicates a communicator (MPI 4.1 section 7.4.2): collective, called once by every
/// endpoint; `*newcomm` is this endpoint's handle in the new communicator, with the same rank
/// and error handler and a new context, and the same process topology (grid or graph) if it
/// has one. The calling endpoints of one process wait for each
/// other. Errors: `EP_ERR_COMM`, `EP_ERR_ARG`. A bad argument on any endpoint fails the call on every endpoint of every process (the
/// others get its error class; docs/errors.md).
/// Thread safety: one call per endpoint, each endpoint from one thread at a time.
///
/// # Safety
/// `newcomm` points at a writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_dup(comm: EP_Comm, newcomm: *mut EP_Comm) -> c_int {
    dup_and_copy(comm, newcomm, None)
}

/// `EP_Comm_dup` and its variants for one endpoint: the attributes' copy callbacks run
/// before the dup, so that one failing (or a NULL output, `request` included) fails it on
/// every endpoint; `request`, when given, receives a request that is already complete.
///
/// # Safety
/// `newcomm` and `request` are NULL or point at a writable `EP_Comm` and `EP_Request`.
unsafe fn dup_and_copy(comm: EP_Comm, newcomm: *mut EP_Comm, request: Option<*mut EP_Request>) -> EpResult<()> {
    let ep = endpoint(comm)?;
    let newcomm = out(newcomm, "newcomm");
    let request = request.map(|r| out(r, "request")).transpose();
    let attrs = copy_attrs(&ep, comm);
    let fault = newcomm.as_ref().err().or(request.as_ref().err()).or(attrs.as_ref().err()).cloned();
    let new = create::dup(&ep, fault)?;
    crate::engine::topo::create::inherit(&ep, &new)?;
    new.cache.lock().attrs = attrs?;
    *newcomm? = insert_new(new)?;
    if let Some(request) = request? {
        *request = new_request(Request::completed(Op::Rma(None)))?;
    }
    Ok(())
}

/// Duplicates a communicator as `EP_Comm_dup` does (MPI 4.1 section 7.4.2), attributes
/// copied by their callbacks, and returns a request that is already complete: `*newcomm` is
/// usable at once. The duplication happens inside this call, which, like `EP_Comm_dup`,
/// returns once every endpoint of the communicator has called it. That is valid for every
/// program in which each endpoint starts its `EP_Comm_idup` without first waiting for
/// another endpoint to do something after its own `EP_Comm_idup` (MPI allows that order, a
/// program using it hangs here). Errors: those of `EP_Comm_dup`, `EP_ERR_ARG` (NULL
/// `request`), failing on every endpoint alike. Thread safety: one call per endpoint.
///
/// # Safety
/// `newcomm` and `request` point at a writable `EP_Comm` and `EP_Request` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_idup(comm: EP_Comm, newcomm: *mut EP_Comm, request: *mut EP_Request) -> c_int {
    dup_and_copy(comm, newcomm, Some(request))
}

/// `EP_Comm_dup` with hints (MPI 4.1 section 7.4.2): EPMPI acts on no communicator hint, so
/// `info` (a host info handle, or `MPI_INFO_NULL`) is accepted and ignored, as MPI allows.
/// Errors and thread safety: those of `EP_Comm_dup`.
///
/// # Safety
/// `info` is a valid host info handle or `MPI_INFO_NULL`; `newcomm` points at a writable
/// `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_dup_with_info(comm: EP_Comm, info: MPI_Info, newcomm: *mut EP_Comm) -> c_int {
    let _ = info;
    dup_and_copy(comm, newcomm, None)
}

/// `EP_Comm_idup` with hints (MPI 4.1 section 7.4.2): `info` is accepted and ignored, as for
/// `EP_Comm_dup_with_info`. Errors, completion and thread safety: those of `EP_Comm_idup`.
///
/// # Safety
/// `info` is a valid host info handle or `MPI_INFO_NULL`; `newcomm` and `request` point at a
/// writable `EP_Comm` and `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_idup_with_info(
    comm: EP_Comm,
    info: MPI_Info,
    newcomm: *mut EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    dup_and_copy(comm, newcomm, Some(request))
}

/// Sets hints on this endpoint of a communicator (MPI 4.1 section 7.4.4): EPMPI acts on no
/// communicator hint, so `info` (a host info handle, or `MPI_INFO_NULL`) is accepted and
/// ignored, as MPI allows; `EP_Comm_get_info` then reports none. Local. Errors:
/// `EP_ERR_COMM`. Thread safety: any thread.
///
/// # Safety
/// `info` is a valid host info handle or `MPI_INFO_NULL`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_set_info(comm: EP_Comm, info: MPI_Info) -> c_int {
    let _ = info;
    endpoint(comm)?;
    Ok(())
}

/// The hints in use on this endpoint of a communicator (MPI 4.1 section 7.4.4): a new host
/// info object, empty since EPMPI acts on no hint; free it with `MPI_Info_free`. Local.
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL `info_used`), `EP_ERR_INTERN` (the host's
/// `MPI_Info_create` failed). Thread safety: any thread.
///
/// # Safety
/// `info_used` points at a writable `MPI_Info` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_get_info(comm: EP_Comm, info_used: *mut MPI_Info) -> c_int {
    endpoint(comm)?;
    let info_used = out(info_used, "info_used")?;
    let mut info = crate::host::HOST.info_null;
    // SAFETY: MPI is active (a live endpoint exists); the host writes `info`, a live local.
    unsafe { crate::host::check(crate::host::sys::MPI_Info_create(&mut info), "MPI_Info_create")? };
    *info_used = info;
    Ok(())
}

/// A handle for a new endpoint, or `EP_COMM_NULL` for none.
fn insert_new(new: Endpoint) -> EpResult<EP_Comm> {
    let new = Arc::new(new);
    crate::handles::registry::insert_endpoint(new.clone(), new.local as usize)
}

/// Creates communicators from groups (MPI 4.1 section 7.4.2): collective over the
/// intracommunicator `comm` (every endpoint calls); each endpoint passes a group of
/// endpoints of `comm`, and the endpoints that pass the same group get one new communicator,
/// ranked in group order. Endpoints may pass different, disjoint groups (several
/// communicators at once, as MPI 3 allows); an endpoint not in the group it passes (for
/// instance with `EP_GROUP_EMPTY`) gets `EP_COMM_NULL`. Errors: `EP_ERR_COMM` (invalid, or
/// an intercommunicator), `EP_ERR_GROUP` (invalid group, or one with endpoints outside
/// `comm`), `EP_ERR_ARG` (NULL `newcomm`). A bad argument on any endpoint fails the call on
/// every endpoint of every process (the others get its error class; docs/errors.md).
/// Thread safety: one call per endpoint, concurrently.
///
/// # Safety
/// `newcomm` points at a writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_create(comm: EP_Comm, group: EP_Group, newcomm: *mut EP_Comm) -> c_int {
    let ep = endpoint(comm)?;
    let newcomm = out(newcomm, "newcomm");
    let new = group_create::create(&ep, crate::handles::group(group), newcomm.as_ref().err().cloned())?;
    *newcomm? = handle_or_null(new)?;
    Ok(())
}

/// Creates a communicator of the endpoints of `group` (MPI 4.1 section 7.4.2), collective
/// only over them: each member calls it with the same group and `tag`, the other endpoints
/// of `comm` do not. Ranks follow group order. `tag` must be `>= 0`; creations running at
/// once on `comm` (possibly with the same tag, as MPI allows different ranks) are told apart
/// by their groups: always when disjoint in communicators of up to 2^12 endpoints (2^13 on
/// Open MPI), by a hash of the member list otherwise (two groups with the same first member,
/// created in turn by it while their other members share a process, collide with
/// probability 2^-12 and then hang). Open MPI 4.1 as the host makes the creations of one
/// process on one communicator one at a time, in an order of its own: an endpoint that
/// creates with several groups in turn while other members of the processes involved run
/// theirs at once can hang there (as two threads of one process would in plain Open MPI);
/// MPICH has no such limit. Errors: `EP_ERR_COMM`
/// (invalid, or an intercommunicator), `EP_ERR_GROUP` (invalid group, one with endpoints
/// outside `comm`, or a caller outside the group), `EP_ERR_TAG` (negative `tag`),
/// `EP_ERR_ARG` (NULL `newcomm`; that fails the call on every member). Thread safety: one
/// call per member endpoint, concurrently.
///
/// # Safety
/// `newcomm` points at a writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_create_group(comm: EP_Comm, group: EP_Group, tag: c_int, newcomm: *mut EP_Comm) -> c_int {
    let ep = endpoint(comm)?;
    let g = crate::handles::group(group)?;
    let newcomm = out(newcomm, "newcomm");
    let new = group_create::create_group(&ep, &g, tag, newcomm.as_ref().err().cloned())?;
    *newcomm? = insert_new(new)?;
    Ok(())
}

/// Frees this endpoint's handle and sets `*comm` to `EP_COMM_NULL` (MPI 4.1 section 7.4.3),
/// after running the delete callbacks of its attributes, last set first (a failing one
/// fails the call and leaves the endpoint valid with the attributes not yet deleted).
/// Called once per endpoint; the communicator's shared state and host communicators go when
/// the last endpoint of the process has freed it and its pending requests are gone.
/// Errors: `EP_ERR_COMM` (null, freed: a second free of a handle is an error),
/// `EP_ERR_ARG` (NULL pointer), a delete callback's error. Thread safety: one call per
/// endpoint; the callbacks run on the calling thread.
///
/// # Safety
/// `comm` points at a readable and writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_free(comm: *mut EP_Comm) -> c_int {
    let h = out(comm, "comm")?;
    let ep = endpoint(*h)?;
    delete_all(&ep.cache, *h)?;
    remove_endpoint(*h).map_err(|_| ep_err!(crate::error::ERR_COMM, "communicator handle {} was freed", *h))?;
    *h = EP_COMM_NULL;
    Ok(())
}

/// Sets the error handler of an endpoint (MPI 4.1 section 9.3.1): `EP_ERRORS_ARE_FATAL`
/// (default), `EP_ERRORS_RETURN`, or one made by `EP_Comm_create_errhandler`, which the
/// library then calls for its errors on this endpoint with the endpoint's handle and the
/// error code before returning the code. New communicators inherit their parent endpoint's
/// handler. With `comm = EP_COMM_NULL` it sets the process default, used for errors that
/// concern no valid communicator (bad handles, groups, keyvals; a user handler then receives
/// `EP_COMM_NULL`) and inherited by communicators created afterwards. Errors: `EP_ERR_COMM`,
/// `EP_ERR_ARG` (unknown or freed handler). Thread safety: any thread.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_set_errhandler(comm: EP_Comm, handler: EP_Errhandler) -> c_int {
    check_handler(handler)?;
    if comm == EP_COMM_NULL {
        DEFAULT_HANDLER.store(handler, Ordering::Relaxed);
    } else {
        endpoint(comm)?.errhandler.store(handler, Ordering::Relaxed);
    }
    Ok(())
}

/// Reads the error handler of an endpoint (or the process default for `EP_COMM_NULL`). A
/// user handler's handle returned here is one more handle to free with
/// `EP_Errhandler_free`, as in MPI. Errors: `EP_ERR_COMM`, `EP_ERR_ARG`. Thread safety: any
/// thread. MPI 4.1 section 9.3.1.
///
/// # Safety
/// `handler` points at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_get_errhandler(comm: EP_Comm, handler: *mut EP_Errhandler) -> c_int {
    let h = if comm == EP_COMM_NULL {
        DEFAULT_HANDLER.load(Ordering::Relaxed)
    } else {
        endpoint(comm)?.errhandler()
    };
    let handler = out(handler, "handler")?;
    if !is_predefined_handler(h) {
        crate::handles::ERRHANDLERS.get(h).map_err(|_| ep_err!(ERR_ARG, "the error handler was freed"))?.hold();
    }
    *handler = h;
    Ok(())
}

/// Splits the communicator by `color` (MPI 4.1 section 7.4.2): endpoints that pass the same
/// `color >= 0` get a new communicator whose ranks are ordered by `key`, ties broken by
/// their rank in `comm`, across all endpoints of all processes; `EP_UNDEFINED` gives
/// `EP_COMM_NULL`. Endpoints of one process may pass different colors. Collective: every
/// endpoint of `comm` calls it. Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (negative color other
/// than `EP_UNDEFINED`, NULL `newcomm`). A bad argument on any endpoint fails the call on
/// every endpoint of every process (the others get its error class; docs/errors.md).
/// Thread safety: one call per endpoint, concurrently.
///
/// # Safety
/// `newcomm` points at a writable `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_split(comm: EP_Comm, color: c_int, key: c_int, newcomm: *mut EP_Comm) -> c_int {
    let ep = endpoint(comm)?;
    let newcomm = out(newcomm, "newcomm");
    let new = split::split(&ep, color, key, newcomm.as_ref().err().cloned())?;
    *newcomm? = handle_or_null(new)?;
    Ok(())
}

/// Splits the communicator by type (MPI 4.1 section 7.4.2): with the host's
/// `MPI_COMM_TYPE_SHARED`, the endpoints of each node (processes that can share memory, as
/// the host MPI sees them) form one communicator, with `EP_COMM_TYPE_PROCESS` (EPMPI's
/// endpoint-level type) the endpoints of each process; ranks are ordered by `key` then old
/// rank; `EP_UNDEFINED` gives `EP_COMM_NULL`. `info` is accepted and ignored. Collective over
/// `comm`. Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (another split type, NULL `newcomm`).
/// A bad argument on any endpoint fails the call on every endpoint of every process (the
/// others get its error class; docs/errors.md).
///
/// # Safety
/// `info` is a valid host info handle (or `MPI_INFO_NULL`); `newcomm` points at a writable
/// `EP_Comm` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Comm_split_type(comm: EP_Comm, split_type: c_int, key: c_int, info: MPI_Info, newcomm: *mut EP_Comm) -> c_int {
    let _ = info;
    let ep = endpoint(comm)?;
    let newcomm = out(newcomm, "newcomm");
    let new = split::split_type(&ep, split_type, key, newcomm.as_ref().err().cloned())?;
    *newcomm? = handle_or_null(new)?;
    Ok(())
}
