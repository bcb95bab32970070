/*
 * Nonblocking, persistent and neighbourhood collectives whose program frees the datatypes
 * while they are pending. MPI 4.1 section 5.1.9: freeing a datatype does not affect an
 * operation that uses it, which completes normally. The library unpacks a collective's
 * results when the request completes, and a persistent request uses its datatypes at every
 * start, so neither may use the program's handles then.
 *
 * Each case frees the program's datatypes right after the call (after init for persistent
 * requests), then commits datatypes of other layouts ("decoys") that may take the freed
 * handles' places (an index in MPICH, an address in Open MPI): a library that still used a
 * freed handle would unpack with a decoy's layout, fail, or crash. The datatype is a pair of
 * ints with a hole between them (a vector of 2 blocks of 1 int, stride 2), so that a wrong
 * layout shows; the holes of every receive buffer must keep their mark.
 *
 * Reductions keep the program's datatype: the host's predefined ops take only predefined
 * datatypes, and a user-defined op receives the datatype handle the program passed (MPI 4.1
 * section 6.9.5). So the reductions here use a user-defined op on the pair, declared
 * commutative (the host combines the processes' partial results) and not (every input is
 * folded in rank order at completion), on one datatype of the program's for all endpoints,
 * kept until the end: the op counts the calls that see another handle, which must be none.
 * MINLOC on MPI_2INT checks that a predefined datatype outside the common number types is
 * passed to the host as it is.
 *
 * Cases: EP_Ibcast, EP_Igather, EP_Iscatter, EP_Iallgather, EP_Ialltoall, EP_Ialltoallw (a
 * datatype per block), the reductions EP_Iallreduce, EP_Ireduce, EP_Iscan (see above);
 * persistent EP_Bcast_init, EP_Allgather_init, EP_Allreduce_init (two rounds each, the data
 * changed between rounds); EP_Ineighbor_allgather and EP_Neighbor_allgather_init on a periodic
 * ring; on an intercommunicator, EP_Ibcast, EP_Igather and EP_Iallreduce. Each at 4 and 3000
 * pairs per block.
 */
#include "ep_test.h"
#include "type_decoys.h"

enum { HOLE = -7, SENT_HOLE = -5 };

/* The pair: ints 0 and 2 of 3, extent 3 ints. */
static MPI_Datatype pair_type(void)
{
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Int i of the data of `who` (who < 20000, i < 100000: no overflow). */
static int value(int who, int i) { return who * 100003 + i; }

/* k pairs of `who`'s data at p (3k ints), the senders' holes marked. */
static void fill(int *p, int k, int who)
{
    for (int e = 0; e < k; e++) {
        p[3 * e] = value(who, 2 * e);
        p[3 * e + 1] = SENT_HOLE;
        p[3 * e + 2] = value(who, 2 * e + 1);
    }
}

static int *alloc_holes(size_t pairs)
{
    int *p = malloc((3 * pairs + 1) * sizeof(int));
    for (size_t i = 0; i < 3 * pairs; i++)
        p[i] = HOLE;
    return p;
}

/* Ints of the k pairs at p that differ from `who`'s data (holes, which must keep HOLE, too). */
static int wrong(const int *p, int k, int who)
{
    int bad = 0;
    for (int e = 0; e < k; e++)
        bad += (p[3 * e] != value(who, 2 * e)) + (p[3 * e + 1] != HOLE) + (p[3 * e + 2] != value(who, 2 * e + 1));
    return bad;
}

/* Ints of the k pairs at p that differ from the sum of the data of ranks from..to-1 (holes too). */
static int wrong_sum(const int *p, int k, int from, int to)
{
    int bad = 0;
    for (int e = 0; e < k; e++) {
        int a = 0, b = 0;
        for (int r = from; r < to; r++) {
            a += value(r, 2 * e);
            b += value(r, 2 * e + 1);
        }
        bad += (p[3 * e] != a) + (p[3 * e + 1] != HOLE) + (p[3 * e + 2] != b);
    }
    return bad;
}

/* The datatype of the reductions, and the calls of the op that saw another one. */
static MPI_Datatype PAIR;
static int pair_wrong_type = 0;

/* The user op on pairs: sums ints 0 and 2 of each, leaves the hole. */
static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    if (*t != PAIR) {
#pragma omp atomic
        pair_wrong_type++;
    }
    const int *a = in;
    int *b = inout;
    for (int e = 0; e < *len; e++) {
        b[3 * e] += a[3 * e];
        b[3 * e + 2] += a[3 * e + 2];
    }
}

