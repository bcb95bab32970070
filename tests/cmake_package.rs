//! The CMake package as a user meets it, against the MPI that `MPICC` names (like the rest of
//! `cargo test`): configure, build and install EPMPI with CMake into a temporary prefix (the MPI
//! named for FindMPI, `-DMPI_C_COMPILER=$MPICC`), run a few of its CTest tests, then
//! configure, build and run the consumer projects of `examples/` (they only do
//! `find_package(EPMPI REQUIRED)`) on 2 processes x 2 threads; then move the prefix elsewhere
//! and build and run the consumers again, configured the wrapper way, the usual HPC habit: the
//! MPI wrappers as C, C++ and Fortran compilers (`mpicc.mpich` -> `mpicxx.mpich`,
//! `mpif90.mpich`). Last, EPMPI itself configured with the C and Fortran wrappers as compilers
//! and the default C++ compiler (its XIOS adapter must find `mpi.h` through MPI's CXX
//! component) builds.
//!
//! Speed: the CMake builds' cargo target directory is a cache kept in this MPI's cargo target
//! directory (`<target>/cmake-package/<mpicc>/cargo`, never shared between MPIs: mpi-sys does
//! not notice a change of MPI), so only the first run compiles the release library; both
//! configurations of EPMPI give cargo the same wrapper and flags, so the second one rebuilds
//! nothing.
//!
//! The Fortran consumer runs when the package has the Fortran component (`fortran/sources.cmake`
//! exists and gfortran is there), the C++ consumer of the XIOS adapter when it has the
//! xios_adapter component, the consumer of the standard-names layer (`consumer_mpi_names`, MPI
//! names only) when it has the mpi_names component; otherwise each is skipped with a message.
//! That last one is also built without CMake, with `pkg-config --cflags --libs epmpi-mpi` and
//! the MPI's C wrapper, in both rounds; each build must call the layer's `MPI_Send` (the program
//! prints the library it comes from) and CMake must link the layer before the MPI.
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

/// Relocatable: no text file installed in `prefix` names the build or source tree (`work`
/// holds the build directories and the prefix itself).
fn assert_relocatable(prefix: &Path, work: &Path) {
    for file in files_under(prefix) {
        if let Ok(text) = std::fs::read_to_string(&file) {
            for path in [work, &project_dir()] {
                assert!(
                    !text.contains(path.to_str().unwrap()),
                    "{} names {}: the package would not survive a move",
                    file.display(),
                    path.display()
                );
            }
        }
    }
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
    (
        "consumer_mpi_names",
        "EPMPIMpiNamesTargets.cmake",
        "mpi_names component (EPMPI builds it when src/mpi_names/sources.cmake exists)",
    ),
];

/// The consumer of the standard-names layer prints the library its `MPI_Send` comes from: it
/// must be the layer's, not the host MPI's.
fn assert_layer_send(stdout: &str, what: &str) {
    let from = stdout
        .lines()
        .find_map(|line| line.strip_prefix("consumer_mpi_names: MPI_Send from "))
        .unwrap_or_else(|| panic!("{what}: no \"MPI_Send from\" line:\n{stdout}"));
    assert!(
        Path::new(from)
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with("libepmpi_mpi.so")),
        "{what}: MPI_Send comes from {from}, not from libepmpi_mpi.so: the layer is not linked before the MPI"
    );
}

/// The layer must come before the host MPI on the link line CMake wrote for `target` (the
/// MPI library appears there only when the compiler is not the MPI's wrapper, which adds it
/// last).
fn assert_layer_linked_first(build: &Path, target: &str) {
    let link = build.join("CMakeFiles").join(format!("{target}.dir")).join("link.txt");
    let text = std::fs::read_to_string(&link).unwrap_or_else(|e| panic!("{}: {e}", link.display()));
    let layer = text
        .find("libepmpi_mpi")
        .unwrap_or_else(|| panic!("{} does not link libepmpi_mpi:\n{text}", link.display()));
    let before = &text[..layer];
    for mpi in ["/libmpi.", "/libmpich.", "-lmpi ", "-lmpich "] {
        assert!(!before.contains(mpi), "{}: the MPI ({mpi}) is linked before the layer:\n{text}", link.display());
    }
    let epmpi = text
        .find("libepmpi.")
        .unwrap_or_else(|| panic!("{} does not link libepmpi:\n{text}", link.display()));
    assert!(layer < epmpi, "{}: libepmpi is linked before the layer:\n{text}", link.display());
}

