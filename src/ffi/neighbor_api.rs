//! Neighbourhood collectives (MPI 4.1 section 8.6 and 8.7) on communicators with a
//! Cartesian or distributed graph topology: each endpoint exchanges one block with each of
//! its neighbours. Neighbour order is MPI's: on a grid, for each dimension the -1 then the +1
//! neighbour (sources and destinations alike; `EP_PROC_NULL` past a non-periodic edge, whose
//! blocks are neither sent nor written); on a distributed graph, the order the endpoint gave
//! its sources (receive blocks) and destinations (send blocks) in. On a periodic dimension of
//! extent 1 or 2, the block sent to the -1 neighbour lands in that neighbour's +1 block and
//! the other way round. Counts are in elements of the datatype they go with; `MPI_IN_PLACE`
//! is not allowed (MPI does not define it here).
//!
//! Errors common to all: `EP_ERR_COMM` (invalid handle), `EP_ERR_TOPOLOGY` (no topology),
//! `EP_ERR_COUNT` (negative count), `EP_ERR_TYPE` (invalid datatype), `EP_ERR_BUFFER` (NULL
//! buffer with data, `MPI_IN_PLACE`), `EP_ERR_ARG` (NULL count, displacement or type array
//! with neighbours), `EP_ERR_TRUNCATE` (a neighbour's block larger than the receive block),
//! `EP_ERR_OTHER` (a neighbour's block smaller than the receive block: its counts differ or
//! its call failed). An endpoint whose arguments are bad still exchanges empty messages
//! with its neighbours before it returns its error, so they return (with `EP_ERR_OTHER`)
//! instead of waiting, and the communicator keeps working.
//!
//! Thread safety: one call per endpoint, concurrently; same order of collectives on every
//! endpoint. The nonblocking forms (`EP_Ineighbor_*`) return a request completed by the
//! completion calls; their buffers must not be touched until then, but their datatypes may
//! be freed (MPI 4.1 section 5.1.9: the request keeps copies). The persistent forms
//! (`EP_Neighbor_*_init`, MPI 4.1 section 8.8) check the arguments and read the count,
//! displacement and type arrays at init, which is local (bad arguments return the error and
//! make nothing); each `EP_Start` begins one round of the nonblocking form on the buffers'
//! contents at that moment. Every endpoint starts rounds in the same order with its other
//! collectives on the communicator; the request keeps copies of the derived datatypes it
//! names, so the program may free its own after init (MPI 4.1 section 5.1.9), as it may
//! after a nonblocking call; `info` is accepted and ignored.

use super::boundary::out;
use super::types::*;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::{type_info, HeldTypes, UserBuf};
use crate::engine::p2p::Drain;
use crate::engine::persistent::Rounds;
use crate::engine::request::{Op, Request};
use crate::engine::topo::neighbor::{self, Block, Neighbours};
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_BUFFER};
use crate::handles::{endpoint_ref, new_request};
use crate::host::sys::{MPI_Aint, MPI_Datatype, MPI_Info};
use crate::host::HOST;
use epmpi_macros::c_export;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// A per-neighbour array of `n` entries given by the user.
///
/// # Safety
/// `p` is NULL or readable for `n` entries that outlive `'a`.
unsafe fn per_neighbour<'a, T>(p: *const T, n: usize, what: &str) -> EpResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(ep_err!(ERR_ARG, "{what} is NULL"));
    }
    // SAFETY: non-null and readable for `n` entries (this function's contract).
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// One block per peer of the user's buffer `base`: `block(i)` gives block i's byte offset,
/// element count and datatype.
///
/// # Safety
/// `base` and the blocks describe the user's buffer, valid for every block until the
/// operation completes (MPI 4.1 section 3.7.2).
unsafe fn blocks(
    base: *const c_void,
    peers: &[i32],
    what: &str,
    block: impl Fn(usize) -> EpResult<(isize, c_int, MPI_Datatype)>,
) -> EpResult<Vec<Block>> {
    if std::ptr::eq(base, HOST.in_place) {
        return Err(ep_err!(ERR_BUFFER, "{what} is MPI_IN_PLACE, which neighbourhood collectives do not allow"));
    }
    let mut v = Vec::with_capacity(peers.len());
    for (i, &peer) in peers.iter().enumerate() {
        let (offset, count, t) = block(i)?;
        let at = (base as *const u8).wrapping_offset(offset) as *const c_void;
        // SAFETY: the block lies inside the user's buffer (this function's contract).
        v.push(Block { peer, buf: unsafe { UserBuf::new(at, count, t)? } });
    }
    Ok(v)
}

