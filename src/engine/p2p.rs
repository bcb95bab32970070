//! Point-to-point: sends, receives, probes and the progress of one endpoint.
//!
//! Two transports feed one matching engine (`MatchQueues`) per endpoint:
//! * local (same process): the sending thread takes the destination's queue lock, and either
//!   copies straight into a matching posted receive (one copy), or leaves the message in the
//!   unexpected queue: packed for small messages (eager), as a pointer to the sender's buffer
//!   for large or synchronous ones (rendezvous: the receiver copies once, the send completes
//!   then). No MPI call.
//! * remote (other process): a header, with the packed data for small messages, goes on the
//!   host communicator with host tag = destination local index; large and synchronous sends
//!   add a data message sent from the user's buffer and received into the user's buffer.
//!   The destination endpoint's own thread probes for its messages while it is in a call
//!   (`drain_remote`), so there is no shared inbox and no global lock.

use super::comm::CommShared;
use super::datatype::UserBuf;
use super::envelope::{Envelope, Pattern, Protocol, WireHeader, HEADER_BYTES, PROC_NULL};
use super::matching::MatchQueues;
use super::rankmap::Location;
use crate::ep_err;
use crate::error::{EpResult, ERR_TRUNCATE};
use crate::host::{check, sys, HostRequest, HostType, HOST};
use parking_lot::Mutex;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Local messages up to this size are copied into the unexpected queue; larger ones wait
/// for the receiver, which copies once from the sender's buffer.
pub(crate) const LOCAL_EAGER_BYTES: usize = 16 * 1024;
/// Remote messages up to this size travel packed behind their header.
pub(crate) const REMOTE_EAGER_BYTES: usize = 16 * 1024;
/// Blocking sends of packets up to this size use `MPI_Send`: far below every host's eager
/// limit, so the host completes them without the receiver's help. Larger ones use
/// `MPI_Isend` and the caller's wait loop, which keeps draining this endpoint's own incoming
/// headers: two endpoints sending large messages to each other against pre-posted receives
/// would otherwise both sit in `MPI_Send` with nobody posting the host receives.
const BLOCKING_HOST_SEND_BYTES: usize = 1024;

/// How a receive ended, before it becomes an `EP_Status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub source: i32,
    pub tag: i32,
    /// Bytes received (at most the receive buffer's size).
    pub bytes: u64,
    /// Error class of the operation (0, or `ERR_TRUNCATE` with the bytes of the message sent
    /// in `sent_bytes`).
    pub error: c_int,
    pub sent_bytes: u64,
    pub cancelled: bool,
}

impl Completion {
    /// Status of a receive from `EP_PROC_NULL` (MPI 4.1 section 3.11).
    pub fn proc_null() -> Completion {
        Completion { source: PROC_NULL, tag: super::envelope::ANY_TAG, ..Default::default() }
    }
}

/// A local send waiting for its receiver (rendezvous, or synchronous mode).
pub struct LocalSend {
    pub buf: UserBuf,
    done: AtomicBool,
}

impl LocalSend {
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }
}

/// A message that arrived before its receive, or was taken by `EP_Mprobe`.
pub enum Payload {
    /// Packed data.
    Eager(Vec<u8>),
    /// Data still in a local sender's buffer.
    Local(Arc<LocalSend>),
    /// Data waiting in the host MPI: from process `proc`, on the data communicator, `data_tag`.
    Remote { proc: c_int, data_tag: c_int, bytes: u64 },
}

impl Payload {
    pub fn bytes(&self) -> u64 {
        match self {
            Payload::Eager(v) => v.len() as u64,
            Payload::Local(ls) => ls.buf.bytes() as u64,
            Payload::Remote { bytes, .. } => *bytes,
        }
    }
}

/// The matching state of one endpoint.
#[derive(Default)]
pub struct Queues {
    pub matching: MatchQueues<Arc<RecvOp>, Payload>,
    /// Receive buffer for remote headers and eager data, reused.
    scratch: Vec<u8>,
    /// Requests freed while active (`EP_Request_free`), completed by progress.
    pub orphans: Vec<Arc<super::request::Request>>,
}

/// Host part of a receive whose data comes by rendezvous.
struct HostRecv {
    request: HostRequest,
    /// Set when the message is longer than the receive buffer: the data lands here first.
    overflow: Option<Vec<u8>>,
}

