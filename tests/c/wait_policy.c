/*
 * The wait policy (EPMPI_WAIT_POLICY, src/engine/doorbell.rs). In each process, a communicator
 * of two endpoints of its own: endpoint 1 waits while endpoint 0 sleeps LATE_MS before it
 * answers, in each wait that a thread of the process ends (a blocking receive, EP_Wait on a
 * nonblocking receive, EP_Waitall on two, EP_Waitany, and a synchronous send waiting for its
 * receiver). The data must arrive every time, and under the passive policy (when the test
 * running this program sets EPMPI_WAIT_POLICY=passive) the waiting thread must have used less
 * than a third of the wall time as CPU time: it parked instead of spinning or yielding. Under
 * other policies its CPU share is only printed (a yielding waiter's share depends on what else
 * the machine runs). Then a ring of 8 B messages over all endpoints of the job, every message's
 * sender and round checked, under whichever policy is in force.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include "ep_test.h"
#include <time.h>

#define LATE_MS 150
#define RING_ROUNDS 2000

static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_late(void)
{
    struct timespec late = { 0, LATE_MS * 1000000L };
    nanosleep(&late, NULL);
}

/* Endpoint 1's side of one wait: `how` names it; checks the data and the CPU share. */
static void waiter(EP_Comm c, int how, int passive)
{
    static const char *names[] = { "EP_Recv", "EP_Wait", "EP_Waitall", "EP_Waitany", "EP_Ssend" };
    int in[2] = { -1, -1 }, out = 1000 + how;
    EP_Request r[2];
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
    switch (how) {
    case 0:
        CHECK_OK(EP_Recv(&in[0], 1, MPI_INT, 0, how, c, EP_STATUS_IGNORE));
        break;
    case 1:
        CHECK_OK(EP_Irecv(&in[0], 1, MPI_INT, 0, how, c, &r[0]));
        CHECK_OK(EP_Wait(&r[0], EP_STATUS_IGNORE));
        break;
    case 2:
        CHECK_OK(EP_Irecv(&in[0], 1, MPI_INT, 0, how, c, &r[0]));
        CHECK_OK(EP_Irecv(&in[1], 1, MPI_INT, 0, how, c, &r[1]));
        CHECK_OK(EP_Waitall(2, r, EP_STATUSES_IGNORE));
        break;
    case 3: {
        int index = -1;
        CHECK_OK(EP_Irecv(&in[0], 1, MPI_INT, EP_ANY_SOURCE, how, c, &r[0]));
        CHECK_OK(EP_Waitany(1, r, &index, EP_STATUS_IGNORE));
        CHECK(index == 0, "EP_Waitany index %d", index);
        break;
    }
    default:
        CHECK_OK(EP_Ssend(&out, 1, MPI_INT, 0, how, c));
        in[0] = 1000 + how;
        break;
    }
    wall = seconds(CLOCK_MONOTONIC) - wall;
    cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu;
    CHECK(in[0] == 1000 + how && (how != 2 || in[1] == 2000 + how), "%s received %d %d", names[how], in[0], in[1]);
    CHECK(wall >= LATE_MS * 1e-3 * 0.9, "%s returned after %.3f s, before its message was sent", names[how], wall);
    printf("%s: the waiter used %.1f%% of the wall time as CPU time\n", names[how], 100 * cpu / wall);
    if (passive)
        CHECK(cpu < wall / 3, "%s: the waiter used %.3f s of CPU in %.3f s under the passive policy", names[how],
              cpu, wall);
}

/* Endpoint 0's side: late, it sends (or receives the synchronous send). */
static void late_peer(EP_Comm c, int how)
{
    sleep_late();
    int out[2] = { 1000 + how, 2000 + how }, in = -1;
    if (how == 4) {
        CHECK_OK(EP_Recv(&in, 1, MPI_INT, 1, how, c, EP_STATUS_IGNORE));
        CHECK(in == 1000 + how, "EP_Ssend's message: %d", in);
        return;
    }
    CHECK_OK(EP_Send(&out[0], 1, MPI_INT, 1, how, c));
    if (how == 2)
        CHECK_OK(EP_Send(&out[1], 1, MPI_INT, 1, how, c));
}

/* 8 B to the right, from the left, RING_ROUNDS times, every message's sender and round checked. */
static void ring(EP_Comm c)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int64_t bad = 0;
    for (int64_t round = 0; round < RING_ROUNDS; round++) {
        int64_t out = (int64_t)me * 1000003 + round, in = -1;
        EP_Request r;
        CHECK_OK(EP_Irecv(&in, 1, MPI_INT64_T, left, 1, c, &r));
        CHECK_OK(EP_Send(&out, 1, MPI_INT64_T, right, 1, c));
        CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
        if (in != (int64_t)left * 1000003 + round && bad++ < 3)
            CHECK(0, "ring round %lld: %lld from %d", (long long)round, (long long)in, left);
    }
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    const char *policy = getenv("EPMPI_WAIT_POLICY");
    int passive = policy != NULL && strcmp(policy, "passive") == 0;
    EP_Comm pair[2];
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_SELF, 2, MPI_INFO_NULL, pair));
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        for (int how = 0; how < 5; how++) {
            if (t == 1)
                waiter(pair[1], how, passive);
            else
                late_peer(pair[0], how);
        }
        CHECK_OK(EP_Comm_free(&pair[t]));
    }
    int n = ep_test_count_for(wr);
    EP_Comm *eps = malloc(sizeof(EP_Comm) * (n ? n : 1));
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, eps));
    if (n > 0) {
#pragma omp parallel num_threads(n)
        {
            int t = omp_get_thread_num();
            ring(eps[t]);
            ep_test_barrier(eps[t]);
            CHECK_OK(EP_Comm_free(&eps[t]));
        }
    }
    free(eps);
    return ep_test_finish("wait_policy", wr);
}
