!> Endpoint teams from Fortran: every thread of the process (its endpoints' threads and one
!> helper) joins a team; the endpoints exchange a large same-process message and reduce a large
!> array, checked element by element, while the helper leaves at once and shares their work.
!> Then join/leave in a loop, and wrong use (error classes through ierror).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program teams
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  implicit none
  integer, parameter :: big = 400000
  integer :: world_rank, world_size, n, ierr, threads
  integer, allocatable :: handles(:)

  call test_init(world_rank, world_size)
  n = test_count_for(world_rank)
  threads = n + 1
  allocate(handles(max(n, 1)))
  call ep_comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, handles, ierr)
  call check_ok(ierr, 'ep_comm_create_endpoints')
  !$omp parallel num_threads(threads) default(shared)
  call member(omp_get_thread_num())
  !$omp end parallel
  call wrong_use()
  call test_finish('teams', world_rank)

contains

  subroutine member(t)
    integer, intent(in) :: t
    integer :: team, ierr, me, size, first, to, from, i, bad, r
    double precision, allocatable :: out(:), in(:), red(:)

    call ep_endpoint_team_create(5, threads, team, ierr)
    call check_ok(ierr, 'ep_endpoint_team_create')
    call ep_endpoint_join(team, ierr)
    call check_ok(ierr, 'ep_endpoint_join')
    if (t < n) then
      allocate(out(big), in(big), red(big))
      call ep_comm_rank(handles(t + 1), me, ierr)
      call ep_comm_size(handles(t + 1), size, ierr)
      first = me - t
      to = first + mod(t + 1, n)
      from = first + mod(t + n - 1, n)
      do i = 1, big
        out(i) = me * 1d6 + i
      end do
      in = -1
      call ep_isend(out, big, MPI_DOUBLE_PRECISION, to, 3, handles(t + 1), r, ierr)
      call check_ok(ierr, 'ep_isend')
      call ep_recv(in, big, MPI_DOUBLE_PRECISION, from, 3, handles(t + 1), EP_STATUS_IGNORE, ierr)
      call check_ok(ierr, 'ep_recv')
      call ep_wait(r, EP_STATUS_IGNORE, ierr)
      bad = 0
      do i = 1, big
        if (in(i) /= from * 1d6 + i) bad = bad + 1
      end do
      call check(bad == 0, 'same-process message element by element')
      call ep_allreduce(out, red, big, MPI_DOUBLE_PRECISION, MPI_SUM, handles(t + 1), ierr)
      call check_ok(ierr, 'ep_allreduce')
      bad = 0
      do i = 1, big
        if (red(i) /= size * (size - 1) / 2 * 1d6 + size * dble(i)) bad = bad + 1
      end do
      call check(bad == 0, 'allreduce element by element')
    end if
    call ep_endpoint_leave(team, ierr)
    call check_ok(ierr, 'ep_endpoint_leave')
    do i = 1, 1000
      call ep_endpoint_join(team, ierr)
      call ep_endpoint_leave(team, ierr)
    end do
    call check_ok(ierr, 'join and leave 1000 times')
    !$omp barrier
    call ep_endpoint_team_destroy(team, ierr)
    call check_ok(ierr, 'ep_endpoint_team_destroy')
    call check(team == EP_ENDPOINT_TEAM_NULL, 'destroy sets EP_ENDPOINT_TEAM_NULL')
    if (t < n) call ep_comm_free(handles(t + 1), ierr)
  end subroutine member

  subroutine wrong_use()
    integer :: team, other, ierr
    call ep_endpoint_team_create(9, 0, team, ierr)
    call check_class(ierr, EP_ERR_ARG, 'team_size 0')
    call ep_endpoint_team_create(9, 1, team, ierr)
    call check_ok(ierr, 'create a team of one')
    call ep_endpoint_team_create(9, 2, other, ierr)
    call check_class(ierr, EP_ERR_ARG, 'size mismatch')
    call ep_endpoint_leave(team, ierr)
    call check_class(ierr, EP_ERR_ARG, 'leave without join')
    call ep_endpoint_join(team, ierr)
    call check_ok(ierr, 'join')
    call ep_endpoint_join(team, ierr)
    call check_class(ierr, EP_ERR_ARG, 'join twice')
    call ep_endpoint_team_destroy(team, ierr)
    call check_class(ierr, EP_ERR_ARG, 'destroy by a member')
    call ep_endpoint_leave(team, ierr)
    call check_ok(ierr, 'leave')
    call ep_endpoint_team_destroy(team, ierr)
    call check_ok(ierr, 'destroy')
    call ep_endpoint_join(team, ierr)
    call check_class(ierr, EP_ERR_ARG, 'join the null team')
  end subroutine wrong_use

end program teams
