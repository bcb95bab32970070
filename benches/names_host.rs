//! The standard-names layer's cost on the host path: one plain MPI ping-pong program
//! (`benches/c/host_pingpong.c`, two processes, 8 B and 1 KiB .. 1 MiB by powers of 4) built
//! with the host's mpicc twice, as it is and linked with `-lepmpi_mpi -lepmpi` (the layer built
//! as the tests build it), and run in three variants: plain, through the layer (which keeps the
//! program's thread level, since the program creates no endpoint), and through the layer with
//! `EPMPI_HOST_THREAD_LEVEL=multiple` (the host at `MPI_THREAD_MULTIPLE`, as for a program that
//! creates endpoints), which shows the thread level's own cost beside the wrappers'. Records per size the median over runs of each run's median
//! half round trip (`latency`, us), bandwidth from 1 KiB (`bandwidth`, GB/s), and each layer
//! variant's ratio to the plain run of the same round (`latency ratio, same round`).
//!
//! A build cannot be loaded beside another in one process (the layer replaces `MPI_*` by
//! symbol), so each run is its own mpirun job and the variants take turns, round by round,
//! each round starting with the next variant so no variant always follows the same one;
//! `EPMPI_BENCH_ROUNDS` rounds (default 7 here: one figure per job, so a median needs more
//! jobs than the in-process benchmarks need rounds), `EPMPI_BENCH_REPS` repetitions per job.
//! Every run must print the same data digest, the plain build's `MPI_Send` must come from the
//! host and the layered builds' from `libepmpi_mpi` (dladdr), so the figure cannot silently
//! measure the host twice; the thread level each variant got is checked too.
//!
//! `cargo bench --bench names_host` (the MPI is the one `MPICC` names, as for the build).

mod common;

use common::record::{stats, Recorder, XUnit};
use common::support;
use std::path::PathBuf;
use std::time::Duration;

const LAT_ITERS: usize = 10_000;
/// Bytes moved one way per repetition for large messages.
const BUDGET: u64 = 64 << 20;

/// One way of running the program.
struct Variant {
    method: &'static str,
    exe: PathBuf,
    env: &'static [(&'static str, &'static str)],
    /// Where `MPI_Send` must come from.
    send_from: &'static str,
}

/// What one run printed.
struct RunOutput {
    send_from: String,
    thread_level: String,
    /// Per size, the repetitions' half round trips in us.
    latency: Vec<(u64, Vec<f64>)>,
    results: String,
}

fn parse(stdout: &str) -> RunOutput {
    let field = |key: &str| stdout.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_string()).unwrap_or_default();
    let latency = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("latency "))
        .map(|l| {
            let mut w = l.split_whitespace();
            let bytes = w.next().and_then(|b| b.parse().ok()).expect("size");
            (bytes, w.map(|t| t.parse().expect("time")).collect())
        })
        .collect();
    RunOutput { send_from: field("MPI_Send from:"), thread_level: field("thread level:"), latency, results: field("results:") }
}

fn rounds() -> usize {
    if std::env::var_os("EPMPI_BENCH_ROUNDS").is_some() {
        common::sizes::rounds()
    } else {
        7
    }
}

fn main() {
    // `cargo bench` passes `--bench`; this benchmark runs its own mpirun jobs and takes no
    // other argument.
    let src = support::project_dir().join("benches/c/host_pingpong.c");
    let plain = common::compile_plain(&src, "host_pingpong_plain");
    let layered = support::compile_c_mpi_names(&src, "host_pingpong_layered");
    let variants = [
        Variant { method: "plain MPI, 2 processes", exe: plain, env: &[], send_from: "host" },
        Variant { method: "libepmpi_mpi", exe: layered.clone(), env: &[], send_from: "layer" },
        Variant {
            method: "libepmpi_mpi, EPMPI_HOST_THREAD_LEVEL=multiple",
            exe: layered,
            env: &[("EPMPI_HOST_THREAD_LEVEL", "multiple")],
            send_from: "layer",
        },
    ];
    let mut default = vec![8];
    default.extend(common::sizes::powers_of_4(1 << 10, 1 << 20));
    let sizes = common::sizes::sizes(&default, 1, 1 << 30);
    let reps = common::sizes::reps();
    let mut args = vec![reps.to_string()];
    args.extend(sizes.iter().map(|&b| format!("{b}:{}", common::sizes::iters(b, LAT_ITERS, BUDGET))));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();

    // medians[variant][size]: one median per run; levels[variant]: thread levels seen.
    let mut medians = vec![vec![Vec::new(); sizes.len()]; variants.len()];
    let mut paired = vec![vec![Vec::new(); sizes.len()]; variants.len()];
    let mut levels = vec![std::collections::BTreeSet::new(); variants.len()];
    let mut digest: Option<String> = None;
    for round in 0..rounds() {
        let mut this_round = vec![Vec::new(); variants.len()];
        for k in 0..variants.len() {
            let v = (round + k) % variants.len();
            let var = &variants[v];
            let out = support::mpirun_program_env(&var.exe, 2, "1", &args, var.env, Duration::from_secs(300));
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{} failed:\n{stdout}\n{}", var.method, String::from_utf8_lossy(&out.stderr));
            let run = parse(&stdout);
            assert_eq!(run.send_from, var.send_from, "{}: MPI_Send does not come from the expected library:\n{stdout}", var.method);
            assert!(!run.results.is_empty(), "{}: no results line:\n{stdout}", var.method);
            match &digest {
                None => digest = Some(run.results.clone()),
                Some(d) => assert_eq!(&run.results, d, "{}: results differ from the first run's", var.method),
            }
            let got: Vec<u64> = run.latency.iter().map(|(b, _)| *b).collect();
            assert_eq!(got, sizes, "{}: sizes printed:\n{stdout}", var.method);
            levels[v].insert(run.thread_level);
            this_round[v] = run.latency.into_iter().map(|(_, t)| stats(&t).0).collect();
        }
        for v in 0..variants.len() {
            for s in 0..sizes.len() {
                medians[v][s].push(this_round[v][s]);
                paired[v][s].push(this_round[v][s] / this_round[0][s]);
            }
        }
    }
    assert_eq!(levels[1], levels[0], "the layer changed the thread level of a program that creates no endpoint");
    assert!(levels[2].iter().all(|l| l == "MPI_THREAD_MULTIPLE"), "EPMPI_HOST_THREAD_LEVEL=multiple gave {:?}", levels[2]);

    let mut rec = Recorder::new("names_host", 2);
    for (v, var) in variants.iter().enumerate() {
        for (s, &bytes) in sizes.iter().enumerate() {
            rec.add("latency", var.method, bytes, XUnit::Bytes, "us", &medians[v][s]);
            if bytes >= 1 << 10 {
                let gbs: Vec<f64> = medians[v][s].iter().map(|us| bytes as f64 / (us * 1e-6) / 1e9).collect();
                rec.add("bandwidth", var.method, bytes, XUnit::Bytes, "GB/s", &gbs);
            }
        }
    }
    for (v, var) in variants.iter().enumerate().skip(1) {
        for (s, &bytes) in sizes.iter().enumerate() {
            rec.add("latency ratio, same round", var.method, bytes, XUnit::Bytes, "x", &paired[v][s]);
        }
    }
    println!(
        "# {} rounds of {} jobs; {} repetitions per job; thread levels: plain {:?}, layer {:?}, multiple {:?}; load average {}",
        rounds(),
        variants.len(),
        reps,
        levels[0],
        levels[1],
        levels[2],
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    rec.finish();
}
