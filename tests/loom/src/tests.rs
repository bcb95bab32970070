use crate::spsc::Channel;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Explores the interleavings with at most `bound` preemptions (`LOOM_MAX_PREEMPTIONS` in
/// the environment wins) and says how many it ran (`--nocapture`).
///
/// Caveat: loom 0.7's partial-order reduction misses interleavings when a thread loads an
/// atomic before storing it (tokio-rs/loom#166, #392), which both sides of the ring do on a
/// cell's `seq`: without help the ring models ran one interleaving. The threads therefore
/// yield before each push and drain (explicit scheduling points). Checked by mutation:
/// weakening either `Release` store of a cell's `seq` to `Relaxed` makes these models fail
/// with "Concurrent write accesses to `UnsafeCell`".
pub(crate) fn model(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(bound);
    }
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = runs.clone();
    b.check(move || {
        r.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f()
    });
    eprintln!("{} interleavings explored", runs.load(std::sync::atomic::Ordering::Relaxed));
}

fn drain_into(ch: &Channel<u32>, got: &mut Vec<u32>) {
    ch.drain(|m| {
        got.push(m);
        Ok::<(), ()>(())
    })
    .unwrap();
}

/// One sender pushes `n` messages into a ring of `cells` while the receiver drains `drains`
/// times; after the sender is done one last drain takes the rest. Every message arrives
/// once, in order, whichever way the ring, the overflow and the drains interleave.
fn sender_and_receiver(cells: u64, n: u32, drains: usize, bound: usize) {
    model(bound, move || {
        let ch = Arc::new(Channel::<u32>::new(cells));
        let sender = {
            let ch = ch.clone();
            thread::spawn(move || {
                for i in 0..n {
                    // Scheduling points of our own (see `model`'s caveat).
                    thread::yield_now();
                    ch.push(i);
                }
            })
        };
        let mut got = Vec::new();
        for _ in 0..drains {
            thread::yield_now();
            drain_into(&ch, &mut got);
        }
        sender.join().unwrap();
        drain_into(&ch, &mut got);
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "messages lost, duplicated or reordered");
    });
}

#[test]
fn loom_ring_only() {
    sender_and_receiver(2, 2, 2, 3);
}

#[test]
fn loom_ring_wraps_and_overflows() {
    // Three messages through two cells: the third finds the ring full unless the receiver
    // took the first, and goes to the overflow.
    sender_and_receiver(2, 3, 2, 3);
}

#[test]
#[should_panic(expected = "at least 2 cells")]
fn one_cell_rings_are_refused() {
    let _ = Channel::<u32>::new(1);
}

#[test]
fn loom_overflow_then_ring_again() {
    // Two cells, four messages: the ring fills, the overflow takes the rest, and a drain
    // in between hands the ring back to the sender.
    sender_and_receiver(2, 4, 2, 2);
}

/// Messages still in the channel when it is dropped are dropped with it (payloads hold
/// the senders' rendezvous buffers): none leaks, none is dropped twice.
#[test]
fn loom_undelivered_messages_dropped_once() {
    model(3, || {
        let token = Arc::new(());
        let ch = Arc::new(Channel::<Arc<()>>::new(2));
        let sender = {
            let (ch, token) = (ch.clone(), token.clone());
            thread::spawn(move || {
                for _ in 0..3 {
                    ch.push(token.clone());
                }
            })
        };
        let mut taken = 0;
        ch.drain(|_| {
            taken += 1;
            Ok::<(), ()>(())
        })
        .unwrap();
        sender.join().unwrap();
        assert!(taken <= 3);
        drop(ch);
        assert_eq!(Arc::strong_count(&token), 1, "a message outlived its channel");
    });
}

/// The local rendezvous handoff (`LocalSend` in src/engine/p2p/payload.rs): the message carries a
/// pointer to the sender's buffer; the receiver copies from it and then sets `done`
/// (release); the sender reuses its buffer once it sees `done` (acquire). loom reports a
/// data race on the buffer if either side's ordering is too weak.
struct LocalSend {
    buf: UnsafeCell<u64>,
    done: AtomicBool,
}

#[test]
fn loom_rendezvous_handoff() {
    model(3, || {
        let ch = Arc::new(Channel::<Arc<LocalSend>>::new(2));
        let sender = {
            let ch = ch.clone();
            thread::spawn(move || {
                let ls = Arc::new(LocalSend { buf: UnsafeCell::new(42), done: AtomicBool::new(false) });
                ch.push(ls.clone());
                while !ls.done.load(Ordering::Acquire) {
                    thread::yield_now();
                }
                // The send completed: the user may reuse the buffer.
                ls.buf.with_mut(|p| unsafe { *p = 7 });
            })
        };
        let mut copied = None;
        while copied.is_none() {
            ch.drain(|ls: Arc<LocalSend>| {
                copied = Some(ls.buf.with(|p| unsafe { *p }));
                ls.done.store(true, Ordering::Release);
                Ok::<(), ()>(())
            })
            .unwrap();
            if copied.is_none() {
                thread::yield_now();
            }
        }
        sender.join().unwrap();
        assert_eq!(copied, Some(42));
    });
}

