/*
 * Randomised, reproducible point-to-point traffic over every endpoint, checked message by
 * message against MPI's matching rules.
 *
 * Every endpoint derives the same schedule from a seed: rounds of messages (source, destination,
 * communicator, tag, size, send mode). Each round, every endpoint posts its receives, sends, and
 * completes; then collectives on three communicators check the round's totals.
 *
 * Receives. Each (destination, communicator) pair is one matching queue. Per round a queue gets
 * one receive per message of the round sent to it, each made from one of those messages by
 * keeping or replacing its source and its tag, drawn per receive: exact (source, tag),
 * (source, EP_ANY_TAG), (EP_ANY_SOURCE, tag) or (EP_ANY_SOURCE, EP_ANY_TAG); so one queue holds a
 * mixture. A queue's receives are either all pre-posted Irecvs (posted before any send) or all
 * late, posted one after the other after this endpoint's sends: blocking Recvs, Probes with the
 * receive's filter followed by a Recv of what they found, or Mprobes followed by Mrecvs.
 *
 * No deadlock, by construction (plan_queue). A mixture can starve a receive: an (EP_ANY_SOURCE,
 * EP_ANY_TAG) receive posted first may take the one message that an exact receive after it
 * needs. It cannot when any two receives of a queue that match a common message of the round
 * are nested, the earlier-posted one matching a subset of the messages the later one matches.
 * Suppose a receive R stays pending for good. Every message R matches is then taken (a pending
 * message and a pending receive that match do meet), never by a receive posted after R (MPI's
 * receiver order, below), so by earlier receives that overlap R, each matching a subset of R's
 * messages and taking one of them. Each of those receives, and R, was made from a distinct
 * message of its own set, so R's set holds more messages than those receives can take: one
 * is left, a contradiction. Hence a (source, EP_ANY_TAG) receive that would overlap an
 * (EP_ANY_SOURCE, tag) one without nesting becomes exact (and the reverse), and a queue's
 * receives are posted in a random order that puts each after every receive matching a strict
 * subset of its messages. In a pre-posted queue a message that no pending receive matches would
 * never be taken, so it always finds one: blocking sends towards pre-posted queues complete.
 *
 * Send modes: Isend, Issend, and blocking Send/Ssend towards pre-posted queues of other
 * endpoints. Sizes run from 0 bytes to 256 KiB (eager and rendezvous); a receive's count is the
 * largest message its filter matches, no more (a wrong match may truncate). Every round also
 * cancels a receive that nothing matches.
 *
 * Checks (check_receive). MPI 4.1 section 3.5 orders matching two ways: a receive does not take
 * a message while an earlier message from the same sender that it also matches is pending
 * (sender order), and a message does not go to a receive while an earlier-posted receive that
 * also matches it is pending (receiver order). It leaves free which sender an EP_ANY_SOURCE
 * receive hears first, and orders nothing else. An outcome is possible under these two rules
 * exactly when, taking each queue's receives in posting order, each got, from the sender it
 * reports, the first message in send order that its filter matches and that no receive posted
 * before it got: then matching in posting order obeys both rules; and if a receive R got a
 * later message than that first one, m, then m went to a receive posted after R, which receiver
 * order forbids while R is pending and sender order forbids once R has taken the later message.
 * That is what is checked, together with the filter (source and tag), the size and every byte.
 * So messages of one (source, destination, communicator, tag) arrive in send order, every
 * receive gets the earliest eligible message of whichever sender it reports, and no message
 * arrives twice; the round's received bytes and counts, summed over all endpoints
 * (Allreduce), equal the schedule's, so every message arrives once. A self-test first feeds the
 * checker outcomes that MPI allows and outcomes that it forbids (checker_self_test).
 *
 * Arguments: [messages (default 20000) [seed (default 1)]]; EPMPI_TEST_EPS gives the endpoints
 * per process. World rank 0 prints the seed, the totals and how many receives of each filter
 * were posted. A soak: `stress 10000000 $RANDOM`.
 */
