/*
 * threadcomm.c: MPICH's thread communicators (MPIX_Threadcomm_init/start/finish/free) on
 * EPMPI endpoints, for any host MPI (include/epmpi_mpix.h says what users see).
 *
 * A thread communicator is the endpoints communicator of `num_threads` endpoints per process,
 * created by MPIX_Threadcomm_init; the handle users hold is its first endpoint's. Between
 * MPIX_Threadcomm_start and _finish each thread has a binding (thread-local: handle -> its own
 * endpoint), and epmpi_comm_in resolves the handle through it, so one value names a different
 * rank in each thread. Ranks are given in the order the threads of a process call start, as
 * MPICH does.
 *
 * Resolution costs nothing while no thread communicator exists (epmpi_threadcomms_live is 0);
 * otherwise a look-up in the thread's bindings, then in the set of thread-communicator handles,
 * which is an immutable array replaced on init and free (readers take one atomic load, never a
 * lock).
 */
#include "runtime.h"
#include <epmpi_mpix.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

int epmpi_create_endpoints(MPI_Comm parent, int n, MPI_Info info, EP_Comm *eps);

int epmpi_threadcomms_live;

struct threadcomm {
    EP_Comm key; /* the handle users hold: endpoint 0's */
    int num_threads;
    EP_Comm *eps;
    /* The start/finish barrier: threads arrive, the last one releases the generation. */
    pthread_mutex_t lock;
    pthread_cond_t released;
    int arrived;
    unsigned generation;
    struct threadcomm *next;
};

