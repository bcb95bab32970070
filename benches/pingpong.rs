//! Ping-pong latency and bandwidth against message size (8 B, then 1 KiB .. 16 MiB by powers
//! of 4), side by side in one run: plain host MPI between two processes, two endpoints of one
//! process (local transport), and one endpoint in each of two processes (remote transport).
//! Records the half round-trip time (metric `latency`, us) and bandwidth (`bandwidth`, GB/s,
//! from 1 KiB) per size: medians over repetitions with the spread, and ratios to plain MPI
//! (CSV rows with `EPMPI_BENCH_DIR`, see `common/record.rs`; sizes from `EPMPI_BENCH_SIZES`).
//!
//! `cargo bench --bench pingpong` (launches itself under mpirun with 2 processes; the MPI is
//! the one `MPICC` names, as for the build). Not a timed test: a report.

mod common;

use common::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use common::record::{Recorder, XUnit};
use std::time::Duration;

const LAT_ITERS: usize = 20_000;
/// Bytes moved one way per repetition for large messages.
const BUDGET: u64 = 128 << 20;

fn iters(bytes: u64) -> usize {
    common::sizes::iters(bytes, LAT_ITERS, BUDGET)
}

/// One ping-pong side: `send(buf, n)` / `recv(buf, n)` given as closures.
fn pingpong(first: bool, iters: usize, mut send: impl FnMut(), mut recv: impl FnMut()) -> f64 {
    let t0 = unsafe { sys::MPI_Wtime() };
    for _ in 0..iters {
        if first {
            send();
            recv();
        } else {
            recv();
            send();
        }
    }
    (unsafe { sys::MPI_Wtime() } - t0) / (2 * iters) as f64
}

/// Repetitions (after a warm-up) of `one(bytes)` for each size, with a host barrier before each.
fn per_size(sizes: &[u64], mut one: impl FnMut(u64) -> f64, barrier: bool) -> Vec<Vec<f64>> {
    sizes
        .iter()
        .map(|&bytes| {
            (0..common::sizes::reps_per_round() + 1)
                .map(|_| {
                    if barrier {
                        unsafe { sys::MPI_Barrier(HOST.comm_world) };
                    }
                    one(bytes)
                })
                .skip(1) // warm-up
                .collect()
        })
        .collect()
}

fn plain_mpi(rank: i32, sizes: &[u64]) -> Vec<Vec<f64>> {
    let mut buf = vec![1u8; *sizes.iter().max().unwrap() as usize];
    let peer = 1 - rank;
    let p = buf.as_mut_ptr() as *mut c_void;
    per_size(
        sizes,
        |bytes| unsafe {
            pingpong(
                rank == 0,
                iters(bytes),
                || {
                    sys::MPI_Send(p, bytes as i32, HOST.byte, peer, 1, HOST.comm_world);
                },
                || {
                    sys::MPI_Recv(p, bytes as i32, HOST.byte, peer, 1, HOST.comm_world, HOST.status_ignore);
                },
            )
        },
        true,
    )
}

fn ep_pingpong(comm: EP_Comm, me: i32, buf: &mut [u8], bytes: u64) -> f64 {
    let p = buf.as_mut_ptr() as *mut c_void;
    let peer = 1 - me;
    pingpong(
        me == 0,
        iters(bytes),
        || unsafe {
            EP_Send(p, bytes as i32, HOST.byte, peer, 1, comm);
        },
        || unsafe {
            EP_Recv(p, bytes as i32, HOST.byte, peer, 1, comm, std::ptr::null_mut());
        },
    )
}

/// Two endpoints of process 0, one thread each.
fn same_process(rank: i32, sizes: &[u64]) -> Vec<Vec<f64>> {
    let max = *sizes.iter().max().unwrap() as usize;
    let times = common::on_endpoints_of_process_zero(rank, 2, |i, c| {
        let mut buf = vec![1u8; max];
        per_size(sizes, |bytes| ep_pingpong(c, i as i32, &mut buf, bytes), false)
    });
    times.map(|mut t| t.swap_remove(0)).unwrap_or_default()
}

/// One endpoint in each process.
fn cross_process(rank: i32, sizes: &[u64]) -> Vec<Vec<f64>> {
    let mut c = EP_COMM_NULL;
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, 1, HOST.info_null, &mut c) };
    let mut buf = vec![1u8; *sizes.iter().max().unwrap() as usize];
    let v = per_size(sizes, |bytes| ep_pingpong(c, rank, &mut buf, bytes), true);
    unsafe { EP_Comm_free(&mut c) };
    v
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    let mut default = vec![8];
    default.extend(common::sizes::powers_of_4(1 << 10, 16 << 20));
    let sizes = common::sizes::sizes(&default, 1, 1 << 30);
    type Phase = fn(i32, &[u64]) -> Vec<Vec<f64>>;
    let methods: [(&str, Phase); 3] =
        [("plain MPI, 2 processes", plain_mpi), ("EP, same process", same_process), ("EP, 2 processes", cross_process)];
    let rows = common::interleaved(&methods, sizes.len(), |phase, i| phase(rank, &sizes[i..=i]).pop().unwrap_or_default());
    if rank == 0 {
        let mut rec = Recorder::new("pingpong", common::world_size());
        for (method, per_size) in rows.iter() {
            for (&bytes, times) in sizes.iter().zip(per_size) {
                rec.add_us("latency", method, bytes, XUnit::Bytes, times);
                if bytes >= 1 << 10 {
                    rec.add_gbs("bandwidth", method, bytes, times);
                }
            }
        }
        rec.finish();
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(600));
}