/* Frees `t`, makes decoys, waits for `r`, and says whether the wait succeeded. */
static int free_and_wait(MPI_Datatype *t, int nt, EP_Request *r, MPI_Datatype decoy[NDECOYS])
{
    for (int i = 0; i < nt; i++)
        MPI_Type_free(&t[i]);
    make_decoys(decoy);
    int rc = EP_Wait(r, EP_STATUS_IGNORE);
    CHECK_OK(rc);
    return rc == EP_SUCCESS;
}

static void nonblocking(EP_Comm c, int k, MPI_Op op_c, MPI_Op op_n)
{
    int me, size;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    MPI_Datatype t[2], decoy[NDECOYS];
    EP_Request r;
    int *mine = alloc_holes(k), *all = alloc_holes((size_t)size * k), *one = alloc_holes(k);
    fill(mine, k, me);

    /* EP_Ibcast from rank 0. */
    if (me == 0)
        fill(one, k, 0);
    t[0] = pair_type();
    CHECK_OK(EP_Ibcast(one, k, t[0], 0, c, &r));
    if (free_and_wait(t, 1, &r, decoy))
        CHECK(me == 0 || wrong(one, k, 0) == 0, "Ibcast of %d pairs, type freed: %d ints wrong", k, wrong(one, k, 0));
    free_decoys(decoy);

    /* EP_Igather to the last rank. */
    int root = size - 1;
    t[0] = pair_type(), t[1] = pair_type();
    CHECK_OK(EP_Igather(mine, k, t[0], all, k, t[1], root, c, &r));
    if (free_and_wait(t, 2, &r, decoy) && me == root)
        for (int s = 0; s < size; s++)
            CHECK(wrong(all + 3 * (size_t)k * s, k, s) == 0, "Igather of %d pairs, types freed: block %d wrong", k, s);
    free_decoys(decoy);

    /* EP_Iscatter from rank 0: block d of the root's buffer holds d's data. */
    for (int d = 0; d < size && me == 0; d++)
        fill(all + 3 * (size_t)k * d, k, d);
    free(one);
    one = alloc_holes(k);
    t[0] = pair_type(), t[1] = pair_type();
    CHECK_OK(EP_Iscatter(all, k, t[0], one, k, t[1], 0, c, &r));
    if (free_and_wait(t, 2, &r, decoy))
        CHECK(wrong(one, k, me) == 0, "Iscatter of %d pairs, types freed: %d ints wrong", k, wrong(one, k, me));
    free_decoys(decoy);

    /* EP_Iallgather. */
    free(all);
    all = alloc_holes((size_t)size * k);
    t[0] = pair_type(), t[1] = pair_type();
    CHECK_OK(EP_Iallgather(mine, k, t[0], all, k, t[1], c, &r));
    if (free_and_wait(t, 2, &r, decoy))
        for (int s = 0; s < size; s++)
            CHECK(wrong(all + 3 * (size_t)k * s, k, s) == 0, "Iallgather of %d pairs, types freed: block %d wrong", k, s);
    free_decoys(decoy);

    /* EP_Ialltoall: block d of rank s's send buffer holds the data of s * 64 + d. */
    int *out = alloc_holes((size_t)size * k);
    for (int d = 0; d < size; d++)
        fill(out + 3 * (size_t)k * d, k, me * 64 + d);
    free(all);
    all = alloc_holes((size_t)size * k);
    t[0] = pair_type(), t[1] = pair_type();
    CHECK_OK(EP_Ialltoall(out, k, t[0], all, k, t[1], c, &r));
    if (free_and_wait(t, 2, &r, decoy))
        for (int s = 0; s < size; s++)
            CHECK(wrong(all + 3 * (size_t)k * s, k, s * 64 + me) == 0, "Ialltoall of %d pairs, types freed: block %d wrong",
                  k, s);
    free_decoys(decoy);

    /* EP_Ialltoallw, a datatype of its own for every block, all freed. */
    MPI_Datatype *types = malloc(2 * (size_t)size * sizeof(MPI_Datatype));
    int *counts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = k;
        displs[i] = 3 * k * i * (int)sizeof(int);
        types[i] = pair_type();
        types[size + i] = pair_type();
    }
    free(all);
    all = alloc_holes((size_t)size * k);
    CHECK_OK(EP_Ialltoallw(out, counts, displs, types, all, counts, displs, types + size, c, &r));
    if (free_and_wait(types, 2 * size, &r, decoy))
        for (int s = 0; s < size; s++)
            CHECK(wrong(all + 3 * (size_t)k * s, k, s * 64 + me) == 0, "Ialltoallw of %d pairs, types freed: block %d wrong",
                  k, s);
    free_decoys(decoy);

    /* EP_Iallreduce, EP_Ireduce and EP_Iscan with the user op, commutative and not, on PAIR
     * (see the file's notes), decoys made meanwhile. */
    for (int commutative = 0; commutative < 2; commutative++) {
        MPI_Op op = commutative ? op_c : op_n;
        int *sum = alloc_holes(k), *at_root = alloc_holes(k), *prefix = alloc_holes(k);
        EP_Request q[3];
        CHECK_OK(EP_Iallreduce(mine, sum, k, PAIR, op, c, &q[0]));
        CHECK_OK(EP_Ireduce(mine, at_root, k, PAIR, op, root, c, &q[1]));
        CHECK_OK(EP_Iscan(mine, prefix, k, PAIR, op, c, &q[2]));
        make_decoys(decoy);
        CHECK_OK(EP_Waitall(3, q, EP_STATUSES_IGNORE));
        CHECK(wrong_sum(sum, k, 0, size) == 0, "Iallreduce of %d pairs (commutative %d): %d ints wrong", k, commutative,
              wrong_sum(sum, k, 0, size));
        CHECK(me != root || wrong_sum(at_root, k, 0, size) == 0, "Ireduce of %d pairs (commutative %d): %d ints wrong", k,
              commutative, wrong_sum(at_root, k, 0, size));
        CHECK(wrong_sum(prefix, k, 0, me + 1) == 0, "Iscan of %d pairs (commutative %d): %d ints wrong", k, commutative,
              wrong_sum(prefix, k, 0, me + 1));
        free_decoys(decoy);
        free(sum);
        free(at_root);
        free(prefix);
    }
    /* EP_Iallreduce with MPI_MINLOC on MPI_2INT: a predefined datatype outside the common
     * number types, which the library must pass to the host as it is (a copy of it is a
     * derived datatype, on which the host refuses its predefined ops). */
    int pair_in[2] = {1000 - me % 3, me}, pair_out[2] = {-1, -1};
    CHECK_OK(EP_Iallreduce(pair_in, pair_out, 1, MPI_2INT, MPI_MINLOC, c, &r));
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
    int low = size > 2 ? 998 : 1000 - (size - 1), at = size > 2 ? 2 : size - 1;
    CHECK(pair_out[0] == low && pair_out[1] == at, "Iallreduce MINLOC on MPI_2INT: (%d, %d), expected (%d, %d)",
          pair_out[0], pair_out[1], low, at);
    free(types);
    free(counts);
    free(displs);
    free(out);
    free(mine);
    free(all);
    free(one);
}

