/*
 * test_eps.h: the endpoint counts of a test job, shared by the programs written with EPMPI's
 * names (ep_test.h) and those written with the standard names (mpi_names_test.h).
 */
#ifndef EPMPI_TEST_EPS_H
#define EPMPI_TEST_EPS_H

#include <stdlib.h>

/* Endpoint count of process `rank`: EPMPI_TEST_EPS (comma-separated counts, cycled over the
 * processes), 2 by default. Threads of one process call this at once (the XIOS replay's
 * layout), so the list is parsed without strtok, whose position is one static for the whole
 * process: with it, one thread's parse moved another's, which then read a wrong count (the XIOS
 * replay then failed on a wrong hash or split rank). */
static int ep_test_count_for(int rank)
{
    const char *spec = getenv("EPMPI_TEST_EPS");
    int counts[64], n = 0;
    for (const char *p = spec ? spec : ""; *p && n < 64;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        counts[n++] = (int)v;
        if (*end != ',')
            break;
        p = end + 1;
    }
    return n ? counts[rank % n] : 2;
}

#endif
