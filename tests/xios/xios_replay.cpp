/*
 * XIOS's client/server sequences replayed through the ep_lib adapter, with threads of model
 * processes as clients and single-endpoint server processes (XIOS 2, branch_openmp):
 *
 *  1. start-up: endpoints on the world (the master thread creates them, `passage` hands them
 *     to the team), rank/size, Allgather of the code hashes (MPI_LONG), Comm_split by code,
 *     clients Intercomm_create to the server leader, servers one Intercomm_create per client
 *     code, Comm_dup of the communicator returned to the model; mpi_comm, ep_comm_ptr and
 *     EP_Comm_c2f/f2c checked on the way;
 *  2. context registration: every client endpoint sends MPI_CHAR tag 1 to the server leader,
 *     which collects with Iprobe(-2, 1) + Get_count + Irecv + Test, forwards to the other
 *     servers (Isend tag 2 + Waitall; they Iprobe(0, 2) + Recv), then Intercomm_create with
 *     tag 10 + client leader, Intercomm_merge (clients low), Barrier, Comm_dup, Comm_free;
 *  3. data: clients Issend MPI_CHAR tag 20 from two alternating buffers polled by Test; each
 *     server loops Iprobe(-2, 20), reads ep_src, Get_count, Irecv, Test, and checks sender,
 *     order and content; the servers' event scheduler exchanges 3 MPI_UNSIGNED_LONG (Isend,
 *     Iprobe(EP_ANY_SOURCE, 0|1), Irecv, Test, Waitall);
 *  4. reductions on the clients' and the servers' communicators: Allreduce MIN (in place) and
 *     SUM, Bcast, Scan, Allgather(v), Gather(v), Alltoall, Reduce, Reduce_scatter, Alloc_mem;
 *  5. finalize: client rank 0 of each code Sends tag 0 to the server leader, which Iprobes
 *     (0, 0) + Recvs on each code's intercommunicator and notifies the other servers (tag 4);
 *     everything is freed and no handle is left.
 *
 *   xios_replay <servers> <codes> [omp|std]   clients' threads per process: EPMPI_TEST_EPS
 *   xios_replay fatal                         an error with the default handler: must abort
 */
