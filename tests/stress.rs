//! Randomised traffic (`tests/c/stress.c`): seeded, reproducible point-to-point traffic with
//! every send mode and a random mixture of exact, source-only, tag-only and wildcard receives
//! in each matching queue (pre-posted, or late by receive, probe or matched probe), checked
//! message by message against MPI's matching order, with collectives on several communicators
//! between rounds. Short runs in every shape (a different seed each) and one oversubscribed run
//! with 64 endpoints per process on two processes. A soak is the same program with more
//! messages, e.g. `EPMPI_TEST_EPS=4 mpirun -np 3 target/mpich/debug/c-tests/stress 10000000 $RANDOM`.

mod support;

use std::time::{Duration, Instant};
use support::*;

/// The program, built once per test binary: the tests run in parallel threads, and one
/// rebuilding the executable while the other launches it breaks the launch.
fn stress_program() -> std::path::PathBuf {
    static EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| compile_c(&project_dir().join("tests/c/stress.c"), "stress")).clone()
}

/// The numbers of the program's line that starts with `prefix`, in order.
fn numbers_after(stdout: &str, prefix: &str) -> Vec<u64> {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in\n{stdout}"));
    line.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect()
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
    // The checker judged its fixed outcomes (allowed and forbidden ones) before the traffic.
    assert!(numbers_after(&stdout, "stress: checker self-test: ")[0] > 0, "{stdout}");
    // Every message was checked, and the run had the mixture it is for: receives of every
    // filter, late ones, probed ones, and queues holding more than one filter.
    let checked = numbers_after(&stdout, "stress: seed ");
    assert!(checked[1] >= u64::from(messages), "fewer messages checked than sent:\n{stdout}");
    let kinds = numbers_after(&stdout, "stress: receives: ");
    let [exact, source, tag, any, late, probed, mixed] = kinds[..] else {
        panic!("unexpected receive counts {kinds:?} in\n{stdout}")
    };
    assert!(
        exact > 0 && source > 0 && tag > 0 && any > 0 && late > 0 && probed > 0 && mixed > 0,
        "the run lacks part of the receive mixture:\n{stdout}"
    );
    assert_eq!(exact + source + tag + any, checked[1], "one receive per message:\n{stdout}");
    eprintln!(
        "stress {procs}x({eps}) seed {seed}: PASS in {:.1} s ({exact} exact, {source} source-only, {tag} tag-only, \
         {any} wildcard receives; {late} late, {probed} probed; {mixed} mixed queues)",
        start.elapsed().as_secs_f64()
    );
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
