/*
 * Intercommunicators: the XIOS client/server start-up (clients = every endpoint but the last,
 * server = the last endpoint), groups whose endpoints share processes (even and odd ranks),
 * groups ranked against process order (world rank % 3 == 0 or not, reversed keys),
 * point-to-point across with EP_ANY_SOURCE, merge order, collectives on the merged
 * communicator, EP_Bcast (EP_ROOT / EP_PROC_NULL / remote root, several roots of each group,
 * 0 to 1 MiB) and EP_Allreduce (sum, and a non-commutative op that checks the remote group's
 * rank order) on the intercommunicators, and 50 create/merge/free cycles that leave no live
 * handle behind. Depending on the shape, groups share processes or are disjoint.
 */
#include "ep_test.h"

/* Group = `color` of the world endpoints, ranked by `key`; returns the intercommunicator to
 * the other group, whose rank 0 has world rank `their_leader_world`. */
static EP_Comm make_inter(EP_Comm world, int color, int key, int their_leader_world, EP_Comm *intra)
{
    CHECK_OK(EP_Comm_split(world, color, key, intra));
    EP_Comm inter = EP_COMM_NULL;
    CHECK_OK(EP_Intercomm_create(*intra, 0, world, their_leader_world, 77, &inter));
    return inter;
}

/* A segment of ranks lo..hi, ok while every combination joined adjacent segments in order:
 * the reduction over ranks 0..n-1 is (0, n-1, 1) only in rank order. */
typedef struct {
    int lo, hi, ok;
} seg_t;
static MPI_Datatype SEG_T, INT_PAIR;
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

static int pattern(int seed, int i)
{
    return seed * 7919 + i;
}

/* One broadcast from `root` (rank of the root group `root_side`) of `n` ints; checks the
 * data at every endpoint of the other group and that the root's buffer is untouched. */
static void bcast_case(EP_Comm inter, int side, int root_side, int root, int n, int *buf)
{
    int me, seed = 1000 * root_side + 10 * root + n % 97;
    CHECK_OK(EP_Comm_rank(inter, &me));
    if (side == root_side && me != root) {
        /* Not the root: buffer, count and datatype are not used. */
        CHECK_OK(EP_Bcast(NULL, 12345, MPI_INT, EP_PROC_NULL, inter));
        return;
    }
    for (int i = 0; i < n; i++)
        buf[i] = side == root_side ? pattern(seed, i) : -1;
    CHECK_OK(EP_Bcast(buf, n, MPI_INT, side == root_side ? EP_ROOT : root, inter));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += buf[i] != pattern(seed, i);
    CHECK(bad == 0, "bcast of %d ints from root %d of side %d: %d wrong at rank %d of side %d", n, root, root_side, bad, me, side);
}

