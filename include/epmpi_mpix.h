/*
 * epmpi_mpix.h: creating endpoint communicators under the standard MPI names
 * (libepmpi_mpi, the standard-names layer of EPMPI).
 *
 * Link `-lepmpi_mpi -lepmpi` before the host MPI (or load libepmpi_mpi.so with LD_PRELOAD):
 * the layer defines the MPI C functions, so that the communicators, requests, messages and
 * windows these calls create work with the ordinary MPI_* calls in every thread, while calls
 * on the host's own handles go to the host MPI unchanged.
 */
#ifndef EPMPI_MPIX_H
#define EPMPI_MPIX_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Creates an endpoints communicator (the MPI Forum's endpoints proposal, `MPI_Comm_create_endpoints`):
 * collective over `parent_comm`, called by one thread of each process; `my_num_ep` (>= 0, may
 * differ between processes) endpoints of this process get ranks ordered by (parent rank, index);
 * `out_comm_handles[i]` (an array of `my_num_ep` MPI_Comm) is endpoint i's handle, to be used by
 * one thread at a time, in any MPI call. `parent_comm` is a host communicator. Errors: the host
 * MPI's classes (MPI_ERR_COMM, MPI_ERR_ARG, MPI_ERR_OTHER when the host does not provide
 * MPI_THREAD_MULTIPLE), through the parent's error handler. Same as `EP_Comm_create_endpoints`.
 */
int MPIX_Comm_create_endpoints(MPI_Comm parent_comm, int my_num_ep, MPI_Info info, MPI_Comm out_comm_handles[]);

/*
 * MPICH's thread communicators (MPICH 4.2's MPIX_Threadcomm_*), on any host MPI, with EPMPI's
 * full semantics (wildcards, probes, split, intercommunicators, windows):
 *  - MPIX_Threadcomm_init(comm, num_threads, &tc): outside parallel regions, one thread per
 *    process of the host communicator `comm`, collective over it; `num_threads` (>= 0, may differ
 *    between processes) threads of this process will be ranks of `tc`.
 *  - MPIX_Threadcomm_start(tc): inside the parallel region, called by exactly `num_threads`
 *    threads of the process, which wait for each other. The calling thread's rank is its
 *    process's offset (the threads of lower host ranks) plus the ORDER IN WHICH THE THREADS OF ITS
 *    PROCESS CALLED MPIX_Threadcomm_start (0 for the first), as in MPICH; a thread that wants a
 *    given rank (say its OpenMP thread number) makes the calls in that order or uses
 *    MPIX_Comm_create_endpoints instead. Until MPIX_Threadcomm_finish, `tc` names this thread's
 *    endpoint in every MPI call made by this thread.
 *  - MPIX_Threadcomm_finish(tc): the same threads, after their last use of `tc` in the region;
 *    they wait for each other. start and finish may be repeated (ranks are reassigned each time).
 *  - MPIX_Threadcomm_free(&tc): outside parallel regions, one thread per process; sets tc to
 *    MPI_COMM_NULL. Communicators derived from `tc` inside the region (MPI_Comm_dup, split...)
 *    are ordinary endpoint communicators of the calling thread, freed with MPI_Comm_free.
 */
int MPIX_Threadcomm_init(MPI_Comm comm, int num_threads, MPI_Comm *newthreadcomm);
int MPIX_Threadcomm_free(MPI_Comm *threadcomm);
int MPIX_Threadcomm_start(MPI_Comm threadcomm);
int MPIX_Threadcomm_finish(MPI_Comm threadcomm);

#ifdef __cplusplus
}
#endif

#endif
