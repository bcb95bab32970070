//! Matching in posting order for direct mode's nonblocking receives.
//!
//! A nonblocking receive is not handed to the host's `MPI_Irecv` (see `direct`'s module notes:
//! the host may write a truncated message past the buffer); it waits in its communicator's
//! queue of posted receives until a matched probe finds its message. With one receive posted
//! and nothing taken, that receive's own `MPI_Improbe` is MPI's matching. With more, probing
//! each receive by itself would let a later receive take a message an earlier one matches
//! (MPI 4.1 section 3.5: a wildcard receive posted before a specific one gets the earlier
//! message, whichever request is tested first), so progress then takes every arrived message
//! out of the host (`MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG)`, in the host's order, which
//! keeps each sender's order) and gives each to the first posted receive it matches; the
//! messages no receive wants stay taken, in order, for later receives and probes. Probes
//! look there after the same step, so that none sees a message a pending receive matches.
//! Only when nothing is posted and nothing taken do receives and probes go straight to the
//! host ([`DirectComm::queued`] is zero).
//!
//! Progress rule (MPI 4.1 section 3.5): a receive matched here starts its host transfer at
//! once, and the communicators with posted receives are listed so that any patient wait
//! matches them too ([`super::progress_elsewhere`]): a rendezvous sender waits for the
//! matching receive to start.

use super::transfer::{DirectMessage, Transfer};
use super::{improbe, ANY};
use crate::engine::datatype::UserBuf;
use crate::engine::envelope::Pattern;
use crate::engine::message::Completion;
use crate::error::EpResult;
use crate::host::{self, HostComm};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// The host side of a communicator in direct mode: its own host communicator (host rank =
/// endpoint rank) and the matching state of its one endpoint in this process.
pub struct DirectComm {
    pub(super) host: HostComm,
    /// Posted receives plus taken messages, written under `queues`' lock. Zero lets a receive
    /// or probe go straight to the host: only the endpoint's own thread posts, so it cannot
    /// become non-zero behind that thread's back.
    queued: AtomicUsize,
    queues: Mutex<Queues>,
}

#[derive(Default)]
struct Queues {
    /// Receives not yet matched, in posting order.
    posted: VecDeque<Arc<Slot>>,
    /// Messages taken out of the host's matching that no posted receive matched, in the
    /// host's order.
    taken: VecDeque<DirectMessage>,
    /// Listed in [`WAITING`].
    listed: bool,
}

/// One nonblocking receive: what it matches, where its data goes, how far it is.
pub(super) struct Slot {
    pub(super) pattern: Pattern,
    pub(super) buf: UserBuf,
    state: Mutex<SlotState>,
}

enum SlotState {
    Posted,
    Receiving(Transfer),
    /// The outcome; an error starting or completing the transfer is this receive's own.
    Done(EpResult<Completion>),
}

impl Slot {
    /// A receive waiting for its message.
    pub(super) fn posted(pattern: Pattern, buf: UserBuf) -> Slot {
        Slot {
            pattern,
            buf,
            state: Mutex::new(SlotState::Posted),
        }
    }

    /// A receive of a message taken by a matched probe, already in flight.
    pub(super) fn receiving(buf: UserBuf, t: Transfer) -> Slot {
        Slot {
            pattern: super::ANY,
            buf,
            state: Mutex::new(SlotState::Receiving(t)),
        }
    }

    /// The outcome once complete; `None` while posted or in flight (tests the transfer once).
    pub(super) fn test(&self) -> EpResult<Option<Completion>> {
        let mut st = self.state.lock();
        let done = match &mut *st {
            SlotState::Posted => return Ok(None),
            SlotState::Done(r) => return r.clone().map(Some),
            SlotState::Receiving(t) => match t.test() {
                Ok(None) => return Ok(None),
                Ok(Some(c)) => Ok(c),
                Err(e) => Err(e),
            },
        };
        // Replacing the state drops the transfer (complete, or handed to the orphans).
        *st = SlotState::Done(done.clone());
        done.map(Some)
    }

    pub(super) fn is_posted(&self) -> bool {
        matches!(*self.state.lock(), SlotState::Posted)
    }

    /// Starts the transfer of the message matched to this receive.
    fn matched(&self, msg: DirectMessage) {
        let next = match Transfer::start(msg, &self.buf) {
            Ok(t) => SlotState::Receiving(t),
            Err(e) => SlotState::Done(Err(e)),
        };
        *self.state.lock() = next;
    }

    /// Marks a withdrawn receive cancelled (MPI 4.1 section 3.8.4).
    fn cancelled(&self) {
        *self.state.lock() = SlotState::Done(Ok(Completion {
            cancelled: true,
            ..Completion::default()
        }));
    }
}

/// Communicators with posted receives, for [`progress_waiting`].
static WAITING: Mutex<Vec<Weak<DirectComm>>> = Mutex::new(Vec::new());
static WAITING_COUNT: AtomicUsize = AtomicUsize::new(0);

impl DirectComm {
    pub(super) fn new(host: HostComm) -> DirectComm {
        DirectComm {
            host,
            queued: AtomicUsize::new(0),
            queues: Mutex::new(Queues::default()),
        }
    }

    /// Posted receives plus taken messages (see the field).
    #[inline(always)]
    pub(super) fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    fn recount(&self, q: &Queues) {
        self.queued
            .store(q.posted.len() + q.taken.len(), Ordering::Release);
    }

