// <stdlib.h> first: on glibc it includes <features.h>, which defines __GLIBC__. Without an
// include before the test below, __GLIBC__ is undefined and every function is a no-op.
#include <stdlib.h>
#include "WPCMallocTuning.h"
#if defined(__GLIBC__)
#include <malloc.h>
int wp_malloc_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
int wp_malloc_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
int wp_malloc_trim(void) { return malloc_trim(0); }
int wp_malloc_is_glibc(void) { return 1; }
#else
int wp_malloc_limit_arenas(int count) { (void)count; return 0; }
int wp_malloc_mmap_threshold(int bytes) { (void)bytes; return 0; }
int wp_malloc_trim(void) { return 0; }
int wp_malloc_is_glibc(void) { return 0; }
#endif
