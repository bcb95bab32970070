//! Collective calls (MPI 4.1 chapter 6), called once per endpoint of the communicator, in the
//! same order on every endpoint. Counts are in elements of the datatype they go with; buffers,
//! datatypes, ops and `MPI_IN_PLACE` are the host MPI's. Every call may be made by many
//! threads at once, each on its own endpoint; a call returns when this endpoint's part is
//! done (its buffers may be reused), as in MPI.
//!
//! On intercommunicators (MPI 4.1 section 6.2.2) every blocking collective but `EP_Scan` and
//! `EP_Exscan` (not defined there: `EP_ERR_COMM`) works with MPI's semantics: rooted calls take `EP_ROOT` at the root,
//! `EP_PROC_NULL` at the other endpoints of its group and the root's rank in the other group;
//! data and results go from one group to the other; per-rank arrays have one entry per rank
//! of the remote group (`EP_Reduce_scatter`'s `recvcounts`: of the own group); `MPI_IN_PLACE`
//! in a buffer that is used is `EP_ERR_BUFFER`. Each is made of intracommunicator collectives
//! of the groups and one message between them (`engine/coll/inter_gather.rs`), except
//! `EP_Alltoallw`, which is its nonblocking form completed at once on both kinds of
//! communicator.
//!
//! Errors common to all: `EP_ERR_COMM` (invalid handle), `EP_ERR_COUNT` (negative count),
//! `EP_ERR_TYPE` (invalid datatype), `EP_ERR_BUFFER` (NULL buffer with data, or
//! `MPI_IN_PLACE` where MPI does not allow it), `EP_ERR_ROOT` (root outside `0..size`),
//! `EP_ERR_OP` (`MPI_OP_NULL` or invalid op), `EP_ERR_ARG` (NULL count or displacement
//! array), `EP_ERR_TRUNCATE` (type signatures that do not match), `EP_ERR_OTHER` (endpoints of
//! one process calling different collectives at the same point).

use super::coll_args::{blocks, check_inter_root, data_buf, is_in_place, per_rank_n};
use super::coll_inter;
use crate::handles::{endpoint_ref, EpRef};
use super::types::*;
use crate::engine::coll::typed::{op_commutative, reduce_local, Elems, HostOp};
use crate::engine::coll::immediate;
use crate::engine::coll::{self, AllgathervArgs, AlltoallvArgs, GathervArgs, Layout, ReduceArgs, ScanArgs, ScattervArgs};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::engine::request::{wait, Op, Request};
use crate::error::{EpResult, ERR_ARG, ERR_BUFFER, ERR_COMM, ERR_COUNT, ERR_INTERN, ERR_ROOT};
use crate::host::sys::{MPI_Datatype, MPI_Op};
use crate::host::HOST;
use epmpi_macros::c_export;
use crate::ep_err;
use std::os::raw::{c_int, c_void};

/// The endpoint of an intracommunicator, for the argument checks of the intracommunicator
/// forms (every collective takes its intercommunicator path before them).
pub(super) fn intra_endpoint(comm: EP_Comm) -> EpResult<EpRef> {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let msg = "an intercommunicator reached the arguments of an intracommunicator collective";
        return Err(ep_err!(ERR_INTERN, "{msg}"));
    }
    Ok(ep)
}

pub(super) fn check_root(ep: &Endpoint, root: c_int) -> EpResult<()> {
    let size = ep.shared.map.size() as c_int;
    if !(0..size).contains(&root) {
        let hint = if root == EP_ROOT { " (EP_ROOT is for intercommunicators)" } else { "" };
        return Err(ep_err!(ERR_ROOT, "root {root} is outside 0..{size}{hint}"));
    }
    Ok(())
}

/// A per-rank array given by the user, one int per rank the endpoint names (of the
/// communicator, or of the remote group of an intercommunicator); counts are checked
/// non-negative.
///
/// # Safety
/// `p` is NULL or readable for that many ints.
pub(super) unsafe fn per_rank<'a>(ep: &Endpoint, p: *const c_int, what: &str, are_counts: bool) -> EpResult<&'a [c_int]> {
    per_rank_n(p, ep.shared.peer_map(ep.local).size(), what, are_counts)
}

