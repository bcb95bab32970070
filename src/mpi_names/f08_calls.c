/*
 * f08_calls.c: the `use mpi_f08` entry points written by hand (initialisation, at the thread
 * level the layer needs, as fortran_calls.c does for `use mpi`) and the records
 * f08_runtime.h reads: the host's f08 sentinels and the address of a descriptor's buffer.
 * The other entry points are generated (generate_f08.py, f08_names.c).
 */
#include "f08_runtime.h"

#include <ISO_Fortran_binding.h>

void *epmpi_f08_bottom, *epmpi_f08_in_place, *epmpi_f08_status_ignore, *epmpi_f08_statuses_ignore;

/* Called by f08_sentinels.f90 with the host's own f08 sentinel objects. */
void epmpi_f08_record_sentinels_(void *bottom, void *in_place, void *status_ignore, void *statuses_ignore);
void epmpi_f08_record_sentinels_(void *bottom, void *in_place, void *status_ignore, void *statuses_ignore)
{
    epmpi_f08_bottom = bottom;
    epmpi_f08_in_place = in_place;
    epmpi_f08_status_ignore = status_ignore;
    epmpi_f08_statuses_ignore = statuses_ignore;
}

void epmpi_f08_sentinels_(void);

/* Before main, as fortran_calls.c records the `use mpi` ones (only addresses are passed). */
__attribute__((constructor)) static void record_f08_sentinels(void)
{
    epmpi_f08_sentinels_();
}

/* Called by f08_sentinels.f90 with the standard descriptor of an assumed-rank buffer. A scalar
 * or a contiguous array is its base address; an array section with gaps is not contiguous. */
void epmpi_f08_cdesc_address(CFI_cdesc_t *buf, void **address, int *contiguous);
void epmpi_f08_cdesc_address(CFI_cdesc_t *buf, void **address, int *contiguous)
{
    *address = buf->base_addr;
    *contiguous = buf->rank == 0 || buf->base_addr == NULL || CFI_is_contiguous(buf);
}

/* Initialisation through the host's own f08 entry points (which set up its f08 binding). */
void EPMPI_PF08(init_thread)(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
void EPMPI_F08(init)(MPI_Fint *ierror);
void EPMPI_F08(init_thread)(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);

void EPMPI_F08(init)(MPI_Fint *ierror)
{
    MPI_Fint level = epmpi_host_thread_level(MPI_THREAD_SINGLE), provided;
    EPMPI_PF08(init_thread)(&level, &provided, ierror);
}

void EPMPI_F08(init_thread)(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    MPI_Fint level = epmpi_host_thread_level(*required);
    EPMPI_PF08(init_thread)(&level, provided, ierror);
}
