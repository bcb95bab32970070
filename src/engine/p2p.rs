//! Point-to-point: receives, probes, matching and the progress of one endpoint.
//!
//! Two transports feed one matching engine (`MatchQueues`) per endpoint, and both are drained
//! by the receiving endpoint's own thread while it is in a call, so the matching state has a
//! single user and no shared lock on the hot path:
//! * [`local`]: same-process senders push into the destination's lock-free inbox (data inline
//!   for small messages, a packed copy up to 16 KiB, else the sender's buffer, copied once by
//!   the receiver). No MPI call.
//! * [`remote`]: the host MPI, with two pre-posted host receives per endpoint for headers and
//!   eager data; large and synchronous messages add a data message that goes straight from
//!   the sender's buffer into the receiver's.

use super::comm::CommShared;
use super::datatype::UserBuf;
use super::envelope::{Envelope, Pattern, PROC_NULL};
use super::local::{self, INLINE_BYTES};
use super::matching::MatchQueues;
use super::progress::HostOp;
use super::rankmap::Location;
use super::remote;
use super::request::Backoff;
use crate::error::{EpError, EpResult, ERR_TRUNCATE};
use crate::host::{check, sys, HostRequest, HOST};
use parking_lot::lock_api::MutexGuard;
use parking_lot::Mutex;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
        Completion {
            source: PROC_NULL,
            tag: super::envelope::ANY_TAG,
            ..Default::default()
        }
    }
}

/// A local send waiting for its receiver (rendezvous, or synchronous mode).
pub struct LocalSend {
    pub buf: UserBuf,
    pub(crate) done: AtomicBool,
}

impl LocalSend {
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }
}

/// A message that arrived before its receive, or was taken by `EP_Mprobe`.
pub enum Payload {
    /// Packed data of a small local message, carried inside the inbox cell.
    Inline(InlineData),
    /// Packed data.
    Eager(Vec<u8>),
    /// Data still in a local sender's buffer.
    Local(Arc<LocalSend>),
    /// Data waiting in the host MPI: from process `proc`, on the data communicator, `data_tag`.
    Remote {
        proc: c_int,
        data_tag: c_int,
        bytes: u64,
    },
}

/// An inline payload, in whole words: a byte-sized length beside an unaligned array made
/// every move of a message read back, at odd offsets, bytes just written in other widths
/// (store-forwarding stalls were a tenth of a same-process message's cost).
#[derive(Clone, Copy)]
pub struct InlineData {
    pub len: usize,
    pub bytes: [u64; INLINE_BYTES / 8],
}

/// The word whose bytes in memory are the `k` (< 8) bytes at `src`, then zeros, read in at
/// most three loads of 4, 2 and 1 bytes (a byte loop became a `memcpy` call through the
/// stack, whose narrow stores the word's load then waited for).
///
/// # Safety
/// `src` is readable for `k` bytes.
#[inline(always)]
unsafe fn read_tail(src: *const u8, k: usize) -> u64 {
    let mut v = 0u64; // byte j of the tail in bits 8j..8j+8
    let mut off = 0;
    if k & 4 != 0 {
        v = u32::from_le((src as *const u32).read_unaligned()) as u64;
        off = 4;
    }
    if k & 2 != 0 {
        v |= (u16::from_le((src.add(off) as *const u16).read_unaligned()) as u64) << (8 * off);
        off += 2;
    }
    if k & 1 != 0 {
        v |= (*src.add(off) as u64) << (8 * off);
    }
    u64::from_ne_bytes(v.to_le_bytes())
}

/// Writes the first `k` (< 8) bytes in memory of `word` to `dst` (see [`read_tail`]).
///
/// # Safety
/// `dst` is writable for `k` bytes.
#[inline(always)]
unsafe fn write_tail(dst: *mut u8, k: usize, word: u64) {
    let v = u64::from_le_bytes(word.to_ne_bytes());
    let mut off = 0;
    if k & 4 != 0 {
        (dst as *mut u32).write_unaligned((v as u32).to_le());
        off = 4;
    }
    if k & 2 != 0 {
        (dst.add(off) as *mut u16).write_unaligned(((v >> (8 * off)) as u16).to_le());
        off += 2;
    }
    if k & 1 != 0 {
        *dst.add(off) = (v >> (8 * off)) as u8;
    }
}

