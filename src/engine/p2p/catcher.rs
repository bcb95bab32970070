//! The catcher: a blocking receive that takes its message straight from the transport while
//! its endpoint drains, skipping the unexpected queue.

use super::super::comm::CommShared;
use super::super::datatype::UserBuf;
use super::super::envelope::{Envelope, Pattern};
use super::super::message::{Completion, Payload};
use super::super::transport::local::LocalMessage;
use super::deliver::{deliver_inline, deliver_into, deliver_posted, unpack_message};
use super::queues::Queues;
use crate::error::EpResult;

/// A blocking receive waiting while its endpoint drains: an eager remote packet that no
/// posted receive takes and that it matches goes straight from the host's receive buffer
/// into the user's, skipping the unexpected queue.
pub struct Catcher<'a> {
    pub pattern: &'a Pattern,
    pub buf: &'a UserBuf,
    /// Set once a message was caught; its completion is then in `out`.
    pub caught: bool,
    /// Where the caught message's completion goes: the blocking receive's own result, so
    /// that it is written once, field by field, and read back the same way (a completion
    /// moved as a whole after field-wise writes stalled the store forwarding).
    pub out: &'a mut Completion,
    /// Set once a message this receive matches went to the unexpected queue: that one is
    /// the receive's, and no later message may be caught past it (MPI 4.1 section 3.5,
    /// non-overtaking).
    pub closed: bool,
}

impl Catcher<'_> {
    /// Takes packed data if it matches and nothing was caught yet.
    pub(crate) fn try_catch(&mut self, env: &Envelope, data: &[u8]) -> EpResult<bool> {
        if self.caught || self.closed || !self.pattern.matches(env) {
            return Ok(false);
        }
        *self.out = unpack_message(self.buf, env, data)?;
        self.caught = true;
        Ok(true)
    }

    /// Notes a message queued as unexpected (see `closed`).
    pub(crate) fn queued(&mut self, env: &Envelope) {
        if self.pattern.matches(env) {
            self.closed = true;
        }
    }

    /// A message from a local sender, still in its channel's cell (`m`, which this takes):
    /// to the first posted receive it matches, else into the blocking receive's buffer, else
    /// onto the unexpected queue. Catching skips the queue's moves of the message, a good
    /// part of a same-process message's cost; an inline payload goes from the cell straight
    /// into the user's buffer.
    #[inline(always)]
    pub(crate) fn offer_local(
        &mut self,
        shared: &CommShared,
        q: &mut Queues,
        m: *mut LocalMessage,
    ) -> EpResult<()> {
        // SAFETY: the channel hands the message over (`Channel::take_with`): its envelope is
        // copied and its payload read once, by reference when it owns nothing (inline).
        let env = unsafe { (*m).envelope };
        // SAFETY: only the field's address is taken, from the message the channel handed over.
        let payload = unsafe { std::ptr::addr_of_mut!((*m).payload) };
        if let Some(recv) = q.matching.take_posted(&env) {
            // SAFETY: the payload is read (moved out) once, on this path only.
            deliver_posted(shared, &recv, &env, unsafe { payload.read() });
            return Ok(());
        }
        if !self.caught && !self.closed && self.pattern.matches(&env) {
            // An inline payload owns nothing: it is read where it lies, not moved out.
            // SAFETY: a shared look at the payload in its cell; the `Inline` arm leaves it there
            // (`InlineData` is `Copy` and owns nothing).
            *self.out = match unsafe { &*payload } {
                Payload::Inline(d) => deliver_inline(self.buf, &env, d)?,
                // SAFETY: the payload is read (moved out) once, on this path only.
                _ => deliver_into(self.buf, &env, unsafe { payload.read() })?,
            };
            self.caught = true;
            return Ok(());
        }
        self.queued(&env);
        // SAFETY: the payload is read (moved out) once, on this path only.
        q.matching.push_unexpected(env, unsafe { payload.read() });
        Ok(())
    }
}
