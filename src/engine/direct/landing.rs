//! The first step of every direct receive that does not take a message a probe already holds:
//! the host's `MPI_Irecv` on the direct host communicator, posted at once in the receive's
//! posting order, so that the host's matching is MPI's (source, tag, wildcards,
//! non-overtaking, posting order among pending receives).
//!
//! Every message there is at most [`WHOLE_MAX_BYTES`] (see [`super::notice`]), so a receive
//! offers the host at least that many bytes and the host never truncates: the user's buffer
//! when it is contiguous and that large, else a bounce buffer of that size whose message is
//! then unpacked into the user's buffer (truncated, with `EP_ERR_TRUNCATE`, when it is
//! longer). A message of [`NOTICE_BYTES`] is a notice: the receive goes on with the data it
//! announces ([`Transfer`](super::transfer::Transfer)).

use super::notice::{Notice, NOTICE_BYTES, WHOLE_MAX_BYTES};
use super::transfer::DirectMessage;
use super::host_pattern;
use crate::engine::datatype::UserBuf;
use crate::engine::envelope::{Envelope, Pattern};
use crate::engine::message::Completion;
use crate::ep_err;
use crate::error::{EpResult, ERR_INTERN, ERR_TRUNCATE};
use crate::host::{check, sys, HostComm, HostRequest, HOST};
use std::mem::MaybeUninit;
use std::os::raw::{c_int, c_void};

/// Where a message lands when the user's buffer cannot take every message of the direct
/// communicator.
pub(super) type Bounce = [MaybeUninit<u8>; WHOLE_MAX_BYTES];

/// True when every message of the direct communicator fits `buf` as it is, so the host may
/// write into it.
#[inline(always)]
pub(super) fn fits_user(buf: &UserBuf) -> bool {
    buf.info.contiguous() && buf.bytes() >= WHOLE_MAX_BYTES
}

/// Posts the host receive of a message matching `pattern` on the direct host communicator
/// `host`: into `buf` when [`fits_user`], else into `bounce`. Errors: a failed host call.
///
/// # Safety
/// `buf` is the receive's buffer (its `UserBuf` contract); `bounce`, when `buf` does not fit,
/// stays valid and unmoved until the returned request completes or is freed.
#[inline(always)]
pub(super) unsafe fn post(host: HostComm, pattern: &Pattern, buf: &UserBuf, bounce: *mut Bounce) -> EpResult<HostRequest> {
    let (source, tag) = host_pattern(pattern);
    let (addr, count, dtype) = if fits_user(buf) {
        (buf.addr, buf.count, buf.dtype)
    } else {
        (bounce as *mut c_void, WHOLE_MAX_BYTES as c_int, HOST.byte)
    };
    let mut r = HostRequest(HOST.request_null);
    // SAFETY: the host writes at most `WHOLE_MAX_BYTES` bytes (every message on the direct
    // communicator is that short), inside the user's buffer when it fits, else inside the
    // bounce buffer, both valid until the request completes (the caller's contract). It
    // writes `r`, a live local.
    unsafe { check(sys::MPI_Irecv(addr, count, dtype, source, tag, host.0, &mut r.0), "MPI_Irecv")? };
    Ok(r)
}

/// What a completed host receive brought.
pub(super) enum Landed {
    /// A message, now in the user's buffer (truncated if longer).
    Done(Completion),
    /// A notice: its data is still to be received.
    Announced(DirectMessage),
}

/// Reads the outcome of a host receive posted by [`post`] that completed with status `st`:
/// unpacks a message from the bounce buffer, or decodes a notice. Errors: a failed host call;
/// `EP_ERR_INTERN` for a malformed notice; an error unpacking into a derived datatype.
///
/// # Safety
/// The receive was posted by [`post`] with these `buf` and `bounce` and is complete; `bounce`
/// is still valid.
#[inline(always)]
pub(super) unsafe fn landed(st: &sys::MPI_Status, buf: &UserBuf, bounce: *const Bounce, data: HostComm) -> EpResult<Landed> {
    let envelope = Envelope { source: st.MPI_SOURCE, tag: st.MPI_TAG };
    let bytes = received_bytes(st)?;
    let at = if fits_user(buf) { buf.data_ptr() as *const u8 } else { bounce as *const u8 };
    // SAFETY: the host wrote the `bytes` bytes of the message at `at` (the user's contiguous
    // buffer, or the bounce buffer, valid per the caller's contract), `bytes <=
    // WHOLE_MAX_BYTES` which both hold.
    let msg = unsafe { std::slice::from_raw_parts(at, bytes) };
    if bytes == NOTICE_BYTES {
        let mut raw = [0u8; NOTICE_BYTES];
        raw.copy_from_slice(msg);
        return Ok(Landed::Announced(DirectMessage::announced(envelope, Notice::decode(&raw)?, data)));
    }
    let capacity = buf.bytes();
    let mut c = Completion {
        source: envelope.source,
        tag: envelope.tag,
        bytes: bytes.min(capacity) as u64,
        sent_bytes: bytes as u64,
        ..Completion::default()
    };
    if !fits_user(buf) {
        buf.unpack_from(&msg[..bytes.min(capacity)])?;
        if bytes > capacity {
            c.error = ERR_TRUNCATE;
        }
    }
    Ok(Landed::Done(c))
}

/// Bytes a completed receive's status reports (`MPI_Get_count` in bytes: cheaper than the
/// probes' `MPI_Get_elements_x`, and exact for a message that was not truncated).
#[inline(always)]
fn received_bytes(st: &sys::MPI_Status) -> EpResult<usize> {
    let mut n: c_int = 0;
    // SAFETY: `st` is the status of a completed receive; the host writes `n`, a live local.
    unsafe { check(sys::MPI_Get_count(st, HOST.byte, &mut n), "MPI_Get_count")? };
    if n < 0 || n as usize > WHOLE_MAX_BYTES {
        return Err(ep_err!(ERR_INTERN, "the host reports {n} bytes received into {WHOLE_MAX_BYTES}"));
    }
    Ok(n as usize)
}
