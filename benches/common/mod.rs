//! What the benchmarks share: launching themselves under mpirun, summaries of repetitions,
//! a sleeping idle process, size lists and repetition counts from the environment, and CSV
//! rows ([`record`]).
#![allow(dead_code)]

#[path = "../../tests/support/mod.rs"]
pub mod support;

pub mod record;
pub mod sizes;

pub use support::host_mpi::{sys, HOST};
use std::os::raw::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A plain MPI build of a benchmark's C program: the host's mpicc with the C test programs'
/// flags and nothing of EPMPI, into `<target>/c-tests/<name>`.
pub fn compile_plain(src: &Path, name: &str) -> PathBuf {
    let dir = support::target_profile_dir().join("c-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(name);
    let status = Command::new(support::mpicc())
        .args(support::C_FLAGS)
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("run {}: {e}", support::mpicc()));
    assert!(status.success(), "compiling {name} failed");
    exe
}

/// A sleeping wait for process 0's "done" message, so an idle process leaves the cores to
/// the threads being measured.
pub fn idle_until_done() {
    loop {
        let mut flag = 0;
        unsafe { sys::MPI_Iprobe(0, 99, HOST.comm_world, &mut flag, HOST.status_ignore) };
        if flag != 0 {
            let mut x = 0i32;
            unsafe { sys::MPI_Recv(&mut x as *mut i32 as *mut c_void, 1, HOST.int_, 0, 99, HOST.comm_world, HOST.status_ignore) };
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Ends process 1's [`idle_until_done`].
pub fn release_idle() {
    let x = 0i32;
    unsafe { sys::MPI_Send(&x as *const i32 as *const c_void, 1, HOST.int_, 1, 99, HOST.comm_world) };
}

/// Runs `body(i, comm)` on `n` endpoints of process 0 (endpoint `i` on its own thread, its
/// communicator freed after), while the other processes make none and sleep in
/// [`idle_until_done`]: the results in endpoint order on process 0, `None` elsewhere.
pub fn on_endpoints_of_process_zero<T: Send>(rank: i32, n: usize, body: impl Fn(usize, epmpi::EP_Comm) -> T + Sync) -> Option<Vec<T>> {
    let mine = if rank == 0 { n } else { 0 };
    let mut comms = vec![epmpi::EP_COMM_NULL; n];
    unsafe { epmpi::EP_Comm_create_endpoints(HOST.comm_world, mine as i32, HOST.info_null, comms.as_mut_ptr()) };
    if rank != 0 {
        idle_until_done();
        return None;
    }
    let body = &body;
    let out = std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                s.spawn(move || {
                    let v = body(i, c);
                    let mut c = c;
                    unsafe { epmpi::EP_Comm_free(&mut c) };
                    v
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    release_idle();
    Some(out)
}

/// `main` of a benchmark: with `--child` run `child` (under mpirun), else relaunch this
/// executable on 2 processes and print its report.
pub fn main_with(child: fn(), timeout: Duration) {
    main_with_procs(child, &[2], timeout);
}

/// [`main_with`] launching the job once for each process count of `procs` (or of
/// `EPMPI_BENCH_PROCS`, comma-separated, when set), in turn.
pub fn main_with_procs(child: fn(), procs: &[u32], timeout: Duration) {
    let procs: Vec<u32> = match std::env::var("EPMPI_BENCH_PROCS") {
        Ok(t) => t.split(',').filter_map(|p| p.trim().parse().ok()).collect(),
        Err(_) => procs.to_vec(),
    };
    if std::env::args().any(|a| a == "--child") {
        child();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    for np in procs {
        let out = support::mpirun_program(&exe, np, "1", &["--child"], timeout);
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
            std::process::exit(1);
        }
    }
}

/// Measures every item (a message size, a collective at a size) with every method, in turns:
/// for each item, `sizes::rounds()` rounds of plain MPI, EP, plain MPI, EP, ..., each method's
/// repetitions pooled. On a shared machine whose speed drifts over a run, methods measured one
/// after the other differed by up to 1.5x from run to run. Taken in turns over the whole size
/// range, a round lasted seconds, so one size's figures were still taken seconds apart;
/// taken in turns per item, the methods of one item are measured within a fraction of a
/// second of each other and the drift weighs on them alike.
/// `run(method, item)` returns the item's repetition times (empty on processes that record
/// nothing); the result holds, per method, one list per item.
pub fn interleaved<M>(methods: &[(&'static str, M)], items: usize, run: impl Fn(&M, usize) -> Vec<f64>) -> Vec<(&'static str, Vec<Vec<f64>>)> {
    let mut pooled: Vec<(&'static str, Vec<Vec<f64>>)> = methods.iter().map(|(name, _)| (*name, vec![Vec::new(); items])).collect();
    for item in 0..items {
        for _ in 0..sizes::rounds() {
            for ((_, m), (_, acc)) in methods.iter().zip(pooled.iter_mut()) {
                acc[item].extend(run(m, item));
            }
        }
    }
    pooled
}

/// Number of processes of `MPI_COMM_WORLD`.
pub fn world_size() -> i32 {
    let mut n = 0;
    unsafe { sys::MPI_Comm_size(HOST.comm_world, &mut n) };
    n
}
