/*
 * "Decoy" datatypes for the tests of operations whose program frees a datatype while they are
 * pending (MPI 4.1 section 5.1.9): committed right after the free, they may take the freed
 * handle's place (an index in MPICH, an address in Open MPI), so a library that still used the
 * freed handle would work with a decoy's layout, fail, or crash instead of passing by luck.
 */
#ifndef TYPE_DECOYS_H
#define TYPE_DECOYS_H

enum { NDECOYS = 6 };

/* Datatypes of layouts unlike those of the tests: contiguous ints, and vectors of shorts. */
static void make_decoys(MPI_Datatype d[NDECOYS])
{
    for (int k = 0; k < NDECOYS; k++) {
        if (k % 2 == 0)
            MPI_Type_contiguous(k + 2, MPI_INT, &d[k]);
        else
            MPI_Type_vector(k + 1, 2, 3, MPI_SHORT, &d[k]);
        MPI_Type_commit(&d[k]);
    }
}

static void free_decoys(MPI_Datatype d[NDECOYS])
{
    for (int k = 0; k < NDECOYS; k++)
        MPI_Type_free(&d[k]);
}

#endif
