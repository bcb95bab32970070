/*
 * Blocking collectives, EP_Ibarrier and EP_Ibcast on an endpoints communicator, checked
 * against results computed here from MPI 4.1 chapter 6 (never by calling the function under
 * test). Run under mpirun in several shapes (EPMPI_TEST_EPS); a process may have zero
 * endpoints, and processes may have different endpoint counts.
 *
 * What each family covers, and why:
 * - every rooted collective with the first, the last and a middle rank as root (a
 *   hierarchical implementation treats "root is a process leader" and "root is another
 *   endpoint of a middle process" differently);
 * - counts 0, 1, small, and one large case (>= 1 MiB) per collective (eager vs. large paths);
 * - mixed datatypes with equal signatures (root strided vector, others MPI_INT and back):
 *   MPI only requires matching type signatures, so an implementation that moves bytes using
 *   one side's datatype, or assumes every endpoint passes the same type, fails;
 * - gaps of derived datatypes, gaps between v-variant blocks and a guard element after every
 *   receive buffer must keep their SENTINEL: nothing may be written outside the type map;
 * - v-variants with zero counts for some ranks (the root too), displacements with gaps,
 *   in decreasing and in non-monotonic order;
 * - MPI_IN_PLACE wherever MPI 4.1 allows it, with the arguments MPI says are ignored passed
 *   as NULL / 0 / MPI_DATATYPE_NULL in some cases (JUNK), and NULL receive buffers at
 *   non-roots (significant only at the root: an implementation must not use them);
 * - a non-commutative user op whose result spells the order of combination, for Reduce,
 *   Allreduce, Scan, Exscan, Reduce_scatter and Reduce_scatter_block;
 * - predefined ops on predefined types (SUM, PROD, MAX, MIN, LAND, LOR, BAND, BOR, BXOR,
 *   MAXLOC/MINLOC on MPI_2INT and MPI_DOUBLE_INT with ties), on 1-, 2-, 4- and 8-byte types;
 * - a user-defined op on the strided vector type (MPI 4.1 section 6.9.1: predefined ops are
 *   defined on predefined types only; both host MPIs reject MPI_SUM on a derived type with
 *   MPI_ERR_OP, so "sum of a vector of MPI_INT" is a user op here);
 * - a struct datatype (double, int, char; resized to the C struct) in bcast, gather,
 *   scatter, allgather, alltoall;
 * - many collectives in a row alternating between the communicator and a dup, with a
 *   wildcard receive pending on both the whole time (cross-talk, collective traffic leaking
 *   into point-to-point matching);
 * - EP_Ibarrier/EP_Ibcast: several outstanding on one communicator mixed with point-to-point
 *   requests, completed by Waitall, by Wait in reverse order, or by Test loops; interleaved
 *   with blocking collectives; posted in different orders on two communicators by different
 *   ranks (legal: MPI orders collectives per communicator); a late rank: the others' EP_Test
 *   must keep saying "not complete" until it has entered (checked with messages, not time);
 * - bad arguments passed by every rank give the documented error class, and the
 *   communicator still works afterwards.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep, sigaction */
#endif
#include "coll_test.h"
#include <sched.h>
#include <stddef.h>

/* Case flags. */
#define IN_PLACE 1
#define JUNK 2 /* pass the arguments MPI says are ignored as NULL / 0 / MPI_DATATYPE_NULL */
#define ODD_VEC 4 /* odd ranks send the same ints as vectors (ls must be L_INT, sc a multiple of 6):
                   * endpoints of one process whose send buffers are contiguous on some and not
                   * on others must all agree on how the data moves */

static int one_node; /* every process on one node: CLOCK_MONOTONIC comparable across them */
static int single_process; /* the whole communicator in this process (a world of one) */

/* ==================================================================================== */
/* v-variant layouts                                                                    */

enum { PAT_UNEVEN, PAT_ONE, PAT_ZERO, PAT_LARGE };
static const char *pat_name[] = {"uneven counts (some 0), blocks in reverse rank order with gaps",
                                 "only the middle rank has data, odd-ranks-first order",
                                 "all counts 0", "large, even ranks only, odd-ranks-first order"};

/* Ranks in "odd ranks descending, then even ranks ascending" order: n=6 gives 5 3 1 0 2 4,
 * so displacements go down and then up (non-monotonic). */
static void odd_first(int n, int *order)
{
    int k = 0;
    for (int r = (n - 1) | 1; r >= 1; r -= 2)
        if (r < n)
            order[k++] = r;
    for (int r = 0; r < n; r += 2)
        order[k++] = r;
}

/* Block sizes (in elements) and displacements of the v-variants for pattern `pat`;
 * returns the number of elements the buffer spans (gaps included). */
static size_t v_pattern(int pat, int n, int *counts, int *displs)
{
    int *order = malloc(n * sizeof(int));
    int gap = 1;
    for (int r = 0; r < n; r++) {
        switch (pat) {
        case PAT_UNEVEN:
            counts[r] = (r * 3 + 1) % 4; /* 1 0 3 2 1 0 ... */
            order[r] = n - 1 - r;
            gap = 2;
            break;
        case PAT_ONE:
            counts[r] = r == n / 2 ? 5 : 0;
            break;
        case PAT_ZERO:
            counts[r] = 0;
            order[r] = r;
            gap = 0;
            break;
        default: /* PAT_LARGE: about 1 MiB in total */
            counts[r] = r % 2 == 0 ? LARGE / ((n + 1) / 2) : 0;
            break;
        }
    }
    if (pat == PAT_ONE || pat == PAT_LARGE)
        odd_first(n, order);
    size_t pos = gap;
    for (int i = 0; i < n; i++) {
        displs[order[i]] = (int)pos;
        pos += counts[order[i]] + gap;
    }
    free(order);
    return pos;
}

/* ==================================================================================== */
/* Barrier                                                                              */

/* Several barriers in a row; then, for each of three ranks, that rank enters late: it reads
 * CLOCK_MONOTONIC just before entering, the others read it just after leaving, and the late
 * rank sends its time afterwards. Nobody may have left before the late rank entered. */
static void t_barrier(T *t)
{
    stage(t, "EP_Barrier");
    for (int i = 0; i < 5; i++)
        CHECK_OK(EP_Barrier(t->c));
    int roots[3], nr = pick_roots(t->n, roots);
    for (int i = 0; i < nr; i++) {
        int late = roots[i];
        double t_in = 0, t_out;
        ep_test_barrier(t->c);
        if (t->me == late) {
            sleep_ms(30);
            t_in = mono_now();
        }
        CHECK_OK(EP_Barrier(t->c));
        t_out = mono_now();
        if (t->me == late) {
            for (int r = 0; r < t->n; r++)
                if (r != late)
                    CHECK_OK(EP_Send(&t_in, 1, MPI_DOUBLE, r, 901, t->c));
        } else {
            CHECK_OK(EP_Recv(&t_in, 1, MPI_DOUBLE, late, 901, t->c, EP_STATUS_IGNORE));
            if (one_node)
                CHECK(t_out >= t_in - 1e-4, "EP_Barrier: rank %d left %.3f ms before late rank %d entered",
                      t->me, (t_in - t_out) * 1e3, late);
        }
    }
}

/* ==================================================================================== */
/* Bcast                                                                                */

/* The root sends croot elements of lr, the others receive cother of lo (same number of
 * data ints). Every rank checks its whole buffer, gaps and guard included. */
static void bcast_case(T *t, int root, const Layout *lr, int croot, const Layout *lo, int cother)
{
    char what_[256];
    int seed = next_seed(t), is_root = t->me == root;
    const Layout *L = is_root ? lr : lo;
    int count = is_root ? croot : cother;
    size_t m = (size_t)croot * lr->ints, len = lay_len(L, count);
    int *buf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
    for (size_t k = 0; k < m; k++)
        want[lay_at(L, k)] = VAL(seed, root, k);
    if (is_root)
        memcpy(buf, want, len * sizeof(int));
    CHECK_OK(EP_Bcast(buf, count, L->type, root, t->c));
    expect_ints(t, WHAT("EP_Bcast root %d, root %d x %s, others %d x %s", root, croot, lr->name, cother, lo->name),
                buf, want, len);
    free(buf);
    free(want);
}

static void t_bcast(T *t)
{
    stage(t, "EP_Bcast");
    int roots[3], nr = pick_roots(t->n, roots);
    for (int i = 0; i < nr; i++) {
        int root = roots[i];
        bcast_case(t, root, &L_INT, 0, &L_INT, 0);
        bcast_case(t, root, &L_INT, 1, &L_INT, 1);
        bcast_case(t, root, &L_INT, 5, &L_INT, 5);
        /* Same signature, different types: 2 strided vectors = 12 contiguous ints. */
        bcast_case(t, root, &L_VEC, 2, &L_INT, 12);
        bcast_case(t, root, &L_INT, 12, &L_VEC, 2);
        bcast_case(t, root, &L_VEC, 3, &L_VEC, 3);
    }
    /* Large: 1 MiB contiguous from a middle rank; 1 MiB of vector data from the last rank
     * received as contiguous ints. */
    /* Above the inline exchange: contiguous or vector at the root, the other kind elsewhere;
     * 1200 and 2400 bytes, staged by the root inside one process, and 6000 bytes, copied
     * straight. */
    bcast_case(t, t->n - 1, &L_INT, 300, &L_VEC, 50);
    bcast_case(t, 0, &L_VEC, 50, &L_INT, 300);
    bcast_case(t, t->n - 1, &L_INT, 600, &L_VEC, 100);
    bcast_case(t, 0, &L_VEC, 100, &L_INT, 600);
    bcast_case(t, t->n - 1, &L_INT, 1500, &L_VEC, 250);
    bcast_case(t, 0, &L_INT, 1500, &L_INT, 1500);
    /* 16 and 32 KiB, contiguous everywhere: inside one process every endpoint, the root
     * included, copies a share; 24 KiB into vectors on the readers: each reader its own. */
    bcast_case(t, t->n / 2, &L_INT, 4096, &L_INT, 4096);
    bcast_case(t, t->n - 1, &L_INT, 8192, &L_INT, 8192);
    bcast_case(t, 0, &L_INT, 6000, &L_VEC, 1000);
    bcast_case(t, t->n / 2, &L_INT, LARGE, &L_INT, LARGE);
    bcast_case(t, t->n - 1, &L_VEC, LARGE / 6 + 1, &L_INT, (LARGE / 6 + 1) * 6);
    /* Nothing to move: MPI allows any buffer, NULL included. */
    CHECK_OK(EP_Bcast(NULL, 0, MPI_INT, t->n - 1, t->c));
}

/* Broadcasts in a row among the endpoints of one process (a communicator split by process),
 * where a root leaves as soon as its data is published and may run several broadcasts ahead of its
 * readers: each root broadcasts three times in a row, then the next; the root overwrites its
 * buffer as soon as the call returns; a reduction to the same root (whose other ranks leave at
 * once too), an allreduce, barriers and gathers (collectives of other kinds, entered right
 * after a rank left a broadcast early) come between. Every rank checks every value. */
/* The endpoints of this process, split from t's communicator: rank *me of *n. */
static EP_Comm process_comm(T *t, int *me, int *n)
{
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    EP_Comm local;
    CHECK_OK(EP_Comm_split(t->c, wr, t->me, &local));
    EP_Comm_rank(local, me);
    EP_Comm_size(local, n);
    return local;
}

static void t_bcast_in_a_row(T *t)
{
    stage(t, "EP_Bcast in a row");
    enum { ROUNDS = 3000, MAX_INTS = 1100 };
    int me, n, buf[MAX_INTS], bad = 0, *all = NULL;
    EP_Comm local = process_comm(t, &me, &n);
    all = malloc(n * sizeof(int));
    for (int r = 0; r < ROUNDS; r++) {
        /* 4 bytes to 4400: inline inputs, staged buffers, and straight copies past 4096. */
        int root = (r / 3) % n, cnt = 1 + (r * 37) % MAX_INTS;
        for (int k = 0; k < cnt; k++)
            buf[k] = me == root ? r * 100 + k : -1;
        CHECK_OK(EP_Bcast(buf, cnt, MPI_INT, root, local));
        for (int k = 0; k < cnt; k++) {
            if (me != root && buf[k] != r * 100 + k && !bad++)
                CHECK(0, "rank %d of %d: broadcast %d from %d, int %d: got %d", me, n, r, root, k, buf[k]);
            buf[k] = -2; /* the root's buffer is its own again at once */
        }
        if (r % 5 == 4) {
            int x = me + r, sum = -1, max = -1;
            CHECK_OK(EP_Reduce(&x, &sum, 1, MPI_INT, MPI_SUM, root, local));
            CHECK(me != root || sum == n * r + n * (n - 1) / 2, "rank %d: reduce %d to %d: %d", me, r, root, sum);
            CHECK_OK(EP_Allreduce(&x, &max, 1, MPI_INT, MPI_MAX, local));
            CHECK(max == n - 1 + r, "rank %d: allreduce %d: %d", me, r, max);
        } else if (r % 5 == 1) {
            CHECK_OK(EP_Barrier(local));
        } else if (r % 5 == 2) {
            int x = r * 10 + me;
            CHECK_OK(EP_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, root, local));
            for (int k = 0; me == root && k < n; k++)
                CHECK(all[k] == r * 10 + k, "rank %d: gather %d to %d: %d from %d", me, r, root, all[k], k);
        }
    }
    free(all);
    CHECK_OK(EP_Comm_free(&local));
}

/* Allgathers and all-to-alls in a row among the endpoints of one process, their sizes
 * stepping through the inline exchange, the staged buffers and the straight copies, so that
 * each endpoint's staging buffers are rewritten while its peers may still be in the
 * collective before (a rank that has read every block goes on at once). Every rank refills
 * its send buffer as soon as a call returns and checks every block. */
