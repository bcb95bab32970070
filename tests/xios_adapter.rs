//! The XIOS adapter (`xios_adapter/`, namespace `ep_lib`): its sources (the list of
//! `xios_adapter/sources.cmake`) and `tests/xios/xios_replay.cpp` built with the host MPI's C++
//! wrapper (`mpicc.mpich` -> `mpicxx.mpich`) under `-std=c++11 -Wall -Wextra -Werror`, then run
//! under mpirun in XIOS-like shapes: model processes whose threads (OpenMP or std::thread) are
//! clients, and single-endpoint server processes. The program replays XIOS's start-up, context
//! registration, data path, reductions and finalize, and checks what arrives, from whom and in
//! which order (see its header comment).

mod support;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::*;

/// Flags of every C++ compilation: XIOS builds as C++11.
const CXXFLAGS: &[&str] = &["-std=c++11", "-O1", "-g", "-fopenmp", "-pthread", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function"];

/// Messages each client endpoint sends in the data phase (MESSAGES of xios_replay.cpp).
const MESSAGES_PER_CLIENT: u32 = 6;

/// Threads of client process `p` (EPMPI_TEST_EPS cycled over processes, as the program reads it).
fn client_threads(eps: &str, p: u32) -> u32 {
    let counts: Vec<u32> = eps.split(',').map(|c| c.parse().unwrap()).collect();
    counts[p as usize % counts.len()]
}

/// The replay program, built once per test binary.
fn replay_program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let adapter = project_dir().join("xios_adapter");
        let mut sources = cmake_source_list(&adapter.join("sources.cmake"), "EPMPI_XIOS_ADAPTER_SOURCES");
        sources.push(project_dir().join("tests/xios/xios_replay.cpp"));
        let include = format!("-I{}", adapter.join("include").display());
        let mut flags = CXXFLAGS.to_vec();
        flags.push(&include);
        compile_program(&mpi_tool("mpicxx"), &flags, &sources, "xios_replay")
    })
}

/// Runs the replay on `procs` processes: `eps` threads per client process (cycled), then
/// `servers` server processes, `codes` client codes, OpenMP or std::thread teams.
fn replay(procs: u32, eps: &str, servers: u32, codes: u32, threads: &str) {
    let exe = replay_program();
    let (servers_arg, codes_arg) = (servers.to_string(), codes.to_string());
    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let out = mpirun_program(exe, procs, eps, &[&servers_arg, &codes_arg, threads], Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let clients: u32 = (0..procs - servers).map(|p| client_threads(eps, p)).sum();
    let received = format!("servers received {} client messages", clients * MESSAGES_PER_CLIENT);
    assert!(
        out.status.success() && stdout.contains("xios_replay: PASS") && stdout.contains(&received),
        "xios_replay on {procs} processes ({eps} client threads, {servers} servers, {codes} codes, {threads}) \
         failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    eprintln!("xios_replay {procs} processes ({eps} client threads, {servers} servers, {codes} codes, {threads}): PASS in {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn two_clients_of_two_threads_one_server() {
    replay(3, "2", 1, 1, "omp");
}

#[test]
fn uneven_clients_two_servers_two_codes() {
    replay(4, "3,1", 2, 2, "omp");
}

#[test]
fn std_thread_clients() {
    replay(3, "1,3", 1, 2, "std");
}

#[test]
fn fatal_error_names_the_ep_lib_call_and_aborts() {
    let exe = replay_program();
    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let out = mpirun_program(exe, 2, "1", &["fatal"], Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !stdout.contains("still running"), "job survived\n{stdout}\n{stderr}");
    assert!(
        stderr.contains("EPMPI fatal error in ep_lib::MPI_Send: the communicator is MPI_COMM_NULL"),
        "stderr does not name the call and the cause:\n{stderr}"
    );
}
