/*
 * A first pass over the collectives and split in every shape: barriers in a row, allreduce,
 * bcast from the last rank, allgather order, scan, a split with mixed colors and reversed
 * keys (ranks, sizes, allreduce and allgather order on the new communicators), and the
 * nonblocking barrier and broadcast. tests/c/coll.c and split.c go case by case.
 */
#include "ep_test.h"
int main(int argc, char **argv)
{
    int wr, ws;
    ep_test_init(&argc, &argv, &wr, &ws);
    int n = ep_test_count_for(wr);
    if (n == 0) { EP_Comm none; EP_Comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, &none); return ep_test_finish("coll_basic", wr);}
#pragma omp parallel num_threads(n)
    {
        EP_Comm c; int me, size;
        CHECK_OK(EP_Comm_create_endpoint(MPI_COMM_WORLD, n, omp_get_thread_num(), &c));
        EP_Comm_rank(c, &me); EP_Comm_size(c, &size);
        for (int it = 0; it < 100; it++) CHECK_OK(EP_Barrier(c));
        int x = me + 1, s = 0;
        CHECK_OK(EP_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, c));
        CHECK(s == size * (size + 1) / 2, "allreduce %d", s);
        int b = me == size - 1 ? 42 : 0;
        CHECK_OK(EP_Bcast(&b, 1, MPI_INT, size - 1, c));
        CHECK(b == 42, "bcast %d", b);
        int *g = malloc(sizeof(int) * size);
        CHECK_OK(EP_Allgather(&me, 1, MPI_INT, g, 1, MPI_INT, c));
        for (int i = 0; i < size; i++) CHECK(g[i] == i, "allgather g[%d]=%d", i, g[i]);
        int sc = 0; CHECK_OK(EP_Scan(&x, &sc, 1, MPI_INT, MPI_SUM, c));
        CHECK(sc == (me + 1) * (me + 2) / 2, "scan %d", sc);
        EP_Comm r; int nr, ns;
        CHECK_OK(EP_Comm_split(c, me % 2, -me, &r));
        EP_Comm_rank(r, &nr); EP_Comm_size(r, &ns);
        int exp_size = (size + 1 - me % 2) / 2;
        CHECK(ns == exp_size, "split size %d vs %d", ns, exp_size);
        CHECK(nr == exp_size - 1 - me / 2, "split rank %d me %d", nr, me);
        int y = nr, t = 0;
        CHECK_OK(EP_Allreduce(&y, &t, 1, MPI_INT, MPI_SUM, r));
        CHECK(t == ns * (ns - 1) / 2, "allreduce split %d", t);
        CHECK_OK(EP_Allgather(&me, 1, MPI_INT, g, 1, MPI_INT, r));
        for (int i = 0; i < ns; i++) CHECK(g[i] == (me % 2) + 2 * (ns - 1 - i), "split allgather g[%d]=%d", i, g[i]);
        EP_Request q; CHECK_OK(EP_Ibarrier(c, &q)); CHECK_OK(EP_Wait(&q, EP_STATUS_IGNORE));
        int ib = me == 0 ? 7 : 0; CHECK_OK(EP_Ibcast(&ib, 1, MPI_INT, 0, c, &q)); CHECK_OK(EP_Wait(&q, EP_STATUS_IGNORE));
        CHECK(ib == 7, "ibcast %d", ib);
        free(g);
        CHECK_OK(EP_Comm_free(&r));
        CHECK_OK(EP_Comm_free(&c));
    }
    return ep_test_finish("coll_basic", wr);
}
