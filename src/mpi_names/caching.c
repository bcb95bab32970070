/*
 * caching.c: keyvals and user-defined error handlers that work on the host's communicators and
 * windows and on endpoints' alike (MPI 4.1 sections 7.7 and 9.3).
 *
 * MPI_Comm_create_keyval (and its MPI-1 name, MPI_Keyval_create) and MPI_Comm_create_errhandler
 * take no communicator, so the layer cannot tell which kind of communicator the result will
 * serve: it makes both, the host's (the value the program holds) and EPMPI's, and keeps the
 * pair. EPMPI calls the program's callbacks through one trampoline per kind, which converts
 * the handles and codes to the standard names' values: a keyval's record travels as the EPMPI
 * keyval's extra state, an error handler's is found from the host handle it stands for.
 *
 * Records are never freed: a freed keyval or handler stays usable by the attributes and
 * communicators that still hold it (MPI says so), and programs make few of them.
 */
#include "runtime.h"
#include <epmpi_mpix.h>

#include <pthread.h>
#include <stdlib.h>

struct keyval {
    int host;          /* the program's keyval */
    int ep;            /* EPMPI's */
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    struct keyval *next;
    MPI_Win_delete_attr_function *win_del; /* a window keyval's (whose copy is never run) */
};

/* A user error handler's references: the host's object counts the program's creation and
 * the host communicators' gets; EPMPI's twin counts the endpoints' gets. The program frees
 * both kinds with MPI_Errhandler_free on the one host value, so the layer counts the gets it
 * answered on endpoints (`ep_gets`) and sends a free to EPMPI while some are outstanding, to
 * the host (dropping the twin's creation reference with it) otherwise. */
struct errhandler {
    MPI_Errhandler host;
    EP_Errhandler ep;
    MPI_Comm_errhandler_function *fn;
    epmpi_errhandler_caller *call; /* how to call fn, NULL for a C function */
    int ep_gets;      /* references given by MPI_Comm_get_errhandler on endpoints, not freed yet */
    int freed;        /* the program's creation reference was freed */
    struct errhandler *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct keyval *keyvals;
static struct errhandler *errhandlers;

static int copy_trampoline(EP_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)keyval;
    struct keyval *k = extra;
    MPI_Comm c = epmpi_comm_out(oldcomm);
    if (k->copy == NULL) {
        *flag = 0;
        return EP_SUCCESS;
    }
    int rc = k->copy(c, k->host, k->extra, in, out, flag);
    return rc == MPI_SUCCESS ? EP_SUCCESS : EP_ERR_OTHER;
}

static int delete_trampoline(EP_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval;
    struct keyval *k = extra;
    if (k->del == NULL)
        return EP_SUCCESS;
    int rc = k->del(epmpi_comm_out(comm), k->host, value, k->extra);
    return rc == MPI_SUCCESS ? EP_SUCCESS : EP_ERR_OTHER;
}

static int keep_keyval(struct keyval *k, int rc, int *keyval, int (*host_free)(int *));

