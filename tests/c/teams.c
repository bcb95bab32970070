/*
 * Endpoint teams (docs/teams.md): each process runs its endpoints' threads plus one helper
 * thread that owns no endpoint. For every team size from 1 to all of them, the first `size`
 * threads form a team; the endpoint threads send large same-process messages (whose copy the
 * team shares), reduce large arrays over the whole communicator and over a one-endpoint
 * communicator of their own process (the proposal's Example 1), while the helper (when it is a
 * member) joins and leaves at once, so that it leaves while the others' shared copies are in
 * flight. Every element is checked. Then messages striped between processes by a team of all
 * the process's threads (order with small messages around them, wildcard receives, a receive
 * too small, a non-contiguous receive, members leaving while the messages are in flight), then
 * join/leave 1000 times in a row, and every wrong use.
 */
#include "ep_test.h"

#define BIG (3 * 1024 * 1024 / 8 + 5) /* doubles: about 3 MiB, not a whole number of chunks */
#define RED (300 * 1000)              /* doubles reduced: 2.4 MB */
/* Doubles of a striped message: above the striping size (4 MiB), in parts of 4 MiB with a
 * short last one that is not a whole number of pages. */
#define STRIPED (10 * 1024 * 1024 / 8 + 3)
#define GUARD 1000 /* doubles after a receive buffer that must stay untouched */

static double value(int rank, int i) { return (double)rank * 1e6 + (double)i; }

/* Endpoint `index` of `n` in this process: a large message to the next local endpoint (itself
 * when alone), received from the previous one, checked element by element. */
static void same_process_send(EP_Comm c, int index, int n, int round)
{
    int me;
    EP_Comm_rank(c, &me);
    int first = me - index, to = first + (index + 1) % n, from = first + (index + n - 1) % n;
    double *out = malloc(sizeof(double) * BIG), *in = malloc(sizeof(double) * BIG);
    for (int i = 0; i < BIG; i++) {
        out[i] = value(me, i) + round;
        in[i] = -1;
    }
    EP_Request r;
    CHECK_OK(EP_Isend(out, BIG, MPI_DOUBLE, to, 7, c, &r));
    EP_Status st;
    CHECK_OK(EP_Recv(in, BIG, MPI_DOUBLE, from, 7, c, &st));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
    int count = -1;
    EP_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(st.MPI_SOURCE == from && count == BIG, "source %d count %d", st.MPI_SOURCE, count);
    int bad = 0;
    for (int i = 0; i < BIG; i++)
        if (in[i] != value(from, i) + round && bad++ < 3)
            CHECK(0, "element %d from %d: %g", i, from, in[i]);
    free(out);
    free(in);
}

/* EP_Allreduce and EP_Reduce of RED doubles over `c`, checked element by element. */
static void reductions(EP_Comm c)
{
    int me, size;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    double *in = malloc(sizeof(double) * RED), *out = malloc(sizeof(double) * RED);
    for (int i = 0; i < RED; i++)
        in[i] = value(me, i);
    /* Sum over ranks r of r*1e6 + i. */
    double ranks = (double)size * (size - 1) / 2 * 1e6;
    CHECK_OK(EP_Allreduce(in, out, RED, MPI_DOUBLE, MPI_SUM, c));
    int bad = 0;
    for (int i = 0; i < RED; i++)
        if (out[i] != ranks + (double)size * i && bad++ < 3)
            CHECK(0, "allreduce element %d: %g", i, out[i]);
    for (int i = 0; i < RED; i++)
        out[i] = -1;
    int root = size - 1;
    CHECK_OK(EP_Reduce(in, out, RED, MPI_DOUBLE, MPI_MAX, root, c));
    if (me == root) {
        bad = 0;
        for (int i = 0; i < RED; i++)
            if (out[i] != value(size - 1, i) && bad++ < 3)
                CHECK(0, "reduce element %d: %g", i, out[i]);
    }
    free(in);
    free(out);
}

/* The endpoint this one sends striped messages to: `shift` ranks on, where `shift` is the
 * largest endpoint count of a process, so that most pairs (all in most shapes) cross processes. */
static void striped_peers(EP_Comm c, int *to, int *from)
{
    int me, size, shift = 0, procs;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    for (int p = 0; p < procs; p++)
        if (ep_test_count_for(p) > shift)
            shift = ep_test_count_for(p);
    *to = (me + shift) % size;
    *from = (me - shift % size + size) % size;
}