/* EP_Bcast and EP_Allreduce on an intercommunicator; `side` tells the two groups apart. */
static void inter_collectives(EP_Comm inter, EP_Comm intra, int side)
{
    int me, size, rsize;
    CHECK_OK(EP_Comm_rank(inter, &me));
    CHECK_OK(EP_Comm_size(inter, &size));
    CHECK_OK(EP_Comm_remote_size(inter, &rsize));
    const int big = (1 << 20) / (int)sizeof(int) + 3;
    int *buf = malloc(sizeof(int) * big);

    /* Bad roots are refused before any communication. */
    CHECK(ep_class(EP_Bcast(buf, 1, MPI_INT, rsize, inter)) == EP_ERR_ROOT, "root = remote size");
    CHECK(ep_class(EP_Bcast(buf, 1, MPI_INT, -7, inter)) == EP_ERR_ROOT, "root -7");
    CHECK(ep_class(EP_Bcast(buf, 1, MPI_INT, EP_ROOT, intra)) == EP_ERR_ROOT, "EP_ROOT on an intracomm");

    const int counts[] = {0, 1, 5, big};
    for (int root_side = 0; root_side < 2; root_side++) {
        int root_size = root_side == side ? size : rsize;
        int roots[3] = {0, root_size - 1, root_size / 2};
        for (int k = 0; k < 3; k++) {
            if ((k >= 1 && roots[k] == roots[0]) || (k == 2 && roots[k] == roots[1]))
                continue;
            for (int c = 0; c < 4; c++)
                bcast_case(inter, side, root_side, roots[k], counts[c], buf);
        }
        /* The root sends 6 ints, the receivers take 3 pairs: same type signature. */
        if (root_side == side) {
            for (int i = 0; i < 6; i++)
                buf[i] = 40 + i;
            CHECK_OK(EP_Bcast(me == 0 ? buf : NULL, 6, MPI_INT, me == 0 ? EP_ROOT : EP_PROC_NULL, inter));
        } else {
            memset(buf, 0, 6 * sizeof(int));
            CHECK_OK(EP_Bcast(buf, 3, INT_PAIR, 0, inter));
            for (int i = 0; i < 6; i++)
                CHECK(buf[i] == 40 + i, "pair bcast: buf[%d] = %d", i, buf[i]);
        }
    }

    /* Sum: each group gets the sum of the other group's inputs. */
    const int lcounts[] = {0, 1, 4, 200000};
    long *in = malloc(sizeof(long) * 200000), *out = malloc(sizeof(long) * 200000);
    for (int c = 0; c < 4; c++) {
        int n = lcounts[c];
        for (int i = 0; i < n; i++) {
            in[i] = (long)(1000 * side + me + 1) * (i + 1);
            out[i] = -1;
        }
        CHECK_OK(EP_Allreduce(in, out, n, MPI_LONG, MPI_SUM, inter));
        long per = 1000L * (1 - side) * rsize + (long)rsize * (rsize + 1) / 2;
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += out[i] != per * (i + 1);
        CHECK(bad == 0, "allreduce sum of %d longs: %d wrong (out[0] = %ld, expected %ld) at rank %d of side %d", n, bad,
              n ? out[0] : 0L, per, me, side);
    }
    CHECK(ep_class(EP_Allreduce(MPI_IN_PLACE, out, 1, MPI_LONG, MPI_SUM, inter)) == EP_ERR_BUFFER, "MPI_IN_PLACE on an intercomm");
    long a = 1, b = 0; /* not defined on intercommunicators: a clear error, no hang */
    CHECK(ep_class(EP_Scan(&a, &b, 1, MPI_LONG, MPI_SUM, inter)) == EP_ERR_COMM, "scan on an intercomm");

    /* Non-commutative: the remote group's segments joined in its rank order. */
    const int scounts[] = {3, 70000};
    seg_t *sin = malloc(sizeof(seg_t) * 70000), *sout = malloc(sizeof(seg_t) * 70000);
    for (int c = 0; c < 2; c++) {
        int n = scounts[c];
        for (int i = 0; i < n; i++) {
            sin[i] = (seg_t){me, me, 1};
            sout[i] = (seg_t){-1, -1, -1};
        }
        CHECK_OK(EP_Allreduce(sin, sout, n, SEG_T, SEG_OP, inter));
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += sout[i].lo != 0 || sout[i].hi != rsize - 1 || sout[i].ok != 1;
        CHECK(bad == 0, "ordered allreduce of %d: %d wrong, first (%d %d %d), remote size %d, rank %d of side %d", n, bad,
              sout[0].lo, sout[0].hi, sout[0].ok, rsize, me, side);
    }
    free(sin);
    free(sout);
    free(in);
    free(out);
    free(buf);
}

/* A small broadcast from the remote group's last rank and a sum (the create/free cycles). */
static void quick_collectives(EP_Comm inter, int side)
{
    int me, size, rsize, x = -1;
    CHECK_OK(EP_Comm_rank(inter, &me));
    CHECK_OK(EP_Comm_size(inter, &size));
    CHECK_OK(EP_Comm_remote_size(inter, &rsize));
    if (side == 1) {
        x = 4242 + me;
        CHECK_OK(EP_Bcast(&x, 1, MPI_INT, me == size - 1 ? EP_ROOT : EP_PROC_NULL, inter));
    } else {
        CHECK_OK(EP_Bcast(&x, 1, MPI_INT, rsize - 1, inter));
        CHECK(x == 4242 + rsize - 1, "quick bcast %d", x);
    }
    long v = me, sum = -1;
    CHECK_OK(EP_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, inter));
    CHECK(sum == (long)rsize * (rsize - 1) / 2, "quick allreduce %ld", sum);
}

/* Every endpoint of the low group sends its rank to rank 0 of the other group, which
 * receives them with EP_ANY_SOURCE and answers each; checks sources, sizes and payloads. */
static void exchange(EP_Comm inter, int low)
{
    int me, size, rsize, flag;
    CHECK_OK(EP_Comm_rank(inter, &me));
    CHECK_OK(EP_Comm_size(inter, &size));
    CHECK_OK(EP_Comm_remote_size(inter, &rsize));
    CHECK_OK(EP_Comm_test_inter(inter, &flag));
    CHECK(flag == 1, "test_inter %d", flag);
    if (low) {
        int x = 1000 + me, y = -1;
        CHECK_OK(EP_Send(&x, 1, MPI_INT, 0, 7, inter));
        EP_Status st;
        CHECK_OK(EP_Recv(&y, 1, MPI_INT, 0, 8, inter, &st));
        CHECK(y == 2000 + me && st.MPI_SOURCE == 0, "reply %d from %d to %d", y, st.MPI_SOURCE, me);
    } else if (me == 0) {
        int *seen = calloc(rsize, sizeof(int));
        for (int i = 0; i < rsize; i++) {
            int x = -1;
            EP_Status st;
            CHECK_OK(EP_Recv(&x, 1, MPI_INT, EP_ANY_SOURCE, 7, inter, &st));
            CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && x == 1000 + st.MPI_SOURCE, "got %d from %d", x, st.MPI_SOURCE);
            if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize)
                seen[st.MPI_SOURCE]++;
        }
        for (int i = 0; i < rsize; i++) {
            CHECK(seen[i] == 1, "source %d seen %d times", i, seen[i]);
            int y = 2000 + i;
            CHECK_OK(EP_Send(&y, 1, MPI_INT, i, 8, inter));
        }
        free(seen);
    }
}