struct RecvState {
    completion: Completion,
    host: Option<HostRecv>,
}

/// A receive: posted, matched, or complete. Shared by the request and, while posted, by the
/// endpoint's posted queue (a local sender completes it from its own thread).
pub struct RecvOp {
    pub buf: UserBuf,
    pub pattern: Pattern,
    done: AtomicBool,
    /// Set once rendezvous data is on its way through the host: only then does polling
    /// need the state lock (waiting threads spin on read-only atomics otherwise).
    host_pending: AtomicBool,
    state: Mutex<RecvState>,
}

// SAFETY: UserBuf is Send/Sync (see datatype.rs); the state is behind a mutex.
unsafe impl Send for RecvOp {}
unsafe impl Sync for RecvOp {}

impl RecvOp {
    pub fn new(buf: UserBuf, pattern: Pattern) -> Arc<RecvOp> {
        Arc::new(RecvOp {
            buf,
            pattern,
            done: AtomicBool::new(false),
            host_pending: AtomicBool::new(false),
            state: Mutex::new(RecvState { completion: Completion::default(), host: None }),
        })
    }

    /// A receive that is complete from the start (`EP_PROC_NULL`).
    pub fn completed(buf: UserBuf, c: Completion) -> Arc<RecvOp> {
        let r = RecvOp::new(buf, Pattern { source: c.source, tag: c.tag });
        r.finish(c);
        r
    }

    fn finish(&self, c: Completion) {
        self.state.lock().completion = c;
        self.done.store(true, Ordering::Release);
    }

    #[inline]
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// The outcome, once done.
    pub fn completion(&self) -> Completion {
        self.state.lock().completion
    }

    /// Completes a rendezvous receive whose host data has arrived. Only the owning endpoint's
    /// thread calls this. True when the receive is done.
    pub fn poll_host(&self) -> EpResult<bool> {
        if self.is_done() {
            return Ok(true);
        }
        if !self.host_pending.load(Ordering::Acquire) {
            return Ok(false);
        }
        let mut st = self.state.lock();
        let Some(h) = st.host.as_mut() else { return Ok(false) };
        let mut flag = 0;
        unsafe { check(sys::MPI_Test(&mut h.request.0, &mut flag, HOST.status_ignore), "MPI_Test")? };
        if flag == 0 {
            return Ok(false);
        }
        let h = st.host.take().unwrap();
        if let Some(data) = h.overflow {
            let cap = self.buf.bytes();
            self.buf.unpack_from(&data[..cap])?;
        }
        drop(st);
        self.done.store(true, Ordering::Release);
        Ok(true)
    }

    /// Marks a posted receive cancelled (the caller removed it from the posted queue).
    pub fn cancel(&self) {
        self.finish(Completion { cancelled: true, ..Completion::default() });
    }
}

fn completion_for(env: &Envelope, sent: u64, capacity: usize) -> Completion {
    let truncated = sent > capacity as u64;
    Completion {
        source: env.source,
        tag: env.tag,
        bytes: sent.min(capacity as u64),
        error: if truncated { ERR_TRUNCATE } else { 0 },
        sent_bytes: sent,
        cancelled: false,
    }
}

/// Moves packed bytes into a matched receive.
fn deliver_bytes(recv: &RecvOp, env: &Envelope, data: &[u8]) -> EpResult<()> {
    let c = completion_for(env, data.len() as u64, recv.buf.bytes());
    recv.buf.unpack_from(&data[..c.bytes as usize])?;
    recv.finish(c);
    Ok(())
}

