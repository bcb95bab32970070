/*
 * EP_Comm_split and EP_Comm_split_type with MPI's exact semantics (MPI 4.1 section 7.4.2):
 * the ranks of each new communicator are ordered by key across all endpoints of all
 * processes, ties broken by the rank in the old communicator; EP_UNDEFINED gives
 * EP_COMM_NULL. Expected ranks and sizes are computed here from that definition; then every
 * new communicator is used (rank/size, allgather, point-to-point ring with EP_ANY_SOURCE,
 * allreduce and scan with a non-commutative op, gather, bcast, barrier, local info,
 * compare), splits are split again, several are alive and used at once, and everything is
 * freed: EP_Debug_live_handles comes back to its starting value.
 *
 * Why these cases:
 * - colors that mix inside a process (rank % 2, rank % 3, local index % 2): one process
 *   holds endpoints of several new communicators;
 * - keys that reverse the order (-rank, size - rank, reversed process order): a new
 *   communicator whose ranks are not in (process, index) order, so "order by process, then
 *   key" (what XIOS's endpoints library does) is wrong, and so is a reduction that combines
 *   a process's endpoints first;
 * - equal keys (ties by old rank), INT_MIN/INT_MAX keys (a comparator computing a - b
 *   overflows), large colors;
 * - EP_UNDEFINED for some endpoints, for all endpoints of a process, for everyone;
 * - every endpoint alone (color = rank), communicators of size 1;
 * - split of a split, split of a dup, split_type of a split (rank maps composed).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "coll_test.h"

static int one_node;        /* every process on one node (split_type expectations) */
static int n_base;          /* size of the base communicator */
static int *ep_proc, *ep_idx; /* world process and local index of base rank r */

/* A communicator under test, as this endpoint expects it. */
typedef struct {
    EP_Comm h;  /* this endpoint's handle, EP_COMM_NULL when not a member */
    int n, me;  /* expected size and rank */
    int *base;  /* base[r]: rank in the base communicator of rank r */
} Sub;

/* Color and key of the endpoint with rank r in a parent of size n, whose rank in the base
 * communicator is b (its process is ep_proc[b], its local index ep_idx[b]). For
 * split_type, `color` is the split type (MPI_COMM_TYPE_SHARED or EP_UNDEFINED). */
typedef void (*Assign)(int r, int n, int b, int *color, int *key);

/* Fills `out` with what MPI says this endpoint gets from splitting P with fn; returns 0
 * and out->n = 0 when its color is EP_UNDEFINED. */
static int expected_split(const Sub *P, Assign fn, int shared, Sub *out)
{
    int n = P->n, mycolor, mykey;
    fn(P->me, n, P->base[P->me], &mycolor, &mykey);
    out->h = EP_COMM_NULL;
    out->n = 0;
    out->me = -1;
    out->base = NULL;
    if (mycolor == EP_UNDEFINED)
        return 0;
    /* Members: same color (for split_type on one node: everyone with the shared type). */
    int *mem = malloc(n * sizeof(int)), *keys = malloc(n * sizeof(int)), m = 0;
    for (int q = 0; q < n; q++) {
        int c, k;
        fn(q, n, P->base[q], &c, &k);
        if (c == EP_UNDEFINED || (!shared && c != mycolor))
            continue;
        mem[m] = q;
        keys[m++] = k;
    }
    /* Stable insertion sort by key keeps old-rank order among equal keys (ties). */
    for (int i = 1; i < m; i++) {
        int q = mem[i], k = keys[i], j = i;
        while (j > 0 && keys[j - 1] > k) {
            mem[j] = mem[j - 1];
            keys[j] = keys[j - 1];
            j--;
        }
        mem[j] = q;
        keys[j] = k;
    }
    out->n = m;
    out->base = malloc(m * sizeof(int));
    for (int i = 0; i < m; i++) {
        out->base[i] = P->base[mem[i]];
        if (mem[i] == P->me)
            out->me = i;
    }
    free(mem);
    free(keys);
    return 1;
}

static void members_str(const Sub *S, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < S->n && k + 12 < len; i++)
        k += snprintf(buf + k, len - k, "%s%d", i ? " " : "", S->base[i]);
    if (k + 12 >= len)
        snprintf(buf + k, len - k, " ...");
}

