!> Creation of endpoints communicators from Fortran, both forms, with OpenMP threads as
!> endpoints: the array form (one call per process, handles handed to the threads of a
!> parallel region) and the team form (every thread calls with its index; here thread t
!> takes index n-1-t, so the index and not the thread number names the endpoint). Queries,
!> dup, compare, free, the host communicator under it; a process may have no endpoint (shape
!> 3x(2,0,1)).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program create
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  implicit none
  integer :: world_rank, world_size, n, ierr, live, requests, messages
  integer, allocatable :: handles(:)
  integer :: none(1)

  call test_init(world_rank, world_size)
  n = test_count_for(world_rank)

  ! ---- array form
  allocate(handles(max(n, 1)))
  call ep_comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, handles, ierr)
  call check_ok(ierr, 'ep_comm_create_endpoints')
  if (n > 0) then
    !$omp parallel num_threads(n) default(shared)
    call array_form_endpoint(handles(omp_get_thread_num() + 1), int(omp_get_thread_num()))
    !$omp end parallel
  end if

  ! ---- team form, twice: two different communicators with the same ranks
  if (n == 0) then
    call ep_comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, none, ierr)
    call check_ok(ierr, 'create with 0 endpoints (1)')
    call ep_comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, none, ierr)
    call check_ok(ierr, 'create with 0 endpoints (2)')
  else
    !$omp parallel num_threads(n) default(shared)
    call team_form_endpoint(n - 1 - int(omp_get_thread_num()))
    !$omp end parallel
  end if

  call ep_debug_live_handles(live, requests, messages, ierr)
  call check_ok(ierr, 'ep_debug_live_handles')
  call check(live == 0 .and. requests == 0 .and. messages == 0, 'live handles left at the end')
  call test_finish('create', world_rank)