impl InlineData {
    /// The `len` bytes (at most `INLINE_BYTES`) at `src`, read a word at a time into
    /// registers: for the few bytes of a small message a call into `memcpy` cost more than
    /// the copy, and words assembled in memory from narrower stores and then moved stall
    /// the store forwarding (the message is written straight into its channel cell).
    ///
    /// # Safety
    /// `src` is readable for `len` bytes.
    #[inline(always)]
    pub unsafe fn read_from(src: *const u8, len: usize) -> InlineData {
        debug_assert!(len <= INLINE_BYTES);
        let words = len / 8;
        let word = |i: usize| -> u64 {
            if i < words {
                (src.add(8 * i) as *const u64).read_unaligned()
            } else if i == words {
                read_tail(src.add(8 * words), len % 8)
            } else {
                0
            }
        };
        InlineData { len, bytes: [word(0), word(1), word(2), word(3)] }
    }

    /// Writes the first `n` (at most `len`) bytes to `dst`, a word at a time (see
    /// [`Self::read_from`]).
    ///
    /// # Safety
    /// `dst` is writable for `n` bytes.
    #[inline(always)]
    pub unsafe fn write_to(&self, dst: *mut u8, n: usize) {
        debug_assert!(n <= self.len);
        let words = n / 8;
        for (i, w) in self.bytes.iter().enumerate() {
            if i < words {
                (dst.add(8 * i) as *mut u64).write_unaligned(*w);
            }
        }
        if !n.is_multiple_of(8) {
            write_tail(dst.add(8 * words), n % 8, self.bytes[words]);
        }
    }

    /// The payload's `len` bytes.
    #[inline]
    pub fn data(&self) -> &[u8] {
        // SAFETY: `bytes` holds INLINE_BYTES initialised bytes; `len` is at most that.
        unsafe { std::slice::from_raw_parts(self.bytes.as_ptr() as *const u8, self.len) }
    }
}

impl Payload {
    pub fn bytes(&self) -> u64 {
        match self {
            Payload::Inline(d) => d.len as u64,
            Payload::Eager(v) => v.len() as u64,
            Payload::Local(ls) => ls.buf.bytes() as u64,
            Payload::Remote { bytes, .. } => *bytes,
        }
    }
}

/// The matching state of one endpoint. Only the endpoint's own thread touches it (other
/// endpoints deliver through its inbox), so its lock is never contended.
#[derive(Default)]
pub struct Queues {
    pub matching: MatchQueues<Arc<RecvOp>, Payload>,
    /// The pre-posted host receives for remote headers and eager data.
    pub remote_rx: Option<remote::PrePosted>,
    /// Requests freed while active (`EP_Request_free`), completed by progress.
    pub orphans: Vec<Arc<super::request::Request>>,
    /// Polls by calls that drain less than everything (see [`Drain::now_and_then_all`]).
    pub polls: u32,
}

/// Host part of a receive whose data comes by rendezvous.
struct HostRecv {
    /// The data receive, and the buffer it fills when the message is longer than the
    /// receive buffer (empty otherwise: the data then lands in the user's buffer).
    op: HostOp,
    /// The data lands in `op`'s buffer first.
    overflow: bool,
}

struct RecvState {
    completion: Completion,
    host: Option<HostRecv>,
}

/// A receive: posted, matched, or complete. Shared by the request and, while posted, by the
/// endpoint's posted queue; only the endpoint's thread changes it, but the request handle can
/// be tested from any thread, hence the atomics and the lock.
pub struct RecvOp {
    pub buf: UserBuf,
    pub pattern: Pattern,
    done: AtomicBool,
    /// Set once rendezvous data is on its way through the host: only then does polling
    /// need the state lock.
    host_pending: AtomicBool,
    state: Mutex<RecvState>,
}

// SAFETY: UserBuf is Send/Sync (see datatype.rs); the state is behind a mutex.
unsafe impl Send for RecvOp {}
// SAFETY: as for `Send`: shared access reads `buf`, `pattern` and the atomics, and
// changes the rest under `state`'s mutex.
unsafe impl Sync for RecvOp {}

