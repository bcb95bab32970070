/*
 * Nonblocking collectives on intercommunicators (MPI 4.1 sections 6.2.2 and 6.12), and
 * EP_Alltoallw there (section 6.8): every one checked element by element, each group getting the
 * other group's data or reduction in that group's rank order. Rooted calls with roots in either
 * group (first and last rank); several collectives outstanding at once, mixed with point-to-point
 * messages across the groups, completed in reverse order (EP_Wait), by EP_Testany polling, and by
 * EP_Waitall; a non-commutative user op whose result checks the remote group's rank order. On
 * three intercommunicators: all endpoints but the last against the last (groups of different
 * sizes), even against odd world ranks (groups sharing processes), world rank % 3 == 0 against
 * the rest with keys reversing the world order (groups spread unevenly over the processes). Bad
 * input: MPI_IN_PLACE, roots out of range, EP_Iscan/EP_Iexscan, NULL request, each with its
 * error class, and the intercommunicator still works afterwards.
 */
#include "ep_test.h"

#define CHECK_CLASS(call, cls)                                                             \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        CHECK(ep_class(rc_) == (cls), "got class %d, expected %s", ep_class(rc_), #cls);   \
    } while (0)

typedef struct {
    int lo, hi, ok;
} seg_t;
static MPI_Datatype SEG_T, PAIR_T;
static MPI_Op SEG_OP;

static void seg_op_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const seg_t *a = in;
    seg_t *b = inout;
    for (int i = 0; i < *len; i++) {
        b[i].ok = a[i].ok && b[i].ok && a[i].hi + 1 == b[i].lo;
        b[i].lo = a[i].lo;
    }
}

/* The value element i of rank r of group `side` contributes in test `t`. */
static int val(int t, int side, int r, int i)
{
    return 1000000 * t + 100000 * side + 1000 * r + i;
}

/* All-to-all element k of the block that rank a of group `side` sends to rank b. */
static int a2a(int side, int a, int b, int k)
{
    return 1000000 * side + 10000 * a + 100 * b + k;
}

/* The root argument of a rooted call: EP_ROOT at the root, EP_PROC_NULL beside it, the root's
 * rank in the other group. */
static int root_arg(int side, int me, int root_side, int root)
{
    if (side != root_side)
        return root;
    return me == root ? EP_ROOT : EP_PROC_NULL;
}

