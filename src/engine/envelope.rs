//! Envelopes: what a message carries besides its data (MPI 4.1 section 3.2.3), the header
//! that carries it between processes, and the matching rule.
//!
//! The host MPI carries a remote message on the communicator's host communicator with the
//! host tag equal to the destination's local index, so each endpoint probes only its own
//! messages (`MPI_Improbe(MPI_ANY_SOURCE, my_index)`) and needs no shared queue or lock. The
//! user's tag and the source rank travel in this 24-byte header, so tags are never packed
//! into host tag bits and nothing is truncated: any tag up to `i32::MAX` works.

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

pub(crate) const HEADER_BYTES: usize = 24;
const KIND_EAGER: u32 = 1;
const KIND_RENDEZVOUS: u32 = 2;

impl WireHeader {
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut out = [0u8; HEADER_BYTES];
        let (kind, data_tag) = match self.protocol {
            Protocol::Eager => (KIND_EAGER, 0),
            Protocol::Rendezvous { data_tag } => (KIND_RENDEZVOUS, data_tag),
        };
        out[0..4].copy_from_slice(&self.envelope.source.to_le_bytes());
        out[4..8].copy_from_slice(&self.envelope.tag.to_le_bytes());
        out[8..12].copy_from_slice(&kind.to_le_bytes());
        out[12..16].copy_from_slice(&data_tag.to_le_bytes());
        out[16..24].copy_from_slice(&self.bytes.to_le_bytes());
        out
    }

    /// Decodes a header; `None` when the bytes are not one (too short, unknown kind).
    pub fn decode(b: &[u8]) -> Option<WireHeader> {
        if b.len() < HEADER_BYTES {
            return None;
        }
        let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let kind = u32::from_le_bytes(b[8..12].try_into().unwrap());
        let protocol = match kind {
            KIND_EAGER => Protocol::Eager,
            KIND_RENDEZVOUS => Protocol::Rendezvous { data_tag: i32_at(12) },
            _ => return None,
        };
        Some(WireHeader {
            envelope: Envelope { source: i32_at(0), tag: i32_at(4) },
            protocol,
            bytes: u64::from_le_bytes(b[16..24].try_into().unwrap()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_keeps_full_tags() {
        for h in [
            WireHeader { envelope: Envelope { source: 0, tag: 0 }, protocol: Protocol::Eager, bytes: 8 },
            WireHeader {
                envelope: Envelope { source: 1023, tag: i32::MAX },
                protocol: Protocol::Rendezvous { data_tag: 77 },
                bytes: 1 << 40,
            },
        ] {
            assert_eq!(WireHeader::decode(&h.encode()), Some(h));
        }
        assert_eq!(WireHeader::decode(&[0u8; 10]), None);
        assert_eq!(WireHeader::decode(&[0u8; 24]), None);
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
