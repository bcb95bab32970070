!> Error codes through `ierror` from Fortran, under EP_ERRORS_RETURN: bad rank, tag, count,
!> communicator and request handles, truncation (status still filled), non-contiguous
!> sections refused by nonblocking calls, error classes and strings naming the call, error
!> handlers per endpoint, and calls without `ierror` that fail and return.
#ifdef EP_TEST_MPI_NAMES
#include "ep_as_mpi.h"
#endif
program errors
  use omp_lib
  use mpi
  use ep_mpi
  use ep_test_support
  implicit none
  integer :: world_rank, world_size, n, ierr, handler
  integer, allocatable :: handles(:)

  call test_init(world_rank, world_size)
  n = test_count_for(world_rank)
#ifdef EP_TEST_MPI_NAMES
  ! The process default handler is MPI_COMM_SELF's under the standard names (test_init).
  call ep_comm_get_errhandler(MPI_COMM_SELF, handler, ierr)
#else
  call ep_comm_get_errhandler(EP_COMM_NULL, handler, ierr)
#endif
  call check(ierr == EP_SUCCESS .and. handler == EP_ERRORS_RETURN, 'process default handler is EP_ERRORS_RETURN')
  allocate(handles(max(n, 1)))
  call ep_comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, handles, ierr)
  call check_ok(ierr, 'ep_comm_create_endpoints')
  call ep_comm_create_endpoints(MPI_COMM_WORLD, -1, MPI_INFO_NULL, handles, ierr)
  call check_class(ierr, EP_ERR_ARG, 'negative endpoint count')
  call ep_comm_create_endpoints(MPI_COMM_NULL, 1, MPI_INFO_NULL, handles, ierr)
  call check_class(ierr, EP_ERR_COMM, 'MPI_COMM_NULL parent')
  if (n > 0) then
    !$omp parallel num_threads(n) default(shared)
    call endpoint_main(handles(omp_get_thread_num() + 1))
    !$omp end parallel
  end if
  call test_finish('errors', world_rank)

