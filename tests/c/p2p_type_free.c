/*
 * Nonblocking point-to-point whose program frees the datatype while the operation is pending.
 * MPI 4.1 section 5.1.9: freeing a datatype does not affect an operation that uses it, which
 * completes normally. The library unpacks a receive, or copies a same-process send, after the
 * call that started it has returned, so it must not use the program's handle then.
 *
 * Each case frees the program's datatype right after the call, then commits datatypes of other
 * layouts ("decoys") that may take the freed handle's place (an index in MPICH, an address in
 * Open MPI): a library that still used the freed handle would unpack with a decoy's layout,
 * fail, or crash. Cases: EP_Irecv with EP_Isend or EP_Issend (freed on either side or both; a
 * same-process synchronous send is copied by its receiver at every size), truncated receives
 * (EP_Irecv, and EP_Imrecv of a probed message: the part that fits is unpacked once the whole
 * message is in, on every path), and a receive whose request is freed as well; each at 16 bytes
 * (eager), 12 KB (a same-process rendezvous: above the local eager limit, 8 KiB) and 400 KB
 * (rendezvous everywhere). The receive type is a vector of every other int, so that its holes
 * show a wrong layout. Run in every shape: one process, several, one endpoint per process
 * (direct mode on Open MPI).
 */
#include "ep_test.h"
#include "type_decoys.h"
#include <time.h>

enum { TAG = 11 };

