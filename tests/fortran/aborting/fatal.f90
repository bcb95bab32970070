!> Errors under the default handler (EP_ERRORS_ARE_FATAL) stop the job with a message naming
!> the routine, whether the library or the Fortran glue found them, and whether `ierror` is
!> present or not. Mode (first argument): `bad-rank` (ep_send to rank 1000000, no ierror),
!> `noncontiguous` (ep_isend of a row section, with ierror). The harness expects a nonzero
!> exit and the message; "still running" means the job survived.
program fatal
  use mpi
  use ep_mpi
  implicit none
  integer(kind(MPI_COMM_WORLD)) :: provided, mierr
  integer :: comm(1), x, request, ierr
  integer, asynchronous :: grid(4, 4)
  character(len=32) :: mode

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, mierr)
  call get_command_argument(1, mode)
  call ep_comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, comm)
  x = 0
  grid = 0
  select case (trim(mode))
  case ('bad-rank')
    call ep_send(x, 1, MPI_INTEGER, 1000000, 0, comm(1))
  case ('noncontiguous')
    call ep_isend(grid(1, :), 4, MPI_INTEGER, 0, 0, comm(1), request, ierr)
  end select
  print '(a)', 'fatal: still running after a fatal error'
  call MPI_Finalize(mierr)
end program fatal
