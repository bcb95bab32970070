/*
 * Calls before MPI_Init_thread and after MPI_Finalize: under
 * EP_ERRORS_RETURN, communication, query and creation calls return EP_ERR_NOT_INITIALIZED
 * with a message naming the call; EP_Error_class and EP_Error_string work at any time, so the
 * message can be read. Under the default handler (EP_ERRORS_ARE_FATAL) such calls abort:
 * fatal_error.c's "before-init" mode. Each process checks itself; a failing process exits nonzero.
 */
#include <ep_mpi.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

/* `rc` from `name` has class EP_ERR_NOT_INITIALIZED and a message naming `name`. */
static void expect_not_initialized(const char *when, const char *name, int rc)
{
    int cls = -1, len = 0;
    char msg[EP_MAX_ERROR_STRING] = "";
    int rc_class = EP_Error_class(rc, &cls);
    int rc_string = EP_Error_string(rc, msg, &len);
    if (rc_class != EP_SUCCESS || rc_string != EP_SUCCESS || cls != EP_ERR_NOT_INITIALIZED || !strstr(msg, name)) {
        fprintf(stderr, "FAIL %s: %s gave class %d (error calls %d %d), message '%s'\n", when, name, cls, rc_class, rc_string, msg);
        failures++;
    }
}

#define EXPECT_NI(when, fn, call) expect_not_initialized(when, #fn, (call))

/* The same calls before init and after finalize; `c` is a communicator handle (made up
 * before init, a once valid one after finalize), `w` a window handle. */
static void calls(const char *when, EP_Comm c, EP_Win w)
{
    int x = 0, flag;
    EP_Request r = 4242;
    EP_Comm out[1];
    EXPECT_NI(when, EP_Send, EP_Send(&x, 1, MPI_INT, 0, 0, c));
    EXPECT_NI(when, EP_Recv, EP_Recv(&x, 1, MPI_INT, 0, 0, c, EP_STATUS_IGNORE));
    EXPECT_NI(when, EP_Iprobe, EP_Iprobe(0, 0, c, &flag, EP_STATUS_IGNORE));
    EXPECT_NI(when, EP_Comm_rank, EP_Comm_rank(c, &x));
    EXPECT_NI(when, EP_Barrier, EP_Barrier(c));
    EXPECT_NI(when, EP_Allreduce, EP_Allreduce(&x, &flag, 1, MPI_INT, MPI_SUM, c));
    EXPECT_NI(when, EP_Comm_dup, EP_Comm_dup(c, out));
    EXPECT_NI(when, EP_Wait, EP_Wait(&r, EP_STATUS_IGNORE));
    EXPECT_NI(when, EP_Win_fence, EP_Win_fence(0, w));
    EXPECT_NI(when, EP_Put, EP_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
    EXPECT_NI(when, EP_Comm_create_endpoints, EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, out));
    EXPECT_NI(when, EP_Comm_create_endpoint, EP_Comm_create_endpoint(MPI_COMM_WORLD, 1, 0, out));
    /* The error calls themselves work. */
    int cls = -1;
    if (EP_Error_class(EP_ERR_TAG, &cls) != EP_SUCCESS || cls != EP_ERR_TAG) {
        fprintf(stderr, "FAIL %s: EP_Error_class of a class gave %d\n", when, cls);
        failures++;
    }
}

int main(int argc, char **argv)
{
    int provided, rank;
    EP_Comm_set_errhandler(EP_COMM_NULL, EP_ERRORS_RETURN);
    calls("before MPI_Init_thread", 987654, 123456);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    EP_Comm c;
    EP_Win w;
    void *base;
    if (EP_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &c) != EP_SUCCESS
        || EP_Win_allocate(4, 4, MPI_INFO_NULL, c, &base, &w) != EP_SUCCESS) {
        fprintf(stderr, "FAIL: set-up\n");
        failures++;
    }
    EP_Win freed = w;
    if (EP_Win_free(&freed) != EP_SUCCESS) {
        fprintf(stderr, "FAIL: window free\n");
        failures++;
    }
    MPI_Finalize();
    /* The communicator was never freed (left to MPI_Finalize); the window was. */
    calls("after MPI_Finalize", c, w);
    EXPECT_NI("after MPI_Finalize", EP_Comm_free, EP_Comm_free(&c));
    if (rank == 0)
        printf("bad_init: %s (%d failures on rank 0)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