    /// Appends a receive to the posted ones.
    pub(super) fn post(self: &Arc<Self>, slot: Arc<Slot>) {
        let mut q = self.queues.lock();
        q.posted.push_back(slot);
        self.recount(&q);
        if !q.listed {
            q.listed = true;
            let mut w = WAITING.lock();
            w.push(Arc::downgrade(self));
            WAITING_COUNT.store(w.len(), Ordering::Relaxed);
        }
    }

    /// Takes a receive out of the posted ones: true if it was there (not matched yet).
    pub(super) fn withdraw(&self, slot: &Arc<Slot>) -> bool {
        let mut q = self.queues.lock();
        let found = match q.posted.iter().position(|s| Arc::ptr_eq(s, slot)) {
            Some(i) => q.posted.remove(i).is_some(),
            None => false,
        };
        self.recount(&q);
        found
    }

    /// Cancels a posted receive unless a message has arrived that it matches (MPI 4.1
    /// section 3.8.4: the receive then completes instead). Errors: a failed host probe.
    pub(super) fn cancel(&self, slot: &Arc<Slot>) -> EpResult<()> {
        let mut q = self.queues.lock();
        self.progress_locked(&mut q, false)?;
        if let Some(i) = q.posted.iter().position(|s| Arc::ptr_eq(s, slot)) {
            q.posted.remove(i);
            self.recount(&q);
            slot.cancelled();
        }
        Ok(())
    }

    /// Matches posted receives with arrived messages (see the module notes).
    pub(super) fn progress(&self) -> EpResult<()> {
        let mut q = self.queues.lock();
        self.progress_locked(&mut q, false)
    }

    /// `progress`; with `take_all`, every arrived message is taken out of the host even when
    /// one receive is posted (probes need it: see the module notes). Errors: a failed host
    /// probe (the communicator's, not any receive's).
    fn progress_locked(&self, q: &mut Queues, take_all: bool) -> EpResult<()> {
        let r = self.match_arrived(q, take_all);
        self.recount(q);
        r
    }

    fn match_arrived(&self, q: &mut Queues, take_all: bool) -> EpResult<()> {
        if q.posted.is_empty() && !take_all {
            return Ok(());
        }
        if q.posted.len() == 1 && q.taken.is_empty() && !take_all {
            if let Some(m) = improbe(self.host, &q.posted[0].pattern)? {
                if let Some(slot) = q.posted.pop_front() {
                    slot.matched(m);
                }
            }
            return Ok(());
        }
        while let Some(m) = improbe(self.host, &ANY)? {
            q.taken.push_back(m);
        }
        let mut i = 0;
        while i < q.taken.len() && !q.posted.is_empty() {
            let env = q.taken[i].envelope;
            match q.posted.iter().position(|s| s.pattern.matches(&env)) {
                Some(j) => {
                    let slot = q.posted.remove(j);
                    let msg = q.taken.remove(i);
                    if let (Some(slot), Some(msg)) = (slot, msg) {
                        slot.matched(msg);
                    }
                }
                None => i += 1,
            }
        }
        Ok(())
    }

    /// After matching, the status of the first taken message `pattern` matches, left in
    /// place (`EP_Iprobe` while receives are queued).
    pub(super) fn peek_queued(&self, pattern: &Pattern) -> EpResult<Option<Completion>> {
        let mut q = self.queues.lock();
        self.progress_locked(&mut q, true)?;
        Ok(q.taken
            .iter()
            .find(|m| pattern.matches(&m.envelope))
            .map(DirectMessage::completion))
    }

    /// After matching, the first taken message `pattern` matches, removed (`EP_Improbe`
    /// while receives are queued).
    pub(super) fn take_queued(&self, pattern: &Pattern) -> EpResult<Option<DirectMessage>> {
        let mut q = self.queues.lock();
        self.progress_locked(&mut q, true)?;
        let found = q
            .taken
            .iter()
            .position(|m| pattern.matches(&m.envelope))
            .and_then(|i| q.taken.remove(i));
        self.recount(&q);
        Ok(found)
    }
}

impl Drop for DirectComm {
    fn drop(&mut self) {
        host::free_comm(self.host);
    }
}

/// Matches the posted receives of every direct communicator of the process whose queue is
/// free at the moment, and unlists those with none left. Errors stay with the communicator's
/// own calls. Thread safety: any thread.
pub(super) fn progress_waiting() {
    if WAITING_COUNT.load(Ordering::Relaxed) == 0 {
        return;
    }
    let comms: Vec<Arc<DirectComm>> = WAITING.lock().iter().filter_map(Weak::upgrade).collect();
    for c in &comms {
        let Some(mut q) = c.queues.try_lock() else {
            continue;
        };
        let _ = c.progress_locked(&mut q, false);
        if q.posted.is_empty() {
            q.listed = false;
            let mut w = WAITING.lock();
            w.retain(|x| x.strong_count() > 0 && !std::ptr::eq(x.as_ptr(), Arc::as_ptr(c)));
            WAITING_COUNT.store(w.len(), Ordering::Relaxed);
        }
    }
    if comms.is_empty() {
        let mut w = WAITING.lock();
        w.retain(|x| x.strong_count() > 0);
        WAITING_COUNT.store(w.len(), Ordering::Relaxed);
    }
}
