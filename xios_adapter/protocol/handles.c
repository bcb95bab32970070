/*
 * handles.c: integer handles of clients, servers and contexts, as C and Fortran pass them.
 * A handle packs a slot index (low 16 bits, 1-based) and the slot's generation (high bits), so a
 * freed handle stays invalid after its slot is reused: a stale handle is an error, not another
 * object. Every event looks its context up, so lookups take no lock: a slot's object is
 * published before its tag (kind and generation) with release order and read after it with
 * acquire order. A mutex serialises only creation and freeing, which search or change slots.
 */
#include "epx_internal.h"

#include <pthread.h>
#include <stdatomic.h>

enum { SLOTS = 0xffff, GENERATIONS = 0x7fff };

struct slot {
    _Atomic int tag;          /* generation << 8 | kind; kind 0: free */
    _Atomic(void *) object;
    int generation;           /* last generation given out (under table_lock) */
};

static struct slot table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static int tag_of(int generation, enum epx_kind kind)
{
    return generation << 8 | (int)kind;
}

int epx_handle_new(enum epx_kind kind, void *object)
{
    int handle = 0;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < SLOTS; i++) {
        struct slot *s = &table[i];
        if ((atomic_load_explicit(&s->tag, memory_order_relaxed) & 0xff) == 0) {
            s->generation = s->generation % GENERATIONS + 1;
            atomic_store_explicit(&s->object, object, memory_order_relaxed);
            atomic_store_explicit(&s->tag, tag_of(s->generation, kind), memory_order_release);
            handle = (s->generation << 16) | (i + 1);
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return handle;
}

/* The slot a handle names, or NULL for a value no handle can have. */
static struct slot *slot_of(int handle)
{
    int index = (handle & 0xffff) - 1;
    return handle > 0 && index >= 0 && index < SLOTS ? &table[index] : NULL;
}

void *epx_handle_get(int handle, enum epx_kind kind)
{
    struct slot *s = slot_of(handle);
    if (!s || atomic_load_explicit(&s->tag, memory_order_acquire) != tag_of(handle >> 16, kind))
        return NULL;
    return atomic_load_explicit(&s->object, memory_order_relaxed);
}

void epx_handle_free(int handle)
{
    struct slot *s = slot_of(handle);
    if (!s)
        return;
    pthread_mutex_lock(&table_lock);
    int tag = atomic_load_explicit(&s->tag, memory_order_relaxed);
    if ((tag & 0xff) != 0 && (tag >> 8) == (handle >> 16)) {
        atomic_store_explicit(&s->tag, 0, memory_order_release);
        atomic_store_explicit(&s->object, NULL, memory_order_relaxed);
    }
    pthread_mutex_unlock(&table_lock);
}
