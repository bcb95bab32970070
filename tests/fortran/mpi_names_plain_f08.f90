! mpi_names_plain_f08.f90: a plain `use mpi_f08` program on the host's communicators only, run
! with and without the standard-names layer (libepmpi_mpi_f): rank 0 prints one line of results,
! which must be the same both ways.
program mpi_names_plain_f08
    use mpi_f08
    implicit none
    integer :: ierr, rank, n, next, prev, srank, i, idx, cls
    integer :: sbuf(2), rbuf(2), sum(1), gathered(64), one(1), grid(2, 3), wide(2, 5), results(11), level
    type(MPI_Comm) :: split
    type(MPI_Request) :: reqs(2)
    type(MPI_Status) :: status, statuses(2)

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    next = mod(rank + 1, n)
    prev = mod(rank - 1 + n, n)
    sbuf = [rank, 7 * rank]
    call MPI_Irecv(rbuf, 2, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(sbuf, 2, MPI_INTEGER, next, 5, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, statuses, ierr)
    results(1) = rbuf(2)
    results(2) = statuses(1)%MPI_SOURCE
    call MPI_Send(sbuf, 1, MPI_INTEGER, next, 6, MPI_COMM_WORLD)
    call MPI_Recv(rbuf, 1, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, status, ierr)
    results(3) = status%MPI_TAG
    one(1) = rank + 1
    call MPI_Allreduce(one, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    results(4) = sum(1)
    call MPI_Gather(one, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, split, ierr)
    call MPI_Comm_rank(split, srank, ierr)
    results(5) = srank
    call MPI_Comm_free(split, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Send(sbuf, 1, MPI_INTEGER, n, 0, MPI_COMM_WORLD, ierr)
    call MPI_Error_class(ierr, cls, i)
    results(6) = merge(1, 0, cls == MPI_ERR_RANK)
    call MPI_Irecv(rbuf, 1, MPI_INTEGER, prev, 8, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(sbuf, 1, MPI_INTEGER, next, 8, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitany(2, reqs, idx, status, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    ! MPICH 4.0.2's mpi_f08 MPI_Waitany gives the index from 0 (its `use mpi` one from 1, as MPI
    ! asks): whatever the host gives, the layer passes on.
    results(7) = merge(1, 0, idx >= 0 .and. idx <= 2)
    results(8) = merge(1, 0, all(reqs == MPI_REQUEST_NULL))
    ! Array sections with gaps, which MPICH's mpi_f08 passes as descriptors.
    grid = reshape([(10 * rank + i, i = 1, 6)], [2, 3])
    wide = -1
    call MPI_Sendrecv(grid(1, :), 3, MPI_INTEGER, next, 9, wide(2, 1:5:2), 3, MPI_INTEGER, prev, 9, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    results(9) = merge(1, 0, all(wide(2, :) == [10 * prev + 1, -1, 10 * prev + 3, -1, 10 * prev + 5]))
    results(10) = merge(1, 0, all(wide(1, :) == -1))
    ! The program creates no endpoint: the layer keeps the level MPI_Init gives.
    call MPI_Query_thread(level)
    results(11) = merge(1, 0, level == MPI_THREAD_SINGLE)
    if (rank == 0) print '(a,*(1x,i0))', 'results:', results, gathered(1:n)
    call MPI_Finalize()
end program mpi_names_plain_f08
