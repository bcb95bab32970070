/*
 * host_mpi.hpp: the host MPI's C interface for the adapter's sources (not installed), included
 * before ep_lib.hpp, which then replaces the host's macros of the names it declares (MPI_INT,
 * MPI_COMM_WORLD...) by ep_lib's. No MPI C++ bindings: they do not build under -Wextra with
 * Open MPI, and nothing uses them.
 */
#ifndef EPMPI_XIOS_HOST_MPI_HPP
#define EPMPI_XIOS_HOST_MPI_HPP

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <ep_mpi.h>
#include <mpi.h>

#endif
