!> `use ep_mpi`: the Fortran interface of EPMPI, MPI endpoints on top of the host MPI.
!>
!> Every C function of `ep_mpi.h` has a subroutine here named in lower case (`EP_Send` ->
!> `ep_send`), with MPI's argument order; `ep_wtime` is a function. Conventions, as in MPI's
!> `use mpi`:
!>
!> * Handles (communicators, requests, messages) are default integers with the C values, so a
!>   handle may cross between C and Fortran unchanged. Datatypes, reduction ops, `MPI_Info`
!>   and the parent communicator of a creation are the host's `use mpi` integers
!>   (`MPI_DOUBLE_PRECISION`, `MPI_SUM`, `MPI_INFO_NULL`, `MPI_COMM_WORLD`), of the kind
!>   `use mpi` gives them (`kind(MPI_COMM_WORLD)`), converted to C handles inside.
!> * Counts, ranks, tags, handles, flags (`logical`) and `ierror` are of default kind, so code
!>   compiled with `-fdefault-integer-8` passes its own integers (this module must then be
!>   compiled with the same flags, as any Fortran module). Values outside the C `int` range
!>   reach the library as -huge(0_c_int), an invalid count, rank, tag or handle.
!> * `ierror` is optional and last. When present it receives `EP_SUCCESS` or an error code
!>   (`ep_error_class` gives its `EP_ERR_*` class, `ep_error_string` its message). Errors go
!>   through the error handler of the communicator concerned first: with the default
!>   `EP_ERRORS_ARE_FATAL` the job aborts with a message naming the call; with
!>   `EP_ERRORS_RETURN` (`ep_comm_set_errhandler`) the code is returned, and dropped when
!>   `ierror` is absent.
!> * Statuses are `integer :: status(EP_STATUS_SIZE)` with `status(EP_SOURCE)`,
!>   `status(EP_TAG)`, `status(EP_ERROR)`; arrays of statuses are
!>   `integer :: statuses(EP_STATUS_SIZE, n)`. Pass `EP_STATUS_IGNORE` / `EP_STATUSES_IGNORE`
!>   to ignore them (the host's `MPI_STATUS_IGNORE` / `MPI_STATUSES_IGNORE` are recognised
!>   too, but their size differs between MPIs: do not declare statuses with
!>   `MPI_STATUS_SIZE`). Indices returned by `ep_waitany`, `ep_waitsome`... are 1-based, as
!>   in MPI's Fortran; ranks, endpoint indices and tags are the same numbers as in C.
!> * Choice buffers (`buf`, `sendbuf`, `recvbuf`) are `type(*), dimension(..)`: any type,
!>   kind and rank, scalars included; counts are in elements of the datatype, never bytes,
!>   read from the first element on. `MPI_BOTTOM` (any buffer) and `MPI_IN_PLACE` (where the
!>   MPI call allows it) of `use mpi` are recognised. Blocking calls copy a non-contiguous
!>   array section into a contiguous temporary and back, as `use mpi` does; nonblocking
!>   calls refuse it with `EP_ERR_BUFFER` (their buffer must stay in place until
!>   completion); their buffers are `asynchronous`, so declare the actual arguments
!>   `asynchronous` too.
!> * Windows: handles are default integers (the C values), targets are endpoint ranks,
!>   window sizes and target displacements `integer(MPI_ADDRESS_KIND)`; lock types and
!>   assertions are the host's `use mpi` values (`MPI_LOCK_EXCLUSIVE`, `MPI_MODE_NOCHECK`,
!>   combined with `ior`), of the kind `use mpi` gives them, mapped to C's inside.
!>   `ep_win_allocate` returns a `type(c_ptr)` (map it with `c_f_pointer`). Window memory
!>   and the buffers of one-sided operations are used after the call returns, so they must
!>   be contiguous (sections get `EP_ERR_BUFFER`, through the window's error handler) and
!>   are `asynchronous`: declare the actual arguments `asynchronous` too, and expose heap
!>   memory (allocatable or pointer arrays).
!>
!> Thread safety: any OpenMP thread may call, each on its own endpoints, as in C. This module
!> keeps no state: no saved or initialised locals, and every routine is `recursive` (the two
!> elemental helpers have no locals) so locals live on the calling thread's stack whatever the
!> compiler flags (-fopenmp or not). `EP_STATUS_IGNORE`/`EP_STATUSES_IGNORE` are module
!> variables that are never read or written, only compared by address.
module ep_mpi
  use, intrinsic :: iso_c_binding, only: c_int, c_intptr_t, c_double, c_char, c_ptr, c_null_ptr, c_null_char, &
    c_loc, c_associated, c_f_pointer, c_funptr, c_funloc, c_f_procpointer
  use mpi, only: MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_ADDRESS_KIND, &
    MPI_COMM_TYPE_SHARED, MPI_UNDEFINED, MPI_LOCK_SHARED, MPI_LOCK_EXCLUSIVE, MPI_MODE_NOCHECK, &
    MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED, MPI_COMM_NULL, MPI_INFO_NULL
  use, intrinsic :: iso_c_binding, only: c_int64_t
  use mpi, only: MPI_COUNT_KIND
  use ep_mpi_c
  implicit none
  private

  ! ---- constants: the values of include/ep_mpi.h (tests/fortran_constants.rs keeps them equal)

  !> Number of integers in a status; `integer :: status(EP_STATUS_SIZE)`.
  integer, parameter, public :: EP_STATUS_SIZE = 6
  !> Status indices (Fortran only): source rank, tag, error code of a completed operation.
  integer, parameter, public :: EP_SOURCE = 1, EP_TAG = 2, EP_ERROR = 3
  !> Wildcard source rank of receives and probes.
  integer, parameter, public :: EP_ANY_SOURCE = -2
  !> Wildcard tag of receives and probes.
  integer, parameter, public :: EP_ANY_TAG = -1
  !> Null peer: sends to it do nothing, receives from it complete at once.
  integer, parameter, public :: EP_PROC_NULL = -1
  !> Root argument of an intercommunicator collective at its root (MPI's MPI_ROOT); the
  !> root group's other endpoints pass EP_PROC_NULL, the remote group the root's rank.
  integer, parameter, public :: EP_ROOT = -3
  !> Undefined value (`ep_get_count` of a partial element, `ep_waitany` with no active request).
  integer, parameter, public :: EP_UNDEFINED = -32766
  !> Room for the longest error string (`character(len=EP_MAX_ERROR_STRING)`).
  integer, parameter, public :: EP_MAX_ERROR_STRING = 512
  !> Largest tag EPMPI carries, on every host MPI.
  integer, parameter, public :: EP_TAG_UB_VALUE = 2147483647
  !> Results of `ep_comm_compare`.
  integer, parameter, public :: EP_IDENT = 0, EP_CONGRUENT = 1, EP_SIMILAR = 2, EP_UNEQUAL = 3
  !> Attribute keys of `ep_comm_get_attr`: largest tag; kind of communicator.
  integer, parameter, public :: EP_TAG_UB = 1, EP_COMM_FLAVOR = 2
  !> `EP_COMM_FLAVOR` of an endpoints communicator.
  integer, parameter, public :: EP_FLAVOR_ENDPOINTS = 1
  !> Error handlers: print a message naming the call and abort (default); return the code.
  integer, parameter, public :: EP_ERRORS_ARE_FATAL = 1, EP_ERRORS_RETURN = 2
  !> Success, and the error classes (see include/ep_mpi.h for each one's meaning).
  integer, parameter, public :: EP_SUCCESS = 0
  integer, parameter, public :: EP_ERR_BUFFER = 1, EP_ERR_COUNT = 2, EP_ERR_TYPE = 3, EP_ERR_TAG = 4
  integer, parameter, public :: EP_ERR_COMM = 5, EP_ERR_RANK = 6, EP_ERR_REQUEST = 7, EP_ERR_ROOT = 8
  integer, parameter, public :: EP_ERR_OP = 9, EP_ERR_ARG = 10, EP_ERR_TRUNCATE = 11
  integer, parameter, public :: EP_ERR_IN_STATUS = 12, EP_ERR_PENDING = 13, EP_ERR_WIN = 14
  integer, parameter, public :: EP_ERR_THREAD_LEVEL = 15, EP_ERR_NOT_INITIALIZED = 16
  integer, parameter, public :: EP_ERR_UNSUPPORTED = 17, EP_ERR_INTERN = 18, EP_ERR_OTHER = 19
  integer, parameter, public :: EP_ERR_RMA_SYNC = 20, EP_ERR_RMA_RANGE = 21, EP_ERR_LOCKTYPE = 22
  integer, parameter, public :: EP_ERR_DISP = 23, EP_ERR_SIZE = 24
  integer, parameter, public :: EP_ERR_GROUP = 25, EP_ERR_KEYVAL = 26, EP_ERR_TOPOLOGY = 27
  integer, parameter, public :: EP_ERR_DIMS = 28
  integer, parameter, public :: EP_ERR_LASTCODE = 28
  !> Null handles, and the message of a matched probe on `EP_PROC_NULL`.
  integer, parameter, public :: EP_COMM_NULL = 0, EP_REQUEST_NULL = 0, EP_MESSAGE_NULL = 0
  integer, parameter, public :: EP_MESSAGE_NO_PROC = 1, EP_WIN_NULL = 0
  ! Shared-memory windows and window attributes
  !> Attribute keys of `ep_win_get_attr`: base address, size in bytes, displacement unit, how
  !> the window was made, memory model.
  integer, parameter, public :: EP_WIN_BASE = 101, EP_WIN_SIZE = 102, EP_WIN_DISP_UNIT = 103
  integer, parameter, public :: EP_WIN_CREATE_FLAVOR = 104, EP_WIN_MODEL = 105
  !> `EP_WIN_CREATE_FLAVOR` values: `ep_win_create`, `ep_win_allocate`, `ep_win_create_dynamic`,
  !> `ep_win_allocate_shared`.
  integer, parameter, public :: EP_WIN_FLAVOR_CREATE = 1, EP_WIN_FLAVOR_ALLOCATE = 2
  integer, parameter, public :: EP_WIN_FLAVOR_DYNAMIC = 3, EP_WIN_FLAVOR_SHARED = 4
  !> `EP_WIN_MODEL` values: separate public and private copies; one unified copy.
  integer, parameter, public :: EP_WIN_SEPARATE = 1, EP_WIN_UNIFIED = 2
  !> Bytes each buffered message takes in the attached buffer beyond its packed data.
  integer, parameter, public :: EP_BSEND_OVERHEAD = 96
  ! Endpoint teams
  !> The null endpoint team handle; `ep_endpoint_team_destroy` sets the handle to it.
  integer, parameter, public :: EP_ENDPOINT_TEAM_NULL = 0

  !> Pass as `status` to ignore it. Only its address is used: it is never read or written.
  integer, public :: EP_STATUS_IGNORE(EP_STATUS_SIZE)
  !> Pass as the status array to ignore all statuses. Only its address is used.
  integer, public :: EP_STATUSES_IGNORE(EP_STATUS_SIZE, 1)

  !> The host's lock types and assertions as `use mpi` has them, in the order the glue maps
  !> them to C's (`f_rma` of ep_mpi_glue.c): lock shared, lock exclusive, MPI_MODE_NOCHECK,
  !> MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED.
  integer(c_int), parameter :: rma_constants(7) = int([MPI_LOCK_SHARED, MPI_LOCK_EXCLUSIVE, &
    MPI_MODE_NOCHECK, MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED], c_int)

  ! ---- routines ----------------------------------------------------------------------------

  public :: ep_comm_create_endpoints, ep_comm_create_endpoint
  public :: ep_comm_rank, ep_comm_size, ep_comm_remote_size, ep_comm_test_inter, ep_comm_local_info
  public :: ep_comm_get_host_comm
  public :: ep_comm_get_attr, ep_comm_compare, ep_comm_dup, ep_comm_free
  public :: ep_comm_set_errhandler, ep_comm_get_errhandler, ep_comm_split, ep_comm_split_type
  public :: ep_intercomm_create, ep_intercomm_merge
  public :: ep_send, ep_ssend, ep_isend, ep_issend, ep_recv, ep_irecv, ep_sendrecv
  public :: ep_iprobe, ep_probe, ep_improbe, ep_mprobe, ep_mrecv, ep_imrecv, ep_get_count
  public :: ep_wait, ep_test, ep_waitall, ep_testall, ep_waitany, ep_testany, ep_waitsome, ep_testsome
  public :: ep_request_free, ep_cancel, ep_test_cancelled
  public :: ep_isendrecv, ep_isendrecv_replace
  public :: ep_sendrecv_replace, ep_send_init, ep_ssend_init, ep_bsend_init, ep_rsend_init, ep_recv_init
  public :: ep_start, ep_startall, ep_bsend, ep_ibsend, ep_rsend, ep_irsend, ep_buffer_attach
  public :: ep_buffer_detach, ep_request_get_status, ep_get_elements, ep_get_elements_x
  public :: ep_status_set_elements, ep_status_set_elements_x, ep_status_set_cancelled
  public :: ep_request_get_status_any, ep_request_get_status_all, ep_request_get_status_some
  public :: ep_status_get_source, ep_status_get_tag, ep_status_get_error
  public :: ep_status_set_source, ep_status_set_tag, ep_status_set_error
  public :: ep_barrier, ep_bcast, ep_reduce, ep_allreduce, ep_gather, ep_gatherv, ep_scatter, ep_scatterv
  public :: ep_allgather, ep_allgatherv, ep_alltoall, ep_alltoallv, ep_reduce_scatter
  public :: ep_reduce_scatter_block, ep_scan, ep_exscan, ep_ibarrier, ep_ibcast
  public :: ep_ireduce, ep_iallreduce, ep_iscan, ep_iexscan, ep_ireduce_scatter, ep_ireduce_scatter_block
  public :: ep_igather, ep_igatherv, ep_iscatter, ep_iscatterv, ep_iallgather, ep_iallgatherv
  public :: ep_ialltoall, ep_ialltoallv, ep_ialltoallw, ep_alltoallw, ep_reduce_local
  public :: ep_error_string, ep_error_class, ep_abort, ep_wtime, ep_get_library_version
  public :: ep_debug_live_handles, ep_debug_live_windows, ep_debug_live_objects
  public :: ep_win_create, ep_win_allocate, ep_win_create_dynamic, ep_win_attach, ep_win_detach, ep_win_free
  public :: ep_win_fence, ep_win_lock, ep_win_unlock, ep_win_lock_all, ep_win_unlock_all
  public :: ep_win_post, ep_win_start, ep_win_complete, ep_win_wait, ep_win_test
  public :: ep_win_set_name, ep_win_get_name, ep_win_set_info, ep_win_get_info
  public :: ep_win_create_keyval, ep_win_free_keyval, ep_win_set_attr, ep_win_delete_attr
  public :: ep_win_null_copy_fn, ep_win_dup_fn, ep_win_null_delete_fn
  public :: ep_win_copy_attr_function, ep_win_delete_attr_function
  public :: ep_win_flush, ep_win_flush_all, ep_win_flush_local, ep_win_flush_local_all, ep_win_sync
  public :: ep_put, ep_get, ep_rput, ep_rget, ep_accumulate, ep_get_accumulate, ep_fetch_and_op
  public :: ep_raccumulate, ep_rget_accumulate
  public :: ep_compare_and_swap, ep_win_set_errhandler, ep_win_get_errhandler
  ! Shared-memory windows and window attributes
  public :: ep_win_allocate_shared, ep_win_shared_query, ep_win_get_attr
  ! Persistent collectives
  public :: ep_barrier_init, ep_bcast_init, ep_reduce_init, ep_allreduce_init, ep_scan_init, ep_exscan_init
  public :: ep_reduce_scatter_block_init, ep_gather_init, ep_scatter_init, ep_allgather_init, ep_alltoall_init
  public :: ep_gatherv_init, ep_scatterv_init, ep_allgatherv_init, ep_alltoallv_init, ep_reduce_scatter_init
  public :: ep_alltoallw_init
  ! Endpoint teams
  public :: ep_endpoint_team_create, ep_endpoint_join, ep_endpoint_leave, ep_endpoint_team_destroy

  ! ---- Process topologies and neighbourhood collectives (MPI 4.1 chapter 8)
  !> Results of `ep_topo_test` (`EP_UNDEFINED` without a topology).
  integer, parameter, public :: EP_CART = 1, EP_GRAPH = 2, EP_DIST_GRAPH = 3
  !> Weights arguments of `ep_dist_graph_create_adjacent` and `ep_dist_graph_neighbors`: an
  !> unweighted graph; a weighted side of degree 0. Only their addresses are used.
  integer, public, target :: EP_UNWEIGHTED(1), EP_WEIGHTS_EMPTY(1)
  public :: ep_cart_create, ep_dims_create, ep_cart_coords, ep_cart_rank, ep_cart_shift, ep_cart_sub
  public :: ep_cart_get, ep_cartdim_get, ep_topo_test, ep_dist_graph_create_adjacent, ep_dist_graph_create
  public :: ep_dist_graph_neighbors_count, ep_dist_graph_neighbors, ep_graph_create, ep_graphdims_get
  public :: ep_graph_get, ep_graph_neighbors_count, ep_graph_neighbors, ep_cart_map, ep_graph_map
  public :: ep_neighbor_allgather, ep_neighbor_allgatherv, ep_neighbor_alltoall, ep_neighbor_alltoallv
  public :: ep_neighbor_alltoallw, ep_ineighbor_allgather, ep_ineighbor_allgatherv, ep_ineighbor_alltoall
  public :: ep_ineighbor_alltoallv, ep_ineighbor_alltoallw, ep_neighbor_allgather_init, ep_neighbor_allgatherv_init
  public :: ep_neighbor_alltoall_init, ep_neighbor_alltoallv_init, ep_neighbor_alltoallw_init

  ! ---- Groups, communicators from groups, caching and error handlers -----------------------

  !> The null group; the predefined empty group (group calls that give no member return it).
  integer, parameter, public :: EP_GROUP_NULL = 0, EP_GROUP_EMPTY = 1
  !> The null error handler; the invalid keyval (what the frees set handles to).
  integer, parameter, public :: EP_ERRHANDLER_NULL = 0, EP_KEYVAL_INVALID = 0
  !> Room for the longest communicator name (`character(len=EP_MAX_OBJECT_NAME)`).
  integer, parameter, public :: EP_MAX_OBJECT_NAME = 128
  !> Split type of `ep_comm_split_type` that groups the endpoints of each process.
  integer, parameter, public :: EP_COMM_TYPE_PROCESS = 17744

  public :: ep_comm_group, ep_comm_remote_group, ep_win_get_group, ep_group_size, ep_group_rank
  public :: ep_group_incl, ep_group_excl, ep_group_range_incl, ep_group_range_excl
  public :: ep_group_union, ep_group_intersection, ep_group_difference
  public :: ep_group_translate_ranks, ep_group_compare, ep_group_free
  public :: ep_comm_create, ep_comm_create_group, ep_comm_idup, ep_comm_set_name, ep_comm_get_name
  public :: ep_comm_create_keyval, ep_comm_free_keyval, ep_comm_set_attr, ep_comm_delete_attr
  public :: ep_comm_null_copy_fn, ep_comm_dup_fn, ep_comm_null_delete_fn
  public :: ep_comm_create_errhandler, ep_comm_call_errhandler, ep_errhandler_free
  public :: ep_comm_dup_with_info, ep_comm_idup_with_info, ep_comm_set_info, ep_comm_get_info
  public :: ep_comm_copy_attr_function, ep_comm_delete_attr_function, ep_comm_errhandler_function
  !> The MPI-1 forms, deprecated since MPI 2.0, whose values are default integers.
  public :: ep_keyval_create, ep_keyval_free, ep_attr_put, ep_attr_get, ep_attr_delete
  public :: ep_null_copy_fn, ep_dup_fn, ep_null_delete_fn, ep_copy_function, ep_delete_function

  !> The callbacks of `ep_comm_create_keyval` and `ep_comm_create_errhandler`, as MPI's
  !> Fortran binding declares them (`ierror`: EP_SUCCESS or an error code, which fails the
  !> call that ran the callback).
  abstract interface
    subroutine ep_comm_copy_attr_function(oldcomm, comm_keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      import :: MPI_ADDRESS_KIND
      integer :: oldcomm, comm_keyval, ierror
      integer(MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine ep_comm_copy_attr_function

    subroutine ep_comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
      import :: MPI_ADDRESS_KIND
      integer :: comm, comm_keyval, ierror
      integer(MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine ep_comm_delete_attr_function

    !> A window keyval's callbacks (MPI's MPI_Win_copy_attr_function, never run since windows
    !> are not duplicated, and MPI_Win_delete_attr_function).
    subroutine ep_win_copy_attr_function(oldwin, win_keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      import :: MPI_ADDRESS_KIND
      integer :: oldwin, win_keyval, ierror
      integer(MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine ep_win_copy_attr_function

    subroutine ep_win_delete_attr_function(win, win_keyval, attribute_val, extra_state, ierror)
      import :: MPI_ADDRESS_KIND
      integer :: win, win_keyval, ierror
      integer(MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine ep_win_delete_attr_function

    subroutine ep_comm_errhandler_function(comm, error_code)
      integer :: comm, error_code
    end subroutine ep_comm_errhandler_function

    !> The callbacks of `ep_keyval_create` (MPI's MPI_Copy_function and MPI_Delete_function,
    !> deprecated since MPI 2.0): every value a default integer.
    subroutine ep_copy_function(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
      integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierror
      logical :: flag
    end subroutine ep_copy_function

    subroutine ep_delete_function(comm, keyval, attribute_val, extra_state, ierror)
      integer :: comm, keyval, attribute_val, extra_state, ierror
    end subroutine ep_delete_function

    !> The C group calls the wrappers share a body for (private).
    function c_group_from_ranks(group, n, ranks, newgroup) bind(C) result(ierror)
      import :: c_int
      integer(c_int), value :: group, n
      integer(c_int), intent(in) :: ranks(*)
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_group_from_ranks

    function c_group_from_ranges(group, n, ranges, newgroup) bind(C) result(ierror)
      import :: c_int
      integer(c_int), value :: group, n
      integer(c_int), intent(in) :: ranges(3, *)
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_group_from_ranges

    function c_group_from_pair(group1, group2, newgroup) bind(C) result(ierror)
      import :: c_int
      integer(c_int), value :: group1, group2
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_group_from_pair
  end interface

contains

  ! ==========================================================================================
  ! Helpers (private)
  ! ==========================================================================================

  !> A default integer as a C int; values outside the int range become -huge(0_c_int), which
  !> every argument rejects (invalid count, rank, tag or handle).
  elemental function c_arg(x) result(c)
    integer, intent(in) :: x
    integer(c_int) :: c
    if (x >= int(-huge(0_c_int), kind(x)) .and. x <= int(huge(0_c_int), kind(x))) then
      c = int(x, c_int)
    else
      c = -huge(0_c_int)
    end if
  end function c_arg

  !> `name` without its trailing blanks, NUL-terminated, as C takes an object name.
  pure function c_name_of(name) result(c_name)
    character(len=*), intent(in) :: name
    character(kind=c_char), allocatable :: c_name(:)
    integer :: i, n
    n = len_trim(name)
    allocate(c_name(n + 1))
    do i = 1, n
      c_name(i) = name(i:i)
    end do
    c_name(n + 1) = c_null_char
  end function c_name_of

  !> The first `c_len` characters of the C object name `c_name` into `name`, blank-padded;
  !> `resultlen` the characters kept.
  pure subroutine name_from_c(c_name, c_len, name, resultlen)
    character(kind=c_char), intent(in) :: c_name(:)
    integer(c_int), intent(in) :: c_len
    character(len=*), intent(out) :: name
    integer, intent(out) :: resultlen
    integer :: i
    resultlen = min(int(c_len), len(name), size(c_name))
    name = ' '
    do i = 1, resultlen
      name(i:i) = c_name(i)
    end do
  end subroutine name_from_c

  !> Whether actual argument `x` is the variable `y` itself (same address).
  pure recursive function same_variable(x, y) result(same)
    type(*), dimension(*), intent(in) :: x, y
    logical :: same
    same = c_associated(epmpi_f_loc(x), epmpi_f_loc(y))
  end function same_variable

  !> Whether a status argument is `EP_STATUS_IGNORE` or the host's `MPI_STATUS_IGNORE`.
  pure recursive function ignores_status(status) result(ignore)
    integer, dimension(*), intent(in) :: status
    logical :: ignore
    ignore = same_variable(status, EP_STATUS_IGNORE) .or. same_variable(status, MPI_STATUS_IGNORE)
  end function ignores_status

  !> Whether a status array argument is `EP_STATUSES_IGNORE` or the host's `MPI_STATUSES_IGNORE`.
  pure recursive function ignores_statuses(statuses) result(ignore)
    integer, dimension(EP_STATUS_SIZE, *), intent(in) :: statuses
    logical :: ignore
    ignore = same_variable(statuses, EP_STATUSES_IGNORE) .or. same_variable(statuses, MPI_STATUSES_IGNORE)
  end function ignores_statuses

  !> Reports a failed allocation of routine `routine` through the handler of `comm`.
  recursive function no_memory(comm, routine) result(c_ierror)
    integer(c_int), intent(in) :: comm
    character(len=*), intent(in) :: routine
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_raise(comm, int(EP_ERR_OTHER, c_int), routine // c_null_char, &
      'no memory for a temporary copy of an array argument' // c_null_char)
  end function no_memory

  !> Copies C text into a Fortran string, blank-padded; `length` gets the characters copied.
  recursive subroutine c_text_to_fortran(c_text, c_length, string, length)
    character(kind=c_char), dimension(*), intent(in) :: c_text
    integer(c_int), intent(in) :: c_length
    character(len=*), intent(out) :: string
    integer, intent(out) :: length
    integer :: i
    string = ' '
    length = min(int(c_length), len(string))
    do i = 1, length
      string(i:i) = c_text(i)
    end do
  end subroutine c_text_to_fortran

  ! ==========================================================================================
  ! Creation of endpoints communicators (MPI Forum endpoints proposal)
  ! ==========================================================================================

  !> Creates an endpoints communicator from a host communicator, array form (C:
  !> `EP_Comm_create_endpoints`; MPI Forum endpoints proposal, `MPI_Comm_create_endpoints`).
  !> Collective over `parent_comm`, called by one thread per process; ranks are ordered by
  !> (rank in `parent_comm`, index), and `out_comm_handles(i)` is this process's endpoint of
  !> index i-1, to hand to OpenMP thread i-1.
  !>
  !> parent_comm      `use mpi` communicator (e.g. `MPI_COMM_WORLD`)
  !> my_num_ep        endpoints of this process, >= 0 (0: the process takes no part)
  !> info             `use mpi` info (`MPI_INFO_NULL`); accepted and ignored
  !> out_comm_handles integer, dimension(my_num_ep): the endpoint handles
  !> Errors: EP_ERR_NOT_INITIALIZED, EP_ERR_THREAD_LEVEL (host not at MPI_THREAD_MULTIPLE),
  !> EP_ERR_ARG (my_num_ep < 0 or too large), EP_ERR_COMM (MPI_COMM_NULL).
  recursive subroutine ep_comm_create_endpoints(parent_comm, my_num_ep, info, out_comm_handles, ierror)
    integer(mpi_kind), intent(in) :: parent_comm, info
    integer, intent(in) :: my_num_ep
    integer, dimension(*), intent(out) :: out_comm_handles
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_handles(:)
    integer(c_int) :: c_ierror, n
    integer :: alloc_stat
    n = c_arg(my_num_ep)
    allocate(c_handles(max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_comm_create_endpoints')
    else
      c_ierror = epmpi_f_comm_create_endpoints(int(parent_comm, c_int), n, int(info, c_int), c_handles)
      if (c_ierror == EP_SUCCESS .and. n > 0) out_comm_handles(1:n) = int(c_handles(1:n))
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_create_endpoints

  !> Creates an endpoints communicator, team form (C: `EP_Comm_create_endpoint`): called by
  !> `my_num_ep` threads of each process (e.g. inside `!$omp parallel`), each with its own
  !> `index` in 0..my_num_ep-1, each getting the handle of endpoint `index`. The same
  !> communicator as `ep_comm_create_endpoints` with the same counts; a process with no
  !> endpoint calls `ep_comm_create_endpoints(parent_comm, 0, ...)` instead. The threads of a
  !> process wait for each other.
  !>
  !> parent_comm `use mpi` communicator; my_num_ep endpoints of this process (>= 1);
  !> index 0-based endpoint index (not necessarily the OpenMP thread number);
  !> comm (out) the endpoint's handle.
  !> Errors: those of `ep_comm_create_endpoints`; EP_ERR_ARG (index out of range, or a
  !> my_num_ep other than the one the other threads gave).
  recursive subroutine ep_comm_create_endpoint(parent_comm, my_num_ep, index, comm, ierror)
    integer(mpi_kind), intent(in) :: parent_comm
    integer, intent(in) :: my_num_ep, index
    integer, intent(out) :: comm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_comm
    c_comm = EP_COMM_NULL
    c_ierror = epmpi_f_comm_create_endpoint(int(parent_comm, c_int), c_arg(my_num_ep), c_arg(index), c_comm)
    comm = int(c_comm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_create_endpoint

  ! ==========================================================================================
  ! Communicators: queries, dup, split, free, error handlers (MPI 4.1 chapters 7 and 9)
  ! ==========================================================================================

  !> Rank of endpoint `comm` in its communicator (C: `EP_Comm_rank`; MPI 4.1 section 7.4.1).
  !> rank (out) 0-based. Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_rank(comm, rank, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: rank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_rank
    c_rank = -1
    c_ierror = c_ep_comm_rank(c_arg(comm), c_rank)
    rank = int(c_rank)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_rank

  !> Number of endpoints (ranks) of the communicator (C: `EP_Comm_size`; MPI 4.1 section
  !> 7.4.1). Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_size(comm, size, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: size
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_size
    c_size = 0
    c_ierror = c_ep_comm_size(c_arg(comm), c_size)
    size = int(c_size)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_size

  !> Size of the remote group of an intercommunicator (C: `EP_Comm_remote_size`; MPI 4.1
  !> section 7.6.1). Errors: EP_ERR_COMM (also for an intracommunicator).
  recursive subroutine ep_comm_remote_size(comm, size, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: size
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_size
    c_size = 0
    c_ierror = c_ep_comm_remote_size(c_arg(comm), c_size)
    size = int(c_size)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_remote_size

  !> `flag` is .true. for an intercommunicator (C: `EP_Comm_test_inter`; MPI 4.1 section
  !> 7.6.1). Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_test_inter(comm, flag, ierror)
    integer, intent(in) :: comm
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_flag
    c_flag = 0
    c_ierror = c_ep_comm_test_inter(c_arg(comm), c_flag)
    flag = c_flag /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_test_inter

  !> Where endpoint `comm` lives (C: `EP_Comm_local_info`; EPMPI extension): its 0-based
  !> index among its process's endpoints of this communicator, that count, and the 0-based
  !> rank of its process among the communicator's processes. Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_local_info(comm, local_index, local_count, process_rank, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: local_index, local_count, process_rank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_index, c_count, c_process
    c_index = -1
    c_count = 0
    c_process = -1
    c_ierror = c_ep_comm_local_info(c_arg(comm), c_index, c_count, c_process)
    local_index = int(c_index)
    local_count = int(c_count)
    process_rank = int(c_process)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_local_info

  !> The host communicator under an endpoint communicator (C: `EP_Comm_get_host_comm`), for
  !> process-level libraries such as parallel NetCDF: one rank per process that has endpoints
  !> in `comm` (both groups' for an intercommunicator), this process's rank being the
  !> `process_rank` of `ep_comm_local_info`; the same for every endpoint of a process.
  !> It belongs to EPMPI: valid until this process's last endpoint has freed `comm`; do not
  !> free it; collectives from one thread per process only (not during EPMPI collectives on
  !> `comm`), no point-to-point; MPI_Comm_dup it for unrestricted use.
  !>
  !> comm endpoint handle; host_comm (out) `use mpi` communicator.
  !> Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_get_host_comm(comm, host_comm, ierror)
    integer, intent(in) :: comm
    integer(mpi_kind), intent(out) :: host_comm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_host
    c_host = int(MPI_COMM_NULL, c_int)
    c_ierror = epmpi_f_comm_get_host_comm(c_arg(comm), c_host)
    host_comm = int(c_host, mpi_kind)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_get_host_comm

  !> Reads an attribute (C: `EP_Comm_get_attr`; MPI 4.1 section 7.7.2), as MPI's Fortran
  !> binding does: `attribute_val` receives the value itself.
  !> comm_keyval EP_TAG_UB (largest tag, EP_TAG_UB_VALUE), EP_COMM_FLAVOR
  !> (EP_FLAVOR_ENDPOINTS) or a keyval of ep_comm_create_keyval (the value ep_comm_set_attr
  !> stored); attribute_val integer(MPI_ADDRESS_KIND) (out); flag (out) .true. when the
  !> attribute is set. Errors: EP_ERR_COMM, EP_ERR_KEYVAL (unknown key).
  recursive subroutine ep_comm_get_attr(comm, comm_keyval, attribute_val, flag, ierror)
    integer, intent(in) :: comm, comm_keyval
    integer(MPI_ADDRESS_KIND), intent(out) :: attribute_val
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_flag
    type(c_ptr) :: c_value
    integer(c_int), pointer :: value
    c_flag = 0
    c_value = c_null_ptr
    attribute_val = 0
    c_ierror = c_ep_comm_get_attr(c_arg(comm), c_arg(comm_keyval), c_value, c_flag)
    flag = c_ierror == EP_SUCCESS .and. c_flag /= 0
    if (flag .and. (comm_keyval == EP_TAG_UB .or. comm_keyval == EP_COMM_FLAVOR)) then
      flag = c_associated(c_value)
      if (flag) then
        call c_f_pointer(c_value, value)
        attribute_val = int(value, MPI_ADDRESS_KIND)
      end if
    else if (flag) then
      ! Attributes of keyvals are stored by value (ep_comm_set_attr).
      attribute_val = int(transfer(c_value, 0_c_intptr_t), MPI_ADDRESS_KIND)
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_get_attr

  !> Compares two communicators (C: `EP_Comm_compare`; MPI 4.1 section 7.4.1): `result` is
  !> EP_IDENT (same communicator), EP_CONGRUENT (same endpoints, same order: a dup),
  !> EP_SIMILAR (same endpoints, other order) or EP_UNEQUAL. Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_compare(comm1, comm2, result, ierror)
    integer, intent(in) :: comm1, comm2
    integer, intent(out) :: result
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_result
    c_result = EP_UNEQUAL
    c_ierror = c_ep_comm_compare(c_arg(comm1), c_arg(comm2), c_result)
    result = int(c_result)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_compare

  !> Duplicates a communicator (C: `EP_Comm_dup`; MPI 4.1 section 7.4.2): collective, once per
  !> endpoint; `newcomm` gets the same rank and error handler, and a new context.
  !> Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_dup(comm, newcomm, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: newcomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_newcomm
    c_newcomm = EP_COMM_NULL
    c_ierror = c_ep_comm_dup(c_arg(comm), c_newcomm)
    newcomm = int(c_newcomm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_dup

  !> Frees this endpoint's handle and sets `comm` to EP_COMM_NULL (C: `EP_Comm_free`; MPI 4.1
  !> section 7.4.3); once per endpoint. Errors: EP_ERR_COMM (null or already freed handle).
  recursive subroutine ep_comm_free(comm, ierror)
    integer, intent(inout) :: comm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_comm
    c_comm = c_arg(comm)
    c_ierror = c_ep_comm_free(c_comm)
    comm = int(c_comm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_free

  !> Sets the error handler of an endpoint, or with EP_COMM_NULL the process default
  !> inherited by communicators created afterwards (C: `EP_Comm_set_errhandler`; MPI 4.1
  !> section 9.3.1). errhandler: EP_ERRORS_ARE_FATAL or EP_ERRORS_RETURN.
  !> Errors: EP_ERR_COMM, EP_ERR_ARG (unknown handler).
  recursive subroutine ep_comm_set_errhandler(comm, errhandler, ierror)
    integer, intent(in) :: comm, errhandler
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_comm_set_errhandler(c_arg(comm), c_arg(errhandler))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_set_errhandler

  !> Reads the error handler of an endpoint, or the process default for EP_COMM_NULL (C:
  !> `EP_Comm_get_errhandler`; MPI 4.1 section 9.3.1). Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_get_errhandler(comm, errhandler, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: errhandler
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_handler
    c_handler = EP_ERRORS_ARE_FATAL
    c_ierror = c_ep_comm_get_errhandler(c_arg(comm), c_handler)
    errhandler = int(c_handler)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_get_errhandler

  !> Splits a communicator by `color` (C: `EP_Comm_split`; MPI 4.1 section 7.4.2):
  !> collective, once per endpoint. Endpoints with the same color >= 0 get a communicator
  !> ranked by `key`, ties by old rank; color EP_UNDEFINED (or the host's MPI_UNDEFINED)
  !> gives EP_COMM_NULL. Errors: EP_ERR_COMM, EP_ERR_ARG (negative color).
  recursive subroutine ep_comm_split(comm, color, key, newcomm, ierror)
    integer, intent(in) :: comm, color, key
    integer, intent(out) :: newcomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_newcomm, c_color
    c_newcomm = EP_COMM_NULL
    c_color = c_arg(color)
    if (color == MPI_UNDEFINED) c_color = EP_UNDEFINED
    c_ierror = epmpi_f_comm_split(c_arg(comm), c_color, c_arg(key), c_newcomm)
    newcomm = int(c_newcomm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_split

  !> Splits a communicator by type (C: `EP_Comm_split_type`; MPI 4.1 section 7.4.2): with the
  !> host's `MPI_COMM_TYPE_SHARED`, the endpoints of each node form one communicator, with
  !> EP_COMM_TYPE_PROCESS the endpoints of each process, ranked by `key`, ties by old rank;
  !> `MPI_UNDEFINED` (or EP_UNDEFINED, the same value) gives EP_COMM_NULL. split_type is a
  !> `use mpi` value (or EP_COMM_TYPE_PROCESS), of the kind `use mpi` gives it; info: `use
  !> mpi` info, accepted and ignored. Errors: EP_ERR_COMM, EP_ERR_ARG (another split type).
  recursive subroutine ep_comm_split_type(comm, split_type, key, info, newcomm, ierror)
    integer, intent(in) :: comm, key
    integer(mpi_kind), intent(in) :: split_type, info
    integer, intent(out) :: newcomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_newcomm, c_split_type
    c_newcomm = EP_COMM_NULL
    if (split_type == MPI_UNDEFINED) then
      c_split_type = EP_UNDEFINED
    else
      c_split_type = int(split_type, c_int)
    end if
    c_ierror = epmpi_f_comm_split_type(c_arg(comm), c_split_type, c_arg(key), int(info, c_int), c_newcomm, &
      int(MPI_COMM_TYPE_SHARED, c_int))
    newcomm = int(c_newcomm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_split_type

  ! ---- Groups, communicators from groups, caching and error handlers -----------------------
  ! (C: `EP_Group_*`, `EP_Comm_group`, `EP_Comm_create*`, `EP_Comm_*_attr`, ...; MPI 4.1
  ! sections 7.3, 7.4.2, 7.7, 7.8, 9.3). Group handles are default integers like the others.

  !> The group of the endpoints of `comm` (the local group of an intercommunicator), in rank
  !> order (C: `EP_Comm_group`; MPI 4.1 section 7.3.2). Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_group(comm, group, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: group
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_group
    c_group = EP_GROUP_NULL
    c_ierror = c_ep_comm_group(c_arg(comm), c_group)
    group = int(c_group)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_group

  !> The remote group of an intercommunicator (C: `EP_Comm_remote_group`; MPI 4.1 section
  !> 7.6.1). Errors: EP_ERR_COMM (also for an intracommunicator).
  recursive subroutine ep_comm_remote_group(comm, group, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: group
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_group
    c_group = EP_GROUP_NULL
    c_ierror = c_ep_comm_remote_group(c_arg(comm), c_group)
    group = int(c_group)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_remote_group

  !> The group of a window's communicator (C: `EP_Win_get_group`; MPI 4.1 section 12.2.6).
  !> Errors: EP_ERR_WIN.
  recursive subroutine ep_win_get_group(win, group, ierror)
    integer, intent(in) :: win
    integer, intent(out) :: group
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_group
    c_group = EP_GROUP_NULL
    c_ierror = c_ep_win_get_group(c_arg(win), c_group)
    group = int(c_group)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_get_group

  !> Number of endpoints of a group (C: `EP_Group_size`; MPI 4.1 section 7.3.1).
  !> Errors: EP_ERR_GROUP.
  recursive subroutine ep_group_size(group, size, ierror)
    integer, intent(in) :: group
    integer, intent(out) :: size
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_size
    c_size = 0
    c_ierror = c_ep_group_size(c_arg(group), c_size)
    size = int(c_size)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_group_size

  !> Rank in `group` of the endpoint the group belongs to (the one whose communicator gave
  !> it), or EP_UNDEFINED (C: `EP_Group_rank`; MPI 4.1 section 7.3.1). Errors: EP_ERR_GROUP.
  recursive subroutine ep_group_rank(group, rank, ierror)
    integer, intent(in) :: group
    integer, intent(out) :: rank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_rank
    c_rank = EP_UNDEFINED
    c_ierror = c_ep_group_rank(c_arg(group), c_rank)
    rank = int(c_rank)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_group_rank

  !> The endpoints of ranks `ranks(1:n)` of `group`, in that order (C: `EP_Group_incl`; MPI
  !> 4.1 section 7.3.2). Errors: EP_ERR_GROUP, EP_ERR_RANK (out of range, repeated), EP_ERR_ARG.
  recursive subroutine ep_group_incl(group, n, ranks, newgroup, ierror)
    integer, intent(in) :: group, n, ranks(*)
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    call group_from_ranks(c_ep_group_incl, group, n, ranks, newgroup, ierror)
  end subroutine ep_group_incl

  !> The endpoints of `group` whose ranks are not in `ranks(1:n)`, in group order (C:
  !> `EP_Group_excl`; MPI 4.1 section 7.3.2). Errors: as ep_group_incl.
  recursive subroutine ep_group_excl(group, n, ranks, newgroup, ierror)
    integer, intent(in) :: group, n, ranks(*)
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    call group_from_ranks(c_ep_group_excl, group, n, ranks, newgroup, ierror)
  end subroutine ep_group_excl

  !> ep_group_incl or ep_group_excl through `c_fn`, with the ranks as C ints.
  recursive subroutine group_from_ranks(c_fn, group, n, ranks, newgroup, ierror)
    procedure(c_group_from_ranks) :: c_fn
    integer, intent(in) :: group, n, ranks(*)
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    integer(c_int), allocatable :: c_ranks(:)
    allocate(c_ranks(max(n, 1)))
    if (n > 0) c_ranks(1:n) = c_arg(ranks(1:n))
    c_new = EP_GROUP_NULL
    c_ierror = c_fn(c_arg(group), c_arg(n), c_ranks, c_new)
    newgroup = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine group_from_ranks

  !> ep_group_incl of the ranks of triplets `ranges(1:3, i)` = (first, last, stride), i = 1..n
  !> (C: `EP_Group_range_incl`; MPI 4.1 section 7.3.2). Errors: EP_ERR_GROUP, EP_ERR_RANK,
  !> EP_ERR_ARG (stride 0, a range running away from its last rank).
  recursive subroutine ep_group_range_incl(group, n, ranges, newgroup, ierror)
    integer, intent(in) :: group, n, ranges(3, *)
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    call group_from_ranges(c_ep_group_range_incl, group, n, ranges, newgroup, ierror)
  end subroutine ep_group_range_incl

  !> ep_group_excl of the ranks of range triplets (C: `EP_Group_range_excl`; MPI 4.1 section
  !> 7.3.2). Errors: as ep_group_range_incl.
  recursive subroutine ep_group_range_excl(group, n, ranges, newgroup, ierror)
    integer, intent(in) :: group, n, ranges(3, *)
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    call group_from_ranges(c_ep_group_range_excl, group, n, ranges, newgroup, ierror)
  end subroutine ep_group_range_excl

  !> ep_group_range_incl or ep_group_range_excl through `c_fn`, with the triplets as C ints.
  recursive subroutine group_from_ranges(c_fn, group, n, ranges, newgroup, ierror)
    procedure(c_group_from_ranges) :: c_fn
    integer, intent(in) :: group, n, ranges(3, *)
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    integer(c_int), allocatable :: c_ranges(:, :)
    allocate(c_ranges(3, max(n, 1)))
    if (n > 0) c_ranges(:, 1:n) = c_arg(ranges(:, 1:n))
    c_new = EP_GROUP_NULL
    c_ierror = c_fn(c_arg(group), c_arg(n), c_ranges, c_new)
    newgroup = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine group_from_ranges

  !> group1's endpoints, then group2's not in group1 (C: `EP_Group_union`; MPI 4.1 section
  !> 7.3.2). Errors: EP_ERR_GROUP.
  recursive subroutine ep_group_union(group1, group2, newgroup, ierror)
    integer, intent(in) :: group1, group2
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    call group_from_pair(c_ep_group_union, group1, group2, newgroup, ierror)
  end subroutine ep_group_union

  !> group1's endpoints that are in group2, in group1's order (C: `EP_Group_intersection`;
  !> MPI 4.1 section 7.3.2). Errors: EP_ERR_GROUP.
  recursive subroutine ep_group_intersection(group1, group2, newgroup, ierror)
    integer, intent(in) :: group1, group2
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    call group_from_pair(c_ep_group_intersection, group1, group2, newgroup, ierror)
  end subroutine ep_group_intersection

  !> group1's endpoints that are not in group2, in group1's order (C: `EP_Group_difference`;
  !> MPI 4.1 section 7.3.2). Errors: EP_ERR_GROUP.
  recursive subroutine ep_group_difference(group1, group2, newgroup, ierror)
    integer, intent(in) :: group1, group2
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    call group_from_pair(c_ep_group_difference, group1, group2, newgroup, ierror)
  end subroutine ep_group_difference

  !> A set operation on two groups through `c_fn`.
  recursive subroutine group_from_pair(c_fn, group1, group2, newgroup, ierror)
    procedure(c_group_from_pair) :: c_fn
    integer, intent(in) :: group1, group2
    integer, intent(out) :: newgroup
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    c_new = EP_GROUP_NULL
    c_ierror = c_fn(c_arg(group1), c_arg(group2), c_new)
    newgroup = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine group_from_pair

  !> Ranks in group2 of the endpoints of ranks `ranks1(1:n)` of group1, EP_UNDEFINED for
  !> those not in group2, EP_PROC_NULL for EP_PROC_NULL (C: `EP_Group_translate_ranks`; MPI
  !> 4.1 section 7.3.1). Errors: EP_ERR_GROUP, EP_ERR_RANK, EP_ERR_ARG.
  recursive subroutine ep_group_translate_ranks(group1, n, ranks1, group2, ranks2, ierror)
    integer, intent(in) :: group1, n, ranks1(*), group2
    integer, intent(inout) :: ranks2(*)
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    integer(c_int), allocatable :: c_in(:), c_out(:)
    allocate(c_in(max(n, 1)), c_out(max(n, 1)))
    if (n > 0) c_in(1:n) = c_arg(ranks1(1:n))
    c_ierror = c_ep_group_translate_ranks(c_arg(group1), c_arg(n), c_in, c_arg(group2), c_out)
    if (c_ierror == EP_SUCCESS .and. n > 0) ranks2(1:n) = int(c_out(1:n))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_group_translate_ranks

  !> EP_IDENT (same endpoints, same order), EP_SIMILAR (other order) or EP_UNEQUAL (C:
  !> `EP_Group_compare`; MPI 4.1 section 7.3.1). Errors: EP_ERR_GROUP.
  recursive subroutine ep_group_compare(group1, group2, result, ierror)
    integer, intent(in) :: group1, group2
    integer, intent(out) :: result
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_result
    c_result = EP_UNEQUAL
    c_ierror = c_ep_group_compare(c_arg(group1), c_arg(group2), c_result)
    result = int(c_result)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_group_compare

  !> Frees a group and sets `group` to EP_GROUP_NULL (C: `EP_Group_free`; MPI 4.1 section
  !> 7.3.3). Errors: EP_ERR_GROUP.
  recursive subroutine ep_group_free(group, ierror)
    integer, intent(inout) :: group
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_group
    c_group = c_arg(group)
    c_ierror = c_ep_group_free(c_group)
    group = int(c_group)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_group_free

  !> Communicators from groups, collective over `comm` (C: `EP_Comm_create`; MPI 4.1 section
  !> 7.4.2): the endpoints that pass the same group get one communicator ranked in group
  !> order (disjoint groups on different endpoints allowed); an endpoint outside the group it
  !> passes gets EP_COMM_NULL. Errors: EP_ERR_COMM, EP_ERR_GROUP, on every endpoint alike.
  recursive subroutine ep_comm_create(comm, group, newcomm, ierror)
    integer, intent(in) :: comm, group
    integer, intent(out) :: newcomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    c_new = EP_COMM_NULL
    c_ierror = c_ep_comm_create(c_arg(comm), c_arg(group), c_new)
    newcomm = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_create

  !> A communicator of the endpoints of `group`, collective over them only (C:
  !> `EP_Comm_create_group`; MPI 4.1 section 7.4.2); `tag` >= 0 tells concurrent creations
  !> apart. Errors: EP_ERR_COMM, EP_ERR_GROUP (also a caller outside the group), EP_ERR_TAG.
  recursive subroutine ep_comm_create_group(comm, group, tag, newcomm, ierror)
    integer, intent(in) :: comm, group, tag
    integer, intent(out) :: newcomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    c_new = EP_COMM_NULL
    c_ierror = c_ep_comm_create_group(c_arg(comm), c_arg(group), c_arg(tag), c_new)
    newcomm = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_create_group

  !> ep_comm_dup with a request, complete on return (C: `EP_Comm_idup`, whose documentation
  !> says when that matters; MPI 4.1 section 7.4.2). Errors: as ep_comm_dup.
  recursive subroutine ep_comm_idup(comm, newcomm, request, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: newcomm, request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new, c_request
    c_new = EP_COMM_NULL
    c_request = EP_REQUEST_NULL
    c_ierror = c_ep_comm_idup(c_arg(comm), c_new, c_request)
    newcomm = int(c_new)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_idup

  !> Names this endpoint (C: `EP_Comm_set_name`; MPI 4.1 section 7.8): trailing blanks are
  !> dropped, the rest kept up to EP_MAX_OBJECT_NAME - 1 characters. Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_set_name(comm, comm_name, ierror)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: comm_name
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_comm_set_name(c_arg(comm), c_name_of(comm_name))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_set_name

  !> This endpoint's name, blank-padded, and its length (C: `EP_Comm_get_name`; MPI 4.1
  !> section 7.8); declare `comm_name` of len EP_MAX_OBJECT_NAME. Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_get_name(comm, comm_name, resultlen, ierror)
    integer, intent(in) :: comm
    character(len=*), intent(out) :: comm_name
    integer, intent(out) :: resultlen
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_len
    character(kind=c_char) :: c_name(EP_MAX_OBJECT_NAME)
    c_len = 0
    c_name = c_null_char
    c_ierror = c_ep_comm_get_name(c_arg(comm), c_name, c_len)
    call name_from_c(c_name, c_len, comm_name, resultlen)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_get_name

  !> A keyval for attributes (C: `EP_Comm_create_keyval`; MPI 4.1 section 7.7.2): the
  !> callbacks are Fortran subroutines with the interfaces ep_comm_copy_attr_function and
  !> ep_comm_delete_attr_function, or ep_comm_null_copy_fn / ep_comm_dup_fn and
  !> ep_comm_null_delete_fn; attribute values are integer(MPI_ADDRESS_KIND), stored as given.
  !> Errors: EP_ERR_ARG.
  recursive subroutine ep_comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, &
      ierror)
    procedure(ep_comm_copy_attr_function) :: comm_copy_attr_fn
    procedure(ep_comm_delete_attr_function) :: comm_delete_attr_fn
    integer, intent(out) :: comm_keyval
    integer(MPI_ADDRESS_KIND), intent(in) :: extra_state
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_keyval
    c_keyval = EP_KEYVAL_INVALID
    c_ierror = epmpi_f_comm_create_keyval(c_funloc(comm_copy_attr_fn), c_funloc(comm_delete_attr_fn), c_keyval, &
      int(extra_state, c_intptr_t))
    comm_keyval = int(c_keyval)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_create_keyval

  !> Frees a keyval and sets it to EP_KEYVAL_INVALID (C: `EP_Comm_free_keyval`; MPI 4.1
  !> section 7.7.2). Errors: EP_ERR_KEYVAL.
  recursive subroutine ep_comm_free_keyval(comm_keyval, ierror)
    integer, intent(inout) :: comm_keyval
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_keyval
    c_keyval = c_arg(comm_keyval)
    c_ierror = c_ep_comm_free_keyval(c_keyval)
    comm_keyval = int(c_keyval)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_free_keyval

  !> Sets an attribute of this endpoint (C: `EP_Comm_set_attr`; MPI 4.1 section 7.7.2); a
  !> value already set goes to the delete callback first. Errors: EP_ERR_COMM, EP_ERR_KEYVAL.
  recursive subroutine ep_comm_set_attr(comm, comm_keyval, attribute_val, ierror)
    integer, intent(in) :: comm, comm_keyval
    integer(MPI_ADDRESS_KIND), intent(in) :: attribute_val
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_comm_set_attr(c_arg(comm), c_arg(comm_keyval), int(attribute_val, c_intptr_t))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_set_attr

  !> Deletes an attribute of this endpoint, running its delete callback (C:
  !> `EP_Comm_delete_attr`; MPI 4.1 section 7.7.2). Errors: EP_ERR_COMM, EP_ERR_KEYVAL.
  recursive subroutine ep_comm_delete_attr(comm, comm_keyval, ierror)
    integer, intent(in) :: comm, comm_keyval
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_comm_delete_attr(c_arg(comm), c_arg(comm_keyval))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_delete_attr

  !> The copy callback that never copies (MPI's MPI_COMM_NULL_COPY_FN; C: `EP_COMM_NULL_COPY_FN`).
  recursive subroutine ep_comm_null_copy_fn(oldcomm, comm_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    integer :: oldcomm, comm_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    if (.false.) attribute_val_out = extra_state + attribute_val_in + oldcomm + comm_keyval
    flag = .false.
    ierror = EP_SUCCESS
  end subroutine ep_comm_null_copy_fn

  !> The copy callback that copies the value (MPI's MPI_COMM_DUP_FN; C: `EP_COMM_DUP_FN`).
  recursive subroutine ep_comm_dup_fn(oldcomm, comm_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    integer :: oldcomm, comm_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    if (.false.) attribute_val_out = extra_state + oldcomm + comm_keyval
    attribute_val_out = attribute_val_in
    flag = .true.
    ierror = EP_SUCCESS
  end subroutine ep_comm_dup_fn

  !> The delete callback that does nothing (MPI's MPI_COMM_NULL_DELETE_FN; C:
  !> `EP_COMM_NULL_DELETE_FN`).
  recursive subroutine ep_comm_null_delete_fn(comm, comm_keyval, attribute_val, extra_state, ierror)
    integer :: comm, comm_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: attribute_val, extra_state
    if (.false.) ierror = int(attribute_val + extra_state) + comm + comm_keyval
    ierror = EP_SUCCESS
  end subroutine ep_comm_null_delete_fn

  !> `ep_comm_create_keyval` under its MPI-1 name (MPI_KEYVAL_CREATE, deprecated since MPI
  !> 2.0; MPI 4.1 section 7.7.2; C: `EP_Keyval_create`): a keyval whose callbacks and extra
  !> state are default integers. The MPI 2.0 routines take it too. Errors: EP_ERR_INTERN (out
  !> of memory).
  recursive subroutine ep_keyval_create(copy_fn, delete_fn, keyval, extra_state, ierror)
    procedure(ep_copy_function) :: copy_fn
    procedure(ep_delete_function) :: delete_fn
    integer, intent(out) :: keyval
    integer, intent(in) :: extra_state
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_keyval
    c_keyval = EP_KEYVAL_INVALID
    c_ierror = epmpi_f_keyval_create(c_funloc(copy_fn), c_funloc(delete_fn), c_keyval, int(extra_state, c_intptr_t))
    keyval = int(c_keyval)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_keyval_create

  !> `ep_comm_free_keyval` under its MPI-1 name (MPI_KEYVAL_FREE; MPI 4.1 section 7.7.2; C:
  !> `EP_Keyval_free`): frees a keyval and sets it to EP_KEYVAL_INVALID. Errors:
  !> EP_ERR_KEYVAL.
  recursive subroutine ep_keyval_free(keyval, ierror)
    integer, intent(inout) :: keyval
    integer, intent(out), optional :: ierror
    call ep_comm_free_keyval(keyval, ierror)
  end subroutine ep_keyval_free

  !> `ep_comm_set_attr` under its MPI-1 name (MPI_ATTR_PUT; MPI 4.1 section 7.7.2; C:
  !> `EP_Attr_put`), the value a default integer. Errors: EP_ERR_COMM, EP_ERR_KEYVAL.
  recursive subroutine ep_attr_put(comm, keyval, attribute_val, ierror)
    integer, intent(in) :: comm, keyval, attribute_val
    integer, intent(out), optional :: ierror
    call ep_comm_set_attr(comm, keyval, int(attribute_val, MPI_ADDRESS_KIND), ierror)
  end subroutine ep_attr_put

  !> `ep_comm_get_attr` under its MPI-1 name (MPI_ATTR_GET; MPI 4.1 section 7.7.2; C:
  !> `EP_Attr_get`), the value a default integer: EP_TAG_UB's is 2147483647. Errors:
  !> EP_ERR_COMM, EP_ERR_KEYVAL.
  recursive subroutine ep_attr_get(comm, keyval, attribute_val, flag, ierror)
    integer, intent(in) :: comm, keyval
    integer, intent(out) :: attribute_val
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierror
    integer(MPI_ADDRESS_KIND) :: value
    call ep_comm_get_attr(comm, keyval, value, flag, ierror)
    attribute_val = 0
    if (flag) attribute_val = int(value)
  end subroutine ep_attr_get

  !> `ep_comm_delete_attr` under its MPI-1 name (MPI_ATTR_DELETE; MPI 4.1 section 7.7.2; C:
  !> `EP_Attr_delete`). Errors: EP_ERR_COMM, EP_ERR_KEYVAL.
  recursive subroutine ep_attr_delete(comm, keyval, ierror)
    integer, intent(in) :: comm, keyval
    integer, intent(out), optional :: ierror
    call ep_comm_delete_attr(comm, keyval, ierror)
  end subroutine ep_attr_delete

  !> The copy callback of `ep_keyval_create` that never copies (MPI's MPI_NULL_COPY_FN; C:
  !> `EP_NULL_COPY_FN`).
  recursive subroutine ep_null_copy_fn(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierror
    logical :: flag
    if (.false.) attribute_val_out = extra_state + attribute_val_in + oldcomm + keyval
    flag = .false.
    ierror = EP_SUCCESS
  end subroutine ep_null_copy_fn

  !> The copy callback of `ep_keyval_create` that copies the value (MPI's MPI_DUP_FN; C:
  !> `EP_DUP_FN`).
  recursive subroutine ep_dup_fn(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierror
    logical :: flag
    if (.false.) attribute_val_out = extra_state + oldcomm + keyval
    attribute_val_out = attribute_val_in
    flag = .true.
    ierror = EP_SUCCESS
  end subroutine ep_dup_fn

  !> The delete callback of `ep_keyval_create` that does nothing (MPI's MPI_NULL_DELETE_FN;
  !> C: `EP_NULL_DELETE_FN`).
  recursive subroutine ep_null_delete_fn(comm, keyval, attribute_val, extra_state, ierror)
    integer :: comm, keyval, attribute_val, extra_state, ierror
    if (.false.) ierror = attribute_val + extra_state + comm + keyval
    ierror = EP_SUCCESS
  end subroutine ep_null_delete_fn

  !> Runs an MPI-1 Fortran copy callback for the C glue (private): the values as default
  !> integers.
  recursive function epmpi_f_run_copy_int(fn, oldcomm, keyval, extra_state, value_in, value_out, flag) &
      bind(C, name="epmpi_f_run_copy_int") result(ierror)
    type(c_funptr), value :: fn
    integer(c_int), value :: oldcomm, keyval
    integer(c_intptr_t), value :: extra_state, value_in
    integer(c_intptr_t), intent(inout) :: value_out
    integer(c_int), intent(inout) :: flag
    integer(c_int) :: ierror
    procedure(ep_copy_function), pointer :: f
    integer :: f_comm, f_keyval, f_ierror, f_extra, f_in, f_out
    logical :: f_flag
    call c_f_procpointer(fn, f)
    f_comm = int(oldcomm)
    f_keyval = int(keyval)
    f_extra = int(extra_state)
    f_in = int(value_in)
    f_out = 0
    f_flag = .false.
    f_ierror = EP_SUCCESS
    call f(f_comm, f_keyval, f_extra, f_in, f_out, f_flag, f_ierror)
    value_out = int(f_out, c_intptr_t)
    flag = merge(1_c_int, 0_c_int, f_flag)
    ierror = c_arg(f_ierror)
  end function epmpi_f_run_copy_int

  !> Runs an MPI-1 Fortran delete callback for the C glue (private).
  recursive function epmpi_f_run_delete_int(fn, comm, keyval, value, extra_state) &
      bind(C, name="epmpi_f_run_delete_int") result(ierror)
    type(c_funptr), value :: fn
    integer(c_int), value :: comm, keyval
    integer(c_intptr_t), value :: value, extra_state
    integer(c_int) :: ierror
    procedure(ep_delete_function), pointer :: f
    integer :: f_comm, f_keyval, f_ierror, f_value, f_extra
    call c_f_procpointer(fn, f)
    f_comm = int(comm)
    f_keyval = int(keyval)
    f_value = int(value)
    f_extra = int(extra_state)
    f_ierror = EP_SUCCESS
    call f(f_comm, f_keyval, f_value, f_extra, f_ierror)
    ierror = c_arg(f_ierror)
  end function epmpi_f_run_delete_int

  !> Runs a Fortran copy callback for the C glue (private).
  recursive function epmpi_f_run_copy(fn, oldcomm, keyval, extra_state, value_in, value_out, flag) &
      bind(C, name="epmpi_f_run_copy") result(ierror)
    type(c_funptr), value :: fn
    integer(c_int), value :: oldcomm, keyval
    integer(c_intptr_t), value :: extra_state, value_in
    integer(c_intptr_t), intent(inout) :: value_out
    integer(c_int), intent(inout) :: flag
    integer(c_int) :: ierror
    procedure(ep_comm_copy_attr_function), pointer :: f
    integer :: f_comm, f_keyval, f_ierror
    integer(MPI_ADDRESS_KIND) :: f_extra, f_in, f_out
    logical :: f_flag
    call c_f_procpointer(fn, f)
    f_comm = int(oldcomm)
    f_keyval = int(keyval)
    f_extra = int(extra_state, MPI_ADDRESS_KIND)
    f_in = int(value_in, MPI_ADDRESS_KIND)
    f_out = 0
    f_flag = .false.
    f_ierror = EP_SUCCESS
    call f(f_comm, f_keyval, f_extra, f_in, f_out, f_flag, f_ierror)
    value_out = int(f_out, c_intptr_t)
    flag = merge(1_c_int, 0_c_int, f_flag)
    ierror = c_arg(f_ierror)
  end function epmpi_f_run_copy

  !> Runs a Fortran delete callback for the C glue (private).
  recursive function epmpi_f_run_delete(fn, comm, keyval, value, extra_state) bind(C, name="epmpi_f_run_delete") &
      result(ierror)
    type(c_funptr), value :: fn
    integer(c_int), value :: comm, keyval
    integer(c_intptr_t), value :: value, extra_state
    integer(c_int) :: ierror
    procedure(ep_comm_delete_attr_function), pointer :: f
    integer :: f_comm, f_keyval, f_ierror
    integer(MPI_ADDRESS_KIND) :: f_value, f_extra
    call c_f_procpointer(fn, f)
    f_comm = int(comm)
    f_keyval = int(keyval)
    f_value = int(value, MPI_ADDRESS_KIND)
    f_extra = int(extra_state, MPI_ADDRESS_KIND)
    f_ierror = EP_SUCCESS
    call f(f_comm, f_keyval, f_value, f_extra, f_ierror)
    ierror = c_arg(f_ierror)
  end function epmpi_f_run_delete

  !> Runs a Fortran error handler for the C glue (private).
  recursive subroutine epmpi_f_run_errhandler(fn, comm, code) bind(C, name="epmpi_f_run_errhandler")
    type(c_funptr), value :: fn
    integer(c_int), value :: comm, code
    procedure(ep_comm_errhandler_function), pointer :: f
    integer :: f_comm, f_code
    call c_f_procpointer(fn, f)
    f_comm = int(comm)
    f_code = int(code)
    call f(f_comm, f_code)
  end subroutine epmpi_f_run_errhandler

  !> An error handler calling `comm_errhandler_fn(comm, error_code)` (interface
  !> ep_comm_errhandler_function) for errors on the endpoints that use it (C:
  !> `EP_Comm_create_errhandler`; MPI 4.1 section 9.3.1). Errors: EP_ERR_ARG.
  recursive subroutine ep_comm_create_errhandler(comm_errhandler_fn, errhandler, ierror)
    procedure(ep_comm_errhandler_function) :: comm_errhandler_fn
    integer, intent(out) :: errhandler
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_handler
    c_handler = EP_ERRHANDLER_NULL
    c_ierror = epmpi_f_comm_create_errhandler(c_funloc(comm_errhandler_fn), c_handler)
    errhandler = int(c_handler)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_create_errhandler

  !> Calls the error handler of an endpoint with `errorcode` (C: `EP_Comm_call_errhandler`;
  !> MPI 4.1 section 9.3.5). Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_call_errhandler(comm, errorcode, ierror)
    integer, intent(in) :: comm, errorcode
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_comm_call_errhandler(c_arg(comm), c_arg(errorcode))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_call_errhandler

  !> Frees an error handler handle and sets it to EP_ERRHANDLER_NULL (C:
  !> `EP_Errhandler_free`; MPI 4.1 section 9.3.4). Errors: EP_ERR_ARG.
  recursive subroutine ep_errhandler_free(errhandler, ierror)
    integer, intent(inout) :: errhandler
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_handler
    c_handler = c_arg(errhandler)
    c_ierror = c_ep_errhandler_free(c_handler)
    errhandler = int(c_handler)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_errhandler_free

  !> ep_comm_dup with hints (C: `EP_Comm_dup_with_info`; MPI 4.1 section 7.4.2); `info`, a
  !> `use mpi` info handle, is accepted and ignored (EPMPI acts on no communicator hint).
  recursive subroutine ep_comm_dup_with_info(comm, info, newcomm, ierror)
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: info
    integer, intent(out) :: newcomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    c_new = EP_COMM_NULL
    c_ierror = epmpi_f_comm_dup_with_info(c_arg(comm), int(info, c_int), c_new)
    newcomm = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_dup_with_info

  !> ep_comm_idup with hints (C: `EP_Comm_idup_with_info`; MPI 4.1 section 7.4.2); `info`
  !> is accepted and ignored.
  recursive subroutine ep_comm_idup_with_info(comm, info, newcomm, request, ierror)
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: info
    integer, intent(out) :: newcomm, request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new, c_request
    c_new = EP_COMM_NULL
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_comm_idup_with_info(c_arg(comm), int(info, c_int), c_new, c_request)
    newcomm = int(c_new)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_idup_with_info

  !> Sets hints on this endpoint (C: `EP_Comm_set_info`; MPI 4.1 section 7.4.4): accepted and
  !> ignored. Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_set_info(comm, info, ierror)
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: info
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_comm_set_info(c_arg(comm), int(info, c_int))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_set_info

  !> The hints in use (C: `EP_Comm_get_info`; MPI 4.1 section 7.4.4): a new, empty `use mpi`
  !> info object to free with MPI_Info_free. Errors: EP_ERR_COMM.
  recursive subroutine ep_comm_get_info(comm, info_used, ierror)
    integer, intent(in) :: comm
    integer(mpi_kind), intent(out) :: info_used
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_info
    c_info = int(MPI_INFO_NULL, c_int)
    c_ierror = epmpi_f_comm_get_info(c_arg(comm), c_info)
    info_used = int(c_info, mpi_kind)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_comm_get_info

  ! ==========================================================================================
  ! Intercommunicators (MPI 4.1 section 7.6)
  ! ==========================================================================================

  !> Creates an intercommunicator (C: `EP_Intercomm_create`; MPI 4.1 section 7.6.2) between
  !> the group of `local_comm` (an endpoint intracommunicator; every endpoint calls) and the
  !> group whose leader is rank `remote_leader` of `peer_comm`. `local_leader` is a rank of
  !> `local_comm`; `peer_comm`, `remote_leader` and `tag` matter only on the local leader
  !> (others may pass EP_COMM_NULL). The groups may be on disjoint processes or share
  !> processes. Ranks of `newintercomm` (out) name the remote group in point-to-point calls;
  !> `ep_comm_rank`/`ep_comm_size` give the local group, `ep_comm_remote_size` the other.
  !> Errors: EP_ERR_COMM (invalid handles, an intercommunicator as local_comm, null
  !> peer_comm on the leader), EP_ERR_RANK (leader ranks).
  recursive subroutine ep_intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, &
      newintercomm, ierror)
    integer, intent(in) :: local_comm, local_leader, peer_comm, remote_leader, tag
    integer, intent(out) :: newintercomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_newintercomm
    c_newintercomm = EP_COMM_NULL
    c_ierror = epmpi_f_intercomm_create(c_arg(local_comm), c_arg(local_leader), c_arg(peer_comm), &
      c_arg(remote_leader), c_arg(tag), c_newintercomm)
    newintercomm = int(c_newintercomm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_intercomm_create

  !> Merges the two groups of an intercommunicator into an intracommunicator (C:
  !> `EP_Intercomm_merge`; MPI 4.1 section 7.6.2): the group whose endpoints pass
  !> `high = .false.` comes first, each group in its own rank order. Every endpoint of both
  !> groups calls it. newintracomm (out). Errors: EP_ERR_COMM (not an intercommunicator).
  recursive subroutine ep_intercomm_merge(intercomm, high, newintracomm, ierror)
    integer, intent(in) :: intercomm
    logical, intent(in) :: high
    integer, intent(out) :: newintracomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_newintracomm, c_high
    c_newintracomm = EP_COMM_NULL
    c_high = 0
    if (high) c_high = 1
    c_ierror = epmpi_f_intercomm_merge(c_arg(intercomm), c_high, c_newintracomm)
    newintracomm = int(c_newintracomm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_intercomm_merge

  ! ==========================================================================================
  ! Point-to-point (MPI 4.1 chapter 3)
  ! ==========================================================================================

  !> Blocking standard-mode send (C: `EP_Send`; MPI 4.1 section 3.2.1) of `count` elements of
  !> `datatype` from `buf` to rank `dest` (or EP_PROC_NULL) of `comm`, with `tag`
  !> (0..EP_TAG_UB_VALUE). buf: any type, kind, rank (see the module notes).
  !> Errors: EP_ERR_COMM, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER, EP_ERR_RANK, EP_ERR_TAG.
  recursive subroutine ep_send(buf, count, datatype, dest, tag, comm, ierror)
    type(*), dimension(..), intent(in) :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_send(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_send

  !> Synchronous-mode blocking send: returns once the matching receive has started (C:
  !> `EP_Ssend`; MPI 4.1 section 3.4). Arguments and errors as `ep_send`.
  recursive subroutine ep_ssend(buf, count, datatype, dest, tag, comm, ierror)
    type(*), dimension(..), intent(in) :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_ssend(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_ssend

  !> Nonblocking standard-mode send (C: `EP_Isend`; MPI 4.1 section 3.7.2): `request` (out)
  !> is completed by `ep_wait`, `ep_test`...; `buf` (contiguous, asynchronous) must not change
  !> until then. Errors: those of `ep_send`; EP_ERR_BUFFER for a non-contiguous section.
  recursive subroutine ep_isend(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_isend(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_isend

  !> Nonblocking synchronous-mode send (C: `EP_Issend`; MPI 4.1 section 3.7.2): completes
  !> once the matching receive has started. Arguments and errors as `ep_isend`.
  recursive subroutine ep_issend(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_issend(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_issend

  !> Blocking receive (C: `EP_Recv`; MPI 4.1 section 3.2.4) of at most `count` elements of
  !> `datatype` into `buf` from rank `source` (or EP_ANY_SOURCE, EP_PROC_NULL) with `tag`
  !> (or EP_ANY_TAG). status: integer(EP_STATUS_SIZE) (out), or EP_STATUS_IGNORE.
  !> Errors: EP_ERR_TRUNCATE (message longer than the buffer: its first part is received,
  !> status filled), EP_ERR_COMM, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER, EP_ERR_RANK,
  !> EP_ERR_TAG.
  recursive subroutine ep_recv(buf, count, datatype, source, tag, comm, status, ierror)
    type(*), dimension(..), intent(inout) :: buf
    integer, intent(in) :: count, source, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = epmpi_f_recv(buf, c_arg(count), int(datatype, c_int), c_arg(source), c_arg(tag), &
      c_arg(comm), status_ptr, MPI_BOTTOM)
    if (c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_recv

  !> Nonblocking receive (C: `EP_Irecv`; MPI 4.1 section 3.7.2): arguments as `ep_recv`,
  !> `request` (out) instead of the status; `buf` must be contiguous (asynchronous).
  !> Errors: those of `ep_recv` but EP_ERR_TRUNCATE (reported at completion);
  !> EP_ERR_BUFFER for a non-contiguous section.
  recursive subroutine ep_irecv(buf, count, datatype, source, tag, comm, request, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: buf
    integer, intent(in) :: count, source, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_irecv(buf, c_arg(count), int(datatype, c_int), c_arg(source), c_arg(tag), &
      c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_irecv

  !> Sends one message and receives one without deadlock against a matching `ep_sendrecv`
  !> (C: `EP_Sendrecv`; MPI 4.1 section 3.10). The buffers must not overlap.
  !> Errors: those of `ep_send` and `ep_recv`.
  recursive subroutine ep_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, &
      recvtype, source, recvtag, comm, status, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, dest, sendtag, recvcount, source, recvtag, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = epmpi_f_sendrecv(sendbuf, c_arg(sendcount), int(sendtype, c_int), c_arg(dest), &
      c_arg(sendtag), recvbuf, c_arg(recvcount), int(recvtype, c_int), c_arg(source), c_arg(recvtag), &
      c_arg(comm), status_ptr, MPI_BOTTOM)
    if (c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_sendrecv

  !> Nonblocking probe (C: `EP_Iprobe`; MPI 4.1 section 3.8.1): `flag` (out) is .true. and
  !> `status` filled when a message matching (`source`, `tag`) can be received; it stays
  !> queued. Errors: EP_ERR_COMM, EP_ERR_RANK, EP_ERR_TAG.
  recursive subroutine ep_iprobe(source, tag, comm, flag, status, ierror)
    integer, intent(in) :: source, tag, comm
    logical, intent(out) :: flag
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, c_flag
    c_flag = 0
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_iprobe(c_arg(source), c_arg(tag), c_arg(comm), c_flag, status_ptr)
    flag = c_flag /= 0
    if (flag .and. c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_iprobe

  !> Blocking probe (C: `EP_Probe`; MPI 4.1 section 3.8.1): waits for a message matching
  !> (`source`, `tag`) and fills `status` without receiving it. Errors as `ep_iprobe`.
  recursive subroutine ep_probe(source, tag, comm, status, ierror)
    integer, intent(in) :: source, tag, comm
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_probe(c_arg(source), c_arg(tag), c_arg(comm), status_ptr)
    if (c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_probe

  !> Nonblocking matched probe (C: `EP_Improbe`; MPI 4.1 section 3.8.2): when a message
  !> matches, it leaves matching, `flag` is .true., `message` (out) is its handle
  !> (EP_MESSAGE_NO_PROC for EP_PROC_NULL) and `status` is filled; receive it with
  !> `ep_mrecv`/`ep_imrecv`. Errors as `ep_iprobe`.
  recursive subroutine ep_improbe(source, tag, comm, flag, message, status, ierror)
    integer, intent(in) :: source, tag, comm
    logical, intent(out) :: flag
    integer, intent(out) :: message
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, c_flag, c_message
    c_flag = 0
    c_message = EP_MESSAGE_NULL
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_improbe(c_arg(source), c_arg(tag), c_arg(comm), c_flag, c_message, status_ptr)
    flag = c_flag /= 0
    message = int(c_message)
    if (flag .and. c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_improbe

  !> Blocking matched probe (C: `EP_Mprobe`; MPI 4.1 section 3.8.2): waits for a matching
  !> message, then as `ep_improbe`. Errors as `ep_iprobe`.
  recursive subroutine ep_mprobe(source, tag, comm, message, status, ierror)
    integer, intent(in) :: source, tag, comm
    integer, intent(out) :: message
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, c_message
    c_message = EP_MESSAGE_NULL
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_mprobe(c_arg(source), c_arg(tag), c_arg(comm), c_message, status_ptr)
    message = int(c_message)
    if (c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_mprobe

  !> Receives a message taken by `ep_mprobe`/`ep_improbe` (C: `EP_Mrecv`; MPI 4.1 section
  !> 3.8.3) into `buf` (at most `count` elements of `datatype`); `message` becomes
  !> EP_MESSAGE_NULL. Errors: EP_ERR_REQUEST (invalid or already received message),
  !> EP_ERR_TRUNCATE, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER.
  recursive subroutine ep_mrecv(buf, count, datatype, message, status, ierror)
    type(*), dimension(..), intent(inout) :: buf
    integer, intent(in) :: count
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(inout) :: message
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, c_message
    c_message = c_arg(message)
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = epmpi_f_mrecv(buf, c_arg(count), int(datatype, c_int), c_message, status_ptr, MPI_BOTTOM)
    message = int(c_message)
    if (c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_mrecv

  !> Nonblocking receive of a matched message (C: `EP_Imrecv`; MPI 4.1 section 3.8.3):
  !> `request` (out) completes the receive, `message` becomes EP_MESSAGE_NULL; `buf` must be
  !> contiguous (asynchronous). Errors as `ep_mrecv` (truncation at completion);
  !> EP_ERR_BUFFER for a non-contiguous section.
  recursive subroutine ep_imrecv(buf, count, datatype, message, request, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: buf
    integer, intent(in) :: count
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(inout) :: message
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_message, c_request
    c_message = c_arg(message)
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_imrecv(buf, c_arg(count), int(datatype, c_int), c_message, c_request, MPI_BOTTOM)
    message = int(c_message)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_imrecv

  !> Number of whole `datatype` elements received, from a status filled by a receive, probe
  !> or completion call (C: `EP_Get_count`; MPI 4.1 section 3.2.5); EP_UNDEFINED when the
  !> bytes are not a whole number of elements. Errors: EP_ERR_TYPE.
  recursive subroutine ep_get_count(status, datatype, count, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(in) :: status
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: count
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_count
    c_count = EP_UNDEFINED
    c_ierror = epmpi_f_get_count(c_arg(status), int(datatype, c_int), c_count)
    count = int(c_count)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_get_count

  ! ==========================================================================================
  ! Completion (MPI 4.1 sections 3.7 and 3.8)
  ! ==========================================================================================

  !> Waits for one request (C: `EP_Wait`; MPI 4.1 section 3.7.3); `request` becomes
  !> EP_REQUEST_NULL; a null request returns at once with an empty status.
  !> status: integer(EP_STATUS_SIZE) (out) or EP_STATUS_IGNORE.
  !> Errors: EP_ERR_REQUEST (invalid or freed), EP_ERR_TRUNCATE (receive truncated).
  recursive subroutine ep_wait(request, status, ierror)
    integer, intent(inout) :: request
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, c_request
    c_request = c_arg(request)
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_wait(c_request, status_ptr)
    request = int(c_request)
    if (c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_wait

  !> Tests one request (C: `EP_Test`; MPI 4.1 section 3.7.3): `flag` .true., `request` freed
  !> and `status` filled when it is complete. Errors as `ep_wait`.
  recursive subroutine ep_test(request, flag, status, ierror)
    integer, intent(inout) :: request
    logical, intent(out) :: flag
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, c_request, c_flag
    c_request = c_arg(request)
    c_flag = 0
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_test(c_request, c_flag, status_ptr)
    request = int(c_request)
    flag = c_flag /= 0
    if (flag .and. c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_test

  !> Waits for all `count` requests (C: `EP_Waitall`; MPI 4.1 section 3.7.5).
  !> array_of_requests integer(count) (inout), each becomes EP_REQUEST_NULL;
  !> array_of_statuses integer(EP_STATUS_SIZE, count) (out), or EP_STATUSES_IGNORE.
  !> Errors: EP_ERR_IN_STATUS (see each status(EP_ERROR)), EP_ERR_REQUEST, EP_ERR_COUNT.
  recursive subroutine ep_waitall(count, array_of_requests, array_of_statuses, ierror)
    integer, intent(in) :: count
    integer, dimension(*), intent(inout) :: array_of_requests
    integer, dimension(EP_STATUS_SIZE, *), intent(out) :: array_of_statuses
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_requests(:)
    integer(c_int), allocatable, target :: c_statuses(:, :)
    type(c_ptr) :: statuses_ptr
    integer(c_int) :: c_ierror, n
    integer :: alloc_stat
    n = c_arg(count)
    allocate(c_requests(max(n, 1_c_int)), c_statuses(EP_STATUS_SIZE, max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_waitall')
    else
      statuses_ptr = c_null_ptr
      if (.not. ignores_statuses(array_of_statuses)) statuses_ptr = c_loc(c_statuses)
      if (n > 0) c_requests(1:n) = c_arg(array_of_requests(1:n))
      c_ierror = c_ep_waitall(n, c_requests, statuses_ptr)
      if (n > 0) then
        array_of_requests(1:n) = int(c_requests(1:n))
        if (c_associated(statuses_ptr)) array_of_statuses(:, 1:n) = int(c_statuses(:, 1:n))
      end if
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_waitall

  !> Tests all requests (C: `EP_Testall`; MPI 4.1 section 3.7.5): `flag` .true. with every
  !> request freed and the statuses filled when all are complete, otherwise nothing changes.
  !> Arguments and errors as `ep_waitall`.
  recursive subroutine ep_testall(count, array_of_requests, flag, array_of_statuses, ierror)
    integer, intent(in) :: count
    integer, dimension(*), intent(inout) :: array_of_requests
    logical, intent(out) :: flag
    integer, dimension(EP_STATUS_SIZE, *), intent(out) :: array_of_statuses
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_requests(:)
    integer(c_int), allocatable, target :: c_statuses(:, :)
    type(c_ptr) :: statuses_ptr
    integer(c_int) :: c_ierror, n, c_flag
    integer :: alloc_stat
    n = c_arg(count)
    c_flag = 0
    allocate(c_requests(max(n, 1_c_int)), c_statuses(EP_STATUS_SIZE, max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_testall')
    else
      statuses_ptr = c_null_ptr
      if (.not. ignores_statuses(array_of_statuses)) statuses_ptr = c_loc(c_statuses)
      if (n > 0) c_requests(1:n) = c_arg(array_of_requests(1:n))
      c_ierror = c_ep_testall(n, c_requests, c_flag, statuses_ptr)
      if (n > 0) then
        array_of_requests(1:n) = int(c_requests(1:n))
        if (c_flag /= 0 .and. c_associated(statuses_ptr)) array_of_statuses(:, 1:n) = int(c_statuses(:, 1:n))
      end if
    end if
    flag = c_flag /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_testall

  !> Waits for any one request (C: `EP_Waitany`; MPI 4.1 section 3.7.5): `index` (out) is its
  !> 1-based position, its request is freed and `status` filled; with no active request
  !> `index` is EP_UNDEFINED. Errors: EP_ERR_TRUNCATE, EP_ERR_REQUEST, EP_ERR_COUNT.
  recursive subroutine ep_waitany(count, array_of_requests, index, status, ierror)
    integer, intent(in) :: count
    integer, dimension(*), intent(inout) :: array_of_requests
    integer, intent(out) :: index
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_requests(:)
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, n, c_index
    integer :: alloc_stat
    n = c_arg(count)
    c_index = EP_UNDEFINED
    allocate(c_requests(max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_waitany')
    else
      status_ptr = c_null_ptr
      if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
      if (n > 0) c_requests(1:n) = c_arg(array_of_requests(1:n))
      c_ierror = c_ep_waitany(n, c_requests, c_index, status_ptr)
      if (n > 0) array_of_requests(1:n) = int(c_requests(1:n))
      if (c_associated(status_ptr)) status = int(c_status)
    end if
    index = one_based(c_index)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_waitany

  !> Tests for any one complete request (C: `EP_Testany`; MPI 4.1 section 3.7.5): `flag`
  !> .true. with `index` (1-based) set when one completed, or with `index` EP_UNDEFINED when
  !> none is active. Errors as `ep_waitany`.
  recursive subroutine ep_testany(count, array_of_requests, index, flag, status, ierror)
    integer, intent(in) :: count
    integer, dimension(*), intent(inout) :: array_of_requests
    integer, intent(out) :: index
    logical, intent(out) :: flag
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_requests(:)
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, n, c_index, c_flag
    integer :: alloc_stat
    n = c_arg(count)
    c_index = EP_UNDEFINED
    c_flag = 0
    allocate(c_requests(max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_testany')
    else
      status_ptr = c_null_ptr
      if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
      if (n > 0) c_requests(1:n) = c_arg(array_of_requests(1:n))
      c_ierror = c_ep_testany(n, c_requests, c_index, c_flag, status_ptr)
      if (n > 0) array_of_requests(1:n) = int(c_requests(1:n))
      if (c_flag /= 0 .and. c_associated(status_ptr)) status = int(c_status)
    end if
    index = one_based(c_index)
    flag = c_flag /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_testany

  !> Waits until at least one request completes and completes all that have (C:
  !> `EP_Waitsome`; MPI 4.1 section 3.7.5): `outcount` (out) of them, their 1-based
  !> positions in `array_of_indices(1:outcount)`, statuses likewise; `outcount` is
  !> EP_UNDEFINED when none is active. array_of_indices integer(incount);
  !> array_of_statuses integer(EP_STATUS_SIZE, incount) or EP_STATUSES_IGNORE.
  !> Errors: EP_ERR_IN_STATUS, EP_ERR_REQUEST, EP_ERR_COUNT.
  recursive subroutine ep_waitsome(incount, array_of_requests, outcount, array_of_indices, &
      array_of_statuses, ierror)
    integer, intent(in) :: incount
    integer, dimension(*), intent(inout) :: array_of_requests
    integer, intent(out) :: outcount
    integer, dimension(*), intent(out) :: array_of_indices
    integer, dimension(EP_STATUS_SIZE, *), intent(out) :: array_of_statuses
    integer, intent(out), optional :: ierror
    call some(.true., incount, array_of_requests, outcount, array_of_indices, array_of_statuses, ierror)
  end subroutine ep_waitsome

  !> Completes every request that is complete, without waiting (C: `EP_Testsome`; MPI 4.1
  !> section 3.7.5); `outcount` may be 0. Arguments and errors as `ep_waitsome`.
  recursive subroutine ep_testsome(incount, array_of_requests, outcount, array_of_indices, &
      array_of_statuses, ierror)
    integer, intent(in) :: incount
    integer, dimension(*), intent(inout) :: array_of_requests
    integer, intent(out) :: outcount
    integer, dimension(*), intent(out) :: array_of_indices
    integer, dimension(EP_STATUS_SIZE, *), intent(out) :: array_of_statuses
    integer, intent(out), optional :: ierror
    call some(.false., incount, array_of_requests, outcount, array_of_indices, array_of_statuses, ierror)
  end subroutine ep_testsome

  !> The body of `ep_waitsome` (`wait`) and `ep_testsome`.
  recursive subroutine some(wait, incount, array_of_requests, outcount, array_of_indices, &
      array_of_statuses, ierror)
    logical, intent(in) :: wait
    integer, intent(in) :: incount
    integer, dimension(*), intent(inout) :: array_of_requests
    integer, intent(out) :: outcount
    integer, dimension(*), intent(out) :: array_of_indices
    integer, dimension(EP_STATUS_SIZE, *), intent(out) :: array_of_statuses
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_requests(:), c_indices(:)
    integer(c_int), allocatable, target :: c_statuses(:, :)
    type(c_ptr) :: statuses_ptr
    integer(c_int) :: c_ierror, n, c_outcount
    integer :: alloc_stat
    n = c_arg(incount)
    c_outcount = EP_UNDEFINED
    allocate(c_requests(max(n, 1_c_int)), c_indices(max(n, 1_c_int)), &
      c_statuses(EP_STATUS_SIZE, max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), merge('ep_waitsome', 'ep_testsome', wait))
    else
      statuses_ptr = c_null_ptr
      if (.not. ignores_statuses(array_of_statuses)) statuses_ptr = c_loc(c_statuses)
      if (n > 0) c_requests(1:n) = c_arg(array_of_requests(1:n))
      if (wait) then
        c_ierror = c_ep_waitsome(n, c_requests, c_outcount, c_indices, statuses_ptr)
      else
        c_ierror = c_ep_testsome(n, c_requests, c_outcount, c_indices, statuses_ptr)
      end if
      if (n > 0) array_of_requests(1:n) = int(c_requests(1:n))
      if (c_outcount > 0 .and. c_outcount <= n) then
        array_of_indices(1:c_outcount) = int(c_indices(1:c_outcount)) + 1
        if (c_associated(statuses_ptr)) array_of_statuses(:, 1:c_outcount) = int(c_statuses(:, 1:c_outcount))
      end if
    end if
    outcount = int(c_outcount)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine some

  !> A 0-based C index as MPI's Fortran gives it: 1-based, EP_UNDEFINED unchanged.
  elemental function one_based(c_index) result(index)
    integer(c_int), intent(in) :: c_index
    integer :: index
    if (c_index >= 0) then
      index = int(c_index) + 1
    else
      index = int(c_index)
    end if
  end function one_based

  !> Frees a request handle and sets it to EP_REQUEST_NULL (C: `EP_Request_free`; MPI 4.1
  !> section 3.7.3); an active operation still completes. Errors: EP_ERR_REQUEST.
  recursive subroutine ep_request_free(request, ierror)
    integer, intent(inout) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = c_arg(request)
    c_ierror = c_ep_request_free(c_request)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_request_free

  !> Marks a request for cancellation (C: `EP_Cancel`; MPI 4.1 section 3.8.4); complete it
  !> with a completion call, then ask `ep_test_cancelled`. Errors: EP_ERR_REQUEST.
  recursive subroutine ep_cancel(request, ierror)
    integer, intent(in) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = c_arg(request)
    c_ierror = c_ep_cancel(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cancel

  !> `flag` (out) is .true. when `status` is that of a cancelled operation (C:
  !> `EP_Test_cancelled`; MPI 4.1 section 3.8.4).
  recursive subroutine ep_test_cancelled(status, flag, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(in) :: status
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_flag
    c_flag = 0
    c_ierror = c_ep_test_cancelled(c_arg(status), c_flag)
    flag = c_flag /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_test_cancelled

  ! ---- Sendrecv_replace, persistent requests, buffered and ready modes, status queries

  !> Sends the `count` elements of `datatype` in `buf` to `dest` with `sendtag` and receives
  !> into the same buffer from `source` with `recvtag` (C: `EP_Sendrecv_replace`; MPI 4.1
  !> section 3.10.2); any datatype; EP_PROC_NULL peers send or receive nothing; wildcards
  !> allowed for the receive. status: integer(EP_STATUS_SIZE) (out) or EP_STATUS_IGNORE.
  !> Errors: EP_ERR_TRUNCATE (status filled), those of `ep_send` and `ep_recv`.
  recursive subroutine ep_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, &
      status, ierror)
    type(*), dimension(..), intent(inout) :: buf
    integer, intent(in) :: count, dest, sendtag, source, recvtag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = epmpi_f_sendrecv_replace(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(sendtag), &
      c_arg(source), c_arg(recvtag), c_arg(comm), status_ptr, MPI_BOTTOM)
    if (c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_sendrecv_replace

  !> Nonblocking send-receive (C: `EP_Isendrecv`; MPI 4.1 section 3.10.1): `request` (out)
  !> completes when both the send and the receive have, with the receive's status. Buffers
  !> contiguous and asynchronous, not overlapping. Errors: those of `ep_isend` and `ep_irecv`.
  recursive subroutine ep_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, &
      recvtype, source, recvtag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, dest, sendtag, recvcount, source, recvtag, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_isendrecv(sendbuf, c_arg(sendcount), int(sendtype, c_int), c_arg(dest), &
      c_arg(sendtag), recvbuf, c_arg(recvcount), int(recvtype, c_int), c_arg(source), c_arg(recvtag), &
      c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_isendrecv

  !> Nonblocking send-receive in place (C: `EP_Isendrecv_replace`; MPI 4.1 section 3.10.2):
  !> as `ep_sendrecv_replace`, completed by `request` (out); `buf` contiguous and
  !> asynchronous. Errors: those of `ep_sendrecv_replace` (truncation at completion).
  recursive subroutine ep_isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, &
      request, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: buf
    integer, intent(in) :: count, dest, sendtag, source, recvtag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_isendrecv_replace(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(sendtag), &
      c_arg(source), c_arg(recvtag), c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_isendrecv_replace

  !> The persistent send of `mode` (0 standard, 1 synchronous, 2 buffered, 3 ready).
  recursive subroutine persistent_send(mode, buf, count, datatype, dest, tag, comm, request, ierror)
    integer(c_int), intent(in) :: mode
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_send_init(mode, buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine persistent_send

  !> Makes a persistent standard-mode send request (C: `EP_Send_init`; MPI 4.1 section 3.9.1),
  !> inactive until `ep_start`; each round sends what `buf` (contiguous, asynchronous) holds at
  !> its start. Completion calls end a round and leave `request` set; free it with
  !> `ep_request_free`. Errors: those of `ep_isend`.
  recursive subroutine ep_send_init(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call persistent_send(0_c_int, buf, count, datatype, dest, tag, comm, request, ierror)
  end subroutine ep_send_init

  !> Persistent synchronous-mode send (C: `EP_Ssend_init`; MPI 4.1 section 3.9.1). Arguments
  !> and errors as `ep_send_init`.
  recursive subroutine ep_ssend_init(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call persistent_send(1_c_int, buf, count, datatype, dest, tag, comm, request, ierror)
  end subroutine ep_ssend_init

  !> Persistent buffered-mode send (C: `EP_Bsend_init`; MPI 4.1 section 3.9.1): each start
  !> buffers the message as `ep_bsend` (EP_ERR_BUFFER at start when it does not fit).
  !> Arguments and errors as `ep_send_init`.
  recursive subroutine ep_bsend_init(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call persistent_send(2_c_int, buf, count, datatype, dest, tag, comm, request, ierror)
  end subroutine ep_bsend_init

  !> Persistent ready-mode send (C: `EP_Rsend_init`; MPI 4.1 section 3.9.1), sent as standard
  !> mode. Arguments and errors as `ep_send_init`.
  recursive subroutine ep_rsend_init(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call persistent_send(3_c_int, buf, count, datatype, dest, tag, comm, request, ierror)
  end subroutine ep_rsend_init

  !> Makes a persistent receive request (C: `EP_Recv_init`; MPI 4.1 section 3.9.1): each
  !> round receives as `ep_irecv` into `buf` (contiguous, asynchronous). Errors: those of
  !> `ep_irecv`.
  recursive subroutine ep_recv_init(buf, count, datatype, source, tag, comm, request, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: buf
    integer, intent(in) :: count, source, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_recv_init(buf, c_arg(count), int(datatype, c_int), c_arg(source), c_arg(tag), &
      c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_recv_init

  !> Starts one round of an inactive persistent request (C: `EP_Start`; MPI 4.1 section
  !> 3.9.2). Errors: EP_ERR_REQUEST (null, invalid, not persistent, or already active), those
  !> of the round's operation.
  recursive subroutine ep_start(request, ierror)
    integer, intent(inout) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = c_arg(request)
    c_ierror = c_ep_start(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_start

  !> Starts `count` persistent requests in order (C: `EP_Startall`; MPI 4.1 section 3.9.2);
  !> every handle is checked before any starts. Errors as `ep_start`, EP_ERR_COUNT.
  recursive subroutine ep_startall(count, array_of_requests, ierror)
    integer, intent(in) :: count
    integer, dimension(*), intent(inout) :: array_of_requests
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_requests(:)
    integer(c_int) :: c_ierror, n
    integer :: alloc_stat
    n = c_arg(count)
    allocate(c_requests(max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_startall')
    else
      if (n > 0) c_requests(1:n) = c_arg(array_of_requests(1:n))
      c_ierror = c_ep_startall(n, c_requests)
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_startall

  !> Buffered-mode send (C: `EP_Bsend`; MPI 4.1 section 3.6): returns once the message is in
  !> the process's attached buffer (`ep_buffer_attach`). Arguments as `ep_send`.
  !> Errors: EP_ERR_BUFFER (no buffer, or the message plus EP_BSEND_OVERHEAD does not fit:
  !> nothing sent), those of `ep_send`.
  recursive subroutine ep_bsend(buf, count, datatype, dest, tag, comm, ierror)
    type(*), dimension(..), intent(in) :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_bsend(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), c_null_ptr, MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_bsend

  !> Nonblocking buffered-mode send (C: `EP_Ibsend`; MPI 4.1 section 3.7.2): buffers as
  !> `ep_bsend`; `request` (out) is complete at once. Errors as `ep_bsend`.
  recursive subroutine ep_ibsend(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in) :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_request
    integer(c_int) :: c_ierror
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_bsend(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), c_loc(c_request), MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_ibsend

  !> Ready-mode send (C: `EP_Rsend`; MPI 4.1 section 3.4), sent as standard mode. Arguments
  !> and errors as `ep_send`.
  recursive subroutine ep_rsend(buf, count, datatype, dest, tag, comm, ierror)
    type(*), dimension(..), intent(in) :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_rsend(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_rsend

  !> Nonblocking ready-mode send (C: `EP_Irsend`; MPI 4.1 section 3.7.2), sent as `ep_isend`.
  !> Arguments and errors as `ep_isend`.
  recursive subroutine ep_irsend(buf, count, datatype, dest, tag, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buf
    integer, intent(in) :: count, dest, tag, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_irsend(buf, c_arg(count), int(datatype, c_int), c_arg(dest), c_arg(tag), &
      c_arg(comm), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_irsend

  !> Attaches `size` bytes of `buffer` (contiguous, asynchronous: it stays in use) as the
  !> process's buffer for buffered sends (C: `EP_Buffer_attach`; MPI 4.1 section 3.6.1), shared
  !> by all endpoints of the process. Errors: EP_ERR_BUFFER (one is attached already),
  !> EP_ERR_ARG (negative size).
  recursive subroutine ep_buffer_attach(buffer, size, ierror)
    type(*), dimension(..), intent(in), asynchronous :: buffer
    integer, intent(in) :: size
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_buffer_attach(buffer, c_arg(size), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_buffer_attach

  !> Detaches the process's buffer once every buffered message is delivered (C:
  !> `EP_Buffer_detach`; MPI 4.1 section 3.6.1): `buffer_addr` (out) its address, `size` (out)
  !> its bytes. Errors: EP_ERR_BUFFER (none attached).
  recursive subroutine ep_buffer_detach(buffer_addr, size, ierror)
    type(c_ptr), intent(out) :: buffer_addr
    integer, intent(out) :: size
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_size
    buffer_addr = c_null_ptr
    c_size = 0
    c_ierror = c_ep_buffer_detach(buffer_addr, c_size)
    size = int(c_size)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_buffer_detach

  !> Whether a request is complete, without completing it (C: `EP_Request_get_status`; MPI
  !> 4.1 section 3.7.6): `flag` (out) .true. and `status` filled when it is; `request` stays
  !> valid (and active). A null or inactive request gives .true. and an empty status.
  !> Errors: EP_ERR_REQUEST, EP_ERR_TRUNCATE.
  recursive subroutine ep_request_get_status(request, flag, status, ierror)
    integer, intent(in) :: request
    logical, intent(out) :: flag
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, c_flag
    c_flag = 0
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_request_get_status(c_arg(request), c_flag, status_ptr)
    flag = c_flag /= 0
    if (flag .and. c_associated(status_ptr)) status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_request_get_status

  !> `ep_testany` that completes nothing (C: `EP_Request_get_status_any`; MPI 4.1 section
  !> 3.7.6): `flag` .true. with `index` (1-based) and `status` of a complete request, which
  !> stays valid; .true. with `index` EP_UNDEFINED when none is active; .false. otherwise.
  !> Errors: EP_ERR_TRUNCATE, EP_ERR_REQUEST, EP_ERR_COUNT.
  recursive subroutine ep_request_get_status_any(count, array_of_requests, index, flag, status, ierror)
    integer, intent(in) :: count
    integer, dimension(*), intent(in) :: array_of_requests
    integer, intent(out) :: index
    logical, intent(out) :: flag
    integer, dimension(EP_STATUS_SIZE), intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int), target :: c_status(EP_STATUS_SIZE)
    type(c_ptr) :: status_ptr
    integer(c_int) :: c_ierror, n, c_index, c_flag
    n = c_arg(count)
    c_index = EP_UNDEFINED
    c_flag = 0
    status_ptr = c_null_ptr
    if (.not. ignores_status(status)) status_ptr = c_loc(c_status)
    c_ierror = c_ep_request_get_status_any(n, c_arg(array_of_requests(1:max(n, 0_c_int))), c_index, c_flag, &
      status_ptr)
    if (c_flag /= 0 .and. c_associated(status_ptr)) status = int(c_status)
    index = one_based(c_index)
    flag = c_flag /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_request_get_status_any

  !> `ep_testall` that completes nothing (C: `EP_Request_get_status_all`; MPI 4.1 section
  !> 3.7.6): `flag` .true. when every request is complete, statuses then filled, requests
  !> left valid. array_of_statuses integer(EP_STATUS_SIZE, count) or EP_STATUSES_IGNORE.
  !> Errors: EP_ERR_IN_STATUS, EP_ERR_REQUEST, EP_ERR_COUNT.
  recursive subroutine ep_request_get_status_all(count, array_of_requests, flag, array_of_statuses, ierror)
    integer, intent(in) :: count
    integer, dimension(*), intent(in) :: array_of_requests
    logical, intent(out) :: flag
    integer, dimension(EP_STATUS_SIZE, *), intent(out) :: array_of_statuses
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable, target :: c_statuses(:, :)
    type(c_ptr) :: statuses_ptr
    integer(c_int) :: c_ierror, n, c_flag
    integer :: alloc_stat
    n = c_arg(count)
    c_flag = 0
    allocate(c_statuses(EP_STATUS_SIZE, max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_request_get_status_all')
    else
      statuses_ptr = c_null_ptr
      if (.not. ignores_statuses(array_of_statuses)) statuses_ptr = c_loc(c_statuses)
      c_ierror = c_ep_request_get_status_all(n, c_arg(array_of_requests(1:max(n, 0_c_int))), c_flag, statuses_ptr)
      if (n > 0 .and. c_flag /= 0 .and. c_associated(statuses_ptr)) array_of_statuses(:, 1:n) = int(c_statuses(:, 1:n))
    end if
    flag = c_flag /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_request_get_status_all

  !> `ep_testsome` that completes nothing (C: `EP_Request_get_status_some`; MPI 4.1 section
  !> 3.7.6): `outcount` complete requests, their 1-based positions and statuses, requests left
  !> valid; EP_UNDEFINED when none is active. Errors: EP_ERR_IN_STATUS, EP_ERR_REQUEST,
  !> EP_ERR_COUNT.
  recursive subroutine ep_request_get_status_some(incount, array_of_requests, outcount, array_of_indices, &
      array_of_statuses, ierror)
    integer, intent(in) :: incount
    integer, dimension(*), intent(in) :: array_of_requests
    integer, intent(out) :: outcount
    integer, dimension(*), intent(out) :: array_of_indices
    integer, dimension(EP_STATUS_SIZE, *), intent(out) :: array_of_statuses
    integer, intent(out), optional :: ierror
    integer(c_int), allocatable :: c_indices(:)
    integer(c_int), allocatable, target :: c_statuses(:, :)
    type(c_ptr) :: statuses_ptr
    integer(c_int) :: c_ierror, n, c_outcount
    integer :: alloc_stat
    n = c_arg(incount)
    c_outcount = EP_UNDEFINED
    allocate(c_indices(max(n, 1_c_int)), c_statuses(EP_STATUS_SIZE, max(n, 1_c_int)), stat=alloc_stat)
    if (alloc_stat /= 0) then
      c_ierror = no_memory(int(EP_COMM_NULL, c_int), 'ep_request_get_status_some')
    else
      statuses_ptr = c_null_ptr
      if (.not. ignores_statuses(array_of_statuses)) statuses_ptr = c_loc(c_statuses)
      c_ierror = c_ep_request_get_status_some(n, c_arg(array_of_requests(1:max(n, 0_c_int))), c_outcount, &
        c_indices, statuses_ptr)
      if (c_outcount > 0) then
        array_of_indices(1:c_outcount) = int(c_indices(1:c_outcount)) + 1
        if (c_associated(statuses_ptr)) array_of_statuses(:, 1:c_outcount) = int(c_statuses(:, 1:c_outcount))
      end if
    end if
    outcount = int(c_outcount)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_request_get_status_some

  !> The source rank, tag or error code a status records (C: `EP_Status_get_source`,
  !> `EP_Status_get_tag`, `EP_Status_get_error`; MPI 4.1 section 3.2.5): status(EP_SOURCE),
  !> status(EP_TAG), status(EP_ERROR), read here without a C call. Errors: none.
  recursive subroutine ep_status_get_source(status, source, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(in) :: status
    integer, intent(out) :: source
    integer, intent(out), optional :: ierror
    source = status(EP_SOURCE)
    if (present(ierror)) ierror = EP_SUCCESS
  end subroutine ep_status_get_source

  recursive subroutine ep_status_get_tag(status, tag, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(in) :: status
    integer, intent(out) :: tag
    integer, intent(out), optional :: ierror
    tag = status(EP_TAG)
    if (present(ierror)) ierror = EP_SUCCESS
  end subroutine ep_status_get_tag

  recursive subroutine ep_status_get_error(status, err, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(in) :: status
    integer, intent(out) :: err
    integer, intent(out), optional :: ierror
    err = status(EP_ERROR)
    if (present(ierror)) ierror = EP_SUCCESS
  end subroutine ep_status_get_error

  !> Sets the source rank, tag or error code of a status (C: `EP_Status_set_source`,
  !> `EP_Status_set_tag`, `EP_Status_set_error`; MPI 4.1 section 3.2.5); the other fields
  !> stay. Errors: none.
  recursive subroutine ep_status_set_source(status, source, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(inout) :: status
    integer, intent(in) :: source
    integer, intent(out), optional :: ierror
    status(EP_SOURCE) = source
    if (present(ierror)) ierror = EP_SUCCESS
  end subroutine ep_status_set_source

  recursive subroutine ep_status_set_tag(status, tag, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(inout) :: status
    integer, intent(in) :: tag
    integer, intent(out), optional :: ierror
    status(EP_TAG) = tag
    if (present(ierror)) ierror = EP_SUCCESS
  end subroutine ep_status_set_tag

  recursive subroutine ep_status_set_error(status, err, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(inout) :: status
    integer, intent(in) :: err
    integer, intent(out), optional :: ierror
    status(EP_ERROR) = err
    if (present(ierror)) ierror = EP_SUCCESS
  end subroutine ep_status_set_error

  !> Basic elements of `datatype` received, from a status (C: `EP_Get_elements`; MPI 4.1
  !> section 5.1.11): counts a partial last element of a derived datatype; EP_UNDEFINED when
  !> the bytes are not a whole number of basic elements. Errors: EP_ERR_TYPE.
  recursive subroutine ep_get_elements(status, datatype, count, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(in) :: status
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: count
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_count
    c_count = EP_UNDEFINED
    c_ierror = epmpi_f_get_elements(c_arg(status), int(datatype, c_int), c_count)
    count = int(c_count)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_get_elements

  !> `ep_get_elements` with `count` integer(MPI_COUNT_KIND) (C: `EP_Get_elements_x`).
  recursive subroutine ep_get_elements_x(status, datatype, count, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(in) :: status
    integer(mpi_kind), intent(in) :: datatype
    integer(MPI_COUNT_KIND), intent(out) :: count
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    integer(c_int64_t) :: c_count
    c_count = EP_UNDEFINED
    c_ierror = epmpi_f_get_elements_x(c_arg(status), int(datatype, c_int), c_count)
    count = int(c_count, MPI_COUNT_KIND)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_get_elements_x

  !> Sets the received size in `status` (inout) to `count` basic elements of `datatype` (C:
  !> `EP_Status_set_elements`; MPI 4.1 section 13.3). Errors: EP_ERR_COUNT, EP_ERR_TYPE.
  recursive subroutine ep_status_set_elements(status, datatype, count, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(inout) :: status
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(in) :: count
    integer, intent(out), optional :: ierror
    call ep_status_set_elements_x(status, datatype, int(c_arg(count), MPI_COUNT_KIND), ierror)
  end subroutine ep_status_set_elements

  !> `ep_status_set_elements` with `count` integer(MPI_COUNT_KIND) (C: `EP_Status_set_elements_x`).
  recursive subroutine ep_status_set_elements_x(status, datatype, count, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(inout) :: status
    integer(mpi_kind), intent(in) :: datatype
    integer(MPI_COUNT_KIND), intent(in) :: count
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_status(EP_STATUS_SIZE)
    c_status = c_arg(status)
    c_ierror = epmpi_f_status_set_elements_x(c_status, int(datatype, c_int), int(count, c_int64_t))
    status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_status_set_elements_x

  !> Sets the cancelled flag of `status` (inout) to `flag` (C: `EP_Status_set_cancelled`; MPI
  !> 4.1 section 13.3); `ep_test_cancelled` then gives it back.
  recursive subroutine ep_status_set_cancelled(status, flag, ierror)
    integer, dimension(EP_STATUS_SIZE), intent(inout) :: status
    logical, intent(in) :: flag
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_status(EP_STATUS_SIZE), c_flag
    c_status = c_arg(status)
    c_flag = 0
    if (flag) c_flag = 1
    c_ierror = c_ep_status_set_cancelled(c_status, c_flag)
    status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_status_set_cancelled

  ! ==========================================================================================
  ! Collectives (MPI 4.1 chapter 6): blocking, called once per endpoint
  ! ==========================================================================================

  !> Blocks until every endpoint of `comm` has entered the barrier (C: `EP_Barrier`; MPI 4.1
  !> section 6.3). Errors: EP_ERR_COMM.
  recursive subroutine ep_barrier(comm, ierror)
    integer, intent(in) :: comm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_barrier(c_arg(comm))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_barrier

  !> Broadcasts `count` elements of `datatype` in `buffer` from rank `root` to every endpoint
  !> (C: `EP_Bcast`; MPI 4.1 section 6.4). On an intercommunicator the root passes EP_ROOT,
  !> the rest of its group EP_PROC_NULL, the other group the root's rank (MPI 4.1 section
  !> 6.2.2). Errors: EP_ERR_COMM, EP_ERR_ROOT, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER,
  !> EP_ERR_TRUNCATE.
  recursive subroutine ep_bcast(buffer, count, datatype, root, comm, ierror)
    type(*), dimension(..), intent(inout) :: buffer
    integer, intent(in) :: count, root, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_bcast(buffer, c_arg(count), int(datatype, c_int), c_arg(root), c_arg(comm), &
      MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_bcast

  !> Combines `count` elements of every endpoint with `op` into `recvbuf` of rank `root` (C:
  !> `EP_Reduce`; MPI 4.1 section 6.9.1). `sendbuf` may be MPI_IN_PLACE at the root (input
  !> taken from `recvbuf`); `recvbuf` matters only at the root. op: `use mpi` op (predefined
  !> or user-defined). Errors: EP_ERR_COMM, EP_ERR_ROOT, EP_ERR_OP, EP_ERR_COUNT,
  !> EP_ERR_TYPE, EP_ERR_BUFFER.
  recursive subroutine ep_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: count, root, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_reduce(sendbuf, recvbuf, c_arg(count), int(datatype, c_int), int(op, c_int), &
      c_arg(root), c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_reduce

  !> Combines `count` elements of every endpoint with `op`; every endpoint gets the result in
  !> `recvbuf` (C: `EP_Allreduce`; MPI 4.1 section 6.9.6). `sendbuf` may be MPI_IN_PLACE on
  !> an intracommunicator; on an intercommunicator each group gets the other group's
  !> reduction (MPI_IN_PLACE is EP_ERR_BUFFER there). Errors as `ep_reduce`.
  recursive subroutine ep_allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_allreduce(sendbuf, recvbuf, c_arg(count), int(datatype, c_int), int(op, c_int), &
      c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_allreduce

  !> Gathers `sendcount` elements of every endpoint into `recvbuf` of rank `root`, rank i's
  !> block at element offset i*recvcount (C: `EP_Gather`; MPI 4.1 section 6.5). At the root
  !> `sendbuf` may be MPI_IN_PLACE; receive arguments matter only there.
  !> Errors: EP_ERR_COMM, EP_ERR_ROOT, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER.
  recursive subroutine ep_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
      ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_gather(sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, &
      c_arg(recvcount), int(recvtype, c_int), c_arg(root), c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_gather

  !> Gathers `sendcount` elements of every endpoint into `recvbuf` of rank `root`: rank i's
  !> `recvcounts(i+1)` elements at element displacement `displs(i+1)` (C: `EP_Gatherv`; MPI
  !> 4.1 section 6.5). recvcounts, displs: integer(comm size), read at the root only.
  !> MPI_IN_PLACE as `ep_gather`. Errors as `ep_gather`.
  recursive subroutine ep_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &
      root, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, root, comm
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_gatherv(sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, recvcounts, &
      displs, int(storage_size(recvcounts) / 8, c_int), int(recvtype, c_int), c_arg(root), c_arg(comm), &
      MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_gatherv

  !> Scatters `sendbuf` of rank `root`: rank i gets the block at element offset i*sendcount
  !> in its `recvbuf` (C: `EP_Scatter`; MPI 4.1 section 6.6). At the root `recvbuf` may be
  !> MPI_IN_PLACE; send arguments matter only there. Errors as `ep_gather`.
  recursive subroutine ep_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
      ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_scatter(sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, &
      c_arg(recvcount), int(recvtype, c_int), c_arg(root), c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_scatter

  !> Scatters `sendbuf` of rank `root`: rank i gets `sendcounts(i+1)` elements from element
  !> displacement `displs(i+1)` (C: `EP_Scatterv`; MPI 4.1 section 6.6). sendcounts, displs:
  !> integer(comm size), read at the root only. MPI_IN_PLACE as `ep_scatter`.
  !> Errors as `ep_gather`.
  recursive subroutine ep_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, &
      root, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, displs
    integer, intent(in) :: recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_scatterv(sendbuf, sendcounts, displs, int(storage_size(sendcounts) / 8, c_int), &
      int(sendtype, c_int), recvbuf, c_arg(recvcount), int(recvtype, c_int), c_arg(root), c_arg(comm), &
      MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_scatterv

  !> Gathers `sendcount` elements of every endpoint into every endpoint's `recvbuf`, rank i's
  !> block at element offset i*recvcount (C: `EP_Allgather`; MPI 4.1 section 6.7).
  !> `sendbuf` may be MPI_IN_PLACE. Errors: EP_ERR_COMM, EP_ERR_COUNT, EP_ERR_TYPE,
  !> EP_ERR_BUFFER.
  recursive subroutine ep_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_allgather(sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, &
      c_arg(recvcount), int(recvtype, c_int), c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_allgather

  !> `ep_allgather` with `recvcounts(i+1)` elements of rank i at element displacement
  !> `displs(i+1)` (C: `EP_Allgatherv`; MPI 4.1 section 6.7); recvcounts, displs:
  !> integer(comm size). Errors as `ep_allgather`.
  recursive subroutine ep_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &
      comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, comm
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_allgatherv(sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, recvcounts, &
      displs, int(storage_size(recvcounts) / 8, c_int), int(recvtype, c_int), c_arg(comm), MPI_BOTTOM, &
      MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_allgatherv

  !> Every endpoint sends block j of `sendbuf` (element offset j*sendcount) to rank j, which
  !> stores it as block i of its `recvbuf` (C: `EP_Alltoall`; MPI 4.1 section 6.8).
  !> `sendbuf` may be MPI_IN_PLACE. Errors as `ep_allgather`.
  recursive subroutine ep_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_alltoall(sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, &
      c_arg(recvcount), int(recvtype, c_int), c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_alltoall

  !> `ep_alltoall` with per-rank counts and element displacements on both sides (C:
  !> `EP_Alltoallv`; MPI 4.1 section 6.8); each array is integer(comm size). `sendbuf` may be
  !> MPI_IN_PLACE. Errors as `ep_allgather`.
  recursive subroutine ep_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, &
      recvtype, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_alltoallv(sendbuf, sendcounts, sdispls, int(sendtype, c_int), recvbuf, &
      recvcounts, rdispls, int(storage_size(recvcounts) / 8, c_int), int(recvtype, c_int), c_arg(comm), &
      MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_alltoallv

  !> Reduces sum(recvcounts) elements of every endpoint with `op` and scatters the result:
  !> rank i gets `recvcounts(i+1)` elements (C: `EP_Reduce_scatter`; MPI 4.1 section 6.10.2).
  !> recvcounts: integer(comm size). `sendbuf` may be MPI_IN_PLACE (input in `recvbuf`).
  !> Errors as `ep_reduce`.
  recursive subroutine ep_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, dimension(*), intent(in) :: recvcounts
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_reduce_scatter(sendbuf, recvbuf, recvcounts, int(storage_size(recvcounts) / 8, &
      c_int), int(datatype, c_int), int(op, c_int), c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_reduce_scatter

  !> Reduces recvcount*size elements of every endpoint with `op` and scatters the result:
  !> rank i gets elements i*recvcount+1 .. (i+1)*recvcount (C: `EP_Reduce_scatter_block`;
  !> MPI 4.1 section 6.10.1). `sendbuf` may be MPI_IN_PLACE. Errors as `ep_reduce`.
  recursive subroutine ep_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: recvcount, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_reduce_scatter_block(sendbuf, recvbuf, c_arg(recvcount), int(datatype, c_int), &
      int(op, c_int), c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_reduce_scatter_block

  !> Inclusive prefix reduction: rank i gets sendbuf(rank 0) op ... op sendbuf(rank i) (C:
  !> `EP_Scan`; MPI 4.1 section 6.11.1). `sendbuf` may be MPI_IN_PLACE. Errors as `ep_reduce`.
  recursive subroutine ep_scan(sendbuf, recvbuf, count, datatype, op, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_scan(sendbuf, recvbuf, c_arg(count), int(datatype, c_int), int(op, c_int), &
      c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_scan

  !> Exclusive prefix reduction: rank i > 0 gets sendbuf(rank 0) op ... op sendbuf(rank i-1);
  !> rank 0's `recvbuf` is left as it is (C: `EP_Exscan`; MPI 4.1 section 6.11.2). `sendbuf`
  !> may be MPI_IN_PLACE. Errors as `ep_reduce`.
  recursive subroutine ep_exscan(sendbuf, recvbuf, count, datatype, op, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_exscan(sendbuf, recvbuf, c_arg(count), int(datatype, c_int), int(op, c_int), &
      c_arg(comm), MPI_BOTTOM, MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_exscan

  !> Starts a barrier (C: `EP_Ibarrier`; MPI 4.1 section 6.12.1): `request` (out) completes
  !> once every endpoint has entered it. Start them in the same order on every endpoint.
  !> Errors: EP_ERR_COMM.
  recursive subroutine ep_ibarrier(comm, request, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_ibarrier(c_arg(comm), c_request)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_ibarrier

  !> Starts a broadcast (C: `EP_Ibcast`; MPI 4.1 section 6.12.2): arguments as `ep_bcast`,
  !> `request` (out); `buffer` (contiguous, asynchronous) may be neither read nor written
  !> until the request completes. Errors: those of `ep_bcast`; EP_ERR_BUFFER for a
  !> non-contiguous section.
  recursive subroutine ep_ibcast(buffer, count, datatype, root, comm, request, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: buffer
    integer, intent(in) :: count, root, comm
    integer(mpi_kind), intent(in) :: datatype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_ibcast(buffer, c_arg(count), int(datatype, c_int), c_arg(root), c_arg(comm), &
      c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_ibcast

  ! ---- Nonblocking collectives, alltoallw, reduce_local ----------------------------------
  ! The nonblocking forms take the arguments of their blocking form and `request` (out), which
  ! the completion calls (`ep_wait`, `ep_testany`, ...) complete. Buffers must be contiguous
  ! (EP_ERR_BUFFER otherwise) and should be declared `asynchronous`: the receive buffer may be
  ! neither read nor written until the request completes. Send data, counts and
  ! displacements are read when the call is made. Errors: those of the blocking form.

  !> Starts `ep_reduce` (C: `EP_Ireduce`; MPI 4.1 section 6.12.7).
  recursive subroutine ep_ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, root, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ireduction(0, sendbuf, recvbuf, count, datatype, op, root, comm, request, ierror)
  end subroutine ep_ireduce

  !> Starts `ep_allreduce` (C: `EP_Iallreduce`; MPI 4.1 section 6.12.8).
  recursive subroutine ep_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ireduction(1, sendbuf, recvbuf, count, datatype, op, 0, comm, request, ierror)
  end subroutine ep_iallreduce

  !> Starts `ep_scan` (C: `EP_Iscan`; MPI 4.1 section 6.12.11).
  recursive subroutine ep_iscan(sendbuf, recvbuf, count, datatype, op, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ireduction(2, sendbuf, recvbuf, count, datatype, op, 0, comm, request, ierror)
  end subroutine ep_iscan

  !> Starts `ep_exscan` (C: `EP_Iexscan`; MPI 4.1 section 6.12.12).
  recursive subroutine ep_iexscan(sendbuf, recvbuf, count, datatype, op, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ireduction(3, sendbuf, recvbuf, count, datatype, op, 0, comm, request, ierror)
  end subroutine ep_iexscan

  !> Starts `ep_reduce_scatter_block` (C: `EP_Ireduce_scatter_block`; MPI 4.1 section 6.12.9).
  recursive subroutine ep_ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: recvcount, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ireduction(4, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, request, ierror)
  end subroutine ep_ireduce_scatter_block

  !> The nonblocking reductions: `kind` as `epmpi_f_ireduction` takes it.
  recursive subroutine ireduction(kind, sendbuf, recvbuf, count, datatype, op, root, comm, request, ierror)
    integer, intent(in) :: kind
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, root, comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_ireduction(int(kind, c_int), sendbuf, recvbuf, c_arg(count), int(datatype, c_int), &
      int(op, c_int), c_arg(root), c_arg(comm), c_request, MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ireduction

  !> Starts `ep_reduce_scatter` (C: `EP_Ireduce_scatter`; MPI 4.1 section 6.12.10);
  !> recvcounts: integer(comm size).
  recursive subroutine ep_ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: recvcounts
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_ireduce_scatter(sendbuf, recvbuf, recvcounts, int(storage_size(recvcounts) / 8, c_int), &
      int(datatype, c_int), int(op, c_int), c_arg(comm), c_request, MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_ireduce_scatter

  !> Starts `ep_gather` (C: `EP_Igather`; MPI 4.1 section 6.12.3).
  recursive subroutine ep_igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call icollective(0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierror)
  end subroutine ep_igather

  !> Starts `ep_scatter` (C: `EP_Iscatter`; MPI 4.1 section 6.12.4).
  recursive subroutine ep_iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call icollective(1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierror)
  end subroutine ep_iscatter

  !> Starts `ep_allgather` (C: `EP_Iallgather`; MPI 4.1 section 6.12.5).
  recursive subroutine ep_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call icollective(2, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, request, ierror)
  end subroutine ep_iallgather

  !> Starts `ep_alltoall` (C: `EP_Ialltoall`; MPI 4.1 section 6.12.6).
  recursive subroutine ep_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call icollective(3, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, request, ierror)
  end subroutine ep_ialltoall

  !> The nonblocking collectives with one count per side: `kind` as `epmpi_f_icollective`
  !> takes it.
  recursive subroutine icollective(kind, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
      comm, request, ierror)
    integer, intent(in) :: kind
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_icollective(int(kind, c_int), sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, &
      c_arg(recvcount), int(recvtype, c_int), c_arg(root), c_arg(comm), c_request, MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine icollective

  !> Starts `ep_gatherv` (C: `EP_Igatherv`; MPI 4.1 section 6.12.3); arrays integer(comm size).
  recursive subroutine ep_igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, &
      comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer, intent(in) :: sendcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ivcollective(0, sendbuf, sendcount, recvcounts, displs, sendtype, recvbuf, 0, recvcounts, displs, &
      recvtype, root, comm, request, ierror)
  end subroutine ep_igatherv

  !> Starts `ep_scatterv` (C: `EP_Iscatterv`; MPI 4.1 section 6.12.4); arrays integer(comm size).
  recursive subroutine ep_iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, &
      comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, displs
    integer, intent(in) :: recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ivcollective(1, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, sendcounts, displs, &
      recvtype, root, comm, request, ierror)
  end subroutine ep_iscatterv

  !> Starts `ep_allgatherv` (C: `EP_Iallgatherv`; MPI 4.1 section 6.12.5); arrays integer(comm size).
  recursive subroutine ep_iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &
      comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer, intent(in) :: sendcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ivcollective(2, sendbuf, sendcount, recvcounts, displs, sendtype, recvbuf, 0, recvcounts, displs, &
      recvtype, 0, comm, request, ierror)
  end subroutine ep_iallgatherv

  !> Starts `ep_alltoallv` (C: `EP_Ialltoallv`; MPI 4.1 section 6.12.6); arrays integer(comm size).
  recursive subroutine ep_ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, &
      recvtype, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call ivcollective(3, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, &
      recvtype, 0, comm, request, ierror)
  end subroutine ep_ialltoallv

  !> The nonblocking collectives with count arrays: `kind` as `epmpi_f_ivcollective` takes it.
  recursive subroutine ivcollective(kind, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf, &
      recvcount, recvcounts, rdispls, recvtype, root, comm, request, ierror)
    integer, intent(in) :: kind
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_ivcollective(int(kind, c_int), sendbuf, c_arg(sendcount), sendcounts, sdispls, &
      int(sendtype, c_int), recvbuf, c_arg(recvcount), recvcounts, rdispls, int(recvtype, c_int), c_arg(root), &
      int(storage_size(sendcounts) / 8, c_int), c_arg(comm), c_request, MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ivcollective

  !> Every endpoint sends `sendcounts(j+1)` elements of `sendtypes(j+1)` at byte displacement
  !> `sdispls(j+1)` of `sendbuf` to rank j, which stores them as `recvcounts(i+1)` elements of
  !> `recvtypes(i+1)` at byte displacement `rdispls(i+1)` of its `recvbuf` (C: `EP_Alltoallw`;
  !> MPI 4.1 section 6.8). Arrays integer(comm size); the datatypes are `use mpi` integers.
  !> `sendbuf` may be MPI_IN_PLACE (the send arrays are then not used). Errors: EP_ERR_COMM,
  !> EP_ERR_ARG, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER, EP_ERR_TRUNCATE.
  recursive subroutine ep_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
      recvtypes, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer(mpi_kind), dimension(*), intent(in) :: sendtypes, recvtypes
    integer, intent(in) :: comm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
      recvtypes, int(storage_size(sendcounts) / 8, c_int), c_arg(comm), 0_c_int, 0_c_int, c_null_ptr, MPI_BOTTOM, &
      MPI_IN_PLACE)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_alltoallw

  !> Starts `ep_alltoallw` (C: `EP_Ialltoallw`; MPI 4.1 section 6.12.6).
  recursive subroutine ep_ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
      recvtypes, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer(mpi_kind), dimension(*), intent(in) :: sendtypes, recvtypes
    integer, intent(in) :: comm
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    integer(c_int), target :: c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
      recvtypes, int(storage_size(sendcounts) / 8, c_int), c_arg(comm), 1_c_int, 0_c_int, c_loc(c_request), &
      MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_ialltoallw

  !> Persistent `ep_alltoallw` (C: `EP_Alltoallw_init`; MPI 4.1 section 6.13): the arrays are
  !> read at init, the buffers must be contiguous and stay valid while `request` exists.
  recursive subroutine ep_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
      recvtypes, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer(mpi_kind), dimension(*), intent(in) :: sendtypes, recvtypes
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    integer(c_int), target :: c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
      recvtypes, int(storage_size(sendcounts) / 8, c_int), c_arg(comm), 2_c_int, int(info, c_int), &
      c_loc(c_request), MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_alltoallw_init

  !> `inoutbuf = inbuf op inoutbuf`, elementwise, for `count` elements of `datatype` (C:
  !> `EP_Reduce_local`; MPI 4.1 section 6.9.7); any predefined or user-defined op. A local
  !> operation: errors go to the default error handler. Errors: EP_ERR_COUNT, EP_ERR_TYPE,
  !> EP_ERR_OP, EP_ERR_BUFFER.
  recursive subroutine ep_reduce_local(inbuf, inoutbuf, count, datatype, op, ierror)
    type(*), dimension(..), intent(in) :: inbuf
    type(*), dimension(..), intent(inout) :: inoutbuf
    integer, intent(in) :: count
    integer(mpi_kind), intent(in) :: datatype, op
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_reduce_local(inbuf, inoutbuf, c_arg(count), int(datatype, c_int), int(op, c_int), &
      MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_reduce_local

  ! ---- Persistent collectives ---------------------------------------------------------------
  ! The `_init` forms take the arguments of their blocking form, `info` (`use mpi` info,
  ! accepted and ignored) and `request` (out): an inactive persistent request that `ep_start`
  ! and `ep_startall` start, each start one round of the collective on the buffers' contents
  ! at that moment; completion leaves it inactive, `ep_request_free` frees it. Buffers must be
  ! contiguous (EP_ERR_BUFFER otherwise) and should be declared `asynchronous`; counts and
  ! displacements are read by the init call. Every endpoint makes and starts its persistent
  ! collectives in the same order. Errors: those of the blocking form, EP_ERR_UNSUPPORTED on
  ! an intercommunicator.

  !> Persistent `ep_barrier` (C: `EP_Barrier_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_barrier_init(comm, info, request, ierror)
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer :: none(1)
    call pcollective(0, none, 0, 0_mpi_kind, none, 0, 0_mpi_kind, 0_mpi_kind, 0, comm, info, request, ierror)
  end subroutine ep_barrier_init

  !> Persistent `ep_bcast` (C: `EP_Bcast_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_bcast_init(buf, count, datatype, root, comm, info, request, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: buf
    integer, intent(in) :: count, root, comm
    integer(mpi_kind), intent(in) :: datatype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(1, buf, 0, datatype, buf, count, datatype, 0_mpi_kind, root, comm, info, request, ierror)
  end subroutine ep_bcast_init

  !> Persistent `ep_reduce` (C: `EP_Reduce_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, root, comm
    integer(mpi_kind), intent(in) :: datatype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(2, sendbuf, count, datatype, recvbuf, 0, datatype, op, root, comm, info, request, ierror)
  end subroutine ep_reduce_init

  !> Persistent `ep_allreduce` (C: `EP_Allreduce_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(3, sendbuf, count, datatype, recvbuf, 0, datatype, op, 0, comm, info, request, ierror)
  end subroutine ep_allreduce_init

  !> Persistent `ep_scan` (C: `EP_Scan_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(4, sendbuf, count, datatype, recvbuf, 0, datatype, op, 0, comm, info, request, ierror)
  end subroutine ep_scan_init

  !> Persistent `ep_exscan` (C: `EP_Exscan_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: count, comm
    integer(mpi_kind), intent(in) :: datatype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(5, sendbuf, count, datatype, recvbuf, 0, datatype, op, 0, comm, info, request, ierror)
  end subroutine ep_exscan_init

  !> Persistent `ep_reduce_scatter_block` (C: `EP_Reduce_scatter_block_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm, info, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: recvcount, comm
    integer(mpi_kind), intent(in) :: datatype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(6, sendbuf, recvcount, datatype, recvbuf, 0, datatype, op, 0, comm, info, request, ierror)
  end subroutine ep_reduce_scatter_block_init

  !> Persistent `ep_gather` (C: `EP_Gather_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(7, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0_mpi_kind, &
      root, comm, info, request, ierror)
  end subroutine ep_gather_init

  !> Persistent `ep_scatter` (C: `EP_Scatter_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(8, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0_mpi_kind, &
      root, comm, info, request, ierror)
  end subroutine ep_scatter_init

  !> Persistent `ep_allgather` (C: `EP_Allgather_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(9, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0_mpi_kind, &
      0, comm, info, request, ierror)
  end subroutine ep_allgather_init

  !> Persistent `ep_alltoall` (C: `EP_Alltoall_init`; MPI 4.1 section 6.13).
  recursive subroutine ep_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pcollective(10, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0_mpi_kind, &
      0, comm, info, request, ierror)
  end subroutine ep_alltoall_init

  !> The persistent collectives of fixed counts: `kind` as `epmpi_f_pcollective` takes it.
  recursive subroutine pcollective(kind, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, op, root, &
      comm, info, request, ierror)
    integer, intent(in) :: kind
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_pcollective(int(kind, c_int), sendbuf, c_arg(sendcount), int(sendtype, c_int), recvbuf, &
      c_arg(recvcount), int(recvtype, c_int), int(op, c_int), c_arg(root), c_arg(comm), int(info, c_int), &
      c_request, MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine pcollective

  !> Persistent `ep_gatherv` (C: `EP_Gatherv_init`; MPI 4.1 section 6.13); arrays integer(comm size).
  recursive subroutine ep_gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &
      root, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer, intent(in) :: sendcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pvcollective(0, sendbuf, sendcount, recvcounts, displs, sendtype, recvbuf, 0, recvcounts, displs, &
      recvtype, 0_mpi_kind, root, comm, info, request, ierror)
  end subroutine ep_gatherv_init

  !> Persistent `ep_scatterv` (C: `EP_Scatterv_init`; MPI 4.1 section 6.13); arrays integer(comm size).
  recursive subroutine ep_scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, &
      root, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, displs
    integer, intent(in) :: recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pvcollective(1, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, sendcounts, displs, &
      recvtype, 0_mpi_kind, root, comm, info, request, ierror)
  end subroutine ep_scatterv_init

  !> Persistent `ep_allgatherv` (C: `EP_Allgatherv_init`; MPI 4.1 section 6.13); arrays
  !> integer(comm size).
  recursive subroutine ep_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &
      comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer, intent(in) :: sendcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pvcollective(2, sendbuf, sendcount, recvcounts, displs, sendtype, recvbuf, 0, recvcounts, displs, &
      recvtype, 0_mpi_kind, 0, comm, info, request, ierror)
  end subroutine ep_allgatherv_init

  !> Persistent `ep_alltoallv` (C: `EP_Alltoallv_init`; MPI 4.1 section 6.13); arrays
  !> integer(comm size).
  recursive subroutine ep_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, &
      recvtype, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pvcollective(3, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, &
      recvtype, 0_mpi_kind, 0, comm, info, request, ierror)
  end subroutine ep_alltoallv_init

  !> Persistent `ep_reduce_scatter` (C: `EP_Reduce_scatter_init`; MPI 4.1 section 6.13);
  !> recvcounts: integer(comm size).
  recursive subroutine ep_reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request, &
      ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: recvcounts
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: datatype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call pvcollective(4, sendbuf, 0, recvcounts, recvcounts, datatype, recvbuf, 0, recvcounts, recvcounts, &
      datatype, op, 0, comm, info, request, ierror)
  end subroutine ep_reduce_scatter_init

  !> The persistent collectives with count arrays: `kind` as `epmpi_f_pvcollective` takes it.
  recursive subroutine pvcollective(kind, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf, &
      recvcount, recvcounts, rdispls, recvtype, op, root, comm, info, request, ierror)
    integer, intent(in) :: kind
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: sendcount, recvcount, root, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, op, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_pvcollective(int(kind, c_int), sendbuf, c_arg(sendcount), sendcounts, sdispls, &
      int(sendtype, c_int), recvbuf, c_arg(recvcount), recvcounts, rdispls, int(recvtype, c_int), int(op, c_int), &
      c_arg(root), int(storage_size(sendcounts) / 8, c_int), c_arg(comm), int(info, c_int), c_request, &
      MPI_BOTTOM, MPI_IN_PLACE)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine pvcollective

  ! ==========================================================================================
  ! One-sided windows (MPI 4.1 chapter 12): window handles are default integers (C values),
  ! targets are endpoint ranks, sizes and displacements integer(MPI_ADDRESS_KIND)
  ! ==========================================================================================

  !> Creates a window exposing `size` bytes of `base` on each endpoint (C: `EP_Win_create`;
  !> MPI 4.1 section 12.2.1). Collective: every endpoint of the intracommunicator `comm` calls
  !> it once with its own memory; `size` (bytes, integer(MPI_ADDRESS_KIND)) may be 0 and
  !> differ between endpoints, as may `disp_unit` (bytes, > 0): a target displacement d
  !> addresses byte d*disp_unit of the target's `base`. base: contiguous memory of any type
  !> and rank that stays in place until `ep_win_free` (an allocatable or pointer array, not a
  !> temporary); declare it `asynchronous` (or `volatile`), as it changes behind the
  !> compiler's back. info: `use mpi` info. win (out): this endpoint's window handle.
  !> Errors: EP_ERR_COMM, EP_ERR_SIZE (negative size), EP_ERR_DISP (disp_unit <= 0),
  !> EP_ERR_BUFFER (non-contiguous section); host failures as EP_ERR_WIN.
  recursive subroutine ep_win_create(base, size, disp_unit, info, comm, win, ierror)
    type(*), dimension(..), asynchronous :: base
    integer(MPI_ADDRESS_KIND), intent(in) :: size
    integer, intent(in) :: disp_unit, comm
    integer(mpi_kind), intent(in) :: info
    integer, intent(out) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_win
    c_win = EP_WIN_NULL
    c_ierror = epmpi_f_win_create(base, int(size, c_intptr_t), c_arg(disp_unit), int(info, c_int), c_arg(comm), &
      c_win)
    win = int(c_win)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_create

  !> Allocates `size` bytes on each endpoint and creates a window over them (C:
  !> `EP_Win_allocate`; MPI 4.1 section 12.2.2, the `ISO_C_BINDING` form of
  !> `MPI_Win_allocate`): `baseptr` (out, type(c_ptr)) is the address of this endpoint's
  !> memory, to map with `c_f_pointer(baseptr, array, [n])`; it is freed by `ep_win_free`.
  !> Arguments otherwise as `ep_win_create`. Errors: those of `ep_win_create`.
  recursive subroutine ep_win_allocate(size, disp_unit, info, comm, baseptr, win, ierror)
    integer(MPI_ADDRESS_KIND), intent(in) :: size
    integer, intent(in) :: disp_unit, comm
    integer(mpi_kind), intent(in) :: info
    type(c_ptr), intent(out) :: baseptr
    integer, intent(out) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_win
    c_win = EP_WIN_NULL
    baseptr = c_null_ptr
    c_ierror = epmpi_f_win_allocate(int(size, c_intptr_t), c_arg(disp_unit), int(info, c_int), c_arg(comm), &
      baseptr, c_win)
    win = int(c_win)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_allocate

  !> Creates a window with no memory yet (C: `EP_Win_create_dynamic`; MPI 4.1 section
  !> 12.2.4): each endpoint then exposes regions with `ep_win_attach`; origins address them by
  !> the host addresses of the target's regions (`MPI_Get_address`, `MPI_Aint_add`) as target
  !> displacements (displacement unit 1). Collective like `ep_win_create`.
  !> Errors: EP_ERR_COMM; host failures as EP_ERR_WIN.
  recursive subroutine ep_win_create_dynamic(info, comm, win, ierror)
    integer(mpi_kind), intent(in) :: info
    integer, intent(in) :: comm
    integer, intent(out) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_win
    c_win = EP_WIN_NULL
    c_ierror = epmpi_f_win_create_dynamic(int(info, c_int), c_arg(comm), c_win)
    win = int(c_win)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_create_dynamic

  !> Exposes `size` bytes (integer(MPI_ADDRESS_KIND)) of `base` in this endpoint's part of a
  !> dynamic window (C: `EP_Win_attach`; MPI 4.1 section 12.2.4); local, several regions may
  !> be attached. base: contiguous memory that stays in place until `ep_win_detach`
  !> (asynchronous, as for `ep_win_create`). Errors: EP_ERR_WIN (not a dynamic window, host
  !> refusal), EP_ERR_SIZE, EP_ERR_BUFFER (non-contiguous section).
  recursive subroutine ep_win_attach(win, base, size, ierror)
    integer, intent(in) :: win
    type(*), dimension(..), asynchronous :: base
    integer(MPI_ADDRESS_KIND), intent(in) :: size
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_attach(c_arg(win), base, int(size, c_intptr_t))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_attach

  !> Withdraws the region attached at `base` (its first element) from a dynamic window (C:
  !> `EP_Win_detach`; MPI 4.1 section 12.2.4). Errors: EP_ERR_WIN (not dynamic, region not
  !> attached).
  recursive subroutine ep_win_detach(win, base, ierror)
    integer, intent(in) :: win
    type(*), dimension(..), asynchronous :: base
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_detach(c_arg(win), base)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_detach

  !> Frees this endpoint's window handle and sets `win` to EP_WIN_NULL (C: `EP_Win_free`; MPI
  !> 4.1 section 12.2.5). Collective: returns once every endpoint of the window has called it;
  !> `ep_win_allocate` memory goes then. Errors: EP_ERR_WIN (null or freed handle),
  !> EP_ERR_RMA_SYNC (locks held: the handle stays valid).
  recursive subroutine ep_win_free(win, ierror)
    integer, intent(inout) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_win
    c_win = c_arg(win)
    c_ierror = c_ep_win_free(c_win)
    win = int(c_win)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_free

  !> Active-target synchronisation (C: `EP_Win_fence`; MPI 4.1 section 12.5.1): collective over
  !> the window's endpoints; completes every operation since the previous fence and opens the
  !> next epoch. assert: 0 or an `ior` of the host's `use mpi` MPI_MODE_* values (of the kind
  !> `use mpi` gives them), mapped to C's. Errors: EP_ERR_WIN, EP_ERR_RMA_SYNC (inside a lock
  !> epoch).
  recursive subroutine ep_win_fence(assert, win, ierror)
    integer(mpi_kind), intent(in) :: assert
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_fence(int(assert, c_int), c_arg(win), rma_constants)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_fence

  !> A keyval for window attributes (C: `EP_Win_create_keyval`; MPI 4.1 section 7.7.3): the
  !> callbacks are Fortran subroutines with the interfaces ep_win_copy_attr_function (kept,
  !> never run) and ep_win_delete_attr_function, or ep_win_null_copy_fn / ep_win_dup_fn and
  !> ep_win_null_delete_fn; attribute values are integer(MPI_ADDRESS_KIND), stored as given.
  !> Errors: EP_ERR_ARG.
  recursive subroutine ep_win_create_keyval(win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state, &
      ierror)
    procedure(ep_win_copy_attr_function) :: win_copy_attr_fn
    procedure(ep_win_delete_attr_function) :: win_delete_attr_fn
    integer, intent(out) :: win_keyval
    integer(MPI_ADDRESS_KIND), intent(in) :: extra_state
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_keyval
    c_keyval = EP_KEYVAL_INVALID
    c_ierror = epmpi_f_win_create_keyval(c_funloc(win_copy_attr_fn), c_funloc(win_delete_attr_fn), c_keyval, &
      int(extra_state, c_intptr_t))
    win_keyval = int(c_keyval)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_create_keyval

  !> Frees a window keyval and sets it to EP_KEYVAL_INVALID (C: `EP_Win_free_keyval`; MPI 4.1
  !> section 7.7.3); attributes set with it stay. Errors: EP_ERR_KEYVAL.
  recursive subroutine ep_win_free_keyval(win_keyval, ierror)
    integer, intent(inout) :: win_keyval
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_keyval
    c_keyval = c_arg(win_keyval)
    c_ierror = c_ep_win_free_keyval(c_keyval)
    win_keyval = int(c_keyval)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_free_keyval

  !> Sets an attribute of this endpoint's window (C: `EP_Win_set_attr`; MPI 4.1 section
  !> 7.7.3); a value already set goes to the delete callback first. Errors: EP_ERR_WIN,
  !> EP_ERR_KEYVAL.
  recursive subroutine ep_win_set_attr(win, win_keyval, attribute_val, ierror)
    integer, intent(in) :: win, win_keyval
    integer(MPI_ADDRESS_KIND), intent(in) :: attribute_val
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_set_attr(c_arg(win), c_arg(win_keyval), int(attribute_val, c_intptr_t))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_set_attr

  !> Deletes an attribute of this endpoint's window, running its delete callback (C:
  !> `EP_Win_delete_attr`; MPI 4.1 section 7.7.3). Errors: EP_ERR_WIN, EP_ERR_KEYVAL.
  recursive subroutine ep_win_delete_attr(win, win_keyval, ierror)
    integer, intent(in) :: win, win_keyval
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_delete_attr(c_arg(win), c_arg(win_keyval))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_delete_attr

  !> The copy callback that never copies (MPI's MPI_WIN_NULL_COPY_FN; C: `EP_WIN_NULL_COPY_FN`).
  recursive subroutine ep_win_null_copy_fn(oldwin, win_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    integer :: oldwin, win_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    call ep_comm_null_copy_fn(oldwin, win_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
  end subroutine ep_win_null_copy_fn

  !> The copy callback that copies the value (MPI's MPI_WIN_DUP_FN; C: `EP_WIN_DUP_FN`).
  recursive subroutine ep_win_dup_fn(oldwin, win_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    integer :: oldwin, win_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    call ep_comm_dup_fn(oldwin, win_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
  end subroutine ep_win_dup_fn

  !> The delete callback that does nothing (MPI's MPI_WIN_NULL_DELETE_FN; C:
  !> `EP_WIN_NULL_DELETE_FN`).
  recursive subroutine ep_win_null_delete_fn(win, win_keyval, attribute_val, extra_state, ierror)
    integer :: win, win_keyval, ierror
    integer(MPI_ADDRESS_KIND) :: attribute_val, extra_state
    call ep_comm_null_delete_fn(win, win_keyval, attribute_val, extra_state, ierror)
  end subroutine ep_win_null_delete_fn

  !> Names this endpoint's window (C: `EP_Win_set_name`; MPI 4.1 section 7.8): trailing
  !> blanks are dropped, the rest kept up to EP_MAX_OBJECT_NAME - 1 characters. Errors:
  !> EP_ERR_WIN.
  recursive subroutine ep_win_set_name(win, win_name, ierror)
    integer, intent(in) :: win
    character(len=*), intent(in) :: win_name
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_set_name(c_arg(win), c_name_of(win_name))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_set_name

  !> This endpoint's window name, blank-padded, and its length (C: `EP_Win_get_name`; MPI 4.1
  !> section 7.8); declare `win_name` of len EP_MAX_OBJECT_NAME. Errors: EP_ERR_WIN.
  recursive subroutine ep_win_get_name(win, win_name, resultlen, ierror)
    integer, intent(in) :: win
    character(len=*), intent(out) :: win_name
    integer, intent(out) :: resultlen
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_len
    character(kind=c_char) :: c_name(EP_MAX_OBJECT_NAME)
    c_len = 0
    c_name = c_null_char
    c_ierror = c_ep_win_get_name(c_arg(win), c_name, c_len)
    call name_from_c(c_name, c_len, win_name, resultlen)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_get_name

  !> Sets hints on this endpoint's window (C: `EP_Win_set_info`; MPI 4.1 section 12.2.7):
  !> accepted and ignored (a window's hints are those given at creation). info: a `use mpi`
  !> info handle or MPI_INFO_NULL. Errors: EP_ERR_WIN.
  recursive subroutine ep_win_set_info(win, info, ierror)
    integer, intent(in) :: win
    integer(mpi_kind), intent(in) :: info
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_set_info(c_arg(win), int(info, c_int))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_set_info

  !> The hints in use on the host window under this endpoint's memory (C: `EP_Win_get_info`;
  !> MPI 4.1 section 12.2.7): a new `use mpi` info object to free with MPI_Info_free. Errors:
  !> EP_ERR_WIN.
  recursive subroutine ep_win_get_info(win, info_used, ierror)
    integer, intent(in) :: win
    integer(mpi_kind), intent(out) :: info_used
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_info
    c_info = int(MPI_INFO_NULL, c_int)
    c_ierror = epmpi_f_win_get_info(c_arg(win), c_info)
    info_used = int(c_info, mpi_kind)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_get_info

  !> Opens an exposure epoch of this endpoint's memory to the endpoints of `group`, a group of
  !> the window's endpoints (C: `EP_Win_post`; MPI 4.1 section 12.5.2); does not block.
  !> assert: 0 or an `ior` of the host's `use mpi` MPI_MODE_NOCHECK, MPI_MODE_NOSTORE,
  !> MPI_MODE_NOPUT. Errors: EP_ERR_WIN, EP_ERR_GROUP, EP_ERR_ARG (other bits),
  !> EP_ERR_RMA_SYNC (already posted, or inside a lock epoch).
  recursive subroutine ep_win_post(group, assert, win, ierror)
    integer, intent(in) :: group
    integer(mpi_kind), intent(in) :: assert
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_post(c_arg(group), int(assert, c_int), c_arg(win), rma_constants)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_post

  !> Opens an access epoch of this endpoint to the endpoints of `group` (C: `EP_Win_start`;
  !> MPI 4.1 section 12.5.2); blocks until each has called `ep_win_post`, unless assert is
  !> MPI_MODE_NOCHECK (0 otherwise). Errors: EP_ERR_WIN, EP_ERR_GROUP, EP_ERR_ARG,
  !> EP_ERR_RMA_SYNC (inside an access epoch).
  recursive subroutine ep_win_start(group, assert, win, ierror)
    integer, intent(in) :: group
    integer(mpi_kind), intent(in) :: assert
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_start(c_arg(group), int(assert, c_int), c_arg(win), rma_constants)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_start

  !> Ends the access epoch of `ep_win_start`: its operations are complete at origin and
  !> targets (C: `EP_Win_complete`; MPI 4.1 section 12.5.2). Errors: EP_ERR_WIN,
  !> EP_ERR_RMA_SYNC (no start).
  recursive subroutine ep_win_complete(win, ierror)
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_complete(c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_complete

  !> Ends the exposure epoch of `ep_win_post` once every origin of its group has completed
  !> (C: `EP_Win_wait`; MPI 4.1 section 12.5.2); blocks. Errors: EP_ERR_WIN, EP_ERR_RMA_SYNC
  !> (no post).
  recursive subroutine ep_win_wait(win, ierror)
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_wait(c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_wait

  !> `ep_win_wait` without blocking (C: `EP_Win_test`; MPI 4.1 section 12.5.2): flag is
  !> .true. when the exposure epoch is over, .false. while it goes on. Errors: EP_ERR_WIN,
  !> EP_ERR_RMA_SYNC (no post).
  recursive subroutine ep_win_test(win, flag, ierror)
    integer, intent(in) :: win
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_flag
    c_flag = 0
    c_ierror = c_ep_win_test(c_arg(win), c_flag)
    flag = c_flag /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_test

  !> Starts a passive-target epoch on endpoint `rank` (C: `EP_Win_lock`; MPI 4.1 section
  !> 12.5.3); may block until granted. lock_type: the host's `use mpi` MPI_LOCK_SHARED or
  !> MPI_LOCK_EXCLUSIVE (an exclusive lock excludes every other endpoint, of this process
  !> too); assert 0 or MPI_MODE_NOCHECK; both of the kind `use mpi` gives them. EP_PROC_NULL
  !> does nothing. Errors: EP_ERR_WIN, EP_ERR_RANK, EP_ERR_LOCKTYPE, EP_ERR_RMA_SYNC (already
  !> locked, or inside `ep_win_lock_all`).
  recursive subroutine ep_win_lock(lock_type, rank, assert, win, ierror)
    integer(mpi_kind), intent(in) :: lock_type, assert
    integer, intent(in) :: rank, win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_lock(int(lock_type, c_int), c_arg(rank), int(assert, c_int), c_arg(win), &
      rma_constants)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_lock

  !> Ends the passive-target epoch on `rank`: every operation this endpoint issued to it is
  !> complete at origin and target (C: `EP_Win_unlock`; MPI 4.1 section 12.5.3).
  !> Errors: EP_ERR_WIN, EP_ERR_RANK, EP_ERR_RMA_SYNC (not locked).
  recursive subroutine ep_win_unlock(rank, win, ierror)
    integer, intent(in) :: rank, win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_unlock(c_arg(rank), c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_unlock

  !> Starts a shared passive-target epoch on every endpoint of the window (C:
  !> `EP_Win_lock_all`; MPI 4.1 section 12.5.3). assert: 0 or MPI_MODE_NOCHECK, as in
  !> `ep_win_lock`. Errors: EP_ERR_WIN, EP_ERR_RMA_SYNC (already in a lock epoch or a start's
  !> access epoch).
  recursive subroutine ep_win_lock_all(assert, win, ierror)
    integer(mpi_kind), intent(in) :: assert
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_win_lock_all(int(assert, c_int), c_arg(win), rma_constants)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_lock_all

  !> Ends the `ep_win_lock_all` epoch (C: `EP_Win_unlock_all`; MPI 4.1 section 12.5.3).
  !> Errors: EP_ERR_WIN, EP_ERR_RMA_SYNC (no lock_all).
  recursive subroutine ep_win_unlock_all(win, ierror)
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_unlock_all(c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_unlock_all

  !> Completes, at origin and target, every operation this endpoint issued to `rank`, inside
  !> a lock or lock_all epoch on it (C: `EP_Win_flush`; MPI 4.1 section 12.5.4).
  !> Errors: EP_ERR_WIN, EP_ERR_RANK, EP_ERR_RMA_SYNC.
  recursive subroutine ep_win_flush(rank, win, ierror)
    integer, intent(in) :: rank, win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_flush(c_arg(rank), c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_flush

  !> `ep_win_flush` of every target this endpoint has locked (C: `EP_Win_flush_all`; MPI 4.1
  !> section 12.5.4). Errors: EP_ERR_WIN.
  recursive subroutine ep_win_flush_all(win, ierror)
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_flush_all(c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_flush_all

  !> Completes at the origin (buffers reusable) the operations this endpoint issued to `rank`
  !> (C: `EP_Win_flush_local`; MPI 4.1 section 12.5.4). Errors as `ep_win_flush`.
  recursive subroutine ep_win_flush_local(rank, win, ierror)
    integer, intent(in) :: rank, win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_flush_local(c_arg(rank), c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_flush_local

  !> `ep_win_flush_local` of every target this endpoint has locked (C:
  !> `EP_Win_flush_local_all`; MPI 4.1 section 12.5.4). Errors: EP_ERR_WIN.
  recursive subroutine ep_win_flush_local_all(win, ierror)
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_flush_local_all(c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_flush_local_all

  !> Synchronises the public and private copies of this endpoint's window memory, a full
  !> memory barrier (C: `EP_Win_sync`; MPI 4.1 section 12.5.4). Errors: EP_ERR_WIN.
  recursive subroutine ep_win_sync(win, ierror)
    integer, intent(in) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_sync(c_arg(win))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_sync

  !> Writes `origin_count` elements of `origin_datatype` from `origin_addr` into endpoint
  !> `target_rank`'s window at displacement `target_disp` (integer(MPI_ADDRESS_KIND), in the
  !> target's displacement units) as `target_count` elements of `target_datatype` (C:
  !> `EP_Put`; MPI 4.1 section 12.3.1). Complete at the next fence, unlock or flush, until
  !> which `origin_addr` (contiguous, asynchronous) must not change. EP_PROC_NULL does nothing.
  !> Errors: EP_ERR_WIN, EP_ERR_RANK, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER (also for a
  !> non-contiguous section), EP_ERR_DISP (negative displacement), EP_ERR_RMA_RANGE (past the
  !> target's window), EP_ERR_RMA_SYNC (outside an access epoch on the target).
  recursive subroutine ep_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, &
      target_count, target_datatype, win, ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr
    integer, intent(in) :: origin_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, target_datatype
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_put(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), c_arg(target_rank), &
      int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), c_arg(win), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_put

  !> Reads `target_count` elements of `target_datatype` at `target_disp` of endpoint
  !> `target_rank`'s window into `origin_addr` (contiguous, asynchronous) as `origin_count`
  !> elements of `origin_datatype` (C: `EP_Get`; MPI 4.1 section 12.3.2); the data is there
  !> after the next fence, unlock or flush. Errors as `ep_put`.
  recursive subroutine ep_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, &
      target_count, target_datatype, win, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: origin_addr
    integer, intent(in) :: origin_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, target_datatype
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_get(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), c_arg(target_rank), &
      int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), c_arg(win), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_get

  !> `ep_put` with a request, inside a passive-target epoch (C: `EP_Rput`; MPI 4.1 section
  !> 12.3.5): completing `request` (out; `ep_wait`, `ep_test`...) makes `origin_addr` reusable;
  !> the data is at the target after a flush or unlock. Errors as `ep_put`.
  recursive subroutine ep_rput(origin_addr, origin_count, origin_datatype, target_rank, target_disp, &
      target_count, target_datatype, win, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr
    integer, intent(in) :: origin_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, target_datatype
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_rput(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), c_arg(target_rank), &
      int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), c_arg(win), c_request, &
      MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_rput

  !> `ep_get` with a request (C: `EP_Rget`; MPI 4.1 section 12.3.5): the data is in
  !> `origin_addr` once `request` (out) completes. Errors as `ep_put`.
  recursive subroutine ep_rget(origin_addr, origin_count, origin_datatype, target_rank, target_disp, &
      target_count, target_datatype, win, request, ierror)
    type(*), dimension(..), intent(inout), asynchronous :: origin_addr
    integer, intent(in) :: origin_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, target_datatype
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_rget(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), c_arg(target_rank), &
      int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), c_arg(win), c_request, &
      MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_rget

  !> Combines the origin data into the target with `op` (C: `EP_Accumulate`; MPI 4.1 section
  !> 12.3.4): a predefined `use mpi` op (MPI_REPLACE included), element-wise atomic against
  !> every other accumulate on the same memory, from endpoints of any process. Arguments
  !> otherwise as `ep_put`. Errors: those of `ep_put`; EP_ERR_OP.
  recursive subroutine ep_accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, &
      target_count, target_datatype, op, win, ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr
    integer, intent(in) :: origin_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, target_datatype, op
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_accumulate(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), &
      c_arg(target_rank), int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), &
      int(op, c_int), c_arg(win), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_accumulate

  !> Fetches the target data into `result_addr` (`result_count` elements of
  !> `result_datatype`), then accumulates the origin data into the target with `op`,
  !> atomically (C: `EP_Get_accumulate`; MPI 4.1 section 12.3.4); MPI_NO_OP only fetches.
  !> Both buffers contiguous and asynchronous; the result is there after the next fence,
  !> unlock or flush. Errors as `ep_accumulate`.
  recursive subroutine ep_get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, &
      result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr
    type(*), dimension(..), intent(inout), asynchronous :: result_addr
    integer, intent(in) :: origin_count, result_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, result_datatype, target_datatype, op
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_get_accumulate(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), &
      result_addr, c_arg(result_count), int(result_datatype, c_int), c_arg(target_rank), &
      int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), int(op, c_int), &
      c_arg(win), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_get_accumulate

  !> `ep_accumulate` with a request, inside a passive-target epoch (C: `EP_Raccumulate`; MPI
  !> 4.1 section 12.3.5): completing `request` makes the origin buffer reusable. Errors as
  !> `ep_accumulate`.
  recursive subroutine ep_raccumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, &
      target_count, target_datatype, op, win, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr
    integer, intent(in) :: origin_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, target_datatype, op
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_raccumulate(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), &
      c_arg(target_rank), int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), &
      int(op, c_int), c_arg(win), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_raccumulate

  !> `ep_get_accumulate` with a request, inside a passive-target epoch (C:
  !> `EP_Rget_accumulate`; MPI 4.1 section 12.3.5): the result is in `result_addr` once
  !> `request` completes. Errors as `ep_get_accumulate`.
  recursive subroutine ep_rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, &
      result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr
    type(*), dimension(..), intent(inout), asynchronous :: result_addr
    integer, intent(in) :: origin_count, result_count, target_rank, target_count, win
    integer(mpi_kind), intent(in) :: origin_datatype, result_datatype, target_datatype, op
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_request
    c_request = EP_REQUEST_NULL
    c_ierror = epmpi_f_rget_accumulate(origin_addr, c_arg(origin_count), int(origin_datatype, c_int), &
      result_addr, c_arg(result_count), int(result_datatype, c_int), c_arg(target_rank), &
      int(target_disp, c_intptr_t), c_arg(target_count), int(target_datatype, c_int), int(op, c_int), &
      c_arg(win), c_request, MPI_BOTTOM)
    request = int(c_request)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_rget_accumulate

  !> One-element `ep_get_accumulate` (C: `EP_Fetch_and_op`; MPI 4.1 section 12.3.4): the old
  !> target element goes to `result_addr`, the target becomes `old op origin`. datatype: a
  !> predefined `use mpi` type (MPI_INTEGER8, MPI_AINT for integer(MPI_ADDRESS_KIND)...);
  !> op: MPI_SUM, MPI_REPLACE, MPI_NO_OP (origin not read) or another predefined op.
  !> Errors as `ep_accumulate`.
  recursive subroutine ep_fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win, &
      ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr
    type(*), dimension(..), intent(inout), asynchronous :: result_addr
    integer, intent(in) :: target_rank, win
    integer(mpi_kind), intent(in) :: datatype, op
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_fetch_and_op(origin_addr, result_addr, int(datatype, c_int), c_arg(target_rank), &
      int(target_disp, c_intptr_t), int(op, c_int), c_arg(win), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_fetch_and_op

  !> Atomically replaces the target element with `origin_addr` if it equals `compare_addr`;
  !> the old element goes to `result_addr` either way (C: `EP_Compare_and_swap`; MPI 4.1
  !> section 12.3.4). datatype: a predefined integer, logical or byte type of `use mpi`.
  !> Errors as `ep_put`.
  recursive subroutine ep_compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, &
      target_disp, win, ierror)
    type(*), dimension(..), intent(in), asynchronous :: origin_addr, compare_addr
    type(*), dimension(..), intent(inout), asynchronous :: result_addr
    integer, intent(in) :: target_rank, win
    integer(mpi_kind), intent(in) :: datatype
    integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = epmpi_f_compare_and_swap(origin_addr, compare_addr, result_addr, int(datatype, c_int), &
      c_arg(target_rank), int(target_disp, c_intptr_t), c_arg(win), MPI_BOTTOM)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_compare_and_swap

  !> Sets the error handler of this endpoint's window handle (C: `EP_Win_set_errhandler`; MPI
  !> 4.1 section 9.3.2): EP_ERRORS_ARE_FATAL or EP_ERRORS_RETURN. A window starts with the
  !> handler of the communicator endpoint that created it. Errors: EP_ERR_WIN, EP_ERR_ARG.
  recursive subroutine ep_win_set_errhandler(win, errhandler, ierror)
    integer, intent(in) :: win, errhandler
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_win_set_errhandler(c_arg(win), c_arg(errhandler))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_set_errhandler

  !> Reads the error handler of a window handle (C: `EP_Win_get_errhandler`; MPI 4.1 section
  !> 9.3.2). Errors: EP_ERR_WIN.
  recursive subroutine ep_win_get_errhandler(win, errhandler, ierror)
    integer, intent(in) :: win
    integer, intent(out) :: errhandler
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_handler
    c_handler = EP_ERRORS_ARE_FATAL
    c_ierror = c_ep_win_get_errhandler(c_arg(win), c_handler)
    errhandler = int(c_handler)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_get_errhandler

  ! Shared-memory windows and window attributes

  !> Allocates `size` bytes on each endpoint in memory every endpoint of `comm` can load and
  !> store, and creates a window over it (C: `EP_Win_allocate_shared`; MPI 4.1 section 12.2.3,
  !> the `ISO_C_BINDING` form of `MPI_Win_allocate_shared`): `baseptr` (out, type(c_ptr)) is
  !> this endpoint's segment, to map with `c_f_pointer`; `ep_win_shared_query` gives the others'.
  !> Contiguous in rank order unless `info` sets `alloc_shared_noncontig` to "true" on every
  !> endpoint. Endpoints of several processes need those processes on one node (under Open MPI
  !> with its `sm` one-sided component allowed, e.g. `OMPI_MCA_osc=ucx,sm`).
  !> Errors: those of `ep_win_create`; EP_ERR_COMM also when the processes cannot share memory.
  recursive subroutine ep_win_allocate_shared(size, disp_unit, info, comm, baseptr, win, ierror)
    integer(MPI_ADDRESS_KIND), intent(in) :: size
    integer, intent(in) :: disp_unit, comm
    integer(mpi_kind), intent(in) :: info
    type(c_ptr), intent(out) :: baseptr
    integer, intent(out) :: win
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_win
    c_win = EP_WIN_NULL
    baseptr = c_null_ptr
    c_ierror = epmpi_f_win_allocate_shared(int(size, c_intptr_t), c_arg(disp_unit), int(info, c_int), c_arg(comm), &
      baseptr, c_win)
    win = int(c_win)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_allocate_shared

  !> Where endpoint `rank`'s memory of the window is for this endpoint's loads and stores (C:
  !> `EP_Win_shared_query`; MPI 4.1 section 12.2.3): `size` (bytes), `disp_unit` and `baseptr`
  !> (type(c_ptr)); `rank` EP_PROC_NULL names the lowest rank with memory. Memory this endpoint
  !> cannot reach (other processes' outside shared windows, dynamic windows) gives size 0 and
  !> c_null_ptr. Errors: EP_ERR_WIN, EP_ERR_RANK.
  recursive subroutine ep_win_shared_query(win, rank, size, disp_unit, baseptr, ierror)
    integer, intent(in) :: win, rank
    integer(MPI_ADDRESS_KIND), intent(out) :: size
    integer, intent(out) :: disp_unit
    type(c_ptr), intent(out) :: baseptr
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_unit
    integer(c_intptr_t) :: c_size
    c_size = 0
    c_unit = 1
    baseptr = c_null_ptr
    c_ierror = c_ep_win_shared_query(c_arg(win), c_arg(rank), c_size, c_unit, baseptr)
    size = int(c_size, MPI_ADDRESS_KIND)
    disp_unit = int(c_unit)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_shared_query

  !> Reads a window attribute (C: `EP_Win_get_attr`; MPI 4.1 sections 7.7.3, 12.2.6 and 12.4),
  !> as MPI's Fortran binding does: `attribute_val` (integer(MPI_ADDRESS_KIND), out) receives
  !> the value itself: for EP_WIN_BASE the address, for EP_WIN_SIZE the bytes, for
  !> EP_WIN_DISP_UNIT the unit, for EP_WIN_CREATE_FLAVOR an EP_WIN_FLAVOR_*, for EP_WIN_MODEL
  !> EP_WIN_UNIFIED or EP_WIN_SEPARATE, for a keyval of ep_win_create_keyval the value
  !> ep_win_set_attr stored; `flag` .true. when set. Errors: EP_ERR_WIN, EP_ERR_KEYVAL.
  recursive subroutine ep_win_get_attr(win, win_keyval, attribute_val, flag, ierror)
    integer, intent(in) :: win, win_keyval
    integer(MPI_ADDRESS_KIND), intent(out) :: attribute_val
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_flag
    type(c_ptr) :: c_value
    integer(c_int), pointer :: int_value
    integer(c_intptr_t), pointer :: aint_value
    c_flag = 0
    c_value = c_null_ptr
    attribute_val = 0
    c_ierror = c_ep_win_get_attr(c_arg(win), c_arg(win_keyval), c_value, c_flag)
    flag = c_ierror == EP_SUCCESS .and. c_flag /= 0
    if (flag) then
      if (win_keyval == EP_WIN_BASE .or. .not. any(win_keyval == [EP_WIN_SIZE, EP_WIN_DISP_UNIT, &
          EP_WIN_CREATE_FLAVOR, EP_WIN_MODEL])) then
        ! The base address, and the attributes of keyvals, stored by value (ep_win_set_attr).
        attribute_val = int(transfer(c_value, 0_c_intptr_t), MPI_ADDRESS_KIND)
      else if (win_keyval == EP_WIN_SIZE) then
        call c_f_pointer(c_value, aint_value)
        attribute_val = int(aint_value, MPI_ADDRESS_KIND)
      else
        call c_f_pointer(c_value, int_value)
        attribute_val = int(int_value, MPI_ADDRESS_KIND)
      end if
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_win_get_attr

  ! ==========================================================================================
  ! Errors, abort, time, version (MPI 4.1 chapters 9 and 11)
  ! ==========================================================================================

  !> The message of an error code (C: `EP_Error_string`; MPI 4.1 section 9.4): for codes
  !> returned by EPMPI, the call and the cause. string: character(len=EP_MAX_ERROR_STRING)
  !> (out, blank-padded, cut to its length); resultlen (out): characters written.
  !> Errors: EP_ERR_ARG (not an error code).
  recursive subroutine ep_error_string(errorcode, string, resultlen, ierror)
    integer, intent(in) :: errorcode
    character(len=*), intent(out) :: string
    integer, intent(out) :: resultlen
    integer, intent(out), optional :: ierror
    character(kind=c_char) :: c_string(EP_MAX_ERROR_STRING)
    integer(c_int) :: c_ierror, c_length
    c_length = 0
    c_ierror = c_ep_error_string(c_arg(errorcode), c_string, c_length)
    if (c_ierror /= EP_SUCCESS) c_length = 0
    call c_text_to_fortran(c_string, c_length, string, resultlen)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_error_string

  !> The class (EP_SUCCESS or an EP_ERR_*) of an error code (C: `EP_Error_class`; MPI 4.1
  !> section 9.5). Errors: EP_ERR_ARG (not an error code).
  recursive subroutine ep_error_class(errorcode, errorclass, ierror)
    integer, intent(in) :: errorcode
    integer, intent(out) :: errorclass
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_class
    c_class = EP_ERR_ARG
    c_ierror = c_ep_error_class(c_arg(errorcode), c_class)
    errorclass = int(c_class)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_error_class

  !> Aborts every process of the job with `errorcode`, printing which endpoint asked (C:
  !> `EP_Abort`; MPI 4.1 section 11.5). `comm` may be any handle. Does not return.
  recursive subroutine ep_abort(comm, errorcode, ierror)
    integer, intent(in) :: comm, errorcode
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_abort(c_arg(comm), c_arg(errorcode))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_abort

  !> Wall-clock time in seconds since an arbitrary point in the past (C: `EP_Wtime`, the
  !> host's MPI_Wtime; MPI 4.1 section 9.6). Always real(c_double), whatever the default
  !> real kind.
  recursive function ep_wtime() result(seconds)
    real(c_double) :: seconds
    seconds = c_ep_wtime()
  end function ep_wtime

  !> "EPMPI <version> on <host MPI version>" (C: `EP_Get_library_version`; MPI 4.1 section
  !> 9.1.1). version: character(len=EP_MAX_ERROR_STRING) (out, blank-padded); resultlen
  !> (out): characters written.
  recursive subroutine ep_get_library_version(version, resultlen, ierror)
    character(len=*), intent(out) :: version
    integer, intent(out) :: resultlen
    integer, intent(out), optional :: ierror
    character(kind=c_char) :: c_version(EP_MAX_ERROR_STRING)
    integer(c_int) :: c_ierror, c_length
    c_length = 0
    c_ierror = c_ep_get_library_version(c_version, c_length)
    if (c_ierror /= EP_SUCCESS) c_length = 0
    call c_text_to_fortran(c_version, c_length, version, resultlen)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_get_library_version

  !> Live handles of this process: communicator endpoints, requests and matched messages
  !> (C: `EP_Debug_live_handles`; EPMPI extension, for leak checks).
  recursive subroutine ep_debug_live_handles(comms, requests, messages, ierror)
    integer, intent(out) :: comms, requests, messages
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_comms, c_requests, c_messages
    c_comms = 0
    c_requests = 0
    c_messages = 0
    c_ierror = c_ep_debug_live_handles(c_comms, c_requests, c_messages)
    comms = int(c_comms)
    requests = int(c_requests)
    messages = int(c_messages)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_debug_live_handles

  !> Live engine objects of this process: shared states of communicators, request objects,
  !> shared states of windows; all 0 once everything is freed (C: `EP_Debug_live_objects`;
  !> EPMPI extension, for leak checks).
  recursive subroutine ep_debug_live_objects(comm_states, requests, win_states, ierror)
    integer, intent(out) :: comm_states, requests, win_states
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_comm_states, c_requests, c_win_states
    c_comm_states = 0
    c_requests = 0
    c_win_states = 0
    c_ierror = c_ep_debug_live_objects(c_comm_states, c_requests, c_win_states)
    comm_states = int(c_comm_states)
    requests = int(c_requests)
    win_states = int(c_win_states)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_debug_live_objects

  !> Live window handles of this process, one per endpoint per window (C:
  !> `EP_Debug_live_windows`; EPMPI extension, for leak checks).
  recursive subroutine ep_debug_live_windows(windows, ierror)
    integer, intent(out) :: windows
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_windows
    c_windows = 0
    c_ierror = c_ep_debug_live_windows(c_windows)
    windows = int(c_windows)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_debug_live_windows

  ! ==========================================================================================
  ! Process topologies and neighbourhood collectives (MPI 4.1 chapter 8): ranks are endpoint
  ! ranks; periods, reorder and remain_dims are logicals as in `use mpi`
  ! ==========================================================================================

  !> Makes a communicator with a Cartesian topology of `ndims` dimensions `dims(1:ndims)`,
  !> periodic where `periods(d)` (C: `EP_Cart_create`; MPI 4.1 section 8.5.1). Ranks
  !> 0..product(dims)-1 form the grid (row-major, ranks kept whatever `reorder` says); the
  !> others get EP_COMM_NULL. Errors: EP_ERR_DIMS, EP_ERR_ARG, EP_ERR_COMM; a bad argument on
  !> any endpoint fails the call on every endpoint.
  recursive subroutine ep_cart_create(comm_old, ndims, dims, periods, reorder, comm_cart, ierror)
    integer, intent(in) :: comm_old, ndims
    integer, dimension(*), intent(in) :: dims
    logical, dimension(*), intent(in) :: periods
    logical, intent(in) :: reorder
    integer, intent(out) :: comm_cart
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_comm, c_dims(max(ndims, 1)), c_periods(max(ndims, 1))
    c_comm = EP_COMM_NULL
    c_dims = 0
    c_periods = 0
    if (ndims > 0) then
      c_dims(1:ndims) = c_arg(dims(1:ndims))
      c_periods(1:ndims) = merge(1_c_int, 0_c_int, periods(1:ndims))
    end if
    c_ierror = c_ep_cart_create(c_arg(comm_old), c_arg(ndims), c_dims, c_periods, &
      merge(1_c_int, 0_c_int, reorder), c_comm)
    comm_cart = int(c_comm)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cart_create

  !> Fills the zero entries of `dims(1:ndims)` with a balanced grid of `nnodes` ranks,
  !> non-increasing (C: `EP_Dims_create`; MPI 4.1 section 8.5.2). Errors: EP_ERR_ARG,
  !> EP_ERR_DIMS.
  recursive subroutine ep_dims_create(nnodes, ndims, dims, ierror)
    integer, intent(in) :: nnodes, ndims
    integer, dimension(*), intent(inout) :: dims
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_dims(max(ndims, 1))
    c_dims = 0
    if (ndims > 0) c_dims(1:ndims) = c_arg(dims(1:ndims))
    c_ierror = c_ep_dims_create(c_arg(nnodes), c_arg(ndims), c_dims)
    if (c_ierror == EP_SUCCESS .and. ndims > 0) dims(1:ndims) = int(c_dims(1:ndims))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_dims_create

  !> Coordinates of `rank`, `min(maxdims, ndims)` of them (C: `EP_Cart_coords`; MPI 4.1
  !> section 8.5.5). Errors: EP_ERR_TOPOLOGY, EP_ERR_RANK, EP_ERR_ARG.
  recursive subroutine ep_cart_coords(comm, rank, maxdims, coords, ierror)
    integer, intent(in) :: comm, rank, maxdims
    integer, dimension(*), intent(inout) :: coords
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_coords(max(maxdims, 1))
    c_coords = 0
    c_ierror = c_ep_cart_coords(c_arg(comm), c_arg(rank), c_arg(maxdims), c_coords)
    if (c_ierror == EP_SUCCESS .and. maxdims > 0) coords(1:maxdims) = int(c_coords(1:maxdims))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cart_coords

  !> Number of dimensions of the communicator's grid, 0 when it has no Cartesian topology
  !> (the C call then reports the error).
  recursive function cart_ndims(comm) result(n)
    integer, intent(in) :: comm
    integer :: n
    integer(c_int) :: c_n, status
    c_n = 0
    status = EP_UNDEFINED
    n = 0
    if (c_ep_topo_test(c_arg(comm), status) /= EP_SUCCESS .or. status /= EP_CART) return
    if (c_ep_cartdim_get(c_arg(comm), c_n) == EP_SUCCESS) n = int(c_n)
  end function cart_ndims

  !> Rank at `coords(1:ndims)`; periodic dimensions wrap around (C: `EP_Cart_rank`; MPI 4.1
  !> section 8.5.5). Errors: EP_ERR_TOPOLOGY, EP_ERR_ARG (outside a non-periodic dimension).
  recursive subroutine ep_cart_rank(comm, coords, rank, ierror)
    integer, intent(in) :: comm
    integer, dimension(*), intent(in) :: coords
    integer, intent(out) :: rank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_rank
    integer(c_int), allocatable :: c_coords(:)
    integer :: n
    n = cart_ndims(comm)
    allocate(c_coords(max(n, 1)))
    c_coords = 0
    if (n > 0) c_coords(1:n) = c_arg(coords(1:n))
    c_rank = EP_PROC_NULL
    c_ierror = c_ep_cart_rank(c_arg(comm), c_coords, c_rank)
    rank = int(c_rank)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cart_rank

  !> Source and destination of a shift by `disp` along dimension `direction` (0-based, as in
  !> MPI's Fortran); EP_PROC_NULL past a non-periodic edge (C: `EP_Cart_shift`; MPI 4.1
  !> section 8.5.6). Errors: EP_ERR_TOPOLOGY, EP_ERR_DIMS.
  recursive subroutine ep_cart_shift(comm, direction, disp, rank_source, rank_dest, ierror)
    integer, intent(in) :: comm, direction, disp
    integer, intent(out) :: rank_source, rank_dest
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_source, c_dest
    c_source = EP_PROC_NULL
    c_dest = EP_PROC_NULL
    c_ierror = c_ep_cart_shift(c_arg(comm), c_arg(direction), c_arg(disp), c_source, c_dest)
    rank_source = int(c_source)
    rank_dest = int(c_dest)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cart_shift

  !> Subgrids keeping the dimensions where `remain_dims(d)` (C: `EP_Cart_sub`; MPI 4.1
  !> section 8.5.7). Collective. Errors: EP_ERR_TOPOLOGY, EP_ERR_ARG.
  recursive subroutine ep_cart_sub(comm, remain_dims, newcomm, ierror)
    integer, intent(in) :: comm
    logical, dimension(*), intent(in) :: remain_dims
    integer, intent(out) :: newcomm
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    integer(c_int), allocatable :: c_remain(:)
    integer :: n
    n = cart_ndims(comm)
    allocate(c_remain(max(n, 1)))
    c_remain = 0
    if (n > 0) c_remain(1:n) = merge(1_c_int, 0_c_int, remain_dims(1:n))
    c_new = EP_COMM_NULL
    c_ierror = c_ep_cart_sub(c_arg(comm), c_remain, c_new)
    newcomm = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cart_sub

  !> Extents, periods and this endpoint's coordinates, `min(maxdims, ndims)` each (C:
  !> `EP_Cart_get`; MPI 4.1 section 8.5.5). Errors: EP_ERR_TOPOLOGY, EP_ERR_ARG.
  recursive subroutine ep_cart_get(comm, maxdims, dims, periods, coords, ierror)
    integer, intent(in) :: comm, maxdims
    integer, dimension(*), intent(inout) :: dims, coords
    logical, dimension(*), intent(inout) :: periods
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_dims(max(maxdims, 1)), c_periods(max(maxdims, 1)), c_coords(max(maxdims, 1))
    integer :: n
    c_dims = 0
    c_periods = 0
    c_coords = 0
    c_ierror = c_ep_cart_get(c_arg(comm), c_arg(maxdims), c_dims, c_periods, c_coords)
    n = min(maxdims, cart_ndims(comm))
    if (c_ierror == EP_SUCCESS .and. n > 0) then
      dims(1:n) = int(c_dims(1:n))
      periods(1:n) = c_periods(1:n) /= 0
      coords(1:n) = int(c_coords(1:n))
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cart_get

  !> Number of dimensions of a Cartesian communicator (C: `EP_Cartdim_get`; MPI 4.1 section
  !> 8.5.5). Errors: EP_ERR_TOPOLOGY.
  recursive subroutine ep_cartdim_get(comm, ndims, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: ndims
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_n
    c_n = 0
    c_ierror = c_ep_cartdim_get(c_arg(comm), c_n)
    ndims = int(c_n)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cartdim_get

  !> EP_CART, EP_GRAPH, EP_DIST_GRAPH or EP_UNDEFINED (C: `EP_Topo_test`; MPI 4.1 section
  !> 8.5.5).
  recursive subroutine ep_topo_test(comm, status, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: status
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_status
    c_status = EP_UNDEFINED
    c_ierror = c_ep_topo_test(c_arg(comm), c_status)
    status = int(c_status)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_topo_test

  !> The graph arguments of `ep_graph_create` and `ep_graph_map` as C ints: `index(1:nnodes)`
  !> and the `index(nnodes)` edges.
  recursive subroutine graph_args(nnodes, index, edges, c_index, c_edges)
    integer, intent(in) :: nnodes
    integer, dimension(*), intent(in) :: index, edges
    integer(c_int), allocatable, intent(out) :: c_index(:), c_edges(:)
    integer :: total
    total = 0
    if (nnodes > 0) total = max(index(nnodes), 0)
    allocate(c_index(max(nnodes, 1)), c_edges(max(total, 1)))
    c_index = 0
    c_edges = 0
    if (nnodes > 0) c_index(1:nnodes) = c_arg(index(1:nnodes))
    if (total > 0) c_edges(1:total) = c_arg(edges(1:total))
  end subroutine graph_args

  !> Makes a communicator with a graph topology every rank gives whole: node r's neighbours
  !> are `edges(index(r)+1:index(r+1))` (0-based r, `index(0)` = 0) (C: `EP_Graph_create`;
  !> MPI 4.1 section 8.5.3). Ranks 0..nnodes-1 are the nodes (ranks kept), the others get
  !> EP_COMM_NULL. Errors: EP_ERR_ARG, EP_ERR_RANK; a bad argument on any endpoint fails
  !> the call on every endpoint.
  recursive subroutine ep_graph_create(comm_old, nnodes, index, edges, reorder, comm_graph, ierror)
    integer, intent(in) :: comm_old, nnodes
    integer, dimension(*), intent(in) :: index, edges
    logical, intent(in) :: reorder
    integer, intent(out) :: comm_graph
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    integer(c_int), allocatable :: c_index(:), c_edges(:)
    call graph_args(nnodes, index, edges, c_index, c_edges)
    c_new = EP_COMM_NULL
    c_ierror = c_ep_graph_create(c_arg(comm_old), c_arg(nnodes), c_index, c_edges, merge(1_c_int, 0_c_int, reorder), &
      c_new)
    comm_graph = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_graph_create

  !> Number of nodes and edges of a graph communicator (C: `EP_Graphdims_get`; MPI 4.1
  !> section 8.5.5). Errors: EP_ERR_TOPOLOGY.
  recursive subroutine ep_graphdims_get(comm, nnodes, nedges, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: nnodes, nedges
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_n, c_e
    c_n = 0
    c_e = 0
    c_ierror = c_ep_graphdims_get(c_arg(comm), c_n, c_e)
    nnodes = int(c_n)
    nedges = int(c_e)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_graphdims_get

  !> The first `maxindex` entries of `index` and `maxedges` of `edges` of a graph
  !> communicator (C: `EP_Graph_get`; MPI 4.1 section 8.5.5). Errors: EP_ERR_TOPOLOGY,
  !> EP_ERR_ARG.
  recursive subroutine ep_graph_get(comm, maxindex, maxedges, index, edges, ierror)
    integer, intent(in) :: comm, maxindex, maxedges
    integer, dimension(*), intent(inout) :: index, edges
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_index(max(maxindex, 1)), c_edges(max(maxedges, 1))
    c_index = 0
    c_edges = 0
    c_ierror = c_ep_graph_get(c_arg(comm), c_arg(maxindex), c_arg(maxedges), c_index, c_edges)
    if (c_ierror == EP_SUCCESS .and. maxindex > 0) index(1:maxindex) = int(c_index(1:maxindex))
    if (c_ierror == EP_SUCCESS .and. maxedges > 0) edges(1:maxedges) = int(c_edges(1:maxedges))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_graph_get

  !> Number of neighbours of `rank` in a graph communicator (C: `EP_Graph_neighbors_count`;
  !> MPI 4.1 section 8.5.5). Errors: EP_ERR_TOPOLOGY, EP_ERR_RANK.
  recursive subroutine ep_graph_neighbors_count(comm, rank, nneighbors, ierror)
    integer, intent(in) :: comm, rank
    integer, intent(out) :: nneighbors
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_n
    c_n = 0
    c_ierror = c_ep_graph_neighbors_count(c_arg(comm), c_arg(rank), c_n)
    nneighbors = int(c_n)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_graph_neighbors_count

  !> The first `maxneighbors` neighbours of `rank`, in the order given (C:
  !> `EP_Graph_neighbors`; MPI 4.1 section 8.5.5). Errors: EP_ERR_TOPOLOGY, EP_ERR_RANK.
  recursive subroutine ep_graph_neighbors(comm, rank, maxneighbors, neighbors, ierror)
    integer, intent(in) :: comm, rank, maxneighbors
    integer, dimension(*), intent(inout) :: neighbors
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_nb(max(maxneighbors, 1))
    c_nb = 0
    c_ierror = c_ep_graph_neighbors(c_arg(comm), c_arg(rank), c_arg(maxneighbors), c_nb)
    if (c_ierror == EP_SUCCESS .and. maxneighbors > 0) neighbors(1:maxneighbors) = int(c_nb(1:maxneighbors))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_graph_neighbors

  !> This endpoint's rank in a grid of `dims(1:ndims)`: its own rank below the grid's size,
  !> EP_UNDEFINED otherwise (C: `EP_Cart_map`; MPI 4.1 section 8.5.8). Errors: EP_ERR_DIMS.
  recursive subroutine ep_cart_map(comm, ndims, dims, periods, newrank, ierror)
    integer, intent(in) :: comm, ndims
    integer, dimension(*), intent(in) :: dims
    logical, dimension(*), intent(in) :: periods
    integer, intent(out) :: newrank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new, c_dims(max(ndims, 1)), c_periods(max(ndims, 1))
    c_dims = 0
    c_periods = 0
    if (ndims > 0) then
      c_dims(1:ndims) = c_arg(dims(1:ndims))
      c_periods(1:ndims) = merge(1_c_int, 0_c_int, periods(1:ndims))
    end if
    c_new = EP_UNDEFINED
    c_ierror = c_ep_cart_map(c_arg(comm), c_arg(ndims), c_dims, c_periods, c_new)
    newrank = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_cart_map

  !> This endpoint's rank in a graph of `nnodes` nodes: its own rank below `nnodes`,
  !> EP_UNDEFINED otherwise (C: `EP_Graph_map`; MPI 4.1 section 8.5.8). Errors: EP_ERR_ARG,
  !> EP_ERR_RANK.
  recursive subroutine ep_graph_map(comm, nnodes, index, edges, newrank, ierror)
    integer, intent(in) :: comm, nnodes
    integer, dimension(*), intent(in) :: index, edges
    integer, intent(out) :: newrank
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new
    integer(c_int), allocatable :: c_index(:), c_edges(:)
    call graph_args(nnodes, index, edges, c_index, c_edges)
    c_new = EP_UNDEFINED
    c_ierror = c_ep_graph_map(c_arg(comm), c_arg(nnodes), c_index, c_edges, c_new)
    newrank = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_graph_map

  !> Weights for C: EP_UNWEIGHTED, EP_WEIGHTS_EMPTY (by the address of the module's
  !> variables), or the address of `copy`, which receives the first `n` of `w`.
  recursive function c_weights(w, n, copy) result(p)
    integer, dimension(*), intent(in), target :: w
    integer, intent(in) :: n
    integer(c_int), dimension(*), intent(inout), target :: copy
    type(c_ptr) :: p
    if (c_associated(c_loc(w(1)), c_loc(EP_UNWEIGHTED))) then
      p = transfer(2_c_intptr_t, p)
    else if (c_associated(c_loc(w(1)), c_loc(EP_WEIGHTS_EMPTY))) then
      p = transfer(3_c_intptr_t, p)
    else
      if (n > 0) copy(1:n) = c_arg(w(1:n))
      p = c_loc(copy(1))
    end if
  end function c_weights

  !> Makes a communicator with a distributed graph topology from each endpoint's own edges:
  !> `sources(1:indegree)` and `destinations(1:outdegree)`, with weights or EP_UNWEIGHTED
  !> (EP_WEIGHTS_EMPTY for a weighted side of degree 0) (C: `EP_Dist_graph_create_adjacent`;
  !> MPI 4.1 section 8.5.4). Ranks kept. Errors: EP_ERR_ARG, EP_ERR_RANK; a bad argument on
  !> any endpoint fails the call on every endpoint.
  recursive subroutine ep_dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, &
      outdegree, destinations, destweights, info, reorder, comm_dist_graph, ierror)
    integer, intent(in) :: comm_old, indegree, outdegree
    integer, dimension(*), intent(in) :: sources, destinations
    integer, dimension(*), intent(in), target :: sourceweights, destweights
    integer(mpi_kind), intent(in) :: info
    logical, intent(in) :: reorder
    integer, intent(out) :: comm_dist_graph
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new, c_sources(max(indegree, 1)), c_dests(max(outdegree, 1))
    integer(c_int), target :: c_sw(max(indegree, 1)), c_dw(max(outdegree, 1))
    c_sources = 0
    c_dests = 0
    c_sw = 0
    c_dw = 0
    if (indegree > 0) c_sources(1:indegree) = c_arg(sources(1:indegree))
    if (outdegree > 0) c_dests(1:outdegree) = c_arg(destinations(1:outdegree))
    c_new = EP_COMM_NULL
    c_ierror = epmpi_f_dist_graph_create_adjacent(c_arg(comm_old), c_arg(indegree), c_sources, &
      c_weights(sourceweights, indegree, c_sw), c_arg(outdegree), c_dests, c_weights(destweights, outdegree, c_dw), &
      int(info, c_int), merge(1_c_int, 0_c_int, reorder), c_new)
    comm_dist_graph = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_dist_graph_create_adjacent

  !> Makes a communicator with a distributed graph topology from edges any endpoint may give:
  !> for each i in 1..n, edges from `sources(i)` to the next `degrees(i)` entries of
  !> `destinations`, with as many `weights` (or EP_UNWEIGHTED, or EP_WEIGHTS_EMPTY for no
  !> edge of a weighted graph) (C: `EP_Dist_graph_create`; MPI 4.1 section 8.5.3). Each
  !> endpoint's neighbours come in the order of the ranks that gave the edges, then the
  !> order given. Errors: EP_ERR_ARG, EP_ERR_RANK; a bad argument on any endpoint fails the
  !> call on every endpoint.
  recursive subroutine ep_dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, &
      reorder, comm_dist_graph, ierror)
    integer, intent(in) :: comm_old, n
    integer, dimension(*), intent(in) :: sources, degrees, destinations
    integer, dimension(*), intent(in), target :: weights
    integer(mpi_kind), intent(in) :: info
    logical, intent(in) :: reorder
    integer, intent(out) :: comm_dist_graph
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_new, c_sources(max(n, 1)), c_degrees(max(n, 1))
    integer(c_int), allocatable :: c_dests(:)
    integer(c_int), allocatable, target :: c_w(:)
    integer :: total
    c_sources = 0
    c_degrees = 0
    total = 0
    if (n > 0) then
      c_sources(1:n) = c_arg(sources(1:n))
      c_degrees(1:n) = c_arg(degrees(1:n))
      total = int(sum(max(c_degrees(1:n), 0_c_int)))
    end if
    allocate(c_dests(max(total, 1)), c_w(max(total, 1)))
    c_dests = 0
    c_w = 0
    if (total > 0) c_dests(1:total) = c_arg(destinations(1:total))
    c_new = EP_COMM_NULL
    c_ierror = epmpi_f_dist_graph_create(c_arg(comm_old), c_arg(n), c_sources, c_degrees, c_dests, &
      c_weights(weights, total, c_w), int(info, c_int), merge(1_c_int, 0_c_int, reorder), c_new)
    comm_dist_graph = int(c_new)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_dist_graph_create

  !> This endpoint's in- and out-degree, and whether the graph is weighted (C:
  !> `EP_Dist_graph_neighbors_count`; MPI 4.1 section 8.5.5). Errors: EP_ERR_TOPOLOGY.
  recursive subroutine ep_dist_graph_neighbors_count(comm, indegree, outdegree, weighted, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: indegree, outdegree
    logical, intent(out) :: weighted
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_in, c_out, c_w
    c_in = 0
    c_out = 0
    c_w = 0
    c_ierror = c_ep_dist_graph_neighbors_count(c_arg(comm), c_in, c_out, c_w)
    indegree = int(c_in)
    outdegree = int(c_out)
    weighted = c_w /= 0
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_dist_graph_neighbors_count

  !> This endpoint's edges in the order it gave them: up to `maxindegree` sources and
  !> `maxoutdegree` destinations, with their weights unless EP_UNWEIGHTED is passed (C:
  !> `EP_Dist_graph_neighbors`; MPI 4.1 section 8.5.5). Errors: EP_ERR_TOPOLOGY, EP_ERR_ARG.
  recursive subroutine ep_dist_graph_neighbors(comm, maxindegree, sources, sourceweights, maxoutdegree, &
      destinations, destweights, ierror)
    integer, intent(in) :: comm, maxindegree, maxoutdegree
    integer, dimension(*), intent(inout) :: sources, destinations
    integer, dimension(*), intent(inout), target :: sourceweights, destweights
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_sources(max(maxindegree, 1)), c_dests(max(maxoutdegree, 1))
    integer(c_int), target :: c_sw(max(maxindegree, 1)), c_dw(max(maxoutdegree, 1))
    type(c_ptr) :: sw, dw
    c_sources = 0
    c_dests = 0
    c_sw = 0
    c_dw = 0
    sw = c_loc(c_sw(1))
    dw = c_loc(c_dw(1))
    if (c_associated(c_loc(sourceweights(1)), c_loc(EP_UNWEIGHTED))) sw = transfer(2_c_intptr_t, sw)
    if (c_associated(c_loc(destweights(1)), c_loc(EP_UNWEIGHTED))) dw = transfer(2_c_intptr_t, dw)
    c_ierror = c_ep_dist_graph_neighbors(c_arg(comm), c_arg(maxindegree), c_sources, sw, c_arg(maxoutdegree), &
      c_dests, dw)
    if (c_ierror == EP_SUCCESS) then
      if (maxindegree > 0) sources(1:maxindegree) = int(c_sources(1:maxindegree))
      if (maxoutdegree > 0) destinations(1:maxoutdegree) = int(c_dests(1:maxoutdegree))
      if (maxindegree > 0 .and. c_associated(sw, c_loc(c_sw(1)))) &
        sourceweights(1:maxindegree) = int(c_sw(1:maxindegree))
      if (maxoutdegree > 0 .and. c_associated(dw, c_loc(c_dw(1)))) &
        destweights(1:maxoutdegree) = int(c_dw(1:maxoutdegree))
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_dist_graph_neighbors

  !> Every neighbourhood collective (`kind`: 0 allgather, 1 allgatherv, 2 alltoall,
  !> 3 alltoallv, 4 alltoallw; the arguments a kind does not use are placeholders), blocking
  !> without `request`, persistent with `info`.
  recursive subroutine neighbor_call(kind, sendbuf, sendcount, sendcounts, sdispls, sendtypes, sendtype, &
      recvbuf, recvcount, recvcounts, rdispls, recvtypes, recvtype, count_bytes, comm, ierror, request, info)
    integer(c_int), intent(in) :: kind, count_bytes
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    type(*), dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer(mpi_kind), dimension(*), intent(in) :: sendtypes, recvtypes
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror, request
    integer(mpi_kind), intent(in), optional :: info
    integer(c_int) :: c_ierror, c_request, mode, c_info
    c_request = EP_REQUEST_NULL
    mode = 0_c_int
    c_info = 0_c_int
    if (present(request)) mode = 1_c_int
    if (present(info)) then
      mode = 2_c_int
      c_info = int(info, c_int)
    end if
    if (present(request)) then
      c_ierror = epmpi_f_neighbor(kind, mode, sendbuf, c_arg(sendcount), sendcounts, sdispls, sendtypes, &
        int(sendtype, c_int), recvbuf, c_arg(recvcount), recvcounts, rdispls, recvtypes, int(recvtype, c_int), &
        count_bytes, c_arg(comm), c_info, c_request, MPI_BOTTOM)
      request = int(c_request)
    else
      c_ierror = epmpi_f_neighbor(kind, mode, sendbuf, c_arg(sendcount), sendcounts, sdispls, sendtypes, &
        int(sendtype, c_int), recvbuf, c_arg(recvcount), recvcounts, rdispls, recvtypes, int(recvtype, c_int), &
        count_bytes, c_arg(comm), c_info, f_bottom=MPI_BOTTOM)
    end if
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine neighbor_call

  !> Sends `sendcount` elements to every out-neighbour; in-neighbour i's block lands at block
  !> i of `recvbuf` (C: `EP_Neighbor_allgather`; MPI 4.1 section 8.6.1). Neighbour order: for
  !> each dimension the -1 then the +1 neighbour (grids), the given order (graphs); blocks of
  !> EP_PROC_NULL neighbours are left alone. Errors: EP_ERR_TOPOLOGY, EP_ERR_COUNT,
  !> EP_ERR_TYPE, EP_ERR_BUFFER, EP_ERR_TRUNCATE, EP_ERR_OTHER.
  recursive subroutine ep_neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
      ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer :: none(1)
    integer(mpi_kind) :: no_types(1)
    none = 0
    no_types = 0
    call neighbor_call(0_c_int, sendbuf, sendcount, none, none, no_types, sendtype, recvbuf, recvcount, none, &
      none, no_types, recvtype, int(storage_size(none) / 8, c_int), comm, ierror)
  end subroutine ep_neighbor_allgather

  !> As `ep_neighbor_allgather`, in-neighbour i's `recvcounts(i)` elements at `displs(i)`
  !> elements from the start of `recvbuf` (C: `EP_Neighbor_allgatherv`).
  recursive subroutine ep_neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
      recvtype, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, comm
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(mpi_kind) :: no_types(1)
    no_types = 0
    call neighbor_call(1_c_int, sendbuf, sendcount, recvcounts, displs, no_types, sendtype, recvbuf, 0, recvcounts, &
      displs, no_types, recvtype, int(storage_size(recvcounts) / 8, c_int), comm, ierror)
  end subroutine ep_neighbor_allgatherv

  !> Block j of `sendbuf` (`sendcount` elements) to out-neighbour j; in-neighbour i's block to
  !> block i of `recvbuf` (C: `EP_Neighbor_alltoall`; MPI 4.1 section 8.6.2). Errors as
  !> `ep_neighbor_allgather`.
  recursive subroutine ep_neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
      ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer :: none(1)
    integer(mpi_kind) :: no_types(1)
    none = 0
    no_types = 0
    call neighbor_call(2_c_int, sendbuf, sendcount, none, none, no_types, sendtype, recvbuf, recvcount, none, &
      none, no_types, recvtype, int(storage_size(none) / 8, c_int), comm, ierror)
  end subroutine ep_neighbor_alltoall

  !> As `ep_neighbor_alltoall` with per-neighbour counts and displacements in elements (C:
  !> `EP_Neighbor_alltoallv`): send arrays of outdegree entries, receive arrays of indegree.
  recursive subroutine ep_neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, &
      rdispls, recvtype, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out), optional :: ierror
    integer(mpi_kind) :: no_types(1)
    no_types = 0
    call neighbor_call(3_c_int, sendbuf, 0, sendcounts, sdispls, no_types, sendtype, recvbuf, 0, recvcounts, &
      rdispls, no_types, recvtype, int(storage_size(sendcounts) / 8, c_int), comm, ierror)
  end subroutine ep_neighbor_alltoallv

  !> As `ep_neighbor_alltoallv` with per-neighbour datatypes and displacements in bytes
  !> (`integer(MPI_ADDRESS_KIND)`) (C: `EP_Neighbor_alltoallw`).
  recursive subroutine ep_neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, &
      rdispls, recvtypes, comm, ierror)
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, recvcounts
    integer(MPI_ADDRESS_KIND), dimension(*), intent(in) :: sdispls, rdispls
    integer(mpi_kind), dimension(*), intent(in) :: sendtypes, recvtypes
    integer, intent(in) :: comm
    integer, intent(out), optional :: ierror
    call neighbor_call(4_c_int, sendbuf, 0, sendcounts, sdispls, sendtypes, 0_mpi_kind, recvbuf, 0, recvcounts, &
      rdispls, recvtypes, 0_mpi_kind, int(storage_size(sendcounts) / 8, c_int), comm, ierror)
  end subroutine ep_neighbor_alltoallw

  !> Persistent `ep_neighbor_allgather` (C: `EP_Neighbor_allgather_init`; MPI 4.1 section
  !> 8.8): the buffers must be contiguous and stay valid while `request` exists; `info` is a
  !> `use mpi` info handle. Errors: those of the blocking form, found at init, and EP_ERR_BUFFER for
  !> a non-contiguous buffer. The other persistent neighbourhood routines below are alike.
  recursive subroutine ep_neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
      comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer :: none(1)
    integer(mpi_kind) :: no_types(1)
    none = 0
    no_types = 0
    call neighbor_call(0_c_int, sendbuf, sendcount, none, none, no_types, sendtype, recvbuf, recvcount, none, &
      none, no_types, recvtype, int(storage_size(none) / 8, c_int), comm, ierror, request, info)
  end subroutine ep_neighbor_allgather_init

  !> Persistent `ep_neighbor_allgatherv` (C: `EP_Neighbor_allgatherv_init`): the arrays are read
  !> at init.
  recursive subroutine ep_neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
      recvtype, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, comm
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(mpi_kind) :: no_types(1)
    no_types = 0
    call neighbor_call(1_c_int, sendbuf, sendcount, recvcounts, displs, no_types, sendtype, recvbuf, 0, recvcounts, &
      displs, no_types, recvtype, int(storage_size(recvcounts) / 8, c_int), comm, ierror, request, info)
  end subroutine ep_neighbor_allgatherv_init

  !> Persistent `ep_neighbor_alltoall` (C: `EP_Neighbor_alltoall_init`).
  recursive subroutine ep_neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
      comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer :: none(1)
    integer(mpi_kind) :: no_types(1)
    none = 0
    no_types = 0
    call neighbor_call(2_c_int, sendbuf, sendcount, none, none, no_types, sendtype, recvbuf, recvcount, none, &
      none, no_types, recvtype, int(storage_size(none) / 8, c_int), comm, ierror, request, info)
  end subroutine ep_neighbor_alltoall_init

  !> Persistent `ep_neighbor_alltoallv` (C: `EP_Neighbor_alltoallv_init`): the arrays are read
  !> at init.
  recursive subroutine ep_neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, &
      rdispls, recvtype, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype, info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(mpi_kind) :: no_types(1)
    no_types = 0
    call neighbor_call(3_c_int, sendbuf, 0, sendcounts, sdispls, no_types, sendtype, recvbuf, 0, recvcounts, &
      rdispls, no_types, recvtype, int(storage_size(sendcounts) / 8, c_int), comm, ierror, request, info)
  end subroutine ep_neighbor_alltoallv_init

  !> Persistent `ep_neighbor_alltoallw` (C: `EP_Neighbor_alltoallw_init`): the arrays are read
  !> at init.
  recursive subroutine ep_neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, &
      rdispls, recvtypes, comm, info, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, recvcounts
    integer(MPI_ADDRESS_KIND), dimension(*), intent(in) :: sdispls, rdispls
    integer(mpi_kind), dimension(*), intent(in) :: sendtypes, recvtypes
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: info
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call neighbor_call(4_c_int, sendbuf, 0, sendcounts, sdispls, sendtypes, 0_mpi_kind, recvbuf, 0, recvcounts, &
      rdispls, recvtypes, 0_mpi_kind, int(storage_size(sendcounts) / 8, c_int), comm, ierror, request, info)
  end subroutine ep_neighbor_alltoallw_init

  !> Nonblocking `ep_neighbor_allgather` (C: `EP_Ineighbor_allgather`; MPI 4.1 section
  !> 8.7.1): the buffers must be contiguous and stay untouched until `request` completes.
  recursive subroutine ep_ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer :: none(1)
    integer(mpi_kind) :: no_types(1)
    none = 0
    no_types = 0
    call neighbor_call(0_c_int, sendbuf, sendcount, none, none, no_types, sendtype, recvbuf, recvcount, none, &
      none, no_types, recvtype, int(storage_size(none) / 8, c_int), comm, ierror, request)
  end subroutine ep_ineighbor_allgather

  !> Nonblocking `ep_neighbor_allgatherv` (C: `EP_Ineighbor_allgatherv`).
  recursive subroutine ep_ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
      recvtype, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, comm
    integer, dimension(*), intent(in) :: recvcounts, displs
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(mpi_kind) :: no_types(1)
    no_types = 0
    call neighbor_call(1_c_int, sendbuf, sendcount, recvcounts, displs, no_types, sendtype, recvbuf, 0, recvcounts, &
      displs, no_types, recvtype, int(storage_size(recvcounts) / 8, c_int), comm, ierror, request)
  end subroutine ep_ineighbor_allgatherv

  !> Nonblocking `ep_neighbor_alltoall` (C: `EP_Ineighbor_alltoall`).
  recursive subroutine ep_ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
      request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, intent(in) :: sendcount, recvcount, comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer :: none(1)
    integer(mpi_kind) :: no_types(1)
    none = 0
    no_types = 0
    call neighbor_call(2_c_int, sendbuf, sendcount, none, none, no_types, sendtype, recvbuf, recvcount, none, &
      none, no_types, recvtype, int(storage_size(none) / 8, c_int), comm, ierror, request)
  end subroutine ep_ineighbor_alltoall

  !> Nonblocking `ep_neighbor_alltoallv` (C: `EP_Ineighbor_alltoallv`).
  recursive subroutine ep_ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, &
      rdispls, recvtype, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
    integer, intent(in) :: comm
    integer(mpi_kind), intent(in) :: sendtype, recvtype
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    integer(mpi_kind) :: no_types(1)
    no_types = 0
    call neighbor_call(3_c_int, sendbuf, 0, sendcounts, sdispls, no_types, sendtype, recvbuf, 0, recvcounts, &
      rdispls, no_types, recvtype, int(storage_size(sendcounts) / 8, c_int), comm, ierror, request)
  end subroutine ep_ineighbor_alltoallv

  !> Nonblocking `ep_neighbor_alltoallw` (C: `EP_Ineighbor_alltoallw`).
  recursive subroutine ep_ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, &
      rdispls, recvtypes, comm, request, ierror)
    type(*), dimension(..), intent(in), asynchronous :: sendbuf
    type(*), dimension(..), intent(inout), asynchronous :: recvbuf
    integer, dimension(*), intent(in) :: sendcounts, recvcounts
    integer(MPI_ADDRESS_KIND), dimension(*), intent(in) :: sdispls, rdispls
    integer(mpi_kind), dimension(*), intent(in) :: sendtypes, recvtypes
    integer, intent(in) :: comm
    integer, intent(out) :: request
    integer, intent(out), optional :: ierror
    call neighbor_call(4_c_int, sendbuf, 0, sendcounts, sdispls, sendtypes, 0_mpi_kind, recvbuf, 0, recvcounts, &
      rdispls, recvtypes, 0_mpi_kind, int(storage_size(sendcounts) / 8, c_int), comm, ierror, request)
  end subroutine ep_ineighbor_alltoallw

  ! ==========================================================================================
  ! Endpoint teams (docs/teams.md; after the IBM endpoint-teams proposal, no MPI 4.1
  ! counterpart): team handles are default integers (the C values). No communicator is involved:
  ! errors go through the default error handler (`ep_comm_set_errhandler(EP_COMM_NULL, ...)`).
  ! ==========================================================================================

  !> Creates endpoint team `team_id` of `team_size` members in this process, or joins the
  !> creation of the other members' calls with the same id; `team` (out) is this caller's handle
  !> (C: `EP_Endpoint_team_create`). Called once by each member thread; does not wait. Errors:
  !> EP_ERR_ARG (team_id < 0, team_size < 1, a live team of that id with another size, a team
  !> already created by team_size calls).
  recursive subroutine ep_endpoint_team_create(team_id, team_size, team, ierror)
    integer, intent(in) :: team_id, team_size
    integer, intent(out) :: team
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_team
    c_team = EP_ENDPOINT_TEAM_NULL
    c_ierror = c_ep_endpoint_team_create(c_arg(team_id), c_arg(team_size), c_team)
    team = int(c_team)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_endpoint_team_create

  !> Makes the calling thread a member of `team` until its `ep_endpoint_leave`: the large copies
  !> and local reductions of the members are then shared among the members waiting in the
  !> library (C: `EP_Endpoint_join`). Does not wait. Errors: EP_ERR_ARG (not a live team, the
  !> thread is a member already, team_size members joined this round already).
  recursive subroutine ep_endpoint_join(team, ierror)
    integer, intent(in) :: team
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_endpoint_join(c_arg(team))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_endpoint_join

  !> Leaves `team`: blocks until every member of the round has called it, working on the
  !> members' shared work meanwhile (C: `EP_Endpoint_leave`; collective over the team). Errors:
  !> EP_ERR_ARG (not a live team, the thread did not join it).
  recursive subroutine ep_endpoint_leave(team, ierror)
    integer, intent(in) :: team
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror
    c_ierror = c_ep_endpoint_leave(c_arg(team))
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_endpoint_leave

  !> Destroys this caller's team handle and sets `team` to EP_ENDPOINT_TEAM_NULL; the team goes
  !> with its last creator's handle (C: `EP_Endpoint_team_destroy`). Does not wait. Errors:
  !> EP_ERR_ARG (not a live team, the caller is a member, a round is in progress).
  recursive subroutine ep_endpoint_team_destroy(team, ierror)
    integer, intent(inout) :: team
    integer, intent(out), optional :: ierror
    integer(c_int) :: c_ierror, c_team
    c_team = int(team, c_int)
    c_ierror = c_ep_endpoint_team_destroy(c_team)
    team = int(c_team)
    if (present(ierror)) ierror = int(c_ierror)
  end subroutine ep_endpoint_team_destroy

end module ep_mpi
