! epmpi_mpixf.h: the endpoint creation calls of the standard-names layer for Fortran programs
! that `use mpi` or include mpif.h (libepmpi_mpi_f; include this after either). Handles are
! default INTEGERs, as every handle of `use mpi`; ierror is required.
!
!   mpix_comm_create_endpoints(parent_comm, my_num_ep, info, out_comm_handles, ierror):
!     the MPI Forum proposal's call, one communicator handle per endpoint of this process.
!   mpix_threadcomm_init(comm, num_threads, newthreadcomm, ierror), mpix_threadcomm_start,
!   mpix_threadcomm_finish, mpix_threadcomm_free: MPICH's thread communicators; between
!   start and finish each of the num_threads threads that called start has its own rank in
!   the one handle (see README, "Standard MPI names on endpoints").
interface
    subroutine mpix_comm_create_endpoints(parent_comm, my_num_ep, info, out_comm_handles, ierror)
        integer, intent(in) :: parent_comm, my_num_ep, info
        integer, intent(out) :: out_comm_handles(*), ierror
    end subroutine mpix_comm_create_endpoints
    subroutine mpix_threadcomm_init(comm, num_threads, newthreadcomm, ierror)
        integer, intent(in) :: comm, num_threads
        integer, intent(out) :: newthreadcomm, ierror
    end subroutine mpix_threadcomm_init
    subroutine mpix_threadcomm_start(threadcomm, ierror)
        integer, intent(in) :: threadcomm
        integer, intent(out) :: ierror
    end subroutine mpix_threadcomm_start
    subroutine mpix_threadcomm_finish(threadcomm, ierror)
        integer, intent(in) :: threadcomm
        integer, intent(out) :: ierror
    end subroutine mpix_threadcomm_finish
    subroutine mpix_threadcomm_free(threadcomm, ierror)
        integer, intent(inout) :: threadcomm
        integer, intent(out) :: ierror
    end subroutine mpix_threadcomm_free
end interface
