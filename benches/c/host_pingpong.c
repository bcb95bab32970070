/*
 * A plain MPI ping-pong (no endpoint anywhere) for benches/names_host.rs, which builds it
 * once as it is and once linked with the standard-names layer, and runs the builds in turns.
 *
 *   mpirun -np 2 host_pingpong <reps> <bytes>:<iterations> ...
 *
 * For each size: one warm-up repetition, then <reps> repetitions of <iterations> round trips,
 * each after a barrier; a repetition's figure is its half round trip in us. Process 0 prints
 *
 *   MPI_Send from: layer|host      (the library MPI_Send resolves to, found with dladdr)
 *   thread level: <MPI_Query_thread>
 *   latency <bytes> <us> <us> ...  (one line per size, one figure per repetition)
 *   results: <digest>              (received data and counts; must not depend on the build)
 *
 * The data are checked: process 0 sends a pattern that depends on size and repetition, process
 * 1 echoes what it received, and both compare what arrived after each repetition (outside the
 * timed loop), so a build that moved wrong bytes fails rather than gives a figure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 64

static unsigned char pattern(long bytes, int rep, long i)
{
    return (unsigned char)(i * 31 + bytes * 7 + rep * 13 + 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc < 3) {
        if (me == 0)
            fprintf(stderr, "usage: mpirun -np 2 %s <reps> <bytes>:<iterations> ...\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int reps = atoi(argv[1]);
    int nsizes = argc - 2;
    if (reps < 1 || nsizes > MAX_SIZES)
        MPI_Abort(MPI_COMM_WORLD, 2);
    long sizes[MAX_SIZES], iters[MAX_SIZES], max = 1;
    for (int s = 0; s < nsizes; s++) {
        if (sscanf(argv[2 + s], "%ld:%ld", &sizes[s], &iters[s]) != 2 || sizes[s] < 0 || sizes[s] > INT32_MAX || iters[s] < 1)
            MPI_Abort(MPI_COMM_WORLD, 2);
        if (sizes[s] > max)
            max = sizes[s];
    }
    unsigned char *sbuf = malloc(max), *rbuf = malloc(max);
    double *t = malloc(sizeof(double) * reps);
    if (!sbuf || !rbuf || !t)
        MPI_Abort(MPI_COMM_WORLD, 3);

    Dl_info info;
    const char *from = "?";
    void *send = dlsym(RTLD_DEFAULT, "MPI_Send");
    if (send && dladdr(send, &info) && info.dli_fname)
        from = strstr(info.dli_fname, "libepmpi_mpi") ? "layer" : "host";
    int level;
    MPI_Query_thread(&level);
    const char *level_name = level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                             : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                             : level == MPI_THREAD_FUNNELED  ? "MPI_THREAD_FUNNELED"
                                                             : "MPI_THREAD_SINGLE";
    if (me == 0)
        printf("MPI_Send from: %s\nthread level: %s\n", from, level_name);

    unsigned long digest = 0;
    long bad = 0;
    int peer = 1 - me;
    for (int s = 0; s < nsizes; s++) {
        int n = (int)sizes[s];
        for (int rep = -1; rep < reps; rep++) {
            if (me == 0)
                for (long i = 0; i < n; i++)
                    sbuf[i] = pattern(n, rep, i);
            memset(rbuf, 0, n);
            MPI_Status st;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long k = 0; k < iters[s]; k++) {
                if (me == 0) {
                    MPI_Send(sbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
                } else {
                    MPI_Recv(rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
                    MPI_Send(rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                }
            }
            double dt = MPI_Wtime() - t0;
            if (rep >= 0)
                t[rep] = dt / (2.0 * iters[s]) * 1e6;
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            for (long i = 0; i < n; i++) {
                bad += rbuf[i] != pattern(n, rep, i);
                digest = digest * 1000003u + rbuf[i];
            }
            digest = digest * 31u + (unsigned long)count * 7u + (unsigned long)st.MPI_SOURCE * 3u + (unsigned long)st.MPI_TAG;
        }
        if (me == 0) {
            printf("latency %d", n);
            for (int rep = 0; rep < reps; rep++)
                printf(" %.6f", t[rep]);
            printf("\n");
        }
    }

    /* One digest over both processes, so either side's data counts. */
    unsigned long both[2];
    MPI_Gather(&digest, 1, MPI_UNSIGNED_LONG, both, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    long bad_total;
    MPI_Reduce(&bad, &bad_total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("results: %lx %lx\n", both[0], both[1]);
        fflush(stdout);
        if (bad_total != 0) {
            fprintf(stderr, "host_pingpong: %ld bytes arrived wrong\n", bad_total);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    free(sbuf);
    free(rbuf);
    free(t);
    MPI_Finalize();
    return 0;
}
