//! The XIOS client/server protocol (`xios_adapter/include/ep_xios.h`, sources listed in
//! `xios_adapter/sources.cmake` as `EPMPI_XIOS_PROTOCOL_SOURCES`): `tests/xios/protocol.c`
//! built with them, run under mpirun with OpenMP client threads and 1 or 2 single-endpoint
//! server processes, for both transports. The program checks start-up ranks, every event's
//! order, type, metadata and bytes on each server, the end of contexts and bad input (see its
//! header comment).

mod support;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::*;

fn protocol_program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let adapter = project_dir().join("xios_adapter");
        let mut sources = cmake_source_list(&adapter.join("sources.cmake"), "EPMPI_XIOS_PROTOCOL_SOURCES");
        sources.push(project_dir().join("tests/xios/protocol.c"));
        let include = format!("-I{}", adapter.join("include").display());
        let flags = ["-std=c11", "-O1", "-g", "-fopenmp", "-pthread", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function", &include];
        compile_program(&mpicc(), &flags, &sources, "xios_protocol")
    })
}

/// Runs the program on `procs` processes, the last `servers` of them servers, the others with
/// `eps` client threads each (cycled).
fn run(procs: u32, eps: &str, servers: u32, transport: &str) {
    let exe = protocol_program();
    let servers_arg = servers.to_string();
    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let out = mpirun_program(exe, procs, eps, &[transport, &servers_arg], Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("xios_protocol: PASS"),
        "xios_protocol on {procs} processes ({eps} client threads, {servers} servers, {transport}) failed\n\
         stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    eprintln!("xios_protocol {procs} processes ({eps}, {servers} servers, {transport}): PASS in {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn one_sided_two_clients_of_two_threads_one_server() {
    run(3, "2", 1, "one-sided");
}

#[test]
fn one_sided_uneven_threads_two_servers() {
    run(4, "3,1", 2, "one-sided");
}

#[test]
fn two_sided_uneven_threads_two_servers() {
    run(4, "3,1", 2, "two-sided");
}

#[test]
fn two_sided_one_process_of_four_threads() {
    run(2, "4", 1, "two-sided");
}
