//! Persistent collectives (MPI 4.1 section 6.13) on endpoint intracommunicators:
//! `EP_Bcast_init` and the others make an inactive request that `EP_Start`/`EP_Startall`
//! start, each start beginning one round of the collective, the same as its nonblocking form
//! (`EP_Ibcast`...) called with the same arguments at that moment. Completion calls end the
//! round and leave the request inactive, its handle set; `EP_Request_free` frees it.
//!
//! The init call checks the arguments as the blocking form does (same errors, nothing made
//! on error) and reads the count, displacement and datatype arrays once: the request keeps
//! what they say. It is local: it neither communicates nor waits, but every endpoint makes
//! its persistent collectives in the same order, and starts their rounds in the same order
//! with the communicator's other collectives (MPI 4.1 section 6.13: each round is a
//! collective of the communicator; MPI requires that order, and so does EPMPI).
//!
//! Buffers are read (send data, and the receive buffer with `MPI_IN_PLACE`) at each start
//! and written when the round completes: change the data between rounds, not during one.
//! The request keeps copies of the derived datatypes it names, so the program may free its
//! own after init (MPI 4.1 section 5.1.9). A reduction keeps none: its datatype is
//! predefined, or goes with a user-defined op, which receives the program's own handle (MPI
//! 4.1 section 6.9.5); that datatype and the op must stay valid while the request exists.
//! `info` is accepted and ignored (MPI 4.1 section 6.13 defines no key).
//!
//! Errors, besides those of the blocking form: `EP_ERR_UNSUPPORTED` (an intercommunicator),
//! `EP_ERR_ARG` (NULL `request`); an error found when a round completes (`EP_ERR_TRUNCATE`
//! for type signatures that differ, a host failure) is returned by the completion call.
//! Thread safety: one call per endpoint, all endpoints concurrently.

use super::boundary::out;
use super::coll_api::{
    allgather_args, alltoall_args, alltoallv_args, check_root, gather_args, per_rank, reduce_scatter_args,
    reduction_input, scan_args, scatter_args, varied_layout, w_blocks,
};
use super::coll_args::data_buf;
use super::types::*;
use crate::engine::coll::immediate::{self, Reduction};
use crate::engine::coll::nonblocking::CollRequest;
use crate::engine::coll::typed::{op_commutative, HostOp};
use crate::engine::coll::{AlltoallvArgs, Layout};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::{HeldTypes, UserBuf};
use crate::engine::p2p::Drain;
use crate::engine::persistent::Rounds;
use crate::engine::request::{Op, Request};
use crate::ep_err;
use crate::error::{EpResult, ERR_COUNT, ERR_UNSUPPORTED};
use crate::handles::{endpoint_ref, new_request, EpRef};
use crate::host::sys::{MPI_Datatype, MPI_Info, MPI_Op};
use epmpi_macros::c_export;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// The endpoint of `comm`, an intracommunicator.
fn intra(comm: EP_Comm) -> EpResult<EpRef> {
    let ep = endpoint_ref(comm)?;
    if ep.shared.is_inter() {
        return Err(ep_err!(ERR_UNSUPPORTED, "persistent collectives are not supported on intercommunicators"));
    }
    Ok(ep)
}

/// Gives `*request` a new inactive persistent request whose rounds `round` starts (the
/// nonblocking collective on the arguments checked at init). Rounds are tested as
/// nonblocking collectives are. `held` holds copies of the derived datatypes the arguments
/// name, which `round` uses in their stead: the request keeps them for its life, so the
/// program may free its own after init (MPI 4.1 section 5.1.9).
fn planned(
    ep: &EpRef,
    request: &mut EP_Request,
    held: HeldTypes,
    round: impl Fn(&Endpoint) -> EpResult<CollRequest> + Send + 'static,
) -> EpResult<()> {
    let rounds = Rounds::new(move |ep: &Arc<Endpoint>| {
        let _types = &held;
        Ok(Op::Coll(round(ep)?))
    });
    *request = new_request(Request::persistent(ep.to_arc(), Box::new(rounds), Some(Drain::Local)))?;
    Ok(())
}

/// The blocks an all-to-all sends: its send blocks, or its receive blocks with `MPI_IN_PLACE`
/// (packed at each start, so before the round writes them).
fn alltoall_sends(ep: &Endpoint, args: &AlltoallvArgs) -> Vec<UserBuf> {
    args.send.as_ref().unwrap_or(&args.recv).each(ep.shared.map.size())
}

