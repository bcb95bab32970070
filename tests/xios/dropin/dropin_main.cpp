/*
 * Model side of the drop-in test: a translation unit that uses the adapter as XIOS's sources use
 * their endpoints library, with no <mpi.h>: `using namespace ep_lib;` and unqualified MPI_Comm,
 * MPI_Status, MPI_Request, MPI_Info, MPI_Fint, MPI_Initialized, MPI_Wtime, MPI_INT...; endpoints
 * created by the master thread and handed over through `passage`; the Fortran conversions of
 * xios_initialize / xios_context_initialize from OpenMP threads (fc_comm_map.clear(), the host
 * null, the host communicator a test program queries, a host communicator never converted);
 * aliased reductions on a communicator of one endpoint per process; statuses and requests.
 *
 * Threads per process: EPMPI_TEST_EPS ("2" or "1,2,3": cycled over world ranks). Prints
 * "xios_dropin: PASS" on world rank 0 when every check of every process held.
 */
#include "dropin_ep.hpp"

#ifdef MPI_VERSION
#error "the endpoints headers brought <mpi.h> into a unit that did not include it"
#endif

#include "dropin_api.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ep_lib;

static std::atomic<int> failures(0);

#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "xios_dropin: %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                 \
            std::fprintf(stderr, __VA_ARGS__);                                                                         \
            std::fprintf(stderr, "\n");                                                                                \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* Threads of world process `proc`: EPMPI_TEST_EPS cycled (default 2). Parsed without strtok. */
static int threads_of(int proc)
{
    const char *env = std::getenv("EPMPI_TEST_EPS");
    std::vector<int> counts;
    std::string text = env && *env ? env : "2";
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(',', start);
        if (end == std::string::npos)
            end = text.size();
        counts.push_back(std::atoi(text.substr(start, end - start).c_str()));
        start = end + 1;
    }
    return counts[proc % counts.size()];
}