/* A seed all members agree on without communicating: a hash of the member list (members
 * of one communicator may have different histories of earlier splits). */
static int sub_seed(const Sub *S)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < S->n; i++)
        h = (h ^ (unsigned)S->base[i]) * 16777619u;
    return (int)(h >> 27);
}

/* Uses a new communicator every way the brief asks and checks each result against S. */
static void check_sub(T *t, const Sub *S, const char *what)
{
    char where[512], list[200], what_[200];
    members_str(S, list, sizeof list);
    snprintf(where, sizeof where, "%s (members by base rank: %s): ", what, list);
    T u = *t;
    u.c = S->h;
    u.me = S->me;
    u.n = S->n;
    u.where = where;
    u.seed = sub_seed(S);
    int n = S->n, me = S->me, rank = -1, size = -1;
    CHECK_OK(EP_Comm_rank(S->h, &rank));
    CHECK_OK(EP_Comm_size(S->h, &size));
    CHECK(rank == me && size == n, "%sendpoint with base rank %d: EP_Comm_rank/size give %d of %d, expected %d of %d", where,
          S->base[me], rank, size, me, n);
    int cap = (size > n ? size : n) + 1; /* buffers fit even a wrong size */

    /* Allgather of base ranks: membership and order in one look. */
    stage(t, "split: EP_Allgather on the new communicator");
    int mine = S->base[me], *got = ints_new(cap, SENTINEL), *want = ints_new(n + 1, SENTINEL);
    memcpy(want, S->base, n * sizeof(int));
    CHECK_OK(EP_Allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, S->h));
    expect_ints(&u, "EP_Allgather of base ranks", got, want, n + 1);

    /* Point-to-point ring with EP_ANY_SOURCE: the new ranks address the right endpoints. */
    stage(t, "split: point-to-point ring on the new communicator");
    int left = (me - 1 + n) % n, right = (me + 1) % n, in = SENTINEL;
    EP_Status st;
    EP_Request rq;
    CHECK_OK(EP_Irecv(&in, 1, MPI_INT, EP_ANY_SOURCE, 3, S->h, &rq));
    CHECK_OK(EP_Send(&mine, 1, MPI_INT, right, 3, S->h));
    CHECK_OK(EP_Wait(&rq, &st));
    CHECK(st.MPI_SOURCE == left && in == S->base[left],
          "%sring: rank %d received base rank %d from source %d, expected base rank %d from %d", where, me, in,
          st.MPI_SOURCE, S->base[left], left);

    /* Allreduce and scan with the non-commutative op: contributions are digits of the base
     * ranks, so the result spells the order the ranks were combined in. */
    stage(t, "split: non-commutative EP_Allreduce/EP_Scan on the new communicator");
    int seed = next_seed(&u);
    enum { K = 3 };
    Cat cs[K], cr[K + 1], cw[K + 1];
    for (int k = 0; k < K; k++) {
        cs[k] = cat_val(seed, S->base[me], k);
        cw[k] = cat_fold(seed, S->base, n, k);
        cr[k] = (Cat){-1, -1};
    }
    cr[K] = cw[K] = (Cat){-1, -1};
    CHECK_OK(EP_Allreduce(cs, cr, K, MPI_2INT, CAT_OP, S->h));
    expect_cats(&u, "EP_Allreduce with the non-commutative op", cr, cw, K + 1);
    for (int k = 0; k < K; k++) {
        cw[k] = cat_fold(seed, S->base, me + 1, k);
        cr[k] = (Cat){-1, -1};
    }
    CHECK_OK(EP_Scan(cs, cr, K, MPI_2INT, CAT_OP, S->h));
    expect_cats(&u, "EP_Scan with the non-commutative op", cr, cw, K + 1);

    /* Gather (base rank, own view of the rank) at the last rank. */
    stage(t, "split: EP_Gather on the new communicator");
    int pair[2] = {S->base[me], rank}, root = n - 1;
    if (me == root) {
        int *g = ints_new(2 * cap, SENTINEL), *gw = ints_new(2 * n + 2, SENTINEL);
        for (int r = 0; r < n; r++) {
            gw[2 * r] = S->base[r];
            gw[2 * r + 1] = r;
        }
        CHECK_OK(EP_Gather(pair, 2, MPI_INT, g, 2, MPI_INT, root, S->h));
        expect_ints(&u, WHAT("EP_Gather of (base rank, rank) at root %d", root), g, gw, 2 * n + 2);
        free(g);
        free(gw);
    } else {
        CHECK_OK(EP_Gather(pair, 2, MPI_INT, NULL, 2, MPI_INT, root, S->h));
    }

    /* Bcast from the middle rank. */
    stage(t, "split: EP_Bcast on the new communicator");
    seed = next_seed(&u);
    int bb[5], bw[5], mid = n / 2;
    for (int k = 0; k < 5; k++) {
        bw[k] = k < 4 ? VAL(seed, S->base[mid], k) : SENTINEL;
        bb[k] = me == mid ? bw[k] : SENTINEL;
    }
    CHECK_OK(EP_Bcast(bb, 4, MPI_INT, mid, S->h));
    expect_ints(&u, WHAT("EP_Bcast from rank %d", mid), bb, bw, 5);

    stage(t, "split: EP_Barrier on the new communicator");
    CHECK_OK(EP_Barrier(S->h));

    /* Local info: how many members share this endpoint's process, and the process's rank
     * among the member processes ordered by their first endpoint. */
    int li = -1, lc = -1, pr = -1, count = 0, prank = -1, nprocs = 0;
    for (int r = 0; r < n; r++) {
        int p = ep_proc[S->base[r]], first = 1;
        for (int q = 0; q < r; q++)
            first &= ep_proc[S->base[q]] != p;
        if (first) {
            if (p == ep_proc[S->base[me]])
                prank = nprocs;
            nprocs++;
        }
        count += p == ep_proc[S->base[me]];
    }
    CHECK_OK(EP_Comm_local_info(S->h, &li, &lc, &pr));
    CHECK(lc == count && li >= 0 && li < lc && pr == prank,
          "%sEP_Comm_local_info of rank %d: local index %d, local count %d, process rank %d; expected count %d, process rank %d",
          where, me, li, lc, pr, count, prank);
    free(got);
    free(want);
}

