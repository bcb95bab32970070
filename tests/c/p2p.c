/*
 * Point-to-point on an endpoints communicator made by the array form: every call of the
 * core issue, with outcomes checked (data, order, ranks, statuses, error codes). Run under
 * mpirun in several shapes (EPMPI_TEST_EPS); a process may have zero endpoints.
 */
#include "ep_test.h"

static void t_queries(EP_Comm c, int world_rank, int index, int count)
{
    int me, size, li, lc, pr, flag, cmp, *val;
    CHECK_OK(EP_Comm_rank(c, &me));
    CHECK_OK(EP_Comm_size(c, &size));
    CHECK(me == ep_test_expected_rank(world_rank, index), "rank %d", me);
    CHECK_OK(EP_Comm_local_info(c, &li, &lc, &pr));
    CHECK(li == index && lc == count, "local info %d %d", li, lc);
    flag = 0;
    CHECK_OK(EP_Comm_get_attr(c, EP_TAG_UB, &val, &flag));
    CHECK(flag == 1 && *val == 2147483647, "tag ub %d", flag ? *val : -1);
    flag = 0;
    CHECK_OK(EP_Comm_get_attr(c, EP_COMM_FLAVOR, &val, &flag));
    CHECK(flag == 1 && *val == EP_FLAVOR_ENDPOINTS, "flavor");
    CHECK(EP_Comm_get_attr(c, 12345, &val, &flag) != EP_SUCCESS, "unknown key accepted");
    CHECK_OK(EP_Comm_test_inter(c, &flag));
    CHECK(flag == 0, "intracomm reported inter");
    int rsize = -1;
    CHECK(ep_class(EP_Comm_remote_size(c, &rsize)) == EP_ERR_COMM, "remote size of an intracommunicator");
    char version[EP_MAX_ERROR_STRING];
    int vlen = 0;
    CHECK_OK(EP_Get_library_version(version, &vlen));
    CHECK(strncmp(version, "EPMPI ", 6) == 0 && vlen == (int)strlen(version), "version '%s'", version);
    double t0 = EP_Wtime(), t1 = t0;
    while (t1 == t0)
        t1 = EP_Wtime();
    CHECK(t1 > t0 && t1 - t0 < 1.0, "EP_Wtime %g then %g", t0, t1);
    CHECK_OK(EP_Comm_compare(c, c, &cmp));
    CHECK(cmp == EP_IDENT, "compare self %d", cmp);

    EP_Comm d;
    CHECK_OK(EP_Comm_dup(c, &d));
    int drank;
    CHECK_OK(EP_Comm_rank(d, &drank));
    CHECK(drank == me, "dup rank %d != %d", drank, me);
    CHECK_OK(EP_Comm_compare(c, d, &cmp));
    CHECK(cmp == EP_CONGRUENT, "compare dup %d", cmp);
    /* Contexts differ: a message on the dup is not received on the original. */
    int right = (me + 1) % size, left = (me - 1 + size) % size, x = me, y = -1;
    CHECK_OK(EP_Send(&x, 1, MPI_INT, right, 5, d));
    CHECK_OK(EP_Send(&x, 1, MPI_INT, right, 5, c));
    EP_Status st;
    CHECK_OK(EP_Recv(&y, 1, MPI_INT, EP_ANY_SOURCE, EP_ANY_TAG, c, &st));
    CHECK(y == left && st.MPI_SOURCE == left, "original comm got %d", y);
    CHECK_OK(EP_Recv(&y, 1, MPI_INT, left, 5, d, &st));
    CHECK(y == left, "dup got %d", y);
    ep_test_barrier(d);
    CHECK_OK(EP_Comm_free(&d));
    CHECK(d == EP_COMM_NULL, "free did not null the handle");
}

/* Every endpoint sends to every endpoint (itself included) with Isend; receives by exact
 * source with Irecv, then the same with EP_ANY_SOURCE. */
static void t_all_pairs(EP_Comm c)
{
    int me, size;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    int *out = malloc(2 * size * sizeof(int)), *in = malloc(2 * size * sizeof(int));
    EP_Request *rq = malloc(2 * size * sizeof(EP_Request));
    for (int round = 0; round < 2; round++) {
        for (int d = 0; d < size; d++) {
            out[2 * d] = me;
            out[2 * d + 1] = d * 1000 + round;
            CHECK_OK(EP_Isend(&out[2 * d], 2, MPI_INT, d, 7 + round, c, &rq[d]));
        }
        for (int s = 0; s < size; s++)
            CHECK_OK(EP_Irecv(&in[2 * s], 2, MPI_INT, round == 0 ? s : EP_ANY_SOURCE, 7 + round, c, &rq[size + s]));
        EP_Status *st = malloc(2 * size * sizeof(EP_Status));
        CHECK_OK(EP_Waitall(2 * size, rq, st));
        int *seen = calloc(size, sizeof(int));
        for (int s = 0; s < size; s++) {
            int src = in[2 * s];
            CHECK(src >= 0 && src < size, "bad source payload %d", src);
            if (src < 0 || src >= size)
                continue;
            seen[src]++;
            CHECK(in[2 * s + 1] == me * 1000 + round, "payload %d", in[2 * s + 1]);
            CHECK(st[size + s].MPI_SOURCE == src && st[size + s].MPI_TAG == 7 + round, "status %d/%d",
                  st[size + s].MPI_SOURCE, st[size + s].MPI_TAG);
            if (round == 0)
                CHECK(src == s, "exact source %d got %d", s, src);
            CHECK(rq[size + s] == EP_REQUEST_NULL, "request not nulled");
        }
        for (int s = 0; s < size; s++)
            CHECK(seen[s] == 1, "source %d seen %d times", s, seen[s]);
        free(seen);
        free(st);
    }
    free(out);
    free(in);
    free(rq);
}

/* 10,000 messages from each endpoint to its right neighbour with three tags, received with
 * EP_ANY_TAG and with a specific tag: order per (source, destination) must hold. */
static void t_non_overtaking(EP_Comm c)
{
    enum { N = 10000 };
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int *seq = malloc(N * sizeof(int));
    EP_Request *rq = malloc(N * sizeof(EP_Request));
    for (int i = 0; i < N; i++) {
        seq[i] = i;
        CHECK_OK(EP_Isend(&seq[i], 1, MPI_INT, right, 100 + i % 3, c, &rq[i]));
    }
    /* First receive everything of tag 101 in order, then the rest with EP_ANY_TAG. */
    int last = -1, v, bad = 0;
    EP_Status st;
    for (int i = 1; i < N; i += 3) {
        EP_Recv(&v, 1, MPI_INT, left, 101, c, &st);
        if (v <= last || v % 3 != 1)
            bad++;
        last = v;
    }
    CHECK(bad == 0, "tag-101 stream out of order (%d)", bad);
    last = -1;
    bad = 0;
    for (int i = 0; i < N; i++) {
        if (i % 3 == 1)
            continue;
        EP_Recv(&v, 1, MPI_INT, left, EP_ANY_TAG, c, &st);
        if (v <= last || st.MPI_TAG != 100 + v % 3)
            bad++;
        last = v;
    }
    CHECK(bad == 0, "any-tag stream out of order (%d)", bad);
    CHECK_OK(EP_Waitall(N, rq, EP_STATUSES_IGNORE));
    free(seq);
    free(rq);
}

