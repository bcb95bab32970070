/*
 * caching.c: keyvals and user-defined error handlers that work on the host's communicators
 * and on endpoints alike (MPI 4.1 sections 7.7 and 9.3).
 *
 * MPI_Comm_create_keyval and MPI_Comm_create_errhandler take no communicator, so the layer
 * cannot tell which kind of communicator the result will serve: it makes both, the host's
 * (the value the program holds) and EPMPI's, and keeps the pair. EPMPI calls the program's
 * callbacks through one trampoline per kind, which converts the handles and codes to the
 * standard names' values: a keyval's record travels as the EPMPI keyval's extra state, an
 * error handler's is found from the host handle it stands for.
 *
 * Records are never freed: a freed keyval or handler stays usable by the attributes and
 * communicators that still hold it (MPI says so), and programs make few of them.
 */
#include "runtime.h"

#include <pthread.h>
#include <stdlib.h>

struct keyval {
    int host;          /* the program's keyval */
    int ep;            /* EPMPI's */
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    struct keyval *next;
};

struct errhandler {
    MPI_Errhandler host;
    EP_Errhandler ep;
    MPI_Comm_errhandler_function *fn;
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

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    int rc = PMPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
    if (rc != MPI_SUCCESS)
        return rc;
    struct keyval *k = malloc(sizeof *k);
    if (k == NULL)
        return MPI_ERR_NO_MEM;
    *k = (struct keyval){ *comm_keyval, 0, comm_copy_attr_fn, comm_delete_attr_fn, extra_state, NULL };
    rc = EP_Comm_create_keyval(copy_trampoline, delete_trampoline, &k->ep, k);
    if (rc != EP_SUCCESS) {
        free(k);
        return epmpi_rc(rc);
    }
    pthread_mutex_lock(&lock);
    k->next = keyvals;
    keyvals = k;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    int host = comm_keyval ? *comm_keyval : MPI_KEYVAL_INVALID;
    int rc = PMPI_Comm_free_keyval(comm_keyval);
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&lock);
    struct keyval *k = keyvals;
    while (k && k->host != host)
        k = k->next;
    if (k && k->ep != EP_KEYVAL_INVALID)
        EP_Comm_free_keyval(&k->ep); /* attributes that hold it keep it, as MPI says */
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
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
    pthread_mutex_unlock(&lock);
    if (eh != EP_ERRHANDLER_NULL)
        EP_Errhandler_free(&eh); /* the reference EP_Comm_get_errhandler gave */
    if (fn) {
        MPI_Comm c = epmpi_comm_out(*comm);
        int mpi_code = epmpi_rc(*code);
        fn(&c, &mpi_code);
    }
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    int rc = PMPI_Comm_create_errhandler(comm_errhandler_fn, errhandler);
    if (rc != MPI_SUCCESS)
        return rc;
    struct errhandler *e = malloc(sizeof *e);
    if (e == NULL)
        return MPI_ERR_NO_MEM;
    *e = (struct errhandler){ *errhandler, EP_ERRHANDLER_NULL, comm_errhandler_fn, NULL };
    rc = EP_Comm_create_errhandler(errhandler_trampoline, &e->ep);
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
