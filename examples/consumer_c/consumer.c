/*
 * Smallest EPMPI program: two OpenMP threads per process, each one an endpoint (a rank of its
 * own). Every endpoint exchanges a message with the endpoint half the communicator away (in
 * another process when there are two) and checks what arrives. World rank 0 prints
 * "consumer_c: PASS ..." when every endpoint of every process got what it expected.
 *
 *   mpiexec -n 2 ./consumer_c
 */
#include <ep_mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 2, TAG = 7 };

int main(int argc, char **argv)
{
    int provided, world_rank, world_size, failures = 0, total = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "consumer_c: the MPI does not provide MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

#pragma omp parallel num_threads(THREADS) reduction(+ : failures)
    {
        EP_Comm comm;
        int rank = -1, size = 0, got = -1;
        EP_Status status;
        /* The team form: each thread names its own endpoint by index. */
        failures += EP_Comm_create_endpoint(MPI_COMM_WORLD, THREADS, omp_get_thread_num(), &comm) != EP_SUCCESS;
        EP_Comm_rank(comm, &rank);
        EP_Comm_size(comm, &size);
        int peer = (rank + size / 2) % size, mine = 1000 + rank;
        if (rank < peer) {
            failures += EP_Send(&mine, 1, MPI_INT, peer, TAG, comm) != EP_SUCCESS;
            failures += EP_Recv(&got, 1, MPI_INT, peer, TAG, comm, &status) != EP_SUCCESS;
        } else {
            failures += EP_Recv(&got, 1, MPI_INT, peer, TAG, comm, &status) != EP_SUCCESS;
            failures += EP_Send(&mine, 1, MPI_INT, peer, TAG, comm) != EP_SUCCESS;
        }
        if (got != 1000 + peer || status.MPI_SOURCE != peer || status.MPI_TAG != TAG) {
            fprintf(stderr, "consumer_c: endpoint %d got %d from %d, expected %d from %d\n", rank, got,
                    status.MPI_SOURCE, 1000 + peer, peer);
            failures++;
        }
        failures += EP_Comm_free(&comm) != EP_SUCCESS;
    }

    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("consumer_c: %s (%d endpoints on %d processes, %d failures)\n", total ? "FAIL" : "PASS",
               THREADS * world_size, world_size, total);
    MPI_Finalize();
    return total != 0;
}
