/*
 * handles.c: integer handles of clients, servers and contexts, as C and Fortran pass them.
 * A handle packs a slot index (low 16 bits, 1-based) and the slot's generation (high bits), so a
 * freed handle stays invalid after its slot is reused: a stale handle is an error, not another
 * object. One mutex guards the table: handles are looked up once per call, never on a hot path.
 */
#include "epx_internal.h"

#include <pthread.h>

enum { SLOTS = 0xffff, GENERATIONS = 0x7fff };

struct slot {
    enum epx_kind kind; /* 0: free */
    int generation;
    void *object;
};

static struct slot table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

int epx_handle_new(enum epx_kind kind, void *object)
{
    int handle = 0;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < SLOTS; i++) {
        if (table[i].kind == 0) {
            table[i].kind = kind;
            table[i].object = object;
            table[i].generation = table[i].generation % GENERATIONS + 1;
            handle = (table[i].generation << 16) | (i + 1);
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return handle;
}

static struct slot *slot_of(int handle)
{
    int index = (handle & 0xffff) - 1;
    if (handle <= 0 || index < 0 || index >= SLOTS)
        return NULL;
    struct slot *s = &table[index];
    return s->kind != 0 && s->generation == (handle >> 16) ? s : NULL;
}

void *epx_handle_get(int handle, enum epx_kind kind)
{
    pthread_mutex_lock(&table_lock);
    struct slot *s = slot_of(handle);
    void *object = s && s->kind == kind ? s->object : NULL;
    pthread_mutex_unlock(&table_lock);
    return object;
}

void epx_handle_free(int handle)
{
    pthread_mutex_lock(&table_lock);
    struct slot *s = slot_of(handle);
    if (s) {
        s->kind = 0;
        s->object = NULL;
    }
    pthread_mutex_unlock(&table_lock);
}
