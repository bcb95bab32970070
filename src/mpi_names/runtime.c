/*
 * runtime.c: handle region, special values, statuses and error codes of the standard-names
 * layer (see runtime.h).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE under -std=c11 */
#include "runtime.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#if EPMPI_HANDLES_ARE_POINTERS
uintptr_t epmpi_handle_base = UINTPTR_MAX - EPMPI_SPAN; /* matches nothing until reserved */

/* Reserves the inaccessible region whose addresses are EPMPI's handles, before main (and so
 * before any handle exists). Without it no value could be told apart from the host's. */
__attribute__((constructor)) static void epmpi_reserve_handle_region(void)
{
    void *p = mmap(NULL, EPMPI_SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "libepmpi_mpi: cannot reserve the %lu-byte handle region\n", (unsigned long)EPMPI_SPAN);
        abort();
    }
    epmpi_handle_base = (uintptr_t)p;
}
#endif

int epmpi_comparison_out(int r)
{
    switch (r) {
    case EP_IDENT:
        return MPI_IDENT;
    case EP_CONGRUENT:
        return MPI_CONGRUENT;
    case EP_SIMILAR:
        return MPI_SIMILAR;
    default:
        return MPI_UNEQUAL;
    }
}

int epmpi_topology_out(int k)
{
    switch (k) {
    case EP_CART:
        return MPI_CART;
    case EP_GRAPH:
        return MPI_GRAPH;
    case EP_DIST_GRAPH:
        return MPI_DIST_GRAPH;
    default:
        return epmpi_undefined_out(k);
    }
}

void epmpi_status_out(const EP_Status *e, MPI_Status *m)
{
    /* The private fields hold the received size in bytes (src/ffi/types.rs). */
    MPI_Count bytes = (MPI_Count)(unsigned)e->ep_count_lo | ((MPI_Count)e->ep_count_hi << 31);
    m->MPI_SOURCE = epmpi_rank_out(e->MPI_SOURCE);
    m->MPI_TAG = e->MPI_TAG == EP_ANY_TAG ? MPI_ANY_TAG : e->MPI_TAG;
    m->MPI_ERROR = e->MPI_ERROR == EP_SUCCESS ? MPI_SUCCESS : epmpi_rc(e->MPI_ERROR);
    PMPI_Status_set_elements_x(m, MPI_BYTE, bytes);
    PMPI_Status_set_cancelled(m, e->ep_cancelled != 0);
}

/* EPMPI's error classes (include/ep_mpi.h) to the host's. */
static int class_out(int c)
{
    switch (c) {
    case EP_SUCCESS: return MPI_SUCCESS;
    case EP_ERR_BUFFER: return MPI_ERR_BUFFER;
    case EP_ERR_COUNT: return MPI_ERR_COUNT;
    case EP_ERR_TYPE: return MPI_ERR_TYPE;
    case EP_ERR_TAG: return MPI_ERR_TAG;
    case EP_ERR_COMM: return MPI_ERR_COMM;
    case EP_ERR_RANK: return MPI_ERR_RANK;
    case EP_ERR_REQUEST: return MPI_ERR_REQUEST;
    case EP_ERR_ROOT: return MPI_ERR_ROOT;
    case EP_ERR_OP: return MPI_ERR_OP;
    case EP_ERR_ARG: return MPI_ERR_ARG;
    case EP_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case EP_ERR_IN_STATUS: return MPI_ERR_IN_STATUS;
    case EP_ERR_PENDING: return MPI_ERR_PENDING;
    case EP_ERR_WIN: return MPI_ERR_WIN;
    case EP_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case EP_ERR_INTERN: return MPI_ERR_INTERN;
    case EP_ERR_RMA_SYNC: return MPI_ERR_RMA_SYNC;
    case EP_ERR_RMA_RANGE: return MPI_ERR_RMA_RANGE;
    case EP_ERR_LOCKTYPE: return MPI_ERR_LOCKTYPE;
    case EP_ERR_DISP: return MPI_ERR_DISP;
    case EP_ERR_SIZE: return MPI_ERR_SIZE;
    case EP_ERR_GROUP: return MPI_ERR_GROUP;
    case EP_ERR_KEYVAL: return MPI_ERR_KEYVAL;
    case EP_ERR_TOPOLOGY: return MPI_ERR_TOPOLOGY;
    case EP_ERR_DIMS: return MPI_ERR_DIMS;
    default: return MPI_ERR_OTHER; /* thread level, not initialised, other */
    }
}

/* This thread's last EPMPI error and the host code it became: MPI_Error_string on that code
 * gives EPMPI's message (which names the call and the cause) instead of the class's. */
static _Thread_local int last_ep_code, last_mpi_code;

int epmpi_rc(int code)
{
    if (EPMPI_LIKELY(code == EP_SUCCESS))
        return MPI_SUCCESS;
    int c = EP_ERR_OTHER;
    EP_Error_class(code, &c);
    last_ep_code = code;
    last_mpi_code = class_out(c);
    return last_mpi_code;
}

int epmpi_last_error(int mpi_code)
{
    return mpi_code != MPI_SUCCESS && mpi_code == last_mpi_code ? last_ep_code : EP_SUCCESS;
}

