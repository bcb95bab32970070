/*
 * mpi_names_test.h: what the programs written with the standard MPI names only
 * (tests/c/mpi_names*.c, run through libepmpi_mpi by tests/mpi_names.rs) share: the failure
 * count and checks, error classes, and the endpoints per process of EPMPI_TEST_EPS.
 */
#ifndef MPI_NAMES_TEST_H
#define MPI_NAMES_TEST_H

#include <epmpi_mpix.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_eps.h"

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
    return ep_test_count_for(p);
}

#endif