static void t_exchange_in_a_row(T *t)
{
    stage(t, "EP_Allgather and EP_Alltoall in a row");
    enum { ROUNDS = 2000, MAX_BYTES = 1800 };
    int me, n, bad = 0;
    EP_Comm local = process_comm(t, &me, &n);
    int *send = malloc(MAX_BYTES + (size_t)n * sizeof(int)), *recv = malloc((size_t)n * MAX_BYTES + (size_t)n * sizeof(int));
    for (int r = 0; r < ROUNDS; r++) {
        int gather = r % 2 == 0, total = 1 + (r * 37) % (MAX_BYTES / 4);
        /* An allgather's block, or all of an all-to-all's blocks. */
        int cnt = gather ? total : (total + n - 1) / n;
        int ints = gather ? cnt : cnt * n;
        /* Unique per round, rank (fewer than 64 per process) and int. */
        for (int k = 0; k < ints; k++)
            send[k] = (r * 64 + me) * 1000 + k;
        for (int k = 0; k < cnt * n; k++)
            recv[k] = -1;
        if (gather)
            CHECK_OK(EP_Allgather(send, cnt, MPI_INT, recv, cnt, MPI_INT, local));
        else
            CHECK_OK(EP_Alltoall(send, cnt, MPI_INT, recv, cnt, MPI_INT, local));
        for (int k = 0; k < ints; k++)
            send[k] = -2; /* the send buffer is the rank's own again at once */
        for (int from = 0; from < n; from++)
            for (int k = 0; k < cnt; k++) {
                int want = (r * 64 + from) * 1000 + (gather ? k : me * cnt + k);
                if (recv[from * cnt + k] != want && !bad++)
                    CHECK(0, "rank %d of %d: %s %d, %d ints from %d, int %d: got %d, want %d", me, n,
                          gather ? "allgather" : "alltoall", r, cnt, from, k, recv[from * cnt + k], want);
            }
    }
    free(send);
    free(recv);
    CHECK_OK(EP_Comm_free(&local));
}

/* ==================================================================================== */
/* Gather / Scatter                                                                     */

/* Every rank sends sc elements of ls; the root receives rc elements of lr per rank.
 * Non-roots pass recvbuf NULL (significant only at root). IN_PLACE: the root's block is
 * already in recvbuf. JUNK: ignored arguments are 0 / MPI_DATATYPE_NULL. */
static void gather_case(T *t, int root, const Layout *ls, int sc, const Layout *lr, int rc, int flags)
{
    char what_[256];
    int seed = next_seed(t), me = t->me, n = t->n, junk = flags & JUNK, inp = flags & IN_PLACE;
    size_t m = (size_t)sc * ls->ints, slen = lay_len(ls, sc);
    int *sbuf = ints_new(slen, SENTINEL), *ssave = ints_new(slen, SENTINEL);
    for (size_t k = 0; k < m; k++)
        sbuf[lay_at(ls, k)] = ssave[lay_at(ls, k)] = VAL(seed, me, k);
    WHAT("EP_Gather root %d, %d x %s -> %d x %s%s%s", root, sc, ls->name, rc, lr->name, inp ? ", in place" : "",
         junk ? ", ignored args junk" : "");
    if (me == root) {
        size_t len = lay_len(lr, (size_t)rc * n);
        int *rbuf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
        for (int r = 0; r < n; r++)
            for (size_t k = 0; k < m; k++)
                want[lay_at(lr, r * m + k)] = VAL(seed, r, k);
        if (inp)
            for (size_t k = 0; k < m; k++)
                rbuf[lay_at(lr, me * m + k)] = VAL(seed, me, k);
        CHECK_OK(EP_Gather(inp ? MPI_IN_PLACE : sbuf, inp && junk ? 0 : sc, inp && junk ? MPI_DATATYPE_NULL : ls->type,
                           rbuf, rc, lr->type, root, t->c));
        expect_ints(t, what_, rbuf, want, len);
        free(rbuf);
        free(want);
    } else {
        CHECK_OK(EP_Gather(sbuf, sc, ls->type, NULL, junk ? 0 : rc, junk ? MPI_DATATYPE_NULL : lr->type, root, t->c));
    }
    strcat(what_, ": send buffer changed");
    expect_ints(t, what_, sbuf, ssave, slen);
    free(sbuf);
    free(ssave);
}

/* The root sends sc elements of ls to each rank; rank r receives rc elements of lr.
 * Non-roots pass sendbuf NULL. IN_PLACE: the root passes recvbuf MPI_IN_PLACE and its own
 * block stays in sendbuf. The root's send buffer must be unchanged in every case. */
static void scatter_case(T *t, int root, const Layout *ls, int sc, const Layout *lr, int rc, int flags)
{
    char what_[256];
    int seed = next_seed(t), me = t->me, n = t->n, junk = flags & JUNK, inp = flags & IN_PLACE;
    size_t m = (size_t)sc * ls->ints, rlen = lay_len(lr, rc);
    WHAT("EP_Scatter root %d, %d x %s -> %d x %s%s%s", root, sc, ls->name, rc, lr->name, inp ? ", in place" : "",
         junk ? ", ignored args junk" : "");
    int *rbuf = ints_new(rlen, SENTINEL), *want = ints_new(rlen, SENTINEL);
    for (size_t k = 0; k < m; k++)
        want[lay_at(lr, k)] = VAL(seed, me, k);
    if (me == root) {
        size_t slen = lay_len(ls, (size_t)sc * n);
        int *sbuf = ints_new(slen, SENTINEL), *ssave;
        for (int r = 0; r < n; r++)
            for (size_t k = 0; k < m; k++)
                sbuf[lay_at(ls, r * m + k)] = VAL(seed, r, k);
        ssave = ints_new(slen, 0);
        memcpy(ssave, sbuf, slen * sizeof(int));
        if (inp) {
            CHECK_OK(EP_Scatter(sbuf, sc, ls->type, MPI_IN_PLACE, junk ? 0 : rc, junk ? MPI_DATATYPE_NULL : lr->type, root, t->c));
        } else {
            CHECK_OK(EP_Scatter(sbuf, sc, ls->type, rbuf, rc, lr->type, root, t->c));
            expect_ints(t, what_, rbuf, want, rlen);
        }
        char w2[300];
        snprintf(w2, sizeof w2, "%s: root's send buffer changed", what_);
        expect_ints(t, w2, sbuf, ssave, slen);
        free(sbuf);
        free(ssave);
    } else {
        CHECK_OK(EP_Scatter(NULL, junk ? 0 : sc, junk ? MPI_DATATYPE_NULL : ls->type, rbuf, rc, lr->type, root, t->c));
        expect_ints(t, what_, rbuf, want, rlen);
    }
    free(rbuf);
    free(want);
}

static void t_gather_scatter(T *t)
{
    int roots[3], nr = pick_roots(t->n, roots);
    stage(t, "EP_Gather");
    for (int i = 0; i < nr; i++) {
        int root = roots[i];
        gather_case(t, root, &L_INT, 0, &L_INT, 0, 0);
        gather_case(t, root, &L_INT, 1, &L_INT, 1, 0);
        gather_case(t, root, &L_INT, 5, &L_INT, 5, JUNK);
        gather_case(t, root, &L_INT, 12, &L_VEC, 2, 0);
        gather_case(t, root, &L_VEC, 2, &L_INT, 12, 0);
        gather_case(t, root, &L_VEC, 1, &L_VEC, 1, 0);
        gather_case(t, root, &L_INT, 5, &L_INT, 5, IN_PLACE);
        gather_case(t, root, &L_VEC, 2, &L_VEC, 2, IN_PLACE | JUNK);
    }
    gather_case(t, t->n - 1, &L_INT, LARGE, &L_INT, LARGE, 0);
    stage(t, "EP_Scatter");
    for (int i = 0; i < nr; i++) {
        int root = roots[i];
        scatter_case(t, root, &L_INT, 0, &L_INT, 0, 0);
        scatter_case(t, root, &L_INT, 1, &L_INT, 1, 0);
        scatter_case(t, root, &L_INT, 5, &L_INT, 5, JUNK);
        scatter_case(t, root, &L_VEC, 2, &L_INT, 12, 0);
        scatter_case(t, root, &L_INT, 12, &L_VEC, 2, 0);
        scatter_case(t, root, &L_VEC, 1, &L_VEC, 1, 0);
        scatter_case(t, root, &L_INT, 5, &L_INT, 5, IN_PLACE);
        scatter_case(t, root, &L_VEC, 2, &L_VEC, 2, IN_PLACE | JUNK);
    }
    scatter_case(t, t->n / 2, &L_INT, LARGE, &L_INT, LARGE, 0);
}

/* ==================================================================================== */
/* Gatherv / Scatterv                                                                   */

/* Rank r sends counts[r] elements of lr as (counts[r] * lr->ints / ls->ints) elements of
 * ls; the root places them at displs[r] (in extents of lr). Every other element of the
 * root's buffer keeps its SENTINEL. JUNK: non-roots pass NULL counts and displacements. */
static void gatherv_case(T *t, int root, int pat, const Layout *ls, const Layout *lr, int flags)
{
    char what_[300];
    int seed = next_seed(t), me = t->me, n = t->n, junk = flags & JUNK, inp = flags & IN_PLACE;
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    size_t span = v_pattern(pat, n, counts, displs);
    size_t m = (size_t)counts[me] * lr->ints; /* data ints this rank sends */
    int sc = (int)(m / ls->ints);
    int *sbuf = ints_new(lay_len(ls, sc), SENTINEL);
    for (size_t k = 0; k < m; k++)
        sbuf[lay_at(ls, k)] = VAL(seed, me, k);
    WHAT("EP_Gatherv root %d, %s, send %s, recv %s%s%s", root, pat_name[pat], ls->name, lr->name,
         inp ? ", in place" : "", junk ? ", ignored args junk" : "");
    if (me == root) {
        size_t len = lay_len(lr, span);
        int *rbuf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
        for (int r = 0; r < n; r++)
            for (size_t k = 0; k < (size_t)counts[r] * lr->ints; k++)
                want[lay_at(lr, (size_t)displs[r] * lr->ints + k)] = VAL(seed, r, k);
        if (inp)
            for (size_t k = 0; k < m; k++)
                rbuf[lay_at(lr, (size_t)displs[me] * lr->ints + k)] = VAL(seed, me, k);
        CHECK_OK(EP_Gatherv(inp ? MPI_IN_PLACE : sbuf, sc, ls->type, rbuf, counts, displs, lr->type, root, t->c));
        expect_ints(t, what_, rbuf, want, len);
        free(rbuf);
        free(want);
    } else {
        CHECK_OK(EP_Gatherv(sbuf, sc, ls->type, NULL, junk ? NULL : counts, junk ? NULL : displs,
                            junk ? MPI_DATATYPE_NULL : lr->type, root, t->c));
    }
    free(sbuf);
    free(counts);
    free(displs);
}

/* The root sends counts[r] elements of ls from displs[r] (extents of ls) to rank r, which
 * receives them as elements of lr. JUNK: non-roots pass NULL counts and displacements. */
static void scatterv_case(T *t, int root, int pat, const Layout *ls, const Layout *lr, int flags)
{
    char what_[300];
    int seed = next_seed(t), me = t->me, n = t->n, junk = flags & JUNK, inp = flags & IN_PLACE;
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    size_t span = v_pattern(pat, n, counts, displs);
    size_t m = (size_t)counts[me] * ls->ints;
    int rc = (int)(m / lr->ints);
    size_t rlen = lay_len(lr, rc);
    int *rbuf = ints_new(rlen, SENTINEL), *want = ints_new(rlen, SENTINEL);
    for (size_t k = 0; k < m; k++)
        want[lay_at(lr, k)] = VAL(seed, me, k);
    WHAT("EP_Scatterv root %d, %s, send %s, recv %s%s%s", root, pat_name[pat], ls->name, lr->name,
         inp ? ", in place" : "", junk ? ", ignored args junk" : "");
    if (me == root) {
        size_t slen = lay_len(ls, span);
        int *sbuf = ints_new(slen, SENTINEL), *ssave = ints_new(slen, SENTINEL);
        for (int r = 0; r < n; r++)
            for (size_t k = 0; k < (size_t)counts[r] * ls->ints; k++)
                sbuf[lay_at(ls, (size_t)displs[r] * ls->ints + k)] = ssave[lay_at(ls, (size_t)displs[r] * ls->ints + k)] =
                    VAL(seed, r, k);
        CHECK_OK(EP_Scatterv(sbuf, counts, displs, ls->type, inp ? MPI_IN_PLACE : (void *)rbuf, rc,
                             inp && junk ? MPI_DATATYPE_NULL : lr->type, root, t->c));
        if (!inp)
            expect_ints(t, what_, rbuf, want, rlen);
        char w2[360];
        snprintf(w2, sizeof w2, "%s: root's send buffer changed", what_);
        expect_ints(t, w2, sbuf, ssave, slen);
        free(sbuf);
        free(ssave);
    } else {
        CHECK_OK(EP_Scatterv(NULL, junk ? NULL : counts, junk ? NULL : displs, junk ? MPI_DATATYPE_NULL : ls->type,
                             rbuf, rc, lr->type, root, t->c));
        expect_ints(t, what_, rbuf, want, rlen);
    }
    free(rbuf);
    free(want);
    free(counts);
    free(displs);
}

/* With one endpoint per process (shape 4x1) an implementation may forward to the host
 * collective directly; every process must then still call the same host collective as the
 * root (MPI_Gatherv, not MPI_Gather), although a non-root's counts and displacements are
 * not significant (NULL under JUNK). */
