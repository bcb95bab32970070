/*
 * Neighbourhood collectives (MPI 4.1 sections 8.6, 8.7) on Cartesian grids (1-D to 3-D,
 * periodic and not, periodic dimensions of extent 1 and 2 included where the shape gives
 * them) and on a distributed graph with uneven degrees, self loops and repeated edges, and
 * bad input to the topology calls.
 *
 * Every received element is checked against a closed form: element k of the block that
 * rank s sends as its block j is VAL(seed, s, j, k); receive block i of a grid comes from
 * in-neighbour i's block i ^ 1 (the block sent to the -1 neighbour lands in the +1 block),
 * of a graph from the sender's block that names this rank for the same occurrence of the
 * edge; blocks of EP_PROC_NULL neighbours and gaps between blocks keep their SENTINEL.
 * Neighbours are computed here from the definition (row-major coordinates), never asked
 * from the library.
 */
#include "ep_test.h"
#include "topo_graphs.h"

#define SENTINEL (-77)
#define MAXN 64 /* most neighbours of a rank in these cases */
#define SLOT 4  /* ints per block slot in receive buffers (counts are at most 3) */

/* Runs the blocking call, or the nonblocking one and waits for its request `q`. */
#define EITHER(blocking, call, icall)                                                      \
    do {                                                                                   \
        if (blocking)                                                                      \
            CHECK_OK(call);                                                                \
        else {                                                                             \
            CHECK_OK(icall);                                                               \
            CHECK_OK(EP_Wait(&q, EP_STATUS_IGNORE));                                       \
        }                                                                                  \
    } while (0)

static void fill(int *buf, int n)
{
    for (int p = 0; p < n; p++)
        buf[p] = SENTINEL;
}

static int VAL(int seed, int s, int j, int k) { return seed * 1000000 + s * 1000 + j * 10 + k; }

/* A rank's neighbourhood as the test computes it. */
typedef struct {
    int in, out;
    int src[MAXN], dst[MAXN];
    int from_block[MAXN]; /* block index at the sender of receive block i */
    int cart;
} Nbhd;

static void cart_nbhd(int me, int nd, const int *dims, const int *periods, Nbhd *h)
{
    int coords[4], r = me;
    for (int d = nd - 1; d >= 0; d--) {
        coords[d] = r % dims[d];
        r /= dims[d];
    }
    h->in = h->out = 2 * nd;
    h->cart = 1;
    for (int d = 0; d < nd; d++) {
        for (int side = 0; side < 2; side++) {
            int c[4];
            memcpy(c, coords, sizeof c);
            c[d] += side ? 1 : -1;
            int nb;
            if (c[d] < 0 || c[d] >= dims[d]) {
                if (!periods[d]) {
                    nb = EP_PROC_NULL;
                    goto done;
                }
                c[d] = (c[d] + dims[d]) % dims[d];
            }
            nb = 0;
            for (int e = 0; e < nd; e++)
                nb = nb * dims[e] + c[e];
        done:
            h->src[2 * d + side] = h->dst[2 * d + side] = nb;
            h->from_block[2 * d + side] = (2 * d + side) ^ 1;
        }
    }
}

static void graph_nbhd(int me, int n, Nbhd *h)
{
    h->cart = 0;
    h->in = 0;
    for (int s = 0; s < n; s++) {
        int d[4], m = graph_out(s, n, d);
        for (int k = 0; k < m; k++)
            if (d[k] == me) {
                h->src[h->in] = s;
                h->from_block[h->in++] = k;
            }
    }
    h->out = graph_out(me, n, h->dst);
}

/* Elements in block j that rank s sends (v and w forms). */
static int cnt(int s, int j) { return 1 + (s + j) % 3; }

/* Checks the receive buffer `buf` (slots of SLOT ints, block i in slot `slot[i]`): block
 * i holds `count(i)` elements from its sender, the rest SENTINEL. */
static void check_blocks(const char *what, int seed, const Nbhd *h, const int *buf, int nslots, const int *slot,
                         int uniform_count, int allgather, int me)
{
    for (int p = 0; p < nslots * SLOT; p++) {
        int expect = SENTINEL;
        for (int i = 0; i < h->in; i++) {
            if (h->src[i] == EP_PROC_NULL || p / SLOT != slot[i])
                continue;
            int s = h->src[i], j = allgather ? 0 : h->from_block[i];
            int c = uniform_count ? uniform_count : (allgather ? cnt(s, 0) : cnt(s, j));
            int k = p % SLOT;
            if (k < c)
                expect = VAL(seed, s, j, k);
        }
        CHECK(buf[p] == expect, "%s seed %d rank %d: element %d is %d, expected %d", what, seed, me, p, buf[p], expect);
    }
}

