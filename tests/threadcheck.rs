//! The C test programs under ThreadSanitizer: no data race, lock-order inversion or other TSan
//! report in a run of point-to-point, collectives and the random traffic stress, with 2 or 3
//! endpoints (OpenMP threads) per process.
//!
//! The library is built a second time with nightly rustc's `-Zsanitizer=thread`, the standard
//! library included (`-Zbuild-std`, so `Arc`, `Mutex` and the channels of std are seen too),
//! into `<target>/tsan`: it needs the nightly toolchain with its `rust-src` component. The
//! programs are compiled with `-fsanitize=thread`: GCC's libtsan is the runtime of the whole
//! process, and `tests/tsan_memfns.c` adds the three entry points that Rust's newer LLVM
//! emits and GCC 12's runtime lacks. The host MPI, UCX and libgomp are not instrumented:
//! races inside them are not looked for, and their synchronisation is invisible, so every
//! ordering between endpoints must come from EPMPI's own atomics and locks, which is what is
//! checked. `tests/tsan.supp` says what is suppressed and why (libgomp's fork and join in
//! the programs' `main`; nothing of EPMPI). A deliberately racy program is checked too, to
//! show that the runtime reports and the reports are found. Each program runs one OpenMP
//! parallel region: with two, libgomp's reuse of its threads (also invisible) would make an
//! EPMPI object written in the first region and read in the second look like a race.
//!
//! What runs depends on the host MPI (see [`MPICH_RUNS`] and [`OPEN_MPI_RUNS`]): under MPICH
//! the programs on several processes (p2p 2x2, coll 2x2 and 1x3, stress 2x3), so that the
//! paths through the host (pre-posted host receives, requests that any endpoint's progress
//! completes) are checked too; under Open MPI on one process only (p2p 1x2 and 1x3, coll 1x2
//! and 1x3, stress 1x3), where all traffic between endpoints takes EPMPI's own shared-memory
//! paths and the host sees a communicator of one process. Open MPI's multi-process runs give
//! reports that are the host's, not EPMPI's, and cannot be told apart by a suppression (see
//! [`OPEN_MPI_RUNS`]).
//!
//! About a minute of runs per MPI plus, the first time, about 1.5 minutes to build std and the
//! library with TSan, and a toolchain a plain machine may lack: every test here is ignored by a
//! plain `cargo test`. `tests/run_all.sh` runs them on both MPIs (`cargo test --test
//! threadcheck -- --include-ignored`) when nightly with `rust-src` is installed or
//! `EPMPI_TEST_THREADS=1` asks for it, and not with `EPMPI_TEST_THREADS=0`. Alone:
//! `MPICC=mpicc.mpich CARGO_TARGET_DIR=target/mpich cargo test --test threadcheck --
//! --include-ignored` (or `mpicc.openmpi`, `target/openmpi`). Run so, a missing nightly
//! toolchain or `rust-src` is a failure.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::*;

/// One run of a C test program under TSan: the program, processes, endpoints per process
/// (`EPMPI_TEST_EPS`), arguments.
type Run = (&'static str, u32, &'static str, &'static [&'static str]);

/// The runs under MPICH. MPICH 4 guards its progress engine with a pthread mutex, which TSan
/// sees, so what one thread's progress writes is ordered before what another reads after its
/// completion call: the programs run on several processes, which checks EPMPI's paths through
/// the host as well as its shared-memory ones.
const MPICH_RUNS: &[Run] = &[
    ("p2p", 2, "2", &[]),
    ("coll", 2, "2", &[]),
    ("coll", 1, "3", &[]),
    // 3000 messages with seed 11 over 2 processes of 3 endpoints.
    ("stress", 2, "3", &["3000", "11"]),
];

/// The runs under Open MPI: one process only, with 2 and 3 endpoints. All traffic between
/// endpoints then takes EPMPI's own shared-memory paths (the local channels, the collective
/// board, the meeting points), which is what this check is for, and the host only sees
/// communicators of one process. These runs give no report and need no suppression beyond
/// libgomp's in `tests/tsan.supp` (measured: none other matched).
///
/// Not on several processes: Open MPI 4.1 (ob1 with vader and tcp) completes requests with
/// its own atomics and barriers, and any thread's MPI call progresses every request of the
/// process: each receive buffer that another endpoint's progress filled (memcpy,
/// process_vm_readv) then shows as a race, and its waits and transports as lock-order
/// inversions. Measured: p2p on 2 x 2 gives 93 reports in 34 s (89 data races, 80 of them
/// against `opal_convertor_unpack` filling a receive buffer on another endpoint's thread; 4
/// inversions in `mca_btl_vader_send` and `mca_btl_tcp_add_procs`), every one with host frames
/// on one side or both (or a stack TSan could not restore); earlier, with the host functions
/// they named suppressed, p2p and coll still gave about 110 (vader's process_vm_readv copies,
/// inversions in `ompi_sync_wait_mt`). Suppressing the host's copies would also hide EPMPI
/// reading a buffer before its completion, which is the kind of bug this check is for;
/// MPICH's runs check those paths.
const OPEN_MPI_RUNS: &[Run] = &[
    ("p2p", 1, "2", &[]),
    ("p2p", 1, "3", &[]),
    ("coll", 1, "2", &[]),
    ("coll", 1, "3", &[]),
    ("stress", 1, "3", &["3000", "11"]),
];

