//! Receive operations: posting and cancelling.

use super::super::comm::CommShared;
use super::super::datatype::UserBuf;
use super::super::envelope::{Pattern, PROC_NULL};
use super::super::message::Completion;
use super::super::pending::register_pending;
use super::deliver::deliver_posted;
use super::drain::{drain, Drain};
use super::recv_op::RecvOp;
use crate::error::EpResult;
use std::sync::Arc;

/// Posts a receive on endpoint `local`: matches the first fitting unexpected message, or
/// joins the posted queue. With `type_held` false the receive keeps a duplicate of `buf`'s
/// derived datatype ([`RecvOp::holding`]); true when the caller keeps `buf`'s datatype valid
/// until the receive completes (a persistent request's own duplicate).
///
/// Only the local channels are drained first, not the host: a message still in the host is
/// matched when a later drain pulls it in, against the posted queue in posting order, and the
/// host's messages from one source come in order behind any of that source already queued, so
/// no receive matches differently (MPI 4.1 section 3.5 orders messages per source only). A
/// host poll per nonblocking receive would take the host's lock and progress each time:
/// windows of 64 `EP_Irecv` from another process (MPICH, one endpoint per process) take
/// 300-320 ns per message without it, 380-390 with it. Waits, tests and probes drain the host.
pub fn post_recv(
    shared: &Arc<CommShared>,
    local: u32,
    pattern: Pattern,
    buf: UserBuf,
    type_held: bool,
) -> EpResult<Arc<RecvOp>> {
    if pattern.source == PROC_NULL {
        return Ok(RecvOp::completed(buf, Completion::proc_null()));
    }
    let recv = if type_held { RecvOp::new(buf, pattern) } else { RecvOp::holding(buf, pattern)? };
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain(shared, local, &mut q, Drain::for_pattern(shared, local, &pattern).without_host())?;
    match q.matching.take_unexpected(&pattern) {
        Some((env, payload)) => {
            drop(q);
            deliver_posted(shared, &recv, &env, payload);
        }
        None => {
            q.matching.push_posted(pattern, recv.clone());
            register_pending(shared, local, &mut q);
        }
    }
    Ok(recv)
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
