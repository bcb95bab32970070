// ep_lib communicators: the MPI_Comm value type, endpoint creation, Fortran integers (the
// c2f/f2c table), queries, dup, free, split, intercommunicators.
#include "detail.hpp"

#include <atomic>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

// OpenMP's team queries, when the program has an OpenMP runtime (XIOS does). Weak, so that the
// adapter needs no OpenMP of its own: without a runtime a caller is a team of one.
extern "C" int omp_get_thread_num(void) __attribute__((weak));
extern "C" int omp_get_num_threads(void) __attribute__((weak));

namespace ep_lib
{

ep_intercomm::ep_intercomm() : mpi_inter_comm(host::comm_null()) {}

MPI_Comm::MPI_Comm() : ep_comm(EP_COMM_NULL), mpi_comm(host::comm_null()) {}

MPI_Info::MPI_Info() : mpi_info(host::info_null()) {}

MPI_Comm MPI_Comm::from_endpoint(int handle)
{
    MPI_Comm comm;
    if (handle == EP_COMM_NULL)
        return comm;
    comm.ep_comm = handle;
    comm.ep_comm_ptr.present_ = true;
    ::MPI_Comm host_comm = host::comm_null();
    int inter = 0;
    if (EP_Comm_get_host_comm(handle, &host_comm) == EP_SUCCESS && EP_Comm_test_inter(handle, &inter) == EP_SUCCESS) {
        comm.mpi_comm = host_comm;
        if (inter) {
            comm.ep_comm_ptr.intercomm.present_ = true;
            comm.ep_comm_ptr.intercomm.mpi_inter_comm = host_comm;
        }
    }
    return comm;
}

MPI_Comm MPI_Comm::from_host(::MPI_Comm host_comm)
{
    MPI_Comm comm;
    comm.mpi_comm = host_comm;
    return comm;
}

bool MPI_Comm::is_null() const { return ep_comm == EP_COMM_NULL && mpi_comm == host::comm_null(); }

bool MPI_Comm::operator==(const MPI_Comm &other) const
{
    if (ep_comm != EP_COMM_NULL || other.ep_comm != EP_COMM_NULL)
        return ep_comm == other.ep_comm;
    return mpi_comm == other.mpi_comm;
}

// ---- creation ---------------------------------------------------------------------------------

int MPI_Comm_create_endpoints(::MPI_Comm base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls)
{
    out_comm_hdls = nullptr;
    try {
        std::vector<EP_Comm> handles(num_ep > 0 ? num_ep : 0);
        int rc = EP_Comm_create_endpoints(base_comm, num_ep, info.mpi_info, handles.data());
        if (rc != EP_SUCCESS)
            return rc;
        MPI_Comm *comms = new MPI_Comm[handles.size()];
        for (std::size_t i = 0; i < handles.size(); i++)
            comms[i] = MPI_Comm::from_endpoint(handles[i]);
        out_comm_hdls = comms;
        return EP_SUCCESS;
    } catch (const std::bad_alloc &) {
        return detail::fail(EP_COMM_NULL, EP_ERR_OTHER, "MPI_Comm_create_endpoints", "out of memory");
    }
}

int MPI_Comm_create_endpoints(void *base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls)
{
    int rc = EP_SUCCESS;
    out_comm_hdls = nullptr;
    if (!detail::present(base_comm, "base_comm", "MPI_Comm_create_endpoints", EP_COMM_NULL, &rc))
        return rc;
    return MPI_Comm_create_endpoints(*static_cast<::MPI_Comm *>(base_comm), num_ep, info, out_comm_hdls);
}

int MPI_Comm_create_endpoints(const MPI_Comm &base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls)
{
    out_comm_hdls = nullptr;
    if (base_comm.ep_comm != EP_COMM_NULL)
        return detail::fail(base_comm.ep_comm, EP_ERR_COMM, "MPI_Comm_create_endpoints",
                            "the base communicator is an endpoint communicator: endpoints are created from a host "
                            "communicator (MPI_COMM_WORLD, or comm.mpi_comm)");
    return MPI_Comm_create_endpoints(base_comm.mpi_comm, num_ep, info, out_comm_hdls);
}

// ---- Fortran integers ---------------------------------------------------------------------

namespace
{
// The calling thread's identity: a number drawn on its first conversion, never reused (OS thread
// ids are reused once a thread ends; OpenMP thread numbers repeat across teams).
std::atomic<unsigned long long> threads_seen(0);
unsigned long long this_thread()
{
    static thread_local unsigned long long id = 0;
    if (id == 0)
        id = ++threads_seen;
    return id;
}

// (host Fortran integer, thread) -> endpoint handle. One lock: conversions happen at start-up
// and at context creation, not on the data path.
std::mutex table_lock;
std::map<std::pair<int, unsigned long long>, EP_Comm> &table()
{
    static std::map<std::pair<int, unsigned long long>, EP_Comm> entries; // outlives every caller
    return entries;
}

void record(int fint, EP_Comm handle)
{
    std::lock_guard<std::mutex> hold(table_lock);
    table()[std::make_pair(fint, this_thread())] = handle;
}

bool recorded(int fint, EP_Comm *handle)
{
    std::lock_guard<std::mutex> hold(table_lock);
    auto it = table().find(std::make_pair(fint, this_thread()));
    if (it == table().end())
        return false;
    *handle = it->second;
    return true;
}

void forget_endpoint(EP_Comm handle)
{
    std::lock_guard<std::mutex> hold(table_lock);
    for (auto it = table().begin(); it != table().end();)
        it = it->second == handle ? table().erase(it) : std::next(it);
}
} // namespace

fc_table fc_comm_map;

void fc_table::clear()
{
    const unsigned long long me = this_thread();
    std::lock_guard<std::mutex> hold(table_lock);
    for (auto it = table().begin(); it != table().end();)
        it = it->first.second == me ? table().erase(it) : std::next(it);
}

std::size_t fc_table::size() const
{
    std::lock_guard<std::mutex> hold(table_lock);
    return table().size();
}

int EP_Comm_c2f(MPI_Comm comm)
{
    if (comm.ep_comm == EP_COMM_NULL) // a host communicator, or the host's null
        return host::comm_c2f(comm.mpi_comm);
    int fint = host::comm_c2f(comm.mpi_comm);
    record(fint, comm.ep_comm);
    return fint;
}

MPI_Comm EP_Comm_f2c(int comm)
{
    EP_Comm handle;
    if (recorded(comm, &handle))
        return MPI_Comm::from_endpoint(handle);
    if (comm == host::comm_c2f(host::comm_null()))
        return MPI_Comm();
    // A host communicator this thread never converted: endpoints over it for the calling team,
    // as XIOS's library made them (thread i of the team gets endpoint i).
    const int team = omp_get_num_threads ? omp_get_num_threads() : 1;
    const int index = omp_get_thread_num ? omp_get_thread_num() : 0;
    EP_Comm created = EP_COMM_NULL;
    if (EP_Comm_create_endpoint(host::comm_f2c(comm), team, index, &created) != EP_SUCCESS)
        return MPI_Comm();
    return MPI_Comm::from_endpoint(created);
}

MPI_Comm EP_Comm_f2c(MPI_Fint comm) { return EP_Comm_f2c(comm.mpi_fint); }

// ---- queries ----------------------------------------------------------------------------------

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    if (detail::is_host(comm))
        return ::MPI_Comm_rank(comm.mpi_comm, rank);
    return detail::on_endpoint(comm, "MPI_Comm_rank", [&](EP_Comm h) { return EP_Comm_rank(h, rank); });
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    if (detail::is_host(comm))
        return ::MPI_Comm_size(comm.mpi_comm, size);
    return detail::on_endpoint(comm, "MPI_Comm_size", [&](EP_Comm h) { return EP_Comm_size(h, size); });
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    return detail::on_endpoint(comm, "MPI_Comm_remote_size", [&](EP_Comm h) { return EP_Comm_remote_size(h, size); });
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    return detail::on_endpoint(comm, "MPI_Comm_test_inter", [&](EP_Comm h) { return EP_Comm_test_inter(h, flag); });
}

