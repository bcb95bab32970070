//! Neighbourhood collectives (MPI 4.1 section 8.6): each endpoint sends one block to each
//! out-neighbour and receives one block from each in-neighbour, on the topology's private
//! communicator through the engine's point-to-point, so no user message matches theirs and
//! same-process neighbours exchange without an MPI call.
//!
//! Receives are posted before the sends start. Messages are matched per source in order: on a
//! graph (distributed or not) all carry tag 0, so the k-th message from a source to an endpoint fills
//! the k-th of its in-blocks from that source, as MPI's equivalent with point-to-point calls
//! says (repeated edges included). On a Cartesian grid the tag is the block index at the
//! receiver: the block an endpoint sends to its -1 neighbour along dimension d lands in that
//! neighbour's +1 block (tag 2d + 1), and the +1 block in the -1 block (tag 2d), which a
//! periodic dimension of extent 1 or 2 (where both neighbours are the same rank) needs to put
//! each block in its place. `PROC_NULL` neighbours send nothing and leave their blocks as
//! they were. Consecutive collectives on one communicator are called in the same order on
//! every endpoint, so per-source order keeps their messages apart.

use super::{of, Kind};
use crate::engine::backoff::Backoff;
use crate::engine::comm::{CommShared, Endpoint};
use crate::engine::datatype::{HeldTypes, Holdable, UserBuf};
use crate::engine::envelope::{Envelope, Pattern, PROC_NULL};
use crate::engine::p2p::{self, Drain, RecvOp, SendState};
use crate::engine::progress;
use crate::ep_err;
use crate::host::{sys, HOST};
use crate::error::{class_of, message_of, EpError, EpResult};
use crate::error::{ERR_INTERN, ERR_OTHER, ERR_RANK, ERR_TOPOLOGY, ERR_TRUNCATE};
use std::os::raw::c_void;
use std::sync::Arc;

/// One block of a neighbourhood collective: the peer (a rank or `PROC_NULL`) and the buffer.
#[derive(Clone)]
pub struct Block {
    pub peer: i32,
    pub buf: UserBuf,
}

impl Holdable for Block {
    fn map_types(&mut self, f: &mut dyn FnMut(sys::MPI_Datatype) -> sys::MPI_Datatype) {
        self.buf.map_types(f);
    }
}

/// A neighbour list of endpoint `ep` in the communicator's topology, in MPI's block order.
pub struct Neighbours {
    pub sources: Vec<i32>,
    pub destinations: Vec<i32>,
    /// Cartesian grids tag by block (see the module documentation); graphs use tag 0.
    cartesian: bool,
}

/// The in- and out-neighbours of `ep`, or `EP_ERR_TOPOLOGY` when its communicator has no
/// topology.
pub fn neighbours(ep: &Endpoint) -> EpResult<Neighbours> {
    match of(&ep.shared).map(|t| &t.kind) {
        Some(Kind::Cart(c)) => {
            let n = c.neighbours(ep.rank)?;
            Ok(Neighbours { sources: n.clone(), destinations: n, cartesian: true })
        }
        Some(Kind::Graph(g)) => {
            let n = g.neighbours(ep.rank)?.to_vec();
            Ok(Neighbours { sources: n.clone(), destinations: n, cartesian: false })
        }
        Some(Kind::DistGraph(g)) => {
            let a = &g[ep.local as usize];
            Ok(Neighbours { sources: a.sources.clone(), destinations: a.destinations.clone(), cartesian: false })
        }
        None => Err(ep_err!(ERR_TOPOLOGY, "the communicator has no topology (neighbourhood collectives need one)")),
    }
}

/// One endpoint's part of a neighbourhood collective under way.
pub struct Exchange {
    comm: Arc<CommShared>,
    local: u32,
    sends: Vec<SendState>,
    /// Each posted receive and the bytes its block holds, which the message must fill
    /// (neighbourhood collectives need matching type signatures).
    recvs: Vec<(Arc<RecvOp>, usize)>,
    done: bool,
    /// A stand-in for a call that failed (see [`stand_in`]): its receives take any length.
    any_length: bool,
    /// Copies of the receive blocks' derived datatypes, for a nonblocking call
    /// ([`Exchange::holding`]).
    _held: HeldTypes,
}

