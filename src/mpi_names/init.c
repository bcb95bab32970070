/*
 * init.c: MPI_Init and MPI_Init_thread under the standard-names layer.
 *
 * Endpoints make MPI calls from several threads of a process at once, so they need a host at
 * MPI_THREAD_MULTIPLE. A program that links this layer creates endpoints (MPIX_Comm_create_
 * endpoints, MPIX_Threadcomm_init) after initialising MPI with whatever level it asked for:
 * MPICH's thread communicators work after a plain MPI_Init, and programs written for them do
 * that. The layer therefore asks the host for MPI_THREAD_MULTIPLE whatever the program asks,
 * and reports the level the host gives (MPI lets `provided` exceed `required`, MPI 4.1 section
 * 11.2.1). EPMPI_HOST_THREAD_LEVEL=requested keeps the program's own request instead (a program
 * that creates no endpoint and wants the host's cheapest level).
 */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

int epmpi_host_thread_level(int required)
{
    const char *v = getenv("EPMPI_HOST_THREAD_LEVEL");
    if (v && strcmp(v, "requested") == 0)
        return required;
    return MPI_THREAD_MULTIPLE;
}

int MPI_Init(int *argc, char ***argv)
{
    int provided;
    return PMPI_Init_thread(argc, argv, epmpi_host_thread_level(MPI_THREAD_SINGLE), &provided);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return PMPI_Init_thread(argc, argv, epmpi_host_thread_level(required), provided);
}
