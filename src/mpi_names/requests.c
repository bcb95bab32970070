/*
 * requests.c: the completion calls on arrays of requests (MPI 4.1 section 3.7.5) for arrays
 * that may mix the host's requests and EPMPI's.
 *
 * An array of host requests only goes to the host's function after one pass that ORs the
 * range tests; an array of EPMPI requests only goes to EPMPI's function (whose waits block
 * efficiently in the engine). A mixed array is completed by polling both: each pass tests
 * every active request once (MPI_Test drives the host's progress, EP_Test the engine's), so
 * neither side starves the other. Testall, which must complete all or none, first asks each
 * request without completing it (MPI_Request_get_status, EP_Request_get_status).
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

static MPI_Status *status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* A request that counts as active for a mixed array: not null. (Inactive persistent requests
 * complete at once with an empty status in either library's test.) */
static int active(MPI_Request r)
{
    return r != MPI_REQUEST_NULL;
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
    int left = 0, failed = 0;
    for (int i = 0; i < count; i++)
        left += active(array_of_requests[i]);
    while (left > 0) {
        int progressed = 0;
        for (int i = 0; i < count; i++) {
            if (!active(array_of_requests[i]))
                continue;
            int flag = 0;
            MPI_Status *st = status_at(array_of_statuses, i);
            int rc = test_one(&array_of_requests[i], &flag, st);
            if (rc != MPI_SUCCESS) {
                failed = 1;
                flag = 1;
                if (st != MPI_STATUS_IGNORE)
                    st->MPI_ERROR = rc;
            }
            if (flag) {
                left--;
                progressed = 1;
            }
        }
        if (!progressed)
            sched_yield();
    }
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
    for (;;) {
        int any_active = 0;
        for (int i = 0; i < count; i++) {
            if (!active(array_of_requests[i]))
                continue;
            any_active = 1;
            int flag = 0;
            int rc = test_one(&array_of_requests[i], &flag, status);
            if (flag || rc != MPI_SUCCESS) {
                *index = i;
                return rc;
            }
        }
        if (!any_active) {
            *index = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        sched_yield();
    }
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    if (EPMPI_LIKELY(count <= 0 || !any_ep(count, array_of_requests)))
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    if (all_ep(count, array_of_requests))
        return any_of_ep(0, count, array_of_requests, index, flag, status);
    int any_active = 0;
    for (int i = 0; i < count; i++) {
        if (!active(array_of_requests[i]))
            continue;
        any_active = 1;
        int rc = test_one(&array_of_requests[i], flag, status);
        if (*flag || rc != MPI_SUCCESS) {
            *index = i;
            return rc;
        }
    }
    *index = MPI_UNDEFINED;
    *flag = !any_active; /* no active request: flag true, index MPI_UNDEFINED */
    return MPI_SUCCESS;
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

/* One pass of Testsome over a mixed array. */
static int some_pass(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[],
                     int *any_active)
{
    int n = 0, failed = 0;
    *any_active = 0;
    for (int i = 0; i < incount; i++) {
        if (!active(reqs[i]))
            continue;
        *any_active = 1;
        int flag = 0;
        MPI_Status *st = status_at(statuses, n);
        int rc = test_one(&reqs[i], &flag, st);
        if (rc != MPI_SUCCESS) {
            failed = 1;
            flag = 1;
            if (st != MPI_STATUS_IGNORE)
                st->MPI_ERROR = rc;
        }
        if (flag)
            indices[n++] = i;
    }
    *outcount = *any_active ? n : MPI_UNDEFINED;
    return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    if (EPMPI_LIKELY(incount <= 0 || !any_ep(incount, array_of_requests)))
        return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (all_ep(incount, array_of_requests))
        return some_ep(1, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    for (;;) {
        int any_active = 0;
        int rc = some_pass(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, &any_active);
        if (!any_active || *outcount > 0)
            return rc;
        sched_yield();
    }
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    if (EPMPI_LIKELY(incount <= 0 || !any_ep(incount, array_of_requests)))
        return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (all_ep(incount, array_of_requests))
        return some_ep(0, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    int any_active = 0;
    return some_pass(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, &any_active);
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