/* All five neighbourhood collectives and their nonblocking forms on `comm`, whose
 * neighbourhood is `h`. */
static void exchange_all(EP_Comm comm, const Nbhd *h, int seed)
{
    int me;
    EP_Comm_rank(comm, &me);
    int nslots = h->in + 1;
    int *recv = malloc(sizeof(int) * SLOT * nslots), *send = malloc(sizeof(int) * SLOT * (h->out + 1));
    int slot[MAXN], rslot[MAXN], rcounts[MAXN], rdispls[MAXN], scounts[MAXN], sdispls[MAXN];
    MPI_Aint rbytes[MAXN], sbytes[MAXN];
    MPI_Datatype stypes[MAXN], rtypes[MAXN];
    for (int i = 0; i < nslots; i++)
        slot[i] = i;
    for (int i = 0; i < h->in; i++) {
        rslot[i] = h->in - i; /* reversed, slot 0 left as a gap */
        int s = h->src[i];
        rcounts[i] = s == EP_PROC_NULL ? 2 : cnt(s, h->from_block[i]);
        rdispls[i] = rslot[i] * SLOT;
        rbytes[i] = (MPI_Aint)sizeof(int) * rdispls[i];
        rtypes[i] = MPI_INT;
    }
    for (int j = 0; j < h->out; j++) {
        scounts[j] = cnt(me, j);
        sdispls[j] = j * SLOT;
        sbytes[j] = (MPI_Aint)sizeof(int) * sdispls[j];
        stypes[j] = MPI_INT;
        for (int k = 0; k < SLOT; k++)
            send[j * SLOT + k] = VAL(seed, me, j, k);
    }
    for (int blocking = 1; blocking >= 0; blocking--) {
        EP_Request q;
        const char *form = blocking ? "" : "I";
        char what[64];

        /* alltoall: 3 elements per block, packed (stride 3). */
        int packed[3 * MAXN];
        for (int j = 0; j < h->out; j++)
            for (int k = 0; k < 3; k++)
                packed[3 * j + k] = VAL(seed, me, j, k);
        int *r3 = malloc(sizeof(int) * (3 * h->in + 1));
        fill(r3, 3 * h->in + 1);
        EITHER(blocking, EP_Neighbor_alltoall(packed, 3, MPI_INT, r3, 3, MPI_INT, comm),
               EP_Ineighbor_alltoall(packed, 3, MPI_INT, r3, 3, MPI_INT, comm, &q));
        for (int i = 0; i < h->in; i++)
            for (int k = 0; k < 3; k++) {
                int e = h->src[i] == EP_PROC_NULL ? SENTINEL : VAL(seed, h->src[i], h->from_block[i], k);
                CHECK(r3[3 * i + k] == e, "%sneighbor_alltoall seed %d rank %d block %d[%d] = %d, expected %d", form,
                      seed, me, i, k, r3[3 * i + k], e);
            }
        CHECK(r3[3 * h->in] == SENTINEL, "%sneighbor_alltoall wrote past the end", form);
        free(r3);

        /* allgather: the first 2 elements of block 0 to everyone, into slots. */
        int mine[2] = {VAL(seed, me, 0, 0), VAL(seed, me, 0, 1)};
        int *r2 = malloc(sizeof(int) * (2 * h->in + 1));
        fill(r2, 2 * h->in + 1);
        EITHER(blocking, EP_Neighbor_allgather(mine, 2, MPI_INT, r2, 2, MPI_INT, comm),
               EP_Ineighbor_allgather(mine, 2, MPI_INT, r2, 2, MPI_INT, comm, &q));
        for (int i = 0; i < h->in; i++)
            for (int k = 0; k < 2; k++) {
                int e = h->src[i] == EP_PROC_NULL ? SENTINEL : VAL(seed, h->src[i], 0, k);
                CHECK(r2[2 * i + k] == e, "%sneighbor_allgather seed %d rank %d block %d[%d] = %d, expected %d",
                      form, seed, me, i, k, r2[2 * i + k], e);
            }
        free(r2);

        /* allgatherv: cnt(me, 0) elements to everyone, into reversed slots. */
        int agv_counts[MAXN];
        for (int i = 0; i < h->in; i++)
            agv_counts[i] = h->src[i] == EP_PROC_NULL ? 1 : cnt(h->src[i], 0);
        fill(recv, SLOT * nslots);
        EITHER(blocking, EP_Neighbor_allgatherv(send, cnt(me, 0), MPI_INT, recv, agv_counts, rdispls, MPI_INT, comm),
               EP_Ineighbor_allgatherv(send, cnt(me, 0), MPI_INT, recv, agv_counts, rdispls, MPI_INT, comm, &q));
        snprintf(what, sizeof what, "%sneighbor_allgatherv", form);
        check_blocks(what, seed, h, recv, nslots, rslot, 0, 1, me);

        /* alltoallv: cnt(me, j) elements of slot j to out-neighbour j, into reversed slots. */
        fill(recv, SLOT * nslots);
        EITHER(blocking, EP_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm),
               EP_Ineighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm, &q));
        snprintf(what, sizeof what, "%sneighbor_alltoallv", form);
        check_blocks(what, seed, h, recv, nslots, rslot, 0, 0, me);

        /* alltoallw: the same with byte displacements and per-block types. */
        fill(recv, SLOT * nslots);
        EITHER(blocking, EP_Neighbor_alltoallw(send, scounts, sbytes, stypes, recv, rcounts, rbytes, rtypes, comm),
               EP_Ineighbor_alltoallw(send, scounts, sbytes, stypes, recv, rcounts, rbytes, rtypes, comm, &q));
        snprintf(what, sizeof what, "%sneighbor_alltoallw", form);
        check_blocks(what, seed, h, recv, nslots, rslot, 0, 0, me);
        (void)slot;
    }

    /* Two nonblocking neighbourhood collectives pending while user point-to-point traffic
     * with EP_ANY_SOURCE/EP_ANY_TAG runs on the same communicator: neither matches the
     * other's messages. */
    {
        int n;
        EP_Comm_size(comm, &n);
        int a[3 * MAXN], b[2 * MAXN + 1], mine[2] = {VAL(seed + 1, me, 0, 0), VAL(seed + 1, me, 0, 1)};
        int packed[3 * MAXN];
        for (int j = 0; j < h->out; j++)
            for (int k = 0; k < 3; k++)
                packed[3 * j + k] = VAL(seed + 1, me, j, k);
        for (int p = 0; p < 3 * MAXN; p++)
            a[p] = SENTINEL;
        for (int p = 0; p < 2 * MAXN + 1; p++)
            b[p] = SENTINEL;
        EP_Request q[4];
        CHECK_OK(EP_Ineighbor_alltoall(packed, 3, MPI_INT, a, 3, MPI_INT, comm, &q[0]));
        int token = 1000 + me, got = -1;
        EP_Status st;
        CHECK_OK(EP_Irecv(&got, 1, MPI_INT, EP_ANY_SOURCE, EP_ANY_TAG, comm, &q[1]));
        CHECK_OK(EP_Ineighbor_allgather(mine, 2, MPI_INT, b, 2, MPI_INT, comm, &q[2]));
        CHECK_OK(EP_Isend(&token, 1, MPI_INT, (me + 1) % n, 5, comm, &q[3]));
        int done = 0;
        for (int spin = 0; !done; spin++)
            CHECK_OK(EP_Testall(4, q, &done, EP_STATUSES_IGNORE));
        (void)st;
        CHECK(got == 1000 + (me - 1 + n) % n, "user message %d next to pending neighbourhood collectives", got);
        for (int i = 0; i < h->in; i++) {
            for (int k = 0; k < 3; k++) {
                int e = h->src[i] == EP_PROC_NULL ? SENTINEL : VAL(seed + 1, h->src[i], h->from_block[i], k);
                CHECK(a[3 * i + k] == e, "pending ineighbor_alltoall rank %d block %d[%d] = %d, expected %d", me, i,
                      k, a[3 * i + k], e);
            }
            for (int k = 0; k < 2; k++) {
                int e = h->src[i] == EP_PROC_NULL ? SENTINEL : VAL(seed + 1, h->src[i], 0, k);
                CHECK(b[2 * i + k] == e, "pending ineighbor_allgather rank %d block %d[%d] = %d, expected %d", me, i,
                      k, b[2 * i + k], e);
            }
        }
    }
    free(recv);
    free(send);
}

