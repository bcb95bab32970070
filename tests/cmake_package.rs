//! The CMake package as a user meets it, against the MPI that `MPICC` names (like the rest of
//! `cargo test`): configure, build and install EPMPI with CMake into a temporary prefix, run a
//! few of its CTest tests, then configure, build and run the consumer projects of `examples/`
//! (they only do `find_package(EPMPI REQUIRED)`) on 2 processes x 2 threads; then move the
//! prefix elsewhere and build and run the consumers again.
//!
//! Speed: the CMake build's cargo target directory is a cache kept in this MPI's cargo target
//! directory (`<target>/cmake-package/<mpicc>/cargo`, never shared between MPIs: mpi-sys does
//! not notice a change of MPI), so only the first run compiles the release library.
//!
//! The Fortran consumer runs when the package has the Fortran component (`fortran/sources.cmake`
//! exists and gfortran is there), the C++ consumer of the XIOS adapter when it has the
//! xios_adapter component; otherwise each is skipped with a message.
//! `EPMPI_TEST_FORTRAN_SOURCE_DIR=<dir>` builds the Fortran module from another directory (to
//! test the plumbing with a stand-in module).

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

/// Runs a command to completion; panics with its output when it fails.
fn run(cmd: &mut Command, what: &str) -> String {
    // Variables cargo sets for test binaries are for this crate's build, not for the cargo that
    // CMake starts (CARGO_TARGET_DIR would be overridden anyway; the rest is noise).
    for (key, _) in std::env::vars_os() {
        if let Some(key) = key.to_str() {
            if key.starts_with("CARGO_") && key != "CARGO_HOME" {
                cmd.env_remove(key);
            }
        }
    }
    let start = Instant::now();
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{cmd:?}\n{text}",
        out.status
    );
    eprintln!("cmake_package: {what}: {:.1} s", start.elapsed().as_secs_f64());
    text
}

fn cmake() -> Command {
    Command::new("cmake")
}

/// The directory of the installed package's CMake files (lib or lib64, whatever GNUInstallDirs
/// chose on this system).
fn config_dir(prefix: &Path) -> PathBuf {
    ["lib", "lib64"]
        .iter()
        .map(|lib| prefix.join(lib).join("cmake/EPMPI"))
        .find(|dir| dir.join("EPMPIConfig.cmake").exists())
        .unwrap_or_else(|| panic!("no lib*/cmake/EPMPI/EPMPIConfig.cmake under {}", prefix.display()))
}

/// Every file of `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Consumers of optional components: (project, targets file of the component, the component
/// and when EPMPI builds it).
const OPTIONAL_CONSUMERS: &[(&str, &str, &str)] = &[
    (
        "consumer_fortran",
        "EPMPIFortranTargets.cmake",
        "Fortran component (EPMPI builds it when fortran/sources.cmake exists and a Fortran compiler is found)",
    ),
    (
        "consumer_xios",
        "EPMPIXiosAdapterTargets.cmake",
        "xios_adapter component (EPMPI builds it when xios_adapter/sources.cmake exists and a C++ compiler is found)",
    ),
];

/// Configures, builds and runs one consumer project against the package in `prefix`; returns
/// false when it was skipped.
fn consumer(name: &str, programs: &[&str], prefix: &Path, work: &Path, round: &str) -> bool {
    if let Some((_, targets, component)) = OPTIONAL_CONSUMERS.iter().find(|(n, _, _)| *n == name) {
        if !config_dir(prefix).join(targets).exists() {
            // Straight to stderr, past the test harness's capture: a skip must be seen.
            let _ = writeln!(std::io::stderr(), "cmake_package: SKIPPED {name}: the installed package has no {component}");
            return false;
        }
    }
    let source = project_dir().join("examples").join(name);
    let build = work.join(format!("{name}-{round}"));
    // Only the prefix: the package itself must steer FindMPI to the MPI EPMPI was built with.
    run(
        cmake()
            .arg("-S")
            .arg(&source)
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())),
        &format!("configure {name} ({round})"),
    );
    run(
        cmake().arg("--build").arg(&build),
        &format!("build {name} ({round})"),
    );
    for program in programs {
        let exe = build.join(program);
        let out = mpirun_program(&exe, 2, "2", &[], Duration::from_secs(120));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let expected = format!("{name}: PASS (4 endpoints on 2 processes");
        assert!(
            out.status.success() && stdout.contains(&expected),
            "{program} ({round}) failed\nstdout:\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("cmake_package: {program} ({round}): {}", stdout.trim());
    }
    true
}