/// Blocks of `count` elements of `t`, one after the other.
///
/// # Safety
/// As for [`blocks`].
unsafe fn uniform(
    base: *const c_void,
    peers: &[i32],
    count: c_int,
    t: MPI_Datatype,
    what: &str,
) -> EpResult<Vec<Block>> {
    let stride = count.max(0) as isize * type_info(t)?.extent;
    blocks(base, peers, what, |i| Ok((i as isize * stride, count, t)))
}

/// Blocks of `counts[i]` elements of `t` at `displs[i]` elements from `base`.
///
/// # Safety
/// As for [`blocks`]; `counts` and `displs` are NULL or readable for `peers.len()` ints.
unsafe fn varied(
    base: *const c_void,
    peers: &[i32],
    counts: *const c_int,
    displs: *const c_int,
    t: MPI_Datatype,
    what: &str,
) -> EpResult<Vec<Block>> {
    let counts = per_neighbour(counts, peers.len(), &format!("{what} counts"))?;
    let displs = per_neighbour(displs, peers.len(), &format!("{what} displacements"))?;
    let extent = type_info(t)?.extent;
    blocks(base, peers, what, |i| Ok((displs[i] as isize * extent, counts[i], t)))
}

/// Blocks of `counts[i]` elements of `types[i]` at `displs[i]` bytes from `base`.
///
/// # Safety
/// As for [`blocks`]; the arrays are NULL or readable for `peers.len()` entries.
unsafe fn typed(
    base: *const c_void,
    peers: &[i32],
    counts: *const c_int,
    displs: *const MPI_Aint,
    types: *const MPI_Datatype,
    what: &str,
) -> EpResult<Vec<Block>> {
    let counts = per_neighbour(counts, peers.len(), &format!("{what} counts"))?;
    let displs = per_neighbour(displs, peers.len(), &format!("{what} displacements"))?;
    let types = per_neighbour(types, peers.len(), &format!("{what} types"))?;
    blocks(base, peers, what, |i| Ok((displs[i] as isize, counts[i], types[i])))
}

/// Which form of a neighbourhood collective a call is, and where the request of the
/// nonblocking and persistent forms goes.
#[derive(Clone, Copy)]
enum Form {
    Blocking,
    Nonblocking(*mut EP_Request),
    Persistent(*mut EP_Request),
}

/// Runs a neighbourhood collective on `comm`: `parts` makes the send blocks (one per
/// destination) and receive blocks (one per source) of the endpoint's neighbours; `form` says
/// whether to return when done, at once with a request, or with a persistent request whose
/// every start exchanges the same blocks. Bad arguments: see the module documentation (a
/// persistent init is local: it exchanges nothing and makes nothing).
///
/// # Safety
/// The request pointer is NULL or writable; `parts` reads only what the calling C function's
/// contract makes valid.
unsafe fn run(
    comm: EP_Comm,
    form: Form,
    parts: impl FnOnce(&Neighbours) -> EpResult<(Vec<Block>, Vec<Block>)>,
) -> EpResult<()> {
    let ep = endpoint_ref(comm)?;
    let n = neighbor::neighbours(&ep)?;
    if let Form::Persistent(r) = form {
        let req = out(r, "request")?;
        // The request's own copies of the derived datatypes, for its life: the program may
        // free its own after init (MPI 4.1 section 5.1.9).
        let (sends, recvs) = parts(&n)?;
        let mut held = HeldTypes::default();
        let (sends, recvs) = (held.hold(sends)?, held.hold(recvs)?);
        let round = move |ep: &Arc<Endpoint>| {
            let _types = &held;
            Ok(Op::Neighbor(neighbor::start(ep, &n, sends.clone(), recvs.clone())?))
        };
        *req = new_request(Request::persistent(ep.to_arc(), Box::new(Rounds::new(round)), Some(Drain::Local)))?;
        return Ok(());
    }
    let request = match form {
        Form::Nonblocking(r) => Some(r),
        _ => None,
    };
    let checked = request.map(|r| out(r, "request")).transpose().and_then(|req| Ok((req, parts(&n)?)));
    let (req, (sends, recvs)) = match checked {
        Ok(c) => c,
        Err(e) => {
            neighbor::stand_in(&ep, &n)?;
            return Err(e);
        }
    };
    let Some(req) = req else { return neighbor::start(&ep, &n, sends, recvs)?.wait() };
    // The receive blocks are written after the call returns, when the program may have freed
    // their datatypes (MPI 4.1 section 5.1.9): on copies, one per datatype.
    let (mut recvs, mut held) = (recvs, HeldTypes::default());
    held.hold_or_own(&mut recvs);
    let x = neighbor::start(&ep, &n, sends, recvs)?.holding(held);
    *req = new_request(Request::new(ep.to_arc(), Op::Neighbor(x)))?;
    Ok(())
}

