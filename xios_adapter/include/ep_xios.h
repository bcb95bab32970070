/*
 * ep_xios.h: the XIOS client/server protocol on EPMPI endpoints, for C and (through the
 * module `ep_xios`, xios_adapter/fortran/ep_xios.f90) Fortran.
 *
 * What it reproduces (XIOS branch_openmp and XIOS 3, see xios_adapter/README.md):
 *  - start-up: every process makes endpoints on the world communicator (model processes one per
 *    OpenMP thread, servers one), allgathers a hash of its code id (MPI_LONG), splits the world
 *    by code and connects each client code to the servers with an intercommunicator;
 *  - context registration: every client endpoint sends the context id (MPI_CHAR, tag 1) to the
 *    server leader, which collects them with Iprobe(ANY_SOURCE) + Get_count + Recv and forwards
 *    the context to the other servers (tag 2); both sides then Intercomm_create (tag 10 + code),
 *    Intercomm_merge (clients low, servers high) and Barrier;
 *  - client buffers, two ways:
 *      EPX_TWO_SIDED (XIOS 2): per server two buffers of `buffer_bytes`; a full buffer leaves with
 *        EP_Issend(tag 20) on the context's intercommunicator while the client fills the other;
 *        the server loops Iprobe(ANY_SOURCE, 20) + Get_count + Recv;
 *      EPX_ONE_SIDED (XIOS 3): per server a ring of `buffer_bytes` in a window of the merged
 *        communicator, both sides in one lock_all epoch; the client stores events into its own
 *        memory and publishes a `written` counter (Win_sync, atomic replace), the server fetches
 *        the counter atomically, Gets the new bytes and replaces an `acked` counter, which frees
 *        ring space (passive target, no message from the client);
 *  - finalize: every context sends a finalize event to every server; the code's rank 0 then tells
 *    the server leader (tag 0), which ends the servers' accept loop once every code has.
 *
 * Events: a client sends typed events to one server; an event is an int type (>= 0), up to
 * EPX_MAX_META 64-bit integers of metadata and a byte payload. Each server receives the events
 * of each client in the order that client sent them (MPI's non-overtaking order); events of
 * different clients interleave in any order.
 *
 * Ranks: `client` ranks are ranks of the client group of a context (0..clients-1, the ranks of
 * the model communicator EPX_Init_client returns), `server` ranks those of the server group
 * (0..servers-1).
 *
 * Errors: every function returns EP_SUCCESS (0) or an EPMPI error code (EP_Error_string and
 * EP_Error_class of <ep_mpi.h> read it). Invalid, freed or wrong-kind handles give EP_ERR_ARG;
 * a NULL output, a bad transport, an empty or overlong name EP_ERR_ARG; an out-of-range server
 * rank EP_ERR_RANK; a negative type, payload or metadata count, or an event larger than the
 * context's buffer, EP_ERR_COUNT. Errors of the EPMPI calls underneath are returned as they are;
 * the endpoints are created with EP_ERRORS_RETURN. A failing call leaves its handles usable.
 *
 * Thread safety: any number of threads may call at once, each on its own handles (one handle,
 * one endpoint, one thread at a time), as XIOS's clients do from an OpenMP parallel region.
 * The host MPI must be initialised with MPI_THREAD_MULTIPLE when several threads call.
 */
#ifndef EPMPI_XIOS_EP_XIOS_H
#define EPMPI_XIOS_EP_XIOS_H

