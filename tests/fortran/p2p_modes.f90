!> Point-to-point beyond the core from Fortran, OpenMP threads as endpoints: ep_sendrecv_replace
!> (a non-contiguous section too), persistent requests restarted many times with the data
!> changed between rounds (ep_start, ep_startall, a wildcard receive, completion over a mixed
!> array), buffered mode with the process's attached buffer, ready mode, ep_request_get_status
!> (and MPI 4.1's array forms and status accessors, not under the standard names, whose hosts
!> lack them), ep_get_elements and the status setters, and bad input (class, then the
!> communicator works).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program p2p_modes
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_associated
  implicit none
  integer, parameter :: rounds = 1000
  integer :: world_rank, world_size, n, ierr
  integer, allocatable :: handles(:)

  call test_init(world_rank, world_size)
  n = test_count_for(world_rank)
  allocate(handles(max(n, 1)))
  call ep_comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, handles, ierr)
  call check_ok(ierr, 'ep_comm_create_endpoints')
  if (n > 0) then
    !$omp parallel num_threads(n) default(shared)
    call endpoint_main(handles(omp_get_thread_num() + 1))
    !$omp end parallel
  end if
  call test_finish('p2p_modes', world_rank)

contains

  !> Each test on its own duplicate, so that its wildcard receives never meet another test's
  !> messages or those of the test barrier.
  subroutine endpoint_main(comm_in)
    integer, intent(in) :: comm_in
    integer :: comm, dup, test, ierr
    comm = comm_in
    do test = 1, 4
      call ep_comm_dup(comm, dup, ierr)
      call check_ok(ierr, 'dup')
      select case (test)
      case (1)
        call sendrecv_replace(dup)
      case (2)
        call persistent_rounds(dup)
      case (3)
        call buffered_and_ready(dup)
      case default
        call statuses(dup)
      end select
      call test_barrier(comm)
      call ep_comm_free(dup, ierr)
      call check_ok(ierr, 'free dup')
    end do
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'free')
  end subroutine endpoint_main

  subroutine sendrecv_replace(comm)
    integer, intent(in) :: comm
    integer :: me, size, left, right, ierr, k, count
    integer :: buf(4), grid(3, 4), st(EP_STATUS_SIZE), rq
    integer, asynchronous :: abuf(4), ain(4)
    call test_ring(comm, me, size, left, right)
    buf = [(me * 10 + k, k = 1, 4)]
    call ep_sendrecv_replace(buf, 4, default_integer_type(), right, 3, left, 3, comm, st, ierr)
    call check_ok(ierr, 'sendrecv_replace')
    call check(all(buf == [(left * 10 + k, k = 1, 4)]), 'sendrecv_replace data')
    call check(st(EP_SOURCE) == left .and. st(EP_TAG) == 3, 'sendrecv_replace status')
    call ep_get_count(st, default_integer_type(), count, ierr)
    call check(count == 4, 'sendrecv_replace count')
    ! A non-contiguous section (row 2 of a 3x4 array), wildcards on the receive.
    grid = me
    grid(2, :) = [(me * 100 + k, k = 1, 4)]
    call ep_sendrecv_replace(grid(2, :), 4, default_integer_type(), right, 4, EP_ANY_SOURCE, EP_ANY_TAG, &
      comm, st, ierr)
    call check_ok(ierr, 'sendrecv_replace section')
    call check(all(grid(2, :) == [(left * 100 + k, k = 1, 4)]), 'sendrecv_replace section data')
    call check(all(grid(1, :) == me) .and. all(grid(3, :) == me), 'sendrecv_replace wrote outside the section')
    call check(st(EP_SOURCE) == left .and. st(EP_TAG) == 4, 'sendrecv_replace section status')
    ! EP_PROC_NULL peers leave the buffer alone.
    buf = 7
    call ep_sendrecv_replace(buf, 4, default_integer_type(), EP_PROC_NULL, 5, EP_PROC_NULL, 5, comm, st, ierr)
    call check_ok(ierr, 'sendrecv_replace proc null')
    call check(all(buf == 7) .and. st(EP_SOURCE) == EP_PROC_NULL, 'sendrecv_replace proc null outcome')
    ! Truncation: 4 integers into room for 2.
    call ep_send(buf, 4, default_integer_type(), right, 6, comm, ierr)
    call ep_sendrecv_replace(buf, 2, default_integer_type(), EP_PROC_NULL, 6, left, 6, comm, st, ierr)
    call check_class(ierr, EP_ERR_TRUNCATE, 'sendrecv_replace truncation')
    call ep_sendrecv_replace(buf, -1, default_integer_type(), right, 6, left, 6, comm, st, ierr)
    call check_class(ierr, EP_ERR_COUNT, 'sendrecv_replace count')
    call ep_sendrecv_replace(buf, 1, default_integer_type(), size, 6, left, 6, comm, st, ierr)
    call check_class(ierr, EP_ERR_RANK, 'sendrecv_replace rank')
    buf(1) = me
    call ep_sendrecv_replace(buf, 1, default_integer_type(), right, 6, left, 6, comm, EP_STATUS_IGNORE, ierr)
    call check_ok(ierr, 'sendrecv_replace after bad input')
    call check(buf(1) == left, 'sendrecv_replace after bad input data')
    ! Nonblocking forms.
    abuf = [(me * 10 + k, k = 1, 4)]
    ain = -1
    call ep_isendrecv(abuf, 4, default_integer_type(), right, 7, ain, 4, default_integer_type(), left, 7, comm, &
      rq, ierr)
    call check_ok(ierr, 'isendrecv')
    call ep_wait(rq, st, ierr)
    call check(all(ain == [(left * 10 + k, k = 1, 4)]) .and. st(EP_SOURCE) == left, 'isendrecv data')
    call ep_isendrecv_replace(abuf, 4, default_integer_type(), right, 8, EP_ANY_SOURCE, 8, comm, rq, ierr)
    call check_ok(ierr, 'isendrecv_replace')
    call ep_wait(rq, st, ierr)
    call check(all(abuf == [(left * 10 + k, k = 1, 4)]) .and. st(EP_TAG) == 8, 'isendrecv_replace data')
