//! Nonblocking collectives on endpoint communicators (MPI 4.1 section 6.12): one mechanism
//! for all of them, on intracommunicators and intercommunicators.
//!
//! Each endpoint's call describes its [`Part`] at once: the packed blocks it sends (to one
//! rank, or one block for every endpoint), and how many bytes it expects from each source
//! rank (addressed to it, or to every endpoint). Send data is packed when the call is made,
//! which MPI allows (the send buffer may not change until completion anyway), so
//! `MPI_IN_PLACE` reads the receive buffer before anything is written to it.
//!
//! The k-th nonblocking collective of every endpoint of a process on one communicator is one
//! shared [`Instance`], found through the communicator's meeting point for nonblocking
//! collectives (keyed by k, see [`crate::engine::meeting::MeetingPoint::join`]). The last
//! endpoint of the process to join pools the parts: one chunk of bytes per destination
//! process (sources in local order, each source's block for every endpoint first, then its
//! blocks for that process's endpoints in their local order), and starts one host
//! `MPI_Ialltoallv` of bytes (`MPI_Ibarrier` for a barrier; a copy inside one process). The
//! receiving process knows the layout of every chunk from its own endpoints' expectations,
//! since MPI collectives give every receiver its receive counts. Testing any endpoint's
//! request tests the host request (host progress); once complete, each endpoint's own
//! `finish` step unpacks its results from the received chunks (rank order everywhere;
//! reductions fold every input in rank order, so non-commutative and user-defined ops and
//! any rank map give MPI's result).
//!
//! On an intercommunicator the ranks a part names (its destinations and sources) are those of
//! the other group, as in point-to-point ([`CommShared::peer_map`]); the host communicator
//! spans both groups' processes, so the same pooling and one host exchange serve it: each
//! source's blocks go to the processes holding endpoints of the other group, and a process
//! that holds endpoints of both groups lays out what each of its groups receives apart.
//!
//! Reductions whose order the hierarchy keeps (a commutative op, or ranks in one contiguous
//! block per process in process order) take a shorter way: the last endpoint folds the
//! process's inputs (copied at each call) in local order, one host `MPI_Iallreduce` or
//! `MPI_Ireduce` combines the processes' partial results, and each endpoint copies out the
//! result (its block of it for a reduce-scatter). Other reductions, and the prefix
//! reductions, gather every input they need through the byte exchange and fold them in rank
//! order.
//!
//! Host operations start in the order every endpoint called its collectives, which is the
//! order MPI requires: the last endpoint to join collective k has joined every earlier one,
//! each of which started when its own last endpoint joined; and blocking collectives cannot
//! overtake, since their host call needs every endpoint to have arrived, so after every
//! earlier start.
//!
//! The instance owns the host request with the memory it reads and writes (a [`HostOp`]):
//! when every endpoint's request is gone before the host is done (requests freed while
//! active), the host operation goes to the orphanage with its memory.
//!
//! Persistent collectives (MPI 4.1 section 6.13) use this scheme as it is: a persistent
//! request keeps a function of the arguments checked at init that calls the `i*` builder of
//! [`super::immediate`] ([`crate::engine::persistent::Rounds`]), and each `EP_Start` calls
//! [`start`] with a fresh part, joining the next instance of the communicator's sequence.
//! Nothing of an instance outlives its completion, so restarting costs one new instance.

use super::board::{AlignedBuf, Kind};
use super::host_bytes::{c_bytes, displs_of};
use super::typed::{fold, Elems, HostOp as ReduceOp};
use crate::engine::comm::{CommShared, Endpoint};
use crate::engine::datatype::{HeldTypes, Holdable, UserBuf};
use crate::engine::host_op::HostOp;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_OTHER, ERR_TRUNCATE};
use crate::host::{check, sys, HostRequest, HOST};
use parking_lot::Mutex;
use std::ops::Range;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What one endpoint sends to and expects from a nonblocking collective (packed bytes).
pub struct Part {
    data: Vec<u8>,
    /// The block for every endpoint of the communicator (at most one per source).
    every: Option<Range<usize>>,
    /// The block for each rank, by rank (empty: none).
    to: Vec<Option<Range<usize>>>,
    /// Bytes of each source rank's block for every endpoint, by rank (empty: none).
    from_every: Vec<Option<usize>>,
    /// Bytes of each source rank's block for this endpoint, by rank (empty: none).
    from: Vec<Option<usize>>,
    /// A reduction that the host combines instead (then nothing else is sent).
    reduce: Option<HostReduce>,
    size: usize,
    /// Copies of the derived datatypes of the buffers the endpoint's `finish` step writes (see
    /// [`Part::keep`]); they move to the instance when the endpoint joins.
    held: HeldTypes,
}

