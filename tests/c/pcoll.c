/*
 * Persistent collectives (EP_Barrier_init ... EP_Exscan_init, MPI 4.1 section 6.13) and
 * persistent neighbourhood collectives (EP_Neighbor_*_init, section 8.8) on endpoint
 * intracommunicators, checked against values computed here from closed forms. Run under
 * mpirun in every shape (EPMPI_TEST_EPS): uneven endpoint counts, a process with none.
 *
 * - Every persistent collective is made once and run for ROUNDS rounds, the send data
 *   changed before each round (and the receive buffers reset), every result checked.
 * - Rounds alternate between one EP_Startall over all the requests and EP_Start of each in
 *   turn (same order on every rank); point-to-point ring messages and a blocking
 *   EP_Allreduce run while the rounds are active; completion by EP_Waitall, or EP_Wait in
 *   reverse order.
 * - MPI_IN_PLACE rounds (Allreduce, Allgather, Alltoall, Scan, Gather at the root) read the
 *   receive buffer at each start.
 * - The count and displacement arrays are overwritten after init: the requests keep what
 *   they said at init.
 * - The neighbourhood forms on a periodic ring (EP_Cart_create), each round checked.
 * - Completion leaves each request inactive and its handle set; EP_Request_free sets it to
 *   EP_REQUEST_NULL.
 * - Bad input at init (root, count, NULL request, no topology, starting an active request):
 *   the documented error class, and the communicator works afterwards; intercommunicators are
 *   refused with EP_ERR_UNSUPPORTED.
 */
#include "ep_test.h"

#define ROUNDS 150
#define MAXR 16 /* requests of the main set */

/* The value rank r sends as element i in round k. */
static int V(int k, int r, int i)
{
    return k * 1000 + r * 10 + i;
}

typedef struct {
    EP_Comm c;
    int me, n;
} T;

static void expect(const char *what, int k, const int *got, const int *want, int len)
{
    for (int i = 0; i < len; i++)
        if (got[i] != want[i]) {
            CHECK(got[i] == want[i], "%s round %d: element %d is %d, expected %d", what, k, i, got[i], want[i]);
            return;
        }
}

/* Buffers of the main set, sized for n ranks. */
typedef struct {
    int bc[3];
    int red_s[2], red_r[2];
    int ar_s[2], ar_r[2], ar_ip[2];
    int *ga_r, ga_s[2], *gip_r;
    int *gv_r, gv_s[3], gv_counts_kept[64], *gv_counts, *gv_displs;
    int *sc_s, sc_r[2];
    int *ag_r, ag_s[1], *agip_r;
    int *a2a_s, *a2a_r, *a2aip;
    int *a2av_s, *a2av_r, *sc_counts, *sd, *rc_counts, *rd;
    int *a2aw_s, *a2aw_r, *wcounts, *wdispls;
    MPI_Datatype *wtypes;
    int *rsb_s, rsb_r[2];
    int *rs_s, rs_r[2], *rs_counts;
    int sc_sv[2], sc_rv[2], ex_rv[2], scip[2];
} Bufs;

/* Rank r's count in the varied forms. */
static int vc(int r)
{
    return r % 3;
}

