//! Envelopes: what a message carries besides its data (MPI 4.1 section 3.2.3), and the
//! matching rule. How an envelope travels between processes is the remote transport's wire
//! header (see [`super::transport::remote`]).

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

#[cfg(test)]
mod tests {
    use super::*;

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