/// One endpoint's input to a reduction combined by a host reduction: a typed copy of it.
struct HostReduce {
    copy: AlignedBuf,
    template: Elems,
    op: ReduceOp,
    /// The root's process (`EP_Ireduce`), or `None` when every process gets the result.
    root_proc: Option<u32>,
}

impl Part {
    /// A part that sends and expects nothing yet, on a communicator of `size` ranks.
    pub fn new(size: usize) -> Part {
        let (data, to, from_every, from) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        Part { data, every: None, to, from_every, from, reduce: None, size, held: HeldTypes::default() }
    }

    /// Receive buffers `x` as the collective writes them when it completes, after the call
    /// returned: on copies of their derived datatypes, kept with the collective until then, so
    /// the program may free its own meanwhile (MPI 4.1 section 5.1.9); as they are when
    /// `type_held` (the caller keeps the datatypes valid until then: a blocking call, a
    /// persistent request's own copies) or the datatypes are predefined. A datatype the host
    /// cannot copy stays the program's (see [`HeldTypes::hold_or_own`]): the endpoint still
    /// joins, since its process's other endpoints wait for it.
    pub fn keep<T: Holdable>(&mut self, mut x: T, type_held: bool) -> T {
        if !type_held {
            self.held.hold_or_own(&mut x);
        }
        x
    }

    /// A part that brings `input` (copied now) to a reduction with `op` that the host
    /// combines: every process gets the result, or only `root_proc`'s. The caller makes sure
    /// that folding the process's inputs in local order keeps MPI's order (a commutative op,
    /// or a blocked rank map), and that every endpoint of the process passes the same kind.
    pub fn host_reduce(size: usize, input: &Elems, op: ReduceOp, root_proc: Option<u32>) -> Part {
        let mut copy = AlignedBuf::default();
        let template = input.copy_into(&mut copy);
        Part { reduce: Some(HostReduce { copy, template, op, root_proc }), ..Part::new(size) }
    }

    fn pack(&mut self, buf: &UserBuf) -> EpResult<Range<usize>> {
        let at = self.data.len();
        self.data.resize(at + buf.bytes(), 0);
        buf.pack_to(&mut self.data[at..])?;
        Ok(at..self.data.len())
    }

    /// Sends `buf` (packed now) to every endpoint.
    pub fn send_every(&mut self, buf: &UserBuf) -> EpResult<()> {
        debug_assert!(self.every.is_none());
        self.every = Some(self.pack(buf)?);
        Ok(())
    }

    /// Sends `buf` (packed now) to rank `dest`.
    pub fn send_to(&mut self, dest: i32, buf: &UserBuf) -> EpResult<()> {
        if self.to.is_empty() {
            self.to = vec![None; self.size];
        }
        self.to[dest as usize] = Some(self.pack(buf)?);
        Ok(())
    }

    /// Expects `bytes` from rank `src`'s block for every endpoint.
    pub fn expect_every(&mut self, src: i32, bytes: usize) {
        if self.from_every.is_empty() {
            self.from_every = vec![None; self.size];
        }
        self.from_every[src as usize] = Some(bytes);
    }

    /// Expects `bytes` from rank `src` for this endpoint.
    pub fn expect(&mut self, src: i32, bytes: usize) {
        if self.from.is_empty() {
            self.from = vec![None; self.size];
        }
        self.from[src as usize] = Some(bytes);
    }
}

