//! The Fortran test programs of `tests/fortran`, with OpenMP threads as endpoints, run under
//! mpirun in every shape of `support::SHAPES`.
//!
//! The module (the files of `fortran/sources.cmake`) is built here with the host MPI's wrappers:
//! `ep_mpi_glue.c` with `$MPICC`, the Fortran files with the `mpif90` that goes with it
//! (`mpicc.mpich` -> `mpif90.mpich`; `EPMPI_MPIF90` overrides), under `-std=f2018 -Wall
//! -Wextra -Werror`. It is built twice: with default kinds, and with `-fdefault-integer-8
//! -fdefault-real-8` as a user compiling that way would (module and program alike).
//! Programs link the `libepmpi.so` of this build with an rpath.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use support::*;

/// Flags of every Fortran compilation.
const FFLAGS: &[&str] = &["-std=f2018", "-Wall", "-Wextra", "-Werror", "-fopenmp", "-O1", "-g"];
/// Added for the test programs, which compare reals exactly on purpose and are preprocessed
/// (`#ifdef EP_TEST_MPI_NAMES`: tests/mpi_names.rs runs them again under the standard names).
const TEST_FFLAGS: &[&str] = &["-Wno-compare-reals", "-cpp"];

#[derive(Clone, Copy, PartialEq)]
enum Kinds {
    /// The compiler's default kinds.
    Default,
    /// `-fdefault-integer-8 -fdefault-real-8`.
    Eight,
}

impl Kinds {
    fn flags(self) -> &'static [&'static str] {
        match self {
            Kinds::Default => &[],
            Kinds::Eight => &["-fdefault-integer-8", "-fdefault-real-8"],
        }
    }

    fn dir_name(self) -> &'static str {
        match self {
            Kinds::Default => "default-kinds",
            Kinds::Eight => "eight-byte-kinds",
        }
    }
}

/// The host MPI's Fortran wrapper: `EPMPI_MPIF90`, or the one named like `$MPICC`.
fn mpif90() -> String {
    std::env::var("EPMPI_MPIF90").unwrap_or_else(|_| mpi_tool("mpif90"))
}

/// The module's sources in compile order: the `set(EPMPI_FORTRAN_SOURCES ...)` of
/// `fortran/sources.cmake`, names relative to `fortran/`.
fn module_sources() -> Vec<PathBuf> {
    cmake_source_list(&project_dir().join("fortran/sources.cmake"), "EPMPI_FORTRAN_SOURCES")
}

/// Compiles one source of the module (or the test support module) into `dir`.
fn compile_object(src: &Path, dir: &Path, kinds: Kinds) -> PathBuf {
    let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
    let obj = dir.join(format!("{stem}.o"));
    let mut cmd;
    if src.extension().map(|e| e == "c").unwrap_or(false) {
        cmd = Command::new(mpicc());
        cmd.args(["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror"])
            .arg(format!("-I{}", project_dir().join("include").display()));
    } else {
        cmd = Command::new(mpif90());
        cmd.args(FFLAGS).args(kinds.flags()).arg(format!("-J{}", dir.display()));
        if src.starts_with(project_dir().join("tests")) {
            cmd.args(TEST_FFLAGS);
        }
    }
    cmd.arg("-c").arg(src).arg("-o").arg(&obj);
    run_checked(&mut cmd, &format!("compiling {}", src.display()));
    obj
}

/// The module and the test support module, built once per kind set: (directory holding the
/// .mod files, objects in link order).
fn module_build(kinds: Kinds) -> &'static (PathBuf, Vec<PathBuf>) {
    static DEFAULT: OnceLock<(PathBuf, Vec<PathBuf>)> = OnceLock::new();
    static EIGHT: OnceLock<(PathBuf, Vec<PathBuf>)> = OnceLock::new();
    let cell = match kinds {
        Kinds::Default => &DEFAULT,
        Kinds::Eight => &EIGHT,
    };
    cell.get_or_init(|| {
        let dir = target_profile_dir().join("fortran-tests").join(kinds.dir_name());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut objects: Vec<PathBuf> = module_sources().iter().map(|s| compile_object(s, &dir, kinds)).collect();
        let support = project_dir().join("tests/fortran/ep_test_support.f90");
        objects.push(compile_object(&support, &dir, kinds));
        (dir, objects)
    })
}

