/*
 * Helpers shared by the collective and split tests (coll.c, split.c), on top of ep_test.h.
 *
 * - Values that say where they come from: VAL(seed, rank, index) packs the three into one
 *   positive int, so a wrong element in a failure message reads "from rank 2, element 17 of
 *   call seed 5" instead of a bare number. SENTINEL (negative) marks bytes a call must not
 *   write (gaps of derived datatypes, gaps between v-variant blocks, guards past the end).
 * - Layouts: where the data ints of (count, datatype) live in a buffer, for MPI_INT and for
 *   a strided, resized vector type, so every data-movement collective can be run with
 *   either type on either side (MPI only requires equal type signatures).
 * - A non-commutative user op ("concatenation" of digit strings) whose result spells the
 *   order in which the ranks' contributions were combined.
 * - Buffer comparison that reports the collective, the rank and the first wrong element.
 * - A watchdog: a hang prints which stage each endpoint of the process was in, then exits
 *   (after 150 s, or EPMPI_TEST_TIMEOUT seconds). EPMPI_TEST_VERBOSE=1 makes rank 0 print
 *   the time at which each stage starts.
 *
 * Expected results are always computed here from closed forms, never by calling the
 * function under test.
 */
#ifndef COLL_TEST_H
#define COLL_TEST_H

#include "ep_test.h"
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------ */
/* Per-thread test context                                                              */

/* One per endpoint thread: the communicator under test, this endpoint's rank and the size,
 * its local index (for the watchdog), and the seed of the current call. Every endpoint runs
 * the same sequence of cases, so the seeds agree across ranks without communication. */
typedef struct {
    EP_Comm c;
    int me, n;
    int li;   /* local index in the process (watchdog slot) */
    int seed; /* 0..31, advanced once per collective call by every rank */
    const char *where; /* prefix of failure messages, e.g. "crosstalk, dup: " */
} T;

static int next_seed(T *t)
{
    t->seed = (t->seed + 1) & 31;
    return t->seed;
}

/* ------------------------------------------------------------------------------------ */
/* Values                                                                               */

/* 5 bits of seed, 6 of rank, 20 of index: always >= 0, so never equal to SENTINEL. */
#define VAL(seed, rank, idx)                                                               \
    ((int)((((unsigned)(seed)&31u) << 26) | (((unsigned)(rank)&63u) << 20) | ((unsigned)(idx)&0xfffffu)))
#define SENTINEL (-1)
/* 1 MiB of ints: the "large" count. */
#define LARGE (1 << 18)

/* "seed 3 rank 2 idx 17", or "SENTINEL (never written)" */
static void describe(int v, char *buf, size_t len)
{
    if (v == SENTINEL)
        snprintf(buf, len, "SENTINEL");
    else if (v < 0)
        snprintf(buf, len, "negative");
    else
        snprintf(buf, len, "seed %d rank %d idx %d", (v >> 26) & 31, (v >> 20) & 63, v & 0xfffff);
}

/* Compares len ints; on mismatch counts one failure and prints the collective/case (what),
 * the rank, how many elements are wrong and the first one, decoded. Returns 1 when equal. */
static int expect_ints(const T *t, const char *what, const int *got, const int *want, size_t len)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < len; i++)
        if (got[i] != want[i]) {
            if (!bad)
                first = i;
            bad++;
        }
    if (bad) {
        char g[64], w[64];
        describe(got[first], g, sizeof g);
        describe(want[first], w, sizeof w);
        CHECK(bad == 0, "%s%s: rank %d of %d: %zu of %zu ints wrong, first at [%zu]: got %d (%s), expected %d (%s)",
              t->where, what, t->me, t->n, bad, len, first, got[first], g, want[first], w);
    }
    return bad == 0;
}

/* Formats a case description into a local buffer named what_. */
#define WHAT(...) (snprintf(what_, sizeof what_, __VA_ARGS__), what_)

