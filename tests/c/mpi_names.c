/*
 * Endpoint communicators under the standard MPI names (libepmpi_mpi): created with
 * MPIX_Comm_create_endpoints, then used only through MPI_* calls in each OpenMP thread, mixed
 * with calls on the host's own communicators. Checks ranks, data, statuses (read with the
 * host's MPI_Get_count), wildcards, MPI_PROC_NULL, arrays mixing host and endpoint requests,
 * collectives, split, dup and compare, error classes through MPI_ERRORS_RETURN, the error for
 * mixing handles, and MPI_ERR_UNSUPPORTED_OPERATION for a function endpoints lack.
 *
 * Written without ep_mpi.h on purpose: nothing here may need EPMPI's own names.
 */
#include <epmpi_mpix.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            _Pragma("omp atomic") failures++;                                              \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
        }                                                                                  \
    } while (0)

#define CHECK_OK(call)                                                                     \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                           \
    } while (0)

static int error_class(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

/* Endpoints of process `p`: EPMPI_TEST_EPS, as the other test programs. */
static int count_for(int p)
{
    const char *spec = getenv("EPMPI_TEST_EPS");
    int counts[64], n = 0;
    for (const char *s = spec ? spec : ""; *s && n < 64;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s)
            break;
        counts[n++] = (int)v;
        if (*end != ',')
            break;
        s = end + 1;
    }
    return n ? counts[p % n] : 2;
}

#define N 257

