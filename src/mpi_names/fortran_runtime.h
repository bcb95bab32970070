/*
 * fortran_runtime.h: what the `use mpi` / mpif.h entry points of libepmpi_mpi_f need: EPMPI
 * handles as Fortran integers, the host's Fortran sentinels (MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY) and statuses.
 *
 * Fortran handle values. An EPMPI object's Fortran handle is 0x30000000 | (EPMPI handle &
 * 0x0FFFFFFF) on both hosts:
 *  - MPICH's Fortran handles are its C handles (MPI_Comm_f2c is a cast), so this is the same
 *    value as the layer's C handle (runtime.h), and mixed-language code passes it either way;
 *  - Open MPI's Fortran handles are indices into its f2c tables, which count up from 0: it
 *    never hands out an index near 0x30000000 (805 million objects), and its own f2c of one
 *    returns no communicator, so a stray value reaching the host fails with MPI_ERR_COMM
 *    (MPI_Comm_f2c and the others are the layer's, fortran_handles.c).
 * Any other value is the host's and is converted with the host's f2c and c2f.
 */
#ifndef EPMPI_MPI_NAMES_FORTRAN_RUNTIME_H
#define EPMPI_MPI_NAMES_FORTRAN_RUNTIME_H

#include "runtime.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is int: integer arguments are passed through");

#define EPMPI_F_MARK 0x30000000u
#define EPMPI_F_IS_EP(f) (((uint32_t)(f) & 0xF0000000u) == EPMPI_F_MARK)

/* Conversion per kind: `epmpi_f2c_<kind>` turns a Fortran handle into the C handle the layer's
 * MPI_ functions take (an EPMPI one in the layer's encoding, a host one by the host's f2c);
 * `epmpi_c2f_<kind>` the reverse. */
#define EPMPI_DEFINE_F_KIND(name, mtype, hostname)                                                   \
    static inline mtype epmpi_f2c_##name(MPI_Fint f)                                                 \
    {                                                                                                \
        if (EPMPI_F_IS_EP(f))                                                                        \
            return EPMPI_ENCODE(mtype, (uint32_t)f & EPMPI_LOW_MASK);                                \
        return PMPI_##hostname##_f2c(f);                                                             \
    }                                                                                                \
    static inline MPI_Fint epmpi_c2f_##name(mtype c)                                                 \
    {                                                                                                \
        if (EPMPI_IS_EP(c))                                                                          \
            return (MPI_Fint)(EPMPI_F_MARK | EPMPI_LOW_OF(c));                                       \
        return PMPI_##hostname##_c2f(c);                                                             \
    }

EPMPI_DEFINE_F_KIND(comm, MPI_Comm, Comm)
EPMPI_DEFINE_F_KIND(request, MPI_Request, Request)
EPMPI_DEFINE_F_KIND(message, MPI_Message, Message)
EPMPI_DEFINE_F_KIND(win, MPI_Win, Win)
EPMPI_DEFINE_F_KIND(group, MPI_Group, Group)

/* Addresses of the host's Fortran sentinels, recorded before main by fortran_sentinels.f90
 * (compiled with the host's `use mpi`, so they are the very objects programs pass). */
extern void *epmpi_f_bottom, *epmpi_f_in_place, *epmpi_f_status_ignore, *epmpi_f_statuses_ignore;

/* A choice buffer: the host's Fortran MPI_BOTTOM and MPI_IN_PLACE become C's. */
static inline void *epmpi_f_buffer(void *buf)
{
    if (buf == epmpi_f_bottom)
        return MPI_BOTTOM;
    if (buf == epmpi_f_in_place)
        return MPI_IN_PLACE;
    return buf;
}

/* Weights of a distributed graph: the host's Fortran MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY
 * become C's. */
extern void *epmpi_f_unweighted, *epmpi_f_weights_empty;

static inline int *epmpi_f_weights(MPI_Fint *weights)
{
    if ((void *)weights == epmpi_f_unweighted)
        return MPI_UNWEIGHTED;
    if ((void *)weights == epmpi_f_weights_empty)
        return MPI_WEIGHTS_EMPTY;
    return weights;
}

static inline int epmpi_f_status_ignored(const MPI_Fint *status)
{
    return (const void *)status == epmpi_f_status_ignore;
}

static inline int epmpi_f_statuses_ignored(const MPI_Fint *statuses)
{
    return (const void *)statuses == epmpi_f_statuses_ignore;
}

#endif