/* Rank 0 receives one message from every other endpoint with EP_ANY_SOURCE: sources on the
 * same process and on others mix in one queue. Each sender sends 3 in sequence. */
static void t_wildcard_mixed(EP_Comm c)
{
    int me, size;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    if (me == 0) {
        int *next = calloc(size, sizeof(int));
        for (int i = 0; i < 3 * (size - 1); i++) {
            int v[2];
            EP_Status st;
            int cnt;
            CHECK_OK(EP_Recv(v, 2, MPI_INT, EP_ANY_SOURCE, EP_ANY_TAG, c, &st));
            CHECK_OK(EP_Get_count(&st, MPI_INT, &cnt));
            CHECK(cnt == 2 && v[0] == st.MPI_SOURCE && st.MPI_TAG == 40 + v[1], "wildcard msg %d %d", v[0], v[1]);
            if (v[0] > 0 && v[0] < size) {
                CHECK(v[1] == next[v[0]], "source %d order: %d after %d", v[0], v[1], next[v[0]]);
                next[v[0]] = v[1] + 1;
            }
        }
        for (int s = 1; s < size; s++)
            CHECK(next[s] == 3, "source %d delivered %d", s, next[s]);
        free(next);
    } else {
        for (int k = 0; k < 3; k++) {
            int v[2] = {me, k};
            CHECK_OK(EP_Send(v, 2, MPI_INT, 0, 40 + k, c));
        }
    }
}

/* Probe, then receive what was probed; Iprobe loop; Mprobe/Mrecv; Improbe/Imrecv. */
static void t_probes(EP_Comm parent)
{
    int me, size, left, right;
    ep_test_ring(parent, &me, &size, &left, &right);
    for (int mode = 0; mode < 4; mode++) {
        /* A communicator per mode: the wildcard probes of one mode see only its message. */
        EP_Comm c;
        CHECK_OK(EP_Comm_dup(parent, &c));
        int n = 3 + me + mode; /* length depends on the sender */
        double *out = malloc(n * sizeof(double));
        for (int i = 0; i < n; i++)
            out[i] = me + i * 0.5;
        EP_Request sr;
        CHECK_OK(EP_Isend(out, n, MPI_DOUBLE, right, 60 + mode, c, &sr));
        EP_Status st;
        int cnt = -1, flag = 0;
        double *in = NULL;
        if (mode == 0) {
            CHECK_OK(EP_Probe(EP_ANY_SOURCE, 60, c, &st));
        } else if (mode == 1) {
            while (!flag)
                CHECK_OK(EP_Iprobe(left, EP_ANY_TAG, c, &flag, &st));
        }
        if (mode <= 1) {
            CHECK_OK(EP_Get_count(&st, MPI_DOUBLE, &cnt));
            CHECK(st.MPI_SOURCE == left && cnt == 3 + left + mode, "probe src %d cnt %d", st.MPI_SOURCE, cnt);
            in = malloc(cnt * sizeof(double));
            CHECK_OK(EP_Recv(in, cnt, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, c, &st));
        } else {
            EP_Message m = EP_MESSAGE_NULL;
            if (mode == 2) {
                CHECK_OK(EP_Mprobe(EP_ANY_SOURCE, EP_ANY_TAG, c, &m, &st));
            } else {
                while (!flag)
                    CHECK_OK(EP_Improbe(left, 63, c, &flag, &m, &st));
            }
            CHECK_OK(EP_Get_count(&st, MPI_DOUBLE, &cnt));
            CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 60 + mode && cnt == 3 + left + mode, "mprobe %d %d", st.MPI_SOURCE, cnt);
            in = malloc(cnt * sizeof(double));
            if (mode == 2) {
                CHECK_OK(EP_Mrecv(in, cnt, MPI_DOUBLE, &m, &st));
            } else {
                EP_Request r;
                CHECK_OK(EP_Imrecv(in, cnt, MPI_DOUBLE, &m, &r));
                CHECK_OK(EP_Wait(&r, &st));
            }
            CHECK(m == EP_MESSAGE_NULL, "message handle not nulled");
            /* A received message handle is invalid afterwards. */
        }
        for (int i = 0; i < cnt; i++)
            CHECK(in[i] == left + i * 0.5, "probe data[%d] %g", i, in[i]);
        CHECK_OK(EP_Wait(&sr, EP_STATUS_IGNORE));
        free(in);
        free(out);
        CHECK_OK(EP_Comm_free(&c));
    }
}

/* Messages above the eager limits (rendezvous, single copy), blocking and not, contiguous and
 * derived datatypes, to the right neighbour (same process or not, depending on shape). */
