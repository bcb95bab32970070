/*
 * fortran_calls.c: the `use mpi` / mpif.h entry points written by hand: initialisation (the
 * host's thread level chosen as init.c chooses it), endpoint creation (MPIX_Comm_create_
 * endpoints, MPIX_Threadcomm_*) and the completion calls on arrays of requests, which may mix
 * the host's requests and EPMPI's (the layer's C functions complete mixed arrays, requests.c),
 * the alltoallw family (arrays of datatypes), communicator names (Fortran strings), predefined
 * attributes of communicators and windows (values in Fortran), error handlers, error strings
 * and the buffer of buffered sends (through the layer's C functions on any handle), and
 * EPMPI's other extensions (MPIX_).
 * The other entry points are generated (generate_fortran.py, fortran_names.c).
 */
#include "fortran_runtime.h"
#include <epmpi_mpix.h>

#include <stdlib.h>
#include <string.h>

void *epmpi_f_bottom, *epmpi_f_in_place, *epmpi_f_status_ignore, *epmpi_f_statuses_ignore;
void *epmpi_f_unweighted, *epmpi_f_weights_empty;
/* MPI_STATUS_SIZE of the host's Fortran binding. */
static int f_status_size;
/* The predefined attribute keys: Fortran values (recorded) and the C values in the same order. */
#define PREDEFINED_KEYS 7
static MPI_Fint f_keys[PREDEFINED_KEYS];
static const int c_keys[PREDEFINED_KEYS] = {MPI_TAG_UB,        MPI_HOST,   MPI_IO,          MPI_WTIME_IS_GLOBAL,
                                            MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE};
/* The predefined window keys, likewise. */
#define WIN_KEYS 5
static MPI_Fint f_win_keys[WIN_KEYS];
static const int c_win_keys[WIN_KEYS] = {MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR,
                                         MPI_WIN_MODEL};

/* Called by fortran_sentinels.f90 with the host's own sentinel objects. */
void epmpi_f_record_sentinels_(void *bottom, void *in_place, void *status_ignore, void *statuses_ignore,
                               void *unweighted, void *weights_empty, const MPI_Fint *status_size,
                               const MPI_Fint keys[PREDEFINED_KEYS], const MPI_Fint win_keys[WIN_KEYS]);
void epmpi_f_record_sentinels_(void *bottom, void *in_place, void *status_ignore, void *statuses_ignore,
                               void *unweighted, void *weights_empty, const MPI_Fint *status_size,
                               const MPI_Fint keys[PREDEFINED_KEYS], const MPI_Fint win_keys[WIN_KEYS])
{
    memcpy(f_win_keys, win_keys, sizeof f_win_keys);
    epmpi_f_unweighted = unweighted;
    epmpi_f_weights_empty = weights_empty;
    memcpy(f_keys, keys, sizeof f_keys);
    epmpi_f_bottom = bottom;
    epmpi_f_in_place = in_place;
    epmpi_f_status_ignore = status_ignore;
    epmpi_f_statuses_ignore = statuses_ignore;
    f_status_size = *status_size;
}

void epmpi_f_sentinels_(void);

/* Before main, so that every entry point can tell the sentinels from buffers and statuses. The
 * Fortran routine only passes addresses: it needs no Fortran runtime set up. */
__attribute__((constructor)) static void record_sentinels(void)
{
    epmpi_f_sentinels_();
}

/* Initialisation: the host's own entry points (which set up its Fortran binding), at the thread
 * level the layer needs. */
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);

void mpi_init_(MPI_Fint *ierror)
{
    MPI_Fint level = epmpi_host_thread_level(MPI_THREAD_SINGLE), provided;
    pmpi_init_thread_(&level, &provided, ierror);
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    MPI_Fint level = epmpi_host_thread_level(*required);
    pmpi_init_thread_(&level, provided, ierror);
}

/* Creation. */
void mpix_comm_create_endpoints_(MPI_Fint *parent_comm, MPI_Fint *my_num_ep, MPI_Fint *info,
                                 MPI_Fint out_comm_handles[], MPI_Fint *ierror)
{
    int n = *my_num_ep;
    MPI_Comm *comms = malloc(sizeof(MPI_Comm) * (size_t)(n > 0 ? n : 1));
    if (comms == NULL) {
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    int rc = MPIX_Comm_create_endpoints(epmpi_f2c_comm(*parent_comm), n, PMPI_Info_f2c(*info),
                                        n > 0 ? comms : NULL);
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            out_comm_handles[i] = epmpi_c2f_comm(comms[i]);
    free(comms);
    *ierror = rc;
}

void mpix_threadcomm_init_(MPI_Fint *comm, MPI_Fint *num_threads, MPI_Fint *newthreadcomm, MPI_Fint *ierror)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierror = MPIX_Threadcomm_init(epmpi_f2c_comm(*comm), *num_threads, &c);
    *newthreadcomm = epmpi_c2f_comm(c);
}