#ifndef EP_TEST_MPI_NAMES
    ! `use ep_mpi` refuses a non-contiguous section in a nonblocking call; `use mpi` passes a
    ! temporary copy, which MPI 4.1 section 19.1.12 makes erroneous: not checked there.
    call ep_isendrecv_replace(grid(2, :), 4, default_integer_type(), right, 8, left, 8, comm, rq, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'isendrecv_replace of a section')
#endif
    call ep_isendrecv(abuf, 4, default_integer_type(), right, 9, ain, -1, default_integer_type(), left, 9, &
      comm, rq, ierr)
    call check_class(ierr, EP_ERR_COUNT, 'isendrecv count')
  end subroutine sendrecv_replace

  !> A standard send and a receive from the left, a synchronous send and a wildcard receive,
  !> restarted `rounds` times; then the inactive requests, a mixed ep_waitall, bad input.
  subroutine persistent_rounds(comm)
    integer, intent(in) :: comm
    integer :: me, size, left, right, ierr, round, k, bad, idx
    integer, asynchronous :: sbuf(3), rbuf(3), ssbuf(2), wbuf(2), y, z
    integer :: rq(4), keep(4), sts(EP_STATUS_SIZE, 4), st(EP_STATUS_SIZE), mixed(4)
    logical :: flag
    call test_ring(comm, me, size, left, right)
    call ep_recv_init(rbuf, 3, default_integer_type(), left, 11, comm, rq(1), ierr)
    call check_ok(ierr, 'recv_init')
    call ep_send_init(sbuf, 3, default_integer_type(), right, 11, comm, rq(2), ierr)
    call check_ok(ierr, 'send_init')
    call ep_recv_init(wbuf, 2, default_integer_type(), EP_ANY_SOURCE, EP_ANY_TAG, comm, rq(3), ierr)
    call check_ok(ierr, 'recv_init wildcard')
    call ep_ssend_init(ssbuf, 2, default_integer_type(), right, 12, comm, rq(4), ierr)
    call check_ok(ierr, 'ssend_init')
    keep = rq
    bad = 0
    do round = 1, rounds
      sbuf = [(round * 7 + me * 3 + k, k = 1, 3)]
      ssbuf = [round, -me]
      rbuf = -1
      wbuf = -1
      if (mod(round, 2) == 0) then
        call ep_startall(4, rq, ierr)
        call check_ok(ierr, 'startall')
      else
        do k = 1, 4
          call ep_start(rq(k), ierr)
          call check_ok(ierr, 'start')
        end do
      end if
      if (mod(round, 3) == 0) then
        do k = 1, 4
          call ep_wait(rq(k), sts(:, k), ierr)
          call check_ok(ierr, 'wait round')
        end do
      else
        call ep_waitall(4, rq, sts, ierr)
        call check_ok(ierr, 'waitall round')
      end if
      if (any(rbuf /= [(round * 7 + left * 3 + k, k = 1, 3)])) bad = bad + 1
      if (wbuf(1) /= round .or. wbuf(2) /= -left) bad = bad + 1
      if (sts(EP_SOURCE, 3) /= left .or. sts(EP_TAG, 3) /= 12) bad = bad + 1
      if (any(rq /= keep)) bad = bad + 1
    end do
    call check(bad == 0, 'persistent rounds')

    ! Inactive: completion returns at once with an empty status.
    call ep_wait(rq(1), st, ierr)
    call check_ok(ierr, 'wait inactive')
    call check(rq(1) == keep(1) .and. st(EP_SOURCE) == EP_ANY_SOURCE .and. st(EP_TAG) == EP_ANY_TAG, &
      'wait inactive status')
    call ep_waitany(4, rq, idx, st, ierr)
    call check(idx == EP_UNDEFINED, 'waitany over inactive requests')
    call ep_request_get_status(rq(2), flag, st, ierr)
    call check(flag, 'get_status of an inactive request')

    ! A mixed array: active persistent, null, inactive persistent, ordinary.
    sbuf = me
    call ep_start(rq(1), ierr)
    call ep_start(rq(2), ierr)
    call ep_start(rq(2), ierr)
    call check_class(ierr, EP_ERR_REQUEST, 'start of an active request')
    y = me + 50
    call ep_isend(y, 1, default_integer_type(), right, 13, comm, mixed(4), ierr)
    mixed(1:3) = [rq(1), EP_REQUEST_NULL, rq(3)]
    call ep_irecv(z, 1, default_integer_type(), left, 13, comm, k, ierr)
    call ep_waitall(4, mixed, EP_STATUSES_IGNORE, ierr)
    call check_ok(ierr, 'mixed waitall')
    call check(mixed(1) == rq(1) .and. mixed(3) == rq(3) .and. mixed(4) == EP_REQUEST_NULL, 'mixed handles')
    call check(rbuf(1) == left, 'mixed waitall data')
    call ep_wait(k, st, ierr)
    call check(z == left + 50, 'ordinary receive beside persistent ones')
    call ep_wait(rq(2), st, ierr)
    do k = 1, 4
      call ep_request_free(rq(k), ierr)
      call check_ok(ierr, 'free persistent')
      call check(rq(k) == EP_REQUEST_NULL, 'free nulls the handle')
    end do
    call ep_start(keep(1), ierr)
    call check_class(ierr, EP_ERR_REQUEST, 'start of a freed request')
    call ep_send_init(sbuf, 3, default_integer_type(), size, 1, comm, k, ierr)
    call check_class(ierr, EP_ERR_RANK, 'send_init rank')
    call ep_recv_init(rbuf, 3, default_integer_type(), left, -5, comm, k, ierr)
    call check_class(ierr, EP_ERR_TAG, 'recv_init tag')
