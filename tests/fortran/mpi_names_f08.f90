! mpi_names_f08.f90: a `use mpi_f08` program on endpoint communicators through the standard-names
! layer (libepmpi_mpi_f): endpoints made with MPIX_Comm_create_endpoints (module
! epmpi_mpix_f08), one OpenMP thread each; point-to-point with wildcards and TYPE(MPI_Status)
! statuses read by MPI_Get_count, request arrays mixing host and endpoint requests, probes,
! collectives with MPI_IN_PLACE, array sections with gaps, split and dup, names, ierror left
! out, MPI_ERRORS_RETURN with an error class, MPI_Alltoallw, and a function the layer does not provide on
! endpoints; host communicators keep working beside them; then a thread communicator
! (MPIX_Threadcomm_*). MPI_Init is the plain one: the layer raises the thread level itself.
! Built with -DLARGE_COUNTS where the host's mpi_f08 has the large-count forms (MPICH).
! EPMPI_TEST_EPS gives the endpoints per process (cycled over process ranks).
program mpi_names_f08
    use mpi_f08
    use epmpi_mpix_f08
    use omp_lib
    implicit none
    integer :: ierr, provided, wrank, wsize, neps, total(1), failures, all_failures(1), mine(1), offset(1)
    type(MPI_Comm) :: tc
    type(MPI_Comm), allocatable :: comms(:)

    ! A plain MPI_Init: the layer asks the host for MPI_THREAD_MULTIPLE, since this program
    ! imports the creators of module epmpi_mpix_f08 (src/mpi_names/init.c).
    call MPI_Init()
    call MPI_Query_thread(provided)
    call MPI_Comm_rank(MPI_COMM_WORLD, wrank)
    call MPI_Comm_size(MPI_COMM_WORLD, wsize)
    neps = endpoints_of(wrank)
    mine(1) = neps
    call MPI_Allreduce(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    allocate(comms(max(neps, 1)))
    call MPIX_Comm_create_endpoints(MPI_COMM_WORLD, neps, MPI_INFO_NULL, comms, ierr)
    failures = 0
    if (provided /= MPI_THREAD_MULTIPLE) then
        print *, 'thread level after MPI_Init:', provided
        failures = 1
    end if
    if (ierr /= MPI_SUCCESS) then
        print *, 'MPIX_Comm_create_endpoints: ierror', ierr
        failures = failures + 1
    else if (neps > 0) then
        !$omp parallel num_threads(neps) reduction(+:failures)
        failures = failures + endpoint(comms(omp_get_thread_num() + 1), total(1))
        !$omp end parallel
    end if

    ! The host's communicators after the endpoints' traffic: the world's sum of the counts.
    mine(1) = neps
    call MPI_Allreduce(MPI_IN_PLACE, mine, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. mine(1) /= total(1)) then
        print *, 'host allreduce after endpoints:', ierr, mine(1), total(1)
        failures = failures + 1
    end if

    ! Thread communicators: one handle, each thread's own rank between start and finish.
    mine(1) = neps
    offset(1) = 0
    call MPI_Exscan(mine, offset, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (wrank == 0) offset(1) = 0
    call MPIX_Threadcomm_init(MPI_COMM_WORLD, neps, tc, ierr)
    if (ierr /= MPI_SUCCESS .or. (neps == 0 .neqv. tc == MPI_COMM_NULL)) then
        print *, 'MPIX_Threadcomm_init: ierror', ierr
        failures = failures + 1
    else if (neps > 0) then
        !$omp parallel num_threads(neps) reduction(+:failures)
        failures = failures + thread_member(tc, offset(1), neps, total(1))
        !$omp end parallel
    end if
    call MPIX_Threadcomm_free(tc, ierr)
    if (ierr /= MPI_SUCCESS .or. tc /= MPI_COMM_NULL) then
        print *, 'MPIX_Threadcomm_free: ierror', ierr
        failures = failures + 1
    end if

    mine(1) = failures
    call MPI_Reduce(mine, all_failures, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (wrank == 0) then
        if (all_failures(1) == 0) then
            print '(a)', 'mpi_names_f08: PASS'
        else
            print '(a,i0,a)', 'mpi_names_f08: FAIL (', all_failures(1), ' failures)'
        end if
    end if
    call MPI_Finalize()

contains

    integer function endpoints_of(rank)
        integer, intent(in) :: rank
        character(len=256) :: spec
        integer :: n, i, length, status, counts(64)
        call get_environment_variable('EPMPI_TEST_EPS', spec, length, status)
        if (status /= 0) spec = '2'
        n = 1
        do i = 1, len_trim(spec)
            if (spec(i:i) == ',') n = n + 1
        end do
        read (spec, *) counts(1:n)
        endpoints_of = counts(mod(rank, n) + 1)
    end function endpoints_of

    ! One failure counted (and printed) when `cond` is false.
    subroutine check(cond, what, rank, bad)
        logical, intent(in) :: cond
        character(len=*), intent(in) :: what
        integer, intent(in) :: rank
        integer, intent(inout) :: bad
        if (.not. cond) then
            bad = bad + 1
            print '(a,i0,2a)', 'endpoint ', rank, ': FAILED ', what
        end if
    end subroutine check

    integer function endpoint(comm, total_eps) result(bad)
        type(MPI_Comm), intent(in) :: comm
        integer, intent(in) :: total_eps
        integer :: rank, n, ierr, next, prev, cls, count, i, idx, flag_count, srank, ssize, result
        integer :: sbuf(1), rbuf(1), hbuf(1), hsbuf(1), pair(2), indices(4)
        integer, allocatable :: gathered(:), sendv(:), recvv(:), counts(:), displs(:)
        integer :: grid(2, 3), wide(2, 5)
        type(MPI_Status) :: status, statuses(4)
        type(MPI_Request) :: reqs(4)
        type(MPI_Comm) :: split, dup, ep
        type(MPI_Datatype), allocatable :: types(:)
        character(len=MPI_MAX_OBJECT_NAME) :: name
        character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
        integer(kind=MPI_ADDRESS_KIND) :: tag_ub
        logical :: flag
        bad = 0
        call MPI_Comm_rank(comm, rank, ierr)
        call MPI_Comm_size(comm, n)
        call check(ierr == MPI_SUCCESS .and. n == total_eps, 'comm_size', rank, bad)
        call check(comm /= MPI_COMM_WORLD .and. comm /= MPI_COMM_NULL, 'distinct handle', rank, bad)
        next = mod(rank + 1, n)
        prev = mod(rank - 1 + n, n)

        ! Ring with wildcards and a status read by the host's MPI_Get_count.
        pair = [10 * rank, rank]
        call MPI_Isend(pair, 2, MPI_INTEGER, next, rank, comm, reqs(1), ierr)
        call MPI_Recv(indices, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, status, ierr)
        call check(ierr == MPI_SUCCESS .and. all(indices(1:2) == [10 * prev, prev]), 'recv data', rank, bad)
        call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == prev, 'recv status', rank, bad)
        call MPI_Get_count(status, MPI_INTEGER, count, ierr)
        call check(ierr == MPI_SUCCESS .and. count == 2, 'get_count', rank, bad)
        call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
        call check(ierr == MPI_SUCCESS .and. reqs(1) == MPI_REQUEST_NULL, 'wait', rank, bad)

        ! Probe, then receive what it found; MPI_STATUS_IGNORE and no ierror on the receive.
        sbuf(1) = 100 + rank
        call MPI_Isend(sbuf, 1, MPI_INTEGER, next, 7, comm, reqs(1))
        call MPI_Probe(MPI_ANY_SOURCE, 7, comm, status, ierr)
        call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 7, 'probe', rank, bad)
        call MPI_Recv(rbuf, 1, MPI_INTEGER, status%MPI_SOURCE, 7, comm, MPI_STATUS_IGNORE)
        call check(rbuf(1) == 100 + prev, 'recv after probe', rank, bad)
        flag = .false.
        do while (.not. flag)
            call MPI_Test(reqs(1), flag, status, ierr)
        end do
        call check(reqs(1) == MPI_REQUEST_NULL, 'test', rank, bad)

        ! One request array: endpoint send and receive, host send and receive on MPI_COMM_SELF
        ! (the tag, the endpoint's rank, tells the process's threads apart).
        sbuf(1) = 1000 + rank
        hsbuf(1) = 2000 + rank
        call MPI_Irecv(rbuf, 1, MPI_INTEGER, MPI_ANY_SOURCE, 9, comm, reqs(1), ierr)
        call MPI_Irecv(hbuf, 1, MPI_INTEGER, 0, rank, MPI_COMM_SELF, reqs(2), ierr)
        call MPI_Isend(sbuf, 1, MPI_INTEGER, next, 9, comm, reqs(3), ierr)
        call MPI_Isend(hsbuf, 1, MPI_INTEGER, 0, rank, MPI_COMM_SELF, reqs(4), ierr)
        call MPI_Waitall(4, reqs, statuses, ierr)
        call check(ierr == MPI_SUCCESS .and. all(reqs == MPI_REQUEST_NULL), 'waitall mixed', rank, bad)
        call check(rbuf(1) == 1000 + prev .and. hbuf(1) == 2000 + rank, 'waitall data', rank, bad)
        call check(statuses(1)%MPI_SOURCE == prev .and. statuses(1)%MPI_TAG == 9, 'waitall ep status', rank, bad)
        call check(statuses(2)%MPI_SOURCE == 0 .and. statuses(2)%MPI_TAG == rank, 'waitall host status', rank, bad)

        ! Waitany and Testsome on a mixed array: Fortran indices count from 1. Only the host
        ! receive can complete in the Waitany: prev sends tag 11 once this endpoint's token
        ! (tag 12) tells it that the Waitany returned.
        call MPI_Irecv(hbuf, 1, MPI_INTEGER, 0, rank, MPI_COMM_SELF, reqs(1), ierr)
        call MPI_Irecv(rbuf, 1, MPI_INTEGER, prev, 11, comm, reqs(2), ierr)
        call MPI_Send(hsbuf, 1, MPI_INTEGER, 0, rank, MPI_COMM_SELF, ierr)
        call MPI_Waitany(2, reqs, idx, status, ierr)
        call check(idx == 1 .and. status%MPI_TAG == rank, 'waitany host index', rank, bad)
        call MPI_Isend(hsbuf, 1, MPI_INTEGER, prev, 12, comm, reqs(4), ierr)
        call MPI_Recv(hbuf, 1, MPI_INTEGER, next, 12, comm, MPI_STATUS_IGNORE, ierr)
        call MPI_Isend(sbuf, 1, MPI_INTEGER, next, 11, comm, reqs(3), ierr)
        flag_count = 0
        do while (flag_count == 0)
            call MPI_Testsome(1, reqs(2:2), flag_count, indices, statuses, ierr)
        end do
        call check(flag_count == 1 .and. indices(1) == 1 .and. statuses(1)%MPI_SOURCE == prev, 'testsome', rank, bad)
        call MPI_Waitall(2, reqs(3:4), MPI_STATUSES_IGNORE, ierr)
        call check(ierr == MPI_SUCCESS .and. reqs(3) == MPI_REQUEST_NULL .and. reqs(4) == MPI_REQUEST_NULL, &
                   'waitall ignore', rank, bad)

        ! Collectives.
        call MPI_Barrier(comm, ierr)
        call check(ierr == MPI_SUCCESS, 'barrier', rank, bad)
        sbuf(1) = -1
        if (rank == 0) sbuf(1) = 42
        call MPI_Bcast(sbuf, 1, MPI_INTEGER, 0, comm, ierr)
        call check(sbuf(1) == 42, 'bcast', rank, bad)
        sbuf(1) = rank
        rbuf(1) = -1
        call MPI_Reduce(sbuf, rbuf, 1, MPI_INTEGER, MPI_SUM, n - 1, comm, ierr)
        if (rank == n - 1) call check(rbuf(1) == n * (n - 1) / 2, 'reduce', rank, bad)
        call MPI_Allreduce(sbuf, rbuf, 1, MPI_INTEGER, MPI_MAX, comm, ierr)
        call check(rbuf(1) == n - 1, 'allreduce', rank, bad)
        rbuf(1) = rank + 1
        call MPI_Allreduce(MPI_IN_PLACE, rbuf, 1, MPI_INTEGER, MPI_SUM, comm)
        call check(rbuf(1) == n * (n + 1) / 2, 'allreduce in place', rank, bad)
        allocate(gathered(n), sendv(n), recvv(n), counts(n), displs(n))
        gathered = -1
        call MPI_Gather(sbuf, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, comm, ierr)
        if (rank == 0) call check(all(gathered == [(i, i = 0, n - 1)]), 'gather', rank, bad)
        sendv = [(3 * i, i = 0, n - 1)]
        call MPI_Scatter(sendv, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, 0, comm, ierr)
        call check(rbuf(1) == 3 * rank, 'scatter', rank, bad)
        gathered = -1
        counts = 1
        displs = [(n - 1 - i, i = 0, n - 1)]
        call MPI_Allgatherv(sbuf(1), 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, comm, ierr)
        call check(all(gathered == [(n - 1 - i, i = 0, n - 1)]), 'allgatherv scalar', rank, bad)
        sendv = [(100 * rank + i, i = 0, n - 1)]
        call MPI_Alltoall(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, comm, ierr)
        call check(all(recvv == [(100 * i + rank, i = 0, n - 1)]), 'alltoall', rank, bad)

        ! Split (two colours, ranks reversed by the key) and dup.
        call MPI_Comm_split(comm, mod(rank, 2), -rank, split, ierr)
        call MPI_Comm_rank(split, srank, ierr)
        call MPI_Comm_size(split, ssize, ierr)
        call check(ssize == (n + 1 - mod(rank, 2)) / 2, 'split size', rank, bad)
        call check(srank == ssize - 1 - rank / 2, 'split rank', rank, bad)
        call MPI_Comm_dup(comm, dup, ierr)
        call MPI_Comm_compare(comm, dup, result, ierr)
        call check(result == MPI_CONGRUENT, 'dup compare', rank, bad)
        call MPI_Allreduce(sbuf, rbuf, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
        call check(rbuf(1) == n * (n - 1) / 2, 'allreduce on dup', rank, bad)
        call MPI_Comm_free(split, ierr)
        call MPI_Comm_free(dup)
        call check(split == MPI_COMM_NULL .and. dup == MPI_COMM_NULL, 'comm_free', rank, bad)

        ! Names: a blank-padded Fortran string in, the name back blank-padded.
        call MPI_Comm_set_name(comm, 'endpoints   ', ierr)
        name = '?'
        call MPI_Comm_get_name(comm, name, i, ierr)
        call check(ierr == MPI_SUCCESS .and. name == 'endpoints' .and. i == 9, 'comm names', rank, bad)
        call MPI_Comm_get_attr(comm, MPI_TAG_UB, tag_ub, flag, ierr)
        call check(ierr == MPI_SUCCESS .and. flag .and. tag_ub >= 32767, 'MPI_TAG_UB', rank, bad)

        ! Errors returned: a rank out of range, then the communicator still works.
        call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
        call MPI_Send(sbuf, 1, MPI_INTEGER, n, 0, comm, ierr)
        call MPI_Error_class(ierr, cls, i)
        call check(ierr /= MPI_SUCCESS .and. cls == MPI_ERR_RANK, 'error class', rank, bad)
        ! Alltoallw (datatype arrays; byte displacements): rank i's block j goes to rank j.
        allocate(types(n))
        types = MPI_INTEGER
        counts = 1
        displs = [(i * (storage_size(i) / 8), i = 0, n - 1)]
        sendv = [(1000 * i + rank, i = 0, n - 1)]
        recvv = -1
        call MPI_Alltoallw(sendv, counts, displs, types, recvv, counts, displs, types, comm, ierr)
        call check(ierr == MPI_SUCCESS .and. all(recvv == [(1000 * rank + i, i = 0, n - 1)]), 'MPI_Alltoallw', &
            rank, bad)
        ! A function the layer does not provide on endpoints, on a duplicate (which keeps the
        ! MPI_ERRORS_RETURN handler): the class comes back and the duplicate is still there.
        call MPI_Comm_dup(comm, dup, ierr)
        call MPI_Comm_disconnect(dup, ierr)
        call MPI_Error_class(ierr, cls, i)
        call check(cls == MPI_ERR_UNSUPPORTED_OPERATION, 'unsupported class', rank, bad)
        call MPI_Comm_free(dup, ierr)
        call check(ierr == MPI_SUCCESS, 'free after an unsupported call', rank, bad)
#ifdef LARGE_COUNTS
        ! A large-count form (MPICH's mpi_f08), which EPMPI does not provide under the f08 names.
        call MPI_Send(sbuf, 1_MPI_COUNT_KIND, MPI_INTEGER, next, 0, comm, ierr)
        call MPI_Error_class(ierr, cls, i)
        call check(cls == MPI_ERR_UNSUPPORTED_OPERATION, 'large-count send', rank, bad)
#endif
        ! Array sections with gaps are the sequence of their elements (MPI 4.1 section 19.1.12):
        ! gfortran passes Open MPI a contiguous copy, MPICH the section's descriptor.
        grid = reshape([(i, i = 1, 6)], [2, 3])
        wide = -1
        call MPI_Sendrecv(grid(1, :), 3, MPI_INTEGER, next, 5, wide(2, 1:5:2), 3, MPI_INTEGER, prev, 5, comm, status, &
                          ierr)
        call MPI_Get_count(status, MPI_INTEGER, count)
        call check(ierr == MPI_SUCCESS .and. count == 3 .and. all(wide(2, :) == [1, -1, 3, -1, 5]) &
                   .and. all(wide(1, :) == -1), 'sections', rank, bad)
        wide(2, :) = -1
        call MPI_Allreduce(grid(2, :), wide(2, 1:5:2), 3, MPI_INTEGER, MPI_SUM, comm, ierr)
        call check(ierr == MPI_SUCCESS .and. all(wide(2, :) == [2 * n, -1, 4 * n, -1, 6 * n]), 'allreduce sections', &
                   rank, bad)
        ! A nonblocking call keeps the buffer after it returns: a copy will not do, and EPMPI's
        ! engine takes no datatype made from MPICH's descriptor (Open MPI's copy would be wrong).
        call MPI_Get_library_version(version, i, ierr)
        if (index(version, 'MPICH') > 0) then
            call MPI_Isend(grid(1, :), 3, MPI_INTEGER, next, 5, comm, reqs(1), ierr)
            call MPI_Error_class(ierr, cls, i)
            call check(cls == MPI_ERR_UNSUPPORTED_OPERATION, 'nonblocking section (MPICH)', rank, bad)
        end if
        call MPI_Barrier(comm, ierr)
        call check(ierr == MPI_SUCCESS, 'barrier after errors', rank, bad)
        ep = comm
        call MPI_Comm_free(ep, ierr)
        call check(ierr == MPI_SUCCESS .and. ep == MPI_COMM_NULL, 'free endpoint', rank, bad)
    end function endpoint

    integer function thread_member(tc, offset, nthreads, total_eps) result(bad)
        type(MPI_Comm), intent(in) :: tc
        integer, intent(in) :: offset, nthreads, total_eps
        integer :: ierr, rank, n, i, sbuf(1), rbuf(1)
        type(MPI_Status) :: status
        integer, allocatable :: ranks(:)
        bad = 0
        call MPIX_Threadcomm_start(tc, ierr)
        call check(ierr == MPI_SUCCESS, 'threadcomm_start', -1, bad)
        call MPI_Comm_rank(tc, rank, ierr)
        call MPI_Comm_size(tc, n, ierr)
        call check(n == total_eps .and. rank >= offset .and. rank < offset + nthreads, 'threadcomm rank', rank, bad)
        allocate(ranks(n))
        sbuf(1) = rank
        call MPI_Allgather(sbuf, 1, MPI_INTEGER, ranks, 1, MPI_INTEGER, tc, ierr)
        call check(all(ranks == [(i, i = 0, n - 1)]), 'threadcomm allgather', rank, bad)
        sbuf(1) = 5 * rank
        call MPI_Sendrecv(sbuf, 1, MPI_INTEGER, mod(rank + 1, n), 3, rbuf, 1, MPI_INTEGER, MPI_ANY_SOURCE, 3, &
                          tc, status, ierr)
        call check(rbuf(1) == 5 * mod(rank - 1 + n, n) .and. status%MPI_SOURCE == mod(rank - 1 + n, n), &
                   'threadcomm sendrecv', rank, bad)
        call MPIX_Threadcomm_finish(tc)
    end function thread_member
end program mpi_names_f08