/* The host's error classes back to EPMPI's (the inverse of class_out; the host's classes
 * EPMPI has not, MPI_ERR_NO_MEM or MPI_ERR_UNKNOWN say, become EP_ERR_OTHER, whose host
 * class is MPI_ERR_OTHER). */
static int class_in(int mpi_class)
{
    static const int ep_classes[] = {
        EP_ERR_BUFFER, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_TAG, EP_ERR_COMM, EP_ERR_RANK, EP_ERR_REQUEST,
        EP_ERR_ROOT, EP_ERR_OP, EP_ERR_ARG, EP_ERR_TRUNCATE, EP_ERR_IN_STATUS, EP_ERR_PENDING, EP_ERR_WIN,
        EP_ERR_UNSUPPORTED, EP_ERR_INTERN, EP_ERR_RMA_SYNC, EP_ERR_RMA_RANGE, EP_ERR_LOCKTYPE, EP_ERR_DISP,
        EP_ERR_SIZE, EP_ERR_GROUP, EP_ERR_KEYVAL, EP_ERR_TOPOLOGY, EP_ERR_DIMS,
    };
    for (size_t i = 0; i < sizeof ep_classes / sizeof ep_classes[0]; i++)
        if (class_out(ep_classes[i]) == mpi_class)
            return ep_classes[i];
    return mpi_class == MPI_SUCCESS ? EP_SUCCESS : EP_ERR_OTHER;
}

int epmpi_raise(const char *name, EP_Comm comm, int mpi_code)
{
    int cls = mpi_code;
    PMPI_Error_class(mpi_code, &cls);
    EP_Errhandler handler = EP_ERRORS_ARE_FATAL;
    if (comm != EP_COMM_NULL && comm != EPMPI_FOREIGN && EP_Comm_get_errhandler(comm, &handler) != EP_SUCCESS)
        handler = EP_ERRORS_ARE_FATAL; /* a freed or unknown endpoint: errors tied to no communicator */
    if (handler == EP_ERRORS_RETURN)
        return cls;
    if (handler != EP_ERRORS_ARE_FATAL) {
        /* The program's handler, through its EPMPI twin (caching.c), which gives it the host's
         * class of the EPMPI class passed here; the reference the get gave is released. */
        EP_Errhandler_free(&handler);
        EP_Comm_call_errhandler(comm, class_in(cls));
        return cls;
    }
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(mpi_code, text, &len);
    if (cls == MPI_ERR_UNSUPPORTED_OPERATION)
        fprintf(stderr, "%s: not provided on EPMPI endpoint communicators (MPI_ERR_UNSUPPORTED_OPERATION)\n", name);
    else
        fprintf(stderr, "%s on EPMPI endpoints: %s\n", name, text);
    fflush(stderr);
    /* One thread aborts: Open MPI 4.1's MPI_Abort crashes when threads call it at once. */
    static atomic_flag aborting = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&aborting))
        for (;;)
            pause();
    PMPI_Abort(MPI_COMM_WORLD, cls);
    return cls;
}

int epmpi_unsupported(const char *name, EP_Comm comm)
{
    return epmpi_raise(name, comm, MPI_ERR_UNSUPPORTED_OPERATION);
}

int epmpi_unsupported_win(const char *name, EP_Win win)
{
    int handler = EP_ERRORS_ARE_FATAL;
    if (win != EP_WIN_NULL && win != EPMPI_FOREIGN && EP_Win_get_errhandler(win, &handler) == EP_SUCCESS
        && handler == EP_ERRORS_RETURN)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    return epmpi_raise(name, EP_COMM_NULL, MPI_ERR_UNSUPPORTED_OPERATION);
}

int epmpi_code_in(int mpi_code)
{
    int cls = mpi_code;
    PMPI_Error_class(mpi_code, &cls);
    return class_in(cls);
}

int epmpi_host_unsupported(const char *name, MPI_Comm comm)
{
    (void)name; /* the host's handler prints the class; the call is the program's own */
    PMPI_Comm_call_errhandler(comm, MPI_ERR_UNSUPPORTED_OPERATION);
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

int epmpi_narrow64(int n, const int64_t *in, int **out)
{
    *out = NULL;
    if (n <= 0)
        return MPI_SUCCESS;
    int *a = malloc(sizeof(int) * (size_t)n);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        if (in[i] > INT_MAX || in[i] < INT_MIN) {
            free(a);
            return MPI_ERR_COUNT;
        }
        a[i] = (int)in[i];
    }
    *out = a;
    return MPI_SUCCESS;
}

/* MPI_Comm_test_inter, MPI_Comm_size... through the layer, so that either kind of handle works. */
int epmpi_peers(MPI_Comm comm)
{
    int inter = 0, n = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_size(comm, &n);
    else
        MPI_Comm_size(comm, &n);
    return n;
}

int epmpi_is_root(MPI_Comm comm, int root)
{
    int inter = 0, me = -1;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        return root == MPI_ROOT;
    MPI_Comm_rank(comm, &me);
    return me == root;
}