impl RecvOp {
    pub fn new(buf: UserBuf, pattern: Pattern) -> Arc<RecvOp> {
        Arc::new(RecvOp {
            buf,
            pattern,
            done: AtomicBool::new(false),
            host_pending: AtomicBool::new(false),
            state: Mutex::new(RecvState {
                completion: Completion::default(),
                host: None,
            }),
        })
    }

    /// A receive that is complete from the start (`EP_PROC_NULL`).
    pub fn completed(buf: UserBuf, c: Completion) -> Arc<RecvOp> {
        let r = RecvOp::new(
            buf,
            Pattern {
                source: c.source,
                tag: c.tag,
            },
        );
        r.finish(c);
        r
    }

    fn finish(&self, c: Completion) {
        self.state.lock().completion = c;
        self.done.store(true, Ordering::Release);
    }

    /// Completes the receive with error `e`, met while delivering the message `env` into it:
    /// the error is the receive's, reported by its own completion call (its completion's
    /// `error` is the registered error code), never by the call that happened to drive it.
    #[cold]
    pub(crate) fn fail(&self, env: &Envelope, e: EpError) {
        let code = crate::error::register(e.class, e.msg.clone());
        self.finish(Completion {
            source: env.source,
            tag: env.tag,
            error: code,
            ..Completion::default()
        });
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
        let Some(h) = st.host.as_mut() else {
            return Ok(false);
        };
        let result = match h.op.test() {
            Ok(false) => return Ok(false),
            Ok(true) if h.overflow => self.buf.unpack_from(&h.op.keep()[..self.buf.bytes()]),
            other => other.map(|_| ()),
        };
        // A failed host test leaves the host request to the orphanage (with `HostRecv`).
        st.host = None;
        if let Err(e) = result {
            st.completion.error = crate::error::register(e.class, e.msg.clone());
        }
        drop(st);
        self.done.store(true, Ordering::Release);
        Ok(true)
    }

    /// Marks a posted receive cancelled (the caller removed it from the posted queue).
    pub fn cancel(&self) {
        self.finish(Completion {
            cancelled: true,
            ..Completion::default()
        });
    }
}

pub(crate) fn completion_for(env: &Envelope, sent: u64, capacity: usize) -> Completion {
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

/// Unpacks a message's packed data into a user buffer (as much as fits) and says how the
/// receive ended.
#[inline(always)]
fn unpack_message(buf: &UserBuf, env: &Envelope, data: &[u8]) -> EpResult<Completion> {
    super::fault::delivery(env)?;
    let c = completion_for(env, data.len() as u64, buf.bytes());
    buf.unpack_from(&data[..c.bytes as usize])?;
    Ok(c)
}

/// Moves packed bytes into a matched receive; a failure completes the receive with it.
pub(crate) fn deliver_bytes(recv: &RecvOp, env: &Envelope, data: &[u8]) {
    match unpack_message(&recv.buf, env, data) {
        Ok(c) => recv.finish(c),
        Err(e) => recv.fail(env, e),
    }
}

/// Moves an inline payload into a user buffer: a word at a time when the buffer is
/// contiguous, else unpacked.
#[inline(always)]
fn deliver_inline(buf: &UserBuf, env: &Envelope, d: &InlineData) -> EpResult<Completion> {
    super::fault::delivery(env)?;
    if buf.info.contiguous() {
        let c = completion_for(env, d.len as u64, buf.bytes());
        // SAFETY: the user's buffer holds `bytes() >= c.bytes` contiguous bytes.
        unsafe { d.write_to(buf.data_ptr(), c.bytes as usize) };
        return Ok(c);
    }
    unpack_message(buf, env, d.data())
}

/// Moves a matched message that is already in this process (inline, packed, or in a local
/// sender's buffer) into a user buffer.
#[inline(always)]
fn deliver_into(buf: &UserBuf, env: &Envelope, payload: Payload) -> EpResult<Completion> {
    match payload {
        Payload::Inline(d) => deliver_inline(buf, env, &d),
        Payload::Eager(data) => unpack_message(buf, env, &data),
        Payload::Local(ls) => {
            let c = completion_for(env, ls.buf.bytes() as u64, buf.bytes());
            let result = super::fault::delivery(env).and_then(|()| buf.copy_from(&ls.buf, c.bytes as usize));
            ls.done.store(true, Ordering::Release);
            result.map(|()| c)
        }
        Payload::Remote { .. } => unreachable!("remote data goes through a RecvOp"),
    }
}

/// Moves a matched message into a receive taken from the posted queue (or just made for
/// it); a failure completes the receive with the error (see [`RecvOp::fail`]), so its
/// waiter returns it and the call that drove the delivery goes on.
#[inline]
pub(crate) fn deliver_posted(shared: &CommShared, recv: &RecvOp, env: &Envelope, payload: Payload) {
    if let Err(e) = deliver(shared, recv, env, payload) {
        recv.fail(env, e);
    }
}

/// Moves a matched message into a receive; remote rendezvous data is requested from the host
/// and arrives later (see [`RecvOp::poll_host`]). Errors: the host's, when it cannot start
/// the data receive or unpack; the receive is then not complete (see [`deliver_posted`]).
pub fn deliver(
    shared: &CommShared,
    recv: &RecvOp,
    env: &Envelope,
    payload: Payload,
) -> EpResult<()> {
    match payload {
        Payload::Remote {
            proc,
            data_tag,
            bytes,
        } => {
            let c = completion_for(env, bytes, recv.buf.bytes());
            let mut request = HostRequest(HOST.request_null);
            let mut overflow = Vec::new();
            // SAFETY: without truncation the host writes at most the message's `bytes <= buf.bytes()`
            // into the user's buffer, valid for `count` elements of `dtype` until the receive completes
            // (MPI 4.1 section 3.7.2); with truncation it writes the `bytes` of the message into `tmp`,
            // whose heap block moves into the `HostOp` that owns the request from here on (dropped
            // early, both go to the orphanage until the host is done).
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
                    overflow = tmp;
                }
            }
            let mut st = recv.state.lock();
            st.completion = c;
            st.host = Some(HostRecv { overflow: c.error != 0, op: HostOp::one(request, overflow) });
            recv.host_pending.store(true, Ordering::Release);
            Ok(())
        }
        other => {
            let c = deliver_into(&recv.buf, env, other)?;
            recv.finish(c);
            Ok(())
        }
    }
}

