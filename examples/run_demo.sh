#!/bin/sh
# The main job: an XIOS-style climate I/O run on MPI endpoints. A Fortran model (N processes,
# each with K OpenMP threads, every thread an XIOS client endpoint) sends a curvilinear 3-D
# grid's coordinates and two fields over T timesteps, through the XIOS protocol of
# xios_adapter (one-sided rings or two-sided buffers), to S I/O server processes, which
# assemble them, gather them to server 0 and write a CF NetCDF-4 file, then verify every value.
# Builds EPMPI in release mode (target/$mpi), the ep_mpi and ep_xios Fortran modules, the
# protocol library, examples/xios_demo/model and server, and runs them as one MPMD job:
#   mpirun -np N model ... : -np S server ...
#
#   examples/run_demo.sh                  # MPICH, 2 processes x 2 threads + 1 server, one-sided
#   examples/run_demo.sh --clients 2 --threads 3,1 --servers 2 --transport two-sided
#   EPMPI_MPI=openmpi examples/run_demo.sh
#
# Options (defaults in brackets):
#   --clients N         model processes [2]
#   --threads K1[,K2..] OpenMP client threads per model process, cycled over them [2]
#   --servers S         server processes [1]
#   --transport T       one-sided (XIOS 3) or two-sided (XIOS 2) [one-sided]
#   --timesteps T       [4]
#   --grid NXxNYxNZ     [100x100x5]
#   --output PATH       NetCDF file [target/$mpi/xios_demo/xios_demo_output.nc]
set -eu
caller_dir="$PWD"
cd "$(dirname "$0")/.."
usage() { sed -n '/^# Options/,/^set -eu/p' "$0" | sed '$d;s/^# \{0,1\}//'; }
clients=2 threads=2 servers=1 transport=one-sided timesteps=4 grid=100x100x5 output=""
while [ $# -gt 0 ]; do
    case "$1" in
        --clients|--threads|--servers|--transport|--timesteps|--grid|--output)
            [ $# -ge 2 ] || { echo "run_demo.sh: $1 needs a value" >&2; exit 2; }
            case "$1" in
                --clients) clients="$2" ;; --threads) threads="$2" ;; --servers) servers="$2" ;;
                --transport) transport="$2" ;; --timesteps) timesteps="$2" ;; --grid) grid="$2" ;;
                --output) output="$2" ;;
            esac
            shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run_demo.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
done
tests/install_deps.sh
mpi="${EPMPI_MPI:-mpich}"
target="target/$mpi"
MPICC="mpicc.$mpi" CARGO_TARGET_DIR="$target" cargo build --release --locked
lib="$PWD/$target/release"
build="$target/xios_demo"
mkdir -p "$build"
case "$output" in
    "") output="$PWD/$build/xios_demo_output.nc" ;;
    /*) ;;
    *) output="$caller_dir/$output" ;;
esac

# The files of set(<var> ...) in a sources.cmake list.
cmake_list() { sed -n "/^set($2\$/,/^)/p" "$1" | sed '1d;$d;s/#.*//;s/^ *//'; }
link="-L$lib -lepmpi -Wl,--disable-new-dtags,-rpath,$lib"
cc="mpicc.$mpi -std=c11 -O2 -pthread -Iinclude -Ixios_adapter/include"
fc="mpif90.$mpi -std=f2018 -O2 -fopenmp -J$build -I$build"
objects=""
for src in $(cmake_list fortran/sources.cmake EPMPI_FORTRAN_SOURCES); do
    case "$src" in *.c) $cc -c "fortran/$src" -o "$build/${src%.*}.o" ;; *) $fc -c "fortran/$src" -o "$build/${src%.*}.o" ;; esac
    objects="$objects $build/${src%.*}.o"
done
protocol=""
for src in $(cmake_list xios_adapter/sources.cmake EPMPI_XIOS_PROTOCOL_SOURCES); do
    obj="$build/$(basename "${src%.*}").o"
    $cc -c "xios_adapter/$src" -o "$obj"
    protocol="$protocol $obj"
done
for src in $(cmake_list xios_adapter/sources.cmake EPMPI_XIOS_FORTRAN_SOURCES); do
    obj="$build/$(basename "${src%.*}").o"
    case "$src" in *.c) $cc -c "xios_adapter/$src" -o "$obj" ;; *) $fc -c "xios_adapter/$src" -o "$obj" ;; esac
    objects="$objects $obj"
done
for src in demo_fields demo_options demo_client model; do
    $fc -c "examples/xios_demo/$src.f90" -o "$build/$src.o"
    objects="$objects $build/$src.o"
done
# shellcheck disable=SC2086
mpif90."$mpi" -fopenmp $objects $protocol -o "$build/model" $link
# shellcheck disable=SC2086
$cc $(nc-config --cflags) examples/xios_demo/server.c examples/xios_demo/assemble.c examples/xios_demo/output.c \
    $protocol -o "$build/server" $(nc-config --libs) $link -lm

launcher="mpirun.$mpi"
flags=""
if [ "$mpi" = openmpi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Threads need more than one core each process; windows need the ucx component (NOTES.md).
    export OMPI_MCA_osc=ucx
    flags="--oversubscribe --bind-to none"
fi
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# shellcheck disable=SC2086
"$launcher" $flags -np "$clients" "$build/model" --threads "$threads" --transport "$transport" \
    --timesteps "$timesteps" --grid "$grid" : -np "$servers" "$build/server" --output "$output"