#include "xios_test.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace replay
{
/* As in XIOS's sources, ep_lib's types (here without the `ep_lib::` XIOS writes). */
using ep_lib::MPI_Comm;
using ep_lib::MPI_Request;
using ep_lib::MPI_Status;

enum { TAG_FINALIZE = 0, TAG_REGISTER = 1, TAG_FORWARD = 2, TAG_NOTIFY = 4, TAG_DATA = 20 };
enum { EVENT_REQUEST = 0, EVENT_RELEASE = 1, MESSAGES = 6, EVENTS = 3 };

static Layout layout;
static bool std_threads = false;
static std::atomic<long> received_messages(0), received_bytes(0); /* by this process's servers */

/* Bytes of message `seq` of a client: small, eager-sized and rendezvous-sized in turn. */
static int message_bytes(int client, int seq)
{
    static const int sizes[] = {40, 5000, 300000, 17, 70000, 12};
    return sizes[(client + seq) % 6] + client % 7;
}

static char payload_byte(int client, int seq, int i) { return (char)((client * 31 + seq * 7 + i) & 0x7f); }

/* ---- 1. start-up --------------------------------------------------------------------------- */

struct Endpoint
{
    MPI_Comm global, intra, model;     /* world endpoints, per-code communicator, its dup */
    MPI_Comm to_servers;               /* client: intercommunicator to the server pool */
    std::vector<MPI_Comm> to_codes;    /* server: one intercommunicator per client code */
    int rank, size, code, server_leader;
    std::vector<int> code_leader;      /* global rank of each code's first endpoint */
    bool server;
};

static void check_host_comm(const MPI_Comm &comm, int expected_procs, const char *what)
{
    int n = -1;
    CHECK(::MPI_Comm_size(comm.mpi_comm, &n) == MPI_SUCCESS && n == expected_procs, "%s: mpi_comm of %d processes, %d expected",
          what, n, expected_procs);
}

static void startup(Endpoint &e)
{
    CHECK_OK(ep_lib::MPI_Comm_rank(e.global, &e.rank));
    CHECK_OK(ep_lib::MPI_Comm_size(e.global, &e.size));
    CHECK(e.size == layout.total_endpoints(), "world of %d endpoints", e.size);
    const int proc = layout.proc_of_rank(e.rank);
    e.code = layout.code_of(proc);
    e.server = layout.is_server(proc);

    long hash = layout.hash_of_code(e.code);
    std::vector<long> hashes(e.size, -1);
    CHECK_OK(ep_lib::MPI_Allgather(&hash, 1, MPI_LONG, hashes.data(), 1, MPI_LONG, e.global));
    e.code_leader.assign(layout.codes + 1, -1);
    for (int r = 0; r < e.size; r++) {
        int code = layout.code_of(layout.proc_of_rank(r));
        CHECK(hashes[r] == layout.hash_of_code(code), "world rank %d: hash of rank %d is %ld, expected %ld", e.rank, r,
              hashes[r], layout.hash_of_code(code));
        if (e.code_leader[code] < 0)
            e.code_leader[code] = r;
    }
    e.server_leader = e.code_leader[layout.codes];

    CHECK_OK(ep_lib::MPI_Comm_split(e.global, e.code, e.rank, &e.intra));
    int intra_rank = -1, intra_size = -1, expected_rank = 0;
    for (int r = 0; r < e.rank; r++)
        expected_rank += hashes[r] == hash;
    CHECK_OK(ep_lib::MPI_Comm_rank(e.intra, &intra_rank));
    CHECK_OK(ep_lib::MPI_Comm_size(e.intra, &intra_size));
    CHECK(intra_rank == expected_rank && intra_size == layout.endpoints_of_code(e.code),
          "split: world rank %d got rank %d of %d, expected %d of %d", e.rank, intra_rank, intra_size, expected_rank,
          layout.endpoints_of_code(e.code));
    check_host_comm(e.intra, layout.procs_of_code(e.code), "code communicator");
    CHECK(e.intra.ep_comm_ptr != NULL && !e.intra.ep_comm_ptr->intercomm, "intra has no intercomm part");
    CHECK(e.intra.ep_comm_ptr->intercomm->mpi_inter_comm == ep_lib::host::comm_null(), "intra: no mpi_inter_comm");

    int remote = -1, flag = -1;
    if (!e.server) {
        CHECK_OK(ep_lib::MPI_Intercomm_create(e.intra, 0, e.global, e.server_leader, 0, &e.to_servers));
        CHECK_OK(ep_lib::MPI_Comm_remote_size(e.to_servers, &remote));
        CHECK(remote == layout.servers, "clients see %d servers", remote);
        CHECK_OK(ep_lib::MPI_Comm_test_inter(e.to_servers, &flag));
        CHECK(flag == 1 && e.to_servers.ep_comm_ptr->intercomm != NULL, "client intercommunicator");
        int n = -1;
        ::MPI_Comm_size(e.to_servers.ep_comm_ptr->intercomm->mpi_inter_comm, &n);
        CHECK(n == layout.procs_of_code(e.code) + layout.servers, "mpi_inter_comm of %d processes", n);
        CHECK_OK(ep_lib::MPI_Comm_dup(e.intra, &e.model));
    } else {
        for (int code = 0; code < layout.codes; code++) {
            MPI_Comm inter;
            CHECK_OK(ep_lib::MPI_Intercomm_create(e.intra, 0, e.global, e.code_leader[code], 0, &inter));
            CHECK_OK(ep_lib::MPI_Comm_remote_size(inter, &remote));
            CHECK(remote == layout.endpoints_of_code(code), "server sees %d clients of code %d", remote, code);
            e.to_codes.push_back(inter);
        }
        CHECK_OK(ep_lib::MPI_Comm_dup(e.intra, &e.model));
    }

    /* The Fortran integer of the model's communicator is its host communicator's (XIOS's test
     * programs query it with the host's MPI_Comm_rank/size), and back to this thread's endpoint. */
    int f = ep_lib::EP_Comm_c2f(e.model);
    CHECK(f == ep_lib::host::comm_c2f(e.model.mpi_comm), "c2f gives the host communicator's Fortran integer");
    MPI_Comm back = ep_lib::EP_Comm_f2c(f);
    CHECK(back == e.model && back.mpi_comm == e.model.mpi_comm && !(back != e.model), "f2c(c2f(comm)) == comm");
    CHECK(ep_lib::EP_Comm_f2c(ep_lib::MPI_Fint(f)) == e.model, "f2c of an MPI_Fint");
    const int host_null = ep_lib::host::comm_c2f(ep_lib::host::comm_null());
    CHECK(ep_lib::EP_Comm_f2c(host_null).is_null() && ep_lib::EP_Comm_f2c(host_null) == MPI_COMM_NULL, "f2c(host null)");
    CHECK(ep_lib::EP_Comm_c2f(MPI_COMM_NULL) == host_null, "c2f(MPI_COMM_NULL)");
    CHECK(!(e.model == e.intra) && !e.model.is_null(), "a dup is another communicator");
}

/* ---- 2. context registration ---------------------------------------------------------------- */

struct Context
{
    MPI_Comm intra, inter; /* dups kept for the data path */
    int code;
};

/* Message a client endpoint sends to register its context: "<code> <rank> <size> <leader>". */
static std::string registration(int code, int rank, int size, int leader)
{
    return std::to_string(code) + " " + std::to_string(rank) + " " + std::to_string(size) + " " + std::to_string(leader);
}

static void link_context(const MPI_Comm &local, const MPI_Comm &peer, int remote_leader, int tag, bool high,
                         int expected_merged_rank, int merged_size, Context &ctx)
{
    MPI_Comm inter, merged;
    CHECK_OK(ep_lib::MPI_Intercomm_create(local, 0, peer, remote_leader, tag, &inter));
    CHECK_OK(ep_lib::MPI_Intercomm_merge(inter, high, &merged));
    CHECK_OK(ep_lib::MPI_Barrier(merged));
    int rank = -1, size = -1;
    ep_lib::MPI_Comm_rank(merged, &rank);
    ep_lib::MPI_Comm_size(merged, &size);
    CHECK(rank == expected_merged_rank && size == merged_size, "merged rank %d of %d, expected %d of %d", rank, size,
          expected_merged_rank, merged_size);
    CHECK_OK(ep_lib::MPI_Comm_dup(local, &ctx.intra));
    CHECK_OK(ep_lib::MPI_Comm_dup(inter, &ctx.inter));
    CHECK_OK(ep_lib::MPI_Comm_free(&merged));
    CHECK(merged == MPI_COMM_NULL, "free sets MPI_COMM_NULL");
    CHECK_OK(ep_lib::MPI_Comm_free(&inter));
}

static Context client_register(Endpoint &e)
{
    Context ctx;
    ctx.code = e.code;
    int rank, size, leader = e.code_leader[e.code];
    ep_lib::MPI_Comm_rank(e.model, &rank);
    ep_lib::MPI_Comm_size(e.model, &size);
    std::string msg = registration(e.code, rank, size, leader);
    CHECK_OK(ep_lib::MPI_Send(msg.data(), (int)msg.size(), MPI_CHAR, e.server_leader, TAG_REGISTER, e.global));
    link_context(e.model, e.global, e.server_leader, 10 + leader, false, rank, size + layout.servers, ctx);
    return ctx;
}

/* Server leader: receives registrations until a code's context is complete; returns its code. */
static int collect_registrations(Endpoint &e, std::map<int, std::vector<int>> &seen)
{
    for (;;) {
        int flag = 0;
        MPI_Status status;
        CHECK_OK(ep_lib::MPI_Iprobe(-2, TAG_REGISTER, e.global, &flag, &status));
        if (!flag)
            continue;
        int source = status.ep_src, count = -1;
        CHECK_OK(ep_lib::MPI_Get_count(&status, MPI_CHAR, &count));
        std::vector<char> buf(count + 1, 0);
        MPI_Request request;
        CHECK_OK(ep_lib::MPI_Irecv(buf.data(), count, MPI_CHAR, source, TAG_REGISTER, e.global, &request));
        for (flag = 0; !flag;)
            CHECK_OK(ep_lib::MPI_Test(&request, &flag, &status));
        CHECK(status.ep_src == source && status.ep_tag == TAG_REGISTER, "registration from %d", status.ep_src);
        int code, rank, size, leader;
        CHECK(std::sscanf(buf.data(), "%d %d %d %d", &code, &rank, &size, &leader) == 4, "registration text");
        CHECK(layout.code_of(layout.proc_of_rank(source)) == code && leader == e.code_leader[code] &&
                  size == layout.endpoints_of_code(code),
              "registration of code %d from global rank %d", code, source);
        std::vector<int> &ranks = seen[code];
        ranks.push_back(rank);
        if ((int)ranks.size() == size)
            return code;
    }
}

static std::vector<Context> server_register(Endpoint &e)
{
    int me, servers;
    ep_lib::MPI_Comm_rank(e.intra, &me);
    ep_lib::MPI_Comm_size(e.intra, &servers);
    std::map<int, std::vector<int>> seen;
    std::vector<Context> contexts;
    for (int n = 0; n < layout.codes; n++) {
        int code = -1;
        if (me == 0) {
            code = collect_registrations(e, seen);
            std::vector<MPI_Request> requests(servers);
            for (int s = 1; s < servers; s++)
                CHECK_OK(ep_lib::MPI_Isend(&code, 1, MPI_INT, s, TAG_FORWARD, e.intra, &requests[s]));
            std::vector<MPI_Status> statuses(servers);
            CHECK_OK(ep_lib::MPI_Waitall(servers - 1, requests.data() + 1, statuses.data() + 1));
            for (int s = 1; s < servers; s++)
                CHECK(requests[s].ep_request == EP_REQUEST_NULL, "Waitall frees the requests");
        } else {
            int flag = 0;
            MPI_Status status;
            while (!flag)
                CHECK_OK(ep_lib::MPI_Iprobe(0, TAG_FORWARD, e.intra, &flag, &status));
            CHECK_OK(ep_lib::MPI_Recv(&code, 1, MPI_INT, 0, TAG_FORWARD, e.intra, &status));
            CHECK(status.ep_src == 0 && code >= 0 && code < layout.codes, "forwarded code %d", code);
        }
        Context ctx;
        ctx.code = code;
        int leader = e.code_leader[code], clients = layout.endpoints_of_code(code);
        link_context(e.intra, e.global, leader, 10 + leader, true, clients + me, clients + servers, ctx);
        contexts.push_back(ctx);
    }
    return contexts;
}

/* ---- 3. data path ---------------------------------------------------------------------------- */

static void client_send(const Context &ctx)
{
    int rank, servers;
    ep_lib::MPI_Comm_rank(ctx.intra, &rank);
    ep_lib::MPI_Comm_remote_size(ctx.inter, &servers);
    const int server = rank % servers;
    std::vector<char> buffer[2];
    MPI_Request request[2];
    for (int seq = 0; seq < MESSAGES; seq++) {
        int b = seq % 2, flag = 0;
        MPI_Status status;
        while (request[b].ep_request != EP_REQUEST_NULL && !flag) /* XIOS: checkBuffer */
            CHECK_OK(ep_lib::MPI_Test(&request[b], &flag, &status));
        int bytes = message_bytes(rank, seq);
        buffer[b].resize(bytes);
        std::memcpy(buffer[b].data(), &rank, sizeof rank);
        std::memcpy(buffer[b].data() + 4, &seq, sizeof seq);
        for (int i = 8; i < bytes; i++)
            buffer[b][i] = payload_byte(rank, seq, i);
        CHECK_OK(ep_lib::MPI_Issend(buffer[b].data(), bytes, MPI_CHAR, server, TAG_DATA, ctx.inter, &request[b]));
    }
    for (int b = 0; b < 2; b++)
        for (int flag = 0; !flag;)
            CHECK_OK(ep_lib::MPI_Test(&request[b], &flag, nullptr));
}

struct Incoming
{
    MPI_Request request;
    std::vector<char> buffer;
};

/* Posts the receive of the message `status` announced (XIOS: listenPendingRequest). */
static void post(const Context &ctx, const MPI_Status &status, std::map<int, Incoming> &pending)
{
    int rank = status.ep_src, count = -1;
    CHECK_OK(ep_lib::MPI_Get_count(&status, MPI_CHAR, &count));
    Incoming &in = pending[rank];
    in.buffer.assign(count, 0);
    CHECK_OK(ep_lib::MPI_Irecv(in.buffer.data(), count, MPI_CHAR, rank, TAG_DATA, ctx.inter, &in.request));
}

/* Checks a received client buffer: from `rank`, next in order, the right bytes. */
static bool check_message(int rank, const std::vector<char> &m, int count, std::map<int, int> &next)
{
    int from = -1, seq = -1;
    std::memcpy(&from, m.data(), 4);
    std::memcpy(&seq, m.data() + 4, 4);
    CHECK(from == rank && seq == next[rank] && count == message_bytes(rank, seq), "message %d of %d (%d bytes), expected %d of %d", seq, from, count, next[rank], rank);
    int bad = 0;
    for (int i = 8; i < count; i++)
        bad += m[i] != payload_byte(rank, seq, i);
    CHECK(bad == 0, "%d wrong bytes in message %d of %d", bad, seq, rank);
    return ++next[rank] == MESSAGES;
}

static void server_receive(const Context &ctx)
{
    int me, servers, clients;
    ep_lib::MPI_Comm_rank(ctx.intra, &me);
    ep_lib::MPI_Comm_size(ctx.intra, &servers);
    ep_lib::MPI_Comm_remote_size(ctx.inter, &clients);
    std::vector<int> mine;
    for (int c = me; c < clients; c += servers)
        mine.push_back(c);
    std::map<int, Incoming> pending;
    std::map<int, int> next;
    size_t finished = 0;
    while (finished < mine.size()) {
        int flag = 0;
        MPI_Status status;
        CHECK_OK(ep_lib::MPI_Iprobe(-2, TAG_DATA, ctx.inter, &flag, &status)); /* XIOS: listen */
        if (flag && !pending.count(status.ep_src)) {
            CHECK(status.ep_src % servers == me, "client %d sent to server %d", status.ep_src, me);
            post(ctx, status, pending);
        } else if (flag) {
            for (int c : mine)
                if (!pending.count(c)) {
                    CHECK_OK(ep_lib::MPI_Iprobe(c, TAG_DATA, ctx.inter, &flag, &status));
                    if (flag)
                        post(ctx, status, pending);
                }
        }
        for (auto it = pending.begin(); it != pending.end();) { /* XIOS: checkPendingRequest */
            CHECK_OK(ep_lib::MPI_Test(&it->second.request, &flag, &status));
            if (!flag) {
                ++it;
                continue;
            }
            int count = -1;
            CHECK_OK(ep_lib::MPI_Get_count(&status, MPI_CHAR, &count));
            CHECK(status.ep_src == it->first, "completed receive from %d", status.ep_src);
            finished += check_message(it->first, it->second.buffer, count, next);
            received_messages++;
            received_bytes += count;
            it = pending.erase(it);
        }
    }
}

/* The servers' event scheduler: every server asks for event (timeline, hash, level); the
 * leader gathers the requests and releases the event to all. */
static void schedule_events(const MPI_Comm &servers_comm, int code)
{
    int me, servers;
    ep_lib::MPI_Comm_rank(servers_comm, &me);
    ep_lib::MPI_Comm_size(servers_comm, &servers);
    for (unsigned long step = 0; step < EVENTS; step++) {
        unsigned long event[3] = {step, 1000UL + (unsigned long)code, 0}, got[3];
        if (me == 0) {
            for (int n = 1; n < servers; n++) {
                int flag = 0;
                MPI_Status status;
                while (!flag)
                    CHECK_OK(ep_lib::MPI_Iprobe(EP_ANY_SOURCE, EVENT_REQUEST, servers_comm, &flag, &status));
                MPI_Request request;
                CHECK_OK(ep_lib::MPI_Irecv(got, 3, MPI_UNSIGNED_LONG, status.ep_src, EVENT_REQUEST, servers_comm, &request));
                for (flag = 0; !flag;)
                    CHECK_OK(ep_lib::MPI_Test(&request, &flag, &status));
                CHECK(got[0] == step && got[1] == event[1] && got[2] == 0, "event request from %d", status.ep_src);
            }
            std::vector<MPI_Request> release(servers);
            for (int s = 1; s < servers; s++)
                CHECK_OK(ep_lib::MPI_Isend(event, 3, MPI_UNSIGNED_LONG, s, EVENT_RELEASE, servers_comm, &release[s]));
            CHECK_OK(ep_lib::MPI_Waitall(servers - 1, release.data() + 1, nullptr));
        } else {
            MPI_Request ask, answer;
            CHECK_OK(ep_lib::MPI_Isend(event, 3, MPI_UNSIGNED_LONG, 0, EVENT_REQUEST, servers_comm, &ask));
            int flag = 0;
            MPI_Status status;
            while (!flag)
                CHECK_OK(ep_lib::MPI_Iprobe(EP_ANY_SOURCE, EVENT_RELEASE, servers_comm, &flag, &status));
            CHECK_OK(ep_lib::MPI_Irecv(got, 3, MPI_UNSIGNED_LONG, status.ep_src, EVENT_RELEASE, servers_comm, &answer));
            std::vector<MPI_Request> both = {ask, answer};
            std::vector<MPI_Status> statuses(2);
            CHECK_OK(ep_lib::MPI_Waitall(2, both.data(), statuses.data()));
            CHECK(statuses[1].ep_src == 0 && statuses[1].ep_tag == EVENT_RELEASE && got[0] == step, "event release");
        }
    }
}

/* ---- 4. reductions ----------------------------------------------------------------------- */

static void reductions(const MPI_Comm &comm)
{
    int rank, size;
    ep_lib::MPI_Comm_rank(comm, &rank);
    ep_lib::MPI_Comm_size(comm, &size);

    double ratio = 100.0 - 0.5 * rank; /* XIOS: minimum buffer ratio, in place */
    CHECK_OK(ep_lib::MPI_Allreduce(MPI_IN_PLACE, &ratio, 1, MPI_DOUBLE, MPI_MIN, comm));
    CHECK(ratio == 100.0 - 0.5 * (size - 1), "Allreduce MIN in place: %g", ratio);
    int one = rank + 1, sum = 0;
    CHECK_OK(ep_lib::MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size + 1) / 2, "Allreduce SUM: %d", sum);

    unsigned long mine = 10UL * (rank + 1), prefix = 0, global = rank == size - 1 ? 4242UL : 0;
    CHECK_OK(ep_lib::MPI_Scan(&mine, &prefix, 1, MPI_UNSIGNED_LONG, MPI_SUM, comm));
    CHECK(prefix == 10UL * (rank + 1) * (rank + 2) / 2, "Scan: %lu", prefix);
    CHECK_OK(ep_lib::MPI_Bcast(&global, 1, MPI_UNSIGNED_LONG, size - 1, comm));
    CHECK(global == 4242UL, "Bcast from the last rank: %lu", global);

    std::vector<int> all(size, -1), counts(size), displs(size), both;
    int mine3 = 3 * rank;
    CHECK_OK(ep_lib::MPI_Allgather(&mine3, 1, MPI_INT, all.data(), 1, MPI_INT, comm));
    int total = 0;
    for (int r = 0; r < size; r++) {
        CHECK(all[r] == 3 * r, "Allgather[%d] = %d", r, all[r]);
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    std::vector<int> piece(rank + 1), gathered(total, -1);
    for (int k = 0; k <= rank; k++)
        piece[k] = 100 * rank + k;
    CHECK_OK(ep_lib::MPI_Allgatherv(piece.data(), rank + 1, MPI_INT, gathered.data(), counts.data(), displs.data(),
                                    MPI_INT, comm));
    int bad = 0;
    for (int r = 0; r < size; r++)
        for (int k = 0; k <= r; k++)
            bad += gathered[displs[r] + k] != 100 * r + k;
    CHECK(bad == 0, "Allgatherv: %d wrong", bad);

    std::vector<int> at_root(size, -1), v_at_root(total, -1);
    CHECK_OK(ep_lib::MPI_Gather(&mine3, 1, MPI_INT, at_root.data(), 1, MPI_INT, 0, comm));
    CHECK_OK(ep_lib::MPI_Gatherv(piece.data(), rank + 1, MPI_INT, v_at_root.data(), counts.data(), displs.data(),
                                 MPI_INT, 0, comm));
    if (rank == 0)
        CHECK(at_root == all && v_at_root == gathered, "Gather and Gatherv at the root");

    std::vector<int> out(size), in(size, -1);
    for (int j = 0; j < size; j++)
        out[j] = 1000 * rank + j;
    CHECK_OK(ep_lib::MPI_Alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, comm));
    for (int i = 0; i < size; i++)
        CHECK(in[i] == 1000 * i + rank, "Alltoall from %d: %d", i, in[i]);

    int reduced = -1;
    CHECK_OK(ep_lib::MPI_Reduce(&one, &reduced, 1, MPI_INT, MPI_SUM, size - 1, comm));
    if (rank == size - 1)
        CHECK(reduced == sum, "Reduce at the last rank: %d", reduced);

    std::vector<int> recvcounts(size);
    int elements = 0, first = 0;
    for (int r = 0; r < size; r++) {
        recvcounts[r] = r % 2 + 1;
        first += r < rank ? recvcounts[r] : 0;
        elements += recvcounts[r];
    }
    std::vector<int> contribution(elements), part(recvcounts[rank], -1);
    for (int k = 0; k < elements; k++)
        contribution[k] = rank + k;
    CHECK_OK(ep_lib::MPI_Reduce_scatter(contribution.data(), part.data(), recvcounts.data(), MPI_INT, MPI_SUM, comm));
    for (int k = 0; k < recvcounts[rank]; k++)
        CHECK(part[k] == size * (first + k) + size * (size - 1) / 2, "Reduce_scatter element %d: %d", k, part[k]);

    int *memory = nullptr;
    CHECK_OK(ep_lib::MPI_Alloc_mem(64 * sizeof(int), MPI_INFO_NULL, &memory));
    if (memory) {
        memory[63] = rank;
        CHECK_OK(ep_lib::MPI_Free_mem(memory));
    }
}