static void t_gatherv_scatterv(T *t)
{
    int roots[3], nr = pick_roots(t->n, roots);
    stage(t, "EP_Gatherv");
    for (int i = 0; i < nr; i++) {
        int root = roots[i];
        gatherv_case(t, root, PAT_UNEVEN, &L_INT, &L_INT, 0);
        gatherv_case(t, root, PAT_UNEVEN, &L_INT, &L_INT, JUNK);
        gatherv_case(t, root, PAT_ONE, &L_INT, &L_INT, 0);
        gatherv_case(t, root, PAT_ZERO, &L_INT, &L_INT, 0);
        gatherv_case(t, root, PAT_UNEVEN, &L_INT, &L_VEC, 0);
        gatherv_case(t, root, PAT_UNEVEN, &L_VEC, &L_VEC, 0);
        gatherv_case(t, root, PAT_UNEVEN, &L_INT, &L_INT, IN_PLACE);
        gatherv_case(t, root, PAT_ONE, &L_VEC, &L_VEC, IN_PLACE);
    }
    gatherv_case(t, t->n / 2, PAT_LARGE, &L_INT, &L_INT, 0);
    stage(t, "EP_Scatterv");
    for (int i = 0; i < nr; i++) {
        int root = roots[i];
        scatterv_case(t, root, PAT_UNEVEN, &L_INT, &L_INT, 0);
        scatterv_case(t, root, PAT_UNEVEN, &L_INT, &L_INT, JUNK);
        scatterv_case(t, root, PAT_ONE, &L_INT, &L_INT, 0);
        scatterv_case(t, root, PAT_ZERO, &L_INT, &L_INT, 0);
        scatterv_case(t, root, PAT_UNEVEN, &L_VEC, &L_INT, 0);
        scatterv_case(t, root, PAT_UNEVEN, &L_VEC, &L_VEC, 0);
        scatterv_case(t, root, PAT_UNEVEN, &L_INT, &L_INT, IN_PLACE);
        scatterv_case(t, root, PAT_ONE, &L_VEC, &L_VEC, IN_PLACE | JUNK);
    }
    scatterv_case(t, 0, PAT_LARGE, &L_INT, &L_INT, 0);
}

/* ==================================================================================== */
/* Allgather / Allgatherv                                                               */

/* Every rank sends sc elements of ls and receives rc elements of lr from each rank.
 * IN_PLACE: sendbuf MPI_IN_PLACE, own block already in recvbuf (sendcount/sendtype are
 * ignored; JUNK passes them as 0 / MPI_DATATYPE_NULL). */
static void allgather_case(T *t, const Layout *ls, int sc, const Layout *lr, int rc, int flags)
{
    char what_[256];
    int seed = next_seed(t), me = t->me, n = t->n, junk = flags & JUNK, inp = flags & IN_PLACE;
    if ((flags & ODD_VEC) && me % 2) {
        ls = &L_VEC;
        sc /= 6;
    }
    size_t m = (size_t)sc * ls->ints, slen = lay_len(ls, sc), len = lay_len(lr, (size_t)rc * n);
    int *sbuf = ints_new(slen, SENTINEL), *ssave = ints_new(slen, SENTINEL);
    int *rbuf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
    for (size_t k = 0; k < m; k++)
        sbuf[lay_at(ls, k)] = ssave[lay_at(ls, k)] = VAL(seed, me, k);
    for (int r = 0; r < n; r++)
        for (size_t k = 0; k < m; k++)
            want[lay_at(lr, r * m + k)] = VAL(seed, r, k);
    if (inp)
        for (size_t k = 0; k < m; k++)
            rbuf[lay_at(lr, me * m + k)] = VAL(seed, me, k);
    CHECK_OK(EP_Allgather(inp ? MPI_IN_PLACE : sbuf, inp && junk ? 0 : sc, inp && junk ? MPI_DATATYPE_NULL : ls->type,
                          rbuf, rc, lr->type, t->c));
    WHAT("EP_Allgather %d x %s -> %d x %s%s", sc, ls->name, rc, lr->name, inp ? ", in place" : "");
    expect_ints(t, what_, rbuf, want, len);
    strcat(what_, ": send buffer changed");
    expect_ints(t, what_, sbuf, ssave, slen);
    free(sbuf);
    free(ssave);
    free(rbuf);
    free(want);
}

/* Rank r contributes counts[r] elements of lr (sent as elements of ls), placed at
 * displs[r] at every rank. IN_PLACE: own block already at displs[me]. */
static void allgatherv_case(T *t, int pat, const Layout *ls, const Layout *lr, int flags)
{
    char what_[300];
    int seed = next_seed(t), me = t->me, n = t->n, inp = flags & IN_PLACE, junk = flags & JUNK;
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    size_t span = v_pattern(pat, n, counts, displs), len = lay_len(lr, span);
    size_t m = (size_t)counts[me] * lr->ints;
    int sc = (int)(m / ls->ints);
    int *sbuf = ints_new(lay_len(ls, sc), SENTINEL);
    int *rbuf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
    for (size_t k = 0; k < m; k++)
        sbuf[lay_at(ls, k)] = VAL(seed, me, k);
    for (int r = 0; r < n; r++)
        for (size_t k = 0; k < (size_t)counts[r] * lr->ints; k++)
            want[lay_at(lr, (size_t)displs[r] * lr->ints + k)] = VAL(seed, r, k);
    if (inp)
        for (size_t k = 0; k < m; k++)
            rbuf[lay_at(lr, (size_t)displs[me] * lr->ints + k)] = VAL(seed, me, k);
    CHECK_OK(EP_Allgatherv(inp ? MPI_IN_PLACE : sbuf, inp && junk ? 0 : sc, inp && junk ? MPI_DATATYPE_NULL : ls->type,
                           rbuf, counts, displs, lr->type, t->c));
    expect_ints(t, WHAT("EP_Allgatherv %s, send %s, recv %s%s", pat_name[pat], ls->name, lr->name, inp ? ", in place" : ""),
                rbuf, want, len);
    free(sbuf);
    free(rbuf);
    free(want);
    free(counts);
    free(displs);
}

static void t_allgather(T *t)
{
    stage(t, "EP_Allgather");
    allgather_case(t, &L_INT, 0, &L_INT, 0, 0);
    allgather_case(t, &L_INT, 1, &L_INT, 1, 0);
    allgather_case(t, &L_INT, 5, &L_INT, 5, 0);
    allgather_case(t, &L_INT, 12, &L_VEC, 2, 0);
    allgather_case(t, &L_VEC, 2, &L_INT, 12, 0);
    allgather_case(t, &L_VEC, 1, &L_VEC, 1, 0);
    allgather_case(t, &L_INT, 5, &L_INT, 5, IN_PLACE);
    allgather_case(t, &L_VEC, 2, &L_VEC, 2, IN_PLACE | JUNK);
    allgather_case(t, &L_INT, LARGE, &L_INT, LARGE, 0);
    /* Above the inline exchange, contiguous on some endpoints of a process, vectors on others;
     * then received as vectors. */
    allgather_case(t, &L_INT, 300, &L_INT, 300, ODD_VEC);
    allgather_case(t, &L_INT, 300, &L_VEC, 50, 0);
    /* Blocks of 513 to 1024 bytes, which the endpoints of one process stage. */
    allgather_case(t, &L_INT, 200, &L_INT, 200, 0);
    allgather_case(t, &L_INT, 252, &L_INT, 252, ODD_VEC);
    allgather_case(t, &L_INT, 150, &L_VEC, 25, 0);
    allgather_case(t, &L_VEC, 30, &L_VEC, 30, IN_PLACE | JUNK);
    /* Blocks of 8 KiB and more, which inside one process their owners copy into every
     * receive buffer: contiguous, in place, into vectors, and with vectors sent on odd
     * ranks (each reader then copies its own, or the leader packs). */
    allgather_case(t, &L_INT, 2048, &L_INT, 2048, 0);
    allgather_case(t, &L_INT, 4096, &L_INT, 4096, IN_PLACE);
    allgather_case(t, &L_INT, 2400, &L_VEC, 400, 0);
    allgather_case(t, &L_INT, 2400, &L_INT, 2400, ODD_VEC);
    stage(t, "EP_Allgatherv");
    allgatherv_case(t, PAT_UNEVEN, &L_INT, &L_INT, 0);
    allgatherv_case(t, PAT_ONE, &L_INT, &L_INT, 0);
    allgatherv_case(t, PAT_ZERO, &L_INT, &L_INT, 0);
    allgatherv_case(t, PAT_UNEVEN, &L_INT, &L_VEC, 0);
    allgatherv_case(t, PAT_UNEVEN, &L_VEC, &L_VEC, 0);
    allgatherv_case(t, PAT_UNEVEN, &L_INT, &L_INT, IN_PLACE);
    allgatherv_case(t, PAT_ONE, &L_VEC, &L_VEC, IN_PLACE | JUNK);
    allgatherv_case(t, PAT_LARGE, &L_INT, &L_INT, 0);
}

/* ==================================================================================== */
/* Alltoall / Alltoallv                                                                 */

/* Rank s sends to rank d the block of data ints [d*m, (d+1)*m) of its send buffer, with
 * values VAL(seed, s, d*m + k): a block delivered to the wrong rank or from the wrong rank
 * shows in the decoded value. IN_PLACE: the send data sits in recvbuf (same layout). */
static void alltoall_case(T *t, const Layout *ls, int sc, const Layout *lr, int rc, int flags)
{
    char what_[256];
    int seed = next_seed(t), me = t->me, n = t->n, inp = flags & IN_PLACE, junk = flags & JUNK;
    if ((flags & ODD_VEC) && me % 2) {
        ls = &L_VEC;
        sc /= 6;
    }
    size_t m = (size_t)sc * ls->ints, slen = lay_len(ls, (size_t)sc * n), len = lay_len(lr, (size_t)rc * n);
    int *sbuf = ints_new(slen, SENTINEL), *ssave = ints_new(slen, SENTINEL);
    int *rbuf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
    for (int d = 0; d < n; d++)
        for (size_t k = 0; k < m; k++) {
            sbuf[lay_at(ls, d * m + k)] = ssave[lay_at(ls, d * m + k)] = VAL(seed, me, d * m + k);
            if (inp)
                rbuf[lay_at(lr, d * m + k)] = VAL(seed, me, d * m + k);
        }
    for (int s = 0; s < n; s++)
        for (size_t k = 0; k < m; k++)
            want[lay_at(lr, s * m + k)] = VAL(seed, s, me * m + k);
    CHECK_OK(EP_Alltoall(inp ? MPI_IN_PLACE : sbuf, inp && junk ? 0 : sc, inp && junk ? MPI_DATATYPE_NULL : ls->type,
                         rbuf, rc, lr->type, t->c));
    WHAT("EP_Alltoall %d x %s -> %d x %s%s", sc, ls->name, rc, lr->name, inp ? ", in place" : "");
    expect_ints(t, what_, rbuf, want, len);
    strcat(what_, ": send buffer changed");
    expect_ints(t, what_, sbuf, ssave, slen);
    free(sbuf);
    free(ssave);
    free(rbuf);
    free(want);
}

/* Elements (of ls) rank s sends to rank d. ASYM has zeros and differs from a2a(d, s);
 * SYM is symmetric, as MPI_IN_PLACE requires; LARGE moves about 1 MiB per rank. */
enum { A2A_ASYM, A2A_SYM, A2A_LARGE };
static int a2a_count(int pat, int n, int s, int d)
{
    switch (pat) {
    case A2A_ASYM:
        return (s + 2 * d + 1) % 4;
    case A2A_SYM:
        return (s + d) % 3;
    default:
        return (s + d) % 2 == 0 ? 2 * LARGE / n : 0;
    }
}

/* Send blocks at sdispls in reverse destination order with gaps of 1; receive blocks at
 * rdispls in odd-ranks-first order with gaps of 2. Values VAL(seed, s, k + 7919*d): a block
 * of the right source for the wrong destination does not match. */
static void alltoallv_case(T *t, int pat, const Layout *ls, const Layout *lr, int flags)
{
    char what_[300];
    int seed = next_seed(t), me = t->me, n = t->n, inp = flags & IN_PLACE, junk = flags & JUNK;
    int ratio = ls->ints / lr->ints; /* lr elements per ls element: 1 or 6 */
    int *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int));
    int *rc = malloc(n * sizeof(int)), *rd = malloc(n * sizeof(int)), *order = malloc(n * sizeof(int));
    size_t spos = 1, rpos = 2;
    for (int i = 0; i < n; i++) {
        int d = n - 1 - i;
        sc[d] = a2a_count(pat, n, me, d);
        sd[d] = (int)spos;
        spos += sc[d] + 1;
    }
    odd_first(n, order);
    for (int i = 0; i < n; i++) {
        int s = order[i];
        rc[s] = a2a_count(pat, n, s, me) * ratio;
        rd[s] = (int)rpos;
        rpos += rc[s] + 2;
    }
    size_t slen = lay_len(ls, spos), len = lay_len(lr, rpos);
    int *sbuf = ints_new(slen, SENTINEL), *rbuf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
    for (int d = 0; d < n; d++)
        for (size_t k = 0; k < (size_t)sc[d] * ls->ints; k++)
            sbuf[lay_at(ls, (size_t)sd[d] * ls->ints + k)] = VAL(seed, me, k + 7919u * d);
    for (int s = 0; s < n; s++)
        for (size_t k = 0; k < (size_t)rc[s] * lr->ints; k++) {
            want[lay_at(lr, (size_t)rd[s] * lr->ints + k)] = VAL(seed, s, k + 7919u * me);
            /* In place, what goes to s is what comes from s (symmetric counts). */
            if (inp)
                rbuf[lay_at(lr, (size_t)rd[s] * lr->ints + k)] = VAL(seed, me, k + 7919u * s);
        }
    if (inp)
        CHECK_OK(EP_Alltoallv(MPI_IN_PLACE, junk ? NULL : sc, junk ? NULL : sd, junk ? MPI_DATATYPE_NULL : ls->type,
                              rbuf, rc, rd, lr->type, t->c));
    else
        CHECK_OK(EP_Alltoallv(sbuf, sc, sd, ls->type, rbuf, rc, rd, lr->type, t->c));
    expect_ints(t, WHAT("EP_Alltoallv %s counts, send %s, recv %s%s", pat == A2A_ASYM ? "asymmetric" : pat == A2A_SYM ? "symmetric" : "large",
                        ls->name, lr->name, inp ? ", in place" : ""),
                rbuf, want, len);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(order);
    free(sbuf);
    free(rbuf);
    free(want);
}

