/*
 * server.c: the I/O server of the XIOS demo (examples/xios_demo), one EPMPI endpoint per
 * process, launched MPMD after the model (model.f90):
 *
 *   mpirun -np N model ... : -np S server [--output PATH]
 *
 * EPX_Init_server, then every context a model registers: events are assembled into this
 * server's band of rows, bands are gathered to server 0 (assemble.h), which writes a NetCDF-4
 * file with CF metadata (output.h) at PATH (default xios_demo_output.nc; a second context
 * writes PATH.<context id>.nc), reopens it, checks every value against the formulas of
 * fields.h and prints a report ending with `xios_demo: VERIFIED <path>`, or
 * `xios_demo: FAILED <path>: <why>` and exits with status 1. Malformed events or failing
 * calls abort the job with a message.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "assemble.h"
#include "output.h"

#include <ep_xios.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the error of `call` and aborts the job when rc is not EP_SUCCESS. */
static void check(int rc, const char *call)
{
    if (rc == EP_SUCCESS)
        return;
    char text[EP_MAX_ERROR_STRING];
    int len;
    EP_Error_string(rc, text, &len);
    fprintf(stderr, "xios_demo server: %s failed: %s\n", call, text);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Aborts the job with `why`. */
static void die(const char *what, const char *why)
{
    fprintf(stderr, "xios_demo server: %s: %s\n", what, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Server 0's report of a finished context; returns 0 when the file verified, 1 otherwise. */
static int report(const demo_assembly *a, const char *path, int servers, int clients, int64_t bytes, double seconds)
{
    const demo_layout *l = assembly_layout(a);
    char shown[PATH_MAX], why[512];
    if (realpath(path, shown) == NULL)
        snprintf(shown, sizeof shown, "%s", path);
    printf("xios_demo server: output %s (NetCDF-4, CF-1.8)\n", shown);
    printf("xios_demo server: fields");
    for (int f = 0; f < l->nfields; f++)
        printf("%s %s", f ? "," : "", l->names[f]);
    printf(" + nav_lon, nav_lat; %lld timesteps; grid %lld x %lld x %lld (x, y, z), curvilinear\n",
           (long long)l->steps, (long long)l->nx, (long long)l->ny, (long long)l->nz);
    printf("xios_demo server: clients %d = %lld processes x threads %s; servers %d; transport %s\n", clients,
           (long long)assembly_processes(a), assembly_threads(a), servers,
           assembly_transport(a) == EPX_ONE_SIDED ? "one-sided" : "two-sided");
    printf("xios_demo server: %lld bytes client->server in %.3f s: %.1f MB/s\n", (long long)bytes, seconds,
           seconds > 0 ? (double)bytes / seconds / 1e6 : 0.0);
    int64_t checked = output_verify(path, l, why, sizeof why);
    if (checked < 0) {
        printf("xios_demo: FAILED %s: %s\n", shown, why);
        fflush(stdout);
        return 1;
    }
    printf("xios_demo server: %lld values checked against the formulas\n", (long long)checked);
    printf("xios_demo: VERIFIED %s\n", shown);
    fflush(stdout);
    return 0;
}

/* Receives, assembles and writes one context; returns 1 when server 0's verification failed. */
static int serve(EPX_Context context, EP_Comm servers_comm, const char *path)
{
    int clients, servers, rank;
    check(EPX_Context_info(context, &clients, &servers, &rank), "EPX_Context_info");
    demo_assembly *a = assembly_new(context, servers_comm, path);
    if (a == NULL)
        die(path, "no memory");
    char why[512];
    double start = EP_Wtime();
    for (;;) {
        EPX_Event event;
        check(EPX_Context_wait_event(context, &event), "EPX_Context_wait_event");
        if (event.type == EPX_EVENT_END)
            break;
        if (assembly_event(a, &event, why, sizeof why))
            die("event of client", why);
    }
    if (assembly_end(a, why, sizeof why))
        die(path, why);
    double seconds = EP_Wtime() - start, slowest = 0;
    int64_t bytes = assembly_bytes(a), total = 0;
    check(EP_Reduce(&bytes, &total, 1, MPI_INT64_T, MPI_SUM, 0, servers_comm), "EP_Reduce");
    check(EP_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, servers_comm), "EP_Reduce");
    check(EPX_Context_finalize(&context), "EPX_Context_finalize");
    int failed = rank == 0 ? report(a, path, servers, clients, total, slowest) : 0;
    assembly_free(a);
    return failed;
}

int main(int argc, char **argv)
{
    const char *output = "xios_demo_output.nc";
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--output") == 0 && i + 1 < argc)
            output = argv[++i];
        else
            die(argv[i], "unknown argument (usage: server [--output PATH])");
    }
    if (provided < MPI_THREAD_MULTIPLE)
        die("MPI_Init_thread", "the MPI library does not provide MPI_THREAD_MULTIPLE");
    EPX_Server server;
    EP_Comm servers_comm;
    check(EPX_Init_server(MPI_COMM_WORLD, &server), "EPX_Init_server");
    check(EPX_Server_comm(server, &servers_comm), "EPX_Server_comm");
    int failed = 0;
    for (int n = 0;; n++) {
        char id[EPX_MAX_NAME + 1], path[PATH_MAX];
        EPX_Context context;
        check(EPX_Server_accept_context(server, id, &context), "EPX_Server_accept_context");
        if (context == EPX_CONTEXT_NULL)
            break;
        int len = n == 0 ? snprintf(path, sizeof path, "%s", output)
                         : snprintf(path, sizeof path, "%s.%s.nc", output, id);
        if (len < 0 || (size_t)len >= sizeof path)
            die(output, "output path too long");
        failed |= serve(context, servers_comm, path);
    }
    check(EPX_Finalize_server(&server), "EPX_Finalize_server");
    MPI_Finalize();
    return failed;
}