/* Persistent collectives whose types are freed after init; two rounds, data changed between. */
static void persistent(EP_Comm c, int k, MPI_Op op)
{
    int me, size;
    EP_Comm_rank(c, &me);
    EP_Comm_size(c, &size);
    MPI_Datatype t[2], decoy[NDECOYS];
    EP_Request q[3];
    int *mine = alloc_holes(k), *all = alloc_holes((size_t)size * k), *one = alloc_holes(k), *sum = alloc_holes(k);
    for (int i = 0; i < 2; i++)
        t[i] = pair_type();
    CHECK_OK(EP_Bcast_init(one, k, t[0], 0, c, MPI_INFO_NULL, &q[0]));
    CHECK_OK(EP_Allgather_init(mine, k, t[1], all, k, t[1], c, MPI_INFO_NULL, &q[1]));
    /* A user-defined op: on the program's datatype (see the file's notes). */
    CHECK_OK(EP_Allreduce_init(mine, sum, k, PAIR, op, c, MPI_INFO_NULL, &q[2]));
    for (int i = 0; i < 2; i++)
        MPI_Type_free(&t[i]);
    make_decoys(decoy);
    for (int round = 0; round < 2; round++) {
        /* Round `round` sends the data of rank + round * size. */
        int shift = round * size;
        fill(mine, k, me + shift);
        if (me == 0)
            fill(one, k, shift);
        CHECK_OK(EP_Startall(3, q));
        CHECK_OK(EP_Waitall(3, q, EP_STATUSES_IGNORE));
        CHECK(me == 0 || wrong(one, k, shift) == 0, "Bcast_init round %d, %d pairs, type freed: %d ints wrong", round, k,
              wrong(one, k, shift));
        for (int s = 0; s < size; s++)
            CHECK(wrong(all + 3 * (size_t)k * s, k, s + shift) == 0,
                  "Allgather_init round %d, %d pairs, type freed: block %d wrong", round, k, s);
        CHECK(wrong_sum(sum, k, shift, shift + size) == 0, "Allreduce_init round %d, %d pairs: %d ints wrong",
              round, k, wrong_sum(sum, k, shift, shift + size));
    }
    for (int i = 0; i < 3; i++)
        CHECK_OK(EP_Request_free(&q[i]));
    free_decoys(decoy);
    free(mine);
    free(all);
    free(one);
    free(sum);
}

