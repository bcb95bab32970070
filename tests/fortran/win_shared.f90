!> SHARED-MEMORY WINDOWS AND INTERCOMMUNICATOR COLLECTIVES from Fortran, OpenMP threads as
!> endpoints, in every shape (endpoints of one process and of several processes of this node):
!> - ep_win_allocate_shared with sizes differing per rank: ep_win_shared_query of every rank
!>   (size, unit, address mapped with c_f_pointer), segments contiguous in rank order, loads of
!>   every other rank's values after a fence, a store into the right neighbour's segment,
!>   ep_win_get_attr of the five keys, EP_PROC_NULL naming the lowest rank with memory;
!> - gather to a root (EP_ROOT / EP_PROC_NULL / the root's rank), allgather, alltoall and
!>   reduce on an intercommunicator of even and odd world ranks, checked element by element;
!> - bad input: rank out of range, unknown attribute key, MPI_IN_PLACE on the intercommunicator.
!> No handle is left at the end.
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program win_shared_test
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_intptr_t, c_associated
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  implicit none
  integer :: world_rank, world_size, n, ierr, live
  integer :: none(1)

  call test_init(world_rank, world_size)
  n = test_count_for(world_rank)
  if (n == 0) then
    call ep_comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, none, ierr)
    call check_ok(ierr, 'creation with no endpoint')
  else
    !$omp parallel num_threads(n) default(shared)
    call endpoint_main(int(omp_get_thread_num()))
    !$omp end parallel
  end if
  call ep_debug_live_windows(live, ierr)
  call check(ierr == EP_SUCCESS .and. live == 0, 'window handles left after every ep_win_free')
  call test_finish('win_shared', world_rank)

