#ifndef WPEXPORTER_CMALLOCTUNING_H
#define WPEXPORTER_CMALLOCTUNING_H
/// glibc heap tuning for the exporter process; no-ops where glibc is absent.
/// Limits malloc to `count` arenas. Returns 1 on success.
int wp_malloc_limit_arenas(int count);
/// Serves allocations of at least `bytes` with their own mappings, returned to the system
/// when freed (a fixed threshold: glibc no longer raises it after such a free). Returns 1 on success.
int wp_malloc_mmap_threshold(int bytes);
/// Returns free heap memory to the system. Returns 1 when memory was released.
int wp_malloc_trim(void);
/// 1 when built against glibc (the functions above take effect), 0 otherwise.
int wp_malloc_is_glibc(void);
#endif