/* n ints at every other int of 2n: the receive and send layout of every case. */
static MPI_Datatype every_other_int(int n)
{
    MPI_Datatype t;
    MPI_Type_vector(n, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static int value(int sender, int i) { return sender * 1000003 + i; }

/* The send side's 2n ints: element i of the message at every even position, a mark between. */
static int *strided_out(int me, int n)
{
    int *out = malloc(2 * (size_t)n * sizeof(int));
    for (int i = 0; i < 2 * n; i++)
        out[i] = i % 2 == 0 ? value(me, i / 2) : -5;
    return out;
}

/* Ints of `in` (2n, received with every_other_int) that differ from `left`'s message, holes
 * (which must keep -7) included. */
static int wrong_ints(const int *in, int left, int n)
{
    int bad = 0;
    for (int i = 0; i < 2 * n; i++)
        bad += in[i] != (i % 2 == 0 ? value(left, i / 2) : -7);
    return bad;
}

static int *holes(int n)
{
    int *in = malloc(2 * (size_t)n * sizeof(int));
    for (int i = 0; i < 2 * n; i++)
        in[i] = -7;
    return in;
}

/* EP_Irecv and EP_Isend (EP_Issend when `sync`) on every_other_int, the receive's and/or the
 * send's type freed. */
static void irecv_isend(EP_Comm c, int n, int free_recv, int free_send, int sync)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int *in = holes(n), *out = strided_out(me, n);
    MPI_Datatype rt = every_other_int(n), st = every_other_int(n), decoy[NDECOYS];
    EP_Request r, s;
    CHECK_OK(EP_Irecv(in, 1, rt, left, TAG, c, &r));
    if (free_recv)
        MPI_Type_free(&rt);
    /* The send comes once every receive is posted: a same-process rendezvous then waits in
     * the receiver's posted queue, not in the unexpected one. */
    ep_test_barrier(c);
    CHECK_OK((sync ? EP_Issend : EP_Isend)(out, 1, st, right, TAG, c, &s));
    if (free_send)
        MPI_Type_free(&st);
    make_decoys(decoy);
    EP_Status status;
    CHECK_OK(EP_Wait(&r, &status));
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    int bad = wrong_ints(in, left, n);
    CHECK(bad == 0 && status.MPI_SOURCE == left, "%d ints, types freed: receive %d send %d (sync %d): %d ints wrong, source %d",
          n, free_recv, free_send, sync, bad, status.MPI_SOURCE);
    free_decoys(decoy);
    if (!free_recv)
        MPI_Type_free(&rt);
    if (!free_send)
        MPI_Type_free(&st);
    free(in);
    free(out);
}

/* A message of n contiguous ints into a receive of n / 2 (every other int of n), its type freed:
 * EP_Irecv, or EP_Imrecv of the message taken by EP_Improbe when `matched`. The receive ends
 * with EP_ERR_TRUNCATE and the first n / 2 ints in place. */
static void truncated(EP_Comm c, int n, int matched)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int half = n / 2, *in = holes(half), *out = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        out[i] = value(me, i);
    MPI_Datatype rt = every_other_int(half), decoy[NDECOYS];
    EP_Request s, r;
    EP_Status status;
    if (!matched) {
        CHECK_OK(EP_Irecv(in, 1, rt, left, TAG + 1, c, &r));
        MPI_Type_free(&rt);
        make_decoys(decoy);
        ep_test_barrier(c);
    }
    CHECK_OK(EP_Isend(out, n, MPI_INT, right, TAG + 1, c, &s));
    if (matched) {
        int flag = 0;
        EP_Message m;
        while (!flag)
            CHECK_OK(EP_Improbe(left, TAG + 1, c, &flag, &m, &status));
        CHECK_OK(EP_Imrecv(in, 1, rt, &m, &r));
        MPI_Type_free(&rt);
        make_decoys(decoy);
    }
    int rc = EP_Wait(&r, &status);
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    int bad = wrong_ints(in, left, half);
    CHECK(ep_class(rc) == EP_ERR_TRUNCATE && bad == 0, "%d ints into %d, %s, type freed: class %d, %d ints wrong", n, half,
          matched ? "matched receive" : "receive", ep_class(rc), bad);
    free_decoys(decoy);
    free(in);
    free(out);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* EP_Irecv whose type and request are both freed before its message comes: the receive still
 * completes into the buffer (MPI 4.1 section 3.7.3), seen once a later message from the same
 * sender has arrived (non-overtaking) and the data is in (the library's progress, which probes
 * make). */
static void freed_request(EP_Comm c, int n)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int *in = holes(n), *out = strided_out(me, n);
    MPI_Datatype rt = every_other_int(n), st = every_other_int(n), decoy[NDECOYS];
    EP_Request r;
    CHECK_OK(EP_Irecv(in, 1, rt, left, TAG + 2, c, &r));
    MPI_Type_free(&rt);
    CHECK_OK(EP_Request_free(&r));
    make_decoys(decoy);
    ep_test_barrier(c);
    EP_Request s;
    CHECK_OK(EP_Isend(out, 1, st, right, TAG + 2, c, &s));
    int after = me, got = -1, flag;
    CHECK_OK(EP_Sendrecv(&after, 1, MPI_INT, right, TAG + 3, &got, 1, MPI_INT, left, TAG + 3, c, EP_STATUS_IGNORE));
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    /* Probes make the library's progress; 30 s is far beyond any completion. */
    for (double t0 = seconds(); wrong_ints(in, left, n) != 0 && seconds() - t0 < 30;)
        CHECK_OK(EP_Iprobe(left, TAG + 4, c, &flag, EP_STATUS_IGNORE));
    int bad = wrong_ints(in, left, n);
    CHECK(bad == 0 && got == left, "%d ints, freed receive with its type freed: %d ints wrong", n, bad);
    ep_test_barrier(c);
    free_decoys(decoy);
    MPI_Type_free(&st);
    /* A receive that has not completed may still write into its buffer: kept then. */
    if (bad == 0)
        free(in);
    free(out);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n_ep = ep_test_count_for(wr);
    EP_Comm *comms = malloc((n_ep > 0 ? n_ep : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n_ep, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    if (n_ep > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n_ep)
        {
            EP_Comm c = comms[omp_get_thread_num()];
            /* Truncation is checked by its error class. */
            CHECK_OK(EP_Comm_set_errhandler(c, EP_ERRORS_RETURN));
            /* 16 bytes (eager), 12 KB (same-process rendezvous), 400 KB (rendezvous). */
            static const int counts[] = {4, 3000, 100000};
            for (int k = 0; k < 3; k++) {
                for (int f = 0; f < 8; f++) {
                    irecv_isend(c, counts[k], f & 1, (f >> 1) & 1, f >> 2);
                    ep_test_barrier(c);
                }
                for (int matched = 0; matched < 2; matched++) {
                    truncated(c, counts[k], matched);
                    ep_test_barrier(c);
                }
                freed_request(c, counts[k]);
                ep_test_barrier(c);
            }
            CHECK_OK(EP_Comm_free(&c));
        }
    }
    free(comms);
    return ep_test_finish("p2p_type_free", wr);
}
