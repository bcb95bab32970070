/*
 * ep_mpi_glue.c: the C half of the Fortran module `ep_mpi`.
 *
 * Compile it with the host MPI's C compiler wrapper (`mpicc`) of the MPI whose `use mpi` the
 * module is built against, and with the C compiler that goes with the Fortran compiler (gcc
 * for gfortran): it reads Fortran array descriptors through <ISO_Fortran_binding.h>.
 *
 * What only C can do for the module:
 *  - convert the Fortran integers of `use mpi` (datatypes, ops, info, communicators) to C
 *    handles: MPICH's MPI_Type_f2c and friends are macros, Open MPI's are functions;
 *  - resolve choice buffers (`type(*), dimension(..)`, passed as descriptors): the address
 *    of Fortran's MPI_BOTTOM / MPI_IN_PLACE becomes C's, a non-contiguous section is copied
 *    into a contiguous temporary for blocking calls and refused for nonblocking ones;
 *  - accept count/displacement arrays of default Fortran integers of either size
 *    (`-fdefault-integer-8`);
 *  - map the Fortran values of MPI_LOCK_SHARED/EXCLUSIVE and MPI_MODE_* (passed by the module)
 *    to C's, and refuse non-contiguous window memory and one-sided buffers (used after the
 *    call returns, so a temporary copy cannot serve).
 * The addresses of Fortran's MPI_BOTTOM and MPI_IN_PLACE arrive as arguments of every call
 * (the module passes the `use mpi` variables by reference), so this file keeps no state but
 * the Fortran procedures of the keyvals and error handlers made from Fortran.
 *
 * Errors found here (a non-contiguous buffer for a nonblocking or one-sided call, no memory)
 * go through the error handler of the communicator or window concerned, as the library's own
 * errors do: with EP_ERRORS_RETURN the error class is returned, with EP_ERRORS_ARE_FATAL a
 * message naming the Fortran routine is printed and the job aborts.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <ISO_Fortran_binding.h>
#include <ep_mpi.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The module passes `use mpi` handles as C ints (integer(c_int)). */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not a C int on this MPI");
/* The module passes MPI_Count values as integer(c_int64_t). */
_Static_assert(sizeof(MPI_Count) == 8, "MPI_Count is not 64 bits on this MPI");

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* Applies error handler `handler` to an error found in the glue: returns `cls` with
 * EP_ERRORS_RETURN, prints and aborts otherwise. */
static int handle_error(int handler, int cls, const char *routine, const char *why)
{
    if (handler == EP_ERRORS_RETURN)
        return cls;
    fprintf(stderr, "EPMPI fatal error in %s: %s; aborting (set EP_ERRORS_RETURN to handle errors)\n",
            routine, why);
    fflush(stderr);
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        /* As the library does: the launcher may tear the job down as soon as MPI_Abort reaches
         * it (MPICH's hydra does), before it has forwarded our stderr. */
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
        MPI_Abort(MPI_COMM_WORLD, cls);
    }
    abort();
}

/*
 * Reports an error found in the glue through the error handler of `comm` (EP_COMM_NULL: the
 * process default). Returns the code to give back to Fortran.
 */
static int glue_error(EP_Comm comm, int cls, const char *routine, const char *why)
{
    int handler = EP_ERRORS_ARE_FATAL;
    int rc = EP_Comm_get_errhandler(comm, &handler);
    /* An invalid communicator: the library's handler has dealt with that. */
    return rc != EP_SUCCESS ? rc : handle_error(handler, cls, routine, why);
}

/* As glue_error, through the error handler of window `win`. */
static int glue_win_error(EP_Win win, int cls, const char *routine, const char *why)
{
    int handler = EP_ERRORS_ARE_FATAL;
    int rc = EP_Win_get_errhandler(win, &handler);
    return rc != EP_SUCCESS ? rc : handle_error(handler, cls, routine, why);
}

/*
 * Reports an error found by the Fortran module itself (e.g. a failed allocation) through
 * the handler of `comm`; `routine` and `why` are NUL-terminated.
 */
int epmpi_f_raise(EP_Comm comm, int cls, const char *routine, const char *why)
{
    return glue_error(comm, cls, routine, why);
}

/* The address of a Fortran variable (for comparing with sentinels such as MPI_STATUS_IGNORE). */
void *epmpi_f_loc(void *x)
{
    return x;
}

/* ---------------------------------------------------------------------------------------- */
/* Choice buffers                                                                           */
/* ---------------------------------------------------------------------------------------- */

/* A Fortran choice buffer resolved for a C call. */
typedef struct {
    void *addr;              /* what the C function gets */
    void *copy;              /* contiguous copy of a non-contiguous section, or NULL */
    const CFI_cdesc_t *desc; /* the section the copy came from */
} fbuf;

/* Number of elements of an array section (1 for a scalar). */
static size_t section_elements(const CFI_cdesc_t *d)
{
    size_t n = 1;
    for (int r = 0; r < d->rank; r++)
        n *= d->dim[r].extent > 0 ? (size_t)d->dim[r].extent : 0;
    return n;
}

/* Copies a section into a contiguous buffer (`to_copy`) or back, in array element order. */
static void section_transfer(const CFI_cdesc_t *d, char *flat, int to_copy)
{
    size_t n = section_elements(d), len = d->elem_len;
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    for (size_t k = 0; k < n; k++) {
        char *elem = (char *)d->base_addr;
        for (int r = 0; r < d->rank; r++)
            elem += idx[r] * d->dim[r].sm;
        if (to_copy)
            memcpy(flat + k * len, elem, len);
        else
            memcpy(elem, flat + k * len, len);
        for (int r = 0; r < d->rank; r++) { /* next index, first dimension fastest */
            if (++idx[r] < d->dim[r].extent)
                break;
            idx[r] = 0;
        }
    }
}

/*
 * Resolves the buffer of a call: Fortran's MPI_BOTTOM (`f_bottom`) and MPI_IN_PLACE
 * (`f_in_place`, NULL where the call takes none) become C's; a contiguous buffer is used as
 * it is; a non-contiguous section is refused when `nonblocking`, else copied into a
 * contiguous temporary (the data of the section, so a receive that fills only part of it
 * leaves the rest as it was) that fbuf_close copies back. Returns EP_SUCCESS or an error
 * code that went through the handler of `comm`.
 */
static int fbuf_open(fbuf *b, const CFI_cdesc_t *d, const void *f_bottom, const void *f_in_place,
                     int nonblocking, EP_Comm comm, const char *routine)
{
    b->copy = NULL;
    b->desc = d;
    b->addr = d->base_addr;
    if (d->base_addr != NULL && d->base_addr == f_bottom) {
        b->addr = MPI_BOTTOM;
        return EP_SUCCESS;
    }
    if (d->base_addr != NULL && d->base_addr == f_in_place) {
        b->addr = MPI_IN_PLACE;
        return EP_SUCCESS;
    }
    if (CFI_is_contiguous(d))
        return EP_SUCCESS;
    if (nonblocking)
        return glue_error(comm, EP_ERR_BUFFER, routine,
                          "the buffer is a non-contiguous array section; a nonblocking call "
                          "needs contiguous memory that stays in place (pass a contiguous array)");
    size_t bytes = section_elements(d) * d->elem_len;
    b->copy = malloc(bytes ? bytes : 1);
    if (b->copy == NULL)
        return glue_error(comm, EP_ERR_OTHER, routine, "no memory for a copy of a non-contiguous buffer");
    section_transfer(d, b->copy, 1);
    b->addr = b->copy;
    return EP_SUCCESS;
}

/* Ends the use of a buffer: copies received data back into a section (`copy_back`). */
static void fbuf_close(fbuf *b, int copy_back)
{
    if (b->copy == NULL)
        return;
    if (copy_back)
        section_transfer(b->desc, b->copy, 0);
    free(b->copy);
    b->copy = NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Communicator creation                                                                    */
/* ---------------------------------------------------------------------------------------- */

int epmpi_f_comm_create_endpoints(MPI_Fint parent, int my_num_ep, MPI_Fint info, EP_Comm *out_comms)
{
    return EP_Comm_create_endpoints(MPI_Comm_f2c(parent), my_num_ep, MPI_Info_f2c(info), out_comms);
}

int epmpi_f_comm_create_endpoint(MPI_Fint parent, int my_num_ep, int index, EP_Comm *comm)
{
    return EP_Comm_create_endpoint(MPI_Comm_f2c(parent), my_num_ep, index, comm);
}

/* The host communicator under `comm`, as a `use mpi` integer; `*host` is untouched on error. */
int epmpi_f_comm_get_host_comm(EP_Comm comm, MPI_Fint *host)
{
    MPI_Comm c;
    int rc = EP_Comm_get_host_comm(comm, &c);
    if (rc == EP_SUCCESS)
        *host = MPI_Comm_c2f(c);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* Point-to-point                                                                           */
/* ---------------------------------------------------------------------------------------- */

/* mode: 0 standard, 1 synchronous. */
static int send_blocking(int mode, CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag,
                         EP_Comm comm, const void *f_bottom, const char *routine)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 0, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    MPI_Datatype t = MPI_Type_f2c(datatype);
    rc = mode ? EP_Ssend(b.addr, count, t, dest, tag, comm) : EP_Send(b.addr, count, t, dest, tag, comm);
    fbuf_close(&b, 0);
    return rc;
}

int epmpi_f_send(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                 const void *f_bottom)
{
    return send_blocking(0, buf, count, datatype, dest, tag, comm, f_bottom, "ep_send");
}

int epmpi_f_ssend(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                  const void *f_bottom)
{
    return send_blocking(1, buf, count, datatype, dest, tag, comm, f_bottom, "ep_ssend");
}

static int send_nonblocking(int mode, CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag,
                            EP_Comm comm, EP_Request *request, const void *f_bottom, const char *routine)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    MPI_Datatype t = MPI_Type_f2c(datatype);
    return mode ? EP_Issend(b.addr, count, t, dest, tag, comm, request)
                : EP_Isend(b.addr, count, t, dest, tag, comm, request);
}

int epmpi_f_isend(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                  EP_Request *request, const void *f_bottom)
{
    return send_nonblocking(0, buf, count, datatype, dest, tag, comm, request, f_bottom, "ep_isend");
}

int epmpi_f_issend(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                   EP_Request *request, const void *f_bottom)
{
    return send_nonblocking(1, buf, count, datatype, dest, tag, comm, request, f_bottom, "ep_issend");
}

