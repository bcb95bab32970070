!> Helpers shared by the Fortran test programs (the Fortran twin of tests/c/ep_test.h):
!> endpoint counts per process from the environment, checks that count failures instead of
!> stopping, a barrier made of point-to-point messages (so point-to-point tests do not depend
!> on the collectives), the end-of-run leak check, and the PASS/FAIL line the harness looks for.
!>
!> Shape: EPMPI_TEST_EPS="1,2,3" gives process p the (p mod 3)-th count; default 2.
!> Written for any default integer and real kind (the tests also run with
!> -fdefault-integer-8 -fdefault-real-8): host MPI calls use integer(mpik).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
module ep_test_support
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit
  use mpi
  use ep_mpi
  implicit none
  private

  !> Kind of the host's `use mpi` integers.
  integer, parameter, public :: mpik = kind(MPI_COMM_WORLD)
  !> Tag of the point-to-point barrier.
  integer, parameter :: barrier_tag = 2000000000

  !> Failed checks of this process (updated atomically by every thread).
  integer :: failures = 0

  public :: test_init, test_count_for, test_expected_rank, check, check_ok, check_class
  public :: test_barrier, test_ring, test_finish, default_integer_type, default_real_type, error_class

contains

  !> MPI_Init_thread at MPI_THREAD_MULTIPLE; EPMPI errors return (tests check the codes).
  subroutine test_init(world_rank, world_size)
    integer, intent(out) :: world_rank, world_size
    integer(mpik) :: provided, ierr, r, s
    integer :: rc
    call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
    if (provided /= MPI_THREAD_MULTIPLE) then
      write (error_unit, '(a)') 'host MPI lacks MPI_THREAD_MULTIPLE'
      call MPI_Abort(MPI_COMM_WORLD, 2_mpik, ierr)
    end if
    call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, s, ierr)
    world_rank = int(r)
    world_size = int(s)
#ifdef EP_TEST_MPI_NAMES
    ! The process default handler of endpoints is MPI_COMM_SELF's (errors tied to no
    ! communicator); null handles go to the host, which reports through MPI_COMM_WORLD's
    ! handler (Open MPI 4.1) or MPI_COMM_SELF's (MPICH 4.0): both must return.
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    rc = int(ierr)
#else
    call ep_comm_set_errhandler(EP_COMM_NULL, EP_ERRORS_RETURN, rc)
