//! Point-to-point: receives, probes, matching and the progress of one endpoint.
//!
//! Two transports feed one matching engine (`MatchQueues`) per endpoint, and both are drained
//! by the receiving endpoint's own thread while it is in a call, so the matching state has a
//! single user and no shared lock on the hot path:
//! * [`local`](super::transport::local): same-process senders push into the destination's
//!   lock-free inbox (data inline for small messages, a packed copy up to 8 KiB, else the
//!   sender's buffer, copied once by the receiver). No MPI call.
//! * [`remote`](super::transport::remote): the host MPI, with two pre-posted host receives per
//!   endpoint for headers and eager data; large and synchronous messages add a data message
//!   that goes straight from the sender's buffer into the receiver's.
//!
//! The transports sit below: they hand each arriving message to a closure of [`drain`]'s,
//! which matches it, and say how a send left, which [`send`] turns into a [`SendState`].
//!
//! By concern: [`queues`] (an endpoint's matching state, held by its communicator),
//! [`recv_op`] (the receive object), [`recv`] (receive operations), [`deliver`] (moving a
//! matched message into its receive), [`drain`] (pulling arrivals in and matching them),
//! [`catcher`] (the blocking receive's shortcut), [`send`] (send operations), [`probe`]
//! (blocking receive and probes); the progress of blocked calls is [`super::progress`]. What
//! a message carries is [`super::message`].
//!
//! The communicator holds `queues` (and through it `recv_op`), so those two know nothing of
//! communicators; the others are operations on a communicator, above it. Modules below this
//! facade name those submodules, never the facade.

mod catcher;
mod deliver;
pub(crate) mod drain;
mod probe;
pub(crate) mod queues;
pub(crate) mod recv;
pub(crate) mod recv_op;
pub(crate) mod send;

pub use deliver::deliver;
pub use drain::Drain;
pub use super::message::{Completion, Payload};
pub use probe::{bell_for, improbe, iprobe, recv_blocking, recv_blocking_into, wait_recv_matched};
pub use recv::{cancel_recv, post_recv};
pub use recv_op::RecvOp;
pub use send::{start_send, SendState};
