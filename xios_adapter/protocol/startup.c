/*
 * startup.c: EPX_Init_client, EPX_Init_server, EPX_Server_comm, EPX_Finalize_client,
 * EPX_Finalize_server, EPX_Client_info. Start-up follows XIOS's CClient/CServer::initialize: endpoints on the
 * world communicator, an allgather of a 64-bit hash of each endpoint's code id (MPI_LONG), a
 * split by code, and intercommunicators between each client code and the servers.
 */
#include "epx_internal.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: a hash of the code id that every process computes alike (XIOS hashes it too). */
static long code_hash(const char *id)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (long)h;
}

static int valid_name(const char *name)
{
    return name && name[0] != '\0' && strlen(name) <= EPX_MAX_NAME;
}

static void codes_free(struct epx_codes *c)
{
    free(c->leader);
    free(c->size);
    free(c->code_of_rank);
    memset(c, 0, sizeof *c);
}

/* Allgathers the code hashes on `world` and groups the ranks by code. */
static int codes_find(EP_Comm world, const char *code_id, struct epx_codes *c)
{
    int size, rc = EP_Comm_size(world, &size);
    if (rc != EP_SUCCESS)
        return rc;
    long mine = code_hash(code_id), server = code_hash(EPX_SERVER_CODE);
    long *hashes = malloc(sizeof(long) * (size_t)size);
    long *distinct = malloc(sizeof(long) * (size_t)size);
    c->leader = malloc(sizeof(int) * (size_t)size);
    c->size = calloc((size_t)size, sizeof(int));
    c->code_of_rank = malloc(sizeof(int) * (size_t)size);
    c->count = 0;
    c->server_code = -1;
    if (!hashes || !distinct || !c->leader || !c->size || !c->code_of_rank) {
        rc = EP_ERR_OTHER;
        goto out;
    }
    rc = EP_Allgather(&mine, 1, MPI_LONG, hashes, 1, MPI_LONG, world);
    if (rc != EP_SUCCESS)
        goto out;
    for (int r = 0; r < size; r++) {
        int code = 0;
        while (code < c->count && distinct[code] != hashes[r])
            code++;
        if (code == c->count) {
            distinct[code] = hashes[r];
            c->leader[code] = r;
            if (hashes[r] == server)
                c->server_code = code;
            c->count++;
        }
        c->size[code]++;
        c->code_of_rank[r] = code;
    }
out:
    free(hashes);
    free(distinct);
    if (rc != EP_SUCCESS)
        codes_free(c);
    return rc;
}

/* Endpoint on `world` with errors returned, and the code table. */
static int join_world(MPI_Comm world, int num_threads, int thread, const char *code_id,
                      EP_Comm *ep, struct epx_codes *codes)
{
    int rc = EP_Comm_create_endpoint(world, num_threads, thread, ep);
    if (rc != EP_SUCCESS)
        return rc;
    rc = EP_Comm_set_errhandler(*ep, EP_ERRORS_RETURN);
    if (rc == EP_SUCCESS)
        rc = codes_find(*ep, code_id, codes);
    if (rc != EP_SUCCESS)
        EP_Comm_free(ep);
    return rc;
}

/* Split of `world` by code, ranks kept in world order. */
static int split_by_code(EP_Comm world, const struct epx_codes *codes, EP_Comm *intra)
{
    int rank, rc = EP_Comm_rank(world, &rank);
    if (rc == EP_SUCCESS)
        rc = EP_Comm_split(world, codes->code_of_rank[rank], rank, intra);
    if (rc == EP_SUCCESS)
        rc = EP_Comm_set_errhandler(*intra, EP_ERRORS_RETURN);
    return rc;
}

static void free_comm(EP_Comm *comm)
{
    if (*comm != EP_COMM_NULL)
        EP_Comm_free(comm);
}

/* Frees a client's communicators and memory (not its handle). */
static void client_delete(struct epx_client *c)
{
    free_comm(&c->inter);
    free_comm(&c->intra);
    free_comm(&c->world);
    codes_free(&c->codes);
    free(c);
}

/* Frees a server's communicators and memory (not its handle). */
static void server_delete(struct epx_server *s)
{
    for (int code = 0; s->inter && code < s->codes.count; code++)
        free_comm(&s->inter[code]);
    free_comm(&s->intra);
    free_comm(&s->world);
    free(s->inter);
    free(s->registered);
    free(s->pending_id);
    codes_free(&s->codes);
    free(s);
}

