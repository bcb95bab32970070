/*
 * Collectives agree on errors: when one endpoint passes a bad argument to a collective that
 * creates something (a communicator, an intercommunicator, a window), every endpoint of every
 * process returns an error and none waits forever; the endpoints whose own arguments were
 * fine get the faulty endpoint's error class. Afterwards the parent communicator works
 * (EP_Barrier, EP_Allreduce), and nothing is left behind (the leak check at the end).
 *
 * Cases, each with the faulty endpoint first at rank 0 and then at the last rank:
 * - EP_Comm_split with a bad color or a NULL newcomm, EP_Comm_split_type with a bad type;
 * - EP_Comm_dup with a NULL newcomm;
 * - EP_Win_create with a negative size;
 * - EP_Intercomm_create with a NULL newintercomm (leader or not), and on a non-leader a
 *   local_leader out of range or a negative tag (the remote group fails too);
 * - EP_Intercomm_merge with a NULL newintracomm;
 * - creation itself: EP_Comm_create_endpoints with out_comms NULL on the last process, and
 *   EP_Comm_create_endpoint with a NULL comm from one thread of the last process;
 * - EP_Alltoall and EP_Allgather inside one process with one endpoint's count larger than the
 *   others', and EP_Allreduce with counts that differ within the exchange (amounts_differ).
 */
#include "ep_test.h"

/* This endpoint's result of a collective that one endpoint made fail with class `want`. */
static void expect_fail(const char *what, int faulty, int rc, int want, int me)
{
    CHECK(rc != EP_SUCCESS && ep_class(rc) == want, "%s (faulty rank %d): rank %d got code %d of class %d, want class %d",
          what, faulty, me, rc, ep_class(rc), want);
}

/* The parent still works: a barrier and an allreduce over it. */
static void parent_works(EP_Comm comm, const char *after)
{
    int me, size, sum = -1;
    CHECK_OK(EP_Comm_rank(comm, &me));
    CHECK_OK(EP_Comm_size(comm, &size));
    CHECK_OK(EP_Barrier(comm));
    CHECK_OK(EP_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2, "allreduce after %s gave %d", after, sum);
}

/* Splits, dups and windows of `world` with one faulty endpoint. */
static void intra_cases(EP_Comm world, int faulty)
{
    int me, size, rc;
    CHECK_OK(EP_Comm_rank(world, &me));
    CHECK_OK(EP_Comm_size(world, &size));
    int bad = me == faulty;
    EP_Comm c = EP_COMM_NULL;

    rc = EP_Comm_split(world, bad ? -5 : me % 2, me, &c);
    expect_fail("EP_Comm_split, color -5", faulty, rc, EP_ERR_ARG, me);
    CHECK(c == EP_COMM_NULL, "a failed split gave a communicator");
    parent_works(world, "a bad color");

    rc = EP_Comm_split(world, me % 2, me, bad ? NULL : &c);
    expect_fail("EP_Comm_split, NULL newcomm", faulty, rc, EP_ERR_ARG, me);
    parent_works(world, "a NULL newcomm in EP_Comm_split");

    rc = EP_Comm_split_type(world, bad ? 12345 : MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &c);
    expect_fail("EP_Comm_split_type, type 12345", faulty, rc, EP_ERR_ARG, me);
    parent_works(world, "a bad split type");

    rc = EP_Comm_dup(world, bad ? NULL : &c);
    expect_fail("EP_Comm_dup, NULL newcomm", faulty, rc, EP_ERR_ARG, me);
    CHECK(c == EP_COMM_NULL, "a failed dup gave a communicator");
    parent_works(world, "a NULL newcomm in EP_Comm_dup");

    int mem[4];
    EP_Win w = EP_WIN_NULL;
    rc = EP_Win_create(mem, bad ? -1 : (MPI_Aint)sizeof mem, sizeof(int), MPI_INFO_NULL, world, &w);
    expect_fail("EP_Win_create, size -1", faulty, rc, EP_ERR_SIZE, me);
    CHECK(w == EP_WIN_NULL, "a failed window creation gave a window");
    parent_works(world, "a negative window size");

    /* And the same calls without faults still work. */
    CHECK_OK(EP_Comm_dup(world, &c));
    parent_works(c, "a dup");
    CHECK_OK(EP_Comm_free(&c));
}