#ifndef EP_TEST_MPI_NAMES
    ! Not under the standard names: a call with no request in it is the host's, whose classes
    ! differ (as in tests/c/p2p_modes.c).
    call ep_startall(-1, rq, ierr)
    call check_class(ierr, EP_ERR_COUNT, 'startall count')
#endif
  end subroutine persistent_rounds

  subroutine buffered_and_ready(comm)
    integer, intent(in) :: comm
    integer, parameter :: big = 100000
    integer :: me, nr, left, right, ierr, k, sz, rq, pb, round, bad
    integer, allocatable :: data(:), got(:)
    integer, asynchronous :: one, rin
    integer(kind=1), allocatable, target, asynchronous, save :: space(:)
    type(c_ptr) :: addr
    call test_ring(comm, me, nr, left, right)
    allocate(data(big), got(big))
    !$omp single
    call ep_buffer_detach(addr, sz, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'detach with nothing attached')
    allocate(space(omp_get_num_threads() * 4 * (big * storage_size(0) / 8 + EP_BSEND_OVERHEAD)))
    call ep_buffer_attach(space, size(space), ierr)
    call check_ok(ierr, 'buffer_attach')
    call ep_buffer_attach(space, size(space), ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'second attach')
    !$omp end single
    do round = 1, 3
      data = [(me * 3 + round + k, k = 1, big)]
      call ep_bsend(data, big, default_integer_type(), right, 20 + round, comm, ierr)
      call check_ok(ierr, 'bsend')
    end do
    data(1) = me
    call ep_ibsend(data(1:big:2), 1, default_integer_type(), right, 24, comm, rq, ierr)
    call check_ok(ierr, 'ibsend of a section')
    call ep_wait(rq, EP_STATUS_IGNORE, ierr)
    bad = 0
    do round = 1, 3
      call ep_recv(got, big, default_integer_type(), left, 20 + round, comm, EP_STATUS_IGNORE, ierr)
      if (any(got /= [(left * 3 + round + k, k = 1, big)])) bad = bad + 1
    end do
    call ep_recv(got, 1, default_integer_type(), left, 24, comm, EP_STATUS_IGNORE, ierr)
    call check(bad == 0 .and. got(1) == left, 'buffered messages')
    call ep_bsend_init(one, 1, default_integer_type(), right, 25, comm, pb, ierr)
    call check_ok(ierr, 'bsend_init')
    do round = 1, 10
      one = me * 100 + round
      call ep_start(pb, ierr)
      call ep_wait(pb, EP_STATUS_IGNORE, ierr)
      call ep_recv(got, 1, default_integer_type(), left, 25, comm, EP_STATUS_IGNORE, ierr)
      if (got(1) /= left * 100 + round) bad = bad + 1
    end do
    call check(bad == 0, 'persistent buffered rounds')
    call ep_request_free(pb, ierr)
    !$omp barrier
    !$omp single
    call ep_buffer_detach(addr, sz, ierr)
    call check_ok(ierr, 'buffer_detach')
    call check(c_associated(addr, c_loc(space)) .and. sz == size(space), 'detach returns the buffer')
    deallocate(space)
    !$omp end single
    call ep_bsend(data, 1, default_integer_type(), right, 26, comm, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'bsend without a buffer')
    ! Ready mode: the receive is posted before the meeting point.
    call ep_irecv(rin, 1, default_integer_type(), left, 27, comm, rq, ierr)
    call test_barrier(comm)
    call ep_rsend(me + 7, 1, default_integer_type(), right, 27, comm, ierr)
    call check_ok(ierr, 'rsend')
    call ep_wait(rq, EP_STATUS_IGNORE, ierr)
    call check(rin == left + 7, 'rsend data')
    call ep_irecv(rin, 1, default_integer_type(), left, 28, comm, rq, ierr)
    call test_barrier(comm)
    one = me + 8
    call ep_irsend(one, 1, default_integer_type(), right, 28, comm, k, ierr)
    call ep_wait(k, EP_STATUS_IGNORE, ierr)
    call ep_wait(rq, EP_STATUS_IGNORE, ierr)
    call check(rin == left + 8, 'irsend data')
  end subroutine buffered_and_ready

  subroutine statuses(comm)
    integer, intent(in) :: comm
    integer :: me, size, left, right, ierr, count, rq, st(EP_STATUS_SIZE)