/// Builds `tests/fortran/<name>.f90` with the module of `kinds`, once per test binary
/// (compilations run one at a time: the machine is small, and two tests may want one program).
fn compile_program(name: &str, kinds: Kinds) -> PathBuf {
    static BUILT: Mutex<Vec<(String, &'static str, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, exe)) = built.iter().find(|(n, k, _)| n == name && *k == kinds.dir_name()) {
        return exe.clone();
    }
    let (dir, objects) = module_build(kinds);
    let lib = library_dir();
    assert!(lib.join("libepmpi.so").exists(), "libepmpi.so not found in {}", lib.display());
    let exe = dir.join(name);
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    let mut cmd = Command::new(mpif90());
    cmd.args(FFLAGS)
        .args(TEST_FFLAGS)
        .args(kinds.flags())
        .arg(format!("-I{}", dir.display()))
        // A program's own modules go to the build directory, not the working directory.
        .arg(format!("-J{}", dir.display()))
        .arg(project_dir().join("tests/fortran").join(format!("{name}.f90")))
        .args(objects)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lepmpi")
        // RPATH, not RUNPATH: cargo's LD_LIBRARY_PATH may name an older libepmpi.so.
        .arg(format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()));
    run_checked(&mut cmd, &format!("compiling tests/fortran/{name}.f90"));
    built.push((name.to_string(), kinds.dir_name(), exe.clone()));
    exe
}

fn fortran_test(name: &str, kinds: Kinds) {
    let exe = compile_program(name, kinds);
    run_in_all_shapes(&exe, name);
}

#[test]
fn create() {
    fortran_test("create", Kinds::Default);
}

#[test]
fn p2p() {
    fortran_test("p2p", Kinds::Default);
}

/// Sendrecv_replace, persistent requests, buffered and ready modes, status queries
/// (tests/fortran/p2p_modes.f90).
#[test]
fn p2p_modes() {
    fortran_test("p2p_modes", Kinds::Default);
}

#[test]
fn p2p_modes_default_integer_8_real_8() {
    fortran_test("p2p_modes", Kinds::Eight);
}

#[test]
fn errors() {
    fortran_test("errors", Kinds::Default);
}

#[test]
fn groups() {
    fortran_test("groups", Kinds::Default);
}

#[test]
fn kinds_default() {
    fortran_test("kinds", Kinds::Default);
}

#[test]
fn kinds_default_integer_8_real_8() {
    fortran_test("kinds", Kinds::Eight);
}

/// Collectives and split.
#[test]
fn collectives() {
    fortran_test("coll", Kinds::Default);
}

#[test]
fn collectives_default_integer_8_real_8() {
    fortran_test("coll", Kinds::Eight);
}

/// Nonblocking collectives, alltoallw and reduce_local (tests/fortran/icoll.f90).
#[test]
fn nonblocking_collectives() {
    fortran_test("icoll", Kinds::Default);
}

#[test]
fn nonblocking_collectives_default_integer_8_real_8() {
    fortran_test("icoll", Kinds::Eight);
}

/// Persistent collectives (tests/fortran/pcoll.f90).
#[test]
fn persistent_collectives() {
    fortran_test("pcoll", Kinds::Default);
}

#[test]
fn persistent_collectives_default_integer_8_real_8() {
    fortran_test("pcoll", Kinds::Eight);
}

/// Nonblocking collectives and alltoallw on intercommunicators (tests/fortran/icoll_inter.f90).
#[test]
fn nonblocking_collectives_on_intercommunicators() {
    fortran_test("icoll_inter", Kinds::Default);
}