/// What a call must pull in before matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drain {
    /// One local sender's channel: the call names a source in this process.
    LocalFrom(u32),
    /// Every local channel.
    Local,
    /// The local inbox and the host: wildcard or remote source, and waits on sends.
    All,
}

impl Drain {
    /// The drain a receive or probe with this pattern needs. MPI orders messages per source
    /// only, so a receive naming a local source need not look at the host.
    pub fn for_pattern(shared: &CommShared, local: u32, pattern: &Pattern) -> Drain {
        match shared.peer_location(local, pattern.source) {
            Some(loc) if loc.proc == shared.my_proc => Drain::LocalFrom(loc.local),
            _ if !shared.is_multi_process() => Drain::Local,
            _ => Drain::All,
        }
    }

    /// This drain, widened to `All` on every 16th poll of the endpoint (`polls` is its
    /// counter, kept in its matching state): a wait for a local source still pulls in remote
    /// headers now and then, so a peer blocked in a large send to this endpoint against an
    /// already posted receive completes, as MPI's progress rule requires (MPI 4.1 section
    /// 3.5). The counter lives beside the queues the caller has locked anyway: a thread-local
    /// cost a call into the dynamic loader on every poll.
    #[inline]
    pub fn now_and_then_all(self, polls: &mut u32) -> Drain {
        if self == Drain::All {
            return self;
        }
        *polls = polls.wrapping_add(1);
        if (*polls).is_multiple_of(16) {
            Drain::All
        } else {
            self
        }
    }
}

/// Matches one arrived message: into the first fitting posted receive (which a failed
/// delivery completes with its error), or onto the unexpected queue.
pub(crate) fn arrive(shared: &CommShared, q: &mut Queues, env: Envelope, payload: Payload) {
    match q.matching.take_posted(&env) {
        Some(recv) => deliver_posted(shared, &recv, &env, payload),
        None => q.matching.push_unexpected(env, payload),
    }
}

/// Pulls arrived messages into endpoint `local`'s matching state (the caller holds its lock).
fn drain(shared: &CommShared, local: u32, q: &mut Queues, drain: Drain) -> EpResult<()> {
    drain_catching(shared, local, q, drain, None)
}

