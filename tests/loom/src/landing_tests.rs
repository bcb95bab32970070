//! Models of a landing (`src/engine/transport/landing.rs`) beside its channel: a sender lands
//! its messages when the receive has posted the landing and taken everything the sender sent
//! before, and pushes them into the channel otherwise, while the receive takes from the channel
//! first, then posts, watches, and withdraws as the library's blocking receive does. Every
//! message arrives once and in order, and loom reports a data race if the receive could read
//! its buffer before the sender's copy into it is visible, or the sender write into a buffer
//! the receive has already read (the buffer is a loom cell here). Checked by mutation: with
//! the landed state stored `Relaxed`, the sender not comparing its count with the landing's,
//! or a withdrawal that ignores a claim, these models fail. A message left in the channel's
//! overflow takes more messages than a model explores in minutes; the count's check of the
//! overflow is a unit test in `src/engine/transport/local.rs`.

use crate::landing::Landing;
use crate::spsc::Channel;
use crate::tests::model;
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use std::collections::VecDeque;

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

/// The receive's side, one receive: what its endpoint already took from the channel first
/// (`queued`, the library's unexpected queue), then the channel, ring and overflow, then the
/// landing, watched for `turns` turns while the channel stays empty, then withdrawn; again
/// until a message comes.
fn receive(ch: &Channel<u32>, landing: &Landing, buf: &UnsafeCell<u32>, queued: &mut VecDeque<u32>, turns: usize) -> u32 {
    loop {
        ch.drain(|m| {
            queued.push_back(m);
            Ok::<(), ()>(())
        })
        .unwrap();
        if let Some(m) = queued.pop_front() {
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

/// `n` messages from one sender through a ring of `cells` to one receive after another: in
/// order, once each, whether each lands or goes through the ring or its overflow.
fn messages(n: u32, cells: u64, turns: usize, bound: usize) {
    model(bound, move || {
        let ch = Arc::new(Channel::<u32>::new(cells));
        let landing = Arc::new(Landing::new());
        let buf = Arc::new(UnsafeCell::new(0u32));
        let sender = {
            let (ch, landing, buf) = (ch.clone(), landing.clone(), buf.clone());
            thread::spawn(move || {
                for m in 1..=n {
                    send(&ch, &landing, &buf, m);
                }
            })
        };
        let mut queued = VecDeque::new();
        let got: Vec<u32> = (0..n).map(|_| receive(&ch, &landing, &buf, &mut queued, turns)).collect();
        sender.join().unwrap();
        assert_eq!(got, (1..=n).collect::<Vec<_>>(), "lost, duplicated or reordered");
    });
}

#[test]
fn loom_landing_keeps_order_watching_once() {
    messages(2, 2, 1, 2);
}

#[test]
fn loom_landing_keeps_order_watching_twice() {
    messages(2, 2, 2, 2);
}
