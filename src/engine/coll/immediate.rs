//! Each nonblocking collective as its endpoint's [`Part`] (what it sends, what it expects)
//! and [`Finish`] (how it writes its results), for the one mechanism of
//! [`super::nonblocking`]. Arguments are checked by the caller; receive blocks come one
//! [`UserBuf`] per rank (their datatypes may differ per rank, as in `MPI_Ialltoallw`).
//!
//! The `type_held` of the builders that write receive buffers at completion says whether the
//! caller keeps their datatypes valid until then (a blocking call, a persistent request's own
//! copies): when false, those buffers go on copies of their derived datatypes that the
//! request keeps ([`Part::keep`]), since the program may free its own (MPI 4.1 section
//! 5.1.9). Send data is packed at the call and needs none. The reductions keep none: their
//! datatype is predefined (the host's predefined ops take no other) or goes with a
//! user-defined op, which receives the program's own handle (MPI 4.1 section 6.9.5), so the
//! program keeps it valid until the reduction completes.

use super::board::{AlignedBuf, Kind};
use super::nonblocking::{start, CollRequest, Delivered, Finish, Part};
use super::typed::{Elems, HostOp, Reducer};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::ep_err;
use crate::error::{EpResult, ERR_TRUNCATE};
use std::os::raw::{c_int, c_void};

/// Unpacks a received block into `dst`, refusing a block of another length (type signatures
/// of sender and receiver that differ, which MPI makes erroneous).
pub(super) fn unpack(dst: &UserBuf, data: &[u8]) -> EpResult<()> {
    if data.len() != dst.bytes() {
        let (got, want) = (data.len(), dst.bytes());
        return Err(ep_err!(ERR_TRUNCATE, "received {got} bytes where {want} were expected: type signatures differ"));
    }
    dst.unpack_from(data)
}

/// Number of ranks the endpoint's parts name: its communicator's, or the other group's on an
/// intercommunicator.
pub(super) fn peers(ep: &Endpoint) -> usize {
    ep.shared.peer_map(ep.local).size()
}

pub(super) fn finish(f: impl FnOnce(&Delivered) -> EpResult<()> + Send + 'static) -> Option<Finish> {
    Some(Box::new(f))
}

/// `EP_Ibarrier` (MPI 4.1 section 6.12.1).
pub fn ibarrier(ep: &Endpoint) -> EpResult<CollRequest> {
    start(ep, Kind::Barrier, Part::new(peers(ep)), None)
}

/// `EP_Ibcast` of `buf` from rank `root` (MPI 4.1 section 6.12.2).
pub fn ibcast(ep: &Endpoint, buf: UserBuf, root: i32, type_held: bool) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    part.expect_every(root, buf.bytes());
    if ep.rank == root {
        part.send_every(&buf)?;
        return start(ep, Kind::Bcast, part, None);
    }
    let buf = part.keep(buf, type_held);
    start(ep, Kind::Bcast, part, finish(move |d| unpack(&buf, d.every(root))))
}

/// `EP_Igather(v)` (MPI 4.1 section 6.12.3): `send` is `None` for `MPI_IN_PLACE` at the
/// root; `recv` holds the root's block of every rank (`None` elsewhere).
pub fn igatherv(
    ep: &Endpoint,
    send: Option<UserBuf>,
    recv: Option<Vec<UserBuf>>,
    root: i32,
    type_held: bool,
) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    if let Some(b) = &send {
        part.send_to(root, b)?;
    }
    let Some(recv) = recv else { return start(ep, Kind::Gatherv, part, None) };
    let recv = part.keep(recv, type_held);
    let skip = send.is_none().then_some(ep.rank);
    for (r, b) in recv.iter().enumerate() {
        if Some(r as i32) != skip {
            part.expect(r as i32, b.bytes());
        }
    }
    let unpack_all = move |d: &Delivered| {
        let wanted = recv.iter().enumerate().filter(|(r, _)| Some(*r as i32) != skip);
        wanted.clone().try_for_each(|(r, b)| unpack(b, d.from(r as i32)))
    };
    start(ep, Kind::Gatherv, part, finish(unpack_all))
}

