//! Communicator creation cost and memory, and how they grow with processes and endpoints:
//! `EP_Comm_create_endpoints` + `EP_Comm_free` of every endpoint, and `EP_Comm_split` (two
//! colours by rank parity) + free, at 1, 2, 4 and 8 endpoints per process, on 1 and 2
//! processes (one job each); plain MPI's `MPI_Comm_dup` + free and `MPI_Comm_split` + free on
//! the same processes as the baseline. Memory: the resident set growth of one process creating
//! 64 endpoints (per endpoint; again after each has run a barrier and two eager messages, less
//! the stacks of as many idle threads), and of 64 `EP_Comm_dup`s of a 2-endpoint-per-process
//! communicator against 64 `MPI_Comm_dup`s (per communicator and process). Medians over
//! repetitions with the spread, ratios to plain MPI (CSV rows with `EPMPI_BENCH_DIR`, see
//! `common/record.rs`; size = endpoints per process, or the count created for memory).
//!
//! Scaling: with 1024, 256, 64, 16, 4 and 1 endpoints per process (largest first, before the
//! rest, so the memory figures come from a heap earlier creations have not grown), the time of
//! `EP_Comm_create_endpoints` called once from one thread (the array form, no thread per
//! endpoint), the resident set growth of the first creation per endpoint, the growth of one
//! `EP_Comm_dup` of that communicator per endpoint, and `EP_Comm_split` + free with one thread
//! per endpoint (as thread 0 sees it). `EPMPI_BENCH_ENDPOINTS` (comma-separated counts, e.g.
//! `4096` or `1024,64`) replaces the counts; run one count per job to read its memory from a
//! fresh heap (in one job the smaller counts reuse the heap the larger ones grew).
//!
//! `cargo bench --bench creation` (launches itself under mpirun with 1 and 2 processes;
//! the MPI is the one `MPICC` names). Not a timed test: a report.

mod common;

use common::record::{Recorder, XUnit};
use common::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::sync::{Barrier, Mutex};
use std::time::Duration;

const ENDPOINTS: [usize; 4] = [1, 2, 4, 8];
const MEM_COUNT: usize = 64;
const CREATE: &str = "Comm_create_endpoints+free";
const SPLIT: &str = "Comm_split+free";

/// Cycles per repetition with `eps` endpoints per process (fewer as endpoints grow).
fn cycles(eps: usize) -> usize {
    common::sizes::iters(eps as u64, 100, 100)
}

fn check(rc: i32) {
    assert_eq!(rc, EP_SUCCESS, "EPMPI call failed with code {rc}");
}

/// Resident set size of this process in KiB (Linux `/proc/self/statm`).
fn rss_kib() -> f64 {
    let text = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = text.split_whitespace().nth(1).and_then(|t| t.parse().ok()).unwrap_or(f64::NAN);
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as f64 / 1024.0
}

fn host_barrier() {
    unsafe { sys::MPI_Barrier(HOST.comm_world) };
}

/// Repetitions (after a warm-up) of seconds per cycle of `cycle`, `n` cycles each.
fn timed(n: usize, sync: impl Fn(), mut cycle: impl FnMut()) -> Vec<f64> {
    (0..common::sizes::reps() + 1)
        .map(|_| {
            sync();
            let t0 = unsafe { sys::MPI_Wtime() };
            for _ in 0..n {
                cycle();
            }
            (unsafe { sys::MPI_Wtime() } - t0) / n as f64
        })
        .skip(1)
        .collect()
}

/// Plain MPI: (`MPI_Comm_dup` + free, `MPI_Comm_split` + free) per cycle.
fn plain_mpi(rank: i32) -> (Vec<f64>, Vec<f64>) {
    let dup = timed(cycles(1), host_barrier, || unsafe {
        let mut c = HOST.comm_null;
        sys::MPI_Comm_dup(HOST.comm_world, &mut c);
        sys::MPI_Comm_free(&mut c);
    });
    let split = timed(cycles(1), host_barrier, || unsafe {
        let mut c = HOST.comm_null;
        sys::MPI_Comm_split(HOST.comm_world, rank % 2, rank, &mut c);
        sys::MPI_Comm_free(&mut c);
    });
    (dup, split)
}

