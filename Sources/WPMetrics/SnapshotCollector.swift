import Synchronization

/// A collector that exposes the last snapshot its owner published: the way to export state
/// owned by an actor (or reachable only with `await`) without a scrape ever waiting for it.
///
/// ``Collector/collect()`` is synchronous, so a scrape cannot — and must not — await an actor.
/// Instead the owner *publishes* a plain `Sendable` value (``publish(_:)``) whenever its state
/// changes, or a task refreshes it on a schedule (``refresh(every:clock:reading:)``); a scrape
/// turns the last published value into families under a short lock, on the scraping thread.
/// The families are built at most once per published value and reused by later scrapes.
///
/// ```swift
/// actor Inventory {
///     private var stock: [String: Int] = [:]
///     nonisolated let metrics: SnapshotCollector<[String: Int]>
///
///     init(registry: MetricRegistry) throws {
///         let items = MetricDescriptor(name: "shop_stock_items", help: "Items in stock.", type: .gauge,
///                                      labelNames: ["item"])
///         metrics = try SnapshotCollector(descriptors: [items], initial: [:]) { stock in
///             var family = try items.makeFamily(capacity: stock.count)
///             for (item, count) in stock { try family.append(labelValues: [item], value: Double(count)) }
///             return [family]
///         }
///         try registry.register(metrics)
///     }
///
///     func restock(_ item: String, _ count: Int) {
///         stock[item, default: 0] += count
///         metrics.publish(stock)                     // scrapes see this from now on
///     }
///
///     var current: [String: Int] { stock }
/// }
/// ```
public final class SnapshotCollector<Snapshot: Sendable>: Collector {
    /// The families the snapshots are turned into, for the registry's conflict checks.
    public let descriptors: [MetricDescriptor]
    private let makeFamilies: @Sendable (Snapshot) throws -> [MetricFamily]

    private let state: Mutex<SnapshotCollectorState<Snapshot>>

    /// Creates a collector exposing `initial` until something is published.
    ///
    /// - Parameters:
    ///   - descriptors: Every family `families` can return (validated now).
    ///   - initial: The snapshot scrapes see before the first ``publish(_:)``.
    ///   - families: Turns a snapshot into families. Called on a scraping thread, at most once
    ///     per published snapshot; it must be quick and must not block. A snapshot it rejects
    ///     exposes no families, and ``lastError`` says why.
    /// - Throws: ``MetricsError`` for an invalid descriptor.
    public init(descriptors: [MetricDescriptor], initial: Snapshot,
                families: @escaping @Sendable (Snapshot) throws -> [MetricFamily]) throws(MetricsError) {
        var validated: [MetricDescriptor] = []
        for descriptor in descriptors { validated.append(try descriptor.validated()) }
        self.descriptors = validated
        self.makeFamilies = families
        self.state = Mutex(SnapshotCollectorState(snapshot: initial))
    }

    /// Replaces the snapshot; the next scrape exposes it. Never waits for a scrape in progress
    /// to finish rendering, so it is cheap to call from an actor on every change.
    ///
    /// - Parameter snapshot: The new state.
    public func publish(_ snapshot: Snapshot) {
        state.withLock { state in
            state.snapshot = snapshot
            state.generation &+= 1
            state.families = nil
            state.lastError = nil
        }
    }

    /// The last published snapshot (or the initial one).
    public var snapshot: Snapshot {
        state.withLock { $0.snapshot }
    }

    /// Why the latest snapshot rendered no families, or nil when it rendered fine (or has not
    /// been scraped yet).
    public var lastError: (any Error)? {
        state.withLock { $0.lastError }
    }

    /// The families of the last published snapshot, built once per snapshot and reused; none when
    /// they could not be built (``lastError`` says why).
    public func collect() -> [MetricFamily] {
        let (snapshot, generation, cached) = state.withLock { ($0.snapshot, $0.generation, $0.families) }
        if let cached { return cached }
        let families: [MetricFamily]
        let failure: (any Error)?
        do {
            families = try makeFamilies(snapshot)
            failure = nil
        } catch {
            families = []
            failure = error
        }
        state.withLock { state in
            guard state.generation == generation else { return }   // published meanwhile: render that one next time
            state.families = families
            state.lastError = failure
        }
        return families
    }

    /// Publishes `read()` now and then every `interval` of `clock`, until the calling task is
    /// cancelled: for state that is cheaper to poll than to publish on every change.
    ///
    /// Run it in a task of its own (`Task { await collector.refresh(every: .seconds(5)) { await inventory.stock } }`,
    /// or a child of the service's task group). Scrapes in between see the last value read;
    /// the awaiting happens here, never in a scrape.
    ///
    /// - Parameters:
    ///   - interval: Time between two reads (deadlines do not drift when a read is slow;
    ///     a read longer than `interval` delays the next one instead of stacking them).
    ///   - clock: The clock that times the refreshes (tests inject a manual one).
    ///   - read: Reads the current state, e.g. from an actor.
    public func refresh<C: Clock<Duration>>(every interval: Duration, clock: C = ContinuousClock(),
                                            reading read: @Sendable () async -> Snapshot) async {
        var deadline = clock.now
        while !Task.isCancelled {
            publish(await read())
            deadline = deadline.advanced(by: interval)
            if deadline < clock.now { deadline = clock.now.advanced(by: interval) }
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
        }
    }
}

/// What a ``SnapshotCollector`` keeps under its lock. A type of its own rather than nested in
/// the generic class: Swift 6.0's IRGen fails an assertion on a Mutex of a nested generic type.
private struct SnapshotCollectorState<Snapshot: Sendable> {
    var snapshot: Snapshot
    /// Bumped by every publish, so a rendering of an older snapshot is never cached.
    var generation: UInt64 = 0
    var families: [MetricFamily]?
    var lastError: (any Error)?
}