/// Input elements of a reduction: `sendbuf`, or `recvbuf` when `sendbuf` is `MPI_IN_PLACE`
/// and `in_place_ok`.
///
/// # Safety
/// The buffer arguments are the user's: valid for their counts and datatypes until the
/// operation completes (MPI 4.1 section 3.7.2), as the calling C function's contract says.
#[inline(always)]
pub(super) unsafe fn reduction_input(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, t: MPI_Datatype, in_place_ok: bool) -> EpResult<(Elems, bool)> {
    if is_in_place(sendbuf) {
        if !in_place_ok {
            return Err(ep_err!(ERR_BUFFER, "sendbuf is MPI_IN_PLACE on a rank that is not the root"));
        }
        return Ok((Elems::of(&data_buf(recvbuf, count, t, "recvbuf")?), true));
    }
    Ok((Elems::of(&UserBuf::new(sendbuf, count, t)?), false))
}

/// Blocks until all endpoints of the communicator have entered the barrier (MPI 4.1 section
/// 6.3). Errors: `EP_ERR_COMM`.
///
/// # Safety
/// No pointer argument; any handle value is accepted (a bad one is an error).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Barrier(comm: EP_Comm) -> c_int {
    coll::barrier(&*endpoint_ref(comm)?)
}

/// Broadcasts `count` elements of `datatype` in `buf` from rank `root` to every endpoint
/// (MPI 4.1 section 6.4). Endpoints may use different datatypes with the same type signature.
///
/// On an intercommunicator (MPI 4.1 sections 6.2.2 and 6.4) the data goes from the root to
/// every endpoint of the other group: the root passes `root = EP_ROOT`, the other endpoints
/// of its group `EP_PROC_NULL` (their `buf`, `count`, `datatype` are not used; they return at
/// once, except that the first collective on an intercommunicator waits for the process's
/// other endpoints of it), the endpoints of the other group the root's rank in the root's
/// group.
///
/// Errors: `EP_ERR_COMM`, `EP_ERR_ROOT` (intracommunicator: root outside `0..size`;
/// intercommunicator: none of `EP_ROOT`, `EP_PROC_NULL`, `0..remote_size`), `EP_ERR_COUNT`,
/// `EP_ERR_TYPE`, `EP_ERR_BUFFER` (NULL with data, or `MPI_IN_PLACE`), `EP_ERR_TRUNCATE`
/// (type signature differing from the root's). Thread safety: one call per endpoint, all
/// endpoints concurrently.
///
/// # Safety
/// `buf` is readable (at the root) or writable (elsewhere) for `count` elements of `datatype`
/// for the call; `datatype` is a valid host datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Bcast(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: EP_Comm) -> c_int {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        check_inter_root(&ep, root)?;
        let b = if root == EP_PROC_NULL { None } else { Some(data_buf(buf, count, datatype, "buf")?) };
        return coll::bcast_inter(&ep, b, root);
    }
    check_root(&ep, root)?;
    coll::bcast(&ep, data_buf(buf, count, datatype, "buf")?, root)
}

