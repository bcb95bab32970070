/*
 * Blocking collectives on intercommunicators (MPI 4.1 sections 6.2.2, 6.5 to 6.10): gather(v),
 * scatter(v), allgather(v), alltoall(v), reduce, reduce_scatter(_block), checked element by
 * element, with roots in either group (first and last rank), uneven counts (zeros included),
 * displacements with gaps (which must stay untouched), a non-commutative reduction that checks
 * the remote group's rank order, and the remote group's data in each group for the all-to-all
 * forms. On three intercommunicators: all endpoints but the last against the last (groups of
 * different sizes), even against odd world ranks (groups sharing processes), world rank % 3 == 0
 * against the rest with keys reversing the world order (ranks against process order, groups
 * spread unevenly over the processes). Bad input: roots out of range, MPI_IN_PLACE, scan and
 * exscan, each with its error class, and the intercommunicator still works afterwards.
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
static MPI_Datatype SEG_T;
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
            /* Gather: n ints from every rank of the other group. */
            int *buf = malloc(sizeof(int) * (rsize * 8 + 8));
            int mine[8];
            for (int i = 0; i < n; i++)
                mine[i] = val(t, side, me, i);
            for (int i = 0; i < rsize * 8 + 8; i++)
                buf[i] = -1;
            CHECK_OK(EP_Gather(sends ? mine : NULL, n, MPI_INT, is_root ? buf : NULL, n, MPI_INT, arg, inter));
            if (is_root) {
                int bad = 0;
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < n; i++)
                        bad += buf[r * n + i] != val(t, 1 - side, r, i);
                CHECK(bad == 0 && buf[rsize * n] == -1, "gather at root %d of side %d: %d wrong", root, side, bad);
            }
            /* Gatherv: rank r sends r % 3 + 1 ints, placed with gaps of 2. */
            int *counts = malloc(sizeof(int) * rsize), *displs = malloc(sizeof(int) * rsize);
            for (int r = 0, at = 0; r < rsize; r++) {
                counts[r] = r % 3 + 1;
                displs[r] = at;
                at += counts[r] + 2;
            }
            for (int i = 0; i < rsize * 8 + 8; i++)
                buf[i] = -1;
            CHECK_OK(EP_Gatherv(sends ? mine : NULL, me % 3 + 1, MPI_INT, is_root ? buf : NULL, counts, displs,
                  MPI_INT, arg, inter));
            if (is_root) {
                int bad = 0;
                for (int r = 0; r < rsize; r++) {
                    for (int i = 0; i < counts[r]; i++)
                        bad += buf[displs[r] + i] != val(t, 1 - side, r, i);
                    bad += buf[displs[r] + counts[r]] != -1 || buf[displs[r] + counts[r] + 1] != -1;
                }
                CHECK(bad == 0, "gatherv at root %d of side %d: %d wrong", root, side, bad);
            }
            /* Scatter: the root sends n ints to every rank of the other group. */
            if (is_root)
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < n; i++)
                        buf[r * n + i] = val(t, side, r, i);
            int got[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
            CHECK_OK(EP_Scatter(is_root ? buf : NULL, n, MPI_INT, sends ? got : NULL, n, MPI_INT, arg, inter));
            if (sends)
                for (int i = 0; i < n; i++)
                    CHECK(got[i] == val(t, 1 - side, me, i), "scatter: got[%d] = %d at rank %d of side %d", i,
                          got[i], me, side);
            /* Scatterv: rank r gets r % 3 ints (0 for some), blocks in reverse order. */
            if (is_root) {
                for (int r = 0, at = 0; r < rsize; r++) {
                    counts[rsize - 1 - r] = (rsize - 1 - r) % 3;
                    displs[rsize - 1 - r] = at;
                    for (int i = 0; i < counts[rsize - 1 - r]; i++)
                        buf[at + i] = val(t, side, rsize - 1 - r, i);
                    at += counts[rsize - 1 - r] + 1;
                }
            }
            for (int i = 0; i < 8; i++)
                got[i] = -1;
            CHECK_OK(EP_Scatterv(is_root ? buf : NULL, counts, displs, MPI_INT, sends ? got : NULL, me % 3,
                  MPI_INT, arg, inter));
            if (sends) {
                for (int i = 0; i < me % 3; i++)
                    CHECK(got[i] == val(t, 1 - side, me, i), "scatterv: got[%d] = %d at rank %d of side %d", i,
                          got[i], me, side);
                CHECK(got[me % 3] == -1, "scatterv wrote past its count");
            }
            /* Reduce: the sum and the rank-ordered segments of the other group. */
            long lin[4], lout[4] = {-1, -1, -1, -1};
            for (int i = 0; i < 4; i++)
                lin[i] = (long)val(t, side, me, i);
            CHECK_OK(EP_Reduce(sends ? lin : NULL, is_root ? lout : NULL, 4, MPI_LONG, MPI_SUM, arg, inter));
            if (is_root)
                for (int i = 0; i < 4; i++) {
                    long want = 0;
                    for (int r = 0; r < rsize; r++)
                        want += val(t, 1 - side, r, i);
                    CHECK(lout[i] == want, "reduce sum[%d] %ld, expected %ld at root %d of side %d", i,
                          lout[i], want, root, side);
                }
            seg_t sin[2] = {{me, me, 1}, {me, me, 1}}, sout[2] = {{-1, -1, -1}, {-1, -1, -1}};
            CHECK_OK(EP_Reduce(sends ? sin : NULL, is_root ? sout : NULL, 2, SEG_T, SEG_OP, arg, inter));
            if (is_root)
                CHECK(sout[1].lo == 0 && sout[1].hi == rsize - 1 && sout[1].ok == 1,
                      "ordered reduce (%d %d %d), remote size %d",
                      sout[1].lo, sout[1].hi, sout[1].ok, rsize);
            free(counts);
            free(displs);
            free(buf);
        }
    }
}

