import Metrics

/// A stand-in for a third-party library that measures through swift-metrics only and knows
/// nothing of WPMetrics: whatever backend the service bootstraps receives its metrics.
public struct ConnectionPool: Sendable {
    /// The pool's name, a dimension of every metric.
    public let name: String
    private let opened: Counter
    private let open: Meter
    private let waits: Timer

    /// Creates a pool whose metrics go to `factory` (the bootstrapped backend by default).
    public init(name: String, factory: any MetricsFactory = MetricsSystem.factory) {
        self.name = name
        let dimensions = [("pool", name)]
        opened = Counter(label: "pool.connections.opened", dimensions: dimensions, factory: factory)
        open = Meter(label: "pool.connections.open", dimensions: dimensions, factory: factory)
        waits = Timer(label: "pool.wait", dimensions: dimensions, factory: factory)
    }

    /// Opens a connection after waiting `wait` for a free slot.
    public func connect(waited wait: Duration) {
        opened.increment()
        open.increment()
        let (seconds, attoseconds) = wait.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        waits.recordNanoseconds(overflow ? .max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue)
    }

    /// Closes a connection.
    public func disconnect() {
        open.decrement()
    }
}