/// Both forms of the neighbourhood allgather: the whole send buffer to every destination.
///
/// # Safety
/// As for `EP_Ineighbor_allgather`.
#[allow(clippy::too_many_arguments, reason = "MPI's arguments plus the form")]
unsafe fn allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    form: Form,
) -> EpResult<()> {
    run(comm, form, |n| {
        let sends = blocks(sendbuf, &n.destinations, "sendbuf", |_| Ok((0, sendcount, sendtype)))?;
        Ok((sends, uniform(recvbuf, &n.sources, recvcount, recvtype, "recvbuf")?))
    })
}

/// Both forms of the neighbourhood allgatherv.
///
/// # Safety
/// As for `EP_Ineighbor_allgatherv`.
#[allow(clippy::too_many_arguments, reason = "MPI's arguments plus the form")]
unsafe fn allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    form: Form,
) -> EpResult<()> {
    run(comm, form, |n| {
        let sends = blocks(sendbuf, &n.destinations, "sendbuf", |_| Ok((0, sendcount, sendtype)))?;
        Ok((sends, varied(recvbuf, &n.sources, recvcounts, displs, recvtype, "recvbuf")?))
    })
}

/// Both forms of the neighbourhood alltoall.
///
/// # Safety
/// As for `EP_Ineighbor_alltoall`.
#[allow(clippy::too_many_arguments, reason = "MPI's arguments plus the form")]
unsafe fn alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    form: Form,
) -> EpResult<()> {
    run(comm, form, |n| {
        let sends = uniform(sendbuf, &n.destinations, sendcount, sendtype, "sendbuf")?;
        Ok((sends, uniform(recvbuf, &n.sources, recvcount, recvtype, "recvbuf")?))
    })
}

/// Both forms of the neighbourhood alltoallv.
///
/// # Safety
/// As for `EP_Ineighbor_alltoallv`.
#[allow(clippy::too_many_arguments, reason = "MPI's arguments plus the form")]
unsafe fn alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    form: Form,
) -> EpResult<()> {
    run(comm, form, |n| {
        let sends = varied(sendbuf, &n.destinations, sendcounts, sdispls, sendtype, "sendbuf")?;
        Ok((sends, varied(recvbuf, &n.sources, recvcounts, rdispls, recvtype, "recvbuf")?))
    })
}

/// Both forms of the neighbourhood alltoallw.
///
/// # Safety
/// As for `EP_Ineighbor_alltoallw`.
#[allow(clippy::too_many_arguments, reason = "MPI's arguments plus the form")]
unsafe fn alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const MPI_Aint,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const MPI_Aint,
    recvtypes: *const MPI_Datatype,
    comm: EP_Comm,
    form: Form,
) -> EpResult<()> {
    run(comm, form, |n| {
        let sends = typed(sendbuf, &n.destinations, sendcounts, sdispls, sendtypes, "sendbuf")?;
        Ok((sends, typed(recvbuf, &n.sources, recvcounts, rdispls, recvtypes, "recvbuf")?))
    })
}

