/*
 * The XIOS client/server protocol of <ep_xios.h>, end to end: the last S processes are servers
 * (one endpoint each), the others model processes whose OpenMP threads are clients
 * (EPMPI_TEST_EPS threads per process, cycled). Arguments: transport (one-sided | two-sided) and
 * S. Checks:
 *  - start-up: the model communicator ranks clients process by process, threads by index;
 *  - context "small": 256-byte buffers, so events fill buffers and wrap rings all the time;
 *    each client sends EVENTS events round-robin over the servers, of varied sizes (0 bytes
 *    included) and types, with metadata naming (client, sequence); every server checks it gets,
 *    from each client, exactly the events meant for it, in order, with the right bytes;
 *  - context "large": default buffers, events of 100000 bytes, the other transport;
 *  - bad input: bad, freed and wrong-kind handles, out-of-range servers, events larger than the
 *    buffer, negative types and counts give their error codes and break nothing;
 *  - the end: EPX_EVENT_END after the last event, again on every later call, then
 *    EPX_Server_accept_context gives EPX_CONTEXT_NULL once the code finalized.
 */
#include "ep_test.h"

#include <ep_xios.h>
#include <stdint.h>

enum { EVENTS = 300, SMALL_BUFFER = 256, LARGE_EVENT = 100000, LARGE_EVENTS = 5 };

static int servers;

/* Payload byte `j` of event `seq` of client `client`. */
static unsigned char byte_of(int client, int seq, int64_t j)
{
    return (unsigned char)(client * 31 + seq * 7 + j);
}

/* Payload size of event `seq` of the small context: 0..136 bytes, records up to 160 bytes. */
static int64_t small_bytes(int client, int seq)
{
    return (seq * 13 + client) % 137;
}

static void client_send(EPX_Context ctx, int me, int seq, int64_t bytes, unsigned char *buf)
{
    for (int64_t j = 0; j < bytes; j++)
        buf[j] = byte_of(me, seq, j);
    int64_t meta[3] = {me, seq, bytes};
    CHECK_OK(EPX_Context_send_event(ctx, seq % servers, seq % 7, meta, 3, buf, bytes));
}

static void client_bad_input(EPX_Context ctx, EPX_Client client)
{
    int64_t meta[1] = {0};
    char big[SMALL_BUFFER];
    memset(big, 0, sizeof big);
    CHECK(EPX_Context_send_event(ctx, servers, 0, meta, 1, NULL, 0) == EP_ERR_RANK, "server out of range");
    CHECK(EPX_Context_send_event(ctx, -1, 0, meta, 1, NULL, 0) == EP_ERR_RANK, "negative server");
    CHECK(EPX_Context_send_event(ctx, 0, 0, meta, 0, big, SMALL_BUFFER) == EP_ERR_COUNT, "event larger than the buffer");
    CHECK(EPX_Context_send_event(ctx, 0, -3, meta, 1, NULL, 0) == EP_ERR_COUNT, "negative type");
    CHECK(EPX_Context_send_event(ctx, 0, 0, meta, EPX_MAX_META + 1, NULL, 0) == EP_ERR_COUNT, "too much metadata");
    CHECK(EPX_Context_send_event(ctx, 0, 0, NULL, 1, NULL, 0) == EP_ERR_ARG, "NULL metadata");
    CHECK(EPX_Context_send_event(ctx, 0, 0, meta, 1, NULL, 8) == EP_ERR_ARG, "NULL payload");
    CHECK(EPX_Context_send_event(client, 0, 0, meta, 1, NULL, 0) == EP_ERR_ARG, "client handle as a context");
    CHECK(EPX_Context_send_event(12345, 0, 0, meta, 1, NULL, 0) == EP_ERR_ARG, "made-up handle");
    EPX_Event ev;
    CHECK(EPX_Context_wait_event(ctx, &ev) == EP_ERR_ARG, "a client cannot wait for events");
    EPX_Client open = client;
    CHECK(EPX_Finalize_client(&open) == EP_ERR_ARG && open == client, "finalize with a context open");
}

