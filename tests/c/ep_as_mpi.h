/*
 * ep_as_mpi.h: the suite's EP_ names spelled with the standard MPI names, so that every C test
 * program also runs through the standard-names layer (libepmpi_mpi, src/mpi_names/) on
 * communicators made by MPIX_Comm_create_endpoints. Included by ep_test.h (and the programs
 * that do not use it) when EP_TEST_MPI_NAMES is defined, in place of <ep_mpi.h>: an EP_ name
 * with no mapping here then fails to compile instead of bypassing the layer.
 *
 * Types, constants and functions with an MPI name map to it (EP_Send -> MPI_Send, EP_ERR_RANK
 * -> MPI_ERR_RANK: the layer maps EPMPI's error classes to the host's). EPMPI's own functions
 * map to the layer's MPIX_ extensions (include/epmpi_mpix.h). The process default error
 * handler (EP_Comm_set_errhandler on EP_COMM_NULL) is set through MPI_COMM_SELF, whose handler
 * MPI 4.1 gives to errors tied to no communicator: ep_test.h does so under this header.
 */
#ifndef EP_AS_MPI_H
#define EP_AS_MPI_H

#include <epmpi_mpix.h>
#include <mpi.h>

/* Types. */
#define EP_Comm MPI_Comm
#define EP_Request MPI_Request
#define EP_Message MPI_Message
#define EP_Win MPI_Win
#define EP_Group MPI_Group
#define EP_Errhandler MPI_Errhandler
#define EP_Status MPI_Status
#define EP_Comm_copy_attr_function MPI_Comm_copy_attr_function
#define EP_Comm_delete_attr_function MPI_Comm_delete_attr_function
#define EP_Win_copy_attr_function MPI_Win_copy_attr_function
#define EP_Win_delete_attr_function MPI_Win_delete_attr_function
#define EP_Comm_errhandler_function MPI_Comm_errhandler_function

/* Constants with an MPI name. */
#define EP_ANY_SOURCE MPI_ANY_SOURCE
#define EP_ANY_TAG MPI_ANY_TAG
#define EP_BSEND_OVERHEAD MPI_BSEND_OVERHEAD
#define EP_CART MPI_CART
#define EP_COMM_NULL MPI_COMM_NULL
#define EP_CONGRUENT MPI_CONGRUENT
#define EP_DIST_GRAPH MPI_DIST_GRAPH
#define EP_ERRHANDLER_NULL MPI_ERRHANDLER_NULL
#define EP_ERRORS_ARE_FATAL MPI_ERRORS_ARE_FATAL
#define EP_ERRORS_RETURN MPI_ERRORS_RETURN
#define EP_ERR_ARG MPI_ERR_ARG
#define EP_ERR_BUFFER MPI_ERR_BUFFER
#define EP_ERR_COMM MPI_ERR_COMM
#define EP_ERR_COUNT MPI_ERR_COUNT
#define EP_ERR_DIMS MPI_ERR_DIMS
#define EP_ERR_DISP MPI_ERR_DISP
#define EP_ERR_GROUP MPI_ERR_GROUP
#define EP_ERR_INTERN MPI_ERR_INTERN
#define EP_ERR_IN_STATUS MPI_ERR_IN_STATUS
#define EP_ERR_KEYVAL MPI_ERR_KEYVAL
#define EP_ERR_LASTCODE MPI_ERR_LASTCODE
#define EP_ERR_LOCKTYPE MPI_ERR_LOCKTYPE
#define EP_ERR_OP MPI_ERR_OP
#define EP_ERR_OTHER MPI_ERR_OTHER
#define EP_ERR_PENDING MPI_ERR_PENDING
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
#define EP_GROUP_EMPTY MPI_GROUP_EMPTY
#define EP_GROUP_NULL MPI_GROUP_NULL
#define EP_IDENT MPI_IDENT
#define EP_KEYVAL_INVALID MPI_KEYVAL_INVALID
#define EP_MAX_ERROR_STRING MPI_MAX_ERROR_STRING
#define EP_MAX_OBJECT_NAME MPI_MAX_OBJECT_NAME
#define EP_MESSAGE_NO_PROC MPI_MESSAGE_NO_PROC
#define EP_MESSAGE_NULL MPI_MESSAGE_NULL
#define EP_PROC_NULL MPI_PROC_NULL
#define EP_REQUEST_NULL MPI_REQUEST_NULL
#define EP_ROOT MPI_ROOT
#define EP_SIMILAR MPI_SIMILAR
#define EP_STATUSES_IGNORE MPI_STATUSES_IGNORE
#define EP_STATUS_IGNORE MPI_STATUS_IGNORE
#define EP_SUCCESS MPI_SUCCESS
#define EP_TAG_UB MPI_TAG_UB
#define EP_UNDEFINED MPI_UNDEFINED
#define EP_UNEQUAL MPI_UNEQUAL
#define EP_UNWEIGHTED MPI_UNWEIGHTED
#define EP_WEIGHTS_EMPTY MPI_WEIGHTS_EMPTY
#define EP_WIN_BASE MPI_WIN_BASE
#define EP_WIN_CREATE_FLAVOR MPI_WIN_CREATE_FLAVOR
#define EP_WIN_DISP_UNIT MPI_WIN_DISP_UNIT
#define EP_WIN_FLAVOR_ALLOCATE MPI_WIN_FLAVOR_ALLOCATE
#define EP_WIN_FLAVOR_CREATE MPI_WIN_FLAVOR_CREATE
#define EP_WIN_FLAVOR_DYNAMIC MPI_WIN_FLAVOR_DYNAMIC
#define EP_WIN_FLAVOR_SHARED MPI_WIN_FLAVOR_SHARED
#define EP_WIN_MODEL MPI_WIN_MODEL
#define EP_WIN_NULL MPI_WIN_NULL
#define EP_WIN_SEPARATE MPI_WIN_SEPARATE
#define EP_WIN_SIZE MPI_WIN_SIZE
#define EP_WIN_UNIFIED MPI_WIN_UNIFIED
#define EP_COMM_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define EP_COMM_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define EP_COMM_DUP_FN MPI_COMM_DUP_FN
#define EP_NULL_COPY_FN MPI_NULL_COPY_FN
#define EP_DUP_FN MPI_DUP_FN
#define EP_NULL_DELETE_FN MPI_NULL_DELETE_FN
#define EP_WIN_NULL_COPY_FN MPI_WIN_NULL_COPY_FN
#define EP_WIN_NULL_DELETE_FN MPI_WIN_NULL_DELETE_FN
#define EP_WIN_DUP_FN MPI_WIN_DUP_FN
#define EP_ERR_UNSUPPORTED MPI_ERR_UNSUPPORTED_OPERATION
/* EPMPI's classes with no MPI class of their own: the layer reports them as MPI_ERR_OTHER. */
#define EP_ERR_THREAD_LEVEL MPI_ERR_OTHER
#define EP_ERR_NOT_INITIALIZED MPI_ERR_OTHER
#define EP_TAG_UB_VALUE 2147483647

