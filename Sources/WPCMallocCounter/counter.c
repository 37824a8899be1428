#include "WPCMallocCounter.h"

#include <errno.h>  // also defines __GLIBC__ on glibc systems

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define WP_SANITIZED 1
#endif
#endif

// Under a sanitizer (the ThreadSanitizer build in CI) the sanitizer owns malloc: interposing it
// here would bypass the sanitizer's allocator and crash the program at its first allocation, so
// nothing is counted there (the figures come from release builds).
#if defined(__linux__) && defined(__GLIBC__) && !defined(WP_SANITIZED)
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

// The one counter this target exists for: process-wide by nature, like malloc itself.
static atomic_ulong allocations;

static inline void count(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t count_, size_t size) { count(); return __libc_calloc(count_, size); }
void *realloc(void *pointer, size_t size) { count(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *out = pointer;
    return 0;
}

unsigned long cmalloccounter_allocations(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}
#else
unsigned long cmalloccounter_allocations(void) { return 0; }
#endif
