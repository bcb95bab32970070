/*
 * ep_lib.hpp: the `ep_lib` interface of XIOS's endpoints library (branch_openmp,
 * extern/src_ep_dev), implemented on EPMPI. The directory that holds this header (installed as
 * include/epmpi/xios/) takes the place of XIOS's extern/src_ep_dev: XIOS's src/mpi.hpp and
 * src/mpi_std.hpp include "../extern/src_ep_dev/ep_lib.hpp" and "ep_declaration.hpp" from it.
 * See xios_adapter/README.md for the surface and how each piece maps to EPMPI.
 *
 * Conventions of every function below (as in XIOS's library):
 *  - names and argument order are MPI's, in namespace ep_lib, overloaded on ep_lib's own
 *    communicator, request, status and info types; datatypes, ops and MPI_Aint are the host
 *    MPI's own handle types (ep_lib::host::Datatype...);
 *  - counts are in elements of the datatype, ranks are endpoint ranks;
 *  - the return value is EP_SUCCESS (0) or an EPMPI error code (EP_Error_class and
 *    EP_Error_string of <ep_mpi.h> read it). Errors go through the communicator's EPMPI error
 *    handler: by default (EP_ERRORS_ARE_FATAL) a message naming the call and the cause, then
 *    the job aborts; with EP_ERRORS_RETURN (EP_Comm_set_errhandler) the code is returned.
 *    Bad input (null or freed communicators, a host communicator where an endpoint one is
 *    needed, NULL outputs, negative counts) is an error code, never a crash;
 *  - thread safety: any number of threads may call at once on different endpoints; one
 *    endpoint (one ep_lib::MPI_Comm value and its copies) is used by one thread at a time.
 *
 * Global scope, as XIOS's own headers leave it: this header includes neither <mpi.h> nor
 * <ep_mpi.h>, so that `using namespace ep_lib;` (27 XIOS files) makes MPI_Comm, MPI_Status,
 * MPI_Request, MPI_Info, MPI_Fint and MPI_Initialized(int *)... unambiguous. The host's handle
 * types are spelled here without <mpi.h> (ep_lib::host::Comm, Info, Datatype, Op, Aint), equal
 * to the host's MPI_Comm, MPI_Info... so that code that does include <mpi.h> (XIOS's NetCDF
 * layer) passes `comm.mpi_comm` and `info.mpi_info` to host functions as they are. The host is
 * recognised from <mpi.h>'s macros when it came first, else from the MPI's include directory
 * (Open MPI installs mpi_portable_platform.h, MPICH and its derivatives mpio.h); define
 * EPMPI_XIOS_HOST_OPEN_MPI or EPMPI_XIOS_HOST_MPICH to say it. The adapter's library checks at
 * compile time that these types are the host's.
 *
 * At global scope, as XIOS's ep_declaration.hpp declares them, this header declares the
 * variables MPI_INT, MPI_FLOAT, MPI_DOUBLE, MPI_CHAR, MPI_LONG, MPI_UNSIGNED_LONG,
 * MPI_UNSIGNED_CHAR (host datatypes), MPI_SUM, MPI_MAX, MPI_MIN (host ops), MPI_COMM_WORLD,
 * MPI_COMM_NULL (ep_lib communicators), MPI_STATUS_IGNORE, MPI_REQUEST_NULL, MPI_INFO_NULL,
 * after #undef-ing the host's macros of those names when <mpi.h> came first. Where <mpi.h> did
 * not come first it also gives MPI_IN_PLACE, MPI_UNDEFINED (the host's values) and
 * MPI_ANY_SOURCE (-2, ep_lib's wildcard).
 */
#ifndef EPMPI_XIOS_EP_LIB_HPP
#define EPMPI_XIOS_EP_LIB_HPP

/* The MPI C++ bindings are neither needed nor wanted (XIOS's src/mpi.hpp says the same) if
 * <mpi.h> comes later. */
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX
#endif
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX
#endif
#ifndef MPI_NO_CPPBIND
#define MPI_NO_CPPBIND
#endif

#include <cstddef>

