/*
 * General active-target synchronisation on endpoint windows (MPI 4.1 section 12.5.2:
 * EP_Win_post, EP_Win_start, EP_Win_complete, EP_Win_wait, EP_Win_test), in every shape of
 * tests/support (neighbours in the same process and in other processes alike):
 * - a ring of 50 epochs: each endpoint exposes itself to both neighbours and puts into both;
 *   every slot holds the round's value of the right neighbour after the wait (a notice of the
 *   next round may come before this one's wait: each must count for its own epoch); odd
 *   rounds end the exposure with an EP_Win_test loop;
 * - every endpoint's access epoch on rank 0 alone, rank 0 exposing itself to all: puts into
 *   one slot each and an MPI_SUM accumulate into one counter, exact after rank 0's wait;
 * - a get of the target's memory, stored by the target before its post;
 * - EP_Win_test reporting the exposure open while its origin has not started;
 * - MPI_MODE_NOCHECK on post and start (the posts made before a barrier);
 * - passive target and fence on the same window after the epochs;
 * - the errors: complete without start, wait and test without post, a second start or post,
 *   an operation on a rank outside the start's group, a request operation (passive target
 *   only), fence and lock inside the epochs, free inside an exposure epoch, assertion bits MPI
 *   does not allow there, a group naming an endpoint not in the window, a bad group handle;
 *   and what MPI allows: a lock on another target while exposed, a post while locked.
 * Everything is freed: no communicator, request, window or group handle is left.
 */
#include "ep_test.h"

#define ROUNDS 50

#define CHECK_CLASS(call, cls)                                                             \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        CHECK(ep_class(rc_) == (cls), "got class %d, expected %s", ep_class(rc_), #cls);   \
    } while (0)

/* The group of the window's endpoints `a` and `b` (one endpoint when they are the same). */
static EP_Group pair_group(EP_Win win, int a, int b)
{
    EP_Group all, g;
    int ranks[2] = {a, b};
    CHECK_OK(EP_Win_get_group(win, &all));
    CHECK_OK(EP_Group_incl(all, a == b ? 1 : 2, ranks, &g));
    CHECK_OK(EP_Group_free(&all));
    return g;
}

/* Ends the exposure epoch by EP_Win_test: false at least until every origin completed. */
static void test_until_done(EP_Win win)
{
    int flag = 0;
    while (!flag)
        CHECK_OK(EP_Win_test(win, &flag));
}

static void ring_rounds(EP_Comm comm)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    int *slot;
    EP_Win win;
    CHECK_OK(EP_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &slot, &win));
    EP_Group neighbours = pair_group(win, left, right);
    for (int round = 0; round < ROUNDS; round++) {
        int value = 1000 * round + me;
        CHECK_OK(EP_Win_post(neighbours, 0, win));
        CHECK_OK(EP_Win_start(neighbours, 0, win));
        CHECK_OK(EP_Put(&value, 1, MPI_INT, right, 0, 1, MPI_INT, win)); /* right's slot 0: from its left */
        CHECK_OK(EP_Put(&value, 1, MPI_INT, left, 1, 1, MPI_INT, win));  /* left's slot 1: from its right */
        CHECK_OK(EP_Win_complete(win));
        if (round % 2)
            test_until_done(win);
        else
            CHECK_OK(EP_Win_wait(win));
        CHECK(slot[0] == 1000 * round + left, "round %d, rank %d: slot 0 holds %d, expected %d", round, me, slot[0],
              1000 * round + left);
        CHECK(slot[1] == 1000 * round + right, "round %d, rank %d: slot 1 holds %d, expected %d", round, me, slot[1],
              1000 * round + right);
    }
    CHECK_OK(EP_Group_free(&neighbours));
    CHECK_OK(EP_Win_free(&win));
}

/* Every endpoint accesses rank 0 alone; rank 0 exposes itself to the whole window. */
static void all_to_root(EP_Comm comm)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    long *mem;
    MPI_Aint bytes = me == 0 ? (MPI_Aint)(size + 1) * (MPI_Aint)sizeof(long) : 0;
    EP_Win win;
    CHECK_OK(EP_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, comm, &mem, &win));
    EP_Group everyone, root = pair_group(win, 0, 0);
    CHECK_OK(EP_Win_get_group(win, &everyone));
    if (me == 0)
        for (int r = 0; r <= size; r++)
            mem[r] = 0; /* before the first post, which makes these stores visible */
    for (int round = 0; round < 20; round++) {
        if (me == 0)
            CHECK_OK(EP_Win_post(everyone, 0, win));
        CHECK_OK(EP_Win_start(root, 0, win));
        long mine = 100L * round + me, one = round + 1;
        CHECK_OK(EP_Put(&mine, 1, MPI_LONG, 0, 1 + me, 1, MPI_LONG, win));
        CHECK_OK(EP_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
        CHECK_OK(EP_Win_complete(win));
        if (me == 0) {
            if (round % 2)
                test_until_done(win);
            else
                CHECK_OK(EP_Win_wait(win));
            long expect = 0;
            for (int r = 0; r <= round; r++)
                expect += (long)size * (r + 1);
            CHECK(mem[0] == expect, "round %d: counter %ld, expected %ld", round, mem[0], expect);
            for (int r = 0; r < size; r++)
                CHECK(mem[1 + r] == 100L * round + r, "round %d: slot of rank %d holds %ld", round, r, mem[1 + r]);
        }
    }
    CHECK_OK(EP_Group_free(&root));
    CHECK_OK(EP_Group_free(&everyone));
    CHECK_OK(EP_Win_free(&win));
}

