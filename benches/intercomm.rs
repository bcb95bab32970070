//! Intercommunicator creation, side by side in one run: `MPI_Intercomm_create` +
//! `MPI_Intercomm_merge` + frees of plain host MPI between 2 processes (local groups
//! `MPI_COMM_SELF`), against `EP_Intercomm_create` + `EP_Intercomm_merge` + `EP_Comm_free`s
//! with 1, 2, 4 and 8 endpoints in each of the 2 processes (one group per process). The local groups and the peer communicator are made once, outside the timing,
//! as `MPI_COMM_SELF` is for plain MPI. Plain MPI repetitions alternate with those of the
//! 1-endpoint case (this machine is noisy). Medians over repetitions with the spread, ratios
//! to plain MPI (CSV rows with `EPMPI_BENCH_DIR`, see `common/record.rs`: metric
//! `Intercomm_create+merge`, size = endpoints per process).
//!
//! `cargo bench --bench intercomm` (launches itself under mpirun with 2 processes; the MPI is
//! the one `MPICC` names). Not a timed test: a report.

mod common;

use common::{sys, HOST};
use epmpi::*;
use common::record::{Recorder, XUnit};
use std::time::Duration;

const ITERS: usize = 200;
const ENDPOINTS: [usize; 4] = [1, 2, 4, 8];

/// Cycles per repetition with `eps` endpoints per process (fewer as endpoints grow).
fn cycles(eps: usize) -> usize {
    common::sizes::iters(eps as u64, ITERS, ITERS as u64)
}
const TAG: i32 = 55;
const METRIC: &str = "Intercomm_create+merge";

/// Seconds per create + merge + free cycle of plain MPI between the two processes.
fn plain_cycle(rank: i32) -> f64 {
    let t0 = unsafe { sys::MPI_Wtime() };
    for _ in 0..cycles(1) {
        unsafe {
            let mut inter = HOST.comm_null;
            let mut merged = HOST.comm_null;
            sys::MPI_Intercomm_create(HOST.comm_self, 0, HOST.comm_world, 1 - rank, TAG, &mut inter);
            sys::MPI_Intercomm_merge(inter, rank, &mut merged);
            sys::MPI_Comm_free(&mut merged);
            sys::MPI_Comm_free(&mut inter);
        }
    }
    (unsafe { sys::MPI_Wtime() } - t0) / cycles(1) as f64
}

/// Seconds per create + merge + free cycle of one endpoint: `local` is its process's group,
/// `world` the peer communicator, `their_leader` the other group's leader in `world`.
fn ep_cycle(local: EP_Comm, world: EP_Comm, their_leader: i32, high: i32, n: usize) -> f64 {
    let t0 = unsafe { sys::MPI_Wtime() };
    for _ in 0..n {
        unsafe {
            let (mut inter, mut merged) = (EP_COMM_NULL, EP_COMM_NULL);
            check(EP_Intercomm_create(local, 0, world, their_leader, TAG, &mut inter));
            check(EP_Intercomm_merge(inter, high, &mut merged));
            check(EP_Comm_free(&mut merged));
            check(EP_Comm_free(&mut inter));
        }
    }
    (unsafe { sys::MPI_Wtime() } - t0) / n as f64
}

fn check(rc: i32) {
    assert_eq!(rc, EP_SUCCESS, "EPMPI call failed with code {rc}");
}

/// `eps` endpoints in each process, one thread each; groups are the processes. Returns the
/// times of the first endpoint, and with one endpoint those of plain MPI, measured in turns.
fn endpoints(rank: i32, eps: usize) -> (Vec<f64>, Vec<f64>) {
    let mut world = vec![EP_COMM_NULL; eps];
    unsafe { check(EP_Comm_create_endpoints(HOST.comm_world, eps as i32, HOST.info_null, world.as_mut_ptr())) };
    let their_leader = (1 - rank) * eps as i32;
    let times = std::thread::scope(|s| {
        let hs: Vec<_> = world
            .iter()
            .map(|&w| {
                s.spawn(move || {
                    let mut local = EP_COMM_NULL;
                    let mut me = 0;
                    unsafe {
                        check(EP_Comm_rank(w, &mut me));
                        check(EP_Comm_split(w, rank, me, &mut local));
                    }
                    let (mut v, mut plain) = (Vec::new(), Vec::new());
                    for rep in 0..common::sizes::reps() + 1 {
                        if eps == 1 {
                            unsafe { sys::MPI_Barrier(HOST.comm_world) };
                            let t = plain_cycle(rank);
                            if rep > 0 {
                                plain.push(t);
                            }
                        }
                        unsafe { check(EP_Barrier(w)) };
                        let t = ep_cycle(local, w, their_leader, rank, cycles(eps));
                        if rep > 0 {
                            v.push(t);
                        }
                    }
                    let mut w = w;
                    unsafe {
                        check(EP_Comm_free(&mut local));
                        check(EP_Comm_free(&mut w));
                    }
                    (v, plain)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    times[0].clone()
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    let mut rec = Recorder::new("intercomm", common::world_size());
    for eps in ENDPOINTS {
        let (times, plain) = endpoints(rank, eps);
        if eps == 1 {
            rec.add_us(METRIC, "plain MPI, 2 processes", 1, XUnit::Endpoints, &plain);
        }
        rec.add_us(METRIC, "EP, 2 processes", eps as u64, XUnit::Endpoints, &times);
    }
    if rank == 0 {
        rec.finish();
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(900));
}
