/*
 * An MPI program on endpoints written with the standard MPI names only (the standard-names
 * layer, libepmpi_mpi): MPIX_Comm_create_endpoints gives each process two endpoint
 * communicator handles, one per OpenMP thread, used in ordinary MPI calls. Every endpoint
 * exchanges a message with the endpoint half the communicator away (in another process when
 * there are two) and takes part in a reduction; world rank 0 prints
 * "consumer_mpi_names: PASS ..." when every endpoint of every process got what it expected,
 * then the library that MPI_Send comes from (the layer's, when it was linked before the MPI).
 *
 *   mpiexec -n 2 ./consumer_mpi_names
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <epmpi_mpix.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 2, TAG = 7 };

int main(int argc, char **argv)
{
    int provided, world_rank, world_size, failures = 0, total = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    /* One call per process; comms[i] is endpoint i's handle, for thread i. */
    MPI_Comm comms[THREADS];
    if (MPIX_Comm_create_endpoints(MPI_COMM_WORLD, THREADS, MPI_INFO_NULL, comms) != MPI_SUCCESS) {
        fprintf(stderr, "consumer_mpi_names: MPIX_Comm_create_endpoints failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

#pragma omp parallel num_threads(THREADS) reduction(+ : failures)
    {
        MPI_Comm comm = comms[omp_get_thread_num()];
        int rank = -1, size = 0, got = -1, sum = -1;
        MPI_Status status;
        failures += MPI_Comm_rank(comm, &rank) != MPI_SUCCESS;
        failures += MPI_Comm_size(comm, &size) != MPI_SUCCESS;
        int peer = (rank + size / 2) % size, mine = 1000 + rank;
        failures += MPI_Sendrecv(&mine, 1, MPI_INT, peer, TAG, &got, 1, MPI_INT, peer, TAG, comm,
                                 &status) != MPI_SUCCESS;
        if (got != 1000 + peer || status.MPI_SOURCE != peer || status.MPI_TAG != TAG) {
            fprintf(stderr, "consumer_mpi_names: endpoint %d got %d from %d, expected %d from %d\n",
                    rank, got, status.MPI_SOURCE, 1000 + peer, peer);
            failures++;
        }
        failures += MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS;
        if (sum != size * (size - 1) / 2) {
            fprintf(stderr, "consumer_mpi_names: endpoint %d: sum of ranks %d, expected %d\n", rank,
                    sum, size * (size - 1) / 2);
            failures++;
        }
        if (size != THREADS * world_size)
            failures++;
        failures += MPI_Comm_free(&comm) != MPI_SUCCESS;
    }

    Dl_info info;
    const char *from = "?";
    void *send = dlsym(RTLD_DEFAULT, "MPI_Send");
    if (send && dladdr(send, &info) && info.dli_fname)
        from = info.dli_fname;

    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("consumer_mpi_names: %s (%d endpoints on %d processes, %d failures)\n",
               total ? "FAIL" : "PASS", THREADS * world_size, world_size, total);
        printf("consumer_mpi_names: MPI_Send from %s\n", from);
    }
    MPI_Finalize();
    return total != 0;
}
