//! Nonblocking collectives (MPI 4.1 section 6.12) on endpoint communicators: each call checks
//! its arguments as its blocking form does (same errors), joins the collective and
//! returns at once with `*request`, which the completion calls (`EP_Wait`, `EP_Test`,
//! `EP_Waitall`, `EP_Testany`, ...) complete; testing it makes progress, and never blocks
//! point-to-point traffic. Several may be outstanding on one communicator, mixed with
//! blocking collectives: every endpoint starts the communicator's collectives (blocking and
//! nonblocking) in the same order, as MPI requires, and may complete them in any order.
//!
//! Buffers: send data is read when the call is made; receive buffers are written when this
//! endpoint's request completes and may not be accessed before then. Count, displacement
//! and datatype arrays are read when the call is made (MPI requires them unchanged until
//! completion; EPMPI does not rely on it). Results are those of the blocking forms: rank
//! order everywhere, reductions combined in rank order (non-commutative and user-defined ops
//! too), any datatypes with matching type signatures, `MPI_IN_PLACE` where MPI allows it.
//! The program may free a derived datatype once the call returns (MPI 4.1 section 5.1.9):
//! the request keeps a copy of it. Not for reductions, whose datatype is predefined or goes
//! with a user-defined op, which receives the program's own handle (MPI 4.1 section 6.9.5):
//! that datatype and the op must stay valid until the request completes.
//!
//! On intercommunicators (MPI 4.1 sections 6.2.2 and 6.12) each call has its blocking form's
//! intercommunicator semantics (see `coll_api.rs`): `EP_ROOT`, `EP_PROC_NULL` or the remote
//! root's rank in rooted calls, data and results from the other group in its rank order,
//! per-rank arrays of the other group (`EP_Ireduce_scatter`'s `recvcounts`: of the own group),
//! `MPI_IN_PLACE` in a buffer that is used `EP_ERR_BUFFER`; `EP_Iscan` and `EP_Iexscan` give
//! `EP_ERR_COMM`. `EP_Ireduce` also uses `op` at the root (MPI has every endpoint pass the
//! same op): the root combines the other group's inputs, in their rank order.
//!
//! Errors, besides those of the blocking form: `EP_ERR_ARG` (NULL `request`); an error found
//! when the collective completes (`EP_ERR_TRUNCATE` for type signatures that differ, a host
//! failure) is returned by the completion call. Thread safety: one call per endpoint, all
//! endpoints concurrently.

use super::boundary::out;
use super::coll_api::{
    allgather_args, alltoall_args, alltoallv_args, check_root, gather_args, per_rank, reduce_scatter_args,
    reduction_input, scan_args, scatter_args, varied_layout, w_blocks,
};
use super::coll_args::{check_inter_root, data_buf};
use super::coll_inter::{self, local_size, remote_size};
use super::types::*;
use crate::engine::coll::immediate::{self, Reduction};
use crate::engine::coll::immediate_inter;
use crate::engine::coll::nonblocking::CollRequest;
use crate::engine::coll::typed::{op_commutative, HostOp};
use crate::engine::coll::{AlltoallvArgs, Layout};
use crate::engine::coll::typed::Elems;
use crate::engine::comm::Endpoint;
use crate::engine::request::{Op, Request};
use crate::error::{EpResult, ERR_COUNT};
use crate::ep_err;
use crate::handles::{endpoint_ref, new_request, EpRef};
use crate::host::sys::{MPI_Datatype, MPI_Op};
use epmpi_macros::c_export;
use std::os::raw::{c_int, c_void};

/// Gives `c` its request handle in `*request`.
fn started(ep: &EpRef, request: &mut EP_Request, c: CollRequest) -> EpResult<()> {
    *request = new_request(Request::new(ep.to_arc(), Op::Coll(c)))?;
    Ok(())
}

/// The blocks an all-to-all sends: its send blocks, or its receive blocks with `MPI_IN_PLACE`.
fn alltoall_sends(ep: &Endpoint, args: &AlltoallvArgs) -> Vec<crate::engine::datatype::UserBuf> {
    args.send.as_ref().unwrap_or(&args.recv).each(ep.shared.map.size())
}