/// Gathers one block from each neighbour (MPI 4.1 section 8.6.1): sends `sendcount`
/// elements of `sendtype` from `sendbuf` to every out-neighbour; in-neighbour i's block lands
/// at `recvbuf + i * recvcount * extent(recvtype)` (`recvcount` elements of `recvtype`).
/// Errors and thread safety: see the module documentation.
///
/// # Safety
/// `sendbuf` is readable for `sendcount` elements of `sendtype`; `recvbuf` is writable for
/// `indegree * recvcount` elements of `recvtype`; the datatypes are valid host datatypes.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Neighbor_allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, Form::Blocking)
}

/// Nonblocking `EP_Neighbor_allgather` (MPI 4.1 section 8.7.1): `*request` completes once
/// every block has arrived and `sendbuf` may be reused. Plus `EP_ERR_ARG` for a NULL
/// `request`.
///
/// # Safety
/// As for `EP_Neighbor_allgather`, the buffers valid until the request completes; `request`
/// points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Ineighbor_allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, Form::Nonblocking(request))
}

/// Gathers one block of its own size from each neighbour (MPI 4.1 section 8.6.1): sends
/// `sendcount` elements of `sendtype` to every out-neighbour; in-neighbour i's block of
/// `recvcounts[i]` elements lands at `recvbuf + displs[i] * extent(recvtype)`. The arrays
/// have `indegree` entries. Errors and thread safety: see the module documentation.
///
/// # Safety
/// `sendbuf` is readable for `sendcount` elements of `sendtype`; `recvcounts` and `displs`
/// are readable for `indegree` ints; `recvbuf` is writable for every block they describe.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, Form::Blocking)
}

/// Nonblocking `EP_Neighbor_allgatherv` (MPI 4.1 section 8.7.1). Plus `EP_ERR_ARG` for a
/// NULL `request`.
///
/// # Safety
/// As for `EP_Neighbor_allgatherv`, the buffers and arrays valid until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Ineighbor_allgatherv(
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
    allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, Form::Nonblocking(request))
}

/// Exchanges one block with each neighbour (MPI 4.1 section 8.6.2): block j of `sendbuf`
/// (`sendcount` elements of `sendtype` at `j * sendcount * extent(sendtype)`) goes to
/// out-neighbour j; in-neighbour i's block lands at `recvbuf + i * recvcount *
/// extent(recvtype)`. Errors and thread safety: see the module documentation.
///
/// # Safety
/// `sendbuf` is readable for `outdegree * sendcount` elements of `sendtype`; `recvbuf` is
/// writable for `indegree * recvcount` elements of `recvtype`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Neighbor_alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, Form::Blocking)
}

/// Nonblocking `EP_Neighbor_alltoall` (MPI 4.1 section 8.7.2). Plus `EP_ERR_ARG` for a NULL
/// `request`.
///
/// # Safety
/// As for `EP_Neighbor_alltoall`, the buffers valid until the request completes; `request`
/// points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Ineighbor_alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, Form::Nonblocking(request))
}

/// Exchanges one block of its own size with each neighbour (MPI 4.1 section 8.6.2):
/// `sendcounts[j]` elements of `sendtype` at `sendbuf + sdispls[j] * extent(sendtype)` go to
/// out-neighbour j; in-neighbour i's `recvcounts[i]` elements land at `recvbuf + rdispls[i] *
/// extent(recvtype)`. Send arrays have `outdegree` entries, receive arrays `indegree`.
/// Errors and thread safety: see the module documentation.
///
/// # Safety
/// The arrays are readable for their degrees; `sendbuf` is readable and `recvbuf` writable
/// for every block they describe.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_alltoallv(
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
    alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, Form::Blocking)
}

/// Nonblocking `EP_Neighbor_alltoallv` (MPI 4.1 section 8.7.2). Plus `EP_ERR_ARG` for a NULL
/// `request`.
///
/// # Safety
/// As for `EP_Neighbor_alltoallv`, the buffers and arrays valid until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Ineighbor_alltoallv(
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
    let form = Form::Nonblocking(request);
    alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, form)
}