contains

  !> One endpoint of the array-form communicator, on OpenMP thread `index`.
  subroutine array_form_endpoint(comm_in, index)
    integer, intent(in) :: comm_in, index
    integer :: comm, dup, me, size, local_index, local_count, process_rank, result, ierr
    integer :: left, right, x, y, version_length, status(EP_STATUS_SIZE), rsize
    integer :: host_comm, host_rank, host_size, procs_with_endpoints
    integer(MPI_ADDRESS_KIND) :: value
    logical :: flag
    character(len=EP_MAX_ERROR_STRING) :: version
    double precision :: t0, t1

    call check(omp_get_num_threads() == n, 'parallel region has the asked number of threads')
    comm = comm_in
    call ep_comm_rank(comm, me, ierr)
    call check_ok(ierr, 'ep_comm_rank')
    call ep_comm_size(comm, size, ierr)
    call check_ok(ierr, 'ep_comm_size')
    call check(me == test_expected_rank(world_rank, index), 'array form rank')
    call ep_comm_local_info(comm, local_index, local_count, process_rank, ierr)
    call check_ok(ierr, 'ep_comm_local_info')
    call check(local_index == index .and. local_count == n, 'local info')
    ! The host communicator under it: one rank per process with endpoints.
    call ep_comm_get_host_comm(comm, host_comm, ierr)
    call check_ok(ierr, 'ep_comm_get_host_comm')
    call MPI_Comm_rank(host_comm, host_rank, ierr)
    call MPI_Comm_size(host_comm, host_size, ierr)
    procs_with_endpoints = 0
    do x = 0, world_size - 1
      if (test_count_for(x) > 0) procs_with_endpoints = procs_with_endpoints + 1
    end do
    call check(ierr == MPI_SUCCESS .and. host_rank == process_rank .and. host_size == procs_with_endpoints, &
      'host communicator')

    call ep_comm_get_attr(comm, EP_TAG_UB, value, flag, ierr)
    call check_ok(ierr, 'get_attr tag_ub')
    call check(flag .and. value == EP_TAG_UB_VALUE, 'EP_TAG_UB attribute')
    call ep_comm_get_attr(comm, EP_COMM_FLAVOR, value, flag, ierr)
    call check(flag .and. value == EP_FLAVOR_ENDPOINTS, 'EP_COMM_FLAVOR attribute')
    call ep_comm_test_inter(comm, flag, ierr)
    call check_ok(ierr, 'ep_comm_test_inter')
    call check(.not. flag, 'intracommunicator reported inter')
    call ep_comm_remote_size(comm, rsize, ierr)
    call check_class(ierr, EP_ERR_COMM, 'remote size of an intracommunicator')

    call ep_get_library_version(version, version_length, ierr)
    call check_ok(ierr, 'ep_get_library_version')
    call check(version(1:6) == 'EPMPI ' .and. version_length == len_trim(version), 'version string')
    t0 = ep_wtime()
    t1 = t0
    do while (t1 == t0)
      t1 = ep_wtime()
    end do
    call check(t1 > t0 .and. t1 - t0 < 1.0d0, 'ep_wtime advances')

    call ep_comm_compare(comm, comm, result, ierr)
    call check(ierr == EP_SUCCESS .and. result == EP_IDENT, 'compare with itself')
    call ep_comm_dup(comm, dup, ierr)
    call check_ok(ierr, 'ep_comm_dup')
    call ep_comm_compare(comm, dup, result, ierr)
    call check(result == EP_CONGRUENT, 'compare with a dup')
    call ep_comm_rank(dup, x, ierr)
    call check(x == me, 'dup keeps the rank')

    ! Contexts differ: a message on the dup is not received on the original.
    right = mod(me + 1, size)
    left = mod(me - 1 + size, size)
    x = me
    call ep_send(x, 1, default_integer_type(), right, 5, dup, ierr)
    call check_ok(ierr, 'send on dup')
    call ep_send(x, 1, default_integer_type(), right, 5, comm, ierr)
    call check_ok(ierr, 'send on original')
    y = -1
    call ep_recv(y, 1, default_integer_type(), EP_ANY_SOURCE, EP_ANY_TAG, comm, status, ierr)
    call check(ierr == EP_SUCCESS .and. y == left .and. status(EP_SOURCE) == left, 'original receives its own')
    call ep_recv(y, 1, default_integer_type(), left, 5, dup, status, ierr)
    call check(ierr == EP_SUCCESS .and. y == left, 'dup receives its own')

    call test_barrier(dup)
    call ep_comm_free(dup, ierr)
    call check(ierr == EP_SUCCESS .and. dup == EP_COMM_NULL, 'free nulls the handle')
    call ep_comm_free(dup, ierr)
    call check_class(ierr, EP_ERR_COMM, 'free of EP_COMM_NULL')
    call test_barrier(comm)
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'free array-form endpoint')
  end subroutine array_form_endpoint

  !> One thread of the team form, taking endpoint `index`.
  subroutine team_form_endpoint(index)
    integer, intent(in) :: index
    integer :: a, b, ra, rb, size, local_index, local_count, process_rank, result, ierr
    integer :: left, right, x, y, bad

    call ep_comm_create_endpoint(MPI_COMM_WORLD, n, index, a, ierr)
    call check_ok(ierr, 'ep_comm_create_endpoint (a)')
    call ep_comm_create_endpoint(MPI_COMM_WORLD, n, index, b, ierr)
    call check_ok(ierr, 'ep_comm_create_endpoint (b)')
    call ep_comm_rank(a, ra, ierr)
    call ep_comm_rank(b, rb, ierr)
    call ep_comm_size(a, size, ierr)
    call ep_comm_local_info(a, local_index, local_count, process_rank, ierr)
    call check(ra == test_expected_rank(world_rank, index) .and. rb == ra .and. local_index == index, &
      'team form rank follows the index')
    call ep_comm_compare(a, b, result, ierr)
    call check(result == EP_UNEQUAL, 'two creations are different communicators')

    ! Ring on both, crossing: messages on `a` stay on `a`.
    right = mod(ra + 1, size)
    left = mod(ra - 1 + size, size)
    x = 1000 + ra
    call ep_send(x, 1, default_integer_type(), right, 1, b, ierr)
    call check_ok(ierr, 'ring send on b')
    x = ra
    call ep_send(x, 1, default_integer_type(), right, 1, a, ierr)
    call check_ok(ierr, 'ring send on a')
    call ep_recv(y, 1, default_integer_type(), left, 1, a, EP_STATUS_IGNORE, ierr)
    call check(ierr == EP_SUCCESS .and. y == left, 'ring on a')
    call ep_recv(y, 1, default_integer_type(), left, 1, b, EP_STATUS_IGNORE, ierr)
    call check(ierr == EP_SUCCESS .and. y == 1000 + left, 'ring on b')
    call test_barrier(a)
    call test_barrier(b)

    ! Bad team arguments come back through ierror.
    call ep_comm_create_endpoint(MPI_COMM_WORLD, n, n, bad, ierr)
    call check_class(ierr, EP_ERR_ARG, 'team index n')
    call ep_comm_create_endpoint(MPI_COMM_WORLD, n, -1, bad, ierr)
    call check_class(ierr, EP_ERR_ARG, 'team index -1')

    call ep_comm_free(a, ierr)
    call check_ok(ierr, 'free a')
    call ep_comm_free(b, ierr)
    call check_ok(ierr, 'free b')
  end subroutine team_form_endpoint

end program create
