//! One-sided synchronisation benchmark, side by side in one run: the time of one epoch that
//! puts 8 B, every rank at once to its partner, for
//! - a passive-target epoch: `MPI_Win_lock(MPI_LOCK_EXCLUSIVE)`, put, `MPI_Win_unlock`;
//! - a general active-target epoch: post to the partner, start to the partner, put,
//!   complete, wait (MPI 4.1 section 12.5.2).
//!
//! Methods: plain host MPI windows between two processes; endpoint windows with 1 and with 2
//! endpoints in each of 2 processes (endpoint `i` of one process paired with endpoint `i` of
//! the other; with 2, both pairs at once on the 2 cores); 2 endpoints of one process. Medians
//! over repetitions of process 0's time per epoch (its slowest endpoint's) with the spread,
//! ratios to plain MPI (CSV rows with `EPMPI_BENCH_DIR`, see `common/record.rs`).
//!
//! `cargo bench --bench rma_sync` (launches itself under mpirun with 2 processes; Open MPI
//! gets `OMPI_MCA_osc=ucx` from the launcher). Not a timed test: a report.

mod common;

use common::record::{Recorder, XUnit};
use common::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::time::Duration;

/// The two epochs measured, in the order of the rows.
const EPOCHS: [&str; 2] = ["lock epoch latency", "PSCW epoch latency"];
const BYTES: u64 = 8;

fn epochs_per_rep() -> usize {
    common::sizes::iters(1, 2_000, u64::MAX)
}

/// Seconds per epoch of `epochs_per_rep()` calls of `epoch`, after `barrier`, for one
/// warm-up and the timed repetitions of a round.
fn timed(mut barrier: impl FnMut(), mut epoch: impl FnMut()) -> Vec<f64> {
    let n = epochs_per_rep();
    (0..common::sizes::reps_per_round() + 1)
        .map(|_| {
            barrier();
            let t0 = unsafe { sys::MPI_Wtime() };
            for _ in 0..n {
                epoch();
            }
            (unsafe { sys::MPI_Wtime() } - t0) / n as f64
        })
        .skip(1)
        .collect()
}

/// Plain MPI: each process's epochs of kind `epoch` (an index of [`EPOCHS`]) to the other.
fn plain_mpi(rank: i32, epoch: usize) -> Vec<f64> {
    let partner = 1 - rank;
    let mut base: *mut c_void = std::ptr::null_mut();
    let mut win: sys::MPI_Win = HOST.win_null;
    let (mut world, mut pair): (sys::MPI_Group, sys::MPI_Group) = unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    let v = 1u64;
    unsafe {
        sys::MPI_Win_allocate(BYTES as sys::MPI_Aint, 1, HOST.info_null, HOST.comm_world, &mut base as *mut _ as *mut c_void, &mut win);
        sys::MPI_Comm_group(HOST.comm_world, &mut world);
        sys::MPI_Group_incl(world, 1, &partner, &mut pair);
    }
    let put = || unsafe {
        sys::MPI_Put(&v as *const u64 as *const c_void, BYTES as i32, HOST.byte, partner, 0, BYTES as i32, HOST.byte, win);
    };
    let barrier = || unsafe {
        sys::MPI_Barrier(HOST.comm_world);
    };
    let times = if epoch == 0 {
        timed(barrier, || unsafe {
            sys::MPI_Win_lock(sys::MPI_LOCK_EXCLUSIVE as i32, partner, 0, win);
            put();
            sys::MPI_Win_unlock(partner, win);
        })
    } else {
        timed(barrier, || unsafe {
            sys::MPI_Win_post(pair, 0, win);
            sys::MPI_Win_start(pair, 0, win);
            put();
            sys::MPI_Win_complete(win);
            sys::MPI_Win_wait(win);
        })
    };
    unsafe {
        sys::MPI_Barrier(HOST.comm_world);
        sys::MPI_Group_free(&mut pair);
        sys::MPI_Group_free(&mut world);
        sys::MPI_Win_free(&mut win);
    }
    times
}

