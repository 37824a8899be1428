import Synchronization
import WPCollector

/// The merged `/metrics` snapshot of a multi-server exporter, rebuilt whenever a server
/// publishes.
///
/// A rebuild concatenates the servers' latest ``ExpositionChunks`` (``MergedExposition``),
/// never renders nor compresses. Rebuilds never overlap: a publish while one runs only marks
/// the result outdated, and the running rebuild goes once more, so a burst of collections
/// finishing together costs one or two merges, not one each. Scrapes read the last merged
/// snapshot under a mutex held for nothing else.
///
/// The plain OpenMetrics body (as large as the text one; Prometheus asks for it gzipped) is
/// built only when a scrape asks for it, once per merge.
final class ExpositionMerger: Sendable {
    private struct Merged: Sendable {
        var snapshot = MetricsSnapshot.empty
        var parts: [ExpositionChunks?] = []
        var generation = 0
    }

    private let parts: @Sendable () -> [ExpositionChunks?]
    private let afterMerge: @Sendable () -> Void
    private let merged = Mutex(Merged())
    private let pending = Mutex((running: false, again: false))
    /// The plain OpenMetrics body of a generation; taken only after `merged` is released.
    private let openMetrics = Mutex<(generation: Int, body: [UInt8])>((-1, []))

    /// - Parameters:
    ///   - parts: every server's latest chunks, then the process-wide ones, in output order.
    ///   - afterMerge: called after each rebuild (memory trimming).
    init(parts: @escaping @Sendable () -> [ExpositionChunks?], afterMerge: @escaping @Sendable () -> Void = {}) {
        self.parts = parts
        self.afterMerge = afterMerge
    }

    /// The latest merged snapshot (its plain OpenMetrics body empty: see ``openMetricsBody()``).
    var snapshot: MetricsSnapshot { merged.withLock { $0.snapshot } }

    /// Whether a rebuild is running (its result not yet published).
    var isMerging: Bool { pending.withLock { $0.running } }

    /// The plain OpenMetrics body of the latest merge, built on the first call after it.
    func openMetricsBody() -> [UInt8] {
        let (generation, parts) = merged.withLock { ($0.generation, $0.parts) }
        return openMetrics.withLock { cached in
            if cached.generation != generation {
                cached = (generation, MergedExposition.openMetricsBody(of: parts))
            }
            return cached.body
        }
    }

    /// Rebuilds the merged snapshot now, or has the rebuild in progress go once more.
    func publish() {
        let runs = pending.withLock { state -> Bool in
            state.again = state.running
            state.running = true
            return !state.again
        }
        guard runs else { return }
        while true {
            let current = parts()
            let next = MergedExposition.snapshot(of: current, openMetricsBody: false)
            merged.withLock { $0 = Merged(snapshot: next, parts: current, generation: $0.generation + 1) }
            openMetrics.withLock { if $0.generation >= 0 { $0 = (-1, []) } }
            afterMerge()
            let again = pending.withLock { state -> Bool in
                if state.again {
                    state.again = false
                    return true
                }
                state.running = false
                return false
            }
            if !again { return }
        }
    }
}