void mpix_threadcomm_start_(MPI_Fint *threadcomm, MPI_Fint *ierror)
{
    *ierror = MPIX_Threadcomm_start(epmpi_f2c_comm(*threadcomm));
}

void mpix_threadcomm_finish_(MPI_Fint *threadcomm, MPI_Fint *ierror)
{
    *ierror = MPIX_Threadcomm_finish(epmpi_f2c_comm(*threadcomm));
}

void mpix_threadcomm_free_(MPI_Fint *threadcomm, MPI_Fint *ierror)
{
    MPI_Comm c = epmpi_f2c_comm(*threadcomm);
    *ierror = MPIX_Threadcomm_free(&c);
    *threadcomm = epmpi_c2f_comm(c);
}

/* EPMPI's other extensions (include/epmpi_mpixf.h): the team form of creation, an endpoint's
 * place in its process, the host communicator under an endpoints communicator, the version, the
 * live object counts, and the key of MPIX_COMM_FLAVOR. */
void mpix_comm_create_endpoint_(MPI_Fint *parent_comm, MPI_Fint *my_num_ep, MPI_Fint *index, MPI_Fint *newcomm,
                                MPI_Fint *ierror)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierror = MPIX_Comm_create_endpoint(epmpi_f2c_comm(*parent_comm), *my_num_ep, *index, &c);
    *newcomm = epmpi_c2f_comm(c);
}

void mpix_comm_local_info_(MPI_Fint *comm, MPI_Fint *local_index, MPI_Fint *local_count, MPI_Fint *process_rank,
                           MPI_Fint *ierror)
{
    *ierror = MPIX_Comm_local_info(epmpi_f2c_comm(*comm), local_index, local_count, process_rank);
}

void mpix_comm_get_host_comm_(MPI_Fint *comm, MPI_Fint *host_comm, MPI_Fint *ierror)
{
    MPI_Comm h = MPI_COMM_NULL;
    *ierror = MPIX_Comm_get_host_comm(epmpi_f2c_comm(*comm), &h);
    *host_comm = PMPI_Comm_c2f(h);
}

/* The version into a blank-padded Fortran string, cut to its length. */
void mpix_get_library_version_(char *version, MPI_Fint *resultlen, MPI_Fint *ierror, size_t version_len)
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len = 0;
    *ierror = MPIX_Get_library_version(text, &len);
    if (*ierror != MPI_SUCCESS)
        return;
    size_t n = (size_t)len < version_len ? (size_t)len : version_len;
    memcpy(version, text, n);
    memset(version + n, ' ', version_len - n);
    *resultlen = (MPI_Fint)n;
}

void mpix_debug_live_handles_(MPI_Fint *comms, MPI_Fint *requests, MPI_Fint *messages, MPI_Fint *ierror)
{
    *ierror = MPIX_Debug_live_handles(comms, requests, messages);
}

void mpix_debug_live_objects_(MPI_Fint *comm_states, MPI_Fint *requests, MPI_Fint *win_states, MPI_Fint *ierror)
{
    *ierror = MPIX_Debug_live_objects(comm_states, requests, win_states);
}

void mpix_debug_live_windows_(MPI_Fint *windows, MPI_Fint *ierror)
{
    *ierror = MPIX_Debug_live_windows(windows);
}

/* Endpoint teams: the handles are EPMPI's in both languages (MPIX_Endpoint_team is an int). */
void mpix_endpoint_team_create_(MPI_Fint *team_id, MPI_Fint *team_size, MPI_Fint *team, MPI_Fint *ierror)
{
    MPIX_Endpoint_team t = (MPIX_Endpoint_team)*team;
    *ierror = MPIX_Endpoint_team_create(*team_id, *team_size, &t);
    *team = (MPI_Fint)t;
}

void mpix_endpoint_join_(MPI_Fint *team, MPI_Fint *ierror)
{
    *ierror = MPIX_Endpoint_join((MPIX_Endpoint_team)*team);
}

void mpix_endpoint_leave_(MPI_Fint *team, MPI_Fint *ierror)
{
    *ierror = MPIX_Endpoint_leave((MPIX_Endpoint_team)*team);
}

void mpix_endpoint_team_destroy_(MPI_Fint *team, MPI_Fint *ierror)
{
    MPIX_Endpoint_team t = (MPIX_Endpoint_team)*team;
    *ierror = MPIX_Endpoint_team_destroy(&t);
    *team = (MPI_Fint)t;
}

/* MPI 4.0 calls that Open MPI 4.1 lacks, under their MPIX_ names on both hosts (as in C). */
void mpix_isendrecv_(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest, MPI_Fint *sendtag,
                     void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source, MPI_Fint *recvtag,
                     MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierror = MPIX_Isendrecv(epmpi_f_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), *dest, *sendtag,
                             epmpi_f_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype), *source, *recvtag,
                             epmpi_f2c_comm(*comm), &r);
    *request = epmpi_c2f_request(r);
}

