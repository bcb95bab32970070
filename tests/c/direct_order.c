/*
 * Matching order with several receives pending on one endpoint, on a communicator with one
 * endpoint per process (direct mode on Open MPI, src/engine/direct.rs; the engine's path under
 * MPICH). MPI 4.1 section 3.5: of two pending receives that both match a message, the one posted
 * first gets it, whichever request the program tests first; messages of one sender arrive in the
 * order sent; a probe does not see a message that a pending receive matches.
 *
 * Each process sends to its right neighbour and receives from its left (2 or 3 processes x 1
 * endpoint). Each case ends with a barrier so that no message crosses into the next.
 */
#include "ep_test.h"
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Tests `r` for `seconds`: true if it completed. */
static int completes_within(EP_Request *r, double seconds, EP_Status *st)
{
    int flag = 0;
    double end = now() + seconds;
    while (!flag && now() < end)
        CHECK_OK(EP_Test(r, &flag, st));
    return flag;
}

/* A wildcard receive posted before a specific one gets the one message, even when the
 * specific one is tested first and often; the second message then goes to the specific one. */
static void wildcard_first(EP_Comm d, int left, int right)
{
    int a = -1, b = -1, one = 1, two = 2;
    EP_Request ra, rb;
    EP_Status st;
    CHECK_OK(EP_Irecv(&a, 1, MPI_INT, EP_ANY_SOURCE, EP_ANY_TAG, d, &ra));
    CHECK_OK(EP_Irecv(&b, 1, MPI_INT, left, 5, d, &rb));
    MPI_Barrier(MPI_COMM_WORLD); /* both receives are posted everywhere */
    CHECK_OK(EP_Send(&one, 1, MPI_INT, right, 5, d));
    CHECK(!completes_within(&rb, 0.05, &st), "the specific receive took the message of the earlier wildcard one");
    CHECK(completes_within(&ra, 30, &st) && a == 1 && st.MPI_SOURCE == left && st.MPI_TAG == 5,
          "wildcard receive: %d from %d tag %d", a, st.MPI_SOURCE, st.MPI_TAG);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(EP_Send(&two, 1, MPI_INT, right, 5, d));
    CHECK_OK(EP_Wait(&rb, &st));
    CHECK(b == 2 && st.MPI_SOURCE == left, "specific receive: %d from %d", b, st.MPI_SOURCE);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A pending wildcard receive and then a blocking specific receive: the first message goes to
 * the pending one, the second to the blocking one, for small and large messages. */
static void pending_then_blocking(EP_Comm d, int left, int right)
{
    for (int n = 1; n <= 8192; n *= 8192) {
        int *first = malloc(n * sizeof(int)), *second = malloc(n * sizeof(int));
        int *pa = calloc(n, sizeof(int)), *pb = calloc(n, sizeof(int));
        for (int i = 0; i < n; i++) {
            first[i] = 1;
            second[i] = 2;
        }
        EP_Request ra, s1, s2;
        EP_Status st;
        CHECK_OK(EP_Irecv(pa, n, MPI_INT, EP_ANY_SOURCE, 7, d, &ra));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_OK(EP_Isend(first, n, MPI_INT, right, 7, d, &s1));
        CHECK_OK(EP_Isend(second, n, MPI_INT, right, 7, d, &s2));
        CHECK_OK(EP_Recv(pb, n, MPI_INT, left, 7, d, &st));
        CHECK(pb[0] == 2 && pb[n - 1] == 2 && st.MPI_SOURCE == left, "n=%d: blocking receive got %d", n, pb[0]);
        CHECK_OK(EP_Wait(&ra, &st));
        CHECK(pa[0] == 1 && pa[n - 1] == 1 && st.MPI_SOURCE == left, "n=%d: pending receive got %d", n, pa[0]);
        CHECK_OK(EP_Wait(&s1, EP_STATUS_IGNORE));
        CHECK_OK(EP_Wait(&s2, EP_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        free(first);
        free(second);
        free(pa);
        free(pb);
    }
}

/* A message that a pending receive matches is not seen by a probe, nor taken by a matched
 * probe; the next one is. */
static void probe_behind_pending(EP_Comm d, int left, int right)
{
    int a = -1, one = 1, two = 2, seen = 0, flag;
    EP_Request ra;
    EP_Status st;
    CHECK_OK(EP_Irecv(&a, 1, MPI_INT, EP_ANY_SOURCE, 9, d, &ra));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(EP_Send(&one, 1, MPI_INT, right, 9, d));
    double end = now() + 0.05;
    while (now() < end) {
        CHECK_OK(EP_Iprobe(EP_ANY_SOURCE, 9, d, &flag, &st));
        seen |= flag;
        EP_Message m;
        CHECK_OK(EP_Improbe(left, EP_ANY_TAG, d, &flag, &m, &st));
        if (flag) {
            seen = 2;
            int x;
            CHECK_OK(EP_Mrecv(&x, 1, MPI_INT, &m, EP_STATUS_IGNORE));
        }
    }
    CHECK(seen == 0, "a probe saw (%d) the message of the pending receive", seen);
    CHECK_OK(EP_Wait(&ra, &st));
    CHECK(a == 1, "pending receive got %d", a);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(EP_Send(&two, 1, MPI_INT, right, 9, d));
    EP_Message m;
    int x = -1;
    CHECK_OK(EP_Mprobe(EP_ANY_SOURCE, 9, d, &m, &st));
    CHECK_OK(EP_Mrecv(&x, 1, MPI_INT, &m, &st));
    CHECK(x == 2 && st.MPI_SOURCE == left, "matched probe got %d from %d", x, st.MPI_SOURCE);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Many receives posted in order, wildcard and specific mixed, completed in reverse order:
 * receive i gets message i. Every fourth message is large (rendezvous). */
static void reverse_completion(EP_Comm d, int left, int right)
{
    enum { N = 64, BIG = 4096 };
    int *in = calloc((size_t)N * BIG, sizeof(int)), *out = malloc((size_t)N * BIG * sizeof(int));
    EP_Request rr[N], sr[N];
    for (int i = 0; i < N; i++) {
        int src = i % 2 ? left : EP_ANY_SOURCE, tag = i % 3 ? 11 : EP_ANY_TAG;
        CHECK_OK(EP_Irecv(&in[(size_t)i * BIG], BIG, MPI_INT, src, tag, d, &rr[i]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        int n = i % 4 == 0 ? BIG : 1;
        for (int k = 0; k < n; k++)
            out[(size_t)i * BIG + k] = i;
        CHECK_OK(EP_Isend(&out[(size_t)i * BIG], n, MPI_INT, right, 11, d, &sr[i]));
    }
    int bad = 0;
    for (int i = N - 1; i >= 0; i--) {
        EP_Status st;
        int count = -1;
        CHECK_OK(EP_Wait(&rr[i], &st));
        EP_Get_count(&st, MPI_INT, &count);
        int n = i % 4 == 0 ? BIG : 1;
        if (in[(size_t)i * BIG] != i || in[(size_t)i * BIG + n - 1] != i || count != n || st.MPI_SOURCE != left)
            bad++;
    }
    CHECK(bad == 0, "%d of %d receives got another message than the one their posting order gives", bad, N);
    CHECK_OK(EP_Waitall(N, sr, EP_STATUSES_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    free(in);
    free(out);
}

/* A pending receive is cancelled; the message goes to the next receive. */
static void cancel_pending(EP_Comm d, int left, int right)
{
    int a = -1, b = -1, one = 1, cancelled = 0;
    EP_Request ra, rb;
    EP_Status st;
    CHECK_OK(EP_Irecv(&a, 1, MPI_INT, EP_ANY_SOURCE, 13, d, &ra));
    CHECK_OK(EP_Irecv(&b, 1, MPI_INT, left, 13, d, &rb));
    CHECK_OK(EP_Cancel(&ra));
    CHECK_OK(EP_Wait(&ra, &st));
    CHECK_OK(EP_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "an unmatched receive was not cancelled");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(EP_Send(&one, 1, MPI_INT, right, 13, d));
    CHECK_OK(EP_Wait(&rb, &st));
    CHECK(b == 1 && a == -1, "after the cancel: %d %d", a, b);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    EP_Comm d;
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &d));
    int me, size, left, right;
    ep_test_ring(d, &me, &size, &left, &right);
    wildcard_first(d, left, right);
    pending_then_blocking(d, left, right);
    probe_behind_pending(d, left, right);
    reverse_completion(d, left, right);
    cancel_pending(d, left, right);
    CHECK_OK(EP_Comm_free(&d));
    return ep_test_finish("direct_order", wr);
}