/// Runs every run of `program` for this build's MPI under TSan (none of them skipped).
fn threadcheck_all(program: &str) {
    let runs = if is_open_mpi() { OPEN_MPI_RUNS } else { MPICH_RUNS };
    let mut count = 0;
    for &(p, procs, eps, args) in runs {
        if p == program {
            threadcheck(program, procs, eps, args);
            count += 1;
        }
    }
    assert!(count > 0, "no ThreadSanitizer run of {program}");
}

/// The target triple of this machine (`-Zbuild-std` needs it spelled out).
fn host_triple() -> String {
    format!("{}-unknown-linux-gnu", std::env::consts::ARCH)
}

/// Fails (does not skip) when the toolchain the check needs is missing: rustup, its nightly
/// toolchain, and nightly's `rust-src` component (`-Zbuild-std`).
fn require_nightly_with_rust_src() {
    const LEAVE_OUT: &str = "leave the ThreadSanitizer check out of tests/run_all.sh with EPMPI_TEST_THREADS=0";
    let out = Command::new("rustup")
        .args(["component", "list", "--toolchain", "nightly", "--installed"])
        .output()
        .unwrap_or_else(|e| panic!("ThreadSanitizer check: cannot run rustup ({e}); it needs rustup with the nightly toolchain and its rust-src component; {LEAVE_OUT}"));
    assert!(
        out.status.success(),
        "ThreadSanitizer check: no nightly toolchain (rustup: {}); install it with `rustup toolchain install nightly --component rust-src`, or {LEAVE_OUT}",
        String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").trim()
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).lines().any(|l| l.starts_with("rust-src")),
        "ThreadSanitizer check: the nightly toolchain has no rust-src component (-Zbuild-std needs it); \
         `rustup component add rust-src --toolchain nightly` (tests/install_deps.sh tries it), or {LEAVE_OUT}"
    );
}

/// Builds `libepmpi.so` with ThreadSanitizer, once per test binary; returns its directory.
fn tsan_library() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        require_nightly_with_rust_src();
        // Per MPI, beside this build's profiles (`target/mpich/tsan`), like everything else.
        let target_dir = target_profile_dir().parent().unwrap().join("tsan");
        let triple = host_triple();
        let t = Instant::now();
        // `cargo +nightly` through rustup (the `cargo` running this test is the stable one);
        // RUSTFLAGS with --target reach the library and std but not the build scripts.
        let status = Command::new("cargo")
            .args(["+nightly", "build", "--lib", "-Zbuild-std", "--target", &triple, "--manifest-path"])
            .arg(project_dir().join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target_dir)
            .env("RUSTFLAGS", "-Zsanitizer=thread")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("RUSTUP_TOOLCHAIN")
            .env_remove("CARGO_BUILD_TARGET")
            .env_remove("CARGO_TARGET_DIR")
            .status()
            .expect("run cargo +nightly");
        assert!(
            status.success(),
            "building libepmpi.so with -Zsanitizer=thread -Zbuild-std failed (it needs crates.io for std's \
             dependencies); set EPMPI_TEST_THREADS=0 to leave the ThreadSanitizer check out"
        );
        let dir = target_dir.join(&triple).join("debug");
        // The library really is instrumented: it calls into the TSan runtime.
        let nm = Command::new("nm").args(["-D", "--undefined-only"]).arg(dir.join("libepmpi.so")).output().expect("run nm");
        assert!(String::from_utf8_lossy(&nm.stdout).contains("__tsan_func_entry"), "libepmpi.so in {} is not instrumented", dir.display());
        eprintln!("libepmpi.so with ThreadSanitizer ready in {:.0} s", t.elapsed().as_secs_f64());
        dir
    })
}

/// Compiles `src` with `-fsanitize=thread` against the TSan build of the library.
fn compile_tsan(src: &Path, name: &str) -> PathBuf {
    let lib = tsan_library();
    let flags: Vec<&str> = C_FLAGS.iter().copied().chain(["-fsanitize=thread"]).collect();
    compile_program_with_library(&mpicc(), &flags, &[src.to_path_buf(), project_dir().join("tests/tsan_memfns.c")], name, lib)
}

