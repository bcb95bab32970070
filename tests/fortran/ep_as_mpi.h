! ep_as_mpi.h: the suite's `use ep_mpi` names spelled with the standard MPI names, so that every
! Fortran test program also runs through the Fortran standard-names layer (libepmpi_mpi_f,
! src/mpi_names/fortran_*) on communicators made by mpix_comm_create_endpoints. A program
! includes it (through the preprocessor: -cpp) when EP_TEST_MPI_NAMES is defined; `use ep_mpi`
! becomes `use ep_as_mpi` (tests/fortran/ep_as_mpi.f90: the host's `use mpi` and the layer's
! epmpi_mpixf.h), so an ep_ name with no mapping here fails to link instead of bypassing the
! layer.
!
! The programs spell routines in lower case (ep_send) and constants in upper case (EP_ANY_TAG),
! and the preprocessor, unlike Fortran, tells them apart: only those spellings are mapped.
! Routines and constants with an MPI name map to it (ep_send -> MPI_Send, EP_ERR_RANK ->
! MPI_ERR_RANK: the layer maps EPMPI's error classes to the host's); statuses are the host's
! MPI_STATUS_SIZE integers indexed by MPI_SOURCE, MPI_TAG, MPI_ERROR. EPMPI's own routines map
! to the layer's mpix_ entry points (include/epmpi_mpixf.h).
#ifndef EP_AS_MPI_H
#define EP_AS_MPI_H

#define ep_mpi ep_as_mpi

! Constants with an MPI name.
#define EP_ANY_SOURCE MPI_ANY_SOURCE
#define EP_ANY_TAG MPI_ANY_TAG
#define EP_BSEND_OVERHEAD MPI_BSEND_OVERHEAD
#define EP_CART MPI_CART
#define EP_COMM_NULL MPI_COMM_NULL
#define EP_CONGRUENT MPI_CONGRUENT
#define EP_DIST_GRAPH MPI_DIST_GRAPH
#define EP_ERRHANDLER_NULL MPI_ERRHANDLER_NULL
#define EP_ERROR MPI_ERROR
#define EP_ERRORS_ARE_FATAL MPI_ERRORS_ARE_FATAL
#define EP_ERRORS_RETURN MPI_ERRORS_RETURN
#define EP_ERR_ARG MPI_ERR_ARG
#define EP_ERR_BUFFER MPI_ERR_BUFFER
#define EP_ERR_COMM MPI_ERR_COMM
#define EP_ERR_COUNT MPI_ERR_COUNT
#define EP_ERR_DIMS MPI_ERR_DIMS
#define EP_ERR_DISP MPI_ERR_DISP
#define EP_ERR_GROUP MPI_ERR_GROUP
#define EP_ERR_KEYVAL MPI_ERR_KEYVAL
#define EP_ERR_LOCKTYPE MPI_ERR_LOCKTYPE
#define EP_ERR_OP MPI_ERR_OP
#define EP_ERR_OTHER MPI_ERR_OTHER
#define EP_ERR_RANK MPI_ERR_RANK
#define EP_ERR_REQUEST MPI_ERR_REQUEST
#define EP_ERR_RMA_RANGE MPI_ERR_RMA_RANGE
#define EP_ERR_RMA_SYNC MPI_ERR_RMA_SYNC
#define EP_ERR_ROOT MPI_ERR_ROOT
#define EP_ERR_SIZE MPI_ERR_SIZE
#define EP_ERR_TAG MPI_ERR_TAG
#define EP_ERR_TOPOLOGY MPI_ERR_TOPOLOGY
#define EP_ERR_TRUNCATE MPI_ERR_TRUNCATE
#define EP_ERR_TYPE MPI_ERR_TYPE
#define EP_ERR_WIN MPI_ERR_WIN
#define EP_GRAPH MPI_GRAPH
#define EP_GROUP_NULL MPI_GROUP_NULL
#define EP_IDENT MPI_IDENT
#define EP_KEYVAL_INVALID MPI_KEYVAL_INVALID
#define EP_MAX_ERROR_STRING MPI_MAX_ERROR_STRING
#define EP_MAX_OBJECT_NAME MPI_MAX_OBJECT_NAME
#define EP_MESSAGE_NULL MPI_MESSAGE_NULL
#define EP_PROC_NULL MPI_PROC_NULL
#define EP_REQUEST_NULL MPI_REQUEST_NULL
#define EP_ROOT MPI_ROOT
#define EP_SIMILAR MPI_SIMILAR
#define EP_SOURCE MPI_SOURCE
#define EP_STATUSES_IGNORE MPI_STATUSES_IGNORE
#define EP_STATUS_IGNORE MPI_STATUS_IGNORE
#define EP_STATUS_SIZE MPI_STATUS_SIZE
#define EP_SUCCESS MPI_SUCCESS
#define EP_TAG MPI_TAG
#define EP_TAG_UB MPI_TAG_UB
#define EP_UNDEFINED MPI_UNDEFINED
#define EP_UNEQUAL MPI_UNEQUAL
#define EP_UNWEIGHTED MPI_UNWEIGHTED
#define EP_WIN_BASE MPI_WIN_BASE
#define EP_WIN_CREATE_FLAVOR MPI_WIN_CREATE_FLAVOR
#define EP_WIN_DISP_UNIT MPI_WIN_DISP_UNIT
#define EP_WIN_FLAVOR_SHARED MPI_WIN_FLAVOR_SHARED
#define EP_WIN_MODEL MPI_WIN_MODEL
#define EP_WIN_NULL MPI_WIN_NULL
#define EP_WIN_SIZE MPI_WIN_SIZE
#define EP_WIN_UNIFIED MPI_WIN_UNIFIED
#define EP_ERR_UNSUPPORTED MPI_ERR_UNSUPPORTED_OPERATION
#define ep_comm_dup_fn MPI_COMM_DUP_FN
#define ep_comm_null_delete_fn MPI_COMM_NULL_DELETE_FN
! EPMPI's classes with no MPI class of their own: the layer reports them as MPI_ERR_OTHER.
#define EP_ERR_THREAD_LEVEL MPI_ERR_OTHER
#define EP_ERR_NOT_INITIALIZED MPI_ERR_OTHER
! The MPI_TAG_UB attribute of an endpoints communicator.
#define EP_TAG_UB_VALUE 2147483647