/// `EP_Iscatter(v)` (MPI 4.1 section 6.12.4): `send` holds the root's block for every rank
/// (`None` elsewhere); `recv` is `None` for `MPI_IN_PLACE` at the root.
pub fn iscatterv(
    ep: &Endpoint,
    send: Option<Vec<UserBuf>>,
    recv: Option<UserBuf>,
    root: i32,
    type_held: bool,
) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    if let Some(send) = &send {
        for (d, b) in send.iter().enumerate() {
            if !(d as i32 == ep.rank && recv.is_none()) {
                part.send_to(d as i32, b)?;
            }
        }
    }
    let Some(recv) = recv else { return start(ep, Kind::Scatterv, part, None) };
    let recv = part.keep(recv, type_held);
    part.expect(root, recv.bytes());
    start(ep, Kind::Scatterv, part, finish(move |d| unpack(&recv, d.from(root))))
}

/// `EP_Iallgather(v)` (MPI 4.1 section 6.12.5): `send` is `None` for `MPI_IN_PLACE` (the
/// rank's block is then taken from `recv`, which holds every rank's block).
pub fn iallgatherv(ep: &Endpoint, send: Option<UserBuf>, recv: Vec<UserBuf>, type_held: bool) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    part.send_every(send.as_ref().unwrap_or_else(|| &recv[ep.rank as usize]))?;
    let recv = part.keep(recv, type_held);
    for (r, b) in recv.iter().enumerate() {
        part.expect_every(r as i32, b.bytes());
    }
    let skip = send.is_none().then_some(ep.rank);
    let unpack_all = move |d: &Delivered| {
        let wanted = recv.iter().enumerate().filter(|(r, _)| Some(*r as i32) != skip);
        wanted.clone().try_for_each(|(r, b)| unpack(b, d.every(r as i32)))
    };
    start(ep, Kind::Allgatherv, part, finish(unpack_all))
}

/// `EP_Ialltoall(v,w)` (MPI 4.1 section 6.12.6): `send[d]` goes to rank d, rank s's block
/// lands in `recv[s]`. For `MPI_IN_PLACE` the caller passes the receive blocks as `send`:
/// they are packed here, before anything is written.
pub fn ialltoallw(ep: &Endpoint, send: &[UserBuf], recv: Vec<UserBuf>, type_held: bool) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    for (d, b) in send.iter().enumerate() {
        part.send_to(d as i32, b)?;
    }
    let recv = part.keep(recv, type_held);
    for (s, b) in recv.iter().enumerate() {
        part.expect(s as i32, b.bytes());
    }
    let unpack_all = move |d: &Delivered| recv.iter().enumerate().try_for_each(|(s, b)| unpack(b, d.from(s as i32)));
    start(ep, Kind::Alltoallv, part, finish(unpack_all))
}

/// Which reduction: who receives what.
pub enum Reduction {
    /// `EP_Iallreduce`: everyone gets the whole reduction.
    All,
    /// `EP_Ireduce`: the root gets it.
    Root(i32),
    /// `EP_Ireduce_scatter(_block)`: rank i gets block i, of `counts[i]` elements.
    Scatter(Vec<c_int>),
    /// `EP_Iscan`: rank i gets ranks 0..=i.
    Scan,
    /// `EP_Iexscan`: rank i > 0 gets ranks 0..i.
    Exscan,
}

impl Reduction {
    pub(super) fn kind(&self) -> Kind {
        match self {
            Reduction::All => Kind::Allreduce,
            Reduction::Root(_) => Kind::Reduce,
            Reduction::Scatter(_) => Kind::ReduceScatter,
            Reduction::Scan => Kind::Scan,
            Reduction::Exscan => Kind::Exscan,
        }
    }
}