/* Merges with the low group first and checks ranks and a non-trivial allreduce. */
static void merge_and_check(EP_Comm inter, int high, int low_size)
{
    EP_Comm merged;
    int me, mr, ms, size, rsize;
    CHECK_OK(EP_Comm_rank(inter, &me));
    CHECK_OK(EP_Comm_size(inter, &size));
    CHECK_OK(EP_Comm_remote_size(inter, &rsize));
    CHECK_OK(EP_Intercomm_merge(inter, high, &merged));
    CHECK_OK(EP_Comm_rank(merged, &mr));
    CHECK_OK(EP_Comm_size(merged, &ms));
    CHECK(ms == size + rsize, "merged size %d", ms);
    int expect = high ? low_size + me : me;
    CHECK(mr == expect, "merged rank %d, expected %d (high %d)", mr, expect, high);
    long x = mr, sum = 0;
    CHECK_OK(EP_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, merged));
    CHECK(sum == (long)ms * (ms - 1) / 2, "merged allreduce %ld", sum);
    CHECK_OK(EP_Barrier(merged));
    CHECK_OK(EP_Comm_free(&merged));
}

static void body(EP_Comm world)
{
    int wr, ws;
    CHECK_OK(EP_Comm_rank(world, &wr));
    CHECK_OK(EP_Comm_size(world, &ws));
    if (ws < 2)
        return;

    /* XIOS: clients are all but the last endpoint, the server is the last. */
    int server = wr == ws - 1;
    EP_Comm intra, inter;
    /* Keys are world ranks, so each group's leader (its rank 0) is its lowest world rank. */
    inter = make_inter(world, server, wr, server ? 0 : ws - 1, &intra);
    exchange(inter, !server);
    CHECK_OK(EP_Barrier(inter));
    inter_collectives(inter, intra, server);
    merge_and_check(inter, server, ws - 1);
    EP_Comm dup;
    CHECK_OK(EP_Comm_dup(inter, &dup));
    exchange(dup, !server);
    int cmp;
    CHECK_OK(EP_Comm_compare(inter, dup, &cmp));
    CHECK(cmp == EP_CONGRUENT, "dup of intercomm compares %d", cmp);
    CHECK_OK(EP_Comm_free(&dup));
    CHECK_OK(EP_Comm_free(&inter));
    CHECK_OK(EP_Comm_free(&intra));

    /* Shared processes: even and odd world ranks, so a process may hold both groups. */
    int odd = wr % 2;
    inter = make_inter(world, odd, wr, odd ? 0 : 1, &intra);
    inter_collectives(inter, intra, odd);
    CHECK_OK(EP_Comm_free(&inter));
    CHECK_OK(EP_Comm_free(&intra));

    /* Ranks against process order: keys reverse the world order, so each group's rank 0 is
     * its highest world rank. */
    int third = wr % 3 == 0;
    int last_third = (ws - 1) / 3 * 3, last_other = (ws - 1) % 3 ? ws - 1 : ws - 2;
    inter = make_inter(world, third, -wr, third ? last_other : last_third, &intra);
    inter_collectives(inter, intra, third);
    CHECK_OK(EP_Comm_free(&inter));
    CHECK_OK(EP_Comm_free(&intra));

    for (int cycle = 0; cycle < 50; cycle++) {
        inter = make_inter(world, odd, wr, odd ? 0 : 1, &intra);
        if (cycle == 0 || cycle == 49) {
            exchange(inter, odd); /* the odd group sends to rank 0 of the even group */
            quick_collectives(inter, odd);
        }
        /* Both groups pass the same high: any valid order, checked by size and allreduce. */
        EP_Comm merged;
        int ms, mr;
        CHECK_OK(EP_Intercomm_merge(inter, 0, &merged));
        CHECK_OK(EP_Comm_size(merged, &ms));
        CHECK_OK(EP_Comm_rank(merged, &mr));
        long x = mr, sum = 0;
        CHECK_OK(EP_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, merged));
        CHECK(ms == ws && sum == (long)ws * (ws - 1) / 2, "cycle %d merged size %d sum %ld", cycle, ms, sum);
        CHECK_OK(EP_Comm_free(&merged));
        CHECK_OK(EP_Comm_free(&inter));
        CHECK_OK(EP_Comm_free(&intra));
    }
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    MPI_Type_contiguous(3, MPI_INT, &SEG_T);
    MPI_Type_commit(&SEG_T);
    MPI_Type_contiguous(2, MPI_INT, &INT_PAIR);
    MPI_Type_commit(&INT_PAIR);
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
    int live = -1;
    EP_Debug_live_handles(&live, NULL, NULL);
    CHECK(live == 0, "live communicator handles %d", live);
    /* The host objects too (MPICH reports leaked datatypes at MPI_Finalize). */
    MPI_Op_free(&SEG_OP);
    MPI_Type_free(&INT_PAIR);
    MPI_Type_free(&SEG_T);
    return ep_test_finish("intercomm", wr);
}