int EPX_Init_client(MPI_Comm world, int num_threads, int thread, const char *code_id,
                    EP_Comm *model_comm, EPX_Client *client)
{
    if (!model_comm || !client || !valid_name(code_id) || strcmp(code_id, EPX_SERVER_CODE) == 0)
        return EP_ERR_ARG;
    struct epx_client *c = calloc(1, sizeof *c);
    if (!c)
        return EP_ERR_OTHER;
    c->world = c->intra = c->inter = EP_COMM_NULL;
    *model_comm = EP_COMM_NULL;
    int rc = join_world(world, num_threads, thread, code_id, &c->world, &c->codes);
    if (rc != EP_SUCCESS) {
        free(c);
        return rc;
    }
    int rank;
    EP_Comm_rank(c->world, &rank);
    c->code = c->codes.code_of_rank[rank];
    rc = split_by_code(c->world, &c->codes, &c->intra);
    /* Every process sees the same table, so all clients fail here alike when no process is a
     * server; the split above has still been done by everyone. */
    if (rc == EP_SUCCESS && c->codes.server_code < 0)
        rc = EP_ERR_ARG;
    if (rc == EP_SUCCESS) {
        c->server_leader = c->codes.leader[c->codes.server_code];
        rc = EP_Intercomm_create(c->intra, 0, c->world, c->server_leader, EPX_TAG_STARTUP, &c->inter);
    }
    if (rc == EP_SUCCESS)
        rc = EP_Comm_dup(c->intra, model_comm);
    if (rc == EP_SUCCESS) {
        *client = epx_handle_new(EPX_KIND_CLIENT, c);
        if (*client != 0)
            return EP_SUCCESS;
        rc = EP_ERR_OTHER;
        EP_Comm_free(model_comm);
    }
    client_delete(c);
    return rc;
}

int EPX_Init_server(MPI_Comm world, EPX_Server *server)
{
    if (!server)
        return EP_ERR_ARG;
    struct epx_server *s = calloc(1, sizeof *s);
    if (!s)
        return EP_ERR_OTHER;
    s->world = s->intra = EP_COMM_NULL;
    int rc = join_world(world, 1, 0, EPX_SERVER_CODE, &s->world, &s->codes);
    if (rc != EP_SUCCESS) {
        free(s);
        return rc;
    }
    rc = split_by_code(s->world, &s->codes, &s->intra);
    if (rc == EP_SUCCESS)
        rc = EP_Comm_rank(s->intra, &s->rank);
    int n = s->codes.count;
    s->inter = malloc(sizeof(EP_Comm) * (size_t)n);
    s->registered = calloc((size_t)n, sizeof(int));
    s->pending_id = calloc((size_t)n, sizeof *s->pending_id);
    if (rc == EP_SUCCESS && (!s->inter || !s->registered || !s->pending_id))
        rc = EP_ERR_OTHER;
    for (int code = 0; s->inter && code < n; code++)
        s->inter[code] = EP_COMM_NULL;
    /* One intercommunicator per client code, in code order (the clients' leaders wait). */
    for (int code = 0; rc == EP_SUCCESS && code < n; code++)
        if (code != s->codes.server_code)
            rc = EP_Intercomm_create(s->intra, 0, s->world, s->codes.leader[code], EPX_TAG_STARTUP,
                                     &s->inter[code]);
    if (rc == EP_SUCCESS && n == 1)
        s->done = 1; /* no client code at all: nothing to serve */
    if (rc == EP_SUCCESS) {
        *server = epx_handle_new(EPX_KIND_SERVER, s);
        if (*server != 0)
            return EP_SUCCESS;
        rc = EP_ERR_OTHER;
    }
    server_delete(s);
    return rc;
}

int EPX_Client_info(EPX_Client client, int *clients, int *servers, int *my_rank)
{
    struct epx_client *c = epx_handle_get(client, EPX_KIND_CLIENT);
    if (!c)
        return EP_ERR_ARG;
    if (clients)
        *clients = c->codes.size[c->code];
    if (servers)
        *servers = c->codes.size[c->codes.server_code];
    return my_rank ? EP_Comm_rank(c->intra, my_rank) : EP_SUCCESS;
}

int EPX_Server_comm(EPX_Server server, EP_Comm *servers_comm)
{
    struct epx_server *s = epx_handle_get(server, EPX_KIND_SERVER);
    if (!s || !servers_comm)
        return EP_ERR_ARG;
    *servers_comm = s->intra;
    return EP_SUCCESS;
}

int EPX_Finalize_client(EPX_Client *client)
{
    struct epx_client *c = client ? epx_handle_get(*client, EPX_KIND_CLIENT) : NULL;
    if (!c || c->open_contexts != 0)
        return EP_ERR_ARG;
    int rank, rc = EP_Comm_rank(c->intra, &rank);
    /* XIOS's CClient::finalize: the code's rank 0 tells the server leader; once every code has,
     * the servers leave their accept loop. The message is empty: only its tag and source count. */
    if (rc == EP_SUCCESS && rank == 0)
        rc = EP_Send(NULL, 0, MPI_CHAR, c->server_leader, EPX_TAG_FINALIZE, c->world);
    if (rc != EP_SUCCESS)
        return rc;
    epx_handle_free(*client);
    *client = EPX_CLIENT_NULL;
    client_delete(c);
    return EP_SUCCESS;
}

int EPX_Finalize_server(EPX_Server *server)
{
    struct epx_server *s = server ? epx_handle_get(*server, EPX_KIND_SERVER) : NULL;
    if (!s || !s->done || s->open_contexts != 0)
        return EP_ERR_ARG;
    epx_handle_free(*server);
    *server = EPX_SERVER_NULL;
    server_delete(s);
    return EP_SUCCESS;
}