/// The consumer of the standard-names layer built without CMake, as the .pc file says: the
/// MPI's C wrapper (which puts the MPI library last), the flags of `pkg-config --cflags --libs
/// epmpi-mpi` and an rpath to the installed libraries; run on 2 processes x 2 threads.
fn pkg_config_consumer(prefix: &Path, work: &Path, round: &str) {
    let name = "consumer_mpi_names";
    let pkgconfig = config_dir(prefix).parent().unwrap().parent().unwrap().join("pkgconfig");
    let pkg_config = |args: &[&str]| {
        let out = run(
            Command::new("pkg-config").env("PKG_CONFIG_PATH", &pkgconfig).args(args).arg("epmpi-mpi"),
            &format!("pkg-config {} epmpi-mpi ({round})", args.join(" ")),
        );
        out.split_whitespace().map(str::to_string).collect::<Vec<_>>()
    };
    let flags = pkg_config(&["--cflags", "--libs"]);
    let libdir = pkg_config(&["--variable=libdir"]).concat();
    let exe = work.join(format!("{name}-pkg-config-{}", round.replace([' ', ','], "")));
    run(
        Command::new(mpicc())
            .arg("-fopenmp")
            .arg(project_dir().join("examples").join(name).join("consumer.c"))
            .arg("-o")
            .arg(&exe)
            .args(&flags)
            .arg(format!("-Wl,-rpath,{libdir}"))
            .arg("-ldl"),
        &format!("build {name} with pkg-config ({round}): {}", flags.join(" ")),
    );
    let out = mpirun_program(&exe, 2, "2", &[], Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let what = format!("{name} (pkg-config, {round})");
    assert!(
        out.status.success() && stdout.contains(&format!("{name}: PASS (4 endpoints on 2 processes")),
        "{what} failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_layer_send(&stdout, &what);
    eprintln!("cmake_package: {what}: {}", stdout.trim().replace('\n', "; "));
}

/// `-DCMAKE_<lang>_COMPILER=` the host MPI's wrappers (`langs` of C, CXX, Fortran).
fn wrappers_as_compilers(langs: &[&str]) -> Vec<String> {
    langs
        .iter()
        .map(|lang| {
            let tool = match *lang {
                "C" => mpicc(),
                "CXX" => mpi_tool("mpicxx"),
                _ => mpi_tool("mpif90"),
            };
            format!("-DCMAKE_{lang}_COMPILER={tool}")
        })
        .collect()
}

/// Configures (with `args`), builds and runs one consumer project against the package in
/// `prefix`; returns false when it was skipped.
fn consumer(name: &str, programs: &[&str], prefix: &Path, work: &Path, round: &str, args: &[String]) -> bool {
    if let Some((_, targets, component)) = OPTIONAL_CONSUMERS.iter().find(|(n, _, _)| *n == name) {
        if !config_dir(prefix).join(targets).exists() {
            // Straight to stderr, past the test harness's capture: a skip must be seen.
            let _ = writeln!(std::io::stderr(), "cmake_package: SKIPPED {name}: the installed package has no {component}");
            return false;
        }
    }
    let source = project_dir().join("examples").join(name);
    let build = work.join(format!("{name}-{}", round.replace([' ', ','], "")));
    // Only the prefix (and the compilers): the package itself must steer FindMPI to the MPI
    // EPMPI was built with.
    run(
        cmake()
            .arg("-S")
            .arg(&source)
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
            .args(args),
        &format!("configure {name} ({round})"),
    );
    run(
        cmake().arg("--build").arg(&build),
        &format!("build {name} ({round})"),
    );
    if name == "consumer_mpi_names" {
        assert_layer_linked_first(&build, name);
    }
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
        if name == "consumer_mpi_names" {
            assert_layer_send(&stdout, &format!("{program} ({round})"));
        }
        eprintln!("cmake_package: {program} ({round}): {}", stdout.trim().replace('\n', "; "));
    }
    true
}

/// The four consumers against `prefix`, configured with `args`; the optional ones only when
/// `wanted` says so (whether they ran in an earlier round). Returns whether each optional one
/// (Fortran, XIOS adapter, standard-names layer) ran. The standard-names consumer is built with
/// pkg-config too.
fn consumers(prefix: &Path, work: &Path, round: &str, args: &[String], wanted: (bool, bool, bool)) -> (bool, bool, bool) {
    consumer("consumer_c", &["consumer_c", "consumer_c_static"], prefix, work, round, args);
    let fortran = wanted.0 && consumer("consumer_fortran", &["consumer_fortran"], prefix, work, round, args);
    let xios = wanted.1 && consumer("consumer_xios", &["consumer_xios"], prefix, work, round, args);
    let mpi_names = wanted.2 && consumer("consumer_mpi_names", &["consumer_mpi_names"], prefix, work, round, args);
    if mpi_names {
        pkg_config_consumer(prefix, work, round);
    }
    (fortran, xios, mpi_names)
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
    let fortran_source_dir = std::env::var("EPMPI_TEST_FORTRAN_SOURCE_DIR").ok();
    if let Some(dir) = &fortran_source_dir {
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
            .arg(concat!(
                r"^(c\.p2p\.2x2|c\.create_team\.3x2-0-1|c\.thread_level|c\.mpi_names\.2x2|c\.host_only|example\..*",
                r"|fortran_names\.mpi_names_use_mpi\.2x2|fortran_names\.mpi_names_plain|fortran_names\.p2p\.3x1-2-3)$"
            )),
        "ctest (selection)",
    );
    assert!(ctest.contains("100% tests passed"), "{ctest}");
    drop(_guard);

    run(
        cmake().arg("--install").arg(&build).arg("--prefix").arg(&prefix),
        "install EPMPI",
    );

    assert_relocatable(&prefix, &work);

    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let installed = consumers(&prefix, &work, "installed", &[], (true, true, true));

    // Move the installation; the old path no longer exists, so nothing can fall back on it.
    // The consumers again, now the wrapper way: all three wrappers as compilers.
    let moved = work.join("moved").join("elsewhere");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&prefix, &moved).unwrap();
    let wrappers = wrappers_as_compilers(&["C", "CXX", "Fortran"]);
    consumers(&moved, &work, "moved, wrappers as compilers", &wrappers, installed);
    drop(_guard);

    // EPMPI itself the wrapper way, as the HPC habit has it: the C and Fortran wrappers as
    // compilers, the default C++ compiler, which must find mpi.h for the XIOS adapter through
    // MPI's CXX component. Its libraries only (the same cargo build, nothing to rebuild).
    let wrapped_build = work.join("build-wrappers");
    run(
        cmake()
            .arg("-S")
            .arg(project_dir())
            .arg("-B")
            .arg(&wrapped_build)
            .args(wrappers_as_compilers(&["C", "Fortran"]))
            .arg("-DBUILD_TESTING=OFF")
            .arg(format!(
                "-DEPMPI_CARGO_TARGET_DIR={}",
                cache.join("cargo").display()
            ))
            .args(fortran_source_dir.iter().map(|dir| format!("-DEPMPI_FORTRAN_SOURCE_DIR={dir}"))),
        "configure EPMPI (wrappers as C and Fortran compilers)",
    );
    run(
        cmake().arg("--build").arg(&wrapped_build).arg("--parallel").arg("2"),
        "build EPMPI (wrappers as C and Fortran compilers)",
    );

    std::fs::remove_dir_all(&work).unwrap();
    eprintln!(
        "cmake_package: PASS with {mpicc} in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