/* EP_Comm_dup keeps the topology, and the two communicators' neighbourhood collectives keep
 * apart: one pending on `comm` while all of them run on the duplicate. */
static void dup_keeps_topology(EP_Comm comm, const Nbhd *h, int seed)
{
    int me, kind = -1, dup_kind = -2;
    EP_Comm_rank(comm, &me);
    EP_Comm dup;
    CHECK_OK(EP_Comm_dup(comm, &dup));
    CHECK_OK(EP_Topo_test(comm, &kind));
    CHECK_OK(EP_Topo_test(dup, &dup_kind));
    CHECK(kind == dup_kind && kind != EP_UNDEFINED && (kind == EP_CART) == h->cart, "Topo_test of a dup: %d, %d",
          dup_kind, kind);
    int packed[MAXN], got[MAXN + 1];
    for (int j = 0; j < h->out; j++)
        packed[j] = VAL(seed + 50, me, j, 0);
    for (int i = 0; i <= h->in; i++)
        got[i] = SENTINEL;
    EP_Request q;
    CHECK_OK(EP_Ineighbor_alltoall(packed, 1, MPI_INT, got, 1, MPI_INT, comm, &q));
    exchange_all(dup, h, seed + 60);
    CHECK_OK(EP_Wait(&q, EP_STATUS_IGNORE));
    for (int i = 0; i < h->in; i++) {
        int e = h->src[i] == EP_PROC_NULL ? SENTINEL : VAL(seed + 50, h->src[i], h->from_block[i], 0);
        CHECK(got[i] == e, "ineighbor_alltoall pending across a dup's collectives: rank %d block %d = %d, expected %d",
              me, i, got[i], e);
    }
    CHECK(got[h->in] == SENTINEL, "ineighbor_alltoall wrote past its blocks");
    CHECK_OK(EP_Comm_free(&dup));
}

