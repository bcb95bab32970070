/*
 * The host-side view of a NetCDF-like layer: <mpi.h> first (the host's MPI_Comm, MPI_Info at
 * global scope), then the endpoints headers by XIOS's relative path, then host-side helpers that
 * take ep_lib communicators and reach the host communicator through `.mpi_comm`.
 */
#ifndef DROPIN_HOST_HPP
#define DROPIN_HOST_HPP

#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "../extern/src_ep_dev/ep_lib.hpp"
#include "../extern/src_ep_dev/ep_declaration.hpp"

#endif
