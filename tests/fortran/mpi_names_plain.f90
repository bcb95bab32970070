! mpi_names_plain.f90: a plain `use mpi` program on the host's communicators only, run with and
! without the standard-names layer (libepmpi_mpi_f): rank 0 prints one line of results, which
! must be the same both ways.
program mpi_names_plain
    use mpi
    implicit none
    integer :: ierr, rank, n, next, prev, split, srank, i, idx
    integer :: sbuf(2), rbuf(2), sum(1), gathered(64), reqs(2), status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
    integer :: results(8), cls, one(1)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    next = mod(rank + 1, n)
    prev = mod(rank - 1 + n, n)
    sbuf = [rank, 7 * rank]
    call MPI_Irecv(rbuf, 2, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(sbuf, 2, MPI_INTEGER, next, 5, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, statuses, ierr)
    results(1) = rbuf(2)
    results(2) = statuses(MPI_SOURCE, 1)
    call MPI_Send(sbuf, 1, MPI_INTEGER, next, 6, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 1, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, status, ierr)
    results(3) = status(MPI_TAG)
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
    results(7) = merge(1, 0, idx == 1 .or. idx == 2)
    results(8) = merge(1, 0, all(reqs == MPI_REQUEST_NULL))
    if (rank == 0) print '(a,*(1x,i0))', 'results:', results, gathered(1:n)
    call MPI_Finalize(ierr)
end program mpi_names_plain