#ifndef EP_TEST_MPI_NAMES
    integer :: rqs(2), index, outcount, indices(2), value, sts(EP_STATUS_SIZE, 2)
#endif
    integer, asynchronous :: x
    integer(MPI_COUNT_KIND) :: big
    logical :: flag
    call test_ring(comm, me, size, left, right)
    call ep_irecv(x, 1, default_integer_type(), left, 30, comm, rq, ierr)
    call ep_send(me, 1, default_integer_type(), right, 30, comm, ierr)
    flag = .false.
    do while (.not. flag)
      call ep_request_get_status(rq, flag, st, ierr)
      call check_ok(ierr, 'request_get_status')
    end do
    call check(rq /= EP_REQUEST_NULL .and. st(EP_SOURCE) == left .and. x == left, 'request_get_status outcome')
#ifndef EP_TEST_MPI_NAMES
    rqs = [EP_REQUEST_NULL, rq]
    call ep_request_get_status_any(2, rqs, index, flag, st, ierr)
    call check(ierr == EP_SUCCESS .and. flag .and. index == 2 .and. rqs(2) == rq, 'request_get_status_any')
    call ep_request_get_status_all(2, rqs, flag, sts, ierr)
    call check(ierr == EP_SUCCESS .and. flag .and. sts(EP_SOURCE, 2) == left .and. sts(EP_TAG, 2) == 30, &
      'request_get_status_all')
    call ep_request_get_status_some(2, rqs, outcount, indices, sts, ierr)
    call check(ierr == EP_SUCCESS .and. outcount == 1 .and. indices(1) == 2 .and. sts(EP_TAG, 1) == 30, &
      'request_get_status_some')
    call ep_status_get_source(st, value, ierr)
    call check(ierr == EP_SUCCESS .and. value == left, 'status_get_source')
    call ep_status_set_tag(st, 4242, ierr)
    call ep_status_get_tag(st, value, ierr)
    call check(ierr == EP_SUCCESS .and. value == 4242 .and. st(EP_TAG) == 4242, 'status_set_tag')
    call ep_status_set_error(st, EP_ERR_TAG, ierr)
    call ep_status_get_error(st, value, ierr)
    call check(ierr == EP_SUCCESS .and. value == EP_ERR_TAG, 'status_set_error')
    call ep_status_set_source(st, left, ierr)
