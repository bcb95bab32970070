/*
 * Messages of every length class on a communicator with one endpoint per process (direct mode
 * on Open MPI, src/engine/direct.rs; the engine's path under MPICH). In direct mode a message
 * of at most 4 KiB travels whole and any other (and one of exactly 13 bytes) as a notice
 * followed by its data; whatever the path, MPI 4.1 holds: messages of one sender are received in
 * the order sent (section 3.5), a probe reports the message's own length and the first matching
 * message (section 3.8), a synchronous send completes only once its receive has started
 * (section 3.4), a freed receive still completes into its buffer (section 3.7.3), and a
 * receive datatype's holes are left alone.
 *
 * Each process sends to its right neighbour and receives from its left (2 or 3 processes x 1
 * endpoint); each case ends with a host barrier so that no message crosses into the next.
 */
#include "ep_test.h"
#include <time.h>

/* Lengths around every boundary of direct mode: 13 is the notice's length, 4096 the largest
 * message that travels whole. */
static const int LENGTHS[] = {0, 1, 8, 12, 13, 14, 100, 4095, 4096, 4097, 16384, 13, 70000, 8};
enum { NLEN = sizeof LENGTHS / sizeof LENGTHS[0], MAXLEN = 70000, TAG = 7 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Polls with probes (which progress the library's pending receives) until the `n` bytes at
 * `buf` equal `expected` or 30 s have gone: the first byte that differs, -1 when all match. */
static int await_bytes(EP_Comm d, int left, const void *buf, const void *expected, size_t n)
{
    double end = now() + 30;
    int bad;
    do {
        int flag;
        CHECK_OK(EP_Iprobe(left, TAG + 1, d, &flag, EP_STATUS_IGNORE));
        bad = -1;
        for (size_t j = 0; j < n && bad < 0; j++)
            if (((const unsigned char *)buf)[j] != ((const unsigned char *)expected)[j])
                bad = (int)j;
    } while (bad >= 0 && now() < end);
    return bad;
}

static unsigned char byte_of(int msg, int i) { return (unsigned char)(msg * 31 + i * 7 + 1); }

static unsigned char *message(int k)
{
    unsigned char *m = malloc(LENGTHS[k] + 1);
    for (int i = 0; i < LENGTHS[k]; i++)
        m[i] = byte_of(k, i);
    return m;
}

/* Checks a received message `k` with `tag`: its length, status and bytes. */
static void check_tagged(const char *how, int k, int tag, const unsigned char *in, const EP_Status *st, int left)
{
    int count = -1;
    CHECK_OK(EP_Get_count(st, MPI_BYTE, &count));
    CHECK(count == LENGTHS[k] && st->MPI_SOURCE == left && st->MPI_TAG == tag,
          "%s, message %d: %d bytes from %d tag %d, expected %d bytes", how, k, count, st->MPI_SOURCE, st->MPI_TAG,
          LENGTHS[k]);
    int bad = -1;
    for (int i = 0; i < LENGTHS[k] && i < count && bad < 0; i++)
        if (in[i] != byte_of(k, i))
            bad = i;
    CHECK(bad < 0, "%s, message %d of %d bytes: byte %d differs", how, k, LENGTHS[k], bad);
}

static void check_message(const char *how, int k, const unsigned char *in, const EP_Status *st, int left)
{
    check_tagged(how, k, TAG, in, st, left);
}

/* Starts sends of every length in turn with one tag (standard sends may wait for their
 * receives, so the caller receives before it waits for them). */
static void send_all(EP_Comm d, int right, unsigned char **out, EP_Request *r)
{
    for (int k = 0; k < NLEN; k++)
        CHECK_OK(EP_Isend(out[k], LENGTHS[k], MPI_BYTE, right, TAG, d, &r[k]));
}

/* Messages of every length arrive in the order sent: into one large buffer with wildcards,
 * into buffers of their own length, and into receives all posted before the sends and
 * completed last first. */
static void in_order(EP_Comm d, int left, int right)
{
    unsigned char *out[NLEN], *in[NLEN];
    for (int k = 0; k < NLEN; k++) {
        out[k] = message(k);
        in[k] = malloc(LENGTHS[k] + 1);
    }
    unsigned char *big = malloc(MAXLEN);
    EP_Status st;
    EP_Request sr[NLEN], r[NLEN];

    send_all(d, right, out, sr);
    for (int k = 0; k < NLEN; k++) {
        CHECK_OK(EP_Recv(big, MAXLEN, MPI_BYTE, EP_ANY_SOURCE, EP_ANY_TAG, d, &st));
        check_message("one large buffer", k, big, &st, left);
    }
    CHECK_OK(EP_Waitall(NLEN, sr, EP_STATUSES_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);

    send_all(d, right, out, sr);
    for (int k = 0; k < NLEN; k++) {
        CHECK_OK(EP_Recv(in[k], LENGTHS[k], MPI_BYTE, left, TAG, d, &st));
        check_message("buffers of their length", k, in[k], &st, left);
    }
    CHECK_OK(EP_Waitall(NLEN, sr, EP_STATUSES_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);

    for (int k = 0; k < NLEN; k++)
        CHECK_OK(EP_Irecv(in[k], LENGTHS[k], MPI_BYTE, left, TAG, d, &r[k]));
    MPI_Barrier(MPI_COMM_WORLD);
    send_all(d, right, out, sr);
    for (int k = NLEN - 1; k >= 0; k--) {
        CHECK_OK(EP_Wait(&r[k], &st));
        check_message("receives posted first", k, in[k], &st, left);
    }
    CHECK_OK(EP_Waitall(NLEN, sr, EP_STATUSES_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NLEN; k++) {
        free(out[k]);
        free(in[k]);
    }
    free(big);
}

/* A probe reports a message's own length, the first one that matches, whatever came after
 * it; the receives that follow get the messages in the order sent. */
static void probes(EP_Comm d, int left, int right)
{
    int k_large = 10, k_notice = 4, k_small = 2; /* 16384, 13 and 8 bytes */
    unsigned char *out[3] = {message(k_large), message(k_notice), message(k_small)};
    int ks[3] = {k_large, k_notice, k_small}, tags[3] = {21, 22, 23};
    EP_Request r[3];
    for (int i = 0; i < 3; i++)
        CHECK_OK(EP_Isend(out[i], LENGTHS[ks[i]], MPI_BYTE, right, tags[i], d, &r[i]));
    EP_Status st;
    int count = -1, flag = 0;
    /* The 13-byte message first, by its tag: the earlier 16 KiB one stays first for others. */
    CHECK_OK(EP_Probe(left, 22, d, &st));
    CHECK_OK(EP_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 13 && st.MPI_TAG == 22, "probe of tag 22: %d bytes tag %d", count, st.MPI_TAG);
    double end = now() + 30;
    while (!flag && now() < end)
        CHECK_OK(EP_Iprobe(left, EP_ANY_TAG, d, &flag, &st));
    CHECK_OK(EP_Get_count(&st, MPI_BYTE, &count));
    CHECK(flag && count == 16384 && st.MPI_TAG == 21, "probe of any tag: %d bytes tag %d", count, st.MPI_TAG);
    unsigned char *in = malloc(MAXLEN);
    for (int i = 0; i < 3; i++) {
        memset(in, 0, MAXLEN);
        CHECK_OK(EP_Recv(in, MAXLEN, MPI_BYTE, left, EP_ANY_TAG, d, &st));
        check_tagged("after the probes", ks[i], tags[i], in, &st, left);
    }
    CHECK_OK(EP_Waitall(3, r, EP_STATUSES_IGNORE));

    /* Matched probes take a 16 KiB message and a 13-byte one. */
    for (int i = 0; i < 2; i++)
        CHECK_OK(EP_Isend(out[i], LENGTHS[ks[i]], MPI_BYTE, right, tags[i], d, &r[i]));
    EP_Message m;
    CHECK_OK(EP_Mprobe(left, 21, d, &m, &st));
    CHECK_OK(EP_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 16384, "matched probe of 16 KiB: %d bytes", count);
    unsigned char *exact = malloc(16384);
    CHECK_OK(EP_Mrecv(exact, 16384, MPI_BYTE, &m, &st));
    check_tagged("EP_Mrecv", k_large, 21, exact, &st, left);
    flag = 0;
    end = now() + 30;
    while (!flag && now() < end)
        CHECK_OK(EP_Improbe(left, 22, d, &flag, &m, &st));
    CHECK_OK(EP_Get_count(&st, MPI_BYTE, &count));
    CHECK(flag && count == 13, "matched probe of 13 bytes: %d bytes", count);
    EP_Request ir;
    CHECK_OK(EP_Imrecv(exact, 13, MPI_BYTE, &m, &ir));
    CHECK_OK(EP_Wait(&ir, &st));
    check_tagged("EP_Imrecv", k_notice, 22, exact, &st, left);
    CHECK_OK(EP_Waitall(2, r, EP_STATUSES_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        free(out[i]);
    free(in);
    free(exact);
}

/* A 13-byte message into 8 bytes and a 4097-byte one into 4096: truncated, nothing written
 * past the buffer. */
static void truncated(EP_Comm d, int left, int right)
{
    int ks[2] = {4, 9}, room[2] = {8, 4096};
    for (int i = 0; i < 2; i++) {
        unsigned char *out = message(ks[i]);
        unsigned char *in = malloc(room[i] + 64);
        memset(in, 0xee, room[i] + 64);
        EP_Request r;
        EP_Status st;
        CHECK_OK(EP_Isend(out, LENGTHS[ks[i]], MPI_BYTE, right, TAG, d, &r));
        int rc = EP_Recv(in, room[i], MPI_BYTE, left, TAG, d, &st);
        CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "%d bytes into %d: class %d", LENGTHS[ks[i]], room[i], ep_class(rc));
        int bad = -1;
        for (int j = 0; j < room[i] && bad < 0; j++)
            if (in[j] != byte_of(ks[i], j))
                bad = j;
        for (int j = room[i]; j < room[i] + 64 && bad < 0; j++)
            if (in[j] != 0xee)
                bad = j;
        CHECK(bad < 0, "%d bytes into %d: byte %d wrong", LENGTHS[ks[i]], room[i], bad);
        CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
        free(out);
        free(in);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A synchronous send of 13 bytes, 100 and 16 KiB completes only once its receive has
 * started. */
static void synchronous(EP_Comm d, int left, int right)
{
    int ks[3] = {4, 6, 10};
    for (int i = 0; i < 3; i++) {
        unsigned char *out = message(ks[i]), *in = malloc(LENGTHS[ks[i]]);
        EP_Request r;
        EP_Status st;
        int flag = 0;
        CHECK_OK(EP_Issend(out, LENGTHS[ks[i]], MPI_BYTE, right, TAG, d, &r));
        double end = now() + 0.05;
        while (!flag && now() < end)
            CHECK_OK(EP_Test(&r, &flag, EP_STATUS_IGNORE));
        CHECK(!flag, "a synchronous send of %d bytes completed before its receive was posted", LENGTHS[ks[i]]);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_OK(EP_Recv(in, LENGTHS[ks[i]], MPI_BYTE, left, TAG, d, &st));
        check_message("synchronous", ks[i], in, &st, left);
        if (!flag)
            CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        free(out);
        free(in);
    }
}

/* Into a strided datatype (every other int): 100 ints travel whole, 2500 are announced. The
 * holes keep their bytes. */
static void strided(EP_Comm d, int left, int right)
{
    MPI_Datatype every_other;
    MPI_Type_vector(2500, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int counts[2] = {100, 2500};
    for (int i = 0; i < 2; i++) {
        int n = counts[i];
        int *out = malloc(n * sizeof(int)), *in = malloc(5000 * sizeof(int));
        for (int j = 0; j < n; j++)
            out[j] = 1000 * i + j;
        for (int j = 0; j < 5000; j++)
            in[j] = -1;
        EP_Request r;
        EP_Status st;
        CHECK_OK(EP_Isend(out, n, MPI_INT, right, TAG, d, &r));
        /* One element of the vector type holds 2500 ints; 100 ints are a partial element, so
         * they are received into a vector of their own length. */
        MPI_Datatype t = every_other;
        if (n != 2500) {
            MPI_Type_vector(n, 1, 2, MPI_INT, &t);
            MPI_Type_commit(&t);
        }
        CHECK_OK(EP_Recv(in, 1, t, left, TAG, d, &st));
        int count = -1;
        CHECK_OK(EP_Get_count(&st, MPI_INT, &count));
        CHECK(count == n, "%d ints into every other int: count %d", n, count);
        int bad = -1;
        for (int j = 0; j < 5000 && bad < 0; j++)
            if (in[j] != (j % 2 || j >= 2 * n ? -1 : 1000 * i + j / 2))
                bad = j;
        CHECK(bad < 0, "%d ints into every other int: int %d is %d", n, bad, bad < 0 ? 0 : in[bad]);
        CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
        if (t != every_other)
            MPI_Type_free(&t);
        free(out);
        free(in);
    }
    MPI_Type_free(&every_other);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A persistent receive into a strided datatype, started and then freed together with the
 * program's datatype (MPI 4.1 sections 3.9 and 5.1.9: neither affects the pending receive),
 * still takes its 100 ints into every other int. */
static void freed_persistent_strided(EP_Comm d, int left, int right)
{
    enum { N = 100 };
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int out[N], *in = malloc(2 * N * sizeof(int));
    for (int j = 0; j < N; j++)
        out[j] = 7000 + j;
    for (int j = 0; j < 2 * N; j++)
        in[j] = -1;
    EP_Request r;
    CHECK_OK(EP_Recv_init(in, 1, every_other, left, TAG, d, &r));
    CHECK_OK(EP_Start(&r));
    CHECK_OK(EP_Request_free(&r));
    MPI_Type_free(&every_other);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(EP_Send(out, N, MPI_INT, right, TAG, d));
    int want[2 * N];
    for (int j = 0; j < 2 * N; j++)
        want[j] = j % 2 ? -1 : 7000 + j / 2;
    int bad = await_bytes(d, left, in, want, sizeof want);
    CHECK(bad < 0, "freed persistent receive into every other int: byte %d wrong after 30 s", bad);
    MPI_Barrier(MPI_COMM_WORLD);
    free(in);
}

/* Messages a probe made the library hold (it took every arrived message to read a notice)
 * are truncated like any other: 100 bytes into 8, 16 KiB into 4 KiB. */
static void held_truncated(EP_Comm d, int left, int right)
{
    int k_large = 10, k_small = 6; /* 16384 and 100 bytes */
    unsigned char *big = message(k_large), *small = message(k_small);
    EP_Request r[2];
    CHECK_OK(EP_Isend(big, LENGTHS[k_large], MPI_BYTE, right, 41, d, &r[0]));
    CHECK_OK(EP_Isend(small, LENGTHS[k_small], MPI_BYTE, right, 42, d, &r[1]));
    EP_Status st;
    int count = -1, flag = 0;
    double end = now() + 30;
    while (!flag && now() < end) /* both have arrived once the later one is seen */
        CHECK_OK(EP_Iprobe(left, 42, d, &flag, &st));
    CHECK_OK(EP_Probe(left, 41, d, &st));
    CHECK_OK(EP_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 16384, "probe of the held 16 KiB: %d bytes", count);
    int ks[2] = {k_small, k_large}, tags[2] = {42, 41}, room[2] = {8, 4096};
    for (int i = 0; i < 2; i++) {
        unsigned char *in = malloc(room[i] + 64);
        memset(in, 0xee, room[i] + 64);
        int rc = EP_Recv(in, room[i], MPI_BYTE, left, tags[i], d, &st);
        CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "held %d bytes into %d: class %d", LENGTHS[ks[i]], room[i], ep_class(rc));
        int bad = -1;
        for (int j = 0; j < room[i] + 64 && bad < 0; j++)
            if (in[j] != (j < room[i] ? byte_of(ks[i], j) : 0xee))
                bad = j;
        CHECK(bad < 0, "held %d bytes into %d: byte %d wrong", LENGTHS[ks[i]], room[i], bad);
        free(in);
    }
    CHECK_OK(EP_Waitall(2, r, EP_STATUSES_IGNORE));
    free(big);
    free(small);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A receive cancelled once its 16 KiB message has arrived: when the cancel fails (the receive
 * had matched, as the host's matching at arrival makes likely) it gets the data; when it
 * succeeds, the message goes to the next receive. Either way nothing is lost. */
static void cancel_after_arrival(EP_Comm d, int left, int right)
{
    unsigned char *out = message(10), *in = calloc(16384, 1);
    EP_Request r, s;
    EP_Status st;
    CHECK_OK(EP_Irecv(in, 16384, MPI_BYTE, left, TAG, d, &r));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(EP_Isend(out, 16384, MPI_BYTE, right, TAG, d, &s));
    MPI_Barrier(MPI_COMM_WORLD); /* every notice has gone */
    double end = now() + 0.05;   /* and arrived, by now */
    while (now() < end)
        ;
    CHECK_OK(EP_Cancel(&r));
    CHECK_OK(EP_Wait(&r, &st));
    int cancelled = -1;
    CHECK_OK(EP_Test_cancelled(&st, &cancelled));
    if (cancelled)
        CHECK_OK(EP_Recv(in, 16384, MPI_BYTE, left, TAG, d, &st));
    check_message(cancelled ? "the receive after a cancel" : "after a failed cancel", 10, in, &st, left);
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    free(out);
    free(in);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A program that waits by testing one receive still gets it when the sender holds it back
 * until an earlier 16 KiB message's data receive is posted (a blocking send: rendezvous).
 * Rank 0 sends to rank 1; the others only meet at the barriers. */
static void test_only_progress(EP_Comm d, int me)
{
    unsigned char *big = message(10), *small = message(2);
    if (me == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_OK(EP_Send(big, 16384, MPI_BYTE, 1, TAG, d));
        CHECK_OK(EP_Send(small, 8, MPI_BYTE, 1, TAG + 1, d));
    } else if (me == 1) {
        unsigned char *in_big = calloc(16384, 1), in_small[8];
        EP_Request r_big, r_small;
        EP_Status st;
        int flag = 0;
        CHECK_OK(EP_Irecv(in_big, 16384, MPI_BYTE, 0, TAG, d, &r_big));
        CHECK_OK(EP_Irecv(in_small, 8, MPI_BYTE, 0, TAG + 1, d, &r_small));
        MPI_Barrier(MPI_COMM_WORLD);
        double end = now() + 30;
        while (!flag && now() < end)
            CHECK_OK(EP_Test(&r_small, &flag, &st));
        CHECK(flag, "testing only the later receive: it never completed");
        if (flag) {
            CHECK_OK(EP_Wait(&r_big, EP_STATUS_IGNORE));
            CHECK(memcmp(in_big, big, 16384) == 0 && memcmp(in_small, small, 8) == 0, "data of the two receives");
        }
        free(in_big);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(big);
    free(small);
}

/* Every other rank sends 16 KiB then 8 B to rank 0, which probes for them (in direct mode the
 * probe of the 16 KiB message's notice makes the library hold what arrived) and then receives
 * from any source with any tag: from each sender, the 16 KiB message comes first (MPI 4.1
 * section 3.5: order per sender). */
static void held_from_many(EP_Comm d, int me, int size)
{
    unsigned char *big = message(10), *small = message(2);
    if (me != 0) {
        EP_Request r[2];
        CHECK_OK(EP_Isend(big, 16384, MPI_BYTE, 0, 51, d, &r[0]));
        CHECK_OK(EP_Isend(small, 8, MPI_BYTE, 0, 52, d, &r[1]));
        CHECK_OK(EP_Waitall(2, r, EP_STATUSES_IGNORE));
    } else {
        EP_Status st;
        int count = -1;
        CHECK_OK(EP_Probe(EP_ANY_SOURCE, 52, d, &st)); /* a sender's 16 KiB has arrived before */
        CHECK_OK(EP_Probe(EP_ANY_SOURCE, 51, d, &st)); /* its notice: what arrived is held */
        CHECK_OK(EP_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == 16384, "probe of a 16 KiB message from any source: %d bytes", count);
        int *seen = calloc(size, sizeof(int));
        unsigned char *in = malloc(16384);
        for (int i = 0; i < 2 * (size - 1); i++) {
            count = -1;
            CHECK_OK(EP_Recv(in, 16384, MPI_BYTE, EP_ANY_SOURCE, EP_ANY_TAG, d, &st));
            CHECK_OK(EP_Get_count(&st, MPI_BYTE, &count));
            int src = st.MPI_SOURCE, first = src > 0 && src < size && seen[src]++ == 0;
            CHECK(src > 0 && src < size && st.MPI_TAG == (first ? 51 : 52) && count == (first ? 16384 : 8),
                  "message %d: %d bytes tag %d from %d, the %s from it", i, count, st.MPI_TAG, src,
                  first ? "first" : "second");
            if (count == 16384)
                CHECK(memcmp(in, big, 16384) == 0, "the 16 KiB from %d", src);
        }
        free(seen);
        free(in);
    }
    free(big);
    free(small);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A receive freed while posted still takes its message, of 8 bytes or 16 KiB, into its
 * buffer. */
static void freed(EP_Comm d, int left, int right)
{
    int ks[2] = {2, 10};
    for (int i = 0; i < 2; i++) {
        unsigned char *out = message(ks[i]), *in = calloc(LENGTHS[ks[i]], 1);
        EP_Request r;
        CHECK_OK(EP_Irecv(in, LENGTHS[ks[i]], MPI_BYTE, left, TAG, d, &r));
        CHECK_OK(EP_Request_free(&r));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_OK(EP_Send(out, LENGTHS[ks[i]], MPI_BYTE, right, TAG, d));
        /* The library completes the freed receive while the program probes. */
        int bad = await_bytes(d, left, in, out, LENGTHS[ks[i]]);
        CHECK(bad < 0, "freed receive of %d bytes: byte %d wrong after 30 s", LENGTHS[ks[i]], bad);
        MPI_Barrier(MPI_COMM_WORLD);
        free(out);
        free(in);
    }
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    EP_Comm d;
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &d));
    int me, size, left, right;
    ep_test_ring(d, &me, &size, &left, &right);
    in_order(d, left, right);
    probes(d, left, right);
    truncated(d, left, right);
    synchronous(d, left, right);
    strided(d, left, right);
    freed(d, left, right);
    freed_persistent_strided(d, left, right);
    held_truncated(d, left, right);
    cancel_after_arrival(d, left, right);
    test_only_progress(d, me);
    held_from_many(d, me, size);
    CHECK_OK(EP_Comm_free(&d));
    return ep_test_finish("direct_notices", wr);
}
