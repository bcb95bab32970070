#!/bin/sh
# Every test, against Open MPI and against MPICH, each in its own target directory
# (mpi-sys does not rebuild when the MPI changes): Rust unit tests, the header check, the C
# programs and the Rust traffic program under mpirun in every shape (tests/support), the
# short modes of the hardening checks: the loom models, the C tests under valgrind
# memcheck and the C tests under ThreadSanitizer (under MPICH on several processes, under Open
# MPI on one: tests/threadcheck.rs; needs the nightly toolchain with rust-src, and crates.io),
# and the API documentation, which must build without a warning (its links are checked).
# Set EPMPI_TEST_LOOM=0, EPMPI_TEST_VALGRIND=0 or EPMPI_TEST_THREADS=0 to leave one out.
#
#   tests/run_all.sh            # both MPIs
#   EPMPI_MPIS=mpich tests/run_all.sh
set -eu
cd "$(dirname "$0")/.."
tests/install_deps.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export EPMPI_TEST_LOOM="${EPMPI_TEST_LOOM:-1}" EPMPI_TEST_VALGRIND="${EPMPI_TEST_VALGRIND:-1}"
# ThreadSanitizer needs nightly with rust-src. Asked for explicitly (EPMPI_TEST_THREADS=1) it
# fails without them; by default a machine without them skips it, saying so loudly, rather
# than failing every other test's run over a missing toolchain.
if [ -z "${EPMPI_TEST_THREADS:-}" ]; then
    if rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
        EPMPI_TEST_THREADS=1
    else
        echo "WARNING: no nightly toolchain with rust-src here: the ThreadSanitizer check (tests/threadcheck.rs) is SKIPPED"
        EPMPI_TEST_THREADS=0
    fi
fi
export EPMPI_TEST_THREADS
for mpi in ${EPMPI_MPIS:-openmpi mpich}; do
    echo "=== tests against $mpi"
    MPICC="mpicc.$mpi" CARGO_TARGET_DIR="target/$mpi" cargo test --locked
    echo "=== API documentation against $mpi"
    MPICC="mpicc.$mpi" CARGO_TARGET_DIR="target/$mpi" RUSTDOCFLAGS="-D warnings" \
        cargo doc --no-deps --locked --quiet
done
echo "=== all tests passed"
