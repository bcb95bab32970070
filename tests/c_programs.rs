//! The C test programs of `tests/c`, compiled against `include/ep_mpi.h` and the built
//! shared library, run under mpirun in every shape of `support::SHAPES`.

mod support;

use std::time::Duration;
use support::*;

fn c_test(name: &str) {
    let exe = compile_c(&project_dir().join("tests/c").join(format!("{name}.c")), name);
    run_in_all_shapes(&exe, name);
}

#[test]
fn p2p() {
    c_test("p2p");
}

#[test]
fn create_team() {
    c_test("create_team");
}

#[test]
fn thread_level_is_checked() {
    let exe = compile_c(&project_dir().join("tests/c/thread_level.c"), "thread_level");
    let _g = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let out = mpirun_program(&exe, 2, "1", &[], Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("thread_level: PASS"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn fatal_handler_names_the_call_and_aborts() {
    let exe = compile_c(&project_dir().join("tests/c/fatal_error.c"), "fatal_error");
    let _g = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let out = mpirun_program(&exe, 2, "1", &[], Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "job survived a fatal error\n{stdout}\n{stderr}");
    assert!(!stdout.contains("still running"), "{stdout}");
    assert!(
        stderr.contains("EPMPI fatal error in EP_Send") && stderr.contains("destination rank 1000000"),
        "stderr does not name the call and cause:\n{stderr}"
    );
}