/* ---- which host MPI: its handle types are spelled below without <mpi.h> -------------------- */
#if defined(EPMPI_XIOS_HOST_OPEN_MPI) || defined(EPMPI_XIOS_HOST_MPICH)
/* said by the build */
#elif defined(OPEN_MPI)
#define EPMPI_XIOS_HOST_OPEN_MPI 1
#elif defined(MPICH) || defined(MPICH_VERSION) || defined(MPICH_NAME)
#define EPMPI_XIOS_HOST_MPICH 1
#elif defined(__has_include)
#if __has_include(<mpi_portable_platform.h>)
#define EPMPI_XIOS_HOST_OPEN_MPI 1
#elif __has_include(<mpio.h>) || __has_include(<mpi_proto.h>)
#define EPMPI_XIOS_HOST_MPICH 1
#endif
#endif
#if !defined(EPMPI_XIOS_HOST_OPEN_MPI) && !defined(EPMPI_XIOS_HOST_MPICH)
#error "ep_lib.hpp: cannot tell the host MPI; compile with its mpicxx, or define EPMPI_XIOS_HOST_OPEN_MPI or EPMPI_XIOS_HOST_MPICH"
#endif

#ifdef EPMPI_XIOS_HOST_OPEN_MPI
/* Open MPI's handles are pointers to these (opaque) structures. */
struct ompi_communicator_t;
struct ompi_datatype_t;
struct ompi_op_t;
struct ompi_info_t;
#endif

/* Open MPI's <mpi.h>, when it came first, defines MPI_Fint as a macro, which would also rename
 * ep_lib::MPI_Fint: make it the global typedef it is under MPICH. */
#ifdef MPI_Fint
typedef MPI_Fint epmpi_host_fint;
#undef MPI_Fint
typedef epmpi_host_fint MPI_Fint;
#endif

namespace ep_lib
{

/** The host MPI's handle types and predefined handles, which this header names without
 *  <mpi.h>. Each type is the host's own (the adapter checks it when it is built). */
namespace host
{
#ifdef EPMPI_XIOS_HOST_OPEN_MPI
/** The host's MPI_Comm. */
typedef ::ompi_communicator_t *Comm;
/** The host's MPI_Datatype. */
typedef ::ompi_datatype_t *Datatype;
/** The host's MPI_Op. */
typedef ::ompi_op_t *Op;
/** The host's MPI_Info. */
typedef ::ompi_info_t *Info;
/** The host's MPI_Aint. */
typedef std::ptrdiff_t Aint;
#else
/** The host's MPI_Comm. */
typedef int Comm;
/** The host's MPI_Datatype. */
typedef int Datatype;
/** The host's MPI_Op. */
typedef int Op;
/** The host's MPI_Info. */
typedef int Info;
/** The host's MPI_Aint. */
typedef long Aint;
#endif
/** The host's MPI_COMM_WORLD. Any thread. */
Comm comm_world();
/** The host's MPI_COMM_NULL. Any thread. */
Comm comm_null();
/** The host's MPI_INFO_NULL. Any thread. */
Info info_null();
/** The host's Fortran integer of a host communicator (MPI_Comm_c2f). Any thread. */
int comm_c2f(Comm comm);
/** The host communicator of a host Fortran integer (MPI_Comm_f2c). Any thread. */
Comm comm_f2c(int fint);
} // namespace host

/** The host MPI's datatype handle (MPI_CHAR, MPI_INT, MPI_LONG, MPI_UNSIGNED_LONG,
 *  MPI_UNSIGNED_CHAR, MPI_DOUBLE..., or a derived type). */
typedef host::Datatype MPI_Datatype;
/** The host MPI's reduction op handle (MPI_SUM, MPI_MIN..., or a user op). */
typedef host::Op MPI_Op;
/** The host MPI's address-sized integer (sizes in bytes of MPI_Alloc_mem). */
typedef host::Aint MPI_Aint;

/**
 * What XIOS's pointers to its per-endpoint records answered, for the value types below that
 * stand for them: true (and != NULL) when the record would exist, false (== NULL) otherwise.
 */
class ep_record
{
  public:
    /** True when XIOS's pointer would be non-null. */
    explicit operator bool() const { return present_; }
    /** As XIOS's `pointer == NULL`. */
    bool operator==(std::nullptr_t) const { return !present_; }
    /** As XIOS's `pointer != NULL`. */
    bool operator!=(std::nullptr_t) const { return present_; }

