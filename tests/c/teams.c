/*
 * Endpoint teams (docs/teams.md): each process runs its endpoints' threads plus one helper
 * thread that owns no endpoint. For every team size from 1 to all of them, the first `size`
 * threads form a team; the endpoint threads send large same-process messages (whose copy the
 * team shares), reduce large arrays over the whole communicator and over a one-endpoint
 * communicator of their own process (the proposal's Example 1), while the helper (when it is a
 * member) joins and leaves at once, so that it leaves while the others' shared copies are in
 * flight. Every element is checked. Then join/leave 1000 times in a row, and every wrong use.
 */
#include "ep_test.h"

#define BIG (3 * 1024 * 1024 / 8 + 5) /* doubles: about 3 MiB, not a whole number of chunks */
#define RED (300 * 1000)              /* doubles reduced: 2.4 MB */

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
