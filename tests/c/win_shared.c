/*
 * Shared-memory windows (EP_Win_allocate_shared, EP_Win_shared_query; MPI 4.1 section
 * 12.2.3) and window attributes (EP_Win_get_attr), in every shape of tests/support: endpoints
 * of one process and of several processes of this node load and store each other's segments.
 * - contiguous layout: rank i's segment right after rank i-1's, sizes differing and some 0,
 *   on the world communicator and on a split whose ranks run against process order;
 * - shared_query of every rank (size, unit, address) and of EP_PROC_NULL (lowest rank with
 *   memory), the baseptr of the call and the EP_WIN_BASE attribute agreeing with it;
 * - loads of every other rank's segment after a fence, element by element; stores into the
 *   neighbour's segment; EP_Put into a segment read back by loads; a counter incremented by
 *   load and store under exclusive locks from every endpoint (exact only if the locks
 *   exclude endpoints of the same process and of others); EP_Win_sync;
 * - alloc_shared_noncontig: every segment reachable, cache-line aligned;
 * - attributes of the four flavours, the memory model; shared_query of an EP_Win_create
 *   window (this process's endpoints reachable, others size 0 and NULL);
 * - bad input: rank out of range, unknown key, NULL outputs, a negative size on one endpoint
 *   (every endpoint fails, none hangs), after which the communicator still works;
 * - with the argument "host-cannot-share": the host's failure to make a shared window.
 */
#include "ep_test.h"
#include <stdint.h>

#define CHECK_CLASS(call, cls)                                                             \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        CHECK(ep_class(rc_) == (cls), "got class %d, expected %s", ep_class(rc_), #cls);   \
    } while (0)

/* Ints exposed by rank r: some ranks expose none. */
static int ints_of(int r)
{
    return r % 3 == 1 ? 0 : 3 + 2 * r;
}

static int value_at(int r, int i)
{
    return 100000 * (r + 1) + i;
}

