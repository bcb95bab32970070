/*
 * Endpoint communicators under the standard MPI names (libepmpi_mpi): created with
 * MPIX_Comm_create_endpoints, then used only through MPI_* calls in each OpenMP thread, mixed
 * with calls on the host's own communicators. Checks ranks, data, statuses (read with the
 * host's MPI_Get_count), wildcards, MPI_PROC_NULL, arrays mixing host and endpoint requests,
 * collectives, split, dup and compare, error classes through MPI_ERRORS_RETURN, the error for
 * mixing handles, and MPI_ERR_UNSUPPORTED_OPERATION for a function endpoints lack; arrays mixing
 * host, endpoint and inactive persistent requests; persistent collectives on endpoints and on
 * host communicators; MPI_Pack and MPI_Unpack on an endpoint.
 *
 * Written without ep_mpi.h on purpose: nothing here may need EPMPI's own names.
 */
#include "mpi_names_test.h"

#define N 257

/* An empty status (MPI 4.1 section 3.7.3): what a null or inactive request completes with. */
static int empty(const MPI_Status *st)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && count == 0;
}

/* Arrays mixing the host's requests, endpoint requests and inactive persistent requests of
 * both, which count as null in Waitany, Testany, Waitsome and Testsome (MPI 4.1 sections 3.7.5
 * and 3.9); MPI_Startall over both kinds, with a persistent collective on a host
 * communicator (`self`, this thread's own) next to one on the endpoint. */
