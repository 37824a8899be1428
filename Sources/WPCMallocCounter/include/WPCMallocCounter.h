// Counts heap allocations made through malloc and friends, for wpbench's allocation figures.
// Linking this target into an executable interposes malloc/calloc/realloc/posix_memalign/
// aligned_alloc/memalign; each forwards to glibc's implementation after one relaxed atomic
// increment. Only the benchmark executable links it.
#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

/// Number of allocation calls since process start (0 where interposition is unsupported).
unsigned long cmalloccounter_allocations(void);

#endif