/* The pair for a communicator keyval whose host half `*comm_keyval` was just made (`rc`). */
static int pair_comm_keyval(int rc, MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
                            int *comm_keyval, void *extra_state)
{
    if (rc != MPI_SUCCESS)
        return rc;
    struct keyval *k = malloc(sizeof *k);
    if (k == NULL)
        return keep_keyval(NULL, EP_ERR_INTERN, comm_keyval, PMPI_Comm_free_keyval);
    *k = (struct keyval){ *comm_keyval, 0, copy_fn, delete_fn, extra_state, NULL, NULL };
    rc = EP_Comm_create_keyval(copy_trampoline, delete_trampoline, &k->ep, k);
    return keep_keyval(k, rc, comm_keyval, PMPI_Comm_free_keyval);
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    int rc = PMPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
    return pair_comm_keyval(rc, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/* The MPI-1 name (deprecated since MPI 2.0): the same keyval, made by the host's MPI-1 call
 * (whose callbacks' types have the same signatures as MPI 2.0's), paired as above so that
 * MPI_Attr_put and MPI_Comm_set_attr on endpoints take it. */
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    int rc = PMPI_Keyval_create(copy_fn, delete_fn, keyval, extra_state);
    return pair_comm_keyval(rc, (MPI_Comm_copy_attr_function *)copy_fn, (MPI_Comm_delete_attr_function *)delete_fn,
                            keyval, extra_state);
}
#pragma GCC diagnostic pop

/* Records `k` once EPMPI's twin is made (`rc`); else frees it (NULL: none was allocated) and
 * the host's keyval `*keyval` with `host_free`, so that a failed create leaves nothing. */
static int keep_keyval(struct keyval *k, int rc, int *keyval, int (*host_free)(int *))
{
    if (rc != EP_SUCCESS) {
        free(k);
        host_free(keyval);
        return k == NULL ? MPI_ERR_NO_MEM : epmpi_rc(rc);
    }
    pthread_mutex_lock(&lock);
    k->next = keyvals;
    keyvals = k;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

static int win_delete_trampoline(EP_Win win, int keyval, void *value, void *extra)
{
    (void)keyval;
    struct keyval *k = extra;
    if (k->win_del == NULL)
        return EP_SUCCESS;
    int rc = k->win_del(epmpi_win_out(win), k->host, value, k->extra);
    return rc == MPI_SUCCESS ? EP_SUCCESS : EP_ERR_OTHER;
}

/* Windows are never duplicated: EPMPI's twin gets no copy callback. */
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn,
                          int *win_keyval, void *extra_state)
{
    int rc = PMPI_Win_create_keyval(win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state);
    if (rc != MPI_SUCCESS)
        return rc;
    struct keyval *k = malloc(sizeof *k);
    if (k == NULL)
        return keep_keyval(NULL, EP_ERR_INTERN, win_keyval, PMPI_Win_free_keyval);
    *k = (struct keyval){ *win_keyval, 0, NULL, NULL, extra_state, NULL, win_delete_attr_fn };
    rc = EP_Win_create_keyval(NULL, win_delete_trampoline, &k->ep, k);
    return keep_keyval(k, rc, win_keyval, PMPI_Win_free_keyval);
}

/* The lock is held from the lookup to the marking, across the host's free: once the host has
 * freed a keyval it may hand the same value to another thread's create_keyval, whose record
 * must not be the one this free marks. `host_free` and `ep_free` are the kind's frees. */
static int free_keyval(int *keyval, int (*host_free)(int *), int (*ep_free)(int *))
{
    int host = keyval ? *keyval : MPI_KEYVAL_INVALID;
    pthread_mutex_lock(&lock);
    struct keyval *k = keyvals; /* the newest record of this value: the live one, if any */
    while (k && k->host != host)
        k = k->next;
    if (k && k->ep == EP_KEYVAL_INVALID) {
        pthread_mutex_unlock(&lock);
        /* A second free of a keyval made through the layer: MPI_ERR_KEYVAL through
         * MPI_COMM_SELF's handler (errors tied to no communicator), where the host may not
         * notice the stale value. */
        PMPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_KEYVAL);
        return MPI_ERR_KEYVAL;
    }
    int rc = host_free(keyval);
    if (rc == MPI_SUCCESS && k && k->ep != EP_COMM_FLAVOR)
        ep_free(&k->ep); /* attributes that hold it keep it, as MPI says */
    pthread_mutex_unlock(&lock);
    return rc;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval(comm_keyval, PMPI_Comm_free_keyval, EP_Comm_free_keyval);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/* The MPI-1 name of MPI_Comm_free_keyval. */
int MPI_Keyval_free(int *keyval)
{
    return free_keyval(keyval, PMPI_Keyval_free, EP_Comm_free_keyval);
}
#pragma GCC diagnostic pop

int MPI_Win_free_keyval(int *win_keyval)
{
    return free_keyval(win_keyval, PMPI_Win_free_keyval, EP_Win_free_keyval);
}

int epmpi_keyval_in(int keyval)
{
    if (keyval == MPI_TAG_UB)
        return EP_TAG_UB;
    pthread_mutex_lock(&lock);
    struct keyval *k = keyvals;
    while (k && k->host != keyval)
        k = k->next;
    int ep = k ? k->ep : EPMPI_FOREIGN;
    pthread_mutex_unlock(&lock);
    return ep;
}

static void errhandler_trampoline(EP_Comm *comm, int *code, ...)
{
    EP_Errhandler eh = EP_ERRHANDLER_NULL;
    EP_Comm_get_errhandler(*comm, &eh);
    pthread_mutex_lock(&lock);
    struct errhandler *e = errhandlers;
    while (e && e->ep != eh)
        e = e->next;
    MPI_Comm_errhandler_function *fn = e ? e->fn : NULL;
    epmpi_errhandler_caller *call = e ? e->call : NULL;
    pthread_mutex_unlock(&lock);
    if (eh != EP_ERRHANDLER_NULL)
        EP_Errhandler_free(&eh); /* the reference EP_Comm_get_errhandler gave */
    if (fn) {
        MPI_Comm c = epmpi_comm_out(*comm);
        int mpi_code = epmpi_rc(*code);
        if (call)
            call(fn, c, mpi_code);
        else
            fn(&c, &mpi_code);
    }
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    int rc = PMPI_Comm_create_errhandler(comm_errhandler_fn, errhandler);
    if (rc != MPI_SUCCESS)
        return rc;
    return epmpi_errhandler_register(*errhandler, comm_errhandler_fn, NULL);
}

int epmpi_errhandler_register(MPI_Errhandler host, MPI_Comm_errhandler_function *fn, epmpi_errhandler_caller *call)
{
    pthread_mutex_lock(&lock);
    struct errhandler *known = errhandlers;
    while (known && (known->host != host || known->freed)) /* a freed one's value may come again */
        known = known->next;
    if (known) { /* a host's Fortran binding made it through MPI_Comm_create_errhandler (MPICH) */
        known->fn = fn;
        known->call = call;
    }
    pthread_mutex_unlock(&lock);
    if (known)
        return MPI_SUCCESS;
    struct errhandler *e = malloc(sizeof *e);
    if (e == NULL)
        return MPI_ERR_NO_MEM;
    *e = (struct errhandler){ host, EP_ERRHANDLER_NULL, fn, call, 0, 0, NULL };
    int rc = EP_Comm_create_errhandler(errhandler_trampoline, &e->ep);
    if (rc != EP_SUCCESS) {
        free(e);
        return epmpi_rc(rc);
    }
    pthread_mutex_lock(&lock);
    e->next = errhandlers;
    errhandlers = e;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

EP_Errhandler epmpi_errhandler_in(MPI_Errhandler h)
{
    if (h == MPI_ERRORS_ARE_FATAL)
        return EP_ERRORS_ARE_FATAL;
    if (h == MPI_ERRORS_RETURN)
        return EP_ERRORS_RETURN;
    pthread_mutex_lock(&lock);
    struct errhandler *e = errhandlers;
    while (e && e->host != h)
        e = e->next;
    EP_Errhandler ep = e ? e->ep : (EP_Errhandler)EPMPI_FOREIGN;
    pthread_mutex_unlock(&lock);
    return ep;
}

MPI_Errhandler epmpi_errhandler_out(EP_Errhandler eh)
{
    if (eh == EP_ERRORS_RETURN)
        return MPI_ERRORS_RETURN;
    if (eh == EP_ERRORS_ARE_FATAL)
        return MPI_ERRORS_ARE_FATAL;
    pthread_mutex_lock(&lock);
    struct errhandler *e = errhandlers;
    while (e && e->ep != eh)
        e = e->next;
    MPI_Errhandler h = e ? e->host : MPI_ERRHANDLER_NULL;
    pthread_mutex_unlock(&lock);
    return h;
}

/* MPIX_COMM_FLAVOR: a host keyval (made on first use, when MPI is initialised) that stands for
 * EPMPI's predefined EP_COMM_FLAVOR, so that MPI_Comm_get_attr finds it on endpoints and the
 * host's own communicators answer "no attribute". */
int MPIX_Comm_flavor_keyval(void)
{
    static int host = MPI_KEYVAL_INVALID;
    pthread_mutex_lock(&lock);
    if (host == MPI_KEYVAL_INVALID) {
        struct keyval *k = malloc(sizeof *k);
        if (k && PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &host, NULL) == MPI_SUCCESS) {
            *k = (struct keyval){ host, EP_COMM_FLAVOR, NULL, NULL, NULL, keyvals, NULL };
            keyvals = k;
        } else {
            free(k);
        }
    }
    int v = host;
    pthread_mutex_unlock(&lock);
    return v;
}

/* The record of the user handler whose host value is `h`, or NULL; called with `lock` held. */
static struct errhandler *errhandler_record(MPI_Errhandler h)
{
    struct errhandler *e = errhandlers;
    while (e && e->host != h)
        e = e->next;
    return e;
}

/* Predefined handlers given to the program by gets on endpoints: the host, which counts
 * references to its predefined objects too (Open MPI frees them at MPI_Finalize when the count
 * reaches zero), holds none for these, so their frees are answered here. `delta` +1 records
 * one, -1 takes one back (returns whether there was one). */
static int predefined_given(MPI_Errhandler h, int delta)
{
    static int given_return, given_fatal;
    int *n = h == MPI_ERRORS_RETURN ? &given_return : h == MPI_ERRORS_ARE_FATAL ? &given_fatal : NULL;
    if (n == NULL)
        return 0;
    pthread_mutex_lock(&lock);
    int had = *n > 0;
    if (delta > 0 || had)
        *n += delta;
    pthread_mutex_unlock(&lock);
    return had;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))
        return PMPI_Comm_get_errhandler(comm, errhandler);
    EP_Errhandler t = EP_ERRHANDLER_NULL;
    int rc = EP_Comm_get_errhandler(epmpi_comm_in(comm), errhandler ? &t : NULL);
    if (rc != EP_SUCCESS)
        return epmpi_rc(rc);
    *errhandler = epmpi_errhandler_out(t);
    pthread_mutex_lock(&lock);
    struct errhandler *e = errhandler_record(*errhandler);
    if (e)
        e->ep_gets++; /* EPMPI's reference, freed by the program's MPI_Errhandler_free */
    pthread_mutex_unlock(&lock);
    if (e == NULL && t != EP_ERRHANDLER_NULL) {
        EP_Errhandler_free(&t); /* a predefined handler: the host's value needs no EPMPI reference */
        predefined_given(*errhandler, 1);
    }
    return MPI_SUCCESS;
}