/// The received blocks of one endpoint, once its collective is complete.
pub struct Delivered<'a> {
    data: &'a [u8],
    every: &'a [Option<Range<usize>>],
    from: &'a [Option<Range<usize>>],
    result: Option<usize>,
}

impl Delivered<'_> {
    /// Rank `src`'s block for every endpoint (as long as this endpoint expected it).
    pub fn every(&self, src: i32) -> &[u8] {
        self.every.get(src as usize).cloned().flatten().map_or(&[], |r| &self.data[r])
    }

    /// Rank `src`'s block for this endpoint (as long as this endpoint expected it).
    pub fn from(&self, src: i32) -> &[u8] {
        self.from.get(src as usize).cloned().flatten().map_or(&[], |r| &self.data[r])
    }

    /// The first byte of the result of a host-combined reduction ([`Part::host_reduce`]),
    /// 16-byte aligned; its elements lie as in the input, from their first byte.
    pub fn reduced(&self) -> *const u8 {
        self.result.map_or(std::ptr::null(), |at| self.data[at..].as_ptr())
    }
}

/// What an endpoint does with its received blocks when its collective completes: write
/// its receive buffers.
pub type Finish = Box<dyn FnOnce(&Delivered) -> EpResult<()> + Send>;

/// Where the blocks land in the received bytes.
#[derive(Default)]
struct Layout {
    /// By receiving group (one in an intracommunicator), then by source rank.
    every: Vec<Vec<Option<Range<usize>>>>,
    /// By local index, then by source rank.
    from: Vec<Vec<Option<Range<usize>>>>,
    /// Bytes received in all.
    len: usize,
    /// Where the result of a host-combined reduction starts.
    result: Option<usize>,
}

/// The received bytes and where each block is, shared by the process's endpoints.
struct Delivery {
    data: Vec<u8>,
    layout: Layout,
}

/// One nonblocking collective of this process's endpoints.
pub struct Instance {
    kind: Kind,
    state: Mutex<State>,
}

struct State {
    /// By local index, until the last endpoint joins.
    parts: Vec<Option<Part>>,
    arrived: usize,
    /// Every endpoint has joined and the host part is under way (or not needed).
    started: bool,
    host: Option<HostOp>,
    layout: Layout,
    delivery: Option<Arc<Delivery>>,
    error: Option<EpError>,
    /// The endpoints' datatype copies ([`Part::keep`]), freed with the instance: after every
    /// endpoint's `finish` step has run or its request is gone.
    held: Vec<HeldTypes>,
}

/// One endpoint's part of a nonblocking collective, behind its request.
pub struct CollRequest {
    instance: Arc<Instance>,
    local: usize,
    /// The endpoint's group in an intercommunicator (0 in an intracommunicator).
    group: usize,
    finish: Option<Finish>,
    done: bool,
}

/// Joins the next nonblocking collective of `ep`'s communicator with this endpoint's `part`;
/// `finish` runs when it completes. The caller has checked every argument: an endpoint that
/// joins has entered the collective (MPI 4.1 section 6.12: once per endpoint, in the same
/// order on every endpoint).
pub fn start(ep: &Endpoint, kind: Kind, mut part: Part, finish: Option<Finish>) -> EpResult<CollRequest> {
    let s = &ep.shared;
    let held = std::mem::take(&mut part.held);
    let n = s.local_count();
    let seq = ep.state().nb_seq.fetch_add(1, Ordering::Relaxed) + 1;
    let instance = s.nb_collectives.join(seq, n, ep.local as usize, || Instance {
        kind,
        state: Mutex::new(State {
            parts: (0..n).map(|_| None).collect(),
            arrived: 0,
            started: false,
            host: None,
            layout: Layout::default(),
            delivery: None,
            error: None,
            held: Vec::new(),
        }),
    })?;
    let mut st = instance.state.lock();
    st.arrived += 1;
    if instance.kind != kind {
        st.error = Some(ep_err!(
            ERR_OTHER,
            "endpoints of one process started different nonblocking collectives at the same point ({:?} and {kind:?})",
            instance.kind
        ));
    }
    st.parts[ep.local as usize] = Some(part);
    if !held.is_empty() {
        st.held.push(held);
    }
    if st.arrived == n {
        st.started = true;
        if st.error.is_none() {
            if let Err(e) = launch(s, kind, &mut st) {
                st.error = Some(e);
            }
        }
        st.parts = Vec::new();
    }
    drop(st);
    let group = s.group_of(ep.local) as usize;
    Ok(CollRequest { instance, local: ep.local as usize, group, finish, done: false })
}

