/*
 * A message longer than the receive buffer, through every receive path, on a communicator with
 * one endpoint per process (direct mode on Open MPI, src/engine/direct.rs; the engine's path
 * under MPICH): EP_ERR_TRUNCATE, the source and tag in the status, a count of the elements
 * that fit, the buffer's first `count` elements holding the message's first part, and nothing
 * written past them: not in the guard bytes after the buffer, not in the holes of a strided
 * datatype. MPI 4.1 section 3.2.4 lets only the receive buffer's locations change.
 *
 * Each process sends to its right neighbour and receives from its left (2 or 3 processes x 1
 * endpoint). Sizes: an eager message and two that every host sends by rendezvous; receive
 * buffers of half the message and of a few elements; datatypes MPI_INT, a contiguous derived
 * type and a strided one.
 */
#include "ep_test.h"

enum { GUARD_BYTE = 0x5a, HOLE_BYTE = 0x3c };

enum path { P_RECV, P_RECV_ANY, P_IRECV_WAIT, P_IRECV_ANY_TEST, P_MRECV, P_IMRECV, P_SENDRECV, NPATHS };
static const char *path_name[NPATHS] = {"EP_Recv",          "EP_Recv(any source, any tag)",
                                        "EP_Irecv+EP_Wait", "EP_Irecv(any)+EP_Test",
                                        "EP_Mprobe+EP_Mrecv", "EP_Improbe+EP_Imrecv+EP_Wait",
                                        "EP_Sendrecv"};

/* A receive datatype: `ints` ints of data per element at int offsets `at[]`, `extent` ints. */
struct rtype {
    const char *name;
    MPI_Datatype t;
    int ints, extent, at[4];
};

/* Is int `k` of an element's extent a data position? Its index in the element's data if so. */
static int data_index(const struct rtype *rt, int k)
{
    for (int j = 0; j < rt->ints; j++)
        if (rt->at[j] == k)
            return j;
    return -1;
}

