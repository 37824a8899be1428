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
final class ExpositionMerger: Sendable {
    private let parts: @Sendable () -> [ExpositionChunks?]
    private let afterMerge: @Sendable () -> Void
    private let merged = Mutex(MetricsSnapshot.empty)
    private let pending = Mutex((running: false, again: false))

    /// - Parameters:
    ///   - parts: every server's latest chunks, then the process-wide ones, in output order.
    ///   - afterMerge: called after each rebuild (memory trimming).
    init(parts: @escaping @Sendable () -> [ExpositionChunks?], afterMerge: @escaping @Sendable () -> Void = {}) {
        self.parts = parts
        self.afterMerge = afterMerge
    }

    /// The latest merged snapshot.
    var snapshot: MetricsSnapshot { merged.withLock { $0 } }

    /// Whether a rebuild is running (its result not yet published).
    var isMerging: Bool { pending.withLock { $0.running } }

    /// Rebuilds the merged snapshot now, or has the rebuild in progress go once more.
    func publish() {
        let runs = pending.withLock { state -> Bool in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard runs else { return }
        while true {
            let next = MergedExposition.snapshot(of: parts())
            merged.withLock { $0 = next }
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