static void t_large(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    const int n = 1 << 18; /* 1 MiB of int */
    int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        out[i] = me * 7 + i;
    EP_Request rr, sr;
    CHECK_OK(EP_Irecv(in, n, MPI_INT, left, 80, c, &rr));
    CHECK_OK(EP_Isend(out, n, MPI_INT, right, 80, c, &sr));
    CHECK_OK(EP_Wait(&sr, EP_STATUS_IGNORE));
    EP_Status st;
    CHECK_OK(EP_Wait(&rr, &st));
    int bad = 0, cnt;
    for (int i = 0; i < n; i++)
        bad += in[i] != left * 7 + i;
    CHECK(bad == 0, "large nonblocking: %d wrong", bad);
    CHECK_OK(EP_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == n, "large count %d", cnt);

    /* Blocking Sendrecv of a large message: the receive is posted before the send waits. */
    memset(in, 0, n * sizeof(int));
    CHECK_OK(EP_Sendrecv(out, n, MPI_INT, right, 81, in, n, MPI_INT, left, 81, c, &st));
    bad = 0;
    for (int i = 0; i < n; i++)
        bad += in[i] != left * 7 + i;
    CHECK(bad == 0, "large sendrecv: %d wrong", bad);

    /* Derived datatype: every other int of `out` (a vector), received contiguously, for a
     * small (eager) and a large (rendezvous) count. */
    MPI_Datatype every_other;
    MPI_Type_vector(n / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Datatype pair_stride;
    MPI_Type_vector(4, 1, 2, MPI_INT, &pair_stride);
    MPI_Type_commit(&pair_stride);
    memset(in, 0, n * sizeof(int));
    CHECK_OK(EP_Irecv(in, n / 2, MPI_INT, left, 82, c, &rr));
    CHECK_OK(EP_Send(out, 1, every_other, right, 82, c));
    CHECK_OK(EP_Wait(&rr, &st));
    bad = 0;
    for (int i = 0; i < n / 2; i++)
        bad += in[i] != left * 7 + 2 * i;
    CHECK(bad == 0, "vector large: %d wrong", bad);
    int small_in[8] = {0};
    CHECK_OK(EP_Irecv(small_in, 1, pair_stride, left, 83, c, &rr)); /* strided receive */
    CHECK_OK(EP_Send(out, 4, MPI_INT, right, 83, c));
    CHECK_OK(EP_Wait(&rr, &st));
    CHECK(small_in[0] == left * 7 && small_in[2] == left * 7 + 1 && small_in[6] == left * 7 + 3 && small_in[1] == 0,
          "vector small recv %d %d %d", small_in[0], small_in[2], small_in[6]);
    /* The same into a blocking receive, which takes a small message on the way (from a
     * local sender: straight from its channel cell, unpacked into the strided buffer). */
    memset(small_in, 0, sizeof small_in);
    CHECK_OK(EP_Send(out, 4, MPI_INT, right, 84, c));
    CHECK_OK(EP_Recv(small_in, 1, pair_stride, left, 84, c, &st));
    CHECK(small_in[0] == left * 7 && small_in[2] == left * 7 + 1 && small_in[4] == left * 7 + 2 &&
              small_in[6] == left * 7 + 3 && small_in[1] == 0 && small_in[3] == 0,
          "vector small blocking recv %d %d %d %d", small_in[0], small_in[2], small_in[4], small_in[6]);
    MPI_Type_free(&every_other);
    MPI_Type_free(&pair_stride);
    free(out);
    free(in);
}

/* Same-process standard sends of eager size complete whether or not their receive is
 * posted (MPI leaves this buffering to the implementation; EPMPI packs a copy up to 8 KiB):
 * each endpoint sends to the next endpoint of its process twice, with blocking sends, before
 * it receives anything (a ring that only buffering keeps from deadlocking), at the sizes
 * around the eager path's limits (33 B: just above the inline cell; 8 KiB: the largest eager
 * size). The sender overwrites its buffer as soon as each send returns, so a receiver that
 * read it late would get the wrong data. Then a 4 KiB send whose request is freed at once,
 * its buffer overwritten after a barrier: the receiver, which posts only after it, must get
 * what the buffer held at the send (the copy was made at the send). Processes with one
 * endpoint take part in the barriers only: between processes the host decides. */
static void t_late_receiver(EP_Comm c)
{
    int me, index, count;
    CHECK_OK(EP_Comm_rank(c, &me));
    CHECK_OK(EP_Comm_local_info(c, &index, &count, NULL));
    if (count < 2) {
        ep_test_barrier(c);
        ep_test_barrier(c);
        return;
    }
    /* Ranks follow (process, index), so the process's endpoints are consecutive. */
    int right = me - index + (index + 1) % count, left = me - index + (index + count - 1) % count;
    const int sizes[] = {33, 1024, 4096, 8192};
    for (int k = 0; k < 4; k++) {
        int n = sizes[k];
        unsigned char *out = malloc(n), *in = malloc(2 * n);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < n; i++)
                out[i] = (unsigned char)(me * 31 + round * 7 + i);
            CHECK_OK(EP_Send(out, n, MPI_BYTE, right, 90 + k, c));
        }
        memset(out, 0xEE, n);
        EP_Status st;
        for (int round = 0; round < 2; round++) {
            CHECK_OK(EP_Recv(in + round * n, n, MPI_BYTE, left, 90 + k, c, &st));
            int bad = 0;
            for (int i = 0; i < n; i++)
                bad += in[round * n + i] != (unsigned char)(left * 31 + round * 7 + i);
            CHECK(bad == 0 && st.MPI_SOURCE == left, "%d B, send %d before its receive: %d bytes wrong", n, round, bad);
        }
        free(out);
        free(in);
    }

    int out[1024], in[1024];
    for (int i = 0; i < 1024; i++)
        out[i] = me * 1000 + i;
    EP_Request sr;
    CHECK_OK(EP_Isend(out, 1024, MPI_INT, right, 95, c, &sr));
    CHECK_OK(EP_Request_free(&sr));
    ep_test_barrier(c);
    for (int i = 0; i < 1024; i++)
        out[i] = -1;
    CHECK_OK(EP_Recv(in, 1024, MPI_INT, left, 95, c, EP_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < 1024; i++)
        bad += in[i] != left * 1000 + i;
    CHECK(bad == 0, "freed send of 4 KiB: %d ints wrong", bad);
    ep_test_barrier(c);
}

/* Synchronous mode: an Issend cannot complete before the receiver has started the receive;
 * the receiver starts it only after a separate "go" message. */
static void t_ssend(EP_Comm c)
{
    int me, size;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    if (size < 2)
        return;
    int right = (me + 1) % size, left = (me - 1 + size) % size;
    int x = me, y = -1, go = 1, flag = 1;
    EP_Request r;
    CHECK_OK(EP_Issend(&x, 1, MPI_INT, right, 90, c, &r));
    for (int i = 0; i < 200; i++) {
        CHECK_OK(EP_Test(&r, &flag, EP_STATUS_IGNORE));
        if (flag)
            break;
    }
    CHECK(flag == 0, "Issend completed before the receive started");
    CHECK_OK(EP_Send(&go, 1, MPI_INT, right, 91, c));
    CHECK_OK(EP_Recv(&go, 1, MPI_INT, left, 91, c, EP_STATUS_IGNORE));
    CHECK_OK(EP_Recv(&y, 1, MPI_INT, left, 90, c, EP_STATUS_IGNORE));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
    CHECK(y == left, "ssend data %d", y);
    /* Blocking Ssend against a posted receive. */
    EP_Request rr;
    CHECK_OK(EP_Irecv(&y, 1, MPI_INT, left, 92, c, &rr));
    ep_test_barrier(c);
    CHECK_OK(EP_Ssend(&x, 1, MPI_INT, right, 92, c));
    CHECK_OK(EP_Wait(&rr, EP_STATUS_IGNORE));
    CHECK(y == left, "blocking ssend data %d", y);
}