static void t_alltoall(T *t)
{
    stage(t, "EP_Alltoall");
    alltoall_case(t, &L_INT, 0, &L_INT, 0, 0);
    alltoall_case(t, &L_INT, 1, &L_INT, 1, 0);
    alltoall_case(t, &L_INT, 5, &L_INT, 5, 0);
    alltoall_case(t, &L_VEC, 2, &L_INT, 12, 0);
    alltoall_case(t, &L_INT, 12, &L_VEC, 2, 0);
    alltoall_case(t, &L_VEC, 1, &L_VEC, 1, 0);
    alltoall_case(t, &L_INT, 5, &L_INT, 5, IN_PLACE);
    alltoall_case(t, &L_VEC, 2, &L_VEC, 2, IN_PLACE | JUNK);
    alltoall_case(t, &L_INT, LARGE / t->n + 1, &L_INT, LARGE / t->n + 1, 0);
    /* Above the inline exchange, as for the allgather. */
    alltoall_case(t, &L_INT, 300, &L_INT, 300, ODD_VEC);
    alltoall_case(t, &L_INT, 300, &L_VEC, 50, 0);
    /* 513 to 1536 bytes of blocks per endpoint, which the endpoints of one process stage. */
    alltoall_case(t, &L_INT, 384 / t->n, &L_INT, 384 / t->n, 0);
    alltoall_case(t, &L_INT, 6 * (32 / t->n + 1), &L_INT, 6 * (32 / t->n + 1), ODD_VEC);
    alltoall_case(t, &L_INT, 6 * (64 / t->n), &L_VEC, 64 / t->n, 0);
    alltoall_case(t, &L_INT, 384 / t->n, &L_INT, 384 / t->n, IN_PLACE);
    alltoall_case(t, &L_VEC, 64 / t->n, &L_VEC, 64 / t->n, IN_PLACE | JUNK);
    stage(t, "EP_Alltoallv");
    alltoallv_case(t, A2A_ASYM, &L_INT, &L_INT, 0);
    alltoallv_case(t, A2A_ASYM, &L_VEC, &L_INT, 0);
    alltoallv_case(t, A2A_ASYM, &L_VEC, &L_VEC, 0);
    alltoallv_case(t, A2A_SYM, &L_INT, &L_INT, 0);
    alltoallv_case(t, A2A_SYM, &L_INT, &L_INT, IN_PLACE);
    alltoallv_case(t, A2A_SYM, &L_VEC, &L_VEC, IN_PLACE | JUNK);
    alltoallv_case(t, A2A_LARGE, &L_INT, &L_INT, 0);
}

/* ==================================================================================== */
/* Reductions: shapes shared by all ops                                                 */

typedef enum { C_REDUCE, C_ALLREDUCE, C_SCAN, C_EXSCAN, C_RS, C_RSB } Coll;
static const char *coll_name[] = {"EP_Reduce", "EP_Allreduce", "EP_Scan", "EP_Exscan", "EP_Reduce_scatter",
                                  "EP_Reduce_scatter_block"};

/* Input and output shape of a reduction at rank me: nin input elements; the nout result
 * elements are elements [base, base + nout) of the combined vector, combining ranks
 * [0, hi) (hi = n, or me + 1 for Scan, me for Exscan). rc: Reduce_scatter counts. */
typedef struct {
    size_t nin, nout, base;
    int hi;
    int check; /* this rank has a defined result */
} RShape;

static RShape rshape(Coll coll, int n, int me, int count, int root, const int *rc)
{
    RShape s = {(size_t)count, (size_t)count, 0, n, 1};
    if (coll == C_REDUCE)
        s.check = me == root;
    else if (coll == C_SCAN)
        s.hi = me + 1;
    else if (coll == C_EXSCAN) {
        s.hi = me;
        s.check = me > 0; /* rank 0's recvbuf is undefined after MPI_Exscan */
    } else if (coll == C_RSB) {
        s.nin = (size_t)count * n;
        s.base = (size_t)count * me;
    } else if (coll == C_RS) {
        s.nin = 0;
        for (int r = 0; r < n; r++) {
            if (r == me)
                s.base = s.nin;
            s.nin += rc[r];
        }
        s.nout = rc[me];
    }
    return s;
}

/* Calls the collective. in_place: the input is in recvbuf (the root's only, for Reduce). */
static int call_reduction(Coll coll, const void *sbuf, void *rbuf, int count, const int *rc, MPI_Datatype type,
                          MPI_Op op, int root, int in_place, EP_Comm c)
{
    const void *s = in_place ? MPI_IN_PLACE : sbuf;
    switch (coll) {
    case C_REDUCE:
        return EP_Reduce(s, rbuf, count, type, op, root, c);
    case C_ALLREDUCE:
        return EP_Allreduce(s, rbuf, count, type, op, c);
    case C_SCAN:
        return EP_Scan(s, rbuf, count, type, op, c);
    case C_EXSCAN:
        return EP_Exscan(s, rbuf, count, type, op, c);
    case C_RS:
        return EP_Reduce_scatter(s, rbuf, rc, type, op, c);
    default:
        return EP_Reduce_scatter_block(s, rbuf, count, type, op, c);
    }
}

/* Describes a reduction case: "EP_Reduce MPI_SUM on MPI_INT, count 4, root 2, in place". */
static void red_what(char *buf, size_t len, Coll coll, const char *op, int count, int root, int pat, int inp)
{
    int k = snprintf(buf, len, "%s %s", coll_name[coll], op);
    if (coll == C_RS)
        k += snprintf(buf + k, len - k, ", recvcounts: %s", pat_name[pat]);
    else
        k += snprintf(buf + k, len - k, ", count %d", count);
    if (coll == C_REDUCE)
        k += snprintf(buf + k, len - k, ", root %d", root);
    if (inp)
        snprintf(buf + k, len - k, ", in place");
}

/* ==================================================================================== */
/* Predefined ops on predefined types                                                   */

typedef enum { K_INT, K_LL, K_DOUBLE, K_UCHAR, K_SHORT } Kind;
static const char *kind_name[] = {"MPI_INT", "MPI_LONG_LONG", "MPI_DOUBLE", "MPI_UNSIGNED_CHAR", "MPI_SHORT"};
static const size_t kind_size[] = {sizeof(int), sizeof(long long), sizeof(double), 1, sizeof(short)};

static MPI_Datatype kind_type(Kind k)
{
    switch (k) {
    case K_INT:
        return MPI_INT;
    case K_LL:
        return MPI_LONG_LONG;
    case K_DOUBLE:
        return MPI_DOUBLE;
    case K_UCHAR:
        return MPI_UNSIGNED_CHAR;
    default:
        return MPI_SHORT;
    }
}

static void kstore(Kind k, void *b, size_t i, long long v)
{
    switch (k) {
    case K_INT:
        ((int *)b)[i] = (int)v;
        break;
    case K_LL:
        ((long long *)b)[i] = v;
        break;
    case K_DOUBLE:
        ((double *)b)[i] = (double)v;
        break;
    case K_UCHAR:
        ((unsigned char *)b)[i] = (unsigned char)v;
        break;
    default:
        ((short *)b)[i] = (short)v;
    }
}

static long long kload(Kind k, const void *b, size_t i)
{
    switch (k) {
    case K_INT:
        return ((const int *)b)[i];
    case K_LL:
        return ((const long long *)b)[i];
    case K_DOUBLE:
        return (long long)((const double *)b)[i];
    case K_UCHAR:
        return ((const unsigned char *)b)[i];
    default:
        return ((const short *)b)[i];
    }
}

typedef enum { O_SUM, O_PROD, O_MAX, O_MIN, O_LAND, O_LOR, O_BAND, O_BOR, O_BXOR } OpId;
static const char *op_name[] = {"MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN", "MPI_LAND",
                                "MPI_LOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR"};

static MPI_Op mpi_op(OpId o)
{
    switch (o) {
    case O_SUM:
        return MPI_SUM;
    case O_PROD:
        return MPI_PROD;
    case O_MAX:
        return MPI_MAX;
    case O_MIN:
        return MPI_MIN;
    case O_LAND:
        return MPI_LAND;
    case O_LOR:
        return MPI_LOR;
    case O_BAND:
        return MPI_BAND;
    case O_BOR:
        return MPI_BOR;
    default:
        return MPI_BXOR;
    }
}

/* Rank r's input element i: small values (no overflow in any type), negative where the type
 * allows, large for long long (bits above 32 must survive), 0/1 for logical ops with both
 * outcomes present (element i has its only 0 (LAND) or only 1 (LOR) at rank i mod (n+1)). */
static long long gen(OpId o, Kind k, int seed, int n, int r, size_t i)
{
    long long v;
    int is_signed = k != K_UCHAR;
    switch (o) {
    case O_SUM:
        v = (r * 7 + (long long)i * 3 + seed) % 40;
        if (k == K_LL)
            v += (long long)(r + 1) << 40;
        else if (is_signed)
            v -= 13;
        return v;
    case O_PROD:
        v = 1 + ((r + i) % 3 == 0);
        return is_signed && (r + i) % 5 == 1 ? -v : v;
    case O_MAX:
    case O_MIN:
        v = (r * 5 + (long long)i * 3 + seed) % 11;
        if (is_signed)
            v -= 5;
        if (k == K_LL)
            v *= 1LL << 35;
        return v;
    case O_LAND:
        return r != (int)(i % (n + 1));
    case O_LOR:
        return r == (int)(i % (n + 1));
    default:
        return (r * 37 + (long long)i * 11 + seed * 5 + 3) & 0xff;
    }
}

static long long apply(OpId o, long long a, long long b)
{
    switch (o) {
    case O_SUM:
        return a + b;
    case O_PROD:
        return a * b;
    case O_MAX:
        return a > b ? a : b;
    case O_MIN:
        return a < b ? a : b;
    case O_LAND:
        return a && b;
    case O_LOR:
        return a || b;
    case O_BAND:
        return a & b;
    case O_BOR:
        return a | b;
    default:
        return a ^ b;
    }
}

/* MPI's result for element i combining ranks 0..hi-1. */
static long long fold(OpId o, Kind k, int seed, int n, int hi, size_t i)
{
    long long acc = gen(o, k, seed, n, 0, i);
    for (int r = 1; r < hi; r++)
        acc = apply(o, acc, gen(o, k, seed, n, r, i));
    return acc;
}

#define POISON 0x5a

/* One reduction with a predefined op. Checks the result elements, that the element after
 * the result (the guard) is untouched, and that the send buffer did not change. */
static void predef_case(T *t, Coll coll, OpId o, Kind k, int count, int root, int pat, int flags)
{
    char what_[300];
    int seed = next_seed(t), me = t->me, n = t->n, inp = flags & IN_PLACE;
    int *rc = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    if (coll == C_RS)
        v_pattern(pat, n, rc, displs);
    RShape s = rshape(coll, n, me, count, root, rc);
    size_t es = kind_size[k];
    size_t rlen = (inp ? (s.nin > s.nout ? s.nin : s.nout) : s.nout) + 1;
    unsigned char *sbuf = malloc(s.nin * es + 1), *ssave = malloc(s.nin * es + 1);
    unsigned char *rbuf = malloc(rlen * es), *guard = malloc(es);
    memset(guard, POISON, es);
    memset(rbuf, POISON, rlen * es);
    for (size_t i = 0; i < s.nin; i++)
        kstore(k, sbuf, i, gen(o, k, seed, n, me, i));
    memcpy(ssave, sbuf, s.nin * es);
    int in_recv = inp && (coll != C_REDUCE || me == root);
    if (in_recv)
        memcpy(rbuf, sbuf, s.nin * es);
    char opty[64];
    snprintf(opty, sizeof opty, "%s on %s", op_name[o], kind_name[k]);
    red_what(what_, sizeof what_, coll, opty, count, root, pat, inp);
    int rcode = call_reduction(coll, sbuf, coll == C_REDUCE && me != root ? NULL : rbuf, count, rc, kind_type(k),
                               mpi_op(o), root, in_recv, t->c);
    CHECK_OK(rcode);
    if (s.check) {
        size_t bad = 0, first = 0;
        long long g0 = 0, w0 = 0;
        for (size_t j = 0; j < s.nout; j++) {
            long long want = fold(o, k, seed, n, s.hi, s.base + j), got = kload(k, rbuf, j);
            if (got != want) {
                if (!bad) {
                    first = j;
                    g0 = got;
                    w0 = want;
                }
                bad++;
            }
        }
        CHECK(bad == 0, "%s%s: rank %d of %d: %zu of %zu wrong, first at [%zu]: got %lld, expected %lld", t->where,
              what_, me, n, bad, s.nout, first, g0, w0);
        size_t gi = in_recv ? rlen - 1 : s.nout;
        CHECK(memcmp(rbuf + gi * es, guard, es) == 0, "%s%s: rank %d: element [%zu] after the result was written",
              t->where, what_, me, gi);
    }
    if (!in_recv)
        CHECK(memcmp(sbuf, ssave, s.nin * es) == 0, "%s%s: rank %d: send buffer changed", t->where, what_, me);
    free(sbuf);
    free(ssave);
    free(rbuf);
    free(guard);
    free(rc);
    free(displs);
}

