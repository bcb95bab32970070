/*
 * requests.c: the completion calls on arrays of requests (MPI 4.1 section 3.7.5) for arrays
 * that may mix the host's requests and EPMPI's.
 *
 * An array of host requests only goes to the host's function after one pass that ORs the
 * range tests; an array of EPMPI requests only goes to EPMPI's function (whose waits block
 * efficiently in the engine). A mixed array is completed by polling both: each pass tests
 * every active request once (MPI_Test drives the host's progress, EP_Test the engine's), so
 * neither side starves the other. Testall, which must complete all or none, first asks each
 * request without completing it (MPI_Request_get_status, EP_Request_get_status). Waitany,
 * Testany, Waitsome and Testsome, for which an inactive persistent request counts as null,
 * pass each side its own part of the array, so that each library decides which of its
 * requests are active.
 */
#include "runtime.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Arrays up to this length are converted on the stack. */
#define SMALL 16

static int any_ep(int count, const MPI_Request reqs[])
{
    if (reqs == NULL)
        return 0; /* the host's error (MPI_ERR_ARG), as for a host array */
    int ep = 0;
    for (int i = 0; i < count; i++)
        ep |= EPMPI_IS_EP(reqs[i]);
    return ep;
}

static int all_ep(int count, const MPI_Request reqs[])
{
    for (int i = 0; i < count; i++)
        if (!EPMPI_IS_EP(reqs[i]) && reqs[i] != MPI_REQUEST_NULL)
            return 0;
    return 1;
}

/* Scratch arrays of EPMPI requests and statuses for one call. */
struct scratch {
    EP_Request small_req[SMALL];
    EP_Status small_st[SMALL];
    int small_idx[SMALL];
    EP_Request *req;
    EP_Status *st;
    int *idx;
};

static int scratch_init(struct scratch *s, int count)
{
    if (count <= SMALL) {
        s->req = s->small_req;
        s->st = s->small_st;
        s->idx = s->small_idx;
        return 1;
    }
    s->req = malloc(sizeof(EP_Request) * (size_t)count);
    s->st = malloc(sizeof(EP_Status) * (size_t)count);
    s->idx = malloc(sizeof(int) * (size_t)count);
    return s->req && s->st && s->idx;
}

static void scratch_free(struct scratch *s)
{
    if (s->req != s->small_req) {
        free(s->req);
        free(s->st);
        free(s->idx);
    }
}

static void requests_in(int count, const MPI_Request m[], EP_Request e[])
{
    for (int i = 0; i < count; i++)
        e[i] = epmpi_request_in(m[i]);
}

/* scratch_init and the requests of `m` in it; 0 (nothing left allocated) without memory. */
static int scratch_in(struct scratch *s, int count, const MPI_Request m[])
{
    if (!scratch_init(s, count)) {
        scratch_free(s);
        return 0;
    }
    requests_in(count, m, s->req);
    return 1;
}

static void requests_out(int count, const EP_Request e[], MPI_Request m[])
{
    for (int i = 0; i < count; i++)
        m[i] = epmpi_request_out(e[i]);
}

/* Error class of a call whose statuses carry the errors: EPMPI's EP_ERR_IN_STATUS becomes the
 * host's MPI_ERR_IN_STATUS, and each status's code is converted. */
static void statuses_out(int n, const EP_Status e[], MPI_Status m[])
{
    if (m == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < n; i++)
        epmpi_status_out(&e[i], &m[i]);
}

/* Tests one request of a mixed array, completing it when done. */
static int test_one(MPI_Request *r, int *flag, MPI_Status *status)
{
    if (!EPMPI_IS_EP(*r))
        return PMPI_Test(r, flag, status);
    EP_Request e = epmpi_request_in(*r);
    EP_Status st = {0};
    int rc = EP_Test(&e, flag, status == MPI_STATUS_IGNORE ? EP_STATUS_IGNORE : &st);
    *r = epmpi_request_out(e);
    if (*flag && status != MPI_STATUS_IGNORE)
        epmpi_status_out(&st, status);
    return epmpi_rc(rc);
}

/* The empty status (MPI 4.1 section 3.7.3) a null request completes with. */
static void empty_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
}

static MPI_Status *status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* A request Waitall and Testall over a mixed array complete: not null. (Inactive persistent
 * requests complete at once with an empty status in either library's test, as these calls
 * want, MPI 4.1 section 3.7.5.) */
static int active(MPI_Request r)
{
    return r != MPI_REQUEST_NULL;
}