#endif
    call ep_wait(rq, st, ierr)
    call check(rq == EP_REQUEST_NULL, 'wait after get_status')
    call ep_status_set_elements(st, default_integer_type(), 5, ierr)
    call check_ok(ierr, 'status_set_elements')
    call ep_get_count(st, default_integer_type(), count, ierr)
    call check(count == 5, 'count after set_elements')
    call ep_get_elements(st, default_integer_type(), count, ierr)
    call check(count == 5, 'elements after set_elements')
    call ep_status_set_elements_x(st, MPI_CHARACTER, 3_MPI_COUNT_KIND, ierr)
    call ep_get_elements_x(st, MPI_CHARACTER, big, ierr)
    call check(big == 3, 'elements_x after set_elements_x')
    call ep_get_elements(st, default_integer_type(), count, ierr)
    call check(count == EP_UNDEFINED, '3 bytes as integers')
    call ep_status_set_cancelled(st, .true., ierr)
    call ep_test_cancelled(st, flag, ierr)
    call check(flag, 'set_cancelled')
    call ep_status_set_elements(st, default_integer_type(), -1, ierr)
    call check_class(ierr, EP_ERR_COUNT, 'set_elements negative')
    call ep_get_elements(st, MPI_DATATYPE_NULL, count, ierr)
    call check_class(ierr, EP_ERR_TYPE, 'get_elements type')
  end subroutine statuses

end program p2p_modes