/* Valid (op, type) pairs of MPI 4.1 section 6.9.2, on 1-, 2-, 4- and 8-byte types. */
static const struct {
    OpId o;
    Kind k;
} predef_cases[] = {
    {O_SUM, K_INT},   {O_SUM, K_LL},     {O_SUM, K_DOUBLE}, {O_SUM, K_UCHAR}, {O_SUM, K_SHORT},
    {O_PROD, K_INT},  {O_PROD, K_LL},    {O_PROD, K_DOUBLE}, {O_MAX, K_INT},  {O_MAX, K_DOUBLE},
    {O_MAX, K_UCHAR}, {O_MAX, K_SHORT},  {O_MIN, K_INT},    {O_MIN, K_DOUBLE}, {O_MIN, K_LL},
    {O_LAND, K_INT},  {O_LOR, K_INT},    {O_BAND, K_INT},   {O_BAND, K_UCHAR}, {O_BOR, K_INT},
    {O_BXOR, K_INT},  {O_BXOR, K_UCHAR},
};

static void t_predefined_ops(T *t)
{
    int roots[3], nr = pick_roots(t->n, roots);
    int ncases = (int)(sizeof predef_cases / sizeof predef_cases[0]);
    stage(t, "predefined ops");
    for (int c = 0; c < ncases; c++) {
        OpId o = predef_cases[c].o;
        Kind k = predef_cases[c].k;
        predef_case(t, C_ALLREDUCE, o, k, 5, 0, 0, 0);
        predef_case(t, C_ALLREDUCE, o, k, 3, 0, 0, IN_PLACE);
        predef_case(t, C_REDUCE, o, k, 4, roots[c % nr], 0, c % 2 ? IN_PLACE : 0);
        /* The other reductions with every other (op, type) pair, to keep the run short. */
        if (c % 2 == 0) {
            predef_case(t, C_SCAN, o, k, 3, 0, 0, c % 4 == 0 ? IN_PLACE : 0);
            predef_case(t, C_EXSCAN, o, k, 3, 0, 0, c % 4 == 2 ? IN_PLACE : 0);
        } else {
            predef_case(t, C_RSB, o, k, 2, 0, 0, c % 4 == 1 ? IN_PLACE : 0);
            predef_case(t, C_RS, o, k, 0, 0, PAT_UNEVEN, c % 4 == 3 ? IN_PLACE : 0);
        }
    }
    stage(t, "predefined ops, count 0 and large");
    /* Count 0 everywhere, and NULL buffers where nothing is transferred. */
    predef_case(t, C_ALLREDUCE, O_SUM, K_INT, 0, 0, 0, 0);
    predef_case(t, C_REDUCE, O_MAX, K_INT, 0, t->n - 1, 0, 0);
    predef_case(t, C_SCAN, O_SUM, K_INT, 0, 0, 0, 0);
    predef_case(t, C_EXSCAN, O_SUM, K_INT, 0, 0, 0, 0);
    predef_case(t, C_RSB, O_SUM, K_INT, 0, 0, 0, 0);
    predef_case(t, C_RS, O_SUM, K_INT, 0, 0, PAT_ZERO, 0);
    CHECK_OK(EP_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, t->c));
    /* Large (1 MiB inputs). The reduces go to roots that are not on the first process:
     * MPICH 4.0.2's MPI_Reduce with MPI_IN_PLACE at a root other than 0 crashes (address
     * 0xffffffffffffffff) from 4 KiB on, so an implementation must not hand MPI_IN_PLACE
     * (the user's or its own) to the host MPI_Reduce there. */
    predef_case(t, C_REDUCE, O_SUM, K_INT, LARGE, t->n - 1, 0, 0);
    predef_case(t, C_REDUCE, O_MAX, K_DOUBLE, LARGE / 2, t->n / 2, 0, IN_PLACE);
    predef_case(t, C_ALLREDUCE, O_SUM, K_DOUBLE, LARGE / 2, 0, 0, 0);
    /* Between the inline exchange and the shared fold (1 to 48 KiB in all). */
    predef_case(t, C_ALLREDUCE, O_SUM, K_INT, 300, 0, 0, 0);
    predef_case(t, C_ALLREDUCE, O_MAX, K_DOUBLE, 1500, 0, 0, 0);
    predef_case(t, C_ALLREDUCE, O_SUM, K_LL, 700, 0, 0, IN_PLACE);
    predef_case(t, C_ALLREDUCE, O_BXOR, K_UCHAR, 4 * LARGE, 0, 0, IN_PLACE);
    predef_case(t, C_SCAN, O_SUM, K_INT, LARGE, 0, 0, 0);
    predef_case(t, C_EXSCAN, O_MIN, K_INT, LARGE, 0, 0, IN_PLACE);
    predef_case(t, C_RSB, O_SUM, K_INT, LARGE / t->n + 1, 0, 0, 0);
    predef_case(t, C_RS, O_SUM, K_INT, 0, 0, PAT_LARGE, 0);
}

/* MAXLOC / MINLOC: ties on the value are broken by the smaller index (MPI 4.1 section
 * 6.9.4); indices are not in rank order, so "first rank wins" is wrong. */
typedef struct {
    int v, i;
} IntInt;
typedef struct {
    double v;
    int i;
} DblInt;

static int loc_v(int seed, int r, int k) { return ((r / 2) + k + seed) % 3; } /* pairs of ranks tie */
static int loc_i(int r) { return (r * 37 + 11) % 16 + 16 * (r / 16); }          /* 11 0 5 10 15 4 ... */

static IntInt loc_fold(int is_max, int seed, int hi, int k)
{
    IntInt acc = {loc_v(seed, 0, k), loc_i(0)};
    for (int r = 1; r < hi; r++) {
        IntInt x = {loc_v(seed, r, k), loc_i(r)};
        if ((is_max ? x.v > acc.v : x.v < acc.v) || (x.v == acc.v && x.i < acc.i))
            acc = x;
    }
    return acc;
}

static void loc_case(T *t, Coll coll, int is_max, int dbl, int count, int root, int flags)
{
    char what_[256];
    int seed = next_seed(t), me = t->me, n = t->n, inp = flags & IN_PLACE;
    RShape s = rshape(coll, n, me, count, root, NULL);
    IntInt *si = calloc(count + 1, sizeof(IntInt)), *ri = calloc(count + 1, sizeof(IntInt));
    DblInt *sd = calloc(count + 1, sizeof(DblInt)), *rd = calloc(count + 1, sizeof(DblInt));
    for (int k = 0; k <= count; k++) {
        si[k] = (IntInt){loc_v(seed, me, k), loc_i(me)};
        sd[k] = (DblInt){loc_v(seed, me, k) + 0.5, loc_i(me)};
        ri[k] = (IntInt){-7, -7};
        rd[k] = (DblInt){-7, -7};
    }
    int in_recv = inp && (coll != C_REDUCE || me == root);
    if (in_recv) {
        memcpy(ri, si, count * sizeof(IntInt));
        memcpy(rd, sd, count * sizeof(DblInt));
    }
    void *rbuf = dbl ? (void *)rd : (void *)ri;
    CHECK_OK(call_reduction(coll, dbl ? (void *)sd : (void *)si, coll == C_REDUCE && me != root ? NULL : rbuf, count,
                            NULL, dbl ? MPI_DOUBLE_INT : MPI_2INT, is_max ? MPI_MAXLOC : MPI_MINLOC, root, in_recv, t->c));
    WHAT("%s %s on %s, count %d%s", coll_name[coll], is_max ? "MPI_MAXLOC" : "MPI_MINLOC", dbl ? "MPI_DOUBLE_INT" : "MPI_2INT",
         count, inp ? ", in place" : "");
    if (s.check) {
        for (int k = 0; k <= count; k++) {
            IntInt w = k < count ? loc_fold(is_max, seed, s.hi, k) : (IntInt){-7, -7};
            double gv = dbl ? rd[k].v : ri[k].v, wv = k < count ? w.v + (dbl ? 0.5 : 0) : -7;
            int gi = dbl ? rd[k].i : ri[k].i;
            if (gv != wv || gi != w.i) {
                CHECK(0, "%s%s: rank %d: [%d] got (%g, %d), expected (%g, %d)%s", t->where, what_, me, k, gv, gi, wv, w.i,
                      k == count ? " (guard after the result)" : "");
                break;
            }
        }
    }
    free(si);
    free(ri);
    free(sd);
    free(rd);
}

static void t_loc_ops(T *t)
{
    stage(t, "MAXLOC/MINLOC");
    for (int dbl = 0; dbl < 2; dbl++)
        for (int is_max = 0; is_max < 2; is_max++) {
            loc_case(t, C_ALLREDUCE, is_max, dbl, 6, 0, 0);
            loc_case(t, C_ALLREDUCE, is_max, dbl, 6, 0, IN_PLACE);
            loc_case(t, C_REDUCE, is_max, dbl, 6, t->n / 2, dbl ? IN_PLACE : 0);
            loc_case(t, C_SCAN, is_max, dbl, 4, 0, 0);
            loc_case(t, C_EXSCAN, is_max, dbl, 4, 0, 0);
        }
}

/* ==================================================================================== */
/* The non-commutative op                                                               */

/* One reduction with the concatenation op: the result spells the order in which the
 * ranks' contributions were combined, which MPI fixes to rank order. */
static void cat_case(T *t, Coll coll, int count, int root, int pat, int flags)
{
    char what_[300];
    int seed = next_seed(t), me = t->me, n = t->n, inp = flags & IN_PLACE;
    int *rc = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    if (coll == C_RS)
        v_pattern(pat, n, rc, displs);
    RShape s = rshape(coll, n, me, count, root, rc);
    size_t rlen = (inp ? (s.nin > s.nout ? s.nin : s.nout) : s.nout) + 1;
    Cat *sbuf = malloc((s.nin + 1) * sizeof(Cat)), *rbuf = malloc(rlen * sizeof(Cat));
    Cat *want = malloc((s.nout + 1) * sizeof(Cat));
    for (size_t i = 0; i < s.nin; i++)
        sbuf[i] = cat_val(seed, me, (int)i);
    for (size_t i = 0; i < rlen; i++)
        rbuf[i] = (Cat){-1, -1};
    int in_recv = inp && (coll != C_REDUCE || me == root);
    if (in_recv)
        memcpy(rbuf, sbuf, s.nin * sizeof(Cat));
    CHECK_OK(call_reduction(coll, sbuf, coll == C_REDUCE && me != root ? NULL : rbuf, count, rc, MPI_2INT, CAT_OP, root,
                            in_recv, t->c));
    red_what(what_, sizeof what_, coll, "with the non-commutative op on MPI_2INT", count, root, pat, inp);
    if (s.check) {
        for (size_t j = 0; j < s.nout; j++)
            want[j] = cat_fold_range(seed, 0, s.hi, (int)(s.base + j));
        want[s.nout] = (Cat){-1, -1};
        /* The guard after the result is compared too (not for in-place Reduce_scatter,
         * where recvbuf holds the whole input beyond the result). */
        size_t cmp = s.nout + (in_recv && (coll == C_RS || coll == C_RSB) ? 0 : 1);
        expect_cats(t, what_, rbuf, want, cmp);
    }
    free(sbuf);
    free(rbuf);
    free(want);
    free(rc);
    free(displs);
}

static void t_noncommutative(T *t)
{
    int roots[3], nr = pick_roots(t->n, roots);
    stage(t, "non-commutative op");
    for (int i = 0; i < nr; i++) {
        cat_case(t, C_REDUCE, 0, roots[i], 0, 0);
        cat_case(t, C_REDUCE, 1, roots[i], 0, 0);
        cat_case(t, C_REDUCE, 7, roots[i], 0, 0);
        cat_case(t, C_REDUCE, 7, roots[i], 0, IN_PLACE);
    }
    cat_case(t, C_ALLREDUCE, 0, 0, 0, 0);
    cat_case(t, C_ALLREDUCE, 1, 0, 0, 0);
    cat_case(t, C_ALLREDUCE, 7, 0, 0, 0);
    cat_case(t, C_ALLREDUCE, 7, 0, 0, IN_PLACE);
    /* Above the inline exchange and below the leader's shared fold, where the endpoints of a
     * process may each fold everyone's inputs: the order must still be the ranks'. */
    cat_case(t, C_ALLREDUCE, 300, 0, 0, 0);
    cat_case(t, C_ALLREDUCE, 1500, 0, 0, 0);
    cat_case(t, C_ALLREDUCE, 300, 0, 0, IN_PLACE);
    cat_case(t, C_SCAN, 0, 0, 0, 0);
    cat_case(t, C_SCAN, 1, 0, 0, 0);
    cat_case(t, C_SCAN, 7, 0, 0, 0);
    cat_case(t, C_SCAN, 7, 0, 0, IN_PLACE);
    cat_case(t, C_EXSCAN, 1, 0, 0, 0);
    cat_case(t, C_EXSCAN, 7, 0, 0, 0);
    cat_case(t, C_EXSCAN, 7, 0, 0, IN_PLACE);
    cat_case(t, C_RS, 0, 0, PAT_UNEVEN, 0);
    cat_case(t, C_RS, 0, 0, PAT_UNEVEN, IN_PLACE);
    cat_case(t, C_RS, 0, 0, PAT_ONE, 0);
    cat_case(t, C_RS, 0, 0, PAT_ZERO, 0);
    cat_case(t, C_RSB, 0, 0, 0, 0);
    cat_case(t, C_RSB, 1, 0, 0, 0);
    cat_case(t, C_RSB, 3, 0, 0, 0);
    cat_case(t, C_RSB, 3, 0, 0, IN_PLACE);
    /* Large: 1 MiB of pairs. */
    cat_case(t, C_ALLREDUCE, LARGE / 2, 0, 0, 0);
    cat_case(t, C_REDUCE, LARGE / 2, t->n / 2, 0, 0);
}

/* ==================================================================================== */
/* A user op on the strided vector type                                                 */

/* Sum of the data ints of L_VEC elements: MPI hands the op buffers laid out by the
 * datatype (gaps included), so this walks the type map. An implementation that packs the
 * data and then calls the op (or MPI_Reduce_local) with the vector type reads the wrong
 * ints. */
