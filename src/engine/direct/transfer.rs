//! The receive of a message whose length direct mode knows before receiving it: one taken out
//! of the host's matching by a matched probe, or one announced by a notice (see [`super::notice`]).
//! It goes into the user's buffer when it fits, else into a buffer of the message's own size
//! whose first part is then unpacked into the user's (the host then never writes past the
//! user's buffer: Open MPI 4.1 writes a truncated rendezvous message past the receive count).
//!
//! A [`Transfer`] owns its host request and its buffer. Dropped while the host still writes,
//! it frees the host request when the host writes into the user's buffer (the host completes
//! it on its own, MPI 4.1 section 3.7.3), and otherwise hands itself to the process's
//! orphans, which [`progress_orphans`] completes (unpacking the first part into the user's
//! buffer, as a freed receive does) before the buffer goes.

use super::notice::{Notice, NOTICE_BYTES};
use crate::engine::datatype::{HeldType, UserBuf};
use crate::engine::envelope::Envelope;
use crate::engine::message::Completion;
use crate::engine::backoff::Backoff;
use crate::error::{EpResult, ERR_COUNT, ERR_TRUNCATE};
use crate::host::{check, sys, HostComm, HostMessage, HostRequest, HOST};
use crate::ep_err;
use crate::engine::orphanage::Orphanage;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// A message matched but not yet received, whose envelope (host source = endpoint rank) and
/// length in bytes are known.
pub struct DirectMessage {
    at: Where,
    pub(super) envelope: Envelope,
    bytes: u64,
}

/// Where a [`DirectMessage`]'s data waits.
enum Where {
    /// Taken by `MPI_Improbe` on the direct host communicator: received with `MPI_Imrecv`.
    Taken(HostMessage),
    /// Announced by a notice: on the data host communicator `data`, from the envelope's source
    /// with host tag `seq`, received with `MPI_Irecv`. The communicator outlives the message:
    /// whoever holds the message holds its endpoint.
    Announced { data: HostComm, seq: c_int },
}

impl DirectMessage {
    /// The message of a successful `MPI_Improbe` on the direct host communicator that filled
    /// `message` and `st`; a notice is received at once and stands for its data on `data`.
    /// Errors: a failed host call; `EP_ERR_INTERN` for a malformed notice.
    pub(super) fn taken(mut message: HostMessage, st: &sys::MPI_Status, data: HostComm) -> EpResult<DirectMessage> {
        let envelope = Envelope { source: st.MPI_SOURCE, tag: st.MPI_TAG };
        let bytes = status_bytes(st)?;
        if bytes != NOTICE_BYTES as u64 {
            return Ok(DirectMessage { at: Where::Taken(message), envelope, bytes });
        }
        let mut raw = [0u8; NOTICE_BYTES];
        // SAFETY: the taken message holds `NOTICE_BYTES` bytes, which `raw` holds; a notice is
        // small, so the host has it already and completes the receive within the call. The
        // host writes `message` (to `MPI_MESSAGE_NULL`), a live local.
        unsafe {
            check(
                sys::MPI_Mrecv(raw.as_mut_ptr() as *mut c_void, NOTICE_BYTES as c_int, HOST.byte, &mut message.0, HOST.status_ignore),
                "MPI_Mrecv (notice)",
            )?
        };
        Ok(DirectMessage::announced(envelope, Notice::decode(&raw)?, data))
    }

    /// The data a notice with `envelope` announced, on the data host communicator `data`.
    pub(super) fn announced(envelope: Envelope, notice: Notice, data: HostComm) -> DirectMessage {
        DirectMessage { at: Where::Announced { data, seq: notice.seq }, envelope, bytes: notice.bytes }
    }

    /// The message's status, as a probe reports it (MPI 4.1 section 3.8.1).
    pub fn completion(&self) -> Completion {
        Completion {
            source: self.envelope.source,
            tag: self.envelope.tag,
            bytes: self.bytes,
            sent_bytes: self.bytes,
            ..Completion::default()
        }
    }
}

/// Bytes of the message a probe's status describes.
pub(super) fn status_bytes(st: &sys::MPI_Status) -> EpResult<u64> {
    let mut bytes: sys::MPI_Count = 0;
    // SAFETY: `st` is a status the host filled for a probe; the host writes `bytes`, a live
    // local.
    unsafe {
        check(
            sys::MPI_Get_elements_x(st, HOST.byte, &mut bytes),
            "MPI_Get_elements_x",
        )?
    };
    Ok(bytes.max(0) as u64)
}

/// A host receive of a message of known length (taken or announced), in flight or complete.
pub(super) struct Transfer {
    /// `MPI_REQUEST_NULL` once the host has completed it.
    request: HostRequest,
    envelope: Envelope,
    /// The message's length.
    sent: u64,
    /// The user's buffer.
    buf: UserBuf,
    /// Keeps `buf`'s datatype valid when it is a duplicate (a nonblocking receive's: see
    /// `Slot`), for the unpack of an overflow, which may come after the receive's owner went.
    held: Option<Arc<HeldType>>,
    /// Where the host writes a message longer than `buf`: exactly its length.
    overflow: Option<Box<[u8]>>,
}

