//! Receive operations: posting and cancelling.

use super::super::comm::CommShared;
use super::super::datatype::UserBuf;
use super::super::envelope::{Pattern, PROC_NULL};
use super::super::message::Completion;
use super::super::pending::register_pending;
use super::deliver::deliver_posted;
use super::drain::locked_and_drained;
use super::recv_op::RecvOp;
use crate::error::EpResult;
use std::sync::Arc;

/// Posts a receive on endpoint `local`: matches the first fitting unexpected message, or
/// joins the posted queue.
pub fn post_recv(
    shared: &Arc<CommShared>,
    local: u32,
    pattern: Pattern,
    buf: UserBuf,
) -> EpResult<Arc<RecvOp>> {
    if pattern.source == PROC_NULL {
        return Ok(RecvOp::completed(buf, Completion::proc_null()));
    }
    let recv = RecvOp::new(buf, pattern);
    let mut q = locked_and_drained(shared, local, &pattern)?;
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
