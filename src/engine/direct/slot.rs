//! A nonblocking direct receive's state, and the list that progresses the pending ones.
//!
//! A receive posted with `EP_Irecv` is the host's `MPI_Irecv` at once ([`super::landing`]);
//! when a notice lands, the receive goes on with the announced data
//! ([`Transfer`](super::transfer::Transfer)). Its sender waits for that second receive (the
//! data goes by rendezvous), so a notice must not wait for the receive's owner to test it
//! (MPI 4.1 section 3.5, progress): every posted receive is listed in [`PENDING`], which any
//! patient wait in the library tests ([`progress_pending`]). The list also keeps a freed or
//! dropped receive until its host receive is over: the bounce buffer it lands in is the
//! slot's.

use super::landing::{self, Bounce, Landed};
use super::transfer::{DirectMessage, Transfer};
use super::comm::DirectComm;
use crate::engine::datatype::{HeldType, UserBuf};
use crate::engine::envelope::Pattern;
use crate::engine::message::Completion;
use crate::engine::orphanage::Orphanage;
use crate::error::EpResult;
use crate::host::{check, sys, HostRequest};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One nonblocking receive: where its data goes and how far it is.
pub(super) struct Slot {
    buf: UserBuf,
    /// The duplicate of a derived datatype that `buf` names, when the receive made one: the
    /// program may free its own while the receive is pending (MPI 4.1 section 5.1.9). Shared
    /// with the slot's transfer, which may outlive the slot.
    held: Option<Arc<HeldType>>,
    state: Mutex<SlotState>,
}

enum SlotState {
    /// The host receive on the direct communicator, into the user's buffer or `bounce`.
    Posted {
        /// Kept alive for a freed receive whose endpoint goes first: a notice's data is
        /// received on its data communicator.
        comm: Arc<DirectComm>,
        request: HostRequest,
        bounce: Option<Box<Bounce>>,
        /// `MPI_Cancel` was called: the completion may be a cancellation.
        cancelling: bool,
    },
    /// The receive of a known message: announced data, or a message a probe took.
    Receiving(Transfer),
    /// The outcome; an error of the host receive or the transfer is this receive's own.
    Done(EpResult<Completion>),
}

/// Posted receives of every direct communicator, and freed ones not yet complete.
static PENDING: Orphanage<Arc<Slot>> = Orphanage::new();
/// `PENDING`'s length at which a post first drops the receives that are over: posts whose
/// owners only test their own requests would otherwise grow the list without bound.
static PRUNE_AT: AtomicUsize = AtomicUsize::new(PRUNE_MIN);
const PRUNE_MIN: usize = 64;

impl Slot {
    /// Posts a receive of a message matching `pattern` into `buf` on `comm`'s direct host
    /// communicator and lists it; `held` keeps `buf`'s datatype valid, when it is a duplicate.
    /// Errors: a failed host call.
    pub(super) fn post(comm: &Arc<DirectComm>, pattern: &Pattern, buf: &UserBuf, held: Option<Arc<HeldType>>) -> EpResult<Arc<Slot>> {
        let mut bounce = (!landing::fits_user(buf)).then(|| {
            // SAFETY: a `Bounce` is an array of `MaybeUninit` bytes, which need no
            // initialisation.
            unsafe { Box::<Bounce>::new_uninit().assume_init() }
        });
        let at = bounce.as_deref_mut().map_or(std::ptr::null_mut(), |b| b as *mut Bounce);
        // SAFETY: `buf` is the receive's buffer (the caller's `UserBuf` contract); the bounce
        // buffer is on the heap, so moving its box into the slot does not move it, and the
        // slot keeps it until the host receive completes (a slot leaves `PENDING` only then,
        // and the owner's drop cancels it first).
        let request = unsafe { landing::post(comm.host, pattern, buf, at)? };
        let slot = Arc::new(Slot {
            buf: *buf,
            held,
            state: Mutex::new(SlotState::Posted { comm: comm.clone(), request, bounce, cancelling: false }),
        });
        let listed = PENDING.waiting() + 1;
        PENDING.adopt([slot.clone()]);
        if listed >= PRUNE_AT.load(Ordering::Relaxed) {
            progress_pending();
            PRUNE_AT.store((2 * PENDING.waiting()).max(PRUNE_MIN), Ordering::Relaxed);
        }
        Ok(slot)
    }