static void one_case(EP_Comm d, int left, int right, int tag, enum path p, const struct rtype *rt, int msg_ints,
                     int count)
{
    int *out = malloc(msg_ints * sizeof(int));
    for (int i = 0; i < msg_ints; i++)
        out[i] = 1000 * tag + i + 1;
    size_t span = (size_t)count * rt->extent * sizeof(int);
    size_t guard = (size_t)msg_ints * sizeof(int) + 4096; /* room for the whole message and more */
    unsigned char *in = malloc(span + guard);
    memset(in, HOLE_BYTE, span);
    memset(in + span, GUARD_BYTE, guard);
    EP_Status st;
    st.MPI_SOURCE = st.MPI_TAG = -77;
    EP_Request sr = EP_REQUEST_NULL, rr;
    int rc = EP_SUCCESS, flag = 0;
    if (p != P_SENDRECV)
        CHECK_OK(EP_Isend(out, msg_ints, MPI_INT, right, tag, d, &sr));
    switch (p) {
    case P_RECV:
        rc = EP_Recv(in, count, rt->t, left, tag, d, &st);
        break;
    case P_RECV_ANY:
        rc = EP_Recv(in, count, rt->t, EP_ANY_SOURCE, EP_ANY_TAG, d, &st);
        break;
    case P_IRECV_WAIT:
        CHECK_OK(EP_Irecv(in, count, rt->t, left, tag, d, &rr));
        rc = EP_Wait(&rr, &st);
        break;
    case P_IRECV_ANY_TEST:
        CHECK_OK(EP_Irecv(in, count, rt->t, EP_ANY_SOURCE, EP_ANY_TAG, d, &rr));
        do
            rc = EP_Test(&rr, &flag, &st);
        while (rc == EP_SUCCESS && !flag);
        break;
    case P_MRECV: {
        EP_Message m;
        CHECK_OK(EP_Mprobe(left, tag, d, &m, &st));
        rc = EP_Mrecv(in, count, rt->t, &m, &st);
        break;
    }
    case P_IMRECV: {
        EP_Message m;
        do
            CHECK_OK(EP_Improbe(EP_ANY_SOURCE, tag, d, &flag, &m, &st));
        while (!flag);
        CHECK_OK(EP_Imrecv(in, count, rt->t, &m, &rr));
        rc = EP_Wait(&rr, &st);
        break;
    }
    case P_SENDRECV:
        rc = EP_Sendrecv(out, msg_ints, MPI_INT, right, tag, in, count, rt->t, left, tag, d, &st);
        break;
    default:
        break;
    }
    if (sr != EP_REQUEST_NULL)
        CHECK_OK(EP_Wait(&sr, EP_STATUS_IGNORE));
    const char *what = path_name[p];
    CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "%s, %s, %d ints into %d: class %d", what, rt->name, msg_ints, count,
          ep_class(rc));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == tag, "%s, %s, %d ints: status source %d tag %d", what, rt->name,
          msg_ints, st.MPI_SOURCE, st.MPI_TAG);
    int got = -1;
    CHECK_OK(EP_Get_count(&st, rt->t, &got));
    CHECK(got == count, "%s, %s, %d ints into %d: count %d", what, rt->name, msg_ints, count, got);
    /* The first count elements hold the message's first part; holes keep their bytes. */
    int wrong = 0, holes = 0;
    for (int e = 0; e < count; e++)
        for (int k = 0; k < rt->extent; k++) {
            int v;
            memcpy(&v, in + ((size_t)e * rt->extent + k) * sizeof(int), sizeof v);
            int j = data_index(rt, k);
            if (j >= 0) {
                if (v != out[e * rt->ints + j])
                    wrong++;
            } else {
                unsigned char *b = in + ((size_t)e * rt->extent + k) * sizeof(int);
                for (size_t q = 0; q < sizeof(int); q++)
                    holes += b[q] != HOLE_BYTE;
            }
        }
    size_t past = 0;
    for (size_t i = 0; i < guard; i++)
        if (in[span + i] != GUARD_BYTE)
            past = i + 1;
    CHECK(wrong == 0, "%s, %s, %d ints into %d: %d elements of the first part wrong", what, rt->name, msg_ints,
          count, wrong);
    CHECK(holes == 0, "%s, %s, %d ints into %d: %d bytes written in the datatype's holes", what, rt->name,
          msg_ints, count, holes);
    CHECK(past == 0, "%s, %s, %d ints into %d: written up to %zu bytes past the buffer", what, rt->name, msg_ints,
          count, past);
    free(in);
    free(out);
    /* The next case starts once every process is done with this one (no wildcard receive
     * takes another case's message). */
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
    struct rtype types[3] = {
        {"MPI_INT", MPI_INT, 1, 1, {0}},
        {"contiguous 4 ints", MPI_DATATYPE_NULL, 4, 4, {0, 1, 2, 3}},
        {"strided 2 of 4 ints", MPI_DATATYPE_NULL, 2, 4, {0, 2}},
    };
    MPI_Type_contiguous(4, MPI_INT, &types[1].t);
    MPI_Type_commit(&types[1].t);
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v); /* ints 0 and 2; extent 3 ints, resized to 4 */
    MPI_Type_create_resized(v, 0, 4 * sizeof(int), &types[2].t);
    MPI_Type_commit(&types[2].t);
    MPI_Type_free(&v);
    /* 64 B goes eagerly on every host; 16 KiB and 256 KiB by rendezvous. */
    const int sizes[] = {16, 4096, 65536};
    int tag = 1;
    for (int s = 0; s < 3; s++)
        for (int t = 0; t < 3; t++)
            for (int small = 0; small < 2; small++)
                for (int p = 0; p < NPATHS; p++) {
                    int msg = sizes[s];
                    int count = small ? 1 : msg / 2 / types[t].ints;
                    one_case(d, left, right, tag++, (enum path)p, &types[t], msg, count);
                }
    MPI_Type_free(&types[1].t);
    MPI_Type_free(&types[2].t);
    CHECK_OK(EP_Comm_free(&d));
    return ep_test_finish("direct_truncate", wr);
}