#[test]
fn nonblocking_collectives_on_intercommunicators_default_integer_8_real_8() {
    fortran_test("icoll_inter", Kinds::Eight);
}

/// The XIOS client start-up sequence: split, intercommunicators, collectives.
#[test]
fn xios_startup() {
    fortran_test("xios_startup", Kinds::Default);
}

/// One-sided windows: ticket counter, fence ring, passive target, dynamic window, errors.
/// Process topologies and neighbourhood collectives (tests/fortran/topo.f90).
#[test]
fn topologies() {
    fortran_test("topo", Kinds::Default);
}

#[test]
fn topologies_default_integer_8_real_8() {
    fortran_test("topo", Kinds::Eight);
}

#[test]
fn win() {
    fortran_test("win", Kinds::Default);
}

/// The same with 8-byte default kinds (the program's integers are MPI_INTEGER8 then).
#[test]
fn win_default_integer_8_real_8() {
    fortran_test("win", Kinds::Eight);
}

/// Shared-memory windows, window attributes and intercommunicator collectives
/// (tests/fortran/win_shared.f90). Open MPI makes the host's shared windows only with its `sm`
/// one-sided component, which the tests' default `OMPI_MCA_osc=ucx` leaves out: allowed here.
#[test]
fn win_shared() {
    let exe = compile_program("win_shared", Kinds::Default);
    run_in_all_shapes_env(&exe, "win_shared", &[("OMPI_MCA_osc", "ucx,sm")]);
}

/// Bad input through `ierror`: bad handles, ranks, tags, truncation, a freed communicator,
/// one-sided calls outside an epoch; the other endpoints keep working.
#[test]
fn bad_input() {
    fortran_test("bad_input", Kinds::Default);
}

/// The module builds cleanly without OpenMP too (a CMake project may compile it so).
#[test]
fn module_is_clean_without_openmp() {
    let dir = target_profile_dir().join("fortran-tests").join("no-openmp");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for src in module_sources().iter().filter(|s| s.extension().map(|e| e == "f90").unwrap_or(false)) {
        let mut cmd = Command::new(mpif90());
        cmd.args(["-std=f2018", "-Wall", "-Wextra", "-Werror", "-O2"])
            .arg(format!("-J{}", dir.display()))
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(dir.join(src.file_stem().unwrap()).with_extension("o"));
        run_checked(&mut cmd, &format!("compiling {} without -fopenmp", src.display()));
    }
}

/// Runs `tests/fortran/aborting/fatal.f90` on 2 processes with `mode`: (success, stdout,
/// stderr). It lives apart from the programs that must print PASS in every shape (the CMake
/// tests run every program of `tests/fortran` so).
fn run_fatal(mode: &str) -> (bool, String, String) {
    let exe = compile_program("aborting/fatal", Kinds::Default);
    let _g = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let out = mpirun_program(&exe, 2, "1", &[mode], Duration::from_secs(60));
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn fatal_handler_without_ierror_names_the_call() {
    let (ok, stdout, stderr) = run_fatal("bad-rank");
    assert!(!ok && !stdout.contains("still running"), "job survived a fatal error\n{stdout}\n{stderr}");
    assert!(
        stderr.contains("EPMPI fatal error in EP_Send") && stderr.contains("1000000"),
        "stderr does not name the call and cause:\n{stderr}"
    );
}

#[test]
fn fatal_handler_covers_errors_found_in_the_glue() {
    let (ok, stdout, stderr) = run_fatal("noncontiguous");
    assert!(!ok && !stdout.contains("still running"), "job survived a fatal error\n{stdout}\n{stderr}");
    assert!(
        stderr.contains("EPMPI fatal error in ep_isend") && stderr.contains("non-contiguous"),
        "stderr does not name the routine and cause:\n{stderr}"
    );
}

/// Endpoint teams from Fortran (tests/fortran/teams.f90).
#[test]
fn teams() {
    fortran_test("teams", Kinds::Default);
}
