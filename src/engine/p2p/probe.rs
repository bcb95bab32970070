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
    let mut landing = landing_from.map(|from| PostedLanding { channels: &shared.channels, me: local, from, snoozes: None });
    // The next poll drains everything (the progress rule, see `Drain::now_and_then_all`).
    let mut widen = false;
    loop {
        if let Some(p) = landing.as_mut() {
            if let Some(n) = p.snoozes {
                // Left posted across the snooze: the message may have landed meanwhile. It
                // stays posted while nothing else comes, but for one full poll in 16 snoozes.
                let keep = n % 16 != 15;
                let waited = local::recheck_landing(p.channels, p.me, p.from, keep);
                p.snoozes = (waited == Waited::Posted).then_some(n + 1);
                match waited {
                    Waited::Landed(l) => {
                        landed_completion(out, pattern.source, l);
                        return Ok(());
                    }
                    Waited::Posted => {
                        snooze_for(shared, local, &pattern, how, &mut backoff);
                        continue;
                    }
                    Waited::Withdrawn => widen = !keep,
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
                if let Some(p) = landing.as_mut() {
                    // Nothing of `from` is left untaken, and no posted receive could take its
                    // next message before this one (`wait_landing`'s contract).
                    if q.matching.posted_len() == 0 {
                        let tag = (pattern.tag != ANY_TAG).then_some(pattern.tag);
                        // SAFETY: the receive's buffer is contiguous, `buf.bytes()` long, and
                        // the caller's until this call returns; a landing left posted is
                        // withdrawn before it does (`PostedLanding`).
                        let waited = unsafe {
                            local::wait_landing(p.channels, p.me, p.from, tag, buf.data_ptr(), buf.bytes(), || backoff.keep_spinning(false))
                        };
                        match waited {
                            Waited::Landed(l) => {
                                landed_completion(out, pattern.source, l);
                                return Ok(());
                            }
                            Waited::Posted => {
                                p.snoozes = Some(0);
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
        if orphans {
            progress_orphans(shared, local)?;
        }
        snooze_for(shared, local, &pattern, how, &mut backoff);
    }
}

/// A blocking receive's landing for local endpoint `from` (see `local::wait_landing`), which
/// may be left posted while the receive yields or parks. Dropped on every way out of the
/// receive, unwinding included (a panic in the progress a snooze makes comes back through the
/// C boundary as an error), it withdraws a landing still posted: no sender may write into a
/// buffer its receive has given back.
struct PostedLanding<'a> {
    channels: &'a local::Channels,
    me: u32,
    from: u32,
    /// Snoozes since the landing was left posted; `None` while it is not posted.
    snoozes: Option<u32>,
}

impl Drop for PostedLanding<'_> {
    fn drop(&mut self) {
        if self.snoozes.is_some() {
            // A message that landed meanwhile goes with the receive, which is failing anyway.
            let _ = local::recheck_landing(self.channels, self.me, self.from, false);
        }
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

#[cfg(test)]
mod tests {
    use super::PostedLanding;
    use crate::engine::transport::local::{self, Channels, Waited};

    /// A landing left posted is withdrawn when its receive goes, by a panic too; one that is
    /// not posted is left alone. Checked by mutation: without the guard's `Drop`, this fails.
    #[test]
    fn a_landing_left_posted_goes_with_its_receive() {
        let channels = Channels::new(2);
        let mut buf = [0u8; 2048];
        // SAFETY: `buf` outlives the landing's post: the guard withdraws it before the end.
        let waited = unsafe { local::wait_landing(&channels, 0, 1, None, buf.as_mut_ptr(), buf.len(), || false) };
        assert_eq!(waited, Waited::Posted, "an impatient wait leaves its landing posted");
        assert!(channels.landing_posted(0));
        let guard = PostedLanding { channels: &channels, me: 0, from: 1, snoozes: Some(0) };
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _guard = guard;
            panic!("the progress a snooze makes failed");
        }));
        assert!(unwound.is_err());
        assert!(!channels.landing_posted(0), "withdrawn as the receive unwound");
        // SAFETY: as above; withdrawn below.
        let waited = unsafe { local::wait_landing(&channels, 0, 1, None, buf.as_mut_ptr(), buf.len(), || false) };
        assert_eq!(waited, Waited::Posted);
        drop(PostedLanding { channels: &channels, me: 0, from: 1, snoozes: None });
        assert!(channels.landing_posted(0), "a guard that holds nothing posted touches nothing");
        assert_eq!(local::recheck_landing(&channels, 0, 1, false), Waited::Withdrawn);
    }
}