static void all_forms(EP_Comm inter, int side, int me, int size, int rsize)
{
    const int t = 50;
    /* Allgather: 2 ints each; each group gets the other's, in its rank order. */
    int mine[4] = {val(t, side, me, 0), val(t, side, me, 1), val(t, side, me, 2), val(t, side, me, 3)};
    int *buf = malloc(sizeof(int) * (rsize * 8 + 8));
    for (int i = 0; i < rsize * 8 + 8; i++)
        buf[i] = -1;
    CHECK_OK(EP_Allgather(mine, 2, MPI_INT, buf, 2, MPI_INT, inter));
    int bad = 0;
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < 2; i++)
            bad += buf[r * 2 + i] != val(t, 1 - side, r, i);
    CHECK(bad == 0 && buf[2 * rsize] == -1, "allgather: %d wrong at rank %d of side %d", bad, me, side);
    /* Allgatherv: rank r sends r % 3 + 1 ints, placed backwards with gaps. */
    int *counts = malloc(sizeof(int) * rsize), *displs = malloc(sizeof(int) * rsize);
    for (int r = rsize - 1, at = 0; r >= 0; r--) {
        counts[r] = r % 3 + 1;
        displs[r] = at;
        at += counts[r] + 1;
    }
    for (int i = 0; i < rsize * 8 + 8; i++)
        buf[i] = -1;
    CHECK_OK(EP_Allgatherv(mine, me % 3 + 1, MPI_INT, buf, counts, displs, MPI_INT, inter));
    bad = 0;
    for (int r = 0; r < rsize; r++) {
        for (int i = 0; i < counts[r]; i++)
            bad += buf[displs[r] + i] != val(t, 1 - side, r, i);
        bad += buf[displs[r] + counts[r]] != -1;
    }
    CHECK(bad == 0, "allgatherv: %d wrong at rank %d of side %d", bad, me, side);

    /* Alltoall: 2 ints to each remote rank. */
    int *sbuf = malloc(sizeof(int) * (rsize * 8 + 8)), *rbuf = malloc(sizeof(int) * (rsize * 8 + 8));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < 2; k++)
            sbuf[j * 2 + k] = a2a(side, me, j, k);
    for (int i = 0; i < rsize * 8 + 8; i++)
        rbuf[i] = -1;
    CHECK_OK(EP_Alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter));
    bad = 0;
    for (int i = 0; i < rsize; i++)
        for (int k = 0; k < 2; k++)
            bad += rbuf[i * 2 + k] != a2a(1 - side, i, me, k);
    CHECK(bad == 0 && rbuf[2 * rsize] == -1, "alltoall: %d wrong at rank %d of side %d", bad, me, side);
    /* Alltoallv: rank a sends (a + b) % 3 ints to rank b (0 for some pairs); the send side
     * leaves a gap after each block, the receive side places blocks backwards. */
    int *scounts = malloc(sizeof(int) * rsize), *sdispls = malloc(sizeof(int) * rsize);
    for (int j = 0, at = 0; j < rsize; j++) {
        scounts[j] = (me + j) % 3;
        sdispls[j] = at;
        for (int k = 0; k < scounts[j]; k++)
            sbuf[at + k] = a2a(side, me, j, k);
        at += scounts[j] + 1;
    }
    for (int i = rsize - 1, at = 0; i >= 0; i--) {
        counts[i] = (i + me) % 3;
        displs[i] = at;
        at += counts[i] + 1;
    }
    for (int i = 0; i < rsize * 8 + 8; i++)
        rbuf[i] = -1;
    CHECK_OK(EP_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, counts, displs, MPI_INT, inter));
    bad = 0;
    for (int i = 0; i < rsize; i++) {
        for (int k = 0; k < counts[i]; k++)
            bad += rbuf[displs[i] + k] != a2a(1 - side, i, me, k);
        bad += rbuf[displs[i] + counts[i]] != -1;
    }
    CHECK(bad == 0, "alltoallv: %d wrong at rank %d of side %d", bad, me, side);

    /* Reduce_scatter_block: the same count in both groups, size * recvcount each. */
    int total = 2 * size * rsize, rc = total / size;
    long *lin = malloc(sizeof(long) * total), lout[64];
    for (int i = 0; i < total; i++)
        lin[i] = (long)val(t, side, me, i);
    for (int i = 0; i < 64; i++)
        lout[i] = -1;
    CHECK_OK(EP_Reduce_scatter_block(lin, lout, rc, MPI_LONG, MPI_SUM, inter));
    bad = 0;
    for (int i = 0; i < rc; i++) {
        long want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(t, 1 - side, r, me * rc + i);
        bad += lout[i] != want;
    }
    CHECK(bad == 0 && lout[rc] == -1, "reduce_scatter_block: %d wrong at rank %d of side %d", bad, me, side);
    /* Reduce_scatter: 37 elements in both groups, blocks of this group's uneven counts. */
    int *rcounts = malloc(sizeof(int) * size), first = 0;
    for (int r = 0; r < size; r++) {
        rcounts[r] = 37 / size + (r < 37 % size);
        if (r < me)
            first += rcounts[r];
    }
    long *lin37 = malloc(sizeof(long) * 37);
    for (int i = 0; i < 37; i++)
        lin37[i] = (long)val(t, side, me, i);
    for (int i = 0; i < 64; i++)
        lout[i] = -1;
    CHECK_OK(EP_Reduce_scatter(lin37, lout, rcounts, MPI_LONG, MPI_SUM, inter));
    bad = 0;
    for (int i = 0; i < rcounts[me]; i++) {
        long want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(t, 1 - side, r, first + i);
        bad += lout[i] != want;
    }
    CHECK(bad == 0 && lout[rcounts[me]] == -1, "reduce_scatter: %d wrong at rank %d of side %d", bad, me, side);
    /* The same with a non-commutative op: the other group's rank order. */
    seg_t *sin = malloc(sizeof(seg_t) * 37), sout[40];
    for (int i = 0; i < 37; i++)
        sin[i] = (seg_t){me, me, 1};
    CHECK_OK(EP_Reduce_scatter(sin, sout, rcounts, SEG_T, SEG_OP, inter));
    for (int i = 0; i < rcounts[me]; i++)
        CHECK(sout[i].lo == 0 && sout[i].hi == rsize - 1 && sout[i].ok == 1,
              "ordered reduce_scatter (%d %d %d)", sout[i].lo,
              sout[i].hi, sout[i].ok);

    /* Bad input, the same on every endpoint: no communication, the communicator goes on. */
    CHECK_CLASS(EP_Allgather(MPI_IN_PLACE, 2, MPI_INT, buf, 2, MPI_INT, inter), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Alltoall(MPI_IN_PLACE, 2, MPI_INT, rbuf, 2, MPI_INT, inter), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Reduce_scatter_block(MPI_IN_PLACE, lout, rc, MPI_LONG, MPI_SUM, inter), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Reduce_scatter(MPI_IN_PLACE, lout, rcounts, MPI_LONG, MPI_SUM, inter), EP_ERR_BUFFER);
    CHECK_CLASS(EP_Scan(lin, lout, 1, MPI_LONG, MPI_SUM, inter), EP_ERR_COMM);
    CHECK_CLASS(EP_Exscan(lin, lout, 1, MPI_LONG, MPI_SUM, inter), EP_ERR_COMM);
    CHECK_CLASS(EP_Gather(mine, 1, MPI_INT, buf, 1, MPI_INT, rsize, inter), EP_ERR_ROOT);
    CHECK_CLASS(EP_Scatterv(buf, counts, displs, MPI_INT, buf, 1, MPI_INT, -9, inter), EP_ERR_ROOT);
    CHECK_CLASS(EP_Reduce(lin, lout, 1, MPI_LONG, MPI_SUM, rsize + 3, inter), EP_ERR_ROOT);
    CHECK_CLASS(EP_Alltoallv(sbuf, NULL, sdispls, MPI_INT, rbuf, counts, displs, MPI_INT, inter), EP_ERR_ARG);
    CHECK_CLASS(EP_Allgather(mine, -1, MPI_INT, buf, 2, MPI_INT, inter), EP_ERR_COUNT);
    /* Still works: an allgather of one int. */
    int one = 7 * me + side, *all = malloc(sizeof(int) * rsize);
    CHECK_OK(EP_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, inter));
    for (int r = 0; r < rsize; r++)
        CHECK(all[r] == 7 * r + 1 - side, "allgather after errors: %d from rank %d", all[r], r);
    free(all);
    free(sin);
    free(lin37);
    free(rcounts);
    free(lin);
    free(scounts);
    free(sdispls);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    free(buf);
}