/// `EP_Igather(v)` on an intercommunicator (`layout` reads the root's receive counts).
///
/// # Safety
/// As the calling C function's contract.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Igather(v)")]
unsafe fn igather_inter(
    ep: &EpRef,
    request: &mut EP_Request,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    recvtype: MPI_Datatype,
    root: c_int,
) -> EpResult<()> {
    let (send, recv) = coll_inter::gather_bufs(ep, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root)?;
    let recv = recv.map(|b| b.each(remote_size(ep)));
    started(ep, request, immediate_inter::igatherv_inter(ep, send, recv, root, false)?)
}

/// `EP_Iscatter(v)` on an intercommunicator (`layout` reads the root's send counts).
///
/// # Safety
/// As the calling C function's contract.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Iscatter(v)")]
unsafe fn iscatter_inter(
    ep: &EpRef,
    request: &mut EP_Request,
    sendbuf: *const c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
) -> EpResult<()> {
    let (send, recv) = coll_inter::scatter_bufs(ep, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root)?;
    let send = send.map(|b| b.each(remote_size(ep)));
    started(ep, request, immediate_inter::iscatterv_inter(ep, send, recv, root, false)?)
}

/// `EP_Ialltoall(v)` on an intercommunicator: both layouts give a block per remote rank.
///
/// # Safety
/// As the calling C function's contract.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Ialltoall(v)")]
unsafe fn ialltoall_inter(
    ep: &EpRef,
    request: &mut EP_Request,
    sendbuf: *const c_void,
    send_layout: Layout,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recv_layout: Layout,
    recvtype: MPI_Datatype,
) -> EpResult<()> {
    let (send, recv) = coll_inter::alltoall_bufs(sendbuf, send_layout, sendtype, recvbuf, recv_layout, recvtype)?;
    let n = remote_size(ep);
    started(ep, request, immediate::ialltoallw(ep, &send.each(n), recv.each(n), false)?)
}

/// `EP_Ireduce_scatter(_block)` on an intercommunicator: `layout` gives the blocks of this
/// group's ranks.
///
/// # Safety
/// As the calling C function's contract.
unsafe fn ireduce_scatter_inter(
    ep: &EpRef,
    request: &mut EP_Request,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    layout: Layout,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> EpResult<()> {
    let counts = (0..local_size(ep) as c_int).map(|r| layout.count(r)).collect();
    let a = coll_inter::reduce_scatter_args(ep, sendbuf, recvbuf, layout, datatype, op)?;
    let how = Reduction::Scatter(counts);
    started(ep, request, immediate_inter::ireduce_inter(ep, Some(a.input), a.input, a.recv, a.op, how)?)
}

/// Starts a barrier and returns at once; `*request` completes once every endpoint has entered
/// it (MPI 4.1 section 6.12.1). Errors: `EP_ERR_COMM`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// `request` points at a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ibarrier(comm: EP_Comm, request: *mut EP_Request) -> c_int {
    let ep = endpoint_ref(comm)?;
    let request = out(request, "request")?;
    started(&ep, request, immediate::ibarrier(&ep)?)
}

/// Starts a broadcast of `count` elements of `datatype` in `buf` from rank `root` and returns
/// at once (MPI 4.1 section 6.12.2). Errors: as `EP_Bcast`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// `buf` is readable (at the root) or writable (elsewhere) for `count` elements of `datatype`
/// and not accessed by the caller until the request completes (MPI 4.1 section 3.7.2);
/// `datatype` is a valid host datatype; `request` points at a writable `EP_Request` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ibcast(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let request = out(request, "request")?;
    if ep.shared.is_inter() {
        check_inter_root(&ep, root)?;
        let b = if root == EP_PROC_NULL { None } else { Some(data_buf(buf, count, datatype, "buf")?) };
        return started(&ep, request, immediate_inter::ibcast_inter(&ep, b, root, false)?);
    }
    check_root(&ep, root)?;
    let b = data_buf(buf, count, datatype, "buf")?;
    started(&ep, request, immediate::ibcast(&ep, b, root, false)?)
}

