!> PROCESS TOPOLOGIES from Fortran, with OpenMP threads as endpoints: a 2-D grid (balanced
!> dims, one periodic dimension) with its queries and subgrids checked against row-major
!> coordinates computed here, a periodic ring and a distributed graph (a weighted ring) with
!> every neighbourhood collective, blocking and not, checked element by element, and bad
!> input (EP_ERR_TOPOLOGY, EP_ERR_DIMS) with the communicator still working.
!>
!> Built with default kinds and with -fdefault-integer-8 -fdefault-real-8 (count arrays of
!> 8-byte integers go through the glue's conversion).
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program topo
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
  call test_finish('topo', world_rank)

contains

  subroutine endpoint_main(comm_in)
    integer, intent(in) :: comm_in
    integer :: comm, ierr
    comm = comm_in
    call grid(comm)
    call ring(comm)
    call graph(comm)
    call whole_graph(comm)
    call bad_input(comm)
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'free')
  end subroutine endpoint_main

  subroutine grid(comm)
    integer, intent(in) :: comm
    integer :: me, size, ierr, dims(2), coords(2), cdims(2), ccoords(2), r, status, nd, src, dst
    integer :: cart, sub, sme, ssize
    logical :: periods(2), cper(2)
    call ep_comm_rank(comm, me, ierr)
    call ep_comm_size(comm, size, ierr)
    dims = 0
    call ep_dims_create(size, 2, dims, ierr)
    call check_ok(ierr, 'ep_dims_create')
    call check(dims(1) * dims(2) == size .and. dims(1) >= dims(2), 'ep_dims_create balanced')
    periods = [.true., .false.]
    call ep_cart_create(comm, 2, dims, periods, .true., cart, ierr)
    call check_ok(ierr, 'ep_cart_create')
    call ep_topo_test(cart, status, ierr)
    call check(status == EP_CART, 'ep_topo_test EP_CART')
    call ep_cartdim_get(cart, nd, ierr)
    call check(nd == 2, 'ep_cartdim_get')
    call ep_cart_get(cart, 2, cdims, cper, ccoords, ierr)
    call check_ok(ierr, 'ep_cart_get')
    coords = [me / dims(2), mod(me, dims(2))]
    call check(all(cdims == dims) .and. (cper(1) .eqv. .true.) .and. (cper(2) .eqv. .false.) &
      .and. all(ccoords == coords), 'ep_cart_get values')
    call ep_cart_coords(cart, size - 1, 2, ccoords, ierr)
    call check(all(ccoords == dims - 1), 'ep_cart_coords of the last rank')
    call ep_cart_rank(cart, [coords(1) - dims(1), coords(2)], r, ierr)
    call check_ok(ierr, 'ep_cart_rank')
    call check(r == me, 'ep_cart_rank wraps around the periodic dimension')
    call ep_cart_shift(cart, 1, 1, src, dst, ierr)
    call check_ok(ierr, 'ep_cart_shift')
    call check(src == merge(EP_PROC_NULL, me - 1, coords(2) == 0), 'ep_cart_shift source')
    call check(dst == merge(EP_PROC_NULL, me + 1, coords(2) == dims(2) - 1), 'ep_cart_shift destination')
    call ep_cart_shift(cart, 0, 1, src, dst, ierr)
    call check(dst == mod(me + dims(2), size) .and. src == mod(me - dims(2) + size, size), 'periodic shift')
    call ep_cart_sub(cart, [.false., .true.], sub, ierr)
    call check_ok(ierr, 'ep_cart_sub')
    call ep_comm_rank(sub, sme, ierr)
    call ep_comm_size(sub, ssize, ierr)
    call check(ssize == dims(2) .and. sme == coords(2), 'ep_cart_sub rank and size')
    call ep_comm_free(sub, ierr)
    call ep_comm_free(cart, ierr)
    call check_ok(ierr, 'free the grid')
  end subroutine grid

  !> Every neighbourhood collective on a periodic ring: in-neighbour i (0: left, 1: right)
  !> sent its block ieor(i, 1) (the block for its own other side).
  subroutine ring(comm)
    integer, intent(in) :: comm
    integer :: me, size, left, right, ierr, cart, i, req, nbr(2), expect
    integer :: sendbuf(2), recvbuf(2), counts(2), displs(2), gathered(4)
    integer(MPI_ADDRESS_KIND) :: bytes(2)
    integer(mpik) :: types(2)
    integer, asynchronous :: isend(2), irecv(2)
    call test_ring(comm, me, size, left, right)
    call ep_cart_create(comm, 1, [size], [.true.], .false., cart, ierr)
    call check_ok(ierr, 'ep_cart_create ring')
    nbr = [left, right]
    sendbuf = [100 * me + 0, 100 * me + 1]
    recvbuf = -1
    call ep_neighbor_alltoall(sendbuf, 1, default_integer_type(), recvbuf, 1, default_integer_type(), cart, ierr)
    call check_ok(ierr, 'ep_neighbor_alltoall')
    do i = 1, 2
      expect = 100 * nbr(i) + ieor(i - 1, 1)
      call check(recvbuf(i) == expect, 'ep_neighbor_alltoall block')
    end do
    isend = sendbuf
    irecv = -1
    call ep_ineighbor_alltoall(isend, 1, default_integer_type(), irecv, 1, default_integer_type(), cart, req, ierr)
    call check_ok(ierr, 'ep_ineighbor_alltoall')
    call ep_wait(req, EP_STATUS_IGNORE, ierr)
    call check(all(irecv == recvbuf), 'ep_ineighbor_alltoall blocks')
    gathered = -1
    call ep_neighbor_allgather(sendbuf, 2, default_integer_type(), gathered, 2, default_integer_type(), cart, ierr)
    call check_ok(ierr, 'ep_neighbor_allgather')
    call check(all(gathered == [100 * left, 100 * left + 1, 100 * right, 100 * right + 1]), &
      'ep_neighbor_allgather blocks')
    gathered = -1
    counts = 1
    displs = [3, 0]
    call ep_neighbor_allgatherv(sendbuf, 1, default_integer_type(), gathered, counts, displs, &
      default_integer_type(), cart, ierr)
    call check_ok(ierr, 'ep_neighbor_allgatherv')
    call check(gathered(4) == 100 * left .and. gathered(1) == 100 * right .and. gathered(2) == -1, &
      'ep_neighbor_allgatherv blocks')
    recvbuf = -1
    call ep_neighbor_alltoallv(sendbuf, counts, [0, 1], default_integer_type(), recvbuf, counts, [1, 0], &
      default_integer_type(), cart, ierr)
    call check_ok(ierr, 'ep_neighbor_alltoallv')
    call check(recvbuf(2) == 100 * left + 1 .and. recvbuf(1) == 100 * right, 'ep_neighbor_alltoallv blocks')
    recvbuf = -1
    bytes = [0_MPI_ADDRESS_KIND, int(storage_size(sendbuf) / 8, MPI_ADDRESS_KIND)]
    types = default_integer_type()
    call ep_neighbor_alltoallw(sendbuf, counts, bytes, types, recvbuf, counts, bytes, types, cart, ierr)
    call check_ok(ierr, 'ep_neighbor_alltoallw')
    call check(recvbuf(1) == 100 * left + 1 .and. recvbuf(2) == 100 * right, 'ep_neighbor_alltoallw blocks')
