//! A Rust program over the C ABI, run under mpirun in every shape: plain `std::thread`s (no
//! OpenMP) create their endpoints with the team form, then every endpoint sends a seeded
//! random mix of message sizes (eager and rendezvous, local and remote) and tags to every
//! endpoint; receivers take them with `EP_Probe(EP_ANY_SOURCE, EP_ANY_TAG)` + `EP_Get_count`
//! + `EP_Recv`, and check content and per-source order.
//!
//! Without `--child` this binary is the launcher (harness = false); with it, an MPI process.

mod support;

use support::host_mpi::{sys, HostComm, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::time::Duration;

const MESSAGES_PER_PAIR: usize = 40;

/// Small deterministic generator (xorshift), seeded per sender and destination.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Size (in ints) and tag of message `k` from `src` to `dst`; payload word i is
/// `src * 1_000_000 + k * 1000 + i % 1000`.
fn plan(src: i32, dst: i32, k: usize) -> (usize, i32) {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ ((src as u64) << 32) ^ (dst as u64) ^ ((k as u64) << 48));
    for _ in 0..3 {
        r.next();
    }
    let len = match r.next() % 10 {
        0 => 0,
        1..=6 => (r.next() % 64) as usize,
        7 | 8 => 1000 + (r.next() % 4000) as usize,   // 4 to 20 KB: both sides of the eager limits
        _ => 100_000 + (r.next() % 50_000) as usize, // large rendezvous
    };
    (len, (r.next() % 1000) as i32)
}

fn word(src: i32, k: usize, i: usize) -> i32 {
    src * 1_000_000 + (k as i32) * 1000 + (i % 1000) as i32
}

fn endpoint_main(comm: EP_Comm) -> usize {
    let mut failures = 0;
    let (mut me, mut size) = (0, 0);
    unsafe {
        EP_Comm_rank(comm, &mut me);
        EP_Comm_size(comm, &mut size);
    }
    // Post every send up front (nonblocking), keeping buffers alive.
    let mut bufs = Vec::new();
    let mut reqs = Vec::new();
    for k in 0..MESSAGES_PER_PAIR {
        for dst in 0..size {
            let (len, tag) = plan(me, dst, k);
            let data: Vec<i32> = (0..len).map(|i| word(me, k, i)).collect();
            let mut r = EP_REQUEST_NULL;
            let rc = unsafe { EP_Isend(data.as_ptr() as *const c_void, len as i32, HOST.int_, dst, tag, comm, &mut r) };
            assert_eq!(rc, EP_SUCCESS);
            bufs.push(data);
            reqs.push(r);
        }
    }
    let mut next_k = vec![0usize; size as usize];
    for _ in 0..(MESSAGES_PER_PAIR * size as usize) {
        let mut st = EP_Status::default();
        let mut count = 0;
        unsafe {
            assert_eq!(EP_Probe(EP_ANY_SOURCE, EP_ANY_TAG, comm, &mut st), EP_SUCCESS);
            assert_eq!(EP_Get_count(&st, HOST.int_, &mut count), EP_SUCCESS);
        }
        let src = st.MPI_SOURCE;
        let k = next_k[src as usize];
        let (len, tag) = plan(src, me, k);
        if count as usize != len || st.MPI_TAG != tag {
            eprintln!("FAIL rank {me}: message {k} from {src}: count {count} tag {} (expected {len}, {tag})", st.MPI_TAG);
            failures += 1;
        }
        let mut buf = vec![-1i32; count as usize];
        let mut st2 = EP_Status::default();
        let rc = unsafe {
            EP_Recv(buf.as_mut_ptr() as *mut c_void, count, HOST.int_, src, st.MPI_TAG, comm, &mut st2)
        };
        if rc != EP_SUCCESS || st2.MPI_SOURCE != src {
            eprintln!("FAIL rank {me}: receive from {src} rc {rc}");
            failures += 1;
        }
        let bad = buf.iter().enumerate().filter(|(i, v)| **v != word(src, k, *i)).count();
        if bad > 0 {
            eprintln!("FAIL rank {me}: message {k} from {src}: {bad} wrong words (out of order or corrupt)");
            failures += 1;
        }
        next_k[src as usize] += 1;
    }
    unsafe {
        assert_eq!(EP_Waitall(reqs.len() as i32, reqs.as_mut_ptr(), std::ptr::null_mut()), EP_SUCCESS);
    }
    failures
}

fn child() -> i32 {
    let mut provided = 0;
    unsafe {
        sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided);
    }
    let (mut wr, mut ws) = (0, 0);
    unsafe {
        sys::MPI_Comm_rank(HOST.comm_world, &mut wr);
        sys::MPI_Comm_size(HOST.comm_world, &mut ws);
    }
    let spec = std::env::var("EPMPI_TEST_EPS").unwrap_or_else(|_| "2".into());
    let counts: Vec<i32> = spec.split(',').map(|s| s.parse().unwrap()).collect();
    let n = counts[wr as usize % counts.len()];
    let mut failures = 0usize;
    if n == 0 {
        let mut none = EP_COMM_NULL;
        unsafe { assert_eq!(EP_Comm_create_endpoints(HOST.comm_world, 0, HOST.info_null, &mut none), EP_SUCCESS) };
    } else {
        let world = HostComm(HOST.comm_world);
        failures = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|index| {
                    s.spawn(move || {
                        let world = world;
                        let mut comm = EP_COMM_NULL;
                        let rc = unsafe { EP_Comm_create_endpoint(world.0, n, index, &mut comm) };
                        assert_eq!(rc, EP_SUCCESS);
                        let f = endpoint_main(comm);
                        unsafe { assert_eq!(EP_Comm_free(&mut comm), EP_SUCCESS) };
                        f
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
    }
    let mine = failures as i32;
    let mut total = 0;
    unsafe {
        sys::MPI_Allreduce(&mine as *const i32 as *const c_void, &mut total as *mut i32 as *mut c_void, 1, HOST.int_, sys::RSMPI_SUM, HOST.comm_world);
        if wr == 0 {
            println!("rust_traffic: {} ({total} failures)", if total == 0 { "PASS" } else { "FAIL" });
        }
        sys::MPI_Finalize();
    }
    let _ = ws;
    if total == 0 { 0 } else { 1 }
}

fn main() {
    if std::env::args().any(|a| a == "--child") {
        std::process::exit(child());
    }
    let exe = std::env::current_exe().unwrap();
    for shape in support::SHAPES {
        let out = support::mpirun_program(&exe, shape.procs, shape.eps, &["--child"], Duration::from_secs(240));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("rust_traffic: PASS"),
            "rust_traffic failed in shape {}\nstdout:\n{stdout}\nstderr:\n{}",
            shape.name,
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("rust_traffic {}: PASS", shape.name);
    }
}
