!> PERSISTENT COLLECTIVES from Fortran, with OpenMP threads as endpoints: ep_barrier_init,
!> ep_bcast_init, ep_allreduce_init (and MPI_IN_PLACE), ep_reduce_init, ep_scan_init,
!> ep_exscan_init, ep_gather_init, ep_scatter_init, ep_allgather_init, ep_alltoall_init,
!> ep_reduce_scatter_block_init, ep_gatherv_init, ep_scatterv_init, ep_allgatherv_init,
!> ep_alltoallv_init and ep_reduce_scatter_init made once, run for many rounds (ep_startall,
!> or ep_start of each) with the data changed before each round, each result checked against
!> values computed here; the count arrays overwritten after init; a bad root refused at init.
!>
!> Built with default kinds and with -fdefault-integer-8 -fdefault-real-8 (count arrays of
!> 8-byte integers go through the glue's conversion).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program pcoll
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
  call test_finish('pcoll', world_rank)

contains

  !> Rank r's element k (1-based) in round c.
  elemental function v(c, r, k) result(x)
    integer, intent(in) :: c, r, k
    integer :: x
    x = 1000 * c + 10 * r + k
  end function v

  subroutine endpoint_main(comm_in)
    integer, intent(in) :: comm_in
    integer :: comm, ierr
    comm = comm_in
    call rounds(comm)
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'free')
  end subroutine endpoint_main

  subroutine rounds(comm)
    integer, intent(in) :: comm
    integer, parameter :: nround = 100, nreq = 17
    integer :: me, size, left, right, ierr, i, r, k, c, root, tot, at
    integer(mpik) :: t
    integer :: req(nreq)
    integer, asynchronous :: bc(3), ars(2), arr(2), arip(2), rdr(2), scr(2), exr(2), scs(2), gas(2), scatr(2)
    integer, asynchronous :: ags(1), rsbr(2), svr(1)
    integer, allocatable, asynchronous :: gar(:), scats(:), agr(:), a2as(:), a2ar(:), a2aip(:), rsbs(:)
    integer, allocatable, asynchronous :: gvr(:), gvs(:), svs(:), agvr(:), avs(:), avr(:), rss(:)
    integer :: rsr(2)
    integer, allocatable :: gcounts(:), gdispls(:), ones(:), ranks(:), rscounts(:), want(:)
    asynchronous :: rsr

    t = default_integer_type()
    call test_ring(comm, me, size, left, right)
    root = size - 1
    allocate(gar(2 * size), scats(2 * size), agr(size), a2as(2 * size), a2ar(2 * size), a2aip(2 * size))
    allocate(rsbs(2 * size), gcounts(size), gdispls(size), ones(size), ranks(size), rscounts(size))
    allocate(gvs(2), svs(size), agvr(size), avs(size), avr(size), gvr(3 * size), want(3 * size))
    ranks = [(r, r = 0, size - 1)]
    ! Gatherv: rank r gives mod(r, 3) elements, blocks in reverse rank order with one gap each.
    tot = 0
    do r = size - 1, 0, -1
      gcounts(r + 1) = mod(r, 3)
      gdispls(r + 1) = tot
      tot = tot + mod(r, 3) + 1
    end do
    ones = 1
    rscounts = mod(ranks, 2) + 1
    allocate(rss(sum(rscounts)))

    call ep_barrier_init(comm, MPI_INFO_NULL, req(1), ierr)
    call check_ok(ierr, 'barrier_init')
    call ep_bcast_init(bc, 3, t, root, comm, MPI_INFO_NULL, req(2), ierr)
    call check_ok(ierr, 'bcast_init')
    call ep_allreduce_init(ars, arr, 2, t, MPI_SUM, comm, MPI_INFO_NULL, req(3), ierr)
    call check_ok(ierr, 'allreduce_init')
    call ep_allreduce_init(MPI_IN_PLACE, arip, 2, t, MPI_MAX, comm, MPI_INFO_NULL, req(4), ierr)
    call check_ok(ierr, 'allreduce_init in place')
    call ep_reduce_init(ars, rdr, 2, t, MPI_SUM, 0, comm, MPI_INFO_NULL, req(5), ierr)
    call check_ok(ierr, 'reduce_init')
    call ep_scan_init(scs, scr, 2, t, MPI_SUM, comm, MPI_INFO_NULL, req(6), ierr)
    call check_ok(ierr, 'scan_init')
    call ep_exscan_init(scs, exr, 2, t, MPI_SUM, comm, MPI_INFO_NULL, req(7), ierr)
    call check_ok(ierr, 'exscan_init')
    call ep_gather_init(gas, 2, t, gar, 2, t, root, comm, MPI_INFO_NULL, req(8), ierr)
    call check_ok(ierr, 'gather_init')
    call ep_scatter_init(scats, 2, t, scatr, 2, t, root, comm, MPI_INFO_NULL, req(9), ierr)
    call check_ok(ierr, 'scatter_init')
    call ep_allgather_init(ags, 1, t, agr, 1, t, comm, MPI_INFO_NULL, req(10), ierr)
    call check_ok(ierr, 'allgather_init')
    call ep_alltoall_init(a2as, 2, t, a2ar, 2, t, comm, MPI_INFO_NULL, req(11), ierr)
    call check_ok(ierr, 'alltoall_init')
    call ep_alltoall_init(MPI_IN_PLACE, 0, t, a2aip, 2, t, comm, MPI_INFO_NULL, req(12), ierr)
    call check_ok(ierr, 'alltoall_init in place')
    call ep_reduce_scatter_block_init(rsbs, rsbr, 2, t, MPI_SUM, comm, MPI_INFO_NULL, req(13), ierr)
    call check_ok(ierr, 'reduce_scatter_block_init')
    call ep_gatherv_init(gvs, mod(me, 3), t, gvr, gcounts, gdispls, t, 0, comm, MPI_INFO_NULL, req(14), ierr)
    call check_ok(ierr, 'gatherv_init')
    call ep_scatterv_init(svs, ones, ranks, t, svr, 1, t, 0, comm, MPI_INFO_NULL, req(15), ierr)
    call check_ok(ierr, 'scatterv_init')
    call ep_allgatherv_init(ags, 1, t, agvr, ones, size - 1 - ranks, t, comm, MPI_INFO_NULL, req(16), ierr)
    call check_ok(ierr, 'allgatherv_init')
    call ep_alltoallv_init(avs, ones, ranks, t, avr, ones, size - 1 - ranks, t, comm, MPI_INFO_NULL, &
      req(17), ierr)
    call check_ok(ierr, 'alltoallv_init')
    ! Read at init: changing them now changes nothing.
    gcounts = -3
    gdispls = -3
    ones = -3
    do c = 1, nround
      bc = -1
      if (me == root) bc = v(c, root, [1, 2, 3])
      ars = v(c, me, [1, 2])
      arip = v(c, me, [1, 2]) * merge(-1, 1, mod(me, 2) == 1)
      scs = v(c, me, [1, 2])
      arr = -1
      rdr = -1
      scr = -1
      exr = -5
      gas = v(c, me, [1, 2])
      gar = -1
      scats = [(v(c, (i - 1) / 2, mod(i - 1, 2) + 1), i = 1, 2 * size)]
      scatr = -1
      ags = v(c, me, 7)
      agr = -1
      a2as = v(c, me, [(i, i = 1, 2 * size)])
      a2ar = -1
      a2aip = v(c, me, [(i, i = 1, 2 * size)]) + 3
      rsbs = v(c, me, [(i, i = 1, 2 * size)])
      rsbr = -1
      gvs = v(c, me, [1, 2])
      gvr = -1
      svs = v(c, ranks, 5)
      svr = -1
      agvr = -1
      avs = v(c, me, ranks + 20)
      avr = -1
      if (mod(c, 2) == 0) then
        call ep_startall(nreq, req, ierr)
        call check_ok(ierr, 'startall')
      else
        do i = 1, nreq
          call ep_start(req(i), ierr)
          call check_ok(ierr, 'start')
        end do
      end if
      call ep_waitall(nreq, req, EP_STATUSES_IGNORE, ierr)
      call check_ok(ierr, 'waitall')
      do i = 1, nreq
        call check(req(i) /= EP_REQUEST_NULL, 'completion keeps a persistent request')
      end do
      call check(all(bc == v(c, root, [1, 2, 3])), 'bcast')
      call check(all(arr == [(sum(v(c, ranks, k)), k = 1, 2)]), 'allreduce')
      call check(all(arip == [(maxval(v(c, ranks, k) * merge(-1, 1, mod(ranks, 2) == 1)), k = 1, 2)]), &
        'allreduce in place')
      if (me == 0) call check(all(rdr == [(sum(v(c, ranks, k)), k = 1, 2)]), 'reduce')
      call check(all(scr == [(sum(v(c, ranks(1:me + 1), k)), k = 1, 2)]), 'scan')
      if (me > 0) then
        call check(all(exr == [(sum(v(c, ranks(1:me), k)), k = 1, 2)]), 'exscan')
      else
        call check(all(exr == -5), 'exscan leaves rank 0')
      end if
      if (me == root) call check(all(gar == [(v(c, (i - 1) / 2, mod(i - 1, 2) + 1), i = 1, 2 * size)]), 'gather')
      call check(all(scatr == v(c, me, [1, 2])), 'scatter')
      call check(svr(1) == v(c, me, 5), 'scatterv')
      call check(all(agr == v(c, ranks, 7)), 'allgather')
      call check(all(a2ar == [(v(c, (i - 1) / 2, 2 * me + mod(i - 1, 2) + 1), i = 1, 2 * size)]), 'alltoall')
      call check(all(a2aip == [(v(c, (i - 1) / 2, 2 * me + mod(i - 1, 2) + 1) + 3, i = 1, 2 * size)]), &
        'alltoall in place')
      call check(all(rsbr == [(sum(v(c, ranks, 2 * me + k)), k = 1, 2)]), 'reduce_scatter_block')
      if (me == 0) then
        want = -1
        at = 0
        do r = size - 1, 0, -1
          want(at + 1:at + mod(r, 3)) = v(c, r, [(k, k = 1, mod(r, 3))])
          at = at + mod(r, 3) + 1
        end do
        call check(all(gvr(1:at) == want(1:at)), 'gatherv')
      end if
      call check(all(agvr == v(c, size - 1 - ranks, 7)), 'allgatherv')
      call check(all(avr == v(c, size - 1 - ranks, me + 20)), 'alltoallv')
    end do
    ! Reduce_scatter: made, run a few rounds and freed on its own.
    call ep_reduce_scatter_init(rss, rsr, rscounts, t, MPI_SUM, comm, MPI_INFO_NULL, i, ierr)
    call check_ok(ierr, 'reduce_scatter_init')
    do c = 1, 20
      rss = v(c, me, [(k, k = 1, ubound(rss, 1))])
      rsr = -1
      call ep_start(i, ierr)
      call ep_wait(i, EP_STATUS_IGNORE, ierr)
      call check_ok(ierr, 'reduce_scatter round')
      at = sum(rscounts(1:me))
      call check(all(rsr(1:rscounts(me + 1)) == [(sum(v(c, ranks, at + k)), k = 1, rscounts(me + 1))]), &
        'reduce_scatter')
    end do
    call ep_request_free(i, ierr)
    call check(i == EP_REQUEST_NULL, 'request_free sets EP_REQUEST_NULL')
    do i = 1, nreq
      call ep_request_free(req(i), ierr)
      call check_ok(ierr, 'request_free')
    end do
    ! Bad input at init: nothing made, the communicator works.
    call ep_bcast_init(bc, 1, t, size, comm, MPI_INFO_NULL, i, ierr)
    call check_class(ierr, EP_ERR_ROOT, 'bcast_init with root = size')
    call ep_allreduce_init(ars, arr, -1, t, MPI_SUM, comm, MPI_INFO_NULL, i, ierr)
    call check_class(ierr, EP_ERR_COUNT, 'allreduce_init with count -1')
    ars = me
    call ep_allreduce_init(ars, arr, 1, t, MPI_SUM, comm, MPI_INFO_NULL, i, ierr)
    call ep_start(i, ierr)
    call ep_wait(i, EP_STATUS_IGNORE, ierr)
    call check(arr(1) == size * (size - 1) / 2, 'allreduce after bad input')
    call ep_request_free(i, ierr)
  end subroutine rounds

end program pcoll
