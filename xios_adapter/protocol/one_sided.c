/*
 * one_sided.c: client buffers as XIOS 3 moves them, passive target only. Every client exposes,
 * in a window of the context's merged communicator, one slot per server: two counters (bytes
 * written by the client, bytes read by the server) and a ring of buffer_bytes. The client
 * writes records into its own memory under an exclusive lock on itself; the server pulls new
 * bytes with Get under a shared lock and Puts back how far it read, which frees ring space. No
 * message goes from client to server: the exclusive lock orders the client's stores before the
 * server's reads (MPI 4.1 section 12.7, the lock rules of the unified and separate models).
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
    if (rc == EP_SUCCESS && ctx->is_server) {
        ctx->read = calloc((size_t)ctx->clients, sizeof(int64_t));
        if (!ctx->read)
            rc = EP_ERR_OTHER;
    }
    if (rc == EP_SUCCESS && !ctx->is_server) {
        /* Counters start at 0 before any server looks (the Barrier below orders it). */
        rc = EP_Win_lock(MPI_LOCK_EXCLUSIVE, ctx->my_rank, 0, ctx->win);
        if (rc == EP_SUCCESS) {
            for (int s = 0; s < ctx->servers; s++)
                memset(ctx->base + slot_bytes(ctx) * s, 0, EPX_SLOT_HEADER);
            rc = EP_Win_unlock(ctx->my_rank, ctx->win);
        }
    }
    if (rc == EP_SUCCESS)
        rc = EP_Barrier(ctx->merged);
    return rc;
}

int epx_one_sided_send(struct epx_context *ctx, int server, int type, const int64_t *meta,
                       int meta_count, const void *data, int64_t bytes)
{
    char *slot = ctx->base + slot_bytes(ctx) * server;
    int64_t *counters = (int64_t *)(void *)slot;
    int64_t size = epx_record_size(meta_count, bytes);
    for (;;) {
        int rc = EP_Win_lock(MPI_LOCK_EXCLUSIVE, ctx->my_rank, 0, ctx->win);
        if (rc != EP_SUCCESS)
            return rc;
        int64_t written = counters[EPX_SLOT_WRITTEN / 8], acked = counters[EPX_SLOT_ACKED / 8];
        int fits = ctx->buffer_bytes - (written - acked) >= size;
        if (fits) {
            epx_record_write(slot + EPX_SLOT_HEADER, ctx->buffer_bytes, written % ctx->buffer_bytes, type,
                             meta, meta_count, data, bytes);
            counters[EPX_SLOT_WRITTEN / 8] = written + size;
        }
        rc = EP_Win_unlock(ctx->my_rank, ctx->win);
        if (rc != EP_SUCCESS || fits)
            return rc;
        sched_yield(); /* the ring is full: the server has not read far enough yet */
    }
}

/* Pulls what client `c` wrote for this server since the last read into the staging buffer;
 * *got 1 when there was something. */
static int pull(struct epx_context *ctx, int c, int *got)
{
    MPI_Aint slot = slot_bytes(ctx) * ctx->my_rank;
    int64_t written = 0;
    *got = 0;
    int rc = EP_Win_lock(MPI_LOCK_SHARED, c, 0, ctx->win);
    if (rc != EP_SUCCESS)
        return rc;
    rc = EP_Get(&written, 1, MPI_INT64_T, c, slot + EPX_SLOT_WRITTEN, 1, MPI_INT64_T, ctx->win);
    if (rc == EP_SUCCESS)
        rc = EP_Win_flush(c, ctx->win);
    int64_t n = written - ctx->read[c];
    if (rc == EP_SUCCESS && n > 0) {
        if (n > ctx->buffer_bytes) {
            rc = EP_ERR_INTERN; /* the client overran its own ring: corrupt counters */
        } else {
            int64_t at = ctx->read[c] % ctx->buffer_bytes, first = ctx->buffer_bytes - at;
            if (first > n)
                first = n;
            rc = EP_Get(ctx->staging, (int)first, MPI_BYTE, c, slot + EPX_SLOT_HEADER + at, (int)first,
                        MPI_BYTE, ctx->win);
            if (rc == EP_SUCCESS && n > first)
                rc = EP_Get(ctx->staging + first, (int)(n - first), MPI_BYTE, c, slot + EPX_SLOT_HEADER,
                            (int)(n - first), MPI_BYTE, ctx->win);
            /* The acknowledgement may land before the Gets complete: the client cannot lock
             * its slot again, hence not reuse the bytes, before the unlock below. */
            ctx->read[c] = written;
            if (rc == EP_SUCCESS)
                rc = EP_Put(&ctx->read[c], 1, MPI_INT64_T, c, slot + EPX_SLOT_ACKED, 1, MPI_INT64_T, ctx->win);
            *got = rc == EP_SUCCESS;
        }
    }
    int unlock_rc = EP_Win_unlock(c, ctx->win);
    if (*got) {
        ctx->staging_client = c;
        ctx->staging_len = n;
        ctx->staging_pos = 0;
    }
    return epx_first_error(rc, unlock_rc);
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
    return EP_Win_free(&ctx->win);
}