/// The nonblocking reductions (MPI 4.1 sections 6.12.7-6.12.11): `input` (`sendbuf`, or
/// `recvbuf` with `MPI_IN_PLACE`, copied now), the result into `recv` (`None` where the rank
/// gets nothing). When folding each process's inputs in local order keeps MPI's order
/// (`commutative` op, or a blocked rank map), the whole reductions go to a host reduction of
/// the processes' partial results; otherwise, and for the prefix reductions, every input the
/// rank needs reaches it and is folded in rank order, so non-commutative and user-defined ops
/// combine as MPI says on any rank map.
pub fn ireduce(
    ep: &Endpoint,
    input: Elems,
    recv: Option<UserBuf>,
    op: HostOp,
    commutative: bool,
    how: Reduction,
) -> EpResult<CollRequest> {
    let s = &ep.shared;
    let size = s.map.size();
    let kind = how.kind();
    let rank = ep.rank;
    let whole = matches!(how, Reduction::All | Reduction::Root(_) | Reduction::Scatter(_));
    debug_assert!(!s.is_inter(), "intercommunicator reductions go through immediate_inter");
    if whole && (commutative || s.map.is_blocked()) {
        let root_proc = match how {
            Reduction::Root(root) => Some(s.location(root).expect("root checked by the caller").proc),
            _ => None,
        };
        let part = Part::host_reduce(size, &input, op, root_proc);
        let Some(recv) = recv else { return start(ep, kind, part, None) };
        let store = move |d: &Delivered| {
            let result = input.at(input.base_for(d.reduced() as *mut u8));
            store_result(result, &how, rank, &recv)
        };
        return start(ep, kind, part, finish(store));
    }
    let mut part = Part::new(size);
    let packed = packed(&input);
    let bytes = packed.bytes();
    let upto = match &how {
        Reduction::Root(root) => {
            part.send_to(*root, &packed)?;
            if ep.rank == *root {
                (0..size as i32).for_each(|r| part.expect(r, bytes));
            }
            size
        }
        _ => {
            part.send_every(&packed)?;
            (0..size as i32).for_each(|r| part.expect_every(r, bytes));
            match how {
                Reduction::Scan => ep.rank as usize + 1,
                Reduction::Exscan => ep.rank as usize,
                _ => size,
            }
        }
    };
    let (Some(recv), true) = (recv, upto > 0) else { return start(ep, kind, part, None) };
    start(
        ep,
        kind,
        part,
        finish(move |d| {
            let from_root = matches!(how, Reduction::Root(_));
            let mut acc = AlignedBuf::default();
            let inputs = (0..upto as i32).map(|r| if from_root { d.from(r) } else { d.every(r) });
            let result = fold_packed(inputs, &input, op, &mut acc)?;
            store_result(result, &how, rank, &recv)
        }),
    )
}

/// The elements of a reduction's input, as a buffer to pack.
pub(super) fn packed(input: &Elems) -> UserBuf {
    // SAFETY: `input` was made from a user buffer (`Elems::of`), whose invariant it keeps.
    unsafe { UserBuf::from_parts(input.base as *mut c_void, input.count, input.dtype, input.info) }
}

/// Stores what rank `rank` gets of the reduction `result` into `recv`: all of it, or its
/// block for a reduce-scatter.
pub(super) fn store_result(result: Elems, how: &Reduction, rank: i32, recv: &UserBuf) -> EpResult<()> {
    match how {
        Reduction::Scatter(counts) => {
            let start: isize = counts[..rank as usize].iter().map(|&c| c as isize).sum();
            let block = Elems {
                base: (result.base as *const u8).wrapping_offset(start * result.info.extent) as *const c_void,
                count: counts[rank as usize],
                ..result
            };
            block.store(recv)
        }
        _ => result.store(recv),
    }
}

/// Folds packed inputs (in rank order, at least one) of `template`'s datatype and count with
/// `op` into `acc`: `in[0] op (in[1] op (... op in[n-1]))`, as MPI combines in rank order.
/// Returns the result (typed, inside `acc`).
pub(super) fn fold_packed<'a>(
    inputs: impl DoubleEndedIterator<Item = &'a [u8]>,
    template: &Elems,
    op: HostOp,
    acc: &mut AlignedBuf,
) -> EpResult<Elems> {
    let span = template.span();
    let typed_in = |buf: &mut AlignedBuf, data: &[u8]| -> EpResult<Elems> {
        buf.resize(span);
        let e = template.at(template.base_for(buf.ptr()));
        // SAFETY: `buf` was just resized to the template's span, which holds `count` elements
        // of its datatype from `base_for(buf.ptr())`.
        let ub = unsafe { UserBuf::from_parts(e.base as *mut c_void, e.count, e.dtype, e.info) };
        unpack(&ub, data)?;
        Ok(e)
    };
    let mut inputs = inputs.rev();
    let result = typed_in(acc, inputs.next().expect("at least one input"))?;
    let reducer = Reducer::new(op, template);
    let mut tmp = AlignedBuf::default();
    for data in inputs {
        let e = typed_in(&mut tmp, data)?;
        reducer.apply(&e, result.base as *mut c_void)?;
    }
    Ok(result)
}