/// Offset of the next multiple of `align` bytes from `base + at`.
fn aligned(base: *const u8, at: usize, align: usize) -> usize {
    at + (base as usize + at).wrapping_neg() % align
}

/// The process's part once every endpoint has joined: pools the parts and starts the host
/// operation (or delivers at once inside one process).
fn launch(s: &CommShared, kind: Kind, st: &mut State) -> EpResult<()> {
    if kind == Kind::Barrier {
        if s.is_multi_process() {
            let mut req = HostRequest(HOST.request_null);
            // SAFETY: `s.host` lives while `s` does; the host writes `req.0`, a live local.
            unsafe { check(sys::MPI_Ibarrier(s.host.0, &mut req.0), "MPI_Ibarrier")? };
            st.host = Some(HostOp::one(req, Vec::new()));
        } else {
            st.delivery = Some(Arc::new(Delivery { data: Vec::new(), layout: Layout::default() }));
        }
        return Ok(());
    }
    let parts: Vec<Part> = st.parts.iter_mut().map(|p| p.take().expect("every endpoint's part")).collect();
    if parts.iter().all(|p| p.reduce.is_some()) {
        return launch_reduce(s, st, parts);
    }
    let nprocs = s.nprocs as usize;
    // Send side: one chunk per destination process (the peers of an intercommunicator's
    // endpoint are the other group's ranks, and only processes with some of them get its
    // block for every endpoint).
    let mut scounts = Vec::with_capacity(nprocs);
    let mut send = Vec::new();
    for q in 0..nprocs as u32 {
        let start = send.len();
        for (e, p) in parts.iter().enumerate() {
            let peers = s.peer_map(e as u32).ranks_of(q);
            if let (Some(r), false) = (&p.every, peers.is_empty()) {
                send.extend_from_slice(&p.data[r.clone()]);
            }
            if !p.to.is_empty() {
                for &d in peers {
                    if let Some(r) = &p.to[d as usize] {
                        send.extend_from_slice(&p.data[r.clone()]);
                    }
                }
            }
        }
        scounts.push(c_bytes(send.len() - start)?);
    }
    // Receive side: where each block of each source lands, from this process's expectations
    // (the blocks for every endpoint of a group as the first endpoint of it that expects any
    // sees them). A process's sources are in local order: group 0's endpoints, then group 1's;
    // each source's blocks go to the endpoints of the other group (of its own group in an
    // intracommunicator).
    let groups: u8 = if s.is_inter() { 2 } else { 1 };
    let receiving = |sg: u8| if s.is_inter() { 1 - sg } else { 0 };
    let every_of: Vec<Option<&Vec<Option<usize>>>> = (0..groups)
        .map(|g| {
            let mut of_g = parts.iter().enumerate().filter(|(e, _)| s.group_of(*e as u32) == g);
            of_g.find(|(_, p)| !p.from_every.is_empty()).map(|(_, p)| &p.from_every)
        })
        .collect();
    let mut layout = Layout {
        every: (0..groups)
            .map(|g| every_of[g as usize].map_or(Vec::new(), |_| vec![None; s.group_map(receiving(g)).size()]))
            .collect(),
        from: parts.iter().map(|p| if p.from.is_empty() { Vec::new() } else { vec![None; p.size] }).collect(),
        len: 0,
        result: None,
    };
    let mut rcounts = Vec::with_capacity(nprocs);
    let mut at = 0;
    for p in 0..nprocs as u32 {
        let start = at;
        for sg in 0..groups {
            let rg = receiving(sg);
            for &src in s.group_map(sg).ranks_of(p) {
                if let Some(Some(len)) = every_of[rg as usize].map(|e| e[src as usize]) {
                    layout.every[rg as usize][src as usize] = Some(at..at + len);
                    at += len;
                }
                for (e, part) in parts.iter().enumerate() {
                    if s.group_of(e as u32) != rg {
                        continue;
                    }
                    if let Some(Some(len)) = part.from.get(src as usize) {
                        layout.from[e][src as usize] = Some(at..at + len);
                        at += len;
                    }
                }
            }
        }
        rcounts.push(c_bytes(at - start)?);
    }
    layout.len = at;
    if !s.is_multi_process() {
        if send.len() != at {
            return Err(ep_err!(
                ERR_TRUNCATE,
                "the endpoints send {} bytes and expect {at}: type signatures or counts differ between endpoints",
                send.len()
            ));
        }
        st.delivery = Some(Arc::new(Delivery { data: send, layout }));
        return Ok(());
    }
    let (sdispls, rdispls) = (displs_of(&scounts)?, displs_of(&rcounts)?);
    // One allocation the host operation owns: received bytes, sent bytes, then the four
    // count and displacement arrays (MPI requires them unchanged until completion). The sent
    // bytes never start where the received ones do, even when nothing is received: Open MPI's
    // libnbc takes equal buffers for MPI_IN_PLACE and would then send nothing.
    let send_at = at.max(1);
    let ints = 4 * nprocs * std::mem::size_of::<c_int>();
    let mut keep = vec![0u8; send_at + send.len() + ints + std::mem::align_of::<c_int>()];
    keep[send_at..send_at + send.len()].copy_from_slice(&send);
    let base = keep.as_mut_ptr();
    let ints_at = aligned(base, send_at + send.len(), std::mem::align_of::<c_int>());
    let arrays = [&scounts, &sdispls, &rcounts, &rdispls];
    let mut ptrs = [std::ptr::null::<c_int>(); 4];
    for (i, a) in arrays.iter().enumerate() {
        // SAFETY: `keep` holds `ints` bytes from `ints_at` (aligned for `c_int`), four arrays
        // of `nprocs` ints, written once here.
        unsafe {
            let dst = base.add(ints_at + i * nprocs * std::mem::size_of::<c_int>()) as *mut c_int;
            std::ptr::copy_nonoverlapping(a.as_ptr(), dst, nprocs);
            ptrs[i] = dst;
        }
    }
    let mut req = HostRequest(HOST.request_null);
    // SAFETY: the received bytes (`at`) start `keep`, the sent ones follow from `send_at`, and the arrays,
    // one entry per process of `s.host`, lie inside it too (copied just above); `keep` moves
    // into the `HostOp` with the request and is neither resized nor freed until the host is
    // done (an unfinished `HostOp` goes to the orphanage). Both addresses are real ones (the
    // arrays follow them), never Open MPI's `MPI_IN_PLACE` (0x1).
    unsafe {
        check(
            sys::MPI_Ialltoallv(
                base.add(send_at) as *const c_void,
                ptrs[0],
                ptrs[1],
                HOST.byte,
                base as *mut c_void,
                ptrs[2],
                ptrs[3],
                HOST.byte,
                s.host.0,
                &mut req.0,
            ),
            "MPI_Ialltoallv",
        )?
    };
    st.host = Some(HostOp::one(req, keep));
    st.layout = layout;
    Ok(())
}