/* A mixed array split by side for the calls that must skip inactive persistent requests
 * (Waitany, Testany, Waitsome, Testsome: they count as null, MPI 4.1 sections 3.7.5 and 3.9),
 * which no test of one request tells from a completed one: the host's requests (and the
 * nulls) in one array, EPMPI's in another, each side's own call deciding which of its
 * requests are active. `at` gives each entry's position in the program's array. */
struct sides {
    int nh, ne;
    MPI_Request *host;
    EP_Request *ep;
    int *host_at, *ep_at, *idx;
    MPI_Status *host_st;
    EP_Status *ep_st;
};

static void sides_free(struct sides *s)
{
    free(s->host);
    free(s->ep);
    free(s->host_at);
    free(s->ep_at);
    free(s->idx);
    free(s->host_st);
    free(s->ep_st);
}

static int sides_in(struct sides *s, int count, const MPI_Request reqs[])
{
    size_t n = (size_t)count;
    *s = (struct sides){0, 0, malloc(sizeof(MPI_Request) * n), malloc(sizeof(EP_Request) * n),
                        malloc(sizeof(int) * n), malloc(sizeof(int) * n), malloc(sizeof(int) * n),
                        malloc(sizeof(MPI_Status) * n), calloc(n, sizeof(EP_Status))};
    if (!s->host || !s->ep || !s->host_at || !s->ep_at || !s->idx || !s->host_st || !s->ep_st) {
        sides_free(s);
        return 0;
    }
    for (int i = 0; i < count; i++) {
        if (EPMPI_IS_EP(reqs[i])) {
            s->ep_at[s->ne] = i;
            s->ep[s->ne++] = epmpi_request_in(reqs[i]);
        } else {
            s->host_at[s->nh] = i;
            s->host[s->nh++] = reqs[i];
        }
    }
    return 1;
}

static void sides_out(const struct sides *s, MPI_Request reqs[])
{
    for (int k = 0; k < s->nh; k++)
        reqs[s->host_at[k]] = s->host[k];
    for (int k = 0; k < s->ne; k++)
        reqs[s->ep_at[k]] = epmpi_request_out(s->ep[k]);
}

static int is_in_status(int code)
{
    int c = code;
    PMPI_Error_class(code, &c);
    return c == MPI_ERR_IN_STATUS;
}

/* One Testany pass over both sides: *flag 1 with *index the program's position of the request
 * that completed, or with *index MPI_UNDEFINED and an empty status when neither side has an
 * active request; *flag 0 when some are active and none completed. */
static int any_pass(struct sides *s, int *index, int *flag, MPI_Status *status)
{
    int hi = MPI_UNDEFINED, hflag = 1, ei = EP_UNDEFINED, eflag = 1;
    int rc = PMPI_Testany(s->nh, s->host, &hi, &hflag, status);
    if (rc != MPI_SUCCESS || (hflag && hi != MPI_UNDEFINED)) {
        *index = hi == MPI_UNDEFINED ? MPI_UNDEFINED : s->host_at[hi];
        *flag = hflag;
        return rc;
    }
    EP_Status st = {0};
    rc = epmpi_rc(EP_Testany(s->ne, s->ep, &ei, &eflag, status == MPI_STATUS_IGNORE ? EP_STATUS_IGNORE : &st));
    *index = ei == EP_UNDEFINED ? MPI_UNDEFINED : s->ep_at[ei];
    *flag = rc == MPI_SUCCESS && ei == EP_UNDEFINED ? hflag && eflag : eflag;
    if (*flag && status != MPI_STATUS_IGNORE)
        epmpi_status_out(&st, status); /* EPMPI's empty status when neither side has an active one */
    return rc;
}

/* One Testsome pass over both sides: *outcount completed requests (positions and statuses in
 * the program's arrays), or MPI_UNDEFINED when neither side has an active request. EPMPI's
 * side goes first: its refusals of bad handles come before it completes anything. */
