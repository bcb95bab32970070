//! The bad-input suite: `tests/c/bad_input.c` in every shape of `support::SHAPES`, with a
//! check that it covers every function `include/ep_mpi.h` declares
//! (a new `EP_` function without a case fails here), and `tests/c/bad_init.c` for calls
//! before `MPI_Init_thread` and after `MPI_Finalize`. The cases are listed in docs/errors.md.

mod support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use support::*;

/// The functions `include/ep_mpi.h` declares: lines `int EP_Name(` or `double EP_Name(`.
fn header_functions() -> BTreeSet<String> {
    let header = std::fs::read_to_string(project_dir().join("include/ep_mpi.h")).expect("read include/ep_mpi.h");
    let found: BTreeSet<String> = header
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("int ").or_else(|| l.strip_prefix("double "))?;
            let name = rest.split('(').next()?.trim();
            (name.starts_with("EP_") && rest.contains('(')).then(|| name.to_string())
        })
        .collect();
    assert!(found.len() > 50, "parsed only {} functions from the header", found.len());
    found
}

/// The functions a run reported covering: the words after "<program>: covered".
fn covered(stdout: &str, program: &str) -> BTreeSet<String> {
    let prefix = format!("{program}: covered");
    let line = stdout.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no coverage line in:\n{stdout}"));
    line[prefix.len()..].split_whitespace().map(str::to_string).collect()
}

#[test]
fn header_parser_sees_known_functions() {
    let f = header_functions();
    for name in ["EP_Send", "EP_Wtime", "EP_Win_free", "EP_Comm_create_endpoints", "EP_Debug_live_windows"] {
        assert!(f.contains(name), "{name} missing from {f:?}");
    }
}

#[test]
fn every_function_refuses_bad_input_in_every_shape() {
    let exe = compile_c(&project_dir().join("tests/c/bad_input.c"), "bad_input");
    let wanted = header_functions();
    for shape in SHAPES {
        let _g = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
        let t = Instant::now();
        let out = mpirun_program(&exe, shape.procs, shape.eps, &[], Duration::from_secs(240));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains("bad_input: PASS"),
            "bad_input failed in shape {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            shape.name
        );
        let got = covered(&stdout, "bad_input");
        let missing: Vec<_> = wanted.difference(&got).collect();
        assert!(missing.is_empty(), "functions of include/ep_mpi.h without a bad-input case: {missing:?}");
        let unknown: Vec<_> = got.difference(&wanted).collect();
        assert!(unknown.is_empty(), "covered functions the header does not declare: {unknown:?}");
        eprintln!("bad_input {}: PASS in {:.1} s", shape.name, t.elapsed().as_secs_f64());
    }
}

#[test]
fn calls_before_init_and_after_finalize_are_not_initialized() {
    let exe = compile_c(&project_dir().join("tests/c/bad_init.c"), "bad_init");
    let _g = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let out = mpirun_program(&exe, 2, "2", &[], Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stdout.contains("bad_init: PASS"), "stdout:\n{stdout}\nstderr:\n{stderr}");
}