static void run_client(int proc, int thread, int threads, int transport)
{
    EP_Comm model;
    EPX_Client client;
    CHECK_OK(EPX_Init_client(MPI_COMM_WORLD, threads, thread, "model", &model, &client));
    int me, nclients;
    CHECK_OK(EP_Comm_rank(model, &me));
    CHECK_OK(EP_Comm_size(model, &nclients));
    CHECK(me == ep_test_expected_rank(proc, thread), "model rank %d, expected %d", me, ep_test_expected_rank(proc, thread));
    int ci = -1, si = -1, ri = -1;
    CHECK_OK(EPX_Client_info(client, &ci, &si, &ri));
    CHECK(ci == nclients && si == servers && ri == me, "client info %d %d %d", ci, si, ri);
    CHECK(EPX_Client_info(EPX_CLIENT_NULL, &ci, NULL, NULL) == EP_ERR_ARG, "null client handle");

    EPX_Context ctx;
    CHECK_OK(EPX_Context_init(client, "small", transport, SMALL_BUFFER, &ctx));
    int c = -1, s = -1, r = -1;
    CHECK_OK(EPX_Context_info(ctx, &c, &s, &r));
    CHECK(c == nclients && s == servers && r == me, "info %d %d %d", c, s, r);
    client_bad_input(ctx, client);
    unsigned char *buf = malloc(LARGE_EVENT);
    for (int seq = 0; seq < EVENTS; seq++) {
        client_send(ctx, me, seq, small_bytes(me, seq), buf);
        if (seq % 50 == 49)
            CHECK_OK(EPX_Context_flush(ctx));
    }
    EPX_Context stale = ctx;
    CHECK_OK(EPX_Context_finalize(&ctx));
    CHECK(ctx == EPX_CONTEXT_NULL, "finalized context handle not reset");
    CHECK(EPX_Context_send_event(stale, 0, 0, NULL, 0, NULL, 0) == EP_ERR_ARG, "freed context");

    int other = transport == EPX_ONE_SIDED ? EPX_TWO_SIDED : EPX_ONE_SIDED;
    CHECK_OK(EPX_Context_init(client, "large", other, 0, &ctx));
    for (int seq = 0; seq < LARGE_EVENTS * servers; seq++)
        client_send(ctx, me, seq, LARGE_EVENT, buf);
    CHECK_OK(EPX_Context_finalize(&ctx));
    free(buf);
    CHECK_OK(EPX_Finalize_client(&client));
    CHECK(client == EPX_CLIENT_NULL, "finalized client handle not reset");
    CHECK_OK(EP_Comm_free(&model));
}

/* Receives a whole context on a server and checks every event; `expected_bytes` gives the
 * payload size of event `seq` of `client`, `events` how many each client sent in all. */
static void serve(EPX_Context ctx, int me, int nclients, int events, int64_t (*expected_bytes)(int, int))
{
    int *next = calloc((size_t)nclients, sizeof(int)); /* next sequence number per client */
    for (int cl = 0; cl < nclients; cl++)
        next[cl] = me;
    EPX_Event ev;
    for (;;) {
        CHECK_OK(EPX_Context_wait_event(ctx, &ev));
        if (ev.type == EPX_EVENT_END)
            break;
        int cl = ev.client;
        CHECK(cl >= 0 && cl < nclients, "client %d", cl);
        if (cl < 0 || cl >= nclients)
            break;
        int seq = next[cl];
        CHECK(ev.meta_count == 3 && ev.meta[0] == cl && ev.meta[1] == seq, "server %d: from client %d got (%lld, %lld), expected (%d, %d)",
              me, cl, (long long)(ev.meta_count > 0 ? ev.meta[0] : -1), (long long)(ev.meta_count > 1 ? ev.meta[1] : -1), cl, seq);
        CHECK(ev.type == seq % 7, "type %d of event %d", ev.type, seq);
        CHECK(ev.bytes == expected_bytes(cl, seq), "event %d of client %d: %lld bytes", seq, cl, (long long)ev.bytes);
        CHECK(((uintptr_t)ev.data & 7) == 0 && ((uintptr_t)ev.meta & 7) == 0, "misaligned event");
        const unsigned char *d = ev.data;
        int64_t bad = 0;
        for (int64_t j = 0; j < ev.bytes && j < expected_bytes(cl, seq); j++)
            bad += d[j] != byte_of(cl, seq, j);
        CHECK(bad == 0, "event %d of client %d: %lld wrong bytes", seq, cl, (long long)bad);
        next[cl] = seq + servers;
    }
    for (int cl = 0; cl < nclients; cl++) {
        /* Events meant for server `me`: me, me + S, ... below `events`. */
        int expected_next = me + ((events - me + servers - 1) / servers) * servers;
        CHECK(next[cl] == expected_next, "server %d: client %d stopped at %d, expected %d", me, cl, next[cl], expected_next);
    }
    int flag = 0;
    CHECK_OK(EPX_Context_test_event(ctx, &flag, &ev));
    CHECK(flag == 1 && ev.type == EPX_EVENT_END, "END is not repeated");
    free(next);
}