static int vsum_wrong_type = 0;
static MPI_Op VSUM_OP;

static void vsum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != L_VEC.type) {
        _Pragma("omp atomic") vsum_wrong_type++;
        return;
    }
    const int *a = in;
    int *b = inout;
    for (int e = 0; e < *len; e++)
        for (int j = 0; j < L_VEC.ints; j++)
            b[e * L_VEC.extent + L_VEC.offs[j]] += a[e * L_VEC.extent + L_VEC.offs[j]];
}

static int vsum_val(int seed, int r, size_t k) { return (int)((r * 3 + k + seed) % 100) - 20; }

static void vsum_case(T *t, Coll coll, int count, int root, int flags)
{
    char what_[256];
    int seed = next_seed(t), me = t->me, n = t->n, inp = flags & IN_PLACE;
    RShape s = rshape(coll, n, me, count, root, NULL);
    size_t m = (size_t)count * L_VEC.ints, len = lay_len(&L_VEC, count);
    int *sbuf = ints_new(len, 77777), *rbuf = ints_new(len, SENTINEL), *want = ints_new(len, SENTINEL);
    for (size_t k = 0; k < m; k++) {
        sbuf[lay_at(&L_VEC, k)] = vsum_val(seed, me, k);
        int sum = 0;
        for (int r = 0; r < s.hi; r++)
            sum += vsum_val(seed, r, k);
        want[lay_at(&L_VEC, k)] = sum;
    }
    int in_recv = inp && (coll != C_REDUCE || me == root);
    if (in_recv)
        for (size_t k = 0; k < m; k++)
            rbuf[lay_at(&L_VEC, k)] = vsum_val(seed, me, k);
    CHECK_OK(call_reduction(coll, sbuf, coll == C_REDUCE && me != root ? NULL : rbuf, count, NULL, L_VEC.type, VSUM_OP,
                            root, in_recv, t->c));
    if (s.check)
        expect_ints(t, WHAT("%s, user sum op on %d x %s%s", coll_name[coll], count, L_VEC.name, inp ? ", in place" : ""),
                    rbuf, want, len);
    free(sbuf);
    free(rbuf);
    free(want);
}

static void t_vector_op(T *t)
{
    stage(t, "user op on a vector type");
    vsum_case(t, C_ALLREDUCE, 1, 0, 0);
    vsum_case(t, C_ALLREDUCE, 3, 0, 0);
    vsum_case(t, C_ALLREDUCE, 3, 0, IN_PLACE);
    vsum_case(t, C_REDUCE, 2, t->n - 1, 0);
    vsum_case(t, C_REDUCE, 2, t->n / 2, IN_PLACE);
    vsum_case(t, C_SCAN, 2, 0, 0);
    vsum_case(t, C_ALLREDUCE, LARGE / 6 + 1, 0, 0);
}

/* ==================================================================================== */
/* A struct datatype                                                                    */

typedef struct {
    double d;
    int i;
    char ch;
} S;
static MPI_Datatype S_TYPE;

static void struct_init(void)
{
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(S, d), offsetof(S, i), offsetof(S, ch)};
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR}, tmp;
    MPI_Type_create_struct(3, bl, disp, types, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(S), &S_TYPE);
    MPI_Type_commit(&S_TYPE);
    MPI_Type_free(&tmp);
}

static S s_val(int seed, int r, int k)
{
    S s;
    memset(&s, 0, sizeof s);
    s.d = r + k * 0.25 + seed * 100;
    s.i = VAL(seed, r, k);
    s.ch = (char)('a' + (r + k) % 26);
    return s;
}

static const S S_POISON = {-1.0, SENTINEL, '#'};

/* Compares the fields (not the padding) of len elements. */
static void expect_structs(const T *t, const char *what, const S *got, const S *want, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (got[i].d != want[i].d || got[i].i != want[i].i || got[i].ch != want[i].ch) {
            CHECK(0, "%s%s: rank %d: [%zu] got {%g, %d, '%c'}, expected {%g, %d, '%c'}", t->where, what, t->me, i,
                  got[i].d, got[i].i, got[i].ch, want[i].d, want[i].i, want[i].ch);
            return;
        }
}

static S *structs_new(size_t len)
{
    S *p = malloc((len ? len : 1) * sizeof(S));
    for (size_t i = 0; i < len; i++)
        p[i] = S_POISON;
    return p;
}

/* Bcast, gather, scatter, allgather and alltoall of struct elements; each receive buffer
 * has a guard element. */
static void t_struct(T *t)
{
    stage(t, "struct datatype");
    int me = t->me, n = t->n, seed;
    const int cnt = 3;
    /* Bcast from the last rank. */
    seed = next_seed(t);
    S *b = structs_new(cnt + 1), *w = structs_new(cnt + 1);
    for (int k = 0; k < cnt; k++)
        w[k] = s_val(seed, n - 1, k);
    if (me == n - 1)
        memcpy(b, w, cnt * sizeof(S));
    CHECK_OK(EP_Bcast(b, cnt, S_TYPE, n - 1, t->c));
    expect_structs(t, "EP_Bcast of a struct type, root last", b, w, cnt + 1);
    free(b);
    free(w);
    /* Gather to the middle rank, in place there. */
    seed = next_seed(t);
    S *mine = structs_new(cnt), *all = structs_new((size_t)cnt * n + 1), *wall = structs_new((size_t)cnt * n + 1);
    for (int k = 0; k < cnt; k++)
        mine[k] = s_val(seed, me, k);
    for (int r = 0; r < n; r++)
        for (int k = 0; k < cnt; k++)
            wall[r * cnt + k] = s_val(seed, r, k);
    if (me == n / 2) {
        memcpy(all + me * cnt, mine, cnt * sizeof(S));
        CHECK_OK(EP_Gather(MPI_IN_PLACE, cnt, S_TYPE, all, cnt, S_TYPE, n / 2, t->c));
        expect_structs(t, "EP_Gather of a struct type, in place at the middle root", all, wall, (size_t)cnt * n + 1);
    } else {
        CHECK_OK(EP_Gather(mine, cnt, S_TYPE, NULL, cnt, S_TYPE, n / 2, t->c));
    }
    /* Scatter from rank 0 (its send buffer is wall of the next seed). */
    seed = next_seed(t);
    for (int r = 0; r < n; r++)
        for (int k = 0; k < cnt; k++)
            wall[r * cnt + k] = s_val(seed, r, k);
    S *one = structs_new(cnt + 1);
    CHECK_OK(EP_Scatter(me == 0 ? wall : NULL, cnt, S_TYPE, one, cnt, S_TYPE, 0, t->c));
    expect_structs(t, "EP_Scatter of a struct type, root 0", one, wall + me * cnt, cnt);
    expect_structs(t, "EP_Scatter of a struct type, guard", one + cnt, &S_POISON, 1);
    free(one);
    /* Allgather, then in place. */
    for (int inp = 0; inp < 2; inp++) {
        seed = next_seed(t);
        for (int k = 0; k < cnt; k++)
            mine[k] = s_val(seed, me, k);
        for (int r = 0; r < n; r++)
            for (int k = 0; k < cnt; k++)
                wall[r * cnt + k] = s_val(seed, r, k);
        for (int i = 0; i < cnt * n + 1; i++)
            all[i] = S_POISON;
        if (inp)
            memcpy(all + me * cnt, mine, cnt * sizeof(S));
        CHECK_OK(EP_Allgather(inp ? MPI_IN_PLACE : (void *)mine, cnt, S_TYPE, all, cnt, S_TYPE, t->c));
        expect_structs(t, inp ? "EP_Allgather of a struct type, in place" : "EP_Allgather of a struct type", all, wall,
                       (size_t)cnt * n + 1);
    }
    /* Alltoall, one element per pair: element for d from s is s_val(seed, s, d). */
    seed = next_seed(t);
    S *sb = structs_new(n), *rb = structs_new(n + 1), *wb = structs_new(n + 1);
    for (int d = 0; d < n; d++)
        sb[d] = s_val(seed, me, d);
    for (int s = 0; s < n; s++)
        wb[s] = s_val(seed, s, me);
    CHECK_OK(EP_Alltoall(sb, 1, S_TYPE, rb, 1, S_TYPE, t->c));
    expect_structs(t, "EP_Alltoall of a struct type", rb, wb, n + 1);
    free(sb);
    free(rb);
    free(wb);
    free(mine);
    free(all);
    free(wall);
}

/* ==================================================================================== */
/* Cross-talk: many collectives in a row on the communicator and a dup                  */

/* A wildcard receive (any source, any tag) is pending on both communicators during ~200
 * collectives alternating between them: collective traffic must neither match it nor mix
 * between the two communicators. Afterwards it must still be pending, then match the one
 * user message sent for it. */
static void t_crosstalk(T *t)
{
    stage(t, "crosstalk");
    EP_Comm d;
    CHECK_OK(EP_Comm_dup(t->c, &d));
    T tc = *t, td = *t;
    tc.where = "crosstalk, original communicator: ";
    td.where = "crosstalk, dup: ";
    td.c = d;
    td.seed = (t->seed + 11) & 31;
    int n = t->n, me = t->me, left = (me - 1 + n) % n, right = (me + 1) % n;
    int inc = -1, ind = -1, flag;
    EP_Request rq[2];
    EP_Status st[2];
    CHECK_OK(EP_Irecv(&inc, 1, MPI_INT, EP_ANY_SOURCE, EP_ANY_TAG, t->c, &rq[0]));
    CHECK_OK(EP_Irecv(&ind, 1, MPI_INT, EP_ANY_SOURCE, EP_ANY_TAG, d, &rq[1]));
    for (int it = 0; it < 16; it++) {
        bcast_case(&tc, it % n, &L_INT, 3, &L_INT, 3);
        cat_case(&td, C_ALLREDUCE, 2, 0, 0, 0);
        gather_case(&tc, (it * 3 + 1) % n, &L_INT, 2, &L_INT, 2, 0);
        allgather_case(&td, &L_INT, 1, &L_INT, 1, 0);
        alltoall_case(&tc, &L_INT, 1, &L_INT, 1, 0);
        CHECK_OK(EP_Barrier(d));
        cat_case(&tc, C_SCAN, 1, 0, 0, 0);
        scatter_case(&td, (it + 2) % n, &L_INT, 2, &L_INT, 2, 0);
        predef_case(&tc, C_RSB, O_SUM, K_INT, 1, 0, 0, 0);
        cat_case(&td, C_EXSCAN, 1, 0, 0, 0);
        cat_case(&tc, C_REDUCE, 2, (it + 1) % n, 0, 0);
        CHECK_OK(EP_Barrier(t->c));
    }
    /* Nobody has sent a user message yet: the receives must still be pending. */
    for (int i = 0; i < 2; i++) {
        flag = -1;
        CHECK_OK(EP_Test(&rq[i], &flag, &st[i]));
        CHECK(flag == 0, "crosstalk: rank %d: the wildcard receive on the %s matched collective traffic (source %d tag %d)",
              me, i ? "dup" : "original", st[i].MPI_SOURCE, st[i].MPI_TAG);
    }
    /* Everyone has tested before anyone sends. */
    CHECK_OK(EP_Barrier(t->c));
    int vc = 1000 + me, vd = 2000 + me;
    CHECK_OK(EP_Send(&vd, 1, MPI_INT, right, 6, d));
    CHECK_OK(EP_Send(&vc, 1, MPI_INT, right, 5, t->c));
    CHECK_OK(EP_Waitall(2, rq, st));
    CHECK(inc == 1000 + left && st[0].MPI_SOURCE == left && st[0].MPI_TAG == 5,
          "crosstalk: rank %d: original got %d from %d tag %d", me, inc, st[0].MPI_SOURCE, st[0].MPI_TAG);
    CHECK(ind == 2000 + left && st[1].MPI_SOURCE == left && st[1].MPI_TAG == 6,
          "crosstalk: rank %d: dup got %d from %d tag %d", me, ind, st[1].MPI_SOURCE, st[1].MPI_TAG);
    t->seed = tc.seed;
    CHECK_OK(EP_Comm_free(&d));
}

/* ==================================================================================== */
/* Nonblocking: EP_Ibarrier, EP_Ibcast                                                  */

/* Ten requests outstanding at once: two Ibarriers, four Ibcasts (1 int from rank 0, 1 MiB
 * from the last rank, 0 ints from a middle rank, 3 strided vectors from a middle rank) and
 * four point-to-point requests to/from the neighbours, posted interleaved. Completed in
 * one of three ways depending on the rank: Waitall; Wait one by one in reverse order;
 * Test round-robin. MPI requires all of these to work whatever the others do. */
