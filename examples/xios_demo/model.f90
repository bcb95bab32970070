!> The model of the XIOS demo (examples/xios_demo): N processes x K OpenMP threads, every
!> thread an XIOS client (an EPMPI endpoint) that sends its slab of a curvilinear 3-D grid to
!> the I/O servers (server.c) through `ep_xios`. Launched MPMD with the servers:
!>
!>   mpirun -np N model [--threads K1,K2,...] [--transport one-sided|two-sided]
!>                      [--timesteps T] [--grid NXxNYxNZ] : -np S server [--output PATH]
!>
!> (options in demo_options.f90; examples/run_demo.sh builds and runs it). Prints nothing but
!> errors, and one summary line from client rank 0.
program model
  use, intrinsic :: iso_fortran_env, only: error_unit
  use mpi, only: MPI_COMM_WORLD, MPI_THREAD_MULTIPLE, MPI_Init_thread, MPI_Comm_rank, MPI_Abort, MPI_Finalize
  use omp_lib, only: omp_get_thread_num, omp_get_num_threads
  use demo_options, only: options, read_options
  use demo_client, only: run_client
  implicit none
  type(options) :: opt
  character(len=256) :: error
  integer :: provided, ierr, world_rank, nthreads

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, world_rank, ierr)
  if (provided < MPI_THREAD_MULTIPLE) call fail('the MPI library does not provide MPI_THREAD_MULTIPLE')
  call read_options(opt, error)
  if (error /= ' ') call fail(trim(error))
  nthreads = opt%thread_counts(mod(world_rank, opt%thread_count_entries) + 1)

  !$omp parallel num_threads(nthreads) default(shared)
  if (omp_get_num_threads() /= nthreads) call fail('OpenMP gave fewer threads than --threads asks')
  call run_client(opt, nthreads, omp_get_thread_num())
  !$omp end parallel

  call MPI_Finalize(ierr)

contains

  !> Prints `why` and aborts the job.
  subroutine fail(why)
    character(len=*), intent(in) :: why
    integer :: ignored
    write (error_unit, '(a, i0, a, a)') 'xios_demo model (world rank ', world_rank, '): ', why
    flush (error_unit)
    call MPI_Abort(MPI_COMM_WORLD, 2, ignored)
  end subroutine fail

end program model