/* Large blocks (the host's rendezvous paths): allgather, alltoall, gather and scatter. */
static void large(EP_Comm inter, int side, int me, int size, int rsize)
{
    const int N = 40000;
    int *mine = malloc(sizeof(int) * N), *all = malloc(sizeof(int) * (size_t)N * (rsize > size ? rsize : size));
    int *sbuf = malloc(sizeof(int) * (size_t)N * rsize);
    for (int i = 0; i < N; i++)
        mine[i] = val(7, side, me, i);
    CHECK_OK(EP_Allgather(mine, N, MPI_INT, all, N, MPI_INT, inter));
    int bad = 0;
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < N; i++)
            bad += all[(size_t)r * N + i] != val(7, 1 - side, r, i);
    CHECK(bad == 0, "large allgather: %d wrong", bad);
    const int M = N / 4;
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < M; k++)
            sbuf[(size_t)j * M + k] = a2a(side, me, j, k % 100) + k / 100 * 1000000 * 10;
    CHECK_OK(EP_Alltoall(sbuf, M, MPI_INT, all, M, MPI_INT, inter));
    bad = 0;
    for (int i = 0; i < rsize; i++)
        for (int k = 0; k < M; k++)
            bad += all[(size_t)i * M + k] != a2a(1 - side, i, me, k % 100) + k / 100 * 1000000 * 10;
    CHECK(bad == 0, "large alltoall: %d wrong", bad);
    /* Gather at the last rank of group 1, then scatter back from it. */
    int arg = root_arg(side, me, 1, side == 1 ? size - 1 : rsize - 1);
    CHECK_OK(EP_Gather(mine, N, MPI_INT, all, N, MPI_INT, arg, inter));
    if (arg == EP_ROOT) {
        bad = 0;
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                bad += all[(size_t)r * N + i] != val(7, 0, r, i);
        CHECK(bad == 0, "large gather: %d wrong", bad);
    }
    CHECK_OK(EP_Scatter(all, N, MPI_INT, mine, N, MPI_INT, arg, inter));
    if (side == 0) {
        bad = 0;
        for (int i = 0; i < N; i++)
            bad += mine[i] != val(7, 0, me, i);
        CHECK(bad == 0, "large scatter: %d wrong", bad);
    }
    free(sbuf);
    free(all);
    free(mine);
}

/* Rooted MPI_IN_PLACE where every endpoint checks it: the root's group is the root alone. */
static void rooted_in_place(EP_Comm inter, int side, int size, int rsize)
{
    int x[4] = {0, 0, 0, 0};
    if (size == 1) {
        CHECK_CLASS(EP_Gather(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, EP_ROOT, inter), EP_ERR_BUFFER);
        CHECK_CLASS(EP_Reduce(x, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, EP_ROOT, inter), EP_ERR_BUFFER);
    } else if (rsize == 1) {
        CHECK_CLASS(EP_Gather(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT, 0, inter), EP_ERR_BUFFER);
        CHECK_CLASS(EP_Reduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, 0, inter), EP_ERR_BUFFER);
    }
    (void)side;
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
    rooted_in_place(inter, side, size, rsize);
    /* The communicator still works after the errors. */
    long v = me + 1, sum = -1;
    CHECK_OK(EP_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, inter));
    CHECK(sum == (long)rsize * (rsize + 1) / 2, "allreduce after errors %ld", sum);
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
    MPI_Type_free(&SEG_T);
    return ep_test_finish("intercomm_coll", wr);
}
