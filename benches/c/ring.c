/*
 * A ring exchange for benches/ring.rs: every rank sends 8 B to its right neighbour and
 * receives 8 B from its left one, round after round. Built twice from this one source: plain
 * (the host's mpicc, MPI_ names, one rank per process) and with -DRING_ENDPOINTS (EPMPI's EP_
 * names, linked with libepmpi: each process creates `eps` endpoints and runs one OpenMP thread
 * on each), so both builds run the same kernel.
 *
 *   mpirun -np P ring <reps> <rounds> [<eps>]      (eps: the endpoint build only, default 1)
 *
 * A repetition is <rounds> rounds after a barrier; its figure is the slowest rank's time in
 * seconds. Rank 0 prints
 *
 *   ranks <n>                       (ranks in the ring)
 *   ring <s> <s> ...                (one figure per repetition)
 *   results: <digest>               (errors seen and the sum of what arrived; the same for
 *                                    both builds at the same number of ranks and rounds)
 *
 * Every message carries its sender's rank and round, and every receiver checks them, so a
 * build that delivers wrong or misordered data fails rather than gives a figure.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef RING_ENDPOINTS
#include <ep_mpi.h>
#include <omp.h>
#define R(name) EP_##name /* datatypes and ops are the host's in both builds */
typedef EP_Comm ring_comm;
typedef EP_Request ring_request;
#define RING_STATUS_IGNORE EP_STATUS_IGNORE
#else
#define R(name) MPI_##name
typedef MPI_Comm ring_comm;
typedef MPI_Request ring_request;
#define RING_STATUS_IGNORE MPI_STATUS_IGNORE
#endif

#define MAX_REPS 1000

/* One rank's part: `reps` repetitions of `rounds` rounds on `comm`; rank 0 of `comm` prints. */
static void ring(ring_comm comm, int reps, long rounds)
{
    int me, n;
    R(Comm_rank)(comm, &me);
    R(Comm_size)(comm, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int64_t errors = 0, sum = 0;
    double times[MAX_REPS];
    for (int rep = 0; rep < reps; rep++) {
        R(Barrier)(comm);
        double t0 = MPI_Wtime();
        for (long r = 0; r < rounds; r++) {
            int64_t out = (int64_t)me * 1000000007 + r, in = -1;
            ring_request req;
            R(Irecv)(&in, 1, MPI_INT64_T, left, 0, comm, &req);
            R(Send)(&out, 1, MPI_INT64_T, right, 0, comm);
            R(Wait)(&req, RING_STATUS_IGNORE);
            errors += in != (int64_t)left * 1000000007 + r;
            sum += in;
        }
        double mine = MPI_Wtime() - t0;
        R(Reduce)(&mine, &times[rep], 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    }
    int64_t mine[2] = { errors, sum }, all[2];
    R(Reduce)(mine, all, 2, MPI_INT64_T, MPI_SUM, 0, comm);
    if (me == 0) {
        printf("ranks %d\nring", n);
        for (int rep = 0; rep < reps; rep++)
            printf(" %.6f", times[rep]);
        printf("\nresults: errors %lld sum %lld\n", (long long)all[0], (long long)all[1]);
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int reps = argc > 1 ? atoi(argv[1]) : 0;
    long rounds = argc > 2 ? atol(argv[2]) : 0;
    int eps = argc > 3 ? atoi(argv[3]) : 1;
    if (reps < 1 || reps > MAX_REPS || rounds < 1 || eps < 1) {
        fprintf(stderr, "usage: mpirun -np P %s <reps 1..%d> <rounds> [<eps>]\n", argv[0], MAX_REPS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#ifdef RING_ENDPOINTS
    EP_Comm *comms = malloc(sizeof *comms * (size_t)eps);
    if (comms == NULL || EP_Comm_create_endpoints(MPI_COMM_WORLD, eps, MPI_INFO_NULL, comms) != EP_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
#pragma omp parallel num_threads(eps)
    {
        int t = omp_get_thread_num();
        ring(comms[t], reps, rounds);
        EP_Comm_free(&comms[t]);
    }
    free(comms);
#else
    if (eps != 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    ring(MPI_COMM_WORLD, reps, rounds);
#endif
    MPI_Finalize();
    return 0;
}