  protected:
    ep_record() : present_(false) {}
    friend class MPI_Comm;
    bool present_;
};

/**
 * What XIOS reads through `comm.ep_comm_ptr->intercomm`: `->mpi_inter_comm` is the host
 * communicator under an intercommunicator (EP_Comm_get_host_comm: the processes of both
 * groups), the host's MPI_COMM_NULL for an intracommunicator, where the record tests false.
 */
class ep_intercomm : public ep_record
{
  public:
    /** Host communicator under the intercommunicator, or the host's MPI_COMM_NULL. */
    host::Comm mpi_inter_comm;
    /** Empty: not an intercommunicator. */
    ep_intercomm();
    /** `->mpi_inter_comm` as on XIOS's pointer. */
    const ep_intercomm *operator->() const { return this; }
};

/**
 * What XIOS reads through `comm.ep_comm_ptr`: `->intercomm` (see ep_intercomm); tests true for
 * endpoint communicators.
 */
class ep_communicator : public ep_record
{
  public:
    /** The intercommunicator part (tests false for an intracommunicator). */
    ep_intercomm intercomm;
    /** `->intercomm` as on XIOS's pointer. */
    const ep_communicator *operator->() const { return this; }
};

/**
 * A communicator as XIOS holds it, by value: one endpoint of an EPMPI communicator (its
 * EP_Comm handle, in `ep_comm`), or a host communicator (MPI_COMM_WORLD is one: endpoints are
 * created from it), or null. Copies name the same endpoint; MPI_Comm_free frees it for all.
 */
class MPI_Comm
{
  public:
    /** EPMPI handle (EP_Comm) of the endpoint (the same integer in C and Fortran); EP_COMM_NULL
     *  (0) for a host or null communicator. */
    int ep_comm;
    /** The process-level host communicator, for parallel NetCDF and MPI-IO: for an endpoint
     *  communicator the one EP_Comm_get_host_comm gives (owned by EPMPI: collectives from one
     *  thread per process, no point-to-point, never freed by the user); for a host
     *  communicator that communicator; the host's MPI_COMM_NULL for a null one. */
    host::Comm mpi_comm;
    /** XIOS's `ep_comm_ptr`: `comm.ep_comm_ptr->intercomm->mpi_inter_comm`. */
    ep_communicator ep_comm_ptr;

    /** The null communicator (equal to MPI_COMM_NULL). */
    MPI_Comm();
    /** The communicator of endpoint handle `handle` (EP_COMM_NULL gives the null one). Reads
     *  its host communicator from EPMPI; an invalid handle is reported through the error
     *  handler and gives a communicator whose calls fail with EP_ERR_COMM. Any thread. */
    static MPI_Comm from_endpoint(int handle);
    /** A host communicator, usable where XIOS uses MPI_COMM_WORLD: as the base of
     *  MPI_Comm_create_endpoints, in MPI_Comm_rank, MPI_Comm_size and MPI_Abort (other calls
     *  need an endpoint communicator and return EP_ERR_COMM). */
    static MPI_Comm from_host(host::Comm comm);

