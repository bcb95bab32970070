#!/bin/sh
# The main job (for now a preview: XIOS-style clients as OpenMP threads sending to a server
# endpoint, point to point): builds EPMPI in release mode and runs
# examples/client_server_demo.c on 3 processes (2 model processes x 3 client threads, 1 server).
#
#   examples/run_demo.sh                  # MPICH
#   EPMPI_MPI=openmpi examples/run_demo.sh
set -eu
cd "$(dirname "$0")/.."
tests/install_deps.sh
mpi="${EPMPI_MPI:-mpich}"
target="target/$mpi"
MPICC="mpicc.$mpi" CARGO_TARGET_DIR="$target" cargo build --release --locked
lib="$PWD/$target/release"
"mpicc.$mpi" -O2 -fopenmp -Iinclude examples/client_server_demo.c -o "$target/client_server_demo" \
    -L"$lib" -lepmpi -Wl,--disable-new-dtags,-rpath,"$lib"
launcher="mpirun.$mpi"
flags=""
if [ "$mpi" = openmpi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    flags="--oversubscribe --bind-to none"
fi
# shellcheck disable=SC2086
OMP_NUM_THREADS=3 "$launcher" $flags -np 3 "$target/client_server_demo"
