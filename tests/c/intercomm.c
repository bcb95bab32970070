/*
 * Intercommunicators: the XIOS client/server start-up (clients = every endpoint but the last,
 * server = the last endpoint), groups whose endpoints share processes (even and odd ranks),
 * point-to-point across with EP_ANY_SOURCE, merge order, collectives on the merged
 * communicator, and 50 create/merge/free cycles that leave no live handle behind.
 */
#include "ep_test.h"

/* Group = `color` of the world endpoints; returns the intercommunicator to the other group. */
static EP_Comm make_inter(EP_Comm world, int color, int their_leader_world, EP_Comm *intra)
{
    int wr;
    EP_Comm_rank(world, &wr);
    CHECK_OK(EP_Comm_split(world, color, wr, intra));
    /* Keys are world ranks, so each group's leader (its rank 0) is its lowest world rank. */
    EP_Comm inter = EP_COMM_NULL;
    CHECK_OK(EP_Intercomm_create(*intra, 0, world, their_leader_world, 77, &inter));
    return inter;
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
    inter = make_inter(world, server, server ? 0 : ws - 1, &intra);
    exchange(inter, !server);
    CHECK_OK(EP_Barrier(inter));
    long a = 1, b = 0; /* not implemented on intercommunicators yet: a clear error, no hang */
    CHECK(ep_class(EP_Allreduce(&a, &b, 1, MPI_LONG, MPI_SUM, inter)) == EP_ERR_UNSUPPORTED, "allreduce on an intercomm");
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
    for (int cycle = 0; cycle < 50; cycle++) {
        inter = make_inter(world, odd, odd ? 0 : 1, &intra);
        if (cycle == 0 || cycle == 49)
            exchange(inter, odd); /* the odd group sends to rank 0 of the even group */
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
    return ep_test_finish("intercomm", wr);
}