static void mixed_persistent(MPI_Comm comm, int me, int left, int right, int thread, MPI_Comm self)
{
    int pv = -1, sv = me * 7, hv = -1, hv2 = -1, hs = 500 + thread, one = 1, sum = -1, selfsum = -1;
    MPI_Request arr[5];
    MPI_Status st[5];
    int index = -5, flag = -1, outcount = -5, indices[5];
    CHECK_OK(MPI_Recv_init(&pv, 1, MPI_INT, left, 11, comm, &arr[0]));            /* endpoint, inactive */
    CHECK_OK(MPI_Irecv(&hv, 1, MPI_INT, 0, 300 + thread, MPI_COMM_SELF, &arr[1])); /* host, pending */
    CHECK_OK(MPI_Send_init(&sv, 1, MPI_INT, right, 11, comm, &arr[2]));           /* endpoint, inactive */
    CHECK_OK(MPI_Recv_init(&hv2, 1, MPI_INT, 0, 400 + thread, MPI_COMM_SELF, &arr[3])); /* host, inactive */
    arr[4] = MPI_REQUEST_NULL;
    CHECK_OK(MPI_Testany(5, arr, &index, &flag, &st[0]));
    CHECK(flag == 0 && index == MPI_UNDEFINED, "testany with only inactive ones ready: flag %d index %d", flag, index);
    CHECK_OK(MPI_Testsome(5, arr, &outcount, indices, st));
    CHECK(outcount == 0, "testsome with only inactive ones ready: outcount %d", outcount);
    CHECK_OK(MPI_Send(&hs, 1, MPI_INT, 0, 300 + thread, MPI_COMM_SELF));
    CHECK_OK(MPI_Waitany(5, arr, &index, &st[0]));
    CHECK(index == 1 && hv == hs && arr[1] == MPI_REQUEST_NULL, "waitany index %d value %d", index, hv);
    /* Nothing active left: index MPI_UNDEFINED / outcount MPI_UNDEFINED, empty status. */
    CHECK_OK(MPI_Testany(5, arr, &index, &flag, &st[0]));
    CHECK(flag == 1 && index == MPI_UNDEFINED && empty(&st[0]), "testany, none active: flag %d index %d", flag,
          index);
    CHECK_OK(MPI_Waitany(5, arr, &index, MPI_STATUS_IGNORE));
    CHECK(index == MPI_UNDEFINED, "waitany, none active: index %d", index);
    CHECK_OK(MPI_Testsome(5, arr, &outcount, indices, st));
    CHECK(outcount == MPI_UNDEFINED, "testsome, none active: outcount %d", outcount);
    CHECK_OK(MPI_Waitsome(5, arr, &outcount, indices, st));
    CHECK(outcount == MPI_UNDEFINED, "waitsome, none active: outcount %d", outcount);
    CHECK_OK(MPI_Waitall(5, arr, st));
    for (int i = 0; i < 5; i++)
        CHECK(empty(&st[i]), "waitall, none active: status %d not empty", i);
    CHECK(arr[0] != MPI_REQUEST_NULL && arr[2] != MPI_REQUEST_NULL && arr[3] != MPI_REQUEST_NULL,
          "inactive persistent requests lost their handles");

    /* Started together with persistent collectives on the endpoint and on the host. */
    MPI_Request go[5] = {arr[0], arr[2], arr[3], MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK_OK(MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &go[3]));
    CHECK_OK(MPI_Allreduce_init(&one, &selfsum, 1, MPI_INT, MPI_SUM, self, MPI_INFO_NULL, &go[4]));
    for (int round = 0; round < 3; round++) {
        pv = hv2 = sum = selfsum = -1;
        CHECK_OK(MPI_Startall(5, go));
        CHECK_OK(MPI_Send(&hs, 1, MPI_INT, 0, 400 + thread, MPI_COMM_SELF));
        /* The host's persistent collective is completed on its own: MPICH 4.0.2's Testsome and
         * Testany report an inactive persistent collective request as complete again. */
        CHECK_OK(MPI_Wait(&go[4], MPI_STATUS_IGNORE));
        int done[4] = {0}, left_to_do = 4;
        while (left_to_do > 0) {
            CHECK_OK(MPI_Waitsome(4, go, &outcount, indices, st));
            CHECK(outcount > 0 && outcount <= left_to_do, "waitsome outcount %d", outcount);
            if (outcount <= 0)
                break;
            for (int k = 0; k < outcount; k++) {
                CHECK(!done[indices[k]], "request %d completed twice", indices[k]);
                done[indices[k]] = 1;
                if (indices[k] == 0)
                    CHECK(st[k].MPI_SOURCE == left && st[k].MPI_TAG == 11, "persistent receive status %d %d",
                          st[k].MPI_SOURCE, st[k].MPI_TAG);
            }
            left_to_do -= outcount;
        }
        CHECK(pv == left * 7 && hv2 == hs && selfsum == 1, "round %d: %d %d %d", round, pv, hv2, selfsum);
        int n = -1;
        MPI_Comm_size(comm, &n);
        CHECK(sum == n, "round %d: persistent allreduce %d", round, sum);
        CHECK_OK(MPI_Waitsome(4, go, &outcount, indices, st));
        CHECK(outcount == MPI_UNDEFINED, "round %d: waitsome after all completed: %d", round, outcount);
    }
    for (int i = 0; i < 5; i++) {
        CHECK(go[i] != MPI_REQUEST_NULL, "persistent request %d lost its handle", i);
        CHECK_OK(MPI_Request_free(&go[i]));
    }
}

/* MPI_Pack, MPI_Unpack and MPI_Pack_size on an endpoint (MPI 4.1 section 5.2): a packed
 * message sent as MPI_PACKED to the right, the left one's unpacked; bad input gets the host's
 * class through the endpoint's handler. */
