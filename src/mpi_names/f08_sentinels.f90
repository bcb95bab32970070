! f08_sentinels.f90: hands the host's `use mpi_f08` sentinels (MPI_BOTTOM, MPI_IN_PLACE,
! MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE) to the entry points of libepmpi_mpi_f
! (f08_calls.c), and reads the address of an assumed-rank choice buffer for them. Compiled with
! the host's `use mpi_f08`, so the addresses are those of the objects programs pass.
subroutine epmpi_f08_sentinels()
    use mpi_f08, only: MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE
    implicit none
    external :: epmpi_f08_record_sentinels
    call epmpi_f08_record_sentinels(MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE)
end subroutine epmpi_f08_sentinels

! Called from C with the descriptor a program passed for an assumed-rank buffer (MPICH's
! MPI_Send_f08ts and the others): these routines take it as they do, and the bind(C) call hands
! it on as the standard C descriptor (ISO_Fortran_binding.h) that f08_calls.c reads.
subroutine epmpi_f08_descriptor_address(buf, address, contiguous, bytes)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_size_t
    implicit none
    type(*), dimension(..), intent(in) :: buf
    type(c_ptr), intent(out) :: address
    integer(c_int), intent(out) :: contiguous
    integer(c_size_t), intent(out) :: bytes
    interface
        subroutine epmpi_f08_cdesc_address(buf, address, contiguous, bytes) bind(C)
            import :: c_ptr, c_int, c_size_t
            type(*), dimension(..), intent(in) :: buf
            type(c_ptr), intent(out) :: address
            integer(c_int), intent(out) :: contiguous
            integer(c_size_t), intent(out) :: bytes
        end subroutine epmpi_f08_cdesc_address
    end interface
    call epmpi_f08_cdesc_address(buf, address, contiguous, bytes)
end subroutine epmpi_f08_descriptor_address

subroutine epmpi_f08_descriptor_copy(buf, temp, to_temp)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_int
    implicit none
    type(*), dimension(..), intent(inout) :: buf
    type(c_ptr), intent(in) :: temp
    integer(c_int), intent(in) :: to_temp
    interface
        subroutine epmpi_f08_cdesc_copy(buf, temp, to_temp) bind(C)
            import :: c_ptr, c_int
            type(*), dimension(..), intent(inout) :: buf
            type(c_ptr), intent(in) :: temp
            integer(c_int), intent(in) :: to_temp
        end subroutine epmpi_f08_cdesc_copy
    end interface
    call epmpi_f08_cdesc_copy(buf, temp, to_temp)
end subroutine epmpi_f08_descriptor_copy
