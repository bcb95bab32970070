//! The matching state of one endpoint: its posted and unexpected queues, the pre-posted host
//! receives of the remote transport, and the requests freed while active.
//!
//! Below the communicator, which holds one per endpoint: this module knows nothing of
//! communicators, so the operations that take a communicator (receives, draining, progress)
//! sit above it. Freed requests are kept type-erased ([`Orphan`]): a request holds its
//! endpoint, which holds these queues.

use super::recv_op::RecvOp;
use crate::engine::matching::MatchQueues;
use crate::engine::message::Payload;
use crate::engine::transport::remote::PrePosted;
use std::any::Any;
use std::sync::Arc;

/// A request freed while active (`EP_Request_free`), completed by its endpoint's progress.
pub trait Orphan: Any + Send + Sync {
    /// True once the operation is complete, tested without progress. An error counts as
    /// complete: no handle is left to report it.
    fn is_complete(&self) -> bool;
}

/// The matching state of one endpoint. Only the endpoint's own thread touches it (other
/// endpoints deliver through its inbox), so its lock is never contended.
#[derive(Default)]
pub struct Queues {
    pub matching: MatchQueues<Arc<RecvOp>, Payload>,
    /// The pre-posted host receives for remote headers and eager data.
    pub remote_rx: Option<PrePosted>,
    /// Requests freed while active (`EP_Request_free`), completed by progress.
    pub orphans: Vec<Arc<dyn Orphan>>,
    /// Registered with the process as having posted receives (see
    /// [`crate::engine::pending::register_pending`]).
    pub registered: bool,
    /// Polls by calls that drain less than everything (see
    /// [`super::drain::Drain::now_and_then_all`]).
    pub polls: u32,
}
