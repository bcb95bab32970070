//! Message rate of 8 B messages with 2 senders at once, side by side in one run: plain host
//! MPI with 2 threads in each of 2 processes (`MPI_THREAD_MULTIPLE`, one duplicated
//! communicator per thread pair) and with 1 thread each (one sender: its rate is that of one sender), EPMPI with 2 endpoints in each of 2
//! processes (endpoints 0, 1 send to 2, 3), and EPMPI with 4 endpoints in one process.
//! Each sender posts a window of nonblocking sends, its receiver a window of receives, then a
//! zero-byte acknowledgement closes the window. Rate = messages of all senders per second
//! (Mmsg/s); medians over repetitions with the spread, ratios to plain MPI with 2 threads.
//!
//! `cargo bench --bench msgrate` (launches itself under mpirun with 2 processes; the MPI is
//! the one `MPICC` names). Not a timed test: a report.

mod common;

use common::record::{Recorder, XUnit};
use common::support::host_mpi::HostComm;
use common::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::time::Duration;

const WINDOW: usize = 64;
const BYTES: i32 = 8;

fn windows() -> usize {
    common::sizes::iters(1, 300, u64::MAX)
}

/// Seconds for the windows of one sender (`send`) or receiver, through `post(i)` (one
/// nonblocking call into request slot `i`), `wait` (all slots), and the acknowledgement.
fn windowed(send: bool, mut post: impl FnMut(usize), mut wait: impl FnMut(), mut ack_send: impl FnMut(), mut ack_recv: impl FnMut()) -> f64 {
    let t0 = unsafe { sys::MPI_Wtime() };
    for _ in 0..windows() {
        for i in 0..WINDOW {
            post(i);
        }
        wait();
        if send {
            ack_recv();
        } else {
            ack_send();
        }
    }
    unsafe { sys::MPI_Wtime() - t0 }
}

/// One plain MPI thread: sends to (or receives from) process `1 - rank` on `comm`.
fn plain_thread(rank: i32, comm: HostComm) -> f64 {
    let comm = comm.0;
    let mut buf = vec![0u8; WINDOW * BYTES as usize];
    let mut reqs: Vec<sys::MPI_Request> = vec![unsafe { std::mem::zeroed() }; WINDOW];
    let b = buf.as_mut_ptr();
    let r = reqs.as_mut_ptr();
    let peer = 1 - rank;
    windowed(
        rank == 0,
        |i| unsafe {
            let p = b.add(i * BYTES as usize) as *mut c_void;
            if rank == 0 {
                sys::MPI_Isend(p, BYTES, HOST.byte, peer, 1, comm, r.add(i));
            } else {
                sys::MPI_Irecv(p, BYTES, HOST.byte, peer, 1, comm, r.add(i));
            }
        },
        || unsafe {
            sys::MPI_Waitall(WINDOW as i32, r, sys::RSMPI_STATUSES_IGNORE);
        },
        || unsafe {
            sys::MPI_Send(std::ptr::null(), 0, HOST.byte, peer, 2, comm);
        },
        || unsafe {
            sys::MPI_Recv(std::ptr::null_mut(), 0, HOST.byte, peer, 2, comm, HOST.status_ignore);
        },
    )
}

/// Message rate repetitions of plain MPI with `threads` threads per process.
fn plain_mpi(rank: i32, threads: usize) -> Vec<f64> {
    let comms: Vec<HostComm> = (0..threads)
        .map(|_| {
            let mut c = HOST.comm_null;
            unsafe { sys::MPI_Comm_dup(HOST.comm_world, &mut c) };
            HostComm(c) // sendable to the threads
        })
        .collect();
    let v = (0..common::sizes::reps_per_round() + 1)
        .map(|_| {
            unsafe { sys::MPI_Barrier(HOST.comm_world) };
            let slowest = std::thread::scope(|s| {
                let hs: Vec<_> = comms.iter().map(|&c| s.spawn(move || plain_thread(rank, c))).collect();
                hs.into_iter().map(|h| h.join().unwrap()).fold(0.0, f64::max)
            });
            (threads * WINDOW * windows()) as f64 / slowest / 1e6
        })
        .skip(1)
        .collect();
    for mut c in comms {
        unsafe { sys::MPI_Comm_free(&mut c.0) };
    }
    v
}

/// One endpoint: ranks below `half` send to `me + half`, the others receive from `me - half`.
fn ep_thread(comm: EP_Comm, half: i32) -> f64 {
    let mut me = 0;
    unsafe { EP_Comm_rank(comm, &mut me) };
    let send = me < half;
    let peer = if send { me + half } else { me - half };
    let mut buf = vec![0u8; WINDOW * BYTES as usize];
    let mut reqs = vec![EP_REQUEST_NULL; WINDOW];
    let b = buf.as_mut_ptr();
    let r = reqs.as_mut_ptr();
    windowed(
        send,
        |i| unsafe {
            let p = b.add(i * BYTES as usize) as *mut c_void;
            if send {
                EP_Isend(p, BYTES, HOST.byte, peer, 1, comm, r.add(i));
            } else {
                EP_Irecv(p, BYTES, HOST.byte, peer, 1, comm, r.add(i));
            }
        },
        || unsafe {
            EP_Waitall(WINDOW as i32, r, std::ptr::null_mut());
        },
        || unsafe {
            EP_Send(std::ptr::null(), 0, HOST.byte, peer, 2, comm);
        },
        || unsafe {
            EP_Recv(std::ptr::null_mut(), 0, HOST.byte, peer, 2, comm, std::ptr::null_mut());
        },
    )
}

/// Message rate repetitions of `eps` endpoints in this process (2 senders in all).
fn endpoints(rank: i32, eps: usize, idle: bool) -> Vec<f64> {
    let mut comms = vec![EP_COMM_NULL; eps];
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, eps as i32, HOST.info_null, comms.as_mut_ptr()) };
    if idle {
        common::idle_until_done();
        return Vec::new();
    }
    let times = std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter()
            .map(|&c| {
                s.spawn(move || {
                    let v: Vec<f64> = (0..common::sizes::reps_per_round() + 1)
                        .map(|_| {
                            unsafe { EP_Barrier(c) };
                            ep_thread(c, 2)
                        })
                        .skip(1)
                        .collect();
                    let mut c = c;
                    unsafe { EP_Comm_free(&mut c) };
                    v
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    if eps == 4 {
        common::release_idle();
    }
    let _ = rank;
    // Slowest sender of each repetition (this process's senders; with 2x2 the peers agree).
    (0..times[0].len()).map(|k| (2 * WINDOW * windows()) as f64 / times.iter().map(|t| t[k]).fold(0.0, f64::max) / 1e6).collect()
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    type Phase = Box<dyn Fn() -> Vec<f64>>;
    let methods: [(&str, Phase); 4] = [
        ("plain MPI, 2 processes x 2 threads", Box::new(move || plain_mpi(rank, 2))),
        ("plain MPI, 2 processes x 1 thread", Box::new(move || plain_mpi(rank, 1))),
        ("EP, 2 processes x 2 endpoints", Box::new(move || endpoints(rank, 2, false))),
        ("EP, 1 process x 4 endpoints", Box::new(move || endpoints(rank, if rank == 0 { 4 } else { 0 }, rank != 0))),
    ];
    let rows = common::interleaved(&methods, 1, |phase, _| phase());
    if rank == 0 {
        let mut rec = Recorder::new("msgrate", common::world_size());
        for (method, rates) in rows.iter() {
            rec.add("message rate", method, BYTES as u64, XUnit::Bytes, "Mmsg/s", &rates[0]);
        }
        rec.finish();
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(600));
}
