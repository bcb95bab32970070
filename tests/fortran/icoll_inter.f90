!> NONBLOCKING COLLECTIVES ON INTERCOMMUNICATORS from Fortran, with OpenMP threads as endpoints:
!> on two intercommunicators (even against odd world ranks, groups sharing processes; all but the
!> last world rank against the last, groups of different sizes), ep_ibcast, ep_igatherv,
!> ep_iscatterv (roots EP_ROOT / EP_PROC_NULL / remote rank, in either group), ep_iallgather,
!> ep_ialltoall, ep_ialltoallw, ep_iallreduce, ep_ireduce, ep_ireduce_scatter, all outstanding
!> at once with a point-to-point exchange across the groups, completed by ep_waitall or an
!> ep_testany loop (by rank); each group gets the other group's data in its rank order. Then
!> ep_alltoallw (blocking), and bad input: ep_iscan (EP_ERR_COMM), MPI_IN_PLACE (EP_ERR_BUFFER).
!>
!> Built with default kinds and with -fdefault-integer-8 -fdefault-real-8 (count arrays of
!> 8-byte integers go through the glue's conversion, sized by the remote group).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program icoll_inter
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  implicit none
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
  call test_finish('icoll_inter', world_rank)

contains

  subroutine endpoint_main(comm_in)
    integer, intent(in) :: comm_in
    integer :: world, wr, ws, ierr, side
    world = comm_in
    call ep_comm_rank(world, wr, ierr)
    call ep_comm_size(world, ws, ierr)
    if (ws >= 2) then
      side = mod(wr, 2)
      call with_inter(world, side, wr, merge(0, 1, side == 1))
      side = merge(1, 0, wr == ws - 1)
      call with_inter(world, side, wr, merge(0, ws - 1, side == 1))
    end if
    call ep_comm_free(world, ierr)
    call check_ok(ierr, 'free')
  end subroutine endpoint_main

  subroutine with_inter(world, side, key, their_leader)
    integer, intent(in) :: world, side, key, their_leader
    integer :: intra, inter, ierr
    call ep_comm_split(world, side, key, intra, ierr)
    call check_ok(ierr, 'ep_comm_split')
    call ep_intercomm_create(intra, 0, world, their_leader, 91, inter, ierr)
    call check_ok(ierr, 'ep_intercomm_create')
    call all_outstanding(inter, side)
    call ep_comm_free(inter, ierr)
    call check_ok(ierr, 'free inter')
    call ep_comm_free(intra, ierr)
    call check_ok(ierr, 'free intra')
  end subroutine with_inter

  !> Value of element k (1-based) of rank r of group s in collective c.
  elemental function v(c, s, r, k) result(x)
    integer, intent(in) :: c, s, r, k
    integer :: x
    x = 100000 * c + 10000 * s + 100 * r + k
  end function v

  !> The root argument of a rooted call whose root is rank `root` of group `root_side`.
  function root_arg(side, me, root_side, root) result(arg)
    integer, intent(in) :: side, me, root_side, root
    integer :: arg
    if (side /= root_side) then
      arg = root
    else if (me == root) then
      arg = EP_ROOT
    else
      arg = EP_PROC_NULL
    end if
  end function root_arg

  subroutine all_outstanding(inter, side)
    integer, intent(in) :: inter, side
    integer :: me, size, rsize, ierr, r, k, idx, got, first, bcast_root, gather_root, scatter_root, reduce_root
    integer(kind(MPI_INTEGER)) :: t
    logical :: flag
    integer, parameter :: nreq = 12
    integer :: req(nreq), sp(1)
    integer, allocatable, asynchronous :: rn(:), gs(:), gr(:), gcounts(:), gdispls(:), ss(:), sr(:), scounts(:), &
      sdispls(:), ag(:), a2s(:), a2r(:), ws(:), wr(:), wcounts(:), wdispls(:), ars(:), arr(:), rds(:), rdr(:), &
      rss(:), rsr(:), rscounts(:), rp(:)
    integer(kind(MPI_INTEGER)), allocatable :: wtypes(:)
    integer :: total

    call ep_comm_rank(inter, me, ierr)
    call ep_comm_size(inter, size, ierr)
    call ep_comm_remote_size(inter, rsize, ierr)
    call check_ok(ierr, 'ep_comm_remote_size')
    t = default_integer_type()
    allocate(rn(2), gs(2), gr(2 * rsize + 1), gcounts(rsize), gdispls(rsize), ss(2 * rsize), sr(3), &
      scounts(rsize), sdispls(rsize), ag(2 * rsize), a2s(2 * rsize), a2r(2 * rsize), ws(2 * rsize), &
      wr(2 * rsize), wcounts(rsize), wdispls(rsize), wtypes(rsize), ars(3), arr(3), rds(3), rdr(3), &
      rscounts(size), rp(rsize))
    req = EP_REQUEST_NULL
    rn = -1; gr = -1; sr = -1; ag = -1; a2r = -1; wr = -1; arr = -1; rdr = -1; rp = -1
    ! 1: ibcast from rank 0 of group 0
    bcast_root = root_arg(side, me, 0, 0)
    if (bcast_root == EP_ROOT) rn = [v(1, 0, 0, 1), v(1, 0, 0, 2)]
    call ep_ibcast(rn, 2, t, bcast_root, inter, req(1), ierr)
    call check_ok(ierr, 'ep_ibcast')
    ! 2: igatherv into the last rank of group 1: rank r gives mod(r, 2) + 1 elements
    gather_root = root_arg(side, me, 1, merge(size, rsize, side == 1) - 1)
    gs = [v(2, side, me, 1), v(2, side, me, 2)]
    gcounts = [(mod(r, 2) + 1, r = 0, rsize - 1)]
    gdispls = [(sum(gcounts(1:r)), r = 0, rsize - 1)]
    call ep_igatherv(gs, mod(me, 2) + 1, t, gr, gcounts, gdispls, t, gather_root, inter, req(2), ierr)
    call check_ok(ierr, 'ep_igatherv')
    ! 3: iscatterv from the last rank of group 0: rank r gets mod(r, 3) + 1 elements (at most 2 here)
    scatter_root = root_arg(side, me, 0, merge(size, rsize, side == 0) - 1)
    scounts = [(mod(r, 2) + 1, r = 0, rsize - 1)]
    sdispls = [(2 * r, r = 0, rsize - 1)]
    ss = [((v(3, side, r, k), k = 1, 2), r = 0, rsize - 1)]
    call ep_iscatterv(ss, scounts, sdispls, t, sr, mod(me, 2) + 1, t, scatter_root, inter, req(3), ierr)
    call check_ok(ierr, 'ep_iscatterv')
    ! 4: iallgather, 2 each
    call ep_iallgather([v(4, side, me, 1), v(4, side, me, 2)], 2, t, ag, 2, t, inter, req(4), ierr)
    call check_ok(ierr, 'ep_iallgather')
    ! 5: ialltoall, 2 per pair
    a2s = [((v(5, side, me, 10 * r + k), k = 1, 2), r = 0, rsize - 1)]
    call ep_ialltoall(a2s, 2, t, a2r, 2, t, inter, req(5), ierr)
    call check_ok(ierr, 'ep_ialltoall')
    ! 6: ialltoallw, 2 per pair, byte displacements
    ws = [((v(6, side, me, 10 * r + k), k = 1, 2), r = 0, rsize - 1)]
    wcounts = 2
    wtypes = t
    wdispls = [(2 * r * (storage_size(r) / 8), r = 0, rsize - 1)]
    call ep_ialltoallw(ws, wcounts, wdispls, wtypes, wr, wcounts, wdispls, wtypes, inter, req(6), ierr)
    call check_ok(ierr, 'ep_ialltoallw')
    ! 7: iallreduce, sum
    ars = [(v(7, side, me, k), k = 1, 3)]
    call ep_iallreduce(ars, arr, 3, t, MPI_SUM, inter, req(7), ierr)
    call check_ok(ierr, 'ep_iallreduce')
    ! 8: ireduce to the last rank of group 0
    reduce_root = root_arg(side, me, 0, merge(size, rsize, side == 0) - 1)
    rds = [(v(8, side, me, k), k = 1, 3)]
    call ep_ireduce(rds, rdr, 3, t, MPI_SUM, reduce_root, inter, req(8), ierr)
    call check_ok(ierr, 'ep_ireduce')
    ! 9: ireduce_scatter: 7 elements in both groups, blocks of this group's counts
    total = 7
    rscounts = [(total / size + merge(1, 0, r < mod(total, size)), r = 0, size - 1)]
    first = sum(rscounts(1:me))
    allocate(rss(total), rsr(rscounts(me + 1) + 1))
    rss = [(v(9, side, me, k), k = 1, total)]
    rsr = -1
    call ep_ireduce_scatter(rss, rsr, rscounts, t, MPI_SUM, inter, req(9), ierr)
    call check_ok(ierr, 'ep_ireduce_scatter')
    ! 10: point-to-point across the groups: to remote rank mod(me, rsize), from every remote
    ! rank r with mod(r, size) == me
    sp(1) = v(10, side, me, 1)
    call ep_isend(sp, 1, t, mod(me, rsize), 3, inter, req(10), ierr)
    call check_ok(ierr, 'ep_isend')
    do r = me, rsize - 1, size
      call ep_recv(rp(r + 1), 1, t, r, 3, inter, EP_STATUS_IGNORE, ierr)
      call check_ok(ierr, 'ep_recv among collectives')
    end do
    ! 11: ibarrier
    call ep_ibarrier(inter, req(11), ierr)
    call check_ok(ierr, 'ep_ibarrier')

    if (mod(me, 2) == 0) then
      call ep_waitall(nreq, req, EP_STATUSES_IGNORE, ierr)
      call check_ok(ierr, 'ep_waitall')
    else
      got = 0
      do while (got < nreq)
        call ep_testany(nreq, req, idx, flag, EP_STATUS_IGNORE, ierr)
        call check_ok(ierr, 'ep_testany')
        if (flag .and. idx /= EP_UNDEFINED) got = got + 1
        if (flag .and. idx == EP_UNDEFINED) exit
      end do
    end if
    call check(all(req == EP_REQUEST_NULL), 'requests are EP_REQUEST_NULL after completion')

    if (side == 1) then
      call check(all(rn == [v(1, 0, 0, 1), v(1, 0, 0, 2)]), 'ep_ibcast data')
    else if (bcast_root == EP_PROC_NULL) then
      call check(all(rn == -1), 'ep_ibcast left EP_PROC_NULL alone')
    end if
    if (gather_root == EP_ROOT) then
      do r = 0, rsize - 1
        call check(all(gr(gdispls(r + 1) + 1:gdispls(r + 1) + gcounts(r + 1)) == &
          [(v(2, 0, r, k), k = 1, gcounts(r + 1))]), 'ep_igatherv data')
      end do
      call check(gr(2 * rsize + 1) == -1, 'ep_igatherv wrote past the blocks')
    end if
    if (side == 1) then
      call check(all(sr(1:mod(me, 2) + 1) == [(v(3, 0, me, k), k = 1, mod(me, 2) + 1)]), 'ep_iscatterv data')
      call check(sr(3) == -1, 'ep_iscatterv wrote past its count')
    end if
    call check(all(ag == [((v(4, 1 - side, r, k), k = 1, 2), r = 0, rsize - 1)]), 'ep_iallgather data')
    call check(all(a2r == [((v(5, 1 - side, r, 10 * me + k), k = 1, 2), r = 0, rsize - 1)]), 'ep_ialltoall data')
    call check(all(wr == [((v(6, 1 - side, r, 10 * me + k), k = 1, 2), r = 0, rsize - 1)]), 'ep_ialltoallw data')
    call check(all(arr == [(sum([(v(7, 1 - side, r, k), r = 0, rsize - 1)]), k = 1, 3)]), 'ep_iallreduce data')
    if (reduce_root == EP_ROOT) then
      call check(all(rdr == [(sum([(v(8, 1, r, k), r = 0, rsize - 1)]), k = 1, 3)]), 'ep_ireduce data')
    else
      call check(all(rdr == -1), 'ep_ireduce wrote off the root')
    end if
    call check(all(rsr(1:rscounts(me + 1)) == [(sum([(v(9, 1 - side, r, first + k), r = 0, rsize - 1)]), &
      k = 1, rscounts(me + 1))]), 'ep_ireduce_scatter data')
    call check(rsr(rscounts(me + 1) + 1) == -1, 'ep_ireduce_scatter wrote past its block')
    do r = me, rsize - 1, size
      call check(rp(r + 1) == v(10, 1 - side, r, 1), 'point-to-point among collectives')
    end do

    ! Blocking ep_alltoallw on the intercommunicator.
    wr = -1
    call ep_alltoallw(ws, wcounts, wdispls, wtypes, wr, wcounts, wdispls, wtypes, inter, ierr)
    call check(ierr == EP_SUCCESS .and. all(wr == [((v(6, 1 - side, r, 10 * me + k), k = 1, 2), r = 0, rsize - 1)]), &
      'ep_alltoallw data')

    ! Bad input, the same on every endpoint; the intercommunicator still works afterwards.
    call ep_iscan(ars, arr, 3, t, MPI_SUM, inter, k, ierr)
    call check_class(ierr, EP_ERR_COMM, 'ep_iscan on an intercommunicator')
    call ep_iallreduce(MPI_IN_PLACE, arr, 3, t, MPI_SUM, inter, k, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'ep_iallreduce MPI_IN_PLACE on an intercommunicator')
    call ep_alltoallw(MPI_IN_PLACE, wcounts, wdispls, wtypes, wr, wcounts, wdispls, wtypes, inter, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'ep_alltoallw MPI_IN_PLACE on an intercommunicator')
    call ep_iallreduce(ars, arr, 3, t, MPI_SUM, inter, req(1), ierr)
    call check_ok(ierr, 'ep_iallreduce after errors')
    call ep_wait(req(1), EP_STATUS_IGNORE, ierr)
    call check(ierr == EP_SUCCESS .and. all(arr == [(sum([(v(7, 1 - side, r, k), r = 0, rsize - 1)]), k = 1, 3)]), &
      'ep_iallreduce after errors data')
  end subroutine all_outstanding
end program icoll_inter