/* Cancel of an unmatched receive; request free of an active send and receive. */
static void t_cancel_free(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int y = -1, flag = -1;
    EP_Request r;
    EP_Status st;
    CHECK_OK(EP_Irecv(&y, 1, MPI_INT, EP_ANY_SOURCE, 12345, c, &r));
    CHECK_OK(EP_Cancel(&r));
    CHECK_OK(EP_Wait(&r, &st));
    CHECK_OK(EP_Test_cancelled(&st, &flag));
    CHECK(flag == 1 && y == -1, "receive not cancelled (flag %d, y %d)", flag, y);

    /* A matched receive is not cancelled. */
    int x = me;
    CHECK_OK(EP_Send(&x, 1, MPI_INT, me, 13, c));
    CHECK_OK(EP_Irecv(&y, 1, MPI_INT, me, 13, c, &r));
    CHECK_OK(EP_Cancel(&r));
    CHECK_OK(EP_Wait(&r, &st));
    CHECK_OK(EP_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && y == me, "matched receive cancelled");

    /* Freed active requests still complete: the data arrives. */
    int *big_out = malloc(100000 * sizeof(int));
    int *big_in = calloc(100000, sizeof(int));
    for (int i = 0; i < 100000; i++)
        big_out[i] = i;
    EP_Request sr;
    CHECK_OK(EP_Isend(&x, 1, MPI_INT, right, 14, c, &sr));
    CHECK_OK(EP_Request_free(&sr));
    CHECK(sr == EP_REQUEST_NULL, "freed request not nulled");
    CHECK_OK(EP_Recv(&y, 1, MPI_INT, left, 14, c, EP_STATUS_IGNORE));
    CHECK(y == left, "data of freed send %d", y);
    CHECK_OK(EP_Irecv(big_in, 100000, MPI_INT, left, 15, c, &r));
    CHECK_OK(EP_Request_free(&r));
    CHECK_OK(EP_Send(big_out, 100000, MPI_INT, right, 15, c));
    ep_test_barrier(c);
    /* The freed receive completes through progress; poll until the data is there. */
    int tries = 0;
    while (big_in[99999] != 99999 && tries++ < 1000000) {
        int f;
        EP_Iprobe(EP_ANY_SOURCE, 16, c, &f, EP_STATUS_IGNORE); /* progresses the endpoint */
        #pragma omp flush
    }
    CHECK(big_in[0] == 0 && big_in[99999] == 99999, "freed receive data %d", big_in[99999]);
    free(big_in);
    ep_test_barrier(c);
    free(big_out);
}

/* A communicator freed while requests freed active on it are not complete yet (MPI 4.1
 * section 6.4.3: the communicator goes once its pending operations complete): large and
 * synchronous sends whose requests are freed at once, the communicator freed right after the
 * matching receives, with no further call on it. Nothing may stay behind (the leak check of
 * ep_test_finish): the engine once kept such requests, and with them the communicator and
 * its host communicators, forever. */
static void t_free_comm_with_freed_requests(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    EP_Comm d;
    CHECK_OK(EP_Comm_dup(c, &d));
    enum { N = 50000 };
    int *out = malloc(N * sizeof(int)), *in = calloc(N, sizeof(int));
    for (int i = 0; i < N; i++)
        out[i] = me + i;
    int x = me, y = -1;
    EP_Request r1, r2;
    CHECK_OK(EP_Isend(out, N, MPI_INT, right, 1, d, &r1));
    CHECK_OK(EP_Request_free(&r1));
    CHECK_OK(EP_Issend(&x, 1, MPI_INT, right, 2, d, &r2));
    CHECK_OK(EP_Request_free(&r2));
    CHECK_OK(EP_Recv(in, N, MPI_INT, left, 1, d, EP_STATUS_IGNORE));
    CHECK_OK(EP_Recv(&y, 1, MPI_INT, left, 2, d, EP_STATUS_IGNORE));
    CHECK(in[N - 1] == left + N - 1 && y == left, "data of freed sends: %d %d", in[N - 1], y);
    CHECK_OK(EP_Comm_free(&d));
    /* The send buffer may be reused once the receiver has the data (the barrier). */
    ep_test_barrier(c);
    free(out);
    free(in);
}

/* A message longer than the receive buffer: EP_ERR_TRUNCATE, status filled, the buffer holds
 * the first part, and the next message is unaffected. Small (eager) and large. */
static void t_truncate(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    for (int n = 10; n <= 100000; n *= 100) {
        int *out = malloc(n * sizeof(int)), *in = calloc(n, sizeof(int));
        for (int i = 0; i < n; i++)
            out[i] = i + 1;
        EP_Request sr;
        CHECK_OK(EP_Isend(out, n, MPI_INT, right, 20, c, &sr));
        EP_Status st;
        int rc = EP_Recv(in, n / 2, MPI_INT, left, 20, c, &st);
        CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "n=%d truncation gave class %d", n, ep_class(rc));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 20, "truncated status %d %d", st.MPI_SOURCE, st.MPI_TAG);
        /* The first part, and nothing past it, on every path (direct mode included). */
        CHECK(in[0] == 1 && in[n / 2 - 1] == n / 2 && in[n / 2] == 0, "truncated data");
        char msg[EP_MAX_ERROR_STRING];
        int len;
        CHECK_OK(EP_Error_string(rc, msg, &len));
        CHECK(strstr(msg, "EP_Recv") && strstr(msg, "truncated"), "message '%s'", msg);
        CHECK_OK(EP_Wait(&sr, EP_STATUS_IGNORE));
        /* Nonblocking: the error comes from the completion call. */
        EP_Request rr;
        CHECK_OK(EP_Isend(out, n, MPI_INT, right, 21, c, &sr));
        CHECK_OK(EP_Irecv(in, n - 1, MPI_INT, left, 21, c, &rr));
        rc = EP_Wait(&rr, &st);
        CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "nonblocking truncation class %d", ep_class(rc));
        CHECK_OK(EP_Wait(&sr, EP_STATUS_IGNORE));
        free(out);
        free(in);
    }
}

/* Blocking receives whose sender comes while they wait (the local sender may then copy
 * straight into the receive's buffer): sizes on both sides of the thresholds (inline, landing,
 * eager, rendezvous), two tags, any tag, receive buffers larger than the messages, and
 * synchronous sends. Each message carries its number and the bytes it must have; the receive
 * checks the order, the status, the count, and that nothing past the message changed. */