    /** True for the null communicator (neither an endpoint nor a host communicator). */
    bool is_null() const;
    /** Same endpoint (same EP_Comm handle), or same host communicator, or both null. */
    bool operator==(const MPI_Comm &other) const;
    /** Negation of operator==. */
    bool operator!=(const MPI_Comm &other) const { return !(*this == other); }
};

/** An info object as XIOS holds it: `info.mpi_info` is the host's MPI_Info. Default: the host's
 *  MPI_INFO_NULL. EPMPI accepts and ignores infos at endpoint creation. */
class MPI_Info
{
  public:
    /** The host info handle. */
    host::Info mpi_info;
    /** MPI_INFO_NULL. */
    MPI_Info();
    /** Wraps a host info handle. */
    explicit MPI_Info(host::Info info) : mpi_info(info) {}
};

/** A Fortran communicator integer as XIOS holds it (`fint.mpi_fint`): what EP_Comm_c2f gives
 *  and EP_Comm_f2c takes. Converts to int implicitly. */
class MPI_Fint
{
  public:
    /** The Fortran integer. */
    int mpi_fint;
    /** Zero. */
    MPI_Fint() : mpi_fint(0) {}
    /** Wraps a Fortran integer. */
    explicit MPI_Fint(int value) : mpi_fint(value) {}
    /** The integer, for `*f_comm = EP_Comm_c2f(comm)`. */
    operator int() const { return mpi_fint; }
};

/** A request: an EPMPI request handle (EP_Request); default EP_REQUEST_NULL (0), set back to
 *  it on completion. */
class MPI_Request
{
  public:
    /** The EPMPI handle. */
    int ep_request;
    /** EP_REQUEST_NULL. */
    MPI_Request() : ep_request(0) {}
};

/**
 * A status: the words of EPMPI's EP_Status (MPI_SOURCE, MPI_TAG, MPI_ERROR, then EPMPI's
 * private words: the received size, cancellation) plus the fields XIOS reads, `ep_src` (source
 * endpoint rank, the remote group's rank on an intercommunicator) and `ep_tag`, filled by every
 * call that fills the status.
 */
class MPI_Status
{
  public:
    /** Source rank of the message. */
    int MPI_SOURCE;
    /** Tag of the message. */
    int MPI_TAG;
    /** Error code (set by MPI_Waitall). */
    int MPI_ERROR;
    /** EPMPI's private status words (the received size and cancellation), copied as they are. */
    int ep_private[3];
    /** Source rank of the message (as MPI_SOURCE). */
    int ep_src;
    /** Tag of the message (as MPI_TAG). */
    int ep_tag;
    /** An empty status: source EP_PROC_NULL (-1), tag EP_ANY_TAG (-1). */
    MPI_Status() : MPI_SOURCE(-1), MPI_TAG(-1), MPI_ERROR(0), ep_src(-1), ep_tag(-1)
    {
        ep_private[0] = ep_private[1] = ep_private[2] = 0;
    }
};

/** Hand-off of the handle array MPI_Comm_create_endpoints gives (on the thread that created
 *  it) to the threads of the team, as XIOS's cxios.cpp does: the creating thread stores the
 *  array here, the team synchronises (e.g. `omp barrier`), each thread copies `passage[i]`. A
 *  plain process-wide pointer: the synchronisation is the caller's. */
extern MPI_Comm *passage;

/**
 * The table behind EP_Comm_c2f / EP_Comm_f2c: (host Fortran integer, calling thread) -> that
 * thread's endpoint. The thread is the calling OS thread's own identity (a number drawn once
 * per thread, never reused, never omp_get_thread_num(): nested teams and std::threads are told
 * apart). Entries leave when their endpoint is freed with MPI_Comm_free. All members: any
 * thread, at any time (one lock).
 */
class fc_table
{
  public:
    /** Forgets the conversions the calling thread recorded (XIOS's cxios_init_client calls
     *  `ep_lib::fc_comm_map.clear()` before converting the model's communicator; other
     *  threads' entries stay, so threads of a team may do it at any moment of each other's
     *  start-up). */
    void clear();
    /** Number of entries of all threads. */
    std::size_t size() const;
};
/** The one table (XIOS names it `ep_lib::fc_comm_map`). */
extern fc_table fc_comm_map;

/* ---- environment (XIOS: CClient::initialize, CServer::initialize, finalize) ---------------- */

/** Initialises the host MPI at MPI_THREAD_MULTIPLE (MPI_Init_thread; endpoints need it);
 *  `argc`, `argv` may be NULL. Errors: EP_ERR_THREAD_LEVEL when the host provides less,
 *  EP_ERR_OTHER when the host fails. Once per process, from one thread. */
int MPI_Init(int *argc, char ***argv);
/** `*flag` = 1 once the host MPI is initialised (the host's MPI_Initialized). Any thread. */
int MPI_Initialized(int *flag);
/** Finalises the host MPI (the host's MPI_Finalize; free the communicators first). Once per
 *  process, from one thread, after every endpoint is done. */
int MPI_Finalize();
/** Aborts the job with `errorcode`: EP_Abort for an endpoint communicator (printing which
 *  rank asked), the host's MPI_Abort otherwise. Does not return. Any thread. */
int MPI_Abort(MPI_Comm comm, int errorcode);
/** Wall-clock seconds (EP_Wtime). Any thread. */
double MPI_Wtime();
/** Allocates `size` bytes (>= 0) with the host's MPI_Alloc_mem; `baseptr` is the address of a
 *  pointer that receives the memory (MPI convention). Errors: EP_ERR_ARG (negative size, NULL
 *  baseptr); host failures go to the host's handler. Any thread. XIOS: remapping. */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
/** Frees memory of MPI_Alloc_mem (the host's MPI_Free_mem). Any thread. */
int MPI_Free_mem(void *base);

/* ---- communicators ---------------------------------------------------------------------- */

/**
 * Creates `num_ep` endpoints over the host communicator `*(host::Comm *)base_comm` (XIOS
 * passes `&host_comm` this way); collective over it, called by one thread per process (counts
 * may differ, 0 included). `out_comm_hdls` receives a new[]-allocated array of `num_ep`
 * communicators, endpoint i of this process in element i (ranks ordered by host rank, then
 * i), to hand to thread i (see `passage`); free it with delete[] once copied (XIOS never
 * does: one small array per creation). On error it is set to NULL.
 * Errors: those of EP_Comm_create_endpoints (EP_ERR_THREAD_LEVEL, EP_ERR_ARG for num_ep < 0,
 * EP_ERR_COMM for MPI_COMM_NULL), EP_ERR_ARG for a NULL base_comm.
 */
int MPI_Comm_create_endpoints(void *base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls);
/** As above, from a host communicator value (`MPI_COMM_WORLD.mpi_comm`, `comm.mpi_comm`). */
int MPI_Comm_create_endpoints(host::Comm base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls);
/** As above, from a host communicator held by ep_lib (MPI_COMM_WORLD, as XIOS's cxios.cpp
 *  passes it); an endpoint communicator as base is EP_ERR_COMM (endpoints are made from host
 *  communicators). */
int MPI_Comm_create_endpoints(const MPI_Comm &base_comm, int num_ep, MPI_Info info, MPI_Comm *&out_comm_hdls);

/**
 * The Fortran integer of a communicator, as XIOS's library gives it: for an endpoint
 * communicator the host's Fortran integer of the process's host communicator under it
 * (MPI_Comm_c2f of `comm.mpi_comm`), recorded with the calling thread so that EP_Comm_f2c of
 * that integer on this thread gives this endpoint back; for a host communicator its Fortran
 * integer; for MPI_COMM_NULL the host's Fortran MPI_COMM_NULL. The host communicator belongs
 * to EPMPI as `comm.mpi_comm` does (a program may query it; freeing it, as XIOS's test
 * programs do once they are done with XIOS, ends its use for this endpoint communicator).
 * Any thread. XIOS: cxios_init_client returning the client communicator to the model.
 */
int EP_Comm_c2f(MPI_Comm comm);
/**
 * The communicator of a Fortran integer, as XIOS's library gives it:
 *  - an integer that EP_Comm_c2f gave on this thread: the endpoint it was given for;
 *  - the host's Fortran MPI_COMM_NULL: MPI_COMM_NULL;
 *  - any other host communicator: new endpoints over it, one per thread of the calling OpenMP
 *    team (collective: every thread of the team on every process of the communicator calls,
 *    as XIOS's library required), thread i getting endpoint i; outside a parallel region one
 *    endpoint per process.
 * Errors (through the default handler): those of EP_Comm_create_endpoint. XIOS:
 * cxios_init_client (the model's local_comm), cxios_context_initialize.
 */
MPI_Comm EP_Comm_f2c(int comm);
/** As above, from XIOS's MPI_Fint. */
MPI_Comm EP_Comm_f2c(MPI_Fint comm);

/** Rank of the endpoint in its communicator (the local group's for an intercommunicator); for
 *  a host communicator, the host rank. Errors: EP_ERR_COMM, EP_ERR_ARG. Any thread. */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
/** Size of the communicator (the local group's); for a host communicator, the host size.
 *  Errors: EP_ERR_COMM, EP_ERR_ARG. Any thread. */
int MPI_Comm_size(MPI_Comm comm, int *size);
/** Size of the remote group of an intercommunicator. Errors: EP_ERR_COMM (also for an
 *  intracommunicator), EP_ERR_ARG. Any thread. XIOS: CContextClient/CContextServer. */
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
/** `*flag` = 1 for an intercommunicator, 0 otherwise. Errors: EP_ERR_COMM, EP_ERR_ARG. */
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
/** Duplicates the communicator (collective; every endpoint calls). Errors: EP_ERR_COMM,
 *  EP_ERR_ARG (NULL newcomm). XIOS: the communicators returned to the model and contexts. */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
/** Frees this endpoint's communicator, drops the EP_Comm_c2f records that lead to it, and sets
 *  `*comm` to MPI_COMM_NULL (once per endpoint). Errors: EP_ERR_COMM (null, freed, or a host
 *  communicator), EP_ERR_ARG (NULL). */
int MPI_Comm_free(MPI_Comm *comm);
/** Splits by `color` (>= 0, or MPI_UNDEFINED: `*newcomm` = MPI_COMM_NULL), ranks ordered by
 *  `key` then old rank across all endpoints (MPI's order, not XIOS's process-first order).
 *  Collective. Errors: EP_ERR_COMM, EP_ERR_ARG. XIOS: one communicator per code. */
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
/** Creates an intercommunicator between `local_comm`'s group and the group whose leader is
 *  `remote_leader` of `peer_comm`; the leaders talk on `peer_comm` with `tag` (any value
 *  0..EP_TAG_UB_VALUE, not truncated). `peer_comm` matters on the local leader only (others may
 *  pass MPI_COMM_NULL). Groups may share processes. Collective over both groups.
 *  Errors: EP_ERR_COMM, EP_ERR_RANK, EP_ERR_TAG, EP_ERR_ARG. XIOS: client-server links. */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm *newintercomm);