#include "ep_test.h"

#include <stdint.h>

enum { COMMS = 2, TAGS = 5, CANCEL_TAG = 99, PER_RANK = 8, MAX_BYTES = 256 * 1024 };
/* What a receive names exactly: source and tag, source only, tag only, neither. */
enum { F_EXACT, F_SOURCE, F_TAG, F_ANY, FILTERS };
/* How a late receive is made. */
enum { L_RECV, L_PROBE, L_MPROBE, LATE_KINDS };
enum { SM_ISEND, SM_ISSEND, SM_SEND, SM_SSEND };
/* Per endpoint: receives of each filter, late ones, late ones by probe or mprobe, queues with
 * receives of more than one filter. Summed over the run. */
enum { S_EXACT, S_SOURCE, S_TAG, S_ANY, S_LATE, S_PROBED, S_MIXED, STATS };

typedef struct {
    int src, dst, comm, tag, send_mode;
    int bytes;
    int64_t seq; /* index of the message in the whole run: its identity */
    int received;
} msg_t;

typedef struct {
    int comm, source, tag; /* the queue's communicator and the filter (source, tag may be wildcards) */
    int late;              /* L_RECV, L_PROBE or L_MPROBE in a late queue; -1 when pre-posted */
    int cap;               /* buffer size: the largest message of the round that the filter matches */
    unsigned char *buf;
    EP_Request req;
    EP_Status st;
} recv_t;

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
static int64_t stats[STATS];

/* Random stream of queue (dst, comm) in `round`, the same on every endpoint. */
static uint64_t queue_stream(int round, int dst, int comm)
{
    uint64_t s = seed * 1000003u + (uint64_t)round * 7919u + (uint64_t)dst * 31u + (uint64_t)comm;
    splitmix(&s);
    return s;
}

/* Whether the receives of queue (dst, comm) are late in `round` (3 in 10), known to senders
 * too: blocking sends go only towards pre-posted receives. */
static int queue_late(int round, int dst, int comm)
{
    uint64_t s = queue_stream(round, dst, comm);
    return splitmix(&s) % 10 < 3;
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
        m[i].bytes = size_class < 70 ? (int)(r % 257) : size_class < 95 ? 256 + (int)(r % 8192) : 8192 + (int)(r % (MAX_BYTES - 8192));
        int mode = (int)(splitmix(&s) % 4);
        if (queue_late(round, m[i].dst, m[i].comm) || m[i].src == m[i].dst)
            mode = mode % 2; /* blocking sends only towards receives already posted */
        m[i].send_mode = mode;
        m[i].seq = first_seq + i;
        m[i].received = 0;
    }
}

static int matches(int source, int tag, const msg_t *x)
{
    return (source == EP_ANY_SOURCE || source == x->src) && (tag == EP_ANY_TAG || tag == x->tag);
}

static int filter_of(const recv_t *r)
{
    return r->source != EP_ANY_SOURCE ? (r->tag != EP_ANY_TAG ? F_EXACT : F_SOURCE) : (r->tag != EP_ANY_TAG ? F_TAG : F_ANY);
}

/* Whether receive `outer` matches every message of the queue (q, n) that `inner` matches. */
static int within(const recv_t *inner, const recv_t *outer, const msg_t *const *q, int n)
{
    for (int k = 0; k < n; k++)
        if (matches(inner->source, inner->tag, q[k]) && !matches(outer->source, outer->tag, q[k]))
            return 0;
    return 1;
}

static int overlap(const recv_t *a, const recv_t *b, const msg_t *const *q, int n)
{
    for (int k = 0; k < n; k++)
        if (matches(a->source, a->tag, q[k]) && matches(b->source, b->tag, q[k]))
            return 1;
    return 0;
}

/* The receives of queue (dst, comm) in `round`, in posting order, into `out` (room for one per
 * message of the round); returns how many. Deadlock-free by construction (top of the file). */