void mpix_isendrecv_replace_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *sendtag,
                             MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierror = MPIX_Isendrecv_replace(epmpi_f_buffer(buf), *count, PMPI_Type_f2c(*datatype), *dest, *sendtag, *source,
                                     *recvtag, epmpi_f2c_comm(*comm), &r);
    *request = epmpi_c2f_request(r);
}

void mpix_comm_idup_with_info_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *newcomm, MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    *ierror = MPIX_Comm_idup_with_info(epmpi_f2c_comm(*comm), PMPI_Info_f2c(*info), &c, &r);
    *newcomm = epmpi_c2f_comm(c);
    *request = epmpi_c2f_request(r);
}

/* A function (no ierror): the key is made on first use, as in C. */
MPI_Fint mpix_comm_flavor_keyval_(void)
{
    return MPIX_Comm_flavor_keyval();
}

/* Arrays of requests. */
void pmpi_waitall_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint statuses[], MPI_Fint *ierror);
void pmpi_testall_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *flag, MPI_Fint statuses[], MPI_Fint *ierror);
void pmpi_waitany_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *index, MPI_Fint status[], MPI_Fint *ierror);
void pmpi_testany_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *index, MPI_Fint *flag, MPI_Fint status[],
                   MPI_Fint *ierror);
void pmpi_waitsome_(MPI_Fint *incount, MPI_Fint requests[], MPI_Fint *outcount, MPI_Fint indices[],
                    MPI_Fint statuses[], MPI_Fint *ierror);
void pmpi_testsome_(MPI_Fint *incount, MPI_Fint requests[], MPI_Fint *outcount, MPI_Fint indices[],
                    MPI_Fint statuses[], MPI_Fint *ierror);
void pmpi_startall_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *ierror);

static int any_ep(int count, const MPI_Fint requests[])
{
    int ep = 0;
    for (int i = 0; i < count; i++)
        ep |= EPMPI_F_IS_EP(requests[i]);
    return ep;
}

/* One call's C requests and statuses, converted from and back to the Fortran arrays. */
struct c_arrays {
    MPI_Request *req;
    MPI_Status *st;
};

static int arrays_in(struct c_arrays *a, int count, const MPI_Fint requests[])
{
    size_t n = (size_t)(count > 0 ? count : 1);
    a->req = malloc(sizeof(MPI_Request) * n);
    a->st = calloc(n, sizeof(MPI_Status)); /* read back even where a call failed early */
    if (!a->req || !a->st) {
        free(a->req);
        free(a->st);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < count; i++)
        a->req[i] = epmpi_f2c_request(requests[i]);
    return MPI_SUCCESS;
}

/* Requests back to Fortran; the first `nst` statuses (unless ignored) to MPI_STATUS_SIZE
 * columns; frees the arrays. */
static void arrays_out(struct c_arrays *a, int count, MPI_Fint requests[], int nst, MPI_Fint statuses[])
{
    for (int i = 0; i < count; i++)
        requests[i] = epmpi_c2f_request(a->req[i]);
    if (!epmpi_f_statuses_ignored(statuses))
        for (int i = 0; i < nst; i++)
            PMPI_Status_c2f(&a->st[i], statuses + (size_t)i * (size_t)f_status_size);
    free(a->req);
    free(a->st);
}

static MPI_Status *c_statuses(struct c_arrays *a, MPI_Fint statuses[])
{
    return epmpi_f_statuses_ignored(statuses) ? MPI_STATUSES_IGNORE : a->st;
}

/* A single status of Waitany/Testany. */
static MPI_Status *c_status(struct c_arrays *a, MPI_Fint status[])
{
    return epmpi_f_status_ignored(status) ? MPI_STATUS_IGNORE : a->st;
}

static void status_out(struct c_arrays *a, MPI_Fint status[])
{
    if (!epmpi_f_status_ignored(status))
        PMPI_Status_c2f(a->st, status);
}

void mpi_waitall_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint statuses[], MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!any_ep(*count, requests))) {
        pmpi_waitall_(count, requests, statuses, ierror);
        return;
    }
    struct c_arrays a;
    if ((*ierror = arrays_in(&a, *count, requests)) != MPI_SUCCESS)
        return;
    *ierror = MPI_Waitall(*count, a.req, c_statuses(&a, statuses));
    arrays_out(&a, *count, requests, *count, statuses);
}

void mpi_testall_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *flag, MPI_Fint statuses[], MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!any_ep(*count, requests))) {
        pmpi_testall_(count, requests, flag, statuses, ierror);
        return;
    }
    struct c_arrays a;
    if ((*ierror = arrays_in(&a, *count, requests)) != MPI_SUCCESS)
        return;
    int done = 0;
    *ierror = MPI_Testall(*count, a.req, &done, c_statuses(&a, statuses));
    *flag = done != 0;
    arrays_out(&a, *count, requests, done ? *count : 0, statuses);
}