/// A blocking receive waiting while its endpoint drains: an eager remote packet that no
/// posted receive takes and that it matches goes straight from the host's receive buffer
/// into the user's, skipping the unexpected queue.
pub struct Catcher<'a> {
    pub pattern: &'a Pattern,
    pub buf: &'a UserBuf,
    /// Set once a message was caught; its completion is then in `out`.
    pub caught: bool,
    /// Where the caught message's completion goes: the blocking receive's own result, so
    /// that it is written once, field by field, and read back the same way (a completion
    /// moved as a whole after field-wise writes stalled the store forwarding).
    pub out: &'a mut Completion,
    /// Set once a message this receive matches went to the unexpected queue: that one is
    /// the receive's, and no later message may be caught past it (MPI 4.1 section 3.5,
    /// non-overtaking).
    pub closed: bool,
}

impl Catcher<'_> {
    /// Takes packed data if it matches and nothing was caught yet.
    pub(crate) fn try_catch(&mut self, env: &Envelope, data: &[u8]) -> EpResult<bool> {
        if self.caught || self.closed || !self.pattern.matches(env) {
            return Ok(false);
        }
        *self.out = unpack_message(self.buf, env, data)?;
        self.caught = true;
        Ok(true)
    }

    /// Notes a message queued as unexpected (see `closed`).
    pub(crate) fn queued(&mut self, env: &Envelope) {
        if self.pattern.matches(env) {
            self.closed = true;
        }
    }

    /// A message from a local sender, still in its channel's cell (`m`, which this takes):
    /// to the first posted receive it matches, else into the blocking receive's buffer, else
    /// onto the unexpected queue. Catching skips the queue's moves of the message, a good
    /// part of a same-process message's cost; an inline payload goes from the cell straight
    /// into the user's buffer.
    #[inline(always)]
    pub(crate) fn offer_local(
        &mut self,
        shared: &CommShared,
        q: &mut Queues,
        m: *mut super::local::LocalMessage,
    ) -> EpResult<()> {
        // SAFETY: the channel hands the message over (`Channel::take_with`): its envelope is
        // copied and its payload read once, by reference when it owns nothing (inline).
        let env = unsafe { (*m).envelope };
        // SAFETY: only the field's address is taken, from the message the channel handed over.
        let payload = unsafe { std::ptr::addr_of_mut!((*m).payload) };
        if let Some(recv) = q.matching.take_posted(&env) {
            // SAFETY: the payload is read (moved out) once, on this path only.
            deliver_posted(shared, &recv, &env, unsafe { payload.read() });
            return Ok(());
        }
        if !self.caught && !self.closed && self.pattern.matches(&env) {
            // An inline payload owns nothing: it is read where it lies, not moved out.
            // SAFETY: a shared look at the payload in its cell; the `Inline` arm leaves it there
            // (`InlineData` is `Copy` and owns nothing).
            *self.out = match unsafe { &*payload } {
                Payload::Inline(d) => deliver_inline(self.buf, &env, d)?,
                // SAFETY: the payload is read (moved out) once, on this path only.
                _ => deliver_into(self.buf, &env, unsafe { payload.read() })?,
            };
            self.caught = true;
            return Ok(());
        }
        self.queued(&env);
        // SAFETY: the payload is read (moved out) once, on this path only.
        q.matching.push_unexpected(env, unsafe { payload.read() });
        Ok(())
    }
}

fn drain_catching(
    shared: &CommShared,
    local: u32,
    q: &mut Queues,
    drain: Drain,
    mut catcher: Option<&mut Catcher>,
) -> EpResult<()> {
    let from = match drain {
        Drain::LocalFrom(s) => Some(s),
        _ => None,
    };
    local::drain_inbox(shared, local, q, from, catcher.as_deref_mut())?;
    if drain == Drain::All && shared.is_multi_process() {
        remote::drain(shared, local, q, catcher)?;
    }
    Ok(())
}

