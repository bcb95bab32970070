/*
 * Progress does not depend on the OS thread that posted a receive (MPI 4.1 section 3.5), on
 * 2 processes, two endpoint communicators A and B with 2 endpoints per process (the engine's
 * path on every host).
 *
 *  - t_posted_by_a_finished_thread: on process 0 a thread posts a receive on A and ends; then
 *    another thread blocks in a receive on B. Process 1 sends synchronously on A, which
 *    completes only once process 0 has matched it, and only then sends on B. The only call
 *    running on process 0 is the receive on B: it must progress A's receive, posted by a
 *    thread that is gone, or both processes wait for each other forever (the deadline of the
 *    harness fails the test).
 *  - t_waited_by_another_thread: a receive posted by one thread and waited on by another while
 *    the poster is blocked on a different endpoint completes.
 */
#include "ep_test.h"
#include <pthread.h>

enum { N = 1 << 16 }; /* 256 KiB: rendezvous on every host */

static EP_Comm A, B;
static EP_Request posted;
static int *big;

static void *post_on_a(void *arg)
{
    (void)arg;
    CHECK_OK(EP_Irecv(big, N, MPI_INT, 2, 5, A, &posted)); /* rank 2: process 1's first endpoint */
    return NULL;
}

static void t_posted_by_a_finished_thread(int wr)
{
    int x = 0;
    if (wr == 0) {
        for (int i = 0; i < N; i++)
            big[i] = -1;
        pthread_t t;
        pthread_create(&t, NULL, post_on_a, NULL);
        pthread_join(t, NULL);
        /* Only now may process 1 send: its message arrives while this thread waits on B. */
        MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
        EP_Status st;
        CHECK_OK(EP_Recv(&x, 1, MPI_INT, 2, 6, B, &st));
        CHECK(x == 77, "receive on B: %d", x);
        CHECK_OK(EP_Wait(&posted, &st));
        CHECK(st.MPI_SOURCE == 2 && big[0] == 0 && big[N - 1] == N - 1, "receive on A: source %d, %d .. %d",
              st.MPI_SOURCE, big[0], big[N - 1]);
    } else if (wr == 1) {
        for (int i = 0; i < N; i++)
            big[i] = i;
        MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_OK(EP_Ssend(big, N, MPI_INT, 0, 5, A));
        x = 77;
        CHECK_OK(EP_Send(&x, 1, MPI_INT, 0, 6, B));
    }
}

static volatile int waited = 0;

static void *wait_posted(void *arg)
{
    (void)arg;
    EP_Status st;
    CHECK_OK(EP_Wait(&posted, &st));
    CHECK(st.MPI_SOURCE == 2 && big[0] == 0 && big[N - 1] == N - 1, "receive on A waited by another thread: source %d",
          st.MPI_SOURCE);
    __atomic_store_n(&waited, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void t_waited_by_another_thread(int wr)
{
    int x = 0;
    if (wr == 0) {
        for (int i = 0; i < N; i++)
            big[i] = -1;
        CHECK_OK(EP_Irecv(big, N, MPI_INT, 2, 7, A, &posted));
        pthread_t t;
        pthread_create(&t, NULL, wait_posted, NULL);
        MPI_Send(&x, 1, MPI_INT, 1, 98, MPI_COMM_WORLD);
        /* Blocked on B until process 1 has seen its send on A complete. */
        CHECK_OK(EP_Recv(&x, 1, MPI_INT, 2, 8, B, EP_STATUS_IGNORE));
        pthread_join(t, NULL);
        CHECK(waited == 1 && x == 78, "waited %d, receive on B %d", waited, x);
    } else if (wr == 1) {
        for (int i = 0; i < N; i++)
            big[i] = i;
        MPI_Recv(&x, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_OK(EP_Ssend(big, N, MPI_INT, 0, 7, A));
        x = 78;
        CHECK_OK(EP_Send(&x, 1, MPI_INT, 0, 8, B));
    }
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    EP_Comm a[2], b[2];
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 2, MPI_INFO_NULL, a));
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 2, MPI_INFO_NULL, b));
    A = a[0];
    B = b[0];
    big = malloc(N * sizeof(int));
    t_posted_by_a_finished_thread(wr);
    MPI_Barrier(MPI_COMM_WORLD);
    t_waited_by_another_thread(wr);
    free(big);
    for (int i = 0; i < 2; i++) {
        CHECK_OK(EP_Comm_free(&a[i]));
        CHECK_OK(EP_Comm_free(&b[i]));
    }
    return ep_test_finish("progress_threads", wr);
}
