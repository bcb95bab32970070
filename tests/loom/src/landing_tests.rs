//! Models of a landing (`src/engine/transport/landing.rs`) beside its channel: a sender lands
//! its messages when the receive has posted the landing and taken everything the sender sent
//! before, and pushes them into the channel otherwise, while the receive takes from the channel
//! first, then posts, watches, and withdraws as the library's blocking receive does. Every
//! message arrives once and in order, and loom reports a data race if the receive could read
//! its buffer before the sender's copy into it is visible, or the sender write into a buffer
//! the receive has already read (the buffer is a loom cell here). Checked by mutation: with
//! the landed state stored `Relaxed`, the sender not comparing its count with the landing's,
//! or a withdrawal that ignores a claim, these models fail.

use crate::landing::Landing;
use crate::spsc::Channel;
use crate::tests::model;
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

/// The sender's side: every message lands if it can, else goes into the channel.
fn send(ch: &Channel<u32>, landing: &Landing, buf: &UnsafeCell<u32>, m: u32) {
    // Scheduling point of our own (see `model`'s caveat).
    thread::yield_now();
    // SAFETY: the copy writes the model's receive buffer, a loom cell that checks the access.
    let landed = landing.try_land(0, 0, 4, |taken| ch.all_taken(taken), |_| buf.with_mut(|p| unsafe { *p = m }));
    if !landed {
        ch.push(m);
    }
}

/// The receive's side, one receive: the channel first, then the landing, watched for `turns`
/// turns while the channel stays empty, then withdrawn; again until a message comes.
fn receive(ch: &Channel<u32>, landing: &Landing, buf: &UnsafeCell<u32>, turns: usize) -> u32 {
    loop {
        if let Some(m) = ch.pop() {
            return m;
        }
        // SAFETY: the model's buffer is never read through this pointer (the sender's copy
        // writes the cell instead).
        unsafe { landing.post(0, Some(0), std::ptr::null_mut(), 4, ch.taken()) };
        let mut landed = None;
        for _ in 0..turns {
            thread::yield_now();
            landed = landing.landed();
            if landed.is_some() || ch.has_next() {
                break;
            }
        }
        if landed.or_else(|| landing.withdraw()).is_some() {
            // SAFETY: a loom cell read, checked against the sender's write.
            return buf.with(|p| unsafe { *p });
        }
    }
}

/// Two messages from one sender to one receive after another: in order, once each, whether
/// each lands or goes through the channel.
fn two_messages(turns: usize, bound: usize) {
    model(bound, move || {
        let ch = Arc::new(Channel::<u32>::new(2));
        let landing = Arc::new(Landing::new());
        let buf = Arc::new(UnsafeCell::new(0u32));
        let sender = {
            let (ch, landing, buf) = (ch.clone(), landing.clone(), buf.clone());
            thread::spawn(move || {
                for m in 1..=2 {
                    send(&ch, &landing, &buf, m);
                }
            })
        };
        let got = [receive(&ch, &landing, &buf, turns), receive(&ch, &landing, &buf, turns)];
        sender.join().unwrap();
        assert_eq!(got, [1, 2], "lost, duplicated or reordered");
    });
}

#[test]
fn loom_landing_keeps_order_watching_once() {
    two_messages(1, 2);
}

#[test]
fn loom_landing_keeps_order_watching_twice() {
    two_messages(2, 2);
}