static int plan_queue(int round, int dst, int comm, const msg_t *m, int count, recv_t *out)
{
    const msg_t **q = malloc(sizeof(msg_t *) * (size_t)count);
    recv_t *draft = malloc(sizeof(recv_t) * (size_t)count);
    int n = 0;
    for (int i = 0; i < count; i++)
        if (m[i].dst == dst && m[i].comm == comm)
            q[n++] = &m[i];
    uint64_t s = queue_stream(round, dst, comm) ^ 0x5bd1e995u;
    int late = queue_late(round, dst, comm);
    /* 1. a filter per message: exact 3 in 10, source only 2, tag only 2, wildcards 3 */
    for (int k = 0; k < n; k++) {
        uint64_t d = splitmix(&s) % 10;
        int f = d < 3 ? F_EXACT : d < 5 ? F_SOURCE : d < 7 ? F_TAG : F_ANY;
        /* a source-only receive and a tag-only one overlap without nesting when a message of the
         * queue has that source and that tag: the later-drawn one becomes exact */
        for (int j = 0; j < k && (f == F_SOURCE || f == F_TAG); j++) {
            int g = filter_of(&draft[j]);
            int src = f == F_SOURCE ? q[k]->src : draft[j].source;
            int tag = f == F_TAG ? q[k]->tag : draft[j].tag;
            if ((f == F_SOURCE && g == F_TAG) || (f == F_TAG && g == F_SOURCE))
                for (int x = 0; x < n; x++)
                    if (q[x]->src == src && q[x]->tag == tag)
                        f = F_EXACT;
        }
        recv_t *r = &draft[k];
        memset(r, 0, sizeof *r);
        r->comm = comm;
        r->source = f == F_EXACT || f == F_SOURCE ? q[k]->src : EP_ANY_SOURCE;
        r->tag = f == F_EXACT || f == F_TAG ? q[k]->tag : EP_ANY_TAG;
        r->late = late ? (int)(splitmix(&s) % LATE_KINDS) : -1;
        r->cap = 1;
        for (int x = 0; x < n; x++)
            if (matches(r->source, r->tag, q[x]) && q[x]->bytes > r->cap)
                r->cap = q[x]->bytes;
    }
    /* The generator's own invariant: receives that overlap are nested. */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            CHECK(!overlap(&draft[a], &draft[b], q, n) || within(&draft[a], &draft[b], q, n) || within(&draft[b], &draft[a], q, n),
                  "round %d queue (%d, %d): receives %d and %d overlap without nesting", round, dst, comm, a, b);
    /* 2. posting order: at each step, one at random among the receives that no remaining receive
     * precedes (one overlapping it and matching a strict subset of its messages) */
    int *eligible = malloc(sizeof(int) * (size_t)(n + 1));
    for (int placed = 0; placed < n; placed++) {
        int ne = 0;
        for (int a = placed; a < n; a++) {
            int ok = 1;
            for (int b = placed; b < n && ok; b++)
                if (b != a && overlap(&draft[a], &draft[b], q, n) && within(&draft[b], &draft[a], q, n) &&
                    !within(&draft[a], &draft[b], q, n))
                    ok = 0;
            if (ok)
                eligible[ne++] = a;
        }
        CHECK(ne > 0, "round %d queue (%d, %d): no receive to post", round, dst, comm);
        if (ne == 0)
            break;
        int pick = eligible[splitmix(&s) % (uint64_t)ne];
        recv_t tmp = draft[placed];
        draft[placed] = draft[pick];
        draft[pick] = tmp;
        out[placed] = draft[placed];
    }
    int kinds = 0;
    for (int f = 0; f < FILTERS; f++) {
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= filter_of(&out[k]) == f;
        kinds += seen;
    }
    for (int k = 0; k < n; k++) {
#pragma omp atomic
        stats[filter_of(&out[k])]++;
        if (late) {
#pragma omp atomic
            stats[S_LATE]++;
            if (out[k].late != L_RECV) {
#pragma omp atomic
                stats[S_PROBED]++;
            }
        }
    }
    if (kinds > 1) {
#pragma omp atomic
        stats[S_MIXED]++;
    }
    free(eligible);
    free(draft);
    free(q);
    return n;
}

