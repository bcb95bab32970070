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
!   EPMPI's other extensions, as in C (epmpi_mpix.h): mpix_comm_create_endpoint (the team
!   form), mpix_comm_local_info, mpix_comm_get_host_comm, mpix_get_library_version,
!   mpix_debug_live_handles/objects/windows; mpix_isendrecv, mpix_isendrecv_replace and
!   mpix_comm_idup_with_info (MPI 4.0's, which Open MPI 4.1 lacks; the first two take choice
!   buffers, so they are not declared here, as MPICH's `use mpi` leaves such routines); the
!   attribute key of an endpoints communicator's kind, mpix_comm_flavor_keyval()
!   (MPIX_COMM_FLAVOR in C), whose value is MPIX_FLAVOR_ENDPOINTS on one; and
!   MPIX_COMM_TYPE_PROCESS, the MPI_Comm_split_type that splits by process; and endpoint teams:
!   mpix_endpoint_team_create(team_id, team_size, team, ierror), mpix_endpoint_join(team,
!   ierror), mpix_endpoint_leave(team, ierror), mpix_endpoint_team_destroy(team, ierror), with
!   MPIX_ENDPOINT_TEAM_NULL the null team (docs/teams.md).
integer, parameter :: MPIX_FLAVOR_ENDPOINTS = 1, MPIX_COMM_TYPE_PROCESS = 17744, MPIX_ENDPOINT_TEAM_NULL = 0
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
    subroutine mpix_comm_create_endpoint(parent_comm, my_num_ep, index, newcomm, ierror)
        integer, intent(in) :: parent_comm, my_num_ep, index
        integer, intent(out) :: newcomm, ierror
    end subroutine mpix_comm_create_endpoint
    subroutine mpix_comm_local_info(comm, local_index, local_count, process_rank, ierror)
        integer, intent(in) :: comm
        integer, intent(out) :: local_index, local_count, process_rank, ierror
    end subroutine mpix_comm_local_info
    subroutine mpix_comm_get_host_comm(comm, host_comm, ierror)
        integer, intent(in) :: comm
        integer, intent(out) :: host_comm, ierror
    end subroutine mpix_comm_get_host_comm
    subroutine mpix_get_library_version(version, resultlen, ierror)
        character(len=*), intent(out) :: version
        integer, intent(out) :: resultlen, ierror
    end subroutine mpix_get_library_version
    subroutine mpix_debug_live_handles(comms, requests, messages, ierror)
        integer, intent(out) :: comms, requests, messages, ierror
    end subroutine mpix_debug_live_handles
    subroutine mpix_debug_live_objects(comm_states, requests, win_states, ierror)
        integer, intent(out) :: comm_states, requests, win_states, ierror
    end subroutine mpix_debug_live_objects
    subroutine mpix_debug_live_windows(windows, ierror)
        integer, intent(out) :: windows, ierror
    end subroutine mpix_debug_live_windows
    subroutine mpix_comm_idup_with_info(comm, info, newcomm, request, ierror)
        integer, intent(in) :: comm, info
        integer, intent(out) :: newcomm, request, ierror
    end subroutine mpix_comm_idup_with_info
    integer function mpix_comm_flavor_keyval()
    end function mpix_comm_flavor_keyval
    subroutine mpix_endpoint_team_create(team_id, team_size, team, ierror)
        integer, intent(in) :: team_id, team_size
        integer, intent(out) :: team, ierror
    end subroutine mpix_endpoint_team_create
    subroutine mpix_endpoint_join(team, ierror)
        integer, intent(in) :: team
        integer, intent(out) :: ierror
    end subroutine mpix_endpoint_join
    subroutine mpix_endpoint_leave(team, ierror)
        integer, intent(in) :: team
        integer, intent(out) :: ierror
    end subroutine mpix_endpoint_leave
    subroutine mpix_endpoint_team_destroy(team, ierror)
        integer, intent(inout) :: team
        integer, intent(out) :: ierror
    end subroutine mpix_endpoint_team_destroy
end interface