static void t_waiting_receivers(EP_Comm c)
{
    enum { ROUNDS = 600, MAX = 16385 + 64 };
    static const int sizes[] = {8, 1024, 1025, 2048, 4096, 8192, 8193, 12288, 16384, 16385, 40, 3000};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    unsigned char *out = malloc((size_t)ROUNDS * MAX), *in = malloc(MAX);
    EP_Request *rq = malloc(ROUNDS * sizeof(EP_Request));
    int bad_data = 0, bad_status = 0, bad_past = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int n = sizes[i % nsizes];
        unsigned char *m = out + (size_t)i * MAX;
        memcpy(m, &i, sizeof i);
        for (int b = (int)sizeof i; b < n; b++)
            m[b] = (unsigned char)(i * 31 + b);
        /* Every other round, every other endpoint waits a microsecond before it sends, so
         * that its receiver is already waiting. */
        if ((me + i) % 2 == 0)
            for (double t0 = omp_get_wtime(); omp_get_wtime() - t0 < 1e-6;)
                ;
        /* Every fourth synchronous: it completes when its receive has matched. */
        if (i % 4 == 3)
            CHECK_OK(EP_Issend(m, n, MPI_BYTE, right, 7 + i % 2, c, &rq[i]));
        else
            CHECK_OK(EP_Isend(m, n, MPI_BYTE, right, 7 + i % 2, c, &rq[i]));
        memset(in, 0xEE, MAX);
        EP_Status st;
        /* Any tag on every third round, else the tag sent. */
        int tag = i % 3 == 0 ? EP_ANY_TAG : 7 + i % 2, count = -1;
        CHECK_OK(EP_Recv(in, MAX, MPI_BYTE, left, tag, c, &st));
        EP_Get_count(&st, MPI_BYTE, &count);
        int got;
        memcpy(&got, in, sizeof got);
        if (got != i)
            bad_data++;
        for (int b = (int)sizeof i; b < n && got == i; b++)
            if (in[b] != (unsigned char)(i * 31 + b)) {
                bad_data++;
                break;
            }
        if (st.MPI_SOURCE != left || st.MPI_TAG != 7 + i % 2 || count != n)
            bad_status++;
        if (in[n] != 0xEE || in[MAX - 1] != 0xEE)
            bad_past++;
    }
    CHECK(bad_data == 0, "%d messages with the wrong number or bytes", bad_data);
    CHECK(bad_status == 0, "%d statuses wrong", bad_status);
    CHECK(bad_past == 0, "%d receives changed bytes past their message", bad_past);
    CHECK_OK(EP_Waitall(ROUNDS, rq, EP_STATUSES_IGNORE));
    /* Tags out of order: the receive of the second message's tag waits while the first
     * message, of another tag, is queued; then the first is received. */
    for (int r = 0; r < 50; r++) {
        int a[1024], b[1024], ga[1024], gb[1024];
        for (int k = 0; k < 1024; k++) {
            a[k] = r * 1000 + k;
            b[k] = -(r * 1000 + k);
        }
        EP_Request s2[2];
        CHECK_OK(EP_Isend(a, 1024, MPI_INT, right, 1, c, &s2[0]));
        CHECK_OK(EP_Isend(b, 1024, MPI_INT, right, 2, c, &s2[1]));
        CHECK_OK(EP_Recv(gb, 1024, MPI_INT, left, 2, c, EP_STATUS_IGNORE));
        CHECK_OK(EP_Recv(ga, 1024, MPI_INT, left, 1, c, EP_STATUS_IGNORE));
        CHECK(memcmp(a, ga, sizeof a) == 0 && memcmp(b, gb, sizeof b) == 0, "round %d: tags mixed up", r);
        CHECK_OK(EP_Waitall(2, s2, EP_STATUSES_IGNORE));
    }
    /* An earlier posted receive takes the first matching message, the blocking one the next. */
    for (int r = 0; r < 50; r++) {
        int a[1024], b[1024], ga[1024], gb[1024];
        for (int k = 0; k < 1024; k++) {
            a[k] = r * 1000 + k;
            b[k] = -(r * 1000 + k);
        }
        EP_Request pr, s2[2];
        CHECK_OK(EP_Irecv(ga, 1024, MPI_INT, left, 3, c, &pr));
        CHECK_OK(EP_Isend(a, 1024, MPI_INT, right, 3, c, &s2[0]));
        CHECK_OK(EP_Isend(b, 1024, MPI_INT, right, 3, c, &s2[1]));
        CHECK_OK(EP_Recv(gb, 1024, MPI_INT, left, EP_ANY_TAG, c, EP_STATUS_IGNORE));
        CHECK_OK(EP_Wait(&pr, EP_STATUS_IGNORE));
        CHECK(memcmp(a, ga, sizeof a) == 0 && memcmp(b, gb, sizeof b) == 0, "round %d: the posted receive did not get the first message", r);
        CHECK_OK(EP_Waitall(2, s2, EP_STATUSES_IGNORE));
    }
    free(out);
    free(in);
    free(rq);
}

/* Waitany / Waitsome / Testany / Testsome / Testall on a mix of requests. */
static void t_completion_family(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int out[4] = {me, me + 1, me + 2, me + 3}, in[4] = {-1, -1, -1, -1};
    EP_Request r[5];
    r[4] = EP_REQUEST_NULL; /* null entries are skipped */
    for (int k = 0; k < 4; k++)
        CHECK_OK(EP_Irecv(&in[k], 1, MPI_INT, left, 30 + k, c, &r[k]));
    int idx, flag, outcount, indices[5];
    EP_Status st, sts[5];
    /* Nothing can have arrived yet: the left neighbour waits for the acknowledgement below. */
    CHECK_OK(EP_Testany(5, r, &idx, &flag, &st));
    CHECK(flag == 0 && idx == EP_UNDEFINED, "testany flag %d idx %d", flag, idx);
    CHECK_OK(EP_Testall(5, r, &flag, sts));
    CHECK(flag == 0, "testall completed before any send");
    /* The left neighbour sends each batch only after this endpoint acknowledges the last,
     * so which request completes is known. */
    int ack = 0;
    CHECK_OK(EP_Sendrecv(&ack, 1, MPI_INT, left, 49, &ack, 1, MPI_INT, right, 49, c, EP_STATUS_IGNORE));
    CHECK_OK(EP_Send(&out[2], 1, MPI_INT, right, 32, c));
    CHECK_OK(EP_Waitany(5, r, &idx, &st));
    CHECK(idx == 2 && in[2] == left + 2 && st.MPI_TAG == 32 && r[2] == EP_REQUEST_NULL, "waitany idx %d", idx);
    CHECK_OK(EP_Sendrecv(&ack, 1, MPI_INT, left, 50, &ack, 1, MPI_INT, right, 50, c, EP_STATUS_IGNORE));
    CHECK_OK(EP_Send(&out[0], 1, MPI_INT, right, 30, c));
    CHECK_OK(EP_Send(&out[3], 1, MPI_INT, right, 33, c));
    int got = 0;
    while (got < 2) {
        CHECK_OK(EP_Waitsome(5, r, &outcount, indices, sts));
        for (int k = 0; k < outcount; k++)
            CHECK((indices[k] == 0 || indices[k] == 3) && sts[k].MPI_TAG == 30 + indices[k], "waitsome %d", indices[k]);
        got += outcount;
    }
    CHECK_OK(EP_Sendrecv(&ack, 1, MPI_INT, left, 51, &ack, 1, MPI_INT, right, 51, c, EP_STATUS_IGNORE));
    CHECK_OK(EP_Send(&out[1], 1, MPI_INT, right, 31, c));
    outcount = 0;
    while (outcount == 0)
        CHECK_OK(EP_Testsome(5, r, &outcount, indices, sts));
    CHECK(outcount == 1 && indices[0] == 1 && in[1] == left + 1, "testsome %d", indices[0]);
    CHECK_OK(EP_Waitsome(5, r, &outcount, indices, sts));
    CHECK(outcount == EP_UNDEFINED, "waitsome on no active request gave %d", outcount);
    CHECK_OK(EP_Waitany(5, r, &idx, &st));
    CHECK(idx == EP_UNDEFINED, "waitany on no active request gave %d", idx);
    CHECK_OK(EP_Testall(5, r, &flag, EP_STATUSES_IGNORE));
    CHECK(flag == 1, "testall on null requests");
    for (int k = 0; k < 4; k++)
        CHECK(in[k] == left + k, "in[%d] = %d", k, in[k]);
}