/* The target's stores before its post are what an origin's get reads in the epoch. */
static void get_after_post(EP_Comm comm)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    int *mem;
    EP_Win win;
    CHECK_OK(EP_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
    EP_Group from_left = pair_group(win, left, left), to_right = pair_group(win, right, right);
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < 4; i++)
            mem[i] = 10000 * round + 10 * me + i;
        CHECK_OK(EP_Win_post(from_left, 0, win));
        CHECK_OK(EP_Win_start(to_right, 0, win));
        int got[4] = {-1, -1, -1, -1};
        CHECK_OK(EP_Get(got, 4, MPI_INT, right, 0, 4, MPI_INT, win));
        CHECK_OK(EP_Win_complete(win));
        for (int i = 0; i < 4; i++)
            CHECK(got[i] == 10000 * round + 10 * right + i, "round %d, rank %d: got[%d] = %d from rank %d", round, me, i,
                  got[i], right);
        CHECK_OK(EP_Win_wait(win));
    }
    CHECK_OK(EP_Group_free(&from_left));
    CHECK_OK(EP_Group_free(&to_right));
    CHECK_OK(EP_Win_free(&win));
}

/* EP_Win_test reports the exposure open while an origin has not completed: no origin
 * starts before the barrier that follows every target's first test. */
static void test_before_origins(EP_Comm comm)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    int *mem;
    EP_Win win;
    CHECK_OK(EP_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
    EP_Group from_left = pair_group(win, left, left), to_right = pair_group(win, right, right);
    *mem = -1;
    CHECK_OK(EP_Win_post(from_left, 0, win));
    int flag = -1;
    CHECK_OK(EP_Win_test(win, &flag));
    CHECK(flag == 0, "rank %d: EP_Win_test ended the exposure before its origin started", me);
    CHECK_OK(EP_Barrier(comm));
    CHECK_OK(EP_Win_start(to_right, 0, win));
    CHECK_OK(EP_Put(&me, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    CHECK_OK(EP_Win_complete(win));
    test_until_done(win);
    CHECK(*mem == left, "rank %d: holds %d after the test, expected %d", me, *mem, left);
    CHECK_OK(EP_Group_free(&from_left));
    CHECK_OK(EP_Group_free(&to_right));
    CHECK_OK(EP_Win_free(&win));
}

/* MPI_MODE_NOCHECK on both sides: the program orders the posts before the starts. */
static void nocheck(EP_Comm comm)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    int *mem;
    EP_Win win;
    CHECK_OK(EP_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
    EP_Group from_left = pair_group(win, left, left), to_right = pair_group(win, right, right);
    for (int round = 0; round < 5; round++) {
        CHECK_OK(EP_Win_post(from_left, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE, win));
        CHECK_OK(EP_Barrier(comm));
        CHECK_OK(EP_Win_start(to_right, MPI_MODE_NOCHECK, win));
        int value = 7 * round + me;
        CHECK_OK(EP_Put(&value, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        CHECK_OK(EP_Win_complete(win));
        CHECK_OK(EP_Win_wait(win));
        CHECK(*mem == 7 * round + left, "round %d, rank %d: holds %d, expected %d", round, me, *mem, 7 * round + left);
        CHECK_OK(EP_Barrier(comm)); /* the next round's post after every origin's complete */
    }
    CHECK_OK(EP_Group_free(&from_left));
    CHECK_OK(EP_Group_free(&to_right));
    CHECK_OK(EP_Win_free(&win));
}

static void errors_and_other_epochs(EP_Comm comm)
{
    int me, size, left, right;
    ep_test_ring(comm, &me, &size, &left, &right);
    int *mem;
    EP_Win win;
    CHECK_OK(EP_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
    CHECK_OK(EP_Win_set_errhandler(win, EP_ERRORS_RETURN));
    EP_Group self = pair_group(win, me, me);
    int flag = -1, value = me;
    CHECK_CLASS(EP_Win_complete(win), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_wait(win), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_test(win, &flag), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_post(self, MPI_MODE_NOPRECEDE, win), EP_ERR_ARG);
    CHECK_CLASS(EP_Win_start(self, MPI_MODE_NOPUT, win), EP_ERR_ARG);
    CHECK_CLASS(EP_Win_post(EP_GROUP_NULL, 0, win), EP_ERR_GROUP);
    CHECK_CLASS(EP_Win_start(EP_GROUP_NULL, 0, win), EP_ERR_GROUP);

    /* Exposed to itself, accessing itself. */
    CHECK_OK(EP_Win_post(self, 0, win));
    CHECK_CLASS(EP_Win_post(self, 0, win), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_fence(0, win), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_free(&win), EP_ERR_RMA_SYNC);
    CHECK(win != EP_WIN_NULL, "a refused free reset the handle");
    CHECK_OK(EP_Win_start(self, 0, win));
    CHECK_CLASS(EP_Win_start(self, 0, win), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_lock(MPI_LOCK_SHARED, me, 0, win), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_lock_all(0, win), EP_ERR_RMA_SYNC);
    CHECK_CLASS(EP_Win_flush(me, win), EP_ERR_RMA_SYNC);
    if (size > 1)
        CHECK_CLASS(EP_Put(&value, 1, MPI_INT, right, 0, 1, MPI_INT, win), EP_ERR_RMA_SYNC);
    EP_Request req = EP_REQUEST_NULL;
    CHECK_CLASS(EP_Rput(&value, 1, MPI_INT, me, 0, 1, MPI_INT, win, &req), EP_ERR_RMA_SYNC); /* passive target only */
    CHECK(req == EP_REQUEST_NULL, "rank %d: a refused EP_Rput set a request", me);
    CHECK_OK(EP_Put(&value, 1, MPI_INT, me, 0, 1, MPI_INT, win));
    CHECK_OK(EP_Win_complete(win));
    CHECK_OK(EP_Win_wait(win));
    CHECK(*mem == me, "rank %d: its own put left %d", me, *mem);
    CHECK_CLASS(EP_Win_complete(win), EP_ERR_RMA_SYNC);
    CHECK_OK(EP_Barrier(comm)); /* every endpoint has read its own put */

    /* An access epoch of start alone refuses fence too; a lock on another target may be held
     * while exposed (here to nobody), and a post made while holding one. */
    CHECK_OK(EP_Win_start(EP_GROUP_EMPTY, 0, win));
    CHECK_CLASS(EP_Win_fence(0, win), EP_ERR_RMA_SYNC);
    CHECK_OK(EP_Win_complete(win));
    CHECK_OK(EP_Win_post(EP_GROUP_EMPTY, 0, win));
    CHECK_OK(EP_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    CHECK_OK(EP_Win_unlock(right, win));
    CHECK_OK(EP_Win_wait(win));
    CHECK_OK(EP_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    CHECK_OK(EP_Win_post(EP_GROUP_EMPTY, 0, win));
    CHECK_OK(EP_Win_test(win, &flag));
    CHECK(flag == 1, "rank %d: an exposure to nobody is not over at once", me);
    CHECK_OK(EP_Win_unlock(right, win));
    CHECK_OK(EP_Barrier(comm));

    /* Passive target and fence still work on the window. */
    value = 100 + me;
    CHECK_OK(EP_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    CHECK_OK(EP_Put(&value, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    CHECK_OK(EP_Win_unlock(right, win));
    CHECK_OK(EP_Win_fence(0, win));
    CHECK(*mem == 100 + left, "rank %d: after lock and fence holds %d", me, *mem);
    CHECK_OK(EP_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_OK(EP_Group_free(&self));
    CHECK_OK(EP_Win_free(&win));

    /* A group with an endpoint outside the window: rank 0 alone in one window, the others in
     * another; each names an endpoint of the other. */
    if (size > 1) {
        EP_Comm part;
        CHECK_OK(EP_Comm_split(comm, me == 0, me, &part));
        CHECK_OK(EP_Win_allocate(0, 1, MPI_INFO_NULL, part, &mem, &win));
        CHECK_OK(EP_Win_set_errhandler(win, EP_ERRORS_RETURN));
        EP_Group all, stranger;
        int other = me == 0 ? 1 : 0;
        CHECK_OK(EP_Comm_group(comm, &all));
        CHECK_OK(EP_Group_incl(all, 1, &other, &stranger));
        CHECK_CLASS(EP_Win_post(stranger, 0, win), EP_ERR_GROUP);
        CHECK_CLASS(EP_Win_start(stranger, 0, win), EP_ERR_GROUP);
        CHECK_OK(EP_Group_free(&stranger));
        CHECK_OK(EP_Group_free(&all));
        CHECK_OK(EP_Win_free(&win));
        CHECK_OK(EP_Comm_free(&part));
    }
}

static void body(EP_Comm world)
{
    CHECK_OK(EP_Comm_set_errhandler(world, EP_ERRORS_RETURN));
    ring_rounds(world);
    all_to_root(world);
    get_after_post(world);
    test_before_origins(world);
    nocheck(world);
    errors_and_other_epochs(world);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    ep_test_on_endpoints(wr, body);
    return ep_test_finish("win_pscw", wr);
}
