//! Ping-pong latency (8 B) and bandwidth (1 MiB), side by side in one run:
//! plain host MPI between two processes, two endpoints of one process (local transport),
//! and one endpoint in each of two processes (remote transport). Prints a table of medians
//! over repetitions with the spread, and ratios to plain MPI.
//!
//! `cargo bench --bench pingpong` (launches itself under mpirun with 2 processes; the MPI is
//! the one `MPICC` names, as for the build). Not a timed test: a report.

mod common;

use epmpi::host::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::time::Duration;

const REPS: usize = 7;
const LAT_ITERS: usize = 20_000;
const BW_ITERS: usize = 40;
const BW_BYTES: usize = 1 << 20;

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

fn plain_mpi(rank: i32, bytes: usize, iters: usize) -> Vec<f64> {
    let mut buf = vec![1u8; bytes];
    let peer = 1 - rank;
    let p = buf.as_mut_ptr() as *mut c_void;
    (0..REPS + 1)
        .map(|_| unsafe {
            sys::MPI_Barrier(HOST.comm_world);
            pingpong(
                rank == 0,
                iters,
                || {
                    sys::MPI_Send(p, bytes as i32, HOST.byte, peer, 1, HOST.comm_world);
                },
                || {
                    sys::MPI_Recv(p, bytes as i32, HOST.byte, peer, 1, HOST.comm_world, HOST.status_ignore);
                },
            )
        })
        .skip(1) // warm-up
        .collect()
}

fn ep_pingpong(comm: EP_Comm, me: i32, bytes: usize, iters: usize) -> f64 {
    let mut buf = vec![1u8; bytes];
    let p = buf.as_mut_ptr() as *mut c_void;
    let peer = 1 - me;
    pingpong(
        me == 0,
        iters,
        || unsafe {
            EP_Send(p, bytes as i32, HOST.byte, peer, 1, comm);
        },
        || unsafe {
            EP_Recv(p, bytes as i32, HOST.byte, peer, 1, comm, std::ptr::null_mut());
        },
    )
}

/// Two endpoints of process 0, one thread each.
fn same_process(rank: i32, bytes: usize, iters: usize) -> Vec<f64> {
    let n = if rank == 0 { 2 } else { 0 };
    let mut comms = [EP_COMM_NULL; 2];
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, n, HOST.info_null, comms.as_mut_ptr()) };
    if rank != 0 {
        common::idle_until_done();
        return Vec::new();
    }
    let times = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|i| {
                let mut c = comms[i];
                s.spawn(move || {
                    let v: Vec<f64> = (0..REPS + 1).map(|_| ep_pingpong(c, i as i32, bytes, iters)).skip(1).collect();
                    unsafe { EP_Comm_free(&mut c) };
                    v
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    common::release_idle();
    times[0].clone()
}

/// One endpoint in each process.
fn cross_process(rank: i32, bytes: usize, iters: usize) -> Vec<f64> {
    let mut c = EP_COMM_NULL;
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, 1, HOST.info_null, &mut c) };
    let v = (0..REPS + 1)
        .map(|_| {
            unsafe { sys::MPI_Barrier(HOST.comm_world) };
            ep_pingpong(c, rank, bytes, iters)
        })
        .skip(1)
        .collect();
    unsafe { EP_Comm_free(&mut c) };
    v
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    let rows = [
        ("plain MPI, 2 processes", plain_mpi(rank, 8, LAT_ITERS), plain_mpi(rank, BW_BYTES, BW_ITERS)),
        ("EP, same process", same_process(rank, 8, LAT_ITERS), same_process(rank, BW_BYTES, BW_ITERS)),
        ("EP, 2 processes", cross_process(rank, 8, LAT_ITERS), cross_process(rank, BW_BYTES, BW_ITERS)),
    ];
    if rank == 0 {
        let mut version = vec![0i8; EP_MAX_ERROR_STRING as usize];
        let mut len = 0;
        unsafe { EP_Get_library_version(version.as_mut_ptr(), &mut len) };
        let version: String = version[..len as usize].iter().map(|&c| c as u8 as char).collect();
        println!("# {version}; {REPS} repetitions, median [min, max]");
        println!("| method | 8 B latency (us) | ratio | 1 MiB bandwidth (GB/s) | ratio |");
        println!("|---|---|---|---|---|");
        let (base_lat, _, _) = common::summary(rows[0].1.clone());
        let base_bw = BW_BYTES as f64 / common::summary(rows[0].2.clone()).0 / 1e9;
        for (name, lat, bw) in rows.iter() {
            let (l, lmin, lmax) = common::summary(lat.clone());
            let (b, bmin, bmax) = common::summary(bw.clone());
            let gbs = |t: f64| BW_BYTES as f64 / t / 1e9;
            println!(
                "| {name} | {:.3} [{:.3}, {:.3}] | {:.2}x | {:.2} [{:.2}, {:.2}] | {:.2}x |",
                l * 1e6,
                lmin * 1e6,
                lmax * 1e6,
                l / base_lat,
                gbs(b),
                gbs(bmax),
                gbs(bmin),
                gbs(b) / base_bw
            );
        }
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(600));
}