static int *ints(int n, int fill)
{
    int *p = malloc(sizeof(int) * (n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* Point-to-point across the groups while collectives are outstanding: rank me sends to remote
 * rank me % rsize and receives from each remote rank r with r % size == me. Returns the number
 * of requests added at `reqs`; `in` gets one int per expected message. */
static int p2p_start(EP_Comm inter, int me, int size, int rsize, int side, int *out, int *in, EP_Request *reqs)
{
    int n = 0;
    *out = val(60, side, me, 0);
    CHECK_OK(EP_Isend(out, 1, MPI_INT, me % rsize, 77, inter, &reqs[n++]));
    for (int r = me, k = 0; r < rsize; r += size, k++)
        CHECK_OK(EP_Irecv(&in[k], 1, MPI_INT, r, 77, inter, &reqs[n++]));
    return n;
}

static void p2p_check(int me, int size, int rsize, int side, const int *in)
{
    for (int r = me, k = 0; r < rsize; r += size, k++)
        CHECK(in[k] == val(60, 1 - side, r, 0), "p2p from %d: %d", r, in[k]);
}

/* Rooted forms, all outstanding at once with a few messages, completed in reverse order. */
static void rooted(EP_Comm inter, int side, int me, int size, int rsize)
{
    for (int root_side = 0; root_side < 2; root_side++) {
        int root_size = root_side == side ? size : rsize;
        int roots[2] = {0, root_size - 1};
        for (int k = 0; k < 2; k++) {
            if (k == 1 && roots[1] == roots[0])
                continue;
            int root = roots[k], arg = root_arg(side, me, root_side, root), t = 10 * root_side + k;
            int is_root = arg == EP_ROOT, sends = side != root_side;
            const int n = 3;
            EP_Request reqs[16 + 64];
            int nr = 0;
            /* Bcast of n ints from the root to the other group. */
            int bc[4] = {-1, -1, -1, -1};
            if (is_root)
                for (int i = 0; i < n; i++)
                    bc[i] = val(t, side, me, i);
            CHECK_OK(EP_Ibcast(bc, n, MPI_INT, arg, inter, &reqs[nr++]));
            /* Gather of n ints from every rank of the other group. */
            int mine[8];
            for (int i = 0; i < 8; i++)
                mine[i] = val(t, side, me, i);
            int *gbuf = ints(rsize * n + 1, -1);
            CHECK_OK(EP_Igather(sends ? mine : NULL, n, MPI_INT, is_root ? gbuf : NULL, n, MPI_INT, arg, inter,
                                &reqs[nr++]));
            /* Gatherv: rank r sends r % 3 + 1 ints, placed with gaps of 2. */
            int *counts = ints(rsize, 0), *displs = ints(rsize, 0);
            for (int r = 0, at = 0; r < rsize; r++) {
                counts[r] = r % 3 + 1;
                displs[r] = at;
                at += counts[r] + 2;
            }
            int *gvbuf = ints(rsize * 6 + 1, -1);
            CHECK_OK(EP_Igatherv(sends ? mine : NULL, me % 3 + 1, MPI_INT, is_root ? gvbuf : NULL, counts, displs,
                                 MPI_INT, arg, inter, &reqs[nr++]));
            /* Scatter of n ints to every rank of the other group. */
            int *sbuf = ints(rsize * n + 1, -1);
            if (is_root)
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < n; i++)
                        sbuf[r * n + i] = val(t, side, r, i);
            int got[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
            CHECK_OK(EP_Iscatter(is_root ? sbuf : NULL, n, MPI_INT, sends ? got : NULL, n, MPI_INT, arg, inter,
                                 &reqs[nr++]));
            /* Scatterv: rank r gets r % 3 ints (0 for some), blocks in reverse order. */
            int *svbuf = ints(rsize * 4 + 1, -1), *scounts = ints(rsize, 0), *sdispls = ints(rsize, 0);
            if (is_root) {
                for (int r = 0, at = 0; r < rsize; r++) {
                    int d = rsize - 1 - r;
                    scounts[d] = d % 3;
                    sdispls[d] = at;
                    for (int i = 0; i < scounts[d]; i++)
                        svbuf[at + i] = val(t, side, d, i);
                    at += scounts[d] + 1;
                }
            }
            int vgot[4] = {-1, -1, -1, -1};
            CHECK_OK(EP_Iscatterv(is_root ? svbuf : NULL, scounts, sdispls, MPI_INT, sends ? vgot : NULL, me % 3,
                                  MPI_INT, arg, inter, &reqs[nr++]));
            /* Reduce: a sum, and the rank-ordered segments of the other group. */
            long lin[4], lout[4] = {-1, -1, -1, -1};
            for (int i = 0; i < 4; i++)
                lin[i] = (long)val(t, side, me, i);
            CHECK_OK(EP_Ireduce(sends ? lin : NULL, is_root ? lout : NULL, 4, MPI_LONG, MPI_SUM, arg, inter,
                                &reqs[nr++]));
            seg_t sin[2] = {{me, me, 1}, {me, me, 1}}, sout[2] = {{-1, -1, -1}, {-1, -1, -1}};
            CHECK_OK(EP_Ireduce(sends ? sin : NULL, is_root ? sout : NULL, 2, SEG_T, SEG_OP, arg, inter,
                                &reqs[nr++]));
            int out, in[64];
            nr += p2p_start(inter, me, size, rsize, side, &out, in, &reqs[nr]);
            for (int i = nr - 1; i >= 0; i--)
                CHECK_OK(EP_Wait(&reqs[i], EP_STATUS_IGNORE));
            p2p_check(me, size, rsize, side, in);

            if (sends)
                for (int i = 0; i < 4; i++)
                    CHECK(bc[i] == (i < n ? val(t, 1 - side, root, i) : -1), "ibcast bc[%d] = %d", i, bc[i]);
            else if (!is_root)
                CHECK(bc[0] == -1, "ibcast wrote at EP_PROC_NULL");
            if (is_root) {
                int bad = 0;
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < n; i++)
                        bad += gbuf[r * n + i] != val(t, 1 - side, r, i);
                CHECK(bad == 0 && gbuf[rsize * n] == -1, "igather at root %d of side %d: %d wrong", root, side, bad);
                bad = 0;
                for (int r = 0; r < rsize; r++) {
                    for (int i = 0; i < counts[r]; i++)
                        bad += gvbuf[displs[r] + i] != val(t, 1 - side, r, i);
                    bad += gvbuf[displs[r] + counts[r]] != -1 || gvbuf[displs[r] + counts[r] + 1] != -1;
                }
                CHECK(bad == 0, "igatherv at root %d of side %d: %d wrong", root, side, bad);
                for (int i = 0; i < 4; i++) {
                    long want = 0;
                    for (int r = 0; r < rsize; r++)
                        want += val(t, 1 - side, r, i);
                    CHECK(lout[i] == want, "ireduce sum[%d] %ld, expected %ld", i, lout[i], want);
                }
                for (int i = 0; i < 2; i++)
                    CHECK(sout[i].lo == 0 && sout[i].hi == rsize - 1 && sout[i].ok == 1,
                          "ordered ireduce (%d %d %d), remote size %d", sout[i].lo, sout[i].hi, sout[i].ok, rsize);
            } else {
                CHECK(lout[0] == -1 && sout[0].lo == -1, "ireduce wrote off the root");
            }
            if (sends) {
                for (int i = 0; i < n; i++)
                    CHECK(got[i] == val(t, 1 - side, me, i), "iscatter: got[%d] = %d", i, got[i]);
                CHECK(got[n] == -1, "iscatter wrote past its count");
                for (int i = 0; i < me % 3; i++)
                    CHECK(vgot[i] == val(t, 1 - side, me, i), "iscatterv: got[%d] = %d", i, vgot[i]);
                CHECK(vgot[me % 3] == -1, "iscatterv wrote past its count");
            } else {
                CHECK(got[0] == -1 && vgot[0] == -1, "iscatter wrote in the root's group");
            }
            free(gbuf);
            free(counts);
            free(displs);
            free(gvbuf);
            free(sbuf);
            free(svbuf);
            free(scounts);
            free(sdispls);
        }
    }
}

/* Buffers of the all-forms round. */
typedef struct {
    int mine[4], *ag, *agv, *agv_counts, *agv_displs;
    int *a2a_s, *a2a_r, *v_scounts, *v_sdispls, *v_s, *v_rcounts, *v_rdispls, *v_r;
    int *w_scounts, *w_sdispls, *w_rcounts, *w_rdispls, *w_s, *w_r;
    MPI_Datatype *w_stypes, *w_rtypes;
    long ar_in[3], ar_out[4];
    seg_t seg_in[2], seg_out[3];
    long *rsb_in, rsb_out[64];
    int *rs_counts, rs_first;
    seg_t *rs_in, rs_out[40];
} all_t;

/* Sets up an all-to-all-w: rank me sends (me + j) % 3 ints to remote rank j, as PAIR_T blocks
 * where the count is 2 (as ints otherwise); receives as ints, blocks placed backwards with gaps
 * (byte displacements). */
static void w_setup(all_t *a, int side, int me, int rsize)
{
    a->w_scounts = ints(rsize, 0);
    a->w_sdispls = ints(rsize, 0);
    a->w_rcounts = ints(rsize, 0);
    a->w_rdispls = ints(rsize, 0);
    a->w_s = ints(rsize * 4 + 1, -1);
    a->w_r = ints(rsize * 4 + 1, -1);
    a->w_stypes = malloc(sizeof(MPI_Datatype) * rsize);
    a->w_rtypes = malloc(sizeof(MPI_Datatype) * rsize);
    for (int j = 0, at = 0; j < rsize; j++) {
        int c = (me + j) % 3;
        a->w_stypes[j] = c == 2 ? PAIR_T : MPI_INT;
        a->w_scounts[j] = c == 2 ? 1 : c;
        a->w_sdispls[j] = at * (int)sizeof(int);
        for (int k = 0; k < c; k++)
            a->w_s[at + k] = a2a(side, me, j, k);
        at += c + 1;
    }
    for (int i = rsize - 1, at = 0; i >= 0; i--) {
        a->w_rcounts[i] = (i + me) % 3;
        a->w_rtypes[i] = MPI_INT;
        a->w_rdispls[i] = at * (int)sizeof(int);
        at += a->w_rcounts[i] + 1;
    }
}

static void w_check(const all_t *a, int side, int me, int rsize, const char *what)
{
    int bad = 0;
    for (int i = 0; i < rsize; i++) {
        int at = a->w_rdispls[i] / (int)sizeof(int);
        for (int k = 0; k < a->w_rcounts[i]; k++)
            bad += a->w_r[at + k] != a2a(1 - side, i, me, k);
        bad += a->w_r[at + a->w_rcounts[i]] != -1;
    }
    CHECK(bad == 0, "%s: %d wrong at rank %d of side %d", what, bad, me, side);
}

static void w_free(all_t *a)
{
    free(a->w_scounts);
    free(a->w_sdispls);
    free(a->w_rcounts);
    free(a->w_rdispls);
    free(a->w_s);
    free(a->w_r);
    free(a->w_stypes);
    free(a->w_rtypes);
}

static void all_forms(EP_Comm inter, int side, int me, int size, int rsize)
{
    const int t = 50;
    all_t a;
    EP_Request reqs[16 + 64];
    int nr = 0;
    for (int i = 0; i < 4; i++)
        a.mine[i] = val(t, side, me, i);
    CHECK_OK(EP_Ibarrier(inter, &reqs[nr++]));
    /* Iallgather: 2 ints each. */
    a.ag = ints(rsize * 2 + 1, -1);
    CHECK_OK(EP_Iallgather(a.mine, 2, MPI_INT, a.ag, 2, MPI_INT, inter, &reqs[nr++]));
    /* Iallgatherv: rank r sends r % 3 + 1 ints, placed backwards with gaps. */
    a.agv_counts = ints(rsize, 0);
    a.agv_displs = ints(rsize, 0);
    for (int r = rsize - 1, at = 0; r >= 0; r--) {
        a.agv_counts[r] = r % 3 + 1;
        a.agv_displs[r] = at;
        at += a.agv_counts[r] + 1;
    }
    a.agv = ints(rsize * 4 + 1, -1);
    CHECK_OK(EP_Iallgatherv(a.mine, me % 3 + 1, MPI_INT, a.agv, a.agv_counts, a.agv_displs, MPI_INT, inter,
                            &reqs[nr++]));
    /* Ialltoall: 2 ints to each remote rank. */
    a.a2a_s = ints(rsize * 2, 0);
    a.a2a_r = ints(rsize * 2 + 1, -1);
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < 2; k++)
            a.a2a_s[j * 2 + k] = a2a(side, me, j, k);
    CHECK_OK(EP_Ialltoall(a.a2a_s, 2, MPI_INT, a.a2a_r, 2, MPI_INT, inter, &reqs[nr++]));
    /* Ialltoallv: (me + j) % 3 ints to rank j, gaps on both sides, receive blocks backwards. */
    a.v_scounts = ints(rsize, 0);
    a.v_sdispls = ints(rsize, 0);
    a.v_rcounts = ints(rsize, 0);
    a.v_rdispls = ints(rsize, 0);
    a.v_s = ints(rsize * 4, 0);
    a.v_r = ints(rsize * 4 + 1, -1);
    for (int j = 0, at = 0; j < rsize; j++) {
        a.v_scounts[j] = (me + j) % 3;
        a.v_sdispls[j] = at;
        for (int k = 0; k < a.v_scounts[j]; k++)
            a.v_s[at + k] = a2a(side, me, j, k);
        at += a.v_scounts[j] + 1;
    }
    for (int i = rsize - 1, at = 0; i >= 0; i--) {
        a.v_rcounts[i] = (i + me) % 3;
        a.v_rdispls[i] = at;
        at += a.v_rcounts[i] + 1;
    }
    CHECK_OK(EP_Ialltoallv(a.v_s, a.v_scounts, a.v_sdispls, MPI_INT, a.v_r, a.v_rcounts, a.v_rdispls, MPI_INT,
                           inter, &reqs[nr++]));
    /* Ialltoallw: per-block datatypes and byte displacements. */
    w_setup(&a, side, me, rsize);
    CHECK_OK(EP_Ialltoallw(a.w_s, a.w_scounts, a.w_sdispls, a.w_stypes, a.w_r, a.w_rcounts, a.w_rdispls, a.w_rtypes,
                           inter, &reqs[nr++]));
    /* Iallreduce: a sum of longs and the rank-ordered segments. */
    for (int i = 0; i < 3; i++)
        a.ar_in[i] = (long)val(t, side, me, i);
    for (int i = 0; i < 4; i++)
        a.ar_out[i] = -1;
    CHECK_OK(EP_Iallreduce(a.ar_in, a.ar_out, 3, MPI_LONG, MPI_SUM, inter, &reqs[nr++]));
    for (int i = 0; i < 2; i++)
        a.seg_in[i] = (seg_t){me, me, 1};
    for (int i = 0; i < 3; i++)
        a.seg_out[i] = (seg_t){-1, -1, -1};
    CHECK_OK(EP_Iallreduce(a.seg_in, a.seg_out, 2, SEG_T, SEG_OP, inter, &reqs[nr++]));
    /* Ireduce_scatter_block: the same count in both groups, size * recvcount each. */
    int total = 2 * size * rsize, rc = total / size;
    a.rsb_in = malloc(sizeof(long) * total);
    for (int i = 0; i < total; i++)
        a.rsb_in[i] = (long)val(t, side, me, i);
    for (int i = 0; i < 64; i++)
        a.rsb_out[i] = -1;
    CHECK_OK(EP_Ireduce_scatter_block(a.rsb_in, a.rsb_out, rc, MPI_LONG, MPI_SUM, inter, &reqs[nr++]));
    /* Ireduce_scatter, non-commutative: 37 elements, blocks of this group's uneven counts. */
    a.rs_counts = ints(size, 0);
    a.rs_first = 0;
    for (int r = 0; r < size; r++) {
        a.rs_counts[r] = 37 / size + (r < 37 % size);
        if (r < me)
            a.rs_first += a.rs_counts[r];
    }
    a.rs_in = malloc(sizeof(seg_t) * 37);
    for (int i = 0; i < 37; i++)
        a.rs_in[i] = (seg_t){me, me, 1};
    for (int i = 0; i < 40; i++)
        a.rs_out[i] = (seg_t){-1, -1, -1};
    CHECK_OK(EP_Ireduce_scatter(a.rs_in, a.rs_out, a.rs_counts, SEG_T, SEG_OP, inter, &reqs[nr++]));
    int out, in[64];
    nr += p2p_start(inter, me, size, rsize, side, &out, in, &reqs[nr]);

    /* Completed in whatever order EP_Testany finds them. */
    for (int done = 0; done < nr;) {
        int idx = -1, flag = 0;
        CHECK_OK(EP_Testany(nr, reqs, &idx, &flag, EP_STATUS_IGNORE));
        if (flag && idx == EP_UNDEFINED)
            break;
        if (flag)
            done++;
    }
    p2p_check(me, size, rsize, side, in);

    int bad = 0;
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < 2; i++)
            bad += a.ag[r * 2 + i] != val(t, 1 - side, r, i);
    CHECK(bad == 0 && a.ag[2 * rsize] == -1, "iallgather: %d wrong at rank %d of side %d", bad, me, side);
    bad = 0;
    for (int r = 0; r < rsize; r++) {
        for (int i = 0; i < a.agv_counts[r]; i++)
            bad += a.agv[a.agv_displs[r] + i] != val(t, 1 - side, r, i);
        bad += a.agv[a.agv_displs[r] + a.agv_counts[r]] != -1;
    }
    CHECK(bad == 0, "iallgatherv: %d wrong at rank %d of side %d", bad, me, side);
    bad = 0;
    for (int i = 0; i < rsize; i++)
        for (int k = 0; k < 2; k++)
            bad += a.a2a_r[i * 2 + k] != a2a(1 - side, i, me, k);
    CHECK(bad == 0 && a.a2a_r[2 * rsize] == -1, "ialltoall: %d wrong at rank %d of side %d", bad, me, side);
    bad = 0;
    for (int i = 0; i < rsize; i++) {
        for (int k = 0; k < a.v_rcounts[i]; k++)
            bad += a.v_r[a.v_rdispls[i] + k] != a2a(1 - side, i, me, k);
        bad += a.v_r[a.v_rdispls[i] + a.v_rcounts[i]] != -1;
    }
    CHECK(bad == 0, "ialltoallv: %d wrong at rank %d of side %d", bad, me, side);
    w_check(&a, side, me, rsize, "ialltoallw");
    for (int i = 0; i < 3; i++) {
        long want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(t, 1 - side, r, i);
        CHECK(a.ar_out[i] == want, "iallreduce sum[%d] %ld, expected %ld", i, a.ar_out[i], want);
    }
    CHECK(a.ar_out[3] == -1, "iallreduce wrote past its count");
    for (int i = 0; i < 2; i++)
        CHECK(a.seg_out[i].lo == 0 && a.seg_out[i].hi == rsize - 1 && a.seg_out[i].ok == 1,
              "ordered iallreduce (%d %d %d)", a.seg_out[i].lo, a.seg_out[i].hi, a.seg_out[i].ok);
    CHECK(a.seg_out[2].lo == -1, "ordered iallreduce wrote past its count");
    bad = 0;
    for (int i = 0; i < rc; i++) {
        long want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(t, 1 - side, r, me * rc + i);
        bad += a.rsb_out[i] != want;
    }
    CHECK(bad == 0 && a.rsb_out[rc] == -1, "ireduce_scatter_block: %d wrong at rank %d of side %d", bad, me, side);
    for (int i = 0; i < a.rs_counts[me]; i++)
        CHECK(a.rs_out[i].lo == 0 && a.rs_out[i].hi == rsize - 1 && a.rs_out[i].ok == 1,
              "ordered ireduce_scatter (%d %d %d)", a.rs_out[i].lo, a.rs_out[i].hi, a.rs_out[i].ok);
    CHECK(a.rs_out[a.rs_counts[me]].lo == -1, "ireduce_scatter wrote past its block");

    /* Blocking EP_Alltoallw, the same blocks. */
    w_free(&a);
    w_setup(&a, side, me, rsize);
    CHECK_OK(EP_Alltoallw(a.w_s, a.w_scounts, a.w_sdispls, a.w_stypes, a.w_r, a.w_rcounts, a.w_rdispls, a.w_rtypes,
                          inter));
    w_check(&a, side, me, rsize, "alltoallw");

    /* Bad input, the same on every endpoint: no communication, the communicator goes on. */
    EP_Request r = EP_REQUEST_NULL;
    CHECK_CLASS(EP_Iallgather(MPI_IN_PLACE, 2, MPI_INT, a.ag, 2, MPI_INT, inter, &r), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Ialltoall(MPI_IN_PLACE, 2, MPI_INT, a.a2a_r, 2, MPI_INT, inter, &r), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Ialltoallw(MPI_IN_PLACE, a.w_scounts, a.w_sdispls, a.w_stypes, a.w_r, a.w_rcounts, a.w_rdispls,
                              a.w_rtypes, inter, &r),
                EP_ERR_BUFFER);
    CHECK_CLASS(EP_Alltoallw(MPI_IN_PLACE, a.w_scounts, a.w_sdispls, a.w_stypes, a.w_r, a.w_rcounts, a.w_rdispls,
                             a.w_rtypes, inter),
                EP_ERR_BUFFER);
    CHECK_CLASS(EP_Iallreduce(MPI_IN_PLACE, a.ar_out, 3, MPI_LONG, MPI_SUM, inter, &r), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Ireduce_scatter_block(MPI_IN_PLACE, a.rsb_out, rc, MPI_LONG, MPI_SUM, inter, &r), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Ireduce_scatter(MPI_IN_PLACE, a.rs_out, a.rs_counts, SEG_T, SEG_OP, inter, &r), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Iscan(a.ar_in, a.ar_out, 1, MPI_LONG, MPI_SUM, inter, &r), EP_ERR_COMM);
    CHECK_CLASS(EP_Iexscan(a.ar_in, a.ar_out, 1, MPI_LONG, MPI_SUM, inter, &r), EP_ERR_COMM);
    CHECK_CLASS(EP_Ibcast(a.mine, 1, MPI_INT, rsize, inter, &r), EP_ERR_ROOT);
    CHECK_CLASS(EP_Igather(a.mine, 1, MPI_INT, a.ag, 1, MPI_INT, -9, inter, &r), EP_ERR_ROOT);
    CHECK_CLASS(EP_Ireduce(a.ar_in, a.ar_out, 1, MPI_LONG, MPI_SUM, rsize + 3, inter, &r), EP_ERR_ROOT);
    CHECK_CLASS(EP_Ialltoallv(a.v_s, NULL, a.v_sdispls, MPI_INT, a.v_r, a.v_rcounts, a.v_rdispls, MPI_INT, inter, &r),
                EP_ERR_ARG);
    CHECK_CLASS(EP_Iallgather(a.mine, 2, MPI_INT, a.ag, 2, MPI_INT, inter, NULL), EP_ERR_ARG);
    CHECK_CLASS(EP_Ibarrier(inter, NULL), EP_ERR_ARG);
    CHECK(r == EP_REQUEST_NULL, "a failed call gave a request");
    /* Still works: an iallreduce of one long. */
    long v = me + 1, sum = -1;
    CHECK_OK(EP_Iallreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, inter, &r));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
    CHECK(sum == (long)rsize * (rsize + 1) / 2, "iallreduce after errors %ld", sum);

    w_free(&a);
    free(a.ag);
    free(a.agv);
    free(a.agv_counts);
    free(a.agv_displs);
    free(a.a2a_s);
    free(a.a2a_r);
    free(a.v_scounts);
    free(a.v_sdispls);
    free(a.v_rcounts);
    free(a.v_rdispls);
    free(a.v_s);
    free(a.v_r);
    free(a.rsb_in);
    free(a.rs_counts);
    free(a.rs_in);
}

