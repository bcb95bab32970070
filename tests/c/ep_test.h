/*
 * Helpers shared by the C test programs: endpoint counts per process from the environment,
 * checks that count failures instead of aborting, and a barrier made of point-to-point
 * messages (so the point-to-point tests do not depend on the collectives).
 *
 * Shape: EPMPI_TEST_EPS="1,2,3" gives process p the (p mod 3)-th count; default 2.
 */
#ifndef EP_TEST_H
#define EP_TEST_H

#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h" /* the same program under the standard names, through libepmpi_mpi */
#else
#include <ep_mpi.h>
#endif
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ep_test_failures = 0;

/* Bad-input checks pass made-up handle values (12345, a handle plus 1000). Under the standard
 * names on a host whose handles are pointers (Open MPI) no made-up value can be passed: the host
 * would dereference it (MPI does not ask it to detect such a program error), so those checks are
 * compiled only where handles are ints (EPMPI's names, and the standard names under MPICH, where
 * the host or EPMPI answers with the handle's error class). */
#if defined(EP_TEST_MPI_NAMES) && defined(OPEN_MPI) && OPEN_MPI
#define EP_TEST_MADE_UP_HANDLES 0
#else
#define EP_TEST_MADE_UP_HANDLES 1
#endif

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            _Pragma("omp atomic") ep_test_failures++;                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
        }                                                                                  \
    } while (0)

/* Checks that a call succeeds; prints its error message otherwise. */
#define CHECK_OK(call)                                                                     \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        char msg_[EP_MAX_ERROR_STRING] = "";                                               \
        int len_;                                                                          \
        if (rc_ != EP_SUCCESS)                                                             \
            EP_Error_string(rc_, msg_, &len_);                                             \
        CHECK(rc_ == EP_SUCCESS, "%s", msg_);                                              \
    } while (0)

static int ep_class(int code)
{
    int cls = -1;
    EP_Error_class(code, &cls);
    return cls;
}

#include "test_eps.h"

static void ep_test_init(int *argc, char ***argv, int *world_rank, int *world_size)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "host MPI lacks MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, world_size);
    /* Tests check error codes themselves. Under the standard names the process default is
     * MPI_COMM_SELF's handler, which the layer also makes EPMPI's default. */
#ifdef EP_TEST_MPI_NAMES
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* Null handles go to the host, which reports through MPI_COMM_WORLD's handler (Open MPI
     * 4.1) or MPI_COMM_SELF's (MPICH 4.0): the checks of MPI_COMM_NULL need both to return. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#else
    EP_Comm_set_errhandler(EP_COMM_NULL, EP_ERRORS_RETURN);
#endif
}

/* Rank of endpoint `index` of process `proc`, endpoints ranked by (process, index). */
static int ep_test_expected_rank(int proc, int index)
{
    int r = 0;
    for (int p = 0; p < proc; p++)
        r += ep_test_count_for(p);
    return r + index;
}

/* This endpoint's rank, the size, and its ring neighbours. */
static void ep_test_ring(EP_Comm comm, int *me, int *size, int *left, int *right)
{
    EP_Comm_rank(comm, me);
    EP_Comm_size(comm, size);
    *right = (*me + 1) % *size;
    *left = (*me - 1 + *size) % *size;
}

#define EP_TEST_BARRIER_TAG 2000000000

/* A barrier over all endpoints of `comm` made of sends and receives through rank 0. */
static void ep_test_barrier(EP_Comm comm)
{
    int me, size, token = 0;
    EP_Comm_rank(comm, &me);
    EP_Comm_size(comm, &size);
    if (me == 0) {
        for (int i = 1; i < size; i++)
            CHECK_OK(EP_Recv(&token, 1, MPI_INT, EP_ANY_SOURCE, EP_TEST_BARRIER_TAG, comm, EP_STATUS_IGNORE));
        for (int i = 1; i < size; i++)
            CHECK_OK(EP_Send(&token, 1, MPI_INT, i, EP_TEST_BARRIER_TAG, comm));
    } else {
        CHECK_OK(EP_Send(&token, 1, MPI_INT, 0, EP_TEST_BARRIER_TAG, comm));
        CHECK_OK(EP_Recv(&token, 1, MPI_INT, 0, EP_TEST_BARRIER_TAG, comm, EP_STATUS_IGNORE));
    }
}

/* Checks that this process holds no EPMPI handle and no engine object any more: every test
 * frees all it creates, so anything left is a leak (of the test or of the library). A
 * program that keeps something on purpose defines EP_TEST_NO_LEAK_CHECK before including
 * this header. */
static void ep_test_check_no_leak(void)
{
#ifndef EP_TEST_NO_LEAK_CHECK
    int comms = -1, requests = -1, messages = -1, windows = -1;
    int comm_states = -1, request_objects = -1, win_states = -1;
    CHECK_OK(EP_Debug_live_handles(&comms, &requests, &messages));
    CHECK_OK(EP_Debug_live_windows(&windows));
    CHECK_OK(EP_Debug_live_objects(&comm_states, &request_objects, &win_states));
    CHECK(comms == 0 && requests == 0 && messages == 0 && windows == 0,
          "live handles at the end: %d communicators, %d requests, %d messages, %d windows", comms, requests,
          messages, windows);
    CHECK(comm_states == 0 && request_objects == 0 && win_states == 0,
          "live engine objects at the end: %d communicator states, %d requests, %d window states", comm_states,
          request_objects, win_states);
#endif
}

/* Runs `body` on every endpoint of this process (one OpenMP thread each) of a communicator
 * made over MPI_COMM_WORLD with this process's count of EPMPI_TEST_EPS, and frees it after; a
 * process with no endpoint takes part in the creation only. */
static void ep_test_on_endpoints(int world_rank, void (*body)(EP_Comm))
{
    int n = ep_test_count_for(world_rank);
    if (n == 0) {
        EP_Comm none;
        CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, &none));
        return;
    }
#pragma omp parallel num_threads(n)
    {
        EP_Comm world;
        CHECK_OK(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, omp_get_thread_num(), &world));
        body(world);
        CHECK_OK(EP_Comm_free(&world));
    }
}

/* Checks for leaks, sums failures over all processes; prints PASS or FAIL on world rank 0;
 * returns exit code. */
static int ep_test_finish(const char *name, int world_rank)
{
    int total = 0;
    ep_test_check_no_leak();
    MPI_Allreduce(&ep_test_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s: %s (%d failures)\n", name, total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

#endif
