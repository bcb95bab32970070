//! Draining: pulling arrived messages from the transports into an endpoint's matching state,
//! and matching each against the posted receives.

use super::super::comm::CommShared;
use super::super::envelope::{Envelope, Pattern};
use super::super::matching::MatchQueues;
use super::super::message::Payload;
use super::super::spinlock::SpinGuard;
use super::super::transport::local::{self, LocalMessage};
use super::super::transport::remote::{self, Arrival};
use super::catcher::Catcher;
use super::deliver::{deliver_bytes, deliver_posted};
use super::queues::Queues;
use super::recv_op::RecvOp;
use crate::error::EpResult;
use std::ops::ControlFlow;
use std::sync::Arc;

/// What a call must pull in before matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drain {
    /// One local sender's channel: the call names a source in this process.
    LocalFrom(u32),
    /// Every local channel.
    Local,
    /// The local inbox and the host: wildcard or remote source, and waits on sends.
    All,
}

impl Drain {
    /// The drain a receive or probe with this pattern needs. MPI orders messages per source
    /// only, so a receive naming a local source need not look at the host.
    pub fn for_pattern(shared: &CommShared, local: u32, pattern: &Pattern) -> Drain {
        match shared.peer_location(local, pattern.source) {
            Some(loc) if loc.proc == shared.my_proc => Drain::LocalFrom(loc.local),
            _ if !shared.is_multi_process() => Drain::Local,
            _ => Drain::All,
        }
    }

    /// This drain without the host: `All` becomes `Local`.
    #[inline]
    pub fn without_host(self) -> Drain {
        match self {
            Drain::All => Drain::Local,
            d => d,
        }
    }

    /// This drain, widened to `All` on every 16th poll of the endpoint (`polls` is its
    /// counter, kept in its matching state): a wait for a local source still pulls in remote
    /// headers now and then, so a peer blocked in a large send to this endpoint against an
    /// already posted receive completes, as MPI's progress rule requires (MPI 4.1 section
    /// 3.5). The counter lives beside the queues the caller has locked anyway: a thread-local
    /// cost a call into the dynamic loader on every poll.
    #[inline]
    pub fn now_and_then_all(self, polls: &mut u32) -> Drain {
        if self == Drain::All {
            return self;
        }
        *polls = polls.wrapping_add(1);
        if (*polls).is_multiple_of(16) {
            Drain::All
        } else {
            self
        }
    }
}

/// Matches one arrived message: into the first fitting posted receive (which a failed
/// delivery completes with its error), or onto the unexpected queue.
fn arrive(shared: &CommShared, matching: &mut MatchQueues<Arc<RecvOp>, Payload>, env: Envelope, payload: Payload) {
    match matching.take_posted(&env) {
        Some(recv) => deliver_posted(shared, &recv, &env, payload),
        None => matching.push_unexpected(env, payload),
    }
}

/// Locks endpoint `local`'s matching state and pulls in the arrivals `pattern` may match: the
/// start of every probe (a probe reports only what has been pulled in).
pub(super) fn locked_and_drained<'a>(shared: &'a CommShared, local: u32, pattern: &Pattern) -> EpResult<SpinGuard<'a, Queues>> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    drain(shared, local, &mut q, Drain::for_pattern(shared, local, pattern))?;
    Ok(q)
}

/// Pulls arrived messages into endpoint `local`'s matching state (the caller holds its lock).
pub(crate) fn drain(shared: &CommShared, local: u32, q: &mut Queues, drain: Drain) -> EpResult<()> {
    drain_catching(shared, local, q, drain, None)
}

/// [`drain`], with a blocking receive's `catcher` that may take its message on the way.
pub(super) fn drain_catching(
    shared: &CommShared,
    local: u32,
    q: &mut Queues,
    drain: Drain,
    mut catcher: Option<&mut Catcher>,
) -> EpResult<()> {
    let from = match drain {
        Drain::LocalFrom(s) => Some(s),
        _ => None,
    };
    local::drain_inbox(&shared.channels, local, from, |m: *mut LocalMessage| match catcher.as_deref_mut() {
        Some(c) => c.offer_local(shared, q, m),
        None => {
            // SAFETY: the channel hands the message over; it is read once.
            let m = unsafe { m.read() };
            arrive(shared, &mut q.matching, m.envelope, m.payload);
            Ok(())
        }
    })?;
    if drain == Drain::All && shared.is_multi_process() {
        let matching = &mut q.matching;
        remote::drain(shared.host, local, &mut q.remote_rx, |env, arrival| {
            let payload = match arrival {
                Arrival::Eager(data) => {
                    // Straight from the receive buffer when a receive is waiting.
                    if let Some(recv) = matching.take_posted(&env) {
                        deliver_bytes(&recv, &env, data);
                        return Ok(ControlFlow::Continue(()));
                    }
                    if let Some(c) = catcher.as_deref_mut() {
                        if c.try_catch(&env, data)? {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    Payload::Eager(data.to_vec())
                }
                Arrival::Rendezvous { proc, data_tag, bytes, part_bytes } => {
                    Payload::Remote { proc, data_tag, bytes, part_bytes }
                }
            };
            // A message the blocking receive matches that goes to the unexpected queue (a
            // rendezvous header) is the one it must get: no later packet may be caught past
            // it, or a small message would overtake a large one from the same source (MPI 4.1
            // section 3.5, non-overtaking).
            if let Some(c) = catcher.as_deref_mut() {
                c.queued(&env);
            }
            arrive(shared, matching, env, payload);
            Ok(ControlFlow::Continue(()))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Drain;

    /// The progress rule's widening: a wait on a local source drains everything on every
    /// 16th poll of its endpoint and only its channel otherwise; a full drain stays full and
    /// does not count.
    #[test]
    fn local_waits_widen_every_16th_poll() {
        let mut polls = 0u32;
        let seen: Vec<Drain> = (0..32)
            .map(|_| Drain::LocalFrom(3).now_and_then_all(&mut polls))
            .collect();
        for (i, d) in seen.iter().enumerate() {
            let want = if (i + 1) % 16 == 0 {
                Drain::All
            } else {
                Drain::LocalFrom(3)
            };
            assert_eq!(*d, want, "poll {}", i + 1);
        }
        let before = polls;
        assert_eq!(Drain::All.now_and_then_all(&mut polls), Drain::All);
        assert_eq!(polls, before);
        assert_eq!(Drain::Local.now_and_then_all(&mut polls), Drain::Local);
    }
}
