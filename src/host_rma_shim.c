/*
 * Host MPI constants of one-sided communication (MPI 4.1 chapter 12) that the Rust side
 * cannot read through mpi-sys: lock types, assertion bits, error classes and handles are
 * macros whose values differ between Open MPI and MPICH.
 */
#include <mpi.h>
#include <string.h>

typedef struct epmpi_host_rma_constants {
    MPI_Win win_null;
    MPI_Datatype aint;
    MPI_Op op_replace;
    MPI_Op op_no_op;
    MPI_Op op_sum;
    int lock_exclusive;
    int lock_shared;
    int mode_nocheck;
    int mode_nosucceed;
    int mode_noprecede;
    int mode_noput;
    int mode_nostore;
    int err_rma_sync;
    int err_rma_range;
    int err_rma_conflict;
    int err_rma_attach;
    int err_disp;
    int err_type;
    int err_op;
    int err_rank;
    int err_locktype;
    int err_assert;
    int err_size;
    int err_arg;
    int needs_target_progress;
    int comm_type_shared;
    int win_model_key;
    int win_unified;
    int nocheck_lock_reliable;
    int allocate_window_memory;
} epmpi_host_rma_constants;

void epmpi_host_rma_constants_get(epmpi_host_rma_constants *out)
{
    out->win_null = MPI_WIN_NULL;
    out->aint = MPI_AINT;
    out->op_replace = MPI_REPLACE;
    out->op_no_op = MPI_NO_OP;
    out->op_sum = MPI_SUM;
    out->lock_exclusive = MPI_LOCK_EXCLUSIVE;
    out->lock_shared = MPI_LOCK_SHARED;
    out->mode_nocheck = MPI_MODE_NOCHECK;
    out->mode_nosucceed = MPI_MODE_NOSUCCEED;
    out->mode_noprecede = MPI_MODE_NOPRECEDE;
    out->mode_noput = MPI_MODE_NOPUT;
    out->mode_nostore = MPI_MODE_NOSTORE;
    out->err_rma_sync = MPI_ERR_RMA_SYNC;
    out->err_rma_range = MPI_ERR_RMA_RANGE;
    out->err_rma_conflict = MPI_ERR_RMA_CONFLICT;
    out->err_rma_attach = MPI_ERR_RMA_ATTACH;
    out->err_disp = MPI_ERR_DISP;
    out->err_type = MPI_ERR_TYPE;
    out->err_op = MPI_ERR_OP;
    out->err_rank = MPI_ERR_RANK;
    out->err_locktype = MPI_ERR_LOCKTYPE;
    out->err_assert = MPI_ERR_ASSERT;
    out->err_size = MPI_ERR_SIZE;
    out->err_arg = MPI_ERR_ARG;
#ifdef OPEN_MPI
    /* Open MPI's UCX one-sided component serves other processes' lock and atomic requests
     * only inside its progress engine, which its calls on the process's own windows do not
     * run: a process that only locks its own window starves every origin (measured with
     * Open MPI 4.1.4, plain MPI too). */
    out->needs_target_progress = 1;
#else
    out->needs_target_progress = 0;
#endif
    out->comm_type_shared = MPI_COMM_TYPE_SHARED;
    out->win_model_key = MPI_WIN_MODEL;
    out->win_unified = MPI_WIN_UNIFIED;
#ifdef OPEN_MPI
    out->nocheck_lock_reliable = 1;
    /* Open MPI's UCX component maps MPI_Win_allocate's memory where other processes of the
     * node reach it directly; MPI_Win_create's memory only through the target's progress
     * engine or a system call (measured with Open MPI 4.1.4: a lock, a put of 8 bytes and an
     * unlock 1.5 us against 2.4 us, 4 KiB puts 20 times faster). */
    out->allocate_window_memory = 1;
#else
    /* MPICH 4.0.2: a lock taken under MPI_MODE_NOCHECK and released, then a shared lock
     * taken and released, and the next exclusive lock of that target waits for ever, on the
     * process itself as on another (measured, plain MPI too). Open MPI 4.1.4 runs that
     * sequence through. */
    out->nocheck_lock_reliable = 0;
    /* MPICH 4.0.2 over UCX puts the small windows of MPI_Win_allocate on one page and then
     * carries one window's operations into another's memory (README, host limitations). */
    out->allocate_window_memory = 0;
#endif
}

/* 1 when `info` has `key` set to "true" (MPI 4.1 section 10: info values are strings), else 0;
 * MPI_INFO_NULL has no key. */
int epmpi_info_is_true(MPI_Info info, const char *key)
{
    char value[16];
    int flag = 0;
    if (info == MPI_INFO_NULL)
        return 0;
#if MPI_VERSION >= 4
    /* MPI_Info_get is deprecated from MPI 4.0 on. */
    int len = (int)sizeof(value);
    if (MPI_Info_get_string(info, key, &len, value, &flag) != MPI_SUCCESS || !flag)
        return 0;
#else
    if (MPI_Info_get(info, key, (int)sizeof(value) - 1, value, &flag) != MPI_SUCCESS || !flag)
        return 0;
#endif
    return strcmp(value, "true") == 0;
}