/// Progress for one endpoint: pull in its messages (`how`, widened now and then, see
/// [`Drain::now_and_then_all`]), finish its orphaned requests.
pub fn progress(shared: &CommShared, local: u32, how: Drain) -> EpResult<()> {
    {
        let mut q = shared.endpoints[local as usize].queues.lock();
        let how = how.now_and_then_all(&mut q.polls);
        drain(shared, local, &mut q, how)?;
        if q.orphans.is_empty() {
            return Ok(());
        }
    }
    progress_orphans(shared, local)
}

/// Tests the requests freed while active; drops those that completed.
fn progress_orphans(shared: &CommShared, local: u32) -> EpResult<()> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    if q.orphans.is_empty() {
        return Ok(());
    }
    let mut orphans = std::mem::take(&mut q.orphans);
    drop(q);
    // An orphan's error has no handle left to report it: it counts as complete.
    orphans.retain(|r| matches!(r.test_without_progress(), Ok(None)));
    shared.endpoints[local as usize]
        .queues
        .lock()
        .orphans
        .extend(orphans);
    Ok(())
}

/// The state of a send after it started.
pub enum SendState {
    Done,
    Local(Arc<LocalSend>),
    /// A send through the host: its requests and the packet they read, owned together
    /// (dropped before completion, they go to the orphanage, see [`super::progress`]).
    Host(HostOp),
    /// A direct-mode send (see [`super::direct`]): the host completes it alone.
    Direct(HostRequest),
}

impl SendState {
    /// True once the send buffer may be reused (and, for synchronous sends, the receive
    /// has matched).
    pub fn test(&mut self) -> EpResult<bool> {
        match self {
            SendState::Done => Ok(true),
            SendState::Local(ls) => Ok(ls.is_done()),
            SendState::Host(op) => {
                let done = op.test()?;
                if done {
                    *self = SendState::Done;
                }
                Ok(done)
            }
            SendState::Direct(r) => super::direct::test_send(r),
        }
    }
}

/// Posts a receive on endpoint `local`: matches the first fitting unexpected message, or
/// Starts a send from endpoint `local` to the endpoint at `to`: the local transport when it
/// lives in this process, the host otherwise. `blocking` lets a host send of a small message
/// go out at once from the caller's stack.
#[inline]
pub fn start_send(
    shared: &CommShared,
    local: u32,
    to: Location,
    env: Envelope,
    buf: UserBuf,
    sync: bool,
    blocking: bool,
) -> EpResult<SendState> {
    if to.proc == shared.my_proc {
        local::send(shared, local, to.local, env, buf, sync)
    } else {
        remote::send(shared, to, env, buf, sync, blocking)
    }
}

/// joins the posted queue.
pub fn post_recv(
    shared: &Arc<CommShared>,
    local: u32,
    pattern: Pattern,
    buf: UserBuf,
) -> EpResult<Arc<RecvOp>> {
    if pattern.source == PROC_NULL {
        return Ok(RecvOp::completed(buf, Completion::proc_null()));
    }
    let recv = RecvOp::new(buf, pattern);
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain(
        shared,
        local,
        &mut q,
        Drain::for_pattern(shared, local, &pattern),
    )?;
    match q.matching.take_unexpected(&pattern) {
        Some((env, payload)) => {
            drop(q);
            deliver_posted(shared, &recv, &env, payload);
        }
        None => {
            q.matching.push_posted(pattern, recv.clone());
            drop(q);
            note_posted(shared, local);
        }
    }
    Ok(recv)
}

/// Endpoints on which a thread left posted receives: (communicator, local index).
type PostedList = Vec<(std::sync::Weak<CommShared>, u32)>;

/// A thread's [`PostedList`], counted in [`POSTED_ENTRIES`] until the thread ends.
struct ThreadPosted(std::cell::RefCell<PostedList>);

impl Drop for ThreadPosted {
    fn drop(&mut self) {
        POSTED_ENTRIES.fetch_sub(self.0.borrow().len(), Ordering::Relaxed);
    }
}

/// Entries in all threads' lists: while it is 0 no thread needs to look at its own (one
/// shared load instead of a thread-local access, which costs a call into the dynamic loader).
static POSTED_ENTRIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

thread_local! {
    static POSTED_BY_THIS_THREAD: ThreadPosted = const { ThreadPosted(std::cell::RefCell::new(Vec::new())) };
}

