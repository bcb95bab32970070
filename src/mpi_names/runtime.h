/*
 * runtime.h: what every wrapper of the standard-names layer (libepmpi_mpi) needs: EPMPI
 * handles carried as values of the host MPI's own handle types, the conversion of the
 * standard's special values (MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ANY_TAG, MPI_UNDEFINED,
 * comparison results) to EPMPI's and back, statuses, and error codes.
 *
 * Handle values. The host never hands out an EPMPI value, so a call whose handles are all the
 * host's goes to the host's PMPI_ function after one range test per handle:
 *  - MPICH (handles are ints, bits 31-30 the handle kind, 00 meaning "invalid"): an EPMPI
 *    handle is 0x30000000 | (EPMPI handle & 0x0FFFFFFF). Kind 00 is refused by MPICH with
 *    "Invalid communicator" (or request, group...), so a stray value fails loudly; the only
 *    MPICH value of that form is MPI_SESSION_NULL (0x38000000), never a communicator,
 *    request, group, window or message. The EPMPI handle's kind bits (28-30) are not
 *    carried: the argument's type says which kind it is.
 *  - Open MPI (handles are pointers): an EPMPI handle is the address base + (handle &
 *    0x0FFFFFFF) inside a reserved, inaccessible region of 2^28 bytes (mapped PROT_NONE at
 *    load): the host reading one faults at once instead of misreading memory.
 * The null handles are the host's (MPI_COMM_NULL <-> EP_COMM_NULL, and so on).
 */
#ifndef EPMPI_MPI_NAMES_RUNTIME_H
#define EPMPI_MPI_NAMES_RUNTIME_H

#include <ep_mpi.h>
#include <mpi.h>
#include <stdint.h>

#define EPMPI_LIKELY(x) __builtin_expect(!!(x), 1)
#define EPMPI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Bits of an EPMPI handle that identify the object within its kind (see
 * src/handles/table.rs: kind in bits 28-30 above them). */
#define EPMPI_LOW_MASK 0x0FFFFFFFu
#define EPMPI_KIND_SHIFT 28
/* Kinds of src/handles/table.rs. */
enum { EPMPI_KIND_COMM = 1, EPMPI_KIND_REQUEST = 2, EPMPI_KIND_MESSAGE = 3, EPMPI_KIND_WIN = 4, EPMPI_KIND_GROUP = 5 };

#if defined(OPEN_MPI) && OPEN_MPI
#define EPMPI_HANDLES_ARE_POINTERS 1
/* Base of the reserved region (set by the layer's constructor before main). */
extern uintptr_t epmpi_handle_base;
#define EPMPI_SPAN ((uintptr_t)1 << 28)
#define EPMPI_IS_EP(h) ((uintptr_t)(h) - epmpi_handle_base < EPMPI_SPAN)
#define EPMPI_LOW_OF(h) ((uint32_t)((uintptr_t)(h) - epmpi_handle_base))
#define EPMPI_ENCODE(type, low) ((type)(epmpi_handle_base + (uintptr_t)(low)))
#else
#define EPMPI_HANDLES_ARE_POINTERS 0
#define EPMPI_MARK 0x30000000u
#define EPMPI_IS_EP(h) (((uint32_t)(h) & 0xF0000000u) == EPMPI_MARK)
#define EPMPI_LOW_OF(h) ((uint32_t)(h) & EPMPI_LOW_MASK)
#define EPMPI_ENCODE(type, low) ((type)(EPMPI_MARK | (uint32_t)(low)))
#endif

/* An EPMPI handle value no table issues: decoding a host handle where an EPMPI one is needed
 * gives this, and the engine answers with the kind's error class (EP_ERR_COMM...). */
#define EPMPI_FOREIGN (-1)

/* Decoding and encoding per kind. `*_in` turns a host-typed value into an EPMPI handle (the
 * host's null into EPMPI's null, any other host handle into EPMPI_FOREIGN); `*_out` the
 * reverse. */
#define EPMPI_DEFINE_KIND(name, mtype, etype, kind, mnull, enull)                                    \
    static inline etype epmpi_##name##_in(mtype h)                                                   \
    {                                                                                                \
        if (EPMPI_IS_EP(h))                                                                          \
            return (etype)(((uint32_t)(kind) << EPMPI_KIND_SHIFT) | EPMPI_LOW_OF(h));                \
        return h == (mnull) ? (enull) : (etype)EPMPI_FOREIGN;                                        \
    }                                                                                                \
    static inline mtype epmpi_##name##_out(etype e)                                                  \
    {                                                                                                \
        return e == (enull) ? (mnull) : EPMPI_ENCODE(mtype, (uint32_t)e & EPMPI_LOW_MASK);           \
    }

