/*
 * f08_calls.c: the `use mpi_f08` entry points written by hand (initialisation, at the thread
 * level the layer needs, as fortran_calls.c does for `use mpi`) and the records
 * f08_runtime.h reads: the host's f08 sentinels and the address of a descriptor's buffer.
 * The other entry points are generated (generate_f08.py, f08_names.c).
 */
#include "f08_runtime.h"

#include <ISO_Fortran_binding.h>
#include <string.h>

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
void epmpi_f08_cdesc_address(CFI_cdesc_t *buf, void **address, int *contiguous, size_t *bytes);
void epmpi_f08_cdesc_address(CFI_cdesc_t *buf, void **address, int *contiguous, size_t *bytes)
{
    size_t n = buf->elem_len;
    for (int d = 0; d < buf->rank; d++)
        n *= buf->dim[d].extent > 0 ? (size_t)buf->dim[d].extent : 0;
    *address = buf->base_addr;
    *bytes = n;
    *contiguous = buf->rank == 0 || buf->base_addr == NULL || CFI_is_contiguous(buf);
}

/* The elements of a descriptor's array to (to_temp) or from a contiguous temporary, in array
 * element order (the first dimension varies fastest), each elem_len bytes at the byte strides
 * (sm) of its dimensions. */
void epmpi_f08_cdesc_copy(CFI_cdesc_t *buf, void **temp, const int *to_temp);
void epmpi_f08_cdesc_copy(CFI_cdesc_t *buf, void **temp, const int *to_temp)
{
    CFI_index_t index[CFI_MAX_RANK] = {0};
    char *t = *temp;
    for (int d = 0; d < buf->rank; d++)
        if (buf->dim[d].extent <= 0)
            return;
    for (;;) {
        char *e = buf->base_addr;
        for (int d = 0; d < buf->rank; d++)
            e += index[d] * buf->dim[d].sm;
        if (*to_temp)
            memcpy(t, e, buf->elem_len);
        else
            memcpy(e, t, buf->elem_len);
        t += buf->elem_len;
        int d = 0;
        while (d < buf->rank && ++index[d] == buf->dim[d].extent)
            index[d++] = 0;
        if (d == buf->rank)
            return;
    }
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
