import Synchronization
package import WPCollector
package import WPServer

/// The merged `/metrics` snapshot of a multi-server exporter, rebuilt when servers publish,
/// at most once per ``spacing``.
///
/// A rebuild lists the servers' latest ``ExpositionChunks`` as the plain bodies' pieces and
/// concatenates their deflated chunks (``MergedExposition``): it never renders nor
/// compresses, yet at 50 servers × 100 devices it still costs milliseconds of CPU; servers
/// on their own schedules finish at different moments, so without a cap fifty servers at 5 s
/// would merge up to ten times a second. Hence:
///
/// - a publish at least ``spacing`` after the last rebuild started rebuilds at once, on the
///   publishing task (a single server's change, or the first of a burst, shows at once);
/// - a publish sooner than that only marks the snapshot outdated; ``run()`` rebuilds it once
///   ``spacing`` after the last rebuild began (the trailing rebuild), with every server's
///   latest chunks, so a collection is missing from `/metrics` for at most ``spacing`` plus
///   one merge;
/// - a server's first publish (``publish(first:)``) rebuilds at once whatever the spacing (or
///   has the running rebuild go once more at once), so a server that starts, at startup or on
///   a reload, is in `/metrics` as soon as its first collection finished;
/// - rebuilds never overlap (a publish during one marks it outdated), and nothing rebuilds
///   while nothing was published.
///
/// No lock is held across a rebuild nor across the wait. Scrapes read the last merged
/// snapshot under a mutex held for nothing else. With a zero spacing every publish rebuilds at
/// once (a publish during a rebuild has it go once more), as tests that read `/metrics` right
/// after the collections they drive need.
package final class ExpositionMerger<C: Clock>: Sendable where C.Duration == Duration {
    /// A merge's result: the snapshot, its plain bodies as parts (listed once), its number.
    package struct Merged: Sendable {
        package var snapshot = MetricsSnapshot.empty
        package var text = HTTPBodyParts()
        package var openMetrics = HTTPBodyParts()
        package var generation = 0
    }

    /// What a publish (or the end of a rebuild) leaves to do.
    private struct Pending: Sendable {
        var running = false
        /// Published since the last rebuild began.
        var outdated = false
        /// A server's first publish is among them: the spacing does not apply.
        var urgent = false
        /// When the last rebuild began.
        var lastStart: C.Instant?
    }

    /// The default minimum time between the starts of two rebuilds.
    package static var defaultSpacing: Duration { .seconds(1) }

    /// The minimum time between the starts of two rebuilds.
    package let spacing: Duration
    private let clock: C
    private let parts: @Sendable () -> [ExpositionChunks?]
    private let afterMerge: @Sendable (Merged) -> Void
    private let merged = Mutex(Merged())
    private let pending = Mutex(Pending())
    /// One element whenever a trailing rebuild is due; ``run()`` waits on it.
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// - Parameters:
    ///   - spacing: the minimum time between the starts of two rebuilds (zero: no cap).
    ///   - clock: measures the spacing and times the trailing rebuild.
    ///   - parts: every server's latest chunks, then the process-wide ones, in output order.
    ///   - afterMerge: called with each rebuild's result (the fleet's publication).
    package init(spacing: Duration = defaultSpacing, clock: C, parts: @escaping @Sendable () -> [ExpositionChunks?],
         afterMerge: @escaping @Sendable (Merged) -> Void = { _ in }) {
        self.spacing = max(spacing, .zero)
        self.clock = clock
        self.parts = parts
        self.afterMerge = afterMerge
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The latest merged snapshot (its plain bodies as parts: ``MetricsSnapshot/textParts``).
    package var snapshot: MetricsSnapshot { merged.withLock { $0.snapshot } }

    /// The latest merge's result.
    package var latest: Merged { merged.withLock { $0 } }

    /// How many rebuilds have finished.
    package var generation: Int { merged.withLock { $0.generation } }

    /// Whether a rebuild is running (its result not yet published).
    package var isMerging: Bool { pending.withLock { $0.running } }

    /// Whether something was published since the last rebuild began: without it, and with no
    /// rebuild running, nothing merges until the next publish.
    package var isOutdated: Bool { pending.withLock { $0.outdated } }

    /// Marks the merged snapshot outdated: rebuilds it now when the last rebuild began at least
    /// ``spacing`` ago (or `first` is set) and none is running, else leaves it to the running
    /// rebuild or to ``run()``.
    ///
    /// - Parameter first: the publish of a server's first collection, merged without waiting
    ///   for the spacing.
    package func publish(first: Bool = false) {
        let next = pending.withLock { state -> Next in
            state.outdated = true
            state.urgent = state.urgent || first
            return self.next(&state)
        }
        perform(next)
    }

    /// The publish function of one server: its first call is a first publish
    /// (``publish(first:)``), every later one an ordinary publish.
    package func publisher() -> @Sendable () -> Void {
        let called = Mutex(false)
        return { [self] in
            let first = called.withLock { called in
                defer { called = true }
                return !called
            }
            publish(first: first)
        }
    }

    /// Performs the trailing rebuilds until cancelled: each one ``spacing`` after the start of
    /// the rebuild before it, and only when something was published since.
    package func run() async {
        for await _ in wakeups {
            while let due = pending.withLock({ state -> C.Instant? in
                guard state.outdated, !state.running else { return nil }
                return state.lastStart.map { $0.advanced(by: spacing) } ?? clock.now
            }) {
                do {
                    try await clock.sleep(until: due, tolerance: nil)
                } catch {
                    return
                }
                if pending.withLock({ next(&$0) }) == .rebuild { perform(.rebuild) }
            }
        }
    }

    /// What an outdated snapshot needs now.
    private enum Next {
        case nothing, rebuild, trailing
    }

    /// Starts a rebuild (`.rebuild`) when the snapshot is outdated, none runs and the last one
    /// began at least ``spacing`` ago; `.trailing` when it is too early.
    private func next(_ state: inout Pending) -> Next {
        guard state.outdated, !state.running else { return .nothing }
        let now = clock.now
        if !state.urgent, let last = state.lastStart, now < last.advanced(by: spacing) { return .trailing }
        state = Pending(running: true, outdated: false, urgent: false, lastStart: now)
        return .rebuild
    }

    /// Rebuilds while `next` says so (publishes during a rebuild, when the spacing allows),
    /// or wakes ``run()`` for a trailing rebuild.
    private func perform(_ next: Next) {
        var next = next
        while next == .rebuild {
            let snapshot = MergedExposition.snapshot(of: parts())
            let text = HTTPBodyParts(slices: snapshot.textParts)
            let openMetrics = HTTPBodyParts(slices: snapshot.openMetricsParts)
            let result = merged.withLock {
                $0 = Merged(snapshot: snapshot, text: text, openMetrics: openMetrics, generation: $0.generation + 1)
                return $0
            }
            afterMerge(result)
            next = pending.withLock { state -> Next in
                state.running = false
                return self.next(&state)
            }
        }
        if next == .trailing { wake.yield() }
    }
}