/// Environment of a run under TSan: reports go to `<logs>/<name>.<pid>`, all of them (no
/// stop at the first), through the suppressions of `tests/tsan.supp`, with the longest access
/// history (so that both stacks of a race are known, which a suppression may need).
fn tsan_env(logs: &Path, name: &str) -> Vec<(&'static str, String)> {
    let options = format!(
        "suppressions={} log_path={} halt_on_error=0 second_deadlock_stack=1 history_size=7",
        project_dir().join("tests/tsan.supp").display(),
        logs.join(name).display()
    );
    vec![
        ("TSAN_OPTIONS", options),
        // UCX's memory hooks catch madvise, which glibc calls while a UCX thread exits, after
        // TSan has retired the thread; the hook's lock then crashes TSan's interceptor
        // (SIGSEGV in __tsan::MutexPreReadLock at exit). EPMPI does not need the hooks.
        ("UCX_MEM_EVENTS", "no".into()),
    ]
}

/// The log directory of `name`, emptied of its earlier reports.
fn fresh_logs(name: &str) -> PathBuf {
    let logs = target_profile_dir().join("threadcheck");
    std::fs::create_dir_all(&logs).unwrap();
    for f in std::fs::read_dir(&logs).unwrap().flatten() {
        if f.file_name().to_string_lossy().starts_with(&format!("{name}.")) {
            let _ = std::fs::remove_file(f.path());
        }
    }
    logs
}

/// The TSan reports that runs of `name` left in `logs`.
fn reports(logs: &Path, name: &str) -> Vec<String> {
    let mut found = Vec::new();
    for f in std::fs::read_dir(logs).unwrap().flatten() {
        if f.file_name().to_string_lossy().starts_with(&format!("{name}.")) {
            let text = std::fs::read_to_string(f.path()).unwrap();
            if text.contains("WARNING: ThreadSanitizer") {
                found.push(format!("{}:\n{text}", f.path().display()));
            }
        }
    }
    found
}

/// Runs `tests/c/<program>.c` on `procs` processes with `eps` endpoints each under TSan and
/// asserts it passes with no report.
fn threadcheck(program: &str, procs: u32, eps: &str, args: &[&str]) {
    let exe = compile_tsan(&project_dir().join("tests/c").join(format!("{program}.c")), &format!("{program}-tsan"));
    let name = format!("{program}-{procs}x{}", eps.replace(',', "-"));
    let logs = fresh_logs(&name);
    let mut env = tsan_env(&logs, &name);
    // Under TSan programs run 5-15 times slower: their own watchdogs get more time.
    env.push(("EPMPI_TEST_TIMEOUT", "900".into()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let _g = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let t = Instant::now();
    let out = mpirun_program_env(&exe, procs, eps, args, &env, Duration::from_secs(900));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let found = reports(&logs, &name);
    assert!(found.is_empty(), "{name}: ThreadSanitizer reports\n{}", found.join("\n"));
    assert!(
        out.status.success() && stdout.contains(&format!("{program}: PASS")),
        "{name} under ThreadSanitizer failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    eprintln!("{program} under ThreadSanitizer ({procs} x {eps}): no report in {:.0} s", t.elapsed().as_secs_f64());
}

/// The check itself works: a program with a data race gets a report in its log.
#[test]
#[ignore = "ThreadSanitizer, needs nightly with rust-src: run with --include-ignored (tests/run_all.sh does)"]
fn tsan_reports_a_race() {
    let dir = target_profile_dir().join("threadcheck");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("racy.c");
    std::fs::write(
        &src,
        "#include <pthread.h>\n#include <stdio.h>\nstatic int shared;\n\
         static void *bump(void *arg) { (void)arg; shared++; return NULL; }\n\
         int main(void) { pthread_t a, b; pthread_create(&a, NULL, bump, NULL); pthread_create(&b, NULL, bump, NULL);\n\
         pthread_join(a, NULL); pthread_join(b, NULL); printf(\"%d\\n\", shared); return 0; }\n",
    )
    .unwrap();
    let exe = compile_tsan(&src, "racy-tsan");
    let logs = fresh_logs("racy");
    let out = Command::new(&exe).envs(tsan_env(&logs, "racy")).output().expect("run the racy program");
    let found = reports(&logs, "racy");
    assert!(
        found.len() == 1 && found[0].contains("data race") && found[0].contains("bump"),
        "the racy program got no race report (status {:?}, reports {found:?}, stderr {})",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "ThreadSanitizer, needs nightly with rust-src: run with --include-ignored (tests/run_all.sh does)"]
fn p2p_threadcheck() {
    threadcheck_all("p2p");
}

#[test]
#[ignore = "ThreadSanitizer, needs nightly with rust-src: run with --include-ignored (tests/run_all.sh does)"]
fn coll_threadcheck() {
    threadcheck_all("coll");
}

#[test]
#[ignore = "ThreadSanitizer, needs nightly with rust-src: run with --include-ignored (tests/run_all.sh does)"]
fn stress_threadcheck() {
    threadcheck_all("stress");
}