/** Merges an intercommunicator's groups, the `high == false` group first. Collective over
 *  both groups. Errors: EP_ERR_COMM (not an intercommunicator), EP_ERR_ARG. */
int MPI_Intercomm_merge(MPI_Comm intercomm, bool high, MPI_Comm *newintracomm);

/* ---- point-to-point ----------------------------------------------------------------------
 * Sources: -2 (XIOS's literal, MPI_ANY_SOURCE of this header) and the host's MPI_ANY_SOURCE
 * mean any source; the host's MPI_PROC_NULL, where it is not -2, is EP_PROC_NULL. Tags: -1
 * (EP_ANY_TAG) is any tag. Statuses may be NULL or &MPI_STATUS_IGNORE. */

/** Blocking standard send of `count` elements to rank `dest` (the remote group's on an
 *  intercommunicator). Errors: EP_ERR_COMM, EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER,
 *  EP_ERR_RANK, EP_ERR_TAG. XIOS: context registration (tag 1), finalize (tag 0). */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
/** Blocking receive of at most `count` elements from `src` (-2 for any); `status` may be NULL.
 *  Errors: as MPI_Send, EP_ERR_TRUNCATE (status filled). */
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int src, int tag, MPI_Comm comm, MPI_Status *status);
/** Nonblocking standard send; complete `*request` with MPI_Test/MPI_Waitall. Errors: as
 *  MPI_Send, EP_ERR_ARG (NULL request). XIOS: forwarding registrations (tag 2), events. */
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
/** Nonblocking synchronous send: completes once the receive has matched. Errors: as
 *  MPI_Isend. XIOS: client buffers (tag 20 on the intercommunicator). */
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
/** Nonblocking receive (`src` -2 for any). Errors: as MPI_Recv (truncation at completion),
 *  EP_ERR_ARG (NULL request). */
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int src, int tag, MPI_Comm comm, MPI_Request *request);
/** Nonblocking probe: `*flag` = 1 and `status` filled (ep_src: the source) when a message
 *  from `source` (-2 for any) with `tag` can be received. Errors: EP_ERR_COMM, EP_ERR_RANK,
 *  EP_ERR_TAG, EP_ERR_ARG. XIOS: Iprobe(-2, 1|20|0) and Iprobe(0, 0|4). */
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
/** Tests a request: `*flag` = 1, the request set to null and `status` filled when it is
 *  complete. Errors: EP_ERR_REQUEST, EP_ERR_TRUNCATE, EP_ERR_ARG. */
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
/** Waits for a request; `status` may be NULL. Errors: as MPI_Test. */
int MPI_Wait(MPI_Request *request, MPI_Status *status);
/** Waits for `count` requests; `array_of_statuses` has `count` entries or is NULL.
 *  Errors: EP_ERR_IN_STATUS (see each MPI_ERROR), EP_ERR_REQUEST, EP_ERR_COUNT, EP_ERR_ARG. */
int MPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses);
/** Number of whole `datatype` elements of a received or probed message (EP_UNDEFINED if not
 *  whole). Errors: EP_ERR_ARG, EP_ERR_TYPE. Any thread. */
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);

/* ---- collectives (intracommunicators; every endpoint calls, blocking) ---------------------
 * A send buffer equal to the receive buffer (the same address, XIOS's library accepted it) is
 * read as MPI_IN_PLACE by the reductions (MPI_Allreduce, MPI_Reduce at the root, MPI_Scan,
 * MPI_Reduce_scatter); the other collectives copy the send data first. The result is what
 * separate buffers would give, on every communicator shape. */

/** Barrier. Errors: EP_ERR_COMM. XIOS: after merging a context's communicators. */
int MPI_Barrier(MPI_Comm comm);
/** Broadcasts `count` elements from rank `root`. Errors: EP_ERR_COMM, EP_ERR_ROOT,
 *  EP_ERR_COUNT, EP_ERR_TYPE, EP_ERR_BUFFER. */
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
/** Reduces `count` elements to every endpoint; sendbuf may be MPI_IN_PLACE or recvbuf. Errors:
 *  as MPI_Bcast, EP_ERR_OP. XIOS: MPI_MIN of buffer ratios (aliased), MPI_SUM of counts. */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