/* Fortran indices count from 1 (MPI 4.1 section 19.1.4 lists no exception for Waitany and
 * Waitsome); MPI_UNDEFINED stays. */
static MPI_Fint index_out(int i)
{
    return i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
}

void mpi_waitany_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *index, MPI_Fint status[], MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!any_ep(*count, requests))) {
        pmpi_waitany_(count, requests, index, status, ierror);
        return;
    }
    struct c_arrays a;
    if ((*ierror = arrays_in(&a, *count, requests)) != MPI_SUCCESS)
        return;
    int i = MPI_UNDEFINED;
    *ierror = MPI_Waitany(*count, a.req, &i, c_status(&a, status));
    *index = index_out(i);
    if (i != MPI_UNDEFINED)
        status_out(&a, status);
    arrays_out(&a, *count, requests, 0, NULL);
}

void mpi_testany_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *index, MPI_Fint *flag, MPI_Fint status[],
                  MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!any_ep(*count, requests))) {
        pmpi_testany_(count, requests, index, flag, status, ierror);
        return;
    }
    struct c_arrays a;
    if ((*ierror = arrays_in(&a, *count, requests)) != MPI_SUCCESS)
        return;
    int i = MPI_UNDEFINED, done = 0;
    *ierror = MPI_Testany(*count, a.req, &i, &done, c_status(&a, status));
    *index = index_out(i);
    *flag = done != 0;
    if (done && i != MPI_UNDEFINED)
        status_out(&a, status);
    arrays_out(&a, *count, requests, 0, NULL);
}

/* Waitsome and Testsome: `some` is MPI_Waitsome or MPI_Testsome of the layer. */
static void some(int (*fn)(int, MPI_Request[], int *, int[], MPI_Status[]), MPI_Fint *incount, MPI_Fint requests[],
                 MPI_Fint *outcount, MPI_Fint indices[], MPI_Fint statuses[], MPI_Fint *ierror)
{
    struct c_arrays a;
    if ((*ierror = arrays_in(&a, *incount, requests)) != MPI_SUCCESS)
        return;
    int n = MPI_UNDEFINED;
    *ierror = fn(*incount, a.req, &n, indices, c_statuses(&a, statuses));
    *outcount = n;
    if (n != MPI_UNDEFINED)
        for (int i = 0; i < n; i++)
            indices[i] += 1;
    arrays_out(&a, *incount, requests, n == MPI_UNDEFINED ? 0 : n, statuses);
}

void mpi_waitsome_(MPI_Fint *incount, MPI_Fint requests[], MPI_Fint *outcount, MPI_Fint indices[],
                   MPI_Fint statuses[], MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!any_ep(*incount, requests))) {
        pmpi_waitsome_(incount, requests, outcount, indices, statuses, ierror);
        return;
    }
    some(MPI_Waitsome, incount, requests, outcount, indices, statuses, ierror);
}

void mpi_testsome_(MPI_Fint *incount, MPI_Fint requests[], MPI_Fint *outcount, MPI_Fint indices[],
                   MPI_Fint statuses[], MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!any_ep(*incount, requests))) {
        pmpi_testsome_(incount, requests, outcount, indices, statuses, ierror);
        return;
    }
    some(MPI_Testsome, incount, requests, outcount, indices, statuses, ierror);
}

void mpi_startall_(MPI_Fint *count, MPI_Fint requests[], MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!any_ep(*count, requests))) {
        pmpi_startall_(count, requests, ierror);
        return;
    }
    struct c_arrays a;
    if ((*ierror = arrays_in(&a, *count, requests)) != MPI_SUCCESS)
        return;
    *ierror = MPI_Startall(*count, a.req);
    arrays_out(&a, *count, requests, 0, NULL);
}

/* The alltoallw family: arrays of datatypes, one per peer (each rank of the remote group, or each
 * neighbour of a topology), converted one by one with the host's f2c into temporaries that the
 * call only reads while it starts (EPMPI copies the blocks). Under MPI_IN_PLACE the send types
 * are not read (the program may pass fewer), so the receive types stand in for them. */
void pmpi_alltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Fint sdispls[], MPI_Fint sendtypes[], void *recvbuf,
                     MPI_Fint recvcounts[], MPI_Fint rdispls[], MPI_Fint recvtypes[], MPI_Fint *comm, MPI_Fint *ierror);
void pmpi_ialltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Fint sdispls[], MPI_Fint sendtypes[], void *recvbuf,
                      MPI_Fint recvcounts[], MPI_Fint rdispls[], MPI_Fint recvtypes[], MPI_Fint *comm,
                      MPI_Fint *request, MPI_Fint *ierror);
void pmpi_neighbor_alltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Aint sdispls[], MPI_Fint sendtypes[],
                              void *recvbuf, MPI_Fint recvcounts[], MPI_Aint rdispls[], MPI_Fint recvtypes[],
                              MPI_Fint *comm, MPI_Fint *ierror);
