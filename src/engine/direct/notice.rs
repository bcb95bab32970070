//! Which messages travel whole on a direct communicator, and the notice that stands in for the
//! others.
//!
//! A receive posts the host's `MPI_Irecv` at once (the cheapest way to receive on Open MPI:
//! 0.208 us against 0.403 us for `MPI_Improbe` + `MPI_Imrecv` at 8 B), so the host must never
//! have to truncate: Open MPI 4.1.4 writes a truncated rendezvous message past a contiguous
//! receive buffer. The senders make that possible: a message of at most [`WHOLE_MAX_BYTES`]
//! travels whole on the direct host communicator, and every receive there offers at least that
//! many bytes (the user's buffer when it is contiguous and that large, else a bounce buffer).
//! Any other message travels as a notice of exactly [`NOTICE_BYTES`] (the data's length and a
//! sequence number) in its place in the sender's order, followed by the data on the data host
//! communicator, tagged with the sequence number, which the receiver then receives knowing its
//! length. A user message of exactly `NOTICE_BYTES` takes the notice's way too, so that every
//! message of that length on the direct communicator is a notice.

use crate::ep_err;
use crate::error::{EpResult, ERR_INTERN};
use std::os::raw::c_int;

/// Largest message that travels whole on the direct host communicator, and the bounce buffer's
/// size. Above it the notice's extra host message costs little against the data's own time
/// (Open MPI's shared memory sends 4 KiB and more by rendezvous anyway).
pub(crate) const WHOLE_MAX_BYTES: usize = 4096;

/// Length of a notice: an odd length that no multiple of a 2-, 4- or 8-byte type has, so that
/// the user messages of that length that must take the notice's way are rare.
pub(crate) const NOTICE_BYTES: usize = 13;

/// The notice's last byte, checked on arrival.
const NOTICE_MARK: u8 = 0xd1;

/// True when a message of `bytes` travels whole (see the module notes).
#[inline(always)]
pub(crate) fn travels_whole(bytes: usize) -> bool {
    bytes <= WHOLE_MAX_BYTES && bytes != NOTICE_BYTES
}

/// What a notice says: the data's length in bytes and its tag on the data communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Notice {
    /// The data's host tag on the data communicator: the sender's sequence number, modulo 2^31.
    pub seq: c_int,
    /// The data's length in bytes.
    pub bytes: u64,
}

impl Notice {
    /// The notice's bytes as sent.
    pub(crate) fn encode(&self) -> [u8; NOTICE_BYTES] {
        let mut out = [0u8; NOTICE_BYTES];
        out[..4].copy_from_slice(&self.seq.to_le_bytes());
        out[4..12].copy_from_slice(&self.bytes.to_le_bytes());
        out[12] = NOTICE_MARK;
        out
    }

    /// The notice in `raw`, as received. Errors: `EP_ERR_INTERN` when `raw` is no notice (a
    /// peer that does not follow the protocol).
    pub(crate) fn decode(raw: &[u8; NOTICE_BYTES]) -> EpResult<Notice> {
        let mut seq = [0u8; 4];
        seq.copy_from_slice(&raw[..4]);
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&raw[4..12]);
        let n = Notice { seq: c_int::from_le_bytes(seq), bytes: u64::from_le_bytes(bytes) };
        let whole = usize::try_from(n.bytes).is_ok_and(travels_whole);
        if raw[12] != NOTICE_MARK || n.seq < 0 || whole {
            return Err(ep_err!(ERR_INTERN, "a {NOTICE_BYTES}-byte message on a direct communicator is not a notice"));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_round_trip_and_reject_what_travels_whole() {
        for n in [Notice { seq: 0, bytes: 4097 }, Notice { seq: c_int::MAX, bytes: 13 }, Notice { seq: 7, bytes: u64::MAX }] {
            assert_eq!(Notice::decode(&n.encode()).unwrap(), n);
        }
        assert!(Notice::decode(&Notice { seq: 1, bytes: 8 }.encode()).is_err());
        let mut bad = Notice { seq: 1, bytes: 5000 }.encode();
        bad[12] = 0;
        assert!(Notice::decode(&bad).is_err());
    }

    #[test]
    fn only_small_lengths_but_the_notice_s_travel_whole() {
        assert!(travels_whole(0) && travels_whole(12) && travels_whole(14) && travels_whole(WHOLE_MAX_BYTES));
        assert!(!travels_whole(NOTICE_BYTES) && !travels_whole(WHOLE_MAX_BYTES + 1));
    }
}
