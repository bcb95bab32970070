/*
 * events.c: EPX_Context_send_event and EPX_Context_flush on the clients, EPX_Context_wait_event
 * and EPX_Context_test_event on the servers. The transports move bytes; this file checks the
 * arguments and hands the server's staged records out one by one, in each client's order.
 */
#include "epx_internal.h"

#include <sched.h>

int EPX_Context_send_event(EPX_Context context, int server, int type, const int64_t *meta,
                           int meta_count, const void *data, int64_t bytes)
{
    struct epx_context *ctx = epx_handle_get(context, EPX_KIND_CONTEXT);
    if (!ctx || ctx->is_server || (meta_count > 0 && !meta) || (bytes > 0 && !data))
        return EP_ERR_ARG;
    if (server < 0 || server >= ctx->servers)
        return EP_ERR_RANK;
    if (type < 0 || meta_count < 0 || meta_count > EPX_MAX_META || bytes < 0 ||
        bytes > ctx->buffer_bytes || epx_record_size(meta_count, bytes) > ctx->buffer_bytes)
        return EP_ERR_COUNT;
    return ctx->transport == EPX_ONE_SIDED
               ? epx_one_sided_send(ctx, server, type, meta, meta_count, data, bytes)
               : epx_two_sided_send(ctx, server, type, meta, meta_count, data, bytes);
}

int EPX_Context_flush(EPX_Context context)
{
    struct epx_context *ctx = epx_handle_get(context, EPX_KIND_CONTEXT);
    if (!ctx || ctx->is_server)
        return EP_ERR_ARG;
    return ctx->transport == EPX_ONE_SIDED ? EP_SUCCESS : epx_two_sided_flush(ctx);
}

/* Hands out the next staged record that is an event; consumes finalize records on the way.
 * Returns 1 with the event, 0 when the staging buffer is exhausted, -1 for a corrupt record. */
static int next_staged(struct epx_context *ctx, EPX_Event *event)
{
    while (ctx->staging_pos < ctx->staging_len) {
        EPX_Event e;
        int64_t size = epx_record_read(ctx->staging + ctx->staging_pos, ctx->staging_len - ctx->staging_pos, &e);
        if (size == 0)
            return -1;
        ctx->staging_pos += size;
        e.client = ctx->staging_client;
        if (e.type == EPX_RECORD_FINALIZE) {
            if (!ctx->client_done[e.client]) {
                ctx->client_done[e.client] = 1;
                ctx->finalized_clients++;
            }
            continue;
        }
        *event = e;
        return 1;
    }
    return 0;
}

/* One attempt (wait 0) or a wait (wait 1) for the next event. */
static int next_event(struct epx_context *ctx, int wait, int *flag, EPX_Event *event)
{
    *flag = 0;
    if (ctx->ended) {
        /* Past the end, the end again (as MPI's PROC_NULL receives keep completing). */
        event->client = -1;
        event->type = EPX_EVENT_END;
        event->meta_count = event->reserved = 0;
        event->meta = NULL;
        event->bytes = 0;
        event->data = NULL;
        *flag = 1;
        return EP_SUCCESS;
    }
    for (;;) {
        int got = next_staged(ctx, event);
        if (got < 0)
            return EP_ERR_INTERN;
        if (got) {
            *flag = 1;
            return EP_SUCCESS;
        }
        if (ctx->finalized_clients == ctx->clients) {
            ctx->ended = 1;
            return next_event(ctx, 0, flag, event);
        }
        int refilled = 0;
        int rc = ctx->transport == EPX_ONE_SIDED ? epx_one_sided_refill(ctx, &refilled)
                                                 : epx_two_sided_refill(ctx, wait, &refilled);
        if (rc != EP_SUCCESS)
            return rc;
        if (!refilled) {
            if (!wait)
                return EP_SUCCESS;
            sched_yield(); /* one-sided: a whole polling round found nothing */
        }
    }
}

int EPX_Context_wait_event(EPX_Context context, EPX_Event *event)
{
    struct epx_context *ctx = epx_handle_get(context, EPX_KIND_CONTEXT);
    if (!ctx || !ctx->is_server || !event)
        return EP_ERR_ARG;
    int flag;
    return next_event(ctx, 1, &flag, event);
}

int EPX_Context_test_event(EPX_Context context, int *flag, EPX_Event *event)
{
    struct epx_context *ctx = epx_handle_get(context, EPX_KIND_CONTEXT);
    if (!ctx || !ctx->is_server || !event || !flag)
        return EP_ERR_ARG;
    return next_event(ctx, 0, flag, event);
}