static void t_main(T *t)
{
    int n = t->n, me = t->me;
    int root = n - 1, gvroot = n > 1 ? 1 : 0;
    Bufs b;
    memset(&b, 0, sizeof b);
    b.ga_r = calloc(2 * n, sizeof(int));
    b.gip_r = calloc(2 * n, sizeof(int));
    int gv_total = 0;
    b.gv_counts = calloc(n, sizeof(int));
    b.gv_displs = calloc(n, sizeof(int));
    /* Blocks in reverse rank order, one int of gap after each. */
    for (int r = n - 1; r >= 0; r--) {
        b.gv_counts[r] = vc(r);
        b.gv_displs[r] = gv_total;
        gv_total += vc(r) + 1;
    }
    b.gv_r = calloc(gv_total + 1, sizeof(int));
    b.sc_s = calloc(2 * n, sizeof(int));
    b.ag_r = calloc(n, sizeof(int));
    b.agip_r = calloc(n, sizeof(int));
    b.a2a_s = calloc(2 * n, sizeof(int));
    b.a2a_r = calloc(2 * n, sizeof(int));
    b.a2aip = calloc(2 * n, sizeof(int));
    /* Alltoallv: rank me sends vc(me + d) ints to d (so d gets vc(s + d) from s). */
    b.sc_counts = calloc(n, sizeof(int));
    b.sd = calloc(n, sizeof(int));
    b.rc_counts = calloc(n, sizeof(int));
    b.rd = calloc(n, sizeof(int));
    int st = 0, rt = 0;
    for (int d = 0; d < n; d++) {
        b.sc_counts[d] = vc(me + d);
        b.sd[d] = st;
        st += vc(me + d);
        b.rc_counts[d] = vc(d + me);
        b.rd[d] = rt;
        rt += vc(d + me);
    }
    b.a2av_s = calloc(st + 1, sizeof(int));
    b.a2av_r = calloc(rt + 1, sizeof(int));
    /* Alltoallw: one int to each rank, byte displacements in reverse order. */
    b.a2aw_s = calloc(n, sizeof(int));
    b.a2aw_r = calloc(n, sizeof(int));
    b.wcounts = calloc(n, sizeof(int));
    b.wdispls = calloc(n, sizeof(int));
    b.wtypes = calloc(n, sizeof(MPI_Datatype));
    for (int d = 0; d < n; d++) {
        b.wcounts[d] = 1;
        b.wdispls[d] = (int)((n - 1 - d) * sizeof(int));
        b.wtypes[d] = MPI_INT;
    }
    b.rsb_s = calloc(2 * n, sizeof(int));
    b.rs_counts = calloc(n, sizeof(int));
    int rs_total = 0;
    for (int r = 0; r < n; r++) {
        b.rs_counts[r] = r % 2 + 1;
        rs_total += r % 2 + 1;
    }
    b.rs_s = calloc(rs_total, sizeof(int));

    EP_Request q[MAXR + 8];
    const char *names[MAXR + 8];
    int m = 0;
    EP_Comm c = t->c;
    MPI_Info in = MPI_INFO_NULL;
#define MAKE(name, call)                                                                   \
    do {                                                                                   \
        names[m] = name;                                                                   \
        q[m] = EP_REQUEST_NULL;                                                            \
        CHECK_OK(call);                                                                    \
        CHECK(q[m] != EP_REQUEST_NULL, "%s made no request", name);                        \
        m++;                                                                               \
    } while (0)
    MAKE("Barrier", EP_Barrier_init(c, in, &q[m]));
    MAKE("Bcast", EP_Bcast_init(b.bc, 3, MPI_INT, root, c, in, &q[m]));
    MAKE("Reduce", EP_Reduce_init(b.red_s, b.red_r, 2, MPI_INT, MPI_SUM, 0, c, in, &q[m]));
    MAKE("Allreduce", EP_Allreduce_init(b.ar_s, b.ar_r, 2, MPI_INT, MPI_SUM, c, in, &q[m]));
    MAKE("Allreduce in place", EP_Allreduce_init(MPI_IN_PLACE, b.ar_ip, 2, MPI_INT, MPI_MAX, c, in, &q[m]));
    MAKE("Gather", EP_Gather_init(b.ga_s, 2, MPI_INT, b.ga_r, 2, MPI_INT, 0, c, in, &q[m]));
    MAKE("Gather in place", EP_Gather_init(me == root ? MPI_IN_PLACE : (void *)b.ga_s, 2, MPI_INT, b.gip_r, 2,
                                           MPI_INT, root, c, in, &q[m]));
    MAKE("Gatherv", EP_Gatherv_init(b.gv_s, vc(me), MPI_INT, b.gv_r, b.gv_counts, b.gv_displs, MPI_INT, gvroot, c,
                                    in, &q[m]));
    MAKE("Scatter", EP_Scatter_init(b.sc_s, 2, MPI_INT, b.sc_r, 2, MPI_INT, root, c, in, &q[m]));
    MAKE("Allgather", EP_Allgather_init(b.ag_s, 1, MPI_INT, b.ag_r, 1, MPI_INT, c, in, &q[m]));
    MAKE("Allgather in place", EP_Allgather_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.agip_r, 1, MPI_INT, c, in,
                                                 &q[m]));
    MAKE("Alltoall", EP_Alltoall_init(b.a2a_s, 2, MPI_INT, b.a2a_r, 2, MPI_INT, c, in, &q[m]));
    MAKE("Alltoall in place", EP_Alltoall_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.a2aip, 2, MPI_INT, c, in,
                                               &q[m]));
    MAKE("Alltoallv", EP_Alltoallv_init(b.a2av_s, b.sc_counts, b.sd, MPI_INT, b.a2av_r, b.rc_counts, b.rd, MPI_INT,
                                        c, in, &q[m]));
    MAKE("Alltoallw", EP_Alltoallw_init(b.a2aw_s, b.wcounts, b.wdispls, b.wtypes, b.a2aw_r, b.wcounts, b.wdispls,
                                        b.wtypes, c, in, &q[m]));
    MAKE("Reduce_scatter_block", EP_Reduce_scatter_block_init(b.rsb_s, b.rsb_r, 2, MPI_INT, MPI_SUM, c, in, &q[m]));
    int m_main = m;
    MAKE("Reduce_scatter", EP_Reduce_scatter_init(b.rs_s, b.rs_r, b.rs_counts, MPI_INT, MPI_SUM, c, in, &q[m]));
    MAKE("Scan", EP_Scan_init(b.sc_sv, b.sc_rv, 2, MPI_INT, MPI_SUM, c, in, &q[m]));
    MAKE("Exscan", EP_Exscan_init(b.sc_sv, b.ex_rv, 2, MPI_INT, MPI_SUM, c, in, &q[m]));
    MAKE("Scan in place", EP_Scan_init(MPI_IN_PLACE, b.scip, 2, MPI_INT, MPI_SUM, c, in, &q[m]));
    (void)m_main;
    /* The arrays were read at init: garbage now must change nothing. */
    for (int r = 0; r < n; r++) {
        b.gv_counts[r] = b.gv_displs[r] = b.sc_counts[r] = b.rc_counts[r] = -7;
        b.sd[r] = b.rd[r] = b.rs_counts[r] = b.wcounts[r] = b.wdispls[r] = -7;
        b.wtypes[r] = MPI_DATATYPE_NULL;
    }
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int k = 0; k < ROUNDS; k++) {
        /* Data of this round. */
        for (int i = 0; i < 3; i++)
            b.bc[i] = me == root ? V(k, root, i) : -1;
        for (int i = 0; i < 2; i++) {
            b.red_s[i] = b.ar_s[i] = b.ga_s[i] = b.sc_sv[i] = V(k, me, i);
            b.red_r[i] = b.ar_r[i] = b.sc_r[i] = b.rsb_r[i] = b.rs_r[i] = b.sc_rv[i] = -1;
            b.ar_ip[i] = V(k, me, i) * (me % 2 ? -1 : 1);
            b.scip[i] = V(k, me, i) + 1;
            b.ex_rv[i] = -5;
        }
        for (int i = 0; i < 3; i++)
            b.gv_s[i] = V(k, me, i);
        for (int i = 0; i < 2 * n; i++) {
            b.ga_r[i] = -1;
            b.gip_r[i] = me == root ? (i / 2 == me ? V(k, me, i % 2) : -1) : -1;
            b.sc_s[i] = me == root ? V(k, i / 2, i % 2) : -1;
            b.a2a_s[i] = V(k, me, i);
            b.a2a_r[i] = -1;
            b.a2aip[i] = V(k, me, i) + 3;
            b.rsb_s[i] = V(k, me, i);
        }
        for (int i = 0; i < gv_total + 1; i++)
            b.gv_r[i] = -1;
        b.ag_s[0] = V(k, me, 0);
        for (int r = 0; r < n; r++) {
            b.ag_r[r] = -1;
            b.agip_r[r] = r == me ? V(k, me, 7) : -1;
            b.a2aw_s[n - 1 - r] = V(k, me, r); /* to rank r, at byte displacement (n-1-r) ints */
            b.a2aw_r[r] = -1;
        }
        for (int i = 0; i < rs_total; i++)
            b.rs_s[i] = V(k, me, i);
        {
            int at = 0;
            for (int d = 0; d < n; d++)
                for (int j = 0; j < vc(me + d); j++)
                    b.a2av_s[at++] = V(k, me, d * 3 + j);
            for (int i = 0; i < rt + 1; i++)
                b.a2av_r[i] = -1;
        }
        /* Start: all at once, or one by one; a ring message and a blocking collective meanwhile. */
        int tok_in = -1, tok_out = V(k, me, 9);
        EP_Request p2p[2];
        CHECK_OK(EP_Irecv(&tok_in, 1, MPI_INT, left, 5, c, &p2p[0]));
        if (k % 2 == 0) {
            CHECK_OK(EP_Startall(m, q));
        } else {
            for (int i = 0; i < m; i++)
                CHECK_OK(EP_Start(&q[i]));
        }
        CHECK_OK(EP_Isend(&tok_out, 1, MPI_INT, right, 5, c, &p2p[1]));
        if (k % 5 == 0) {
            int one = 1, all = 0;
            CHECK_OK(EP_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, c));
            CHECK(all == n, "blocking Allreduce among persistent rounds: %d", all);
        }
        if (k % 3 == 0) {
            CHECK_OK(EP_Waitall(m, q, EP_STATUSES_IGNORE));
        } else {
            for (int i = m - 1; i >= 0; i--)
                CHECK_OK(EP_Wait(&q[i], EP_STATUS_IGNORE));
        }
        CHECK_OK(EP_Waitall(2, p2p, EP_STATUSES_IGNORE));
        CHECK(tok_in == V(k, left, 9), "ring message round %d: %d", k, tok_in);
        for (int i = 0; i < m; i++)
            CHECK(q[i] != EP_REQUEST_NULL, "%s: completion freed the persistent request", names[i]);
        /* Expected results. */
        int w[64 * 8];
        for (int i = 0; i < 3; i++)
            w[i] = V(k, root, i);
        expect("Bcast", k, b.bc, w, 3);
        for (int i = 0; i < 2; i++) {
            w[i] = 0;
            for (int r = 0; r < n; r++)
                w[i] += V(k, r, i);
        }
        if (me == 0)
            expect("Reduce", k, b.red_r, w, 2);
        expect("Allreduce", k, b.ar_r, w, 2);
        int mx[2] = {-(1 << 30), -(1 << 30)};
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 2; i++) {
                int v = V(k, r, i) * (r % 2 ? -1 : 1);
                mx[i] = v > mx[i] ? v : mx[i];
            }
        expect("Allreduce in place", k, b.ar_ip, mx, 2);
        for (int i = 0; i < 2 * n; i++)
            w[i] = V(k, i / 2, i % 2);
        if (me == 0)
            expect("Gather", k, b.ga_r, w, 2 * n);
        if (me == root)
            expect("Gather in place", k, b.gip_r, w, 2 * n);
        if (me == gvroot) {
            int at = 0;
            for (int r = n - 1; r >= 0; r--) {
                for (int j = 0; j < vc(r); j++)
                    w[at++] = V(k, r, j);
                w[at++] = -1;
            }
            w[at++] = -1;
            expect("Gatherv", k, b.gv_r, w, gv_total + 1);
        }
        for (int i = 0; i < 2; i++)
            w[i] = V(k, me, i);
        expect("Scatter", k, b.sc_r, w, 2);
        for (int r = 0; r < n; r++)
            w[r] = V(k, r, 0);
        expect("Allgather", k, b.ag_r, w, n);
        for (int r = 0; r < n; r++)
            w[r] = V(k, r, 7);
        expect("Allgather in place", k, b.agip_r, w, n);
        for (int s = 0; s < n; s++)
            for (int j = 0; j < 2; j++)
                w[2 * s + j] = V(k, s, 2 * me + j);
        expect("Alltoall", k, b.a2a_r, w, 2 * n);
        for (int s = 0; s < n; s++)
            for (int j = 0; j < 2; j++)
                w[2 * s + j] = V(k, s, 2 * me + j) + 3;
        expect("Alltoall in place", k, b.a2aip, w, 2 * n);
        {
            int at = 0;
            for (int s = 0; s < n; s++)
                for (int j = 0; j < vc(s + me); j++)
                    w[at++] = V(k, s, me * 3 + j);
            w[at++] = -1;
            expect("Alltoallv", k, b.a2av_r, w, rt + 1);
        }
        for (int s = 0; s < n; s++)
            w[n - 1 - s] = V(k, s, me);
        expect("Alltoallw", k, b.a2aw_r, w, n);
        for (int i = 0; i < 2; i++) {
            w[i] = 0;
            for (int r = 0; r < n; r++)
                w[i] += V(k, r, 2 * me + i);
        }
        expect("Reduce_scatter_block", k, b.rsb_r, w, 2);
        {
            int off = 0;
            for (int r = 0; r < me; r++)
                off += r % 2 + 1;
            for (int i = 0; i < me % 2 + 1; i++) {
                w[i] = 0;
                for (int r = 0; r < n; r++)
                    w[i] += V(k, r, off + i);
            }
            expect("Reduce_scatter", k, b.rs_r, w, me % 2 + 1);
        }
        for (int i = 0; i < 2; i++) {
            w[i] = w[2 + i] = w[4 + i] = 0;
            for (int r = 0; r <= me; r++) {
                w[i] += V(k, r, i);
                w[4 + i] += V(k, r, i) + 1;
                if (r < me)
                    w[2 + i] += V(k, r, i);
            }
        }
        expect("Scan", k, b.sc_rv, w, 2);
        if (me > 0)
            expect("Exscan", k, b.ex_rv, w + 2, 2);
        else
            CHECK(b.ex_rv[0] == -5 && b.ex_rv[1] == -5, "Exscan wrote rank 0's recvbuf");
        expect("Scan in place", k, b.scip, w + 4, 2);
    }
    /* A started request may not be started again; the round still completes. */
    CHECK_OK(EP_Start(&q[3]));
    int rc = EP_Start(&q[3]);
    CHECK(ep_class(rc) == EP_ERR_REQUEST, "Start of an active request: class %d", ep_class(rc));
    CHECK_OK(EP_Wait(&q[3], EP_STATUS_IGNORE));
    /* An inactive request completes at once as a null one. */
    int flag = 0;
    CHECK_OK(EP_Test(&q[3], &flag, EP_STATUS_IGNORE));
    CHECK(flag == 1 && q[3] != EP_REQUEST_NULL, "Test of an inactive request: flag %d", flag);
    for (int i = 0; i < m; i++) {
        CHECK_OK(EP_Request_free(&q[i]));
        CHECK(q[i] == EP_REQUEST_NULL, "%s: Request_free left the handle", names[i]);
    }