/// Combines `count` elements from every endpoint with `op` into `recvbuf` of rank `root`
/// (MPI 4.1 section 6.9.1), in rank order for non-commutative ops. `sendbuf` may be
/// `MPI_IN_PLACE` at the root (input taken from `recvbuf`); `recvbuf` matters only at the
/// root. Any predefined or user-defined op, through the host's `MPI_Reduce_local`.
///
/// On an intercommunicator the root (`root = EP_ROOT`) gets in `recvbuf` the reduction of the
/// other group's inputs, in that group's rank order; the other endpoints of its group pass
/// `EP_PROC_NULL` (no argument used), the other group the root's rank (`sendbuf` and `op`
/// used); `MPI_IN_PLACE` is not allowed.
///
/// Errors: `EP_ERR_COMM`, `EP_ERR_ROOT`, `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_OP`,
/// `EP_ERR_BUFFER` (NULL with data, `MPI_IN_PLACE` off the root or on an intercommunicator),
/// `EP_ERR_TRUNCATE` (intercommunicator: counts or type signatures of the groups differ).
/// Thread safety: one call per endpoint, all endpoints concurrently.
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE`) is readable and `recvbuf` writable for `count` elements of
/// `datatype` for the call (`recvbuf` only at the root); `datatype` and `op` are valid host
/// handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Reduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return coll_inter::reduce(&ep, sendbuf, recvbuf, count, datatype, op, root);
    }
    check_root(&ep, root)?;
    let is_root = ep.rank == root;
    let (input, in_place) = reduction_input(sendbuf, recvbuf, count, datatype, is_root)?;
    let recv = if is_root { Some(data_buf(recvbuf, count, datatype, "recvbuf")?) } else { None };
    let commutative = op_commutative(op)?;
    let args = ReduceArgs { input, in_place, recv, op: HostOp(op), commutative, root: Some(root), scatter: None };
    coll::reduce(&ep, &args)
}

/// Combines `count` elements from every endpoint with `op`; every endpoint gets the result
/// in `recvbuf` (MPI 4.1 section 6.9.6), in rank order for non-commutative ops. `sendbuf`
/// may be `MPI_IN_PLACE` on an intracommunicator (input taken from `recvbuf`).
///
/// On an intercommunicator each endpoint gets the reduction of the other group's inputs (in
/// that group's rank order); `MPI_IN_PLACE` is not allowed there (MPI defines the in-place
/// option for intracommunicators only), `count` and the type signature are the same in both
/// groups.
///
/// Errors: `EP_ERR_COMM`, `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_OP`, `EP_ERR_BUFFER` (NULL
/// with data, `MPI_IN_PLACE` as `recvbuf`, or on an intercommunicator as `sendbuf`),
/// `EP_ERR_TRUNCATE` (intercommunicator: type signatures of the groups differ). Thread
/// safety: one call per endpoint, all endpoints concurrently.
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE`) is readable and `recvbuf` writable for `count` elements of
/// `datatype` for the call; `datatype` and `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Allreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let inter = ep.shared.is_inter();
    if inter && is_in_place(sendbuf) {
        return Err(ep_err!(ERR_BUFFER, "sendbuf is MPI_IN_PLACE, which MPI does not allow on an intercommunicator"));
    }
    let (input, in_place) = reduction_input(sendbuf, recvbuf, count, datatype, true)?;
    let recv = data_buf(recvbuf, count, datatype, "recvbuf")?;
    let commutative = op_commutative(op)?;
    // Every check is done (an endpoint that fails one must not arrive): publish the
    // input, and prepare the fold while the other endpoints' inputs cross over.
    if !inter {
        if let Some(arrival) = coll::allreduce_arrive(&ep, &input) {
            return coll::allreduce_meet(&ep, arrival, &input, HostOp(op), &recv);
        }
    }
    let recv = Some(recv);
    let args = ReduceArgs { input, in_place, recv, op: HostOp(op), commutative, root: None, scatter: None };
    if inter {
        coll::allreduce_inter(&ep, &args)
    } else {
        coll::reduce(&ep, &args)
    }
}

/// The checked arguments of `EP_Reduce_scatter(_block)` and their nonblocking forms.
pub(super) unsafe fn reduce_scatter_args<'a>(
    ep: &Endpoint,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    layout: Layout<'a>,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> EpResult<ReduceArgs<'a>> {
    let total: i64 = (0..ep.shared.map.size() as i32).map(|r| layout.count(r) as i64).sum();
    let total = c_int::try_from(total).map_err(|_| ep_err!(ERR_COUNT, "the counts add up to more than 2^31-1 elements"))?;
    let (input, in_place) = reduction_input(sendbuf, recvbuf, total, datatype, true)?;
    let recv = Some(data_buf(recvbuf, layout.count(ep.rank), datatype, "recvbuf")?);
    let commutative = op_commutative(op)?;
    Ok(ReduceArgs { input, in_place, recv, op: HostOp(op), commutative, root: None, scatter: Some(layout) })
}

/// Reduces `recvcount * size` elements from every endpoint with `op` and scatters the
/// result: rank i gets elements `i*recvcount .. (i+1)*recvcount` in `recvbuf` (MPI 4.1
/// section 6.10.1). `sendbuf` may be `MPI_IN_PLACE` (input in `recvbuf`).
///
/// On an intercommunicator the reduction of one group's inputs is scattered over the other
/// group: each endpoint's input has `recvcount` times the size of its own group elements, a
/// number that is the same in both groups; no `MPI_IN_PLACE`. Errors: as `EP_Reduce_scatter`.
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE`) is readable for `recvcount` times the communicator's size
/// elements of `datatype` and `recvbuf` writable for `recvcount` (for the call); `datatype` and
/// `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Reduce_scatter_block(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    if recvcount < 0 {
        return Err(ep_err!(ERR_COUNT, "recvcount {recvcount} is negative"));
    }
    if ep.shared.is_inter() {
        return coll_inter::reduce_scatter(&ep, sendbuf, recvbuf, Layout::Uniform(recvcount), datatype, op);
    }
    coll::reduce_scatter(&ep, &reduce_scatter_args(&ep, sendbuf, recvbuf, Layout::Uniform(recvcount), datatype, op)?)
}

