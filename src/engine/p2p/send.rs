//! Send operations: starting a send on the transport its destination needs, and the state of
//! a started send.

use super::super::comm::CommShared;
use super::super::datatype::UserBuf;
use super::super::doorbell;
use super::super::envelope::Envelope;
use super::super::host_op::HostOp;
use super::super::message::LocalSend;
use super::super::rankmap::Location;
use super::super::spare;
use super::super::transport::{local, remote};
use crate::error::EpResult;
use crate::host::HostRequest;
use std::sync::Arc;

/// The state of a send after it started.
pub enum SendState {
    Done,
    Local(Arc<LocalSend>),
    /// A send through the host: its requests and the packet they read, owned together
    /// (dropped before completion, they go to the orphanage, see [`HostOp`]).
    Host(HostOp),
    /// A direct-mode send (see [`super::super::direct`]): the host completes it alone.
    Direct(HostRequest),
}

impl SendState {
    /// True once the send buffer may be reused (and, for synchronous sends, the receive
    /// has matched).
    pub fn test(&mut self) -> EpResult<bool> {
        match self {
            SendState::Done => Ok(true),
            SendState::Local(ls) => {
                if !ls.is_done() {
                    ls.help_copy();
                }
                Ok(ls.is_done())
            }
            SendState::Host(op) => {
                let done = op.test()?;
                if done {
                    if let SendState::Host(op) = std::mem::replace(self, SendState::Done) {
                        spare::keep_packet(op.into_keep());
                    }
                }
                Ok(done)
            }
            SendState::Direct(r) => super::super::direct::test_send(r),
        }
    }
}

/// Starts a send from endpoint `local` to the endpoint at `to`: the local transport when it
/// lives in this process, the host otherwise. `blocking` (the caller waits for the send to
/// complete before its call returns) lets a host send of a small message go out at once from
/// the caller's stack, and a local rendezvous send use the caller's datatype as it is.
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
        let sent = local::send(&shared.channels, local, to.local, env, buf, sync, blocking, &shared.endpoints[local as usize].bell)?;
        // The receiver may be parked waiting for this message. The policy is checked first so
        // that an active sender does not touch the receiver's endpoint state at all.
        if doorbell::passive() {
            shared.endpoints[to.local as usize].bell.ring();
        }
        Ok(match sent {
            local::Sent::Done => SendState::Done,
            local::Sent::Waiting(ls) => SendState::Local(ls),
        })
    } else {
        Ok(match remote::send(shared.host, &shared.remote, to, env, buf, sync, blocking)? {
            remote::Sent::Done => SendState::Done,
            remote::Sent::Host(op) => SendState::Host(op),
        })
    }
}
