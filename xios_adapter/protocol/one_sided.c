/*
 * one_sided.c: client buffers as XIOS 3 moves them, passive target only. Every client exposes,
 * in a window of the context's merged communicator, one slot per server: two counters (bytes
 * written by the client, bytes read by the server) and a ring of buffer_bytes. No message goes
 * from client to server:
 *  - the client stores a record into free ring space, makes the stores visible (EP_Win_sync),
 *    then publishes the new `written` counter with an atomic replace (EP_Accumulate, MPI_REPLACE)
 *    on itself; it reads `acked` (atomic fetch, MPI_NO_OP) only when its last known value
 *    leaves too little room;
 *  - the server fetches `written` atomically, Gets the new bytes, and replaces `acked`.
 * Both sides hold one lock_all epoch for the context's life and complete operations with
 * flushes, so nobody waits for a lock and every counter access is an atomic of the same type
 * (MPI 4.1 sections 12.5.3 and 12.7: accumulate atomicity; the flag-and-Win_sync pattern of
 * passive-target polling). The bytes a server reads are never written meanwhile: the client
 * writes only past `written` and before `acked` + buffer_bytes.
 */
#include "epx_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

static MPI_Aint slot_bytes(const struct epx_context *ctx)
{
    return (MPI_Aint)(EPX_SLOT_HEADER + ctx->buffer_bytes);
}

int epx_one_sided_setup(struct epx_context *ctx)
{
    MPI_Aint size = ctx->is_server ? 0 : slot_bytes(ctx) * ctx->servers;
    int rc = EP_Win_allocate(size, 1, MPI_INFO_NULL, ctx->merged, &ctx->base, &ctx->win);
    if (rc == EP_SUCCESS)
        rc = EP_Win_set_errhandler(ctx->win, EP_ERRORS_RETURN);
    if (rc != EP_SUCCESS)
        return rc;
    if (ctx->is_server) {
        ctx->read = calloc((size_t)ctx->clients, sizeof(int64_t));
        ctx->acked = calloc((size_t)ctx->clients, sizeof(int64_t));
        if (!ctx->read || !ctx->acked)
            return EP_ERR_OTHER;
    } else {
        ctx->written = calloc((size_t)ctx->servers, sizeof(int64_t));
        ctx->known_acked = calloc((size_t)ctx->servers, sizeof(int64_t));
        if (!ctx->written || !ctx->known_acked)
            return EP_ERR_OTHER;
        /* Counters start at 0 before any epoch (the Barrier below orders it for the servers). */
        for (int s = 0; s < ctx->servers; s++)
            memset(ctx->base + slot_bytes(ctx) * s, 0, EPX_SLOT_HEADER);
    }
    rc = EP_Win_lock_all(0, ctx->win);
    if (rc == EP_SUCCESS)
        rc = EP_Barrier(ctx->merged);
    return rc;
}

/* Atomic read of the 64-bit counter at byte `disp` of endpoint `rank`'s window, completed. */
static int fetch_counter(struct epx_context *ctx, int rank, MPI_Aint disp, int64_t *value)
{
    int rc = EP_Fetch_and_op(NULL, value, MPI_INT64_T, rank, disp, MPI_NO_OP, ctx->win);
    return rc == EP_SUCCESS ? EP_Win_flush(rank, ctx->win) : rc;
}