/// Reduces `sum(recvcounts)` elements from every endpoint with `op` and scatters the
/// result: rank i gets `recvcounts[i]` elements (MPI 4.1 section 6.10.2). `recvcounts` has
/// one entry per rank. `sendbuf` may be `MPI_IN_PLACE` (input in `recvbuf`).
///
/// On an intercommunicator `recvcounts` has one entry per rank of the endpoint's own group, the
/// input their sum of elements (the same sum in both groups), and rank i of each group gets
/// its block of the reduction of the other group's inputs (in that group's rank order); no
/// `MPI_IN_PLACE`.
///
/// Errors: `EP_ERR_COMM`, `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_OP`, `EP_ERR_ARG` (NULL
/// `recvcounts`), `EP_ERR_BUFFER`, `EP_ERR_TRUNCATE` (counts of the groups differ).
/// Thread safety: one call per endpoint, all endpoints concurrently.
///
/// # Safety
/// `recvcounts` holds one readable `int` per rank; `sendbuf` (unless `MPI_IN_PLACE`) is
/// readable for their sum of elements of `datatype` and `recvbuf` writable for this rank's
/// count (for the call); `datatype` and `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Reduce_scatter(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let counts = coll_inter::local_counts(&ep, recvcounts)?;
        return coll_inter::reduce_scatter(&ep, sendbuf, recvbuf, Layout::Varied { counts, displs: &[] }, datatype, op);
    }
    let counts = per_rank(&ep, recvcounts, "recvcounts", true)?;
    let layout = Layout::Varied { counts, displs: &[] };
    coll::reduce_scatter(&ep, &reduce_scatter_args(&ep, sendbuf, recvbuf, layout, datatype, op)?)
}

/// The checked arguments of `EP_Scan`, `EP_Exscan` and their nonblocking forms.
pub(super) unsafe fn scan_args(
    comm: EP_Comm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    t: MPI_Datatype,
    op: MPI_Op,
    exclusive: bool,
) -> EpResult<(EpRef, ScanArgs)> {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let what = if exclusive { "EP_Exscan" } else { "EP_Scan" };
        return Err(ep_err!(ERR_COMM, "{what} is not defined on intercommunicators (MPI 4.1 section 6.11)"));
    }
    let (input, in_place) = reduction_input(sendbuf, recvbuf, count, t, true)?;
    let recv = data_buf(recvbuf, count, t, "recvbuf")?;
    op_commutative(op)?;
    Ok((ep, ScanArgs { input, in_place, recv, op: HostOp(op), exclusive }))
}

unsafe fn scan_impl(comm: EP_Comm, sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, t: MPI_Datatype, op: MPI_Op, exclusive: bool) -> EpResult<()> {
    let (ep, args) = scan_args(comm, sendbuf, recvbuf, count, t, op, exclusive)?;
    coll::scan(&ep, &args)
}

/// Inclusive prefix reduction: rank i gets `sendbuf(0) op ... op sendbuf(i)` (MPI 4.1
/// section 6.11.1), in rank order. `sendbuf` may be `MPI_IN_PLACE`. Not defined on
/// intercommunicators (`EP_ERR_COMM`).
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE`) is readable and `recvbuf` writable for `count` elements of
/// `datatype` for the call; `datatype` and `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Scan(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: EP_Comm) -> c_int {
    scan_impl(comm, sendbuf, recvbuf, count, datatype, op, false)
}

/// Exclusive prefix reduction: rank i > 0 gets `sendbuf(0) op ... op sendbuf(i-1)`; rank
/// 0's `recvbuf` is left as it is (MPI 4.1 section 6.11.2). `sendbuf` may be `MPI_IN_PLACE`.
/// Not defined on intercommunicators (`EP_ERR_COMM`).
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE`) is readable and `recvbuf` writable for `count` elements of
/// `datatype` for the call; `datatype` and `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Exscan(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: EP_Comm) -> c_int {
    scan_impl(comm, sendbuf, recvbuf, count, datatype, op, true)
}

/// The checked arguments of `EP_Gather(v)` and their nonblocking forms.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Gather(v), shared by both")]
pub(super) unsafe fn gather_args(
    comm: EP_Comm,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    recvtype: MPI_Datatype,
    root: c_int,
    varied: bool,
) -> EpResult<(EpRef, GathervArgs<'static>)> {
    let ep = intra_endpoint(comm)?;
    check_root(&ep, root)?;
    let is_root = ep.rank == root;
    let send = if is_root && is_in_place(sendbuf) { None } else { Some(data_buf(sendbuf, sendcount, sendtype, "sendbuf")?) };
    let recv = if is_root { Some(blocks(recvbuf, recvtype, layout(&ep)?, "recvbuf")?) } else { None };
    let rank = ep.rank;
    Ok((ep, GathervArgs { send, recv, root, rank, varied }))
}