/* Splits P (collective over P), checks the result, and returns it in out (for further
 * splits); shared: EP_Comm_split_type with the split type from fn's color. */
static void do_split(T *t, const Sub *P, Assign fn, int shared, const char *what, Sub *out)
{
    int color, key;
    stage(t, what);
    fn(P->me, P->n, P->base[P->me], &color, &key);
    int defined = expected_split(P, fn, shared, out);
    EP_Comm h = 12345; /* must be overwritten */
    if (shared)
        CHECK_OK(EP_Comm_split_type(P->h, color, key, MPI_INFO_NULL, &h));
    else
        CHECK_OK(EP_Comm_split(P->h, color, key, &h));
    out->h = h;
    if (!defined) {
        CHECK(h == EP_COMM_NULL, "%s: base rank %d with color EP_UNDEFINED got handle %d, not EP_COMM_NULL", what,
              P->base[P->me], h);
        out->h = EP_COMM_NULL;
        /* Freeing the null handle is an error, not a crash. */
        EP_Comm nul = EP_COMM_NULL;
        CHECK(ep_class(EP_Comm_free(&nul)) == EP_ERR_COMM, "%s: EP_Comm_free(EP_COMM_NULL) did not give EP_ERR_COMM", what);
        return;
    }
    CHECK(h != EP_COMM_NULL && h != 12345, "%s: base rank %d (color %d key %d) got no communicator", what, P->base[P->me],
          color, key);
    if (h == EP_COMM_NULL || h == 12345) {
        /* Nothing to use; the others' collectives on this communicator would hang. */
        EP_Abort(P->h, 2);
    }
    check_sub(t, out, what);
}

/* Compares the new communicator with its parent: congruent when it has the same members
 * in the same order, similar when reordered, unequal when it has fewer members. */
static void check_compare(const Sub *P, const Sub *S, const char *what)
{
    if (S->h == EP_COMM_NULL)
        return;
    int want, res = -1, same = S->n == P->n;
    for (int r = 0; same && r < S->n; r++)
        same = S->base[r] == P->base[r];
    want = same ? EP_CONGRUENT : S->n == P->n ? EP_SIMILAR : EP_UNEQUAL;
    CHECK_OK(EP_Comm_compare(S->h, P->h, &res));
    CHECK(res == want, "%s: EP_Comm_compare(new, parent) = %d, expected %d (IDENT %d CONGRUENT %d SIMILAR %d UNEQUAL %d)",
          what, res, want, EP_IDENT, EP_CONGRUENT, EP_SIMILAR, EP_UNEQUAL);
}

