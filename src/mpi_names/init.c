/*
 * init.c: MPI_Init and MPI_Init_thread under the standard-names layer: which thread level the
 * layer asks of the host.
 *
 * Endpoints make MPI calls from several threads of a process at once, so they need a host at
 * MPI_THREAD_MULTIPLE, and a program may create them after initialising MPI with a lower level:
 * MPICH's thread communicators work after a plain MPI_Init, and programs written for them do
 * that. But MPI_THREAD_MULTIPLE has a price on the host path of a program that never creates an
 * endpoint (measured in docs/performance.md, `names_host`: 8 B latency 1.07x on MPICH 4.0.2,
 * about 1.3x on Open MPI 4.1.4), and the level cannot be raised after initialisation. So the
 * layer asks for MPI_THREAD_MULTIPLE exactly when the program can create endpoints, and keeps
 * the program's own request otherwise (MPI lets `provided` exceed `required`, MPI 4.1 section
 * 11.2.1). EPMPI_HOST_THREAD_LEVEL chooses:
 *   auto (the default)  MPI_THREAD_MULTIPLE if a loaded object other than EPMPI's own imports a
 *                       function that creates endpoints (ENDPOINT_CREATORS below: C or Fortran,
 *                       standard names or EP_), the program's request otherwise;
 *   multiple            always MPI_THREAD_MULTIPLE (a program that creates endpoints from a
 *                       library it loads with dlopen after MPI_Init, or that is linked statically
 *                       with EPMPI, where no object imports the creators);
 *   requested           always the program's request.
 * With a level below MPI_THREAD_MULTIPLE, creating endpoints fails with MPI_ERR_OTHER and a
 * message that names this variable (EP_ERR_THREAD_LEVEL in EPMPI's classes).
 */
#define _GNU_SOURCE
#include "runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Functions whose callers create endpoints: the layer's, the Fortran layer's (gfortran's
 * mangling; for `use mpi_f08` the procedures of module epmpi_mpix_f08), and EPMPI's own C
 * interface, which `use ep_mpi` reaches too. */
static const char *const ENDPOINT_CREATORS[] = {
    "MPIX_Comm_create_endpoints", "MPIX_Threadcomm_init", "mpix_comm_create_endpoints_", "mpix_threadcomm_init_",
    "__epmpi_mpix_f08_MOD_mpix_comm_create_endpoints", "__epmpi_mpix_f08_MOD_mpix_threadcomm_init",
    "EP_Comm_create_endpoints", "EP_Comm_create_endpoint", NULL,
};

static int is_creator(const char *name)
{
    for (const char *const *c = ENDPOINT_CREATORS; *c; c++)
        if (strcmp(name, *c) == 0)
            return 1;
    return 0;
}

/* The number of symbols of a DT_GNU_HASH table: one past the highest index any bucket's chain
 * reaches (the table lists no count; its chains end with an entry whose low bit is set). */
static size_t gnu_hash_symbols(const uint32_t *table)
{
    uint32_t nbuckets = table[0], symoffset = table[1], bloom_words = table[2];
    const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(table + 4) + bloom_words);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t b = 0; b < nbuckets; b++)
        if (buckets[b] > last)
            last = buckets[b];
    if (last < symoffset)
        return symoffset;
    while (!(chain[last - symoffset] & 1))
        last++;
    return (size_t)last + 1;
}

/* An address the dynamic section gives: the loader has relocated most in place, but not those
 * of objects whose dynamic section is read-only (the vDSO), which are offsets from the base. */
static const void *dyn_address(ElfW(Addr) ptr, ElfW(Addr) base)
{
    return (const void *)(ptr < base ? ptr + base : ptr);
}

/* dl_iterate_phdr callback: sets *found when the object imports an endpoint creator without
 * defining one (the objects that define them are EPMPI's: the layer, the Fortran layer and
 * libepmpi, whose imports among themselves say nothing about the program). */
static int imports_a_creator(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    size_t nsyms = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB)
            symtab = dyn_address(dyn->d_un.d_ptr, info->dlpi_addr);
        else if (dyn->d_tag == DT_STRTAB)
            strtab = dyn_address(dyn->d_un.d_ptr, info->dlpi_addr);
        else if (dyn->d_tag == DT_HASH)
            nsyms = ((const uint32_t *)dyn_address(dyn->d_un.d_ptr, info->dlpi_addr))[1];
        else if (dyn->d_tag == DT_GNU_HASH && nsyms == 0)
            nsyms = gnu_hash_symbols(dyn_address(dyn->d_un.d_ptr, info->dlpi_addr));
    }
    if (symtab == NULL || strtab == NULL)
        return 0;
    int imports = 0, defines = 0;
    for (size_t s = 1; s < nsyms; s++) {
        if (!is_creator(strtab + symtab[s].st_name))
            continue;
        if (symtab[s].st_shndx == SHN_UNDEF)
            imports = 1;
        else
            defines = 1;
    }
    if (imports && !defines)
        *(int *)found = 1;
    return *(int *)found; /* non-zero stops the walk */
}

int epmpi_host_thread_level(int required)
{
    const char *v = getenv("EPMPI_HOST_THREAD_LEVEL");
    if (v && strcmp(v, "requested") == 0)
        return required;
    if (v && strcmp(v, "multiple") == 0)
        return MPI_THREAD_MULTIPLE;
    int found = 0;
    dl_iterate_phdr(imports_a_creator, &found);
    return found ? MPI_THREAD_MULTIPLE : required;
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
