/*
 * MPI_Finalize withdraws every host receive the library posted (MPI 4.1 section 11.2.2: a
 * process completes its communication before it finalizes), here for communicators whose
 * endpoints OpenMP pool threads used and the main thread freed: the pool threads stay idle
 * and make no further call, so whatever they last looked up is only released when they exit,
 * after MPI_Finalize. A receive left posted makes MPICH over UCX report requests "not returned
 * to mpool" and lets a host write into freed memory.
 *
 * The program watches the host through the profiling interface (MPI 4.1 section 15.2): its own
 * MPI_Irecv, MPI_Test and MPI_Wait, which the library's calls reach because an executable's
 * definitions come first, track every receive posted with MPI_ANY_SOURCE (the library's
 * pre-posted receives; its other receives name their source) until it completes. After
 * MPI_Finalize none may be left, and some must have been seen (or nothing was tested).
 *
 * Shape: 2 processes, 2 endpoints each on every communicator, one OpenMP thread per endpoint:
 * a communicator from EP_Comm_create_endpoints, a duplicate and a Cartesian one (whose
 * neighbourhood collectives run on a private communicator of the library's).
 */
#include "ep_test.h"
#include <pthread.h>

enum { MAX_WATCHED = 4096 };
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Request watched[MAX_WATCHED];
static int n_watched, n_seen, overflowed;

static void watch(MPI_Request r)
{
    pthread_mutex_lock(&watch_lock);
    if (n_watched < MAX_WATCHED)
        watched[n_watched++] = r;
    else
        overflowed = 1;
    n_seen++;
    pthread_mutex_unlock(&watch_lock);
}

static void unwatch(MPI_Request r)
{
    pthread_mutex_lock(&watch_lock);
    for (int i = 0; i < n_watched; i++)
        if (watched[i] == r) {
            watched[i] = watched[--n_watched];
            break;
        }
    pthread_mutex_unlock(&watch_lock);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    if (rc == MPI_SUCCESS && source == MPI_ANY_SOURCE)
        watch(*request);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Request r = *request;
    int rc = PMPI_Test(request, flag, status);
    if (rc == MPI_SUCCESS && *flag)
        unwatch(r);
    return rc;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Request r = *request;
    int rc = PMPI_Wait(request, status);
    if (rc == MPI_SUCCESS)
        unwatch(r);
    return rc;
}

/* Messages to the same endpoint of the other process and back, on `comm` (2 x 2). */
static void exchange(EP_Comm comm, int me, int round)
{
    int peer = (me + 2) % 4, out = 1000 * me + round, in = -1;
    CHECK_OK(EP_Sendrecv(&out, 1, MPI_INT, peer, round, &in, 1, MPI_INT, peer, round, comm, EP_STATUS_IGNORE));
    CHECK(in == 1000 * peer + round, "rank %d round %d got %d from %d", me, round, in, peer);
}

int main(int argc, char **argv)
{
    int provided, wr, ws;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    if (ws != 2 || provided < MPI_THREAD_MULTIPLE) {
        if (wr == 0)
            printf("finalize_withdraws: needs 2 processes and MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 1;
    }
    EP_Comm world[2], dup[2], cart[2];
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 2, MPI_INFO_NULL, world));
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num(), me = -1;
        EP_Comm_rank(world[t], &me);
        CHECK_OK(EP_Comm_dup(world[t], &dup[t]));
        int dims[1] = {4}, periods[1] = {1};
        CHECK_OK(EP_Cart_create(world[t], 1, dims, periods, 0, &cart[t]));
        for (int round = 0; round < 20; round++) {
            exchange(world[t], me, round);
            exchange(dup[t], me, round);
        }
        int mine = me, got[2] = {-1, -1};
        CHECK_OK(EP_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, cart[t]));
        CHECK(got[0] == (me + 3) % 4 && got[1] == (me + 1) % 4, "rank %d: neighbours %d %d", me, got[0], got[1]);
    }
    /* The pool thread of OpenMP stays idle from here on, its lookups unreleased. */
    for (int t = 0; t < 2; t++) {
        CHECK_OK(EP_Comm_free(&cart[t]));
        CHECK_OK(EP_Comm_free(&dup[t]));
        CHECK_OK(EP_Comm_free(&world[t]));
    }
    int total = 0;
    MPI_Allreduce(&ep_test_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    pthread_mutex_lock(&watch_lock);
    int left = n_watched, seen = n_seen, over = overflowed;
    pthread_mutex_unlock(&watch_lock);
    int ok = total == 0 && left == 0 && seen > 0 && !over;
    printf("finalize_withdraws: process %d %s (%d receives from any source posted, %d left at the end, %d failures)\n",
           wr, ok ? "PASS" : "FAIL", seen, left, total);
    return ok ? 0 : 1;
}