#[test]
fn install_build_consumers_move_prefix_build_again() {
    let start = Instant::now();
    let mpicc = mpicc();
    let mpicc_name = Path::new(&mpicc)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let cache = target_profile_dir()
        .parent()
        .unwrap()
        .join("cmake-package")
        .join(&mpicc_name);
    let work = cache.join(format!("run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let build = work.join("build");
    let prefix = work.join("prefix");

    // Configure as a user would: the MPI named by its C wrapper (the build takes the matching
    // Fortran wrapper and mpiexec from its suffix), defaults for everything else.
    let mut configure = cmake();
    configure
        .arg("-S")
        .arg(project_dir())
        .arg("-B")
        .arg(&build)
        .arg(format!("-DMPI_C_COMPILER={mpicc}"))
        .arg(format!(
            "-DEPMPI_CARGO_TARGET_DIR={}",
            cache.join("cargo").display()
        ));
    if let Ok(dir) = std::env::var("EPMPI_TEST_FORTRAN_SOURCE_DIR") {
        configure.arg(format!("-DEPMPI_FORTRAN_SOURCE_DIR={dir}"));
    }
    run(&mut configure, "configure EPMPI");
    run(
        cmake().arg("--build").arg(&build).arg("--parallel").arg("2"),
        "build EPMPI",
    );

    // CTest registration: a few of the registered tests under MPIEXEC_EXECUTABLE (the programs
    // themselves are run in every shape by tests/c_programs.rs).
    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let ctest = run(
        Command::new("ctest")
            .arg("--test-dir")
            .arg(&build)
            .arg("--output-on-failure")
            .arg("-R")
            .arg(r"^(c\.p2p\.2x2|c\.create_team\.3x2-0-1|c\.thread_level|example\..*)$"),
        "ctest (selection)",
    );
    assert!(ctest.contains("100% tests passed"), "{ctest}");
    drop(_guard);

    run(
        cmake().arg("--install").arg(&build).arg("--prefix").arg(&prefix),
        "install EPMPI",
    );

    // Relocatable: no installed text file names the build or source tree, or the prefix itself.
    for file in files_under(&prefix) {
        if let Ok(text) = std::fs::read_to_string(&file) {
            for path in [&work, &project_dir()] {
                assert!(
                    !text.contains(path.to_str().unwrap()),
                    "{} names {}: the package would not survive a move",
                    file.display(),
                    path.display()
                );
            }
        }
    }

    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    consumer(
        "consumer_c",
        &["consumer_c", "consumer_c_static"],
        &prefix,
        &work,
        "installed",
    );
    let fortran = consumer(
        "consumer_fortran",
        &["consumer_fortran"],
        &prefix,
        &work,
        "installed",
    );
    let xios = consumer("consumer_xios", &["consumer_xios"], &prefix, &work, "installed");

    // Move the installation; the old path no longer exists, so nothing can fall back on it.
    let moved = work.join("moved").join("elsewhere");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&prefix, &moved).unwrap();
    consumer(
        "consumer_c",
        &["consumer_c", "consumer_c_static"],
        &moved,
        &work,
        "moved",
    );
    if fortran {
        consumer("consumer_fortran", &["consumer_fortran"], &moved, &work, "moved");
    }
    if xios {
        consumer("consumer_xios", &["consumer_xios"], &moved, &work, "moved");
    }

    std::fs::remove_dir_all(&work).unwrap();
    eprintln!(
        "cmake_package: PASS with {mpicc} in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
