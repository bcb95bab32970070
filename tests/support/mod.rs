//! Running MPI programs from `cargo test`: which MPI, how to launch it, where the built
//! library is, and how to compile the C test programs against it.
//!
//! The host MPI is chosen by `MPICC` (default `mpicc`), as for the build; the launcher is
//! `EPMPI_MPIRUN`, or the `mpirun` that goes with that `mpicc` (`mpicc.mpich` ->
//! `mpirun.mpich`). Open MPI gets `--allow-run-as-root --oversubscribe`.
#![allow(dead_code)]

pub mod host_mpi;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// MPI jobs of one test binary run one at a time: the machine has 2 cores.
pub static MPI_JOBS: Mutex<()> = Mutex::new(());

/// A test shape: processes and endpoints per process (cycled over process ranks).
pub struct Shape {
    pub name: &'static str,
    pub procs: u32,
    pub eps: &'static str,
}

/// The shapes of the core issue, plus one with a process that has no endpoint.
pub const SHAPES: &[Shape] = &[
    Shape { name: "1x4", procs: 1, eps: "4" },
    Shape { name: "2x2", procs: 2, eps: "2" },
    Shape { name: "4x1", procs: 4, eps: "1" },
    Shape { name: "3x(1,2,3)", procs: 3, eps: "1,2,3" },
    Shape { name: "3x(2,0,1)", procs: 3, eps: "2,0,1" },
];

pub fn mpicc() -> String {
    std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into())
}

/// The host MPI's program `tool` (`mpirun`, `mpicxx`, `mpif90`) named like `$MPICC`:
/// `mpicc.mpich` -> `mpicxx.mpich`.
pub fn mpi_tool(tool: &str) -> String {
    match mpicc().rsplit_once("mpicc") {
        Some((prefix, suffix)) => format!("{prefix}{tool}{suffix}"),
        None => tool.into(),
    }
}

pub fn mpirun() -> String {
    std::env::var("EPMPI_MPIRUN").unwrap_or_else(|_| mpi_tool("mpirun"))
}

/// The files of `set(<var> ...)` in a `sources.cmake` list, relative to the list's directory.
pub fn cmake_source_list(list: &Path, var: &str) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(list).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
    let code: String = text.lines().map(|l| l.split('#').next().unwrap_or("")).collect::<Vec<_>>().join(" ");
    let open = format!("set({var}");
    let start = code.find(&open).unwrap_or_else(|| panic!("{} sets no {var}", list.display())) + open.len();
    let end = start + code[start..].find(')').expect("closing parenthesis");
    let dir = list.parent().unwrap();
    let sources: Vec<PathBuf> = code[start..end]
        .split_whitespace()
        .map(|f| dir.join(f.trim_start_matches("${CMAKE_CURRENT_LIST_DIR}/")))
        .collect();
    assert!(!sources.is_empty(), "no source in {}", list.display());
    for s in &sources {
        assert!(s.exists(), "{} (listed in {}) does not exist", s.display(), list.display());
    }
    sources
}

pub fn is_open_mpi() -> bool {
    Command::new(mpirun())
        .arg("--version")
        .output()
        .map(|o| {
            // "mpirun (Open MPI) 4.1.4", or "mpirun.openmpi (OpenRTE) 4.1.4 ... open-mpi.org"
            let v = String::from_utf8_lossy(&o.stdout).to_lowercase();
            v.contains("open mpi") || v.contains("openrte") || v.contains("open-mpi")
        })
        .unwrap_or(false)
}

/// `target/<profile>` of this test binary.
pub fn target_profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    deps.parent().unwrap().to_path_buf()
}

/// Where the `libepmpi.so` built with this test binary is: `cargo test` leaves the cdylib in
/// `deps/` (only `cargo build` copies it up), so `deps/` comes first.
pub fn library_dir() -> PathBuf {
    let deps = target_profile_dir().join("deps");
    if deps.join("libepmpi.so").exists() {
        deps
    } else {
        target_profile_dir()
    }
}

pub fn project_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiler flags of the C test programs.
pub const C_FLAGS: &[&str] = &["-std=c11", "-O1", "-g", "-fopenmp", "-Wall", "-Wextra", "-Wno-unused-function"];