! EPMPI's own constants: the layer's MPIX_ equivalents.
#define EP_COMM_FLAVOR mpix_comm_flavor_keyval()
#define EP_FLAVOR_ENDPOINTS MPIX_FLAVOR_ENDPOINTS
#define EP_COMM_TYPE_PROCESS MPIX_COMM_TYPE_PROCESS

! Routines with an MPI name.
#define ep_accumulate MPI_Accumulate
#define ep_allgather MPI_Allgather
#define ep_allgather_init MPI_Allgather_init
#define ep_allgatherv MPI_Allgatherv
#define ep_allgatherv_init MPI_Allgatherv_init
#define ep_allreduce MPI_Allreduce
#define ep_allreduce_init MPI_Allreduce_init
#define ep_alltoall MPI_Alltoall
#define ep_alltoall_init MPI_Alltoall_init
#define ep_alltoallv MPI_Alltoallv
#define ep_alltoallv_init MPI_Alltoallv_init
#define ep_alltoallw MPI_Alltoallw
#define ep_barrier MPI_Barrier
#define ep_barrier_init MPI_Barrier_init
#define ep_bcast MPI_Bcast
#define ep_bcast_init MPI_Bcast_init
#define ep_bsend MPI_Bsend
#define ep_bsend_init MPI_Bsend_init
#define ep_buffer_attach MPI_Buffer_attach
#define ep_buffer_detach MPI_Buffer_detach
#define ep_cancel MPI_Cancel
#define ep_cart_coords MPI_Cart_coords
#define ep_cart_create MPI_Cart_create
#define ep_cart_get MPI_Cart_get
#define ep_cart_map MPI_Cart_map
#define ep_cart_rank MPI_Cart_rank
#define ep_cart_shift MPI_Cart_shift
#define ep_cart_sub MPI_Cart_sub
#define ep_cartdim_get MPI_Cartdim_get
#define ep_comm_call_errhandler MPI_Comm_call_errhandler
#define ep_comm_compare MPI_Comm_compare
#define ep_comm_create MPI_Comm_create
#define ep_comm_create_errhandler MPI_Comm_create_errhandler
#define ep_comm_create_group MPI_Comm_create_group
#define ep_comm_create_keyval MPI_Comm_create_keyval
#define ep_comm_delete_attr MPI_Comm_delete_attr
#define ep_comm_dup MPI_Comm_dup
#define ep_comm_dup_with_info MPI_Comm_dup_with_info
#define ep_comm_free MPI_Comm_free
#define ep_comm_free_keyval MPI_Comm_free_keyval
#define ep_comm_get_attr MPI_Comm_get_attr
#define ep_comm_get_errhandler MPI_Comm_get_errhandler
#define ep_comm_get_info MPI_Comm_get_info
#define ep_comm_get_name MPI_Comm_get_name
#define ep_comm_group MPI_Comm_group
#define ep_comm_idup MPI_Comm_idup
#define ep_comm_rank MPI_Comm_rank
#define ep_comm_remote_size MPI_Comm_remote_size
#define ep_comm_set_attr MPI_Comm_set_attr
#define ep_comm_set_errhandler MPI_Comm_set_errhandler
#define ep_comm_set_info MPI_Comm_set_info
#define ep_comm_set_name MPI_Comm_set_name
#define ep_comm_size MPI_Comm_size
#define ep_comm_split MPI_Comm_split
#define ep_comm_split_type MPI_Comm_split_type
#define ep_comm_test_inter MPI_Comm_test_inter
#define ep_compare_and_swap MPI_Compare_and_swap
#define ep_dims_create MPI_Dims_create
#define ep_dist_graph_create MPI_Dist_graph_create
#define ep_dist_graph_create_adjacent MPI_Dist_graph_create_adjacent
#define ep_dist_graph_neighbors MPI_Dist_graph_neighbors
#define ep_dist_graph_neighbors_count MPI_Dist_graph_neighbors_count
#define ep_errhandler_free MPI_Errhandler_free
#define ep_error_class MPI_Error_class
#define ep_error_string MPI_Error_string
#define ep_exscan MPI_Exscan
#define ep_exscan_init MPI_Exscan_init
#define ep_fetch_and_op MPI_Fetch_and_op
#define ep_gather MPI_Gather
#define ep_gather_init MPI_Gather_init
#define ep_gatherv MPI_Gatherv
#define ep_gatherv_init MPI_Gatherv_init
#define ep_get MPI_Get
#define ep_get_accumulate MPI_Get_accumulate
#define ep_get_count MPI_Get_count
#define ep_get_elements MPI_Get_elements
#define ep_get_elements_x MPI_Get_elements_x
#define ep_graph_create MPI_Graph_create
#define ep_graph_get MPI_Graph_get
#define ep_graph_map MPI_Graph_map
#define ep_graph_neighbors MPI_Graph_neighbors
#define ep_graph_neighbors_count MPI_Graph_neighbors_count
#define ep_graphdims_get MPI_Graphdims_get
#define ep_group_compare MPI_Group_compare
#define ep_group_free MPI_Group_free
#define ep_group_incl MPI_Group_incl
#define ep_group_range_incl MPI_Group_range_incl
#define ep_group_rank MPI_Group_rank
#define ep_group_size MPI_Group_size
#define ep_group_translate_ranks MPI_Group_translate_ranks
#define ep_group_union MPI_Group_union
#define ep_iallgather MPI_Iallgather
#define ep_iallgatherv MPI_Iallgatherv
#define ep_iallreduce MPI_Iallreduce
#define ep_ialltoall MPI_Ialltoall
#define ep_ialltoallv MPI_Ialltoallv
#define ep_ialltoallw MPI_Ialltoallw
#define ep_ibarrier MPI_Ibarrier
#define ep_ibcast MPI_Ibcast
#define ep_ibsend MPI_Ibsend
#define ep_iexscan MPI_Iexscan
#define ep_igather MPI_Igather
#define ep_igatherv MPI_Igatherv
#define ep_improbe MPI_Improbe
#define ep_imrecv MPI_Imrecv
#define ep_ineighbor_alltoall MPI_Ineighbor_alltoall
#define ep_intercomm_create MPI_Intercomm_create
#define ep_intercomm_merge MPI_Intercomm_merge
#define ep_iprobe MPI_Iprobe
#define ep_irecv MPI_Irecv
#define ep_ireduce MPI_Ireduce
#define ep_ireduce_scatter MPI_Ireduce_scatter
#define ep_ireduce_scatter_block MPI_Ireduce_scatter_block
#define ep_irsend MPI_Irsend
#define ep_iscan MPI_Iscan
#define ep_iscatter MPI_Iscatter
#define ep_iscatterv MPI_Iscatterv
#define ep_isend MPI_Isend
#define ep_issend MPI_Issend
#define ep_mprobe MPI_Mprobe
#define ep_mrecv MPI_Mrecv
#define ep_neighbor_allgather MPI_Neighbor_allgather
#define ep_neighbor_allgatherv MPI_Neighbor_allgatherv
#define ep_neighbor_alltoall MPI_Neighbor_alltoall
#define ep_neighbor_alltoallv MPI_Neighbor_alltoallv
#define ep_neighbor_alltoallw MPI_Neighbor_alltoallw
#define ep_probe MPI_Probe
#define ep_put MPI_Put
#define ep_recv MPI_Recv
#define ep_recv_init MPI_Recv_init
#define ep_reduce MPI_Reduce
#define ep_reduce_init MPI_Reduce_init
#define ep_reduce_local MPI_Reduce_local
#define ep_reduce_scatter MPI_Reduce_scatter
#define ep_reduce_scatter_block MPI_Reduce_scatter_block
#define ep_reduce_scatter_block_init MPI_Reduce_scatter_block_init
#define ep_reduce_scatter_init MPI_Reduce_scatter_init
#define ep_request_free MPI_Request_free
#define ep_request_get_status MPI_Request_get_status
#define ep_rget MPI_Rget
#define ep_rput MPI_Rput
#define ep_rsend MPI_Rsend
#define ep_scan MPI_Scan
#define ep_scan_init MPI_Scan_init
#define ep_scatter MPI_Scatter
#define ep_scatter_init MPI_Scatter_init
#define ep_scatterv MPI_Scatterv
#define ep_scatterv_init MPI_Scatterv_init
#define ep_send MPI_Send
#define ep_send_init MPI_Send_init
#define ep_sendrecv MPI_Sendrecv
#define ep_sendrecv_replace MPI_Sendrecv_replace
#define ep_ssend MPI_Ssend
#define ep_ssend_init MPI_Ssend_init
#define ep_start MPI_Start
#define ep_startall MPI_Startall
#define ep_status_set_cancelled MPI_Status_set_cancelled
#define ep_status_set_elements MPI_Status_set_elements
#define ep_status_set_elements_x MPI_Status_set_elements_x
#define ep_test MPI_Test
#define ep_test_cancelled MPI_Test_cancelled
#define ep_testall MPI_Testall
#define ep_testany MPI_Testany
#define ep_testsome MPI_Testsome
#define ep_topo_test MPI_Topo_test
#define ep_wait MPI_Wait
#define ep_waitall MPI_Waitall
#define ep_waitany MPI_Waitany
#define ep_waitsome MPI_Waitsome
#define ep_win_allocate MPI_Win_allocate
#define ep_win_allocate_shared MPI_Win_allocate_shared
#define ep_win_attach MPI_Win_attach
#define ep_win_create MPI_Win_create
#define ep_win_create_dynamic MPI_Win_create_dynamic
#define ep_win_detach MPI_Win_detach
#define ep_win_fence MPI_Win_fence
#define ep_win_flush MPI_Win_flush
#define ep_win_flush_all MPI_Win_flush_all
#define ep_win_flush_local MPI_Win_flush_local
#define ep_win_free MPI_Win_free
#define ep_win_get_attr MPI_Win_get_attr
#define ep_win_get_errhandler MPI_Win_get_errhandler
#define ep_win_lock MPI_Win_lock
#define ep_win_lock_all MPI_Win_lock_all
#define ep_win_set_errhandler MPI_Win_set_errhandler
#define ep_win_shared_query MPI_Win_shared_query
#define ep_win_sync MPI_Win_sync
#define ep_win_unlock MPI_Win_unlock
#define ep_win_unlock_all MPI_Win_unlock_all
#define ep_wtime MPI_Wtime
! MPI 4.0 routines Open MPI 4.1 does not have: the layer's mpix_ form on both hosts.
#define ep_isendrecv mpix_isendrecv
#define ep_isendrecv_replace mpix_isendrecv_replace
#define ep_comm_idup_with_info mpix_comm_idup_with_info

! EPMPI's own routines: the layer's mpix_ equivalents.
#define ep_comm_create_endpoints mpix_comm_create_endpoints
#define ep_comm_create_endpoint mpix_comm_create_endpoint
#define ep_comm_local_info mpix_comm_local_info
#define ep_comm_get_host_comm mpix_comm_get_host_comm
#define ep_get_library_version mpix_get_library_version
#define ep_debug_live_handles mpix_debug_live_handles
#define ep_debug_live_objects mpix_debug_live_objects
#define ep_debug_live_windows mpix_debug_live_windows
#define ep_endpoint_team_create mpix_endpoint_team_create
#define ep_endpoint_join mpix_endpoint_join
#define ep_endpoint_leave mpix_endpoint_leave
#define ep_endpoint_team_destroy mpix_endpoint_team_destroy
#define EP_ENDPOINT_TEAM_NULL MPIX_ENDPOINT_TEAM_NULL

#endif
