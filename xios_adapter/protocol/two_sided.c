/*
 * two_sided.c: client buffers as XIOS 2 moves them. Each client keeps two buffers per server;
 * a full buffer leaves with EP_Issend (tag 20) on the context's intercommunicator while the
 * client fills the other, and a buffer is reused only once its previous send completed. The
 * server loops Iprobe(ANY_SOURCE, 20) + Get_count + Recv and hands the records out; MPI's
 * non-overtaking order keeps each client's buffers, hence its events, in order.
 */
#include "epx_internal.h"

#include <sched.h>
#include <stdlib.h>

int epx_two_sided_setup(struct epx_context *ctx)
{
    if (ctx->is_server)
        return EP_SUCCESS;
    ctx->out = calloc((size_t)ctx->servers, sizeof *ctx->out);
    if (!ctx->out)
        return EP_ERR_OTHER;
    for (int s = 0; s < ctx->servers; s++) {
        struct epx_out_buffer *o = &ctx->out[s];
        o->req[0] = o->req[1] = EP_REQUEST_NULL;
        o->buf[0] = malloc((size_t)ctx->buffer_bytes);
        o->buf[1] = malloc((size_t)ctx->buffer_bytes);
        if (!o->buf[0] || !o->buf[1])
            return EP_ERR_OTHER;
    }
    return EP_SUCCESS;
}

static int release_others(struct epx_context *ctx, int server);

/* Sends the current buffer towards `server` if it holds anything, then makes the other buffer
 * current, waiting for its previous send; while it waits, the other servers' partly filled
 * buffers leave as soon as they can (release_others). */
static int switch_buffer(struct epx_context *ctx, int server)
{
    struct epx_out_buffer *o = &ctx->out[server];
    int cur = o->current;
    if (o->used[cur] == 0)
        return EP_SUCCESS;
    int rc = EP_Issend(o->buf[cur], (int)o->used[cur], MPI_BYTE, server, EPX_TAG_BUFFER, ctx->inter,
                       &o->req[cur]);
    if (rc != EP_SUCCESS)
        return rc;
    cur ^= 1;
    o->current = cur;
    for (;;) {
        int done = 0;
        rc = EP_Test(&o->req[cur], &done, EP_STATUS_IGNORE);
        if (rc != EP_SUCCESS || done)
            break;
        rc = release_others(ctx, server);
        if (rc != EP_SUCCESS)
            break;
        sched_yield();
    }
    o->used[cur] = 0;
    return rc;
}

/* Sends every partly filled buffer, except `server`'s, whose other half is free. A client
 * about to wait for one server must not hold back events another server waits for: that
 * server may be what the first one waits for (servers meet in collectives), and both would
 * wait forever. Never blocks: buffers whose other half is still in flight stay. */
static int release_others(struct epx_context *ctx, int server)
{
    for (int s = 0; s < ctx->servers; s++) {
        struct epx_out_buffer *o = &ctx->out[s];
        if (s == server || o->used[o->current] == 0)
            continue;
        int free_half = 0;
        int rc = EP_Test(&o->req[o->current ^ 1], &free_half, EP_STATUS_IGNORE);
        if (rc == EP_SUCCESS && free_half)
            rc = switch_buffer(ctx, s); /* its wait is over at once */
        if (rc != EP_SUCCESS)
            return rc;
    }
    return EP_SUCCESS;
}

int epx_two_sided_send(struct epx_context *ctx, int server, int type, const int64_t *meta,
                       int meta_count, const void *data, int64_t bytes)
{
    struct epx_out_buffer *o = &ctx->out[server];
    int64_t size = epx_record_size(meta_count, bytes);
    if (o->used[o->current] + size > ctx->buffer_bytes) {
        int rc = switch_buffer(ctx, server);
        if (rc != EP_SUCCESS)
            return rc;
    }
    int cur = o->current;
    epx_record_write(o->buf[cur], ctx->buffer_bytes, o->used[cur], type, meta, meta_count, data, bytes);
    o->used[cur] += size;
    return EP_SUCCESS;
}

int epx_two_sided_flush(struct epx_context *ctx)
{
    int rc = EP_SUCCESS;
    for (int s = 0; rc == EP_SUCCESS && s < ctx->servers; s++)
        rc = switch_buffer(ctx, s);
    return rc;
}

int epx_two_sided_complete(struct epx_context *ctx)
{
    int rc = epx_two_sided_flush(ctx);
    for (int s = 0; rc == EP_SUCCESS && s < ctx->servers; s++)
        for (int b = 0; rc == EP_SUCCESS && b < 2; b++)
            rc = EP_Wait(&ctx->out[s].req[b], EP_STATUS_IGNORE);
    return rc;
}

int epx_two_sided_refill(struct epx_context *ctx, int wait, int *flag)
{
    EP_Status st;
    int rc = wait ? EP_Probe(EP_ANY_SOURCE, EPX_TAG_BUFFER, ctx->inter, &st)
                  : EP_Iprobe(EP_ANY_SOURCE, EPX_TAG_BUFFER, ctx->inter, flag, &st);
    if (rc != EP_SUCCESS)
        return rc;
    if (wait)
        *flag = 1;
    if (!*flag)
        return EP_SUCCESS;
    int count;
    rc = EP_Get_count(&st, MPI_BYTE, &count);
    if (rc == EP_SUCCESS)
        rc = EP_Recv(ctx->staging, count, MPI_BYTE, st.MPI_SOURCE, EPX_TAG_BUFFER, ctx->inter,
                     EP_STATUS_IGNORE);
    if (rc != EP_SUCCESS)
        return rc;
    ctx->staging_client = st.MPI_SOURCE;
    ctx->staging_len = count;
    ctx->staging_pos = 0;
    return EP_SUCCESS;
}