#undef MAKE
    free(b.ga_r), free(b.gip_r), free(b.gv_r), free(b.gv_counts), free(b.gv_displs), free(b.sc_s);
    free(b.ag_r), free(b.agip_r), free(b.a2a_s), free(b.a2a_r), free(b.a2aip), free(b.sc_counts), free(b.sd);
    free(b.rc_counts), free(b.rd), free(b.a2av_s), free(b.a2av_r), free(b.a2aw_s), free(b.a2aw_r);
    free(b.wcounts), free(b.wdispls), free(b.wtypes), free(b.rsb_s), free(b.rs_counts), free(b.rs_s);
}

/* The neighbourhood forms on a periodic ring: block 0 from/to the left, block 1 the right. */
static void t_neighbor(T *t)
{
    int n = t->n, me = t->me, dims[1] = {n}, periods[1] = {1};
    EP_Comm ring;
    CHECK_OK(EP_Cart_create(t->c, 1, dims, periods, 0, &ring));
    if (ring == EP_COMM_NULL)
        return;
    int left = (me + n - 1) % n, right = (me + 1) % n;
    int ag_s[2], ag_r[4], agv_r[5], a2a_s[4], a2a_r[4], a2av_s[3], a2av_r[4], a2aw_s[2], a2aw_r[2];
    int counts2[2] = {2, 2}, vcounts[2] = {1, 2}, vdispls[2] = {3, 0}, sdispls[2] = {0, 1};
    int wc[2] = {1, 1};
    MPI_Aint wd[2] = {sizeof(int), 0};
    MPI_Datatype wt[2] = {MPI_INT, MPI_INT};
    EP_Request q[5];
    MPI_Info in = MPI_INFO_NULL;
    CHECK_OK(EP_Neighbor_allgather_init(ag_s, 2, MPI_INT, ag_r, 2, MPI_INT, ring, in, &q[0]));
    CHECK_OK(EP_Neighbor_allgatherv_init(ag_s, 2, MPI_INT, agv_r, counts2, vdispls, MPI_INT, ring, in, &q[1]));
    CHECK_OK(EP_Neighbor_alltoall_init(a2a_s, 2, MPI_INT, a2a_r, 2, MPI_INT, ring, in, &q[2]));
    /* Alltoallv: 1 int to the left, 2 to the right; so 2 from the left, 1 from the right. */
    int rcounts[2] = {2, 1}, rdispls[2] = {2, 0};
    CHECK_OK(EP_Neighbor_alltoallv_init(a2av_s, vcounts, sdispls, MPI_INT, a2av_r, rcounts, rdispls, MPI_INT, ring,
                                        in, &q[3]));
    CHECK_OK(EP_Neighbor_alltoallw_init(a2aw_s, wc, wd, wt, a2aw_r, wc, wd, wt, ring, in, &q[4]));
    vdispls[0] = rdispls[0] = -9; /* read at init */
    wt[0] = MPI_DATATYPE_NULL;
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < 4; i++) {
            a2a_s[i] = V(k, me, i);
            ag_r[i] = a2a_r[i] = a2av_r[i] = -1;
        }
        for (int i = 0; i < 5; i++)
            agv_r[i] = -1;
        ag_s[0] = V(k, me, 0), ag_s[1] = V(k, me, 1);
        for (int i = 0; i < 3; i++)
            a2av_s[i] = V(k, me, 4 + i);
        a2aw_s[1] = V(k, me, 8), a2aw_s[0] = V(k, me, 9); /* to the left at +1 int, the right at 0 */
        a2aw_r[0] = a2aw_r[1] = -1;
        if (k % 2)
            CHECK_OK(EP_Startall(5, q));
        else
            for (int i = 0; i < 5; i++)
                CHECK_OK(EP_Start(&q[i]));
        CHECK_OK(EP_Waitall(5, q, EP_STATUSES_IGNORE));
        int w[5] = {V(k, left, 0), V(k, left, 1), V(k, right, 0), V(k, right, 1)};
        expect("Neighbor_allgather", k, ag_r, w, 4);
        int wv[5] = {V(k, right, 0), V(k, right, 1), -1, V(k, left, 0), V(k, left, 1)};
        expect("Neighbor_allgatherv", k, agv_r, wv, 5);
        int wa[4] = {V(k, left, 2), V(k, left, 3), V(k, right, 0), V(k, right, 1)};
        expect("Neighbor_alltoall", k, a2a_r, wa, 4);
        /* From the left its right block (2 ints at 1) at 2; from the right its left block at 0. */
        int wav[4] = {V(k, right, 4), -1, V(k, left, 5), V(k, left, 6)};
        expect("Neighbor_alltoallv", k, a2av_r, wav, 4);
        /* From the left its block for the right (at 0) lands at +1 int; from the right at 0. */
        int ww[2] = {V(k, right, 8), V(k, left, 9)};
        expect("Neighbor_alltoallw", k, a2aw_r, ww, 2);
    }
    for (int i = 0; i < 5; i++)
        CHECK_OK(EP_Request_free(&q[i]));
    CHECK_OK(EP_Comm_free(&ring));
}

