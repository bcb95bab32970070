/*
 * A plain MPI program (no endpoint anywhere), run once linked with the standard-names layer
 * and once without: tests/mpi_names.rs checks that both print the same results. It prints
 * which library its MPI_Send comes from, so that the run with the layer proves the layer's
 * functions were the ones called.
 *
 * Covers what a host call through the layer must keep: point-to-point with wildcards and
 * statuses, request arrays, probes, collectives, split, attributes, and error classes with
 * MPI_ERRORS_RETURN. It prints the thread level MPI_Init gave: the layer must not raise it for
 * a program that creates no endpoint (src/mpi_names/init.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (me + 1) % size, left = (me - 1 + size) % size;
    long digest = 0;

    int out[100], in[100];
    for (int i = 0; i < 100; i++)
        out[i] = me * 1000 + i;
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(in, 100, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, 100, MPI_INT, right, 5, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, st);
    int count;
    MPI_Get_count(&st[0], MPI_INT, &count);
    digest += st[0].MPI_SOURCE * 7 + st[0].MPI_TAG * 11 + count;
    for (int i = 0; i < 100; i++)
        digest += in[i];

    MPI_Send(out, 3, MPI_INT, right, 6, MPI_COMM_WORLD);
    MPI_Status ps;
    MPI_Probe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &ps);
    MPI_Get_count(&ps, MPI_INT, &count);
    MPI_Recv(in, count, MPI_INT, ps.MPI_SOURCE, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    digest += ps.MPI_SOURCE + count + in[2];

    int sum;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    digest += sum;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
    int half_rank;
    MPI_Comm_rank(half, &half_rank);
    digest += half_rank * 13;
    MPI_Comm_free(&half);
    int flag, *tag_ub;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    digest += flag;

    int cls;
    MPI_Error_class(MPI_Send(out, 1, MPI_INT, size, 0, MPI_COMM_WORLD), &cls);
    digest += cls == MPI_ERR_RANK;
    int left_got = (int)(digest % 1000003);
    (void)left;

    Dl_info info;
    const char *from = "?";
    void *send = dlsym(RTLD_DEFAULT, "MPI_Send");
    if (send && dladdr(send, &info) && info.dli_fname)
        from = strstr(info.dli_fname, "libepmpi_mpi") ? "layer" : "host";
    int all[64];
    MPI_Gather(&left_got, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0) {
        int level;
        MPI_Query_thread(&level);
        printf("thread level: %s\n", level == MPI_THREAD_MULTIPLE     ? "MPI_THREAD_MULTIPLE"
                                      : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                      : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                                       : "MPI_THREAD_SINGLE");
        printf("MPI_Send from: %s\nresults:", from);
        for (int i = 0; i < size && i < 64; i++)
            printf(" %d", all[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
