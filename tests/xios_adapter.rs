//! The XIOS adapter (`xios_adapter/`, namespace `ep_lib`): its sources (the list of
//! `xios_adapter/sources.cmake`) and `tests/xios/xios_replay.cpp` built with the host MPI's C++
//! wrapper (`mpicc.mpich` -> `mpicxx.mpich`) under `-std=c++11 -Wall -Wextra -Werror`, then run
//! under mpirun in XIOS-like shapes: model processes whose threads (OpenMP or std::thread) are
//! clients, and single-endpoint server processes. The program replays XIOS's start-up, context
//! registration, data path, reductions and finalize, and checks what arrives, from whom and in
//! which order (see its header comment). `tests/xios/dropin/` is compiled as XIOS's sources are
//! (the adapter's include directory in place of `extern/src_ep_dev`, `using namespace ep_lib;`,
//! no `<mpi.h>` on the model side, host names on the NetCDF-like side) and run in three shapes.

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

/// The drop-in program (`tests/xios/dropin/`), built as XIOS's sources are: in a tree whose
/// `extern/src_ep_dev` holds the headers the package installs (`EPMPI_XIOS_ADAPTER_HEADERS` of
/// `sources.cmake`, copied as an installation would) and whose `src/` holds the program, so that
/// `"../extern/src_ep_dev/ep_lib.hpp"` resolves as in an XIOS checkout. A header missing from the
/// list fails the build here. Besides, only `include/` (ep_mpi.h, for the adapter's own
/// sources) is on the include path.
fn dropin_program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let tree = target_profile_dir().join("xios-dropin-tree");
        let _ = std::fs::remove_dir_all(&tree);
        std::fs::create_dir_all(tree.join("src")).unwrap();
        std::fs::create_dir_all(tree.join("extern/src_ep_dev")).unwrap();
        let adapter = project_dir().join("xios_adapter");
        for header in cmake_source_list(&adapter.join("sources.cmake"), "EPMPI_XIOS_ADAPTER_HEADERS") {
            std::fs::copy(&header, tree.join("extern/src_ep_dev").join(header.file_name().unwrap())).unwrap();
        }
        let mut sources = cmake_source_list(&adapter.join("sources.cmake"), "EPMPI_XIOS_ADAPTER_SOURCES");
        for entry in std::fs::read_dir(project_dir().join("tests/xios/dropin")).unwrap() {
            let path = entry.unwrap().path();
            let copy = tree.join("src").join(path.file_name().unwrap());
            std::fs::copy(&path, &copy).unwrap();
            if path.extension().is_some_and(|e| e == "cpp") {
                sources.push(copy);
            }
        }
        // The adapter's own sources include "ep_lib.hpp": the installed copy.
        let include = format!("-I{}", tree.join("extern/src_ep_dev").display());
        let mut flags = CXXFLAGS.to_vec();
        flags.push(&include);
        compile_program(&mpi_tool("mpicxx"), &flags, &sources, "xios_dropin")
    })
}

/// Runs the drop-in program on `procs` processes of `eps` OpenMP threads (cycled).
fn dropin(procs: u32, eps: &str) {
    let exe = dropin_program();
    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let out = mpirun_program(exe, procs, eps, &[], Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("xios_dropin: PASS (0 failures)"),
        "xios_dropin on {procs} processes ({eps} threads) failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

/// XIOS's shape: equal thread counts (test_omp's numbering holds), several endpoints per process.
#[test]
fn dropin_two_processes_of_two_threads() {
    dropin(2, "2");
}

/// One endpoint per process: EPMPI hands collectives to the host, which rejects aliased buffers
/// unless the adapter reads them as MPI_IN_PLACE.
#[test]
fn dropin_one_thread_per_process() {
    dropin(3, "1");
}

/// Uneven teams, one process with a single thread.
#[test]
fn dropin_uneven_threads() {
    dropin(3, "3,1,2");
}

/// The installed header directory replaces `extern/src_ep_dev`: it holds every header of
/// `xios_adapter/include` (XIOS includes ep_lib.hpp and ep_declaration.hpp from it; ep_xios.h is
/// the protocol's) and no source file that XIOS's build would compile.
#[test]
fn header_list_is_the_include_directory() {
    let adapter = project_dir().join("xios_adapter");
    let mut listed: Vec<String> = cmake_source_list(&adapter.join("sources.cmake"), "EPMPI_XIOS_ADAPTER_HEADERS")
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut present: Vec<String> = std::fs::read_dir(adapter.join("include"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    listed.sort();
    present.sort();
    assert_eq!(listed, present, "EPMPI_XIOS_ADAPTER_HEADERS and xios_adapter/include differ");
    for name in ["ep_lib.hpp", "ep_declaration.hpp"] {
        assert!(listed.iter().any(|l| l == name), "{name} (XIOS includes it) is not installed");
    }
    assert!(listed.iter().all(|l| l.ends_with(".h") || l.ends_with(".hpp")), "a non-header in {listed:?}");
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