/* Large blocks (the host's rendezvous paths), mixed with blocking collectives: an ibcast from
 * group 0's last rank and an iallgather outstanding across a blocking allreduce, completed
 * with EP_Waitall. */
static void large(EP_Comm inter, int side, int me, int size, int rsize)
{
    const int N = 40000;
    int *mine = ints(N, 0), *all = ints(N * rsize, -1), *bc = ints(N, -1);
    for (int i = 0; i < N; i++)
        mine[i] = val(7, side, me, i);
    int arg = root_arg(side, me, 0, side == 0 ? size - 1 : rsize - 1);
    if (arg == EP_ROOT)
        memcpy(bc, mine, sizeof(int) * N);
    EP_Request reqs[2];
    CHECK_OK(EP_Ibcast(bc, N, MPI_INT, arg, inter, &reqs[0]));
    CHECK_OK(EP_Iallgather(mine, N, MPI_INT, all, N, MPI_INT, inter, &reqs[1]));
    long v = me + 1, sum = -1;
    CHECK_OK(EP_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, inter));
    CHECK(sum == (long)rsize * (rsize + 1) / 2, "blocking allreduce between nonblocking ones: %ld", sum);
    CHECK_OK(EP_Waitall(2, reqs, EP_STATUSES_IGNORE));
    int bad = 0;
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < N; i++)
            bad += all[(size_t)r * N + i] != val(7, 1 - side, r, i);
    CHECK(bad == 0, "large iallgather: %d wrong", bad);
    if (side == 1) {
        bad = 0;
        for (int i = 0; i < N; i++)
            bad += bc[i] != val(7, 0, rsize - 1, i);
        CHECK(bad == 0, "large ibcast: %d wrong", bad);
    }
    free(bc);
    free(all);
    free(mine);
}