/* EPMPI's own constants: the layer's MPIX_ equivalents. */
#define EP_COMM_FLAVOR MPIX_COMM_FLAVOR
#define EP_FLAVOR_ENDPOINTS MPIX_FLAVOR_ENDPOINTS
#define EP_COMM_TYPE_PROCESS MPIX_COMM_TYPE_PROCESS

/* Functions with an MPI name. */
#define EP_Abort MPI_Abort
#define EP_Accumulate MPI_Accumulate
#define EP_Allgather MPI_Allgather
#define EP_Allgatherv MPI_Allgatherv
#define EP_Allreduce MPI_Allreduce
#define EP_Alltoall MPI_Alltoall
#define EP_Alltoallv MPI_Alltoallv
#define EP_Alltoallw MPI_Alltoallw
#define EP_Barrier MPI_Barrier
#define EP_Bcast MPI_Bcast
#define EP_Bsend MPI_Bsend
#define EP_Bsend_init MPI_Bsend_init
#define EP_Buffer_attach MPI_Buffer_attach
#define EP_Buffer_detach MPI_Buffer_detach
#define EP_Cancel MPI_Cancel
#define EP_Cart_coords MPI_Cart_coords
#define EP_Cart_create MPI_Cart_create
#define EP_Cart_get MPI_Cart_get
#define EP_Cart_map MPI_Cart_map
#define EP_Cart_rank MPI_Cart_rank
#define EP_Cart_shift MPI_Cart_shift
#define EP_Cart_sub MPI_Cart_sub
#define EP_Cartdim_get MPI_Cartdim_get
#define EP_Comm_call_errhandler MPI_Comm_call_errhandler
#define EP_Comm_compare MPI_Comm_compare
#define EP_Comm_create MPI_Comm_create
#define EP_Comm_create_errhandler MPI_Comm_create_errhandler
#define EP_Comm_create_group MPI_Comm_create_group
#define EP_Comm_create_keyval MPI_Comm_create_keyval
#define EP_Comm_delete_attr MPI_Comm_delete_attr
#define EP_Comm_dup MPI_Comm_dup
#define EP_Comm_dup_with_info MPI_Comm_dup_with_info
#define EP_Comm_free MPI_Comm_free
#define EP_Comm_free_keyval MPI_Comm_free_keyval
#define EP_Comm_get_attr MPI_Comm_get_attr
#define EP_Comm_get_errhandler MPI_Comm_get_errhandler
#define EP_Comm_get_info MPI_Comm_get_info
#define EP_Comm_get_name MPI_Comm_get_name
#define EP_Comm_group MPI_Comm_group
#define EP_Comm_idup MPI_Comm_idup
#define EP_Comm_rank MPI_Comm_rank
#define EP_Comm_remote_group MPI_Comm_remote_group
#define EP_Comm_remote_size MPI_Comm_remote_size
#define EP_Comm_set_attr MPI_Comm_set_attr
#define EP_Keyval_create MPI_Keyval_create
#define EP_Keyval_free MPI_Keyval_free
#define EP_Attr_put MPI_Attr_put
#define EP_Attr_get MPI_Attr_get
#define EP_Attr_delete MPI_Attr_delete
#define EP_Comm_set_errhandler MPI_Comm_set_errhandler
#define EP_Comm_set_info MPI_Comm_set_info
#define EP_Comm_set_name MPI_Comm_set_name
#define EP_Comm_size MPI_Comm_size
#define EP_Comm_split MPI_Comm_split
#define EP_Comm_split_type MPI_Comm_split_type
#define EP_Comm_test_inter MPI_Comm_test_inter
#define EP_Compare_and_swap MPI_Compare_and_swap
#define EP_Dims_create MPI_Dims_create
#define EP_Dist_graph_create MPI_Dist_graph_create
#define EP_Dist_graph_create_adjacent MPI_Dist_graph_create_adjacent
#define EP_Dist_graph_neighbors MPI_Dist_graph_neighbors
#define EP_Dist_graph_neighbors_count MPI_Dist_graph_neighbors_count
#define EP_Errhandler_free MPI_Errhandler_free
#define EP_Error_class MPI_Error_class
#define EP_Error_string MPI_Error_string
#define EP_Exscan MPI_Exscan
#define EP_Fetch_and_op MPI_Fetch_and_op
#define EP_Gather MPI_Gather
#define EP_Gatherv MPI_Gatherv
#define EP_Get MPI_Get
#define EP_Get_accumulate MPI_Get_accumulate
#define EP_Get_count MPI_Get_count
#define EP_Get_elements MPI_Get_elements
#define EP_Get_elements_x MPI_Get_elements_x
#define EP_Graph_create MPI_Graph_create
#define EP_Graph_get MPI_Graph_get
#define EP_Graph_map MPI_Graph_map
#define EP_Graph_neighbors MPI_Graph_neighbors
#define EP_Graph_neighbors_count MPI_Graph_neighbors_count
#define EP_Graphdims_get MPI_Graphdims_get
#define EP_Group_compare MPI_Group_compare
#define EP_Group_difference MPI_Group_difference
#define EP_Group_excl MPI_Group_excl
#define EP_Group_free MPI_Group_free
#define EP_Group_incl MPI_Group_incl
#define EP_Group_intersection MPI_Group_intersection
#define EP_Group_range_excl MPI_Group_range_excl
#define EP_Group_range_incl MPI_Group_range_incl
#define EP_Group_rank MPI_Group_rank
#define EP_Group_size MPI_Group_size
#define EP_Group_translate_ranks MPI_Group_translate_ranks
#define EP_Group_union MPI_Group_union
#define EP_Iallgather MPI_Iallgather
#define EP_Iallgatherv MPI_Iallgatherv
#define EP_Iallreduce MPI_Iallreduce
#define EP_Ialltoall MPI_Ialltoall
#define EP_Ialltoallv MPI_Ialltoallv
#define EP_Ialltoallw MPI_Ialltoallw
#define EP_Ibarrier MPI_Ibarrier
#define EP_Ibcast MPI_Ibcast
#define EP_Ibsend MPI_Ibsend
#define EP_Iexscan MPI_Iexscan
#define EP_Igather MPI_Igather
#define EP_Igatherv MPI_Igatherv
#define EP_Improbe MPI_Improbe
#define EP_Imrecv MPI_Imrecv
#define EP_Ineighbor_allgather MPI_Ineighbor_allgather
#define EP_Ineighbor_allgatherv MPI_Ineighbor_allgatherv
#define EP_Ineighbor_alltoall MPI_Ineighbor_alltoall
#define EP_Ineighbor_alltoallv MPI_Ineighbor_alltoallv
#define EP_Ineighbor_alltoallw MPI_Ineighbor_alltoallw
#define EP_Intercomm_create MPI_Intercomm_create
#define EP_Intercomm_merge MPI_Intercomm_merge
#define EP_Iprobe MPI_Iprobe
#define EP_Irecv MPI_Irecv
#define EP_Ireduce MPI_Ireduce
#define EP_Ireduce_scatter MPI_Ireduce_scatter
#define EP_Ireduce_scatter_block MPI_Ireduce_scatter_block
#define EP_Irsend MPI_Irsend
#define EP_Iscan MPI_Iscan
#define EP_Iscatter MPI_Iscatter
#define EP_Iscatterv MPI_Iscatterv
#define EP_Isend MPI_Isend
#define EP_Issend MPI_Issend
#define EP_Mprobe MPI_Mprobe
#define EP_Mrecv MPI_Mrecv
#define EP_Neighbor_allgather MPI_Neighbor_allgather
#define EP_Neighbor_allgatherv MPI_Neighbor_allgatherv
#define EP_Neighbor_alltoall MPI_Neighbor_alltoall
#define EP_Neighbor_alltoallv MPI_Neighbor_alltoallv
#define EP_Neighbor_alltoallw MPI_Neighbor_alltoallw
#define EP_Probe MPI_Probe
#define EP_Put MPI_Put
#define EP_Recv MPI_Recv
#define EP_Recv_init MPI_Recv_init
#define EP_Reduce MPI_Reduce
#define EP_Reduce_local MPI_Reduce_local
#define EP_Reduce_scatter MPI_Reduce_scatter
#define EP_Reduce_scatter_block MPI_Reduce_scatter_block
#define EP_Request_free MPI_Request_free
#define EP_Request_get_status MPI_Request_get_status
#define EP_Rget MPI_Rget
#define EP_Raccumulate MPI_Raccumulate
#define EP_Rget_accumulate MPI_Rget_accumulate
#define EP_Rput MPI_Rput
#define EP_Rsend MPI_Rsend
#define EP_Rsend_init MPI_Rsend_init
#define EP_Scan MPI_Scan
#define EP_Scatter MPI_Scatter
#define EP_Scatterv MPI_Scatterv
#define EP_Send MPI_Send
#define EP_Send_init MPI_Send_init
#define EP_Sendrecv MPI_Sendrecv
#define EP_Sendrecv_replace MPI_Sendrecv_replace
#define EP_Ssend MPI_Ssend
#define EP_Ssend_init MPI_Ssend_init
#define EP_Start MPI_Start
#define EP_Startall MPI_Startall
#define EP_Status_set_cancelled MPI_Status_set_cancelled
#define EP_Status_set_elements MPI_Status_set_elements
#define EP_Status_set_elements_x MPI_Status_set_elements_x
#define EP_Test MPI_Test
#define EP_Test_cancelled MPI_Test_cancelled
#define EP_Testall MPI_Testall
#define EP_Testany MPI_Testany
#define EP_Testsome MPI_Testsome
#define EP_Topo_test MPI_Topo_test
#define EP_Wait MPI_Wait
#define EP_Waitall MPI_Waitall
#define EP_Waitany MPI_Waitany
#define EP_Waitsome MPI_Waitsome
#define EP_Win_allocate MPI_Win_allocate
#define EP_Win_allocate_shared MPI_Win_allocate_shared
#define EP_Win_attach MPI_Win_attach
#define EP_Win_create MPI_Win_create
#define EP_Win_create_dynamic MPI_Win_create_dynamic
#define EP_Win_detach MPI_Win_detach
#define EP_Win_fence MPI_Win_fence
#define EP_Win_flush MPI_Win_flush
#define EP_Win_flush_all MPI_Win_flush_all
#define EP_Win_flush_local_all MPI_Win_flush_local_all
#define EP_Win_flush_local MPI_Win_flush_local
#define EP_Win_free MPI_Win_free
#define EP_Win_get_attr MPI_Win_get_attr
#define EP_Win_get_errhandler MPI_Win_get_errhandler
#define EP_Win_get_group MPI_Win_get_group
#define EP_Win_lock MPI_Win_lock
#define EP_Win_lock_all MPI_Win_lock_all
#define EP_Win_set_errhandler MPI_Win_set_errhandler
#define EP_Win_shared_query MPI_Win_shared_query
#define EP_Win_sync MPI_Win_sync
#define EP_Win_unlock MPI_Win_unlock
#define EP_Win_unlock_all MPI_Win_unlock_all
#define EP_Win_post MPI_Win_post
#define EP_Win_create_keyval MPI_Win_create_keyval
#define EP_Win_free_keyval MPI_Win_free_keyval
#define EP_Win_set_attr MPI_Win_set_attr
#define EP_Win_delete_attr MPI_Win_delete_attr
#define EP_Win_set_name MPI_Win_set_name
#define EP_Win_get_name MPI_Win_get_name
#define EP_Win_set_info MPI_Win_set_info
#define EP_Win_get_info MPI_Win_get_info
#define EP_Win_start MPI_Win_start
#define EP_Win_complete MPI_Win_complete
#define EP_Win_wait MPI_Win_wait
#define EP_Win_test MPI_Win_test
/* MPI 4.0 functions Open MPI 4.1 does not declare: the layer's MPIX_ form on such hosts. */
#if MPI_VERSION >= 4
#define EP_Isendrecv MPI_Isendrecv
#define EP_Isendrecv_replace MPI_Isendrecv_replace
#define EP_Comm_idup_with_info MPI_Comm_idup_with_info
#else
#define EP_Isendrecv MPIX_Isendrecv
#define EP_Isendrecv_replace MPIX_Isendrecv_replace
#define EP_Comm_idup_with_info MPIX_Comm_idup_with_info
#endif