#endif
    call check_ok(rc, 'the process default error handler')
  end subroutine test_init

  !> Endpoint count of process `rank` (EPMPI_TEST_EPS, cycled; default 2).
  function test_count_for(rank) result(count)
    integer, intent(in) :: rank
    integer :: count
    character(len=256) :: spec
    integer :: counts(64), n, length, status, start, i
    call get_environment_variable('EPMPI_TEST_EPS', spec, length, status)
    if (status /= 0 .or. length == 0) then
      count = 2
      return
    end if
    n = 0
    start = 1
    do i = 1, length + 1
      if (i > length) then
        n = n + 1
        read (spec(start:length), *) counts(n)
      else if (spec(i:i) == ',') then
        n = n + 1
        read (spec(start:i - 1), *) counts(n)
        start = i + 1
      end if
    end do
    count = counts(mod(rank, n) + 1)
  end function test_count_for

  !> Rank of endpoint `index` of process `proc`, endpoints ranked by (process, index).
  function test_expected_rank(proc, index) result(rank)
    integer, intent(in) :: proc, index
    integer :: rank, p
    rank = index
    do p = 0, proc - 1
      rank = rank + test_count_for(p)
    end do
  end function test_expected_rank

  !> Counts a failure and prints `what` when `condition` is false.
  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      !$omp atomic
      failures = failures + 1
      write (error_unit, '(2a)') 'FAIL: ', what
    end if
  end subroutine check

  !> Checks that a call succeeded; prints its error message otherwise.
  subroutine check_ok(ierror, what)
    integer, intent(in) :: ierror
    character(len=*), intent(in) :: what
    character(len=EP_MAX_ERROR_STRING) :: message
    integer :: length, rc
    if (ierror /= EP_SUCCESS) then
      call ep_error_string(ierror, message, length, rc)
      call check(.false., what // ': ' // message(1:length))
    end if
  end subroutine check_ok

  !> The class of an error code (-1 for a code EPMPI does not know).
  function error_class(ierror) result(cls)
    integer, intent(in) :: ierror
    integer :: cls, rc
    call ep_error_class(ierror, cls, rc)
    if (rc /= EP_SUCCESS) cls = -1
  end function error_class

  !> Checks that `ierror` has class `expected`.
  subroutine check_class(ierror, expected, what)
    integer, intent(in) :: ierror, expected
    character(len=*), intent(in) :: what
    character(len=16) :: got
    write (got, '(i0)') error_class(ierror)
    call check(error_class(ierror) == expected, what // ': got class ' // trim(got))
  end subroutine check_class

  !> This endpoint's rank, the size, and its ring neighbours.
  subroutine test_ring(comm, me, size, left, right)
    integer, intent(in) :: comm
    integer, intent(out) :: me, size, left, right
    integer :: ierr
    call ep_comm_rank(comm, me, ierr)
    call ep_comm_size(comm, size, ierr)
    right = mod(me + 1, size)
    left = mod(me - 1 + size, size)
  end subroutine test_ring

  !> A barrier over every endpoint of `comm` made of sends and receives through rank 0.
  subroutine test_barrier(comm)
    integer, intent(in) :: comm
    integer :: me, size, i, token, ierr
    token = 0
    call ep_comm_rank(comm, me, ierr)
    call ep_comm_size(comm, size, ierr)
    if (me == 0) then
      do i = 1, size - 1
        call ep_recv(token, 1, default_integer_type(), EP_ANY_SOURCE, barrier_tag, comm, EP_STATUS_IGNORE, ierr)
        call check_ok(ierr, 'barrier receive')
      end do
      do i = 1, size - 1
        call ep_send(token, 1, default_integer_type(), i, barrier_tag, comm, ierr)
        call check_ok(ierr, 'barrier send')
      end do
    else
      call ep_send(token, 1, default_integer_type(), 0, barrier_tag, comm, ierr)
      call check_ok(ierr, 'barrier send')
      call ep_recv(token, 1, default_integer_type(), 0, barrier_tag, comm, EP_STATUS_IGNORE, ierr)
      call check_ok(ierr, 'barrier receive')
    end if
  end subroutine test_barrier

  !> The host datatype of a default integer (MPI_INTEGER4 or MPI_INTEGER8).
  function default_integer_type() result(datatype)
    integer(mpik) :: datatype
    if (storage_size(0) == 64) then
      datatype = MPI_INTEGER8
    else
      datatype = MPI_INTEGER4
    end if
  end function default_integer_type

  !> The host datatype of a default real (MPI_REAL4 or MPI_REAL8).
  function default_real_type() result(datatype)
    integer(mpik) :: datatype
    if (storage_size(1.0) == 64) then
      datatype = MPI_REAL8
    else
      datatype = MPI_REAL4
    end if
  end function default_real_type

  !> Checks that this process holds no EPMPI handle and no engine object any more (the
  !> Fortran twin of `ep_test_check_no_leak` in tests/c/ep_test.h): every test frees all it
  !> creates, so anything left is a leak, of the test or of the library.
  subroutine check_no_leak()
    integer :: comms, requests, messages, windows, comm_states, request_objects, win_states, ierr
    character(len=200) :: counts
    call ep_debug_live_handles(comms, requests, messages, ierr)
    call check_ok(ierr, 'ep_debug_live_handles')
    call ep_debug_live_windows(windows, ierr)
    call check_ok(ierr, 'ep_debug_live_windows')
    call ep_debug_live_objects(comm_states, request_objects, win_states, ierr)
    call check_ok(ierr, 'ep_debug_live_objects')
    write (counts, '(4(i0,a))') comms, ' communicators, ', requests, ' requests, ', messages, ' messages, ', &
      windows, ' windows'
    call check(comms == 0 .and. requests == 0 .and. messages == 0 .and. windows == 0, &
               'live handles at the end: ' // trim(counts))
    write (counts, '(3(i0,a))') comm_states, ' communicator states, ', request_objects, ' requests, ', &
      win_states, ' window states'
    call check(comm_states == 0 .and. request_objects == 0 .and. win_states == 0, &
               'live engine objects at the end: ' // trim(counts))
  end subroutine check_no_leak

  !> Checks for leaks (see `check_no_leak`; call it after everything is freed), sums failures
  !> over all processes, prints "<name>: PASS" or FAIL on world rank 0, finalizes MPI and
  !> stops with status 1 on failure.
  subroutine test_finish(name, world_rank)
    character(len=*), intent(in) :: name
    integer, intent(in) :: world_rank
    integer(mpik) :: mine, total, ierr
    call check_no_leak()
    mine = int(failures, mpik)
    call MPI_Allreduce(mine, total, 1_mpik, MPI_INTEGER4, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (world_rank == 0) then
      if (total == 0) then
        write (output_unit, '(2a)') name, ': PASS (0 failures)'
      else
        write (output_unit, '(2a,i0,a)') name, ': FAIL (', total, ' failures)'
      end if
      flush (output_unit)
    end if
    call MPI_Finalize(ierr)
    if (total /= 0) stop 1
  end subroutine test_finish

end module ep_test_support