/* The first message of the round in send order from `src` on queue (dst, comm) that a receive
 * for `tag` (or EP_ANY_TAG) matches and that no receive checked before got, or NULL. */
static msg_t *first_match(msg_t *m, int count, int dst, int comm, int src, int tag)
{
    for (int i = 0; i < count; i++)
        if (!m[i].received && m[i].dst == dst && m[i].comm == comm && m[i].src == src &&
            (tag == EP_ANY_TAG || m[i].tag == tag))
            return &m[i];
    return NULL;
}

/* Judges a completed receive of endpoint `me` (its status's source and tag, `got` bytes), taken
 * in posting order within its queue, against the round's messages (the rule at the top of the
 * file). Right: marks its message received and returns 1. Wrong: writes why into `why` and
 * returns 0. */
static int judge_receive(msg_t *m, int count, int me, const recv_t *r, int got, char *why, size_t len)
{
    int src = r->st.MPI_SOURCE, tag = r->st.MPI_TAG;
    if ((r->source != EP_ANY_SOURCE && src != r->source) || (r->tag != EP_ANY_TAG && tag != r->tag)) {
        snprintf(why, len, "endpoint %d: a receive for (source %d, tag %d) got source %d, tag %d", me, r->source, r->tag, src,
                 tag);
        return 0;
    }
    msg_t *want = first_match(m, count, me, r->comm, src, r->tag);
    if (!want) {
        snprintf(why, len, "endpoint %d: a receive for (source %d, tag %d) got a message from %d tag %d, none of which is left",
                 me, r->source, r->tag, src, tag);
        return 0;
    }
    int bad = 0;
    for (int j = 0; j < got && j < want->bytes; j++)
        bad += r->buf[j] != byte_of(want->seq, j);
    if (tag != want->tag || got != want->bytes || bad) {
        snprintf(why, len,
                 "endpoint %d: a receive for (source %d, tag %d) got from %d: tag %d, %d bytes (%d differing); "
                 "expected message %lld (tag %d, %d bytes), the first one from %d it matches",
                 me, r->source, r->tag, src, tag, got, bad, (long long)want->seq, want->tag, want->bytes, src);
        return 0;
    }
    want->received = 1;
    return 1;
}

/* Checks a completed receive (judge_receive) and counts it. */
static void check_receive(msg_t *m, int count, int me, recv_t *r, int64_t *bytes, int64_t *msgs)
{
    char why[400];
    int got = -1;
    CHECK_OK(EP_Get_count(&r->st, MPI_BYTE, &got));
    int ok = judge_receive(m, count, me, r, got, why, sizeof why);
    CHECK(ok, "%s", why);
    if (ok) {
        *bytes += got;
        (*msgs)++;
    }
}

/* Outcomes fed to the checker: messages (source, tag) to endpoint 0 on communicator 0 in send
 * order, receives (source, tag) in posting order and the index of the message each got. */
typedef struct {
    const char *what;
    int allowed;
    int nmsg, nrecv;
    int msg[4][2];
    int recv[4][3];
} outcome_t;

enum { A = 1, B = 2, ANY_S = EP_ANY_SOURCE, ANY_T = EP_ANY_TAG };