#include <ep_mpi.h>
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A client endpoint of a model code (EPX_Init_client), a server endpoint (EPX_Init_server), a
 *  context (one client or server endpoint's side of a registered context). Handles are positive
 *  32-bit integers, the same in C and Fortran; 0 is the null handle of each kind. */
typedef int EPX_Client;
typedef int EPX_Server;
typedef int EPX_Context;

/** Null handles. */
#define EPX_CLIENT_NULL 0
#define EPX_SERVER_NULL 0
#define EPX_CONTEXT_NULL 0

/** Transports of client buffers (EPX_Context_init). */
#define EPX_TWO_SIDED 0
#define EPX_ONE_SIDED 1

/** Longest code or context id, in bytes without the terminating NUL. */
#define EPX_MAX_NAME 255
/** Most metadata integers in one event. */
#define EPX_MAX_META 64
/** Buffer size (bytes per client and server) when EPX_Context_init is given 0. */
#define EPX_DEFAULT_BUFFER_BYTES (1 << 20)
/** Code id of the servers (XIOS's "xios.server"). */
#define EPX_SERVER_CODE "xios.server"
/** Event type of EPX_Event after the last event of a context: every client has finalized. */
#define EPX_EVENT_END (-1)

/**
 * One received event (EPX_Context_wait_event, EPX_Context_test_event). `meta` and `data` point
 * into the context's receive buffer and stay valid until the next wait/test on the context.
 * Fortran: type(epx_event), bind(c) of module ep_xios.
 */
typedef struct EPX_Event {
    int client;           /**< rank of the sending client in the context's client group */
    int type;             /**< the sender's event type, or EPX_EVENT_END */
    int meta_count;       /**< number of metadata integers */
    int reserved;         /**< padding; 0 */
    const int64_t *meta;  /**< meta_count integers */
    int64_t bytes;        /**< payload size in bytes */
    const void *data;     /**< payload (8-byte aligned) */
} EPX_Event;

/**
 * Starts a client endpoint of model code `code_id` (XIOS's CClient::initialize). Collective
 * over every endpoint of `world`: call it once from each of the `num_threads` threads of every
 * model process (typically inside `!$omp parallel`, `thread` = 0..num_threads-1, each value
 * once per process), while each server process calls EPX_Init_server. Processes may have
 * different thread counts. The host must provide MPI_THREAD_MULTIPLE when num_threads > 1.
 *
 * `model_comm` receives the code's own endpoint intracommunicator (a dup; its ranks are the
 * client ranks of the code's contexts: process by process in world order, threads by `thread`),
 * which the model uses in place of MPI_COMM_WORLD and frees with EP_Comm_free.
 *
 * Errors: EP_ERR_ARG (NULL outputs, empty or overlong id, the server's id, no server process in
 * `world`), EP_ERR_COMM (bad `world`), EP_ERR_THREAD_LEVEL, and those of
 * EP_Comm_create_endpoint, EP_Allgather, EP_Comm_split, EP_Intercomm_create.
 */
int EPX_Init_client(MPI_Comm world, int num_threads, int thread, const char *code_id,
                    EP_Comm *model_comm, EPX_Client *client);

/**
 * Sizes seen from a client endpoint, known from start-up on (before any context, e.g. to size
 * buffers): endpoints of its code (`clients`), server endpoints (`servers`), and its rank in
 * the code (= its model_comm rank and its client rank in the code's contexts). Any output may
 * be NULL. Errors: EP_ERR_ARG (bad handle).
 */
int EPX_Client_info(EPX_Client client, int *clients, int *servers, int *my_rank);

/**
 * Starts a server endpoint (XIOS's CServer::initialize): one per server process, called by one
 * thread, collective with EPX_Init_client of the clients. Errors: EP_ERR_ARG (NULL output),
 * EP_ERR_COMM, and those of the EPMPI calls above.
 */
int EPX_Init_server(MPI_Comm world, EPX_Server *server);

/**
 * The servers' own intracommunicator (one endpoint per server process, ranks = server ranks),
 * e.g. to gather what each server assembled. Owned by the server handle: do not free it.
 * Errors: EP_ERR_ARG.
 */
int EPX_Server_comm(EPX_Server server, EP_Comm *servers_comm);

/**
 * Registers context `context_id` of the client's code with the servers (XIOS's
 * CContext::initClientSide / CContextClient). Collective over the code's client endpoints (all
 * threads of all processes of the code, same id, transport and buffer size), and matched by
 * one EPX_Server_accept_context on every server.
 *
 * transport: EPX_TWO_SIDED or EPX_ONE_SIDED. buffer_bytes: size in bytes of each buffer per
 * (client, server) pair (two-sided: two of them; one-sided: one ring), 0 for
 * EPX_DEFAULT_BUFFER_BYTES, at least 256 and at most 2^30. Every event must fit in it.
 *
 * Errors: EP_ERR_ARG (bad client handle, NULL output, bad id or transport), EP_ERR_COUNT (bad
 * buffer size), those of the EPMPI calls (send, intercomm create/merge, window allocation).
 */
int EPX_Context_init(EPX_Client client, const char *context_id, int transport,
                     int64_t buffer_bytes, EPX_Context *context);

/**
 * Server side of registration (XIOS's CServer::listenContext): waits until some client code
 * registers a context, then builds the context with it (collective over the servers: every
 * server calls it and gets the same context). When every client code has called
 * EPX_Finalize_client instead, sets `*context` to EPX_CONTEXT_NULL: the server is done.
 * `context_id` receives the id (a buffer of EPX_MAX_NAME + 1 bytes; may be NULL).
 * Contexts are accepted one at a time, in the order their registrations complete.
 * Errors: EP_ERR_ARG (bad handle, NULL `context`), those of the EPMPI calls.
 */
int EPX_Server_accept_context(EPX_Server server, char *context_id, EPX_Context *context);

/**
 * Sizes and ranks of a context: number of client endpoints, of server endpoints, and this
 * endpoint's rank in its own group (client rank or server rank). Any output may be NULL.
 * Errors: EP_ERR_ARG (bad handle).
 */
int EPX_Context_info(EPX_Context context, int *clients, int *servers, int *my_rank);

/**
 * Client: sends one event to server `server` (XIOS's CContextClient::sendEvent): `type` >= 0,
 * `meta_count` (0..EPX_MAX_META) 64-bit integers from `meta`, and `bytes` bytes from `data`
 * (NULL when bytes is 0). The event is copied into the buffer for that server: `meta` and
 * `data` are free again on return. Two-sided, a full buffer leaves (EP_Issend) and the call may
 * wait for the other buffer's previous send; one-sided, the call may wait until the server has
 * read enough of the ring. Events leave in order; EPX_Context_flush makes them leave now.
 * Errors: EP_ERR_ARG (bad or server handle, NULL pointers with a count), EP_ERR_RANK,
 * EP_ERR_COUNT (negative type or count, event larger than the buffer: header 24 bytes + 8 per
 * meta + payload rounded up to 8), those of EPMPI.
 */
int EPX_Context_send_event(EPX_Context context, int server, int type, const int64_t *meta,
                           int meta_count, const void *data, int64_t bytes);

/**
 * Client: makes every event sent so far leave for its server (two-sided: the partly filled
 * buffers are sent; one-sided: nothing is pending, events are readable once sent). Does not
 * wait for the servers. Call it where servers need everything sent so far, e.g. at the end of
 * a timestep (XIOS's clients check their buffers there): two-sided events otherwise wait in a
 * partly filled buffer until it fills (a client that must wait for one server's buffer sends
 * every other partly filled buffer first, so waiting servers are not starved meanwhile).
 * Errors: EP_ERR_ARG, those of EPMPI.
 */
int EPX_Context_flush(EPX_Context context);

/**
 * Server: the next event of the context, waiting for one (XIOS's CContextServer::eventLoop).
 * `event->type` is EPX_EVENT_END once every client has finalized the context and all their
 * events were returned. Errors: EP_ERR_ARG (bad handle, client handle, NULL event), EP_ERR_INTERN
 * (a corrupt buffer), those of EPMPI.
 */
int EPX_Context_wait_event(EPX_Context context, EPX_Event *event);

/**
 * Server: like EPX_Context_wait_event, but returns at once: `*flag` = 1 and the event, or 0
 * when none has arrived (the event is then untouched).
 */
int EPX_Context_test_event(EPX_Context context, int *flag, EPX_Event *event);

/**
 * Ends a context on this endpoint and frees it; `*context` becomes EPX_CONTEXT_NULL.
 * Client (XIOS's CContext::finalize): sends the finalize event to every server, flushes and
 * waits until every buffer has left, then frees the context's window and communicators
 * (collective over the context, with the servers). Server: call it after EPX_EVENT_END.
 * Errors: EP_ERR_ARG (bad handle; on a server, before EPX_EVENT_END), those of EPMPI.
 */
int EPX_Context_finalize(EPX_Context *context);

/**
 * Ends a client endpoint (XIOS's CClient::finalize): every context of it must be finalized;
 * the code's rank 0 tells the server leader (tag 0); frees the client's communicators (the
 * model communicator returned by EPX_Init_client is the caller's). Collective over the code.
 * `*client` becomes EPX_CLIENT_NULL. Errors: EP_ERR_ARG (bad handle, contexts still open).
 */
int EPX_Finalize_client(EPX_Client *client);

/**
 * Ends a server endpoint after EPX_Server_accept_context returned EPX_CONTEXT_NULL (every code
 * has finalized); frees its communicators. `*server` becomes EPX_SERVER_NULL.
 * Errors: EP_ERR_ARG (bad handle, before the end, contexts still open).
 */
int EPX_Finalize_server(EPX_Server *server);

#ifdef __cplusplus
}
#endif

/* In C++ after ep_lib.hpp, the <mpi.h> included above has taken back the names ep_lib.hpp gives
 * to ep_lib (MPI_COMM_WORLD, MPI_INT...): ep_lib.hpp gives them back at each inclusion. */
#if defined(__cplusplus) && defined(EPMPI_XIOS_EP_LIB_HPP)
#include "ep_lib.hpp"
#endif

#endif