static double striped_value(int rank, int i, int salt) { return (double)rank * 1e7 + (double)i + salt; }

/* Checks `n` doubles of a striped message from `from` in `in` (`step` apart). */
static void check_striped(const double *in, int n, int step, int from, int salt, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (in[(size_t)i * step] != striped_value(from, i, salt) && bad++ < 3)
            CHECK(0, "%s: element %d from %d: %g", what, i, from, in[(size_t)i * step]);
}

/* Striped messages between processes, the calling thread a member of a team with helpers:
 * a small message, a striped one and a small one with one tag keep their order, the last two
 * received with wildcards; a receive of half the message gets EP_ERR_TRUNCATE and writes
 * nothing past its buffer; a non-contiguous receive (every other double) gets every element.
 * With `leave_early` the caller leaves the team while its last striped send is in flight, and
 * waits for it after. */
static void striped_sends(EP_Comm c, EP_Endpoint_team team, int leave_early)
{
    int me, to, from;
    EP_Comm_rank(c, &me);
    striped_peers(c, &to, &from);
    double *out = malloc(sizeof(double) * STRIPED), *in = malloc(sizeof(double) * (2 * STRIPED + GUARD));
    for (int i = 0; i < STRIPED; i++)
        out[i] = striped_value(me, i, 0);
    for (int i = 0; i < STRIPED + GUARD; i++)
        in[i] = -1;
    double before = 1000 + me, after = 2000 + me;
    EP_Request sr[3];
    CHECK_OK(EP_Isend(&before, 1, MPI_DOUBLE, to, 11, c, &sr[0]));
    CHECK_OK(EP_Isend(out, STRIPED, MPI_DOUBLE, to, 11, c, &sr[1]));
    CHECK_OK(EP_Isend(&after, 1, MPI_DOUBLE, to, 11, c, &sr[2]));
    EP_Status st;
    int count = -1;
    /* Each receive could take any of the three: only MPI's order gives the right one. */
    CHECK_OK(EP_Recv(in, STRIPED, MPI_DOUBLE, from, 11, c, &st));
    EP_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 1 && in[0] == 1000 + from, "first message: count %d value %g", count, in[0]);
    CHECK_OK(EP_Recv(in, STRIPED, MPI_DOUBLE, EP_ANY_SOURCE, EP_ANY_TAG, c, &st));
    EP_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 11 && count == STRIPED, "striped message: source %d tag %d count %d",
          st.MPI_SOURCE, st.MPI_TAG, count);
    check_striped(in, STRIPED, 1, from, 0, "wildcard receive");
    CHECK(in[STRIPED] == -1, "striped receive wrote past the message");
    CHECK_OK(EP_Recv(in, 1, MPI_DOUBLE, EP_ANY_SOURCE, 11, c, &st));
    CHECK(st.MPI_SOURCE == from && in[0] == 2000 + from, "last message: source %d value %g", st.MPI_SOURCE, in[0]);
    CHECK_OK(EP_Waitall(3, sr, EP_STATUSES_IGNORE));

    /* Too small a receive: the first half arrives, nothing past it. */
    for (int i = 0; i < STRIPED; i++)
        out[i] = striped_value(me, i, 1);
    for (int i = 0; i < STRIPED + GUARD; i++)
        in[i] = -1;
    int half = STRIPED / 2;
    CHECK_OK(EP_Isend(out, STRIPED, MPI_DOUBLE, to, 12, c, &sr[0]));
    int rc = EP_Recv(in, half, MPI_DOUBLE, from, 12, c, &st);
    CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "striped truncation gave class %d", ep_class(rc));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 12, "truncated status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    check_striped(in, half, 1, from, 1, "truncated receive");
    int overrun = 0;
    for (int i = half; i < STRIPED + GUARD; i++)
        overrun += in[i] != -1;
    CHECK(overrun == 0, "a truncated striped receive wrote %d doubles past its buffer", overrun);
    CHECK_OK(EP_Wait(&sr[0], EP_STATUS_IGNORE));

    /* Into every other double: the parts land in a buffer of the message's size first. */
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < STRIPED; i++)
        out[i] = striped_value(me, i, 2);
    for (int i = 0; i < 2 * STRIPED + GUARD; i++)
        in[i] = -1;
    CHECK_OK(EP_Isend(out, STRIPED, MPI_DOUBLE, to, 13, c, &sr[0]));
    CHECK_OK(EP_Recv(in, STRIPED, every_other, from, 13, c, &st));
    check_striped(in, STRIPED, 2, from, 2, "non-contiguous receive");
    int gaps = 0;
    for (int i = 1; i < 2 * STRIPED + GUARD; i += 2)
        gaps += in[i] != -1;
    CHECK(gaps == 0, "a non-contiguous receive wrote %d doubles between or past its elements", gaps);
    CHECK_OK(EP_Wait(&sr[0], EP_STATUS_IGNORE));
    MPI_Type_free(&every_other);

    /* Leaving while the message is in flight: its parts are the send's, not the team's. The
     * second round sends in synchronous mode (every part's host send synchronous). */
    for (int i = 0; i < STRIPED; i++)
        out[i] = striped_value(me, i, 3);
    if (leave_early)
        CHECK_OK(EP_Issend(out, STRIPED, MPI_DOUBLE, to, 14, c, &sr[0]));
    else
        CHECK_OK(EP_Isend(out, STRIPED, MPI_DOUBLE, to, 14, c, &sr[0]));
    if (leave_early)
        CHECK_OK(EP_Endpoint_leave(team));
    CHECK_OK(EP_Recv(in, STRIPED, MPI_DOUBLE, from, 14, c, &st));
    check_striped(in, STRIPED, 1, from, 3, "receive after a leave");
    CHECK_OK(EP_Wait(&sr[0], EP_STATUS_IGNORE));
    if (!leave_early)
        CHECK_OK(EP_Endpoint_leave(team));
    free(out);
    free(in);
}