static const outcome_t OUTCOMES[] = {
    {"two wildcard receives, the first gets the second sender's message", 1, 2, 2, {{A, 0}, {B, 0}},
     {{ANY_S, ANY_T, 1}, {ANY_S, ANY_T, 0}}},
    {"two wildcard receives, in send order", 1, 2, 2, {{A, 0}, {B, 0}}, {{ANY_S, ANY_T, 0}, {ANY_S, ANY_T, 1}}},
    {"an any-source receive before an exact one takes the other sender's message", 1, 2, 2, {{A, 0}, {B, 0}},
     {{ANY_S, 0, 1}, {A, 0, 0}}},
    {"a message overtakes an earlier one of another tag that no receive of it matches", 1, 3, 3, {{A, 1}, {A, 0}, {B, 0}},
     {{ANY_S, 0, 1}, {ANY_S, ANY_T, 2}, {A, 1, 0}}},
    {"an exact receive after a source-only one of another sender", 1, 3, 3, {{A, 0}, {B, 1}, {A, 0}},
     {{B, ANY_T, 1}, {A, 0, 0}, {ANY_S, ANY_T, 2}}},
    {"two messages of one source and tag swapped", 0, 2, 2, {{A, 2}, {A, 2}}, {{A, 2, 1}, {A, 2, 0}}},
    {"two messages of one source and tag swapped between wildcard receives", 0, 3, 3, {{A, 2}, {B, 2}, {A, 2}},
     {{ANY_S, 2, 2}, {ANY_S, ANY_T, 1}, {ANY_S, ANY_T, 0}}},
    {"a wildcard receive takes a later message of a sender, leaving an earlier one it matches to a later receive", 0, 2, 2,
     {{A, 0}, {A, 1}}, {{ANY_S, ANY_T, 1}, {A, ANY_T, 0}}},
    {"a source-only receive skips an earlier message of its source", 0, 2, 2, {{A, 0}, {A, 1}}, {{A, ANY_T, 1}, {A, 0, 0}}},
    {"a tag-only receive skips an earlier message of that tag from the sender it reports", 0, 3, 3, {{A, 3}, {B, 3}, {A, 3}},
     {{ANY_S, 3, 2}, {B, 3, 1}, {A, 3, 0}}},
    {"a message received twice", 0, 2, 2, {{A, 0}, {B, 0}}, {{ANY_S, ANY_T, 0}, {ANY_S, ANY_T, 0}}},
    {"an exact-source receive reports another source", 0, 2, 2, {{A, 0}, {B, 0}}, {{A, 0, 1}, {B, 0, 0}}},
    {"an exact-tag receive reports another tag", 0, 2, 2, {{A, 0}, {A, 1}}, {{A, 1, 0}, {A, ANY_T, 1}}},
};

/* The checker accepts what MPI allows and rejects what it forbids, on the outcomes above. */
static int checker_self_test(void)
{
    int n = (int)(sizeof OUTCOMES / sizeof OUTCOMES[0]);
    for (int c = 0; c < n; c++) {
        const outcome_t *o = &OUTCOMES[c];
        msg_t m[4];
        unsigned char data[4][16];
        for (int i = 0; i < o->nmsg; i++) {
            m[i] = (msg_t){.src = o->msg[i][0], .dst = 0, .comm = 0, .tag = o->msg[i][1], .bytes = 16, .seq = 1000 + i};
            for (int j = 0; j < 16; j++)
                data[i][j] = byte_of(m[i].seq, j);
        }
        int accepted = 1;
        char why[400] = "";
        for (int k = 0; k < o->nrecv && accepted; k++) {
            int got = o->recv[k][2];
            recv_t r = {.comm = 0, .source = o->recv[k][0], .tag = o->recv[k][1], .cap = 16, .buf = data[got]};
            r.st.MPI_SOURCE = m[got].src;
            r.st.MPI_TAG = m[got].tag;
            accepted = judge_receive(m, o->nmsg, 0, &r, m[got].bytes, why, sizeof why);
        }
        CHECK(accepted == o->allowed, "checker self-test: %s: %s (%s)", o->what, accepted ? "accepted" : "rejected", why);
    }
    return n;
}