static void pack(MPI_Comm comm, int me, int size, int left, int right)
{
    int ints[3] = {me, me * 2, me * 3}, n_ints = 0, n_double = 0;
    double d = me + 0.5;
    CHECK_OK(MPI_Pack_size(3, MPI_INT, comm, &n_ints));
    CHECK_OK(MPI_Pack_size(1, MPI_DOUBLE, comm, &n_double));
    int host_ints = -1;
    MPI_Pack_size(3, MPI_INT, MPI_COMM_SELF, &host_ints);
    CHECK(n_ints == host_ints && n_ints >= 12 && n_double >= 8, "pack sizes %d %d", n_ints, n_double);
    char out[256], in[256];
    int pos = 0;
    CHECK_OK(MPI_Pack(ints, 3, MPI_INT, out, (int)sizeof out, &pos, comm));
    CHECK_OK(MPI_Pack(&d, 1, MPI_DOUBLE, out, (int)sizeof out, &pos, comm));
    CHECK(pos > 0 && pos <= n_ints + n_double, "packed %d bytes", pos);
    MPI_Status st;
    CHECK_OK(MPI_Sendrecv(out, pos, MPI_PACKED, right, 12, in, (int)sizeof in, MPI_PACKED, left, 12, comm, &st));
    int got = -1;
    MPI_Get_count(&st, MPI_PACKED, &got);
    CHECK(got == pos, "received %d packed bytes of %d", got, pos);
    int back[3] = {-1, -1, -1}, at = 0;
    double e = -1;
    CHECK_OK(MPI_Unpack(in, got, &at, back, 3, MPI_INT, comm));
    CHECK_OK(MPI_Unpack(in, got, &at, &e, 1, MPI_DOUBLE, comm));
    CHECK(back[0] == left && back[1] == left * 2 && back[2] == left * 3 && e == left + 0.5 && at == got,
          "unpacked %d %d %d %g at %d", back[0], back[1], back[2], e, at);
    /* Bad input (both hosts check these; neither checks every too small buffer): the host's
     * class, and the endpoint works afterwards. */
    pos = 0;
    CHECK(error_class(MPI_Pack(ints, -1, MPI_INT, out, (int)sizeof out, &pos, comm)) == MPI_ERR_COUNT, "count -1");
    CHECK(error_class(MPI_Pack(ints, 3, MPI_DATATYPE_NULL, out, (int)sizeof out, &pos, comm)) == MPI_ERR_TYPE,
          "null datatype");
    CHECK(error_class(MPI_Unpack(in, got, &at, back, 3, MPI_DATATYPE_NULL, comm)) == MPI_ERR_TYPE,
          "unpack, null datatype");
    int sum = -1;
    CHECK_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2, "allreduce after a pack error %d", sum);
}

static void endpoint(MPI_Comm comm, int expected_rank, int expected_size, int thread, MPI_Comm *selfs)
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

    mixed_persistent(comm, me, left, right, thread, selfs[thread]);
    pack(comm, me, size, left, right);

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
    /* One host communicator per thread for its host persistent collectives (collectives on one
     * communicator from several threads at once are erroneous). */
    MPI_Comm *selfs = malloc(sizeof(MPI_Comm) * (size_t)(n + 1));
    for (int t = 0; t < n; t++)
        MPI_Comm_dup(MPI_COMM_SELF, &selfs[t]);
    CHECK_OK(MPIX_Comm_create_endpoints(MPI_COMM_WORLD, n, MPI_INFO_NULL, comms));
#pragma omp parallel num_threads(n > 0 ? n : 1)
    {
        int t = omp_get_thread_num();
        if (t < n) {
            endpoint(comms[t], offset + t, total, t, selfs);
            CHECK_OK(MPI_Comm_free(&comms[t]));
        }
    }
    for (int t = 0; t < n; t++)
        MPI_Comm_free(&selfs[t]);
    free(comms);
    free(selfs);
    /* A persistent collective on a host communicator (MPI 4.0's, the host's extension on MPI 3
     * hosts), outside any endpoint. */
    MPI_Request pr;
    int one = 1, ranks = -1;
    CHECK_OK(MPI_Allreduce_init(&one, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr));
    for (int round = 0; round < 2; round++) {
        ranks = -1;
        CHECK_OK(MPI_Start(&pr));
        CHECK_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        CHECK(ranks == world_size, "host persistent allreduce %d", ranks);
    }
    CHECK_OK(MPI_Request_free(&pr));
    /* The host's communicators behave as before. */
    int sum = 0;
    MPI_Allreduce(&failures, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("mpi_names: %s (%d failures)\n", sum ? "FAIL" : "PASS", sum);
    MPI_Finalize();
    return sum ? 1 : 0;
}
