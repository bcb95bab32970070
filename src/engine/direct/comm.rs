//! The host side of a communicator in direct mode: its two host communicators, the sequence
//! of its announced messages, and the messages probes have taken out of the host's matching.

use super::transfer::DirectMessage;
use crate::engine::envelope::Pattern;
use crate::host::{self, HostComm};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// A communicator in direct mode, as its one endpoint in this process sees it.
pub struct DirectComm {
    /// Host rank = endpoint rank, user tag = host tag: every message that travels whole and
    /// every notice (see [`super::notice`]).
    pub(super) host: HostComm,
    /// The same group: the data of announced messages, tagged with their sequence numbers.
    pub(super) data: HostComm,
    /// The next announced message's sequence number (its tag on `data`), modulo 2^31.
    next_seq: AtomicU32,
    /// `taken`'s length, read without its lock: zero lets receives and probes go straight to
    /// the host.
    taken_len: AtomicUsize,
    /// Messages a probe had to take out of the host's matching (`EP_Iprobe` that met a
    /// notice, whose data's length only the notice says, takes every arrived message), in the
    /// host's order. They arrived before anything still in the host, so receives and probes
    /// look here first.
    taken: Mutex<VecDeque<DirectMessage>>,
}

impl DirectComm {
    /// The direct communicator over the host communicators `host` (messages and notices) and
    /// `data` (announced data), which it frees when dropped.
    pub(super) fn new(host: HostComm, data: HostComm) -> DirectComm {
        DirectComm {
            host,
            data,
            next_seq: AtomicU32::new(0),
            taken_len: AtomicUsize::new(0),
            taken: Mutex::new(VecDeque::new()),
        }
    }

    /// The tag on the data communicator of the next message this process announces. Any
    /// thread: the receiver finds the data by (source, tag), so two announced messages from
    /// one sender only need different numbers.
    pub(super) fn next_seq(&self) -> c_int {
        (self.next_seq.fetch_add(1, Ordering::Relaxed) & c_int::MAX as u32) as c_int
    }

    /// Messages held by probes (see the field).
    #[inline(always)]
    pub(super) fn taken_len(&self) -> usize {
        self.taken_len.load(Ordering::Acquire)
    }

    /// Appends a message a probe took out of the host's matching.
    pub(super) fn hold(&self, m: DirectMessage) {
        let mut q = self.taken.lock();
        q.push_back(m);
        self.taken_len.store(q.len(), Ordering::Release);
    }

    /// The first held message `pattern` matches, removed.
    pub(super) fn take(&self, pattern: &Pattern) -> Option<DirectMessage> {
        let mut q = self.taken.lock();
        let found = q.iter().position(|m| pattern.matches(&m.envelope)).and_then(|i| q.remove(i));
        self.taken_len.store(q.len(), Ordering::Release);
        found
    }

    /// The status of the first held message `pattern` matches, left in place.
    pub(super) fn peek(&self, pattern: &Pattern) -> Option<crate::engine::message::Completion> {
        self.taken.lock().iter().find(|m| pattern.matches(&m.envelope)).map(DirectMessage::completion)
    }
}

impl Drop for DirectComm {
    fn drop(&mut self) {
        host::free_comm(self.host);
        host::free_comm(self.data);
    }
}
