//! Per-endpoint matching queues (MPI 4.1 section 3.5): the posted-receive queue and the
//! unexpected-message queue.
//!
//! Invariant: no posted receive matches any unexpected message (a receive first searches the
//! unexpected queue, a message first searches the posted queue), so both queues stay in
//! arrival order and the first match found is the one MPI requires. Messages from one source
//! arrive in send order (local sends push in order; remote ones come from one host
//! communicator and tag, which the host keeps in order), which gives non-overtaking.

use super::envelope::{Envelope, Pattern};
use std::collections::VecDeque;

pub struct MatchQueues<P, U> {
    posted: VecDeque<(Pattern, P)>,
    unexpected: VecDeque<(Envelope, U)>,
}

impl<P, U> Default for MatchQueues<P, U> {
    fn default() -> Self {
        MatchQueues { posted: VecDeque::new(), unexpected: VecDeque::new() }
    }
}

impl<P, U> MatchQueues<P, U> {
    /// The first posted receive matching an arriving message, removed.
    #[inline]
    pub fn take_posted(&mut self, e: &Envelope) -> Option<P> {
        if self.posted.is_empty() {
            return None;
        }
        let i = self.posted.iter().position(|(p, _)| p.matches(e))?;
        self.posted.remove(i).map(|(_, p)| p)
    }

    /// Appends a receive that matched nothing.
    pub fn push_posted(&mut self, pattern: Pattern, p: P) {
        self.posted.push_back((pattern, p));
    }

    /// The first unexpected message matching a pattern, removed.
    #[inline]
    pub fn take_unexpected(&mut self, pattern: &Pattern) -> Option<(Envelope, U)> {
        if self.unexpected.is_empty() {
            return None;
        }
        let i = self.unexpected.iter().position(|(e, _)| pattern.matches(e))?;
        self.unexpected.remove(i)
    }

    /// The first unexpected message matching a pattern, left in place (probe).
    pub fn peek_unexpected(&self, pattern: &Pattern) -> Option<&(Envelope, U)> {
        self.unexpected.iter().find(|(e, _)| pattern.matches(e))
    }

    /// Appends a message that matched no posted receive.
    pub fn push_unexpected(&mut self, e: Envelope, u: U) {
        self.unexpected.push_back((e, u));
    }

    /// Removes the posted receive for which `is_it` holds (cancel); true if it was there.
    pub fn remove_posted(&mut self, is_it: impl Fn(&P) -> bool) -> bool {
        match self.posted.iter().position(|(_, p)| is_it(p)) {
            Some(i) => {
                self.posted.remove(i);
                true
            }
            None => false,
        }
    }

    pub fn posted_len(&self) -> usize {
        self.posted.len()
    }

    #[cfg(test)]
    pub fn unexpected_len(&self) -> usize {
        self.unexpected.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::envelope::{ANY_SOURCE, ANY_TAG};
    use super::*;

    fn env(source: i32, tag: i32) -> Envelope {
        Envelope { source, tag }
    }
    fn pat(source: i32, tag: i32) -> Pattern {
        Pattern { source, tag }
    }

    #[test]
    fn unexpected_messages_match_in_arrival_order() {
        let mut q: MatchQueues<u32, u32> = MatchQueues::default();
        q.push_unexpected(env(1, 5), 10);
        q.push_unexpected(env(2, 5), 20);
        q.push_unexpected(env(1, 5), 11);
        q.push_unexpected(env(1, 6), 12);
        assert_eq!(q.take_unexpected(&pat(1, 5)), Some((env(1, 5), 10)));
        assert_eq!(q.peek_unexpected(&pat(ANY_SOURCE, ANY_TAG)).map(|x| x.1), Some(20));
        assert_eq!(q.take_unexpected(&pat(1, ANY_TAG)), Some((env(1, 5), 11)));
        assert_eq!(q.take_unexpected(&pat(ANY_SOURCE, 6)), Some((env(1, 6), 12)));
        assert_eq!(q.take_unexpected(&pat(1, ANY_TAG)), None);
        assert_eq!(q.unexpected_len(), 1);
    }

    #[test]
    fn posted_receives_match_in_post_order() {
        let mut q: MatchQueues<&str, ()> = MatchQueues::default();
        q.push_posted(pat(ANY_SOURCE, 7), "any-7");
        q.push_posted(pat(3, ANY_TAG), "3-any");
        q.push_posted(pat(3, 7), "3-7");
        assert_eq!(q.take_posted(&env(3, 7)), Some("any-7"));
        assert_eq!(q.take_posted(&env(3, 7)), Some("3-any"));
        assert_eq!(q.take_posted(&env(4, 8)), None);
        assert_eq!(q.take_posted(&env(3, 7)), Some("3-7"));
        assert_eq!(q.posted_len(), 0);
    }

    #[test]
    fn cancel_removes_only_the_named_receive() {
        let mut q: MatchQueues<u32, ()> = MatchQueues::default();
        q.push_posted(pat(1, 1), 1);
        q.push_posted(pat(1, 1), 2);
        assert!(q.remove_posted(|p| *p == 2));
        assert!(!q.remove_posted(|p| *p == 2));
        assert_eq!(q.take_posted(&env(1, 1)), Some(1));
    }
}