static void wrong_use(void)
{
    EP_Endpoint_team t, u, v;
    CHECK(ep_class(EP_Endpoint_team_create(-1, 2, &t)) == EP_ERR_ARG, "negative team_id");
    CHECK(ep_class(EP_Endpoint_team_create(900, 0, &t)) == EP_ERR_ARG, "team_size 0");
    CHECK(ep_class(EP_Endpoint_team_create(900, 1, NULL)) == EP_ERR_ARG, "NULL team");
    CHECK(ep_class(EP_Endpoint_join(EP_ENDPOINT_TEAM_NULL)) == EP_ERR_ARG, "join the null team");
    CHECK(ep_class(EP_Endpoint_join(12345)) == EP_ERR_ARG, "join a made-up handle");
    CHECK(ep_class(EP_Endpoint_leave(12345)) == EP_ERR_ARG, "leave a made-up handle");
    CHECK_OK(EP_Endpoint_team_create(900, 2, &t));
    CHECK(ep_class(EP_Endpoint_team_create(900, 3, &u)) == EP_ERR_ARG, "size mismatch");
    CHECK_OK(EP_Endpoint_team_create(900, 2, &u));
    CHECK(ep_class(EP_Endpoint_team_create(900, 2, &v)) == EP_ERR_ARG, "a third creator of a team of 2");
    CHECK(ep_class(EP_Endpoint_leave(t)) == EP_ERR_ARG, "leave without join");
    CHECK_OK(EP_Endpoint_join(t));
    CHECK(ep_class(EP_Endpoint_join(t)) == EP_ERR_ARG, "join twice");
    CHECK(ep_class(EP_Endpoint_join(u)) == EP_ERR_ARG, "join twice through another handle");
    CHECK(ep_class(EP_Endpoint_team_destroy(&t)) == EP_ERR_ARG, "destroy by a member");
    CHECK(t != EP_ENDPOINT_TEAM_NULL, "a failed destroy keeps the handle");
    EP_Endpoint_team w;
    CHECK_OK(EP_Endpoint_team_create(901, 1, &w));
    CHECK(ep_class(EP_Endpoint_join(w)) == EP_ERR_ARG, "member of two teams");
    CHECK(ep_class(EP_Endpoint_leave(w)) == EP_ERR_ARG, "leave another team than the one joined");
    /* A team of one: its leave returns at once. */
    CHECK_OK(EP_Endpoint_team_destroy(&w));
    CHECK(w == EP_ENDPOINT_TEAM_NULL, "destroy sets the null handle");
    CHECK(ep_class(EP_Endpoint_team_destroy(&w)) == EP_ERR_ARG, "destroy the null handle");
    /* The other creator's destroy while a member is in. */
    CHECK(ep_class(EP_Endpoint_team_destroy(&u)) == EP_ERR_ARG, "destroy while a member is in");
    /* Leave of a team of 2 with one member would wait: a second thread joins and leaves. */
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            CHECK_OK(EP_Endpoint_leave(t));
        } else {
            CHECK_OK(EP_Endpoint_join(u));
            CHECK_OK(EP_Endpoint_leave(u));
        }
    }
    EP_Endpoint_team stale = t;
    CHECK_OK(EP_Endpoint_team_destroy(&t));
    CHECK(ep_class(EP_Endpoint_join(stale)) == EP_ERR_ARG, "join a destroyed handle");
    CHECK(ep_class(EP_Endpoint_team_destroy(&stale)) == EP_ERR_ARG, "destroy twice");
    CHECK_OK(EP_Endpoint_team_destroy(&u));
    /* The id is free again, with another size. */
    CHECK_OK(EP_Endpoint_team_create(900, 1, &t));
    CHECK_OK(EP_Endpoint_join(t));
    CHECK_OK(EP_Endpoint_leave(t));
    CHECK_OK(EP_Endpoint_team_destroy(&t));
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    /* First, while no thread has a communicator in its lookup cache: its region of 2 threads
     * ends threads of the larger regions below, whose caches would then keep communicators. */
    wrong_use();
    EP_Comm *eps = malloc(sizeof(EP_Comm) * (n ? n : 1));
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, eps));
    EP_Comm lone = EP_COMM_NULL; /* one endpoint, this process only: Example 1 */
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_SELF, 1, MPI_INFO_NULL, &lone));
    int threads = n + 1; /* thread n is a helper with no endpoint */
    /* Every endpoint reduces once per round, so every process makes as many rounds as the
     * process with the most threads; the team sizes of a process stop at its thread count. */
    int rounds;
    MPI_Allreduce(&threads, &rounds, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int round = 1; round <= rounds; round++) {
        int size = round < threads ? round : threads;
#pragma omp parallel num_threads(threads)
        {
            int t = omp_get_thread_num();
            EP_Endpoint_team team = EP_ENDPOINT_TEAM_NULL;
            if (t < size) {
                CHECK_OK(EP_Endpoint_team_create(size, size, &team));
                CHECK_OK(EP_Endpoint_join(team));
            }
            if (t < n) {
                same_process_send(eps[t], t, n, round);
                reductions(eps[t]);
            } else {
                /* The helper: in a team, it leaves while the others' copies are in flight. */
                reductions(lone);
            }
            if (t < size)
                CHECK_OK(EP_Endpoint_leave(team));
            /* Every member has left: the team may go. */
#pragma omp barrier
            if (t < size)
                CHECK_OK(EP_Endpoint_team_destroy(&team));
        }
    }
    /* Striped messages between processes: every thread of the process in one team, joined
     * before any sends so that each finds its helpers; the helper thread leaves at once, while
     * the others' messages are in flight, and in the second round the endpoint threads leave
     * while their own are. */
    for (int round = 0; round < 2; round++) {
#pragma omp parallel num_threads(threads)
        {
            int t = omp_get_thread_num();
            EP_Endpoint_team team;
            CHECK_OK(EP_Endpoint_team_create(50 + round, threads, &team));
            CHECK_OK(EP_Endpoint_join(team));
#pragma omp barrier
            if (t < n)
                striped_sends(eps[t], team, round);
            else
                CHECK_OK(EP_Endpoint_leave(team));
#pragma omp barrier
            CHECK_OK(EP_Endpoint_team_destroy(&team));
        }
    }
    /* Join and leave 1000 times in a row, every thread of the process in one team. */
#pragma omp parallel num_threads(threads)
    {
        EP_Endpoint_team team;
        CHECK_OK(EP_Endpoint_team_create(77, threads, &team));
        for (int i = 0; i < 1000; i++) {
            CHECK_OK(EP_Endpoint_join(team));
            CHECK_OK(EP_Endpoint_leave(team));
        }
#pragma omp barrier
        CHECK_OK(EP_Endpoint_team_destroy(&team));
    }
    /* The communicators still work after the errors; each is freed by the thread that used it
     * (a thread's cache of communicator lookups holds a communicator until its next call). */
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
        if (t < n) {
            ep_test_barrier(eps[t]);
            CHECK_OK(EP_Comm_free(&eps[t]));
        } else {
            CHECK_OK(EP_Comm_free(&lone));
        }
    }
    free(eps);
    return ep_test_finish("teams", wr);
}
