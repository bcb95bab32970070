/*
 * Host MPI constants that the Rust side cannot read through mpi-sys (src/host.rs reads the
 * others from mpi-sys's RSMPI_* statics).
 *
 * MPI_BYTE, MPI_PACKED, MPI_INT and MPI_OP_NULL are predefined handles mpi-sys does not
 * export (macros: MPICH integer constants, Open MPI addresses of global objects); MPI_IN_PLACE
 * is an address macro bindgen cannot see; MPI_TAG_UB, MPI_SUCCESS and MPI_ROOT are a #define
 * in MPICH and an enum in Open MPI, so their Rust types differ.
 * This file is compiled with the host's mpicc, so it is always right for the MPI we link to.
 */
#include <mpi.h>
#include <stddef.h>

typedef struct epmpi_shim_constants {
    MPI_Datatype byte;
    MPI_Datatype packed;
    MPI_Datatype int_;
    MPI_Op op_null;
    void *in_place;
    int tag_ub_key;
    int success;
    int root;
    int direct_p2p;
} epmpi_shim_constants;

void epmpi_host_constants_get(epmpi_shim_constants *out)
{
    out->byte = MPI_BYTE;
    out->packed = MPI_PACKED;
    out->int_ = MPI_INT;
    out->op_null = MPI_OP_NULL;
    out->in_place = MPI_IN_PLACE;
    out->tag_ub_key = MPI_TAG_UB;
    out->success = MPI_SUCCESS;
    out->root = MPI_ROOT;
    /* Direct mode (src/engine/direct.rs) relies on MPI_TAG_UB = 2^31 - 1 and on the host
     * returning a point-to-point error through the communicator's handler. MPICH 4.0's
     * MPI_TAG_UB (2^28 - 1) is below EPMPI's, and it reports an error of a nonblocking receive
     * through MPI_COMM_WORLD's handler (fatal by default), though direct mode never lets the
     * host truncate, the one such error a correct program can meet. */
#ifdef OPEN_MPI
    out->direct_p2p = 1;
#else
    out->direct_p2p = 0;
#endif
}

/*
 * The predefined datatypes whose size never changes: the engine caches their sizes so the hot
 * path makes no MPI call for them. Writes at most `max` handles, returns how many exist.
 */
int epmpi_host_predefined_types(MPI_Datatype *out, int max)
{
    const MPI_Datatype all[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT, MPI_UNSIGNED_SHORT,
        MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG,
        MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T,
        MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
        MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_PACKED, MPI_CHARACTER, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_LOGICAL,
        MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
    };
    int n = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < n && i < max; i++)
        out[i] = all[i];
    return n;
}

/*
 * 1 when `t`, a valid datatype, is a predefined ("named") one, 0 when it is derived (-1 should
 * the host's error handler return). MPI_COMBINER_NAMED is a #define in MPICH and an enum in
 * Open MPI, so this is asked here.
 */
int epmpi_host_type_is_named(MPI_Datatype t)
{
    int ints, addrs, types, combiner;
    if (MPI_Type_get_envelope(t, &ints, &addrs, &types, &combiner) != MPI_SUCCESS)
        return -1;
    return combiner == MPI_COMBINER_NAMED;
}

/*
 * Calls `callback` when MPI_Finalize starts: MPI_Finalize deletes the attributes of
 * MPI_COMM_SELF first (MPI 4.1 section 11.2.2). Done in C because MPI_COMM_NULL_COPY_FN is a
 * macro (Open MPI rejects a NULL copy function).
 */
static void (*epmpi_finalize_callback)(void);

static int epmpi_on_self_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    if (epmpi_finalize_callback)
        epmpi_finalize_callback();
    return MPI_SUCCESS;
}

int epmpi_host_on_finalize(void (*callback)(void))
{
    int key;
    epmpi_finalize_callback = callback;
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, epmpi_on_self_delete, &key, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
    /* The attribute keeps the keyval alive until MPI_Finalize deletes it (MPI 4.1 section
     * 7.7.2); freeing our handle now is what releases it then (valgrind saw it lost). */
    MPI_Comm_free_keyval(&key);
    return rc;
}

/*
 * Predefined datatypes the engine reduces natively, with their number class (1: signed
 * integer, 2: unsigned integer, 3: floating point); the width comes from MPI_Type_size.
 * Writes at most `max` entries, returns how many exist.
 */
int epmpi_host_native_types(MPI_Datatype *out, int *cls, int max)
{
    const MPI_Datatype types[] = {
        MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_INT8_T, MPI_INT16_T,
        MPI_INT32_T, MPI_INT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INTEGER,
        MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
        MPI_FLOAT, MPI_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION,
    };
    const int classes[] = {
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        2, 2, 2, 2, 2, 2, 2, 2, 2,
        3, 3, 3, 3,
    };
    int n = (int)(sizeof types / sizeof types[0]);
    for (int i = 0; i < n && i < max; i++) {
        out[i] = types[i];
        cls[i] = classes[i];
    }
    return n;
}

/*
 * Predefined reduction ops, in the order of the engine's `NativeOp` (the first ten), then
 * the other predefined ops (commutative too, but reduced by the host).
 */
int epmpi_host_predefined_ops(MPI_Op *out, int max)
{
    const MPI_Op ops[] = {
        MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR,
        MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP,
    };
    int n = (int)(sizeof ops / sizeof ops[0]);
    for (int i = 0; i < n && i < max; i++)
        out[i] = ops[i];
    return n;
}