static int *ints_new(size_t len, int fill)
{
    int *p = malloc((len ? len : 1) * sizeof(int));
    if (!p) {
        fprintf(stderr, "out of memory (%zu ints)\n", len);
        abort();
    }
    for (size_t i = 0; i < len; i++)
        p[i] = fill;
    return p;
}

/* The roots every rooted collective is run with: first, last and a middle rank (fewer
 * when they coincide on small communicators). Returns how many. */
static int pick_roots(int n, int roots[3])
{
    int k = 0, cand[3] = {0, n - 1, n / 2};
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < k; j++)
            dup |= roots[j] == cand[i];
        if (!dup)
            roots[k++] = cand[i];
    }
    return k;
}

/* ------------------------------------------------------------------------------------ */
/* Layouts: MPI_INT and a strided vector                                                */

/* Where the data ints of `count` elements of `type` sit in a buffer of ints: element e's
 * j-th data int is at e * extent + offs[j]. */
typedef struct {
    const char *name;
    MPI_Datatype type;
    int ints;   /* data ints per element */
    int extent; /* extent in ints */
    int offs[6];
} Layout;

static Layout L_INT, L_VEC;

/* L_VEC: 3 blocks of 2 ints with stride 5 (gaps of 3 ints inside), resized to an extent of
 * 14 ints (a trailing gap of 2 after the true extent of 12). Only the 6 data ints of each
 * element may be written by any collective; the 8 gap ints must keep their SENTINEL. */
static void layouts_init(void)
{
    L_INT = (Layout){"MPI_INT", MPI_INT, 1, 1, {0}};
    MPI_Datatype v, r;
    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 14 * (MPI_Aint)sizeof(int), &r);
    MPI_Type_commit(&r);
    MPI_Type_free(&v);
    L_VEC = (Layout){"vector(3,2,5)/resized(14 ints)", r, 6, 14, {0, 1, 5, 6, 10, 11}};
}

static void layouts_free(void)
{
    MPI_Type_free(&L_VEC.type);
}

/* Buffer index of the k-th data int of a buffer of L elements. */
static size_t lay_at(const Layout *L, size_t k)
{
    return (k / L->ints) * L->extent + L->offs[k % L->ints];
}

/* Ints to allocate for `count` elements, plus one element of guard. */
static size_t lay_len(const Layout *L, size_t count)
{
    return (count + 1) * L->extent;
}

/* ------------------------------------------------------------------------------------ */
/* A non-commutative op: concatenation of digit strings                                 */

/* An element is an MPI_2INT pair (len, digits): a string of `len` hex digits, the last 8 of
 * them kept in `digits` (arithmetic mod 2^32, which keeps the op associative). a op b
 * appends b's digits after a's. MPI calls the op as inout = in op inout with `in` from the
 * lower ranks, so the result of combining ranks 0..n-1 spells their digits in rank order;
 * any reordering shows in the hex value (e.g. 0x1234 vs 0x2134). */
typedef struct {
    int len;
    int digits;
} Cat;

static int cat_wrong_type = 0; /* set when the op is called with another datatype */

static unsigned pow16(int len)
{
    unsigned p = 1;
    for (int i = 0; i < len && i < 8; i++)
        p *= 16u;
    return len >= 8 ? 0u : p;
}

static Cat cat_join(Cat a, Cat b)
{
    Cat r;
    r.len = a.len + b.len;
    r.digits = (int)((unsigned)a.digits * pow16(b.len) + (unsigned)b.digits);
    return r;
}

static void cat_op_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != MPI_2INT) {
        _Pragma("omp atomic") cat_wrong_type++;
    }
    Cat *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = cat_join(a[i], b[i]);
}

static MPI_Op CAT_OP;

static void cat_init(void)
{
    MPI_Op_create(cat_op_fn, 0 /* not commutative */, &CAT_OP);
}

/* Rank r's contribution for element k of the call with this seed: one digit 1..15. */
static Cat cat_val(int seed, int r, int k)
{
    return (Cat){1, ((r + 3 * k + seed) % 15) + 1};
}