/// Remembers that this thread posted a receive on endpoint `local` of `shared`, so that its
/// blocking calls on other communicators keep that receive progressing.
fn note_posted(shared: &Arc<CommShared>, local: u32) {
    POSTED_BY_THIS_THREAD.with(|list| {
        let mut list = list.0.borrow_mut();
        let known = list
            .iter()
            .any(|(w, l)| *l == local && std::ptr::eq(w.as_ptr(), Arc::as_ptr(shared)));
        if !known {
            list.push((Arc::downgrade(shared), local));
            POSTED_ENTRIES.fetch_add(1, Ordering::Relaxed);
        }
    });
}

/// Progress for the receives this thread posted on any communicator: called by blocking calls
/// while they wait. Matching is per communicator and a blocked call drains only its own, so
/// without this an endpoint blocked in, say, a synchronous send on one communicator would never
/// match the large or synchronous message a peer sends it on another against a receive it
/// posted there, and two such endpoints would wait for each other forever. MPI's progress rule
/// (MPI 4.1 section 3.5) says a posted receive and its matching send complete whatever else the
/// receiver does. Endpoints without posted receives left, and freed communicators, drop out.
pub(crate) fn progress_posted_elsewhere() {
    if POSTED_ENTRIES.load(Ordering::Relaxed) == 0 {
        return;
    }
    let Ok(mut entries) =
        POSTED_BY_THIS_THREAD.try_with(|list| std::mem::take(&mut *list.0.borrow_mut()))
    else {
        return;
    };
    if entries.is_empty() {
        return;
    }
    let before = entries.len();
    entries.retain(|(weak, local)| {
        let Some(shared) = weak.upgrade() else {
            return false;
        };
        let Some(mut q) = shared.endpoints[*local as usize].queues.try_lock() else {
            return true;
        };
        if q.matching.posted_len() == 0 {
            return false;
        }
        // Errors belong to the calls on that communicator, which meet them again themselves.
        let _ = drain(&shared, *local, &mut q, Drain::All);
        q.matching.posted_len() > 0
    });
    POSTED_ENTRIES.fetch_sub(before - entries.len(), Ordering::Relaxed);
    let _ = POSTED_BY_THIS_THREAD.try_with(|list| {
        let mut list = list.0.borrow_mut();
        entries.append(&mut list); // entries noted meanwhile (none expected) are kept too
        *list = entries;
    });
}

/// Blocking receive (`EP_Recv`, the receive of `EP_Sendrecv`) without a posted-queue entry.
/// The endpoint's matching state has a single user, so the caller pulls messages in itself:
/// earlier posted receives take theirs first (in `arrive`), and the first unexpected match
/// is exactly the message a receive posted now would get (MPI 4.1 section 3.5).
#[inline]
pub fn recv_blocking(shared: &CommShared, local: u32, pattern: Pattern, buf: UserBuf) -> EpResult<Completion> {
    let mut c = Completion::default();
    recv_blocking_into(shared, local, pattern, buf, &mut c)?;
    Ok(c)
}

/// [`recv_blocking`] with the completion written to `out` (`EP_Recv`'s own, read back field
/// by field: see [`Catcher::out`]).
pub fn recv_blocking_into(
    shared: &CommShared,
    local: u32,
    pattern: Pattern,
    buf: UserBuf,
    out: &mut Completion,
) -> EpResult<()> {
    if pattern.source == PROC_NULL {
        *out = Completion::proc_null();
        return Ok(());
    }
    let how = Drain::for_pattern(shared, local, &pattern);
    let mut backoff = Backoff::new();
    loop {
        let (found, orphans) = {
            let mut q = shared.endpoints[local as usize].queues.lock();
            // The spin keeps the lock, handing it over only to a parked waiter: local senders
            // never take it, and locking afresh for every poll cost more than the poll.
            let found = loop {
                // Messages already queued (by this drain or, during a hand-over, another
                // thread's) come first; only then may a new packet be caught.
                if let Some(f) = q.matching.take_unexpected(&pattern) {
                    break Some(f);
                }
                let mut catcher = Catcher {
                    pattern: &pattern,
                    buf: &buf,
                    caught: false,
                    out: &mut *out,
                    closed: false,
                };
                let now = how.now_and_then_all(&mut q.polls);
                drain_catching(shared, local, &mut q, now, Some(&mut catcher))?;
                if catcher.caught {
                    return Ok(());
                }
                if let Some(f) = q.matching.take_unexpected(&pattern) {
                    break Some(f);
                }
                if !backoff.keep_spinning(how == Drain::All) {
                    break None;
                }
                MutexGuard::bump(&mut q);
            };
            (found, !q.orphans.is_empty())
        };
        if let Some((env, payload)) = found {
            if !matches!(payload, Payload::Remote { .. }) {
                *out = deliver_into(&buf, &env, payload)?;
                return Ok(());
            }
            let recv = RecvOp::new(buf, pattern);
            deliver(shared, &recv, &env, payload)?;
            *out = super::request::wait_recv_matched(shared, local, &recv)?;
            return Ok(());
        }
        if orphans {
            progress_orphans(shared, local)?;
        }
        if how == Drain::All {
            backoff.snooze_after_polling();
        } else {
            backoff.snooze();
        }
    }
}

