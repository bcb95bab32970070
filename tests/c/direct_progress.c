/*
 * Direct mode and MPI's progress rule (MPI 4.1 section 3.5), on 2 processes x 1 endpoint.
 *
 * On Open MPI a communicator with one endpoint per process runs in direct mode: its blocking
 * receive goes to the host (src/engine/direct.rs), and must not block there while its thread
 * has a receive posted on another endpoint communicator (direct mode polls the host for that
 * reason, among others; this test fails if it ever blocks): process 0 posts a large receive on an
 * engine communicator (2 endpoints per process), then blocks in a receive on the direct one;
 * process 1 sends synchronously on the engine communicator, which completes only once process
 * 0 has matched it, and only then sends on the direct one. If the blocked receive stopped
 * progressing the posted one, both would wait forever (the test's timeout fails it).
 * Under MPICH both communicators take the engine's path and the test checks the same rule.
 */
#include "ep_test.h"
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, wr;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    EP_Comm d, e[2];
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &d));
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 2, MPI_INFO_NULL, e));
    CHECK_OK(EP_Comm_set_errhandler(d, EP_ERRORS_RETURN));
    enum { N = 1 << 16 }; /* 256 KiB: sent by rendezvous on every host */
    int *big = malloc(N * sizeof(int)), x = 0;
    if (wr == 0) {
        for (int i = 0; i < N; i++)
            big[i] = -1;
        EP_Request r;
        EP_Status st;
        CHECK_OK(EP_Irecv(big, N, MPI_INT, 2, 5, e[0], &r)); /* rank 2: process 1's first endpoint */
        /* Only now may process 1 send: its message then arrives while we wait on `d`, which is
         * the only call left that can pull it in (no race lets an earlier call match it). */
        MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
        CHECK_OK(EP_Recv(&x, 1, MPI_INT, 1, 6, d, &st));
        CHECK(x == 77 && st.MPI_SOURCE == 1 && st.MPI_TAG == 6, "direct receive: %d from %d tag %d", x, st.MPI_SOURCE, st.MPI_TAG);
        CHECK_OK(EP_Wait(&r, &st));
        CHECK(st.MPI_SOURCE == 2 && big[0] == 0 && big[N - 1] == N - 1, "posted receive: source %d, %d .. %d", st.MPI_SOURCE, big[0], big[N - 1]);
        /* Truncation on the direct communicator: error class and status, eager size. */
        int small[2] = {0, 0};
        int rc = EP_Recv(small, 2, MPI_INT, 1, 7, d, &st);
        CHECK(ep_class(rc) == EP_ERR_TRUNCATE && st.MPI_SOURCE == 1 && st.MPI_TAG == 7, "truncation class %d", ep_class(rc));
        int count = -1;
        CHECK_OK(EP_Get_count(&st, MPI_INT, &count));
        CHECK(count == 2 && small[0] == 1 && small[1] == 2, "truncated count %d data %d %d", count, small[0], small[1]);
    } else if (wr == 1) {
        for (int i = 0; i < N; i++)
            big[i] = i;
        MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_OK(EP_Ssend(big, N, MPI_INT, 0, 5, e[0]));
        x = 77;
        CHECK_OK(EP_Send(&x, 1, MPI_INT, 0, 6, d));
        int three[3] = {1, 2, 3};
        CHECK_OK(EP_Send(three, 3, MPI_INT, 0, 7, d));
    }
    free(big);
    CHECK_OK(EP_Comm_free(&d));
    CHECK_OK(EP_Comm_free(&e[0]));
    CHECK_OK(EP_Comm_free(&e[1]));
    int total;
    MPI_Allreduce(&ep_test_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wr == 0)
        printf("direct_progress: %s (%d failures)\n", total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