contains

  subroutine endpoint_main(index)
    integer, intent(in) :: index
    integer :: comm, ierr
    call ep_comm_create_endpoint(MPI_COMM_WORLD, n, index, comm, ierr)
    call check_ok(ierr, 'ep_comm_create_endpoint')
    call shared_window(comm)
    call inter_collectives(comm)
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'ep_comm_free')
  end subroutine endpoint_main

  !> Integers exposed by rank r (none for every third rank).
  pure function ints_of(r) result(count)
    integer, intent(in) :: r
    integer :: count
    count = 2 + r
    if (mod(r, 3) == 1) count = 0
  end function ints_of

  subroutine shared_window(comm)
    integer, intent(in) :: comm
    integer :: me, size, left, right, win, ierr, r, i, unit, bad, lowest, one
    integer(MPI_ADDRESS_KIND) :: bytes, got_bytes, value
    integer(c_intptr_t) :: previous, here
    type(c_ptr) :: base, other
    integer, pointer :: mine(:), theirs(:)
    logical :: flag
    call test_ring(comm, me, size, left, right)
    one = storage_size(me) / 8
    bytes = int(ints_of(me) * one, MPI_ADDRESS_KIND)
    call ep_win_allocate_shared(bytes, one, MPI_INFO_NULL, comm, base, win, ierr)
    call check_ok(ierr, 'ep_win_allocate_shared')
    call c_f_pointer(base, mine, [max(ints_of(me), 1)])
    do i = 1, ints_of(me)
      mine(i) = 1000 * me + i
    end do
    call ep_win_fence(0, win, ierr)
    call check_ok(ierr, 'fence after the stores')
    previous = 0
    lowest = -1
    do r = 0, size - 1
      call ep_win_shared_query(win, r, got_bytes, unit, other, ierr)
      call check_ok(ierr, 'ep_win_shared_query')
      call check(got_bytes == int(ints_of(r) * one, MPI_ADDRESS_KIND) .and. unit == one, 'queried size and unit')
      here = transfer(other, here)
      if (r > 0) call check(here == previous + ints_of(r - 1) * one, 'segments contiguous in rank order')
      previous = here
      if (ints_of(r) > 0) then
        if (lowest < 0) lowest = r
        call c_f_pointer(other, theirs, [ints_of(r)])
        bad = 0
        do i = 1, ints_of(r)
          if (theirs(i) /= 1000 * r + i) bad = bad + 1
        end do
        call check(bad == 0, 'loads of another rank''s segment')
      end if
    end do
    call ep_win_shared_query(win, EP_PROC_NULL, got_bytes, unit, other, ierr)
    call check(ierr == EP_SUCCESS .and. got_bytes == int(ints_of(lowest) * one, MPI_ADDRESS_KIND), &
      'EP_PROC_NULL names the lowest rank with memory')
    call ep_win_fence(0, win, ierr)
    ! A store into the right neighbour's first integer.
    if (ints_of(right) > 0) then
      call ep_win_shared_query(win, right, got_bytes, unit, other, ierr)
      call c_f_pointer(other, theirs, [ints_of(right)])
      theirs(1) = -me
    end if
    call ep_win_fence(0, win, ierr)
    if (ints_of(me) > 0) call check(mine(1) == -left, 'store from the left neighbour')
    ! Attributes.
    call ep_win_get_attr(win, EP_WIN_BASE, value, flag, ierr)
    call check(ierr == EP_SUCCESS .and. flag .and. value == int(transfer(base, here), MPI_ADDRESS_KIND), 'EP_WIN_BASE')
    call ep_win_get_attr(win, EP_WIN_SIZE, value, flag, ierr)
    call check(ierr == EP_SUCCESS .and. flag .and. value == bytes, 'EP_WIN_SIZE')
    call ep_win_get_attr(win, EP_WIN_DISP_UNIT, value, flag, ierr)
    call check(ierr == EP_SUCCESS .and. flag .and. value == one, 'EP_WIN_DISP_UNIT')
    call ep_win_get_attr(win, EP_WIN_CREATE_FLAVOR, value, flag, ierr)
    call check(ierr == EP_SUCCESS .and. flag .and. value == EP_WIN_FLAVOR_SHARED, 'EP_WIN_CREATE_FLAVOR')
    call ep_win_get_attr(win, EP_WIN_MODEL, value, flag, ierr)
    call check(ierr == EP_SUCCESS .and. flag .and. value == EP_WIN_UNIFIED, 'EP_WIN_MODEL')
    ! Bad input.
    call ep_win_shared_query(win, size, got_bytes, unit, other, ierr)
    call check_class(ierr, EP_ERR_RANK, 'shared_query of a rank out of range')
    call ep_win_get_attr(win, 999, value, flag, ierr)
    call check_class(ierr, EP_ERR_KEYVAL, 'unknown window attribute key')
    call check(.not. flag, 'flag of an unknown key')
    call ep_win_free(win, ierr)
    call check_ok(ierr, 'ep_win_free')
    call check(.not. c_associated(base) .or. win == EP_WIN_NULL, 'freed window handle')
  end subroutine shared_window

  subroutine inter_collectives(comm)
    integer, intent(in) :: comm
    integer :: wr, ws, side, intra, inter, me, size, rsize, ierr, r, k, arg, bad
    integer :: mine(2), sums(2)
    integer, allocatable :: all(:), sendbuf(:), recvbuf(:)
    call ep_comm_rank(comm, wr, ierr)
    call ep_comm_size(comm, ws, ierr)
    if (ws < 2) return
    side = mod(wr, 2)
    call ep_comm_split(comm, side, wr, intra, ierr)
    call check_ok(ierr, 'split')
    call ep_intercomm_create(intra, 0, comm, 1 - side, 33, inter, ierr)
    call check_ok(ierr, 'ep_intercomm_create')
    call ep_comm_rank(inter, me, ierr)
    call ep_comm_size(inter, size, ierr)
    call ep_comm_remote_size(inter, rsize, ierr)
    mine = [100 * side + me, -me]
    allocate (all(2 * rsize), sendbuf(rsize), recvbuf(rsize))
    ! Gather to rank 0 of the even group.
    all = -1
    if (side == 0) then
      arg = EP_PROC_NULL
      if (me == 0) arg = EP_ROOT
    else
      arg = 0
    end if
    call ep_gather(mine, 2, MPI_INTEGER, all, 2, MPI_INTEGER, arg, inter, ierr)
    call check_ok(ierr, 'ep_gather on an intercommunicator')
    if (arg == EP_ROOT) then
      bad = 0
      do r = 0, rsize - 1
        if (all(2 * r + 1) /= 100 + r .or. all(2 * r + 2) /= -r) bad = bad + 1
      end do
      call check(bad == 0, 'gathered blocks of the odd group')
    end if
    ! Allgather: each group gets the other's.
    all = -1
    call ep_allgather(mine, 2, MPI_INTEGER, all, 2, MPI_INTEGER, inter, ierr)
    call check_ok(ierr, 'ep_allgather on an intercommunicator')
    bad = 0
    do r = 0, rsize - 1
      if (all(2 * r + 1) /= 100 * (1 - side) + r) bad = bad + 1
    end do
    call check(bad == 0, 'allgathered blocks of the other group')
    ! Alltoall: rank a of group s sends 1000 * s + 10 * a + b to rank b.
    do k = 1, rsize
      sendbuf(k) = 1000 * side + 10 * me + (k - 1)
    end do
    recvbuf = -1
    call ep_alltoall(sendbuf, 1, MPI_INTEGER, recvbuf, 1, MPI_INTEGER, inter, ierr)
    call check_ok(ierr, 'ep_alltoall on an intercommunicator')
    bad = 0
    do k = 1, rsize
      if (recvbuf(k) /= 1000 * (1 - side) + 10 * (k - 1) + me) bad = bad + 1
    end do
    call check(bad == 0, 'alltoall blocks from the other group')
    ! Reduce to the last rank of the odd group.
    sums = -1
    if (side == 1) then
      arg = EP_PROC_NULL
      if (me == size - 1) arg = EP_ROOT
    else
      arg = rsize - 1
    end if
    call ep_reduce(mine, sums, 2, MPI_INTEGER, MPI_SUM, arg, inter, ierr)
    call check_ok(ierr, 'ep_reduce on an intercommunicator')
    if (arg == EP_ROOT) call check(sums(2) == -(rsize * (rsize - 1)) / 2, 'reduced sum of the even group')
    ! MPI_IN_PLACE is not defined on intercommunicators.
    call ep_allgather(MPI_IN_PLACE, 2, MPI_INTEGER, all, 2, MPI_INTEGER, inter, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'MPI_IN_PLACE on an intercommunicator')
    call ep_comm_free(inter, ierr)
    call ep_comm_free(intra, ierr)
    call check_ok(ierr, 'free')
  end subroutine inter_collectives

end program win_shared_test
