//! Collective latency, side by side in one run: plain host MPI on 2 processes, EPMPI with
//! 2 endpoints in 1 process (shared-memory path, no host call), and EPMPI with 1 endpoint in
//! each of 2 processes (host collective). `EP_Barrier`, `EP_Allreduce` of 8 doubles and of
//! 1 MiB, `EP_Bcast` of 1 MiB; medians over repetitions with the spread, ratios to plain MPI.
//!
//! `cargo bench --bench collectives` (launches itself under mpirun with 2 processes; the MPI
//! is the one `MPICC` names). Not a timed test: a report.

mod common;

use epmpi::host::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::time::Duration;

const REPS: usize = 7;

#[derive(Clone, Copy)]
enum Op {
    Barrier,
    Allreduce(usize),
    Bcast(usize),
}

impl Op {
    fn name(&self) -> String {
        match self {
            Op::Barrier => "Barrier".into(),
            Op::Allreduce(n) => format!("Allreduce {}", size_text(n * 8)),
            Op::Bcast(n) => format!("Bcast {}", size_text(n * 8)),
        }
    }

    fn iters(&self) -> usize {
        match self {
            Op::Barrier | Op::Allreduce(1..=64) => 20_000,
            _ => 60,
        }
    }

    fn doubles(&self) -> usize {
        match self {
            Op::Barrier => 0,
            Op::Allreduce(n) | Op::Bcast(n) => *n,
        }
    }
}

fn size_text(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} B")
    }
}

/// The host's MPI_DOUBLE and MPI_SUM (mpi-sys exports them).
fn double_and_sum() -> (sys::MPI_Datatype, sys::MPI_Op) {
    (unsafe { sys::RSMPI_DOUBLE }, unsafe { sys::RSMPI_SUM })
}

/// Seconds per call of `op` on plain MPI or an endpoint (`comm` = None: MPI_COMM_WORLD).
fn time_op(op: Op, comm: Option<EP_Comm>) -> f64 {
    let (double, sum) = double_and_sum();
    let n = op.doubles();
    let send = vec![1.0f64; n.max(1)];
    let mut recv = vec![0.0f64; n.max(1)];
    let (s, r) = (send.as_ptr() as *const c_void, recv.as_mut_ptr() as *mut c_void);
    let iters = op.iters();
    let t0 = unsafe { sys::MPI_Wtime() };
    for _ in 0..iters {
        unsafe {
            match (op, comm) {
                (Op::Barrier, None) => sys::MPI_Barrier(HOST.comm_world),
                (Op::Barrier, Some(c)) => EP_Barrier(c),
                (Op::Allreduce(_), None) => sys::MPI_Allreduce(s, r, n as i32, double, sum, HOST.comm_world),
                (Op::Allreduce(_), Some(c)) => EP_Allreduce(s, r, n as i32, double, sum, c),
                (Op::Bcast(_), None) => sys::MPI_Bcast(r, n as i32, double, 0, HOST.comm_world),
                (Op::Bcast(_), Some(c)) => EP_Bcast(r, n as i32, double, 0, c),
            };
        }
    }
    (unsafe { sys::MPI_Wtime() } - t0) / iters as f64
}

fn plain_mpi(op: Op) -> Vec<f64> {
    (0..REPS + 1)
        .map(|_| {
            unsafe { sys::MPI_Barrier(HOST.comm_world) };
            time_op(op, None)
        })
        .skip(1)
        .collect()
}

/// Two endpoints of process 0, one thread each; process 1 sleeps.
fn one_process_two_endpoints(rank: i32, op: Op) -> Vec<f64> {
    let n = if rank == 0 { 2 } else { 0 };
    let mut comms = [EP_COMM_NULL; 2];
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, n, HOST.info_null, comms.as_mut_ptr()) };
    if rank != 0 {
        common::idle_until_done();
        return Vec::new();
    }
    let times = std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter()
            .map(|&c| {
                s.spawn(move || {
                    let v: Vec<f64> = (0..REPS + 1).map(|_| time_op(op, Some(c))).skip(1).collect();
                    let mut c = c;
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

/// One endpoint in each of the 2 processes.
fn two_processes_one_endpoint(op: Op) -> Vec<f64> {
    let mut c = EP_COMM_NULL;
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, 1, HOST.info_null, &mut c) };
    let v = (0..REPS + 1)
        .map(|_| {
            unsafe { sys::MPI_Barrier(HOST.comm_world) };
            time_op(op, Some(c))
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
    let ops = [Op::Barrier, Op::Allreduce(8), Op::Allreduce(1 << 17), Op::Bcast(1 << 17)];
    if rank == 0 {
        println!("# collectives: {REPS} repetitions, median [min, max] in microseconds per call; ratio to plain MPI");
        println!("| operation | plain MPI 2x1 | EP 1 process x 2 endpoints | ratio | EP 2 processes x 1 endpoint | ratio |");
        println!("|---|---|---|---|---|---|");
    }
    for op in ops {
        let plain = plain_mpi(op);
        let local = one_process_two_endpoints(rank, op);
        let remote = two_processes_one_endpoint(op);
        if rank == 0 {
            let cell = |v: &Vec<f64>| {
                let (m, lo, hi) = common::summary(v.clone());
                (m, format!("{:.3} [{:.3}, {:.3}]", m * 1e6, lo * 1e6, hi * 1e6))
            };
            let (p, pt) = cell(&plain);
            let (l, lt) = cell(&local);
            let (r, rt) = cell(&remote);
            println!("| {} | {pt} | {lt} | {:.2}x | {rt} | {:.2}x |", op.name(), l / p, r / p);
        }
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(900));
}
