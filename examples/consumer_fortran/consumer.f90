! Smallest EPMPI program in Fortran: two OpenMP threads per process, each one an endpoint (a
! rank of its own). Every endpoint exchanges a message with the endpoint half the communicator
! away (in another process when there are two) and checks what arrives. World rank 0 prints
! "consumer_fortran: PASS ..." when every endpoint of every process got what it expected.
!
!   mpiexec -n 2 ./consumer_fortran
program consumer_fortran
    use mpi
    use ep_mpi
    use omp_lib
    implicit none
    integer, parameter :: nthreads = 2, tag = 7
    integer :: provided, world_rank, world_size, failures, total, ierror

    call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierror)
    call MPI_Comm_rank(MPI_COMM_WORLD, world_rank, ierror)
    call MPI_Comm_size(MPI_COMM_WORLD, world_size, ierror)
    if (provided < MPI_THREAD_MULTIPLE) then
        write (*, '(a)') 'consumer_fortran: the MPI does not provide MPI_THREAD_MULTIPLE'
        call MPI_Abort(MPI_COMM_WORLD, 1, ierror)
    end if

    failures = 0
    !$omp parallel num_threads(nthreads) reduction(+:failures)
    failures = failures + exchange(omp_get_thread_num(), nthreads*world_size)
    !$omp end parallel

    call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
    if (world_rank == 0) then
        if (total == 0) then
            write (*, '(a,i0,a,i0,a)') 'consumer_fortran: PASS (', nthreads*world_size, &
                ' endpoints on ', world_size, ' processes)'
        else
            write (*, '(a,i0,a)') 'consumer_fortran: FAIL (', total, ' failures)'
        end if
    end if
    call MPI_Finalize(ierror)
    if (total /= 0) error stop 1

contains

    ! The part of the endpoint of thread `tid` (team form: the index names the endpoint) in a
    ! communicator of `size` endpoints; returns its number of failures.
    integer function exchange(tid, size) result(nfail)
        integer, intent(in) :: tid, size
        integer, parameter :: n = 4
        integer :: comm, rank, peer, ierror, i
        integer :: mine(n), got(n)
        integer :: status(EP_STATUS_SIZE)

        nfail = 0
        call ep_comm_create_endpoint(MPI_COMM_WORLD, nthreads, tid, comm, ierror)
        if (ierror /= EP_SUCCESS) nfail = nfail + 1
        call ep_comm_rank(comm, rank, ierror)
        peer = mod(rank + size/2, size)
        mine = [(1000*rank + i, i = 1, n)]
        got = -1
        if (rank < peer) then
            call ep_send(mine, n, MPI_INTEGER, peer, tag, comm, ierror)
            if (ierror /= EP_SUCCESS) nfail = nfail + 1
            call ep_recv(got, n, MPI_INTEGER, peer, tag, comm, status, ierror)
            if (ierror /= EP_SUCCESS) nfail = nfail + 1
        else
            call ep_recv(got, n, MPI_INTEGER, peer, tag, comm, status, ierror)
            if (ierror /= EP_SUCCESS) nfail = nfail + 1
            call ep_send(mine, n, MPI_INTEGER, peer, tag, comm, ierror)
            if (ierror /= EP_SUCCESS) nfail = nfail + 1
        end if
        if (any(got /= [(1000*peer + i, i = 1, n)]) .or. status(EP_SOURCE) /= peer &
            .or. status(EP_TAG) /= tag) then
            write (*, '(a,i0,a,i0,a,i0)') 'consumer_fortran: endpoint ', rank, ' got ', got(1), &
                ' from ', status(EP_SOURCE)
            nfail = nfail + 1
        end if
        call ep_comm_free(comm, ierror)
        if (ierror /= EP_SUCCESS) nfail = nfail + 1
    end function exchange

end program consumer_fortran