/* MPI 4.1 section 9.3.4. A second free of a user handler made through the layer (its creation
 * reference freed, no get outstanding) is MPI_ERR_ARG through MPI_COMM_SELF's handler (errors
 * tied to no communicator), where the host would misbehave on the stale value. */
int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (errhandler == NULL)
        return PMPI_Errhandler_free(errhandler);
    if (predefined_given(*errhandler, -1)) {
        *errhandler = MPI_ERRHANDLER_NULL;
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&lock);
    struct errhandler *e = errhandler_record(*errhandler);
    EP_Errhandler twin = EP_ERRHANDLER_NULL;
    int to_host = 1, stale = 0;
    if (e && e->ep_gets > 0) {
        e->ep_gets--;
        twin = e->ep;
        to_host = 0;
    } else if (e && e->freed) {
        stale = 1;
    } else if (e) {
        e->freed = 1;
        twin = e->ep;
    }
    pthread_mutex_unlock(&lock);
    if (stale) {
        PMPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_ARG);
        return MPI_ERR_ARG;
    }
    if (twin != EP_ERRHANDLER_NULL)
        EP_Errhandler_free(&twin);
    if (!to_host) {
        *errhandler = MPI_ERRHANDLER_NULL;
        return MPI_SUCCESS;
    }
    return PMPI_Errhandler_free(errhandler);
}
