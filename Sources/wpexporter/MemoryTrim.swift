import WPCMallocTuning
import WPExporter

/// Keeps glibc's heap from holding on to memory the exporter no longer uses.
///
/// Each collection allocates and frees a few megabytes per 1,000 devices (response bodies,
/// decoded readouts, the rendered snapshot). glibc keeps freed memory in per-thread arenas;
/// with Swift's thread pool that grows RSS to several times the live heap. Two arenas, a fixed
/// mmap threshold and a trim after each collection keep RSS close to what is live. All are
/// no-ops without glibc.
enum MemoryTrim {
    /// Limits malloc to two arenas and gives every allocation of 256 KiB or more its own
    /// mapping; call once at start, before threads exist.
    ///
    /// The large allocations are the snapshot's bodies (megabytes each), WinPower pages and
    /// rendering buffers. With their own mappings they go back to the system the moment the
    /// last scrape sending them finishes, instead of staying in the heap as fragments between
    /// smaller live allocations. glibc's default threshold starts at 128 KiB but rises to the
    /// size of each such block freed, which put every later snapshot in the heap.
    ///
    /// - Returns: `true` when glibc accepted both settings.
    @discardableResult
    static func configure() -> Bool {
        let arenas = wp_malloc_limit_arenas(2) == 1
        let threshold = wp_malloc_mmap_threshold(256 * 1024) == 1
        return arenas && threshold
    }

    /// Returns freed heap memory to the system (about a millisecond; once per collection).
    static func afterCollection() {
        _ = wp_malloc_trim()
    }
}