static void t_nb_many(T *t)
{
    stage(t, "EP_Ibcast/EP_Ibarrier, many outstanding");
    int n = t->n, me = t->me, left = (me - 1 + n) % n, right = (me + 1) % n, mid = n / 2;
    int sa = next_seed(t), sb = next_seed(t), sc = next_seed(t), sv = next_seed(t);
    size_t vlen = lay_len(&L_VEC, 3);
    int *a = ints_new(2, SENTINEL), *b = ints_new(LARGE + 1, SENTINEL), *z = ints_new(2, SENTINEL);
    int *v = ints_new(vlen, SENTINEL), *vw = ints_new(vlen, SENTINEL);
    for (size_t k = 0; k < 18; k++)
        vw[lay_at(&L_VEC, k)] = VAL(sv, mid, k);
    if (me == 0)
        a[0] = VAL(sa, 0, 0);
    if (me == n - 1)
        for (int k = 0; k < LARGE; k++)
            b[k] = VAL(sb, n - 1, k);
    if (me == mid)
        memcpy(v, vw, vlen * sizeof(int));
    int out1 = VAL(sc, me, 1), out2 = VAL(sc, me, 2), in1 = SENTINEL, in2 = SENTINEL;
    EP_Request rq[10];
    CHECK_OK(EP_Irecv(&in1, 1, MPI_INT, left, 21, t->c, &rq[0]));
    CHECK_OK(EP_Ibcast(a, 1, MPI_INT, 0, t->c, &rq[1]));
    CHECK_OK(EP_Isend(&out1, 1, MPI_INT, right, 21, t->c, &rq[2]));
    CHECK_OK(EP_Ibarrier(t->c, &rq[3]));
    CHECK_OK(EP_Ibcast(b, LARGE, MPI_INT, n - 1, t->c, &rq[4]));
    /* Count 0: an implementation that hands the host an empty buffer's address may pass
     * a dangling pointer such as 0x1 (an empty Rust Vec), which is Open MPI's MPI_IN_PLACE. */
    CHECK_OK(EP_Ibcast(z, 0, MPI_INT, mid, t->c, &rq[5]));
    CHECK_OK(EP_Irecv(&in2, 1, MPI_INT, EP_ANY_SOURCE, 22, t->c, &rq[6]));
    CHECK_OK(EP_Ibcast(v, 3, L_VEC.type, mid, t->c, &rq[7]));
    CHECK_OK(EP_Isend(&out2, 1, MPI_INT, right, 22, t->c, &rq[8]));
    CHECK_OK(EP_Ibarrier(t->c, &rq[9]));
    const char *how;
    switch (me % 3) {
    case 0:
        how = "EP_Waitall";
        CHECK_OK(EP_Waitall(10, rq, EP_STATUSES_IGNORE));
        break;
    case 1:
        how = "EP_Wait in reverse order";
        for (int i = 9; i >= 0; i--)
            CHECK_OK(EP_Wait(&rq[i], EP_STATUS_IGNORE));
        break;
    default: {
        how = "EP_Test round-robin";
        int left_to_do = 10;
        long spins = 0;
        while (left_to_do > 0) {
            for (int i = 0; i < 10; i++) {
                if (rq[i] == EP_REQUEST_NULL)
                    continue;
                int flag = 0;
                CHECK_OK(EP_Test(&rq[i], &flag, EP_STATUS_IGNORE));
                if (flag) {
                    CHECK(rq[i] == EP_REQUEST_NULL, "EP_Test: rank %d: completed request %d not set to EP_REQUEST_NULL", me, i);
                    rq[i] = EP_REQUEST_NULL;
                    left_to_do--;
                }
            }
            if (++spins % 64 == 0)
                sched_yield();
        }
    }
    }
    for (int i = 0; i < 10; i++)
        CHECK(rq[i] == EP_REQUEST_NULL, "%s: rank %d: request %d not EP_REQUEST_NULL after completion", how, me, i);
    char what_[200];
    int wa[2] = {VAL(sa, 0, 0), SENTINEL}, wz[2] = {SENTINEL, SENTINEL}, w1 = VAL(sc, left, 1), w2 = VAL(sc, left, 2);
    expect_ints(t, WHAT("EP_Ibcast of 1 int from rank 0 (completed by %s)", how), a, wa, 2);
    expect_ints(t, WHAT("EP_Ibcast of 0 ints (completed by %s)", how), z, wz, 2);
    expect_ints(t, WHAT("EP_Ibcast of 3 vectors from the middle rank (completed by %s)", how), v, vw, vlen);
    int *bw = ints_new(LARGE + 1, SENTINEL);
    for (int k = 0; k < LARGE; k++)
        bw[k] = VAL(sb, n - 1, k);
    expect_ints(t, WHAT("EP_Ibcast of 1 MiB from the last rank (completed by %s)", how), b, bw, LARGE + 1);
    expect_ints(t, WHAT("EP_Irecv from the left among Ibcasts (completed by %s)", how), &in1, &w1, 1);
    expect_ints(t, WHAT("EP_Irecv from any source among Ibcasts (completed by %s)", how), &in2, &w2, 1);
    free(a);
    free(b);
    free(bw);
    free(z);
    free(v);
    free(vw);
}

/* Nonblocking collectives outstanding while blocking collectives run on the same
 * communicator (MPI 4.1 section 6.12: they may be interleaved; all ranks call them in the
 * same order), completed out of order afterwards. */
static void t_nb_with_blocking(T *t)
{
    stage(t, "EP_Ibcast/EP_Ibarrier with blocking collectives in between");
    int n = t->n, me = t->me, mid = n / 2;
    int sx = next_seed(t);
    int *x = ints_new(101, SENTINEL), *xw = ints_new(101, SENTINEL);
    for (int k = 0; k < 100; k++)
        xw[k] = VAL(sx, mid, k);
    if (me == mid)
        memcpy(x, xw, 100 * sizeof(int));
    EP_Request r1, r2, r3;
    CHECK_OK(EP_Ibcast(x, 100, MPI_INT, mid, t->c, &r1));
    CHECK_OK(EP_Ibarrier(t->c, &r2));
    bcast_case(t, 0, &L_INT, 7, &L_INT, 7);
    cat_case(t, C_ALLREDUCE, 3, 0, 0, 0);
    CHECK_OK(EP_Barrier(t->c));
    int sy = next_seed(t);
    int y[6] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL, SENTINEL, SENTINEL}, yw[6];
    for (int k = 0; k < 6; k++)
        yw[k] = k < 5 ? VAL(sy, n - 1, k) : SENTINEL;
    if (me == n - 1)
        memcpy(y, yw, sizeof y);
    CHECK_OK(EP_Ibcast(y, 5, MPI_INT, n - 1, t->c, &r3));
    gather_case(t, mid, &L_INT, 2, &L_INT, 2, 0);
    CHECK_OK(EP_Wait(&r3, EP_STATUS_IGNORE));
    CHECK_OK(EP_Wait(&r1, EP_STATUS_IGNORE));
    CHECK_OK(EP_Wait(&r2, EP_STATUS_IGNORE));
    expect_ints(t, "EP_Ibcast (100 ints from the middle rank) across blocking collectives", x, xw, 101);
    expect_ints(t, "EP_Ibcast (5 ints from the last rank) across a blocking gather", y, yw, 6);
    free(x);
    free(xw);
}

/* Two communicators, four nonblocking collectives, posted in different interleavings by
 * even and odd ranks (per communicator the order is the same, as MPI requires). An
 * implementation that matches collectives by a per-endpoint sequence number across
 * communicators mixes them up. */
static void t_nb_two_comms(T *t)
{
    stage(t, "EP_Ibcast/EP_Ibarrier on two communicators, different interleavings");
    EP_Comm d;
    CHECK_OK(EP_Comm_dup(t->c, &d));
    int n = t->n, me = t->me, sa = next_seed(t), sb = next_seed(t);
    int a[5], b[5], aw[5], bw[5];
    for (int k = 0; k < 4; k++) {
        aw[k] = VAL(sa, 0, k);
        bw[k] = VAL(sb, n - 1, k);
        a[k] = me == 0 ? aw[k] : SENTINEL;
        b[k] = me == n - 1 ? bw[k] : SENTINEL;
    }
    a[4] = b[4] = aw[4] = bw[4] = SENTINEL;
    EP_Request rq[4];
    if (me % 2 == 0) {
        CHECK_OK(EP_Ibcast(a, 4, MPI_INT, 0, t->c, &rq[0]));
        CHECK_OK(EP_Ibarrier(d, &rq[1]));
        CHECK_OK(EP_Ibarrier(t->c, &rq[2]));
        CHECK_OK(EP_Ibcast(b, 4, MPI_INT, n - 1, d, &rq[3]));
    } else {
        CHECK_OK(EP_Ibarrier(d, &rq[0]));
        CHECK_OK(EP_Ibcast(b, 4, MPI_INT, n - 1, d, &rq[1]));
        CHECK_OK(EP_Ibcast(a, 4, MPI_INT, 0, t->c, &rq[2]));
        CHECK_OK(EP_Ibarrier(t->c, &rq[3]));
    }
    CHECK_OK(EP_Waitall(4, rq, EP_STATUSES_IGNORE));
    expect_ints(t, "EP_Ibcast on the original, posted in rank-dependent order among ops on a dup", a, aw, 5);
    expect_ints(t, "EP_Ibcast on the dup, posted in rank-dependent order among ops on the original", b, bw, 5);
    CHECK_OK(EP_Comm_free(&d));
}

/* A late rank: the others start the nonblocking collective and EP_Test it 200 times (it
 * must stay incomplete: the late rank has not entered), then tell the late rank with a
 * message; only after receiving all those messages does the late rank enter. The late
 * rank receives them with EP_ANY_SOURCE/EP_ANY_TAG on the same communicator, so internal
 * messages of the others' pending collective must not match user receives. The others
 * then complete by EP_Test alone (progress without Wait). is_bcast: EP_Ibcast rooted at
 * the late rank instead of EP_Ibarrier. */
static void nb_late_case(T *t, int late, int is_bcast)
{
    int n = t->n, me = t->me, seed = next_seed(t);
    const char *name = is_bcast ? "EP_Ibcast" : "EP_Ibarrier";
    int buf[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL}, want[4];
    for (int k = 0; k < 4; k++)
        want[k] = k < 3 ? VAL(seed, late, k) : SENTINEL;
    EP_Request rq;
    if (me != late) {
        if (is_bcast)
            CHECK_OK(EP_Ibcast(buf, 3, MPI_INT, late, t->c, &rq));
        else
            CHECK_OK(EP_Ibarrier(t->c, &rq));
        int early = 0;
        for (int i = 0; i < 200 && !early; i++) {
            int flag = 0;
            CHECK_OK(EP_Test(&rq, &flag, EP_STATUS_IGNORE));
            early = flag;
            if (i % 20 == 0)
                sleep_ms(1);
        }
        CHECK(!early, "%s: rank %d: EP_Test said complete before rank %d had entered", name, me, late);
        int token = VAL(seed, me, 7);
        CHECK_OK(EP_Send(&token, 1, MPI_INT, late, 31, t->c));
        long spins = 0;
        while (!early) {
            CHECK_OK(EP_Test(&rq, &early, EP_STATUS_IGNORE));
            if (++spins % 64 == 0)
                sched_yield();
        }
        CHECK(rq == EP_REQUEST_NULL, "%s: rank %d: request not EP_REQUEST_NULL after EP_Test completed it", name, me);
    } else {
        for (int i = 0; i < n - 1; i++) {
            int v = SENTINEL;
            EP_Status st;
            CHECK_OK(EP_Recv(&v, 1, MPI_INT, EP_ANY_SOURCE, EP_ANY_TAG, t->c, &st));
            CHECK(st.MPI_TAG == 31 && st.MPI_SOURCE != late && v == VAL(seed, st.MPI_SOURCE, 7),
                  "%s: late rank %d: wildcard receive matched something else than a user message: source %d tag %d value %d",
                  name, me, st.MPI_SOURCE, st.MPI_TAG, v);
        }
        if (is_bcast) {
            memcpy(buf, want, sizeof buf);
            CHECK_OK(EP_Ibcast(buf, 3, MPI_INT, late, t->c, &rq));
        } else {
            CHECK_OK(EP_Ibarrier(t->c, &rq));
        }
        CHECK_OK(EP_Wait(&rq, EP_STATUS_IGNORE));
    }
    if (is_bcast) {
        char what_[128];
        expect_ints(t, WHAT("EP_Ibcast from late root %d, completed by EP_Test", late), buf, want, 4);
    }
}

static void t_nb_late(T *t)
{
    stage(t, "EP_Ibarrier/EP_Ibcast with a late rank");
    int roots[3], nr = pick_roots(t->n, roots);
    for (int i = 0; i < nr; i++) {
        nb_late_case(t, roots[i], 0);
        nb_late_case(t, roots[i], 1);
    }
}

/* A large Ibcast progresses while every rank does blocking point-to-point exchanges. */
static void t_nb_progress(T *t)
{
    stage(t, "EP_Ibcast progressing during point-to-point");
    int n = t->n, me = t->me, left = (me - 1 + n) % n, right = (me + 1) % n, seed = next_seed(t);
    int *b = ints_new(LARGE, SENTINEL), *bw = ints_new(LARGE, SENTINEL);
    for (int k = 0; k < LARGE; k++)
        bw[k] = VAL(seed, n / 2, k);
    if (me == n / 2)
        memcpy(b, bw, LARGE * sizeof(int));
    EP_Request rq;
    CHECK_OK(EP_Ibcast(b, LARGE, MPI_INT, n / 2, t->c, &rq));
    for (int i = 0; i < 20; i++) {
        int out = VAL(seed, me, i), in = SENTINEL, w = VAL(seed, left, i);
        CHECK_OK(EP_Sendrecv(&out, 1, MPI_INT, right, 40 + i, &in, 1, MPI_INT, left, 40 + i, t->c, EP_STATUS_IGNORE));
        expect_ints(t, "EP_Sendrecv while an EP_Ibcast is pending", &in, &w, 1);
    }
    CHECK_OK(EP_Wait(&rq, EP_STATUS_IGNORE));
    expect_ints(t, "EP_Ibcast of 1 MiB overlapped with EP_Sendrecv", b, bw, LARGE);
    free(b);
    free(bw);
}

/* ==================================================================================== */
/* A communicator freed by a user op during its own collective                          */

/* MPI 4.1 section 7.4.3: operations pending on a freed communicator complete normally. The
 * op runs inside the collective's call on the calling thread (the process's leader), so
 * the free is a call nested in another that borrowed the same endpoint: the library must
 * keep that endpoint alive until the outer call returns (src/ffi/boundary.rs, EpRef). A use
 * after free would show under memcheck, a leak in ep_test_finish's live-object check. */
static EP_Comm free_victim;
static int freed_in_op;
#pragma omp threadprivate(free_victim, freed_in_op)
static MPI_Op FREE_SUM_OP;

