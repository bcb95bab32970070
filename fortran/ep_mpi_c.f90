!> Raw C interfaces behind the `ep_mpi` module: the library's `EP_*` functions that take only
!> integers and pointers, and the `epmpi_f_*` functions of `ep_mpi_glue.c` (choice buffers,
!> conversion of `use mpi` handles). Every argument has an explicit C kind.
!>
!> Outputs are `intent(inout)`, never `intent(out)`: the C functions leave them untouched on
!> error, and with `intent(out)` the compiler may drop the caller's initialisation of the
!> variable before the call (seen with gfortran -O1: a refused ep_isend returned a stale
!> request handle).
!>
!> Private to EPMPI: use `ep_mpi`. Nothing here keeps state.
module ep_mpi_c
  use, intrinsic :: iso_c_binding, only: c_int, c_intptr_t, c_double, c_char, c_ptr
  use mpi, only: MPI_COMM_WORLD
  implicit none
  private

  !> Kind of the integers of the host's `use mpi` (datatypes, ops, info, communicators): fixed
  !> when the host MPI was built, whatever default integer kind the user compiles with.
  integer, parameter, public :: mpi_kind = kind(MPI_COMM_WORLD)

  public :: epmpi_f_loc, epmpi_f_raise
  public :: epmpi_f_comm_create_endpoints, epmpi_f_comm_create_endpoint, epmpi_f_comm_get_host_comm
  public :: c_ep_comm_rank, c_ep_comm_size, c_ep_comm_remote_size, c_ep_comm_test_inter
  public :: c_ep_comm_local_info, c_ep_comm_get_attr, c_ep_comm_compare, c_ep_comm_dup
  public :: c_ep_comm_free, c_ep_comm_set_errhandler, c_ep_comm_get_errhandler
  public :: epmpi_f_comm_split, epmpi_f_comm_split_type
  public :: epmpi_f_intercomm_create, epmpi_f_intercomm_merge
  public :: epmpi_f_send, epmpi_f_ssend, epmpi_f_isend, epmpi_f_issend, epmpi_f_recv
  public :: epmpi_f_irecv, epmpi_f_sendrecv, epmpi_f_mrecv, epmpi_f_imrecv, epmpi_f_get_count
  public :: c_ep_iprobe, c_ep_probe, c_ep_improbe, c_ep_mprobe
  public :: c_ep_wait, c_ep_test, c_ep_waitall, c_ep_testall, c_ep_waitany, c_ep_testany
  public :: c_ep_waitsome, c_ep_testsome, c_ep_request_free, c_ep_cancel, c_ep_test_cancelled
  public :: epmpi_f_barrier, epmpi_f_bcast, epmpi_f_reduce, epmpi_f_allreduce
  public :: epmpi_f_gather, epmpi_f_gatherv, epmpi_f_scatter, epmpi_f_scatterv
  public :: epmpi_f_allgather, epmpi_f_allgatherv, epmpi_f_alltoall, epmpi_f_alltoallv
  public :: epmpi_f_reduce_scatter, epmpi_f_reduce_scatter_block, epmpi_f_scan, epmpi_f_exscan
  public :: epmpi_f_ibarrier, epmpi_f_ibcast
  public :: epmpi_f_ireduction, epmpi_f_ireduce_scatter, epmpi_f_icollective, epmpi_f_ivcollective
  public :: epmpi_f_alltoallw, epmpi_f_reduce_local
  public :: c_ep_error_string, c_ep_error_class, c_ep_abort, c_ep_wtime
  public :: c_ep_get_library_version, c_ep_debug_live_handles, c_ep_debug_live_objects
  public :: epmpi_f_win_create, epmpi_f_win_allocate, epmpi_f_win_create_dynamic, epmpi_f_win_attach
  public :: epmpi_f_win_detach, c_ep_win_free, epmpi_f_win_fence, epmpi_f_win_lock, c_ep_win_unlock
  public :: epmpi_f_win_lock_all, c_ep_win_unlock_all, c_ep_win_flush, c_ep_win_flush_all
  public :: c_ep_win_flush_local, c_ep_win_sync, epmpi_f_put, epmpi_f_get, epmpi_f_rput, epmpi_f_rget
  public :: epmpi_f_accumulate, epmpi_f_get_accumulate, epmpi_f_fetch_and_op, epmpi_f_compare_and_swap
  public :: c_ep_win_set_errhandler, c_ep_win_get_errhandler, c_ep_debug_live_windows

  interface

    ! ---- glue helpers ------------------------------------------------------------------

    !> Address of a variable (compared with sentinels such as `MPI_STATUS_IGNORE`).
    pure function epmpi_f_loc(x) bind(C, name="epmpi_f_loc") result(address)
      import :: c_ptr
      type(*), dimension(*), intent(in) :: x
      type(c_ptr) :: address
    end function epmpi_f_loc

    !> Reports an error found in Fortran through the handler of `comm`; returns its code.
    function epmpi_f_raise(comm, cls, routine, why) bind(C, name="epmpi_f_raise") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: comm, cls
      character(kind=c_char), dimension(*), intent(in) :: routine, why
      integer(c_int) :: ierror
    end function epmpi_f_raise

    ! ---- creation ----------------------------------------------------------------------

    function epmpi_f_comm_create_endpoints(parent, my_num_ep, info, out_comms) &
        bind(C, name="epmpi_f_comm_create_endpoints") result(ierror)
      import :: c_int
      integer(c_int), value :: parent, info
      integer(c_int), value :: my_num_ep
      integer(c_int), dimension(*), intent(inout) :: out_comms
      integer(c_int) :: ierror
    end function epmpi_f_comm_create_endpoints

    function epmpi_f_comm_create_endpoint(parent, my_num_ep, index, comm) &
        bind(C, name="epmpi_f_comm_create_endpoint") result(ierror)
      import :: c_int
      integer(c_int), value :: parent
      integer(c_int), value :: my_num_ep, index
      integer(c_int), intent(inout) :: comm
      integer(c_int) :: ierror
    end function epmpi_f_comm_create_endpoint

    function epmpi_f_comm_get_host_comm(comm, host_comm) &
        bind(C, name="epmpi_f_comm_get_host_comm") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: host_comm
      integer(c_int) :: ierror
    end function epmpi_f_comm_get_host_comm

    ! ---- communicator queries and management -------------------------------------------

    function c_ep_comm_rank(comm, rank) bind(C, name="EP_Comm_rank") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: rank
      integer(c_int) :: ierror
    end function c_ep_comm_rank

    function c_ep_comm_size(comm, size) bind(C, name="EP_Comm_size") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: size
      integer(c_int) :: ierror
    end function c_ep_comm_size

    function c_ep_comm_remote_size(comm, size) bind(C, name="EP_Comm_remote_size") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: size
      integer(c_int) :: ierror
    end function c_ep_comm_remote_size

    function c_ep_comm_test_inter(comm, flag) bind(C, name="EP_Comm_test_inter") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: flag
      integer(c_int) :: ierror
    end function c_ep_comm_test_inter

    function c_ep_comm_local_info(comm, local_index, local_count, process_rank) &
        bind(C, name="EP_Comm_local_info") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: local_index, local_count, process_rank
      integer(c_int) :: ierror
    end function c_ep_comm_local_info

    !> `value` receives a pointer to the attribute's int.
    function c_ep_comm_get_attr(comm, key, value, flag) bind(C, name="EP_Comm_get_attr") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: comm, key
      type(c_ptr), intent(inout) :: value
      integer(c_int), intent(inout) :: flag
      integer(c_int) :: ierror
    end function c_ep_comm_get_attr

    function c_ep_comm_compare(comm1, comm2, result) bind(C, name="EP_Comm_compare") result(ierror)
      import :: c_int
      integer(c_int), value :: comm1, comm2
      integer(c_int), intent(inout) :: result
      integer(c_int) :: ierror
    end function c_ep_comm_compare

    function c_ep_comm_dup(comm, newcomm) bind(C, name="EP_Comm_dup") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: newcomm
      integer(c_int) :: ierror
    end function c_ep_comm_dup

    function c_ep_comm_free(comm) bind(C, name="EP_Comm_free") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: comm
      integer(c_int) :: ierror
    end function c_ep_comm_free

    function c_ep_comm_set_errhandler(comm, handler) bind(C, name="EP_Comm_set_errhandler") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, handler
      integer(c_int) :: ierror
    end function c_ep_comm_set_errhandler

    function c_ep_comm_get_errhandler(comm, handler) bind(C, name="EP_Comm_get_errhandler") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: handler
      integer(c_int) :: ierror
    end function c_ep_comm_get_errhandler

    function epmpi_f_comm_split(comm, color, key, newcomm) bind(C, name="epmpi_f_comm_split") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, color, key
      integer(c_int), intent(inout) :: newcomm
      integer(c_int) :: ierror
    end function epmpi_f_comm_split

    !> `f_type_shared` is Fortran's `MPI_COMM_TYPE_SHARED`, mapped to C's.
    function epmpi_f_comm_split_type(comm, split_type, key, info, newcomm, f_type_shared) &
        bind(C, name="epmpi_f_comm_split_type") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, split_type, key, f_type_shared
      integer(c_int), value :: info
      integer(c_int), intent(inout) :: newcomm
      integer(c_int) :: ierror
    end function epmpi_f_comm_split_type

    ! ---- point-to-point (f_bottom: the address of Fortran's MPI_BOTTOM) -----------------

    function epmpi_f_send(buf, count, datatype, dest, tag, comm, f_bottom) &
        bind(C, name="epmpi_f_send") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_send

    function epmpi_f_ssend(buf, count, datatype, dest, tag, comm, f_bottom) &
        bind(C, name="epmpi_f_ssend") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_ssend

    function epmpi_f_isend(buf, count, datatype, dest, tag, comm, request, f_bottom) &
        bind(C, name="epmpi_f_isend") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_isend

    function epmpi_f_issend(buf, count, datatype, dest, tag, comm, request, f_bottom) &
        bind(C, name="epmpi_f_issend") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_issend

    function epmpi_f_recv(buf, count, datatype, source, tag, comm, status, f_bottom) &
        bind(C, name="epmpi_f_recv") result(ierror)
      import :: c_int, c_ptr
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int), value :: count, source, tag, comm
      integer(c_int), value :: datatype
      type(c_ptr), value :: status
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_recv

    function epmpi_f_irecv(buf, count, datatype, source, tag, comm, request, f_bottom) &
        bind(C, name="epmpi_f_irecv") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(c_int), value :: count, source, tag, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_irecv

    function epmpi_f_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, &
        recvtype, source, recvtag, comm, status, f_bottom) bind(C, name="epmpi_f_sendrecv") result(ierror)
      import :: c_int, c_ptr
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: sendcount, dest, sendtag, recvcount, source, recvtag, comm
      integer(c_int), value :: sendtype, recvtype
      type(c_ptr), value :: status
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_sendrecv

    function c_ep_iprobe(source, tag, comm, flag, status) bind(C, name="EP_Iprobe") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: source, tag, comm
      integer(c_int), intent(inout) :: flag
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_iprobe

    function c_ep_probe(source, tag, comm, status) bind(C, name="EP_Probe") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: source, tag, comm
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_probe

    function c_ep_improbe(source, tag, comm, flag, message, status) bind(C, name="EP_Improbe") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: source, tag, comm
      integer(c_int), intent(inout) :: flag, message
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_improbe

    function c_ep_mprobe(source, tag, comm, message, status) bind(C, name="EP_Mprobe") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: source, tag, comm
      integer(c_int), intent(inout) :: message
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_mprobe

    function epmpi_f_mrecv(buf, count, datatype, message, status, f_bottom) &
        bind(C, name="epmpi_f_mrecv") result(ierror)
      import :: c_int, c_ptr
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int), value :: count
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: message
      type(c_ptr), value :: status
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_mrecv

    function epmpi_f_imrecv(buf, count, datatype, message, request, f_bottom) &
        bind(C, name="epmpi_f_imrecv") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(c_int), value :: count
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: message
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_imrecv

    function epmpi_f_get_count(status, datatype, count) bind(C, name="epmpi_f_get_count") result(ierror)
      import :: c_int
      integer(c_int), dimension(*), intent(in) :: status
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: count
      integer(c_int) :: ierror
    end function epmpi_f_get_count

    ! ---- completion --------------------------------------------------------------------

    function c_ep_wait(request, status) bind(C, name="EP_Wait") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), intent(inout) :: request
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_wait

    function c_ep_test(request, flag, status) bind(C, name="EP_Test") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), intent(inout) :: request
      integer(c_int), intent(inout) :: flag
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_test

    function c_ep_waitall(count, requests, statuses) bind(C, name="EP_Waitall") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: count
      integer(c_int), dimension(*), intent(inout) :: requests
      type(c_ptr), value :: statuses
      integer(c_int) :: ierror
    end function c_ep_waitall

    function c_ep_testall(count, requests, flag, statuses) bind(C, name="EP_Testall") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: count
      integer(c_int), dimension(*), intent(inout) :: requests
      integer(c_int), intent(inout) :: flag
      type(c_ptr), value :: statuses
      integer(c_int) :: ierror
    end function c_ep_testall

    function c_ep_waitany(count, requests, index, status) bind(C, name="EP_Waitany") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: count
      integer(c_int), dimension(*), intent(inout) :: requests
      integer(c_int), intent(inout) :: index
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_waitany

    function c_ep_testany(count, requests, index, flag, status) bind(C, name="EP_Testany") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: count
      integer(c_int), dimension(*), intent(inout) :: requests
      integer(c_int), intent(inout) :: index, flag
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_testany

    function c_ep_waitsome(incount, requests, outcount, indices, statuses) &
        bind(C, name="EP_Waitsome") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: incount
      integer(c_int), dimension(*), intent(inout) :: requests
      integer(c_int), intent(inout) :: outcount
      integer(c_int), dimension(*), intent(inout) :: indices
      type(c_ptr), value :: statuses
      integer(c_int) :: ierror
    end function c_ep_waitsome

    function c_ep_testsome(incount, requests, outcount, indices, statuses) &
        bind(C, name="EP_Testsome") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: incount
      integer(c_int), dimension(*), intent(inout) :: requests
      integer(c_int), intent(inout) :: outcount
      integer(c_int), dimension(*), intent(inout) :: indices
      type(c_ptr), value :: statuses
      integer(c_int) :: ierror
    end function c_ep_testsome

    function c_ep_request_free(request) bind(C, name="EP_Request_free") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: request
      integer(c_int) :: ierror
    end function c_ep_request_free

    function c_ep_cancel(request) bind(C, name="EP_Cancel") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: request
      integer(c_int) :: ierror
    end function c_ep_cancel

    function c_ep_test_cancelled(status, flag) bind(C, name="EP_Test_cancelled") result(ierror)
      import :: c_int
      integer(c_int), dimension(*), intent(in) :: status
      integer(c_int), intent(inout) :: flag
      integer(c_int) :: ierror
    end function c_ep_test_cancelled

    ! ---- collectives (f_in_place: the address of Fortran's MPI_IN_PLACE) ---------------
    ! count_bytes: size of one default Fortran integer of the count/displacement arrays.

    function epmpi_f_barrier(comm) bind(C, name="epmpi_f_barrier") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int) :: ierror
    end function epmpi_f_barrier

    function epmpi_f_bcast(buf, count, datatype, root, comm, f_bottom) &
        bind(C, name="epmpi_f_bcast") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int), value :: count, root, comm
      integer(c_int), value :: datatype
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_bcast

    function epmpi_f_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, f_bottom, f_in_place) &
        bind(C, name="epmpi_f_reduce") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: count, root, comm
      integer(c_int), value :: datatype, op
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_reduce

    function epmpi_f_allreduce(sendbuf, recvbuf, count, datatype, op, comm, f_bottom, f_in_place) &
        bind(C, name="epmpi_f_allreduce") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: count, comm
      integer(c_int), value :: datatype, op
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_allreduce

    function epmpi_f_scan(sendbuf, recvbuf, count, datatype, op, comm, f_bottom, f_in_place) &
        bind(C, name="epmpi_f_scan") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: count, comm
      integer(c_int), value :: datatype, op
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_scan

    function epmpi_f_exscan(sendbuf, recvbuf, count, datatype, op, comm, f_bottom, f_in_place) &
        bind(C, name="epmpi_f_exscan") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: count, comm
      integer(c_int), value :: datatype, op
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_exscan

    function epmpi_f_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, f_bottom, &
        f_in_place) bind(C, name="epmpi_f_reduce_scatter_block") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: recvcount, comm
      integer(c_int), value :: datatype, op
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_reduce_scatter_block

    function epmpi_f_reduce_scatter(sendbuf, recvbuf, recvcounts, count_bytes, datatype, op, comm, &
        f_bottom, f_in_place) bind(C, name="epmpi_f_reduce_scatter") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      type(*), dimension(*), intent(in) :: recvcounts
      integer(c_int), value :: count_bytes, comm
      integer(c_int), value :: datatype, op
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_reduce_scatter

    function epmpi_f_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
        f_bottom, f_in_place) bind(C, name="epmpi_f_gather") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: sendcount, recvcount, root, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_gather

    function epmpi_f_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, count_bytes, &
        recvtype, root, comm, f_bottom, f_in_place) bind(C, name="epmpi_f_gatherv") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      type(*), dimension(*), intent(in) :: recvcounts, displs
      integer(c_int), value :: sendcount, count_bytes, root, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_gatherv

    function epmpi_f_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
        f_bottom, f_in_place) bind(C, name="epmpi_f_scatter") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: sendcount, recvcount, root, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_scatter

    function epmpi_f_scatterv(sendbuf, sendcounts, displs, count_bytes, sendtype, recvbuf, recvcount, &
        recvtype, root, comm, f_bottom, f_in_place) bind(C, name="epmpi_f_scatterv") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(*), intent(in) :: sendcounts, displs
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: count_bytes, recvcount, root, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_scatterv

    function epmpi_f_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        f_bottom, f_in_place) bind(C, name="epmpi_f_allgather") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: sendcount, recvcount, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_allgather

    function epmpi_f_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, count_bytes, &
        recvtype, comm, f_bottom, f_in_place) bind(C, name="epmpi_f_allgatherv") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      type(*), dimension(*), intent(in) :: recvcounts, displs
      integer(c_int), value :: sendcount, count_bytes, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_allgatherv

    function epmpi_f_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        f_bottom, f_in_place) bind(C, name="epmpi_f_alltoall") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: sendcount, recvcount, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_alltoall

    function epmpi_f_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, &
        count_bytes, recvtype, comm, f_bottom, f_in_place) bind(C, name="epmpi_f_alltoallv") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      type(*), dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
      integer(c_int), value :: count_bytes, comm
      integer(c_int), value :: sendtype, recvtype
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_alltoallv

    function epmpi_f_ibarrier(comm, request) bind(C, name="epmpi_f_ibarrier") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: request
      integer(c_int) :: ierror
    end function epmpi_f_ibarrier

    function epmpi_f_ibcast(buf, count, datatype, root, comm, request, f_bottom) &
        bind(C, name="epmpi_f_ibcast") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(c_int), value :: count, root, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_ibcast

    ! ---- nonblocking collectives, alltoallw, reduce_local ----------------------------------

    function epmpi_f_ireduction(kind, sendbuf, recvbuf, count, datatype, op, root, comm, request, f_bottom, &
        f_in_place) bind(C, name="epmpi_f_ireduction") result(ierror)
      import :: c_int
      integer(c_int), value :: kind
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      integer(c_int), value :: count, datatype, op, root, comm
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_ireduction

    function epmpi_f_ireduce_scatter(sendbuf, recvbuf, recvcounts, count_bytes, datatype, op, comm, request, &
        f_bottom, f_in_place) bind(C, name="epmpi_f_ireduce_scatter") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      type(*), dimension(*), intent(in) :: recvcounts
      integer(c_int), value :: count_bytes, datatype, op, comm
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_ireduce_scatter

    function epmpi_f_icollective(kind, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
        request, f_bottom, f_in_place) bind(C, name="epmpi_f_icollective") result(ierror)
      import :: c_int
      integer(c_int), value :: kind
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, root, comm
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_icollective

    function epmpi_f_ivcollective(kind, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf, recvcount, &
        recvcounts, rdispls, recvtype, root, count_bytes, comm, request, f_bottom, f_in_place) &
        bind(C, name="epmpi_f_ivcollective") result(ierror)
      import :: c_int
      integer(c_int), value :: kind
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      type(*), dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, root, count_bytes, comm
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_ivcollective

    function epmpi_f_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
        recvtypes, count_bytes, comm, request, f_bottom, f_in_place) bind(C, name="epmpi_f_alltoallw") &
        result(ierror)
      import :: c_int, c_ptr
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      type(*), dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
      type(*), dimension(*), intent(in) :: sendtypes, recvtypes
      integer(c_int), value :: count_bytes, comm
      type(c_ptr), value :: request
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_alltoallw

    function epmpi_f_reduce_local(inbuf, inoutbuf, count, datatype, op, f_bottom) &
        bind(C, name="epmpi_f_reduce_local") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: inbuf
      type(*), dimension(..), intent(inout) :: inoutbuf
      integer(c_int), value :: count, datatype, op
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_reduce_local

    ! ---- errors and miscellaneous ------------------------------------------------------

    function c_ep_error_string(code, string, resultlen) bind(C, name="EP_Error_string") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: code
      character(kind=c_char), dimension(*), intent(inout) :: string
      integer(c_int), intent(inout) :: resultlen
      integer(c_int) :: ierror
    end function c_ep_error_string

    function c_ep_error_class(code, cls) bind(C, name="EP_Error_class") result(ierror)
      import :: c_int
      integer(c_int), value :: code
      integer(c_int), intent(inout) :: cls
      integer(c_int) :: ierror
    end function c_ep_error_class

    function c_ep_abort(comm, errorcode) bind(C, name="EP_Abort") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, errorcode
      integer(c_int) :: ierror
    end function c_ep_abort

    function c_ep_wtime() bind(C, name="EP_Wtime") result(seconds)
      import :: c_double
      real(c_double) :: seconds
    end function c_ep_wtime

    function c_ep_get_library_version(version, resultlen) bind(C, name="EP_Get_library_version") &
        result(ierror)
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(inout) :: version
      integer(c_int), intent(inout) :: resultlen
      integer(c_int) :: ierror
    end function c_ep_get_library_version

    function c_ep_debug_live_handles(comms, requests, messages) bind(C, name="EP_Debug_live_handles") &
        result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: comms, requests, messages
      integer(c_int) :: ierror
    end function c_ep_debug_live_handles

    function c_ep_debug_live_objects(comm_states, requests, win_states) bind(C, name="EP_Debug_live_objects") &
        result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: comm_states, requests, win_states
      integer(c_int) :: ierror
    end function c_ep_debug_live_objects

    ! ---- intercommunicators -------------------------------------------------------------

    function epmpi_f_intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm) &
        bind(C, name="epmpi_f_intercomm_create") result(ierror)
      import :: c_int
      integer(c_int), value :: local_comm, local_leader, peer_comm, remote_leader, tag
      integer(c_int), intent(inout) :: newintercomm
      integer(c_int) :: ierror
    end function epmpi_f_intercomm_create

    function epmpi_f_intercomm_merge(intercomm, high, newintracomm) bind(C, name="epmpi_f_intercomm_merge") &
        result(ierror)
      import :: c_int
      integer(c_int), value :: intercomm, high
      integer(c_int), intent(inout) :: newintracomm
      integer(c_int) :: ierror
    end function epmpi_f_intercomm_merge

    ! ---- one-sided windows --------------------------------------------------------------
    ! Sizes and displacements are MPI_Aint (integer(c_intptr_t); the glue checks the size).
    ! f_rma: the Fortran values of MPI_LOCK_SHARED, MPI_LOCK_EXCLUSIVE, MPI_MODE_NOCHECK,
    ! MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED, mapped to C's.

    function epmpi_f_win_create(base, size, disp_unit, info, comm, win) bind(C, name="epmpi_f_win_create") &
        result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), asynchronous :: base
      integer(c_intptr_t), value :: size
      integer(c_int), value :: disp_unit, comm
      integer(c_int), value :: info
      integer(c_int), intent(inout) :: win
      integer(c_int) :: ierror
    end function epmpi_f_win_create

    !> `baseptr` receives the address of the memory (a `void **` in C).
    function epmpi_f_win_allocate(size, disp_unit, info, comm, baseptr, win) &
        bind(C, name="epmpi_f_win_allocate") result(ierror)
      import :: c_int, c_intptr_t, c_ptr
      integer(c_intptr_t), value :: size
      integer(c_int), value :: disp_unit, comm
      integer(c_int), value :: info
      type(c_ptr), intent(inout) :: baseptr
      integer(c_int), intent(inout) :: win
      integer(c_int) :: ierror
    end function epmpi_f_win_allocate

    function epmpi_f_win_create_dynamic(info, comm, win) bind(C, name="epmpi_f_win_create_dynamic") &
        result(ierror)
      import :: c_int
      integer(c_int), value :: info
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: win
      integer(c_int) :: ierror
    end function epmpi_f_win_create_dynamic

    function epmpi_f_win_attach(win, base, size) bind(C, name="epmpi_f_win_attach") result(ierror)
      import :: c_int, c_intptr_t
      integer(c_int), value :: win
      type(*), dimension(..), asynchronous :: base
      integer(c_intptr_t), value :: size
      integer(c_int) :: ierror
    end function epmpi_f_win_attach

    function epmpi_f_win_detach(win, base) bind(C, name="epmpi_f_win_detach") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      type(*), dimension(..), asynchronous :: base
      integer(c_int) :: ierror
    end function epmpi_f_win_detach

    function c_ep_win_free(win) bind(C, name="EP_Win_free") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: win
      integer(c_int) :: ierror
    end function c_ep_win_free

    function epmpi_f_win_fence(assert, win, f_rma) bind(C, name="epmpi_f_win_fence") result(ierror)
      import :: c_int
      integer(c_int), value :: assert, win
      integer(c_int), dimension(*), intent(in) :: f_rma
      integer(c_int) :: ierror
    end function epmpi_f_win_fence

    function epmpi_f_win_lock(lock_type, rank, assert, win, f_rma) bind(C, name="epmpi_f_win_lock") &
        result(ierror)
      import :: c_int
      integer(c_int), value :: lock_type, rank, assert, win
      integer(c_int), dimension(*), intent(in) :: f_rma
      integer(c_int) :: ierror
    end function epmpi_f_win_lock

    function c_ep_win_unlock(rank, win) bind(C, name="EP_Win_unlock") result(ierror)
      import :: c_int
      integer(c_int), value :: rank, win
      integer(c_int) :: ierror
    end function c_ep_win_unlock

    function epmpi_f_win_lock_all(assert, win, f_rma) bind(C, name="epmpi_f_win_lock_all") result(ierror)
      import :: c_int
      integer(c_int), value :: assert, win
      integer(c_int), dimension(*), intent(in) :: f_rma
      integer(c_int) :: ierror
    end function epmpi_f_win_lock_all

    function c_ep_win_unlock_all(win) bind(C, name="EP_Win_unlock_all") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int) :: ierror
    end function c_ep_win_unlock_all

    function c_ep_win_flush(rank, win) bind(C, name="EP_Win_flush") result(ierror)
      import :: c_int
      integer(c_int), value :: rank, win
      integer(c_int) :: ierror
    end function c_ep_win_flush

    function c_ep_win_flush_all(win) bind(C, name="EP_Win_flush_all") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int) :: ierror
    end function c_ep_win_flush_all

    function c_ep_win_flush_local(rank, win) bind(C, name="EP_Win_flush_local") result(ierror)
      import :: c_int
      integer(c_int), value :: rank, win
      integer(c_int) :: ierror
    end function c_ep_win_flush_local

    function c_ep_win_sync(win) bind(C, name="EP_Win_sync") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int) :: ierror
    end function c_ep_win_sync

    function epmpi_f_put(origin, origin_count, origin_datatype, target_rank, target_disp, target_count, &
        target_datatype, win, f_bottom) bind(C, name="epmpi_f_put") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin
      integer(c_int), value :: origin_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, target_datatype
      integer(c_intptr_t), value :: target_disp
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_put

    function epmpi_f_get(origin, origin_count, origin_datatype, target_rank, target_disp, target_count, &
        target_datatype, win, f_bottom) bind(C, name="epmpi_f_get") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(inout), asynchronous :: origin
      integer(c_int), value :: origin_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, target_datatype
      integer(c_intptr_t), value :: target_disp
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_get

    function epmpi_f_rput(origin, origin_count, origin_datatype, target_rank, target_disp, target_count, &
        target_datatype, win, request, f_bottom) bind(C, name="epmpi_f_rput") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin
      integer(c_int), value :: origin_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, target_datatype
      integer(c_intptr_t), value :: target_disp
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_rput

    function epmpi_f_rget(origin, origin_count, origin_datatype, target_rank, target_disp, target_count, &
        target_datatype, win, request, f_bottom) bind(C, name="epmpi_f_rget") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(inout), asynchronous :: origin
      integer(c_int), value :: origin_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, target_datatype
      integer(c_intptr_t), value :: target_disp
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_rget

    function epmpi_f_accumulate(origin, origin_count, origin_datatype, target_rank, target_disp, &
        target_count, target_datatype, op, win, f_bottom) bind(C, name="epmpi_f_accumulate") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin
      integer(c_int), value :: origin_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, target_datatype, op
      integer(c_intptr_t), value :: target_disp
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_accumulate

    function epmpi_f_get_accumulate(origin, origin_count, origin_datatype, result, result_count, &
        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, f_bottom) &
        bind(C, name="epmpi_f_get_accumulate") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin
      type(*), dimension(..), intent(inout), asynchronous :: result
      integer(c_int), value :: origin_count, result_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, result_datatype, target_datatype, op
      integer(c_intptr_t), value :: target_disp
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_get_accumulate

    function epmpi_f_fetch_and_op(origin, result, datatype, target_rank, target_disp, op, win, f_bottom) &
        bind(C, name="epmpi_f_fetch_and_op") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin
      type(*), dimension(..), intent(inout), asynchronous :: result
      integer(c_int), value :: target_rank, win
      integer(c_int), value :: datatype, op
      integer(c_intptr_t), value :: target_disp
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_fetch_and_op

    function epmpi_f_compare_and_swap(origin, compare, result, datatype, target_rank, target_disp, win, &
        f_bottom) bind(C, name="epmpi_f_compare_and_swap") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin, compare
      type(*), dimension(..), intent(inout), asynchronous :: result
      integer(c_int), value :: target_rank, win
      integer(c_int), value :: datatype
      integer(c_intptr_t), value :: target_disp
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_compare_and_swap

    function c_ep_win_set_errhandler(win, handler) bind(C, name="EP_Win_set_errhandler") result(ierror)
      import :: c_int
      integer(c_int), value :: win, handler
      integer(c_int) :: ierror
    end function c_ep_win_set_errhandler

    function c_ep_win_get_errhandler(win, handler) bind(C, name="EP_Win_get_errhandler") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int), intent(inout) :: handler
      integer(c_int) :: ierror
    end function c_ep_win_get_errhandler

    function c_ep_debug_live_windows(windows) bind(C, name="EP_Debug_live_windows") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: windows
      integer(c_int) :: ierror
    end function c_ep_debug_live_windows

  end interface

end module ep_mpi_c
