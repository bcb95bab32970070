//! The C test programs under valgrind memcheck: no invalid access, no use of uninitialised
//! memory, and no lost block (definite, indirect or possible) outside the host MPI's own, which
//! `tests/valgrind.supp` suppresses. Blocks still reachable at exit are allowed (handle-table
//! free lists, the error-message registry, thread-local caches: bounded and owned by statics);
//! the programs themselves check that every handle and every engine object is gone
//! (`EP_Debug_live_objects` in `ep_test_finish`).
//!
//! A few minutes, so ignored by a plain `cargo test`; `tests/run_all.sh` runs it on both MPIs
//! (unless `EPMPI_TEST_VALGRIND=0`). Alone: `cargo test --test memcheck -- --include-ignored`.

mod support;

use std::time::{Duration, Instant};
use support::*;

fn memcheck(name: &str) {
    memcheck_in(name, "2");
}

/// `name` under valgrind on 2 processes with `eps` endpoints each (`EPMPI_TEST_EPS`).
fn memcheck_in(name: &str, eps: &str) {
    let exe = compile_c(&project_dir().join("tests/c").join(format!("{name}.c")), &format!("{name}-memcheck"));
    let logs = target_profile_dir().join("memcheck");
    std::fs::create_dir_all(&logs).unwrap();
    for f in std::fs::read_dir(&logs).unwrap().flatten() {
        if f.file_name().to_string_lossy().starts_with(&format!("{name}.")) {
            let _ = std::fs::remove_file(f.path());
        }
    }
    let supp = project_dir().join("tests/valgrind.supp");
    let log = logs.join(format!("{name}.%p.log"));
    let wrapper = logs.join(format!("{name}-valgrind.sh"));
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible \
             --errors-for-leak-kinds=definite,indirect,possible --num-callers=40 --suppressions={} \
             --log-file={} {} \"$@\"\n",
            supp.display(),
            log.display(),
            exe.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _g = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let t = Instant::now();
    // Under valgrind everything is ~20x slower: the programs' own watchdogs get more time.
    let out = mpirun_program_env(&wrapper, 2, eps, &[], &[("EPMPI_TEST_TIMEOUT", "1500")], Duration::from_secs(1500));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(&format!("{name}: PASS")),
        "{name} under valgrind failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let mut reports = Vec::new();
    let mut seen = 0;
    for f in std::fs::read_dir(&logs).unwrap().flatten() {
        let fname = f.file_name().to_string_lossy().into_owned();
        if !(fname.starts_with(&format!("{name}.")) && fname.ends_with(".log")) {
            continue;
        }
        seen += 1;
        let text = std::fs::read_to_string(f.path()).unwrap();
        let clean = text.lines().any(|l| l.contains("ERROR SUMMARY: 0 errors"));
        if !clean {
            reports.push(format!("{}:\n{text}", f.path().display()));
        }
    }
    assert_eq!(seen, 2, "expected one valgrind log per process in {}", logs.display());
    assert!(reports.is_empty(), "{name}: valgrind reports\n{}", reports.join("\n"));
    eprintln!("{name} under valgrind (2x{eps}): clean in {:.0} s", t.elapsed().as_secs_f64());
}

#[test]
#[ignore = "valgrind memcheck, minutes: run with --include-ignored (tests/run_all.sh does)"]
fn p2p_memcheck() {
    memcheck("p2p");
}

#[test]
#[ignore = "valgrind memcheck, minutes: run with --include-ignored (tests/run_all.sh does)"]
fn coll_memcheck() {
    memcheck("coll");
}

#[test]
#[ignore = "valgrind memcheck, minutes: run with --include-ignored (tests/run_all.sh does)"]
fn win_memcheck() {
    memcheck("win");
}

/// One endpoint per process: direct mode on Open MPI (bounce buffers, notices, held messages).
#[test]
#[ignore = "valgrind memcheck, minutes: run with --include-ignored (tests/run_all.sh does)"]
fn direct_notices_memcheck() {
    memcheck_in("direct_notices", "1");
}
