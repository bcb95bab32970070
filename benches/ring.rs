//! Endpoints when threads outnumber cores: a ring exchange (each rank sends 8 B to its right
//! neighbour and receives from its left one, `RING_ROUNDS` rounds) with EPMPI endpoints in
//! several processes x endpoints shapes, against plain MPI with one process per rank, the same
//! number of ranks, on the same cores. On this 2-core machine every shape has more runnable
//! threads than cores: 1 x 4, 2 x 2 and plain 4; 4 x 2 and plain 8; 4 x 4 and plain 16.
//!
//! One C kernel (`benches/c/ring.c`) is built twice, plain (the host's mpicc, nothing of EPMPI)
//! and with `-DRING_ENDPOINTS` (EP_ names, linked with libepmpi, one OpenMP thread per
//! endpoint). Process counts differ between methods, so every method is its own mpirun job; the
//! jobs take turns, `EPMPI_BENCH_ROUNDS` rounds (default 3), each round starting with the next
//! method, and each job runs `EPMPI_BENCH_REPS` repetitions (default 1 here: plain MPI's oversubscribed
//! processes spin, so its 16-process job can take minutes) of the whole ring.
//! A repetition's figure is the slowest rank's time; a method's value is the median over its
//! jobs of each job's median (`ring time`, ms; size = ranks in the ring), its ratio the one to
//! plain MPI with as many ranks. Every job checks every message's sender and round, and prints
//! a digest that must match plain MPI's for the same ranks, so a figure cannot come from a
//! wrong exchange.
//!
//! `cargo bench --bench ring` (the MPI is the one `MPICC` names, as for the build).

mod common;

use common::record::{stats, Recorder, XUnit};
use common::support;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Rounds of one repetition: the 10,000 of the oversubscription target (docs/performance.md),
/// scaled by `EPMPI_BENCH_SCALE`.
fn ring_rounds() -> usize {
    common::sizes::iters(1, 10_000, u64::MAX)
}

fn reps() -> usize {
    if std::env::var_os("EPMPI_BENCH_REPS").is_some() {
        common::sizes::reps()
    } else {
        1
    }
}

/// One way of forming the ring.
struct Method {
    name: &'static str,
    exe: PathBuf,
    procs: u32,
    /// Endpoints per process (the endpoint build), or `None` (plain MPI).
    eps: Option<u32>,
}

impl Method {
    fn ranks(&self) -> u64 {
        u64::from(self.procs * self.eps.unwrap_or(1))
    }
}

/// What one job printed: ranks, repetition times in seconds, digest.
fn parse(stdout: &str) -> (u64, Vec<f64>, String) {
    let field = |key: &str| stdout.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_string()).unwrap_or_default();
    let ranks = field("ranks ").parse().unwrap_or(0);
    let times = field("ring ").split_whitespace().map(|t| t.parse().expect("time")).collect();
    (ranks, times, field("results:"))
}

fn main() {
    let src = support::project_dir().join("benches/c/ring.c");
    let plain = common::compile_plain(&src, "ring_plain");
    let mut flags = support::C_FLAGS.to_vec();
    flags.push("-DRING_ENDPOINTS");
    let ep = support::compile_program(&support::mpicc(), &flags, &[src], "ring_endpoints");
    let m = |name, exe: &PathBuf, procs, eps| Method { name, exe: exe.clone(), procs, eps };
    let methods = [
        m("plain MPI, 4 processes", &plain, 4, None),
        m("EP, 2 processes x 2 endpoints", &ep, 2, Some(2)),
        m("EP, 1 process x 4 endpoints", &ep, 1, Some(4)),
        m("plain MPI, 8 processes", &plain, 8, None),
        m("EP, 4 processes x 2 endpoints", &ep, 4, Some(2)),
        m("plain MPI, 16 processes", &plain, 16, None),
        m("EP, 4 processes x 4 endpoints", &ep, 4, Some(4)),
    ];
    let (reps, rounds) = (reps(), ring_rounds());
    let mut medians: Vec<Vec<f64>> = vec![Vec::new(); methods.len()];
    let mut digests: BTreeMap<u64, String> = BTreeMap::new();
    for round in 0..common::sizes::rounds() {
        for k in 0..methods.len() {
            let v = (round + k) % methods.len();
            let method = &methods[v];
            let mut args = vec![reps.to_string(), rounds.to_string()];
            args.extend(method.eps.map(|e| e.to_string()));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = support::mpirun_program(&method.exe, method.procs, "1", &args, Duration::from_secs(1200));
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{} failed:\n{stdout}\n{}", method.name, String::from_utf8_lossy(&out.stderr));
            let (ranks, times, digest) = parse(&stdout);
            assert_eq!(ranks, method.ranks(), "{}: ranks in the ring:\n{stdout}", method.name);
            assert_eq!(times.len(), reps, "{}: repetitions printed:\n{stdout}", method.name);
            assert!(digest.starts_with("errors 0 "), "{}: wrong data in the ring: {digest}", method.name);
            let first = digests.entry(ranks).or_insert_with(|| digest.clone());
            assert_eq!(*first, digest, "{}: digest differs from the first job with {ranks} ranks", method.name);
            medians[v].push(stats(&times).0 * 1e3);
        }
    }
    let mut rec = Recorder::new("ring", 16); // processes: up to 16, per method in its name
    for (method, values) in methods.iter().zip(&medians) {
        rec.add("ring time", method.name, method.ranks(), XUnit::Ranks, "ms", values);
    }
    println!(
        "# {} rounds of {} jobs; {reps} repetitions of {rounds} ring rounds per job; load average {}",
        common::sizes::rounds(),
        methods.len(),
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    rec.finish();
}