/* ---- 5. finalize --------------------------------------------------------------------------- */

static void client_finalize(Endpoint &e)
{
    int rank;
    ep_lib::MPI_Comm_rank(e.model, &rank);
    if (rank == 0) {
        int msg = e.code;
        CHECK_OK(ep_lib::MPI_Send(&msg, 1, MPI_INT, 0, TAG_FINALIZE, e.to_servers));
    }
    CHECK_OK(ep_lib::MPI_Comm_free(&e.to_servers));
}

static void server_finalize(Endpoint &e)
{
    int me, servers;
    ep_lib::MPI_Comm_rank(e.intra, &me);
    ep_lib::MPI_Comm_size(e.intra, &servers);
    if (me == 0) {
        std::vector<bool> done(layout.codes, false);
        for (int left = layout.codes; left > 0;)
            for (int code = 0; code < layout.codes; code++) {
                int flag = 0, msg = -1;
                MPI_Status status;
                if (done[code])
                    continue;
                CHECK_OK(ep_lib::MPI_Iprobe(0, TAG_FINALIZE, e.to_codes[code], &flag, &status));
                if (!flag)
                    continue;
                CHECK_OK(ep_lib::MPI_Recv(&msg, 1, MPI_INT, 0, TAG_FINALIZE, e.to_codes[code], &status));
                CHECK(msg == code && status.ep_src == 0, "finalize of code %d", msg);
                done[code] = true;
                left--;
            }
        for (int s = 1; s < servers; s++)
            CHECK_OK(ep_lib::MPI_Send(&me, 1, MPI_INT, s, TAG_NOTIFY, e.intra));
    } else {
        int flag = 0, msg = -1;
        MPI_Status status;
        while (!flag)
            CHECK_OK(ep_lib::MPI_Iprobe(0, TAG_NOTIFY, e.intra, &flag, &status));
        CHECK_OK(ep_lib::MPI_Recv(&msg, 1, MPI_INT, 0, TAG_NOTIFY, e.intra, &status));
        CHECK(msg == 0, "notification from the leader");
    }
    for (MPI_Comm &c : e.to_codes)
        CHECK_OK(ep_lib::MPI_Comm_free(&c));
}

