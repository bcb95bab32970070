/*
 * ep_xios_glue.c: the C half of the Fortran module `ep_xios` (ep_xios.f90).
 *
 * Compile it with the host MPI's C compiler wrapper (`mpicc`) of the MPI whose `use mpi` the
 * module is built against, and with the C compiler that goes with the Fortran compiler (it
 * reads Fortran array descriptors through <ISO_Fortran_binding.h>), with include/ and
 * xios_adapter/include/ on the include path.
 *
 * What only C can do for the module:
 *  - convert the `use mpi` integer of the world communicator to a C handle (MPI_Comm_f2c is a
 *    macro in MPICH, a function in Open MPI);
 *  - turn Fortran strings (address + length, no NUL) into the NUL-terminated names of
 *    ep_xios.h, refusing embedded NULs and names longer than EPX_MAX_NAME;
 *  - resolve payloads (`type(*), dimension(..)`, passed as descriptors) to address + bytes, a
 *    non-contiguous section being copied first (EPX_Context_send_event copies the payload
 *    before it returns, so a temporary serves);
 *  - copy a received payload into a Fortran array;
 *  - report the error of a call made without `ierror` and abort, as MPI's default handler.
 * Nothing here keeps state: every function may be called by any number of threads at once.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <ISO_Fortran_binding.h>
#include <ep_xios.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The module passes `use mpi` handles as C ints (integer(c_int)). */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not a C int on this MPI");

/* Copies Fortran string (text, len) into `name` (EPX_MAX_NAME + 1 bytes). Returns EP_ERR_ARG
 * for an overlong string or one holding a NUL (the C side refuses an empty one). */
static int name_from_fortran(const char *text, int len, char name[EPX_MAX_NAME + 1])
{
    if (len < 0 || len > EPX_MAX_NAME || (len > 0 && memchr(text, '\0', (size_t)len) != NULL))
        return EP_ERR_ARG;
    if (len > 0)
        memcpy(name, text, (size_t)len);
    name[len] = '\0';
    return EP_SUCCESS;
}

int epx_f_init_client(MPI_Fint world, int num_threads, int thread, const char *code_id, int code_len,
                      EP_Comm *model_comm, EPX_Client *client)
{
    char name[EPX_MAX_NAME + 1];
    int rc = name_from_fortran(code_id, code_len, name);
    if (rc != EP_SUCCESS)
        return rc;
    return EPX_Init_client(MPI_Comm_f2c(world), num_threads, thread, name, model_comm, client);
}

int epx_f_init_server(MPI_Fint world, EPX_Server *server)
{
    return EPX_Init_server(MPI_Comm_f2c(world), server);
}

int epx_f_context_init(EPX_Client client, const char *context_id, int id_len, int transport,
                       int64_t buffer_bytes, EPX_Context *context)
{
    char name[EPX_MAX_NAME + 1];
    int rc = name_from_fortran(context_id, id_len, name);
    if (rc != EP_SUCCESS)
        return rc;
    return EPX_Context_init(client, name, transport, buffer_bytes, context);
}

/* Bytes of the array a descriptor describes (elements x element length). */
static int64_t descriptor_bytes(const CFI_cdesc_t *d)
{
    int64_t n = (int64_t)d->elem_len;
    for (int r = 0; r < d->rank; r++)
        n *= d->dim[r].extent > 0 ? (int64_t)d->dim[r].extent : 0;
    return n;
}

/* Copies the elements of a non-contiguous section into `flat`, first dimension fastest. */
static void gather_section(const CFI_cdesc_t *d, char *flat)
{
    int64_t n = descriptor_bytes(d) / (int64_t)(d->elem_len ? d->elem_len : 1);
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        const char *elem = (const char *)d->base_addr;
        for (int r = 0; r < d->rank; r++)
            elem += idx[r] * d->dim[r].sm;
        memcpy(flat + k * (int64_t)d->elem_len, elem, d->elem_len);
        for (int r = 0; r < d->rank; r++) {
            if (++idx[r] < d->dim[r].extent)
                break;
            idx[r] = 0;
        }
    }
}

/* `data` is NULL when the Fortran payload is absent: an event without payload. */
int epx_f_send_event(EPX_Context context, int server, int type, const int64_t *meta, int meta_count,
                     const CFI_cdesc_t *data)
{
    if (data == NULL || data->base_addr == NULL)
        return EPX_Context_send_event(context, server, type, meta, meta_count, NULL, 0);
    int64_t bytes = descriptor_bytes(data);
    if (bytes == 0)
        return EPX_Context_send_event(context, server, type, meta, meta_count, NULL, 0);
    if (CFI_is_contiguous(data))
        return EPX_Context_send_event(context, server, type, meta, meta_count, data->base_addr, bytes);
    char *copy = malloc((size_t)bytes);
    if (copy == NULL)
        return EP_ERR_OTHER;
    gather_section(data, copy);
    int rc = EPX_Context_send_event(context, server, type, meta, meta_count, copy, bytes);
    free(copy);
    return rc;
}

/*
 * Copies the `bytes` bytes at `src` (a received payload) into the contiguous Fortran array
 * `dst`: EP_ERR_BUFFER if `dst` is not contiguous, EP_ERR_TRUNCATE (after copying what fits)
 * if it is smaller than the payload.
 */
int epx_f_copy_payload(const void *src, int64_t bytes, CFI_cdesc_t *dst)
{
    if (bytes < 0)
        return EP_ERR_COUNT;
    if (!CFI_is_contiguous(dst))
        return EP_ERR_BUFFER;
    int64_t room = descriptor_bytes(dst);
    int64_t n = bytes < room ? bytes : room;
    if (n > 0 && src != NULL && dst->base_addr != NULL)
        memcpy(dst->base_addr, src, (size_t)n);
    return bytes > room ? EP_ERR_TRUNCATE : EP_SUCCESS;
}

/* A call without `ierror` failed: prints the routine and the error's message, then aborts the
 * job (MPI's default handler behaves so). `routine` is NUL-terminated. */
void epx_f_fatal(int code, const char *routine)
{
    char message[EP_MAX_ERROR_STRING];
    int len = 0;
    if (EP_Error_string(code, message, &len) != EP_SUCCESS)
        snprintf(message, sizeof message, "error code %d", code);
    fprintf(stderr, "EPMPI fatal error in %s: %s; aborting (pass ierror to handle errors)\n", routine, message);
    fflush(stderr);
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        /* Give the launcher time to forward stderr before it tears the job down. */
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    abort();
}