void pmpi_ineighbor_alltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Aint sdispls[], MPI_Fint sendtypes[],
                               void *recvbuf, MPI_Fint recvcounts[], MPI_Aint rdispls[], MPI_Fint recvtypes[],
                               MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror);

struct w_types {
    MPI_Datatype *send, *recv;
};

/* Peers of an alltoallw: the size of the (remote) group. */
static int w_peers(MPI_Comm comm, int *sends, int *recvs)
{
    int inter = 0, rc = MPI_Comm_test_inter(comm, &inter);
    if (rc == MPI_SUCCESS)
        rc = inter ? MPI_Comm_remote_size(comm, sends) : MPI_Comm_size(comm, sends);
    *recvs = *sends;
    return rc;
}

/* Peers of a neighbour alltoallw: destinations (sends) and sources (receives) of the topology. */
static int w_neighbours(MPI_Comm comm, int *sends, int *recvs)
{
    int topo = MPI_UNDEFINED, rc = MPI_Topo_test(comm, &topo), rank = 0, weighted = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    switch (topo) {
    case MPI_CART:
        rc = MPI_Cartdim_get(comm, sends);
        *sends *= 2;
        *recvs = *sends;
        return rc;
    case MPI_GRAPH:
        rc = MPI_Comm_rank(comm, &rank);
        if (rc == MPI_SUCCESS)
            rc = MPI_Graph_neighbors_count(comm, rank, sends);
        *recvs = *sends;
        return rc;
    case MPI_DIST_GRAPH:
        return MPI_Dist_graph_neighbors_count(comm, recvs, sends, &weighted);
    default:
        *sends = *recvs = 0; /* the call itself reports the missing topology */
        return MPI_SUCCESS;
    }
}

static MPI_Datatype *w_convert(const MPI_Fint f[], int n)
{
    MPI_Datatype *c = malloc(sizeof(MPI_Datatype) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; c != NULL && i < n; i++)
        c[i] = PMPI_Type_f2c(f[i]);
    return c;
}

/* The C arrays of both type lists (0), or an error code (no memory, or the peers unknown). */
static int w_types_in(struct w_types *w, int (*peers)(MPI_Comm, int *, int *), MPI_Comm comm, const void *sendbuf,
                      const MPI_Fint sendtypes[], const MPI_Fint recvtypes[])
{
    int sends = 0, recvs = 0, rc = peers(comm, &sends, &recvs);
    w->send = w->recv = NULL;
    if (rc != MPI_SUCCESS)
        return rc;
    w->recv = w_convert(recvtypes, recvs);
    w->send = sendbuf == epmpi_f_in_place ? NULL : w_convert(sendtypes, sends);
    if (w->recv == NULL || (w->send == NULL && sendbuf != epmpi_f_in_place)) {
        free(w->send);
        free(w->recv);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static void w_types_free(struct w_types *w)
{
    free(w->send);
    free(w->recv);
}

void mpi_alltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Fint sdispls[], MPI_Fint sendtypes[], void *recvbuf,
                    MPI_Fint recvcounts[], MPI_Fint rdispls[], MPI_Fint recvtypes[], MPI_Fint *comm, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_alltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierror);
        return;
    }
    MPI_Comm c = epmpi_f2c_comm(*comm);
    struct w_types w;
    if ((*ierror = w_types_in(&w, w_peers, c, sendbuf, sendtypes, recvtypes)) != MPI_SUCCESS)
        return;
    *ierror = MPI_Alltoallw(epmpi_f_buffer(sendbuf), sendcounts, sdispls, w.send ? w.send : w.recv,
                            epmpi_f_buffer(recvbuf), recvcounts, rdispls, w.recv, c);
    w_types_free(&w);
}

void mpi_ialltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Fint sdispls[], MPI_Fint sendtypes[], void *recvbuf,
                     MPI_Fint recvcounts[], MPI_Fint rdispls[], MPI_Fint recvtypes[], MPI_Fint *comm,
                     MPI_Fint *request, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_ialltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                         request, ierror);
        return;
    }
    MPI_Comm c = epmpi_f2c_comm(*comm);
    MPI_Request r = MPI_REQUEST_NULL;
    struct w_types w;
    if ((*ierror = w_types_in(&w, w_peers, c, sendbuf, sendtypes, recvtypes)) != MPI_SUCCESS)
        return;
    *ierror = MPI_Ialltoallw(epmpi_f_buffer(sendbuf), sendcounts, sdispls, w.send ? w.send : w.recv,
                             epmpi_f_buffer(recvbuf), recvcounts, rdispls, w.recv, c, &r);
    *request = epmpi_c2f_request(r);
    w_types_free(&w);
}

