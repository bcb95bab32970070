/*
 * Bad input on endpoint communicators under the standard MPI names (libepmpi_mpi), where
 * tests/c/bad_input.c (the EP_ suite's, which passes made-up values the host would take for
 * its own) cannot run: values in EPMPI's handle range that no table issued, freed endpoint
 * communicators, requests and groups, host handles where MPI forbids them next to endpoint
 * ones, and the functions endpoints lack (MPI_ERR_UNSUPPORTED_OPERATION), under
 * MPI_ERRORS_RETURN and under a handler of the program's (called with the endpoint and the
 * class), and a bad call on a window under its own handler. Each gets its MPI error class
 * (MPI_Error_class), none crashes or hangs, and the
 * endpoint works afterwards. Run in every shape (EPMPI_TEST_EPS) by tests/mpi_names.rs.
 *
 * Written without ep_mpi.h on purpose: nothing here may need EPMPI's own names.
 */
#include "mpi_names_test.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* A value in EPMPI's handle range that no table issued: handle `h` with its slot bits (the low
 * 14 of an EPMPI handle, src/handles/table.rs) raised to a slot this program never reaches. */
#define NEVER_ISSUED(type, h) ((type)((uintptr_t)(h) | 0x3FFF))

/* A host generalized request (MPI 4.1 section 13.2) that another thread completes 20 ms
 * after it starts: a host request no single test completes. */
static int greq_query(void *state, MPI_Status *status)
{
    (void)state;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_free(void *state)
{
    (void)state;
    return MPI_SUCCESS;
}

static int greq_cancel(void *state, int complete)
{
    (void)state;
    (void)complete;
    return MPI_SUCCESS;
}

static void *complete_later(void *request)
{
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    MPI_Grequest_complete(*(MPI_Request *)request);
    return NULL;
}

/* What the program's error handler saw last on this thread. */
static _Thread_local int handler_calls, handler_class;
static _Thread_local MPI_Comm handler_comm;

static void record_error(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    handler_class = error_class(*code);
}

/* The endpoint still works: an allreduce over it gives the sum of the ranks. */
static void still_works(MPI_Comm comm, const char *after)
{
    int me = -1, size = -1, sum = -1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    CHECK_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2, "allreduce after %s: %d", after, sum);
}