int epmpi_f_recv(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int source, int tag, EP_Comm comm,
                 EP_Status *status, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 0, comm, "ep_recv");
    if (rc != EP_SUCCESS)
        return rc;
    rc = EP_Recv(b.addr, count, MPI_Type_f2c(datatype), source, tag, comm, status);
    fbuf_close(&b, 1);
    return rc;
}

int epmpi_f_irecv(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int source, int tag, EP_Comm comm,
                  EP_Request *request, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, comm, "ep_irecv");
    if (rc != EP_SUCCESS)
        return rc;
    return EP_Irecv(b.addr, count, MPI_Type_f2c(datatype), source, tag, comm, request);
}

int epmpi_f_sendrecv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, int dest, int sendtag,
                     CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int source, int recvtag,
                     EP_Comm comm, EP_Status *status, const void *f_bottom)
{
    fbuf s, r;
    int rc = fbuf_open(&s, sendbuf, f_bottom, NULL, 0, comm, "ep_sendrecv");
    if (rc != EP_SUCCESS)
        return rc;
    rc = fbuf_open(&r, recvbuf, f_bottom, NULL, 0, comm, "ep_sendrecv");
    if (rc != EP_SUCCESS) {
        fbuf_close(&s, 0);
        return rc;
    }
    rc = EP_Sendrecv(s.addr, sendcount, MPI_Type_f2c(sendtype), dest, sendtag, r.addr, recvcount,
                     MPI_Type_f2c(recvtype), source, recvtag, comm, status);
    fbuf_close(&s, 0);
    fbuf_close(&r, 1);
    return rc;
}

int epmpi_f_mrecv(CFI_cdesc_t *buf, int count, MPI_Fint datatype, EP_Message *message, EP_Status *status,
                  const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 0, EP_COMM_NULL, "ep_mrecv");
    if (rc != EP_SUCCESS)
        return rc;
    rc = EP_Mrecv(b.addr, count, MPI_Type_f2c(datatype), message, status);
    fbuf_close(&b, 1);
    return rc;
}

int epmpi_f_imrecv(CFI_cdesc_t *buf, int count, MPI_Fint datatype, EP_Message *message, EP_Request *request,
                   const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, EP_COMM_NULL, "ep_imrecv");
    if (rc != EP_SUCCESS)
        return rc;
    return EP_Imrecv(b.addr, count, MPI_Type_f2c(datatype), message, request);
}

int epmpi_f_get_count(const EP_Status *status, MPI_Fint datatype, int *count)
{
    return EP_Get_count(status, MPI_Type_f2c(datatype), count);
}

/* Sendrecv_replace, persistent requests, buffered and ready modes, status queries. */

int epmpi_f_sendrecv_replace(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int sendtag, int source,
                             int recvtag, EP_Comm comm, EP_Status *status, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 0, comm, "ep_sendrecv_replace");
    if (rc != EP_SUCCESS)
        return rc;
    rc = EP_Sendrecv_replace(b.addr, count, MPI_Type_f2c(datatype), dest, sendtag, source, recvtag, comm, status);
    fbuf_close(&b, 1);
    return rc;
}

/* The buffers of a nonblocking send-receive stay in use after the call: contiguous only. */
int epmpi_f_isendrecv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, int dest, int sendtag,
                      CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int source, int recvtag,
                      EP_Comm comm, EP_Request *request, const void *f_bottom)
{
    fbuf s, r;
    int rc = fbuf_open(&s, sendbuf, f_bottom, NULL, 1, comm, "ep_isendrecv");
    if (rc == EP_SUCCESS)
        rc = fbuf_open(&r, recvbuf, f_bottom, NULL, 1, comm, "ep_isendrecv");
    if (rc != EP_SUCCESS)
        return rc;
    return EP_Isendrecv(s.addr, sendcount, MPI_Type_f2c(sendtype), dest, sendtag, r.addr, recvcount,
                        MPI_Type_f2c(recvtype), source, recvtag, comm, request);
}

int epmpi_f_isendrecv_replace(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int sendtag, int source,
                              int recvtag, EP_Comm comm, EP_Request *request, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, comm, "ep_isendrecv_replace");
    if (rc != EP_SUCCESS)
        return rc;
    return EP_Isendrecv_replace(b.addr, count, MPI_Type_f2c(datatype), dest, sendtag, source, recvtag, comm, request);
}

/* Persistent send of `mode`: 0 standard, 1 synchronous, 2 buffered, 3 ready. The buffer is
 * read at every start, so it must be contiguous and stay in place. */
int epmpi_f_send_init(int mode, CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                      EP_Request *request, const void *f_bottom)
{
    static const char *const routines[4] = {"ep_send_init", "ep_ssend_init", "ep_bsend_init", "ep_rsend_init"};
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, comm, routines[mode & 3]);
    if (rc != EP_SUCCESS)
        return rc;
    MPI_Datatype t = MPI_Type_f2c(datatype);
    switch (mode) {
    case 1:
        return EP_Ssend_init(b.addr, count, t, dest, tag, comm, request);
    case 2:
        return EP_Bsend_init(b.addr, count, t, dest, tag, comm, request);
    case 3:
        return EP_Rsend_init(b.addr, count, t, dest, tag, comm, request);
    default:
        return EP_Send_init(b.addr, count, t, dest, tag, comm, request);
    }
}

int epmpi_f_recv_init(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int source, int tag, EP_Comm comm,
                      EP_Request *request, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, comm, "ep_recv_init");
    if (rc != EP_SUCCESS)
        return rc;
    return EP_Recv_init(b.addr, count, MPI_Type_f2c(datatype), source, tag, comm, request);
}

/* Buffered sends copy the data before they return, so a non-contiguous section may go
 * through a temporary even for EP_Ibsend (`request` NULL: EP_Bsend). */
int epmpi_f_bsend(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                  EP_Request *request, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 0, comm, request ? "ep_ibsend" : "ep_bsend");
    if (rc != EP_SUCCESS)
        return rc;
    MPI_Datatype t = MPI_Type_f2c(datatype);
    rc = request ? EP_Ibsend(b.addr, count, t, dest, tag, comm, request) : EP_Bsend(b.addr, count, t, dest, tag, comm);
    fbuf_close(&b, 0);
    return rc;
}

/* Ready mode sends as standard mode (see EP_Rsend), so the standard-mode glue serves. */
int epmpi_f_rsend(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                  const void *f_bottom)
{
    return send_blocking(0, buf, count, datatype, dest, tag, comm, f_bottom, "ep_rsend");
}

int epmpi_f_irsend(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int dest, int tag, EP_Comm comm,
                   EP_Request *request, const void *f_bottom)
{
    return send_nonblocking(0, buf, count, datatype, dest, tag, comm, request, f_bottom, "ep_irsend");
}

/* The attached buffer stays in use after the call: contiguous only. */
int epmpi_f_buffer_attach(CFI_cdesc_t *buf, int size, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, EP_COMM_NULL, "ep_buffer_attach");
    if (rc != EP_SUCCESS)
        return rc;
    return EP_Buffer_attach(b.addr, size);
}

int epmpi_f_get_elements(const EP_Status *status, MPI_Fint datatype, int *count)
{
    return EP_Get_elements(status, MPI_Type_f2c(datatype), count);
}

int epmpi_f_get_elements_x(const EP_Status *status, MPI_Fint datatype, MPI_Count *count)
{
    return EP_Get_elements_x(status, MPI_Type_f2c(datatype), count);
}

int epmpi_f_status_set_elements_x(EP_Status *status, MPI_Fint datatype, MPI_Count count)
{
    return EP_Status_set_elements_x(status, MPI_Type_f2c(datatype), count);
}

/* ---------------------------------------------------------------------------------------- */
/* Collectives and split                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* Arrays of default Fortran integers (counts, displacements). */

/* An int array for a C call, converted from Fortran integers of `elem_bytes` bytes. */
typedef struct {
    const int *ints;
    int *owned;
} fints;

/*
 * Makes `n` Fortran integers of `elem_bytes` bytes readable as C ints: 4-byte integers are
 * used in place, 8-byte ones (-fdefault-integer-8) are converted, values outside the int
 * range becoming -INT_MAX (an invalid count or displacement). n < 0 converts nothing.
 */
static int fints_open(fints *a, const void *f, int elem_bytes, int n, EP_Comm comm, const char *routine)
{
    a->owned = NULL;
    a->ints = f;
    if (elem_bytes == (int)sizeof(int))
        return EP_SUCCESS;
    if (elem_bytes != 8)
        return glue_error(comm, EP_ERR_ARG, routine, "unsupported default integer size");
    a->owned = malloc((n > 0 ? (size_t)n : 1) * sizeof(int));
    if (a->owned == NULL)
        return glue_error(comm, EP_ERR_OTHER, routine, "no memory for a count array");
    const long long *v = f;
    for (int i = 0; i < n; i++)
        a->owned[i] = (v[i] >= -2147483647LL && v[i] <= 2147483647LL) ? (int)v[i] : -2147483647;
    a->ints = a->owned;
    return EP_SUCCESS;
}

static void fints_close(fints *a)
{
    free(a->owned);
    a->owned = NULL;
}

/* `count_entries` of an array with one entry per rank of the endpoint's own group
 * (`EP_Reduce_scatter`'s recvcounts), and of one read by every endpoint with one entry per rank
 * it names (its communicator's, or the remote group's of an intercommunicator). */
#define ENTRIES_OWN_GROUP (-2147483647 - 1)
#define ENTRIES_PEERS (-2147483647)

/* Number of ranks whose entries a count array of `comm` holds, when this endpoint reads it:
 * `root` is ENTRIES_OWN_GROUP, ENTRIES_PEERS, or the root argument of a rooted call (then only
 * the root reads them: the rank `root` of an intracommunicator, the endpoint passing EP_ROOT on
 * an intercommunicator, with one entry per remote rank); 0 when it does not read them. */
static int count_entries(EP_Comm comm, int root, int elem_bytes)
{
    int rank = -1, size = 0, inter = 0;
    if (elem_bytes == (int)sizeof(int))
        return 0; /* used in place: the length does not matter */
    if (EP_Comm_test_inter(comm, &inter) != EP_SUCCESS)
        return 0;
    if (root == ENTRIES_OWN_GROUP)
        return EP_Comm_size(comm, &size) == EP_SUCCESS ? size : 0;
    if (root != ENTRIES_PEERS && (inter ? root != EP_ROOT : EP_Comm_rank(comm, &rank) != EP_SUCCESS || rank != root))
        return 0;
    if ((inter ? EP_Comm_remote_size(comm, &size) : EP_Comm_size(comm, &size)) != EP_SUCCESS)
        return 0;
    return size;
}

