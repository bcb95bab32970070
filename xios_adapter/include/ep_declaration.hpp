/*
 * ep_declaration.hpp: the predefined names of XIOS's endpoints library at global scope
 * (MPI_INT, MPI_DOUBLE, MPI_SUM, MPI_MAX, MPI_MIN, MPI_COMM_WORLD, MPI_COMM_NULL,
 * MPI_STATUS_IGNORE, MPI_REQUEST_NULL, MPI_INFO_NULL...), which XIOS's src/mpi.hpp and
 * src/mpi_std.hpp include right after ep_lib.hpp. ep_lib.hpp declares them (see there for each
 * name) and declares them again at each inclusion, after #undef-ing the host's macros of those
 * names: including this header gives them back to ep_lib also where an <mpi.h> came in between.
 */
#include "ep_lib.hpp"
