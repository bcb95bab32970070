/*
 * context.c: registration of contexts (EPX_Context_init on the clients,
 * EPX_Server_accept_context on the servers), their sizes, and their end (EPX_Context_finalize).
 * Registration follows XIOS's CServer::listenContext: every client endpoint sends the context
 * id to the server leader, which collects a whole code's registrations with Iprobe(ANY_SOURCE)
 * + Get_count + Recv and forwards them to the other servers; both sides then build an
 * intercommunicator, merge it (clients low, servers high) and meet in a Barrier.
 */
#include "epx_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* What the leader forwards to the other servers: the code and the context id, or code -1 when
 * every client code has finalized. */
struct forward {
    int code;
    char id[EPX_MAX_NAME + 1];
};

static struct epx_context *context_new(int is_server, int *owner_open_contexts)
{
    struct epx_context *ctx = calloc(1, sizeof *ctx);
    if (ctx) {
        ctx->is_server = is_server;
        ctx->owner_open_contexts = owner_open_contexts;
        ctx->inter = ctx->merged = EP_COMM_NULL;
        ctx->win = EP_WIN_NULL;
    }
    return ctx;
}

/* Frees what a context holds on this endpoint (its window must be freed already). */
static void context_delete(struct epx_context *ctx)
{
    if (ctx->inter != EP_COMM_NULL)
        EP_Comm_free(&ctx->inter);
    if (ctx->merged != EP_COMM_NULL)
        EP_Comm_free(&ctx->merged);
    if (ctx->out) {
        for (int s = 0; s < ctx->servers; s++) {
            free(ctx->out[s].buf[0]);
            free(ctx->out[s].buf[1]);
        }
    }
    free(ctx->out);
    free(ctx->staging);
    free(ctx->read);
    free(ctx->acked);
    free(ctx->written);
    free(ctx->known_acked);
    free(ctx->client_done);
    free(ctx);
}

/* The part both sides do once the intercommunicator exists: merge, Barrier, the clients' rank 0
 * tells every server the transport and buffer size (Bcast), and the transport's buffers. */
static int context_build(struct epx_context *ctx)
{
    int rc = EP_Comm_set_errhandler(ctx->inter, EP_ERRORS_RETURN);
    if (rc == EP_SUCCESS)
        rc = EP_Comm_size(ctx->inter, ctx->is_server ? &ctx->servers : &ctx->clients);
    if (rc == EP_SUCCESS)
        rc = EP_Comm_remote_size(ctx->inter, ctx->is_server ? &ctx->clients : &ctx->servers);
    if (rc == EP_SUCCESS)
        rc = EP_Comm_rank(ctx->inter, &ctx->my_rank);
    if (rc == EP_SUCCESS)
        rc = EP_Intercomm_merge(ctx->inter, ctx->is_server, &ctx->merged);
    if (rc == EP_SUCCESS)
        rc = EP_Comm_set_errhandler(ctx->merged, EP_ERRORS_RETURN);
    if (rc == EP_SUCCESS)
        rc = EP_Barrier(ctx->merged);
    int64_t params[2] = {ctx->transport, ctx->buffer_bytes};
    if (rc == EP_SUCCESS)
        rc = EP_Bcast(params, 2, MPI_INT64_T, 0, ctx->merged);
    if (rc != EP_SUCCESS)
        return rc;
    ctx->transport = (int)params[0];
    ctx->buffer_bytes = params[1];
    if (ctx->is_server) {
        ctx->staging = malloc((size_t)ctx->buffer_bytes);
        ctx->client_done = calloc((size_t)ctx->clients, 1);
        if (!ctx->staging || !ctx->client_done)
            return EP_ERR_OTHER;
    }
    return ctx->transport == EPX_ONE_SIDED ? epx_one_sided_setup(ctx) : epx_two_sided_setup(ctx);
}

/* Registers a built context: a handle, and one more open context for its owner. */
static int context_publish(struct epx_context *ctx, EPX_Context *context)
{
    *context = epx_handle_new(EPX_KIND_CONTEXT, ctx);
    if (*context == 0)
        return EP_ERR_OTHER;
    (*ctx->owner_open_contexts)++;
    return EP_SUCCESS;
}