static void endpoint(MPI_Comm comm, int expected_rank, int expected_size, int thread)
{
    int me = -1, size = -1;
    CHECK_OK(MPI_Comm_rank(comm, &me));
    CHECK_OK(MPI_Comm_size(comm, &size));
    CHECK(me == expected_rank && size == expected_size, "rank %d of %d, expected %d of %d", me, size, expected_rank,
          expected_size);
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(comm, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "error handler not MPI_ERRORS_RETURN");
    int right = (me + 1) % size, left = (me - 1 + size) % size;

    /* A ring exchange whose requests share one array with a host self-message. */
    int out[N], in[N], self_out = 1000 + me, self_in = -1;
    for (int i = 0; i < N; i++)
        out[i] = me * 100000 + i, in[i] = -1;
    MPI_Request reqs[4];
    MPI_Status st[4];
    CHECK_OK(MPI_Irecv(in, N, MPI_INT, MPI_ANY_SOURCE, 7, comm, &reqs[0]));
    CHECK_OK(MPI_Isend(out, N, MPI_INT, right, 7, comm, &reqs[1]));
    CHECK_OK(MPI_Irecv(&self_in, 1, MPI_INT, 0, 100 + thread, MPI_COMM_SELF, &reqs[2]));
    CHECK_OK(MPI_Isend(&self_out, 1, MPI_INT, 0, 100 + thread, MPI_COMM_SELF, &reqs[3]));
    CHECK_OK(MPI_Waitall(4, reqs, st));
    int count = -1;
    MPI_Get_count(&st[0], MPI_INT, &count);
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 7 && count == N, "status source %d tag %d count %d",
          st[0].MPI_SOURCE, st[0].MPI_TAG, count);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == left * 100000 + i, "in[%d] = %d", i, in[i]);
    CHECK(self_in == 1000 + me, "host self-message %d", self_in);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL, "completed requests not null");

    /* Probe with wildcards, then receive what it found. */
    int token = me;
    CHECK_OK(MPI_Send(&token, 1, MPI_INT, right, 40 + me, comm));
    MPI_Status ps;
    CHECK_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &ps));
    CHECK(ps.MPI_SOURCE == left && ps.MPI_TAG == 40 + left, "probe source %d tag %d", ps.MPI_SOURCE, ps.MPI_TAG);
    CHECK_OK(MPI_Recv(&token, 1, MPI_INT, ps.MPI_SOURCE, ps.MPI_TAG, comm, MPI_STATUS_IGNORE));
    CHECK(token == left, "token %d", token);

    /* MPI_PROC_NULL: completes at once with the null status. */
    MPI_Status ns;
    CHECK_OK(MPI_Recv(in, N, MPI_INT, MPI_PROC_NULL, 0, comm, &ns));
    MPI_Get_count(&ns, MPI_INT, &count);
    CHECK(ns.MPI_SOURCE == MPI_PROC_NULL && ns.MPI_TAG == MPI_ANY_TAG && count == 0, "null status %d %d %d",
          ns.MPI_SOURCE, ns.MPI_TAG, count);

    /* Waitany and Testsome over a mixed array. */
    MPI_Request mix[2];
    int a = -1, b = -1, one = me, index = -1, outcount = 0, indices[2];
    MPI_Status some[2];
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, left, 9, comm, &mix[0]));
    CHECK_OK(MPI_Irecv(&b, 1, MPI_INT, 0, 200 + thread, MPI_COMM_SELF, &mix[1]));
    CHECK_OK(MPI_Send(&one, 1, MPI_INT, 0, 200 + thread, MPI_COMM_SELF));
    CHECK_OK(MPI_Waitany(2, mix, &index, MPI_STATUS_IGNORE));
    CHECK(index == 1 || index == 0, "waitany index %d", index);
    CHECK_OK(MPI_Send(&one, 1, MPI_INT, right, 9, comm));
    while (mix[0] != MPI_REQUEST_NULL || mix[1] != MPI_REQUEST_NULL)
        CHECK_OK(MPI_Testsome(2, mix, &outcount, indices, some));
    CHECK(a == left && b == me, "mixed array data %d %d", a, b);

    /* Collectives. */
    int sum = -1, root_value = me == size - 1 ? 4242 : -1;
    CHECK_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
    CHECK_OK(MPI_Bcast(&root_value, 1, MPI_INT, size - 1, comm));
    CHECK(root_value == 4242, "bcast %d", root_value);
    CHECK_OK(MPI_Barrier(comm));

    /* Split (reversed order by key), dup, compare. */
    MPI_Comm sub, dup;
    int sub_rank = -1, sub_size = -1, result = -1;
    CHECK_OK(MPI_Comm_split(comm, me % 2, -me, &sub));
    MPI_Comm_rank(sub, &sub_rank);
    MPI_Comm_size(sub, &sub_size);
    int members = (size - me % 2 + 1) / 2;
    CHECK(sub_size == members && sub_rank == members - 1 - me / 2, "split rank %d of %d", sub_rank, sub_size);
    CHECK_OK(MPI_Comm_dup(comm, &dup));
    CHECK_OK(MPI_Comm_compare(comm, dup, &result));
    CHECK(result == MPI_CONGRUENT, "compare with dup %d", result);
    CHECK_OK(MPI_Comm_compare(comm, comm, &result));
    CHECK(result == MPI_IDENT, "compare with itself %d", result);
    int flag = 0, *tag_ub = NULL;
    CHECK_OK(MPI_Comm_get_attr(comm, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && tag_ub && *tag_ub >= 32767, "MPI_TAG_UB");

    /* Errors: a class the host knows, the communicator still works after it. */
    CHECK(error_class(MPI_Send(&one, 1, MPI_INT, size, 0, comm)) == MPI_ERR_RANK, "bad rank");
    CHECK(error_class(MPI_Comm_compare(comm, MPI_COMM_WORLD, &result)) == MPI_ERR_COMM, "mixed handles");
    MPI_Comm never;
    CHECK(error_class(MPI_Comm_accept("no-port", MPI_INFO_NULL, 0, comm, &never)) == MPI_ERR_UNSUPPORTED_OPERATION,
          "unsupported function");
    CHECK_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == size * (size - 1) / 2, "allreduce after errors %d", sum);

    CHECK_OK(MPI_Comm_free(&sub));
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK(sub == MPI_COMM_NULL && dup == MPI_COMM_NULL, "freed handles not null");
}

int main(int argc, char **argv)
{
    int provided, world_rank, world_size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    int n = count_for(world_rank), offset = 0, total = 0;
    for (int p = 0; p < world_size; p++) {
        offset += p < world_rank ? count_for(p) : 0;
        total += count_for(p);
    }
    MPI_Comm *comms = malloc(sizeof(MPI_Comm) * (size_t)(n + 1));
    CHECK_OK(MPIX_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms));
#pragma omp parallel num_threads(n > 0 ? n : 1)
    {
        int t = omp_get_thread_num();
        if (t < n) {
            endpoint(comms[t], offset + t, total, t);
            CHECK_OK(MPI_Comm_free(&comms[t]));
        }
    }
    free(comms);
    /* The host's communicators behave as before. */
    int sum = 0;
    MPI_Allreduce(&failures, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("mpi_names: %s (%d failures)\n", sum ? "FAIL" : "PASS", sum);
    MPI_Finalize();
    return sum ? 1 : 0;
}