/// Moves a matched message into a receive; remote rendezvous data is requested from the host
/// and arrives later (see [`RecvOp::poll_host`]).
pub fn deliver(shared: &CommShared, recv: &RecvOp, env: &Envelope, payload: Payload) -> EpResult<()> {
    match payload {
        Payload::Eager(data) => deliver_bytes(recv, env, &data),
        Payload::Local(ls) => {
            let c = completion_for(env, ls.buf.bytes() as u64, recv.buf.bytes());
            let result = recv.buf.copy_from(&ls.buf, c.bytes as usize);
            ls.done.store(true, Ordering::Release);
            result?;
            recv.finish(c);
            Ok(())
        }
        Payload::Remote { proc, data_tag, bytes } => {
            let c = completion_for(env, bytes, recv.buf.bytes());
            let mut request = HostRequest(HOST.request_null);
            let mut overflow = None;
            unsafe {
                if c.error == 0 {
                    check(
                        sys::MPI_Irecv(
                            recv.buf.addr,
                            recv.buf.count,
                            recv.buf.dtype,
                            proc,
                            data_tag,
                            shared.host_data.0,
                            &mut request.0,
                        ),
                        "MPI_Irecv",
                    )?;
                } else {
                    let mut tmp = vec![0u8; bytes as usize];
                    check(
                        sys::MPI_Irecv(
                            tmp.as_mut_ptr() as *mut c_void,
                            bytes as c_int,
                            HOST.byte,
                            proc,
                            data_tag,
                            shared.host_data.0,
                            &mut request.0,
                        ),
                        "MPI_Irecv",
                    )?;
                    overflow = Some(tmp);
                }
            }
            let mut st = recv.state.lock();
            st.completion = c;
            st.host = Some(HostRecv { request, overflow });
            recv.host_pending.store(true, Ordering::Release);
            Ok(())
        }
    }
}

/// Which host messages a call must pull in before matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drain {
    /// None: the call concerns a source in this process (local senders deliver themselves).
    Nothing,
    /// Messages from one process: a receive or probe naming a source rank there.
    From(c_int),
    /// Messages from every process: wildcard source, and waits that must not block others.
    All,
}

impl Drain {
    /// The drain a receive or probe with this pattern needs. MPI orders messages per source
    /// only, so a receive naming its source need not look at other processes' messages.
    pub fn for_pattern(shared: &CommShared, pattern: &Pattern) -> Drain {
        if shared.nprocs <= 1 {
            return Drain::Nothing;
        }
        match shared.location(pattern.source) {
            Some(loc) if loc.proc == shared.my_proc => Drain::Nothing,
            Some(loc) => Drain::From(loc.proc as c_int),
            None => Drain::All,
        }
    }
}