static int some_pass(struct sides *s, int *outcount, int indices[], MPI_Status statuses[])
{
    int ignore = statuses == MPI_STATUSES_IGNORE, eout = EP_UNDEFINED, hout = MPI_UNDEFINED, n = 0;
    int erc = epmpi_rc(EP_Testsome(s->ne, s->ep, &eout, s->idx, ignore ? EP_STATUSES_IGNORE : s->ep_st));
    if (erc != MPI_SUCCESS && !is_in_status(erc))
        return erc;
    for (int k = 0; eout != EP_UNDEFINED && k < eout; k++, n++) {
        indices[n] = s->ep_at[s->idx[k]];
        if (!ignore)
            epmpi_status_out(&s->ep_st[k], &statuses[n]);
    }
    int hrc = PMPI_Testsome(s->nh, s->host, &hout, s->idx, ignore ? MPI_STATUSES_IGNORE : s->host_st);
    if (hrc != MPI_SUCCESS && !is_in_status(hrc)) {
        *outcount = n; /* what EPMPI's side completed */
        return hrc;
    }
    for (int k = 0; hout != MPI_UNDEFINED && k < hout; k++, n++) {
        indices[n] = s->host_at[s->idx[k]];
        if (!ignore) {
            statuses[n] = s->host_st[k];
            if (hrc == MPI_SUCCESS)
                statuses[n].MPI_ERROR = MPI_SUCCESS; /* read when EPMPI's side failed */
        }
    }
    *outcount = eout == EP_UNDEFINED && hout == MPI_UNDEFINED ? MPI_UNDEFINED : n;
    return erc != MPI_SUCCESS || hrc != MPI_SUCCESS ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    if (EPMPI_LIKELY(count <= 0 || !any_ep(count, array_of_requests)))
        return PMPI_Waitall(count, array_of_requests, array_of_statuses);
    if (all_ep(count, array_of_requests)) {
        struct scratch s;
        if (!scratch_in(&s, count, array_of_requests))
            return MPI_ERR_NO_MEM;
        memset(s.st, 0, sizeof(EP_Status) * (size_t)count);
        int rc = EP_Waitall(count, s.req, array_of_statuses == MPI_STATUSES_IGNORE ? EP_STATUSES_IGNORE : s.st);
        requests_out(count, s.req, array_of_requests);
        statuses_out(count, s.st, array_of_statuses);
        scratch_free(&s);
        return epmpi_rc(rc);
    }
    /* `pending[i]`: request i is neither completed nor failed. A failed request keeps its
     * handle (an invalid one stays as the program gave it), so the handle alone cannot say
     * it was already counted. */
    char *pending = malloc((size_t)count);
    if (!pending)
        return MPI_ERR_NO_MEM;
    int left = 0, failed = 0;
    for (int i = 0; i < count; i++) {
        pending[i] = (char)active(array_of_requests[i]);
        left += pending[i];
        if (!pending[i])
            empty_status(status_at(array_of_statuses, i));
    }
    while (left > 0) {
        int progressed = 0;
        for (int i = 0; i < count; i++) {
            if (!pending[i])
                continue;
            int flag = 0;
            MPI_Status *st = status_at(array_of_statuses, i);
            int rc = test_one(&array_of_requests[i], &flag, st);
            if (rc != MPI_SUCCESS) {
                failed = 1;
                flag = 1;
            }
            if (flag && st != MPI_STATUS_IGNORE)
                st->MPI_ERROR = rc; /* read when another request failed; the host leaves it as it was */
            if (flag) {
                pending[i] = 0;
                left--;
                progressed = 1;
            }
        }
        if (!progressed)
            sched_yield();
    }
    free(pending);
    return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    if (EPMPI_LIKELY(count <= 0 || !any_ep(count, array_of_requests)))
        return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    if (all_ep(count, array_of_requests)) {
        struct scratch s;
        if (!scratch_in(&s, count, array_of_requests))
            return MPI_ERR_NO_MEM;
        memset(s.st, 0, sizeof(EP_Status) * (size_t)count);
        int rc = EP_Testall(count, s.req, flag, array_of_statuses == MPI_STATUSES_IGNORE ? EP_STATUSES_IGNORE : s.st);
        requests_out(count, s.req, array_of_requests);
        if (flag && *flag)
            statuses_out(count, s.st, array_of_statuses);
        scratch_free(&s);
        return epmpi_rc(rc);
    }
    /* All or none: ask every request first, complete them only when all are done. */
    for (int i = 0; i < count; i++) {
        MPI_Request r = array_of_requests[i];
        int done = 1, rc;
        if (!active(r))
            continue;
        if (EPMPI_IS_EP(r)) {
            rc = epmpi_rc(EP_Request_get_status(epmpi_request_in(r), &done, EP_STATUS_IGNORE));
        } else {
            rc = PMPI_Request_get_status(r, &done, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS || !done) {
            *flag = 0;
            return rc;
        }
    }
    *flag = 1;
    return MPI_Waitall(count, array_of_requests, array_of_statuses);
}

/* Waitany or Testany (`wait`) on an array of EPMPI requests only: EPMPI's own call, which
 * knows which persistent requests are inactive (a mixed array counts them as active). */
static int any_of_ep(int wait, int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    struct scratch s;
    if (!scratch_in(&s, count, reqs))
        return MPI_ERR_NO_MEM;
    EP_Status st = {0};
    EP_Status *stp = status == MPI_STATUS_IGNORE ? EP_STATUS_IGNORE : &st;
    int done = 1;
    int rc = wait ? EP_Waitany(count, s.req, index, stp) : EP_Testany(count, s.req, index, flag ? &done : NULL, stp);
    if (flag)
        *flag = done;
    requests_out(count, s.req, reqs);
    if (index && *index == EP_UNDEFINED)
        *index = MPI_UNDEFINED;
    else if (done && status != MPI_STATUS_IGNORE)
        epmpi_status_out(&st, status);
    scratch_free(&s);
    return epmpi_rc(rc);
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    if (EPMPI_LIKELY(count <= 0 || !any_ep(count, array_of_requests)))
        return PMPI_Waitany(count, array_of_requests, index, status);
    if (all_ep(count, array_of_requests))
        return any_of_ep(1, count, array_of_requests, index, NULL, status);
    struct sides s;
    if (!sides_in(&s, count, array_of_requests))
        return MPI_ERR_NO_MEM;
    int flag = 0, rc;
    while ((rc = any_pass(&s, index, &flag, status)) == MPI_SUCCESS && !flag)
        sched_yield();
    sides_out(&s, array_of_requests);
    sides_free(&s);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    if (EPMPI_LIKELY(count <= 0 || !any_ep(count, array_of_requests)))
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    if (all_ep(count, array_of_requests))
        return any_of_ep(0, count, array_of_requests, index, flag, status);
    struct sides s;
    if (!sides_in(&s, count, array_of_requests))
        return MPI_ERR_NO_MEM;
    int rc = any_pass(&s, index, flag, status);
    sides_out(&s, array_of_requests);
    sides_free(&s);
    return rc;
}

/* Waitsome or Testsome (`wait`) on an array of EPMPI requests only: EPMPI's own call, which
 * knows which persistent requests are inactive (a mixed array counts them as active). */
static int some_ep(int wait, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    struct scratch s;
    if (!scratch_in(&s, incount, reqs))
        return MPI_ERR_NO_MEM;
    memset(s.st, 0, sizeof(EP_Status) * (size_t)incount);
    EP_Status *st = statuses == MPI_STATUSES_IGNORE ? EP_STATUSES_IGNORE : s.st;
    int rc = wait ? EP_Waitsome(incount, s.req, outcount, indices, st) : EP_Testsome(incount, s.req, outcount, indices, st);
    requests_out(incount, s.req, reqs);
    if (outcount && *outcount == EP_UNDEFINED)
        *outcount = MPI_UNDEFINED;
    else if (outcount && *outcount > 0)
        statuses_out(*outcount, s.st, statuses);
    scratch_free(&s);
    return epmpi_rc(rc);
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    if (EPMPI_LIKELY(incount <= 0 || !any_ep(incount, array_of_requests)))
        return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (all_ep(incount, array_of_requests))
        return some_ep(1, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    struct sides s;
    if (!sides_in(&s, incount, array_of_requests))
        return MPI_ERR_NO_MEM;
    int rc;
    while ((rc = some_pass(&s, outcount, array_of_indices, array_of_statuses)) == MPI_SUCCESS && *outcount == 0)
        sched_yield();
    sides_out(&s, array_of_requests);
    sides_free(&s);
    return rc;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    if (EPMPI_LIKELY(incount <= 0 || !any_ep(incount, array_of_requests)))
        return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (all_ep(incount, array_of_requests))
        return some_ep(0, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    struct sides s;
    if (!sides_in(&s, incount, array_of_requests))
        return MPI_ERR_NO_MEM;
    int rc = some_pass(&s, outcount, array_of_indices, array_of_statuses);
    sides_out(&s, array_of_requests);
    sides_free(&s);
    return rc;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (EPMPI_LIKELY(count <= 0 || !any_ep(count, array_of_requests)))
        return PMPI_Startall(count, array_of_requests);
    if (all_ep(count, array_of_requests)) {
        /* EPMPI's own call, which checks every request before it starts any. */
        struct scratch s;
        if (!scratch_in(&s, count, array_of_requests))
            return MPI_ERR_NO_MEM;
        int rc = EP_Startall(count, s.req);
        requests_out(count, s.req, array_of_requests);
        scratch_free(&s);
        return epmpi_rc(rc);
    }
    for (int i = 0; i < count; i++) {
        int rc;
        if (EPMPI_IS_EP(array_of_requests[i])) {
            EP_Request e = epmpi_request_in(array_of_requests[i]);
            rc = epmpi_rc(EP_Start(&e));
            array_of_requests[i] = epmpi_request_out(e);
        } else {
            rc = PMPI_Start(&array_of_requests[i]);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