int epx_one_sided_send(struct epx_context *ctx, int server, int type, const int64_t *meta,
                       int meta_count, const void *data, int64_t bytes)
{
    MPI_Aint slot = slot_bytes(ctx) * server;
    int64_t size = epx_record_size(meta_count, bytes);
    int64_t written = ctx->written[server];
    while (ctx->buffer_bytes - (written - ctx->known_acked[server]) < size) {
        int64_t acked = 0;
        int rc = fetch_counter(ctx, ctx->my_rank, slot + EPX_SLOT_ACKED, &acked);
        if (rc != EP_SUCCESS)
            return rc;
        if (acked == ctx->known_acked[server])
            sched_yield(); /* the ring is full: the server has not read far enough yet */
        ctx->known_acked[server] = acked;
    }
    epx_record_write(ctx->base + slot + EPX_SLOT_HEADER, ctx->buffer_bytes, written % ctx->buffer_bytes, type, meta,
                     meta_count, data, bytes);
    int64_t published = written + size;
    int rc = EP_Win_sync(ctx->win); /* the record's stores before the counter that shows them */
    if (rc == EP_SUCCESS)
        rc = EP_Accumulate(&published, 1, MPI_INT64_T, ctx->my_rank, slot + EPX_SLOT_WRITTEN, 1, MPI_INT64_T,
                           MPI_REPLACE, ctx->win);
    if (rc == EP_SUCCESS)
        rc = EP_Win_flush(ctx->my_rank, ctx->win);
    if (rc == EP_SUCCESS)
        ctx->written[server] = published;
    return rc;
}

/* Pulls what client `c` wrote for this server since the last read into the staging buffer;
 * *got 1 when there was something. */
static int pull(struct epx_context *ctx, int c, int *got)
{
    MPI_Aint slot = slot_bytes(ctx) * ctx->my_rank;
    int64_t written = 0;
    *got = 0;
    /* The fetch's flush also completes the previous acknowledgement to this client. */
    int rc = fetch_counter(ctx, c, slot + EPX_SLOT_WRITTEN, &written);
    int64_t n = written - ctx->read[c];
    if (rc != EP_SUCCESS || n <= 0)
        return rc;
    if (n > ctx->buffer_bytes)
        return EP_ERR_INTERN; /* the client overran its own ring: corrupt counters */
    int64_t at = ctx->read[c] % ctx->buffer_bytes, first = ctx->buffer_bytes - at;
    if (first > n)
        first = n;
    rc = EP_Get(ctx->staging, (int)first, MPI_BYTE, c, slot + EPX_SLOT_HEADER + at, (int)first, MPI_BYTE, ctx->win);
    if (rc == EP_SUCCESS && n > first)
        rc = EP_Get(ctx->staging + first, (int)(n - first), MPI_BYTE, c, slot + EPX_SLOT_HEADER, (int)(n - first),
                    MPI_BYTE, ctx->win);
    if (rc == EP_SUCCESS)
        rc = EP_Win_flush(c, ctx->win);
    if (rc != EP_SUCCESS)
        return rc;
    /* The bytes are in the staging buffer: their ring space is free again. */
    ctx->read[c] = ctx->acked[c] = written;
    rc = EP_Accumulate(&ctx->acked[c], 1, MPI_INT64_T, c, slot + EPX_SLOT_ACKED, 1, MPI_INT64_T, MPI_REPLACE,
                       ctx->win);
    if (rc != EP_SUCCESS)
        return rc;
    ctx->staging_client = c;
    ctx->staging_len = n;
    ctx->staging_pos = 0;
    *got = 1;
    return EP_SUCCESS;
}

int epx_one_sided_refill(struct epx_context *ctx, int *flag)
{
    *flag = 0;
    for (int i = 0; i < ctx->clients; i++) {
        int c = (ctx->next_client + i) % ctx->clients;
        if (ctx->client_done[c])
            continue;
        int rc = pull(ctx, c, flag);
        if (rc != EP_SUCCESS)
            return rc;
        if (*flag) {
            ctx->next_client = (c + 1) % ctx->clients;
            return EP_SUCCESS;
        }
    }
    return EP_SUCCESS;
}

int epx_one_sided_release(struct epx_context *ctx)
{
    /* Ends the context's epoch (completing the last acknowledgements), then the window goes. */
    int rc = EP_Win_unlock_all(ctx->win);
    int free_rc = EP_Win_free(&ctx->win);
    return epx_first_error(rc, free_rc);
}