/// [`launch`] for a reduction the host combines: folds the process's inputs in local order
/// and starts the host reduction on the partial result (in place for `MPI_Iallreduce`; from a
/// copy at the root of `MPI_Ireduce`, since MPICH 4.0.2 fails an in-place `MPI_Reduce` at
/// roots other than 0).
fn launch_reduce(s: &CommShared, st: &mut State, parts: Vec<Part>) -> EpResult<()> {
    let reduces: Vec<&HostReduce> = parts.iter().map(|p| p.reduce.as_ref().expect("host reductions")).collect();
    let first = reduces[0];
    let inputs: Vec<Elems> = reduces.iter().map(|r| r.template.at(r.template.base_for(r.copy.ptr()))).collect();
    let mut acc = AlignedBuf::default();
    let folded = fold(&inputs, &mut acc, first.op)?;
    let span = folded.span();
    // One allocation the host operation owns: the result (16-byte aligned, typed memory for
    // the host and user ops), then at the root of a reduce the copy it sends.
    let mut keep = vec![0u8; 2 * span + 48];
    let base = keep.as_mut_ptr();
    let at = aligned(base, 0, 16);
    let send_at = aligned(base, at + span + 1, 16);
    // SAFETY: `keep` holds `at + span` and `send_at + span` bytes (at most 2 * span + 33), and
    // `acc` holds the folded span.
    unsafe {
        std::ptr::copy_nonoverlapping(acc.ptr(), base.add(at), span);
        std::ptr::copy_nonoverlapping(acc.ptr(), base.add(send_at), span);
    }
    let layout = Layout { len: keep.len(), result: Some(at), ..Layout::default() };
    if !s.is_multi_process() {
        st.delivery = Some(Arc::new(Delivery { data: keep, layout }));
        return Ok(());
    }
    let (count, dtype, op) = (folded.count, folded.dtype, first.op.0);
    // SAFETY: `base + at` and `base + send_at` are the first bytes of typed copies of the
    // result, so `base_for` gives the addresses its datatype is relative to.
    let (result, send) = (folded.base_for(unsafe { base.add(at) }), folded.base_for(unsafe { base.add(send_at) }));
    let mut req = HostRequest(HOST.request_null);
    // SAFETY: `result` and `send` address `count` elements of `dtype` inside `keep`, which moves
    // into the `HostOp` with the request and is neither resized nor freed until the host is
    // done (an unfinished `HostOp` goes to the orphanage); the receive side is ignored off the
    // root (null there). `s.host` lives while `s` does.
    unsafe {
        match first.root_proc {
            None => check(
                sys::MPI_Iallreduce(HOST.in_place, result, count, dtype, op, s.host.0, &mut req.0),
                "MPI_Iallreduce",
            )?,
            Some(root) if root == s.my_proc => check(
                sys::MPI_Ireduce(send, result, count, dtype, op, root as c_int, s.host.0, &mut req.0),
                "MPI_Ireduce",
            )?,
            Some(root) => check(
                sys::MPI_Ireduce(result, std::ptr::null_mut(), count, dtype, op, root as c_int, s.host.0, &mut req.0),
                "MPI_Ireduce",
            )?,
        }
    };
    st.host = Some(HostOp::one(req, keep));
    st.layout = layout;
    Ok(())
}