/* Halo-sized blocks (200 KB, past every eager limit, through the host between processes):
 * a blocking alltoall, then a nonblocking one whose request is freed by EP_Request_free
 * while under way, then one waited for. */
static void large_blocks(EP_Comm comm, const Nbhd *h, int seed)
{
    enum { BIG = 50000 };
    int me;
    EP_Comm_rank(comm, &me);
    int *send = malloc(sizeof(int) * BIG * (h->out + 1)), *recv = malloc(sizeof(int) * BIG * (h->in + 1));
    int *recv2 = malloc(sizeof(int) * BIG * (h->in + 1));
    for (int j = 0; j < h->out; j++)
        for (int k = 0; k < BIG; k++)
            send[j * BIG + k] = VAL(seed, me, j, k % 10) + k / 10 * 100000;
    for (int round = 0; round < 3; round++) {
        int *into = round == 1 ? recv2 : recv;
        fill(into, BIG * (h->in + 1));
        EP_Request q;
        if (round == 0)
            CHECK_OK(EP_Neighbor_alltoall(send, BIG, MPI_INT, into, BIG, MPI_INT, comm));
        else
            CHECK_OK(EP_Ineighbor_alltoall(send, BIG, MPI_INT, into, BIG, MPI_INT, comm, &q));
        if (round == 1) {
            CHECK_OK(EP_Request_free(&q));
            continue;
        }
        if (round == 2)
            CHECK_OK(EP_Wait(&q, EP_STATUS_IGNORE));
        for (int i = 0; i < h->in; i++)
            for (int k = 0; k < BIG; k++) {
                int s = h->src[i];
                int e = s == EP_PROC_NULL ? SENTINEL : VAL(seed, s, h->from_block[i], k % 10) + k / 10 * 100000;
                if (into[i * BIG + k] != e) {
                    CHECK(0, "large alltoall round %d rank %d block %d[%d] = %d, expected %d", round, me, i, k,
                          into[i * BIG + k], e);
                    break;
                }
            }
    }
    /* When the freed request completes MPI does not say (the leak check at the end sees it
     * gone), so its buffers stay: the send buffer is read and recv2 written until then. */
    free(recv);
    (void)send;
    (void)recv2;
}

static void cart_case(EP_Comm comm, int nd, const int *dims, const int *periods, int seed)
{
    EP_Comm cart;
    CHECK_OK(EP_Cart_create(comm, nd, dims, periods, 1, &cart));
    if (cart == EP_COMM_NULL)
        return;
    int me;
    EP_Comm_rank(cart, &me);
    Nbhd h;
    cart_nbhd(me, nd, dims, periods, &h);
    exchange_all(cart, &h, seed);
    if (seed % 3 == 0)
        dup_keeps_topology(cart, &h, seed);
    if (seed % 3 == 1)
        large_blocks(cart, &h, seed);
    CHECK_OK(EP_Comm_free(&cart));
}

