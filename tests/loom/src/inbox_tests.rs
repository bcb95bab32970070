//! Models of the receivers' inboxes (`src/engine/inbox.rs`): two senders open their channels
//! to one receiver, each under the receiver's opening lock, and send, while the receiver walks
//! its list of opened channels and drains them. Every message arrives once and each sender's in
//! order; loom reports a causality violation if the receiver could reach a channel through its
//! list before the channel is fully built (the links are published with release, read with
//! acquire). The models use
//! blocks of 2 senders (`BLOCK` under `cfg(loom)`), so that two senders share a block (both
//! race to allocate it) or have one each. Checked by mutation: with the list links stored
//! `Relaxed`, these models fail.

use crate::inbox::Inboxes;
use crate::tests::model;
use loom::sync::Arc;
use loom::thread;

/// Messages each sender sends.
const MESSAGES: u32 = 2;

/// Every (sender, message) the receiver's wildcard drain of `receiver` hands over.
fn drain_all(inboxes: &Inboxes<(u32, u32)>, receiver: u32, got: &mut Vec<(u32, u32)>) {
    inboxes
        .for_each_opened(receiver, |ch| {
            ch.drain(|m| {
                got.push(m);
                Ok::<(), ()>(())
            })
        })
        .unwrap();
}

/// `senders` open channels to endpoint 3 of 4 and send [`MESSAGES`] each while it drains the
/// first sender's channel, then all; a last drain after they are done takes the rest.
fn senders_open_while_receiver_drains(senders: [u32; 2], bound: usize) {
    model(bound, move || {
        let inboxes = Arc::new(Inboxes::<(u32, u32)>::new(4, 2));
        let receiver = 3;
        let threads: Vec<_> = senders
            .iter()
            .map(|&s| {
                let inboxes = inboxes.clone();
                thread::spawn(move || {
                    for i in 0..MESSAGES {
                        // A scheduling point of our own (see `model`'s caveat).
                        thread::yield_now();
                        inboxes.get_or_open(receiver, s).push((s, i));
                    }
                })
            })
            .collect();
        let mut got = Vec::new();
        // A receive naming the first sender finds its channel through the block pointers.
        thread::yield_now();
        if let Some(ch) = inboxes.get(receiver, senders[0]) {
            ch.drain(|m| {
                got.push(m);
                Ok::<(), ()>(())
            })
            .unwrap();
        }
        thread::yield_now();
        drain_all(&inboxes, receiver, &mut got);
        for t in threads {
            t.join().unwrap();
        }
        drain_all(&inboxes, receiver, &mut got);
        for s in senders {
            let from_s: Vec<u32> = got.iter().filter(|m| m.0 == s).map(|m| m.1).collect();
            assert_eq!(from_s, (0..MESSAGES).collect::<Vec<_>>(), "sender {s}: lost, duplicated or reordered");
        }
        assert_eq!(got.len(), 2 * MESSAGES as usize);
        assert_eq!(inboxes.opened(receiver), 2);
    });
}

#[test]
fn loom_senders_of_one_block_open_while_receiver_drains() {
    senders_open_while_receiver_drains([0, 1], 3);
}

#[test]
fn loom_senders_of_two_blocks_open_while_receiver_drains() {
    senders_open_while_receiver_drains([1, 2], 3);
}
