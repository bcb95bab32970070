/*
 * f08_runtime.h: what the `use mpi_f08` entry points of libepmpi_mpi_f (f08_names.c) need:
 * each host's names for its f08 procedures, and the conversions of an f08 call's arguments
 * into those of the layer's `use mpi` entry point (generate_f08.py says why these suffice).
 */
#ifndef EPMPI_MPI_NAMES_F08_RUNTIME_H
#define EPMPI_MPI_NAMES_F08_RUNTIME_H

#include "fortran_runtime.h"

#include <stdlib.h>

/* The specific procedures behind the generic names of the host's mpi_f08 module (EPMPI_F08TS:
 * those with a choice buffer) and the profiling names the host path calls. Open MPI 4.1 gives
 * choice buffers as addresses, MPICH 4.0 as gfortran descriptors (assumed rank); MPICH also has
 * the large-count forms of MPI 4.0 (mpi_send_f08ts_large_...). */
#ifdef OPEN_MPI
#define EPMPI_F08(name) mpi_##name##_f08_
#define EPMPI_PF08(name) pmpi_##name##_f08_
#define EPMPI_F08TS(name) mpi_##name##_f08_
#define EPMPI_PF08TS(name) pmpi_##name##_f08_
#define EPMPI_F08_DESCRIPTORS 0
#define EPMPI_F08_LARGE 0
#else
#define EPMPI_F08(name) mpi_##name##_f08_
#define EPMPI_PF08(name) pmpir_##name##_f08_
#define EPMPI_F08TS(name) mpi_##name##_f08ts_
#define EPMPI_PF08TS(name) pmpir_##name##_f08ts_
#define EPMPI_F08_DESCRIPTORS 1
#define EPMPI_F08_LARGE 1
#endif

/* The host's f08 sentinels, recorded before main by f08_sentinels.f90 (compiled with the
 * host's `use mpi_f08`): Open MPI shares them with `use mpi`, MPICH has objects of its own. */
extern void *epmpi_f08_bottom, *epmpi_f08_in_place, *epmpi_f08_status_ignore, *epmpi_f08_statuses_ignore;

/* Through f08_sentinels.f90 (the descriptor is gfortran's; the Fortran routines hand it to C as
 * a standard CFI descriptor): the address of an assumed-rank choice buffer, whether its
 * elements are contiguous and their size in bytes; and the copy of its elements to (to_temp 1)
 * or from (0) a contiguous temporary of that size, in array element order. */
void epmpi_f08_descriptor_address_(void *descriptor, void **address, MPI_Fint *contiguous, size_t *bytes);
void epmpi_f08_descriptor_copy_(void *descriptor, void **temp, MPI_Fint *to_temp);

/* A choice buffer as the `use mpi` entry point takes it: its address, with the f08 module's
 * MPI_BOTTOM and MPI_IN_PLACE as `use mpi`'s. An array section with gaps (MPICH passes it as it
 * is) is, as MPI 4.1 section 19.1.12 asks, the sequence of its elements: a blocking call gets a
 * contiguous copy (*temp, which epmpi_f08_buffer_done copies back and frees); a nonblocking,
 * persistent or one-sided one (`asynchronous`, whose buffer outlives the call) cannot, and
 * EPMPI's engine takes no datatype built from the descriptor: 0 then, -1 when out of memory,
 * else 1. */
static inline int epmpi_f08_buffer(void *buf, void **address, void **temp, int asynchronous)
{
    void *a = buf;
    *temp = NULL;
#if EPMPI_F08_DESCRIPTORS
    MPI_Fint contiguous = 1, to_temp = 1;
    size_t bytes = 0;
    epmpi_f08_descriptor_address_(buf, &a, &contiguous, &bytes);
    if (!contiguous) {
        if (asynchronous)
            return 0;
        *temp = malloc(bytes > 0 ? bytes : 1);
        if (*temp == NULL)
            return -1;
        epmpi_f08_descriptor_copy_(buf, temp, &to_temp);
        *address = *temp;
        return 1;
    }
#else
    (void)asynchronous;
#endif
    if (a == epmpi_f08_bottom)
        a = epmpi_f_bottom;
    else if (a == epmpi_f08_in_place)
        a = epmpi_f_in_place;
    *address = a;
    return 1;
}

/* After the call: an output buffer's copy goes back into the section; the copy is freed. */
static inline void epmpi_f08_buffer_done(void *buf, void *temp, int output)
{
    if (temp == NULL)
        return;
    MPI_Fint to_temp = 0;
    if (output)
        epmpi_f08_descriptor_copy_(buf, &temp, &to_temp);
    free(temp);
}

static inline MPI_Fint *epmpi_f08_status(MPI_Fint *status)
{
    return (void *)status == epmpi_f08_status_ignore ? (MPI_Fint *)epmpi_f_status_ignore : status;
}

static inline MPI_Fint *epmpi_f08_statuses(MPI_Fint *statuses)
{
    return (void *)statuses == epmpi_f08_statuses_ignore ? (MPI_Fint *)epmpi_f_statuses_ignore : statuses;
}

/* ierror is OPTIONAL in mpi_f08: a null address when the program leaves it out. */
static inline void epmpi_f08_error(MPI_Fint *ierror, MPI_Fint rc)
{
    if (ierror)
        *ierror = rc;
}

/* Whether an array of requests holds an EPMPI one (its completion is then the layer's). */
static inline int epmpi_f08_any_ep(MPI_Fint count, const MPI_Fint *requests)
{
    int ep = 0;
    for (MPI_Fint i = 0; i < count; i++)
        ep |= EPMPI_F_IS_EP(requests[i]);
    return ep;
}

#endif
