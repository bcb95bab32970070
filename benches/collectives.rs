//! Collective latency against message size, side by side in one run: plain host MPI on 2
//! processes, EPMPI with 2 endpoints in 1 process (shape 1x2: shared-memory path, no host
//! call), and EPMPI with 1 endpoint in each of 2 processes (shape 2x1: host collective).
//! `EP_Barrier`, and `EP_Allreduce` (sum of doubles), `EP_Bcast`, `EP_Allgather` (bytes per
//! endpoint) and `EP_Alltoall` (bytes per block, one block to each rank) at 8 B .. 1 MiB by
//! powers of 8; medians over repetitions with the spread,
//! ratios to plain MPI (CSV rows with `EPMPI_BENCH_DIR`, see `common/record.rs`; sizes from
//! `EPMPI_BENCH_SIZES`, multiples of 8).
//!
//! `cargo bench --bench collectives` (launches itself under mpirun with 2 processes; the MPI
//! is the one `MPICC` names). Not a timed test: a report.

mod common;

use common::record::{Recorder, XUnit};
use common::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::time::Duration;

/// One collective and its size in bytes (per endpoint for `Allgather`, per block for `Alltoall`).
#[derive(Clone, Copy)]
enum Op {
    Barrier,
    Allreduce(u64),
    Bcast(u64),
    Allgather(u64),
    Alltoall(u64),
}

impl Op {
    fn metric(&self) -> &'static str {
        match self {
            Op::Barrier => "Barrier",
            Op::Allreduce(_) => "Allreduce",
            Op::Bcast(_) => "Bcast",
            Op::Allgather(_) => "Allgather",
            Op::Alltoall(_) => "Alltoall",
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Op::Barrier => 0,
            Op::Allreduce(b) | Op::Bcast(b) | Op::Allgather(b) | Op::Alltoall(b) => *b,
        }
    }

    fn iters(&self) -> usize {
        common::sizes::iters(self.bytes(), 5_000, 32 << 20)
    }
}

/// The operations measured: the barrier, then each collective at every size.
fn ops() -> Vec<Op> {
    let sizes: Vec<u64> = common::sizes::sizes(&[8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 1 << 20], 8, 1 << 30)
        .into_iter()
        .filter(|s| s.is_multiple_of(8))
        .collect();
    let mut v = vec![Op::Barrier];
    for make in [Op::Allreduce as fn(u64) -> Op, Op::Bcast, Op::Allgather, Op::Alltoall] {
        v.extend(sizes.iter().map(|&s| make(s)));
    }
    v
}

/// Seconds per call of `op` on plain MPI or an endpoint (`comm` = None: MPI_COMM_WORLD of 2
/// processes; every communicator measured here has 2 ranks).
fn time_op(op: Op, comm: Option<EP_Comm>) -> f64 {
    let (double, sum) = unsafe { (sys::RSMPI_DOUBLE, sys::RSMPI_SUM) };
    let n = (op.bytes() / 8) as usize;
    let send = vec![1.0f64; 2 * n.max(1)]; // Alltoall sends one block to each of the 2 ranks
    let mut recv = vec![0.0f64; 2 * n.max(1)];
    let (s, r) = (send.as_ptr() as *const c_void, recv.as_mut_ptr() as *mut c_void);
    let n = n as i32;
    let iters = op.iters();
    let t0 = unsafe { sys::MPI_Wtime() };
    for _ in 0..iters {
        unsafe {
            match (op, comm) {
                (Op::Barrier, None) => sys::MPI_Barrier(HOST.comm_world),
                (Op::Barrier, Some(c)) => EP_Barrier(c),
                (Op::Allreduce(_), None) => sys::MPI_Allreduce(s, r, n, double, sum, HOST.comm_world),
                (Op::Allreduce(_), Some(c)) => EP_Allreduce(s, r, n, double, sum, c),
                (Op::Bcast(_), None) => sys::MPI_Bcast(r, n, double, 0, HOST.comm_world),
                (Op::Bcast(_), Some(c)) => EP_Bcast(r, n, double, 0, c),
                (Op::Allgather(_), None) => sys::MPI_Allgather(s, n, double, r, n, double, HOST.comm_world),
                (Op::Allgather(_), Some(c)) => EP_Allgather(s, n, double, r, n, double, c),
                (Op::Alltoall(_), None) => sys::MPI_Alltoall(s, n, double, r, n, double, HOST.comm_world),
                (Op::Alltoall(_), Some(c)) => EP_Alltoall(s, n, double, r, n, double, c),
            };
        }
    }
    (unsafe { sys::MPI_Wtime() } - t0) / iters as f64
}

/// Repetitions (after a warm-up) of every op of `ops`; `sync` runs before each repetition.
fn all_ops(ops: &[Op], comm: Option<EP_Comm>, sync: impl Fn()) -> Vec<Vec<f64>> {
    ops.iter()
        .map(|&op| {
            (0..common::sizes::reps_per_round() + 1)
                .map(|_| {
                    sync();
                    time_op(op, comm)
                })
                .skip(1)
                .collect()
        })
        .collect()
}

fn plain_mpi(ops: &[Op]) -> Vec<Vec<f64>> {
    all_ops(ops, None, || unsafe {
        sys::MPI_Barrier(HOST.comm_world);
    })
}

/// Two endpoints of process 0, one thread each; process 1 sleeps.
fn one_process_two_endpoints(rank: i32, ops: &[Op]) -> Vec<Vec<f64>> {
    let times = common::on_endpoints_of_process_zero(rank, 2, |_, c| {
        all_ops(ops, Some(c), || unsafe {
            EP_Barrier(c);
        })
    });
    times.map(|mut t| t.swap_remove(0)).unwrap_or_default()
}

/// One endpoint in each of the 2 processes.
fn two_processes_one_endpoint(ops: &[Op]) -> Vec<Vec<f64>> {
    let mut c = EP_COMM_NULL;
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, 1, HOST.info_null, &mut c) };
    let v = all_ops(ops, Some(c), || unsafe {
        sys::MPI_Barrier(HOST.comm_world);
    });
    unsafe { EP_Comm_free(&mut c) };
    v
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    type Phase = fn(i32, &[Op]) -> Vec<Vec<f64>>;
    let methods: [(&str, Phase); 3] = [
        ("plain MPI, 2 processes", |_, ops| plain_mpi(ops)),
        ("EP, 1 process x 2 endpoints", one_process_two_endpoints),
        ("EP, 2 processes x 1 endpoint", |_, ops| two_processes_one_endpoint(ops)),
    ];
    let ops = ops();
    let rows = common::interleaved(&methods, ops.len(), |phase, i| phase(rank, &ops[i..=i]).pop().unwrap_or_default());
    if rank == 0 {
        let mut rec = Recorder::new("collectives", common::world_size());
        for (method, times) in rows.iter() {
            for (op, t) in ops.iter().zip(times) {
                rec.add_us(op.metric(), method, op.bytes(), XUnit::Bytes, t);
            }
        }
        rec.finish();
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(900));
}
