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
  use, intrinsic :: iso_c_binding, only: c_int, c_intptr_t, c_double, c_char, c_ptr, c_funptr, c_int64_t
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
  public :: epmpi_f_isendrecv, epmpi_f_isendrecv_replace
  public :: epmpi_f_sendrecv_replace, epmpi_f_send_init, epmpi_f_recv_init, c_ep_start, c_ep_startall
  public :: epmpi_f_bsend, epmpi_f_rsend, epmpi_f_irsend, epmpi_f_buffer_attach, c_ep_buffer_detach
  public :: c_ep_request_get_status, epmpi_f_get_elements, epmpi_f_get_elements_x
  public :: epmpi_f_status_set_elements_x, c_ep_status_set_cancelled
  public :: c_ep_request_get_status_any, c_ep_request_get_status_all, c_ep_request_get_status_some
  public :: epmpi_f_barrier, epmpi_f_bcast, epmpi_f_reduce, epmpi_f_allreduce
  public :: epmpi_f_gather, epmpi_f_gatherv, epmpi_f_scatter, epmpi_f_scatterv
  public :: epmpi_f_allgather, epmpi_f_allgatherv, epmpi_f_alltoall, epmpi_f_alltoallv
  public :: epmpi_f_reduce_scatter, epmpi_f_reduce_scatter_block, epmpi_f_scan, epmpi_f_exscan
  public :: epmpi_f_ibarrier, epmpi_f_ibcast
  public :: epmpi_f_ireduction, epmpi_f_ireduce_scatter, epmpi_f_icollective, epmpi_f_ivcollective
  public :: epmpi_f_alltoallw, epmpi_f_reduce_local
  public :: c_ep_error_string, c_ep_error_class, c_ep_abort, c_ep_wtime
  public :: c_ep_get_library_version, c_ep_debug_live_handles, c_ep_debug_live_objects
  ! Endpoint teams
  public :: c_ep_endpoint_team_create, c_ep_endpoint_join, c_ep_endpoint_leave, c_ep_endpoint_team_destroy
  public :: epmpi_f_win_create, epmpi_f_win_allocate, epmpi_f_win_create_dynamic, epmpi_f_win_attach
  public :: epmpi_f_win_detach, c_ep_win_free, epmpi_f_win_fence, epmpi_f_win_lock, c_ep_win_unlock
  public :: epmpi_f_win_lock_all, c_ep_win_unlock_all, c_ep_win_flush, c_ep_win_flush_all
  public :: c_ep_win_flush_local_all, epmpi_f_win_post, epmpi_f_win_start, c_ep_win_complete
  public :: c_ep_win_wait, c_ep_win_test, c_ep_win_set_name, c_ep_win_get_name, epmpi_f_win_set_info
  public :: epmpi_f_win_get_info, epmpi_f_win_create_keyval, c_ep_win_free_keyval, c_ep_win_set_attr
  public :: c_ep_win_delete_attr
  public :: c_ep_win_flush_local, c_ep_win_sync, epmpi_f_put, epmpi_f_get, epmpi_f_rput, epmpi_f_rget
  public :: epmpi_f_accumulate, epmpi_f_get_accumulate, epmpi_f_fetch_and_op, epmpi_f_compare_and_swap
  public :: epmpi_f_raccumulate, epmpi_f_rget_accumulate
  public :: c_ep_win_set_errhandler, c_ep_win_get_errhandler, c_ep_debug_live_windows
  ! Process topologies and neighbourhood collectives
  public :: c_ep_cart_create, c_ep_dims_create, c_ep_cart_coords, c_ep_cart_rank, c_ep_cart_shift
  public :: c_ep_cart_sub, c_ep_cart_get, c_ep_cartdim_get, c_ep_topo_test, epmpi_f_dist_graph_create_adjacent
  public :: c_ep_dist_graph_neighbors_count, c_ep_dist_graph_neighbors, epmpi_f_neighbor
  public :: epmpi_f_dist_graph_create, c_ep_graph_create, c_ep_graphdims_get, c_ep_graph_get
  public :: c_ep_graph_neighbors_count, c_ep_graph_neighbors, c_ep_cart_map, c_ep_graph_map
  ! Shared-memory windows and window attributes
  public :: epmpi_f_win_allocate_shared, c_ep_win_shared_query, c_ep_win_get_attr
  ! Persistent collectives
  public :: epmpi_f_pcollective, epmpi_f_pvcollective

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

    ! ---- Groups, communicators from groups, caching and error handlers --------------------
  end interface

  public :: c_ep_comm_group, c_ep_comm_remote_group, c_ep_win_get_group, c_ep_group_size, c_ep_group_rank
  public :: c_ep_group_incl, c_ep_group_excl, c_ep_group_range_incl, c_ep_group_range_excl
  public :: c_ep_group_union, c_ep_group_intersection, c_ep_group_difference
  public :: c_ep_group_translate_ranks, c_ep_group_compare, c_ep_group_free
  public :: c_ep_comm_create, c_ep_comm_create_group, c_ep_comm_idup
  public :: c_ep_comm_set_name, c_ep_comm_get_name
  public :: epmpi_f_comm_create_keyval, epmpi_f_keyval_create, c_ep_comm_free_keyval, c_ep_comm_set_attr, c_ep_comm_delete_attr
  public :: epmpi_f_comm_create_errhandler, c_ep_comm_call_errhandler, c_ep_errhandler_free
  public :: epmpi_f_comm_dup_with_info, epmpi_f_comm_idup_with_info, epmpi_f_comm_set_info, epmpi_f_comm_get_info

  interface
    function c_ep_comm_group(comm, group) bind(C, name="EP_Comm_group") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: group
      integer(c_int) :: ierror
    end function c_ep_comm_group

    function c_ep_comm_remote_group(comm, group) bind(C, name="EP_Comm_remote_group") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: group
      integer(c_int) :: ierror
    end function c_ep_comm_remote_group

    function c_ep_win_get_group(win, group) bind(C, name="EP_Win_get_group") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int), intent(inout) :: group
      integer(c_int) :: ierror
    end function c_ep_win_get_group

    function c_ep_group_size(group, size) bind(C, name="EP_Group_size") result(ierror)
      import :: c_int
      integer(c_int), value :: group
      integer(c_int), intent(inout) :: size
      integer(c_int) :: ierror
    end function c_ep_group_size

    function c_ep_group_rank(group, rank) bind(C, name="EP_Group_rank") result(ierror)
      import :: c_int
      integer(c_int), value :: group
      integer(c_int), intent(inout) :: rank
      integer(c_int) :: ierror
    end function c_ep_group_rank

    function c_ep_group_incl(group, n, ranks, newgroup) bind(C, name="EP_Group_incl") result(ierror)
      import :: c_int
      integer(c_int), value :: group, n
      integer(c_int), intent(in) :: ranks(*)
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_ep_group_incl

    function c_ep_group_excl(group, n, ranks, newgroup) bind(C, name="EP_Group_excl") result(ierror)
      import :: c_int
      integer(c_int), value :: group, n
      integer(c_int), intent(in) :: ranks(*)
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_ep_group_excl

    !> `ranges(3, n)`: Fortran's column order is C's `int ranges[n][3]`.
    function c_ep_group_range_incl(group, n, ranges, newgroup) bind(C, name="EP_Group_range_incl") result(ierror)
      import :: c_int
      integer(c_int), value :: group, n
      integer(c_int), intent(in) :: ranges(3, *)
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_ep_group_range_incl

    function c_ep_group_range_excl(group, n, ranges, newgroup) bind(C, name="EP_Group_range_excl") result(ierror)
      import :: c_int
      integer(c_int), value :: group, n
      integer(c_int), intent(in) :: ranges(3, *)
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_ep_group_range_excl

    function c_ep_group_union(group1, group2, newgroup) bind(C, name="EP_Group_union") result(ierror)
      import :: c_int
      integer(c_int), value :: group1, group2
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_ep_group_union

    function c_ep_group_intersection(group1, group2, newgroup) bind(C, name="EP_Group_intersection") result(ierror)
      import :: c_int
      integer(c_int), value :: group1, group2
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_ep_group_intersection

    function c_ep_group_difference(group1, group2, newgroup) bind(C, name="EP_Group_difference") result(ierror)
      import :: c_int
      integer(c_int), value :: group1, group2
      integer(c_int), intent(inout) :: newgroup
      integer(c_int) :: ierror
    end function c_ep_group_difference

    function c_ep_group_translate_ranks(group1, n, ranks1, group2, ranks2) &
        bind(C, name="EP_Group_translate_ranks") result(ierror)
      import :: c_int
      integer(c_int), value :: group1, n, group2
      integer(c_int), intent(in) :: ranks1(*)
      integer(c_int), intent(inout) :: ranks2(*)
      integer(c_int) :: ierror
    end function c_ep_group_translate_ranks

    function c_ep_group_compare(group1, group2, result) bind(C, name="EP_Group_compare") result(ierror)
      import :: c_int
      integer(c_int), value :: group1, group2
      integer(c_int), intent(inout) :: result
      integer(c_int) :: ierror
    end function c_ep_group_compare

    function c_ep_group_free(group) bind(C, name="EP_Group_free") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: group
      integer(c_int) :: ierror
    end function c_ep_group_free

    function c_ep_comm_create(comm, group, newcomm) bind(C, name="EP_Comm_create") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, group
      integer(c_int), intent(inout) :: newcomm
      integer(c_int) :: ierror
    end function c_ep_comm_create

    function c_ep_comm_create_group(comm, group, tag, newcomm) bind(C, name="EP_Comm_create_group") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, group, tag
      integer(c_int), intent(inout) :: newcomm
      integer(c_int) :: ierror
    end function c_ep_comm_create_group

    function c_ep_comm_idup(comm, newcomm, request) bind(C, name="EP_Comm_idup") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: newcomm, request
      integer(c_int) :: ierror
    end function c_ep_comm_idup

    !> `name`: NUL-terminated.
    function c_ep_comm_set_name(comm, name) bind(C, name="EP_Comm_set_name") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: ierror
    end function c_ep_comm_set_name

    !> `name`: room for EP_MAX_OBJECT_NAME chars, NUL included.
    function c_ep_comm_get_name(comm, name, resultlen) bind(C, name="EP_Comm_get_name") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: comm
      character(kind=c_char), intent(inout) :: name(*)
      integer(c_int), intent(inout) :: resultlen
      integer(c_int) :: ierror
    end function c_ep_comm_get_name

    !> A keyval whose callbacks are the Fortran procedures `copy_fn` and `delete_fn` (run
    !> through `epmpi_f_run_copy` / `epmpi_f_run_delete` of ep_mpi.f90).
    function epmpi_f_comm_create_keyval(copy_fn, delete_fn, keyval, extra_state) &
        bind(C, name="epmpi_f_comm_create_keyval") result(ierror)
      import :: c_int, c_intptr_t, c_funptr
      type(c_funptr), value :: copy_fn, delete_fn
      integer(c_int), intent(inout) :: keyval
      integer(c_intptr_t), value :: extra_state
      integer(c_int) :: ierror
    end function epmpi_f_comm_create_keyval

    !> The same for `ep_keyval_create`, whose procedures take default integers (run through
    !> `epmpi_f_run_copy_int` / `epmpi_f_run_delete_int`).
    function epmpi_f_keyval_create(copy_fn, delete_fn, keyval, extra_state) &
        bind(C, name="epmpi_f_keyval_create") result(ierror)
      import :: c_int, c_intptr_t, c_funptr
      type(c_funptr), value :: copy_fn, delete_fn
      integer(c_int), intent(inout) :: keyval
      integer(c_intptr_t), value :: extra_state
      integer(c_int) :: ierror
    end function epmpi_f_keyval_create

    function c_ep_comm_free_keyval(keyval) bind(C, name="EP_Comm_free_keyval") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: keyval
      integer(c_int) :: ierror
    end function c_ep_comm_free_keyval

    !> The attribute is stored by value (MPI's Fortran binding): an address-sized integer.
    function c_ep_comm_set_attr(comm, keyval, attribute_val) bind(C, name="EP_Comm_set_attr") result(ierror)
      import :: c_int, c_intptr_t
      integer(c_int), value :: comm, keyval
      integer(c_intptr_t), value :: attribute_val
      integer(c_int) :: ierror
    end function c_ep_comm_set_attr

    function c_ep_comm_delete_attr(comm, keyval) bind(C, name="EP_Comm_delete_attr") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, keyval
      integer(c_int) :: ierror
    end function c_ep_comm_delete_attr

    !> An error handler that calls the Fortran procedure `fn` (through
    !> `epmpi_f_run_errhandler` of ep_mpi.f90).
    function epmpi_f_comm_create_errhandler(fn, errhandler) bind(C, name="epmpi_f_comm_create_errhandler") &
        result(ierror)
      import :: c_int, c_funptr
      type(c_funptr), value :: fn
      integer(c_int), intent(inout) :: errhandler
      integer(c_int) :: ierror
    end function epmpi_f_comm_create_errhandler

    function c_ep_comm_call_errhandler(comm, errorcode) bind(C, name="EP_Comm_call_errhandler") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, errorcode
      integer(c_int) :: ierror
    end function c_ep_comm_call_errhandler

    function c_ep_errhandler_free(errhandler) bind(C, name="EP_Errhandler_free") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: errhandler
      integer(c_int) :: ierror
    end function c_ep_errhandler_free

    !> `info`: a `use mpi` info handle.
    function epmpi_f_comm_dup_with_info(comm, info, newcomm) bind(C, name="epmpi_f_comm_dup_with_info") &
        result(ierror)
      import :: c_int
      integer(c_int), value :: comm, info
      integer(c_int), intent(inout) :: newcomm
      integer(c_int) :: ierror
    end function epmpi_f_comm_dup_with_info

    function epmpi_f_comm_idup_with_info(comm, info, newcomm, request) &
        bind(C, name="epmpi_f_comm_idup_with_info") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, info
      integer(c_int), intent(inout) :: newcomm, request
      integer(c_int) :: ierror
    end function epmpi_f_comm_idup_with_info

    function epmpi_f_comm_set_info(comm, info) bind(C, name="epmpi_f_comm_set_info") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, info
      integer(c_int) :: ierror
    end function epmpi_f_comm_set_info

    function epmpi_f_comm_get_info(comm, info_used) bind(C, name="epmpi_f_comm_get_info") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: info_used
      integer(c_int) :: ierror
    end function epmpi_f_comm_get_info

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

    function c_ep_request_get_status_any(count, requests, index, flag, status) &
        bind(C, name="EP_Request_get_status_any") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: count
      integer(c_int), dimension(*), intent(in) :: requests
      integer(c_int), intent(inout) :: index, flag
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_request_get_status_any

    function c_ep_request_get_status_all(count, requests, flag, statuses) &
        bind(C, name="EP_Request_get_status_all") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: count
      integer(c_int), dimension(*), intent(in) :: requests
      integer(c_int), intent(inout) :: flag
      type(c_ptr), value :: statuses
      integer(c_int) :: ierror
    end function c_ep_request_get_status_all

    function c_ep_request_get_status_some(incount, requests, outcount, indices, statuses) &
        bind(C, name="EP_Request_get_status_some") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: incount
      integer(c_int), dimension(*), intent(in) :: requests
      integer(c_int), intent(inout) :: outcount
      integer(c_int), dimension(*), intent(inout) :: indices
      type(c_ptr), value :: statuses
      integer(c_int) :: ierror
    end function c_ep_request_get_status_some

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

    ! ---- Sendrecv_replace, persistent requests, buffered and ready modes, status queries

    function epmpi_f_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status, &
        f_bottom) bind(C, name="epmpi_f_sendrecv_replace") result(ierror)
      import :: c_int, c_ptr
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int), value :: count, dest, sendtag, source, recvtag, comm
      integer(c_int), value :: datatype
      type(c_ptr), value :: status
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_sendrecv_replace

    function epmpi_f_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, &
        recvtype, source, recvtag, comm, request, f_bottom) bind(C, name="epmpi_f_isendrecv") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      integer(c_int), value :: sendcount, dest, sendtag, recvcount, source, recvtag, comm
      integer(c_int), value :: sendtype, recvtype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_isendrecv

    function epmpi_f_isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request, &
        f_bottom) bind(C, name="epmpi_f_isendrecv_replace") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(c_int), value :: count, dest, sendtag, source, recvtag, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_isendrecv_replace

    !> `mode`: 0 standard, 1 synchronous, 2 buffered, 3 ready.
    function epmpi_f_send_init(mode, buf, count, datatype, dest, tag, comm, request, f_bottom) &
        bind(C, name="epmpi_f_send_init") result(ierror)
      import :: c_int
      integer(c_int), value :: mode
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_send_init

    function epmpi_f_recv_init(buf, count, datatype, source, tag, comm, request, f_bottom) &
        bind(C, name="epmpi_f_recv_init") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(c_int), value :: count, source, tag, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_recv_init

    function c_ep_start(request) bind(C, name="EP_Start") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: request
      integer(c_int) :: ierror
    end function c_ep_start

    function c_ep_startall(count, array_of_requests) bind(C, name="EP_Startall") result(ierror)
      import :: c_int
      integer(c_int), value :: count
      integer(c_int), dimension(*), intent(inout) :: array_of_requests
      integer(c_int) :: ierror
    end function c_ep_startall

    !> `request`: a C pointer to the request (EP_Ibsend), or null (EP_Bsend).
    function epmpi_f_bsend(buf, count, datatype, dest, tag, comm, request, f_bottom) &
        bind(C, name="epmpi_f_bsend") result(ierror)
      import :: c_int, c_ptr
      type(*), dimension(..), intent(in) :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      type(c_ptr), value :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_bsend

    function epmpi_f_rsend(buf, count, datatype, dest, tag, comm, f_bottom) &
        bind(C, name="epmpi_f_rsend") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in) :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_rsend

    function epmpi_f_irsend(buf, count, datatype, dest, tag, comm, request, f_bottom) &
        bind(C, name="epmpi_f_irsend") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(c_int), value :: count, dest, tag, comm
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_irsend

    function epmpi_f_buffer_attach(buf, size, f_bottom) bind(C, name="epmpi_f_buffer_attach") result(ierror)
      import :: c_int
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(c_int), value :: size
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_buffer_attach

    function c_ep_buffer_detach(buffer_addr, size) bind(C, name="EP_Buffer_detach") result(ierror)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: buffer_addr
      integer(c_int), intent(inout) :: size
      integer(c_int) :: ierror
    end function c_ep_buffer_detach

    function c_ep_request_get_status(request, flag, status) bind(C, name="EP_Request_get_status") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: request
      integer(c_int), intent(inout) :: flag
      type(c_ptr), value :: status
      integer(c_int) :: ierror
    end function c_ep_request_get_status

    function epmpi_f_get_elements(status, datatype, count) bind(C, name="epmpi_f_get_elements") result(ierror)
      import :: c_int
      integer(c_int), dimension(*), intent(in) :: status
      integer(c_int), value :: datatype
      integer(c_int), intent(inout) :: count
      integer(c_int) :: ierror
    end function epmpi_f_get_elements

    function epmpi_f_get_elements_x(status, datatype, count) bind(C, name="epmpi_f_get_elements_x") result(ierror)
      import :: c_int, c_int64_t
      integer(c_int), dimension(*), intent(in) :: status
      integer(c_int), value :: datatype
      integer(c_int64_t), intent(inout) :: count
      integer(c_int) :: ierror
    end function epmpi_f_get_elements_x

    function epmpi_f_status_set_elements_x(status, datatype, count) &
        bind(C, name="epmpi_f_status_set_elements_x") result(ierror)
      import :: c_int, c_int64_t
      integer(c_int), dimension(*), intent(inout) :: status
      integer(c_int), value :: datatype
      integer(c_int64_t), value :: count
      integer(c_int) :: ierror
    end function epmpi_f_status_set_elements_x

    function c_ep_status_set_cancelled(status, flag) bind(C, name="EP_Status_set_cancelled") result(ierror)
      import :: c_int
      integer(c_int), dimension(*), intent(inout) :: status
      integer(c_int), value :: flag
      integer(c_int) :: ierror
    end function c_ep_status_set_cancelled

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

    !> `mode`: 0 blocking, 1 nonblocking, 2 persistent (`info` used by that form only).
    function epmpi_f_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, &
        recvtypes, count_bytes, comm, mode, info, request, f_bottom, f_in_place) bind(C, name="epmpi_f_alltoallw") &
        result(ierror)
      import :: c_int, c_ptr
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      type(*), dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
      type(*), dimension(*), intent(in) :: sendtypes, recvtypes
      integer(c_int), value :: count_bytes, comm, mode, info
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

    ! ---- Persistent collectives -----------------------------------------------------------

    function epmpi_f_pcollective(kind, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, op, root, &
        comm, info, request, f_bottom, f_in_place) bind(C, name="epmpi_f_pcollective") result(ierror)
      import :: c_int
      integer(c_int), value :: kind
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, op, root, comm, info
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_pcollective

    function epmpi_f_pvcollective(kind, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf, recvcount, &
        recvcounts, rdispls, recvtype, op, root, count_bytes, comm, info, request, f_bottom, f_in_place) &
        bind(C, name="epmpi_f_pvcollective") result(ierror)
      import :: c_int
      integer(c_int), value :: kind
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      type(*), dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, op, root, count_bytes, comm, info
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom, f_in_place
      integer(c_int) :: ierror
    end function epmpi_f_pvcollective

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

    function c_ep_win_set_name(win, name) bind(C, name="EP_Win_set_name") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: win
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: ierror
    end function c_ep_win_set_name

    !> `name`: room for EP_MAX_OBJECT_NAME chars, NUL included.
    function c_ep_win_get_name(win, name, resultlen) bind(C, name="EP_Win_get_name") result(ierror)
      import :: c_int, c_char
      integer(c_int), value :: win
      character(kind=c_char), intent(inout) :: name(*)
      integer(c_int), intent(inout) :: resultlen
      integer(c_int) :: ierror
    end function c_ep_win_get_name

    function epmpi_f_win_set_info(win, info) bind(C, name="epmpi_f_win_set_info") result(ierror)
      import :: c_int
      integer(c_int), value :: win, info
      integer(c_int) :: ierror
    end function epmpi_f_win_set_info

    function epmpi_f_win_get_info(win, info_used) bind(C, name="epmpi_f_win_get_info") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int), intent(inout) :: info_used
      integer(c_int) :: ierror
    end function epmpi_f_win_get_info

    !> A window keyval whose callbacks are the Fortran procedures `copy_fn` and `delete_fn`.
    function epmpi_f_win_create_keyval(copy_fn, delete_fn, keyval, extra_state) &
        bind(C, name="epmpi_f_win_create_keyval") result(ierror)
      import :: c_int, c_intptr_t, c_funptr
      type(c_funptr), value :: copy_fn, delete_fn
      integer(c_int), intent(inout) :: keyval
      integer(c_intptr_t), value :: extra_state
      integer(c_int) :: ierror
    end function epmpi_f_win_create_keyval

    function c_ep_win_free_keyval(keyval) bind(C, name="EP_Win_free_keyval") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: keyval
      integer(c_int) :: ierror
    end function c_ep_win_free_keyval

    !> The attribute is stored by value (MPI's Fortran binding): an address-sized integer.
    function c_ep_win_set_attr(win, keyval, attribute_val) bind(C, name="EP_Win_set_attr") result(ierror)
      import :: c_int, c_intptr_t
      integer(c_int), value :: win, keyval
      integer(c_intptr_t), value :: attribute_val
      integer(c_int) :: ierror
    end function c_ep_win_set_attr

    function c_ep_win_delete_attr(win, keyval) bind(C, name="EP_Win_delete_attr") result(ierror)
      import :: c_int
      integer(c_int), value :: win, keyval
      integer(c_int) :: ierror
    end function c_ep_win_delete_attr

    function epmpi_f_win_post(group, assert, win, f_rma) bind(C, name="epmpi_f_win_post") result(ierror)
      import :: c_int
      integer(c_int), value :: group, assert, win
      integer(c_int), dimension(*), intent(in) :: f_rma
      integer(c_int) :: ierror
    end function epmpi_f_win_post

    function epmpi_f_win_start(group, assert, win, f_rma) bind(C, name="epmpi_f_win_start") result(ierror)
      import :: c_int
      integer(c_int), value :: group, assert, win
      integer(c_int), dimension(*), intent(in) :: f_rma
      integer(c_int) :: ierror
    end function epmpi_f_win_start

    function c_ep_win_complete(win) bind(C, name="EP_Win_complete") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int) :: ierror
    end function c_ep_win_complete

    function c_ep_win_wait(win) bind(C, name="EP_Win_wait") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int) :: ierror
    end function c_ep_win_wait

    function c_ep_win_test(win, flag) bind(C, name="EP_Win_test") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int), intent(out) :: flag
      integer(c_int) :: ierror
    end function c_ep_win_test

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

    function c_ep_win_flush_local_all(win) bind(C, name="EP_Win_flush_local_all") result(ierror)
      import :: c_int
      integer(c_int), value :: win
      integer(c_int) :: ierror
    end function c_ep_win_flush_local_all

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

    function epmpi_f_raccumulate(origin, origin_count, origin_datatype, target_rank, target_disp, &
        target_count, target_datatype, op, win, request, f_bottom) bind(C, name="epmpi_f_raccumulate") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin
      integer(c_int), value :: origin_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, target_datatype, op
      integer(c_intptr_t), value :: target_disp
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_raccumulate

    function epmpi_f_rget_accumulate(origin, origin_count, origin_datatype, result, result_count, &
        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request, f_bottom) &
        bind(C, name="epmpi_f_rget_accumulate") result(ierror)
      import :: c_int, c_intptr_t
      type(*), dimension(..), intent(in), asynchronous :: origin
      type(*), dimension(..), intent(inout), asynchronous :: result
      integer(c_int), value :: origin_count, result_count, target_rank, target_count, win
      integer(c_int), value :: origin_datatype, result_datatype, target_datatype, op
      integer(c_intptr_t), value :: target_disp
      integer(c_int), intent(inout) :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_rget_accumulate

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

    ! ---- Process topologies and neighbourhood collectives --------------------------------

    function c_ep_cart_create(comm_old, ndims, dims, periods, reorder, comm_cart) &
        bind(C, name="EP_Cart_create") result(ierror)
      import :: c_int
      integer(c_int), value :: comm_old, ndims, reorder
      integer(c_int), dimension(*), intent(in) :: dims, periods
      integer(c_int), intent(inout) :: comm_cart
      integer(c_int) :: ierror
    end function c_ep_cart_create

    function c_ep_dims_create(nnodes, ndims, dims) bind(C, name="EP_Dims_create") result(ierror)
      import :: c_int
      integer(c_int), value :: nnodes, ndims
      integer(c_int), dimension(*), intent(inout) :: dims
      integer(c_int) :: ierror
    end function c_ep_dims_create

    function c_ep_cart_coords(comm, rank, maxdims, coords) bind(C, name="EP_Cart_coords") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, rank, maxdims
      integer(c_int), dimension(*), intent(inout) :: coords
      integer(c_int) :: ierror
    end function c_ep_cart_coords

    function c_ep_cart_rank(comm, coords, rank) bind(C, name="EP_Cart_rank") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), dimension(*), intent(in) :: coords
      integer(c_int), intent(inout) :: rank
      integer(c_int) :: ierror
    end function c_ep_cart_rank

    function c_ep_cart_shift(comm, direction, disp, rank_source, rank_dest) &
        bind(C, name="EP_Cart_shift") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, direction, disp
      integer(c_int), intent(inout) :: rank_source, rank_dest
      integer(c_int) :: ierror
    end function c_ep_cart_shift

    function c_ep_cart_sub(comm, remain_dims, newcomm) bind(C, name="EP_Cart_sub") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), dimension(*), intent(in) :: remain_dims
      integer(c_int), intent(inout) :: newcomm
      integer(c_int) :: ierror
    end function c_ep_cart_sub

    function c_ep_cart_get(comm, maxdims, dims, periods, coords) bind(C, name="EP_Cart_get") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, maxdims
      integer(c_int), dimension(*), intent(inout) :: dims, periods, coords
      integer(c_int) :: ierror
    end function c_ep_cart_get

    function c_ep_cartdim_get(comm, ndims) bind(C, name="EP_Cartdim_get") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: ndims
      integer(c_int) :: ierror
    end function c_ep_cartdim_get

    function c_ep_topo_test(comm, status) bind(C, name="EP_Topo_test") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: status
      integer(c_int) :: ierror
    end function c_ep_topo_test

    !> The weights are addresses: of a c_int array, or EP_UNWEIGHTED / EP_WEIGHTS_EMPTY;
    !> `info` is a `use mpi` integer.
    function epmpi_f_dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, &
        destinations, destweights, info, reorder, comm_dist_graph) &
        bind(C, name="epmpi_f_dist_graph_create_adjacent") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: comm_old, indegree, outdegree, info, reorder
      integer(c_int), dimension(*), intent(in) :: sources, destinations
      type(c_ptr), value :: sourceweights, destweights
      integer(c_int), intent(inout) :: comm_dist_graph
      integer(c_int) :: ierror
    end function epmpi_f_dist_graph_create_adjacent

    !> As `epmpi_f_dist_graph_create_adjacent`, for `EP_Dist_graph_create`.
    function epmpi_f_dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder, &
        comm_dist_graph) bind(C, name="epmpi_f_dist_graph_create") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: comm_old, n, info, reorder
      integer(c_int), dimension(*), intent(in) :: sources, degrees, destinations
      type(c_ptr), value :: weights
      integer(c_int), intent(inout) :: comm_dist_graph
      integer(c_int) :: ierror
    end function epmpi_f_dist_graph_create

    function c_ep_graph_create(comm_old, nnodes, index, edges, reorder, comm_graph) &
        bind(C, name="EP_Graph_create") result(ierror)
      import :: c_int
      integer(c_int), value :: comm_old, nnodes, reorder
      integer(c_int), dimension(*), intent(in) :: index, edges
      integer(c_int), intent(inout) :: comm_graph
      integer(c_int) :: ierror
    end function c_ep_graph_create

    function c_ep_graphdims_get(comm, nnodes, nedges) bind(C, name="EP_Graphdims_get") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: nnodes, nedges
      integer(c_int) :: ierror
    end function c_ep_graphdims_get

    function c_ep_graph_get(comm, maxindex, maxedges, index, edges) bind(C, name="EP_Graph_get") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, maxindex, maxedges
      integer(c_int), dimension(*), intent(inout) :: index, edges
      integer(c_int) :: ierror
    end function c_ep_graph_get

    function c_ep_graph_neighbors_count(comm, rank, nneighbors) bind(C, name="EP_Graph_neighbors_count") &
        result(ierror)
      import :: c_int
      integer(c_int), value :: comm, rank
      integer(c_int), intent(inout) :: nneighbors
      integer(c_int) :: ierror
    end function c_ep_graph_neighbors_count

    function c_ep_graph_neighbors(comm, rank, maxneighbors, neighbors) bind(C, name="EP_Graph_neighbors") &
        result(ierror)
      import :: c_int
      integer(c_int), value :: comm, rank, maxneighbors
      integer(c_int), dimension(*), intent(inout) :: neighbors
      integer(c_int) :: ierror
    end function c_ep_graph_neighbors

    function c_ep_cart_map(comm, ndims, dims, periods, newrank) bind(C, name="EP_Cart_map") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, ndims
      integer(c_int), dimension(*), intent(in) :: dims, periods
      integer(c_int), intent(inout) :: newrank
      integer(c_int) :: ierror
    end function c_ep_cart_map

    function c_ep_graph_map(comm, nnodes, index, edges, newrank) bind(C, name="EP_Graph_map") result(ierror)
      import :: c_int
      integer(c_int), value :: comm, nnodes
      integer(c_int), dimension(*), intent(in) :: index, edges
      integer(c_int), intent(inout) :: newrank
      integer(c_int) :: ierror
    end function c_ep_graph_map

    function c_ep_dist_graph_neighbors_count(comm, indegree, outdegree, weighted) &
        bind(C, name="EP_Dist_graph_neighbors_count") result(ierror)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: indegree, outdegree, weighted
      integer(c_int) :: ierror
    end function c_ep_dist_graph_neighbors_count

    function c_ep_dist_graph_neighbors(comm, maxindegree, sources, sourceweights, maxoutdegree, &
        destinations, destweights) bind(C, name="EP_Dist_graph_neighbors") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: comm, maxindegree, maxoutdegree
      integer(c_int), dimension(*), intent(inout) :: sources, destinations
      type(c_ptr), value :: sourceweights, destweights
      integer(c_int) :: ierror
    end function c_ep_dist_graph_neighbors

    !> Every neighbourhood collective (`kind`: 0 allgather, 1 allgatherv, 2 alltoall,
    !> 3 alltoallv, 4 alltoallw; `mode`: 0 blocking, 1 nonblocking, 2 persistent, whose `info`
    !> the others ignore); `request` absent (NULL) for the blocking forms.
    function epmpi_f_neighbor(kind, mode, sendbuf, sendcount, sendcounts, sdispls, sendtypes, sendtype, recvbuf, &
        recvcount, recvcounts, rdispls, recvtypes, recvtype, count_bytes, comm, info, request, f_bottom) &
        bind(C, name="epmpi_f_neighbor") result(ierror)
      import :: c_int
      integer(c_int), value :: kind, mode, sendcount, sendtype, recvcount, recvtype, count_bytes, comm, info
      type(*), dimension(..), intent(in), asynchronous :: sendbuf
      type(*), dimension(..), intent(inout), asynchronous :: recvbuf
      type(*), dimension(*), intent(in) :: sendcounts, sdispls, recvcounts, rdispls
      !> `use mpi` datatypes (integer(mpi_kind), the size of MPI_Fint).
      type(*), dimension(*), intent(in) :: sendtypes, recvtypes
      integer(c_int), intent(inout), optional :: request
      type(*), intent(in) :: f_bottom
      integer(c_int) :: ierror
    end function epmpi_f_neighbor

    ! Shared-memory windows and window attributes

    !> `baseptr` receives the address of this endpoint's segment (a `void **` in C).
    function epmpi_f_win_allocate_shared(size, disp_unit, info, comm, baseptr, win) &
        bind(C, name="epmpi_f_win_allocate_shared") result(ierror)
      import :: c_int, c_intptr_t, c_ptr
      integer(c_intptr_t), value :: size
      integer(c_int), value :: disp_unit, comm
      integer(c_int), value :: info
      type(c_ptr), intent(inout) :: baseptr
      integer(c_int), intent(inout) :: win
      integer(c_int) :: ierror
    end function epmpi_f_win_allocate_shared

    function c_ep_win_shared_query(win, rank, size, disp_unit, baseptr) bind(C, name="EP_Win_shared_query") &
        result(ierror)
      import :: c_int, c_intptr_t, c_ptr
      integer(c_int), value :: win, rank
      integer(c_intptr_t), intent(inout) :: size
      integer(c_int), intent(inout) :: disp_unit
      type(c_ptr), intent(inout) :: baseptr
      integer(c_int) :: ierror
    end function c_ep_win_shared_query

    function c_ep_win_get_attr(win, key, value, flag) bind(C, name="EP_Win_get_attr") result(ierror)
      import :: c_int, c_ptr
      integer(c_int), value :: win, key
      type(c_ptr), intent(inout) :: value
      integer(c_int), intent(inout) :: flag
      integer(c_int) :: ierror
    end function c_ep_win_get_attr

    ! Endpoint teams
    function c_ep_endpoint_team_create(team_id, team_size, team) bind(C, name="EP_Endpoint_team_create") &
        result(ierror)
      import :: c_int
      integer(c_int), value :: team_id, team_size
      integer(c_int), intent(inout) :: team
      integer(c_int) :: ierror
    end function c_ep_endpoint_team_create

    function c_ep_endpoint_join(team) bind(C, name="EP_Endpoint_join") result(ierror)
      import :: c_int
      integer(c_int), value :: team
      integer(c_int) :: ierror
    end function c_ep_endpoint_join

    function c_ep_endpoint_leave(team) bind(C, name="EP_Endpoint_leave") result(ierror)
      import :: c_int
      integer(c_int), value :: team
      integer(c_int) :: ierror
    end function c_ep_endpoint_leave

    function c_ep_endpoint_team_destroy(team) bind(C, name="EP_Endpoint_team_destroy") result(ierror)
      import :: c_int
      integer(c_int), intent(inout) :: team
      integer(c_int) :: ierror
    end function c_ep_endpoint_team_destroy

  end interface

end module ep_mpi_c
