! epmpi_mpix_f08.f90: module epmpi_mpix_f08, the endpoint creation calls of the standard-names
! layer for programs that `use mpi_f08` (libepmpi_mpi_f): the calls of epmpi_mpixf.h with
! TYPE(MPI_Comm) and TYPE(MPI_Info) handles and an optional ierror, as every mpi_f08 call.
!
!   MPIX_Comm_create_endpoints(parent_comm, my_num_ep, info, out_comm_handles, ierror):
!     the MPI Forum proposal's call, one communicator per endpoint of this process.
!   MPIX_Threadcomm_init(comm, num_threads, newthreadcomm, ierror), MPIX_Threadcomm_start,
!   MPIX_Threadcomm_finish, MPIX_Threadcomm_free: MPICH's thread communicators; between start
!   and finish each of the num_threads threads that called start has its own rank in the one
!   handle (see README, "Standard MPI names on endpoints").
!
! Each passes the handles' MPI_VAL (the `use mpi` handle) to the `use mpi` entry point of
! libepmpi_mpi_f (fortran_calls.c), named through bind(C) so that the module's own names stay free.
module epmpi_mpix_f08
    use, intrinsic :: iso_c_binding, only: c_int
    use mpi_f08, only: MPI_Comm, MPI_Info
    implicit none
    private
    public :: MPIX_Comm_create_endpoints, MPIX_Threadcomm_init, MPIX_Threadcomm_start, MPIX_Threadcomm_finish, &
              MPIX_Threadcomm_free

    interface
        subroutine f_create_endpoints(parent_comm, my_num_ep, info, out_comm_handles, ierror) &
                bind(C, name='mpix_comm_create_endpoints_')
            import :: c_int
            integer(c_int), intent(in) :: parent_comm, my_num_ep, info
            integer(c_int), intent(out) :: out_comm_handles(*), ierror
        end subroutine f_create_endpoints
        subroutine f_threadcomm_init(comm, num_threads, newthreadcomm, ierror) bind(C, name='mpix_threadcomm_init_')
            import :: c_int
            integer(c_int), intent(in) :: comm, num_threads
            integer(c_int), intent(out) :: newthreadcomm, ierror
        end subroutine f_threadcomm_init
        subroutine f_threadcomm_start(threadcomm, ierror) bind(C, name='mpix_threadcomm_start_')
            import :: c_int
            integer(c_int), intent(in) :: threadcomm
            integer(c_int), intent(out) :: ierror
        end subroutine f_threadcomm_start
        subroutine f_threadcomm_finish(threadcomm, ierror) bind(C, name='mpix_threadcomm_finish_')
            import :: c_int
            integer(c_int), intent(in) :: threadcomm
            integer(c_int), intent(out) :: ierror
        end subroutine f_threadcomm_finish
        subroutine f_threadcomm_free(threadcomm, ierror) bind(C, name='mpix_threadcomm_free_')
            import :: c_int
            integer(c_int), intent(inout) :: threadcomm
            integer(c_int), intent(out) :: ierror
        end subroutine f_threadcomm_free
    end interface

contains

    subroutine MPIX_Comm_create_endpoints(parent_comm, my_num_ep, info, out_comm_handles, ierror)
        type(MPI_Comm), intent(in) :: parent_comm
        integer, intent(in) :: my_num_ep
        type(MPI_Info), intent(in) :: info
        type(MPI_Comm), intent(out) :: out_comm_handles(*)
        integer, optional, intent(out) :: ierror
        integer :: handles(max(my_num_ep, 1)), rc
        call f_create_endpoints(parent_comm%MPI_VAL, my_num_ep, info%MPI_VAL, handles, rc)
        if (rc == 0 .and. my_num_ep > 0) out_comm_handles(1:my_num_ep)%MPI_VAL = handles(1:my_num_ep)
        if (present(ierror)) ierror = rc
    end subroutine MPIX_Comm_create_endpoints

    subroutine MPIX_Threadcomm_init(comm, num_threads, newthreadcomm, ierror)
        type(MPI_Comm), intent(in) :: comm
        integer, intent(in) :: num_threads
        type(MPI_Comm), intent(out) :: newthreadcomm
        integer, optional, intent(out) :: ierror
        integer :: rc
        call f_threadcomm_init(comm%MPI_VAL, num_threads, newthreadcomm%MPI_VAL, rc)
        if (present(ierror)) ierror = rc
    end subroutine MPIX_Threadcomm_init

    subroutine MPIX_Threadcomm_start(threadcomm, ierror)
        type(MPI_Comm), intent(in) :: threadcomm
        integer, optional, intent(out) :: ierror
        integer :: rc
        call f_threadcomm_start(threadcomm%MPI_VAL, rc)
        if (present(ierror)) ierror = rc
    end subroutine MPIX_Threadcomm_start

    subroutine MPIX_Threadcomm_finish(threadcomm, ierror)
        type(MPI_Comm), intent(in) :: threadcomm
        integer, optional, intent(out) :: ierror
        integer :: rc
        call f_threadcomm_finish(threadcomm%MPI_VAL, rc)
        if (present(ierror)) ierror = rc
    end subroutine MPIX_Threadcomm_finish

    subroutine MPIX_Threadcomm_free(threadcomm, ierror)
        type(MPI_Comm), intent(inout) :: threadcomm
        integer, optional, intent(out) :: ierror
        integer :: rc
        call f_threadcomm_free(threadcomm%MPI_VAL, rc)
        if (present(ierror)) ierror = rc
    end subroutine MPIX_Threadcomm_free
end module epmpi_mpix_f08
