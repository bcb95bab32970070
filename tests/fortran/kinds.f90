!> Default kinds at the user's side: this program is built twice, as it is and with
!> -fdefault-integer-8 -fdefault-real-8 (the module too). Handles, ranks, counts, tags,
!> statuses, request arrays, indices and error codes are default integers, flags default
!> logicals, data default integers and reals (MPI_INTEGER4/8, MPI_REAL4/8 chosen by size).
!> With 8-byte integers, values outside the C int range must be refused, never truncated
!> into valid ones.
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program kinds
  use, intrinsic :: iso_fortran_env, only: int64, output_unit
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  implicit none
  integer :: world_rank, world_size, n, ierr
  integer, allocatable :: handles(:)

  call test_init(world_rank, world_size)
  n = test_count_for(world_rank)
  if (world_rank == 0) write (output_unit, '(a,i0,a,i0,a)') 'kinds: default integer ', storage_size(0), &
    ' bits, default real ', storage_size(1.0), ' bits'
  call check(storage_size(EP_ANY_SOURCE) == storage_size(0) .and. storage_size(EP_STATUS_IGNORE) == storage_size(0), &
    'constants and EP_STATUS_IGNORE have the default integer kind')
  allocate(handles(max(n, 1)))
  call ep_comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, handles, ierr)
  call check_ok(ierr, 'ep_comm_create_endpoints')
  if (n > 0) then
    !$omp parallel num_threads(n) default(shared)
    call endpoint_main(handles(omp_get_thread_num() + 1), int(omp_get_thread_num()))
    !$omp end parallel
  else
    ! The other processes' threads create a second communicator (team form): take part.
    call ep_comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, handles, ierr)
    call check_ok(ierr, 'creation with no endpoint')
  end if
  call test_finish('kinds', world_rank)