/* Rooted MPI_IN_PLACE where every endpoint checks it: the root's group is the root alone. */
static void rooted_in_place(EP_Comm inter, int size, int rsize)
{
    int x[4] = {0, 0, 0, 0};
    EP_Request r = EP_REQUEST_NULL;
    if (size == 1) {
        CHECK_CLASS(EP_Igather(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, EP_ROOT, inter, &r), EP_ERR_BUFFER);
        CHECK_CLASS(EP_Ireduce(x, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, EP_ROOT, inter, &r), EP_ERR_BUFFER);
        CHECK_CLASS(EP_Iscatter(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT, EP_ROOT, inter, &r), EP_ERR_BUFFER);
    } else if (rsize == 1) {
        CHECK_CLASS(EP_Igather(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT, 0, inter, &r), EP_ERR_BUFFER);
        CHECK_CLASS(EP_Ireduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, 0, inter, &r), EP_ERR_BUFFER);
        CHECK_CLASS(EP_Iscatter(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, inter, &r), EP_ERR_BUFFER);
    }
    CHECK(r == EP_REQUEST_NULL, "a failed call gave a request");
}

static void check_inter(EP_Comm inter, int side)
{
    int me, size, rsize;
    CHECK_OK(EP_Comm_rank(inter, &me));
    CHECK_OK(EP_Comm_size(inter, &size));
    CHECK_OK(EP_Comm_remote_size(inter, &rsize));
    rooted(inter, side, me, size, rsize);
    all_forms(inter, side, me, size, rsize);
    large(inter, side, me, size, rsize);
    rooted_in_place(inter, size, rsize);
    EP_Request r;
    CHECK_OK(EP_Ibarrier(inter, &r));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
}

