import CMallocTuning

/// Keeps glibc's heap from holding on to memory the exporter no longer uses.
///
/// Each collection allocates and frees a few megabytes per 1,000 devices (response bodies,
/// decoded readouts, the rendered snapshot). glibc keeps freed memory in per-thread arenas;
/// with Swift's thread pool that grows RSS to several times the live heap. Two arenas and a
/// trim after each collection keep RSS close to what is live. Both are no-ops without glibc.
enum MemoryTrim {
    /// Limits malloc to two arenas; call once at start, before threads exist.
    static func limitArenas() {
        _ = wp_malloc_limit_arenas(2)
    }

    /// Returns freed heap memory to the system (about a millisecond; once per collection).
    static func afterCollection() {
        _ = wp_malloc_trim()
    }
}
