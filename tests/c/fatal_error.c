/*
 * Under the default handler (EP_ERRORS_ARE_FATAL) a bad rank aborts the job with a message
 * naming the call and the cause. The test harness expects a nonzero exit and that message.
 */
#include <ep_mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, x = 0;
    EP_Comm c;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &c);
    EP_Send(&x, 1, MPI_INT, 1000000, 0, c);
    printf("fatal_error: still running after a fatal error\n");
    MPI_Finalize();
    return 0;
}
