!> The XIOS client start-up sequence in Fortran, OpenMP threads as endpoints: create the
!> endpoints on the world communicator (team form), allgather every endpoint's role, split
!> into clients and server, create the client-server intercommunicator (on shared processes
!> too: in shape 1x4 the server is a thread of the clients' process), talk across it, merge it
!> (clients first), barrier, free. The last endpoint is the server, the others clients.
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program xios_startup
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  implicit none
  integer, parameter :: client = 0, server = 1
  integer :: world_rank, world_size, n, ierr
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
  call test_finish('xios_startup', world_rank)

contains

  subroutine endpoint_main(index)
    integer, intent(in) :: index
    integer :: world, me, size, role, ierr, intra, inter, merged, local_rank, local_size, remote_size
    integer :: my_leader, other_leader, i, value, clients, mrank, msize, st(EP_STATUS_SIZE)
    integer, allocatable :: roles(:)
    logical :: flag

    ! 1. Endpoints on the world communicator.
    call ep_comm_create_endpoint(MPI_COMM_WORLD, n, index, world, ierr)
    call check_ok(ierr, 'ep_comm_create_endpoint')
    call ep_comm_rank(world, me, ierr)
    call ep_comm_size(world, size, ierr)
    role = merge(server, client, me == size - 1)

    ! 2. Everybody learns everybody's role; the leaders are the first rank of each role.
    allocate(roles(0:size - 1))
    call ep_allgather(role, 1, default_integer_type(), roles, 1, default_integer_type(), world, ierr)
    call check(ierr == EP_SUCCESS .and. roles(size - 1) == server .and. count(roles == server) == 1, &
      'allgather of roles')
    clients = count(roles == client)
    my_leader = findloc(roles, role, dim=1) - 1
    other_leader = findloc(roles, 1 - role, dim=1) - 1

    ! 3. Clients and server apart.
    call ep_comm_split(world, role, me, intra, ierr)
    call check_ok(ierr, 'ep_comm_split')
    call ep_comm_rank(intra, local_rank, ierr)
    call ep_comm_size(intra, local_size, ierr)
    call check(local_rank == me - my_leader .and. local_size == merge(1, clients, role == server), 'split groups')

    ! 4. The intercommunicator, through the world communicator's leaders.
    call ep_intercomm_create(intra, 0, world, other_leader, 77, inter, ierr)
    call check_ok(ierr, 'ep_intercomm_create')
    call ep_comm_test_inter(inter, flag, ierr)
    call ep_comm_remote_size(inter, remote_size, ierr)
    call check(flag .and. ierr == EP_SUCCESS .and. remote_size == merge(clients, 1, role == server), &
      'intercommunicator sizes')

    ! 5. Every client reports to the server (remote rank 0), which answers each one.
    if (role == client) then
      call ep_send(1000 + local_rank, 1, default_integer_type(), 0, 5, inter, ierr)
      call check_ok(ierr, 'client send across')
      call ep_recv(value, 1, default_integer_type(), 0, 6, inter, st, ierr)
      call check(ierr == EP_SUCCESS .and. value == 2000 + local_rank .and. st(EP_SOURCE) == 0, 'server answer')
    else
      do i = 1, clients
        call ep_recv(value, 1, default_integer_type(), EP_ANY_SOURCE, 5, inter, st, ierr)
        call check(ierr == EP_SUCCESS .and. value == 1000 + st(EP_SOURCE), 'client report')
        call ep_send(2000 + st(EP_SOURCE), 1, default_integer_type(), st(EP_SOURCE), 6, inter, ierr)
      end do
    end if

    ! 6. Merge: clients (high = .false.) first, then the server.
    call ep_intercomm_merge(inter, role == server, merged, ierr)
    call check_ok(ierr, 'ep_intercomm_merge')
    call ep_comm_rank(merged, mrank, ierr)
    call ep_comm_size(merged, msize, ierr)
    call check(msize == size .and. mrank == merge(clients, local_rank, role == server), 'merged order')

    ! 7. Barrier, free.
    call ep_barrier(merged, ierr)
    call check_ok(ierr, 'barrier on the merged communicator')
    call ep_comm_free(merged, ierr)
    call ep_comm_free(inter, ierr)
    call check_ok(ierr, 'free intercommunicator')
    call ep_comm_free(intra, ierr)
    call ep_barrier(world, ierr)
    call ep_comm_free(world, ierr)
    call check_ok(ierr, 'free world endpoints')
  end subroutine endpoint_main

end program xios_startup
