//! The intercommunicator forms of the rooted, all-to-all and reduce-scatter collectives of
//! `coll_api.rs` (MPI 4.1 section 6.2.2): which arguments are significant on which side, and
//! their checks. The exported functions of `coll_api.rs` come here when the communicator is
//! an intercommunicator.
//!
//! Rooted calls: the root passes `EP_ROOT`, the other endpoints of its group `EP_PROC_NULL`
//! (none of their buffer arguments is used), the endpoints of the other group the root's rank
//! in the root's group. Per-rank arrays (`recvcounts`, `sendcounts`, displacements) describe
//! the remote group's ranks, except `recvcounts` of `EP_Reduce_scatter`, which describes this
//! group's. `MPI_IN_PLACE` is not defined on intercommunicators: in a buffer that is used it
//! is `EP_ERR_BUFFER`.

use super::coll_args::{blocks, check_inter_root, data_buf, is_in_place, per_rank_n};
use super::types::*;
use crate::engine::coll::typed::{op_commutative, Elems, HostOp};
use crate::engine::coll::{self, Blocks, Layout, ReduceArgs};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::ep_err;
use crate::error::{EpResult, ERR_BUFFER, ERR_COUNT};
use crate::host::sys::{MPI_Datatype, MPI_Op};
use crate::host::HOST;
use std::os::raw::{c_int, c_void};

/// `EP_ERR_BUFFER` when a buffer that is used is `MPI_IN_PLACE`.
fn not_in_place(p: *const c_void, what: &str) -> EpResult<()> {
    if is_in_place(p) {
        return Err(ep_err!(ERR_BUFFER, "{what} is MPI_IN_PLACE, which MPI does not define on an intercommunicator"));
    }
    Ok(())
}

/// Size of the remote group, which per-rank arrays describe.
pub(super) fn remote_size(ep: &Endpoint) -> usize {
    ep.shared.peer_map(ep.local).size()
}

/// Size of this endpoint's own group.
pub(super) fn local_size(ep: &Endpoint) -> usize {
    ep.shared.group_map(ep.shared.group_of(ep.local)).size()
}

/// `EP_Gather(v)` on an intercommunicator; `layout` reads the root's receive counts.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Gather(v)")]
pub(super) unsafe fn gather(
    ep: &Endpoint,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    recvtype: MPI_Datatype,
    root: c_int,
) -> EpResult<()> {
    let (send, recv) = gather_bufs(ep, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root)?;
    coll::gather_inter(ep, send, recv, root)
}

/// The checked buffers of `EP_Gather(v)` and `EP_Igather(v)` on an intercommunicator: what
/// the endpoint sends (the other group's endpoints) and where it receives (the root).
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Gather(v)")]
pub(super) unsafe fn gather_bufs(
    ep: &Endpoint,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    recvtype: MPI_Datatype,
    root: c_int,
) -> EpResult<(Option<UserBuf>, Option<Blocks<'static>>)> {
    check_inter_root(ep, root)?;
    match root {
        EP_PROC_NULL => Ok((None, None)),
        EP_ROOT => {
            not_in_place(recvbuf, "recvbuf")?;
            Ok((None, Some(blocks(recvbuf, recvtype, layout(ep)?, "recvbuf")?)))
        }
        _ => {
            not_in_place(sendbuf, "sendbuf")?;
            Ok((Some(data_buf(sendbuf, sendcount, sendtype, "sendbuf")?), None))
        }
    }
}

/// `EP_Scatter(v)` on an intercommunicator; `layout` reads the root's send counts.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Scatter(v)")]
pub(super) unsafe fn scatter(
    ep: &Endpoint,
    sendbuf: *const c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
) -> EpResult<()> {
    let (send, recv) = scatter_bufs(ep, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root)?;
    coll::scatter_inter(ep, send, recv, root)
}

/// The checked buffers of `EP_Scatter(v)` and `EP_Iscatter(v)` on an intercommunicator: what
/// the root sends and where the other group's endpoints receive.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Scatter(v)")]
pub(super) unsafe fn scatter_bufs(
    ep: &Endpoint,
    sendbuf: *const c_void,
    layout: impl FnOnce(&Endpoint) -> EpResult<Layout<'static>>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
) -> EpResult<(Option<Blocks<'static>>, Option<UserBuf>)> {
    check_inter_root(ep, root)?;
    match root {
        EP_PROC_NULL => Ok((None, None)),
        EP_ROOT => {
            not_in_place(sendbuf, "sendbuf")?;
            Ok((Some(blocks(sendbuf as *mut c_void, sendtype, layout(ep)?, "sendbuf")?), None))
        }
        _ => {
            not_in_place(recvbuf, "recvbuf")?;
            Ok((None, Some(data_buf(recvbuf, recvcount, recvtype, "recvbuf")?)))
        }
    }
}

/// `EP_Allgather(v)` on an intercommunicator; `layout` gives a block per remote rank.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
pub(super) unsafe fn allgather(
    ep: &Endpoint,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    layout: Layout,
    recvtype: MPI_Datatype,
) -> EpResult<()> {
    let (send, recv) = allgather_bufs(sendbuf, sendcount, sendtype, recvbuf, layout, recvtype)?;
    coll::allgather_inter(ep, send, recv)
}

/// The checked buffers of `EP_Allgather(v)` and `EP_Iallgather(v)` on an intercommunicator.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
pub(super) unsafe fn allgather_bufs<'a>(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    layout: Layout<'a>,
    recvtype: MPI_Datatype,
) -> EpResult<(UserBuf, Blocks<'a>)> {
    not_in_place(sendbuf, "sendbuf")?;
    Ok((data_buf(sendbuf, sendcount, sendtype, "sendbuf")?, blocks(recvbuf, recvtype, layout, "recvbuf")?))
}

