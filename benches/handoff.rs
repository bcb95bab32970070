//! The floor under same-process latency: what handing 8 bytes from one thread to another
//! and back costs on this machine with no library at all, for three memory layouts, in one
//! run (no MPI). Half round trip, median over repetitions (metric `handoff`, ns):
//! * one line: both threads take turns writing and spinning on one cache line;
//! * a ring per direction: a 16-cell ring of cache-line cells each way, the layout of EPMPI's
//!   local channels (`src/engine/spsc.rs`);
//! * rings sharing lines: cell i of both directions in one cache line.
//!
//! EPMPI's same-process ping-pong (`pingpong`) cannot go below the ring-per-direction figure;
//! the difference is the library's own work per message. `cargo bench --bench handoff`.

mod common;

use common::record::{Recorder, XUnit};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

const CELLS: usize = 16;
const ITERS: u64 = 200_000;

/// One direction's cell: a sequence number and 8 bytes of data in one line.
#[repr(C, align(64))]
#[derive(Default)]
struct Line {
    seq: [AtomicU64; 2],
    data: [AtomicU64; 2],
}

/// Ring layouts: `lines[dir][i]` (a ring per direction) or `lines[0][i]` with one slot per
/// direction in the same line (shared).
struct Rings {
    lines: [Vec<Line>; 2],
    shared: bool,
}

impl Rings {
    fn new(shared: bool) -> Rings {
        Rings { lines: [(0..CELLS).map(|_| Line::default()).collect(), (0..CELLS).map(|_| Line::default()).collect()], shared }
    }

    fn slot(&self, dir: usize, i: u64) -> (&AtomicU64, &AtomicU64) {
        let k = i as usize % CELLS;
        if self.shared {
            (&self.lines[0][k].seq[dir], &self.lines[0][k].data[dir])
        } else {
            (&self.lines[dir][k].seq[0], &self.lines[dir][k].data[0])
        }
    }

    fn send(&self, dir: usize, i: u64, v: u64) {
        let (seq, data) = self.slot(dir, i);
        data.store(v, Ordering::Relaxed);
        seq.store(i + 1, Ordering::Release);
    }

    fn recv(&self, dir: usize, i: u64) -> u64 {
        let (seq, data) = self.slot(dir, i);
        while seq.load(Ordering::Acquire) != i + 1 {
            std::hint::spin_loop();
        }
        data.load(Ordering::Relaxed)
    }
}

/// Half round trip in ns through rings of the given layout.
fn rings(shared: bool) -> f64 {
    let r = Arc::new(Rings::new(shared));
    let peer = {
        let r = r.clone();
        std::thread::spawn(move || {
            for i in 0..ITERS {
                let v = r.recv(0, i);
                r.send(1, i, v);
            }
        })
    };
    let t = Instant::now();
    for i in 0..ITERS {
        r.send(0, i, i);
        r.recv(1, i);
    }
    let ns = t.elapsed().as_nanos() as f64 / (2 * ITERS) as f64;
    peer.join().unwrap();
    ns
}

/// Half round trip in ns through one line both threads write.
fn one_line() -> f64 {
    let flag = Arc::new(Line::default());
    let peer = {
        let f = flag.clone();
        std::thread::spawn(move || {
            for i in 0..ITERS {
                while f.seq[0].load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                f.seq[0].store(2 * i + 2, Ordering::Release);
            }
        })
    };
    let t = Instant::now();
    for i in 0..ITERS {
        flag.seq[0].store(2 * i + 1, Ordering::Release);
        while flag.seq[0].load(Ordering::Acquire) != 2 * i + 2 {
            std::hint::spin_loop();
        }
    }
    let ns = t.elapsed().as_nanos() as f64 / (2 * ITERS) as f64;
    peer.join().unwrap();
    ns
}

fn main() {
    type Layout = fn() -> f64;
    let layouts: [(&str, Layout); 3] = [
        ("one line, both directions", one_line),
        ("a ring per direction (EP local channels)", || rings(false)),
        ("rings sharing lines between directions", || rings(true)),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); layouts.len()];
    // In turns, after one warm-up round, so drift weighs on every layout alike.
    for round in 0..=common::sizes::reps() {
        for (k, (_, f)) in layouts.iter().enumerate() {
            let ns = f();
            if round > 0 {
                times[k].push(ns * 1e-9);
            }
        }
    }
    let mut rec = Recorder::new("handoff", 1);
    for ((name, _), t) in layouts.iter().zip(&times) {
        rec.add_us("handoff", name, 8, XUnit::Bytes, t);
    }
    rec.finish();
}
