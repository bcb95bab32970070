//! The object behind a receive request: posted, matched, or complete, and how it completes.
//!
//! Below the communicator: an endpoint's posted queue holds these ([`super::queues`]), so
//! this module knows nothing of communicators or of how messages arrive.

use crate::engine::datatype::{HeldType, UserBuf};
use crate::engine::envelope::{Envelope, Pattern};
use crate::engine::host_op::HostOp;
use crate::engine::message::Completion;
use crate::error::{EpError, EpResult};
use crate::engine::spare::{self, Spares};
use crate::engine::spinlock::SpinMutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Host part of a receive whose data comes by rendezvous.
pub(super) struct HostRecv {
    /// The data receive, and the buffer it fills when the message is longer than the
    /// receive buffer (empty otherwise: the data then lands in the user's buffer).
    pub(super) op: HostOp,
    /// The data lands in `op`'s buffer first.
    pub(super) overflow: bool,
}

pub(super) struct RecvState {
    pub(super) completion: Completion,
    pub(super) host: Option<HostRecv>,
}

/// A receive: posted, matched, or complete. Shared by the request and, while posted, by the
/// endpoint's posted queue; only the endpoint's thread changes it, but the request handle can
/// be tested from any thread, hence the atomics and the lock.
pub struct RecvOp {
    pub buf: UserBuf,
    /// The duplicate of `buf`'s derived datatype that `buf` names, when the receive made one
    /// ([`RecvOp::holding`]): the program may free its own while the receive is pending.
    held: Option<HeldType>,
    pub pattern: Pattern,
    pub(super) done: AtomicBool,
    /// Set once rendezvous data is on its way through the host: only then does polling
    /// need the state lock.
    pub(super) host_pending: AtomicBool,
    pub(super) state: SpinMutex<RecvState>,
}

// SAFETY: UserBuf is Send/Sync (see datatype.rs); the state is behind a mutex.
unsafe impl Send for RecvOp {}
// SAFETY: as for `Send`: shared access reads `buf`, `pattern` and the atomics, and
// changes the rest under `state`'s mutex.
unsafe impl Sync for RecvOp {}

// SAFETY: nothing downgrades an `Arc<RecvOp>` (its request and the posted queue hold it
// strongly).
unsafe impl spare::NeverWeak for RecvOp {}

thread_local! {
    /// This thread's spare receive allocations (see [`crate::engine::spare`]).
    static SPARE_RECVS: Spares<RecvOp> = const { Spares::new() };
}

impl RecvOp {
    /// A posted receive into `buf` for messages that match `pattern`; its allocation is one
    /// the thread kept when there is one.
    pub fn new(buf: UserBuf, pattern: Pattern) -> Arc<RecvOp> {
        RecvOp::with_held(buf, None, pattern)
    }

    /// [`RecvOp::new`] for a receive that may outlive the call that posts it (a nonblocking
    /// receive): on a duplicate of a derived datatype, which the receive keeps (MPI 4.1
    /// section 5.1.9: the program may free its datatype while the receive is pending).
    /// Errors: `EP_ERR_TYPE` when the host cannot duplicate the datatype.
    pub fn holding(buf: UserBuf, pattern: Pattern) -> EpResult<Arc<RecvOp>> {
        let (buf, held) = HeldType::hold_buf(buf)?;
        Ok(RecvOp::with_held(buf, held, pattern))
    }

    /// [`RecvOp::new`] on a buffer whose datatype `held` keeps valid when it is a copy (made
    /// by [`HeldType::hold_buf`]).
    pub fn with_held(buf: UserBuf, held: Option<HeldType>, pattern: Pattern) -> Arc<RecvOp> {
        spare::wrap(
            &SPARE_RECVS,
            RecvOp {
                buf,
                held,
                pattern,
                done: AtomicBool::new(false),
                host_pending: AtomicBool::new(false),
                state: SpinMutex::new(RecvState {
                    completion: Completion::default(),
                    host: None,
                }),
            },
        )
    }

    /// Ends the life of a receive whose request is gone: its allocation is kept for the
    /// thread's next receive when nothing else (the posted queue, a cancel) refers to it,
    /// emptied of its host operation. Any thread.
    pub fn recycle(r: Arc<RecvOp>) {
        spare::keep(&SPARE_RECVS, r, |r| {
            r.state.get_mut().host = None;
            r.held = None;
        });
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

    pub(super) fn finish(&self, c: Completion) {
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

    /// True when the receive is neither done nor waiting for host data, so that only a
    /// delivery can change it and testing it would find it incomplete (see [`Self::poll_host`]).
    #[inline]
    pub fn awaits_message(&self) -> bool {
        !self.is_done() && !self.host_pending.load(Ordering::Acquire)
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
            Ok(true) if h.overflow => {
                // The message is longer than the buffer (truncated), or striped into a
                // non-contiguous buffer it may not fill.
                let keep = h.op.keep();
                self.buf.unpack_from(&keep[..keep.len().min(self.buf.bytes())])
            }
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