/* Both sides, once the intercommunicator is made (`rc` says how that went): builds and
 * publishes the context, or undoes it. */
static int context_complete(struct epx_context *ctx, int rc, EPX_Context *context)
{
    if (rc == EP_SUCCESS)
        rc = context_build(ctx);
    if (rc == EP_SUCCESS)
        rc = context_publish(ctx, context);
    if (rc != EP_SUCCESS) {
        if (ctx->win != EP_WIN_NULL) {
            EP_Win_unlock_all(ctx->win); /* fails harmlessly when the epoch never began */
            EP_Win_free(&ctx->win);
        }
        context_delete(ctx);
    }
    return rc;
}

int EPX_Context_init(EPX_Client client, const char *context_id, int transport,
                     int64_t buffer_bytes, EPX_Context *context)
{
    struct epx_client *c = epx_handle_get(client, EPX_KIND_CLIENT);
    if (!c || !context || !context_id || context_id[0] == '\0' || strlen(context_id) > EPX_MAX_NAME ||
        (transport != EPX_TWO_SIDED && transport != EPX_ONE_SIDED))
        return EP_ERR_ARG;
    if (buffer_bytes == 0)
        buffer_bytes = EPX_DEFAULT_BUFFER_BYTES;
    if (buffer_bytes < EPX_MIN_BUFFER_BYTES || buffer_bytes > EPX_MAX_BUFFER_BYTES)
        return EP_ERR_COUNT;
    struct epx_context *ctx = context_new(0, &c->open_contexts);
    if (!ctx)
        return EP_ERR_OTHER;
    ctx->transport = transport;
    ctx->buffer_bytes = (buffer_bytes + 7) & ~(int64_t)7;
    int rc = EP_Send(context_id, (int)strlen(context_id) + 1, MPI_CHAR, c->server_leader,
                     EPX_TAG_REGISTER, c->world);
    if (rc == EP_SUCCESS)
        rc = EP_Intercomm_create(c->intra, 0, c->world, c->server_leader, EPX_TAG_CONTEXT_BASE + c->code,
                                 &ctx->inter);
    return context_complete(ctx, rc, context);
}

/* Server leader: receives registrations and code finalizations until a code has registered a
 * context with all its endpoints (returns the code) or every client code has finalized (-1). */
static int leader_listen(struct epx_server *s, char *id, int *code_out)
{
    for (;;) {
        int flag = 0;
        EP_Status st;
        int rc = EP_Iprobe(EP_ANY_SOURCE, EPX_TAG_FINALIZE, s->world, &flag, &st);
        if (rc != EP_SUCCESS)
            return rc;
        if (flag) {
            rc = EP_Recv(NULL, 0, MPI_CHAR, st.MPI_SOURCE, EPX_TAG_FINALIZE, s->world, EP_STATUS_IGNORE);
            if (rc != EP_SUCCESS)
                return rc;
            if (++s->finalized_codes == s->codes.count - 1) {
                *code_out = -1;
                return EP_SUCCESS;
            }
            continue;
        }
        rc = EP_Iprobe(EP_ANY_SOURCE, EPX_TAG_REGISTER, s->world, &flag, &st);
        if (rc != EP_SUCCESS)
            return rc;
        if (!flag) {
            sched_yield();
            continue;
        }
        int count;
        char buf[EPX_MAX_NAME + 1];
        rc = EP_Get_count(&st, MPI_CHAR, &count);
        if (rc == EP_SUCCESS && (count < 2 || count > EPX_MAX_NAME + 1))
            rc = EP_ERR_COUNT; /* not a registration EPX_Context_init sent */
        if (rc == EP_SUCCESS)
            rc = EP_Recv(buf, count, MPI_CHAR, st.MPI_SOURCE, EPX_TAG_REGISTER, s->world, EP_STATUS_IGNORE);
        if (rc != EP_SUCCESS)
            return rc;
        buf[count - 1] = '\0';
        int code = s->codes.code_of_rank[st.MPI_SOURCE];
        if (s->registered[code] == 0)
            strcpy(s->pending_id[code], buf);
        else if (strcmp(s->pending_id[code], buf) != 0)
            return EP_ERR_ARG; /* endpoints of one code registering different contexts */
        if (++s->registered[code] == s->codes.size[code]) {
            s->registered[code] = 0;
            strcpy(id, s->pending_id[code]);
            *code_out = code;
            return EP_SUCCESS;
        }
    }
}