/// Compiles a C program of `tests/c` (or any path) against the header and shared library.
pub fn compile_c(src: &Path, name: &str) -> PathBuf {
    compile_program(&mpicc(), C_FLAGS, &[src.to_path_buf()], name)
}

/// Compiles and links `sources` with `compiler` and `flags` (plus `-I` of `include/` and
/// `tests/c/`) against the shared library, into `<target>/c-tests/<name>`.
pub fn compile_program(compiler: &str, flags: &[&str], sources: &[PathBuf], name: &str) -> PathBuf {
    compile_program_with_library(compiler, flags, sources, name, &library_dir())
}

/// [`compile_program`] against the `libepmpi.so` in `lib` (another build of the library,
/// e.g. one with ThreadSanitizer).
pub fn compile_program_with_library(compiler: &str, flags: &[&str], sources: &[PathBuf], name: &str, lib: &Path) -> PathBuf {
    assert!(lib.join("libepmpi.so").exists(), "libepmpi.so not found in {}", lib.display());
    let out_dir = target_profile_dir().join("c-tests");
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join(name);
    let status = Command::new(compiler)
        .args(flags)
        .arg(format!("-I{}", project_dir().join("include").display()))
        .arg(format!("-I{}", project_dir().join("tests/c").display()))
        .args(sources)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lepmpi")
        // RPATH, not RUNPATH: cargo's LD_LIBRARY_PATH may name an older libepmpi.so.
        .arg(format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()))
        .status()
        .unwrap_or_else(|e| panic!("run {compiler}: {e}"));
    assert!(status.success(), "compiling {name} from {sources:?} failed");
    exe
}

/// Runs `exe` on `procs` processes with `EPMPI_TEST_EPS=eps`, killing it after `limit`.
pub fn mpirun_program(exe: &Path, procs: u32, eps: &str, args: &[&str], limit: Duration) -> Output {
    mpirun_program_env(exe, procs, eps, args, &[], limit)
}

/// [`mpirun_program`] with extra environment variables for the launcher and the processes.
pub fn mpirun_program_env(exe: &Path, procs: u32, eps: &str, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Output {
    let mut cmd = mpirun_command();
    cmd.envs(env.iter().copied());
    cmd.arg("-np").arg(procs.to_string()).arg(exe).args(args);
    cmd.env("EPMPI_TEST_EPS", eps);
    run_with_limit(cmd, limit, &format!("{} on {procs} processes ({eps})", exe.display()))
}

/// The launcher with what every job here needs: under Open MPI the flags for running as root
/// with endpoint threads (more than the one core it binds a process to) and its working
/// one-sided component (NOTES.md); OpenMP threads that wait passively (the machine is small).
fn mpirun_command() -> Command {
    let mut cmd = Command::new(mpirun());
    if is_open_mpi() {
        cmd.args(["--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]);
        cmd.env("OMPI_MCA_osc", "ucx");
    }
    cmd.env("OMP_WAIT_POLICY", "passive");
    cmd
}

/// Runs `cmd` with its output captured; kills it and panics with the output after `limit`.
fn run_with_limit(mut cmd: Command, limit: Duration, what: &str) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn mpirun");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} timed out after {limit:?}\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs a program in every shape and asserts it passes.
pub fn run_in_all_shapes(exe: &Path, name: &str) {
    run_in_all_shapes_env(exe, name, &[]);
}

/// [`run_in_all_shapes`] with extra environment variables for the launcher and the processes.
pub fn run_in_all_shapes_env(exe: &Path, name: &str, env: &[(&str, &str)]) {
    for shape in SHAPES {
        let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
        let t = Instant::now();
        let out = mpirun_program_env(exe, shape.procs, shape.eps, &[], env, Duration::from_secs(240));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains(&format!("{name}: PASS")),
            "{name} failed in shape {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            shape.name
        );
        eprintln!("{name} {}: PASS in {:.1} s", shape.name, t.elapsed().as_secs_f64());
    }
}

/// Runs a program on each (processes, endpoints per process) of `shapes` and asserts it passes;
/// `what` names the run in failure messages.
pub fn run_in_shapes_env(exe: &Path, name: &str, what: &str, shapes: &[(u32, &str)], env: &[(&str, &str)]) {
    for &(procs, eps) in shapes {
        let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
        let out = mpirun_program_env(exe, procs, eps, &[], env, Duration::from_secs(240));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains(&format!("{name}: PASS")),
            "{what} failed on {procs} processes ({eps})\nstdout:\n{stdout}\nstderr:\n{stderr}"
        );
        eprintln!("{what}, {procs} processes ({eps}): PASS");
    }
}

/// One program of an MPMD job: processes, executable, arguments.
pub struct App<'a> {
    pub procs: u32,
    pub exe: &'a Path,
    pub args: &'a [&'a str],
}