#ifndef EP_TEST_MPI_NAMES
    ! MPI 4.0 routines, which Open MPI 4.1's Fortran library lacks (pcoll runs the persistent
    ! collectives under the standard names on MPICH).
    call persistent_neighbors(cart, left, right)
#endif
    call ep_comm_free(cart, ierr)
  end subroutine ring

#ifndef EP_TEST_MPI_NAMES
  !> The persistent neighbourhood collectives on the ring `cart`: each started twice, the data
  !> changed between rounds, the blocks checked as for the blocking forms.
  subroutine persistent_neighbors(cart, left, right)
    integer, intent(in) :: cart, left, right
    integer :: me, ierr, round, req(5), counts(2), k
    integer, asynchronous :: sendbuf(2), a2a(2), gat(4), gatv(4), a2av(2), a2aw(2)
    integer(MPI_ADDRESS_KIND) :: bytes(2)
    integer(mpik) :: types(2), info
    call ep_comm_rank(cart, me, ierr)
    info = int(MPI_INFO_NULL, mpik)
    counts = 1
    bytes = [0_MPI_ADDRESS_KIND, int(storage_size(sendbuf) / 8, MPI_ADDRESS_KIND)]
    types = default_integer_type()
    call ep_neighbor_alltoall_init(sendbuf, 1, default_integer_type(), a2a, 1, default_integer_type(), cart, info, &
      req(1), ierr)
    call check_ok(ierr, 'ep_neighbor_alltoall_init')
    call ep_neighbor_allgather_init(sendbuf, 2, default_integer_type(), gat, 2, default_integer_type(), cart, info, &
      req(2), ierr)
    call check_ok(ierr, 'ep_neighbor_allgather_init')
    call ep_neighbor_allgatherv_init(sendbuf, 1, default_integer_type(), gatv, counts, [3, 0], &
      default_integer_type(), cart, info, req(3), ierr)
    call check_ok(ierr, 'ep_neighbor_allgatherv_init')
    call ep_neighbor_alltoallv_init(sendbuf, counts, [0, 1], default_integer_type(), a2av, counts, [1, 0], &
      default_integer_type(), cart, info, req(4), ierr)
    call check_ok(ierr, 'ep_neighbor_alltoallv_init')
    call ep_neighbor_alltoallw_init(sendbuf, counts, bytes, types, a2aw, counts, bytes, types, cart, info, &
      req(5), ierr)
    call check_ok(ierr, 'ep_neighbor_alltoallw_init')
    do round = 1, 2
      sendbuf = [1000 * round + 100 * me + 0, 1000 * round + 100 * me + 1]
      a2a = -1
      gat = -1
      gatv = -1
      a2av = -1
      a2aw = -1
      ! One at a time: they share the send buffer, which a round may read until it completes.
      do k = 1, 5
        call ep_start(req(k), ierr)
        call check_ok(ierr, 'ep_start of a persistent neighbourhood collective')
        call ep_wait(req(k), EP_STATUS_IGNORE, ierr)
        call check_ok(ierr, 'ep_wait of a persistent neighbourhood collective')
      end do
      call check(a2a(1) == 1000 * round + 100 * left + 1 .and. a2a(2) == 1000 * round + 100 * right, &
        'ep_neighbor_alltoall_init blocks')
      call check(all(gat == 1000 * round + [100 * left, 100 * left + 1, 100 * right, 100 * right + 1]), &
        'ep_neighbor_allgather_init blocks')
      call check(gatv(4) == 1000 * round + 100 * left .and. gatv(1) == 1000 * round + 100 * right &
        .and. gatv(2) == -1, 'ep_neighbor_allgatherv_init blocks')
      call check(a2av(2) == 1000 * round + 100 * left + 1 .and. a2av(1) == 1000 * round + 100 * right, &
        'ep_neighbor_alltoallv_init blocks')
      call check(a2aw(1) == 1000 * round + 100 * left + 1 .and. a2aw(2) == 1000 * round + 100 * right, &
        'ep_neighbor_alltoallw_init blocks')
    end do
    do k = 1, 5
      call ep_request_free(req(k), ierr)
      call check_ok(ierr, 'ep_request_free of a persistent neighbourhood collective')
    end do
  end subroutine persistent_neighbors