/* The combination of ranks ranks[0..count) (in that order) for element k: what MPI gives. */
static Cat cat_fold(int seed, const int *ranks, int count, int k)
{
    Cat acc = {0, 0};
    for (int i = 0; i < count; i++)
        acc = cat_join(acc, cat_val(seed, ranks[i], k));
    return acc;
}

/* Combination of the contiguous rank range lo..hi-1. */
static Cat cat_fold_range(int seed, int lo, int hi, int k)
{
    Cat acc = {0, 0};
    for (int r = lo; r < hi; r++)
        acc = cat_join(acc, cat_val(seed, r, k));
    return acc;
}

static int expect_cats(const T *t, const char *what, const Cat *got, const Cat *want, size_t len)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < len; i++)
        if (got[i].len != want[i].len || got[i].digits != want[i].digits) {
            if (!bad)
                first = i;
            bad++;
        }
    CHECK(bad == 0, "%s%s: rank %d of %d: %zu of %zu elements wrong, first at [%zu]: got (len %d, digits 0x%x), expected (len %d, digits 0x%x) (digits spell the rank order)",
          t->where, what, t->me, t->n, bad, len, first, bad ? got[first].len : 0, bad ? (unsigned)got[first].digits : 0u,
          bad ? want[first].len : 0, bad ? (unsigned)want[first].digits : 0u);
    return bad == 0;
}

/* ------------------------------------------------------------------------------------ */
/* Time, node, watchdog                                                                 */

/* CLOCK_MONOTONIC is one clock for all processes of a node: used to order events of
 * different processes (barrier entry vs exit) when everything runs on one node. */
static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* 1 when every process of MPI_COMM_WORLD shares one node (host MPI, before any threads). */
static int all_on_one_node(void)
{
    MPI_Comm node;
    int ns, ws, all;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ns);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    int mine = ns == ws;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    return all;
}

#define WATCH_SLOTS 256
static const char *volatile watch_stage[WATCH_SLOTS];
static int watch_world_rank = -1;
static const char *watch_name = "test";
static double watch_t0;
static int watch_verbose;

static void watch_put(const char *s)
{
    ssize_t ignored = write(2, s, strlen(s));
    (void)ignored;
}

static void watch_alarm(int sig)
{
    (void)sig;
    char num[16];
    snprintf(num, sizeof num, "%d", watch_world_rank);
    watch_put(watch_name);
    watch_put(": FAIL: watchdog timeout in process ");
    watch_put(num);
    watch_put("\n");
    for (int i = 0; i < WATCH_SLOTS; i++) {
        const char *s = watch_stage[i];
        if (s) {
            snprintf(num, sizeof num, "%d", i);
            watch_put("  endpoint with local index ");
            watch_put(num);
            watch_put(" was in: ");
            watch_put(s);
            watch_put("\n");
        }
    }
    _exit(3);
}

/* Exits the process with a report if the test is still running after `seconds`. */
static void watchdog_start(const char *name, int world_rank, int seconds)
{
    watch_name = name;
    watch_world_rank = world_rank;
    watch_t0 = mono_now();
    watch_verbose = getenv("EPMPI_TEST_VERBOSE") && atoi(getenv("EPMPI_TEST_VERBOSE")) > 0;
    const char *env = getenv("EPMPI_TEST_TIMEOUT");
    if (env && atoi(env) > 0)
        seconds = atoi(env);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = watch_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm((unsigned)seconds);
}

/* Records what this endpoint is doing (a string literal), for the watchdog; with
 * EPMPI_TEST_VERBOSE=1 rank 0 also prints when each stage starts. */
static void stage(const T *t, const char *s)
{
    if (t->li >= 0 && t->li < WATCH_SLOTS)
        watch_stage[t->li] = s;
    if (watch_verbose && t->me == 0 && s)
        fprintf(stderr, "%s: %7.3f s: %s%s\n", watch_name, mono_now() - watch_t0, t->where, s);
}

#endif
