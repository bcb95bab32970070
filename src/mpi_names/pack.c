/*
 * pack.c: MPI_Pack, MPI_Unpack and MPI_Pack_size (and their large-count forms) on endpoint
 * communicators (MPI 4.1 section 5.2). The communicator of these calls moves no data: it only
 * says between which processes the packed data will travel, so that an MPI may choose a
 * representation, and whose error handler hears of errors. Both hosts pack in their process's
 * own representation whatever the communicator (Open MPI's local convertor, MPICH's native
 * layout), so the layer packs for an endpoint with the host's function on a process-local
 * host communicator of its own whose errors are returned, then raises an error through the
 * endpoint's handler. (The endpoint's host communicator would name the right processes too,
 * but its error handler is the parent's, which may abort before the endpoint's handler runs.)
 * The packed bytes are the host's: an MPI_PACKED message sent on an endpoint is received and
 * unpacked as on a host communicator, and the _external forms, which take no communicator,
 * are the host's own.
 */
#include "runtime.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int quiet_made;
static MPI_Comm quiet_comm;

/* The endpoint of `comm` in `*ep` and the host communicator its packing runs on in `*host`;
 * MPI_SUCCESS, or the error code to return (an unknown endpoint: EPMPI's MPI_ERR_COMM). */
static int pack_comm(const char *name, MPI_Comm comm, EP_Comm *ep, MPI_Comm *host)
{
    *ep = epmpi_comm_in(comm);
    MPI_Comm parent;
    int rc = EP_Comm_get_host_comm(*ep, &parent); /* checks the endpoint (freed, never issued) */
    if (rc != EP_SUCCESS)
        return epmpi_rc(rc);
    if (EPMPI_LIKELY(atomic_load_explicit(&quiet_made, memory_order_acquire))) {
        *host = quiet_comm;
        return MPI_SUCCESS;
    }
    /* Made once, under the lock: MPI_Comm_dup on MPI_COMM_SELF is collective over this
     * process, so two threads may not make it at once. */
    pthread_mutex_lock(&quiet_lock);
    int code = MPI_SUCCESS;
    if (!atomic_load_explicit(&quiet_made, memory_order_relaxed)) {
        MPI_Comm c = MPI_COMM_NULL;
        code = PMPI_Comm_dup(MPI_COMM_SELF, &c);
        if (code == MPI_SUCCESS)
            code = PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        if (code == MPI_SUCCESS) {
            quiet_comm = c;
            atomic_store_explicit(&quiet_made, 1, memory_order_release);
        } else if (c != MPI_COMM_NULL) {
            PMPI_Comm_free(&c);
        }
    }
    pthread_mutex_unlock(&quiet_lock);
    *host = quiet_comm;
    return code == MPI_SUCCESS ? MPI_SUCCESS : epmpi_raise(name, *ep, code);
}

/* Returns the host's `call` (which packs on `host`) for the endpoint `comm`, its error raised
 * through the endpoint's handler. */
#define ON_ENDPOINT(name, comm, call)                                                              \
    do {                                                                                           \
        EP_Comm ep;                                                                                \
        MPI_Comm host;                                                                             \
        int rc = pack_comm(name, comm, &ep, &host);                                                \
        if (rc == MPI_SUCCESS && (rc = (call)) != MPI_SUCCESS)                                     \
            rc = epmpi_raise(name, ep, rc);                                                        \
        return rc;                                                                                 \
    } while (0)

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
             MPI_Comm comm)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Pack(inbuf, incount, datatype, outbuf, outsize, position, comm);
    ON_ENDPOINT("MPI_Pack", comm, PMPI_Pack(inbuf, incount, datatype, outbuf, outsize, position, host));
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype,
               MPI_Comm comm)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Unpack(inbuf, insize, position, outbuf, outcount, datatype, comm);
    ON_ENDPOINT("MPI_Unpack", comm, PMPI_Unpack(inbuf, insize, position, outbuf, outcount, datatype, host));
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Pack_size(incount, datatype, comm, size);
    ON_ENDPOINT("MPI_Pack_size", comm, PMPI_Pack_size(incount, datatype, host, size));
}

/* The large-count forms (MPI 4.1 section 2.5.8): the host's own where it has them (MPI 4
 * hosts), on the same communicators as above; elsewhere the counts narrowed to int (the host
 * takes no larger ones) and the int form called, MPI_ERR_COUNT when one does not fit. */
#if MPI_VERSION >= 4
int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
               MPI_Count *position, MPI_Comm comm)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Pack_c(inbuf, incount, datatype, outbuf, outsize, position, comm);
    ON_ENDPOINT("MPI_Pack_c", comm, PMPI_Pack_c(inbuf, incount, datatype, outbuf, outsize, position, host));
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                 MPI_Datatype datatype, MPI_Comm comm)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Unpack_c(inbuf, insize, position, outbuf, outcount, datatype, comm);
    ON_ENDPOINT("MPI_Unpack_c", comm, PMPI_Unpack_c(inbuf, insize, position, outbuf, outcount, datatype, host));
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Pack_size_c(incount, datatype, comm, size);
    ON_ENDPOINT("MPI_Pack_size_c", comm, PMPI_Pack_size_c(incount, datatype, host, size));
}
#else
static int fits(MPI_Count n)
{
    return n >= INT_MIN && n <= INT_MAX;
}

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
               MPI_Count *position, MPI_Comm comm)
{
    if (!fits(incount) || !fits(outsize) || (position && !fits(*position)))
        return MPI_ERR_COUNT;
    int pos = position ? (int)*position : 0;
    int rc = MPI_Pack(inbuf, (int)incount, datatype, outbuf, (int)outsize, position ? &pos : NULL, comm);
    if (rc == MPI_SUCCESS && position)
        *position = pos;
    return rc;
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                 MPI_Datatype datatype, MPI_Comm comm)
{
    if (!fits(insize) || !fits(outcount) || (position && !fits(*position)))
        return MPI_ERR_COUNT;
    int pos = position ? (int)*position : 0;
    int rc = MPI_Unpack(inbuf, (int)insize, position ? &pos : NULL, outbuf, (int)outcount, datatype, comm);
    if (rc == MPI_SUCCESS && position)
        *position = pos;
    return rc;
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    if (!fits(incount))
        return MPI_ERR_COUNT;
    int n = 0;
    int rc = MPI_Pack_size((int)incount, datatype, comm, size ? &n : NULL);
    if (rc == MPI_SUCCESS && size)
        *size = n;
    return rc;
}
#endif
