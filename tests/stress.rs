//! Randomised traffic (`tests/c/stress.c`): seeded, reproducible point-to-point traffic with
//! every receive style and send mode, checked message by message against MPI's matching order,
//! with collectives on several communicators between rounds. Short runs in every shape (a
//! different seed each) and one oversubscribed run with 64 endpoints per process on two
//! processes. A soak is the same program with more messages, e.g.
//! `EPMPI_TEST_EPS=4 mpirun -np 3 target/mpich/debug/c-tests/stress 10000000 $RANDOM`.

mod support;

use std::time::{Duration, Instant};
use support::*;

/// The program, built once per test binary: the tests run in parallel threads, and one
/// rebuilding the executable while the other launches it breaks the launch.
fn stress_program() -> std::path::PathBuf {
    static EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| compile_c(&project_dir().join("tests/c/stress.c"), "stress")).clone()
}

fn run(exe: &std::path::Path, procs: u32, eps: &str, messages: u32, seed: u32) {
    let (m, s) = (messages.to_string(), seed.to_string());
    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let out = mpirun_program(exe, procs, eps, &[&m, &s], Duration::from_secs(240));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("stress: PASS"),
        "stress on {procs} processes ({eps} endpoints), {messages} messages, seed {seed} failed\n\
         stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    eprintln!("stress {procs}x({eps}) seed {seed}: PASS in {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn every_shape() {
    let exe = stress_program();
    for (i, shape) in SHAPES.iter().enumerate() {
        run(&exe, shape.procs, shape.eps, 4000, i as u32 + 1);
    }
}

#[test]
fn sixty_four_endpoints_per_process() {
    let exe = stress_program();
    run(&exe, 2, "64", 2000, 64);
}
