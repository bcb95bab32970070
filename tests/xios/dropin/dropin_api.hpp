/*
 * Functions of the host-side translation units (dropin_netcdf.cpp: <mpi.h> before the endpoints
 * headers; dropin_late.cpp: <mpi.h> after them) that the model-side unit (dropin_main.cpp, no
 * <mpi.h>) calls. Only ep_lib types and ints cross.
 */
#ifndef DROPIN_API_HPP
#define DROPIN_API_HPP

/* dropin_netcdf.cpp */
/** Host rank and size of the host communicator of Fortran integer `fint` (what a Fortran test
 *  program gets from MPI_COMM_RANK/SIZE on the integer xios_initialize returns). */
void host_rank_size_of_fint(int fint, int *rank, int *size);
/** The host's Fortran MPI_COMM_NULL and MPI_COMM_WORLD. */
int host_fint_null();
int host_fint_world();
/** What a parallel file open does with an ep_lib communicator, from one thread per process:
 *  the host communicator `comm.mpi_comm` and the null info `MPI_INFO_NULL.mpi_info` handed to a
 *  function with NetCDF's host signature, which dups the communicator, sums `value` over the
 *  processes and frees the dup. Returns the sum (or -1 when a host call failed). */
long host_parallel_open(const ep_lib::MPI_Comm &comm, long value);
/** Sums `value` over the host world (host MPI_Allreduce, one thread per process). */
int host_world_sum(int value);

/* dropin_late.cpp */
/** Host size of `comm.mpi_comm`, from a unit that includes <mpi.h> after the endpoints headers. */
int late_host_size(const ep_lib::MPI_Comm &comm);
/** True when the host datatypes and ops a unit sees after <mpi.h> are ep_lib's global ones. */
bool late_constants_agree();

#endif
