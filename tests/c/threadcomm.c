/*
 * MPICH-style thread communicators through the standard-names layer: MPIX_Threadcomm_init on
 * MPI_COMM_WORLD outside the threads, start/finish inside each of `n` POSIX threads (n from
 * EPMPI_TEST_EPS, uneven between processes, 0 allowed), repeated three times, with a dup made
 * and freed inside. Checks the ranks (process offset plus a distinct arrival order), point-to-
 * point between every pair with statuses, wildcards, and an allgather of ranks.
 */
#include "mpi_names_test.h"

#include <pthread.h>

static MPI_Comm threadcomm = MPI_COMM_NULL;
static int offset, local_threads, total;

static void pairs(MPI_Comm comm)
{
    int me = -1, size = -1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    for (int src = 0; src < size; src++) {
        for (int dst = 0; dst < size; dst++) {
            if (src == dst)
                continue;
            for (int count = 1; count <= 4096; count *= 64) {
                int buf[4096];
                if (me == src) {
                    for (int i = 0; i < count; i++)
                        buf[i] = src * 7 + dst + i;
                    CHECK_OK(MPI_Send(buf, count, MPI_INT, dst, 100 + src, comm));
                } else if (me == dst) {
                    MPI_Status st;
                    int got = -1;
                    /* A wildcard source, the tag naming the one sender that uses it. */
                    CHECK_OK(MPI_Recv(buf, count, MPI_INT, MPI_ANY_SOURCE, 100 + src, comm, &st));
                    MPI_Get_count(&st, MPI_INT, &got);
                    CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 100 + src && got == count, "%d -> %d: status %d %d %d", src,
                          dst, st.MPI_SOURCE, st.MPI_TAG, got);
                    for (int i = 0; i < count; i++)
                        CHECK(buf[i] == src * 7 + dst + i, "%d -> %d: buf[%d] = %d", src, dst, i, buf[i]);
                }
            }
        }
    }
}

static void *thread_main(void *arg)
{
    (void)arg;
    for (int round = 0; round < 3; round++) {
        int me = -1, size = -1;
        CHECK_OK(MPIX_Threadcomm_start(threadcomm));
        CHECK_OK(MPI_Comm_set_errhandler(threadcomm, MPI_ERRORS_RETURN));
        CHECK_OK(MPI_Comm_rank(threadcomm, &me));
        CHECK_OK(MPI_Comm_size(threadcomm, &size));
        CHECK(size == total && me >= offset && me < offset + local_threads, "rank %d of %d (offset %d, %d threads)",
              me, size, offset, local_threads);
        int *ranks = malloc(sizeof(int) * (size_t)total);
        CHECK_OK(MPI_Allgather(&me, 1, MPI_INT, ranks, 1, MPI_INT, threadcomm));
        for (int i = 0; i < total; i++)
            CHECK(ranks[i] == i, "allgather: rank %d gave %d", i, ranks[i]);
        free(ranks);
        pairs(threadcomm);
        MPI_Comm dup;
        CHECK_OK(MPI_Comm_dup(threadcomm, &dup));
        int dup_rank = -1;
        MPI_Comm_rank(dup, &dup_rank);
        CHECK(dup_rank == me, "dup rank %d, rank %d", dup_rank, me);
        pairs(dup);
        CHECK_OK(MPI_Comm_free(&dup));
        CHECK_OK(MPIX_Threadcomm_finish(threadcomm));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, world_rank, world_size;
    /* A plain MPI_Init, as MPICH's thread-communicator programs have: the layer sees that this
     * program creates endpoints and asks the host for MPI_THREAD_MULTIPLE itself. */
    MPI_Init(&argc, &argv);
    MPI_Query_thread(&provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init of a program that creates endpoints gave level %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    local_threads = count_for(world_rank);
    for (int p = 0; p < world_size; p++) {
        offset += p < world_rank ? count_for(p) : 0;
        total += count_for(p);
    }
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, local_threads, &threadcomm));
    CHECK((threadcomm == MPI_COMM_NULL) == (local_threads == 0), "handle of a process with %d threads",
          local_threads);
    pthread_t threads[64];
    for (int i = 0; i < local_threads; i++)
        pthread_create(&threads[i], NULL, thread_main, NULL);
    for (int i = 0; i < local_threads; i++)
        pthread_join(threads[i], NULL);
    CHECK_OK(MPIX_Threadcomm_free(&threadcomm));
    CHECK(threadcomm == MPI_COMM_NULL, "freed handle not null");
    int sum = 0;
    MPI_Allreduce(&failures, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("threadcomm: %s (%d failures)\n", sum ? "FAIL" : "PASS", sum);
    MPI_Finalize();
    return sum ? 1 : 0;
}