/* Intercommunicators between the even and the odd ranks of `world`, one faulty endpoint. */
static void inter_cases(EP_Comm world, int faulty)
{
    int me, size, rc;
    CHECK_OK(EP_Comm_rank(world, &me));
    CHECK_OK(EP_Comm_size(world, &size));
    int bad = me == faulty, side = me % 2, remote = side ? 0 : 1;
    EP_Comm intra, inter = EP_COMM_NULL, merged = EP_COMM_NULL;
    CHECK_OK(EP_Comm_split(world, side, me, &intra));
    int leader = faulty < 2; /* world ranks 0 and 1 lead their groups */

    rc = EP_Intercomm_create(intra, 0, world, remote, 41, bad ? NULL : &inter);
    expect_fail("EP_Intercomm_create, NULL newintercomm", faulty, rc, EP_ERR_ARG, me);
    CHECK(inter == EP_COMM_NULL, "a failed creation gave an intercommunicator");
    parent_works(world, "a NULL newintercomm");
    parent_works(intra, "a NULL newintercomm");

    if (!leader) {
        rc = EP_Intercomm_create(intra, bad ? 99 : 0, world, remote, 42, &inter);
        expect_fail("EP_Intercomm_create, local_leader 99", faulty, rc, EP_ERR_RANK, me);
        parent_works(world, "a bad local_leader");

        rc = EP_Intercomm_create(intra, 0, world, remote, bad ? -3 : 43, &inter);
        expect_fail("EP_Intercomm_create, tag -3", faulty, rc, EP_ERR_TAG, me);
        parent_works(world, "a bad tag");
    }

    CHECK_OK(EP_Intercomm_create(intra, 0, world, remote, 44, &inter));
    rc = EP_Intercomm_merge(inter, side, bad ? NULL : &merged);
    expect_fail("EP_Intercomm_merge, NULL newintracomm", faulty, rc, EP_ERR_ARG, me);
    CHECK(merged == EP_COMM_NULL, "a failed merge gave a communicator");
    parent_works(world, "a NULL newintracomm");
    CHECK_OK(EP_Barrier(inter));
    CHECK_OK(EP_Intercomm_merge(inter, side, &merged));
    parent_works(merged, "a merge");
    CHECK_OK(EP_Comm_free(&merged));
    CHECK_OK(EP_Comm_free(&inter));
    CHECK_OK(EP_Comm_free(&intra));
}

/* Data collectives inside one process whose amounts differ between endpoints (erroneous: MPI
 * says they must agree), so that the faulty endpoint takes the leader's path and the others
 * the inline exchange, or the reverse: every endpoint returns (none waits for a release that
 * never comes), the faulty one with an error (in a small allreduce, every endpoint: each sees
 * every input), and the communicator works afterwards. On a
 * communicator of each process's endpoints (the host decides between processes). */
static void amounts_differ(EP_Comm world)
{
    int index, count, proc, me;
    CHECK_OK(EP_Comm_local_info(world, &index, &count, &proc));
    CHECK_OK(EP_Comm_rank(world, &me));
    EP_Comm local;
    CHECK_OK(EP_Comm_split(world, proc, me, &local));
    int faulty[2] = {0, count - 1};
    for (int k = 0; k < 2 && count > 1; k++) {
        int bad = index == faulty[k];
        /* 200 ints per block: past the exchange's 512 bytes; 2 ints: within it. */
        int n = bad ? 200 : 2;
        int *in = calloc((size_t)200 * count, sizeof(int)), *out = calloc((size_t)200 * count, sizeof(int));
        int rc = EP_Alltoall(in, n, MPI_INT, out, n, MPI_INT, local);
        CHECK(!bad || rc != EP_SUCCESS, "EP_Alltoall with a larger count than the others' (faulty index %d) succeeded", faulty[k]);
        rc = EP_Allgather(in, n, MPI_INT, out, n, MPI_INT, local);
        CHECK(!bad || rc != EP_SUCCESS, "EP_Allgather with a larger count than the others' (faulty index %d) succeeded", faulty[k]);
        /* Both counts within the exchange: every endpoint sees every input, so all fail. */
        rc = EP_Allreduce(in, out, bad ? 3 : 2, MPI_INT, MPI_SUM, local);
        CHECK(rc != EP_SUCCESS, "EP_Allreduce with counts 2 and 3 (faulty index %d) succeeded on index %d", faulty[k], index);
        free(in);
        free(out);
        parent_works(local, "collectives whose amounts differ");
    }
    CHECK_OK(EP_Comm_free(&local));
}

int main(int argc, char **argv)
{
    int wr, ws, rc;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    int last = wr == ws - 1;
    EP_Comm *eps = malloc(sizeof(EP_Comm) * (n > 0 ? n : 1));

    /* Array form: the last process passes no output array. */
    rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, last ? NULL : eps);
    CHECK(rc != EP_SUCCESS && ep_class(rc) == EP_ERR_ARG, "EP_Comm_create_endpoints, NULL out on the last process: code %d class %d on process %d", rc, ep_class(rc), wr);

    /* Team form: one thread of the last process passes no output handle. */
#pragma omp parallel num_threads(n)
    {
        int t = omp_get_thread_num();
        EP_Comm c = EP_COMM_NULL;
        int r = EP_Comm_create_endpoint(MPI_COMM_WORLD, n, t, last && t == n - 1 ? NULL : &c);
        CHECK(r != EP_SUCCESS && ep_class(r) == EP_ERR_ARG, "EP_Comm_create_endpoint, one NULL comm: index %d of process %d got class %d", t, wr, ep_class(r));
        CHECK(c == EP_COMM_NULL, "a failed team creation gave a communicator");
    }

    CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, eps));
#pragma omp parallel num_threads(n)
    {
        EP_Comm world = eps[omp_get_thread_num()];
        int size;
        CHECK_OK(EP_Comm_size(world, &size));
        int faulty[2] = {0, size - 1};
        for (int k = 0; k < 2; k++) {
            intra_cases(world, faulty[k]);
            inter_cases(world, faulty[k]);
        }
        amounts_differ(world);
        parent_works(world, "every case");
        CHECK_OK(EP_Comm_free(&world));
    }
    free(eps);
    return ep_test_finish("agree", wr);
}