impl CollRequest {
    /// True once this endpoint's part is complete (its results written).
    pub fn test(&mut self) -> EpResult<bool> {
        if self.done {
            return Ok(true);
        }
        let delivery = {
            let mut st = self.instance.state.lock();
            if !st.started {
                return Ok(false);
            }
            if st.error.is_none() && st.delivery.is_none() {
                let host = st.host.as_mut().expect("started with a host operation");
                match host.test() {
                    Ok(false) => return Ok(false),
                    Ok(true) => {
                        let mut data = st.host.take().expect("a host operation").into_keep();
                        let layout = std::mem::take(&mut st.layout);
                        data.truncate(layout.len);
                        st.delivery = Some(Arc::new(Delivery { data, layout }));
                    }
                    Err(e) => st.error = Some(e),
                }
            }
            if let Some(e) = &st.error {
                self.done = true;
                return Err(e.clone());
            }
            st.delivery.clone().expect("delivered")
        };
        self.done = true;
        if let Some(finish) = self.finish.take() {
            let d = &delivery.layout;
            let from = d.from.get(self.local).map_or(&[][..], |f| f);
            let every = d.every.get(self.group).map_or(&[][..], |f| f);
            finish(&Delivered { data: &delivery.data, every, from, result: d.result })?;
        }
        Ok(true)
    }
}
