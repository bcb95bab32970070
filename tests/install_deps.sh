#!/bin/sh
# Installs what the build and tests need on Debian when it is missing: Open MPI, MPICH,
# gfortran, g++ (the XIOS adapter), cmake, libclang (bindgen in mpi-sys), NetCDF (the XIOS demo's
# server writes its output with libnetcdf; the tests read it back with ncdump), valgrind (the
# memcheck tests), and nightly's rust-src when nightly lacks it (the ThreadSanitizer check).
# Used by tests/run_all.sh, examples/run_demo.sh and CI. Needs root or sudo when something is missing.
set -eu
need=""
command -v mpicc.openmpi >/dev/null 2>&1 || need="$need libopenmpi-dev openmpi-bin"
command -v mpicc.mpich >/dev/null 2>&1 || need="$need libmpich-dev mpich"
command -v gfortran >/dev/null 2>&1 || need="$need gfortran"
command -v g++ >/dev/null 2>&1 || need="$need g++"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need="$need libclang-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v nc-config >/dev/null 2>&1 || need="$need libnetcdf-dev"
command -v ncdump >/dev/null 2>&1 || need="$need netcdf-bin"
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
if [ -n "$need" ]; then
    echo "installing:$need"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
command -v cargo >/dev/null 2>&1 || { echo "cargo is missing: install Rust (https://rustup.rs)"; exit 1; }
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