/* What one model thread does; `first` is the world endpoint rank of this process's thread 0. */
static void model_thread(int world_rank, int world_size, int first, int total, bool even)
{
    const int tid = omp_get_thread_num();
    const int nthreads = omp_get_num_threads();

    /* Start-up as XIOS's CXios::initialize: the master creates, `passage` hands over. */
    MPI_Info info;
#pragma omp master
    {
        MPI_Comm *created = NULL;
        EXPECT(MPI_Comm_create_endpoints(MPI_COMM_WORLD, nthreads, info, created) == 0 && created, "create");
        passage = created;
    }
#pragma omp barrier
    MPI_Comm global = passage[tid];
#pragma omp barrier
#pragma omp master
    {
        delete[] passage;
        passage = NULL;
    }
    int rank = -1, size = -1;
    MPI_Comm_rank(global, &rank);
    MPI_Comm_size(global, &size);
    EXPECT(rank == first + tid && size == total, "world endpoint %d of %d, expected %d of %d", rank, size, first + tid,
           total);

    /* cxios_init_client without local_comm: the table cleared, the host null converted. */
    fc_comm_map.clear();
    MPI_Comm local = EP_Comm_f2c(host_fint_null());
    EXPECT(local == MPI_COMM_NULL && local.is_null(), "f2c of the host's Fortran MPI_COMM_NULL is MPI_COMM_NULL");
    EXPECT(EP_Comm_c2f(MPI_COMM_NULL) == host_fint_null(), "c2f(MPI_COMM_NULL) is the host's Fortran null");

    /* ... the communicator returned to the model, as a Fortran integer. */
    MPI_Comm returned;
    EXPECT(MPI_Comm_dup(global, &returned) == 0, "dup");
    const int f = EP_Comm_c2f(returned);

    /* The test program asks the host for rank and size of that integer and numbers its threads
     * rank * nthreads + thread (XIOS's test_omp; right when every process has as many threads). */
    int host_rank = -1, host_size = -1;
    host_rank_size_of_fint(f, &host_rank, &host_size);
    EXPECT(host_rank == world_rank && host_size == world_size, "host rank %d of %d for process %d of %d", host_rank,
           host_size, world_rank, world_size);
    if (even)
        EXPECT(host_rank * nthreads + tid == rank && host_size * nthreads == size,
               "test program numbering %d of %d, endpoint %d of %d", host_rank * nthreads + tid, host_size * nthreads,
               rank, size);

    /* xios_context_initialize: the same integer, on the same thread, is this thread's endpoint. */
    MPI_Comm ctx = EP_Comm_f2c(f);
    int ctx_rank = -1;
    MPI_Comm_rank(ctx, &ctx_rank);
    EXPECT(ctx == returned && ctx_rank == rank, "f2c(c2f(comm)) on thread %d is endpoint %d, expected %d", tid, ctx_rank,
           rank);
    MPI_Fint as_fint(f);
    EXPECT(EP_Comm_f2c(as_fint) == returned, "f2c of an MPI_Fint");

    /* A host communicator this thread never converted: endpoints for the team, thread i endpoint i. */
    MPI_Comm fresh = EP_Comm_f2c(host_fint_world());
    int fresh_rank = -1, fresh_size = -1;
    MPI_Comm_rank(fresh, &fresh_rank);
    MPI_Comm_size(fresh, &fresh_size);
    EXPECT(!fresh.is_null() && fresh_rank == first + tid && fresh_size == total,
           "f2c of the host world: endpoint %d of %d, expected %d of %d", fresh_rank, fresh_size, first + tid, total);
    EXPECT(!(fresh == global), "a new endpoints communicator");
    MPI_Comm_free(&fresh);

    /* Point-to-point with ep_lib's status and request types: a ring, any source, ep_src. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out = 1000 + rank, in = -1, flag = 0, count = -1;
    MPI_Request requests[2];
    MPI_Status statuses[2];
    MPI_Isend(&out, 1, MPI_INT, next, 7, returned, &requests[0]);
    MPI_Status probe;
    while (!flag)
        MPI_Iprobe(-2, 7, returned, &flag, &probe);
    MPI_Get_count(&probe, MPI_INT, &count);
    EXPECT(probe.ep_src == prev && probe.MPI_SOURCE == prev && probe.ep_tag == 7 && count == 1,
           "probe: source %d tag %d count %d, expected %d 7 1", probe.ep_src, probe.ep_tag, count, prev);
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 7, returned, &requests[1]);
    MPI_Waitall(2, requests, statuses);
    EXPECT(in == 1000 + prev && statuses[1].ep_src == prev, "ring: got %d from %d", in, statuses[1].ep_src);
    MPI_Send(&out, 1, MPI_INT, next, 8, returned);
    MPI_Recv(&in, 1, MPI_INT, prev, 8, returned, &MPI_STATUS_IGNORE);
    EXPECT(in == 1000 + prev, "send/recv: got %d", in);

    /* Aliased buffers (CContextClient's MPI_Allreduce(&x, &x, ..., MPI_MIN)), first on a
     * communicator of one endpoint per process: the threads 0. */
    MPI_Comm single;
    MPI_Comm_split(global, tid == 0 ? 0 : MPI_UNDEFINED, rank, &single);
    if (tid == 0) {
        double x = 1000.0 + world_rank;
        EXPECT(MPI_Allreduce(&x, &x, 1, MPI_DOUBLE, MPI_MIN, single) == 0 && x == 1000.0, "aliased MIN: %g", x);
        long s = world_rank + 1;
        MPI_Allreduce(&s, &s, 1, MPI_LONG, MPI_SUM, single);
        EXPECT(s == (long)world_size * (world_size + 1) / 2, "aliased SUM: %ld", s);
        int scan = world_rank + 1;
        MPI_Scan(&scan, &scan, 1, MPI_INT, MPI_SUM, single);
        EXPECT(scan == (world_rank + 1) * (world_rank + 2) / 2, "aliased scan: %d", scan);
        int red = world_rank + 1;
        MPI_Reduce(&red, &red, 1, MPI_INT, MPI_SUM, 0, single);
        if (world_rank == 0)
            EXPECT(red == world_size * (world_size + 1) / 2, "aliased reduce at the root: %d", red);
        std::vector<int> all(world_size, -1);
        all[0] = 10 * world_rank;
        MPI_Allgather(all.data(), 1, MPI_INT, all.data(), 1, MPI_INT, single);
        for (int p = 0; p < world_size; p++)
            EXPECT(all[p] == 10 * p, "aliased allgather: element %d is %d", p, all[p]);
        EXPECT(MPI_Comm_free(&single) == 0 && single == MPI_COMM_NULL, "free");
    } else {
        EXPECT(single == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
    }
    /* ... and on the endpoints communicator (several endpoints per process). */
    double y = rank;
    MPI_Allreduce(&y, &y, 1, MPI_DOUBLE, MPI_MAX, global);
    EXPECT(y == size - 1, "aliased MAX over endpoints: %g", y);
    int z = 1;
    MPI_Allreduce(&z, &z, 1, MPI_INT, MPI_SUM, global);
    EXPECT(z == size, "aliased SUM over endpoints: %d", z);

    /* What parallel NetCDF does with the file communicator, from one thread per process. */
#pragma omp barrier
#pragma omp master
    {
        EXPECT(late_host_size(returned) == world_size, "host size of mpi_comm from the late unit");
        EXPECT(host_parallel_open(returned, world_rank + 1) == (long)world_size * (world_size + 1) / 2,
               "NetCDF-like use of mpi_comm and MPI_INFO_NULL.mpi_info");
    }
#pragma omp barrier

    /* Freed endpoints leave the table (a later communicator must not come back for them). */
    EXPECT(MPI_Comm_free(&returned) == 0, "free");
    MPI_Comm_free(&global);
#pragma omp barrier
#pragma omp master
    EXPECT(fc_comm_map.size() == 0, "%d conversions left after the free", (int)fc_comm_map.size());
}

int main(int argc, char **argv)
{
    int flag = -1;
    EXPECT(MPI_Initialized(&flag) == 0 && flag == 0, "not initialized yet");
    EXPECT(MPI_Init(&argc, &argv) == 0, "MPI_Init");
    MPI_Initialized(&flag);
    EXPECT(flag == 1, "initialized");
    const double t0 = MPI_Wtime();
    int world_rank = -1, world_size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    EXPECT(late_constants_agree(), "ep_lib's globals are the host's constants");

    int first = 0, total = 0;
    bool even = true;
    for (int p = 0; p < world_size; p++) {
        if (p < world_rank)
            first += threads_of(p);
        total += threads_of(p);
        even = even && threads_of(p) == threads_of(0);
    }
#pragma omp parallel num_threads(threads_of(world_rank))
    model_thread(world_rank, world_size, first, total, even);

    EXPECT(MPI_Wtime() >= t0, "MPI_Wtime goes forward");
    const int total_failures = host_world_sum(failures.load());
    if (world_rank == 0)
        std::printf("xios_dropin: %s (%d failures)\n", total_failures ? "FAIL" : "PASS", total_failures);
    std::fflush(stdout);
    MPI_Finalize();
    return total_failures ? 1 : 0;
}
