/*
 * Ways a job must stop. Under the default handler (EP_ERRORS_ARE_FATAL) a bad call aborts the
 * job with "EPMPI fatal error in EP_<Name>: <cause>", one mode per family:
 *   bad-rank     point-to-point: EP_Send to rank 1000000
 *   coll-root    collective: EP_Bcast with root 1000000
 *   freed-comm   communicator: EP_Comm_rank on a freed handle (the process default handler)
 *   win-epoch    one-sided: EP_Put outside any epoch
 *   bad-request  completion: EP_Wait on a made-up request handle
 *   before-init  EP_Comm_rank before MPI_Init_thread
 * and `abort`: EP_Abort from rank 0 stops every process and says who asked. The harness
 * (tests/c_programs.rs) expects a nonzero exit and the message.
 */
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h" /* the same program under the standard names, through libepmpi_mpi */
#else
#include <ep_mpi.h>
#endif
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int provided, x = 0, rank;
    const char *mode = argc > 1 ? argv[1] : "bad-rank";
    EP_Comm c;
    if (strcmp(mode, "before-init") == 0)
        EP_Comm_rank(987654, &rank);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &c);
    EP_Comm_rank(c, &rank);
    if (strcmp(mode, "abort") == 0) {
        if (rank == 0)
            EP_Abort(c, 3);
    } else if (strcmp(mode, "coll-root") == 0) {
        if (rank == 0)
            EP_Bcast(&x, 1, MPI_INT, 1000000, c);
    } else if (strcmp(mode, "freed-comm") == 0) {
        if (rank == 0) {
            EP_Comm dup_handle = c;
            EP_Comm_free(&dup_handle);
            EP_Comm_rank(c, &x);
        }
    } else if (strcmp(mode, "win-epoch") == 0) {
        EP_Win w;
        void *base;
        EP_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, c, &base, &w);
        if (rank == 0)
            EP_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, w);
    } else if (strcmp(mode, "bad-request") == 0) {
        if (rank == 0) {
            EP_Request r = 424242;
            EP_Wait(&r, EP_STATUS_IGNORE);
        }
    } else {
        EP_Send(&x, 1, MPI_INT, 1000000, 0, c);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* other ranks are held here until the abort stops the job */
    printf("fatal_error: still running after a fatal error\n");
    MPI_Finalize();
    return 0;
}
