/*
 * Handle cases of the bad-input suite: every public function that takes a communicator,
 * window, request or message handle, wrapped so that a table can call it with a bad handle
 * (made up, forged with the right kind bits, freed, of another kind, null) and otherwise
 * valid arguments. Each must fail with the handle's class (EP_ERR_COMM, EP_ERR_WIN,
 * EP_ERR_REQUEST) without communicating, so one endpoint can run them alone.
 */
#ifndef BAD_INPUT_HANDLES_H
#define BAD_INPUT_HANDLES_H

#include "bad_input.h"

/* Valid arguments for the wrapped calls; set by the endpoint that runs the cases. */
typedef struct {
    EP_Comm comm;  /* a valid communicator endpoint */
    EP_Win win;    /* a valid window handle of `comm` (no epoch open) */
    int size;      /* size of `comm` */
    int *sbuf;     /* 4 * size ints */
    int *rbuf;     /* 4 * size ints */
    int *counts;   /* size entries, all 1 */
    int *displs;   /* size entries, 0, 1, 2, ... */
} bad_ctx;

static bad_ctx B;

typedef struct {
    const char *name;
    int (*call)(int handle);
    int null_ok; /* the null handle is valid here (it names the process default, or is skipped) */
} bad_handle_fn;

#define HFN(kind, fn, call) static int bad_##kind##_##fn(int h) { return call; }
#define HENTRY(kind, fn) { #fn, bad_##kind##_##fn, 0 }
#define HENTRY_NULL_OK(kind, fn) { #fn, bad_##kind##_##fn, 1 }

/* ---- functions taking a communicator ---- */
static EP_Comm bad_comm_out;
static EP_Win bad_win_out;
static EP_Request bad_req_out;
static EP_Message bad_msg_out;
static char bad_name_out[EP_MAX_OBJECT_NAME];
static MPI_Info bad_info_out;
static EP_Status bad_status;
static int bad_int_out, bad_flag_out;
static void *bad_ptr_out;
static MPI_Comm bad_host_out;