/// Exchanges one block of its own type with each neighbour (MPI 4.1 section 8.6.2):
/// `sendcounts[j]` elements of `sendtypes[j]` at `sendbuf + sdispls[j]` bytes go to
/// out-neighbour j; in-neighbour i's `recvcounts[i]` elements of `recvtypes[i]` land at
/// `recvbuf + rdispls[i]` bytes. Send arrays have `outdegree` entries, receive arrays
/// `indegree`. Errors and thread safety: see the module documentation.
///
/// # Safety
/// The arrays are readable for their degrees; the datatypes valid host datatypes; `sendbuf`
/// is readable and `recvbuf` writable for every block they describe.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const MPI_Aint,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const MPI_Aint,
    recvtypes: *const MPI_Datatype,
    comm: EP_Comm,
) -> c_int {
    alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, Form::Blocking)
}

/// Nonblocking `EP_Neighbor_alltoallw` (MPI 4.1 section 8.7.2). Plus `EP_ERR_ARG` for a NULL
/// `request`.
///
/// # Safety
/// As for `EP_Neighbor_alltoallw`, the buffers and arrays valid until the request
/// completes; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Ineighbor_alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const MPI_Aint,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const MPI_Aint,
    recvtypes: *const MPI_Datatype,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let form = Form::Nonblocking(request);
    alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, form)
}

/// Persistent `EP_Neighbor_allgather` (MPI 4.1 section 8.8): each `EP_Start` begins an
/// `EP_Ineighbor_allgather` on the same arguments. Errors: see the module documentation,
/// found at init; `EP_ERR_ARG` for a NULL `request`.
///
/// # Safety
/// As for `EP_Neighbor_allgather`, the buffers valid while the request exists and untouched
/// during a round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_allgather_init(
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
    allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, Form::Persistent(request))
}

/// Persistent `EP_Neighbor_allgatherv` (MPI 4.1 section 8.8): each `EP_Start` begins an
/// `EP_Ineighbor_allgatherv` on the same arguments (`recvcounts` and `displs` read at init).
/// Errors: see the module documentation, found at init; `EP_ERR_ARG` for a NULL `request`.
///
/// # Safety
/// As for `EP_Neighbor_allgatherv`, the buffers valid while the request exists and
/// untouched during a round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_allgatherv_init(
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
    let form = Form::Persistent(request);
    allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, form)
}

/// Persistent `EP_Neighbor_alltoall` (MPI 4.1 section 8.8): each `EP_Start` begins an
/// `EP_Ineighbor_alltoall` on the same arguments. Errors: see the module documentation, found
/// at init; `EP_ERR_ARG` for a NULL `request`.
///
/// # Safety
/// As for `EP_Neighbor_alltoall`, the buffers valid while the request exists and untouched
/// during a round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_alltoall_init(
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
    alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, Form::Persistent(request))
}

/// Persistent `EP_Neighbor_alltoallv` (MPI 4.1 section 8.8): each `EP_Start` begins an
/// `EP_Ineighbor_alltoallv` on the same arguments (the arrays read at init). Errors: see the
/// module documentation, found at init; `EP_ERR_ARG` for a NULL `request`.
///
/// # Safety
/// As for `EP_Neighbor_alltoallv`, the buffers valid while the request exists and untouched
/// during a round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_alltoallv_init(
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
    let form = Form::Persistent(request);
    alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, form)
}

/// Persistent `EP_Neighbor_alltoallw` (MPI 4.1 section 8.8): each `EP_Start` begins an
/// `EP_Ineighbor_alltoallw` on the same arguments (the arrays read at init). Errors: see the
/// module documentation, found at init; `EP_ERR_ARG` for a NULL `request`.
///
/// # Safety
/// As for `EP_Neighbor_alltoallw`, the buffers valid while the request exists and untouched
/// during a round; `request` points at a writable `EP_Request`.
#[no_mangle]
#[c_export]
#[allow(clippy::too_many_arguments, reason = "MPI's signature")]
pub unsafe extern "C" fn EP_Neighbor_alltoallw_init(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const MPI_Aint,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const MPI_Aint,
    recvtypes: *const MPI_Datatype,
    comm: EP_Comm,
    info: MPI_Info,
    request: *mut EP_Request,
) -> c_int {
    let _ = info;
    let form = Form::Persistent(request);
    alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, form)
}
