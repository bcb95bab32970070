/*
 * The team form: every OpenMP thread calls EP_Comm_create_endpoint with its own index. The
 * index (not the thread number) names the endpoint: here thread t takes index n-1-t. Two
 * creations in a row on the same parent give two distinct communicators with the same ranks.
 */
#include "ep_test.h"

int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    if (n == 0) {
        EP_Comm none;
        CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, &none));
        CHECK_OK(EP_Comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, &none));
    } else {
#pragma omp parallel num_threads(n)
        {
            int index = n - 1 - omp_get_thread_num();
            EP_Comm a, b;
            CHECK_OK(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, index, &a));
            CHECK_OK(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, index, &b));
            int ra, rb, size, li, cmp;
            CHECK_OK(EP_Comm_rank(a, &ra));
            CHECK_OK(EP_Comm_rank(b, &rb));
            CHECK_OK(EP_Comm_size(a, &size));
            CHECK_OK(EP_Comm_local_info(a, &li, NULL, NULL));
            CHECK(ra == ep_test_expected_rank(wr, index) && rb == ra && li == index, "team rank %d/%d index %d", ra, rb, index);
            CHECK_OK(EP_Comm_compare(a, b, &cmp));
            CHECK(cmp == EP_UNEQUAL, "two creations compare %d", cmp);
            /* Ring exchange on both, crossing: messages on `a` stay on `a`. */
            int right = (ra + 1) % size, left = (ra - 1 + size) % size, x, y;
            x = 1000 + ra;
            CHECK_OK(EP_Send(&x, 1, MPI_INT, right, 1, b));
            x = ra;
            CHECK_OK(EP_Send(&x, 1, MPI_INT, right, 1, a));
            CHECK_OK(EP_Recv(&y, 1, MPI_INT, left, 1, a, EP_STATUS_IGNORE));
            CHECK(y == left, "ring on a got %d", y);
            CHECK_OK(EP_Recv(&y, 1, MPI_INT, left, 1, b, EP_STATUS_IGNORE));
            CHECK(y == 1000 + left, "ring on b got %d", y);
            ep_test_barrier(a);
            ep_test_barrier(b);
            /* Bad team arguments. */
            EP_Comm bad;
            CHECK(ep_class(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, n, &bad)) == EP_ERR_ARG, "index n");
            CHECK(ep_class(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, -1, &bad)) == EP_ERR_ARG, "index -1");
            CHECK_OK(EP_Comm_free(&a));
            CHECK_OK(EP_Comm_free(&b));
        }
    }
    int live = -1;
    EP_Debug_live_handles(&live, NULL, NULL);
    CHECK(live == 0, "live communicator handles %d", live);
    return ep_test_finish("create_team", wr);
}