HFN(comm, EP_Barrier, EP_Barrier(h))
HFN(comm, EP_Bcast, EP_Bcast(B.sbuf, 1, MPI_INT, 0, h))
HFN(comm, EP_Reduce, EP_Reduce(B.sbuf, B.rbuf, 1, MPI_INT, MPI_SUM, 0, h))
HFN(comm, EP_Allreduce, EP_Allreduce(B.sbuf, B.rbuf, 1, MPI_INT, MPI_SUM, h))
HFN(comm, EP_Reduce_scatter_block, EP_Reduce_scatter_block(B.sbuf, B.rbuf, 1, MPI_INT, MPI_SUM, h))
HFN(comm, EP_Reduce_scatter, EP_Reduce_scatter(B.sbuf, B.rbuf, B.counts, MPI_INT, MPI_SUM, h))
HFN(comm, EP_Scan, EP_Scan(B.sbuf, B.rbuf, 1, MPI_INT, MPI_SUM, h))
HFN(comm, EP_Exscan, EP_Exscan(B.sbuf, B.rbuf, 1, MPI_INT, MPI_SUM, h))
HFN(comm, EP_Gather, EP_Gather(B.sbuf, 1, MPI_INT, B.rbuf, 1, MPI_INT, 0, h))
HFN(comm, EP_Gatherv, EP_Gatherv(B.sbuf, 1, MPI_INT, B.rbuf, B.counts, B.displs, MPI_INT, 0, h))
HFN(comm, EP_Scatter, EP_Scatter(B.sbuf, 1, MPI_INT, B.rbuf, 1, MPI_INT, 0, h))
HFN(comm, EP_Scatterv, EP_Scatterv(B.sbuf, B.counts, B.displs, MPI_INT, B.rbuf, 1, MPI_INT, 0, h))
HFN(comm, EP_Allgather, EP_Allgather(B.sbuf, 1, MPI_INT, B.rbuf, 1, MPI_INT, h))
HFN(comm, EP_Allgatherv, EP_Allgatherv(B.sbuf, 1, MPI_INT, B.rbuf, B.counts, B.displs, MPI_INT, h))
HFN(comm, EP_Alltoall, EP_Alltoall(B.sbuf, 1, MPI_INT, B.rbuf, 1, MPI_INT, h))
HFN(comm, EP_Alltoallv, EP_Alltoallv(B.sbuf, B.counts, B.displs, MPI_INT, B.rbuf, B.counts, B.displs, MPI_INT, h))
HFN(comm, EP_Ibarrier, EP_Ibarrier(h, &bad_req_out))
HFN(comm, EP_Ibcast, EP_Ibcast(B.sbuf, 1, MPI_INT, 0, h, &bad_req_out))
HFN(comm, EP_Comm_rank, EP_Comm_rank(h, &bad_int_out))
HFN(comm, EP_Comm_size, EP_Comm_size(h, &bad_int_out))
HFN(comm, EP_Comm_remote_size, EP_Comm_remote_size(h, &bad_int_out))
HFN(comm, EP_Comm_test_inter, EP_Comm_test_inter(h, &bad_flag_out))
HFN(comm, EP_Intercomm_create, EP_Intercomm_create(h, 0, B.comm, 0, 7, &bad_comm_out))
HFN(comm, EP_Intercomm_merge, EP_Intercomm_merge(h, 0, &bad_comm_out))
HFN(comm, EP_Comm_local_info, EP_Comm_local_info(h, &bad_int_out, &bad_int_out, &bad_int_out))
HFN(comm, EP_Comm_get_attr, EP_Comm_get_attr(h, EP_TAG_UB, &bad_ptr_out, &bad_flag_out))
HFN(comm, EP_Comm_compare, EP_Comm_compare(h, B.comm, &bad_int_out))
HFN(comm, EP_Comm_dup, EP_Comm_dup(h, &bad_comm_out))
HFN(comm, EP_Comm_free, (bad_comm_out = h, EP_Comm_free(&bad_comm_out)))
HFN(comm, EP_Comm_set_errhandler, EP_Comm_set_errhandler(h, EP_ERRORS_RETURN))
HFN(comm, EP_Comm_get_errhandler, EP_Comm_get_errhandler(h, &bad_int_out))
HFN(comm, EP_Comm_split, EP_Comm_split(h, 0, 0, &bad_comm_out))
HFN(comm, EP_Comm_split_type, EP_Comm_split_type(h, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &bad_comm_out))
HFN(comm, EP_Comm_get_host_comm, EP_Comm_get_host_comm(h, &bad_host_out))
HFN(comm, EP_Send, EP_Send(B.sbuf, 1, MPI_INT, 0, 0, h))
HFN(comm, EP_Ssend, EP_Ssend(B.sbuf, 1, MPI_INT, 0, 0, h))
HFN(comm, EP_Isend, EP_Isend(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Issend, EP_Issend(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Recv, EP_Recv(B.rbuf, 1, MPI_INT, 0, 0, h, &bad_status))
HFN(comm, EP_Irecv, EP_Irecv(B.rbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Sendrecv, EP_Sendrecv(B.sbuf, 1, MPI_INT, 0, 0, B.rbuf, 1, MPI_INT, 0, 0, h, &bad_status))
HFN(comm, EP_Iprobe, EP_Iprobe(0, 0, h, &bad_flag_out, &bad_status))
HFN(comm, EP_Probe, EP_Probe(0, 0, h, &bad_status))
HFN(comm, EP_Improbe, EP_Improbe(0, 0, h, &bad_flag_out, &bad_msg_out, &bad_status))
HFN(comm, EP_Mprobe, EP_Mprobe(0, 0, h, &bad_msg_out, &bad_status))
HFN(comm, EP_Win_create, EP_Win_create(B.rbuf, 4, 4, MPI_INFO_NULL, h, &bad_win_out))
HFN(comm, EP_Win_allocate, EP_Win_allocate(4, 4, MPI_INFO_NULL, h, &bad_ptr_out, &bad_win_out))
HFN(comm, EP_Win_allocate_shared, EP_Win_allocate_shared(4, 4, MPI_INFO_NULL, h, &bad_ptr_out, &bad_win_out))
HFN(comm, EP_Win_create_dynamic, EP_Win_create_dynamic(MPI_INFO_NULL, h, &bad_win_out))
HFN(comm, EP_Comm_group, EP_Comm_group(h, &bad_int_out))
HFN(comm, EP_Comm_remote_group, EP_Comm_remote_group(h, &bad_int_out))
HFN(comm, EP_Comm_create, EP_Comm_create(h, EP_GROUP_EMPTY, &bad_comm_out))
HFN(comm, EP_Comm_create_group, EP_Comm_create_group(h, EP_GROUP_EMPTY, 0, &bad_comm_out))
HFN(comm, EP_Comm_idup, EP_Comm_idup(h, &bad_comm_out, &bad_req_out))
HFN(comm, EP_Comm_set_name, EP_Comm_set_name(h, "name"))
HFN(comm, EP_Comm_get_name, EP_Comm_get_name(h, bad_name_out, &bad_int_out))
HFN(comm, EP_Comm_set_attr, EP_Comm_set_attr(h, EP_TAG_UB, NULL))
HFN(comm, EP_Comm_delete_attr, EP_Comm_delete_attr(h, EP_TAG_UB))
HFN(comm, EP_Attr_get, EP_Attr_get(h, EP_TAG_UB, &bad_ptr_out, &bad_flag_out))
HFN(comm, EP_Attr_put, EP_Attr_put(h, EP_TAG_UB, NULL))
HFN(comm, EP_Attr_delete, EP_Attr_delete(h, EP_TAG_UB))
HFN(comm, EP_Comm_call_errhandler, EP_Comm_call_errhandler(h, EP_ERR_OTHER))
HFN(comm, EP_Comm_dup_with_info, EP_Comm_dup_with_info(h, MPI_INFO_NULL, &bad_comm_out))
HFN(comm, EP_Comm_idup_with_info, EP_Comm_idup_with_info(h, MPI_INFO_NULL, &bad_comm_out, &bad_req_out))
HFN(comm, EP_Comm_set_info, EP_Comm_set_info(h, MPI_INFO_NULL))
HFN(comm, EP_Comm_get_info, EP_Comm_get_info(h, &bad_info_out))
/* Send-receive in place, nonblocking send-receive, persistent requests, buffered and ready modes. */
HFN(comm, EP_Sendrecv_replace, EP_Sendrecv_replace(B.rbuf, 1, MPI_INT, 0, 0, 0, 0, h, &bad_status))
HFN(comm, EP_Isendrecv, EP_Isendrecv(B.sbuf, 1, MPI_INT, 0, 0, B.rbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Isendrecv_replace, EP_Isendrecv_replace(B.rbuf, 1, MPI_INT, 0, 0, 0, 0, h, &bad_req_out))
HFN(comm, EP_Send_init, EP_Send_init(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Ssend_init, EP_Ssend_init(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Bsend_init, EP_Bsend_init(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Rsend_init, EP_Rsend_init(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Recv_init, EP_Recv_init(B.rbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Bsend, EP_Bsend(B.sbuf, 1, MPI_INT, 0, 0, h))
HFN(comm, EP_Ibsend, EP_Ibsend(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
HFN(comm, EP_Rsend, EP_Rsend(B.sbuf, 1, MPI_INT, 0, 0, h))
HFN(comm, EP_Irsend, EP_Irsend(B.sbuf, 1, MPI_INT, 0, 0, h, &bad_req_out))
/* The second communicator of EP_Comm_compare. (A bad peer communicator of
 * EP_Intercomm_create fails the call on every endpoint: collective_creation_cases in
 * bad_input.c.) */
static int bad_comm_compare_second(int h) { return EP_Comm_compare(B.comm, h, &bad_int_out); }

static const bad_handle_fn bad_comm_fns[] = {
    HENTRY(comm, EP_Barrier), HENTRY(comm, EP_Bcast), HENTRY(comm, EP_Reduce), HENTRY(comm, EP_Allreduce),
    HENTRY(comm, EP_Reduce_scatter_block), HENTRY(comm, EP_Reduce_scatter), HENTRY(comm, EP_Scan),
    HENTRY(comm, EP_Exscan), HENTRY(comm, EP_Gather), HENTRY(comm, EP_Gatherv), HENTRY(comm, EP_Scatter),
    HENTRY(comm, EP_Scatterv), HENTRY(comm, EP_Allgather), HENTRY(comm, EP_Allgatherv), HENTRY(comm, EP_Alltoall),
    HENTRY(comm, EP_Alltoallv), HENTRY(comm, EP_Ibarrier), HENTRY(comm, EP_Ibcast), HENTRY(comm, EP_Comm_rank),
    HENTRY(comm, EP_Comm_size), HENTRY(comm, EP_Comm_remote_size), HENTRY(comm, EP_Comm_test_inter),
    HENTRY(comm, EP_Intercomm_create), HENTRY(comm, EP_Intercomm_merge), HENTRY(comm, EP_Comm_local_info),
    HENTRY(comm, EP_Comm_get_attr), HENTRY(comm, EP_Comm_compare), HENTRY(comm, EP_Comm_dup),
    HENTRY(comm, EP_Comm_free), HENTRY_NULL_OK(comm, EP_Comm_set_errhandler),
    HENTRY_NULL_OK(comm, EP_Comm_get_errhandler), HENTRY(comm, EP_Comm_split), HENTRY(comm, EP_Comm_split_type),
    HENTRY(comm, EP_Comm_get_host_comm), HENTRY(comm, EP_Send), HENTRY(comm, EP_Ssend), HENTRY(comm, EP_Isend),
    HENTRY(comm, EP_Issend), HENTRY(comm, EP_Recv), HENTRY(comm, EP_Irecv), HENTRY(comm, EP_Sendrecv),
    HENTRY(comm, EP_Iprobe), HENTRY(comm, EP_Probe), HENTRY(comm, EP_Improbe), HENTRY(comm, EP_Mprobe),
    HENTRY(comm, EP_Win_create), HENTRY(comm, EP_Win_allocate), HENTRY(comm, EP_Win_create_dynamic),
    HENTRY(comm, EP_Win_allocate_shared),
    HENTRY(comm, EP_Sendrecv_replace), HENTRY(comm, EP_Isendrecv), HENTRY(comm, EP_Isendrecv_replace),
    HENTRY(comm, EP_Send_init), HENTRY(comm, EP_Ssend_init), HENTRY(comm, EP_Bsend_init), HENTRY(comm, EP_Rsend_init),
    HENTRY(comm, EP_Recv_init), HENTRY(comm, EP_Bsend), HENTRY(comm, EP_Ibsend), HENTRY(comm, EP_Rsend),
    HENTRY(comm, EP_Irsend),
    { "EP_Comm_compare", bad_comm_compare_second, 0 },
    HENTRY(comm, EP_Comm_group), HENTRY(comm, EP_Comm_remote_group), HENTRY(comm, EP_Comm_create),
    HENTRY(comm, EP_Comm_create_group), HENTRY(comm, EP_Comm_idup), HENTRY(comm, EP_Comm_set_name),
    HENTRY(comm, EP_Comm_get_name), HENTRY(comm, EP_Comm_set_attr), HENTRY(comm, EP_Comm_delete_attr),
    HENTRY(comm, EP_Comm_call_errhandler), HENTRY(comm, EP_Comm_dup_with_info), HENTRY(comm, EP_Comm_idup_with_info),
    HENTRY(comm, EP_Comm_set_info), HENTRY(comm, EP_Comm_get_info), HENTRY(comm, EP_Attr_get),
    HENTRY(comm, EP_Attr_put), HENTRY(comm, EP_Attr_delete),
};

/* ---- functions taking a window ---- */
static int bad_win_copy;

HFN(win, EP_Win_attach, EP_Win_attach(h, B.rbuf, 4))
HFN(win, EP_Win_detach, EP_Win_detach(h, B.rbuf))
HFN(win, EP_Win_free, (bad_win_copy = h, EP_Win_free(&bad_win_copy)))
HFN(win, EP_Win_fence, EP_Win_fence(0, h))
HFN(win, EP_Win_lock, EP_Win_lock(MPI_LOCK_SHARED, 0, 0, h))
HFN(win, EP_Win_unlock, EP_Win_unlock(0, h))
HFN(win, EP_Win_lock_all, EP_Win_lock_all(0, h))
HFN(win, EP_Win_unlock_all, EP_Win_unlock_all(h))
HFN(win, EP_Win_flush, EP_Win_flush(0, h))
HFN(win, EP_Win_flush_all, EP_Win_flush_all(h))
HFN(win, EP_Win_flush_local, EP_Win_flush_local(0, h))
HFN(win, EP_Win_flush_local_all, EP_Win_flush_local_all(h))
HFN(win, EP_Win_sync, EP_Win_sync(h))
HFN(win, EP_Win_post, EP_Win_post(EP_GROUP_EMPTY, 0, h))
HFN(win, EP_Win_start, EP_Win_start(EP_GROUP_EMPTY, 0, h))
HFN(win, EP_Win_complete, EP_Win_complete(h))
HFN(win, EP_Win_wait, EP_Win_wait(h))
HFN(win, EP_Win_test, EP_Win_test(h, &bad_int_out))
static MPI_Info bad_info_out;
HFN(win, EP_Win_set_name, EP_Win_set_name(h, "w"))
HFN(win, EP_Win_get_name, EP_Win_get_name(h, bad_name_out, &bad_int_out))
HFN(win, EP_Win_set_info, EP_Win_set_info(h, MPI_INFO_NULL))
HFN(win, EP_Win_get_info, EP_Win_get_info(h, &bad_info_out))
HFN(win, EP_Win_set_attr, EP_Win_set_attr(h, EP_WIN_BASE, NULL))
HFN(win, EP_Win_delete_attr, EP_Win_delete_attr(h, EP_WIN_BASE))
HFN(win, EP_Put, EP_Put(B.sbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, h))
HFN(win, EP_Get, EP_Get(B.rbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, h))
HFN(win, EP_Rput, EP_Rput(B.sbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, h, &bad_req_out))
HFN(win, EP_Rget, EP_Rget(B.rbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, h, &bad_req_out))
HFN(win, EP_Raccumulate, EP_Raccumulate(B.sbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, h, &bad_req_out))
HFN(win, EP_Rget_accumulate,
    EP_Rget_accumulate(B.sbuf, 1, MPI_INT, B.rbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, h, &bad_req_out))
HFN(win, EP_Accumulate, EP_Accumulate(B.sbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, h))
HFN(win, EP_Get_accumulate, EP_Get_accumulate(B.sbuf, 1, MPI_INT, B.rbuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, h))
HFN(win, EP_Fetch_and_op, EP_Fetch_and_op(B.sbuf, B.rbuf, MPI_INT, 0, 0, MPI_SUM, h))
HFN(win, EP_Compare_and_swap, EP_Compare_and_swap(B.sbuf, B.sbuf, B.rbuf, MPI_INT, 0, 0, h))
HFN(win, EP_Win_set_errhandler, EP_Win_set_errhandler(h, EP_ERRORS_RETURN))
HFN(win, EP_Win_get_errhandler, EP_Win_get_errhandler(h, &bad_int_out))
static MPI_Aint bad_aint_out;
HFN(win, EP_Win_shared_query, EP_Win_shared_query(h, 0, &bad_aint_out, &bad_int_out, &bad_ptr_out))
HFN(win, EP_Win_get_attr, EP_Win_get_attr(h, EP_WIN_BASE, &bad_ptr_out, &bad_flag_out))
HFN(win, EP_Win_get_group, EP_Win_get_group(h, &bad_int_out))

static const bad_handle_fn bad_win_fns[] = {
    HENTRY(win, EP_Win_attach), HENTRY(win, EP_Win_detach), HENTRY(win, EP_Win_free), HENTRY(win, EP_Win_fence),
    HENTRY(win, EP_Win_lock), HENTRY(win, EP_Win_unlock), HENTRY(win, EP_Win_lock_all),
    HENTRY(win, EP_Win_unlock_all), HENTRY(win, EP_Win_flush), HENTRY(win, EP_Win_flush_all),
    HENTRY(win, EP_Win_flush_local), HENTRY(win, EP_Win_flush_local_all), HENTRY(win, EP_Win_sync), HENTRY(win, EP_Put), HENTRY(win, EP_Get),
    HENTRY(win, EP_Win_post), HENTRY(win, EP_Win_start), HENTRY(win, EP_Win_complete), HENTRY(win, EP_Win_wait),
    HENTRY(win, EP_Win_test), HENTRY(win, EP_Win_set_name), HENTRY(win, EP_Win_get_name), HENTRY(win, EP_Win_set_info),
    HENTRY(win, EP_Win_get_info), HENTRY(win, EP_Win_set_attr), HENTRY(win, EP_Win_delete_attr),
    HENTRY(win, EP_Rput), HENTRY(win, EP_Rget), HENTRY(win, EP_Raccumulate), HENTRY(win, EP_Rget_accumulate),
    HENTRY(win, EP_Accumulate), HENTRY(win, EP_Get_accumulate),
    HENTRY(win, EP_Fetch_and_op), HENTRY(win, EP_Compare_and_swap), HENTRY(win, EP_Win_set_errhandler),
    HENTRY(win, EP_Win_get_errhandler), HENTRY(win, EP_Win_shared_query), HENTRY(win, EP_Win_get_attr),
    HENTRY(win, EP_Win_get_group),
};

/* ---- functions taking requests and messages (EP_ERR_REQUEST) ---- */
static EP_Request bad_reqs[1];
static int bad_indices[1];
static EP_Status bad_statuses[1];

HFN(req, EP_Wait, (bad_reqs[0] = h, EP_Wait(&bad_reqs[0], &bad_status)))
HFN(req, EP_Test, (bad_reqs[0] = h, EP_Test(&bad_reqs[0], &bad_flag_out, &bad_status)))
HFN(req, EP_Waitall, (bad_reqs[0] = h, EP_Waitall(1, bad_reqs, bad_statuses)))
HFN(req, EP_Testall, (bad_reqs[0] = h, EP_Testall(1, bad_reqs, &bad_flag_out, bad_statuses)))
HFN(req, EP_Waitany, (bad_reqs[0] = h, EP_Waitany(1, bad_reqs, &bad_int_out, &bad_status)))
HFN(req, EP_Testany, (bad_reqs[0] = h, EP_Testany(1, bad_reqs, &bad_int_out, &bad_flag_out, &bad_status)))
HFN(req, EP_Waitsome, (bad_reqs[0] = h, EP_Waitsome(1, bad_reqs, &bad_int_out, bad_indices, bad_statuses)))
HFN(req, EP_Testsome, (bad_reqs[0] = h, EP_Testsome(1, bad_reqs, &bad_int_out, bad_indices, bad_statuses)))
HFN(req, EP_Request_free, (bad_reqs[0] = h, EP_Request_free(&bad_reqs[0])))
HFN(req, EP_Cancel, (bad_reqs[0] = h, EP_Cancel(&bad_reqs[0])))
HFN(req, EP_Mrecv, (bad_msg_out = h, EP_Mrecv(B.rbuf, 1, MPI_INT, &bad_msg_out, &bad_status)))
HFN(req, EP_Imrecv, (bad_msg_out = h, EP_Imrecv(B.rbuf, 1, MPI_INT, &bad_msg_out, &bad_req_out)))
HFN(req, EP_Start, (bad_reqs[0] = h, EP_Start(&bad_reqs[0])))
HFN(req, EP_Startall, (bad_reqs[0] = h, EP_Startall(1, bad_reqs)))
HFN(req, EP_Request_get_status, EP_Request_get_status(h, &bad_flag_out, &bad_status))

/* EP_REQUEST_NULL is an inactive request to the completion calls and EP_Request_get_status
 * (null_ok), and no request to start for EP_Start/EP_Startall; EP_MESSAGE_NULL is no message
 * to EP_Mrecv/EP_Imrecv. */
static const bad_handle_fn bad_req_fns[] = {
    HENTRY_NULL_OK(req, EP_Wait), HENTRY_NULL_OK(req, EP_Test), HENTRY_NULL_OK(req, EP_Waitall),
    HENTRY_NULL_OK(req, EP_Testall), HENTRY_NULL_OK(req, EP_Waitany), HENTRY_NULL_OK(req, EP_Testany),
    HENTRY_NULL_OK(req, EP_Waitsome), HENTRY_NULL_OK(req, EP_Testsome), HENTRY(req, EP_Request_free),
    HENTRY(req, EP_Cancel), HENTRY(req, EP_Mrecv), HENTRY(req, EP_Imrecv),
    HENTRY(req, EP_Start), HENTRY(req, EP_Startall), HENTRY_NULL_OK(req, EP_Request_get_status),
};

#define BAD_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* One bad handle value and what it is. */
typedef struct {
    int value;
    const char *what;
    int is_null;
} bad_handle;

/* Calls every function of `fns` with every handle of `handles`; each must give `want`. */
static void bad_run_handle_table(const bad_handle_fn *fns, int nfns, const bad_handle *handles, int nhandles, int want)
{
    for (int k = 0; k < nhandles; k++)
        for (int i = 0; i < nfns; i++) {
            if (handles[k].is_null && fns[i].null_ok)
                continue;
            int rc = fns[i].call(handles[k].value);
            bad_expect(fns[i].name, want, rc, handles[k].what, __FILE__, __LINE__);
        }
}

#endif
