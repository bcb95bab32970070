/*
 * Bad-input suite, under EP_ERRORS_RETURN: every public function of
 * ep_mpi.h with bad handles (made up, forged, freed, of another kind, null; tables in
 * bad_input_handles.h), NULL output pointers, out-of-range ranks, roots, tags, counts,
 * displacements and sizes, NULL buffers with data, mismatched datatypes and truncation,
 * double frees, use after free, one-sided calls outside an epoch, derived datatypes that are
 * not committed. Each call must return its documented class with a message naming the call
 * (bad_input.h).
 *
 * Rank 0 of the endpoint communicator makes the bad calls while the other endpoints exchange
 * messages in a ring among themselves; then every endpoint makes the bad calls of the
 * collectives that create something (which agree on errors) and the uncommitted-datatype
 * calls, and checks that point-to-point, collectives and the window still work. World rank 0
 * prints the functions covered, which tests/bad_input.rs compares with the header. Calls
 * before MPI_Init_thread and after MPI_Finalize are in bad_init.c; the default handler's
 * aborts in fatal_error.c.
 */
#include "bad_input_handles.h"

#define RING_TAG 77
#define RING_ROUNDS 200

/* Functions that cannot fail on an argument: recorded after calling them correctly. */
static void cover_argumentless(void)
{
    /* MPI promises elapsed time from an arbitrary origin (Open MPI's is near 0 at start). */
    double t0 = EP_Wtime(), t1 = EP_Wtime();
    CHECK(t1 >= t0, "EP_Wtime went back: %g then %g", t0, t1);
    bad_cover("EP_Wtime");
    /* EP_Abort ends the job: its case is fatal_error.c's "abort" mode. */
    bad_cover("EP_Abort");
}

/* Creation, errors, version and debug calls: local checks, made before any endpoint exists. */
static void creation_and_misc_cases(void)
{
    EP_Comm c[2] = { 0, 0 };
    int x = 0, cls = 0;
    char text[EP_MAX_ERROR_STRING];
    EXPECT(EP_Comm_create_endpoints, EP_ERR_ARG, "my_num_ep = -1", EP_Comm_create_endpoints(MPI_COMM_WORLD, -1, MPI_INFO_NULL, c));
    EXPECT(EP_Comm_create_endpoints, EP_ERR_ARG, "my_num_ep above 65536", EP_Comm_create_endpoints(MPI_COMM_WORLD, 70000, MPI_INFO_NULL, c));
    EXPECT(EP_Comm_create_endpoints, EP_ERR_ARG, "NULL out_comms", EP_Comm_create_endpoints(MPI_COMM_WORLD, 2, MPI_INFO_NULL, NULL));
    EXPECT(EP_Comm_create_endpoints, EP_ERR_COMM, "MPI_COMM_NULL parent", EP_Comm_create_endpoints(MPI_COMM_NULL, 1, MPI_INFO_NULL, c));
    EXPECT(EP_Comm_create_endpoint, EP_ERR_ARG, "index = my_num_ep", EP_Comm_create_endpoint(MPI_COMM_WORLD, 2, 2, c));
    EXPECT(EP_Comm_create_endpoint, EP_ERR_ARG, "index -1", EP_Comm_create_endpoint(MPI_COMM_WORLD, 2, -1, c));
    EXPECT(EP_Comm_create_endpoint, EP_ERR_ARG, "my_num_ep = 0", EP_Comm_create_endpoint(MPI_COMM_WORLD, 0, 0, c));
    EXPECT(EP_Comm_create_endpoint, EP_ERR_ARG, "NULL comm", EP_Comm_create_endpoint(MPI_COMM_WORLD, 1, 0, NULL));
    EXPECT(EP_Error_class, EP_ERR_ARG, "code -3", EP_Error_class(-3, &cls));
    EXPECT(EP_Error_class, EP_ERR_ARG, "code 127 (class past EP_ERR_LASTCODE)", EP_Error_class(127, &cls));
    EXPECT(EP_Error_class, EP_ERR_ARG, "NULL class", EP_Error_class(EP_ERR_TAG, NULL));
    EXPECT(EP_Error_string, EP_ERR_ARG, "code -3", EP_Error_string(-3, text, &x));
    EXPECT(EP_Error_string, EP_ERR_ARG, "NULL buffer", EP_Error_string(EP_ERR_TAG, NULL, &x));
    EXPECT(EP_Error_string, EP_ERR_ARG, "NULL length", EP_Error_string(EP_ERR_TAG, text, NULL));
    EXPECT(EP_Get_library_version, EP_ERR_ARG, "NULL buffer", EP_Get_library_version(NULL, &x));
    EXPECT(EP_Get_library_version, EP_ERR_ARG, "NULL length", EP_Get_library_version(text, NULL));
    EXPECT(EP_Debug_live_windows, EP_ERR_ARG, "NULL count", EP_Debug_live_windows(NULL));
    EXPECT(EP_Comm_set_errhandler, EP_ERR_ARG, "handler 77 on the default", EP_Comm_set_errhandler(EP_COMM_NULL, 77));
    EXPECT(EP_Comm_get_errhandler, EP_ERR_ARG, "NULL handler", EP_Comm_get_errhandler(EP_COMM_NULL, NULL));
    /* Every pointer of EP_Debug_live_handles and _objects may be NULL: their case is success. */
    EXPECT(EP_Debug_live_handles, EP_SUCCESS, "all NULL", EP_Debug_live_handles(NULL, NULL, NULL));
    EXPECT(EP_Debug_live_objects, EP_SUCCESS, "all NULL", EP_Debug_live_objects(NULL, NULL, NULL));
    /* Status queries. */
    EP_Status st;
    memset(&st, 0, sizeof st);
    EXPECT(EP_Get_count, EP_ERR_ARG, "NULL status", EP_Get_count(NULL, MPI_INT, &x));
    EXPECT(EP_Get_count, EP_ERR_ARG, "NULL count", EP_Get_count(&st, MPI_INT, NULL));
    EXPECT(EP_Get_count, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Get_count(&st, MPI_DATATYPE_NULL, &x));
    EXPECT(EP_Test_cancelled, EP_ERR_ARG, "NULL status", EP_Test_cancelled(NULL, &x));
    EXPECT(EP_Test_cancelled, EP_ERR_ARG, "NULL flag", EP_Test_cancelled(&st, NULL));
}

/* Bad communicator, window, request and message handles through every function. */
static void handle_cases(EP_Comm freed_comm, EP_Win freed_win, EP_Request freed_req)
{
    EP_Request req = EP_REQUEST_NULL;
    /* A live request, to pass where a communicator or window is expected. */
    CHECK_OK(EP_Irecv(B.rbuf, 1, MPI_INT, 0, 424, B.comm, &req));
    int forged_comm = (B.comm & ~0xffff) | 0xfff0;
    int forged_win = (B.win & ~0xffff) | 0xfff0;
    const bad_handle comms[] = {
        { 987654, "made-up handle 987654", 0 }, { -5, "negative handle", 0 },
        { forged_comm, "forged communicator handle (right kind, unused slot)", 0 },
        { freed_comm, "freed communicator", 0 }, { B.win, "window handle as communicator", 0 },
        { req, "request handle as communicator", 0 }, { EP_COMM_NULL, "EP_COMM_NULL", 1 },
    };
    const bad_handle wins[] = {
        { 987654, "made-up handle 987654", 0 }, { forged_win, "forged window handle", 0 },
        { freed_win, "freed window", 0 }, { B.comm, "communicator handle as window", 0 },
        { EP_WIN_NULL, "EP_WIN_NULL", 1 },
    };
    const bad_handle reqs[] = {
        { 424242, "made-up handle 424242", 0 }, { freed_req, "completed (freed) request", 0 },
        { B.comm, "communicator handle as request or message", 0 }, { B.win, "window handle as request", 0 },
        { EP_REQUEST_NULL, "null request or message", 1 },
    };
    bad_run_handle_table(bad_comm_fns, BAD_COUNT(bad_comm_fns), comms, BAD_COUNT(comms), EP_ERR_COMM);
    bad_run_handle_table(bad_win_fns, BAD_COUNT(bad_win_fns), wins, BAD_COUNT(wins), EP_ERR_WIN);
    bad_run_handle_table(bad_req_fns, BAD_COUNT(bad_req_fns), reqs, BAD_COUNT(reqs), EP_ERR_REQUEST);
    CHECK_OK(EP_Cancel(&req));
    CHECK_OK(EP_Wait(&req, EP_STATUS_IGNORE));
}