static void check_attrs(EP_Win win, void *base, MPI_Aint size, int unit, int flavor)
{
    void *v = NULL;
    int flag = 0;
    CHECK_OK(EP_Win_get_attr(win, EP_WIN_BASE, &v, &flag));
    CHECK(flag == 1 && v == base, "EP_WIN_BASE %p, expected %p", v, base);
    MPI_Aint *sz = NULL;
    CHECK_OK(EP_Win_get_attr(win, EP_WIN_SIZE, &sz, &flag));
    CHECK(flag == 1 && sz && *sz == size, "EP_WIN_SIZE %ld, expected %ld", sz ? (long)*sz : -1L, (long)size);
    int *du = NULL;
    CHECK_OK(EP_Win_get_attr(win, EP_WIN_DISP_UNIT, &du, &flag));
    CHECK(flag == 1 && du && *du == unit, "EP_WIN_DISP_UNIT %d, expected %d", du ? *du : -1, unit);
    int *fl = NULL;
    CHECK_OK(EP_Win_get_attr(win, EP_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag == 1 && fl && *fl == flavor, "EP_WIN_CREATE_FLAVOR %d, expected %d", fl ? *fl : -1, flavor);
    int *model = NULL;
    CHECK_OK(EP_Win_get_attr(win, EP_WIN_MODEL, &model, &flag));
    /* Both hosts' windows have the unified model on this machine. */
    CHECK(flag == 1 && model && *model == EP_WIN_UNIFIED, "EP_WIN_MODEL %d", model ? *model : -1);
}

/* One shared window over `comm`: layout, loads, stores, puts and locks. */
static void shared_window(EP_Comm comm, int noncontig)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    int *mine = NULL;
    EP_Win win = EP_WIN_NULL;
    CHECK_OK(EP_Win_allocate_shared((MPI_Aint)(ints_of(me) * sizeof(int)), sizeof(int), info, comm, &mine, &win));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (win == EP_WIN_NULL)
        return;
    check_attrs(win, mine, (MPI_Aint)(ints_of(me) * sizeof(int)), sizeof(int), EP_WIN_FLAVOR_SHARED);

    /* Every rank's segment, as shared_query gives it. */
    int **seg = calloc(size, sizeof(int *));
    int lowest = -1;
    for (int r = 0; r < size; r++) {
        MPI_Aint sz = -1;
        int unit = -1;
        CHECK_OK(EP_Win_shared_query(win, r, &sz, &unit, &seg[r]));
        CHECK(sz == (MPI_Aint)(ints_of(r) * sizeof(int)) && unit == (int)sizeof(int),
              "query of rank %d: size %ld unit %d",
              r, (long)sz, unit);
        if (ints_of(r) > 0) {
            CHECK(seg[r] != NULL, "rank %d's segment is NULL", r);
            if (lowest < 0)
                lowest = r;
            if (noncontig)
                CHECK((uintptr_t)seg[r] % 64 == 0, "non-contiguous segment of rank %d at %p", r, (void *)seg[r]);
        }
        if (!noncontig && r > 0)
            CHECK((char *)seg[r] == (char *)seg[r - 1] + ints_of(r - 1) * sizeof(int),
                  "rank %d's segment at %p does not follow rank %d's at %p (%d ints)", r, (void *)seg[r], r - 1,
                  (void *)seg[r - 1], ints_of(r - 1));
    }
    if (ints_of(me) > 0)
        CHECK(seg[me] == mine, "own segment %p, baseptr %p", (void *)seg[me], (void *)mine);
    MPI_Aint psz = -1;
    int punit = -1;
    int *pbase = NULL;
    CHECK_OK(EP_Win_shared_query(win, EP_PROC_NULL, &psz, &punit, &pbase));
    CHECK(lowest >= 0 && pbase == seg[lowest] && psz == (MPI_Aint)(ints_of(lowest) * sizeof(int)),
          "EP_PROC_NULL query: %p size %ld, lowest rank with memory %d", (void *)pbase, (long)psz, lowest);

    /* Stores into one's own segment, loads of everyone's. */
    for (int i = 0; i < ints_of(me); i++)
        mine[i] = value_at(me, i);
    CHECK_OK(EP_Win_fence(0, win));
    for (int r = 0; r < size; r++) {
        int bad = 0;
        for (int i = 0; i < ints_of(r); i++)
            bad += seg[r][i] != value_at(r, i);
        CHECK(bad == 0, "rank %d reads %d wrong ints of rank %d's segment (first %d)", me, bad, r,
              ints_of(r) ? seg[r][0] : 0);
    }
    CHECK_OK(EP_Win_fence(0, win));
    /* Stores into the right neighbour's segment (its last int), then puts into its first. */
    if (ints_of(right) > 1)
        seg[right][ints_of(right) - 1] = -me;
    CHECK_OK(EP_Win_fence(0, win));
    if (ints_of(me) > 1)
        CHECK(mine[ints_of(me) - 1] == -left, "last int %d, expected %d from the left neighbour",
              mine[ints_of(me) - 1], -left);
    CHECK_OK(EP_Win_fence(0, win));
    int word = 7000 + me;
    if (ints_of(right) > 0)
        CHECK_OK(EP_Put(&word, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    CHECK_OK(EP_Win_fence(0, win));
    if (ints_of(me) > 0)
        CHECK(mine[0] == 7000 + left, "put from the left: %d, expected %d", mine[0], 7000 + left);
    CHECK_OK(EP_Win_fence(MPI_MODE_NOSUCCEED, win));

    /* A counter in the lowest rank's segment, incremented by load and store under exclusive
     * locks of that rank: exact only if the lock excludes every other endpoint. */
    if (me == lowest)
        mine[0] = 0;
    CHECK_OK(EP_Barrier(comm));
    for (int k = 0; k < 20; k++) {
        CHECK_OK(EP_Win_lock(MPI_LOCK_EXCLUSIVE, lowest, 0, win));
        volatile int *counter = seg[lowest];
        int v = *counter;
        *counter = v + 1;
        CHECK_OK(EP_Win_unlock(lowest, win));
    }
    CHECK_OK(EP_Barrier(comm));
    CHECK_OK(EP_Win_lock(MPI_LOCK_SHARED, lowest, 0, win));
    CHECK_OK(EP_Win_sync(win));
    CHECK(seg[lowest][0] == 20 * size, "counter %d, expected %d", seg[lowest][0], 20 * size);
    CHECK_OK(EP_Win_unlock(lowest, win));
    CHECK_OK(EP_Barrier(comm));
    free(seg);
    CHECK_OK(EP_Win_free(&win));
    CHECK(win == EP_WIN_NULL, "freed window handle %d", win);
}

/* Attributes of the other flavours, and shared_query of a window of user memory. */
static void other_flavours(EP_Comm comm)
{
    int me, size, index, count, proc;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &size));
    CHECK_OK(EP_Comm_local_info(comm, &index, &count, &proc));
    int *buf = malloc(4 * sizeof(int));
    EP_Win win;
    CHECK_OK(EP_Win_create(buf, 4 * sizeof(int), 2, MPI_INFO_NULL, comm, &win));
    check_attrs(win, buf, 4 * sizeof(int), 2, EP_WIN_FLAVOR_CREATE);
    /* Endpoints of this process are ranks me - index .. me - index + count - 1 on the world
     * communicator (ranked by process, then index). */
    for (int r = 0; r < size; r++) {
        MPI_Aint sz = -1;
        int unit = -1;
        int *b = (int *)1;
        CHECK_OK(EP_Win_shared_query(win, r, &sz, &unit, &b));
        int here = r >= me - index && r < me - index + count;
        if (here)
            CHECK(sz == 4 * sizeof(int) && unit == 2 && b != NULL, "query of rank %d here: %ld %d %p", r,
                  (long)sz, unit, (void *)b);
        else
            CHECK(sz == 0 && b == NULL, "query of rank %d elsewhere: %ld %p", r, (long)sz, (void *)b);
        if (r == me)
            CHECK(b == buf, "own base %p, buffer %p", (void *)b, (void *)buf);
    }
    CHECK_OK(EP_Win_free(&win));
    free(buf);

    void *mem = NULL;
    CHECK_OK(EP_Win_allocate(24, 8, MPI_INFO_NULL, comm, &mem, &win));
    check_attrs(win, mem, 24, 8, EP_WIN_FLAVOR_ALLOCATE);
    CHECK_OK(EP_Win_free(&win));

    CHECK_OK(EP_Win_create_dynamic(MPI_INFO_NULL, comm, &win));
    check_attrs(win, NULL, 0, 1, EP_WIN_FLAVOR_DYNAMIC);
    MPI_Aint sz = -1;
    int unit = -1;
    void *b = (void *)1;
    CHECK_OK(EP_Win_shared_query(win, EP_PROC_NULL, &sz, &unit, &b));
    CHECK(sz == 0 && b == NULL, "dynamic window query: %ld %p", (long)sz, b);
    CHECK_OK(EP_Win_free(&win));
}