static int run_round(EP_Comm *comms, EP_Comm world, EP_Comm half, int me, int round, msg_t *m, int count)
{
    int64_t my_bytes = 0, my_msgs = 0, all_bytes = 0, all_msgs = 0;
    recv_t *plan[COMMS];
    int nplan[COMMS];
    for (int c = 0; c < COMMS; c++) {
        plan[c] = calloc((size_t)count + 1, sizeof(recv_t));
        nplan[c] = plan_queue(round, me, c, m, count, plan[c]);
    }
    /* 1. pre-posted receives, in each queue's posting order */
    for (int c = 0; c < COMMS; c++) {
        if (queue_late(round, me, c))
            continue;
        for (int k = 0; k < nplan[c]; k++) {
            recv_t *r = &plan[c][k];
            r->buf = malloc((size_t)r->cap);
            CHECK_OK(EP_Irecv(r->buf, r->cap, MPI_BYTE, r->source, r->tag, comms[c], &r->req));
        }
    }
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

    /* 3. late receives, one after the other, checked as they complete (posting order) */
    unsigned char *late = malloc(MAX_BYTES);
    for (int c = 0; c < COMMS; c++) {
        if (!queue_late(round, me, c))
            continue;
        for (int k = 0; k < nplan[c]; k++) {
            recv_t *r = &plan[c][k];
            r->buf = late;
            if (r->late == L_PROBE) {
                EP_Status pst;
                CHECK_OK(EP_Probe(r->source, r->tag, comms[c], &pst));
                CHECK_OK(EP_Recv(late, r->cap, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, comms[c], &r->st));
                CHECK(r->st.MPI_SOURCE == pst.MPI_SOURCE && r->st.MPI_TAG == pst.MPI_TAG, "probe and receive disagree");
            } else if (r->late == L_MPROBE) {
                EP_Status pst;
                EP_Message msg;
                CHECK_OK(EP_Mprobe(r->source, r->tag, comms[c], &msg, &pst));
                CHECK_OK(EP_Mrecv(late, r->cap, MPI_BYTE, &msg, &r->st));
                CHECK(r->st.MPI_SOURCE == pst.MPI_SOURCE && r->st.MPI_TAG == pst.MPI_TAG, "mprobe and mrecv disagree");
            } else {
                CHECK_OK(EP_Recv(late, r->cap, MPI_BYTE, r->source, r->tag, comms[c], &r->st));
            }
            check_receive(m, count, me, r, &my_bytes, &my_msgs);
        }
    }
    free(late);

    /* 4. completion: pre-posted receives checked in posting order, sends */
    for (int c = 0; c < COMMS; c++) {
        if (queue_late(round, me, c))
            continue;
        for (int k = 0; k < nplan[c]; k++)
            CHECK_OK(EP_Wait(&plan[c][k].req, &plan[c][k].st));
        for (int k = 0; k < nplan[c]; k++) {
            check_receive(m, count, me, &plan[c][k], &my_bytes, &my_msgs);
            free(plan[c][k].buf);
        }
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
    for (int c = 0; c < COMMS; c++)
        free(plan[c]);

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
    int cases = checker_self_test();
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
    int64_t sums[STATS];
    MPI_Allreduce(stats, sums, STATS, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (wr == 0) {
        printf("stress: checker self-test: %d outcomes judged\n", cases);
        printf("stress: seed %llu, %lld messages checked in %.1f s\n", (unsigned long long)seed, (long long)all,
               MPI_Wtime() - t0);
        printf("stress: receives: %lld exact, %lld source-only, %lld tag-only, %lld wildcard; %lld late (%lld by probe or "
               "mprobe); %lld queues mixed\n",
               (long long)sums[S_EXACT], (long long)sums[S_SOURCE], (long long)sums[S_TAG], (long long)sums[S_ANY],
               (long long)sums[S_LATE], (long long)sums[S_PROBED], (long long)sums[S_MIXED]);
    }
    free(comms);
    return ep_test_finish("stress", wr);
}