/* NULL output pointers (EP_ERR_ARG). */
static void null_output_cases(void)
{
    EP_Comm c = B.comm;
    EP_Win w = B.win;
    int x;
    void *p;
    EXPECT(EP_Comm_rank, EP_ERR_ARG, "NULL rank", EP_Comm_rank(c, NULL));
    EXPECT(EP_Comm_size, EP_ERR_ARG, "NULL size", EP_Comm_size(c, NULL));
    EXPECT(EP_Comm_remote_size, EP_ERR_ARG, "NULL size", EP_Comm_remote_size(c, NULL));
    EXPECT(EP_Comm_test_inter, EP_ERR_ARG, "NULL flag", EP_Comm_test_inter(c, NULL));
    EXPECT(EP_Comm_get_attr, EP_ERR_ARG, "NULL value", EP_Comm_get_attr(c, EP_TAG_UB, NULL, &x));
    EXPECT(EP_Comm_get_attr, EP_ERR_ARG, "NULL flag", EP_Comm_get_attr(c, EP_TAG_UB, &p, NULL));
    EXPECT(EP_Comm_compare, EP_ERR_ARG, "NULL result", EP_Comm_compare(c, c, NULL));
    EXPECT(EP_Comm_free, EP_ERR_ARG, "NULL pointer", EP_Comm_free(NULL));
    EXPECT(EP_Comm_get_errhandler, EP_ERR_ARG, "NULL handler", EP_Comm_get_errhandler(c, NULL));
    EXPECT(EP_Comm_get_host_comm, EP_ERR_ARG, "NULL host_comm", EP_Comm_get_host_comm(c, NULL));
    EXPECT(EP_Intercomm_merge, EP_ERR_ARG, "NULL newintracomm", EP_Intercomm_merge(c, 0, NULL));
    EXPECT(EP_Ibarrier, EP_ERR_ARG, "NULL request", EP_Ibarrier(c, NULL));
    EXPECT(EP_Ibcast, EP_ERR_ARG, "NULL request", EP_Ibcast(B.sbuf, 1, MPI_INT, 0, c, NULL));
    EXPECT(EP_Isend, EP_ERR_ARG, "NULL request", EP_Isend(B.sbuf, 1, MPI_INT, 0, 0, c, NULL));
    EXPECT(EP_Issend, EP_ERR_ARG, "NULL request", EP_Issend(B.sbuf, 1, MPI_INT, 0, 0, c, NULL));
    EXPECT(EP_Irecv, EP_ERR_ARG, "NULL request", EP_Irecv(B.rbuf, 1, MPI_INT, 0, 0, c, NULL));
    EXPECT(EP_Iprobe, EP_ERR_ARG, "NULL flag", EP_Iprobe(0, 0, c, NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Improbe, EP_ERR_ARG, "NULL flag", EP_Improbe(0, 0, c, NULL, &x, EP_STATUS_IGNORE));
    EXPECT(EP_Improbe, EP_ERR_ARG, "NULL message", EP_Improbe(0, 0, c, &x, NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Mprobe, EP_ERR_ARG, "NULL message", EP_Mprobe(0, 0, c, NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Mrecv, EP_ERR_ARG, "NULL message", EP_Mrecv(B.rbuf, 1, MPI_INT, NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Imrecv, EP_ERR_ARG, "NULL message", EP_Imrecv(B.rbuf, 1, MPI_INT, NULL, &x));
    EXPECT(EP_Wait, EP_ERR_ARG, "NULL request", EP_Wait(NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Test, EP_ERR_ARG, "NULL request", EP_Test(NULL, &x, EP_STATUS_IGNORE));
    EXPECT(EP_Test, EP_ERR_ARG, "NULL flag", EP_Test(&bad_reqs[0], NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Waitall, EP_ERR_ARG, "NULL array, count 1", EP_Waitall(1, NULL, EP_STATUSES_IGNORE));
    EXPECT(EP_Testall, EP_ERR_ARG, "NULL flag", EP_Testall(0, NULL, NULL, EP_STATUSES_IGNORE));
    EXPECT(EP_Waitany, EP_ERR_ARG, "NULL index", EP_Waitany(0, NULL, NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Testany, EP_ERR_ARG, "NULL flag", EP_Testany(0, NULL, &x, NULL, EP_STATUS_IGNORE));
    EXPECT(EP_Waitsome, EP_ERR_ARG, "NULL indices", EP_Waitsome(1, bad_reqs, &x, NULL, EP_STATUSES_IGNORE));
    EXPECT(EP_Testsome, EP_ERR_ARG, "NULL outcount", EP_Testsome(0, NULL, NULL, NULL, EP_STATUSES_IGNORE));
    EXPECT(EP_Request_free, EP_ERR_ARG, "NULL request", EP_Request_free(NULL));
    EXPECT(EP_Cancel, EP_ERR_ARG, "NULL request", EP_Cancel(NULL));
    EXPECT(EP_Win_free, EP_ERR_ARG, "NULL pointer", EP_Win_free(NULL));
    EXPECT(EP_Win_get_errhandler, EP_ERR_ARG, "NULL handler", EP_Win_get_errhandler(w, NULL));
    EXPECT(EP_Win_test, EP_ERR_ARG, "NULL flag", EP_Win_test(w, NULL));
    EXPECT(EP_Win_set_name, EP_ERR_ARG, "NULL name", EP_Win_set_name(w, NULL));
    EXPECT(EP_Win_get_name, EP_ERR_ARG, "NULL name", EP_Win_get_name(w, NULL, &bad_int_out));
    EXPECT(EP_Win_get_name, EP_ERR_ARG, "NULL resultlen", EP_Win_get_name(w, bad_name_out, NULL));
    EXPECT(EP_Win_get_info, EP_ERR_ARG, "NULL info_used", EP_Win_get_info(w, NULL));
    EXPECT(EP_Win_detach, EP_ERR_WIN, "not a dynamic window", EP_Win_detach(w, B.rbuf));
    EXPECT(EP_Rput, EP_ERR_ARG, "NULL request", EP_Rput(B.sbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, w, NULL));
    EXPECT(EP_Rget, EP_ERR_ARG, "NULL request", EP_Rget(B.rbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, w, NULL));
    EXPECT(EP_Raccumulate, EP_ERR_ARG, "NULL request",
           EP_Raccumulate(B.sbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w, NULL));
    EXPECT(EP_Rget_accumulate, EP_ERR_ARG, "NULL request",
           EP_Rget_accumulate(B.sbuf, 1, MPI_INT, B.rbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w, NULL));
}

/* Out-of-range ranks, tags, counts, NULL buffers and bad datatypes in point-to-point calls. */
static void p2p_argument_cases(void)
{
    EP_Comm c = B.comm;
    int n = B.size, x = 0, flag;
    EP_Request r;
    EP_Message m;
    EXPECT(EP_Send, EP_ERR_RANK, "dest = size", EP_Send(&x, 1, MPI_INT, n, 0, c));
    EXPECT(EP_Send, EP_ERR_RANK, "dest -7", EP_Send(&x, 1, MPI_INT, -7, 0, c));
    EXPECT(EP_Send, EP_ERR_RANK, "dest EP_ANY_SOURCE", EP_Send(&x, 1, MPI_INT, EP_ANY_SOURCE, 0, c));
    EXPECT(EP_Send, EP_ERR_TAG, "tag -5", EP_Send(&x, 1, MPI_INT, 0, -5, c));
    EXPECT(EP_Send, EP_ERR_TAG, "tag EP_ANY_TAG", EP_Send(&x, 1, MPI_INT, 0, EP_ANY_TAG, c));
    EXPECT(EP_Send, EP_ERR_COUNT, "count -1", EP_Send(&x, -1, MPI_INT, 0, 0, c));
    EXPECT(EP_Send, EP_ERR_BUFFER, "NULL buffer, count 1", EP_Send(NULL, 1, MPI_INT, 0, 0, c));
    EXPECT(EP_Send, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, c));
    EXPECT(EP_Ssend, EP_ERR_RANK, "dest = size", EP_Ssend(&x, 1, MPI_INT, n, 0, c));
    EXPECT(EP_Ssend, EP_ERR_TAG, "tag -1", EP_Ssend(&x, 1, MPI_INT, 0, -1, c));
    EXPECT(EP_Isend, EP_ERR_RANK, "dest = size", EP_Isend(&x, 1, MPI_INT, n, 0, c, &r));
    EXPECT(EP_Isend, EP_ERR_BUFFER, "NULL buffer, count 2", EP_Isend(NULL, 2, MPI_INT, 0, 0, c, &r));
    EXPECT(EP_Issend, EP_ERR_COUNT, "count -3", EP_Issend(&x, -3, MPI_INT, 0, 0, c, &r));
    EXPECT(EP_Issend, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Issend(&x, 1, MPI_DATATYPE_NULL, 0, 0, c, &r));
    EXPECT(EP_Recv, EP_ERR_RANK, "source = size", EP_Recv(&x, 1, MPI_INT, n, 0, c, EP_STATUS_IGNORE));
    EXPECT(EP_Recv, EP_ERR_TAG, "tag -8", EP_Recv(&x, 1, MPI_INT, 0, -8, c, EP_STATUS_IGNORE));
    EXPECT(EP_Recv, EP_ERR_COUNT, "count -1", EP_Recv(&x, -1, MPI_INT, 0, 0, c, EP_STATUS_IGNORE));
    EXPECT(EP_Recv, EP_ERR_BUFFER, "NULL buffer, count 1", EP_Recv(NULL, 1, MPI_INT, 0, 0, c, EP_STATUS_IGNORE));
    EXPECT(EP_Recv, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Recv(&x, 1, MPI_DATATYPE_NULL, 0, 0, c, EP_STATUS_IGNORE));
    EXPECT(EP_Irecv, EP_ERR_RANK, "source -9", EP_Irecv(&x, 1, MPI_INT, -9, 0, c, &r));
    EXPECT(EP_Irecv, EP_ERR_BUFFER, "NULL buffer", EP_Irecv(NULL, 1, MPI_INT, 0, 0, c, &r));
    EXPECT(EP_Sendrecv, EP_ERR_RANK, "dest = size", EP_Sendrecv(&x, 1, MPI_INT, n, 0, &x, 1, MPI_INT, 0, 0, c, EP_STATUS_IGNORE));
    EXPECT(EP_Sendrecv, EP_ERR_RANK, "source = size", EP_Sendrecv(&x, 1, MPI_INT, 0, 0, &x, 1, MPI_INT, n, 0, c, EP_STATUS_IGNORE));
    EXPECT(EP_Sendrecv, EP_ERR_TAG, "recvtag -4", EP_Sendrecv(&x, 1, MPI_INT, 0, 0, &x, 1, MPI_INT, 0, -4, c, EP_STATUS_IGNORE));
    EXPECT(EP_Iprobe, EP_ERR_RANK, "source = size", EP_Iprobe(n, 0, c, &flag, EP_STATUS_IGNORE));
    EXPECT(EP_Iprobe, EP_ERR_TAG, "tag -3", EP_Iprobe(0, -3, c, &flag, EP_STATUS_IGNORE));
    EXPECT(EP_Probe, EP_ERR_RANK, "source = size", EP_Probe(n, 0, c, EP_STATUS_IGNORE));
    EXPECT(EP_Probe, EP_ERR_TAG, "tag -3", EP_Probe(0, -3, c, EP_STATUS_IGNORE));
    EXPECT(EP_Improbe, EP_ERR_RANK, "source = size", EP_Improbe(n, 0, c, &flag, &m, EP_STATUS_IGNORE));
    EXPECT(EP_Mprobe, EP_ERR_TAG, "tag -3", EP_Mprobe(0, -3, c, &m, EP_STATUS_IGNORE));
    EXPECT(EP_Waitall, EP_ERR_COUNT, "count -1", EP_Waitall(-1, bad_reqs, EP_STATUSES_IGNORE));
    EXPECT(EP_Testall, EP_ERR_COUNT, "count -1", EP_Testall(-1, bad_reqs, &flag, EP_STATUSES_IGNORE));
    EXPECT(EP_Waitany, EP_ERR_COUNT, "count -1", EP_Waitany(-1, bad_reqs, &x, EP_STATUS_IGNORE));
    EXPECT(EP_Testany, EP_ERR_COUNT, "count -1", EP_Testany(-1, bad_reqs, &x, &flag, EP_STATUS_IGNORE));
    EXPECT(EP_Waitsome, EP_ERR_COUNT, "count -1", EP_Waitsome(-1, bad_reqs, &x, bad_indices, EP_STATUSES_IGNORE));
    EXPECT(EP_Testsome, EP_ERR_COUNT, "count -1", EP_Testsome(-1, bad_reqs, &x, bad_indices, EP_STATUSES_IGNORE));
}

/* Truncation, mismatched datatypes, double frees and matched-message reuse, with messages
 * this endpoint sends to itself. */
static void truncation_and_free_cases(void)
{
    EP_Comm c = B.comm;
    int big[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, small[4] = { 0 }, x, flag;
    double d = 2.5;
    EP_Request s, r, two[2];
    EP_Status st, sts[2];
    EP_Message m;
    /* Blocking receive: the first part arrives, the status is filled. */
    CHECK_OK(EP_Isend(big, 8, MPI_INT, 0, 31, c, &s));
    EXPECT(EP_Recv, EP_ERR_TRUNCATE, "8 ints into 4", EP_Recv(small, 4, MPI_INT, 0, 31, c, &st));
    CHECK(small[3] == 4 && st.MPI_SOURCE == 0 && st.MPI_TAG == 31, "truncated data or status");
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    /* Nonblocking receive: reported by the completion call. */
    CHECK_OK(EP_Isend(big, 8, MPI_INT, 0, 32, c, &s));
    CHECK_OK(EP_Irecv(small, 4, MPI_INT, 0, 32, c, &r));
    EXPECT(EP_Wait, EP_ERR_TRUNCATE, "8 ints into 4", EP_Wait(&r, &st));
    CHECK(r == EP_REQUEST_NULL, "failed request not freed");
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    /* Multiple completion: EP_ERR_IN_STATUS, the truncation in the status. */
    CHECK_OK(EP_Isend(big, 8, MPI_INT, 0, 33, c, &two[0]));
    CHECK_OK(EP_Irecv(small, 4, MPI_INT, 0, 33, c, &two[1]));
    EXPECT(EP_Waitall, EP_ERR_IN_STATUS, "one receive truncated", EP_Waitall(2, two, sts));
    CHECK(ep_class(sts[1].MPI_ERROR) == EP_ERR_TRUNCATE && ep_class(sts[0].MPI_ERROR) == EP_SUCCESS,
          "statuses of waitall: %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    /* Mismatched datatypes: one double received as one int is a truncation ... */
    CHECK_OK(EP_Isend(&d, 1, MPI_DOUBLE, 0, 34, c, &s));
    EXPECT(EP_Sendrecv, EP_ERR_TRUNCATE, "a double into an int", EP_Sendrecv(NULL, 0, MPI_INT, EP_PROC_NULL, 0, &x, 1, MPI_INT, 0, 34, c, &st));
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    /* ... and 3 bytes counted as ints are EP_UNDEFINED. */
    CHECK_OK(EP_Isend(big, 3, MPI_BYTE, 0, 35, c, &s));
    CHECK_OK(EP_Recv(small, 4, MPI_INT, 0, 35, c, &st));
    CHECK_OK(EP_Get_count(&st, MPI_INT, &x));
    CHECK(x == EP_UNDEFINED, "EP_Get_count of 3 bytes as MPI_INT gave %d", x);
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    /* Matched probe: truncation, then the message handle used twice. */
    CHECK_OK(EP_Isend(big, 8, MPI_INT, 0, 36, c, &s));
    CHECK_OK(EP_Mprobe(0, 36, c, &m, &st));
    int m_copy = m;
    EXPECT(EP_Mrecv, EP_ERR_TRUNCATE, "8 ints into 4", EP_Mrecv(small, 4, MPI_INT, &m, &st));
    CHECK(m == EP_MESSAGE_NULL, "message handle not reset");
    EXPECT(EP_Mrecv, EP_ERR_REQUEST, "message received twice", EP_Mrecv(small, 4, MPI_INT, &m_copy, &st));
    EXPECT(EP_Imrecv, EP_ERR_REQUEST, "message received twice", EP_Imrecv(small, 4, MPI_INT, &m_copy, &r));
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    CHECK_OK(EP_Isend(big, 8, MPI_INT, 0, 37, c, &s));
    do
        CHECK_OK(EP_Improbe(0, 37, c, &flag, &m, &st));
    while (!flag);
    CHECK_OK(EP_Imrecv(small, 4, MPI_INT, &m, &r));
    CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
    int rc;
    do
        rc = EP_Test(&r, &flag, &st);
    while (rc == EP_SUCCESS && !flag);
    EXPECT(EP_Test, EP_ERR_TRUNCATE, "imrecv of 8 ints into 4", rc);
    /* Request double free. */
    CHECK_OK(EP_Isend(&x, 1, MPI_INT, 0, 38, c, &s));
    int s_copy = s;
    CHECK_OK(EP_Request_free(&s));
    EXPECT(EP_Request_free, EP_ERR_REQUEST, "freed twice", EP_Request_free(&s_copy));
    EXPECT(EP_Wait, EP_ERR_REQUEST, "wait on a freed request", EP_Wait(&s_copy, EP_STATUS_IGNORE));
    CHECK_OK(EP_Recv(&x, 1, MPI_INT, 0, 38, c, EP_STATUS_IGNORE));
    /* Cancel and the cancelled status. */
    CHECK_OK(EP_Irecv(&x, 1, MPI_INT, 0, 39, c, &r));
    CHECK_OK(EP_Cancel(&r));
    CHECK_OK(EP_Wait(&r, &st));
    CHECK_OK(EP_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "cancelled receive not reported");
    /* Communicator arguments checked before any communication. */
    EXPECT(EP_Comm_set_errhandler, EP_ERR_ARG, "handler 77", EP_Comm_set_errhandler(c, 77));
    EXPECT(EP_Comm_get_attr, EP_ERR_KEYVAL, "unknown key 99", EP_Comm_get_attr(c, 99, &bad_ptr_out, &flag));
    EXPECT(EP_Comm_remote_size, EP_ERR_COMM, "intracommunicator", EP_Comm_remote_size(c, &x));
    EXPECT(EP_Intercomm_merge, EP_ERR_COMM, "intracommunicator", EP_Intercomm_merge(c, 0, &bad_comm_out));
}

/* Collective arguments out of range (checked before any communication). */
/* The nonblocking collectives, EP_Alltoallw and EP_Reduce_local: each fails before it joins
 * the collective, so the other endpoints are not kept waiting. */
static void nonblocking_collective_cases(EP_Comm c, int n, int *s, int *rb, int *cn, int *dp, int *neg)
{
    EP_Request r = EP_REQUEST_NULL;
    MPI_Datatype types[64], nulls[64];
    for (int i = 0; i < n && i < 64; i++) {
        types[i] = MPI_INT;
        nulls[i] = i == n - 1 ? MPI_DATATYPE_NULL : MPI_INT;
    }
    EXPECT(EP_Iallreduce, EP_ERR_ARG, "NULL request", EP_Iallreduce(s, rb, 1, MPI_INT, MPI_SUM, c, NULL));
    EXPECT(EP_Iallreduce, EP_ERR_OP, "MPI_OP_NULL", EP_Iallreduce(s, rb, 1, MPI_INT, MPI_OP_NULL, c, &r));
    EXPECT(EP_Iallreduce, EP_ERR_BUFFER, "MPI_IN_PLACE recvbuf", EP_Iallreduce(s, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, c, &r));
    EXPECT(EP_Ireduce, EP_ERR_ROOT, "root = size", EP_Ireduce(s, rb, 1, MPI_INT, MPI_SUM, n, c, &r));
    EXPECT(EP_Ireduce, EP_ERR_COUNT, "count -1", EP_Ireduce(s, rb, -1, MPI_INT, MPI_SUM, 0, c, &r));
    EXPECT(EP_Iscan, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Iscan(s, rb, 1, MPI_DATATYPE_NULL, MPI_SUM, c, &r));
    EXPECT(EP_Iexscan, EP_ERR_OP, "MPI_OP_NULL", EP_Iexscan(s, rb, 1, MPI_INT, MPI_OP_NULL, c, &r));
    EXPECT(EP_Ireduce_scatter_block, EP_ERR_COUNT, "recvcount -1", EP_Ireduce_scatter_block(s, rb, -1, MPI_INT, MPI_SUM, c, &r));
    EXPECT(EP_Ireduce_scatter, EP_ERR_COUNT, "negative recvcounts entry", EP_Ireduce_scatter(s, rb, neg, MPI_INT, MPI_SUM, c, &r));
    EXPECT(EP_Igather, EP_ERR_ROOT, "root -1", EP_Igather(s, 1, MPI_INT, rb, 1, MPI_INT, -1, c, &r));
    EXPECT(EP_Igatherv, EP_ERR_ARG, "NULL recvcounts at the root", EP_Igatherv(s, 1, MPI_INT, rb, NULL, dp, MPI_INT, 0, c, &r));
    EXPECT(EP_Iscatter, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Iscatter(s, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, 0, c, &r));
    EXPECT(EP_Iscatterv, EP_ERR_COUNT, "negative sendcounts entry", EP_Iscatterv(s, neg, dp, MPI_INT, rb, 1, MPI_INT, 0, c, &r));
    EXPECT(EP_Iallgather, EP_ERR_BUFFER, "NULL recvbuf", EP_Iallgather(s, 1, MPI_INT, NULL, 1, MPI_INT, c, &r));
    EXPECT(EP_Iallgatherv, EP_ERR_ARG, "NULL displs", EP_Iallgatherv(s, 1, MPI_INT, rb, cn, NULL, MPI_INT, c, &r));
    EXPECT(EP_Ialltoall, EP_ERR_COUNT, "sendcount -1", EP_Ialltoall(s, -1, MPI_INT, rb, 1, MPI_INT, c, &r));
    EXPECT(EP_Ialltoallv, EP_ERR_ARG, "NULL rdispls", EP_Ialltoallv(s, cn, dp, MPI_INT, rb, cn, NULL, MPI_INT, c, &r));
    EXPECT(EP_Ialltoallw, EP_ERR_ARG, "NULL recvtypes", EP_Ialltoallw(s, cn, dp, types, rb, cn, dp, NULL, c, &r));
    EXPECT(EP_Alltoallw, EP_ERR_TYPE, "MPI_DATATYPE_NULL with a count", EP_Alltoallw(s, cn, dp, nulls, rb, cn, dp, types, c));
    EXPECT(EP_Alltoallw, EP_ERR_COUNT, "negative recvcounts entry", EP_Alltoallw(s, cn, dp, types, rb, neg, dp, types, c));
    EXPECT(EP_Reduce_local, EP_ERR_OP, "MPI_OP_NULL", EP_Reduce_local(s, rb, 1, MPI_INT, MPI_OP_NULL));
    EXPECT(EP_Reduce_local, EP_ERR_BUFFER, "NULL inoutbuf", EP_Reduce_local(s, NULL, 1, MPI_INT, MPI_SUM));
    CHECK(r == EP_REQUEST_NULL, "a refused nonblocking collective wrote its request");
}

/* The persistent collectives refuse at init what their blocking forms refuse, and make nothing. */
static void persistent_collective_cases(EP_Comm c, int n, int *s, int *rb, int *cn, int *dp, int *neg)
{
    EP_Request r = EP_REQUEST_NULL;
    MPI_Info i = MPI_INFO_NULL;
    MPI_Datatype types[64];
    for (int k = 0; k < n && k < 64; k++)
        types[k] = MPI_INT;
    EXPECT(EP_Barrier_init, EP_ERR_ARG, "NULL request", EP_Barrier_init(c, i, NULL));
    EXPECT(EP_Barrier_init, EP_ERR_COMM, "EP_COMM_NULL", EP_Barrier_init(EP_COMM_NULL, i, &r));
    EXPECT(EP_Bcast_init, EP_ERR_ROOT, "root = size", EP_Bcast_init(s, 1, MPI_INT, n, c, i, &r));
    EXPECT(EP_Reduce_init, EP_ERR_COUNT, "count -1", EP_Reduce_init(s, rb, -1, MPI_INT, MPI_SUM, 0, c, i, &r));
    EXPECT(EP_Allreduce_init, EP_ERR_OP, "MPI_OP_NULL", EP_Allreduce_init(s, rb, 1, MPI_INT, MPI_OP_NULL, c, i, &r));
    EXPECT(EP_Reduce_scatter_block_init, EP_ERR_COUNT, "recvcount -1", EP_Reduce_scatter_block_init(s, rb, -1, MPI_INT, MPI_SUM, c, i, &r));
    EXPECT(EP_Reduce_scatter_init, EP_ERR_COUNT, "negative recvcounts entry", EP_Reduce_scatter_init(s, rb, neg, MPI_INT, MPI_SUM, c, i, &r));
    EXPECT(EP_Scan_init, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Scan_init(s, rb, 1, MPI_DATATYPE_NULL, MPI_SUM, c, i, &r));
    EXPECT(EP_Exscan_init, EP_ERR_ARG, "NULL request", EP_Exscan_init(s, rb, 1, MPI_INT, MPI_SUM, c, i, NULL));
    EXPECT(EP_Gather_init, EP_ERR_ROOT, "root -1", EP_Gather_init(s, 1, MPI_INT, rb, 1, MPI_INT, -1, c, i, &r));
    EXPECT(EP_Gatherv_init, EP_ERR_ARG, "NULL recvcounts at the root", EP_Gatherv_init(s, 1, MPI_INT, rb, NULL, dp, MPI_INT, 0, c, i, &r));
    EXPECT(EP_Scatter_init, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Scatter_init(s, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, 0, c, i, &r));
    EXPECT(EP_Scatterv_init, EP_ERR_COUNT, "negative sendcounts entry", EP_Scatterv_init(s, neg, dp, MPI_INT, rb, 1, MPI_INT, 0, c, i, &r));
    EXPECT(EP_Allgather_init, EP_ERR_BUFFER, "NULL recvbuf", EP_Allgather_init(s, 1, MPI_INT, NULL, 1, MPI_INT, c, i, &r));
    EXPECT(EP_Allgatherv_init, EP_ERR_ARG, "NULL displs", EP_Allgatherv_init(s, 1, MPI_INT, rb, cn, NULL, MPI_INT, c, i, &r));
    EXPECT(EP_Alltoall_init, EP_ERR_COUNT, "sendcount -1", EP_Alltoall_init(s, -1, MPI_INT, rb, 1, MPI_INT, c, i, &r));
    EXPECT(EP_Alltoallv_init, EP_ERR_ARG, "NULL rdispls", EP_Alltoallv_init(s, cn, dp, MPI_INT, rb, cn, NULL, MPI_INT, c, i, &r));
    EXPECT(EP_Alltoallw_init, EP_ERR_ARG, "NULL recvtypes", EP_Alltoallw_init(s, cn, dp, types, rb, cn, dp, NULL, c, i, &r));
    CHECK(r == EP_REQUEST_NULL, "a refused persistent collective wrote its request");
}

static void collective_argument_cases(void)
{
    EP_Comm c = B.comm;
    int n = B.size, *s = B.sbuf, *rb = B.rbuf, *cn = B.counts, *dp = B.displs;
    int neg[64];
    for (int i = 0; i < n && i < 64; i++)
        neg[i] = i == n - 1 ? -1 : 1;
    EP_Request r;
    EXPECT(EP_Bcast, EP_ERR_ROOT, "root = size", EP_Bcast(s, 1, MPI_INT, n, c));
    EXPECT(EP_Bcast, EP_ERR_ROOT, "root -1", EP_Bcast(s, 1, MPI_INT, -1, c));
    EXPECT(EP_Bcast, EP_ERR_ROOT, "EP_ROOT on an intracommunicator", EP_Bcast(s, 1, MPI_INT, EP_ROOT, c));
    EXPECT(EP_Bcast, EP_ERR_COUNT, "count -1", EP_Bcast(s, -1, MPI_INT, 0, c));
    EXPECT(EP_Bcast, EP_ERR_BUFFER, "NULL buffer", EP_Bcast(NULL, 1, MPI_INT, 0, c));
    EXPECT(EP_Bcast, EP_ERR_BUFFER, "MPI_IN_PLACE", EP_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, c));
    EXPECT(EP_Bcast, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Bcast(s, 1, MPI_DATATYPE_NULL, 0, c));
    EXPECT(EP_Ibcast, EP_ERR_ROOT, "root = size", EP_Ibcast(s, 1, MPI_INT, n, c, &r));
    EXPECT(EP_Reduce, EP_ERR_ROOT, "root = size", EP_Reduce(s, rb, 1, MPI_INT, MPI_SUM, n, c));
    EXPECT(EP_Reduce, EP_ERR_OP, "MPI_OP_NULL", EP_Reduce(s, rb, 1, MPI_INT, MPI_OP_NULL, 0, c));
    EXPECT(EP_Reduce, EP_ERR_COUNT, "count -1", EP_Reduce(s, rb, -1, MPI_INT, MPI_SUM, 0, c));
    EXPECT(EP_Allreduce, EP_ERR_OP, "MPI_OP_NULL", EP_Allreduce(s, rb, 1, MPI_INT, MPI_OP_NULL, c));
    EXPECT(EP_Allreduce, EP_ERR_BUFFER, "NULL recvbuf", EP_Allreduce(s, NULL, 1, MPI_INT, MPI_SUM, c));
    EXPECT(EP_Allreduce, EP_ERR_BUFFER, "MPI_IN_PLACE recvbuf", EP_Allreduce(s, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, c));
    EXPECT(EP_Allreduce, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Allreduce(s, rb, 1, MPI_DATATYPE_NULL, MPI_SUM, c));
    EXPECT(EP_Reduce_scatter_block, EP_ERR_COUNT, "recvcount -1", EP_Reduce_scatter_block(s, rb, -1, MPI_INT, MPI_SUM, c));
    EXPECT(EP_Reduce_scatter, EP_ERR_ARG, "NULL recvcounts", EP_Reduce_scatter(s, rb, NULL, MPI_INT, MPI_SUM, c));
    EXPECT(EP_Reduce_scatter, EP_ERR_COUNT, "negative recvcounts entry", EP_Reduce_scatter(s, rb, neg, MPI_INT, MPI_SUM, c));
    EXPECT(EP_Scan, EP_ERR_OP, "MPI_OP_NULL", EP_Scan(s, rb, 1, MPI_INT, MPI_OP_NULL, c));
    EXPECT(EP_Exscan, EP_ERR_COUNT, "count -2", EP_Exscan(s, rb, -2, MPI_INT, MPI_SUM, c));
    EXPECT(EP_Gather, EP_ERR_ROOT, "root = size", EP_Gather(s, 1, MPI_INT, rb, 1, MPI_INT, n, c));
    EXPECT(EP_Gather, EP_ERR_COUNT, "recvcount -1 at the root", EP_Gather(s, 1, MPI_INT, rb, -1, MPI_INT, 0, c));
    EXPECT(EP_Gather, EP_ERR_BUFFER, "NULL sendbuf", EP_Gather(NULL, 1, MPI_INT, rb, 1, MPI_INT, 0, c));
    EXPECT(EP_Gatherv, EP_ERR_ARG, "NULL recvcounts at the root", EP_Gatherv(s, 1, MPI_INT, rb, NULL, dp, MPI_INT, 0, c));
    EXPECT(EP_Gatherv, EP_ERR_ARG, "NULL displs at the root", EP_Gatherv(s, 1, MPI_INT, rb, cn, NULL, MPI_INT, 0, c));
    EXPECT(EP_Gatherv, EP_ERR_COUNT, "negative recvcounts entry", EP_Gatherv(s, 1, MPI_INT, rb, neg, dp, MPI_INT, 0, c));
    EXPECT(EP_Scatter, EP_ERR_ROOT, "root -2", EP_Scatter(s, 1, MPI_INT, rb, 1, MPI_INT, -2, c));
    EXPECT(EP_Scatter, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Scatter(s, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, 0, c));
    EXPECT(EP_Scatterv, EP_ERR_ARG, "NULL sendcounts at the root", EP_Scatterv(s, NULL, dp, MPI_INT, rb, 1, MPI_INT, 0, c));
    EXPECT(EP_Scatterv, EP_ERR_COUNT, "negative sendcounts entry", EP_Scatterv(s, neg, dp, MPI_INT, rb, 1, MPI_INT, 0, c));
    EXPECT(EP_Allgather, EP_ERR_COUNT, "sendcount -1", EP_Allgather(s, -1, MPI_INT, rb, 1, MPI_INT, c));
    EXPECT(EP_Allgather, EP_ERR_BUFFER, "NULL recvbuf", EP_Allgather(s, 1, MPI_INT, NULL, 1, MPI_INT, c));
    EXPECT(EP_Allgatherv, EP_ERR_ARG, "NULL displs", EP_Allgatherv(s, 1, MPI_INT, rb, cn, NULL, MPI_INT, c));
    EXPECT(EP_Allgatherv, EP_ERR_COUNT, "negative recvcounts entry", EP_Allgatherv(s, 1, MPI_INT, rb, neg, dp, MPI_INT, c));
    EXPECT(EP_Alltoall, EP_ERR_COUNT, "recvcount -1", EP_Alltoall(s, 1, MPI_INT, rb, -1, MPI_INT, c));
    EXPECT(EP_Alltoall, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Alltoall(s, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, c));
    EXPECT(EP_Alltoallv, EP_ERR_ARG, "NULL sdispls", EP_Alltoallv(s, cn, NULL, MPI_INT, rb, cn, dp, MPI_INT, c));
    EXPECT(EP_Alltoallv, EP_ERR_COUNT, "negative sendcounts entry", EP_Alltoallv(s, neg, dp, MPI_INT, rb, cn, dp, MPI_INT, c));
    nonblocking_collective_cases(c, n, s, rb, cn, dp, neg);
    persistent_collective_cases(c, n, s, rb, cn, dp, neg);
}

/* One-sided calls outside an epoch, out of range, and double frees. */
static void window_cases(EP_Win dynwin)
{
    EP_Win w = B.win;
    int n = B.size, one = 1, res;
    EP_Request r;
    /* Outside any epoch (no fence, lock or lock_all yet). */
    EXPECT(EP_Put, EP_ERR_RMA_SYNC, "no epoch", EP_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
    EXPECT(EP_Get, EP_ERR_RMA_SYNC, "no epoch", EP_Get(&res, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
    EXPECT(EP_Accumulate, EP_ERR_RMA_SYNC, "no epoch", EP_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w));
    EXPECT(EP_Get_accumulate, EP_ERR_RMA_SYNC, "no epoch", EP_Get_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w));
    EXPECT(EP_Fetch_and_op, EP_ERR_RMA_SYNC, "no epoch", EP_Fetch_and_op(&one, &res, MPI_INT, 0, 0, MPI_SUM, w));
    EXPECT(EP_Compare_and_swap, EP_ERR_RMA_SYNC, "no epoch", EP_Compare_and_swap(&one, &one, &res, MPI_INT, 0, 0, w));
    EXPECT(EP_Rput, EP_ERR_RMA_SYNC, "no epoch", EP_Rput(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, w, &r));
    EXPECT(EP_Rget, EP_ERR_RMA_SYNC, "no epoch", EP_Rget(&res, 1, MPI_INT, 0, 0, 1, MPI_INT, w, &r));
    EXPECT(EP_Raccumulate, EP_ERR_RMA_SYNC, "no epoch", EP_Raccumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w, &r));
    EXPECT(EP_Rget_accumulate, EP_ERR_RMA_SYNC, "no epoch",
           EP_Rget_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w, &r));
    EXPECT(EP_Win_unlock, EP_ERR_RMA_SYNC, "not locked", EP_Win_unlock(0, w));
    EXPECT(EP_Win_unlock_all, EP_ERR_RMA_SYNC, "no lock_all", EP_Win_unlock_all(w));
    EXPECT(EP_Win_flush, EP_ERR_RMA_SYNC, "not locked", EP_Win_flush(0, w));
    EXPECT(EP_Win_flush_local, EP_ERR_RMA_SYNC, "not locked", EP_Win_flush_local(0, w));
    EXPECT(EP_Win_complete, EP_ERR_RMA_SYNC, "no start", EP_Win_complete(w));
    EXPECT(EP_Win_wait, EP_ERR_RMA_SYNC, "no post", EP_Win_wait(w));
    EXPECT(EP_Win_test, EP_ERR_RMA_SYNC, "no post", EP_Win_test(w, &res));
    /* Post and start arguments. */
    EXPECT(EP_Win_post, EP_ERR_GROUP, "EP_GROUP_NULL", EP_Win_post(EP_GROUP_NULL, 0, w));
    EXPECT(EP_Win_start, EP_ERR_GROUP, "EP_GROUP_NULL", EP_Win_start(EP_GROUP_NULL, 0, w));
    EXPECT(EP_Win_post, EP_ERR_ARG, "MPI_MODE_NOSUCCEED", EP_Win_post(EP_GROUP_EMPTY, MPI_MODE_NOSUCCEED, w));
    EXPECT(EP_Win_start, EP_ERR_ARG, "MPI_MODE_NOSTORE", EP_Win_start(EP_GROUP_EMPTY, MPI_MODE_NOSTORE, w));
    /* Lock arguments. */
    EXPECT(EP_Win_lock, EP_ERR_LOCKTYPE, "lock type 12345", EP_Win_lock(12345, 0, 0, w));
    EXPECT(EP_Win_lock, EP_ERR_RANK, "rank = size", EP_Win_lock(MPI_LOCK_SHARED, n, 0, w));
    EXPECT(EP_Win_flush, EP_ERR_RANK, "rank = size", EP_Win_flush(n, w));
    EXPECT(EP_Win_flush_local, EP_ERR_RANK, "rank -5", EP_Win_flush_local(-5, w));
    EXPECT(EP_Win_unlock, EP_ERR_RANK, "rank = size", EP_Win_unlock(n, w));
    /* Inside a lock epoch on this endpoint's own memory. */
    CHECK_OK(EP_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    EXPECT(EP_Win_lock, EP_ERR_RMA_SYNC, "locked twice", EP_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    EXPECT(EP_Win_lock_all, EP_ERR_RMA_SYNC, "inside a lock", EP_Win_lock_all(0, w));
    EXPECT(EP_Win_fence, EP_ERR_RMA_SYNC, "inside a lock", EP_Win_fence(0, w));
    EXPECT(EP_Win_free, EP_ERR_RMA_SYNC, "lock held", EP_Win_free(&w));
    CHECK(w == B.win, "handle changed by a refused free");
    EXPECT(EP_Put, EP_ERR_RANK, "target = size", EP_Put(&one, 1, MPI_INT, n, 0, 1, MPI_INT, w));
    EXPECT(EP_Put, EP_ERR_DISP, "displacement -1", EP_Put(&one, 1, MPI_INT, 0, -1, 1, MPI_INT, w));
    EXPECT(EP_Put, EP_ERR_RMA_RANGE, "past the window", EP_Put(&one, 1, MPI_INT, 0, 4 * n, 1, MPI_INT, w));
    EXPECT(EP_Put, EP_ERR_COUNT, "origin count -1", EP_Put(&one, -1, MPI_INT, 0, 0, 1, MPI_INT, w));
    EXPECT(EP_Put, EP_ERR_BUFFER, "NULL origin", EP_Put(NULL, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
    EXPECT(EP_Put, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Put(&one, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, w));
    MPI_Datatype unc;
    MPI_Type_contiguous(1, MPI_INT, &unc);
    EXPECT(EP_Put, EP_ERR_TYPE, "uncommitted origin type", EP_Put(&one, 1, unc, 0, 0, 1, MPI_INT, w));
    EXPECT(EP_Put, EP_ERR_TYPE, "uncommitted target type", EP_Put(&one, 1, MPI_INT, 0, 0, 1, unc, w));
    EXPECT(EP_Get, EP_ERR_TYPE, "uncommitted origin type", EP_Get(&res, 1, unc, 0, 0, 1, MPI_INT, w));
    MPI_Type_free(&unc);
    EXPECT(EP_Get, EP_ERR_RMA_RANGE, "past the window", EP_Get(&res, 1, MPI_INT, 0, 4 * n, 1, MPI_INT, w));
    EXPECT(EP_Accumulate, EP_ERR_OP, "MPI_OP_NULL", EP_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, w));
    EXPECT(EP_Get_accumulate, EP_ERR_DISP, "displacement -3", EP_Get_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, 0, -3, 1, MPI_INT, MPI_SUM, w));
    EXPECT(EP_Fetch_and_op, EP_ERR_RANK, "target = size", EP_Fetch_and_op(&one, &res, MPI_INT, n, 0, MPI_SUM, w));
    EXPECT(EP_Compare_and_swap, EP_ERR_RMA_RANGE, "past the window", EP_Compare_and_swap(&one, &one, &res, MPI_INT, 0, 4 * n, w));
    EXPECT(EP_Rput, EP_ERR_RANK, "target -4", EP_Rput(&one, 1, MPI_INT, -4, 0, 1, MPI_INT, w, &r));
    EXPECT(EP_Rget, EP_ERR_DISP, "displacement -1", EP_Rget(&res, 1, MPI_INT, 0, -1, 1, MPI_INT, w, &r));
    EXPECT(EP_Raccumulate, EP_ERR_OP, "MPI_OP_NULL", EP_Raccumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, w, &r));
    EXPECT(EP_Rget_accumulate, EP_ERR_RANK, "target = size",
           EP_Rget_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, n, 0, 1, MPI_INT, MPI_SUM, w, &r));
    CHECK_OK(EP_Win_flush_all(w));
    CHECK_OK(EP_Win_sync(w));
    CHECK_OK(EP_Win_unlock(0, w));
    EXPECT(EP_Win_flush_all, EP_SUCCESS, "no lock: nothing to flush", EP_Win_flush_all(w));
    EXPECT(EP_Win_flush_local_all, EP_SUCCESS, "no lock: nothing to flush", EP_Win_flush_local_all(w));
    EXPECT(EP_Win_sync, EP_SUCCESS, "outside an epoch (a memory barrier)", EP_Win_sync(w));
    /* Handlers and dynamic windows. */
    EXPECT(EP_Win_set_errhandler, EP_ERR_ARG, "handler 77", EP_Win_set_errhandler(w, 77));
    EXPECT(EP_Win_attach, EP_ERR_WIN, "not a dynamic window", EP_Win_attach(w, B.rbuf, 4));
    EXPECT(EP_Win_attach, EP_ERR_SIZE, "size -1", EP_Win_attach(dynwin, B.rbuf, -1));
    EXPECT(EP_Win_attach, EP_ERR_BUFFER, "NULL base, size 4", EP_Win_attach(dynwin, NULL, 4));
    EXPECT(EP_Win_detach, EP_ERR_WIN, "region not attached", EP_Win_detach(dynwin, B.rbuf));
    EXPECT(EP_Win_detach, EP_ERR_ARG, "NULL base", EP_Win_detach(dynwin, NULL));
    /* Shared-memory queries and attributes. */
    MPI_Aint bytes;
    int unit;
    void *base;
    EXPECT(EP_Win_shared_query, EP_ERR_RANK, "rank = size", EP_Win_shared_query(w, n, &bytes, &unit, &base));
    EXPECT(EP_Win_shared_query, EP_ERR_ARG, "NULL size", EP_Win_shared_query(w, 0, NULL, &unit, &base));
    EXPECT(EP_Win_get_attr, EP_ERR_KEYVAL, "key EP_TAG_UB (a communicator key)", EP_Win_get_attr(w, EP_TAG_UB, &base, &unit));
    EXPECT(EP_Win_get_attr, EP_ERR_ARG, "NULL value", EP_Win_get_attr(w, EP_WIN_SIZE, NULL, &unit));
    /* Window keyvals: a keyval of one kind names no attribute of the other. */
    int wkv = EP_KEYVAL_INVALID, ckv = EP_KEYVAL_INVALID;
    EXPECT(EP_Win_create_keyval, EP_ERR_ARG, "NULL keyval", EP_Win_create_keyval(NULL, NULL, NULL, NULL));
    CHECK_OK(EP_Win_create_keyval(EP_WIN_NULL_COPY_FN, EP_WIN_NULL_DELETE_FN, &wkv, NULL));
    CHECK_OK(EP_Comm_create_keyval(NULL, NULL, &ckv, NULL));
    EXPECT(EP_Win_set_attr, EP_ERR_KEYVAL, "a communicator's keyval", EP_Win_set_attr(w, ckv, NULL));
    EXPECT(EP_Win_set_attr, EP_ERR_KEYVAL, "predefined EP_WIN_BASE", EP_Win_set_attr(w, EP_WIN_BASE, NULL));
    EXPECT(EP_Win_delete_attr, EP_ERR_KEYVAL, "made-up keyval 12345", EP_Win_delete_attr(w, 12345));
    EXPECT(EP_Win_delete_attr, EP_ERR_KEYVAL, "a communicator's keyval", EP_Win_delete_attr(w, ckv));
    EXPECT(EP_Win_get_attr, EP_ERR_KEYVAL, "a communicator's keyval", EP_Win_get_attr(w, ckv, &base, &unit));
    EXPECT(EP_Comm_set_attr, EP_ERR_KEYVAL, "a window's keyval", EP_Comm_set_attr(B.comm, wkv, NULL));
    EXPECT(EP_Comm_get_attr, EP_ERR_KEYVAL, "a window's keyval", EP_Comm_get_attr(B.comm, wkv, &base, &unit));
    EXPECT(EP_Win_free_keyval, EP_ERR_KEYVAL, "a communicator's keyval", EP_Win_free_keyval(&ckv));
    EXPECT(EP_Comm_free_keyval, EP_ERR_KEYVAL, "a window's keyval", EP_Comm_free_keyval(&wkv));
    int wkv_freed = wkv;
    CHECK_OK(EP_Win_free_keyval(&wkv));
    CHECK(wkv == EP_KEYVAL_INVALID, "EP_Win_free_keyval left %d", wkv);
    CHECK_OK(EP_Comm_free_keyval(&ckv));
    EXPECT(EP_Win_free_keyval, EP_ERR_KEYVAL, "freed twice", EP_Win_free_keyval(&wkv_freed));
    EXPECT(EP_Win_free_keyval, EP_ERR_ARG, "NULL pointer", EP_Win_free_keyval(NULL));
    EXPECT(EP_Win_set_attr, EP_ERR_KEYVAL, "freed keyval", EP_Win_set_attr(w, wkv_freed, NULL));
    EXPECT(EP_WIN_NULL_COPY_FN, EP_ERR_ARG, "NULL flag", EP_WIN_NULL_COPY_FN(w, 0, NULL, NULL, &base, NULL));
    EXPECT(EP_WIN_DUP_FN, EP_ERR_ARG, "NULL attribute_val_out", EP_WIN_DUP_FN(w, 0, NULL, NULL, NULL, &unit));
    EXPECT(EP_WIN_NULL_DELETE_FN, EP_SUCCESS, "no argument is read", EP_WIN_NULL_DELETE_FN(w, 0, NULL, NULL));
}

#define UNC_TAG 91

/* Completes a request that a call started although it should have failed, so that a library
 * accepting a bad type fails the checks instead of leaving work behind. */
static void unc_finish(int rc, EP_Request *r)
{
    if (rc == EP_SUCCESS && *r != EP_REQUEST_NULL)
        CHECK_OK(EP_Wait(r, EP_STATUS_IGNORE));
}

/*
 * A derived datatype that is not committed (MPI 4.1 section 5.1.9), made by every endpoint
 * under EP_ERRORS_RETURN: point-to-point calls and collectives return EP_ERR_TYPE before
 * communicating, whether EPMPI would copy the type (a contiguous type of 4 ints) or pack it
 * (a vector), and the communicator keeps working: a matched message refused with the type is
 * still there for a correct receive, the same type once committed carries data, and a new
 * uncommitted type (the host may give it a freed type's handle value) is refused again. Every
 * case is symmetric in the ring (send right, receive from left) and collectives are called by
 * all endpoints alike, so a library that wrongly accepts the type fails the checks without
 * hanging.
 */
static void uncommitted_type_cases(EP_Comm comm, int me, int size, int left, int right)
{
    MPI_Datatype contig, vec;
    MPI_Type_contiguous(4, MPI_INT, &contig);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    const MPI_Datatype types[2] = { contig, vec };
    const char *names[2] = { "uncommitted contiguous type (4 ints)", "uncommitted vector type" };
    int out[8], in[8], x;
    int *many_out = calloc(8 * size, sizeof(int)), *many_in = calloc(8 * size, sizeof(int));
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = 2 * i;
    }
    EP_Request r, s;
    EP_Message m;
    EP_Status st;
    CHECK_OK(EP_Comm_set_errhandler(comm, EP_ERRORS_RETURN));
    for (int i = 0; i < 8; i++)
        out[i] = 100 * me + i;
    for (int k = 0; k < 2; k++) {
        MPI_Datatype t = types[k];
        const char *w = names[k];
        int rc, rc2;
        /* Point-to-point. */
        EXPECT(EP_Send, EP_ERR_TYPE, w, EP_Send(out, 1, t, right, UNC_TAG, comm));
        EXPECT(EP_Recv, EP_ERR_TYPE, w, EP_Recv(in, 1, t, left, UNC_TAG, comm, EP_STATUS_IGNORE));
        r = s = EP_REQUEST_NULL;
        rc = EP_Isend(out, 1, t, right, UNC_TAG + 1, comm, &s);
        rc2 = EP_Irecv(in, 1, t, left, UNC_TAG + 1, comm, &r);
        EXPECT(EP_Isend, EP_ERR_TYPE, w, rc);
        EXPECT(EP_Irecv, EP_ERR_TYPE, w, rc2);
        unc_finish(rc, &s);
        unc_finish(rc2, &r);
        r = s = EP_REQUEST_NULL;
        rc = EP_Issend(out, 1, t, right, UNC_TAG + 2, comm, &s);
        EXPECT(EP_Issend, EP_ERR_TYPE, w, rc);
        if (rc == EP_SUCCESS)
            CHECK_OK(EP_Recv(in, 8, MPI_INT, left, UNC_TAG + 2, comm, EP_STATUS_IGNORE));
        unc_finish(rc, &s);
        EXPECT(EP_Sendrecv, EP_ERR_TYPE, w, EP_Sendrecv(out, 1, t, right, UNC_TAG + 3, in, 4, MPI_INT, left, UNC_TAG + 3, comm, EP_STATUS_IGNORE));
        EXPECT(EP_Sendrecv, EP_ERR_TYPE, w, EP_Sendrecv(out, 4, MPI_INT, right, UNC_TAG + 4, in, 1, t, left, UNC_TAG + 4, comm, EP_STATUS_IGNORE));
        /* A matched message refused with the type stays for a correct receive. */
        CHECK_OK(EP_Isend(out, 4, MPI_INT, right, UNC_TAG + 5, comm, &s));
        CHECK_OK(EP_Mprobe(left, UNC_TAG + 5, comm, &m, &st));
        EXPECT(EP_Get_count, EP_ERR_TYPE, w, EP_Get_count(&st, t, &x));
        EXPECT(EP_Mrecv, EP_ERR_TYPE, w, EP_Mrecv(in, 1, t, &m, &st));
        r = EP_REQUEST_NULL;
        rc = EP_Imrecv(in, 1, t, &m, &r);
        EXPECT(EP_Imrecv, EP_ERR_TYPE, w, rc);
        unc_finish(rc, &r);
        memset(in, 0xff, sizeof in);
        CHECK_OK(EP_Mrecv(in, 4, MPI_INT, &m, &st));
        CHECK(in[0] == 100 * left && in[3] == 100 * left + 3, "message after the refused receives: %d %d from %d", in[0], in[3], left);
        CHECK_OK(EP_Wait(&s, EP_STATUS_IGNORE));
        /* Collectives, called alike by every endpoint. */
        EXPECT(EP_Bcast, EP_ERR_TYPE, w, EP_Bcast(out, 1, t, 0, comm));
        r = EP_REQUEST_NULL;
        rc = EP_Ibcast(out, 1, t, 0, comm, &r);
        EXPECT(EP_Ibcast, EP_ERR_TYPE, w, rc);
        unc_finish(rc, &r);
        EXPECT(EP_Allreduce, EP_ERR_TYPE, w, EP_Allreduce(out, in, 1, t, MPI_SUM, comm));
        EXPECT(EP_Allgather, EP_ERR_TYPE, w, EP_Allgather(many_out, 1, t, many_in, 1, t, comm));
        EXPECT(EP_Gatherv, EP_ERR_TYPE, w, EP_Gatherv(many_out, 1, t, many_in, counts, displs, t, 0, comm));
        EXPECT(EP_Alltoallv, EP_ERR_TYPE, w, EP_Alltoallv(many_out, counts, displs, t, many_in, counts, displs, t, comm));
    }
    /* The same types once committed carry data. */
    MPI_Type_commit(&contig);
    MPI_Type_commit(&vec);
    memset(in, 0xff, sizeof in);
    CHECK_OK(EP_Sendrecv(out, 1, contig, right, UNC_TAG + 6, in, 1, contig, left, UNC_TAG + 6, comm, EP_STATUS_IGNORE));
    CHECK(in[0] == 100 * left && in[3] == 100 * left + 3 && in[4] == -1, "committed contiguous type: %d %d %d from %d", in[0], in[3], in[4], left);
    memset(in, 0xff, sizeof in);
    CHECK_OK(EP_Sendrecv(out, 1, vec, right, UNC_TAG + 7, in, 1, vec, left, UNC_TAG + 7, comm, EP_STATUS_IGNORE));
    CHECK(in[0] == 100 * left && in[1] == -1 && in[2] == 100 * left + 2, "committed vector type: %d %d %d from %d", in[0], in[1], in[2], left);
    int root_data[4] = { 7, 8, 9, 10 };
    if (me != 0)
        memset(root_data, 0, sizeof root_data);
    CHECK_OK(EP_Bcast(root_data, 1, contig, 0, comm));
    CHECK(root_data[0] == 7 && root_data[3] == 10, "bcast with the committed type: %d %d", root_data[0], root_data[3]);
    MPI_Type_free(&contig);
    MPI_Type_free(&vec);
    /* A new uncommitted type, perhaps with a freed type's handle value, is refused again. */
    MPI_Datatype again;
    MPI_Type_contiguous(4, MPI_INT, &again);
    EXPECT(EP_Send, EP_ERR_TYPE, "new uncommitted type after freeing a committed one", EP_Send(out, 1, again, right, UNC_TAG, comm));
    EXPECT(EP_Bcast, EP_ERR_TYPE, "new uncommitted type after freeing a committed one", EP_Bcast(out, 1, again, 0, comm));
    MPI_Type_free(&again);
    free(many_out);
    free(many_in);
    free(counts);
    free(displs);
}

/* Ring traffic among ranks 1..size-1 while rank 0 runs the cases. */
static void ring_without_rank0(EP_Comm comm, int me, int size)
{
    int others = size - 1, k = me - 1;
    int right = 1 + (k + 1) % others, left = 1 + (k - 1 + others) % others;
    for (int round = 0; round < RING_ROUNDS; round++) {
        int out = 1000 * me + round, in = -1;
        CHECK_OK(EP_Sendrecv(&out, 1, MPI_INT, right, RING_TAG, &in, 1, MPI_INT, left, RING_TAG, comm, EP_STATUS_IGNORE));
        CHECK(in == 1000 * left + round, "ring round %d: got %d from %d", round, in, left);
    }
}

/* Point-to-point, a collective and the window work on every endpoint. */
static void check_still_working(EP_Comm comm, EP_Win win, int *mem, int me, int size, int left, int right)
{
    int out = me, in = -1, sum = -1;
    CHECK_OK(EP_Sendrecv(&out, 1, MPI_INT, right, RING_TAG + 1, &in, 1, MPI_INT, left, RING_TAG + 1, comm, EP_STATUS_IGNORE));
    CHECK(in == left, "ring after the cases: got %d from %d", in, left);
    CHECK_OK(EP_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2, "allreduce after the cases: %d", sum);
    CHECK_OK(EP_Win_fence(0, win));
    CHECK_OK(EP_Put(&me, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    CHECK_OK(EP_Win_fence(0, win));
    CHECK(mem[0] == left, "put after the cases: %d, expected %d", mem[0], left);
    CHECK_OK(EP_Barrier(comm));
}

/* Bad arguments of the collectives that create something. These agree on errors: a bad
 * argument on one endpoint fails the call on every endpoint (docs/errors.md, tests/c/agree.c),
 * so every endpoint makes these calls together, each with the same bad argument, and gets its
 * own error. The bad peer communicator matters on the local leader only: the other endpoints
 * get the leader's class. */
static void collective_creation_cases(EP_Comm c, int me)
{
    int buf[4], *mem;
    void *p;
    EP_Comm out;
    EP_Win w;
    EXPECT(EP_Comm_dup, EP_ERR_ARG, "NULL newcomm", EP_Comm_dup(c, NULL));
    EXPECT(EP_Comm_split, EP_ERR_ARG, "NULL newcomm", EP_Comm_split(c, 0, 0, NULL));
    EXPECT(EP_Comm_split, EP_ERR_ARG, "color -5", EP_Comm_split(c, -5, 0, &out));
    EXPECT(EP_Comm_split_type, EP_ERR_ARG, "NULL newcomm", EP_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL));
    EXPECT(EP_Comm_split_type, EP_ERR_ARG, "split type 12345", EP_Comm_split_type(c, 12345, 0, MPI_INFO_NULL, &out));
    EXPECT(EP_Intercomm_create, EP_ERR_ARG, "NULL newintercomm", EP_Intercomm_create(c, 0, c, 0, 7, NULL));
    EXPECT(EP_Intercomm_create, EP_ERR_TAG, "tag -1", EP_Intercomm_create(c, 0, c, 0, -1, &out));
    EXPECT(EP_Intercomm_create, EP_ERR_COMM, me == 0 ? "made-up peer_comm 987654 on the leader" : "the leader's peer_comm is made up",
           EP_Intercomm_create(c, 0, me == 0 ? 987654 : EP_COMM_NULL, 0, 7, &out));
    EXPECT(EP_Win_create, EP_ERR_ARG, "NULL win", EP_Win_create(buf, 4, 4, MPI_INFO_NULL, c, NULL));
    EXPECT(EP_Win_create, EP_ERR_SIZE, "size -1", EP_Win_create(buf, -1, 4, MPI_INFO_NULL, c, &w));
    EXPECT(EP_Win_create, EP_ERR_DISP, "disp_unit 0", EP_Win_create(buf, 4, 0, MPI_INFO_NULL, c, &w));
    EXPECT(EP_Win_create, EP_ERR_BUFFER, "NULL base, size 4", EP_Win_create(NULL, 4, 4, MPI_INFO_NULL, c, &w));
    EXPECT(EP_Win_allocate, EP_ERR_ARG, "NULL baseptr", EP_Win_allocate(4, 4, MPI_INFO_NULL, c, NULL, &w));
    EXPECT(EP_Win_allocate, EP_ERR_ARG, "NULL win", EP_Win_allocate(4, 4, MPI_INFO_NULL, c, &p, NULL));
    EXPECT(EP_Win_allocate, EP_ERR_SIZE, "size -8", EP_Win_allocate(-8, 4, MPI_INFO_NULL, c, &mem, &w));
    EXPECT(EP_Win_allocate, EP_ERR_DISP, "disp_unit -1", EP_Win_allocate(8, -1, MPI_INFO_NULL, c, &mem, &w));
    EXPECT(EP_Win_create_dynamic, EP_ERR_ARG, "NULL win", EP_Win_create_dynamic(MPI_INFO_NULL, c, NULL));
    EXPECT(EP_Win_allocate_shared, EP_ERR_ARG, "NULL baseptr", EP_Win_allocate_shared(4, 4, MPI_INFO_NULL, c, NULL, &w));
    EXPECT(EP_Win_allocate_shared, EP_ERR_SIZE, "size -8", EP_Win_allocate_shared(-8, 4, MPI_INFO_NULL, c, &mem, &w));
    EXPECT(EP_Win_allocate_shared, EP_ERR_DISP, "disp_unit 0", EP_Win_allocate_shared(8, 0, MPI_INFO_NULL, c, &mem, &w));
    EP_Group g;
    CHECK_OK(EP_Comm_group(c, &g));
    EXPECT(EP_Comm_create, EP_ERR_ARG, "NULL newcomm", EP_Comm_create(c, g, NULL));
    EXPECT(EP_Comm_create, EP_ERR_GROUP, me == 0 ? "made-up group 12345" : "rank 0's group is made up",
           EP_Comm_create(c, me == 0 ? 12345 : g, &out));
    EXPECT(EP_Comm_create_group, EP_ERR_TAG, "tag -1", EP_Comm_create_group(c, g, -1, &out));
    EXPECT(EP_Comm_create_group, EP_ERR_GROUP, "made-up group 12345", EP_Comm_create_group(c, 12345, 0, &out));
    EXPECT(EP_Comm_idup, EP_ERR_ARG, "NULL request", EP_Comm_idup(c, &out, NULL));
    EXPECT(EP_Comm_dup_with_info, EP_ERR_ARG, "NULL newcomm", EP_Comm_dup_with_info(c, MPI_INFO_NULL, NULL));
    EXPECT(EP_Comm_idup_with_info, EP_ERR_ARG, "NULL request", EP_Comm_idup_with_info(c, MPI_INFO_NULL, &out, NULL));
    /* Hints are accepted and ignored: a local call that cannot fail on its info. */
    EXPECT(EP_Comm_set_info, EP_SUCCESS, "MPI_INFO_NULL", EP_Comm_set_info(c, MPI_INFO_NULL));
    CHECK_OK(EP_Group_free(&g));
}

/* Sendrecv_replace, persistent requests, buffered and ready modes, status queries: made by
 * rank 0 alone, so nothing goes to another endpoint (sends go to itself or EP_PROC_NULL). */
static void p2p_modes_cases(void)
{
    EP_Comm c = B.comm;
    int x = 0, flag = 0, size = B.size;
    EP_Request r = EP_REQUEST_NULL, p;
    EP_Status st;
    MPI_Count big;
    void *addr;
    EXPECT(EP_Sendrecv_replace, EP_ERR_COUNT, "count -1", EP_Sendrecv_replace(&x, -1, MPI_INT, 0, 1, 0, 1, c, &st));
    EXPECT(EP_Sendrecv_replace, EP_ERR_RANK, "dest = size", EP_Sendrecv_replace(&x, 1, MPI_INT, size, 1, 0, 1, c, &st));
    EXPECT(EP_Sendrecv_replace, EP_ERR_TAG, "recvtag -5", EP_Sendrecv_replace(&x, 1, MPI_INT, 0, 1, 0, -5, c, &st));
    EXPECT(EP_Sendrecv_replace, EP_ERR_COMM, "EP_COMM_NULL", EP_Sendrecv_replace(&x, 1, MPI_INT, 0, 1, 0, 1, EP_COMM_NULL, &st));
    EXPECT(EP_Isendrecv, EP_ERR_RANK, "source = size", EP_Isendrecv(&x, 1, MPI_INT, 0, 1, &x, 1, MPI_INT, size, 1, c, &r));
    EXPECT(EP_Isendrecv, EP_ERR_ARG, "NULL request", EP_Isendrecv(&x, 1, MPI_INT, 0, 1, &x, 1, MPI_INT, 0, 1, c, NULL));
    EXPECT(EP_Isendrecv_replace, EP_ERR_COUNT, "count -2", EP_Isendrecv_replace(&x, -2, MPI_INT, 0, 1, 0, 1, c, &r));
    EXPECT(EP_Isendrecv_replace, EP_ERR_TAG, "sendtag -1", EP_Isendrecv_replace(&x, 1, MPI_INT, 0, -1, 0, 1, c, &r));
    EXPECT(EP_Send_init, EP_ERR_RANK, "dest = size", EP_Send_init(&x, 1, MPI_INT, size, 1, c, &r));
    EXPECT(EP_Send_init, EP_ERR_ARG, "NULL request", EP_Send_init(&x, 1, MPI_INT, 0, 1, c, NULL));
    EXPECT(EP_Ssend_init, EP_ERR_TAG, "tag -1", EP_Ssend_init(&x, 1, MPI_INT, 0, -1, c, &r));
    EXPECT(EP_Bsend_init, EP_ERR_COUNT, "count -1", EP_Bsend_init(&x, -1, MPI_INT, 0, 1, c, &r));
    EXPECT(EP_Rsend_init, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Rsend_init(&x, 1, MPI_DATATYPE_NULL, 0, 1, c, &r));
    EXPECT(EP_Recv_init, EP_ERR_RANK, "source size + 5", EP_Recv_init(&x, 1, MPI_INT, size + 5, 1, c, &r));
    EXPECT(EP_Recv_init, EP_ERR_COMM, "EP_COMM_NULL", EP_Recv_init(&x, 1, MPI_INT, 0, 1, EP_COMM_NULL, &r));
    CHECK(r == EP_REQUEST_NULL, "a refused init made a request");
    EXPECT(EP_Start, EP_ERR_REQUEST, "EP_REQUEST_NULL", EP_Start(&r));
    EXPECT(EP_Start, EP_ERR_ARG, "NULL", EP_Start(NULL));
    EXPECT(EP_Startall, EP_ERR_COUNT, "count -1", EP_Startall(-1, &r));
    EXPECT(EP_Startall, EP_ERR_ARG, "NULL array", EP_Startall(1, NULL));
    /* Start of an active request, and of one that is not persistent; cancel of a round. */
    CHECK_OK(EP_Recv_init(&x, 1, MPI_INT, 0, 9, c, &p));
    CHECK_OK(EP_Start(&p));
    EXPECT(EP_Start, EP_ERR_REQUEST, "already active", EP_Start(&p));
    CHECK_OK(EP_Irecv(&x, 1, MPI_INT, 0, 8, c, &r));
    EXPECT(EP_Startall, EP_ERR_REQUEST, "a nonpersistent request", EP_Startall(1, &r));
    CHECK_OK(EP_Cancel(&p));
    CHECK_OK(EP_Wait(&p, &st));
    CHECK_OK(EP_Test_cancelled(&st, &flag));
    CHECK(flag == 1 && p != EP_REQUEST_NULL, "cancelled persistent round: flag %d", flag);
    CHECK_OK(EP_Request_free(&p));
    CHECK_OK(EP_Cancel(&r));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
    /* Buffered mode: nothing attached in this process yet. */
    EXPECT(EP_Bsend, EP_ERR_BUFFER, "no buffer attached", EP_Bsend(&x, 1, MPI_INT, 0, 1, c));
    EXPECT(EP_Ibsend, EP_ERR_ARG, "NULL request", EP_Ibsend(&x, 1, MPI_INT, 0, 1, c, NULL));
    EXPECT(EP_Buffer_detach, EP_ERR_BUFFER, "nothing attached", EP_Buffer_detach(&addr, &x));
    EXPECT(EP_Buffer_detach, EP_ERR_ARG, "NULL size", EP_Buffer_detach(&addr, NULL));
    EXPECT(EP_Buffer_attach, EP_ERR_ARG, "size -1", EP_Buffer_attach(&x, -1));
    char space[64 + EP_BSEND_OVERHEAD];
    CHECK_OK(EP_Buffer_attach(space, (int)sizeof space));
    EXPECT(EP_Buffer_attach, EP_ERR_BUFFER, "attached twice", EP_Buffer_attach(space, (int)sizeof space));
    int too_big[32];
    EXPECT(EP_Bsend, EP_ERR_BUFFER, "128 bytes into 64", EP_Bsend(too_big, 32, MPI_INT, 0, 1, c));
    CHECK_OK(EP_Buffer_detach(&addr, &x));
    EXPECT(EP_Rsend, EP_ERR_RANK, "dest -5", EP_Rsend(&x, 1, MPI_INT, -5, 1, c));
    EXPECT(EP_Irsend, EP_ERR_ARG, "NULL request", EP_Irsend(&x, 1, MPI_INT, 0, 1, c, NULL));
    /* Status queries. */
    EXPECT(EP_Request_get_status, EP_ERR_REQUEST, "made-up handle", EP_Request_get_status(987654, &flag, &st));
    EXPECT(EP_Request_get_status, EP_ERR_ARG, "NULL flag", EP_Request_get_status(EP_REQUEST_NULL, NULL, &st));
    EXPECT(EP_Request_get_status_any, EP_ERR_ARG, "NULL flag", EP_Request_get_status_any(0, NULL, &flag, NULL, &st));
    EXPECT(EP_Request_get_status_any, EP_ERR_COUNT, "count -1", EP_Request_get_status_any(-1, NULL, &flag, &flag, &st));
    EXPECT(EP_Request_get_status_all, EP_ERR_ARG, "NULL flag", EP_Request_get_status_all(0, NULL, NULL, NULL));
    EXPECT(EP_Request_get_status_all, EP_ERR_ARG, "NULL array, count 1", EP_Request_get_status_all(1, NULL, &flag, NULL));
    EXPECT(EP_Request_get_status_all, EP_ERR_REQUEST, "made-up handle",
           EP_Request_get_status_all(1, (EP_Request[]){987654}, &flag, NULL));
    EXPECT(EP_Request_get_status_some, EP_ERR_ARG, "NULL outcount", EP_Request_get_status_some(0, NULL, NULL, NULL, NULL));
    EXPECT(EP_Request_get_status_some, EP_ERR_ARG, "NULL indices",
           EP_Request_get_status_some(1, (EP_Request[]){EP_REQUEST_NULL}, &flag, NULL, NULL));
    EXPECT(EP_Status_get_source, EP_ERR_ARG, "NULL status", EP_Status_get_source(NULL, &flag));
    EXPECT(EP_Status_get_tag, EP_ERR_ARG, "NULL tag", EP_Status_get_tag(&st, NULL));
    EXPECT(EP_Status_get_error, EP_ERR_ARG, "NULL err", EP_Status_get_error(&st, NULL));
    EXPECT(EP_Status_set_source, EP_ERR_ARG, "NULL status", EP_Status_set_source(NULL, 1));
    EXPECT(EP_Status_set_tag, EP_ERR_ARG, "NULL status", EP_Status_set_tag(NULL, 1));
    EXPECT(EP_Status_set_error, EP_ERR_ARG, "NULL status", EP_Status_set_error(NULL, 1));
    EXPECT(EP_Get_elements, EP_ERR_ARG, "NULL status", EP_Get_elements(NULL, MPI_INT, &x));
    EXPECT(EP_Get_elements, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Get_elements(&st, MPI_DATATYPE_NULL, &x));
    EXPECT(EP_Get_elements_x, EP_ERR_ARG, "NULL count", EP_Get_elements_x(&st, MPI_INT, NULL));
    EXPECT(EP_Get_elements_x, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Get_elements_x(&st, MPI_DATATYPE_NULL, &big));
    EXPECT(EP_Status_set_elements, EP_ERR_COUNT, "count -1", EP_Status_set_elements(&st, MPI_INT, -1));
    EXPECT(EP_Status_set_elements, EP_ERR_ARG, "NULL status", EP_Status_set_elements(NULL, MPI_INT, 1));
    EXPECT(EP_Status_set_elements_x, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Status_set_elements_x(&st, MPI_DATATYPE_NULL, 1));
    EXPECT(EP_Status_set_cancelled, EP_ERR_ARG, "NULL status", EP_Status_set_cancelled(NULL, 1));
}

/* Process topologies and neighbourhood collectives, on every endpoint: on a communicator
 * without a topology (EP_ERR_TOPOLOGY, found locally), creation with bad arguments (agreed by
 * every endpoint), and bad arguments on a ring (each endpoint still exchanges empty blocks
 * with its neighbours before it returns, so none waits); then the ring still works. */
static void topology_cases(EP_Comm c, int me, int n)
{
    int x[8] = { 0 }, y[8], one[1] = { 1 }, per[1] = { 1 }, dims[2] = { 4, 0 }, st, big[1] = { n + 1 }, far[1] = { n };
    int two[2] = { 1, 1 }, zero[2] = { 0, 0 };
    MPI_Aint disp[2] = { 0, 0 };
    MPI_Datatype types[2] = { MPI_INT, MPI_INT };
    EP_Comm out, ring;
    EP_Request r;
    EXPECT(EP_Topo_test, EP_ERR_ARG, "NULL status", EP_Topo_test(c, NULL));
    EXPECT(EP_Topo_test, EP_ERR_COMM, "made-up handle 987654", EP_Topo_test(987654, &st));
    EXPECT(EP_Cartdim_get, EP_ERR_TOPOLOGY, "no topology", EP_Cartdim_get(c, &st));
    EXPECT(EP_Cart_get, EP_ERR_TOPOLOGY, "no topology", EP_Cart_get(c, 1, x, x, x));
    EXPECT(EP_Cart_coords, EP_ERR_TOPOLOGY, "no topology", EP_Cart_coords(c, 0, 1, x));
    EXPECT(EP_Cart_rank, EP_ERR_TOPOLOGY, "no topology", EP_Cart_rank(c, x, &st));
    EXPECT(EP_Cart_shift, EP_ERR_TOPOLOGY, "no topology", EP_Cart_shift(c, 0, 1, &st, &st));
    EXPECT(EP_Cart_sub, EP_ERR_TOPOLOGY, "no topology", EP_Cart_sub(c, one, &out));
    EXPECT(EP_Dist_graph_neighbors_count, EP_ERR_TOPOLOGY, "no topology", EP_Dist_graph_neighbors_count(c, &st, &st, &st));
    EXPECT(EP_Dist_graph_neighbors, EP_ERR_TOPOLOGY, "no topology", EP_Dist_graph_neighbors(c, 1, x, x, 1, x, x));
    EXPECT(EP_Neighbor_allgather, EP_ERR_TOPOLOGY, "no topology", EP_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, c));
    EXPECT(EP_Neighbor_allgatherv, EP_ERR_TOPOLOGY, "no topology", EP_Neighbor_allgatherv(x, 1, MPI_INT, y, two, zero, MPI_INT, c));
    EXPECT(EP_Neighbor_alltoall, EP_ERR_TOPOLOGY, "no topology", EP_Neighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, c));
    EXPECT(EP_Neighbor_alltoallv, EP_ERR_TOPOLOGY, "no topology", EP_Neighbor_alltoallv(x, two, zero, MPI_INT, y, two, zero, MPI_INT, c));
    EXPECT(EP_Neighbor_alltoallw, EP_ERR_TOPOLOGY, "no topology", EP_Neighbor_alltoallw(x, two, disp, types, y, two, disp, types, c));
    EXPECT(EP_Ineighbor_allgather, EP_ERR_TOPOLOGY, "no topology", EP_Ineighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, c, &r));
    EXPECT(EP_Ineighbor_allgatherv, EP_ERR_TOPOLOGY, "no topology", EP_Ineighbor_allgatherv(x, 1, MPI_INT, y, two, zero, MPI_INT, c, &r));
    EXPECT(EP_Ineighbor_alltoall, EP_ERR_TOPOLOGY, "no topology", EP_Ineighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, c, &r));
    EXPECT(EP_Ineighbor_alltoallv, EP_ERR_TOPOLOGY, "no topology", EP_Ineighbor_alltoallv(x, two, zero, MPI_INT, y, two, zero, MPI_INT, c, &r));
    EXPECT(EP_Ineighbor_alltoallw, EP_ERR_TOPOLOGY, "no topology", EP_Ineighbor_alltoallw(x, two, disp, types, y, two, disp, types, c, &r));
    EXPECT(EP_Dims_create, EP_ERR_DIMS, "fixed 4 does not divide 6", EP_Dims_create(6, 2, dims));
    EXPECT(EP_Dims_create, EP_ERR_ARG, "nnodes 0", EP_Dims_create(0, 2, zero));
    EXPECT(EP_Dims_create, EP_ERR_DIMS, "ndims -1", EP_Dims_create(6, -1, zero));
    EXPECT(EP_Cart_create, EP_ERR_DIMS, "ndims -1", EP_Cart_create(c, -1, one, per, 0, &out));
    EXPECT(EP_Cart_create, EP_ERR_DIMS, "grid above the size", EP_Cart_create(c, 1, big, per, 0, &out));
    EXPECT(EP_Cart_create, EP_ERR_ARG, "NULL comm_cart", EP_Cart_create(c, 1, one, per, 0, NULL));
    EXPECT(EP_Cart_create, EP_ERR_ARG, "NULL dims", EP_Cart_create(c, 1, NULL, per, 0, &out));
    EXPECT(EP_Dist_graph_create_adjacent, EP_ERR_RANK, "source = size",
           EP_Dist_graph_create_adjacent(c, 1, far, EP_UNWEIGHTED, 0, NULL, EP_UNWEIGHTED, MPI_INFO_NULL, 0, &out));
    EXPECT(EP_Dist_graph_create_adjacent, EP_ERR_ARG, "indegree -1",
           EP_Dist_graph_create_adjacent(c, -1, x, EP_UNWEIGHTED, 0, x, EP_UNWEIGHTED, MPI_INFO_NULL, 0, &out));
    EXPECT(EP_Dist_graph_create_adjacent, EP_ERR_ARG, "EP_WEIGHTS_EMPTY with degree 1",
           EP_Dist_graph_create_adjacent(c, 1, x, EP_WEIGHTS_EMPTY, 0, x, EP_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &out));
    EXPECT(EP_Dist_graph_create, EP_ERR_ARG, "n -1", EP_Dist_graph_create(c, -1, x, x, x, EP_UNWEIGHTED, MPI_INFO_NULL, 0, &out));
    EXPECT(EP_Dist_graph_create, EP_ERR_RANK, "destination = size",
           EP_Dist_graph_create(c, 1, x, one, far, EP_UNWEIGHTED, MPI_INFO_NULL, 0, &out));
    EXPECT(EP_Dist_graph_create, EP_ERR_ARG, "NULL comm_dist_graph",
           EP_Dist_graph_create(c, 0, NULL, NULL, NULL, EP_UNWEIGHTED, MPI_INFO_NULL, 0, NULL));

    /* Graphs given whole, and the maps. */
    int gindex[2] = { 1, 2 }, gedges[2] = { 1, 0 }, gbad[2] = { 1, 5 }, down[2] = { 2, 1 };
    EXPECT(EP_Graph_create, EP_ERR_ARG, "nnodes -1", EP_Graph_create(c, -1, gindex, gedges, 0, &out));
    EXPECT(EP_Graph_create, EP_ERR_ARG, "nnodes above the size", EP_Graph_create(c, n + 1, gindex, gedges, 0, &out));
    EXPECT(EP_Graph_create, EP_ERR_ARG, "decreasing index", EP_Graph_create(c, 2, down, gedges, 0, &out));
    EXPECT(EP_Graph_create, EP_ERR_RANK, "edge = nnodes", EP_Graph_create(c, 2, gindex, gbad, 0, &out));
    EXPECT(EP_Graph_create, EP_ERR_ARG, "NULL comm_graph", EP_Graph_create(c, 2, gindex, gedges, 0, NULL));
    EXPECT(EP_Graphdims_get, EP_ERR_TOPOLOGY, "no topology", EP_Graphdims_get(c, &st, &st));
    EXPECT(EP_Graph_get, EP_ERR_TOPOLOGY, "no topology", EP_Graph_get(c, 1, 1, x, x));
    EXPECT(EP_Graph_neighbors_count, EP_ERR_TOPOLOGY, "no topology", EP_Graph_neighbors_count(c, 0, &st));
    EXPECT(EP_Graph_neighbors, EP_ERR_TOPOLOGY, "no topology", EP_Graph_neighbors(c, 0, 1, x));
    EXPECT(EP_Cart_map, EP_ERR_DIMS, "grid above the size", EP_Cart_map(c, 1, big, per, &st));
    EXPECT(EP_Cart_map, EP_ERR_ARG, "NULL newrank", EP_Cart_map(c, 1, one, per, NULL));
    EXPECT(EP_Graph_map, EP_ERR_RANK, "edge = nnodes", EP_Graph_map(c, 2, gindex, gbad, &st));
    EXPECT(EP_Graph_map, EP_ERR_ARG, "NULL index", EP_Graph_map(c, 2, NULL, gedges, &st));
    EP_Comm pair;
    CHECK_OK(EP_Graph_create(c, 2, gindex, gedges, 0, &pair));
    if (pair != EP_COMM_NULL) {
        EXPECT(EP_Graph_neighbors_count, EP_ERR_RANK, "rank = nnodes", EP_Graph_neighbors_count(pair, 2, &st));
        EXPECT(EP_Graph_neighbors, EP_ERR_ARG, "maxneighbors -1", EP_Graph_neighbors(pair, 0, -1, x));
        EXPECT(EP_Graph_get, EP_ERR_ARG, "NULL edges", EP_Graph_get(pair, 2, 2, x, NULL));
        EXPECT(EP_Graphdims_get, EP_ERR_ARG, "NULL nedges", EP_Graphdims_get(pair, &st, NULL));
        EXPECT(EP_Cart_coords, EP_ERR_TOPOLOGY, "a graph", EP_Cart_coords(pair, 0, 1, x));
        CHECK_OK(EP_Comm_free(&pair));
    }

    int ring_dims[1] = { n };
    CHECK_OK(EP_Cart_create(c, 1, ring_dims, per, 0, &ring));
    EXPECT(EP_Cart_coords, EP_ERR_RANK, "rank = size", EP_Cart_coords(ring, n, 1, x));
    EXPECT(EP_Cart_coords, EP_ERR_ARG, "maxdims -1", EP_Cart_coords(ring, 0, -1, x));
    EXPECT(EP_Cart_shift, EP_ERR_DIMS, "direction 1 of 1", EP_Cart_shift(ring, 1, 1, &st, &st));
    EXPECT(EP_Cart_shift, EP_ERR_ARG, "NULL rank_dest", EP_Cart_shift(ring, 0, 1, &st, NULL));
    EXPECT(EP_Cart_rank, EP_ERR_ARG, "NULL rank", EP_Cart_rank(ring, x, NULL));
    EXPECT(EP_Cart_get, EP_ERR_ARG, "maxdims -1", EP_Cart_get(ring, -1, x, x, x));
    EXPECT(EP_Cartdim_get, EP_ERR_ARG, "NULL ndims", EP_Cartdim_get(ring, NULL));
    EXPECT(EP_Cart_sub, EP_ERR_ARG, "NULL newcomm", EP_Cart_sub(ring, one, NULL));
    EXPECT(EP_Dist_graph_neighbors_count, EP_ERR_TOPOLOGY, "a grid", EP_Dist_graph_neighbors_count(ring, &st, &st, &st));
    EXPECT(EP_Dist_graph_neighbors, EP_ERR_TOPOLOGY, "a grid", EP_Dist_graph_neighbors(ring, 1, x, x, 1, x, x));
    EXPECT(EP_Neighbor_allgather, EP_ERR_COUNT, "sendcount -1", EP_Neighbor_allgather(x, -1, MPI_INT, y, 1, MPI_INT, ring));
    EXPECT(EP_Neighbor_allgatherv, EP_ERR_ARG, "NULL displs", EP_Neighbor_allgatherv(x, 1, MPI_INT, y, two, NULL, MPI_INT, ring));
    EXPECT(EP_Neighbor_alltoall, EP_ERR_BUFFER, "MPI_IN_PLACE", EP_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ring));
    EXPECT(EP_Neighbor_alltoall, EP_ERR_TYPE, "MPI_DATATYPE_NULL", EP_Neighbor_alltoall(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, ring));
    EXPECT(EP_Neighbor_alltoallv, EP_ERR_ARG, "NULL sendcounts", EP_Neighbor_alltoallv(x, NULL, zero, MPI_INT, y, two, zero, MPI_INT, ring));
    EXPECT(EP_Neighbor_alltoallw, EP_ERR_ARG, "NULL sendtypes", EP_Neighbor_alltoallw(x, two, disp, NULL, y, two, disp, types, ring));
    EXPECT(EP_Ineighbor_allgather, EP_ERR_ARG, "NULL request", EP_Ineighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, ring, NULL));
    EXPECT(EP_Ineighbor_allgatherv, EP_ERR_ARG, "NULL request", EP_Ineighbor_allgatherv(x, 1, MPI_INT, y, two, zero, MPI_INT, ring, NULL));
    EXPECT(EP_Ineighbor_alltoall, EP_ERR_BUFFER, "NULL recvbuf", EP_Ineighbor_alltoall(x, 1, MPI_INT, NULL, 1, MPI_INT, ring, &r));
    EXPECT(EP_Ineighbor_alltoallv, EP_ERR_COUNT, "negative sendcounts entry",
           EP_Ineighbor_alltoallv(x, (int[]){ -1, 1 }, zero, MPI_INT, y, two, zero, MPI_INT, ring, &r));
    EXPECT(EP_Ineighbor_alltoallw, EP_ERR_ARG, "NULL request", EP_Ineighbor_alltoallw(x, two, disp, types, y, two, disp, types, ring, NULL));
    /* Persistent neighbourhood collectives: the init is local, nothing is exchanged or made. */
    MPI_Info ni = MPI_INFO_NULL;
    EXPECT(EP_Neighbor_allgather_init, EP_ERR_ARG, "NULL request", EP_Neighbor_allgather_init(x, 1, MPI_INT, y, 1, MPI_INT, ring, ni, NULL));
    EXPECT(EP_Neighbor_allgatherv_init, EP_ERR_ARG, "NULL displs", EP_Neighbor_allgatherv_init(x, 1, MPI_INT, y, two, NULL, MPI_INT, ring, ni, &r));
    EXPECT(EP_Neighbor_alltoall_init, EP_ERR_BUFFER, "MPI_IN_PLACE", EP_Neighbor_alltoall_init(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ring, ni, &r));
    EXPECT(EP_Neighbor_alltoallv_init, EP_ERR_COUNT, "negative sendcounts entry",
           EP_Neighbor_alltoallv_init(x, (int[]){ -1, 1 }, zero, MPI_INT, y, two, zero, MPI_INT, ring, ni, &r));
    EXPECT(EP_Neighbor_alltoallw_init, EP_ERR_ARG, "NULL sendtypes", EP_Neighbor_alltoallw_init(x, two, disp, NULL, y, two, disp, types, ring, ni, &r));
    EXPECT(EP_Neighbor_alltoall_init, EP_ERR_TOPOLOGY, "no topology", EP_Neighbor_alltoall_init(x, 1, MPI_INT, y, 1, MPI_INT, c, ni, &r));
    /* The ring still works: left and right neighbours' ranks. */
    x[0] = me;
    x[1] = me;
    y[0] = y[1] = -1;
    CHECK_OK(EP_Neighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, ring));
    CHECK(y[0] == (me - 1 + n) % n && y[1] == (me + 1) % n, "ring after bad input: %d %d", y[0], y[1]);
    CHECK_OK(EP_Comm_free(&ring));
}

