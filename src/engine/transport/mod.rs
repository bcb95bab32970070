//! Transports: how a message reaches an endpoint, each with its whole protocol in its module.
//! * [`local`]: endpoints of the same process, through shared memory, no MPI call (inline,
//!   eager copy, single-copy rendezvous).
//! * [`landing`]: a blocking receive's buffer published to its local sender, which copies
//!   straight into it.
//! * [`remote`]: endpoints of other processes, through the host MPI (the wire header, eager
//!   packets, rendezvous with data tags, the pre-posted header receives).
//! * [`stripe`]: a remote rendezvous message sent in parts by the members of the sender's
//!   endpoint team (docs/teams.md).
//!
//! Direct mode, where the host matches by itself, is [`super::direct`].

pub mod landing;
pub mod local;
pub mod remote;
pub mod stripe;