static void endpoint_main(MPI_Comm global)
{
    Endpoint e;
    e.global = global;
    startup(e);
    std::vector<Context> contexts;
    if (e.server) {
        contexts = server_register(e);
        for (Context &ctx : contexts) {
            server_receive(ctx);
            schedule_events(ctx.intra, ctx.code);
        }
    } else {
        contexts.push_back(client_register(e));
        client_send(contexts[0]);
    }
    reductions(e.model);
    for (Context &ctx : contexts) {
        reductions(ctx.intra);
        CHECK_OK(ep_lib::MPI_Comm_free(&ctx.intra));
        CHECK_OK(ep_lib::MPI_Comm_free(&ctx.inter));
    }
    if (e.server)
        server_finalize(e);
    else
        client_finalize(e);
    CHECK_OK(ep_lib::MPI_Comm_free(&e.model));
    CHECK_OK(ep_lib::MPI_Comm_free(&e.intra));
    CHECK_OK(ep_lib::MPI_Comm_free(&e.global));
}

/* Bad input: error codes (the process default handler is EP_ERRORS_RETURN), no crash. */
static void bad_input(const MPI_Comm &endpoint, int world_rank)
{
    int x = 0, host_rank = -1;
    MPI_Request request;
    MPI_Comm *none = &MPI_COMM_NULL;
    CHECK(ep_class(ep_lib::MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL)) == EP_ERR_COMM, "send on MPI_COMM_NULL");
    CHECK(ep_class(ep_lib::MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD)) == EP_ERR_COMM, "send on the host world");
    CHECK(ep_class(ep_lib::MPI_Barrier(MPI_COMM_WORLD)) == EP_ERR_COMM, "barrier on the host world");
    CHECK(ep_class(ep_lib::MPI_Send(&x, 1, MPI_INT, 1000000, 0, endpoint)) == EP_ERR_RANK, "send to a bad rank");
    CHECK(ep_class(ep_lib::MPI_Isend(&x, 1, MPI_INT, 0, 0, endpoint, nullptr)) == EP_ERR_ARG, "NULL request");
    CHECK(ep_class(ep_lib::MPI_Irecv(&x, -1, MPI_INT, 0, 0, endpoint, &request)) == EP_ERR_COUNT, "negative count");
    CHECK(ep_class(ep_lib::MPI_Comm_dup(endpoint, nullptr)) == EP_ERR_ARG, "dup into NULL");
    CHECK(ep_class(ep_lib::MPI_Comm_free(none)) == EP_ERR_COMM, "free of MPI_COMM_NULL");
    CHECK(ep_class(ep_lib::MPI_Comm_free(nullptr)) == EP_ERR_ARG, "free of NULL");
    CHECK(ep_class(ep_lib::MPI_Waitall(-1, &request, nullptr)) == EP_ERR_COUNT, "Waitall of -1 requests");
    CHECK_OK(ep_lib::MPI_Waitall(0, nullptr, nullptr));
    CHECK(ep_class(ep_lib::MPI_Test(nullptr, &x, nullptr)) == EP_ERR_ARG, "Test of NULL");
    CHECK(ep_class(ep_lib::MPI_Alloc_mem(-1, MPI_INFO_NULL, &none)) == EP_ERR_ARG, "negative Alloc_mem");
    MPI_Comm *out = none;
    CHECK(ep_class(ep_lib::MPI_Comm_create_endpoints((void *)nullptr, 1, MPI_INFO_NULL, out)) == EP_ERR_ARG &&
              out == nullptr,
          "create from NULL");
    CHECK(ep_class(ep_lib::MPI_Comm_create_endpoints(endpoint, 1, MPI_INFO_NULL, out)) == EP_ERR_COMM && out == nullptr,
          "create from an endpoint communicator");
    CHECK_OK(ep_lib::MPI_Comm_rank(MPI_COMM_WORLD, &host_rank));
    CHECK(host_rank == world_rank, "rank in the host world");
    CHECK(ep_lib::EP_Comm_c2f(MPI_COMM_WORLD) == ep_lib::host::comm_c2f(ep_lib::host::comm_world()), "c2f of the host world");
    MPI_Comm stale = MPI_Comm::from_endpoint(0x7ffffff0);
    CHECK(ep_class(ep_lib::MPI_Barrier(stale)) == EP_ERR_COMM, "an invalid handle");
}