/// Runs an MPMD job (`mpirun -np P1 exe1 args1 : -np P2 exe2 args2 ...`, as XIOS's models and
/// servers are launched), killing it after `limit`.
pub fn mpirun_mpmd(apps: &[App], limit: Duration) -> Output {
    let mut cmd = mpirun_command();
    for (n, app) in apps.iter().enumerate() {
        if n > 0 {
            cmd.arg(":");
        }
        cmd.arg("-np").arg(app.procs.to_string()).arg(app.exe).args(app.args);
    }
    let what = format!("MPMD job {cmd:?}");
    run_with_limit(cmd, limit, &what)
}

/// The standard-names layer (`libepmpi_mpi.so`, the files of `src/mpi_names/sources.cmake`)
/// built with the host MPI's C compiler against the shared library, into
/// `<target>/c-tests/`; built once per test binary.
pub fn mpi_names_library() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = project_dir().join("src/mpi_names");
            let sources = cmake_source_list(&dir.join("sources.cmake"), "EPMPI_MPI_NAMES_SOURCES");
            let out_dir = target_profile_dir().join("c-tests");
            std::fs::create_dir_all(&out_dir).unwrap();
            let lib = library_dir();
            let so = out_dir.join("libepmpi_mpi.so");
            let status = Command::new(mpicc())
                .args(["-std=c11", "-O2", "-g", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror"])
                .arg(format!("-I{}", project_dir().join("include").display()))
                .args(&sources)
                .arg("-o")
                .arg(&so)
                .arg(format!("-L{}", lib.display()))
                .arg("-lepmpi")
                .arg("-lpthread")
                .arg(format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()))
                .status()
                .unwrap_or_else(|e| panic!("run {}: {e}", mpicc()));
            assert!(status.success(), "building libepmpi_mpi.so from {sources:?} failed");
            out_dir
        })
        .clone()
}

/// Compiles a C program of `tests/c` that uses the standard MPI names on endpoint
/// communicators: linked with `-lepmpi_mpi -lepmpi` before the host MPI, as users link it.
pub fn compile_c_mpi_names(src: &Path, name: &str) -> PathBuf {
    compile_c_mpi_names_flags(src, name, &[])
}

/// [`compile_c_mpi_names`] with extra compiler flags (`-DEP_TEST_MPI_NAMES` compiles a program
/// of the `EP_` suite with the standard names, `tests/c/ep_as_mpi.h`).
pub fn compile_c_mpi_names_flags(src: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let layer = mpi_names_library();
    let lib = library_dir();
    let exe = target_profile_dir().join("c-tests").join(name);
    let status = Command::new(mpicc())
        .args(C_FLAGS)
        .args(flags)
        .arg("-pthread")
        .arg(format!("-I{}", project_dir().join("include").display()))
        .arg(format!("-I{}", project_dir().join("tests/c").display()))
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", layer.display()))
        .arg("-lepmpi_mpi")
        .arg(format!("-L{}", lib.display()))
        .arg("-lepmpi")
        .arg(format!("-Wl,--disable-new-dtags,-rpath,{}:{}", layer.display(), lib.display()))
        .status()
        .unwrap_or_else(|e| panic!("run {}: {e}", mpicc()));
    assert!(status.success(), "compiling {name} with the standard-names layer failed");
    exe
}

/// Runs a build step, panicking with its output when it fails; returns its standard output.
pub fn run_checked(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {cmd:?}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