static void graph_case(EP_Comm comm, int seed)
{
    int me, n;
    EP_Comm_rank(comm, &me);
    EP_Comm_size(comm, &n);
    Nbhd h;
    graph_nbhd(me, n, &h);
    EP_Comm g;
    CHECK_OK(EP_Dist_graph_create_adjacent(comm, h.in, h.src, EP_UNWEIGHTED, h.out, h.dst, EP_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &g));
    exchange_all(g, &h, seed);
    dup_keeps_topology(g, &h, seed);
    CHECK_OK(EP_Comm_free(&g));
}

/* EP_Graph_create's graph (every rank gives it whole): each node's neighbours are its
 * sources and destinations; the k-th message from s fills this node's k-th block from s,
 * which s sends as its block for its k-th listing of this node. */
static void whole_graph_case(EP_Comm comm, int seed)
{
    int me, n;
    EP_Comm_rank(comm, &me);
    EP_Comm_size(comm, &n);
    int *index = malloc(sizeof(int) * n), *edges = malloc(sizeof(int) * 4 * n);
    whole_graph(n, index, edges);
    EP_Comm g;
    CHECK_OK(EP_Graph_create(comm, n, index, edges, 1, &g));
    Nbhd h = { 0 };
    h.in = h.out = index[me] - (me ? index[me - 1] : 0);
    for (int i = 0; i < h.in; i++) {
        int s = edges[(me ? index[me - 1] : 0) + i], k = 0;
        h.src[i] = h.dst[i] = s;
        for (int t = 0; t < i; t++)
            k += h.src[t] == s;
        /* s's listing of this node number k. */
        for (int j = 0, seen = 0; j < index[s] - (s ? index[s - 1] : 0); j++)
            if (edges[(s ? index[s - 1] : 0) + j] == me && seen++ == k)
                h.from_block[i] = j;
    }
    exchange_all(g, &h, seed);
    dup_keeps_topology(g, &h, seed);
    CHECK_OK(EP_Comm_free(&g));
    /* A rank outside a grid or graph maps to EP_UNDEFINED (MPI 4.1 section 8.5.8). */
    int mapped = -5, dims[1] = { n - 1 }, periods[1] = { 0 };
    CHECK_OK(EP_Cart_map(comm, 1, dims, periods, &mapped));
    CHECK(mapped == (me == n - 1 ? EP_UNDEFINED : me), "Cart_map of rank %d: %d", me, mapped);
    whole_graph(n - 1, index, edges);
    CHECK_OK(EP_Graph_map(comm, n - 1, index, edges, &mapped));
    CHECK(mapped == (me == n - 1 ? EP_UNDEFINED : me), "Graph_map of rank %d: %d", me, mapped);
    free(index);
    free(edges);
}

/* EP_Dist_graph_create: neighbours in the documented order (by the rank that gave the
 * edge, then the order given), weights, and every neighbourhood collective on it. */
