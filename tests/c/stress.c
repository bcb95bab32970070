/*
 * Randomised, reproducible point-to-point traffic over every endpoint, checked message by
 * message against MPI's matching rules (issue 10, stress).
 *
 * Every endpoint derives the same schedule from a seed: rounds of messages (source, destination,
 * communicator, tag, size, send mode). Each round, every endpoint posts its receives, sends, and
 * completes; then collectives on three communicators check the round's totals. Per round and per
 * (destination, communicator) one receive style is drawn, kept uniform so that any correct MPI
 * completes it: exact (source, tag) Irecvs; (ANY_SOURCE, tag) Irecvs; (ANY_SOURCE, ANY_TAG)
 * Irecvs; late Probe(ANY, ANY) + Recv; late blocking exact Recvs. Send modes: Isend, Issend, and
 * blocking Send/Ssend towards pre-posted receives. Sizes run from 0 bytes to 256 KiB (eager and
 * rendezvous). Every round also cancels a receive that nothing matches.
 *
 * Checks: each receive, in posting order, got the first not yet received message of its source
 * that it matches (MPI 4.1 section 3.5, non-overtaking), with the right size and bytes; every
 * message arrives exactly once; the round's received bytes and count sum, over all endpoints,
 * to the schedule's (Allreduce); a Bcast and a Barrier on other communicators interleave.
 *
 * Arguments: [messages (default 20000) [seed (default 1)]]; EPMPI_TEST_EPS gives the endpoints
 * per process. World rank 0 prints the seed and the totals. A soak: `stress 10000000 $RANDOM`.
 */
#include "ep_test.h"

#include <stdint.h>

enum { COMMS = 2, TAGS = 5, CANCEL_TAG = 99, PER_RANK = 4 };
enum { ST_EXACT, ST_ANY_SOURCE, ST_ANY_ANY, ST_PROBE, ST_LATE_EXACT, STYLES };
enum { SM_ISEND, SM_ISSEND, SM_SEND, SM_SSEND };

typedef struct {
    int src, dst, comm, tag, send_mode;
    int bytes;
    int64_t seq; /* index of the message in the whole run: its identity */
    int received;
} msg_t;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned char byte_of(int64_t seq, int j)
{
    return (unsigned char)(seq * 131 + j * 7 + (j >> 8));
}

static uint64_t seed = 1;
static int ranks; /* endpoints in all, set before the threads start */

/* Receive style of (round, destination, communicator): the same on every endpoint. */
static int style_of(int round, int dst, int comm)
{
    uint64_t s = seed * 1000003u + (uint64_t)round * 7919u + (uint64_t)dst * 31u + (uint64_t)comm;
    return (int)(splitmix(&s) % STYLES);
}

static int preposted(int style)
{
    return style == ST_EXACT || style == ST_ANY_SOURCE || style == ST_ANY_ANY;
}

/* The messages of round `round` (PER_RANK per endpoint), the same on every endpoint. */
static void make_round(int round, msg_t *m, int count, int64_t first_seq)
{
    uint64_t s = seed ^ ((uint64_t)round << 32);
    for (int i = 0; i < count; i++) {
        m[i].src = (int)(splitmix(&s) % (uint64_t)ranks);
        m[i].dst = (int)(splitmix(&s) % (uint64_t)ranks);
        m[i].comm = (int)(splitmix(&s) % COMMS);
        m[i].tag = (int)(splitmix(&s) % TAGS);
        uint64_t size_class = splitmix(&s) % 100;
        uint64_t r = splitmix(&s);
        m[i].bytes = size_class < 70 ? (int)(r % 257) : size_class < 95 ? 256 + (int)(r % 8192) : 8192 + (int)(r % (256 * 1024 - 8192));
        int mode = (int)(splitmix(&s) % 4);
        if (!preposted(style_of(round, m[i].dst, m[i].comm)) || m[i].src == m[i].dst)
            mode = mode % 2; /* blocking sends only towards receives already posted */
        m[i].send_mode = mode;
        m[i].seq = first_seq + i;
        m[i].received = 0;
    }
}

/* The first message of the round not yet received from `src` on `comm` to `dst` that a receive
 * for `tag` (or EP_ANY_TAG) matches, or NULL. */
static msg_t *first_match(msg_t *m, int count, int dst, int comm, int src, int tag)
{
    for (int i = 0; i < count; i++)
        if (!m[i].received && m[i].dst == dst && m[i].comm == comm && m[i].src == src &&
            (tag == EP_ANY_TAG || m[i].tag == tag))
            return &m[i];
    return NULL;
}

typedef struct {
    int comm, source, tag; /* what was asked (source/tag may be wildcards) */
    unsigned char *buf;
    EP_Request req;
    EP_Status st;
} recv_t;

