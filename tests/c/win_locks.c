/*
 * Passive-target locks taken by every endpoint at once, on targets in this process and in the
 * others, many times over (MPI 4.1 section 12.5.3). Each endpoint, round after round, locks
 * the next target in turn:
 * - exclusively, reading the target's counter, adding 1 and writing it back (a read, modify,
 *   write that only an exclusive lock makes safe): every counter ends exact;
 * - shared, putting the round into its own slot of the target: every slot ends holding the
 *   last round its origin put there;
 * then every endpoint takes lock_all at once and puts into every rank. And a shared lock
 * taken under MPI_MODE_NOCHECK, joined by another endpoint of the process without it, still
 * keeps out an exclusive lock of another process after the first endpoint's epoch ends.
 * Endpoints of one process use one host window per target's local index, so this is where the
 * host's per-window lock state is shared by threads (`src/engine/win/lock_words.rs`).
 */
#include "ep_test.h"

#define ROUNDS 1500

/* The target of `rank`'s round `round`, and whether that round's lock is exclusive. */
static int target_of(int rank, int round, int size) { return (rank + 1 + round) % size; }
static int exclusive_round(int round) { return (round / 3) % 2; }

static void lock_rounds(EP_Comm comm)
{
    int me, size;
    EP_Comm_rank(comm, &me);
    EP_Comm_size(comm, &size);
    /* slot[0] is the counter, slot[1 + r] origin r's last round */
    int *slot;
    EP_Win win;
    CHECK_OK(EP_Win_allocate((size + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &slot, &win));
    for (int i = 0; i <= size; i++)
        slot[i] = -1;
    slot[0] = 0;
    ep_test_barrier(comm);
    int failures = 0;
    for (int round = 0; round < ROUNDS && failures < 5; round++) {
        int target = target_of(me, round, size);
        int rc;
        if (exclusive_round(round)) {
            int count = -1;
            rc = EP_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
            if (rc == EP_SUCCESS) {
                CHECK_OK(EP_Get(&count, 1, MPI_INT, target, 0, 1, MPI_INT, win));
                CHECK_OK(EP_Win_flush(target, win));
                count++;
                CHECK_OK(EP_Put(&count, 1, MPI_INT, target, 0, 1, MPI_INT, win));
                rc = EP_Win_unlock(target, win);
            }
        } else {
            rc = EP_Win_lock(MPI_LOCK_SHARED, target, 0, win);
            if (rc == EP_SUCCESS) {
                CHECK_OK(EP_Put(&round, 1, MPI_INT, target, 1 + me, 1, MPI_INT, win));
                rc = EP_Win_unlock(target, win);
            }
        }
        CHECK_OK(rc);
        failures += rc != EP_SUCCESS;
    }
    ep_test_barrier(comm);
    int expected = 0;
    for (int r = 0; r < size; r++)
        for (int round = 0; round < ROUNDS; round++)
            expected += target_of(r, round, size) == me && exclusive_round(round);
    CHECK(slot[0] == expected, "rank %d: counter %d after the exclusive rounds, expected %d", me, slot[0], expected);
    for (int r = 0; r < size; r++) {
        int last = -1;
        for (int round = 0; round < ROUNDS; round++)
            if (target_of(r, round, size) == me && !exclusive_round(round))
                last = round;
        CHECK(slot[1 + r] == last, "rank %d: origin %d's slot holds %d, expected its last shared round %d", me, r,
              slot[1 + r], last);
    }
    ep_test_barrier(comm);
    /* Everyone in lock_all at once, then a put into every rank. */
    for (int round = 0; round < 20; round++) {
        int value = 100000 + round;
        CHECK_OK(EP_Win_lock_all(0, win));
        for (int r = 0; r < size; r++)
            CHECK_OK(EP_Put(&value, 1, MPI_INT, r, 1 + me, 1, MPI_INT, win));
        CHECK_OK(EP_Win_unlock_all(win));
    }
    ep_test_barrier(comm);
    for (int r = 0; r < size; r++)
        CHECK(slot[1 + r] == 100019, "rank %d: origin %d's slot holds %d after lock_all, expected 100019", me, r, slot[1 + r]);
    ep_test_barrier(comm);
    CHECK_OK(EP_Win_free(&win));
}

/* MPI_MODE_NOCHECK asserts for the epoch of the endpoint that makes it only. Endpoint A
 * locks target T shared with it, endpoint B of A's process joins without it, A unlocks and
 * tells R (another process) to lock T exclusively: R's lock must wait for B's unlock, so it
 * reads what B put last. Ranks: A = 0, B = 1 (process 0), T = R = the first rank of another
 * process; shapes without them skip. */
static void nocheck_joined(EP_Comm comm)
{
    int me, size;
    EP_Comm_rank(comm, &me);
    EP_Comm_size(comm, &size);
    int first_elsewhere = ep_test_count_for(0);
    int *slot;
    EP_Win win;
    CHECK_OK(EP_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &slot, &win));
    *slot = 0;
    ep_test_barrier(comm);
    if (first_elsewhere >= 2 && size > first_elsewhere) {
        int t = first_elsewhere, token = 0;
        if (me == 0) {
            CHECK_OK(EP_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOCHECK, win));
            CHECK_OK(EP_Send(&token, 1, MPI_INT, 1, 1, comm));
            CHECK_OK(EP_Recv(&token, 1, MPI_INT, 1, 2, comm, EP_STATUS_IGNORE));
            CHECK_OK(EP_Win_unlock(t, win));
            CHECK_OK(EP_Send(&token, 1, MPI_INT, 1, 3, comm)); /* B: A's epoch is over */
            CHECK_OK(EP_Send(&token, 1, MPI_INT, t, 4, comm)); /* R: lock exclusively */
        } else if (me == 1) {
            CHECK_OK(EP_Recv(&token, 1, MPI_INT, 0, 1, comm, EP_STATUS_IGNORE));
            CHECK_OK(EP_Win_lock(MPI_LOCK_SHARED, t, 0, win));
            CHECK_OK(EP_Send(&token, 1, MPI_INT, 0, 2, comm));
            CHECK_OK(EP_Recv(&token, 1, MPI_INT, 0, 3, comm, EP_STATUS_IGNORE));
            /* Hold the lock a while after A left, then store 2: R must read 2. */
            int one = 1, two = 2;
            CHECK_OK(EP_Put(&one, 1, MPI_INT, t, 0, 1, MPI_INT, win));
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.2)
                ;
            CHECK_OK(EP_Put(&two, 1, MPI_INT, t, 0, 1, MPI_INT, win));
            CHECK_OK(EP_Win_unlock(t, win));
        } else if (me == t) {
            int seen = -1;
            CHECK_OK(EP_Recv(&token, 1, MPI_INT, 0, 4, comm, EP_STATUS_IGNORE));
            CHECK_OK(EP_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            CHECK_OK(EP_Get(&seen, 1, MPI_INT, t, 0, 1, MPI_INT, win));
            CHECK_OK(EP_Win_unlock(t, win));
            CHECK(seen == 2, "an exclusive lock was granted while rank 1 held a shared one (read %d, expected 2)", seen);
        }
    }
    ep_test_barrier(comm);
    CHECK_OK(EP_Win_free(&win));
}

static void body(EP_Comm world)
{
    CHECK_OK(EP_Comm_set_errhandler(world, EP_ERRORS_RETURN));
    lock_rounds(world);
    nocheck_joined(world);
}

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    ep_test_on_endpoints(wr, body);
    return ep_test_finish("win_locks", wr);
}