int epmpi_f_barrier(EP_Comm comm)
{
    return EP_Barrier(comm);
}

int epmpi_f_bcast(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int root, EP_Comm comm, const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 0, comm, "ep_bcast");
    if (rc != EP_SUCCESS)
        return rc;
    rc = EP_Bcast(b.addr, count, MPI_Type_f2c(datatype), root, comm);
    fbuf_close(&b, 1);
    return rc;
}

/* The shape of Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block. */
enum reduction { R_REDUCE, R_ALLREDUCE, R_SCAN, R_EXSCAN, R_REDUCE_SCATTER_BLOCK };

static int reduction(enum reduction kind, CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count,
                     MPI_Fint datatype, MPI_Fint op, int root, EP_Comm comm, const void *f_bottom,
                     const void *f_in_place, const char *routine)
{
    fbuf s, r;
    int rc = fbuf_open(&s, sendbuf, f_bottom, f_in_place, 0, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fbuf_open(&r, recvbuf, f_bottom, NULL, 0, comm, routine);
    if (rc != EP_SUCCESS) {
        fbuf_close(&s, 0);
        return rc;
    }
    MPI_Datatype t = MPI_Type_f2c(datatype);
    MPI_Op o = MPI_Op_f2c(op);
    switch (kind) {
    case R_REDUCE:
        rc = EP_Reduce(s.addr, r.addr, count, t, o, root, comm);
        break;
    case R_ALLREDUCE:
        rc = EP_Allreduce(s.addr, r.addr, count, t, o, comm);
        break;
    case R_SCAN:
        rc = EP_Scan(s.addr, r.addr, count, t, o, comm);
        break;
    case R_EXSCAN:
        rc = EP_Exscan(s.addr, r.addr, count, t, o, comm);
        break;
    case R_REDUCE_SCATTER_BLOCK:
        rc = EP_Reduce_scatter_block(s.addr, r.addr, count, t, o, comm);
        break;
    }
    fbuf_close(&s, 0);
    fbuf_close(&r, 1);
    return rc;
}

int epmpi_f_reduce(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count, MPI_Fint datatype, MPI_Fint op,
                   int root, EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return reduction(R_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, f_bottom, f_in_place,
                     "ep_reduce");
}

int epmpi_f_allreduce(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count, MPI_Fint datatype, MPI_Fint op,
                      EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return reduction(R_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, f_bottom, f_in_place,
                     "ep_allreduce");
}

int epmpi_f_scan(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count, MPI_Fint datatype, MPI_Fint op,
                 EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return reduction(R_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, f_bottom, f_in_place, "ep_scan");
}

int epmpi_f_exscan(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count, MPI_Fint datatype, MPI_Fint op,
                   EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return reduction(R_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, f_bottom, f_in_place,
                     "ep_exscan");
}

int epmpi_f_reduce_scatter_block(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint datatype,
                                 MPI_Fint op, EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return reduction(R_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, f_bottom,
                     f_in_place, "ep_reduce_scatter_block");
}

int epmpi_f_reduce_scatter(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, const void *recvcounts, int count_bytes,
                           MPI_Fint datatype, MPI_Fint op, EP_Comm comm, const void *f_bottom,
                           const void *f_in_place)
{
    const char *routine = "ep_reduce_scatter";
    fbuf s, r;
    fints rc_;
    int n = count_entries(comm, ENTRIES_OWN_GROUP, count_bytes);
    int rc = fints_open(&rc_, recvcounts, count_bytes, n, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fbuf_open(&s, sendbuf, f_bottom, f_in_place, 0, comm, routine);
    if (rc == EP_SUCCESS) {
        rc = fbuf_open(&r, recvbuf, f_bottom, NULL, 0, comm, routine);
        if (rc == EP_SUCCESS) {
            rc = EP_Reduce_scatter(s.addr, r.addr, rc_.ints, MPI_Type_f2c(datatype), MPI_Op_f2c(op), comm);
            fbuf_close(&r, 1);
        }
        fbuf_close(&s, 0);
    }
    fints_close(&rc_);
    return rc;
}

/* The shape of Gather, Scatter, Allgather, Alltoall. */
enum exchange { X_GATHER, X_SCATTER, X_ALLGATHER, X_ALLTOALL };

static int exchange(enum exchange kind, CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                    CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int root, EP_Comm comm,
                    const void *f_bottom, const void *f_in_place, const char *routine)
{
    /* MPI_IN_PLACE is the receive buffer of a scatter, the send buffer of the others. */
    const void *send_in_place = kind == X_SCATTER ? NULL : f_in_place;
    const void *recv_in_place = kind == X_SCATTER ? f_in_place : NULL;
    fbuf s, r;
    int rc = fbuf_open(&s, sendbuf, f_bottom, send_in_place, 0, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fbuf_open(&r, recvbuf, f_bottom, recv_in_place, 0, comm, routine);
    if (rc != EP_SUCCESS) {
        fbuf_close(&s, 0);
        return rc;
    }
    MPI_Datatype st = MPI_Type_f2c(sendtype), rt = MPI_Type_f2c(recvtype);
    switch (kind) {
    case X_GATHER:
        rc = EP_Gather(s.addr, sendcount, st, r.addr, recvcount, rt, root, comm);
        break;
    case X_SCATTER:
        rc = EP_Scatter(s.addr, sendcount, st, r.addr, recvcount, rt, root, comm);
        break;
    case X_ALLGATHER:
        rc = EP_Allgather(s.addr, sendcount, st, r.addr, recvcount, rt, comm);
        break;
    case X_ALLTOALL:
        rc = EP_Alltoall(s.addr, sendcount, st, r.addr, recvcount, rt, comm);
        break;
    }
    fbuf_close(&s, 0);
    fbuf_close(&r, 1);
    return rc;
}

int epmpi_f_gather(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                   MPI_Fint recvtype, int root, EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return exchange(X_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, f_bottom,
                    f_in_place, "ep_gather");
}

int epmpi_f_scatter(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                    MPI_Fint recvtype, int root, EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return exchange(X_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, f_bottom,
                    f_in_place, "ep_scatter");
}

int epmpi_f_allgather(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf,
                      int recvcount, MPI_Fint recvtype, EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return exchange(X_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, f_bottom,
                    f_in_place, "ep_allgather");
}

int epmpi_f_alltoall(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                     MPI_Fint recvtype, EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    return exchange(X_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, f_bottom,
                    f_in_place, "ep_alltoall");
}

int epmpi_f_gatherv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf,
                    const void *recvcounts, const void *displs, int count_bytes, MPI_Fint recvtype, int root,
                    EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    const char *routine = "ep_gatherv";
    int n = count_entries(comm, root, count_bytes);
    fints c, d;
    fbuf s, r;
    int rc = fints_open(&c, recvcounts, count_bytes, n, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fints_open(&d, displs, count_bytes, n, comm, routine);
    if (rc == EP_SUCCESS) {
        rc = fbuf_open(&s, sendbuf, f_bottom, f_in_place, 0, comm, routine);
        if (rc == EP_SUCCESS) {
            rc = fbuf_open(&r, recvbuf, f_bottom, NULL, 0, comm, routine);
            if (rc == EP_SUCCESS) {
                rc = EP_Gatherv(s.addr, sendcount, MPI_Type_f2c(sendtype), r.addr, c.ints, d.ints,
                                MPI_Type_f2c(recvtype), root, comm);
                fbuf_close(&r, 1);
            }
            fbuf_close(&s, 0);
        }
        fints_close(&d);
    }
    fints_close(&c);
    return rc;
}

int epmpi_f_scatterv(CFI_cdesc_t *sendbuf, const void *sendcounts, const void *displs, int count_bytes,
                     MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int root,
                     EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    const char *routine = "ep_scatterv";
    int n = count_entries(comm, root, count_bytes);
    fints c, d;
    fbuf s, r;
    int rc = fints_open(&c, sendcounts, count_bytes, n, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fints_open(&d, displs, count_bytes, n, comm, routine);
    if (rc == EP_SUCCESS) {
        rc = fbuf_open(&s, sendbuf, f_bottom, NULL, 0, comm, routine);
        if (rc == EP_SUCCESS) {
            rc = fbuf_open(&r, recvbuf, f_bottom, f_in_place, 0, comm, routine);
            if (rc == EP_SUCCESS) {
                rc = EP_Scatterv(s.addr, c.ints, d.ints, MPI_Type_f2c(sendtype), r.addr, recvcount,
                                 MPI_Type_f2c(recvtype), root, comm);
                fbuf_close(&r, 1);
            }
            fbuf_close(&s, 0);
        }
        fints_close(&d);
    }
    fints_close(&c);
    return rc;
}

int epmpi_f_allgatherv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf,
                       const void *recvcounts, const void *displs, int count_bytes, MPI_Fint recvtype,
                       EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    const char *routine = "ep_allgatherv";
    int n = count_entries(comm, ENTRIES_PEERS, count_bytes);
    fints c, d;
    fbuf s, r;
    int rc = fints_open(&c, recvcounts, count_bytes, n, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fints_open(&d, displs, count_bytes, n, comm, routine);
    if (rc == EP_SUCCESS) {
        rc = fbuf_open(&s, sendbuf, f_bottom, f_in_place, 0, comm, routine);
        if (rc == EP_SUCCESS) {
            rc = fbuf_open(&r, recvbuf, f_bottom, NULL, 0, comm, routine);
            if (rc == EP_SUCCESS) {
                rc = EP_Allgatherv(s.addr, sendcount, MPI_Type_f2c(sendtype), r.addr, c.ints, d.ints,
                                   MPI_Type_f2c(recvtype), comm);
                fbuf_close(&r, 1);
            }
            fbuf_close(&s, 0);
        }
        fints_close(&d);
    }
    fints_close(&c);
    return rc;
}

int epmpi_f_alltoallv(CFI_cdesc_t *sendbuf, const void *sendcounts, const void *sdispls, MPI_Fint sendtype,
                      CFI_cdesc_t *recvbuf, const void *recvcounts, const void *rdispls, int count_bytes,
                      MPI_Fint recvtype, EP_Comm comm, const void *f_bottom, const void *f_in_place)
{
    const char *routine = "ep_alltoallv";
    int n = count_entries(comm, ENTRIES_PEERS, count_bytes);
    fints sc, sd, rc_, rd;
    fbuf s, r;
    int rc = fints_open(&sc, sendcounts, count_bytes, n, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fints_open(&sd, sdispls, count_bytes, n, comm, routine);
    if (rc == EP_SUCCESS) {
        rc = fints_open(&rc_, recvcounts, count_bytes, n, comm, routine);
        if (rc == EP_SUCCESS) {
            rc = fints_open(&rd, rdispls, count_bytes, n, comm, routine);
            if (rc == EP_SUCCESS) {
                rc = fbuf_open(&s, sendbuf, f_bottom, f_in_place, 0, comm, routine);
                if (rc == EP_SUCCESS) {
                    rc = fbuf_open(&r, recvbuf, f_bottom, NULL, 0, comm, routine);
                    if (rc == EP_SUCCESS) {
                        rc = EP_Alltoallv(s.addr, sc.ints, sd.ints, MPI_Type_f2c(sendtype), r.addr, rc_.ints,
                                          rd.ints, MPI_Type_f2c(recvtype), comm);
                        fbuf_close(&r, 1);
                    }
                    fbuf_close(&s, 0);
                }
                fints_close(&rd);
            }
            fints_close(&rc_);
        }
        fints_close(&sd);
    }
    fints_close(&sc);
    return rc;
}

int epmpi_f_ibarrier(EP_Comm comm, EP_Request *request)
{
    return EP_Ibarrier(comm, request);
}

int epmpi_f_ibcast(CFI_cdesc_t *buf, int count, MPI_Fint datatype, int root, EP_Comm comm, EP_Request *request,
                   const void *f_bottom)
{
    fbuf b;
    int rc = fbuf_open(&b, buf, f_bottom, NULL, 1, comm, "ep_ibcast");
    if (rc != EP_SUCCESS)
        return rc;
    return EP_Ibcast(b.addr, count, MPI_Type_f2c(datatype), root, comm, request);
}

/* ---------------------------------------------------------------------------------------- */
/* Nonblocking collectives, EP_Alltoallw and EP_Reduce_local                                 */
/* ---------------------------------------------------------------------------------------- */

/* The send and receive buffers of a nonblocking collective: contiguous memory only (the
 * library keeps the addresses until the request completes); `sendbuf` may be MPI_IN_PLACE. */
static int nb_bufs(fbuf *s, CFI_cdesc_t *sendbuf, fbuf *r, CFI_cdesc_t *recvbuf, const void *f_bottom,
                   const void *f_in_place, EP_Comm comm, const char *routine)
{
    int rc = fbuf_open(s, sendbuf, f_bottom, f_in_place, 1, comm, routine);
    return rc != EP_SUCCESS ? rc : fbuf_open(r, recvbuf, f_bottom, NULL, 1, comm, routine);
}

/* Opens the four count and displacement arrays of a v- or w-collective (n entries each when
 * converted); on failure none stays open. */
static int fints_open4(fints a[4], const void *const arrays[4], int count_bytes, int n, EP_Comm comm,
                       const char *routine)
{
    for (int i = 0; i < 4; i++) {
        int rc = fints_open(&a[i], arrays[i], count_bytes, n, comm, routine);
        if (rc != EP_SUCCESS) {
            while (i-- > 0)
                fints_close(&a[i]);
            return rc;
        }
    }
    return EP_SUCCESS;
}

static void fints_close4(fints a[4])
{
    for (int i = 0; i < 4; i++)
        fints_close(&a[i]);
}

/* kind: 0 EP_Ireduce, 1 EP_Iallreduce, 2 EP_Iscan, 3 EP_Iexscan, 4 EP_Ireduce_scatter_block
 * (count is then recvcount); root is used by EP_Ireduce only. */
int epmpi_f_ireduction(int kind, CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count, MPI_Fint datatype,
                       MPI_Fint op, int root, EP_Comm comm, EP_Request *request, const void *f_bottom,
                       const void *f_in_place)
{
    static const char *names[] = {"ep_ireduce", "ep_iallreduce", "ep_iscan", "ep_iexscan", "ep_ireduce_scatter_block"};
    fbuf s, r;
    int rc = nb_bufs(&s, sendbuf, &r, recvbuf, f_bottom, f_in_place, comm, names[kind]);
    if (rc != EP_SUCCESS)
        return rc;
    MPI_Datatype t = MPI_Type_f2c(datatype);
    MPI_Op o = MPI_Op_f2c(op);
    switch (kind) {
    case 0:
        return EP_Ireduce(s.addr, r.addr, count, t, o, root, comm, request);
    case 1:
        return EP_Iallreduce(s.addr, r.addr, count, t, o, comm, request);
    case 2:
        return EP_Iscan(s.addr, r.addr, count, t, o, comm, request);
    case 3:
        return EP_Iexscan(s.addr, r.addr, count, t, o, comm, request);
    default:
        return EP_Ireduce_scatter_block(s.addr, r.addr, count, t, o, comm, request);
    }
}

int epmpi_f_ireduce_scatter(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, const void *recvcounts, int count_bytes,
                            MPI_Fint datatype, MPI_Fint op, EP_Comm comm, EP_Request *request,
                            const void *f_bottom, const void *f_in_place)
{
    const char *routine = "ep_ireduce_scatter";
    fbuf s, r;
    fints c;
    int rc = nb_bufs(&s, sendbuf, &r, recvbuf, f_bottom, f_in_place, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    /* The library reads the counts when the call is made: a converted copy may go at once. */
    int n = count_entries(comm, ENTRIES_OWN_GROUP, count_bytes);
    rc = fints_open(&c, recvcounts, count_bytes, n, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = EP_Ireduce_scatter(s.addr, r.addr, c.ints, MPI_Type_f2c(datatype), MPI_Op_f2c(op), comm, request);
    fints_close(&c);
    return rc;
}

/* kind: 0 EP_Igather, 1 EP_Iscatter, 2 EP_Iallgather, 3 EP_Ialltoall (root unused by 2, 3). */
int epmpi_f_icollective(int kind, CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf,
                        int recvcount, MPI_Fint recvtype, int root, EP_Comm comm, EP_Request *request,
                        const void *f_bottom, const void *f_in_place)
{
    static const char *names[] = {"ep_igather", "ep_iscatter", "ep_iallgather", "ep_ialltoall"};
    fbuf s, r;
    /* EP_Iscatter takes MPI_IN_PLACE as its receive buffer: swap the roles for the check. */
    int rc = kind == 1 ? nb_bufs(&r, recvbuf, &s, sendbuf, f_bottom, f_in_place, comm, names[kind])
                       : nb_bufs(&s, sendbuf, &r, recvbuf, f_bottom, f_in_place, comm, names[kind]);
    if (rc != EP_SUCCESS)
        return rc;
    MPI_Datatype st = MPI_Type_f2c(sendtype), rt = MPI_Type_f2c(recvtype);
    switch (kind) {
    case 0:
        return EP_Igather(s.addr, sendcount, st, r.addr, recvcount, rt, root, comm, request);
    case 1:
        return EP_Iscatter(s.addr, sendcount, st, r.addr, recvcount, rt, root, comm, request);
    case 2:
        return EP_Iallgather(s.addr, sendcount, st, r.addr, recvcount, rt, comm, request);
    default:
        return EP_Ialltoall(s.addr, sendcount, st, r.addr, recvcount, rt, comm, request);
    }
}

/* kind: 0 EP_Igatherv (recvcounts, rdispls at the root), 1 EP_Iscatterv (sendcounts, sdispls at
 * the root), 2 EP_Iallgatherv (recvcounts, rdispls), 3 EP_Ialltoallv (all four); arrays a
 * call does not take are not read. */
int epmpi_f_ivcollective(int kind, CFI_cdesc_t *sendbuf, int sendcount, const void *sendcounts,
                         const void *sdispls, MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                         const void *recvcounts, const void *rdispls, MPI_Fint recvtype, int root,
                         int count_bytes, EP_Comm comm, EP_Request *request, const void *f_bottom,
                         const void *f_in_place)
{
    static const char *names[] = {"ep_igatherv", "ep_iscatterv", "ep_iallgatherv", "ep_ialltoallv"};
    const char *routine = names[kind];
    fbuf s, r;
    int rc = kind == 1 ? nb_bufs(&r, recvbuf, &s, sendbuf, f_bottom, f_in_place, comm, routine)
                       : nb_bufs(&s, sendbuf, &r, recvbuf, f_bottom, f_in_place, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    int n = count_entries(comm, kind < 2 ? root : ENTRIES_PEERS, count_bytes);
    const void *const arrays[4] = {sendcounts, sdispls, recvcounts, rdispls};
    fints a[4];
    rc = fints_open4(a, arrays, count_bytes, n, comm, routine);
    if (rc == EP_SUCCESS) {
        MPI_Datatype st = MPI_Type_f2c(sendtype), rt = MPI_Type_f2c(recvtype);
        switch (kind) {
        case 0:
            rc = EP_Igatherv(s.addr, sendcount, st, r.addr, a[2].ints, a[3].ints, rt, root, comm, request);
            break;
        case 1:
            rc = EP_Iscatterv(s.addr, a[0].ints, a[1].ints, st, r.addr, recvcount, rt, root, comm, request);
            break;
        case 2:
            rc = EP_Iallgatherv(s.addr, sendcount, st, r.addr, a[2].ints, a[3].ints, rt, comm, request);
            break;
        default:
            rc = EP_Ialltoallv(s.addr, a[0].ints, a[1].ints, st, r.addr, a[2].ints, a[3].ints, rt, comm, request);
        }
        /* The library reads the arrays when the call is made: converted copies may go at once. */
        fints_close4(a);
    }
    return rc;
}

/* Which form of a collective a glue function serves (the Fortran side passes the value). */
enum glue_mode { GLUE_BLOCKING, GLUE_NONBLOCKING, GLUE_PERSISTENT };

/* EP_Alltoallw, EP_Ialltoallw or EP_Alltoallw_init (`mode`; `info` for the persistent form
 * only): `sendtypes`, `recvtypes` are `use mpi` integers, converted here; blocking calls
 * accept non-contiguous sections (copied). */
int epmpi_f_alltoallw(CFI_cdesc_t *sendbuf, const void *sendcounts, const void *sdispls, const MPI_Fint *sendtypes,
                      CFI_cdesc_t *recvbuf, const void *recvcounts, const void *rdispls, const MPI_Fint *recvtypes,
                      int count_bytes, EP_Comm comm, int mode, MPI_Fint info, EP_Request *request,
                      const void *f_bottom, const void *f_in_place)
{
    static const char *const routines[3] = {"ep_alltoallw", "ep_ialltoallw", "ep_alltoallw_init"};
    const char *routine = routines[mode];
    int nonblocking = mode != GLUE_BLOCKING, size = 0, inter = 0;
    /* One entry per rank the endpoint names: of the remote group on an intercommunicator. */
    if (EP_Comm_test_inter(comm, &inter) != EP_SUCCESS
        || (inter ? EP_Comm_remote_size(comm, &size) : EP_Comm_size(comm, &size)) != EP_SUCCESS) {
        if (mode == GLUE_PERSISTENT)
            return EP_Alltoallw_init(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, comm, MPI_INFO_NULL, request);
        return mode == GLUE_NONBLOCKING ? EP_Ialltoallw(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, comm, request)
                                        : EP_Alltoallw(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, comm);
    }
    fbuf s, r;
    int rc = fbuf_open(&s, sendbuf, f_bottom, f_in_place, nonblocking, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    rc = fbuf_open(&r, recvbuf, f_bottom, NULL, nonblocking, comm, routine);
    if (rc != EP_SUCCESS) {
        fbuf_close(&s, 0);
        return rc;
    }
    MPI_Datatype *types = malloc(2 * (size_t)(size > 0 ? size : 1) * sizeof(MPI_Datatype));
    if (types == NULL) {
        rc = glue_error(comm, EP_ERR_OTHER, routine, "no memory for the datatype arrays");
    } else {
        int in_place = s.addr == MPI_IN_PLACE;
        for (int i = 0; i < size; i++) {
            types[i] = in_place ? MPI_DATATYPE_NULL : MPI_Type_f2c(sendtypes[i]);
            types[size + i] = MPI_Type_f2c(recvtypes[i]);
        }
        const void *const arrays[4] = {sendcounts, sdispls, recvcounts, rdispls};
        fints a[4];
        rc = fints_open4(a, arrays, count_bytes, size, comm, routine);
        if (rc == EP_SUCCESS) {
            /* Every form reads the arrays during the call only (the persistent one at init). */
            if (mode == GLUE_PERSISTENT)
                rc = EP_Alltoallw_init(s.addr, a[0].ints, a[1].ints, types, r.addr, a[2].ints, a[3].ints,
                                       types + size, comm, MPI_Info_f2c(info), request);
            else if (mode == GLUE_NONBLOCKING)
                rc = EP_Ialltoallw(s.addr, a[0].ints, a[1].ints, types, r.addr, a[2].ints, a[3].ints,
                                   types + size, comm, request);
            else
                rc = EP_Alltoallw(s.addr, a[0].ints, a[1].ints, types, r.addr, a[2].ints, a[3].ints,
                                  types + size, comm);
            fints_close4(a);
        }
        free(types);
    }
    fbuf_close(&r, rc == EP_SUCCESS);
    fbuf_close(&s, 0);
    return rc;
}

int epmpi_f_reduce_local(CFI_cdesc_t *inbuf, CFI_cdesc_t *inoutbuf, int count, MPI_Fint datatype, MPI_Fint op,
                         const void *f_bottom)
{
    fbuf i, io;
    int rc = fbuf_open(&i, inbuf, f_bottom, NULL, 0, EP_COMM_NULL, "ep_reduce_local");
    if (rc != EP_SUCCESS)
        return rc;
    rc = fbuf_open(&io, inoutbuf, f_bottom, NULL, 0, EP_COMM_NULL, "ep_reduce_local");
    if (rc == EP_SUCCESS) {
        rc = EP_Reduce_local(i.addr, io.addr, count, MPI_Type_f2c(datatype), MPI_Op_f2c(op));
        fbuf_close(&io, rc == EP_SUCCESS);
    }
    fbuf_close(&i, 0);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* Persistent collectives                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* Persistent collectives: the buffers must be contiguous (the library keeps their addresses
 * for the request's life); the arrays are read by the init call, so converted copies go at
 * once. kind: 0 EP_Barrier_init, 1 EP_Bcast_init (buf as recvbuf, recvcount, recvtype), 2
 * EP_Reduce_init, 3 EP_Allreduce_init, 4 EP_Scan_init, 5 EP_Exscan_init, 6
 * EP_Reduce_scatter_block_init (the reductions: sendcount and sendtype), 7 EP_Gather_init, 8
 * EP_Scatter_init, 9 EP_Allgather_init, 10 EP_Alltoall_init. */
int epmpi_f_pcollective(int kind, CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype, CFI_cdesc_t *recvbuf,
                        int recvcount, MPI_Fint recvtype, MPI_Fint op, int root, EP_Comm comm, MPI_Fint info,
                        EP_Request *request, const void *f_bottom, const void *f_in_place)
{
    static const char *names[] = {"ep_barrier_init", "ep_bcast_init", "ep_reduce_init", "ep_allreduce_init",
                                  "ep_scan_init", "ep_exscan_init", "ep_reduce_scatter_block_init",
                                  "ep_gather_init", "ep_scatter_init", "ep_allgather_init", "ep_alltoall_init"};
    MPI_Info i = MPI_Info_f2c(info);
    if (kind == 0)
        return EP_Barrier_init(comm, i, request);
    fbuf s, r;
    /* EP_Scatter_init takes MPI_IN_PLACE as its receive buffer: swap the roles for the check. */
    int rc = kind == 8 ? nb_bufs(&r, recvbuf, &s, sendbuf, f_bottom, f_in_place, comm, names[kind])
                       : nb_bufs(&s, sendbuf, &r, recvbuf, f_bottom, f_in_place, comm, names[kind]);
    if (rc != EP_SUCCESS)
        return rc;
    MPI_Datatype st = MPI_Type_f2c(sendtype), rt = MPI_Type_f2c(recvtype);
    MPI_Op o = MPI_Op_f2c(op);
    switch (kind) {
    case 1:
        return EP_Bcast_init(r.addr, recvcount, rt, root, comm, i, request);
    case 2:
        return EP_Reduce_init(s.addr, r.addr, sendcount, st, o, root, comm, i, request);
    case 3:
        return EP_Allreduce_init(s.addr, r.addr, sendcount, st, o, comm, i, request);
    case 4:
        return EP_Scan_init(s.addr, r.addr, sendcount, st, o, comm, i, request);
    case 5:
        return EP_Exscan_init(s.addr, r.addr, sendcount, st, o, comm, i, request);
    case 6:
        return EP_Reduce_scatter_block_init(s.addr, r.addr, sendcount, st, o, comm, i, request);
    case 7:
        return EP_Gather_init(s.addr, sendcount, st, r.addr, recvcount, rt, root, comm, i, request);
    case 8:
        return EP_Scatter_init(s.addr, sendcount, st, r.addr, recvcount, rt, root, comm, i, request);
    case 9:
        return EP_Allgather_init(s.addr, sendcount, st, r.addr, recvcount, rt, comm, i, request);
    default:
        return EP_Alltoall_init(s.addr, sendcount, st, r.addr, recvcount, rt, comm, i, request);
    }
}

/* kind: 0 EP_Gatherv_init (recvcounts, rdispls at the root), 1 EP_Scatterv_init (sendcounts,
 * sdispls at the root), 2 EP_Allgatherv_init (recvcounts, rdispls), 3 EP_Alltoallv_init (all
 * four), 4 EP_Reduce_scatter_init (recvcounts; sendtype is the datatype); arrays a call does
 * not take are not read. */
int epmpi_f_pvcollective(int kind, CFI_cdesc_t *sendbuf, int sendcount, const void *sendcounts,
                         const void *sdispls, MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                         const void *recvcounts, const void *rdispls, MPI_Fint recvtype, MPI_Fint op, int root,
                         int count_bytes, EP_Comm comm, MPI_Fint info, EP_Request *request, const void *f_bottom,
                         const void *f_in_place)
{
    static const char *names[] = {"ep_gatherv_init", "ep_scatterv_init", "ep_allgatherv_init", "ep_alltoallv_init",
                                  "ep_reduce_scatter_init"};
    const char *routine = names[kind];
    fbuf s, r;
    int rc = kind == 1 ? nb_bufs(&r, recvbuf, &s, sendbuf, f_bottom, f_in_place, comm, routine)
                       : nb_bufs(&s, sendbuf, &r, recvbuf, f_bottom, f_in_place, comm, routine);
    if (rc != EP_SUCCESS)
        return rc;
    int n = count_entries(comm, kind < 2 ? root : ENTRIES_PEERS, count_bytes);
    const void *const arrays[4] = {sendcounts, sdispls, recvcounts, rdispls};
    fints a[4];
    rc = fints_open4(a, arrays, count_bytes, n, comm, routine);
    if (rc == EP_SUCCESS) {
        MPI_Datatype st = MPI_Type_f2c(sendtype), rt = MPI_Type_f2c(recvtype);
        MPI_Info i = MPI_Info_f2c(info);
        switch (kind) {
        case 0:
            rc = EP_Gatherv_init(s.addr, sendcount, st, r.addr, a[2].ints, a[3].ints, rt, root, comm, i, request);
            break;
        case 1:
            rc = EP_Scatterv_init(s.addr, a[0].ints, a[1].ints, st, r.addr, recvcount, rt, root, comm, i, request);
            break;
        case 2:
            rc = EP_Allgatherv_init(s.addr, sendcount, st, r.addr, a[2].ints, a[3].ints, rt, comm, i, request);
            break;
        case 3:
            rc = EP_Alltoallv_init(s.addr, a[0].ints, a[1].ints, st, r.addr, a[2].ints, a[3].ints, rt, comm, i,
                                   request);
            break;
        default:
            rc = EP_Reduce_scatter_init(s.addr, r.addr, a[2].ints, st, MPI_Op_f2c(op), comm, i, request);
        }
        fints_close4(a);
    }
    return rc;
}

int epmpi_f_comm_split(EP_Comm comm, int color, int key, EP_Comm *newcomm)
{
    return EP_Comm_split(comm, color, key, newcomm);
}

/* `split_type` is a Fortran value: Fortran's MPI_COMM_TYPE_SHARED (`f_type_shared`) becomes C's. */
int epmpi_f_comm_split_type(EP_Comm comm, int split_type, int key, MPI_Fint info, EP_Comm *newcomm,
                            int f_type_shared)
{
    int c_type = split_type == f_type_shared ? MPI_COMM_TYPE_SHARED : split_type;
    return EP_Comm_split_type(comm, c_type, key, MPI_Info_f2c(info), newcomm);
}

/* ---- Groups, communicators from groups, caching and error handlers ---------------------- */

/* Fortran callbacks run through bind(C) routines of ep_mpi.f90, which know the user's
 * procedure interfaces and default integer kind; here they are C function pointers. */
typedef void (*epmpi_f_proc)(void);
int epmpi_f_run_copy(epmpi_f_proc fn, int oldcomm, int keyval, intptr_t extra_state, intptr_t value_in,
                     intptr_t *value_out, int *flag);
int epmpi_f_run_delete(epmpi_f_proc fn, int comm, int keyval, intptr_t value, intptr_t extra_state);
void epmpi_f_run_errhandler(epmpi_f_proc fn, int comm, int code);

/* The same for the MPI-1 callbacks of ep_keyval_create, whose values are default integers. */
int epmpi_f_run_copy_int(epmpi_f_proc fn, int oldcomm, int keyval, intptr_t extra_state, intptr_t value_in,
                         intptr_t *value_out, int *flag);
int epmpi_f_run_delete_int(epmpi_f_proc fn, int comm, int keyval, intptr_t value, intptr_t extra_state);

/* What a keyval made from Fortran calls: the user's procedures and extra state, and whether
 * they are MPI-1's (default integer values). Kept for the life of the process (attributes set
 * with a keyval outlive its free, and keyvals are few). */
typedef struct {
    epmpi_f_proc copy, del;
    intptr_t extra_state;
    int mpi1;
} f_keyval;

static int f_copy_tramp(EP_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    f_keyval *k = extra;
    intptr_t value = 0;
    int rc = (k->mpi1 ? epmpi_f_run_copy_int : epmpi_f_run_copy)(k->copy, oldcomm, keyval, k->extra_state,
                                                                 (intptr_t)in, &value, flag);
    *(void **)out = (void *)value;
    return rc;
}

static int f_delete_tramp(EP_Comm comm, int keyval, void *value, void *extra)
{
    f_keyval *k = extra;
    return (k->mpi1 ? epmpi_f_run_delete_int : epmpi_f_run_delete)(k->del, comm, keyval, (intptr_t)value,
                                                                   k->extra_state);
}

/* The record of a keyval made from Fortran, or NULL when out of memory. */
static f_keyval *f_keyval_new(epmpi_f_proc copy_fn, epmpi_f_proc delete_fn, intptr_t extra_state)
{
    f_keyval *k = malloc(sizeof *k);
    if (k) {
        k->copy = copy_fn;
        k->del = delete_fn;
        k->extra_state = extra_state;
        k->mpi1 = 0;
    }
    return k;
}

/* A communicator keyval of ep_keyval_create (MPI-1 callbacks). */
int epmpi_f_keyval_create(epmpi_f_proc copy_fn, epmpi_f_proc delete_fn, int *keyval, intptr_t extra_state)
{
    f_keyval *k = f_keyval_new(copy_fn, delete_fn, extra_state);
    if (!k)
        return EP_ERR_INTERN;
    k->mpi1 = 1;
    int rc = EP_Keyval_create(f_copy_tramp, f_delete_tramp, keyval, k);
    if (rc != EP_SUCCESS)
        free(k);
    return rc;
}

int epmpi_f_comm_create_keyval(epmpi_f_proc copy_fn, epmpi_f_proc delete_fn, int *keyval, intptr_t extra_state)
{
    f_keyval *k = f_keyval_new(copy_fn, delete_fn, extra_state);
    if (!k)
        return EP_ERR_INTERN;
    int rc = EP_Comm_create_keyval(f_copy_tramp, f_delete_tramp, keyval, k);
    if (rc != EP_SUCCESS)
        free(k);
    return rc;
}

/* The trampolines serve windows too: EP_Win, like EP_Comm, is a C int. */
int epmpi_f_win_create_keyval(epmpi_f_proc copy_fn, epmpi_f_proc delete_fn, int *keyval, intptr_t extra_state)
{
    f_keyval *k = f_keyval_new(copy_fn, delete_fn, extra_state);
    if (!k)
        return EP_ERR_INTERN;
    int rc = EP_Win_create_keyval(f_copy_tramp, f_delete_tramp, keyval, k);
    if (rc != EP_SUCCESS)
        free(k);
    return rc;
}

/* Fortran procedures of the error handlers made from Fortran, by handle. A C error handler
 * receives no extra state, so the trampoline finds the procedure through the handle of the
 * communicator's handler. */
static struct {
    pthread_mutex_t lock;
    EP_Errhandler *handles;
    epmpi_f_proc *procs;
    size_t n;
} f_handlers = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0};

static epmpi_f_proc f_handler_proc(EP_Errhandler h)
{
    epmpi_f_proc p = NULL;
    pthread_mutex_lock(&f_handlers.lock);
    for (size_t i = 0; i < f_handlers.n && !p; i++)
        if (f_handlers.handles[i] == h)
            p = f_handlers.procs[i];
    pthread_mutex_unlock(&f_handlers.lock);
    return p;
}

static void f_errhandler_tramp(EP_Comm *comm, int *code, ...)
{
    EP_Errhandler h = EP_ERRHANDLER_NULL, extra;
    if (EP_Comm_get_errhandler(*comm, &h) != EP_SUCCESS)
        return;
    extra = h;
    EP_Errhandler_free(&extra); /* the reference get_errhandler gave */
    epmpi_f_proc p = f_handler_proc(h);
    if (p)
        epmpi_f_run_errhandler(p, *comm, *code);
}

int epmpi_f_comm_create_errhandler(epmpi_f_proc fn, EP_Errhandler *errhandler)
{
    EP_Errhandler h;
    int rc = EP_Comm_create_errhandler(f_errhandler_tramp, &h);
    if (rc != EP_SUCCESS)
        return rc;
    pthread_mutex_lock(&f_handlers.lock);
    EP_Errhandler *hs = realloc(f_handlers.handles, (f_handlers.n + 1) * sizeof *hs);
    if (hs)
        f_handlers.handles = hs;
    epmpi_f_proc *ps = hs ? realloc(f_handlers.procs, (f_handlers.n + 1) * sizeof *ps) : NULL;
    if (ps) {
        f_handlers.procs = ps;
        f_handlers.handles[f_handlers.n] = h;
        f_handlers.procs[f_handlers.n++] = fn;
    }
    pthread_mutex_unlock(&f_handlers.lock);
    if (!ps) {
        EP_Errhandler_free(&h);
        return EP_ERR_INTERN;
    }
    *errhandler = h;
    return EP_SUCCESS;
}

int epmpi_f_comm_dup_with_info(EP_Comm comm, MPI_Fint info, EP_Comm *newcomm)
{
    return EP_Comm_dup_with_info(comm, MPI_Info_f2c(info), newcomm);
}

int epmpi_f_comm_idup_with_info(EP_Comm comm, MPI_Fint info, EP_Comm *newcomm, EP_Request *request)
{
    return EP_Comm_idup_with_info(comm, MPI_Info_f2c(info), newcomm, request);
}

int epmpi_f_comm_set_info(EP_Comm comm, MPI_Fint info)
{
    return EP_Comm_set_info(comm, MPI_Info_f2c(info));
}

int epmpi_f_comm_get_info(EP_Comm comm, MPI_Fint *info_used)
{
    MPI_Info info;
    int rc = EP_Comm_get_info(comm, &info);
    if (rc == EP_SUCCESS)
        *info_used = MPI_Info_c2f(info);
    return rc;
}


/* ---------------------------------------------------------------------------------------- */
/* Intercommunicators                                                                       */
/* ---------------------------------------------------------------------------------------- */

int epmpi_f_intercomm_create(EP_Comm local_comm, int local_leader, EP_Comm peer_comm, int remote_leader, int tag,
                             EP_Comm *newintercomm)
{
    return EP_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm);
}

int epmpi_f_intercomm_merge(EP_Comm intercomm, int high, EP_Comm *newintracomm)
{
    return EP_Intercomm_merge(intercomm, high, newintracomm);
}


/* ---------------------------------------------------------------------------------------- */
/* One-sided windows                                                                        */
/* ---------------------------------------------------------------------------------------- */

/* Sizes and displacements arrive as integer(c_intptr_t), the module's conversion of
 * integer(MPI_ADDRESS_KIND). */
_Static_assert(sizeof(MPI_Aint) == sizeof(intptr_t), "MPI_Aint is not the size of intptr_t on this MPI");

/* The host's lock types and MPI_MODE_* assertion bits as C has them, in the order of the
 * Fortran values the module passes as `f_rma` (its `rma_constants`): lock shared, lock
 * exclusive, then the modes. Both MPIs of NOTES.md give Fortran and C the same values
 * (MPICH 235/234 and 1024..16384, Open MPI 2/1 and 1..16); the conversion costs nothing
 * and keeps a host where they differ right. */
enum { F_LOCK_SHARED, F_LOCK_EXCLUSIVE, F_FIRST_MODE, N_RMA_CONSTANTS = F_FIRST_MODE + 5 };
static const int c_modes[N_RMA_CONSTANTS - F_FIRST_MODE] = {
    MPI_MODE_NOCHECK, MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED};

/* A Fortran assertion (an ior of `use mpi` MPI_MODE_* values, or 0) as C bits; bits that
 * are no mode pass unchanged, for the library to judge. */
static int c_assert(int f_assert, const int *f_rma)
{
    int c = 0;
    for (int i = 0; i < N_RMA_CONSTANTS - F_FIRST_MODE; i++) {
        int f_bit = f_rma[F_FIRST_MODE + i];
        if ((f_assert & f_bit) == f_bit) {
            c |= c_modes[i];
            f_assert &= ~f_bit;
        }
    }
    return c | f_assert;
}

/* A Fortran lock type as C's; other values pass unchanged (EP_ERR_LOCKTYPE). */
static int c_lock_type(int f_lock_type, const int *f_rma)
{
    if (f_lock_type == f_rma[F_LOCK_SHARED])
        return MPI_LOCK_SHARED;
    if (f_lock_type == f_rma[F_LOCK_EXCLUSIVE])
        return MPI_LOCK_EXCLUSIVE;
    return f_lock_type;
}

static const char rma_noncontiguous[] =
    "the buffer is a non-contiguous array section; window memory and the buffers of one-sided "
    "operations are used after the call returns (until the next synchronisation) and must be "
    "contiguous memory that stays in place (pass a contiguous array)";

/*
 * The address of window memory or of a one-sided operation's buffer: Fortran's MPI_BOTTOM
 * (`f_bottom`, NULL where the call takes none) becomes C's. Returns 0 for a non-contiguous
 * section: the memory is used after the call returns, so a temporary copy cannot serve.
 */
static int rma_addr(void **addr, const CFI_cdesc_t *d, const void *f_bottom)
{
    if (d->base_addr != NULL && d->base_addr == f_bottom) {
        *addr = MPI_BOTTOM;
        return 1;
    }
    *addr = d->base_addr;
    return CFI_is_contiguous(d);
}

int epmpi_f_win_create(CFI_cdesc_t *base, MPI_Aint size, int disp_unit, MPI_Fint info, EP_Comm comm, EP_Win *win)
{
    void *b;
    if (!rma_addr(&b, base, NULL))
        return glue_error(comm, EP_ERR_BUFFER, "ep_win_create", rma_noncontiguous);
    return EP_Win_create(b, size, disp_unit, MPI_Info_f2c(info), comm, win);
}

int epmpi_f_win_allocate(MPI_Aint size, int disp_unit, MPI_Fint info, EP_Comm comm, void **baseptr, EP_Win *win)
{
    return EP_Win_allocate(size, disp_unit, MPI_Info_f2c(info), comm, baseptr, win);
}

int epmpi_f_win_create_dynamic(MPI_Fint info, EP_Comm comm, EP_Win *win)
{
    return EP_Win_create_dynamic(MPI_Info_f2c(info), comm, win);
}

int epmpi_f_win_attach(EP_Win win, CFI_cdesc_t *base, MPI_Aint size)
{
    void *b;
    if (!rma_addr(&b, base, NULL))
        return glue_win_error(win, EP_ERR_BUFFER, "ep_win_attach", rma_noncontiguous);
    return EP_Win_attach(win, b, size);
}

/* Only the address counts: the region attached at the first element of `base`. */
int epmpi_f_win_detach(EP_Win win, CFI_cdesc_t *base)
{
    return EP_Win_detach(win, base->base_addr);
}

int epmpi_f_win_fence(int assert, EP_Win win, const int *f_rma)
{
    return EP_Win_fence(c_assert(assert, f_rma), win);
}

int epmpi_f_win_lock(int lock_type, int rank, int assert, EP_Win win, const int *f_rma)
{
    return EP_Win_lock(c_lock_type(lock_type, f_rma), rank, c_assert(assert, f_rma), win);
}

int epmpi_f_win_lock_all(int assert, EP_Win win, const int *f_rma)
{
    return EP_Win_lock_all(c_assert(assert, f_rma), win);
}

int epmpi_f_win_set_info(EP_Win win, MPI_Fint info)
{
    return EP_Win_set_info(win, MPI_Info_f2c(info));
}

int epmpi_f_win_get_info(EP_Win win, MPI_Fint *info_used)
{
    MPI_Info info;
    int rc = EP_Win_get_info(win, &info);
    if (rc == EP_SUCCESS)
        *info_used = MPI_Info_c2f(info);
    return rc;
}

int epmpi_f_win_post(EP_Group group, int assert, EP_Win win, const int *f_rma)
{
    return EP_Win_post(group, c_assert(assert, f_rma), win);
}

int epmpi_f_win_start(EP_Group group, int assert, EP_Win win, const int *f_rma)
{
    return EP_Win_start(group, c_assert(assert, f_rma), win);
}

/* The shape of Put, Get, Rput, Rget. */
enum transfer { T_PUT, T_GET, T_RPUT, T_RGET };

static int transfer(enum transfer kind, CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, EP_Win win,
                    EP_Request *request, const void *f_bottom, const char *routine)
{
    void *o;
    if (!rma_addr(&o, origin, f_bottom))
        return glue_win_error(win, EP_ERR_BUFFER, routine, rma_noncontiguous);
    MPI_Datatype ot = MPI_Type_f2c(origin_datatype), tt = MPI_Type_f2c(target_datatype);
    switch (kind) {
    case T_PUT:
        return EP_Put(o, origin_count, ot, target_rank, target_disp, target_count, tt, win);
    case T_GET:
        return EP_Get(o, origin_count, ot, target_rank, target_disp, target_count, tt, win);
    case T_RPUT:
        return EP_Rput(o, origin_count, ot, target_rank, target_disp, target_count, tt, win, request);
    case T_RGET:
        return EP_Rget(o, origin_count, ot, target_rank, target_disp, target_count, tt, win, request);
    }
    return EP_ERR_INTERN;
}

int epmpi_f_put(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, EP_Win win, const void *f_bottom)
{
    return transfer(T_PUT, origin, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win, NULL, f_bottom, "ep_put");
}

int epmpi_f_get(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, int target_rank,
                MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, EP_Win win, const void *f_bottom)
{
    return transfer(T_GET, origin, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win, NULL, f_bottom, "ep_get");
}

int epmpi_f_rput(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, int target_rank,
                 MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, EP_Win win, EP_Request *request,
                 const void *f_bottom)
{
    return transfer(T_RPUT, origin, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win, request, f_bottom, "ep_rput");
}

int epmpi_f_rget(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, int target_rank,
                 MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, EP_Win win, EP_Request *request,
                 const void *f_bottom)
{
    return transfer(T_RGET, origin, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win, request, f_bottom, "ep_rget");
}

/* Accumulate, and Raccumulate when `request` is not NULL. */
static int accumulate(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, MPI_Fint op, EP_Win win,
                      EP_Request *request, const void *f_bottom, const char *routine)
{
    void *o;
    if (!rma_addr(&o, origin, f_bottom))
        return glue_win_error(win, EP_ERR_BUFFER, routine, rma_noncontiguous);
    MPI_Datatype ot = MPI_Type_f2c(origin_datatype), tt = MPI_Type_f2c(target_datatype);
    if (request)
        return EP_Raccumulate(o, origin_count, ot, target_rank, target_disp, target_count, tt, MPI_Op_f2c(op), win,
                              request);
    return EP_Accumulate(o, origin_count, ot, target_rank, target_disp, target_count, tt, MPI_Op_f2c(op), win);
}

int epmpi_f_accumulate(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, MPI_Fint op, EP_Win win,
                       const void *f_bottom)
{
    return accumulate(origin, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                      op, win, NULL, f_bottom, "ep_accumulate");
}

int epmpi_f_raccumulate(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Fint target_datatype, MPI_Fint op, EP_Win win,
                        EP_Request *request, const void *f_bottom)
{
    return accumulate(origin, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                      op, win, request, f_bottom, "ep_raccumulate");
}

/* Get_accumulate, and Rget_accumulate when `request` is not NULL. */
static int get_accumulate(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, CFI_cdesc_t *result,
                          int result_count, MPI_Fint result_datatype, int target_rank, MPI_Aint target_disp,
                          int target_count, MPI_Fint target_datatype, MPI_Fint op, EP_Win win, EP_Request *request,
                          const void *f_bottom, const char *routine)
{
    void *o, *r;
    if (!rma_addr(&o, origin, f_bottom) || !rma_addr(&r, result, f_bottom))
        return glue_win_error(win, EP_ERR_BUFFER, routine, rma_noncontiguous);
    MPI_Datatype ot = MPI_Type_f2c(origin_datatype), rt = MPI_Type_f2c(result_datatype);
    MPI_Datatype tt = MPI_Type_f2c(target_datatype);
    if (request)
        return EP_Rget_accumulate(o, origin_count, ot, r, result_count, rt, target_rank, target_disp, target_count, tt,
                                  MPI_Op_f2c(op), win, request);
    return EP_Get_accumulate(o, origin_count, ot, r, result_count, rt, target_rank, target_disp, target_count, tt,
                             MPI_Op_f2c(op), win);
}

int epmpi_f_get_accumulate(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, CFI_cdesc_t *result,
                           int result_count, MPI_Fint result_datatype, int target_rank, MPI_Aint target_disp,
                           int target_count, MPI_Fint target_datatype, MPI_Fint op, EP_Win win, const void *f_bottom)
{
    return get_accumulate(origin, origin_count, origin_datatype, result, result_count, result_datatype, target_rank,
                          target_disp, target_count, target_datatype, op, win, NULL, f_bottom, "ep_get_accumulate");
}

int epmpi_f_rget_accumulate(CFI_cdesc_t *origin, int origin_count, MPI_Fint origin_datatype, CFI_cdesc_t *result,
                            int result_count, MPI_Fint result_datatype, int target_rank, MPI_Aint target_disp,
                            int target_count, MPI_Fint target_datatype, MPI_Fint op, EP_Win win, EP_Request *request,
                            const void *f_bottom)
{
    return get_accumulate(origin, origin_count, origin_datatype, result, result_count, result_datatype, target_rank,
                          target_disp, target_count, target_datatype, op, win, request, f_bottom,
                          "ep_rget_accumulate");
}

int epmpi_f_fetch_and_op(CFI_cdesc_t *origin, CFI_cdesc_t *result, MPI_Fint datatype, int target_rank,
                         MPI_Aint target_disp, MPI_Fint op, EP_Win win, const void *f_bottom)
{
    void *o, *r;
    if (!rma_addr(&o, origin, f_bottom) || !rma_addr(&r, result, f_bottom))
        return glue_win_error(win, EP_ERR_BUFFER, "ep_fetch_and_op", rma_noncontiguous);
    return EP_Fetch_and_op(o, r, MPI_Type_f2c(datatype), target_rank, target_disp, MPI_Op_f2c(op), win);
}

int epmpi_f_compare_and_swap(CFI_cdesc_t *origin, CFI_cdesc_t *compare, CFI_cdesc_t *result, MPI_Fint datatype,
                             int target_rank, MPI_Aint target_disp, EP_Win win, const void *f_bottom)
{
    void *o, *c, *r;
    if (!rma_addr(&o, origin, f_bottom) || !rma_addr(&c, compare, f_bottom) || !rma_addr(&r, result, f_bottom))
        return glue_win_error(win, EP_ERR_BUFFER, "ep_compare_and_swap", rma_noncontiguous);
    return EP_Compare_and_swap(o, c, r, MPI_Type_f2c(datatype), target_rank, target_disp, win);
}

/* ---------------------------------------------------------------------------------------- */
/* Process topologies and neighbourhood collectives                                         */
/* ---------------------------------------------------------------------------------------- */

/* In- and out-degree of this endpoint in the topology of `comm` (the lengths of a
 * neighbourhood collective's arrays); 0 without a topology, which the call then reports. */
static void neighbour_degrees(EP_Comm comm, int *in, int *out)
{
    int status = EP_UNDEFINED, nd = 0, weighted;
    *in = *out = 0;
    if (EP_Topo_test(comm, &status) != EP_SUCCESS)
        return;
    if (status == EP_CART && EP_Cartdim_get(comm, &nd) == EP_SUCCESS)
        *in = *out = 2 * nd;
    else if (status == EP_DIST_GRAPH)
        EP_Dist_graph_neighbors_count(comm, in, out, &weighted);
}

/* `info` is a `use mpi` integer; the weights are C's (the module maps its EP_UNWEIGHTED and
 * EP_WEIGHTS_EMPTY to the header's). */
int epmpi_f_dist_graph_create_adjacent(EP_Comm comm_old, int indegree, const int *sources, const int *sourceweights,
                                       int outdegree, const int *destinations, const int *destweights,
                                       MPI_Fint info, int reorder, EP_Comm *comm_dist_graph)
{
    return EP_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                         destweights, MPI_Info_f2c(info), reorder, comm_dist_graph);
}

/* As epmpi_f_dist_graph_create_adjacent, for EP_Dist_graph_create. */
int epmpi_f_dist_graph_create(EP_Comm comm_old, int n, const int *sources, const int *degrees,
                              const int *destinations, const int *weights, MPI_Fint info, int reorder,
                              EP_Comm *comm_dist_graph)
{
    return EP_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, MPI_Info_f2c(info), reorder,
                                comm_dist_graph);
}

/* `n` datatypes of `use mpi` as C handles (malloc'd, NULL when n == 0 or out of memory). */
static MPI_Datatype *c_types(const MPI_Fint *f, int n)
{
    MPI_Datatype *t = malloc((n > 0 ? (size_t)n : 1) * sizeof(MPI_Datatype));
    for (int i = 0; t != NULL && i < n; i++)
        t[i] = MPI_Type_f2c(f[i]);
    return t;
}

/* The shape of the neighbourhood collectives. */
enum neighbour { N_ALLGATHER, N_ALLGATHERV, N_ALLTOALL, N_ALLTOALLV, N_ALLTOALLW };

/*
 * Every neighbourhood collective, blocking, nonblocking or persistent (`mode`; `info` for the
 * persistent forms only): the arguments a shape does not use are ignored. Count and displacement arrays of the v forms are default Fortran
 * integers of `count_bytes` bytes; those of the w form are integer(MPI_ADDRESS_KIND) bytes
 * (MPI_Aint) and its types `use mpi` integers.
 */
int epmpi_f_neighbor(int kind, int mode, CFI_cdesc_t *sendbuf, int sendcount, const void *sendcounts, const void *sdispls,
                     const MPI_Fint *sendtypes, MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                     const void *recvcounts, const void *rdispls, const MPI_Fint *recvtypes, MPI_Fint recvtype,
                     int count_bytes, EP_Comm comm, MPI_Fint info, EP_Request *request, const void *f_bottom)
{
    static const char *const routines[3][5] = {
        {"ep_neighbor_allgather", "ep_neighbor_allgatherv", "ep_neighbor_alltoall", "ep_neighbor_alltoallv",
         "ep_neighbor_alltoallw"},
        {"ep_ineighbor_allgather", "ep_ineighbor_allgatherv", "ep_ineighbor_alltoall", "ep_ineighbor_alltoallv",
         "ep_ineighbor_alltoallw"},
        {"ep_neighbor_allgather_init", "ep_neighbor_allgatherv_init", "ep_neighbor_alltoall_init",
         "ep_neighbor_alltoallv_init", "ep_neighbor_alltoallw_init"}};
    const char *routine = routines[mode][kind];
    int in = 0, out = 0, nonblocking = mode != GLUE_BLOCKING;
    MPI_Info i = MPI_Info_f2c(info);
    if (count_bytes != (int)sizeof(int))
        neighbour_degrees(comm, &in, &out);
    fints sc = {sendcounts, NULL}, sd = {sdispls, NULL}, rc_ = {recvcounts, NULL}, rd = {rdispls, NULL};
    int rc = EP_SUCCESS;
    if (kind == N_ALLTOALLV || kind == N_ALLTOALLW)
        rc = fints_open(&sc, sendcounts, count_bytes, out, comm, routine);
    if (rc == EP_SUCCESS && kind == N_ALLTOALLV)
        rc = fints_open(&sd, sdispls, count_bytes, out, comm, routine);
    if (rc == EP_SUCCESS && kind != N_ALLGATHER && kind != N_ALLTOALL)
        rc = fints_open(&rc_, recvcounts, count_bytes, in, comm, routine);
    if (rc == EP_SUCCESS && (kind == N_ALLGATHERV || kind == N_ALLTOALLV))
        rc = fints_open(&rd, rdispls, count_bytes, in, comm, routine);
    MPI_Datatype *st = NULL, *rt = NULL;
    if (rc == EP_SUCCESS && kind == N_ALLTOALLW) {
        /* Degrees from the library: the type arrays have one entry per neighbour. */
        neighbour_degrees(comm, &in, &out);
        st = c_types(sendtypes, out);
        rt = c_types(recvtypes, in);
        if (st == NULL || rt == NULL)
            rc = glue_error(comm, EP_ERR_OTHER, routine, "no memory for the datatype arrays");
    }
    fbuf s, r;
    if (rc == EP_SUCCESS)
        rc = fbuf_open(&s, sendbuf, f_bottom, NULL, nonblocking, comm, routine);
    if (rc == EP_SUCCESS) {
        rc = fbuf_open(&r, recvbuf, f_bottom, NULL, nonblocking, comm, routine);
        if (rc == EP_SUCCESS) {
            MPI_Datatype t = MPI_Type_f2c(sendtype), u = MPI_Type_f2c(recvtype);
            switch (kind * 3 + mode) {
            case N_ALLGATHER * 3 + GLUE_BLOCKING:
                rc = EP_Neighbor_allgather(s.addr, sendcount, t, r.addr, recvcount, u, comm);
                break;
            case N_ALLGATHER * 3 + GLUE_NONBLOCKING:
                rc = EP_Ineighbor_allgather(s.addr, sendcount, t, r.addr, recvcount, u, comm, request);
                break;
            case N_ALLGATHER * 3 + GLUE_PERSISTENT:
                rc = EP_Neighbor_allgather_init(s.addr, sendcount, t, r.addr, recvcount, u, comm, i, request);
                break;
            case N_ALLGATHERV * 3 + GLUE_BLOCKING:
                rc = EP_Neighbor_allgatherv(s.addr, sendcount, t, r.addr, rc_.ints, rd.ints, u, comm);
                break;
            case N_ALLGATHERV * 3 + GLUE_NONBLOCKING:
                rc = EP_Ineighbor_allgatherv(s.addr, sendcount, t, r.addr, rc_.ints, rd.ints, u, comm, request);
                break;
            case N_ALLGATHERV * 3 + GLUE_PERSISTENT:
                rc = EP_Neighbor_allgatherv_init(s.addr, sendcount, t, r.addr, rc_.ints, rd.ints, u, comm, i, request);
                break;
            case N_ALLTOALL * 3 + GLUE_BLOCKING:
                rc = EP_Neighbor_alltoall(s.addr, sendcount, t, r.addr, recvcount, u, comm);
                break;
            case N_ALLTOALL * 3 + GLUE_NONBLOCKING:
                rc = EP_Ineighbor_alltoall(s.addr, sendcount, t, r.addr, recvcount, u, comm, request);
                break;
            case N_ALLTOALL * 3 + GLUE_PERSISTENT:
                rc = EP_Neighbor_alltoall_init(s.addr, sendcount, t, r.addr, recvcount, u, comm, i, request);
                break;
            case N_ALLTOALLV * 3 + GLUE_BLOCKING:
                rc = EP_Neighbor_alltoallv(s.addr, sc.ints, sd.ints, t, r.addr, rc_.ints, rd.ints, u, comm);
                break;
            case N_ALLTOALLV * 3 + GLUE_NONBLOCKING:
                rc = EP_Ineighbor_alltoallv(s.addr, sc.ints, sd.ints, t, r.addr, rc_.ints, rd.ints, u, comm, request);
                break;
            case N_ALLTOALLV * 3 + GLUE_PERSISTENT:
                rc = EP_Neighbor_alltoallv_init(s.addr, sc.ints, sd.ints, t, r.addr, rc_.ints, rd.ints, u, comm, i,
                                                request);
                break;
            case N_ALLTOALLW * 3 + GLUE_BLOCKING:
                rc = EP_Neighbor_alltoallw(s.addr, sc.ints, sdispls, st, r.addr, rc_.ints, rdispls, rt, comm);
                break;
            case N_ALLTOALLW * 3 + GLUE_NONBLOCKING:
                rc = EP_Ineighbor_alltoallw(s.addr, sc.ints, sdispls, st, r.addr, rc_.ints, rdispls, rt, comm, request);
                break;
            default:
                rc = EP_Neighbor_alltoallw_init(s.addr, sc.ints, sdispls, st, r.addr, rc_.ints, rdispls, rt, comm, i,
                                                request);
                break;
            }
            fbuf_close(&r, 1);
        }
        fbuf_close(&s, 0);
    }
    /* EPMPI's nonblocking and persistent forms read their arrays during the call only. */
    fints_close(&sc);
    fints_close(&sd);
    fints_close(&rc_);
    fints_close(&rd);
    free(st);
    free(rt);
    return rc;
}

/* Shared-memory windows and window attributes */

int epmpi_f_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Fint info, EP_Comm comm, void **baseptr, EP_Win *win)
{
    return EP_Win_allocate_shared(size, disp_unit, MPI_Info_f2c(info), comm, baseptr, win);
}
