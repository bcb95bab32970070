/*
 * The three entry points of the ThreadSanitizer runtime that Rust's LLVM emits for memory
 * copies (__tsan_memcpy, __tsan_memmove, __tsan_memset, LLVM 15 and later) but that GCC 12's
 * libtsan lacks; linked into the test programs of tests/threadcheck.rs. LLVM's runtime
 * implements each as its intercepted libc function, which is what these call: libtsan's
 * interceptors of memcpy, memmove and memset check and record the accessed ranges.
 */
#include <string.h>

void *__tsan_memcpy(void *dst, const void *src, size_t n);
void *__tsan_memmove(void *dst, const void *src, size_t n);
void *__tsan_memset(void *dst, int c, size_t n);

void *__tsan_memcpy(void *dst, const void *src, size_t n)
{
    return memcpy(dst, src, n);
}

void *__tsan_memmove(void *dst, const void *src, size_t n)
{
    return memmove(dst, src, n);
}

void *__tsan_memset(void *dst, int c, size_t n)
{
    return memset(dst, c, n);
}
