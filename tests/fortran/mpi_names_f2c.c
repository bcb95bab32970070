/*
 * mpi_names_f2c.c: the C side of tests/fortran/mpi_names.f90, as a C library called from a
 * Fortran model sees an endpoint communicator: MPI_Comm_f2c of the Fortran handle works in the
 * layer's MPI_ calls, and MPI_Comm_c2f gives the Fortran handle back.
 */
#include <mpi.h>

/* Called from Fortran (every argument by address): the size and rank of the communicator whose
 * Fortran handle is `*fcomm`, through its C handle; `*same` is 1 when c2f gives `*fcomm` back. */
void c_comm_rank_size_(const MPI_Fint *fcomm, MPI_Fint *rank, MPI_Fint *size, MPI_Fint *same)
{
    MPI_Comm c = MPI_Comm_f2c(*fcomm);
    int r = -1, n = -1;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    *rank = r;
    *size = n;
    *same = MPI_Comm_c2f(c) == *fcomm;
}