/* EP_Ineighbor_allgather and EP_Neighbor_allgather_init on a periodic ring: block 0 comes
 * from the left neighbour, block 1 from the right one. */
static void neighbours(EP_Comm c, int k)
{
    int me, size, left, right;
    ep_test_ring(c, &me, &size, &left, &right);
    int dims[1] = {size}, periods[1] = {1};
    EP_Comm ring;
    CHECK_OK(EP_Cart_create(c, 1, dims, periods, 0, &ring));
    int rme;
    EP_Comm_rank(ring, &rme);
    ep_test_ring(ring, &rme, &size, &left, &right);
    MPI_Datatype t[2], decoy[NDECOYS];
    EP_Request r;
    int *mine = alloc_holes(k), *two = alloc_holes(2 * (size_t)k);
    fill(mine, k, rme);
    t[0] = pair_type(), t[1] = pair_type();
    CHECK_OK(EP_Ineighbor_allgather(mine, k, t[0], two, k, t[1], ring, &r));
    if (free_and_wait(t, 2, &r, decoy))
        CHECK(wrong(two, k, left) == 0 && wrong(two + 3 * k, k, right) == 0,
              "Ineighbor_allgather of %d pairs, types freed: %d and %d ints wrong", k, wrong(two, k, left),
              wrong(two + 3 * k, k, right));
    free_decoys(decoy);

    t[0] = pair_type(), t[1] = pair_type();
    CHECK_OK(EP_Neighbor_allgather_init(mine, k, t[0], two, k, t[1], ring, MPI_INFO_NULL, &r));
    MPI_Type_free(&t[0]);
    MPI_Type_free(&t[1]);
    make_decoys(decoy);
    for (int round = 0; round < 2; round++) {
        int shift = round * size;
        fill(mine, k, rme + shift);
        CHECK_OK(EP_Start(&r));
        CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
        CHECK(wrong(two, k, left + shift) == 0 && wrong(two + 3 * k, k, right + shift) == 0,
              "Neighbor_allgather_init round %d, %d pairs, types freed: %d and %d ints wrong", round, k,
              wrong(two, k, left + shift), wrong(two + 3 * k, k, right + shift));
    }
    CHECK_OK(EP_Request_free(&r));
    free_decoys(decoy);
    CHECK_OK(EP_Comm_free(&ring));
    free(mine);
    free(two);
}