/// Starts `EP_Gather` (MPI 4.1 section 6.12.3): rank i's `sendcount` elements land at element
/// offset `i * recvcount` of rank `root`'s `recvbuf`. `MPI_IN_PLACE` as `EP_Gather`. Errors:
/// as `EP_Gather`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Gather`, with `recvbuf` (at the root) valid and untouched until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Igather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let layout = |_: &Endpoint| Ok(Layout::Uniform(recvcount));
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return igather_inter(&ep, request, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root);
    }
    let (ep, a) = gather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root, false)?;
    let recv = a.recv.map(|b| b.each(ep.shared.map.size()));
    started(&ep, request, immediate::igatherv(&ep, a.send, recv, root, false)?)
}

/// Starts `EP_Gatherv` (MPI 4.1 section 6.12.3): rank i's block lands at element displacement
/// `displs[i]` of the root's `recvbuf`, `recvcounts[i]` elements. Errors: as `EP_Gatherv`,
/// `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Gatherv`, with `recvbuf` (at the root) valid and untouched until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Igatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let layout = |ep: &Endpoint| varied_layout(ep, recvcounts, displs, "recvcounts");
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return igather_inter(&ep, request, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root);
    }
    let (ep, a) = gather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root, true)?;
    let recv = a.recv.map(|b| b.each(ep.shared.map.size()));
    started(&ep, request, immediate::igatherv(&ep, a.send, recv, root, false)?)
}

/// Starts `EP_Scatter` (MPI 4.1 section 6.12.4): rank i gets the block at element offset
/// `i * sendcount` of rank `root`'s `sendbuf`. Errors: as `EP_Scatter`, `EP_ERR_ARG` (NULL
/// request).
///
/// # Safety
/// As for `EP_Scatter`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iscatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let layout = |_: &Endpoint| Ok(Layout::Uniform(sendcount));
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return iscatter_inter(&ep, request, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root);
    }
    let (ep, a) = scatter_args(comm, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root, false)?;
    let send = a.send.map(|b| b.each(ep.shared.map.size()));
    started(&ep, request, immediate::iscatterv(&ep, send, a.recv, root, false)?)
}

/// Starts `EP_Scatterv` (MPI 4.1 section 6.12.4): rank i gets `sendcounts[i]` elements from
/// element displacement `displs[i]` of the root's `sendbuf`. Errors: as `EP_Scatterv`,
/// `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Scatterv`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iscatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let layout = |ep: &Endpoint| varied_layout(ep, sendcounts, displs, "sendcounts");
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return iscatter_inter(&ep, request, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root);
    }
    let (ep, a) = scatter_args(comm, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root, true)?;
    let send = a.send.map(|b| b.each(ep.shared.map.size()));
    started(&ep, request, immediate::iscatterv(&ep, send, a.recv, root, false)?)
}

/// Starts `EP_Allgather` (MPI 4.1 section 6.12.5): rank i's block lands at element offset
/// `i * recvcount` of every `recvbuf`. `MPI_IN_PLACE` as `EP_Allgather`. Errors: as
/// `EP_Allgather`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Allgather`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iallgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let layout = |_: &Endpoint| Ok(Layout::Uniform(recvcount));
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let (send, recv) = coll_inter::allgather_bufs(sendbuf, sendcount, sendtype, recvbuf, layout(&ep)?, recvtype)?;
        return started(&ep, request, immediate::iallgatherv(&ep, Some(send), recv.each(remote_size(&ep)), false)?);
    }
    let (ep, a) = allgather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype)?;
    let recv = a.recv.each(ep.shared.map.size());
    started(&ep, request, immediate::iallgatherv(&ep, a.send, recv, false)?)
}

