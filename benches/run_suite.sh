#!/bin/sh
# The benchmark suite, against Open MPI and against MPICH (each in its own target directory):
# builds in release mode, runs every side-by-side benchmark (plain MPI and EPMPI in the same
# run) writing CSV files into target/<mpi>/bench/<timestamp>/, then writes report.md and PNG
# plots there (benches/report). A few minutes per MPI on 2 cores.
#
#   benches/run_suite.sh                    # both MPIs
#   EPMPI_MPIS=mpich benches/run_suite.sh   # one
#
# Knobs (benches/common/sizes.rs): EPMPI_BENCH_REPS (repetitions, default 9),
# EPMPI_BENCH_ROUNDS (at each size, methods taken in turns for that many rounds, default 3),
# EPMPI_BENCH_SIZES (e.g. 8,1K,1M), EPMPI_BENCH_SCALE (factor on iterations),
# EPMPI_BENCH_PROCS (process counts of the creation benchmark, default 1,2),
# EPMPI_BENCHES (which benchmarks, default all).
set -eu
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
benches=${EPMPI_BENCHES:-handoff pingpong msgrate ring collectives rma rma_sync intercomm creation names_host}
stamp=$(date +%Y%m%d-%H%M%S)
CARGO_TARGET_DIR=target/report cargo build --locked --release -p epmpi-bench-report
for mpi in ${EPMPI_MPIS:-openmpi mpich}; do
    dir="$PWD/target/$mpi/bench/$stamp"
    mkdir -p "$dir"
    targets=""
    for b in $benches; do targets="$targets --bench $b"; done
    # shellcheck disable=SC2086 # one word per flag
    MPICC="mpicc.$mpi" CARGO_TARGET_DIR="target/$mpi" cargo bench --locked --no-run $targets
    start=$(date +%s)
    {
        echo "host MPI: $mpi, $(mpirun."$mpi" --version 2>&1 | grep -m 1 -E 'OpenRTE|Open MPI|Version:' | sed 's/^[[:space:]]*//; s/[[:space:]][[:space:]]*/ /g')"
        echo "started: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -srm), $(nproc) cores, load average $(cut -d ' ' -f 1-3 /proc/loadavg)"
        echo "repetitions: ${EPMPI_BENCH_REPS:-9} in ${EPMPI_BENCH_ROUNDS:-3} interleaved rounds per size; benchmarks: $benches"
    } >"$dir/run.txt"
    for b in $benches; do
        echo "=== $mpi: $b"
        t=$(date +%s)
        EPMPI_BENCH_DIR="$dir" MPICC="mpicc.$mpi" CARGO_TARGET_DIR="target/$mpi" cargo bench --locked --bench "$b"
        echo "$b: $(($(date +%s) - t)) s" >>"$dir/run.txt"
    done
    echo "benchmarks ran in $(($(date +%s) - start)) s (build excluded); load average at the end $(cut -d ' ' -f 1-3 /proc/loadavg)" >>"$dir/run.txt"
    target/report/release/epmpi-bench-report "$dir" "$mpi"
done