/// Starts `ep`'s part: `recvs[i]` from in-neighbour i, `sends[j]` to out-neighbour j (the
/// caller built them from [`neighbours`], so the peers are ranks of the communicator or
/// `PROC_NULL`). The caller keeps the receive blocks' datatypes valid until the exchange
/// completes: the blocking call waits for it; a nonblocking one gives the exchange copies of
/// them ([`Exchange::holding`]); a persistent request keeps its own.
pub fn start(ep: &Endpoint, n: &Neighbours, sends: Vec<Block>, recvs: Vec<Block>) -> EpResult<Exchange> {
    let topology = of(&ep.shared).ok_or_else(|| ep_err!(ERR_TOPOLOGY, "the communicator has no topology"))?;
    let comm = topology.exchange.clone();
    let local = ep.local;
    let tag_of = |i: usize, sending: bool| -> i32 {
        match (n.cartesian, sending) {
            (false, _) => 0,
            (true, false) => i as i32,
            (true, true) => (i ^ 1) as i32,
        }
    };
    let mut posted = Vec::with_capacity(recvs.len());
    for (i, b) in recvs.into_iter().enumerate() {
        let bytes = b.buf.bytes();
        posted.push((p2p::post_recv(&comm, local, Pattern { source: b.peer, tag: tag_of(i, false) }, b.buf, true)?, bytes));
    }
    let mut started = Vec::with_capacity(sends.len());
    for (j, b) in sends.into_iter().enumerate() {
        if b.peer == PROC_NULL {
            continue;
        }
        let to = comm
            .location(b.peer)
            .ok_or_else(|| ep_err!(ERR_RANK, "neighbour {} is not a rank of the communicator", b.peer))?;
        let env = Envelope { source: ep.rank, tag: tag_of(j, true) };
        started.push(p2p::start_send(&comm, local, to, env, b.buf, false, false)?);
    }
    let held = HeldTypes::default();
    Ok(Exchange { comm, local, sends: started, recvs: posted, done: false, any_length: false, _held: held })
}

/// What an endpoint whose arguments were bad does instead of its part, so that its
/// neighbours neither wait forever nor keep its messages for the next collective: it sends
/// an empty message to each out-neighbour (which each reports as a block of the wrong size)
/// and takes, and drops, the message of each in-neighbour. Blocking.
pub fn stand_in(ep: &Endpoint, n: &Neighbours) -> EpResult<()> {
    // A real address for zero bytes: the transports may make a slice of it, which NULL
    // cannot be, and a small constant may be the host's MPI_IN_PLACE.
    static NOTHING: u8 = 0;
    let empty = |peer: &i32| {
        // SAFETY: zero elements: the buffer is never read or written.
        let buf = unsafe { UserBuf::new(std::ptr::addr_of!(NOTHING) as *const c_void, 0, HOST.byte) }?;
        Ok(Block { peer: *peer, buf })
    };
    let sends = n.destinations.iter().map(empty).collect::<EpResult<_>>()?;
    let recvs = n.sources.iter().map(empty).collect::<EpResult<_>>()?;
    let mut x = start(ep, n, sends, recvs)?;
    x.any_length = true;
    x.wait()
}

/// The error of a completed receive of a block of `bytes`: truncation, a shorter message
/// (the sender's counts differ, or its call failed), or an error met while delivering it.
fn receive_error(r: &RecvOp, bytes: usize) -> Option<EpError> {
    let c = r.completion();
    match c.error {
        0 if c.source == PROC_NULL || c.bytes == bytes as u64 => None,
        0 => Some(ep_err!(
            ERR_OTHER,
            "neighbour {} sent {} bytes for a block of {} bytes (its counts differ, or its call failed)",
            c.source,
            c.bytes,
            bytes
        )),
        ERR_TRUNCATE => Some(ep_err!(
            ERR_TRUNCATE,
            "the block of {} bytes from neighbour {} is larger than its receive block of {} bytes",
            c.sent_bytes,
            c.source,
            c.bytes
        )),
        code => Some(EpError::new(class_of(code).unwrap_or(ERR_INTERN), message_of(code).unwrap_or_default())),
    }
}

impl Exchange {
    /// This exchange, keeping `held` (the copies its receive blocks' datatypes are on) until
    /// it is dropped: after it completes, or with its orphaned request.
    pub fn holding(self, held: HeldTypes) -> Exchange {
        Exchange { _held: held, ..self }
    }

    /// True once every block has arrived and every send buffer may be reused; progresses the
    /// private communicator first.
    pub fn test(&mut self) -> EpResult<bool> {
        if self.done {
            return Ok(true);
        }
        progress::progress(&self.comm, self.local, Drain::All)?;
        for s in &mut self.sends {
            if !s.test()? {
                return Ok(false);
            }
        }
        for (r, _) in &self.recvs {
            if !r.poll_host()? {
                return Ok(false);
            }
        }
        self.done = true;
        if self.any_length {
            return Ok(true);
        }
        match self.recvs.iter().find_map(|(r, bytes)| receive_error(r, *bytes)) {
            Some(e) => Err(e),
            None => Ok(true),
        }
    }

    /// Blocks until [`Exchange::test`] says done.
    pub fn wait(&mut self) -> EpResult<()> {
        let mut b = Backoff::new();
        while !self.test()? {
            b.snooze();
        }
        Ok(())
    }
}