/* Windows of nonblocking receives and sends, round after round, completed by each completion
 * call in turn: the request and receive objects a completed window frees are the ones the next
 * window's calls reuse (each thread keeps them), so nothing of an earlier round may show in a
 * later one. Each round has one truncated receive (every third round), one cancelled receive
 * and one synchronous send; every receive checks its data, its status (source, tag, count,
 * error, not cancelled) and that nothing past its message changed. */
#define RECYCLE_WINDOW 64
static void t_recycled_requests(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int out[RECYCLE_WINDOW][2], in[RECYCLE_WINDOW][3];
    EP_Request rr[RECYCLE_WINDOW + 1], sr[RECYCLE_WINDOW];
    EP_Status st[RECYCLE_WINDOW + 1];
    for (int round = 0; round < 40; round++) {
        int truncated = round % 3 == 0 ? (round * 7) % RECYCLE_WINDOW : -1;
        for (int i = 0; i < RECYCLE_WINDOW; i++) {
            in[i][0] = in[i][1] = in[i][2] = -1;
            int source = i % 4 == 1 ? EP_ANY_SOURCE : left;
            int tag = i % 4 == 2 ? EP_ANY_TAG : 100 + i;
            CHECK_OK(EP_Irecv(in[i], i == truncated ? 1 : 2, MPI_INT, source, tag, c, &rr[i]));
        }
        /* Never sent: cancelled below, after the window's receives are posted. */
        int never = -1;
        CHECK_OK(EP_Irecv(&never, 1, MPI_INT, left, 99, c, &rr[RECYCLE_WINDOW]));
        for (int i = 0; i < RECYCLE_WINDOW; i++) {
            out[i][0] = me * 1000 + i;
            out[i][1] = round;
            if (i == round % RECYCLE_WINDOW)
                CHECK_OK(EP_Issend(out[i], 2, MPI_INT, right, 100 + i, c, &sr[i]));
            else
                CHECK_OK(EP_Isend(out[i], 2, MPI_INT, right, 100 + i, c, &sr[i]));
        }
        CHECK_OK(EP_Cancel(&rr[RECYCLE_WINDOW]));
        int rc = EP_SUCCESS, done = 0, outcount, indices[RECYCLE_WINDOW + 1], idx, flag;
        EP_Status some[RECYCLE_WINDOW + 1];
        switch (round % 3) {
        case 0:
            rc = EP_Waitall(RECYCLE_WINDOW + 1, rr, st);
            CHECK(ep_class(rc) == (truncated >= 0 ? EP_ERR_IN_STATUS : EP_SUCCESS), "round %d waitall gave %d", round, rc);
            break;
        case 1:
            while (done < RECYCLE_WINDOW + 1) {
                rc = EP_Waitsome(RECYCLE_WINDOW + 1, rr, &outcount, indices, some);
                CHECK(rc == EP_SUCCESS && outcount > 0, "round %d waitsome gave %d (%d)", round, rc, outcount);
                if (rc != EP_SUCCESS || outcount <= 0)
                    break;
                for (int k = 0; k < outcount; k++)
                    st[indices[k]] = some[k];
                done += outcount;
            }
            break;
        default:
            while (done < RECYCLE_WINDOW + 1) {
                CHECK_OK(EP_Testany(RECYCLE_WINDOW + 1, rr, &idx, &flag, &st[0]));
                if (flag && idx != EP_UNDEFINED) {
                    some[idx] = st[0];
                    done++;
                }
            }
            for (int i = 0; i <= RECYCLE_WINDOW; i++)
                st[i] = some[i];
        }
        CHECK_OK(EP_Waitall(RECYCLE_WINDOW, sr, EP_STATUSES_IGNORE));
        for (int i = 0; i < RECYCLE_WINDOW; i++) {
            int count = -1, cancelled = -1;
            EP_Get_count(&st[i], MPI_INT, &count);
            EP_Test_cancelled(&st[i], &cancelled);
            int want_error = i == truncated && round % 3 == 0 ? EP_ERR_TRUNCATE : EP_SUCCESS;
            int error_ok = round % 3 == 0 ? ep_class(st[i].MPI_ERROR) == want_error : 1;
            CHECK(st[i].MPI_SOURCE == left && st[i].MPI_TAG == 100 + i && cancelled == 0 && error_ok,
                  "round %d receive %d: source %d tag %d cancelled %d error %d", round, i, st[i].MPI_SOURCE,
                  st[i].MPI_TAG, cancelled, st[i].MPI_ERROR);
            CHECK(count == (i == truncated ? 1 : 2), "round %d receive %d count %d", round, i, count);
            CHECK(in[i][0] == left * 1000 + i && (i == truncated ? in[i][1] == -1 : in[i][1] == round) && in[i][2] == -1,
                  "round %d receive %d data %d %d %d", round, i, in[i][0], in[i][1], in[i][2]);
        }
        int cancelled = 0;
        EP_Test_cancelled(&st[RECYCLE_WINDOW], &cancelled);
        CHECK(cancelled == 1 && never == -1, "round %d: the unsent receive was not cancelled", round);
        /* The next round's receives may only match this round's messages after they are
         * posted: a round's messages all have matched here, so rounds never mix. */
    }
}