    /// A receive of a known message (taken by a probe or announced), already in flight;
    /// `held` as for [`Slot::post`]. Errors: starting the transfer.
    pub(super) fn receiving(msg: DirectMessage, buf: &UserBuf, held: Option<Arc<HeldType>>) -> EpResult<Slot> {
        let transfer = Transfer::start(msg, buf, held.clone())?;
        Ok(Slot { buf: *buf, held, state: Mutex::new(SlotState::Receiving(transfer)) })
    }

    /// The outcome once complete; `None` while in flight (tests the host once).
    pub(super) fn test(&self) -> EpResult<Option<Completion>> {
        let mut st = self.state.lock();
        self.advance(&mut st)
    }

    /// Moves the state on as far as the host allows; the outcome once done.
    fn advance(&self, st: &mut SlotState) -> EpResult<Option<Completion>> {
        loop {
            let next = match st {
                SlotState::Done(r) => return r.clone().map(Some),
                SlotState::Receiving(t) => match t.test() {
                    Ok(None) => return Ok(None),
                    Ok(Some(c)) => SlotState::Done(Ok(c)),
                    Err(e) => SlotState::Done(Err(e)),
                },
                SlotState::Posted { comm, request, bounce, cancelling } => {
                    let mut flag = 0;
                    let mut status = super::empty_status();
                    // SAFETY: `request` is the slot's started host receive; the host writes
                    // it, `flag` and `status`, all live.
                    let rc = unsafe { sys::MPI_Test(&mut request.0, &mut flag, &mut status) };
                    if rc == 0 && flag == 0 {
                        return Ok(None);
                    }
                    let at = bounce.as_deref().map_or(std::ptr::null(), |b| b as *const Bounce);
                    match check(rc, "MPI_Test (receive)") {
                        Err(e) => SlotState::Done(Err(e)),
                        Ok(()) if *cancelling && was_cancelled(&status) => {
                            SlotState::Done(Ok(Completion { cancelled: true, ..Completion::default() }))
                        }
                        // SAFETY: the receive was posted by `landing::post` with this buffer
                        // and bounce buffer, still held here, and is complete.
                        Ok(()) => match unsafe { landing::landed(&status, &self.buf, at, comm.data) } {
                            Ok(Landed::Done(c)) => SlotState::Done(Ok(c)),
                            Ok(Landed::Announced(m)) => match Transfer::start(m, &self.buf, self.held.clone()) {
                                Ok(t) => SlotState::Receiving(t),
                                Err(e) => SlotState::Done(Err(e)),
                            },
                            Err(e) => SlotState::Done(Err(e)),
                        },
                    }
                }
            };
            // Replacing the state drops what is over: the bounce buffer, a completed transfer,
            // the communicator (the transfer's host request keeps the host's alive: MPI 4.1
            // section 7.4.3, freeing waits for pending operations).
            *st = next;
        }
    }

    /// Asks the host to cancel the receive if it is still posted (MPI 4.1 section 3.8.4); the
    /// completion then says whether it was.
    pub(super) fn cancel(&self) -> EpResult<()> {
        let mut st = self.state.lock();
        if let SlotState::Posted { request, cancelling, .. } = &mut *st {
            if !*cancelling {
                // SAFETY: `request` is the slot's started host receive; the host may write it.
                check(unsafe { sys::MPI_Cancel(&mut request.0) }, "MPI_Cancel")?;
                *cancelling = true;
            }
        }
        Ok(())
    }

    /// True while the host receive on the direct communicator is posted (tests it once when
    /// no other thread holds the slot; a held slot counts as posted).
    fn still_posted(&self) -> bool {
        let Some(mut st) = self.state.try_lock() else {
            return true;
        };
        let _ = self.advance(&mut st);
        matches!(*st, SlotState::Posted { .. })
    }
}

/// True when the completed receive of `status` was cancelled.
fn was_cancelled(status: &sys::MPI_Status) -> bool {
    let mut flag = 0;
    // SAFETY: `status` is a completed receive's; the host writes `flag`, a live local.
    unsafe { sys::MPI_Test_cancelled(status, &mut flag) };
    flag != 0
}

/// How many receives are listed (a hint, read without the list's lock).
pub(super) fn pending() -> usize {
    PENDING.waiting()
}

/// Tests every listed receive once and unlists those past their host receive on the direct
/// communicator (a notice's data then waits in the host, which needs no help). Errors stay
/// with the receives. Thread safety: any thread.
pub(super) fn progress_pending() {
    PENDING.progress(|s| s.still_posted());
}