/// Envelope and size of the first matching message, left in place (`EP_Iprobe`).
pub fn iprobe(shared: &CommShared, local: u32, pattern: Pattern) -> EpResult<Option<Completion>> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain(
        shared,
        local,
        &mut q,
        Drain::for_pattern(shared, local, &pattern),
    )?;
    Ok(q.matching.peek_unexpected(&pattern).map(|(env, p)| {
        let b = p.bytes();
        Completion {
            source: env.source,
            tag: env.tag,
            bytes: b,
            sent_bytes: b,
            ..Completion::default()
        }
    }))
}

/// The first matching message, removed from the queue (`EP_Improbe`).
pub fn improbe(
    shared: &CommShared,
    local: u32,
    pattern: Pattern,
) -> EpResult<Option<(Envelope, Payload)>> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain(
        shared,
        local,
        &mut q,
        Drain::for_pattern(shared, local, &pattern),
    )?;
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

#[cfg(test)]
mod tests {
    use super::{Drain, InlineData, INLINE_BYTES};

    /// Inline payloads keep every length's bytes, write exactly the bytes asked for (a
    /// truncated receive) and never touch the receive buffer beyond them.
    #[test]
    fn inline_data_moves_exactly_its_bytes() {
        let src: Vec<u8> = (1..=INLINE_BYTES as u8 + 7).collect();
        for len in 0..=INLINE_BYTES {
            for offset in [0, 3] {
                // SAFETY: `src` holds `INLINE_BYTES + 7` bytes, so `offset + len` stays inside it.
                let d = unsafe { InlineData::read_from(src.as_ptr().add(offset), len) };
                assert_eq!(d.data(), &src[offset..offset + len], "len {len}, offset {offset}");
                for n in [0, len / 2, len] {
                    let mut dst = vec![0xEEu8; INLINE_BYTES + 2];
                    // SAFETY: `dst` holds `INLINE_BYTES + 2` bytes and `1 + n <= INLINE_BYTES + 1`.
                    unsafe { d.write_to(dst.as_mut_ptr().add(1), n) };
                    assert_eq!(&dst[1..1 + n], &src[offset..offset + n], "len {len}, n {n}");
                    assert!(dst[0] == 0xEE && dst[1 + n..].iter().all(|&b| b == 0xEE), "len {len}, n {n}: wrote past the bytes");
                }
            }
        }
    }

    /// The progress rule's widening: a wait on a local source drains everything on every
    /// 16th poll of its endpoint and only its channel otherwise; a full drain stays full and
    /// does not count.
    #[test]
    fn local_waits_widen_every_16th_poll() {
        let mut polls = 0u32;
        let seen: Vec<Drain> = (0..32)
            .map(|_| Drain::LocalFrom(3).now_and_then_all(&mut polls))
            .collect();
        for (i, d) in seen.iter().enumerate() {
            let want = if (i + 1) % 16 == 0 {
                Drain::All
            } else {
                Drain::LocalFrom(3)
            };
            assert_eq!(*d, want, "poll {}", i + 1);
        }
        let before = polls;
        assert_eq!(Drain::All.now_and_then_all(&mut polls), Drain::All);
        assert_eq!(polls, before);
        assert_eq!(Drain::Local.now_and_then_all(&mut polls), Drain::Local);
    }
}