contains

  subroutine endpoint_main(comm_in)
    integer, intent(in) :: comm_in
    integer :: comm, dup, me, size, left, right, ierr, cls, length, handler, r, st(EP_STATUS_SIZE), i
    integer :: x, y, big(10), small(5), rc
    integer, asynchronous :: grid(4, 4)
    logical :: flag
    character(len=EP_MAX_ERROR_STRING) :: message
    character(len=8) :: short

    comm = comm_in
    call test_ring(comm, me, size, left, right)
    call ep_comm_get_errhandler(comm, handler, ierr)
    call check(ierr == EP_SUCCESS .and. handler == EP_ERRORS_RETURN, 'communicator inherits EP_ERRORS_RETURN')
    x = me

    ! Bad arguments: each call returns its class and leaves the endpoint working.
    call ep_send(x, 1, default_integer_type(), 1000000, 0, comm, ierr)
    call check_class(ierr, EP_ERR_RANK, 'send to rank 1000000')
    call ep_error_string(ierr, message, length, rc)
    call check(index(message(1:length), 'EP_Send') > 0 .and. index(message, '1000000') > 0, &
      'error string names the call and the rank: ' // message(1:length))
    call ep_send(x, 1, default_integer_type(), right, -5, comm, ierr)
    call check_class(ierr, EP_ERR_TAG, 'negative tag')
    call ep_send(x, -1, default_integer_type(), right, 0, comm, ierr)
    call check_class(ierr, EP_ERR_COUNT, 'negative count')
    call ep_send(x, 1, MPI_DATATYPE_NULL, right, 0, comm, ierr)
    call check_class(ierr, EP_ERR_TYPE, 'MPI_DATATYPE_NULL')
    call ep_recv(x, 1, default_integer_type(), left, EP_ANY_TAG - 7, comm, st, ierr)
    call check_class(ierr, EP_ERR_TAG, 'receive with tag -8')
#ifndef EP_TEST_MPI_NAMES
    ! Made-up handles are the host's under the standard names (erroneous MPI): Open MPI
    ! dereferences what its f2c makes of them.
    call ep_send(x, 1, default_integer_type(), right, 0, 987654, ierr)
    call check_class(ierr, EP_ERR_COMM, 'bad communicator handle')
#endif
    call ep_send(x, 1, default_integer_type(), right, 0, EP_COMM_NULL, ierr)
    call check_class(ierr, EP_ERR_COMM, 'EP_COMM_NULL')
#ifndef EP_TEST_MPI_NAMES
    r = 424242
    call ep_wait(r, st, ierr)
    call check_class(ierr, EP_ERR_REQUEST, 'bad request handle')
#endif
    call ep_comm_set_errhandler(comm, 77, ierr)
    call check_class(ierr, EP_ERR_ARG, 'unknown error handler')
#ifndef EP_TEST_MPI_NAMES
    ! MPI_Error_class takes no handle: under the standard names it is the host's, whose answer
    ! for a code that is none is its own.
    call ep_error_class(-3, cls, ierr)
    call check_class(ierr, EP_ERR_ARG, 'error class of -3')
#endif
    call ep_error_class(EP_ERR_TAG, cls, ierr)
    call check(ierr == EP_SUCCESS .and. cls == EP_ERR_TAG, 'a class is its own class')

    ! A freed communicator handle.
    call ep_comm_dup(comm, dup, ierr)
    call check_ok(ierr, 'dup')
    i = dup
    call ep_comm_free(dup, ierr)
    call check_ok(ierr, 'free dup')
    call ep_comm_rank(i, x, ierr)
    call check_class(ierr, EP_ERR_COMM, 'rank of a freed communicator')

#ifndef EP_TEST_MPI_NAMES
    ! Calls without ierror fail and return under EP_ERRORS_RETURN (ierror is optional in
    ! `use ep_mpi`, required in `use mpi`).
    call ep_send(x, 1, default_integer_type(), 1000000, 0, comm)
    call ep_comm_rank(987654, x)
#endif

    ! Truncation: the first part arrives, the status is filled.
    big = [(100 * me + i, i = 1, 10)]
    small = -1
    call ep_send(big, 10, default_integer_type(), right, 20, comm, ierr)
    call check_ok(ierr, 'send for truncation')
    call ep_recv(small, 5, default_integer_type(), left, 20, comm, st, ierr)
    call check_class(ierr, EP_ERR_TRUNCATE, 'truncated receive')
    call check(st(EP_SOURCE) == left .and. st(EP_TAG) == 20, 'status of a truncated receive')
    call check(all(small == [(100 * left + i, i = 1, 5)]), 'first part of a truncated message')
    call ep_error_string(ierr, message, length, rc)
    call check(index(message(1:length), 'truncated') > 0, 'truncation message')
#ifndef EP_TEST_MPI_NAMES
    ! A string shorter than the message is cut and blank-padded (`use mpi` wants at least
    ! MPI_MAX_ERROR_STRING characters: MPICH writes past a shorter one).
    call ep_error_string(ierr, short, length, rc)
    call check(length == len(short) .and. short == message(1:len(short)), 'short error string')
#endif

    ! Nonblocking calls refuse non-contiguous sections (they would need a copy that moves).
    grid = me
#ifndef EP_TEST_MPI_NAMES
    ! `use ep_mpi` refuses a non-contiguous section in a nonblocking call; `use mpi` passes a
    ! temporary copy, which MPI 4.1 section 19.1.12 makes erroneous: not checked there.
    call ep_isend(grid(1, :), 4, default_integer_type(), right, 21, comm, r, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'ep_isend of a non-contiguous section')
    call check(r == EP_REQUEST_NULL, 'refused isend gives no request')
    call ep_irecv(grid(2, :), 4, default_integer_type(), left, 21, comm, r, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'ep_irecv of a non-contiguous section')
    call ep_issend(grid(:, 1:4:2), 8, default_integer_type(), right, 21, comm, r, ierr)
    call check_class(ierr, EP_ERR_BUFFER, 'ep_issend of a strided section')
#endif
    ! A contiguous section is fine.
    call ep_isend(grid(:, 2), 4, default_integer_type(), right, 22, comm, r, ierr)
    call check_ok(ierr, 'ep_isend of a contiguous column')
    call ep_recv(big, 4, default_integer_type(), left, 22, comm, EP_STATUS_IGNORE, ierr)
    call ep_wait(r, EP_STATUS_IGNORE, ierr)
    call check(ierr == EP_SUCCESS .and. all(big(1:4) == left), 'contiguous column data')

    ! Matched probe: receiving a message handle twice is an error.
    call ep_send(x, 1, default_integer_type(), right, 23, comm, ierr)
    call ep_mprobe(left, 23, comm, r, st, ierr)
    i = r
    call ep_mrecv(y, 1, default_integer_type(), r, st, ierr)
    call check_ok(ierr, 'mrecv')
    call ep_mrecv(y, 1, default_integer_type(), i, st, ierr)
    call check_class(ierr, EP_ERR_REQUEST, 'second mrecv of a message')

    ! The handler of one endpoint: fatal is readable back, then restored.
    call ep_comm_set_errhandler(comm, EP_ERRORS_ARE_FATAL, ierr)
    call check_ok(ierr, 'set fatal')
    call ep_comm_get_errhandler(comm, handler, ierr)
    call check(handler == EP_ERRORS_ARE_FATAL, 'get fatal back')
    call ep_comm_set_errhandler(comm, EP_ERRORS_RETURN, ierr)

    ! Iprobe on a tag nobody uses: no message.
    call ep_iprobe(EP_ANY_SOURCE, 999, comm, flag, st, ierr)
    call check(ierr == EP_SUCCESS .and. .not. flag, 'iprobe finds nothing')

    call test_barrier(comm)
    call ep_comm_free(comm, ierr)
    call check_ok(ierr, 'free')
  end subroutine endpoint_main

end program errors
