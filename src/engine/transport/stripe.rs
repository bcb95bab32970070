//! Striped rendezvous between processes (docs/teams.md, "How the remote side identifies
//! striped parts"): a large message sent by a member of an endpoint team with another member
//! travels as contiguous parts of its packed data, each a host message of its own on the data
//! communicator with its own data tag, started by whichever member takes it.
//!
//! Only the header is matched; it announces the size of the parts and the first data tag, and
//! part `k` carries the `k`-th data tag after it ([`PartTags`]), so the receiver
//! (which needs no team) places part `k` at offset `k * part_bytes` of the matched receive from
//! its tag alone. A part taken by a member is only started there (`MPI_Isend`, which returns
//! without waiting for the receiver); the send owns every part's host request and completes
//! when all have, tested by whoever tests the send. So a member never waits on another to
//! finish a part, and a member that leaves the team leaves nothing of its own behind.

use crate::engine::datatype::UserBuf;
use crate::engine::host_op::HostOp;
use crate::engine::share::{self, WorkList};
use crate::error::EpResult;
use crate::host::{check, sys, HostComm, HostRequest, HOST};
use parking_lot::Mutex;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// Smallest part: large enough that a part's host handshake (tens of microseconds, more when
/// the node is oversubscribed and each side must be scheduled to answer it) is noise beside
/// its data (milliseconds at the hosts' few GB/s within a node).
pub(crate) const MIN_PART_BYTES: usize = 4 << 20;
/// Parts are whole pages (but the last), so that each starts on a page of the buffers.
const PART_ALIGN: usize = 4096;
/// Largest part: its byte count is a host `int`.
const MAX_PART_BYTES: usize = 1 << 30;
/// Rendezvous messages from this size on are striped when the sender's team has another member:
/// two parts at least, so that a helper has one to take.
pub(crate) const STRIPE_MIN_BYTES: usize = 2 * MIN_PART_BYTES;

/// The size of the parts of a striped message of `bytes` bytes sent with a team of `members`:
/// one part per member, as few host handshakes as give each member a part, no smaller than
/// [`MIN_PART_BYTES`].
pub(super) fn part_bytes(bytes: usize, members: usize) -> u32 {
    let share = bytes.div_ceil(members.max(2)).next_multiple_of(PART_ALIGN);
    share.clamp(MIN_PART_BYTES, MAX_PART_BYTES) as u32
}

/// The team a rendezvous message of `buf` is striped with: the sending thread's, when it has a
/// member besides the sender, the data is contiguous, and the message is large.
#[inline]
pub(super) fn team_for(buf: &UserBuf) -> Option<Arc<WorkList>> {
    let bytes = buf.bytes();
    if bytes < STRIPE_MIN_BYTES || !buf.info.contiguous() {
        return None;
    }
    share::current_for(bytes).filter(|l| l.has_helpers())
}

/// Where the parts of one striped message travel: the host communicator of rendezvous data, and
/// their data tags, consecutive from `first` in the payload range `base .. base + modulus` of
/// that communicator and wrapping to its start (as the counter that hands them out does).
#[derive(Clone, Copy)]
pub(crate) struct PartTags {
    pub comm: HostComm,
    pub first: c_int,
    pub base: u32,
    pub modulus: u32,
}

impl PartTags {
    /// The data tag of part `k`.
    #[inline]
    pub(crate) fn tag(&self, k: usize) -> c_int {
        let offset = (self.first as u32 - self.base) as u64 + k as u64;
        (self.base as u64 + offset % self.modulus as u64) as c_int
    }
}

/// Number of parts of `part_bytes` bytes (the last one shorter) covering `bytes`.
pub(crate) fn parts_of(bytes: u64, part_bytes: u32) -> usize {
    bytes.div_ceil(part_bytes as u64) as usize
}

/// Byte range of part `k` of a message of `bytes` bytes.
fn part_range(bytes: u64, part_bytes: u32, k: usize) -> (usize, c_int) {
    let start = k as u64 * part_bytes as u64;
    (start as usize, (part_bytes as u64).min(bytes - start) as c_int)
}

/// The parts of one striped send, taken by the team's members.
struct Parts {
    data: *const u8,
    bytes: u64,
    part_bytes: u32,
    proc: c_int,
    tags: PartTags,
    sync: bool,
    /// Part `k`'s host request, written by the member that started it.
    started: Vec<Mutex<HostRequest>>,
}

// SAFETY: `data` is the user's send buffer, which stays valid and unchanged until the send
// completes (MPI 4.1 section 3.7.2); members only hand ranges of it to the host.
unsafe impl Sync for Parts {}