void mpi_neighbor_alltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Aint sdispls[], MPI_Fint sendtypes[],
                             void *recvbuf, MPI_Fint recvcounts[], MPI_Aint rdispls[], MPI_Fint recvtypes[],
                             MPI_Fint *comm, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_neighbor_alltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                 comm, ierror);
        return;
    }
    MPI_Comm c = epmpi_f2c_comm(*comm);
    struct w_types w;
    if ((*ierror = w_types_in(&w, w_neighbours, c, sendbuf, sendtypes, recvtypes)) != MPI_SUCCESS)
        return;
    *ierror = MPI_Neighbor_alltoallw(epmpi_f_buffer(sendbuf), sendcounts, sdispls, w.send ? w.send : w.recv,
                                     epmpi_f_buffer(recvbuf), recvcounts, rdispls, w.recv, c);
    w_types_free(&w);
}

void mpi_ineighbor_alltoallw_(void *sendbuf, MPI_Fint sendcounts[], MPI_Aint sdispls[], MPI_Fint sendtypes[],
                              void *recvbuf, MPI_Fint recvcounts[], MPI_Aint rdispls[], MPI_Fint recvtypes[],
                              MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_ineighbor_alltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                  comm, request, ierror);
        return;
    }
    MPI_Comm c = epmpi_f2c_comm(*comm);
    MPI_Request r = MPI_REQUEST_NULL;
    struct w_types w;
    if ((*ierror = w_types_in(&w, w_neighbours, c, sendbuf, sendtypes, recvtypes)) != MPI_SUCCESS)
        return;
    *ierror = MPI_Ineighbor_alltoallw(epmpi_f_buffer(sendbuf), sendcounts, sdispls, w.send ? w.send : w.recv,
                                      epmpi_f_buffer(recvbuf), recvcounts, rdispls, w.recv, c, &r);
    *request = epmpi_c2f_request(r);
    w_types_free(&w);
}

/* MPI 4.1 section 9.3: errors tied to no communicator go to MPI_COMM_SELF's handler. Setting it
 * goes through the layer's C function, which also makes it EPMPI's process default (extensions.c):
 * a host's Fortran binding may call PMPI_Comm_set_errhandler (Open MPI), which would bypass it. */
void pmpi_comm_set_errhandler_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierror);

void mpi_comm_set_errhandler_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm) && *comm != PMPI_Comm_c2f(MPI_COMM_SELF))) {
        pmpi_comm_set_errhandler_(comm, errhandler, ierror);
        return;
    }
    *ierror = MPI_Comm_set_errhandler(epmpi_f2c_comm(*comm), PMPI_Errhandler_f2c(*errhandler));
}

#if defined(OPEN_MPI) && OPEN_MPI
/* Open MPI's `use mpi` binds the TYPE(C_PTR) form of baseptr (MPI 4.1 section 12.2.2) to entry
 * points of their own. */
void pmpi_win_allocate_cptr_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,
                             MPI_Fint *win, MPI_Fint *ierror);
void pmpi_win_allocate_shared_cptr_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                                    void *baseptr, MPI_Fint *win, MPI_Fint *ierror);
void pmpi_win_shared_query_cptr_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *disp_unit, void *baseptr,
                                 MPI_Fint *ierror);

void mpi_win_allocate_cptr_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,
                            MPI_Fint *win, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_win_allocate_cptr_(size, disp_unit, info, comm, baseptr, win, ierror);
        return;
    }
    MPI_Win w = MPI_WIN_NULL;
    *ierror = MPI_Win_allocate(*size, *disp_unit, PMPI_Info_f2c(*info), epmpi_f2c_comm(*comm), baseptr, &w);
    *win = epmpi_c2f_win(w);
}

void mpi_win_allocate_shared_cptr_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                                   void *baseptr, MPI_Fint *win, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_win_allocate_shared_cptr_(size, disp_unit, info, comm, baseptr, win, ierror);
        return;
    }
    MPI_Win w = MPI_WIN_NULL;
    *ierror = MPI_Win_allocate_shared(*size, *disp_unit, PMPI_Info_f2c(*info), epmpi_f2c_comm(*comm), baseptr, &w);
    *win = epmpi_c2f_win(w);
}

void mpi_win_shared_query_cptr_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *disp_unit, void *baseptr,
                                MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*win))) {
        pmpi_win_shared_query_cptr_(win, rank, size, disp_unit, baseptr, ierror);
        return;
    }
    *ierror = MPI_Win_shared_query(epmpi_f2c_win(*win), *rank, size, disp_unit, baseptr);
}
#endif

/* Error handlers, error strings and the buffer of buffered sends go through the layer's C
 * functions for host handles too (which forward to the host's): some hosts' Fortran bindings
 * (Open MPI's) call PMPI_ functions, which would bypass what the layer keeps for endpoints (the
 * EPMPI twin of a handler, the last error's message, the buffer attached to both). */
void pmpi_comm_create_errhandler_(void (*comm_errhandler_fn)(void), MPI_Fint *errhandler, MPI_Fint *ierror);