/// `eps` endpoints per process, one thread each: (create + free, split + free) per cycle, as
/// thread 0 of this process sees them.
fn endpoints(eps: usize) -> (Vec<f64>, Vec<f64>) {
    let team = Barrier::new(eps);
    let fresh = Mutex::new(vec![EP_COMM_NULL; eps]);
    let mut world = vec![EP_COMM_NULL; eps];
    unsafe { check(EP_Comm_create_endpoints(HOST.comm_world, eps as i32, HOST.info_null, world.as_mut_ptr())) };
    let times = std::thread::scope(|s| {
        let hs: Vec<_> = world
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let (team, fresh) = (&team, &fresh);
                s.spawn(move || {
                    let sync = || {
                        team.wait();
                        if i == 0 {
                            host_barrier();
                        }
                        team.wait();
                    };
                    let create = timed(cycles(eps), sync, || {
                        if i == 0 {
                            let mut v = fresh.lock().unwrap();
                            unsafe { check(EP_Comm_create_endpoints(HOST.comm_world, eps as i32, HOST.info_null, v.as_mut_ptr())) };
                        }
                        team.wait();
                        let mut c = fresh.lock().unwrap()[i];
                        unsafe { check(EP_Comm_free(&mut c)) };
                        team.wait();
                    });
                    let mut me = 0;
                    unsafe { check(EP_Comm_rank(w, &mut me)) };
                    let split = timed(
                        cycles(eps),
                        || unsafe {
                            check(EP_Barrier(w));
                        },
                        || unsafe {
                            let mut c = EP_COMM_NULL;
                            check(EP_Comm_split(w, me % 2, me, &mut c));
                            check(EP_Comm_free(&mut c));
                        },
                    );
                    let mut w = w;
                    unsafe { check(EP_Comm_free(&mut w)) };
                    (create, split)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    times[0].clone()
}

/// Resident set growth in KiB per item: (per endpoint of `EP_Comm_create_endpoints`, per
/// `EP_Comm_dup` of a 2-endpoint-per-process communicator, per `MPI_Comm_dup`).
fn memory() -> (f64, f64, f64) {
    host_barrier();
    let before = rss_kib();
    let mut eps = vec![EP_COMM_NULL; MEM_COUNT];
    unsafe { check(EP_Comm_create_endpoints(HOST.comm_world, MEM_COUNT as i32, HOST.info_null, eps.as_mut_ptr())) };
    let per_endpoint = (rss_kib() - before) / MEM_COUNT as f64;
    std::thread::scope(|s| {
        for &c in &eps {
            s.spawn(move || {
                let mut c = c;
                unsafe { check(EP_Comm_free(&mut c)) };
            });
        }
    });

    let mut two = [EP_COMM_NULL; 2];
    unsafe { check(EP_Comm_create_endpoints(HOST.comm_world, 2, HOST.info_null, two.as_mut_ptr())) };
    let team = Barrier::new(2);
    let per_ep_comm = std::thread::scope(|s| {
        let hs: Vec<_> = two
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let team = &team;
                s.spawn(move || {
                    unsafe { check(EP_Barrier(w)) };
                    team.wait();
                    let before = rss_kib();
                    let dups: Vec<EP_Comm> = (0..MEM_COUNT)
                        .map(|_| {
                            let mut c = EP_COMM_NULL;
                            unsafe { check(EP_Comm_dup(w, &mut c)) };
                            c
                        })
                        .collect();
                    unsafe { check(EP_Barrier(w)) };
                    team.wait();
                    let grown = (rss_kib() - before) / MEM_COUNT as f64;
                    for mut c in dups.into_iter().chain([w]) {
                        unsafe { check(EP_Comm_free(&mut c)) };
                    }
                    if i == 0 {
                        grown
                    } else {
                        0.0
                    }
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).fold(0.0, f64::max)
    });

    host_barrier();
    let before = rss_kib();
    let dups: Vec<sys::MPI_Comm> = (0..MEM_COUNT)
        .map(|_| {
            let mut c = HOST.comm_null;
            unsafe { sys::MPI_Comm_dup(HOST.comm_world, &mut c) };
            c
        })
        .collect();
    let per_plain_comm = (rss_kib() - before) / MEM_COUNT as f64;
    for mut c in dups {
        unsafe { sys::MPI_Comm_free(&mut c) };
    }
    (per_endpoint, per_ep_comm, per_plain_comm)
}

/// Largest message the engine sends eagerly to another process (`src/engine/transport/remote.rs`): the
/// size of each pre-posted receive buffer's payload.
const EAGER_BYTES: usize = 8 << 10;

/// Resident set growth in KiB per endpoint of a 64-endpoint-per-process communicator once
/// every endpoint has run a barrier and exchanged two eager messages of [`EAGER_BYTES`] with
/// its peer (the same local index in the next process, or its neighbour in a single process),
/// minus the growth of as many idle threads (their stacks).
fn used_endpoint_memory(np: i32) -> f64 {
    let n = MEM_COUNT;
    let team = Barrier::new(n + 1);
    host_barrier();
    let base = rss_kib();
    let idle = std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| {
                team.wait();
                team.wait();
            });
        }
        team.wait();
        let grown = rss_kib() - base;
        team.wait();
        grown
    });
    let mut recv: Vec<Vec<u8>> = (0..n).map(|_| vec![1u8; EAGER_BYTES]).collect();
    let send = vec![2u8; EAGER_BYTES];
    host_barrier();
    let before = rss_kib();
    let mut eps = vec![EP_COMM_NULL; n];
    unsafe { check(EP_Comm_create_endpoints(HOST.comm_world, n as i32, HOST.info_null, eps.as_mut_ptr())) };
    let grown = std::thread::scope(|s| {
        for (&c, buf) in eps.iter().zip(recv.iter_mut()) {
            let (team, send) = (&team, &send);
            s.spawn(move || {
                let mut me = 0;
                let total = n as i32 * np;
                unsafe {
                    check(EP_Comm_rank(c, &mut me));
                    check(EP_Barrier(c));
                }
                let peer = if np > 1 { (me + n as i32) % total } else { me ^ 1 };
                for _ in 0..2 {
                    let (sp, rp) = (send.as_ptr() as *const c_void, buf.as_mut_ptr() as *mut c_void);
                    let len = EAGER_BYTES as i32;
                    unsafe { check(EP_Sendrecv(sp, len, HOST.byte, peer, 7, rp, len, HOST.byte, peer, 7, c, std::ptr::null_mut())) };
                }
                unsafe { check(EP_Barrier(c)) };
                team.wait();
                team.wait();
                let mut c = c;
                unsafe { check(EP_Comm_free(&mut c)) };
            });
        }
        team.wait();
        let grown = rss_kib() - before;
        team.wait();
        grown
    });
    (grown - idle) / n as f64
}

/// Endpoints per process of the scaling measurement, largest first so that its memory figure
/// comes from a heap no earlier creation has grown.
const SCALING: [usize; 6] = [1024, 256, 64, 16, 4, 1];

/// [`SCALING`], or the counts of `EPMPI_BENCH_ENDPOINTS` when it is set (largest first).
fn scaling() -> Vec<usize> {
    let mut counts = match std::env::var("EPMPI_BENCH_ENDPOINTS").ok().and_then(|t| common::sizes::parse_sizes(&t)) {
        Some(v) => v.into_iter().map(|n| n as usize).filter(|&n| n > 0).collect(),
        None => SCALING.to_vec(),
    };
    counts.sort_unstable_by(|a, b| b.cmp(a));
    counts
}

/// Frees every handle of `comms`, one thread per endpoint (the free is collective over them).
fn free_all(comms: &mut [EP_Comm]) {
    std::thread::scope(|s| {
        for c in comms.iter_mut() {
            s.spawn(move || unsafe { check(EP_Comm_free(c)) });
        }
    });
}

/// One process with `n` endpoints: seconds per `EP_Comm_create_endpoints` called once from one
/// thread (the array form), the resident set growth of the first creation per endpoint (KiB),
/// the growth of one `EP_Comm_dup` of the `n`-endpoint communicator per endpoint (KiB), and
/// seconds per `EP_Comm_split` (two colours) + free with `n` threads, as thread 0 sees them.
fn at_scale(n: usize) -> (Vec<f64>, f64, f64, Vec<f64>) {
    let mut comms = vec![EP_COMM_NULL; n];
    let mut create = Vec::new();
    let mut per_endpoint = f64::NAN;
    for rep in 0..=common::sizes::reps() {
        host_barrier();
        let before = rss_kib();
        let t0 = unsafe { sys::MPI_Wtime() };
        unsafe { check(EP_Comm_create_endpoints(HOST.comm_world, n as i32, HOST.info_null, comms.as_mut_ptr())) };
        create.push(unsafe { sys::MPI_Wtime() } - t0);
        if rep == 0 {
            per_endpoint = (rss_kib() - before) / n as f64;
        }
        if rep < common::sizes::reps() {
            free_all(&mut comms);
        }
    }
    create.remove(0); // the first creation warms the heap and the host's context ids
    let team = Barrier::new(n);
    let results: Vec<(f64, Vec<f64>)> = std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let team = &team;
                s.spawn(move || {
                    let mut me = 0;
                    unsafe { check(EP_Comm_rank(c, &mut me)) };
                    unsafe { check(EP_Barrier(c)) };
                    team.wait();
                    let before = if i == 0 { rss_kib() } else { 0.0 };
                    let mut dup = EP_COMM_NULL;
                    unsafe { check(EP_Comm_dup(c, &mut dup)) };
                    unsafe { check(EP_Barrier(dup)) };
                    team.wait();
                    let dup_growth = if i == 0 { (rss_kib() - before) / n as f64 } else { 0.0 };
                    let split = timed(
                        1,
                        || unsafe { check(EP_Barrier(c)) },
                        || unsafe {
                            let mut part = EP_COMM_NULL;
                            check(EP_Comm_split(c, me % 2, me, &mut part));
                            check(EP_Comm_free(&mut part));
                        },
                    );
                    let mut c = c;
                    unsafe { check(EP_Comm_free(&mut dup)) };
                    unsafe { check(EP_Comm_free(&mut c)) };
                    (dup_growth, split)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (dup_growth, split) = results.into_iter().next().unwrap();
    (create, per_endpoint, dup_growth, split)
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    let np = common::world_size();
    let procs = if np == 1 { "1 process".to_string() } else { format!("{np} processes") };
    let plain = format!("plain MPI, {procs}");
    let mut rec = Recorder::new("creation", np);
    for n in scaling() {
        let (create, mem, dup_mem, split) = at_scale(n);
        let method = format!("EP, {procs}");
        rec.add_us("Comm_create_endpoints, one thread", &method, n as u64, XUnit::Endpoints, &create);
        rec.add_us("Comm_split+free, every endpoint", &method, n as u64, XUnit::Endpoints, &split);
        rec.add("memory per endpoint, created", &method, n as u64, XUnit::Endpoints, "KiB", &[mem]);
        rec.add("memory per endpoint and communicator, EP_Comm_dup", &method, n as u64, XUnit::Endpoints, "KiB", &[dup_mem]);
    }
    let (mem_ep, mem_ep_comm, mem_plain_comm) = memory();
    let mem_used_ep = used_endpoint_memory(np);
    let (dup, split) = plain_mpi(rank);
    rec.add_us(CREATE, &format!("{plain} (MPI_Comm_dup+free)"), 1, XUnit::Endpoints, &dup);
    rec.add_us(SPLIT, &plain, 1, XUnit::Endpoints, &split);
    for eps in ENDPOINTS {
        let (create, split) = endpoints(eps);
        rec.add_us(CREATE, &format!("EP, {procs}"), eps as u64, XUnit::Endpoints, &create);
        rec.add_us(SPLIT, &format!("EP, {procs}"), eps as u64, XUnit::Endpoints, &split);
    }
    let n = MEM_COUNT as u64;
    rec.add("memory per endpoint", &format!("EP, {procs}"), n, XUnit::Count, "KiB", &[mem_ep]);
    rec.add("memory per endpoint", &format!("EP, {procs}, after traffic"), n, XUnit::Count, "KiB", &[mem_used_ep]);
    rec.add("memory per communicator", &format!("{plain} (MPI_Comm_dup)"), n, XUnit::Count, "KiB", &[mem_plain_comm]);
    rec.add("memory per communicator", &format!("EP, {procs} x 2 endpoints (EP_Comm_dup)"), n, XUnit::Count, "KiB", &[mem_ep_comm]);
    if rank == 0 {
        rec.finish();
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with_procs(child, &[1, 2], Duration::from_secs(600));
}
