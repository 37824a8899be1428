import Synchronization
import WPCollector
import WPMetrics

/// Complete `/metrics` bodies, shared by the scrapes that arrive within ``maxAge`` of each other.
///
/// A body is the collector's snapshot (megabytes with 1,000 devices) followed by the small
/// per-scrape part, so building it copies the snapshot. Keeping the last body per format and
/// encoding lets concurrent scrapers share one buffer (responses reference it copy-on-write)
/// instead of holding a copy each: memory stays flat under many scrapers. The per-scrape
/// metrics (request counts, `process_*`) are then at most ``maxAge`` old; a new snapshot always
/// produces a new body.
final class ScrapeBodyCache: Sendable {
    struct Key: Hashable {
        var format: ExpositionFormat
        var gzip: Bool
    }

    private struct Entry {
        var snapshot: MetricsSnapshot
        var builtAt: Duration
        var body: [UInt8]
    }

    /// How long a body may be reused.
    let maxAge: Duration
    private let elapsed: @Sendable () -> Duration
    private let entries = Mutex<[Key: Entry]>([:])

    /// - Parameters:
    ///   - maxAge: how long a built body is served again (1 s in the exporter).
    ///   - elapsed: monotonic time since some origin, from the exporter's clock.
    init(maxAge: Duration, elapsed: @escaping @Sendable () -> Duration) {
        self.maxAge = maxAge
        self.elapsed = elapsed
    }

    /// The cached body for `key` and `snapshot` if fresh, else `build()`'s result, cached.
    func body(for key: Key, snapshot: MetricsSnapshot, build: () -> [UInt8]) -> [UInt8] {
        let now = elapsed()
        let cached = entries.withLock { entries -> [UInt8]? in
            guard let entry = entries[key], entry.snapshot === snapshot, now - entry.builtAt < maxAge else { return nil }
            return entry.body
        }
        if let cached { return cached }
        let body = build()
        entries.withLock { $0[key] = Entry(snapshot: snapshot, builtAt: now, body: body) }
        return body
    }
}
