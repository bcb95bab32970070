/*
 * epx_internal.h: the state behind the handles of ep_xios.h and the pieces the protocol's
 * files share (handle table, event records, transports). Not installed.
 */
#ifndef EPMPI_XIOS_EPX_INTERNAL_H
#define EPMPI_XIOS_EPX_INTERNAL_H

#include "ep_xios.h"

#include <stddef.h>
#include <stdint.h>

/* Tags, XIOS's where it has them: on the world endpoints communicator, a code's rank 0 tells
 * the server leader it finalized (0), client endpoints register a context (1); on the servers'
 * communicator the leader forwards a registration (2); start-up intercommunicators use 3;
 * context intercommunicators 10 + code index; client buffers travel with tag 20. */
enum {
    EPX_TAG_FINALIZE = 0,
    EPX_TAG_REGISTER = 1,
    EPX_TAG_FORWARD = 2,
    EPX_TAG_STARTUP = 3,
    EPX_TAG_CONTEXT_BASE = 10,
    EPX_TAG_BUFFER = 20
};

/* Smallest and largest buffer of EPX_Context_init, in bytes. */
#define EPX_MIN_BUFFER_BYTES 256
#define EPX_MAX_BUFFER_BYTES ((int64_t)1 << 30)

/* ---- handles (handles.c) ---------------------------------------------------------------- */

enum epx_kind { EPX_KIND_CLIENT = 1, EPX_KIND_SERVER, EPX_KIND_CONTEXT };

/* Registers `object` under a new handle (> 0), or returns 0 when the table is full. */
int epx_handle_new(enum epx_kind kind, void *object);
/* The object behind `handle` if it is live and of kind `kind`, else NULL. */
void *epx_handle_get(int handle, enum epx_kind kind);
/* Retires `handle` (its value is not reused for a long time: stale handles stay invalid). */
void epx_handle_free(int handle);

/* ---- start-up (startup.c) --------------------------------------------------------------- */

/* The codes found by the start-up allgather, in order of their first world rank. */
struct epx_codes {
    int count;          /* distinct codes, the servers' included */
    int server_code;    /* index of EPX_SERVER_CODE, -1 when no process is a server */
    int *leader;        /* [count] world endpoint rank of each code's first endpoint */
    int *size;          /* [count] endpoints of each code */
    int *code_of_rank;  /* [world size] code index of every world endpoint rank */
};

struct epx_client {
    EP_Comm world;      /* this endpoint on the world communicator */
    EP_Comm intra;      /* the code's endpoints */
    EP_Comm inter;      /* start-up intercommunicator with the servers */
    int code;           /* index of the code in `codes` */
    int server_leader;  /* world rank of server 0 */
    int open_contexts;
    struct epx_codes codes;
};

struct epx_server {
    EP_Comm world, intra;
    EP_Comm *inter;             /* [codes.count] start-up intercommunicators (COMM_NULL for the servers' own) */
    int rank;                   /* rank among the servers */
    int finalized_codes;        /* leader: client codes that said they finalized */
    int done;                   /* every client code finalized */
    int open_contexts;
    int *registered;            /* leader: [codes.count] registrations received per code */
    char (*pending_id)[EPX_MAX_NAME + 1]; /* leader: [codes.count] id being registered */
    struct epx_codes codes;
};

/* ---- events (records.c) ---------------------------------------------------------------- */

/* Event type of the record each client sends every server when it finalizes a context. */
#define EPX_RECORD_FINALIZE (-2)

/* A record in a buffer: this header, meta_count int64_t, the payload padded to 8 bytes.
 * `total` is the size of the whole record in bytes. */
struct epx_record_header {
    uint32_t total;
    int32_t type;
    int32_t meta_count;
    int32_t reserved;
    int64_t bytes;
};

/* Size in bytes of the record of an event with `meta_count` integers and `bytes` bytes. */
int64_t epx_record_size(int meta_count, int64_t bytes);

/* Writes a record into a ring of `ring_bytes` bytes starting at offset `at` (wrapping). */
void epx_record_write(char *ring, int64_t ring_bytes, int64_t at, int type, const int64_t *meta,
                      int meta_count, const void *data, int64_t bytes);

/* Reads the record at `buf` (of `avail` bytes) into `event`; returns its size in bytes, or 0
 * for a corrupt record. `meta` and `data` of the event point into `buf`. */
int64_t epx_record_read(const char *buf, int64_t avail, EPX_Event *event);

/* ---- contexts (context.c, two_sided.c, one_sided.c) ------------------------------------- */

/* Client side, two-sided: the double buffer towards one server. */
struct epx_out_buffer {
    char *buf[2];
    int64_t used[2];
    EP_Request req[2];
    int current;
};

struct epx_context {
    int is_server;
    int transport;
    int64_t buffer_bytes;
    int *owner_open_contexts;   /* the client's or server's count, decremented at finalize */
    EP_Comm inter;              /* clients <-> servers */
    EP_Comm merged;             /* clients low (ranks 0..clients-1), servers high */
    int clients, servers, my_rank;

    /* client, two-sided */
    struct epx_out_buffer *out; /* [servers] */
    /* one-sided, both sides: window of the merged communicator; clients expose one slot per
     * server (EPX_SLOT_HEADER bytes of counters, then the ring), servers nothing */
    EP_Win win;
    char *base;

    /* server */
    char *staging;              /* buffer_bytes: the data being handed out as events */
    int64_t staging_len, staging_pos;
    int staging_client;
    int64_t *read;              /* one-sided: [clients] bytes read from each client's ring */
    int64_t *acked;             /* one-sided: [clients] read position last sent back (origin
                                 * buffers of the acknowledgements, stable until flushed) */
    int64_t *written;           /* one-sided client: [servers] bytes written into each ring */
    int64_t *known_acked;       /* one-sided client: [servers] last acknowledgement read */
    char *client_done;          /* [clients] finalize record seen */
    int finalized_clients;
    int next_client;            /* one-sided: where the next polling round starts */
    int ended;                  /* EPX_EVENT_END handed out */
};

/* One-sided slot of a client for one server: counters `written` (bytes the client put in the
 * ring, at offset 0) and `acked` (bytes the server read, at 8), padded, then the ring. */
#define EPX_SLOT_HEADER 64
#define EPX_SLOT_WRITTEN 0
#define EPX_SLOT_ACKED 8

int epx_two_sided_setup(struct epx_context *ctx);
int epx_two_sided_send(struct epx_context *ctx, int server, int type, const int64_t *meta,
                       int meta_count, const void *data, int64_t bytes);
int epx_two_sided_flush(struct epx_context *ctx);
int epx_two_sided_complete(struct epx_context *ctx); /* flush and wait for every send */
/* Server: fills the staging buffer with the next client buffer; *flag 0 when none is there
 * (`wait` 1: blocks until one is). */
int epx_two_sided_refill(struct epx_context *ctx, int wait, int *flag);

int epx_one_sided_setup(struct epx_context *ctx);
int epx_one_sided_send(struct epx_context *ctx, int server, int type, const int64_t *meta,
                       int meta_count, const void *data, int64_t bytes);
/* Server: one polling round over the clients, from where the last one stopped. */
int epx_one_sided_refill(struct epx_context *ctx, int *flag);
int epx_one_sided_release(struct epx_context *ctx);

/* ---- small helpers (handles.c) ---------------------------------------------------------- */

/* First non-success code of `a` and `b`. */
static inline int epx_first_error(int a, int b)
{
    return a != EP_SUCCESS ? a : b;
}

#endif