/* Bad input at init, passed by every rank; the communicator works afterwards. */
static void t_bad_input(T *t)
{
    EP_Request r = EP_REQUEST_NULL;
    int x[4] = {0}, y[4] = {0};
    MPI_Info in = MPI_INFO_NULL;
    int rc = EP_Bcast_init(x, 1, MPI_INT, t->n, t->c, in, &r);
    CHECK(ep_class(rc) == EP_ERR_ROOT && r == EP_REQUEST_NULL, "Bcast_init bad root: class %d", ep_class(rc));
    rc = EP_Allreduce_init(x, y, -1, MPI_INT, MPI_SUM, t->c, in, &r);
    CHECK(ep_class(rc) == EP_ERR_COUNT && r == EP_REQUEST_NULL, "Allreduce_init count -1: class %d", ep_class(rc));
    rc = EP_Barrier_init(t->c, in, NULL);
    CHECK(ep_class(rc) == EP_ERR_ARG, "Barrier_init NULL request: class %d", ep_class(rc));
    rc = EP_Reduce_init(x, y, 1, MPI_INT, MPI_OP_NULL, 0, t->c, in, &r);
    CHECK(ep_class(rc) == EP_ERR_OP && r == EP_REQUEST_NULL, "Reduce_init MPI_OP_NULL: class %d", ep_class(rc));
    rc = EP_Neighbor_alltoall_init(x, 1, MPI_INT, y, 1, MPI_INT, t->c, in, &r);
    CHECK(ep_class(rc) == EP_ERR_TOPOLOGY && r == EP_REQUEST_NULL, "Neighbor_alltoall_init without topology: class %d",
          ep_class(rc));
    rc = EP_Gather_init(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, 0, t->c, in, &r);
    CHECK(ep_class(rc) == EP_ERR_TYPE && r == EP_REQUEST_NULL, "Gather_init null type: class %d", ep_class(rc));
    rc = EP_Allreduce_init(x, y, 1, MPI_INT, MPI_SUM, EP_COMM_NULL, in, &r);
    CHECK(ep_class(rc) == EP_ERR_COMM, "Allreduce_init EP_COMM_NULL: class %d", ep_class(rc));
    /* The communicator still works, persistent collectives too. */
    x[0] = t->me;
    CHECK_OK(EP_Allreduce_init(x, y, 1, MPI_INT, MPI_SUM, t->c, in, &r));
    CHECK_OK(EP_Start(&r));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
    CHECK(y[0] == t->n * (t->n - 1) / 2, "Allreduce after bad input: %d", y[0]);
    CHECK_OK(EP_Request_free(&r));
    /* Intercommunicators: refused (EP_ERR_UNSUPPORTED), nothing made. Even ranks against odd. */
    if (t->n >= 2) {
        EP_Comm intra, inter;
        CHECK_OK(EP_Comm_split(t->c, t->me % 2, t->me, &intra));
        CHECK_OK(EP_Intercomm_create(intra, 0, t->c, t->me % 2 ? 0 : 1, 93, &inter));
        rc = EP_Allreduce_init(x, y, 1, MPI_INT, MPI_SUM, inter, in, &r);
        CHECK(ep_class(rc) == EP_ERR_UNSUPPORTED && r == EP_REQUEST_NULL,
              "Allreduce_init on an intercommunicator: class %d", ep_class(rc));
        rc = EP_Barrier_init(inter, in, &r);
        CHECK(ep_class(rc) == EP_ERR_UNSUPPORTED && r == EP_REQUEST_NULL,
              "Barrier_init on an intercommunicator: class %d", ep_class(rc));
        CHECK_OK(EP_Comm_free(&inter));
        CHECK_OK(EP_Comm_free(&intra));
    }
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    EP_Comm *comms = malloc((n > 0 ? n : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    if (n > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n)
        {
            T t = {comms[omp_get_thread_num()], 0, 0};
            EP_Comm_rank(t.c, &t.me);
            EP_Comm_size(t.c, &t.n);
            t_main(&t);
            t_neighbor(&t);
            t_bad_input(&t);
            CHECK_OK(EP_Comm_free(&t.c));
        }
    }
    free(comms);
    return ep_test_finish("pcoll", wr);
}
