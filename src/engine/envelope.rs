//! Envelopes: what a message carries besides its data (MPI 4.1 section 3.2.3), the header
//! that carries it between processes, and the matching rule.
//!
//! The host MPI carries a remote message on the communicator's host communicator with the
//! host tag equal to the destination's local index, so each endpoint probes only its own
//! messages (`MPI_Improbe(MPI_ANY_SOURCE, my_index)`) and needs no shared queue or lock. The
//! user's tag and the source rank travel in this header (12 bytes for eager messages, 20 for
//! rendezvous), so tags are never packed into host tag bits and nothing is truncated: any tag
//! up to `i32::MAX` works.

/// Wildcards and null process, the values of `EP_ANY_SOURCE`, `EP_ANY_TAG`, `EP_PROC_NULL`.
pub(crate) const ANY_SOURCE: i32 = -2;
pub(crate) const ANY_TAG: i32 = -1;
pub(crate) const PROC_NULL: i32 = -1;

/// Source rank and tag of a message within one communicator (the context is the
/// communicator itself: every endpoint has its own queues per communicator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope {
    pub source: i32,
    pub tag: i32,
}

/// What a receive or probe asks for: a source rank or `ANY_SOURCE`, a tag or `ANY_TAG`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub source: i32,
    pub tag: i32,
}

impl Pattern {
    #[inline]
    pub fn matches(&self, e: &Envelope) -> bool {
        (self.source == ANY_SOURCE || self.source == e.source) && (self.tag == ANY_TAG || self.tag == e.tag)
    }
}

/// How a remote message's data travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The packed data follows the header in the same host message.
    Eager,
    /// The data is a separate host message on the data communicator with `data_tag`, sent
    /// straight from the user's buffer and received straight into the matched receive's.
    Rendezvous { data_tag: i32 },
}

/// The header of a remote message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireHeader {
    pub envelope: Envelope,
    pub protocol: Protocol,
    /// Size of the data in bytes (packed size).
    pub bytes: u64,
}

/// Bytes of an eager header: source, tag, and the data's size (at most [`MAX_EAGER_BYTES`]).
/// Kept short because the hosts send small messages faster: MPICH 4.0 over UCX took 8-12 % longer
/// per 8 B ping-pong once the host message grew past 28 bytes (header and data), Open MPI past
/// 40 (docs/performance.md, the host's size classes). A 24-byte header put every 8 B message past both.
pub(crate) const EAGER_HEADER_BYTES: usize = 12;
// 8 B of data with its header stays within MPICH's 28-byte class.
const _: () = assert!(EAGER_HEADER_BYTES + 8 <= 28);
/// Bytes of a rendezvous header: source, tag, data tag (flagged), and the data's size.
pub(crate) const RENDEZVOUS_HEADER_BYTES: usize = 20;
/// The longest header.
pub(crate) const MAX_HEADER_BYTES: usize = RENDEZVOUS_HEADER_BYTES;
/// Eager data travels in one host message with its header; its size fits the header's word.
pub(crate) const MAX_EAGER_BYTES: u64 = (RENDEZVOUS_FLAG - 1) as u64;
/// Set in the third word of a rendezvous header, whose low bits hold the data tag (host tags
/// are non-negative `int`s); clear in an eager header, whose word is the data's size.
const RENDEZVOUS_FLAG: u32 = 1 << 31;

impl WireHeader {
    /// Length of this header on the wire, in bytes: `EAGER_HEADER_BYTES` (12) or
    /// `RENDEZVOUS_HEADER_BYTES` (20). The format is this library's own, between its
    /// processes (no MPI structure); pure, so callable from any thread.
    #[inline]
    pub fn wire_bytes(&self) -> usize {
        match self.protocol {
            Protocol::Eager => EAGER_HEADER_BYTES,
            Protocol::Rendezvous { .. } => RENDEZVOUS_HEADER_BYTES,
        }
    }

