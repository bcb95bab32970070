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

/*
 * EPMPI's own calls and values under the standard names' handle types (same as the EP_
 * functions of include/ep_mpi.h they name; errors are the host MPI's classes, through the
 * communicator's error handler). Thread safety: as the EP_ function.
 *  - MPIX_Comm_create_endpoint(parent, my_num_ep, index, &comm): the team form of
 *    MPIX_Comm_create_endpoints, called by my_num_ep threads of each process, each with a
 *    distinct index in 0..my_num_ep, each getting endpoint `index` (EP_Comm_create_endpoint).
 *  - MPIX_Comm_local_info(comm, &local_index, &local_count, &process_rank): this endpoint's
 *    index among its process's endpoints, their number, the process's rank in the parent
 *    (any pointer may be NULL; EP_Comm_local_info).
 *  - MPIX_Comm_get_host_comm(comm, &host_comm): the host communicator over the processes of
 *    the endpoint communicator `comm`, owned by EPMPI, never freed by the caller
 *    (EP_Comm_get_host_comm).
 *  - MPIX_Get_library_version(version, &len): EPMPI's version string, at most
 *    MPI_MAX_LIBRARY_VERSION_STRING bytes; MPI_Get_library_version gives the host's.
 *  - MPIX_Debug_live_handles / _objects / _windows: counts of this process's live EPMPI
 *    handles and engine objects (leak checks; EP_Debug_live_*).
 *  - MPIX_Isendrecv, MPIX_Isendrecv_replace, MPIX_Comm_idup_with_info: MPI 4.0's
 *    MPI_Isendrecv(_replace) and MPI_Comm_idup_with_info on hosts that
 *    do not declare them (Open MPI 4.1): on endpoint communicators only there
 *    (MPI_ERR_UNSUPPORTED_OPERATION on a host communicator of such a host, through its
 *    error handler).
 *  - MPIX_COMM_FLAVOR: attribute keyval of endpoint communicators (MPI_Comm_get_attr), whose
 *    value is MPIX_FLAVOR_ENDPOINTS; host communicators do not have it. A function call (the
 *    host keyval is made on first use, after MPI_Init); never freed by the program.
 *  - MPIX_COMM_TYPE_PROCESS: split type of MPI_Comm_split_type on endpoint communicators: the
 *    endpoints of each process.
 *  - MPIX_Endpoint_team_create(team_id, team_size, &team), MPIX_Endpoint_join(team),
 *    MPIX_Endpoint_leave(team), MPIX_Endpoint_team_destroy(&team): endpoint teams, threads
 *    that lend themselves to other members' large copies and reductions between join and leave
 *    (EP_Endpoint_team_*, docs/teams.md); MPIX_Endpoint_team is EPMPI's team handle, an int,
 *    MPIX_ENDPOINT_TEAM_NULL its null value. Errors are tied to no communicator: they go to
 *    MPI_COMM_SELF's handler (see below).
 * The process default error handler of EPMPI (the one of endpoints made from host
 * communicators, and of errors tied to no communicator) is MPI_COMM_SELF's: setting
 * MPI_COMM_SELF's handler through the layer sets both (MPI 4.1 section 9.3).
 * Other standard calls the layer answers for endpoints: MPI_Buffer_attach/_detach attach the
 * buffer to the host and to EPMPI (which never writes into it); MPI_Error_string on the error
 * code of this thread's last failed call on an endpoint gives EPMPI's message (naming the EP_
 * call and the cause); names and strings are cut to the host's MPI_MAX_OBJECT_NAME and
 * MPI_MAX_ERROR_STRING (64 and 256 bytes under Open MPI).
 */
int MPIX_Comm_create_endpoint(MPI_Comm parent_comm, int my_num_ep, int index, MPI_Comm *newcomm);
int MPIX_Comm_local_info(MPI_Comm comm, int *local_index, int *local_count, int *process_rank);
int MPIX_Comm_get_host_comm(MPI_Comm comm, MPI_Comm *host_comm);
int MPIX_Get_library_version(char *version, int *resultlen);
int MPIX_Debug_live_handles(int *comms, int *requests, int *messages);
int MPIX_Debug_live_objects(int *comm_states, int *requests, int *win_states);
int MPIX_Debug_live_windows(int *windows);
int MPIX_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int MPIX_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request);
int MPIX_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request);
int MPIX_Comm_flavor_keyval(void);
#define MPIX_COMM_FLAVOR (MPIX_Comm_flavor_keyval())
#define MPIX_FLAVOR_ENDPOINTS 1
#define MPIX_COMM_TYPE_PROCESS 17744
typedef int MPIX_Endpoint_team;
#define MPIX_ENDPOINT_TEAM_NULL 0
int MPIX_Endpoint_team_create(int team_id, int team_size, MPIX_Endpoint_team *team);
int MPIX_Endpoint_join(MPIX_Endpoint_team team);
int MPIX_Endpoint_leave(MPIX_Endpoint_team team);
int MPIX_Endpoint_team_destroy(MPIX_Endpoint_team *team);


/*
 * MPI 4.0's persistent collectives (MPI 4.1 sections 6.13 and 8.8) on hosts whose <mpi.h> does
 * not declare them (Open MPI 4.1, an MPI 3.1 library), with the standard's prototypes: the
 * layer defines them on both hosts. On endpoint communicators they are EPMPI's (EP_*_init); on
 * a host communicator of such a host they are Open MPI's extension of the same semantics
 * (MPIX_*_init of <mpi-ext.h>, extension pcollreq) or, where Open MPI was built without it,
 * MPI_ERR_UNSUPPORTED_OPERATION through that communicator's error handler. The requests they
 * give work with MPI_Start, MPI_Startall, the completion calls and MPI_Request_free.
 */
#if MPI_VERSION < 4
int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request);
int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                       const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *request);
int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request);
int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request);
int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request *request);
int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request);
int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
#endif

#ifdef __cplusplus
}
#endif

#endif
