//! Blocking receive and probes: calls that look at the matching state without leaving a
//! posted receive behind.

use super::super::backoff::Backoff;
use super::super::comm::CommShared;
use super::super::doorbell::Doorbell;
use super::super::datatype::UserBuf;
use super::super::envelope::{Envelope, Pattern, ANY_TAG, PROC_NULL};
use super::super::message::{Completion, Payload};
use super::super::transport::local::{self, Waited};
use super::super::progress::{progress, progress_orphans};
use super::catcher::Catcher;
use super::deliver::{deliver, deliver_into};
use super::drain::{drain_catching, locked_and_drained, Drain};
use super::recv_op::RecvOp;
use crate::error::EpResult;
use parking_lot::lock_api::MutexGuard;

/// Blocking receive (`EP_Recv`, the receive of `EP_Sendrecv`) without a posted-queue entry.
/// The endpoint's matching state has a single user, so the caller pulls messages in itself:
/// earlier posted receives take theirs first (in `arrive`), and the first unexpected match
/// is exactly the message a receive posted now would get (MPI 4.1 section 3.5).
#[inline]
pub fn recv_blocking(shared: &CommShared, local: u32, pattern: Pattern, buf: UserBuf) -> EpResult<Completion> {
    let mut c = Completion::default();
    recv_blocking_into(shared, local, pattern, buf, &mut c)?;
    Ok(c)
}

/// [`recv_blocking`] with the completion written to `out` (`EP_Recv`'s own, read back field
/// by field: see [`Catcher::out`]).
pub fn recv_blocking_into(
    shared: &CommShared,
    local: u32,
    pattern: Pattern,
    buf: UserBuf,
    out: &mut Completion,
) -> EpResult<()> {
    if pattern.source == PROC_NULL {
        *out = Completion::proc_null();
        return Ok(());
    }
    let how = Drain::for_pattern(shared, local, &pattern);
    // A local sender may copy straight into the buffer (`transport::landing`) when it is
    // contiguous and has room for a message that lands.
    let landing_from = match how {
        Drain::LocalFrom(from) if buf.info.contiguous() && buf.bytes() > local::LAND_ABOVE_BYTES => Some(from),
        _ => None,
    };
    let mut backoff = Backoff::new();
    // Snoozes since the landing was left posted (see `local::Waited::Posted`), while it is.
    let mut posted_snoozes: Option<u32> = None;
    // The next poll drains everything (the progress rule, see `Drain::now_and_then_all`).
    let mut widen = false;
    loop {
        if let (Some(n), Some(from)) = (posted_snoozes, landing_from) {
            // Left posted across the snooze: the message may have landed meanwhile. It stays
            // posted while nothing else comes, but for one full poll in 16 snoozes.
            let keep = n % 16 != 15;
            match local::recheck_landing(&shared.channels, local, from, keep) {
                Waited::Landed(l) => {
                    landed_completion(out, pattern.source, l);
                    return Ok(());
                }
                Waited::Posted => {
                    posted_snoozes = Some(n + 1);
                    snooze_for(shared, local, &pattern, how, &mut backoff);
                    continue;
                }
                Waited::Withdrawn => {
                    posted_snoozes = None;
                    widen = !keep;
                }
            }
        }
        let (found, orphans) = {
            let mut q = shared.endpoints[local as usize].queues.lock();
            // The spin keeps the lock, handing it over only to a parked waiter: local senders
            // never take it, and locking afresh for every poll cost more than the poll.
            let found = loop {
                // Messages already queued (by this drain or, during a hand-over, another
                // thread's) come first; only then may a new packet be caught.
                if let Some(f) = q.matching.take_unexpected(&pattern) {
                    break Some(f);
                }
                let mut catcher = Catcher {
                    pattern: &pattern,
                    buf: &buf,
                    caught: false,
                    out: &mut *out,
                    closed: false,
                };
                let now = if std::mem::take(&mut widen) { Drain::All } else { how.now_and_then_all(&mut q.polls) };
                drain_catching(shared, local, &mut q, now, Some(&mut catcher))?;
                if catcher.caught {
                    return Ok(());
                }
                if let Some(f) = q.matching.take_unexpected(&pattern) {
                    break Some(f);
                }
                if let Some(from) = landing_from {
                    // Nothing of `from` is left untaken, and no posted receive could take its
                    // next message before this one (`wait_landing`'s contract).
                    if q.matching.posted_len() == 0 {
                        let tag = (pattern.tag != ANY_TAG).then_some(pattern.tag);
                        // SAFETY: the receive's buffer is contiguous, `buf.bytes()` long, and
                        // the caller's until this call returns; a landing left posted is
                        // withdrawn (`recheck_landing`) before it does.
                        let waited = unsafe {
                            local::wait_landing(&shared.channels, local, from, tag, buf.data_ptr(), buf.bytes(), || backoff.keep_spinning(false))
                        };
                        match waited {
                            Waited::Landed(l) => {
                                landed_completion(out, pattern.source, l);
                                return Ok(());
                            }
                            Waited::Posted => {
                                posted_snoozes = Some(0);
                                break None;
                            }
                            Waited::Withdrawn => {}
                        }
                    }
                }
                if !backoff.keep_spinning(how == Drain::All) {
                    break None;
                }
                MutexGuard::bump(&mut q);
            };
            (found, !q.orphans.is_empty())
        };
        if let Some((env, payload)) = found {
            if !matches!(payload, Payload::Remote { .. }) {
                *out = deliver_into(&buf, &env, payload)?;
                return Ok(());
            }
            let recv = RecvOp::new(buf, pattern);
            deliver(shared, &recv, &env, payload)?;
            *out = wait_recv_matched(shared, local, &recv)?;
            return Ok(());
        }
        // With the landing posted nothing may return early: the orphans wait for the next
        // full poll.
        if orphans && posted_snoozes.is_none() {
            progress_orphans(shared, local)?;
        }
        snooze_for(shared, local, &pattern, how, &mut backoff);
    }
}

