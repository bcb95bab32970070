//! Delivery: moving a matched message into its receive (unpacking, inline copies, the local
//! single copy, starting a rendezvous data receive).

use super::super::comm::CommShared;
use super::super::datatype::UserBuf;
use super::super::envelope::Envelope;
use super::super::message::{Completion, InlineData, LocalSend, Payload};
use super::super::share::{self, WorkList};
use super::super::shared_copy::SharedCopy;
use std::sync::Arc;
use super::super::transport::remote;
use super::recv_op::{HostRecv, RecvOp};
use crate::error::{EpResult, ERR_TRUNCATE};
use std::sync::atomic::Ordering;

pub(crate) fn completion_for(env: &Envelope, sent: u64, capacity: usize) -> Completion {
    let truncated = sent > capacity as u64;
    Completion {
        source: env.source,
        tag: env.tag,
        bytes: sent.min(capacity as u64),
        error: if truncated { ERR_TRUNCATE } else { 0 },
        sent_bytes: sent,
        cancelled: false,
    }
}

/// Unpacks a message's packed data into a user buffer (as much as fits) and says how the
/// receive ended.
#[inline(always)]
pub(super) fn unpack_message(buf: &UserBuf, env: &Envelope, data: &[u8]) -> EpResult<Completion> {
    super::super::fault::delivery(env)?;
    let c = completion_for(env, data.len() as u64, buf.bytes());
    buf.unpack_from(&data[..c.bytes as usize])?;
    Ok(c)
}

/// Moves packed bytes into a matched receive; a failure completes the receive with it.
pub(crate) fn deliver_bytes(recv: &RecvOp, env: &Envelope, data: &[u8]) {
    match unpack_message(&recv.buf, env, data) {
        Ok(c) => recv.finish(c),
        Err(e) => recv.fail(env, e),
    }
}

/// Moves an inline payload into a user buffer: a word at a time when the buffer is
/// contiguous, else unpacked.
#[inline(always)]
pub(super) fn deliver_inline(buf: &UserBuf, env: &Envelope, d: &InlineData) -> EpResult<Completion> {
    super::super::fault::delivery(env)?;
    if buf.info.contiguous() {
        let c = completion_for(env, d.len as u64, buf.bytes());
        // SAFETY: the user's buffer holds `bytes() >= c.bytes` contiguous bytes.
        unsafe { d.write_to(buf.data_ptr(), c.bytes as usize) };
        return Ok(c);
    }
    unpack_message(buf, env, d.data())
}

/// Copies `bytes` bytes of a local rendezvous send's data into `buf`: shared with the
/// receiver's or the sender's team if either has other members (docs/teams.md), else with the
/// sender itself when the copy is large and both buffers are contiguous
/// (`engine::shared_copy`), else alone.
fn copy_local(buf: &UserBuf, ls: &LocalSend, bytes: usize) -> EpResult<()> {
    let has_helpers = |l: &Arc<WorkList>| l.has_helpers();
    let team = ls.helpers.as_ref().is_some_and(has_helpers) || share::current_for(bytes).as_ref().is_some_and(has_helpers);
    if !team && SharedCopy::worth_sharing(bytes) && buf.info.contiguous() && ls.buf.info.contiguous() {
        // SAFETY: the send's buffer holds at least `bytes` bytes (the message) and the
        // receive's at least `bytes` (`completion_for` caps it to the capacity); the send
        // does not complete, nor the receive return, before the copy is over; a receive
        // buffer overlapping the send's is erroneous in MPI.
        unsafe { ls.shared_copy.run(ls.buf.data_ptr(), buf.data_ptr(), bytes) };
        return Ok(());
    }
    super::super::endpoint_team::split::copy(buf, &ls.buf, bytes, ls.helpers.as_ref())
}

/// Moves a matched message that is already in this process (inline, packed, or in a local
/// sender's buffer) into a user buffer.
#[inline(always)]
pub(super) fn deliver_into(buf: &UserBuf, env: &Envelope, payload: Payload) -> EpResult<Completion> {
    match payload {
        Payload::Inline(d) => deliver_inline(buf, env, &d),
        Payload::Eager(data) => unpack_message(buf, env, &data),
        Payload::Local(ls) => {
            let c = completion_for(env, ls.buf.bytes() as u64, buf.bytes());
            let result = super::super::fault::delivery(env).and_then(|()| copy_local(buf, &ls, c.bytes as usize));
            ls.done.store(true, Ordering::Release);
            ls.sender_bell.ring();
            result.map(|()| c)
        }
        Payload::Remote { .. } => unreachable!("remote data goes through a RecvOp"),
    }
}

/// Moves a matched message into a receive taken from the posted queue (or just made for
/// it); a failure completes the receive with the error (see [`RecvOp::fail`]), so its
/// waiter returns it and the call that drove the delivery goes on.
#[inline]
pub(crate) fn deliver_posted(shared: &CommShared, recv: &RecvOp, env: &Envelope, payload: Payload) {
    if let Err(e) = deliver(shared, recv, env, payload) {
        recv.fail(env, e);
    }
}

/// Moves a matched message into a receive; remote rendezvous data is requested from the host
/// and arrives later (see [`RecvOp::poll_host`]). Errors: the host's, when it cannot start
/// the data receive or unpack; the receive is then not complete (see [`deliver_posted`]).
pub fn deliver(
    shared: &CommShared,
    recv: &RecvOp,
    env: &Envelope,
    payload: Payload,
) -> EpResult<()> {
    match payload {
        Payload::Remote {
            proc,
            data_tag,
            bytes,
            part_bytes,
        } => {
            let c = completion_for(env, bytes, recv.buf.bytes());
            let op = remote::receive_data(&shared.remote, &recv.buf, proc, data_tag, bytes, part_bytes, c.error != 0)?;
            // The data lands in a buffer of the operation's own when it cannot go straight
            // into the user's (a truncated message, or a striped one into a non-contiguous
            // buffer), and is unpacked from there.
            let overflow = !op.keep().is_empty();
            let mut st = recv.state.lock();
            st.completion = c;
            st.host = Some(HostRecv { overflow, op });
            recv.host_pending.store(true, Ordering::Release);
            Ok(())
        }
        other => {
            let c = deliver_into(&recv.buf, env, other)?;
            recv.finish(c);
            Ok(())
        }
    }
}