/// One endpoint of `comm` whose partner is rank `partner`: its epochs of kind `epoch`.
fn ep_side(comm: EP_Comm, partner: i32, epoch: usize) -> Vec<f64> {
    let mut base: *mut c_void = std::ptr::null_mut();
    let mut win = EP_WIN_NULL;
    let (mut all, mut pair) = (EP_GROUP_NULL, EP_GROUP_NULL);
    let v = 1u64;
    unsafe {
        EP_Win_allocate(BYTES as sys::MPI_Aint, 1, HOST.info_null, comm, &mut base as *mut _ as *mut c_void, &mut win);
        EP_Win_get_group(win, &mut all);
        EP_Group_incl(all, 1, &partner, &mut pair);
    }
    let put = || unsafe {
        EP_Put(&v as *const u64 as *const c_void, BYTES as i32, HOST.byte, partner, 0, BYTES as i32, HOST.byte, win);
    };
    let barrier = || unsafe {
        EP_Barrier(comm);
    };
    let times = if epoch == 0 {
        timed(barrier, || unsafe {
            EP_Win_lock(sys::MPI_LOCK_EXCLUSIVE as i32, partner, 0, win);
            put();
            EP_Win_unlock(partner, win);
        })
    } else {
        timed(barrier, || unsafe {
            EP_Win_post(pair, 0, win);
            EP_Win_start(pair, 0, win);
            put();
            EP_Win_complete(win);
            EP_Win_wait(win);
        })
    };
    unsafe {
        EP_Barrier(comm);
        EP_Group_free(&mut pair);
        EP_Group_free(&mut all);
        EP_Win_free(&mut win);
    }
    times
}

/// The slowest endpoint's time of each repetition.
fn slowest(per_endpoint: Vec<Vec<f64>>) -> Vec<f64> {
    (0..per_endpoint[0].len()).map(|k| per_endpoint.iter().map(|t| t[k]).fold(0.0, f64::max)).collect()
}

/// `eps` endpoints in each process, one thread each; rank `r` paired with `r + eps` (mod
/// `2 eps`), the same local index in the other process.
fn cross_process(eps: usize, epoch: usize) -> Vec<f64> {
    let mut comms = vec![EP_COMM_NULL; eps];
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, eps as i32, HOST.info_null, comms.as_mut_ptr()) };
    let n = 2 * eps as i32;
    slowest(std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter()
            .map(|&c| {
                s.spawn(move || {
                    let mut me = 0;
                    unsafe { EP_Comm_rank(c, &mut me) };
                    let v = ep_side(c, (me + n / 2) % n, epoch);
                    let mut c = c;
                    unsafe { EP_Comm_free(&mut c) };
                    v
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    }))
}

/// Two endpoints of process 0, partners of each other; process 1 sleeps.
fn same_process(rank: i32, epoch: usize) -> Vec<f64> {
    let times = common::on_endpoints_of_process_zero(rank, 2, |i, c| ep_side(c, 1 - i as i32, epoch));
    times.map(slowest).unwrap_or_default()
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    type Phase = Box<dyn Fn(usize) -> Vec<f64>>;
    let methods: [(&str, Phase); 4] = [
        ("plain MPI, 2 processes", Box::new(move |e| plain_mpi(rank, e))),
        ("EP, 2 processes", Box::new(|e| cross_process(1, e))),
        ("EP, 2 processes x 2 endpoints", Box::new(|e| cross_process(2, e))),
        ("EP, same process", Box::new(move |e| same_process(rank, e))),
    ];
    let rows = common::interleaved(&methods, EPOCHS.len(), |phase, e| phase(e));
    if rank == 0 {
        let mut rec = Recorder::new("rma_sync", common::world_size());
        for (method, per_epoch) in rows.iter() {
            for (metric, times) in EPOCHS.iter().zip(per_epoch) {
                rec.add_us(metric, method, BYTES, XUnit::Bytes, times);
            }
        }
        rec.finish();
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(600));
}