static void sub_free(Sub *S)
{
    if (S->h != EP_COMM_NULL) {
        CHECK_OK(EP_Comm_free(&S->h));
        CHECK(S->h == EP_COMM_NULL, "EP_Comm_free did not set the handle to EP_COMM_NULL");
    }
    free(S->base);
    S->base = NULL;
}

/* ------------------------------------------------------------------------------------ */
/* Color/key assignments                                                                */

static void a_mod2_rev(int r, int n, int b, int *c, int *k) { (void)n, (void)b, *c = r % 2, *k = -r; }
static void a_mod3_rev(int r, int n, int b, int *c, int *k) { (void)b, *c = r % 3, *k = n - r; }
static void a_evens_first(int r, int n, int b, int *c, int *k) { (void)n, (void)b, *c = 0, *k = r % 2; }
static void a_all_tied(int r, int n, int b, int *c, int *k) { (void)r, (void)n, (void)b, *c = 0, *k = 7; }
static void a_reverse(int r, int n, int b, int *c, int *k) { (void)n, (void)b, *c = 0, *k = -r; }
/* Mixes across processes by local index; processes in reverse order. */
static void a_index_mix(int r, int n, int b, int *c, int *k) { (void)r, (void)n, *c = ep_idx[b] % 2, *k = -ep_proc[b] * 1000 + ep_idx[b]; }
/* All endpoints of base rank 0's process out; the rest by process parity. */
static void a_proc_out(int r, int n, int b, int *c, int *k)
{
    (void)n;
    *c = ep_proc[b] == ep_proc[0] ? EP_UNDEFINED : ep_proc[b] % 2;
    *k = r;
}
/* Two endpoints out; keys with ties: 0 2 1 0 2 1 ... */
static void a_some_out(int r, int n, int b, int *c, int *k) { (void)b, *c = (r == 1 || r == n - 1) ? EP_UNDEFINED : 5, *k = (r * 5) % 3; }
/* INT_MIN / INT_MAX / 0 keys and large colors. */
static void a_extreme(int r, int n, int b, int *c, int *k)
{
    (void)n, (void)b;
    *c = 1000000 + (r % 2) * 7777;
    *k = r % 3 == 0 ? INT_MIN : r % 3 == 1 ? INT_MAX : 0;
}
static void a_alone(int r, int n, int b, int *c, int *k) { (void)n, (void)b, *c = r, *k = 0; }
static void a_none(int r, int n, int b, int *c, int *k) { (void)r, (void)n, (void)b, *c = EP_UNDEFINED, *k = 0; }
/* For splits of splits: base rank parity, reversed. */
static void a_base_parity(int r, int n, int b, int *c, int *k) { (void)n, *c = b % 2, *k = -r; }
static void a_key_base_mod3(int r, int n, int b, int *c, int *k) { (void)r, (void)n, *c = 0, *k = b % 3; }
/* split_type: everyone shared, with several keys; odd ranks undefined; all undefined. */
static void s_key0(int r, int n, int b, int *c, int *k) { (void)r, (void)n, (void)b, *c = MPI_COMM_TYPE_SHARED, *k = 0; }
static void s_rev(int r, int n, int b, int *c, int *k) { (void)n, (void)b, *c = MPI_COMM_TYPE_SHARED, *k = -r; }
static void s_evens_first(int r, int n, int b, int *c, int *k) { (void)n, (void)b, *c = MPI_COMM_TYPE_SHARED, *k = r % 2; }
static void s_odd_out(int r, int n, int b, int *c, int *k) { (void)n, (void)b, *c = r % 2 ? EP_UNDEFINED : MPI_COMM_TYPE_SHARED, *k = -r; }
static void s_none(int r, int n, int b, int *c, int *k) { (void)r, (void)n, (void)b, *c = EP_UNDEFINED, *k = 0; }

/* ------------------------------------------------------------------------------------ */