/* Communicators go through epmpi_comm_in (below), which also resolves thread communicators. */
EPMPI_DEFINE_KIND(plain_comm, MPI_Comm, EP_Comm, EPMPI_KIND_COMM, MPI_COMM_NULL, EP_COMM_NULL)
EPMPI_DEFINE_KIND(request, MPI_Request, EP_Request, EPMPI_KIND_REQUEST, MPI_REQUEST_NULL, EP_REQUEST_NULL)
EPMPI_DEFINE_KIND(win, MPI_Win, EP_Win, EPMPI_KIND_WIN, MPI_WIN_NULL, EP_WIN_NULL)

static inline EP_Group epmpi_group_in(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return EP_GROUP_EMPTY;
    if (EPMPI_IS_EP(h))
        return (EP_Group)(((uint32_t)EPMPI_KIND_GROUP << EPMPI_KIND_SHIFT) | EPMPI_LOW_OF(h));
    return h == MPI_GROUP_NULL ? EP_GROUP_NULL : (EP_Group)EPMPI_FOREIGN;
}

/* MPI_GROUP_EMPTY given to the program for EPMPI's empty group: the host holds no reference
 * for it, so MPI_Group_free answers those frees itself (extensions.c). */
void epmpi_empty_group_given(void);

static inline MPI_Group epmpi_group_out(EP_Group e)
{
    if (e == EP_GROUP_EMPTY) {
        epmpi_empty_group_given();
        return MPI_GROUP_EMPTY;
    }
    return e == EP_GROUP_NULL ? MPI_GROUP_NULL : EPMPI_ENCODE(MPI_Group, (uint32_t)e & EPMPI_LOW_MASK);
}

static inline EP_Message epmpi_message_in(MPI_Message h)
{
    if (h == MPI_MESSAGE_NO_PROC)
        return EP_MESSAGE_NO_PROC;
    if (EPMPI_IS_EP(h))
        return (EP_Message)(((uint32_t)EPMPI_KIND_MESSAGE << EPMPI_KIND_SHIFT) | EPMPI_LOW_OF(h));
    return h == MPI_MESSAGE_NULL ? EP_MESSAGE_NULL : (EP_Message)EPMPI_FOREIGN;
}

static inline MPI_Message epmpi_message_out(EP_Message e)
{
    if (e == EP_MESSAGE_NO_PROC)
        return MPI_MESSAGE_NO_PROC;
    return e == EP_MESSAGE_NULL ? MPI_MESSAGE_NULL : EPMPI_ENCODE(MPI_Message, (uint32_t)e & EPMPI_LOW_MASK);
}

/* Thread communicators (MPIX_Threadcomm_*, threadcomm.c): one host-typed value stands for a
 * different endpoint in each thread between MPIX_Threadcomm_start and _finish. */
extern int epmpi_threadcomms_live;
EP_Comm epmpi_threadcomm_resolve(EP_Comm c);

static inline EP_Comm epmpi_comm_in(MPI_Comm h)
{
    EP_Comm c = epmpi_plain_comm_in(h);
    if (EPMPI_UNLIKELY(epmpi_threadcomms_live) && c != EP_COMM_NULL && c != EPMPI_FOREIGN)
        c = epmpi_threadcomm_resolve(c);
    return c;
}

static inline MPI_Comm epmpi_comm_out(EP_Comm e)
{
    return epmpi_plain_comm_out(e);
}

/* Special values of arguments. */
static inline int epmpi_rank_in(int r)
{
    if (r == MPI_ANY_SOURCE)
        return EP_ANY_SOURCE;
    if (r == MPI_PROC_NULL)
        return EP_PROC_NULL;
    if (r == MPI_ROOT)
        return EP_ROOT;
    return r < 0 ? INT32_MIN : r; /* any other negative rank stays invalid */
}

static inline int epmpi_rank_out(int r)
{
    if (r == EP_ANY_SOURCE)
        return MPI_ANY_SOURCE;
    if (r == EP_PROC_NULL)
        return MPI_PROC_NULL;
    if (r == EP_UNDEFINED)
        return MPI_UNDEFINED;
    return r;
}

static inline int epmpi_tag_in(int t)
{
    return t == MPI_ANY_TAG ? EP_ANY_TAG : (t < 0 ? INT32_MIN : t);
}

static inline int epmpi_undefined_in(int v)
{
    return v == MPI_UNDEFINED ? EP_UNDEFINED : v;
}

static inline int epmpi_undefined_out(int v)
{
    return v == EP_UNDEFINED ? MPI_UNDEFINED : v;
}