static void bad_input(EP_Comm comm)
{
    int me, size;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &size));
    int *mine = NULL;
    EP_Win win = EP_WIN_NULL;
    CHECK_OK(EP_Win_allocate_shared(8, 4, MPI_INFO_NULL, comm, &mine, &win));
    MPI_Aint sz;
    int unit, flag;
    void *b, *v;
    CHECK_CLASS(EP_Win_shared_query(win, size, &sz, &unit, &b), EP_ERR_RANK);
    CHECK_CLASS(EP_Win_shared_query(win, -5, &sz, &unit, &b), EP_ERR_RANK);
    CHECK_CLASS(EP_Win_shared_query(win, 0, NULL, &unit, &b), EP_ERR_ARG);
    CHECK_CLASS(EP_Win_shared_query(win, 0, &sz, &unit, NULL), EP_ERR_ARG);
    CHECK_CLASS(EP_Win_shared_query(EP_WIN_NULL, 0, &sz, &unit, &b), EP_ERR_WIN);
    CHECK_CLASS(EP_Win_get_attr(win, EP_TAG_UB, &v, &flag), EP_ERR_KEYVAL);
    CHECK_CLASS(EP_Win_get_attr(win, EP_WIN_SIZE, NULL, &flag), EP_ERR_ARG);
    CHECK_CLASS(EP_Win_get_attr(win, EP_WIN_SIZE, &v, NULL), EP_ERR_ARG);