impl Transfer {
    /// Starts receiving `msg` (`MPI_Imrecv` of a taken message, `MPI_Irecv` of announced
    /// data): into `buf` when it fits, else into a buffer of the message's length. `held`
    /// keeps `buf`'s datatype valid when it is a duplicate (`None` for a blocking receive,
    /// whose program's datatype outlives the call). Errors: `EP_ERR_COUNT` for a truncated
    /// message of 2^31 bytes or more; a failed host call.
    pub(super) fn start(msg: DirectMessage, buf: &UserBuf, held: Option<Arc<HeldType>>) -> EpResult<Transfer> {
        let mut request = HostRequest(HOST.request_null);
        let (addr, count, dtype, overflow) = if msg.bytes <= buf.bytes() as u64 {
            (buf.addr, buf.count, buf.dtype, None)
        } else {
            let len = c_int::try_from(msg.bytes).map_err(|_| {
                ep_err!(ERR_COUNT, "a truncated message of {} bytes is beyond 2^31-1", msg.bytes)
            })?;
            let mut space = vec![0u8; msg.bytes as usize].into_boxed_slice();
            (space.as_mut_ptr() as *mut c_void, len, HOST.packed, Some(space))
        };
        // SAFETY: the message holds `msg.bytes` bytes. Into the user's buffer, they are at most
        // its `count` elements of `dtype`, valid until the receive completes (MPI 4.1 section
        // 3.7.2). Otherwise they go into `space` as `MPI_PACKED`, which any message may be
        // received as (MPI 4.1 section 5.2.1), and whose packed form on a homogeneous host
        // (direct mode runs only on Open MPI, whose packed form is the data itself) is
        // `msg.bytes` bytes: exactly `space`, which this transfer keeps (or hands to the
        // orphans) until the host has completed the receive; moving the box into the transfer
        // does not move its heap bytes. The host writes the message handle and `request`, both
        // live; `data` is the live data host communicator of the message's endpoint.
        unsafe {
            match msg.at {
                Where::Taken(mut m) => check(sys::MPI_Imrecv(addr, count, dtype, &mut m.0, &mut request.0), "MPI_Imrecv")?,
                Where::Announced { data, seq } => check(
                    sys::MPI_Irecv(addr, count, dtype, msg.envelope.source, seq, data.0, &mut request.0),
                    "MPI_Irecv (announced data)",
                )?,
            }
        };
        Ok(Transfer {
            request,
            envelope: msg.envelope,
            sent: msg.bytes,
            buf: *buf,
            held,
            overflow,
        })
    }

    /// The receive's outcome once the host has completed it (tests it once otherwise): a
    /// message longer than the buffer has its first part unpacked into it and ends with
    /// `ERR_TRUNCATE`. Errors: a failed host call.
    pub(super) fn test(&mut self) -> EpResult<Option<Completion>> {
        if !self.request.is_null() {
            let mut flag = 0;
            // SAFETY: `self.request` is this transfer's started host request; the host writes
            // it and `flag`, both live; the status is not needed (the probe or the notice gave
            // the envelope).
            unsafe {
                check(
                    sys::MPI_Test(&mut self.request.0, &mut flag, HOST.status_ignore),
                    "MPI_Test (receive)",
                )?
            };
            if flag == 0 {
                return Ok(None);
            }
        }
        let capacity = self.buf.bytes() as u64;
        let mut c = Completion {
            source: self.envelope.source,
            tag: self.envelope.tag,
            bytes: self.sent.min(capacity),
            sent_bytes: self.sent,
            ..Completion::default()
        };
        if let Some(space) = self.overflow.take() {
            self.buf.unpack_from(&space[..capacity as usize])?;
            c.error = ERR_TRUNCATE;
        }
        Ok(Some(c))
    }

    /// Polls until the host completes the receive (see the module notes of `direct`: never
    /// blocked inside the host).
    pub(super) fn wait(mut self) -> EpResult<Completion> {
        let mut b = Backoff::new();
        loop {
            if let Some(c) = self.test()? {
                return Ok(c);
            }
            b.snooze_after_polling();
        }
    }
}

impl Drop for Transfer {
    fn drop(&mut self) {
        if self.request.is_null() {
            return;
        }
        match self.overflow.take() {
            None => {
                // SAFETY: `self.request` is a started host request writing into the user's
                // buffer, which nothing here frees; the host completes it on its own (MPI 4.1
                // section 3.7.3) and sets the handle to `MPI_REQUEST_NULL`.
                unsafe { sys::MPI_Request_free(&mut self.request.0) };
            }
            Some(space) => {
                let orphan = Transfer {
                    request: self.request,
                    envelope: self.envelope,
                    sent: self.sent,
                    buf: self.buf,
                    held: self.held.take(),
                    overflow: Some(space),
                };
                self.request = HostRequest(HOST.request_null);
                ORPHANS.adopt([orphan]);
            }
        }
    }
}

/// Transfers into an overflow buffer whose owner went before the host completed them.
static ORPHANS: Orphanage<Transfer> = Orphanage::new();

/// Tests the orphaned transfers once and drops those the host has completed, after
/// unpacking their first part into the user's buffer. One that fails stays (the host may
/// still write into its buffer). Thread safety: any thread.
pub(super) fn progress_orphans() {
    ORPHANS.progress(|t| !matches!(t.test(), Ok(Some(_))));
}