static int bad_copy_fails(EP_Comm c, int k, void *e, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)e, (void)in, (void)out, (void)flag;
    return EP_ERR_OTHER;
}

static void bad_record(EP_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

/* Groups, keyvals, attributes, names and error handlers: bad handles and arguments, all
 * local (one endpoint runs them alone). */
static void group_and_cache_cases(void)
{
    EP_Comm c = B.comm;
    EP_Group g, out = 77, freed;
    int x = 0, r[2] = {0, 0}, range[1][3] = {{0, 0, 0}}, kv, eh;
    void *v;
    CHECK_OK(EP_Comm_group(c, &g));
    CHECK_OK(EP_Comm_group(c, &freed));
    CHECK_OK(EP_Group_free(&freed));
    CHECK_OK(EP_Comm_group(c, &freed));
    EP_Group freed_value = freed;
    CHECK_OK(EP_Group_free(&freed));
    EXPECT(EP_Comm_group, EP_ERR_ARG, "NULL group", EP_Comm_group(c, NULL));
    EXPECT(EP_Comm_remote_group, EP_ERR_COMM, "intracommunicator", EP_Comm_remote_group(c, &out));
    EXPECT(EP_Win_get_group, EP_ERR_ARG, "NULL group", EP_Win_get_group(B.win, NULL));
    EXPECT(EP_Group_size, EP_ERR_GROUP, "freed group", EP_Group_size(freed_value, &x));
    EXPECT(EP_Group_size, EP_ERR_GROUP, "a communicator handle", EP_Group_size(c, &x));
    EXPECT(EP_Group_rank, EP_ERR_GROUP, "EP_GROUP_NULL", EP_Group_rank(EP_GROUP_NULL, &x));
    EXPECT(EP_Group_rank, EP_ERR_ARG, "NULL rank", EP_Group_rank(g, NULL));
    EXPECT(EP_Group_incl, EP_ERR_RANK, "rank = size", EP_Group_incl(g, 1, &B.size, &out));
    if (B.size == 1)
        EXPECT(EP_Group_incl, EP_ERR_RANK, "rank 0 twice", EP_Group_incl(g, 2, r, &out));
    EXPECT(EP_Group_incl, EP_ERR_ARG, "n = -1", EP_Group_incl(g, -1, r, &out));
    EXPECT(EP_Group_excl, EP_ERR_RANK, "rank 0 twice", EP_Group_excl(g, 2, r, &out));
    EXPECT(EP_Group_range_incl, EP_ERR_ARG, "stride 0", EP_Group_range_incl(g, 1, range, &out));
    EXPECT(EP_Group_range_excl, EP_ERR_ARG, "NULL ranges", EP_Group_range_excl(g, 1, NULL, &out));
    EXPECT(EP_Group_union, EP_ERR_GROUP, "freed second group", EP_Group_union(g, freed_value, &out));
    EXPECT(EP_Group_intersection, EP_ERR_GROUP, "made-up first group", EP_Group_intersection(12345, g, &out));
    EXPECT(EP_Group_difference, EP_ERR_ARG, "NULL newgroup", EP_Group_difference(g, g, NULL));
    EXPECT(EP_Group_translate_ranks, EP_ERR_RANK, "rank -5", EP_Group_translate_ranks(g, 1, (int[]){-5}, g, r));
    EXPECT(EP_Group_translate_ranks, EP_ERR_ARG, "NULL ranks2", EP_Group_translate_ranks(g, 1, r, g, NULL));
    EXPECT(EP_Group_compare, EP_ERR_GROUP, "freed group", EP_Group_compare(freed_value, g, &x));
    EXPECT(EP_Group_free, EP_ERR_GROUP, "freed twice", EP_Group_free(&freed_value));
    EXPECT(EP_Group_free, EP_ERR_ARG, "NULL pointer", EP_Group_free(NULL));
    CHECK(out == 77, "failed group calls wrote a group");
    CHECK_OK(EP_Group_free(&g));
    /* Names. */
    EXPECT(EP_Comm_set_name, EP_ERR_ARG, "NULL name", EP_Comm_set_name(c, NULL));
    EXPECT(EP_Comm_get_name, EP_ERR_ARG, "NULL resultlen", EP_Comm_get_name(c, bad_name_out, NULL));
    EXPECT(EP_Comm_get_info, EP_ERR_ARG, "NULL info_used", EP_Comm_get_info(c, NULL));
    /* Keyvals and attributes. */
    EXPECT(EP_Comm_create_keyval, EP_ERR_ARG, "NULL keyval", EP_Comm_create_keyval(NULL, NULL, NULL, NULL));
    CHECK_OK(EP_Comm_create_keyval(bad_copy_fails, EP_COMM_NULL_DELETE_FN, &kv, NULL));
    int kv_freed = kv;
    CHECK_OK(EP_Comm_free_keyval(&kv));
    EXPECT(EP_Comm_free_keyval, EP_ERR_KEYVAL, "freed twice", EP_Comm_free_keyval(&kv_freed));
    EXPECT(EP_Comm_set_attr, EP_ERR_KEYVAL, "freed keyval", EP_Comm_set_attr(c, kv_freed, NULL));
    EXPECT(EP_Comm_set_attr, EP_ERR_KEYVAL, "predefined EP_TAG_UB", EP_Comm_set_attr(c, EP_TAG_UB, NULL));
    EXPECT(EP_Comm_delete_attr, EP_ERR_KEYVAL, "made-up keyval 12345", EP_Comm_delete_attr(c, 12345));
    EXPECT(EP_Comm_get_attr, EP_ERR_KEYVAL, "freed keyval", EP_Comm_get_attr(c, kv_freed, &v, &x));
    EXPECT(EP_COMM_NULL_COPY_FN, EP_ERR_ARG, "NULL flag", EP_COMM_NULL_COPY_FN(c, 0, NULL, NULL, &v, NULL));
    EXPECT(EP_COMM_DUP_FN, EP_ERR_ARG, "NULL attribute_val_out", EP_COMM_DUP_FN(c, 0, NULL, NULL, NULL, &x));
    EXPECT(EP_COMM_NULL_DELETE_FN, EP_SUCCESS, "no argument is read", EP_COMM_NULL_DELETE_FN(c, 0, NULL, NULL));
    /* Their MPI-1 names: the same checks. */
    EXPECT(EP_Keyval_create, EP_ERR_ARG, "NULL keyval", EP_Keyval_create(NULL, NULL, NULL, NULL));
    EXPECT(EP_Keyval_free, EP_ERR_KEYVAL, "freed twice", EP_Keyval_free(&kv_freed));
    EXPECT(EP_Keyval_free, EP_ERR_ARG, "NULL pointer", EP_Keyval_free(NULL));
    EXPECT(EP_Attr_put, EP_ERR_KEYVAL, "freed keyval", EP_Attr_put(c, kv_freed, NULL));
    EXPECT(EP_Attr_put, EP_ERR_KEYVAL, "predefined EP_TAG_UB", EP_Attr_put(c, EP_TAG_UB, NULL));
    EXPECT(EP_Attr_delete, EP_ERR_KEYVAL, "made-up keyval 12345", EP_Attr_delete(c, 12345));
    EXPECT(EP_Attr_get, EP_ERR_KEYVAL, "freed keyval", EP_Attr_get(c, kv_freed, &v, &x));
    EXPECT(EP_Attr_get, EP_ERR_ARG, "NULL flag", EP_Attr_get(c, EP_TAG_UB, &v, NULL));
    EXPECT(EP_NULL_COPY_FN, EP_ERR_ARG, "NULL flag", EP_NULL_COPY_FN(c, 0, NULL, NULL, &v, NULL));
    EXPECT(EP_DUP_FN, EP_ERR_ARG, "NULL attribute_val_out", EP_DUP_FN(c, 0, NULL, NULL, NULL, &x));
    EXPECT(EP_NULL_DELETE_FN, EP_SUCCESS, "no argument is read", EP_NULL_DELETE_FN(c, 0, NULL, NULL));
    /* Error handlers. */
    EXPECT(EP_Comm_create_errhandler, EP_ERR_ARG, "NULL function", EP_Comm_create_errhandler(NULL, &eh));
    EXPECT(EP_Comm_create_errhandler, EP_ERR_ARG, "NULL errhandler", EP_Comm_create_errhandler(bad_record, NULL));
    CHECK_OK(EP_Comm_create_errhandler(bad_record, &eh));
    int eh_freed = eh;
    CHECK_OK(EP_Errhandler_free(&eh));
    EXPECT(EP_Errhandler_free, EP_ERR_ARG, "freed twice", EP_Errhandler_free(&eh_freed));
    EXPECT(EP_Comm_set_errhandler, EP_ERR_ARG, "freed handler", EP_Comm_set_errhandler(c, eh_freed));
    EXPECT(EP_Comm_call_errhandler, EP_SUCCESS, "EP_ERRORS_RETURN", EP_Comm_call_errhandler(c, EP_ERR_OTHER));
}

/* Endpoint teams (no communicator: the process default handler, EP_ERRORS_RETURN here). */
static void team_cases(void)
{
    EP_Endpoint_team t, u;
    EXPECT(EP_Endpoint_team_create, EP_ERR_ARG, "team_size 0", EP_Endpoint_team_create(7, 0, &t));
    EXPECT(EP_Endpoint_team_create, EP_ERR_ARG, "NULL team", EP_Endpoint_team_create(7, 1, NULL));
    EXPECT(EP_Endpoint_join, EP_ERR_ARG, "made-up handle", EP_Endpoint_join(987654));
    EXPECT(EP_Endpoint_leave, EP_ERR_ARG, "null handle", EP_Endpoint_leave(EP_ENDPOINT_TEAM_NULL));
    EXPECT(EP_Endpoint_team_destroy, EP_ERR_ARG, "NULL team", EP_Endpoint_team_destroy(NULL));
    CHECK_OK(EP_Endpoint_team_create(7, 1, &t));
    EXPECT(EP_Endpoint_team_create, EP_ERR_ARG, "another team_size", EP_Endpoint_team_create(7, 2, &u));
    EXPECT(EP_Endpoint_leave, EP_ERR_ARG, "not joined", EP_Endpoint_leave(t));
    CHECK_OK(EP_Endpoint_join(t));
    EXPECT(EP_Endpoint_join, EP_ERR_ARG, "joined twice", EP_Endpoint_join(t));
    EXPECT(EP_Endpoint_team_destroy, EP_ERR_ARG, "by a member", EP_Endpoint_team_destroy(&t));
    CHECK_OK(EP_Endpoint_leave(t));
    CHECK_OK(EP_Endpoint_team_destroy(&t));
    EXPECT(EP_Endpoint_team_destroy, EP_ERR_ARG, "destroyed twice", EP_Endpoint_team_destroy(&t));
}

static void endpoint_main(EP_Comm comm)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    int *sbuf = calloc(4 * size, sizeof(int)), *rbuf = calloc(4 * size, sizeof(int));
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    /* Collective set-up: a window, a freed window, a dynamic window, a freed communicator. */
    EP_Win win, freed_win, dynwin;
    int *mem, *other;
    EP_Comm dup;
    CHECK_OK(EP_Win_allocate(4 * size * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
    memset(mem, 0, 4 * size * sizeof(int));
    CHECK_OK(EP_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &other, &freed_win));
    EP_Win freed_win_value = freed_win;
    CHECK_OK(EP_Win_free(&freed_win));
    CHECK_OK(EP_Win_create_dynamic(MPI_INFO_NULL, comm, &dynwin));
    CHECK_OK(EP_Comm_dup(comm, &dup));
    EP_Comm freed_comm = dup;
    CHECK_OK(EP_Comm_free(&dup));
    /* Double frees, on every endpoint. */
    EP_Comm comm_again = freed_comm;
    EXPECT(EP_Comm_free, EP_ERR_COMM, "freed twice", EP_Comm_free(&comm_again));
    CHECK(comm_again == freed_comm, "refused free changed the handle");
    EP_Win win_again = freed_win_value;
    EXPECT(EP_Win_free, EP_ERR_WIN, "freed twice", EP_Win_free(&win_again));
    CHECK_OK(EP_Barrier(comm));

    if (me == 0) {
        EP_Request done;
        int x = 0;
        CHECK_OK(EP_Isend(&x, 1, MPI_INT, 0, 5, comm, &done));
        EP_Request freed_req = done;
        CHECK_OK(EP_Recv(&x, 1, MPI_INT, 0, 5, comm, EP_STATUS_IGNORE));
        CHECK_OK(EP_Wait(&done, EP_STATUS_IGNORE));
        B = (bad_ctx){ comm, win, size, sbuf, rbuf, counts, displs };
        handle_cases(freed_comm, freed_win_value, freed_req);
        null_output_cases();
        p2p_argument_cases();
        truncation_and_free_cases();
        collective_argument_cases();
        window_cases(dynwin);
        group_and_cache_cases();
        p2p_modes_cases();
    } else {
        ring_without_rank0(comm, me, size);
    }
    CHECK_OK(EP_Barrier(comm));
    collective_creation_cases(comm, me);
    topology_cases(comm, me, size);
    uncommitted_type_cases(comm, me, size, left, right);
    check_still_working(comm, win, mem, me, size, left, right);
    CHECK_OK(EP_Win_free(&win));
    CHECK_OK(EP_Win_free(&dynwin));
    CHECK_OK(EP_Comm_free(&comm));
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    int world_rank, world_size;
    ep_test_init(&argc, &argv, &world_rank, &world_size);
    int n = ep_test_count_for(world_rank);
    cover_argumentless();
    creation_and_misc_cases();
    team_cases();
    EP_Comm *handles = calloc(n > 0 ? n : 1, sizeof(EP_Comm));
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, handles));
    if (n > 0) {
#pragma omp parallel num_threads(n)
        endpoint_main(handles[omp_get_thread_num()]);
    }
    int comms = -1, reqs = -1, msgs = -1, wins = -1;
    CHECK_OK(EP_Debug_live_handles(&comms, &reqs, &msgs));
    CHECK_OK(EP_Debug_live_windows(&wins));
    CHECK(comms == 0 && reqs == 0 && msgs == 0 && wins == 0, "live handles left: %d comms, %d requests, %d messages, %d windows",
          comms, reqs, msgs, wins);
    if (world_rank == 0)
        bad_print_coverage("bad_input");
    free(handles);
    return ep_test_finish("bad_input", world_rank);
}