impl Drain {
    /// This drain, widened to `All` on every 16th call of the thread: waits that look at one
    /// source still pull in other processes' headers now and then, so a peer blocked in a
    /// large send to this endpoint against an already posted receive completes, as MPI's
    /// progress rule requires (MPI 4.1 section 3.5).
    pub fn now_and_then_all(self) -> Drain {
        thread_local! {
            static CALLS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        let n = CALLS.with(|c| {
            let n = c.get().wrapping_add(1);
            c.set(n);
            n
        });
        if n % 16 == 0 {
            Drain::All
        } else {
            self
        }
    }
}

/// Pulls the remote messages addressed to endpoint `local` (all, or one process's) out of
/// the host MPI and matches them. Holds the endpoint's queue lock, which keeps messages of
/// one source in order.
fn drain_remote(shared: &CommShared, local: u32, q: &mut Queues, drain: Drain) -> EpResult<()> {
    let source = match drain {
        _ if shared.nprocs <= 1 => return Ok(()),
        Drain::Nothing => return Ok(()),
        Drain::From(p) => p,
        Drain::All => HOST.any_source,
    };
    loop {
        let mut flag: c_int = 0;
        let mut msg = HOST.message_null;
        let mut st: sys::MPI_Status = unsafe { std::mem::zeroed() };
        unsafe {
            check(
                sys::MPI_Improbe(source, local as c_int, shared.host.0, &mut flag, &mut msg, &mut st),
                "MPI_Improbe",
            )?
        };
        if flag == 0 {
            return Ok(());
        }
        let mut len: c_int = 0;
        unsafe { check(sys::MPI_Get_count(&st, HOST.byte, &mut len), "MPI_Get_count")? };
        q.scratch.clear();
        q.scratch.reserve(len as usize);
        unsafe {
            check(
                sys::MPI_Mrecv(q.scratch.as_mut_ptr() as *mut c_void, len, HOST.byte, &mut msg, HOST.status_ignore),
                "MPI_Mrecv",
            )?;
            q.scratch.set_len(len as usize);
        }
        let h = WireHeader::decode(&q.scratch)
            .ok_or_else(|| ep_err!(crate::error::ERR_INTERN, "malformed message header ({len} bytes)"))?;
        let env = h.envelope;
        match (h.protocol, q.matching.take_posted(&env)) {
            (Protocol::Eager, Some(recv)) => deliver_bytes(&recv, &env, &q.scratch[HEADER_BYTES..])?,
            (Protocol::Eager, None) => {
                let data = q.scratch[HEADER_BYTES..].to_vec();
                q.matching.push_unexpected(env, Payload::Eager(data));
            }
            (Protocol::Rendezvous { data_tag }, posted) => {
                let payload = Payload::Remote { proc: st.MPI_SOURCE, data_tag, bytes: h.bytes };
                match posted {
                    Some(recv) => deliver(shared, &recv, &env, payload)?,
                    None => q.matching.push_unexpected(env, payload),
                }
            }
        }
    }
}

/// Progress for one endpoint: fetch its remote messages, finish its orphaned requests.
pub fn progress(shared: &CommShared, local: u32, drain: Drain) -> EpResult<()> {
    if shared.nprocs <= 1 || drain == Drain::Nothing {
        return Ok(());
    }
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain_remote(shared, local, &mut q, drain)?;
    if !q.orphans.is_empty() {
        let mut orphans = std::mem::take(&mut q.orphans);
        drop(q);
        let mut still = Vec::new();
        for r in orphans.drain(..) {
            if r.test_without_progress()?.is_none() {
                still.push(r);
            }
        }
        shared.endpoints[local as usize].queues.lock().orphans.extend(still);
    }
    Ok(())
}

/// The state of a send after it started.
pub enum SendState {
    Done,
    Local(Arc<LocalSend>),
    Host { requests: [HostRequest; 2], active: usize, _keep: Vec<u8> },
}

impl SendState {
    /// True once the send buffer may be reused (and, for synchronous sends, the receive
    /// has matched).
    pub fn test(&mut self) -> EpResult<bool> {
        match self {
            SendState::Done => Ok(true),
            SendState::Local(ls) => Ok(ls.is_done()),
            SendState::Host { requests, active, .. } => {
                let mut flag = 0;
                unsafe {
                    check(
                        sys::MPI_Testall(
                            *active as c_int,
                            requests.as_mut_ptr() as *mut sys::MPI_Request,
                            &mut flag,
                            HOST.status_ignore,
                        ),
                        "MPI_Testall",
                    )?
                };
                if flag != 0 {
                    *self = SendState::Done;
                }
                Ok(flag != 0)
            }
        }
    }
}

/// Sends to an endpoint of this process.
pub fn send_local(shared: &CommShared, dest: Location, env: Envelope, buf: UserBuf, sync: bool) -> EpResult<SendState> {
    let mut q = shared.endpoints[dest.local as usize].queues.lock();
    if let Some(recv) = q.matching.take_posted(&env) {
        drop(q);
        let c = completion_for(&env, buf.bytes() as u64, recv.buf.bytes());
        recv.buf.copy_from(&buf, c.bytes as usize)?;
        recv.finish(c);
        return Ok(SendState::Done);
    }
    if !sync && buf.bytes() <= LOCAL_EAGER_BYTES {
        let mut data = Vec::new();
        buf.pack_into(&mut data)?;
        q.matching.push_unexpected(env, Payload::Eager(data));
        return Ok(SendState::Done);
    }
    let ls = Arc::new(LocalSend { buf, done: AtomicBool::new(false) });
    q.matching.push_unexpected(env, Payload::Local(ls.clone()));
    Ok(SendState::Local(ls))
}

/// Sends to an endpoint of another process. `blocking` lets small packets go by `MPI_Send`.
pub fn send_remote(
    shared: &CommShared,
    dest: Location,
    env: Envelope,
    buf: UserBuf,
    sync: bool,
    blocking: bool,
) -> EpResult<SendState> {
    let bytes = buf.bytes();
    let proc = dest.proc as c_int;
    let tag = dest.local as c_int;
    if !sync && blocking && buf.info.contiguous && HEADER_BYTES + bytes <= BLOCKING_HOST_SEND_BYTES {
        // The latency path: header and data assembled on the stack, one MPI_Send.
        let mut packet = [0u8; BLOCKING_HOST_SEND_BYTES];
        packet[..HEADER_BYTES]
            .copy_from_slice(&WireHeader { envelope: env, protocol: Protocol::Eager, bytes: bytes as u64 }.encode());
        buf.copy_contiguous_to(&mut packet[HEADER_BYTES..HEADER_BYTES + bytes]);
        let len = (HEADER_BYTES + bytes) as c_int;
        unsafe {
            check(sys::MPI_Send(packet.as_ptr() as *const c_void, len, HOST.byte, proc, tag, shared.host.0), "MPI_Send")?
        };
        return Ok(SendState::Done);
    }
    if !sync && bytes <= REMOTE_EAGER_BYTES {
        let mut packet = Vec::with_capacity(HEADER_BYTES + bytes);
        packet.extend_from_slice(&WireHeader { envelope: env, protocol: Protocol::Eager, bytes: bytes as u64 }.encode());
        buf.pack_into(&mut packet)?;
        let ptr = packet.as_ptr() as *const c_void;
        let len = packet.len() as c_int;
        if blocking && packet.len() <= BLOCKING_HOST_SEND_BYTES {
            unsafe { check(sys::MPI_Send(ptr, len, HOST.byte, proc, tag, shared.host.0), "MPI_Send")? };
            return Ok(SendState::Done);
        }
        let mut r = HostRequest(HOST.request_null);
        unsafe { check(sys::MPI_Isend(ptr, len, HOST.byte, proc, tag, shared.host.0, &mut r.0), "MPI_Isend")? };
        return Ok(SendState::Host { requests: [r, HostRequest(HOST.request_null)], active: 1, _keep: packet });
    }
    let data_tag = shared.next_data_tag();
    let header = WireHeader { envelope: env, protocol: Protocol::Rendezvous { data_tag }, bytes: bytes as u64 }
        .encode()
        .to_vec();
    let (hp, hl) = (header.as_ptr() as *const c_void, header.len() as c_int);
    let data_comm = shared.host_data.0;
    let t = HostType(buf.dtype);
    unsafe {
        // A synchronous host send completes once the receiver has matched the header and
        // posted the data receive, which is MPI's synchronous-mode guarantee.
        let mut rs = [HostRequest(HOST.request_null), HostRequest(HOST.request_null)];
        check(sys::MPI_Isend(hp, hl, HOST.byte, proc, tag, shared.host.0, &mut rs[0].0), "MPI_Isend")?;
        let isend = if sync { sys::MPI_Issend } else { sys::MPI_Isend };
        check(isend(buf.addr, buf.count, t.0, proc, data_tag, data_comm, &mut rs[1].0), "MPI_Isend(data)")?;
        Ok(SendState::Host { requests: rs, active: 2, _keep: header })
    }
}

/// Posts a receive on endpoint `local`: matches the first fitting unexpected message, or
/// joins the posted queue.
pub fn post_recv(shared: &CommShared, local: u32, pattern: Pattern, buf: UserBuf) -> EpResult<Arc<RecvOp>> {
    if pattern.source == PROC_NULL {
        return Ok(RecvOp::completed(buf, Completion::proc_null()));
    }
    let recv = RecvOp::new(buf, pattern);
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain_remote(shared, local, &mut q, Drain::for_pattern(shared, &pattern))?;
    match q.matching.take_unexpected(&pattern) {
        Some((env, payload)) => {
            drop(q);
            deliver(shared, &recv, &env, payload)?;
        }
        None => q.matching.push_posted(pattern, recv.clone()),
    }
    Ok(recv)
}

/// Envelope and size of the first matching message, left in place (`EP_Iprobe`).
pub fn iprobe(shared: &CommShared, local: u32, pattern: Pattern) -> EpResult<Option<Completion>> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain_remote(shared, local, &mut q, Drain::for_pattern(shared, &pattern))?;
    Ok(q.matching.peek_unexpected(&pattern).map(|(env, p)| {
        let b = p.bytes();
        Completion { source: env.source, tag: env.tag, bytes: b, sent_bytes: b, ..Completion::default() }
    }))
}

/// The first matching message, removed from the queue (`EP_Improbe`).
pub fn improbe(shared: &CommShared, local: u32, pattern: Pattern) -> EpResult<Option<(Envelope, Payload)>> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain_remote(shared, local, &mut q, Drain::for_pattern(shared, &pattern))?;
    Ok(q.matching.take_unexpected(&pattern))
}

/// Cancels a receive that has not matched; false if it already matched.
pub fn cancel_recv(shared: &CommShared, local: u32, recv: &Arc<RecvOp>) -> bool {
    let mut q = shared.endpoints[local as usize].queues.lock();
    if q.matching.remove_posted(|p| Arc::ptr_eq(p, recv)) {
        drop(q);
        recv.cancel();
        true
    } else {
        false
    }
}
