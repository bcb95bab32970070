!> Bad input through `use ep_mpi` with `ierror`, a representative subset of
!> tests/c/bad_input.c: made-up, wrong-kind and freed handles, out-of-range rank and tag,
!> truncation, a freed communicator, one-sided calls outside an epoch and with a bad lock
!> type. Rank 0 makes the bad calls while the other endpoints keep a ring going among
!> themselves; afterwards every endpoint checks that messages, a collective and the window
!> still work. Each call must give its class, and its error string must name the C call.
program bad_input
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
  call test_finish('bad_input', world_rank)

contains

  !> `ierror` has class `expected` and its message names `call_name`.
  subroutine expect(ierror, expected, call_name, what)
    integer, intent(in) :: ierror, expected
    character(len=*), intent(in) :: call_name, what
    character(len=EP_MAX_ERROR_STRING) :: message
    integer :: length, rc
    call check_class(ierror, expected, what)
    call ep_error_string(ierror, message, length, rc)
    call check(length > 0 .and. index(message(1:length), call_name) > 0, &
      what // ': message does not name ' // call_name // ': ' // message(1:max(length, 1)))
  end subroutine expect

  subroutine bad_calls(comm, win, freed_comm, size)
    integer, intent(in) :: comm, win, freed_comm, size
    integer :: ierr, x, r, st(EP_STATUS_SIZE), big(8), small(4), i
    integer, asynchronous :: one

    ! Handles: made up, of another kind, freed.
    call ep_send(x, 1, default_integer_type(), 0, 0, 987654, ierr)
    call expect(ierr, EP_ERR_COMM, 'EP_Send', 'made-up communicator')
    call ep_comm_rank(win, x, ierr)
    call expect(ierr, EP_ERR_COMM, 'EP_Comm_rank', 'window handle as communicator')
    call ep_comm_size(freed_comm, x, ierr)
    call expect(ierr, EP_ERR_COMM, 'EP_Comm_size', 'freed communicator')
    call ep_barrier(freed_comm, ierr)
    call expect(ierr, EP_ERR_COMM, 'EP_Barrier', 'freed communicator')
    r = 424242
    call ep_wait(r, st, ierr)
    call expect(ierr, EP_ERR_REQUEST, 'EP_Wait', 'made-up request')
    call ep_win_fence(0_mpik, comm, ierr)
    call expect(ierr, EP_ERR_WIN, 'EP_Win_fence', 'communicator handle as window')

    ! Ranks, roots, tags, counts out of range.
    call ep_send(x, 1, default_integer_type(), size, 0, comm, ierr)
    call expect(ierr, EP_ERR_RANK, 'EP_Send', 'dest = size')
    call ep_recv(x, 1, default_integer_type(), 0, -5, comm, st, ierr)
    call expect(ierr, EP_ERR_TAG, 'EP_Recv', 'tag -5')
    call ep_send(x, -1, default_integer_type(), 0, 0, comm, ierr)
    call expect(ierr, EP_ERR_COUNT, 'EP_Send', 'count -1')
    call ep_bcast(x, 1, default_integer_type(), size, comm, ierr)
    call expect(ierr, EP_ERR_ROOT, 'EP_Bcast', 'root = size')

    ! Truncation (a message to itself): first part delivered, status filled.
    big = [(i, i = 1, 8)]
    small = -1
    call ep_isend(big, 8, default_integer_type(), 0, 31, comm, r, ierr)
    call check_ok(ierr, 'ep_isend to itself')
    call ep_recv(small, 4, default_integer_type(), 0, 31, comm, st, ierr)
    call expect(ierr, EP_ERR_TRUNCATE, 'EP_Recv', '8 integers into 4')
    call check(all(small == [1, 2, 3, 4]) .and. st(EP_TAG) == 31, 'truncated data or status')
    call ep_wait(r, EP_STATUS_IGNORE, ierr)
    call check_ok(ierr, 'wait for the send to itself')

    ! One-sided calls outside an epoch, bad lock type, rank out of range.
    one = 1
    call ep_put(one, 1, default_integer_type(), 0, 0_MPI_ADDRESS_KIND, 1, default_integer_type(), win, ierr)
    call expect(ierr, EP_ERR_RMA_SYNC, 'EP_Put', 'put outside an epoch')
    call ep_win_unlock(0, win, ierr)
    call expect(ierr, EP_ERR_RMA_SYNC, 'EP_Win_unlock', 'unlock without lock')
    call ep_win_lock(12345_mpik, 0, 0_mpik, win, ierr)
    call expect(ierr, EP_ERR_LOCKTYPE, 'EP_Win_lock', 'lock type 12345')
    call ep_win_lock(MPI_LOCK_SHARED, size, 0_mpik, win, ierr)
    call expect(ierr, EP_ERR_RANK, 'EP_Win_lock', 'rank = size')
  end subroutine bad_calls

  subroutine endpoint_main(comm_in)
    integer, intent(in) :: comm_in
    integer :: comm, dup, freed, win, me, size, left, right, ierr, round, out, in, sum, k
    ! Window memory and origin data are asynchronous: one-sided calls change them behind
    ! the compiler's back.
    integer, allocatable, asynchronous :: mem(:)
    integer, asynchronous :: value

    comm = comm_in
    call test_ring(comm, me, size, left, right)
    allocate(mem(1))
    mem = -1
    call ep_win_create(mem, int(storage_size(me) / 8, MPI_ADDRESS_KIND), storage_size(me) / 8, MPI_INFO_NULL, &
      comm, win, ierr)
    call check_ok(ierr, 'ep_win_create')
    call ep_comm_dup(comm, dup, ierr)
    call check_ok(ierr, 'ep_comm_dup')
    freed = dup
    call ep_comm_free(dup, ierr)
    call check_ok(ierr, 'ep_comm_free')
    call ep_comm_free(freed, ierr)
    call expect(ierr, EP_ERR_COMM, 'EP_Comm_free', 'communicator freed twice')
    call ep_barrier(comm, ierr)

    if (me == 0) then
      call bad_calls(comm, win, freed, size)
    else
      ! Ring among ranks 1..size-1 while rank 0 makes bad calls.
      k = me - 1
      do round = 1, 100
        out = 1000 * me + round
        call ep_sendrecv(out, 1, default_integer_type(), 1 + mod(k + 1, size - 1), 77, in, 1, default_integer_type(), &
          1 + mod(k - 1 + size - 1, size - 1), 77, comm, EP_STATUS_IGNORE, ierr)
        call check(ierr == EP_SUCCESS .and. in == 1000 * (1 + mod(k - 1 + size - 1, size - 1)) + round, 'ring round')
      end do
    end if

    ! Everything still works on every endpoint.
    call ep_sendrecv(me, 1, default_integer_type(), right, 78, in, 1, default_integer_type(), left, 78, comm, &
      EP_STATUS_IGNORE, ierr)
    call check(ierr == EP_SUCCESS .and. in == left, 'ring after the bad calls')
    call ep_allreduce(me, sum, 1, default_integer_type(), MPI_SUM, comm, ierr)
    call check(ierr == EP_SUCCESS .and. sum == size * (size - 1) / 2, 'allreduce after the bad calls')
    call ep_win_fence(0_mpik, win, ierr)
    value = me
    call ep_put(value, 1, default_integer_type(), right, 0_MPI_ADDRESS_KIND, 1, default_integer_type(), win, ierr)
    call check_ok(ierr, 'put after the bad calls')
    call ep_win_fence(0_mpik, win, ierr)
    call check(mem(1) == left, 'put result after the bad calls')
    call ep_win_free(win, ierr)
    call check_ok(ierr, 'ep_win_free')
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'ep_comm_free')
  end subroutine endpoint_main

end program bad_input
