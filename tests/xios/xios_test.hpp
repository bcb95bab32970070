/*
 * Helpers of the XIOS adapter test programs (C++): the C tests' checks (CHECK, CHECK_OK,
 * ep_class of tests/c/ep_test.h, ep_test_count_for of tests/c/test_eps.h) with ep_lib on top, the world layout of a
 * client/server run, and teams of OpenMP or std::thread threads.
 */
#ifndef XIOS_TEST_HPP
#define XIOS_TEST_HPP

#define OMPI_SKIP_MPICXX 1  /* as ep_lib.hpp does, for the <mpi.h> that ep_test.h includes */
#define MPICH_SKIP_MPICXX 1
#include "ep_test.h" /* before ep_lib.hpp: its helpers use the host's MPI_COMM_WORLD */

#include <ep_lib.hpp>

#include <cstdio>
#include <functional>
#include <omp.h>
#include <thread>
#include <vector>

/* Who is who: world ranks [0, procs - servers) are model processes whose threads are XIOS
 * clients (ep_test_count_for(p) endpoints, model code p % codes), the last `servers` ranks
 * are XIOS server processes with one endpoint each. */
struct Layout
{
    int procs, servers, codes;

    bool is_server(int proc) const { return proc >= procs - servers; }
    int endpoints_of(int proc) const { return is_server(proc) ? 1 : ep_test_count_for(proc); }
    /* The code of a process: 0..codes-1 for clients, `codes` for the servers. */
    int code_of(int proc) const { return is_server(proc) ? codes : proc % codes; }
    /* Per-code hash every endpoint contributes at start-up (XIOS hashes the code id). */
    long hash_of_code(int code) const { return code == codes ? 7777777L : 1000003L * (code + 1) + 12345L; }
    /* World process of world endpoint rank `rank` (endpoints ranked by process, then index). */
    int proc_of_rank(int rank) const
    {
        for (int p = 0; p < procs; p++) {
            if (rank < endpoints_of(p))
                return p;
            rank -= endpoints_of(p);
        }
        return -1;
    }
    int total_endpoints() const
    {
        int n = 0;
        for (int p = 0; p < procs; p++)
            n += endpoints_of(p);
        return n;
    }
    /* Endpoints and processes of a code. */
    int endpoints_of_code(int code) const
    {
        int n = 0;
        for (int p = 0; p < procs; p++)
            n += code_of(p) == code ? endpoints_of(p) : 0;
        return n;
    }
    int procs_of_code(int code) const
    {
        int n = 0;
        for (int p = 0; p < procs; p++)
            n += code_of(p) == code;
        return n;
    }
};

/* Runs body(i) for i in 0..n-1 on n threads: an OpenMP team, or std::threads (endpoint
 * identity comes from the handle, never from the OpenMP thread number). */
static void run_team(int n, bool std_threads, const std::function<void(int)> &body)
{
    if (std_threads) {
        std::vector<std::thread> team;
        for (int i = 0; i < n; i++)
            team.emplace_back(body, i);
        for (std::thread &t : team)
            t.join();
    } else {
#pragma omp parallel num_threads(n)
        body(omp_get_thread_num());
    }
}

/* Sums failures over the processes, prints "<name>: PASS|FAIL" on world rank 0, finalizes
 * through ep_lib; the exit code. */
static int xios_test_finish(const char *name, int world_rank)
{
    int total = 0;
    ::MPI_Allreduce(&ep_test_failures, &total, 1, MPI_INT, MPI_SUM, ep_lib::host::comm_world());
    if (world_rank == 0)
        std::printf("%s: %s (%d failures)\n", name, total ? "FAIL" : "PASS", total);
    std::fflush(stdout);
    CHECK_OK(ep_lib::MPI_Finalize());
    return total ? 1 : 0;
}

#endif