/// Starts `EP_Allgatherv` (MPI 4.1 section 6.12.5): rank i's `recvcounts[i]` elements land at
/// element displacement `displs[i]` of every `recvbuf`. Errors: as `EP_Allgatherv`,
/// `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Allgatherv`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iallgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let layout = |ep: &Endpoint| varied_layout(ep, recvcounts, displs, "recvcounts");
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let (send, recv) = coll_inter::allgather_bufs(sendbuf, sendcount, sendtype, recvbuf, layout(&ep)?, recvtype)?;
        return started(&ep, request, immediate::iallgatherv(&ep, Some(send), recv.each(remote_size(&ep)), false)?);
    }
    let (ep, a) = allgather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype)?;
    let recv = a.recv.each(ep.shared.map.size());
    started(&ep, request, immediate::iallgatherv(&ep, a.send, recv, false)?)
}

/// Starts `EP_Alltoall` (MPI 4.1 section 6.12.6): block j of `sendbuf` goes to rank j, which
/// stores it as block i of its `recvbuf`. `MPI_IN_PLACE` as `EP_Alltoall`. Errors: as
/// `EP_Alltoall`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Alltoall`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ialltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let (send_layout, recv_layout) = (Layout::Uniform(sendcount), Layout::Uniform(recvcount));
        return ialltoall_inter(&ep, request, sendbuf, send_layout, sendtype, recvbuf, recv_layout, recvtype);
    }
    let a = alltoall_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype)?;
    let send = alltoall_sends(&ep, &a);
    started(&ep, request, immediate::ialltoallw(&ep, &send, a.recv.each(ep.shared.map.size()), false)?)
}

/// Starts `EP_Alltoallv` (MPI 4.1 section 6.12.6): per-rank counts and element
/// displacements on both sides. Errors: as `EP_Alltoallv`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Alltoallv`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ialltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let send_layout = coll_inter::remote_layout(&ep, sendcounts, sdispls, ("sendcounts", "sdispls"))?;
        let recv_layout = coll_inter::remote_layout(&ep, recvcounts, rdispls, ("recvcounts", "rdispls"))?;
        return ialltoall_inter(&ep, request, sendbuf, send_layout, sendtype, recvbuf, recv_layout, recvtype);
    }
    let a = alltoallv_args(&ep, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype)?;
    let send = alltoall_sends(&ep, &a);
    started(&ep, request, immediate::ialltoallw(&ep, &send, a.recv.each(ep.shared.map.size()), false)?)
}

/// Starts `EP_Alltoallw` (MPI 4.1 section 6.12.6): per-rank counts, byte displacements and
/// datatypes on both sides. Errors: as `EP_Alltoallw`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Alltoallw`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ialltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let ep = endpoint_ref(comm)?;
    let (send, recv) = w_blocks(&ep, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes)?;
    started(&ep, request, immediate::ialltoallw(&ep, &send, recv, false)?)
}

/// Starts `EP_Reduce` (MPI 4.1 section 6.12.7): `count` elements from every endpoint
/// combined with `op` in rank order into rank `root`'s `recvbuf`. `sendbuf` may be
/// `MPI_IN_PLACE` at the root. Errors: as `EP_Reduce`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Reduce`, with `recvbuf` (at the root) valid and untouched until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ireduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let a = coll_inter::reduce_args(&ep, sendbuf, recvbuf, count, datatype, op, root)?;
        let (input, op) = match root {
            EP_ROOT => (None, op_commutative(op).map(|_| HostOp(op))?),
            EP_PROC_NULL => (None, a.op),
            _ => (Some(a.input), a.op),
        };
        let how = Reduction::Root(root);
        return started(&ep, request, immediate_inter::ireduce_inter(&ep, input, a.input, a.recv, op, how)?);
    }
    check_root(&ep, root)?;
    let is_root = ep.rank == root;
    let (input, _) = reduction_input(sendbuf, recvbuf, count, datatype, is_root)?;
    let recv = if is_root { Some(data_buf(recvbuf, count, datatype, "recvbuf")?) } else { None };
    let commutative = op_commutative(op)?;
    started(&ep, request, immediate::ireduce(&ep, input, recv, HostOp(op), commutative, Reduction::Root(root))?)
}

