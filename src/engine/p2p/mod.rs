//! Point-to-point: receives, probes, matching and the progress of one endpoint.
//!
//! Two transports feed one matching engine (`MatchQueues`) per endpoint, and both are drained
//! by the receiving endpoint's own thread while it is in a call, so the matching state has a
//! single user and no shared lock on the hot path:
//! * [`local`](super::transport::local): same-process senders push into the destination's lock-free inbox (data inline
//!   for small messages, a packed copy up to 16 KiB, else the sender's buffer, copied once by
//!   the receiver). No MPI call.
//! * [`remote`](super::transport::remote): the host MPI, with two pre-posted host receives per endpoint for headers and
//!   eager data; large and synchronous messages add a data message that goes straight from
//!   the sender's buffer into the receiver's.
//!
//! By concern: [`payload`] (what a message carries), [`recv`] (receive operations), [`deliver`]
//! (moving a matched message into its receive), [`drain`] (pulling arrivals in and matching
//! them), [`catcher`] (the blocking receive's shortcut), [`send`] (send operations), [`probe`]
//! (blocking receive and probes); the progress of blocked calls is [`super::progress`].

mod catcher;
mod deliver;
mod drain;
mod payload;
mod probe;
mod recv;
mod send;

use super::matching::MatchQueues;
use super::transport::remote;
use std::sync::Arc;

pub use catcher::Catcher;
pub(crate) use deliver::deliver_bytes;
pub use deliver::deliver;
pub(crate) use drain::{arrive, drain};
pub use drain::Drain;
pub use payload::{InlineData, LocalSend, Payload};
pub use probe::{improbe, iprobe, recv_blocking, recv_blocking_into};
pub use recv::{cancel_recv, post_recv, Completion, RecvOp};
pub use send::{start_send, SendState};

/// The matching state of one endpoint. Only the endpoint's own thread touches it (other
/// endpoints deliver through its inbox), so its lock is never contended.
#[derive(Default)]
pub struct Queues {
    pub matching: MatchQueues<Arc<RecvOp>, Payload>,
    /// The pre-posted host receives for remote headers and eager data.
    pub remote_rx: Option<remote::PrePosted>,
    /// Requests freed while active (`EP_Request_free`), completed by progress.
    pub orphans: Vec<Arc<super::request::Request>>,
    /// Registered with the process as having posted receives (see
    /// [`super::progress::register_pending`]).
    pub registered: bool,
    /// Polls by calls that drain less than everything (see [`Drain::now_and_then_all`]).
    pub polls: u32,
}
