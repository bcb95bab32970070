/*
 * Without MPI_THREAD_MULTIPLE, creation must fail with EP_ERR_THREAD_LEVEL and say why,
 * and calls before MPI_Init report EP_ERR_NOT_INITIALIZED.
 */
#include <ep_mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int failures = 0, cls, len, provided;
    char msg[EP_MAX_ERROR_STRING];
    EP_Comm c[2];
    EP_Comm_set_errhandler(EP_COMM_NULL, EP_ERRORS_RETURN);
    int rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, 2, MPI_INFO_NULL, c);
    EP_Error_class(rc, &cls);
    if (cls != EP_ERR_NOT_INITIALIZED) {
        fprintf(stderr, "FAIL: before MPI_Init gave class %d\n", cls);
        failures++;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    rc = EP_Comm_create_endpoints(MPI_COMM_WORLD, 2, MPI_INFO_NULL, c);
    EP_Error_class(rc, &cls);
    EP_Error_string(rc, msg, &len);
    if (provided != MPI_THREAD_MULTIPLE && (cls != EP_ERR_THREAD_LEVEL || !strstr(msg, "MPI_THREAD_MULTIPLE"))) {
        fprintf(stderr, "FAIL: class %d message '%s'\n", cls, msg);
        failures++;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_level: %s (%d failures)\n", total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
