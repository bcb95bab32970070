/*
 * What MPI caches on a communicator, per endpoint (MPI 4.1 sections 7.7, 7.8, 9.3):
 * - attributes: copy callbacks run once per endpoint on EP_Comm_dup and EP_Comm_idup with
 *   the old value, and their flag decides; delete callbacks run on EP_Comm_free,
 *   EP_Comm_delete_attr and when EP_Comm_set_attr replaces a value, with the right value,
 *   the right communicator and the keyval's extra_state; counted exactly;
 *   EP_COMM_NULL_COPY_FN, EP_COMM_DUP_FN, EP_COMM_NULL_DELETE_FN; a callback that calls
 *   EPMPI; a failing delete callback fails its call and keeps the attribute; a failing copy
 *   callback on one endpoint fails the dup on every endpoint; a freed keyval's attributes
 *   still get their delete callback; predefined keys; a keyval made once by the process and
 *   used by every endpoint; the MPI-1 names (EP_Keyval_create, EP_Attr_put/get/delete,
 *   EP_NULL_COPY_FN, EP_DUP_FN, EP_NULL_DELETE_FN), whose keyvals and attributes are the
 *   MPI 2.0 calls' own;
 * - names: empty by default, per endpoint, cut at EP_MAX_OBJECT_NAME - 1, not copied by dup;
 * - user error handlers: called with the communicator and the error code for the library's
 *   own errors and by EP_Comm_call_errhandler, inherited by dup, kept after
 *   EP_Errhandler_free, one reference per EP_Comm_get_errhandler;
 * - bad input: invalid keyvals, predefined keys set or deleted, invalid handlers: their
 *   class, and the communicator keeps working.
 */
#include "ep_test.h"
#include <stdint.h>

/* Counters of one endpoint's callbacks (its keyvals' extra_state). */
typedef struct {
    EP_Comm expect_comm;  /* the communicator the next callback is about (0: any) */
    int copies, deletes;
    intptr_t deleted_sum; /* sum of the deleted values */
    int fail_copy, fail_delete;
    int saw_wrong_comm;
} Counters;

static int copy_plus_one(EP_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    Counters *k = extra;
    (void)keyval;
    if (k->expect_comm && oldcomm != k->expect_comm)
        k->saw_wrong_comm++;
    /* A callback may call EPMPI: the library holds no lock of its own now. */
    int r = -1;
    if (EP_Comm_rank(oldcomm, &r) != EP_SUCCESS)
        k->saw_wrong_comm++;
    k->copies++;
    if (k->fail_copy)
        return EP_ERR_OTHER;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return EP_SUCCESS;
}

static int delete_count(EP_Comm comm, int keyval, void *value, void *extra)
{
    Counters *k = extra;
    (void)keyval;
    if (k->expect_comm && comm != k->expect_comm)
        k->saw_wrong_comm++;
    if (k->fail_delete)
        return EP_ERR_OTHER;
    k->deletes++;
    k->deleted_sum += (intptr_t)value;
    return EP_SUCCESS;
}

/* What the error handler saw, per thread (each endpoint runs on its own thread). */
static _Thread_local EP_Comm eh_comm;
static _Thread_local int eh_code, eh_calls;

static void record_error(EP_Comm *comm, int *code, ...)
{
    eh_comm = *comm;
    eh_code = *code;
    eh_calls++;
}

