//! Persistent requests (MPI 4.1 section 3.9): a request made once by an `_init` call and
//! started many times by `EP_Start`/`EP_Startall`, each start beginning one round of the same
//! operation on the same arguments.
//!
//! A persistent request is an ordinary [`Request`] whose operation is [`Op::Persistent`]:
//! the description of the operation ([`Startable`], which `request` defines with the
//! [`Persistent`] state so that it needs nothing from here) and the round in progress, if any. Between
//! rounds the request is inactive: completion calls treat it as a null request (MPI 4.1
//! section 3.7.3) and leave its handle alone; completing a round makes it inactive again
//! rather than freeing it ([`Request::deactivate`]). An active round is tested, cancelled and
//! orphaned (`EP_Request_free` while active) as the operation it holds.
//!
//! The hook for other persistent operations: anything that implements [`Startable`] becomes a
//! persistent request through [`Request::persistent`] and is started by the same `EP_Start`
//! and `EP_Startall`, and completed by the same completion calls. Point-to-point sends and
//! receives implement it in the C interface (`ffi::persistent_api`, which knows the send and
//! receive paths); a persistent collective (MPI 4.1 sections 6.13 and 8.8,
//! `EP_Allreduce_init`...) is a [`Rounds`] whose function starts the nonblocking collective
//! on the arguments checked at init (an [`Op::Coll`] or [`Op::Neighbor`] round), with the
//! drain [`super::p2p::Drain::Local`] that nonblocking collectives use.

use super::comm::Endpoint;
use super::p2p::Drain;
use super::request::{Op, Persistent, Request, Startable};
use crate::ep_err;
use crate::error::{EpResult, ERR_REQUEST};
use parking_lot::Mutex;
use std::sync::Arc;

/// A persistent operation whose rounds a function makes: each start calls it on the
/// request's endpoint for a fresh round (a persistent collective keeps the arguments checked
/// at init inside the function, and each round joins the next collective of the
/// communicator). The lock makes a function that is only `Send` shareable; one start at a
/// time holds it.
pub struct Rounds<F>(Mutex<F>);

impl<F: FnMut(&Arc<Endpoint>) -> EpResult<Op> + Send> Rounds<F> {
    /// The persistent operation whose rounds `round` makes.
    pub fn new(round: F) -> Rounds<F> {
        Rounds(Mutex::new(round))
    }
}

impl<F: FnMut(&Arc<Endpoint>) -> EpResult<Op> + Send> Startable for Rounds<F> {
    fn start(&self, ep: &Arc<Endpoint>) -> EpResult<Op> {
        (self.0.lock())(ep)
    }
}

/// Persistent requests as [`Request`]s: made, started, deactivated.
impl Request {
    /// A new, inactive persistent request on endpoint `ep`; `drain` is what testing an active
    /// round pulls in (as for the nonblocking operation the round is, see [`Request::new`]).
    pub fn persistent(ep: Arc<Endpoint>, spec: Box<dyn Startable>, drain: Option<Drain>) -> Arc<Request> {
        Request::with_drain(ep, Op::Persistent(Persistent { spec, round: None }), drain, true)
    }

    /// Starts a round of an inactive persistent request (MPI 4.1 section 3.9). Errors:
    /// `EP_ERR_REQUEST` when the request is not persistent or is already active; those of the
    /// round's operation.
    pub fn start(&self) -> EpResult<()> {
        let Some(ep) = &self.ep else {
            return Err(ep_err!(ERR_REQUEST, "request is not a persistent request"));
        };
        let mut op = self.op.lock();
        match &mut *op {
            Op::Persistent(p) if p.round.is_some() => Err(ep_err!(
                ERR_REQUEST,
                "persistent request is already active (complete it before starting it again)"
            )),
            Op::Persistent(p) => {
                p.round = Some(Box::new(p.spec.start(ep)?));
                Ok(())
            }
            _ => Err(ep_err!(
                ERR_REQUEST,
                "request is not a persistent request (EP_Start takes those of the _init calls)"
            )),
        }
    }

    /// True for a request that completion calls must act on: any nonpersistent request, and a
    /// persistent one with a round in progress.
    #[inline]
    pub fn is_active(&self) -> bool {
        !self.persistent || matches!(&*self.op.lock(), Op::Persistent(p) if p.round.is_some())
    }

    /// True for a request made by [`Request::persistent`].
    #[inline]
    pub fn is_persistent(&self) -> bool {
        self.persistent
    }

    /// Ends the completed round of a persistent request: the request becomes inactive and may
    /// be started again. The caller has seen the round complete.
    pub fn deactivate(&self) {
        if let Op::Persistent(p) = &mut *self.op.lock() {
            p.round = None;
        }
    }
}
