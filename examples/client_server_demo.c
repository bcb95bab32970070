/*
 * XIOS-style client/server over endpoints, point-to-point only (a preview until the
 * intercommunicator and XIOS adapter issues land): every process but the last is a model
 * process whose OpenMP threads are clients, one endpoint each; the last process is the I/O
 * server with one endpoint. Each client sends its field (a block of doubles) in chunks with
 * EP_Issend, tag 20; the server loops EP_Iprobe(EP_ANY_SOURCE, 20) + EP_Get_count + EP_Recv,
 * as XIOS's server does, and checks and sums what arrives.
 *
 *   examples/run_demo.sh      (3 processes: 2 x 3 client threads + 1 server)
 */
#include <ep_mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { CHUNKS = 50, CHUNK = 4096, TAG_DATA = 20 };

static void check(int rc, const char *what)
{
    if (rc != EP_SUCCESS) {
        char msg[EP_MAX_ERROR_STRING];
        int len;
        EP_Error_string(rc, msg, &len);
        fprintf(stderr, "%s: %s\n", what, msg);
        exit(1);
    }
}

static double value(int client, int chunk, int i)
{
    return client * 1e6 + chunk * 1e3 + i;
}

int main(int argc, char **argv)
{
    int provided, wr, ws;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    int is_server = wr == ws - 1;
    int threads = is_server ? 1 : (getenv("OMP_NUM_THREADS") ? atoi(getenv("OMP_NUM_THREADS")) : 3);
    int bad = 0;
    double t0 = MPI_Wtime();

#pragma omp parallel num_threads(threads) reduction(+ : bad)
    {
        EP_Comm comm;
        check(EP_Comm_create_endpoint(MPI_COMM_WORLD, threads, omp_get_thread_num(), &comm), "create");
        int me, size;
        EP_Comm_rank(comm, &me);
        EP_Comm_size(comm, &size);
        int server = size - 1;
        if (is_server) {
            int clients = size - 1, received = 0;
            long long *per_client = calloc(clients, sizeof(long long));
            double *buf = malloc(CHUNK * sizeof(double));
            int *next_chunk = calloc(clients, sizeof(int));
            while (received < clients * CHUNKS) {
                int flag = 0, count;
                EP_Status st;
                check(EP_Iprobe(EP_ANY_SOURCE, TAG_DATA, comm, &flag, &st), "iprobe");
                if (!flag)
                    continue;
                check(EP_Get_count(&st, MPI_DOUBLE, &count), "get_count");
                check(EP_Recv(buf, count, MPI_DOUBLE, st.MPI_SOURCE, TAG_DATA, comm, &st), "recv");
                int c = st.MPI_SOURCE, k = next_chunk[c]++;
                for (int i = 0; i < count; i++)
                    bad += buf[i] != value(c, k, i);
                per_client[c] += count;
                received++;
            }
            printf("server (rank %d): %d chunks of %d doubles from %d client endpoints, %s, %.3f s\n", me, received,
                   CHUNK, clients, bad ? "DATA ERRORS" : "all data correct, in order per client",
                   MPI_Wtime() - t0);
            free(per_client);
            free(buf);
            free(next_chunk);
        } else {
            double *field = malloc(CHUNKS * CHUNK * sizeof(double));
            EP_Request *rq = malloc(CHUNKS * sizeof(EP_Request));
            for (int k = 0; k < CHUNKS; k++) {
                for (int i = 0; i < CHUNK; i++)
                    field[k * CHUNK + i] = value(me, k, i);
                check(EP_Issend(&field[k * CHUNK], CHUNK, MPI_DOUBLE, server, TAG_DATA, comm, &rq[k]), "issend");
            }
            check(EP_Waitall(CHUNKS, rq, EP_STATUSES_IGNORE), "waitall");
            free(field);
            free(rq);
        }
        check(EP_Comm_free(&comm), "free");
    }
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total != 0;
}