#endif

  !> A weighted ring as a distributed graph: each rank receives from its left neighbour and
  !> sends to its right one.
  subroutine graph(comm)
    integer, intent(in) :: comm
    integer :: me, size, left, right, ierr, g, indeg, outdeg, status, src(1), dst(1), sw(1), dw(1), got(1)
    logical :: weighted
    call test_ring(comm, me, size, left, right)
    call ep_dist_graph_create_adjacent(comm, 1, [left], [10 * left + me], 1, [right], [10 * me + right], &
      MPI_INFO_NULL, .false., g, ierr)
    call check_ok(ierr, 'ep_dist_graph_create_adjacent')
    call ep_topo_test(g, status, ierr)
    call check(status == EP_DIST_GRAPH, 'ep_topo_test EP_DIST_GRAPH')
    call ep_dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    call check(indeg == 1 .and. outdeg == 1 .and. weighted, 'ep_dist_graph_neighbors_count')
    call ep_dist_graph_neighbors(g, 1, src, sw, 1, dst, dw, ierr)
    call check_ok(ierr, 'ep_dist_graph_neighbors')
    call check(src(1) == left .and. dst(1) == right .and. sw(1) == 10 * left + me .and. dw(1) == 10 * me + right, &
      'ep_dist_graph_neighbors values')
    got = -1
    call ep_neighbor_allgather([me], 1, default_integer_type(), got, 1, default_integer_type(), g, ierr)
    call check_ok(ierr, 'ep_neighbor_allgather on a graph')
    call check(got(1) == left, 'ep_neighbor_allgather on a graph: block')
    call ep_comm_free(g, ierr)
    call ep_dist_graph_create_adjacent(comm, 1, [left], EP_UNWEIGHTED, 1, [right], EP_UNWEIGHTED, &
      MPI_INFO_NULL, .false., g, ierr)
    call check_ok(ierr, 'ep_dist_graph_create_adjacent unweighted')
    call ep_dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    call check(.not. weighted, 'unweighted graph')
    call ep_comm_free(g, ierr)
    ! The same ring given by each rank's left neighbour's edge, from this rank.
    call ep_dist_graph_create(comm, 1, [left], [1], [me], [10 * left + me], MPI_INFO_NULL, .false., g, ierr)
    call check_ok(ierr, 'ep_dist_graph_create')
    call ep_dist_graph_neighbors(g, 1, src, sw, 1, dst, dw, ierr)
    call check(src(1) == left .and. dst(1) == right .and. sw(1) == 10 * left + me .and. dw(1) == 10 * me + right, &
      'ep_dist_graph_create neighbours')
    call ep_comm_free(g, ierr)
  end subroutine graph

  !> A ring given whole to every rank (ep_graph_create): node r's neighbours r-1, r+1.
  subroutine whole_graph(comm)
    integer, intent(in) :: comm
    integer :: me, size, left, right, ierr, g, r, status, nn, ne, k, nb(2), newrank
    integer, allocatable :: index(:), edges(:), gi(:), ge(:)
    integer :: got(2)
    call test_ring(comm, me, size, left, right)
    allocate(index(size), edges(2 * size), gi(size), ge(2 * size))
    do r = 0, size - 1
      index(r + 1) = 2 * (r + 1)
      edges(2 * r + 1) = mod(r - 1 + size, size)
      edges(2 * r + 2) = mod(r + 1, size)
    end do
    call ep_graph_map(comm, size, index, edges, newrank, ierr)
    call check_ok(ierr, 'ep_graph_map')
    call check(newrank == me, 'ep_graph_map rank')
    call ep_cart_map(comm, 1, [size - 1], [.true.], newrank, ierr)
    call check_ok(ierr, 'ep_cart_map')
    call check(newrank == merge(EP_UNDEFINED, me, me == size - 1), 'ep_cart_map rank')
    call ep_graph_create(comm, size, index, edges, .false., g, ierr)
    call check_ok(ierr, 'ep_graph_create')
    call ep_topo_test(g, status, ierr)
    call check(status == EP_GRAPH, 'ep_topo_test EP_GRAPH')
    call ep_graphdims_get(g, nn, ne, ierr)
    call check(nn == size .and. ne == 2 * size, 'ep_graphdims_get')
    call ep_graph_get(g, size, 2 * size, gi, ge, ierr)
    call check(all(gi == index) .and. all(ge == edges), 'ep_graph_get')
    call ep_graph_neighbors_count(g, me, k, ierr)
    call ep_graph_neighbors(g, me, 2, nb, ierr)
    call check(k == 2 .and. nb(1) == left .and. nb(2) == right, 'ep_graph_neighbors')
    got = -1
    call ep_neighbor_alltoall([100 * me, 100 * me + 1], 1, default_integer_type(), got, 1, default_integer_type(), &
      g, ierr)
    call check_ok(ierr, 'ep_neighbor_alltoall on a graph')
    ! Left's block for its 2nd neighbour (this rank), right's for its 1st; on 2 ranks both
    ! neighbours are one rank, matched in order.
    if (size > 2) call check(got(1) == 100 * left + 1 .and. got(2) == 100 * right, &
      'ep_neighbor_alltoall on a graph: blocks')
    call ep_comm_free(g, ierr)
  end subroutine whole_graph

  subroutine bad_input(comm)
    integer, intent(in) :: comm
    integer :: me, size, ierr, coords(2), cart, total, x(2)
    call ep_comm_rank(comm, me, ierr)
    call ep_comm_size(comm, size, ierr)
    call ep_cart_coords(comm, 0, 2, coords, ierr)
    call check_class(ierr, EP_ERR_TOPOLOGY, 'ep_cart_coords without a topology')
    call ep_neighbor_alltoall([1], 1, default_integer_type(), x, 1, default_integer_type(), comm, ierr)
    call check_class(ierr, EP_ERR_TOPOLOGY, 'ep_neighbor_alltoall without a topology')
    call ep_cart_create(comm, -1, [1], [.false.], .false., cart, ierr)
    call check_class(ierr, EP_ERR_DIMS, 'ep_cart_create ndims -1')
    call ep_cart_create(comm, 1, [size + 1], [.false.], .false., cart, ierr)
    call check_class(ierr, EP_ERR_DIMS, 'ep_cart_create grid above the size')
    call ep_allreduce(me, total, 1, default_integer_type(), MPI_SUM, comm, ierr)
    call check(total == size * (size - 1) / 2, 'ep_allreduce after errors')
  end subroutine bad_input

end program topo