/* Values no table issued, of each kind, in calls that take one. */
static void never_issued(MPI_Comm comm, int me)
{
    int n = -1, v = me, w = -1, result = -1;
    MPI_Comm bad_comm = NEVER_ISSUED(MPI_Comm, comm);
    CHECK(error_class(MPI_Comm_size(bad_comm, &n)) == MPI_ERR_COMM, "size of a never-issued communicator");
    CHECK(error_class(MPI_Send(&v, 1, MPI_INT, 0, 0, bad_comm)) == MPI_ERR_COMM, "send on it");
    CHECK(error_class(MPI_Barrier(bad_comm)) == MPI_ERR_COMM, "barrier on it");
    CHECK(error_class(MPI_Comm_compare(comm, bad_comm, &result)) == MPI_ERR_COMM, "compare with it");

    MPI_Request r;
    CHECK_OK(MPI_Irecv(&w, 1, MPI_INT, me, 30, comm, &r));
    MPI_Request bad_request = NEVER_ISSUED(MPI_Request, r);
    CHECK(error_class(MPI_Wait(&bad_request, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST, "wait on a never-issued request");
    int flag = -1;
    CHECK(error_class(MPI_Test(&bad_request, &flag, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST, "test on it");
    CHECK(error_class(MPI_Cancel(&bad_request)) == MPI_ERR_REQUEST, "cancel it");
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, me, 30, comm));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(w == me, "the real request's message %d", w);

    MPI_Group g;
    CHECK_OK(MPI_Comm_group(comm, &g));
    MPI_Group bad_group = NEVER_ISSUED(MPI_Group, g);
    CHECK(error_class(MPI_Group_size(bad_group, &n)) == MPI_ERR_GROUP, "size of a never-issued group");
    CHECK(error_class(MPI_Group_compare(g, bad_group, &result)) == MPI_ERR_GROUP, "compare with it");
    CHECK_OK(MPI_Group_free(&g));
    still_works(comm, "never-issued handles");
}

/* Handles used after they were freed (MPI_Comm_free, completion, MPI_Group_free), alone and in
 * arrays with a host request. */
static void freed(MPI_Comm comm, int me, int thread)
{
    MPI_Comm dup, kept_comm;
    int n = -1, v = me, w = -1;
    CHECK_OK(MPI_Comm_dup(comm, &dup));
    kept_comm = dup;
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK(error_class(MPI_Comm_rank(kept_comm, &n)) == MPI_ERR_COMM, "rank on a freed communicator");
    CHECK(error_class(MPI_Send(&v, 1, MPI_INT, 0, 0, kept_comm)) == MPI_ERR_COMM, "send on it");
    CHECK(error_class(MPI_Comm_free(&kept_comm)) == MPI_ERR_COMM, "freeing it again");

    MPI_Request r, host = MPI_REQUEST_NULL;
    CHECK_OK(MPI_Isend(&v, 1, MPI_INT, me, 31, comm, &r));
    MPI_Request kept_request = r;
    CHECK_OK(MPI_Recv(&w, 1, MPI_INT, me, 31, comm, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL && w == me, "completed request %d", w);
    MPI_Request copy = kept_request;
    CHECK(error_class(MPI_Wait(&copy, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST, "wait on a completed request");
    copy = kept_request;
    CHECK(error_class(MPI_Request_free(&copy)) == MPI_ERR_REQUEST, "free a completed request");
    /* With a host request: Waitsome refuses the array before completing anything; Waitall
     * completes the host one and reports the freed one in its status. */
    int hv = -1, hs = 700 + thread, outcount = -5, indices[2];
    MPI_Status st[2];
    CHECK_OK(MPI_Irecv(&hv, 1, MPI_INT, 0, 700 + thread, MPI_COMM_SELF, &host));
    CHECK_OK(MPI_Send(&hs, 1, MPI_INT, 0, 700 + thread, MPI_COMM_SELF));
    MPI_Request mixed[2] = {kept_request, host};
    CHECK(error_class(MPI_Waitsome(2, mixed, &outcount, indices, st)) == MPI_ERR_REQUEST, "waitsome with it");
    CHECK(mixed[1] == host, "waitsome completed the host request of a refused array");
    int rc = MPI_Waitall(2, mixed, st);
    CHECK(error_class(rc) == MPI_ERR_IN_STATUS && error_class(st[0].MPI_ERROR) == MPI_ERR_REQUEST
              && st[1].MPI_ERROR == MPI_SUCCESS,
          "waitall with it: %d, statuses %d %d", error_class(rc), st[0].MPI_ERROR, st[1].MPI_ERROR);
    CHECK(mixed[1] == MPI_REQUEST_NULL && hv == hs, "waitall's host request: value %d", hv);
    /* The same with a host request that completes only after several passes (a generalized
     * request another thread completes 20 ms later): the failed one is counted once, and
     * Waitall returns only when the host request is done. */
    MPI_Request late;
    CHECK_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &late));
    pthread_t completer;
    pthread_create(&completer, NULL, complete_later, &late);
    MPI_Request pair[2] = {kept_request, late};
    rc = MPI_Waitall(2, pair, st);
    CHECK(error_class(rc) == MPI_ERR_IN_STATUS && error_class(st[0].MPI_ERROR) == MPI_ERR_REQUEST
              && st[1].MPI_ERROR == MPI_SUCCESS && pair[1] == MPI_REQUEST_NULL,
          "waitall with a late host request: %d, statuses %d %d", error_class(rc), st[0].MPI_ERROR, st[1].MPI_ERROR);
    pthread_join(completer, NULL);

    MPI_Group g;
    CHECK_OK(MPI_Comm_group(comm, &g));
    MPI_Group kept_group = g;
    CHECK_OK(MPI_Group_free(&g));
    CHECK(error_class(MPI_Group_size(kept_group, &n)) == MPI_ERR_GROUP, "size of a freed group");
    CHECK(error_class(MPI_Group_rank(kept_group, &n)) == MPI_ERR_GROUP, "rank in it");
    CHECK(error_class(MPI_Group_free(&kept_group)) == MPI_ERR_GROUP, "freeing it again");
    still_works(comm, "freed handles");
}

/* Host handles where MPI forbids them next to endpoint ones. */
static void mixed_handles(MPI_Comm comm, int thread)
{
    int result = -1, v = -1, s = 800 + thread;
    MPI_Request host;
    CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, 0, 800 + thread, MPI_COMM_SELF, &host));
    /* A host request given as the communicator of a call on an endpoint. */
    CHECK(error_class(MPI_Comm_compare(comm, (MPI_Comm)(uintptr_t)host, &result)) == MPI_ERR_COMM,
          "a host request as a communicator");
    CHECK_OK(MPI_Send(&s, 1, MPI_INT, 0, 800 + thread, MPI_COMM_SELF));
    CHECK_OK(MPI_Wait(&host, MPI_STATUS_IGNORE));
    CHECK(v == s, "host message %d", v);
    CHECK(error_class(MPI_Comm_compare(comm, MPI_COMM_WORLD, &result)) == MPI_ERR_COMM, "compare with a host comm");
    /* An intercommunicator between a host group and an endpoint group: a host local
     * communicator with an endpoint peer (refused at once), then an endpoint local
     * communicator with a host peer (refused on the leader, and so on every endpoint). */
    MPI_Comm inter = MPI_COMM_NULL;
    CHECK(error_class(MPI_Intercomm_create(MPI_COMM_SELF, 0, comm, 0, 5, &inter)) == MPI_ERR_COMM,
          "host local communicator, endpoint peer");
    CHECK(error_class(MPI_Intercomm_create(comm, 0, MPI_COMM_WORLD, 0, 6, &inter)) == MPI_ERR_COMM,
          "endpoint local communicator, host peer");
    CHECK(inter == MPI_COMM_NULL, "a refused call wrote its output");
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm made = MPI_COMM_NULL;
    CHECK(error_class(MPI_Comm_create_group(comm, world, 7, &made)) == MPI_ERR_GROUP,
          "a host group for an endpoint communicator");
    MPI_Group_free(&world);
    still_works(comm, "mixed handles");
}

/* Functions endpoints lack: MPI_ERR_UNSUPPORTED_OPERATION, returned or given to the program's
 * handler with the endpoint; other errors reach that handler the same way. */
static void unsupported(MPI_Comm comm, int me, int size, MPI_Errhandler record)
{
    MPI_Comm other = MPI_COMM_NULL, copy = comm;
    CHECK(error_class(MPI_Comm_accept("no-port", MPI_INFO_NULL, 0, comm, &other)) == MPI_ERR_UNSUPPORTED_OPERATION,
          "accept");
    CHECK(error_class(MPI_Comm_connect("no-port", MPI_INFO_NULL, 0, comm, &other)) == MPI_ERR_UNSUPPORTED_OPERATION,
          "connect");
    CHECK(error_class(MPI_Comm_disconnect(&copy)) == MPI_ERR_UNSUPPORTED_OPERATION && copy == comm, "disconnect");
    CHECK(other == MPI_COMM_NULL, "a refused call wrote its output");
    still_works(comm, "unsupported calls");

    CHECK_OK(MPI_Comm_set_errhandler(comm, record));
    handler_calls = 0;
    int rc = MPI_Comm_accept("no-port", MPI_INFO_NULL, 0, comm, &other);
    CHECK(error_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "accept under the program's handler: %d", rc);
    CHECK(handler_calls == 1 && handler_comm == comm && handler_class == MPI_ERR_UNSUPPORTED_OPERATION,
          "handler: %d calls, class %d, its endpoint %d", handler_calls, handler_class, handler_comm == comm);
    handler_calls = 0;
    rc = MPI_Send(&me, 1, MPI_INT, size, 0, comm);
    CHECK(error_class(rc) == MPI_ERR_RANK && handler_calls == 1 && handler_comm == comm
              && handler_class == MPI_ERR_RANK,
          "bad rank under the program's handler: %d, %d calls, class %d", rc, handler_calls, handler_class);
    handler_calls = 0;
    int pos = 0;
    char buf[16];
    rc = MPI_Pack(&me, 1, MPI_DATATYPE_NULL, buf, (int)sizeof buf, &pos, comm);
    CHECK(error_class(rc) == MPI_ERR_TYPE && handler_calls == 1 && handler_comm == comm
              && handler_class == MPI_ERR_TYPE,
          "bad pack under the program's handler: %d, %d calls, class %d", rc, handler_calls, handler_class);
    /* MPI_Comm_call_errhandler with a host class: the handler gets that class and the endpoint. */
    handler_calls = 0;
    CHECK_OK(MPI_Comm_call_errhandler(comm, MPI_ERR_TAG));
    CHECK(handler_calls == 1 && handler_comm == comm && handler_class == MPI_ERR_TAG,
          "MPI_Comm_call_errhandler: %d calls, class %d", handler_calls, handler_class);
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_call_errhandler(comm, MPI_ERR_TAG));
    still_works(comm, "errors under the program's handler");

    /* On a window: its own handler (MPI_ERRORS_RETURN) hears of a bad call (a predefined key
     * cannot be set or deleted). */
    MPI_Win win;
    /* Heap memory: MPICH 4.0.2 over UCX loses one-sided updates of stack memory (README). */
    int *base = malloc(sizeof(int));
    *base = -1;
    CHECK_OK(MPI_Win_create(base, sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK(error_class(MPI_Win_set_attr(win, MPI_WIN_BASE, NULL)) == MPI_ERR_KEYVAL, "MPI_Win_set_attr of MPI_WIN_BASE");
    CHECK(error_class(MPI_Win_delete_attr(win, MPI_WIN_BASE)) == MPI_ERR_KEYVAL, "MPI_Win_delete_attr of MPI_WIN_BASE");
    CHECK_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Put(&me, 1, MPI_INT, (me + 1) % size, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(*base == (me - 1 + size) % size, "window after its errors: %d", *base);
    CHECK_OK(MPI_Win_free(&win));
    free(base);
}

int main(int argc, char **argv)
{
    int provided, world_rank, world_size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    /* Errors tied to no communicator (a freed or unknown handle) go to MPI_COMM_SELF's handler,
     * which the layer also makes EPMPI's default (MPI 4.1 section 9.3). */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    int n = count_for(world_rank), total = 0;
    for (int p = 0; p < world_size; p++)
        total += count_for(p);
#if MPI_VERSION < 4
    /* MPI 4.0's MPI_Isendrecv is the layer's MPIX_ form on an MPI 3 host, for endpoints only: on
     * the host's communicator its handler hears MPI_ERR_UNSUPPORTED_OPERATION. */
    int x = 1, y = 0;
    MPI_Request never = MPI_REQUEST_NULL;
    CHECK(error_class(MPIX_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &never))
              == MPI_ERR_UNSUPPORTED_OPERATION && never == MPI_REQUEST_NULL,
          "MPIX_Isendrecv on a host communicator of an MPI 3 host");
#endif
    MPI_Errhandler record;
    CHECK_OK(MPI_Comm_create_errhandler(record_error, &record));
    MPI_Comm *comms = malloc(sizeof(MPI_Comm) * (size_t)(n + 1));
    CHECK_OK(MPIX_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms));
#pragma omp parallel num_threads(n > 0 ? n : 1)
    {
        int t = omp_get_thread_num();
        if (t < n) {
            MPI_Comm comm = comms[t];
            int me = -1;
            CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
            MPI_Comm_rank(comm, &me);
            never_issued(comm, me);
            freed(comm, me, t);
            mixed_handles(comm, t);
            unsupported(comm, me, total, record);
            CHECK_OK(MPI_Comm_free(&comms[t]));
        }
    }
    free(comms);
    CHECK_OK(MPI_Errhandler_free(&record));
    int sum = 0;
    MPI_Allreduce(&failures, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("mpi_names_bad_input: %s (%d failures)\n", sum ? "FAIL" : "PASS", sum);
    MPI_Finalize();
    return sum ? 1 : 0;
}