    /// The header's bytes, little-endian: source and tag (4 bytes each), then a word holding
    /// the eager data's size in bytes, or the top bit set with the data tag followed by the
    /// data's size (8 bytes). Only the first [`wire_bytes`](Self::wire_bytes) of the array are
    /// sent (the rest are zero). Eager data must not exceed `MAX_EAGER_BYTES` (2^31 - 1), and a data tag
    /// must be non-negative (checked in debug builds; the engine never makes others).
    #[inline]
    pub fn encode(&self) -> [u8; MAX_HEADER_BYTES] {
        let mut out = [0u8; MAX_HEADER_BYTES];
        out[0..4].copy_from_slice(&self.envelope.source.to_le_bytes());
        out[4..8].copy_from_slice(&self.envelope.tag.to_le_bytes());
        match self.protocol {
            Protocol::Eager => {
                debug_assert!(self.bytes <= MAX_EAGER_BYTES);
                out[8..12].copy_from_slice(&(self.bytes as u32).to_le_bytes());
            }
            Protocol::Rendezvous { data_tag } => {
                debug_assert!(data_tag >= 0);
                out[8..12].copy_from_slice(&(RENDEZVOUS_FLAG | data_tag as u32).to_le_bytes());
                out[12..20].copy_from_slice(&self.bytes.to_le_bytes());
            }
        }
        out
    }

    /// Decodes the header at the start of `b` (the received packet, header first); `None` when
    /// `b` is shorter than the header its third word announces. Trailing bytes (the eager
    /// data) are left to the caller, which checks the announced size against them.
    #[inline]
    pub fn decode(b: &[u8]) -> Option<WireHeader> {
        let word_at = |o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().unwrap()));
        let envelope = Envelope { source: word_at(0)? as i32, tag: word_at(4)? as i32 };
        let word = word_at(8)?;
        if word & RENDEZVOUS_FLAG == 0 {
            return Some(WireHeader { envelope, protocol: Protocol::Eager, bytes: word as u64 });
        }
        let bytes = u64::from_le_bytes(b.get(12..20)?.try_into().unwrap());
        Some(WireHeader { envelope, protocol: Protocol::Rendezvous { data_tag: (word & !RENDEZVOUS_FLAG) as i32 }, bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_keeps_full_tags() {
        for h in [
            WireHeader { envelope: Envelope { source: 0, tag: 0 }, protocol: Protocol::Eager, bytes: 0 },
            WireHeader { envelope: Envelope { source: 5, tag: i32::MAX }, protocol: Protocol::Eager, bytes: MAX_EAGER_BYTES },
            WireHeader {
                envelope: Envelope { source: 1023, tag: i32::MAX },
                protocol: Protocol::Rendezvous { data_tag: 77 },
                bytes: 1 << 40,
            },
            WireHeader {
                envelope: Envelope { source: i32::MAX, tag: 0 },
                protocol: Protocol::Rendezvous { data_tag: i32::MAX },
                bytes: u64::MAX,
            },
        ] {
            let wire = h.encode();
            assert!(wire[h.wire_bytes()..].iter().all(|&b| b == 0), "nothing past the header's length");
            assert_eq!(WireHeader::decode(&wire[..h.wire_bytes()]), Some(h));
            assert_eq!(WireHeader::decode(&wire[..h.wire_bytes() - 1]), None, "a cut header is no header");
        }
        assert_eq!(WireHeader::decode(&[0u8; 11]), None);
    }

    #[test]
    fn wildcards_match() {
        let e = Envelope { source: 3, tag: 9 };
        assert!(Pattern { source: 3, tag: 9 }.matches(&e));
        assert!(Pattern { source: ANY_SOURCE, tag: 9 }.matches(&e));
        assert!(Pattern { source: 3, tag: ANY_TAG }.matches(&e));
        assert!(Pattern { source: ANY_SOURCE, tag: ANY_TAG }.matches(&e));
        assert!(!Pattern { source: 2, tag: 9 }.matches(&e));
        assert!(!Pattern { source: 3, tag: 8 }.matches(&e));
    }
}
