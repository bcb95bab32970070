#!/bin/sh
# Installs the Debian packages the build, the demo and the tests need, when they are missing.
# Used by examples/run_demo.sh, tests/run_all.sh and CI; needs root or sudo only when something
# is missing.
#
#   tests/install_deps.sh            # install what is missing
#   tests/install_deps.sh --print    # print what is missing, one package a line; install nothing
#
# The question asked of the machine is "is this package installed?" (dpkg's own database), not
# "is some file with a similar name there?": Debian 12 images ship libclang-cpp.so.14 (clang's C++
# library, pulled in by other packages) without libclang.so, and bindgen, inside mpi-sys, loads
# only libclang itself; a file test that matched libclang*.so* passed there while the build
# stopped with "Unable to find libclang". With LIBCLANG_PATH set (an LLVM of the user's own),
# bindgen looks there first, so libclang is not asked of the package system.
#
# What each package is for:
#   build-essential               cc, c++ and libc headers: the cc crate, mpicc, the XIOS adapter
#   ca-certificates               cargo fetches crates over HTTPS
#   libopenmpi-dev openmpi-bin    the host MPIs: Open MPI ...
#   libmpich-dev mpich            ... and MPICH (both, side by side; tests run against each)
#   gfortran                      the Fortran module ep_mpi and the demo's model
#   cmake pkg-config              the CMake package and its consumers
#   libclang-dev                  bindgen in mpi-sys (libclang and clang's own headers)
#   libnetcdf-dev netcdf-bin      the demo's server writes NetCDF; the tests read it with ncdump
#   valgrind                      the memcheck tests
# and, when the nightly toolchain is installed without it, nightly's rust-src (the
# ThreadSanitizer check rebuilds std).
set -eu
print_only=0
case "${1:-}" in
    --print) print_only=1 ;;
    "") ;;
    *) echo "usage: tests/install_deps.sh [--print]" >&2; exit 2 ;;
esac

wanted="build-essential ca-certificates libopenmpi-dev openmpi-bin libmpich-dev mpich gfortran
cmake pkg-config libnetcdf-dev netcdf-bin valgrind"
[ -n "${LIBCLANG_PATH:-}" ] || wanted="$wanted libclang-dev"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "tests/install_deps.sh: not a Debian system (no dpkg-query); install the equivalents of:" >&2
    echo "  $wanted" | tr '\n' ' ' >&2
    echo >&2
    exit 0
fi
# "install ok installed" is the status of a package that is there; anything else (absent,
# removed with its configuration left, half-configured) gets installed.
need=""
for pkg in $wanted; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || need="$need $pkg"
done

if [ "$print_only" = 1 ]; then
    for pkg in $need; do echo "$pkg"; done
    exit 0
fi
if [ -n "$need" ]; then
    echo "installing:$need"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
command -v cargo >/dev/null 2>&1 || { echo "cargo is missing: install Rust (https://rustup.rs)"; exit 1; }
# The test command runs clippy; rustup's minimal profile leaves it out.
if [ "$print_only" = 0 ] && ! cargo clippy --version >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
    echo "adding clippy to the Rust toolchain (tests/run_all.sh runs it)"
    rustup component add clippy || echo "could not add clippy: tests/run_all.sh will fail at its clippy step"
fi
# The ThreadSanitizer check (tests/threadcheck.rs; on unless EPMPI_TEST_THREADS=0) rebuilds std
# with nightly's -Zbuild-std, which needs nightly's rust-src: added when nightly is installed
# without it. Never fatal here: if it cannot be added, that check fails and says why.
if [ "${EPMPI_TEST_THREADS:-1}" != 0 ] && command -v rustup >/dev/null 2>&1 \
    && rustup toolchain list 2>/dev/null | grep -q '^nightly' \
    && ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
    echo "adding rust-src to the nightly toolchain (ThreadSanitizer check)"
    rustup component add rust-src --toolchain nightly \
        || echo "could not add rust-src to nightly: the ThreadSanitizer check will fail (EPMPI_TEST_THREADS=0 leaves it out)"
fi