/// Persistent `EP_Barrier` (MPI 4.1 section 6.13): each round completes once every endpoint
/// has started its round. Errors: `EP_ERR_COMM`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL
/// request).
///
/// # Safety
/// `request` points at a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Barrier_init(comm: EP_Comm, info: MPI_Info, request: *mut EP_Request) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    planned(&ep, request, HeldTypes::default(), immediate::ibarrier)
}

/// Persistent `EP_Bcast` (MPI 4.1 section 6.13): each round broadcasts the `count` elements
/// of `datatype` that rank `root`'s `buf` holds at its start. Errors: as `EP_Bcast`,
/// `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// `buf` stays valid for `count` elements of `datatype` while the request exists, untouched
/// during a round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Bcast_init(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    check_root(&ep, root)?;
    let mut held = HeldTypes::default();
    let b = held.hold(data_buf(buf, count, datatype, "buf")?)?;
    planned(&ep, request, held, move |ep| immediate::ibcast(ep, b, root, true))
}

/// Persistent `EP_Gather` (MPI 4.1 section 6.13): each round gathers rank i's `sendcount`
/// elements at element offset `i * recvcount` of rank `root`'s `recvbuf`. `MPI_IN_PLACE` as
/// `EP_Gather`. Errors: as `EP_Gather`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Gather`, the buffers valid while the request exists and untouched during a
/// round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Gather_init(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    intra(comm)?;
    let request = out(request, "request")?;
    let layout = |_: &Endpoint| Ok(Layout::Uniform(recvcount));
    let (ep, a) = gather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root, false)?;
    let mut held = HeldTypes::default();
    let (send, recv) = (held.hold(a.send)?, held.hold(a.recv.map(|b| b.each(ep.shared.map.size())))?);
    planned(&ep, request, held, move |ep| immediate::igatherv(ep, send, recv.clone(), root, true))
}

/// Persistent `EP_Gatherv` (MPI 4.1 section 6.13): rank i's block lands at element
/// displacement `displs[i]` of the root's `recvbuf`, `recvcounts[i]` elements (both read at
/// init). Errors: as `EP_Gatherv`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Gather_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Gatherv_init(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    intra(comm)?;
    let request = out(request, "request")?;
    let layout = |ep: &Endpoint| varied_layout(ep, recvcounts, displs, "recvcounts");
    let (ep, a) = gather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype, root, true)?;
    let mut held = HeldTypes::default();
    let (send, recv) = (held.hold(a.send)?, held.hold(a.recv.map(|b| b.each(ep.shared.map.size())))?);
    planned(&ep, request, held, move |ep| immediate::igatherv(ep, send, recv.clone(), root, true))
}

/// Persistent `EP_Scatter` (MPI 4.1 section 6.13): each round gives rank i the block at
/// element offset `i * sendcount` of rank `root`'s `sendbuf`. Errors: as `EP_Scatter`,
/// `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Scatter`, the buffers valid while the request exists and untouched during a
/// round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Scatter_init(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    intra(comm)?;
    let request = out(request, "request")?;
    let layout = |_: &Endpoint| Ok(Layout::Uniform(sendcount));
    let (ep, a) = scatter_args(comm, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root, false)?;
    let mut held = HeldTypes::default();
    let (send, recv) = (held.hold(a.send.map(|b| b.each(ep.shared.map.size())))?, held.hold(a.recv)?);
    planned(&ep, request, held, move |ep| immediate::iscatterv(ep, send.clone(), recv, root, true))
}

/// Persistent `EP_Scatterv` (MPI 4.1 section 6.13): rank i gets `sendcounts[i]` elements from
/// element displacement `displs[i]` of the root's `sendbuf` (both read at init). Errors: as
/// `EP_Scatterv`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Scatter_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Scatterv_init(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    intra(comm)?;
    let request = out(request, "request")?;
    let layout = |ep: &Endpoint| varied_layout(ep, sendcounts, displs, "sendcounts");
    let (ep, a) = scatter_args(comm, sendbuf, layout, sendtype, recvbuf, recvcount, recvtype, root, true)?;
    let mut held = HeldTypes::default();
    let (send, recv) = (held.hold(a.send.map(|b| b.each(ep.shared.map.size())))?, held.hold(a.recv)?);
    planned(&ep, request, held, move |ep| immediate::iscatterv(ep, send.clone(), recv, root, true))
}