#if EP_TEST_MADE_UP_HANDLES
    CHECK_CLASS(EP_Win_get_attr(12345678, EP_WIN_SIZE, &v, &flag), EP_ERR_WIN);
#endif
    CHECK_OK(EP_Win_free(&win));

    /* A negative size on the last rank fails the creation on every endpoint, hanging none. */
    int rc = EP_Win_allocate_shared(me == size - 1 ? -8 : 8, 4, MPI_INFO_NULL, comm, &mine, &win);
    CHECK(rc != EP_SUCCESS, "allocate_shared with a negative size somewhere succeeded");
    if (me == size - 1)
        CHECK(ep_class(rc) == EP_ERR_SIZE, "negative size: class %d", ep_class(rc));
    CHECK_CLASS(EP_Win_allocate_shared(8, 0, MPI_INFO_NULL, comm, &mine, &win), EP_ERR_DISP);
    CHECK_CLASS(EP_Win_allocate_shared(8, 4, MPI_INFO_NULL, comm, NULL, &win), EP_ERR_ARG);
    /* The communicator still works. */
    CHECK_OK(EP_Win_allocate_shared(8, 4, MPI_INFO_NULL, comm, &mine, &win));
    mine[0] = me;
    CHECK_OK(EP_Win_fence(0, win));
    int *first;
    CHECK_OK(EP_Win_shared_query(win, 0, &sz, &unit, &first));
    CHECK(first[0] == 0 && first[2 * (size - 1)] == size - 1, "after errors: %d %d", first[0], first[2 * (size - 1)]);
    CHECK_OK(EP_Win_fence(0, win));
    CHECK_OK(EP_Win_free(&win));
}

/* Run with the argument "host-cannot-share" where the host MPI cannot make shared windows
 * (Open MPI with only its ucx one-sided component): a communicator over several processes
 * fails with EP_ERR_WIN on every endpoint, none hangs, and the communicator keeps working; a
 * communicator inside one process needs no host window and succeeds. */
static void host_cannot_share(EP_Comm world)
{
    int me, size, index, count, proc;
    CHECK_OK(EP_Comm_rank(world, &me));
    CHECK_OK(EP_Comm_size(world, &size));
    CHECK_OK(EP_Comm_local_info(world, &index, &count, &proc));
    int *mine = NULL;
    EP_Win win = EP_WIN_NULL;
    int rc = EP_Win_allocate_shared(16, 4, MPI_INFO_NULL, world, &mine, &win);
    if (count < size) {
        CHECK(ep_class(rc) == EP_ERR_WIN && win == EP_WIN_NULL, "several processes: class %d", ep_class(rc));
    } else {
        CHECK_OK(rc);
        CHECK_OK(EP_Win_free(&win));
    }
    long x = me, sum = -1;
    CHECK_OK(EP_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, world));
    CHECK(sum == (long)size * (size - 1) / 2, "allreduce after the failure: %ld", sum);
}

static void body(EP_Comm world)
{
    int wr, ws;
    CHECK_OK(EP_Comm_rank(world, &wr));
    CHECK_OK(EP_Comm_size(world, &ws));
    shared_window(world, 0);
    shared_window(world, 1);
    /* Ranks against process order: reversed keys, two colours. */
    EP_Comm rev;
    CHECK_OK(EP_Comm_split(world, wr % 2, -wr, &rev));
    shared_window(rev, 0);
    CHECK_OK(EP_Comm_free(&rev));
    other_flavours(world);
    bad_input(world);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    if (n == 0) {
        EP_Comm none;
        CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, &none));
    } else {
#pragma omp parallel num_threads(n)
        {
            EP_Comm world;
            CHECK_OK(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, omp_get_thread_num(), &world));
            if (argc > 1 && strcmp(argv[1], "host-cannot-share") == 0)
                host_cannot_share(world);
            else
                body(world);
            CHECK_OK(EP_Comm_free(&world));
        }
    }
    return ep_test_finish("win_shared", wr);
}