/* Checks a completed receive against the schedule and marks its message received. */
static void check_receive(msg_t *m, int count, int me, recv_t *r, int64_t *bytes, int64_t *msgs)
{
    int src = r->st.MPI_SOURCE, got;
    EP_Get_count(&r->st, MPI_BYTE, &got);
    msg_t *want = first_match(m, count, me, r->comm, src, r->tag);
    CHECK(want != NULL, "endpoint %d: unexpected message from %d tag %d", me, src, r->st.MPI_TAG);
    if (!want)
        return;
    CHECK(r->st.MPI_TAG == want->tag && got == want->bytes,
          "endpoint %d: from %d got tag %d, %d bytes; expected message %lld (tag %d, %d bytes)", me, src,
          r->st.MPI_TAG, got, (long long)want->seq, want->tag, want->bytes);
    int bad = 0;
    for (int j = 0; j < got && j < want->bytes; j++)
        bad += r->buf[j] != byte_of(want->seq, j);
    CHECK(bad == 0, "endpoint %d: message %lld from %d: %d wrong bytes", me, (long long)want->seq, src, bad);
    want->received = 1;
    *bytes += got;
    (*msgs)++;
}

static int run_round(EP_Comm *comms, EP_Comm world, EP_Comm half, int me, int round, msg_t *m, int count)
{
    int64_t my_bytes = 0, my_msgs = 0, all_bytes = 0, all_msgs = 0;
    int max_recv = 0;
    for (int i = 0; i < count; i++)
        max_recv += m[i].dst == me;
    recv_t *rv = calloc((size_t)max_recv + 1, sizeof *rv);
    int nr = 0;
    /* 1. pre-posted receives, in schedule order */
    for (int c = 0; c < COMMS; c++) {
        int style = style_of(round, me, c);
        if (!preposted(style))
            continue;
        for (int i = 0; i < count; i++) {
            if (m[i].dst != me || m[i].comm != c)
                continue;
            recv_t *r = &rv[nr++];
            r->comm = c;
            r->source = style == ST_EXACT ? m[i].src : EP_ANY_SOURCE;
            r->tag = style == ST_ANY_ANY ? EP_ANY_TAG : m[i].tag;
            r->buf = malloc(256 * 1024);
            CHECK_OK(EP_Irecv(r->buf, 256 * 1024, MPI_BYTE, r->source, r->tag, comms[c], &r->req));
        }
    }
    int preposted_count = nr;
    /* A receive nothing matches, cancelled. */
    EP_Request cancel_req;
    int dummy;
    CHECK_OK(EP_Irecv(&dummy, 1, MPI_INT, EP_ANY_SOURCE, CANCEL_TAG, comms[round % COMMS], &cancel_req));
    CHECK_OK(EP_Cancel(&cancel_req));
    EP_Status cst;
    CHECK_OK(EP_Wait(&cancel_req, &cst));
    int cancelled = 0;
    CHECK_OK(EP_Test_cancelled(&cst, &cancelled));
    CHECK(cancelled == 1, "receive not cancelled");
    /* Everyone has posted before blocking sends start. */
    CHECK_OK(EP_Barrier(half));
    CHECK_OK(EP_Barrier(world));

    /* 2. sends */
    EP_Request *sreq = malloc(sizeof(EP_Request) * (size_t)count);
    unsigned char **sbuf = malloc(sizeof(unsigned char *) * (size_t)count);
    int ns = 0;
    for (int i = 0; i < count; i++) {
        if (m[i].src != me)
            continue;
        unsigned char *b = malloc((size_t)m[i].bytes + 1);
        for (int j = 0; j < m[i].bytes; j++)
            b[j] = byte_of(m[i].seq, j);
        EP_Comm c = comms[m[i].comm];
        switch (m[i].send_mode) {
        case SM_ISEND:
            CHECK_OK(EP_Isend(b, m[i].bytes, MPI_BYTE, m[i].dst, m[i].tag, c, &sreq[ns]));
            break;
        case SM_ISSEND:
            CHECK_OK(EP_Issend(b, m[i].bytes, MPI_BYTE, m[i].dst, m[i].tag, c, &sreq[ns]));
            break;
        case SM_SEND:
            CHECK_OK(EP_Send(b, m[i].bytes, MPI_BYTE, m[i].dst, m[i].tag, c));
            sreq[ns] = EP_REQUEST_NULL;
            break;
        default:
            CHECK_OK(EP_Ssend(b, m[i].bytes, MPI_BYTE, m[i].dst, m[i].tag, c));
            sreq[ns] = EP_REQUEST_NULL;
            break;
        }
        sbuf[ns++] = b;
    }

    /* 3. late receives */
    unsigned char *late = malloc(256 * 1024);
    for (int c = 0; c < COMMS; c++) {
        int style = style_of(round, me, c);
        if (preposted(style))
            continue;
        for (int i = 0; i < count; i++) {
            if (m[i].dst != me || m[i].comm != c)
                continue;
            recv_t r = {.comm = c, .buf = late};
            if (style == ST_PROBE) {
                EP_Status pst;
                CHECK_OK(EP_Probe(EP_ANY_SOURCE, EP_ANY_TAG, comms[c], &pst));
                r.source = EP_ANY_SOURCE;
                r.tag = EP_ANY_TAG; /* the probe matched like a (ANY, ANY) receive */
                CHECK_OK(EP_Recv(late, 256 * 1024, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, comms[c], &r.st));
                CHECK(r.st.MPI_SOURCE == pst.MPI_SOURCE && r.st.MPI_TAG == pst.MPI_TAG, "probe and receive disagree");
            } else {
                r.source = m[i].src;
                r.tag = m[i].tag;
                CHECK_OK(EP_Recv(late, 256 * 1024, MPI_BYTE, r.source, r.tag, comms[c], &r.st));
            }
            check_receive(m, count, me, &r, &my_bytes, &my_msgs);
        }
    }
    free(late);

    /* 4. completion: receives checked in posting order (matching order), sends */
    for (int k = 0; k < preposted_count; k++)
        CHECK_OK(EP_Wait(&rv[k].req, &rv[k].st));
    for (int k = 0; k < preposted_count; k++) {
        check_receive(m, count, me, &rv[k], &my_bytes, &my_msgs);
        free(rv[k].buf);
    }
    if (round % 2) {
        int done = 0;
        while (!done)
            CHECK_OK(EP_Testall(ns, sreq, &done, EP_STATUSES_IGNORE));
    } else {
        CHECK_OK(EP_Waitall(ns, sreq, EP_STATUSES_IGNORE));
    }
    for (int k = 0; k < ns; k++)
        free(sbuf[k]);
    free(sbuf);
    free(sreq);
    free(rv);

    /* 5. totals over every endpoint, and collectives on the other communicators */
    int64_t mine[2] = {my_bytes, my_msgs}, all[2];
    CHECK_OK(EP_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, world));
    all_bytes = all[0];
    all_msgs = all[1];
    int64_t want_bytes = 0;
    for (int i = 0; i < count; i++)
        want_bytes += m[i].bytes;
    CHECK(all_msgs == count && all_bytes == want_bytes, "round %d: %lld messages, %lld bytes received; %d, %lld sent", round,
          (long long)all_msgs, (long long)all_bytes, count, (long long)want_bytes);
    int token = me == round % ranks ? round : -1;
    CHECK_OK(EP_Bcast(&token, 1, MPI_INT, round % ranks, comms[1]));
    CHECK(token == round, "bcast of round %d gave %d", round, token);
    return (int)my_msgs;
}