static void t_attributes(EP_Comm c, int me, int n)
{
    Counters k = {0};
    int kv = EP_KEYVAL_INVALID, knull, kdup, flag = -1;
    void *v = NULL;
    CHECK_OK(EP_Comm_create_keyval(copy_plus_one, delete_count, &kv, &k));
    CHECK_OK(EP_Comm_create_keyval(EP_COMM_NULL_COPY_FN, EP_COMM_NULL_DELETE_FN, &knull, NULL));
#ifdef EP_TEST_MPI_NAMES
    /* MPI wants a function (Open MPI refuses NULL); EPMPI also takes NULL for "no callback". */
    CHECK_OK(EP_Comm_create_keyval(EP_COMM_DUP_FN, EP_COMM_NULL_DELETE_FN, &kdup, NULL));
#else
    CHECK_OK(EP_Comm_create_keyval(EP_COMM_DUP_FN, NULL, &kdup, NULL));
#endif
    CHECK(kv != EP_KEYVAL_INVALID && kv != knull && kv != kdup, "distinct keyvals");

    /* Not set yet: flag 0. */
    CHECK_OK(EP_Comm_get_attr(c, kv, &v, &flag));
    CHECK(flag == 0, "unset attribute has flag %d", flag);
    CHECK_OK(EP_Comm_set_attr(c, kv, (void *)(intptr_t)(1000 + me)));
    CHECK_OK(EP_Comm_set_attr(c, knull, (void *)(intptr_t)(2000 + me)));
    CHECK_OK(EP_Comm_set_attr(c, kdup, (void *)(intptr_t)(3000 + me)));
    CHECK_OK(EP_Comm_get_attr(c, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 1000 + me, "get_attr: flag %d value %ld", flag, (long)(intptr_t)v);

    /* dup: copy runs once on this endpoint with the old value; the null copy drops knull;
     * EP_COMM_DUP_FN keeps the value. */
    EP_Comm d, e;
    k.expect_comm = c;
    CHECK_OK(EP_Comm_dup(c, &d));
    CHECK(k.copies == 1 && k.deletes == 0, "dup: %d copies, %d deletes", k.copies, k.deletes);
    CHECK_OK(EP_Comm_get_attr(d, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 1001 + me, "copied value %ld", (long)(intptr_t)v);
    CHECK_OK(EP_Comm_get_attr(d, knull, &v, &flag));
    CHECK(flag == 0, "EP_COMM_NULL_COPY_FN copied the attribute");
    CHECK_OK(EP_Comm_get_attr(d, kdup, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 3000 + me, "EP_COMM_DUP_FN value %ld", (long)(intptr_t)v);

    /* idup of the dup: copies from d's value. */
    EP_Request req;
    k.expect_comm = d;
    CHECK_OK(EP_Comm_idup(d, &e, &req));
    CHECK_OK(EP_Wait(&req, EP_STATUS_IGNORE));
    CHECK(req == EP_REQUEST_NULL, "idup request completed");
    CHECK(k.copies == 2, "idup: %d copies", k.copies);
    CHECK_OK(EP_Comm_get_attr(e, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 1002 + me, "idup copied value %ld", (long)(intptr_t)v);
    int cmp = -1;
    CHECK_OK(EP_Comm_compare(c, e, &cmp));
    CHECK(cmp == EP_CONGRUENT, "idup compares %d", cmp);
    /* With hints, which EPMPI accepts and ignores: attributes copied the same way. */
    EP_Comm di, ei;
    EP_Request ri;
    MPI_Info hints, used;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
    k.expect_comm = c;
    CHECK_OK(EP_Comm_dup_with_info(c, hints, &di));
    CHECK_OK(EP_Comm_idup_with_info(c, MPI_INFO_NULL, &ei, &ri));
    CHECK_OK(EP_Wait(&ri, EP_STATUS_IGNORE));
    CHECK(k.copies == 4, "dup and idup with info: %d copies", k.copies);
    CHECK_OK(EP_Comm_get_attr(di, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 1001 + me, "dup_with_info copied value %ld", (long)(intptr_t)v);
    CHECK_OK(EP_Comm_set_info(di, hints));
    CHECK_OK(EP_Comm_get_info(di, &used));
    int nkeys = -1;
    MPI_Info_get_nkeys(used, &nkeys);
    CHECK(nkeys == 0, "get_info reports %d hints in use", nkeys);
    MPI_Info_free(&used);
    MPI_Info_free(&hints);
    CHECK_OK(EP_Comm_compare(c, ei, &cmp));
    CHECK(cmp == EP_CONGRUENT, "idup_with_info compares %d", cmp);
    k.expect_comm = 0;
    CHECK_OK(EP_Comm_free(&di));
    CHECK_OK(EP_Comm_free(&ei));
    CHECK(k.deletes == 2 && k.deleted_sum == 2002 + 2 * me, "frees of the info dups: %d deletes", k.deletes);
    k.deletes = 0;
    k.deleted_sum = 0;
    k.copies = 2;
    /* The idup'ed communicator works. */
    long x = me, sum = -1;
    CHECK_OK(EP_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, e));
    CHECK(sum == (long)n * (n - 1) / 2, "allreduce on idup: %ld", sum);

    /* Replacing a value deletes the old one; delete_attr deletes; freeing deletes. */
    k.expect_comm = c;
    CHECK_OK(EP_Comm_set_attr(c, kv, (void *)(intptr_t)(5000 + me)));
    CHECK(k.deletes == 1 && k.deleted_sum == 1000 + me, "replace: %d deletes, sum %ld", k.deletes, (long)k.deleted_sum);
    CHECK_OK(EP_Comm_delete_attr(c, kv));
    CHECK(k.deletes == 2 && k.deleted_sum == 6000 + 2 * me, "delete_attr: %d deletes", k.deletes);
    CHECK_OK(EP_Comm_get_attr(c, kv, &v, &flag));
    CHECK(flag == 0, "deleted attribute still there");
    CHECK_OK(EP_Comm_delete_attr(c, kv)); /* not set: nothing happens */
    CHECK(k.deletes == 2, "delete of an unset attribute ran the callback");
    k.expect_comm = e;
    CHECK_OK(EP_Comm_free(&e));
    CHECK(k.deletes == 3 && k.deleted_sum == 7002 + 3 * me, "free of the idup: %d deletes", k.deletes);

    /* A failing delete callback fails its call and keeps the attribute. */
    k.expect_comm = d;
    k.fail_delete = 1;
    CHECK(ep_class(EP_Comm_delete_attr(d, kv)) == EP_ERR_OTHER, "failing delete callback");
    CHECK_OK(EP_Comm_get_attr(d, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 1001 + me, "attribute kept after a failing delete");
    EP_Comm d_saved = d;
    CHECK(ep_class(EP_Comm_free(&d)) == EP_ERR_OTHER, "free with a failing delete callback");
    CHECK(d == d_saved, "failed free keeps the handle");
    k.fail_delete = 0;
    CHECK_OK(EP_Comm_get_attr(d, kv, &v, &flag));
    CHECK(flag == 1, "endpoint still usable after a failed free");

    /* A freed keyval: its attributes still get their delete callback on free. */
    int kv_saved = kv;
    CHECK_OK(EP_Comm_free_keyval(&kv));
    CHECK(kv == EP_KEYVAL_INVALID, "free_keyval sets EP_KEYVAL_INVALID");
    CHECK(ep_class(EP_Comm_free_keyval(&kv_saved)) == EP_ERR_KEYVAL, "second free_keyval");
    CHECK(ep_class(EP_Comm_set_attr(c, kv_saved, NULL)) == EP_ERR_KEYVAL, "set_attr with a freed keyval");
    /* MPI lets the next keyval creation reuse a freed keyval's value (under the standard names
     * the host issues the values, and both hosts reuse them), so the stale value names no
     * keyval only until some endpoint creates one: none does before every endpoint is here. */
    CHECK_OK(EP_Barrier(c));
    CHECK_OK(EP_Comm_free(&d));
    CHECK(k.deletes == 4 && k.deleted_sum == 8003 + 4 * me, "free after free_keyval: %d deletes, sum %ld", k.deletes,
          (long)k.deleted_sum);
    CHECK(k.copies == 2 && !k.saw_wrong_comm, "callbacks: %d copies, %d on a wrong communicator", k.copies,
          k.saw_wrong_comm);

    /* A failing copy callback on rank 0 fails the dup on every endpoint. */
    Counters kf = {0};
    int kfail;
    kf.fail_copy = me == 0;
    CHECK_OK(EP_Comm_create_keyval(copy_plus_one, delete_count, &kfail, &kf));
    CHECK_OK(EP_Comm_set_attr(c, kfail, (void *)(intptr_t)7));
    EP_Comm f = 99;
    int rc = EP_Comm_dup(c, &f);
    CHECK(ep_class(rc) == EP_ERR_OTHER && f == 99, "dup with a failing copy callback: class %d", ep_class(rc));
    CHECK_OK(EP_Comm_delete_attr(c, kfail));
    CHECK(kf.deletes == 1 && kf.deleted_sum == 7, "delete after the failed dup");
    CHECK_OK(EP_Comm_free_keyval(&kfail));

    /* Predefined keys. */
    int *ub = NULL;
    CHECK_OK(EP_Comm_get_attr(c, EP_TAG_UB, &ub, &flag));
    CHECK(flag == 1 && ub && *ub == 2147483647, "EP_TAG_UB");

    /* Bad input. */
    CHECK(ep_class(EP_Comm_set_attr(c, 12345, NULL)) == EP_ERR_KEYVAL, "set_attr with an invalid keyval");
    CHECK(ep_class(EP_Comm_get_attr(c, 12345, &v, &flag)) == EP_ERR_KEYVAL, "get_attr with an invalid keyval");
#if EP_TEST_MADE_UP_HANDLES
    CHECK(ep_class(EP_Comm_delete_attr(c, c)) == EP_ERR_KEYVAL, "a communicator as a keyval");
#endif
    CHECK(ep_class(EP_Comm_set_attr(c, EP_TAG_UB, NULL)) == EP_ERR_KEYVAL, "set_attr of EP_TAG_UB");
    CHECK(ep_class(EP_Comm_delete_attr(c, EP_COMM_FLAVOR)) == EP_ERR_KEYVAL, "delete_attr of EP_COMM_FLAVOR");
    CHECK(ep_class(EP_Comm_create_keyval(NULL, NULL, NULL, NULL)) == EP_ERR_ARG, "NULL keyval output");
    CHECK(ep_class(EP_Comm_set_attr(EP_COMM_NULL, knull, NULL)) == EP_ERR_COMM, "set_attr on EP_COMM_NULL");

    CHECK_OK(EP_Comm_delete_attr(c, knull));
    CHECK_OK(EP_Comm_delete_attr(c, kdup));
    CHECK_OK(EP_Comm_free_keyval(&knull));
    CHECK_OK(EP_Comm_free_keyval(&kdup));
    ep_test_barrier(c);
}

/* A keyval made once by the process, used by every endpoint (keyvals are process-wide). */
static int shared_kv = EP_KEYVAL_INVALID;

static void t_shared_keyval(EP_Comm c, int me)
{
    void *v = NULL;
    int flag = -1;
    EP_Comm d;
    CHECK_OK(EP_Comm_set_attr(c, shared_kv, (void *)(intptr_t)(9000 + me)));
    CHECK_OK(EP_Comm_dup(c, &d));
    CHECK_OK(EP_Comm_get_attr(d, shared_kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 9000 + me, "process-wide keyval on the dup: %ld", (long)(intptr_t)v);
    CHECK_OK(EP_Comm_free(&d));
    CHECK_OK(EP_Comm_delete_attr(c, shared_kv));
}

static void t_names(EP_Comm c, int me)
{
    char name[EP_MAX_OBJECT_NAME], want[64];
    int len = -1;
    CHECK_OK(EP_Comm_get_name(c, name, &len));
    CHECK(len == 0 && name[0] == 0, "default name '%s' (%d)", name, len);
    snprintf(want, sizeof want, "endpoint %d", me);
    CHECK_OK(EP_Comm_set_name(c, want));
    ep_test_barrier(c); /* every endpoint has named its own */
    CHECK_OK(EP_Comm_get_name(c, name, &len));
    CHECK(len == (int)strlen(want) && strcmp(name, want) == 0, "name '%s', expected '%s'", name, want);
    EP_Comm d;
    CHECK_OK(EP_Comm_dup(c, &d));
    CHECK_OK(EP_Comm_get_name(d, name, &len));
    CHECK(len == 0, "dup copied the name '%s'", name);
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_OK(EP_Comm_set_name(d, longname));
    CHECK_OK(EP_Comm_get_name(d, name, &len));
    CHECK(len == EP_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len, "long name cut to %d", len);
    CHECK(ep_class(EP_Comm_set_name(d, NULL)) == EP_ERR_ARG, "NULL name");
    CHECK(ep_class(EP_Comm_get_name(d, NULL, &len)) == EP_ERR_ARG, "NULL name buffer");
    CHECK_OK(EP_Comm_free(&d));
    CHECK_OK(EP_Comm_get_name(c, name, &len));
    CHECK(strcmp(name, want) == 0, "name after the dup's free '%s'", name);
}

static void t_errhandlers(EP_Comm c, int me, int n)
{
    EP_Errhandler eh = EP_ERRHANDLER_NULL, got = EP_ERRHANDLER_NULL;
    CHECK_OK(EP_Comm_create_errhandler(record_error, &eh));
    CHECK(eh != EP_ERRHANDLER_NULL && eh != EP_ERRORS_RETURN && eh != EP_ERRORS_ARE_FATAL, "handler handle %d", eh);
    CHECK_OK(EP_Comm_set_errhandler(c, eh));
    CHECK_OK(EP_Comm_get_errhandler(c, &got));
    CHECK(got == eh, "get_errhandler %d, expected %d", got, eh);
    CHECK_OK(EP_Errhandler_free(&got)); /* the reference get_errhandler gave */
    CHECK(got == EP_ERRHANDLER_NULL, "free sets EP_ERRHANDLER_NULL");

    /* The library's own error: a send to rank n. */
    eh_calls = 0;
    int x = 0, rc = EP_Send(&x, 1, MPI_INT, n, 0, c);
    CHECK(ep_class(rc) == EP_ERR_RANK, "send to rank n: class %d", ep_class(rc));
    CHECK(eh_calls == 1 && eh_comm == c && eh_code == rc, "handler: %d calls, comm %d (expected %d), code %d (expected %d)",
          eh_calls, eh_comm, c, eh_code, rc);
    /* An explicit call. */
    CHECK_OK(EP_Comm_call_errhandler(c, EP_ERR_OTHER));
    CHECK(eh_calls == 2 && eh_comm == c && eh_code == EP_ERR_OTHER, "call_errhandler: %d calls, code %d", eh_calls, eh_code);

    /* An error found when a request completes reaches the handler of the request's endpoint. */
    int two[2] = {1, 2}, one = 0;
    EP_Request sr, rr;
    CHECK_OK(EP_Irecv(&one, 1, MPI_INT, me, 9, c, &rr));
    CHECK_OK(EP_Isend(two, 2, MPI_INT, me, 9, c, &sr));
    rc = EP_Wait(&rr, EP_STATUS_IGNORE);
    CHECK(ep_class(rc) == EP_ERR_TRUNCATE && eh_calls == 3 && eh_comm == c && eh_code == rc,
          "truncation in EP_Wait: class %d, %d calls, comm %d", ep_class(rc), eh_calls, eh_comm);
    CHECK_OK(EP_Wait(&sr, EP_STATUS_IGNORE));
    eh_calls = 2;

    /* A dup inherits the handler, and calls it with its own handle. */
    EP_Comm d;
    CHECK_OK(EP_Comm_dup(c, &d));
    rc = EP_Recv(&x, 1, MPI_INT, -5, 0, d, EP_STATUS_IGNORE);
    CHECK(ep_class(rc) == EP_ERR_RANK && eh_calls == 3 && eh_comm == d && eh_code == rc,
          "error on the dup: %d calls, comm %d (expected %d)", eh_calls, eh_comm, d);

    /* Freed by the user, still in use by c and d. */
    EP_Errhandler freed = eh;
    CHECK_OK(EP_Errhandler_free(&eh));
    CHECK(ep_class(EP_Errhandler_free(&freed)) == EP_ERR_ARG, "second free of the handler");
    rc = EP_Send(&x, 1, MPI_INT, 0, -3, c);
    CHECK(ep_class(rc) == EP_ERR_TAG && eh_calls == 4 && eh_comm == c, "handler after its free: %d calls", eh_calls);
    CHECK(ep_class(EP_Comm_set_errhandler(d, freed)) == EP_ERR_ARG, "set a freed handler");

    /* Bad handlers. */
#if EP_TEST_MADE_UP_HANDLES
    CHECK(ep_class(EP_Comm_set_errhandler(d, 12345)) == EP_ERR_ARG, "set an invalid handler");
#endif
    CHECK(ep_class(EP_Comm_create_errhandler(NULL, &got)) == EP_ERR_ARG, "NULL handler function");
#if EP_TEST_MADE_UP_HANDLES
    CHECK(ep_class(EP_Comm_call_errhandler(12345, EP_ERR_OTHER)) == EP_ERR_COMM, "call_errhandler on a bad handle");
#endif
    CHECK(eh_calls == 4, "bad handles reached the user handler (%d calls)", eh_calls);

    CHECK_OK(EP_Comm_set_errhandler(c, EP_ERRORS_RETURN));
    CHECK_OK(EP_Comm_set_errhandler(d, EP_ERRORS_RETURN));
    CHECK_OK(EP_Comm_call_errhandler(c, EP_ERR_OTHER));
    CHECK(ep_class(EP_Send(&x, 1, MPI_INT, n, 0, c)) == EP_ERR_RANK && eh_calls == 4, "EP_ERRORS_RETURN again");
    CHECK_OK(EP_Comm_get_errhandler(c, &got));
    CHECK(got == EP_ERRORS_RETURN, "predefined handler back");
    CHECK_OK(EP_Errhandler_free(&got));
    CHECK_OK(EP_Comm_free(&d));
    (void)me;
    ep_test_barrier(c);
}

/* The MPI-1 names of the caching calls (deprecated since MPI 2.0, which legacy models call:
 * MPI_Attr_get of MPI_TAG_UB above all) act on the same keyvals and attributes as MPI 2.0's. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void t_mpi1_names(EP_Comm c, int me)
{
    void *v = NULL;
    int flag = -1;
    CHECK_OK(EP_Attr_get(c, EP_TAG_UB, &v, &flag));
    CHECK(flag == 1 && v != NULL && *(int *)v == EP_TAG_UB_VALUE, "EP_Attr_get of EP_TAG_UB: flag %d", flag);
    Counters k = { c, 0, 0, 0, 0, 0, 0 };
    int kv = EP_KEYVAL_INVALID, nullkv = EP_KEYVAL_INVALID;
    CHECK_OK(EP_Keyval_create(EP_DUP_FN, delete_count, &kv, &k));
    CHECK_OK(EP_Keyval_create(EP_NULL_COPY_FN, EP_NULL_DELETE_FN, &nullkv, NULL));
    CHECK(kv != EP_KEYVAL_INVALID && nullkv != EP_KEYVAL_INVALID && kv != nullkv, "keyvals %d %d", kv, nullkv);
    CHECK_OK(EP_Attr_put(c, kv, (void *)(intptr_t)(100 + me)));
    CHECK_OK(EP_Attr_put(c, nullkv, (void *)(intptr_t)(200 + me)));
    /* One attribute, whichever name reads it. */
    CHECK_OK(EP_Attr_get(c, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 100 + me, "EP_Attr_get: flag %d value %ld", flag, (long)(intptr_t)v);
    CHECK_OK(EP_Comm_get_attr(c, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 100 + me, "EP_Comm_get_attr of an EP_Attr_put: %ld", (long)(intptr_t)v);
    /* EP_DUP_FN copies, EP_NULL_COPY_FN does not; freeing the dup deletes its copy. */
    EP_Comm d;
    CHECK_OK(EP_Comm_dup(c, &d));
    CHECK_OK(EP_Attr_get(d, kv, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 100 + me, "EP_DUP_FN's copy: flag %d value %ld", flag, (long)(intptr_t)v);
    CHECK_OK(EP_Attr_get(d, nullkv, &v, &flag));
    CHECK(flag == 0, "EP_NULL_COPY_FN copied: flag %d", flag);
    k.expect_comm = d;
    CHECK_OK(EP_Comm_free(&d));
    CHECK(k.deletes == 1 && k.deleted_sum == 100 + me && k.saw_wrong_comm == 0,
          "the dup's free: %d deletes, sum %ld, %d wrong communicators", k.deletes, (long)k.deleted_sum, k.saw_wrong_comm);
    /* Replacing runs the delete callback on the old value; deleting on the last. */
    k.expect_comm = c;
    CHECK_OK(EP_Comm_set_attr(c, kv, (void *)(intptr_t)(300 + me)));
    CHECK_OK(EP_Attr_delete(c, kv));
    CHECK(k.deletes == 3 && k.deleted_sum == 100 + me + 100 + me + 300 + me && k.saw_wrong_comm == 0,
          "replace and delete: %d deletes, sum %ld", k.deletes, (long)k.deleted_sum);
    CHECK_OK(EP_Attr_get(c, kv, &v, &flag));
    CHECK(flag == 0, "deleted attribute still there: flag %d", flag);
    /* A keyval of EP_Comm_create_keyval takes the MPI-1 names too. */
    int kv2 = EP_KEYVAL_INVALID;
    CHECK_OK(EP_Comm_create_keyval(EP_COMM_NULL_COPY_FN, EP_COMM_NULL_DELETE_FN, &kv2, NULL));
    CHECK_OK(EP_Attr_put(c, kv2, (void *)(intptr_t)(400 + me)));
    CHECK_OK(EP_Attr_get(c, kv2, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 400 + me, "EP_Attr_get of an EP_Comm_create_keyval key: %ld", (long)(intptr_t)v);
    CHECK_OK(EP_Attr_delete(c, kv2));
    CHECK_OK(EP_Comm_free_keyval(&kv2));
    /* Bad input: a predefined key set or deleted, a keyval freed twice. */
    CHECK(ep_class(EP_Attr_put(c, EP_TAG_UB, NULL)) == EP_ERR_KEYVAL, "EP_Attr_put of EP_TAG_UB");
    CHECK(ep_class(EP_Attr_delete(c, EP_TAG_UB)) == EP_ERR_KEYVAL, "EP_Attr_delete of EP_TAG_UB");
    CHECK_OK(EP_Attr_delete(c, nullkv));
    /* A freed value names no keyval only until some endpoint creates one (under the standard
     * names the host issues the values and reuses them, as t_attributes says): every endpoint
     * has made its keyvals before any frees, and none makes another before all have checked. */
    CHECK_OK(EP_Barrier(c));
    int freed = kv;
    CHECK_OK(EP_Keyval_free(&kv));
    CHECK_OK(EP_Keyval_free(&nullkv));
    CHECK(kv == EP_KEYVAL_INVALID && nullkv == EP_KEYVAL_INVALID, "EP_Keyval_free left %d %d", kv, nullkv);
    CHECK(ep_class(EP_Keyval_free(&freed)) == EP_ERR_KEYVAL, "a keyval freed twice");
    CHECK_OK(EP_Barrier(c));
}
#pragma GCC diagnostic pop

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    EP_Comm *comms = malloc((n > 0 ? n : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    CHECK_OK(EP_Comm_create_keyval(EP_COMM_DUP_FN, EP_COMM_NULL_DELETE_FN, &shared_kv, NULL));
    if (n > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n)
        {
            EP_Comm c = comms[omp_get_thread_num()];
            int me, size;
            EP_Comm_rank(c, &me);
            EP_Comm_size(c, &size);
            CHECK_OK(EP_Comm_set_errhandler(c, EP_ERRORS_RETURN));
            t_attributes(c, me, size);
            t_shared_keyval(c, me);
            t_mpi1_names(c, me);
            t_names(c, me);
            t_errhandlers(c, me, size);
            CHECK_OK(EP_Comm_free(&c));
        }
    }
    CHECK_OK(EP_Comm_free_keyval(&shared_kv));
    free(comms);
    return ep_test_finish("comm_cache", wr);
}