/// Starts `EP_Allreduce` (MPI 4.1 section 6.12.8): every endpoint gets the combination of
/// every endpoint's `count` elements with `op`, in rank order. `sendbuf` may be
/// `MPI_IN_PLACE`. Errors: as `EP_Allreduce`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Allreduce`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iallreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let input = Elems::of(&data_buf(sendbuf, count, datatype, "sendbuf")?);
        let recv = data_buf(recvbuf, count, datatype, "recvbuf")?;
        let op = op_commutative(op).map(|_| HostOp(op))?;
        let c = immediate_inter::ireduce_inter(&ep, Some(input), input, Some(recv), op, Reduction::All)?;
        return started(&ep, request, c);
    }
    let (input, _) = reduction_input(sendbuf, recvbuf, count, datatype, true)?;
    let recv = data_buf(recvbuf, count, datatype, "recvbuf")?;
    let commutative = op_commutative(op)?;
    started(&ep, request, immediate::ireduce(&ep, input, Some(recv), HostOp(op), commutative, Reduction::All)?)
}

/// Starts `EP_Reduce_scatter_block` (MPI 4.1 section 6.12.9): rank i gets elements
/// `i*recvcount .. (i+1)*recvcount` of the reduction. Errors: as `EP_Reduce_scatter_block`,
/// `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Reduce_scatter_block`, with `recvbuf` valid and untouched until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ireduce_scatter_block(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let ep = endpoint_ref(comm)?;
    if recvcount < 0 {
        return Err(ep_err!(ERR_COUNT, "recvcount {recvcount} is negative"));
    }
    if ep.shared.is_inter() {
        return ireduce_scatter_inter(&ep, request, sendbuf, recvbuf, Layout::Uniform(recvcount), datatype, op);
    }
    let a = reduce_scatter_args(&ep, sendbuf, recvbuf, Layout::Uniform(recvcount), datatype, op)?;
    let counts = vec![recvcount; ep.shared.map.size()];
    let how = Reduction::Scatter(counts);
    started(&ep, request, immediate::ireduce(&ep, a.input, a.recv, a.op, a.commutative, how)?)
}

/// Starts `EP_Reduce_scatter` (MPI 4.1 section 6.12.10): rank i gets `recvcounts[i]` elements
/// of the reduction. Errors: as `EP_Reduce_scatter`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Reduce_scatter`, with `recvbuf` valid and untouched until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ireduce_scatter(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        let layout = Layout::Varied { counts: coll_inter::local_counts(&ep, recvcounts)?, displs: &[] };
        return ireduce_scatter_inter(&ep, request, sendbuf, recvbuf, layout, datatype, op);
    }
    let counts = per_rank(&ep, recvcounts, "recvcounts", true)?;
    let a = reduce_scatter_args(&ep, sendbuf, recvbuf, Layout::Varied { counts, displs: &[] }, datatype, op)?;
    let how = Reduction::Scatter(counts.to_vec());
    started(&ep, request, immediate::ireduce(&ep, a.input, a.recv, a.op, a.commutative, how)?)
}

/// Starts `EP_Scan` (MPI 4.1 section 6.12.11): rank i gets the combination of ranks 0..=i.
/// Errors: as `EP_Scan`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Scan`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let (ep, a) = scan_args(comm, sendbuf, recvbuf, count, datatype, op, false)?;
    started(&ep, request, immediate::ireduce(&ep, a.input, Some(a.recv), a.op, false, Reduction::Scan)?)
}

/// Starts `EP_Exscan` (MPI 4.1 section 6.12.12): rank i > 0 gets the combination of ranks
/// 0..i; rank 0's `recvbuf` is left as it is. Errors: as `EP_Exscan`, `EP_ERR_ARG` (NULL
/// request).
///
/// # Safety
/// As for `EP_Exscan`, with `recvbuf` valid and untouched until the request completes;
/// `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iexscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let request = out(request, "request")?;
    let (ep, a) = scan_args(comm, sendbuf, recvbuf, count, datatype, op, true)?;
    started(&ep, request, immediate::ireduce(&ep, a.input, Some(a.recv), a.op, false, Reduction::Exscan)?)
}
