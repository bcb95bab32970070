! fortran_sentinels.f90: hands the host's Fortran sentinels (MPI_BOTTOM, MPI_IN_PLACE,
! MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY), MPI_STATUS_SIZE
! and the Fortran values of the predefined attribute keys of communicators and windows (MPICH's
! differ from its C values) to the entry points of
! libepmpi_mpi_f (fortran_calls.c). Compiled with the host's `use mpi`, so the addresses are
! those of the objects programs pass, whatever names the host gives them. The receiver is an
! external procedure (every argument by address), as the host's own entry points are.
subroutine epmpi_f_sentinels()
    use mpi
    implicit none
    external :: epmpi_f_record_sentinels
    integer :: keys(7), win_keys(5)
    keys = [MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE]
    win_keys = [MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL]
    call epmpi_f_record_sentinels(MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_UNWEIGHTED, &
                                  MPI_WEIGHTS_EMPTY, MPI_STATUS_SIZE, keys, win_keys)
end subroutine epmpi_f_sentinels