/* A Fortran handler takes the communicator and the code as Fortran integers. */
static void call_fortran_handler(MPI_Comm_errhandler_function *fn, MPI_Comm comm, int code)
{
    MPI_Fint f_comm = epmpi_c2f_comm(comm), f_code = code;
    ((void (*)(MPI_Fint *, MPI_Fint *))(void (*)(void))fn)(&f_comm, &f_code);
}

void mpi_comm_create_errhandler_(void (*comm_errhandler_fn)(void), MPI_Fint *errhandler, MPI_Fint *ierror)
{
    /* The host's entry point, so that the host calls the handler as Fortran on its communicators. */
    pmpi_comm_create_errhandler_(comm_errhandler_fn, errhandler, ierror);
    if (*ierror == MPI_SUCCESS)
        *ierror = epmpi_errhandler_register(PMPI_Errhandler_f2c(*errhandler),
                                            (MPI_Comm_errhandler_function *)comm_errhandler_fn, call_fortran_handler);
}

void mpi_errhandler_free_(MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler h = PMPI_Errhandler_f2c(*errhandler);
    *ierror = MPI_Errhandler_free(&h);
    *errhandler = PMPI_Errhandler_c2f(h);
}

void mpi_error_string_(MPI_Fint *errorcode, char *string, MPI_Fint *resultlen, MPI_Fint *ierror, size_t string_len)
{
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    *ierror = MPI_Error_string(*errorcode, text, &len);
    if (*ierror != MPI_SUCCESS)
        return;
    size_t n = (size_t)len < string_len ? (size_t)len : string_len;
    memcpy(string, text, n);
    memset(string + n, ' ', string_len - n);
    *resultlen = (MPI_Fint)n;
}

void mpi_buffer_attach_(void *buffer, MPI_Fint *size, MPI_Fint *ierror)
{
    *ierror = MPI_Buffer_attach(buffer, *size);
}

/* Fortran's buffer_addr receives the buffer's address, as MPICH's binding writes it (a
 * TYPE(C_PTR) or INTEGER(KIND=MPI_ADDRESS_KIND) there). */
void mpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierror)
{
    void *addr = NULL;
    int n = 0;
    *ierror = MPI_Buffer_detach(&addr, &n);
    if (*ierror == MPI_SUCCESS) {
        memcpy(buffer_addr, &addr, sizeof addr);
        *size = n;
    }
}

/* Names: Fortran strings are blank-padded with their length passed after the arguments
 * (gfortran: a size_t per CHARACTER argument); C's end with a NUL (MPI 4.1 section 19.1.10). */
void pmpi_comm_set_name_(MPI_Fint *comm, char *comm_name, MPI_Fint *ierror, size_t comm_name_len);
void pmpi_comm_get_name_(MPI_Fint *comm, char *comm_name, MPI_Fint *resultlen, MPI_Fint *ierror,
                         size_t comm_name_len);
void pmpi_win_set_name_(MPI_Fint *win, char *win_name, MPI_Fint *ierror, size_t win_name_len);
void pmpi_win_get_name_(MPI_Fint *win, char *win_name, MPI_Fint *resultlen, MPI_Fint *ierror, size_t win_name_len);

/* The Fortran name `f` of `f_len` characters as C's, without its trailing blanks and cut to
 * the longest name an object keeps; `name` holds MPI_MAX_OBJECT_NAME chars. */
static void name_in(char *name, const char *f, size_t f_len)
{
    size_t n = f_len;
    while (n > 0 && f[n - 1] == ' ')
        n--;
    if (n > MPI_MAX_OBJECT_NAME - 1)
        n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(name, f, n);
    name[n] = '\0';
}

/* The C name `name` of `len` characters into the Fortran string `f`, blank-padded. */
static void name_out(char *f, size_t f_len, const char *name, int len, MPI_Fint *resultlen)
{
    size_t n = (size_t)len < f_len ? (size_t)len : f_len;
    memcpy(f, name, n);
    memset(f + n, ' ', f_len - n);
    *resultlen = (MPI_Fint)n;
}

void mpi_comm_set_name_(MPI_Fint *comm, char *comm_name, MPI_Fint *ierror, size_t comm_name_len)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_comm_set_name_(comm, comm_name, ierror, comm_name_len);
        return;
    }
    char name[MPI_MAX_OBJECT_NAME];
    name_in(name, comm_name, comm_name_len);
    *ierror = MPI_Comm_set_name(epmpi_f2c_comm(*comm), name);
}

void mpi_comm_get_name_(MPI_Fint *comm, char *comm_name, MPI_Fint *resultlen, MPI_Fint *ierror,
                        size_t comm_name_len)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_comm_get_name_(comm, comm_name, resultlen, ierror, comm_name_len);
        return;
    }
    char name[MPI_MAX_OBJECT_NAME] = {0};
    int len = 0;
    *ierror = MPI_Comm_get_name(epmpi_f2c_comm(*comm), name, &len);
    if (*ierror == MPI_SUCCESS)
        name_out(comm_name, comm_name_len, name, len, resultlen);
}