int EPX_Server_accept_context(EPX_Server server, char *context_id, EPX_Context *context)
{
    struct epx_server *s = epx_handle_get(server, EPX_KIND_SERVER);
    if (!s || !context)
        return EP_ERR_ARG;
    *context = EPX_CONTEXT_NULL;
    if (s->done)
        return EP_SUCCESS;
    struct forward fwd;
    memset(&fwd, 0, sizeof fwd);
    int servers, rc = EP_Comm_size(s->intra, &servers);
    if (rc != EP_SUCCESS)
        return rc;
    if (s->rank == 0) {
        rc = leader_listen(s, fwd.id, &fwd.code);
        for (int r = 1; rc == EP_SUCCESS && r < servers; r++)
            rc = EP_Send(&fwd, (int)sizeof fwd, MPI_BYTE, r, EPX_TAG_FORWARD, s->intra);
    } else {
        rc = EP_Recv(&fwd, (int)sizeof fwd, MPI_BYTE, 0, EPX_TAG_FORWARD, s->intra, EP_STATUS_IGNORE);
        fwd.id[EPX_MAX_NAME] = '\0';
    }
    if (rc != EP_SUCCESS)
        return rc;
    if (fwd.code < 0) {
        s->done = 1;
        return EP_SUCCESS;
    }
    struct epx_context *ctx = context_new(1, &s->open_contexts);
    if (!ctx)
        return EP_ERR_OTHER;
    rc = EP_Intercomm_create(s->intra, 0, s->world, s->codes.leader[fwd.code],
                             EPX_TAG_CONTEXT_BASE + fwd.code, &ctx->inter);
    rc = context_complete(ctx, rc, context);
    if (rc == EP_SUCCESS && context_id)
        strcpy(context_id, fwd.id);
    return rc;
}

int EPX_Context_info(EPX_Context context, int *clients, int *servers, int *my_rank)
{
    struct epx_context *ctx = epx_handle_get(context, EPX_KIND_CONTEXT);
    if (!ctx)
        return EP_ERR_ARG;
    if (clients)
        *clients = ctx->clients;
    if (servers)
        *servers = ctx->servers;
    if (my_rank)
        *my_rank = ctx->my_rank;
    return EP_SUCCESS;
}

int EPX_Context_finalize(EPX_Context *context)
{
    struct epx_context *ctx = context ? epx_handle_get(*context, EPX_KIND_CONTEXT) : NULL;
    if (!ctx || (ctx->is_server && !ctx->ended))
        return EP_ERR_ARG;
    int rc = EP_SUCCESS;
    if (!ctx->is_server) {
        for (int s = 0; rc == EP_SUCCESS && s < ctx->servers; s++)
            rc = ctx->transport == EPX_ONE_SIDED
                     ? epx_one_sided_send(ctx, s, EPX_RECORD_FINALIZE, NULL, 0, NULL, 0)
                     : epx_two_sided_send(ctx, s, EPX_RECORD_FINALIZE, NULL, 0, NULL, 0);
        if (rc == EP_SUCCESS && ctx->transport == EPX_TWO_SIDED)
            rc = epx_two_sided_complete(ctx);
    }
    /* The window goes collectively: the servers free it after the last client's finalize
     * record, so every client's events have been read by then. */
    if (rc == EP_SUCCESS && ctx->transport == EPX_ONE_SIDED)
        rc = epx_one_sided_release(ctx);
    if (rc != EP_SUCCESS)
        return rc;
    (*ctx->owner_open_contexts)--;
    epx_handle_free(*context);
    *context = EPX_CONTEXT_NULL;
    context_delete(ctx);
    return EP_SUCCESS;
}