static int run(int argc, char **argv)
{
    int initialized = -1, world_rank = -1, world_size = -1;
    CHECK_OK(ep_lib::MPI_Initialized(&initialized));
    CHECK(initialized == 0, "not initialized yet");
    CHECK_OK(ep_lib::MPI_Init(&argc, &argv));
    ep_lib::MPI_Initialized(&initialized);
    CHECK(initialized == 1, "initialized");
    ep_lib::MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    ep_lib::MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (argc > 1 && std::strcmp(argv[1], "fatal") == 0) {
        int x = 0; /* default handler: the job must abort with a message naming the call */
        ep_lib::MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
        std::printf("still running\n");
        return xios_test_finish("xios_replay fatal", world_rank);
    }
    EP_Comm_set_errhandler(EP_COMM_NULL, EP_ERRORS_RETURN);
    layout.procs = world_size;
    layout.servers = argc > 1 ? std::atoi(argv[1]) : 1;
    layout.codes = argc > 2 ? std::atoi(argv[2]) : 1;
    std_threads = argc > 3 && std::strcmp(argv[3], "std") == 0;
    if (layout.servers < 1 || layout.codes < 1 || layout.procs - layout.servers < layout.codes) {
        std::fprintf(stderr, "usage: xios_replay <servers> <codes> [omp|std] on more than servers+codes-1 processes\n");
        return 2;
    }

    /* XIOS: CXios::initialize, the master thread creates the endpoints (servers through the
     * `void *` form, clients from `MPI_COMM_WORLD.mpi_comm`) and hands them out by `passage`. */
    const int n = layout.endpoints_of(world_rank);
    MPI_Comm *created = nullptr;
    ep_lib::MPI_Info info;
    ::MPI_Comm host_world = ep_lib::host::comm_world();
    if (layout.is_server(world_rank))
        CHECK_OK(ep_lib::MPI_Comm_create_endpoints(static_cast<void *>(&host_world), n, info, created));
    else
        CHECK_OK(ep_lib::MPI_Comm_create_endpoints(MPI_COMM_WORLD.mpi_comm, n, info, created));
    if (!created)
        return xios_test_finish("xios_replay", world_rank);
    bad_input(created[0], world_rank);
    ep_lib::passage = created;
    run_team(n, std_threads, [](int i) { endpoint_main(ep_lib::passage[i]); });
    delete[] created;

    int comms = -1, requests = -1, messages = -1;
    EP_Debug_live_handles(&comms, &requests, &messages);
    CHECK(comms == 0 && requests == 0 && messages == 0, "live handles: %d comms, %d requests, %d messages", comms,
          requests, messages);
    long mine[2] = {received_messages, received_bytes}, all[2] = {0, 0};
    ::MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, ep_lib::host::comm_world());
    if (world_rank == 0)
        std::printf("xios_replay: servers received %ld client messages, %ld bytes\n", all[0], all[1]);
    return xios_test_finish("xios_replay", world_rank);
}

} // namespace replay

int main(int argc, char **argv) { return replay::run(argc, argv); }