/// Persistent `EP_Allgather` (MPI 4.1 section 6.13): rank i's block lands at element offset
/// `i * recvcount` of every `recvbuf`. `MPI_IN_PLACE` as `EP_Allgather`. Errors: as
/// `EP_Allgather`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Allgather`, the buffers valid while the request exists and untouched during a
/// round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Allgather_init(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    intra(comm)?;
    let request = out(request, "request")?;
    let layout = |_: &Endpoint| Ok(Layout::Uniform(recvcount));
    let (ep, a) = allgather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype)?;
    let mut held = HeldTypes::default();
    let (send, recv) = (held.hold(a.send)?, held.hold(a.recv.each(ep.shared.map.size()))?);
    planned(&ep, request, held, move |ep| immediate::iallgatherv(ep, send, recv.clone(), true))
}

/// Persistent `EP_Allgatherv` (MPI 4.1 section 6.13): rank i's `recvcounts[i]` elements land
/// at element displacement `displs[i]` of every `recvbuf` (both read at init). Errors: as
/// `EP_Allgatherv`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Allgather_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Allgatherv_init(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    intra(comm)?;
    let request = out(request, "request")?;
    let layout = |ep: &Endpoint| varied_layout(ep, recvcounts, displs, "recvcounts");
    let (ep, a) = allgather_args(comm, sendbuf, sendcount, sendtype, recvbuf, layout, recvtype)?;
    let mut held = HeldTypes::default();
    let (send, recv) = (held.hold(a.send)?, held.hold(a.recv.each(ep.shared.map.size()))?);
    planned(&ep, request, held, move |ep| immediate::iallgatherv(ep, send, recv.clone(), true))
}

/// Gives `*request` a persistent all-to-all of `send` blocks (rank d gets `send[d]`) into
/// `recv` blocks (rank s's lands in `recv[s]`).
fn alltoall_planned(ep: &EpRef, request: &mut EP_Request, send: Vec<UserBuf>, recv: Vec<UserBuf>) -> EpResult<()> {
    let mut held = HeldTypes::default();
    let (send, recv) = (held.hold(send)?, held.hold(recv)?);
    planned(ep, request, held, move |ep| immediate::ialltoallw(ep, &send, recv.clone(), true))
}

/// Persistent `EP_Alltoall` (MPI 4.1 section 6.13): block j of `sendbuf` goes to rank j,
/// which stores it as block i of its `recvbuf`. `MPI_IN_PLACE` as `EP_Alltoall`. Errors: as
/// `EP_Alltoall`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Alltoall`, the buffers valid while the request exists and untouched during a
/// round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Alltoall_init(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    let a = alltoall_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype)?;
    alltoall_planned(&ep, request, alltoall_sends(&ep, &a), a.recv.each(ep.shared.map.size()))
}

/// Persistent `EP_Alltoallv` (MPI 4.1 section 6.13): per-rank counts and element
/// displacements on both sides, read at init. Errors: as `EP_Alltoallv`,
/// `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Alltoall_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Alltoallv_init(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    let a = alltoallv_args(&ep, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype)?;
    alltoall_planned(&ep, request, alltoall_sends(&ep, &a), a.recv.each(ep.shared.map.size()))
}

/// Persistent `EP_Alltoallw` (MPI 4.1 section 6.13): per-rank counts, byte displacements and
/// datatypes on both sides, read at init. Errors: as `EP_Alltoallw`, `EP_ERR_UNSUPPORTED`,
/// `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Alltoall_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Alltoallw_init(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    let (send, recv) = w_blocks(&ep, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes)?;
    alltoall_planned(&ep, request, send, recv)
}

/// Persistent `EP_Reduce` (MPI 4.1 section 6.13): each round combines every endpoint's
/// `count` elements with `op` in rank order into rank `root`'s `recvbuf`. `sendbuf` may be
/// `MPI_IN_PLACE` at the root. Errors: as `EP_Reduce`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG`
/// (NULL request).
///
/// # Safety
/// As for `EP_Reduce`, the buffers valid while the request exists and untouched during a
/// round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Reduce_init(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    check_root(&ep, root)?;
    let is_root = ep.rank == root;
    let (input, _) = reduction_input(sendbuf, recvbuf, count, datatype, is_root)?;
    let recv = if is_root { Some(data_buf(recvbuf, count, datatype, "recvbuf")?) } else { None };
    let (op, commutative) = (HostOp(op), op_commutative(op)?);
    planned(&ep, request, HeldTypes::default(), move |ep| immediate::ireduce(ep, input, recv, op, commutative, Reduction::Root(root)))
}