/** Reduces `count` elements to rank `root`; sendbuf may be MPI_IN_PLACE or recvbuf at the
 *  root. Errors: as MPI_Allreduce, EP_ERR_ROOT. XIOS: remapping. */
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm);
/** Inclusive prefix reduction in rank order; sendbuf may be recvbuf. Errors: as MPI_Allreduce.
 *  XIOS: global indexing. */
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
/** Gathers `sendcount` elements of every rank into every `recvbuf` (rank i at i*recvcount).
 *  Errors: as MPI_Bcast. XIOS: code hashes (MPI_LONG) at start-up. */
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
/** MPI_Allgather with `recvcounts[i]` elements of rank i at element `displs[i]`. */
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
/** Gathers every rank's `sendcount` elements at `root` (rank i at i*recvcount). Errors: as
 *  MPI_Bcast. */
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm);
/** MPI_Gather with `recvcounts[i]` elements of rank i at element `displs[i]` (root only). */
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
/** Block j of every sendbuf goes to rank j. Errors: as MPI_Bcast. XIOS: remapping sizes. */
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);
/** Reduces sum(recvcounts) elements and gives rank i its `recvcounts[i]`; sendbuf may be
 *  MPI_IN_PLACE or recvbuf. Errors: as MPI_Allreduce. XIOS: remapping (number of sources). */
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm);

} // namespace ep_lib

#endif /* EPMPI_XIOS_EP_LIB_HPP */