static void run_endpoint(EP_Comm comm, int64_t total_messages, int64_t *received)
{
    int me;
    int size = -1;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &size));
    CHECK(size == ranks, "size %d, expected %d", size, ranks);
    EP_Comm comms[COMMS], world, half;
    for (int c = 0; c < COMMS; c++)
        CHECK_OK(EP_Comm_dup(comm, &comms[c]));
    CHECK_OK(EP_Comm_dup(comm, &world));
    CHECK_OK(EP_Comm_split(comm, me % 2, -me, &half));
    int count = PER_RANK * ranks;
    msg_t *m = malloc(sizeof(msg_t) * (size_t)count);
    int rounds = (int)((total_messages + count - 1) / count);
    for (int round = 0; round < rounds; round++) {
        make_round(round, m, count, (int64_t)round * count);
        *received += run_round(comms, world, half, me, round, m, count);
    }
    free(m);
    for (int c = 0; c < COMMS; c++)
        CHECK_OK(EP_Comm_free(&comms[c]));
    CHECK_OK(EP_Comm_free(&world));
    CHECK_OK(EP_Comm_free(&half));
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int64_t total = argc > 1 ? strtoll(argv[1], NULL, 10) : 20000;
    seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    int n = ep_test_count_for(wr);
    for (int p = 0; p < ws; p++)
        ranks += ep_test_count_for(p);
    EP_Comm *comms = malloc((n > 0 ? n : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    int64_t received = 0, all = 0;
    double t0 = MPI_Wtime();
    if (n > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n) reduction(+ : received)
        {
            EP_Comm c = comms[omp_get_thread_num()];
            run_endpoint(c, total, &received);
            CHECK_OK(EP_Comm_free(&c));
        }
    }
    MPI_Allreduce(&received, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (wr == 0)
        printf("stress: seed %llu, %lld messages checked in %.1f s\n", (unsigned long long)seed, (long long)all,
               MPI_Wtime() - t0);
    free(comms);
    return ep_test_finish("stress", wr);
}
