#!/bin/sh
# Every test, against Open MPI and against MPICH, each in its own target directory
# (mpi-sys does not rebuild when the MPI changes): Rust unit tests, the header check, the C
# programs and the Rust traffic program under mpirun in every shape (tests/support); then the
# hardening checks that a plain `cargo test` shows as ignored (slow, or needing a toolchain a
# plain machine may lack), run here by name with --include-ignored: the loom models (once: they
# do not use MPI), the C tests under valgrind memcheck and the C tests under ThreadSanitizer
# (under MPICH on several processes, under Open MPI on one: tests/threadcheck.rs; needs the
# nightly toolchain with rust-src, and crates.io); the API documentation, which must build
# without a warning (its links are checked); and clippy, warnings denied.
# Set EPMPI_TEST_LOOM=0, EPMPI_TEST_VALGRIND=0 or EPMPI_TEST_THREADS=0 to leave one out.
#
#   tests/run_all.sh            # both MPIs
#   EPMPI_MPIS=mpich tests/run_all.sh
set -eu
cd "$(dirname "$0")/.."
tests/install_deps.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
loom="${EPMPI_TEST_LOOM:-1}" valgrind="${EPMPI_TEST_VALGRIND:-1}" threads="${EPMPI_TEST_THREADS:-}"
# ThreadSanitizer needs nightly with rust-src. Asked for explicitly (EPMPI_TEST_THREADS=1) it
# fails without them; by default a machine without them leaves it out, saying so loudly, rather
# than failing every other test's run over a missing toolchain.
if [ -z "$threads" ]; then
    if rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
        threads=1
    else
        echo "WARNING: no nightly toolchain with rust-src here: the ThreadSanitizer check (tests/threadcheck.rs) is NOT RUN"
        threads=0
    fi
fi
for mpi in ${EPMPI_MPIS:-openmpi mpich}; do
    export MPICC="mpicc.$mpi" CARGO_TARGET_DIR="target/$mpi"
    echo "=== tests against $mpi"
    cargo test --locked
    if [ "$loom" = 1 ]; then
        echo "=== loom models (built against $mpi, run once)"
        cargo test --locked --test loom_models -- --include-ignored
        # The models build the engine's concurrent modules against loom: lint that build too.
        cargo clippy --manifest-path tests/loom/Cargo.toml --target-dir target/loom --all-targets --locked --quiet -- -D warnings
        loom=0
    fi
    if [ "$valgrind" = 1 ]; then
        echo "=== valgrind memcheck against $mpi"
        cargo test --locked --test memcheck -- --include-ignored
    fi
    if [ "$threads" = 1 ]; then
        echo "=== ThreadSanitizer against $mpi"
        cargo test --locked --test threadcheck -- --include-ignored
    fi
    echo "=== API documentation and clippy against $mpi"
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked --quiet
    # Against each MPI: Open MPI 4 also compiles src/engine/win/ompi4.rs.
    cargo clippy --all-targets --locked --quiet -- -D warnings
done
echo "=== all tests passed"