static void graph_create_case(EP_Comm comm, int seed)
{
    int me, n;
    EP_Comm_rank(comm, &me);
    EP_Comm_size(comm, &n);
    int s[4], d[4], w[4], degrees[4], m = given_edges(me, n, s, d);
    for (int k = 0; k < m; k++) {
        degrees[k] = 1;
        w[k] = 100 * s[k] + d[k];
    }
    EP_Comm g;
    CHECK_OK(EP_Dist_graph_create(comm, m, s, degrees, d, w, MPI_INFO_NULL, 0, &g));
    Nbhd h = {0};
    int ws_[MAXN], wd_[MAXN];
    for (int r = 0; r < n; r++) {
        int gs[4], gd[4], gm = given_edges(r, n, gs, gd);
        for (int k = 0; k < gm; k++) {
            if (gs[k] == me) {
                wd_[h.out] = 100 * gs[k] + gd[k];
                h.dst[h.out++] = gd[k];
            }
            if (gd[k] == me) {
                /* The sender's block: how many of its edges came before this one. */
                int before = 0;
                for (int q = 0; q <= r; q++) {
                    int qs[4], qd[4], qm = given_edges(q, n, qs, qd);
                    for (int t = 0; t < qm && (q < r || t < k); t++)
                        before += qs[t] == gs[k];
                }
                ws_[h.in] = 100 * gs[k] + gd[k];
                h.from_block[h.in] = before;
                h.src[h.in++] = gs[k];
            }
        }
    }
    int in = -1, out = -1, weighted = -1, rs[MAXN], rsw[MAXN], rd[MAXN], rdw[MAXN];
    CHECK_OK(EP_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    CHECK(in == h.in && out == h.out && weighted == 1, "Dist_graph_create degrees %d %d %d, expected %d %d 1", in, out,
          weighted, h.in, h.out);
    CHECK_OK(EP_Dist_graph_neighbors(g, MAXN, rs, rsw, MAXN, rd, rdw));
    for (int i = 0; i < h.in; i++)
        CHECK(rs[i] == h.src[i] && rsw[i] == ws_[i], "Dist_graph_create source %d: %d (%d), expected %d (%d)", i, rs[i],
              rsw[i], h.src[i], ws_[i]);
    for (int j = 0; j < h.out; j++)
        CHECK(rd[j] == h.dst[j] && rdw[j] == wd_[j], "Dist_graph_create destination %d: %d (%d), expected %d (%d)", j,
              rd[j], rdw[j], h.dst[j], wd_[j]);
    exchange_all(g, &h, seed);
    CHECK_OK(EP_Comm_free(&g));
    /* A bad rank on one endpoint fails the call everywhere. */
    int bad[1] = {me == n - 1 ? n : me}, one[1] = {1};
    int rc = EP_Dist_graph_create(comm, 1, bad, one, bad, EP_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    CHECK(ep_class(rc) == EP_ERR_RANK, "Dist_graph_create with rank n on rank n-1: class %d on rank %d", ep_class(rc),
          me);
}

/* Bad input: each call fails with its class on every endpoint it concerns, and the
 * communicator keeps working. */
static void bad_input(EP_Comm comm)
{
    int me, n, rc, sum;
    EP_Comm_rank(comm, &me);
    EP_Comm_size(comm, &n);
    EP_Comm bad = 12345;
    int dims[3] = {n, 1, 1}, periods[3] = {0, 0, 0}, coords[3] = {0, 0, 0};

    rc = EP_Cart_create(comm, -1, dims, periods, 0, &bad);
    CHECK(ep_class(rc) == EP_ERR_DIMS, "Cart_create ndims -1: class %d", ep_class(rc));
    int big[2] = {n, 2};
    rc = EP_Cart_create(comm, 2, big, periods, 0, &bad);
    CHECK(ep_class(rc) == EP_ERR_DIMS, "Cart_create grid above the size: class %d", ep_class(rc));
    /* One endpoint's bad dims fail the call everywhere (docs/errors.md). */
    int mine[1] = {me == 0 ? 0 : n};
    rc = EP_Cart_create(comm, 1, mine, periods, 0, &bad);
    CHECK(ep_class(rc) == EP_ERR_DIMS, "Cart_create with rank 0's dims[0] = 0: class %d on rank %d", ep_class(rc), me);
    rc = EP_Cart_create(comm, 1, dims, periods, 0, me == n - 1 ? NULL : &bad);
    CHECK(ep_class(rc) == EP_ERR_ARG, "Cart_create with a NULL output on rank n-1: class %d on rank %d", ep_class(rc),
          me);

    /* Topology calls on a communicator without one. */
    int status = -5;
    CHECK_OK(EP_Topo_test(comm, &status));
    CHECK(status == EP_UNDEFINED, "Topo_test without a topology: %d", status);
    rc = EP_Cart_coords(comm, 0, 3, coords);
    CHECK(ep_class(rc) == EP_ERR_TOPOLOGY, "Cart_coords without a topology: class %d", ep_class(rc));
    int x = 1, y[4];
    rc = EP_Neighbor_alltoall(&x, 1, MPI_INT, y, 1, MPI_INT, comm);
    CHECK(ep_class(rc) == EP_ERR_TOPOLOGY, "Neighbor_alltoall without a topology: class %d", ep_class(rc));
    int ind, outd, w;
    rc = EP_Dist_graph_neighbors_count(comm, &ind, &outd, &w);
    CHECK(ep_class(rc) == EP_ERR_TOPOLOGY, "Dist_graph_neighbors_count without a topology: class %d", ep_class(rc));
    EP_Comm sub;
    int remain[1] = {1};
    rc = EP_Cart_sub(comm, remain, &sub);
    CHECK(ep_class(rc) == EP_ERR_TOPOLOGY, "Cart_sub without a topology: class %d", ep_class(rc));

    /* Dims_create. */
    int d2[2] = {4, 0};
    rc = EP_Dims_create(6, 2, d2);
    CHECK(ep_class(rc) == EP_ERR_DIMS, "Dims_create 6 with a fixed 4: class %d", ep_class(rc));
#ifndef EP_TEST_MPI_NAMES
    /* Under the standard names MPI_Dims_create (no handle) is the host's, whose class for a
     * negative ndims is its own (MPICH 4.0: MPI_ERR_ARG). */
    rc = EP_Dims_create(6, -1, d2);
    CHECK(ep_class(rc) == EP_ERR_DIMS, "Dims_create ndims -1: class %d", ep_class(rc));
#endif
    int d0[1] = {-2};
    rc = EP_Dims_create(6, 1, d0);
    CHECK(ep_class(rc) == EP_ERR_DIMS, "Dims_create negative entry: class %d", ep_class(rc));

    /* Queries with bad arguments on a real grid. */
    EP_Comm cart, graph;
    int one[1] = {n}, open[1] = {0};
    CHECK_OK(EP_Cart_create(comm, 1, one, open, 0, &cart));
    rc = EP_Cart_coords(cart, n, 1, coords);
    CHECK(ep_class(rc) == EP_ERR_RANK, "Cart_coords rank n: class %d", ep_class(rc));
    rc = EP_Cart_coords(cart, -1, 1, coords);
    CHECK(ep_class(rc) == EP_ERR_RANK, "Cart_coords rank -1: class %d", ep_class(rc));
    int src, dst;
    rc = EP_Cart_shift(cart, 1, 1, &src, &dst);
    CHECK(ep_class(rc) == EP_ERR_DIMS, "Cart_shift direction 1 of 1: class %d", ep_class(rc));
    int far[1] = {n};
    rc = EP_Cart_rank(cart, far, &src);
    CHECK(ep_class(rc) == EP_ERR_ARG, "Cart_rank outside a non-periodic dimension: class %d", ep_class(rc));
    rc = EP_Dist_graph_neighbors_count(cart, &ind, &outd, &w);
    CHECK(ep_class(rc) == EP_ERR_TOPOLOGY, "Dist_graph_neighbors_count on a grid: class %d", ep_class(rc));
    CHECK_OK(EP_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(src == (me == 0 ? EP_PROC_NULL : me - 1) && dst == (me == n - 1 ? EP_PROC_NULL : me + 1),
          "Cart_shift on a line: %d %d", src, dst);

    /* A negative count on rank 0: rank 0 gets EP_ERR_COUNT, its neighbours an error too (or
     * success where rank 0 is no neighbour), nobody hangs, and the next call works. */
    int two[2] = {100 + me, 200 + me}, got[2] = {SENTINEL, SENTINEL};
    rc = EP_Neighbor_alltoall(two, me == 0 ? -1 : 1, MPI_INT, got, 1, MPI_INT, cart);
    if (me == 0)
        CHECK(ep_class(rc) == EP_ERR_COUNT, "Neighbor_alltoall count -1: class %d", ep_class(rc));
    else if (me == 1)
        CHECK(ep_class(rc) == EP_ERR_OTHER, "Neighbor_alltoall next to a failed rank: class %d", ep_class(rc));
    else
        CHECK(rc == EP_SUCCESS, "Neighbor_alltoall away from a failed rank: class %d", ep_class(rc));
    got[0] = got[1] = SENTINEL;
    CHECK_OK(EP_Neighbor_alltoall(two, 1, MPI_INT, got, 1, MPI_INT, cart));
    CHECK(got[0] == (me == 0 ? SENTINEL : 200 + me - 1) && got[1] == (me == n - 1 ? SENTINEL : 100 + me + 1),
          "Neighbor_alltoall after an error: %d %d", got[0], got[1]);
    rc = EP_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, got, 1, MPI_INT, cart);
    CHECK(ep_class(rc) == EP_ERR_BUFFER || ep_class(rc) == EP_ERR_OTHER || rc == EP_SUCCESS,
          "Neighbor_alltoall MPI_IN_PLACE: class %d", ep_class(rc));
    if (n > 1)
        CHECK(ep_class(rc) == EP_ERR_BUFFER, "Neighbor_alltoall MPI_IN_PLACE: class %d", ep_class(rc));
    EP_Request q;
    rc = EP_Ineighbor_allgather(two, 1, MPI_INT, got, 1, MPI_INT, cart, NULL);
    CHECK(ep_class(rc) == EP_ERR_ARG, "Ineighbor_allgather NULL request: class %d", ep_class(rc));
    CHECK_OK(EP_Ineighbor_allgather(two, 1, MPI_INT, got, 1, MPI_INT, cart, &q));
    CHECK_OK(EP_Wait(&q, EP_STATUS_IGNORE));
    CHECK(got[0] == (me == 0 ? SENTINEL : 100 + me - 1) && got[1] == (me == n - 1 ? SENTINEL : 100 + me + 1),
          "Ineighbor_allgather after errors: %d %d", got[0], got[1]);

    /* A subgrid that keeps no dimension: each rank alone, 0 dimensions. */
    int none[1] = {0}, ssize = -1, snd = -1;
    CHECK_OK(EP_Cart_sub(cart, none, &sub));
    CHECK_OK(EP_Comm_size(sub, &ssize));
    CHECK_OK(EP_Cartdim_get(sub, &snd));
    CHECK(ssize == 1 && snd == 0, "Cart_sub keeping nothing: size %d ndims %d", ssize, snd);
    CHECK_OK(EP_Comm_free(&sub));
    CHECK_OK(EP_Comm_free(&cart));

    /* A distributed graph with a neighbour out of range on rank 0 fails everywhere. */
    int s0[1] = {me == 0 ? n : me};
    rc = EP_Dist_graph_create_adjacent(comm, 1, s0, EP_UNWEIGHTED, 1, s0, EP_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    CHECK(ep_class(rc) == EP_ERR_RANK, "Dist_graph_create_adjacent rank n on rank 0: class %d on rank %d",
          ep_class(rc), me);
    int wt[1] = {-1};
    rc = EP_Dist_graph_create_adjacent(comm, 1, s0, wt, 1, s0, wt, MPI_INFO_NULL, 0, &graph);
    CHECK(rc != EP_SUCCESS, "Dist_graph_create_adjacent negative weight");
    rc = EP_Dist_graph_create_adjacent(comm, -1, s0, EP_UNWEIGHTED, 0, s0, EP_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    CHECK(ep_class(rc) == EP_ERR_ARG, "Dist_graph_create_adjacent indegree -1: class %d", ep_class(rc));
    /* Self loops, weights empty on a side of degree 0, queries. */
    int self[1] = {me}, sw[1] = {7};
    CHECK_OK(EP_Dist_graph_create_adjacent(comm, 1, self, sw, 0, NULL, EP_WEIGHTS_EMPTY, MPI_INFO_NULL, 1, &graph));
    CHECK_OK(EP_Dist_graph_neighbors_count(graph, &ind, &outd, &w));
    CHECK(ind == 1 && outd == 0 && w == 1, "degrees %d %d weighted %d", ind, outd, w);
    int rs = -1, rw = -1;
    CHECK_OK(EP_Dist_graph_neighbors(graph, 1, &rs, &rw, 0, NULL, NULL));
    CHECK(rs == me && rw == 7, "neighbors %d weight %d", rs, rw);
    rc = EP_Cart_coords(graph, 0, 1, coords);
    CHECK(ep_class(rc) == EP_ERR_TOPOLOGY, "Cart_coords on a graph: class %d", ep_class(rc));
    CHECK_OK(EP_Comm_free(&graph));

    /* The communicator still works. */
    CHECK_OK(EP_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == n * (n - 1) / 2, "allreduce after errors: %d", sum);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    EP_Comm *comms = malloc(sizeof(EP_Comm) * (n + 1));
    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms));
#pragma omp parallel num_threads(n > 0 ? n : 1)
    if (n > 0) {
        EP_Comm c = comms[omp_get_thread_num()];
        int size;
        EP_Comm_size(c, &size);
        int seed = 1;
        int ring[1] = {size}, yes[3] = {1, 1, 1}, no[3] = {0, 0, 0}, mixed[3] = {1, 0, 1};
        cart_case(c, 1, ring, yes, seed++);
        cart_case(c, 1, ring, no, seed++);
        int d2[2] = {0, 0}, d3[3] = {0, 0, 0};
        EP_Dims_create(size, 2, d2);
        EP_Dims_create(size, 3, d3);
        cart_case(c, 2, d2, yes, seed++);
        cart_case(c, 2, d2, mixed, seed++);
        cart_case(c, 2, d2, no, seed++);
        cart_case(c, 3, d3, yes, seed++);
        cart_case(c, 3, d3, mixed, seed++);
        int col[2] = {1, size}, pair[3] = {2, 1, size / 2};
        cart_case(c, 2, col, yes, seed++);
        if (size >= 2)
            cart_case(c, 3, pair, mixed, seed++);
        graph_case(c, seed++);
        graph_create_case(c, seed++);
        whole_graph_case(c, seed++);
        bad_input(c);
        CHECK_OK(EP_Comm_free(&c));
    }
    free(comms);
    return ep_test_finish("neighbor", wr);
}