// ---- new communicators ------------------------------------------------------------------------

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return detail::creating(comm, newcomm, "newcomm", "MPI_Comm_dup",
                            [](EP_Comm h, EP_Comm *created) { return EP_Comm_dup(h, created); });
}

int MPI_Comm_free(MPI_Comm *comm)
{
    int rc = EP_SUCCESS;
    if (!detail::present(comm, "comm", "MPI_Comm_free", EP_COMM_NULL, &rc))
        return rc;
    return detail::on_endpoint(*comm, "MPI_Comm_free", [&](EP_Comm h) {
        const EP_Comm freed = h;
        int rc = EP_Comm_free(&h);
        if (rc == EP_SUCCESS) {
            forget_endpoint(freed); // f2c must never give a freed endpoint back
            *comm = MPI_Comm();
        }
        return rc;
    });
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    if (color == MPI_UNDEFINED) // the host's value, which XIOS passes
        color = EP_UNDEFINED;
    return detail::creating(comm, newcomm, "newcomm", "MPI_Comm_split",
                            [&](EP_Comm h, EP_Comm *created) { return EP_Comm_split(h, color, key, created); });
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm *newintercomm)
{
    // Only the local leader reads peer_comm; EPMPI says so when the leader's is unusable.
    return detail::creating(local_comm, newintercomm, "newintercomm", "MPI_Intercomm_create",
                            [&](EP_Comm h, EP_Comm *created) {
                                return EP_Intercomm_create(h, local_leader, peer_comm.ep_comm, remote_leader, tag,
                                                           created);
                            });
}

int MPI_Intercomm_merge(MPI_Comm intercomm, bool high, MPI_Comm *newintracomm)
{
    return detail::creating(intercomm, newintracomm, "newintracomm", "MPI_Intercomm_merge",
                            [&](EP_Comm h, EP_Comm *created) { return EP_Intercomm_merge(h, high ? 1 : 0, created); });
}

} // namespace ep_lib