/* Group `color` of the world endpoints ranked by `key`, against the other group whose rank 0
 * has world rank `their_leader_world`. */
static void with_inter(EP_Comm world, int color, int key, int their_leader_world)
{
    EP_Comm intra, inter;
    CHECK_OK(EP_Comm_split(world, color, key, &intra));
    CHECK_OK(EP_Intercomm_create(intra, 0, world, their_leader_world, 91, &inter));
    check_inter(inter, color);
    CHECK_OK(EP_Comm_free(&inter));
    CHECK_OK(EP_Comm_free(&intra));
}

static void body(EP_Comm world)
{
    int wr, ws;
    CHECK_OK(EP_Comm_rank(world, &wr));
    CHECK_OK(EP_Comm_size(world, &ws));
    if (ws < 2)
        return;
    int server = wr == ws - 1;
    with_inter(world, server, wr, server ? 0 : ws - 1);
    int odd = wr % 2;
    with_inter(world, odd, wr, odd ? 0 : 1);
    int third = wr % 3 == 0;
    int last_third = (ws - 1) / 3 * 3, last_other = (ws - 1) % 3 ? ws - 1 : ws - 2;
    if (ws >= 3)
        with_inter(world, third, -wr, third ? last_other : last_third);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    MPI_Type_contiguous(3, MPI_INT, &SEG_T);
    MPI_Type_commit(&SEG_T);
    MPI_Type_contiguous(2, MPI_INT, &PAIR_T);
    MPI_Type_commit(&PAIR_T);
    MPI_Op_create(seg_op_fn, 0 /* not commutative */, &SEG_OP);
    if (n == 0) {
        EP_Comm none;
        CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, &none));
    } else {
#pragma omp parallel num_threads(n)
        {
            EP_Comm world;
            CHECK_OK(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, omp_get_thread_num(), &world));
            body(world);
            CHECK_OK(EP_Comm_free(&world));
        }
    }
    MPI_Op_free(&SEG_OP);
    MPI_Type_free(&PAIR_T);
    MPI_Type_free(&SEG_T);
    return ep_test_finish("icoll_inter", wr);
}