int epmpi_comparison_out(int ep_result);
/* The thread level the layer asks the host for when the program asks `required` (init.c). */
int epmpi_host_thread_level(int required);
/* MPI_Topo_test's result: EPMPI's EP_CART... to the host's MPI_CART... (their values differ). */
int epmpi_topology_out(int ep_kind);

/* Weights of a distributed graph: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (special addresses of
 * the host's) to EPMPI's. */
static inline const int *epmpi_weights_in(const int *w)
{
    if (w == MPI_UNWEIGHTED)
        return EP_UNWEIGHTED;
    if (w == MPI_WEIGHTS_EMPTY)
        return EP_WEIGHTS_EMPTY;
    return w;
}
/* Error handlers and keyvals (caching.c): the predefined ones mapped, the program's own to
 * the EPMPI twin made with them; anything else to EPMPI_FOREIGN. */
EP_Errhandler epmpi_errhandler_in(MPI_Errhandler h);
MPI_Errhandler epmpi_errhandler_out(EP_Errhandler e);
/* Calls a program's handler function `fn` made in another language (Fortran: handles and code
 * by address as Fortran integers). */
typedef void epmpi_errhandler_caller(MPI_Comm_errhandler_function *fn, MPI_Comm comm, int code);
/* Gives the host's handler `host` its EPMPI twin, which calls `fn` (through `call` unless NULL),
 * or makes the twin already given call so: MPI_SUCCESS or MPI_ERR_NO_MEM. */
int epmpi_errhandler_register(MPI_Errhandler host, MPI_Comm_errhandler_function *fn, epmpi_errhandler_caller *call);
int epmpi_keyval_in(int keyval);

/* Statuses: an EPMPI status written into the host's MPI_Status, with the received size set so
 * that the host's MPI_Get_count, MPI_Get_elements and MPI_Test_cancelled read it. */
void epmpi_status_out(const EP_Status *e, MPI_Status *m);

/* Error codes: EPMPI's code turned into a host MPI error code of the same class (the full
 * message stays readable through EP_Error_string on the EPMPI code, which the layer prints
 * when errors are fatal). */
int epmpi_rc(int ep_code);
/* The EPMPI code this thread's last epmpi_rc turned into `mpi_code`, or EP_SUCCESS if its last
 * one became another code (MPI_Error_string, extensions.c). */
int epmpi_last_error(int mpi_code);

/* Large-count forms (MPI_X_c) on hosts or endpoints that take int counts: the entries of a
 * count or displacement array (MPI_Count or MPI_Aint, both 64-bit here) as ints in `*out`
 * (allocated; NULL for n <= 0), or MPI_ERR_COUNT when one does not fit. */
#define epmpi_narrow(n, in, out) epmpi_narrow64((n), (const int64_t *)(in), (out))
int epmpi_narrow64(int n, const int64_t *in, int **out);
_Static_assert(sizeof(MPI_Count) == 8 && sizeof(MPI_Aint) == 8, "64-bit MPI_Count and MPI_Aint");
/* Entries of a collective's per-peer arrays: the group's size, or the remote group's on an
 * intercommunicator; the communicator may be the host's or EPMPI's. */
int epmpi_peers(MPI_Comm comm);
/* Whether this rank is the root of a rooted collective (root == MPI_ROOT on an
 * intercommunicator), where its root-only arrays are read. */
int epmpi_is_root(MPI_Comm comm, int root);

/* The host's error code `mpi_code` of call `name` raised through the error handler of the
 * endpoint `comm` (MPI 4.1 section 9.3): returned under MPI_ERRORS_RETURN, given to the
 * program's handler, or printed with the call's name before the job aborts under
 * MPI_ERRORS_ARE_FATAL (also for EP_COMM_NULL or an endpoint EPMPI no longer knows). Returns
 * the code's class. */
int epmpi_raise(const char *name, EP_Comm comm, int mpi_code);
/* A call on EPMPI handles that EPMPI does not provide: MPI_ERR_UNSUPPORTED_OPERATION through
 * the error handler of `comm` (epmpi_raise). */
int epmpi_unsupported(const char *name, EP_Comm comm);
/* The same for a call on a window: returned under the window's MPI_ERRORS_RETURN, fatal
 * otherwise (EPMPI's windows take the predefined handlers only). */
int epmpi_unsupported_win(const char *name, EP_Win win);
/* A host error code as EPMPI's class of the same meaning (MPI_Comm_call_errhandler on an
 * endpoint: the handler then gets the host's class back, runtime.c class_out). */
int epmpi_code_in(int mpi_code);
/* A call on a host communicator that the host MPI does not provide (an MPI 4.0 function on an
 * MPI 3 host without the extension that has it): MPI_ERR_UNSUPPORTED_OPERATION through the
 * host communicator's error handler. */
int epmpi_host_unsupported(const char *name, MPI_Comm comm);

#endif
