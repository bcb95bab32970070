/*
 * Build-time probe of the host MPI (preprocessed only, by build.rs): the markers below say
 * which host workarounds the Rust side compiles.
 */
#include <mpi.h>

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION == 4
/* Open MPI 4.x: osc/ucx dynamic-window region lookup (src/engine/win/ompi4.rs). */
EPMPI_PROBE_OMPI4
#endif