contains

  subroutine endpoint_main(comm_in, index)
    integer, intent(in) :: comm_in, index
    integer :: comm, team, me, size, left, right, ierr, k, idx, outcount, count, cmp
    integer :: r(3), indices(3), st(EP_STATUS_SIZE), sts(EP_STATUS_SIZE, 3)
    integer, asynchronous :: ivals(5), ivals_in(5)
    real, asynchronous :: rvals(3), rvals_in(3)
    integer(MPI_ADDRESS_KIND) :: value
    logical :: flag
    integer(int64) :: wide64
    integer :: wide
    real :: t0, t1

    comm = comm_in
    call test_ring(comm, me, size, left, right)
    call check(me == test_expected_rank(world_rank, index), 'rank')

    ! The team form gives the same ranks.
    call ep_comm_create_endpoint(MPI_COMM_WORLD, n, index, team, ierr)
    call check_ok(ierr, 'team form')
    call ep_comm_rank(team, k, ierr)
    call ep_comm_compare(comm, team, cmp, ierr)
    call check(k == me .and. cmp == EP_UNEQUAL, 'team form rank and identity')

    ! Default integers and reals as data, blocking and nonblocking.
    ivals = [me, -me, 3 * me, 0, huge(0)]
    ivals_in = 0
    call ep_send(ivals, 5, default_integer_type(), right, 1, comm, ierr)
    call check_ok(ierr, 'send integers')
    call ep_recv(ivals_in, 5, default_integer_type(), left, 1, comm, st, ierr)
    call check(ierr == EP_SUCCESS .and. all(ivals_in == [left, -left, 3 * left, 0, huge(0)]), 'integers received')
    call ep_get_count(st, default_integer_type(), count, ierr)
    call check(count == 5 .and. st(EP_SOURCE) == left .and. st(EP_TAG) == 1, 'status of default integers')

    rvals = [0.25 + me, -1.5, real(huge(0.0))]
    rvals_in = 0
    call ep_irecv(rvals_in, 3, default_real_type(), left, 2, comm, r(1), ierr)
    call ep_isend(rvals, 3, default_real_type(), right, 2, comm, r(2), ierr)
    call ep_irecv(ivals_in, 5, default_integer_type(), EP_ANY_SOURCE, 3, comm, r(3), ierr)
    call ep_send(ivals, 5, default_integer_type(), right, 3, comm, ierr)
    call ep_waitall(3, r, sts, ierr)
    call check(ierr == EP_SUCCESS .and. all(r == EP_REQUEST_NULL), 'waitall on default integers')
    call check(all(rvals_in == [0.25 + left, -1.5, real(huge(0.0))]), 'reals received')
    call check(sts(EP_SOURCE, 1) == left .and. sts(EP_TAG, 1) == 2 .and. sts(EP_SOURCE, 3) == left .and. &
      sts(EP_TAG, 3) == 3, 'statuses of waitall')

    ! 1-based indices in default integers.
    r(1) = EP_REQUEST_NULL
    call ep_irecv(ivals_in, 5, default_integer_type(), left, 4, comm, r(2), ierr)
    r(3) = EP_REQUEST_NULL
    call ep_send(ivals, 5, default_integer_type(), right, 4, comm, ierr)
    call ep_waitany(3, r, idx, st, ierr)
    call check(ierr == EP_SUCCESS .and. idx == 2, 'waitany index')
    call ep_irecv(ivals_in, 5, default_integer_type(), left, 5, comm, r(3), ierr)
    call ep_send(ivals, 5, default_integer_type(), right, 5, comm, ierr)
    outcount = 0
    do while (outcount == 0)
      call ep_testsome(3, r, outcount, indices, sts, ierr)
    end do
    call check(outcount == 1 .and. indices(1) == 3 .and. sts(EP_TAG, 1) == 5, 'testsome index')

    ! Flags are default logicals; attribute values MPI_ADDRESS_KIND.
    call ep_iprobe(EP_ANY_SOURCE, 77, comm, flag, st, ierr)
    call check(ierr == EP_SUCCESS .and. .not. flag, 'iprobe flag')
    call ep_comm_get_attr(comm, EP_TAG_UB, value, flag, ierr)
    call check(flag .and. value == EP_TAG_UB_VALUE, 'tag ub attribute')
    call ep_send(ivals, 1, default_integer_type(), right, EP_TAG_UB_VALUE, comm, ierr)
    call ep_recv(ivals_in, 1, default_integer_type(), left, EP_TAG_UB_VALUE, comm, st, ierr)
    call check(ierr == EP_SUCCESS .and. st(EP_TAG) == EP_TAG_UB_VALUE, 'largest tag')

    ! Error codes are default integers.
    call ep_send(ivals, 1, default_integer_type(), size, 0, comm, ierr)
    call check_class(ierr, EP_ERR_RANK, 'rank = size')

    ! With 8-byte integers: values beyond the C int range are refused, not truncated.
    if (storage_size(0) == 64) then
      wide64 = 2_int64**32 + 5_int64
      wide = int(wide64, kind(wide))
      call ep_send(ivals, 1, default_integer_type(), right, wide, comm, ierr)
      call check_class(ierr, EP_ERR_TAG, 'tag 2**32+5')
      call ep_send(ivals, 1, default_integer_type(), right, huge(0), comm, ierr)
      call check_class(ierr, EP_ERR_TAG, 'tag huge(0)')
      wide64 = 2_int64**32 + 1_int64
      wide = int(wide64, kind(wide))
      call ep_send(ivals, wide, default_integer_type(), right, 0, comm, ierr)
      call check_class(ierr, EP_ERR_COUNT, 'count 2**32+1')
      wide64 = 2_int64**32 + int(right, int64)
      wide = int(wide64, kind(wide))
      call ep_send(ivals, 1, default_integer_type(), wide, 0, comm, ierr)
      call check_class(ierr, EP_ERR_RANK, 'rank 2**32+right')
      wide64 = 2_int64**32 + int(comm, int64)
      wide = int(wide64, kind(wide))
      call ep_send(ivals, 1, default_integer_type(), right, 0, wide, ierr)
      call check_class(ierr, EP_ERR_COMM, 'handle 2**32+comm')
    end if

    t0 = real(ep_wtime())
    t1 = real(ep_wtime())
    call check(t1 >= t0, 'ep_wtime into a default real')

    call test_barrier(comm)
    call test_barrier(team)
    call ep_comm_free(team, ierr)
    call check(ierr == EP_SUCCESS .and. team == EP_COMM_NULL, 'free team')
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'free')
  end subroutine endpoint_main

end program kinds