/* On an intercommunicator of the last rank ("server", group 1) against the others (group 0):
 * EP_Ibcast from the server, EP_Igather to the server, EP_Iallreduce on PAIR (each group gets
 * the sum of the other's inputs). Data is that of the world rank. */
static void inter(EP_Comm world, int k, MPI_Op op)
{
    int wr, ws;
    EP_Comm_rank(world, &wr);
    EP_Comm_size(world, &ws);
    if (ws < 2)
        return;
    int server = wr == ws - 1;
    EP_Comm intra, ic;
    CHECK_OK(EP_Comm_split(world, server, wr, &intra));
    CHECK_OK(EP_Intercomm_create(intra, 0, world, server ? 0 : ws - 1, 93, &ic));
    MPI_Datatype t[2], decoy[NDECOYS];
    EP_Request r;
    int clients = ws - 1;
    int *mine = alloc_holes(k), *one = alloc_holes(k), *all = alloc_holes((size_t)clients * k);
    fill(mine, k, wr);

    t[0] = pair_type();
    CHECK_OK(EP_Ibcast(server ? mine : one, k, t[0], server ? EP_ROOT : 0, ic, &r));
    if (free_and_wait(t, 1, &r, decoy))
        CHECK(server || wrong(one, k, ws - 1) == 0, "Ibcast on an intercommunicator, %d pairs, type freed: %d ints wrong",
              k, wrong(one, k, ws - 1));
    free_decoys(decoy);

    t[0] = pair_type(), t[1] = pair_type();
    CHECK_OK(EP_Igather(mine, k, t[0], all, k, t[1], server ? EP_ROOT : 0, ic, &r));
    if (free_and_wait(t, 2, &r, decoy) && server)
        for (int s = 0; s < clients; s++)
            CHECK(wrong(all + 3 * (size_t)k * s, k, s) == 0,
                  "Igather on an intercommunicator, %d pairs, types freed: block %d wrong", k, s);
    free_decoys(decoy);

    free(one);
    one = alloc_holes(k);
    CHECK_OK(EP_Iallreduce(mine, one, k, PAIR, op, ic, &r));
    make_decoys(decoy);
    CHECK_OK(EP_Wait(&r, EP_STATUS_IGNORE));
    int bad = server ? wrong_sum(one, k, 0, clients) : wrong_sum(one, k, ws - 1, ws);
    CHECK(bad == 0, "Iallreduce on an intercommunicator, %d pairs: %d ints wrong", k, bad);
    free_decoys(decoy);
    CHECK_OK(EP_Comm_free(&ic));
    CHECK_OK(EP_Comm_free(&intra));
    free(mine);
    free(one);
    free(all);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n_ep = ep_test_count_for(wr);
    MPI_Op op_c, op_n;
    PAIR = pair_type();
    MPI_Op_create(pair_sum, 1, &op_c);
    MPI_Op_create(pair_sum, 0, &op_n);
    EP_Comm *comms = malloc((n_ep > 0 ? n_ep : 1) * sizeof(EP_Comm));
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n_ep, MPI_INFO_NULL, comms);
    CHECK_OK(rc);
    if (n_ep > 0 && rc == EP_SUCCESS) {
#pragma omp parallel num_threads(n_ep)
        {
            EP_Comm c = comms[omp_get_thread_num()];
            static const int pairs[] = {4, 3000};
            for (int i = 0; i < 2; i++) {
                nonblocking(c, pairs[i], op_c, op_n);
                persistent(c, pairs[i], op_n);
                neighbours(c, pairs[i]);
                inter(c, pairs[i], op_c);
            }
            CHECK_OK(EP_Comm_free(&c));
        }
    }
    free(comms);
    CHECK(pair_wrong_type == 0, "the user-defined op was called %d times with a datatype other than the program's",
          pair_wrong_type);
    MPI_Op_free(&op_c);
    MPI_Op_free(&op_n);
    MPI_Type_free(&PAIR);
    return ep_test_finish("coll_type_free", wr);
}