void mpi_win_set_name_(MPI_Fint *win, char *win_name, MPI_Fint *ierror, size_t win_name_len)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*win))) {
        pmpi_win_set_name_(win, win_name, ierror, win_name_len);
        return;
    }
    char name[MPI_MAX_OBJECT_NAME];
    name_in(name, win_name, win_name_len);
    *ierror = MPI_Win_set_name(epmpi_f2c_win(*win), name);
}

void mpi_win_get_name_(MPI_Fint *win, char *win_name, MPI_Fint *resultlen, MPI_Fint *ierror, size_t win_name_len)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*win))) {
        pmpi_win_get_name_(win, win_name, resultlen, ierror, win_name_len);
        return;
    }
    char name[MPI_MAX_OBJECT_NAME] = {0};
    int len = 0;
    *ierror = MPI_Win_get_name(epmpi_f2c_win(*win), name, &len);
    if (*ierror == MPI_SUCCESS)
        name_out(win_name, win_name_len, name, len, resultlen);
}

/* Attributes: the predefined ones (MPI_TAG_UB and the others of MPI 4.1 section 9.1.2), which
 * Fortran reads as values where C reads pointers to them. A key the program made answers
 * MPI_ERR_UNSUPPORTED_OPERATION: its Fortran attribute values are not bridged to EPMPI. */
void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Aint *attribute_val, MPI_Fint *flag,
                         MPI_Fint *ierror);

void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Aint *attribute_val, MPI_Fint *flag,
                        MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_comm_get_attr_(comm, comm_keyval, attribute_val, flag, ierror);
        return;
    }
    MPI_Comm c = epmpi_f2c_comm(*comm);
    if (*comm_keyval == MPIX_Comm_flavor_keyval()) {
        int *value = NULL, found = 0;
        *ierror = MPI_Comm_get_attr(c, *comm_keyval, &value, &found);
        *flag = *ierror == MPI_SUCCESS && found;
        if (*flag)
            *attribute_val = *value;
        return;
    }
    int k = 0;
    while (k < PREDEFINED_KEYS && f_keys[k] != *comm_keyval)
        k++;
    if (k == PREDEFINED_KEYS) {
        *ierror = epmpi_unsupported("MPI_Comm_get_attr (a key of the program's, from Fortran)", epmpi_comm_in(c));
        return;
    }
    int *value = NULL, found = 0;
    *ierror = MPI_Comm_get_attr(c, c_keys[k], &value, &found);
    *flag = *ierror == MPI_SUCCESS && found;
    if (*flag)
        *attribute_val = *value;
}

/* The MPI-1 form (deprecated since MPI 2.0), whose Fortran value is a default INTEGER: on
 * endpoints, what mpi_comm_get_attr_ above answers (MPI_TAG_UB and EPMPI's flavor key; the
 * other keys fail there, and so here), as a default integer. */
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val, MPI_Fint *flag, MPI_Fint *ierror);

void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val, MPI_Fint *flag, MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*comm))) {
        pmpi_attr_get_(comm, keyval, attribute_val, flag, ierror);
        return;
    }
    MPI_Aint value = 0;
    mpi_comm_get_attr_(comm, keyval, &value, flag, ierror);
    if (*ierror == MPI_SUCCESS && *flag)
        *attribute_val = (MPI_Fint)value;
}

/* Window attributes (MPI 4.1 section 12.2.6): the base address as an integer; the size (an
 * MPI_Aint in C) and the integers (displacement unit, flavor, model) as values. Any other key's
 * value was set in C (the layer has no Fortran MPI_Win_set_attr on EPMPI windows), which Fortran
 * reads as the address-sized integer of C's pointer (MPI 4.1 section 19.3.7). */
void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *win_keyval, MPI_Aint *attribute_val, MPI_Fint *flag,
                        MPI_Fint *ierror);

void mpi_win_get_attr_(MPI_Fint *win, MPI_Fint *win_keyval, MPI_Aint *attribute_val, MPI_Fint *flag,
                       MPI_Fint *ierror)
{
    if (EPMPI_LIKELY(!EPMPI_F_IS_EP(*win))) {
        pmpi_win_get_attr_(win, win_keyval, attribute_val, flag, ierror);
        return;
    }
    int k = 0;
    while (k < WIN_KEYS && f_win_keys[k] != *win_keyval)
        k++;
    void *value = NULL;
    int found = 0;
    *ierror = MPI_Win_get_attr(epmpi_f2c_win(*win), k < WIN_KEYS ? c_win_keys[k] : *win_keyval, &value, &found);
    *flag = *ierror == MPI_SUCCESS && found;
    if (!*flag)
        return;
    if (k == 0 || k == WIN_KEYS)
        *attribute_val = (MPI_Aint)value;
    else if (c_win_keys[k] == MPI_WIN_SIZE)
        *attribute_val = *(MPI_Aint *)value;
    else
        *attribute_val = *(int *)value;
}