static int64_t large_bytes(int client, int seq)
{
    (void)client;
    (void)seq;
    return LARGE_EVENT;
}

static void run_server(void)
{
    EPX_Server server;
    CHECK_OK(EPX_Init_server(MPI_COMM_WORLD, &server));
    EP_Comm scomm;
    CHECK_OK(EPX_Server_comm(server, &scomm));
    int me, ns;
    CHECK_OK(EP_Comm_rank(scomm, &me));
    CHECK_OK(EP_Comm_size(scomm, &ns));
    CHECK(ns == servers, "%d servers, expected %d", ns, servers);

    const char *names[2] = {"small", "large"};
    for (int k = 0; k < 2; k++) {
        char id[EPX_MAX_NAME + 1] = "";
        EPX_Context ctx = EPX_CONTEXT_NULL;
        CHECK_OK(EPX_Server_accept_context(server, id, &ctx));
        CHECK(ctx != EPX_CONTEXT_NULL && strcmp(id, names[k]) == 0, "context '%s', expected '%s'", id, names[k]);
        if (ctx == EPX_CONTEXT_NULL)
            break;
        int nclients, s, r;
        CHECK_OK(EPX_Context_info(ctx, &nclients, &s, &r));
        CHECK(s == servers && r == me, "server info %d %d", s, r);
        CHECK(EPX_Context_send_event(ctx, 0, 0, NULL, 0, NULL, 0) == EP_ERR_ARG, "a server cannot send");
        if (k == 0) {
            EPX_Context early = ctx;
            CHECK(EPX_Context_finalize(&early) == EP_ERR_ARG, "server finalize before the end");
            serve(ctx, me, nclients, EVENTS, small_bytes);
        } else {
            serve(ctx, me, nclients, LARGE_EVENTS * servers, large_bytes);
        }
        CHECK_OK(EPX_Context_finalize(&ctx));
    }
    EPX_Context none = 1;
    CHECK_OK(EPX_Server_accept_context(server, NULL, &none));
    CHECK(none == EPX_CONTEXT_NULL, "accept after every code finalized");
    CHECK_OK(EPX_Finalize_server(&server));
    CHECK(EPX_Server_comm(server, &scomm) == EP_ERR_ARG, "finalized server handle");
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int transport = argc > 1 && strcmp(argv[1], "two-sided") == 0 ? EPX_TWO_SIDED : EPX_ONE_SIDED;
    servers = argc > 2 ? atoi(argv[2]) : 1;
    if (servers < 1 || servers >= ws) {
        fprintf(stderr, "need 1 <= servers < processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (wr >= ws - servers) {
        run_server();
    } else {
        int threads = ep_test_count_for(wr);
#pragma omp parallel num_threads(threads)
        run_client(wr, omp_get_thread_num(), threads, transport);
    }
    return ep_test_finish("xios_protocol", wr);
}