/// Persistent `EP_Allreduce` (MPI 4.1 section 6.13): every endpoint gets the combination of
/// every endpoint's `count` elements with `op`, in rank order. `sendbuf` may be
/// `MPI_IN_PLACE`. Errors: as `EP_Allreduce`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL
/// request).
///
/// # Safety
/// As for `EP_Reduce_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Allreduce_init(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    let (input, _) = reduction_input(sendbuf, recvbuf, count, datatype, true)?;
    let recv = data_buf(recvbuf, count, datatype, "recvbuf")?;
    let (op, commutative) = (HostOp(op), op_commutative(op)?);
    planned(&ep, request, HeldTypes::default(), move |ep| immediate::ireduce(ep, input, Some(recv), op, commutative, Reduction::All))
}

/// Persistent `EP_Reduce_scatter_block` (MPI 4.1 section 6.13): rank i gets elements
/// `i*recvcount .. (i+1)*recvcount` of the reduction. Errors: as `EP_Reduce_scatter_block`,
/// `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Reduce_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Reduce_scatter_block_init(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    if recvcount < 0 {
        return Err(ep_err!(ERR_COUNT, "recvcount {recvcount} is negative"));
    }
    let a = reduce_scatter_args(&ep, sendbuf, recvbuf, Layout::Uniform(recvcount), datatype, op)?;
    let counts = vec![recvcount; ep.shared.map.size()];
    let (input, recv, op, commutative) = (a.input, a.recv, a.op, a.commutative);
    planned(&ep, request, HeldTypes::default(), move |ep| {
        immediate::ireduce(ep, input, recv, op, commutative, Reduction::Scatter(counts.clone()))
    })
}

/// Persistent `EP_Reduce_scatter` (MPI 4.1 section 6.13): rank i gets `recvcounts[i]`
/// elements of the reduction (the counts read at init). Errors: as `EP_Reduce_scatter`,
/// `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Reduce_init`; `recvcounts` is readable for one int per rank.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Reduce_scatter_init(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let ep = intra(comm)?;
    let request = out(request, "request")?;
    let counts = per_rank(&ep, recvcounts, "recvcounts", true)?;
    let a = reduce_scatter_args(&ep, sendbuf, recvbuf, Layout::Varied { counts, displs: &[] }, datatype, op)?;
    let (input, recv, op, commutative, counts) = (a.input, a.recv, a.op, a.commutative, counts.to_vec());
    planned(&ep, request, HeldTypes::default(), move |ep| {
        immediate::ireduce(ep, input, recv, op, commutative, Reduction::Scatter(counts.clone()))
    })
}

/// Persistent `EP_Scan` and `EP_Exscan`: checks their arguments and makes the request.
///
/// # Safety
/// As for `EP_Scan_init`.
#[allow(clippy::too_many_arguments, reason = "MPI's arguments plus which scan")]
unsafe fn scan_init(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    request: *mut EP_Request,
    exclusive: bool,
) -> EpResult<()> {
    intra(comm)?;
    let request = out(request, "request")?;
    let (ep, a) = scan_args(comm, sendbuf, recvbuf, count, datatype, op, exclusive)?;
    let (input, recv, op) = (a.input, a.recv, a.op);
    planned(&ep, request, HeldTypes::default(), move |ep| {
        let how = if exclusive { Reduction::Exscan } else { Reduction::Scan };
        immediate::ireduce(ep, input, Some(recv), op, false, how)
    })
}

/// Persistent `EP_Scan` (MPI 4.1 section 6.13): rank i gets the combination of ranks 0..=i.
/// Errors: as `EP_Scan`, `EP_ERR_UNSUPPORTED`, `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Scan`, the buffers valid while the request exists and untouched during a
/// round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Scan_init(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    scan_init(sendbuf, recvbuf, count, datatype, op, comm, request, false)
}

/// Persistent `EP_Exscan` (MPI 4.1 section 6.13): rank i > 0 gets the combination of ranks
/// 0..i; rank 0's `recvbuf` is left as it is. Errors: as `EP_Exscan`, `EP_ERR_UNSUPPORTED`,
/// `EP_ERR_ARG` (NULL request).
///
/// # Safety
/// As for `EP_Scan_init`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Exscan_init(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    scan_init(sendbuf, recvbuf, count, datatype, op, comm, request, true)
}