/// Starts the host send of part `k`: a member's whole share of a striped send.
fn start_part(p: &Parts, k: usize) -> EpResult<()> {
    let (start, len) = part_range(p.bytes, p.part_bytes, k);
    let isend = if p.sync { sys::MPI_Issend } else { sys::MPI_Isend };
    let mut r = HostRequest(HOST.request_null);
    // SAFETY: part `k` lies inside the user's `bytes` bytes at `data` (see `Parts`), which the
    // host reads until the request completes; the request goes into the send's `HostOp`, which
    // the send's owner keeps (or the orphanage, once dropped) until then. The host writes `r`.
    unsafe {
        check(
            isend(
                p.data.add(start) as *const c_void,
                len,
                HOST.byte,
                p.proc,
                p.tags.tag(k),
                p.tags.comm.0,
                &mut r.0,
            ),
            "MPI_Isend(part)",
        )?
    };
    *p.started[k].lock() = r;
    Ok(())
}

/// Sends the `bytes` contiguous bytes of `buf` to process `proc` as parts of `part_bytes`
/// bytes with the data tags `tags`, shared among `team`'s members; every started part's request
/// joins `op` (the send's), even when another part failed to start.
pub(super) fn send_parts(
    team: &WorkList,
    buf: &UserBuf,
    proc: c_int,
    tags: PartTags,
    part_bytes: u32,
    sync: bool,
    op: &mut HostOp,
) -> EpResult<()> {
    let bytes = buf.bytes() as u64;
    let parts = parts_of(bytes, part_bytes);
    let p = Parts {
        data: buf.data_ptr(),
        bytes,
        part_bytes,
        proc,
        tags,
        sync,
        started: (0..parts).map(|_| Mutex::new(HostRequest(HOST.request_null))).collect(),
    };
    let result = team.split(parts, &p, start_part);
    for r in p.started.iter().map(|r| *r.lock()).filter(|r| !r.is_null()) {
        op.push(r);
    }
    result
}

/// Starts the host receives of the parts of a striped message of `bytes` bytes from process
/// `proc` (data tags `tags`) into the `bytes` bytes at `dst`; their requests join
/// `op`, which owns `dst` or whose owner keeps it valid until they complete. Errors: the host's.
///
/// # Safety
/// `dst` is writable for `bytes` bytes until every request pushed on `op` completes.
pub(super) unsafe fn receive_parts(
    dst: *mut u8,
    bytes: u64,
    part_bytes: u32,
    proc: c_int,
    tags: PartTags,
    op: &mut HostOp,
) -> EpResult<()> {
    for k in 0..parts_of(bytes, part_bytes) {
        let (start, len) = part_range(bytes, part_bytes, k);
        let mut r = HostRequest(HOST.request_null);
        // SAFETY: part `k` lies inside the `bytes` bytes at `dst` (this function's contract);
        // the host writes `r`, which joins `op` at once.
        unsafe {
            check(
                sys::MPI_Irecv(
                    dst.add(start) as *mut c_void,
                    len,
                    HOST.byte,
                    proc,
                    tags.tag(k),
                    tags.comm.0,
                    &mut r.0,
                ),
                "MPI_Irecv(part)",
            )?
        };
        op.push(r);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One part per member, whole pages, never below the smallest part.
    #[test]
    fn one_part_per_member() {
        assert_eq!(part_bytes(16 << 20, 2), 8 << 20);
        assert_eq!(part_bytes(16 << 20, 4), 4 << 20);
        assert_eq!(part_bytes(16 << 20, 32), MIN_PART_BYTES as u32, "no part below the smallest");
        assert_eq!(part_bytes(16 << 20, 1), 8 << 20, "two parts at least");
        let odd = (10 << 20) + 24;
        let p = part_bytes(odd, 2);
        assert_eq!(p as usize % PART_ALIGN, 0);
        assert_eq!(parts_of(odd as u64, p), 2);
        assert_eq!(parts_of(3 << 30, part_bytes(3 << 30, 2)), 3, "parts fit a host int");
    }

    /// Parts cover the message once, in order, the last one shorter.
    #[test]
    fn parts_cover_the_message() {
        for (bytes, part) in [(1u64, 1u32), (10, 3), (12, 3), (16 << 20, 4 << 20), ((16 << 20) + 5, 4 << 20)] {
            let n = parts_of(bytes, part);
            let mut next = 0usize;
            for k in 0..n {
                let (start, len) = part_range(bytes, part, k);
                assert_eq!(start, next);
                assert!(len > 0 && len as u32 <= part);
                next += len as usize;
            }
            assert_eq!(next as u64, bytes);
        }
    }
}