/* Immutable set of live thread-communicator handles. */
struct keyset {
    int n;
    struct keyset *retired; /* earlier sets, kept until exit: a reader may still hold one */
    EP_Comm keys[];
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct threadcomm *registry; /* guarded by registry_lock */
static _Atomic(struct keyset *) keyset;

struct binding {
    EP_Comm key, ep;
};
static __thread struct binding *bindings;
static __thread int nbindings, capbindings;

static int is_threadcomm_key(EP_Comm c)
{
    struct keyset *s = atomic_load_explicit(&keyset, memory_order_acquire);
    for (int i = 0; s && i < s->n; i++)
        if (s->keys[i] == c)
            return 1;
    return 0;
}

EP_Comm epmpi_threadcomm_resolve(EP_Comm c)
{
    for (int i = nbindings - 1; i >= 0; i--)
        if (bindings[i].key == c)
            return bindings[i].ep;
    /* A thread communicator used outside start/finish names no endpoint of this thread. */
    return is_threadcomm_key(c) ? (EP_Comm)EPMPI_FOREIGN : c;
}

/* Rebuilds the key set from the registry (registry_lock held). */
static int publish_keys(void)
{
    int n = 0;
    for (struct threadcomm *t = registry; t; t = t->next)
        n++;
    struct keyset *s = malloc(sizeof(struct keyset) + sizeof(EP_Comm) * (size_t)n);
    if (!s)
        return MPI_ERR_NO_MEM;
    s->n = 0;
    for (struct threadcomm *t = registry; t; t = t->next)
        s->keys[s->n++] = t->key;
    s->retired = atomic_load_explicit(&keyset, memory_order_relaxed);
    atomic_store_explicit(&keyset, s, memory_order_release);
    __atomic_store_n(&epmpi_threadcomms_live, n > 0, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

static struct threadcomm *find(EP_Comm key)
{
    pthread_mutex_lock(&registry_lock);
    struct threadcomm *t = registry;
    while (t && t->key != key)
        t = t->next;
    pthread_mutex_unlock(&registry_lock);
    return t;
}

/* Waits until all `num_threads` threads of the process have arrived; returns the arrival order. */
static int barrier(struct threadcomm *t)
{
    pthread_mutex_lock(&t->lock);
    int order = t->arrived++;
    if (t->arrived == t->num_threads) {
        t->arrived = 0;
        t->generation++;
        pthread_cond_broadcast(&t->released);
    } else {
        unsigned gen = t->generation;
        while (gen == t->generation)
            pthread_cond_wait(&t->released, &t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return order;
}

int MPIX_Threadcomm_init(MPI_Comm comm, int num_threads, MPI_Comm *newthreadcomm)
{
    if (newthreadcomm == NULL)
        return MPI_ERR_ARG;
    *newthreadcomm = MPI_COMM_NULL;
    struct threadcomm *t = calloc(1, sizeof *t);
    EP_Comm *eps = malloc(sizeof(EP_Comm) * (size_t)(num_threads > 0 ? num_threads : 1));
    if (!t || !eps) {
        free(t);
        free(eps);
        return MPI_ERR_NO_MEM;
    }
    int rc = epmpi_create_endpoints(comm, num_threads, MPI_INFO_NULL, eps);
    if (rc != MPI_SUCCESS || num_threads == 0) {
        /* A process with no thread takes part in the creation and holds no handle. */
        free(t);
        free(eps);
        return rc;
    }
    t->key = eps[0];
    t->num_threads = num_threads;
    t->eps = eps;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->released, NULL);
    pthread_mutex_lock(&registry_lock);
    t->next = registry;
    registry = t;
    rc = publish_keys();
    pthread_mutex_unlock(&registry_lock);
    *newthreadcomm = epmpi_comm_out(t->key);
    return rc;
}

int MPIX_Threadcomm_start(MPI_Comm threadcomm)
{
    struct threadcomm *t = EPMPI_IS_EP(threadcomm) ? find(epmpi_plain_comm_in(threadcomm)) : NULL;
    if (!t)
        return MPI_ERR_COMM;
    if (nbindings == capbindings) {
        int cap = capbindings ? 2 * capbindings : 4;
        struct binding *b = realloc(bindings, sizeof(struct binding) * (size_t)cap);
        if (!b)
            return MPI_ERR_NO_MEM;
        bindings = b;
        capbindings = cap;
    }
    int order = barrier(t);
    bindings[nbindings].key = t->key;
    bindings[nbindings].ep = t->eps[order];
    nbindings++;
    return MPI_SUCCESS;
}

int MPIX_Threadcomm_finish(MPI_Comm threadcomm)
{
    struct threadcomm *t = EPMPI_IS_EP(threadcomm) ? find(epmpi_plain_comm_in(threadcomm)) : NULL;
    if (!t)
        return MPI_ERR_COMM;
    int i = nbindings - 1;
    while (i >= 0 && bindings[i].key != t->key)
        i--;
    if (i < 0)
        return MPI_ERR_COMM; /* this thread did not start it */
    bindings[i] = bindings[--nbindings];
    if (nbindings == 0) {
        free(bindings);
        bindings = NULL;
        capbindings = 0;
    }
    barrier(t);
    return MPI_SUCCESS;
}

int MPIX_Threadcomm_free(MPI_Comm *threadcomm)
{
    if (threadcomm == NULL)
        return MPI_ERR_ARG;
    if (*threadcomm == MPI_COMM_NULL)
        return MPI_SUCCESS; /* a process that has no thread in it */
    EP_Comm key = EPMPI_IS_EP(*threadcomm) ? epmpi_plain_comm_in(*threadcomm) : EP_COMM_NULL;
    pthread_mutex_lock(&registry_lock);
    struct threadcomm **p = &registry;
    while (*p && (*p)->key != key)
        p = &(*p)->next;
    struct threadcomm *t = *p;
    if (t) {
        *p = t->next;
        publish_keys();
    }
    pthread_mutex_unlock(&registry_lock);
    if (!t)
        return MPI_ERR_COMM;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < t->num_threads; i++) {
        int r = EP_Comm_free(&t->eps[i]);
        if (rc == MPI_SUCCESS)
            rc = epmpi_rc(r);
    }
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->released);
    free(t->eps);
    free(t);
    *threadcomm = MPI_COMM_NULL;
    return rc;
}

/* The key sets, current and retired, are freed at exit: no reader is left then. */
__attribute__((destructor)) static void free_keysets(void)
{
    struct keyset *s = atomic_exchange(&keyset, NULL);
    while (s) {
        struct keyset *next = s->retired;
        free(s);
        s = next;
    }
}
