//! One-sided benchmark, side by side in one run: put bandwidth (each put then a flush;
//! 4 KiB .. 16 MiB by powers of 16) and fetch-and-op latency (8 B `MPI_SUM` on `MPI_AINT`,
//! then flush) under `lock_all`, for plain host MPI windows between two processes, endpoint
//! windows with one endpoint in each process, and two endpoints of one process. Medians over
//! repetitions with the spread, and ratios to plain MPI (CSV rows with `EPMPI_BENCH_DIR`, see
//! `common/record.rs`; put sizes from `EPMPI_BENCH_SIZES`).
//!
//! `cargo bench --bench rma` (launches itself under mpirun with 2 processes; Open MPI gets
//! `OMPI_MCA_osc=ucx` from the launcher). Not a timed test: a report.

mod common;

use common::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use common::record::{Recorder, XUnit};
use std::time::Duration;

const FOP_ITERS: usize = 5_000;

/// Put sizes in bytes.
fn put_sizes() -> Vec<u64> {
    common::sizes::sizes(&[4 << 10, 64 << 10, 1 << 20, 16 << 20], 1, 1 << 30)
}

fn put_iters(bytes: u64) -> usize {
    common::sizes::iters(bytes, 2_000, 64 << 20)
}

/// Put times per size (one `Vec` per size), then fetch-and-op times.
type Times = (Vec<Vec<f64>>, Vec<f64>);

/// Seconds per operation of `iters` calls of `op`, each followed by `flush`.
fn per_op(iters: usize, mut op: impl FnMut(), mut flush: impl FnMut()) -> f64 {
    let t0 = unsafe { sys::MPI_Wtime() };
    for _ in 0..iters {
        op();
        flush();
    }
    (unsafe { sys::MPI_Wtime() } - t0) / iters as f64
}

/// (put times, fetch-and-op times) of plain MPI from process 0 to process 1.
fn plain_mpi(rank: i32) -> Times {
    let sizes = put_sizes();
    let max = *sizes.iter().max().unwrap() as usize;
    let src = vec![1u8; max];
    let mut base: *mut c_void = std::ptr::null_mut();
    let mut win: sys::MPI_Win = HOST.win_null;
    unsafe {
        sys::MPI_Win_allocate(max as sys::MPI_Aint, 1, HOST.info_null, HOST.comm_world, &mut base as *mut _ as *mut c_void, &mut win);
        sys::MPI_Win_lock_all(0, win);
    }
    let (mut puts, mut fops) = (vec![Vec::new(); sizes.len()], Vec::new());
    for _ in 0..common::sizes::reps() + 1 {
        unsafe { sys::MPI_Barrier(HOST.comm_world) };
        if rank == 0 {
            for (k, &bytes) in sizes.iter().enumerate() {
                puts[k].push(per_op(
                    put_iters(bytes),
                    || unsafe {
                        sys::MPI_Put(src.as_ptr() as *const c_void, bytes as i32, HOST.byte, 1, 0, bytes as i32, HOST.byte, win);
                    },
                    || unsafe {
                        sys::MPI_Win_flush(1, win);
                    },
                ));
            }
            let (one, mut old) = (1isize, 0isize);
            fops.push(per_op(
                FOP_ITERS,
                || unsafe {
                    sys::MPI_Fetch_and_op(&one as *const isize as *const c_void, &mut old as *mut isize as *mut c_void, HOST.aint, 1, 0, HOST.op_sum, win);
                },
                || unsafe {
                    sys::MPI_Win_flush(1, win);
                },
            ));
        }
        unsafe { sys::MPI_Barrier(HOST.comm_world) };
    }
    unsafe {
        sys::MPI_Win_unlock_all(win);
        sys::MPI_Win_free(&mut win);
    }
    (puts.into_iter().map(|p| p.into_iter().skip(1).collect()).collect(), fops.into_iter().skip(1).collect())
}

/// Endpoint `origin` of `comm` puts to and fetches-and-ops on endpoint `target`; every
/// endpoint of the window calls this (the others only take part in creation and free).
fn ep_side(comm: EP_Comm, origin: i32, target: i32) -> Times {
    let sizes = put_sizes();
    let max = *sizes.iter().max().unwrap() as usize;
    let src = vec![1u8; max];
    let mut me = 0;
    let mut base: *mut c_void = std::ptr::null_mut();
    let mut win = EP_WIN_NULL;
    unsafe {
        EP_Comm_rank(comm, &mut me);
        EP_Win_allocate(max as sys::MPI_Aint, 1, HOST.info_null, comm, &mut base as *mut _ as *mut c_void, &mut win);
        EP_Win_lock_all(0, win);
    }
    let (mut puts, mut fops) = (vec![Vec::new(); sizes.len()], Vec::new());
    for _ in 0..common::sizes::reps() + 1 {
        unsafe { EP_Barrier(comm) };
        if me == origin {
            for (k, &bytes) in sizes.iter().enumerate() {
                puts[k].push(per_op(
                    put_iters(bytes),
                    || unsafe {
                        EP_Put(src.as_ptr() as *const c_void, bytes as i32, HOST.byte, target, 0, bytes as i32, HOST.byte, win);
                    },
                    || unsafe {
                        EP_Win_flush(target, win);
                    },
                ));
            }
            let (one, mut old) = (1isize, 0isize);
            fops.push(per_op(
                FOP_ITERS,
                || unsafe {
                    EP_Fetch_and_op(&one as *const isize as *const c_void, &mut old as *mut isize as *mut c_void, HOST.aint, target, 0, HOST.op_sum, win);
                },
                || unsafe {
                    EP_Win_flush(target, win);
                },
            ));
        }
        unsafe { EP_Barrier(comm) };
    }
    unsafe {
        EP_Win_unlock_all(win);
        EP_Win_free(&mut win);
    }
    (puts.into_iter().map(|p| p.into_iter().skip(1).collect()).collect(), fops.into_iter().skip(1).collect())
}

fn cross_process(rank: i32) -> Times {
    let mut c = EP_COMM_NULL;
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, 1, HOST.info_null, &mut c) };
    let _ = rank;
    let r = ep_side(c, 0, 1);
    unsafe { EP_Comm_free(&mut c) };
    r
}

fn same_process(rank: i32) -> Times {
    let times = common::on_endpoints_of_process_zero(rank, 2, |_, c| ep_side(c, 0, 1));
    times.map(|mut t| t.swap_remove(0)).unwrap_or_default()
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    let rows = [("plain MPI, 2 processes", plain_mpi(rank)), ("EP, 2 processes", cross_process(rank)), ("EP, same process", same_process(rank))];
    if rank == 0 {
        let mut rec = Recorder::new("rma", common::world_size());
        for (method, (puts, fops)) in rows.iter() {
            for (&bytes, t) in put_sizes().iter().zip(puts) {
                rec.add_gbs("put bandwidth", method, bytes, t);
            }
            rec.add_us("fetch_and_op latency", method, 8, XUnit::Bytes, fops);
        }
        rec.finish();
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(600));
}
