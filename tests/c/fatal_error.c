/*
 * Ways a job must stop: `bad-rank`, under the default handler (EP_ERRORS_ARE_FATAL) a bad rank
 * aborts the job with a message naming the call and the cause; `abort`, EP_Abort from rank 0
 * stops every process and says who asked. The harness expects a nonzero exit and the message.
 */
#include <ep_mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int provided, x = 0;
    EP_Comm c;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &c);
    int rank;
    EP_Comm_rank(c, &rank);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        if (rank == 0)
            EP_Abort(c, 3);
        else
            MPI_Barrier(MPI_COMM_WORLD); /* held here until the abort stops the job */
    } else {
        EP_Send(&x, 1, MPI_INT, 1000000, 0, c);
    }
    printf("fatal_error: still running after a fatal error\n");
    MPI_Finalize();
    return 0;
}