/// `EP_Alltoall(v)` on an intercommunicator: both layouts give a block per remote rank.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
pub(super) unsafe fn alltoall(
    ep: &Endpoint,
    sendbuf: *const c_void,
    send_layout: Layout,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recv_layout: Layout,
    recvtype: MPI_Datatype,
) -> EpResult<()> {
    let (send, recv) = alltoall_bufs(sendbuf, send_layout, sendtype, recvbuf, recv_layout, recvtype)?;
    coll::alltoall_inter(ep, send, recv)
}

/// The checked buffers of `EP_Alltoall(v)` and `EP_Ialltoall(v)` on an intercommunicator.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
pub(super) unsafe fn alltoall_bufs<'a>(
    sendbuf: *const c_void,
    send_layout: Layout<'a>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recv_layout: Layout<'a>,
    recvtype: MPI_Datatype,
) -> EpResult<(Blocks<'a>, Blocks<'a>)> {
    not_in_place(sendbuf, "sendbuf")?;
    let send = blocks(sendbuf as *mut c_void, sendtype, send_layout, "sendbuf")?;
    Ok((send, blocks(recvbuf, recvtype, recv_layout, "recvbuf")?))
}

/// The per-rank arrays of an all-to-all on an intercommunicator: one entry per remote rank.
///
/// # Safety
/// Each non-NULL array holds one readable `int` per remote rank.
pub(super) unsafe fn remote_layout<'a>(
    ep: &Endpoint,
    counts: *const c_int,
    displs: *const c_int,
    what: (&str, &str),
) -> EpResult<Layout<'a>> {
    let n = remote_size(ep);
    Ok(Layout::Varied { counts: per_rank_n(counts, n, what.0, true)?, displs: per_rank_n(displs, n, what.1, false)? })
}

/// `EP_Reduce` on an intercommunicator: at `EP_ROOT` only `recvbuf` (with `count` and
/// `datatype`) is used, with `EP_PROC_NULL` nothing, elsewhere `sendbuf` and `op`.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for `count` elements.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Reduce")]
pub(super) unsafe fn reduce(
    ep: &Endpoint,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
) -> EpResult<()> {
    coll::reduce_inter(ep, &reduce_args(ep, sendbuf, recvbuf, count, datatype, op, root)?, root)
}

/// The checked arguments of `EP_Reduce` and `EP_Ireduce` on an intercommunicator (the root's
/// `op` is `MPI_OP_NULL`: it combines nothing in the blocking form).
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for `count` elements.
#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Reduce")]
pub(super) unsafe fn reduce_args(
    ep: &Endpoint,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
) -> EpResult<ReduceArgs<'static>> {
    check_inter_root(ep, root)?;
    let unused = || UserBuf::new(std::ptr::null(), 0, HOST.byte);
    let (input, recv, op, commutative) = match root {
        EP_PROC_NULL => (Elems::of(&unused()?), None, HostOp(HOST.op_null), true),
        EP_ROOT => {
            not_in_place(recvbuf, "recvbuf")?;
            let recv = data_buf(recvbuf, count, datatype, "recvbuf")?;
            (Elems::of(&recv), Some(recv), HostOp(HOST.op_null), true)
        }
        _ => {
            not_in_place(sendbuf, "sendbuf")?;
            let input = Elems::of(&UserBuf::new(sendbuf, count, datatype)?);
            (input, None, HostOp(op), op_commutative(op)?)
        }
    };
    Ok(ReduceArgs { input, in_place: false, recv, op, commutative, root: None, scatter: None })
}

/// `EP_Reduce_scatter(_block)` on an intercommunicator: `layout` gives the blocks of this
/// group's ranks (`recvcounts` of `EP_Reduce_scatter`, one per rank of this group; `recvcount`
/// of `EP_Reduce_scatter_block`); the input is their sum of elements.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
pub(super) unsafe fn reduce_scatter(
    ep: &Endpoint,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    layout: Layout,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> EpResult<()> {
    coll::reduce_scatter_inter(ep, &reduce_scatter_args(ep, sendbuf, recvbuf, layout, datatype, op)?)
}

/// The checked arguments of `EP_Reduce_scatter(_block)` and their nonblocking forms on an
/// intercommunicator.
///
/// # Safety
/// As the calling C function's contract: the user's buffers valid for their counts.
pub(super) unsafe fn reduce_scatter_args<'a>(
    ep: &Endpoint,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    layout: Layout<'a>,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> EpResult<ReduceArgs<'a>> {
    not_in_place(sendbuf, "sendbuf")?;
    let total: i64 = (0..local_size(ep) as i32).map(|r| layout.count(r) as i64).sum();
    let total =
        c_int::try_from(total).map_err(|_| ep_err!(ERR_COUNT, "the counts add up to more than 2^31-1 elements"))?;
    let input = Elems::of(&UserBuf::new(sendbuf, total, datatype)?);
    let recv = Some(data_buf(recvbuf, layout.count(ep.rank), datatype, "recvbuf")?);
    let commutative = op_commutative(op)?;
    Ok(ReduceArgs { input, in_place: false, recv, op: HostOp(op), commutative, root: None, scatter: Some(layout) })
}

/// The `recvcounts` of `EP_Reduce_scatter` on an intercommunicator: one per rank of this group.
///
/// # Safety
/// `recvcounts` (if not NULL) holds one readable `int` per rank of this group.
pub(super) unsafe fn local_counts<'a>(ep: &Endpoint, recvcounts: *const c_int) -> EpResult<&'a [c_int]> {
    per_rank_n(recvcounts, local_size(ep), "recvcounts", true)
}
