/*
 * Smallest XIOS-style program on the adapter: as XIOS does, the master thread creates two
 * endpoints per process from MPI_COMM_WORLD and hands them to an OpenMP team through
 * ep_lib::passage; each thread (an endpoint) sums the ranks with MPI_Allreduce and exchanges
 * a message with the endpoint half the communicator away; the protocol header <ep_xios.h>
 * (same library) refuses a made-up context handle. World rank 0 prints
 * "consumer_xios: PASS ..." when every endpoint of every process got what it expected.
 *
 *   mpiexec -n 2 ./consumer_xios
 */
#include <ep_lib.hpp>
#include <ep_xios.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 2, TAG = 7 };

int main(int argc, char **argv)
{
    int world_rank = -1, world_size = 0, failures = 0, total = 0;
    if (ep_lib::MPI_Init(&argc, &argv) != EP_SUCCESS)
        return 1; /* the default handler has said why (e.g. no MPI_THREAD_MULTIPLE) */
    ep_lib::MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    ep_lib::MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    ep_lib::MPI_Comm *endpoints = nullptr;
    ep_lib::MPI_Comm_create_endpoints(MPI_COMM_WORLD.mpi_comm, THREADS, MPI_INFO_NULL, endpoints);
    ep_lib::passage = endpoints;
#pragma omp parallel num_threads(THREADS) reduction(+ : failures)
    {
        ep_lib::MPI_Comm comm = ep_lib::passage[omp_get_thread_num()];
        int rank = -1, size = 0, sum = 0, got = -1;
        ep_lib::MPI_Comm_rank(comm, &rank);
        ep_lib::MPI_Comm_size(comm, &size);
        ep_lib::MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
        failures += sum != size * (size - 1) / 2;
        int peer = (rank + size / 2) % size, mine = 1000 + rank;
        ep_lib::MPI_Status status;
        if (rank < peer) {
            ep_lib::MPI_Send(&mine, 1, MPI_INT, peer, TAG, comm);
            ep_lib::MPI_Recv(&got, 1, MPI_INT, peer, TAG, comm, &status);
        } else {
            ep_lib::MPI_Recv(&got, 1, MPI_INT, -2, TAG, comm, &status); /* XIOS's wildcard */
            ep_lib::MPI_Send(&mine, 1, MPI_INT, peer, TAG, comm);
        }
        if (got != 1000 + peer || status.ep_src != peer) {
            fprintf(stderr, "consumer_xios: endpoint %d got %d from %d, expected %d from %d\n", rank, got,
                    status.ep_src, 1000 + peer, peer);
            failures++;
        }
        ep_lib::MPI_Comm_free(&comm);
    }
    delete[] endpoints;
    failures += EPX_Context_info(12345, nullptr, nullptr, nullptr) != EP_ERR_ARG;

    ::MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, ep_lib::host::comm_world());
    if (world_rank == 0)
        printf("consumer_xios: %s (%d endpoints on %d processes, %d failures)\n", total ? "FAIL" : "PASS",
               THREADS * world_size, world_size, total);
    ep_lib::MPI_Finalize();
    return total != 0;
}