/* MPI 4.0's persistent collectives: the layer defines them on both hosts, and epmpi_mpix.h
 * declares them where the host's mpi.h does not (Open MPI 4.1). */
#define EP_Allgather_init MPI_Allgather_init
#define EP_Allgatherv_init MPI_Allgatherv_init
#define EP_Allreduce_init MPI_Allreduce_init
#define EP_Alltoall_init MPI_Alltoall_init
#define EP_Alltoallv_init MPI_Alltoallv_init
#define EP_Alltoallw_init MPI_Alltoallw_init
#define EP_Barrier_init MPI_Barrier_init
#define EP_Bcast_init MPI_Bcast_init
#define EP_Exscan_init MPI_Exscan_init
#define EP_Gather_init MPI_Gather_init
#define EP_Gatherv_init MPI_Gatherv_init
#define EP_Neighbor_allgather_init MPI_Neighbor_allgather_init
#define EP_Neighbor_allgatherv_init MPI_Neighbor_allgatherv_init
#define EP_Neighbor_alltoall_init MPI_Neighbor_alltoall_init
#define EP_Neighbor_alltoallv_init MPI_Neighbor_alltoallv_init
#define EP_Neighbor_alltoallw_init MPI_Neighbor_alltoallw_init
#define EP_Reduce_init MPI_Reduce_init
#define EP_Reduce_scatter_block_init MPI_Reduce_scatter_block_init
#define EP_Reduce_scatter_init MPI_Reduce_scatter_init
#define EP_Scan_init MPI_Scan_init
#define EP_Scatter_init MPI_Scatter_init
#define EP_Scatterv_init MPI_Scatterv_init

/* EPMPI's own functions: the layer's MPIX_ equivalents. */
#define EP_Comm_create_endpoints MPIX_Comm_create_endpoints
#define EP_Comm_create_endpoint MPIX_Comm_create_endpoint
#define EP_Comm_local_info MPIX_Comm_local_info
#define EP_Comm_get_host_comm MPIX_Comm_get_host_comm
#define EP_Get_library_version MPIX_Get_library_version
#define EP_Debug_live_handles MPIX_Debug_live_handles
#define EP_Debug_live_objects MPIX_Debug_live_objects
#define EP_Debug_live_windows MPIX_Debug_live_windows
#define EP_Endpoint_team MPIX_Endpoint_team
#define EP_ENDPOINT_TEAM_NULL MPIX_ENDPOINT_TEAM_NULL
#define EP_Endpoint_team_create MPIX_Endpoint_team_create
#define EP_Endpoint_join MPIX_Endpoint_join
#define EP_Endpoint_leave MPIX_Endpoint_leave
#define EP_Endpoint_team_destroy MPIX_Endpoint_team_destroy

/* Functions the header declares with another return type. */
#define EP_Wtime MPI_Wtime
#define EP_Wtick MPI_Wtick

#endif