/// Gathers `sendcount` elements from every endpoint into rank `root`'s `recvbuf`, rank i's
/// block at element offset `i * recvcount` (MPI 4.1 section 6.5). At the root, `sendbuf` may
/// be `MPI_IN_PLACE` (its block is already in place); receive arguments matter only there.
///
/// On an intercommunicator the root (`EP_ROOT`) gathers one block from each rank of the other
/// group (which passes the root's rank), its group's other endpoints pass `EP_PROC_NULL`; no
/// `MPI_IN_PLACE`. Errors: `EP_ERR_COMM`, `EP_ERR_ROOT`, `EP_ERR_COUNT`, `EP_ERR_TYPE`,
/// `EP_ERR_BUFFER`, `EP_ERR_TRUNCATE` (type signatures differ). Thread safety: one call per
/// endpoint, all endpoints concurrently.
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE` at the root) is readable for `sendcount` elements of
/// `sendtype`; at the root `recvbuf` is writable for `recvcount` elements of `recvtype` per
/// rank; for the call; the datatypes are valid host handles (receive arguments only at the
/// root).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Gather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
) -> c_int {
    let layout = |_: &Endpoint| Ok(Layout::Uniform(recvcount));
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return coll_inter::gather(&ep, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root);
    }
    let (ep, args) = gather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root, false)?;
    coll::gatherv(&ep, &args)
}

/// Gathers `sendcount` elements from every endpoint into rank `root`'s `recvbuf`: rank i's
/// `recvcounts[i]` elements at element displacement `displs[i]` (MPI 4.1 section 6.5). Both
/// arrays have one entry per rank and matter only at the root; `MPI_IN_PLACE` as `EP_Gather`.
/// On an intercommunicator as `EP_Gather`, the arrays with one entry per rank of the other
/// group. Errors: as `EP_Gather`, `EP_ERR_ARG` (NULL array at the root).
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE` at the root) is readable for `sendcount` elements of
/// `sendtype`; at the root `recvcounts` and `displs` hold one readable `int` per rank and
/// `recvbuf` is writable for each rank's block; for the call; the datatypes are valid host
/// handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Gatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
) -> c_int {
    let layout = |ep: &Endpoint| varied_layout(ep, recvcounts, displs, "recvcounts");
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return coll_inter::gather(&ep, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root);
    }
    let (ep, args) = gather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root, true)?;
    coll::gatherv(&ep, &args)
}

/// The checked arguments of `EP_Scatter(v)` and their nonblocking forms.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Scatter(v), shared by both")]
pub(super) unsafe fn scatter_args(
    comm: EP_Comm,
    sendbuf: *const c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    varied: bool,
) -> EpResult<(EpRef, ScattervArgs<'static>)> {
    let ep = intra_endpoint(comm)?;
    check_root(&ep, root)?;
    let is_root = ep.rank == root;
    let send = if is_root { Some(blocks(sendbuf as *mut c_void, sendtype, layout(&ep)?, "sendbuf")?) } else { None };
    let recv = if is_root && is_in_place(recvbuf) { None } else { Some(data_buf(recvbuf, recvcount, recvtype, "recvbuf")?) };
    Ok((ep, ScattervArgs { send, recv, root, varied }))
}

/// Scatters rank `root`'s `sendbuf`: rank i gets the block at element offset
/// `i * sendcount` in its `recvbuf` (MPI 4.1 section 6.6). At the root `recvbuf` may be
/// `MPI_IN_PLACE` (its block stays where it is); send arguments matter only at the root.
///
/// On an intercommunicator the root (`EP_ROOT`) sends one block to each rank of the other
/// group (which passes the root's rank), its group's other endpoints pass `EP_PROC_NULL`; no
/// `MPI_IN_PLACE`. Errors: `EP_ERR_COMM`, `EP_ERR_ROOT`, `EP_ERR_COUNT`, `EP_ERR_TYPE`,
/// `EP_ERR_BUFFER`, `EP_ERR_TRUNCATE`. Thread safety: one call per endpoint, all endpoints
/// concurrently.
///
/// # Safety
/// At the root `sendbuf` is readable for `sendcount` elements of `sendtype` per rank; `recvbuf`
/// (unless `MPI_IN_PLACE` at the root) is writable for `recvcount` elements of `recvtype`; for
/// the call; the datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Scatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
) -> c_int {
    let layout = |_: &Endpoint| Ok(Layout::Uniform(sendcount));
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return coll_inter::scatter(&ep, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root);
    }
    let (ep, args) = scatter_args(comm, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root, false)?;
    coll::scatterv(&ep, &args)
}

