/* One pointer per thread in the initial-exec TLS model: the C boundary's per-thread state.
 *
 * Rust's thread-locals in a shared library use the general-dynamic model: every access is a
 * call into the dynamic loader (__tls_get_addr) plus a check of the variable's state, about
 * 45 instructions, twice per EP_ call. An initial-exec variable is one load at a fixed offset
 * from the thread pointer. It takes a few bytes of the static TLS block, which glibc reserves
 * for libraries loaded at start and keeps a surplus of for dlopen. The value is only a cache:
 * Rust's thread-local owns the state and clears this slot when the thread destroys it. */
#include <stddef.h>

static __thread void *epmpi_thread_slot __attribute__((tls_model("initial-exec")));

/* This thread's pointer, NULL until set. (Hidden: calls from the library bind directly,
 * not through the PLT, and the symbols are not exported.) */
__attribute__((visibility("hidden"))) void *epmpi_thread_slot_get(void) { return epmpi_thread_slot; }

/* Sets this thread's pointer. */
__attribute__((visibility("hidden"))) void epmpi_thread_slot_set(void *p) { epmpi_thread_slot = p; }
