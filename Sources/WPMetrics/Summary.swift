import Synchronization

/// Tracks quantiles of observations over a sliding time window, plus their count and sum.
///
/// Works like the Go client's summary: each objective is a quantile with an allowed rank
/// error (`0.9: 0.01` means the reported value's rank is within 0.89…0.91). Quantiles cover
/// the last `maxAge`, kept as `ageBuckets` overlapping streams that rotate every
/// `maxAge / ageBuckets`; count and sum cover all time. Time comes from an injected clock.
///
/// ```swift
/// let latency = try Summary(name: "rpc_seconds", help: "RPC latency.",
///                           configuration: .init(objectives: [0.5: 0.05, 0.99: 0.001]))
/// latency.observe(0.012)
/// ```
public final class Summary: Collector, SampledMetric {
    /// Quantile objectives and the sliding window.
    public struct Configuration: Sendable, Equatable {
        /// Quantile → allowed rank error. Empty exposes only `_sum` and `_count`.
        public var objectives: [Double: Double]
        /// How long an observation counts towards the quantiles.
        public var maxAge: Duration
        /// Number of streams the window is divided into.
        public var ageBuckets: Int
        /// Observations buffered before they are merged into the streams.
        public var bufferCapacity: Int

        /// Creates a configuration; the defaults match the Go client's classic summary.
        public init(
            objectives: [Double: Double] = [0.5: 0.05, 0.9: 0.01, 0.99: 0.001],
            maxAge: Duration = .seconds(600), ageBuckets: Int = 5, bufferCapacity: Int = 500
        ) {
            self.objectives = objectives
            self.maxAge = maxAge
            self.ageBuckets = ageBuckets
            self.bufferCapacity = bufferCapacity
        }

        func validated(metric: String) throws(MetricsError) -> Configuration {
            for (quantile, error) in objectives {
                guard quantile > 0, quantile < 1 else {
                    throw .invalidObjectives(metric: metric, reason: "quantile \(quantile) is not within (0, 1)")
                }
                guard error >= 0, error <= 1 else {
                    throw .invalidObjectives(metric: metric, reason: "allowed error \(error) for quantile \(quantile) is not within [0, 1]")
                }
            }
            guard ageBuckets >= 1 else {
                throw .invalidSummaryWindow(metric: metric, reason: "ageBuckets must be at least 1, got \(ageBuckets)")
            }
            guard maxAge / ageBuckets >= .milliseconds(1) else {
                throw .invalidSummaryWindow(metric: metric, reason: "maxAge / ageBuckets must be at least 1 ms, got \(maxAge) / \(ageBuckets)")
            }
            return self
        }
    }

    private struct State {
        var streams: [QuantileStream]
        var head = 0
        var headExpiry: Duration
        var count: UInt64 = 0
        var sum: Double = 0
    }

    /// The summary's family descriptor.
    public let descriptor: MetricDescriptor
    /// The validated configuration.
    public let configuration: Configuration
    private let quantiles: [Double]
    private let streamDuration: Duration
    private let elapsed: @Sendable () -> Duration
    private let state: Mutex<State>

    /// Creates an unregistered summary measuring time with a continuous clock.
    ///
    /// - Parameters:
    ///   - name: Metric name.
    ///   - help: Help text.
    ///   - unit: Optional OpenMetrics unit.
    ///   - configuration: Objectives and window.
    /// - Throws: ``MetricsError`` for invalid names, objectives or window.
    public convenience init(
        name: String, help: String, unit: String? = nil, configuration: Configuration = Configuration()
    ) throws(MetricsError) {
        try self.init(name: name, help: help, unit: unit, configuration: configuration, clock: ContinuousClock())
    }

    /// Creates an unregistered summary whose window moves with `clock`.
    ///
    /// - Parameters:
    ///   - name: Metric name.
    ///   - help: Help text.
    ///   - unit: Optional OpenMetrics unit.
    ///   - configuration: Objectives and window.
    ///   - clock: The clock that ages observations (tests pass a manual clock).
    /// - Throws: ``MetricsError`` for invalid names, objectives or window.
    public convenience init<C: Clock<Duration>>(
        name: String, help: String, unit: String? = nil, configuration: Configuration, clock: C
    ) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .summary, unit: unit).validated()
        let start = clock.now
        self.init(descriptor: descriptor, configuration: try configuration.validated(metric: name),
                  elapsed: { start.duration(to: clock.now) })
    }

    init(descriptor: MetricDescriptor, configuration: Configuration, elapsed: @escaping @Sendable () -> Duration) {
        self.descriptor = descriptor
        self.configuration = configuration
        self.elapsed = elapsed
        let targets = configuration.objectives.sorted { $0.key < $1.key }
            .map { QuantileStream.Target(quantile: $0.key, epsilon: $0.value) }
        self.quantiles = targets.map(\.quantile)
        self.streamDuration = configuration.maxAge / configuration.ageBuckets
        let streams = Array(repeating: QuantileStream(targets: targets, bufferCapacity: configuration.bufferCapacity),
                            count: targets.isEmpty ? 0 : configuration.ageBuckets)
        self.state = Mutex(State(streams: streams, headExpiry: elapsed() + streamDuration))
    }

    /// Records one observation. NaN is ignored.
    /// - Parameter value: The observed value.
    public func observe(_ value: Double) {
        if value.isNaN { return }
        let now = elapsed()
        state.withLock { state in
            rotate(&state, now: now)
            for index in state.streams.indices { state.streams[index].insert(value) }
            state.count &+= 1
            state.sum += value
        }
    }

    /// The current quantiles (NaN when the window is empty), count and sum.
    public var snapshot: SummaryValue {
        let now = elapsed()
        return state.withLock { state in
            rotate(&state, now: now)
            var values: [Double] = []
            values.reserveCapacity(quantiles.count)
            if !state.streams.isEmpty {
                for quantile in quantiles { values.append(state.streams[state.head].query(quantile)) }
            }
            return SummaryValue(quantiles: quantiles, values: values, count: state.count, sum: state.sum)
        }
    }

    /// The quantiles over the current window, the count and the sum.
    public var sampleValue: SampleValue { .summary(snapshot) }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// The family with the summary's one sample.
    public func collect() -> [MetricFamily] { singleFamily(descriptor) }

    /// Resets the oldest stream for every `streamDuration` that has passed; the head is the
    /// stream that has seen the whole window.
    private func rotate(_ state: inout State, now: Duration) {
        if state.streams.isEmpty { return }
        var rotations = 0
        while now >= state.headExpiry {
            if rotations == state.streams.count {
                // Everything expired: restart the schedule from now instead of looping per period.
                state.headExpiry = now + streamDuration
                break
            }
            state.streams[state.head].reset()
            state.head = (state.head + 1) % state.streams.count
            rotations += 1
            state.headExpiry += streamDuration
        }
    }
}