/// Scatters rank `root`'s `sendbuf`: rank i gets `sendcounts[i]` elements from element
/// displacement `displs[i]` (MPI 4.1 section 6.6); arrays of one entry per rank, used at the
/// root only. `MPI_IN_PLACE` as `EP_Scatter`. On an intercommunicator as `EP_Scatter`, the
/// arrays with one entry per rank of the other group. Errors: as `EP_Scatter`, `EP_ERR_ARG`.
///
/// # Safety
/// At the root `sendcounts` and `displs` hold one readable `int` per rank and `sendbuf` is
/// readable for each rank's block; `recvbuf` (unless `MPI_IN_PLACE` at the root) is writable
/// for `recvcount` elements of `recvtype`; for the call; the datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Scatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
) -> c_int {
    let layout = |ep: &Endpoint| varied_layout(ep, sendcounts, displs, "sendcounts");
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return coll_inter::scatter(&ep, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root);
    }
    let (ep, args) = scatter_args(comm, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root, true)?;
    coll::scatterv(&ep, &args)
}

/// The checked arguments of `EP_Allgather(v)` and their nonblocking forms.
pub(super) unsafe fn allgather_args(
    comm: EP_Comm,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    recvtype: MPI_Datatype,
) -> EpResult<(EpRef, AllgathervArgs<'static>)> {
    let ep = intra_endpoint(comm)?;
    let send = if is_in_place(sendbuf) { None } else { Some(UserBuf::new(sendbuf, sendcount, sendtype)?) };
    let recv = blocks(recvbuf, recvtype, layout(&ep)?, "recvbuf")?;
    let rank = ep.rank;
    Ok((ep, AllgathervArgs { send, recv, rank }))
}

