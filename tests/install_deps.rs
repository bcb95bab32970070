//! `tests/install_deps.sh` asks dpkg whether each package is installed, and lists what is not.
//! These cases run it with `--print` against a stand-in `dpkg-query` that describes a machine
//! state, so the decision is checked without touching this machine's packages. The first case
//! is the state of a Debian 12 image: clang's C++ library (`libclang-cpp14`) present, libclang
//! itself absent; a file-name test that matched `libclang*.so*` took it for libclang, and
//! bindgen then failed to build mpi-sys. `tests/fresh_machine.sh` runs the real thing in a
//! fresh Debian chroot.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every package the script wants (it prints them in this order when all are missing).
const WANTED: &[&str] = &[
    "build-essential",
    "ca-certificates",
    "libopenmpi-dev",
    "openmpi-bin",
    "libmpich-dev",
    "mpich",
    "gfortran",
    "cmake",
    "pkg-config",
    "libnetcdf-dev",
    "netcdf-bin",
    "valgrind",
    "libclang-dev",
];

/// A directory holding a `dpkg-query` that answers `-W -f='${Status}' PKG` as dpkg would for
/// a machine whose packages and their states are `states` (absent packages: exit 1).
fn fake_dpkg(name: &str, states: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("epmpi-install-deps-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut script = String::from("#!/bin/sh\n# args: -W -f=FORMAT PKG\neval \"pkg=\\${$#}\"\ncase \"$pkg\" in\n");
    for (pkg, status) in states {
        script.push_str(&format!("    {pkg}) printf '%s' '{status}' ;;\n"));
    }
    script.push_str("    *) echo \"dpkg-query: no packages found matching $pkg\" >&2; exit 1 ;;\nesac\n");
    let path = dir.join("dpkg-query");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Runs `install_deps.sh --print` with `fake` first on PATH; returns the packages it lists.
fn missing(fake: &Path, libclang_path: Option<&str>) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/install_deps.sh");
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new(script);
    cmd.arg("--print").env("PATH", path).env_remove("LIBCLANG_PATH");
    if let Some(dir) = libclang_path {
        cmd.env("LIBCLANG_PATH", dir);
    }
    let out = cmd.output().expect("run tests/install_deps.sh");
    assert!(out.status.success(), "install_deps.sh --print failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}

fn installed(pkgs: &[&'static str]) -> Vec<(&'static str, &'static str)> {
    pkgs.iter().map(|p| (*p, "install ok installed")).collect()
}

#[test]
fn libclang_cpp_alone_is_not_libclang() {
    let mut state: Vec<_> = installed(&WANTED[..WANTED.len() - 1]);
    state.push(("libclang-cpp14", "install ok installed"));
    let fake = fake_dpkg("cpp-only", &state);
    assert_eq!(missing(&fake, None), ["libclang-dev"]);
}

#[test]
fn a_complete_machine_needs_nothing() {
    let fake = fake_dpkg("complete", &installed(WANTED));
    assert_eq!(missing(&fake, None), Vec::<String>::new());
}

#[test]
fn an_empty_machine_needs_everything_in_order() {
    let fake = fake_dpkg("empty", &[]);
    assert_eq!(missing(&fake, None), WANTED);
}

#[test]
fn removed_or_half_installed_packages_are_reinstalled() {
    let mut state = installed(WANTED);
    state[5] = ("mpich", "deinstall ok config-files");
    state[12] = ("libclang-dev", "install ok half-configured");
    let fake = fake_dpkg("half", &state);
    assert_eq!(missing(&fake, None), ["mpich", "libclang-dev"]);
}

#[test]
fn libclang_path_means_the_users_own_llvm() {
    let fake = fake_dpkg("own-llvm", &installed(&WANTED[..WANTED.len() - 1]));
    assert_eq!(missing(&fake, Some("/opt/llvm/lib")), Vec::<String>::new());
}