/* One split of the base communicator per case, checked, compared with the parent, freed. */
static void t_single_splits(T *t, const Sub *B)
{
    static const struct {
        Assign fn;
        const char *what;
    } cases[] = {
        {a_mod2_rev, "EP_Comm_split color rank%2, key -rank"},
        {a_mod3_rev, "EP_Comm_split color rank%3, key size-rank"},
        {a_evens_first, "EP_Comm_split one color, key rank%2 (ties by old rank)"},
        {a_all_tied, "EP_Comm_split one color, all keys equal"},
        {a_reverse, "EP_Comm_split one color, key -rank"},
        {a_index_mix, "EP_Comm_split color local index%2, processes in reverse order"},
        {a_proc_out, "EP_Comm_split with the first process's endpoints EP_UNDEFINED"},
        {a_some_out, "EP_Comm_split with ranks 1 and size-1 EP_UNDEFINED, tied keys"},
        {a_extreme, "EP_Comm_split large colors, keys INT_MIN/INT_MAX/0"},
        {a_alone, "EP_Comm_split color rank (every endpoint alone)"},
        {a_none, "EP_Comm_split everyone EP_UNDEFINED"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Sub S;
        do_split(t, B, cases[i].fn, 0, cases[i].what, &S);
        check_compare(B, &S, cases[i].what);
        sub_free(&S);
    }
}

/* Splits of splits, two levels deep, and a split of a dup. */
static void t_nested(T *t, const Sub *B)
{
    Sub A, A2, A3, F, F2, D, DS;
    do_split(t, B, a_mod2_rev, 0, "nested: level 1, color rank%2, key -rank", &A);
    if (A.h != EP_COMM_NULL) {
        do_split(t, &A, a_base_parity, 0, "nested: level 2 (of rank%2/-rank), color base rank%2, key -rank", &A2);
        if (A2.h != EP_COMM_NULL) {
            do_split(t, &A2, a_key_base_mod3, 0, "nested: level 3, one color, key base rank%3", &A3);
            check_compare(&A2, &A3, "nested: level 3");
            sub_free(&A3);
        }
        sub_free(&A2);
    }
    do_split(t, B, a_index_mix, 0, "nested: level 1, color local index%2, reversed processes", &F);
    if (F.h != EP_COMM_NULL) {
        do_split(t, &F, a_mod3_rev, 0, "nested: level 2 (of local index%2), color rank%3, key size-rank", &F2);
        sub_free(&F2);
        /* split_type of a split: the whole (one-node) split, reversed. */
        if (one_node) {
            do_split(t, &F, s_rev, 1, "nested: EP_Comm_split_type SHARED of a split, key -rank", &F2);
            check_compare(&F, &F2, "nested: split_type of a split");
            sub_free(&F2);
        }
    }
    /* Freed in another order than created: A before F. */
    sub_free(&A);
    sub_free(&F);
    /* A split of a dup. */
    stage(t, "EP_Comm_dup of the base communicator");
    D = *B;
    D.base = malloc(B->n * sizeof(int));
    memcpy(D.base, B->base, B->n * sizeof(int));
    CHECK_OK(EP_Comm_dup(B->h, &D.h));
    do_split(t, &D, a_mod3_rev, 0, "split of a dup: color rank%3, key size-rank", &DS);
    sub_free(&DS);
    sub_free(&D);
}

/* Three communicators alive at once, used in an interleaved sequence: results must not
 * leak between them. */
static void t_alive_together(T *t, const Sub *B)
{
    Sub A, C;
    do_split(t, B, a_mod2_rev, 0, "together: color rank%2, key -rank", &A);
    do_split(t, B, a_mod3_rev, 0, "together: color rank%3, key size-rank", &C);
    stage(t, "together: interleaved collectives on three communicators");
    for (int it = 0; it < 10; it++) {
        const Sub *order[3] = {&A, B, &C};
        for (int j = 0; j < 3; j++) {
            const Sub *S = order[(it + j) % 3];
            if (S->h == EP_COMM_NULL)
                continue;
            T u = *t;
            u.c = S->h;
            u.me = S->me;
            u.n = S->n;
            u.where = S == B ? "together, base: " : S == &A ? "together, rank%2 split: " : "together, rank%3 split: ";
            int seed = (it * 3 + j) & 31;
            Cat cs = cat_val(seed, S->base[S->me], 0), cr = {-1, -1}, cw = cat_fold(seed, S->base, S->n, 0);
            CHECK_OK(EP_Allreduce(&cs, &cr, 1, MPI_2INT, CAT_OP, S->h));
            expect_cats(&u, "EP_Allreduce with the non-commutative op", &cr, &cw, 1);
        }
    }
    /* Freed in creation order this time. */
    sub_free(&A);
    sub_free(&C);
}

static void t_split_type(T *t, const Sub *B)
{
    if (!one_node) {
        if (t->me == 0)
            fprintf(stderr, "split: processes on several nodes, split_type expectations skipped\n");
        return;
    }
    static const struct {
        Assign fn;
        const char *what;
    } cases[] = {
        {s_key0, "EP_Comm_split_type SHARED, key 0"},
        {s_rev, "EP_Comm_split_type SHARED, key -rank"},
        {s_evens_first, "EP_Comm_split_type SHARED, key rank%2"},
        {s_odd_out, "EP_Comm_split_type SHARED for even ranks, EP_UNDEFINED for odd, key -rank"},
        {s_none, "EP_Comm_split_type EP_UNDEFINED everywhere"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Sub S;
        do_split(t, B, cases[i].fn, 1, cases[i].what, &S);
        check_compare(B, &S, cases[i].what);
        sub_free(&S);
    }
}

/* A color that is neither >= 0 nor EP_UNDEFINED, passed by everyone: an error, and the
 * parent still works. */
static void t_bad_color(T *t, const Sub *B)
{
    stage(t, "EP_Comm_split with a negative color");
    EP_Comm h = EP_COMM_NULL;
    int rc = EP_Comm_split(B->h, -5, 0, &h);
    CHECK(rc != EP_SUCCESS, "EP_Comm_split with color -5 succeeded");
    if (rc == EP_SUCCESS && h != EP_COMM_NULL)
        EP_Comm_free(&h);
    CHECK_OK(EP_Barrier(B->h));
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    one_node = all_on_one_node();
    cat_init();
    /* Where every base rank lives: endpoints are ranked by (process, index). */
    n_base = 0;
    for (int p = 0; p < ws; p++)
        n_base += ep_test_count_for(p);
    ep_proc = malloc((n_base + 1) * sizeof(int));
    ep_idx = malloc((n_base + 1) * sizeof(int));
    for (int p = 0, r = 0; p < ws; p++)
        for (int i = 0; i < ep_test_count_for(p); i++, r++) {
            ep_proc[r] = p;
            ep_idx[r] = i;
        }
    int live0 = -1;
    EP_Debug_live_handles(&live0, NULL, NULL);
    watchdog_start("split", wr, 150);
    EP_Comm *comms = malloc((n > 0 ? n : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    if (n > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n)
        {
            int idx = omp_get_thread_num();
            T t = {comms[idx], 0, 0, idx, 0, ""};
            Sub B = {comms[idx], n_base, ep_test_expected_rank(wr, idx), malloc(n_base * sizeof(int))};
            for (int r = 0; r < n_base; r++)
                B.base[r] = r;
            EP_Comm_rank(t.c, &t.me);
            EP_Comm_size(t.c, &t.n);
            CHECK(t.me == B.me && t.n == B.n, "base communicator: rank %d of %d, expected %d of %d", t.me, t.n, B.me, B.n);
            check_sub(&t, &B, "base communicator");
            t_single_splits(&t, &B);
            t_nested(&t, &B);
            t_alive_together(&t, &B);
            t_split_type(&t, &B);
            t_bad_color(&t, &B);
            stage(&t, "EP_Comm_free");
            sub_free(&B);
            stage(&t, NULL);
        }
    }
    int live = -1;
    EP_Debug_live_handles(&live, NULL, NULL);
    CHECK(live == live0, "live communicator handles at the end: %d, at the start: %d", live, live0);
    CHECK(cat_wrong_type == 0, "the non-commutative op was called %d times with a datatype other than MPI_2INT", cat_wrong_type);
    free(comms);
    free(ep_proc);
    free(ep_idx);
    MPI_Op_free(&CAT_OP);
    return ep_test_finish("split", wr);
}