/// Gathers `sendcount` elements from every endpoint into every endpoint's `recvbuf`, rank
/// i's block at element offset `i * recvcount` (MPI 4.1 section 6.7). `sendbuf` may be
/// `MPI_IN_PLACE` (each rank's block already in its place in `recvbuf`).
///
/// On an intercommunicator each endpoint gets the blocks of the other group's ranks (`recvbuf`
/// holds one per rank of the other group, in its rank order); no `MPI_IN_PLACE`. Errors:
/// `EP_ERR_COMM`, `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_BUFFER`, `EP_ERR_TRUNCATE`. Thread
/// safety: one call per endpoint, all endpoints concurrently.
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE`) is readable for `sendcount` elements of `sendtype` and
/// `recvbuf` writable for `recvcount` elements of `recvtype` per rank, for the call; the
/// datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    let layout = |_: &Endpoint| Ok(Layout::Uniform(recvcount));
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return coll_inter::allgather(&ep, sendbuf, sendcount, sendtype, recvbuf, layout(&ep)?, recvtype);
    }
    let (ep, args) = allgather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype)?;
    coll::allgatherv(&ep, &args)
}

/// `EP_Allgather` with `recvcounts[i]` elements of rank i at element displacement
/// `displs[i]` (MPI 4.1 section 6.7); arrays of one entry per rank. On an intercommunicator
/// as `EP_Allgather`, the arrays with one entry per rank of the other group. Errors: as
/// `EP_Allgather`, `EP_ERR_ARG` (NULL array).
///
/// # Safety
/// `recvcounts` and `displs` hold one readable `int` per rank; `sendbuf` (unless
/// `MPI_IN_PLACE`) is readable for `sendcount` elements of `sendtype` and `recvbuf` writable
/// for every rank's block, for the call; the datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    let layout = |ep: &Endpoint| varied_layout(ep, recvcounts, displs, "recvcounts");
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return coll_inter::allgather(&ep, sendbuf, sendcount, sendtype, recvbuf, layout(&ep)?, recvtype);
    }
    let (ep, args) = allgather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype)?;
    coll::allgatherv(&ep, &args)
}

/// Per-rank counts and element displacements given by the user (`what` names the counts).
///
/// # Safety
/// `counts` and `displs` are NULL or hold one readable `int` per rank, unchanged until the
/// operation completes.
pub(super) unsafe fn varied_layout(
    ep: &Endpoint,
    counts: *const c_int,
    displs: *const c_int,
    what: &str,
) -> EpResult<Layout<'static>> {
    Ok(Layout::Varied { counts: per_rank(ep, counts, what, true)?, displs: per_rank(ep, displs, "displs", false)? })
}

/// The checked arguments of `EP_Alltoall` and `EP_Ialltoall`.
///
/// # Safety
/// As for `EP_Alltoall`.
pub(super) unsafe fn alltoall_args(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
) -> EpResult<AlltoallvArgs<'static>> {
    let send = if is_in_place(sendbuf) { None } else { Some(blocks(sendbuf as *mut c_void, sendtype, Layout::Uniform(sendcount), "sendbuf")?) };
    let recv = blocks(recvbuf, recvtype, Layout::Uniform(recvcount), "recvbuf")?;
    Ok(AlltoallvArgs { send, recv })
}

/// The checked arguments of `EP_Alltoallv` and `EP_Ialltoallv`.
///
/// # Safety
/// As for `EP_Alltoallv`.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Alltoallv")]
pub(super) unsafe fn alltoallv_args(
    ep: &Endpoint,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
) -> EpResult<AlltoallvArgs<'static>> {
    let send = if is_in_place(sendbuf) {
        None
    } else {
        let layout = Layout::Varied { counts: per_rank(ep, sendcounts, "sendcounts", true)?, displs: per_rank(ep, sdispls, "sdispls", false)? };
        Some(blocks(sendbuf as *mut c_void, sendtype, layout, "sendbuf")?)
    };
    let layout = Layout::Varied { counts: per_rank(ep, recvcounts, "recvcounts", true)?, displs: per_rank(ep, rdispls, "rdispls", false)? };
    let recv = blocks(recvbuf, recvtype, layout, "recvbuf")?;
    Ok(AlltoallvArgs { send, recv })
}

/// Every endpoint sends block j of `sendbuf` (element offset `j * sendcount`) to rank j,
/// which stores it as block i of its `recvbuf` (MPI 4.1 section 6.8). `sendbuf` may be
/// `MPI_IN_PLACE` (blocks sent from and replaced in `recvbuf`).
///
/// On an intercommunicator block j goes to rank j of the other group, and block i of
/// `recvbuf` comes from rank i of the other group; no `MPI_IN_PLACE`. Errors: `EP_ERR_COMM`,
/// `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_BUFFER`, `EP_ERR_TRUNCATE`. Thread safety: one call
/// per endpoint, all endpoints concurrently.
///
/// # Safety
/// `sendbuf` (unless `MPI_IN_PLACE`) is readable for `sendcount` and `recvbuf` writable for
/// `recvcount` elements of their datatypes per rank, for the call; the datatypes are valid host
/// handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let (send_layout, recv_layout) = (Layout::Uniform(sendcount), Layout::Uniform(recvcount));
        return coll_inter::alltoall(&ep, sendbuf, send_layout, sendtype, recvbuf, recv_layout, recvtype);
    }
    coll::alltoallv(&ep, &alltoall_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype)?)
}

/// `EP_Alltoall` with per-rank counts and element displacements on both sides (MPI 4.1
/// section 6.8); each array has one entry per rank. `sendbuf` may be `MPI_IN_PLACE`. On an
/// intercommunicator as `EP_Alltoall`, each array with one entry per rank of the other group.
/// Errors: as `EP_Alltoall`, `EP_ERR_ARG` (NULL array).
///
/// # Safety
/// `sendcounts`, `sdispls` (unless `sendbuf` is `MPI_IN_PLACE`), `recvcounts` and `rdispls`
/// hold one readable `int` per rank; `sendbuf` is readable and `recvbuf` writable for the
/// blocks they describe, for the call; the datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let send_layout = coll_inter::remote_layout(&ep, sendcounts, sdispls, ("sendcounts", "sdispls"))?;
        let recv_layout = coll_inter::remote_layout(&ep, recvcounts, rdispls, ("recvcounts", "rdispls"))?;
        return coll_inter::alltoall(&ep, sendbuf, send_layout, sendtype, recvbuf, recv_layout, recvtype);
    }
    let args = alltoallv_args(&ep, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype)?;
    coll::alltoallv(&ep, &args)
}

/// The per-rank blocks of one side of an `EP_Alltoallw`: rank r's `counts[r]` elements of
/// `types[r]` at byte displacement `displs[r]` from `base` (a zero count takes no datatype).
///
/// # Safety
/// `counts`, `displs` and `types` are NULL or hold one readable entry per rank; `base` is
/// valid for every block they describe until the operation completes.
unsafe fn w_side(
    ep: &Endpoint,
    base: *mut c_void,
    counts: *const c_int,
    displs: *const c_int,
    types: *const MPI_Datatype,
    side: &str,
) -> EpResult<Vec<UserBuf>> {
    let counts = per_rank(ep, counts, &format!("{side}counts"), true)?;
    let displs = per_rank(ep, displs, &format!("{side} displs"), false)?;
    if types.is_null() {
        return Err(ep_err!(ERR_ARG, "{side}types is NULL"));
    }
    let types = std::slice::from_raw_parts(types, counts.len());
    (0..counts.len())
        .map(|r| {
            let addr = (base as *mut u8).wrapping_offset(displs[r] as isize) as *const c_void;
            let t = if counts[r] == 0 { HOST.byte } else { types[r] };
            UserBuf::new(addr, counts[r], t).map_err(|e| ep_err!(e.class, "{side} block of rank {r}: {}", e.msg))
        })
        .collect()
}

/// The checked arguments of `EP_Alltoallw` and `EP_Ialltoallw`: the blocks sent to each rank
/// (the receive blocks with `MPI_IN_PLACE`) and received from each rank.
///
/// # Safety
/// As for `EP_Alltoallw`.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Alltoallw")]
pub(super) unsafe fn w_blocks(
    ep: &Endpoint,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
) -> EpResult<(Vec<UserBuf>, Vec<UserBuf>)> {
    if is_in_place(recvbuf) {
        return Err(ep_err!(ERR_BUFFER, "recvbuf is MPI_IN_PLACE, which MPI does not allow here"));
    }
    if ep.shared.is_inter() && is_in_place(sendbuf) {
        return Err(ep_err!(ERR_BUFFER, "sendbuf is MPI_IN_PLACE, which MPI does not define on an intercommunicator"));
    }
    let recv = w_side(ep, recvbuf, recvcounts, rdispls, recvtypes, "recv")?;
    let send = if is_in_place(sendbuf) {
        recv.clone()
    } else {
        w_side(ep, sendbuf as *mut c_void, sendcounts, sdispls, sendtypes, "send")?
    };
    Ok((send, recv))
}

/// Every endpoint sends `sendcounts[j]` elements of `sendtypes[j]` at byte displacement
/// `sdispls[j]` of `sendbuf` to rank j, which stores them as `recvcounts[i]` elements of
/// `recvtypes[i]` at byte displacement `rdispls[i]` of its `recvbuf` (MPI 4.1 section 6.8).
/// Each array has one entry per rank; a datatype whose count is 0 is not used. `sendbuf` may
/// be `MPI_IN_PLACE` (blocks sent from and replaced in `recvbuf`; the send arrays are then
/// not used).
///
/// On an intercommunicator (MPI 4.1 section 6.8) block j goes to rank j of the other group
/// and the block of `recvbuf` described by entry i comes from rank i of the other group: each
/// array has one entry per rank of the other group; no `MPI_IN_PLACE`.
///
/// Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL array), `EP_ERR_COUNT` (negative count),
/// `EP_ERR_TYPE` (invalid datatype with a nonzero count), `EP_ERR_BUFFER` (NULL block with
/// data, `MPI_IN_PLACE` as `recvbuf`, or as `sendbuf` on an intercommunicator),
/// `EP_ERR_TRUNCATE` (type signatures that differ).
/// Thread safety: one call per endpoint, all endpoints concurrently.
///
/// # Safety
/// The arrays (the send ones unless `sendbuf` is `MPI_IN_PLACE`) hold one readable entry per
/// rank; `sendbuf` is readable and `recvbuf` writable for the blocks they describe, for the
/// call; the datatypes are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let (send, recv) = w_blocks(&ep, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes)?;
    // The nonblocking form completed at once: an all-to-all with a datatype per block is rare
    // enough not to need a path of its own.
    let c = immediate::ialltoallw(&ep, &send, recv, true)?;
    wait(&Request::new(ep.to_arc(), Op::Coll(c))).map(|_| ())
}

/// `inoutbuf[i] = inbuf[i] op inoutbuf[i]` for the `count` elements of `datatype` in both
/// buffers (MPI 4.1 section 6.9.7), with any predefined or user-defined op (non-commutative
/// ones see `inbuf` as the left operand). A local operation: no communicator.
///
/// Errors (through the default error handler): `EP_ERR_COUNT` (negative count),
/// `EP_ERR_TYPE` (invalid datatype), `EP_ERR_OP` (`MPI_OP_NULL` or invalid op),
/// `EP_ERR_BUFFER` (NULL with data, or `MPI_IN_PLACE`), the host's error for an op not
/// defined on the datatype. Thread safety: any thread.
///
/// # Safety
/// `inbuf` is readable and `inoutbuf` readable and writable for `count` elements of
/// `datatype`; `datatype` and `op` are valid host handles.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Reduce_local(
    inbuf: *const c_void,
    inoutbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> c_int {
    let input = data_buf(inbuf, count, datatype, "inbuf")?;
    let inout = data_buf(inoutbuf, count, datatype, "inoutbuf")?;
    op_commutative(op)?;
    reduce_local(&Elems::of(&input), inout.addr, HostOp(op))
}