/* ---- the predefined names, at global scope as XIOS's ep_declaration.hpp puts them ----------
 * Outside the include guard: each inclusion of this header (or of ep_declaration.hpp, or of
 * ep_xios.h after it) takes back for ep_lib the names that an <mpi.h> included in between has
 * made the host's macros again. */
#undef MPI_INT
#undef MPI_FLOAT
#undef MPI_DOUBLE
#undef MPI_CHAR
#undef MPI_LONG
#undef MPI_UNSIGNED_LONG
#undef MPI_UNSIGNED_CHAR
#undef MPI_SUM
#undef MPI_MAX
#undef MPI_MIN
#undef MPI_COMM_WORLD
#undef MPI_COMM_NULL
#undef MPI_REQUEST_NULL
#undef MPI_STATUS_IGNORE
#undef MPI_INFO_NULL

/** The host's MPI_INT (and so on for the datatypes below). */
extern ep_lib::MPI_Datatype MPI_INT;
/** The host's MPI_FLOAT. */
extern ep_lib::MPI_Datatype MPI_FLOAT;
/** The host's MPI_DOUBLE. */
extern ep_lib::MPI_Datatype MPI_DOUBLE;
/** The host's MPI_CHAR. */
extern ep_lib::MPI_Datatype MPI_CHAR;
/** The host's MPI_LONG. */
extern ep_lib::MPI_Datatype MPI_LONG;
/** The host's MPI_UNSIGNED_LONG. */
extern ep_lib::MPI_Datatype MPI_UNSIGNED_LONG;
/** The host's MPI_UNSIGNED_CHAR. */
extern ep_lib::MPI_Datatype MPI_UNSIGNED_CHAR;
/** The host's MPI_SUM. */
extern ep_lib::MPI_Op MPI_SUM;
/** The host's MPI_MAX. */
extern ep_lib::MPI_Op MPI_MAX;
/** The host's MPI_MIN. */
extern ep_lib::MPI_Op MPI_MIN;
/** The host's world communicator (not an endpoint communicator): the base of
 *  MPI_Comm_create_endpoints, MPI_Comm_rank/size, MPI_Abort. */
extern ep_lib::MPI_Comm MPI_COMM_WORLD;
/** The null communicator (what MPI_Comm_split with MPI_UNDEFINED and MPI_Comm_free give). */
extern ep_lib::MPI_Comm MPI_COMM_NULL;
/** A status to pass for "ignore" (its address is read as NULL: nothing is written to it). */
extern ep_lib::MPI_Status MPI_STATUS_IGNORE;
/** The null request. */
extern ep_lib::MPI_Request MPI_REQUEST_NULL;
/** The null info (`MPI_INFO_NULL.mpi_info` is the host's). */
extern ep_lib::MPI_Info MPI_INFO_NULL;

#ifndef EPMPI_XIOS_EP_LIB_NAMES_ONCE
#define EPMPI_XIOS_EP_LIB_NAMES_ONCE
#ifndef MPI_ANY_SOURCE
/** Any source, as XIOS writes it (-2) and as the ep_lib calls read it. */
const int MPI_ANY_SOURCE = -2;
#endif
#ifndef MPI_UNDEFINED
/** The host's MPI_UNDEFINED (the same value in Open MPI and MPICH). */
const int MPI_UNDEFINED = -32766;
#endif
#ifndef MPI_IN_PLACE
#ifdef EPMPI_XIOS_HOST_OPEN_MPI
/** The host's MPI_IN_PLACE. */
void *const MPI_IN_PLACE = reinterpret_cast<void *>(1);
#else
/** The host's MPI_IN_PLACE. */
void *const MPI_IN_PLACE = reinterpret_cast<void *>(-1);
#endif
#endif

namespace ep_lib
{
/* The same objects under ep_lib:: (not new ones: `using namespace ep_lib;` stays unambiguous). */
using ::MPI_COMM_NULL;
using ::MPI_COMM_WORLD;
using ::MPI_INFO_NULL;
using ::MPI_REQUEST_NULL;
using ::MPI_STATUS_IGNORE;
} // namespace ep_lib
#endif /* EPMPI_XIOS_EP_LIB_NAMES_ONCE */