/* EP_PROC_NULL: sends do nothing, receives and probes complete at once with its status. */
static void t_proc_null(EP_Comm c)
{
    int x = 1, y = 77, flag = 0, cnt = -1;
    EP_Status st;
    EP_Message m;
    CHECK_OK(EP_Send(&x, 1, MPI_INT, EP_PROC_NULL, 1, c));
    CHECK_OK(EP_Recv(&y, 1, MPI_INT, EP_PROC_NULL, 1, c, &st));
    CHECK(y == 77 && st.MPI_SOURCE == EP_PROC_NULL && st.MPI_TAG == EP_ANY_TAG, "proc null recv");
    CHECK_OK(EP_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == 0, "proc null count %d", cnt);
    CHECK_OK(EP_Iprobe(EP_PROC_NULL, 1, c, &flag, &st));
    CHECK(flag == 1 && st.MPI_SOURCE == EP_PROC_NULL, "proc null iprobe");
    CHECK_OK(EP_Mprobe(EP_PROC_NULL, 1, c, &m, &st));
    CHECK(m == EP_MESSAGE_NO_PROC, "mprobe proc null gave %d", m);
    CHECK_OK(EP_Mrecv(&y, 1, MPI_INT, &m, &st));
    CHECK(m == EP_MESSAGE_NULL && st.MPI_SOURCE == EP_PROC_NULL, "mrecv no proc");
    EP_Request r;
    CHECK_OK(EP_Improbe(EP_PROC_NULL, 1, c, &flag, &m, &st));
    CHECK(flag == 1 && m == EP_MESSAGE_NO_PROC, "improbe proc null");
    CHECK_OK(EP_Imrecv(&y, 1, MPI_INT, &m, &r));
    CHECK_OK(EP_Wait(&r, &st));
    CHECK(m == EP_MESSAGE_NULL && st.MPI_SOURCE == EP_PROC_NULL, "imrecv no proc");
    CHECK_OK(EP_Isend(&x, 1, MPI_INT, EP_PROC_NULL, 1, c, &r));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
}

/* A user error handler's last call on this thread. */
static _Thread_local EP_Comm handler_comm;
static _Thread_local int handler_calls;
static void record_handler(EP_Comm *comm, int *code, ...)
{
    (void)code;
    handler_comm = *comm;
    handler_calls++;
}

/* Sends that are complete when their call returns (an eager message to an endpoint of the
 * process, EP_PROC_NULL) get requests that hold nothing but their handle: each is still an
 * active, complete request for every call that takes one, completing or freeing one leaves the
 * others valid, and the messages arrive in order. */
static void t_completed_sends(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int out[8], in[8], flag = -1, idx = -1, outcount = -1, indices[3];
    EP_Request s[8], r[8];
    EP_Status st, sts[3];
    for (int k = 0; k < 8; k++) {
        out[k] = me * 100 + k;
        in[k] = -1;
        CHECK_OK(EP_Isend(&out[k], 1, MPI_INT, me, 70, c, &s[k]));
        CHECK(s[k] != EP_REQUEST_NULL, "send %d gave the null request", k);
    }
    /* Asked without completing it: complete, no error; the handle stays. */
    CHECK_OK(EP_Request_get_status(s[0], &flag, &st));
    CHECK(flag == 1 && st.MPI_ERROR == EP_SUCCESS && s[0] != EP_REQUEST_NULL, "get_status flag %d", flag);
    /* A send is not cancelled: it completes normally. */
    CHECK_OK(EP_Cancel(&s[0]));
    CHECK_OK(EP_Wait(&s[0], &st));
    CHECK_OK(EP_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && s[0] == EP_REQUEST_NULL, "cancelled send: flag %d", flag);
    /* Not persistent: EP_Start refuses it and leaves it as it was. */
    EP_Request keep = s[1];
    CHECK(ep_class(EP_Start(&s[1])) == EP_ERR_REQUEST && s[1] == keep, "EP_Start of a send gave no EP_ERR_REQUEST");
    CHECK_OK(EP_Test(&s[1], &flag, EP_STATUS_IGNORE));
    CHECK(flag == 1 && s[1] == EP_REQUEST_NULL, "test flag %d", flag);
    /* That error goes to the handler of the request's communicator (MPI 4.1 section 9.3). */
    EP_Errhandler eh;
    EP_Request late;
    CHECK_OK(EP_Comm_create_errhandler(record_handler, &eh));
    CHECK_OK(EP_Comm_set_errhandler(c, eh));
    CHECK_OK(EP_Isend(&out[0], 1, MPI_INT, EP_PROC_NULL, 70, c, &late));
    handler_calls = 0;
    int rc = EP_Start(&late);
    CHECK(ep_class(rc) == EP_ERR_REQUEST && handler_calls == 1 && handler_comm == c,
          "EP_Start of a completed send: class %d, %d handler calls", ep_class(rc), handler_calls);
    CHECK_OK(EP_Wait(&late, EP_STATUS_IGNORE));
    CHECK_OK(EP_Comm_set_errhandler(c, EP_ERRORS_RETURN));
    CHECK_OK(EP_Errhandler_free(&eh));
    CHECK_OK(EP_Request_free(&s[2]));
    CHECK(s[2] == EP_REQUEST_NULL, "request_free left %d", s[2]);
    /* The handles completed above leave the others valid. */
    EP_Request three[3] = {EP_REQUEST_NULL, s[3], s[4]};
    CHECK_OK(EP_Waitany(3, three, &idx, &st));
    CHECK((idx == 1 || idx == 2) && three[idx] == EP_REQUEST_NULL, "waitany index %d", idx);
    CHECK_OK(EP_Waitsome(3, three, &outcount, indices, sts));
    CHECK(outcount == 1 && indices[0] == 3 - idx && three[1] == EP_REQUEST_NULL && three[2] == EP_REQUEST_NULL,
          "waitsome outcount %d", outcount);
    CHECK_OK(EP_Testsome(3, three, &outcount, indices, sts));
    CHECK(outcount == EP_UNDEFINED, "testsome on no active request gave %d", outcount);
    CHECK_OK(EP_Testany(1, &s[5], &idx, &flag, &st));
    CHECK(flag == 1 && idx == 0 && s[5] == EP_REQUEST_NULL, "testany flag %d index %d", flag, idx);
    CHECK_OK(EP_Testall(2, &s[6], &flag, EP_STATUSES_IGNORE));
    CHECK(flag == 1 && s[6] == EP_REQUEST_NULL && s[7] == EP_REQUEST_NULL, "testall flag %d", flag);
    /* Every message arrived, in the order sent. */
    for (int k = 0; k < 8; k++)
        CHECK_OK(EP_Irecv(&in[k], 1, MPI_INT, me, 70, c, &r[k]));
    CHECK_OK(EP_Waitall(8, r, EP_STATUSES_IGNORE));
    for (int k = 0; k < 8; k++)
        CHECK(in[k] == me * 100 + k, "message %d: %d", k, in[k]);
    /* Mixed with receives and sends to another process in one array. */
    int x = me, y = -1;
    EP_Request mix[4];
    CHECK_OK(EP_Irecv(&y, 1, MPI_INT, left, 71, c, &mix[0]));
    CHECK_OK(EP_Isend(&x, 1, MPI_INT, EP_PROC_NULL, 71, c, &mix[1]));
    CHECK_OK(EP_Isend(&x, 1, MPI_INT, right, 71, c, &mix[2]));
    CHECK_OK(EP_Isend(&x, 1, MPI_INT, EP_PROC_NULL, 71, c, &mix[3]));
    CHECK_OK(EP_Waitall(4, mix, EP_STATUSES_IGNORE));
    CHECK(y == left && mix[0] == EP_REQUEST_NULL && mix[1] == EP_REQUEST_NULL && mix[3] == EP_REQUEST_NULL,
          "mixed waitall: %d", y);
}