static void free_sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
    if (free_victim != EP_COMM_NULL) {
        int rc = EP_Comm_free(&free_victim);
        if (rc != EP_SUCCESS || free_victim != EP_COMM_NULL)
            fprintf(stderr, "EP_Comm_free inside a user op: code %d, handle %d\n", rc, free_victim);
        freed_in_op += rc == EP_SUCCESS;
    }
}

static void t_free_in_op(T *t)
{
    stage(t, "communicator freed by a user op during its collective");
    int n = t->n, x[3], want[3];
    char what_[160];
    for (int round = 0; round < 3; round++) {
        freed_in_op = 0;
        CHECK_OK(EP_Comm_dup(t->c, &free_victim));
        /* A first call puts the handle in the thread's lookup cache: the collective's own
         * lookup then borrows the endpoint instead of counting a reference. */
        int vr = -1;
        CHECK_OK(EP_Comm_rank(free_victim, &vr));
        CHECK(vr == t->me, "rank %d in a dup of the communicator, %d in it", vr, t->me);
        for (int k = 0; k < 3; k++) {
            x[k] = t->me * 3 + k + round;
            want[k] = 3 * n * (n - 1) / 2 + n * (k + round);
        }
        int y[3] = {SENTINEL, SENTINEL, SENTINEL};
        CHECK_OK(EP_Allreduce(x, y, 3, MPI_INT, FREE_SUM_OP, free_victim));
        expect_ints(t, WHAT("EP_Allreduce (round %d) on the communicator its op frees", round), y, want, 3);
        if (free_victim != EP_COMM_NULL)
            CHECK_OK(EP_Comm_free(&free_victim));
        /* With more than one rank some op call combined two inputs, and freed its thread's
         * communicator (this check keeps the test from passing with the op never called). */
        int freed = 0;
        CHECK_OK(EP_Allreduce(&freed_in_op, &freed, 1, MPI_INT, MPI_SUM, t->c));
        CHECK(n == 1 || freed >= 1, "rank %d: no op call freed its communicator (round %d)", t->me, round);
    }
}

/* ==================================================================================== */
/* Bad arguments                                                                        */

/* Every rank passes the same bad argument, so the error can be found locally, before any
 * communication; each call returns its class and the communicator keeps working. */
static void t_errors(T *t)
{
    stage(t, "bad arguments");
    int n = t->n, x[8] = {0};
    EP_Request rq = EP_REQUEST_NULL;
    CHECK(ep_class(EP_Bcast(x, 1, MPI_INT, n, t->c)) == EP_ERR_ROOT, "EP_Bcast root == size");
    CHECK(ep_class(EP_Bcast(x, 1, MPI_INT, -5, t->c)) == EP_ERR_ROOT, "EP_Bcast root -5");
    CHECK(ep_class(EP_Reduce(x, x + 4, 1, MPI_INT, MPI_SUM, n + 3, t->c)) == EP_ERR_ROOT, "EP_Reduce root size+3");
    CHECK(ep_class(EP_Gather(x, 1, MPI_INT, x + 4, 1, MPI_INT, -5, t->c)) == EP_ERR_ROOT, "EP_Gather root -5");
    CHECK(ep_class(EP_Bcast(x, -1, MPI_INT, 0, t->c)) == EP_ERR_COUNT, "EP_Bcast count -1");
    CHECK(ep_class(EP_Allreduce(x, x + 4, -2, MPI_INT, MPI_SUM, t->c)) == EP_ERR_COUNT, "EP_Allreduce count -2");
    CHECK(ep_class(EP_Allreduce(x, x + 4, 1, MPI_INT, MPI_OP_NULL, t->c)) == EP_ERR_OP, "EP_Allreduce MPI_OP_NULL");
    CHECK(ep_class(EP_Allreduce(x, x + 4, 1, MPI_DATATYPE_NULL, MPI_SUM, t->c)) == EP_ERR_TYPE, "EP_Allreduce MPI_DATATYPE_NULL");
    CHECK(ep_class(EP_Allreduce(NULL, x, 1, MPI_INT, MPI_SUM, t->c)) == EP_ERR_BUFFER, "EP_Allreduce NULL sendbuf, count 1");
    CHECK(ep_class(EP_Barrier(EP_COMM_NULL)) == EP_ERR_COMM, "EP_Barrier(EP_COMM_NULL)");
#if EP_TEST_MADE_UP_HANDLES
    CHECK(ep_class(EP_Barrier(12345)) == EP_ERR_COMM, "EP_Barrier(bogus handle)");
#endif
    CHECK(ep_class(EP_Ibarrier(EP_COMM_NULL, &rq)) == EP_ERR_COMM, "EP_Ibarrier(EP_COMM_NULL)");
    CHECK(ep_class(EP_Ibcast(x, 1, MPI_INT, n, t->c, &rq)) == EP_ERR_ROOT, "EP_Ibcast root == size");
    /* Still works, and the failed calls did not count as collectives. */
    predef_case(t, C_ALLREDUCE, O_SUM, K_INT, 3, 0, 0, 0);
    bcast_case(t, n - 1, &L_INT, 2, &L_INT, 2);
    if (single_process) {
        /* Type signatures that differ (erroneous), inside one process where the library
         * itself sees it: rank 0 sends blocks of 2 ints against receive blocks of 1 (the
         * small all-to-all's exchange, contiguous and strided), every other rank 1 and 1. Every
         * endpoint gets EP_ERR_TRUNCATE; none waits for the others, none fails otherwise. The
         * host MPI, between processes, decides for itself (often by aborting). */
        stage(t, "differing type signatures");
        int *sb = calloc((size_t)(4 * n), sizeof(int)), *rb = calloc((size_t)n, sizeof(int));
        MPI_Datatype pair; /* 2 ints, strided */
        MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        for (int k = 0; k < 2; k++) {
            int rc = t->me != 0   ? EP_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, t->c)
                     : k == 0     ? EP_Alltoall(sb, 2, MPI_INT, rb, 1, MPI_INT, t->c)
                                  : EP_Alltoall(sb, 1, pair, rb, 1, MPI_INT, t->c);
            CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "EP_Alltoall with differing signatures (%s) gave class %d",
                  k == 0 ? "contiguous" : "strided", ep_class(rc));
        }
        int ag = EP_Allgather(sb, t->me == 0 ? 2 : 1, MPI_INT, rb, 1, MPI_INT, t->c);
        CHECK(ep_class(ag) == EP_ERR_TRUNCATE, "EP_Allgather with differing signatures gave class %d", ep_class(ag));
        /* A broadcast whose root sends another amount than the others expect, of 100, 150, 200
         * or 300 ints: the readers fail (EP_ERR_TRUNCATE, or EP_ERR_OTHER where the amounts
         * sent root and readers different ways: an inline input against a staged buffer), the
         * root, which leaves at once as a host's root does, succeeds, and nobody hangs. */
        if (t->n <= 16) {
            static const int root_count[3] = {300, 100, 150}, count[3] = {100, 300, 200};
            int big[300] = {0};
            for (int k = 0; k < 3; k++) {
                int rc = EP_Bcast(big, t->me == 0 ? root_count[k] : count[k], MPI_INT, 0, t->c);
                if (t->me == 0)
                    CHECK(rc == EP_SUCCESS, "EP_Bcast root of %d ints gave code %d", root_count[k], rc);
                else
                    CHECK(ep_class(rc) == EP_ERR_TRUNCATE || ep_class(rc) == EP_ERR_OTHER,
                          "EP_Bcast of %d ints against the root's %d gave class %d", count[k], root_count[k], ep_class(rc));
            }
        }
        /* Counts that differ (erroneous) so that rank 0 and the others take different paths:
         * the inline exchange against staged buffers, staged buffers against the straight
         * copies. Every rank fails (EP_ERR_TRUNCATE or EP_ERR_OTHER), nobody hangs. */
        if (t->n >= 2 && t->n <= 16) {
            static const int ag[2][2] = {{100, 200}, {200, 300}}, a2a[2][2] = {{100, 300}, {300, 500}};
            int *bs = calloc(5000, sizeof(int)), *br = calloc(5000, sizeof(int));
            for (int k = 0; k < 2; k++) {
                int c = ag[k][t->me == 0 ? 0 : 1];
                int rc = EP_Allgather(bs, c, MPI_INT, br, c, MPI_INT, t->c);
                CHECK(ep_class(rc) == EP_ERR_TRUNCATE || ep_class(rc) == EP_ERR_OTHER,
                      "EP_Allgather of %d ints against rank 0's %d gave class %d", c, ag[k][0], ep_class(rc));
                c = a2a[k][t->me == 0 ? 0 : 1] / t->n + 1;
                rc = EP_Alltoall(bs, c, MPI_INT, br, c, MPI_INT, t->c);
                CHECK(ep_class(rc) == EP_ERR_TRUNCATE || ep_class(rc) == EP_ERR_OTHER,
                      "EP_Alltoall of %d ints per block against rank 0's gave class %d", c, ep_class(rc));
            }
            /* Different collectives at the same point, both through staging buffers: a
             * broadcast's root (which leaves at once and succeeds) against allgathers, whose
             * ranks must not take the broadcast's data for a block. */
            int rc = t->me == 0 ? EP_Bcast(bs, 200, MPI_INT, 0, t->c) : EP_Allgather(bs, 200, MPI_INT, br, 200, MPI_INT, t->c);
            CHECK(t->me == 0 ? rc == EP_SUCCESS : ep_class(rc) == EP_ERR_OTHER,
                  "%s against %s gave code %d", t->me == 0 ? "EP_Bcast" : "EP_Allgather", t->me == 0 ? "EP_Allgather" : "EP_Bcast", rc);
            free(bs);
            free(br);
        }
        /* Inside one process, past the sizes whose copies are shared (a broadcast of 16 KiB)
         * or pushed by the block's owner (an allgather block of 8 KiB): amounts that differ
         * (erroneous). A reader expecting another amount than the root sends fails and the
         * root succeeds; an allgather block shorter or longer than the receive counts say
         * fails every rank, its owner included. Nobody hangs. */
        {
            int me, n;
            EP_Comm local = process_comm(t, &me, &n);
            int *bs = calloc(8192, sizeof(int)), *br = calloc(4096 * (size_t)n, sizeof(int));
            for (int k = 0; k < 2 && n >= 2; k++) {
                int root_count = k == 0 ? 8192 : 4096, count = k == 0 ? 4096 : 8192;
                int rc = EP_Bcast(bs, me == 0 ? root_count : count, MPI_INT, 0, local);
                CHECK(me == 0 ? rc == EP_SUCCESS : ep_class(rc) == EP_ERR_TRUNCATE, "rank %d of one process: EP_Bcast of %d ints against the root's %d gave code %d",
                      me, count, root_count, rc);
            }
            for (int k = 0; k < 2 && n >= 2; k++) {
                int rc = EP_Allgather(bs, me == 0 ? (k == 0 ? 2048 : 8192) : 4096, MPI_INT, br, 4096, MPI_INT, local);
                CHECK(ep_class(rc) == EP_ERR_TRUNCATE, "rank %d of one process: EP_Allgather with rank 0's block %s gave class %d", me,
                      k == 0 ? "short" : "long", ep_class(rc));
            }
            free(bs);
            free(br);
            CHECK_OK(EP_Comm_free(&local));
        }
        MPI_Type_free(&pair);
        free(sb);
        free(rb);
        predef_case(t, C_ALLREDUCE, O_SUM, K_INT, 3, 0, 0, 0);
    }
}

/* ==================================================================================== */

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    one_node = all_on_one_node();
    single_process = ws == 1;
    layouts_init();
    cat_init();
    struct_init();
    MPI_Op_create(vsum_fn, 1, &VSUM_OP);
    MPI_Op_create(free_sum_fn, 1, &FREE_SUM_OP);
    int live_c0 = -1, live_r0 = -1;
    EP_Debug_live_handles(&live_c0, &live_r0, NULL);
    watchdog_start("coll", wr, 150);
    EP_Comm *comms = malloc((n > 0 ? n : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    if (n > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n)
        {
            T t = {comms[omp_get_thread_num()], 0, 0, omp_get_thread_num(), 0, ""};
            EP_Comm_rank(t.c, &t.me);
            EP_Comm_size(t.c, &t.n);
            t_barrier(&t);
            t_bcast(&t);
            t_bcast_in_a_row(&t);
            t_exchange_in_a_row(&t);
            t_gather_scatter(&t);
            t_gatherv_scatterv(&t);
            t_allgather(&t);
            t_alltoall(&t);
            t_predefined_ops(&t);
            t_loc_ops(&t);
            t_noncommutative(&t);
            t_vector_op(&t);
            t_struct(&t);
            t_crosstalk(&t);
            t_nb_many(&t);
            t_nb_with_blocking(&t);
            t_nb_two_comms(&t);
            t_nb_late(&t);
            t_nb_progress(&t);
            t_free_in_op(&t);
            t_errors(&t);
            stage(&t, "EP_Comm_free");
            CHECK_OK(EP_Comm_free(&t.c));
            stage(&t, NULL);
        }
    }
    int live_c = -1, live_r = -1;
    EP_Debug_live_handles(&live_c, &live_r, NULL);
    CHECK(live_c == live_c0 && live_r == live_r0, "live handles at the end: %d comms, %d requests (at the start %d, %d)",
          live_c, live_r, live_c0, live_r0);
    CHECK(cat_wrong_type == 0, "the non-commutative op was called %d times with a datatype other than MPI_2INT", cat_wrong_type);
    CHECK(vsum_wrong_type == 0, "the vector sum op was called %d times with a datatype other than the vector type", vsum_wrong_type);
    free(comms);
    MPI_Op_free(&VSUM_OP);
    MPI_Op_free(&FREE_SUM_OP);
    MPI_Op_free(&CAT_OP);
    MPI_Type_free(&S_TYPE);
    layouts_free();
    return ep_test_finish("coll", wr);
}
