/*
 * fortran_handles.c: MPI_Comm_f2c, MPI_Comm_c2f and the other handle conversions of the kinds
 * EPMPI issues, for mixed-language programs (a Fortran model handing an endpoint communicator to
 * a C or C++ library, which converts it with MPI_Comm_f2c). Under MPICH they are macros (a cast:
 * its Fortran handles are its C handles, and the layer's encodings agree, fortran_runtime.h), so
 * there is nothing to define; under Open MPI they are functions, defined here before the host's
 * in the link order. A host handle costs one range test more than the host's own conversion.
 */
#include "fortran_runtime.h"

#if EPMPI_HANDLES_ARE_POINTERS
#define EPMPI_DEFINE_CONVERSIONS(name, mtype, Kind)                                                  \
    mtype MPI_##Kind##_f2c(MPI_Fint f)                                                               \
    {                                                                                                \
        return epmpi_f2c_##name(f);                                                                  \
    }                                                                                                \
    MPI_Fint MPI_##Kind##_c2f(mtype c)                                                               \
    {                                                                                                \
        return epmpi_c2f_##name(c);                                                                  \
    }

EPMPI_DEFINE_CONVERSIONS(comm, MPI_Comm, Comm)
EPMPI_DEFINE_CONVERSIONS(request, MPI_Request, Request)
EPMPI_DEFINE_CONVERSIONS(message, MPI_Message, Message)
EPMPI_DEFINE_CONVERSIONS(win, MPI_Win, Win)
EPMPI_DEFINE_CONVERSIONS(group, MPI_Group, Group)
#endif