/// One snooze of a blocking receive or probe that found nothing: after polling the host when it
/// drains everything, else on the endpoint's bell, which local senders ring.
#[inline]
fn snooze_for<'a>(shared: &'a CommShared, local: u32, pattern: &Pattern, how: Drain, backoff: &mut Backoff<'a>) {
    if how == Drain::All {
        backoff.snooze_after_polling();
    } else {
        // Only local senders can end this wait, and they ring the endpoint's bell.
        match bell_for(shared, local, pattern) {
            Some(bell) => backoff.snooze_on(bell),
            None => backoff.snooze(),
        }
    }
}

/// Writes a landed message's completion to `out`, field by field (see [`Catcher::out`]): from
/// `source`, never truncated (a sender lands only what fits).
#[inline]
fn landed_completion(out: &mut Completion, source: i32, l: local::Landed) {
    out.source = source;
    out.tag = l.tag;
    out.bytes = l.bytes as u64;
    out.error = 0;
    out.sent_bytes = l.bytes as u64;
    out.cancelled = false;
}

/// The doorbell a blocked receive or probe of `pattern` on endpoint `local` may park on: the
/// endpoint's, when only local senders can match it (they ring it, see `engine::doorbell`);
/// `None` when a message may come through the host.
pub fn bell_for<'a>(shared: &'a CommShared, local: u32, pattern: &Pattern) -> Option<&'a Doorbell> {
    match Drain::for_pattern(shared, local, pattern) {
        Drain::All => None,
        Drain::Local | Drain::LocalFrom(_) => Some(&shared.endpoints[local as usize].bell),
    }
}

/// Blocks until a matched receive has its data (rendezvous data comes through the host).
pub fn wait_recv_matched(shared: &CommShared, local: u32, recv: &RecvOp) -> EpResult<Completion> {
    let mut b = Backoff::new();
    while !recv.poll_host()? {
        progress(shared, local, Drain::All)?;
        b.snooze_after_polling();
    }
    Ok(recv.completion())
}

/// Envelope and size of the first matching message, left in place (`EP_Iprobe`).
pub fn iprobe(shared: &CommShared, local: u32, pattern: Pattern) -> EpResult<Option<Completion>> {
    let q = locked_and_drained(shared, local, &pattern)?;
    Ok(q.matching.peek_unexpected(&pattern).map(|(env, p)| {
        let b = p.bytes();
        Completion {
            source: env.source,
            tag: env.tag,
            bytes: b,
            sent_bytes: b,
            ..Completion::default()
        }
    }))
}

/// The first matching message, removed from the queue (`EP_Improbe`).
pub fn improbe(
    shared: &CommShared,
    local: u32,
    pattern: Pattern,
) -> EpResult<Option<(Envelope, Payload)>> {
    let mut q = locked_and_drained(shared, local, &pattern)?;
    Ok(q.matching.take_unexpected(&pattern))
}
