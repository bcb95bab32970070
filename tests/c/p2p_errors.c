/*
 * Errors belong to the operation they happen in (MPI 4.1 sections 3.7.3 and 9.3), and an
 * operation in flight keeps what the host uses until it is done.
 *
 * Run with EPMPI_TEST_FAULT_TAG=99 against a debug build of the library: the delivery of every
 * message with tag 99 into a receive fails (src/engine/fault.rs), as a host failure while
 * unpacking would. Each endpoint receives from its left neighbour (same process or not):
 *  - t_other_wait: receives A (tag 99) and B (tag 1) are posted; the wait on B delivers both.
 *    B's wait succeeds; A completes with the error and its own wait returns it.
 *  - t_blocking_recv: receive A (tag 99) is posted; a blocking EP_Recv (tag 2) delivers both.
 *    EP_Recv succeeds; A completes with the error (it is removed from the posted queue when
 *    its message arrives, so a lost error would leave its wait hanging: tested with a deadline).
 *  - t_sendrecv: EP_Sendrecv sends a large message (rendezvous: the host or the local peer
 *    reads the sender's buffer only once the receiver matches) and its receive fails. The call
 *    returns the error only after its send completed: the sender then overwrites its buffer,
 *    and the receiver, which receives late on purpose, must still get the original data.
 */
#define _POSIX_C_SOURCE 200809L
#include "ep_test.h"
#include <time.h>

#define FAULT_TAG 99

/* Tests `*r` until it completes or `seconds` pass; returns its code, or -1 on timeout. */
static int test_until(EP_Request *r, EP_Status *st, double seconds)
{
    double t0 = EP_Wtime();
    int flag = 0, rc = EP_SUCCESS;
    while (!flag && EP_Wtime() - t0 < seconds)
        rc = EP_Test(r, &flag, st);
    return flag ? rc : -1;
}

static int is_fault(int rc)
{
    char msg[EP_MAX_ERROR_STRING] = "";
    int len;
    EP_Error_string(rc, msg, &len);
    return ep_class(rc) == EP_ERR_OTHER && strstr(msg, "fault injected") != NULL;
}

static void t_other_wait(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int a = -1, b = -1;
    EP_Request ra, rb;
    EP_Status st;
    CHECK_OK(EP_Irecv(&a, 1, MPI_INT, left, FAULT_TAG, c, &ra));
    CHECK_OK(EP_Irecv(&b, 1, MPI_INT, left, 1, c, &rb));
    ep_test_barrier(c); /* every receive is posted before its message is sent */
    int x = me;
    CHECK_OK(EP_Send(&x, 1, MPI_INT, right, FAULT_TAG, c));
    CHECK_OK(EP_Send(&x, 1, MPI_INT, right, 1, c));
    int rc = EP_Wait(&rb, &st);
    CHECK(rc == EP_SUCCESS && b == left && st.MPI_SOURCE == left,
          "the wait on B returns B's outcome: code %d (class %d), b = %d", rc, ep_class(rc), b);
    if (rc != EP_SUCCESS)
        rc = test_until(&rb, &st, 10.0);
    rc = test_until(&ra, &st, 10.0);
    CHECK(rc != -1, "receive A whose delivery failed never completed");
    CHECK(rc == -1 || is_fault(rc), "A's own completion returns its error: code %d (class %d)", rc, ep_class(rc));
    CHECK(ra == EP_REQUEST_NULL || rc == -1, "A's handle is freed by its completion");
    if (ra != EP_REQUEST_NULL) {
        CHECK_OK(EP_Cancel(&ra));
        CHECK_OK(EP_Request_free(&ra));
    }
}

static void t_blocking_recv(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int a = -1, b = -1;
    EP_Request ra;
    EP_Status st;
    CHECK_OK(EP_Irecv(&a, 1, MPI_INT, left, FAULT_TAG, c, &ra));
    ep_test_barrier(c);
    int x = me;
    CHECK_OK(EP_Send(&x, 1, MPI_INT, right, FAULT_TAG, c));
    CHECK_OK(EP_Send(&x, 1, MPI_INT, right, 2, c));
    int rc = EP_Recv(&b, 1, MPI_INT, left, 2, c, &st);
    CHECK(rc == EP_SUCCESS && b == left, "EP_Recv returns its own outcome: code %d (class %d), b = %d", rc, ep_class(rc), b);
    rc = test_until(&ra, &st, 10.0);
    CHECK(rc != -1, "posted receive whose delivery failed never completed");
    CHECK(rc == -1 || is_fault(rc), "its completion returns its error: code %d (class %d)", rc, ep_class(rc));
    if (ra != EP_REQUEST_NULL) {
        CHECK_OK(EP_Cancel(&ra));
        CHECK_OK(EP_Request_free(&ra));
    }
}

enum { BIG = 1 << 18 }; /* 1 MiB of ints: rendezvous on every transport */

/* Pairs (lower rank sends): `me ^ 1`, or across the halves of the communicator. */
static void t_sendrecv(EP_Comm c, int across)
{
    int me, size;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    int partner = across ? (me + size / 2) % size : (me ^ 1);
    if (partner >= size || size % 2) {
        ep_test_barrier(c);
        return;
    }
    int *big = malloc(BIG * sizeof(int));
    int small = 7;
    if (me < partner) {
        for (int i = 0; i < BIG; i++)
            big[i] = me * 1000 + i % 1000;
        int got = -1;
        int rc = EP_Sendrecv(big, BIG, MPI_INT, partner, 5, &got, 1, MPI_INT, partner, FAULT_TAG, c, EP_STATUS_IGNORE);
        CHECK(is_fault(rc), "EP_Sendrecv returns its receive's error: code %d (class %d)", rc, ep_class(rc));
        for (int i = 0; i < BIG; i++) /* the send is complete: the buffer is ours again */
            big[i] = -1;
    } else {
        CHECK_OK(EP_Send(&small, 1, MPI_INT, partner, FAULT_TAG, c));
        struct timespec late = {0, 300000000};
        nanosleep(&late, NULL); /* receive late: after any early return of the sender */
        CHECK_OK(EP_Recv(big, BIG, MPI_INT, partner, 5, c, EP_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < BIG; i++)
            bad += big[i] != partner * 1000 + i % 1000;
        CHECK(bad == 0, "%d of %d ints received from rank %d differ from what it sent (first %d)", bad, BIG, partner, big[0]);
    }
    free(big);
    ep_test_barrier(c);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    const char *fault = getenv("EPMPI_TEST_FAULT_TAG");
    CHECK(fault && atoi(fault) == FAULT_TAG, "run with EPMPI_TEST_FAULT_TAG=%d", FAULT_TAG);
    int n = ep_test_count_for(wr);
    EP_Comm *comms = malloc((n > 0 ? n : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    if (n > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n)
        {
            EP_Comm c = comms[omp_get_thread_num()];
            CHECK_OK(EP_Comm_set_errhandler(c, EP_ERRORS_RETURN));
            ep_test_barrier(c);
            t_other_wait(c);
            ep_test_barrier(c);
            t_blocking_recv(c);
            ep_test_barrier(c);
            t_sendrecv(c, 0);
            t_sendrecv(c, 1);
            CHECK_OK(EP_Comm_free(&c));
        }
    }
    free(comms);
    return ep_test_finish("p2p_errors", wr);
}