/* Bad input gives its error class and message, and the endpoint keeps working. */
static void t_bad_input(EP_Comm c)
{
    int me, size, x = 0, rc;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    CHECK_OK(EP_Comm_set_errhandler(c, EP_ERRORS_RETURN));
    EP_Errhandler h;
    CHECK_OK(EP_Comm_get_errhandler(c, &h));
    CHECK(h == EP_ERRORS_RETURN, "errhandler %d", h);
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, size, 0, c)) == EP_ERR_RANK, "rank == size");
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, -5, 0, c)) == EP_ERR_RANK, "rank -5");
    CHECK(ep_class(EP_Recv(&x, 1, MPI_INT, size + 3, 0, c, EP_STATUS_IGNORE)) == EP_ERR_RANK, "recv rank");
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, 0, -3, c)) == EP_ERR_TAG, "send tag -3");
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, 0, EP_ANY_TAG, c)) == EP_ERR_TAG, "send any tag");
    CHECK(ep_class(EP_Recv(&x, 1, MPI_INT, 0, -7, c, EP_STATUS_IGNORE)) == EP_ERR_TAG, "recv tag -7");
    CHECK(ep_class(EP_Send(&x, -1, MPI_INT, 0, 0, c)) == EP_ERR_COUNT, "count -1");
    CHECK(ep_class(EP_Send(NULL, 4, MPI_INT, 0, 0, c)) == EP_ERR_BUFFER, "null buffer");
    CHECK(ep_class(EP_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, c)) == EP_ERR_TYPE, "null datatype");
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, 0, 0, EP_COMM_NULL)) == EP_ERR_COMM, "null comm");
#if EP_TEST_MADE_UP_HANDLES
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, 0, 0, 12345)) == EP_ERR_COMM, "bogus comm");
    rc = EP_Send(&x, 1, MPI_INT, 0, 0, c + 1000);
    CHECK(ep_class(rc) == EP_ERR_COMM, "unknown comm");
    EP_Request bogus = 777;
    CHECK(ep_class(EP_Wait(&bogus, EP_STATUS_IGNORE)) == EP_ERR_REQUEST, "bogus request");
#endif
#ifndef EP_TEST_MPI_NAMES
    /* Not under the standard names: the layer carries an EPMPI handle's index, not its kind,
     * in the host's handle type (src/mpi_names/runtime.h). */
    CHECK(ep_class(EP_Wait(&c, EP_STATUS_IGNORE)) == EP_ERR_REQUEST, "comm as request");
#endif
    CHECK(ep_class(EP_Comm_rank(c, NULL)) == EP_ERR_ARG, "null out pointer");
    /* A large tag is carried in full, not truncated. */
    int big = 2147483000, y = -1;
    EP_Status st;
    CHECK_OK(EP_Send(&me, 1, MPI_INT, me, big, c));
    CHECK_OK(EP_Recv(&y, 1, MPI_INT, me, big, c, &st));
    CHECK(y == me && st.MPI_TAG == big, "big tag %d", st.MPI_TAG);
    /* Freed communicator: a second free and a use are errors. */
    EP_Comm d, d_copy;
    CHECK_OK(EP_Comm_dup(c, &d));
    d_copy = d;
    CHECK_OK(EP_Comm_free(&d));
    CHECK(ep_class(EP_Comm_free(&d_copy)) == EP_ERR_COMM, "double free");
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, 0, 0, d_copy)) == EP_ERR_COMM, "use after free");
    char msg[EP_MAX_ERROR_STRING];
    int len;
    rc = EP_Send(&x, 1, MPI_INT, size + 1, 0, c);
    CHECK_OK(EP_Error_string(rc, msg, &len));
    CHECK(strstr(msg, "EP_Send") != NULL && strstr(msg, "rank") != NULL && len == (int)strlen(msg), "message '%s'", msg);
    /* The endpoint still works. */
    int right = (me + 1) % size, left = (me - 1 + size) % size;
    CHECK_OK(EP_Sendrecv(&me, 1, MPI_INT, right, 3, &y, 1, MPI_INT, left, 3, c, EP_STATUS_IGNORE));
    CHECK(y == left, "after errors %d", y);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    EP_Comm *comms = malloc((n > 0 ? n : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    if (n > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n)
        {
            int t = omp_get_thread_num();
            EP_Comm c = comms[t];
            t_queries(c, wr, t, n);
            ep_test_barrier(c);
            /* Each test on its own dup, so wildcard receives never meet another test's (or
             * the test barrier's) messages; exercises dup and free on the way. */
#define RUN(test)                                                                          \
    do {                                                                                   \
        EP_Comm d_;                                                                        \
        CHECK_OK(EP_Comm_dup(c, &d_));                                                     \
        test(d_);                                                                          \
        ep_test_barrier(c);                                                                \
        CHECK_OK(EP_Comm_free(&d_));                                                       \
    } while (0)
            RUN(t_all_pairs);
            RUN(t_non_overtaking);
            RUN(t_wildcard_mixed);
            RUN(t_probes);
            RUN(t_large);
            RUN(t_ssend);
            RUN(t_late_receiver);
            RUN(t_cancel_free);
            RUN(t_free_comm_with_freed_requests);
            RUN(t_truncate);
            RUN(t_waiting_receivers);
            RUN(t_completion_family);
            RUN(t_recycled_requests);
            RUN(t_proc_null);
            RUN(t_completed_sends);
            RUN(t_bad_input);
            CHECK_OK(EP_Comm_free(&c));
        }
    }
    int live_c = -1, live_r = -1, live_m = -1;
    EP_Debug_live_handles(&live_c, &live_r, &live_m);
    CHECK(live_c == 0 && live_r == 0 && live_m == 0, "live handles after free: %d comms %d requests %d messages", live_c, live_r, live_m);
    free(comms);
    return ep_test_finish("p2p", wr);
}
